//! Simulated/own version of
//! [`tokio::sync::watch`](https://docs.rs/tokio/1/tokio/sync/watch/index.html): a multi-producer, multi-consumer
//! channel that keeps only the last value sent.
//!
//! [`channel`] returns a [`Sender`] and a [`Receiver`] sharing one value.
//! Each receiver remembers the version of the value it last *saw*:
//! [`Receiver::borrow_and_update`] and a completed [`Receiver::changed`] mark
//! the current value seen, [`Receiver::borrow`] does not. At creation (and on
//! [`Sender::subscribe`]) the current value counts as seen. When every sender
//! has dropped the channel is closed: [`Receiver::changed`] still returns
//! `Ok` once for an unseen value, then `Err(RecvError)`. When every receiver
//! has dropped, [`Sender::send`] fails and [`Sender::closed`] completes;
//! [`Sender::subscribe`] reopens the channel.
//!
//! # Examples
//!
//! ```
//! use sim_rt::sync::watch;
//! # sim_rt::runtime::Runtime::new().unwrap().block_on(async {
//! let (tx, mut rx) = watch::channel("hello");
//! sim_rt::spawn(async move {
//!     tx.send("world").unwrap();
//! });
//! assert!(rx.changed().await.is_ok());
//! assert_eq!(*rx.borrow_and_update(), "world");
//! // The sender has dropped and the current value is seen.
//! assert!(rx.changed().await.is_err());
//! # });
//! ```
//!
//! # Why sim-rt has its own
//!
//! tokio 1.54 spreads the receivers waiting in `changed` over eight
//! `Notify`s, picking one per wait with its thread-local random generator
//! (`thread_rng_n(8)`, compiled in whenever tokio's `rt` or `macros` feature
//! is on). A send wakes the eight groups one after the other, so which
//! receiver wakes first depends on that generator, which no simulation
//! seeds: it carries on from whatever the thread drew before. Here all
//! waiters wait on one [`Notify`], which wakes them in the order they
//! started waiting.
//!
//! The logic otherwise follows tokio's `sync/watch.rs` (MIT licence,
//! copyright Tokio Contributors) closely, because its semantics are the
//! contract: the versioned state word with a closed bit, the
//! register-then-check loop of `changed`, the panic handling of
//! `send_if_modified` and `wait_for`, and the `Debug` output.
//!
//! # Invariants
//!
//! - The state word holds the version in its upper bits (steps of 2) and
//!   the closed flag in bit 0. The version changes only while the value's
//!   write lock is held, so a reader holding the read lock sees the version
//!   of the value it reads.
//! - The closed flag is set once, when the last [`Sender`] drops, and never
//!   cleared ([`Sender::subscribe`] reopens the channel for receivers, not
//!   for senders, of which there are none left then).
//! - `ref_count_tx` and `ref_count_rx` count the live senders and
//!   receivers.
//!
//! # Determinism
//!
//! No randomness, no hashed collections. Receivers waiting for a change wait
//! on one [`Notify`]; `notify_waiters` wakes them in the order their waits
//! were first polled, which the simulation's scheduler decided. So the order
//! in which a send makes them runnable, and with it the run, is a function
//! of the seed and the choices.
//!
//! [`Notify`]: super::Notify

use std::fmt;
use std::mem;
use std::ops;
use std::panic;
use std::sync::atomic::AtomicUsize;
use std::sync::atomic::Ordering::{AcqRel, Relaxed};
use std::sync::Arc;

use super::Notify;
use crate::task::coop::cooperative;

use self::state::{AtomicState, Version};

/// Simulated/own version of
/// [`tokio::sync::watch::Receiver`](https://docs.rs/tokio/1/tokio/sync/watch/struct.Receiver.html): receives values from the
/// associated [`Sender`].
///
/// Created by [`channel`], [`Sender::subscribe`] or by cloning. A clone
/// starts with the version its original has seen.
///
/// # Differences from tokio
///
/// Waiters are woken in the order they started waiting, not spread over
/// notifiers at random. Otherwise none.
#[derive(Debug)]
pub struct Receiver<T> {
    shared: Arc<Shared<T>>,
    /// The version of the value this receiver last saw (one step less after
    /// `mark_changed`).
    version: Version,
}

