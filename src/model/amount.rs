//! Counts written as an integer or a percentage (`maxSurge: 25%`), read as Kubernetes reads
//! them: the controllers' rounding (apimachinery `pkg/util/intstr/intstr.go`,
//! `GetScaledValueFromIntOrPercent`), and the API server's checks
//! (`pkg/apis/apps/validation/validation.go`, `ValidatePositiveIntOrPercent`,
//! `IsNotMoreThan100Percent`, `getIntOrPercentValue`).

use crate::model::IntOrString;

/// A value as a controller reads it (`getIntOrPercentValueSafely`): an integer, or a string
/// that ends in `%` with an integer before it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Amount {
    Count(i64),
    Percent(i64),
}

impl Amount {
    /// The value as a controller reads it; `None` for a string that is not a percentage, which
    /// the API server rejects before any controller sees it.
    pub(crate) fn read(value: &IntOrString) -> Option<Amount> {
        match value {
            IntOrString::Int(n) => Some(Amount::Count(i64::from(*n))),
            IntOrString::String(text) => {
                let digits = text.strip_suffix('%')?;
                go_atoi(digits).map(Amount::Percent)
            }
        }
    }

    /// `GetScaledValueFromIntOrPercent`: an integer as it is; a percentage of `total`, rounded
    /// up or down, computed in floating point as Go does.
    #[allow(clippy::cast_possible_truncation, clippy::cast_precision_loss)]
    pub(crate) fn scaled(self, total: i64, round_up: bool) -> i64 {
        match self {
            Amount::Count(n) => n,
            Amount::Percent(p) => {
                let exact = p as f64 * total as f64 / 100.0;
                let rounded = if round_up {
                    exact.ceil()
                } else {
                    exact.floor()
                };
                rounded as i64
            }
        }
    }

    /// `25%` or `3`, as written.
    pub(crate) fn text(self) -> String {
        match self {
            Amount::Count(n) => n.to_string(),
            Amount::Percent(p) => format!("{p}%"),
        }
    }
}

/// `strconv.Atoi`: an optional sign and decimal digits, within 64 bits.
fn go_atoi(text: &str) -> Option<i64> {
    let digits = text.strip_prefix(['+', '-']).unwrap_or(text);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse().ok()
}

/// How the API server reads a written value for its checks (`getIntOrPercentValue`): a valid
/// percentage's number, an integer, or `IntValue()` of any other string — `strconv.Atoi` of
/// it, 0 when that fails.
pub(crate) fn written_value(value: &IntOrString) -> i64 {
    match value {
        IntOrString::Int(n) => i64::from(*n),
        IntOrString::String(text) => match valid_percent(text) {
            Some(p) => p,
            None => go_atoi(text).unwrap_or(0),
        },
    }
}

/// The number of a string that `IsValidPercent` accepts (`^[0-9]+%$`).
pub(crate) fn valid_percent(text: &str) -> Option<i64> {
    let digits = text.strip_suffix('%')?;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    // Validation reads it with `strconv.Atoi` and ignores the error of a huge number.
    Some(digits.parse().unwrap_or(0))
}

/// Why the API server rejects a count of pods (`ValidatePositiveIntOrPercent`), if it does: a
/// negative integer, or a string that is not a percentage. Said after the field's name:
/// "is -1; it must not be negative".
pub(crate) fn int_or_percent_problem(value: &IntOrString) -> Option<String> {
    match value {
        IntOrString::Int(n) if *n < 0 => Some(format!("is {n}; it must not be negative")),
        IntOrString::Int(_) => None,
        IntOrString::String(text) if valid_percent(text).is_none() => Some(format!(
            "is `{text}`, neither a count of pods nor a percentage such as `25%`"
        )),
        IntOrString::String(_) => None,
    }
}

/// Whether a value is a percentage above 100% (`IsNotMoreThan100Percent`).
pub(crate) fn above_100_percent(value: &IntOrString) -> bool {
    match value {
        IntOrString::String(text) => valid_percent(text).is_some_and(|p| p > 100),
        IntOrString::Int(_) => false,
    }
}

/// A Deployment's `maxSurge` and `maxUnavailable` as pod counts for `replicas`
/// (pkg/controller/deployment/util/deployment_util.go, `ResolveFenceposts`): surge rounded up,
/// unavailable rounded down, a missing value 0; when both come to 0, one pod may be
/// unavailable ("surge might not work due to quota"). `None` for a value no controller can
/// read (the API server rejects it).
#[allow(clippy::cast_possible_truncation)]
pub fn resolve_fenceposts(
    max_surge: Option<&IntOrString>,
    max_unavailable: Option<&IntOrString>,
    replicas: i32,
) -> Option<(i32, i32)> {
    let read = |value: Option<&IntOrString>| value.map_or(Some(Amount::Count(0)), Amount::read);
    let total = i64::from(replicas);
    // `int32(surge)`: Go truncates, as `as` does.
    let surge = read(max_surge)?.scaled(total, true) as i32;
    let mut unavailable = read(max_unavailable)?.scaled(total, false) as i32;
    if surge == 0 && unavailable == 0 {
        unavailable = 1;
    }
    Some((surge, unavailable))
}

