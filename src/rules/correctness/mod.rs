//! Rules for manifests the API server rejects, or pods that can never run or become Ready.

pub mod container_restart_policy;
pub mod duplicate_container_name;
pub mod duplicate_key;
pub mod init_container_lifecycle;
pub mod init_container_probe;
pub mod invalid_active_deadline;
pub mod invalid_container_name;
pub mod invalid_container_port;
pub mod invalid_handler;
pub mod invalid_sleep;
pub mod invalid_type;
pub mod missing_containers;
pub mod negative_probe_field;
pub mod poststart_deadlock;
pub mod prestop_exceeds_grace_period;
pub mod probe_grace_period;
pub mod probe_success_threshold;
pub mod render_error;
pub mod tcp_socket_hook;
pub mod template_active_deadline;
pub mod undeclared_port;
pub mod unknown_field;
pub mod unserved_api_version;
pub mod unsupported_feature;
pub mod workload_restart_policy;
pub mod yaml_syntax;
