//! `podcycle explain`: read the manifests, explain the selected pod specs, pick the exit code.

use std::collections::HashSet;
use std::io::{self, Write};
use std::path::Path;

use globset::GlobSet;

use super::input::{lint_bytes_with, read_inputs};
use super::{EXIT_CLEAN, EXIT_ERROR, EXIT_FINDINGS, ExplainArgs, eprint_line, usage_error};
use crate::config;
use crate::explain::{self, FileExplanation, ObjectSelector, PodExplanation, Selection};
use crate::lint::FileRole;
use crate::settings::Settings;
use crate::suggest::did_you_mean_help;

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
    let inputs = match read_inputs(&args.paths, "-", &GlobSet::empty(), |path, bytes, role| {
        // The findings under each timeline are those `check` reports for the file: the nearest
        // configuration applies (an explicitly named file is explained even if it excludes it).
        let settings = config::settings_for_path(Path::new(&path), args.kube_version)
            .unwrap_or_else(|| {
                config::settings_without_config(&Default::default(), args.kube_version)
            });
        explain_bytes(path, bytes, &settings, role, &selection)
    })? {
        Ok(inputs) => inputs,
        Err(message) => return Ok(usage_error(&message)),
    };
    let (mut files, failed) = (inputs.results, inputs.failed);

    for (object, at) in files.iter().flat_map(|f| &f.unreadable) {
        let file = at.rsplit_once(':').map_or(at.as_str(), |(file, _)| file);
        eprint_line(format_args!(
            "podcycle: warning: {} ({at}) has a pod spec that cannot be read; `podcycle check {file}` says why",
            object.display_name()
        ))?;
    }
    let mut pods: Vec<PodExplanation> = files.iter_mut().flat_map(|f| f.pods.drain(..)).collect();
    let selected_elsewhere = files
        .iter()
        .any(|f| !f.unreadable.is_empty() || !f.without_pod_spec.is_empty());

    if let Some(selector) = &selection.object
        && pods.is_empty()
    {
        if let Some((object, at)) = files.iter().flat_map(|f| &f.without_pod_spec).next() {
            eprint_line(format_args!(
                "podcycle: {} ({at}) has no pod spec to explain",
                object.display_name()
            ))?;
            return Ok(EXIT_FINDINGS);
        }
        if !selected_elsewhere {
            let objects: Vec<String> = files
                .iter()
                .flat_map(|f| &f.objects)
                .map(|o| o.display_name())
                .collect();
            let wanted = selector.display();
            let candidates: Vec<&str> = objects.iter().map(String::as_str).collect();
            let hint = match did_you_mean_help(&wanted, &candidates) {
                Some(help) => format!("; {help}"),
                None if candidates.is_empty() => "; it holds no workload objects".to_owned(),
                None => format!("; it holds {}", list(&candidates)),
            };
            return Ok(usage_error(&format!(
                "no object `{wanted}` in {}{hint}",
                shown_paths(args)
            )));
        }
    }
    if let Some(name) = &selection.container {
        let names: Vec<&str> = pods
            .iter()
            .flat_map(|p| &p.startup)
            .map(|s| s.container.as_str())
            .collect();
        if !pods.is_empty() && !names.contains(&name.as_str()) {
            let mut unique = names.clone();
            unique.sort_unstable();
            unique.dedup();
            let hint = did_you_mean_help(name, &unique)
                .unwrap_or_else(|| format!("the containers are {}", list(&unique)));
            let place = selection
                .object
                .as_ref()
                .map_or_else(|| shown_paths(args), ObjectSelector::display);
            return Ok(usage_error(&format!(
                "no container `{name}` in {place}; {hint}"
            )));
        }
        pods.retain(|p| p.startup.iter().any(|s| &s.container == name));
        for pod in &mut pods {
            pod.retain_container(name);
        }
    }

    if pods.is_empty() {
        if !failed && !selected_elsewhere {
            eprint_line(format_args!(
                "podcycle: no pod spec found in {} (explain reads Pods, PodTemplates and workload controllers)",
                shown_paths(args)
            ))?;
        }
        return Ok(if failed { EXIT_ERROR } else { EXIT_FINDINGS });
    }
    let mut out = io::stdout().lock();
    explain::write(&mut out, args.format, &pods)?;
    out.flush()?;
    Ok(if failed { EXIT_ERROR } else { EXIT_CLEAN })
}

/// Lints a file for its findings and explains its pod specs in the same pass.
pub fn explain_bytes(
    path: String,
    bytes: Vec<u8>,
    settings: &Settings,
    role: FileRole,
    selection: &Selection,
) -> FileExplanation {
    let mut file = FileExplanation::default();
    let (source, linted) = lint_bytes_with(path, bytes, settings, role, &mut |visit| {
        file.visit(visit, selection);
    });
    // Objects are shown as they are linted; a document's suppressions apply once it has been
    // read whole. Keep only the findings that `check` reports.
    let reported: HashSet<(&str, usize, usize, &str)> = linted
        .diagnostics
        .iter()
        .map(|d| {
            let at = source.line_col(d.span.start);
            (d.rule, at.line, at.column, d.message.as_str())
        })
        .collect();
    for pod in &mut file.pods {
        pod.findings
            .retain(|f| reported.contains(&(f.rule, f.line, f.column, f.message.as_str())));
    }
    file
}

fn shown_paths(args: &ExplainArgs) -> String {
    let paths: Vec<String> = args.paths.iter().map(|p| p.display().to_string()).collect();
    paths.join(", ")
}

/// `` `a`, `b` and `c` ``; past ten names, `` `a`, ..., `j` and 3 more ``.
fn list(names: &[&str]) -> String {
    const SHOWN: usize = 10;
    if names.len() <= SHOWN {
        return crate::rules::name_list(names.iter().copied());
    }
    let shown: Vec<String> = names[..SHOWN].iter().map(|n| format!("`{n}`")).collect();
    format!("{} and {} more", shown.join(", "), names.len() - SHOWN)
}
