//! Rules for manifests the API server rejects, or pods that can never run or become Ready.

pub mod duplicate_container_name;
pub mod duplicate_key;
pub mod init_container_lifecycle;
pub mod init_container_probe;
pub mod invalid_type;
pub mod prestop_exceeds_grace_period;
pub mod template_active_deadline;
pub mod unknown_field;
pub mod workload_restart_policy;
pub mod yaml_syntax;
