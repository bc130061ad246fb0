//! Simulated/own version of tokio's `UnixDatagram`.

use std::fmt;
use std::future::poll_fn;
use std::io;
use std::net::Shutdown;
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, RawFd};
use std::path::Path;
use std::task::{ready, Context, Poll};

use bytes::BufMut;
use sim_net::{Readiness, UnixType};

use super::core::UnixIo;
use super::SocketAddr;
use crate::io::{Interest, ReadBuf, Ready};

/// Simulated/own version of
/// [`tokio::net::UnixDatagram`](https://docs.rs/tokio/1/tokio/net/struct.UnixDatagram.html):
/// a datagram socket over Unix domain sockets of the running task's host.
///
/// Datagrams keep their boundaries and their order and are never lost; a
/// sender waits while the receiver's queue is full (see the `sim_net`
/// model's `unix.rs` for the limits).
///
/// # Differences from tokio
///
/// [`from_std`](Self::from_std) takes only a std socket made inside the
/// simulation (`Unsupported` for a real one); the raw fd is a real, never
/// bound placeholder socket.
pub struct UnixDatagram {
    io: UnixIo,
}

impl UnixDatagram {
    /// Simulated/own version of
    /// [`tokio::net::UnixDatagram::bind`](https://docs.rs/tokio/1/tokio/net/struct.UnixDatagram.html#method.bind):
    /// a socket bound to `path` (its socket file is created on the host's
    /// disk; a leading NUL byte names the abstract namespace).
    ///
    /// # Errors
    ///
    /// As [`UnixListener::bind`](super::UnixListener::bind).
    #[track_caller]
    pub fn bind<P>(path: P) -> io::Result<UnixDatagram>
    where
        P: AsRef<Path>,
    {
        let (_, io) = UnixIo::new(UnixType::Datagram)?;
        io.bind(path.as_ref())?;
        Ok(UnixDatagram { io })
    }

    /// Simulated/own version of
    /// [`tokio::net::UnixDatagram::pair`](https://docs.rs/tokio/1/tokio/net/struct.UnixDatagram.html#method.pair):
    /// two unnamed sockets connected to each other.
    #[track_caller]
    pub fn pair() -> io::Result<(UnixDatagram, UnixDatagram)> {
        let (a, b) = UnixIo::pair(UnixType::Datagram)?;
        Ok((UnixDatagram { io: a }, UnixDatagram { io: b }))
    }

    /// Simulated/own version of
    /// [`tokio::net::UnixDatagram::unbound`](https://docs.rs/tokio/1/tokio/net/struct.UnixDatagram.html#method.unbound):
    /// a socket with no name (it can send; replies need a name).
    #[track_caller]
    pub fn unbound() -> io::Result<UnixDatagram> {
        let (_, io) = UnixIo::new(UnixType::Datagram)?;
        Ok(UnixDatagram { io })
    }

    pub(super) fn from_io(io: UnixIo) -> UnixDatagram {
        UnixDatagram { io }
    }

    /// Simulated/own version of
    /// [`tokio::net::UnixDatagram::from_std`](https://docs.rs/tokio/1/tokio/net/struct.UnixDatagram.html#method.from_std).
    ///
    /// # Errors
    ///
    /// `Unsupported` when `datagram` is a real socket, made outside the
    /// simulation, or has a `try_clone` still open; it is closed.
    ///
    /// # Panics
    ///
    /// Outside a simulation, as tokio's panics outside a runtime.
    #[track_caller]
    pub fn from_std(datagram: std::os::unix::net::UnixDatagram) -> io::Result<UnixDatagram> {
        let io = UnixIo::from_fd(
            datagram.into(),
            UnixType::Datagram,
            "UnixDatagram::from_std",
        )?;
        Ok(UnixDatagram::from_io(io))
    }

