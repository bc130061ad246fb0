//! Datagram sockets (UDP-like): unordered, unreliable, message-preserving.
//!
//! Each `send_to` is one packet with its own latency window, so datagrams
//! whose windows overlap may arrive in either order. Loss and duplication
//! are applied by the runtime through [`Net::drop_packet`] and
//! [`Net::duplicate_packet`] (see [`Net::faults`]). A datagram sent across a
//! partition or to a stopped host is lost at once; one sent to an address
//! no host owns vanishes without a trace (no packet is created). At the
//! receiving host a datagram goes to the bound socket that matches best
//! (exact address over wildcard, connected over unconnected; a connected
//! socket only takes datagrams from its peer), and is dropped if none
//! matches or the socket's receive buffer is full.
//!
//! A datagram that finds no socket is answered, as Linux answers it, with
//! an ICMP "port unreachable" packet back to its source (over the same
//! links, with their latency, loss and partitions). Where it arrives, the
//! socket that would receive a datagram from the unreachable address
//! takes it if that socket is connected: its pending error
//! (`SO_ERROR`) becomes `ConnectionRefused`, which the next receive, peek
//! or send reports once (before any queued datagram), or
//! [`Net::udp_take_error`] takes. An unconnected socket ignores it, as
//! Linux does without `IP_RECVERR`. Linux rate-limits ICMP errors to other
//! hosts (not over loopback); the model does not.

use std::collections::VecDeque;
use std::io;
use std::net::SocketAddr;
use std::time::Duration;

use bytes::Bytes;

use crate::addr::{covers, effective_dst, Proto};
use crate::{error, Discard, Endpoint, Event, HostId, Net, PacketId, Readiness, SocketId};

/// Up to this many datagram sockets in the network, an arriving datagram's
/// socket is found by a pass over all of them; past it, by the port index
/// (`Net::udp_ports`).
const FEW_SOCKETS: usize = 8;

/// The largest UDP payload over IPv4 (65535 - 8 - 20).
pub const MAX_DATAGRAM: usize = 65_507;

/// A bound datagram socket.
#[derive(Debug)]
pub(crate) struct Socket {
    pub(crate) host: HostId,
    pub(crate) local: SocketAddr,
    /// Set by `udp_connect`: default destination and receive filter.
    pub(crate) peer: Option<SocketAddr>,
    /// Received datagrams with their source, oldest first.
    pub(crate) queue: VecDeque<(SocketAddr, Bytes)>,
    /// The pending socket error (`SO_ERROR`): set by an ICMP error on a
    /// connected socket, cleared when an operation reports it.
    pub(crate) error: Option<io::ErrorKind>,
    /// Payload bytes in `queue`.
    pub(crate) queued: usize,
}

impl Net {
    /// Binds a datagram socket on `host` at `addr` (port 0: ephemeral),
    /// like `UdpSocket::bind`.
    ///
    /// # Errors
    ///
    /// `AddrNotAvailable` if the host does not own the address; `AddrInUse`
    /// if another socket of the host holds the port on an overlapping
    /// address.
    pub fn udp_bind(&mut self, host: HostId, addr: SocketAddr) -> io::Result<SocketId> {
        self.running(host);
        self.check_local_ip(host, addr.ip())?;
        let port = self.bind_port(host, Proto::Udp, addr)?;
        let id = self.ids.socket();
        // Ids grow, so the port's list stays in id order.
        self.udp_ports.entry((host, port)).or_default().push(id);
        self.sockets.insert(
            id,
            Socket {
                host,
                local: SocketAddr::new(addr.ip(), port),
                peer: None,
                queue: VecDeque::new(),
                error: None,
                queued: 0,
            },
        );
        Ok(id)
    }

