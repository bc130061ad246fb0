//! The bounded `mpsc` handles: [`channel`], [`Sender`], [`Receiver`],
//! [`WeakSender`] and the permits.

use std::fmt;
use std::task::{Context, Poll};
use std::time::Duration;

use super::chan::{self, Chan, Rx, Tx, WeakTx};
use super::error::{SendError, SendTimeoutError, TryRecvError, TrySendError};
use crate::sync::batch_semaphore::TryAcquireError;
use crate::sync::util::block_on;

/// Simulated/own version of
/// [`tokio::sync::mpsc::Sender`](https://docs.rs/tokio/1/tokio/sync/mpsc/struct.Sender.html):
/// sends values to the [`Receiver`]; cloneable.
///
/// # Differences from tokio
///
/// None.
pub struct Sender<T> {
    chan: Tx<T>,
}

/// Simulated/own version of
/// [`tokio::sync::mpsc::WeakSender`](https://docs.rs/tokio/1/tokio/sync/mpsc/struct.WeakSender.html):
/// a sender that does not keep the channel open; [`upgrade`](WeakSender::upgrade)
/// it to send.
///
/// # Differences from tokio
///
/// None.
pub struct WeakSender<T> {
    chan: WeakTx<T>,
}

/// Simulated/own version of
/// [`tokio::sync::mpsc::Permit`](https://docs.rs/tokio/1/tokio/sync/mpsc/struct.Permit.html):
/// a reserved slot in the channel; dropping it gives the slot back.
///
/// # Differences from tokio
///
/// None.
pub struct Permit<'a, T> {
    chan: &'a Chan<T>,
}

/// Simulated/own version of
/// [`tokio::sync::mpsc::PermitIterator`](https://docs.rs/tokio/1/tokio/sync/mpsc/struct.PermitIterator.html):
/// `n` reserved slots, handed out one [`Permit`] at a time.
///
/// # Differences from tokio
///
/// None.
pub struct PermitIterator<'a, T> {
    chan: &'a Chan<T>,
    n: usize,
}

/// Simulated/own version of
/// [`tokio::sync::mpsc::OwnedPermit`](https://docs.rs/tokio/1/tokio/sync/mpsc/struct.OwnedPermit.html):
/// a reserved slot that owns its sender.
///
/// # Differences from tokio
///
/// None.
pub struct OwnedPermit<T> {
    chan: Option<Tx<T>>,
}

/// Simulated/own version of
/// [`tokio::sync::mpsc::Receiver`](https://docs.rs/tokio/1/tokio/sync/mpsc/struct.Receiver.html):
/// receives the values of a bounded channel.
///
/// # Differences from tokio
///
/// None.
pub struct Receiver<T> {
    chan: Rx<T>,
}

/// Simulated/own version of
/// [`tokio::sync::mpsc::channel`](https://docs.rs/tokio/1/tokio/sync/mpsc/fn.channel.html):
/// a channel holding at most `buffer` messages; senders wait (FIFO) for
/// capacity.
///
/// # Panics
///
/// When `buffer` is 0.
///
/// # Examples
///
/// ```
/// # sim_rt::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
/// use sim_rt::sync::mpsc;
///
/// let (tx, mut rx) = mpsc::channel(1);
/// sim_rt::spawn(async move {
///     for i in 0..3 {
///         tx.send(i).await.unwrap();
///     }
/// });
/// let mut got = Vec::new();
/// while let Some(i) = rx.recv().await {
///     got.push(i);
/// }
/// assert_eq!(got, [0, 1, 2]);
/// # });
/// ```
///
/// # Differences from tokio
///
/// None.
#[track_caller]
pub fn channel<T>(buffer: usize) -> (Sender<T>, Receiver<T>) {
    assert!(buffer > 0, "mpsc bounded channel requires buffer > 0");
    let (tx, rx) = chan::handles(Some(buffer));
    (Sender { chan: tx }, Receiver { chan: rx })
}

impl<T> Receiver<T> {
    receiver_methods!(
        "Receiver",
        "Sender",
        "WeakSender",
        "buffered messages and outstanding permits can still be received."
    );

