//! The one list of rules. Adding a rule is one line here.

use super::Rule;
use super::{advice, correctness, pedantic, suspicious};

pub static ALL_RULES: &[&Rule] = &[
    &correctness::yaml_syntax::RULE,
    &correctness::duplicate_key::RULE,
    &correctness::unserved_api_version::RULE,
    &correctness::unknown_field::RULE,
    &correctness::invalid_type::RULE,
    &correctness::init_container_probe::RULE,
    &correctness::init_container_lifecycle::RULE,
    &correctness::prestop_exceeds_grace_period::RULE,
    &correctness::duplicate_container_name::RULE,
    &correctness::workload_restart_policy::RULE,
    &correctness::template_active_deadline::RULE,
    &correctness::container_restart_policy::RULE,
    &correctness::invalid_handler::RULE,
    &correctness::probe_success_threshold::RULE,
    &correctness::probe_grace_period::RULE,
    &correctness::negative_probe_field::RULE,
    &correctness::invalid_sleep::RULE,
    &correctness::invalid_container_name::RULE,
    &correctness::invalid_container_port::RULE,
    &correctness::missing_containers::RULE,
    &correctness::invalid_active_deadline::RULE,
    &correctness::unsupported_feature::RULE,
    &correctness::undeclared_port::RULE,
    &correctness::tcp_socket_hook::RULE,
    &correctness::poststart_deadlock::RULE,
    &correctness::progress_deadline_exceeded::RULE,
    &correctness::invalid_rollout_field::RULE,
    &correctness::min_ready_reaches_progress_deadline::RULE,
    &correctness::invalid_disruption_budget::RULE,
    &correctness::invalid_autoscaler::RULE,
    &correctness::invalid_job_failure_policy::RULE,
    &correctness::daemonset_surge_host_port::RULE,
    &correctness::cronjob_starting_deadline_too_short::RULE,
    &correctness::render_error::RULE,
    &suspicious::poststart_blocks_sidecar::RULE,
    &suspicious::init_container_never_exits::RULE,
    &suspicious::zero_grace_period::RULE,
    &suspicious::liveness_restart_never::RULE,
    &suspicious::active_deadline_too_short::RULE,
    &suspicious::sidecar_readiness_gating::RULE,
    &suspicious::job_container_never_exits::RULE,
    &suspicious::probe_port_not_tcp::RULE,
    &suspicious::unused_suppression::RULE,
    &suspicious::disruption_budget_blocks_eviction::RULE,
    &suspicious::disruption_budget_selects_nothing::RULE,
    &suspicious::overlapping_disruption_budgets::RULE,
    &suspicious::rolling_update_takes_all_replicas::RULE,
    &suspicious::job_deadline_cuts_retries::RULE,
    &suspicious::statefulset_rollout_exceeds_budget::RULE,
    &suspicious::autoscalers_share_target::RULE,
    &suspicious::replicas_with_autoscaler::RULE,
    &suspicious::shutdown_exceeds_platform_notice::RULE,
    &suspicious::grace_period_exceeds_platform_cap::RULE,
    &suspicious::disruption_budget_blocks_platform_drain::RULE,
    &advice::poststart_delays_containers::RULE,
    &advice::sidecar_startup_probe::RULE,
    &advice::probe_grace_shorter_than_prestop::RULE,
    &advice::probe_timeout_exceeds_period::RULE,
    &pedantic::missing_readiness_probe::RULE,
    &pedantic::missing_liveness_probe::RULE,
    &pedantic::liveness_equals_readiness::RULE,
    &pedantic::liveness_without_startup_probe::RULE,
    &pedantic::prestop_exec_sleep::RULE,
    &pedantic::missing_prestop_delay::RULE,
];

pub fn find_rule(name: &str) -> Option<&'static Rule> {
    ALL_RULES.iter().copied().find(|rule| rule.name == name)
}

/// A former rule name and the rules that took its checks over. Selections, severities and
/// suppressions that use the old name keep working: they apply to all of its successors.
#[derive(Debug)]
pub struct Redirect {
    pub(crate) from: &'static str,
    pub(crate) to: &'static [&'static Rule],
}

pub(crate) static REDIRECTS: &[Redirect] = &[Redirect {
    from: "invalid-value",
    to: &[
        &correctness::negative_probe_field::RULE,
        &correctness::invalid_handler::RULE,
        &correctness::invalid_sleep::RULE,
        &correctness::invalid_container_name::RULE,
        &correctness::invalid_container_port::RULE,
        &correctness::missing_containers::RULE,
        &correctness::invalid_active_deadline::RULE,
        &correctness::workload_restart_policy::RULE,
    ],
}];

pub(crate) fn find_redirect(name: &str) -> Option<&'static Redirect> {
    REDIRECTS.iter().find(|redirect| redirect.from == name)
}

/// The rules a name stands for: the rule of that name, the successors of a former name, or
/// none.
pub(crate) fn rules_named(name: &str) -> &'static [&'static Rule] {
    if let Some(rule) = ALL_RULES.iter().find(|rule| rule.name == name) {
        return std::slice::from_ref(rule);
    }
    find_redirect(name).map_or(&[], |redirect| redirect.to)
}

/// Rules whose `runtime` findings are errors: each means the pod can never run or become
/// Ready, which is the only reason a finding the API server accepts may be an error.
pub static RUNTIME_ERRORS: &[(&str, &str)] = &[
    (
        "cronjob-starting-deadline-too-short",
        "with a starting deadline of 0 every run is missed, so the CronJob never creates a Job",
    ),
    (
        "daemonset-surge-host-port",
        "the surge pod can never be scheduled beside the old one, so the update never progresses",
    ),
    (
        "poststart-deadlock",
        "the hook waits for a container that starts only after it returns",
    ),
    (
        "progress-deadline-exceeded",
        "no pod can be Ready within the progress deadline, so every rollout is reported failed",
    ),
    (
        "tcp-socket-hook",
        "a tcpSocket postStart fails at every start and kills the container",
    ),
    (
        "undeclared-port",
        "a readiness or startup probe on an unknown port never succeeds",
    ),
    (
        "unsupported-feature",
        "a dropped native sidecar never exits, so nothing after it starts",
    ),
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostics::Severity;
    use crate::rules::Enforcement;

    #[test]
    fn severity_follows_enforcement() {
        for rule in ALL_RULES {
            if rule.enforcement.is_rejection() {
                assert_eq!(
                    rule.default_severity,
                    Severity::Error,
                    "`{}` claims a rejection, so it is an error",
                    rule.name
                );
            }
            let runtime_error = rule.enforcement == Enforcement::Runtime
                && rule.default_severity == Severity::Error;
            assert_eq!(
                runtime_error,
                RUNTIME_ERRORS.iter().any(|(name, _)| *name == rule.name),
                "`{}`: a runtime finding is at most a warning unless the pod can never run (RUNTIME_ERRORS)",
                rule.name
            );
        }
    }
}
