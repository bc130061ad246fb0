//! Simulated/own version of tokio's `UnixSocket`: a real, unconnected
//! socket that cannot bind, listen or connect in a simulation.

use std::io;
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, FromRawFd, IntoRawFd, RawFd};
use std::path::Path;

use socket2::{Domain, Socket, Type};

use super::{unsupported, UnixDatagram, UnixListener, UnixStream};

/// Simulated/own version of
/// [`tokio::net::UnixSocket`](https://docs.rs/tokio/1/tokio/net/struct.UnixSocket.html):
/// a Unix socket that has not yet been converted to a [`UnixStream`],
/// [`UnixDatagram`] or [`UnixListener`].
///
/// # Differences from tokio
///
/// The socket is real (creating one reaches nothing), but Unix sockets are
/// not simulated: [`bind`](Self::bind), [`listen`](Self::listen),
/// [`connect`](Self::connect) and [`datagram`](Self::datagram) fail with
/// `Unsupported`. Use TCP between simulated hosts.
#[derive(Debug)]
pub struct UnixSocket {
    inner: Socket,
}

impl UnixSocket {
    /// Simulated/own version of
    /// [`tokio::net::UnixSocket::new_datagram`](https://docs.rs/tokio/1/tokio/net/struct.UnixSocket.html#method.new_datagram):
    /// creates a new Unix datagram socket.
    ///
    /// # Errors
    ///
    /// As `socket(2)`.
    pub fn new_datagram() -> io::Result<UnixSocket> {
        UnixSocket::new(Type::DGRAM)
    }

    /// Simulated/own version of
    /// [`tokio::net::UnixSocket::new_stream`](https://docs.rs/tokio/1/tokio/net/struct.UnixSocket.html#method.new_stream):
    /// creates a new Unix stream socket.
    ///
    /// # Errors
    ///
    /// As `socket(2)`.
    pub fn new_stream() -> io::Result<UnixSocket> {
        UnixSocket::new(Type::STREAM)
    }

    fn new(ty: Type) -> io::Result<UnixSocket> {
        let inner = Socket::new(Domain::UNIX, ty, None)?;
        inner.set_nonblocking(true)?;
        Ok(UnixSocket { inner })
    }

    /// Simulated/own version of
    /// [`tokio::net::UnixSocket::bind`](https://docs.rs/tokio/1/tokio/net/struct.UnixSocket.html#method.bind).
    ///
    /// # Errors
    ///
    /// Always `Unsupported` (see the type's docs).
    pub fn bind(&self, path: impl AsRef<Path>) -> io::Result<()> {
        Err(unsupported(&format!(
            "UnixSocket::bind({:?})",
            path.as_ref()
        )))
    }

    /// Simulated/own version of
    /// [`tokio::net::UnixSocket::listen`](https://docs.rs/tokio/1/tokio/net/struct.UnixSocket.html#method.listen).
    ///
    /// # Errors
    ///
    /// Always `Unsupported` (see the type's docs).
    pub fn listen(self, backlog: u32) -> io::Result<UnixListener> {
        let _ = backlog;
        Err(unsupported("UnixSocket::listen"))
    }

    /// Simulated/own version of
    /// [`tokio::net::UnixSocket::connect`](https://docs.rs/tokio/1/tokio/net/struct.UnixSocket.html#method.connect).
    ///
    /// # Errors
    ///
    /// Always `Unsupported` (see the type's docs).
    pub async fn connect(self, path: impl AsRef<Path>) -> io::Result<UnixStream> {
        Err(unsupported(&format!(
            "UnixSocket::connect({:?})",
            path.as_ref()
        )))
    }

    /// Simulated/own version of
    /// [`tokio::net::UnixSocket::datagram`](https://docs.rs/tokio/1/tokio/net/struct.UnixSocket.html#method.datagram).
    ///
    /// # Errors
    ///
    /// Always `Unsupported` (see the type's docs).
    pub fn datagram(self) -> io::Result<UnixDatagram> {
        Err(unsupported("UnixSocket::datagram"))
    }
}

impl AsRawFd for UnixSocket {
    fn as_raw_fd(&self) -> RawFd {
        self.inner.as_raw_fd()
    }
}

impl AsFd for UnixSocket {
    fn as_fd(&self) -> BorrowedFd<'_> {
        self.inner.as_fd()
    }
}

// `unsafe` because the trait is: the fd's ownership is the caller's promise.
#[allow(unsafe_code)]
impl FromRawFd for UnixSocket {
    /// # Safety
    ///
    /// As for tokio: `fd` must be an open socket, owned by the caller, who
    /// gives up that ownership.
    unsafe fn from_raw_fd(fd: RawFd) -> UnixSocket {
        // SAFETY: the caller passes ownership of an open socket fd.
        UnixSocket {
            inner: unsafe { Socket::from_raw_fd(fd) },
        }
    }
}

impl IntoRawFd for UnixSocket {
    fn into_raw_fd(self) -> RawFd {
        self.inner.into_raw_fd()
    }
}