/// Simulated/own version of
/// [`tokio::sync::watch::Sender`](https://docs.rs/tokio/1/tokio/sync/watch/struct.Sender.html): sends values to the associated
/// [`Receiver`]s.
///
/// Created by [`channel`], [`Sender::new`] or by cloning; the channel
/// closes for receivers when the last clone drops.
///
/// # Differences from tokio
///
/// None.
#[derive(Debug)]
pub struct Sender<T> {
    shared: Arc<Shared<T>>,
}

/// Simulated/own version of
/// [`tokio::sync::watch::Ref`](https://docs.rs/tokio/1/tokio/sync/watch/struct.Ref.html): a borrow of the channel's value,
/// from [`Receiver::borrow`], [`Receiver::borrow_and_update`],
/// [`Receiver::wait_for`] or [`Sender::borrow`].
///
/// It holds a read lock on the value. A send on the same thread while it is
/// alive blocks forever (as in tokio on a current-thread runtime), so never
/// hold one across an `.await`.
///
/// # Differences from tokio
///
/// None.
#[derive(Debug)]
pub struct Ref<'a, T> {
    inner: std::sync::RwLockReadGuard<'a, T>,
    has_changed: bool,
}

impl<T> Ref<'_, T> {
    /// Simulated/own version of
    /// [`tokio::sync::watch::Ref::has_changed`](https://docs.rs/tokio/1/tokio/sync/watch/struct.Ref.html#method.has_changed): whether the value
    /// was unseen by the receiver when it was borrowed.
    ///
    /// Unlike [`Receiver::has_changed`], it does not fail on a closed
    /// channel. Always `false` for a borrow from the [`Sender`].
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub fn has_changed(&self) -> bool {
        self.has_changed
    }
}

impl<T> ops::Deref for Ref<'_, T> {
    type Target = T;

    fn deref(&self) -> &T {
        &self.inner
    }
}

/// The state every handle of one channel shares.
struct Shared<T> {
    /// The latest value.
    value: RwLock<T>,
    /// Version and closed flag (see the module's invariants).
    state: AtomicState,
    /// Live receivers.
    ref_count_rx: AtomicUsize,
    /// Live senders.
    ref_count_tx: AtomicUsize,
    /// Receivers waiting for a change or for the close. One `Notify`, so
    /// the wake order is the waiting order (tokio uses eight, picked at
    /// random).
    notify_rx: Notify,
    /// Senders waiting in `closed`.
    notify_tx: Notify,
}

impl<T: fmt::Debug> fmt::Debug for Shared<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let state = self.state.load();
        f.debug_struct("Shared")
            .field("value", &self.value)
            .field("version", &state.version())
            .field("is_closed", &state.is_closed())
            .field("ref_count_rx", &self.ref_count_rx)
            .finish()
    }
}

/// `std::sync::RwLock` without poisoning, as tokio wraps it: a panic in a
/// user closure never leaves the value locked (the guard is dropped before
/// the panic resumes), so poisoning carries no information here.
#[derive(Debug)]
struct RwLock<T>(std::sync::RwLock<T>);

impl<T> RwLock<T> {
    fn new(value: T) -> Self {
        RwLock(std::sync::RwLock::new(value))
    }

    fn read(&self) -> std::sync::RwLockReadGuard<'_, T> {
        self.0
            .read()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn write(&self) -> std::sync::RwLockWriteGuard<'_, T> {
        self.0
            .write()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

/// Simulated/own version of
/// [`tokio::sync::watch::error`](https://docs.rs/tokio/1/tokio/sync/watch/error/index.html): the watch channel's errors.
pub mod error {
    use std::error::Error;
    use std::fmt;

    /// Simulated/own version of
    /// [`tokio::sync::watch::error::SendError`](https://docs.rs/tokio/1/tokio/sync/watch/error/struct.SendError.html): returned by
    /// [`Sender::send`](super::Sender::send) when no receiver is left; holds
    /// the value that was not sent.
    ///
    /// # Differences from tokio
    ///
    /// None.
    #[derive(PartialEq, Eq, Clone, Copy)]
    pub struct SendError<T>(pub T);

