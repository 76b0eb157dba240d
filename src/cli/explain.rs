//! `podcycle explain`: find the files and their configuration as `check` does, lint them one
//! after another, and write each selected pod's explanation as soon as its document is done,
//! so that memory stays near the size of the largest file, whatever the number of pods.

use std::collections::BTreeSet;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use globset::GlobSet;

use super::check::stderr_colors;
use super::configs::Configs;
use super::input::{lint_bytes_with, read_path, read_stdin, walked_paths};
use super::{
    ColorChoice, EXIT_CLEAN, EXIT_ERROR, EXIT_FINDINGS, ExplainArgs, eprint_line, usage_error,
};
use crate::config::{self, Config};
use crate::diagnostics::Diagnostic;
use crate::discovery::discover;
use crate::discovery::roles::{PatchIndex, role_by_name};
use crate::escape::escape_controls;
use crate::explain::{
    ExplainFormat, ExplainWriter, Finding, ObjectSelector, PodExplanation, PodSource,
    RolloutExplanation, RolloutSource, Selection, explain_pod, explain_rollout,
};
use crate::lint::{FileRole, Visit, locate};
use crate::model::ObjectRef;
use crate::report::JsonDiagnostic;
use crate::rules::Part;
use crate::settings::{Selection as RuleSelection, Settings};
use crate::source::Span;
use crate::suggest::did_you_mean_help;
use crate::text::name_list;

pub fn run(args: &ExplainArgs) -> io::Result<u8> {
    let object = match args
        .object
        .as_deref()
        .map(ObjectSelector::parse)
        .transpose()
    {
        Ok(object) => object,
        Err(message) => return Ok(usage_error(&message)),
    };
    let selection = Selection {
        object,
        container: args.container.clone(),
    };
    let stdin_count = args.paths.iter().filter(|p| p.as_os_str() == "-").count();
    if stdin_count > 1 {
        return Ok(usage_error("`-` (standard input) may be given only once"));
    }
    let Some(mut configs) = Configs::open(
        args.config.as_deref(),
        args.no_config,
        stderr_colors(ColorChoice::Auto),
    )?
    else {
        return Ok(EXIT_ERROR);
    };

    // Plan every input first, as `check` does, so that a broken configuration stops the
    // command before anything is written.
    let mut failed = false;
    let mut inputs: Vec<(Input, Settings, FileRole)> = Vec::new();
    if stdin_count == 1 {
        let config = configs.for_file(Path::new("-"));
        let settings = settings_for(config.as_deref(), args, None);
        inputs.push((Input::Stdin, settings, role_by_name(Path::new("-"))));
    }
    let paths = walked_paths(&args.paths);
    if !paths.is_empty() {
        let discovered = discover(&paths, &GlobSet::empty());
        for error in &discovered.errors {
            eprint_line(format_args!("podcycle: error: {error}"))?;
            failed = true;
        }
        // `explain` reads files as they are: say what it leaves to the renderers.
        for chart in &discovered.charts {
            let dir = crate::render::display(&chart.dir);
            let dir = escape_controls(&dir);
            eprint_line(format_args!(
                "podcycle: warning: {dir}: a Helm chart is not explained as files; run `helm template {dir} | podcycle explain -`",
            ))?;
        }
        for overlay in &discovered.overlays {
            let dir = crate::render::display(overlay);
            let dir = escape_controls(&dir);
            eprint_line(format_args!(
                "podcycle: warning: {dir}: a Kustomize overlay is not explained as built; run `kustomize build {dir} | podcycle explain -`",
            ))?;
        }
        let mut patches = PatchIndex::default();
        for path in discovered.files {
            let config = configs.for_file(&path);
            // A file named on the command line is explained even if its configuration
            // excludes it; a file found in a directory is not, as with `check`.
            let named = paths.contains(&path);
            if !named && config.as_deref().is_some_and(|c| c.excludes(&path)) {
                continue;
            }
            let settings = settings_for(config.as_deref(), args, Some(&path));
            let role = patches.role(&path);
            inputs.push((Input::File(path), settings, role));
        }
    }
    if configs.print_errors(stderr_colors(ColorChoice::Auto))? {
        return Ok(EXIT_ERROR);
    }

    // Buffered: a pod's output is many short lines, which a line-buffered stdout would write
    // one system call at a time.
    let out = io::BufWriter::new(io::stdout().lock());
    let writer = if args.rollout {
        ExplainWriter::for_rollouts(out, args.format)
    } else {
        ExplainWriter::new(out, args.format)
    };
    let mut run = Explaining::new(&selection, writer);
    run.rollouts = args.rollout;
    for (input, settings, role) in inputs {
        let (name, bytes) = match input {
            Input::Stdin => ("-".to_owned(), read_stdin()?),
            Input::File(path) => match read_path(&path) {
                Ok(read) => read,
                Err(message) => {
                    eprint_line(format_args!("podcycle: error: {message}"))?;
                    failed = true;
                    continue;
                }
            },
        };
        run.file(name, bytes, &settings, role)?;
    }
    run.finish(args, failed)
}

