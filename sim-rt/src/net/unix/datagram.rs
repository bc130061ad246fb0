//! Simulated/own version of tokio's `UnixDatagram`: never exists (see the
//! module docs).

use std::io;
use std::net::Shutdown;
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, RawFd};
use std::path::Path;
use std::task::{Context, Poll};

use bytes::BufMut;

use super::{refuse, Never, SocketAddr};
use crate::io::{Interest, ReadBuf, Ready};

/// Simulated/own version of
/// [`tokio::net::UnixDatagram`](https://docs.rs/tokio/1/tokio/net/struct.UnixDatagram.html):
/// a datagram socket over Unix domain sockets.
///
/// # Differences from tokio
///
/// Not simulated: [`bind`](Self::bind), [`pair`](Self::pair),
/// [`unbound`](Self::unbound) and [`from_std`](Self::from_std) fail with
/// `Unsupported`, so no value of this type exists and its methods cannot
/// be called. Use a [`UdpSocket`](crate::net::UdpSocket) on a simulated
/// host instead.
#[derive(Debug)]
pub struct UnixDatagram {
    never: Never,
}

impl UnixDatagram {
    /// Simulated/own version of
    /// [`tokio::net::UnixDatagram::bind`](https://docs.rs/tokio/1/tokio/net/struct.UnixDatagram.html#method.bind).
    ///
    /// # Errors
    ///
    /// Always `Unsupported` (see the type's docs).
    #[track_caller]
    pub fn bind<P>(path: P) -> io::Result<UnixDatagram>
    where
        P: AsRef<Path>,
    {
        refuse(&format!("UnixDatagram::bind({:?})", path.as_ref()))
    }

    /// Simulated/own version of
    /// [`tokio::net::UnixDatagram::pair`](https://docs.rs/tokio/1/tokio/net/struct.UnixDatagram.html#method.pair).
    ///
    /// # Errors
    ///
    /// Always `Unsupported` (see the type's docs).
    #[track_caller]
    pub fn pair() -> io::Result<(UnixDatagram, UnixDatagram)> {
        refuse("UnixDatagram::pair")
    }

    /// Simulated/own version of
    /// [`tokio::net::UnixDatagram::unbound`](https://docs.rs/tokio/1/tokio/net/struct.UnixDatagram.html#method.unbound).
    ///
    /// # Errors
    ///
    /// Always `Unsupported` (see the type's docs).
    #[track_caller]
    pub fn unbound() -> io::Result<UnixDatagram> {
        refuse("UnixDatagram::unbound")
    }

    /// Simulated/own version of
    /// [`tokio::net::UnixDatagram::from_std`](https://docs.rs/tokio/1/tokio/net/struct.UnixDatagram.html#method.from_std).
    ///
    /// # Errors
    ///
    /// Always `Unsupported` (see the type's docs); the std socket is
    /// closed.
    ///
    /// # Panics
    ///
    /// Outside a simulation, as tokio's panics outside a runtime.
    #[track_caller]
    pub fn from_std(datagram: std::os::unix::net::UnixDatagram) -> io::Result<UnixDatagram> {
        drop(datagram);
        refuse("UnixDatagram::from_std")
    }

    never_methods!(
        "tokio::net::UnixDatagram",
        "https://docs.rs/tokio/1/tokio/net/struct.UnixDatagram.html":
        ready, io, readable, writable, poll_send_ready, poll_recv_ready,
    );

    /// Simulated/own version of
    /// [`tokio::net::UnixDatagram::into_std`](https://docs.rs/tokio/1/tokio/net/struct.UnixDatagram.html#method.into_std).
    pub fn into_std(self) -> io::Result<std::os::unix::net::UnixDatagram> {
        self.never.absurd()
    }

    /// Simulated/own version of
    /// [`tokio::net::UnixDatagram::connect`](https://docs.rs/tokio/1/tokio/net/struct.UnixDatagram.html#method.connect).
    pub fn connect<P: AsRef<Path>>(&self, path: P) -> io::Result<()> {
        let _ = path;
        self.never.absurd()
    }

    /// Simulated/own version of
    /// [`tokio::net::UnixDatagram::send`](https://docs.rs/tokio/1/tokio/net/struct.UnixDatagram.html#method.send).
    pub async fn send(&self, buf: &[u8]) -> io::Result<usize> {
        let _ = buf;
        self.never.absurd()
    }

    /// Simulated/own version of
    /// [`tokio::net::UnixDatagram::try_send`](https://docs.rs/tokio/1/tokio/net/struct.UnixDatagram.html#method.try_send).
    pub fn try_send(&self, buf: &[u8]) -> io::Result<usize> {
        let _ = buf;
        self.never.absurd()
    }

    /// Simulated/own version of
    /// [`tokio::net::UnixDatagram::try_send_to`](https://docs.rs/tokio/1/tokio/net/struct.UnixDatagram.html#method.try_send_to).
    pub fn try_send_to<P>(&self, buf: &[u8], target: P) -> io::Result<usize>
    where
        P: AsRef<Path>,
    {
        let _ = buf;
        let _ = target;
        self.never.absurd()
    }

    /// Simulated/own version of
    /// [`tokio::net::UnixDatagram::recv`](https://docs.rs/tokio/1/tokio/net/struct.UnixDatagram.html#method.recv).
    pub async fn recv(&self, buf: &mut [u8]) -> io::Result<usize> {
        let _ = buf;
        self.never.absurd()
    }

