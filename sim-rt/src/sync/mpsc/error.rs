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

/// Writes a send error enum's `into_inner`, its `Debug` (the variant's
/// name, without the value, as tokio's), its `Display` and `Error`.
macro_rules! send_error_enum {
    ($err:ident: $($variant:ident => $msg:literal),+) => {
        impl<T> $err<T> {
            #[doc = concat!(
                "Simulated/own version of\n[`tokio::sync::mpsc::error::",
                stringify!($err),
                "::into_inner`](https://docs.rs/tokio/1/tokio/sync/mpsc/error/enum.",
                stringify!($err),
                ".html#method.into_inner):\nthe value that was not sent.",
                "\n\n# Differences from tokio\n\nNone."
            )]
            pub fn into_inner(self) -> T {
                match self {
                    $($err::$variant(val))|+ => val,
                }
            }
        }

        impl<T> fmt::Debug for $err<T> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                match self {
                    $($err::$variant(..) => concat!(stringify!($variant), "(..)").fmt(f),)+
                }
            }
        }

        impl<T> fmt::Display for $err<T> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(match self {
                    $($err::$variant(..) => $msg,)+
                })
            }
        }

        impl<T> Error for $err<T> {}
    };
}

send_error_enum!(TrySendError: Full => "no available capacity", Closed => "channel closed");

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

send_error_enum!(
    SendTimeoutError: Timeout => "timed out waiting on send operation",
    Closed => "channel closed"
);
