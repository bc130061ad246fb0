//! What the expansions of [`select!`](crate::select!),
//! [`join!`](crate::join!), [`try_join!`](crate::try_join!) and
//! [`pin!`](crate::pin!) name through `$crate::macros::support`. Not public
//! API: hidden, and free to change.
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

use pin_project_lite::pin_project;

use crate::scheduler::ChoiceKind;

/// `select!`'s first step, as in tokio: `Pending` (and a wake) when the
/// task's cooperative budget is spent, since budget-aware branches would
/// yield anyway and the others would not, without taking a unit.
#[inline]
pub fn poll_budget_available(cx: &mut Context<'_>) -> Poll<()> {
    crate::task::coop::poll_budget_available(cx)
}

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

pin_project! {
    /// One branch of a `join!`/`try_join!`: its future until it completes,
    /// then its output until the macro takes it.
    #[project = MaybeDoneProj]
    #[project_replace = MaybeDoneOwned]
    pub enum MaybeDone<F: Future> {
        /// Still running.
        Running { #[pin] fut: F },
        /// Completed with this output.
        Done { out: F::Output },
        /// Output taken, or dropped after a `try_join!` error.
        Gone,
    }
}

impl<F: Future> MaybeDone<F> {
    /// The branch for an async expression (anything [`IntoFuture`]).
    pub fn new<I: IntoFuture<IntoFuture = F>>(fut: I) -> Self {
        MaybeDone::Running {
            fut: fut.into_future(),
        }
    }

    /// Takes the output of a completed branch.
    ///
    /// # Panics
    ///
    /// If the branch has not completed or its output was taken: the macros
    /// take each output once, after every branch is done.
    pub fn take_output(self: Pin<&mut Self>) -> F::Output {
        match self.project_replace(MaybeDone::Gone) {
            MaybeDoneOwned::Done { out } => out,
            _ => panic!("a join! branch's output is taken once, after it completed"),
        }
    }
}

/// A `join!` branch, polled through a trait object so that the polling loop
/// is written once for any number of branches.
pub trait Join {
    /// Polls the branch if it is still running; whether it is done.
    fn poll_done(self: Pin<&mut Self>, cx: &mut Context<'_>) -> bool;
}

impl<F: Future> Join for MaybeDone<F> {
    fn poll_done(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> bool {
        let out = match self.as_mut().project() {
            MaybeDoneProj::Running { fut } => match fut.poll(cx) {
                Poll::Ready(out) => out,
                Poll::Pending => return false,
            },
            MaybeDoneProj::Done { .. } | MaybeDoneProj::Gone => return true,
        };
        self.set(MaybeDone::Done { out });
        true
    }
}

/// A `try_join!` branch: a future whose output is a `Result` with error `E`.
pub trait TryJoin<E> {
    /// Polls the branch if it is still running: `Ready(Ok(()))` once it has
    /// succeeded (its value kept), `Ready(Err(e))` when it has just failed
    /// (the branch is then gone), `Pending` otherwise.
    fn poll_try(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Result<(), E>>;
}

impl<T, E, F: Future<Output = Result<T, E>>> TryJoin<E> for MaybeDone<F> {
    fn poll_try(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Result<(), E>> {
        let out = match self.as_mut().project() {
            MaybeDoneProj::Running { fut } => ready!(fut.poll(cx)),
            MaybeDoneProj::Done { .. } | MaybeDoneProj::Gone => return Poll::Ready(Ok(())),
        };
        match out {
            Ok(value) => {
                self.set(MaybeDone::Done { out: Ok(value) });
                Poll::Ready(Ok(()))
            }
            Err(e) => {
                self.set(MaybeDone::Gone);
                Poll::Ready(Err(e))
            }
        }
    }
}

/// The branch polled first this time, and the rotation for next time:
/// tokio's rule, where an unbiased join moves its first branch on by one at
/// every poll.
fn first_branch(n: usize, start: &mut usize, biased: bool) -> usize {
    debug_assert!(*start < n.max(1), "the rotation stays within the branches");
    if biased || n == 0 {
        return 0;
    }
    let first = *start;
    *start = (first + 1) % n;
    first
}

/// One poll of a `join!`: polls every running branch, starting at the
/// rotation's branch; ready when all are done.
pub fn poll_join(
    branches: &mut [Pin<&mut dyn Join>],
    cx: &mut Context<'_>,
    start: &mut usize,
    biased: bool,
) -> Poll<()> {
    let n = branches.len();
    let first = first_branch(n, start, biased);
    let mut all_done = true;
    for i in 0..n {
        all_done &= branches[(first + i) % n].as_mut().poll_done(cx);
    }
    if all_done {
        Poll::Ready(())
    } else {
        Poll::Pending
    }
}

/// One poll of a `try_join!`: like [`poll_join`], but returns the first
/// error as soon as a branch fails.
pub fn poll_try_join<E>(
    branches: &mut [Pin<&mut dyn TryJoin<E>>],
    cx: &mut Context<'_>,
    start: &mut usize,
    biased: bool,
) -> Poll<Result<(), E>> {
    let n = branches.len();
    let first = first_branch(n, start, biased);
    let mut all_done = true;
    for i in 0..n {
        match branches[(first + i) % n].as_mut().poll_try(cx) {
            Poll::Ready(Ok(())) => {}
            Poll::Ready(Err(e)) => return Poll::Ready(Err(e)),
            Poll::Pending => all_done = false,
        }
    }
    if all_done {
        Poll::Ready(Ok(()))
    } else {
        Poll::Pending
    }
}

/// The value of a `try_join!` branch that succeeded.
///
/// # Panics
///
/// On an `Err`: `try_join!` returns as soon as a branch fails, so the
/// outputs it takes are all `Ok`.
pub fn ok_output<T, E>(out: Result<T, E>) -> T {
    match out {
        Ok(value) => value,
        Err(_) => panic!("try_join! takes outputs only when every branch succeeded"),
    }
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
