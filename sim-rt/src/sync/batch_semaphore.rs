//! The fair, batch-acquiring semaphore under [`Semaphore`](super::Semaphore),
//! [`Mutex`](super::Mutex), [`RwLock`](super::RwLock) and the bounded
//! [`mpsc`](super::mpsc) channel, as in tokio.
//!
//! An acquisition takes all its permits at once when nobody waits and
//! enough are available. Otherwise it joins a FIFO queue, taking what is
//! available now; released permits go to the head of the queue first, and a
//! waiter at the head that needs more than is released keeps what it got
//! and blocks the ones behind it (so a writer asking for every permit of an
//! `RwLock` is not starved by readers asking for one).
//!
//! # Invariants
//!
//! - `permits == 0` whenever a waiter with permits still to get is queued:
//!   released permits are handed to the queue before they are counted.
//! - A waiter id is in at most one of `waiters` (still needs permits) and
//!   `granted` (has all of them, not yet polled).
//!
//! # Determinism
//!
//! Waiters are served in the order they first polled (ids from a counter),
//! and woken in that order.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Mutex as StdMutex;
use std::task::{ready, Context, Poll, Waker};

use super::util::{lock, register, WakeList};
use crate::task::coop;

/// Simulated/own version of
/// [`tokio::sync::TryAcquireError`](https://docs.rs/tokio/1/tokio/sync/enum.TryAcquireError.html):
/// why [`Semaphore::try_acquire`](super::Semaphore::try_acquire) failed.
///
/// # Differences from tokio
///
/// None.
#[derive(Debug, PartialEq, Eq)]
pub enum TryAcquireError {
    /// The semaphore has been [closed](super::Semaphore::close) and cannot
    /// issue new permits.
    Closed,
    /// The semaphore has no available permits.
    NoPermits,
}

impl TryAcquireError {
    /// Simulated/own version of
    /// [`tokio::sync::TryAcquireError::is_closed`](https://docs.rs/tokio/1/tokio/sync/enum.TryAcquireError.html#method.is_closed):
    /// whether this is [`Closed`](TryAcquireError::Closed).
    ///
    /// # Differences from tokio
    ///
    /// None.
    #[allow(dead_code)]
    pub(crate) fn is_closed(&self) -> bool {
        matches!(self, TryAcquireError::Closed)
    }

    /// Simulated/own version of
    /// [`tokio::sync::TryAcquireError::is_no_permits`](https://docs.rs/tokio/1/tokio/sync/enum.TryAcquireError.html#method.is_no_permits):
    /// whether this is [`NoPermits`](TryAcquireError::NoPermits).
    ///
    /// # Differences from tokio
    ///
    /// None.
    #[allow(dead_code)]
    pub(crate) fn is_no_permits(&self) -> bool {
        matches!(self, TryAcquireError::NoPermits)
    }
}

impl fmt::Display for TryAcquireError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TryAcquireError::Closed => write!(f, "semaphore closed"),
            TryAcquireError::NoPermits => write!(f, "no permits available"),
        }
    }
}

impl std::error::Error for TryAcquireError {}

/// Simulated/own version of
/// [`tokio::sync::AcquireError`](https://docs.rs/tokio/1/tokio/sync/struct.AcquireError.html):
/// the semaphore was [closed](super::Semaphore::close).
///
/// # Differences from tokio
///
/// None.
#[derive(Debug)]
pub struct AcquireError(());

impl AcquireError {
    pub(crate) fn closed() -> AcquireError {
        AcquireError(())
    }
}

impl fmt::Display for AcquireError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "semaphore closed")
    }
}

impl std::error::Error for AcquireError {}

/// The semaphore proper.
pub(crate) struct Sem {
    st: StdMutex<State>,
}

struct State {
    permits: usize,
    closed: bool,
    next_id: u64,
    /// Queued waiters, oldest first.
    waiters: BTreeMap<u64, Waiting>,
    /// Waiters that got all their permits and were woken.
    granted: BTreeSet<u64>,
}

struct Waiting {
    /// Permits still to get.
    needed: usize,
    waker: Option<Waker>,
}

