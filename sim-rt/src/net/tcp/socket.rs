//! Simulated [`tokio::net::TcpSocket`](https://docs.rs/tokio/1/tokio/net/struct.TcpSocket.html): a TCP socket configured before it
//! connects or listens.
//!
//! A `TcpSocket` is a real socket (created by `socket(2)`, which a
//! simulation allows) that never reaches the network: its options are the
//! kernel's to validate and store, exactly as with tokio, while `bind`,
//! `connect` and `listen` happen in the simulated network, on the host of
//! the task that calls them. The real socket then becomes the placeholder
//! behind the stream's or listener's raw fd (see `net/fd.rs`), so options
//! set before the connect (through this type or socket2) are still there,
//! and `nodelay`, `ttl` and `linger` carry over to the stream's getters.
//!
//! # Invariants
//!
//! - `inner` is never bound, connected nor listened on by sim_rt; a socket
//!   that was (outside a simulation, before `from_std_stream`) makes
//!   `bind`, `connect` and `listen` fail with `Unsupported`.
//! - `bound` holds the simulated local address set by `bind`, checked to be
//!   one of the binding host's addresses (or a wildcard or loopback one).

use std::fmt;
use std::io;
use std::net::SocketAddr;
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, FromRawFd, IntoRawFd, RawFd};
use std::sync::{Mutex, PoisonError};
use std::time::Duration;

use socket2::{Domain, Socket};

use crate::net::fd::{self, Kind};
use crate::net::{TcpListener, TcpStream};

/// Simulated/own version of
/// [`tokio::net::TcpSocket`](https://docs.rs/tokio/1/tokio/net/struct.TcpSocket.html):
/// a TCP socket that has not yet been converted to a [`TcpStream`] or
/// [`TcpListener`].
///
/// Create one with [`new_v4`](Self::new_v4) or [`new_v6`](Self::new_v6) (or
/// from an unconnected socket2 socket with
/// [`from_std_stream`](Self::from_std_stream)), set options, optionally
/// [`bind`](Self::bind) it, then [`connect`](Self::connect) to get a
/// stream or [`listen`](Self::listen) to get a listener.
///
/// # Examples
///
/// ```
/// # sim_rt::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
/// use sim_rt::net::TcpSocket;
///
/// let socket = TcpSocket::new_v4()?;
/// socket.set_reuseaddr(true)?;
/// socket.bind("127.0.0.1:8080".parse().unwrap())?;
/// let listener = socket.listen(1024)?;
///
/// let client = TcpSocket::new_v4()?;
/// client.set_nodelay(true)?;
/// let stream = client.connect("127.0.0.1:8080".parse().unwrap()).await?;
/// assert!(stream.nodelay()?);
/// let (_accepted, peer) = listener.accept().await?;
/// assert_eq!(peer, stream.local_addr()?);
/// # Ok::<(), std::io::Error>(())
/// # }).unwrap();
/// ```
///
/// # Differences from tokio
///
/// - `bind` checks the address family and that the address belongs to the
///   current task's host (`AddrNotAvailable` otherwise), but reserves no
///   port: a port held by another listener is reported by
///   [`listen`](Self::listen) (`AddrInUse`), and
///   [`local_addr`](Self::local_addr) reports the bound address as given
///   (port 0 stays 0 until `listen`).
/// - A [`connect`](Self::connect) after `bind` uses the address and port
///   the simulated network picks (as an unbound socket does); the bound
///   address is not the stream's local address.
/// - `listen`'s backlog is the simulation's (`NetConfig::backlog`), not
///   the argument.
/// - Options (`keepalive`, buffer sizes, `reuseaddr`, `tos`, `device`...)
///   live on the real socket, so they report what the machine's kernel
///   reports (a send buffer size is doubled by Linux, as with tokio), and
///   only `nodelay`, `linger` (zero: the drop resets the connection) and
///   the TTL carry meaning into the simulation.
pub struct TcpSocket {
    inner: Socket,
    bound: Mutex<Option<SocketAddr>>,
}

impl TcpSocket {
    /// Simulated/own version of
    /// [`tokio::net::TcpSocket::new_v4`](https://docs.rs/tokio/1/tokio/net/struct.TcpSocket.html#method.new_v4):
    /// creates a new socket configured for IPv4.
    ///
    /// # Errors
    ///
    /// As `socket(2)` (out of file descriptors).
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub fn new_v4() -> io::Result<TcpSocket> {
        TcpSocket::new(Domain::IPV4)
    }

