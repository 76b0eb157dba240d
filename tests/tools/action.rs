//! The GitHub Action (`action.yml`) through its script, `action/podcycle.sh`, as GitHub runs it:
//! with the `GITHUB_*` variables of a pull request, a push, and a pull request into a branch
//! that has no podcycle configuration yet, in a git repository whose `origin` holds the base
//! branch; and its installation of a release archive, whose checksum must match.
//!
//! Ignored, with the reason, when bash, git, jq, curl, tar or sha256sum is missing (GitHub's
//! Linux runners have them all); `PODCYCLE_REQUIRE_ACTION_SHELL` makes that a failure.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use libtest_mimic::Trial;

use crate::tool::{Tool, needs};

/// The tests of this file.
pub fn trials() -> Vec<Trial> {
    vec![
        needs(
            Tool::ActionShell,
            "action::a_pull_request_is_checked_with_the_base_branch_s_settings",
            a_pull_request_is_checked_with_the_base_branch_s_settings,
        ),
        needs(
            Tool::ActionShell,
            "action::a_push_is_checked_with_its_own_settings",
            a_push_is_checked_with_its_own_settings,
        ),
        needs(
            Tool::ActionShell,
            "action::a_first_adoption_reports_and_does_not_fail",
            a_first_adoption_reports_and_does_not_fail,
        ),
        needs(
            Tool::ActionShell,
            "action::the_base_branch_s_settings_go_nowhere_the_pull_request_chooses",
            the_base_branch_s_settings_go_nowhere_the_pull_request_chooses,
        ),
        needs(
            Tool::ActionShell,
            "action::the_job_summary_renders_no_markdown_of_the_pull_request",
            the_job_summary_renders_no_markdown_of_the_pull_request,
        ),
        needs(
            Tool::ActionShell,
            "action::a_release_archive_is_installed_only_with_its_checksum",
            a_release_archive_is_installed_only_with_its_checksum,
        ),
    ]
}

/// One error, `init-container-probe` at 8:5.
const NEW: &str = "\
apiVersion: v1
kind: Pod
metadata: {name: new}
spec:
  initContainers:
  - name: migrate
    image: example/migrate:1.0
    readinessProbe:
      exec: {command: [test, -f, /done]}
  containers:
  - name: web
    image: nginx:1.25
";
/// Two errors and a warning.
const OLD: &str = include_str!("../../testdata/cli/bad.yaml");

/// A scratch directory with `origin` (the base branch `main`, from `base`), `work` (its clone,
/// on a branch with `change` written over it), a directory for the runner and one holding
/// `podcycle`.
struct Runner {
    dir: tempfile::TempDir,
}

