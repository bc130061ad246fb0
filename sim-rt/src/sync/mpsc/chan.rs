//! The channel shared by the bounded and the unbounded `mpsc` handles.
//!
//! # Invariants
//!
//! - Bounded: every message in `queue` holds one permit of `sem`, given back
//!   when the message is received (or dropped with the receiver); a
//!   `Permit` holds one that has no message yet. So the channel is *idle*
//!   (no message can still arrive through a permit) exactly when all
//!   `bound` permits are available.
//! - Unbounded: there is no semaphore; `rx_closed` alone refuses sends.
//! - No message and no waker is dropped while `st` is locked (a message's
//!   or a waker's `Drop` may use this channel).
//!
//! # Determinism
//!
//! Senders waiting for capacity are served in the order of their first
//! poll (the fair semaphore); the receiver is one task.

use std::collections::VecDeque;
use std::fmt;
use std::sync::{Arc, Mutex as StdMutex};
use std::task::{ready, Context, Poll, Waker};

use crate::sync::batch_semaphore::{AcquireError, Sem};
use crate::sync::notify::Notify;
use crate::sync::util::{lock, register};
use crate::task::coop;

pub(super) struct Chan<T> {
    st: StdMutex<State<T>>,
    /// `Some((semaphore, bound))` for a bounded channel.
    pub(super) bounded: Option<(Sem, usize)>,
    notify_rx_closed: Notify,
}

struct State<T> {
    queue: VecDeque<T>,
    rx_waker: Option<Waker>,
    tx_count: usize,
    tx_weak_count: usize,
    rx_closed: bool,
}

/// A new channel's first sender and its receiver.
pub(super) fn handles<T>(bound: Option<usize>) -> (Tx<T>, Rx<T>) {
    let chan = channel(bound);
    (Tx::new(chan.clone()), Rx { chan })
}

pub(super) fn channel<T>(bound: Option<usize>) -> Arc<Chan<T>> {
    Arc::new(Chan {
        st: StdMutex::new(State {
            queue: VecDeque::new(),
            rx_waker: None,
            tx_count: 1,
            tx_weak_count: 0,
            rx_closed: false,
        }),
        bounded: bound.map(|b| (Sem::new(b), b)),
        notify_rx_closed: Notify::new(),
    })
}

impl<T> fmt::Debug for Chan<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let st = lock(&self.st);
        let mut d = f.debug_struct("Chan");
        d.field("len", &st.queue.len())
            .field("tx_count", &st.tx_count)
            .field("rx_closed", &st.rx_closed);
        if let Some((sem, bound)) = &self.bounded {
            d.field("semaphore", sem).field("bound", bound);
        }
        d.finish()
    }
}

impl<T> Chan<T> {
    // ----- senders -----

    pub(super) fn inc_tx(&self) {
        lock(&self.st).tx_count += 1;
    }

    /// Drops a sender; the last one wakes the receiver so that it sees the
    /// end of the channel.
    pub(super) fn dec_tx(&self) {
        let mut st = lock(&self.st);
        st.tx_count -= 1;
        let waker = if st.tx_count == 0 {
            st.rx_waker.take()
        } else {
            None
        };
        drop(st);
        if let Some(w) = waker {
            w.wake();
        }
    }

    pub(super) fn inc_weak(&self) {
        lock(&self.st).tx_weak_count += 1;
    }

    pub(super) fn dec_weak(&self) {
        lock(&self.st).tx_weak_count -= 1;
    }

    /// A new sender if one still exists.
    pub(super) fn upgrade(&self) -> bool {
        let mut st = lock(&self.st);
        if st.tx_count == 0 {
            return false;
        }
        st.tx_count += 1;
        true
    }

    pub(super) fn strong_count(&self) -> usize {
        lock(&self.st).tx_count
    }

    pub(super) fn weak_count(&self) -> usize {
        lock(&self.st).tx_weak_count
    }

    /// Whether the receiver closed or dropped (senders' view).
    pub(super) fn is_closed(&self) -> bool {
        match &self.bounded {
            Some((sem, _)) => sem.is_closed(),
            None => lock(&self.st).rx_closed,
        }
    }

