//! Hosts: named machines with addresses, a kernel that is up or stopped,
//! and per-protocol ephemeral port counters.
//!
//! # Lifecycle (per real-kernel behaviour)
//!
//! - [`Net::stop_host`] is a crash or power-off: every socket of the host
//!   vanishes *silently*. A dead kernel sends nothing, so peers are not
//!   told: their connections stay open ("orphaned"). Datagrams to a stopped
//!   host are lost; stream segments to it (including SYNs of new connects)
//!   wait in their sender's retransmission queue, as TCP keeps
//!   retransmitting. Segments waiting in the stopped host's own
//!   retransmission queue are lost with its memory; packets it had already
//!   put on the wire still arrive.
//! - [`Net::start_host`] boots a fresh kernel: no sockets. Retransmitted
//!   segments now reach it: a SYN is accepted if a listener is bound by then
//!   and refused otherwise; a segment of an old connection finds no
//!   endpoint and is answered with RST. Every orphaned peer gets an RST at
//!   once, standing for the reply to its next retransmission or keepalive,
//!   so that idle peers learn of the crash too (their next read or write
//!   fails with `ConnectionReset`, as the kernel reports it).
//! - [`Net::reset_host`] is a crash followed by an immediate reboot: stop
//!   then start at the same instant. In-flight packets to the host are
//!   discarded, and every peer of one of its connections gets an RST.
//!
//! The runtime drops the host's tasks after calling these; closing a handle
//! of a crashed host is a no-op, so that drop order does not matter.
//!
//! No task of a stopped host runs, so socket operations on a stopped host
//! are a runtime bug and panic.

use std::net::{IpAddr, Ipv4Addr};
use std::time::Duration;

use crate::{ConnId, HostId, Net};

/// One host's kernel state outside its sockets.
#[derive(Debug)]
pub(crate) struct Host {
    pub(crate) name: String,
    /// Addresses other than loopback, in the order given.
    pub(crate) addrs: Vec<IpAddr>,
    pub(crate) up: bool,
    /// Next ephemeral port to try, per protocol.
    pub(crate) next_port: [u16; 2],
}

impl Net {
    /// Adds a host named `name` owning `addrs` (IPv4 and/or IPv6). With no
    /// addresses, it gets the next free IPv4 address counting up from
    /// `10.0.0.1`. Every host also answers on loopback (`127.0.0.0/8`,
    /// `::1`). The host starts up.
    ///
    /// # Panics
    ///
    /// If the name is empty, is `localhost`, is an IP literal or is taken;
    /// or if an address is loopback, unspecified, multicast or already owned
    /// by another host.
    pub fn add_host(&mut self, name: &str, addrs: impl IntoIterator<Item = IpAddr>) -> HostId {
        let key = crate::resolve::normalize(name);
        let is_ip = || crate::resolve::may_be_ip(&key) && key.parse::<IpAddr>().is_ok();
        assert!(
            !key.is_empty() && key != "localhost" && !is_ip(),
            "host name {name:?} is reserved or empty"
        );
        assert!(
            !self.names.contains_key(&*key),
            "host name {name:?} is already taken"
        );
        let id = HostId(self.hosts.len() as u64);
        let mut addrs: Vec<IpAddr> = addrs.into_iter().collect();
        if addrs.is_empty() {
            let mut n = u32::from(Ipv4Addr::new(10, 0, 0, 1));
            while self.addrs.contains_key(&IpAddr::V4(Ipv4Addr::from(n))) {
                n += 1;
            }
            addrs.push(IpAddr::V4(Ipv4Addr::from(n)));
        }
        for ip in &addrs {
            assert!(
                !ip.is_loopback() && !ip.is_unspecified() && !ip.is_multicast(),
                "host {name:?}: {ip} cannot be a host address (loopback, unspecified or multicast)"
            );
            if let Some(owner) = self.addrs.insert(*ip, id) {
                panic!(
                    "host {name:?}: address {ip} is already owned by host {:?}",
                    self.hosts[owner.index()].name
                );
            }
        }
        let first = *self.config.ephemeral_ports.start();
        self.hosts.push(Host {
            name: name.to_owned(),
            addrs,
            up: true,
            next_port: [first; 2],
        });
        self.names.insert(key.into_owned(), id);
        id
    }

