//! How many evictions a PodDisruptionBudget allows once every pod it covers is healthy, as the
//! disruption controller computes it (kubernetes/kubernetes
//! `pkg/controller/disruption/disruption.go`):
//!
//! - `getExpectedPodCount`: with an integer `minAvailable` the expected count is the number of
//!   pods the budget selects and the desired healthy count is `minAvailable`; with a percentage,
//!   or with `maxUnavailable`, the expected count is the scale of the pods' controllers
//!   (`getExpectedScale`: a Deployment's, ReplicaSet's, ReplicationController's or
//!   StatefulSet's `spec.replicas`, else the `scale` subresource; a DaemonSet or a Job has none,
//!   so the sync fails and the budget allows nothing), percentages rounded up; pods without a
//!   controller are left out of it;
//! - `updatePdbStatus`: `disruptionsAllowed = currentHealthy − desiredHealthy`, and 0 when that
//!   is not positive or the expected count is 0 — which a budget with neither `minAvailable`
//!   nor `maxUnavailable` always has.
//!
//! The eviction API then refuses every eviction while `disruptionsAllowed` is 0 (429, "Cannot
//! evict pod as it would violate the pod's disruption budget", `pkg/registry/core/pod/storage/
//! eviction.go`, `checkAndDecrement`), and `kubectl drain` retries it forever by default.
//!
//! An autoscaled workload is counted at its autoscaler's `minReplicas`: the fewest pods it
//! runs with, where a budget bites first.

use std::sync::Arc;

use super::{Budget, PodCount, ScaleLookup, ScopedWorkload};
use crate::model::amount::Amount;
use crate::model::{IntOrString, ObjectRef};

/// Why a budget never allows an eviction.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Blocker {
    /// `maxUnavailable` resolves to 0 pods.
    MaxUnavailableZero { written: String },
    /// `minAvailable` asks for every pod the budget covers, or more.
    MinAvailableAll {
        written: String,
        desired: i32,
        pods: i32,
    },
    /// A percentage or `maxUnavailable` over the pods of a DaemonSet, Job or CronJob, whose
    /// scale the disruption controller cannot find.
    NoScale { workload: ObjectRef },
    /// Neither `minAvailable` nor `maxUnavailable`: the expected count stays 0.
    NoLimit,
    /// A percentage or `maxUnavailable` over pods without a controller only: the disruption
    /// controller leaves them out of the expected count (`getExpectedScale`), which stays 0.
    Unmanaged {
        /// `maxUnavailable` or `minAvailable`, as written.
        field: &'static str,
        written: String,
        /// Boxed: the blocker travels in a `Result`, and this variant is the largest.
        workload: Box<ObjectRef>,
    },
}

/// What a budget allows at full strength.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Eviction {
    /// This many pods may be evicted at once.
    Allowed(i32),
    /// None, ever.
    Never(Blocker),
    /// The manifest does not tell (a DaemonSet's pods, a custom kind's replicas, a spec the
    /// API server rejects).
    Unknown,
}

/// A budget judged against the workloads of its scope.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct BudgetJudgement {
    /// The workloads whose pods it covers: shared by every budget with the same selector.
    pub(crate) selected: Arc<[ObjectRef]>,
    /// The pods it covers, at the fewest the workloads run with, when known.
    pub(crate) pods: Option<i32>,
    /// `desiredHealthy`, when known.
    pub(crate) desired_healthy: Option<i32>,
    pub(crate) eviction: Eviction,
    /// Some pod count is an autoscaler's `minReplicas`.
    pub(crate) autoscaled: bool,
}

impl BudgetJudgement {
    /// A budget that selects nothing the manifest shows.
    pub(crate) fn unknown() -> BudgetJudgement {
        BudgetJudgement {
            selected: Arc::from([]),
            pods: None,
            desired_healthy: None,
            eviction: Eviction::Unknown,
            autoscaled: false,
        }
    }
}

/// What the workloads one selector picks add up to, counted once for every budget with that
/// selector: judging a budget then costs the same whatever the number of its workloads.
#[derive(Debug)]
pub(super) struct Selection {
    selected: Arc<[ObjectRef]>,
    /// Every pod, with or without a controller, when each count is known.
    pods: Option<i32>,
    /// The expected count by the pods' controllers' scale (`getExpectedScale`), or the
    /// workload whose scale cannot be found.
    scaled: Result<Option<i32>, Blocker>,
    autoscaled: bool,
    /// The first workload without a controller, whose pods the expected count leaves out.
    unmanaged: Option<ObjectRef>,
}

