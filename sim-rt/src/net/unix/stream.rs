//! Simulated/own version of tokio's `UnixStream`.

use std::fmt;
use std::io;
use std::net::Shutdown;
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, RawFd};
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use bytes::BufMut;
use sim_net::UnixType;

use super::core::UnixIo;
use super::split::{OwnedReadHalf, OwnedWriteHalf, ReadHalf, WriteHalf};
use super::{SocketAddr, UCred};
use crate::io::{AsyncRead, AsyncWrite, Interest, ReadBuf, Ready};

/// Simulated/own version of
/// [`tokio::net::UnixStream`](https://docs.rs/tokio/1/tokio/net/struct.UnixStream.html):
/// a stream over a Unix domain socket of the running task's host.
///
/// A write lands in the peer's receive queue at once (a Unix socket has no
/// network in between), up to [`sim_net::STREAM_QUEUE`] bytes; closing
/// with bytes left unread resets the peer, and a host reset closes every
/// socket of the host (see the `sim_net` model's `unix.rs`).
///
/// ```
/// # sim_rt::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
/// use sim_rt::io::{AsyncReadExt, AsyncWriteExt};
/// use sim_rt::net::{UnixListener, UnixStream};
///
/// let listener = UnixListener::bind("/tmp/app.sock")?;
/// let mut client = UnixStream::connect("/tmp/app.sock").await?;
/// let (mut server, _) = listener.accept().await?;
/// client.write_all(b"ping").await?;
/// let mut buf = [0; 4];
/// server.read_exact(&mut buf).await?;
/// assert_eq!(&buf, b"ping");
/// # Ok::<(), std::io::Error>(())
/// # }).unwrap();
/// ```
///
/// # Differences from tokio
///
/// - [`from_std`](Self::from_std) takes only a std stream made inside the
///   simulation (a real one cannot join a simulated host: `Unsupported`);
///   [`into_std`](Self::into_std) gives a std stream whose calls reach the
///   simulated socket. The raw fd is a real, never connected placeholder
///   socket.
/// - Every task waiting on the stream is woken when it becomes ready, not
///   only the last one that polled (a spurious wake is allowed either way).
pub struct UnixStream {
    pub(super) io: UnixIo,
}

impl UnixStream {
    pub(super) fn from_io(io: UnixIo) -> UnixStream {
        UnixStream { io }
    }

    /// Simulated/own version of
    /// [`tokio::net::UnixStream::connect`](https://docs.rs/tokio/1/tokio/net/struct.UnixStream.html#method.connect):
    /// connects to the socket bound to `path` (a leading NUL byte names
    /// the abstract namespace).
    ///
    /// # Errors
    ///
    /// `NotFound` when nothing is at the path; `ConnectionRefused` when no
    /// socket listens there (a stale socket file, a file that is not a
    /// socket, a free abstract name); `WouldBlock` when the listener's
    /// backlog is full (as tokio, whose connect is non-blocking).
    pub async fn connect<P>(path: P) -> io::Result<UnixStream>
    where
        P: AsRef<Path>,
    {
        let path = path.as_ref().to_path_buf();
        let stream = UnixStream::start()?;
        stream.io.connect(&path).await?;
        Ok(stream)
    }

    /// Kept out of `connect` so that no `Rc<World>` is held across an
    /// await.
    #[track_caller]
    fn start() -> io::Result<UnixStream> {
        let (_, io) = UnixIo::new(UnixType::Stream)?;
        Ok(UnixStream { io })
    }

    /// Simulated/own version of
    /// [`tokio::net::UnixStream::connect_addr`](https://docs.rs/tokio/1/tokio/net/struct.UnixStream.html#method.connect_addr):
    /// connects to `socket_addr` (a path or an abstract name).
    ///
    /// # Errors
    ///
    /// As [`connect`](Self::connect); `InvalidInput` for an unnamed
    /// address.
    pub async fn connect_addr(socket_addr: &SocketAddr) -> io::Result<UnixStream> {
        let path = path_of(socket_addr)?;
        UnixStream::connect(path).await
    }

    /// Simulated/own version of
    /// [`tokio::net::UnixStream::pair`](https://docs.rs/tokio/1/tokio/net/struct.UnixStream.html#method.pair):
    /// two unnamed streams connected to each other.
    ///
    /// # Panics
    ///
    /// Outside a simulation, or in one without the I/O driver, as tokio's.
    #[track_caller]
    pub fn pair() -> io::Result<(UnixStream, UnixStream)> {
        let (a, b) = UnixIo::pair(UnixType::Stream)?;
        Ok((UnixStream { io: a }, UnixStream { io: b }))
    }

    /// Simulated/own version of
    /// [`tokio::net::UnixStream::from_std`](https://docs.rs/tokio/1/tokio/net/struct.UnixStream.html#method.from_std).
    ///
    /// # Errors
    ///
    /// `Unsupported` when `stream` is a real socket, made outside the
    /// simulation (a real socket cannot join a simulated host), or has a
    /// `try_clone` still open; it is closed.
    ///
    /// # Panics
    ///
    /// Outside a simulation, as tokio's panics outside a runtime.
    #[track_caller]
    pub fn from_std(stream: std::os::unix::net::UnixStream) -> io::Result<UnixStream> {
        let io = UnixIo::from_fd(stream.into(), UnixType::Stream, "UnixStream::from_std")?;
        Ok(UnixStream::from_io(io))
    }

