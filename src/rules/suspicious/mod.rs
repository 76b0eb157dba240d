//! Rules for likely bugs with a runtime consequence.

pub mod active_deadline_too_short;
pub mod disruption_budget_blocks_eviction;
pub mod disruption_budget_selects_nothing;
pub mod init_container_never_exits;
pub mod job_container_never_exits;
pub mod job_deadline_cuts_retries;
pub mod liveness_restart_never;
pub mod overlapping_disruption_budgets;
pub mod poststart_blocks_sidecar;
pub mod probe_port_not_tcp;
pub mod rolling_update_takes_all_replicas;
pub mod sidecar_readiness_gating;
pub mod statefulset_rollout_exceeds_budget;
pub mod unused_suppression;
pub mod zero_grace_period;
