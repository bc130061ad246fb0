//! Unix domain sockets (`AF_UNIX`): streams, listeners and datagram
//! sockets between the processes of one host, as Linux's kernel keeps them.
//!
//! A Unix socket never crosses a link: a write copies the bytes into the
//! peer's receive queue at once, so there are no packets, no deliveries
//! and no faults but the host's own crash. The runtime calls these as the
//! program makes the system calls (`socket`, `bind`, `listen`, `connect`,
//! `accept`, `read`, `write`, `sendto`, `recvfrom`, `shutdown`, `close`,
//! `socketpair`); every call is non-blocking, and the [`Event::Ready`]
//! wakeups are queued as for the other endpoints.
//!
//! | situation | result |
//! |---|---|
//! | read, nothing queued, peer still open | `WouldBlock` |
//! | read, nothing queued, peer shut its writing down or closed | `Ok(0)` |
//! | read after the peer closed with bytes of ours unread, or after the listener closed without accepting us | `ConnectionReset` once, then `Ok(0)` (Linux's `sk_err`) |
//! | write after our `shutdown(Write)`, the peer's `shutdown(Read)` or its close | `BrokenPipe` |
//! | write, the peer's receive queue full ([`STREAM_QUEUE`] bytes) | `WouldBlock` |
//! | connect to a name nothing is bound to (a stale socket file, a free abstract name) | `ConnectionRefused` |
//! | connect, the listener's backlog full | `WouldBlock` (Linux's `EAGAIN`) |
//! | connect to a socket of the other type | `ConnectionRefused` (Linux: `EPROTOTYPE`) |
//! | bind to a name in use | `AddrInUse` |
//! | bind of a bound socket, listen on a datagram socket | `InvalidInput` |
//! | datagram send, the receiver's queue full | `WouldBlock` |
//! | datagram send without a destination, shutdown of an unconnected socket | `NotConnected` |
//! | datagram send to a connected peer that closed | `ConnectionRefused` |
//!
//! A datagram receiver's queue is full when it holds more than
//! [`DGRAM_QUEUE`] datagrams from senders it is not connected back to
//! (Linux's `net.unix.max_dgram_qlen`), or when the sender has
//! [`DGRAM_SEND_BUFFER`] bytes, counted with [`DGRAM_OVERHEAD`] each,
//! waiting unread (its `SO_SNDBUF`).
//!
//! # Names
//!
//! A socket is unnamed, bound to a path, or bound to an abstract name
//! ([`UnixName`]). A path socket has an entry on its host's disk, which the
//! runtime creates; the model knows it by the entry's inode number, so a
//! path whose socket file was removed and bound again reaches the new
//! socket, and a socket file whose socket closed (or whose host crashed)
//! refuses connections, as on Linux. Listening on or connecting from an
//! unbound socket binds it to an abstract name of five hex digits first
//! (Linux's autobind).
//!
//! # Crashes
//!
//! All the sockets of a host belong to its processes, so a stopped host
//! loses all of them and their names (`Net::stop_host`); no other host
//! notices.
//!
//! # Invariants
//!
//! - A stream's `peer` names a stream of the same host, whose `peer` names
//!   it back, or is `None` once either side closed.
//! - `names` maps each bound name to the live socket bound to it, and every
//!   bound live socket's name is there.
//! - A datagram sender's `unread` is the sum of the charges of its
//!   datagrams still queued at live receivers.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::io::{Error, ErrorKind, Result};
use std::net::Shutdown;
use std::path::PathBuf;

use crate::error;
use crate::event::{Endpoint, Readiness};
use crate::{HostId, Net, UnixId};

/// The bytes a stream's receive queue holds before the writer must wait
/// (Linux's default socket buffer, `net.core.wmem_default`).
pub const STREAM_QUEUE: usize = 212_992;

/// The datagrams a receiver queues from senders it is not connected back
/// to before they must wait (Linux's `net.unix.max_dgram_qlen`, full when
/// the queue is longer).
pub const DGRAM_QUEUE: usize = 10;

/// A datagram sender's send buffer (`SO_SNDBUF`'s default), against which
/// its unread datagrams count.
pub const DGRAM_SEND_BUFFER: usize = 212_992;

/// What a queued datagram counts against its sender's buffer beyond its
/// bytes (the kernel's buffer head, about Linux's `skb` truesize).
pub const DGRAM_OVERHEAD: usize = 768;

/// The backlog a listener gets when none is given (tokio and std: 1024;
/// Linux caps it at `net.core.somaxconn`, 4096).
pub const DEFAULT_BACKLOG: usize = 1024;

/// A socket's type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnixType {
    /// `SOCK_STREAM`: a connected byte stream.
    Stream,
    /// `SOCK_DGRAM`: datagrams with boundaries, reliable and in order.
    Datagram,
}

/// A Unix socket's address.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum UnixName {
    /// No name (an unbound socket, the client end of a connection, either
    /// end of a pair).
    Unnamed,
    /// A path, and the inode number of its socket file on the host's disk.
    Path(PathBuf, u64),
    /// A name in the abstract namespace (without the leading NUL byte).
    Abstract(Vec<u8>),
}

