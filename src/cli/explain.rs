//! `podcycle explain`: plan the files, charts and overlays as `check` does ([`crate::run`]),
//! lint them one after another, and write each selected pod's explanation as soon as its
//! document is done, so that memory stays near the size of the largest file (or rendered
//! chart), whatever the number of pods.

use std::collections::BTreeSet;
use std::io::{self, Write};

use super::configs::{open_configs, print_config_errors};
use super::{
    ColorChoice, EXIT_CLEAN, EXIT_ERROR, EXIT_FINDINGS, ExplainArgs, eprint_line, stderr_colors,
    usage_error,
};
use crate::diagnostics::{Diagnostic, Enforcement, Severity};
use crate::explain::{
    ExplainFormat, ExplainWriter, ObjectSelector, PodExplanation, PodFilter, PodSource,
    ShownFinding, explain_pod,
};
use crate::lint::{FileRole, Visit, locate};
use crate::model::ObjectRef;
use crate::render::Output;
use crate::report::JsonDiagnostic;
use crate::rules::Part;
use crate::run::rendering::{Placer, unrendered as unrendered_note};
use crate::run::{
    ConfigChoice, FilePlan, RenderJob, RenderedOutput, Renderer, RunOptions, RunPlan,
    lint_bytes_with, read_path, read_stdin,
};
use crate::safe_fs::Reader;
use crate::settings::Settings;
use crate::source::{SourceFile, Span};
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
    let filter = PodFilter {
        object,
        container: args.container.clone(),
    };
    let stdin_count = args.paths.iter().filter(|p| p.as_os_str() == "-").count();
    if stdin_count > 1 {
        return Ok(usage_error("`-` (standard input) may be given only once"));
    }
    let options = run_options(args);
    let Some(mut configs) = open_configs(&options, ColorChoice::Auto)? else {
        return Ok(EXIT_ERROR);
    };

    // Plan every input first, as `check` does, so that a broken configuration stops the
    // command before anything is written.
    let mut plan = RunPlan::new(&options, &mut configs, &args.paths, None);
    let mut failed = false;
    for error in &plan.discovered.errors {
        eprint_line(format_args!("podcycle: error: {error}"))?;
        failed = true;
    }
    if print_config_errors(&configs, stderr_colors(ColorChoice::Auto))? {
        return Ok(EXIT_ERROR);
    }

    // Buffered: a pod's output is many short lines, which a line-buffered stdout would write
    // one system call at a time.
    let writer = ExplainWriter::new(io::BufWriter::new(io::stdout().lock()), args.format);
    let mut run = Explaining::new(&filter, writer);
    if let Some(stdin) = plan.stdin.take() {
        run.file(stdin.name, read_stdin()?, &stdin.plan)?;
    }
    let reader = Reader::default();
    for (path, file_plan) in std::mem::take(&mut plan.files) {
        match read_path(&reader, &path) {
            Ok((name, bytes)) => run.file(name, bytes, &file_plan)?,
            Err(message) => {
                eprint_line(format_args!("podcycle: error: {message}"))?;
                failed = true;
            }
        }
    }
    // Charts and overlays as `check` renders them, one at a time: each pod is written as its
    // document ends, placed in the template, base or patch that wrote it.
    let renderer = Renderer::new(&options);
    let mut unrendered = Vec::new();
    for job in &plan.renders {
        match renderer.render(job) {
            Ok(output) => run.rendered(output, job)?,
            Err(not_rendered) => {
                let sentence = unrendered_note(job, not_rendered).sentence();
                if !unrendered.contains(&sentence) {
                    eprint_line(format_args!("podcycle: warning: {sentence}"))?;
                    unrendered.push(sentence);
                }
            }
        }
    }
    run.finish(args, failed)
}