/// A Deployment's `maxUnavailable` as the rolling update uses it (`MaxUnavailable`): 0 for no
/// replicas, never more than the replicas.
pub fn deployment_max_unavailable(unavailable: i32, replicas: i32) -> i32 {
    if replicas == 0 {
        0
    } else {
        unavailable.min(replicas)
    }
}

/// A StatefulSet's `maxUnavailable` for `replicas`
/// (pkg/controller/statefulset/stateful_set_utils.go, `getStatefulSetMaxUnavailable`): 1 when
/// unset, a percentage rounded down, never below 1.
#[allow(clippy::cast_possible_truncation)]
pub(crate) fn statefulset_max_unavailable(
    value: Option<&IntOrString>,
    replicas: i32,
) -> Option<i32> {
    let amount = value.map_or(Some(Amount::Count(1)), Amount::read)?;
    let scaled = amount.scaled(i64::from(replicas), false);
    Some(scaled.max(1) as i32)
}

/// A DaemonSet's `maxSurge` and `maxUnavailable` for `nodes` nodes that should run it
/// (pkg/controller/daemon/util/daemonset_util.go, `SurgeCount`, `UnavailableCount`, both
/// rounded up; pkg/controller/daemon/update.go, `updatedDesiredNodeCounts`: both 0 on some
/// nodes means one unavailable).
#[allow(clippy::cast_possible_truncation)]
pub(crate) fn daemonset_counts(
    max_surge: Option<&IntOrString>,
    max_unavailable: Option<&IntOrString>,
    nodes: i32,
) -> Option<(i32, i32)> {
    let total = i64::from(nodes);
    let surge = match max_surge {
        None => 0,
        Some(value) => Amount::read(value)?.scaled(total, true) as i32,
    };
    let mut unavailable = match max_unavailable {
        // `GetScaledValueFromIntOrPercent(nil)` fails: the controller stops. Defaults always
        // set it, so only a value the API server rejected gets here.
        None => return None,
        Some(value) => Amount::read(value)?.scaled(total, true) as i32,
    };
    if nodes > 0 && surge == 0 && unavailable == 0 {
        unavailable = 1;
    }
    Some((surge, unavailable))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(s: &str) -> IntOrString {
        IntOrString::String(s.to_owned())
    }

    #[test]
    fn fenceposts_round_surge_up_and_unavailable_down() {
        let quarter = text("25%");
        assert_eq!(
            resolve_fenceposts(Some(&quarter), Some(&quarter), 10),
            Some((3, 2))
        );
        // Both round to nothing for 3 replicas' 25% unavailable, but surge rounds up.
        assert_eq!(
            resolve_fenceposts(Some(&quarter), Some(&quarter), 3),
            Some((1, 0))
        );
        // `1%` of a few replicas: the written value passes validation, then resolves to 0
        // surge and 0 unavailable, which becomes 1 unavailable.
        assert_eq!(
            resolve_fenceposts(Some(&IntOrString::Int(0)), Some(&text("1%")), 5),
            Some((0, 1))
        );
        assert_eq!(resolve_fenceposts(None, None, 4), Some((0, 1)));
        assert_eq!(resolve_fenceposts(Some(&text("two")), None, 4), None);
    }

    #[test]
    fn statefulset_and_daemonset_counts() {
        assert_eq!(statefulset_max_unavailable(None, 5), Some(1));
        assert_eq!(statefulset_max_unavailable(Some(&text("50%")), 5), Some(2));
        assert_eq!(statefulset_max_unavailable(Some(&text("10%")), 5), Some(1));
        assert_eq!(
            daemonset_counts(Some(&IntOrString::Int(0)), Some(&text("10%")), 15),
            Some((0, 2))
        );
        assert_eq!(
            daemonset_counts(Some(&IntOrString::Int(0)), Some(&IntOrString::Int(0)), 3),
            Some((0, 1))
        );
    }

    #[test]
    fn validation_reads_values_as_the_api_server_does() {
        assert_eq!(written_value(&text("25%")), 25);
        assert_eq!(written_value(&text("0")), 0);
        assert_eq!(written_value(&text("7")), 7);
        assert_eq!(written_value(&text("x")), 0);
        assert!(int_or_percent_problem(&text("5")).is_some());
        assert!(int_or_percent_problem(&text("-5%")).is_some());
        assert!(int_or_percent_problem(&IntOrString::Int(-1)).is_some());
        assert!(int_or_percent_problem(&text("05%")).is_none());
        assert!(above_100_percent(&text("101%")));
        assert!(!above_100_percent(&IntOrString::Int(500)));
        assert_eq!(Amount::read(&text("+5%")), Some(Amount::Percent(5)));
        assert_eq!(Amount::read(&text("5")), None);
    }
}
