//! Generated documentation: `docs/rules/<rule>.md` and the index `docs/rules/README.md`, both
//! rendered from the rule registry. `tests/it/docs.rs` fails when the files are stale and
//! rewrites them with `UPDATE_DOCS=1`.

use std::fmt::Write as _;

use crate::fix::FixAvailability;
use crate::rules::{ALL_RULES, Rule};

/// The `## What it does` section of a rule's documentation, as one paragraph of Markdown.
pub(crate) fn what_it_does(rule: &Rule) -> String {
    let documentation = rule.documentation();
    let section = documentation
        .split("## What it does")
        .nth(1)
        .and_then(|rest| rest.split("\n## ").next())
        .unwrap_or(rule.summary);
    section.split_whitespace().collect::<Vec<_>>().join(" ")
}

const GENERATED: &str = "<!-- Generated from the rule's source by `UPDATE_DOCS=1 cargo test --test it docs::`; do not edit. -->";

/// The page of one rule.
pub fn rule_page(rule: &Rule) -> String {
    let mut page = String::new();
    let _ = writeln!(page, "{GENERATED}\n");
    let _ = writeln!(page, "# {}\n", rule.name);
    let _ = writeln!(page, "{}\n", rule.summary);
    let _ = writeln!(page, "| | |\n|---|---|");
    let _ = writeln!(page, "| Category | `{}` |", rule.category);
    let severity = if rule.enabled_by_default() {
        format!("`{}`", rule.default_severity)
    } else {
        format!(
            "`{}` (off by default; enable with `--extend-select {}`)",
            rule.default_severity, rule.name
        )
    };
    let _ = writeln!(page, "| Default severity | {severity} |");
    let _ = writeln!(
        page,
        "| Enforced by | `{}`: {} |",
        rule.enforcement,
        rule.enforcement.meaning()
    );
    let _ = writeln!(
        page,
        "| Kubernetes versions | {} |",
        rule.kubernetes_versions()
    );
    let _ = writeln!(page, "| Fix | {} |", fix_availability(rule));
    let _ = writeln!(
        page,
        "| Source | [`{}`](../../{}) |\n",
        rule.source, rule.source
    );
    let _ = writeln!(page, "{}", rule.documentation().trim_end());
    page
}

/// Whether and how `check --fix` fixes the rule's findings, in one phrase.
pub(crate) fn fix_availability(rule: &Rule) -> &'static str {
    match rule.fix {
        FixAvailability::None => "none",
        FixAvailability::Sometimes => {
            "where the change is certain (`check --fix`, editor quick fixes)"
        }
        FixAvailability::Always => "always (`check --fix`, editor quick fixes)",
    }
}

/// The index of all rules.
pub fn index_page() -> String {
    let mut page = String::new();
    let _ = writeln!(page, "{GENERATED}\n");
    let _ = writeln!(page, "# Rules\n");
    let _ = writeln!(
        page,
        "Every rule podcycle has. `podcycle rules` prints the same list, and `podcycle rule NAME`\n\
         prints a rule's page. Categories decide the default severity — `correctness` an error,\n\
         `suspicious` a warning, `advice` information — unless the table says otherwise for a\n\
         rule; `pedantic` and `nursery` rules are off until selected; [Severities](#severities)\n\
         gives the rule they follow and how they were measured. Rules with a fix have it\n\
         applied by `podcycle check --fix` and offered as a quick fix in editors; each page says\n\
         whether the fix is safe.\n"
    );
    let _ = writeln!(
        page,
        "Each rule says who acts on its findings (`--format json` and SARIF carry it per finding):\n"
    );
    for enforcement in crate::diagnostics::Enforcement::ALL {
        let _ = writeln!(page, "- `{enforcement}`: {}.", enforcement.meaning());
    }
    let _ = writeln!(
        page,
        "\nClaims of rejection (`decoder`, `api-server`) are checked against Kubernetes' own code\n\
         ([fidelity](../fidelity.md)).\n"
    );
    let _ = writeln!(
        page,
        "| Rule | Category | Default severity | Enforced by | Fix | Finds |"
    );
    let _ = writeln!(page, "|---|---|---|---|---|---|");
    for rule in ALL_RULES {
        let severity = if rule.enabled_by_default() {
            rule.default_severity.to_string()
        } else {
            format!("{} (off)", rule.default_severity)
        };
        let fix = match rule.fix {
            FixAvailability::None => "",
            FixAvailability::Sometimes => "sometimes",
            FixAvailability::Always => "always",
        };
        let _ = writeln!(
            page,
            "| [`{}`]({}.md) | {} | {} | `{}` | {fix} | {} |",
            rule.name, rule.name, rule.category, severity, rule.enforcement, rule.summary
        );
    }
    let _ = writeln!(page, "\n{}", SEVERITIES.trim_end());
    page
}

/// The criterion each rule's default severity follows, and the measure on public repositories
/// that checked them: written by hand, kept beside the rules.
const SEVERITIES: &str = include_str!("rules/severities.md");

const KNOWN_SIDECARS_START: &str = "<!-- known-sidecars:";
const KNOWN_SIDECARS_END: &str = "<!-- end known-sidecars -->";

