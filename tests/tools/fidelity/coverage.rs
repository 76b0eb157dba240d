//! How much of Kubernetes' validation the differential corpora reach, measured by Kubernetes'
//! own code, and how podcycle answers each call that builds a field error (docs/fidelity.md,
//! "Coverage of Kubernetes' validation").
//!
//! The table in docs/fidelity.md is generated from three sources:
//! - the oracle's static listing (`oracle --field-error-calls`) of every call to `field.Invalid`,
//!   `Required`, `NotSupported`, `Forbidden`, `Duplicate`, `TooLong`, `TooMany` and `NotFound`
//!   in `pkg/apis/{core,apps,batch,policy,autoscaling}/validation`, with the functions reachable
//!   from the Validate of the eleven kinds the oracle judges;
//! - Go's coverage of those packages (`go build -cover`, `GOCOVERDIR`, `go tool covdata
//!   textfmt`) over the corpora of the differential test: the fixtures, examples, `testdata/`
//!   and the shared corpus, and the 10,000 generated specs of a `cargo test`;
//! - the call that built each rejection: the coverage build compiles k8s.io/apimachinery's
//!   `field` package with a recorder of its callers (a copy of the module with `-modfile`, as Go
//!   refuses overlays in the module cache), and the oracle names each rejection's call
//!   (`origin`), so that podcycle's answer to it is counted call by call.
//!
//! `coverage_table_lists_every_field_error_call` is cheap: it checks that the committed table
//! lists exactly the calls of the pinned Kubernetes source and that its totals add up.
//! `PODCYCLE_FIDELITY_COVERAGE=check` runs the corpora through the coverage build and fails when
//! the table differs; `PODCYCLE_FIDELITY_COVERAGE=write` rewrites it.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

use serde::Deserialize;

use super::{
    CallTally, GENERATED_SPECS, Tally, fixtures_tally, generated_tally, judge_with, oracle,
    repository,
};

/// The validation packages whose field-error calls are listed.
const PACKAGES: [&str; 5] = [
    "k8s.io/kubernetes/pkg/apis/core/validation",
    "k8s.io/kubernetes/pkg/apis/apps/validation",
    "k8s.io/kubernetes/pkg/apis/batch/validation",
    "k8s.io/kubernetes/pkg/apis/policy/validation",
    "k8s.io/kubernetes/pkg/apis/autoscaling/validation",
];

const FIELD_PACKAGE: &str = "k8s.io/apimachinery/pkg/util/validation/field";

const BEGIN: &str = "<!-- BEGIN generated field-error coverage: PODCYCLE_FIDELITY_COVERAGE=write cargo test --test tools fidelity::coverage -->";
const END: &str = "<!-- END generated field-error coverage -->";

/// One call of the static listing (oracle/fielderrors.go).
#[derive(Clone, Debug, Deserialize)]
struct Call {
    file: String,
    line: usize,
    function: String,
    constructor: String,
    reachable: bool,
}

impl Call {
    fn site(&self) -> String {
        format!("{}:{}", self.file, self.line)
    }
}

fn docs_path() -> PathBuf {
    repository().join("docs/fidelity.md")
}

/// Runs `go` in `oracle/` and returns its standard output.
fn go(args: &[&str]) -> String {
    let output = Command::new("go")
        .args(args)
        .current_dir(repository().join("oracle"))
        .output()
        .unwrap_or_else(|error| panic!("`go {}` does not run: {error}", args.join(" ")));
    assert!(
        output.status.success(),
        "`go {}` failed: {}",
        args.join(" "),
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).expect("go prints UTF-8")
}

/// Every field-error call of the validation packages, as the pinned source has them.
fn static_calls() -> Vec<Call> {
    let mut args = vec!["list", "-f", "{{.Dir}}"];
    args.extend(PACKAGES);
    let dirs = go(&args);
    let output = Command::new(oracle())
        .arg("--field-error-calls")
        .args(dirs.lines())
        .output()
        .expect("the oracle runs");
    assert!(
        output.status.success(),
        "oracle --field-error-calls failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(|line| serde_json::from_str(line).expect("the oracle prints JSON lines"))
        .collect()
}

/// What the corpora did at one call.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Outcome {
    reached: bool,
    counts: CallTally,
}