impl Runner {
    fn new(base: &[(&str, &str)], change: &[(&str, &str)]) -> Runner {
        let runner = Runner {
            dir: tempfile::tempdir().unwrap(),
        };
        let origin = runner.path("origin");
        fs::create_dir_all(&origin).unwrap();
        runner.git(&origin, &["init", "--quiet", "--initial-branch=main"]);
        write_files(&origin, base);
        runner.git(&origin, &["add", "--all"]);
        runner.git(
            &origin,
            &["commit", "--quiet", "--allow-empty", "-m", "base"],
        );
        runner.git(&runner.path(""), &["clone", "--quiet", "origin", "work"]);
        runner.git(
            &runner.path("work"),
            &["checkout", "--quiet", "-b", "change"],
        );
        write_files(&runner.path("work"), change);
        fs::create_dir_all(runner.path("runner")).unwrap();
        fs::create_dir_all(runner.path("bin")).unwrap();
        std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_podcycle"), runner.path("bin/podcycle"))
            .unwrap();
        runner
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// A command with only what a runner sets: none of the variables of the environment the
    /// tests run in (which may be GitHub's own).
    fn command(&self, program: &str) -> Command {
        let mut command = Command::new(program);
        let path = std::env::var_os("PATH").unwrap_or_default();
        let mut dirs = vec![self.path("bin")];
        dirs.extend(std::env::split_paths(&path));
        command
            .env_clear()
            .env("PATH", std::env::join_paths(dirs).unwrap())
            .env("HOME", self.path("runner"))
            .env("XDG_CACHE_HOME", self.path("runner/cache"))
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_AUTHOR_NAME", "a")
            .env("GIT_AUTHOR_EMAIL", "a@example.com")
            .env("GIT_COMMITTER_NAME", "a")
            .env("GIT_COMMITTER_EMAIL", "a@example.com")
            .env("RUNNER_TEMP", self.path("runner"))
            .env("GITHUB_STEP_SUMMARY", self.path("runner/summary.md"))
            .env("GITHUB_OUTPUT", self.path("runner/output"))
            .stdin(std::process::Stdio::null());
        command
    }

    fn git(&self, dir: &Path, args: &[&str]) {
        let output = self
            .command("git")
            .current_dir(dir)
            .args(args)
            .output()
            .unwrap();
        assert!(
            output.status.success(),
            "git {args:?}: {}",
            text(&output.stderr)
        );
    }

    /// `action/podcycle.sh check` in `work`, for `event` into `base`.
    fn check(&self, event: &str, base: &str) -> Run {
        let output = self
            .command("bash")
            .current_dir(self.path("work"))
            .arg(script())
            .arg("check")
            .env("GITHUB_EVENT_NAME", event)
            .env("GITHUB_BASE_REF", base)
            .output()
            .unwrap();
        Run {
            code: output.status.code(),
            log: format!("{}{}", text(&output.stdout), text(&output.stderr)),
            summary: fs::read_to_string(self.path("runner/summary.md")).unwrap_or_default(),
            sarif: fs::read_to_string(self.path("runner/podcycle.sarif"))
                .ok()
                .map(|text| serde_json::from_str(&text).expect("the SARIF log is JSON")),
            outputs: fs::read_to_string(self.path("runner/output")).unwrap_or_default(),
        }
    }
}

/// What a run of the check step left: its exit code, its log, and the files it wrote.
struct Run {
    code: Option<i32>,
    log: String,
    summary: String,
    sarif: Option<serde_json::Value>,
    outputs: String,
}

impl Run {
    /// Only `NEW`'s finding: in the SARIF log, as an annotation in the log, in the counts.
    fn reports_only_the_new_finding(&self) {
        assert_eq!(
            self.sarif_results(),
            ["deploy/new.yaml:8:5 init-container-probe"]
        );
        for expected in [
            "::error file=deploy/new.yaml,line=8,endLine=8,col=5,",
            "Found 1 error in 1 of 2 files.",
        ] {
            assert!(self.log.contains(expected), "{expected}\n{}", self.log);
        }
        assert!(!self.log.contains("deploy/old.yaml"), "{}", self.log);
    }

    /// `file:line:col rule` of each SARIF result.
    fn sarif_results(&self) -> Vec<String> {
        let sarif = self.sarif.as_ref().expect("a SARIF log was written");
        sarif["runs"][0]["results"]
            .as_array()
            .unwrap()
            .iter()
            .map(|result| {
                let place = &result["locations"][0]["physicalLocation"];
                format!(
                    "{}:{}:{} {}",
                    place["artifactLocation"]["uri"].as_str().unwrap(),
                    place["region"]["startLine"],
                    place["region"]["startColumn"],
                    result["ruleId"].as_str().unwrap()
                )
            })
            .collect()
    }
}

fn script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("action/podcycle.sh")
}

fn write_files(dir: &Path, files: &[(&str, &str)]) {
    for (name, text) in files {
        let path = dir.join(name);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, text).unwrap();
    }
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// The baseline of `files` as they are, written by podcycle in a directory of its own.
fn baseline_of(files: &[(&str, &str)]) -> String {
    let dir = tempfile::tempdir().unwrap();
    write_files(dir.path(), files);
    let output = crate::common::podcycle()
        .current_dir(dir.path())
        .args([
            "check",
            "--no-config",
            "--write-baseline",
            "baseline.json",
            ".",
        ])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    fs::read_to_string(dir.path().join("baseline.json")).unwrap()
}

