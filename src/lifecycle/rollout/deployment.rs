//! A Deployment's rollout (kubernetes/kubernetes `pkg/controller/deployment/`).
//!
//! - Defaults (`pkg/apis/apps/v1/defaults.go`, `SetDefaults_Deployment`): 1 replica, strategy
//!   `RollingUpdate` with `maxSurge` and `maxUnavailable` of 25%, `progressDeadlineSeconds` 600.
//! - `RollingUpdate` (`rolling.go`, `rolloutRolling`): every sync scales the new ReplicaSet up to
//!   `replicas + maxSurge` pods in all (`util.NewRSNewReplicas`), and the old ones down while
//!   `replicas − maxUnavailable` pods stay available (`reconcileOldReplicaSets`,
//!   `scaleDownOldReplicaSetsForRollingUpdate`), with the fenceposts of `ResolveFenceposts`. A
//!   new pod counts once it has been Ready for `minReadySeconds` (`pkg/api/v1/pod/util.go`,
//!   `IsPodAvailable`); only then do old pods go. So the rollout goes in waves, each one the
//!   time a new pod takes to become available.
//! - `Recreate` (`recreate.go`, `rolloutRecreate`): the old ReplicaSets are scaled to 0, the
//!   controller waits until none of their pods runs (`oldPodsRunning`), then scales the new one
//!   up: the old pods' whole shutdown, then the new pods' startup, with nothing serving between.
//! - The progress deadline (`progress.go`, `syncRolloutStatus`; `util.DeploymentProgressing`,
//!   `DeploymentTimedOut`): a new pod, a pod scaled away, a pod Ready or available refreshes the
//!   `Progressing` condition; when none comes for `progressDeadlineSeconds` the condition turns
//!   `False` with reason `ProgressDeadlineExceeded` and `kubectl rollout status` fails. Between
//!   the creation of a wave's pods and the first of them being Ready nothing progresses, so a
//!   pod whose earliest Ready is past the deadline times out every rollout. `2147483647` turns
//!   the deadline off (`HasProgressDeadline`).

use podcycle_k8s::k8s_openapi::api::apps::v1::DeploymentSpec;

use super::{PodTimes, Replicas, times};
use crate::lifecycle::time::{Bounds, seconds};
use crate::model::IntOrString;
use crate::model::amount::{Amount, deployment_max_unavailable, resolve_fenceposts};

/// `progressDeadlineSeconds` that turns the deadline off (`math.MaxInt32`).
pub(crate) const NO_PROGRESS_DEADLINE: i32 = i32::MAX;
/// `progressDeadlineSeconds` when it is not written.
pub(crate) const DEFAULT_PROGRESS_DEADLINE_SECONDS: i32 = 600;

/// A count of pods as written and as the controller resolves it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Resolved {
    /// The value, as written or defaulted.
    pub value: IntOrString,
    /// As written (`25%`, `1`), or the default.
    pub(crate) written: String,
    /// Not written: the default applies.
    pub(crate) defaulted: bool,
    /// Pods.
    pub(crate) pods: i32,
}

/// A Deployment's strategy, resolved.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DeploymentStrategy {
    RollingUpdate {
        surge: Resolved,
        unavailable: Resolved,
        /// Both resolved to 0, so the controller lets one pod be unavailable.
        raised: bool,
    },
    Recreate,
    /// A type or a value the API server rejects: no rollout follows.
    Invalid,
}

/// `progressDeadlineSeconds`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct ProgressDeadline {
    /// `None` when it is off (`2147483647`).
    pub(crate) seconds: Option<i32>,
    pub(crate) written: bool,
}

/// One wave of a rolling update: new pods started together, and what runs meanwhile.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Wave {
    /// New pods the wave starts.
    pub(crate) new_pods: i64,
    /// Pods available while they start (new ones of earlier waves and old ones left).
    pub(crate) available: i64,
    /// Pods counted while they start, at most `replicas + maxSurge`, which may pass the
    /// largest `replicas` (old pods that are terminating are not counted, and come on top).
    pub(crate) pods: i64,
    /// From the start of the rollout: the wave's pods are created, the first is Ready, all are
    /// available.
    pub(crate) start: Bounds,
    pub(crate) ready: Bounds,
    pub(crate) end: Bounds,
}