    pub(super) async fn closed(&self) {
        let notified = self.notify_rx_closed.notified();
        if self.is_closed() {
            return;
        }
        notified.await;
    }

    /// Pushes a message; the caller holds a permit for it (bounded) or
    /// checked `rx_closed` (unbounded).
    pub(super) fn push(&self, value: T) {
        let mut st = lock(&self.st);
        st.queue.push_back(value);
        let waker = st.rx_waker.take();
        drop(st);
        if let Some(w) = waker {
            w.wake();
        }
    }

    /// Unbounded send: refused once the receiver closed.
    pub(super) fn push_unbounded(&self, value: T) -> Result<(), T> {
        let mut st = lock(&self.st);
        if st.rx_closed {
            drop(st);
            return Err(value);
        }
        st.queue.push_back(value);
        let waker = st.rx_waker.take();
        drop(st);
        if let Some(w) = waker {
            w.wake();
        }
        Ok(())
    }

    pub(super) fn sem(&self) -> &Sem {
        &self.bounded.as_ref().expect("a bounded channel").0
    }

    pub(super) fn bound(&self) -> usize {
        self.bounded.as_ref().expect("a bounded channel").1
    }

    /// Reserves `n` permits, waiting for them.
    pub(super) async fn reserve(&self, n: usize) -> Result<(), AcquireError> {
        // A reservation cancelled (or failed) while holding part of its
        // permits gives them back through the semaphore alone: wake the
        // receiver then too, in case that made a closed channel idle.
        struct WakeRxOnDrop<'a, T>(&'a Chan<T>);
        impl<T> Drop for WakeRxOnDrop<'_, T> {
            fn drop(&mut self) {
                self.0.release(0);
            }
        }
        let guard = WakeRxOnDrop(self);
        let res = self.sem().acquire(n).await;
        if res.is_ok() {
            std::mem::forget(guard);
        }
        res
    }

    /// Gives `n` unused permits back; wakes the receiver if the channel is
    /// now closed and idle, so that it sees the end.
    pub(super) fn release(&self, n: usize) {
        let sem = self.sem();
        sem.release(n);
        if sem.is_closed() && sem.available_permits() == self.bound() {
            let waker = lock(&self.st).rx_waker.take();
            if let Some(w) = waker {
                w.wake();
            }
        }
    }

    // ----- receiver -----

    pub(super) fn close(&self) {
        let mut st = lock(&self.st);
        if st.rx_closed {
            return;
        }
        st.rx_closed = true;
        drop(st);
        if let Some((sem, _)) = &self.bounded {
            sem.close();
        }
        self.notify_rx_closed.notify_waiters();
    }

    /// Whether no message can arrive any more once the queue is empty.
    fn is_done(&self, st: &State<T>) -> bool {
        if st.tx_count == 0 {
            return true;
        }
        st.rx_closed
            && match &self.bounded {
                Some((sem, bound)) => sem.available_permits() == *bound,
                None => true,
            }
    }

    /// Gives back the permits of `n` received messages.
    fn received(&self, n: usize) {
        if n > 0 {
            if let Some((sem, _)) = &self.bounded {
                sem.release(n);
            }
        }
    }

    pub(super) fn recv(&self, cx: &mut Context<'_>) -> Poll<Option<T>> {
        let coop = ready!(coop::poll_proceed(cx));
        let mut st = lock(&self.st);
        if let Some(v) = st.queue.pop_front() {
            drop(st);
            self.received(1);
            coop.made_progress();
            return Poll::Ready(Some(v));
        }
        if self.is_done(&st) {
            coop.made_progress();
            return Poll::Ready(None);
        }
        let replaced = register(&mut st.rx_waker, cx);
        drop(st);
        drop(replaced);
        Poll::Pending
    }

    pub(super) fn recv_many(
        &self,
        cx: &mut Context<'_>,
        buffer: &mut Vec<T>,
        limit: usize,
    ) -> Poll<usize> {
        let coop = ready!(coop::poll_proceed(cx));
        if limit == 0 {
            coop.made_progress();
            return Poll::Ready(0);
        }
        let mut st = lock(&self.st);
        if !st.queue.is_empty() {
            let n = limit.min(st.queue.len());
            buffer.extend(st.queue.drain(..n));
            drop(st);
            self.received(n);
            coop.made_progress();
            return Poll::Ready(n);
        }
        if self.is_done(&st) {
            coop.made_progress();
            return Poll::Ready(0);
        }
        let replaced = register(&mut st.rx_waker, cx);
        drop(st);
        drop(replaced);
        Poll::Pending
    }

    /// `Ok(value)`, or `Err(true)` when the channel is done (disconnected),
    /// `Err(false)` when empty.
    pub(super) fn try_recv(&self) -> Result<T, bool> {
        let mut st = lock(&self.st);
        if let Some(v) = st.queue.pop_front() {
            drop(st);
            self.received(1);
            return Ok(v);
        }
        Err(self.is_done(&st))
    }

    pub(super) fn rx_is_closed(&self) -> bool {
        let st = lock(&self.st);
        st.rx_closed || st.tx_count == 0
    }

    pub(super) fn len(&self) -> usize {
        lock(&self.st).queue.len()
    }

    /// The receiver is dropped: close, release its waker (as tokio does, so
    /// that whatever the waker keeps alive is freed now, not with the last
    /// sender), and drop the queued messages, giving their permits back;
    /// the waker and the messages are dropped outside the lock.
    pub(super) fn drop_rx(&self) {
        self.close();
        let (drained, waker) = {
            let mut st = lock(&self.st);
            let drained: Vec<T> = st.queue.drain(..).collect();
            (drained, st.rx_waker.take())
        };
        self.received(drained.len());
        drop(waker);
        drop(drained);
    }
}

