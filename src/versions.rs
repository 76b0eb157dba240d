//! Kubernetes versions and the feature gates whose stage changes what a manifest means. Every
//! version number podcycle knows is written once, here.
//!
//! Stages come from kubernetes/kubernetes `pkg/features/kube_features.go`
//! (`defaultVersionedKubernetesFeatureGates`), the feature-gate reference pages of
//! kubernetes/website and, where a patch release changed a default, the release's
//! `CHANGELOG/CHANGELOG-1.X.md`. Each gate is a list of changes (stage and default), oldest
//! first; a gate is on when the last change at or before the version says so.

use std::cmp::Ordering;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::str::FromStr;

/// A Kubernetes version: a minor (`1.33`) and perhaps a patch release (`1.33.2`).
///
/// Written without a patch, a version stands for the newest patch release of its minor that
/// podcycle models: its gates are those of that release. That is also what Kubernetes'
/// emulation of the minor (`kube-apiserver --emulated-version 1.35`) gives, since a patch
/// release that changes a default changes the versioned table too. So `1.35` orders after
/// every `1.35.Z`, and a version with a patch is judged by that patch's gates.
#[derive(Clone, Copy, Debug)]
pub struct KubeVersion {
    pub minor: u16,
    /// `None`: the newest patch release of the minor.
    pub(crate) patch: Option<u16>,
}

impl KubeVersion {
    /// The newest patch release of `1.minor`, as `--kube-version 1.minor` means it.
    pub const fn new(minor: u16) -> KubeVersion {
        KubeVersion { minor, patch: None }
    }

    /// One patch release, `1.minor.patch`.
    pub(crate) const fn release(minor: u16, patch: u16) -> KubeVersion {
        KubeVersion {
            minor,
            patch: Some(patch),
        }
    }

    /// The version as Helm's `--kube-version` takes it (`.Capabilities.KubeVersion`): a patch
    /// written is kept, a minor alone is its `.0` release, as it was before patches were read.
    pub(crate) fn semver(self) -> String {
        format!("v1.{}.{}", self.minor, self.patch.unwrap_or(0))
    }

    /// The version without its patch: what `--kube-version 1.minor` means.
    pub fn minor_only(self) -> KubeVersion {
        KubeVersion::new(self.minor)
    }

    /// Whether this version's gates are those of its minor written alone (the newest patch
    /// release), which is what a Kubernetes binary emulating the minor runs: false for a patch
    /// release whose default a later patch release changed (`1.35.0` to `1.35.3` for
    /// `MaxUnavailableStatefulSet`).
    pub fn gates_as_minor(self) -> bool {
        FEATURES
            .iter()
            .all(|feature| feature.enabled(self) == feature.enabled(self.minor_only()))
    }

    /// The order key: a minor alone is after all of its patch releases.
    fn key(self) -> (u16, u32) {
        (self.minor, self.patch.map_or(u32::MAX, u32::from))
    }
}

impl PartialEq for KubeVersion {
    fn eq(&self, other: &Self) -> bool {
        self.key() == other.key()
    }
}

impl Eq for KubeVersion {}

impl Hash for KubeVersion {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.key().hash(state);
    }
}

impl PartialOrd for KubeVersion {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for KubeVersion {
    fn cmp(&self, other: &Self) -> Ordering {
        self.key().cmp(&other.key())
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
        match self.patch {
            Some(patch) => write!(f, "1.{}.{patch}", self.minor),
            None => write!(f, "1.{}", self.minor),
        }
    }
}

/// A Kubernetes version podcycle does not take.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BadKubeVersion {
    #[error(
        "invalid Kubernetes version `{0}`; write it as 1.MINOR or 1.MINOR.PATCH, for example 1.33 or 1.33.2"
    )]
    Invalid(String),
    #[error(
        "Kubernetes {0} is not supported; podcycle models {OLDEST_SUPPORTED} to {NEWEST_ACCEPTED}"
    )]
    Unsupported(KubeVersion),
}

impl FromStr for KubeVersion {
    type Err = BadKubeVersion;

