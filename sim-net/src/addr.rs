//! Addressing: which local addresses a socket may bind, which bound address
//! receives a packet, routing a destination to a host, choosing a source
//! address, and ephemeral ports.
//!
//! Rules follow Linux with tokio's socket options:
//!
//! - A host may bind an unspecified address, any loopback address or one of
//!   its own addresses; anything else is `AddrNotAvailable`.
//! - `0.0.0.0` receives IPv4 only; `[::]` is dual-stack (Linux's default
//!   `IPV6_V6ONLY = 0`) and receives IPv4 too.
//! - Two binds of one port conflict when one address receives what the
//!   other does (equal, or a wildcard covering the other). Listeners only
//!   conflict with listeners (tokio sets `SO_REUSEADDR`, so connections
//!   still using the port do not block a new listener).
//! - A destination that is loopback or unspecified is the sending host
//!   itself (Linux treats a connect to `0.0.0.0` as to `127.0.0.1`).
//! - Port 0 picks the next free port of
//!   [`NetConfig::ephemeral_ports`](crate::NetConfig::ephemeral_ports), per
//!   host and protocol, counting up and wrapping.

use std::io;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};

use crate::{error, HostId, Net};

/// Transport protocol, for the per-protocol port spaces.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Proto {
    Tcp = 0,
    Udp = 1,
}

/// Whether a socket bound to `bound` receives packets addressed to `dst`.
pub(crate) fn covers(bound: IpAddr, dst: IpAddr) -> bool {
    bound == dst || (bound.is_unspecified() && (bound.is_ipv6() || dst.is_ipv4()))
}

/// Whether two binds of the same port conflict.
pub(crate) fn overlaps(a: IpAddr, b: IpAddr) -> bool {
    covers(a, b) || covers(b, a)
}

/// The loopback address of `ip`'s family.
pub(crate) fn loopback_of(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V4(_) => IpAddr::V4(Ipv4Addr::LOCALHOST),
        IpAddr::V6(_) => IpAddr::V6(Ipv6Addr::LOCALHOST),
    }
}

/// A destination as routed: unspecified means this host's loopback.
pub(crate) fn effective_dst(ip: IpAddr) -> IpAddr {
    if ip.is_unspecified() {
        loopback_of(ip)
    } else {
        ip
    }
}

impl Net {
    /// `Ok` if `host` may bind `ip`.
    pub(crate) fn check_local_ip(&self, host: HostId, ip: IpAddr) -> io::Result<()> {
        if ip.is_unspecified() || ip.is_loopback() || self.host(host).addrs.contains(&ip) {
            Ok(())
        } else {
            Err(error::addr_not_available(format_args!(
                "{ip} is not an address of host {:?}",
                self.host(host).name
            )))
        }
    }

    /// The host that receives packets `from` sends to `dst` (already
    /// passed through [`effective_dst`]).
    pub(crate) fn route(&self, from: HostId, dst: IpAddr) -> Option<HostId> {
        if dst.is_loopback() {
            Some(from)
        } else {
            self.addrs.get(&dst).copied()
        }
    }

    /// The source address of a packet from a socket of `host` bound to
    /// `bound` towards `dst`.
    pub(crate) fn source_ip(&self, host: HostId, bound: IpAddr, dst: IpAddr) -> io::Result<IpAddr> {
        if bound.is_ipv4() && dst.is_ipv6() {
            return Err(error::invalid_input(format!(
                "an IPv4 socket cannot send to {dst}"
            )));
        }
        if !bound.is_unspecified() {
            if bound.is_ipv6() && dst.is_ipv4() {
                return Err(error::invalid_input(format!(
                    "a socket bound to {bound} cannot send to {dst}"
                )));
            }
            if bound.is_loopback() && !dst.is_loopback() {
                return Err(error::invalid_input(format!(
                    "a socket bound to loopback {bound} cannot reach {dst}"
                )));
            }
            return Ok(bound);
        }
        if dst.is_loopback() {
            return Ok(loopback_of(dst));
        }
        self.host(host)
            .addrs
            .iter()
            .copied()
            .find(|a| a.is_ipv4() == dst.is_ipv4())
            .ok_or_else(|| {
                error::addr_not_available(format_args!(
                    "host {:?} has no address of {dst}'s family",
                    self.host(host).name
                ))
            })
    }

    /// The next free ephemeral port of `host` for `proto`.
    pub(crate) fn ephemeral_port(&mut self, host: HostId, proto: Proto) -> io::Result<u16> {
        let (start, end) = (
            *self.config.ephemeral_ports.start(),
            *self.config.ephemeral_ports.end(),
        );
        let mut port = self.host(host).next_port[proto as usize].clamp(start, end);
        for _ in start..=end {
            let candidate = port;
            port = if port == end { start } else { port + 1 };
            if !self.port_used(host, proto, candidate) {
                self.hosts[host.index()].next_port[proto as usize] = port;
                return Ok(candidate);
            }
        }
        Err(error::addr_not_available(format_args!(
            "every ephemeral port of host {:?} is in use",
            self.host(host).name
        )))
    }

