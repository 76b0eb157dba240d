//! End to end with a real editor as the client: Neovim, headless, with the configuration in
//! `tests/editors/neovim/init.lua`, opens a manifest and reports the diagnostics it received
//! (`vim.diagnostic.get`). Neovim converts the server's UTF-16 columns to byte columns, so the
//! finding after non-ASCII text checks the encoding too.
//!
//! Ignored, with the reason, when `nvim` is not on PATH; `.ci/run` installs it and sets
//! `PODCYCLE_REQUIRE_NVIM`, which makes a missing `nvim` a failure.

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use libtest_mimic::Trial;
use serde_json::Value;

use crate::tool::{Tool, needs};

/// The tests of this file.
pub fn trials() -> Vec<Trial> {
    vec![
        needs(
            Tool::Neovim,
            "neovim::neovim_shows_the_diagnostics_of_a_manifest",
            neovim_shows_the_diagnostics_of_a_manifest,
        ),
        needs(
            Tool::Neovim,
            "neovim::neovim_leaves_other_yaml_alone",
            neovim_leaves_other_yaml_alone,
        ),
        needs(
            Tool::Neovim,
            "neovim::typing_a_deployment_in_neovim",
            typing_a_deployment_in_neovim,
        ),
        needs(
            Tool::Neovim,
            "neovim::neovim_watches_the_workspace_the_server_indexed",
            neovim_watches_the_workspace_the_server_indexed,
        ),
    ]
}

/// Opens `fixture` in headless Neovim and returns what `diagnostics.lua` wrote.
fn neovim_diagnostics(fixture: &Path, expected: usize) -> Value {
    run_neovim(fixture, "diagnostics.lua", expected)
}

/// Runs headless Neovim with the test configuration on `file`, then `script`; returns the
/// JSON the script wrote to $OUT.
fn run_neovim(file: &Path, script: &str, expected: usize) -> Value {
    let scratch = tempfile::tempdir().unwrap();
    run_neovim_in(scratch.path(), file, script, expected, &[])
}

/// [`run_neovim`] with `workspace` as Neovim's working directory (the server's workspace
/// folder) and `env` set for the configuration.
fn run_neovim_in(
    workspace: &Path,
    file: &Path,
    script: &str,
    expected: usize,
    env: &[(&str, &str)],
) -> Value {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let scratch = tempfile::tempdir().unwrap();
    let out = scratch.path().join("out.json");
    let config = root.join("tests/editors/neovim");
    let mut child = Command::new("nvim")
        .args(["--headless", "-n", "-i", "NONE", "--noplugin", "--cmd"])
        .arg(format!("luafile {}", config.join("record.lua").display()))
        .arg("-u")
        .arg(config.join("init.lua"))
        .arg(file)
        .arg("-c")
        .arg(format!("luafile {}", config.join(script).display()))
        .env("PODCYCLE", env!("CARGO_BIN_EXE_podcycle"))
        .env("OUT", &out)
        .env("EXPECTED", expected.to_string())
        // Nothing from the user's own setup.
        .env("XDG_CONFIG_HOME", scratch.path().join("config"))
        .env("XDG_DATA_HOME", scratch.path().join("data"))
        .env("XDG_STATE_HOME", scratch.path().join("state"))
        .envs(env.iter().copied())
        .current_dir(workspace)
        .spawn()
        .expect("nvim starts");
    // Neovim quits by itself; make sure a hang fails the test instead of stalling it.
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            assert!(status.success(), "nvim exited with {status}");
            break;
        }
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            panic!("nvim did not finish within 60 s");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let written = std::fs::read_to_string(&out).expect("the script wrote its output");
    serde_json::from_str(&written).unwrap()
}

fn neovim_shows_the_diagnostics_of_a_manifest() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let result = neovim_diagnostics(&root.join("testdata/lsp/web.yaml"), 3);
    assert_eq!(result["settled"], true, "{result}");
    let found: Vec<(String, u64, u64, u64)> = result["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            assert_eq!(d["source"], "podcycle");
            (
                d["code"].as_str().unwrap().to_owned(),
                d["lnum"].as_u64().unwrap(),
                d["col"].as_u64().unwrap(),
                d["severity"].as_u64().unwrap(),
            )
        })
        .collect();
    // 0-based lines and byte columns, severity 1 = error, 2 = warning. `always` on line 27 follows 100
    // characters (101 UTF-16 units, 105 bytes) of the line.
    assert_eq!(
        found,
        [
            ("init-container-never-exits".to_owned(), 16, 8, 2),
            ("init-container-probe".to_owned(), 17, 8, 1),
            // An exec `sleep` past the grace period is accepted and cut off at runtime.
            ("prestop-exceeds-grace-period".to_owned(), 23, 10, 2),
            ("container-restart-policy".to_owned(), 26, 105, 1),
        ]
    );
    let first = &result["diagnostics"][1];
    assert_eq!(first["end_lnum"], 17);
    assert_eq!(first["end_col"], 8 + "startupProbe".len());
}

fn neovim_leaves_other_yaml_alone() {
    let scratch = tempfile::tempdir().unwrap();
    let workflow = scratch.path().join("ci.yaml");
    std::fs::write(&workflow, "on: [push\njobs: {}\n").unwrap();
    let result = neovim_diagnostics(&workflow, 0);
    assert_eq!(result["settled"], true, "{result}");
    assert_eq!(result["diagnostics"], serde_json::json!([]), "{result}");
}

