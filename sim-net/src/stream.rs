//! Ordered byte streams (TCP-like): handshake, FIFO delivery, flow control
//! and backpressure, half-close, reset.
//!
//! # The model
//!
//! Each side of a connection is an endpoint ([`ConnId`]) with a send side
//! and a receive side:
//!
//! ```text
//!  write ──► unsent ──(pump: peer window, MSS)──► segments in flight ──► peer recv_buf ──► read
//!            └───────────── send buffer: unsent + in_flight ─────────┘
//! ```
//!
//! - **Handshake** (1.5 round trips): `tcp_connect` sends a SYN. When it
//!   arrives at a listening port, the kernel creates the server endpoint,
//!   queues it for `accept` and answers SYN-ACK; when that arrives the
//!   client is connected. (The final ACK is folded into the SYN-ACK.) A SYN
//!   to a port with no listener, or to a listener whose backlog is full, is
//!   answered with RST: `ConnectionRefused`.
//! - **Segmentation**: bytes accepted by `write` wait in `unsent`; they are
//!   cut into segments of at most [`NetConfig::mss`](crate::NetConfig::mss)
//!   bytes, as far as the receiver's free buffer (its window) allows, right
//!   away, so one small write is one packet (no Nagle, no coalescing of
//!   writes already sent). When the reader frees space, the sender's
//!   waiting bytes go out at that instant: the window update is taken to be
//!   instantaneous, its latency folded into the segment's.
//! - **Backpressure**: `write` accepts at most the free send buffer
//!   (`send_buffer - unsent - in_flight`) and returns `WouldBlock` when it
//!   is full; it frees as segments are delivered. A slow reader therefore
//!   stalls the writer, never loses bytes.
//! - **FIFO**: segments of one direction form a flow; only its oldest
//!   segment is deliverable, and windows are clamped to be monotonic, so
//!   bytes arrive in order exactly once. Loss and duplication do not apply
//!   (see [`LinkConfig`](crate::LinkConfig)).
//! - **Half-close**: `shutdown(Write)` sends FIN after the unsent bytes; the
//!   peer reads its buffered bytes and then `Ok(0)`. Further writes are
//!   `BrokenPipe`. `shutdown(Read)` makes reads return `Ok(0)` once the
//!   buffer is drained and discards (while acknowledging) later data.
//! - **Close** (dropping the handle): like Linux, unsent bytes and FIN are
//!   still sent, unless unread bytes remain, in which case the connection is
//!   reset (RST). Data arriving at a closed endpoint is answered with RST.
//!   The endpoint is forgotten once both FINs are through, or on RST.
//! - **Reset** (`tcp_abort`, `SO_LINGER` 0): RST goes out behind the
//!   segments already in flight; unsent bytes are dropped. On receiving RST
//!   the first read or write returns `ConnectionReset` (`ConnectionRefused`
//!   during a connect; `BrokenPipe` if the peer's FIN was already received,
//!   as Linux reports `EPIPE` in `CLOSE_WAIT`, and then reads keep returning
//!   `Ok(0)`); bytes received before the RST can still be read first, then
//!   reads return `Ok(0)` and writes `BrokenPipe`. An RST from a kernel
//!   travels behind the segments its endpoint sent before it went away, so
//!   those are read first (Linux accepts an RST only at the expected
//!   sequence number). A segment for an endpoint that no longer exists is
//!   answered with RST, as the kernel does.
//!
//! # Invariants
//!
//! See [`Conn::check`]: a connecting endpoint has sent nothing; the send
//! buffer holds `unsent + in_flight <= send_capacity`; between two live
//! peers, `recv_buf + peer.in_flight <= recv_capacity` (the sender never
//! overruns the window); after FIN is sent nothing is unsent.

use std::collections::VecDeque;
use std::io;
use std::net::{Ipv6Addr, Shutdown, SocketAddr};
use std::time::Duration;

use crate::addr::{effective_dst, Proto};
use crate::packet::{Payload, Segment};
use crate::{error, ConnId, Endpoint, HostId, Net, Readiness};

/// Copies the first `out.len()` bytes of `q` into `out`.
fn copy_front(q: &VecDeque<u8>, out: &mut [u8]) {
    let (a, b) = q.as_slices();
    let n = out.len();
    let from_a = n.min(a.len());
    out[..from_a].copy_from_slice(&a[..from_a]);
    out[from_a..].copy_from_slice(&b[..n - from_a]);
}

/// Removes the first `n` bytes of `q` as one payload.
fn take_front(q: &mut VecDeque<u8>, n: usize) -> Payload {
    let (a, b) = q.as_slices();
    let from_a = n.min(a.len());
    let data = Payload::new(&a[..from_a], &b[..n - from_a]);
    q.drain(..n);
    data
}

/// The closed directions of a stream endpoint, as Linux's `poll` reports
/// them to epoll (and mio to tokio's `Ready`); see [`Net::tcp_hangup`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TcpHangup {
    /// `EPOLLRDHUP` or `EPOLLHUP`: the peer's FIN arrived, reading was shut
    /// down, or the connection is closed (reset or refused).
    pub read_closed: bool,
    /// `EPOLLHUP` or `EPOLLERR`: both directions are shut down (this side
    /// shut writing down and the peer's FIN arrived), the connection is
    /// closed, or an error is pending. Shutting writing down alone does not
    /// set it, as on Linux.
    pub write_closed: bool,
    /// `EPOLLERR`: an error (`ConnectionReset`...) is pending, not yet
    /// reported by a read or write.
    pub error: bool,
}