    send_error_impls!(SendError);

    /// Simulated/own version of
    /// [`tokio::sync::watch::error::RecvError`](https://docs.rs/tokio/1/tokio/sync/watch/error/struct.RecvError.html): returned by
    /// [`Receiver::changed`](super::Receiver::changed) and friends when
    /// every sender has dropped.
    ///
    /// # Differences from tokio
    ///
    /// None.
    #[derive(Debug, Clone)]
    pub struct RecvError(pub(super) ());

    impl fmt::Display for RecvError {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            write!(f, "channel closed")
        }
    }

    impl Error for RecvError {}
}

/// The channel's version counter and closed flag in one atomic word.
mod state {
    use std::sync::atomic::{AtomicUsize, Ordering};

    const CLOSED_BIT: usize = 1;
    /// Versions move in steps of 2, so they never touch `CLOSED_BIT`.
    const STEP_SIZE: usize = 2;

    /// A value's version, as a receiver remembers it.
    #[derive(Copy, Clone, Debug, Eq, PartialEq)]
    pub(super) struct Version(usize);

    impl Version {
        pub(super) const INITIAL: Self = Version(0);

        /// One step back, wrapping as `fetch_add` wraps: the receiver will
        /// see the current value as unseen.
        pub(super) fn decrement(&mut self) {
            self.0 = self.0.wrapping_sub(STEP_SIZE);
        }
    }

    /// One load of the state word.
    #[derive(Copy, Clone, Debug)]
    pub(super) struct StateSnapshot(usize);

    impl StateSnapshot {
        pub(super) fn version(self) -> Version {
            Version(self.0 & !CLOSED_BIT)
        }

        pub(super) fn is_closed(self) -> bool {
            self.0 & CLOSED_BIT == CLOSED_BIT
        }
    }

    /// The shared state word.
    #[derive(Debug)]
    pub(super) struct AtomicState(AtomicUsize);

    impl AtomicState {
        pub(super) fn new() -> Self {
            AtomicState(AtomicUsize::new(Version::INITIAL.0))
        }

        pub(super) fn load(&self) -> StateSnapshot {
            StateSnapshot(self.0.load(Ordering::Acquire))
        }

        /// Call only with the value's write lock held (see the module's
        /// invariants). `Release`: the new value is written before the
        /// version that announces it.
        pub(super) fn increment_version_while_locked(&self) {
            self.0.fetch_add(STEP_SIZE, Ordering::Release);
        }

        pub(super) fn set_closed(&self) {
            self.0.fetch_or(CLOSED_BIT, Ordering::Release);
        }
    }
}

/// Simulated/own version of
/// [`tokio::sync::watch::channel`](https://docs.rs/tokio/1/tokio/sync/watch/fn.channel.html): creates a channel holding
/// `init`, with one sender and one receiver. `init` counts as seen.
///
/// # Examples
///
/// ```
/// use sim_rt::sync::watch;
///
/// let (tx, rx) = watch::channel(1);
/// tx.send(2).unwrap();
/// assert_eq!(*rx.borrow(), 2);
/// drop(rx);
/// assert!(tx.send(3).is_err()); // no receiver left
/// assert_eq!(tx.send_replace(4), 2); // works without receivers
/// assert_eq!(*tx.subscribe().borrow(), 4);
/// ```
///
/// # Differences from tokio
///
/// Waiters are woken in the order they started waiting, not spread over
/// notifiers at random. Otherwise none.
pub fn channel<T>(init: T) -> (Sender<T>, Receiver<T>) {
    let shared = Arc::new(Shared {
        value: RwLock::new(init),
        state: AtomicState::new(),
        ref_count_rx: AtomicUsize::new(1),
        ref_count_tx: AtomicUsize::new(1),
        notify_rx: Notify::new(),
        notify_tx: Notify::new(),
    });
    let tx = Sender {
        shared: shared.clone(),
    };
    let rx = Receiver {
        shared,
        version: Version::INITIAL,
    };
    (tx, rx)
}

