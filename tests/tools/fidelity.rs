//! The differential test: podcycle against Kubernetes' own code (the oracle in `oracle/`,
//! docs/fidelity.md).
//!
//! Every rule fixture, every YAML example of the documentation, `testdata/`, the shared corpus
//! (`../shared/corpus`, when present) and a generated corpus of lifecycle-heavy pod specs go
//! through both tools, at the Kubernetes versions the oracle judges exactly:
//! - every podcycle finding that claims a rejection (`decoder`, `api-server`) must be matched by
//!   an oracle rejection of the same document at the same field, or a parent or child of it;
//! - every oracle rejection must be reported by podcycle as an error at a related field, when it
//!   is about the lifecycle (containers and their names, probes, hooks, restart policies, grace
//!   periods, deadlines, ports, the workload's apiVersion/kind, YAML itself); a rejection of any
//!   other field must match a pattern of `fidelity/out-of-scope.txt`, which says why podcycle
//!   leaves it alone.
//!
//! The oracle is built with `go build` into the target directory on first use. Without Go the
//! two comparisons are reported as ignored, with the reason, unless `PODCYCLE_REQUIRE_ORACLE=1`
//! (as in CI), where they fail.

mod coverage;
mod generate;

use std::collections::{BTreeMap, HashMap};
use std::ffi::OsString;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use std::time::Instant;

use libtest_mimic::Trial;
use podcycle::diagnostics::{Diagnostic, Severity};
use podcycle::discovery::roles::PatchIndex;
use podcycle::lint::{FileRole, Within, lint_file};
use podcycle::rules::{ALL_RULES, RUNTIME_ERRORS};
use podcycle::settings::{Selector, Settings};
use podcycle::source::SourceFile;
use podcycle::versions::{KubeVersion, NEWEST_MODELLED};
use podcycle::yaml::{Comments, for_each_document_with};
use proptest::strategy::ValueTree;
use serde::Deserialize;

use crate::common::with_header_options;
use crate::tool::{Tool, needs, test};

/// The tests of this file.
pub fn trials() -> Vec<Trial> {
    vec![
        needs(
            Tool::Oracle,
            "fidelity::fixtures_examples_testdata_and_corpus_agree_with_kubernetes",
            fixtures_examples_testdata_and_corpus_agree_with_kubernetes,
        ),
        needs(
            Tool::Oracle,
            "fidelity::generated_pod_specs_agree_with_kubernetes",
            generated_pod_specs_agree_with_kubernetes,
        ),
        needs(
            Tool::Oracle,
            "fidelity::rollout_counts_agree_with_kubernetes",
            rollout_counts_agree_with_kubernetes,
        ),
        needs(
            Tool::Oracle,
            "fidelity::restart_delays_agree_with_the_kubelet",
            restart_delays_agree_with_the_kubelet,
        ),
        needs(
            Tool::Oracle,
            "fidelity::coverage_table_lists_every_field_error_call",
            coverage::table_lists_every_field_error_call,
        ),
        test(
            "fidelity::allow_list_leaves_the_lifecycle_in_scope",
            allow_list_leaves_the_lifecycle_in_scope,
        ),
    ]
}

/// The versions the oracle judges exactly (oracle/README.md): Kubernetes 1.37's emulation range.
const EXACT: std::ops::RangeInclusive<u16> = 34..=37;

/// How many specs the generator makes in a default `cargo test` (about a minute and a half in a
/// debug build), and how many go into one file (one oracle invocation, one version in turn).
/// CI runs the full corpus with `PODCYCLE_FIDELITY_SPECS=100000` (docs/fidelity.md).
const GENERATED_SPECS: u64 = 10_000;
const SPECS_PER_FILE: u64 = 2_500;
/// The generator's fixed seed.
const SEED: u64 = 0x0bad_5eed;

fn repository() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The oracle binary, built once per test run (the trials that call this need Go).
fn oracle() -> &'static Path {
    static ORACLE: OnceLock<PathBuf> = OnceLock::new();
    ORACLE.get_or_init(|| {
        let binary = Path::new(env!("CARGO_TARGET_TMPDIR")).join("oracle");
        let started = Instant::now();
        let built = Command::new("go")
            .args(["build", "-o"])
            .arg(&binary)
            .arg(".")
            .current_dir(repository().join("oracle"))
            .status()
            .unwrap_or_else(|error| panic!("`go build` of oracle/ does not run: {error}"));
        assert!(built.success(), "`go build` of oracle/ failed ({built})");
        eprintln!("built the oracle in {:.1?}", started.elapsed());
        binary
    })
}

/// One problem the oracle found (oracle/README.md).
#[derive(Clone, Debug, Deserialize)]
struct Rejection {
    file: String,
    document: usize,
    kind: String,
    stage: String,
    field: String,
    #[serde(rename = "type")]
    kind_of_problem: String,
    detail: String,
    /// Where Kubernetes built the error, from a coverage build of the oracle only.
    #[serde(default)]
    origin: String,
}

/// The version the oracle judges a case at exactly, if any: the oracle emulates minors, whose
/// gates are their newest patch release's, so a patch release is judged at its minor when its
/// gates are the same, and not at all when a later patch changed a default (1.35.0 to 1.35.3
/// for `MaxUnavailableStatefulSet`).
fn oracle_version(version: KubeVersion) -> Option<KubeVersion> {
    (EXACT.contains(&version.minor) && version.gates_as_minor()).then(|| version.minor_only())
}

/// Runs the oracle on files for one version.
fn judge(files: &[PathBuf], version: KubeVersion) -> Vec<Rejection> {
    judge_with(oracle(), None, files, version)
}

/// Runs an oracle binary on files for one version; a coverage build writes its counters to
/// `coverage_dir`.
fn judge_with(
    oracle: &Path,
    coverage_dir: Option<&Path>,
    files: &[PathBuf],
    version: KubeVersion,
) -> Vec<Rejection> {
    let mut rejections = Vec::new();
    // Stay well under the command-line length limit.
    for batch in files.chunks(500) {
        // A cap on memory, so that a document that defeats the oracle cannot take the machine.
        let mut command = Command::new("sh");
        if let Some(dir) = coverage_dir {
            command.env("GOCOVERDIR", dir);
        }
        let output = command
            .arg("-c")
            .arg("ulimit -v 8000000 && exec \"$0\" \"$@\"")
            .arg(oracle)
            .arg("--kube-version")
            .arg(version.to_string())
            .args(batch)
            .output()
            .expect("the oracle runs");
        assert!(
            matches!(output.status.code(), Some(0 | 1)),
            "the oracle failed: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        for line in String::from_utf8_lossy(&output.stdout).lines() {
            rejections.push(serde_json::from_str(line).expect("the oracle prints JSON lines"));
        }
    }
    rejections
}

/// A file both tools judge.
struct Case {
    /// Where the file is (the oracle reads it from here).
    path: PathBuf,
    text: String,
    version: KubeVersion,
    /// Kustomize patches and kuttl assertions are partial objects that nobody applies with
    /// `kubectl apply -f`: only the YAML itself is compared.
    role: FileRole,
}

