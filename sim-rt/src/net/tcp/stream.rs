//! Simulated [`tokio::net::TcpStream`](https://docs.rs/tokio/1/tokio/net/struct.TcpStream.html): one end of a connection in the
//! network model.
//!
//! Reads, writes and peeks are the model's non-blocking calls; on
//! `WouldBlock` the task waits for the endpoint's `READABLE` or `WRITABLE`
//! readiness (see `net/io.rs`). A connect starts the handshake at once and
//! waits for `WRITABLE`, which the model reports when the SYN-ACK (or an
//! RST) arrives, exactly as a non-blocking `connect` under mio does.
//!
//! The socket options (`TCP_NODELAY`, `IP_TTL`, `SO_LINGER`) live in the
//! handle, and once the stream has a real placeholder fd (its raw fd was
//! asked for, or it was connected by a `TcpSocket`) in that fd, so that
//! options set through socket2 and through the stream agree (see
//! `net/fd.rs`). Only linger has an effect: a zero linger turns the close
//! on drop into an abort (RST), as it does in a kernel.

use std::fmt;
use std::future::poll_fn;
use std::io;
use std::net::{Shutdown, SocketAddr};
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, RawFd};
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{Mutex, PoisonError};
use std::task::{ready, Context, Poll};
use std::time::Duration;

use crate::io::{AsyncRead, AsyncWrite, Interest, ReadBuf, Ready};
use bytes::BufMut;
use sim_net::{ConnId, Endpoint, Net, Readiness};
use socket2::Socket;

use super::kept;
use super::split::{split, ReadHalf, WriteHalf};
use super::split_owned::{split_owned, OwnedReadHalf, OwnedWriteHalf};
use crate::net::addr::each_addr;
use crate::net::fd::{self, Kind, Placeholder};
use crate::net::io::{Assumed, NetIo};
use crate::net::ToSocketAddrs;
use crate::net::DEFAULT_TTL;

/// Simulated [`tokio::net::TcpStream`](https://docs.rs/tokio/1/tokio/net/struct.TcpStream.html): a TCP stream between a local and a
/// remote socket.
///
/// A stream comes from [`connect`](TcpStream::connect) or from
/// [`TcpListener::accept`](crate::net::TcpListener::accept). It implements
/// tokio's own [`AsyncRead`] and [`AsyncWrite`], so the helpers of
/// [`AsyncReadExt`](crate::io::AsyncReadExt) and
/// [`AsyncWriteExt`](crate::io::AsyncWriteExt) work on it.
///
/// [`shutdown()`](crate::io::AsyncWriteExt::shutdown) closes the write
/// direction only: the peer reads the remaining bytes and then end of
/// stream (`Ok(0)`), and can still send. Dropping the stream closes it: the
/// bytes already written are still delivered, then the peer reads end of
/// stream, unless bytes were left unread here, in which case the peer sees
/// `ConnectionReset`, as with a kernel.
///
/// # Examples
///
/// ```
/// # sim_rt::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
/// use sim_rt::io::{AsyncReadExt, AsyncWriteExt};
/// use sim_rt::net::{TcpListener, TcpStream};
///
/// sim_rt::sim::host("server").start(|| async {
///     let listener = TcpListener::bind("0.0.0.0:8080").await?;
///     let (mut socket, _) = listener.accept().await?;
///     let mut request = String::new();
///     socket.read_to_string(&mut request).await?;
///     socket.write_all(request.to_uppercase().as_bytes()).await
/// });
///
/// let mut stream = TcpStream::connect("server:8080").await?;
/// stream.write_all(b"hello world!").await?;
/// stream.shutdown().await?;
/// let mut reply = String::new();
/// stream.read_to_string(&mut reply).await?;
/// assert_eq!(reply, "HELLO WORLD!");
/// # Ok::<(), std::io::Error>(())
/// # }).unwrap();
/// ```
///
/// # Differences from tokio
///
/// - There is no OS socket: [`from_std`](Self::from_std) (and `TryFrom`)
///   and [`into_std`](Self::into_std) fail with `Unsupported`, and the raw
///   fd (`AsRawFd`, `AsFd`) is a real but never connected placeholder
///   socket, created on first use: options set on it through socket2 are
///   the stream's options (`nodelay`, `ttl`, `linger` read them back), but
///   only a zero linger changes what the simulation does. Reading or
///   writing the fd itself fails (it is not connected).
/// - Every task that waits on the stream is woken when it becomes ready,
///   not only the one that polled last (tokio keeps one waker per
///   direction for the `poll_*` methods); a spurious wake is allowed by
///   the contract either way.
pub struct TcpStream {
    io: NetIo,
    conn: ConnId,
    /// `TCP_NODELAY`: stored, no effect (the model never delays a write).
    nodelay: AtomicBool,
    /// `IP_TTL`: stored, no effect (the model has no hop limit).
    ttl: AtomicU32,
    /// `SO_LINGER`: `Some(ZERO)` makes the drop abort the connection.
    linger: Mutex<Option<Duration>>,
    /// The raw fd. Once it exists, it holds the three options above (the
    /// fields are then stale and unused).
    fd: Placeholder,
    /// The readiness tokio would still have cached (shared by the halves).
    assumed: Assumed,
    /// Handed over to a std stream (`into_std`): the drop leaves the
    /// connection open.
    handed_over: AtomicBool,
}

impl TcpStream {
    /// A handle for `conn`, a connection endpoint of `io`'s host, created
    /// by a connect or an accept, with `IP_TTL` set to `ttl` and tokio's
    /// initial cached readiness `assumed` (an accepted stream: both; a
    /// connected one: writable, the event its connect waited for).
    pub(super) fn new(io: NetIo, conn: ConnId, ttl: u32, assumed: Assumed) -> TcpStream {
        TcpStream {
            assumed,
            io,
            conn,
            nodelay: AtomicBool::new(false),
            ttl: AtomicU32::new(ttl),
            linger: Mutex::new(None),
            fd: Placeholder::lazy(),
            handed_over: AtomicBool::new(false),
        }
    }

