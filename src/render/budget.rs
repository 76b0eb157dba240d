//! The time one run may spend rendering, over all its charts and overlays.
//!
//! Each renderer has its own time limit (`--render-timeout`), but a pull request can add many
//! charts that each take nearly that long: a thousand 100-byte templates looping for a minute
//! would hold a job for hours. The budget (`--render-budget`) bounds the total: every renderer
//! is stopped when the budget runs out, and what has not started by then is not rendered, each
//! reported with the same reason so that the summary counts them.

use std::time::{Duration, Instant};

/// How long a run may spend rendering by default.
pub(crate) const DEFAULT_BUDGET: Duration = Duration::from_secs(300);

/// A deadline shared by every render job of a run.
#[derive(Clone, Copy, Debug)]
pub struct Budget {
    total: Duration,
    deadline: Option<Instant>,
}

impl Budget {
    /// A budget of `total` from now.
    pub(crate) fn new(total: Duration) -> Budget {
        Budget {
            total,
            deadline: Instant::now().checked_add(total),
        }
    }

    /// No budget beyond each renderer's own limit (the language server renders one input).
    pub fn unlimited() -> Budget {
        Budget {
            total: Duration::MAX,
            deadline: None,
        }
    }

    /// What is left of it.
    pub(crate) fn remaining(&self) -> Duration {
        match self.deadline {
            Some(deadline) => deadline.saturating_duration_since(Instant::now()),
            None => Duration::MAX,
        }
    }

    pub(crate) fn is_spent(&self) -> bool {
        self.remaining().is_zero()
    }

    /// Why an input was not rendered once the budget ran out.
    pub(crate) fn spent_reason(&self) -> String {
        format!(
            "the run's render budget of {}s was spent before it finished (raise it with --render-budget)",
            self.total.as_secs()
        )
    }
}

impl Default for Budget {
    fn default() -> Budget {
        Budget::new(DEFAULT_BUDGET)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_budget_runs_out() {
        let budget = Budget::new(Duration::ZERO);
        assert!(budget.is_spent());
        assert!(budget.spent_reason().contains("render budget of 0s"));
        assert!(!Budget::new(Duration::from_secs(60)).is_spent());
        assert_eq!(Budget::unlimited().remaining(), Duration::MAX);
    }
}
