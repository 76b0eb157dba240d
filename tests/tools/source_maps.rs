//! What a renderer prints is the pull request's data: the paths its output names — Helm's
//! `# Source:` headers, Kustomize's `config.kubernetes.io/origin` — are never opened unless the
//! stage copied them (docs/security.md, "What podcycle reads of a render"). Each test is a
//! reproduction: an overlay's patch that points its origin at a secret outside the checkout, a
//! template that writes its own header out of the chart, and stand-ins for both renderers that
//! name whatever they like.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::Duration;

use libtest_mimic::Trial;

use crate::common::{code, podcycle, stderr, stdout, watched, write};
use crate::lsp_client::{Client, capabilities, uri};
use crate::tool::{Tool, needs, test};

const SECRET: &str = "Hunter2_SECRET_9c1d";

const FORMATS: [&str; 7] = [
    "full", "concise", "json", "sarif", "github", "junit", "gitlab",
];

/// A Deployment whose preStop sleep (25 s) outlasts its grace period (20 s):
/// `prestop-exceeds-grace-period` reports it, with a label at the grace period.
const DEPLOYMENT: &str = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  selector:\n    matchLabels: {app: web}\n  template:\n    metadata:\n      labels: {app: web}\n    spec:\n      terminationGracePeriodSeconds: 20\n      containers:\n      - name: web\n        image: nginx:1.25\n        lifecycle:\n          preStop:\n            sleep:\n              seconds: 25\n";

/// The same Deployment with the secret on every line, and as the grace period's value: a file
/// a map that opened it would quote, and whose value a patch's override label would carry.
fn secret_file() -> String {
    DEPLOYMENT
        .replace(
            "terminationGracePeriodSeconds: 20",
            &format!("terminationGracePeriodSeconds: {SECRET}"),
        )
        .lines()
        .map(|line| format!("{line}  # {SECRET}\n"))
        .collect()
}

/// A checkout (a git repository, everything committed), beside a directory outside it that
/// holds a secret.
struct Checkout {
    _dirs: (tempfile::TempDir, tempfile::TempDir),
    root: PathBuf,
    outside: PathBuf,
}

impl Checkout {
    fn new() -> Checkout {
        let root_dir = tempfile::tempdir().unwrap();
        let outside_dir = tempfile::tempdir().unwrap();
        let root = root_dir.path().canonicalize().unwrap();
        let outside = outside_dir.path().canonicalize().unwrap();
        crate::tool::git_init(&root);
        write(&outside, "secret.yaml", &secret_file());
        Checkout {
            _dirs: (root_dir, outside_dir),
            root,
            outside,
        }
    }

    /// `../../…/outside/secret.yaml`: enough steps up from anywhere in the checkout to reach
    /// `/`, then down to the secret.
    fn climb_to_secret(&self) -> String {
        let down = self.outside.join("secret.yaml");
        format!(
            "{}{}",
            "../".repeat(40),
            down.to_string_lossy().trim_start_matches('/')
        )
    }

    /// `podcycle check ARGS` in the checkout, everything committed.
    fn check(&self, args: &[&str]) -> Output {
        crate::tool::git(&self.root, &["add", "-A"]);
        watched(
            Duration::from_secs(60),
            podcycle()
                .current_dir(&self.root)
                .arg("check")
                .args(args)
                .stdin(Stdio::null()),
            &mut |_| {},
        )
    }
}

fn all(output: &Output) -> String {
    format!("{}{}", stdout(output), stderr(output))
}

/// Runs `check` in every format, with `--isolated` and without (`extra` before the path), and
/// asserts that the secret is printed in none, that the finding is still reported, and that it
/// says its source was not read.
fn leaks_nothing(checkout: &Checkout, extra: &[&str], isolated: bool, unplaced: &str) {
    for format in FORMATS {
        let mut args = vec!["--format", format];
        if isolated {
            args.push("--isolated");
        }
        args.extend(extra);
        args.push(".");
        let output = checkout.check(&args);
        let text = all(&output);
        assert!(
            !text.contains(SECRET),
            "isolated {isolated}, {format}: printed the secret: {text}"
        );
        assert_eq!(code(&output), 1, "isolated {isolated}, {format}: {text}");
        assert!(
            text.contains("prestop-exceeds-grace-period"),
            "isolated {isolated}, {format}: the finding is reported: {text}"
        );
        if format == "full" {
            assert!(
                text.contains(unplaced),
                "isolated {isolated}, {format}: says why it is not placed: {text}"
            );
        }
    }
}

pub fn trials() -> Vec<Trial> {
    vec![
        needs(
            Tool::Renderers,
            "source_maps::an_origin_a_patch_points_outside_the_checkout_is_not_read",
            an_origin_a_patch_points_outside_the_checkout_is_not_read,
        ),
        needs(
            Tool::Renderers,
            "source_maps::a_source_header_a_template_writes_out_of_the_chart_is_not_read",
            a_source_header_a_template_writes_out_of_the_chart_is_not_read,
        ),
        needs(
            Tool::Renderers,
            "source_maps::the_editor_shows_nothing_of_an_origin_outside_the_checkout",
            the_editor_shows_nothing_of_an_origin_outside_the_checkout,
        ),
        test(
            "source_maps::stand_in_renderers_naming_any_path_get_nothing_read",
            stand_in_renderers_naming_any_path_get_nothing_read,
        ),
    ]
}