    /// Simulated [`tokio::net::TcpStream::connect`](https://docs.rs/tokio/1/tokio/net/struct.TcpStream.html#method.connect): opens a TCP connection
    /// to `addr`.
    ///
    /// If `addr` resolves to several addresses, each is tried in turn until
    /// one connects; if none does, the error of the last attempt is
    /// returned (so a later attempt's error can hide an earlier one).
    ///
    /// # Examples
    ///
    /// ```
    /// # sim_rt::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// use sim_rt::io::AsyncWriteExt;
    /// use sim_rt::net::{TcpListener, TcpStream};
    ///
    /// let listener = TcpListener::bind("0.0.0.0:8080").await?;
    /// let mut stream = TcpStream::connect("localhost:8080").await?;
    /// stream.write_all(b"hello world!").await?;
    ///
    /// // Nobody listens on port 8081.
    /// let refused = TcpStream::connect("localhost:8081").await.unwrap_err();
    /// assert_eq!(refused.kind(), std::io::ErrorKind::ConnectionRefused);
    /// # drop(listener);
    /// # Ok::<(), std::io::Error>(())
    /// # }).unwrap();
    /// ```
    ///
    /// # Errors
    ///
    /// `ConnectionRefused` when nothing listens on the port, the listener's
    /// backlog is full, or no host owns the address; `AddrNotAvailable`
    /// when the host has no address of the destination's family or no free
    /// ephemeral port; name resolution errors as [`ToSocketAddrs`].
    ///
    /// # Panics
    ///
    /// Outside a simulation.
    ///
    /// # Differences from tokio
    ///
    /// - A connect to a partitioned or stopped host waits until the path
    ///   opens, as a kernel retransmitting its SYN would, but without the
    ///   kernel's eventual timeout; wrap it in
    ///   [`timeout`](crate::time::timeout) to give up.
    /// - A connect to an address no host owns fails at once with
    ///   `ConnectionRefused`, where Linux would report `EHOSTUNREACH`
    ///   (`HostUnreachable`) or time out.
    pub async fn connect<A: ToSocketAddrs>(addr: A) -> io::Result<TcpStream> {
        each_addr(addr, TcpStream::connect_addr).await
    }

    /// Connects to one address: starts the handshake, then waits for it.
    /// Dropping the future drops the half-open stream, which closes it.
    async fn connect_addr(addr: SocketAddr) -> io::Result<TcpStream> {
        TcpStream::start_connect(addr)?.finish_connect().await
    }

    /// `TcpSocket::connect`: connects to `addr`, with `socket` (which holds
    /// the options set so far) as the stream's placeholder fd.
    pub(crate) async fn connect_socket(addr: SocketAddr, socket: Socket) -> io::Result<TcpStream> {
        let mut stream = TcpStream::start_connect(addr)?;
        stream.fd = Placeholder::with(socket);
        stream.finish_connect().await
    }

    /// Waits for the handshake `start_connect` began.
    async fn finish_connect(self) -> io::Result<TcpStream> {
        let stream = self;
        let conn = stream.conn;
        poll_fn(|cx| {
            stream
                .io
                .poll_op(cx, stream.endpoint(), Readiness::WRITABLE, |net, _| {
                    net.tcp_finish_connect(conn)
                })
        })
        .await?;
        Ok(stream)
    }

    /// Sends the SYN. Kept out of `connect_addr` so that the `Rc<World>`
    /// is never held across an await (the future must stay `Send`).
    fn start_connect(addr: SocketAddr) -> io::Result<TcpStream> {
        let (world, io, host) = NetIo::current()?;
        let conn = world.net_op(|net, now| net.tcp_connect(host, addr, now))?;
        Ok(TcpStream::new(
            io,
            conn,
            DEFAULT_TTL,
            Assumed::new(false, true),
        ))
    }

    fn endpoint(&self) -> Endpoint {
        Endpoint::Conn(self.conn)
    }

