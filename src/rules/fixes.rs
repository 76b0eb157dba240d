//! Fixes more than one rule offers. Each is offered only where it is certain to be what the
//! manifest means.

use crate::fix::{Fix, FixEdit};
use crate::lifecycle::{ContainerLife, DEFAULT_GRACE_PERIOD_SECONDS};
use crate::rules::PodContext;
use crate::versions::SIDECAR_CONTAINERS;

/// Makes an init container a native sidecar (`restartPolicy: Always`), when the target version
/// has native sidecars, the container sets no restart policy of its own, and it can be seen
/// never to exit (`ContainerLife::never_exits`: a well-known sidecar or server image, `sleep
/// infinity`, an endless loop): then it can never have been meant to run to completion.
pub(crate) fn make_sidecar(ctx: &PodContext<'_>, container: &ContainerLife<'_>) -> Option<Fix> {
    let certain = SIDECAR_CONTAINERS.enabled(ctx.kube)
        && container.container.restart_policy.is_none()
        && container.never_exits.is_some();
    certain.then(|| {
        Fix::new(
            format!(
                "Make {} a native sidecar (`restartPolicy: Always`)",
                container.quoted()
            ),
            vec![FixEdit::Set {
                path: container.path.key("restartPolicy"),
                value: "Always".to_owned(),
            }],
        )
    })
}

/// The grace period that fits a preStop hook of `seconds` and still leaves the application the
/// default grace period to shut down after it. `None` for a hook that never returns.
pub(crate) fn grace_period_after(seconds: f64) -> Option<i64> {
    if !seconds.is_finite() || seconds < 0.0 {
        return None;
    }
    #[allow(clippy::cast_possible_truncation)]
    let hook = seconds.ceil().min(1e15) as i64;
    Some(hook + DEFAULT_GRACE_PERIOD_SECONDS)
}
