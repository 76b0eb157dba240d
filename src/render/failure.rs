//! A renderer that failed: because of the chart or overlay (a finding of `render-error`, at the
//! file, line and column the renderer names), or because of the environment (a note that the
//! input was not rendered, which `--fail-on-unrendered` governs).
//!
//! A chart that `helm template` refuses cannot be installed, and an overlay that `kustomize
//! build` refuses cannot be applied: that is as much a finding as a manifest the API server
//! rejects, and a pull request must not turn a failing check green by breaking the chart. What
//! the input cannot help — a renderer that is not installed, dependencies not vendored, remote
//! bases, a limit of podcycle's, the system refusing — stays a note.
//!
//! Helm's messages are read as Helm writes them (`pkg/engine/engine.go`, `cleanupExecError` and
//! `cleanupParseError`): `execution error at (CHART/templates/x.yaml:51:51): MESSAGE` for `fail`
//! and `required`, `template: CHART/templates/x.yaml:3:11: executing "…" at <…>: MESSAGE` for
//! other errors of a running template (a missing `include`), `parse error at
//! (CHART/templates/x.yaml:5): …`, `YAML parse error on CHART/templates/x.yaml: …` (the line is
//! of the template's output), `cannot load values.yaml: … yaml: line N: …`, `validation:
//! chart.metadata.name is required`. Kustomize's are read by
//! [`crate::render::kustomize::refusal`].

use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::files::read_text;
use super::process::{Failure, last_error_line};
use crate::diagnostics::{Diagnostic, Enforcement, RenderTool, Severity};
use crate::source::{SourceFile, Span};

/// The rule that reports a refusal (declared in `rules`, which this layer does not see).
pub(crate) const RULE: &str = "render-error";

/// A renderer's refusal of the chart or overlay, placed in the user's files.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refusal {
    pub(crate) tool: RenderTool,
    /// The command that refused: `helm template`, `kustomize build`, `kubectl kustomize`.
    pub(crate) command: &'static str,
    /// The file the renderer names (or the chart's `Chart.yaml`, the overlay's kustomization).
    pub(crate) file: PathBuf,
    /// Where in it, when the renderer says: 1-based line and column, and how many bytes from
    /// there the finding covers (0: the rest of the line).
    pub line: Option<usize>,
    pub column: Option<usize>,
    pub(crate) length: usize,
    /// The renderer's message, with temporary paths replaced by the user's.
    pub message: String,
    /// The renderer's whole error, cleaned the same way, when it says more than `message`.
    pub error: String,
}

impl Refusal {
    /// The refusal in a sentence, where it is not a finding (`render-error` turned off, the
    /// editor, `explain`): `` `helm template` fails at web/templates/zz.yaml:1:3: nope ``.
    pub(crate) fn sentence(&self) -> String {
        let mut place = super::shown_path(&self.file);
        for number in [self.line, self.column].into_iter().flatten() {
            place.push_str(&format!(":{number}"));
        }
        format!(
            "`{}` fails at {place}: {}",
            self.tool_command(),
            self.message
        )
    }

    /// The command that refused.
    pub(crate) fn tool_command(&self) -> &'static str {
        self.command
    }
}

/// What a failure is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Caused by the input: a finding.
    Refused(Box<Refusal>),
    /// Caused by the environment or a limit: a note, with the reason.
    NotRendered(String),
}