    /// Accepts `1.33`, `1.33.2`, and either with a leading `v` (`v1.33.2`, as `kubectl
    /// version` prints it). After a patch, a vendor's suffix (`v1.33.2-eks-4c5d`,
    /// `v1.33.2+k3s1`) is the same release and is ignored.
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let invalid = || BadKubeVersion::Invalid(text.to_owned());
        let trimmed = text.trim();
        let trimmed = trimmed.strip_prefix('v').unwrap_or(trimmed);
        let mut parts = trimmed.splitn(3, '.');
        let (Some("1"), Some(minor)) = (parts.next(), parts.next()) else {
            return Err(invalid());
        };
        let minor = number(minor).ok_or_else(invalid)?;
        let patch = match parts.next() {
            None => None,
            Some(rest) => {
                let digits = rest.split(['-', '+']).next().unwrap_or_default();
                // A suffix follows the patch, never stands in for it.
                if digits.len() < rest.len() && rest.len() == digits.len() + 1 {
                    return Err(invalid());
                }
                Some(number(digits).ok_or_else(invalid)?)
            }
        };
        let version = KubeVersion { minor, patch };
        if version.minor < OLDEST_SUPPORTED.minor || version.minor > NEWEST_ACCEPTED.minor {
            return Err(BadKubeVersion::Unsupported(version));
        }
        Ok(version)
    }
}

/// A decimal number of ASCII digits only (no sign, no spaces), as versions are written.
fn number(text: &str) -> Option<u16> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse().ok()
}

/// The first version that no longer serves `batch/v1beta1` CronJobs (kubernetes/website
/// deprecation-guide.md, "v1.25").
pub(crate) const BATCH_V1BETA1_CRONJOB_REMOVED: KubeVersion = KubeVersion::release(25, 0);

/// Versions of the kinds podcycle reads that Kubernetes stopped serving, with the first
/// version that no longer serves them (kubernetes/website
/// `content/en/docs/reference/using-api/deprecation-guide.md`, sections "v1.25" and "v1.26").
const REMOVED: [(&str, &str, KubeVersion); 4] = [
    ("batch/v1beta1", "CronJob", BATCH_V1BETA1_CRONJOB_REMOVED),
    (
        "policy/v1beta1",
        "PodDisruptionBudget",
        KubeVersion::release(25, 0),
    ),
    (
        "autoscaling/v2beta1",
        "HorizontalPodAutoscaler",
        KubeVersion::release(25, 0),
    ),
    (
        "autoscaling/v2beta2",
        "HorizontalPodAutoscaler",
        KubeVersion::release(26, 0),
    ),
];

/// The first version that no longer serves `kind` at `api_version`, when it is one of the
/// removals podcycle knows.
pub(crate) fn removed_in(api_version: &str, kind: &str) -> Option<KubeVersion> {
    REMOVED
        .iter()
        .find(|(version, k, _)| *version == api_version && *k == kind)
        .map(|&(_, _, removed)| removed)
}

/// A feature gate's stage in one version.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Stage {
    /// Not in this version at all.
    Absent,
    /// Alpha: present but off by default.
    Alpha,
    /// Beta: on by default, unless the change says otherwise.
    Beta,
    /// Generally available.
    Stable,
}

impl Stage {
    pub(crate) fn word(self) -> &'static str {
        match self {
            Stage::Absent => "absent",
            Stage::Alpha => "alpha",
            Stage::Beta => "beta",
            Stage::Stable => "generally available",
        }
    }
}

/// What the API server does with a field whose gate is off.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum GateOff {
    /// Silently drops the field on create (`dropDisabledFields` in `pkg/api/pod/util.go`).
    Dropped,
    /// Rejects the value in validation.
    Rejected,
}

/// One line of a gate's versioned table: from `since`, the gate is at `stage`, on by default
/// or not.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Change {
    pub(crate) since: KubeVersion,
    pub(crate) stage: Stage,
    pub(crate) on: bool,
}

/// The gate becomes alpha (off) in `1.minor`.
const fn alpha(minor: u16) -> Change {
    Change {
        since: KubeVersion::release(minor, 0),
        stage: Stage::Alpha,
        on: false,
    }
}

/// The gate becomes beta and on by default in `1.minor`.
const fn beta(minor: u16) -> Change {
    Change {
        since: KubeVersion::release(minor, 0),
        stage: Stage::Beta,
        on: true,
    }
}

/// The gate is beta with `on` as its default from the patch release `1.minor.patch`.
const fn beta_at(minor: u16, patch: u16, on: bool) -> Change {
    Change {
        since: KubeVersion::release(minor, patch),
        stage: Stage::Beta,
        on,
    }
}

/// The gate becomes generally available (on) in `1.minor`.
const fn stable(minor: u16) -> Change {
    Change {
        since: KubeVersion::release(minor, 0),
        stage: Stage::Stable,
        on: true,
    }
}

/// A feature gate and the changes of its stage and default, oldest first.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Feature {
    pub(crate) gate: &'static str,
    /// What the feature allows, for messages: "native sidecars (`restartPolicy: Always` on an
    /// init container)".
    pub(crate) description: &'static str,
    pub(crate) changes: &'static [Change],
    pub(crate) when_off: GateOff,
}

