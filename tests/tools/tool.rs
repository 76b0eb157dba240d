//! The programs these tests need, and trials that are ignored — with the reason, counted as
//! ignored in the summary — when one is missing. In CI a missing program is a failure:
//! `.ci/run` installs them and sets the `PODCYCLE_REQUIRE_*` variable of each.

use std::process::{Command, Stdio};
use std::sync::OnceLock;

use libtest_mimic::{Completion, Failed, Trial};

/// A program a test runs beside podcycle.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tool {
    /// Go, which builds the oracle (`oracle/`): Kubernetes' own code.
    Oracle,
    /// `helm`, and `kustomize` or `kubectl`.
    Renderers,
    /// Neovim, the editor that drives the language server end to end.
    Neovim,
    /// What the GitHub Action's script (`action/podcycle.sh`) and its test run: bash, git, jq,
    /// curl, tar and sha256sum, all on GitHub's Linux runners.
    ActionShell,
}

impl Tool {
    /// The variable that makes the program's absence a failure.
    fn required_by(self) -> &'static str {
        match self {
            Tool::Oracle => "PODCYCLE_REQUIRE_ORACLE",
            Tool::Renderers => "PODCYCLE_REQUIRE_RENDERERS",
            Tool::Neovim => "PODCYCLE_REQUIRE_NVIM",
            Tool::ActionShell => "PODCYCLE_REQUIRE_ACTION_SHELL",
        }
    }

    /// Why the program cannot run, if it cannot; looked for once per run.
    fn missing(self) -> Option<&'static str> {
        static ORACLE: OnceLock<Option<&str>> = OnceLock::new();
        static RENDERERS: OnceLock<Option<&str>> = OnceLock::new();
        static NEOVIM: OnceLock<Option<&str>> = OnceLock::new();
        static ACTION_SHELL: OnceLock<Option<&str>> = OnceLock::new();
        match self {
            Tool::Oracle => *ORACLE.get_or_init(|| {
                (!runs("go", "version"))
                    .then_some("`go` is not on PATH: Go builds oracle/, Kubernetes' own code")
            }),
            Tool::Renderers => *RENDERERS.get_or_init(|| {
                let renderers = on_path("helm") && (on_path("kustomize") || on_path("kubectl"));
                (!renderers).then_some("`helm` and `kustomize` (or `kubectl`) are not both on PATH")
            }),
            Tool::Neovim => *NEOVIM
                .get_or_init(|| (!runs("nvim", "--version")).then_some("`nvim` is not on PATH")),
            Tool::ActionShell => *ACTION_SHELL.get_or_init(|| {
                let all = ["bash", "git", "jq", "curl", "tar", "sha256sum"]
                    .into_iter()
                    .all(|program| runs(program, "--version"));
                (!all).then_some(
                    "`bash`, `git`, `jq`, `curl`, `tar` and `sha256sum` are not all on PATH",
                )
            }),
        }
    }
}

/// Whether `program argument` runs and succeeds.
fn runs(program: &str, argument: &str) -> bool {
    Command::new(program)
        .arg(argument)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|status| status.success())
}

/// Whether an executable file named `name` is in a directory of `PATH`.
fn on_path(name: &str) -> bool {
    std::env::var_os("PATH")
        .is_some_and(|path| std::env::split_paths(&path).any(|dir| dir.join(name).is_file()))
}

/// A test that needs nothing but podcycle.
pub fn test(name: &str, body: fn()) -> Trial {
    Trial::test(name, move || {
        body();
        Ok(())
    })
}

/// A test that needs `tool`: ignored, with the reason, where it is missing; failed instead when
/// the tool's `PODCYCLE_REQUIRE_*` variable is set.
pub fn needs(tool: Tool, name: &str, body: fn()) -> Trial {
    Trial::ignorable_test(name, move || {
        if let Some(reason) = tool.missing() {
            return skipped(tool, reason);
        }
        body();
        Ok(Completion::Completed)
    })
}

/// Makes `root` a git repository, as a checkout is: renderers are given the files git tracks
/// (and, outside untrusted mode, the new files it does not ignore).
pub fn git_init(root: &std::path::Path) {
    std::fs::create_dir_all(root).unwrap();
    git(root, &["init", "-q"]);
}

/// Runs git in `root`, failing the test when it fails.
pub fn git(root: &std::path::Path, args: &[&str]) {
    let status = std::process::Command::new("git")
        .arg("-C")
        .arg(root)
        .args(args)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .stdout(Stdio::null())
        .status()
        .expect("git runs");
    assert!(status.success(), "git {args:?} in {}", root.display());
}

/// Why a test that needs `tool` could not run on this machine, found while it runs (the kernel
/// refuses the sandbox, one of the renderers is missing).
pub struct Skipped(pub String);

/// [`needs`], for a test that finds out while it runs that it cannot: it returns
/// [`Skipped`], and is reported as ignored with the reason — or failed under the tool's
/// `PODCYCLE_REQUIRE_*` variable — never as passed.
pub fn needs_or_skips(tool: Tool, name: &str, body: fn() -> Result<(), Skipped>) -> Trial {
    Trial::ignorable_test(name, move || {
        if let Some(reason) = tool.missing() {
            return skipped(tool, reason);
        }
        match body() {
            Ok(()) => Ok(Completion::Completed),
            Err(Skipped(reason)) => skipped(tool, &reason),
        }
    })
}

/// Ignored with `reason`, or failed when the tool's `PODCYCLE_REQUIRE_*` variable is set.
fn skipped(tool: Tool, reason: &str) -> Result<Completion, Failed> {
    let variable = tool.required_by();
    if std::env::var_os(variable).is_some_and(|v| !v.is_empty() && v != "0") {
        return Err(Failed::from(format!("{reason}, and {variable} is set")));
    }
    Ok(Completion::ignored_with(format!(
        "{reason}; {variable}=1 makes this a failure"
    )))
}