    /// Simulated/own version of
    /// [`tokio::net::UnixStream::into_std`](https://docs.rs/tokio/1/tokio/net/struct.UnixStream.html#method.into_std).
    ///
    /// # Errors
    ///
    /// When the simulation is gone. The std stream's calls (`read`,
    /// `write`, blocking or not) reach the simulated socket, in
    /// non-blocking mode as tokio hands it over.
    pub fn into_std(self) -> io::Result<std::os::unix::net::UnixStream> {
        Ok(self.io.into_fd()?.into())
    }

    unix_methods!(
        "tokio::net::UnixStream",
        "https://docs.rs/tokio/1/tokio/net/struct.UnixStream.html",
        |s| s.io; ready, read, write, io, addrs,
    );

    /// Simulated/own version of
    /// [`tokio::net::UnixStream::poll_read_ready`](https://docs.rs/tokio/1/tokio/net/struct.UnixStream.html#method.poll_read_ready):
    /// `Ready` once the stream is readable, else registers the task.
    pub fn poll_read_ready(&self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.io.poll_ready(cx, sim_net::Readiness::READABLE)
    }

    /// Simulated/own version of
    /// [`tokio::net::UnixStream::poll_write_ready`](https://docs.rs/tokio/1/tokio/net/struct.UnixStream.html#method.poll_write_ready):
    /// `Ready` once the stream is writable, else registers the task.
    pub fn poll_write_ready(&self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.io.poll_ready(cx, sim_net::Readiness::WRITABLE)
    }

    /// Simulated/own version of
    /// [`tokio::net::UnixStream::peer_cred`](https://docs.rs/tokio/1/tokio/net/struct.UnixStream.html#method.peer_cred):
    /// the credentials of the peer's process when the connection was made
    /// (here the process the simulation runs in).
    pub fn peer_cred(&self) -> io::Result<UCred> {
        self.io.peer_cred()
    }

    /// Simulated/own version of
    /// [`tokio::net::UnixStream::take_error`](https://docs.rs/tokio/1/tokio/net/struct.UnixStream.html#method.take_error):
    /// the pending error (a reset), taken.
    pub fn take_error(&self) -> io::Result<Option<io::Error>> {
        self.io.take_error()
    }

    /// Simulated/own version of
    /// [`tokio::net::UnixStream::split`](https://docs.rs/tokio/1/tokio/net/struct.UnixStream.html#method.split):
    /// borrowed read and write halves.
    // The lifetime is spelled out, as in tokio.
    #[allow(clippy::needless_lifetimes)]
    pub fn split<'a>(&'a mut self) -> (ReadHalf<'a>, WriteHalf<'a>) {
        (ReadHalf(self), WriteHalf(self))
    }

    /// Simulated/own version of
    /// [`tokio::net::UnixStream::into_split`](https://docs.rs/tokio/1/tokio/net/struct.UnixStream.html#method.into_split):
    /// owned halves; dropping the write half shuts the writing down.
    pub fn into_split(self) -> (OwnedReadHalf, OwnedWriteHalf) {
        super::split::split_owned(Arc::new(self))
    }

    pub(super) fn shutdown_std(&self, how: Shutdown) -> io::Result<()> {
        self.io.shutdown(how)
    }
}

/// The path `connect` takes for `addr` (`\0name` for an abstract name).
pub(super) fn path_of(addr: &SocketAddr) -> io::Result<PathBuf> {
    if let Some(p) = addr.as_pathname() {
        return Ok(p.to_path_buf());
    }
    if let Some(name) = addr.as_abstract_name() {
        use std::os::unix::ffi::OsStrExt;
        let mut bytes = vec![0];
        bytes.extend_from_slice(name);
        return Ok(PathBuf::from(std::ffi::OsStr::from_bytes(&bytes)));
    }
    Err(io::Error::new(
        io::ErrorKind::InvalidInput,
        "an unnamed Unix socket address cannot be connected to",
    ))
}

impl AsyncRead for UnixStream {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        self.io.poll_read(cx, buf)
    }
}

impl AsyncWrite for UnixStream {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        self.io.poll_write(cx, buf)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let data: Vec<u8> = bufs.iter().flat_map(|b| b.iter().copied()).collect();
        self.io.poll_write(cx, &data)
    }

    fn is_write_vectored(&self) -> bool {
        true
    }

    fn poll_flush(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }

    fn poll_shutdown(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(self.shutdown_std(Shutdown::Write))
    }
}

impl AsRef<Self> for UnixStream {
    fn as_ref(&self) -> &Self {
        self
    }
}

impl TryFrom<std::os::unix::net::UnixStream> for UnixStream {
    type Error = io::Error;

    /// As [`UnixStream::from_std`].
    #[track_caller]
    fn try_from(stream: std::os::unix::net::UnixStream) -> io::Result<Self> {
        Self::from_std(stream)
    }
}

impl AsRawFd for UnixStream {
    fn as_raw_fd(&self) -> RawFd {
        self.io.raw_fd()
    }
}

impl AsFd for UnixStream {
    fn as_fd(&self) -> BorrowedFd<'_> {
        // SAFETY: the placeholder lives as long as the stream.
        #[allow(unsafe_code)]
        unsafe {
            BorrowedFd::borrow_raw(self.as_raw_fd())
        }
    }
}

impl fmt::Debug for UnixStream {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("UnixStream")
            .field("socket", &self.io.id)
            .finish_non_exhaustive()
    }
}
