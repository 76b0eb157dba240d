//! Baselines: the findings a repository had when podcycle was adopted, recorded with
//! `check --write-baseline FILE`, so that `check --baseline FILE` reports only new ones.
//!
//! Findings are recorded by [`Identity`] (rule, file, object, field), with a count for
//! identities that occur more than once, so that edits elsewhere in a file — lines added
//! above, a reworded message — keep them baselined, and a second finding of the same kind
//! in the same place is new. File paths are relative to the baseline's directory, so the
//! baseline applies whichever directory podcycle runs from.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Component, Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::diagnostics::Diagnostic;
use crate::fingerprint::{ContainerKey, Identity};
use crate::source::SourceFile;

/// The format's version; a file with another is refused rather than misread. Version 1 named
/// the container a finding is in by its place in its list; version 2 names it by its name,
/// and version 1 files are still read as they were written.
const VERSION: u32 = 2;

/// The most a baseline entry may count: far above the findings one place of a file can have,
/// and far below where a sum of counts could wrap around.
const MAX_COUNT: usize = 1_000_000;

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct BaselineFile {
    podcycle_baseline: u32,
    findings: Vec<Entry>,
}

#[derive(Serialize, Deserialize)]
struct Entry {
    #[serde(flatten)]
    identity: Identity,
    #[serde(default = "one", skip_serializing_if = "is_one")]
    count: usize,
}

fn one() -> usize {
    1
}

#[allow(clippy::trivially_copy_pass_by_ref)]
fn is_one(count: &usize) -> bool {
    *count == 1
}

/// Recorded findings, and how many of each are left to match.
#[derive(Debug, Default)]
pub(crate) struct Baseline {
    /// The directory file paths are relative to.
    dir: PathBuf,
    remaining: BTreeMap<Identity, usize>,
    /// Files whose findings were compared, for [`Baseline::stale`].
    seen_files: BTreeSet<String>,
    /// How many findings matched an entry.
    pub(crate) matched: usize,
    /// How the entries name containers: by place in a baseline of version 1.
    containers: ContainerKey,
}

