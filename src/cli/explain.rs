//! `podcycle explain`: find the files and their configuration as `check` does, lint them one
//! after another, and write each selected pod's explanation as soon as its document is done,
//! so that memory stays near the size of the largest file, whatever the number of pods.

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
use crate::discovery::discover;
use crate::discovery::roles::{PatchIndex, role_by_name};
use crate::escape::escape_controls;
use crate::explain::{ExplainFormat, ExplainWriter, Explaining, ObjectSelector, Selection};
use crate::lint::FileRole;
use crate::settings::{Selection as RuleSelection, Settings};
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
        at: None,
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
    let writer = ExplainWriter::new(io::BufWriter::new(io::stdout().lock()), args.format);
    let mut run = Explaining::new(&selection, writer);
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
        explain_file(&mut run, name, bytes, &settings, role)?;
    }
    finish(run, args, failed)
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

/// Lints a file and explains its pods as they are visited.
fn explain_file<W: Write>(
    run: &mut Explaining<'_, W>,
    name: String,
    bytes: Vec<u8>,
    settings: &Settings,
    role: FileRole,
) -> io::Result<()> {
    let mut result = Ok(());
    lint_bytes_with(name, bytes, settings, role, &mut |visit| {
        if result.is_ok() {
            result = run.visit(visit);
        }
    });
    result
}

/// Says what matched nothing, closes the output and picks the exit code.
fn finish<W: Write>(run: Explaining<'_, W>, args: &ExplainArgs, failed: bool) -> io::Result<u8> {
    for (object, at) in &run.unreadable {
        let file = at.rsplit_once(':').map_or(at.as_str(), |(file, _)| file);
        eprint_line(format_args!(
            "podcycle: warning: {} ({at}) has a pod spec that cannot be read; `podcycle check {file}` says why",
            object.display_name(),
        ))?;
    }
    let written = run.writer.written();
    let selected_elsewhere = !run.unreadable.is_empty() || !run.without_pod_spec.is_empty();
    if written == 0
        && let Some(code) = nothing_matched(&run, args, selected_elsewhere)?
    {
        // A usage error: nothing on standard output.
        return Ok(code);
    }
    run.writer.finish()?;
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
fn nothing_matched<W: Write>(
    run: &Explaining<'_, W>,
    args: &ExplainArgs,
    selected_elsewhere: bool,
) -> io::Result<Option<u8>> {
    if let Some(selector) = &run.selection().object
        && run.selected_pods == 0
    {
        if let Some((object, at)) = run.without_pod_spec.first() {
            eprint_line(format_args!(
                "podcycle: {} ({at}) has no pod spec to explain",
                object.display_name()
            ))?;
            return Ok(Some(EXIT_FINDINGS));
        }
        if !selected_elsewhere {
            let wanted = selector.display();
            let candidates: Vec<&str> = run.objects.iter().map(String::as_str).collect();
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
    if let Some(name) = &run.selection().container
        && run.selected_pods > 0
    {
        let names: Vec<&str> = run.containers.iter().map(String::as_str).collect();
        let hint = did_you_mean_help(name, &names)
            .unwrap_or_else(|| format!("the containers are {}", list(&names)));
        let place = run
            .selection()
            .object
            .as_ref()
            .map_or_else(|| shown_paths(args), ObjectSelector::display);
        return Ok(Some(usage_error(&format!(
            "no container `{name}` in {place}; {hint}"
        ))));
    }
    Ok(None)
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
    let selection = Selection::default();
    let mut run = Explaining::new(&selection, ExplainWriter::new(Vec::new(), format));
    explain_file(
        &mut run,
        path.to_owned(),
        text.as_bytes().to_vec(),
        settings,
        FileRole::Manifest,
    )
    .expect("writing to memory");
    let out = run.writer.finish().expect("writing to memory");
    String::from_utf8_lossy(&out).into_owned()
}