    /// The port a bind of `addr` on `host` gets: a free ephemeral port
    /// for port 0, else `addr`'s own unless another socket of `proto`
    /// holds it on an overlapping address. For TCP that is another
    /// listener: tokio's `TcpListener::bind` sets `SO_REUSEADDR`, with
    /// which Linux lets a listener share a port with connections.
    ///
    /// # Errors
    ///
    /// `AddrInUse`, or `AddrNotAvailable` when no ephemeral port is free.
    pub(crate) fn bind_port(
        &mut self,
        host: HostId,
        proto: Proto,
        addr: SocketAddr,
    ) -> io::Result<u16> {
        if addr.port() == 0 {
            return self.ephemeral_port(host, proto);
        }
        let clash = |h: HostId, local: SocketAddr| {
            h == host && local.port() == addr.port() && overlaps(local.ip(), addr.ip())
        };
        let taken = match proto {
            Proto::Tcp => self.listeners.values().any(|l| clash(l.host, l.local)),
            Proto::Udp => self
                .udp_ports
                .get(&(host, addr.port()))
                .is_some_and(|ids| ids.iter().any(|id| clash(host, self.sockets[id].local))),
        };
        if taken {
            return Err(error::addr_in_use(addr));
        }
        Ok(addr.port())
    }

    /// Whether any socket of `host` holds `port` for `proto`.
    fn port_used(&self, host: HostId, proto: Proto, port: u16) -> bool {
        match proto {
            Proto::Tcp => {
                self.listeners
                    .values()
                    .any(|l| l.host == host && l.local.port() == port)
                    || self
                        .conns
                        .values()
                        .any(|c| c.host == host && c.local.port() == port)
            }
            Proto::Udp => self
                .sockets
                .values()
                .any(|s| s.host == host && s.local.port() == port),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::NetConfig;

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    #[test]
    fn wildcards_cover_their_family_and_v6_is_dual_stack() {
        assert!(covers(ip("0.0.0.0"), ip("10.0.0.1")));
        assert!(!covers(ip("0.0.0.0"), ip("::1")));
        assert!(covers(ip("::"), ip("10.0.0.1")));
        assert!(covers(ip("::"), ip("::1")));
        assert!(!covers(ip("10.0.0.1"), ip("127.0.0.1")));
        assert!(overlaps(ip("0.0.0.0"), ip("::")));
        assert!(!overlaps(ip("0.0.0.0"), ip("::1")));
        assert!(!overlaps(ip("10.0.0.1"), ip("10.0.0.2")));
    }

    #[test]
    fn routing_and_source_selection() {
        let mut net = Net::new(NetConfig::default());
        let a = net.add_host("a", [ip("10.0.0.1"), ip("fd00::1")]);
        let b = net.add_host("b", [ip("10.0.0.2")]);
        assert_eq!(net.route(a, ip("127.0.0.1")), Some(a));
        assert_eq!(net.route(a, effective_dst(ip("0.0.0.0"))), Some(a));
        assert_eq!(net.route(a, ip("10.0.0.2")), Some(b));
        assert_eq!(net.route(a, ip("10.0.0.99")), None);
        let any = ip("::");
        assert_eq!(
            net.source_ip(a, any, ip("10.0.0.2")).unwrap(),
            ip("10.0.0.1")
        );
        assert_eq!(net.source_ip(a, any, ip("fd00::9")).unwrap(), ip("fd00::1"));
        assert_eq!(net.source_ip(a, any, ip("::1")).unwrap(), ip("::1"));
        assert_eq!(
            net.source_ip(b, any, ip("fd00::1")).unwrap_err().kind(),
            io::ErrorKind::AddrNotAvailable
        );
        assert_eq!(
            net.source_ip(a, ip("127.0.0.1"), ip("10.0.0.2"))
                .unwrap_err()
                .kind(),
            io::ErrorKind::InvalidInput
        );
        assert_eq!(
            net.source_ip(a, ip("0.0.0.0"), ip("fd00::2"))
                .unwrap_err()
                .kind(),
            io::ErrorKind::InvalidInput
        );
        assert!(net.check_local_ip(a, ip("10.0.0.2")).is_err());
        assert!(net.check_local_ip(a, ip("127.0.0.5")).is_ok());
    }

    #[test]
    fn ephemeral_ports_count_up_and_wrap() {
        let mut net = Net::new(NetConfig {
            ephemeral_ports: 60000..=60002,
            ..NetConfig::default()
        });
        let a = net.add_host("a", []);
        let ports: Vec<u16> = (0..4)
            .map(|_| net.ephemeral_port(a, Proto::Udp).unwrap())
            .collect();
        // Nothing is bound, so the counter just cycles.
        assert_eq!(ports, vec![60000, 60001, 60002, 60000]);
        // TCP has its own counter.
        assert_eq!(net.ephemeral_port(a, Proto::Tcp).unwrap(), 60000);
    }
}