/// A pull request that loosens the configuration and baseline it brings is checked with the
/// base branch's: the new finding fails the step, the recorded ones stay quiet.
fn a_pull_request_is_checked_with_the_base_branch_s_settings() {
    let baseline = baseline_of(&[("deploy/old.yaml", OLD)]);
    let everything = baseline_of(&[("deploy/old.yaml", OLD), ("deploy/new.yaml", NEW)]);
    let runner = Runner::new(
        &[
            ("deploy/old.yaml", OLD),
            (".podcycle.yaml", "fail-on: error\n"),
            (".podcycle-baseline.json", &baseline),
        ],
        &[
            ("deploy/new.yaml", NEW),
            (".podcycle.yaml", "fail-on: never\n"),
            (".podcycle-baseline.json", &everything),
        ],
    );
    // As actions/checkout leaves it: the base branch not fetched.
    runner.git(
        &runner.path("work"),
        &["update-ref", "-d", "refs/remotes/origin/main"],
    );
    let run = runner.check("pull_request", "main");
    assert_eq!(run.code, Some(1), "{}", run.log);
    run.reports_only_the_new_finding();
    assert!(!run.log.contains("has no"), "{}", run.log);
    assert!(
        run.summary
            .contains("Pull request into `main`, checked with `--isolated`"),
        "{}",
        run.summary
    );
    assert!(
        run.summary.contains(
            "| error | `init-container-probe` | `deploy/new.yaml:8:5` | readinessProbe is not allowed"
        ),
        "{}",
        run.summary
    );
    assert!(run.outputs.contains("findings=1\n"), "{}", run.outputs);
    // The base branch's copies were read from outside the checkout: the pull request's files
    // are as it left them.
    assert_eq!(
        fs::read_to_string(runner.path("work/.podcycle-baseline.json")).unwrap(),
        everything
    );
    assert_eq!(
        fs::read_to_string(runner.path("work/.podcycle.yaml")).unwrap(),
        "fail-on: never\n"
    );
}

/// The paths the recipe once wrote the base branch's configuration to, committed by the pull
/// request as a file, a directory, a link to its own failing manifest and a link out of the
/// checkout: none is written, none is taken for "the base branch has no configuration", and
/// the base branch's `extend-exclude` still names paths of the checkout.
fn the_base_branch_s_settings_go_nowhere_the_pull_request_chooses() {
    let outside = "not the checkout's\n";
    for (case, plant) in [
        ("a file", Plant::File),
        ("a directory", Plant::Directory),
        ("a link to a manifest", Plant::Link("deploy/new.yaml")),
        (
            "a link out of the checkout",
            Plant::Link("../runner/bashrc"),
        ),
    ] {
        let runner = Runner::new(
            &[
                ("legacy/old.yaml", OLD),
                (
                    ".podcycle.yaml",
                    "fail-on: error\nextend-exclude: [legacy/**]\n",
                ),
            ],
            &[("deploy/new.yaml", NEW), ("legacy/old.yaml", OLD)],
        );
        fs::write(runner.path("runner/bashrc"), outside).unwrap();
        let work = runner.path("work");
        for name in [".podcycle-base.yaml", ".podcycle-baseline.json"] {
            plant.at(&work.join(name));
        }
        runner.git(&work, &["add", "--all"]);
        runner.git(&work, &["commit", "--quiet", "-m", "change"]);

        let run = runner.check("pull_request", "main");
        assert_eq!(run.code, Some(1), "{case}: {}", run.log);
        assert_eq!(
            run.sarif_results(),
            ["deploy/new.yaml:8:5 init-container-probe"],
            "{case}: {}",
            run.log
        );
        assert!(
            !run.log.contains("main has no .podcycle.yaml"),
            "{case}: {}",
            run.log
        );
        assert_eq!(
            fs::read_to_string(work.join("deploy/new.yaml")).unwrap(),
            NEW,
            "{case}"
        );
        assert_eq!(
            fs::read_to_string(runner.path("runner/bashrc")).unwrap(),
            outside,
            "{case}"
        );
        let status = runner
            .command("git")
            .current_dir(&work)
            .args(["status", "--porcelain", "--ignored"])
            .output()
            .unwrap();
        assert_eq!(text(&status.stdout), "", "{case}: the checkout was changed");
    }
}

