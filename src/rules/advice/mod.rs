//! Rules that point out behaviour worth knowing.

pub mod poststart_delays_containers;
pub mod probe_grace_shorter_than_prestop;
pub mod probe_timeout_exceeds_period;
pub mod sidecar_startup_probe;
