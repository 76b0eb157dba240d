//! What the platforms that take nodes away give a pod: the notice before the node is gone, the
//! grace period they honour, how long a disruption budget may hold up their drain. One table,
//! read by the rules, `explain` and the generated `docs/platforms.md`; every number carries
//! the source it was read from and the date it was read.
//!
//! A platform's cut is the kubelet's own kill with a shorter grace period: on a node shutdown
//! the kubelet kills each pod with the shutdown's grace period, or the pod's own when that is
//! shorter (kubernetes/kubernetes `pkg/kubelet/nodeshutdown/nodeshutdown_manager_linux.go`,
//! `killPods`: `gracePeriodOverride`), and a drain deletes or evicts the pod with the grace
//! period its tool allows. So the cut plan is `Lifecycle::shutdown_within`.

use crate::model::core::PodSpec;
use crate::model::path::FieldPath;

/// When the numbers below were read.
pub(crate) const READ_ON: &str = "2026-12-08";

/// What one number of a platform caps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Caps {
    /// The time from the notice to the pod's end: the grace period the pod gets, whatever it
    /// asks for.
    Notice,
    /// The longest grace period the platform waits for; a longer one is cut to it.
    GraceHonoured,
    /// How long the platform's drain waits for evictions a disruption budget refuses.
    DrainTimeout,
}

impl Caps {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Caps::Notice => "notice",
            Caps::GraceHonoured => "grace honoured",
            Caps::DrainTimeout => "drain timeout",
        }
    }
}

/// Where a number or a label was read.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Source {
    pub(crate) title: &'static str,
    pub(crate) url: &'static str,
    /// What the page says, in short.
    pub(crate) says: &'static str,
}

/// One number of a platform event.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Limit {
    pub(crate) caps: Caps,
    pub(crate) seconds: i64,
    /// What the platform does when the time is up.
    pub(crate) then: &'static str,
    pub(crate) sources: &'static [Source],
}

/// A node label that puts a pod on this platform's nodes when the pod selects it
/// (`nodeSelector`, node affinity) or tolerates its taint.
#[derive(Clone, Copy, Debug)]
pub(crate) struct NodeLabel {
    pub(crate) key: &'static str,
    pub(crate) value: &'static str,
    pub(crate) source: Source,
}

/// A named platform event that stops pods.
#[derive(Clone, Copy, Debug)]
pub struct Platform {
    /// The name `--platform` and `platforms:` take.
    pub(crate) name: &'static str,
    pub(crate) title: &'static str,
    /// Who stops the pod, for findings: "GKE's graceful node shutdown".
    pub(crate) stopped_by: &'static str,
    pub(crate) limits: &'static [Limit],
    /// The labels that say a pod runs there, with no configuration.
    pub(crate) labels: &'static [NodeLabel],
}

impl Platform {
    pub(crate) fn limit(&self, caps: Caps) -> Option<&'static Limit> {
        self.limits.iter().find(|l| l.caps == caps)
    }
}

const GKE_SPOT_DOC: Source = Source {
    title: "GKE documentation, \"Spot VMs\" (Termination and graceful shutdown of Spot VMs)",
    url: "https://cloud.google.com/kubernetes-engine/docs/concepts/spot-vms",
    says: "30 s after the preemption notice the VM is gone; by default the first 15 s are for ordinary Pods, the next 15 s for system-critical Pods",
};

const GKE_PREEMPTIBLE_DOC: Source = Source {
    title: "GKE documentation, \"Preemptible VMs\" (Termination and graceful shutdown of preemptible VMs)",
    url: "https://cloud.google.com/kubernetes-engine/docs/how-to/preemptible-vms",
    says: "the VM terminates 30 s after the notice; the kubelet gives non-system Pods 15 s, and a terminationGracePeriodSeconds above 15 s has no effect",
};

const GKE_EXTENDED_DURATION_DOC: Source = Source {
    title: "GKE documentation, \"Extend the run time of Autopilot Pods\" (About GKE-initiated Pod eviction)",
    url: "https://cloud.google.com/kubernetes-engine/docs/how-to/extended-duration-pods",
    says: "for automatic node upgrades the grace period can be up to one hour; for scale-down events up to 10 minutes",
};

