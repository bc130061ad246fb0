//! Simulated/own version of
//! [`tokio::sync::broadcast`](https://docs.rs/tokio/1/tokio/sync/broadcast/index.html):
//! a multi-producer, multi-consumer channel where every receiver sees every
//! value, with tokio's lag semantics.
//!
//! The buffer is a ring of `capacity.next_power_of_two()` slots, as in
//! tokio. Each slot remembers the position it was written at and how many
//! receivers still have to read it; a receiver whose next position was
//! overwritten gets [`RecvError::Lagged`] with
//! the number of values it missed, and continues from the oldest value
//! still buffered.
//!
//! # Invariants
//!
//! - Slot `i` holds position `pos` with `pos & mask == i`; positions below
//!   `tail.pos - capacity` are gone.
//! - `slot.rem` counts the receivers that have not read `slot.pos` yet;
//!   the value is dropped when it reaches 0.
//! - No value and no waker is dropped while `tail` is locked (a `Drop` may
//!   use the channel).
//!
//! # Determinism
//!
//! A send wakes the receivers waiting for a value in the order they started
//! waiting (ids from a counter in a `BTreeMap`).

use std::collections::BTreeMap;
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex as StdMutex};
use std::task::{Context, Poll, Waker};

use super::notify::Notify;
use super::util::{block_on, lock, WakeList};

pub mod error {
    //! Simulated/own version of
    //! [`tokio::sync::broadcast::error`](https://docs.rs/tokio/1/tokio/sync/broadcast/error/index.html):
    //! broadcast error types.

    use std::fmt;

    /// Simulated/own version of
    /// [`tokio::sync::broadcast::error::SendError`](https://docs.rs/tokio/1/tokio/sync/broadcast/error/struct.SendError.html):
    /// there is no receiver; the value comes back.
    ///
    /// # Differences from tokio
    ///
    /// None.
    #[derive(Debug)]
    pub struct SendError<T>(pub T);

    impl<T> fmt::Display for SendError<T> {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            write!(f, "channel closed")
        }
    }

    impl<T: fmt::Debug> std::error::Error for SendError<T> {}

    /// Simulated/own version of
    /// [`tokio::sync::broadcast::error::RecvError`](https://docs.rs/tokio/1/tokio/sync/broadcast/error/enum.RecvError.html):
    /// why `recv` returned no value.
    ///
    /// # Differences from tokio
    ///
    /// None.
    #[derive(Debug, PartialEq, Eq, Clone)]
    pub enum RecvError {
        /// Every sender is gone and every value was received.
        Closed,
        /// The receiver lagged behind: this many values were overwritten
        /// before it read them.
        Lagged(u64),
    }

    impl fmt::Display for RecvError {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            match self {
                RecvError::Closed => write!(f, "channel closed"),
                RecvError::Lagged(amt) => write!(f, "channel lagged by {amt}"),
            }
        }
    }

    impl std::error::Error for RecvError {}

    /// Simulated/own version of
    /// [`tokio::sync::broadcast::error::TryRecvError`](https://docs.rs/tokio/1/tokio/sync/broadcast/error/enum.TryRecvError.html):
    /// why `try_recv` returned no value.
    ///
    /// # Differences from tokio
    ///
    /// None.
    #[derive(Debug, PartialEq, Eq, Clone)]
    pub enum TryRecvError {
        /// No value is available now.
        Empty,
        /// Every sender is gone and every value was received.
        Closed,
        /// The receiver lagged behind by this many values.
        Lagged(u64),
    }

    impl fmt::Display for TryRecvError {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            match self {
                TryRecvError::Empty => write!(f, "channel empty"),
                TryRecvError::Closed => write!(f, "channel closed"),
                TryRecvError::Lagged(amt) => write!(f, "channel lagged by {amt}"),
            }
        }
    }

    impl std::error::Error for TryRecvError {}
}

use self::error::{RecvError, SendError, TryRecvError};

const MAX_RECEIVERS: usize = usize::MAX >> 2;

struct Shared<T> {
    tail: StdMutex<Tail<T>>,
    mask: usize,
    notify_last_rx_drop: Notify,
}

