//! The generated corpus: lifecycle-heavy pod specs in every workload kind, with the edge values
//! the rules are about (init containers, native sidecars, hooks of every handler kind, probes,
//! grace periods, restart policies and rules, ports, names, served and unserved apiVersions),
//! the fields that pace a rollout (replicas, update strategies and their counts, rollout
//! timing), and PodDisruptionBudgets and HorizontalPodAutoscalers. Everything else in the object
//! is valid, so a rejection is about the lifecycle or the rollout.

use std::fmt::Write as _;

use proptest::collection::vec;
use proptest::option;
use proptest::prelude::*;
use proptest::strategy::{Strategy, ValueTree};
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Pod,
    PodTemplate,
    ReplicationController,
    Deployment,
    ReplicaSet,
    StatefulSet,
    DaemonSet,
    Job,
    CronJob,
    PodDisruptionBudget,
    HorizontalPodAutoscaler,
}

#[derive(Clone, Debug)]
pub struct Spec {
    kind: Kind,
    /// The controller's rollout fields (Deployment, ReplicaSet, StatefulSet, DaemonSet).
    rollout: Option<RolloutFields>,
    /// A budget's or an autoscaler's fields, for those kinds.
    scope: ScopeFields,
    /// A Job's retry fields (Job, CronJob).
    job: JobFields,
    /// An apiVersion the kind is not served under (`apps/v1` for a Pod, `extensions/v1beta1`).
    wrong_api_version: bool,
    grace: Option<i64>,
    active_deadline: Option<i64>,
    restart_policy: Option<&'static str>,
    init: Vec<Container>,
    containers: Vec<Container>,
}

#[derive(Clone, Debug)]
struct Container {
    name: Name,
    restart_policy: Option<&'static str>,
    restart_rules: Option<RestartRule>,
    ports: Vec<Port>,
    liveness: Option<Probe>,
    readiness: Option<Probe>,
    startup: Option<Probe>,
    post_start: Option<Handler>,
    pre_stop: Option<Handler>,
}

