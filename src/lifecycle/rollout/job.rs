//! A Job's attempts and a CronJob's runs (kubernetes/kubernetes `pkg/controller/job/`,
//! `pkg/controller/cronjob/`).
//!
//! - Defaults (`pkg/apis/batch/v1/defaults.go`, `SetDefaults_Job`): `completions` and
//!   `parallelism` 1 when neither is written, else `parallelism` 1; `backoffLimit` 6
//!   (2147483647 with `backoffLimitPerIndex`).
//! - `restartPolicy: Never`: a failed pod is replaced by a new one after the controller's
//!   back-off, 10 s doubling with every failure since the last success, at most 10 minutes,
//!   counted from the last failure (`job_controller.go`, `DefaultJobPodFailureBackOff`,
//!   `MaxJobPodFailureBackOff`; `backoff_utils.go`, `getRemainingTimeForFailuresCount`). The
//!   Job fails once more pods have failed than `backoffLimit` (`syncJob`:
//!   `failed > backoffLimit`): `backoffLimit + 1` attempts.
//! - `restartPolicy: OnFailure`: the kubelet restarts the container in the same pod: the first
//!   time at once, then after its own back-off, 10 s doubling to `MaxContainerBackOff`, 300 s by
//!   default (`pkg/kubelet/kuberuntime/kuberuntime_manager.go`, `doBackOff`: client-go's
//!   `flowcontrol.Backoff.IsInBackOffSince` is false while the container has no entry, and
//!   `Next` then creates it at `initialCrashLoopBackOff`, 10 s); the Job fails once the
//!   restarts reach `backoffLimit` (`pastBackoffLimitOnFailure`).
//! - `activeDeadlineSeconds` counts from the Job's start, before its first pod, and fails it
//!   with `DeadlineExceeded` whatever the back-off limit (`pastActiveDeadline`).
//! - A pod's work runs once its last container has started; each attempt takes at least that
//!   long. When the app containers have exited, the kubelet stops the native sidecars, last
//!   declared first, each after its preStop hook (`Lifecycle::completion`).
//! - A CronJob creates a Job per schedule time; a run missed by more than
//!   `startingDeadlineSeconds` is skipped (`cronjob_controllerv2.go`, `syncCronJob`);
//!   `concurrencyPolicy` `Forbid` skips a run while one is active, `Replace` deletes the active
//!   Jobs first.

use podcycle_k8s::k8s_openapi::api::batch::v1::{CronJobSpec, JobSpec};

use super::PodTimes;
use crate::lifecycle::time::{Bounds, seconds};
use crate::lifecycle::{Lifecycle, RestartPolicy};

/// The controller's first back-off after a failed pod, and its cap (`job_controller.go`).
pub(crate) const JOB_BACKOFF_SECONDS: f64 = 10.0;
pub(crate) const JOB_BACKOFF_CAP_SECONDS: f64 = 600.0;
/// The kubelet's first back-off before restarting a container (its second restart: the first is
/// immediate), and its default cap (`pkg/kubelet/kubelet.go`, `initialCrashLoopBackOff`;
/// `MaxContainerBackOff`).
pub(crate) const KUBELET_BACKOFF_SECONDS: f64 = 10.0;
pub(crate) const KUBELET_BACKOFF_CAP_SECONDS: f64 = 300.0;
/// Attempts listed one by one; the rest are counted.
const LISTED_ATTEMPTS: i64 = 10;

/// Who retries a failed attempt.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum JobRestarts {
    /// `restartPolicy: Never`: the Job controller creates a new pod.
    Never,
    /// `restartPolicy: OnFailure`: the kubelet restarts the container in its pod.
    OnFailure,
}

/// The wait before retry `n` (1 for the first retry): 10 s doubling, at most `cap`.
pub(crate) fn backoff_before(n: i64, first: f64, cap: f64) -> f64 {
    if n < 1 {
        return 0.0;
    }
    let mut delay = first;
    for _ in 1..n {
        delay *= 2.0;
        if delay >= cap {
            return cap;
        }
    }
    delay.min(cap)
}

/// The wait before retry `n` (1 for the first) of a Job whose pods are retried as `restarts`
/// says: the controller waits before every new pod; the kubelet restarts a container the first
/// time at once, then waits 10 s, doubling (`doBackOff`).
pub fn retry_delay(restarts: JobRestarts, n: i64) -> f64 {
    match restarts {
        JobRestarts::Never => backoff_before(n, JOB_BACKOFF_SECONDS, JOB_BACKOFF_CAP_SECONDS),
        JobRestarts::OnFailure => {
            backoff_before(n - 1, KUBELET_BACKOFF_SECONDS, KUBELET_BACKOFF_CAP_SECONDS)
        }
    }
}

