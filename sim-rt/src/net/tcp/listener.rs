//! Simulated [`tokio::net::TcpListener`](https://docs.rs/tokio/1/tokio/net/struct.TcpListener.html): a listening socket of the task's
//! host in the network model.
//!
//! The model's kernel completes handshakes on its own and queues the new
//! connections; `accept` only takes the oldest one, waiting on the
//! listener's `READABLE` readiness while the queue is empty.

use std::fmt;
use std::future::poll_fn;
use std::io;
use std::net::SocketAddr;
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, RawFd};
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::task::{Context, Poll};

use sim_net::{Endpoint, ListenerId, Readiness};
use socket2::Socket;

use super::TcpStream;
use crate::net::addr::each_addr;
use crate::net::fd::{self, Kind, Placeholder};
use crate::net::io::NetIo;
use crate::net::ToSocketAddrs;
use crate::net::DEFAULT_TTL;

/// Simulated [`tokio::net::TcpListener`](https://docs.rs/tokio/1/tokio/net/struct.TcpListener.html): a TCP socket server, listening
/// for connections.
///
/// [`accept`](TcpListener::accept) takes the next connection. The socket is
/// closed when the value is dropped: connections that completed their
/// handshake but were never accepted are then reset, as a kernel does.
///
/// # Errors
///
/// Accepting can fail, and not every failure is fatal; a server loop should
/// decide per error whether to continue. In a simulation, `accept` fails
/// with `NotConnected` once the listener's host has been stopped or reset.
///
/// # Examples
///
/// ```
/// # sim_rt::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
/// use sim_rt::net::{TcpListener, TcpStream};
///
/// let listener = TcpListener::bind("0.0.0.0:8080").await?;
/// let client = TcpStream::connect("localhost:8080").await?;
/// let (_socket, peer) = listener.accept().await?;
/// assert_eq!(peer, client.local_addr()?);
/// # Ok::<(), std::io::Error>(())
/// # }).unwrap();
/// ```
///
/// # Differences from tokio
///
/// - The listener belongs to the host of the task that binds it, and only
///   that host's addresses (and loopback) can be bound.
/// - There is no OS socket: [`from_std`](Self::from_std) (and `TryFrom`)
///   and [`into_std`](Self::into_std) fail with `Unsupported`, and the raw
///   fd (`AsRawFd`, `AsFd`) is a real but never bound placeholder socket,
///   created on first use, whose options have no effect on the simulation
///   except `IP_TTL`, which [`ttl`](Self::ttl) reads back and accepted
///   streams start with.
pub struct TcpListener {
    io: NetIo,
    id: ListenerId,
    /// The stored `IP_TTL`; it has no effect on the model. Unused once `fd`
    /// exists: the placeholder holds it then.
    ttl: AtomicU32,
    fd: Placeholder,
    /// Handed over to a std listener (`into_std`): the drop leaves the
    /// listener open.
    handed_over: AtomicBool,
}

impl TcpListener {
    /// Simulated [`tokio::net::TcpListener::bind`](https://docs.rs/tokio/1/tokio/net/struct.TcpListener.html#method.bind): creates a listener
    /// bound to `addr`, ready to accept connections.
    ///
    /// Port 0 asks for an ephemeral port; [`local_addr`](Self::local_addr)
    /// tells which. If `addr` resolves to several addresses, each is tried
    /// in turn until one binds; if none does, the error of the last attempt
    /// is returned.
    ///
    /// # Examples
    ///
    /// ```
    /// # sim_rt::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// use sim_rt::net::TcpListener;
    ///
    /// let listener = TcpListener::bind("127.0.0.1:0").await?;
    /// assert_eq!(listener.local_addr()?, "127.0.0.1:49152".parse().unwrap());
    /// # Ok::<(), std::io::Error>(())
    /// # }).unwrap();
    /// ```
    ///
    /// # Errors
    ///
    /// `AddrInUse` if a listener of the host already holds the port on an
    /// overlapping address; `AddrNotAvailable` if the host does not own the
    /// address; name resolution errors as [`ToSocketAddrs`].
    ///
    /// # Panics
    ///
    /// Outside a simulation.
    ///
    /// # Differences from tokio
    ///
    /// None. As with tokio on Unix, which sets `SO_REUSEADDR`, a port held
    /// only by connections (not by a listener) can be bound again.
    pub async fn bind<A: ToSocketAddrs>(addr: A) -> io::Result<TcpListener> {
        each_addr(addr, |addr| async move { TcpListener::bind_addr(addr) }).await
    }

