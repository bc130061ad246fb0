//! Simulated/own version of tokio's Unix stream halves, borrowed and
//! owned: like the stream they come from, they never exist.

use std::error::Error;
use std::fmt;
use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use bytes::BufMut;

use super::{SocketAddr, UnixStream};
use crate::io::{AsyncRead, AsyncWrite, Interest, ReadBuf, Ready};

/// Simulated/own version of
/// [`tokio::net::unix::ReadHalf`](https://docs.rs/tokio/1/tokio/net/unix/struct.ReadHalf.html):
/// the borrowed read half of a [`UnixStream`].
///
/// # Differences from tokio
///
/// Never exists, as no `UnixStream` does.
#[derive(Debug)]
pub struct ReadHalf<'a>(&'a UnixStream);

/// Simulated/own version of
/// [`tokio::net::unix::WriteHalf`](https://docs.rs/tokio/1/tokio/net/unix/struct.WriteHalf.html):
/// the borrowed write half of a [`UnixStream`].
///
/// # Differences from tokio
///
/// Never exists, as no `UnixStream` does.
#[derive(Debug)]
pub struct WriteHalf<'a>(&'a UnixStream);

/// Simulated/own version of
/// [`tokio::net::unix::OwnedReadHalf`](https://docs.rs/tokio/1/tokio/net/unix/struct.OwnedReadHalf.html):
/// the owned read half of a [`UnixStream`].
///
/// # Differences from tokio
///
/// Never exists, as no `UnixStream` does.
#[derive(Debug)]
pub struct OwnedReadHalf {
    inner: Arc<UnixStream>,
}

/// Simulated/own version of
/// [`tokio::net::unix::OwnedWriteHalf`](https://docs.rs/tokio/1/tokio/net/unix/struct.OwnedWriteHalf.html):
/// the owned write half of a [`UnixStream`].
///
/// # Differences from tokio
///
/// Never exists, as no `UnixStream` does.
#[derive(Debug)]
pub struct OwnedWriteHalf {
    inner: Arc<UnixStream>,
}

/// Simulated/own version of
/// [`tokio::net::unix::ReuniteError`](https://docs.rs/tokio/1/tokio/net/unix/struct.ReuniteError.html):
/// the two halves were not from the same socket.
///
/// # Differences from tokio
///
/// Never produced, as no halves exist.
#[derive(Debug)]
pub struct ReuniteError(pub OwnedReadHalf, pub OwnedWriteHalf);

impl fmt::Display for ReuniteError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("tried to reunite halves that are not from the same socket")
    }
}

impl Error for ReuniteError {}

/// The methods a read or write half shares with the stream: `$dir` is
/// `read` or `write`.
macro_rules! half {
    ($ty:ty, $path:literal, $url:literal, |$s:ident| $stream:expr, $dir:ident) => {
        impl $ty {
            never_methods!($path, $url: ready, $dir, addrs);

            fn absurd<T>(&self) -> T {
                let $s = self;
                $stream.absurd()
            }
        }

        never_async!($dir $ty);

        impl AsRef<UnixStream> for $ty {
            fn as_ref(&self) -> &UnixStream {
                let $s = self;
                $stream
            }
        }
    };
}

half!(
    ReadHalf<'_>,
    "tokio::net::unix::ReadHalf",
    "https://docs.rs/tokio/1/tokio/net/unix/struct.ReadHalf.html",
    |s| s.0,
    read
);
half!(
    WriteHalf<'_>,
    "tokio::net::unix::WriteHalf",
    "https://docs.rs/tokio/1/tokio/net/unix/struct.WriteHalf.html",
    |s| s.0,
    write
);
half!(
    OwnedReadHalf,
    "tokio::net::unix::OwnedReadHalf",
    "https://docs.rs/tokio/1/tokio/net/unix/struct.OwnedReadHalf.html",
    |s| &*s.inner,
    read
);
half!(
    OwnedWriteHalf,
    "tokio::net::unix::OwnedWriteHalf",
    "https://docs.rs/tokio/1/tokio/net/unix/struct.OwnedWriteHalf.html",
    |s| &*s.inner,
    write
);

impl OwnedReadHalf {
    /// Simulated/own version of
    /// [`tokio::net::unix::OwnedReadHalf::reunite`](https://docs.rs/tokio/1/tokio/net/unix/struct.OwnedReadHalf.html#method.reunite).
    pub fn reunite(self, other: OwnedWriteHalf) -> Result<UnixStream, ReuniteError> {
        let _ = other;
        self.inner.absurd()
    }
}

impl OwnedWriteHalf {
    /// Simulated/own version of
    /// [`tokio::net::unix::OwnedWriteHalf::reunite`](https://docs.rs/tokio/1/tokio/net/unix/struct.OwnedWriteHalf.html#method.reunite).
    pub fn reunite(self, other: OwnedReadHalf) -> Result<UnixStream, ReuniteError> {
        let _ = other;
        self.inner.absurd()
    }

    /// Simulated/own version of
    /// [`tokio::net::unix::OwnedWriteHalf::forget`](https://docs.rs/tokio/1/tokio/net/unix/struct.OwnedWriteHalf.html#method.forget).
    pub fn forget(self) {
        self.inner.absurd()
    }
}