impl Sem {
    pub(crate) const MAX_PERMITS: usize = usize::MAX >> 3;

    pub(crate) fn new(permits: usize) -> Sem {
        assert!(
            permits <= Self::MAX_PERMITS,
            "a semaphore may not have more than MAX_PERMITS permits ({})",
            Self::MAX_PERMITS
        );
        Sem::const_new(permits)
    }

    pub(crate) const fn const_new(permits: usize) -> Sem {
        assert!(permits <= Self::MAX_PERMITS);
        Sem {
            st: StdMutex::new(State {
                permits,
                closed: false,
                next_id: 0,
                waiters: BTreeMap::new(),
                granted: BTreeSet::new(),
            }),
        }
    }

    pub(crate) const fn const_new_closed() -> Sem {
        Sem {
            st: StdMutex::new(State {
                permits: 0,
                closed: true,
                next_id: 0,
                waiters: BTreeMap::new(),
                granted: BTreeSet::new(),
            }),
        }
    }

    pub(crate) fn available_permits(&self) -> usize {
        lock(&self.st).permits
    }

    pub(crate) fn is_closed(&self) -> bool {
        lock(&self.st).closed
    }

    /// Closes the semaphore and wakes every queued waiter (oldest first);
    /// they complete with [`AcquireError`].
    pub(crate) fn close(&self) {
        let mut wakers = WakeList::new();
        let mut st = lock(&self.st);
        st.closed = true;
        for w in st.waiters.values_mut() {
            wakers.push(w.waker.take());
        }
        drop(st);
        wakers.wake_all();
    }

    pub(crate) fn try_acquire(&self, n: usize) -> Result<(), TryAcquireError> {
        assert!(
            n <= Self::MAX_PERMITS,
            "a semaphore may not have more than MAX_PERMITS permits ({})",
            Self::MAX_PERMITS
        );
        let mut st = lock(&self.st);
        if st.closed {
            return Err(TryAcquireError::Closed);
        }
        if st.permits < n {
            return Err(TryAcquireError::NoPermits);
        }
        st.permits -= n;
        Ok(())
    }

    /// Gives `n` permits back: to the queue first, oldest waiter first.
    pub(crate) fn release(&self, n: usize) {
        if n == 0 {
            return;
        }
        let mut wakers = WakeList::new();
        let mut st = lock(&self.st);
        st.release_locked(n, &mut wakers);
        drop(st);
        wakers.wake_all();
    }

    pub(crate) fn forget_permits(&self, n: usize) -> usize {
        let mut st = lock(&self.st);
        let taken = st.permits.min(n);
        st.permits -= taken;
        taken
    }

