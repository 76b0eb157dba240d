//! What is checked before `kustomize build` runs: every path and address its kustomizations
//! make Kustomize load ([`super::tree::loads`]) is local, stays in the repository, and reaches
//! no `.git` directory, through no link that leaves it; and no plugin would run.
//!
//! Kustomize fetches any `http(s)://` address given where it loads a file — a patch, a
//! generator's file, the OpenAPI document, a configuration — and clones repositories named as
//! resources; the proxy variables of the sealed environment do not stop a request to
//! `127.0.0.1`. Its own load restrictor keeps files under each kustomization's directory, but
//! not a base directory elsewhere, nor `.git` under the directory (or a link to it).

use std::path::{Path, PathBuf};

use super::tree::{Tree, normalize};
use crate::render::boundary::{Boundary, Escape};

/// Why an overlay must not be built. Files are named as users know them (`file`, `shown`).
#[derive(Debug, thiserror::Error)]
pub(crate) enum ScreenError {
    #[error(
        "refers to the remote resource `{address}` — podcycle never fetches; vendor it to lint the overlay"
    )]
    Remote { address: String },
    #[error("uses {plugin} — podcycle runs Kustomize without plugins, exec functions or Helm")]
    Plugin { plugin: String },
    /// A field of `file` that loads from an address.
    #[error(
        "`{field}` in {file} is the address `{}` — podcycle never fetches; vendor the file to lint the overlay",
        super::super::printable(address)
    )]
    Address {
        field: String,
        file: String,
        address: String,
    },
    /// A field of `file` that names a path outside the repository at `root`.
    #[error(
        "`{field}` in {file} names {shown}, outside the repository ({}); podcycle does not let Kustomize read it",
        root.display()
    )]
    Outside {
        field: String,
        file: String,
        shown: String,
        root: PathBuf,
    },
    /// The kustomization file itself is not local.
    #[error(transparent)]
    File(NotLocal),
    /// A field of `file` that names a path that is not local.
    #[error("`{field}` in {file}: {source}")]
    Load {
        field: String,
        file: String,
        #[source]
        source: NotLocal,
    },
}

/// Why a path in the repository must not be read by a renderer.
#[derive(Debug, thiserror::Error)]
pub(crate) enum NotLocal {
    #[error(
        "names {shown}, inside a `.git` directory; podcycle does not let renderers read version control data"
    )]
    Git { shown: String },
    /// A link on the way leaves the repository or reaches what renderers must not read.
    #[error(transparent)]
    Link(#[from] Escape),
}

/// Why the overlay must not be built, if it must not.
pub(crate) fn screen(tree: &Tree, boundary: &Boundary) -> Result<(), ScreenError> {
    if let Some(remote) = tree.remote.first() {
        return Err(ScreenError::Remote {
            address: remote.clone(),
        });
    }
    if let Some(plugin) = tree.plugins.first() {
        return Err(ScreenError::Plugin {
            plugin: plugin.clone(),
        });
    }
    for kustomization in &tree.kustomizations {
        let file = super::super::shown_path(&kustomization.file);
        check_local(boundary, &kustomization.file, &file).map_err(ScreenError::File)?;
        for load in &kustomization.loads {
            let value = load.value.trim();
            if value.contains("://") {
                return Err(ScreenError::Address {
                    field: load.field.clone(),
                    file,
                    address: value.to_owned(),
                });
            }
            if value.is_empty() || value.contains('\n') {
                continue;
            }
            let path = normalize(&kustomization.dir.join(value));
            let shown = super::super::shown_path(&path);
            if !path.starts_with(boundary.root()) && !lexically_under(&path, boundary.root()) {
                return Err(ScreenError::Outside {
                    field: load.field.clone(),
                    file,
                    shown,
                    root: boundary.root().to_owned(),
                });
            }
            check_local(boundary, &path, &shown).map_err(|source| ScreenError::Load {
                field: load.field.clone(),
                file: file.clone(),
                source,
            })?;
        }
    }
    Ok(())
}

/// A path in the repository: not in `.git`, and through no link that leaves it.
fn check_local(boundary: &Boundary, path: &Path, shown: &str) -> Result<(), NotLocal> {
    if boundary.names_git(path) {
        return Err(NotLocal::Git {
            shown: shown.to_owned(),
        });
    }
    boundary.resolve(path, shown)?;
    Ok(())
}