    /// Sets the socket's peer (`UdpSocket::connect`): the destination of
    /// [`Net::udp_send`], and the only source it receives from afterwards.
    pub fn udp_connect(&mut self, socket: SocketId, peer: SocketAddr) -> io::Result<()> {
        let peer = SocketAddr::new(effective_dst(peer.ip()), peer.port());
        let s = self.socket(socket);
        self.source_ip(s.host, s.local.ip(), peer.ip())?;
        self.socket_mut(socket).peer = Some(peer);
        Ok(())
    }

    /// Sends one datagram to `dst` at `now`; returns its length. The
    /// packet (if any) is announced by [`Event::Sent`].
    ///
    /// # Errors
    ///
    /// `InvalidInput` for a payload over [`MAX_DATAGRAM`] bytes, port 0, or
    /// an address the socket cannot reach (family mismatch, loopback-bound
    /// socket sending off-host); `AddrNotAvailable` if the host has no
    /// address of `dst`'s family; then the pending error (see the module
    /// docs), which is cleared, and nothing is sent.
    pub fn udp_send_to(
        &mut self,
        socket: SocketId,
        dst: SocketAddr,
        data: &[u8],
        now: Duration,
    ) -> io::Result<usize> {
        self.observe(now);
        let s = self.socket(socket);
        let (host, local) = (s.host, s.local);
        if data.len() > MAX_DATAGRAM {
            return Err(error::invalid_input(format!(
                "message too long: {} bytes (at most {MAX_DATAGRAM})",
                data.len()
            )));
        }
        if dst.port() == 0 {
            return Err(error::invalid_input("cannot send to port 0"));
        }
        let dst = SocketAddr::new(effective_dst(dst.ip()), dst.port());
        let src = SocketAddr::new(self.source_ip(host, local.ip(), dst.ip())?, local.port());
        self.take_pending_error(socket)?;
        if let Some(dst_host) = self.route(host, dst.ip()) {
            self.send_datagram(
                now,
                (host, src),
                (dst_host, dst),
                Bytes::copy_from_slice(data),
            );
        }
        Ok(data.len())
    }

    /// Sends one datagram to the connected peer at `now`.
    ///
    /// # Errors
    ///
    /// `NotConnected` without [`Net::udp_connect`]; otherwise as
    /// [`Net::udp_send_to`].
    pub fn udp_send(&mut self, socket: SocketId, data: &[u8], now: Duration) -> io::Result<usize> {
        let peer = self
            .socket(socket)
            .peer
            .ok_or_else(|| error::kind(io::ErrorKind::NotConnected))?;
        self.udp_send_to(socket, peer, data, now)
    }

    /// Takes the oldest received datagram into `buf` (truncating it if
    /// `buf` is shorter, as the kernel does); returns its copied length and
    /// source.
    ///
    /// # Errors
    ///
    /// The pending error, which is cleared (see the module docs), even if
    /// datagrams are queued; otherwise `WouldBlock` if none is queued.
    pub fn udp_recv_from(
        &mut self,
        socket: SocketId,
        buf: &mut [u8],
    ) -> io::Result<(usize, SocketAddr)> {
        self.take_pending_error(socket)?;
        let s = self.socket_mut(socket);
        let (from, data) = s.queue.pop_front().ok_or_else(error::would_block)?;
        s.queued -= data.len();
        let n = buf.len().min(data.len());
        buf[..n].copy_from_slice(&data[..n]);
        Ok((n, from))
    }

    /// Like [`Net::udp_recv_from`] but leaves the datagram queued (a
    /// pending error is reported and cleared all the same, as by Linux).
    pub fn udp_peek_from(
        &mut self,
        socket: SocketId,
        buf: &mut [u8],
    ) -> io::Result<(usize, SocketAddr)> {
        self.take_pending_error(socket)?;
        let (from, data) = self
            .socket(socket)
            .queue
            .front()
            .ok_or_else(error::would_block)?;
        let n = buf.len().min(data.len());
        buf[..n].copy_from_slice(&data[..n]);
        Ok((n, *from))
    }

