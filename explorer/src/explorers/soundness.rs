//! Checking that a delaying explorer is sound, for the authors of custom
//! explorers (the built-ins' tests use the same check).
//!
//! The searches rely on two properties at every step (see the
//! [module docs](super)):
//!
//! - **Coverage.** `k = 0..m` delays, each applied to a fresh copy of the
//!   explorer, make `next` name the `m` enabled events, each once. A search
//!   that puts up to `m - 1` delays at a step can then reach every event
//!   enabled there, and stratified exhaustive search tries exactly `m`
//!   alternatives.
//! - **Order independence.** The answers depend on the *set* of enabled
//!   events, not on the order of the slice the runtime passes, which is
//!   deterministic but not canonical.
//!
//! [`check_sound`] tests both at one state of an explorer. Call it at many
//! states, e.g. from a proptest that feeds random observations and enabled
//! sets, as `examples/tests/simulated/chain.rs` does for its custom explorer.

use sim_rt::scheduler::Event;

use super::{DelayingExplorer, Unit};

/// The unit `explorer` names after `k` delays, on a clone; an error if
/// `next` returns an index outside `enabled`.
fn after_delays<E: DelayingExplorer + Clone>(
    explorer: &E,
    enabled: &[Event],
    k: usize,
) -> Result<Unit, String> {
    let mut e = explorer.clone();
    for _ in 0..k {
        e.delay(enabled);
    }
    let i = e.next(enabled);
    match enabled.get(i) {
        Some(event) => Ok(Unit::of(*event)),
        None => Err(format!(
            "after {k} delays, next returned index {i} but only {} events are enabled",
            enabled.len()
        )),
    }
}

/// Checks that `explorer`, in its current state, is sound for `enabled`:
/// `k = 0..m` delays name each of the `m` events once, and the same events
/// in reverse slice order give the same answers. Works on clones; `explorer`
/// is not changed.
///
/// # Errors
///
/// A message that says which property failed, with the answers it saw.
///
/// # Panics
///
/// If `enabled` is empty: the runtime never asks an explorer to pick from
/// nothing.
///
/// # Examples
///
/// ```
/// use explorer::explorers::check_sound;
/// use explorer::RoundRobin;
/// use sim_rt::scheduler::{Event, __testing::task};
///
/// let enabled = [Event::Poll(task(2)), Event::Advance, Event::Poll(task(1))];
/// assert_eq!(check_sound(&RoundRobin::new(), &enabled), Ok(()));
/// ```
pub fn check_sound<E: DelayingExplorer + Clone>(
    explorer: &E,
    enabled: &[Event],
) -> Result<(), String> {
    assert!(!enabled.is_empty(), "check_sound needs an enabled event");
    let m = enabled.len();
    let answers = (0..m)
        .map(|k| after_delays(explorer, enabled, k))
        .collect::<Result<Vec<Unit>, String>>()?;
    let mut distinct = answers.clone();
    distinct.sort();
    distinct.dedup();
    if distinct.len() != m {
        return Err(format!(
            "delays 0..{m} name {answers:?}: an event is named twice, so another is never \
             reached"
        ));
    }
    let mut reversed = enabled.to_vec();
    reversed.reverse();
    for (k, answer) in answers.iter().enumerate() {
        let other = after_delays(explorer, &reversed, k)?;
        if other != *answer {
            return Err(format!(
                "after {k} delays the answer depends on the order of the enabled slice: \
                 {answer:?} for {enabled:?}, {other:?} for the reverse"
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use sim_rt::scheduler::__testing::task;
    use sim_rt::scheduler::Observation;

    use super::*;

    /// Picks by position, ignoring what it was told: order-dependent.
    #[derive(Debug, Clone)]
    struct First;

    impl DelayingExplorer for First {
        fn name(&self) -> String {
            "first".into()
        }
        fn next(&mut self, _: &[Event]) -> usize {
            0
        }
        fn delay(&mut self, _: &[Event]) {}
        fn step(&mut self, _: &Observation) {}
    }

    /// Lowest unit first; a delay skips one more unit, but never past the
    /// second: a third enabled event is never reached.
    #[derive(Debug, Clone, Default)]
    struct TwoOnly {
        skip: usize,
    }

    impl DelayingExplorer for TwoOnly {
        fn name(&self) -> String {
            "two-only".into()
        }
        fn next(&mut self, enabled: &[Event]) -> usize {
            let mut units: Vec<(Unit, usize)> = enabled
                .iter()
                .enumerate()
                .map(|(i, e)| (Unit::of(*e), i))
                .collect();
            units.sort();
            units[self.skip.min(1).min(units.len() - 1)].1
        }
        fn delay(&mut self, _: &[Event]) {
            self.skip += 1;
        }
        fn step(&mut self, _: &Observation) {}
    }

    /// Returns an index past the end.
    #[derive(Debug, Clone)]
    struct OutOfRange;

    impl DelayingExplorer for OutOfRange {
        fn name(&self) -> String {
            "out-of-range".into()
        }
        fn next(&mut self, enabled: &[Event]) -> usize {
            enabled.len()
        }
        fn delay(&mut self, _: &[Event]) {}
        fn step(&mut self, _: &Observation) {}
    }

    fn three() -> [Event; 3] {
        [Event::Poll(task(3)), Event::Advance, Event::Poll(task(1))]
    }

    #[test]
    fn a_single_event_is_always_covered() {
        assert_eq!(check_sound(&First, &[Event::Advance]), Ok(()));
    }

    #[test]
    fn an_explorer_that_never_deviates_is_unsound() {
        let err = check_sound(&First, &three()).unwrap_err();
        assert!(err.contains("named twice"), "{err}");
    }

    #[test]
    fn an_explorer_that_cannot_reach_the_third_event_is_unsound() {
        let err = check_sound(&TwoOnly::default(), &three()).unwrap_err();
        assert!(err.contains("named twice"), "{err}");
        assert_eq!(
            check_sound(&TwoOnly::default(), &three()[..2]),
            Ok(()),
            "two events are both reached"
        );
    }

    #[test]
    fn an_index_outside_the_slice_is_reported() {
        let err = check_sound(&OutOfRange, &three()).unwrap_err();
        assert!(err.contains("index 3 but only 3"), "{err}");
    }

    /// Covers every event, but by position: the reverse slice gives other
    /// answers.
    #[derive(Debug, Clone, Default)]
    struct ByPosition {
        delays: usize,
    }

    impl DelayingExplorer for ByPosition {
        fn name(&self) -> String {
            "by-position".into()
        }
        fn next(&mut self, enabled: &[Event]) -> usize {
            self.delays % enabled.len()
        }
        fn delay(&mut self, _: &[Event]) {
            self.delays += 1;
        }
        fn step(&mut self, _: &Observation) {}
    }

    #[test]
    fn an_explorer_that_depends_on_slice_order_is_unsound() {
        let err = check_sound(&ByPosition::default(), &three()).unwrap_err();
        assert!(err.contains("depends on the order"), "{err}");
    }
}