impl Feature {
    /// The change in force at `version`.
    fn in_force(&self, version: KubeVersion) -> Option<&Change> {
        self.changes
            .iter()
            .rev()
            .find(|change| change.since <= version)
    }

    pub(crate) fn stage(&self, version: KubeVersion) -> Stage {
        self.in_force(version).map_or(Stage::Absent, |c| c.stage)
    }

    /// On in a cluster of this version with default gates.
    pub(crate) fn enabled(&self, version: KubeVersion) -> bool {
        self.in_force(version).is_some_and(|c| c.on)
    }

    /// The first version from which the feature is on by default in every later version.
    pub(crate) fn enabled_since(&self) -> Option<KubeVersion> {
        let last_off = self.changes.iter().rposition(|c| !c.on);
        let first_on = last_off.map_or(0, |i| i + 1);
        self.changes.get(first_on).map(|c| c.since)
    }

    /// "alpha in 1.28, on by default since 1.29", for messages and docs; a default a patch
    /// release turned back shows as a span ("on by default in 1.35.0 to 1.35.3, off from
    /// 1.35.4").
    pub(crate) fn availability(&self) -> String {
        let mut words = Vec::new();
        if let Some(first) = self.changes.first().filter(|c| !c.on) {
            words.push(format!("alpha in {}", since_text(first.since)));
        }
        // Only the changes of the default are told; a stage that keeps it is not.
        let mut flips: Vec<&Change> = Vec::new();
        let mut on = false;
        for change in self.changes {
            if change.on != on {
                flips.push(change);
                on = change.on;
            }
        }
        for (i, change) in flips.iter().enumerate() {
            match (change.on, flips.get(i + 1)) {
                (true, None) => {
                    words.push(format!("on by default since {}", since_text(change.since)))
                }
                (true, Some(next)) => words.push(format!(
                    "on by default in {}",
                    span_text(change.since, next.since)
                )),
                (false, _) => words.push(format!(
                    "off by default again from {}",
                    since_text(change.since)
                )),
            }
        }
        match (words.is_empty(), self.changes.is_empty()) {
            (_, true) => "not available".to_owned(),
            (true, false) => "on by default".to_owned(),
            (false, false) if flips.is_empty() => {
                format!(
                    "alpha since {} and off by default",
                    since_text(self.changes[0].since)
                )
            }
            (false, false) => words.join(", "),
        }
    }

    /// Where the version is a minor written alone and an earlier patch release of it had the
    /// other default, the patch releases that did ("1.35.0 to 1.35.3"), so that a message can
    /// say that the patch matters.
    pub(crate) fn other_default_in_earlier_patches(&self, version: KubeVersion) -> Option<String> {
        if version.patch.is_some() {
            return None;
        }
        let newest = self.enabled(version);
        let in_minor: Vec<&Change> = self
            .changes
            .iter()
            .filter(|c| c.since.minor == version.minor && c.since.patch.unwrap_or(0) > 0)
            .collect();
        let first_patch_change = in_minor.first()?;
        let first = KubeVersion::release(version.minor, 0);
        if self.enabled(first) == newest {
            return None;
        }
        Some(span_text(first, first_patch_change.since))
    }
}

/// A version a change starts at, as the release notes name it: `1.29` for a minor's first
/// release, `1.35.4` for a patch release.
pub(crate) fn since_text(version: KubeVersion) -> String {
    match version.patch {
        Some(0) | None => KubeVersion::new(version.minor).to_string(),
        Some(_) => version.to_string(),
    }
}

/// The versions from `from` until `next` starts: "1.35.0 to 1.35.3" when `next` is a patch
/// release of the same minor, else "1.29 to 1.31".
fn span_text(from: KubeVersion, next: KubeVersion) -> String {
    match next.patch {
        Some(patch) if patch > 0 && next.minor == from.minor => {
            format!("{from} to {}", KubeVersion::release(next.minor, patch - 1))
        }
        Some(patch) if patch > 0 => format!(
            "{} to {}",
            since_text(from),
            KubeVersion::release(next.minor, patch - 1)
        ),
        _ => format!(
            "{} to {}",
            since_text(from),
            KubeVersion::new(next.minor.saturating_sub(1))
        ),
    }
}

/// Native sidecars: `restartPolicy: Always` on an init container (KEP-753).
pub(crate) static SIDECAR_CONTAINERS: Feature = Feature {
    gate: "SidecarContainers",
    description: "native sidecars (`restartPolicy: Always` on an init container)",
    changes: &[alpha(28), beta(29), stable(33)],
    when_off: GateOff::Dropped,
};

