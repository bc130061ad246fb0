//! The unbounded `mpsc` handles: [`unbounded_channel`],
//! [`UnboundedSender`], [`UnboundedReceiver`], [`WeakUnboundedSender`].

use std::fmt;
use std::task::{Context, Poll};

use super::chan::{self, Rx, Tx, WeakTx};
use super::error::{SendError, TryRecvError};
use crate::sync::util::block_on;

/// Simulated/own version of
/// [`tokio::sync::mpsc::UnboundedSender`](https://docs.rs/tokio/1/tokio/sync/mpsc/struct.UnboundedSender.html):
/// sends values to the [`UnboundedReceiver`] without waiting.
///
/// # Differences from tokio
///
/// None.
pub struct UnboundedSender<T> {
    chan: Tx<T>,
}

/// Simulated/own version of
/// [`tokio::sync::mpsc::WeakUnboundedSender`](https://docs.rs/tokio/1/tokio/sync/mpsc/struct.WeakUnboundedSender.html):
/// an unbounded sender that does not keep the channel open.
///
/// # Differences from tokio
///
/// None.
pub struct WeakUnboundedSender<T> {
    chan: WeakTx<T>,
}

/// Simulated/own version of
/// [`tokio::sync::mpsc::UnboundedReceiver`](https://docs.rs/tokio/1/tokio/sync/mpsc/struct.UnboundedReceiver.html):
/// receives the values of an unbounded channel.
///
/// # Differences from tokio
///
/// None.
pub struct UnboundedReceiver<T> {
    chan: Rx<T>,
}

impl<T> Clone for UnboundedSender<T> {
    fn clone(&self) -> Self {
        UnboundedSender {
            chan: self.chan.clone(),
        }
    }
}

impl<T> fmt::Debug for UnboundedSender<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("UnboundedSender")
            .field("chan", &self.chan)
            .finish()
    }
}

impl<T> fmt::Debug for UnboundedReceiver<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("UnboundedReceiver")
            .field("chan", &self.chan)
            .finish()
    }
}

/// Simulated/own version of
/// [`tokio::sync::mpsc::unbounded_channel`](https://docs.rs/tokio/1/tokio/sync/mpsc/fn.unbounded_channel.html):
/// a channel without a bound; sends never wait.
///
/// # Differences from tokio
///
/// None.
pub fn unbounded_channel<T>() -> (UnboundedSender<T>, UnboundedReceiver<T>) {
    let chan = chan::channel(None);
    (
        UnboundedSender {
            chan: Tx::new(chan.clone()),
        },
        UnboundedReceiver { chan: Rx { chan } },
    )
}

impl<T> UnboundedReceiver<T> {
    receiver_methods!(
        "UnboundedReceiver",
        "UnboundedSender",
        "WeakUnboundedSender",
        "buffered messages can still be received."
    );
}

impl<T> UnboundedSender<T> {
    /// Simulated/own version of
    /// [`tokio::sync::mpsc::UnboundedSender::send`](https://docs.rs/tokio/1/tokio/sync/mpsc/struct.UnboundedSender.html#method.send):
    /// sends without waiting; the value comes back if the receiver is gone
    /// or closed.
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub fn send(&self, message: T) -> Result<(), SendError<T>> {
        self.chan.chan.push_unbounded(message).map_err(SendError)
    }

    /// Simulated/own version of
    /// [`tokio::sync::mpsc::UnboundedSender::closed`](https://docs.rs/tokio/1/tokio/sync/mpsc/struct.UnboundedSender.html#method.closed):
    /// completes once the receiver is dropped or closed.
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub async fn closed(&self) {
        self.chan.chan.closed().await;
    }

    /// Simulated/own version of
    /// [`tokio::sync::mpsc::UnboundedSender::is_closed`](https://docs.rs/tokio/1/tokio/sync/mpsc/struct.UnboundedSender.html#method.is_closed):
    /// whether the receiver is dropped or closed.
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub fn is_closed(&self) -> bool {
        self.chan.chan.is_closed()
    }

    /// Simulated/own version of
    /// [`tokio::sync::mpsc::UnboundedSender::same_channel`](https://docs.rs/tokio/1/tokio/sync/mpsc/struct.UnboundedSender.html#method.same_channel):
    /// whether both senders send into one channel.
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub fn same_channel(&self, other: &Self) -> bool {
        self.chan.same_channel(&other.chan)
    }

    /// Simulated/own version of
    /// [`tokio::sync::mpsc::UnboundedSender::downgrade`](https://docs.rs/tokio/1/tokio/sync/mpsc/struct.UnboundedSender.html#method.downgrade):
    /// a [`WeakUnboundedSender`] for this channel.
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub fn downgrade(&self) -> WeakUnboundedSender<T> {
        WeakUnboundedSender {
            chan: WeakTx::new(&self.chan),
        }
    }

    /// Simulated/own version of
    /// [`tokio::sync::mpsc::UnboundedSender::strong_count`](https://docs.rs/tokio/1/tokio/sync/mpsc/struct.UnboundedSender.html#method.strong_count):
    /// the number of [`UnboundedSender`]s.
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub fn strong_count(&self) -> usize {
        self.chan.chan.strong_count()
    }

    /// Simulated/own version of
    /// [`tokio::sync::mpsc::UnboundedSender::weak_count`](https://docs.rs/tokio/1/tokio/sync/mpsc/struct.UnboundedSender.html#method.weak_count):
    /// the number of [`WeakUnboundedSender`]s.
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub fn weak_count(&self) -> usize {
        self.chan.chan.weak_count()
    }
}

weak_sender!(WeakUnboundedSender, UnboundedSender);