impl Selection {
    /// The workloads a selector picks, each with the `(minReplicas, maxReplicas)` of the
    /// autoscaler that scales it, if any.
    pub(super) fn of(selected: &[(&ScopedWorkload, Option<(i32, i32)>)]) -> Selection {
        let mut autoscaled = false;
        let mut count_of =
            |workload: &ScopedWorkload, autoscaler: Option<(i32, i32)>| -> Option<i32> {
                if let Some((min, _)) = autoscaler {
                    autoscaled = true;
                    return Some(min.max(0));
                }
                match workload.pods {
                    PodCount::Replicas { replicas, .. } => Some(replicas.max(0)),
                    PodCount::One => Some(1),
                    PodCount::PerNode | PodCount::Unknown => None,
                }
            };
        let counts: Vec<Option<i32>> = selected.iter().map(|(w, a)| count_of(w, *a)).collect();
        let pods = counts
            .iter()
            .try_fold(0i32, |sum, count| Some(sum.saturating_add((*count)?)));
        let scaled = (|| {
            let mut expected = 0i32;
            for ((workload, _), count) in selected.iter().zip(&counts) {
                match workload.scale {
                    ScaleLookup::NoScale => {
                        return Err(Blocker::NoScale {
                            workload: workload.object.clone(),
                        });
                    }
                    ScaleLookup::Unmanaged => {}
                    ScaleLookup::Replicas | ScaleLookup::Custom => match count {
                        Some(count) => expected = expected.saturating_add(*count),
                        None => return Ok(None),
                    },
                }
            }
            Ok(Some(expected))
        })();
        Selection {
            selected: selected.iter().map(|(w, _)| w.object.clone()).collect(),
            pods,
            scaled,
            autoscaled,
            unmanaged: selected
                .iter()
                .find(|(w, _)| matches!(w.scale, ScaleLookup::Unmanaged))
                .map(|(w, _)| w.object.clone()),
        }
    }
}