/// The `sleep` lifecycle handler (KEP-3960).
pub(crate) static POD_LIFECYCLE_SLEEP_ACTION: Feature = Feature {
    gate: "PodLifecycleSleepAction",
    description: "the `sleep` lifecycle action",
    changes: &[alpha(29), beta(30), stable(34)],
    when_off: GateOff::Dropped,
};

/// `sleep.seconds: 0` (KEP-4818).
pub(crate) static POD_LIFECYCLE_SLEEP_ACTION_ALLOW_ZERO: Feature = Feature {
    gate: "PodLifecycleSleepActionAllowZero",
    description: "a `sleep` action of zero seconds",
    changes: &[alpha(32), beta(33), stable(34)],
    when_off: GateOff::Rejected,
};

/// Container-level `restartPolicy` and `restartPolicyRules` (KEP-5307).
pub(crate) static CONTAINER_RESTART_RULES: Feature = Feature {
    gate: "ContainerRestartRules",
    description: "the ContainerRestartRules feature (container-level `restartPolicy` and `restartPolicyRules`)",
    changes: &[alpha(34), beta(35)],
    when_off: GateOff::Dropped,
};

/// The `RestartAllContainers` action of container restart rules, and restart rules on native
/// sidecars.
pub(crate) static RESTART_ALL_CONTAINERS: Feature = Feature {
    gate: "RestartAllContainersOnContainerExits",
    description: "the `RestartAllContainers` restart rule action and restart rules on sidecars",
    changes: &[alpha(35), beta(36)],
    when_off: GateOff::Rejected,
};

/// `lifecycle.stopSignal` (KEP-4960).
pub(crate) static CONTAINER_STOP_SIGNALS: Feature = Feature {
    gate: "ContainerStopSignals",
    description: "`lifecycle.stopSignal`",
    changes: &[alpha(33)],
    when_off: GateOff::Dropped,
};

/// Probe-level `terminationGracePeriodSeconds` (KEP-2238).
pub(crate) static PROBE_TERMINATION_GRACE_PERIOD: Feature = Feature {
    gate: "ProbeTerminationGracePeriod",
    description: "probe-level `terminationGracePeriodSeconds`",
    changes: &[alpha(21), beta(25), stable(28)],
    when_off: GateOff::Dropped,
};

/// gRPC probes.
pub(crate) static GRPC_CONTAINER_PROBE: Feature = Feature {
    gate: "GRPCContainerProbe",
    description: "gRPC probes",
    changes: &[alpha(23), beta(24), stable(27)],
    when_off: GateOff::Dropped,
};

/// StatefulSet `updateStrategy.rollingUpdate.maxUnavailable` (KEP-961): alpha from 1.24; beta
/// and on by default in 1.35.0 (kubernetes/kubernetes#133153, milestone v1.35; v1.35.0's
/// kube_features.go: `{Version: "1.35", Default: true, PreRelease: Beta}`); turned off by
/// default in 1.35.4 for a regression of `Parallel` pod management (kubernetes/kubernetes#137926,
/// listed under v1.35.4 in CHANGELOG/CHANGELOG-1.35.md; #137904 for 1.36); on again from 1.37
/// (kubernetes/kubernetes#139466; v1.37.2's kube_features.go: `1.35` beta off, `1.37` beta on).
/// Off, the API server drops the field (`dropStatefulSetDisabledFields` in
/// pkg/registry/apps/statefulset/strategy.go) and the controller replaces one pod at a time.
pub(crate) static MAX_UNAVAILABLE_STATEFULSET: Feature = Feature {
    gate: "MaxUnavailableStatefulSet",
    description: "StatefulSet `updateStrategy.rollingUpdate.maxUnavailable`",
    changes: &[
        alpha(24),
        beta_at(35, 0, true),
        beta_at(35, 4, false),
        beta_at(37, 0, true),
    ],
    when_off: GateOff::Dropped,
};

/// A HorizontalPodAutoscaler with `minReplicas: 0`. kube_features.go v1.37.2: alpha from 1.16,
/// beta and on from 1.37; off, validation asks for at least 1
/// (`validationOptionsForHorizontalPodAutoscaler`, `MinReplicasLowerBound`).
pub(crate) static HPA_SCALE_TO_ZERO: Feature = Feature {
    gate: "HPAScaleToZero",
    description: "`minReplicas: 0` on a HorizontalPodAutoscaler",
    changes: &[alpha(16), beta(37)],
    when_off: GateOff::Rejected,
};