/// Why a baseline's text is not one podcycle reads.
#[derive(Debug, thiserror::Error)]
pub(crate) enum InvalidBaseline {
    #[error(transparent)]
    Json(#[from] serde_json::Error),
    #[error("baseline format {0} is not one this podcycle reads (1 or {VERSION})")]
    Format(u32),
    /// The `count` of the finding at `index` (from 0) is out of range.
    #[error("finding {}: `count` is {count}; it must be from 1 to {MAX_COUNT}", index + 1)]
    Count { index: usize, count: usize },
}

/// Why a baseline was not written.
#[derive(Debug, thiserror::Error)]
pub(crate) enum BaselineWriteError {
    #[error(transparent)]
    Create(#[from] crate::safe_fs::WriteError),
    #[error("{}", crate::safe_fs::describe_io_error(.0))]
    Write(#[source] std::io::Error),
}

impl Baseline {
    /// An empty baseline for a file in `dir`.
    pub(crate) fn new(dir: &Path) -> Baseline {
        Baseline {
            dir: normalize(dir),
            ..Baseline::default()
        }
    }

    /// Reads a baseline written by [`Baseline::to_json`]; `dir` is the directory it is in.
    pub(crate) fn parse(dir: &Path, text: &str) -> Result<Baseline, InvalidBaseline> {
        let file: BaselineFile = serde_json::from_str(text)?;
        let containers = match file.podcycle_baseline {
            1 => ContainerKey::Index,
            VERSION => ContainerKey::Name,
            other => return Err(InvalidBaseline::Format(other)),
        };
        let mut baseline = Baseline::new(dir);
        baseline.containers = containers;
        for (index, entry) in file.findings.into_iter().enumerate() {
            if !(1..=MAX_COUNT).contains(&entry.count) {
                return Err(InvalidBaseline::Count {
                    index,
                    count: entry.count,
                });
            }
            let count = baseline.remaining.entry(entry.identity).or_default();
            *count = count.saturating_add(entry.count).min(MAX_COUNT);
        }
        Ok(baseline)
    }

    /// Writes the baseline to `path` the way `--output` is written: not through a symbolic
    /// link (nor a linked directory that leads out of the tree), with the usual permissions of
    /// a new file.
    pub(crate) fn write(&self, path: &Path) -> Result<(), BaselineWriteError> {
        use std::io::Write;
        let mut file = crate::safe_fs::create_file(path, crate::safe_fs::Existing::Replace)?;
        file.write_all(self.to_json().as_bytes())
            .and_then(|()| file.sync_all())
            .map_err(BaselineWriteError::Write)
    }

    /// The file's path as the baseline records it: relative to the baseline's directory
    /// when the file is under it, with `/` between components.
    pub(crate) fn file_key(&self, path: &str) -> String {
        if path == "-" {
            return path.to_owned();
        }
        let absolute = normalize(Path::new(path));
        let relative = absolute.strip_prefix(&self.dir).unwrap_or(&absolute);
        relative
            .components()
            .map(|c| c.as_os_str().to_string_lossy())
            .collect::<Vec<_>>()
            .join("/")
    }

    /// Records `diagnostics` of `file`.
    pub(crate) fn record(&mut self, file: &SourceFile, diagnostics: &[Diagnostic]) {
        let key = self.file_key(&file.path);
        for diagnostic in diagnostics {
            *self
                .remaining
                .entry(Identity::of(&key, file, diagnostic))
                .or_default() += 1;
        }
    }

    /// Removes from `diagnostics` those the baseline records, as many of each as it counts.
    pub(crate) fn filter(&mut self, file: &SourceFile, diagnostics: &mut Vec<Diagnostic>) {
        let key = self.file_key(&file.path);
        self.seen_files.insert(key.clone());
        diagnostics.retain(|diagnostic| {
            let identity = Identity::keyed(&key, file, diagnostic, self.containers);
            match self.remaining.get_mut(&identity) {
                Some(count) if *count > 0 => {
                    *count -= 1;
                    self.matched += 1;
                    false
                }
                _ => true,
            }
        });
    }

    /// How many recorded findings of the files compared so far no longer occur. Files that
    /// were not checked (pre-commit names only the changed ones) are not counted.
    pub(crate) fn stale(&self) -> usize {
        self.remaining
            .iter()
            .filter(|(identity, _)| self.seen_files.contains(&identity.file))
            .map(|(_, count)| count)
            .sum()
    }

    /// How many findings it records.
    pub(crate) fn len(&self) -> usize {
        self.remaining.values().sum()
    }

    /// The baseline as a JSON document, sorted, so that it diffs well under version control.
    pub(crate) fn to_json(&self) -> String {
        let file = BaselineFile {
            podcycle_baseline: VERSION,
            findings: self
                .remaining
                .iter()
                .filter(|(_, count)| **count > 0)
                .map(|(identity, count)| Entry {
                    identity: identity.clone(),
                    count: *count,
                })
                .collect(),
        };
        let mut text = serde_json::to_string_pretty(&file).expect("a baseline serializes");
        text.push('\n');
        text
    }
}

/// An absolute path without `.` and `..` components, without touching the file system (a
/// file may be named through a symbolic link; the name is what counts).
fn normalize(path: &Path) -> PathBuf {
    let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_owned());
    let mut out = PathBuf::new();
    for component in absolute.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_relative_to_the_baseline() {
        let dir = std::env::current_dir().unwrap();
        let baseline = Baseline::new(&dir.join("repo"));
        assert_eq!(baseline.file_key("repo/deploy/a.yaml"), "deploy/a.yaml");
        assert_eq!(
            baseline.file_key("./repo/x/../deploy/a.yaml"),
            "deploy/a.yaml"
        );
        assert_eq!(baseline.file_key("-"), "-");
        let outside = baseline.file_key("other/a.yaml");
        assert!(outside.ends_with("other/a.yaml") && outside.starts_with('/'));
    }

    #[test]
    fn refuses_other_versions_and_unknown_top_level_keys() {
        let dir = Path::new("/");
        assert!(Baseline::parse(dir, r#"{"podcycle_baseline": 3, "findings": []}"#).is_err());
        assert!(Baseline::parse(dir, r#"{"podcycle_baseline": 2, "findings": []}"#).is_ok());
        assert!(
            Baseline::parse(dir, r#"{"podcycle_baseline": 1, "findings": [], "x": 1}"#).is_err()
        );
        let parsed = Baseline::parse(
            dir,
            r#"{"podcycle_baseline": 1, "findings": [{"rule": "r", "file": "a.yaml", "object": null, "field": null, "count": 2}]}"#,
        )
        .unwrap();
        assert_eq!(parsed.len(), 2);
    }

    /// A count of `u64::MAX` wrapped the sum of counts around, silently.
    #[test]
    fn counts_are_checked() {
        let dir = Path::new("/");
        let entry = |count: &str| {
            format!(
                r#"{{"podcycle_baseline": 1, "findings": [{{"rule": "r", "file": "a.yaml", "object": null, "field": null, "count": {count}}}]}}"#
            )
        };
        for count in ["18446744073709551615", "0", "1000001"] {
            let error = Baseline::parse(dir, &entry(count)).unwrap_err();
            assert!(
                matches!(error, InvalidBaseline::Count { index: 0, .. }),
                "{count}: {error}"
            );
            assert!(
                error.to_string().contains("must be from 1 to 1000000"),
                "{count}: {error}"
            );
        }
        assert!(matches!(
            Baseline::parse(dir, &entry("-1")),
            Err(InvalidBaseline::Json(_))
        ));
        assert_eq!(
            Baseline::parse(dir, &entry("1000000")).unwrap().len(),
            1_000_000
        );
    }
}