    pub(crate) fn acquire(&self, n: usize) -> Acquire<'_> {
        assert!(
            n <= Self::MAX_PERMITS,
            "a semaphore may not have more than MAX_PERMITS permits ({})",
            Self::MAX_PERMITS
        );
        Acquire {
            sem: self,
            n,
            state: AcqState::Init,
        }
    }

    /// The polling logic of [`Acquire`], usable by futures that hold the
    /// semaphore by `Arc` (`AcqState` is the part that must persist).
    pub(crate) fn poll_acquire(
        &self,
        n: usize,
        state: &mut AcqState,
        cx: &mut Context<'_>,
    ) -> Poll<Result<(), AcquireError>> {
        let mut st = lock(&self.st);
        if st.closed {
            // As tokio: a closed semaphore fails every poll, even of an
            // acquisition that was already assigned its permits (queued and
            // granted, or held back by a spent budget); they are given back.
            let (back, removed) = match *state {
                AcqState::Init => (0, None),
                AcqState::Queued(id) => match st.waiters.remove(&id) {
                    Some(w) => (n - w.needed, Some(w)),
                    None => {
                        let was = st.granted.remove(&id);
                        debug_assert!(was, "a queued acquire is queued or granted");
                        (n, None)
                    }
                },
                AcqState::Held => (n, None),
                AcqState::Done => panic!("`Acquire` polled after completion"),
            };
            st.permits += back;
            *state = AcqState::Done;
            drop(st);
            drop(removed); // its waker, outside the lock
            return Poll::Ready(Err(AcquireError::closed()));
        }
        match *state {
            AcqState::Init => {
                if st.waiters.is_empty() && st.permits >= n {
                    st.permits -= n;
                    *state = AcqState::Held;
                } else {
                    let take = if st.waiters.is_empty() { st.permits } else { 0 };
                    st.permits -= take;
                    let id = st.next_id;
                    st.next_id += 1;
                    st.waiters.insert(
                        id,
                        Waiting {
                            needed: n - take,
                            waker: Some(cx.waker().clone()),
                        },
                    );
                    *state = AcqState::Queued(id);
                    return Poll::Pending;
                }
            }
            AcqState::Queued(id) => {
                if st.granted.remove(&id) {
                    *state = AcqState::Held;
                } else {
                    let w = st.waiters.get_mut(&id).expect("a queued acquire is queued");
                    let replaced = register(&mut w.waker, cx);
                    drop(st);
                    drop(replaced);
                    return Poll::Pending;
                }
            }
            AcqState::Held => {}
            AcqState::Done => panic!("`Acquire` polled after completion"),
        }
        drop(st);
        // Like tokio: the permits are taken before the budget is checked; a
        // spent budget keeps them in the future until the next poll.
        let restore = ready!(coop::poll_proceed(cx));
        restore.made_progress();
        *state = AcqState::Done;
        Poll::Ready(Ok(()))
    }

    /// Cancels an acquisition in `state`, giving back its permits.
    pub(crate) fn cancel(&self, n: usize, state: &AcqState) {
        let back = match *state {
            AcqState::Init | AcqState::Done => return,
            AcqState::Held => n,
            AcqState::Queued(id) => {
                let mut st = lock(&self.st);
                let removed = st.waiters.remove(&id);
                let back = match &removed {
                    Some(w) => n - w.needed,
                    None => {
                        let was = st.granted.remove(&id);
                        debug_assert!(was, "a queued acquire is queued or granted");
                        n
                    }
                };
                drop(st);
                drop(removed); // its waker, outside the lock
                back
            }
        };
        self.release(back);
    }
}

impl State {
    fn release_locked(&mut self, mut n: usize, wakers: &mut WakeList) {
        if !self.closed {
            while n > 0 {
                let Some(mut entry) = self.waiters.first_entry() else {
                    break;
                };
                let w = entry.get_mut();
                let give = w.needed.min(n);
                w.needed -= give;
                n -= give;
                if w.needed > 0 {
                    break;
                }
                let (id, w) = entry.remove_entry();
                self.granted.insert(id);
                wakers.push(w.waker);
            }
        }
        if n > 0 {
            assert!(
                n <= Sem::MAX_PERMITS,
                "cannot add more than MAX_PERMITS permits ({})",
                Sem::MAX_PERMITS
            );
            assert!(
                self.permits + n <= Sem::MAX_PERMITS,
                "number of added permits ({}) would overflow MAX_PERMITS ({})",
                n,
                Sem::MAX_PERMITS
            );
            self.permits += n;
        }
        debug_assert!(
            self.closed || self.waiters.is_empty() || self.permits == 0,
            "permits are only counted while no waiter needs them"
        );
    }
}

impl fmt::Debug for Sem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Semaphore")
            .field("permits", &self.available_permits())
            .finish()
    }
}

/// Where an acquisition is.
#[derive(Debug, Clone, Copy)]
pub(crate) enum AcqState {
    /// Not polled yet.
    Init,
    /// Queued under this id.
    Queued(u64),
    /// Has its permits, not handed out yet (budget spent).
    Held,
    /// Completed: the permits (if any) belong to the caller.
    Done,
}

/// Acquires `n` permits of a [`Sem`].
#[derive(Debug)]
pub(crate) struct Acquire<'a> {
    sem: &'a Sem,
    n: usize,
    state: AcqState,
}

impl Future for Acquire<'_> {
    type Output = Result<(), AcquireError>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let me = &mut *self;
        me.sem.poll_acquire(me.n, &mut me.state, cx)
    }
}

impl Drop for Acquire<'_> {
    fn drop(&mut self) {
        self.sem.cancel(self.n, &self.state);
    }
}
