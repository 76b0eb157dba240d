//! What is checked before `kustomize build` runs: every path and address its kustomizations
//! make Kustomize load ([`super::tree::loads`]) is local, stays in the repository, and reaches
//! no `.git` directory, through no link that leaves it; and no plugin would run.
//!
//! Kustomize fetches any `http(s)://` address given where it loads a file — a patch, a
//! generator's file, the OpenAPI document, a configuration — and clones repositories named as
//! resources; the proxy variables of the sealed environment do not stop a request to
//! `127.0.0.1`. Its own load restrictor keeps files under each kustomization's directory, but
//! not a base directory elsewhere, nor `.git` under the directory (or a link to it).
//!
//! Every load path must be relative. Kustomize reads an absolute one as it stands (its
//! `fileLoader.Load` joins only a relative path to the kustomization's root, and
//! `RestrictionRootOnly` in `api/internal/loader/loadrestrictions.go` compares the cleaned
//! absolute path with that root; a base directory is not restricted at all), and the renderer
//! builds a copy of the repository: an absolute path names the real checkout, not the copy, and
//! would reach files that were never staged (an ignored `.env`).

use std::path::{Path, PathBuf};

use super::tree::{KustomizationError, Tree, normalize};
use crate::diagnostics::RenderTool;
use crate::render::boundary::{Boundary, Escape};
use crate::render::failure::{Refusal, Verdict};

/// Reads the overlay at `overlay` (absolute) and every kustomization it builds from, and
/// screens them ([`screen`]); `untrusted` as [`crate::render::Tools::untrusted`]. A
/// kustomization podcycle cannot parse is refused at the line its reader names, as Kustomize
/// would refuse invalid YAML — never skipped, so nothing it names goes unscreened; one it
/// cannot read at all (too large, a link out of the repository) makes the overlay not rendered.
pub(crate) fn read_screened(
    overlay: &Path,
    boundary: &Boundary,
    untrusted: bool,
) -> Result<Tree, Verdict> {
    let tree = Tree::read(overlay).map_err(|error| match error {
        KustomizationError::Invalid {
            file,
            message,
            line,
        } => Verdict::Refused(Box::new(Refusal {
            tool: RenderTool::Kustomize,
            command: RenderTool::Kustomize.command(),
            file,
            line,
            column: None,
            length: 0,
            message: format!(
                "podcycle cannot read this kustomization, so it does not let Kustomize build it: {message}"
            ),
            error: message,
        })),
        other => Verdict::NotRendered(other.to_string()),
    })?;
    screen(&tree, boundary, untrusted).map_err(|e| Verdict::NotRendered(e.to_string()))?;
    Ok(tree)
}

