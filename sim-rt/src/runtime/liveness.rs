//! Liveness properties the runtime checks as the run goes: "eventually P"
//! (optionally "and P stays") and hot/cold monitors (Coyote's style), stated
//! by the program with [`sim::eventually`](crate::sim::eventually) and
//! [`sim::monitor`](crate::sim::monitor).
//!
//! A property is evaluated after every step (or every
//! [`Builder::liveness_check_every`](crate::runtime::Builder::liveness_check_every)
//! steps), outside any task. A run that ends (its main future returns) with
//! an "eventually" property that never held, or that did not stay, fails
//! with [`FailureKind::Liveness`](crate::runtime::FailureKind::Liveness):
//! *indeterminate* in MaceMC's terms (the system may be dead, or only slow
//! within this bound). A monitor that stays hot past its limit fails the
//! run at the first check past the limit: a violation.
//!
//! # Invariants
//!
//! - `Props::any` is true iff `props` is non-empty: the step loop skips the
//!   whole check on one read of it when the program states no property.
//! - A property's `held_since` is `Some` exactly while its last evaluation
//!   held (for `stays`) or since the first one that held (otherwise).

use std::rc::Rc;
use std::sync::Arc;
use std::time::Duration;

/// One stated property.
pub(crate) struct Prop {
    pub(crate) name: Arc<str>,
    /// When it was stated: step and simulated time since the start.
    pub(crate) stated: (u64, Duration),
    pub(crate) kind: PropKind,
}

pub(crate) enum PropKind {
    Eventually {
        pred: Rc<dyn Fn() -> bool>,
        stays: bool,
        /// Since when it has held (see the invariants).
        held_since: Option<(u64, Duration)>,
        /// The last time it stopped holding after having held.
        lost_at: Option<(u64, Duration)>,
    },
    Monitor {
        limit: Duration,
        /// Since when it has been hot.
        hot_since: Option<(u64, Duration)>,
    },
}

/// Every property of one run.
#[derive(Default)]
pub(crate) struct Props {
    pub(crate) props: Vec<Prop>,
    pub(crate) any: bool,
    /// Check every this many steps (at least 1).
    pub(crate) every: u64,
}

/// How a run went on after its main future returned, for a property.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Walked {
    pub(crate) steps: u64,
    /// Nothing more could happen: no task could run, no timer was armed,
    /// no packet was in flight.
    pub(crate) dead: bool,
    /// It stopped at the simulated-time limit with nothing to do but wait
    /// for an event at this time (since the start), past the limit, after
    /// at least half of its own time with nothing happening: it was
    /// waiting, not busy.
    pub(crate) waiting: Option<Duration>,
}

/// What a check found wrong.
#[derive(Debug, Clone)]
pub(crate) enum Violation {
    /// An "eventually" property did not hold (or stay) by the end.
    Unmet {
        name: Arc<str>,
        stated: (u64, Duration),
        stays: bool,
        lost_at: Option<(u64, Duration)>,
        /// When the run went on after the main future returned
        /// ([`Builder::liveness_walk`](crate::runtime::Builder::liveness_walk)):
        /// how far, and whether it stopped because nothing more could
        /// happen.
        walked: Option<Walked>,
    },
    /// A monitor was hot past its limit.
    HotTooLong {
        name: Arc<str>,
        limit: Duration,
        since: (u64, Duration),
    },
}

impl Props {
    pub(crate) fn add(&mut self, prop: Prop) -> usize {
        self.props.push(prop);
        self.any = true;
        self.props.len() - 1
    }

    /// The predicates to evaluate now, with their indices (cloned out so
    /// that they run with no borrow of the world held).
    pub(crate) fn due(&self, step: u64) -> Vec<(usize, Rc<dyn Fn() -> bool>)> {
        if step % self.every.max(1) != 0 {
            return Vec::new();
        }
        self.props
            .iter()
            .enumerate()
            .filter_map(|(i, p)| match &p.kind {
                PropKind::Eventually {
                    pred,
                    stays,
                    held_since,
                    ..
                } if *stays || held_since.is_none() => Some((i, pred.clone())),
                _ => None,
            })
            .collect()
    }

    /// Records that property `i` evaluated to `holds` at `now`.
    pub(crate) fn record(&mut self, i: usize, holds: bool, now: (u64, Duration)) {
        if let PropKind::Eventually {
            held_since,
            lost_at,
            ..
        } = &mut self.props[i].kind
        {
            match (holds, *held_since) {
                (true, None) => *held_since = Some(now),
                (false, Some(_)) => {
                    *held_since = None;
                    *lost_at = Some(now);
                }
                _ => {}
            }
        }
    }

    /// A monitor hot past its limit at `now`, if any.
    pub(crate) fn hot_too_long(&self, now: Duration) -> Option<Violation> {
        self.props.iter().find_map(|p| match p.kind {
            PropKind::Monitor {
                limit,
                hot_since: Some(since),
            } if now.saturating_sub(since.1) > limit => Some(Violation::HotTooLong {
                name: p.name.clone(),
                limit,
                since,
            }),
            _ => None,
        })
    }

    /// The first "eventually" property unmet at the end of the run.
    pub(crate) fn unmet(&self) -> Option<Violation> {
        self.props.iter().find_map(|p| match &p.kind {
            PropKind::Eventually {
                stays,
                held_since: None,
                lost_at,
                ..
            } => Some(Violation::Unmet {
                name: p.name.clone(),
                stated: p.stated,
                stays: *stays,
                lost_at: *lost_at,
                walked: None,
            }),
            _ => None,
        })
    }

    /// Whether every "eventually" property holds now.
    pub(crate) fn all_met(&self) -> bool {
        self.props.iter().all(|p| {
            !matches!(
                p.kind,
                PropKind::Eventually {
                    held_since: None,
                    ..
                }
            )
        })
    }
}

impl Violation {
    /// The same violation, noting how the run went on.
    pub(crate) fn after(self, walk: Walked) -> Violation {
        match self {
            Violation::Unmet {
                name,
                stated,
                stays,
                lost_at,
                ..
            } => Violation::Unmet {
                name,
                stated,
                stays,
                lost_at,
                walked: Some(walk),
            },
            other => other,
        }
    }
}