impl UnixName {
    /// The key the name is bound under: a path by its socket file.
    fn key(&self) -> Option<Key> {
        match self {
            UnixName::Unnamed => None,
            UnixName::Path(_, ino) => Some(Key::Path(*ino)),
            UnixName::Abstract(name) => Some(Key::Abstract(name.clone())),
        }
    }
}

/// What a name is bound under, per host.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Key {
    Path(u64),
    Abstract(Vec<u8>),
}

/// The credentials of the process that made a socket (`SO_PEERCRED`
/// reports the peer's, taken when the connection was made).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct UnixCred {
    /// The process id.
    pub pid: i32,
    /// The user id.
    pub uid: u32,
    /// The group id.
    pub gid: u32,
}

/// What `poll` reports beyond readable and writable, as
/// [`TcpHangup`](crate::TcpHangup) does for TCP.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UnixHangup {
    /// Nothing more will arrive (`EPOLLRDHUP`).
    pub read_closed: bool,
    /// Both directions are shut down (`EPOLLHUP`).
    pub write_closed: bool,
    /// An error is pending (`EPOLLERR`).
    pub error: bool,
}

#[derive(Debug)]
pub(crate) struct UnixSock {
    host: HostId,
    ty: UnixType,
    name: UnixName,
    cred: UnixCred,
    state: State,
    /// Nothing more will be received: reads return `Ok(0)` once the queue
    /// is empty (`RCV_SHUTDOWN`).
    rcv_shut: bool,
    /// Nothing more may be sent: writes fail with `BrokenPipe`
    /// (`SEND_SHUTDOWN`).
    snd_shut: bool,
    /// The pending error, reported once.
    error: Option<ErrorKind>,
}

#[derive(Debug)]
enum State {
    /// Made by `socket`, not yet listening or connected.
    Fresh,
    Listening {
        backlog: usize,
        /// Connections made and not yet accepted: the server ends.
        queue: VecDeque<UnixId>,
    },
    Stream {
        /// `None` once the peer closed.
        peer: Option<UnixId>,
        peer_name: UnixName,
        peer_cred: UnixCred,
        recv: VecDeque<u8>,
    },
    Datagram {
        /// The connected peer, if any, and its name.
        peer: Option<(UnixId, UnixName)>,
        /// Whether the connected peer closed.
        peer_gone: bool,
        recv: VecDeque<Dgram>,
        /// Charged bytes of this socket's datagrams still queued.
        unread: usize,
        /// Senders that found this socket's queue full.
        blocked: BTreeSet<UnixId>,
    },
}

#[derive(Debug)]
struct Dgram {
    from: UnixId,
    from_name: UnixName,
    data: Vec<u8>,
}

/// The Unix sockets of a network.
#[derive(Debug, Default)]
pub(crate) struct UnixSockets {
    socks: BTreeMap<UnixId, UnixSock>,
    names: BTreeMap<(HostId, Key), UnixId>,
    /// The last autobound name's number, per host.
    autobind: BTreeMap<HostId, u32>,
}

impl UnixSockets {
    pub(crate) fn readiness(&self, id: UnixId) -> Readiness {
        let Some(s) = self.socks.get(&id) else {
            return Readiness::BOTH;
        };
        let mut r = Readiness::EMPTY;
        match &s.state {
            State::Fresh => r = Readiness::WRITABLE,
            State::Listening { queue, .. } => {
                if !queue.is_empty() {
                    r = Readiness::READABLE;
                }
            }
            State::Stream { peer, recv, .. } => {
                if !recv.is_empty() || s.rcv_shut || s.error.is_some() {
                    r |= Readiness::READABLE;
                }
                let room = peer
                    .and_then(|p| self.socks.get(&p))
                    .is_none_or(|p| p.stream_room() > 0);
                if s.snd_shut || s.error.is_some() || room {
                    r |= Readiness::WRITABLE;
                }
            }
            State::Datagram { recv, peer, .. } => {
                if !recv.is_empty() || s.rcv_shut || s.error.is_some() {
                    r |= Readiness::READABLE;
                }
                let to = peer.as_ref().map(|(p, _)| *p);
                if s.snd_shut || self.dgram_room(id, to) {
                    r |= Readiness::WRITABLE;
                }
            }
        }
        r
    }

    pub(crate) fn exists(&self, id: UnixId) -> bool {
        self.socks.contains_key(&id)
    }

    /// Forgets every socket of `host` (a crash).
    pub(crate) fn stop_host(&mut self, host: HostId) {
        self.socks.retain(|_, s| s.host != host);
        self.names.retain(|(h, _), _| *h != host);
        self.autobind.remove(&host);
    }

    fn sock(&self, id: UnixId) -> &UnixSock {
        self.socks
            .get(&id)
            .unwrap_or_else(|| panic!("{id} used after unix_close or after its host stopped"))
    }