/// The run `explain` is asked for: its options over each file's configuration; the rules as
/// configured, since `explain` lists the findings of `check`.
fn run_options(args: &ExplainArgs) -> RunOptions {
    let config = match (&args.config, args.no_config) {
        (Some(path), _) => ConfigChoice::File(path.clone()),
        (None, true) => ConfigChoice::Nothing,
        (None, false) => ConfigChoice::Nearest,
    };
    RunOptions {
        config,
        kube_version: args.kube_version,
        helm: args.render.helm_overrides(),
        rendering: args.render.rendering(),
        ..RunOptions::default()
    }
}

/// The explaining of every input: pods are written as their document ends; what the command
/// needs to say at the end (nothing matched, suggestions) is kept small.
struct Explaining<'s, W: Write> {
    filter: &'s PodFilter,
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
}

/// A pod explained, and its findings as linted, to keep those its document keeps.
struct Pending {
    pod: PodExplanation<JsonDiagnostic>,
    found: Vec<Diagnostic>,
}

/// Where the pods and findings of what is linted are shown: the file itself, or, for rendered
/// output, the template, base or patch that wrote each.
enum Shown<'p, 'r> {
    AsRead,
    Rendered {
        placer: &'p mut Placer<'r>,
        /// Only the pods of these templates are explained, when some are named.
        named_templates: &'p [String],
    },
}

impl Shown<'_, '_> {
    /// A finding as `check` reports it, in the file that wrote it.
    fn finding(&mut self, file: &SourceFile, diagnostic: &Diagnostic) -> JsonDiagnostic {
        match self {
            Shown::AsRead => JsonDiagnostic::new(file, diagnostic),
            Shown::Rendered { placer, .. } => {
                let (file, placed) = placer.place(diagnostic.clone());
                JsonDiagnostic::new(&file, &placed)
            }
        }
    }

    /// The file and line of a place in what was linted; `None` for a place outside the named
    /// templates.
    fn line(&mut self, file: &SourceFile, at: Span, object: &ObjectRef) -> Option<(String, usize)> {
        match self {
            Shown::AsRead => Some((file.path.clone(), file.line_col(at.start).line)),
            Shown::Rendered {
                placer,
                named_templates,
            } => {
                let mut place =
                    Diagnostic::new("", Severity::Info, Enforcement::Advice, at, String::new());
                place.object = Some(object.clone());
                let (file, placed) = placer.place(place);
                if !named_templates.is_empty() && !named_templates.contains(&file.path) {
                    return None;
                }
                Some((file.path.clone(), file.line_col(placed.span.start).line))
            }
        }
    }
}

