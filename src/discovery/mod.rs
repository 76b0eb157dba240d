//! Finds the files to lint: explicit files always, directories walked recursively for
//! `*.yaml`, `*.yml` and `*.json`, honouring `.gitignore`, `.ignore` and `--exclude`.

pub mod roles;

use std::path::{Path, PathBuf};

use globset::{Glob, GlobSet, GlobSetBuilder};
use ignore::WalkBuilder;

/// Extensions of manifest files found by walking a directory.
pub const MANIFEST_EXTENSIONS: [&str; 3] = ["yaml", "yml", "json"];

/// The outcome of discovery: files in a stable order, and problems met on the way.
#[derive(Debug, Default)]
pub struct Discovered {
    pub files: Vec<PathBuf>,
    /// Paths that do not exist or could not be read while walking.
    pub errors: Vec<String>,
}

/// Compiles `--exclude` globs.
pub fn exclude_set(globs: &[String]) -> Result<GlobSet, String> {
    let mut builder = GlobSetBuilder::new();
    for glob in globs {
        let glob = Glob::new(glob).map_err(|e| format!("invalid --exclude glob `{glob}`: {e}"))?;
        builder.add(glob);
    }
    builder.build().map_err(|e| e.to_string())
}

/// Whether `--exclude` matches a path or a directory it is in: the whole path or its last
/// component (so `vendor` excludes every `vendor` directory, as in ruff and ripgrep, and
/// `--exclude deploy` excludes `deploy/web.yaml` when it is named on the command line).
pub fn excluded(exclude: &GlobSet, path: &Path) -> bool {
    let normalised = path.strip_prefix("./").unwrap_or(path);
    normalised
        .ancestors()
        .filter(|p| !p.as_os_str().is_empty() && *p != Path::new("."))
        .any(|p| exclude.is_match(p) || p.file_name().is_some_and(|name| exclude.is_match(name)))
}

pub fn discover(paths: &[PathBuf], exclude: &GlobSet) -> Discovered {
    let mut discovered = Discovered::default();
    for path in paths {
        match std::fs::metadata(path) {
            Err(error) => {
                discovered
                    .errors
                    .push(format!("{}: {}", path.display(), describe_io_error(&error)))
            }
            Ok(metadata) if metadata.is_dir() => walk(path, exclude, &mut discovered),
            // pre-commit and editors pass files explicitly: lint them whatever their name.
            Ok(_) => discovered.files.push(path.clone()),
        }
    }
    discovered.files.sort();
    discovered.files.dedup();
    discovered
}

fn walk(root: &Path, exclude: &GlobSet, discovered: &mut Discovered) {
    let exclude_for_filter = exclude.clone();
    let walker = WalkBuilder::new(root)
        .follow_links(false)
        .filter_entry(move |entry| {
            let path = entry.path();
            if entry.depth() > 0 && excluded(&exclude_for_filter, path) {
                return false;
            }
            !is_helm_templates_dir(entry)
        })
        .build();
    for entry in walker {
        match entry {
            Ok(entry) => {
                let is_file = entry.file_type().is_some_and(|t| t.is_file());
                let is_manifest = entry
                    .path()
                    .extension()
                    .and_then(|e| e.to_str())
                    .is_some_and(|e| MANIFEST_EXTENSIONS.contains(&e));
                if is_file && is_manifest {
                    discovered.files.push(entry.into_path());
                }
            }
            Err(error) => discovered.errors.push(error.to_string()),
        }
    }
}

/// A Helm chart's `templates/` holds Go templates, not manifests: render the chart and pipe
/// it in instead (`helm template . | podcycle check -`).
fn is_helm_templates_dir(entry: &ignore::DirEntry) -> bool {
    entry.file_type().is_some_and(|t| t.is_dir())
        && entry.file_name() == "templates"
        && entry
            .path()
            .parent()
            .is_some_and(|chart| chart.join("Chart.yaml").is_file())
}

pub fn describe_io_error(error: &std::io::Error) -> String {
    match error.kind() {
        std::io::ErrorKind::NotFound => "no such file or directory".to_owned(),
        std::io::ErrorKind::PermissionDenied => "permission denied".to_owned(),
        _ => error.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(globs: &[&str]) -> GlobSet {
        exclude_set(&globs.iter().map(|g| (*g).to_owned()).collect::<Vec<_>>()).unwrap()
    }

    #[test]
    fn an_excluded_directory_excludes_the_files_under_it() {
        let exclude = set(&["deploy"]);
        assert!(excluded(&exclude, Path::new("deploy/web.yaml")));
        assert!(excluded(&exclude, Path::new("./deploy/web.yaml")));
        assert!(excluded(&exclude, Path::new("apps/deploy/web.yaml")));
        assert!(!excluded(&exclude, Path::new("deployment/web.yaml")));
        let exclude = set(&["apps/legacy"]);
        assert!(excluded(&exclude, Path::new("apps/legacy/a/web.yaml")));
        assert!(!excluded(&exclude, Path::new("apps/web.yaml")));
        let exclude = set(&["*.json"]);
        assert!(excluded(&exclude, Path::new("a/b.json")));
        assert!(!excluded(&exclude, Path::new("a/b.yaml")));
    }
}
