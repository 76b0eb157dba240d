//! Times with their provenance. A [`Window`] is a time known to lie between two bounds, and
//! each bound carries the delays it adds up: `Ready ≥ 65s` because `migrate`'s command sleeps
//! 60 s and `web`'s readiness probe waits 5 s. [`Bounds`] is the same without provenance.
//!
//! Times leave out image pulls and the kubelet's own reaction time: neither is in the manifest,
//! and both only make things later. So an earliest time is a true lower bound; a latest time is
//! an upper bound apart from them, and infinite where the manifest leaves it open (how long an
//! init container runs, an exec hook of unknown length, a probe that has to pass).

use std::sync::Arc;

use super::ProbeKind;
use crate::model::path::FieldPath;

/// A whole number of seconds as a time.
#[allow(clippy::cast_precision_loss)]
pub(crate) fn seconds(value: i64) -> f64 {
    value as f64
}

/// A time known to lie between two bounds, in seconds (`max` may be infinite).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Bounds {
    pub min: f64,
    pub max: f64,
}

impl Bounds {
    pub(crate) const ZERO: Bounds = Bounds { min: 0.0, max: 0.0 };
    pub(crate) const NEVER: Bounds = Bounds {
        min: f64::INFINITY,
        max: f64::INFINITY,
    };

    pub(crate) fn exact(seconds: f64) -> Bounds {
        Bounds {
            min: seconds,
            max: seconds,
        }
    }

    /// `min..max`; a `max` below `min` is raised to it.
    pub(crate) fn new(min: f64, max: f64) -> Bounds {
        Bounds {
            min,
            max: max.max(min),
        }
    }

    /// The single value, when both bounds agree.
    pub(crate) fn value(self) -> Option<f64> {
        (self.min == self.max).then_some(self.min)
    }

    /// Applies a non-decreasing function to both bounds.
    #[must_use]
    pub(crate) fn map(self, f: impl Fn(f64) -> f64) -> Bounds {
        Bounds::new(f(self.min), f(self.max))
    }

    #[must_use]
    pub(crate) fn plus(self, other: Bounds) -> Bounds {
        Bounds::new(self.min + other.min, self.max + other.max)
    }

    /// The later of two times, bound by bound.
    #[must_use]
    pub(crate) fn later(self, other: Bounds) -> Bounds {
        Bounds::new(self.min.max(other.min), self.max.max(other.max))
    }
}

/// What a delay is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum DelayKind {
    /// A classic init container runs until it exits: at least the sleeps its command is sure
    /// to run; how long otherwise, the manifest does not say.
    InitRun,
    /// A postStart hook runs; the next container's start and the container's own status wait
    /// for it.
    PostStart,
    /// A postStart hook failed, and the kubelet kills the container before it goes on: the
    /// preStop hook, then up to the grace period and 2 s more.
    PostStartKill,
    /// The app containers after this one are started, each with its postStart hook, before
    /// the status shows any of them running.
    StartLoop,
    /// A probe waits `initialDelaySeconds` from the container's start.
    InitialDelay(ProbeKind),
    /// Up to one period until the probe worker's next tick.
    NextTick(ProbeKind),
    /// The tries after the first, each a period apart, or a timeout when a try outlasts the
    /// period.
    Tries(ProbeKind),
    /// The last try runs into its `timeoutSeconds`.
    Timeout(ProbeKind),
    /// A probe has to pass; when it does, the manifest cannot tell.
    MustPass(ProbeKind),
    /// A probe can never pass: its container does not declare the named port it uses.
    NeverPasses(ProbeKind),
}

/// One wait that a time adds up.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Delay {
    /// Index into [`super::Lifecycle::containers`].
    pub(crate) container: usize,
    pub(crate) kind: DelayKind,
    /// Seconds; infinite for a wait with no upper bound.
    pub(crate) seconds: f64,
    /// Where the manifest sets it: the command, the hook, the probe's field.
    pub(crate) path: FieldPath,
}

/// The delays behind a bound, most recent first, shared between the bounds built on them, so
/// that a chain of n containers costs n links, not n².
#[derive(Clone, Debug, Default)]
pub(crate) struct Trail(Option<Arc<Link>>);

#[derive(Debug)]
struct Link {
    delay: Delay,
    rest: Trail,
}

impl Drop for Link {
    // Unlinks a long chain one link at a time instead of recursing through it.
    fn drop(&mut self) {
        let mut next = self.rest.0.take();
        while let Some(link) = next {
            match Arc::try_unwrap(link) {
                Ok(mut link) => next = link.rest.0.take(),
                Err(_) => break,
            }
        }
    }
}

impl Trail {
    fn then(&self, delay: Delay) -> Trail {
        Trail(Some(Arc::new(Link {
            delay,
            rest: self.clone(),
        })))
    }

