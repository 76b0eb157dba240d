//! Opinionated checks, off by default; enable them with `--select` or `--extend-select`.

pub(crate) mod liveness_equals_readiness;
pub(crate) mod liveness_without_startup_probe;
pub(crate) mod missing_liveness_probe;
pub(crate) mod missing_prestop_delay;
pub(crate) mod missing_readiness_probe;
pub(crate) mod prestop_exec_sleep;

use crate::lifecycle::{ContainerLife, Probes, RestartPolicy, Role};
use crate::rules::{Findings, PodContext, Target};

/// The containers of a long-running workload — a Deployment, ReplicaSet,
/// ReplicationController, StatefulSet or DaemonSet, or a bare Pod that is always restarted —
/// that keep running: app containers and native sidecars. Jobs, CronJobs and run-to-completion
/// Pods have none.
fn long_running_containers<'l, 'a>(
    ctx: &'l PodContext<'a>,
) -> impl Iterator<Item = &'l ContainerLife<'a>> {
    let long_running = ctx.site.is_long_running_controller()
        || (!ctx.site.is_job() && ctx.life.restart_policy == RestartPolicy::Always);
    ctx.life
        .containers
        .iter()
        .filter(move |c| long_running && c.role != Role::Init)
}

/// Reports every container of a long-running workload that lacks a probe: `probe` names it
/// (`readinessProbe`), `has` tells whether a container has it, `without` says what happens
/// without it.
pub(crate) fn report_missing_probe(
    ctx: &PodContext<'_>,
    findings: &mut Findings,
    probe: &str,
    has: fn(&Probes) -> bool,
    without: &str,
    help: &str,
) {
    for container in long_running_containers(ctx) {
        if has(&container.probes) {
            continue;
        }
        findings
            .report(
                Target::value(container.path.key("name")),
                format!("{} has no {probe}: {without}", container.quoted()),
            )
            .help(help)
            .container(container.name);
    }
}