    /// Simulated/own version of
    /// [`tokio::net::UnixDatagram::try_recv`](https://docs.rs/tokio/1/tokio/net/struct.UnixDatagram.html#method.try_recv).
    pub fn try_recv(&self, buf: &mut [u8]) -> io::Result<usize> {
        let _ = buf;
        self.never.absurd()
    }

    /// Simulated/own version of
    /// [`tokio::net::UnixDatagram::try_recv_buf_from`](https://docs.rs/tokio/1/tokio/net/struct.UnixDatagram.html#method.try_recv_buf_from).
    pub fn try_recv_buf_from<B: BufMut>(&self, buf: &mut B) -> io::Result<(usize, SocketAddr)> {
        let _ = buf;
        self.never.absurd()
    }

    /// Simulated/own version of
    /// [`tokio::net::UnixDatagram::recv_buf_from`](https://docs.rs/tokio/1/tokio/net/struct.UnixDatagram.html#method.recv_buf_from).
    pub async fn recv_buf_from<B: BufMut>(&self, buf: &mut B) -> io::Result<(usize, SocketAddr)> {
        let _ = buf;
        self.never.absurd()
    }

    /// Simulated/own version of
    /// [`tokio::net::UnixDatagram::try_recv_buf`](https://docs.rs/tokio/1/tokio/net/struct.UnixDatagram.html#method.try_recv_buf).
    pub fn try_recv_buf<B: BufMut>(&self, buf: &mut B) -> io::Result<usize> {
        let _ = buf;
        self.never.absurd()
    }

    /// Simulated/own version of
    /// [`tokio::net::UnixDatagram::recv_buf`](https://docs.rs/tokio/1/tokio/net/struct.UnixDatagram.html#method.recv_buf).
    pub async fn recv_buf<B: BufMut>(&self, buf: &mut B) -> io::Result<usize> {
        let _ = buf;
        self.never.absurd()
    }

    /// Simulated/own version of
    /// [`tokio::net::UnixDatagram::send_to`](https://docs.rs/tokio/1/tokio/net/struct.UnixDatagram.html#method.send_to).
    pub async fn send_to<P>(&self, buf: &[u8], target: P) -> io::Result<usize>
    where
        P: AsRef<Path>,
    {
        let _ = buf;
        let _ = target;
        self.never.absurd()
    }

    /// Simulated/own version of
    /// [`tokio::net::UnixDatagram::recv_from`](https://docs.rs/tokio/1/tokio/net/struct.UnixDatagram.html#method.recv_from).
    pub async fn recv_from(&self, buf: &mut [u8]) -> io::Result<(usize, SocketAddr)> {
        let _ = buf;
        self.never.absurd()
    }

    /// Simulated/own version of
    /// [`tokio::net::UnixDatagram::poll_recv_from`](https://docs.rs/tokio/1/tokio/net/struct.UnixDatagram.html#method.poll_recv_from).
    pub fn poll_recv_from(
        &self,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<SocketAddr>> {
        let _ = cx;
        let _ = buf;
        self.never.absurd()
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
        let _ = cx;
        let _ = buf;
        let _ = target;
        self.never.absurd()
    }

    /// Simulated/own version of
    /// [`tokio::net::UnixDatagram::poll_send`](https://docs.rs/tokio/1/tokio/net/struct.UnixDatagram.html#method.poll_send).
    pub fn poll_send(&self, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        let _ = cx;
        let _ = buf;
        self.never.absurd()
    }

    /// Simulated/own version of
    /// [`tokio::net::UnixDatagram::poll_recv`](https://docs.rs/tokio/1/tokio/net/struct.UnixDatagram.html#method.poll_recv).
    pub fn poll_recv(&self, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        let _ = cx;
        let _ = buf;
        self.never.absurd()
    }

    /// Simulated/own version of
    /// [`tokio::net::UnixDatagram::try_recv_from`](https://docs.rs/tokio/1/tokio/net/struct.UnixDatagram.html#method.try_recv_from).
    pub fn try_recv_from(&self, buf: &mut [u8]) -> io::Result<(usize, SocketAddr)> {
        let _ = buf;
        self.never.absurd()
    }

    /// Simulated/own version of
    /// [`tokio::net::UnixDatagram::local_addr`](https://docs.rs/tokio/1/tokio/net/struct.UnixDatagram.html#method.local_addr).
    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        self.never.absurd()
    }

    /// Simulated/own version of
    /// [`tokio::net::UnixDatagram::peer_addr`](https://docs.rs/tokio/1/tokio/net/struct.UnixDatagram.html#method.peer_addr).
    pub fn peer_addr(&self) -> io::Result<SocketAddr> {
        self.never.absurd()
    }

    /// Simulated/own version of
    /// [`tokio::net::UnixDatagram::take_error`](https://docs.rs/tokio/1/tokio/net/struct.UnixDatagram.html#method.take_error).
    pub fn take_error(&self) -> io::Result<Option<io::Error>> {
        self.never.absurd()
    }

    /// Simulated/own version of
    /// [`tokio::net::UnixDatagram::shutdown`](https://docs.rs/tokio/1/tokio/net/struct.UnixDatagram.html#method.shutdown).
    pub fn shutdown(&self, how: Shutdown) -> io::Result<()> {
        let _ = how;
        self.never.absurd()
    }

    fn absurd<T>(&self) -> T {
        self.never.absurd()
    }
}

never_fd!(UnixDatagram, std::os::unix::net::UnixDatagram);
