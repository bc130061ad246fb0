//! Simulated/own version of tokio's `UnixListener`.

use std::fmt;
use std::io;
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, RawFd};
use std::path::Path;
use std::task::{Context, Poll};

use sim_net::UnixType;

use super::core::UnixIo;
use super::{SocketAddr, UnixStream};

/// Simulated/own version of
/// [`tokio::net::UnixListener`](https://docs.rs/tokio/1/tokio/net/struct.UnixListener.html):
/// a Unix socket of the running task's host that accepts connections.
///
/// Binding a path creates its socket file on the host's simulated disk
/// (kept when the listener is dropped, as on Linux; remove it before
/// binding again), subject to the disk's crash model like any new file.
///
/// # Differences from tokio
///
/// [`from_std`](Self::from_std) takes only a std listener made inside the
/// simulation (`Unsupported` for a real one); the raw fd is a real, never
/// bound placeholder socket.
pub struct UnixListener {
    io: UnixIo,
}

impl UnixListener {
    /// Simulated/own version of
    /// [`tokio::net::UnixListener::bind`](https://docs.rs/tokio/1/tokio/net/struct.UnixListener.html#method.bind):
    /// binds `path` (a leading NUL byte names the abstract namespace) and
    /// listens, with tokio's backlog of 1024.
    ///
    /// # Errors
    ///
    /// `AddrInUse` when something is at the path (a socket file left by an
    /// earlier listener included) or the abstract name is taken;
    /// `NotFound` when the path's directory does not exist;
    /// `InvalidInput` for a path too long for a socket address.
    ///
    /// # Panics
    ///
    /// Outside a simulation, or in one without the I/O driver, as tokio's.
    #[track_caller]
    pub fn bind<P>(path: P) -> io::Result<UnixListener>
    where
        P: AsRef<Path>,
    {
        let (_, io) = UnixIo::new(UnixType::Stream)?;
        io.bind(path.as_ref())?;
        io.listen(sim_net::DEFAULT_BACKLOG)?;
        Ok(UnixListener { io })
    }

    /// Simulated/own version of
    /// [`tokio::net::UnixListener::bind_addr`](https://docs.rs/tokio/1/tokio/net/struct.UnixListener.html#method.bind_addr):
    /// as [`bind`](Self::bind), to a path or abstract address.
    ///
    /// # Errors
    ///
    /// As [`bind`](Self::bind); `InvalidInput` for an unnamed address.
    #[track_caller]
    pub fn bind_addr(socket_addr: &SocketAddr) -> io::Result<UnixListener> {
        let path = super::stream::path_of(socket_addr)?;
        UnixListener::bind(path)
    }

    pub(super) fn from_io(io: UnixIo) -> UnixListener {
        UnixListener { io }
    }

    /// Simulated/own version of
    /// [`tokio::net::UnixListener::from_std`](https://docs.rs/tokio/1/tokio/net/struct.UnixListener.html#method.from_std).
    ///
    /// # Errors
    ///
    /// `Unsupported` when `listener` is a real socket, made outside the
    /// simulation, or has a `try_clone` still open; it is closed.
    ///
    /// # Panics
    ///
    /// Outside a simulation, as tokio's panics outside a runtime.
    #[track_caller]
    pub fn from_std(listener: std::os::unix::net::UnixListener) -> io::Result<UnixListener> {
        let io = UnixIo::from_fd(listener.into(), UnixType::Stream, "UnixListener::from_std")?;
        Ok(UnixListener::from_io(io))
    }

    /// Simulated/own version of
    /// [`tokio::net::UnixListener::into_std`](https://docs.rs/tokio/1/tokio/net/struct.UnixListener.html#method.into_std).
    ///
    /// # Errors
    ///
    /// When the simulation is gone. The std listener's calls reach the
    /// simulated socket, in non-blocking mode as tokio hands it over.
    pub fn into_std(self) -> io::Result<std::os::unix::net::UnixListener> {
        Ok(self.io.into_fd()?.into())
    }

    /// Simulated/own version of
    /// [`tokio::net::UnixListener::local_addr`](https://docs.rs/tokio/1/tokio/net/struct.UnixListener.html#method.local_addr):
    /// the address the listener is bound to.
    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        self.io.local_addr()
    }

    /// Simulated/own version of
    /// [`tokio::net::UnixListener::take_error`](https://docs.rs/tokio/1/tokio/net/struct.UnixListener.html#method.take_error):
    /// always `None` (a listener has no errors to report).
    pub fn take_error(&self) -> io::Result<Option<io::Error>> {
        self.io.take_error()
    }

    /// Simulated/own version of
    /// [`tokio::net::UnixListener::accept`](https://docs.rs/tokio/1/tokio/net/struct.UnixListener.html#method.accept):
    /// waits for a connection and returns its server end and the peer's
    /// address (unnamed unless the client bound one).
    ///
    /// # Cancel safety
    ///
    /// Cancel safe: a connection is taken only by the poll that returns it.
    pub async fn accept(&self) -> io::Result<(UnixStream, SocketAddr)> {
        std::future::poll_fn(|cx| self.poll_accept(cx)).await
    }

    /// Simulated/own version of
    /// [`tokio::net::UnixListener::poll_accept`](https://docs.rs/tokio/1/tokio/net/struct.UnixListener.html#method.poll_accept):
    /// a queued connection, or `Pending` with the task registered.
    pub fn poll_accept(&self, cx: &mut Context<'_>) -> Poll<io::Result<(UnixStream, SocketAddr)>> {
        self.io
            .poll_accept(cx)
            .map_ok(|(io, addr)| (UnixStream::from_io(io), addr))
    }
}

impl TryFrom<std::os::unix::net::UnixListener> for UnixListener {
    type Error = io::Error;

    /// As [`UnixListener::from_std`].
    #[track_caller]
    fn try_from(listener: std::os::unix::net::UnixListener) -> io::Result<Self> {
        Self::from_std(listener)
    }
}

impl AsRawFd for UnixListener {
    fn as_raw_fd(&self) -> RawFd {
        self.io.raw_fd()
    }
}

impl AsFd for UnixListener {
    fn as_fd(&self) -> BorrowedFd<'_> {
        // SAFETY: the placeholder lives as long as the listener.
        #[allow(unsafe_code)]
        unsafe {
            BorrowedFd::borrow_raw(self.as_raw_fd())
        }
    }
}

impl fmt::Debug for UnixListener {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("UnixListener")
            .field("socket", &self.io.id)
            .finish_non_exhaustive()
    }
}