impl Outcome {
    fn status(&self) -> &'static str {
        let c = self.counts;
        if !self.reached {
            "not reached"
        } else if c.rejections == 0 {
            "reached, no rejection returned"
        } else if c.reported == c.rejections {
            "matched"
        } else if c.reported + c.out_of_scope == c.rejections && c.reported == 0 {
            "out of scope"
        } else if c.reported + c.out_of_scope == c.rejections {
            "matched or out of scope"
        } else {
            "not matched"
        }
    }
}

/// The totals of a table.
#[derive(Debug, Default, PartialEq, Eq)]
struct Totals {
    calls: usize,
    reachable: usize,
    reached: usize,
    rejecting: usize,
    matched: usize,
    out_of_scope: usize,
    mixed: usize,
    unmatched: usize,
}

impl Totals {
    fn of(calls: &[Call], outcomes: &BTreeMap<String, Outcome>) -> Totals {
        let mut totals = Totals {
            calls: calls.len(),
            ..Totals::default()
        };
        for call in calls.iter().filter(|c| c.reachable) {
            totals.reachable += 1;
            let outcome = outcomes.get(&call.site()).copied().unwrap_or_default();
            if outcome.reached {
                totals.reached += 1;
            }
            if outcome.counts.rejections > 0 {
                totals.rejecting += 1;
            }
            match outcome.status() {
                "matched" => totals.matched += 1,
                "out of scope" => totals.out_of_scope += 1,
                "matched or out of scope" => totals.mixed += 1,
                "not matched" => totals.unmatched += 1,
                _ => {}
            }
        }
        totals
    }

    fn render(&self) -> String {
        let percent = |part: usize, whole: usize| {
            if whole == 0 {
                0.0
            } else {
                part as f64 * 100.0 / whole as f64
            }
        };
        format!(
            "**{} field-error calls** in the five validation packages, **{} reachable** from the eleven kinds. \
             The corpora reach **{} of them ({:.1} %)**; {} returned a rejection: **{} matched** by a podcycle error at the \
             same object and field, {} declared out of scope, {} partly matched and partly out of scope, **{} not matched**.",
            self.calls,
            self.reachable,
            self.reached,
            percent(self.reached, self.reachable),
            self.rejecting,
            self.matched,
            self.out_of_scope,
            self.mixed,
            self.unmatched,
        )
    }
}

/// The generated section of docs/fidelity.md.
fn render(calls: &[Call], outcomes: &BTreeMap<String, Outcome>) -> String {
    let mut text = String::new();
    text.push_str(BEGIN);
    text.push_str("\n\n");
    text.push_str(&Totals::of(calls, outcomes).render());
    text.push_str(
        "\n\n| call | function | error | status | rejections | reported | out of scope |\n|---|---|---|---|---:|---:|---:|\n",
    );
    for call in calls.iter().filter(|c| c.reachable) {
        let outcome = outcomes.get(&call.site()).copied().unwrap_or_default();
        let c = outcome.counts;
        text.push_str(&format!(
            "| `{}` | `{}` | {} | {} | {} | {} | {} |\n",
            call.site(),
            call.function,
            call.constructor,
            outcome.status(),
            c.rejections,
            c.reported,
            c.out_of_scope
        ));
    }
    text.push('\n');
    text.push_str(END);
    text
}

/// The generated section of the committed docs/fidelity.md, and the rest around it.
fn committed() -> (String, String, String) {
    let text = std::fs::read_to_string(docs_path()).expect("docs/fidelity.md is readable");
    let start = text
        .find(BEGIN)
        .expect("docs/fidelity.md has the generated coverage section");
    let end = text[start..]
        .find(END)
        .map(|i| start + i + END.len())
        .expect("the generated coverage section of docs/fidelity.md ends");
    (
        text[..start].to_owned(),
        text[start..end].to_owned(),
        text[end..].to_owned(),
    )
}