    /// Simulated/own version of
    /// [`tokio::net::UnixDatagram::into_std`](https://docs.rs/tokio/1/tokio/net/struct.UnixDatagram.html#method.into_std).
    ///
    /// # Errors
    ///
    /// When the simulation is gone. The std socket's calls reach the
    /// simulated socket, in non-blocking mode as tokio hands it over.
    pub fn into_std(self) -> io::Result<std::os::unix::net::UnixDatagram> {
        Ok(self.io.into_fd()?.into())
    }

    unix_methods!(
        "tokio::net::UnixDatagram",
        "https://docs.rs/tokio/1/tokio/net/struct.UnixDatagram.html",
        |s| s.io; ready, io,
    );

    /// Simulated/own version of
    /// [`tokio::net::UnixDatagram::readable`](https://docs.rs/tokio/1/tokio/net/struct.UnixDatagram.html#method.readable):
    /// waits until a datagram is queued (or an error).
    pub async fn readable(&self) -> io::Result<()> {
        self.io.wait(Readiness::READABLE).await
    }

    /// Simulated/own version of
    /// [`tokio::net::UnixDatagram::writable`](https://docs.rs/tokio/1/tokio/net/struct.UnixDatagram.html#method.writable):
    /// waits until a send to the connected peer would not wait.
    pub async fn writable(&self) -> io::Result<()> {
        self.io.wait(Readiness::WRITABLE).await
    }

    /// Simulated/own version of
    /// [`tokio::net::UnixDatagram::poll_recv_ready`](https://docs.rs/tokio/1/tokio/net/struct.UnixDatagram.html#method.poll_recv_ready).
    pub fn poll_recv_ready(&self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.io.poll_ready(cx, Readiness::READABLE)
    }

    /// Simulated/own version of
    /// [`tokio::net::UnixDatagram::poll_send_ready`](https://docs.rs/tokio/1/tokio/net/struct.UnixDatagram.html#method.poll_send_ready).
    pub fn poll_send_ready(&self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.io.poll_ready(cx, Readiness::WRITABLE)
    }

    /// Simulated/own version of
    /// [`tokio::net::UnixDatagram::connect`](https://docs.rs/tokio/1/tokio/net/struct.UnixDatagram.html#method.connect):
    /// sets the default destination (and the only source `recv` takes
    /// from, as Linux filters nothing for Unix sockets: every datagram
    /// sent to this socket is received).
    ///
    /// # Errors
    ///
    /// `NotFound` when nothing is at the path; `ConnectionRefused` when no
    /// datagram socket is bound there.
    pub fn connect<P: AsRef<Path>>(&self, path: P) -> io::Result<()> {
        self.io.connect_now(path.as_ref())
    }

    /// Simulated/own version of
    /// [`tokio::net::UnixDatagram::send`](https://docs.rs/tokio/1/tokio/net/struct.UnixDatagram.html#method.send):
    /// sends to the connected peer, waiting while its queue is full.
    pub async fn send(&self, buf: &[u8]) -> io::Result<usize> {
        poll_fn(|cx| self.poll_send(cx, buf)).await
    }

    /// Simulated/own version of
    /// [`tokio::net::UnixDatagram::try_send`](https://docs.rs/tokio/1/tokio/net/struct.UnixDatagram.html#method.try_send).
    pub fn try_send(&self, buf: &[u8]) -> io::Result<usize> {
        self.io.try_send(None, buf)
    }

    /// Simulated/own version of
    /// [`tokio::net::UnixDatagram::try_send_to`](https://docs.rs/tokio/1/tokio/net/struct.UnixDatagram.html#method.try_send_to).
    pub fn try_send_to<P>(&self, buf: &[u8], target: P) -> io::Result<usize>
    where
        P: AsRef<Path>,
    {
        let to = self.io.target(target.as_ref())?;
        self.io.try_send(Some(&to), buf)
    }

