//! Simulated/own version of
//! [`tokio::sync::mpsc::error`](https://docs.rs/tokio/1/tokio/sync/mpsc/error/index.html):
//! the channel's error types, with tokio's `Debug` and `Display` texts.

use std::error::Error;
use std::fmt;

/// Simulated/own version of
/// [`tokio::sync::mpsc::error::SendError`](https://docs.rs/tokio/1/tokio/sync/mpsc/error/struct.SendError.html):
/// the receiver is gone (or closed); the value comes back.
///
/// # Differences from tokio
///
/// None.
#[derive(PartialEq, Eq, Clone, Copy)]
pub struct SendError<T>(pub T);

send_error_impls!(SendError);

/// Simulated/own version of
/// [`tokio::sync::mpsc::error::TrySendError`](https://docs.rs/tokio/1/tokio/sync/mpsc/error/enum.TrySendError.html):
/// why a `try_send` failed.
///
/// # Differences from tokio
///
/// None.
#[derive(PartialEq, Eq, Clone, Copy)]
pub enum TrySendError<T> {
    /// The channel is full.
    Full(T),
    /// The receiver is gone (or closed).
    Closed(T),
}

impl<T> TrySendError<T> {
    /// Simulated/own version of
    /// [`tokio::sync::mpsc::error::TrySendError::into_inner`](https://docs.rs/tokio/1/tokio/sync/mpsc/error/enum.TrySendError.html#method.into_inner):
    /// the value that was not sent.
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub fn into_inner(self) -> T {
        match self {
            TrySendError::Full(val) | TrySendError::Closed(val) => val,
        }
    }
}

impl<T> fmt::Debug for TrySendError<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TrySendError::Full(..) => "Full(..)".fmt(f),
            TrySendError::Closed(..) => "Closed(..)".fmt(f),
        }
    }
}

impl<T> fmt::Display for TrySendError<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            TrySendError::Full(..) => "no available capacity",
            TrySendError::Closed(..) => "channel closed",
        })
    }
}

impl<T> Error for TrySendError<T> {}

impl<T> From<SendError<T>> for TrySendError<T> {
    fn from(src: SendError<T>) -> TrySendError<T> {
        TrySendError::Closed(src.0)
    }
}

/// Simulated/own version of
/// [`tokio::sync::mpsc::error::TryRecvError`](https://docs.rs/tokio/1/tokio/sync/mpsc/error/enum.TryRecvError.html):
/// why a `try_recv` returned no message.
///
/// # Differences from tokio
///
/// None.
#[derive(PartialEq, Eq, Clone, Copy, Debug)]
pub enum TryRecvError {
    /// No message now, but senders (or permits) remain.
    Empty,
    /// No message, and none can come any more.
    Disconnected,
}

impl fmt::Display for TryRecvError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TryRecvError::Empty => "receiving on an empty channel".fmt(f),
            TryRecvError::Disconnected => "receiving on a closed channel".fmt(f),
        }
    }
}

impl Error for TryRecvError {}

/// Simulated/own version of tokio's deprecated, unused
/// [`tokio::sync::mpsc::error::RecvError`](https://docs.rs/tokio/1/tokio/sync/mpsc/error/struct.RecvError.html).
///
/// # Differences from tokio
///
/// None.
#[derive(Debug, Clone)]
#[doc(hidden)]
#[deprecated(note = "This type is unused because recv returns an Option.")]
pub struct RecvError(());

#[allow(deprecated)]
impl fmt::Display for RecvError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "channel closed")
    }
}

#[allow(deprecated)]
impl Error for RecvError {}

/// Simulated/own version of
/// [`tokio::sync::mpsc::error::SendTimeoutError`](https://docs.rs/tokio/1/tokio/sync/mpsc/error/enum.SendTimeoutError.html):
/// why a [`send_timeout`](super::Sender::send_timeout) failed.
///
/// # Differences from tokio
///
/// None.
#[derive(PartialEq, Eq, Clone, Copy)]
pub enum SendTimeoutError<T> {
    /// No capacity within the timeout (simulated time).
    Timeout(T),
    /// The receiver is gone (or closed).
    Closed(T),
}

impl<T> SendTimeoutError<T> {
    /// Simulated/own version of
    /// [`tokio::sync::mpsc::error::SendTimeoutError::into_inner`](https://docs.rs/tokio/1/tokio/sync/mpsc/error/enum.SendTimeoutError.html#method.into_inner):
    /// the value that was not sent.
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub fn into_inner(self) -> T {
        match self {
            SendTimeoutError::Timeout(val) | SendTimeoutError::Closed(val) => val,
        }
    }
}

impl<T> fmt::Debug for SendTimeoutError<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SendTimeoutError::Timeout(..) => "Timeout(..)".fmt(f),
            SendTimeoutError::Closed(..) => "Closed(..)".fmt(f),
        }
    }
}

impl<T> fmt::Display for SendTimeoutError<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            SendTimeoutError::Timeout(..) => "timed out waiting on send operation",
            SendTimeoutError::Closed(..) => "channel closed",
        })
    }
}

impl<T> Error for SendTimeoutError<T> {}
