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
use podcycle::lint::run_pod_rules;
use podcycle::model::{ObjectRef, PodSite, WorkloadKind};
use podcycle::rules::{Claim, PodContext};
use podcycle::settings::{Selection, Selector, Settings};
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

/// Settings with every rule on, pedantic and nursery ones too.
fn every_rule() -> &'static Settings {
    static SETTINGS: std::sync::OnceLock<Settings> = std::sync::OnceLock::new();
    SETTINGS.get_or_init(|| {
        Settings::default().with_selection(&Selection {
            select: vec![Selector::All],
            ..Selection::default()
        })
    })
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
        platforms: &[],
    };
    let mut claims: Vec<(&str, String, Claim)> = Vec::new();
    // The loop `check` runs for every pod, with every rule on.
    run_pod_rules(&context, every_rule(), &mut |rule, finding| {
        for claim in finding.claims {
            claims.push((rule.name, finding.message.clone(), claim));
        }
    });
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
    agree(&claims, &shown, None, kind, &value.to_string());
}

/// The three properties, for the claims of the findings on one object: (a) every time a
/// finding states is the time `explain` shows (`pod`, and for a rollout claim `rollout`, the
/// JSON of `explain` and `explain --rollout`), and its message says it; (b) no two rules state
/// different values for the same thing; (c) bounds are in order.
fn agree(
    claims: &[(&str, String, Claim)],
    pod: &Value,
    rollout: Option<&Value>,
    kind: WorkloadKind,
    input: &str,
) {
    for (rule, message, claim) in claims {
        let (explained, said) = match (rollout, explained_rollout(rollout, claim)) {
            (_, Some(found)) => found,
            (_, None) => explained(pod, kind, claim),
        };
        assert_eq!(
            explained.as_ref(),
            Some(&said.0),
            "{rule} claims {claim:?} in `{message}`, explain shows {explained:?}\n{input}"
        );
        for words in said.1 {
            assert!(
                message.contains(&words),
                "{rule} claims {claim:?} but its message does not say `{words}`: {message}"
            );
        }
    }
    for (rule, _, claim) in claims {
        for (other, _, other_claim) in claims {
            if same_subject(claim, other_claim) {
                assert_eq!(claim, other_claim, "{rule} and {other} disagree");
            }
        }
    }
    ordered(pod);
    if let Some(rollout) = rollout {
        ordered_rollout(rollout);
    }
}

/// What `explain --rollout` shows for a rollout claim (`None` for a claim about the pod), and
/// the claim's value with the words its message must contain.
#[allow(clippy::type_complexity)]
fn explained_rollout(
    rollout: Option<&Value>,
    claim: &Claim,
) -> Option<(Option<String>, (String, Vec<String>))> {
    let number = |v: &Value| v.as_f64().map(|n| format!("{n}"));
    let missing = Value::Null;
    let rollout = rollout.unwrap_or(&missing);
    Some(match claim {
        Claim::ProgressDeadline(seconds) => (
            number(&rollout["deployment"]["progress_deadline_seconds"]),
            (
                format!("{}", f64::from(*seconds)),
                vec![format!("{seconds}s")],
            ),
        ),
        Claim::AttemptsWithinDeadline { fit, allowed } => (
            Some(format!(
                "{}/{}",
                rollout["job"]["attempts_within_deadline"], rollout["job"]["attempts_allowed"]
            )),
            (
                format!("{fit}/{allowed}"),
                vec![format!("at most {fit} of the {allowed} attempts")],
            ),
        ),
        Claim::MaxUnavailablePods { pods, replicas } => {
            let shown = if rollout["deployment"].is_object() {
                format!(
                    "{}/{}",
                    rollout["deployment"]["max_unavailable"]["pods_at_fewest"],
                    rollout["replicas"]["fewest"]
                )
            } else {
                format!(
                    "{}/{}",
                    rollout["statefulset"]["replaced_at_once"], rollout["replicas"]["fewest"]
                )
            };
            (
                Some(shown),
                (format!("{pods}/{replicas}"), vec![format!("{replicas}")]),
            )
        }
        Claim::CertainUpdate(seconds) => (
            number(&rollout["statefulset"]["update_seconds"]["min"]),
            (format!("{seconds}"), vec![text::seconds(*seconds)]),
        ),
        // The pod's earliest Ready, the same in both views.
        Claim::CertainReady(seconds) if rollout.is_object() => (
            number(&rollout["pod"]["earliest_ready_seconds"]),
            (format!("{seconds}"), vec![text::seconds(*seconds)]),
        ),
        _ => return None,
    })
}