/// What reading an endpoint finds; see [`Conn::read_outcome`].
enum ReadOutcome {
    /// Buffered bytes.
    Bytes,
    /// End of stream.
    Eof,
    /// A pending error (reset, refused).
    Error(io::ErrorKind),
    /// Nothing yet: the read would block.
    Empty,
}

/// Connection state of one endpoint, as far as its user can tell.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ConnState {
    /// SYN sent, no answer yet.
    SynSent,
    /// Handshake done; each direction may still be half-closed.
    Open,
    /// Reset or refused: nothing more is sent or received.
    Closed,
}

/// One endpoint of a stream.
#[derive(Debug)]
pub(crate) struct Conn {
    pub(crate) host: HostId,
    pub(crate) local: SocketAddr,
    pub(crate) remote: SocketAddr,
    pub(crate) remote_host: HostId,
    /// The peer endpoint; `None` until the SYN-ACK arrives (client side).
    pub(crate) peer: Option<ConnId>,
    pub(crate) state: ConnState,
    /// Accepted by `write`, not yet sent (waiting for the peer's window).
    pub(crate) unsent: VecDeque<u8>,
    /// Data bytes of this endpoint's flow still in the network.
    pub(crate) in_flight: usize,
    pub(crate) send_capacity: usize,
    /// The app shut the write side down; FIN follows the unsent bytes.
    pub(crate) fin_pending: bool,
    pub(crate) fin_sent: bool,
    /// Our FIN reached the peer.
    pub(crate) fin_acked: bool,
    pub(crate) recv_buf: VecDeque<u8>,
    pub(crate) recv_capacity: usize,
    pub(crate) fin_received: bool,
    pub(crate) read_shutdown: bool,
    /// The error to report once, like the kernel's `SO_ERROR`.
    pub(crate) error: Option<io::ErrorKind>,
    /// The handle was dropped: the endpoint lives on only to finish sending.
    pub(crate) app_closed: bool,
    /// The peer's host stopped without telling us (see `host.rs`).
    pub(crate) peer_crashed: bool,
}

impl Conn {
    pub(crate) fn new(
        net: &Net,
        host: HostId,
        local: SocketAddr,
        remote: (HostId, SocketAddr),
    ) -> Conn {
        Conn {
            host,
            local,
            remote: remote.1,
            remote_host: remote.0,
            peer: None,
            state: ConnState::SynSent,
            unsent: VecDeque::new(),
            in_flight: 0,
            send_capacity: net.config.send_buffer,
            fin_pending: false,
            fin_sent: false,
            fin_acked: false,
            recv_buf: VecDeque::new(),
            recv_capacity: net.config.recv_buffer,
            fin_received: false,
            read_shutdown: false,
            error: None,
            app_closed: false,
            peer_crashed: false,
        }
    }

    /// What a read (or peek) of a non-empty buffer finds, in Linux's
    /// order: buffered bytes first; after the peer's FIN, end of stream
    /// even if an RST followed (its error is left for the next write);
    /// then a pending error; then end of stream once reading is shut down
    /// or the connection closed; else nothing yet.
    fn read_outcome(&self) -> ReadOutcome {
        if !self.recv_buf.is_empty() {
            ReadOutcome::Bytes
        } else if self.fin_received {
            ReadOutcome::Eof
        } else if let Some(e) = self.error {
            ReadOutcome::Error(e)
        } else if self.read_shutdown || self.state == ConnState::Closed {
            ReadOutcome::Eof
        } else {
            ReadOutcome::Empty
        }
    }

    fn send_space(&self) -> usize {
        self.send_capacity
            .saturating_sub(self.unsent.len() + self.in_flight)
    }

    pub(crate) fn readiness(&self) -> Readiness {
        let mut r = Readiness::EMPTY;
        let failed = self.state == ConnState::Closed || self.error.is_some();
        if failed || !self.recv_buf.is_empty() || self.fin_received || self.read_shutdown {
            r |= Readiness::READABLE;
        }
        if failed || self.fin_pending || (self.state == ConnState::Open && self.send_space() > 0) {
            r |= Readiness::WRITABLE;
        }
        r
    }

    /// Checks this endpoint's invariants (see the module docs).
    pub(crate) fn check(&self, id: ConnId, net: &Net) {
        assert!(
            self.unsent.len() + self.in_flight <= self.send_capacity,
            "{id}: send buffer overfull"
        );
        if self.state == ConnState::SynSent {
            assert!(
                self.peer.is_none() && self.unsent.is_empty() && self.in_flight == 0,
                "{id}: a connecting endpoint has sent data"
            );
        }
        if self.fin_sent {
            assert!(self.unsent.is_empty(), "{id}: bytes left unsent after FIN");
        }
        if let Some(peer) = self.peer.and_then(|p| net.conns.get(&p)) {
            if self.state == ConnState::Open && peer.peer == Some(id) {
                assert!(
                    self.recv_buf.len() + peer.in_flight <= self.recv_capacity,
                    "{id}: the peer overran the receive window"
                );
            }
        }
    }
}

