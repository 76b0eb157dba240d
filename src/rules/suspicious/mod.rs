//! Rules for likely bugs with a runtime consequence.

pub mod poststart_blocks_sidecar;
pub mod unused_suppression;