/// What a failure is is decided by what happened, never by the words of its message: the
/// message of a renderer that exited with an error carries text the chart or overlay controls
/// (`{{ fail "dial tcp" }}`, a file named `connection refused.yaml`), so a renderer that ran and
/// refused is a refusal, placed by the message's structure but judged by its exit. What the
/// environment causes is known without reading it: a limit, a signal, a renderer that cannot
/// start ([`Failure`]'s other variants); what podcycle refuses before running (remote
/// resources, plugins, dependencies not vendored) never reaches the renderer.
/// Judges a failed `helm template` of the chart at `chart` (as the user names it: `shown`),
/// whose messages are cleaned with `clean`.
pub fn helm(failure: &Failure, chart: &Path, clean: &dyn Fn(&str) -> String) -> Verdict {
    let Failure::Exited { stderr } = failure else {
        return Verdict::NotRendered(clean(&failure.reason()));
    };
    let error = clean(&error_text(stderr));
    let chart_file = chart.join("Chart.yaml");
    let at_chart = |message: String, file: PathBuf, line: Option<usize>| {
        Verdict::Refused(Box::new(Refusal {
            tool: RenderTool::Helm,
            command: RenderTool::Helm.command(),
            file,
            line,
            column: None,
            length: 0,
            message,
            error: error.clone(),
        }))
    };
    // A template of the chart (or of a vendored chart), by Helm's name for it:
    // `CHART/templates/x.yaml`, `CHART/charts/dep/templates/x.yaml`.
    let template = |name: &str| -> Option<PathBuf> {
        let (_, relative) = name.split_once('/')?;
        let path = chart.join(relative);
        super::files::is_file(&path).then_some(path)
    };
    // `execution error at (CHART/templates/x.yaml:51:51): message`, `parse error at (…:5): …`,
    // `template: CHART/templates/x.yaml:3:11: executing "…" at <…>: message`.
    let located = between(&error, "execution error at (", "): ")
        .or_else(|| between(&error, "parse error at (", "): "))
        .or_else(|| error.strip_prefix("template: ")?.split_once(": "));
    if let Some((location, message)) = located {
        let (name, line, column) = location_parts(location);
        if let Some(path) = template(name) {
            return Verdict::Refused(Box::new(Refusal {
                tool: RenderTool::Helm,
                command: RenderTool::Helm.command(),
                file: path,
                line,
                column,
                length: 0,
                message: message.to_owned(),
                error: error.clone(),
            }));
        }
    }
    if let Some(rest) = error.strip_prefix("YAML parse error on ")
        && let Some((name, message)) = rest.split_once(": ")
        && let Some(path) = template(name)
    {
        return at_chart(
            format!("the template's output is not valid YAML: {message}"),
            path,
            None,
        );
    }
    for file in ["values.yaml", "Chart.yaml"] {
        if let Some(message) = error.strip_prefix(&format!("cannot load {file}: ")) {
            return at_chart(message.to_owned(), chart.join(file), yaml_line(message));
        }
    }
    // `chart requires kubeVersion: >=1.40 which is incompatible with Kubernetes v1.33.0`: the
    // chart cannot be installed on the cluster version it is judged for.
    if let Some((_, rest)) = between(
        &error,
        "chart requires kubeVersion: ",
        " which is incompatible",
    ) && !rest.is_empty()
        && let Some((line, column)) = find_in_file(&chart_file, "kubeVersion:")
    {
        return Verdict::Refused(Box::new(Refusal {
            tool: RenderTool::Helm,
            command: RenderTool::Helm.command(),
            file: chart_file,
            line: Some(line),
            column: Some(column),
            length: "kubeVersion".len(),
            message: format!("{error} (the Kubernetes version is --kube-version)"),
            error: error.clone(),
        }));
    }
    if error.starts_with("values don't meet the specifications of the schema") {
        let schema = chart.join("values.schema.json");
        let file = if super::files::is_file(&schema) {
            schema
        } else {
            chart_file
        };
        return at_chart(error.clone(), file, None);
    }
    at_chart(error.clone(), chart_file, None)
}

/// The finding for a refusal, in the file it names, with the severity the settings give
/// `render-error`.
pub(crate) fn diagnostic(
    refusal: &Refusal,
    input: &str,
    severity: Severity,
) -> (Arc<SourceFile>, Diagnostic) {
    let shown = super::shown_path(&refusal.file);
    let text = read_text(&refusal.file).unwrap_or_default();
    let file = SourceFile::new(shown, text);
    let span = refusal_span(&file, refusal.line, refusal.column, refusal.length);
    let command = refusal.tool_command();
    let mut diagnostic = Diagnostic::new(
        RULE,
        severity,
        Enforcement::Renderer,
        span,
        format!("`{command}` fails: {}", super::printable(&refusal.message)),
    );
    if refusal.error != refusal.message {
        diagnostic
            .notes
            .push(format!("{command}: {}", super::printable(&refusal.error)));
    }
    diagnostic.help = Some(match refusal.tool {
        RenderTool::Helm => {
            format!("render the chart with `helm template {input}` to see the error")
        }
        // Kustomize's load restrictor (`api/internal/loader/loadrestrictions.go`).
        RenderTool::Kustomize if refusal.message.contains("is not in or below") => {
            "move the file under the kustomization's directory, or, if this repository builds it with `--load-restrictor LoadRestrictionsNone`, say so in .podcycle.yaml: `kustomize: {load-restrictor: LoadRestrictionsNone}`".to_owned()
        }
        RenderTool::Kustomize => {
            format!("build the overlay with `{command} {input}` to see the error")
        }
    });
    // Not `rendered`: the finding is not in an output, there is none.
    (Arc::new(file), diagnostic)
}

