//! Model-based tests of datagrams: with the runtime's loss and duplication
//! decisions applied, every datagram is received exactly as many times as
//! decided, from the right source, each delivery within its window; and
//! datagrams reorder within overlapping windows (the set of reachable
//! orders is listed exhaustively), but not across disjoint ones.

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::net::SocketAddr;

use common::{ms, World};
use proptest::prelude::*;
use sim_net::{Event, LinkConfig, Net, NetConfig, PacketId, SocketId};

#[derive(Clone, Debug)]
enum Op {
    /// From host, to host, payload length, fate (0 and 3: once, 1: lost,
    /// 2: twice) applied only if the link's odds allow it.
    Send(usize, usize, usize, u8),
    Deliver(usize),
    Advance(u64),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        3 => (0..3usize, 0..3usize, 0..20usize, 0..4u8).prop_map(|(f, t, n, x)| Op::Send(f, t, n, x)),
        4 => any::<usize>().prop_map(Op::Deliver),
        2 => (0..15u64).prop_map(Op::Advance),
    ]
}

fn link() -> impl Strategy<Value = LinkConfig> {
    (0..5u64, 0..20u64, prop::bool::ANY, prop::bool::ANY).prop_map(|(min, extra, lossy, dup)| {
        LinkConfig::default()
            .with_latency(ms(min), ms(min + extra))
            .with_loss(if lossy { 0.3 } else { 0.0 })
            .with_duplicate(if dup { 0.3 } else { 0.0 })
    })
}

/// Payload: 4-byte message number, then padding.
fn payload(msg: u32, n: usize) -> Vec<u8> {
    let mut v = msg.to_be_bytes().to_vec();
    v.resize(4 + n, 0xAB);
    v
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn datagrams_arrive_as_decided(
        links in prop::collection::vec(link(), 9),
        ops in prop::collection::vec(op(), 0..150),
    ) {
        let mut w = World::new(Net::new(NetConfig::default()));
        let hosts: Vec<_> = ["a", "b", "c"].iter().map(|n| w.net.add_host(n, [])).collect();
        for (i, l) in links.into_iter().enumerate() {
            w.net.set_link(hosts[i / 3], hosts[i % 3], l, w.now);
        }
        let socks: Vec<SocketId> = hosts
            .iter()
            .map(|h| w.net.udp_bind(*h, "0.0.0.0:7".parse().unwrap()).unwrap())
            .collect();
        let addr = |w: &World, h: usize| -> SocketAddr {
            (w.net.host_addrs(hosts[h])[0], 7).into()
        };
        // message -> (sender, receiver, expected copies)
        let mut expected: BTreeMap<u32, (usize, usize, usize)> = BTreeMap::new();
        let mut next = 0u32;
        for op in ops {
            match op {
                Op::Send(from, to, n, fate) => {
                    let msg = next;
                    next += 1;
                    let dst = if from == to {
                        "127.0.0.1:7".parse().unwrap()
                    } else {
                        addr(&w, to)
                    };
                    w.net.udp_send_to(socks[from], dst, &payload(msg, n), w.now).unwrap();
                    let sent: Vec<PacketId> = w.net.drain_events().filter_map(|e| match e {
                        Event::Sent { packet } => Some(packet),
                        _ => None,
                    }).collect();
                    prop_assert_eq!(sent.len(), 1);
                    let odds = w.net.faults(sent[0]);
                    let copies = match fate {
                        1 if odds.loss > 0.0 => { w.net.drop_packet(sent[0]); 0 }
                        2 if odds.duplicate > 0.0 => {
                            let c = w.net.duplicate_packet(sent[0]);
                            prop_assert_eq!(
                                w.net.packet(c).unwrap().window(),
                                w.net.packet(sent[0]).unwrap().window()
                            );
                            2
                        }
                        _ => 1,
                    };
                    expected.insert(msg, (from, to, copies));
                }
                Op::Deliver(i) => { w.deliver_nth(i); }
                Op::Advance(dt) => w.advance(ms(dt)),
            }
            w.check();
        }
        w.settle();
        let mut got: BTreeMap<u32, usize> = BTreeMap::new();
        for (to, s) in socks.iter().enumerate() {
            let mut buf = [0u8; 64];
            while let Ok((n, src)) = w.net.udp_recv_from(*s, &mut buf) {
                let msg = u32::from_be_bytes(buf[..4].try_into().unwrap());
                let (from, dst, _) = expected[&msg];
                prop_assert_eq!(dst, to);
                prop_assert_eq!(src.port(), 7);
                if from == to {
                    prop_assert!(src.ip().is_loopback());
                } else {
                    prop_assert_eq!(src, addr(&w, from));
                }
                prop_assert_eq!(&buf[..n], &payload(msg, n - 4)[..]);
                *got.entry(msg).or_default() += 1;
            }
        }
        for (msg, (_, _, copies)) in expected {
            prop_assert_eq!(got.get(&msg).copied().unwrap_or(0), copies, "message {}", msg);
        }
    }
}