struct Tail<T> {
    /// The position the next value is written at.
    pos: u64,
    rx_cnt: usize,
    /// Every sender is gone, or every receiver.
    closed: bool,
    num_tx: usize,
    num_weak_tx: usize,
    buffer: Vec<Slot<T>>,
    next_waiter: u64,
    /// Receivers waiting for a value, oldest first.
    waiters: BTreeMap<u64, Waker>,
}

struct Slot<T> {
    rem: usize,
    pos: u64,
    val: Option<T>,
}

/// Simulated/own version of
/// [`tokio::sync::broadcast::Sender`](https://docs.rs/tokio/1/tokio/sync/broadcast/struct.Sender.html):
/// sends values to every receiver; cloneable.
///
/// # Differences from tokio
///
/// None.
pub struct Sender<T> {
    shared: Arc<Shared<T>>,
}

/// Simulated/own version of
/// [`tokio::sync::broadcast::WeakSender`](https://docs.rs/tokio/1/tokio/sync/broadcast/struct.WeakSender.html):
/// a sender that does not keep the channel open.
///
/// # Differences from tokio
///
/// None.
pub struct WeakSender<T> {
    shared: Arc<Shared<T>>,
}

/// Simulated/own version of
/// [`tokio::sync::broadcast::Receiver`](https://docs.rs/tokio/1/tokio/sync/broadcast/struct.Receiver.html):
/// receives every value sent after it subscribed.
///
/// # Differences from tokio
///
/// None.
pub struct Receiver<T> {
    shared: Arc<Shared<T>>,
    /// The position of the next value to read.
    next: u64,
}

/// Simulated/own version of
/// [`tokio::sync::broadcast::channel`](https://docs.rs/tokio/1/tokio/sync/broadcast/fn.channel.html):
/// a channel buffering `capacity` values (rounded up to a power of two) and
/// its first receiver.
///
/// # Panics
///
/// When `capacity` is 0 or more than `usize::MAX / 2`.
///
/// # Examples
///
/// ```
/// # sim_rt::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
/// use sim_rt::sync::broadcast;
///
/// let (tx, mut rx1) = broadcast::channel(16);
/// let mut rx2 = tx.subscribe();
/// tx.send(10).unwrap();
/// assert_eq!(rx1.recv().await.unwrap(), 10);
/// assert_eq!(rx2.recv().await.unwrap(), 10);
/// # });
/// ```
///
/// # Differences from tokio
///
/// None.
#[track_caller]
pub fn channel<T: Clone>(capacity: usize) -> (Sender<T>, Receiver<T>) {
    let tx = Sender::with_receivers(1, capacity);
    let rx = Receiver {
        shared: tx.shared.clone(),
        next: 0,
    };
    (tx, rx)
}

impl<T> Sender<T> {
    /// Simulated/own version of
    /// [`tokio::sync::broadcast::Sender::new`](https://docs.rs/tokio/1/tokio/sync/broadcast/struct.Sender.html#method.new):
    /// a channel without receivers (see [`subscribe`](Sender::subscribe)).
    ///
    /// # Panics
    ///
    /// As [`channel`].
    ///
    /// # Differences from tokio
    ///
    /// None.
    #[track_caller]
    pub fn new(capacity: usize) -> Self {
        Sender::with_receivers(0, capacity)
    }

    #[track_caller]
    fn with_receivers(receiver_count: usize, capacity: usize) -> Self {
        assert!(capacity > 0, "broadcast channel capacity cannot be zero");
        assert!(
            capacity <= usize::MAX >> 1,
            "broadcast channel capacity exceeded `usize::MAX / 2`"
        );
        let capacity = capacity.next_power_of_two();
        let buffer = (0..capacity)
            .map(|i| Slot {
                rem: 0,
                pos: (i as u64).wrapping_sub(capacity as u64),
                val: None,
            })
            .collect();
        Sender {
            shared: Arc::new(Shared {
                tail: StdMutex::new(Tail {
                    pos: 0,
                    rx_cnt: receiver_count,
                    closed: receiver_count == 0,
                    num_tx: 1,
                    num_weak_tx: 0,
                    buffer,
                    next_waiter: 0,
                    waiters: BTreeMap::new(),
                }),
                mask: capacity - 1,
                notify_last_rx_drop: Notify::new(),
            }),
        }
    }