impl Net {
    /// Starts connecting from `host` to `dst` at `now` (sends SYN); like a
    /// non-blocking `connect`. Poll [`Net::tcp_finish_connect`] when the
    /// endpoint becomes writable. The local address is the host's address
    /// of `dst`'s family (loopback for loopback) and an ephemeral port.
    ///
    /// # Errors
    ///
    /// `ConnectionRefused` if no host owns `dst`'s address;
    /// `AddrNotAvailable` if the host has no address of that family or no
    /// ephemeral port is free.
    ///
    /// A connect to a partitioned or stopped host does not fail: its SYN
    /// waits for the path to open (TCP retransmits it; the model has no
    /// connect timeout, the runtime's timers provide one).
    pub fn tcp_connect(
        &mut self,
        host: HostId,
        dst: SocketAddr,
        now: Duration,
    ) -> io::Result<ConnId> {
        self.observe(now);
        self.running(host);
        let dst = SocketAddr::new(effective_dst(dst.ip()), dst.port());
        let dst_host = self
            .route(host, dst.ip())
            .ok_or_else(|| error::no_route(dst.ip()))?;
        let src_ip = self.source_ip(host, Ipv6Addr::UNSPECIFIED.into(), dst.ip())?;
        let port = self.ephemeral_port(host, Proto::Tcp)?;
        let local = SocketAddr::new(src_ip, port);
        let id = self.ids.conn();
        let conn = Conn::new(self, host, local, (dst_host, dst));
        self.conns.insert(id, conn);
        self.send_segment(now, (host, local), (dst_host, dst), id, None, Segment::Syn);
        Ok(id)
    }

    /// The outcome of a connect: `Ok` once connected, `WouldBlock` while
    /// the handshake is in flight, `ConnectionRefused` (or the reset error)
    /// if it failed; the error is reported once.
    pub fn tcp_finish_connect(&mut self, conn: ConnId) -> io::Result<()> {
        let c = self.conn_mut(conn);
        match c.state {
            ConnState::SynSent => Err(error::would_block()),
            ConnState::Open => Ok(()),
            ConnState::Closed => Err(error::kind(
                c.error.take().unwrap_or(io::ErrorKind::NotConnected),
            )),
        }
    }

    /// Writes up to `data.len()` bytes at `now`; returns how many were
    /// accepted into the send buffer.
    ///
    /// # Errors
    ///
    /// `WouldBlock` if the send buffer is full or the connect is still in
    /// progress; the pending reset error (once); `BrokenPipe` after
    /// `shutdown(Write)` or on a reset connection.
    pub fn tcp_write(&mut self, conn: ConnId, data: &[u8], now: Duration) -> io::Result<usize> {
        self.observe(now);
        let c = self.conn_mut(conn);
        if let Some(e) = c.error.take() {
            return Err(error::kind(e));
        }
        match c.state {
            ConnState::Closed => return Err(error::kind(io::ErrorKind::BrokenPipe)),
            ConnState::SynSent => return Err(error::would_block()),
            ConnState::Open => {}
        }
        if c.fin_pending {
            return Err(error::kind(io::ErrorKind::BrokenPipe));
        }
        if data.is_empty() {
            return Ok(0);
        }
        let n = c.send_space().min(data.len());
        if n == 0 {
            return Err(error::would_block());
        }
        if c.unsent.is_empty() {
            // Nothing is waiting: segments go straight from `data`, as far
            // as the peer's window allows (what `pump` would send, without
            // passing through `unsent`).
            let sent = self.send_direct(conn, &data[..n], now);
            if sent < n {
                self.conn_mut(conn).unsent.extend(&data[sent..n]);
            }
        } else {
            c.unsent.extend(&data[..n]);
            self.pump(conn, now);
        }
        Ok(n)
    }

    /// Reads up to `buf.len()` bytes at `now` (reading frees window, which
    /// may let the peer send). `Ok(0)` is end of stream.
    ///
    /// # Errors
    ///
    /// `WouldBlock` if nothing is buffered and the stream is open; the
    /// pending reset or refusal error (once, after any bytes received
    /// before it).
    pub fn tcp_read(&mut self, conn: ConnId, buf: &mut [u8], now: Duration) -> io::Result<usize> {
        self.observe(now);
        let c = self.conn_mut(conn);
        if buf.is_empty() {
            return Ok(0);
        }
        match c.read_outcome() {
            ReadOutcome::Bytes => {
                let n = buf.len().min(c.recv_buf.len());
                copy_front(&c.recv_buf, &mut buf[..n]);
                c.recv_buf.drain(..n);
                if let Some(peer) = c.peer {
                    self.pump(peer, now);
                }
                Ok(n)
            }
            ReadOutcome::Eof => Ok(0),
            ReadOutcome::Error(e) => {
                c.error = None; // reported once
                Err(error::kind(e))
            }
            ReadOutcome::Empty => Err(error::would_block()),
        }
    }

    /// Copies buffered bytes without consuming them, like `TcpStream::peek`.
    /// Does not consume a pending error.
    pub fn tcp_peek(&self, conn: ConnId, buf: &mut [u8]) -> io::Result<usize> {
        let c = self.conn(conn);
        if buf.is_empty() {
            return Ok(0);
        }
        match c.read_outcome() {
            ReadOutcome::Bytes => {
                let n = buf.len().min(c.recv_buf.len());
                copy_front(&c.recv_buf, &mut buf[..n]);
                Ok(n)
            }
            ReadOutcome::Eof => Ok(0),
            ReadOutcome::Error(e) => Err(error::kind(e)),
            ReadOutcome::Empty => Err(error::would_block()),
        }
    }

    /// Shuts down one or both directions at `now` (`Write` sends FIN after
    /// the unsent bytes; idempotent).
    ///
    /// # Errors
    ///
    /// `NotConnected` if the connection is not established (connecting,
    /// reset or refused).
    pub fn tcp_shutdown(&mut self, conn: ConnId, how: Shutdown, now: Duration) -> io::Result<()> {
        self.observe(now);
        let c = self.conn_mut(conn);
        if c.state != ConnState::Open {
            return Err(error::kind(io::ErrorKind::NotConnected));
        }
        if matches!(how, Shutdown::Read | Shutdown::Both) {
            c.read_shutdown = true;
        }
        if matches!(how, Shutdown::Write | Shutdown::Both) && !c.fin_pending {
            c.fin_pending = true;
            self.pump(conn, now);
        }
        Ok(())
    }