/// A podcycle finding, placed in its document.
#[derive(Debug)]
struct Finding<'d> {
    document: usize,
    diagnostic: &'d Diagnostic,
}

/// Whether one field path is the other, or a parent of it.
fn related(a: &str, b: &str) -> bool {
    let parent = |p: &str, c: &str| {
        c.strip_prefix(p)
            .is_some_and(|rest| rest.is_empty() || rest.starts_with('.') || rest.starts_with('['))
    };
    parent(a, b) || parent(b, a)
}

/// The index of the document each byte offset is in, by podcycle's reading of the stream.
fn document_starts(text: &str) -> Vec<(usize, usize)> {
    let mut starts = Vec::new();
    for_each_document_with(text, Comments::Skip, |document| {
        starts.push((document.span.start as usize, document.index));
    });
    starts
}

fn document_at(starts: &[(usize, usize)], offset: usize) -> usize {
    let after = starts.partition_point(|&(start, _)| start <= offset);
    after.checked_sub(1).map_or(0, |i| starts[i].1)
}

/// The fields podcycle judges: an oracle rejection of one of them must be a podcycle error.
fn in_scope(rejection: &Rejection) -> bool {
    const WORKLOADS: [&str; 9] = [
        "Pod",
        "PodTemplate",
        "ReplicationController",
        "Deployment",
        "ReplicaSet",
        "StatefulSet",
        "DaemonSet",
        "Job",
        "CronJob",
    ];
    let field = rejection.field.as_str();
    if rejection.stage == "decode" && field.is_empty() {
        // The document itself, as kubectl reads it: YAML syntax, separators. A type error
        // Kubernetes does not place (a quantity, an int-or-string) is matched by field below.
        return rejection.kind_of_problem != "TypeError";
    }
    if rejection.kind_of_problem == "DuplicateKey" {
        return true;
    }
    if matches!(field, "apiVersion" | "kind") {
        return WORKLOADS.contains(&rejection.kind.as_str());
    }
    // What paces a workload's rollout, and what bounds its drains and sets its replicas.
    let under = |prefix: &str| {
        field == prefix
            || field.starts_with(&format!("{prefix}."))
            || field.starts_with(&format!("{prefix}["))
    };
    match rejection.kind.as_str() {
        "PodDisruptionBudget" => {
            return field == "spec"
                || [
                    "spec.minAvailable",
                    "spec.maxUnavailable",
                    "spec.unhealthyPodEvictionPolicy",
                ]
                .iter()
                .any(|p| under(p));
        }
        "HorizontalPodAutoscaler" => {
            // `spec.metrics` itself: scaling to zero without a metric from outside the pods.
            return field == "spec.metrics"
                || [
                    "spec.minReplicas",
                    "spec.maxReplicas",
                    "spec.scaleTargetRef",
                ]
                .iter()
                .any(|p| under(p));
        }
        "Job" | "CronJob"
            if job_retry_field(field.strip_prefix("spec.jobTemplate.").unwrap_or(field)) =>
        {
            return true;
        }
        kind if WORKLOADS.contains(&kind)
            && [
                "spec.strategy",
                "spec.updateStrategy",
                "spec.replicas",
                "spec.minReadySeconds",
                "spec.progressDeadlineSeconds",
                "spec.revisionHistoryLimit",
                "spec.podManagementPolicy",
            ]
            .iter()
            .any(|p| under(p)) =>
        {
            return true;
        }
        _ => {}
    }
    let Some(rest) = field
        .split_once("ontainers[")
        .filter(|(before, _)| {
            before.ends_with(".c") || before.ends_with(".initC") || before.ends_with(".ephemeralC")
        })
        .map(|(_, after)| after)
    else {
        let last = field.rsplit('.').next().unwrap_or_default();
        return matches!(
            last,
            "restartPolicy"
                | "terminationGracePeriodSeconds"
                | "activeDeadlineSeconds"
                | "containers"
                | "initContainers"
        ) && field.contains("spec");
    };
    // `0]`, `0].name`, `0].livenessProbe…`
    let after_index = rest.split_once(']').map_or("", |(_, after)| after);
    let member = after_index
        .trim_start_matches('.')
        .split(['.', '['])
        .next()
        .unwrap_or_default();
    matches!(
        member,
        "" | "name"
            | "livenessProbe"
            | "readinessProbe"
            | "startupProbe"
            | "lifecycle"
            | "restartPolicy"
            | "restartPolicyRules"
            | "ports"
    )
}

/// A Job's retry limits and its failure policy's actions, from the Job spec: what decides when
/// the Job fails.
fn job_retry_field(field: &str) -> bool {
    let under = |prefix: &str| {
        field == prefix
            || field.starts_with(&format!("{prefix}."))
            || field.starts_with(&format!("{prefix}["))
    };
    under("spec.backoffLimit")
        || under("spec.backoffLimitPerIndex")
        || field
            .strip_prefix("spec.podFailurePolicy.rules[")
            .and_then(|rest| rest.split_once(']'))
            .is_some_and(|(index, after)| {
                index.bytes().all(|b| b.is_ascii_digit()) && after == ".action"
            })
}

/// `fidelity/out-of-scope.txt`: patterns of fields podcycle does not judge, each with its reason.
fn out_of_scope() -> Vec<(String, String)> {
    let text = include_str!("fidelity/out-of-scope.txt");
    text.lines()
        .filter(|line| !line.trim().is_empty() && !line.trim_start().starts_with('#'))
        .map(|line| {
            let (pattern, reason) = line.split_once('#').unwrap_or((line, ""));
            (pattern.trim().to_owned(), reason.trim().to_owned())
        })
        .collect()
}

/// Glob match where `*` stands for any run of characters.
fn glob(pattern: &str, text: &str) -> bool {
    let parts: Vec<&str> = pattern.split('*').collect();
    let mut rest = text;
    for (i, part) in parts.iter().enumerate() {
        if i == 0 {
            let Some(after) = rest.strip_prefix(part) else {
                return false;
            };
            rest = after;
        } else if i == parts.len() - 1 {
            return rest.ends_with(part);
        } else {
            let Some(at) = rest.find(part) else {
                return false;
            };
            rest = &rest[at + part.len()..];
        }
    }
    rest.is_empty()
}

/// What one comparison found.
#[derive(Default)]
struct Tally {
    files: usize,
    documents: usize,
    claims: usize,
    claims_confirmed: usize,
    /// Claims in a document the API server refuses before it validates (a decode error), or
    /// whose pod template it does not validate (an invalid selector), so they cannot be checked.
    claims_unverifiable: usize,
    /// Claims that the pods a custom resource's controller creates are refused, checked on
    /// the objects built from its templates (counted in `claims` and `claims_confirmed` too).
    claims_by_controller: usize,
    rejections: usize,
    rejections_reported: usize,
    rejections_out_of_scope: usize,
    problems: Vec<String>,
    /// The rejections by the call in Kubernetes that built them (a coverage build of the
    /// oracle names it): how podcycle answered each.
    calls: BTreeMap<String, CallTally>,
}

/// The rejections one field-error call of Kubernetes made, and podcycle's answer to them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct CallTally {
    rejections: usize,
    reported: usize,
    out_of_scope: usize,
}