    /// Simulated/own version of
    /// [`tokio::sync::broadcast::Sender::send`](https://docs.rs/tokio/1/tokio/sync/broadcast/struct.Sender.html#method.send):
    /// sends to every current receiver, returning how many there are;
    /// overwrites the oldest value when the buffer is full.
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub fn send(&self, value: T) -> Result<usize, SendError<T>> {
        let mut tail = lock(&self.shared.tail);
        if tail.rx_cnt == 0 {
            drop(tail);
            return Err(SendError(value));
        }
        let pos = tail.pos;
        let rem = tail.rx_cnt;
        let idx = (pos & self.shared.mask as u64) as usize;
        tail.pos = tail.pos.wrapping_add(1);
        let slot = &mut tail.buffer[idx];
        slot.pos = pos;
        slot.rem = rem;
        let old = slot.val.replace(value);
        let wakers = take_waiters(&mut tail);
        drop(tail);
        drop(old);
        wakers.wake_all();
        Ok(rem)
    }

    /// Simulated/own version of
    /// [`tokio::sync::broadcast::Sender::subscribe`](https://docs.rs/tokio/1/tokio/sync/broadcast/struct.Sender.html#method.subscribe):
    /// a receiver of the values sent from now on.
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub fn subscribe(&self) -> Receiver<T> {
        new_receiver(self.shared.clone())
    }

    /// Simulated/own version of
    /// [`tokio::sync::broadcast::Sender::downgrade`](https://docs.rs/tokio/1/tokio/sync/broadcast/struct.Sender.html#method.downgrade):
    /// a [`WeakSender`] for this channel.
    ///
    /// # Differences from tokio
    ///
    /// None.
    #[must_use = "Downgrade creates a WeakSender without destroying the original non-weak sender."]
    pub fn downgrade(&self) -> WeakSender<T> {
        lock(&self.shared.tail).num_weak_tx += 1;
        WeakSender {
            shared: self.shared.clone(),
        }
    }

    /// Simulated/own version of
    /// [`tokio::sync::broadcast::Sender::len`](https://docs.rs/tokio/1/tokio/sync/broadcast/struct.Sender.html#method.len):
    /// the number of buffered values some receiver has not read yet.
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub fn len(&self) -> usize {
        let tail = lock(&self.shared.tail);
        let cap = tail.buffer.len();
        let base = (tail.pos & self.shared.mask as u64) as usize;
        // From the oldest slot on, the first one still to be read by someone.
        let read = (0..cap)
            .position(|i| tail.buffer[(base + i) & self.shared.mask].rem != 0)
            .unwrap_or(cap);
        cap - read
    }

    /// Simulated/own version of
    /// [`tokio::sync::broadcast::Sender::is_empty`](https://docs.rs/tokio/1/tokio/sync/broadcast/struct.Sender.html#method.is_empty):
    /// whether every buffered value was read by every receiver.
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Simulated/own version of
    /// [`tokio::sync::broadcast::Sender::receiver_count`](https://docs.rs/tokio/1/tokio/sync/broadcast/struct.Sender.html#method.receiver_count):
    /// the number of receivers.
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub fn receiver_count(&self) -> usize {
        lock(&self.shared.tail).rx_cnt
    }

    /// Simulated/own version of
    /// [`tokio::sync::broadcast::Sender::same_channel`](https://docs.rs/tokio/1/tokio/sync/broadcast/struct.Sender.html#method.same_channel):
    /// whether both senders belong to one channel.
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub fn same_channel(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.shared, &other.shared)
    }

    /// Simulated/own version of
    /// [`tokio::sync::broadcast::Sender::closed`](https://docs.rs/tokio/1/tokio/sync/broadcast/struct.Sender.html#method.closed):
    /// completes once there is no receiver.
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub async fn closed(&self) {
        loop {
            let notified = self.shared.notify_last_rx_drop.notified();
            if lock(&self.shared.tail).closed {
                return;
            }
            notified.await;
        }
    }

    /// Simulated/own version of
    /// [`tokio::sync::broadcast::Sender::strong_count`](https://docs.rs/tokio/1/tokio/sync/broadcast/struct.Sender.html#method.strong_count):
    /// the number of [`Sender`]s.
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub fn strong_count(&self) -> usize {
        lock(&self.shared.tail).num_tx
    }

    /// Simulated/own version of
    /// [`tokio::sync::broadcast::Sender::weak_count`](https://docs.rs/tokio/1/tokio/sync/broadcast/struct.Sender.html#method.weak_count):
    /// the number of [`WeakSender`]s.
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub fn weak_count(&self) -> usize {
        lock(&self.shared.tail).num_weak_tx
    }
}

