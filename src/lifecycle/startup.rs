//! The least time a pod needs to start, from what the spec makes certain: sleeps in the
//! commands of classic init containers, sleeps in postStart hooks, and the
//! `initialDelaySeconds` of startup probes. Image pulls, hooks of unknown length and the
//! kubelet's own latency only add to it, so it is a lower bound.
//!
//! The gates between starts are the lifecycle's: a classic init container's exit, a
//! sidecar's startup (its startup probe passed, which is never before its
//! `initialDelaySeconds`, and its postStart returned), an app container's postStart
//! (kuberuntime_container.go `computeInitContainerActions`, `startContainer`;
//! prober/worker.go `doProbe`, which waits `initialDelaySeconds` from the container's start).

use super::shell::{ExecSleep, exec_sleep};
use super::{ContainerLife, Lifecycle, Role};
use crate::model::path::FieldPath;

/// What makes a start wait.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DelayKind {
    /// A classic init container's command sleeps.
    Command,
    /// A postStart hook sleeps.
    PostStart,
    /// A startup probe waits `initialDelaySeconds` before its first try.
    StartupProbe,
}

/// One certain wait.
#[derive(Clone, Debug, PartialEq)]
pub struct Delay {
    /// Index into [`Lifecycle::containers`].
    pub container: usize,
    pub kind: DelayKind,
    pub seconds: f64,
    /// Where it is written: the command, the hook, or the probe's `initialDelaySeconds`.
    pub path: FieldPath,
}

/// A lower bound on startup time, and the waits it adds up.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct StartupBound {
    pub seconds: f64,
    pub delays: Vec<Delay>,
}

impl Lifecycle<'_> {
    /// The least time from the pod's start until its last container is started; with
    /// `until_started`, until every sidecar and app container has also returned from its
    /// postStart hook and passed its startup probe's initial delay.
    pub fn certain_startup(&self, until_started: bool) -> StartupBound {
        let mut chain = StartupBound::default();
        let mut longest = StartupBound::default();
        for (index, container) in self.containers.iter().enumerate() {
            // `chain` is now this container's earliest start.
            if chain.seconds > longest.seconds {
                longest = chain.clone();
            }
            let own = own_delay(index, container);
            if let Some(own) = own
                .as_ref()
                .filter(|_| until_started && container.role != Role::Init)
                && chain.seconds + own.seconds > longest.seconds
            {
                longest = chain.clone();
                longest.seconds += own.seconds;
                longest.delays.push(own.clone());
            }
            // What the next container's start waits for.
            let gate = match container.role {
                Role::Init | Role::Sidecar => own,
                Role::App => post_start_delay(index, container),
            };
            if let Some(gate) = gate {
                chain.seconds += gate.seconds;
                chain.delays.push(gate);
            }
        }
        longest
    }
}

/// The certain time a container takes before it lets the next one start (classic init
/// containers) or counts as started (sidecars and app containers).
fn own_delay(index: usize, container: &ContainerLife<'_>) -> Option<Delay> {
    if container.role == Role::Init {
        let command = container.container.command.as_deref().unwrap_or_default();
        if command.is_empty() {
            // `args` alone go to the image's entrypoint, which the manifest does not show.
            return None;
        }
        let argv: Vec<String> = command
            .iter()
            .chain(container.container.args.iter().flatten())
            .cloned()
            .collect();
        let Some(ExecSleep::AtLeast(seconds)) = exec_sleep(&argv) else {
            return None;
        };
        return Some(Delay {
            container: index,
            kind: DelayKind::Command,
            seconds,
            path: container.path.key("command"),
        });
    }
    let startup = container.probes.startup.and_then(|probe| {
        #[allow(clippy::cast_precision_loss)]
        let seconds = probe.initial_delay_seconds as f64;
        (seconds > 0.0).then(|| Delay {
            container: index,
            kind: DelayKind::StartupProbe,
            seconds,
            path: container
                .path
                .key("startupProbe")
                .key("initialDelaySeconds"),
        })
    });
    match (post_start_delay(index, container), startup) {
        (Some(hook), Some(probe)) => Some(if hook.seconds >= probe.seconds {
            hook
        } else {
            probe
        }),
        (hook, probe) => hook.or(probe),
    }
}

fn post_start_delay(index: usize, container: &ContainerLife<'_>) -> Option<Delay> {
    let hook = container.post_start.as_ref()?;
    let seconds = hook.duration.known_seconds()?;
    (seconds > 0.0 && seconds.is_finite()).then(|| Delay {
        container: index,
        kind: DelayKind::PostStart,
        seconds,
        path: hook.path.clone(),
    })
}