impl Tally {
    fn add(&mut self, other: Tally) {
        self.files += other.files;
        self.documents += other.documents;
        self.claims += other.claims;
        self.claims_confirmed += other.claims_confirmed;
        self.claims_unverifiable += other.claims_unverifiable;
        self.claims_by_controller += other.claims_by_controller;
        self.rejections += other.rejections;
        self.rejections_reported += other.rejections_reported;
        self.rejections_out_of_scope += other.rejections_out_of_scope;
        self.problems.extend(other.problems);
        for (call, counts) in other.calls {
            let mine = self.calls.entry(call).or_default();
            mine.rejections += counts.rejections;
            mine.reported += counts.reported;
            mine.out_of_scope += counts.out_of_scope;
        }
    }

    fn summary(&self, what: &str) -> String {
        format!(
            "{what}: {} files, {} documents; {} claims of rejection ({} on the pods of custom resources' controllers), {} confirmed, {} not checkable (refused before validation, partial objects, custom resources); \
             {} oracle rejections, {} reported by podcycle, {} out of scope; {} disagreements",
            self.files,
            self.documents,
            self.claims,
            self.claims_by_controller,
            self.claims_confirmed,
            self.claims_unverifiable,
            self.rejections,
            self.rejections_reported,
            self.rejections_out_of_scope,
            self.problems.len()
        )
    }
}

fn settings_for(version: KubeVersion) -> Settings {
    Settings::from_selectors(&[Selector::All], &[], &[]).with_kube_version(version)
}

/// Compares both tools on one file. `show` renders a document for a failure message.
fn compare(
    case: &Case,
    rejections: &[&Rejection],
    controller: &[ControllerRejection],
    allowed: &[(String, String)],
    show: &dyn Fn(usize) -> String,
) -> Tally {
    let mut tally = Tally {
        files: 1,
        ..Tally::default()
    };
    let starts = document_starts(&case.text);
    tally.documents = starts.len();
    // Compare what podcycle finds, not what a suppression hides: the suppressions are renamed
    // to same-length text, so every position stays where the oracle sees it.
    let unsuppressed = case
        .text
        .replace("podcycle:", "podcycle-")
        .replace("podcycle.io/ignore", "podcycle.io/ignorx")
        .replace(
            "ignore-check.kube-linter.io/",
            "ignore-check.kube-linter.iox",
        );
    let diagnostics = lint_file(
        &SourceFile::new(case.path.display().to_string(), unsuppressed),
        &settings_for(case.version),
        case.role,
        Within::Itself,
        &mut |_| {},
    )
    .diagnostics;
    // A document with strategic-merge directives (`$patch`) is a patch too, as podcycle reads it.
    let patch_documents: Vec<usize> = rejections
        .iter()
        .filter(|r| r.field.ends_with("$patch"))
        .map(|r| r.document)
        .collect();
    // A workload without a pod template at all (`spec: {replicas: 6}`) is a partial object too:
    // a Kustomize patch or a kuttl step whose kustomization or test is elsewhere.
    // Budgets and autoscalers have no pod template: they are whole objects.
    let templateless = |document: usize| {
        let text = document_slice(&case.text, &starts, document);
        !text.contains("ontainers")
            && !text.contains("PodDisruptionBudget")
            && !text.contains("HorizontalPodAutoscaler")
    };
    let patch =
        |document: usize| case.role == FileRole::Patch || patch_documents.contains(&document);
    let partial = |document: usize| patch(document) || templateless(document);
    let rejections: Vec<&Rejection> = rejections
        .iter()
        .copied()
        .filter(|r| {
            !partial(r.document)
                || (r.field.is_empty() && r.stage != "validate")
                || r.kind_of_problem == "DuplicateKey"
                || (!patch(r.document) && r.stage == "decode")
        })
        .collect();
    let findings: Vec<Finding<'_>> = diagnostics
        .iter()
        .map(|diagnostic| Finding {
            document: document_at(&starts, diagnostic.span.start as usize),
            diagnostic,
        })
        .collect();
    let mut rejections_in: HashMap<usize, Vec<&Rejection>> = HashMap::new();
    for rejection in &rejections {
        rejections_in
            .entry(rejection.document)
            .or_default()
            .push(rejection);
    }
    let mut findings_in: HashMap<usize, Vec<&Finding<'_>>> = HashMap::new();
    for finding in &findings {
        findings_in
            .entry(finding.document)
            .or_default()
            .push(finding);
    }
    let none_rejected: Vec<&Rejection> = Vec::new();
    let none_found: Vec<&Finding<'_>> = Vec::new();
    let rejections_of = |document: usize| rejections_in.get(&document).unwrap_or(&none_rejected);
    let findings_of = |document: usize| findings_in.get(&document).unwrap_or(&none_found);
    let place = |document: usize| {
        format!(
            "{} (document {document}, --kube-version {})",
            case.path.display(),
            case.version
        )
    };

    for finding in &findings {
        let d = finding.diagnostic;
        // A container without a name is named by its position, never as empty backticks.
        let texts = std::iter::once(&d.message)
            .chain(d.help.as_ref())
            .chain(d.labels.iter().map(|l| &l.message));
        if let Some(text) = texts.into_iter().find(|t| t.contains("``")) {
            tally.problems.push(format!(
                "{}: [{}] names a container as empty backticks: {text}\n{}",
                place(finding.document),
                d.rule,
                show(finding.document)
            ));
        }
        // A key repeated with the same value is a warning: only kustomize refuses it.
        if d.enforcement.is_rejection()
            && d.severity != Severity::Error
            && d.rule != "duplicate-key"
        {
            tally.problems.push(format!(
                "{}: `{}` claims a rejection ({}) at severity {}\n{}",
                place(finding.document),
                d.rule,
                d.enforcement,
                d.severity,
                show(finding.document)
            ));
        }
        if !d.enforcement.is_rejection()
            && d.severity == Severity::Error
            && !RUNTIME_ERRORS.iter().any(|(rule, _)| *rule == d.rule)
        {
            tally.problems.push(format!(
                "{}: `{}` reports a {} finding as an error\n{}",
                place(finding.document),
                d.rule,
                d.enforcement,
                show(finding.document)
            ));
        }
        if !d.enforcement.is_rejection() {
            continue;
        }
        tally.claims += 1;
        // Custom resources (Argo Rollouts, KEDA, Kubeflow…) are validated by their own
        // controllers and webhooks, not by the code the oracle runs.
        let custom = d.object.as_ref().is_some_and(|object| {
            let group = object
                .api_version
                .rsplit_once('/')
                .map_or("", |(group, _)| group);
            !matches!(group, "" | "apps" | "batch" | "extensions")
        });
        // A claim that the controller's pods are refused: the oracle judges the objects the
        // controller creates from the template (`controller_objects`).
        if custom && d.enforcement == podcycle::diagnostics::Enforcement::Controller {
            tally.claims_by_controller += 1;
            let confirmed = controller.iter().any(|r| {
                r.document == finding.document
                    && d.field.as_deref().is_some_and(|f| related(f, &r.field))
            });
            if confirmed {
                tally.claims_confirmed += 1;
            } else {
                tally.problems.push(format!(
                    "{}: unconfirmed claim on the pods a controller creates: {}[{}] at `{}`: {}\n  the oracle found: {:?}\n{}",
                    place(finding.document),
                    d.severity,
                    d.rule,
                    d.field.as_deref().unwrap_or("-"),
                    d.message,
                    controller
                        .iter()
                        .filter(|r| r.document == finding.document)
                        .map(|r| format!("{}: {}", r.field, r.detail))
                        .collect::<Vec<_>>(),
                    show(finding.document)
                ));
            }
            continue;
        }
        if custom
            || (partial(finding.document)
                && d.enforcement == podcycle::diagnostics::Enforcement::ApiServer)
        {
            // The API server never sees a partial object as it is written.
            tally.claims_unverifiable += 1;
            continue;
        }
        let decoder_only = d.enforcement == podcycle::diagnostics::Enforcement::Decoder;
        let confirmed = rejections_of(finding.document).iter().any(|r| {
            (!decoder_only || r.stage != "validate")
                && match &d.field {
                    None => r.stage != "validate",
                    Some(field) => r.field.is_empty() || related(field, &r.field),
                }
        });
        if confirmed {
            tally.claims_confirmed += 1;
            continue;
        }
        // Refused before validation (a decode error), or validation that stops early: apps
        // validation skips the pod template when the selector is invalid.
        let refused_early = rejections_of(finding.document).iter().any(|r| {
            r.stage == "decode"
                || (r.field.starts_with("spec.selector")
                    && d.field
                        .as_deref()
                        .is_some_and(|f| f.starts_with("spec.template")))
        });
        if refused_early && d.enforcement == podcycle::diagnostics::Enforcement::ApiServer {
            tally.claims_unverifiable += 1;
            continue;
        }
        tally.problems.push(format!(
            "{}: unconfirmed claim: {}[{}] ({}) at `{}`: {}\n  the oracle found: {:?}\n{}",
            place(finding.document),
            d.severity,
            d.rule,
            d.enforcement,
            d.field.as_deref().unwrap_or("-"),
            d.message,
            rejections_of(finding.document)
                .iter()
                .map(|r| format!(
                    "{} {} {}: {}",
                    r.stage, r.field, r.kind_of_problem, r.detail
                ))
                .collect::<Vec<_>>(),
            show(finding.document)
        ));
    }

    for rejection in &rejections {
        tally.rejections += 1;
        let mut call = (!rejection.origin.is_empty())
            .then(|| tally.calls.entry(rejection.origin.clone()).or_default());
        if let Some(call) = call.as_mut() {
            call.rejections += 1;
        }
        let reported = findings_of(rejection.document).iter().any(|f| {
            f.diagnostic.severity == Severity::Error
                && match &f.diagnostic.field {
                    None => rejection.stage != "validate",
                    Some(field) => rejection.field.is_empty() || related(field, &rejection.field),
                }
        }) || (rejection.kind_of_problem == "DuplicateKey"
            && findings_of(rejection.document)
                .iter()
                .any(|f| f.diagnostic.rule == "duplicate-key"));
        if reported {
            if let Some(call) = call {
                call.reported += 1;
            }
            tally.rejections_reported += 1;
            continue;
        }
        if !in_scope(rejection) {
            let normalized = if rejection.stage == "kustomize-decode" && rejection.field.is_empty()
            {
                "<kustomize-yaml>".to_owned()
            } else if rejection.field.is_empty() {
                "<unplaced>".to_owned()
            } else {
                normalize(&rejection.field)
            };
            if allowed
                .iter()
                .any(|(pattern, _)| glob(pattern, &normalized))
            {
                if let Some(call) = call {
                    call.out_of_scope += 1;
                }
                tally.rejections_out_of_scope += 1;
                continue;
            }
            tally.problems.push(format!(
                "{}: a rejection outside the lifecycle that no pattern of fidelity/out-of-scope.txt explains: \
                 {} `{}` ({}) {}: {}\n{}",
                place(rejection.document),
                rejection.stage,
                rejection.field,
                normalized,
                rejection.kind_of_problem,
                rejection.detail,
                show(rejection.document)
            ));
            continue;
        }
        tally.problems.push(format!(
            "{}: missed rejection: {} `{}` {}: {}\n  podcycle found: {:?}\n{}",
            place(rejection.document),
            rejection.stage,
            rejection.field,
            rejection.kind_of_problem,
            rejection.detail,
            findings_of(rejection.document)
                .iter()
                .map(|f| format!(
                    "{}[{}] {}: {}",
                    f.diagnostic.severity,
                    f.diagnostic.rule,
                    f.diagnostic.field.as_deref().unwrap_or("-"),
                    f.diagnostic.message
                ))
                .collect::<Vec<_>>(),
            show(rejection.document)
        ));
    }
    tally
}

