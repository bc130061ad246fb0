//! Simulated [`tokio::net::UdpSocket`](https://docs.rs/tokio/1/tokio/net/struct.UdpSocket.html): a handle on one datagram socket of
//! the network model.
//!
//! Every operation is the model's non-blocking call (`Net::udp_*`) run
//! through [`NetIo`]: a receive that finds the queue empty registers the
//! task on the socket's readability and returns `Pending`; the model's
//! `Ready` event when a datagram arrives wakes it to retry. Sending never
//! waits: the model has no send buffer to fill, so a send creates its
//! packet (or drops it, see below) at once and returns.
//!
//! What happens to a datagram on the way is the model's and the
//! scheduler's business (`sim_net`'s `datagram.rs`): each one takes its own
//! time within the link's latency window, so datagrams reorder; a lossy or
//! duplicating link asks the scheduler a data choice per datagram; a
//! partition or a stopped host loses it; a datagram to an address no host
//! owns vanishes; one to a port nobody holds is answered with ICMP port
//! unreachable, which a connected sender reports as `ConnectionRefused`
//! (Linux's behaviour). A connected socket only receives from its peer,
//! and a datagram longer than the receive buffer is truncated, all done
//! by the model.
//!
//! # Invariants
//!
//! - `id` names a socket the model created for this handle; the handle is
//!   its only owner and closes it on drop. The model forgets it earlier if
//!   its host stops, after which every operation reports `NotConnected`
//!   (`NetIo` checks this before each call).
//! - The handle holds ids and plain option values only, so it is `Send` and
//!   `Sync` like tokio's; all state lives in the world.

use std::future::poll_fn;
use std::io;
use std::net::{Ipv4Addr, Ipv6Addr, SocketAddr};
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, RawFd};
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::task::{ready, Context, Poll};

use bytes::BufMut;
use sim_net::{Endpoint, Net, Readiness, SocketId};
use socket2::Socket;

use super::addr::{each_addr, resolve, ToSocketAddrs};
use super::fd::{self, Kind, Placeholder};
use super::io::NetIo;
use super::DEFAULT_TTL;
use crate::io::{Interest, ReadBuf, Ready};

/// Simulated [`tokio::net::UdpSocket`](https://docs.rs/tokio/1/tokio/net/struct.UdpSocket.html): a UDP socket on the host of the
/// task that bound it.
///
/// UDP has no connections: a bound socket sends to any address with
/// [`send_to`](Self::send_to) and receives from anyone with
/// [`recv_from`](Self::recv_from). [`connect`](Self::connect) fixes a
/// default peer for [`send`](Self::send) and makes the socket drop
/// datagrams from every other source. Datagrams may be lost, duplicated
/// or reordered, depending on the links between hosts (see
/// [`sim::set_link`](crate::sim::set_link)).
///
/// The socket can be shared between tasks (for example in an `Arc`): every
/// method takes `&self`.
///
/// # Examples
///
/// A name server on host "dns" and a client on the main host:
///
/// ```
/// # sim_rt::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
/// use sim_rt::net::UdpSocket;
///
/// sim_rt::sim::host("dns").start(|| async {
///     let socket = UdpSocket::bind("0.0.0.0:53").await?;
///     let mut buf = [0; 512];
///     loop {
///         let (n, from) = socket.recv_from(&mut buf).await?;
///         socket.send_to(&buf[..n], from).await?;
///     }
///     #[allow(unreachable_code)]
///     Ok::<(), std::io::Error>(())
/// });
///
/// let socket = UdpSocket::bind("0.0.0.0:0").await.unwrap();
/// socket.send_to(b"query", "dns:53").await.unwrap();
/// let mut buf = [0; 512];
/// let (n, from) = socket.recv_from(&mut buf).await.unwrap();
/// assert_eq!(&buf[..n], b"query");
/// assert_eq!(from, "10.0.0.1:53".parse().unwrap());
/// # });
/// ```
///
/// # Differences from tokio
///
/// - There is no OS socket: [`from_std`](Self::from_std) (and `TryFrom`)
///   and [`into_std`](Self::into_std) fail with `Unsupported`, and the raw
///   fd (`AsRawFd`, `AsFd`) is a real but never bound placeholder socket,
///   created on first use; options set on it have no effect on the
///   simulation (`ttl` and `broadcast` read them back).
/// - `device`/`bind_device`, `tos`/`tclass` and the multicast options
///   live on the placeholder fd (kernel semantics) and change nothing in
///   the simulation; the model has no multicast, so
///   `join_multicast_*`/`leave_multicast_*` fail with `Unsupported`.
/// - [`set_ttl`](Self::set_ttl) and [`set_broadcast`](Self::set_broadcast)
///   are stored and read back but change nothing: the model has no hop
///   count and no broadcast addresses.
/// - ICMP errors are Linux's for port unreachable only: a datagram to a
///   port nobody holds on a simulated host comes back as ICMP port
///   unreachable (one latency each way), and a *connected* socket then
///   reports `ConnectionRefused` once, on its next receive, peek or send
///   (or [`take_error`](Self::take_error)), as on Linux; an unconnected
///   one ignores it. No ICMP is rate-limited, and a datagram to an
///   address no host owns vanishes (no "host unreachable").
/// - [`send`](Self::send) on a socket that is not connected fails with
///   `NotConnected` (Linux reports `EDESTADDRREQ`, which std has no
///   `ErrorKind` for).
/// - Readiness is exact: [`readable`](Self::readable) completes only when a
///   datagram is queued, never spuriously. Every task that polls a
///   `poll_*` method is woken, not only the most recent one.
/// - Once the socket's host is stopped or reset, every operation fails
///   with `NotConnected`: its sockets are gone, as after a reboot.
#[derive(Debug)]
pub struct UdpSocket {
    io: NetIo,
    id: SocketId,
    /// `IP_TTL`, stored only. Always in `1..=255`.
    ttl: AtomicU32,
    /// `SO_BROADCAST`, stored only.
    broadcast: AtomicBool,
    /// The raw fd. Once it exists, it holds the two options above.
    fd: Placeholder,
    /// Handed over to a std socket (`into_std`): the drop leaves the
    /// socket open.
    handed_over: AtomicBool,
}