    /// Closes the handle at `now` (dropping a `TcpStream`): graceful (FIN
    /// after the unsent bytes) unless unread bytes remain, then RST. A no-op
    /// for an endpoint that no longer exists (e.g. its host was reset).
    pub fn tcp_close(&mut self, conn: ConnId, now: Duration) {
        self.observe(now);
        let Some(c) = self.conns.get_mut(&conn) else {
            return;
        };
        match c.state {
            _ if c.app_closed => {}
            ConnState::SynSent | ConnState::Closed => {
                self.conns.remove(&conn);
            }
            ConnState::Open if !c.recv_buf.is_empty() => self.tcp_abort(conn, now),
            ConnState::Open => {
                c.app_closed = true;
                c.fin_pending = true;
                self.pump(conn, now);
                self.gc(conn);
            }
        }
    }

    /// Resets the connection at `now` (`SO_LINGER` 0 then drop): drops
    /// unsent bytes, sends RST behind what is in flight, forgets the
    /// endpoint. A no-op for an endpoint that no longer exists.
    pub fn tcp_abort(&mut self, conn: ConnId, now: Duration) {
        self.observe(now);
        let Some(c) = self.conns.remove(&conn) else {
            return;
        };
        if c.state == ConnState::Open {
            self.send_segment(
                now,
                (c.host, c.local),
                (c.remote_host, c.remote),
                conn,
                c.peer,
                Segment::Rst,
            );
        }
    }

    /// The endpoint's local address.
    pub fn tcp_local_addr(&self, conn: ConnId) -> io::Result<SocketAddr> {
        Ok(self.conn(conn).local)
    }

    /// The peer's address.
    ///
    /// # Errors
    ///
    /// `NotConnected` while connecting or after a reset, like `getpeername`.
    pub fn tcp_peer_addr(&self, conn: ConnId) -> io::Result<SocketAddr> {
        let c = self.conn(conn);
        if c.state == ConnState::Open {
            Ok(c.remote)
        } else {
            Err(error::kind(io::ErrorKind::NotConnected))
        }
    }

    /// Takes the bytes each open stream endpoint (its handle not closed)
    /// has received and not read, in endpoint order: what a runtime ending
    /// keeps for the handles that outlive it, as a kernel keeps a socket's
    /// queue while its descriptor is open.
    pub fn tcp_drain_unread(&mut self) -> Vec<(ConnId, Vec<u8>)> {
        let ids: Vec<ConnId> = self
            .conns
            .iter()
            .filter(|(_, c)| !c.app_closed && !c.recv_buf.is_empty())
            .map(|(id, _)| id)
            .collect();
        ids.into_iter()
            .map(|id| (id, self.conn_mut(id).recv_buf.drain(..).collect()))
            .collect()
    }

    /// Which directions of `conn` are closed, and whether an error is
    /// pending, as Linux's `poll` reports them (what mio's `Event` calls
    /// read closed, write closed and error); `None` once the endpoint is
    /// forgotten. See [`TcpHangup`].
    pub fn tcp_hangup(&self, conn: ConnId) -> Option<TcpHangup> {
        let c = self.conns.get(&conn)?;
        let read_shut = c.fin_received || c.read_shutdown;
        // `EPOLLHUP`: both directions shut down, or the connection closed
        // (reset, refused).
        let hup = c.state == ConnState::Closed || (c.fin_pending && read_shut);
        Some(TcpHangup {
            read_closed: hup || read_shut,
            write_closed: hup || c.error.is_some(),
            error: c.error.is_some(),
        })
    }

    /// The host an endpoint belongs to, or `None` once it is forgotten.
    pub fn tcp_host(&self, conn: ConnId) -> Option<HostId> {
        self.conns.get(&conn).map(|c| c.host)
    }

    fn conn(&self, conn: ConnId) -> &Conn {
        self.conns.get(&conn).unwrap_or_else(|| {
            panic!("{conn} used after tcp_close/tcp_abort or after its host stopped")
        })
    }

    fn conn_mut(&mut self, conn: ConnId) -> &mut Conn {
        self.conns.get_mut(&conn).unwrap_or_else(|| {
            panic!("{conn} used after tcp_close/tcp_abort or after its host stopped")
        })
    }

    /// Sends as much of `conn`'s unsent bytes as the peer's window allows,
    /// then FIN if the write side is shut and everything is sent.
    fn pump(&mut self, conn: ConnId, now: Duration) {
        let Some(c) = self.conns.get(&conn) else {
            return;
        };
        if c.state != ConnState::Open || (c.unsent.is_empty() && (!c.fin_pending || c.fin_sent)) {
            return;
        }
        let mut window = self.window(c);
        let mss = self.config.mss;
        let mut c = self.conns.get_mut(&conn).expect("looked up above");
        let (src, dst, peer) = ((c.host, c.local), (c.remote_host, c.remote), c.peer);
        while window > 0 && !c.unsent.is_empty() {
            let n = mss.min(window).min(c.unsent.len());
            let data = take_front(&mut c.unsent, n);
            c.in_flight += n;
            window -= n;
            self.send_segment(now, src, dst, conn, peer, Segment::Data(data));
            c = self
                .conns
                .get_mut(&conn)
                .expect("sending keeps the endpoint");
        }
        let fin = c.fin_pending && !c.fin_sent && c.unsent.is_empty();
        c.fin_sent |= fin;
        if fin {
            self.send_segment(now, src, dst, conn, peer, Segment::Fin);
        }
    }