/// A rejection of an object a custom resource's controller creates, at the field of the custom
/// resource it comes from.
struct ControllerRejection {
    document: usize,
    field: String,
    detail: String,
}

/// A pod template of a custom resource (document `document` of its file), built into an object
/// of the built-in kind whose pods its controller creates (`like`): a Rollout's ReplicaSet, a
/// Workflow's Pod.
struct Built {
    document: usize,
    template: podcycle::model::custom::FoundTemplate,
    like: podcycle::model::WorkloadKind,
}

impl Built {
    /// The field of the custom resource a rejection of the built object is about, if it comes
    /// from the template.
    fn object_field(&self, field: &str) -> Option<String> {
        use podcycle::model::WorkloadKind;
        // A Pod's `spec.…` is the template's `template.spec.…`; a controller's
        // `spec.template.…` is `template.…`.
        let in_template = match self.like {
            WorkloadKind::Pod => format!("template.{field}"),
            _ => format!("template.{}", field.strip_prefix("spec.template.")?),
        };
        Some(self.template.remap(&parse_field(&in_template)).to_string())
    }
}

/// `spec.containers[1].name` as path segments.
fn parse_field(field: &str) -> podcycle::model::path::FieldPath {
    use podcycle::model::path::{FieldPath, PathSegment};
    let mut segments = Vec::new();
    for part in field.split('.') {
        let (key, mut rest) = part.split_at(part.find('[').unwrap_or(part.len()));
        if !key.is_empty() {
            segments.push(PathSegment::Key(key.to_owned()));
        }
        while let Some(inner) = rest.strip_prefix('[') {
            let close = inner.find(']').unwrap_or(inner.len());
            if let Ok(index) = inner[..close].parse() {
                segments.push(PathSegment::Index(index));
            }
            rest = inner.get(close + 1..).unwrap_or_default();
        }
    }
    FieldPath::new(segments)
}

