//! Simulated `tokio::net::tcp::{OwnedReadHalf, OwnedWriteHalf,
//! ReuniteError}`: a stream split by [`TcpStream::into_split`] into halves
//! that can move into separate tasks.
//!
//! Both halves share the stream through an `Arc`, as in tokio. The stream
//! (and so the connection) is closed when the last half is dropped.
//!
//! # Invariants
//!
//! - Exactly two `Arc`s of a split stream exist, one per half, until one
//!   half is dropped; so `reunite` of two matching halves always unwraps.
//! - `OwnedWriteHalf::shutdown_on_drop` is true until the write direction
//!   was shut down by `poll_shutdown` or the half was forgotten.

use std::error::Error;
use std::future::poll_fn;
use std::net::{Shutdown, SocketAddr};
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::{fmt, io};

use crate::io::{AsyncRead, AsyncWrite, Interest, ReadBuf, Ready};
use bytes::BufMut;

use super::TcpStream;

/// Simulated [`tokio::net::tcp::OwnedReadHalf`](https://docs.rs/tokio/1/tokio/net/tcp/struct.OwnedReadHalf.html): the owned read half of a
/// [`TcpStream`], created by [`TcpStream::into_split`].
///
/// Reading is usually done with the helpers of
/// [`AsyncReadExt`](crate::io::AsyncReadExt).
///
/// # Differences from tokio
///
/// None.
#[derive(Debug)]
pub struct OwnedReadHalf {
    inner: Arc<TcpStream>,
}

/// Simulated [`tokio::net::tcp::OwnedWriteHalf`](https://docs.rs/tokio/1/tokio/net/tcp/struct.OwnedWriteHalf.html): the owned write half of
/// a [`TcpStream`], created by [`TcpStream::into_split`].
///
/// Its `poll_shutdown` shuts down the write direction of the stream, and
/// so does dropping it (unless it is [forgotten](Self::forget)): the peer
/// reads end of stream while this side can still read.
///
/// Writing is usually done with the helpers of
/// [`AsyncWriteExt`](crate::io::AsyncWriteExt).
///
/// # Differences from tokio
///
/// None.
#[derive(Debug)]
pub struct OwnedWriteHalf {
    inner: Arc<TcpStream>,
    shutdown_on_drop: bool,
}

pub(super) fn split_owned(stream: TcpStream) -> (OwnedReadHalf, OwnedWriteHalf) {
    let inner = Arc::new(stream);
    let read = OwnedReadHalf {
        inner: Arc::clone(&inner),
    };
    let write = OwnedWriteHalf {
        inner,
        shutdown_on_drop: true,
    };
    (read, write)
}

fn reunite(read: OwnedReadHalf, write: OwnedWriteHalf) -> Result<TcpStream, ReuniteError> {
    if Arc::ptr_eq(&read.inner, &write.inner) {
        write.forget();
        Ok(Arc::try_unwrap(read.inner)
            .expect("the two halves of one split hold the only references to their stream"))
    } else {
        Err(ReuniteError(read, write))
    }
}

/// Simulated [`tokio::net::tcp::ReuniteError`](https://docs.rs/tokio/1/tokio/net/tcp/struct.ReuniteError.html): the two halves given to
/// `reunite` came from different streams. It gives both back.
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

impl OwnedReadHalf {
    /// Simulated [`tokio::net::tcp::OwnedReadHalf::reunite`](https://docs.rs/tokio/1/tokio/net/tcp/struct.OwnedReadHalf.html#method.reunite): puts the two
    /// halves back together into the original stream. Succeeds only if
    /// both come from the same [`TcpStream::into_split`].
    ///
    /// # Errors
    ///
    /// [`ReuniteError`], holding both halves, when they do not match.
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub fn reunite(self, other: OwnedWriteHalf) -> Result<TcpStream, ReuniteError> {
        reunite(self, other)
    }