    /// How many more bytes endpoint `c` may send now: the peer's free
    /// receive buffer less what is already in flight to it.
    fn window(&self, c: &Conn) -> usize {
        let free = match c.peer.and_then(|p| self.conns.get(&p)) {
            Some(r) => r.recv_capacity.saturating_sub(r.recv_buf.len()),
            None => self.config.recv_buffer,
        };
        free.saturating_sub(c.in_flight)
    }

    /// Sends a prefix of `data` from open endpoint `conn`, which has nothing
    /// unsent, in segments of at most MSS bytes, as far as the window
    /// allows; returns how many bytes went out (the caller queues the
    /// rest). The same segments `pump` would cut from `unsent`.
    fn send_direct(&mut self, conn: ConnId, data: &[u8], now: Duration) -> usize {
        let c = self.conn(conn);
        debug_assert!(c.state == ConnState::Open && c.unsent.is_empty());
        let total = self.window(c).min(data.len());
        let (src, dst, peer) = ((c.host, c.local), (c.remote_host, c.remote), c.peer);
        let mss = self.config.mss;
        for chunk in data[..total].chunks(mss) {
            self.conn_mut(conn).in_flight += chunk.len();
            let seg = Segment::Data(Payload::new(chunk, &[]));
            self.send_segment(now, src, dst, conn, peer, seg);
        }
        total
    }

    /// Forgets a closed endpoint once nothing more can happen to it.
    fn gc(&mut self, conn: ConnId) {
        if self.conns.get(&conn).is_some_and(|c| {
            c.app_closed && (c.state == ConnState::Closed || (c.fin_received && c.fin_acked))
        }) {
            self.conns.remove(&conn);
        }
    }

    /// Answers a segment with RST from the kernel, on behalf of `dead`,
    /// the endpoint (gone or going) the segment was addressed to.
    ///
    /// The RST joins `dead`'s flow, behind whatever that endpoint sent
    /// before it went away: its sequence number follows them, so the peer
    /// (which, like Linux, accepts an RST only at the expected sequence
    /// number) processes them first. Without an endpoint (a refused SYN),
    /// the RST is a flow of its own.
    pub(crate) fn reply_rst(
        &mut self,
        now: Duration,
        from: (HostId, SocketAddr),
        to: (HostId, SocketAddr),
        dead: Option<ConnId>,
        conn: ConnId,
    ) {
        let flow = dead.unwrap_or_else(|| self.ids.conn());
        self.send_segment(now, from, to, flow, Some(conn), Segment::Rst);
    }

    /// The receiving kernel processes a stream segment.
    pub(crate) fn on_segment(
        &mut self,
        now: Duration,
        src: (HostId, SocketAddr),
        dst: (HostId, SocketAddr),
        from: ConnId,
        to: Option<ConnId>,
        seg: Segment,
    ) {
        let Some(to) = to else {
            debug_assert!(matches!(seg, Segment::Syn), "only a SYN has no receiver");
            return self.on_syn(now, src, dst, from);
        };
        match seg {
            // The sender's buffer freed when the packet left the network.
            // Only a full buffer has writers waiting (a writer waits only
            // after finding no space), so only that change is announced.
            Segment::Data(ref d)
                if self
                    .conns
                    .get(&from)
                    .is_some_and(|s| s.send_space() <= d.as_slice().len()) =>
            {
                self.wake(Endpoint::Conn(from), Readiness::WRITABLE);
            }
            Segment::Fin => {
                if let Some(s) = self.conns.get_mut(&from) {
                    s.fin_acked = true;
                }
                self.gc(from);
            }
            _ => {}
        }
        let Some(c) = self.conns.get_mut(&to) else {
            if !matches!(seg, Segment::Rst) {
                self.reply_rst(now, dst, src, Some(to), from);
            }
            return;
        };
        if c.state == ConnState::Closed {
            return;
        }
        match seg {
            Segment::Syn => unreachable!("a SYN has no receiving endpoint"),
            Segment::SynAck => {
                if c.state == ConnState::SynSent {
                    c.state = ConnState::Open;
                    c.peer = Some(from);
                    self.wake(Endpoint::Conn(to), Readiness::WRITABLE);
                }
            }
            Segment::Data(data) => {
                if c.app_closed {
                    // Linux answers data for a closed socket with RST.
                    self.conns.remove(&to);
                    self.reply_rst(now, dst, src, Some(to), from);
                } else if c.read_shutdown {
                    // Discarded, but acknowledged: the window stays open.
                    self.pump(from, now);
                } else {
                    c.recv_buf.extend(data.as_slice());
                    debug_assert!(
                        c.recv_buf.len() <= c.recv_capacity,
                        "the window was respected"
                    );
                    self.wake(Endpoint::Conn(to), Readiness::READABLE);
                }
            }
            Segment::Fin => {
                c.fin_received = true;
                self.wake(Endpoint::Conn(to), Readiness::READABLE);
                self.gc(to);
            }
            Segment::Rst => {
                c.error = Some(match c.state {
                    ConnState::SynSent => io::ErrorKind::ConnectionRefused,
                    _ if c.fin_received && !c.fin_pending => io::ErrorKind::BrokenPipe,
                    _ => io::ErrorKind::ConnectionReset,
                });
                c.state = ConnState::Closed;
                c.unsent.clear();
                if c.app_closed {
                    self.conns.remove(&to);
                } else {
                    self.wake(Endpoint::Conn(to), Readiness::BOTH);
                }
            }
        }
    }