    /// Simulated/own version of
    /// [`tokio::net::TcpSocket::new_v6`](https://docs.rs/tokio/1/tokio/net/struct.TcpSocket.html#method.new_v6):
    /// creates a new socket configured for IPv6.
    ///
    /// # Errors
    ///
    /// As `socket(2)` (out of file descriptors).
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub fn new_v6() -> io::Result<TcpSocket> {
        TcpSocket::new(Domain::IPV6)
    }

    fn new(domain: Domain) -> io::Result<TcpSocket> {
        Ok(TcpSocket::from_socket(fd::new_socket(domain, Kind::Tcp)?))
    }

    fn from_socket(inner: Socket) -> TcpSocket {
        TcpSocket {
            inner,
            bound: Mutex::new(None),
        }
    }

    /// Simulated/own version of
    /// [`tokio::net::TcpSocket::set_keepalive`](https://docs.rs/tokio/1/tokio/net/struct.TcpSocket.html#method.set_keepalive):
    /// sets `SO_KEEPALIVE`.
    ///
    /// # Differences from tokio
    ///
    /// Stored only: the simulated network sends no keepalive probes.
    pub fn set_keepalive(&self, keepalive: bool) -> io::Result<()> {
        self.inner.set_keepalive(keepalive)
    }

    /// Simulated/own version of
    /// [`tokio::net::TcpSocket::keepalive`](https://docs.rs/tokio/1/tokio/net/struct.TcpSocket.html#method.keepalive):
    /// gets `SO_KEEPALIVE`.
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub fn keepalive(&self) -> io::Result<bool> {
        self.inner.keepalive()
    }

    /// Simulated/own version of
    /// [`tokio::net::TcpSocket::set_reuseaddr`](https://docs.rs/tokio/1/tokio/net/struct.TcpSocket.html#method.set_reuseaddr):
    /// allows the socket to bind to an in-use port (`SO_REUSEADDR`).
    ///
    /// # Differences from tokio
    ///
    /// Stored only: the simulated network behaves as if it were set (it has
    /// no `TIME_WAIT`), as tokio's `TcpListener::bind` sets it.
    pub fn set_reuseaddr(&self, reuseaddr: bool) -> io::Result<()> {
        self.inner.set_reuse_address(reuseaddr)
    }

    /// Simulated/own version of
    /// [`tokio::net::TcpSocket::reuseaddr`](https://docs.rs/tokio/1/tokio/net/struct.TcpSocket.html#method.reuseaddr):
    /// gets `SO_REUSEADDR`.
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub fn reuseaddr(&self) -> io::Result<bool> {
        self.inner.reuse_address()
    }

    cfg_reuseport! {
        /// Simulated/own version of
        /// [`tokio::net::TcpSocket::set_reuseport`](https://docs.rs/tokio/1/tokio/net/struct.TcpSocket.html#method.set_reuseport):
        /// allows several sockets to bind the same port (`SO_REUSEPORT`).
        ///
        /// # Differences from tokio
        ///
        /// Stored only: two simulated listeners on one port still conflict.
        pub fn set_reuseport(&self, reuseport: bool) -> io::Result<()> {
            self.inner.set_reuse_port(reuseport)
        }

        /// Simulated/own version of
        /// [`tokio::net::TcpSocket::reuseport`](https://docs.rs/tokio/1/tokio/net/struct.TcpSocket.html#method.reuseport):
        /// gets `SO_REUSEPORT`.
        ///
        /// # Differences from tokio
        ///
        /// None.
        pub fn reuseport(&self) -> io::Result<bool> {
            self.inner.reuse_port()
        }
    }

    /// Simulated/own version of
    /// [`tokio::net::TcpSocket::set_send_buffer_size`](https://docs.rs/tokio/1/tokio/net/struct.TcpSocket.html#method.set_send_buffer_size):
    /// sets `SO_SNDBUF`.
    ///
    /// # Differences from tokio
    ///
    /// Stored only: the simulated send buffer has the size of the
    /// simulation's `NetConfig`.
    pub fn set_send_buffer_size(&self, size: u32) -> io::Result<()> {
        self.inner.set_send_buffer_size(size as usize)
    }

