//! One lifecycle truth: over generated pod specs, the findings of `check` and the timeline of
//! `explain` never contradict each other, no two rules state different times or grace periods
//! for one pod, and every time the model computes has its bounds in order.
//!
//! Rules record the times their messages state as claims (`podcycle::rules::Claim`); each
//! claim is held to the value `explain` writes for the same pod (read back from its JSON), and
//! to the message that states it.

use proptest::prelude::*;
use serde_json::Value;

use podcycle::explain::{PodSource, explain_pod};
use podcycle::lifecycle::{Lifecycle, ProbeKind, Sidecars};
use podcycle::model::{ObjectRef, PodSite, WorkloadKind};
use podcycle::rules::{ALL_RULES, Check, Claim, Findings, PodContext};
use podcycle::text;
use podcycle::versions::KubeVersion;

/// A generated container: its list, command, hooks and probes.
#[derive(Clone, Debug)]
struct GenContainer {
    /// 0: classic init container, 1: `restartPolicy: Always` init container, 2: app container.
    list: u8,
    command: u8,
    seconds: i64,
    post_start: u8,
    pre_stop: u8,
    probes: [Option<GenProbe>; 3],
    /// Declares the port named `http`.
    declares_http: bool,
}

#[derive(Clone, Copy, Debug)]
struct GenProbe {
    /// 0: exec; 1: httpGet on the named port `http`, which the container may not declare;
    /// 2: tcpSocket on a port number.
    handler: u8,
    delay: i32,
    period: i32,
    timeout: i32,
    failures: i32,
    successes: i32,
    grace: Option<i64>,
}

fn probe() -> impl Strategy<Value = GenProbe> {
    (
        0..3u8,
        -2..40i32,
        -2..30i32,
        -2..60i32,
        -1..6i32,
        0..4i32,
        proptest::option::of(-1..40i64),
    )
        .prop_map(
            |(handler, delay, period, timeout, failures, successes, grace)| GenProbe {
                handler,
                delay,
                period,
                timeout,
                failures,
                successes,
                grace,
            },
        )
}

fn container() -> impl Strategy<Value = GenContainer> {
    (
        0..3u8,
        0..5u8,
        -3..90i64,
        0..6u8,
        0..6u8,
        [
            proptest::option::of(probe()),
            proptest::option::of(probe()),
            proptest::option::of(probe()),
        ],
        proptest::bool::ANY,
    )
        .prop_map(
            |(list, command, seconds, post_start, pre_stop, probes, declares_http)| GenContainer {
                list,
                command,
                seconds,
                post_start,
                pre_stop,
                probes,
                declares_http,
            },
        )
}