    /// A SYN arrives at `dst`: accept into a listener's queue or refuse.
    fn on_syn(
        &mut self,
        now: Duration,
        src: (HostId, SocketAddr),
        dst: (HostId, SocketAddr),
        client: ConnId,
    ) {
        let listener = self
            .find_listener(dst.0, dst.1)
            .filter(|l| self.listeners[l].queue.len() < self.listeners[l].backlog);
        let Some(l) = listener else {
            return self.reply_rst(now, dst, src, None, client);
        };
        let id = self.ids.conn();
        let mut conn = Conn::new(self, dst.0, dst.1, src);
        conn.state = ConnState::Open;
        conn.peer = Some(client);
        self.conns.insert(id, conn);
        self.listeners
            .get_mut(&l)
            .expect("found above")
            .queue
            .push_back(id);
        self.send_segment(now, dst, src, id, Some(client), Segment::SynAck);
        self.wake(Endpoint::Listener(l), Readiness::READABLE);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Event, NetConfig, PacketKind};
    use std::net::IpAddr;

    const T0: Duration = Duration::ZERO;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    use crate::net::settle;

    struct Pair {
        net: Net,
        client: ConnId,
        server: ConnId,
        now: Duration,
    }

    fn pair(config: NetConfig) -> Pair {
        let mut net = Net::new(config);
        let a = net.add_host("a", []);
        let b = net.add_host("b", []);
        let l = net.tcp_listen(b, "0.0.0.0:80".parse().unwrap()).unwrap();
        let client = net
            .tcp_connect(a, "10.0.0.2:80".parse().unwrap(), T0)
            .unwrap();
        assert_eq!(
            net.tcp_finish_connect(client).unwrap_err().kind(),
            io::ErrorKind::WouldBlock
        );
        let now = settle(&mut net, T0);
        net.tcp_finish_connect(client).unwrap();
        let (server, peer) = net.tcp_accept(l).unwrap();
        assert_eq!(peer, net.tcp_local_addr(client).unwrap());
        assert_eq!(net.tcp_peer_addr(server).unwrap(), peer);
        Pair {
            net,
            client,
            server,
            now,
        }
    }

    fn read_all(net: &mut Net, conn: ConnId, now: Duration) -> Vec<u8> {
        let mut out = Vec::new();
        let mut buf = [0u8; 1000];
        while let Ok(n) = net.tcp_read(conn, &mut buf, now) {
            if n == 0 {
                break;
            }
            out.extend_from_slice(&buf[..n]);
        }
        out
    }

    #[test]
    fn connect_accept_write_read() {
        let Pair {
            mut net,
            client,
            server,
            now,
        } = pair(NetConfig::default());
        assert_eq!(
            net.tcp_local_addr(client).unwrap(),
            "10.0.0.1:49152".parse().unwrap()
        );
        assert_eq!(net.tcp_write(client, b"hello", now).unwrap(), 5);
        let mut buf = [0u8; 16];
        assert_eq!(
            net.tcp_read(server, &mut buf, now).unwrap_err().kind(),
            io::ErrorKind::WouldBlock
        );
        net.drain_events().for_each(drop);
        let now = settle(&mut net, now);
        assert!(net.drain_events().any(|e| e
            == Event::Ready {
                endpoint: Endpoint::Conn(server),
                readiness: Readiness::READABLE
            }));
        assert_eq!(net.tcp_peek(server, &mut buf).unwrap(), 5);
        assert_eq!(net.tcp_read(server, &mut buf, now).unwrap(), 5);
        assert_eq!(&buf[..5], b"hello");
    }

    #[test]
    fn unannounced_segments_queue_no_sent_event() {
        let sent = |net: &mut Net| {
            net.drain_events()
                .filter(|e| matches!(e, Event::Sent { .. }))
                .count()
        };
        let Pair {
            mut net,
            client,
            server,
            now,
        } = pair(NetConfig::default());
        net.drain_events().for_each(drop);
        net.tcp_write(client, b"one", now).unwrap();
        assert_eq!(sent(&mut net), 1, "announced by default");
        net.announce_segments(false);
        net.tcp_write(server, b"two", now).unwrap();
        assert_eq!(sent(&mut net), 0);
        assert_eq!(net.packet_count(), 2, "the segment was still sent");
        // Datagrams are always announced: they have faults to choose.
        let host = net.tcp_host(client).unwrap();
        let a = net.udp_bind(host, "0.0.0.0:9".parse().unwrap()).unwrap();
        net.udp_send_to(a, "10.0.0.2:9".parse().unwrap(), b"three", now)
            .unwrap();
        assert_eq!(sent(&mut net), 1);
    }

    #[test]
    fn refused_without_listener() {
        let mut net = Net::default();
        let a = net.add_host("a", []);
        net.add_host("b", []);
        let c = net
            .tcp_connect(a, "10.0.0.2:81".parse().unwrap(), T0)
            .unwrap();
        let now = settle(&mut net, T0);
        assert_eq!(
            net.tcp_finish_connect(c).unwrap_err().kind(),
            io::ErrorKind::ConnectionRefused
        );
        // Reported once; the endpoint is dead afterwards.
        assert_eq!(
            net.tcp_write(c, b"x", now).unwrap_err().kind(),
            io::ErrorKind::BrokenPipe
        );
        assert_eq!(
            net.tcp_connect(a, "10.9.9.9:80".parse().unwrap(), now)
                .unwrap_err()
                .kind(),
            io::ErrorKind::ConnectionRefused
        );
    }