impl<T> Receiver<T> {
    fn from_shared(version: Version, shared: Arc<Shared<T>>) -> Self {
        // A counter only: it guards no memory, so `Relaxed` will do.
        shared.ref_count_rx.fetch_add(1, Relaxed);
        Self { shared, version }
    }

    /// Simulated/own version of
    /// [`tokio::sync::watch::Receiver::borrow`](https://docs.rs/tokio/1/tokio/sync/watch/struct.Receiver.html#method.borrow): the current value,
    /// without marking it seen.
    ///
    /// [`Ref::has_changed`] says whether it was unseen. The borrow holds a
    /// read lock: keep it short, and never across an `.await`.
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub fn borrow(&self) -> Ref<'_, T> {
        let inner = self.shared.value.read();
        // With the read lock held no send can run, so this is the version of
        // `inner`.
        let has_changed = self.version != self.shared.state.load().version();
        Ref { inner, has_changed }
    }

    /// Simulated/own version of
    /// [`tokio::sync::watch::Receiver::borrow_and_update`](https://docs.rs/tokio/1/tokio/sync/watch/struct.Receiver.html#method.borrow_and_update): the
    /// current value, marked seen.
    ///
    /// Prefer it to [`borrow`](Receiver::borrow) in a loop over
    /// [`changed`](Receiver::changed): a value sent between `changed`
    /// completing and the borrow is then not seen twice.
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub fn borrow_and_update(&mut self) -> Ref<'_, T> {
        let inner = self.shared.value.read();
        let new_version = self.shared.state.load().version();
        let has_changed = self.version != new_version;
        self.version = new_version;
        Ref { inner, has_changed }
    }

    /// Simulated/own version of
    /// [`tokio::sync::watch::Receiver::has_changed`](https://docs.rs/tokio/1/tokio/sync/watch/struct.Receiver.html#method.has_changed): whether the
    /// current value is unseen, without marking it seen.
    ///
    /// # Errors
    ///
    /// [`RecvError`](error::RecvError) if and only if every sender has
    /// dropped, even when the current value is unseen.
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub fn has_changed(&self) -> Result<bool, error::RecvError> {
        let state = self.shared.state.load();
        if state.is_closed() {
            return Err(error::RecvError(()));
        }
        Ok(self.version != state.version())
    }

    /// Simulated/own version of
    /// [`tokio::sync::watch::Receiver::is_closed`](https://docs.rs/tokio/1/tokio/sync/watch/struct.Receiver.html#method.is_closed): whether every
    /// sender has dropped.
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub fn is_closed(&self) -> bool {
        self.shared.state.load().is_closed()
    }

    /// Simulated/own version of
    /// [`tokio::sync::watch::Receiver::mark_changed`](https://docs.rs/tokio/1/tokio/sync/watch/struct.Receiver.html#method.mark_changed): makes the
    /// current value count as unseen, so [`has_changed`](Receiver::has_changed)
    /// returns `true` and [`changed`](Receiver::changed) completes at once.
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub fn mark_changed(&mut self) {
        self.version.decrement();
    }

    /// Simulated/own version of
    /// [`tokio::sync::watch::Receiver::mark_unchanged`](https://docs.rs/tokio/1/tokio/sync/watch/struct.Receiver.html#method.mark_unchanged): marks the
    /// current value seen without borrowing it.
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub fn mark_unchanged(&mut self) {
        self.version = self.shared.state.load().version();
    }

    /// Simulated/own version of
    /// [`tokio::sync::watch::Receiver::changed`](https://docs.rs/tokio/1/tokio/sync/watch/struct.Receiver.html#method.changed): waits until the
    /// current value is unseen, then marks it seen.
    ///
    /// Completes at once if the current value is already unseen; otherwise
    /// when a sender sends or the last sender drops.
    ///
    /// # Errors
    ///
    /// [`RecvError`](error::RecvError) if every sender has dropped **and**
    /// the current value is seen.
    ///
    /// Takes a unit of the task's cooperative budget when it completes, as
    /// in tokio, so a loop over a channel that is always ready (or closed)
    /// yields now and then.
    ///
    /// # Cancel safety
    ///
    /// Cancel safe: if it loses a `select!`, no value was marked seen.
    ///
    /// # Differences from tokio
    ///
    /// Waiters are woken in the order they started waiting, not spread over
    /// notifiers at random. Otherwise none.
    pub async fn changed(&mut self) -> Result<(), error::RecvError> {
        cooperative(changed_impl(&self.shared, &mut self.version)).await
    }

    /// Simulated/own version of
    /// [`tokio::sync::watch::Receiver::wait_for`](https://docs.rs/tokio/1/tokio/sync/watch/struct.Receiver.html#method.wait_for): waits until `f`
    /// returns `true` for the current value, and returns a borrow of it,
    /// marked seen.
    ///
    /// `f` is first called on the current value, seen or not, then on each
    /// new value (only the latest one, if several were sent in between).
    ///
    /// # Errors
    ///
    /// [`RecvError`](error::RecvError) when every sender has dropped and `f`
    /// returned `false` for the last value.
    ///
    /// # Cancel safety
    ///
    /// Cancel safe: if it loses a `select!`, the last value seen (if any)
    /// satisfies `f(value) == false`.
    ///
    /// # Panics
    ///
    /// If and only if `f` panics; the panic is propagated and the channel
    /// stays usable (its lock is not poisoned).
    ///
    /// # Differences from tokio
    ///
    /// As for [`changed`](Receiver::changed).
    pub async fn wait_for(
        &mut self,
        f: impl FnMut(&T) -> bool,
    ) -> Result<Ref<'_, T>, error::RecvError> {
        cooperative(self.wait_for_inner(f)).await
    }

    async fn wait_for_inner(
        &mut self,
        mut f: impl FnMut(&T) -> bool,
    ) -> Result<Ref<'_, T>, error::RecvError> {
        let mut closed = false;
        loop {
            {
                let inner = self.shared.value.read();
                let new_version = self.shared.state.load().version();
                let has_changed = self.version != new_version;
                self.version = new_version;
                // After the close, test only a value `f` has not rejected yet.
                if !closed || has_changed {
                    match panic::catch_unwind(panic::AssertUnwindSafe(|| f(&inner))) {
                        Ok(true) => return Ok(Ref { inner, has_changed }),
                        Ok(false) => {}
                        Err(panicked) => {
                            // Release the lock before the panic goes on.
                            drop(inner);
                            panic::resume_unwind(panicked);
                        }
                    }
                }
            }
            if closed {
                return Err(error::RecvError(()));
            }
            closed = changed_impl(&self.shared, &mut self.version).await.is_err();
        }
    }

    /// Simulated/own version of
    /// [`tokio::sync::watch::Receiver::same_channel`](https://docs.rs/tokio/1/tokio/sync/watch/struct.Receiver.html#method.same_channel): whether
    /// both receivers belong to the same channel.
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub fn same_channel(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.shared, &other.shared)
    }
}