/// The objects the controllers of a file's custom resources create from their pod templates,
/// as a YAML stream of JSON documents, with what each stands for.
fn controller_objects(text: &str) -> (Vec<Built>, String) {
    use podcycle::model::WorkloadKind;
    use podcycle::model::custom::{PodTemplateKinds, templates};
    let kinds = PodTemplateKinds::default();
    let mut built = Vec::new();
    let mut stream = String::new();
    for_each_document_with(text, Comments::Skip, |document| {
        for object in podcycle::model::objects(&document) {
            if WorkloadKind::from_type(&object.api_version, &object.kind).is_some() {
                continue;
            }
            let Some(kind) = kinds.find(&object.api_version, &object.kind) else {
                continue;
            };
            let Ok(value) = podcycle::yaml::to_json(&document, object.root) else {
                continue;
            };
            for found in templates(&kind, &value) {
                let mut template = found.object["template"].clone();
                let labels = match template.pointer("/metadata/labels") {
                    Some(serde_json::Value::Object(map)) if !map.is_empty() => {
                        serde_json::Value::Object(map.clone())
                    }
                    _ => serde_json::json!({"podcycle.io/fidelity": "controller"}),
                };
                template["metadata"] = serde_json::json!({"labels": labels});
                let metadata = serde_json::json!({"name": "built"});
                let object = match kind.like {
                    WorkloadKind::Pod => serde_json::json!({
                        "apiVersion": "v1", "kind": "Pod",
                        "metadata": {"name": "built", "labels": labels}, "spec": template["spec"],
                    }),
                    WorkloadKind::ReplicationController => serde_json::json!({
                        "apiVersion": "v1", "kind": "ReplicationController", "metadata": metadata,
                        "spec": {"selector": labels, "template": template},
                    }),
                    WorkloadKind::Job => serde_json::json!({
                        "apiVersion": "batch/v1", "kind": "Job", "metadata": metadata,
                        "spec": {"template": template},
                    }),
                    WorkloadKind::Deployment
                    | WorkloadKind::ReplicaSet
                    | WorkloadKind::StatefulSet
                    | WorkloadKind::DaemonSet => {
                        let mut object = serde_json::json!({
                            "apiVersion": "apps/v1", "kind": kind.like.name(), "metadata": metadata,
                            "spec": {"selector": {"matchLabels": labels}, "template": template},
                        });
                        if kind.like == WorkloadKind::StatefulSet {
                            object["spec"]["serviceName"] = "built".into();
                        }
                        object
                    }
                    WorkloadKind::PodTemplate | WorkloadKind::CronJob => continue,
                };
                stream.push_str(&format!("---\n{object}\n"));
                built.push(Built {
                    document: document.index,
                    template: found,
                    like: kind.like,
                });
            }
        }
    });
    (built, stream)
}

/// A field path with list indexes as `[*]` and the pod spec as `<pod>`, for the allow-list.
fn normalize(field: &str) -> String {
    let mut out = String::new();
    let mut in_index = false;
    for c in field.chars() {
        match c {
            '[' => {
                in_index = true;
                out.push_str("[*");
            }
            ']' => {
                in_index = false;
                out.push(']');
            }
            _ if in_index => {}
            _ => out.push(c),
        }
    }
    for prefix in [
        "spec.jobTemplate.spec.template.spec",
        "spec.template.spec",
        "template.spec",
    ] {
        if let Some(rest) = out.strip_prefix(prefix) {
            return format!("<pod>{rest}");
        }
    }
    out
}

/// Every file with a known version: the rule fixtures, the documentation's YAML examples,
/// `testdata/` and the shared corpus. Documentation examples are written to `scratch`.
fn collected_cases(scratch: &Path) -> Vec<Case> {
    let mut cases = Vec::new();
    let mut patches = PatchIndex::default();
    let mut add_file = |path: PathBuf, cases: &mut Vec<Case>| {
        let Ok(bytes) = std::fs::read(&path) else {
            return;
        };
        let Ok(text) = String::from_utf8(bytes) else {
            return;
        };
        let version = with_header_options(&text, settings_for(NEWEST_MODELLED)).kube_version;
        let role = patches.role(&path);
        cases.push(Case {
            path,
            text,
            version,
            role,
        });
    };
    use crate::common::manifests;
    for root in ["rules", "testdata"] {
        for path in manifests(&repository().join(root)) {
            add_file(path, &mut cases);
        }
    }
    let corpus = repository().join("../shared/corpus");
    if corpus.is_dir() {
        for path in manifests(&corpus) {
            add_file(path, &mut cases);
        }
    }
    let mut examples: Vec<(String, String)> = Vec::new();
    for rule in ALL_RULES {
        for (i, example) in podcycle::docs::yaml_examples(rule).into_iter().enumerate() {
            examples.push((format!("rule-{}-{i}.yaml", rule.name), example));
        }
    }
    for doc in manifests_md(&repository().join("docs"))
        .into_iter()
        .chain([repository().join("README.md")])
    {
        let Ok(markdown) = std::fs::read_to_string(&doc) else {
            continue;
        };
        let stem = doc
            .file_stem()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        for (i, example) in podcycle::docs::yaml_blocks(&markdown)
            .into_iter()
            .enumerate()
        {
            if example.contains("apiVersion:") && example.contains("kind:") {
                examples.push((format!("doc-{stem}-{i}.yaml"), example));
            }
        }
    }
    for (name, text) in examples {
        let path = scratch.join(name);
        std::fs::write(&path, &text).expect("the scratch directory is writable");
        add_file(path, &mut cases);
    }
    cases
}

fn manifests_md(root: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "md") {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

fn document_text(text: &str, document: usize) -> String {
    document_slice(text, &document_starts(text), document).to_owned()
}

/// The text of one document, given where each document starts.
fn document_slice<'t>(text: &'t str, starts: &[(usize, usize)], document: usize) -> &'t str {
    let start = starts
        .iter()
        .find(|(_, i)| *i == document)
        .map_or(0, |(s, _)| *s);
    let end = starts
        .iter()
        .find(|(_, i)| *i == document + 1)
        .map_or(text.len(), |(s, _)| *s);
    text.get(start..end).unwrap_or(text)
}

fn report(tally: &Tally, what: &str) {
    let summary = tally.summary(what);
    eprintln!("{summary}");
    if !tally.problems.is_empty() {
        let all = Path::new(env!("CARGO_TARGET_TMPDIR"))
            .join(format!("fidelity-{}.txt", what.replace(' ', "-")));
        let _ = std::fs::write(&all, tally.problems.join("\n\n"));
        let mut message = format!("{summary}\nevery disagreement: {}\n", all.display());
        for problem in tally.problems.iter().take(40) {
            let _ = writeln!(message, "\n{problem}");
        }
        if tally.problems.len() > 40 {
            let _ = writeln!(message, "\n… and {} more", tally.problems.len() - 40);
        }
        panic!("{message}");
    }
}

fn fixtures_examples_testdata_and_corpus_agree_with_kubernetes() {
    let tally = fixtures_tally(&judge);
    report(&tally, "fixtures, examples, testdata and corpus");
}