/// Takes every waiting receiver's waker, oldest first.
fn take_waiters<T>(tail: &mut Tail<T>) -> WakeList {
    let mut wakers = WakeList::new();
    for (_, w) in std::mem::take(&mut tail.waiters) {
        wakers.push(Some(w));
    }
    wakers
}

fn new_receiver<T>(shared: Arc<Shared<T>>) -> Receiver<T> {
    let mut tail = lock(&shared.tail);
    assert!(tail.rx_cnt != MAX_RECEIVERS, "max receivers");
    if tail.rx_cnt == 0 {
        // Re-open a channel whose receivers were all dropped.
        tail.closed = false;
    }
    tail.rx_cnt = tail.rx_cnt.checked_add(1).expect("overflow");
    let next = tail.pos;
    drop(tail);
    Receiver { shared, next }
}

impl<T> Clone for Sender<T> {
    fn clone(&self) -> Sender<T> {
        lock(&self.shared.tail).num_tx += 1;
        Sender {
            shared: self.shared.clone(),
        }
    }
}

impl<T> Drop for Sender<T> {
    fn drop(&mut self) {
        let mut tail = lock(&self.shared.tail);
        tail.num_tx -= 1;
        if tail.num_tx == 0 {
            tail.closed = true;
            let wakers = take_waiters(&mut tail);
            drop(tail);
            wakers.wake_all();
        }
    }
}

impl<T> WeakSender<T> {
    /// Simulated/own version of
    /// [`tokio::sync::broadcast::WeakSender::upgrade`](https://docs.rs/tokio/1/tokio/sync/broadcast/struct.WeakSender.html#method.upgrade):
    /// a [`Sender`], if one still exists.
    ///
    /// # Differences from tokio
    ///
    /// None.
    #[must_use]
    pub fn upgrade(&self) -> Option<Sender<T>> {
        let mut tail = lock(&self.shared.tail);
        if tail.num_tx == 0 {
            return None;
        }
        tail.num_tx += 1;
        Some(Sender {
            shared: self.shared.clone(),
        })
    }

    /// Simulated/own version of
    /// [`tokio::sync::broadcast::WeakSender::strong_count`](https://docs.rs/tokio/1/tokio/sync/broadcast/struct.WeakSender.html#method.strong_count):
    /// the number of [`Sender`]s.
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub fn strong_count(&self) -> usize {
        lock(&self.shared.tail).num_tx
    }

    /// Simulated/own version of
    /// [`tokio::sync::broadcast::WeakSender::weak_count`](https://docs.rs/tokio/1/tokio/sync/broadcast/struct.WeakSender.html#method.weak_count):
    /// the number of [`WeakSender`]s.
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub fn weak_count(&self) -> usize {
        lock(&self.shared.tail).num_weak_tx
    }
}

impl<T> Clone for WeakSender<T> {
    fn clone(&self) -> WeakSender<T> {
        lock(&self.shared.tail).num_weak_tx += 1;
        WeakSender {
            shared: self.shared.clone(),
        }
    }
}

impl<T> Drop for WeakSender<T> {
    fn drop(&mut self) {
        lock(&self.shared.tail).num_weak_tx -= 1;
    }
}

/// What reading the next position gave.
enum Read<T> {
    /// The value (cloned when a clone function was given), and the stored
    /// value to drop after
    /// unlocking when this was its last reader.
    Value(Option<T>, Option<T>),
    Empty,
    Closed,
    Lagged(u64),
}