/// Reads a committed table back: each row's call and outcome.
fn parse(section: &str) -> Vec<(Call, Outcome)> {
    let mut rows = Vec::new();
    for line in section.lines().filter(|l| l.starts_with("| `")) {
        let cells: Vec<&str> = line.trim_matches('|').split('|').map(str::trim).collect();
        assert_eq!(cells.len(), 7, "a row of the coverage table: {line}");
        let site = cells[0].trim_matches('`');
        let (file, line_number) = site.rsplit_once(':').expect("a call is file:line");
        let number = |cell: &str| cell.parse::<usize>().expect("a count");
        let counts = CallTally {
            rejections: number(cells[4]),
            reported: number(cells[5]),
            out_of_scope: number(cells[6]),
        };
        let outcome = Outcome {
            reached: cells[3] != "not reached",
            counts,
        };
        assert_eq!(
            outcome.status(),
            cells[3],
            "the status of a row follows its counts: {line}"
        );
        rows.push((
            Call {
                file: file.to_owned(),
                line: number(line_number),
                function: cells[1].trim_matches('`').to_owned(),
                constructor: cells[2].to_owned(),
                reachable: true,
            },
            outcome,
        ));
    }
    rows
}

/// The cheap check: the committed table lists exactly the reachable calls of the pinned
/// source, and its totals are those of its rows.
pub fn table_lists_every_field_error_call() {
    let calls = static_calls();
    assert!(
        calls.len() > 500,
        "the static listing found only {} calls: is the validation source there?",
        calls.len()
    );
    if let Ok(mode @ ("write" | "check")) = std::env::var("PODCYCLE_FIDELITY_COVERAGE").as_deref() {
        let write = mode == "write";
        // The generator's nested strategies need more stack than a test thread has.
        return std::thread::Builder::new()
            .stack_size(256 << 20)
            .spawn(move || regenerate(&calls, write))
            .expect("a thread starts")
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
    }
    let (_, section, _) = committed();
    let rows = parse(&section);
    let listed: BTreeSet<(String, String, String)> = rows
        .iter()
        .map(|(c, _)| (c.site(), c.function.clone(), c.constructor.clone()))
        .collect();
    let expected: BTreeSet<(String, String, String)> = calls
        .iter()
        .filter(|c| c.reachable)
        .map(|c| (c.site(), c.function.clone(), c.constructor.clone()))
        .collect();
    let missing: Vec<_> = expected.difference(&listed).take(10).collect();
    let extra: Vec<_> = listed.difference(&expected).take(10).collect();
    assert!(
        missing.is_empty() && extra.is_empty() && rows.len() == expected.len(),
        "docs/fidelity.md's coverage table is not the calls of the pinned Kubernetes source \
         (regenerate it with PODCYCLE_FIDELITY_COVERAGE=write): not listed {missing:?}, no longer there {extra:?}"
    );
    let outcomes: BTreeMap<String, Outcome> = rows.iter().map(|(c, o)| (c.site(), *o)).collect();
    let totals = Totals::of(&calls, &outcomes).render();
    assert!(
        section.contains(&totals),
        "docs/fidelity.md's coverage totals are not those of its rows; they are:\n{totals}"
    );
}

/// Runs the corpora through the coverage build and writes or checks the table.
fn regenerate(calls: &[Call], write: bool) {
    let binary = coverage_oracle();
    let counters = Path::new(env!("CARGO_TARGET_TMPDIR")).join("oracle-coverage/counters");
    let _ = std::fs::remove_dir_all(&counters);
    std::fs::create_dir_all(&counters).expect("the target directory is writable");
    let judge = |files: &[PathBuf], version| judge_with(&binary, Some(&counters), files, version);
    let mut tally = fixtures_tally(&judge);
    tally.add(generated_tally(&judge, GENERATED_SPECS));
    let reached = reached_lines(&counters);
    let outcomes = outcomes(calls, &tally, &reached);
    let (before, section, after) = committed();
    let generated = render(calls, &outcomes);
    eprintln!("{}", Totals::of(calls, &outcomes).render());
    if write {
        std::fs::write(docs_path(), format!("{before}{generated}{after}"))
            .expect("docs/fidelity.md is writable");
    } else {
        assert!(
            section == generated,
            "docs/fidelity.md's coverage table is not current: regenerate it with PODCYCLE_FIDELITY_COVERAGE=write"
        );
    }
}