/// Every gate podcycle models, the one table the rules, the docs and the tests read.
pub(crate) static FEATURES: &[&Feature] = &[
    &SIDECAR_CONTAINERS,
    &POD_LIFECYCLE_SLEEP_ACTION,
    &POD_LIFECYCLE_SLEEP_ACTION_ALLOW_ZERO,
    &CONTAINER_RESTART_RULES,
    &RESTART_ALL_CONTAINERS,
    &CONTAINER_STOP_SIGNALS,
    &PROBE_TERMINATION_GRACE_PERIOD,
    &GRPC_CONTAINER_PROBE,
    &MAX_UNAVAILABLE_STATEFULSET,
    &HPA_SCALE_TO_ZERO,
];

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
        assert_eq!(version("1.30.4"), KubeVersion::release(30, 4));
        assert_eq!(version("v1.35.2"), KubeVersion::release(35, 2));
        assert_eq!(version(" 1.35.0 "), KubeVersion::release(35, 0));
        assert_eq!(version("v1.35.2-eks-4c5d6e"), KubeVersion::release(35, 2));
        assert_eq!(version("v1.35.2+k3s1"), KubeVersion::release(35, 2));
        assert_eq!(version("1.35.2").to_string(), "1.35.2");
        assert_eq!(version("v1.35").to_string(), "1.35");
        for bad in [
            "2.1",
            "1",
            "1.x",
            "1.30.x",
            "1.30.",
            "1.30.-1",
            "1.30.4.1",
            "1.30.4-",
            "1.+30",
            "1.30-eks",
            "v",
            "1..30",
            "1.30.99999",
            "",
        ] {
            assert!(
                matches!(bad.parse::<KubeVersion>(), Err(BadKubeVersion::Invalid(_))),
                "{bad}"
            );
        }
        for unsupported in ["1.22", "1.38", "1.38.1"] {
            assert!(
                matches!(
                    unsupported.parse::<KubeVersion>(),
                    Err(BadKubeVersion::Unsupported(_))
                ),
                "{unsupported}"
            );
        }
    }

    #[test]
    fn a_minor_alone_is_its_newest_patch() {
        assert!(version("1.35") > version("1.35.7"));
        assert!(version("1.35.4") > version("1.35.3"));
        assert!(version("1.35") < version("1.36.0"));
        assert_ne!(version("1.35"), version("1.35.0"));
        assert_eq!(version("1.35.2").semver(), "v1.35.2");
        assert_eq!(version("1.35").semver(), "v1.35.0");
    }

    #[test]
    fn statefulset_max_unavailable_follows_the_patch_releases() {
        let gate = &MAX_UNAVAILABLE_STATEFULSET;
        for off in [
            "1.24", "1.34", "1.34.9", "1.35", "1.35.4", "1.35.7", "1.36", "1.36.0",
        ] {
            assert!(!gate.enabled(version(off)), "{off}");
        }
        for on in ["1.35.0", "1.35.2", "1.35.3", "1.37", "1.37.0", "1.37.2"] {
            assert!(gate.enabled(version(on)), "{on}");
        }
        assert_eq!(gate.stage(version("1.36")), Stage::Beta);
        assert_eq!(gate.stage(version("1.34")), Stage::Alpha);
        assert_eq!(gate.enabled_since(), Some(KubeVersion::release(37, 0)));
        assert_eq!(
            gate.availability(),
            "alpha in 1.24, on by default in 1.35.0 to 1.35.3, off by default again from 1.35.4, on by default since 1.37"
        );
        assert_eq!(
            gate.other_default_in_earlier_patches(version("1.35"))
                .as_deref(),
            Some("1.35.0 to 1.35.3")
        );
        assert_eq!(
            gate.other_default_in_earlier_patches(version("1.35.4")),
            None
        );
        assert_eq!(gate.other_default_in_earlier_patches(version("1.36")), None);
        assert!(!version("1.35.2").gates_as_minor());
        assert!(version("1.35.5").gates_as_minor());
        assert!(version("1.34.1").gates_as_minor());
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
        assert_eq!(
            CONTAINER_STOP_SIGNALS.availability(),
            "alpha since 1.33 and off by default"
        );
        assert_eq!(SIDECAR_CONTAINERS.enabled_since(), Some(version("1.29.0")));
        // A patch of a version does not change a gate that only minors change.
        assert!(SIDECAR_CONTAINERS.enabled(version("1.29.0")));
        assert!(!SIDECAR_CONTAINERS.enabled(version("1.28.15")));
    }
}
