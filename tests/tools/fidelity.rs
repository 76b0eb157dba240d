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

mod generate;

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use std::time::Instant;

use libtest_mimic::Trial;
use podcycle::diagnostics::{Diagnostic, Severity};
use podcycle::discovery::roles::PatchIndex;
use podcycle::lint::{FileRole, lint_file_as};
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
}

/// Runs the oracle on files for one version.
fn judge(files: &[PathBuf], version: KubeVersion) -> Vec<Rejection> {
    let oracle = oracle();
    let mut rejections = Vec::new();
    // Stay well under the command-line length limit.
    for batch in files.chunks(500) {
        // A cap on memory, so that a document that defeats the oracle cannot take the machine.
        let output = Command::new("sh")
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
    rejections: usize,
    rejections_reported: usize,
    rejections_out_of_scope: usize,
    problems: Vec<String>,
}

impl Tally {
    fn add(&mut self, other: Tally) {
        self.files += other.files;
        self.documents += other.documents;
        self.claims += other.claims;
        self.claims_confirmed += other.claims_confirmed;
        self.claims_unverifiable += other.claims_unverifiable;
        self.rejections += other.rejections;
        self.rejections_reported += other.rejections_reported;
        self.rejections_out_of_scope += other.rejections_out_of_scope;
        self.problems.extend(other.problems);
    }

    fn summary(&self, what: &str) -> String {
        format!(
            "{what}: {} files, {} documents; {} claims of rejection, {} confirmed, {} not checkable (refused before validation, partial objects, custom resources); \
             {} oracle rejections, {} reported by podcycle, {} out of scope; {} disagreements",
            self.files,
            self.documents,
            self.claims,
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
    let diagnostics = lint_file_as(
        &SourceFile::new(case.path.display().to_string(), unsuppressed),
        &settings_for(case.version),
        case.role,
    );
    // A document with strategic-merge directives (`$patch`) is a patch too, as podcycle reads it.
    let patch_documents: Vec<usize> = rejections
        .iter()
        .filter(|r| r.field.ends_with("$patch"))
        .map(|r| r.document)
        .collect();
    // A workload without a pod template at all (`spec: {replicas: 6}`) is a partial object too:
    // a Kustomize patch or a kuttl step whose kustomization or test is elsewhere.
    let templateless =
        |document: usize| !document_slice(&case.text, &starts, document).contains("ontainers");
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
    let manifests = |root: &Path| -> Vec<PathBuf> {
        let mut files = Vec::new();
        let mut stack = vec![root.to_path_buf()];
        while let Some(dir) = stack.pop() {
            let Ok(entries) = std::fs::read_dir(&dir) else {
                continue;
            };
            for entry in entries.flatten() {
                let path = entry.path();
                if path.is_dir() {
                    stack.push(path);
                } else if path
                    .extension()
                    .is_some_and(|e| e == "yaml" || e == "yml" || e == "json")
                {
                    files.push(path);
                }
            }
        }
        files.sort();
        files
    };
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
    let scratch = tempfile::tempdir().expect("a temporary directory");
    let cases = collected_cases(scratch.path());
    let allowed = out_of_scope();
    let mut by_version: BTreeMap<KubeVersion, Vec<&Case>> = BTreeMap::new();
    let mut approximate = 0;
    for case in &cases {
        if EXACT.contains(&case.version.minor) {
            by_version.entry(case.version).or_default().push(case);
        } else {
            approximate += 1;
        }
    }
    let mut tally = Tally::default();
    for (version, cases) in by_version {
        let files: Vec<PathBuf> = cases.iter().map(|c| c.path.clone()).collect();
        let rejections = judge(&files, version);
        for case in cases {
            let path = case.path.display().to_string();
            let mine: Vec<&Rejection> = rejections.iter().filter(|r| r.file == path).collect();
            let show = |document: usize| document_text(&case.text, document);
            tally.add(compare(case, &mine, &allowed, &show));
        }
    }
    eprintln!(
        "{approximate} files target a version the oracle judges only approximately and were not compared"
    );
    report(&tally, "fixtures, examples, testdata and corpus");
}

fn generated_pod_specs_agree_with_kubernetes() {
    // The generator's nested strategies need more stack than a test thread has in debug builds.
    std::thread::Builder::new()
        .stack_size(256 << 20)
        .spawn(compare_generated_specs)
        .expect("a thread starts")
        .join()
        .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
}

fn compare_generated_specs() {
    let started = Instant::now();
    let scratch = tempfile::tempdir().expect("a temporary directory");
    let allowed = out_of_scope();
    let versions: Vec<KubeVersion> = EXACT.map(KubeVersion::new).collect();
    let mut tally = Tally::default();
    // PODCYCLE_FIDELITY_SPECS=N runs fewer (or more): CI runs 100,000.
    let total = std::env::var("PODCYCLE_FIDELITY_SPECS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(GENERATED_SPECS);
    let mut index = 0u64;
    let mut batch = 0;
    while index < total {
        let version = versions[batch % versions.len()];
        let count = SPECS_PER_FILE.min(total - index);
        let mut text = String::new();
        for i in index..index + count {
            let spec = generate::value_tree(SEED, i).current();
            text.push_str("---\n");
            text.push_str(&spec.to_yaml(&format!("s{i}")));
        }
        let path = scratch.path().join(format!("generated-{batch}.yaml"));
        std::fs::write(&path, &text).expect("the scratch directory is writable");
        let rejections = judge(std::slice::from_ref(&path), version);
        let refs: Vec<&Rejection> = rejections.iter().collect();
        let case = Case {
            path,
            text,
            version,
            role: FileRole::Manifest,
        };
        let first = index;
        // Shrinking takes an oracle run per step: only the first few disagreements are shrunk.
        let shrunk = std::cell::Cell::new(0);
        let show = |document: usize| {
            let spec = first + document as u64;
            shrunk.set(shrunk.get() + 1);
            if shrunk.get() > 3 {
                return document_text(&case_text_for_show(scratch.path(), batch), document);
            }
            minimised(scratch.path(), spec, version, &allowed)
        };
        tally.add(compare(&case, &refs, &allowed, &show));
        if tally.problems.len() > 40 {
            break;
        }
        index += count;
        batch += 1;
    }
    eprintln!(
        "generated and compared {index} specs in {:.1?}",
        started.elapsed()
    );
    report(&tally, "generated pod specs");
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
        !compare(&case, &refs, allowed, &|_| String::new())
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
}