    /// Takes the socket's pending error (`SO_ERROR`, as
    /// `UdpSocket::take_error`), clearing it.
    pub fn udp_take_error(&mut self, socket: SocketId) -> Option<io::Error> {
        self.socket_mut(socket).error.take().map(error::kind)
    }

    /// Whether the socket has a pending error (readiness `ERROR`).
    pub fn udp_has_error(&self, socket: SocketId) -> bool {
        self.socket(socket).error.is_some()
    }

    fn take_pending_error(&mut self, socket: SocketId) -> io::Result<()> {
        match self.udp_take_error(socket) {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    /// The socket's local address (with the port actually bound).
    pub fn udp_local_addr(&self, socket: SocketId) -> io::Result<SocketAddr> {
        Ok(self.socket(socket).local)
    }

    /// The connected peer.
    ///
    /// # Errors
    ///
    /// `NotConnected` without [`Net::udp_connect`].
    pub fn udp_peer_addr(&self, socket: SocketId) -> io::Result<SocketAddr> {
        self.socket(socket)
            .peer
            .ok_or_else(|| error::kind(io::ErrorKind::NotConnected))
    }

    /// Closes the socket; queued datagrams are discarded. A no-op if it no
    /// longer exists.
    pub fn udp_close(&mut self, socket: SocketId) {
        if let Some(s) = self.sockets.remove(&socket) {
            let key = (s.host, s.local.port());
            let ids = self
                .udp_ports
                .get_mut(&key)
                .expect("a bound socket is in its port's list");
            ids.retain(|id| *id != socket);
            if ids.is_empty() {
                self.udp_ports.remove(&key);
            }
        }
    }

    fn socket(&self, socket: SocketId) -> &Socket {
        self.sockets
            .get(&socket)
            .unwrap_or_else(|| panic!("{socket} used after udp_close or after its host stopped"))
    }

    fn socket_mut(&mut self, socket: SocketId) -> &mut Socket {
        self.sockets
            .get_mut(&socket)
            .unwrap_or_else(|| panic!("{socket} used after udp_close or after its host stopped"))
    }

    /// The socket of `host` that takes a datagram from `src` to `dst`:
    /// exact address over wildcard, connected over unconnected (a
    /// connected socket only takes its peer's datagrams); the lowest id
    /// among equals.
    fn receiving_socket(&self, host: HostId, src: SocketAddr, dst: SocketAddr) -> Option<SocketId> {
        let mut best: Option<(u8, SocketId)> = None;
        let mut consider = |sid: SocketId, s: &Socket| {
            let matches =
                covers(s.local.ip(), dst.ip()) && (s.peer.is_none() || s.peer == Some(src));
            if matches {
                let score = 2 * u8::from(s.local.ip() == dst.ip()) + u8::from(s.peer.is_some());
                if !matches!(best, Some((b, _)) if b >= score) {
                    best = Some((score, sid));
                }
            }
        };
        // The port's sockets in id order either way: a few sockets are
        // cheaper to pass over than to look up by port.
        if self.sockets.len() <= FEW_SOCKETS {
            for (sid, s) in self.sockets.iter() {
                if s.host == host && s.local.port() == dst.port() {
                    consider(sid, s);
                }
            }
        } else if let Some(bound) = self.udp_ports.get(&(host, dst.port())) {
            for sid in bound {
                consider(*sid, &self.sockets[sid]);
            }
        }
        best.map(|(_, sid)| sid)
    }

    /// The receiving kernel processes datagram `id`; without a socket for
    /// it, it answers with ICMP port unreachable.
    pub(crate) fn on_datagram(
        &mut self,
        now: Duration,
        id: PacketId,
        (src_host, src): (HostId, SocketAddr),
        (host, dst): (HostId, SocketAddr),
        data: Bytes,
    ) {
        let Some(sid) = self.receiving_socket(host, src, dst) else {
            self.events.push(Event::Discarded {
                packet: id,
                reason: Discard::NoSocket,
            });
            self.send_port_unreachable(now, (host, dst), (src_host, src));
            return;
        };
        let limit = self.config.udp_recv_buffer;
        let s = self.sockets.get_mut(&sid).expect("found above");
        if s.queued + data.len() > limit {
            self.events.push(Event::Discarded {
                packet: id,
                reason: Discard::ReceiveBufferFull,
            });
            return;
        }
        s.queued += data.len();
        s.queue.push_back((src, data));
        self.wake(Endpoint::Socket(sid), Readiness::READABLE);
    }

    /// The ICMP port unreachable about a datagram from `src` (a socket of
    /// `host`) to `unreachable` arrives at `host`: the socket that would
    /// take a datagram from `unreachable` gets the error if it is
    /// connected (to `unreachable`, then), and is woken.
    pub(crate) fn on_port_unreachable(
        &mut self,
        host: HostId,
        src: SocketAddr,
        unreachable: SocketAddr,
    ) {
        let Some(sid) = self.receiving_socket(host, unreachable, src) else {
            return;
        };
        let s = self.sockets.get_mut(&sid).expect("found above");
        if s.peer.is_some() {
            s.error = Some(io::ErrorKind::ConnectionRefused);
            self.wake(Endpoint::Socket(sid), Readiness::BOTH);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::settle;
    use crate::{LinkConfig, NetConfig};

    fn addr(s: &str) -> SocketAddr {
        s.parse().unwrap()
    }

    const T0: Duration = Duration::ZERO;

    #[test]
    fn send_and_receive_with_source_address() {
        let mut net = Net::default();
        let a = net.add_host("a", []);
        let b = net.add_host("b", []);
        let sa = net.udp_bind(a, addr("0.0.0.0:0")).unwrap();
        let sb = net.udp_bind(b, addr("0.0.0.0:53")).unwrap();
        assert_eq!(
            net.udp_send_to(sa, addr("10.0.0.2:53"), b"query", T0)
                .unwrap(),
            5
        );
        let mut buf = [0u8; 3];
        assert_eq!(
            net.udp_recv_from(sb, &mut buf).unwrap_err().kind(),
            io::ErrorKind::WouldBlock
        );
        settle(&mut net, T0);
        // Truncated to the buffer, like recvfrom.
        assert_eq!(
            net.udp_peek_from(sb, &mut buf).unwrap(),
            (3, addr("10.0.0.1:49152"))
        );
        assert_eq!(
            net.udp_recv_from(sb, &mut buf).unwrap(),
            (3, addr("10.0.0.1:49152"))
        );
        assert_eq!(&buf, b"que");
        assert!(net.udp_recv_from(sb, &mut buf).is_err());
    }

    #[test]
    fn no_socket_or_full_buffer_drops() {
        let mut net = Net::new(NetConfig {
            udp_recv_buffer: 4,
            ..NetConfig::default()
        });
        let a = net.add_host("a", []);
        let b = net.add_host("b", []);
        let sa = net.udp_bind(a, addr("0.0.0.0:0")).unwrap();
        net.udp_send_to(sa, addr("10.0.0.2:9"), b"x", T0).unwrap();
        let sb = net.udp_bind(b, addr("10.0.0.2:7")).unwrap();
        net.udp_send_to(sa, addr("10.0.0.2:7"), b"abc", T0).unwrap();
        net.udp_send_to(sa, addr("10.0.0.2:7"), b"de", T0).unwrap();
        // An unroutable destination creates no packet at all.
        net.udp_send_to(sa, addr("10.9.9.9:7"), b"void", T0)
            .unwrap();
        settle(&mut net, T0);
        let reasons: Vec<Discard> = net
            .drain_events()
            .filter_map(|e| match e {
                Event::Discarded { reason, .. } => Some(reason),
                _ => None,
            })
            .collect();
        assert_eq!(reasons, vec![Discard::NoSocket, Discard::ReceiveBufferFull]);
        let mut buf = [0u8; 8];
        assert_eq!(net.udp_recv_from(sb, &mut buf).unwrap().0, 3);
    }

    /// A datagram finds the same socket whether the network holds a few
    /// sockets (a pass over them) or many (the port index).
    #[test]
    fn a_datagram_finds_its_socket_among_few_or_many() {
        for fillers in [0, FEW_SOCKETS + 4] {
            let mut net = Net::default();
            let a = net.add_host("a", []);
            let b = net.add_host("b", []);
            let sa = net.udp_bind(a, addr("0.0.0.0:1000")).unwrap();
            let any = net.udp_bind(b, addr("0.0.0.0:2000")).unwrap();
            let one = net.udp_bind(b, addr("10.0.0.2:2001")).unwrap();
            let from_a = net.udp_bind(b, addr("0.0.0.0:2002")).unwrap();
            net.udp_connect(from_a, addr("10.0.0.9:1")).unwrap();
            let closed = net.udp_bind(b, addr("0.0.0.0:2003")).unwrap();
            net.udp_close(closed);
            for i in 0..fillers {
                let port = 3000 + i as u16;
                net.udp_bind(b, SocketAddr::from(([0, 0, 0, 0], port)))
                    .unwrap();
                net.udp_bind(a, SocketAddr::from(([0, 0, 0, 0], port)))
                    .unwrap();
            }
            assert_eq!(net.sockets.len() > FEW_SOCKETS, fillers > 0);
            // Binds clash by the port index: the wildcard holds 2000, the
            // closed socket no longer holds 2003.
            assert_eq!(
                net.udp_bind(b, addr("10.0.0.2:2000")).unwrap_err().kind(),
                io::ErrorKind::AddrInUse
            );
            let again = net.udp_bind(b, addr("10.0.0.2:2003")).unwrap();
            net.udp_close(again);
            for port in 2000..=2003 {
                let to = SocketAddr::from(([10, 0, 0, 2], port));
                net.udp_send_to(sa, to, &[port as u8], T0).unwrap();
            }
            settle(&mut net, T0);
            let mut buf = [0u8; 4];
            for s in [any, one] {
                assert_eq!(
                    net.udp_recv_from(s, &mut buf).unwrap(),
                    (1, addr("10.0.0.1:1000")),
                    "{fillers} fillers"
                );
            }
            let discarded = net
                .drain_events()
                .filter(|e| {
                    matches!(
                        e,
                        Event::Discarded {
                            reason: Discard::NoSocket,
                            ..
                        }
                    )
                })
                .count();
            // Port 2002's socket takes datagrams from its peer only; 2003's
            // is closed.
            assert_eq!(discarded, 2, "{fillers} fillers");
            net.check_invariants();
        }
    }

    #[test]
    fn connected_socket_filters_sources_and_sends_to_peer() {
        let mut net = Net::default();
        let a = net.add_host("a", []);
        let b = net.add_host("b", []);
        let c = net.add_host("c", []);
        let sa = net.udp_bind(a, addr("0.0.0.0:1000")).unwrap();
        let sc = net.udp_bind(c, addr("0.0.0.0:1000")).unwrap();
        let sb = net.udp_bind(b, addr("0.0.0.0:2000")).unwrap();
        assert_eq!(
            net.udp_send(sb, b"x", T0).unwrap_err().kind(),
            io::ErrorKind::NotConnected
        );
        net.udp_connect(sb, addr("10.0.0.1:1000")).unwrap();
        assert_eq!(net.udp_peer_addr(sb).unwrap(), addr("10.0.0.1:1000"));
        net.udp_send_to(sa, addr("10.0.0.2:2000"), b"from a", T0)
            .unwrap();
        net.udp_send_to(sc, addr("10.0.0.2:2000"), b"from c", T0)
            .unwrap();
        net.udp_send(sb, b"to a", T0).unwrap();
        settle(&mut net, T0);
        let mut buf = [0u8; 16];
        assert_eq!(
            net.udp_recv_from(sb, &mut buf).unwrap(),
            (6, addr("10.0.0.1:1000"))
        );
        assert_eq!(&buf[..6], b"from a");
        assert!(net.udp_recv_from(sb, &mut buf).is_err());
        assert_eq!(net.udp_recv_from(sa, &mut buf).unwrap().0, 4);
        let _ = c;
    }

    /// A datagram to a port nobody holds comes back as ICMP port
    /// unreachable, one link latency later each way; a connected sender
    /// reports `ConnectionRefused` once, on its next receive (before any
    /// queued datagram) or send; an unconnected one, or one connected
    /// elsewhere, ignores it.
    #[test]
    fn port_unreachable_refuses_a_connected_sender_once() {
        let mut net = Net::default();
        let a = net.add_host("a", []);
        let b = net.add_host("b", []);
        let latency = Duration::from_millis(5);
        net.set_link(
            a,
            b,
            LinkConfig::default().with_latency(latency, latency),
            T0,
        );
        net.set_link(
            b,
            a,
            LinkConfig::default().with_latency(latency, latency),
            T0,
        );
        let connected = net.udp_bind(a, addr("0.0.0.0:1000")).unwrap();
        let unconnected = net.udp_bind(a, addr("0.0.0.0:1001")).unwrap();
        let elsewhere = net.udp_bind(a, addr("0.0.0.0:1002")).unwrap();
        net.udp_connect(connected, addr("10.0.0.2:9")).unwrap();
        net.udp_connect(elsewhere, addr("10.0.0.2:3000")).unwrap();
        net.udp_send(connected, b"x", T0).unwrap();
        net.udp_send_to(unconnected, addr("10.0.0.2:9"), b"x", T0)
            .unwrap();
        net.udp_send_to(elsewhere, addr("10.0.0.2:9"), b"x", T0)
            .unwrap();
        // The three arrive where nothing is bound; then a socket binds the
        // port and sends to the connected one, which gets that datagram
        // with the ICMP error: the error is still reported first.
        for id in net.deliverable(latency) {
            net.deliver(id, latency);
        }
        let peer = net.udp_bind(b, addr("0.0.0.0:9")).unwrap();
        net.udp_send_to(peer, addr("10.0.0.1:1000"), b"late", latency)
            .unwrap();
        let mut buf = [0u8; 8];
        let end = settle(&mut net, latency);
        assert_eq!(end, 2 * latency, "the error takes a round trip");
        let sent = net
            .drain_events()
            .filter(|e| matches!(e, Event::Sent { .. }))
            .count();
        assert_eq!(sent, 7, "4 datagrams and 3 ICMP errors");
        assert!(net.udp_has_error(connected));
        assert!(!net.udp_has_error(unconnected));
        assert!(!net.udp_has_error(elsewhere));
        assert_eq!(
            net.udp_recv_from(connected, &mut buf).unwrap_err().kind(),
            io::ErrorKind::ConnectionRefused
        );
        assert!(!net.udp_has_error(connected));
        assert_eq!(
            net.udp_recv_from(connected, &mut buf).unwrap(),
            (4, addr("10.0.0.2:9"))
        );
        // Once more; this time a send reports it, and sends nothing.
        net.udp_close(peer);
        net.udp_send(connected, b"y", end).unwrap();
        let end = settle(&mut net, end);
        net.drain_events().count();
        assert_eq!(
            net.udp_send(connected, b"z", end).unwrap_err().kind(),
            io::ErrorKind::ConnectionRefused
        );
        assert_eq!(net.drain_events().count(), 0, "nothing was sent");
        assert_eq!(net.udp_send(connected, b"z", end).unwrap(), 1);
        // And `take_error` takes it.
        let end = settle(&mut net, end);
        assert_eq!(
            net.udp_take_error(connected).map(|e| e.kind()),
            Some(io::ErrorKind::ConnectionRefused)
        );
        assert!(net.udp_take_error(connected).is_none());
        assert_eq!(
            net.udp_peek_from(connected, &mut buf).unwrap_err().kind(),
            io::ErrorKind::WouldBlock
        );
        for s in [unconnected, elsewhere] {
            assert_eq!(
                net.udp_recv_from(s, &mut buf).unwrap_err().kind(),
                io::ErrorKind::WouldBlock
            );
        }
        let _ = end;
        net.check_invariants();
    }

    /// The ICMP error crosses links like any packet: a partition back to
    /// the sender loses it.
    #[test]
    fn port_unreachable_is_lost_across_a_partition() {
        let mut net = Net::default();
        let a = net.add_host("a", []);
        let b = net.add_host("b", []);
        let s = net.udp_bind(a, addr("0.0.0.0:1000")).unwrap();
        net.udp_connect(s, addr("10.0.0.2:9")).unwrap();
        net.set_partitioned(b, a, true, T0);
        net.udp_send(s, b"x", T0).unwrap();
        settle(&mut net, T0);
        assert!(!net.udp_has_error(s));
        let reasons: Vec<Discard> = net
            .drain_events()
            .filter_map(|e| match e {
                Event::Discarded { reason, .. } => Some(reason),
                _ => None,
            })
            .collect();
        assert_eq!(reasons, vec![Discard::NoSocket, Discard::Partitioned]);
    }

    #[test]
    fn oversized_and_port_zero_are_invalid() {
        let mut net = Net::default();
        let a = net.add_host("a", []);
        let s = net.udp_bind(a, addr("127.0.0.1:0")).unwrap();
        let big = vec![0u8; MAX_DATAGRAM + 1];
        assert_eq!(
            net.udp_send_to(s, addr("127.0.0.1:9"), &big, T0)
                .unwrap_err()
                .kind(),
            io::ErrorKind::InvalidInput
        );
        assert_eq!(
            net.udp_send_to(s, addr("127.0.0.1:0"), b"x", T0)
                .unwrap_err()
                .kind(),
            io::ErrorKind::InvalidInput
        );
        assert_eq!(
            net.udp_send_to(s, addr("10.0.0.5:9"), b"x", T0)
                .unwrap_err()
                .kind(),
            io::ErrorKind::InvalidInput
        );
        assert_eq!(
            net.udp_bind(a, addr("127.0.0.1:49152")).unwrap_err().kind(),
            io::ErrorKind::AddrInUse
        );
    }

    #[test]
    fn overlapping_windows_allow_both_orders() {
        let mut net = Net::default();
        let a = net.add_host("a", []);
        let b = net.add_host("b", []);
        net.set_link(
            a,
            b,
            LinkConfig::default().with_latency(Duration::from_millis(1), Duration::from_millis(10)),
            T0,
        );
        let sa = net.udp_bind(a, addr("0.0.0.0:0")).unwrap();
        let sb = net.udp_bind(b, addr("0.0.0.0:7")).unwrap();
        net.udp_send_to(sa, addr("10.0.0.2:7"), b"1", T0).unwrap();
        net.udp_send_to(sa, addr("10.0.0.2:7"), b"2", Duration::from_millis(2))
            .unwrap();
        let t = Duration::from_millis(3);
        let both = net.deliverable(t);
        assert_eq!(both.len(), 2);
        // Deliver the later one first: datagrams reorder.
        net.deliver(both[1], t);
        net.deliver(both[0], t);
        let mut buf = [0u8; 1];
        net.udp_recv_from(sb, &mut buf).unwrap();
        assert_eq!(&buf, b"2");
    }
}