    /// Simulated/own version of
    /// [`tokio::sync::mpsc::Receiver::capacity`](https://docs.rs/tokio/1/tokio/sync/mpsc/struct.Receiver.html#method.capacity):
    /// the free slots (neither buffered nor reserved).
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub fn capacity(&self) -> usize {
        self.chan.chan.sem().available_permits()
    }

    /// Simulated/own version of
    /// [`tokio::sync::mpsc::Receiver::max_capacity`](https://docs.rs/tokio/1/tokio/sync/mpsc/struct.Receiver.html#method.max_capacity):
    /// the buffer size given to [`channel`].
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub fn max_capacity(&self) -> usize {
        self.chan.chan.bound()
    }
}

handle_traits!(Receiver);

impl<T> Unpin for Receiver<T> {}

impl<T> Sender<T> {
    /// Simulated/own version of
    /// [`tokio::sync::mpsc::Sender::send`](https://docs.rs/tokio/1/tokio/sync/mpsc/struct.Sender.html#method.send):
    /// waits for capacity (FIFO with other senders), then sends; the value
    /// comes back if the receiver is gone or closed.
    ///
    /// # Cancel safety
    ///
    /// Dropping the future loses its place in the queue, and the value.
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub async fn send(&self, value: T) -> Result<(), SendError<T>> {
        match self.reserve().await {
            Ok(permit) => {
                permit.send(value);
                Ok(())
            }
            Err(_) => Err(SendError(value)),
        }
    }

    sender_methods!(Sender, WeakSender);

    /// Simulated/own version of
    /// [`tokio::sync::mpsc::Sender::try_send`](https://docs.rs/tokio/1/tokio/sync/mpsc/struct.Sender.html#method.try_send):
    /// sends if a slot is free now.
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub fn try_send(&self, message: T) -> Result<(), TrySendError<T>> {
        match self.chan.chan.sem().try_acquire(1) {
            Ok(()) => {}
            Err(TryAcquireError::Closed) => return Err(TrySendError::Closed(message)),
            Err(TryAcquireError::NoPermits) => return Err(TrySendError::Full(message)),
        }
        self.chan.chan.push(message);
        Ok(())
    }

    /// Simulated/own version of
    /// [`tokio::sync::mpsc::Sender::send_timeout`](https://docs.rs/tokio/1/tokio/sync/mpsc/struct.Sender.html#method.send_timeout):
    /// [`send`](Sender::send), giving up after `timeout` of simulated time.
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub async fn send_timeout(
        &self,
        value: T,
        timeout: Duration,
    ) -> Result<(), SendTimeoutError<T>> {
        let permit = match crate::time::timeout(timeout, self.reserve()).await {
            Err(_) => return Err(SendTimeoutError::Timeout(value)),
            Ok(Err(_)) => return Err(SendTimeoutError::Closed(value)),
            Ok(Ok(permit)) => permit,
        };
        permit.send(value);
        Ok(())
    }

    /// Simulated/own version of
    /// [`tokio::sync::mpsc::Sender::blocking_send`](https://docs.rs/tokio/1/tokio/sync/mpsc/struct.Sender.html#method.blocking_send):
    /// [`send`](Sender::send), blocking the thread.
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
    pub fn blocking_send(&self, value: T) -> Result<(), SendError<T>> {
        block_on("Sender::blocking_send", self.send(value))
    }

