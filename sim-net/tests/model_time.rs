//! Model-based tests of the model's answers about time, under random
//! traffic, latency windows (including empty ones), partitions and host
//! stops and restarts: a packet is deliverable only inside its window and
//! (for streams) at the head of its direction; whenever nothing is
//! deliverable the next opening comes no later than the deadline; at the
//! deadline something is deliverable; and time never passes a packet's
//! latest arrival while it is in flight (the model panics if the runtime
//! tries).

mod common;

use common::{ms, World};
use proptest::prelude::*;
use sim_net::{HostId, LinkConfig, Net, NetConfig};

#[derive(Clone, Debug)]
enum Op {
    Write(usize, usize),
    Udp(usize, usize),
    Deliver(usize),
    Advance(u64),
    ToNext,
    ToDeadline,
    Cut(usize, usize),
    Heal(usize, usize),
    Stop(usize),
    Start(usize),
    Relink(usize, usize, u64, u64),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        3 => (0..3usize, 1..20usize).prop_map(|(c, n)| Op::Write(c, n)),
        3 => (0..3usize, 0..3usize).prop_map(|(a, b)| Op::Udp(a, b)),
        6 => any::<usize>().prop_map(Op::Deliver),
        2 => (0..40u64).prop_map(Op::Advance),
        1 => Just(Op::ToNext),
        1 => Just(Op::ToDeadline),
        1 => (0..3usize, 0..3usize).prop_map(|(a, b)| Op::Cut(a, b)),
        1 => (0..3usize, 0..3usize).prop_map(|(a, b)| Op::Heal(a, b)),
        1 => (0..3usize).prop_map(Op::Stop),
        1 => (0..3usize).prop_map(Op::Start),
        1 => (0..3usize, 0..3usize, 0..10u64, 0..10u64).prop_map(|(a, b, m, e)| Op::Relink(a, b, m, e)),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn time_answers_are_consistent(ops in prop::collection::vec(op(), 0..200)) {
        let mut w = World::new(Net::new(NetConfig { mss: 5, ..NetConfig::default() }));
        let hosts: Vec<HostId> = ["a", "b", "c"].iter().map(|n| w.net.add_host(n, [])).collect();
        let (listeners, conns) = w.listen_and_connect_in_a_ring(&hosts);
        let bind = |net: &mut Net, h: HostId| net.udp_bind(h, "0.0.0.0:7".parse().unwrap()).unwrap();
        // A stopped host loses its sockets; a restarted one binds again.
        let mut socks: Vec<_> = hosts.iter().map(|h| Some(bind(&mut w.net, *h))).collect();
        let _ = listeners;
        for op in ops {
            match op {
                Op::Write(c, n) => {
                    // The connection may be connecting, reset or gone.
                    if w.net.tcp_host(conns[c]).is_some_and(|h| w.net.is_up(h)) {
                        let _ = w.net.tcp_write(conns[c], &vec![7; n], w.now);
                    }
                }
                Op::Udp(a, b) => {
                    if let Some(s) = socks[a] {
                        let ip = w.net.host_addrs(hosts[b])[0];
                        w.net.udp_send_to(s, (ip, 7).into(), b"x", w.now).unwrap();
                    }
                }
                Op::Deliver(i) => {
                    let d = w.net.deliverable(w.now);
                    if !d.is_empty() {
                        let id = d[i % d.len()];
                        let win = w.net.packet(id).unwrap().window().unwrap();
                        prop_assert!(win.contains(w.now));
                        w.net.deliver(id, w.now);
                    }
                }
                Op::Advance(dt) => w.advance(ms(dt)),
                Op::ToNext => { w.advance_to_next(); }
                Op::ToDeadline => {
                    if let Some(l) = w.net.latest_arrival() {
                        w.now = l;
                        prop_assert!(!w.net.deliverable(l).is_empty());
                    }
                }
                Op::Cut(a, b) => w.net.set_partitioned(hosts[a], hosts[b], true, w.now),
                Op::Heal(a, b) => w.net.set_partitioned(hosts[a], hosts[b], false, w.now),
                Op::Stop(h) => {
                    w.net.stop_host(hosts[h], w.now);
                    socks[h] = None;
                }
                Op::Start(h) => {
                    w.net.start_host(hosts[h], w.now);
                    if socks[h].is_none() {
                        socks[h] = Some(bind(&mut w.net, hosts[h]));
                    }
                }
                Op::Relink(a, b, min, extra) => {
                    let cfg = LinkConfig {
                        partitioned: w.net.is_partitioned(hosts[a], hosts[b]),
                        ..LinkConfig::default().with_latency(ms(min), ms(min + extra))
                    };
                    w.net.set_link(hosts[a], hosts[b], cfg, w.now);
                }
            }
            w.net.drain_events().for_each(drop);
            w.check();
        }
        // Whatever happened, restarting and healing everything lets the
        // network drain completely.
        for a in 0..3 {
            w.net.start_host(hosts[a], w.now);
            for b in 0..3 {
                w.net.set_partitioned(hosts[a], hosts[b], false, w.now);
            }
        }
        w.settle();
        prop_assert_eq!(w.net.packets().count(), 0);
    }
}

#[test]
#[should_panic(expected = "past the latest arrival")]
fn advancing_past_a_deadline_panics() {
    let mut net = Net::default();
    let a = net.add_host("a", []);
    let b = net.add_host("b", []);
    let _ = b;
    let s = net.udp_bind(a, "0.0.0.0:0".parse().unwrap()).unwrap();
    net.udp_send_to(s, "10.0.0.2:7".parse().unwrap(), b"x", ms(0))
        .unwrap();
    let late = net.latest_arrival().unwrap() + ms(1);
    net.udp_send_to(s, "10.0.0.2:7".parse().unwrap(), b"y", late)
        .unwrap();
}

#[test]
#[should_panic(expected = "time went backwards")]
fn time_going_backwards_panics() {
    let mut net = Net::default();
    let a = net.add_host("a", []);
    net.stop_host(a, ms(5));
    net.start_host(a, ms(4));
}
