//! Simulated [`Notify`]: wakes one task, the newest, or all waiting tasks.
//!
//! The waiters are a FIFO queue keyed by a per-`Notify` counter (a
//! `BTreeMap`, so the first key is the oldest waiter). A notification
//! removes a waiter from the queue and records, under its id, which kind of
//! notification it got, until its future is polled or dropped.
//!
//! # Invariants
//!
//! - `permit` is only set while `waiters` is empty: `notify_one` with a
//!   waiter queued hands the notification to that waiter instead.
//! - An id is in at most one of `waiters` and `delivered`.
//!
//! # Determinism
//!
//! `notify_one` wakes the oldest waiter, `notify_last` the newest, and
//! `notify_waiters` wakes every queued waiter oldest first: the order is
//! the order in which the `Notified` futures were first polled (or
//! enabled), which is a function of the execution.

use std::collections::BTreeMap;
use std::fmt;
use std::future::Future;
use std::marker::PhantomPinned;
use std::ops::Deref;
use std::panic::{RefUnwindSafe, UnwindSafe};
use std::pin::Pin;
use std::sync::{Arc, Mutex as StdMutex};
use std::task::{Context, Poll, Waker};

use pin_project_lite::pin_project;

use super::util::{lock, register, WakeList};

/// Simulated/own version of
/// [`tokio::sync::Notify`](https://docs.rs/tokio/1/tokio/sync/struct.Notify.html):
/// notifies a single task, or all waiting tasks, of an event.
///
/// A `Notify` holds at most one permit. [`notify_one`](Notify::notify_one)
/// wakes the oldest waiting [`Notified`](super::futures::Notified) future,
/// or, when none waits, stores the permit so that the next
/// [`notified().await`](Notify::notified) completes at once.
/// [`notify_waiters`](Notify::notify_waiters) wakes every future that waits
/// (or was created before the call) and stores no permit.
///
/// # Examples
///
/// ```
/// # sim_rt::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
/// use std::sync::Arc;
/// use sim_rt::sync::Notify;
///
/// let notify = Arc::new(Notify::new());
/// let notify2 = notify.clone();
/// let handle = sim_rt::spawn(async move {
///     notify2.notified().await;
///     "received"
/// });
/// notify.notify_one();
/// assert_eq!(handle.await.unwrap(), "received");
/// # });
/// ```
///
/// # Differences from tokio
///
/// None.
pub struct Notify {
    state: StdMutex<State>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// `notify_one`: passed on to the next waiter if dropped unconsumed.
    One,
    /// `notify_last`: passed on to the newest waiter if dropped unconsumed.
    Last,
    /// `notify_waiters`.
    All,
}

struct State {
    /// A stored `notify_one`/`notify_last` for the next waiter.
    permit: bool,
    /// How many times `notify_waiters` was called.
    waiters_calls: usize,
    next_id: u64,
    /// Waiting futures, oldest first, with the waker to wake them.
    waiters: BTreeMap<u64, Option<Waker>>,
    /// Futures taken off `waiters` by a notification they have not seen yet.
    delivered: BTreeMap<u64, Kind>,
}

impl Notify {
    /// Simulated/own version of
    /// [`tokio::sync::Notify::new`](https://docs.rs/tokio/1/tokio/sync/struct.Notify.html#method.new):
    /// a `Notify` with no permit.
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub fn new() -> Notify {
        Notify::const_new()
    }

    /// Simulated/own version of
    /// [`tokio::sync::Notify::const_new`](https://docs.rs/tokio/1/tokio/sync/struct.Notify.html#method.const_new):
    /// [`new`](Notify::new) usable in a `static`.
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub const fn const_new() -> Notify {
        Notify {
            state: StdMutex::new(State {
                permit: false,
                waiters_calls: 0,
                next_id: 0,
                waiters: BTreeMap::new(),
                delivered: BTreeMap::new(),
            }),
        }
    }