/// Where in `file` a refusal at a 1-based `line` and `column` goes: from the column (counted in
/// characters) for `length` bytes, else to the end of the template action there, else to the
/// end of the line; the first line when the renderer names no line.
pub fn refusal_span(
    file: &SourceFile,
    line: Option<usize>,
    column: Option<usize>,
    length: usize,
) -> Span {
    let Some(line) = line.filter(|&line| line >= 1 && line <= file.line_count()) else {
        return Span::new(0, file.content_end(0));
    };
    let start = file.line_start(line - 1);
    let end = file.content_end(line - 1);
    let at = start + column.map_or(0, |column| column_offset(&file.text[start..end], column));
    let end = if length > 0 {
        at.saturating_add(length).min(end)
    } else if column.is_some()
        && let Some(close) = file.text[at..end].find("}}")
    {
        // The template action the renderer names, to its end.
        at + close + 2
    } else {
        end
    };
    Span::new(
        file.clamp_to_char_boundary(at),
        file.clamp_to_char_boundary(end.max(at)),
    )
}

/// The renderer's error: from its last `Error: ` line to the end, without Helm's closing hint
/// (`Use --debug flag to render out invalid YAML`); some errors (a schema's) span lines.
pub(super) fn error_text(stderr: &str) -> String {
    let start = stderr.rfind("Error: ").map_or(0, |at| at + "Error: ".len());
    let text: Vec<&str> = stderr[start..]
        .lines()
        .map(str::trim_end)
        .filter(|line| !line.is_empty() && !line.starts_with("Use --debug flag"))
        .collect();
    if text.is_empty() {
        return last_error_line(stderr).unwrap_or_else(|| "exited with an error".to_owned());
    }
    text.join("\n")
}

/// `text[after marker .. before end]`, and the rest after `end`.
pub(super) fn between<'a>(text: &'a str, marker: &str, end: &str) -> Option<(&'a str, &'a str)> {
    let start = text.find(marker)? + marker.len();
    let rest = &text[start..];
    let stop = rest.find(end)?;
    Some((&rest[..stop], &rest[stop + end.len()..]))
}

/// `name:line:column`, `name:line` or `name`.
fn location_parts(location: &str) -> (&str, Option<usize>, Option<usize>) {
    fn split(text: &str) -> Option<(&str, usize)> {
        let (head, tail) = text.rsplit_once(':')?;
        Some((head, tail.parse::<usize>().ok()?))
    }
    match split(location) {
        Some((head, last)) => match split(head) {
            Some((name, line)) => (name, Some(line), Some(last)),
            None => (head, Some(last), None),
        },
        None => (location, None, None),
    }
}

/// `yaml: line N: …` in a message.
pub(super) fn yaml_line(message: &str) -> Option<usize> {
    between(message, "yaml: line ", ":").and_then(|(n, _)| n.trim().parse().ok())
}

/// The 1-based line and column of the first place `needle` is written in `path` as a whole
/// word (not inside a longer name).
pub(super) fn find_in_file(path: &Path, needle: &str) -> Option<(usize, usize)> {
    if needle.is_empty() {
        return None;
    }
    let text = read_text(path).ok()?;
    let word = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || "._/-".contains(c));
    for (index, line) in text.lines().enumerate() {
        let mut from = 0;
        while let Some(at) = line[from..].find(needle) {
            let start = from + at;
            let end = start + needle.len();
            let before = line[..start].chars().next_back();
            let after = line[end..].chars().next();
            // A key (`name:`) may be followed by anything; a name must end where it ends.
            let ends = !word(after) || needle.ends_with(':');
            if !word(before) && ends {
                return Some((index + 1, line[..start].chars().count() + 1));
            }
            from = end;
        }
    }
    None
}

/// The byte offset of a 1-based column counted in characters.
fn column_offset(line: &str, column: usize) -> usize {
    line.char_indices()
        .nth(column.saturating_sub(1))
        .map_or(line.len(), |(at, _)| at)
}

