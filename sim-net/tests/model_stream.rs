//! Model-based tests of ordered streams: across random interleavings of
//! writes, reads, deliveries, time advances, partitions and half-closes,
//! on links configured with loss and duplication, every byte a `write`
//! accepted arrives exactly once and in order, and a reset host breaks its
//! connections the way a kernel reports it.

mod common;

use std::io::ErrorKind;
use std::net::Shutdown;

use common::{ms, World};
use proptest::prelude::*;
use sim_net::{ConnId, Event, HostId, LinkConfig, Net, NetConfig};

#[derive(Clone, Debug)]
enum Op {
    /// Side 0 is the client, side 1 the server.
    Write(usize, usize),
    Read(usize, usize),
    Deliver(usize),
    Advance(u64),
    Partition,
    Heal,
    Shutdown(usize),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        3 => (0..2usize, 1..40usize).prop_map(|(s, n)| Op::Write(s, n)),
        3 => (0..2usize, 1..40usize).prop_map(|(s, n)| Op::Read(s, n)),
        6 => any::<usize>().prop_map(Op::Deliver),
        2 => (0..25u64).prop_map(Op::Advance),
        1 => Just(Op::Partition),
        1 => Just(Op::Heal),
        1 => (0..2usize).prop_map(Op::Shutdown),
    ]
}

fn link() -> impl Strategy<Value = LinkConfig> {
    (0..5u64, 0..20u64, 0.0..=1.0f64, 0.0..=1.0f64).prop_map(|(min, extra, loss, dup)| {
        LinkConfig::default()
            .with_latency(ms(min), ms(min + extra))
            .with_loss(loss)
            .with_duplicate(dup)
    })
}

fn config() -> impl Strategy<Value = NetConfig> {
    (1..8usize, 1..32usize, 1..32usize).prop_map(|(mss, send, recv)| NetConfig {
        mss,
        send_buffer: send,
        recv_buffer: recv,
        ..NetConfig::default()
    })
}

#[derive(Debug, Default)]
struct Side {
    conn: Option<ConnId>,
    /// Bytes `write` accepted, in order.
    written: Vec<u8>,
    /// Bytes `read` returned, in order.
    received: Vec<u8>,
    shut: bool,
    eof: bool,
}

struct Setup {
    w: World,
    hosts: [HostId; 2],
    sides: [Side; 2],
}

fn connect(config: NetConfig, ab: LinkConfig, ba: LinkConfig) -> Setup {
    let mut w = World::new(Net::new(config));
    let a = w.net.add_host("a", []);
    let b = w.net.add_host("b", []);
    w.net.set_link(a, b, ab, w.now);
    w.net.set_link(b, a, ba, w.now);
    let l = w.net.tcp_listen(b, "0.0.0.0:80".parse().unwrap()).unwrap();
    let ip = w.net.resolve("b").unwrap()[0];
    let c = w.net.tcp_connect(a, (ip, 80).into(), w.now).unwrap();
    w.settle();
    w.net.tcp_finish_connect(c).unwrap();
    let (s, _) = w.net.tcp_accept(l).unwrap();
    let sides = [
        Side {
            conn: Some(c),
            ..Side::default()
        },
        Side {
            conn: Some(s),
            ..Side::default()
        },
    ];
    Setup {
        w,
        hosts: [a, b],
        sides,
    }
}

/// A byte pattern that makes misordering and duplication visible.
fn pattern(start: usize, n: usize) -> Vec<u8> {
    (start..start + n).map(|i| (i % 251) as u8).collect()
}

fn write(w: &mut World, side: &mut Side, n: usize) {
    let conn = side.conn.unwrap();
    let data = pattern(side.written.len(), n);
    match w.net.tcp_write(conn, &data, w.now) {
        Ok(k) => {
            assert!(k > 0 && k <= n && !side.shut);
            side.written.extend_from_slice(&data[..k]);
        }
        Err(e) if e.kind() == ErrorKind::WouldBlock => assert!(!side.shut),
        Err(e) if e.kind() == ErrorKind::BrokenPipe => assert!(side.shut),
        Err(e) => panic!("unexpected write error {e}"),
    }
}

/// Reads; returns whether anything (bytes or EOF) was read.
fn read(w: &mut World, side: &mut Side, peer: &Side, n: usize) -> bool {
    let conn = side.conn.unwrap();
    let mut buf = vec![0u8; n];
    match w.net.tcp_read(conn, &mut buf, w.now) {
        Ok(0) => {
            assert!(peer.shut, "EOF only after the peer shut down");
            assert_eq!(side.received, peer.written, "EOF only after every byte");
            let first = !side.eof;
            side.eof = true;
            first
        }
        Ok(k) => {
            assert!(!side.eof, "no bytes after EOF");
            side.received.extend_from_slice(&buf[..k]);
            assert!(
                peer.written.starts_with(&side.received),
                "received bytes are a prefix of the written ones"
            );
            true
        }
        Err(e) if e.kind() == ErrorKind::WouldBlock => false,
        Err(e) => panic!("unexpected read error {e}"),
    }
}