impl UdpSocket {
    /// Simulated [`tokio::net::UdpSocket::bind`](https://docs.rs/tokio/1/tokio/net/struct.UdpSocket.html#method.bind): creates a socket on the
    /// current task's host, bound to `addr`.
    ///
    /// Port 0 asks for an ephemeral port; [`local_addr`](Self::local_addr)
    /// tells which. When `addr` resolves to several addresses, each is
    /// tried in turn and the first that binds is used.
    ///
    /// # Errors
    ///
    /// `AddrInUse` if a socket of the host holds the port on an overlapping
    /// address; `AddrNotAvailable` if the host does not own the address; a
    /// name that does not resolve fails like a DNS miss. With several
    /// addresses, the last one's error.
    ///
    /// # Panics
    ///
    /// Outside a simulation.
    pub async fn bind<A: ToSocketAddrs>(addr: A) -> io::Result<UdpSocket> {
        // The world is an `Rc`: keep it out of the future so the future is
        // `Send`, as tokio's is.
        let (io, host) = {
            let (_world, io, host) = NetIo::current()?;
            (io, host)
        };
        each_addr(addr, |addr| async move {
            let id = io.world()?.net_op(|net, _| net.udp_bind(host, addr))?;
            Ok(UdpSocket {
                io,
                id,
                ttl: AtomicU32::new(DEFAULT_TTL),
                broadcast: AtomicBool::new(false),
                fd: Placeholder::lazy(),
                handed_over: AtomicBool::new(false),
            })
        })
        .await
    }