/// Compares both tools on the fixtures, examples, testdata and corpus, with `judge` running the
/// oracle.
fn fixtures_tally(judge: &dyn Fn(&[PathBuf], KubeVersion) -> Vec<Rejection>) -> Tally {
    let scratch = tempfile::tempdir().expect("a temporary directory");
    let cases = collected_cases(scratch.path());
    let allowed = out_of_scope();
    let mut by_version: BTreeMap<KubeVersion, Vec<&Case>> = BTreeMap::new();
    let mut approximate = 0;
    for case in &cases {
        match oracle_version(case.version) {
            Some(version) => by_version.entry(version).or_default().push(case),
            None => approximate += 1,
        }
    }
    let mut tally = Tally::default();
    for (version, cases) in by_version {
        let files: Vec<PathBuf> = cases.iter().map(|c| c.path.clone()).collect();
        let rejections = judge(&files, version);
        // What the controllers of the custom resources create, judged in one run too.
        let built: Vec<(PathBuf, Vec<Built>)> = cases
            .iter()
            .enumerate()
            .filter_map(|(index, case)| {
                let (built, text) = controller_objects(&case.text);
                if built.is_empty() {
                    return None;
                }
                let path = scratch
                    .path()
                    .join(format!("controller-{}-{index}.yaml", version));
                std::fs::write(&path, text).expect("the scratch directory is writable");
                Some((path, built))
            })
            .collect();
        let built_paths: Vec<PathBuf> = built.iter().map(|(p, _)| p.clone()).collect();
        let built_rejections = if built_paths.is_empty() {
            Vec::new()
        } else {
            judge(&built_paths, version)
        };
        for (index, case) in cases.iter().enumerate() {
            let path = case.path.display().to_string();
            let mine: Vec<&Rejection> = rejections.iter().filter(|r| r.file == path).collect();
            let scratch_path = scratch
                .path()
                .join(format!("controller-{}-{index}.yaml", version))
                .display()
                .to_string();
            let controller: Vec<ControllerRejection> = built
                .iter()
                .find(|(p, _)| p.display().to_string() == scratch_path)
                .map(|(_, built)| {
                    built_rejections
                        .iter()
                        .filter(|r| r.file == scratch_path)
                        .filter_map(|r| {
                            let built = built.get(r.document)?;
                            Some(ControllerRejection {
                                document: built.document,
                                field: built.object_field(&r.field)?,
                                detail: r.detail.clone(),
                            })
                        })
                        .collect()
                })
                .unwrap_or_default();
            let show = |document: usize| document_text(&case.text, document);
            tally.add(compare(case, &mine, &controller, &allowed, &show));
        }
    }
    eprintln!(
        "{approximate} files target a version the oracle judges only approximately and were not compared"
    );
    tally
}

fn generated_pod_specs_agree_with_kubernetes() {
    compare_generated_specs();
}

/// The generator's nested strategies need more stack than a test thread has in debug builds.
const GENERATOR_STACK: usize = 256 << 20;

fn compare_generated_specs() {
    // PODCYCLE_FIDELITY_SPECS=N runs fewer (or more): CI runs 100,000.
    let total = std::env::var("PODCYCLE_FIDELITY_SPECS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(GENERATED_SPECS);
    let tally = generated_tally(&judge, total);
    report(&tally, "generated pod specs");
}

/// A way to run the oracle: the plain build, or the one that records its coverage.
type Judge<'a> = dyn Fn(&[PathBuf], KubeVersion) -> Vec<Rejection> + Sync + 'a;

/// Compares both tools on `total` generated specs, with `judge` running the oracle. The specs
/// go into files of `SPECS_PER_FILE`, and each file is compared on whichever core is free: a
/// file is one oracle run and one lint, so the cores stay busy while either tool works. The
/// tallies are added up in file order, so the report does not depend on which core was first.
fn generated_tally(judge: &Judge, total: u64) -> Tally {
    let started = Instant::now();
    let scratch = tempfile::tempdir().expect("a temporary directory");
    let allowed = out_of_scope();
    let batches = total.div_ceil(SPECS_PER_FILE) as usize;
    let next = std::sync::atomic::AtomicUsize::new(0);
    let problems = std::sync::atomic::AtomicUsize::new(0);
    let workers = std::thread::available_parallelism().map_or(1, usize::from);
    let tallies: Vec<Vec<(usize, u64, Tally)>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..workers)
            .map(|_| {
                std::thread::Builder::new()
                    .stack_size(GENERATOR_STACK)
                    .spawn_scoped(scope, || {
                        let mut mine = Vec::new();
                        // Past 40 disagreements the report is long enough: stop taking files.
                        while problems.load(std::sync::atomic::Ordering::Relaxed) <= 40 {
                            let batch = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                            if batch >= batches {
                                break;
                            }
                            let (specs, tally) = compare_generated_batch(
                                judge,
                                scratch.path(),
                                batch,
                                total,
                                &allowed,
                            );
                            problems.fetch_add(
                                tally.problems.len(),
                                std::sync::atomic::Ordering::Relaxed,
                            );
                            mine.push((batch, specs, tally));
                        }
                        mine
                    })
                    .expect("a thread starts")
            })
            .collect();
        handles
            .into_iter()
            .map(|handle| {
                handle
                    .join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
            })
            .collect()
    });
    let mut done: Vec<(usize, u64, Tally)> = tallies.into_iter().flatten().collect();
    done.sort_by_key(|(batch, _, _)| *batch);
    let mut tally = Tally::default();
    let mut compared = 0;
    for (_, specs, batch_tally) in done {
        compared += specs;
        tally.add(batch_tally);
    }
    eprintln!(
        "generated and compared {compared} specs in {:.1?} on {workers} cores",
        started.elapsed()
    );
    tally
}

/// Generates file `batch` of the corpus (specs `batch × SPECS_PER_FILE` on, judged at one of
/// the exact versions in turn) and compares it; returns how many specs it held and the tally.
fn compare_generated_batch(
    judge: &Judge,
    scratch: &Path,
    batch: usize,
    total: u64,
    allowed: &[(String, String)],
) -> (u64, Tally) {
    let versions: Vec<KubeVersion> = EXACT.map(KubeVersion::new).collect();
    let version = versions[batch % versions.len()];
    let first = batch as u64 * SPECS_PER_FILE;
    let count = SPECS_PER_FILE.min(total - first);
    let mut text = String::new();
    for i in first..first + count {
        let spec = generate::value_tree(SEED, i).current();
        text.push_str("---\n");
        text.push_str(&spec.to_yaml(&format!("s{i}")));
    }
    let path = scratch.join(format!("generated-{batch}.yaml"));
    std::fs::write(&path, &text).expect("the scratch directory is writable");
    let rejections = judge(std::slice::from_ref(&path), version);
    let refs: Vec<&Rejection> = rejections.iter().collect();
    let case = Case {
        path,
        text,
        version,
        role: FileRole::Manifest,
    };
    // Shrinking takes an oracle run per step: only the first few disagreements are shrunk.
    let shrunk = std::cell::Cell::new(0);
    let show = |document: usize| {
        let spec = first + document as u64;
        shrunk.set(shrunk.get() + 1);
        if shrunk.get() > 3 {
            return document_text(&case_text_for_show(scratch, batch), document);
        }
        minimised(scratch, spec, version, allowed)
    };
    (count, compare(&case, &refs, &[], allowed, &show))
}

fn case_text_for_show(scratch: &Path, batch: usize) -> String {
    std::fs::read_to_string(scratch.join(format!("generated-{batch}.yaml"))).unwrap_or_default()
}