/// Applies a write, read, delivery or advance; the link and shutdown
/// operations are each test's own.
fn step(w: &mut World, sides: &mut [Side; 2], op: Op) {
    match op {
        Op::Write(s, n) => write(w, &mut sides[s], n),
        Op::Read(s, n) => {
            let [x, y] = sides;
            let (me, peer) = if s == 0 { (x, &*y) } else { (y, &*x) };
            read(w, me, peer, n);
        }
        Op::Deliver(i) => {
            w.deliver_nth(i);
        }
        Op::Advance(dt) => w.advance(ms(dt)),
        Op::Partition | Op::Heal | Op::Shutdown(_) => {
            unreachable!("{op:?} is the test's own")
        }
    }
}

fn no_stream_faults(w: &mut World) {
    let sent: Vec<_> = w
        .net
        .drain_events()
        .filter_map(|e| match e {
            Event::Sent { packet } => Some(packet),
            _ => None,
        })
        .collect();
    for p in sent {
        if w.net.packet(p).is_some() {
            assert!(
                w.net.faults(p).is_none(),
                "stream segments are never lost or duplicated"
            );
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn stream_bytes_arrive_in_order_exactly_once(
        config in config(),
        ab in link(),
        ba in link(),
        ops in prop::collection::vec(op(), 0..200),
    ) {
        let Setup { mut w, hosts: [a, b], mut sides } = connect(config, ab, ba);
        for op in ops {
            match op {
                Op::Partition => w.net.partition(a, b, w.now),
                Op::Heal => w.net.heal(a, b, w.now),
                Op::Shutdown(s) => {
                    if !sides[s].shut {
                        w.net.tcp_shutdown(sides[s].conn.unwrap(), Shutdown::Write, w.now).unwrap();
                        sides[s].shut = true;
                    }
                }
                op => step(&mut w, &mut sides, op),
            }
            no_stream_faults(&mut w);
            w.check();
        }
        // Heal, then deliver and read until nothing moves.
        w.net.heal(a, b, w.now);
        loop {
            w.settle();
            let [x, y] = &mut sides;
            let mut progress = false;
            while read(&mut w, x, y, 64) {
                progress = true;
            }
            while read(&mut w, y, x, 64) {
                progress = true;
            }
            if !progress && w.net.packets().next().is_none() {
                break;
            }
        }
        prop_assert_eq!(&sides[0].received, &sides[1].written);
        prop_assert_eq!(&sides[1].received, &sides[0].written);
        for s in 0..2 {
            prop_assert_eq!(sides[s].eof, sides[1 - s].shut);
        }
    }

    #[test]
    fn reset_host_breaks_connections_like_a_kernel(
        config in config(),
        ab in link(),
        ba in link(),
        ops in prop::collection::vec(op(), 0..100),
        victim in 0..2usize,
        after in prop::collection::vec(any::<usize>(), 0..20),
    ) {
        let Setup { mut w, hosts, mut sides } = connect(config, ab, ba);
        for op in ops {
            match op {
                // No shutdown or partitions here: the survivor must see
                // exactly ConnectionReset.
                Op::Partition | Op::Heal | Op::Shutdown(_) => {}
                op => step(&mut w, &mut sides, op),
            }
            w.check();
        }
        w.net.reset_host(hosts[victim], w.now);
        prop_assert!(w.net.tcp_host(sides[victim].conn.unwrap()).is_none());
        for pick in after {
            w.deliver_nth(pick);
            w.check();
        }
        w.settle();
        let survivor = 1 - victim;
        let conn = sides[survivor].conn.unwrap();
        // Bytes that arrived before the RST, then the reset error, once.
        let mut buf = [0u8; 64];
        let err = loop {
            match w.net.tcp_read(conn, &mut buf, w.now) {
                Ok(k) => {
                    prop_assert!(k > 0, "no EOF before the reset error");
                    sides[survivor].received.extend_from_slice(&buf[..k]);
                }
                Err(e) => break e,
            }
        };
        prop_assert_eq!(err.kind(), ErrorKind::ConnectionReset);
        prop_assert!(sides[victim].written.starts_with(&sides[survivor].received));
        prop_assert_eq!(w.net.tcp_read(conn, &mut buf, w.now).unwrap(), 0);
        prop_assert_eq!(
            w.net.tcp_write(conn, b"x", w.now).unwrap_err().kind(),
            ErrorKind::BrokenPipe
        );
        // The restarted host has no sockets: a new connect is refused.
        let port = 80;
        let ip = w.net.host_addrs(hosts[victim])[0];
        let c = w.net.tcp_connect(hosts[survivor], (ip, port).into(), w.now).unwrap();
        w.settle();
        prop_assert_eq!(
            w.net.tcp_finish_connect(c).unwrap_err().kind(),
            ErrorKind::ConnectionRefused
        );
    }
}
