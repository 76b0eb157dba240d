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
    &correctness::invalid_value::RULE,
    &correctness::unsupported_feature::RULE,
    &correctness::undeclared_port::RULE,
    &correctness::tcp_socket_hook::RULE,
    &correctness::poststart_deadlock::RULE,
    &suspicious::poststart_blocks_sidecar::RULE,
    &suspicious::init_container_never_exits::RULE,
    &suspicious::zero_grace_period::RULE,
    &suspicious::liveness_restart_never::RULE,
    &suspicious::liveness_equals_readiness::RULE,
    &suspicious::probe_timeout_exceeds_period::RULE,
    &suspicious::active_deadline_too_short::RULE,
    &suspicious::sidecar_readiness_gating::RULE,
    &suspicious::unused_suppression::RULE,
    &advice::poststart_delays_containers::RULE,
    &advice::sidecar_startup_probe::RULE,
    &advice::probe_grace_shorter_than_prestop::RULE,
    &pedantic::missing_readiness_probe::RULE,
    &pedantic::missing_liveness_probe::RULE,
    &pedantic::liveness_without_startup_probe::RULE,
    &pedantic::prestop_exec_sleep::RULE,
    &pedantic::missing_prestop_delay::RULE,
];

pub fn find_rule(name: &str) -> Option<&'static Rule> {
    ALL_RULES.iter().copied().find(|rule| rule.name == name)
}

/// Rules whose `runtime` findings are errors: each means the pod can never run or become
/// Ready, which is the only reason a finding the API server accepts may be an error.
pub static RUNTIME_ERRORS: &[(&str, &str)] = &[
    (
        "poststart-deadlock",
        "the hook waits for a container that starts only after it returns",
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
