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
    ///
    /// `repr(C)`, as tokio's: no niche of the future's is reused for the
    /// tag (rust-lang/miri#3780), which also gives tokio's size.
    #[project = MaybeDoneProj]
    #[project_replace = MaybeDoneOwned]
    #[repr(C)]
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

pin_project! {
    /// The branches of a `join!`, `try_join!` or `select!`, pinned together
    /// as a list of pairs ending in [`Nil`]: `Cons { head: first, tail:
    /// Cons { head: second, tail: Nil } }`. tokio keeps them in a tuple and
    /// projects into it with `unsafe`; a list of pairs has the same layout
    /// (so the same future sizes, which tokio's tests assert) with safe
    /// projections, and a trait over it polls any number of branches.
    #[derive(Debug)]
    pub struct Cons<H, T> {
        #[pin]
        head: H,
        #[pin]
        tail: T,
    }
}

/// The end of a [`Cons`] list.
#[derive(Debug)]
pub struct Nil;

impl<H, T> Cons<H, T> {
    /// `head` in front of the list `tail`.
    pub fn new(head: H, tail: T) -> Self {
        Cons { head, tail }
    }

    /// The first branch.
    pub fn head(self: Pin<&mut Self>) -> Pin<&mut H> {
        self.project().head
    }

    /// The branches after the first.
    pub fn tail(self: Pin<&mut Self>) -> Pin<&mut T> {
        self.project().tail
    }
}

/// The branches of a `join!`: a [`Cons`] list of [`MaybeDone`]s.
pub trait JoinList {
    /// The outputs, nested as the list is: `(first, (second, ()))`.
    type Output;

    /// Polls each running branch whose index is in `range` (this list's
    /// first branch has index `index`); whether all of those are done.
    fn poll_range(self: Pin<&mut Self>, cx: &mut Context<'_>, index: u32, range: Range) -> bool;

    /// Takes every branch's output.
    ///
    /// # Panics
    ///
    /// If a branch has not completed or its output was taken.
    fn take_outputs(self: Pin<&mut Self>) -> Self::Output;
}

/// A half-open range of branch indices.
#[derive(Clone, Copy, Debug)]
pub struct Range {
    start: u32,
    end: u32,
}

impl Range {
    fn contains(self, index: u32) -> bool {
        self.start <= index && index < self.end
    }
}

impl JoinList for Nil {
    type Output = ();

    fn poll_range(self: Pin<&mut Self>, _: &mut Context<'_>, _: u32, _: Range) -> bool {
        true
    }

    fn take_outputs(self: Pin<&mut Self>) {}
}

impl<F: Future, T: JoinList> JoinList for Cons<MaybeDone<F>, T> {
    type Output = (F::Output, T::Output);

    fn poll_range(self: Pin<&mut Self>, cx: &mut Context<'_>, index: u32, range: Range) -> bool {
        let this = self.project();
        let done = !range.contains(index) || this.head.poll_done(cx);
        // Both sides always: `&`, not `&&`.
        done & this.tail.poll_range(cx, index + 1, range)
    }

    fn take_outputs(self: Pin<&mut Self>) -> Self::Output {
        let this = self.project();
        (this.head.take_output(), this.tail.take_outputs())
    }
}

/// The branches of a `try_join!`, whose futures' outputs are `Result`s
/// with error `E`.
pub trait TryJoinList<E> {
    /// The success values, nested as the list is.
    type Output;

    /// As [`JoinList::poll_range`], but stops at the first branch that
    /// fails and returns its error (the branch is then gone).
    fn poll_range(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        index: u32,
        range: Range,
    ) -> Result<bool, E>;

    /// Takes every branch's success value.
    ///
    /// # Panics
    ///
    /// If a branch has not succeeded or its value was taken.
    fn take_outputs(self: Pin<&mut Self>) -> Self::Output;
}

impl<E> TryJoinList<E> for Nil {
    type Output = ();

    fn poll_range(self: Pin<&mut Self>, _: &mut Context<'_>, _: u32, _: Range) -> Result<bool, E> {
        Ok(true)
    }

