//! Simulated/own version of tokio's Unix stream halves, borrowed and
//! owned.

use std::error::Error;
use std::fmt;
use std::io;
use std::net::Shutdown;
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
/// None.
#[derive(Debug)]
pub struct ReadHalf<'a>(pub(super) &'a UnixStream);

/// Simulated/own version of
/// [`tokio::net::unix::WriteHalf`](https://docs.rs/tokio/1/tokio/net/unix/struct.WriteHalf.html):
/// the borrowed write half of a [`UnixStream`]; its `shutdown` shuts the
/// stream's writing down.
///
/// # Differences from tokio
///
/// None.
#[derive(Debug)]
pub struct WriteHalf<'a>(pub(super) &'a UnixStream);

/// Simulated/own version of
/// [`tokio::net::unix::OwnedReadHalf`](https://docs.rs/tokio/1/tokio/net/unix/struct.OwnedReadHalf.html):
/// the owned read half of a [`UnixStream`].
///
/// # Differences from tokio
///
/// None.
#[derive(Debug)]
pub struct OwnedReadHalf {
    inner: Arc<UnixStream>,
}

/// Simulated/own version of
/// [`tokio::net::unix::OwnedWriteHalf`](https://docs.rs/tokio/1/tokio/net/unix/struct.OwnedWriteHalf.html):
/// the owned write half of a [`UnixStream`]; dropping it shuts the
/// stream's writing down unless it was [`forget`](Self::forget)-ten.
///
/// # Differences from tokio
///
/// None.
#[derive(Debug)]
pub struct OwnedWriteHalf {
    inner: Arc<UnixStream>,
    shutdown_on_drop: bool,
}

/// Simulated/own version of
/// [`tokio::net::unix::ReuniteError`](https://docs.rs/tokio/1/tokio/net/unix/struct.ReuniteError.html):
/// the two halves were not from the same socket.
///
/// # Differences from tokio
///
/// None.
#[derive(Debug)]
pub struct ReuniteError(pub OwnedReadHalf, pub OwnedWriteHalf);

impl fmt::Display for ReuniteError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("tried to reunite halves that are not from the same socket")
    }
}

impl Error for ReuniteError {}

/// `into_split`'s halves of `stream`.
pub(super) fn split_owned(stream: Arc<UnixStream>) -> (OwnedReadHalf, OwnedWriteHalf) {
    (
        OwnedReadHalf {
            inner: stream.clone(),
        },
        OwnedWriteHalf {
            inner: stream,
            shutdown_on_drop: true,
        },
    )
}

fn reunite(read: OwnedReadHalf, write: OwnedWriteHalf) -> Result<UnixStream, ReuniteError> {
    if !Arc::ptr_eq(&read.inner, &write.inner) {
        return Err(ReuniteError(read, write));
    }
    write.forget();
    Ok(Arc::try_unwrap(read.inner).expect("the two halves held the only references"))
}

macro_rules! read_half {
    ($ty:ty, $path:literal, $url:literal, |$s:ident| $stream:expr) => {
        impl $ty {
            unix_methods!($path, $url, |$s| $stream.io; ready, read, addrs);
        }

        impl AsyncRead for $ty {
            fn poll_read(
                self: Pin<&mut Self>,
                cx: &mut Context<'_>,
                buf: &mut ReadBuf<'_>,
            ) -> Poll<io::Result<()>> {
                let $s = &*self;
                $stream.io.poll_read(cx, buf)
            }
        }

        impl AsRef<UnixStream> for $ty {
            fn as_ref(&self) -> &UnixStream {
                let $s = self;
                $stream
            }
        }
    };
}

macro_rules! write_half {
    ($ty:ty, $path:literal, $url:literal, |$s:ident| $stream:expr) => {
        impl $ty {
            unix_methods!($path, $url, |$s| $stream.io; ready, write, addrs);
        }

        impl AsyncWrite for $ty {
            fn poll_write(
                self: Pin<&mut Self>,
                cx: &mut Context<'_>,
                buf: &[u8],
            ) -> Poll<io::Result<usize>> {
                let $s = &*self;
                $stream.io.poll_write(cx, buf)
            }

            fn poll_write_vectored(
                self: Pin<&mut Self>,
                cx: &mut Context<'_>,
                bufs: &[io::IoSlice<'_>],
            ) -> Poll<io::Result<usize>> {
                let data: Vec<u8> = bufs.iter().flat_map(|b| b.iter().copied()).collect();
                let $s = &*self;
                $stream.io.poll_write(cx, &data)
            }

            fn is_write_vectored(&self) -> bool {
                true
            }

            fn poll_flush(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
                Poll::Ready(Ok(()))
            }

            fn poll_shutdown(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
                let $s = &*self;
                Poll::Ready($stream.shutdown_std(Shutdown::Write))
            }
        }

        impl AsRef<UnixStream> for $ty {
            fn as_ref(&self) -> &UnixStream {
                let $s = self;
                $stream
            }
        }
    };
}

read_half!(
    ReadHalf<'_>,
    "tokio::net::unix::ReadHalf",
    "https://docs.rs/tokio/1/tokio/net/unix/struct.ReadHalf.html",
    |s| s.0
);
write_half!(
    WriteHalf<'_>,
    "tokio::net::unix::WriteHalf",
    "https://docs.rs/tokio/1/tokio/net/unix/struct.WriteHalf.html",
    |s| s.0
);
read_half!(
    OwnedReadHalf,
    "tokio::net::unix::OwnedReadHalf",
    "https://docs.rs/tokio/1/tokio/net/unix/struct.OwnedReadHalf.html",
    |s| &*s.inner
);
write_half!(
    OwnedWriteHalf,
    "tokio::net::unix::OwnedWriteHalf",
    "https://docs.rs/tokio/1/tokio/net/unix/struct.OwnedWriteHalf.html",
    |s| &*s.inner
);

impl OwnedReadHalf {
    /// Simulated/own version of
    /// [`tokio::net::unix::OwnedReadHalf::reunite`](https://docs.rs/tokio/1/tokio/net/unix/struct.OwnedReadHalf.html#method.reunite):
    /// the stream again, if `other` is its write half.
    pub fn reunite(self, other: OwnedWriteHalf) -> Result<UnixStream, ReuniteError> {
        reunite(self, other)
    }
}

impl OwnedWriteHalf {
    /// Simulated/own version of
    /// [`tokio::net::unix::OwnedWriteHalf::reunite`](https://docs.rs/tokio/1/tokio/net/unix/struct.OwnedWriteHalf.html#method.reunite):
    /// the stream again, if `other` is its read half.
    pub fn reunite(self, other: OwnedReadHalf) -> Result<UnixStream, ReuniteError> {
        reunite(other, self)
    }

    /// Simulated/own version of
    /// [`tokio::net::unix::OwnedWriteHalf::forget`](https://docs.rs/tokio/1/tokio/net/unix/struct.OwnedWriteHalf.html#method.forget):
    /// drops the half without shutting the writing down.
    pub fn forget(mut self) {
        self.shutdown_on_drop = false;
        drop(self);
    }
}

impl Drop for OwnedWriteHalf {
    fn drop(&mut self) {
        if self.shutdown_on_drop {
            // A stream whose host is gone has nothing to shut down.
            let _ = self.inner.shutdown_std(Shutdown::Write);
        }
    }
}
