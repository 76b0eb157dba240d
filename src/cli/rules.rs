//! `podcycle rules` and `podcycle rule NAME`.

use std::io::{self, Write};

use serde::Serialize;

use super::{EXIT_CLEAN, RulesFormat, usage_error};
use crate::fix::FixAvailability;
use crate::rules::{ALL_RULES, find_redirect, find_rule};
use crate::suggest::did_you_mean_help;

#[derive(Serialize)]
struct RuleEntry {
    name: &'static str,
    category: &'static str,
    default_severity: &'static str,
    enforcement: &'static str,
    enabled_by_default: bool,
    kubernetes_versions: String,
    fix: &'static str,
    summary: &'static str,
}

pub(crate) fn list(format: RulesFormat) -> io::Result<u8> {
    let mut out = io::stdout().lock();
    match format {
        RulesFormat::Json => {
            let entries: Vec<RuleEntry> = ALL_RULES
                .iter()
                .map(|rule| RuleEntry {
                    name: rule.name,
                    category: rule.category.as_str(),
                    default_severity: rule.default_severity.as_str(),
                    enforcement: rule.enforcement.as_str(),
                    enabled_by_default: rule.enabled_by_default(),
                    kubernetes_versions: rule.kubernetes_versions(),
                    fix: rule.fix.as_str(),
                    summary: rule.summary,
                })
                .collect();
            serde_json::to_writer_pretty(&mut out, &entries)?;
            writeln!(out)?;
        }
        RulesFormat::Text => {
            let width = ALL_RULES.iter().map(|r| r.name.len()).max().unwrap_or(0);
            writeln!(
                out,
                "{:width$}  {:11}  {:8}  {:11}  {:3}  summary",
                "rule", "category", "severity", "enforced by", "fix"
            )?;
            for rule in ALL_RULES {
                let severity = if rule.enabled_by_default() {
                    rule.default_severity.as_str()
                } else {
                    "off"
                };
                let fix = match rule.fix {
                    FixAvailability::None => "",
                    FixAvailability::Sometimes | FixAvailability::Always => "fix",
                };
                writeln!(
                    out,
                    "{:width$}  {:11}  {:8}  {:11}  {:3}  {}",
                    rule.name,
                    rule.category.as_str(),
                    severity,
                    rule.enforcement.as_str(),
                    fix,
                    rule.summary
                )?;
            }
        }
    }
    Ok(EXIT_CLEAN)
}

pub(crate) fn show(name: &str) -> io::Result<u8> {
    if let Some(redirect) = find_redirect(name) {
        let mut out = io::stdout().lock();
        writeln!(out, "# {name}")?;
        writeln!(out)?;
        writeln!(
            out,
            "`{name}` was split into the rules below; selections, severities and suppressions that name `{name}` apply to all of them."
        )?;
        writeln!(out)?;
        for rule in redirect.to {
            writeln!(out, "- {}: {}", rule.name, rule.summary)?;
        }
        return Ok(EXIT_CLEAN);
    }
    let Some(rule) = find_rule(name) else {
        let names: Vec<&str> = ALL_RULES.iter().map(|r| r.name).collect();
        let help = did_you_mean_help(name, &names)
            .or_else(|| rules_named_with(name, &names))
            .unwrap_or_else(|| "`podcycle rules` lists them".to_owned());
        let message = format!("unknown rule `{name}`; {help}");
        return Ok(usage_error(&message));
    };
    let mut out = io::stdout().lock();
    writeln!(out, "# {}", rule.name)?;
    writeln!(out)?;
    writeln!(
        out,
        "Category: {}. Default severity: {}{}. Enforced by: {} ({}). Kubernetes versions: {}. Fix: {}.",
        rule.category,
        rule.default_severity,
        if rule.enabled_by_default() {
            ""
        } else {
            " (off by default)"
        },
        rule.enforcement,
        rule.enforcement.meaning(),
        rule.kubernetes_versions(),
        crate::docs::fix_availability(rule)
    )?;
    writeln!(out)?;
    writeln!(out, "{}", rule.documentation().trim_end())?;
    Ok(EXIT_CLEAN)
}

/// The help for a word that is part of rules' names rather than a misspelt one (`prestop`):
/// the rules whose names contain it.
fn rules_named_with(word: &str, names: &[&'static str]) -> Option<String> {
    let word = word.to_ascii_lowercase();
    // One letter or two is part of too many names to narrow anything down.
    if word.chars().count() < 3 {
        return None;
    }
    let matching: Vec<&str> = names
        .iter()
        .copied()
        .filter(|name| name.contains(word.as_str()))
        .collect();
    if matching.is_empty() {
        return None;
    }
    Some(format!(
        "rules whose names contain `{word}`: {}",
        crate::text::short_name_list(matching.iter().copied(), matching.len())
    ))
}