    /// Simulated/own version of
    /// [`tokio::net::UnixDatagram::send_to`](https://docs.rs/tokio/1/tokio/net/struct.UnixDatagram.html#method.send_to):
    /// sends to the socket bound to `target`, waiting while its queue is
    /// full.
    pub async fn send_to<P>(&self, buf: &[u8], target: P) -> io::Result<usize>
    where
        P: AsRef<Path>,
    {
        let to = self.io.target(target.as_ref())?;
        poll_fn(|cx| self.io.poll_send(cx, Some(&to), buf)).await
    }

    /// Simulated/own version of
    /// [`tokio::net::UnixDatagram::poll_send_to`](https://docs.rs/tokio/1/tokio/net/struct.UnixDatagram.html#method.poll_send_to).
    pub fn poll_send_to<P>(
        &self,
        cx: &mut Context<'_>,
        buf: &[u8],
        target: P,
    ) -> Poll<io::Result<usize>>
    where
        P: AsRef<Path>,
    {
        let to = self.io.target(target.as_ref())?;
        self.io.poll_send(cx, Some(&to), buf)
    }

    /// Simulated/own version of
    /// [`tokio::net::UnixDatagram::poll_send`](https://docs.rs/tokio/1/tokio/net/struct.UnixDatagram.html#method.poll_send).
    pub fn poll_send(&self, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        self.io.poll_send(cx, None, buf)
    }

    /// Simulated/own version of
    /// [`tokio::net::UnixDatagram::recv`](https://docs.rs/tokio/1/tokio/net/struct.UnixDatagram.html#method.recv):
    /// the next datagram, truncated to `buf`.
    pub async fn recv(&self, buf: &mut [u8]) -> io::Result<usize> {
        self.recv_from(buf).await.map(|(n, _)| n)
    }

    /// Simulated/own version of
    /// [`tokio::net::UnixDatagram::try_recv`](https://docs.rs/tokio/1/tokio/net/struct.UnixDatagram.html#method.try_recv).
    pub fn try_recv(&self, buf: &mut [u8]) -> io::Result<usize> {
        self.io.try_recv(buf).map(|(n, _)| n)
    }

    /// Simulated/own version of
    /// [`tokio::net::UnixDatagram::recv_from`](https://docs.rs/tokio/1/tokio/net/struct.UnixDatagram.html#method.recv_from):
    /// the next datagram and its sender's address.
    pub async fn recv_from(&self, buf: &mut [u8]) -> io::Result<(usize, SocketAddr)> {
        poll_fn(|cx| self.io.poll_recv(cx, buf, false)).await
    }

    /// Simulated/own version of
    /// [`tokio::net::UnixDatagram::try_recv_from`](https://docs.rs/tokio/1/tokio/net/struct.UnixDatagram.html#method.try_recv_from).
    pub fn try_recv_from(&self, buf: &mut [u8]) -> io::Result<(usize, SocketAddr)> {
        self.io.try_recv(buf)
    }

