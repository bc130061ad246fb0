//! Simulated/own version of tokio's `UnixListener`: never exists (see the
//! module docs).

use std::io;
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, RawFd};
use std::path::Path;
use std::task::{Context, Poll};

use super::{refuse, Never, SocketAddr, UnixStream};

/// Simulated/own version of
/// [`tokio::net::UnixListener`](https://docs.rs/tokio/1/tokio/net/struct.UnixListener.html):
/// a Unix socket which can accept connections from other Unix sockets.
///
/// # Differences from tokio
///
/// Not simulated: [`bind`](Self::bind), [`bind_addr`](Self::bind_addr)
/// and [`from_std`](Self::from_std) fail with `Unsupported`, so no value
/// of this type exists and its methods cannot be called. Serve on a
/// [`TcpListener`](crate::net::TcpListener) of a simulated host instead.
#[derive(Debug)]
pub struct UnixListener {
    never: Never,
}

impl UnixListener {
    /// Simulated/own version of
    /// [`tokio::net::UnixListener::bind`](https://docs.rs/tokio/1/tokio/net/struct.UnixListener.html#method.bind).
    ///
    /// # Errors
    ///
    /// Always `Unsupported` (see the type's docs).
    #[track_caller]
    pub fn bind<P>(path: P) -> io::Result<UnixListener>
    where
        P: AsRef<Path>,
    {
        refuse(&format!("UnixListener::bind({:?})", path.as_ref()))
    }

    /// Simulated/own version of
    /// [`tokio::net::UnixListener::bind_addr`](https://docs.rs/tokio/1/tokio/net/struct.UnixListener.html#method.bind_addr).
    ///
    /// # Errors
    ///
    /// Always `Unsupported` (see the type's docs).
    #[track_caller]
    pub fn bind_addr(socket_addr: &SocketAddr) -> io::Result<UnixListener> {
        refuse(&format!("UnixListener::bind_addr({socket_addr:?})"))
    }

    /// Simulated/own version of
    /// [`tokio::net::UnixListener::from_std`](https://docs.rs/tokio/1/tokio/net/struct.UnixListener.html#method.from_std).
    ///
    /// # Errors
    ///
    /// Always `Unsupported` (see the type's docs); the std listener is
    /// closed.
    ///
    /// # Panics
    ///
    /// Outside a simulation, as tokio's panics outside a runtime.
    #[track_caller]
    pub fn from_std(listener: std::os::unix::net::UnixListener) -> io::Result<UnixListener> {
        drop(listener);
        refuse("UnixListener::from_std")
    }

    /// Simulated/own version of
    /// [`tokio::net::UnixListener::into_std`](https://docs.rs/tokio/1/tokio/net/struct.UnixListener.html#method.into_std).
    pub fn into_std(self) -> io::Result<std::os::unix::net::UnixListener> {
        self.never.absurd()
    }

    /// Simulated/own version of
    /// [`tokio::net::UnixListener::local_addr`](https://docs.rs/tokio/1/tokio/net/struct.UnixListener.html#method.local_addr).
    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        self.never.absurd()
    }

    /// Simulated/own version of
    /// [`tokio::net::UnixListener::take_error`](https://docs.rs/tokio/1/tokio/net/struct.UnixListener.html#method.take_error).
    pub fn take_error(&self) -> io::Result<Option<io::Error>> {
        self.never.absurd()
    }

    /// Simulated/own version of
    /// [`tokio::net::UnixListener::accept`](https://docs.rs/tokio/1/tokio/net/struct.UnixListener.html#method.accept).
    pub async fn accept(&self) -> io::Result<(UnixStream, SocketAddr)> {
        self.never.absurd()
    }

    /// Simulated/own version of
    /// [`tokio::net::UnixListener::poll_accept`](https://docs.rs/tokio/1/tokio/net/struct.UnixListener.html#method.poll_accept).
    pub fn poll_accept(&self, cx: &mut Context<'_>) -> Poll<io::Result<(UnixStream, SocketAddr)>> {
        let _ = cx;
        self.never.absurd()
    }

    fn absurd<T>(&self) -> T {
        self.never.absurd()
    }
}

never_fd!(UnixListener, std::os::unix::net::UnixListener);
