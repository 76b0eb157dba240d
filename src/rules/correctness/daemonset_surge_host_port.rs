use crate::lifecycle::rollout::Plan;
use crate::model::path::FieldPath;
use crate::rules::{Findings, RolloutContext, Target, declare_rule};

declare_rule! {
    /// ## What it does
    /// Finds a DaemonSet that surges (`maxSurge` above 0) while its pod takes a port on its
    /// node: a `hostPort` of an app container or a sidecar, or any declared port under
    /// `hostNetwork: true` (the API server sets its `hostPort` to its `containerPort`).
    ///
    /// ## Why is this bad?
    /// With surge, the controller starts the new pod beside the old one on the same node and
    /// deletes the old one only once the new one is available. The new pod needs the port the
    /// old one holds, so the scheduler's `NodePorts` filter never places it: the rolling update
    /// waits forever on its first nodes, and the DaemonSet keeps running the old template.
    ///
    /// ## Example
    /// ```yaml
    /// apiVersion: apps/v1
    /// kind: DaemonSet
    /// metadata:
    ///   name: agent
    /// spec:
    ///   updateStrategy:
    ///     rollingUpdate:
    ///       maxSurge: 1
    ///       maxUnavailable: 0
    ///   selector:
    ///     matchLabels: {app: agent}
    ///   template:
    ///     metadata:
    ///       labels: {app: agent}
    ///     spec:
    ///       containers:
    ///       - name: agent
    ///         image: example/agent:1.0
    ///         ports:
    ///         - containerPort: 9100
    ///           hostPort: 9100
    /// ```
    ///
    /// Replace the pod on each node instead of surging:
    /// ```yaml
    /// apiVersion: apps/v1
    /// kind: DaemonSet
    /// metadata:
    ///   name: agent
    /// spec:
    ///   updateStrategy:
    ///     rollingUpdate:
    ///       maxUnavailable: 1
    ///   selector:
    ///     matchLabels: {app: agent}
    ///   template:
    ///     metadata:
    ///       labels: {app: agent}
    ///     spec:
    ///       containers:
    ///       - name: agent
    ///         image: example/agent:1.0
    ///         ports:
    ///         - containerPort: 9100
    ///           hostPort: 9100
    /// ```
    ///
    /// ## References
    /// - kubernetes/kubernetes `pkg/controller/daemon/update.go`, `rollingUpdate`: with
    ///   `maxSurge`, "an old available pod is deleted if a new pod is available".
    /// - kubernetes/kubernetes `pkg/scheduler/framework/plugins/nodeports/node_ports.go`
    ///   (`NodePorts` filter) and `pkg/scheduler/util/utils.go`, `GetHostPorts`: the host
    ///   ports of app containers and sidecars.
    /// - kubernetes/kubernetes `pkg/apis/core/v1/defaults.go`, `SetDefaults_PodSpec`: under
    ///   `hostNetwork`, each port's `hostPort` is its `containerPort`.
    /// - [kubernetes/kubernetes#106417](https://github.com/kubernetes/kubernetes/issues/106417):
    ///   a DaemonSet with `maxSurge` and a host port never rolls out.
    pub(crate) static RULE = {
        name: "daemonset-surge-host-port",
        category: Correctness,
        enforcement: Runtime,
        summary: "surging DaemonSet whose pod takes a host port, so its update never progresses",
        check: crate::rules::Check::Rollout(check),
    }
}

fn check(ctx: &RolloutContext<'_>, findings: &mut Findings) {
    let Plan::DaemonSet(plan) = &ctx.rollout.plan else {
        return;
    };
    let Some(port) = &plan.surge_blocked_by else {
        return;
    };
    let surge = FieldPath::from_keys(&["spec", "updateStrategy", "rollingUpdate", "maxSurge"]);
    let why = if port.from_host_network {
        format!(
            "its container `{}` takes port {} on the node (`hostNetwork: true`)",
            port.container, port.port
        )
    } else {
        format!(
            "its container `{}` takes host port {}",
            port.container, port.port
        )
    };
    findings
        .report(
            Target::value(surge),
            format!(
                "the rolling update never progresses: a surge pod starts beside the old one on the same node, but {why}, which the old pod holds, so the scheduler never places it; the old pod is deleted only once the new one is available"
            ),
        )
        .label(Target::key(port.path.clone()), "held by the old pod")
        .help("set `maxSurge: 0` and `maxUnavailable: 1`: each node's old pod is then deleted before the new one starts");
}