    /// Simulated [`tokio::net::TcpStream::local_addr`](https://docs.rs/tokio/1/tokio/net/struct.TcpStream.html#method.local_addr): the local address
    /// of the stream.
    ///
    /// # Errors
    ///
    /// `NotConnected` once the stream's host has been stopped or reset.
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        let conn = self.conn;
        self.io
            .query(self.endpoint(), |net| net.tcp_local_addr(conn))
    }

    /// Simulated [`tokio::net::TcpStream::peer_addr`](https://docs.rs/tokio/1/tokio/net/struct.TcpStream.html#method.peer_addr): the remote address
    /// the stream is connected to.
    ///
    /// # Errors
    ///
    /// `NotConnected` once the connection was reset, as `getpeername`
    /// reports it, or once the stream's host has been stopped or reset.
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub fn peer_addr(&self) -> io::Result<SocketAddr> {
        let conn = self.conn;
        self.io
            .query(self.endpoint(), |net| net.tcp_peer_addr(conn))
    }

    /// Simulated [`tokio::net::TcpStream::poll_peek`](https://docs.rs/tokio/1/tokio/net/struct.TcpStream.html#method.poll_peek): copies received
    /// bytes into `buf` without removing them from the receive buffer, or
    /// registers the task to be woken when there are some.
    ///
    /// Returns `Poll::Ready(Ok(n))` with the number of bytes peeked (0 at
    /// end of stream or when `buf` has no room), `Poll::Pending` when no
    /// data is there yet, or an error.
    ///
    /// # Errors
    ///
    /// The connection's pending error (`ConnectionReset`...), which, unlike
    /// a read, a peek does not consume; `NotConnected` once the stream's
    /// host has been stopped or reset.
    ///
    /// # Differences from tokio
    ///
    /// See the type's docs about wakers.
    pub fn poll_peek(
        &self,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<usize>> {
        let conn = self.conn;
        let polled = self
            .io
            .poll_op(cx, self.endpoint(), Readiness::READABLE, |net, _| {
                net.tcp_peek(conn, buf.initialize_unfilled())
            });
        self.assumed.note_poll(Readiness::READABLE, &polled);
        let n = ready!(polled)?;
        buf.advance(n);
        Poll::Ready(Ok(n))
    }

    /// Simulated/own version of
    /// [`tokio::net::TcpStream::ready`](https://docs.rs/tokio/1/tokio/net/struct.TcpStream.html#method.ready):
    /// waits until the stream is ready for any of the kinds in `interest`,
    /// and returns the readiness it has of those kinds.
    ///
    /// Readable interest also covers [`Ready::READ_CLOSED`], writable
    /// interest [`Ready::WRITE_CLOSED`], as in tokio. The stream is:
    ///
    /// - readable when a read would not block: bytes, end of stream or an
    ///   error to report;
    /// - writable when a write would not block: send buffer space, a write
    ///   direction already shut down (the write fails at once), or an error
    ///   to report;
    /// - read closed once the peer's FIN arrived (even with bytes still
    ///   unread before it), after `shutdown(Read)`, or once the connection
    ///   is reset or refused;
    /// - write closed once both directions are shut down (this side shut
    ///   writing down and the peer's FIN arrived), or the connection is
    ///   reset or refused, or an error is pending. Shutting writing down
    ///   alone does not make the stream write closed: Linux does not report
    ///   it either;
    /// - error ([`Interest::ERROR`]) while an error (`ConnectionReset`...)
    ///   is pending, until a read or write reports it.
    ///
    /// Used to read and write on one task without splitting the stream,
    /// with [`try_read`](Self::try_read) and [`try_write`](Self::try_write).
    ///
    /// # Cancel safety
    ///
    /// This method is cancel safe: it consumes nothing.
    ///
    /// # Examples
    ///
    /// ```
    /// # sim_rt::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// use sim_rt::io::{AsyncWriteExt, Interest};
    /// use sim_rt::net::{TcpListener, TcpStream};
    ///
    /// let listener = TcpListener::bind("0.0.0.0:8080").await?;
    /// let stream = TcpStream::connect("localhost:8080").await?;
    /// let (mut server, _) = listener.accept().await?;
    /// server.write_all(b"hi").await?;
    /// drop(server);
    ///
    /// let ready = stream.ready(Interest::READABLE).await?;
    /// assert!(ready.is_readable() && ready.is_read_closed());
    /// let mut msg = [0; 16];
    /// assert_eq!(stream.try_read(&mut msg)?, 2);
    /// assert_eq!(stream.try_read(&mut msg)?, 0);
    /// # Ok::<(), std::io::Error>(())
    /// # }).unwrap();
    /// ```
    ///
    /// # Errors
    ///
    /// Only when the simulation is gone. A stream whose host was stopped is
    /// ready for everything (readable, writable, both closed), and the next
    /// operation reports `NotConnected`.
    ///
    /// As in tokio, a readiness stays once an operation used it up (a read
    /// took every byte, a write filled the send buffer) until an
    /// operation of that direction finds it would block; an accepted
    /// stream starts out readable and writable.
    ///
    /// # Differences from tokio
    ///
    /// See the type's docs about wakers.
    pub async fn ready(&self, interest: Interest) -> io::Result<Ready> {
        poll_fn(|cx| self.poll_ready_set(cx, interest)).await
    }

    /// `ready`'s poll: the model's readiness plus what tokio would still
    /// have cached.
    fn poll_ready_set(&self, cx: &mut Context<'_>, interest: Interest) -> Poll<io::Result<Ready>> {
        let assumed = self.assumed.ready(interest);
        if assumed.is_empty() {
            self.io.poll_ready_set(cx, self.endpoint(), interest)
        } else {
            Poll::Ready(Ok(self.io.ready_now(self.endpoint(), interest)? | assumed))
        }
    }

    /// Simulated [`tokio::net::TcpStream::readable`](https://docs.rs/tokio/1/tokio/net/struct.TcpStream.html#method.readable): waits until the
    /// stream is readable (data, end of stream or an error to report).
    ///
    /// Usually paired with [`try_read`](Self::try_read). The stream may
    /// stop being readable before the next `try_read` (another task read
    /// first), which then returns `WouldBlock`.
    ///
    /// # Cancel safety
    ///
    /// This method is cancel safe: it consumes nothing.
    ///
    /// # Examples
    ///
    /// ```
    /// # sim_rt::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// use sim_rt::io::AsyncWriteExt;
    /// use sim_rt::net::{TcpListener, TcpStream};
    ///
    /// let listener = TcpListener::bind("0.0.0.0:8080").await?;
    /// let stream = TcpStream::connect("localhost:8080").await?;
    /// let (mut server, _) = listener.accept().await?;
    /// server.write_all(b"hi").await?;
    ///
    /// let mut msg = [0; 16];
    /// let n = loop {
    ///     stream.readable().await?;
    ///     match stream.try_read(&mut msg) {
    ///         Ok(n) => break n,
    ///         Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => continue,
    ///         Err(e) => return Err(e),
    ///     }
    /// };
    /// assert_eq!(&msg[..n], b"hi");
    /// # Ok::<(), std::io::Error>(())
    /// # }).unwrap();
    /// ```
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub async fn readable(&self) -> io::Result<()> {
        poll_fn(|cx| self.poll_read_ready(cx)).await
    }

    /// Simulated [`tokio::net::TcpStream::poll_read_ready`](https://docs.rs/tokio/1/tokio/net/struct.TcpStream.html#method.poll_read_ready): `Ready` once
    /// the stream is readable, else registers the task to be woken when it
    /// becomes so.
    ///
    /// # Differences from tokio
    ///
    /// See the type's docs about wakers.
    pub fn poll_read_ready(&self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        if self.assumed.has(Readiness::READABLE) {
            return Poll::Ready(Ok(()));
        }
        self.io.poll_ready(cx, self.endpoint(), Readiness::READABLE)
    }

    /// Simulated [`tokio::net::TcpStream::try_read`](https://docs.rs/tokio/1/tokio/net/struct.TcpStream.html#method.try_read): reads the bytes
    /// already received into `buf`, without waiting.
    ///
    /// Returns the number of bytes read: `Ok(0)` means end of stream (or an
    /// empty `buf`).
    ///
    /// # Errors
    ///
    /// `WouldBlock` when nothing has been received; the connection's error
    /// (`ConnectionReset`...), reported once; `NotConnected` once the
    /// stream's host has been stopped or reset.
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub fn try_read(&self, buf: &mut [u8]) -> io::Result<usize> {
        let conn = self.conn;
        let r = self
            .io
            .try_op(self.endpoint(), |net, now| net.tcp_read(conn, buf, now));
        // After its simulation ended, the bytes it had received and not
        // read, as tokio's socket still holds the kernel's queue.
        let r = match r {
            Err(e) if kept::any() && self.io.world().is_err() => {
                kept::read(self.io.runtime(), conn, buf).ok_or(e)
            }
            r => r,
        };
        self.assumed.note(Readiness::READABLE, &r);
        r
    }

    /// Simulated [`tokio::net::TcpStream::try_read_vectored`](https://docs.rs/tokio/1/tokio/net/struct.TcpStream.html#method.try_read_vectored): like
    /// [`try_read`](Self::try_read), filling the buffers in order.
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub fn try_read_vectored(&self, bufs: &mut [io::IoSliceMut<'_>]) -> io::Result<usize> {
        let mut data = vec![0; bufs.iter().map(|b| b.len()).sum()];
        let n = self.try_read(&mut data)?;
        let mut rest = &data[..n];
        for buf in bufs.iter_mut() {
            let k = buf.len().min(rest.len());
            buf[..k].copy_from_slice(&rest[..k]);
            rest = &rest[k..];
        }
        Ok(n)
    }

    /// Simulated [`tokio::net::TcpStream::try_read_buf`](https://docs.rs/tokio/1/tokio/net/struct.TcpStream.html#method.try_read_buf): like
    /// [`try_read`](Self::try_read), appending to `buf` and advancing its
    /// cursor. Reads at most what `buf`'s current chunk holds (a `Vec`
    /// grows a chunk when it is full).
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub fn try_read_buf<B: BufMut>(&self, buf: &mut B) -> io::Result<usize> {
        let mut data = vec![0; buf.chunk_mut().len()];
        let n = self.try_read(&mut data)?;
        buf.put_slice(&data[..n]);
        Ok(n)
    }

    /// Simulated [`tokio::net::TcpStream::writable`](https://docs.rs/tokio/1/tokio/net/struct.TcpStream.html#method.writable): waits until the
    /// stream is writable (send buffer space, or an error to report).
    ///
    /// Usually paired with [`try_write`](Self::try_write).
    ///
    /// # Cancel safety
    ///
    /// This method is cancel safe: it consumes nothing.
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub async fn writable(&self) -> io::Result<()> {
        poll_fn(|cx| self.poll_write_ready(cx)).await
    }

    /// Simulated [`tokio::net::TcpStream::poll_write_ready`](https://docs.rs/tokio/1/tokio/net/struct.TcpStream.html#method.poll_write_ready): `Ready` once
    /// the stream is writable, else registers the task to be woken when it
    /// becomes so.
    ///
    /// # Differences from tokio
    ///
    /// See the type's docs about wakers.
    pub fn poll_write_ready(&self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        if self.assumed.has(Readiness::WRITABLE) {
            return Poll::Ready(Ok(()));
        }
        self.io.poll_ready(cx, self.endpoint(), Readiness::WRITABLE)
    }

    /// Simulated [`tokio::net::TcpStream::try_write`](https://docs.rs/tokio/1/tokio/net/struct.TcpStream.html#method.try_write): writes as much of
    /// `buf` as the send buffer takes, without waiting.
    ///
    /// # Errors
    ///
    /// `WouldBlock` when the send buffer is full; the connection's error
    /// (`ConnectionReset`...), reported once; `BrokenPipe` after
    /// [`shutdown`](crate::io::AsyncWriteExt::shutdown) or once the
    /// connection is reset; `NotConnected` once the stream's host has been
    /// stopped or reset.
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub fn try_write(&self, buf: &[u8]) -> io::Result<usize> {
        let conn = self.conn;
        let r = self
            .io
            .try_op(self.endpoint(), |net, now| net.tcp_write(conn, buf, now));
        self.assumed.note(Readiness::WRITABLE, &r);
        r
    }

    /// Simulated [`tokio::net::TcpStream::try_write_vectored`](https://docs.rs/tokio/1/tokio/net/struct.TcpStream.html#method.try_write_vectored): like
    /// [`try_write`](Self::try_write) with the buffers concatenated.
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub fn try_write_vectored(&self, bufs: &[io::IoSlice<'_>]) -> io::Result<usize> {
        let conn = self.conn;
        let r = self.io.try_op(self.endpoint(), |net, now| {
            net.tcp_write(conn, &gather(net, bufs), now)
        });
        self.assumed.note(Readiness::WRITABLE, &r);
        r
    }

    /// Simulated/own version of
    /// [`tokio::net::TcpStream::try_io`](https://docs.rs/tokio/1/tokio/net/struct.TcpStream.html#method.try_io):
    /// runs the I/O operation `f` once if the stream is ready for
    /// `interest` (see [`ready`](Self::ready)), without waiting.
    ///
    /// If the stream is not ready, `f` is not called and the result is a
    /// `WouldBlock` error. Otherwise `f`'s result is returned, except that
    /// a `WouldBlock` from `f` is returned as a plain `WouldBlock` error, as
    /// tokio does. `f` should perform one kind of operation, matching one
    /// interest.
    ///
    /// # Examples
    ///
    /// ```
    /// # sim_rt::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// use sim_rt::io::{AsyncWriteExt, Interest};
    /// use sim_rt::net::{TcpListener, TcpStream};
    ///
    /// let listener = TcpListener::bind("0.0.0.0:8080").await?;
    /// let stream = TcpStream::connect("localhost:8080").await?;
    /// let (mut server, _) = listener.accept().await?;
    ///
    /// let mut buf = [0; 8];
    /// let early = stream.try_io(Interest::READABLE, || stream.try_read(&mut buf));
    /// assert_eq!(early.unwrap_err().kind(), std::io::ErrorKind::WouldBlock);
    ///
    /// server.write_all(b"ok").await?;
    /// stream.readable().await?;
    /// let n = stream.try_io(Interest::READABLE, || stream.try_read(&mut buf))?;
    /// assert_eq!(&buf[..n], b"ok");
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
    /// - In tokio `f` performs a raw system call on the socket's fd
    ///   (through `AsRawFd`/`AsFd`). Here that fd is a placeholder that never
    ///   reaches the simulated network: `f` must use the stream's own
    ///   non-blocking methods ([`try_read`](Self::try_read),
    ///   [`try_write`](Self::try_write) and their vectored and buffer
    ///   forms) instead. Raw I/O on the fd fails (it is not connected).
    /// - As in tokio, a `WouldBlock` from `f` clears the readiness it
    ///   assumed (see [`ready`](Self::ready)); one that the network still
    ///   gives (bytes queued) stays, since it is the simulated
    ///   connection's state.
    pub fn try_io<R>(
        &self,
        interest: Interest,
        f: impl FnOnce() -> io::Result<R>,
    ) -> io::Result<R> {
        if self.assumed.ready(interest).is_empty() {
            return self.io.try_io(self.endpoint(), interest, f);
        }
        match f() {
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                self.assumed.clear(interest);
                Err(io::ErrorKind::WouldBlock.into())
            }
            r => r,
        }
    }

    /// Simulated/own version of
    /// [`tokio::net::TcpStream::async_io`](https://docs.rs/tokio/1/tokio/net/struct.TcpStream.html#method.async_io):
    /// waits until the stream is ready for `interest`, runs the I/O
    /// operation `f`, and repeats while `f` returns `WouldBlock`.
    ///
    /// Returns `f`'s first result that is not a `WouldBlock` error. Each
    /// call of `f` takes a unit of the task's cooperative budget, as in
    /// tokio.
    ///
    /// # Examples
    ///
    /// ```
    /// # sim_rt::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// use sim_rt::io::{AsyncWriteExt, Interest};
    /// use sim_rt::net::{TcpListener, TcpStream};
    ///
    /// let listener = TcpListener::bind("0.0.0.0:8080").await?;
    /// let stream = TcpStream::connect("localhost:8080").await?;
    /// let (mut server, _) = listener.accept().await?;
    /// sim_rt::spawn(async move { server.write_all(b"late").await });
    ///
    /// let mut buf = [0; 8];
    /// let n = stream
    ///     .async_io(Interest::READABLE, || stream.try_read(&mut buf))
    ///     .await?;
    /// assert_eq!(&buf[..n], b"late");
    /// # Ok::<(), std::io::Error>(())
    /// # }).unwrap();
    /// ```
    ///
    /// # Cancel safety
    ///
    /// Cancel safe as far as `f` is: dropping the future while it waits
    /// loses nothing.
    ///
    /// # Errors
    ///
    /// `f`'s first error other than `WouldBlock`.
    ///
    /// # Differences from tokio
    ///
    /// As for [`try_io`](Self::try_io): `f` must use the stream's own
    /// non-blocking methods, not raw I/O on the fd; and after a
    /// `WouldBlock` the method waits for the simulated connection's state
    /// to become ready again rather than for a new event (an `f` that
    /// returns `WouldBlock` without trying the operation, while the stream
    /// stays ready, is called again at once, and after the task's budget
    /// is spent the task yields).
    pub async fn async_io<R>(
        &self,
        interest: Interest,
        f: impl FnMut() -> io::Result<R>,
    ) -> io::Result<R> {
        let mut f = f;
        loop {
            self.ready(interest).await?;
            let coop = poll_fn(crate::task::coop::poll_proceed).await;
            match f() {
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => self.assumed.clear(interest),
                r => {
                    coop.made_progress();
                    return r;
                }
            }
        }
    }

    /// Simulated [`tokio::net::TcpStream::peek`](https://docs.rs/tokio/1/tokio/net/struct.TcpStream.html#method.peek): waits for received bytes
    /// and copies them into `buf` without removing them, so the next read
    /// returns them again.
    ///
    /// # Cancel safety
    ///
    /// This method is cancel safe: if it is dropped before completing, no
    /// peek happened and `buf` is untouched.
    ///
    /// # Examples
    ///
    /// ```
    /// # sim_rt::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// use sim_rt::io::{AsyncReadExt, AsyncWriteExt};
    /// use sim_rt::net::{TcpListener, TcpStream};
    ///
    /// let listener = TcpListener::bind("0.0.0.0:8080").await?;
    /// let mut stream = TcpStream::connect("localhost:8080").await?;
    /// listener.accept().await?.0.write_all(b"hello").await?;
    ///
    /// let mut b1 = [0; 10];
    /// let mut b2 = [0; 10];
    /// let n = stream.peek(&mut b1).await?;
    /// assert_eq!(n, stream.read(&mut b2[..n]).await?);
    /// assert_eq!(&b1[..n], &b2[..n]);
    /// # Ok::<(), std::io::Error>(())
    /// # }).unwrap();
    /// ```
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub async fn peek(&self, buf: &mut [u8]) -> io::Result<usize> {
        let mut buf = ReadBuf::new(buf);
        poll_fn(|cx| self.poll_peek(cx, &mut buf)).await
    }

    /// Shuts down the write direction (`Shutdown::Write`: FIN after the
    /// bytes already written). Like tokio, `NotConnected` (the connection
    /// is already reset or gone) counts as success.
    pub(super) fn shutdown_std(&self, how: Shutdown) -> io::Result<()> {
        let conn = self.conn;
        match self
            .io
            .try_op(self.endpoint(), |net, now| net.tcp_shutdown(conn, how, now))
        {
            Err(e) if e.kind() == io::ErrorKind::NotConnected => Ok(()),
            r => r,
        }
    }

    /// Simulated [`tokio::net::TcpStream::nodelay`](https://docs.rs/tokio/1/tokio/net/struct.TcpStream.html#method.nodelay): the value of the
    /// `TCP_NODELAY` option (initially `false`).
    ///
    /// # Differences from tokio
    ///
    /// The value is only stored; see [`set_nodelay`](Self::set_nodelay).
    pub fn nodelay(&self) -> io::Result<bool> {
        match self.fd.get() {
            Some(fd) => fd.tcp_nodelay(),
            None => Ok(self.nodelay.load(Ordering::Relaxed)),
        }
    }

    /// Simulated [`tokio::net::TcpStream::set_nodelay`](https://docs.rs/tokio/1/tokio/net/struct.TcpStream.html#method.set_nodelay): sets the
    /// `TCP_NODELAY` option, which turns off Nagle's algorithm (coalescing
    /// small writes into fewer segments).
    ///
    /// # Differences from tokio
    ///
    /// The value is stored and reported by [`nodelay`](Self::nodelay), but
    /// has no effect: the simulated network never delays a write, so every
    /// stream behaves as if `TCP_NODELAY` were set.
    pub fn set_nodelay(&self, nodelay: bool) -> io::Result<()> {
        match self.fd.get() {
            Some(fd) => fd.set_tcp_nodelay(nodelay),
            None => {
                self.nodelay.store(nodelay, Ordering::Relaxed);
                Ok(())
            }
        }
    }

    /// Simulated [`tokio::net::TcpStream::linger`](https://docs.rs/tokio/1/tokio/net/struct.TcpStream.html#method.linger): the value of the
    /// `SO_LINGER` option (initially `None`).
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub fn linger(&self) -> io::Result<Option<Duration>> {
        match self.fd.get() {
            Some(fd) => fd.linger(),
            None => Ok(*self.linger.lock().unwrap_or_else(PoisonError::into_inner)),
        }
    }

    /// Simulated [`tokio::net::TcpStream::set_linger`](https://docs.rs/tokio/1/tokio/net/struct.TcpStream.html#method.set_linger): sets the
    /// `SO_LINGER` option, what closing does with unsent data.
    ///
    /// The option holds whole seconds, so the duration is truncated to
    /// them, as on Linux: [`linger`](Self::linger) then reports the
    /// truncated value, and anything under a second is a zero linger.
    /// With a zero linger (see [`set_zero_linger`](Self::set_zero_linger))
    /// dropping the stream aborts the connection: unsent bytes are
    /// discarded and the peer gets an RST (`ConnectionReset`) instead of
    /// end of stream.
    ///
    /// Deprecated in tokio, because a nonzero linger makes the drop block
    /// the thread until the data is sent or the time runs out.
    ///
    /// # Differences from tokio
    ///
    /// A nonzero linger does not block: the drop closes gracefully, as with
    /// `None`, and the bytes already written are still delivered.
    #[deprecated = "`SO_LINGER` causes the socket to block the thread on drop"]
    pub fn set_linger(&self, dur: Option<Duration>) -> io::Result<()> {
        self.store_linger(dur.map(|d| Duration::from_secs(d.as_secs())))
    }

    fn store_linger(&self, dur: Option<Duration>) -> io::Result<()> {
        match self.fd.get() {
            Some(fd) => fd.set_linger(dur),
            None => {
                *self.linger.lock().unwrap_or_else(PoisonError::into_inner) = dur;
                Ok(())
            }
        }
    }

    /// Simulated [`tokio::net::TcpStream::set_zero_linger`](https://docs.rs/tokio/1/tokio/net/struct.TcpStream.html#method.set_zero_linger): sets
    /// `SO_LINGER` to zero, so that dropping the stream aborts the
    /// connection ("abortive close"): unsent bytes are discarded and the
    /// peer gets an RST, which it reports as `ConnectionReset`, instead of
    /// end of stream.
    ///
    /// # Examples
    ///
    /// ```
    /// # sim_rt::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// use std::time::Duration;
    /// use sim_rt::io::AsyncReadExt;
    /// use sim_rt::net::{TcpListener, TcpStream};
    ///
    /// let listener = TcpListener::bind("0.0.0.0:8080").await?;
    /// let stream = TcpStream::connect("localhost:8080").await?;
    /// let (mut server, _) = listener.accept().await?;
    ///
    /// stream.set_zero_linger()?;
    /// assert_eq!(stream.linger()?, Some(Duration::ZERO));
    /// drop(stream);
    /// let reset = server.read(&mut [0; 8]).await.unwrap_err();
    /// assert_eq!(reset.kind(), std::io::ErrorKind::ConnectionReset);
    /// # Ok::<(), std::io::Error>(())
    /// # }).unwrap();
    /// ```
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub fn set_zero_linger(&self) -> io::Result<()> {
        self.store_linger(Some(Duration::ZERO))
    }

    /// Simulated [`tokio::net::TcpStream::ttl`](https://docs.rs/tokio/1/tokio/net/struct.TcpStream.html#method.ttl): the value of the `IP_TTL`
    /// option: 64, Linux's default, for a stream that connected; the
    /// listener's value for an accepted stream, which Linux copies from it;
    /// or what [`set_ttl`](Self::set_ttl) set.
    ///
    /// # Differences from tokio
    ///
    /// The value is only stored; see [`set_ttl`](Self::set_ttl).
    pub fn ttl(&self) -> io::Result<u32> {
        crate::net::options::ttl(&self.fd, &self.ttl)
    }

    /// Simulated [`tokio::net::TcpStream::set_ttl`](https://docs.rs/tokio/1/tokio/net/struct.TcpStream.html#method.set_ttl): sets the `IP_TTL`
    /// option, the time-to-live of every packet sent from this socket.
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

    /// Simulated/own version of
    /// [`tokio::net::TcpStream::quickack`](https://docs.rs/tokio/1/tokio/net/struct.TcpStream.html#method.quickack):
    /// the value of `TCP_QUICKACK`.
    ///
    /// # Differences from tokio
    ///
    /// Read from the placeholder fd (created by this call if needed): the
    /// simulated network acknowledges at once either way.
    #[cfg(any(
        target_os = "linux",
        target_os = "android",
        target_os = "fuchsia",
        target_os = "cygwin",
    ))]
    pub fn quickack(&self) -> io::Result<bool> {
        self.placeholder().tcp_quickack()
    }

    /// Simulated/own version of
    /// [`tokio::net::TcpStream::set_quickack`](https://docs.rs/tokio/1/tokio/net/struct.TcpStream.html#method.set_quickack):
    /// sets `TCP_QUICKACK`.
    ///
    /// # Differences from tokio
    ///
    /// Stored on the placeholder fd (created by this call if needed); it
    /// has no effect on the simulated network.
    #[cfg(any(
        target_os = "linux",
        target_os = "android",
        target_os = "fuchsia",
        target_os = "cygwin",
    ))]
    pub fn set_quickack(&self, quickack: bool) -> io::Result<()> {
        self.placeholder().set_tcp_quickack(quickack)
    }

    /// Simulated/own version of
    /// [`tokio::net::TcpStream::take_error`](https://docs.rs/tokio/1/tokio/net/struct.TcpStream.html#method.take_error):
    /// the pending `SO_ERROR`.
    ///
    /// # Errors
    ///
    /// `NotConnected` once the stream's host has been stopped or reset.
    ///
    /// # Differences from tokio
    ///
    /// Always `Ok(None)`: the simulated connection reports its error
    /// (`ConnectionReset`...) to the next read or write instead.
    pub fn take_error(&self) -> io::Result<Option<io::Error>> {
        self.io.query(self.endpoint(), |_| Ok(None))
    }

    /// Simulated/own version of
    /// [`tokio::net::TcpStream::from_std`](https://docs.rs/tokio/1/tokio/net/struct.TcpStream.html#method.from_std):
    /// the stream a std stream made inside the simulation is (std's
    /// sockets there are simulated); its socket becomes the raw fd.
    ///
    /// # Errors
    ///
    /// `Unsupported` for a real std stream, made outside the simulation (it
    /// cannot join the simulated network), or one with a `try_clone` still
    /// open; the std stream is closed.
    ///
    /// # Panics
    ///
    /// Outside a simulation, as tokio's panics outside a runtime.
    ///
    /// # Differences from tokio
    ///
    /// None for a std stream made inside the simulation.
    #[track_caller]
    pub fn from_std(stream: std::net::TcpStream) -> io::Result<TcpStream> {
        let (io, obj, socket) = fd::adopt_std(stream.into(), "TcpStream::from_std")?;
        let crate::runtime::net::IpObj::Conn(conn) = obj else {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "TcpStream::from_std: the socket is not a connection",
            ));
        };
        let mut stream = TcpStream::new(io, conn, DEFAULT_TTL, Assumed::new(false, false));
        stream.fd = Placeholder::with(socket);
        Ok(stream)
    }

    /// Simulated/own version of
    /// [`tokio::net::TcpStream::into_std`](https://docs.rs/tokio/1/tokio/net/struct.TcpStream.html#method.into_std):
    /// a std stream on the same simulated connection, in non-blocking mode
    /// as tokio hands it over (its calls reach the simulation).
    ///
    /// # Errors
    ///
    /// When the simulation is gone.
    ///
    /// # Differences from tokio
    ///
    /// The std stream's fd is a new one (tokio hands over its own).
    pub fn into_std(self) -> io::Result<std::net::TcpStream> {
        let v6 = matches!(self.local_addr(), Ok(SocketAddr::V6(_)));
        let fd = fd::hand_over_std(&self.io, crate::runtime::net::IpObj::Conn(self.conn), v6)?;
        self.handed_over.store(true, Ordering::Relaxed);
        Ok(fd.into())
    }

    /// The placeholder fd, created now (with the options stored so far) if
    /// needed.
    fn placeholder(&self) -> &Socket {
        let domain = fd::domain_of(self.local_addr());
        self.fd.get_or_create(domain, Kind::Tcp, |s| {
            // The stored values were valid when set; a refusal here
            // (IP_TTL on some IPv6 stacks) leaves the kernel's default.
            let _ = s.set_tcp_nodelay(self.nodelay.load(Ordering::Relaxed));
            let _ = s.set_ttl_v4(self.ttl.load(Ordering::Relaxed));
            let _ = s.set_linger(*self.linger.lock().unwrap_or_else(PoisonError::into_inner));
            // Calls on the raw fd (socket2's `peek`, `SO_ERROR`) reach the
            // simulated connection.
            use std::os::fd::AsRawFd;
            fd::register_view(
                &self.io,
                s.as_raw_fd(),
                crate::runtime::net::IpObj::Conn(self.conn),
                domain == socket2::Domain::IPV6,
            );
        })
    }

    /// Simulated [`tokio::net::TcpStream::split`](https://docs.rs/tokio/1/tokio/net/struct.TcpStream.html#method.split): borrows the stream as a
    /// read half and a write half, to read and write concurrently (for
    /// example in the two branches of a [`join!`](crate::join)).
    ///
    /// Cheaper than [`into_split`](Self::into_split), but the halves cannot
    /// be moved into separately spawned tasks.
    ///
    /// # Differences from tokio
    ///
    /// None.
    // The lifetime is spelled out, as in tokio, so the docs show that the
    // halves borrow the stream.
    #[allow(clippy::needless_lifetimes)]
    pub fn split<'a>(&'a mut self) -> (ReadHalf<'a>, WriteHalf<'a>) {
        split(self)
    }

    /// Simulated [`tokio::net::TcpStream::into_split`](https://docs.rs/tokio/1/tokio/net/struct.TcpStream.html#method.into_split): splits the stream
    /// into owned halves that can move into separate tasks.
    ///
    /// **Note:** dropping the write half shuts down the write direction of
    /// the stream, as [`shutdown()`](crate::io::AsyncWriteExt::shutdown)
    /// does (unless it is [forgotten](OwnedWriteHalf::forget)). The stream
    /// is closed when both halves are gone.
    ///
    /// # Examples
    ///
    /// ```
    /// # sim_rt::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// use sim_rt::io::{AsyncReadExt, AsyncWriteExt};
    /// use sim_rt::net::{TcpListener, TcpStream};
    ///
    /// let listener = TcpListener::bind("0.0.0.0:8080").await?;
    /// let stream = TcpStream::connect("localhost:8080").await?;
    /// let (mut server, _) = listener.accept().await?;
    ///
    /// let (mut rd, mut wr) = stream.into_split();
    /// let writer = sim_rt::spawn(async move { wr.write_all(b"ping").await });
    /// let mut got = [0; 4];
    /// server.read_exact(&mut got).await?;
    /// server.write_all(&got).await?;
    /// rd.read_exact(&mut got).await?;
    /// assert_eq!(&got, b"ping");
    /// writer.await??;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// # }).unwrap();
    /// ```
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub fn into_split(self) -> (OwnedReadHalf, OwnedWriteHalf) {
        split_owned(self)
    }

    pub(super) fn poll_read_priv(
        &self,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let conn = self.conn;
        let polled = self
            .io
            .poll_op(cx, self.endpoint(), Readiness::READABLE, |net, now| {
                net.tcp_read(conn, buf.initialize_unfilled(), now)
            });
        self.assumed.note_poll(Readiness::READABLE, &polled);
        let n = ready!(polled)?;
        buf.advance(n);
        Poll::Ready(Ok(()))
    }

    pub(super) fn poll_write_priv(
        &self,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let conn = self.conn;
        let polled = self
            .io
            .poll_op(cx, self.endpoint(), Readiness::WRITABLE, |net, now| {
                net.tcp_write(conn, buf, now)
            });
        self.assumed.note_poll(Readiness::WRITABLE, &polled);
        polled
    }

    pub(super) fn poll_write_vectored_priv(
        &self,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let conn = self.conn;
        let polled = self
            .io
            .poll_op(cx, self.endpoint(), Readiness::WRITABLE, |net, now| {
                net.tcp_write(conn, &gather(net, bufs), now)
            });
        self.assumed.note_poll(Readiness::WRITABLE, &polled);
        polled
    }
}