/// A strong sender's hold on the channel (counts in `tx_count`).
pub(super) struct Tx<T> {
    pub(super) chan: Arc<Chan<T>>,
}

impl<T> Tx<T> {
    pub(super) fn new(chan: Arc<Chan<T>>) -> Tx<T> {
        Tx { chan }
    }

    pub(super) fn same_channel(&self, other: &Tx<T>) -> bool {
        Arc::ptr_eq(&self.chan, &other.chan)
    }
}

/// Writes the `Clone` (one more hold), `Drop` (one fewer) and `Debug` (the
/// channel's) of a sender's counted hold.
macro_rules! counted_hold {
    ($hold:ident, $inc:ident, $dec:ident) => {
        impl<T> Clone for $hold<T> {
            fn clone(&self) -> $hold<T> {
                self.chan.$inc();
                $hold {
                    chan: self.chan.clone(),
                }
            }
        }

        impl<T> Drop for $hold<T> {
            fn drop(&mut self) {
                self.chan.$dec();
            }
        }

        impl<T> fmt::Debug for $hold<T> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                fmt::Debug::fmt(&*self.chan, f)
            }
        }
    };
}

counted_hold!(Tx, inc_tx, dec_tx);

/// A weak sender's hold (counts in `tx_weak_count`).
pub(super) struct WeakTx<T> {
    pub(super) chan: Arc<Chan<T>>,
}

impl<T> WeakTx<T> {
    pub(super) fn new(tx: &Tx<T>) -> WeakTx<T> {
        tx.chan.inc_weak();
        WeakTx {
            chan: tx.chan.clone(),
        }
    }

    pub(super) fn upgrade(&self) -> Option<Tx<T>> {
        self.chan.upgrade().then(|| Tx {
            chan: self.chan.clone(),
        })
    }
}

counted_hold!(WeakTx, inc_weak, dec_weak);

/// The receiver's hold: closes and drains the channel on drop.
pub(super) struct Rx<T> {
    pub(super) chan: Arc<Chan<T>>,
}

impl<T> Drop for Rx<T> {
    fn drop(&mut self) {
        self.chan.drop_rx();
    }
}

impl<T> fmt::Debug for Rx<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&*self.chan, f)
    }
}
