//! Overlays that name a file that is not there: an overlay whose only resource is missing is
//! built and Kustomize's refusal reported; a file the repository generates and git ignores
//! (`params.env`, written by a `make` target) leaves the overlay not rendered, with the file
//! named, and is no error; a missing file git does not ignore stays Kustomize's to refuse.

use std::path::Path;
use std::process::Output;

use libtest_mimic::Trial;

use crate::common::{code, stderr, stdout, write};
use crate::tool::{Tool, git, git_init, needs};

/// The tests of this file.
pub fn trials() -> Vec<Trial> {
    vec![
        needs(
            Tool::Renderers,
            "missing_files::an_overlay_whose_only_resource_is_missing_is_built_and_refused",
            an_overlay_whose_only_resource_is_missing_is_built_and_refused,
        ),
        needs(
            Tool::Renderers,
            "missing_files::a_file_git_ignores_leaves_the_overlay_not_rendered_with_the_reason",
            a_file_git_ignores_leaves_the_overlay_not_rendered_with_the_reason,
        ),
    ]
}

fn run(root: &Path, args: &[&str]) -> Output {
    crate::common::podcycle()
        .current_dir(root)
        .arg("check")
        .args(args)
        .arg(".")
        .output()
        .unwrap()
}

fn an_overlay_whose_only_resource_is_missing_is_built_and_refused() {
    for in_git in [false, true] {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        write(&root, "ov/kustomization.yaml", "resources: [deploy.yaml]\n");
        if in_git {
            git_init(&root);
            git(&root, &["add", "-A"]);
        }
        let listed = stdout(&run(&root, &["--show-files"]));
        assert!(
            listed.contains("ov: render (Kustomize overlay)"),
            "{listed}"
        );
        let output = run(&root, &["--format", "concise"]);
        let text = stdout(&output);
        assert_eq!(code(&output), 1, "{text}{}", stderr(&output));
        assert!(
            text.contains("ov/kustomization.yaml:1:13: error[render-error]")
                && text.contains("deploy.yaml"),
            "in git: {in_git}\n{text}"
        );
    }
}

/// The overlay of a repository whose `make deploy` writes `params.env`.
fn generating_repository(root: &Path, ignored: bool) {
    git_init(root);
    write(
        root,
        "base/cm.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n",
    );
    write(root, "base/kustomization.yaml", "resources: [cm.yaml]\n");
    write(
        root,
        "ov/kustomization.yaml",
        "resources: [../base]\nconfigMapGenerator:\n- name: params\n  envs: [params.env]\n",
    );
    if ignored {
        write(root, ".gitignore", "*.env\n");
    }
    git(root, &["add", "-A"]);
}

fn a_file_git_ignores_leaves_the_overlay_not_rendered_with_the_reason() {
    let reason = "needs ov/params.env (`configMapGenerator[0].envs[0]` of ov/kustomization.yaml), which git ignores: a generated file";
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    generating_repository(&root, true);
    // Missing, or written by an earlier `make deploy` (never given to Kustomize): the same.
    for generated in [false, true] {
        if generated {
            write(&root, "ov/params.env", "A=1\n");
        }
        let output = run(&root, &[]);
        let (out, err) = (stdout(&output), stderr(&output));
        assert_eq!(code(&output), 0, "{out}{err}");
        assert!(!out.contains("render-error"), "{out}");
        // The warning, and the summary's count.
        assert!(err.contains(&format!("not rendered: {reason}")), "{err}");
        assert!(
            out.contains(&format!("1 Kustomize overlay not rendered: {reason}")),
            "{out}"
        );
        let output = run(&root, &["--fail-on-unrendered"]);
        assert_ne!(code(&output), 0, "{}", stderr(&output));
    }
    // A missing file git does not ignore: Kustomize refuses it, an error.
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    generating_repository(&root, false);
    let output = run(&root, &["--format", "concise"]);
    let (out, err) = (stdout(&output), stderr(&output));
    assert_eq!(code(&output), 1, "{out}{err}");
    assert!(
        out.contains("ov/kustomization.yaml:1:1: error[render-error]")
            && out.contains("params.env"),
        "{out}"
    );
    assert!(
        !format!("{out}{err}").contains("not rendered"),
        "{out}{err}"
    );
}
