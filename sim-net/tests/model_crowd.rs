//! Model-based test of a crowded network: dozens of hosts send bursts of
//! datagrams and stream segments, so that hundreds of packets are in
//! flight and the packet store indexes itself (past 64 packets), then
//! empties and shrinks back. At every step the runtime's question, asked
//! as the runtime asks it ([`Net::schedule`], with its indexes and lazy
//! heaps), must get the answer of the read-only pass
//! ([`Net::deliverable`], [`Net::next_deliverable_at`],
//! [`Net::latest_arrival`]), through partitions, heals and host resets;
//! and, without partitions or resets, every datagram reaches its socket
//! exactly once.

mod common;

use std::net::{IpAddr, Ipv4Addr, SocketAddr};

use common::{ms, World};
use proptest::prelude::*;
use sim_net::{ConnId, HostId, LinkConfig, Net, NetConfig, SocketId};

const HOSTS: usize = 24;

#[derive(Clone, Debug)]
enum Op {
    /// Host `.0` sends `.1` datagrams, to hosts chosen from `.2`.
    Burst(usize, usize, u64),
    /// Stream `.0` writes `.1` bytes.
    Write(usize, usize),
    Deliver(usize),
    Advance(u64),
    Partition(usize, usize),
    Heal(usize, usize),
    Reset(usize),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        4 => (0..HOSTS, 1..40usize, any::<u64>()).prop_map(|(h, n, s)| Op::Burst(h, n, s)),
        2 => (0..4usize, 1..200usize).prop_map(|(c, n)| Op::Write(c, n)),
        12 => any::<usize>().prop_map(Op::Deliver),
        2 => (0..15u64).prop_map(Op::Advance),
        1 => (0..HOSTS, 0..HOSTS).prop_map(|(a, b)| Op::Partition(a, b)),
        1 => (0..HOSTS, 0..HOSTS).prop_map(|(a, b)| Op::Heal(a, b)),
        1 => (4..HOSTS).prop_map(Op::Reset),
    ]
}

fn ip(h: usize) -> IpAddr {
    IpAddr::V4(Ipv4Addr::new(10, 9, 0, h as u8 + 1))
}

/// The crowd: every host has a datagram socket on port 7; hosts 0-3 each
/// stream to the next over one connection.
struct Crowd {
    w: World,
    hosts: Vec<HostId>,
    /// Each host's socket; `None` after a reset until it binds again.
    sockets: Vec<Option<SocketId>>,
    streams: Vec<ConnId>,
    sent: u64,
    received: u64,
    /// Whether a partition or a reset may have lost datagrams.
    disrupted: bool,
    /// The most packets in the network at once.
    most: usize,
}

impl Crowd {
    fn new(link: LinkConfig) -> Crowd {
        let mut net = Net::new(NetConfig {
            mss: 16,
            ..NetConfig::default()
        });
        let hosts: Vec<HostId> = (0..HOSTS)
            .map(|h| net.add_host(&format!("h{h}"), [ip(h)]))
            .collect();
        for &a in &hosts {
            for &b in &hosts {
                if a != b {
                    net.set_link(a, b, link.clone(), ms(0));
                }
            }
        }
        let mut w = World::new(net);
        let sockets = (0..HOSTS)
            .map(|h| Some(bind(&mut w.net, hosts[h])))
            .collect();
        let mut streams = Vec::new();
        for h in 0..4 {
            let (a, b) = (hosts[h], hosts[(h + 1) % 4]);
            let port = 80 + h as u16;
            let l = w
                .net
                .tcp_listen(b, SocketAddr::new(ip((h + 1) % 4), port))
                .unwrap();
            let c = w
                .net
                .tcp_connect(a, SocketAddr::new(ip((h + 1) % 4), port), w.now)
                .unwrap();
            w.settle();
            w.net.tcp_finish_connect(c).unwrap();
            w.net.tcp_accept(l).unwrap();
            streams.push(c);
        }
        let mut crowd = Crowd {
            w,
            hosts,
            sockets,
            streams,
            sent: 0,
            received: 0,
            disrupted: false,
            most: 0,
        };
        crowd.drain_events();
        crowd
    }

    /// Asks as the runtime does, and checks the answer against the
    /// read-only pass.
    fn ask(&mut self) -> Vec<sim_net::PacketId> {
        let now = self.w.now;
        let want = (
            self.w.net.deliverable(now),
            self.w.net.next_deliverable_at(now),
            self.w.net.latest_arrival(),
        );
        let (d, next, latest) = self.w.net.schedule(now);
        let got = (d.iter().collect::<Vec<_>>(), next, latest);
        assert_eq!(got, want, "the runtime's answer at {now:?}");
        self.w.check();
        got.0
    }

