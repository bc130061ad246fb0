//! Small pieces shared by the primitives: a poison-ignoring lock, a list of
//! wakers to wake once a lock is released, and the blocking bridge used by
//! the `blocking_*` methods.
//!
//! # Invariants
//!
//! - No waker is woken or dropped while a primitive's state lock is held:
//!   wakers are collected into a [`WakeList`] and woken, in the order they
//!   were pushed, after the guard is dropped, and a waker that [`register`]
//!   replaces or a waiter removes is dropped after the guard too. A waker
//!   may run arbitrary code (another executor's, outside a simulation; a
//!   `Drop` that sends on the very channel).

use std::future::Future;

use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::task::{Context, Poll, Wake, Waker};
use std::thread::{self, Thread};

/// Locks `m`, ignoring poisoning: the state behind every lock of this
/// module is consistent between statements (a panic inside a user closure
/// never runs with a lock held).
pub(crate) fn lock<T: ?Sized>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Wakers to wake after the state lock is released, in push order.
#[derive(Default)]
pub(crate) struct WakeList(Vec<Waker>);

impl WakeList {
    pub(crate) fn new() -> WakeList {
        WakeList(Vec::new())
    }

    pub(crate) fn push(&mut self, waker: Option<Waker>) {
        if let Some(w) = waker {
            self.0.push(w);
        }
    }

    pub(crate) fn wake_all(self) {
        for w in self.0 {
            w.wake();
        }
    }
}

/// Stores `cx`'s waker in `slot` unless the one there already wakes the same
/// task, and returns the waker it replaced. The caller drops that one after
/// releasing its lock: a waker's `Drop` may run arbitrary code, this
/// primitive included (tokio drops replaced wakers outside its locks too).
#[must_use = "drop the replaced waker after releasing the lock"]
pub(crate) fn register(slot: &mut Option<Waker>, cx: &Context<'_>) -> Option<Waker> {
    match slot {
        Some(w) if w.will_wake(cx.waker()) => None,
        _ => slot.replace(cx.waker().clone()),
    }
}

struct ThreadWaker(Thread);

impl Wake for ThreadWaker {
    fn wake(self: Arc<Self>) {
        self.0.unpark();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        self.0.unpark();
    }
}

/// Runs `fut` to completion on the calling thread, parking it between polls.
/// Used by the `blocking_*` methods, which tokio allows only outside a
/// runtime.
///
/// # Panics
///
/// Inside a simulation (as tokio panics inside a runtime): the simulation
/// runs every task on this one thread, so blocking it would block them all
/// and the awaited event could never happen.
#[track_caller]
pub(crate) fn block_on<F: Future>(what: &str, fut: F) -> F::Output {
    // A simulated std thread may block: its park is a simulated wait.
    if !crate::runtime::world::threads::on_turn()
        && crate::runtime::context::try_current().is_some()
    {
        panic!(
            "Cannot block the current thread from within a runtime ({what} was called inside a \
             simulation). This happens because a function attempted to block the current \
             thread while the thread is being used to drive asynchronous tasks: use the async \
             version and `.await` it instead."
        );
    }
    let waker = Waker::from(Arc::new(ThreadWaker(thread::current())));
    let mut cx = Context::from_waker(&waker);
    let mut fut = std::pin::pin!(fut);
    loop {
        if let Poll::Ready(out) = fut.as_mut().poll(&mut cx) {
            return out;
        }
        thread::park();
    }
}

/// `Debug` (no value shown), `Display` ("channel closed") and `Error` for
/// a channel's `SendError<T>`, as tokio writes them for each channel.
macro_rules! send_error_impls {
    ($ty:ident) => {
        impl<T> std::fmt::Debug for $ty<T> {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.debug_struct(stringify!($ty)).finish_non_exhaustive()
            }
        }

        impl<T> std::fmt::Display for $ty<T> {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                write!(f, "channel closed")
            }
        }

        impl<T> std::error::Error for $ty<T> {}
    };
}

/// Writes the trait impls [`OnceCell`](super::OnceCell) and
/// [`SetOnce`](super::SetOnce) share, as tokio's: `Default` (empty),
/// `Debug`, `Clone`, `PartialEq` and `Eq` through `get`, and `From<T>`
/// (set).
macro_rules! cell_impls {
    ($cell:ident) => {
        impl<T> Default for $cell<T> {
            fn default() -> $cell<T> {
                $cell::new()
            }
        }

        impl<T: fmt::Debug> fmt::Debug for $cell<T> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.debug_struct(stringify!($cell))
                    .field("value", &self.get())
                    .finish()
            }
        }

        impl<T: Clone> Clone for $cell<T> {
            fn clone(&self) -> $cell<T> {
                $cell::new_with(self.get().cloned())
            }
        }

        impl<T: PartialEq> PartialEq for $cell<T> {
            fn eq(&self, other: &$cell<T>) -> bool {
                self.get() == other.get()
            }
        }

        impl<T: Eq> Eq for $cell<T> {}

        impl<T> From<T> for $cell<T> {
            fn from(value: T) -> Self {
                $cell::const_new_with(value)
            }
        }
    };
}