impl<'s, W: Write> Explaining<'s, W> {
    fn new(filter: &'s PodFilter, writer: ExplainWriter<W>) -> Explaining<'s, W> {
        Explaining {
            filter,
            writer,
            pending: Vec::new(),
            objects: BTreeSet::new(),
            containers: BTreeSet::new(),
            unreadable: Vec::new(),
            without_pod_spec: Vec::new(),
            selected_pods: 0,
        }
    }

    /// Explains the pods of a file as it is.
    fn file(&mut self, name: String, bytes: Vec<u8>, plan: &FilePlan) -> io::Result<()> {
        let mut result = Ok(());
        lint_bytes_with(name, bytes, &plan.settings, plan.role, &mut |visit| {
            if result.is_ok() {
                result = self.visit(visit, &mut Shown::AsRead);
            }
        });
        result
    }

    /// Explains the pods of a rendered chart or overlay.
    fn rendered(&mut self, output: Output, job: &RenderJob) -> io::Result<()> {
        let named: Vec<String> = job
            .named_templates
            .iter()
            .map(|p| crate::render::display(p))
            .collect();
        let mut output = RenderedOutput::new(output);
        let mut result = Ok(());
        output.lint_with(&job.plan, &mut |visit, placer| {
            if result.is_ok() {
                let mut shown = Shown::Rendered {
                    placer,
                    named_templates: &named,
                };
                result = self.visit(visit, &mut shown);
            }
        });
        result
    }

    fn visit(&mut self, visit: Visit<'_, '_>, shown: &mut Shown<'_, '_>) -> io::Result<()> {
        match visit {
            Visit::Object(visit) => {
                self.object(visit, shown);
                Ok(())
            }
            Visit::DocumentEnd(kept) => self.document_end(kept),
        }
    }

    fn object(&mut self, visit: &crate::lint::ObjectVisit<'_>, shown: &mut Shown<'_, '_>) {
        let object = &visit.object.object;
        self.remember(object);
        if !self.filter.wants_object(object) {
            return;
        }
        let Some((site, life)) = visit.pod else {
            let span = visit.document.node(visit.object.root).span;
            let Some((file, line)) = shown.line(visit.file, span, object) else {
                return;
            };
            let at = format!("{file}:{line}");
            let undecodable = visit
                .diagnostics
                .iter()
                .any(|d| matches!(d.rule, "invalid-type" | "yaml-syntax"));
            if undecodable {
                self.unreadable.push((object.clone(), at));
            } else if self.filter.object.is_some() {
                self.without_pod_spec.push((object.clone(), at));
            }
            return;
        };
        // A custom kind's pod spec is where its kind puts it, not where the decoded site says.
        let spec_path = visit.spec_path.unwrap_or(&site.spec_path);
        let in_document = visit.object.prefix.join(spec_path.segments());
        let span = locate(visit.document, &in_document, Part::Key);
        let Some((file, line)) = shown.line(visit.file, span, object) else {
            return;
        };
        self.selected_pods += 1;
        if self.filter.container.is_some() && self.containers.len() < 10_000 {
            self.containers
                .extend(life.containers.iter().map(|c| c.name.to_owned()));
        }
        if let Some(name) = &self.filter.container
            && !life.containers.iter().any(|c| c.name == name)
        {
            return;
        }
        let mut found = visit.diagnostics.to_vec();
        crate::diagnostics::sort(&mut found);
        let findings = found.iter().map(|d| shown.finding(visit.file, d)).collect();
        let pod = explain_pod(PodSource {
            file: &file,
            line,
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
        self.pending.push(Pending { pod, found });
    }

    /// Remembers an object's name, for suggestions when `--object` matches nothing.
    fn remember(&mut self, object: &ObjectRef) {
        if self.objects.len() < 10_000 {
            self.objects.insert(object.display_name());
        }
    }

    /// A document is done: its pods keep the findings `check` reports (suppressions
    /// applied) and are written.
    fn document_end(&mut self, kept: &[Diagnostic]) -> io::Result<()> {
        for Pending { mut pod, found } in std::mem::take(&mut self.pending) {
            let mut found = found.iter();
            pod.findings.retain(|_| {
                found
                    .next()
                    .is_some_and(|linted| kept.iter().any(|d| d.same_finding(linted)))
            });
            if let Some(name) = &self.filter.container {
                pod.retain_container(name);
            }
            self.writer.pod(&pod)?;
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
            if !failed && !selected_elsewhere {
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
        if let Some(selector) = &self.filter.object
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
        if let Some(name) = &self.filter.container
            && self.selected_pods > 0
        {
            let names: Vec<&str> = self.containers.iter().map(String::as_str).collect();
            let hint = did_you_mean_help(name, &names)
                .unwrap_or_else(|| format!("the containers are {}", list(&names)));
            let place = self
                .filter
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
/// `podcycle explain` would print.
pub fn explain_text(path: &str, text: &str, settings: &Settings, format: ExplainFormat) -> String {
    let filter = PodFilter::default();
    let mut run = Explaining::new(&filter, ExplainWriter::new(Vec::new(), format));
    let plan = FilePlan {
        settings: settings.clone(),
        fail_at: None,
        role: FileRole::Manifest,
        keep_text: false,
    };
    run.file(path.to_owned(), text.as_bytes().to_vec(), &plan)
        .expect("writing to memory");
    let out = run.writer.finish().expect("writing to memory");
    String::from_utf8_lossy(&out).into_owned()
}

/// `explain` lists the findings in the shape `check --format json` writes them.
impl ShownFinding for JsonDiagnostic {
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
