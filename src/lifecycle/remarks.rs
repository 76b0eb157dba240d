//! What a timeline does that a reader would not expect — facts of the model, not findings:
//! `podcycle explain` prints them as notes beside the findings of `check`, which say what is
//! wrong. A remark never repeats a rule.

use super::{HandlerKind, Lifecycle, Role};
use crate::text::phrase_list;
use crate::versions::{POD_LIFECYCLE_SLEEP_ACTION, SIDECAR_CONTAINERS};

/// A remark, and the containers it concerns (indexes into [`Lifecycle::containers`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Remark {
    pub(crate) text: String,
    pub(crate) containers: Vec<usize>,
}

impl Lifecycle<'_> {
    /// The remarks on this pod's timeline, in a fixed order.
    pub(crate) fn remarks(&self, readiness_gates: bool) -> Vec<Remark> {
        let mut remarks = Vec::new();
        self.status_held_back(&mut remarks);
        let running = self
            .containers
            .iter()
            .filter(|c| c.role != Role::Init)
            .count();
        for (index, container) in self.containers.iter().enumerate() {
            if container.declared_sidecar && container.role == Role::Init {
                remarks.push(Remark {
                    text: format!(
                        "{} sets `restartPolicy: Always`, but Kubernetes {} has no native sidecars ({}): it runs as a classic init container",
                        container.quoted(),
                        self.kube,
                        SIDECAR_CONTAINERS.availability()
                    ),
                    containers: vec![index],
                });
            }
            if let Some(known) = container.known_sidecar.filter(|_| running > 1) {
                remarks.push(Remark {
                    text: format!(
                        "{} ({known}) is an app container to the kubelet: it starts after the containers declared before it and gets SIGTERM with the app, not after it",
                        container.quoted()
                    ),
                    containers: vec![index],
                });
            }
            if container.role == Role::Sidecar && container.pre_stop.is_some() {
                remarks.push(Remark {
                    text: format!(
                        "{}'s preStop runs at T0, at the same time as the app containers', not after them",
                        container.quoted()
                    ),
                    containers: vec![index],
                });
            }
            let dropped = container.role != Role::Init
                && !POD_LIFECYCLE_SLEEP_ACTION.enabled(self.kube)
                && container.container.lifecycle.as_ref().is_some_and(|l| {
                    [l.post_start.as_ref(), l.pre_stop.as_ref()]
                        .into_iter()
                        .flatten()
                        .any(|h| h.sleep.is_some())
                });
            if dropped {
                remarks.push(Remark {
                    text: format!(
                        "Kubernetes {} drops {}'s `sleep` hook ({} is {}): it does not wait",
                        self.kube,
                        container.quoted(),
                        POD_LIFECYCLE_SLEEP_ACTION.description,
                        POD_LIFECYCLE_SLEEP_ACTION.availability()
                    ),
                    containers: vec![index],
                });
            }
        }
        if readiness_gates {
            remarks.push(Remark {
                text: "the pod is Ready only once every readinessGates condition is set True by another controller".to_owned(),
                containers: Vec::new(),
            });
        }
        remarks
    }

    /// App containers are reported running only after the whole start loop: a postStart hook
    /// holds back the status, and so the probes, of every app container before it.
    fn status_held_back(&self, remarks: &mut Vec<Remark>) {
        let apps: Vec<usize> = (0..self.containers.len())
            .filter(|&i| self.containers[i].role == Role::App)
            .collect();
        let schedule = self.schedule();
        let Some(at) = apps.iter().rposition(|&i| {
            self.containers[i]
                .post_start
                .as_ref()
                .is_some_and(|h| h.handler != HandlerKind::None)
        }) else {
            return;
        };
        if at == 0 || schedule.containers[apps[at]].start.is_never() {
            return;
        }
        let earlier = &apps[..at];
        let hooked = apps[at];
        // The first three, and how many more: linear however many containers there are.
        let shown: Vec<String> = earlier
            .iter()
            .take(3)
            .map(|&i| self.containers[i].quoted())
            .collect();
        let listed = if earlier.len() <= 3 {
            phrase_list(shown)
        } else {
            format!("{} and {} more", shown.join(", "), earlier.len() - 3)
        };
        let mut involved = earlier.to_vec();
        involved.push(hooked);
        remarks.push(Remark {
            text: format!(
                "{listed} {} not reported running, not probed and not Ready until {}'s postStart has returned",
                if earlier.len() == 1 { "is" } else { "are" },
                self.containers[hooked].quoted()
            ),
            containers: involved,
        });
    }
}
