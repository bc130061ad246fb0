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

/// The error of `from_std` (and `TryFrom`) of a real std socket (made
/// outside the simulation): it cannot join the simulated network.
pub(crate) fn from_std_unsupported(item: &str) -> io::Error {
    io::Error::new(
        io::ErrorKind::Unsupported,
        format!(
            "{item}: the std socket is a real OS socket, made outside the simulation, which \
             cannot join the simulated network (sim-rt). Make it inside the simulation (std and \
             socket2 sockets made there are simulated), or create it with sim_rt::net \
             (tokio::net under --cfg sim); to set options through socket2, create an \
             unconnected socket2 socket and pass it to TcpSocket::from_std_stream"
        ),
    )
}

/// The POSIX layer of the simulated descriptors (std's sockets and pipes
/// made inside a simulation), where the interposed calls exist; without
/// it (another platform, `intercept` off) no std socket is simulated and
/// these find none.
#[cfg(all(
    feature = "intercept",
    target_os = "linux",
    target_env = "gnu",
    not(target_feature = "crt-static")
))]
mod posix {
    pub(crate) use crate::disk::posix::ip::{
        hand_over as ip_hand_over, register_view as ip_register_view, take as ip_take,
    };

    /// Forgets a view registered on `fd` (the handle closes its socket).
    pub(crate) fn forget_view(fd: std::os::fd::RawFd) {
        crate::disk::posix::table::remove(fd);
    }
    pub(crate) use crate::disk::posix::pipe::pipe_of;
    pub(crate) use crate::disk::posix::sock::{
        hand_over as unix_hand_over, register_view as unix_register_view, take as unix_take,
    };
}

#[cfg(not(all(
    feature = "intercept",
    target_os = "linux",
    target_env = "gnu",
    not(target_feature = "crt-static")
)))]
mod posix {
    use std::io;
    use std::os::fd::{OwnedFd, RawFd};

    use crate::runtime::net::IpObj;
    use crate::runtime::world::World;
    use crate::scheduler::HostId;

    fn unsupported() -> io::Error {
        io::Error::new(
            io::ErrorKind::Unsupported,
            "into_std of a simulated socket needs the interposed socket calls (sim-rt's \
             `intercept` feature, on Linux with glibc)",
        )
    }

    pub(crate) fn ip_take(_: RawFd) -> Option<(IpObj, HostId)> {
        None
    }

    pub(crate) fn ip_hand_over(_: &World, _: HostId, _: IpObj, _: bool) -> io::Result<OwnedFd> {
        Err(unsupported())
    }

    pub(crate) fn unix_take(_: RawFd) -> Option<(sim_net::UnixId, HostId)> {
        None
    }

    pub(crate) fn unix_hand_over(_: &World, _: HostId, _: sim_net::UnixId) -> io::Result<OwnedFd> {
        Err(unsupported())
    }

    pub(crate) fn pipe_of(_: RawFd) -> Option<(sim_net::PipeId, HostId)> {
        None
    }

    pub(crate) fn ip_register_view(_: &World, _: HostId, _: RawFd, _: IpObj, _: bool) {}

    pub(crate) fn unix_register_view(_: &World, _: HostId, _: RawFd, _: sim_net::UnixId) {}

    pub(crate) fn forget_view(_: RawFd) {}
}

pub(crate) use self::posix::{forget_view, pipe_of, unix_hand_over, unix_take};

/// As [`register_view`], for a tokio Unix socket's placeholder.
pub(crate) fn register_unix_view(
    io: &super::io::NetIo,
    fd: std::os::fd::RawFd,
    id: sim_net::UnixId,
) {
    if let Ok(world) = io.world() {
        posix::unix_register_view(&world, io.host(), fd, id);
    }
}

/// Makes `fd`, the placeholder of a tokio socket whose model socket is
/// `obj`, a view of it for calls made on the raw fd (see
/// `disk::posix::ip::register_view`).
pub(crate) fn register_view(
    io: &super::io::NetIo,
    fd: std::os::fd::RawFd,
    obj: crate::runtime::net::IpObj,
    v6: bool,
) {
    if let Ok(world) = io.world() {
        posix::ip_register_view(&world, io.host(), fd, obj, v6);
    }
}

/// `from_std` of a std socket: the model socket behind it when it was
/// made inside this simulation (the std socket becomes its placeholder),
/// else the std socket is closed and the error is `Unsupported` (a real
/// socket cannot join the simulated network).
///
/// # Panics
///
/// Outside a simulation, as tokio's `from_std` outside a runtime.
#[track_caller]
pub(crate) fn adopt_std(
    fd: std::os::fd::OwnedFd,
    item: &str,
) -> io::Result<(super::io::NetIo, crate::runtime::net::IpObj, Socket)> {
    use std::os::fd::AsRawFd;
    let (world, _, _) = super::io::NetIo::current()?;
    match posix::ip_take(fd.as_raw_fd()) {
        Some((obj, host)) => Ok((super::io::NetIo::on(&world, host), obj, Socket::from(fd))),
        None => {
            drop(fd);
            Err(from_std_unsupported(item))
        }
    }
}

/// `into_std` of a simulated socket: a new descriptor on the same model
/// socket, non-blocking, for a std socket (the caller's handle must then
/// let the model socket go without closing it).
pub(crate) fn hand_over_std(
    io: &super::io::NetIo,
    obj: crate::runtime::net::IpObj,
    v6: bool,
) -> io::Result<std::os::fd::OwnedFd> {
    let world = io.world()?;
    posix::ip_hand_over(&world, io.host(), obj, v6)
}