    /// Simulated/own version of
    /// [`tokio::sync::Notify::notified`](https://docs.rs/tokio/1/tokio/sync/struct.Notify.html#method.notified):
    /// waits for a notification.
    ///
    /// The future completes on a stored permit, on a `notify_one` or
    /// `notify_last` that picks it, or on any `notify_waiters` call made
    /// after it was created (even before it was first polled). It joins the
    /// wait queue when first polled or [`enable`d](super::futures::Notified::enable).
    ///
    /// # Cancel safety
    ///
    /// Dropping it after a `notify_one` (or `notify_last`) picked it but
    /// before it completed passes the notification on, as tokio does.
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub fn notified(&self) -> Notified<'_> {
        Notified {
            inner: Waiter::new(self),
            _pin: PhantomPinned,
        }
    }

    /// Simulated/own version of
    /// [`tokio::sync::Notify::notified_owned`](https://docs.rs/tokio/1/tokio/sync/struct.Notify.html#method.notified_owned):
    /// [`notified`](Notify::notified) holding an `Arc`, so the future is
    /// `'static`.
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub fn notified_owned(self: Arc<Self>) -> OwnedNotified {
        OwnedNotified {
            inner: Waiter::new(self),
            _pin: PhantomPinned,
        }
    }

    /// Simulated/own version of
    /// [`tokio::sync::Notify::notify_one`](https://docs.rs/tokio/1/tokio/sync/struct.Notify.html#method.notify_one):
    /// wakes the oldest waiter, or stores a permit when none waits.
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub fn notify_one(&self) {
        self.notify(Kind::One);
    }

    /// Simulated/own version of
    /// [`tokio::sync::Notify::notify_last`](https://docs.rs/tokio/1/tokio/sync/struct.Notify.html#method.notify_last):
    /// wakes the newest waiter, or stores a permit when none waits.
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub fn notify_last(&self) {
        self.notify(Kind::Last);
    }

    fn notify(&self, kind: Kind) {
        let mut st = lock(&self.state);
        let waker = st.notify_locked(kind);
        drop(st);
        if let Some(w) = waker {
            w.wake();
        }
    }

    /// Simulated/own version of
    /// [`tokio::sync::Notify::notify_waiters`](https://docs.rs/tokio/1/tokio/sync/struct.Notify.html#method.notify_waiters):
    /// wakes every waiting future, oldest first, and every `Notified` created
    /// before this call; stores no permit.
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub fn notify_waiters(&self) {
        let mut wakers = WakeList::new();
        let mut st = lock(&self.state);
        st.waiters_calls = st.waiters_calls.wrapping_add(1);
        while let Some((id, waker)) = st.waiters.pop_first() {
            st.delivered.insert(id, Kind::All);
            wakers.push(waker);
        }
        drop(st);
        wakers.wake_all();
    }
}

impl State {
    /// Hands a `notify_one`/`notify_last` to a waiter, returning its waker,
    /// or stores the permit.
    fn notify_locked(&mut self, kind: Kind) -> Option<Waker> {
        let picked = match kind {
            Kind::Last => self.waiters.pop_last(),
            _ => self.waiters.pop_first(),
        };
        match picked {
            Some((id, waker)) => {
                self.delivered.insert(id, kind);
                waker
            }
            None => {
                self.permit = true;
                None
            }
        }
    }
}

impl Default for Notify {
    fn default() -> Notify {
        Notify::new()
    }
}

impl UnwindSafe for Notify {}
impl RefUnwindSafe for Notify {}

impl fmt::Debug for Notify {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let st = lock(&self.state);
        f.debug_struct("Notify")
            .field("permit", &st.permit)
            .field("waiters", &st.waiters.len())
            .finish()
    }
}

#[derive(Debug, Clone, Copy)]
enum WaitState {
    Init,
    Waiting(u64),
    Done,
}

/// The state of one `Notified`/`OwnedNotified`, generic over how it holds
/// the `Notify`.
struct Waiter<N: Deref<Target = Notify>> {
    notify: N,
    state: WaitState,
    /// `notify_waiters` calls when the future was created.
    waiters_calls: usize,
}

impl<N: Deref<Target = Notify>> Waiter<N> {
    fn new(notify: N) -> Waiter<N> {
        let waiters_calls = lock(&notify.state).waiters_calls;
        Waiter {
            notify,
            state: WaitState::Init,
            waiters_calls,
        }
    }