/// Why an overlay must not be built. Files are named as users know them (`file`, `shown`).
#[derive(Debug, thiserror::Error)]
pub(crate) enum ScreenError {
    #[error(
        "refers to the remote resource `{address}` — podcycle never fetches; vendor it to lint the overlay"
    )]
    Remote { address: String },
    #[error("uses {plugin} — podcycle runs Kustomize without plugins, exec functions or Helm")]
    Plugin { plugin: String },
    /// Where the input is not trusted, only plain built-in plugin configurations are used.
    #[error(
        "uses {what} — where what is rendered is not trusted (--isolated), podcycle lets Kustomize run only its plain built-in generators and transformers, configured in the kustomization or a file it names"
    )]
    Untrusted { what: String },
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
    /// A field of `file` that names an absolute path, which would be read outside the stage.
    #[error(
        "`{field}` in {file} is the absolute path `{}` — podcycle renders a copy of the repository, so it lets Kustomize load only paths relative to the kustomization",
        super::super::printable(path)
    )]
    Absolute {
        field: String,
        file: String,
        path: String,
    },
    /// A field of `file` that names a path with a control character (a newline, a tab).
    #[error(
        "`{field}` in {file} is the path `{}`, which holds a control character — podcycle does not let Kustomize load it",
        super::super::printable(path)
    )]
    Control {
        field: String,
        file: String,
        path: String,
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

/// Why the overlay must not be built, if it must not; `untrusted`: only plain built-in plugin
/// configurations are allowed, not those a kustomization's output gives nor unknown built-ins.
pub(crate) fn screen(tree: &Tree, boundary: &Boundary, untrusted: bool) -> Result<(), ScreenError> {
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
    if untrusted {
        if let Some(file) = tree.plugin_dirs.first() {
            return Err(ScreenError::Untrusted {
                what: format!("plugin configurations built by a kustomization ({file})"),
            });
        }
        if let Some(kind) = tree.unknown_builtins.first() {
            return Err(ScreenError::Untrusted {
                what: format!("the built-in plugin {kind}, which podcycle does not know"),
            });
        }
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
            if value.is_empty() {
                continue;
            }
            // No file of a pull request is named so: refused rather than judged, as a path
            // with a newline would be judged differently by podcycle and Kustomize.
            if value.chars().any(char::is_control) {
                return Err(ScreenError::Control {
                    field: load.field.clone(),
                    file,
                    path: value.to_owned(),
                });
            }
            if is_absolute(value) {
                return Err(ScreenError::Absolute {
                    field: load.field.clone(),
                    file,
                    path: value.to_owned(),
                });
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

/// Whether a load path is absolute on any platform Kustomize runs on: `/…`, and on Windows a
/// drive (`C:\…`, `C:/…`) or a UNC path (`\\host\…`) — a pull request is not written for
/// the machine that lints it.
fn is_absolute(value: &str) -> bool {
    let bytes = value.as_bytes();
    Path::new(value).is_absolute()
        || value.starts_with('/')
        || value.starts_with('\\')
        || (bytes.len() >= 2 && bytes[0].is_ascii_alphabetic() && bytes[1] == b':')
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
        screen(&tree, &Boundary::at(&root), false)
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

    /// An absolute path names the real checkout, not the copy Kustomize builds: refused in
    /// every field, inside the repository or not, as a Windows path too.
    #[test]
    fn absolute_load_paths_are_refused() {
        let (_dir, root) = repository("");
        std::fs::write(root.join(".env"), "TOKEN=x\n").unwrap();
        let inside = root.join(".env").display().to_string();
        for (field, kustomization) in [
            (
                "configMapGenerator[0].envs[0]",
                format!("configMapGenerator: [{{name: x, envs: [{inside}]}}]"),
            ),
            (
                "configMapGenerator[0].files[0]",
                format!("configMapGenerator: [{{name: x, files: [k={inside}]}}]"),
            ),
            ("resources[0]", format!("resources: [{}]", root.display())),
            (
                "patches[0].path",
                "patches: [{path: 'C:\\x.yaml'}]".to_owned(),
            ),
            (
                "patches[0].path",
                "patches: [{path: '\\\\host\\x'}]".to_owned(),
            ),
        ] {
            std::fs::write(root.join("app/kustomization.yaml"), &kustomization).unwrap();
            let tree = Tree::read(&root.join("app")).unwrap();
            let error = screen(&tree, &Boundary::at(&root), false).unwrap_err();
            assert!(
                matches!(&error, ScreenError::Absolute { field: f, .. } if f == field),
                "{kustomization}: {error}"
            );
            assert!(error.to_string().contains("absolute path"), "{error}");
        }
        // Relative, the same file is loaded as before.
        std::fs::write(
            root.join("app/kustomization.yaml"),
            "configMapGenerator: [{name: x, envs: [../.env]}]\n",
        )
        .unwrap();
        let tree = Tree::read(&root.join("app")).unwrap();
        screen(&tree, &Boundary::at(&root), false).unwrap();
    }

    #[test]
    fn a_path_with_a_newline_is_refused_in_every_field() {
        let (_dir, root) = repository("");
        std::fs::create_dir(root.join("app/nl\n")).unwrap();
        for (field, kustomization) in [
            (
                "configMapGenerator[0].files[0]",
                "configMapGenerator: [{name: x, files: [\"nl\\n/../../../secret.txt\"]}]",
            ),
            ("resources[0]", "resources: [\"nl\\n/../../..\"]"),
            (
                "patchesStrategicMerge[0]",
                "patchesStrategicMerge: [\"nl\\n/../../../secret.txt\"]",
            ),
            ("generators[0]", "generators: [\"nl\\n/../../../x.yaml\"]"),
        ] {
            std::fs::write(root.join("app/kustomization.yaml"), kustomization).unwrap();
            let tree = Tree::read(&root.join("app")).unwrap();
            let error = screen(&tree, &Boundary::at(&root), false).unwrap_err();
            assert!(
                matches!(&error, ScreenError::Control { field: f, .. } if f == field),
                "{kustomization}: {error}"
            );
        }
        // A patch written inline is a patch, not a path.
        std::fs::write(
            root.join("app/kustomization.yaml"),
            "patchesStrategicMerge: [\"kind: Deployment\\nmetadata: {name: x}\\n\"]\n",
        )
        .unwrap();
        let tree = Tree::read(&root.join("app")).unwrap();
        screen(&tree, &Boundary::at(&root), false).unwrap();
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
            let error = screen(&tree, &Boundary::at(&root), false).unwrap_err();
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

    fn screened_untrusted(kustomization: &str, files: &[(&str, &str)]) -> Result<(), String> {
        let (_dir, root) = repository(kustomization);
        for (name, text) in files {
            let path = root.join("app").join(name);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
        let tree = Tree::read(&root.join("app")).map_err(|e| e.to_string())?;
        screen(&tree, &Boundary::at(&root), false).map_err(|e| e.to_string())?;
        screen(&tree, &Boundary::at(&root), true).map_err(|e| e.to_string())
    }

    /// Kustomize's plugin loader takes `/builtin` as `builtin` (the group before the first `/`
    /// is empty), a `List` for its items and a one-line flow mapping as an inline
    /// configuration: each is screened as the plain spelling is.
    #[test]
    fn plugin_configurations_are_read_as_kustomize_reads_them() {
        let leak = "kind: ConfigMapGenerator\n  metadata: {name: x}\n  files: [cfg=../.git/config]";
        for (name, kustomization, files) in [
            (
                "/builtin",
                format!("generators:\n- |\n  apiVersion: /builtin\n  {leak}\n"),
                vec![],
            ),
            (
                "a file with /builtin",
                "transformers: [t.yaml]\n".to_owned(),
                vec![(
                    "t.yaml",
                    "apiVersion: /builtin\nkind: PatchTransformer\nmetadata: {name: t}\npath: ../.git/config\n",
                )],
            ),
            (
                "a List",
                "generators: [g.yaml]\n".to_owned(),
                vec![(
                    "g.yaml",
                    "apiVersion: v1\nkind: List\nitems:\n- apiVersion: builtin\n  kind: ConfigMapGenerator\n  metadata: {name: x}\n  files: [cfg=../.git/config]\n",
                )],
            ),
            (
                "a one-line inline configuration",
                "generators:\n- '{apiVersion: builtin, kind: ConfigMapGenerator, metadata: {name: x}, files: [cfg=../.git/config]}'\n".to_owned(),
                vec![],
            ),
        ] {
            let files: Vec<(&str, &str)> = files;
            let error = screened_untrusted(&kustomization, &files).unwrap_err();
            assert!(error.contains("inside a `.git` directory"), "{name}: {error}");
        }
    }

    /// A generators directory with its own JSON patch on `/files/0` would make a harmless
    /// configuration load `.git/config`: what a kustomization makes of plugin configurations is
    /// refused; and where the input is not trusted, any configuration built by a kustomization
    /// and any plugin that is not a plain built-in.
    #[test]
    fn plugin_configurations_podcycle_cannot_judge_are_refused() {
        let error = screened_untrusted(
            "generators: [gen]\n",
            &[
                ("gen/kustomization.yaml", "resources: [g.yaml]\npatches:\n- target: {kind: ConfigMapGenerator}\n  patch: '[{op: replace, path: /files/0, value: cfg=../.git/config}]'\n"),
                ("gen/g.yaml", "apiVersion: builtin\nkind: ConfigMapGenerator\nmetadata: {name: x}\nfiles: [ok.txt]\n"),
                ("gen/ok.txt", "ok"),
            ],
        )
        .unwrap_err();
        assert!(
            error.contains("`patches` in a kustomization whose output configures plugins"),
            "{error}"
        );
        let error = screened_untrusted(
            "generators: [gen]\n",
            &[
                ("gen/kustomization.yaml", "resources: [g.yaml]\n"),
                ("gen/g.yaml", "apiVersion: builtin\nkind: ConfigMapGenerator\nmetadata: {name: x}\nfiles: [ok.txt]\n"),
                ("gen/ok.txt", "ok"),
            ],
        )
        .unwrap_err();
        assert!(error.contains("not trusted (--isolated)"), "{error}");
        let error = screened_untrusted(
            "transformers:\n- |\n  apiVersion: example.com/v1\n  kind: Mine\n  metadata: {name: x}\n",
            &[],
        )
        .unwrap_err();
        assert!(error.contains("the external plugin `Mine`"), "{error}");
        let error = screened_untrusted(
            "transformers:\n- |\n  apiVersion: builtin\n  kind: Novel\n  metadata: {name: x}\n",
            &[],
        )
        .unwrap_err();
        assert!(error.contains("the built-in plugin `Novel`"), "{error}");
        // A plain built-in stays usable, trusted or not.
        screened_untrusted(
            "transformers:\n- |\n  apiVersion: builtin\n  kind: LabelTransformer\n  metadata: {name: x}\n  labels: {a: b}\n  fieldSpecs: [{path: metadata/labels, create: true}]\n",
            &[],
        )
        .unwrap();
    }

    /// A base podcycle's reader refuses (nested deeper than it reads) is refused at its line,
    /// never skipped: Kustomize would build it.
    #[test]
    fn a_base_podcycle_cannot_parse_is_refused() {
        let (_dir, root) = repository("resources: [../base]\n");
        std::fs::create_dir_all(root.join("base")).unwrap();
        let deep = format!(
            "resources: [x.yaml]\nlabels: {}{}\n",
            "[".repeat(600),
            "]".repeat(600)
        );
        std::fs::write(root.join("base/kustomization.yaml"), deep).unwrap();
        let verdict =
            read_screened(&root.join("app"), &Boundary::of(&root.join("app")), false).unwrap_err();
        let Verdict::Refused(refusal) = verdict else {
            panic!("not refused: {verdict:?}");
        };
        assert_eq!(refusal.file, root.join("base/kustomization.yaml"));
        assert_eq!(refusal.line, Some(2));
        assert!(
            refusal
                .message
                .contains("podcycle cannot read this kustomization"),
            "{}",
            refusal.message
        );
    }
}