/// A rollout's times are in order: every wave starts before its first pod is Ready and ends
/// after it; waves follow each other; the rollout completes after the last.
fn ordered_rollout(rollout: &Value) {
    let bound = |v: &Value| v.as_f64().unwrap_or(f64::INFINITY);
    let mut previous_end = 0.0;
    for wave in rollout["deployment"]["waves"]
        .as_array()
        .into_iter()
        .flatten()
    {
        let (start, ready, end) = (
            bound(&wave["start_seconds"]["min"]),
            bound(&wave["ready_seconds"]["min"]),
            bound(&wave["end_seconds"]["min"]),
        );
        assert!(start <= ready && ready <= end, "wave out of order: {wave}");
        assert!(start >= previous_end, "waves overlap: {wave}");
        assert!(
            wave["new_pods"].as_i64().unwrap_or(0) > 0,
            "an empty wave: {wave}"
        );
        previous_end = end;
    }
    if let Some(complete) = rollout["deployment"]["complete_seconds"]["min"].as_f64() {
        assert!(
            complete >= previous_end,
            "completes before its last wave ends"
        );
    }
    let attempts = rollout["job"]["attempts"].as_array().into_iter().flatten();
    let mut previous = -1.0;
    for attempt in attempts {
        let start = bound(&attempt["start_seconds"]);
        assert!(start >= previous, "attempts out of order: {rollout}");
        previous = start;
    }
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

// ---- rollouts: the pipeline's own visit, checked and explained ----

use podcycle::explain::{RolloutSource, explain_rollout};
use podcycle::lint::{FileRole, Visit, Within, lint_file};
use podcycle::rules::{Check, Findings, RolloutContext};
use podcycle::source::SourceFile;

/// Lints `text` and explains every workload in it — its pod and its rollout — from the one
/// visit of the pipeline that `check` and `explain` make, and holds every claim of the rules to
/// both explanations.
fn check_file(path: &str, text: &str, settings: &Settings) {
    let file = SourceFile::new(path.to_owned(), text.to_owned());
    let kube = settings.kube_version;
    lint_file(
        &file,
        settings,
        FileRole::Manifest,
        Within::Itself,
        &mut |visit| {
            let Visit::Object(visit) = visit else {
                return;
            };
            let Some((site, life)) = visit.pod else {
                return;
            };
            let mut claims: Vec<(&str, String, Claim)> = Vec::new();
            let mut findings = Findings::default();
            let mut collect = |rule: &'static podcycle::rules::Rule, findings: &mut Findings| {
                for finding in findings.take() {
                    for claim in finding.claims {
                        claims.push((rule.name, finding.message.clone(), claim));
                    }
                }
            };
            let pod_context = PodContext {
                site,
                life,
                kube,
                services: &[],
                platforms: &[],
            };
            // An object Kubernetes refuses has no rollout: no rollout rule judges it.
            let rejected = podcycle::diagnostics::rejects(visit.diagnostics);
            for rule in settings.rules() {
                match (rule.check, visit.rollout.filter(|_| !rejected)) {
                    (Check::Pod(check), _) => {
                        check(&pod_context, &mut findings);
                        collect(rule, &mut findings);
                    }
                    (Check::Rollout(check), Some(rollout)) => {
                        check(
                            &RolloutContext {
                                site,
                                life,
                                rollout,
                                kube,
                                rollout_budget_seconds: settings.rollout_budget_seconds,
                            },
                            &mut findings,
                        );
                        collect(rule, &mut findings);
                    }
                    _ => {}
                }
            }
            let pod = explain_pod(PodSource {
                file: path,
                line: 1,
                object: &visit.object.object,
                spec_path: site.spec_path.to_string(),
                life,
                readiness_gates: false,
                active_deadline_seconds: site.spec.active_deadline_seconds,
                findings: Vec::<podcycle::report::JsonDiagnostic>::new(),
            });
            let pod = serde_json::to_value(&pod).expect("the explanation serializes");
            let rollout = visit.rollout.map(|rollout| {
                let explained = explain_rollout(RolloutSource {
                    file: path,
                    line: 1,
                    object: &visit.object.object,
                    life,
                    rollout,
                    rejected,
                    findings: Vec::<podcycle::report::JsonDiagnostic>::new(),
                });
                serde_json::to_value(&explained).expect("the rollout serializes")
            });
            if let Some(rollout) = &rollout {
                assert_eq!(
                    rollout["pod"]["earliest_ready_seconds"], pod["earliest_ready_seconds"],
                    "the pod and rollout views disagree on when the pod is Ready\n{text}"
                );
            }
            agree(&claims, &pod, rollout.as_ref(), site.kind, text);
        },
    );
}