/// A Deployment's rollout.
#[derive(Clone, Debug)]
pub struct DeploymentPlan {
    pub replicas: Replicas,
    pub strategy: DeploymentStrategy,
    pub(crate) min_ready_seconds: i32,
    pub(crate) progress_deadline: ProgressDeadline,
    /// `spec.paused`: no rollout happens until it is resumed.
    pub(crate) paused: bool,
    /// From a pod's start until it is available: Ready, then `minReadySeconds`.
    pub(crate) available_after: Bounds,
    pub(crate) waves: Waves,
    /// From the start of the rollout until every new pod is available; `None` when no rollout
    /// runs (paused, no replicas, a strategy the API server rejects).
    pub(crate) complete: Option<Bounds>,
    /// `Recreate`: from the old pods' deletion until a new one is Ready, with no pod serving.
    pub(crate) downtime: Option<Bounds>,
}

/// What the progress deadline does to a rollout.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum DeadlineVerdict {
    /// No deadline, no rollout, or a pod that never becomes Ready (other findings say why).
    NotJudged,
    /// Every wave waits at least `ready` seconds for its first pod to be Ready: longer than
    /// the deadline, so every rollout is reported failed.
    Exceeded {
        ready: f64,
    },
    /// The pod may take longer than the deadline and still start: a startup probe allows
    /// `seconds` to the container at `container`.
    MayExceedByProbe {
        container: usize,
        seconds: f64,
    },
    /// The pod's Ready time is bounded, and its latest bound is past the deadline.
    MayExceed {
        ready: Bounds,
    },
    Met,
}

impl DeploymentPlan {
    pub(crate) fn new(spec: &DeploymentSpec, replicas: Replicas, pod: &PodTimes) -> DeploymentPlan {
        let min_ready_seconds = spec.min_ready_seconds.unwrap_or(0);
        let progress_deadline = ProgressDeadline {
            seconds: match spec.progress_deadline_seconds {
                Some(NO_PROGRESS_DEADLINE) => None,
                Some(seconds) => Some(seconds),
                None => Some(DEFAULT_PROGRESS_DEADLINE_SECONDS),
            },
            written: spec.progress_deadline_seconds.is_some(),
        };
        let strategy = strategy(spec, replicas.count);
        let available_after = pod
            .ready_bounds()
            .plus(Bounds::exact(seconds(i64::from(min_ready_seconds.max(0)))));
        let paused = spec.paused == Some(true);
        let mut plan = DeploymentPlan {
            replicas,
            strategy,
            min_ready_seconds,
            progress_deadline,
            paused,
            available_after,
            waves: Waves::None,
            complete: None,
            downtime: None,
        };
        if paused || replicas.count == 0 {
            return plan;
        }
        match &plan.strategy {
            DeploymentStrategy::RollingUpdate {
                surge, unavailable, ..
            } => {
                let shape = RollingWaves::new(replicas.count, surge.pods, unavailable.pods);
                plan.complete = Some(times(shape.count(), available_after));
                plan.waves = Waves::Rolling {
                    shape,
                    ready: pod.ready_bounds(),
                    available_after,
                };
            }
            DeploymentStrategy::Recreate => {
                let start = pod.termination;
                plan.waves = Waves::Recreate(Wave {
                    new_pods: i64::from(replicas.count),
                    available: 0,
                    pods: i64::from(replicas.count),
                    start,
                    ready: start.plus(pod.ready_bounds()),
                    end: start.plus(available_after),
                });
                plan.downtime = Some(start.plus(pod.ready_bounds()));
                plan.complete = Some(start.plus(available_after));
            }
            DeploymentStrategy::Invalid => {}
        }
        plan
    }

    /// `maxUnavailable` in pods for `replicas` (`ResolveFenceposts`, `MaxUnavailable`), for a
    /// rolling update.
    pub(crate) fn max_unavailable_at(&self, replicas: i32) -> Option<i32> {
        let DeploymentStrategy::RollingUpdate {
            surge, unavailable, ..
        } = &self.strategy
        else {
            return None;
        };
        let (_, pods) = resolve_fenceposts(Some(&surge.value), Some(&unavailable.value), replicas)?;
        Some(deployment_max_unavailable(pods, replicas))
    }

