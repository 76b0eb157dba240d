//! A failed `kustomize build`: a finding of `render-error` where the error is caused by the
//! overlay's files, at the kustomization entry, file and line Kustomize names, or a note when
//! the environment caused it ([`crate::render::failure`]).
//!
//! Kustomize wraps an error in each kustomization it passes through
//! (`api/internal/target/kusttarget.go`): `recursed accumulation of path '/abs/dir': …`,
//! `couldn't make target for path '/abs/dir': …`; the innermost is where it happened. There it
//! names an entry (`accumulating resources from 'x.yaml'`, `merging resources from …`), a line
//! (`MalformedYAMLError: yaml: line 3: … in File: x.yaml`, `invalid Kustomization: yaml: line
//! 3: …`), a field (`json: unknown field "foo"`) or a patch's target (`no matches for Id
//! Deployment.v1.apps/web.[noNs]`).

use std::path::{Path, PathBuf};

use super::tree::{Kustomization, PatchSource};
use crate::diagnostics::RenderTool;
use crate::render::failure::{
    Refusal, Verdict, between, error_text, find_in_file, same_dir, yaml_line,
};
use crate::render::files::{is_file, read_text};
use crate::render::process::Failure;

/// Judges a failed `kustomize build` of the overlay whose kustomizations are `tree` (the
/// overlay's first), with messages cleaned by `clean`.
pub fn judge(failure: &Failure, tree: &[Kustomization], clean: &dyn Fn(&str) -> String) -> Verdict {
    let Failure::Exited { stderr } = failure else {
        return Verdict::NotRendered(clean(&failure.reason()));
    };
    // Whatever its words: a build that ran and failed is the overlay's ([`crate::render::failure`]).
    let raw = error_text(stderr);
    let Some(overlay) = tree.first() else {
        return Verdict::NotRendered(clean(&raw));
    };
    // The innermost kustomization the error passed through (its directory, and whether podcycle
    // read it), and what the error says there.
    let mut dir = overlay.dir.clone();
    let mut kustomization = Some(overlay);
    let mut message = raw.as_str();
    for marker in [
        "recursed accumulation of path '",
        "couldn't make target for path '",
    ] {
        let mut rest = raw.as_str();
        while let Some(at) = rest.find(marker) {
            rest = &rest[at + marker.len()..];
            let Some((named, after)) = rest.split_once("': ") else {
                break;
            };
            if after.len() < message.len() && Path::new(named).is_dir() {
                dir = PathBuf::from(named);
                kustomization = tree.iter().find(|k| same_dir(&k.dir, &dir));
                message = after;
            }
        }
    }
    // `accumulation err='X': must build at directory: …`: X is why; the rest is Kustomize
    // trying the entry as a directory too.
    if let Some(inner) = message
        .strip_prefix("accumulating resources: ")
        .unwrap_or(message)
        .strip_prefix("accumulation err='")
        && let Some(end) = inner.rfind("': must build at directory")
    {
        message = &inner[..end];
    }
    let message = message
        .strip_prefix("accumulating resources: ")
        .unwrap_or(message);
    let refusal = |file: PathBuf, line, column, length| {
        Verdict::Refused(Box::new(Refusal {
            tool: RenderTool::Kustomize,
            command: RenderTool::Kustomize.command(),
            file,
            line,
            column,
            length,
            message: clean(message),
            // The rest is each kustomization the error passed through, podcycle's own first.
            error: clean(message),
        }))
    };
    // A kustomization podcycle could not read (not valid YAML) is still where the error is.
    let own_file = kustomization.map_or_else(
        || super::kustomization_file(&dir).unwrap_or_else(|| overlay.file.clone()),
        |k| k.file.clone(),
    );
    // A malformed file it lists: `… in File: x.yaml`, with the line in that file.
    if let Some((_, file)) = message.rsplit_once(" in File: ") {
        let path = dir.join(file.trim());
        if is_file(&path) {
            return refusal(path, yaml_line(message), None, 0);
        }
    }
    if message.starts_with("invalid Kustomization: ") {
        if let Some(line) = yaml_line(message) {
            return refusal(own_file, Some(line), None, 0);
        }
        if let Some(field) = between(message, "unknown field \"", "\"").map(|(f, _)| f)
            && let Some((line, column)) = find_in_file(&own_file, &format!("{field}:"))
        {
            return refusal(own_file, Some(line), Some(column), field.len());
        }
        return refusal(own_file, None, None, 0);
    }
    // The entry it names: `accumulating resources from 'x.yaml'`, `merging resources from …`.
    for marker in [
        "resources from '",
        "file sources: [",
        "env source: ",
        "patch '",
    ] {
        if let Some((entry, _)) =
            between(message, marker, "'").or_else(|| between(message, marker, "]"))
            && let Some((line, column)) = find_in_file(&own_file, entry)
        {
            return refusal(own_file, Some(line), Some(column), entry.len());
        }
    }
    // A patch that matches nothing: `no matches for Id Deployment.v1.apps/web.[noNs]`.
    if let Some((id, _)) = between(message, "no matches for Id ", ";")
        .or_else(|| between(message, "no matches for Id ", "\n"))
        && let Some(name) = id
            .split_once('/')
            .map(|(_, rest)| rest.rsplit_once(".[").map_or(rest, |(n, _)| n))
    {
        for patch in kustomization.iter().flat_map(|k| &k.patches) {
            if let PatchSource::File(path) = &patch.source
                && let Ok(text) = read_text(path)
                && text.lines().any(|l| l.trim() == format!("name: {name}"))
                && let Some(entry) = path.file_name().and_then(|n| n.to_str())
                && let Some((line, column)) = find_in_file(&own_file, entry)
            {
                return refusal(own_file, Some(line), Some(column), entry.len());
            }
        }
    }
    refusal(own_file, None, None, 0)
}