/// What a pull request commits at a path the recipe once wrote to.
#[derive(Clone, Copy)]
enum Plant {
    File,
    Directory,
    Link(&'static str),
}

impl Plant {
    fn at(self, path: &Path) {
        match self {
            Plant::File => fs::write(path, "fail-on: never\n").unwrap(),
            Plant::Directory => {
                fs::create_dir(path).unwrap();
                fs::write(path.join("keep"), "").unwrap();
            }
            Plant::Link(target) => std::os::unix::fs::symlink(target, path).unwrap(),
        }
    }
}

/// Text of the pull request's choosing — a dependency's name in the counts copied from
/// podcycle's standard error, a file's name in the table, the base branch's name — renders as
/// itself in the job summary: no heading, link, image or HTML of its own, as a Markdown parser
/// reads the summary.
fn the_job_summary_renders_no_markdown_of_the_pull_request() {
    let hostile = "d`[l](https://evil.example/)![i](https://evil.example/i.png)<b>x</b>";
    let chart = format!(
        "apiVersion: v2\nname: web\nversion: 0.1.0\ndependencies:\n- name: {hostile:?}\n  \
         version: 1.0.0\n  repository: https://charts.example/\n"
    );
    let runner = Runner::new(
        &[(".podcycle.yaml", "fail-on: error\n")],
        &[
            ("web/Chart.yaml", &chart),
            (
                "web/templates/cm.yaml",
                "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n",
            ),
            ("deploy/# a`b`[c](https:x.yaml", NEW),
        ],
    );
    let work = runner.path("work");
    runner.git(&work, &["add", "--all"]);
    runner.git(&work, &["commit", "--quiet", "-m", "change"]);
    let run = runner.check("pull_request", "main");
    assert_eq!(run.code, Some(1), "{}", run.log);
    assert!(
        run.log.contains(hostile),
        "the name is in the counts: {}",
        run.log
    );

    use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};
    let mut text = String::new();
    let mut prose = String::new();
    let mut headings = 0;
    let mut in_code = false;
    for event in Parser::new_ext(&run.summary, Options::ENABLE_TABLES) {
        match event {
            Event::Start(Tag::Heading { .. }) => headings += 1,
            Event::Start(Tag::Link { .. } | Tag::Image { .. })
            | Event::Html(_)
            | Event::InlineHtml(_) => panic!("{event:?} in the summary:\n{}", run.summary),
            Event::Start(Tag::CodeBlock(_)) => in_code = true,
            Event::End(TagEnd::CodeBlock) => in_code = false,
            Event::Text(t) if !in_code => {
                prose.push_str(&t);
                text.push_str(&t);
            }
            Event::Text(t) | Event::Code(t) => text.push_str(&t),
            _ => {}
        }
    }
    assert_eq!(headings, 1, "only the summary's own:\n{}", run.summary);
    // No address outside code, where GitHub would make a link of it on its own.
    assert!(!prose.contains("://"), "{prose}\n{}", run.summary);
    // SARIF's address of the file: its name, percent-encoded.
    for literal in [hostile, "deploy/%23%20a%60b%60%5Bc%5D%28https%3Ax.yaml:8:5"] {
        assert!(text.contains(literal), "{literal}\n{}", run.summary);
    }
}

/// A push has no base branch: the commit's own configuration and baseline apply.
fn a_push_is_checked_with_its_own_settings() {
    let baseline = baseline_of(&[("deploy/old.yaml", OLD)]);
    let runner = Runner::new(
        &[],
        &[
            ("deploy/old.yaml", OLD),
            ("deploy/new.yaml", NEW),
            (".podcycle.yaml", "ignore: [prestop-exceeds-grace-period]\n"),
            (".podcycle-baseline.json", &baseline),
        ],
    );
    let run = runner.check("push", "");
    assert_eq!(run.code, Some(1), "{}", run.log);
    run.reports_only_the_new_finding();
    assert!(!run.summary.contains("Pull request"), "{}", run.summary);
    assert!(
        run.summary.contains("`deploy/new.yaml:8:5`"),
        "{}",
        run.summary
    );

    // Clean: exit 0, a summary without a table.
    fs::remove_file(runner.path("work/deploy/new.yaml")).unwrap();
    fs::remove_file(runner.path("runner/summary.md")).unwrap();
    let run = runner.check("push", "");
    assert_eq!(run.code, Some(0), "{}", run.log);
    assert_eq!(run.sarif_results(), Vec::<String>::new());
    assert!(
        run.summary.contains("No problems found in 1 file."),
        "{}",
        run.summary
    );
    assert!(!run.summary.contains("| severity |"), "{}", run.summary);
}