    /// What the progress deadline does to this rollout of pods with `pod`'s times.
    pub(crate) fn deadline_verdict(&self, pod: &PodTimes) -> DeadlineVerdict {
        let Some(deadline) = self.progress_deadline.seconds else {
            return DeadlineVerdict::NotJudged;
        };
        if self.complete.is_none() {
            return DeadlineVerdict::NotJudged;
        }
        let deadline = seconds(i64::from(deadline));
        let ready = pod.ready_bounds();
        if !ready.min.is_finite() {
            return DeadlineVerdict::NotJudged;
        }
        if ready.min > deadline {
            return DeadlineVerdict::Exceeded { ready: ready.min };
        }
        if let Some((container, allowance)) = pod.startup_allowance
            && allowance > deadline
        {
            return DeadlineVerdict::MayExceedByProbe {
                container,
                seconds: allowance,
            };
        }
        if ready.max.is_finite() && ready.max > deadline {
            return DeadlineVerdict::MayExceed { ready };
        }
        DeadlineVerdict::Met
    }
}

fn strategy(spec: &DeploymentSpec, replicas: i32) -> DeploymentStrategy {
    let strategy = spec.strategy.as_ref();
    match strategy.and_then(|s| s.type_.as_deref()) {
        None | Some("RollingUpdate") => {}
        Some("Recreate") if strategy.is_some_and(|s| s.rolling_update.is_none()) => {
            return DeploymentStrategy::Recreate;
        }
        Some(_) => return DeploymentStrategy::Invalid,
    }
    let rolling = strategy.and_then(|s| s.rolling_update.as_ref());
    let quarter = IntOrString::String("25%".to_owned());
    let surge = rolling.and_then(|r| r.max_surge.as_ref());
    let unavailable = rolling.and_then(|r| r.max_unavailable.as_ref());
    let with_default = |value: Option<&IntOrString>| value.cloned().unwrap_or(quarter.clone());
    let (surge_value, unavailable_value) = (with_default(surge), with_default(unavailable));
    let Some((surge_pods, unavailable_pods)) =
        resolve_fenceposts(Some(&surge_value), Some(&unavailable_value), replicas)
    else {
        return DeploymentStrategy::Invalid;
    };
    let text = |value: &IntOrString| {
        Amount::read(value).map_or_else(|| format!("{value:?}"), Amount::text)
    };
    // Both written as 0 is rejected (`ValidateRollingUpdateDeployment`); both resolving to 0
    // is what `ResolveFenceposts` raises; at 0 replicas `MaxUnavailable` is 0 whatever it
    // raised, so nothing is.
    let raised = replicas > 0
        && Amount::read(&surge_value).is_some_and(|a| a.scaled(i64::from(replicas), true) == 0)
        && Amount::read(&unavailable_value)
            .is_some_and(|a| a.scaled(i64::from(replicas), false) == 0);
    DeploymentStrategy::RollingUpdate {
        surge: Resolved {
            value: surge_value.clone(),
            written: text(&surge_value),
            defaulted: surge.is_none(),
            pods: surge_pods,
        },
        unavailable: Resolved {
            value: unavailable_value.clone(),
            written: text(&unavailable_value),
            defaulted: unavailable.is_none(),
            pods: deployment_max_unavailable(unavailable_pods, replicas),
        },
        raised,
    }
}

