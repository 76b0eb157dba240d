//! `check` and `explain` agree on every rule fixture and explain fixture: each file goes through
//! both front ends apart — the call `check` makes for a file (`podcycle::run::lint_bytes`) and
//! `explain` and `explain --rollout` with `--format json` — and what explain says about each
//! workload is held to check's findings:
//!
//! - the findings explain lists under a workload are check's findings in that object;
//! - an object explain calls rejected is one check reports an API-server or decoder error in,
//!   and the other way round; a rejected object has no rollout (no plan, no budgets) and no
//!   finding of a rollout rule;
//! - each rollout rule reports exactly where the numbers explain shows say it must:
//!   `progress-deadline-exceeded` by the deadline's verdict, `job-deadline-cuts-retries` by the
//!   attempts that start before the deadline against those allowed,
//!   `rolling-update-takes-all-replicas` by the pods `maxUnavailable` resolves to at the fewest
//!   replicas, `statefulset-rollout-exceeds-budget` by the update and creation times against the
//!   rollout budget, `disruption-budget-blocks-eviction` by the evictions a budget allows; and
//!   the numbers a finding's message states are the ones explain shows;
//! - a finding about a platform's cut (`shutdown-exceeds-platform-notice`,
//!   `grace-period-exceeds-platform-cap`) is one explain draws on the pod's shutdown, with the
//!   platform's seconds the message states.

use std::path::Path;

use serde_json::Value;

use podcycle::diagnostics::{Diagnostic, Severity, rejects};
use podcycle::explain::ExplainFormat;
use podcycle::rules::{ALL_RULES, Check};
use podcycle::settings::{Selector, Settings};

/// The files: every rule fixture and every explain fixture.
fn files() -> Vec<std::path::PathBuf> {
    ["rules", "testdata/explain", "testdata/explain-rollout"]
        .iter()
        .flat_map(|root| crate::common::manifests(Path::new(root)))
        .collect()
}

/// Where each YAML document starts (byte offsets of its `---` lines), to tell which document a
/// finding or an explained object is in.
fn separators(text: &str) -> Vec<usize> {
    let mut offsets = Vec::new();
    let mut at = 0;
    for line in text.split_inclusive('\n') {
        let bare = line.trim_end();
        if bare == "---" || bare.starts_with("--- ") {
            offsets.push(at);
        }
        at += line.len();
    }
    offsets
}

fn document_at(separators: &[usize], offset: usize) -> usize {
    separators.partition_point(|&s| s <= offset)
}

/// The byte offset where 1-based `line` starts.
fn line_offset(text: &str, line: usize) -> usize {
    text.split_inclusive('\n')
        .take(line.saturating_sub(1))
        .map(str::len)
        .sum()
}

/// One of check's findings, as both front ends print it.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Seen {
    rule: String,
    severity: String,
    line: usize,
    column: usize,
    message: String,
}

fn seen_in_check(file: &podcycle::source::SourceFile, d: &Diagnostic) -> Seen {
    #[allow(clippy::cast_possible_truncation)]
    let at = file.line_col(d.span.range().start as u32);
    Seen {
        rule: d.rule.to_owned(),
        severity: d.severity.as_str().to_owned(),
        line: at.line,
        column: at.column,
        message: d.message.clone(),
    }
}

fn seen_in_explain(finding: &Value) -> Seen {
    Seen {
        rule: finding["rule"].as_str().unwrap_or_default().to_owned(),
        severity: finding["severity"].as_str().unwrap_or_default().to_owned(),
        line: usize::try_from(finding["line"].as_u64().unwrap_or_default()).unwrap_or_default(),
        column: usize::try_from(finding["column"].as_u64().unwrap_or_default()).unwrap_or_default(),
        message: finding["message"].as_str().unwrap_or_default().to_owned(),
    }
}

fn number(value: &Value) -> Option<f64> {
    value.as_f64()
}

/// A count written as `maxUnavailable` resolved for `replicas` as the StatefulSet controller
/// does (`getStatefulSetMaxUnavailable`: a percentage rounded down, at least 1).
fn statefulset_pods(written: &str, replicas: i64) -> Option<i64> {
    if let Some(percent) = written.strip_suffix('%') {
        let percent: i64 = percent.parse().ok()?;
        Some((percent * replicas / 100).max(1))
    } else {
        written.parse().ok()
    }
}