/// Marks the current value seen and returns `Ok` if it was unseen; returns
/// `Err` if it was seen and the channel is closed; `None` otherwise.
fn maybe_changed<T>(
    shared: &Shared<T>,
    version: &mut Version,
) -> Option<Result<(), error::RecvError>> {
    let state = shared.state.load();
    let new_version = state.version();
    if *version != new_version {
        *version = new_version;
        return Some(Ok(()));
    }
    if state.is_closed() {
        return Some(Err(error::RecvError(())));
    }
    None
}

async fn changed_impl<T>(
    shared: &Shared<T>,
    version: &mut Version,
) -> Result<(), error::RecvError> {
    loop {
        // Ask for the notification first, then check: a send between the
        // two still wakes this `Notified` (it counts `notify_waiters` calls
        // from its creation), so no change is missed.
        let notified = shared.notify_rx.notified();
        if let Some(ret) = maybe_changed(shared, version) {
            return ret;
        }
        notified.await;
        // Check again rather than trust the wake-up.
    }
}

impl<T> Clone for Receiver<T> {
    /// A new receiver that has seen what this one has seen.
    fn clone(&self) -> Self {
        Self::from_shared(self.version, self.shared.clone())
    }
}

impl<T> Drop for Receiver<T> {
    fn drop(&mut self) {
        let before = self.shared.ref_count_rx.fetch_sub(1, Relaxed);
        debug_assert!(before > 0, "ref_count_rx counts the live receivers");
        if before == 1 {
            // The last receiver: wake the senders in `closed`.
            self.shared.notify_tx.notify_waiters();
        }
    }
}