    fn sock_mut(&mut self, id: UnixId) -> &mut UnixSock {
        self.socks
            .get_mut(&id)
            .unwrap_or_else(|| panic!("{id} used after unix_close or after its host stopped"))
    }

    /// Whether a datagram from `from` to `to` (its connected peer, or the
    /// destination of a `send_to`) would be queued now.
    fn dgram_room(&self, from: UnixId, to: Option<UnixId>) -> bool {
        let s = self.sock(from);
        let State::Datagram { unread, .. } = &s.state else {
            return true;
        };
        if *unread >= DGRAM_SEND_BUFFER {
            return false;
        }
        match to.and_then(|t| self.socks.get(&t)) {
            Some(r) => !r.dgram_full_for(from),
            None => true,
        }
    }
}

impl UnixSock {
    /// Free bytes in a stream's receive queue.
    fn stream_room(&self) -> usize {
        match &self.state {
            State::Stream { recv, .. } if !self.rcv_shut => STREAM_QUEUE.saturating_sub(recv.len()),
            // Shut: a write fails at once, so it does not wait.
            _ => STREAM_QUEUE,
        }
    }

    /// Whether this datagram socket's queue is full for `sender`: longer
    /// than [`DGRAM_QUEUE`], unless it is connected back to `sender`.
    fn dgram_full_for(&self, sender: UnixId) -> bool {
        match &self.state {
            State::Datagram { peer, recv, .. } => {
                peer.as_ref().is_none_or(|(p, _)| *p != sender) && recv.len() > DGRAM_QUEUE
            }
            _ => false,
        }
    }
}

fn invalid(msg: &str) -> Error {
    Error::new(ErrorKind::InvalidInput, msg.to_string())
}

impl Net {
    /// `socket(AF_UNIX, ty)` on `host`, by a process with `cred`.
    pub fn unix_socket(&mut self, host: HostId, ty: UnixType, cred: UnixCred) -> UnixId {
        self.running(host);
        let id = self.ids.unix();
        let state = match ty {
            UnixType::Stream => State::Fresh,
            UnixType::Datagram => State::Datagram {
                peer: None,
                peer_gone: false,
                recv: VecDeque::new(),
                unread: 0,
                blocked: BTreeSet::new(),
            },
        };
        self.unix.socks.insert(
            id,
            UnixSock {
                host,
                ty,
                name: UnixName::Unnamed,
                cred,
                state,
                rcv_shut: false,
                snd_shut: false,
                error: None,
            },
        );
        id
    }

    /// `socketpair(AF_UNIX, ty)`: two sockets connected to each other.
    pub fn unix_pair(&mut self, host: HostId, ty: UnixType, cred: UnixCred) -> (UnixId, UnixId) {
        let a = self.unix_socket(host, ty, cred);
        let b = self.unix_socket(host, ty, cred);
        match ty {
            UnixType::Stream => {
                self.unix.sock_mut(a).state = stream_state(b, UnixName::Unnamed, cred);
                self.unix.sock_mut(b).state = stream_state(a, UnixName::Unnamed, cred);
            }
            UnixType::Datagram => {
                for (s, p) in [(a, b), (b, a)] {
                    if let State::Datagram { peer, .. } = &mut self.unix.sock_mut(s).state {
                        *peer = Some((p, UnixName::Unnamed));
                    }
                }
            }
        }
        (a, b)
    }

    /// `bind`: names the socket. An `Unnamed` name binds an abstract
    /// autobind name.
    pub fn unix_bind(&mut self, id: UnixId, name: UnixName) -> Result<()> {
        let s = self.unix.sock(id);
        if s.name != UnixName::Unnamed {
            return Err(invalid("the socket is already bound"));
        }
        let host = s.host;
        let name = match name {
            UnixName::Unnamed => self.unix_autobind_name(host),
            name => name,
        };
        let key = name.key().expect("named");
        if self.unix.names.contains_key(&(host, key.clone())) {
            return Err(Error::new(ErrorKind::AddrInUse, "address already in use"));
        }
        self.unix.names.insert((host, key), id);
        self.unix.sock_mut(id).name = name;
        Ok(())
    }

    fn unix_autobind_name(&mut self, host: HostId) -> UnixName {
        loop {
            let n = self.unix.autobind.entry(host).or_insert(0);
            *n = (*n + 1) % 0x10_0000;
            let name = format!("{:05x}", *n).into_bytes();
            if !self
                .unix
                .names
                .contains_key(&(host, Key::Abstract(name.clone())))
            {
                return UnixName::Abstract(name);
            }
        }
    }