    fn poll(&mut self, cx: Option<&Context<'_>>) -> Poll<()> {
        let mut st = lock(&self.notify.state);
        match self.state {
            WaitState::Init => {
                if st.waiters_calls != self.waiters_calls || std::mem::take(&mut st.permit) {
                    self.state = WaitState::Done;
                    return Poll::Ready(());
                }
                let id = st.next_id;
                st.next_id += 1;
                st.waiters.insert(id, cx.map(|cx| cx.waker().clone()));
                self.state = WaitState::Waiting(id);
                Poll::Pending
            }
            WaitState::Waiting(id) => {
                if st.delivered.remove(&id).is_some() {
                    self.state = WaitState::Done;
                    return Poll::Ready(());
                }
                let slot = st
                    .waiters
                    .get_mut(&id)
                    .expect("a waiting Notified is either queued or notified");
                let replaced = cx.and_then(|cx| register(slot, cx));
                drop(st);
                drop(replaced);
                Poll::Pending
            }
            WaitState::Done => Poll::Ready(()),
        }
    }
}

impl<N: Deref<Target = Notify>> Drop for Waiter<N> {
    fn drop(&mut self) {
        let WaitState::Waiting(id) = self.state else {
            return;
        };
        let mut st = lock(&self.notify.state);
        let mut waker = None;
        // A waiter's own waker is dropped after the lock, too.
        let removed = st.waiters.remove(&id);
        if removed.is_none() {
            match st.delivered.remove(&id) {
                Some(kind @ (Kind::One | Kind::Last)) => waker = st.notify_locked(kind),
                Some(Kind::All) | None => {}
            }
        }
        drop(st);
        drop(removed);
        if let Some(w) = waker {
            w.wake();
        }
    }
}

impl<N: Deref<Target = Notify>> fmt::Debug for Waiter<N> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Waiter")
            .field("state", &self.state)
            .field("notify_waiters_calls", &self.waiters_calls)
            .finish()
    }
}

pin_project! {
    /// Simulated/own version of
    /// [`tokio::sync::futures::Notified`](https://docs.rs/tokio/1/tokio/sync/futures/struct.Notified.html):
    /// the future returned by [`Notify::notified`].
    ///
    /// It is fused: once it completed, polling it again returns `Ready`.
    ///
    /// # Differences from tokio
    ///
    /// None.
    #[derive(Debug)]
    #[must_use = "futures do nothing unless you `.await` or poll them"]
    pub struct Notified<'a> {
        inner: Waiter<&'a Notify>,
        #[pin]
        _pin: PhantomPinned,
    }
}

impl Notified<'_> {
    /// Simulated/own version of
    /// [`tokio::sync::futures::Notified::enable`](https://docs.rs/tokio/1/tokio/sync/futures/struct.Notified.html#method.enable):
    /// joins the wait queue without a waker, as a first poll would, and
    /// returns whether the future is already complete (then it took the
    /// permit, or saw a `notify_waiters`).
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub fn enable(self: Pin<&mut Self>) -> bool {
        self.project().inner.poll(None).is_ready()
    }
}

impl Future for Notified<'_> {
    type Output = ();

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        self.project().inner.poll(Some(cx))
    }
}

pin_project! {
    /// Simulated/own version of
    /// [`tokio::sync::futures::OwnedNotified`](https://docs.rs/tokio/1/tokio/sync/futures/struct.OwnedNotified.html):
    /// the future returned by [`Notify::notified_owned`].
    ///
    /// # Differences from tokio
    ///
    /// None.
    #[derive(Debug)]
    #[must_use = "futures do nothing unless you `.await` or poll them"]
    pub struct OwnedNotified {
        inner: Waiter<Arc<Notify>>,
        #[pin]
        _pin: PhantomPinned,
    }
}

impl OwnedNotified {
    /// Simulated/own version of
    /// [`tokio::sync::futures::OwnedNotified::enable`](https://docs.rs/tokio/1/tokio/sync/futures/struct.OwnedNotified.html#method.enable):
    /// see [`Notified::enable`].
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub fn enable(self: Pin<&mut Self>) -> bool {
        self.project().inner.poll(None).is_ready()
    }
}

impl Future for OwnedNotified {
    type Output = ();

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        self.project().inner.poll(Some(cx))
    }
}
