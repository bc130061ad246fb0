//! What the expansion of [`select!`](crate::select!) names through
//! `$crate::macros::support`. Not public API: hidden, and free to change.
//!
//! # Determinism
//!
//! The only nondeterminism of `select!` in tokio is the branch it polls first,
//! drawn from a thread-local RNG. Here it is a data choice of the
//! simulation's scheduler ([`ChoiceKind::Select`]), so it is recorded in the
//! trace, replayed, and open to an explorer. A choice with a single possible
//! answer is not asked at all, so it adds nothing to the trace or to the
//! search space.

pub use core::future::{poll_fn, Future, IntoFuture};
pub use core::pin::{pin, Pin};
pub use core::task::{ready, Context, Poll};

use crate::scheduler::ChoiceKind;

/// The index, in `0..branches`, of the branch a fair `select!` polls first:
/// a [`ChoiceKind::Select`] choice of the current simulation's scheduler, or
/// 0 outside a simulation (and whenever `branches <= 1`).
pub fn select_start(branches: u32) -> u32 {
    if branches <= 1 {
        return 0;
    }
    let start = crate::runtime::choose(ChoiceKind::Select, branches as usize);
    debug_assert!(
        start < branches as usize,
        "a choice among {branches} returned {start}"
    );
    start as u32
}

/// The branch a fair `select!` polls first, chosen among the branches that
/// are not disabled (bit `i` of `disabled` set = branch `i` disabled).
///
/// Choosing among the enabled branches only, rather than among all of them
/// as tokio does, means every answer of the choice leads to a different
/// order of polls: an explorer enumerating the choice wastes no executions
/// on duplicates, and a select with one enabled branch asks nothing. When
/// every branch is disabled, returns 0 (the select then finds nothing to
/// poll).
pub fn select_start_among(branches: u32, disabled: u64) -> u32 {
    debug_assert!(branches <= 64, "select! supports at most 64 branches");
    let is_enabled = |branch: &u32| disabled & (1u64 << branch) == 0;
    let enabled = (0..branches).filter(is_enabled).count() as u32;
    let nth = select_start(enabled);
    (0..branches)
        .filter(is_enabled)
        .nth(nth as usize)
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outside_a_simulation_the_first_enabled_branch_starts() {
        assert_eq!(select_start(5), 0);
        assert_eq!(select_start_among(3, 0b000), 0);
        assert_eq!(select_start_among(3, 0b011), 2);
        assert_eq!(select_start_among(3, 0b111), 0);
        assert_eq!(select_start_among(64, u64::MAX >> 1), 63);
        assert_eq!(select_start_among(0, 0), 0);
    }

    /// `select!` used inside this crate goes through `crate::macros` paths,
    /// and its expansion must not trip this crate's own lints.
    #[test]
    fn select_is_usable_inside_the_crate() {
        let v = futures::executor::block_on(async {
            crate::select! {
                Some(v) = core::future::ready(None::<u32>) => v,
                mut v = core::future::ready(1) => { v += 1; v }
                v = core::future::ready(3), if false => v,
                else => 0,
            }
        });
        assert_eq!(v, 2);
    }
}