    /// Simulated/own version of
    /// [`tokio::sync::mpsc::Sender::reserve`](https://docs.rs/tokio/1/tokio/sync/mpsc/struct.Sender.html#method.reserve):
    /// waits for a slot and reserves it.
    ///
    /// # Cancel safety
    ///
    /// Dropping the future loses its place in the queue.
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub async fn reserve(&self) -> Result<Permit<'_, T>, SendError<()>> {
        self.reserve_inner(1).await?;
        Ok(Permit {
            chan: &self.chan.chan,
        })
    }

    /// Simulated/own version of
    /// [`tokio::sync::mpsc::Sender::reserve_many`](https://docs.rs/tokio/1/tokio/sync/mpsc/struct.Sender.html#method.reserve_many):
    /// waits for `n` slots and reserves them together; fails at once when
    /// `n` exceeds the channel's capacity.
    ///
    /// # Cancel safety
    ///
    /// Dropping the future loses its place in the queue; slots already
    /// assigned to it are given back.
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub async fn reserve_many(&self, n: usize) -> Result<PermitIterator<'_, T>, SendError<()>> {
        self.reserve_inner(n).await?;
        Ok(PermitIterator {
            chan: &self.chan.chan,
            n,
        })
    }

    /// Simulated/own version of
    /// [`tokio::sync::mpsc::Sender::reserve_owned`](https://docs.rs/tokio/1/tokio/sync/mpsc/struct.Sender.html#method.reserve_owned):
    /// [`reserve`](Sender::reserve), moving the sender into the permit.
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub async fn reserve_owned(self) -> Result<OwnedPermit<T>, SendError<()>> {
        self.reserve_inner(1).await?;
        Ok(OwnedPermit {
            chan: Some(self.chan),
        })
    }

    async fn reserve_inner(&self, n: usize) -> Result<(), SendError<()>> {
        if n > self.max_capacity() {
            return Err(SendError(()));
        }
        self.chan.chan.reserve(n).await.map_err(|_| SendError(()))
    }

    /// Simulated/own version of
    /// [`tokio::sync::mpsc::Sender::try_reserve`](https://docs.rs/tokio/1/tokio/sync/mpsc/struct.Sender.html#method.try_reserve):
    /// reserves a slot if one is free now.
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub fn try_reserve(&self) -> Result<Permit<'_, T>, TrySendError<()>> {
        self.try_acquire(1, ())?;
        Ok(Permit {
            chan: &self.chan.chan,
        })
    }

    /// Simulated/own version of
    /// [`tokio::sync::mpsc::Sender::try_reserve_many`](https://docs.rs/tokio/1/tokio/sync/mpsc/struct.Sender.html#method.try_reserve_many):
    /// reserves `n` slots if they are free now (`Full` when `n` exceeds the
    /// capacity).
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub fn try_reserve_many(&self, n: usize) -> Result<PermitIterator<'_, T>, TrySendError<()>> {
        if n > self.max_capacity() {
            return Err(TrySendError::Full(()));
        }
        self.try_acquire(n, ())?;
        Ok(PermitIterator {
            chan: &self.chan.chan,
            n,
        })
    }

    /// Simulated/own version of
    /// [`tokio::sync::mpsc::Sender::try_reserve_owned`](https://docs.rs/tokio/1/tokio/sync/mpsc/struct.Sender.html#method.try_reserve_owned):
    /// [`try_reserve`](Sender::try_reserve), moving the sender into the
    /// permit (and back into the error).
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub fn try_reserve_owned(self) -> Result<OwnedPermit<T>, TrySendError<Self>> {
        match self.chan.chan.sem().try_acquire(1) {
            Ok(()) => Ok(OwnedPermit {
                chan: Some(self.chan),
            }),
            Err(TryAcquireError::Closed) => Err(TrySendError::Closed(self)),
            Err(TryAcquireError::NoPermits) => Err(TrySendError::Full(self)),
        }
    }

    fn try_acquire<E>(&self, n: usize, e: E) -> Result<(), TrySendError<E>> {
        match self.chan.chan.sem().try_acquire(n) {
            Ok(()) => Ok(()),
            Err(TryAcquireError::Closed) => Err(TrySendError::Closed(e)),
            Err(TryAcquireError::NoPermits) => Err(TrySendError::Full(e)),
        }
    }

    /// Simulated/own version of
    /// [`tokio::sync::mpsc::Sender::capacity`](https://docs.rs/tokio/1/tokio/sync/mpsc/struct.Sender.html#method.capacity):
    /// the free slots now.
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub fn capacity(&self) -> usize {
        self.chan.chan.sem().available_permits()
    }

    /// Simulated/own version of
    /// [`tokio::sync::mpsc::Sender::max_capacity`](https://docs.rs/tokio/1/tokio/sync/mpsc/struct.Sender.html#method.max_capacity):
    /// the buffer size given to [`channel`].
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub fn max_capacity(&self) -> usize {
        self.chan.chan.bound()
    }
}