const EC2_SPOT_DOC: Source = Source {
    title: "Amazon EC2 User Guide, \"Spot Instance interruption notices\"",
    url: "https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/spot-instance-termination-notices.html",
    says: "the interruption notice is issued two minutes before Amazon EC2 stops or terminates the Spot Instance",
};

const EKS_UPDATE_DOC: Source = Source {
    title: "Amazon EKS User Guide, \"Managed node update behavior\"",
    url: "https://docs.aws.amazon.com/eks/latest/userguide/managed-node-update-behavior.html",
    says: "if pods do not drain from a node (for example, a pod disruption budget is too restrictive) for 15 minutes, the update fails, or, when forced, the pods that could not be drained are deleted",
};

const AZURE_SCHEDULED_EVENTS_DOC: Source = Source {
    title: "Azure documentation, \"Scheduled Events for Linux VMs\" (minimum notice per event type), as in MicrosoftDocs/azure-docs `articles/virtual-machines/linux/scheduled-events.md`",
    url: "https://learn.microsoft.com/azure/virtual-machines/linux/scheduled-events",
    says: "a Preempt event (Spot eviction) is scheduled at least 30 seconds in the future",
};

const AKS_DRAIN_TIMEOUT_DOC: Source = Source {
    title: "Azure API reference, AgentPoolUpgradeSettings.drainTimeoutInMinutes",
    url: "https://learn.microsoft.com/dotnet/api/microsoft.azure.management.containerservice.models.agentpoolupgradesettings.draintimeoutinminutes",
    says: "the time to wait on eviction of pods and graceful termination per node, honouring pod disruption budgets; if exceeded, the upgrade fails; default 30 minutes",
};

const AUTOSCALER_PROFILE_DOC: Source = Source {
    title: "Azure API reference, ManagedClusterPropertiesAutoScalerProfile `max-graceful-termination-sec`",
    url: "https://learn.microsoft.com/javascript/api/@azure-rest/arm-containerservice/managedclusterpropertiesautoscalerprofile",
    says: "the maximum number of seconds the cluster autoscaler waits for pod termination when scaling down a node; the default is 600",
};

const AUTOSCALER_ISSUE: Source = Source {
    title: "kubernetes/kubernetes#94435, \"terminationGracePeriodSeconds greater than 10 minutes not working as expected\"",
    url: "https://github.com/kubernetes/kubernetes/issues/94435",
    says: "pods with a 3-hour grace period were killed 10 minutes after SIGTERM when the cluster autoscaler removed their nodes",
};

const KARPENTER_SPOT_EXAMPLE: Source = Source {
    title: "aws/karpenter-provider-aws `examples/v1beta1/spot.yaml`",
    url: "https://github.com/aws/karpenter-provider-aws/blob/main/examples/v1beta1/spot.yaml",
    says: "a NodePool for Spot capacity requires `karpenter.sh/capacity-type` In `spot`",
};

const AKS_SPOT_LABEL_DOC: Source = Source {
    title: "AKS documentation, \"Add an Azure Spot node pool\"; node auto-drain text in MicrosoftDocs/azure-docs",
    url: "https://learn.microsoft.com/azure/aks/spot-node-pool",
    says: "Spot node pools' nodes carry `kubernetes.azure.com/scalesetpriority: spot` (label and NoSchedule taint)",
};

const GKE_SPOT_LABEL_DOC: Source = Source {
    title: "GKE documentation, \"Spot VMs\" (nodeSelector `cloud.google.com/gke-spot: \"true\"`)",
    url: "https://cloud.google.com/kubernetes-engine/docs/how-to/spot-vms",
    says: "GKE labels Spot nodes `cloud.google.com/gke-spot=true`; Pods select them with a nodeSelector or node affinity on that label",
};

const GKE_PREEMPTIBLE_LABEL_DOC: Source = Source {
    title: "GKE documentation, \"Preemptible VMs\" (nodeSelector `cloud.google.com/gke-preemptible: \"true\"`)",
    url: "https://cloud.google.com/kubernetes-engine/docs/how-to/preemptible-vms",
    says: "GKE labels preemptible nodes `cloud.google.com/gke-preemptible=true`",
};

