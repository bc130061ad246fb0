//! Simulated `tokio::net::tcp::{ReadHalf, WriteHalf}`: a stream borrowed
//! as two halves by [`TcpStream::split`].
//!
//! Both halves are shared references to the stream: reading and writing
//! touch different directions of the connection in the model, so they can
//! run concurrently. The types enforce who does what: only [`ReadHalf`]
//! implements `AsyncRead`, only [`WriteHalf`] implements `AsyncWrite`.

use std::future::poll_fn;
use std::io;
use std::net::{Shutdown, SocketAddr};
use std::pin::Pin;
use std::task::{Context, Poll};

use crate::io::{AsyncRead, AsyncWrite, Interest, ReadBuf, Ready};
use bytes::BufMut;

use super::TcpStream;

/// Simulated [`tokio::net::tcp::ReadHalf`](https://docs.rs/tokio/1/tokio/net/tcp/struct.ReadHalf.html): the read half of a
/// [`TcpStream`], borrowed by [`TcpStream::split`].
///
/// Reading is usually done with the helpers of
/// [`AsyncReadExt`](crate::io::AsyncReadExt).
///
/// # Differences from tokio
///
/// None.
#[derive(Debug)]
pub struct ReadHalf<'a>(&'a TcpStream);

/// Simulated [`tokio::net::tcp::WriteHalf`](https://docs.rs/tokio/1/tokio/net/tcp/struct.WriteHalf.html): the write half of a
/// [`TcpStream`], borrowed by [`TcpStream::split`].
///
/// [`shutdown`](crate::io::AsyncWriteExt::shutdown) on it shuts down the
/// write direction of the stream. Writing is usually done with the helpers
/// of [`AsyncWriteExt`](crate::io::AsyncWriteExt).
///
/// # Differences from tokio
///
/// None.
#[derive(Debug)]
pub struct WriteHalf<'a>(&'a TcpStream);

pub(super) fn split(stream: &mut TcpStream) -> (ReadHalf<'_>, WriteHalf<'_>) {
    (ReadHalf(&*stream), WriteHalf(&*stream))
}

impl ReadHalf<'_> {
    /// Simulated [`tokio::net::tcp::ReadHalf::poll_peek`](https://docs.rs/tokio/1/tokio/net/tcp/struct.ReadHalf.html#method.poll_peek): see
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
        self.0.poll_peek(cx, buf)
    }

    /// Simulated [`tokio::net::tcp::ReadHalf::peek`](https://docs.rs/tokio/1/tokio/net/tcp/struct.ReadHalf.html#method.peek): waits for received
    /// bytes and copies them into `buf` without removing them; see
    /// [`TcpStream::peek`].
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
    /// [`tokio::net::tcp::ReadHalf::ready`](https://docs.rs/tokio/1/tokio/net/tcp/struct.ReadHalf.html#method.ready):
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
        self.0.ready(interest).await
    }

    /// Simulated [`tokio::net::tcp::ReadHalf::readable`](https://docs.rs/tokio/1/tokio/net/tcp/struct.ReadHalf.html#method.readable): waits until the
    /// stream is readable; see [`TcpStream::readable`].
    ///
    /// # Cancel safety
    ///
    /// This method is cancel safe: it consumes nothing.
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub async fn readable(&self) -> io::Result<()> {
        self.0.readable().await
    }

    /// Simulated [`tokio::net::tcp::ReadHalf::try_read`](https://docs.rs/tokio/1/tokio/net/tcp/struct.ReadHalf.html#method.try_read): see
    /// [`TcpStream::try_read`].
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub fn try_read(&self, buf: &mut [u8]) -> io::Result<usize> {
        self.0.try_read(buf)
    }

    /// Simulated [`tokio::net::tcp::ReadHalf::try_read_vectored`](https://docs.rs/tokio/1/tokio/net/tcp/struct.ReadHalf.html#method.try_read_vectored): see
    /// [`TcpStream::try_read_vectored`].
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub fn try_read_vectored(&self, bufs: &mut [io::IoSliceMut<'_>]) -> io::Result<usize> {
        self.0.try_read_vectored(bufs)
    }

    /// Simulated [`tokio::net::tcp::ReadHalf::try_read_buf`](https://docs.rs/tokio/1/tokio/net/tcp/struct.ReadHalf.html#method.try_read_buf): see
    /// [`TcpStream::try_read_buf`].
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub fn try_read_buf<B: BufMut>(&self, buf: &mut B) -> io::Result<usize> {
        self.0.try_read_buf(buf)
    }

    /// Simulated [`tokio::net::tcp::ReadHalf::peer_addr`](https://docs.rs/tokio/1/tokio/net/tcp/struct.ReadHalf.html#method.peer_addr): see
    /// [`TcpStream::peer_addr`].
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub fn peer_addr(&self) -> io::Result<SocketAddr> {
        self.0.peer_addr()
    }

    /// Simulated [`tokio::net::tcp::ReadHalf::local_addr`](https://docs.rs/tokio/1/tokio/net/tcp/struct.ReadHalf.html#method.local_addr): see
    /// [`TcpStream::local_addr`].
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        self.0.local_addr()
    }
}

