//! The one list of rules. Adding a rule is one line here.

use super::Rule;
use super::{advice, correctness, suspicious};

pub static ALL_RULES: &[&Rule] = &[
    &correctness::yaml_syntax::RULE,
    &correctness::duplicate_key::RULE,
    &correctness::unknown_field::RULE,
    &correctness::invalid_type::RULE,
    &correctness::init_container_probe::RULE,
    &correctness::init_container_lifecycle::RULE,
    &correctness::prestop_exceeds_grace_period::RULE,
    &correctness::duplicate_container_name::RULE,
    &correctness::workload_restart_policy::RULE,
    &correctness::template_active_deadline::RULE,
    &suspicious::poststart_blocks_sidecar::RULE,
    &suspicious::unused_suppression::RULE,
    &advice::poststart_delays_containers::RULE,
];

pub fn find_rule(name: &str) -> Option<&'static Rule> {
    ALL_RULES.iter().copied().find(|rule| rule.name == name)
}
