//! Rules that point out behaviour worth knowing.

pub mod poststart_delays_containers;