enum Input {
    Stdin,
    File(PathBuf),
}

/// The settings `check` would use for the file: its configuration's, judged for
/// `--kube-version`.
fn settings_for(config: Option<&Config>, args: &ExplainArgs, path: Option<&Path>) -> Settings {
    let cli = RuleSelection::default();
    match config {
        None => config::settings_without_config(&cli, args.kube_version),
        Some(config) => config.settings_for_file(&cli, args.kube_version, path),
    }
}

/// The explaining of every input: pods are written as their document ends; what the command
/// needs to say at the end (nothing matched, suggestions) is kept small.
struct Explaining<'s, W: Write> {
    selection: &'s Selection,
    writer: ExplainWriter<W>,
    /// Pods of the current document, waiting for its suppressions.
    pending: Vec<Pending>,
    /// Workload objects seen, for suggestions when `--object` matches nothing.
    objects: BTreeSet<String>,
    /// Container names of the selected pods, for suggestions when `--container` matches
    /// nothing.
    containers: BTreeSet<String>,
    /// Selected objects whose pod spec could not be decoded, or that have none.
    unreadable: Vec<(ObjectRef, String)>,
    without_pod_spec: Vec<(ObjectRef, String)>,
    /// Pod specs selected (before `--container`).
    selected_pods: usize,
    /// `--rollout`: explain what the controllers do, not the pods.
    rollouts: bool,
}