    /// All hosts, in the order they were added.
    pub fn hosts(&self) -> impl Iterator<Item = HostId> + '_ {
        (0..self.hosts.len() as u64).map(HostId)
    }

    /// The host's name, as given to [`Net::add_host`].
    pub fn host_name(&self, host: HostId) -> &str {
        &self.host(host).name
    }

    /// The host's own (non-loopback) addresses.
    pub fn host_addrs(&self, host: HostId) -> &[IpAddr] {
        &self.host(host).addrs
    }

    /// The host named `name` (case-insensitive, as DNS), if any.
    pub fn host_by_name(&self, name: &str) -> Option<HostId> {
        self.names.get(&*crate::resolve::normalize(name)).copied()
    }

    /// The host that owns `ip` (loopback addresses belong to no one host).
    pub fn host_by_addr(&self, ip: IpAddr) -> Option<HostId> {
        self.addrs.get(&ip).copied()
    }

    /// Whether the host's kernel is running.
    pub fn is_up(&self, host: HostId) -> bool {
        self.host(host).up
    }

    /// Crashes the host at `now` and leaves it down. See the module docs.
    /// Stopping a stopped host does nothing.
    pub fn stop_host(&mut self, host: HostId, now: Duration) {
        self.observe(now);
        if !self.host(host).up {
            return;
        }
        self.hosts[host.index()].up = false;

        let dead: Vec<ConnId> = self
            .conns
            .iter()
            .filter(|(_, c)| c.host == host)
            .map(|(id, _)| id)
            .collect();
        for id in dead {
            let c = self.conns.remove(&id).expect("collected from the table");
            if let Some(peer) = c.peer.and_then(|p| self.conns.get_mut(&p)) {
                peer.peer_crashed = true;
            }
        }
        self.listeners.retain(|_, l| l.host != host);
        self.sockets.retain(|_, s| s.host != host);
        self.udp_ports.retain(|(h, _), _| *h != host);
        self.unix.stop_host(host);
        self.pipes.stop_host(host);

        // Packets in flight to the host: datagrams are lost, segments go
        // back to their senders' retransmission queues.
        self.reconcile(now);
        // The dead kernel's own retransmission queue is gone.
        let lost: Vec<_> = self
            .packets
            .iter()
            .filter(|(_, p)| p.src_host == host && p.window.is_none())
            .map(|(id, _)| id)
            .collect();
        for id in lost {
            self.discard(id, crate::Discard::HostDown);
        }
    }

    /// Boots a fresh kernel on a stopped host at `now`. See the module docs.
    /// Starting a running host does nothing.
    pub fn start_host(&mut self, host: HostId, now: Duration) {
        self.observe(now);
        if self.host(host).up {
            return;
        }
        self.hosts[host.index()].up = true;
        let orphans: Vec<ConnId> = self
            .conns
            .iter()
            .filter(|(_, c)| c.peer_crashed && c.remote_host == host)
            .map(|(id, _)| id)
            .collect();
        for id in orphans {
            let c = self.conns.get_mut(&id).expect("collected from the table");
            c.peer_crashed = false;
            let (dst_host, src, dst, dead) = (c.host, c.remote, c.local, c.peer);
            self.reply_rst(now, (host, src), (dst_host, dst), dead, id);
        }
        self.reconcile(now);
    }

    /// Crashes the host and boots it again at `now` (stop, then start). See
    /// the module docs.
    pub fn reset_host(&mut self, host: HostId, now: Duration) {
        self.stop_host(host, now);
        self.start_host(host, now);
    }

    pub(crate) fn host(&self, host: HostId) -> &crate::host::Host {
        self.hosts
            .get(host.index())
            .unwrap_or_else(|| panic!("{host} was never added to this Net"))
    }

    /// Panics unless the host is up: only tasks of running hosts use sockets.
    pub(crate) fn running(&self, host: HostId) {
        assert!(
            self.host(host).up,
            "socket operation on stopped host {:?}: the runtime must not run tasks of a stopped host",
            self.host(host).name
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::NetConfig;

    #[test]
    fn hosts_get_names_and_addresses() {
        let mut net = Net::new(NetConfig::default());
        let a = net.add_host("a", []);
        let v6: IpAddr = "fd00::2".parse().unwrap();
        let b = net.add_host("B", [IpAddr::V4(Ipv4Addr::new(10, 0, 0, 2)), v6]);
        let c = net.add_host("c", []);
        assert_eq!(net.host_addrs(a), &[IpAddr::V4(Ipv4Addr::new(10, 0, 0, 1))]);
        // Auto-assignment skips addresses already taken.
        assert_eq!(net.host_addrs(c), &[IpAddr::V4(Ipv4Addr::new(10, 0, 0, 3))]);
        assert_eq!(net.host_by_name("b"), Some(b));
        assert_eq!(net.host_by_addr(v6), Some(b));
        assert_eq!(net.host_name(b), "B");
        assert_eq!(net.hosts().collect::<Vec<_>>(), vec![a, b, c]);
        assert!(net.is_up(a));
    }

    #[test]
    #[should_panic(expected = "already taken")]
    fn duplicate_names_panic() {
        let mut net = Net::new(NetConfig::default());
        net.add_host("a", []);
        net.add_host("A", []);
    }

    #[test]
    #[should_panic(expected = "already owned")]
    fn duplicate_addresses_panic() {
        let mut net = Net::new(NetConfig::default());
        let ip = IpAddr::V4(Ipv4Addr::new(10, 9, 9, 9));
        net.add_host("a", [ip]);
        net.add_host("b", [ip]);
    }

    #[test]
    #[should_panic(expected = "reserved")]
    fn localhost_is_reserved() {
        Net::new(NetConfig::default()).add_host("localhost", []);
    }

    #[test]
    fn stop_and_start_toggle_up() {
        let mut net = Net::new(NetConfig::default());
        let a = net.add_host("a", []);
        net.stop_host(a, Duration::ZERO);
        assert!(!net.is_up(a));
        net.stop_host(a, Duration::ZERO);
        net.start_host(a, Duration::ZERO);
        assert!(net.is_up(a));
        net.reset_host(a, Duration::ZERO);
        assert!(net.is_up(a));
    }

    /// Client on `a`, server on `b`, connected; returns (net, a, b, client, server, now).
    fn connected() -> (Net, HostId, HostId, ConnId, ConnId, Duration) {
        let mut net = Net::new(NetConfig::default());
        let a = net.add_host("a", []);
        let b = net.add_host("b", []);
        let l = net.tcp_listen(b, "0.0.0.0:80".parse().unwrap()).unwrap();
        let c = net
            .tcp_connect(a, "10.0.0.2:80".parse().unwrap(), Duration::ZERO)
            .unwrap();
        let now = crate::net::settle(&mut net, Duration::ZERO);
        let (s, _) = net.tcp_accept(l).unwrap();
        (net, a, b, c, s, now)
    }

    #[test]
    fn reset_host_resets_peers_and_discards_inflight() {
        let (mut net, a, b, c, s, now) = connected();
        let sa = net.udp_bind(a, "0.0.0.0:0".parse().unwrap()).unwrap();
        net.udp_bind(b, "0.0.0.0:7".parse().unwrap()).unwrap();
        net.udp_send_to(sa, "10.0.0.2:7".parse().unwrap(), b"x", now)
            .unwrap();
        net.tcp_write(c, b"to the void", now).unwrap();
        net.drain_events().for_each(drop);
        net.reset_host(b, now);
        assert!(net.tcp_host(s).is_none(), "the host's endpoints are gone");
        assert!(net.drain_events().any(|e| matches!(
            e,
            crate::Event::Discarded {
                reason: crate::Discard::HostDown,
                ..
            }
        )));
        let now = crate::net::settle(&mut net, now);
        let mut buf = [0u8; 8];
        assert_eq!(
            net.tcp_read(c, &mut buf, now).unwrap_err().kind(),
            std::io::ErrorKind::ConnectionReset
        );
        assert_eq!(net.tcp_read(c, &mut buf, now).unwrap(), 0);
        assert_eq!(
            net.tcp_write(c, b"x", now).unwrap_err().kind(),
            std::io::ErrorKind::BrokenPipe
        );
        net.check_invariants();
    }

    #[test]
    fn stopped_host_is_silent_until_it_restarts() {
        let (mut net, a, b, c, _, now) = connected();
        net.stop_host(b, now);
        // The peer is not told: it can still write, into its send buffer.
        assert!(net.tcp_write(c, b"hello?", now).is_ok());
        let now = crate::net::settle(&mut net, now);
        assert!(
            net.packets().all(|(_, p)| p.window().is_none()),
            "segments wait, held"
        );
        assert_eq!(net.latest_arrival(), None);
        let mut buf = [0u8; 8];
        assert_eq!(
            net.tcp_read(c, &mut buf, now).unwrap_err().kind(),
            std::io::ErrorKind::WouldBlock
        );
        // A new connect to the stopped host waits too.
        let c2 = net
            .tcp_connect(a, "10.0.0.2:80".parse().unwrap(), now)
            .unwrap();
        let now = now + Duration::from_secs(60);
        net.start_host(b, now);
        // Booted: a listener is bound before the retransmitted SYN arrives.
        let l = net.tcp_listen(b, "0.0.0.0:80".parse().unwrap()).unwrap();
        let now = crate::net::settle(&mut net, now);
        assert_eq!(
            net.tcp_read(c, &mut buf, now).unwrap_err().kind(),
            std::io::ErrorKind::ConnectionReset
        );
        net.tcp_finish_connect(c2).unwrap();
        assert!(net.tcp_accept(l).is_ok());
    }

    #[test]
    fn connect_to_restarted_host_without_listener_is_refused() {
        let mut net = Net::new(NetConfig::default());
        let a = net.add_host("a", []);
        let b = net.add_host("b", []);
        net.stop_host(b, Duration::ZERO);
        let c = net
            .tcp_connect(a, "10.0.0.2:80".parse().unwrap(), Duration::ZERO)
            .unwrap();
        assert!(net.deliverable(Duration::from_secs(1)).is_empty());
        net.start_host(b, Duration::from_secs(1));
        let now = crate::net::settle(&mut net, Duration::from_secs(1));
        assert!(
            now > Duration::from_secs(1),
            "the SYN's window starts at the restart"
        );
        assert_eq!(
            net.tcp_finish_connect(c).unwrap_err().kind(),
            std::io::ErrorKind::ConnectionRefused
        );
    }

    #[test]
    #[should_panic(expected = "stopped host")]
    fn sockets_on_a_stopped_host_panic() {
        let mut net = Net::new(NetConfig::default());
        let a = net.add_host("a", []);
        net.stop_host(a, Duration::ZERO);
        let _ = net.udp_bind(a, "0.0.0.0:0".parse().unwrap());
    }
}