    /// Simulated [`tokio::net::tcp::OwnedReadHalf::poll_peek`](https://docs.rs/tokio/1/tokio/net/tcp/struct.OwnedReadHalf.html#method.poll_peek): see
    /// [`TcpStream::poll_peek`].
    ///
    /// # Differences from tokio
    ///
    /// See [`TcpStream`] about wakers.
    pub fn poll_peek(
        &mut self,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<usize>> {
        self.inner.poll_peek(cx, buf)
    }

    /// Simulated [`tokio::net::tcp::OwnedReadHalf::peek`](https://docs.rs/tokio/1/tokio/net/tcp/struct.OwnedReadHalf.html#method.peek): waits for
    /// received bytes and copies them into `buf` without removing them;
    /// see [`TcpStream::peek`].
    ///
    /// # Cancel safety
    ///
    /// This method is cancel safe: if it is dropped before completing, no
    /// peek happened and `buf` is untouched.
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub async fn peek(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let mut buf = ReadBuf::new(buf);
        poll_fn(|cx| self.poll_peek(cx, &mut buf)).await
    }

    /// Simulated/own version of
    /// [`tokio::net::tcp::OwnedReadHalf::ready`](https://docs.rs/tokio/1/tokio/net/tcp/struct.OwnedReadHalf.html#method.ready):
    /// waits until the stream is ready for any of the kinds in `interest`;
    /// see [`TcpStream::ready`].
    ///
    /// # Cancel safety
    ///
    /// This method is cancel safe: it consumes nothing.
    ///
    /// # Differences from tokio
    ///
    /// As [`TcpStream::ready`].
    pub async fn ready(&self, interest: Interest) -> io::Result<Ready> {
        self.inner.ready(interest).await
    }

    /// Simulated [`tokio::net::tcp::OwnedReadHalf::readable`](https://docs.rs/tokio/1/tokio/net/tcp/struct.OwnedReadHalf.html#method.readable): waits until
    /// the stream is readable; see [`TcpStream::readable`].
    ///
    /// # Cancel safety
    ///
    /// This method is cancel safe: it consumes nothing.
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub async fn readable(&self) -> io::Result<()> {
        self.inner.readable().await
    }

    /// Simulated [`tokio::net::tcp::OwnedReadHalf::try_read`](https://docs.rs/tokio/1/tokio/net/tcp/struct.OwnedReadHalf.html#method.try_read): see
    /// [`TcpStream::try_read`].
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub fn try_read(&self, buf: &mut [u8]) -> io::Result<usize> {
        self.inner.try_read(buf)
    }

    /// Simulated [`tokio::net::tcp::OwnedReadHalf::try_read_vectored`](https://docs.rs/tokio/1/tokio/net/tcp/struct.OwnedReadHalf.html#method.try_read_vectored): see
    /// [`TcpStream::try_read_vectored`].
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub fn try_read_vectored(&self, bufs: &mut [io::IoSliceMut<'_>]) -> io::Result<usize> {
        self.inner.try_read_vectored(bufs)
    }

    /// Simulated [`tokio::net::tcp::OwnedReadHalf::try_read_buf`](https://docs.rs/tokio/1/tokio/net/tcp/struct.OwnedReadHalf.html#method.try_read_buf): see
    /// [`TcpStream::try_read_buf`].
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub fn try_read_buf<B: BufMut>(&self, buf: &mut B) -> io::Result<usize> {
        self.inner.try_read_buf(buf)
    }

    /// Simulated [`tokio::net::tcp::OwnedReadHalf::peer_addr`](https://docs.rs/tokio/1/tokio/net/tcp/struct.OwnedReadHalf.html#method.peer_addr): see
    /// [`TcpStream::peer_addr`].
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub fn peer_addr(&self) -> io::Result<SocketAddr> {
        self.inner.peer_addr()
    }

    /// Simulated [`tokio::net::tcp::OwnedReadHalf::local_addr`](https://docs.rs/tokio/1/tokio/net/tcp/struct.OwnedReadHalf.html#method.local_addr): see
    /// [`TcpStream::local_addr`].
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        self.inner.local_addr()
    }
}

impl AsyncRead for OwnedReadHalf {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        self.inner.poll_read_priv(cx, buf)
    }
}

impl OwnedWriteHalf {
    /// Simulated [`tokio::net::tcp::OwnedWriteHalf::reunite`](https://docs.rs/tokio/1/tokio/net/tcp/struct.OwnedWriteHalf.html#method.reunite): puts the two
    /// halves back together into the original stream. Succeeds only if
    /// both come from the same [`TcpStream::into_split`].
    ///
    /// # Errors
    ///
    /// [`ReuniteError`], holding both halves, when they do not match.
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub fn reunite(self, other: OwnedReadHalf) -> Result<TcpStream, ReuniteError> {
        reunite(other, self)
    }