    /// Simulated/own version of
    /// [`tokio::net::TcpSocket::send_buffer_size`](https://docs.rs/tokio/1/tokio/net/struct.TcpSocket.html#method.send_buffer_size):
    /// gets `SO_SNDBUF` (Linux reports twice the size set).
    ///
    /// # Differences from tokio
    ///
    /// None (the machine's kernel answers).
    pub fn send_buffer_size(&self) -> io::Result<u32> {
        self.inner.send_buffer_size().map(|n| n as u32)
    }

    /// Simulated/own version of
    /// [`tokio::net::TcpSocket::set_recv_buffer_size`](https://docs.rs/tokio/1/tokio/net/struct.TcpSocket.html#method.set_recv_buffer_size):
    /// sets `SO_RCVBUF`.
    ///
    /// # Differences from tokio
    ///
    /// Stored only, like [`set_send_buffer_size`](Self::set_send_buffer_size).
    pub fn set_recv_buffer_size(&self, size: u32) -> io::Result<()> {
        self.inner.set_recv_buffer_size(size as usize)
    }

    /// Simulated/own version of
    /// [`tokio::net::TcpSocket::recv_buffer_size`](https://docs.rs/tokio/1/tokio/net/struct.TcpSocket.html#method.recv_buffer_size):
    /// gets `SO_RCVBUF` (Linux reports twice the size set).
    ///
    /// # Differences from tokio
    ///
    /// None (the machine's kernel answers).
    pub fn recv_buffer_size(&self) -> io::Result<u32> {
        self.inner.recv_buffer_size().map(|n| n as u32)
    }

    /// Simulated/own version of
    /// [`tokio::net::TcpSocket::set_linger`](https://docs.rs/tokio/1/tokio/net/struct.TcpSocket.html#method.set_linger):
    /// sets `SO_LINGER`, which the stream this socket connects keeps.
    ///
    /// # Differences from tokio
    ///
    /// As [`TcpStream::set_linger`]: a nonzero linger does not block the
    /// drop.
    #[deprecated = "`SO_LINGER` causes the socket to block the thread on drop"]
    pub fn set_linger(&self, dur: Option<Duration>) -> io::Result<()> {
        self.inner.set_linger(dur)
    }

    /// Simulated/own version of
    /// [`tokio::net::TcpSocket::set_zero_linger`](https://docs.rs/tokio/1/tokio/net/struct.TcpSocket.html#method.set_zero_linger):
    /// sets `SO_LINGER` to zero, so dropping the stream this socket
    /// connects resets the connection.
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub fn set_zero_linger(&self) -> io::Result<()> {
        self.inner.set_linger(Some(Duration::ZERO))
    }

    /// Simulated/own version of
    /// [`tokio::net::TcpSocket::linger`](https://docs.rs/tokio/1/tokio/net/struct.TcpSocket.html#method.linger):
    /// gets `SO_LINGER`.
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub fn linger(&self) -> io::Result<Option<Duration>> {
        self.inner.linger()
    }

    /// Simulated/own version of
    /// [`tokio::net::TcpSocket::set_nodelay`](https://docs.rs/tokio/1/tokio/net/struct.TcpSocket.html#method.set_nodelay):
    /// sets `TCP_NODELAY`, which the stream this socket connects keeps.
    ///
    /// # Differences from tokio
    ///
    /// As [`TcpStream::set_nodelay`]: the simulated network never delays a
    /// write.
    pub fn set_nodelay(&self, nodelay: bool) -> io::Result<()> {
        self.inner.set_tcp_nodelay(nodelay)
    }

    /// Simulated/own version of
    /// [`tokio::net::TcpSocket::nodelay`](https://docs.rs/tokio/1/tokio/net/struct.TcpSocket.html#method.nodelay):
    /// gets `TCP_NODELAY`.
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub fn nodelay(&self) -> io::Result<bool> {
        self.inner.tcp_nodelay()
    }