/// The waits before the first `n` retries, added up, in closed form past the cap.
fn backoff_sum(n: i64, first: f64, cap: f64) -> f64 {
    let mut total = 0.0;
    let mut delay = first;
    let mut k = 0;
    while k < n {
        if delay >= cap {
            #[allow(clippy::cast_precision_loss)]
            return total + (n - k) as f64 * cap;
        }
        total += delay;
        delay *= 2.0;
        k += 1;
    }
    total
}

/// One attempt of a Job's work, counted from the Job's start.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Attempt {
    /// 1 for the first.
    pub(crate) number: i64,
    /// The back-off before it (0 for the first).
    pub(crate) backoff: f64,
    /// When it starts, if every attempt before it failed as early as it can.
    pub(crate) start: f64,
}

/// A Job's plan.
#[derive(Clone, Debug)]
pub struct JobPlan {
    pub(crate) completions: Option<i32>,
    pub(crate) parallelism: i32,
    pub(crate) indexed: bool,
    pub(crate) backoff_limit: i32,
    pub(crate) backoff_limit_written: bool,
    pub(crate) backoff_limit_per_index: Option<i32>,
    pub(crate) restarts: JobRestarts,
    pub(crate) active_deadline: Option<i64>,
    pub(crate) pod_failure_policy: bool,
    pub(crate) suspend: bool,
    pub(crate) ttl_seconds_after_finished: Option<i32>,
    /// One attempt, at the least: from its pod's start until the last container starts.
    pub(crate) attempt: Bounds,
    /// The first attempts, each as early as it can start (`parallelism: 1` only: parallel
    /// pods fail and are replaced side by side).
    pub(crate) attempts: Vec<Attempt>,
    /// The retries after the first attempt before the Job fails: `backoffLimit`.
    pub(crate) retries: i64,
    /// The back-offs before all of those retries, added up.
    pub(crate) backoff_total: f64,
    /// From the Job's start until it fails when every attempt fails as early as it can
    /// (`parallelism: 1`).
    pub(crate) to_failed: Option<Bounds>,
    /// With `activeDeadlineSeconds` and `parallelism: 1`: how many attempts can start before
    /// the deadline.
    pub(crate) attempts_within_deadline: Option<i64>,
    /// From the moment the app containers exit until the pod is done: the sidecars' stop.
    pub(crate) completion: Bounds,
}

impl JobPlan {
    pub(crate) fn new(spec: &JobSpec, life: &Lifecycle<'_>, pod: &PodTimes) -> JobPlan {
        let completions = match (spec.completions, spec.parallelism) {
            (None, None) => Some(1),
            (completions, _) => completions,
        };
        let parallelism = spec.parallelism.unwrap_or(1);
        let per_index = spec.backoff_limit_per_index;
        let backoff_limit =
            spec.backoff_limit
                .unwrap_or(if per_index.is_some() { i32::MAX } else { 6 });
        let restarts = match life.restart_policy {
            RestartPolicy::OnFailure => JobRestarts::OnFailure,
            _ => JobRestarts::Never,
        };
        let attempt = pod.last_start;
        let retries = i64::from(backoff_limit.max(0));
        let (first, cap) = match restarts {
            JobRestarts::Never => (JOB_BACKOFF_SECONDS, JOB_BACKOFF_CAP_SECONDS),
            JobRestarts::OnFailure => (KUBELET_BACKOFF_SECONDS, KUBELET_BACKOFF_CAP_SECONDS),
        };
        // The kubelet's first restart does not wait: its back-off starts at the second.
        let immediate = match restarts {
            JobRestarts::Never => 0,
            JobRestarts::OnFailure => 1,
        };
        let waits = |n: i64| backoff_sum((n - immediate).max(0), first, cap);
        let backoff_total = waits(retries);
        let single = parallelism == 1 && per_index.is_none();
        // The start of attempt `n`, if every attempt before it failed as early as it can.
        // `Never`: each pod fails once its last container has started, and the controller's
        // back-off follows. `OnFailure`: the pod starts once; its containers fail once the
        // last has started, and each restart after that is the kubelet's (a restarted
        // container's own start is not counted: the pod keeps its started containers).
        let start_of = |n: i64| {
            #[allow(clippy::cast_precision_loss)]
            let earlier = (n - 1) as f64;
            match restarts {
                JobRestarts::Never => earlier * attempt.min + waits(n - 1),
                JobRestarts::OnFailure if n <= 1 => 0.0,
                JobRestarts::OnFailure => attempt.min + waits(n - 1),
            }
        };
        let total_attempts = retries + 1;
        let attempts = if single {
            (1..=total_attempts.min(LISTED_ATTEMPTS))
                .map(|number| Attempt {
                    number,
                    backoff: retry_delay(restarts, number - 1),
                    start: start_of(number),
                })
                .collect()
        } else {
            Vec::new()
        };
        let to_failed = single.then(|| {
            let last = match restarts {
                // The last pod fails after its last container has started.
                JobRestarts::Never => start_of(total_attempts) + attempt.min,
                // The Job fails when the restarts reach the limit: at the last restart, or
                // with `backoffLimit: 0` at the first (`pastBackoffLimitOnFailure`).
                JobRestarts::OnFailure => attempt.min + waits(total_attempts - 1),
            };
            Bounds::new(last, f64::INFINITY)
        });
        let active_deadline = spec.active_deadline_seconds;
        let attempts_within_deadline = active_deadline.filter(|_| single).map(|deadline| {
            let deadline = seconds(deadline);
            // The starts grow with `n`: the last attempt that starts before the deadline.
            let (mut low, mut high) = (0i64, total_attempts);
            while low < high {
                let mid = low + (high - low + 1) / 2;
                if start_of(mid) < deadline {
                    low = mid;
                } else {
                    high = mid - 1;
                }
            }
            low
        });
        JobPlan {
            completions,
            parallelism,
            indexed: spec.completion_mode.as_deref() == Some("Indexed"),
            backoff_limit,
            backoff_limit_written: spec.backoff_limit.is_some(),
            backoff_limit_per_index: per_index,
            restarts,
            active_deadline,
            pod_failure_policy: spec.pod_failure_policy.is_some(),
            suspend: spec.suspend == Some(true),
            ttl_seconds_after_finished: spec.ttl_seconds_after_finished,
            attempt,
            attempts,
            retries,
            backoff_total,
            to_failed,
            attempts_within_deadline,
            completion: pod.completion,
        }
    }
}

