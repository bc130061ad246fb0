//! Listening stream sockets and their accept queues.
//!
//! A SYN arriving at a host is matched to the listener whose bound address
//! covers the destination, preferring an exact address over a wildcard (as
//! Linux's lookup scores them). The kernel completes the handshake on its
//! own and queues the new endpoint; `accept` only dequeues it. When the
//! queue holds [`NetConfig::backlog`](crate::NetConfig::backlog)
//! connections, further SYNs are refused with RST (Linux's behaviour with
//! `tcp_abort_on_overflow`; by default it drops the SYN and lets the client
//! retry, which the model does not distinguish from a slow network).
//! Closing a listener resets the connections still in its queue.

use std::collections::VecDeque;
use std::io;
use std::net::SocketAddr;
use std::time::Duration;

use crate::addr::{covers, Proto};
use crate::{error, ConnId, HostId, ListenerId, Net};

/// A listening socket.
#[derive(Debug)]
pub(crate) struct Listener {
    pub(crate) host: HostId,
    pub(crate) local: SocketAddr,
    pub(crate) backlog: usize,
    /// Established connections not yet accepted, oldest first.
    pub(crate) queue: VecDeque<ConnId>,
}

impl Net {
    /// Binds a listener on `host` at `addr` (port 0: an ephemeral port),
    /// like `TcpListener::bind`.
    ///
    /// # Errors
    ///
    /// `AddrNotAvailable` if the host does not own the address; `AddrInUse`
    /// if another listener of the host holds the port on an overlapping
    /// address.
    pub fn tcp_listen(&mut self, host: HostId, addr: SocketAddr) -> io::Result<ListenerId> {
        self.running(host);
        self.check_local_ip(host, addr.ip())?;
        let port = self.bind_port(host, Proto::Tcp, addr)?;
        let id = self.ids.listener();
        self.listeners.insert(
            id,
            Listener {
                host,
                local: SocketAddr::new(addr.ip(), port),
                backlog: self.config.backlog,
                queue: VecDeque::new(),
            },
        );
        Ok(id)
    }

    /// Takes the oldest established connection, with its peer's address.
    ///
    /// # Errors
    ///
    /// `WouldBlock` if none is queued.
    pub fn tcp_accept(&mut self, listener: ListenerId) -> io::Result<(ConnId, SocketAddr)> {
        let l = self.listeners.get_mut(&listener).unwrap_or_else(|| {
            panic!("{listener} used after tcp_close_listener or after its host stopped")
        });
        let conn = l.queue.pop_front().ok_or_else(error::would_block)?;
        let c = self
            .conns
            .get(&conn)
            .expect("queued connections are live: only the app or a host stop forgets them");
        Ok((conn, c.remote))
    }

    /// The listener's local address (with the port actually bound).
    pub fn tcp_listener_addr(&self, listener: ListenerId) -> io::Result<SocketAddr> {
        self.listeners
            .get(&listener)
            .map(|l| l.local)
            .ok_or_else(|| error::kind(io::ErrorKind::NotConnected))
    }

    /// Closes the listener at `now`; connections never accepted are reset.
    /// A no-op if it no longer exists.
    pub fn tcp_close_listener(&mut self, listener: ListenerId, now: Duration) {
        self.observe(now);
        if let Some(l) = self.listeners.remove(&listener) {
            for conn in l.queue {
                self.tcp_abort(conn, now);
            }
        }
    }

    /// The listener on `host` that receives a SYN for `dst`.
    pub(crate) fn find_listener(&self, host: HostId, dst: SocketAddr) -> Option<ListenerId> {
        let mut wildcard = None;
        for (id, l) in &self.listeners {
            if l.host == host && l.local.port() == dst.port() && covers(l.local.ip(), dst.ip()) {
                if l.local.ip() == dst.ip() {
                    return Some(*id);
                }
                wildcard.get_or_insert(*id);
            }
        }
        wildcard
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::NetConfig;

    fn addr(s: &str) -> SocketAddr {
        s.parse().unwrap()
    }

    #[test]
    fn bind_conflicts_follow_overlap_rules() {
        let mut net = Net::default();
        let a = net.add_host(
            "a",
            ["10.0.0.1".parse().unwrap(), "fd00::1".parse().unwrap()],
        );
        net.tcp_listen(a, addr("0.0.0.0:80")).unwrap();
        let e = net.tcp_listen(a, addr("10.0.0.1:80")).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::AddrInUse);
        assert_eq!(
            net.tcp_listen(a, addr("[::]:80")).unwrap_err().kind(),
            io::ErrorKind::AddrInUse
        );
        // A specific IPv6 address does not overlap the IPv4 wildcard.
        net.tcp_listen(a, addr("[fd00::1]:80")).unwrap();
        assert_eq!(
            net.tcp_listen(a, addr("10.0.0.7:81")).unwrap_err().kind(),
            io::ErrorKind::AddrNotAvailable
        );
    }

    #[test]
    fn port_zero_picks_ephemeral_ports_skipping_used_ones() {
        let mut net = Net::default();
        let a = net.add_host("a", []);
        net.tcp_listen(a, addr("0.0.0.0:49152")).unwrap();
        let l = net.tcp_listen(a, addr("0.0.0.0:0")).unwrap();
        assert_eq!(net.tcp_listener_addr(l).unwrap(), addr("0.0.0.0:49153"));
    }

    #[test]
    fn syns_find_the_listener_covering_their_destination() {
        let mut net = Net::default();
        let a = net.add_host(
            "a",
            ["10.0.0.1".parse().unwrap(), "fd00::1".parse().unwrap()],
        );
        let v4 = net.tcp_listen(a, addr("0.0.0.0:80")).unwrap();
        let v6 = net.tcp_listen(a, addr("[fd00::1]:80")).unwrap();
        // A wildcard and a specific address of the same family conflict
        // (Linux refuses the bind even with SO_REUSEADDR).
        assert!(net.tcp_listen(a, addr("127.0.0.1:80")).is_err());
        assert_eq!(net.find_listener(a, addr("127.0.0.1:80")), Some(v4));
        assert_eq!(net.find_listener(a, addr("10.0.0.1:80")), Some(v4));
        assert_eq!(net.find_listener(a, addr("[fd00::1]:80")), Some(v6));
        assert_eq!(net.find_listener(a, addr("[::1]:80")), None);
        assert_eq!(net.find_listener(a, addr("10.0.0.1:81")), None);
    }

    #[test]
    fn full_backlog_refuses_and_close_resets_queue() {
        let mut net = Net::new(NetConfig {
            backlog: 1,
            ..NetConfig::default()
        });
        let a = net.add_host("a", []);
        let b = net.add_host("b", []);
        let l = net.tcp_listen(b, addr("0.0.0.0:80")).unwrap();
        let dst = addr("10.0.0.2:80");
        let first = net.tcp_connect(a, dst, Duration::ZERO).unwrap();
        let second = net.tcp_connect(a, dst, Duration::ZERO).unwrap();
        let now = crate::net::settle(&mut net, Duration::ZERO);
        net.tcp_finish_connect(first).unwrap();
        assert_eq!(
            net.tcp_finish_connect(second).unwrap_err().kind(),
            io::ErrorKind::ConnectionRefused
        );
        net.tcp_close_listener(l, now);
        let now = crate::net::settle(&mut net, now);
        let mut buf = [0; 1];
        assert_eq!(
            net.tcp_read(first, &mut buf, now).unwrap_err().kind(),
            io::ErrorKind::ConnectionReset
        );
    }
}
