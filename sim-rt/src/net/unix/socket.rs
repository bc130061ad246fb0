//! Simulated/own version of tokio's `UnixSocket`.

use std::io;
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, FromRawFd, IntoRawFd, RawFd};
use std::path::Path;

use socket2::{Domain, Socket, Type};

use std::sync::OnceLock;

use sim_net::UnixType;

use super::core::UnixIo;
use super::{UnixDatagram, UnixListener, UnixStream};

/// Simulated/own version of
/// [`tokio::net::UnixSocket`](https://docs.rs/tokio/1/tokio/net/struct.UnixSocket.html):
/// a Unix socket that has not yet been converted to a [`UnixStream`],
/// [`UnixDatagram`] or [`UnixListener`].
///
/// # Differences from tokio
///
/// The fd is a real socket that is never bound, listened on nor connected
/// (options set on it are stored by the kernel, with no effect); the
/// simulated socket behind it is made by [`bind`](Self::bind), or by the
/// conversion if there was no bind. So `bind`, like the conversions, needs
/// a simulation (tokio's needs no runtime).
#[derive(Debug)]
pub struct UnixSocket {
    inner: Socket,
    ty: UnixType,
    /// The simulated socket, once bound.
    sim: OnceLock<UnixIo>,
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
        UnixSocket::new(Type::DGRAM, UnixType::Datagram)
    }

    /// Simulated/own version of
    /// [`tokio::net::UnixSocket::new_stream`](https://docs.rs/tokio/1/tokio/net/struct.UnixSocket.html#method.new_stream):
    /// creates a new Unix stream socket.
    ///
    /// # Errors
    ///
    /// As `socket(2)`.
    pub fn new_stream() -> io::Result<UnixSocket> {
        UnixSocket::new(Type::STREAM, UnixType::Stream)
    }

    fn new(kind: Type, ty: UnixType) -> io::Result<UnixSocket> {
        // With interception off: the simulated socket is made when the
        // socket binds or converts; this one is only its fd.
        let inner = crate::switches::without_interception(|| {
            let inner = Socket::new(Domain::UNIX, kind, None)?;
            inner.set_nonblocking(true)?;
            Ok::<_, io::Error>(inner)
        })?;
        Ok(UnixSocket {
            inner,
            ty,
            sim: OnceLock::new(),
        })
    }

    /// Simulated/own version of
    /// [`tokio::net::UnixSocket::bind`](https://docs.rs/tokio/1/tokio/net/struct.UnixSocket.html#method.bind):
    /// binds the socket to `path` on the running task's host.
    ///
    /// # Errors
    ///
    /// As [`UnixListener::bind`]; `InvalidInput` when already bound.
    ///
    /// # Panics
    ///
    /// Outside a simulation.
    #[track_caller]
    pub fn bind(&self, path: impl AsRef<Path>) -> io::Result<()> {
        if self.sim.get().is_some() {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "the socket is already bound",
            ));
        }
        let (_, io) = UnixIo::new(self.ty)?;
        io.bind(path.as_ref())?;
        // `&self` methods cannot race in a simulation: one task runs.
        self.sim
            .set(io)
            .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "the socket is already bound"))
    }

    /// The simulated socket: the bound one, or a new one.
    #[track_caller]
    fn into_sim(mut self) -> io::Result<UnixIo> {
        let io = match self.sim.take() {
            Some(io) => io,
            None => UnixIo::new(self.ty)?.1,
        };
        Ok(io.with_placeholder(self.inner))
    }

    /// Simulated/own version of
    /// [`tokio::net::UnixSocket::listen`](https://docs.rs/tokio/1/tokio/net/struct.UnixSocket.html#method.listen):
    /// a listener with the given backlog (an unbound socket gets an
    /// abstract autobind name, as on Linux).
    ///
    /// # Errors
    ///
    /// `InvalidInput` on a datagram socket (Linux: `EOPNOTSUPP`).
    #[track_caller]
    pub fn listen(self, backlog: u32) -> io::Result<UnixListener> {
        if self.ty == UnixType::Datagram {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "listen cannot be called on a datagram socket",
            ));
        }
        let io = self.into_sim()?;
        io.listen(usize::try_from(backlog).unwrap_or(usize::MAX))?;
        Ok(UnixListener::from_io(io))
    }

    /// Simulated/own version of
    /// [`tokio::net::UnixSocket::connect`](https://docs.rs/tokio/1/tokio/net/struct.UnixSocket.html#method.connect):
    /// connects to the listener bound to `path`.
    ///
    /// # Errors
    ///
    /// As [`UnixStream::connect`]; `InvalidInput` on a datagram socket.
    pub async fn connect(self, path: impl AsRef<Path>) -> io::Result<UnixStream> {
        if self.ty == UnixType::Datagram {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "connect cannot be called on a datagram socket",
            ));
        }
        let io = self.into_sim()?;
        io.connect(path.as_ref()).await?;
        Ok(UnixStream::from_io(io))
    }

    /// Simulated/own version of
    /// [`tokio::net::UnixSocket::datagram`](https://docs.rs/tokio/1/tokio/net/struct.UnixSocket.html#method.datagram):
    /// the socket as a [`UnixDatagram`].
    ///
    /// # Errors
    ///
    /// `InvalidInput` on a stream socket.
    #[track_caller]
    pub fn datagram(self) -> io::Result<UnixDatagram> {
        if self.ty == UnixType::Stream {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "datagram cannot be called on a stream socket",
            ));
        }
        Ok(UnixDatagram::from_io(self.into_sim()?))
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
        let inner = unsafe { Socket::from_raw_fd(fd) };
        let ty = match inner.r#type() {
            Ok(t) if t == Type::DGRAM => UnixType::Datagram,
            _ => UnixType::Stream,
        };
        UnixSocket {
            inner,
            ty,
            sim: OnceLock::new(),
        }
    }
}

impl IntoRawFd for UnixSocket {
    fn into_raw_fd(self) -> RawFd {
        self.inner.into_raw_fd()
    }
}
