//! Kubernetes versions and the feature gates whose stage changes what a manifest means. Every
//! version number podcycle knows is written once, here.
//!
//! Stages come from kubernetes/kubernetes `pkg/features/kube_features.go`
//! (`defaultVersionedKubernetesFeatureGates`) and the feature-gate reference pages of
//! kubernetes/website. A gate in alpha is off by default; beta and GA gates are on.

use std::fmt;
use std::str::FromStr;

/// A Kubernetes minor version (`1.33`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct KubeVersion {
    pub minor: u16,
}

impl KubeVersion {
    pub const fn new(minor: u16) -> KubeVersion {
        KubeVersion { minor }
    }
}

/// The newest version whose feature stages podcycle has read in the Kubernetes source
/// (kubernetes/kubernetes v1.37.2 `pkg/features/kube_features.go`, the release the oracle in
/// `oracle/` runs); the default of `--kube-version`.
pub const NEWEST_MODELLED: KubeVersion = KubeVersion::new(37);
/// The oldest version podcycle models.
pub(crate) const OLDEST_SUPPORTED: KubeVersion = KubeVersion::new(23);
/// The newest version podcycle accepts: the API types it decodes with are this version's.
pub(crate) const NEWEST_ACCEPTED: KubeVersion = KubeVersion::new(37);

impl fmt::Display for KubeVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "1.{}", self.minor)
    }
}

/// A Kubernetes version podcycle does not take.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BadKubeVersion {
    #[error("invalid Kubernetes version `{0}`; write it as 1.MINOR, for example 1.33")]
    Invalid(String),
    #[error(
        "Kubernetes {0} is not supported; podcycle models {OLDEST_SUPPORTED} to {NEWEST_ACCEPTED}"
    )]
    Unsupported(KubeVersion),
}

impl FromStr for KubeVersion {
    type Err = BadKubeVersion;

    /// Accepts `1.33`, `v1.33` and `1.33.2`.
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let trimmed = text.trim().trim_start_matches('v');
        let mut parts = trimmed.split('.');
        let (Some("1"), Some(minor)) = (parts.next(), parts.next()) else {
            return Err(BadKubeVersion::Invalid(text.to_owned()));
        };
        let patch_ok =
            parts.next().is_none_or(|p| p.parse::<u32>().is_ok()) && parts.next().is_none();
        let Ok(minor) = minor.parse::<u16>() else {
            return Err(BadKubeVersion::Invalid(text.to_owned()));
        };
        if !patch_ok {
            return Err(BadKubeVersion::Invalid(text.to_owned()));
        }
        let version = KubeVersion::new(minor);
        if version < OLDEST_SUPPORTED || version > NEWEST_ACCEPTED {
            return Err(BadKubeVersion::Unsupported(version));
        }
        Ok(version)
    }
}

/// The first version that no longer serves `batch/v1beta1` CronJobs (kubernetes/website
/// deprecation-guide.md, "v1.25").
pub(crate) const BATCH_V1BETA1_CRONJOB_REMOVED: KubeVersion = KubeVersion::new(25);

/// A feature gate's stage in one version.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Stage {
    /// Not in this version at all.
    Absent,
    /// Alpha: present but off by default.
    Alpha,
    /// Beta: on by default.
    Beta,
    /// Generally available.
    Stable,
}

/// What the API server does with a field whose gate is off.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GateOff {
    /// Silently drops the field on create (`dropDisabledFields` in `pkg/api/pod/util.go`).
    Dropped,
    /// Rejects the value in validation.
    Rejected,
}

/// A feature gate and the versions its stages began.
#[derive(Debug, PartialEq, Eq)]
pub struct Feature {
    pub gate: &'static str,
    /// What the feature allows, for messages: "native sidecars (`restartPolicy: Always` on an
    /// init container)".
    pub description: &'static str,
    pub alpha: Option<KubeVersion>,
    pub beta: Option<KubeVersion>,
    pub stable: Option<KubeVersion>,
    pub when_off: GateOff,
}