const EKS_SPOT_LABEL_DOC: Source = Source {
    title: "Amazon EKS User Guide, \"Managed node groups\" (capacity types)",
    url: "https://docs.aws.amazon.com/eks/latest/userguide/managed-node-groups.html",
    says: "managed nodes carry `eks.amazonaws.com/capacityType` with `SPOT` or `ON_DEMAND`",
};

/// Every platform event podcycle knows, in the order the docs list them.
pub(crate) static PLATFORMS: &[Platform] = &[
    Platform {
        name: "gke-spot",
        title: "GKE Spot VMs: preemption",
        stopped_by: "GKE's graceful node shutdown on a Spot preemption",
        limits: &[Limit {
            caps: Caps::Notice,
            seconds: 15,
            then: "the kubelet kills the pod with a grace period of 15 s; the VM is gone 30 s after the notice",
            sources: &[GKE_SPOT_DOC],
        }],
        labels: &[NodeLabel {
            key: "cloud.google.com/gke-spot",
            value: "true",
            source: GKE_SPOT_LABEL_DOC,
        }],
    },
    Platform {
        name: "gke-preemptible",
        title: "GKE preemptible VMs: preemption",
        stopped_by: "GKE's graceful node shutdown on a preemption",
        limits: &[Limit {
            caps: Caps::Notice,
            seconds: 15,
            then: "the kubelet kills the pod with a grace period of 15 s; the VM is gone 30 s after the notice",
            sources: &[GKE_PREEMPTIBLE_DOC],
        }],
        labels: &[NodeLabel {
            key: "cloud.google.com/gke-preemptible",
            value: "true",
            source: GKE_PREEMPTIBLE_LABEL_DOC,
        }],
    },
    Platform {
        name: "gke-upgrade",
        title: "GKE automatic node upgrade",
        stopped_by: "a GKE node upgrade",
        limits: &[Limit {
            caps: Caps::GraceHonoured,
            seconds: 3600,
            then: "the pod is evicted when the hour is up",
            sources: &[GKE_EXTENDED_DURATION_DOC],
        }],
        labels: &[],
    },
    Platform {
        name: "gke-scale-down",
        title: "GKE cluster autoscaler scale-down",
        stopped_by: "GKE's autoscaler scale-down",
        limits: &[Limit {
            caps: Caps::GraceHonoured,
            seconds: 600,
            then: "the pod is killed when the 10 minutes are up",
            sources: &[GKE_EXTENDED_DURATION_DOC],
        }],
        labels: &[],
    },
    Platform {
        name: "aws-spot",
        title: "Amazon EC2 Spot interruption",
        stopped_by: "the EC2 Spot interruption",
        limits: &[Limit {
            caps: Caps::Notice,
            seconds: 120,
            then: "EC2 stops or terminates the instance two minutes after the notice, whatever is still running",
            sources: &[EC2_SPOT_DOC],
        }],
        labels: &[
            NodeLabel {
                key: "eks.amazonaws.com/capacityType",
                value: "SPOT",
                source: EKS_SPOT_LABEL_DOC,
            },
            NodeLabel {
                key: "karpenter.sh/capacity-type",
                value: "spot",
                source: KARPENTER_SPOT_EXAMPLE,
            },
        ],
    },
    Platform {
        name: "eks-node-update",
        title: "Amazon EKS managed node group update",
        stopped_by: "an EKS managed node group update",
        limits: &[Limit {
            caps: Caps::DrainTimeout,
            seconds: 900,
            then: "the update fails; a forced update deletes the pods that could not be drained",
            sources: &[EKS_UPDATE_DOC],
        }],
        labels: &[],
    },
    Platform {
        name: "azure-spot",
        title: "Azure Spot VM eviction",
        stopped_by: "the Azure Spot eviction",
        limits: &[Limit {
            caps: Caps::Notice,
            seconds: 30,
            then: "Azure evicts the VM when the Preempt event's notice is over",
            sources: &[AZURE_SCHEDULED_EVENTS_DOC],
        }],
        labels: &[NodeLabel {
            key: "kubernetes.azure.com/scalesetpriority",
            value: "spot",
            source: AKS_SPOT_LABEL_DOC,
        }],
    },
    Platform {
        name: "aks-upgrade",
        title: "AKS node pool upgrade",
        stopped_by: "an AKS node pool upgrade",
        limits: &[Limit {
            caps: Caps::DrainTimeout,
            seconds: 1800,
            then: "the upgrade fails (`upgradeSettings.drainTimeoutInMinutes`, default 30)",
            sources: &[AKS_DRAIN_TIMEOUT_DOC],
        }],
        labels: &[],
    },
    Platform {
        name: "cluster-autoscaler",
        title: "cluster-autoscaler scale-down (any cloud)",
        stopped_by: "the cluster autoscaler's scale-down",
        limits: &[Limit {
            caps: Caps::GraceHonoured,
            seconds: 600,
            then: "the autoscaler deletes the node when `--max-graceful-termination-sec` (default 600) is up",
            sources: &[AUTOSCALER_PROFILE_DOC, AUTOSCALER_ISSUE],
        }],
        labels: &[],
    },
];

