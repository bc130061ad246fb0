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

/// The methods both read halves share with the stream.
macro_rules! read_half {
    ($ty:ty, $name:literal, |$s:ident| $stream:expr) => {
        impl $ty {
            #[doc = concat!("Simulated/own version of [`tokio::net::unix::", $name, "::ready`](https://docs.rs/tokio/1/tokio/net/unix/struct.", $name, ".html#method.ready).")]
            pub async fn ready(&self, interest: Interest) -> io::Result<Ready> {
                let _ = interest;
                let $s = self;
                $stream.absurd()
            }

            #[doc = concat!("Simulated/own version of [`tokio::net::unix::", $name, "::readable`](https://docs.rs/tokio/1/tokio/net/unix/struct.", $name, ".html#method.readable).")]
            pub async fn readable(&self) -> io::Result<()> {
                let $s = self;
                $stream.absurd()
            }

            #[doc = concat!("Simulated/own version of [`tokio::net::unix::", $name, "::try_read`](https://docs.rs/tokio/1/tokio/net/unix/struct.", $name, ".html#method.try_read).")]
            pub fn try_read(&self, buf: &mut [u8]) -> io::Result<usize> {
                let _ = buf;
                let $s = self;
                $stream.absurd()
            }

            #[doc = concat!("Simulated/own version of [`tokio::net::unix::", $name, "::try_read_buf`](https://docs.rs/tokio/1/tokio/net/unix/struct.", $name, ".html#method.try_read_buf).")]
            pub fn try_read_buf<B: BufMut>(&self, buf: &mut B) -> io::Result<usize> {
                let _ = buf;
                let $s = self;
                $stream.absurd()
            }

            #[doc = concat!("Simulated/own version of [`tokio::net::unix::", $name, "::try_read_vectored`](https://docs.rs/tokio/1/tokio/net/unix/struct.", $name, ".html#method.try_read_vectored).")]
            pub fn try_read_vectored(&self, bufs: &mut [io::IoSliceMut<'_>]) -> io::Result<usize> {
                let _ = bufs;
                let $s = self;
                $stream.absurd()
            }

            #[doc = concat!("Simulated/own version of [`tokio::net::unix::", $name, "::peer_addr`](https://docs.rs/tokio/1/tokio/net/unix/struct.", $name, ".html#method.peer_addr).")]
            pub fn peer_addr(&self) -> io::Result<SocketAddr> {
                let $s = self;
                $stream.absurd()
            }

            #[doc = concat!("Simulated/own version of [`tokio::net::unix::", $name, "::local_addr`](https://docs.rs/tokio/1/tokio/net/unix/struct.", $name, ".html#method.local_addr).")]
            pub fn local_addr(&self) -> io::Result<SocketAddr> {
                let $s = self;
                $stream.absurd()
            }
        }

        impl AsyncRead for $ty {
            fn poll_read(
                self: Pin<&mut Self>,
                _: &mut Context<'_>,
                _: &mut ReadBuf<'_>,
            ) -> Poll<io::Result<()>> {
                let $s = &*self;
                $stream.absurd()
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

/// The methods both write halves share with the stream.
macro_rules! write_half {
    ($ty:ty, $name:literal, |$s:ident| $stream:expr) => {
        impl $ty {
            #[doc = concat!("Simulated/own version of [`tokio::net::unix::", $name, "::ready`](https://docs.rs/tokio/1/tokio/net/unix/struct.", $name, ".html#method.ready).")]
            pub async fn ready(&self, interest: Interest) -> io::Result<Ready> {
                let _ = interest;
                let $s = self;
                $stream.absurd()
            }

            #[doc = concat!("Simulated/own version of [`tokio::net::unix::", $name, "::writable`](https://docs.rs/tokio/1/tokio/net/unix/struct.", $name, ".html#method.writable).")]
            pub async fn writable(&self) -> io::Result<()> {
                let $s = self;
                $stream.absurd()
            }

            #[doc = concat!("Simulated/own version of [`tokio::net::unix::", $name, "::try_write`](https://docs.rs/tokio/1/tokio/net/unix/struct.", $name, ".html#method.try_write).")]
            pub fn try_write(&self, buf: &[u8]) -> io::Result<usize> {
                let _ = buf;
                let $s = self;
                $stream.absurd()
            }

            #[doc = concat!("Simulated/own version of [`tokio::net::unix::", $name, "::try_write_vectored`](https://docs.rs/tokio/1/tokio/net/unix/struct.", $name, ".html#method.try_write_vectored).")]
            pub fn try_write_vectored(&self, buf: &[io::IoSlice<'_>]) -> io::Result<usize> {
                let _ = buf;
                let $s = self;
                $stream.absurd()
            }

            #[doc = concat!("Simulated/own version of [`tokio::net::unix::", $name, "::peer_addr`](https://docs.rs/tokio/1/tokio/net/unix/struct.", $name, ".html#method.peer_addr).")]
            pub fn peer_addr(&self) -> io::Result<SocketAddr> {
                let $s = self;
                $stream.absurd()
            }

            #[doc = concat!("Simulated/own version of [`tokio::net::unix::", $name, "::local_addr`](https://docs.rs/tokio/1/tokio/net/unix/struct.", $name, ".html#method.local_addr).")]
            pub fn local_addr(&self) -> io::Result<SocketAddr> {
                let $s = self;
                $stream.absurd()
            }
        }

        impl AsyncWrite for $ty {
            fn poll_write(
                self: Pin<&mut Self>,
                _: &mut Context<'_>,
                _: &[u8],
            ) -> Poll<io::Result<usize>> {
                let $s = &*self;
                $stream.absurd()
            }

            fn poll_write_vectored(
                self: Pin<&mut Self>,
                _: &mut Context<'_>,
                _: &[io::IoSlice<'_>],
            ) -> Poll<io::Result<usize>> {
                let $s = &*self;
                $stream.absurd()
            }

            fn is_write_vectored(&self) -> bool {
                let $s = self;
                $stream.absurd()
            }

            fn poll_flush(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
                let $s = &*self;
                $stream.absurd()
            }

            fn poll_shutdown(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
                let $s = &*self;
                $stream.absurd()
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

read_half!(ReadHalf<'_>, "ReadHalf", |s| s.0);
write_half!(WriteHalf<'_>, "WriteHalf", |s| s.0);
read_half!(OwnedReadHalf, "OwnedReadHalf", |s| &*s.inner);
write_half!(OwnedWriteHalf, "OwnedWriteHalf", |s| &*s.inner);

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