/// Types a Deployment line by line (`typing.lua`) and checks what Neovim showed on the way:
/// nothing while the manifest is correct so far, a syntax error while a flow collection is
/// open, each finding once its lines are there; then applies the preferred quick fixes through
/// Neovim's own edit handling until nothing is left.
fn typing_a_deployment_in_neovim() {
    let scratch = tempfile::tempdir().unwrap();
    let result = run_neovim(&scratch.path().join("deploy.yaml"), "typing.lua", 0);
    let steps: Vec<(String, Vec<String>)> = result["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|step| {
            assert_eq!(step["settled"], true, "{step}");
            let codes = step["diagnostics"]
                .as_array()
                .unwrap()
                .iter()
                .map(|d| {
                    format!(
                        "{}@{}",
                        d["code"].as_str().unwrap(),
                        d["lnum"].as_u64().unwrap() + 1
                    )
                })
                .collect();
            (step["line"].as_str().unwrap().to_owned(), codes)
        })
        .collect();
    if std::env::var_os("PODCYCLE_SHOW_STEPS").is_some() {
        for (line, codes) in &steps {
            eprintln!("{line:50} {codes:?}");
        }
    }
    let at = |prefix: &str| {
        steps
            .iter()
            .find(|(line, _)| line.starts_with(prefix))
            .unwrap_or_else(|| panic!("no step {prefix}"))
            .1
            .clone()
    };
    // Half typed, the kind is one `apps/v1` does not serve: the editor says what `check` says of
    // the file as it stands.
    assert_eq!(at("kind: Deploy"), ["unserved-api-version@1"]);
    assert!(at("kind: Deployment").is_empty());
    assert_eq!(at("    matchLabels: {app: web"), ["yaml-syntax@7"]);
    assert!(at("    matchLabels: {app: web}").is_empty());
    // Until `containers` is typed, the pod spec has none, which the API server rejects.
    assert_eq!(at("      initContainers:"), ["missing-containers@11"]);
    // An Envoy image as a classic init container never exits: said as soon as it is typed.
    assert_eq!(
        at("        image: envoyproxy"),
        ["missing-containers@11", "init-container-never-exits@15"]
    );
    assert_eq!(
        at("          tcpSocket"),
        [
            "missing-containers@11",
            "init-container-never-exits@15",
            "init-container-probe@16"
        ]
    );
    assert_eq!(
        at("      - name: web"),
        ["init-container-never-exits@15", "init-container-probe@16"]
    );
    assert_eq!(
        at("            exec:"),
        [
            "init-container-never-exits@15",
            "init-container-probe@16",
            "invalid-handler@22"
        ]
    );
    assert_eq!(
        at("              command: [\"sleep\", \"2"),
        ["yaml-syntax@24"]
    );
    assert_eq!(
        steps.last().unwrap().1,
        [
            "init-container-never-exits@15",
            "init-container-probe@16",
            "prestop-exceeds-grace-period@22"
        ]
    );
    assert_eq!(
        result["applied"],
        serde_json::json!([
            "Make `proxy` a native sidecar (`restartPolicy: Always`)",
            "Raise terminationGracePeriodSeconds to 50"
        ])
    );
    assert_eq!(result["remaining"], serde_json::json!([]), "{result}");
    let text = result["text"].as_str().unwrap();
    assert!(
        text.contains("      terminationGracePeriodSeconds: 50\n"),
        "{text}"
    );
    assert!(
        text.contains("      - name: proxy\n        restartPolicy: Always\n"),
        "{text}"
    );
}

/// As a Neovim that watches files drives the server in a workspace (`workspace.lua`): the server asks
/// to watch the configuration files and manifests, logs the index of the workspace, and a
/// configuration changed on disk and reported by the client applies to the open document.
fn neovim_watches_the_workspace_the_server_indexed() {
    let workspace = tempfile::tempdir().unwrap();
    let root = workspace.path().canonicalize().unwrap();
    std::fs::write(
        root.join(".podcycle.yaml"),
        "ignore: [init-container-probe]\n",
    )
    .unwrap();
    let web = root.join("web.yaml");
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/lsp/web.yaml"),
        &web,
    )
    .unwrap();
    let result = run_neovim_in(&root, &web, "workspace.lua", 0, &[("PODCYCLE_WATCH", "1")]);
    assert_eq!(result["ready"], true, "{result}");
    assert_eq!(
        result["registered"],
        serde_json::json!([
            "workspace/didChangeWatchedFiles",
            "**/.podcycle.{yaml,yml}",
            "**/*.{yaml,yml,json}"
        ]),
        "{result}"
    );
    let indexed = result["indexed"].as_str().unwrap_or_default();
    assert!(
        indexed.starts_with(&format!(
            "podcycle: indexed 1 manifests in 1 directories of {}",
            root.display()
        )),
        "{result}"
    );
    assert_eq!(
        result["before"],
        serde_json::json!([
            "container-restart-policy",
            "init-container-never-exits",
            "prestop-exceeds-grace-period"
        ]),
        "{result}"
    );
    assert_eq!(result["changed"], true, "{result}");
}