impl Feature {
    pub(crate) fn stage(&self, version: KubeVersion) -> Stage {
        let reached = |since: Option<KubeVersion>| since.is_some_and(|since| version >= since);
        if reached(self.stable) {
            Stage::Stable
        } else if reached(self.beta) {
            Stage::Beta
        } else if reached(self.alpha) {
            Stage::Alpha
        } else {
            Stage::Absent
        }
    }

    /// On in a cluster of this version with default gates.
    pub(crate) fn enabled(&self, version: KubeVersion) -> bool {
        matches!(self.stage(version), Stage::Beta | Stage::Stable)
    }

    /// The first version where the feature is on by default.
    pub(crate) fn enabled_since(&self) -> Option<KubeVersion> {
        self.beta.or(self.stable)
    }

    /// "on by default since 1.29 (beta)", for messages and docs.
    pub(crate) fn availability(&self) -> String {
        match (self.alpha, self.enabled_since()) {
            (Some(alpha), Some(on)) => format!("alpha in {alpha}, on by default since {on}"),
            (None, Some(on)) => format!("on by default since {on}"),
            (Some(alpha), None) => format!("alpha since {alpha} and off by default"),
            (None, None) => "not available".to_owned(),
        }
    }
}

const fn v(minor: u16) -> Option<KubeVersion> {
    Some(KubeVersion::new(minor))
}

/// Native sidecars: `restartPolicy: Always` on an init container (KEP-753).
pub(crate) static SIDECAR_CONTAINERS: Feature = Feature {
    gate: "SidecarContainers",
    description: "native sidecars (`restartPolicy: Always` on an init container)",
    alpha: v(28),
    beta: v(29),
    stable: v(33),
    when_off: GateOff::Dropped,
};

/// The `sleep` lifecycle handler (KEP-3960).
pub(crate) static POD_LIFECYCLE_SLEEP_ACTION: Feature = Feature {
    gate: "PodLifecycleSleepAction",
    description: "the `sleep` lifecycle action",
    alpha: v(29),
    beta: v(30),
    stable: v(34),
    when_off: GateOff::Dropped,
};

/// `sleep.seconds: 0` (KEP-4818).
pub(crate) static POD_LIFECYCLE_SLEEP_ACTION_ALLOW_ZERO: Feature = Feature {
    gate: "PodLifecycleSleepActionAllowZero",
    description: "a `sleep` action of zero seconds",
    alpha: v(32),
    beta: v(33),
    stable: v(34),
    when_off: GateOff::Rejected,
};

/// Container-level `restartPolicy` and `restartPolicyRules` (KEP-5307).
pub(crate) static CONTAINER_RESTART_RULES: Feature = Feature {
    gate: "ContainerRestartRules",
    description: "the ContainerRestartRules feature (container-level `restartPolicy` and `restartPolicyRules`)",
    alpha: v(34),
    beta: v(35),
    stable: None,
    when_off: GateOff::Dropped,
};

/// The `RestartAllContainers` action of container restart rules, and restart rules on native
/// sidecars.
pub(crate) static RESTART_ALL_CONTAINERS: Feature = Feature {
    gate: "RestartAllContainersOnContainerExits",
    description: "the `RestartAllContainers` restart rule action and restart rules on sidecars",
    alpha: v(35),
    beta: v(36),
    stable: None,
    when_off: GateOff::Rejected,
};

/// `lifecycle.stopSignal` (KEP-4960).
pub(crate) static CONTAINER_STOP_SIGNALS: Feature = Feature {
    gate: "ContainerStopSignals",
    description: "`lifecycle.stopSignal`",
    alpha: v(33),
    beta: None,
    stable: None,
    when_off: GateOff::Dropped,
};