    /// Simulated/own version of
    /// [`tokio::net::UnixDatagram::poll_recv_from`](https://docs.rs/tokio/1/tokio/net/struct.UnixDatagram.html#method.poll_recv_from).
    pub fn poll_recv_from(
        &self,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<SocketAddr>> {
        let (n, from) = ready!(self.io.poll_recv(cx, buf.initialize_unfilled(), false))?;
        buf.advance(n);
        Poll::Ready(Ok(from))
    }

    /// Simulated/own version of
    /// [`tokio::net::UnixDatagram::poll_recv`](https://docs.rs/tokio/1/tokio/net/struct.UnixDatagram.html#method.poll_recv).
    pub fn poll_recv(&self, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        self.poll_recv_from(cx, buf).map_ok(drop)
    }

    /// Simulated/own version of
    /// [`tokio::net::UnixDatagram::recv_buf_from`](https://docs.rs/tokio/1/tokio/net/struct.UnixDatagram.html#method.recv_buf_from):
    /// as [`recv_from`](Self::recv_from), appending to `buf`'s current
    /// chunk.
    pub async fn recv_buf_from<B: BufMut>(&self, buf: &mut B) -> io::Result<(usize, SocketAddr)> {
        let mut data = vec![0; buf.chunk_mut().len()];
        let (n, from) = self.recv_from(&mut data).await?;
        buf.put_slice(&data[..n]);
        Ok((n, from))
    }

    /// Simulated/own version of
    /// [`tokio::net::UnixDatagram::try_recv_buf_from`](https://docs.rs/tokio/1/tokio/net/struct.UnixDatagram.html#method.try_recv_buf_from).
    pub fn try_recv_buf_from<B: BufMut>(&self, buf: &mut B) -> io::Result<(usize, SocketAddr)> {
        let mut data = vec![0; buf.chunk_mut().len()];
        let (n, from) = self.try_recv_from(&mut data)?;
        buf.put_slice(&data[..n]);
        Ok((n, from))
    }

    /// Simulated/own version of
    /// [`tokio::net::UnixDatagram::recv_buf`](https://docs.rs/tokio/1/tokio/net/struct.UnixDatagram.html#method.recv_buf).
    pub async fn recv_buf<B: BufMut>(&self, buf: &mut B) -> io::Result<usize> {
        self.recv_buf_from(buf).await.map(|(n, _)| n)
    }

    /// Simulated/own version of
    /// [`tokio::net::UnixDatagram::try_recv_buf`](https://docs.rs/tokio/1/tokio/net/struct.UnixDatagram.html#method.try_recv_buf).
    pub fn try_recv_buf<B: BufMut>(&self, buf: &mut B) -> io::Result<usize> {
        self.try_recv_buf_from(buf).map(|(n, _)| n)
    }

    /// Simulated/own version of
    /// [`tokio::net::UnixDatagram::local_addr`](https://docs.rs/tokio/1/tokio/net/struct.UnixDatagram.html#method.local_addr).
    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        self.io.local_addr()
    }

    /// Simulated/own version of
    /// [`tokio::net::UnixDatagram::peer_addr`](https://docs.rs/tokio/1/tokio/net/struct.UnixDatagram.html#method.peer_addr):
    /// the connected peer's address; `NotConnected` without one.
    pub fn peer_addr(&self) -> io::Result<SocketAddr> {
        self.io.peer_addr()
    }

    /// Simulated/own version of
    /// [`tokio::net::UnixDatagram::take_error`](https://docs.rs/tokio/1/tokio/net/struct.UnixDatagram.html#method.take_error).
    pub fn take_error(&self) -> io::Result<Option<io::Error>> {
        self.io.take_error()
    }

    /// Simulated/own version of
    /// [`tokio::net::UnixDatagram::shutdown`](https://docs.rs/tokio/1/tokio/net/struct.UnixDatagram.html#method.shutdown):
    /// shuts receiving (`recv` returns `Ok(0)` once the queue is empty)
    /// and/or sending (`send` fails with `BrokenPipe`) down.
    ///
    /// # Errors
    ///
    /// `NotConnected` for a socket with no peer, as Linux.
    pub fn shutdown(&self, how: Shutdown) -> io::Result<()> {
        self.io.shutdown(how)
    }
}

impl TryFrom<std::os::unix::net::UnixDatagram> for UnixDatagram {
    type Error = io::Error;

    /// As [`UnixDatagram::from_std`].
    #[track_caller]
    fn try_from(datagram: std::os::unix::net::UnixDatagram) -> io::Result<Self> {
        Self::from_std(datagram)
    }
}

impl AsRawFd for UnixDatagram {
    fn as_raw_fd(&self) -> RawFd {
        self.io.raw_fd()
    }
}

impl AsFd for UnixDatagram {
    fn as_fd(&self) -> BorrowedFd<'_> {
        // SAFETY: the placeholder lives as long as the socket.
        #[allow(unsafe_code)]
        unsafe {
            BorrowedFd::borrow_raw(self.as_raw_fd())
        }
    }
}

impl fmt::Debug for UnixDatagram {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("UnixDatagram")
            .field("socket", &self.io.id)
            .finish_non_exhaustive()
    }
}