impl<T> Receiver<T> {
    /// Reads position `self.next` under the lock.
    fn read(&mut self, tail: &mut Tail<T>, clone: Option<fn(&T) -> T>) -> Read<T> {
        let cap = tail.buffer.len() as u64;
        let idx = (self.next & self.shared.mask as u64) as usize;
        if tail.buffer[idx].pos != self.next {
            if tail.buffer[idx].pos.wrapping_add(cap) == self.next {
                // Nothing new for this receiver.
                if tail.closed {
                    return Read::Closed;
                }
                return Read::Empty;
            }
            // Overwritten: skip to the oldest value still buffered.
            let oldest = tail.pos.wrapping_sub(cap);
            let missed = oldest.wrapping_sub(self.next);
            self.next = oldest;
            if missed != 0 {
                return Read::Lagged(missed);
            }
            return self.read(tail, clone);
        }
        self.next = self.next.wrapping_add(1);
        let slot = &mut tail.buffer[idx];
        let value = clone.and_then(|clone| slot.val.as_ref().map(clone));
        slot.rem -= 1;
        let last = if slot.rem == 0 { slot.val.take() } else { None };
        Read::Value(value, last)
    }

    /// Simulated/own version of
    /// [`tokio::sync::broadcast::Receiver::len`](https://docs.rs/tokio/1/tokio/sync/broadcast/struct.Receiver.html#method.len):
    /// the number of values sent that this receiver has not read (lagged
    /// ones included).
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub fn len(&self) -> usize {
        let next_send_pos = lock(&self.shared.tail).pos;
        (next_send_pos - self.next) as usize
    }

    /// Simulated/own version of
    /// [`tokio::sync::broadcast::Receiver::is_empty`](https://docs.rs/tokio/1/tokio/sync/broadcast/struct.Receiver.html#method.is_empty):
    /// whether this receiver has read every value sent.
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Simulated/own version of
    /// [`tokio::sync::broadcast::Receiver::same_channel`](https://docs.rs/tokio/1/tokio/sync/broadcast/struct.Receiver.html#method.same_channel):
    /// whether both receivers belong to one channel.
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub fn same_channel(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.shared, &other.shared)
    }

    /// Simulated/own version of
    /// [`tokio::sync::broadcast::Receiver::sender_strong_count`](https://docs.rs/tokio/1/tokio/sync/broadcast/struct.Receiver.html#method.sender_strong_count):
    /// the number of [`Sender`]s.
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub fn sender_strong_count(&self) -> usize {
        lock(&self.shared.tail).num_tx
    }

    /// Simulated/own version of
    /// [`tokio::sync::broadcast::Receiver::sender_weak_count`](https://docs.rs/tokio/1/tokio/sync/broadcast/struct.Receiver.html#method.sender_weak_count):
    /// the number of [`WeakSender`]s.
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub fn sender_weak_count(&self) -> usize {
        lock(&self.shared.tail).num_weak_tx
    }

    /// Simulated/own version of
    /// [`tokio::sync::broadcast::Receiver::is_closed`](https://docs.rs/tokio/1/tokio/sync/broadcast/struct.Receiver.html#method.is_closed):
    /// whether every sender is gone.
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub fn is_closed(&self) -> bool {
        lock(&self.shared.tail).num_tx == 0
    }
}

impl<T: Clone> Receiver<T> {
    /// Simulated/own version of
    /// [`tokio::sync::broadcast::Receiver::resubscribe`](https://docs.rs/tokio/1/tokio/sync/broadcast/struct.Receiver.html#method.resubscribe):
    /// a new receiver of the values sent from now on.
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub fn resubscribe(&self) -> Self {
        new_receiver(self.shared.clone())
    }

    /// Simulated/own version of
    /// [`tokio::sync::broadcast::Receiver::recv`](https://docs.rs/tokio/1/tokio/sync/broadcast/struct.Receiver.html#method.recv):
    /// the next value, [`Lagged`](RecvError::Lagged) when values were
    /// missed, [`Closed`](RecvError::Closed) once every sender is gone and
    /// everything was read.
    ///
    /// # Cancel safety
    ///
    /// Cancel safe: a value is only taken when the future completes.
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub async fn recv(&mut self) -> Result<T, RecvError> {
        crate::task::coop::cooperative(Recv {
            receiver: self,
            waiter: None,
        })
        .await
    }