    fn take_outputs(self: Pin<&mut Self>) {}
}

impl<V, E, F, T> TryJoinList<E> for Cons<MaybeDone<F>, T>
where
    F: Future<Output = Result<V, E>>,
    T: TryJoinList<E>,
{
    type Output = (V, T::Output);

    fn poll_range(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        index: u32,
        range: Range,
    ) -> Result<bool, E> {
        let this = self.project();
        let done = !range.contains(index) || this.head.poll_try(cx)?;
        Ok(done & this.tail.poll_range(cx, index + 1, range)?)
    }

    fn take_outputs(self: Pin<&mut Self>) -> Self::Output {
        let this = self.project();
        match this.head.take_output() {
            Ok(value) => (value, this.tail.take_outputs()),
            Err(_) => panic!("try_join! takes outputs only when every branch succeeded"),
        }
    }
}

impl<F: Future> MaybeDone<F> {
    /// Polls the branch if it is still running; whether it is done.
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

impl<T, E, F: Future<Output = Result<T, E>>> MaybeDone<F> {
    /// Polls the branch if it is still running: `Ok(true)` once it has
    /// succeeded (its value kept), `Err(e)` when it has just failed (the
    /// branch is then gone), `Ok(false)` while it runs.
    fn poll_try(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Result<bool, E> {
        let out = match self.as_mut().project() {
            MaybeDoneProj::Running { fut } => match fut.poll(cx) {
                Poll::Ready(out) => out,
                Poll::Pending => return Ok(false),
            },
            MaybeDoneProj::Done { .. } | MaybeDoneProj::Gone => return Ok(true),
        };
        match out {
            Ok(value) => {
                self.set(MaybeDone::Done { out: Ok(value) });
                Ok(true)
            }
            Err(e) => {
                self.set(MaybeDone::Gone);
                Err(e)
            }
        }
    }
}

/// tokio's rotation of an unbiased `join!`: the branch polled first moves
/// on by one at every poll.
#[derive(Debug, Default)]
pub struct Rotator {
    next: u32,
}

impl Rotator {
    /// The branch to poll first this time, of `count`.
    pub fn first(&mut self, count: u32) -> u32 {
        let first = self.next;
        self.next = if first + 1 >= count { 0 } else { first + 1 };
        first
    }
}

/// A `biased;` `join!`'s rotation: none (zero-sized, as tokio's).
#[derive(Debug, Default)]
pub struct BiasedRotator;

impl BiasedRotator {
    /// Always the first branch.
    pub fn first(&mut self, _count: u32) -> u32 {
        0
    }
}

/// One poll of a `join!` of `count` branches: polls every running branch,
/// starting at branch `first` and going round; their outputs once all are
/// done.
pub fn poll_join<L: JoinList>(
    mut list: Pin<&mut L>,
    cx: &mut Context<'_>,
    first: u32,
    count: u32,
) -> Poll<L::Output> {
    let from_first = list.as_mut().poll_range(
        cx,
        0,
        Range {
            start: first,
            end: count,
        },
    );
    let before_first = list.as_mut().poll_range(
        cx,
        0,
        Range {
            start: 0,
            end: first,
        },
    );
    if from_first & before_first {
        Poll::Ready(list.take_outputs())
    } else {
        Poll::Pending
    }
}

/// One poll of a `try_join!`: like [`poll_join`], but returns the first
/// error as soon as a branch fails.
pub fn poll_try_join<E, L: TryJoinList<E>>(
    mut list: Pin<&mut L>,
    cx: &mut Context<'_>,
    first: u32,
    count: u32,
) -> Poll<Result<L::Output, E>> {
    let done = list
        .as_mut()
        .poll_range(
            cx,
            0,
            Range {
                start: first,
                end: count,
            },
        )
        .and_then(|a| {
            let b = list.as_mut().poll_range(
                cx,
                0,
                Range {
                    start: 0,
                    end: first,
                },
            )?;
            Ok(a & b)
        });
    match done {
        Ok(true) => Poll::Ready(Ok(list.take_outputs())),
        Ok(false) => Poll::Pending,
        Err(e) => Poll::Ready(Err(e)),
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