    /// `listen`: a fresh stream socket (bound, or autobound now) starts
    /// accepting connections; a listening one takes the new backlog.
    pub fn unix_listen(&mut self, id: UnixId, backlog: usize) -> Result<()> {
        let s = self.unix.sock(id);
        match (&s.state, s.ty) {
            (_, UnixType::Datagram) => Err(Error::new(
                ErrorKind::Unsupported,
                "operation not supported on a datagram socket",
            )),
            (State::Stream { .. }, _) => Err(invalid("the socket is connected")),
            (State::Listening { .. }, _) => {
                if let State::Listening { backlog: b, .. } = &mut self.unix.sock_mut(id).state {
                    *b = backlog;
                }
                Ok(())
            }
            _ => {
                if s.name == UnixName::Unnamed {
                    self.unix_bind(id, UnixName::Unnamed)?;
                }
                self.unix.sock_mut(id).state = State::Listening {
                    backlog,
                    queue: VecDeque::new(),
                };
                Ok(())
            }
        }
    }

    /// The socket bound to `name` on `host`, if any.
    fn unix_lookup(&self, host: HostId, name: &UnixName) -> Option<UnixId> {
        let key = name.key()?;
        self.unix.names.get(&(host, key)).copied()
    }

    /// `connect`. A stream connects to the listener bound to `to`: the
    /// connection is made at once and queued for `accept` (the server end
    /// is created now). A datagram socket takes `to` as its peer.
    pub fn unix_connect(&mut self, id: UnixId, to: &UnixName) -> Result<()> {
        let s = self.unix.sock(id);
        let (host, ty, cred) = (s.host, s.ty, s.cred);
        let refused = || error::kind(ErrorKind::ConnectionRefused);
        let target = self.unix_lookup(host, to).ok_or_else(refused)?;
        let t = self.unix.sock(target);
        if t.ty != ty {
            return Err(refused());
        }
        match ty {
            UnixType::Stream => {
                if !matches!(s.state, State::Fresh) {
                    return Err(Error::new(
                        ErrorKind::AlreadyExists,
                        "transport endpoint is already connected",
                    ));
                }
                let State::Listening { backlog, queue } = &t.state else {
                    return Err(refused());
                };
                if queue.len() >= (*backlog).max(1) {
                    return Err(error::would_block());
                }
                let listener_name = t.name.clone();
                let server = self.unix_socket(host, UnixType::Stream, self.unix.sock(target).cred);
                let client_name = self.unix.sock(id).name.clone();
                {
                    let srv = self.unix.sock_mut(server);
                    srv.name = listener_name.clone();
                    srv.state = stream_state(id, client_name, cred);
                }
                let server_cred = self.unix.sock(server).cred;
                self.unix.sock_mut(id).state = stream_state(server, listener_name, server_cred);
                if let State::Listening { queue, .. } = &mut self.unix.sock_mut(target).state {
                    queue.push_back(server);
                }
                self.wake(Endpoint::Unix(target), Readiness::READABLE);
                Ok(())
            }
            UnixType::Datagram => {
                let name = t.name.clone();
                if let State::Datagram {
                    peer, peer_gone, ..
                } = &mut self.unix.sock_mut(id).state
                {
                    *peer = Some((target, name));
                    *peer_gone = false;
                }
                Ok(())
            }
        }
    }

    /// `accept`: the oldest connection queued, and its peer's name.
    pub fn unix_accept(&mut self, id: UnixId) -> Result<(UnixId, UnixName)> {
        let State::Listening { queue, .. } = &mut self.unix.sock_mut(id).state else {
            return Err(invalid("the socket is not listening"));
        };
        let server = queue.pop_front().ok_or_else(error::would_block)?;
        let peer = self.unix_peer_name(server)?;
        Ok((server, peer))
    }

    /// `write` on a stream: copies what fits into the peer's queue.
    pub fn unix_write(&mut self, id: UnixId, buf: &[u8]) -> Result<usize> {
        let s = self.unix.sock(id);
        let State::Stream { peer, .. } = &s.state else {
            return Err(error::kind(ErrorKind::NotConnected));
        };
        let peer = *peer;
        if s.snd_shut {
            return Err(error::kind(ErrorKind::BrokenPipe));
        }
        let Some(peer) = peer else {
            return Err(error::kind(ErrorKind::BrokenPipe));
        };
        if buf.is_empty() {
            return Ok(0);
        }
        let room = self.unix.sock(peer).stream_room();
        if room == 0 {
            return Err(error::would_block());
        }
        let n = room.min(buf.len());
        if let State::Stream { recv, .. } = &mut self.unix.sock_mut(peer).state {
            recv.extend(&buf[..n]);
        }
        self.wake(Endpoint::Unix(peer), Readiness::READABLE);
        Ok(n)
    }