    cfg_tclass! {
        /// Simulated/own version of
        /// [`tokio::net::TcpSocket::tclass_v6`](https://docs.rs/tokio/1/tokio/net/struct.TcpSocket.html#method.tclass_v6):
        /// gets `IPV6_TCLASS`.
        ///
        /// # Differences from tokio
        ///
        /// None.
        pub fn tclass_v6(&self) -> io::Result<u32> {
            self.inner.tclass_v6()
        }

        /// Simulated/own version of
        /// [`tokio::net::TcpSocket::set_tclass_v6`](https://docs.rs/tokio/1/tokio/net/struct.TcpSocket.html#method.set_tclass_v6):
        /// sets `IPV6_TCLASS`.
        ///
        /// # Differences from tokio
        ///
        /// Stored only: the simulated network has no traffic classes.
        pub fn set_tclass_v6(&self, tclass: u32) -> io::Result<()> {
            self.inner.set_tclass_v6(tclass)
        }
    }

    cfg_tos! {
        /// Simulated/own version of
        /// [`tokio::net::TcpSocket::tos_v4`](https://docs.rs/tokio/1/tokio/net/struct.TcpSocket.html#method.tos_v4):
        /// gets `IP_TOS`.
        ///
        /// # Differences from tokio
        ///
        /// None.
        pub fn tos_v4(&self) -> io::Result<u32> {
            self.inner.tos_v4()
        }

        /// Simulated/own version of
        /// [`tokio::net::TcpSocket::set_tos_v4`](https://docs.rs/tokio/1/tokio/net/struct.TcpSocket.html#method.set_tos_v4):
        /// sets `IP_TOS`.
        ///
        /// # Differences from tokio
        ///
        /// Stored only: the simulated network has no types of service.
        pub fn set_tos_v4(&self, tos: u32) -> io::Result<()> {
            self.inner.set_tos_v4(tos)
        }
    }

    tos_aliases!();

    cfg_device! {
        /// Simulated/own version of
        /// [`tokio::net::TcpSocket::device`](https://docs.rs/tokio/1/tokio/net/struct.TcpSocket.html#method.device):
        /// gets `SO_BINDTODEVICE`.
        ///
        /// # Differences from tokio
        ///
        /// None.
        pub fn device(&self) -> io::Result<Option<Vec<u8>>> {
            self.inner.device()
        }

        /// Simulated/own version of
        /// [`tokio::net::TcpSocket::bind_device`](https://docs.rs/tokio/1/tokio/net/struct.TcpSocket.html#method.bind_device):
        /// sets `SO_BINDTODEVICE`.
        ///
        /// # Differences from tokio
        ///
        /// The kernel checks the interface name against the machine's real
        /// interfaces; the simulated network has none, so the binding has no
        /// effect on it.
        pub fn bind_device(&self, interface: Option<&[u8]>) -> io::Result<()> {
            self.inner.bind_device(interface)
        }
    }