impl<T> Sender<T> {
    /// Simulated/own version of
    /// [`tokio::sync::watch::Sender::new`](https://docs.rs/tokio/1/tokio/sync/watch/struct.Sender.html#method.new): a sender of a new
    /// channel holding `init`, with no receiver yet (so [`send`](Sender::send)
    /// fails until [`subscribe`](Sender::subscribe) is called).
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub fn new(init: T) -> Self {
        let (tx, _) = channel(init);
        tx
    }

    /// Simulated/own version of
    /// [`tokio::sync::watch::Sender::send`](https://docs.rs/tokio/1/tokio/sync/watch/struct.Sender.html#method.send): replaces the value
    /// and notifies every receiver.
    ///
    /// # Errors
    ///
    /// [`SendError`](error::SendError), holding `value`, when no receiver is
    /// left; the channel's value is then unchanged. The other send methods
    /// store the value even without receivers.
    ///
    /// # Differences from tokio
    ///
    /// Waiters are woken in the order they started waiting, not spread over
    /// notifiers at random. Otherwise none.
    pub fn send(&self, value: T) -> Result<(), error::SendError<T>> {
        if self.receiver_count() == 0 {
            return Err(error::SendError(value));
        }
        self.send_replace(value);
        Ok(())
    }

    /// Simulated/own version of
    /// [`tokio::sync::watch::Sender::send_modify`](https://docs.rs/tokio/1/tokio/sync/watch/struct.Sender.html#method.send_modify): modifies the
    /// value in place and notifies every receiver, whether or not any
    /// exists.
    ///
    /// # Panics
    ///
    /// When `modify` panics. No receiver is notified then, but what `modify`
    /// changed before panicking stays visible.
    ///
    /// # Differences from tokio
    ///
    /// As for [`send`](Sender::send).
    pub fn send_modify<F>(&self, modify: F)
    where
        F: FnOnce(&mut T),
    {
        self.send_if_modified(|value| {
            modify(value);
            true
        });
    }

    /// Simulated/own version of
    /// [`tokio::sync::watch::Sender::send_if_modified`](https://docs.rs/tokio/1/tokio/sync/watch/struct.Sender.html#method.send_if_modified): lets
    /// `modify` change the value in place; if it returns `true`, the value
    /// gets a new version and every receiver is notified. Returns what
    /// `modify` returned.
    ///
    /// If `modify` changes the value but returns `false`, receivers see the
    /// change when they next borrow, but are not told of it.
    ///
    /// # Panics
    ///
    /// When `modify` panics. No receiver is notified then, but what `modify`
    /// changed before panicking stays visible.
    ///
    /// # Differences from tokio
    ///
    /// As for [`send`](Sender::send).
    pub fn send_if_modified<F>(&self, modify: F) -> bool
    where
        F: FnOnce(&mut T) -> bool,
    {
        {
            let mut lock = self.shared.value.write();
            match panic::catch_unwind(panic::AssertUnwindSafe(|| modify(&mut lock))) {
                Ok(true) => {}
                Ok(false) => return false,
                Err(panicked) => {
                    // Release the lock before the panic goes on.
                    drop(lock);
                    panic::resume_unwind(panicked);
                }
            }
            // Still under the write lock: readers see versions and values
            // change together.
            self.shared.state.increment_version_while_locked();
        }
        self.shared.notify_rx.notify_waiters();
        true
    }

    /// Simulated/own version of
    /// [`tokio::sync::watch::Sender::send_replace`](https://docs.rs/tokio/1/tokio/sync/watch/struct.Sender.html#method.send_replace): replaces the
    /// value, notifies every receiver, whether or not any exists, and returns
    /// the previous value.
    ///
    /// # Differences from tokio
    ///
    /// As for [`send`](Sender::send).
    pub fn send_replace(&self, mut value: T) -> T {
        self.send_modify(|old| mem::swap(old, &mut value));
        value
    }

