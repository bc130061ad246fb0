//! The cooperative budget's state: the units left in the poll running on
//! this thread, set by the executor around every poll and spent by the
//! resources that can be ready forever. A leaf below the runtime's core:
//! tokio's API for it is [`crate::task::coop`], which says how the budget
//! works.

use std::cell::Cell;
use std::task::{Context, Poll};

/// The units a task starts each poll with (tokio's value).
const INITIAL: u8 = 128;

thread_local! {
    /// The budget left in the poll running on this thread; `None` =
    /// unconstrained.
    static BUDGET: Cell<Option<u8>> = const { Cell::new(None) };
    /// Whether the last poll started on this thread ran out of budget (and
    /// so yielded after doing work, not in a busy wait).
    static EXHAUSTED: Cell<bool> = const { Cell::new(false) };
}

/// Sets the budget: `true` gives the running task a fresh one, `false`
/// removes it (between polls). Called by the executor around every poll.
#[inline]
pub(crate) fn start_poll(polling: bool) {
    BUDGET.with(|b| b.set(polling.then_some(INITIAL)));
    if polling {
        EXHAUSTED.with(|e| e.set(false));
    }
}

/// Whether the last poll ran out of budget: the runtime's livelock
/// detection counts such a yield as work, not as spinning.
pub(crate) fn poll_exhausted_budget() -> bool {
    EXHAUSTED.with(Cell::get)
}

/// Runs `f` without a budget (restoring the task's after): for a resource
/// that must be checked even when the budget is spent (a timeout's timer
/// when its future spent the budget) or for a call that cannot yield.
pub(crate) fn with_unconstrained<R>(f: impl FnOnce() -> R) -> R {
    with_budget(None, f)
}

/// `Ready` when the running task has budget left, without taking any;
/// otherwise wakes the task and returns `Pending` (as
/// `coop::poll_proceed` does when the budget is spent). `select!` checks it
/// before polling its branches.
#[inline]
pub(crate) fn poll_budget_available(cx: &mut Context<'_>) -> Poll<()> {
    if has_left() {
        Poll::Ready(())
    } else {
        EXHAUSTED.with(|e| e.set(true));
        cx.waker().wake_by_ref();
        Poll::Pending
    }
}

/// Takes one unit, after [`poll_budget_available`] returned `Ready`: with
/// it, a resource on the executor's hot path (a `Sleep`, a `JoinHandle`)
/// behaves as `coop::poll_proceed` followed by `made_progress` when it
/// completes and by the unit's restoration when it stays pending, with one
/// access to the budget on the pending path instead of two.
#[inline]
pub(crate) fn spend() {
    BUDGET.with(|b| {
        if let Some(n) = b.get() {
            debug_assert!(n > 0, "spend() follows a Ready poll_budget_available");
            b.set(Some(n.saturating_sub(1)));
        }
    })
}

/// Runs `f` with the budget set to `budget`, restoring the previous value
/// after (also on unwind).
pub(crate) fn with_budget<R>(budget: Option<u8>, f: impl FnOnce() -> R) -> R {
    struct Restore(Option<u8>);
    impl Drop for Restore {
        fn drop(&mut self) {
            BUDGET.with(|b| b.set(self.0));
        }
    }
    let _restore = Restore(BUDGET.with(|b| b.replace(budget)));
    f()
}

/// Whether the running task may still do budgeted work in this poll.
#[inline]
pub(crate) fn has_left() -> bool {
    BUDGET.with(|b| b.get() != Some(0))
}

/// Gives back the budget `before` a unit was taken (a resource that stayed
/// pending).
pub(crate) fn restore(before: u8) {
    BUDGET.with(|b| b.set(Some(before)));
}

/// Takes one unit: `Ready` with the budget before it (`None` when
/// unconstrained), or, when it is spent, wakes the task and returns
/// `Pending` so that it yields.
#[inline]
pub(crate) fn proceed(cx: &mut Context<'_>) -> Poll<Option<u8>> {
    BUDGET.with(|b| match b.get() {
        None => Poll::Ready(None),
        Some(0) => {
            EXHAUSTED.with(|e| e.set(true));
            cx.waker().wake_by_ref();
            Poll::Pending
        }
        Some(n) => {
            b.set(Some(n - 1));
            Poll::Ready(Some(n))
        }
    })
}