/// Whether `path` is under `root` once both are absolute (the root is canonical, the path may
/// not be yet).
fn lexically_under(path: &Path, root: &Path) -> bool {
    let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_owned());
    let absolute = normalize(&absolute);
    absolute.starts_with(root)
        || std::env::current_dir()
            .ok()
            .and_then(|cwd| cwd.canonicalize().ok().map(|c| (cwd, c)))
            .is_some_and(|(cwd, canonical)| {
                absolute
                    .strip_prefix(&cwd)
                    .is_ok_and(|rest| canonical.join(rest).starts_with(root))
            })
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use crate::render::kustomize::tree::Tree;
    use std::os::unix::fs::symlink;

    fn repository(kustomization: &str) -> (tempfile::TempDir, std::path::PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::create_dir_all(root.join(".git")).unwrap();
        std::fs::write(root.join(".git/config"), "token").unwrap();
        std::fs::create_dir_all(root.join("app")).unwrap();
        std::fs::write(root.join("app/kustomization.yaml"), kustomization).unwrap();
        (dir, root)
    }

    fn screened(kustomization: &str) -> Result<(), ScreenError> {
        let (_dir, root) = repository(kustomization);
        let tree = Tree::read(&root.join("app")).unwrap();
        screen(&tree, &Boundary::at(&root))
    }

    /// Every field Kustomize loads from refuses an address, whatever the scheme.
    #[test]
    fn addresses_in_every_loading_field_are_refused() {
        let url = "http://127.0.0.1:9/x.yaml";
        for (field, kustomization) in [
            ("resources[0]", format!("resources: [{url}]")),
            ("crds[0]", format!("crds: [{url}]")),
            ("configurations[0]", format!("configurations: [{url}]")),
            ("patches[0].path", format!("patches: [{{path: {url}}}]")),
            (
                "patchesJson6902[0].path",
                format!("patchesJson6902: [{{path: {url}}}]"),
            ),
            (
                "patchesStrategicMerge[0]",
                format!("patchesStrategicMerge: [{url}]"),
            ),
            (
                "replacements[0].path",
                format!("replacements: [{{path: {url}}}]"),
            ),
            ("openapi.path", format!("openapi: {{path: {url}}}")),
            (
                "configMapGenerator[0].files[0]",
                format!("configMapGenerator: [{{name: x, files: [key={url}]}}]"),
            ),
            (
                "configMapGenerator[0].envs[0]",
                format!("configMapGenerator: [{{name: x, envs: [{url}]}}]"),
            ),
            (
                "secretGenerator[0].env",
                format!("secretGenerator: [{{name: x, env: {url}}}]"),
            ),
            (
                "transformers[0] (PatchTransformer).path",
                format!(
                    "transformers:\n- |\n  apiVersion: builtin\n  kind: PatchTransformer\n  metadata: {{name: x}}\n  path: {url}\n"
                ),
            ),
            (
                "generators[0] (ConfigMapGenerator).files[0]",
                format!(
                    "generators:\n- |\n  apiVersion: builtin\n  kind: ConfigMapGenerator\n  metadata: {{name: x}}\n  files: [{url}]\n"
                ),
            ),
        ] {
            let error = screened(&kustomization).unwrap_err();
            assert!(
                matches!(
                    &error,
                    ScreenError::Address { field: f, .. } if *f == field
                ) || matches!(error, ScreenError::Remote { .. }),
                "{field}: {error}"
            );
            let error = error.to_string();
            assert!(
                error.contains(&format!("`{field}`")) || error.contains("remote resource"),
                "{field}: {error}"
            );
            assert!(error.contains("never fetches"), "{field}: {error}");
        }
        assert!(screened("resources: [deploy.yaml]\n").is_ok());
    }

    /// `config.kubernetes.io\x2Ffunction` is the same key once decoded.
    #[test]
    fn functions_are_found_by_their_decoded_key() {
        let error = screened(
            "transformers:\n- |\n  apiVersion: example.com/v1\n  kind: Fn\n  metadata:\n    name: x\n    annotations:\n      \"config.kubernetes.io\\x2Ffunction\": |\n        exec: {path: ./run.sh}\n",
        )
        .unwrap_err();
        assert!(matches!(error, ScreenError::Plugin { .. }), "{error}");
        assert!(
            error.to_string().contains("KRM or exec function"),
            "{error}"
        );
    }

    #[test]
    fn links_out_of_the_repository_and_into_git_are_refused() {
        for (target, words) in [
            ("/etc/passwd", "outside the repository"),
            ("../.git/config", "inside a `.git` directory"),
        ] {
            let (_dir, root) = repository("configMapGenerator: [{name: x, files: [leak]}]\n");
            symlink(target, root.join("app/leak")).unwrap();
            let tree = Tree::read(&root.join("app")).unwrap();
            let error = screen(&tree, &Boundary::at(&root)).unwrap_err();
            assert!(
                matches!(
                    error,
                    ScreenError::Load {
                        source: NotLocal::Link(_),
                        ..
                    }
                ),
                "{error}"
            );
            let error = error.to_string();
            assert!(
                error.contains("`app/leak` is a symbolic link")
                    || error.contains("leak` is a symbolic link"),
                "{error}"
            );
            assert!(error.contains(words), "{error}");
        }
        // Named directly.
        let error =
            screened("configMapGenerator: [{name: x, files: [../.git/config]}]\n").unwrap_err();
        assert!(
            matches!(
                error,
                ScreenError::Load {
                    source: NotLocal::Git { .. },
                    ..
                }
            ),
            "{error}"
        );
        assert!(
            error.to_string().contains("inside a `.git` directory"),
            "{error}"
        );
        let error = screened("resources: [../../outside]\n").unwrap_err();
        assert!(matches!(error, ScreenError::Outside { .. }), "{error}");
        assert!(
            error.to_string().contains("outside the repository"),
            "{error}"
        );
    }

    /// A base whose kustomization podcycle cannot read is not screened, so the overlay is not
    /// built: Kustomize would read it.
    #[test]
    fn a_base_podcycle_cannot_read_stops_the_build() {
        let (_dir, root) = repository("resources: [../base]\n");
        std::fs::create_dir_all(root.join("base")).unwrap();
        let big = std::fs::File::create(root.join("base/kustomization.yaml")).unwrap();
        big.set_len(crate::safe_fs::FileKind::Kustomization.max_bytes() + 1)
            .unwrap();
        let error = Tree::read(&root.join("app")).unwrap_err();
        assert!(
            matches!(
                error,
                crate::render::kustomize::tree::KustomizationError::Read { .. }
            ),
            "{error}"
        );
        assert!(error.to_string().contains("larger than"), "{error}");
    }
}