/// The pod spec, as JSON, of generated containers.
fn spec(containers: &[GenContainer], grace: Option<i64>, deadline: Option<i64>) -> Value {
    let hook = |kind: u8, seconds: i64| match kind {
        1 => Some(serde_json::json!({"sleep": {"seconds": seconds}})),
        2 => Some(serde_json::json!({"exec": {"command": ["sleep", seconds.to_string()]}})),
        3 => Some(
            serde_json::json!({"exec": {"command": ["sh", "-c", format!("sleep {seconds}; /drain")]}}),
        ),
        4 => Some(serde_json::json!({"tcpSocket": {"port": 80}})),
        5 => Some(serde_json::json!({"httpGet": {"path": "/", "port": "undeclared"}})),
        _ => None,
    };
    let mut init = Vec::new();
    let mut app = Vec::new();
    for (index, c) in containers.iter().enumerate() {
        let mut value = serde_json::json!({"name": format!("c{index}"), "image": "example/c:1"});
        let command = match c.command {
            1 => Some(serde_json::json!(["sleep", c.seconds.to_string()])),
            2 => Some(serde_json::json!([
                "sh",
                "-c",
                format!("sleep {}; /run", c.seconds)
            ])),
            3 => Some(serde_json::json!(["sh", "-c", "tail -f /dev/null"])),
            _ => None,
        };
        if let Some(command) = command {
            value["command"] = command;
        }
        if c.list == 1 {
            value["restartPolicy"] = "Always".into();
        }
        if c.declares_http {
            value["ports"] = serde_json::json!([{"name": "http", "containerPort": 8080}]);
        }
        let mut lifecycle = serde_json::Map::new();
        if let Some(h) = hook(c.post_start, c.seconds) {
            lifecycle.insert("postStart".to_owned(), h);
        }
        if let Some(h) = hook(c.pre_stop, c.seconds + 7) {
            lifecycle.insert("preStop".to_owned(), h);
        }
        if !lifecycle.is_empty() {
            value["lifecycle"] = Value::Object(lifecycle);
        }
        for (field, probe) in ["startupProbe", "readinessProbe", "livenessProbe"]
            .into_iter()
            .zip(c.probes)
        {
            let Some(p) = probe else { continue };
            let handler = match p.handler {
                1 => ("httpGet", serde_json::json!({"path": "/", "port": "http"})),
                2 => ("tcpSocket", serde_json::json!({"port": 8080})),
                _ => ("exec", serde_json::json!({"command": ["true"]})),
            };
            let mut probe = serde_json::json!({
                handler.0: handler.1,
                "initialDelaySeconds": p.delay,
                "periodSeconds": p.period,
                "timeoutSeconds": p.timeout,
                "failureThreshold": p.failures,
                "successThreshold": p.successes,
            });
            if let (Some(grace), false) = (p.grace, field == "readinessProbe") {
                probe["terminationGracePeriodSeconds"] = grace.into();
            }
            value[field] = probe;
        }
        if c.list == 2 {
            app.push(value);
        } else {
            init.push(value);
        }
    }
    let mut spec = serde_json::json!({"initContainers": init, "containers": app});
    if let Some(grace) = grace {
        spec["terminationGracePeriodSeconds"] = grace.into();
    }
    if let Some(deadline) = deadline {
        spec["activeDeadlineSeconds"] = deadline.into();
    }
    spec
}