/// The platform of a name, as `--platform` and `platforms:` give it.
pub fn platform(name: &str) -> Option<&'static Platform> {
    PLATFORMS.iter().find(|p| p.name == name)
}

/// The names, for help and for "did you mean".
pub(crate) fn names() -> impl Iterator<Item = &'static str> {
    PLATFORMS.iter().map(|p| p.name)
}

/// A platform the pod's spec puts it on, and the field that says so.
#[derive(Clone, Debug)]
pub(crate) struct Placement {
    pub(crate) platform: &'static Platform,
    pub(crate) label: &'static NodeLabel,
    /// `nodeSelector`, the node affinity expression or the toleration, from the pod spec.
    pub(crate) path: FieldPath,
    /// How: "selects", "prefers" or "tolerates".
    pub(crate) how: &'static str,
}

/// The platforms whose Spot or preemptible nodes the pod selects, prefers or tolerates: a
/// `nodeSelector` with the label's value, a node affinity expression `In` with it (required or
/// preferred), or a toleration of the label's key. One placement per platform, the first field
/// that says it; a toleration without a key (tolerating everything) says nothing of where the
/// pod runs.
pub(crate) fn placements(spec: &PodSpec, spec_path: &FieldPath) -> Vec<Placement> {
    let mut found: Vec<Placement> = Vec::new();
    let mut add = |label: &'static NodeLabel, platform: &'static Platform, path, how| {
        if !found.iter().any(|p| p.platform.name == platform.name) {
            found.push(Placement {
                platform,
                label,
                path,
                how,
            });
        }
    };
    let labels = || {
        PLATFORMS
            .iter()
            .flat_map(|p| p.labels.iter().map(move |l| (p, l)))
    };
    if let Some(selector) = &spec.node_selector {
        for (platform, label) in labels() {
            if selector.get(label.key).map(String::as_str) == Some(label.value) {
                add(
                    label,
                    platform,
                    spec_path.key("nodeSelector").key(label.key),
                    "selects",
                );
            }
        }
    }
    let node_affinity = spec
        .affinity
        .as_ref()
        .and_then(|a| a.node_affinity.as_ref());
    if let Some(affinity) = node_affinity {
        let affinity_path = spec_path.key("affinity").key("nodeAffinity");
        let required = affinity
            .required_during_scheduling_ignored_during_execution
            .iter()
            .flat_map(|s| s.node_selector_terms.iter().enumerate())
            .map(|(i, term)| {
                (
                    term,
                    affinity_path
                        .key("requiredDuringSchedulingIgnoredDuringExecution")
                        .key("nodeSelectorTerms")
                        .index(i),
                    "selects",
                )
            });
        let preferred = affinity
            .preferred_during_scheduling_ignored_during_execution
            .iter()
            .flatten()
            .enumerate()
            .map(|(i, term)| {
                (
                    &term.preference,
                    affinity_path
                        .key("preferredDuringSchedulingIgnoredDuringExecution")
                        .index(i)
                        .key("preference"),
                    "prefers",
                )
            });
        for (term, term_path, how) in required.chain(preferred) {
            for (j, expression) in term.match_expressions.iter().flatten().enumerate() {
                if expression.operator != "In" {
                    continue;
                }
                for (platform, label) in labels() {
                    let values = expression.values.iter().flatten();
                    if expression.key == label.key && values.into_iter().any(|v| v == label.value) {
                        add(
                            label,
                            platform,
                            term_path.key("matchExpressions").index(j),
                            how,
                        );
                    }
                }
            }
        }
    }
    for (i, toleration) in spec.tolerations.iter().flatten().enumerate() {
        let Some(key) = toleration.key.as_deref() else {
            continue;
        };
        for (platform, label) in labels() {
            let value_fits = toleration.operator.as_deref() == Some("Exists")
                || toleration.value.as_deref().is_none_or(|v| v == label.value);
            if key == label.key && value_fits {
                add(
                    label,
                    platform,
                    spec_path.key("tolerations").index(i),
                    "tolerates",
                );
            }
        }
    }
    found
}