/// Every rule fixture and every file of `testdata/`, each linted and explained as `check`
/// and `explain` (pod and `--rollout`) do it.
#[test]
fn fixtures_and_testdata_tell_one_truth() {
    let mut checked = 0;
    let manifests = |root: &str| crate::common::manifests(std::path::Path::new(root));
    for path in manifests("rules").into_iter().chain(manifests("testdata")) {
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        let all = Settings::from_selectors(&[podcycle::settings::Selector::All], &[], &[]);
        let settings = crate::common::with_header_options(&text, all);
        check_file(&path.display().to_string(), &text, &settings);
        checked += 1;
    }
    assert!(checked > 200, "only {checked} files were read");
}

/// A count written as a number or a percentage.
fn amount() -> impl Strategy<Value = Value> {
    prop_oneof![
        (0..6i32).prop_map(Value::from),
        (0..130i32).prop_map(|p| Value::from(format!("{p}%"))),
    ]
}

/// A workload controller around generated containers, with the fields that pace its rollout,
/// and perhaps a budget and an autoscaler over it.
#[derive(Clone, Debug)]
struct GenRollout {
    kind: u8,
    replicas: Option<i32>,
    min_ready: Option<i32>,
    deadline: Option<i32>,
    surge: Option<Value>,
    unavailable: Option<Value>,
    /// Deployment `Recreate`, StatefulSet `Parallel`, Job `OnFailure`.
    variant: bool,
    partition: Option<i32>,
    backoff_limit: Option<i32>,
    active_deadline: Option<i64>,
    parallelism: Option<i32>,
    autoscaler: Option<(i32, i32)>,
    budget: Option<(bool, Value)>,
}

fn rollout() -> impl Strategy<Value = GenRollout> {
    (
        (
            0..5u8,
            proptest::option::of(0..12i32),
            proptest::option::of(0..200i32),
            proptest::option::of(1..700i32),
            proptest::option::of(amount()),
            proptest::option::of(amount()),
            proptest::bool::ANY,
        ),
        (
            proptest::option::of(0..8i32),
            proptest::option::of(0..12i32),
            proptest::option::of(1..900i64),
            proptest::option::of(1..4i32),
            proptest::option::of((1..6i32, 1..12i32)),
            proptest::option::of((proptest::bool::ANY, amount())),
        ),
    )
        .prop_map(
            |(
                (kind, replicas, min_ready, deadline, surge, unavailable, variant),
                (partition, backoff_limit, active_deadline, parallelism, autoscaler, budget),
            )| GenRollout {
                kind,
                replicas,
                min_ready,
                deadline,
                surge,
                unavailable,
                variant,
                partition,
                backoff_limit,
                active_deadline,
                parallelism,
                autoscaler,
                budget,
            },
        )
}