    /// Simulated [`tokio::net::tcp::OwnedWriteHalf::forget`](https://docs.rs/tokio/1/tokio/net/tcp/struct.OwnedWriteHalf.html#method.forget): drops the
    /// write half without shutting down the write direction. The stream
    /// stays open until the read half is dropped too (if it already was,
    /// this closes the stream).
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub fn forget(mut self) {
        self.shutdown_on_drop = false;
        drop(self);
    }

    /// Simulated/own version of
    /// [`tokio::net::tcp::OwnedWriteHalf::ready`](https://docs.rs/tokio/1/tokio/net/tcp/struct.OwnedWriteHalf.html#method.ready):
    /// waits until the stream is ready for any of the kinds in `interest`;
    /// see [`TcpStream::ready`].
    ///
    /// # Cancel safety
    ///
    /// This method is cancel safe: it consumes nothing.
    ///
    /// # Differences from tokio
    ///
    /// As [`TcpStream::ready`].
    pub async fn ready(&self, interest: Interest) -> io::Result<Ready> {
        self.inner.ready(interest).await
    }

    /// Simulated [`tokio::net::tcp::OwnedWriteHalf::writable`](https://docs.rs/tokio/1/tokio/net/tcp/struct.OwnedWriteHalf.html#method.writable): waits until
    /// the stream is writable; see [`TcpStream::writable`].
    ///
    /// # Cancel safety
    ///
    /// This method is cancel safe: it consumes nothing.
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub async fn writable(&self) -> io::Result<()> {
        self.inner.writable().await
    }

    /// Simulated [`tokio::net::tcp::OwnedWriteHalf::try_write`](https://docs.rs/tokio/1/tokio/net/tcp/struct.OwnedWriteHalf.html#method.try_write): see
    /// [`TcpStream::try_write`].
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub fn try_write(&self, buf: &[u8]) -> io::Result<usize> {
        self.inner.try_write(buf)
    }

    /// Simulated [`tokio::net::tcp::OwnedWriteHalf::try_write_vectored`](https://docs.rs/tokio/1/tokio/net/tcp/struct.OwnedWriteHalf.html#method.try_write_vectored):
    /// see [`TcpStream::try_write_vectored`].
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub fn try_write_vectored(&self, bufs: &[io::IoSlice<'_>]) -> io::Result<usize> {
        self.inner.try_write_vectored(bufs)
    }

    /// Simulated [`tokio::net::tcp::OwnedWriteHalf::peer_addr`](https://docs.rs/tokio/1/tokio/net/tcp/struct.OwnedWriteHalf.html#method.peer_addr): see
    /// [`TcpStream::peer_addr`].
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub fn peer_addr(&self) -> io::Result<SocketAddr> {
        self.inner.peer_addr()
    }

    /// Simulated [`tokio::net::tcp::OwnedWriteHalf::local_addr`](https://docs.rs/tokio/1/tokio/net/tcp/struct.OwnedWriteHalf.html#method.local_addr): see
    /// [`TcpStream::local_addr`].
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        self.inner.local_addr()
    }
}

impl Drop for OwnedWriteHalf {
    /// Shuts down the write direction, unless `poll_shutdown` already did
    /// or the half was forgotten.
    fn drop(&mut self) {
        if self.shutdown_on_drop {
            // As in tokio, a failure cannot be reported from a drop.
            let _ = self.inner.shutdown_std(Shutdown::Write);
        }
    }
}

impl AsyncWrite for OwnedWriteHalf {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        self.inner.poll_write_priv(cx, buf)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        self.inner.poll_write_vectored_priv(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        // Written bytes are already in the send buffer: nothing to flush.
        Poll::Ready(Ok(()))
    }

    /// Shuts down the write direction of the stream; the drop then does
    /// not do it again.
    fn poll_shutdown(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        let res = self.inner.shutdown_std(Shutdown::Write);
        if res.is_ok() {
            Pin::into_inner(self).shutdown_on_drop = false;
        }
        Poll::Ready(res)
    }
}

impl AsRef<TcpStream> for OwnedReadHalf {
    fn as_ref(&self) -> &TcpStream {
        &self.inner
    }
}

impl AsRef<TcpStream> for OwnedWriteHalf {
    fn as_ref(&self) -> &TcpStream {
        &self.inner
    }
}