/// The findings of one rule among `found`.
fn of<'a>(found: &'a [&'a Diagnostic], rule: &str) -> Vec<&'a Diagnostic> {
    found.iter().copied().filter(|d| d.rule == rule).collect()
}

/// Holds one explained rollout to check's findings in its object; returns how many verdicts
/// were compared.
#[allow(clippy::too_many_lines)]
fn agree(
    where_: &str,
    rollout: &Value,
    found: &[&Diagnostic],
    unsuppressed: &[&Diagnostic],
    settings: &Settings,
) -> usize {
    let rollout_rules: Vec<&str> = ALL_RULES
        .iter()
        .filter(|rule| matches!(rule.check, Check::Rollout(_)))
        .map(|rule| rule.name)
        .collect();
    // A suppression hides a rejection from the report, not from the API server: the object is
    // judged by what check finds before suppressions.
    let owned: Vec<Diagnostic> = unsuppressed.iter().map(|d| (*d).clone()).collect();
    let rejected = rollout["rejected"]
        .as_bool()
        .expect("`rejected` is a boolean");
    assert_eq!(
        rejected,
        rejects(&owned),
        "{where_}: explain says rejected = {rejected}, check's findings say otherwise: {:#?}",
        unsuppressed
            .iter()
            .map(|d| (d.rule, d.severity, d.enforcement))
            .collect::<Vec<_>>()
    );
    if rejected {
        for field in [
            "replicas",
            "deployment",
            "replica_set",
            "statefulset",
            "daemonset",
            "job",
            "cronjob",
        ] {
            assert!(
                rollout[field].is_null(),
                "{where_}: a rejected object has no rollout, yet explain shows its `{field}`"
            );
        }
        assert_eq!(
            rollout["disruption_budgets"],
            serde_json::json!([]),
            "{where_}"
        );
        let judged: Vec<&str> = found
            .iter()
            .map(|d| d.rule)
            .filter(|rule| rollout_rules.contains(rule))
            .collect();
        assert!(
            judged.is_empty(),
            "{where_}: check judges the rollout of an object the API server rejects: {judged:?}"
        );
        return 1;
    }
    let mut compared = 1;

    // progress-deadline-exceeded: an error where the deadline is exceeded, a warning where it
    // may be, nothing where it is met or not judged.
    if let Some(deployment) = rollout["deployment"].as_object() {
        let verdict = deployment["deadline"]["verdict"]
            .as_str()
            .unwrap_or_default();
        let reported: Vec<Severity> = of(found, "progress-deadline-exceeded")
            .iter()
            .map(|d| d.severity)
            .collect();
        let expected: &[Severity] = match verdict {
            "exceeded" => &[Severity::Error],
            "may-exceed" => &[Severity::Warning],
            _ => &[],
        };
        assert_eq!(
            reported, expected,
            "{where_}: explain's progress deadline is `{verdict}`, check reports {reported:?}"
        );
        compared += 1;

        // rolling-update-takes-all-replicas, Deployment: a written `maxUnavailable` that
        // resolves to every replica at the fewest.
        let replicas = &rollout["replicas"];
        let fewest = replicas["fewest"].as_i64().unwrap_or_default();
        let unavailable = &deployment["max_unavailable"];
        let takes_all = unavailable.is_object()
            && unavailable["defaulted"] == false
            && fewest >= 2
            && unavailable["pods_at_fewest"].as_i64() >= Some(fewest);
        let reported = of(found, "rolling-update-takes-all-replicas");
        assert_eq!(
            !reported.is_empty(),
            takes_all,
            "{where_}: explain resolves `maxUnavailable` to {} of {fewest} pods at the fewest; check reports {:?}",
            unavailable["pods_at_fewest"],
            reported.iter().map(|d| &d.message).collect::<Vec<_>>()
        );
        compared += 1;
    }

    if let Some(statefulset) = rollout["statefulset"].as_object() {
        let fewest = rollout["replicas"]["fewest"].as_i64().unwrap_or_default();
        // rolling-update-takes-all-replicas, StatefulSet: a `maxUnavailable` the version keeps
        // that deletes every pod at once.
        let takes_all = statefulset["update_strategy"] == "RollingUpdate"
            && fewest >= 2
            && statefulset["max_unavailable"]
                .as_str()
                .and_then(|written| statefulset_pods(written, fewest))
                .is_some_and(|pods| pods >= fewest);
        let reported = of(found, "rolling-update-takes-all-replicas");
        assert_eq!(
            !reported.is_empty(),
            takes_all,
            "{where_}: explain shows `maxUnavailable` {} for {fewest} pods at the fewest; check reports {:?}",
            statefulset["max_unavailable"],
            reported.iter().map(|d| &d.message).collect::<Vec<_>>()
        );
        for finding in &reported {
            assert!(
                finding.message.contains(&format!("all {fewest} pods")),
                "{where_}: {} does not state the {fewest} pods explain shows",
                finding.message
            );
        }
        compared += 1;

        // statefulset-rollout-exceeds-budget: an update, or an OrderedReady creation, certainly
        // longer than the rollout budget.
        #[allow(clippy::cast_precision_loss)]
        let budget = settings.rollout_budget_seconds as f64;
        let available = number(&statefulset["available_after_seconds"]["min"]);
        let update = number(&statefulset["update_seconds"]["min"]);
        let create = number(&statefulset["create_seconds"]["min"]);
        let over_update = available.is_some()
            && statefulset["update_strategy"] == "RollingUpdate"
            && update.is_some_and(|u| u > budget);
        let over_create = available.is_some()
            && statefulset["pod_management_policy"] == "OrderedReady"
            && create.is_some_and(|c| c > budget);
        let reported = of(found, "statefulset-rollout-exceeds-budget");
        assert_eq!(
            reported.len(),
            usize::from(over_update || over_create),
            "{where_}: explain's update takes ≥{update:?}s and creation ≥{create:?}s against a budget of {budget}s; check reports {:?}",
            reported.iter().map(|d| &d.message).collect::<Vec<_>>()
        );
        if let (true, Some(update)) = (over_update, update) {
            let said = format!("takes at least {}", podcycle::text::seconds(update));
            assert!(
                reported[0].message.contains(&said),
                "{where_}: `{}` does not say `{said}`, which explain shows",
                reported[0].message
            );
        }
        compared += 1;
    }

    if let Some(daemonset) = rollout["daemonset"].as_object() {
        let everything = daemonset["update_strategy"] == "RollingUpdate"
            && daemonset["max_unavailable"]
                .as_str()
                .and_then(|w| w.strip_suffix('%'))
                .and_then(|p| p.parse::<i64>().ok())
                .is_some_and(|p| p >= 100);
        assert_eq!(
            !of(found, "rolling-update-takes-all-replicas").is_empty(),
            everything,
            "{where_}: explain shows the DaemonSet's `maxUnavailable` {}",
            daemonset["max_unavailable"]
        );
        compared += 1;
    }

    // job-deadline-cuts-retries, for a Job or a CronJob's jobs: fewer attempts start before
    // `activeDeadlineSeconds` than `backoffLimit` allows.
    if let Some(job) = rollout["job"].as_object() {
        let fit = job["attempts_within_deadline"].as_i64();
        let allowed = job["attempts_allowed"].as_i64().unwrap_or_default();
        let judged = job["backoff_limit_source"] == "spec"
            && job["pod_failure_policy"] == false
            && job["backoff_limit_per_index"].is_null()
            && job["parallelism"] == 1
            && number(&job["attempt_seconds"]["min"]).is_some();
        let cut = judged && fit.is_some_and(|fit| fit < allowed);
        let reported = of(found, "job-deadline-cuts-retries");
        assert_eq!(
            !reported.is_empty(),
            cut,
            "{where_}: explain shows {fit:?} of {allowed} attempts within the deadline ({}); check reports {:?}",
            job["restart_policy"],
            reported.iter().map(|d| &d.message).collect::<Vec<_>>()
        );
        if let (true, Some(fit)) = (cut, fit) {
            let said = format!("at most {fit} of the {allowed} attempts start");
            assert!(
                reported[0].message.contains(&said),
                "{where_}: `{}` does not say `{said}`, as explain shows",
                reported[0].message
            );
        }
        compared += 1;
    }
    compared
}

/// check's findings in one object: in its document, about it.
fn in_report<'r>(
    report: &'r podcycle::report::FileReport,
    docs: &[usize],
    text: &str,
    object: &Value,
    line: usize,
) -> Vec<&'r Diagnostic> {
    let document = document_at(docs, line_offset(text, line));
    report
        .diagnostics
        .iter()
        .filter(|d| {
            d.object
                .as_ref()
                .is_some_and(|o| serde_json::to_value(o).ok().as_ref() == Some(object))
                && document_at(docs, d.span.range().start) == document
        })
        .collect()
}