    /// Simulated/own version of
    /// [`tokio::net::TcpSocket::local_addr`](https://docs.rs/tokio/1/tokio/net/struct.TcpSocket.html#method.local_addr):
    /// the address given to [`bind`](Self::bind), or the unspecified
    /// address with port 0 before it, as Linux reports an unbound socket.
    ///
    /// # Differences from tokio
    ///
    /// After a `bind` to port 0 the port stays 0 (see the type's docs).
    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        let bound = *self.bound();
        if let Some(addr) = bound {
            return Ok(addr);
        }
        self.inner.local_addr()?.as_socket().ok_or_else(|| {
            io::Error::new(
                io::ErrorKind::InvalidInput,
                "invalid address family (not IPv4 or IPv6)",
            )
        })
    }

    /// Simulated/own version of
    /// [`tokio::net::TcpSocket::take_error`](https://docs.rs/tokio/1/tokio/net/struct.TcpSocket.html#method.take_error):
    /// the value of `SO_ERROR` (always none: errors of the simulated
    /// network come back from `connect`).
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub fn take_error(&self) -> io::Result<Option<io::Error>> {
        self.inner.take_error()
    }

    /// Simulated/own version of
    /// [`tokio::net::TcpSocket::bind`](https://docs.rs/tokio/1/tokio/net/struct.TcpSocket.html#method.bind):
    /// binds the socket to `addr` on the current task's host.
    ///
    /// # Errors
    ///
    /// `InvalidInput` (`EINVAL`) if the socket is already bound or `addr`
    /// is IPv4 on an IPv6 socket; `EAFNOSUPPORT` for an IPv6 address on an
    /// IPv4 socket, as Linux; `AddrNotAvailable` if the address is not the
    /// host's; `Unsupported` if the real socket was bound or connected
    /// outside the simulation.
    ///
    /// # Differences from tokio
    ///
    /// No port is reserved until [`listen`](Self::listen); see the type's
    /// docs.
    pub fn bind(&self, addr: SocketAddr) -> io::Result<()> {
        self.check_unused("TcpSocket::bind")?;
        self.check_family(addr)?;
        let mut bound = self.bound();
        if bound.is_some() {
            return Err(io::Error::from_raw_os_error(libc::EINVAL));
        }
        check_host_addr(addr)?;
        *bound = Some(addr);
        Ok(())
    }

    /// Simulated/own version of
    /// [`tokio::net::TcpSocket::connect`](https://docs.rs/tokio/1/tokio/net/struct.TcpSocket.html#method.connect):
    /// connects to `addr` from the current task's host, consuming the
    /// socket.
    ///
    /// The stream keeps this socket's options (its raw fd is this socket's).
    ///
    /// # Errors
    ///
    /// As [`TcpStream::connect`]; also `EAFNOSUPPORT` for an IPv6 address
    /// on an IPv4 socket and `InvalidInput` (`EINVAL`) for an IPv4 address
    /// on an IPv6 socket, as Linux; `Unsupported` if the real socket was
    /// bound or connected outside the simulation.
    ///
    /// # Panics
    ///
    /// Outside a simulation.
    ///
    /// # Differences from tokio
    ///
    /// After [`bind`](Self::bind), the simulated network still picks the
    /// local address and port; see the type's docs.
    pub async fn connect(self, addr: SocketAddr) -> io::Result<TcpStream> {
        self.check_unused("TcpSocket::connect")?;
        self.check_family(addr)?;
        TcpStream::connect_socket(addr, self.inner).await
    }

    /// Simulated/own version of
    /// [`tokio::net::TcpSocket::listen`](https://docs.rs/tokio/1/tokio/net/struct.TcpSocket.html#method.listen):
    /// turns the socket into a listener on the current task's host, at the
    /// bound address (unbound: the wildcard address and an ephemeral port,
    /// as Linux does).
    ///
    /// # Errors
    ///
    /// As [`TcpListener::bind`]; `Unsupported` if the real socket was bound
    /// or connected outside the simulation.
    ///
    /// # Panics
    ///
    /// Outside a simulation.
    ///
    /// # Differences from tokio
    ///
    /// The backlog is the simulation's, not `backlog`.
    pub fn listen(self, backlog: u32) -> io::Result<TcpListener> {
        let _ = backlog;
        self.check_unused("TcpSocket::listen")?;
        // `local_addr` locks `bound` too: no guard may live across it.
        let addr = self.local_addr()?;
        TcpListener::listen_socket(addr, self.inner)
    }

    /// Simulated/own version of
    /// [`tokio::net::TcpSocket::from_std_stream`](https://docs.rs/tokio/1/tokio/net/struct.TcpSocket.html#method.from_std_stream):
    /// turns an unconnected std stream (typically a socket2 socket with
    /// options set) into a `TcpSocket`.
    ///
    /// Inside a simulation such a socket can be created (`socket(2)` is
    /// allowed) but not bound or connected; this makes it a simulated
    /// socket whose options are the ones set on it.
    ///
    /// # Examples
    ///
    /// ```
    /// # sim_rt::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// use sim_rt::net::{TcpListener, TcpSocket};
    /// use socket2::{Domain, Protocol, Socket, Type};
    ///
    /// let listener = TcpListener::bind("127.0.0.1:8080").await?;
    /// let socket = Socket::new(Domain::IPV4, Type::STREAM, Some(Protocol::TCP))?;
    /// socket.set_nonblocking(true)?;
    /// socket.set_keepalive(true)?;
    /// let socket = TcpSocket::from_std_stream(socket.into());
    /// let stream = socket.connect("127.0.0.1:8080".parse().unwrap()).await?;
    /// assert!(socket2::SockRef::from(&stream).keepalive()?);
    /// # drop(listener);
    /// # Ok::<(), std::io::Error>(())
    /// # }).unwrap();
    /// ```
    ///
    /// # Differences from tokio
    ///
    /// A socket that was bound or connected for real (outside the
    /// simulation) cannot join the simulated network: `bind`, `connect`
    /// and `listen` then fail with `Unsupported`.
    pub fn from_std_stream(std_stream: std::net::TcpStream) -> TcpSocket {
        TcpSocket::from_socket(Socket::from(std_stream))
    }

    fn bound(&self) -> std::sync::MutexGuard<'_, Option<SocketAddr>> {
        self.bound.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// `Unsupported` when the real socket is bound or connected: it was
    /// used outside the simulation before it was handed to this type.
    fn check_unused(&self, item: &str) -> io::Result<()> {
        let bound = self
            .inner
            .local_addr()
            .ok()
            .and_then(|a| a.as_socket())
            .is_some_and(|a| a.port() != 0);
        if bound || self.inner.peer_addr().is_ok() {
            return Err(io::Error::new(
                io::ErrorKind::Unsupported,
                format!(
                    "{item}: the socket was bound or connected outside the simulation, and a \
                     real OS socket cannot join the simulated network (sim-rt). Create it \
                     inside the simulation (TcpSocket::new_v4/new_v6, or an unconnected \
                     socket2 socket passed to TcpSocket::from_std_stream)"
                ),
            ));
        }
        Ok(())
    }

    /// Linux's answer to an address of the other family, for `bind` and
    /// `connect` alike: `EAFNOSUPPORT` for IPv6 on an IPv4 socket, `EINVAL`
    /// for IPv4 on an IPv6 socket (too short a `sockaddr` for it).
    fn check_family(&self, addr: SocketAddr) -> io::Result<()> {
        let domain = self.inner.domain()?;
        match addr {
            SocketAddr::V6(_) if domain == Domain::IPV4 => {
                Err(io::Error::from_raw_os_error(libc::EAFNOSUPPORT))
            }
            SocketAddr::V4(_) if domain == Domain::IPV6 => {
                Err(io::Error::from_raw_os_error(libc::EINVAL))
            }
            _ => Ok(()),
        }
    }
}