/// A CronJob's plan: its Job's, and when runs are skipped.
#[derive(Clone, Debug)]
pub struct CronJobPlan {
    pub(crate) schedule: String,
    pub(crate) time_zone: Option<String>,
    /// `Allow`, `Forbid` or `Replace`.
    pub(crate) concurrency_policy: String,
    pub(crate) starting_deadline_seconds: Option<i64>,
    pub(crate) suspend: bool,
    pub(crate) job: JobPlan,
}

impl CronJobPlan {
    pub(crate) fn new(spec: &CronJobSpec, life: &Lifecycle<'_>, pod: &PodTimes) -> CronJobPlan {
        let job = spec.job_template.spec.clone().unwrap_or_default();
        CronJobPlan {
            schedule: spec.schedule.clone(),
            time_zone: spec.time_zone.clone(),
            concurrency_policy: spec
                .concurrency_policy
                .clone()
                .unwrap_or_else(|| "Allow".to_owned()),
            starting_deadline_seconds: spec.starting_deadline_seconds,
            suspend: spec.suspend == Some(true),
            job: JobPlan::new(&job, life, pod),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_controllers_backoff_doubles_to_ten_minutes() {
        let delays: Vec<f64> = (1..=8)
            .map(|n| backoff_before(n, JOB_BACKOFF_SECONDS, JOB_BACKOFF_CAP_SECONDS))
            .collect();
        assert_eq!(delays, [10.0, 20.0, 40.0, 80.0, 160.0, 320.0, 600.0, 600.0]);
        // backoffLimit 6: 630 s of back-off in all.
        assert_eq!(
            backoff_sum(6, JOB_BACKOFF_SECONDS, JOB_BACKOFF_CAP_SECONDS),
            630.0
        );
        assert_eq!(
            backoff_sum(8, JOB_BACKOFF_SECONDS, JOB_BACKOFF_CAP_SECONDS),
            1830.0
        );
        assert_eq!(
            backoff_sum(
                i64::from(i32::MAX),
                JOB_BACKOFF_SECONDS,
                JOB_BACKOFF_CAP_SECONDS
            ),
            630.0 + 600.0 * f64::from(i32::MAX - 6)
        );
    }

    #[test]
    fn the_kubelet_restarts_at_once_then_backs_off() {
        let delays: Vec<f64> = (1..=9)
            .map(|n| retry_delay(JobRestarts::OnFailure, n))
            .collect();
        assert_eq!(
            delays,
            [0.0, 10.0, 20.0, 40.0, 80.0, 160.0, 300.0, 300.0, 300.0]
        );
    }
}
