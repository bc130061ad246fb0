//! Simulated/own version of tokio's `UnixStream`: never exists (see the
//! module docs).

use std::io;
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, RawFd};
use std::path::Path;
use std::pin::Pin;
use std::task::{Context, Poll};

use bytes::BufMut;

use super::split::{OwnedReadHalf, OwnedWriteHalf, ReadHalf, WriteHalf};
use super::{refuse, Never, SocketAddr, UCred};
use crate::io::{AsyncRead, AsyncWrite, Interest, ReadBuf, Ready};

/// Simulated/own version of
/// [`tokio::net::UnixStream`](https://docs.rs/tokio/1/tokio/net/struct.UnixStream.html):
/// a stream over a Unix domain socket.
///
/// # Differences from tokio
///
/// Not simulated: [`connect`](Self::connect),
/// [`connect_addr`](Self::connect_addr), [`pair`](Self::pair) and
/// [`from_std`](Self::from_std) fail with `Unsupported`, so no value of
/// this type exists and its methods cannot be called. Use TCP between
/// simulated hosts.
#[derive(Debug)]
pub struct UnixStream {
    never: Never,
}

impl UnixStream {
    /// Simulated/own version of
    /// [`tokio::net::UnixStream::connect`](https://docs.rs/tokio/1/tokio/net/struct.UnixStream.html#method.connect).
    ///
    /// # Errors
    ///
    /// Always `Unsupported` (see the type's docs).
    pub async fn connect<P>(path: P) -> io::Result<UnixStream>
    where
        P: AsRef<Path>,
    {
        refuse(&format!("UnixStream::connect({:?})", path.as_ref()))
    }

    /// Simulated/own version of
    /// [`tokio::net::UnixStream::connect_addr`](https://docs.rs/tokio/1/tokio/net/struct.UnixStream.html#method.connect_addr).
    ///
    /// # Errors
    ///
    /// Always `Unsupported` (see the type's docs).
    pub async fn connect_addr(socket_addr: &SocketAddr) -> io::Result<UnixStream> {
        refuse(&format!("UnixStream::connect_addr({socket_addr:?})"))
    }

    /// Simulated/own version of
    /// [`tokio::net::UnixStream::pair`](https://docs.rs/tokio/1/tokio/net/struct.UnixStream.html#method.pair).
    ///
    /// # Errors
    ///
    /// Always `Unsupported` (see the type's docs).
    #[track_caller]
    pub fn pair() -> io::Result<(UnixStream, UnixStream)> {
        refuse("UnixStream::pair")
    }

    /// Simulated/own version of
    /// [`tokio::net::UnixStream::from_std`](https://docs.rs/tokio/1/tokio/net/struct.UnixStream.html#method.from_std).
    ///
    /// # Errors
    ///
    /// Always `Unsupported` (see the type's docs); the std stream is
    /// closed.
    ///
    /// # Panics
    ///
    /// Outside a simulation, as tokio's panics outside a runtime.
    #[track_caller]
    pub fn from_std(stream: std::os::unix::net::UnixStream) -> io::Result<UnixStream> {
        drop(stream);
        refuse("UnixStream::from_std")
    }

    /// Simulated/own version of
    /// [`tokio::net::UnixStream::into_std`](https://docs.rs/tokio/1/tokio/net/struct.UnixStream.html#method.into_std).
    pub fn into_std(self) -> io::Result<std::os::unix::net::UnixStream> {
        self.never.absurd()
    }

    never_methods!(
        "tokio::net::UnixStream",
        "https://docs.rs/tokio/1/tokio/net/struct.UnixStream.html":
        ready, io, read, poll_read_ready, write, poll_write_ready,
    );

    /// Simulated/own version of
    /// [`tokio::net::UnixStream::local_addr`](https://docs.rs/tokio/1/tokio/net/struct.UnixStream.html#method.local_addr).
    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        self.never.absurd()
    }

    /// Simulated/own version of
    /// [`tokio::net::UnixStream::peer_addr`](https://docs.rs/tokio/1/tokio/net/struct.UnixStream.html#method.peer_addr).
    pub fn peer_addr(&self) -> io::Result<SocketAddr> {
        self.never.absurd()
    }

    /// Simulated/own version of
    /// [`tokio::net::UnixStream::peer_cred`](https://docs.rs/tokio/1/tokio/net/struct.UnixStream.html#method.peer_cred).
    pub fn peer_cred(&self) -> io::Result<UCred> {
        self.never.absurd()
    }

    /// Simulated/own version of
    /// [`tokio::net::UnixStream::take_error`](https://docs.rs/tokio/1/tokio/net/struct.UnixStream.html#method.take_error).
    pub fn take_error(&self) -> io::Result<Option<io::Error>> {
        self.never.absurd()
    }

    /// Simulated/own version of
    /// [`tokio::net::UnixStream::split`](https://docs.rs/tokio/1/tokio/net/struct.UnixStream.html#method.split).
    // The lifetime is spelled out, as in tokio.
    #[allow(clippy::needless_lifetimes)]
    pub fn split<'a>(&'a mut self) -> (ReadHalf<'a>, WriteHalf<'a>) {
        self.never.absurd()
    }

    /// Simulated/own version of
    /// [`tokio::net::UnixStream::into_split`](https://docs.rs/tokio/1/tokio/net/struct.UnixStream.html#method.into_split).
    pub fn into_split(self) -> (OwnedReadHalf, OwnedWriteHalf) {
        self.never.absurd()
    }

    pub(super) fn absurd<T>(&self) -> T {
        self.never.absurd()
    }
}

never_async!(read UnixStream);
never_async!(write UnixStream);

impl AsRef<Self> for UnixStream {
    fn as_ref(&self) -> &Self {
        self
    }
}

never_fd!(UnixStream, std::os::unix::net::UnixStream);