/// `markdown` with the generated list of known sidecars between its markers
/// (docs/configuration.md): one list in the code, one generated copy in the docs.
pub fn with_known_sidecars(markdown: &str) -> String {
    let (Some(start), Some(end)) = (
        markdown.find(KNOWN_SIDECARS_START),
        markdown.find(KNOWN_SIDECARS_END),
    ) else {
        return markdown.to_owned();
    };
    let Some(line_end) = markdown[start..].find('\n').map(|i| start + i + 1) else {
        return markdown.to_owned();
    };
    if line_end > end {
        return markdown.to_owned();
    }
    format!(
        "{}\n{}\n{}",
        &markdown[..line_end],
        crate::lifecycle::known_sidecars_markdown().trim_end(),
        &markdown[end..]
    )
}

/// The YAML examples in a rule's documentation, in order. The first is the example that
/// must trigger the rule; the others are fixes that must not.
pub fn yaml_examples(rule: &Rule) -> Vec<String> {
    yaml_blocks(&rule.documentation())
}

/// The contents of the ```yaml blocks of a Markdown text, in order.
pub fn yaml_blocks(markdown: &str) -> Vec<String> {
    let mut blocks = Vec::new();
    let mut current: Option<String> = None;
    for line in markdown.lines() {
        match (&mut current, line.trim_end()) {
            (None, "```yaml") => current = Some(String::new()),
            (Some(_), "```") => blocks.extend(current.take()),
            (Some(text), _) => {
                text.push_str(line);
                text.push('\n');
            }
            (None, _) => {}
        }
    }
    blocks
}

/// `docs/platforms.md`: every platform event of `lifecycle::platforms::PLATFORMS`
/// with its numbers, what each caps, where each was read and when, and the node labels that
/// put a pod there with no configuration.
pub fn platforms_page() -> String {
    use crate::lifecycle::platforms::{PLATFORMS, READ_ON};

    let mut page = String::new();
    let _ = writeln!(
        page,
        "<!-- Generated from `src/lifecycle/platforms.rs` by `UPDATE_DOCS=1 cargo test --test it docs::`; do not edit. -->\n"
    );
    let _ = writeln!(page, "# Platforms\n");
    let _ = writeln!(
        page,
        "Most pods are not stopped by `kubectl delete` but by a platform taking their node away, and the\n\
         platform decides how long they get. podcycle judges each pod's shutdown plan against the\n\
         platforms it runs on: those its `nodeSelector`, node affinity or tolerations name (below, with\n\
         no configuration), and those `platforms:` in `.podcycle.yaml` or `--platform NAME,...` name.\n\
         Every number was read on {READ_ON} from the source given with it; vendors change them.\n"
    );
    let _ = writeln!(
        page,
        "| platform | event | caps | seconds | then | source |"
    );
    let _ = writeln!(page, "|---|---|---|---:|---|---|");
    for platform in PLATFORMS {
        for limit in platform.limits {
            let sources: Vec<String> = limit
                .sources
                .iter()
                .map(|s| format!("[{}]({}) (read {READ_ON})", s.title, s.url))
                .collect();
            let _ = writeln!(
                page,
                "| `{}` | {} | {} | {} | {} | {} |",
                platform.name,
                platform.title,
                limit.caps.as_str(),
                limit.seconds,
                limit.then,
                sources.join("; ")
            );
        }
    }
    let _ = writeln!(page, "\n## Placed by the manifest\n");
    let _ = writeln!(
        page,
        "A pod whose spec selects (`nodeSelector`, a required node affinity expression `In`), prefers\n\
         (a preferred one) or tolerates one of these node labels is judged against that platform:\n"
    );
    let _ = writeln!(page, "| label | value | platform | source |");
    let _ = writeln!(page, "|---|---|---|---|");
    for platform in PLATFORMS {
        for label in platform.labels {
            let _ = writeln!(
                page,
                "| `{}` | `{}` | `{}` | [{}]({}) (read {READ_ON}): {} |",
                label.key,
                label.value,
                platform.name,
                label.source.title,
                label.source.url,
                label.source.says
            );
        }
    }
    let _ = writeln!(page, "\n## What each source says\n");
    for platform in PLATFORMS {
        let _ = writeln!(page, "### `{}`: {}\n", platform.name, platform.title);
        for limit in platform.limits {
            for source in limit.sources {
                let _ = writeln!(
                    page,
                    "- {} {} s: [{}]({}), read {READ_ON}: {}.",
                    limit.caps.as_str(),
                    limit.seconds,
                    source.title,
                    source.url,
                    source.says
                );
            }
        }
        let _ = writeln!(page);
    }
    let _ = writeln!(
        page,
        "Numbers a cluster sets itself — Karpenter's NodePool `terminationGracePeriod`, the kubelet's\n\
         `shutdownGracePeriodByPodPriority`, an AKS pool's own `drainTimeoutInMinutes` — are not in\n\
         this table. How the kubelet cuts a pod's grace period on a node shutdown:\n\
         kubernetes/kubernetes `pkg/kubelet/nodeshutdown/nodeshutdown_manager_linux.go`, `killPods`\n\
         (the shutdown's grace period, or the pod's own when it is shorter)."
    );
    page
}