    /// Simulated/own version of
    /// [`tokio::sync::watch::Sender::borrow`](https://docs.rs/tokio/1/tokio/sync/watch/struct.Sender.html#method.borrow): the current value;
    /// its [`Ref::has_changed`] is always `false`.
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub fn borrow(&self) -> Ref<'_, T> {
        let inner = self.shared.value.read();
        Ref {
            inner,
            has_changed: false,
        }
    }

    /// Simulated/own version of
    /// [`tokio::sync::watch::Sender::is_closed`](https://docs.rs/tokio/1/tokio/sync/watch/struct.Sender.html#method.is_closed): whether every
    /// receiver has dropped.
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub fn is_closed(&self) -> bool {
        self.receiver_count() == 0
    }

    /// Simulated/own version of
    /// [`tokio::sync::watch::Sender::closed`](https://docs.rs/tokio/1/tokio/sync/watch/struct.Sender.html#method.closed): completes when
    /// every receiver has dropped.
    ///
    /// If the channel is closed only briefly (the last receiver drops, then
    /// [`subscribe`](Sender::subscribe) reopens it before this is polled), it
    /// may not notice.
    ///
    /// Takes a unit of the task's cooperative budget, as in tokio.
    ///
    /// # Cancel safety
    ///
    /// Cancel safe.
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub async fn closed(&self) {
        cooperative(async {
            while self.receiver_count() > 0 {
                // Ask first, then check, as in `changed_impl`.
                let notified = self.shared.notify_tx.notified();
                if self.receiver_count() == 0 {
                    return;
                }
                notified.await;
                // `subscribe` may have reopened the channel since: check
                // again.
            }
        })
        .await
    }

    /// Simulated/own version of
    /// [`tokio::sync::watch::Sender::subscribe`](https://docs.rs/tokio/1/tokio/sync/watch/struct.Sender.html#method.subscribe): a new receiver,
    /// for which the current value counts as seen. Reopens a channel whose
    /// receivers had all dropped.
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub fn subscribe(&self) -> Receiver<T> {
        let version = self.shared.state.load().version();
        Receiver::from_shared(version, self.shared.clone())
    }

    /// Simulated/own version of
    /// [`tokio::sync::watch::Sender::receiver_count`](https://docs.rs/tokio/1/tokio/sync/watch/struct.Sender.html#method.receiver_count): the number
    /// of live receivers.
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub fn receiver_count(&self) -> usize {
        self.shared.ref_count_rx.load(Relaxed)
    }

    /// Simulated/own version of
    /// [`tokio::sync::watch::Sender::sender_count`](https://docs.rs/tokio/1/tokio/sync/watch/struct.Sender.html#method.sender_count): the number of
    /// live senders.
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub fn sender_count(&self) -> usize {
        self.shared.ref_count_tx.load(Relaxed)
    }

    /// Simulated/own version of
    /// [`tokio::sync::watch::Sender::same_channel`](https://docs.rs/tokio/1/tokio/sync/watch/struct.Sender.html#method.same_channel): whether both
    /// senders belong to the same channel.
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub fn same_channel(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.shared, &other.shared)
    }
}

impl<T> Clone for Sender<T> {
    /// Another sender; the channel stays open until the last one drops.
    fn clone(&self) -> Self {
        self.shared.ref_count_tx.fetch_add(1, Relaxed);
        Self {
            shared: self.shared.clone(),
        }
    }
}

impl<T: Default> Default for Sender<T> {
    /// `Sender::new(T::default())`.
    fn default() -> Self {
        Self::new(T::default())
    }
}

impl<T> Drop for Sender<T> {
    fn drop(&mut self) {
        let before = self.shared.ref_count_tx.fetch_sub(1, AcqRel);
        debug_assert!(before > 0, "ref_count_tx counts the live senders");
        if before == 1 {
            // The last sender: close, and wake every waiting receiver.
            self.shared.state.set_closed();
            self.shared.notify_rx.notify_waiters();
        }
    }
}
