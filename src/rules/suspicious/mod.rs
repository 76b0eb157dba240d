//! Rules for likely bugs with a runtime consequence.

pub mod active_deadline_too_short;
pub mod init_container_never_exits;
pub mod job_container_never_exits;
pub mod liveness_restart_never;
pub mod poststart_blocks_sidecar;
pub mod probe_port_not_tcp;
pub mod sidecar_readiness_gating;
pub mod unused_suppression;
pub mod zero_grace_period;