/// The pull request that adopts podcycle: the base branch has no configuration and no
/// baseline. The step says so, reports every finding, and does not fail; the pull request's
/// own configuration is not read.
fn a_first_adoption_reports_and_does_not_fail() {
    let runner = Runner::new(
        &[("deploy/old.yaml", OLD)],
        &[
            (".podcycle.yaml", "ignore: [init-container-probe]\n"),
            (
                ".podcycle-baseline.json",
                &baseline_of(&[("deploy/old.yaml", OLD)]),
            ),
        ],
    );
    let run = runner.check("pull_request", "main");
    assert_eq!(run.code, Some(0), "{}", run.log);
    assert!(
        run.log
            .contains("podcycle: note: main has no .podcycle.yaml: default settings"),
        "{}",
        run.log
    );
    assert!(
        run.log
            .contains("podcycle: note: main has no .podcycle-baseline.json"),
        "{}",
        run.log
    );
    assert!(
        run.log
            .contains("Found 2 errors, 1 warning in 1 of 1 file."),
        "{}",
        run.log
    );
    assert_eq!(
        run.sarif_results(),
        [
            "deploy/old.yaml:17:9 init-container-probe",
            "deploy/old.yaml:24:11 poststart-blocks-sidecar",
            "deploy/old.yaml:27:11 prestop-exceeds-grace-period",
        ]
    );
    assert!(
        run.summary
            .contains("`main` has no `.podcycle.yaml`: default settings"),
        "{}",
        run.summary
    );
    assert!(
        run.summary.contains("`deploy/old.yaml:17:9`"),
        "{}",
        run.summary
    );
    // The pull request's baseline is left as it is, and not read.
    assert_eq!(
        fs::read_to_string(runner.path("work/.podcycle-baseline.json")).unwrap(),
        baseline_of(&[("deploy/old.yaml", OLD)])
    );
}

/// `install` takes the release archive for this machine only when its SHA-256 matches; a
/// mismatch fails the step with nothing installed, and is never replaced by a build.
fn a_release_archive_is_installed_only_with_its_checksum() {
    let runner = Runner::new(&[], &[]);
    let target = runner
        .command("bash")
        .arg(script())
        .arg("target")
        .output()
        .unwrap();
    let target = text(&target.stdout).trim().to_owned();
    assert!(!target.is_empty(), "this machine has no release target");
    let name = format!("podcycle-9.9.9-{target}");
    let releases = runner.path("releases/v9.9.9");
    fs::create_dir_all(releases.join(&name)).unwrap();
    fs::copy(
        env!("CARGO_BIN_EXE_podcycle"),
        releases.join(&name).join("podcycle"),
    )
    .unwrap();
    let archive = format!("{name}.tar.gz");
    let tar = runner
        .command("tar")
        .current_dir(&releases)
        .args(["czf", &archive, &name])
        .status()
        .unwrap();
    assert!(tar.success());
    let sum = runner
        .command("sha256sum")
        .current_dir(&releases)
        .arg(&archive)
        .output()
        .unwrap();
    fs::write(releases.join(format!("{archive}.sha256")), &sum.stdout).unwrap();

    let install = |home: &str| {
        runner
            .command("bash")
            .arg(script())
            .arg("install")
            .env("PODCYCLE_VERSION", "v9.9.9")
            .env(
                "PODCYCLE_RELEASES_URL",
                format!("file://{}", runner.path("releases").display()),
            )
            .env("PODCYCLE_HOME", runner.path(home))
            .env("GITHUB_PATH", runner.path("runner/path"))
            // No cargo: a failed download could not pass for an installation.
            .env("PATH", "/usr/bin:/bin")
            .output()
            .unwrap()
    };
    let output = install("good");
    let log = format!("{}{}", text(&output.stdout), text(&output.stderr));
    assert_eq!(output.status.code(), Some(0), "{log}");
    assert!(log.contains(&format!("{archive}: SHA-256")), "{log}");
    assert!(
        log.contains(concat!("podcycle ", env!("CARGO_PKG_VERSION"))),
        "{log}"
    );
    assert!(runner.path("good/bin/podcycle").is_file());
    assert_eq!(
        fs::read_to_string(runner.path("runner/path")).unwrap(),
        format!("{}\n", runner.path("good/bin").display())
    );

    // One byte of the archive changed.
    let mut bytes = fs::read(releases.join(&archive)).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 1;
    fs::write(releases.join(&archive), bytes).unwrap();
    let output = install("tampered");
    let log = format!("{}{}", text(&output.stdout), text(&output.stderr));
    assert_eq!(output.status.code(), Some(2), "{log}");
    assert!(
        log.contains("::error title=podcycle::the SHA-256 of"),
        "{log}"
    );
    assert!(!runner.path("tampered/bin/podcycle").exists(), "{log}");
}