/// The waves of a rolling update of `replicas` pods with `surge` and `unavailable` resolved,
/// as the controller's syncs make them when every new pod of a wave becomes available at the
/// same moment and every old pod is available: for each wave, the new pods it starts, the pods
/// available meanwhile, and the pods counted meanwhile.
///
/// Each sync scales up (`NewRSNewReplicas`: up to `replicas + surge` in all, and no more new
/// pods than `replicas`), then down (`reconcileOldReplicaSets`: at most
/// `all − (replicas − unavailable) − unavailable new pods`, and no more than available pods
/// above `replicas − unavailable`), until neither changes anything. With `a` new pods
/// available, that leaves `max(minAvailable − a, 0)` old pods and `min(replicas, replicas +
/// surge − old)` new ones: while `a` is below `minAvailable` a wave starts `surge +
/// unavailable` pods (fewer for the last), with `minAvailable` pods available; the wave that
/// starts at or past `minAvailable` starts all the rest. So the waves are counted and each is
/// computed by formula, never listed: a `replicas` of 2147483647 costs what 3 does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct RollingWaves {
    replicas: i64,
    /// `surge + unavailable`: the new pods a wave starts while the old pods are the floor.
    step: i64,
    /// `replicas − unavailable`.
    min_available: i64,
    /// Waves of `step` pods (the last of them maybe fewer) started below `min_available`.
    stepped: i64,
}

impl RollingWaves {
    pub(crate) fn new(replicas: i32, surge: i32, unavailable: i32) -> RollingWaves {
        let replicas = i64::from(replicas.max(0));
        let surge = i64::from(surge.max(0));
        let unavailable = i64::from(unavailable.max(0)).min(replicas);
        let step = surge + unavailable;
        let min_available = replicas - unavailable;
        let stepped = if step == 0 {
            0
        } else {
            super::rounds(min_available, step)
        };
        RollingWaves {
            replicas,
            step,
            min_available,
            stepped,
        }
    }

    /// How many waves the rolling update takes.
    pub(crate) fn count(&self) -> i64 {
        if self.replicas == 0 || (self.step == 0 && self.min_available > 0) {
            // Nothing to roll, or fenceposts that let nothing move (the controller raises
            // them, so only a caller's mistake gets here).
            return 0;
        }
        let rest = self.replicas - (self.stepped * self.step).min(self.replicas);
        self.stepped + i64::from(rest > 0)
    }

    /// Wave `index` (from 0): the new pods it starts, the pods available and the pods counted
    /// meanwhile; `None` past the last.
    pub(crate) fn nth(&self, index: i64) -> Option<(i64, i64, i64)> {
        if index < 0 || index >= self.count() {
            return None;
        }
        let before = index.saturating_mul(self.step).min(self.replicas);
        Some(if index < self.stepped {
            let started = (self.replicas - before).min(self.step);
            (started, self.min_available, self.min_available + started)
        } else {
            (self.replicas - before, before, self.replicas)
        })
    }
}

/// Waves, each with its index from 0.
pub(crate) type Numbered = Vec<(i64, Wave)>;

/// The waves of a rollout, each computed when asked for: a rolling update's by formula
/// ([`RollingWaves`]), a `Recreate`'s one wave.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Waves {
    /// No rollout runs.
    None,
    Rolling {
        shape: RollingWaves,
        /// From a new pod's start until it is Ready, and until it is available.
        ready: Bounds,
        available_after: Bounds,
    },
    Recreate(Wave),
}

impl Waves {
    pub(crate) fn len(&self) -> i64 {
        match self {
            Waves::None => 0,
            Waves::Rolling { shape, .. } => shape.count(),
            Waves::Recreate(_) => 1,
        }
    }

    /// Wave `index`, from 0.
    pub(crate) fn nth(&self, index: i64) -> Option<Wave> {
        match self {
            Waves::None => None,
            Waves::Recreate(wave) => (index == 0).then(|| wave.clone()),
            Waves::Rolling {
                shape,
                ready,
                available_after,
            } => {
                let (new_pods, available, pods) = shape.nth(index)?;
                let before = times(index, *available_after);
                Some(Wave {
                    new_pods,
                    available,
                    pods,
                    start: before,
                    ready: before.plus(*ready),
                    end: before.plus(*available_after),
                })
            }
        }
    }