    /// `read` (or, with `peek`, `recv(MSG_PEEK)`) on a stream.
    pub fn unix_read(&mut self, id: UnixId, buf: &mut [u8], peek: bool) -> Result<usize> {
        let s = self.unix.sock_mut(id);
        let (rcv_shut, error) = (s.rcv_shut, s.error);
        let State::Stream { recv, peer, .. } = &mut s.state else {
            return Err(error::kind(ErrorKind::NotConnected));
        };
        let peer = *peer;
        if recv.is_empty() {
            if let Some(kind) = error {
                s.error = None;
                return Err(error::kind(kind));
            }
            return if rcv_shut || buf.is_empty() {
                Ok(0)
            } else {
                Err(error::would_block())
            };
        }
        let was_full = recv.len() >= STREAM_QUEUE;
        let n = buf.len().min(recv.len());
        for (d, b) in buf.iter_mut().zip(recv.iter()) {
            *d = *b;
        }
        if !peek {
            recv.drain(..n);
            if was_full {
                if let Some(p) = peer {
                    self.wake(Endpoint::Unix(p), Readiness::WRITABLE);
                }
            }
        }
        Ok(n)
    }

    /// Bytes queued to read on a stream (`FIONREAD`).
    pub fn unix_queued(&self, id: UnixId) -> usize {
        match &self.unix.sock(id).state {
            State::Stream { recv, .. } => recv.len(),
            State::Datagram { recv, .. } => recv.front().map_or(0, |d| d.data.len()),
            _ => 0,
        }
    }

    /// `send` (to the connected peer) or `sendto` on a datagram socket.
    pub fn unix_send_to(&mut self, id: UnixId, to: Option<&UnixName>, buf: &[u8]) -> Result<usize> {
        let s = self.unix.sock(id);
        let State::Datagram {
            peer, peer_gone, ..
        } = &s.state
        else {
            return match to {
                // `sendto` on a connected stream ignores the address.
                Some(_) | None => self.unix_write(id, buf),
            };
        };
        if s.snd_shut {
            return Err(error::kind(ErrorKind::BrokenPipe));
        }
        let host = s.host;
        let target = match to {
            Some(name) => self
                .unix_lookup(host, name)
                .ok_or_else(|| error::kind(ErrorKind::ConnectionRefused))?,
            None if *peer_gone => return Err(error::kind(ErrorKind::ConnectionRefused)),
            None => {
                peer.as_ref()
                    .ok_or_else(|| error::kind(ErrorKind::NotConnected))?
                    .0
            }
        };
        let t = self.unix.sock(target);
        if t.ty != UnixType::Datagram {
            return Err(error::kind(ErrorKind::ConnectionRefused));
        }
        if !self.unix.dgram_room(id, Some(target)) {
            if let State::Datagram { blocked, .. } = &mut self.unix.sock_mut(target).state {
                blocked.insert(id);
            }
            return Err(error::would_block());
        }
        let shut = t.rcv_shut;
        let from_name = self.unix.sock(id).name.clone();
        if let State::Datagram { unread, .. } = &mut self.unix.sock_mut(id).state {
            if !shut {
                *unread += buf.len() + DGRAM_OVERHEAD;
            }
        }
        if !shut {
            if let State::Datagram { recv, .. } = &mut self.unix.sock_mut(target).state {
                recv.push_back(Dgram {
                    from: id,
                    from_name,
                    data: buf.to_vec(),
                });
            }
            self.wake(Endpoint::Unix(target), Readiness::READABLE);
        }
        Ok(buf.len())
    }

    /// `recvfrom` (with `peek`, `MSG_PEEK`) on a datagram socket: the
    /// oldest datagram, truncated to `buf`, its length and its sender's
    /// name.
    pub fn unix_recv_from(
        &mut self,
        id: UnixId,
        buf: &mut [u8],
        peek: bool,
    ) -> Result<(usize, UnixName)> {
        let s = self.unix.sock_mut(id);
        let rcv_shut = s.rcv_shut;
        let State::Datagram { recv, blocked, .. } = &mut s.state else {
            let n = self.unix_read(id, buf, peek)?;
            return Ok((n, self.unix_peer_name(id)?));
        };
        let Some(d) = recv.front() else {
            return if rcv_shut {
                Ok((0, UnixName::Unnamed))
            } else {
                Err(error::would_block())
            };
        };
        let n = buf.len().min(d.data.len());
        buf[..n].copy_from_slice(&d.data[..n]);
        let name = d.from_name.clone();
        if peek {
            return Ok((n, name));
        }
        let d = recv.pop_front().expect("checked");
        let waiting = std::mem::take(blocked);
        let charge = d.data.len() + DGRAM_OVERHEAD;
        if let Some(State::Datagram { unread, .. }) =
            self.unix.socks.get_mut(&d.from).map(|s| &mut s.state)
        {
            *unread = unread.saturating_sub(charge);
        }
        if self.unix.socks.contains_key(&d.from) {
            self.wake(Endpoint::Unix(d.from), Readiness::WRITABLE);
        }
        for w in waiting {
            if w != d.from && self.unix.socks.contains_key(&w) {
                self.wake(Endpoint::Unix(w), Readiness::WRITABLE);
            }
        }
        Ok((n, name))
    }