    #[test]
    fn loopback_and_localhost_connect() {
        let mut net = Net::default();
        let a = net.add_host("a", []);
        let l = net.tcp_listen(a, "[::]:0".parse().unwrap()).unwrap();
        let port = net.tcp_listener_addr(l).unwrap().port();
        let c = net
            .tcp_connect(a, SocketAddr::new(IpAddr::from([127, 0, 0, 1]), port), T0)
            .unwrap();
        // Loopback has a zero-length window: deliverable now.
        assert_eq!(net.latest_arrival(), Some(T0));
        settle(&mut net, T0);
        net.tcp_finish_connect(c).unwrap();
        let (_, peer) = net.tcp_accept(l).unwrap();
        assert!(peer.ip().is_loopback());
    }

    #[test]
    fn half_close_delivers_eof_after_data() {
        let Pair {
            mut net,
            client,
            server,
            now,
        } = pair(NetConfig::default());
        net.tcp_write(client, b"abc", now).unwrap();
        net.tcp_shutdown(client, Shutdown::Write, now).unwrap();
        assert_eq!(
            net.tcp_write(client, b"d", now).unwrap_err().kind(),
            io::ErrorKind::BrokenPipe
        );
        let now = settle(&mut net, now);
        assert_eq!(read_all(&mut net, server, now), b"abc");
        let mut buf = [0u8; 4];
        assert_eq!(net.tcp_read(server, &mut buf, now).unwrap(), 0);
        // The other direction still works.
        net.tcp_write(server, b"back", now).unwrap();
        let now = settle(&mut net, now);
        assert_eq!(read_all(&mut net, client, now), b"back");
        // Both close: both endpoints are forgotten.
        net.tcp_close(server, now);
        net.tcp_close(client, now);
        settle(&mut net, now);
        assert!(net.tcp_host(client).is_none() && net.tcp_host(server).is_none());
        assert!(net.packets().next().is_none());
    }

    #[test]
    fn a_delivery_announces_write_space_only_to_a_full_buffer() {
        let writable = |net: &mut Net, conn| {
            net.drain_events().any(|e| {
                e == Event::Ready {
                    endpoint: Endpoint::Conn(conn),
                    readiness: Readiness::WRITABLE,
                }
            })
        };
        let Pair {
            mut net,
            client,
            now,
            ..
        } = pair(NetConfig {
            mss: 4,
            send_buffer: 8,
            ..NetConfig::default()
        });
        // Space left while the segment is in flight: no writer can be
        // waiting, and its delivery announces nothing.
        assert_eq!(net.tcp_write(client, &[1; 4], now).unwrap(), 4);
        net.drain_events().for_each(drop);
        let now = settle(&mut net, now);
        assert!(!writable(&mut net, client));
        // A full buffer: the delivery that frees space announces it.
        assert_eq!(net.tcp_write(client, &[2; 20], now).unwrap(), 8);
        assert!(!net.readiness(Endpoint::Conn(client)).is_writable());
        net.drain_events().for_each(drop);
        settle(&mut net, now);
        assert!(writable(&mut net, client));
    }

    #[test]
    fn backpressure_blocks_writer_until_reader_reads() {
        let Pair {
            mut net,
            client,
            server,
            now,
        } = pair(NetConfig {
            mss: 4,
            send_buffer: 10,
            recv_buffer: 8,
            ..NetConfig::default()
        });
        assert_eq!(net.tcp_write(client, &[1; 30], now).unwrap(), 10);
        assert_eq!(
            net.tcp_write(client, &[1], now).unwrap_err().kind(),
            io::ErrorKind::WouldBlock
        );
        // Only the receive window (8 bytes) is in flight, in two segments.
        let data: Vec<usize> = net
            .packets()
            .filter(|(_, p)| p.kind() == PacketKind::Data)
            .map(|(_, p)| p.payload().len())
            .collect();
        assert_eq!(data, vec![4, 4]);
        let now = settle(&mut net, now);
        // Delivered bytes left the send buffer: 8 bytes of space again.
        assert!(net.readiness(Endpoint::Conn(client)).is_writable());
        assert_eq!(net.tcp_write(client, &[2; 30], now).unwrap(), 8);
        // The receive window is full, so nothing more is in flight.
        assert_eq!(net.packets().count(), 0);
        let mut buf = [0u8; 3];
        assert_eq!(net.tcp_read(server, &mut buf, now).unwrap(), 3);
        // Reading opened 3 bytes of window: one segment went out at once.
        assert_eq!(
            net.packets().map(|(_, p)| p.payload().len()).sum::<usize>(),
            3
        );
        // Reading and delivering alternately drains all 18 bytes, in order.
        let mut got = buf.to_vec();
        let mut now = now;
        while got.len() < 18 {
            now = settle(&mut net, now);
            got.extend(read_all(&mut net, server, now));
        }
        let mut expected = vec![1u8; 10];
        expected.extend([2u8; 8]);
        assert_eq!(got, expected);
    }

    #[test]
    fn close_with_unread_data_resets_peer() {
        let Pair {
            mut net,
            client,
            server,
            now,
        } = pair(NetConfig::default());
        net.tcp_write(client, b"unread", now).unwrap();
        let now = settle(&mut net, now);
        net.tcp_close(server, now);
        let now = settle(&mut net, now);
        let mut buf = [0u8; 4];
        assert_eq!(
            net.tcp_read(client, &mut buf, now).unwrap_err().kind(),
            io::ErrorKind::ConnectionReset
        );
        assert_eq!(net.tcp_read(client, &mut buf, now).unwrap(), 0);
        assert_eq!(
            net.tcp_write(client, b"x", now).unwrap_err().kind(),
            io::ErrorKind::BrokenPipe
        );
    }