/// An overlay's patch that sets `config.kubernetes.io/origin` to a file outside the checkout
/// had the source map open it: the `full` format printed its lines, and the override label
/// (`a patch overrides the value … set here`) carried its value into every format, with the
/// whole confinement on (`--isolated`). Now the finding stays on the overlay and says why.
fn an_origin_a_patch_points_outside_the_checkout_is_not_read() {
    let checkout = Checkout::new();
    let root = &checkout.root;
    let name = root.file_name().unwrap().to_string_lossy().into_owned();
    write(root, "overlay/deployment.yaml", DEPLOYMENT);
    write(
        root,
        "overlay/kustomization.yaml",
        "resources: [deployment.yaml]\npatches:\n- path: patch.yaml\n",
    );
    let patch = |origin: &str| {
        format!(
            "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  annotations:\n    config.kubernetes.io/origin: |\n      path: {origin}\nspec:\n  template:\n    spec:\n      terminationGracePeriodSeconds: 21\n"
        )
    };
    // The harness sees a leak when there is one: the origin at a committed file of the
    // checkout that holds the secret, which the stage copies, is read and quoted.
    write(root, "overlay/decoy.yaml", &secret_file());
    write(
        root,
        "overlay/patch.yaml",
        &patch(&format!("../{name}/overlay/decoy.yaml")),
    );
    let read = checkout.check(&["--format", "full", "."]);
    assert!(all(&read).contains(SECRET), "{}", all(&read));
    std::fs::remove_file(root.join("overlay/decoy.yaml")).unwrap();

    let secret = checkout.outside.join("secret.yaml");
    for origin in [
        secret.to_string_lossy().into_owned(),
        checkout.climb_to_secret(),
    ] {
        write(root, "overlay/patch.yaml", &patch(&origin));
        for isolated in [false, true] {
            leaks_nothing(
                &checkout,
                &[],
                isolated,
                "which is none of the files podcycle gave Kustomize",
            );
        }
    }
}

/// A template that writes its own `# Source: web/templates/../../../…` header had the source
/// map read that path and place the finding at one of its lines. Now only a template the stage
/// holds is read.
fn a_source_header_a_template_writes_out_of_the_chart_is_not_read() {
    let checkout = Checkout::new();
    let root = &checkout.root;
    write(
        root,
        "web/Chart.yaml",
        "apiVersion: v2\nname: web\nversion: 1.0.0\n",
    );
    let template = |header: &str| format!("# Source: {header}\n{DEPLOYMENT}");
    // The harness sees a leak when there is one: a header naming a staged helper that holds
    // the secret places the finding there.
    write(root, "web/templates/_decoy.tpl", &secret_file());
    write(
        root,
        "web/templates/deployment.yaml",
        &template("web/templates/../templates/_decoy.tpl"),
    );
    let read = checkout.check(&["--format", "full", "."]);
    assert!(all(&read).contains(SECRET), "{}", all(&read));
    std::fs::remove_file(root.join("web/templates/_decoy.tpl")).unwrap();

    let secret = checkout.outside.join("secret.yaml");
    for header in [
        format!("web/templates/{}", checkout.climb_to_secret()),
        format!("web{}", secret.display()),
    ] {
        write(root, "web/templates/deployment.yaml", &template(&header));
        for isolated in [false, true] {
            leaks_nothing(
                &checkout,
                &[],
                isolated,
                "which is none of the chart's templates podcycle gave Helm",
            );
        }
    }
}

/// The same origin through `podcycle lsp`: the patch writes the preStop sleep and the grace
/// period, so the finding is in the open patch, and the label of the grace period it overrides
/// (`a patch overrides the value … set here`) would carry the value of the file the origin
/// names into the editor's diagnostics.
fn the_editor_shows_nothing_of_an_origin_outside_the_checkout() {
    let checkout = Checkout::new();
    let root = &checkout.root;
    let secret = checkout.outside.join("secret.yaml");
    write(
        root,
        "overlay/deployment.yaml",
        &DEPLOYMENT.replace("seconds: 25", "seconds: 5"),
    );
    write(
        root,
        "overlay/kustomization.yaml",
        "resources: [deployment.yaml]\npatches:\n- path: patch.yaml\n",
    );
    let patch = format!(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  annotations:\n    config.kubernetes.io/origin: |\n      path: {}\nspec:\n  template:\n    spec:\n      containers:\n      - name: web\n        lifecycle:\n          preStop:\n            sleep:\n              seconds: 25\n      terminationGracePeriodSeconds: 21\n",
        secret.display()
    );
    write(root, "overlay/patch.yaml", &patch);
    crate::tool::git(root, &["add", "-A"]);
    let mut client = Client::start(capabilities(true));
    let document = uri(&root.join("overlay/patch.yaml").display().to_string());
    client.open(&document, 1, &patch);
    let published = client.diagnostics(&document, Some(1));
    client.shutdown();
    let shown = serde_json::to_string(&published).unwrap();
    assert!(!shown.contains(SECRET), "{shown}");
    assert!(
        shown.contains("prestop-exceeds-grace-period"),
        "the finding is in the patch: {shown}"
    );
}