    /// `shutdown`.
    pub fn unix_shutdown(&mut self, id: UnixId, how: Shutdown) -> Result<()> {
        let s = self.unix.sock(id);
        let peer = match &s.state {
            State::Stream { peer, .. } => *peer,
            State::Datagram { peer, .. } => peer.as_ref().map(|(p, _)| *p),
            _ => return Err(error::kind(ErrorKind::NotConnected)),
        };
        let (read, write) = match how {
            Shutdown::Read => (true, false),
            Shutdown::Write => (false, true),
            Shutdown::Both => (true, true),
        };
        let s = self.unix.sock_mut(id);
        s.rcv_shut |= read;
        s.snd_shut |= write;
        let is_stream = s.ty == UnixType::Stream;
        // A stream's peer sees the other side of each direction shut.
        if let Some(p) = peer.filter(|_| is_stream) {
            if let Some(ps) = self.unix.socks.get_mut(&p) {
                ps.rcv_shut |= write;
                ps.snd_shut |= read;
            }
            self.wake(Endpoint::Unix(p), Readiness::BOTH);
        }
        self.wake(Endpoint::Unix(id), Readiness::BOTH);
        Ok(())
    }

    /// `close`: the socket is gone. A stream's peer sees both directions
    /// shut, and `ConnectionReset` if bytes it sent were left unread; the
    /// connections a listener had not accepted are reset (their clients
    /// see `ConnectionReset`); the name is
    /// freed (a path's socket file stays, refusing connections).
    pub fn unix_close(&mut self, id: UnixId) {
        self.unix_release(id, false);
    }

    /// Closes `id`; an `embryo` (a connection its listener never accepted)
    /// resets its peer whatever was unread, as Linux's
    /// `unix_release_sock`.
    fn unix_release(&mut self, id: UnixId, embryo: bool) {
        let Some(s) = self.unix.socks.remove(&id) else {
            return;
        };
        if let Some(key) = s.name.key() {
            if self.unix.names.get(&(s.host, key.clone())) == Some(&id) {
                self.unix.names.remove(&(s.host, key));
            }
        }
        match s.state {
            State::Stream { peer, recv, .. } => {
                if let Some(p) = peer {
                    self.unix_orphan(p, embryo || !recv.is_empty());
                }
            }
            State::Listening { queue, .. } => {
                for server in queue {
                    self.unix_release(server, true);
                }
            }
            State::Datagram { recv, .. } => {
                // Give the senders' buffers back.
                for d in recv {
                    if let Some(State::Datagram { unread, .. }) =
                        self.unix.socks.get_mut(&d.from).map(|s| &mut s.state)
                    {
                        *unread = unread.saturating_sub(d.data.len() + DGRAM_OVERHEAD);
                    }
                }
                let orphans: Vec<UnixId> = self
                    .unix
                    .socks
                    .iter()
                    .filter(|(_, o)| {
                        matches!(&o.state, State::Datagram { peer: Some((p, _)), .. } if *p == id)
                    })
                    .map(|(o, _)| *o)
                    .collect();
                for o in orphans {
                    if let State::Datagram { peer_gone, .. } = &mut self.unix.sock_mut(o).state {
                        *peer_gone = true;
                    }
                    self.wake(Endpoint::Unix(o), Readiness::BOTH);
                }
            }
            State::Fresh => {}
        }
    }

    /// The peer of stream `p` closed; `reset` when bytes it had sent were
    /// left unread.
    fn unix_orphan(&mut self, p: UnixId, reset: bool) {
        let Some(ps) = self.unix.socks.get_mut(&p) else {
            return;
        };
        ps.rcv_shut = true;
        ps.snd_shut = true;
        if reset {
            ps.error = Some(ErrorKind::ConnectionReset);
        }
        if let State::Stream { peer, .. } = &mut ps.state {
            *peer = None;
        }
        self.wake(Endpoint::Unix(p), Readiness::BOTH);
    }

    /// The socket's own name (`getsockname`).
    pub fn unix_local_name(&self, id: UnixId) -> UnixName {
        self.unix.sock(id).name.clone()
    }

    /// The connected peer's name (`getpeername`), `NotConnected` when
    /// there is none.
    pub fn unix_peer_name(&self, id: UnixId) -> Result<UnixName> {
        match &self.unix.sock(id).state {
            State::Stream { peer_name, .. } => Ok(peer_name.clone()),
            State::Datagram {
                peer: Some((_, name)),
                ..
            } => Ok(name.clone()),
            _ => Err(error::kind(ErrorKind::NotConnected)),
        }
    }

    /// The credentials of a stream's peer (`SO_PEERCRED`), taken when the
    /// connection was made; a datagram socket's own (Linux reports the
    /// caller's for an unconnected socket too).
    pub fn unix_peer_cred(&self, id: UnixId) -> UnixCred {
        let s = self.unix.sock(id);
        match &s.state {
            State::Stream { peer_cred, .. } => *peer_cred,
            _ => s.cred,
        }
    }

    /// The socket's type.
    pub fn unix_type(&self, id: UnixId) -> UnixType {
        self.unix.sock(id).ty
    }

    /// The host the socket belongs to, `None` once it is forgotten.
    pub fn unix_host(&self, id: UnixId) -> Option<HostId> {
        self.unix.socks.get(&id).map(|s| s.host)
    }