/// Whether two directories are the same, by path or once resolved.
pub(super) fn same_dir(a: &Path, b: &Path) -> bool {
    a == b || matches!((a.canonicalize(), b.canonicalize()), (Ok(x), Ok(y)) if x == y)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn exited(stderr: &str) -> Failure {
        Failure::Exited {
            stderr: stderr.to_owned(),
        }
    }

    fn chart() -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let chart = dir.path().join("web");
        std::fs::create_dir_all(chart.join("templates")).unwrap();
        std::fs::write(chart.join("Chart.yaml"), "name: mychart\n").unwrap();
        std::fs::write(chart.join("templates/zz.yaml"), "{{ fail \"nope\" }}\n").unwrap();
        (dir, chart)
    }

    fn refused(verdict: Verdict) -> Refusal {
        match verdict {
            Verdict::Refused(refusal) => *refusal,
            Verdict::NotRendered(reason) => panic!("not a refusal: {reason}"),
        }
    }

    #[test]
    fn helm_template_errors_are_placed_where_helm_says() {
        let (_dir, chart) = chart();
        let same = |s: &str| s.to_owned();
        let refusal = refused(helm(
            &exited(
                "Error: execution error at (mychart/templates/zz.yaml:1:3): nope\n\nUse --debug flag to render out invalid YAML\n",
            ),
            &chart,
            &same,
        ));
        assert_eq!(refusal.file, chart.join("templates/zz.yaml"));
        assert_eq!((refusal.line, refusal.column), (Some(1), Some(3)));
        assert_eq!(refusal.message, "nope");
        let refusal = refused(helm(
            &exited(
                "Error: template: mychart/templates/zz.yaml:1:3: executing \"mychart/templates/zz.yaml\" at <include \"nope\" .>: error calling include: template: no template \"nope\" associated with template \"gotpl\"\n",
            ),
            &chart,
            &same,
        ));
        assert_eq!((refusal.line, refusal.column), (Some(1), Some(3)));
        assert!(
            refusal.message.starts_with("executing"),
            "{}",
            refusal.message
        );
        let refusal = refused(helm(
            &exited(
                "Error: parse error at (mychart/templates/zz.yaml:1): unexpected \"}\" in operand\n",
            ),
            &chart,
            &same,
        ));
        assert_eq!((refusal.line, refusal.column), (Some(1), None));
        let refusal = refused(helm(
            &exited(
                "Error: YAML parse error on mychart/templates/zz.yaml: error converting YAML to JSON: yaml: line 2: mapping values are not allowed in this context\n",
            ),
            &chart,
            &same,
        ));
        assert_eq!(refusal.file, chart.join("templates/zz.yaml"));
        assert_eq!(refusal.line, None, "the line is of the output");
        let refusal = refused(helm(
            &exited(
                "Error: cannot load values.yaml: error converting YAML to JSON: yaml: line 4: did not find expected ','\n",
            ),
            &chart,
            &same,
        ));
        assert_eq!(
            (refusal.file, refusal.line),
            (chart.join("values.yaml"), Some(4))
        );
    }

    /// Only what happened decides: a limit is a note; a renderer that ran and refused is a
    /// finding whatever its message says, so `{{ fail "dial tcp" }}` cannot pass for the
    /// network.
    #[test]
    fn what_the_environment_causes_is_a_note_and_words_decide_nothing() {
        let (_dir, chart) = chart();
        let same = |s: &str| s.to_owned();
        for stderr in [
            "Error: execution error at (mychart/templates/zz.yaml:1:3): dial tcp 127.0.0.1:80: connect: connection refused\n",
            "Error: execution error at (mychart/templates/zz.yaml:1:3): nope\nError: Get \"http://x\": dial tcp: no such host\n",
            "Error: found in Chart.yaml, but missing in charts/ directory: redis, executable file not found, external plugins disabled",
            "Error: Get \"http://127.0.0.1:8080/x\": dial tcp 127.0.0.1:8080: connect: network is unreachable",
        ] {
            assert!(
                matches!(helm(&exited(stderr), &chart, &same), Verdict::Refused(_)),
                "{stderr}"
            );
        }
        std::fs::write(
            chart.join("Chart.yaml"),
            "name: mychart\nkubeVersion: \">=1.40\"\n",
        )
        .unwrap();
        let refusal = refused(helm(
            &exited(
                "Error: chart requires kubeVersion: >=1.40 which is incompatible with Kubernetes v1.33.0",
            ),
            &chart,
            &same,
        ));
        assert_eq!((refusal.line, refusal.column), (Some(2), Some(1)));
        assert!(
            refusal
                .message
                .ends_with("(the Kubernetes version is --kube-version)")
        );
        assert_eq!(
            helm(&Failure::OverMemory(1 << 30), &chart, &same),
            Verdict::NotRendered(
                "stopped at 1024 MiB of memory (the renderer's limit; raise it with --render-memory)"
                    .to_owned()
            )
        );
    }

    #[test]
    fn locations() {
        assert_eq!(
            location_parts("a/b.yaml:3:5"),
            ("a/b.yaml", Some(3), Some(5))
        );
        assert_eq!(location_parts("a/b.yaml:3"), ("a/b.yaml", Some(3), None));
        assert_eq!(location_parts("a/b.yaml"), ("a/b.yaml", None, None));
        assert_eq!(yaml_line("x: yaml: line 12: bad"), Some(12));
    }
}