/// Probe-level `terminationGracePeriodSeconds` (KEP-2238).
pub(crate) static PROBE_TERMINATION_GRACE_PERIOD: Feature = Feature {
    gate: "ProbeTerminationGracePeriod",
    description: "probe-level `terminationGracePeriodSeconds`",
    alpha: v(21),
    beta: v(25),
    stable: v(28),
    when_off: GateOff::Dropped,
};

/// gRPC probes.
pub(crate) static GRPC_CONTAINER_PROBE: Feature = Feature {
    gate: "GRPCContainerProbe",
    description: "gRPC probes",
    alpha: v(23),
    beta: v(24),
    stable: v(27),
    when_off: GateOff::Dropped,
};

/// StatefulSet `updateStrategy.rollingUpdate.maxUnavailable` (KEP-961). kube_features.go
/// v1.37.2: alpha from 1.24, beta but off by default in 1.35 and 1.36, on from 1.37. Off, the API
/// server drops the field (`dropStatefulSetDisabledFields` in
/// pkg/registry/apps/statefulset/strategy.go) and the controller replaces one pod at a time.
pub static MAX_UNAVAILABLE_STATEFULSET: Feature = Feature {
    gate: "MaxUnavailableStatefulSet",
    description: "StatefulSet `updateStrategy.rollingUpdate.maxUnavailable`",
    alpha: v(24),
    beta: v(37),
    stable: None,
    when_off: GateOff::Dropped,
};

/// A HorizontalPodAutoscaler with `minReplicas: 0`. kube_features.go v1.37.2: alpha from 1.16,
/// beta and on from 1.37; off, validation asks for at least 1
/// (`validationOptionsForHorizontalPodAutoscaler`, `MinReplicasLowerBound`).
pub static HPA_SCALE_TO_ZERO: Feature = Feature {
    gate: "HPAScaleToZero",
    description: "`minReplicas: 0` on a HorizontalPodAutoscaler",
    alpha: v(16),
    beta: v(37),
    stable: None,
    when_off: GateOff::Rejected,
};

#[cfg(test)]
mod tests {
    use super::*;

    fn version(text: &str) -> KubeVersion {
        text.parse().unwrap()
    }

    #[test]
    fn parses_versions_and_refuses_others() {
        assert_eq!(version("1.33"), KubeVersion::new(33));
        assert_eq!(version("v1.29"), KubeVersion::new(29));
        assert_eq!(version("1.30.4"), KubeVersion::new(30));
        for bad in ["2.1", "1", "1.x", "1.30.x", "1.22", "1.38", ""] {
            assert!(bad.parse::<KubeVersion>().is_err(), "{bad}");
        }
    }

    #[test]
    fn stages_follow_the_table() {
        assert_eq!(SIDECAR_CONTAINERS.stage(version("1.27")), Stage::Absent);
        assert_eq!(SIDECAR_CONTAINERS.stage(version("1.28")), Stage::Alpha);
        assert!(!SIDECAR_CONTAINERS.enabled(version("1.28")));
        assert!(SIDECAR_CONTAINERS.enabled(version("1.29")));
        assert_eq!(SIDECAR_CONTAINERS.stage(version("1.33")), Stage::Stable);
        assert!(!CONTAINER_STOP_SIGNALS.enabled(NEWEST_MODELLED));
        assert!(CONTAINER_RESTART_RULES.enabled(version("1.35")));
        // kube_features.go at v1.37.2: restart rules are still beta, stop signals still
        // alpha, RestartAllContainersOnContainerExits beta from 1.36.
        assert!(CONTAINER_RESTART_RULES.enabled(version("1.37")));
        assert!(!CONTAINER_STOP_SIGNALS.enabled(version("1.37")));
        assert!(!RESTART_ALL_CONTAINERS.enabled(version("1.35")));
        assert!(RESTART_ALL_CONTAINERS.enabled(version("1.36")));
        assert!(!CONTAINER_RESTART_RULES.enabled(version("1.34")));
        assert_eq!(
            SIDECAR_CONTAINERS.availability(),
            "alpha in 1.28, on by default since 1.29"
        );
    }
}