/// The object holding the pod spec, for `kind`.
fn object(kind: WorkloadKind, spec: Value, job_deadline: Option<i64>) -> Value {
    let template = serde_json::json!({"metadata": {"labels": {"app": "x"}}, "spec": spec});
    match kind {
        WorkloadKind::Pod => {
            serde_json::json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": template["spec"]})
        }
        WorkloadKind::Job => {
            let mut job = serde_json::json!({"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "p"}, "spec": {"template": template}});
            if let Some(deadline) = job_deadline {
                job["spec"]["activeDeadlineSeconds"] = deadline.into();
            }
            job
        }
        _ => {
            serde_json::json!({"apiVersion": "apps/v1", "kind": kind.name(), "metadata": {"name": "p"},
            "spec": {"selector": {"matchLabels": {"app": "x"}}, "template": template}})
        }
    }
}

/// Runs every pod rule on the pod and explains it; checks the three properties.
fn check_pod(kind: WorkloadKind, value: &Value, kube: KubeVersion, job_deadline: Option<i64>) {
    let decoded = podcycle_k8s::decode_json(kind, value);
    let Some(workload) = decoded.workload else {
        return;
    };
    let Some(spec) = workload.pod_spec.as_ref() else {
        return;
    };
    let object = ObjectRef {
        api_version: "v1".to_owned(),
        kind: kind.name().to_owned(),
        name: Some("p".to_owned()),
        namespace: None,
    };
    let mut site = PodSite::new(&object, kind, spec, workload.has_pod_failure_policy);
    site.job_active_deadline_seconds = job_deadline;
    let sidecars = Sidecars::default();
    let life = Lifecycle::derive(&site, &sidecars, kube);
    let context = PodContext {
        site: &site,
        life: &life,
        kube,
        services: &[],
    };
    let mut findings = Findings::default();
    let mut claims: Vec<(&str, String, Claim)> = Vec::new();
    for rule in ALL_RULES {
        if let Check::Pod(check) = rule.check {
            check(&context, &mut findings);
            for finding in findings.take() {
                for claim in finding.claims {
                    claims.push((rule.name, finding.message.clone(), claim));
                }
            }
        }
    }
    let explanation = explain_pod(PodSource {
        file: "p.yaml",
        line: 1,
        object: &object,
        spec_path: site.spec_path.to_string(),
        life: &life,
        readiness_gates: false,
        active_deadline_seconds: spec.active_deadline_seconds,
        findings: Vec::<podcycle::report::JsonDiagnostic>::new(),
    });
    let shown = serde_json::to_value(&explanation).expect("the explanation serializes");

    // (a) Every time a finding states is the time `explain` shows, and its message says it.
    for (rule, message, claim) in &claims {
        let (explained, said) = explained(&shown, kind, claim);
        assert_eq!(
            explained.as_ref(),
            Some(&said.0),
            "{rule} claims {claim:?} in `{message}`, explain shows {explained:?}\n{value}"
        );
        for words in said.1 {
            assert!(
                message.contains(&words),
                "{rule} claims {claim:?} but its message does not say `{words}`: {message}"
            );
        }
    }
    // (b) No two rules state different values for the same thing.
    for (rule, _, claim) in &claims {
        for (other, _, other_claim) in &claims {
            if same_subject(claim, other_claim) {
                assert_eq!(claim, other_claim, "{rule} and {other} disagree");
            }
        }
    }
    // (c) Bounds are in order.
    ordered(&shown);
}

/// What `explain` shows for the subject of a claim (as a comparable string), and the claim's
/// own value with the words its message must contain.
fn explained(
    shown: &Value,
    kind: WorkloadKind,
    claim: &Claim,
) -> (Option<String>, (String, Vec<String>)) {
    let probe_of = |container: usize, probe: ProbeKind| {
        let field = match probe {
            ProbeKind::Startup => "startup",
            ProbeKind::Readiness => "readiness",
            ProbeKind::Liveness => "liveness",
        };
        shown["startup"][container]["probes"][field].clone()
    };
    let range = |value: &Value| {
        let number = |v: &Value| v.as_f64().unwrap_or(f64::INFINITY);
        format!("{}..{}", number(&value["min"]), number(&value["max"]))
    };
    let secs = |v: f64| format!("{v}");
    // A claim's value, with the words its message must contain.
    let claimed_seconds = |v: f64| (secs(v), vec![text::seconds(v)]);
    let claimed_range = |min: f64, max: f64| (format!("{min}..{max}"), vec![text::range(min, max)]);
    let claimed_grace = |grace: i64| (grace.to_string(), vec![format!("{grace}s")]);
    match claim {
        Claim::DeletionGrace(grace) => (
            shown["shutdown"]["effective_grace_period_seconds"]
                .as_i64()
                .map(|g| g.to_string()),
            claimed_grace(*grace),
        ),
        Claim::SpecGrace(grace) => (
            shown["shutdown"]["grace_period_seconds"]
                .as_i64()
                .map(|g| g.to_string()),
            claimed_grace(*grace),
        ),
        Claim::StopWindow { container, seconds } => {
            let name = &shown["startup"][*container]["container"];
            let stop = shown["shutdown"]["containers"]
                .as_array()
                .and_then(|stops| stops.iter().find(|s| &s["container"] == name));
            (
                stop.and_then(|s| s["term_window_bounds_seconds"]["max"].as_f64())
                    .map(secs),
                claimed_seconds(*seconds),
            )
        }
        Claim::ProbeFailure {
            container,
            probe,
            bounds,
        } => (
            Some(range(&probe_of(*container, *probe)["fails_after_seconds"])),
            claimed_range(bounds.min, bounds.max),
        ),
        Claim::ProbeInterval {
            container,
            probe,
            seconds,
        } => (
            probe_of(*container, *probe)["interval_seconds"]["max"]
                .as_f64()
                .map(secs),
            claimed_seconds(*seconds),
        ),
        Claim::UnansweredKill {
            container,
            probe,
            bounds,
        } => (
            Some(range(
                &probe_of(*container, *probe)["window_bounds_seconds"],
            )),
            claimed_range(bounds.min, bounds.max),
        ),
        Claim::ProbeKill {
            container,
            probe,
            grace,
            window,
        } => {
            let kill = &probe_of(*container, *probe)["kill"];
            (
                Some(format!(
                    "{}/{}",
                    kill["grace_period_seconds"],
                    kill["term_window_seconds"]["max"].as_f64().unwrap_or(-1.0)
                )),
                (
                    format!("{grace}/{window}"),
                    vec![format!("{grace}s"), text::seconds(*window)],
                ),
            )
        }
        Claim::CertainReady(seconds) => (
            shown["earliest_ready_seconds"].as_f64().map(secs),
            claimed_seconds(*seconds),
        ),
        Claim::NeverReady => (
            Some(
                shown["earliest_ready_seconds"]
                    .as_f64()
                    .map_or_else(|| "never".to_owned(), secs),
            ),
            ("never".to_owned(), vec!["never".to_owned()]),
        ),
        Claim::NeverExits { container } => {
            let step = &shown["startup"][*container];
            let never = step["exit_seconds"]["min"].is_null() && step["never_exits"].is_string();
            (
                Some(if never { "never" } else { "exits" }.to_owned()),
                ("never".to_owned(), Vec::new()),
            )
        }
        Claim::PrestopRejected { container } => {
            let name = &shown["startup"][*container]["container"];
            let stop = shown["shutdown"]["containers"]
                .as_array()
                .and_then(|stops| stops.iter().find(|s| &s["container"] == name));
            (
                stop.map(|s| s["prestop_rejected"].to_string()),
                ("true".to_owned(), vec!["rejects".to_owned()]),
            )
        }
        Claim::ProgressDeadline(_)
        | Claim::AttemptsWithinDeadline { .. }
        | Claim::MaxUnavailablePods { .. }
        | Claim::CertainUpdate(_) => {
            panic!("{claim:?} is a rollout claim; pod rules do not make it")
        }
        Claim::CertainStartup(seconds) => {
            let shown_seconds = if matches!(kind, WorkloadKind::Job | WorkloadKind::CronJob) {
                shown["startup"]
                    .as_array()
                    .and_then(|steps| steps.last())
                    .and_then(|step| step["start_seconds"]["min"].as_f64())
            } else {
                shown["started_seconds"]["min"].as_f64()
            };
            (shown_seconds.map(secs), claimed_seconds(*seconds))
        }
    }
}

fn same_subject(a: &Claim, b: &Claim) -> bool {
    use Claim::*;
    match (a, b) {
        (DeletionGrace(_), DeletionGrace(_)) | (SpecGrace(_), SpecGrace(_)) => true,
        (CertainStartup(_), CertainStartup(_))
        | (CertainReady(_), CertainReady(_))
        | (NeverReady, NeverReady) => true,
        (NeverExits { container: x }, NeverExits { container: y })
        | (PrestopRejected { container: x }, PrestopRejected { container: y }) => x == y,
        (StopWindow { container: x, .. }, StopWindow { container: y, .. }) => x == y,
        (
            ProbeFailure {
                container: x,
                probe: p,
                ..
            },
            ProbeFailure {
                container: y,
                probe: q,
                ..
            },
        )
        | (
            ProbeInterval {
                container: x,
                probe: p,
                ..
            },
            ProbeInterval {
                container: y,
                probe: q,
                ..
            },
        )
        | (
            UnansweredKill {
                container: x,
                probe: p,
                ..
            },
            UnansweredKill {
                container: y,
                probe: q,
                ..
            },
        )
        | (
            ProbeKill {
                container: x,
                probe: p,
                ..
            },
            ProbeKill {
                container: y,
                probe: q,
                ..
            },
        ) => x == y && p == q,
        _ => false,
    }
}

/// Earliest ≤ latest everywhere; start ≤ running ≤ started ≤ ready; SIGTERM ≤ SIGKILL ≤ grace
/// + 2 on deletion.
fn ordered(shown: &Value) {
    let bound = |v: &Value| v.as_f64().unwrap_or(f64::INFINITY);
    let check_range = |what: &str, v: &Value| {
        if v.is_null() {
            return;
        }
        assert!(
            bound(&v["min"]) <= bound(&v["max"]),
            "{what}: {v} is out of order"
        );
    };
    for step in shown["startup"].as_array().into_iter().flatten() {
        let name = step["container"].as_str().unwrap_or_default();
        let chain = [
            "start_seconds",
            "running_seconds",
            "started_seconds",
            "ready_seconds",
        ];
        for key in chain {
            check_range(&format!("{name}.{key}"), &step[key]);
        }
        for pair in chain.windows(2) {
            let (a, b) = (&step[pair[0]], &step[pair[1]]);
            if a.is_null() || b.is_null() {
                continue;
            }
            for end in ["min", "max"] {
                assert!(
                    bound(&a[end]) <= bound(&b[end]),
                    "{name}: {} {end} {} after {} {end} {}",
                    pair[0],
                    a[end],
                    pair[1],
                    b[end]
                );
            }
        }
        for probe in step["probes"]
            .as_object()
            .into_iter()
            .flat_map(|p| p.values())
        {
            for key in [
                "interval_seconds",
                "fails_after_seconds",
                "recovers_after_seconds",
                "window_bounds_seconds",
            ] {
                check_range(&format!("{name} probe {key}"), &probe[key]);
            }
            let kill = &probe["kill"];
            if !kill.is_null() {
                check_range("probe kill sigterm", &kill["sigterm_seconds"]);
                check_range("probe kill sigkill", &kill["sigkill_seconds"]);
                assert!(
                    bound(&kill["sigterm_seconds"]["max"])
                        <= bound(&kill["sigkill_seconds"]["max"])
                );
            }
        }
    }
    let shutdown = &shown["shutdown"];
    let limit = bound(&shutdown["effective_grace_period_seconds"]) + 2.0;
    for stop in shutdown["containers"].as_array().into_iter().flatten() {
        for key in [
            "sigterm_seconds",
            "term_window_bounds_seconds",
            "sigkill_seconds",
        ] {
            check_range(key, &stop[key]);
        }
        let (sigterm, sigkill) = (&stop["sigterm_seconds"], &stop["sigkill_seconds"]);
        assert!(bound(&sigterm["min"]) <= bound(&sigkill["min"]), "{stop}");
        assert!(bound(&sigterm["max"]) <= bound(&sigkill["max"]), "{stop}");
        assert!(
            bound(&sigkill["max"]) <= limit,
            "SIGKILL after grace + 2: {stop}"
        );
    }
    assert!(bound(&shutdown["hard_bound_seconds"]) <= limit);
}

const VERSIONS: [u16; 6] = [24, 27, 28, 29, 33, 35];
const KINDS: [WorkloadKind; 4] = [
    WorkloadKind::Pod,
    WorkloadKind::Job,
    WorkloadKind::StatefulSet,
    WorkloadKind::Deployment,
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn check_and_explain_tell_one_truth(
        containers in proptest::collection::vec(container(), 0..6),
        grace in proptest::option::of(-3..80i64),
        deadline in proptest::option::of(1..200i64),
        job_deadline in proptest::option::of(1..200i64),
        kind in 0..KINDS.len(),
        version in 0..VERSIONS.len(),
    ) {
        let kind = KINDS[kind];
        let value = object(kind, spec(&containers, grace, deadline), job_deadline);
        let job_deadline = job_deadline.filter(|_| kind == WorkloadKind::Job);
        check_pod(kind, &value, KubeVersion::new(VERSIONS[version]), job_deadline);
    }
}

/// The cases the consistency review named, pinned.
#[test]
fn zero_grace_with_a_prestop_sleep_is_one_second_everywhere() {
    let spec = serde_json::json!({
        "terminationGracePeriodSeconds": 0,
        "containers": [{"name": "app", "image": "example/app:1",
            "lifecycle": {"preStop": {"sleep": {"seconds": 5}}}}]
    });
    let value = object(WorkloadKind::Pod, spec, None);
    check_pod(WorkloadKind::Pod, &value, KubeVersion::new(35), None);
}

#[test]
fn an_init_sleep_is_in_the_deadline_and_the_timeline() {
    let spec = serde_json::json!({
        "restartPolicy": "Never",
        "activeDeadlineSeconds": 30,
        "initContainers": [{"name": "wait", "image": "busybox", "command": ["sleep", "60"]}],
        "containers": [{"name": "work", "image": "example/work:1"}]
    });
    let value = object(WorkloadKind::Pod, spec, None);
    check_pod(WorkloadKind::Pod, &value, KubeVersion::new(35), None);
}