/// `AddrNotAvailable` unless `addr`'s IP is a wildcard, loopback, or one of
/// the current task's host's addresses (what the model's `tcp_listen`
/// checks). Outside a simulation nothing is checked (the socket cannot be
/// used there anyway).
fn check_host_addr(addr: SocketAddr) -> io::Result<()> {
    let ip = addr.ip();
    if ip.is_unspecified() || ip.is_loopback() {
        return Ok(());
    }
    let Some(world) = crate::runtime::context::try_current_quiet() else {
        return Ok(());
    };
    let host = world
        .current()
        .map_or(crate::runtime::world::MAIN_HOST, |c| c.host);
    let net_host = world.net_host(host);
    world.net_ref(|net| {
        if net.host_addrs(net_host).contains(&ip) {
            Ok(())
        } else {
            Err(io::Error::new(
                io::ErrorKind::AddrNotAvailable,
                format!(
                    "{ip} is not an address of host {:?}",
                    net.host_name(net_host)
                ),
            ))
        }
    })
}

impl fmt::Debug for TcpSocket {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.inner.fmt(f)
    }
}

impl AsRawFd for TcpSocket {
    /// The real socket, never connected (see the type's docs).
    fn as_raw_fd(&self) -> RawFd {
        self.inner.as_raw_fd()
    }
}

impl AsFd for TcpSocket {
    fn as_fd(&self) -> BorrowedFd<'_> {
        self.inner.as_fd()
    }
}

// `unsafe` because the trait is: the fd's ownership is the caller's promise.
#[allow(unsafe_code)]
impl FromRawFd for TcpSocket {
    /// Converts a raw socket fd (an unconnected TCP socket) into a
    /// `TcpSocket`.
    ///
    /// # Safety
    ///
    /// As for tokio: `fd` must be an open socket, owned by the caller, who
    /// gives up that ownership.
    unsafe fn from_raw_fd(fd: RawFd) -> TcpSocket {
        // SAFETY: the caller passes ownership of an open socket fd.
        TcpSocket::from_socket(unsafe { Socket::from_raw_fd(fd) })
    }
}

impl IntoRawFd for TcpSocket {
    /// The real socket's fd (the simulated `bind` address is forgotten).
    fn into_raw_fd(self) -> RawFd {
        self.inner.into_raw_fd()
    }
}