/// Judges `budget` against the workloads its selector picks (`selection`). [`super::Scope`]
/// judges each of its budgets once.
pub(super) fn judge_budget(budget: &Budget, selection: &Selection) -> BudgetJudgement {
    let pods = selection.pods;
    let mut judgement = BudgetJudgement {
        selected: Arc::clone(&selection.selected),
        pods,
        desired_healthy: None,
        eviction: Eviction::Unknown,
        autoscaled: selection.autoscaled,
    };
    let Ok(spec) = &budget.spec else {
        return judgement;
    };
    if selection.selected.is_empty() {
        return judgement;
    }
    let scaled = || selection.scaled.clone();
    let written = |value: &IntOrString| Amount::read(value).map(Amount::text);
    let (expected, desired, limit) = match (&spec.min_available, &spec.max_unavailable) {
        (Some(_), Some(_)) => return judgement,
        (None, None) => {
            judgement.eviction = Eviction::Never(Blocker::NoLimit);
            return judgement;
        }
        (None, Some(max_unavailable)) => {
            let Some(amount) = Amount::read(max_unavailable) else {
                return judgement;
            };
            let expected = match scaled() {
                Err(blocker) => {
                    judgement.eviction = Eviction::Never(blocker);
                    return judgement;
                }
                Ok(None) => return judgement,
                Ok(Some(expected)) => expected,
            };
            let unavailable = amount.scaled(i64::from(expected), true);
            let desired = (i64::from(expected) - unavailable).max(0);
            (
                expected,
                i32::try_from(desired).unwrap_or(i32::MAX),
                Blocker::MaxUnavailableZero {
                    written: written(max_unavailable).unwrap_or_default(),
                },
            )
        }
        (Some(min_available), None) => {
            let Some(amount) = Amount::read(min_available) else {
                return judgement;
            };
            let expected = match amount {
                // Every pod the budget selects, with or without a controller.
                Amount::Count(_) => match pods {
                    Some(pods) => pods,
                    None => return judgement,
                },
                Amount::Percent(_) => match scaled() {
                    Err(blocker) => {
                        judgement.eviction = Eviction::Never(blocker);
                        return judgement;
                    }
                    Ok(None) => return judgement,
                    Ok(Some(expected)) => expected,
                },
            };
            let desired = amount.scaled(i64::from(expected), true);
            let desired = i32::try_from(desired.clamp(0, i64::from(i32::MAX))).unwrap_or(0);
            (
                expected,
                desired,
                Blocker::MinAvailableAll {
                    written: written(min_available).unwrap_or_default(),
                    desired,
                    pods: pods.unwrap_or(expected),
                },
            )
        }
    };
    judgement.desired_healthy = Some(desired);
    let Some(healthy) = pods else {
        return judgement;
    };
    if healthy == 0 {
        // No pods to evict.
        judgement.eviction = Eviction::Allowed(0);
        return judgement;
    }
    let allowed = healthy.saturating_sub(desired);
    // Pods but an expected count of 0: every one is unmanaged.
    let unmanaged = (expected <= 0)
        .then_some(selection.unmanaged.as_ref())
        .flatten();
    judgement.eviction = if let Some(workload) = unmanaged {
        let (field, value) = match (&spec.min_available, &spec.max_unavailable) {
            (Some(min), _) => ("minAvailable", min),
            (None, Some(max)) => ("maxUnavailable", max),
            (None, None) => unreachable!("a limit is set here"),
        };
        Eviction::Never(Blocker::Unmanaged {
            field,
            written: written(value).unwrap_or_default(),
            workload: Box::new(workload.clone()),
        })
    } else if expected <= 0 || allowed <= 0 {
        Eviction::Never(limit)
    } else {
        Eviction::Allowed(allowed)
    };
    judgement
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::custom::PodTemplateKinds;
    use crate::model::scope::Scope;
    use crate::source::SourceFile;

    fn judged(workload: &str, budget_spec: &str) -> BudgetJudgement {
        let text = format!(
            "{workload}\n---\napiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {{name: b}}\nspec: {budget_spec}\n"
        );
        let scope = Scope::read(
            &SourceFile::new("b.yaml".to_owned(), text),
            &PodTemplateKinds::default(),
        );
        BudgetJudgement::clone(scope.judgement(&scope.budgets()[0]))
    }

    const WEB: &str = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n  replicas: 3\n  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n    spec: {containers: [{name: web, image: nginx}]}";
    const AGENT: &str = "apiVersion: apps/v1\nkind: DaemonSet\nmetadata: {name: agent}\nspec:\n  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n    spec: {containers: [{name: agent, image: agent}]}";

    #[test]
    fn allowed_evictions_follow_the_disruption_controller() {
        let j = judged(
            WEB,
            "{minAvailable: 2, selector: {matchLabels: {app: web}}}",
        );
        assert_eq!(j.eviction, Eviction::Allowed(1));
        let j = judged(
            WEB,
            "{maxUnavailable: 34%, selector: {matchLabels: {app: web}}}",
        );
        // 34% of 3 rounds up to 2.
        assert_eq!(j.eviction, Eviction::Allowed(2));
        let j = judged(
            WEB,
            "{minAvailable: 3, selector: {matchLabels: {app: web}}}",
        );
        assert!(matches!(
            j.eviction,
            Eviction::Never(Blocker::MinAvailableAll {
                desired: 3,
                pods: 3,
                ..
            })
        ));
        let j = judged(
            WEB,
            "{maxUnavailable: 0, selector: {matchLabels: {app: web}}}",
        );
        assert!(matches!(
            j.eviction,
            Eviction::Never(Blocker::MaxUnavailableZero { .. })
        ));
        let j = judged(WEB, "{selector: {matchLabels: {app: web}}}");
        assert_eq!(j.eviction, Eviction::Never(Blocker::NoLimit));
    }

    #[test]
    fn a_daemonset_has_no_scale() {
        let j = judged(
            AGENT,
            "{maxUnavailable: 1, selector: {matchLabels: {app: web}}}",
        );
        assert!(matches!(
            j.eviction,
            Eviction::Never(Blocker::NoScale { .. })
        ));
        // An integer minAvailable counts pods, which a DaemonSet has one per node of.
        let j = judged(
            AGENT,
            "{minAvailable: 1, selector: {matchLabels: {app: web}}}",
        );
        assert_eq!(j.eviction, Eviction::Unknown);
    }
}