/// A count of pods as written: a number, a percentage, or a string that is neither.
#[derive(Clone, Copy, Debug)]
enum Amount {
    Count(i64),
    Percent(i64),
    Text(&'static str),
}

impl Amount {
    fn yaml(self) -> String {
        match self {
            Amount::Count(n) => n.to_string(),
            Amount::Percent(p) => format!("\"{p}%\""),
            Amount::Text(text) => format!("\"{text}\""),
        }
    }
}

#[derive(Clone, Debug)]
struct RolloutFields {
    replicas: Option<i64>,
    min_ready: Option<i64>,
    progress_deadline: Option<i64>,
    history: Option<i64>,
    strategy: Option<&'static str>,
    surge: Option<Amount>,
    unavailable: Option<Amount>,
    partition: Option<i64>,
    policy: Option<&'static str>,
}

#[derive(Clone, Debug)]
struct ScopeFields {
    min_available: Option<Amount>,
    max_unavailable: Option<Amount>,
    eviction_policy: Option<&'static str>,
    min_replicas: Option<i64>,
    max_replicas: Option<i64>,
    target_api_version: &'static str,
    target_kind: &'static str,
    /// The type of the autoscaler's one metric (`Resource`, `Pods`, `Object`, `External`).
    metric: Option<&'static str>,
}

/// A Job's retry limits and failure policy (valid apart from the fields generated here).
#[derive(Clone, Debug)]
struct JobFields {
    indexed: Option<bool>,
    backoff_limit: Option<i64>,
    backoff_limit_per_index: Option<i64>,
    /// The action of the failure policy's one rule.
    failure_action: Option<&'static str>,
}

#[derive(Clone, Copy, Debug)]
enum Name {
    /// `c<index>`: unique.
    Unique,
    /// `c0`: a duplicate unless it is the first container.
    First,
    Missing,
    Invalid,
}

#[derive(Clone, Debug)]
struct RestartRule {
    action: &'static str,
    operator: &'static str,
    exit_codes: Vec<i32>,
}

#[derive(Clone, Debug)]
struct Port {
    number: i64,
    name: Option<&'static str>,
}

#[derive(Clone, Debug)]
struct Probe {
    handler: Handler,
    initial_delay: Option<i64>,
    timeout: Option<i64>,
    period: Option<i64>,
    success: Option<i64>,
    failure: Option<i64>,
    grace: Option<i64>,
}

#[derive(Clone, Debug)]
enum Handler {
    Exec(Vec<String>),
    HttpGet {
        port: PortRef,
        scheme: Option<&'static str>,
    },
    TcpSocket(PortRef),
    Grpc(i64),
    Sleep(i64),
    /// No handler at all.
    Empty,
    /// Two handlers.
    Two,
}

#[derive(Clone, Debug)]
enum PortRef {
    Number(i64),
    Name(&'static str),
}

const PORT_NAMES: [&str; 5] = ["http", "metrics", "8080", "HTTP", "grpc-health"];

fn seconds() -> impl Strategy<Value = i64> {
    prop_oneof![
        4 => 0i64..120,
        1 => Just(-1i64),
        1 => Just(30i64),
        1 => Just(3600i64),
    ]
}

fn port_ref() -> impl Strategy<Value = PortRef> {
    prop_oneof![
        3 => prop_oneof![Just(80i64), Just(8080), Just(0), Just(70000), Just(9090)].prop_map(PortRef::Number),
        2 => proptest::sample::select(&PORT_NAMES[..]).prop_map(PortRef::Name),
    ]
}

fn exec_command() -> impl Strategy<Value = Vec<String>> {
    let sleep = 0i64..90;
    prop_oneof![
        sleep
            .clone()
            .prop_map(|s| vec!["sleep".to_owned(), s.to_string()]),
        sleep.prop_map(|s| vec![
            "sh".to_owned(),
            "-c".to_owned(),
            format!("sleep {s}; nginx -s quit")
        ]),
        Just(vec!["/bin/true".to_owned()]),
        Just(vec![
            "sh".to_owned(),
            "-c".to_owned(),
            "until nc -z localhost 9090; do sleep 1; done".to_owned()
        ]),
        Just(Vec::new()),
    ]
}

fn hook() -> impl Strategy<Value = Handler> {
    prop_oneof![
        3 => exec_command().prop_map(Handler::Exec),
        2 => (port_ref(), option::of(proptest::sample::select(&["HTTP", "HTTPS", "http"][..])))
            .prop_map(|(port, scheme)| Handler::HttpGet { port, scheme }),
        1 => port_ref().prop_map(Handler::TcpSocket),
        3 => prop_oneof![0i64..60, Just(-1i64), Just(30), Just(45)].prop_map(Handler::Sleep),
        1 => Just(Handler::Empty),
        1 => Just(Handler::Two),
    ]
}

fn probe() -> impl Strategy<Value = Probe> {
    let handler = prop_oneof![
        2 => exec_command().prop_map(Handler::Exec),
        3 => (port_ref(), option::of(proptest::sample::select(&["HTTP", "HTTPS", "http"][..])))
            .prop_map(|(port, scheme)| Handler::HttpGet { port, scheme }),
        2 => port_ref().prop_map(Handler::TcpSocket),
        1 => prop_oneof![Just(9090i64), Just(0), Just(70000)].prop_map(Handler::Grpc),
        1 => Just(Handler::Empty),
        1 => Just(Handler::Two),
    ];
    let edge = || {
        option::weighted(
            0.3,
            prop_oneof![Just(-1i64), Just(0), Just(1), Just(2), Just(10)],
        )
    };
    (
        handler,
        edge(),
        edge(),
        edge(),
        edge(),
        edge(),
        option::weighted(0.2, prop_oneof![Just(-1i64), Just(0), Just(5)]),
    )
        .prop_map(
            |(handler, initial_delay, timeout, period, success, failure, grace)| Probe {
                handler,
                initial_delay,
                timeout,
                period,
                success,
                failure,
                grace,
            },
        )
}

fn container(init: bool) -> impl Strategy<Value = Container> {
    let name = prop_oneof![
        20 => Just(Name::Unique),
        1 => Just(Name::First),
        1 => Just(Name::Missing),
        1 => Just(Name::Invalid),
    ];
    let restart_policy = if init {
        option::weighted(
            0.5,
            prop_oneof![8 => Just("Always"), 1 => Just("Never"), 1 => Just("always")],
        )
        .boxed()
    } else {
        option::weighted(
            0.1,
            prop_oneof![Just("Always"), Just("Never"), Just("OnFailure")],
        )
        .boxed()
    };
    let rule = (
        prop_oneof![4 => Just("Restart"), 1 => Just("Stop")],
        prop_oneof![4 => Just("In"), 1 => Just("NotIn"), 1 => Just("Equals")],
        vec(0i32..256, 0..3),
    )
        .prop_map(|(action, operator, exit_codes)| RestartRule {
            action,
            operator,
            exit_codes,
        });
    let port = (
        prop_oneof![4 => Just(8080i64), 2 => Just(9090), 1 => Just(0), 1 => Just(70000)],
        option::of(proptest::sample::select(&PORT_NAMES[..])),
    )
        .prop_map(|(number, name)| Port { number, name });
    (
        name,
        restart_policy,
        option::weighted(0.1, rule),
        vec(port, 0..3),
        option::weighted(0.4, probe()),
        option::weighted(0.4, probe()),
        option::weighted(0.3, probe()),
        option::weighted(0.3, hook()),
        option::weighted(0.5, hook()),
    )
        .prop_map(
            |(
                name,
                restart_policy,
                restart_rules,
                ports,
                liveness,
                readiness,
                startup,
                post_start,
                pre_stop,
            )| {
                Container {
                    name,
                    restart_policy,
                    restart_rules,
                    ports,
                    liveness,
                    readiness,
                    startup,
                    post_start,
                    pre_stop,
                }
            },
        )
}

fn amount() -> impl Strategy<Value = Amount> {
    prop_oneof![
        4 => prop_oneof![Just(0i64), Just(1), Just(2), Just(5), Just(-1)].prop_map(Amount::Count),
        4 => prop_oneof![Just(0i64), Just(1), Just(25), Just(50), Just(100), Just(150)].prop_map(Amount::Percent),
        1 => prop_oneof![Just("3"), Just("half"), Just("-5%")].prop_map(Amount::Text),
    ]
}

fn rollout_fields() -> impl Strategy<Value = RolloutFields> {
    let small = || option::weighted(0.4, prop_oneof![4 => 0i64..12, 1 => Just(-1i64)]);
    let timing = || {
        option::weighted(
            0.3,
            prop_oneof![4 => 0i64..700, 1 => Just(-1i64), 1 => Just(2_147_483_647i64)],
        )
    };
    (
        small(),
        timing(),
        timing(),
        option::weighted(0.1, -1i64..3),
        option::weighted(
            0.4,
            prop_oneof![4 => Just("RollingUpdate"), 2 => Just("Recreate"), 2 => Just("OnDelete"), 1 => Just("Rolling")],
        ),
        option::weighted(0.5, amount()),
        option::weighted(0.5, amount()),
        option::weighted(0.2, -1i64..6),
        option::weighted(
            0.3,
            prop_oneof![Just("OrderedReady"), Just("Parallel"), Just("Ordered")],
        ),
    )
        .prop_map(
            |(
                replicas,
                min_ready,
                progress_deadline,
                history,
                strategy,
                surge,
                unavailable,
                partition,
                policy,
            )| RolloutFields {
                replicas,
                min_ready,
                progress_deadline,
                history,
                strategy,
                surge,
                unavailable,
                partition,
                policy,
            },
        )
}

fn scope_fields() -> impl Strategy<Value = ScopeFields> {
    (
        option::weighted(0.5, amount()),
        option::weighted(0.5, amount()),
        option::weighted(
            0.2,
            prop_oneof![Just("IfHealthyBudget"), Just("AlwaysAllow"), Just("Always")],
        ),
        option::weighted(
            0.6,
            prop_oneof![4 => 1i64..6, 1 => Just(0i64), 1 => Just(-1)],
        ),
        option::weighted(
            0.9,
            prop_oneof![4 => 1i64..10, 1 => Just(0i64), 1 => Just(-2)],
        ),
        prop_oneof![6 => Just("apps/v1"), 1 => Just("v1"), 1 => Just("")],
        prop_oneof![4 => Just("Deployment"), 1 => Just("ReplicationController"), 1 => Just("")],
        option::weighted(
            0.5,
            prop_oneof![
                Just("Resource"),
                Just("Pods"),
                Just("Object"),
                Just("External")
            ],
        ),
    )
        .prop_map(
            |(
                min_available,
                max_unavailable,
                eviction_policy,
                min_replicas,
                max_replicas,
                target_api_version,
                target_kind,
                metric,
            )| ScopeFields {
                min_available,
                max_unavailable,
                eviction_policy,
                min_replicas,
                max_replicas,
                target_api_version,
                target_kind,
                metric,
            },
        )
}

fn job_fields() -> impl Strategy<Value = JobFields> {
    (
        option::weighted(0.4, proptest::bool::ANY),
        option::weighted(0.3, -1i64..4),
        option::weighted(0.3, -1i64..3),
        option::weighted(
            0.3,
            prop_oneof![
                Just("FailJob"),
                Just("FailIndex"),
                Just("Ignore"),
                Just("Count"),
                Just("failIndex")
            ],
        ),
    )
        .prop_map(
            |(indexed, backoff_limit, backoff_limit_per_index, failure_action)| JobFields {
                indexed,
                backoff_limit,
                backoff_limit_per_index,
                failure_action,
            },
        )
}

fn spec() -> impl Strategy<Value = Spec> {
    let kind = proptest::sample::select(
        &[
            Kind::Pod,
            Kind::PodTemplate,
            Kind::ReplicationController,
            Kind::Deployment,
            Kind::ReplicaSet,
            Kind::StatefulSet,
            Kind::DaemonSet,
            Kind::Job,
            Kind::CronJob,
            Kind::PodDisruptionBudget,
            Kind::HorizontalPodAutoscaler,
        ][..],
    );
    (
        kind,
        option::weighted(0.6, rollout_fields()),
        (scope_fields(), job_fields()),
        proptest::bool::weighted(0.03),
        option::weighted(0.5, seconds()),
        option::weighted(0.1, prop_oneof![Just(0i64), Just(-5), Just(1), Just(600)]),
        option::weighted(
            0.6,
            prop_oneof![
                Just("Always"),
                Just("OnFailure"),
                Just("Never"),
                Just("always")
            ],
        ),
        vec(container(true), 0..3),
        vec(container(false), 1..3),
    )
        .prop_map(
            |(
                kind,
                rollout,
                (scope, job),
                wrong_api_version,
                grace,
                active_deadline,
                restart_policy,
                init,
                containers,
            )| Spec {
                kind,
                rollout,
                scope,
                job,
                wrong_api_version,
                grace,
                active_deadline,
                restart_policy,
                init,
                containers,
            },
        )
}

/// The spec number `index` of the run seeded with `seed`, with its value tree so a failing
/// spec can be shrunk: every spec has its own generator, so any one can be regenerated alone.
pub fn value_tree(seed: u64, index: u64) -> impl ValueTree<Value = Spec> {
    let mut bytes = [0u8; 32];
    bytes[..8].copy_from_slice(&seed.to_le_bytes());
    bytes[8..16].copy_from_slice(&index.to_le_bytes());
    let rng = TestRng::from_seed(RngAlgorithm::ChaCha, &bytes);
    let mut runner = TestRunner::new_with_rng(Config::default(), rng);
    spec()
        .new_tree(&mut runner)
        .expect("the strategy never rejects")
}

impl Spec {
    /// The manifest, as one YAML document (without `---`).
    pub fn to_yaml(&self, name: &str) -> String {
        let mut out = String::new();
        let (api_version, kind, wrong) = match self.kind {
            Kind::Pod => ("v1", "Pod", "apps/v1"),
            Kind::PodTemplate => ("v1", "PodTemplate", "apps/v1"),
            Kind::ReplicationController => ("v1", "ReplicationController", "apps/v1"),
            Kind::Deployment => ("apps/v1", "Deployment", "extensions/v1beta1"),
            Kind::ReplicaSet => ("apps/v1", "ReplicaSet", "extensions/v1beta1"),
            Kind::StatefulSet => ("apps/v1", "StatefulSet", "apps/v1beta1"),
            Kind::DaemonSet => ("apps/v1", "DaemonSet", "extensions/v1beta1"),
            Kind::Job => ("batch/v1", "Job", "batch/v1beta1"),
            Kind::CronJob => ("batch/v1", "CronJob", "batch/v1beta1"),
            Kind::PodDisruptionBudget => ("policy/v1", "PodDisruptionBudget", "policy/v1beta1"),
            Kind::HorizontalPodAutoscaler => (
                "autoscaling/v2",
                "HorizontalPodAutoscaler",
                "autoscaling/v2beta2",
            ),
        };
        let api_version = if self.wrong_api_version {
            wrong
        } else {
            api_version
        };
        let _ = writeln!(
            out,
            "apiVersion: {api_version}\nkind: {kind}\nmetadata:\n  name: {name}"
        );
        let labels = "{app: gen}";
        if matches!(
            self.kind,
            Kind::PodDisruptionBudget | Kind::HorizontalPodAutoscaler
        ) {
            self.scope.write(&mut out, self.kind);
            return out;
        }
        let rollout = self.rollout.as_ref().filter(|_| {
            matches!(
                self.kind,
                Kind::Deployment | Kind::ReplicaSet | Kind::StatefulSet | Kind::DaemonSet
            )
        });
        if let Some(rollout) = rollout {
            rollout.write(&mut out, self.kind);
        }
        let indent = match self.kind {
            Kind::Pod => {
                out.push_str("spec:\n");
                2
            }
            Kind::PodTemplate => {
                let _ = writeln!(out, "template:\n  metadata:\n    labels: {labels}\n  spec:");
                4
            }
            Kind::ReplicationController => {
                let _ = writeln!(
                    out,
                    "spec:\n  selector: {labels}\n  template:\n    metadata:\n      labels: {labels}\n    spec:"
                );
                6
            }
            Kind::Deployment | Kind::ReplicaSet | Kind::DaemonSet | Kind::StatefulSet => {
                // The rollout fields opened `spec:` already.
                if rollout.is_none() {
                    out.push_str("spec:\n");
                }
                let _ = writeln!(
                    out,
                    "  selector:\n    matchLabels: {labels}\n  template:\n    metadata:\n      labels: {labels}\n    spec:"
                );
                6
            }
            Kind::Job => {
                out.push_str("spec:\n");
                self.job.write(&mut out, "  ");
                let _ = writeln!(out, "  template:\n    spec:");
                6
            }
            Kind::CronJob => {
                let _ = writeln!(
                    out,
                    "spec:\n  schedule: \"@daily\"\n  jobTemplate:\n    spec:"
                );
                self.job.write(&mut out, "      ");
                let _ = writeln!(out, "      template:\n        spec:");
                10
            }
            Kind::PodDisruptionBudget | Kind::HorizontalPodAutoscaler => unreachable!(),
        };
        let pad = " ".repeat(indent);
        if let Some(grace) = self.grace {
            let _ = writeln!(out, "{pad}terminationGracePeriodSeconds: {grace}");
        }
        if let Some(deadline) = self.active_deadline {
            let _ = writeln!(out, "{pad}activeDeadlineSeconds: {deadline}");
        }
        if let Some(policy) = self.restart_policy {
            let _ = writeln!(out, "{pad}restartPolicy: {policy}");
        }
        let mut index = 0;
        for (key, list) in [
            ("initContainers", &self.init),
            ("containers", &self.containers),
        ] {
            if list.is_empty() {
                continue;
            }
            let _ = writeln!(out, "{pad}{key}:");
            for container in list {
                container.write(&mut out, &pad, index);
                index += 1;
            }
        }
        out
    }
}

impl RolloutFields {
    /// `spec:` and the controller's fields that the kind has, before its template.
    fn write(&self, out: &mut String, kind: Kind) {
        out.push_str("spec:\n");
        let mut field = |name: &str, value: Option<String>| {
            if let Some(value) = value {
                let _ = writeln!(out, "  {name}: {value}");
            }
        };
        let number = |n: Option<i64>| n.map(|n| n.to_string());
        let (replicas, deadline, history, policy) = match kind {
            Kind::Deployment => (true, true, true, false),
            Kind::ReplicaSet => (true, false, false, false),
            Kind::StatefulSet => (true, false, false, true),
            Kind::DaemonSet => (false, false, true, false),
            _ => (false, false, false, false),
        };
        if replicas {
            field("replicas", number(self.replicas));
        }
        field("minReadySeconds", number(self.min_ready));
        if deadline {
            field("progressDeadlineSeconds", number(self.progress_deadline));
        }
        if history {
            field("revisionHistoryLimit", number(self.history));
        }
        if policy {
            field("podManagementPolicy", self.policy.map(str::to_owned));
        }
        let key = match kind {
            Kind::Deployment => "strategy",
            Kind::StatefulSet | Kind::DaemonSet => "updateStrategy",
            _ => return,
        };
        let mut rolling = Vec::new();
        if let Some(surge) = self.surge.filter(|_| kind != Kind::StatefulSet) {
            rolling.push(format!("maxSurge: {}", surge.yaml()));
        }
        if let Some(unavailable) = self.unavailable {
            rolling.push(format!("maxUnavailable: {}", unavailable.yaml()));
        }
        if let Some(partition) = self.partition.filter(|_| kind == Kind::StatefulSet) {
            rolling.push(format!("partition: {partition}"));
        }
        if self.strategy.is_none() && rolling.is_empty() {
            return;
        }
        let _ = writeln!(out, "  {key}:");
        if let Some(strategy) = self.strategy {
            let _ = writeln!(out, "    type: {strategy}");
        }
        if !rolling.is_empty() {
            let _ = writeln!(out, "    rollingUpdate: {{{}}}", rolling.join(", "));
        }
    }
}

impl ScopeFields {
    /// A budget's or an autoscaler's spec, over the pods and the workload the corpus names
    /// `gen`.
    fn write(&self, out: &mut String, kind: Kind) {
        out.push_str("spec:\n");
        if matches!(kind, Kind::PodDisruptionBudget) {
            if let Some(min) = self.min_available {
                let _ = writeln!(out, "  minAvailable: {}", min.yaml());
            }
            if let Some(max) = self.max_unavailable {
                let _ = writeln!(out, "  maxUnavailable: {}", max.yaml());
            }
            if let Some(policy) = self.eviction_policy {
                let _ = writeln!(out, "  unhealthyPodEvictionPolicy: {policy}");
            }
            out.push_str("  selector: {matchLabels: {app: gen}}\n");
            return;
        }
        let _ = writeln!(
            out,
            "  scaleTargetRef: {{apiVersion: \"{}\", kind: \"{}\", name: gen}}",
            self.target_api_version, self.target_kind
        );
        if let Some(min) = self.min_replicas {
            let _ = writeln!(out, "  minReplicas: {min}");
        }
        if let Some(max) = self.max_replicas {
            let _ = writeln!(out, "  maxReplicas: {max}");
        }
        let source = match self.metric {
            None => return,
            Some("Resource") => {
                "resource: {name: cpu, target: {type: Utilization, averageUtilization: 70}}"
            }
            Some("Pods") => {
                "pods: {metric: {name: requests}, target: {type: AverageValue, averageValue: \"10\"}}"
            }
            Some("Object") => {
                "object: {describedObject: {apiVersion: v1, kind: Service, name: gen}, metric: {name: requests}, target: {type: Value, value: \"10\"}}"
            }
            Some(_) => {
                "external: {metric: {name: queue}, target: {type: AverageValue, averageValue: \"30\"}}"
            }
        };
        let _ = writeln!(
            out,
            "  metrics:\n  - type: {}\n    {source}",
            self.metric.unwrap_or_default()
        );
    }
}

impl JobFields {
    /// The Job spec's retry fields, at `pad` (the Job spec's indentation).
    fn write(&self, out: &mut String, pad: &str) {
        match self.indexed {
            Some(true) => {
                let _ = writeln!(out, "{pad}completionMode: Indexed\n{pad}completions: 3");
            }
            Some(false) => {
                let _ = writeln!(out, "{pad}completionMode: NonIndexed");
            }
            None => {}
        }
        if let Some(limit) = self.backoff_limit {
            let _ = writeln!(out, "{pad}backoffLimit: {limit}");
        }
        if let Some(limit) = self.backoff_limit_per_index {
            let _ = writeln!(out, "{pad}backoffLimitPerIndex: {limit}");
        }
        if let Some(action) = self.failure_action {
            let _ = writeln!(
                out,
                "{pad}podFailurePolicy:\n{pad}  rules:\n{pad}  - action: {action}\n{pad}    onExitCodes: {{operator: In, values: [42]}}"
            );
        }
    }
}

impl Container {
    fn write(&self, out: &mut String, pad: &str, index: usize) {
        let item = format!("{pad}  ");
        match self.name {
            Name::Unique => {
                let _ = writeln!(out, "{pad}- name: c{index}");
            }
            Name::First => {
                let _ = writeln!(out, "{pad}- name: c0");
            }
            Name::Invalid => {
                let _ = writeln!(out, "{pad}- name: Web_{index}");
            }
            Name::Missing => {
                let _ = writeln!(out, "{pad}- image: busybox:1.36");
            }
        }
        if !matches!(self.name, Name::Missing) {
            let _ = writeln!(out, "{item}image: busybox:1.36");
        }
        if let Some(policy) = self.restart_policy {
            let _ = writeln!(out, "{item}restartPolicy: {policy}");
        }
        if let Some(rule) = &self.restart_rules {
            let codes: Vec<String> = rule.exit_codes.iter().map(i32::to_string).collect();
            let _ = writeln!(
                out,
                "{item}restartPolicyRules:\n{item}- action: {}\n{item}  exitCodes: {{operator: {}, values: [{}]}}",
                rule.action,
                rule.operator,
                codes.join(", ")
            );
        }
        if !self.ports.is_empty() {
            let _ = writeln!(out, "{item}ports:");
            for port in &self.ports {
                match port.name {
                    Some(name) => {
                        let _ = writeln!(
                            out,
                            "{item}- {{containerPort: {}, name: \"{name}\"}}",
                            port.number
                        );
                    }
                    None => {
                        let _ = writeln!(out, "{item}- containerPort: {}", port.number);
                    }
                }
            }
        }
        for (key, probe) in [
            ("livenessProbe", &self.liveness),
            ("readinessProbe", &self.readiness),
            ("startupProbe", &self.startup),
        ] {
            let Some(probe) = probe else { continue };
            let _ = writeln!(out, "{item}{key}:");
            let inner = format!("{item}  ");
            probe.handler.write(out, &inner);
            for (field, value) in [
                ("initialDelaySeconds", probe.initial_delay),
                ("timeoutSeconds", probe.timeout),
                ("periodSeconds", probe.period),
                ("successThreshold", probe.success),
                ("failureThreshold", probe.failure),
                ("terminationGracePeriodSeconds", probe.grace),
            ] {
                if let Some(value) = value {
                    let _ = writeln!(out, "{inner}{field}: {value}");
                }
            }
        }
        if self.post_start.is_some() || self.pre_stop.is_some() {
            let _ = writeln!(out, "{item}lifecycle:");
            for (key, hook) in [("postStart", &self.post_start), ("preStop", &self.pre_stop)] {
                let Some(hook) = hook else { continue };
                let _ = writeln!(out, "{item}  {key}:");
                hook.write(out, &format!("{item}    "));
            }
        }
    }
}

impl Handler {
    fn write(&self, out: &mut String, pad: &str) {
        match self {
            Handler::Exec(command) => {
                let words: Vec<String> = command.iter().map(|w| format!("{w:?}")).collect();
                let _ = writeln!(out, "{pad}exec:\n{pad}  command: [{}]", words.join(", "));
            }
            Handler::HttpGet { port, scheme } => {
                let _ = writeln!(
                    out,
                    "{pad}httpGet:\n{pad}  path: /healthz\n{pad}  port: {}",
                    port.yaml()
                );
                if let Some(scheme) = scheme {
                    let _ = writeln!(out, "{pad}  scheme: {scheme}");
                }
            }
            Handler::TcpSocket(port) => {
                let _ = writeln!(out, "{pad}tcpSocket:\n{pad}  port: {}", port.yaml());
            }
            Handler::Grpc(port) => {
                let _ = writeln!(out, "{pad}grpc:\n{pad}  port: {port}");
            }
            Handler::Sleep(seconds) => {
                let _ = writeln!(out, "{pad}sleep:\n{pad}  seconds: {seconds}");
            }
            // Timing fields only, or `null`.
            Handler::Empty => {}
            Handler::Two => {
                let _ = writeln!(
                    out,
                    "{pad}exec:\n{pad}  command: [/bin/true]\n{pad}tcpSocket:\n{pad}  port: 8080"
                );
            }
        }
    }
}

impl PortRef {
    fn yaml(&self) -> String {
        match self {
            PortRef::Number(number) => number.to_string(),
            PortRef::Name(name) => format!("\"{name}\""),
        }
    }
}