fn outcomes(
    calls: &[Call],
    tally: &Tally,
    reached: &BTreeMap<String, Vec<(usize, usize, bool)>>,
) -> BTreeMap<String, Outcome> {
    let mut outcomes = BTreeMap::new();
    for call in calls {
        let counts = tally.calls.get(&call.site()).copied().unwrap_or_default();
        // The innermost blocks around the call's line: those that start last (covdata may
        // list a block once per run).
        let around: Vec<&(usize, usize, bool)> = reached
            .get(&call.file)
            .map(|blocks| {
                blocks
                    .iter()
                    .filter(|(start, end, _)| *start <= call.line && call.line <= *end)
                    .collect()
            })
            .unwrap_or_default();
        let innermost = around.iter().map(|(start, _, _)| *start).max();
        let mut covered = around
            .iter()
            .any(|(start, _, hit)| Some(*start) == innermost && *hit);
        if !covered && counts.rejections > 0 {
            // A block Go's coverage splits within the line: the recorded origin shows it ran.
            eprintln!(
                "{} made rejections where Go's coverage shows no run",
                call.site()
            );
            covered = true;
        }
        outcomes.insert(
            call.site(),
            Outcome {
                reached: covered,
                counts,
            },
        );
    }
    outcomes
}

/// Go's coverage of the validation packages: for each file, its blocks (first line, last line,
/// executed), from `go tool covdata textfmt`.
fn reached_lines(counters: &Path) -> BTreeMap<String, Vec<(usize, usize, bool)>> {
    let profile = counters.join("profile.txt");
    go(&[
        "tool",
        "covdata",
        "textfmt",
        &format!("-i={}", counters.display()),
        &format!("-o={}", profile.display()),
    ]);
    let text = std::fs::read_to_string(&profile).expect("covdata writes the profile");
    let mut blocks: BTreeMap<String, Vec<(usize, usize, bool)>> = BTreeMap::new();
    // `k8s.io/kubernetes/pkg/apis/core/validation/validation.go:123.45,130.2 3 1`
    for line in text.lines().skip(1) {
        let Some((place, rest)) = line.rsplit_once(':') else {
            continue;
        };
        let Some(file) = place.strip_prefix("k8s.io/kubernetes/") else {
            continue;
        };
        let mut parts = rest.split([',', ' ']);
        let line_of = |range: Option<&str>| {
            range
                .and_then(|r| r.split('.').next())
                .and_then(|l| l.parse::<usize>().ok())
        };
        let (Some(start), Some(end)) = (line_of(parts.next()), line_of(parts.next())) else {
            continue;
        };
        let count = parts
            .nth(1)
            .and_then(|c| c.parse::<u64>().ok())
            .unwrap_or(0);
        let entry = blocks.entry(file.to_owned()).or_default();
        // Several runs are merged by covdata; a block is executed if any run executed it.
        entry.push((start, end, count > 0));
    }
    blocks
}