    fn bind_addr(addr: SocketAddr) -> io::Result<TcpListener> {
        TcpListener::listen_at(addr, Placeholder::lazy())
    }

    /// `TcpSocket::listen`: listens at `addr`, with `socket` (which holds
    /// the options set so far) as the placeholder fd.
    pub(crate) fn listen_socket(addr: SocketAddr, socket: Socket) -> io::Result<TcpListener> {
        TcpListener::listen_at(addr, Placeholder::with(socket))
    }

    fn listen_at(addr: SocketAddr, fd: Placeholder) -> io::Result<TcpListener> {
        let (world, io, host) = NetIo::current()?;
        let id = world.net_op(|net, _| net.tcp_listen(host, addr))?;
        Ok(TcpListener {
            io,
            id,
            ttl: AtomicU32::new(DEFAULT_TTL),
            fd,
            handed_over: AtomicBool::new(false),
        })
    }

    /// Simulated/own version of
    /// [`tokio::net::TcpListener::from_std`](https://docs.rs/tokio/1/tokio/net/struct.TcpListener.html#method.from_std):
    /// the listener a std listener made inside the simulation is (std's
    /// sockets there are simulated).
    ///
    /// # Errors
    ///
    /// `Unsupported` for a real std listener, made outside the simulation,
    /// or one with a `try_clone` still open; it is closed.
    ///
    /// # Panics
    ///
    /// Outside a simulation, as tokio's panics outside a runtime.
    ///
    /// # Differences from tokio
    ///
    /// None for a std listener made inside the simulation.
    #[track_caller]
    pub fn from_std(listener: std::net::TcpListener) -> io::Result<TcpListener> {
        let (io, obj, socket) = fd::adopt_std(listener.into(), "TcpListener::from_std")?;
        let crate::runtime::net::IpObj::Listener(id) = obj else {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "TcpListener::from_std: the socket is not listening",
            ));
        };
        Ok(TcpListener {
            io,
            id,
            ttl: AtomicU32::new(DEFAULT_TTL),
            fd: Placeholder::with(socket),
            handed_over: AtomicBool::new(false),
        })
    }

    /// Simulated/own version of
    /// [`tokio::net::TcpListener::into_std`](https://docs.rs/tokio/1/tokio/net/struct.TcpListener.html#method.into_std):
    /// a std listener on the same simulated listener, non-blocking.
    ///
    /// # Errors
    ///
    /// When the simulation is gone.
    ///
    /// # Differences from tokio
    ///
    /// The std listener's fd is a new one.
    pub fn into_std(self) -> io::Result<std::net::TcpListener> {
        let v6 = matches!(self.local_addr(), Ok(SocketAddr::V6(_)));
        let fd = fd::hand_over_std(&self.io, crate::runtime::net::IpObj::Listener(self.id), v6)?;
        self.handed_over.store(true, Ordering::Relaxed);
        Ok(fd.into())
    }

    /// The placeholder fd, created now (with the stored TTL) if needed.
    fn placeholder(&self) -> &Socket {
        self.fd
            .get_or_create(fd::domain_of(self.local_addr()), Kind::Tcp, |s| {
                let _ = s.set_ttl_v4(self.ttl.load(Ordering::Relaxed));
            })
    }

    fn endpoint(&self) -> Endpoint {
        Endpoint::Listener(self.id)
    }

    /// Simulated [`tokio::net::TcpListener::accept`](https://docs.rs/tokio/1/tokio/net/struct.TcpListener.html#method.accept): waits for a new
    /// connection and returns it with the peer's address.
    ///
    /// # Cancel safety
    ///
    /// This method is cancel safe: if it is dropped before completing (for
    /// example as the losing branch of [`select!`](crate::select)), no
    /// connection was taken from the queue.
    ///
    /// # Examples
    ///
    /// ```
    /// # sim_rt::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// use sim_rt::net::{TcpListener, TcpStream};
    ///
    /// let listener = TcpListener::bind("0.0.0.0:80").await?;
    /// sim_rt::spawn(TcpStream::connect("localhost:80"));
    /// let (socket, peer) = listener.accept().await?;
    /// assert_eq!(socket.peer_addr()?, peer);
    /// # Ok::<(), std::io::Error>(())
    /// # }).unwrap();
    /// ```
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub async fn accept(&self) -> io::Result<(TcpStream, SocketAddr)> {
        poll_fn(|cx| self.poll_accept(cx)).await
    }

    /// Simulated [`tokio::net::TcpListener::poll_accept`](https://docs.rs/tokio/1/tokio/net/struct.TcpListener.html#method.poll_accept): accepts a
    /// connection if one is queued, else registers the task to be woken
    /// when one arrives and returns `Poll::Pending`.
    ///
    /// # Differences from tokio
    ///
    /// Every task that polled and got `Pending` is woken, not only the one
    /// that polled last; a spurious wake is allowed by the contract either
    /// way.
    pub fn poll_accept(&self, cx: &mut Context<'_>) -> Poll<io::Result<(TcpStream, SocketAddr)>> {
        let id = self.id;
        self.io
            .poll_op(cx, self.endpoint(), Readiness::READABLE, |net, _| {
                net.tcp_accept(id)
            })
            .map_ok(|(conn, peer)| {
                // Like Linux, the new socket starts with the listener's
                // options.
                let ttl = self.ttl().unwrap_or(DEFAULT_TTL);
                (
                    TcpStream::new(self.io, conn, ttl, crate::net::io::Assumed::new(true, true)),
                    peer,
                )
            })
    }

    /// Simulated [`tokio::net::TcpListener::local_addr`](https://docs.rs/tokio/1/tokio/net/struct.TcpListener.html#method.local_addr): the address the
    /// listener is bound to, with the port actually bound.
    ///
    /// # Errors
    ///
    /// `NotConnected` once the listener's host has been stopped or reset.
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        let id = self.id;
        self.io
            .query(self.endpoint(), |net| net.tcp_listener_addr(id))
    }

    /// Simulated [`tokio::net::TcpListener::ttl`](https://docs.rs/tokio/1/tokio/net/struct.TcpListener.html#method.ttl): the value of the `IP_TTL`
    /// option (64, Linux's default, until [`set_ttl`](Self::set_ttl)).
    ///
    /// # Differences from tokio
    ///
    /// The value is only stored; see [`set_ttl`](Self::set_ttl).
    pub fn ttl(&self) -> io::Result<u32> {
        crate::net::options::ttl(&self.fd, &self.ttl)
    }

    /// Simulated [`tokio::net::TcpListener::set_ttl`](https://docs.rs/tokio/1/tokio/net/struct.TcpListener.html#method.set_ttl): sets the `IP_TTL`
    /// option, the time-to-live of every packet sent from this socket.
    /// Streams accepted afterwards start with this value.
    ///
    /// # Errors
    ///
    /// `InvalidInput` for 0 or a value above 255, as Linux rejects them
    /// (`u32::MAX` restores the default, as -1 does there).
    ///
    /// # Differences from tokio
    ///
    /// The value is stored and reported by [`ttl`](Self::ttl), but the
    /// simulated network has no hop limit, so it has no other effect.
    pub fn set_ttl(&self, ttl: u32) -> io::Result<()> {
        crate::net::options::set_ttl(&self.fd, &self.ttl, ttl)
    }
}

placeholder_fd_impls!(TcpListener, std::net::TcpListener);

impl fmt::Debug for TcpListener {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TcpListener")
            .field("id", &self.id)
            .field("host", &self.io.host())
            .finish_non_exhaustive()
    }
}

impl Drop for TcpListener {
    /// Closes the listener; connections still queued are reset.
    fn drop(&mut self) {
        let id = self.id;
        let kept = *self.handed_over.get_mut();
        self.io.close(self.endpoint(), |net, now| {
            if !kept {
                net.tcp_close_listener(id, now)
            }
        });
    }
}