/// A pod or a rollout explained, and the spans of its findings, to keep those its document
/// keeps.
struct Pending {
    explained: Explained,
    spans: Vec<(Span, &'static str, String)>,
}

enum Explained {
    Pod(Box<PodExplanation<JsonDiagnostic>>),
    Rollout(Box<RolloutExplanation<JsonDiagnostic>>),
}

impl<'s, W: Write> Explaining<'s, W> {
    fn new(selection: &'s Selection, writer: ExplainWriter<W>) -> Explaining<'s, W> {
        Explaining {
            selection,
            writer,
            pending: Vec::new(),
            objects: BTreeSet::new(),
            containers: BTreeSet::new(),
            unreadable: Vec::new(),
            without_pod_spec: Vec::new(),
            selected_pods: 0,
            rollouts: false,
        }
    }

    fn file(
        &mut self,
        name: String,
        bytes: Vec<u8>,
        settings: &Settings,
        role: FileRole,
    ) -> io::Result<()> {
        let mut result = Ok(());
        lint_bytes_with(name, bytes, settings, role, &mut |visit| {
            if result.is_err() {
                return;
            }
            result = match visit {
                Visit::Object(visit) => {
                    self.object(visit);
                    Ok(())
                }
                Visit::DocumentEnd(kept) => self.document_end(kept),
            };
        });
        result
    }

    fn object(&mut self, visit: &crate::lint::ObjectVisit<'_>) {
        let object = &visit.object.object;
        if self.objects.len() < 10_000 {
            self.objects.insert(object.display_name());
        }
        if !self.selection.wants_object(object) {
            return;
        }
        let Some((site, life)) = visit.pod else {
            let span = visit.document.node(visit.object.root).span;
            let at = format!(
                "{}:{}",
                visit.file.path,
                visit.file.line_col(span.start).line
            );
            let undecodable = visit
                .diagnostics
                .iter()
                .any(|d| matches!(d.rule, "invalid-type" | "yaml-syntax"));
            if undecodable {
                self.unreadable.push((object.clone(), at));
            } else if self.selection.object.is_some() {
                self.without_pod_spec.push((object.clone(), at));
            }
            return;
        };
        self.selected_pods += 1;
        if self.selection.container.is_some() && self.containers.len() < 10_000 {
            self.containers
                .extend(life.containers.iter().map(|c| c.name.to_owned()));
        }
        if let Some(name) = &self.selection.container
            && !life.containers.iter().any(|c| c.name == name)
        {
            return;
        }
        // A custom kind's pod spec is where its kind puts it, not where the decoded site says.
        let spec_path = visit.spec_path.unwrap_or(&site.spec_path);
        let span = locate(visit.document, visit.object, spec_path, Part::Key);
        let mut sorted = visit.diagnostics.to_vec();
        crate::diagnostics::sort(&mut sorted);
        let spans = sorted
            .iter()
            .map(|d| (d.span, d.rule, d.message.clone()))
            .collect();
        let findings = sorted
            .iter()
            .map(|d| JsonDiagnostic::new(visit.file, d))
            .collect();
        if self.rollouts {
            // A Pod or a PodTemplate has no controller to roll it out.
            if let Some(rollout) = visit.rollout {
                let root = visit.document.node(visit.object.root).span;
                let explained = explain_rollout(RolloutSource {
                    file: &visit.file.path,
                    line: visit.file.line_col(root.start).line,
                    object,
                    life,
                    rollout,
                    findings,
                });
                self.pending.push(Pending {
                    explained: Explained::Rollout(Box::new(explained)),
                    spans,
                });
            }
            return;
        }
        let pod = explain_pod(PodSource {
            file: &visit.file.path,
            line: visit.file.line_col(span.start).line,
            object,
            spec_path: spec_path.to_string(),
            life,
            readiness_gates: site
                .spec
                .readiness_gates
                .as_ref()
                .is_some_and(|gates| !gates.is_empty()),
            active_deadline_seconds: site.spec.active_deadline_seconds,
            findings,
        });
        self.pending.push(Pending {
            explained: Explained::Pod(Box::new(pod)),
            spans,
        });
    }

    /// A document is done: its pods keep the findings `check` reports (suppressions
    /// applied) and are written.
    fn document_end(&mut self, kept: &[Diagnostic]) -> io::Result<()> {
        for Pending { explained, spans } in std::mem::take(&mut self.pending) {
            let mut found = spans.iter();
            let mut keep = |_: &JsonDiagnostic| {
                found.next().is_some_and(|(span, rule, message)| {
                    kept.iter()
                        .any(|d| d.span == *span && d.rule == *rule && d.message == *message)
                })
            };
            match explained {
                Explained::Pod(mut pod) => {
                    pod.findings.retain(|d| keep(d));
                    if let Some(name) = &self.selection.container {
                        pod.retain_container(name);
                    }
                    self.writer.pod(&pod)?;
                }
                Explained::Rollout(mut rollout) => {
                    rollout.findings.retain(|d| keep(d));
                    self.writer.rollout(&rollout)?;
                }
            }
        }
        Ok(())
    }

    /// Says what matched nothing, closes the output and picks the exit code.
    fn finish(self, args: &ExplainArgs, failed: bool) -> io::Result<u8> {
        for (object, at) in &self.unreadable {
            let file = at.rsplit_once(':').map_or(at.as_str(), |(file, _)| file);
            eprint_line(format_args!(
                "podcycle: warning: {} ({at}) has a pod spec that cannot be read; `podcycle check {file}` says why",
                object.display_name(),
            ))?;
        }
        let written = self.writer.written();
        let selected_elsewhere = !self.unreadable.is_empty() || !self.without_pod_spec.is_empty();
        if written == 0
            && let Some(code) = self.nothing_matched(args, selected_elsewhere)?
        {
            // A usage error: nothing on standard output.
            return Ok(code);
        }
        self.writer.finish()?;
        if written == 0 {
            if self.rollouts && self.selected_pods > 0 && !failed {
                eprint_line(format_args!(
                    "podcycle: no workload controller found in {} (explain --rollout reads Deployments, ReplicaSets, ReplicationControllers, StatefulSets, DaemonSets, Jobs and CronJobs; a Pod has no rollout)",
                    shown_paths(args)
                ))?;
            } else if !failed && !selected_elsewhere {
                eprint_line(format_args!(
                    "podcycle: no pod spec found in {} (explain reads Pods, PodTemplates and workload controllers)",
                    shown_paths(args)
                ))?;
            }
            return Ok(if failed { EXIT_ERROR } else { EXIT_FINDINGS });
        }
        Ok(if failed { EXIT_ERROR } else { EXIT_CLEAN })
    }

    /// The usage error for an `--object` or `--container` that matches nothing, or for an
    /// object without a pod spec; `None` when none applies.
    fn nothing_matched(
        &self,
        args: &ExplainArgs,
        selected_elsewhere: bool,
    ) -> io::Result<Option<u8>> {
        if let Some(selector) = &self.selection.object
            && self.selected_pods == 0
        {
            if let Some((object, at)) = self.without_pod_spec.first() {
                eprint_line(format_args!(
                    "podcycle: {} ({at}) has no pod spec to explain",
                    object.display_name()
                ))?;
                return Ok(Some(EXIT_FINDINGS));
            }
            if !selected_elsewhere {
                let wanted = selector.display();
                let candidates: Vec<&str> = self.objects.iter().map(String::as_str).collect();
                let hint = match did_you_mean_help(&wanted, &candidates) {
                    Some(help) => format!("; {help}"),
                    None if candidates.is_empty() => "; it holds no workload objects".to_owned(),
                    None => format!("; it holds {}", list(&candidates)),
                };
                return Ok(Some(usage_error(&format!(
                    "no object `{wanted}` in {}{hint}",
                    shown_paths(args)
                ))));
            }
        }
        if let Some(name) = &self.selection.container
            && self.selected_pods > 0
        {
            let names: Vec<&str> = self.containers.iter().map(String::as_str).collect();
            let hint = did_you_mean_help(name, &names)
                .unwrap_or_else(|| format!("the containers are {}", list(&names)));
            let place = self
                .selection
                .object
                .as_ref()
                .map_or_else(|| shown_paths(args), ObjectSelector::display);
            return Ok(Some(usage_error(&format!(
                "no container `{name}` in {place}; {hint}"
            ))));
        }
        Ok(None)
    }
}

fn shown_paths(args: &ExplainArgs) -> String {
    if args.paths.is_empty() {
        return ".".to_owned();
    }
    let paths: Vec<String> = args.paths.iter().map(|p| p.display().to_string()).collect();
    paths.join(", ")
}

/// `` `a`, `b` and `c` ``; past ten names, `` `a`, ..., `j` and 3 more ``.
fn list(names: &[&str]) -> String {
    const SHOWN: usize = 10;
    if names.len() <= SHOWN {
        return name_list(names.iter().copied());
    }
    let shown: Vec<String> = names[..SHOWN].iter().map(|n| format!("`{n}`")).collect();
    format!("{} and {} more", shown.join(", "), names.len() - SHOWN)
}

/// Explains `text` as `path` with `settings`, every object and container, and returns what
/// `podcycle explain` (with `--rollout`, when `rollouts`) would print.
pub fn explain_text(
    path: &str,
    text: &str,
    settings: &Settings,
    format: ExplainFormat,
    rollouts: bool,
) -> String {
    let selection = Selection::default();
    let writer = if rollouts {
        ExplainWriter::for_rollouts(Vec::new(), format)
    } else {
        ExplainWriter::new(Vec::new(), format)
    };
    let mut run = Explaining::new(&selection, writer);
    run.rollouts = rollouts;
    run.file(
        path.to_owned(),
        text.as_bytes().to_vec(),
        settings,
        FileRole::Manifest,
    )
    .expect("writing to memory");
    let out = run.writer.finish().expect("writing to memory");
    String::from_utf8_lossy(&out).into_owned()
}

/// `explain` lists the findings in the shape `check --format json` writes them.
impl Finding for JsonDiagnostic {
    fn severity(&self) -> &str {
        self.severity.as_str()
    }
    fn rule(&self) -> &str {
        self.rule
    }
    fn file(&self) -> &str {
        &self.file
    }
    fn line(&self) -> usize {
        self.line
    }
    fn column(&self) -> usize {
        self.column
    }
    fn message(&self) -> &str {
        &self.message
    }
    fn container(&self) -> Option<&str> {
        self.container.as_deref()
    }
    fn field(&self) -> Option<&str> {
        self.field.as_deref()
    }
}