/// An executable script at `path` that prints `output`, whatever it is asked (with the shell's
/// own `printf`: a renderer runs with an empty `PATH`).
fn stand_in(path: &Path, output: &str) {
    let quoted = output.replace('\'', "'\\''");
    write(
        path.parent().unwrap(),
        path.file_name().unwrap().to_str().unwrap(),
        &format!("#!/bin/sh\nprintf '%s' '{quoted}'\n"),
    );
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// Renderers that print objects whose headers and origins name every kind of path: a file the
/// repository ignores (never staged), a committed file outside the chart or overlay (not
/// staged), one outside the checkout, absolute and by climbing, and a special file. Each holds
/// the secret; none is opened, whatever the output says. (Scripts cannot start under the render
/// confinement, so these run without it: the maps are podcycle's own, confined or not.)
fn stand_in_renderers_naming_any_path_get_nothing_read() {
    let checkout = Checkout::new();
    let root = &checkout.root;
    let name = root.file_name().unwrap().to_string_lossy().into_owned();
    write(root, ".gitignore", ".env\n");
    write(root, "web/templates/.env", &secret_file());
    write(root, "deploy/.env", &secret_file());
    write(root, "notes/other.yaml", &secret_file());
    write(
        root,
        "web/Chart.yaml",
        "apiVersion: v2\nname: web\nversion: 1.0.0\n",
    );
    write(root, "web/templates/deployment.yaml", DEPLOYMENT);
    write(root, "deploy/deployment.yaml", DEPLOYMENT);
    write(
        root,
        "deploy/kustomization.yaml",
        "resources: [deployment.yaml]\npatches:\n- path: patch.yaml\n",
    );
    write(
        root,
        "deploy/patch.yaml",
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  template:\n    spec:\n      terminationGracePeriodSeconds: 21\n",
    );
    let secret = checkout.outside.join("secret.yaml");
    let climb = checkout.climb_to_secret();
    let named = [
        "web/templates/.env".to_owned(),
        "web/templates/../../notes/other.yaml".to_owned(),
        format!("web/templates/{climb}"),
        format!("web{}", secret.display()),
        secret.to_string_lossy().into_owned(),
        "web/templates/../../../../../../../../../../../../dev/zero".to_owned(),
    ];
    let helm_output: String = named
        .iter()
        .map(|header| format!("---\n# Source: {header}\n{DEPLOYMENT}"))
        .collect();
    let origins = [
        format!("../{name}/deploy/.env"),
        format!("../{name}/notes/other.yaml"),
        climb.clone(),
        secret.to_string_lossy().into_owned(),
        "/dev/zero".to_owned(),
    ];
    let kustomize_output: String = origins
        .iter()
        .map(|origin| {
            DEPLOYMENT.replace(
                "  name: web\nspec:",
                &format!(
                    "  name: web\n  annotations:\n    config.kubernetes.io/origin: |\n      path: {origin}\n    alpha.config.kubernetes.io/transformations: |\n      - configuredIn: {origin}\n        configuredBy:\n          apiVersion: builtin\n          kind: PatchTransformer\nspec:"
                ),
            ) + "---\n"
        })
        .collect();
    let tools = tempfile::tempdir().unwrap();
    let helm = tools.path().join("helm");
    let kustomize = tools.path().join("kustomize");
    stand_in(&helm, &helm_output);
    stand_in(&kustomize, &kustomize_output);
    crate::tool::git(root, &["add", "-A"]);
    for (input, unplaced) in [
        (
            "web",
            "which is none of the chart's templates podcycle gave Helm",
        ),
        (
            "deploy",
            "which is none of the files podcycle gave Kustomize",
        ),
    ] {
        for format in FORMATS {
            let output = watched(
                Duration::from_secs(60),
                Command::new(env!("CARGO_BIN_EXE_podcycle"))
                    .current_dir(root)
                    .env("PODCYCLE_NO_RENDER_SANDBOX", "1")
                    .args(["check", "--no-cache", "--format", format])
                    .arg("--helm")
                    .arg(&helm)
                    .arg("--kustomize")
                    .arg(&kustomize)
                    .arg(input)
                    .stdin(Stdio::null()),
                &mut |_| {},
            );
            let text = all(&output);
            assert!(!text.contains(SECRET), "{input}, {format}: {text}");
            assert_eq!(code(&output), 1, "{input}, {format}: {text}");
            assert!(
                text.contains("prestop-exceeds-grace-period"),
                "{input}, {format}: {text}"
            );
            if format == "full" {
                assert!(text.contains(unplaced), "{input}, {format}: {text}");
            }
        }
    }
}