/// Lints and explains `text` through both front ends and holds them to each other; returns how
/// many verdicts were compared.
fn check_and_explain(path: &str, text: &str, settings: &Settings) -> usize {
    let report = crate::common::lint_text(path, text, settings);
    let file = &report.file;
    // The same text with its suppressions renamed to text of the same length, so that every
    // position stays.
    let unsuppressed_text = text
        .replace("podcycle:", "podcycle-")
        .replace("podcycle.io/ignore", "podcycle.io/ignorx")
        .replace(
            "ignore-check.kube-linter.io/",
            "ignore-check.kube-linter.iox",
        );
    let unsuppressed = crate::common::lint_text(path, &unsuppressed_text, settings);
    let docs = separators(text);
    let rollouts: Value = serde_json::from_str(&podcycle::cli::explain_rollout_for_tests(
        path,
        text,
        ExplainFormat::Json,
        settings,
    ))
    .unwrap_or_else(|e| panic!("{path}: explain --rollout --format json: {e}"));
    let pods: Value = serde_json::from_str(&podcycle::cli::explain_for_tests_with(
        path,
        text,
        ExplainFormat::Json,
        settings,
    ))
    .unwrap_or_else(|e| panic!("{path}: explain --format json: {e}"));

    // check's findings of each object, by its document and reference.
    let in_object = |object: &Value, line: usize| in_report(&report, &docs, text, object, line);
    let mut compared = 0;
    let explained = |view: &Value| -> Vec<Value> {
        view.as_object()
            .into_iter()
            .flat_map(|o| o.values())
            .filter_map(Value::as_array)
            .flatten()
            .filter(|item| item.get("findings").is_some() && item.get("object").is_some())
            .cloned()
            .collect()
    };
    for (view, items) in [
        ("explain", explained(&pods)),
        ("explain --rollout", explained(&rollouts)),
    ] {
        for item in items {
            let line = usize::try_from(item["line"].as_u64().unwrap_or(1)).unwrap_or(1);
            let where_ = format!("{path}:{line} ({view})");
            let mut from_check: Vec<Seen> = in_object(&item["object"], line)
                .iter()
                .map(|d| seen_in_check(file, d))
                .collect();
            let mut from_explain: Vec<Seen> = item["findings"]
                .as_array()
                .into_iter()
                .flatten()
                .map(seen_in_explain)
                .collect();
            from_check.sort();
            from_explain.sort();
            assert_eq!(
                from_explain, from_check,
                "{where_}: explain lists other findings than check in this object"
            );
            compared += 1;
            // A finding about a platform's cut is one explain draws on this pod's shutdown.
            if view == "explain" {
                for finding in item["findings"].as_array().into_iter().flatten() {
                    let Some(platform) = finding["platform"].as_str() else {
                        continue;
                    };
                    let cut = item["shutdown"]["platform_cuts"]
                        .as_array()
                        .into_iter()
                        .flatten()
                        .find(|cut| cut["platform"] == platform);
                    let cut = cut.unwrap_or_else(|| {
                        panic!("{where_}: check reports {platform}'s cut, explain shows none")
                    });
                    let caps = match finding["rule"].as_str() {
                        Some("shutdown-exceeds-platform-notice") => "notice",
                        _ => "grace honoured",
                    };
                    assert_eq!(cut["caps"], caps, "{where_}: {cut}");
                    let seconds = format!("{}s", cut["seconds"]);
                    assert!(
                        finding["message"]
                            .as_str()
                            .unwrap_or_default()
                            .contains(&seconds),
                        "{where_}: the finding does not state explain's {seconds}: {finding}"
                    );
                    compared += 1;
                }
            }
            if view == "explain --rollout" {
                compared += agree(
                    &where_,
                    &item,
                    &in_object(&item["object"], line),
                    &in_report(&unsuppressed, &docs, text, &item["object"], line),
                    settings,
                );
            }
        }
    }

    // disruption-budget-blocks-eviction: where a budget allows no eviction.
    for budget in rollouts["disruption_budgets"]
        .as_array()
        .into_iter()
        .flatten()
    {
        let line = usize::try_from(budget["line"].as_u64().unwrap_or(1)).unwrap_or(1);
        let found = in_object(&budget["object"], line);
        let reported = of(&found, "disruption-budget-blocks-eviction");
        // A budget with both fields is never created: `invalid-disruption-budget` says so.
        let invalid = !of(&found, "invalid-disruption-budget").is_empty();
        // `blocks_because` names why none is ever allowed; a budget over no pods allows 0 now
        // and blocks nothing.
        let never = budget["blocks_because"].is_string();
        assert!(
            !never || budget["evictions_allowed"] == 0,
            "{path}:{line}: a budget that never allows an eviction allows {}",
            budget["evictions_allowed"]
        );
        let blocks = never && !invalid;
        assert_eq!(
            !reported.is_empty(),
            blocks,
            "{path}:{line}: explain says the budget allows {} evictions ({}); check reports {:?}",
            budget["evictions_allowed"],
            budget["blocks_because"],
            reported.iter().map(|d| &d.message).collect::<Vec<_>>()
        );
        compared += 1;
    }
    compared
}

#[test]
fn check_and_explain_agree_on_every_fixture() {
    let mut files_read = 0;
    let mut compared = 0;
    for path in files() {
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        let all = Settings::from_selectors(&[Selector::All], &[], &[]);
        let settings = crate::common::with_header_options(&text, all);
        compared += check_and_explain(&path.display().to_string(), &text, &settings);
        files_read += 1;
    }
    eprintln!("{files_read} files, {compared} verdicts compared");
    assert!(files_read > 190, "only {files_read} files were read");
    assert!(compared > 500, "only {compared} verdicts were compared");
}
