//! Seconds and ranges as the explanation writes them: integers in JSON where whole, `null`
//! for never, and in text the words of [`crate::text`], the same as in findings.

use std::fmt;

use serde::{Serialize, Serializer};

use crate::lifecycle::{Bounds, Window};
use crate::text;

/// A number of seconds: written as an integer when it is one, `null` when infinite (never).
#[derive(Clone, Copy, Debug, PartialEq, PartialOrd)]
pub(crate) struct Secs(pub f64);

impl Secs {
    pub(crate) fn is_finite(self) -> bool {
        self.0.is_finite()
    }
}

impl Serialize for Secs {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        #[allow(clippy::cast_possible_truncation)]
        if !self.0.is_finite() {
            serializer.serialize_none()
        } else if self.0.fract() == 0.0 && self.0.abs() < 9.0e15 {
            serializer.serialize_i64(self.0 as i64)
        } else {
            serializer.serialize_f64(self.0)
        }
    }
}

impl fmt::Display for Secs {
    /// `10s`, `0.5s`, `never`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&text::seconds(self.0))
    }
}

/// Bounds in seconds; `max` is `null` when there is no upper bound.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub(crate) struct Range {
    pub(crate) min: Secs,
    pub(crate) max: Secs,
}

impl From<Bounds> for Range {
    fn from(bounds: Bounds) -> Range {
        Range {
            min: Secs(bounds.min),
            max: Secs(bounds.max),
        }
    }
}

impl From<&Window> for Range {
    fn from(window: &Window) -> Range {
        window.bounds().into()
    }
}

impl Range {
    pub(crate) fn exact(self) -> Option<Secs> {
        (self.min == self.max).then_some(self.min)
    }
}

impl fmt::Display for Range {
    /// `10s`, `10–30s`, `≥10s`, `never`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&text::range(self.min.0, self.max.0))
    }
}