    #[test]
    fn data_to_closed_endpoint_is_answered_with_rst() {
        let Pair {
            mut net,
            client,
            server,
            now,
        } = pair(NetConfig::default());
        net.tcp_close(server, now);
        let now = settle(&mut net, now);
        let mut buf = [0u8; 4];
        assert_eq!(net.tcp_read(client, &mut buf, now).unwrap(), 0);
        // Peer closed; we write anyway: the dead endpoint answers RST.
        net.tcp_write(client, b"late", now).unwrap();
        let now = settle(&mut net, now);
        // FIN was received before the RST: Linux reports EPIPE.
        assert_eq!(
            net.tcp_write(client, b"x", now).unwrap_err().kind(),
            io::ErrorKind::BrokenPipe
        );
        assert!(net.tcp_host(server).is_none());
    }

    #[test]
    fn kernel_rst_follows_the_dead_endpoints_last_segments() {
        let Pair {
            mut net,
            client,
            server,
            now,
        } = pair(NetConfig::default());
        net.tcp_write(server, b"bye", now).unwrap();
        net.tcp_close(server, now);
        net.tcp_write(client, b"x", now).unwrap();
        // Deliver the client's byte first: the closed server answers RST.
        let x = net
            .packets()
            .find(|(_, p)| p.flow() == Some(client))
            .unwrap()
            .0;
        let t = net.packet(x).unwrap().window().unwrap().earliest;
        net.deliver(x, t);
        assert!(net.tcp_host(server).is_none());
        // "bye", FIN and RST are one flow, in that order.
        let kinds: Vec<PacketKind> = net.packets().map(|(_, p)| p.kind()).collect();
        assert_eq!(
            kinds,
            vec![PacketKind::Data, PacketKind::Fin, PacketKind::Rst]
        );
        let now = settle(&mut net, t);
        let mut buf = [0u8; 8];
        assert_eq!(net.tcp_read(client, &mut buf, now).unwrap(), 3);
        assert_eq!(net.tcp_read(client, &mut buf, now).unwrap(), 0);
        assert_eq!(
            net.tcp_write(client, b"y", now).unwrap_err().kind(),
            io::ErrorKind::BrokenPipe
        );
    }

    #[test]
    fn abort_delivers_inflight_data_then_reset() {
        let Pair {
            mut net,
            client,
            server,
            now,
        } = pair(NetConfig::default());
        net.tcp_write(client, b"last words", now).unwrap();
        net.tcp_abort(client, now);
        let now = settle(&mut net, now);
        let mut buf = [0u8; 64];
        assert_eq!(net.tcp_read(server, &mut buf, now).unwrap(), 10);
        assert_eq!(
            net.tcp_read(server, &mut buf, now).unwrap_err().kind(),
            io::ErrorKind::ConnectionReset
        );
        // Closing a forgotten endpoint is a no-op.
        net.tcp_close(client, now);
        net.tcp_abort(client, now);
    }

    #[test]
    fn closing_a_connecting_endpoint_resets_the_accepted_side() {
        let mut net = Net::default();
        let a = net.add_host("a", []);
        let b = net.add_host("b", []);
        let l = net.tcp_listen(b, "10.0.0.2:80".parse().unwrap()).unwrap();
        let c = net
            .tcp_connect(a, "10.0.0.2:80".parse().unwrap(), T0)
            .unwrap();
        net.tcp_close(c, T0);
        let now = settle(&mut net, T0);
        let (s, _) = net.tcp_accept(l).unwrap();
        let mut buf = [0u8; 4];
        assert_eq!(
            net.tcp_read(s, &mut buf, now).unwrap_err().kind(),
            io::ErrorKind::ConnectionReset
        );
    }

    #[test]
    fn segments_are_capped_at_mss_and_windows_are_fifo() {
        let Pair {
            mut net,
            client,
            now,
            ..
        } = pair(NetConfig {
            mss: 3,
            ..NetConfig::default()
        });
        net.tcp_write(client, b"abcdefgh", now).unwrap();
        let segs: Vec<_> = net
            .packets()
            .map(|(id, p)| (id, p.window().unwrap()))
            .collect();
        assert_eq!(segs.len(), 3);
        for pair in segs.windows(2) {
            assert!(pair[0].1.earliest <= pair[1].1.earliest);
            assert!(pair[0].1.latest <= pair[1].1.latest);
        }
        // Only the oldest segment is deliverable, even with all windows open.
        let open = net.next_deliverable_at(now).unwrap();
        assert_eq!(net.deliverable(open), vec![segs[0].0]);
        assert_eq!(
            net.deliverable(ms(1000).min(net.latest_arrival().unwrap())),
            vec![segs[0].0]
        );
    }

    #[test]
    #[should_panic(expected = "oldest undelivered segment")]
    fn delivering_out_of_order_panics() {
        let Pair {
            mut net,
            client,
            now,
            ..
        } = pair(NetConfig {
            mss: 1,
            ..NetConfig::default()
        });
        net.tcp_write(client, b"ab", now).unwrap();
        let second = net.packets().nth(1).unwrap().0;
        let t = net.latest_arrival().unwrap();
        net.deliver(second, t);
    }

    #[test]
    fn shutdown_read_discards_later_data() {
        let Pair {
            mut net,
            client,
            server,
            now,
        } = pair(NetConfig::default());
        net.tcp_shutdown(server, Shutdown::Read, now).unwrap();
        net.tcp_write(client, b"ignored", now).unwrap();
        let now = settle(&mut net, now);
        let mut buf = [0u8; 8];
        assert_eq!(net.tcp_read(server, &mut buf, now).unwrap(), 0);
        // The writer's buffer was freed all the same.
        assert_eq!(net.tcp_write(client, &[0; 100], now).unwrap(), 100);
    }
}
