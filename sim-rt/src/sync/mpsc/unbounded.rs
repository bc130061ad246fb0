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

handle_traits!(UnboundedSender, clone);

handle_traits!(UnboundedReceiver);

/// Simulated/own version of
/// [`tokio::sync::mpsc::unbounded_channel`](https://docs.rs/tokio/1/tokio/sync/mpsc/fn.unbounded_channel.html):
/// a channel without a bound; sends never wait.
///
/// # Differences from tokio
///
/// None.
pub fn unbounded_channel<T>() -> (UnboundedSender<T>, UnboundedReceiver<T>) {
    let (tx, rx) = chan::handles(None);
    (UnboundedSender { chan: tx }, UnboundedReceiver { chan: rx })
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

    sender_methods!(UnboundedSender, WeakUnboundedSender);
}

weak_sender!(WeakUnboundedSender, UnboundedSender);