    /// Simulated [`tokio::net::UdpSocket::local_addr`](https://docs.rs/tokio/1/tokio/net/struct.UdpSocket.html#method.local_addr): the address the
    /// socket is bound to, with the port actually assigned.
    ///
    /// # Errors
    ///
    /// `NotConnected` once the socket's host was stopped.
    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        let id = self.id;
        self.io.query(self.endpoint(), |net| net.udp_local_addr(id))
    }

    /// Simulated [`tokio::net::UdpSocket::peer_addr`](https://docs.rs/tokio/1/tokio/net/struct.UdpSocket.html#method.peer_addr): the address the
    /// socket is connected to.
    ///
    /// # Errors
    ///
    /// `NotConnected` if it is not connected (or its host was stopped).
    pub fn peer_addr(&self) -> io::Result<SocketAddr> {
        let id = self.id;
        self.io.query(self.endpoint(), |net| net.udp_peer_addr(id))
    }

    /// Simulated [`tokio::net::UdpSocket::connect`](https://docs.rs/tokio/1/tokio/net/struct.UdpSocket.html#method.connect): sets the destination
    /// of [`send`](Self::send) and, from now on, receives only datagrams
    /// sent from `addr`.
    ///
    /// No packet is sent: connecting only sets the socket's peer, so it
    /// succeeds whether or not anyone listens there. When `addr` resolves
    /// to several addresses, each is tried in turn. Datagrams from other
    /// sources queued before the call stay queued, as on Linux.
    ///
    /// # Errors
    ///
    /// `InvalidInput` for an address the socket cannot reach (an IPv6
    /// address from an IPv4 socket, an off-host address from a socket
    /// bound to loopback); a name that does not resolve fails like a DNS
    /// miss. With several addresses, the last one's error.
    ///
    /// # Panics
    ///
    /// Outside a simulation.
    pub async fn connect<A: ToSocketAddrs>(&self, addr: A) -> io::Result<()> {
        let (io, id) = (self.io, self.id);
        each_addr(addr, |peer| async move {
            io.try_op(Endpoint::Socket(id), |net, _| net.udp_connect(id, peer))
        })
        .await
    }

    /// Simulated [`tokio::net::UdpSocket::writable`](https://docs.rs/tokio/1/tokio/net/struct.UdpSocket.html#method.writable): waits until the
    /// socket can send, which in the model is always.
    ///
    /// # Cancel safety
    ///
    /// Cancel safe.
    pub async fn writable(&self) -> io::Result<()> {
        poll_fn(|cx| self.poll_send_ready(cx)).await
    }

    /// Simulated [`tokio::net::UdpSocket::poll_send_ready`](https://docs.rs/tokio/1/tokio/net/struct.UdpSocket.html#method.poll_send_ready): `Ready` when
    /// the socket can send, which in the model is always.
    pub fn poll_send_ready(&self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.io.poll_ready(cx, self.endpoint(), Readiness::WRITABLE)
    }

    /// Simulated [`tokio::net::UdpSocket::send`](https://docs.rs/tokio/1/tokio/net/struct.UdpSocket.html#method.send): sends `buf` as one
    /// datagram to the connected peer; returns its length.
    ///
    /// Sending never waits in the model: the datagram leaves at once (or is
    /// dropped, see the type's docs) and the call completes on its first
    /// poll.
    ///
    /// # Errors
    ///
    /// `NotConnected` without [`connect`](Self::connect); `InvalidInput`
    /// for a payload over 65,507 bytes.
    ///
    /// # Cancel safety
    ///
    /// Cancel safe: if it is cancelled, nothing was sent.
    pub async fn send(&self, buf: &[u8]) -> io::Result<usize> {
        poll_fn(|cx| self.poll_send(cx, buf)).await
    }

    /// Simulated [`tokio::net::UdpSocket::poll_send`](https://docs.rs/tokio/1/tokio/net/struct.UdpSocket.html#method.poll_send): sends `buf` to the
    /// connected peer; never `Pending` in the model.
    ///
    /// # Errors
    ///
    /// As [`send`](Self::send).
    pub fn poll_send(&self, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        let id = self.id;
        self.io
            .poll_op(cx, self.endpoint(), Readiness::WRITABLE, |net, now| {
                net.udp_send(id, buf, now)
            })
    }

    /// Simulated [`tokio::net::UdpSocket::try_send`](https://docs.rs/tokio/1/tokio/net/struct.UdpSocket.html#method.try_send): sends `buf` to the
    /// connected peer without waiting (the model never returns
    /// `WouldBlock` for a send).
    ///
    /// # Errors
    ///
    /// As [`send`](Self::send).
    pub fn try_send(&self, buf: &[u8]) -> io::Result<usize> {
        let id = self.id;
        self.io
            .try_op(self.endpoint(), |net, now| net.udp_send(id, buf, now))
    }

    /// Simulated/own version of
    /// [`tokio::net::UdpSocket::ready`](https://docs.rs/tokio/1/tokio/net/struct.UdpSocket.html#method.ready):
    /// waits until the socket is ready for any of the kinds in `interest`,
    /// and returns the readiness it has of those kinds.
    ///
    /// The socket is always writable (sending never waits in the model)
    /// and readable while a datagram is queued. It is never read closed;
    /// while an ICMP error is pending (see the type's docs) it is ready
    /// for `ERROR` and write closed, as Linux's `poll` reports through
    /// mio.
    ///
    /// # Cancel safety
    ///
    /// Cancel safe: it consumes nothing.
    ///
    /// # Examples
    ///
    /// ```
    /// # sim_rt::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// use sim_rt::io::{Interest, Ready};
    /// use sim_rt::net::UdpSocket;
    ///
    /// let a = UdpSocket::bind("0.0.0.0:7000").await?;
    /// let b = UdpSocket::bind("0.0.0.0:7001").await?;
    /// let both = Interest::READABLE | Interest::WRITABLE;
    /// assert_eq!(a.ready(both).await?, Ready::WRITABLE);
    ///
    /// b.send_to(b"ping", "localhost:7000").await?;
    /// assert_eq!(a.ready(Interest::READABLE).await?, Ready::READABLE);
    /// # Ok::<(), std::io::Error>(())
    /// # }).unwrap();
    /// ```
    ///
    /// # Errors
    ///
    /// Only when the simulation is gone. A socket whose host was stopped is
    /// ready for everything, and the next operation reports
    /// `NotConnected`.
    ///
    /// # Differences from tokio
    ///
    /// The readiness is the simulated socket's state when the method looks,
    /// not an event cached since the last `WouldBlock`: it never reports a
    /// kind the socket does not have (no false positives, no empty set).
    pub async fn ready(&self, interest: Interest) -> io::Result<Ready> {
        poll_fn(|cx| self.io.poll_ready_set(cx, self.endpoint(), interest)).await
    }

    /// Simulated/own version of
    /// [`tokio::net::UdpSocket::try_io`](https://docs.rs/tokio/1/tokio/net/struct.UdpSocket.html#method.try_io):
    /// runs the I/O operation `f` once if the socket is ready for
    /// `interest` (see [`ready`](Self::ready)), without waiting.
    ///
    /// If the socket is not ready, `f` is not called and the result is a
    /// `WouldBlock` error. Otherwise `f`'s result is returned, except that
    /// a `WouldBlock` from `f` is returned as a plain `WouldBlock` error, as
    /// tokio does.
    ///
    /// # Examples
    ///
    /// ```
    /// # sim_rt::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// use sim_rt::io::Interest;
    /// use sim_rt::net::UdpSocket;
    ///
    /// let a = UdpSocket::bind("0.0.0.0:7000").await?;
    /// let b = UdpSocket::bind("0.0.0.0:7001").await?;
    /// b.send_to(b"ping", "localhost:7000").await?;
    /// a.readable().await?;
    ///
    /// let mut buf = [0; 8];
    /// let (n, _) = a.try_io(Interest::READABLE, || a.try_recv_from(&mut buf))?;
    /// assert_eq!(&buf[..n], b"ping");
    /// # Ok::<(), std::io::Error>(())
    /// # }).unwrap();
    /// ```
    ///
    /// # Errors
    ///
    /// `WouldBlock` as above; `f`'s error.
    ///
    /// # Differences from tokio
    ///
    /// - In tokio `f` performs a raw system call on the socket's fd. Here
    ///   that fd is a placeholder that never reaches the simulated network:
    ///   `f` must use the socket's own non-blocking methods
    ///   ([`try_recv`](Self::try_recv), [`try_recv_from`](Self::try_recv_from),
    ///   [`try_send_to`](Self::try_send_to), [`try_peek_from`](Self::try_peek_from)...).
    /// - tokio clears its cached readiness when `f` returns `WouldBlock`, so
    ///   that the next [`ready`](Self::ready) waits for a new event. Here
    ///   readiness is the socket's state, read afresh each time: once the
    ///   queue is empty the socket is no longer readable, and the next
    ///   `ready` waits for a datagram; an `f` that returns `WouldBlock`
    ///   without having tried leaves the socket ready.
    pub fn try_io<R>(
        &self,
        interest: Interest,
        f: impl FnOnce() -> io::Result<R>,
    ) -> io::Result<R> {
        self.io.try_io(self.endpoint(), interest, f)
    }

    /// Simulated/own version of
    /// [`tokio::net::UdpSocket::async_io`](https://docs.rs/tokio/1/tokio/net/struct.UdpSocket.html#method.async_io):
    /// waits until the socket is ready for `interest`, runs the I/O
    /// operation `f`, and repeats while `f` returns `WouldBlock`.
    ///
    /// Returns `f`'s first result that is not a `WouldBlock` error. Each
    /// call of `f` takes a unit of the task's cooperative budget, as in
    /// tokio.
    ///
    /// # Cancel safety
    ///
    /// Cancel safe as far as `f` is.
    ///
    /// # Errors
    ///
    /// `f`'s first error other than `WouldBlock`.
    ///
    /// # Differences from tokio
    ///
    /// As for [`try_io`](Self::try_io): `f` must use the socket's own
    /// non-blocking methods, and after a `WouldBlock` the method waits for
    /// the socket's state to become ready again rather than for a new
    /// event.
    pub async fn async_io<R>(
        &self,
        interest: Interest,
        f: impl FnMut() -> io::Result<R>,
    ) -> io::Result<R> {
        self.io.async_io(self.endpoint(), interest, f).await
    }

    /// Simulated [`tokio::net::UdpSocket::readable`](https://docs.rs/tokio/1/tokio/net/struct.UdpSocket.html#method.readable): waits until a
    /// datagram is queued, usually before [`try_recv`](Self::try_recv).
    ///
    /// # Cancel safety
    ///
    /// Cancel safe.
    pub async fn readable(&self) -> io::Result<()> {
        poll_fn(|cx| self.poll_recv_ready(cx)).await
    }

    /// Simulated [`tokio::net::UdpSocket::poll_recv_ready`](https://docs.rs/tokio/1/tokio/net/struct.UdpSocket.html#method.poll_recv_ready): `Ready` when a
    /// datagram is queued; otherwise registers the task and returns
    /// `Pending`.
    pub fn poll_recv_ready(&self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.io.poll_ready(cx, self.endpoint(), Readiness::READABLE)
    }

    /// Simulated [`tokio::net::UdpSocket::recv`](https://docs.rs/tokio/1/tokio/net/struct.UdpSocket.html#method.recv): waits for a datagram and
    /// copies it into `buf`; returns the number of bytes copied.
    ///
    /// A datagram longer than `buf` is truncated and the rest of it is
    /// lost. On a connected socket only the peer's datagrams arrive; on an
    /// unconnected one this receives from anyone, as `recv(2)` does on
    /// Linux.
    ///
    /// # Cancel safety
    ///
    /// Cancel safe: if it is cancelled, no datagram was taken.
    pub async fn recv(&self, buf: &mut [u8]) -> io::Result<usize> {
        poll_fn(|cx| self.poll_recv_into(cx, buf)).await
    }

    /// Simulated [`tokio::net::UdpSocket::poll_recv`](https://docs.rs/tokio/1/tokio/net/struct.UdpSocket.html#method.poll_recv): receives a datagram
    /// into the unfilled part of `buf`, truncating it to fit.
    pub fn poll_recv(&self, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        let n = ready!(self.poll_recv_into(cx, buf.initialize_unfilled()))?;
        buf.advance(n);
        Poll::Ready(Ok(()))
    }

    /// Simulated [`tokio::net::UdpSocket::try_recv`](https://docs.rs/tokio/1/tokio/net/struct.UdpSocket.html#method.try_recv): takes a queued
    /// datagram into `buf` without waiting.
    ///
    /// # Errors
    ///
    /// `WouldBlock` when none is queued.
    pub fn try_recv(&self, buf: &mut [u8]) -> io::Result<usize> {
        self.try_recv_from(buf).map(|(n, _)| n)
    }

    /// Simulated [`tokio::net::UdpSocket::send_to`](https://docs.rs/tokio/1/tokio/net/struct.UdpSocket.html#method.send_to): sends `buf` as one
    /// datagram to `addr`; returns its length.
    ///
    /// When `addr` resolves to several addresses, only the first is used.
    /// A datagram to an address or port nobody holds is sent all the same
    /// and vanishes (a connected socket may later learn of the port; see
    /// the type's docs).
    ///
    /// # Errors
    ///
    /// `InvalidInput` for a payload over 65,507 bytes, port 0, a name that
    /// resolves to nothing, or an address the socket cannot reach (an IPv6
    /// address from an IPv4 socket, an off-host address from a socket bound
    /// to loopback); a name that does not resolve fails like a DNS miss.
    ///
    /// # Cancel safety
    ///
    /// Cancel safe: if it is cancelled, nothing was sent.
    ///
    /// # Panics
    ///
    /// Outside a simulation.
    pub async fn send_to<A: ToSocketAddrs>(&self, buf: &[u8], addr: A) -> io::Result<usize> {
        let Some(&target) = resolve(&addr)?.first() else {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "no addresses to send data to",
            ));
        };
        poll_fn(|cx| self.poll_send_to(cx, buf, target)).await
    }

    /// Simulated [`tokio::net::UdpSocket::poll_send_to`](https://docs.rs/tokio/1/tokio/net/struct.UdpSocket.html#method.poll_send_to): sends `buf` to
    /// `target`; never `Pending` in the model.
    ///
    /// # Errors
    ///
    /// As [`send_to`](Self::send_to).
    pub fn poll_send_to(
        &self,
        cx: &mut Context<'_>,
        buf: &[u8],
        target: SocketAddr,
    ) -> Poll<io::Result<usize>> {
        let id = self.id;
        self.io
            .poll_op(cx, self.endpoint(), Readiness::WRITABLE, |net, now| {
                net.udp_send_to(id, target, buf, now)
            })
    }

    /// Simulated [`tokio::net::UdpSocket::try_send_to`](https://docs.rs/tokio/1/tokio/net/struct.UdpSocket.html#method.try_send_to): sends `buf` to
    /// `target` without waiting (the model never returns `WouldBlock` for a
    /// send).
    ///
    /// # Errors
    ///
    /// As [`send_to`](Self::send_to).
    pub fn try_send_to(&self, buf: &[u8], target: SocketAddr) -> io::Result<usize> {
        let id = self.id;
        self.io.try_op(self.endpoint(), |net, now| {
            net.udp_send_to(id, target, buf, now)
        })
    }

    /// Simulated [`tokio::net::UdpSocket::recv_from`](https://docs.rs/tokio/1/tokio/net/struct.UdpSocket.html#method.recv_from): waits for a datagram,
    /// copies it into `buf` (truncating it to fit) and returns the number
    /// of bytes copied and the sender's address.
    ///
    /// # Cancel safety
    ///
    /// Cancel safe: if it is cancelled, no datagram was taken.
    pub async fn recv_from(&self, buf: &mut [u8]) -> io::Result<(usize, SocketAddr)> {
        poll_fn(|cx| self.poll_take_into(cx, buf, Take::Recv)).await
    }

    /// Simulated [`tokio::net::UdpSocket::poll_recv_from`](https://docs.rs/tokio/1/tokio/net/struct.UdpSocket.html#method.poll_recv_from): receives a
    /// datagram into the unfilled part of `buf`, truncating it to fit;
    /// returns the sender's address.
    pub fn poll_recv_from(
        &self,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<SocketAddr>> {
        self.poll_take_from(cx, buf, Take::Recv)
    }

    /// Simulated [`tokio::net::UdpSocket::try_recv_from`](https://docs.rs/tokio/1/tokio/net/struct.UdpSocket.html#method.try_recv_from): takes a queued
    /// datagram into `buf` without waiting; returns its copied length and
    /// sender.
    ///
    /// # Errors
    ///
    /// `WouldBlock` when none is queued.
    pub fn try_recv_from(&self, buf: &mut [u8]) -> io::Result<(usize, SocketAddr)> {
        self.try_take_from(buf, Take::Recv)
    }

    /// Simulated [`tokio::net::UdpSocket::peek`](https://docs.rs/tokio/1/tokio/net/struct.UdpSocket.html#method.peek): like
    /// [`recv`](Self::recv), but the datagram stays queued.
    ///
    /// # Cancel safety
    ///
    /// Cancel safe.
    pub async fn peek(&self, buf: &mut [u8]) -> io::Result<usize> {
        poll_fn(|cx| self.poll_take_into(cx, buf, Take::Peek).map_ok(|(n, _)| n)).await
    }

    /// Simulated [`tokio::net::UdpSocket::poll_peek`](https://docs.rs/tokio/1/tokio/net/struct.UdpSocket.html#method.poll_peek): like
    /// [`poll_recv`](Self::poll_recv), but the datagram stays queued.
    pub fn poll_peek(&self, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        self.poll_peek_from(cx, buf).map_ok(drop)
    }

    /// Simulated [`tokio::net::UdpSocket::try_peek`](https://docs.rs/tokio/1/tokio/net/struct.UdpSocket.html#method.try_peek): like
    /// [`try_recv`](Self::try_recv), but the datagram stays queued.
    ///
    /// # Errors
    ///
    /// `WouldBlock` when none is queued.
    pub fn try_peek(&self, buf: &mut [u8]) -> io::Result<usize> {
        self.try_peek_from(buf).map(|(n, _)| n)
    }

    /// Simulated [`tokio::net::UdpSocket::peek_from`](https://docs.rs/tokio/1/tokio/net/struct.UdpSocket.html#method.peek_from): like
    /// [`recv_from`](Self::recv_from), but the datagram stays queued: the
    /// next receive returns it again.
    ///
    /// # Cancel safety
    ///
    /// Cancel safe.
    pub async fn peek_from(&self, buf: &mut [u8]) -> io::Result<(usize, SocketAddr)> {
        poll_fn(|cx| self.poll_take_into(cx, buf, Take::Peek)).await
    }

    /// Simulated [`tokio::net::UdpSocket::poll_peek_from`](https://docs.rs/tokio/1/tokio/net/struct.UdpSocket.html#method.poll_peek_from): like
    /// [`poll_recv_from`](Self::poll_recv_from), but the datagram stays
    /// queued.
    pub fn poll_peek_from(
        &self,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<SocketAddr>> {
        self.poll_take_from(cx, buf, Take::Peek)
    }

    /// Simulated [`tokio::net::UdpSocket::try_peek_from`](https://docs.rs/tokio/1/tokio/net/struct.UdpSocket.html#method.try_peek_from): like
    /// [`try_recv_from`](Self::try_recv_from), but the datagram stays
    /// queued.
    ///
    /// # Errors
    ///
    /// `WouldBlock` when none is queued.
    pub fn try_peek_from(&self, buf: &mut [u8]) -> io::Result<(usize, SocketAddr)> {
        self.try_take_from(buf, Take::Peek)
    }

    /// Simulated [`tokio::net::UdpSocket::peek_sender`](https://docs.rs/tokio/1/tokio/net/struct.UdpSocket.html#method.peek_sender): waits for a
    /// datagram and returns its sender, leaving it queued.
    ///
    /// # Cancel safety
    ///
    /// Cancel safe.
    pub async fn peek_sender(&self) -> io::Result<SocketAddr> {
        poll_fn(|cx| self.poll_peek_sender(cx)).await
    }

    /// Simulated [`tokio::net::UdpSocket::poll_peek_sender`](https://docs.rs/tokio/1/tokio/net/struct.UdpSocket.html#method.poll_peek_sender): the sender of
    /// the oldest queued datagram, leaving it queued.
    pub fn poll_peek_sender(&self, cx: &mut Context<'_>) -> Poll<io::Result<SocketAddr>> {
        self.poll_take_into(cx, &mut [], Take::Peek)
            .map_ok(|(_, from)| from)
    }

    /// Simulated [`tokio::net::UdpSocket::try_peek_sender`](https://docs.rs/tokio/1/tokio/net/struct.UdpSocket.html#method.try_peek_sender): the sender of
    /// the oldest queued datagram, without waiting.
    ///
    /// # Errors
    ///
    /// `WouldBlock` when none is queued.
    pub fn try_peek_sender(&self) -> io::Result<SocketAddr> {
        self.try_peek_from(&mut []).map(|(_, from)| from)
    }

    /// Simulated [`tokio::net::UdpSocket::broadcast`](https://docs.rs/tokio/1/tokio/net/struct.UdpSocket.html#method.broadcast): the stored
    /// `SO_BROADCAST` value (initially `false`).
    ///
    /// # Differences from tokio
    ///
    /// The option is stored only: the model has no broadcast addresses.
    pub fn broadcast(&self) -> io::Result<bool> {
        match self.fd.get() {
            Some(fd) => fd.broadcast(),
            None => Ok(self.broadcast.load(Ordering::Relaxed)),
        }
    }

    /// Simulated [`tokio::net::UdpSocket::set_broadcast`](https://docs.rs/tokio/1/tokio/net/struct.UdpSocket.html#method.set_broadcast): stores
    /// `SO_BROADCAST`.
    ///
    /// # Differences from tokio
    ///
    /// Broadcast is not simulated: a datagram to a broadcast address goes
    /// nowhere whether or not this is set (a real kernel refuses it with
    /// `PermissionDenied` unless set, and broadcasts it if set).
    pub fn set_broadcast(&self, on: bool) -> io::Result<()> {
        match self.fd.get() {
            Some(fd) => fd.set_broadcast(on),
            None => {
                self.broadcast.store(on, Ordering::Relaxed);
                Ok(())
            }
        }
    }

    /// Simulated [`tokio::net::UdpSocket::ttl`](https://docs.rs/tokio/1/tokio/net/struct.UdpSocket.html#method.ttl): the stored `IP_TTL` value
    /// (initially 64, Linux's default).
    pub fn ttl(&self) -> io::Result<u32> {
        crate::net::options::ttl(&self.fd, &self.ttl)
    }

    /// Simulated [`tokio::net::UdpSocket::set_ttl`](https://docs.rs/tokio/1/tokio/net/struct.UdpSocket.html#method.set_ttl): stores `IP_TTL`.
    ///
    /// # Errors
    ///
    /// `InvalidInput` outside `1..=255`, as Linux answers `EINVAL`; like
    /// Linux, `u32::MAX` (which the kernel sees as -1) restores the default.
    ///
    /// # Differences from tokio
    ///
    /// The value changes nothing: the model has no hop count.
    pub fn set_ttl(&self, ttl: u32) -> io::Result<()> {
        crate::net::options::set_ttl(&self.fd, &self.ttl, ttl)
    }

    /// Simulated/own version of
    /// [`tokio::net::UdpSocket::from_std`](https://docs.rs/tokio/1/tokio/net/struct.UdpSocket.html#method.from_std):
    /// the socket a std socket made inside the simulation is (std's
    /// sockets there are simulated).
    ///
    /// # Errors
    ///
    /// `Unsupported` for a real std socket, made outside the simulation,
    /// one not bound yet, or one with a `try_clone` still open; it is
    /// closed.
    ///
    /// # Panics
    ///
    /// Outside a simulation, as tokio's panics outside a runtime.
    ///
    /// # Differences from tokio
    ///
    /// None for a bound std socket made inside the simulation.
    #[track_caller]
    pub fn from_std(socket: std::net::UdpSocket) -> io::Result<UdpSocket> {
        let (io, obj, placeholder) = fd::adopt_std(socket.into(), "UdpSocket::from_std")?;
        let crate::runtime::net::IpObj::Udp(id) = obj else {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "UdpSocket::from_std: not a datagram socket",
            ));
        };
        Ok(UdpSocket {
            io,
            id,
            ttl: AtomicU32::new(DEFAULT_TTL),
            broadcast: AtomicBool::new(false),
            fd: Placeholder::with(placeholder),
            handed_over: AtomicBool::new(false),
        })
    }

    /// Simulated/own version of
    /// [`tokio::net::UdpSocket::into_std`](https://docs.rs/tokio/1/tokio/net/struct.UdpSocket.html#method.into_std):
    /// a std socket on the same simulated socket, non-blocking.
    ///
    /// # Errors
    ///
    /// When the simulation is gone.
    ///
    /// # Differences from tokio
    ///
    /// The std socket's fd is a new one.
    pub fn into_std(self) -> io::Result<std::net::UdpSocket> {
        let v6 = matches!(self.local_addr(), Ok(SocketAddr::V6(_)));
        let fd = fd::hand_over_std(&self.io, crate::runtime::net::IpObj::Udp(self.id), v6)?;
        self.handed_over.store(true, Ordering::Relaxed);
        Ok(fd.into())
    }

    /// Simulated/own version of
    /// [`tokio::net::UdpSocket::recv_buf`](https://docs.rs/tokio/1/tokio/net/struct.UdpSocket.html#method.recv_buf):
    /// like [`recv`](Self::recv), into `buf`'s current chunk, advancing its
    /// cursor.
    ///
    /// # Cancel safety
    ///
    /// This method is cancel safe: if it is dropped before completing, no
    /// datagram was received.
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub async fn recv_buf<B: BufMut>(&self, buf: &mut B) -> io::Result<usize> {
        let mut data = vec![0; buf.chunk_mut().len()];
        let n = self.recv(&mut data).await?;
        buf.put_slice(&data[..n]);
        Ok(n)
    }

    /// Simulated/own version of
    /// [`tokio::net::UdpSocket::try_recv_buf`](https://docs.rs/tokio/1/tokio/net/struct.UdpSocket.html#method.try_recv_buf):
    /// like [`try_recv`](Self::try_recv), into `buf`'s current chunk.
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub fn try_recv_buf<B: BufMut>(&self, buf: &mut B) -> io::Result<usize> {
        let mut data = vec![0; buf.chunk_mut().len()];
        let n = self.try_recv(&mut data)?;
        buf.put_slice(&data[..n]);
        Ok(n)
    }

    /// Simulated/own version of
    /// [`tokio::net::UdpSocket::recv_buf_from`](https://docs.rs/tokio/1/tokio/net/struct.UdpSocket.html#method.recv_buf_from):
    /// like [`recv_from`](Self::recv_from), into `buf`'s current chunk.
    ///
    /// # Cancel safety
    ///
    /// This method is cancel safe: if it is dropped before completing, no
    /// datagram was received.
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub async fn recv_buf_from<B: BufMut>(&self, buf: &mut B) -> io::Result<(usize, SocketAddr)> {
        let mut data = vec![0; buf.chunk_mut().len()];
        let (n, from) = self.recv_from(&mut data).await?;
        buf.put_slice(&data[..n]);
        Ok((n, from))
    }

    /// Simulated/own version of
    /// [`tokio::net::UdpSocket::try_recv_buf_from`](https://docs.rs/tokio/1/tokio/net/struct.UdpSocket.html#method.try_recv_buf_from):
    /// like [`try_recv_from`](Self::try_recv_from), into `buf`'s current
    /// chunk.
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub fn try_recv_buf_from<B: BufMut>(&self, buf: &mut B) -> io::Result<(usize, SocketAddr)> {
        let mut data = vec![0; buf.chunk_mut().len()];
        let (n, from) = self.try_recv_from(&mut data)?;
        buf.put_slice(&data[..n]);
        Ok((n, from))
    }

    /// Simulated/own version of
    /// [`tokio::net::UdpSocket::multicast_loop_v4`](https://docs.rs/tokio/1/tokio/net/struct.UdpSocket.html#method.multicast_loop_v4):
    /// `IP_MULTICAST_LOOP`, read from the placeholder fd.
    ///
    /// # Differences from tokio
    ///
    /// Stored only: the model has no multicast.
    pub fn multicast_loop_v4(&self) -> io::Result<bool> {
        self.placeholder().multicast_loop_v4()
    }

    /// Simulated/own version of
    /// [`tokio::net::UdpSocket::set_multicast_loop_v4`](https://docs.rs/tokio/1/tokio/net/struct.UdpSocket.html#method.set_multicast_loop_v4).
    ///
    /// # Differences from tokio
    ///
    /// Stored only: the model has no multicast.
    pub fn set_multicast_loop_v4(&self, on: bool) -> io::Result<()> {
        self.placeholder().set_multicast_loop_v4(on)
    }

    /// Simulated/own version of
    /// [`tokio::net::UdpSocket::multicast_ttl_v4`](https://docs.rs/tokio/1/tokio/net/struct.UdpSocket.html#method.multicast_ttl_v4).
    ///
    /// # Differences from tokio
    ///
    /// Stored only: the model has no multicast.
    pub fn multicast_ttl_v4(&self) -> io::Result<u32> {
        self.placeholder().multicast_ttl_v4()
    }

    /// Simulated/own version of
    /// [`tokio::net::UdpSocket::set_multicast_ttl_v4`](https://docs.rs/tokio/1/tokio/net/struct.UdpSocket.html#method.set_multicast_ttl_v4).
    ///
    /// # Differences from tokio
    ///
    /// Stored only: the model has no multicast.
    pub fn set_multicast_ttl_v4(&self, ttl: u32) -> io::Result<()> {
        self.placeholder().set_multicast_ttl_v4(ttl)
    }

    /// Simulated/own version of
    /// [`tokio::net::UdpSocket::multicast_loop_v6`](https://docs.rs/tokio/1/tokio/net/struct.UdpSocket.html#method.multicast_loop_v6).
    ///
    /// # Differences from tokio
    ///
    /// Stored only: the model has no multicast.
    pub fn multicast_loop_v6(&self) -> io::Result<bool> {
        self.placeholder().multicast_loop_v6()
    }

    /// Simulated/own version of
    /// [`tokio::net::UdpSocket::set_multicast_loop_v6`](https://docs.rs/tokio/1/tokio/net/struct.UdpSocket.html#method.set_multicast_loop_v6).
    ///
    /// # Differences from tokio
    ///
    /// Stored only: the model has no multicast.
    pub fn set_multicast_loop_v6(&self, on: bool) -> io::Result<()> {
        self.placeholder().set_multicast_loop_v6(on)
    }

    cfg_tclass! {
        /// Simulated/own version of
        /// [`tokio::net::UdpSocket::tclass_v6`](https://docs.rs/tokio/1/tokio/net/struct.UdpSocket.html#method.tclass_v6).
        ///
        /// # Differences from tokio
        ///
        /// None (read from the placeholder fd).
        pub fn tclass_v6(&self) -> io::Result<u32> {
            self.placeholder().tclass_v6()
        }

        /// Simulated/own version of
        /// [`tokio::net::UdpSocket::set_tclass_v6`](https://docs.rs/tokio/1/tokio/net/struct.UdpSocket.html#method.set_tclass_v6).
        ///
        /// # Differences from tokio
        ///
        /// Stored only: the simulated network has no traffic classes.
        pub fn set_tclass_v6(&self, tclass: u32) -> io::Result<()> {
            self.placeholder().set_tclass_v6(tclass)
        }
    }

    cfg_tos! {
        /// Simulated/own version of
        /// [`tokio::net::UdpSocket::tos_v4`](https://docs.rs/tokio/1/tokio/net/struct.UdpSocket.html#method.tos_v4).
        ///
        /// # Differences from tokio
        ///
        /// None (read from the placeholder fd).
        pub fn tos_v4(&self) -> io::Result<u32> {
            self.placeholder().tos_v4()
        }

        /// Simulated/own version of
        /// [`tokio::net::UdpSocket::set_tos_v4`](https://docs.rs/tokio/1/tokio/net/struct.UdpSocket.html#method.set_tos_v4).
        ///
        /// # Differences from tokio
        ///
        /// Stored only: the simulated network has no types of service.
        pub fn set_tos_v4(&self, tos: u32) -> io::Result<()> {
            self.placeholder().set_tos_v4(tos)
        }
    }

    tos_aliases!();

    cfg_device! {
        /// Simulated/own version of
        /// [`tokio::net::UdpSocket::device`](https://docs.rs/tokio/1/tokio/net/struct.UdpSocket.html#method.device).
        ///
        /// # Differences from tokio
        ///
        /// None (read from the placeholder fd).
        pub fn device(&self) -> io::Result<Option<Vec<u8>>> {
            self.placeholder().device()
        }

        /// Simulated/own version of
        /// [`tokio::net::UdpSocket::bind_device`](https://docs.rs/tokio/1/tokio/net/struct.UdpSocket.html#method.bind_device).
        ///
        /// # Differences from tokio
        ///
        /// The kernel checks the name against the machine's real interfaces;
        /// the binding has no effect on the simulated network.
        pub fn bind_device(&self, interface: Option<&[u8]>) -> io::Result<()> {
            self.placeholder().bind_device(interface)
        }
    }

    /// Simulated/own version of
    /// [`tokio::net::UdpSocket::join_multicast_v4`](https://docs.rs/tokio/1/tokio/net/struct.UdpSocket.html#method.join_multicast_v4).
    ///
    /// # Errors
    ///
    /// Always `Unsupported`: the model has no multicast.
    pub fn join_multicast_v4(&self, multiaddr: Ipv4Addr, interface: Ipv4Addr) -> io::Result<()> {
        let _ = interface;
        Err(no_multicast("join_multicast_v4", multiaddr.into()))
    }

    /// Simulated/own version of
    /// [`tokio::net::UdpSocket::join_multicast_v6`](https://docs.rs/tokio/1/tokio/net/struct.UdpSocket.html#method.join_multicast_v6).
    ///
    /// # Errors
    ///
    /// Always `Unsupported`: the model has no multicast.
    pub fn join_multicast_v6(&self, multiaddr: &Ipv6Addr, interface: u32) -> io::Result<()> {
        let _ = interface;
        Err(no_multicast("join_multicast_v6", (*multiaddr).into()))
    }

    /// Simulated/own version of
    /// [`tokio::net::UdpSocket::leave_multicast_v4`](https://docs.rs/tokio/1/tokio/net/struct.UdpSocket.html#method.leave_multicast_v4).
    ///
    /// # Errors
    ///
    /// Always `Unsupported`: the model has no multicast.
    pub fn leave_multicast_v4(&self, multiaddr: Ipv4Addr, interface: Ipv4Addr) -> io::Result<()> {
        let _ = interface;
        Err(no_multicast("leave_multicast_v4", multiaddr.into()))
    }

    /// Simulated/own version of
    /// [`tokio::net::UdpSocket::leave_multicast_v6`](https://docs.rs/tokio/1/tokio/net/struct.UdpSocket.html#method.leave_multicast_v6).
    ///
    /// # Errors
    ///
    /// Always `Unsupported`: the model has no multicast.
    pub fn leave_multicast_v6(&self, multiaddr: &Ipv6Addr, interface: u32) -> io::Result<()> {
        let _ = interface;
        Err(no_multicast("leave_multicast_v6", (*multiaddr).into()))
    }

    /// The placeholder fd, created now (with the stored options) if needed.
    fn placeholder(&self) -> &Socket {
        self.fd
            .get_or_create(fd::domain_of(self.local_addr()), Kind::Udp, |s| {
                let _ = s.set_ttl_v4(self.ttl.load(Ordering::Relaxed));
                let _ = s.set_broadcast(self.broadcast.load(Ordering::Relaxed));
            })
    }

    /// Simulated [`tokio::net::UdpSocket::take_error`](https://docs.rs/tokio/1/tokio/net/struct.UdpSocket.html#method.take_error): takes the pending
    /// `SO_ERROR`: `ConnectionRefused` after an ICMP port unreachable
    /// reached this connected socket (see the type's docs), else none.
    ///
    /// # Errors
    ///
    /// `NotConnected` once the socket's host was stopped.
    pub fn take_error(&self) -> io::Result<Option<io::Error>> {
        let id = self.id;
        self.io
            .try_op(self.endpoint(), |net, _| Ok(net.udp_take_error(id)))
    }

    fn endpoint(&self) -> Endpoint {
        Endpoint::Socket(self.id)
    }

    /// Receives into a plain slice: what `recv`, `poll_recv` share.
    fn poll_recv_into(&self, cx: &mut Context<'_>, buf: &mut [u8]) -> Poll<io::Result<usize>> {
        self.poll_take_into(cx, buf, Take::Recv).map_ok(|(n, _)| n)
    }

    /// Waits for a datagram and takes (or peeks at) it into `buf`.
    fn poll_take_into(
        &self,
        cx: &mut Context<'_>,
        buf: &mut [u8],
        take: Take,
    ) -> Poll<io::Result<(usize, SocketAddr)>> {
        self.poll_read(cx, |net, id| take.from(net, id, buf))
    }

    /// As [`poll_take_into`](Self::poll_take_into), into the unfilled part
    /// of `buf`; returns the sender.
    fn poll_take_from(
        &self,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
        take: Take,
    ) -> Poll<io::Result<SocketAddr>> {
        let (n, from) = ready!(self.poll_take_into(cx, buf.initialize_unfilled(), take))?;
        buf.advance(n);
        Poll::Ready(Ok(from))
    }

    /// Takes (or peeks at) a queued datagram without waiting.
    fn try_take_from(&self, buf: &mut [u8], take: Take) -> io::Result<(usize, SocketAddr)> {
        let id = self.id;
        self.io.try_op(self.endpoint(), |net, _| {
            when_readable(net, id)?;
            take.from(net, id, buf)
        })
    }

    /// A receive-side model call; waits for readability on `WouldBlock`.
    fn poll_read<R>(
        &self,
        cx: &mut Context<'_>,
        op: impl FnOnce(&mut Net, SocketId) -> io::Result<R>,
    ) -> Poll<io::Result<R>> {
        let id = self.id;
        self.io
            .poll_op(cx, self.endpoint(), Readiness::READABLE, |net, _| {
                op(net, id)
            })
    }
}