/// The bytes of `bufs`, in order, up to what one write can take (the send
/// buffer's size), so a vectored write is one write of their concatenation.
fn gather(net: &Net, bufs: &[io::IoSlice<'_>]) -> Vec<u8> {
    let limit = net.config().send_buffer;
    let mut data = Vec::with_capacity(bufs.iter().map(|b| b.len()).sum::<usize>().min(limit));
    for buf in bufs {
        let room = limit - data.len();
        if room == 0 {
            break;
        }
        data.extend_from_slice(&buf[..buf.len().min(room)]);
    }
    data
}

impl AsyncRead for TcpStream {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        self.poll_read_priv(cx, buf)
    }
}

impl AsyncWrite for TcpStream {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        self.poll_write_priv(cx, buf)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        self.poll_write_vectored_priv(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        true
    }

    fn poll_flush(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        // Written bytes are already in the send buffer: nothing to flush.
        Poll::Ready(Ok(()))
    }

    fn poll_shutdown(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(self.shutdown_std(Shutdown::Write))
    }
}

placeholder_fd_impls!(TcpStream, std::net::TcpStream);

impl AsRef<Self> for TcpStream {
    fn as_ref(&self) -> &Self {
        self
    }
}

impl fmt::Debug for TcpStream {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TcpStream")
            .field("conn", &self.conn)
            .field("host", &self.io.host())
            .finish_non_exhaustive()
    }
}

impl Drop for TcpStream {
    /// Closes the connection: gracefully (FIN after the bytes written, or
    /// RST if received bytes were left unread), or by an abort (RST) when
    /// `SO_LINGER` is zero.
    fn drop(&mut self) {
        let conn = self.conn;
        let linger = match self.fd.get() {
            Some(fd) => fd.linger().ok().flatten(),
            None => *self
                .linger
                .get_mut()
                .unwrap_or_else(PoisonError::into_inner),
        };
        let abort = linger.is_some_and(|d| d.is_zero());
        let kept = *self.handed_over.get_mut();
        if let Some(s) = self.fd.get() {
            use std::os::fd::AsRawFd;
            fd::forget_view(s.as_raw_fd());
        }
        if kept::any() {
            kept::forget(self.io.runtime(), conn);
        }
        self.io
            .close(self.endpoint(), |net, now| match (kept, abort) {
                (true, _) => {}
                (false, true) => net.tcp_abort(conn, now),
                (false, false) => net.tcp_close(conn, now),
            });
    }
}