/// Shrinks generated spec `index` to a smallest spec on which the tools still disagree, and
/// returns its manifest.
fn minimised(
    scratch: &Path,
    index: u64,
    version: KubeVersion,
    allowed: &[(String, String)],
) -> String {
    let path = scratch.join(format!("minimise-{index}.yaml"));
    let disagrees = |spec: &generate::Spec| {
        let text = spec.to_yaml("minimal");
        std::fs::write(&path, &text).expect("the scratch directory is writable");
        let rejections = judge(std::slice::from_ref(&path), version);
        let refs: Vec<&Rejection> = rejections.iter().collect();
        let case = Case {
            path: path.clone(),
            text,
            version,
            role: FileRole::Manifest,
        };
        !compare(&case, &refs, &[], allowed, &|_| String::new())
            .problems
            .is_empty()
    };
    let mut tree = generate::value_tree(SEED, index);
    let mut smallest = tree.current();
    // Each step runs the oracle: a bounded number of steps.
    for _ in 0..80 {
        if !tree.simplify() {
            break;
        }
        if disagrees(&tree.current()) {
            smallest = tree.current();
            continue;
        }
        while tree.complicate() {
            if disagrees(&tree.current()) {
                smallest = tree.current();
                break;
            }
        }
    }
    format!(
        "minimised manifest (spec {index} of seed {SEED:#x}):\n{}",
        smallest.to_yaml("minimal")
    )
}

fn allow_list_leaves_the_lifecycle_in_scope() {
    let lifecycle = [
        "<pod>.containers[*].livenessProbe",
        "<pod>.initContainers[*].lifecycle.preStop.sleep",
        "<pod>.containers[*].name",
        "<pod>.restartPolicy",
        "<pod>.terminationGracePeriodSeconds",
        "<pod>.containers[*].ports[*].containerPort",
    ];
    for (pattern, reason) in out_of_scope() {
        assert!(!reason.is_empty(), "`{pattern}` needs a reason");
        for field in lifecycle {
            assert!(
                !glob(&pattern, field),
                "`{pattern}` would hide lifecycle field `{field}`"
            );
        }
    }
    assert!(glob(
        "<pod>.containers[*].image",
        "<pod>.containers[*].image"
    ));
    assert!(glob("metadata.*", "metadata.labels"));
    assert!(!glob("metadata.*", "spec.metadata"));
    assert_eq!(
        normalize("spec.template.spec.containers[12].image"),
        "<pod>.containers[*].image"
    );
    assert!(related(
        "spec.containers[0].lifecycle",
        "spec.containers[0].lifecycle.preStop.sleep"
    ));
    assert!(!related("spec.containers[0]", "spec.containers[01]"));
    for field in [
        "spec.backoffLimitPerIndex",
        "spec.podFailurePolicy.rules[3].action",
    ] {
        assert!(job_retry_field(field), "{field}");
        assert!(
            !out_of_scope()
                .iter()
                .any(|(pattern, _)| glob(pattern, field)),
            "{field} is hidden"
        );
    }
    assert!(!job_retry_field(
        "spec.podFailurePolicy.rules[3].onExitCodes"
    ));
    assert!(
        !out_of_scope()
            .iter()
            .any(|(pattern, _)| glob(pattern, "spec.metrics")),
        "an autoscaler's `metrics` itself is hidden"
    );
}

// ---- restarts: podcycle's back-off against the kubelet's own ----

/// A restart's wait as the kubelet's back-off gives it (`oracle --restart-delays`).
#[derive(Debug, Deserialize)]
struct RestartDelay {
    restart: i64,
    seconds: f64,
}

/// The waits before a failing container's restarts (`restartPolicy: OnFailure`, which a Job's
/// attempts are made of): podcycle's against client-go's `flowcontrol.Backoff`, driven as the
/// kubelet's `doBackOff` drives it, past the cap.
fn restart_delays_agree_with_the_kubelet() {
    use podcycle::lifecycle::rollout::{JobRestarts, retry_delay};
    let delays: Vec<RestartDelay> =
        oracle_lines(&[OsString::from("--restart-delays"), OsString::from("12")]);
    assert_eq!(delays.len(), 12);
    for delay in delays {
        assert_eq!(
            retry_delay(JobRestarts::OnFailure, delay.restart),
            delay.seconds,
            "the wait before restart {}",
            delay.restart
        );
    }
}

// ---- rollout counts: podcycle's resolution against the controllers' own functions ----

/// The counts the controllers resolve for an object (`oracle --resolve`, oracle/README.md).
#[derive(Debug, Deserialize)]
struct Resolution {
    file: String,
    document: usize,
    kind: String,
    name: String,
    replicas: i32,
    max_surge: Option<i32>,
    max_unavailable: Option<i32>,
    #[serde(default)]
    by_nodes: Vec<NodeResolution>,
}

#[derive(Debug, Deserialize)]
struct NodeResolution {
    nodes: i32,
    max_surge: i32,
    max_unavailable: i32,
}

fn resolve(files: &[PathBuf], version: KubeVersion) -> Vec<Resolution> {
    let mut resolutions = Vec::new();
    for batch in files.chunks(500) {
        let mut args = vec![
            OsString::from("--kube-version"),
            OsString::from(version.to_string()),
            OsString::from("--resolve"),
        ];
        args.extend(batch.iter().map(OsString::from));
        resolutions.extend(oracle_lines(&args));
    }
    resolutions
}