    /// The delays in the order they happen.
    pub(crate) fn delays(&self) -> Vec<&Delay> {
        let mut delays = Vec::new();
        let mut link = self.0.as_deref();
        while let Some(current) = link {
            delays.push(&current.delay);
            link = current.rest.0.as_deref();
        }
        delays.reverse();
        delays
    }
}

impl PartialEq for Trail {
    fn eq(&self, other: &Trail) -> bool {
        self.delays() == other.delays()
    }
}

/// A bound and the delays it adds up.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Bound {
    pub(crate) seconds: f64,
    pub(crate) trail: Trail,
}

impl Bound {
    /// The delays this bound counts: those of a known, non-zero length, in the order they
    /// happen. What a finding labels and a timeline lists.
    pub(crate) fn counted_delays(&self) -> Vec<&Delay> {
        self.trail
            .delays()
            .into_iter()
            .filter(|d| d.seconds > 0.0 && d.seconds.is_finite())
            .collect()
    }

    fn zero() -> Bound {
        Bound {
            seconds: 0.0,
            trail: Trail::default(),
        }
    }

    /// The bound after a delay of `seconds` (none is recorded for 0).
    fn after(&self, seconds: f64, delay: impl FnOnce(f64) -> Delay) -> Bound {
        if seconds == 0.0 {
            return self.clone();
        }
        Bound {
            seconds: self.seconds + seconds,
            trail: self.trail.then(delay(seconds)),
        }
    }

    fn later(&self, other: &Bound) -> Bound {
        if other.seconds > self.seconds {
            other.clone()
        } else {
            self.clone()
        }
    }
}

/// A time between two bounds, each with its delays.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Window {
    pub(crate) earliest: Bound,
    pub(crate) latest: Bound,
}

/// One step of a walk: a delay of a container that takes between two lengths.
#[derive(Clone, Debug)]
pub(crate) struct Step {
    pub(crate) container: usize,
    pub(crate) kind: DelayKind,
    pub(crate) path: FieldPath,
    pub(crate) length: Bounds,
}

impl Window {
    /// The moment everything is counted from.
    pub(crate) fn zero() -> Window {
        Window {
            earliest: Bound::zero(),
            latest: Bound::zero(),
        }
    }

    /// The time after `step`.
    #[must_use]
    pub(crate) fn then(&self, step: &Step) -> Window {
        let delay = |seconds| Delay {
            container: step.container,
            kind: step.kind,
            seconds,
            path: step.path.clone(),
        };
        Window {
            earliest: self.earliest.after(step.length.min, delay),
            latest: self.latest.after(step.length.max, delay),
        }
    }

    /// The later of two times, bound by bound.
    #[must_use]
    pub(crate) fn later(&self, other: &Window) -> Window {
        Window {
            earliest: self.earliest.later(&other.earliest),
            latest: self.latest.later(&other.latest),
        }
    }

    /// The same lower bound, and no upper bound: something after it has no known end.
    #[must_use]
    pub(crate) fn open_ended(&self, step: &Step) -> Window {
        Window {
            earliest: self.earliest.clone(),
            latest: self.latest.after(f64::INFINITY, |seconds| Delay {
                container: step.container,
                kind: step.kind,
                seconds,
                path: step.path.clone(),
            }),
        }
    }

    pub(crate) fn bounds(&self) -> Bounds {
        Bounds::new(self.earliest.seconds, self.latest.seconds)
    }

    /// Whether the time never comes.
    pub(crate) fn is_never(&self) -> bool {
        self.earliest.seconds.is_infinite()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn step(kind: DelayKind, min: f64, max: f64) -> Step {
        Step {
            container: 0,
            kind,
            path: FieldPath::default(),
            length: Bounds::new(min, max),
        }
    }

    #[test]
    fn bounds_add_up_with_their_delays() {
        let start = Window::zero();
        let hook = start.then(&step(DelayKind::PostStart, 5.0, 5.0));
        let run = hook.then(&step(DelayKind::InitRun, 2.0, f64::INFINITY));
        assert_eq!(run.bounds(), Bounds::new(7.0, f64::INFINITY));
        let kinds: Vec<DelayKind> = run.earliest.trail.delays().iter().map(|d| d.kind).collect();
        assert_eq!(kinds, [DelayKind::PostStart, DelayKind::InitRun]);
        let other = start.then(&step(DelayKind::StartLoop, 9.0, 9.0));
        let later = run.later(&other);
        assert_eq!(later.bounds(), Bounds::new(9.0, f64::INFINITY));
        assert_eq!(later.earliest.trail.delays()[0].kind, DelayKind::StartLoop);
    }

    #[test]
    fn a_long_chain_is_dropped_without_recursing() {
        let mut window = Window::zero();
        for _ in 0..200_000 {
            window = window.then(&step(DelayKind::PostStart, 1.0, 1.0));
        }
        assert_eq!(window.bounds(), Bounds::exact(200_000.0));
        drop(window);
    }
}
