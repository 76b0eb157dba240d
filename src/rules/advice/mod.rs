//! Rules that point out behaviour worth knowing.

pub(crate) mod poststart_delays_containers;
pub(crate) mod probe_grace_shorter_than_prestop;
pub(crate) mod probe_timeout_exceeds_period;
pub(crate) mod sidecar_startup_probe;