/// Runs the oracle with `args`, which must succeed, and reads the JSON object of each line.
fn oracle_lines<T: serde::de::DeserializeOwned>(args: &[OsString]) -> Vec<T> {
    let output = Command::new(oracle())
        .args(args)
        .output()
        .expect("the oracle runs");
    assert!(
        output.status.success(),
        "the oracle failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(|line| serde_json::from_str(line).expect("the oracle prints JSON lines"))
        .collect()
}

/// Compares podcycle's rollout model with the controllers' resolution for every object of a
/// file the oracle resolved; returns the disagreements and how many objects were compared.
fn compare_counts(case: &Case, resolutions: &[&Resolution]) -> (Vec<String>, usize) {
    use podcycle::lifecycle::rollout::{
        DeploymentStrategy, Plan, ReplicaSource, StatefulSetUpdate,
    };
    use podcycle::lint::Visit;
    use podcycle::model::amount::{deployment_max_unavailable, resolve_fenceposts};
    let mut problems = Vec::new();
    let mut compared = 0;
    let file = SourceFile::new(case.path.display().to_string(), case.text.clone());
    lint_file(
        &file,
        &settings_for(case.version),
        case.role,
        Within::Itself,
        &mut |visit| {
            let Visit::Object(visit) = visit else { return };
            let Some(rollout) = visit.rollout else { return };
            let name = visit.object.object.name.as_deref().unwrap_or_default();
            let Some(resolved) = resolutions.iter().find(|r| {
                r.document == visit.document.index
                    && r.name == name
                    && r.kind == visit.object.object.kind
            }) else {
                return;
            };
            let mut differs = |what: &str, podcycle: String, kubernetes: String| {
                if podcycle != kubernetes {
                    problems.push(format!(
                    "{} (document {}, --kube-version {}): {} `{name}`: podcycle resolves {what} to {podcycle}, Kubernetes to {kubernetes}\n{}",
                    case.path.display(),
                    visit.document.index,
                    case.version,
                    resolved.kind,
                    document_text(&case.text, visit.document.index)
                ));
                }
            };
            compared += 1;
            match &rollout.plan {
                Plan::Deployment(plan) => {
                    if plan.replicas.source != (ReplicaSource::Autoscaler { min: 0, max: 0 })
                        && !matches!(plan.replicas.source, ReplicaSource::Autoscaler { .. })
                    {
                        differs(
                            "replicas",
                            plan.replicas.count.to_string(),
                            resolved.replicas.to_string(),
                        );
                    }
                    let (surge, unavailable) = match &plan.strategy {
                        DeploymentStrategy::RollingUpdate {
                            surge, unavailable, ..
                        } => {
                            let (s, u) = resolve_fenceposts(
                                Some(&surge.value),
                                Some(&unavailable.value),
                                resolved.replicas,
                            )
                            .unwrap_or((-1, -1));
                            (s, deployment_max_unavailable(u, resolved.replicas))
                        }
                        // `MaxSurge` and `MaxUnavailable` are 0 for a Recreate Deployment.
                        DeploymentStrategy::Recreate => (0, 0),
                        DeploymentStrategy::Invalid => (-1, -1),
                    };
                    differs(
                        "maxSurge and maxUnavailable",
                        format!("{surge}/{unavailable}"),
                        format!(
                            "{}/{}",
                            resolved.max_surge.unwrap_or(-1),
                            resolved.max_unavailable.unwrap_or(-1)
                        ),
                    );
                }
                Plan::StatefulSet(plan) => {
                    if matches!(plan.replicas.source, ReplicaSource::Autoscaler { .. }) {
                        return;
                    }
                    let batch = match &plan.update {
                        StatefulSetUpdate::RollingUpdate { batch, .. } => *batch,
                        _ => -1,
                    };
                    differs(
                        "maxUnavailable",
                        batch.to_string(),
                        resolved.max_unavailable.unwrap_or(-1).to_string(),
                    );
                }
                Plan::DaemonSet(plan) => {
                    for nodes in &resolved.by_nodes {
                        let ours = plan
                            .counts(nodes.nodes)
                            .map_or_else(|| "none".to_owned(), |(s, u)| format!("{s}/{u}"));
                        differs(
                            &format!("maxSurge and maxUnavailable for {} nodes", nodes.nodes),
                            ours,
                            format!("{}/{}", nodes.max_surge, nodes.max_unavailable),
                        );
                    }
                }
                _ => compared -= 1,
            }
        },
    );
    (problems, compared)
}

/// Deployments, StatefulSets and DaemonSets with every combination of replicas and counts around
/// the rounding edges: integers and percentages that round to 0, to 1, to half, to all.
fn rollout_grid() -> String {
    const REPLICAS: [i32; 10] = [0, 1, 2, 3, 4, 5, 7, 10, 13, 99];
    const AMOUNTS: [&str; 10] = [
        "0", "1", "3", "0%", "1%", "25%", "33%", "50%", "100%", "150%",
    ];
    let template = "selector: {matchLabels: {app: g}}\n  template:\n    metadata: {labels: {app: g}}\n    spec: {containers: [{name: g, image: g}]}";
    let mut text = String::new();
    let mut n = 0;
    let mut push = |kind: &str, spec: String| {
        n += 1;
        text.push_str(&format!(
            "---\napiVersion: apps/v1\nkind: {kind}\nmetadata: {{name: g{n}}}\nspec:\n  {spec}\n  {template}\n"
        ));
    };
    let quoted = |amount: &str| {
        if amount.ends_with('%') {
            format!("\"{amount}\"")
        } else {
            amount.to_owned()
        }
    };
    for replicas in REPLICAS {
        for surge in AMOUNTS {
            for unavailable in AMOUNTS {
                push(
                    "Deployment",
                    format!(
                        "replicas: {replicas}\n  strategy: {{rollingUpdate: {{maxSurge: {}, maxUnavailable: {}}}}}",
                        quoted(surge),
                        quoted(unavailable)
                    ),
                );
            }
        }
        for unavailable in AMOUNTS {
            push(
                "StatefulSet",
                format!(
                    "replicas: {replicas}\n  serviceName: g\n  updateStrategy: {{rollingUpdate: {{partition: 1, maxUnavailable: {}}}}}",
                    quoted(unavailable)
                ),
            );
        }
    }
    for surge in AMOUNTS {
        for unavailable in AMOUNTS {
            push(
                "DaemonSet",
                format!(
                    "updateStrategy: {{rollingUpdate: {{maxSurge: {}, maxUnavailable: {}}}}}",
                    quoted(surge),
                    quoted(unavailable)
                ),
            );
        }
    }
    text
}

/// podcycle's rollout counts — a Deployment's `maxSurge` and `maxUnavailable` by
/// `ResolveFenceposts`, a StatefulSet's `maxUnavailable`, a DaemonSet's for several node
/// counts — are those the controllers' own functions compute, on every fixture, example and
/// testdata file and on the generated corpus.
fn rollout_counts_agree_with_kubernetes() {
    // The generator's nested strategies need more stack than a test thread has in debug builds.
    std::thread::Builder::new()
        .stack_size(256 << 20)
        .spawn(compare_rollout_counts)
        .expect("a thread starts")
        .join()
        .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
}

fn compare_rollout_counts() {
    let scratch = tempfile::tempdir().expect("a temporary directory");
    let mut cases = collected_cases(scratch.path());
    cases.retain(|case| oracle_version(case.version).is_some());
    // Every combination of replicas and counts around the rounding edges, in each workload
    // kind, at each version (the StatefulSet's maxUnavailable depends on it).
    for version in EXACT.map(KubeVersion::new) {
        let path = scratch.path().join(format!("rollout-grid-{version}.yaml"));
        let text = rollout_grid();
        std::fs::write(&path, &text).expect("the scratch directory is writable");
        cases.push(Case {
            path,
            text,
            version,
            role: FileRole::Manifest,
        });
    }
    let mut problems = Vec::new();
    let mut compared = 0;
    let mut by_version: BTreeMap<KubeVersion, Vec<&Case>> = BTreeMap::new();
    for case in &cases {
        if let Some(version) = oracle_version(case.version) {
            by_version.entry(version).or_default().push(case);
        }
    }
    for (version, cases) in by_version {
        let files: Vec<PathBuf> = cases.iter().map(|c| c.path.clone()).collect();
        let resolutions = resolve(&files, version);
        for case in cases {
            let path = case.path.display().to_string();
            let mine: Vec<&Resolution> = resolutions.iter().filter(|r| r.file == path).collect();
            let (found, count) = compare_counts(case, &mine);
            problems.extend(found);
            compared += count;
        }
    }
    eprintln!(
        "compared the rollout counts of {compared} workloads with Kubernetes' own resolution"
    );
    assert!(compared > 2_000, "only {compared} workloads were compared");
    assert!(
        problems.is_empty(),
        "{} disagreements:\n{}",
        problems.len(),
        problems
            .iter()
            .take(20)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n\n")
    );
}