    /// Simulated/own version of
    /// [`tokio::sync::broadcast::Receiver::try_recv`](https://docs.rs/tokio/1/tokio/sync/broadcast/struct.Receiver.html#method.try_recv):
    /// the next value if there is one now.
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub fn try_recv(&mut self) -> Result<T, TryRecvError> {
        let shared = self.shared.clone();
        let mut tail = lock(&shared.tail);
        let read = self.read(&mut tail, Some(T::clone));
        drop(tail);
        match read {
            Read::Value(v, last) => {
                drop(last);
                v.ok_or(TryRecvError::Closed)
            }
            Read::Empty => Err(TryRecvError::Empty),
            Read::Closed => Err(TryRecvError::Closed),
            Read::Lagged(n) => Err(TryRecvError::Lagged(n)),
        }
    }

    /// Simulated/own version of
    /// [`tokio::sync::broadcast::Receiver::blocking_recv`](https://docs.rs/tokio/1/tokio/sync/broadcast/struct.Receiver.html#method.blocking_recv):
    /// [`recv`](Receiver::recv), blocking the thread.
    ///
    /// # Panics
    ///
    /// Inside a simulation (tokio: inside an asynchronous execution
    /// context).
    ///
    /// # Differences from tokio
    ///
    /// None.
    #[track_caller]
    pub fn blocking_recv(&mut self) -> Result<T, RecvError> {
        block_on("broadcast::Receiver::blocking_recv", self.recv())
    }
}

impl<T> Drop for Receiver<T> {
    fn drop(&mut self) {
        let shared = self.shared.clone();
        let mut tail = lock(&shared.tail);
        tail.rx_cnt -= 1;
        let until = tail.pos;
        let last_rx = tail.rx_cnt == 0;
        if last_rx {
            tail.closed = true;
        }
        // Mark the values this receiver never read as read by it.
        let mut dropped = Vec::new();
        while self.next < until {
            match self.read(&mut tail, None) {
                Read::Value(_, last) => dropped.extend(last),
                Read::Closed => break,
                Read::Lagged(_) => {}
                Read::Empty => panic!("unexpected empty broadcast channel"),
            }
        }
        drop(tail);
        drop(dropped);
        if last_rx {
            self.shared.notify_last_rx_drop.notify_waiters();
        }
    }
}

/// The future of [`Receiver::recv`].
struct Recv<'a, T> {
    receiver: &'a mut Receiver<T>,
    /// The id under which it waits, once it did.
    waiter: Option<u64>,
}

impl<T: Clone> Future for Recv<'_, T> {
    type Output = Result<T, RecvError>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Result<T, RecvError>> {
        let me = self.get_mut();
        let shared = me.receiver.shared.clone();
        let mut tail = lock(&shared.tail);
        let read = me.receiver.read(&mut tail, Some(T::clone));
        // A waker this replaces or removes is dropped after the lock is
        // released: its `Drop` may use this channel (send, for one).
        let replaced = match read {
            Read::Empty => {
                let id = *me.waiter.get_or_insert_with(|| {
                    let id = tail.next_waiter;
                    tail.next_waiter += 1;
                    id
                });
                match tail.waiters.get(&id) {
                    Some(w) if w.will_wake(cx.waker()) => None,
                    _ => tail.waiters.insert(id, cx.waker().clone()),
                }
            }
            _ => me.waiter.take().and_then(|id| tail.waiters.remove(&id)),
        };
        drop(tail);
        drop(replaced);
        Poll::Ready(match read {
            Read::Value(v, last) => {
                drop(last);
                v.ok_or(RecvError::Closed)
            }
            Read::Empty => return Poll::Pending,
            Read::Closed => Err(RecvError::Closed),
            Read::Lagged(n) => Err(RecvError::Lagged(n)),
        })
    }
}

impl<T> Drop for Recv<'_, T> {
    fn drop(&mut self) {
        if let Some(id) = self.waiter.take() {
            // Bound to a variable so that the waker drops after the lock.
            let waker = lock(&self.receiver.shared.tail).waiters.remove(&id);
            drop(waker);
        }
    }
}

impl<T> fmt::Debug for Sender<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "broadcast::Sender")
    }
}

impl<T> fmt::Debug for WeakSender<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "broadcast::WeakSender")
    }
}

impl<T> fmt::Debug for Receiver<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "broadcast::Receiver")
    }
}