handle_traits!(Sender, clone);

weak_sender!(WeakSender, Sender);

impl<T> Permit<'_, T> {
    /// Simulated/own version of
    /// [`tokio::sync::mpsc::Permit::send`](https://docs.rs/tokio/1/tokio/sync/mpsc/struct.Permit.html#method.send):
    /// sends into the reserved slot; cannot fail (after a
    /// [`close`](Receiver::close) the message is still received).
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub fn send(self, value: T) {
        let chan = self.chan;
        std::mem::forget(self);
        chan.push(value);
    }
}

impl<T> Drop for Permit<'_, T> {
    fn drop(&mut self) {
        self.chan.release(1);
    }
}

impl<T> fmt::Debug for Permit<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Permit").field("chan", self.chan).finish()
    }
}

impl<'a, T> Iterator for PermitIterator<'a, T> {
    type Item = Permit<'a, T>;

    fn next(&mut self) -> Option<Permit<'a, T>> {
        if self.n == 0 {
            return None;
        }
        self.n -= 1;
        Some(Permit { chan: self.chan })
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.n, Some(self.n))
    }
}

impl<T> ExactSizeIterator for PermitIterator<'_, T> {}
impl<T> std::iter::FusedIterator for PermitIterator<'_, T> {}

impl<T> Drop for PermitIterator<'_, T> {
    fn drop(&mut self) {
        if self.n > 0 {
            self.chan.release(self.n);
        }
    }
}

impl<T> fmt::Debug for PermitIterator<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PermitIterator")
            .field("chan", self.chan)
            .field("capacity", &self.n)
            .finish()
    }
}

impl<T> OwnedPermit<T> {
    /// Simulated/own version of
    /// [`tokio::sync::mpsc::OwnedPermit::send`](https://docs.rs/tokio/1/tokio/sync/mpsc/struct.OwnedPermit.html#method.send):
    /// sends into the reserved slot and gives the sender back.
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub fn send(mut self, value: T) -> Sender<T> {
        let chan = self
            .chan
            .take()
            .expect("OwnedPermit channel is only taken when the permit is moved");
        chan.chan.push(value);
        Sender { chan }
    }

    /// Simulated/own version of
    /// [`tokio::sync::mpsc::OwnedPermit::release`](https://docs.rs/tokio/1/tokio/sync/mpsc/struct.OwnedPermit.html#method.release):
    /// gives the slot back without sending, returning the sender.
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub fn release(mut self) -> Sender<T> {
        let chan = self
            .chan
            .take()
            .expect("OwnedPermit channel is only taken when the permit is moved");
        chan.chan.release(1);
        Sender { chan }
    }

    /// Simulated/own version of
    /// [`tokio::sync::mpsc::OwnedPermit::same_channel`](https://docs.rs/tokio/1/tokio/sync/mpsc/struct.OwnedPermit.html#method.same_channel):
    /// whether both permits belong to one channel.
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub fn same_channel(&self, other: &Self) -> bool {
        self.chan
            .as_ref()
            .zip(other.chan.as_ref())
            .is_some_and(|(a, b)| a.same_channel(b))
    }

    /// Simulated/own version of
    /// [`tokio::sync::mpsc::OwnedPermit::same_channel_as_sender`](https://docs.rs/tokio/1/tokio/sync/mpsc/struct.OwnedPermit.html#method.same_channel_as_sender):
    /// whether the permit belongs to `sender`'s channel.
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub fn same_channel_as_sender(&self, sender: &Sender<T>) -> bool {
        self.chan
            .as_ref()
            .is_some_and(|chan| chan.same_channel(&sender.chan))
    }
}

impl<T> Drop for OwnedPermit<T> {
    fn drop(&mut self) {
        if let Some(chan) = self.chan.take() {
            chan.chan.release(1);
        }
    }
}

impl<T> fmt::Debug for OwnedPermit<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OwnedPermit")
            .field("chan", &self.chan)
            .finish()
    }
}
