//! Simulated [`tokio::task::coop`](https://docs.rs/tokio/1/tokio/task/coop/index.html): the cooperative budget that makes a
//! task yield after it has done a bounded amount of work in one poll.
//!
//! As in tokio, each poll of a task starts with a budget of 128 units.
//! Resources that can be ready forever (a channel that always holds a
//! message, a socket that always has data) take a unit with
//! [`poll_proceed`] before doing their work, and once the budget is spent
//! they return `Pending` and wake the task at once, so a loop over them
//! yields instead of keeping the thread. In a simulation this matters more
//! than in tokio: a poll that never returns cannot be stopped by the step
//! limit, so it would hang the test.
//!
//! Outside a task's poll (outside a simulation, or in code the runtime runs
//! between polls) the budget is unconstrained.
//!
//! # Invariants
//!
//! - `BUDGET` is `Some(INITIAL)` when the runtime starts polling a task and
//!   `None` once it returns; in between only this module changes it.
//!
//! # Determinism
//!
//! The budget is a pure function of the operations a poll performed, so
//! where a forced yield happens is the same in every run with the same
//! choices. A forced yield wakes the task before returning `Pending`: it is
//! one more `Poll` event, which the scheduler orders like any other.

use std::cell::Cell;
use std::future::Future;
use std::marker::PhantomData;
use std::pin::Pin;
use std::task::{ready, Context, Poll};

use pin_project_lite::pin_project;

use crate::runtime::budget::{self, with_budget};
pub(crate) use crate::runtime::budget::{poll_budget_available, spend, with_unconstrained};

/// Simulated [`tokio::task::coop::has_budget_remaining`](https://docs.rs/tokio/1/tokio/task/coop/fn.has_budget_remaining.html): whether the
/// running task may still do budgeted work in this poll (always, outside a
/// task's poll).
///
/// # Differences from tokio
///
/// None.
#[inline]
pub fn has_budget_remaining() -> bool {
    budget::has_left()
}

/// Simulated [`tokio::task::coop::RestoreOnPending`](https://docs.rs/tokio/1/tokio/task/coop/struct.RestoreOnPending.html): the unit of budget
/// [`poll_proceed`] took, given back when this drops unless
/// [`made_progress`](Self::made_progress) was called.
///
/// # Differences from tokio
///
/// None.
#[derive(Debug)]
#[must_use = "dropping it at once gives the unit of budget back"]
pub struct RestoreOnPending {
    /// The budget before the unit was taken; `None` once progress was made
    /// or when there was no budget to restore.
    before: Cell<Option<u8>>,
    _not_send: PhantomData<*mut ()>,
}

impl RestoreOnPending {
    fn new(before: Option<u8>) -> RestoreOnPending {
        RestoreOnPending {
            before: Cell::new(before),
            _not_send: PhantomData,
        }
    }

    /// Simulated [`tokio::task::coop::RestoreOnPending::made_progress`](https://docs.rs/tokio/1/tokio/task/coop/struct.RestoreOnPending.html#method.made_progress):
    /// keeps the unit spent.
    pub fn made_progress(&self) {
        self.before.set(None);
    }
}

impl Drop for RestoreOnPending {
    fn drop(&mut self) {
        if let Some(before) = self.before.get() {
            budget::restore(before);
        }
    }
}

/// Simulated [`tokio::task::coop::poll_proceed`](https://docs.rs/tokio/1/tokio/task/coop/fn.poll_proceed.html): takes one unit of the
/// running task's budget, or, when it is spent, wakes the task and returns
/// `Pending` so that it yields.
///
/// # Differences from tokio
///
/// None.
#[inline]
pub fn poll_proceed(cx: &mut Context<'_>) -> Poll<RestoreOnPending> {
    budget::proceed(cx).map(RestoreOnPending::new)
}

/// Simulated [`tokio::task::coop::consume_budget`](https://docs.rs/tokio/1/tokio/task/coop/consume_budget/index.html): takes one unit of the
/// budget, yielding first if it is spent.
///
/// # Differences from tokio
///
/// None.
pub async fn consume_budget() {
    let mut done = false;
    std::future::poll_fn(|cx| {
        if done {
            return Poll::Ready(());
        }
        let restore = ready!(poll_proceed(cx));
        restore.made_progress();
        done = true;
        Poll::Ready(())
    })
    .await
}

pin_project! {
    /// Simulated [`tokio::task::coop::Unconstrained`](https://docs.rs/tokio/1/tokio/task/coop/struct.Unconstrained.html): a future polled with
    /// no budget. Made by [`unconstrained`].
    ///
    /// # Differences from tokio
    ///
    /// None.
    #[must_use = "futures do nothing unless you `.await` or poll them"]
    #[derive(Debug)]
    pub struct Unconstrained<F> {
        #[pin]
        inner: F,
    }
}

impl<F: Future> Future for Unconstrained<F> {
    type Output = F::Output;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        let inner = self.project().inner;
        with_budget(None, || inner.poll(cx))
    }
}

/// Simulated [`tokio::task::coop::unconstrained`](https://docs.rs/tokio/1/tokio/task/coop/unconstrained/index.html): runs `inner` without a
/// budget, so it never yields because of one.
///
/// # Differences from tokio
///
/// None.
pub fn unconstrained<F>(inner: F) -> Unconstrained<F> {
    Unconstrained { inner }
}

pin_project! {
    /// Simulated [`tokio::task::coop::Coop`](https://docs.rs/tokio/1/tokio/task/coop/struct.Coop.html): a future that takes a unit of
    /// budget at each poll. Made by [`cooperative`].
    ///
    /// # Differences from tokio
    ///
    /// None.
    #[must_use = "futures do nothing unless you `.await` or poll them"]
    #[derive(Debug)]
    pub struct Coop<F: Future> {
        #[pin]
        fut: F,
    }
}

impl<F: Future> Future for Coop<F> {
    type Output = F::Output;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        let restore = ready!(poll_proceed(cx));
        let out = ready!(self.project().fut.poll(cx));
        restore.made_progress();
        Poll::Ready(out)
    }
}

/// Simulated [`tokio::task::coop::cooperative`](https://docs.rs/tokio/1/tokio/task/coop/fn.cooperative.html): makes `fut` take a unit of
/// budget at each poll (given back when it stays pending).
///
/// # Differences from tokio
///
/// None.
pub fn cooperative<F: Future>(fut: F) -> Coop<F> {
    Coop { fut }
}
