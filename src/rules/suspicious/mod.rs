//! Rules for likely bugs with a runtime consequence.

pub(crate) mod active_deadline_too_short;
pub(crate) mod autoscalers_share_target;
pub(crate) mod disruption_budget_blocks_eviction;
pub(crate) mod disruption_budget_blocks_platform_drain;
pub(crate) mod disruption_budget_selects_nothing;
pub(crate) mod grace_period_exceeds_platform_cap;
pub(crate) mod init_container_never_exits;
pub(crate) mod job_container_never_exits;
pub(crate) mod job_deadline_cuts_retries;
pub(crate) mod liveness_restart_never;
pub(crate) mod overlapping_disruption_budgets;
pub(crate) mod poststart_blocks_sidecar;
pub(crate) mod probe_port_not_tcp;
pub(crate) mod replicas_with_autoscaler;
pub(crate) mod rolling_update_takes_all_replicas;
pub(crate) mod shutdown_exceeds_platform_notice;
pub(crate) mod sidecar_readiness_gating;
pub(crate) mod statefulset_rollout_exceeds_budget;
pub(crate) mod unused_suppression;
pub(crate) mod zero_grace_period;