/// Whether a receive takes the datagram or leaves it queued (a peek).
#[derive(Clone, Copy, Debug)]
enum Take {
    Recv,
    Peek,
}

impl Take {
    fn from(self, net: &mut Net, id: SocketId, buf: &mut [u8]) -> io::Result<(usize, SocketAddr)> {
        match self {
            Take::Recv => net.udp_recv_from(id, buf),
            Take::Peek => net.udp_peek_from(id, buf),
        }
    }
}

/// `WouldBlock` unless a datagram is queued: tokio's `try_*` receives
/// run only when the socket is readable, so a pending error (which makes
/// it ready for `ERROR`, not readable) waits for the next `recv`, `send`
/// or `take_error`.
fn when_readable(net: &Net, id: SocketId) -> io::Result<()> {
    if net.readiness(Endpoint::Socket(id)).is_readable() {
        Ok(())
    } else {
        Err(io::ErrorKind::WouldBlock.into())
    }
}

/// The error of the multicast membership calls: the model has none.
fn no_multicast(item: &str, group: std::net::IpAddr) -> io::Error {
    io::Error::new(
        io::ErrorKind::Unsupported,
        format!(
            "UdpSocket::{item}({group}): multicast is not simulated by sim-rt; send to each \
             member's address instead"
        ),
    )
}

placeholder_fd_impls!(UdpSocket, std::net::UdpSocket);

impl Drop for UdpSocket {
    /// Closes the socket: queued datagrams are discarded, and later ones to
    /// its address are answered with ICMP port unreachable.
    fn drop(&mut self) {
        let id = self.id;
        let kept = *self.handed_over.get_mut();
        self.io.close(self.endpoint(), move |net, _| {
            if !kept {
                net.udp_close(id)
            }
        });
    }
}