/// The oracle built with Go's coverage of the validation packages, and with k8s.io/apimachinery's
/// `field` package recording who builds each error, so that the oracle can name each
/// rejection's call (oracle/origin_coverage.go).
fn coverage_oracle() -> PathBuf {
    let work = Path::new(env!("CARGO_TARGET_TMPDIR")).join("oracle-coverage");
    let module = go(&["list", "-m", "-f", "{{.Dir}}", "k8s.io/apimachinery"]);
    let field = go(&["list", "-f", "{{.Dir}}", FIELD_PACKAGE]);
    let copy = work.join("apimachinery");
    let _ = std::fs::remove_dir_all(&copy);
    std::fs::create_dir_all(&work).expect("the target directory is writable");
    let copied = Command::new("cp")
        .arg("-r")
        .arg(module.trim())
        .arg(&copy)
        .status()
        .expect("cp runs");
    assert!(copied.success(), "copying k8s.io/apimachinery failed");
    let made_writable = Command::new("chmod")
        .args(["-R", "u+w"])
        .arg(&copy)
        .status()
        .expect("chmod runs");
    assert!(made_writable.success());
    let relative = Path::new(field.trim())
        .strip_prefix(module.trim())
        .expect("the field package is in its module");
    let errors_go = copy.join(relative).join("errors.go");
    let source = std::fs::read_to_string(&errors_go).expect("field/errors.go is readable");
    std::fs::write(&errors_go, recording(&source)).expect("the copy is writable");
    std::fs::write(copy.join(relative).join("zz_oracle_origins.go"), ORIGINS_GO)
        .expect("the copy is writable");
    let go_mod = std::fs::read_to_string(repository().join("oracle/go.mod"))
        .expect("oracle/go.mod is readable");
    let pinned = "k8s.io/apimachinery => k8s.io/apimachinery v0.37.2";
    assert!(
        go_mod.contains(pinned),
        "oracle/go.mod replaces k8s.io/apimachinery as `{pinned}`"
    );
    let go_mod = go_mod.replace(
        pinned,
        &format!("k8s.io/apimachinery => {}", copy.display()),
    );
    std::fs::write(work.join("go.mod"), go_mod).expect("the target directory is writable");
    std::fs::copy(repository().join("oracle/go.sum"), work.join("go.sum"))
        .expect("oracle/go.sum is copied");
    let binary = work.join("oracle");
    let started = std::time::Instant::now();
    go(&[
        "build",
        &format!("-modfile={}", work.join("go.mod").display()),
        "-tags",
        "oraclecoverage",
        "-cover",
        // The oracle's own package too: without it Go writes no counters at exit.
        &format!(
            "-coverpkg=github.com/podcycle/podcycle/oracle,{}",
            PACKAGES.join(",")
        ),
        "-o",
        &binary.display().to_string(),
        ".",
    ]);
    eprintln!("built the coverage oracle in {:.1?}", started.elapsed());
    binary
}

/// field/errors.go with every constructor's `return &Error{…}` wrapped in `oracleRecord(…)`.
fn recording(source: &str) -> String {
    let mut out = String::with_capacity(source.len() + 1024);
    let mut open = false;
    let mut wrapped = 0;
    for line in source.split_inclusive('\n') {
        let bare = line.trim_end_matches('\n');
        if bare == "\treturn &Error{" {
            out.push_str("\treturn oracleRecord(&Error{\n");
            open = true;
            wrapped += 1;
        } else if open && bare == "\t}" {
            out.push_str("\t})\n");
            open = false;
        } else {
            out.push_str(line);
        }
    }
    assert!(
        wrapped >= 8,
        "field/errors.go builds its errors otherwise than `return &Error{{`: only {wrapped} wrapped"
    );
    out
}

/// Added to the copy of the `field` package: who built each error since the last take.
const ORIGINS_GO: &str = r#"package field

import (
	"runtime"
	"sync"
)

// OracleOrigin is a field error and the call that built it.
type OracleOrigin struct {
	Err  *Error
	File string
	Line int
}

var (
	oracleMu      sync.Mutex
	oracleOrigins []OracleOrigin
)

// oracleRecord is called by each constructor: its caller's caller built the error.
func oracleRecord(e *Error) *Error {
	if _, file, line, ok := runtime.Caller(2); ok {
		oracleMu.Lock()
		oracleOrigins = append(oracleOrigins, OracleOrigin{e, file, line})
		oracleMu.Unlock()
	}
	return e
}

// OracleTakeOrigins returns the errors built since the last call, and forgets them.
func OracleTakeOrigins() []OracleOrigin {
	oracleMu.Lock()
	defer oracleMu.Unlock()
	taken := oracleOrigins
	oracleOrigins = nil
	return taken
}
"#;