/// A scheduler choice, as the runtime's `Deliver(packet)` and `Advance`.
#[derive(Clone, Copy, Debug)]
enum Choice {
    Deliver(PacketId),
    Advance,
}

/// Every outcome (payload bytes read, in order) reachable by any sequence
/// of choices from the state `setup` builds. The model is rebuilt and the
/// choices replayed for each branch, as a stateless search does; this also
/// relies on the model being deterministic (same calls, same packet ids).
fn outcomes(setup: fn() -> (Net, SocketId, std::time::Duration)) -> BTreeSet<Vec<u8>> {
    fn go(
        setup: fn() -> (Net, SocketId, std::time::Duration),
        prefix: &mut Vec<Choice>,
        out: &mut BTreeSet<Vec<u8>>,
    ) {
        let (mut net, sock, mut now) = setup();
        for c in prefix.iter() {
            match c {
                Choice::Deliver(id) => {
                    net.deliver(*id, now);
                }
                Choice::Advance => now = net.next_deliverable_at(now).unwrap(),
            }
        }
        let mut choices: Vec<Choice> = net
            .deliverable(now)
            .into_iter()
            .map(Choice::Deliver)
            .collect();
        if let Some(t) = net.next_deliverable_at(now) {
            if !matches!(net.latest_arrival(), Some(l) if t > l) {
                choices.push(Choice::Advance);
            }
        }
        if choices.is_empty() {
            let mut seq = Vec::new();
            let mut buf = [0u8; 1];
            while net.udp_recv_from(sock, &mut buf).is_ok() {
                seq.push(buf[0]);
            }
            out.insert(seq);
            return;
        }
        for c in choices {
            prefix.push(c);
            go(setup, prefix, out);
            prefix.pop();
        }
    }
    let mut out = BTreeSet::new();
    go(setup, &mut Vec::new(), &mut out);
    out
}

fn set(items: &[&[u8]]) -> BTreeSet<Vec<u8>> {
    items.iter().map(|s| s.to_vec()).collect()
}

/// Three datagrams sent at 0, 1 and 2 ms over a [1 ms, 10 ms] link.
fn overlapping() -> (Net, SocketId, std::time::Duration) {
    let mut net = Net::default();
    let a = net.add_host("a", []);
    let b = net.add_host("b", []);
    net.set_link(
        a,
        b,
        LinkConfig::default().with_latency(ms(1), ms(10)),
        ms(0),
    );
    let sa = net.udp_bind(a, "0.0.0.0:0".parse().unwrap()).unwrap();
    let sb = net.udp_bind(b, "0.0.0.0:7".parse().unwrap()).unwrap();
    for (i, x) in [b"1", b"2", b"3"].iter().enumerate() {
        net.udp_send_to(sa, "10.0.0.2:7".parse().unwrap(), *x, ms(i as u64))
            .unwrap();
    }
    (net, sb, ms(2))
}

/// Two datagrams in flight at once, both sent at 0 ms, whose windows do not
/// overlap: "1" from `a` over a [1, 2] ms link, "2" from `c` over a
/// [6, 7] ms one. Only the bound on time keeps them in that order: at 6 ms
/// both would be deliverable, if time could get there first.
fn disjoint() -> (Net, SocketId, std::time::Duration) {
    let mut net = Net::default();
    let a = net.add_host("a", []);
    let b = net.add_host("b", []);
    let c = net.add_host("c", []);
    net.set_link(
        a,
        b,
        LinkConfig::default().with_latency(ms(1), ms(2)),
        ms(0),
    );
    net.set_link(
        c,
        b,
        LinkConfig::default().with_latency(ms(6), ms(7)),
        ms(0),
    );
    let sa = net.udp_bind(a, "0.0.0.0:0".parse().unwrap()).unwrap();
    let sb = net.udp_bind(b, "0.0.0.0:7".parse().unwrap()).unwrap();
    let sc = net.udp_bind(c, "0.0.0.0:0".parse().unwrap()).unwrap();
    net.udp_send_to(sc, "10.0.0.2:7".parse().unwrap(), b"2", ms(0))
        .unwrap();
    net.udp_send_to(sa, "10.0.0.2:7".parse().unwrap(), b"1", ms(0))
        .unwrap();
    (net, sb, ms(0))
}

#[test]
fn overlapping_windows_reach_every_order() {
    // From 2 ms: every window [i+1, i+10] opens by 3 ms and none closes
    // before 11 ms, so all 3! orders are reachable.
    assert_eq!(
        outcomes(overlapping),
        set(&[b"123", b"132", b"213", b"231", b"312", b"321"])
    );
}

#[test]
fn disjoint_windows_arrive_in_window_order() {
    // Time cannot pass the first datagram's deadline (2 ms) before it is
    // delivered, so "2" (window from 6 ms) can never overtake it.
    assert_eq!(outcomes(disjoint), set(&[b"12"]));
}