    /// Takes the pending error (`SO_ERROR`).
    pub fn unix_take_error(&mut self, id: UnixId) -> Option<Error> {
        self.unix.sock_mut(id).error.take().map(error::kind)
    }

    /// What `poll` reports beyond readable and writable; `None` once the
    /// socket is forgotten.
    pub fn unix_hangup(&self, id: UnixId) -> Option<UnixHangup> {
        let s = self.unix.socks.get(&id)?;
        let connected = matches!(s.state, State::Stream { .. });
        Some(UnixHangup {
            read_closed: connected && s.rcv_shut,
            write_closed: connected && s.rcv_shut && s.snd_shut,
            error: s.error.is_some(),
        })
    }
}

fn stream_state(peer: UnixId, peer_name: UnixName, peer_cred: UnixCred) -> State {
    State::Stream {
        peer: Some(peer),
        peer_name,
        peer_cred,
        recv: VecDeque::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Event, NetConfig};

    fn net() -> (Net, HostId) {
        let mut net = Net::new(NetConfig::default());
        let h = net.add_host("h", []);
        (net, h)
    }

    fn path(p: &str, ino: u64) -> UnixName {
        UnixName::Path(p.into(), ino)
    }

    fn readable_events(net: &mut Net) -> Vec<UnixId> {
        net.drain_events()
            .filter_map(|e| match e {
                Event::Ready {
                    endpoint: Endpoint::Unix(id),
                    readiness,
                } if readiness.is_readable() => Some(id),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn stream_connects_at_once_and_carries_bytes_both_ways() {
        let (mut net, h) = net();
        let cred = UnixCred {
            pid: 7,
            uid: 1,
            gid: 2,
        };
        let l = net.unix_socket(h, UnixType::Stream, cred);
        net.unix_bind(l, path("/s", 5)).unwrap();
        net.unix_listen(l, 8).unwrap();
        let c = net.unix_socket(h, UnixType::Stream, UnixCred::default());
        net.unix_connect(c, &path("/s", 5)).unwrap();
        assert_eq!(readable_events(&mut net), vec![l]);
        let (s, peer) = net.unix_accept(l).unwrap();
        assert_eq!(peer, UnixName::Unnamed);
        assert_eq!(net.unix_peer_name(c).unwrap(), path("/s", 5));
        assert_eq!(net.unix_local_name(s), path("/s", 5));
        assert_eq!(net.unix_peer_cred(c), cred);
        assert_eq!(net.unix_write(c, b"ping").unwrap(), 4);
        assert_eq!(readable_events(&mut net), vec![s]);
        let mut buf = [0; 8];
        assert_eq!(net.unix_read(s, &mut buf, true).unwrap(), 4);
        assert_eq!(net.unix_read(s, &mut buf, false).unwrap(), 4);
        assert_eq!(&buf[..4], b"ping");
        assert_eq!(
            net.unix_read(s, &mut buf, false).unwrap_err().kind(),
            ErrorKind::WouldBlock
        );
        net.unix_shutdown(c, Shutdown::Write).unwrap();
        assert_eq!(net.unix_read(s, &mut buf, false).unwrap(), 0);
        assert_eq!(
            net.unix_write(c, b"x").unwrap_err().kind(),
            ErrorKind::BrokenPipe
        );
        assert_eq!(net.unix_write(s, b"pong").unwrap(), 4);
        assert_eq!(net.unix_read(c, &mut buf, false).unwrap(), 4);
    }

    #[test]
    fn a_full_queue_makes_the_writer_wait_and_reading_wakes_it() {
        let (mut net, h) = net();
        let (a, b) = net.unix_pair(h, UnixType::Stream, UnixCred::default());
        let big = vec![7u8; STREAM_QUEUE + 10];
        assert_eq!(net.unix_write(a, &big).unwrap(), STREAM_QUEUE);
        assert!(!net.readiness(Endpoint::Unix(a)).is_writable());
        assert_eq!(
            net.unix_write(a, b"x").unwrap_err().kind(),
            ErrorKind::WouldBlock
        );
        net.drain_events().for_each(drop);
        let mut buf = [0; 100];
        net.unix_read(b, &mut buf, false).unwrap();
        let woke: Vec<Event> = net.drain_events().collect();
        assert_eq!(
            woke,
            vec![Event::Ready {
                endpoint: Endpoint::Unix(a),
                readiness: Readiness::WRITABLE
            }]
        );
        assert!(net.readiness(Endpoint::Unix(a)).is_writable());
    }

    #[test]
    fn closing_with_unread_bytes_resets_the_peer_once() {
        let (mut net, h) = net();
        let (a, b) = net.unix_pair(h, UnixType::Stream, UnixCred::default());
        net.unix_write(a, b"unread").unwrap();
        net.unix_close(b);
        let mut buf = [0; 8];
        assert_eq!(
            net.unix_read(a, &mut buf, false).unwrap_err().kind(),
            ErrorKind::ConnectionReset
        );
        assert_eq!(net.unix_read(a, &mut buf, false).unwrap(), 0);
        assert_eq!(
            net.unix_write(a, b"x").unwrap_err().kind(),
            ErrorKind::BrokenPipe
        );
        let hang = net.unix_hangup(a).unwrap();
        assert!(hang.read_closed && hang.write_closed);
    }

    #[test]
    fn names_refuse_when_free_and_clash_when_taken() {
        let (mut net, h) = net();
        let c = net.unix_socket(h, UnixType::Stream, UnixCred::default());
        let err = net.unix_connect(c, &path("/gone", 3)).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::ConnectionRefused);
        let a = net.unix_socket(h, UnixType::Datagram, UnixCred::default());
        net.unix_bind(a, UnixName::Abstract(b"n".to_vec())).unwrap();
        let b = net.unix_socket(h, UnixType::Datagram, UnixCred::default());
        let err = net
            .unix_bind(b, UnixName::Abstract(b"n".to_vec()))
            .unwrap_err();
        assert_eq!(err.kind(), ErrorKind::AddrInUse);
        // A stream cannot connect to a datagram socket.
        let err = net
            .unix_connect(c, &UnixName::Abstract(b"n".to_vec()))
            .unwrap_err();
        assert_eq!(err.kind(), ErrorKind::ConnectionRefused);
        net.unix_close(a);
        net.unix_bind(b, UnixName::Abstract(b"n".to_vec())).unwrap();
    }

    #[test]
    fn listening_unbound_autobinds_and_a_full_backlog_waits() {
        let (mut net, h) = net();
        let l = net.unix_socket(h, UnixType::Stream, UnixCred::default());
        net.unix_listen(l, 1).unwrap();
        let name = net.unix_local_name(l);
        assert_eq!(name, UnixName::Abstract(b"00001".to_vec()));
        let c1 = net.unix_socket(h, UnixType::Stream, UnixCred::default());
        net.unix_connect(c1, &name).unwrap();
        let c2 = net.unix_socket(h, UnixType::Stream, UnixCred::default());
        let err = net.unix_connect(c2, &name).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::WouldBlock);
        // Closing the listener resets what it had not accepted.
        net.unix_close(l);
        let mut buf = [0; 1];
        let err = net.unix_read(c1, &mut buf, false).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::ConnectionReset);
        assert_eq!(net.unix_read(c1, &mut buf, false).unwrap(), 0);
        assert!(net.unix_connect(c2, &name).is_err());
    }

    #[test]
    fn datagrams_keep_boundaries_and_senders_wait_for_a_full_queue() {
        let (mut net, h) = net();
        let cred = UnixCred::default();
        let rx = net.unix_socket(h, UnixType::Datagram, cred);
        net.unix_bind(rx, path("/rx", 9)).unwrap();
        let tx = net.unix_socket(h, UnixType::Datagram, cred);
        let to = path("/rx", 9);
        for i in 0..=DGRAM_QUEUE {
            net.unix_send_to(tx, Some(&to), &[i as u8; 3]).unwrap();
        }
        let err = net.unix_send_to(tx, Some(&to), b"x").unwrap_err();
        assert_eq!(err.kind(), ErrorKind::WouldBlock);
        net.drain_events().for_each(drop);
        let mut buf = [0; 2];
        let (n, from) = net.unix_recv_from(rx, &mut buf, false).unwrap();
        assert_eq!((n, from, buf), (2, UnixName::Unnamed, [0, 0]));
        assert!(net.drain_events().any(|e| e
            == Event::Ready {
                endpoint: Endpoint::Unix(tx),
                readiness: Readiness::WRITABLE
            }));
        net.unix_send_to(tx, Some(&to), b"x").unwrap();
        // A connected pair is bounded by the sender's buffer only.
        let (a, b) = net.unix_pair(h, UnixType::Datagram, cred);
        let mut sent = 0;
        while net.unix_send_to(a, None, b"payload").is_ok() {
            sent += 1;
        }
        assert_eq!(sent, DGRAM_SEND_BUFFER.div_ceil(7 + DGRAM_OVERHEAD));
        net.unix_close(b);
        let err = net.unix_send_to(a, None, b"x").unwrap_err();
        assert_eq!(err.kind(), ErrorKind::ConnectionRefused);
    }

    #[test]
    fn a_crash_forgets_the_hosts_sockets_and_names() {
        let (mut net, h) = net();
        let l = net.unix_socket(h, UnixType::Stream, UnixCred::default());
        net.unix_bind(l, UnixName::Abstract(b"svc".to_vec()))
            .unwrap();
        net.unix_listen(l, 4).unwrap();
        net.reset_host(h, std::time::Duration::ZERO);
        assert!(!net.exists(Endpoint::Unix(l)));
        let l2 = net.unix_socket(h, UnixType::Stream, UnixCred::default());
        net.unix_bind(l2, UnixName::Abstract(b"svc".to_vec()))
            .unwrap();
    }
}