/// A platform in effect for a pod, and why: the spec's placement, or (without one) the
/// configuration or `--platform`.
#[derive(Clone, Debug)]
pub(crate) struct InEffect {
    pub(crate) platform: &'static Platform,
    pub(crate) placement: Option<Placement>,
}

/// The platforms a pod is judged against: those its spec places it on, then those configured
/// that the spec does not already name.
pub(crate) fn in_effect(
    spec: &PodSpec,
    spec_path: &FieldPath,
    configured: &[&'static Platform],
) -> Vec<InEffect> {
    let mut all: Vec<InEffect> = placements(spec, spec_path)
        .into_iter()
        .map(|placement| InEffect {
            platform: placement.platform,
            placement: Some(placement),
        })
        .collect();
    for &platform in configured {
        if !all.iter().any(|e| e.platform.name == platform.name) {
            all.push(InEffect {
                platform,
                placement: None,
            });
        }
    }
    all
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(json: &str) -> PodSpec {
        serde_json::from_str(json).unwrap()
    }

    fn names_of(json: &str) -> Vec<(&'static str, &'static str)> {
        placements(&spec(json), &FieldPath::default())
            .iter()
            .map(|p| (p.platform.name, p.how))
            .collect()
    }

    #[test]
    fn every_number_carries_a_source() {
        for platform in PLATFORMS {
            for limit in platform.limits {
                assert!(limit.seconds > 0, "{}", platform.name);
                assert!(!limit.sources.is_empty(), "{}", platform.name);
                for source in limit.sources {
                    assert!(source.url.starts_with("https://"), "{}", platform.name);
                }
            }
        }
    }

    #[test]
    fn a_spot_node_selector_puts_the_pod_on_the_platform() {
        assert_eq!(
            names_of(
                r#"{"containers": [], "nodeSelector": {"cloud.google.com/gke-spot": "true"}}"#
            ),
            [("gke-spot", "selects")]
        );
        assert!(
            names_of(
                r#"{"containers": [], "nodeSelector": {"cloud.google.com/gke-spot": "false"}}"#
            )
            .is_empty()
        );
    }

    #[test]
    fn affinity_in_and_tolerations_count_but_not_in_does_not() {
        let required = r#"{"containers": [], "affinity": {"nodeAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
              {"matchExpressions": [{"key": "karpenter.sh/capacity-type", "operator": "In", "values": ["spot", "on-demand"]}]}]}}}}"#;
        assert_eq!(names_of(required), [("aws-spot", "selects")]);
        let not_in = required.replace("\"In\"", "\"NotIn\"");
        assert!(names_of(&not_in).is_empty());
        let tolerates = r#"{"containers": [], "tolerations": [
            {"operator": "Exists"},
            {"key": "kubernetes.azure.com/scalesetpriority", "operator": "Equal", "value": "spot", "effect": "NoSchedule"}]}"#;
        assert_eq!(names_of(tolerates), [("azure-spot", "tolerates")]);
    }
}