    /// Reads every datagram that arrived.
    fn drain_events(&mut self) {
        self.w.net.drain_events().for_each(drop);
        let mut buf = [0u8; 8];
        for s in self.sockets.iter().flatten() {
            while self.w.net.udp_recv_from(*s, &mut buf).is_ok() {
                self.received += 1;
            }
        }
    }

    fn apply(&mut self, op: Op) {
        let now = self.w.now;
        match op {
            Op::Burst(h, n, mut seed) => {
                let Some(s) = self.sockets[h] else { return };
                for _ in 0..n {
                    seed = seed
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add(1442695040888963407);
                    let to = (seed >> 33) as usize % HOSTS;
                    let dst = SocketAddr::new(ip(to), 7);
                    self.w.net.udp_send_to(s, dst, &[1], now).unwrap();
                    self.sent += 1;
                }
            }
            Op::Write(c, n) => {
                let conn = self.streams[c];
                if self.w.net.tcp_host(conn).is_some() {
                    let _ = self.w.net.tcp_write(conn, &vec![7; n], now);
                }
            }
            Op::Deliver(pick) => {
                let d = self.ask();
                if !d.is_empty() {
                    self.w.net.deliver(d[pick % d.len()], now);
                }
            }
            Op::Advance(t) => self.w.advance(ms(t)),
            Op::Partition(a, b) if a != b => {
                self.disrupted = true;
                self.w.net.partition(self.hosts[a], self.hosts[b], now)
            }
            Op::Heal(a, b) if a != b => self.w.net.heal(self.hosts[a], self.hosts[b], now),
            Op::Partition(..) | Op::Heal(..) => {}
            Op::Reset(h) => {
                self.disrupted = true;
                // Its queued datagrams go with its socket: count them first.
                self.drain_events();
                self.w.net.reset_host(self.hosts[h], now);
                self.sockets[h] = Some(bind(&mut self.w.net, self.hosts[h]));
            }
        }
        self.ask();
        self.drain_events();
        self.most = self.most.max(self.w.net.packet_count());
    }

    /// Heals every path, then delivers everything left, advancing time as
    /// needed.
    fn settle(&mut self) {
        for a in 0..HOSTS {
            for b in 0..HOSTS {
                if a != b {
                    self.w.net.heal(self.hosts[a], self.hosts[b], self.w.now);
                }
            }
        }
        while !self.ask().is_empty() || self.w.advance_to_next() {
            self.apply(Op::Deliver(0));
        }
        self.drain_events();
        assert_eq!(self.w.net.packet_count(), 0, "everything was delivered");
    }
}

fn bind(net: &mut Net, host: HostId) -> SocketId {
    net.udp_bind(host, "0.0.0.0:7".parse().unwrap()).unwrap()
}

/// Fills the network past the index threshold, empties it, and fills it
/// again (the store keeps its buffers between), delivering at random.
#[test]
fn bursts_fill_and_empty_the_indexed_store() {
    let mut c = Crowd::new(LinkConfig::default().with_latency(ms(1), ms(20)));
    for round in 0..3u64 {
        for h in 0..HOSTS {
            c.apply(Op::Burst(h, 12, round * 100 + h as u64));
        }
        assert!(
            c.w.net.packet_count() > 64,
            "{} in flight",
            c.w.net.packet_count()
        );
        let mut pick = round as usize;
        while c.w.net.packet_count() > 0 {
            pick = pick.wrapping_mul(31).wrapping_add(7);
            c.apply(Op::Deliver(pick));
            c.apply(Op::Write(pick % 4, 24));
            if c.ask().is_empty() {
                c.w.advance_to_next();
            }
            if pick % 5 == 0 {
                c.apply(Op::Advance(3));
            }
            if c.w.net.packet_count() > 0 && pick % 11 == 0 {
                c.settle();
            }
        }
        c.settle();
    }
    assert_eq!(c.received, c.sent);
    assert!(c.most > 250, "{}", c.most);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, ..ProptestConfig::default() })]

    #[test]
    fn a_crowded_network_answers_the_runtime_as_a_pass_does(
        ops in proptest::collection::vec(op(), 1..160),
        min in 0..5u64,
        extra in 0..30u64,
    ) {
        let mut c = Crowd::new(LinkConfig::default().with_latency(ms(min), ms(min + extra)));
        for op in ops {
            c.apply(op);
        }
        c.settle();
        prop_assert!(c.received <= c.sent);
        if !c.disrupted {
            prop_assert_eq!(c.received, c.sent);
        }
    }
}