impl GenRollout {
    /// The manifest: the workload, then its budget and autoscaler, as a stream of JSON
    /// documents (which YAML reads as they are).
    fn manifest(&self, spec: Value) -> String {
        let template = serde_json::json!({"metadata": {"labels": {"app": "x"}}, "spec": spec});
        let selector = serde_json::json!({"matchLabels": {"app": "x"}});
        let (api_version, kind) = match self.kind {
            0 => ("apps/v1", "Deployment"),
            1 => ("apps/v1", "StatefulSet"),
            2 => ("apps/v1", "DaemonSet"),
            3 => ("batch/v1", "Job"),
            _ => ("batch/v1", "CronJob"),
        };
        let mut spec = serde_json::json!({});
        match self.kind {
            0 => {
                spec = serde_json::json!({"selector": selector, "template": template});
                if let Some(deadline) = self.deadline {
                    spec["progressDeadlineSeconds"] = deadline.into();
                }
                let mut strategy = serde_json::json!({});
                if self.variant {
                    strategy["type"] = "Recreate".into();
                } else {
                    let mut rolling = serde_json::json!({});
                    if let Some(surge) = &self.surge {
                        rolling["maxSurge"] = surge.clone();
                    }
                    if let Some(unavailable) = &self.unavailable {
                        rolling["maxUnavailable"] = unavailable.clone();
                    }
                    strategy["rollingUpdate"] = rolling;
                }
                spec["strategy"] = strategy;
            }
            1 => {
                spec = serde_json::json!({"selector": selector, "template": template, "serviceName": "x"});
                if self.variant {
                    spec["podManagementPolicy"] = "Parallel".into();
                }
                let mut rolling = serde_json::json!({});
                if let Some(partition) = self.partition {
                    rolling["partition"] = partition.into();
                }
                if let Some(unavailable) = &self.unavailable {
                    rolling["maxUnavailable"] = unavailable.clone();
                }
                spec["updateStrategy"] = serde_json::json!({"rollingUpdate": rolling});
            }
            2 => {
                spec = serde_json::json!({"selector": selector, "template": template});
                let mut rolling = serde_json::json!({});
                if let Some(surge) = &self.surge {
                    rolling["maxSurge"] = surge.clone();
                }
                if let Some(unavailable) = &self.unavailable {
                    rolling["maxUnavailable"] = unavailable.clone();
                }
                spec["updateStrategy"] = serde_json::json!({"rollingUpdate": rolling});
            }
            _ => {
                let mut job = serde_json::json!({"template": template});
                job["template"]["spec"]["restartPolicy"] =
                    if self.variant { "OnFailure" } else { "Never" }.into();
                if let Some(limit) = self.backoff_limit {
                    job["backoffLimit"] = limit.into();
                }
                if let Some(deadline) = self.active_deadline {
                    job["activeDeadlineSeconds"] = deadline.into();
                }
                if let Some(parallelism) = self.parallelism {
                    job["parallelism"] = parallelism.into();
                }
                spec = if self.kind == 3 {
                    job
                } else {
                    serde_json::json!({"schedule": "*/5 * * * *", "jobTemplate": {"spec": job}})
                };
            }
        }
        if self.kind < 3 {
            if let Some(replicas) = self.replicas.filter(|_| self.kind < 2) {
                spec["replicas"] = replicas.into();
            }
            if let Some(min_ready) = self.min_ready {
                spec["minReadySeconds"] = min_ready.into();
            }
        }
        let workload = serde_json::json!({
            "apiVersion": api_version, "kind": kind, "metadata": {"name": "w"}, "spec": spec,
        });
        let mut documents = vec![workload];
        if let Some((min, extra)) = self.autoscaler {
            documents.push(serde_json::json!({
                "apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler",
                "metadata": {"name": "w"},
                "spec": {"scaleTargetRef": {"apiVersion": api_version, "kind": kind, "name": "w"},
                         "minReplicas": min, "maxReplicas": min + extra},
            }));
        }
        if let Some((min_available, value)) = &self.budget {
            let field = if *min_available {
                "minAvailable"
            } else {
                "maxUnavailable"
            };
            documents.push(serde_json::json!({
                "apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
                "metadata": {"name": "w"},
                "spec": {field: value, "selector": {"matchLabels": {"app": "x"}}},
            }));
        }
        documents
            .iter()
            .map(|d| format!("---\n{d}\n"))
            .collect::<String>()
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(192))]

    #[test]
    fn check_and_explain_tell_one_truth_about_rollouts(
        workload in rollout(),
        containers in proptest::collection::vec(container(), 1..4),
        grace in proptest::option::of(-1..80i64),
        version in 0..VERSIONS.len(),
    ) {
        let text = workload.manifest(spec(&containers, grace, None));
        let all = Settings::from_selectors(&[podcycle::settings::Selector::All], &[], &[])
            .with_kube_version(KubeVersion::new(VERSIONS[version]));
        check_file("generated.yaml", &text, &all);
    }
}
