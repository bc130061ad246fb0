//! Model-based tests of partitions: across random one-way partitions and
//! heals among three hosts carrying stream and datagram traffic, nothing is
//! ever delivered across a partitioned link (not even packets that were in
//! flight when it was cut), and once everything heals the streams deliver
//! every byte in order.

mod common;

use std::collections::BTreeSet;
use std::io::ErrorKind;

use common::{ms, World};
use proptest::prelude::*;
use sim_net::{ConnId, Event, HostId, LinkConfig, Net, NetConfig, PacketKind, SocketId};

#[derive(Clone, Debug)]
enum Op {
    Cut(usize, usize),
    Heal(usize, usize),
    Write(usize, usize),
    Read(usize),
    Udp(usize, usize),
    Deliver(usize),
    Advance(u64),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        1 => (0..3usize, 0..3usize).prop_map(|(a, b)| Op::Cut(a, b)),
        1 => (0..3usize, 0..3usize).prop_map(|(a, b)| Op::Heal(a, b)),
        3 => (0..3usize, 1..30usize).prop_map(|(c, n)| Op::Write(c, n)),
        2 => (0..3usize).prop_map(Op::Read),
        2 => (0..3usize, 0..3usize).prop_map(|(a, b)| Op::Udp(a, b)),
        6 => any::<usize>().prop_map(Op::Deliver),
        2 => (0..30u64).prop_map(Op::Advance),
    ]
}

struct Mesh {
    w: World,
    hosts: Vec<HostId>,
    /// Connection i goes from host i to host (i+1)%3: (writer, reader).
    conns: Vec<(ConnId, ConnId)>,
    socks: Vec<SocketId>,
}

fn mesh() -> Mesh {
    let mut w = World::new(Net::new(NetConfig {
        mss: 7,
        send_buffer: 40,
        recv_buffer: 20,
        ..NetConfig::default()
    }));
    let hosts: Vec<HostId> = ["a", "b", "c"]
        .iter()
        .map(|n| w.net.add_host(n, []))
        .collect();
    w.net
        .set_default_link(LinkConfig::default().with_latency(ms(1), ms(15)), w.now);
    let (listeners, writers) = w.listen_and_connect_in_a_ring(&hosts);
    w.settle();
    let conns = (0..3)
        .map(|i| {
            w.net.tcp_finish_connect(writers[i]).unwrap();
            let (r, _) = w.net.tcp_accept(listeners[(i + 1) % 3]).unwrap();
            (writers[i], r)
        })
        .collect();
    let socks = hosts
        .iter()
        .map(|h| w.net.udp_bind(*h, "0.0.0.0:7".parse().unwrap()).unwrap())
        .collect();
    Mesh {
        w,
        hosts,
        conns,
        socks,
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn partitions_deliver_nothing_across(ops in prop::collection::vec(op(), 0..200)) {
        let Mesh { mut w, hosts, conns, socks } = mesh();
        let mut written = vec![Vec::<u8>::new(); 3];
        let mut read = vec![Vec::<u8>::new(); 3];
        // Links cut since the packet was sent: a packet sent before a cut
        // and delivered after it would be a bug too.
        let mut cut: BTreeSet<(usize, usize)> = BTreeSet::new();
        let idx = |h: HostId| hosts.iter().position(|x| *x == h).unwrap();
        for op in ops {
            match op {
                Op::Cut(a, b) => {
                    w.net.set_partitioned(hosts[a], hosts[b], true, w.now);
                    cut.insert((a, b));
                    // Nothing in flight crosses it any more.
                    for (_, p) in w.net.packets() {
                        if (idx(p.src_host()), idx(p.dst_host())) == (a, b) {
                            prop_assert!(p.window().is_none());
                            prop_assert!(p.kind().is_stream(), "datagrams in flight are lost");
                        }
                    }
                }
                Op::Heal(a, b) => {
                    w.net.set_partitioned(hosts[a], hosts[b], false, w.now);
                    cut.remove(&(a, b));
                }
                Op::Write(c, n) => {
                    let data: Vec<u8> = (written[c].len()..written[c].len() + n).map(|i| i as u8).collect();
                    match w.net.tcp_write(conns[c].0, &data, w.now) {
                        Ok(k) => written[c].extend_from_slice(&data[..k]),
                        Err(e) => prop_assert_eq!(e.kind(), ErrorKind::WouldBlock),
                    }
                }
                Op::Read(c) => {
                    let mut buf = [0u8; 16];
                    match w.net.tcp_read(conns[c].1, &mut buf, w.now) {
                        Ok(k) => read[c].extend_from_slice(&buf[..k]),
                        Err(e) => prop_assert_eq!(e.kind(), ErrorKind::WouldBlock),
                    }
                    prop_assert!(written[c].starts_with(&read[c]));
                }
                Op::Udp(a, b) => {
                    let ip = w.net.host_addrs(hosts[b])[0];
                    w.net.udp_send_to(socks[a], (ip, 7).into(), b"dgram", w.now).unwrap();
                    if cut.contains(&(a, b)) {
                        let lost = w.net.drain_events().any(|e| matches!(e, Event::Discarded { .. }));
                        prop_assert!(lost, "a datagram sent across a partition is lost");
                    }
                }
                Op::Deliver(i) => {
                    let d = w.net.deliverable(w.now);
                    if !d.is_empty() {
                        let id = d[i % d.len()];
                        let p = w.net.packet(id).unwrap();
                        let link = (idx(p.src_host()), idx(p.dst_host()));
                        prop_assert!(!cut.contains(&link), "{:?} delivered across a cut link", p.kind());
                        w.net.deliver(id, w.now);
                    }
                }
                Op::Advance(dt) => w.advance(ms(dt)),
            }
            w.check();
        }
        // Heal everything; every byte written arrives, in order.
        for a in 0..3 {
            for b in 0..3 {
                w.net.set_partitioned(hosts[a], hosts[b], false, w.now);
            }
        }
        loop {
            w.settle();
            let mut progress = false;
            for c in 0..3 {
                let mut buf = [0u8; 64];
                while let Ok(k) = w.net.tcp_read(conns[c].1, &mut buf, w.now) {
                    prop_assert!(k > 0);
                    read[c].extend_from_slice(&buf[..k]);
                    progress = true;
                }
            }
            if !progress {
                break;
            }
        }
        prop_assert_eq!(read, written);
        prop_assert!(w.net.packets().all(|(_, p)| p.kind() != PacketKind::Rst));
    }
}