    /// The first `first` waves and the last `last`, each with its index, and how many lie
    /// between: what a reader is shown of a rollout of any length.
    pub(crate) fn ends(&self, first: i64, last: i64) -> (Numbered, i64, Numbered) {
        let count = self.len();
        let listed = |range: std::ops::Range<i64>| -> Numbered {
            range
                .filter_map(|index| Some((index, self.nth(index)?)))
                .collect()
        };
        if count <= first + last {
            return (listed(0..count), 0, Vec::new());
        }
        (
            listed(0..first),
            count - first - last,
            listed(count - last..count),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn listed(replicas: i32, surge: i32, unavailable: i32) -> Vec<(i64, i64, i64)> {
        let waves = RollingWaves::new(replicas, surge, unavailable);
        (0..waves.count()).filter_map(|i| waves.nth(i)).collect()
    }

    /// The controller's syncs played one by one, as the formula's reference: every wave's
    /// pods become available together.
    fn simulated(replicas: i32, surge: i32, unavailable: i32) -> Vec<(i64, i64, i64)> {
        let replicas = i64::from(replicas.max(0));
        let surge = i64::from(surge.max(0));
        let unavailable = i64::from(unavailable.max(0));
        let min_available = replicas - unavailable.min(replicas);
        let (mut new, mut old, mut new_available) = (0i64, replicas, 0i64);
        let mut waves = Vec::new();
        for _ in 0..=replicas {
            loop {
                let mut changed = false;
                let all = new + old;
                if all < replicas + surge && new < replicas {
                    let up = (replicas + surge - all).min(replicas - new);
                    if up > 0 {
                        new += up;
                        changed = true;
                    }
                }
                let max_scaled_down = (new + old) - min_available - (new - new_available);
                let available = new_available + old;
                if max_scaled_down > 0 && old > 0 && available > min_available {
                    old -= (available - min_available).min(old);
                    changed = true;
                }
                if !changed {
                    break;
                }
            }
            let started = new - new_available;
            if started == 0 {
                break;
            }
            waves.push((started, new_available + old, new + old));
            new_available = new;
        }
        waves
    }

    #[test]
    fn waves_follow_surge_and_unavailable() {
        // 10 replicas, 25%: surge 3, unavailable 2. Five new pods per wave, eight available.
        assert_eq!(listed(10, 3, 2), [(5, 8, 13), (5, 8, 13)]);
        // Surge only: one new pod at a time, all old ones serving.
        assert_eq!(listed(3, 1, 0), [(1, 3, 4), (1, 3, 4), (1, 3, 4)]);
        // Unavailable only: one old pod goes, one new comes.
        assert_eq!(listed(2, 0, 1), [(1, 1, 2), (1, 1, 2)]);
        // Everything at once.
        assert_eq!(listed(4, 0, 4), [(4, 0, 4)]);
        assert!(listed(0, 1, 0).is_empty());
    }

    #[test]
    fn the_formula_is_the_controllers_syncs() {
        for replicas in 0..=40 {
            for surge in 0..=12 {
                for unavailable in 0..=12 {
                    if surge == 0 && unavailable == 0 {
                        continue;
                    }
                    assert_eq!(
                        listed(replicas, surge, unavailable),
                        simulated(replicas, surge, unavailable),
                        "replicas {replicas}, surge {surge}, unavailable {unavailable}"
                    );
                }
            }
        }
    }

    #[test]
    fn the_largest_replica_count_is_counted_not_listed() {
        let waves = RollingWaves::new(i32::MAX, 1, 0);
        assert_eq!(waves.count(), i64::from(i32::MAX));
        let most = i64::from(i32::MAX);
        // `replicas + maxSurge` pods in all: one more than an i32 holds.
        assert_eq!(waves.nth(0), Some((1, most, most + 1)));
        assert_eq!(waves.nth(most - 1), Some((1, most, most + 1)));
        assert_eq!(waves.nth(i64::from(i32::MAX)), None);
        let all = Waves::Rolling {
            shape: waves,
            ready: Bounds::exact(5.0),
            available_after: Bounds::exact(5.0),
        };
        let (first, between, last) = all.ends(3, 2);
        assert_eq!(
            (first.len(), between, last.len()),
            (3, i64::from(i32::MAX) - 5, 2)
        );
        assert_eq!(last[1].0, i64::from(i32::MAX) - 1);
        assert_eq!(last[1].1.end, Bounds::exact(5.0 * f64::from(i32::MAX)));
    }
}
