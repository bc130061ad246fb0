//! The real file descriptors behind simulated sockets, and what sim_rt does
//! with std's (real) sockets.
//!
//! Programs reach for a socket's raw fd to set options tokio does not wrap
//! (`socket2::SockRef::from(&stream).set_tcp_keepalive(..)`, as hyper-util
//! and tonic do). A simulated socket has no OS socket, so it gets a
//! *placeholder*: a real socket of the same family and type that is never
//! bound, connected nor sent on (inside a simulation those calls are
//! refused anyway, see `intercept`), created the first time someone asks
//! for the fd, or handed over by [`TcpSocket`](crate::net::TcpSocket),
//! whose fd it is. Options set on it are the kernel's to validate and
//! store, exactly as on a real socket.
//!
//! The options the simulated socket reports itself (`nodelay`, `ttl`,
//! `linger`, `broadcast`) live in the handle until a placeholder exists,
//! and from then on in the placeholder, so a value set through the raw fd
//! is the value the handle's getters report, and the other way round. Of
//! them only a zero linger changes what the simulation does (the drop
//! aborts the connection); every other option set through the fd
//! (keepalive, buffer sizes, user timeouts...) is stored by the kernel and
//! has no effect on the simulated network.
//!
//! # Invariants
//!
//! - A placeholder never reaches the network: sim_rt never binds, connects
//!   or listens on it, and it is closed with its handle.
//! - Once set, the placeholder is never replaced (`OnceLock`), so the fd a
//!   caller borrowed stays valid for the handle's lifetime.

use std::fmt;
use std::io;
use std::sync::OnceLock;

use socket2::{Domain, Protocol, Socket, Type};

/// The lazily created real socket behind a simulated socket's raw fd.
pub(crate) struct Placeholder {
    socket: OnceLock<Socket>,
}

impl Placeholder {
    /// No fd yet: one is created on first use.
    pub(crate) fn lazy() -> Placeholder {
        Placeholder {
            socket: OnceLock::new(),
        }
    }

    /// Uses `socket` (a `TcpSocket`'s fd) as the placeholder.
    pub(crate) fn with(socket: Socket) -> Placeholder {
        Placeholder {
            socket: OnceLock::from(socket),
        }
    }

    /// The placeholder, if it exists.
    pub(crate) fn get(&self) -> Option<&Socket> {
        self.socket.get()
    }

    /// The placeholder, created now if needed as a `kind` socket of
    /// `domain`, and handed to `init` to receive the options the handle
    /// stored so far.
    ///
    /// # Panics
    ///
    /// When the OS refuses a new socket (the process is out of file
    /// descriptors): `as_raw_fd` cannot report an error.
    pub(crate) fn get_or_create(
        &self,
        domain: Domain,
        kind: Kind,
        init: impl FnOnce(&Socket),
    ) -> &Socket {
        self.socket.get_or_init(|| {
            let socket = new_socket(domain, kind).unwrap_or_else(|e| {
                panic!(
                    "sim_rt could not create the placeholder socket behind a simulated \
                     socket's raw fd: {e}. Each simulated socket whose fd is asked for \
                     (as_raw_fd / as_fd / SockRef) holds one real, never connected socket; \
                     raise the limit on open files (ulimit -n) or drop sockets sooner"
                )
            });
            init(&socket);
            socket
        })
    }
}

impl fmt::Debug for Placeholder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use std::os::fd::AsRawFd;
        match self.socket.get() {
            Some(s) => write!(f, "Placeholder(fd {})", s.as_raw_fd()),
            None => f.write_str("Placeholder(none yet)"),
        }
    }
}

/// Which transport a placeholder stands in for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Tcp,
    Udp,
    UnixStream,
    UnixDatagram,
}

/// A new real, non-blocking, close-on-exec socket.
pub(crate) fn new_socket(domain: Domain, kind: Kind) -> io::Result<Socket> {
    let (ty, protocol) = match kind {
        Kind::Tcp => (Type::STREAM, Some(Protocol::TCP)),
        Kind::Udp => (Type::DGRAM, Some(Protocol::UDP)),
        Kind::UnixStream => (Type::STREAM, None),
        Kind::UnixDatagram => (Type::DGRAM, None),
    };
    // With interception off: a placeholder is no socket of the program's
    // (an `AF_UNIX` one made inside a simulation would become one).
    crate::switches::without_interception(|| {
        let socket = Socket::new(domain, ty, protocol)?;
        socket.set_nonblocking(true)?;
        Ok(socket)
    })
}

/// The domain of a socket whose address is `addr` (IPv4 when unknown: the
/// socket's host is gone).
pub(crate) fn domain_of(addr: io::Result<std::net::SocketAddr>) -> Domain {
    match addr {
        Ok(std::net::SocketAddr::V6(_)) => Domain::IPV6,
        _ => Domain::IPV4,
    }
}

/// What tokio's socket constructors do first, registering with the
/// reactor: panics outside a runtime and in one without the I/O driver, at
/// the caller's location, and fails with the error `is_rt_shutdown_err`
/// recognises in one that was shut down (see `NetIo::current`).
#[track_caller]
pub(crate) fn register() -> io::Result<()> {
    super::io::NetIo::current().map(drop)
}

/// The error of every `from_std` (and `TryFrom`) of a std socket: a real OS
/// socket cannot join the simulated network.
pub(crate) fn from_std_unsupported(item: &str) -> io::Error {
    io::Error::new(
        io::ErrorKind::Unsupported,
        format!(
            "{item}: the std socket is a real OS socket, which cannot join the simulated \
             network (sim-rt). Create the socket with sim_rt::net (tokio::net under --cfg sim) \
             inside the simulation; to set options through socket2, create an unconnected \
             socket2 socket and pass it to TcpSocket::from_std_stream"
        ),
    )
}

/// What every `from_std` of a std socket does: closes `std`, registers as
/// tokio's does (see [`register`]), and fails with [`from_std_unsupported`].
#[track_caller]
pub(crate) fn refuse_from_std<T>(std: impl Sized, item: &str) -> io::Result<T> {
    drop(std);
    register()?;
    Err(from_std_unsupported(item))
}

/// The error of every `into_std`: a simulated socket has no OS socket.
pub(crate) fn into_std_unsupported(item: &str) -> io::Error {
    io::Error::new(
        io::ErrorKind::Unsupported,
        format!(
            "{item}: a simulated socket has no OS socket to hand over (sim-rt simulates the \
             network). Keep using the tokio::net type inside the simulation; its raw fd \
             (as_raw_fd / socket2::SockRef) is a placeholder for socket options"
        ),
    )
}