impl WriteHalf<'_> {
    /// Simulated/own version of
    /// [`tokio::net::tcp::WriteHalf::ready`](https://docs.rs/tokio/1/tokio/net/tcp/struct.WriteHalf.html#method.ready):
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
        self.0.ready(interest).await
    }

    /// Simulated [`tokio::net::tcp::WriteHalf::writable`](https://docs.rs/tokio/1/tokio/net/tcp/struct.WriteHalf.html#method.writable): waits until the
    /// stream is writable; see [`TcpStream::writable`].
    ///
    /// # Cancel safety
    ///
    /// This method is cancel safe: it consumes nothing.
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub async fn writable(&self) -> io::Result<()> {
        self.0.writable().await
    }

    /// Simulated [`tokio::net::tcp::WriteHalf::try_write`](https://docs.rs/tokio/1/tokio/net/tcp/struct.WriteHalf.html#method.try_write): see
    /// [`TcpStream::try_write`].
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub fn try_write(&self, buf: &[u8]) -> io::Result<usize> {
        self.0.try_write(buf)
    }

    /// Simulated [`tokio::net::tcp::WriteHalf::try_write_vectored`](https://docs.rs/tokio/1/tokio/net/tcp/struct.WriteHalf.html#method.try_write_vectored): see
    /// [`TcpStream::try_write_vectored`].
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub fn try_write_vectored(&self, bufs: &[io::IoSlice<'_>]) -> io::Result<usize> {
        self.0.try_write_vectored(bufs)
    }

    /// Simulated [`tokio::net::tcp::WriteHalf::peer_addr`](https://docs.rs/tokio/1/tokio/net/tcp/struct.WriteHalf.html#method.peer_addr): see
    /// [`TcpStream::peer_addr`].
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub fn peer_addr(&self) -> io::Result<SocketAddr> {
        self.0.peer_addr()
    }

    /// Simulated [`tokio::net::tcp::WriteHalf::local_addr`](https://docs.rs/tokio/1/tokio/net/tcp/struct.WriteHalf.html#method.local_addr): see
    /// [`TcpStream::local_addr`].
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        self.0.local_addr()
    }
}

impl AsyncRead for ReadHalf<'_> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        self.0.poll_read_priv(cx, buf)
    }
}

impl AsyncWrite for WriteHalf<'_> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        self.0.poll_write_priv(cx, buf)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        self.0.poll_write_vectored_priv(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.0.is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        // Written bytes are already in the send buffer: nothing to flush.
        Poll::Ready(Ok(()))
    }

    /// Shuts down the write direction of the stream.
    fn poll_shutdown(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(self.0.shutdown_std(Shutdown::Write))
    }
}

impl AsRef<TcpStream> for ReadHalf<'_> {
    fn as_ref(&self) -> &TcpStream {
        self.0
    }
}

impl AsRef<TcpStream> for WriteHalf<'_> {
    fn as_ref(&self) -> &TcpStream {
        self.0
    }
}
