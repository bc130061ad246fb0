//! The world's network: the `sim_net` model, the tasks waiting on its
//! endpoints, and the glue that turns its events into wakes, observations
//! and data choices.
//!
//! # How a socket operation runs
//!
//! A socket (`sim_rt::net`) calls [`World::net_op`] with a closure over the
//! model and the current time. The closure runs with the model borrowed;
//! then, with nothing borrowed, the runtime drains the model's events:
//!
//! - `Ready(endpoint, readiness)` wakes the tasks registered on that
//!   endpoint for that readiness ([`World::net_register`]);
//! - `Sent(packet)` is observed, and for a datagram on a lossy or
//!   duplicating link the scheduler is asked the loss and duplication data
//!   choices (option 0, the default, delivers it once). Stream segments
//!   have no such choices, so the model announces them only when the
//!   scheduler observes (`Net::announce_segments`);
//! - `Discarded(packet)` is observed as lost.
//!
//! A `Deliver` step runs the same way, through `World::deliver`, except
//! that the delivery is observed before the events it caused are drained.
//!
//! # Invariants
//!
//! - `deliverable` and `due` are what the model answers for the time and
//!   model generation in `at` (the model bumps its generation whenever a
//!   packet changes).
//! - No `RefCell` of the world is borrowed while a waker is woken.
//!
//! # Determinism
//!
//! Waiters are kept per endpoint in registration order and looked up, never
//! iterated across endpoints; the model's events come in call order.

use std::task::Waker;
use std::time::Duration;

use rustc_hash::FxHashMap;
use sim_net::{Endpoint, Net, NetConfig, PacketId, Readiness};

use super::world::World;
use crate::scheduler::{ChoiceKind, HostId, Observation};

/// What a simulated TCP or UDP socket is in the model.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum IpObj {
    /// Made by `socket(2)`, not yet bound (UDP), listening or connected.
    Fresh,
    Udp(sim_net::SocketId),
    Listener(sim_net::ListenerId),
    Conn(sim_net::ConnId),
}

/// Tasks waiting on one endpoint.
#[derive(Default)]
struct Waiters {
    read: Vec<Waker>,
    write: Vec<Waker>,
}

/// The network part of a world. See the module docs.
pub(crate) struct NetState {
    pub(crate) net: Net,
    waiters: FxHashMap<Endpoint, Waiters>,
    /// Reused buffer for drained events.
    events: Vec<sim_net::Event>,
    /// Reused buffer for the wakers an event batch wakes.
    wakers: Vec<Waker>,
}

impl NetState {
    pub(crate) fn new(config: NetConfig) -> NetState {
        NetState {
            net: Net::new(config),
            waiters: FxHashMap::default(),
            events: Vec::new(),
            wakers: Vec::new(),
        }
    }

    /// The packets deliverable at `now`, the next instant a packet's window
    /// opens after `now`, and the latest instant by which some packet in
    /// flight must be delivered (see `sim_net::Net::schedule`: a cached pass
    /// over a few packets, indexes kept up to date over many).
    pub(crate) fn schedule(
        &mut self,
        now: Duration,
    ) -> (sim_net::Deliverable<'_>, Option<Duration>, Option<Duration>) {
        // Most steps of most simulations have no packet in the network.
        if self.net.packet_count() == 0 {
            return (sim_net::Deliverable::none(), None, None);
        }
        self.net.schedule(now)
    }
}

/// Converts between the runtime's and the model's host ids (both dense, in
/// creation order, created together).
pub(crate) fn sim_host(h: sim_net::HostId) -> HostId {
    HostId(h.as_u64() as u32)
}

impl World {
    /// Runs a socket operation on the model at the current time, then
    /// handles what it caused (see the module docs).
    #[inline(always)]
    pub(crate) fn net_op<R>(&self, f: impl FnOnce(&mut Net, Duration) -> R) -> R {
        let now = self.core.borrow().now;
        let r = {
            let mut st = self.net.borrow_mut();
            f(&mut st.net, now)
        };
        self.net_events();
        r
    }

    /// Reads the model.
    pub(crate) fn net_ref<R>(&self, f: impl FnOnce(&Net) -> R) -> R {
        f(&self.net.borrow().net)
    }

    /// Wakes `waker` the next time `endpoint` reports `interest`.
    pub(crate) fn net_register(&self, endpoint: Endpoint, interest: Readiness, waker: &Waker) {
        let mut st = self.net.borrow_mut();
        let w = st.waiters.entry(endpoint).or_default();
        let add = |list: &mut Vec<Waker>| {
            if !list.iter().any(|x| x.will_wake(waker)) {
                list.push(waker.clone());
            }
        };
        if interest.is_readable() {
            add(&mut w.read);
        }
        if interest.is_writable() {
            add(&mut w.write);
        }
    }

    /// Forgets the waiters of an endpoint whose handle is gone.
    pub(crate) fn net_forget(&self, endpoint: Endpoint) {
        let removed = self.net.borrow_mut().waiters.remove(&endpoint);
        drop(removed); // wakers dropped outside the borrow
    }

    /// Delivers a packet the scheduler picked. `Delivered` is observed
    /// before what the delivery caused (the receiving kernel's replies,
    /// their data choices, packets it discarded), so observers see causes
    /// before effects.
    pub(crate) fn deliver(&self, packet: PacketId) {
        let now = self.core.borrow().now;
        let to = sim_host(self.net.borrow_mut().net.deliver(packet, now));
        self.tell(|| crate::story::Happening::Delivered { packet });
        self.observe(Observation::Delivered { packet, to });
        self.net_events();
    }

    /// Drains the model's events until it has none: wakes, observations,
    /// fault choices (which may cause more events).
    #[inline]
    pub(crate) fn net_events(&self) {
        // Most socket calls queue no event: check before the call.
        if self.net.borrow().net.has_events() {
            self.drain_net_events();
        }
    }

    #[inline(never)]
    fn drain_net_events(&self) {
        loop {
            let (mut events, mut wakers) = {
                let mut guard = self.net.borrow_mut();
                let st = &mut *guard;
                if !st.net.has_events() {
                    return;
                }
                let mut events = std::mem::take(&mut st.events);
                st.net.take_events(&mut events);
                (events, std::mem::take(&mut st.wakers))
            };
            for e in events.drain(..) {
                match e {
                    sim_net::Event::Ready {
                        endpoint,
                        readiness,
                    } => {
                        let mut st = self.net.borrow_mut();
                        if let Some(w) = st.waiters.get_mut(&endpoint) {
                            if readiness.is_readable() {
                                wakers.append(&mut w.read);
                            }
                            if readiness.is_writable() {
                                wakers.append(&mut w.write);
                            }
                        }
                    }
                    sim_net::Event::Sent { packet } => self.on_sent(packet),
                    sim_net::Event::Discarded { packet, reason } => {
                        self.tell(|| crate::story::Happening::Lost {
                            packet,
                            why: match reason {
                                sim_net::Discard::Partitioned => "partitioned",
                                sim_net::Discard::HostDown => "host down",
                                sim_net::Discard::NoSocket => "no socket bound",
                                sim_net::Discard::ReceiveBufferFull => "receive buffer full",
                            },
                        });
                        self.observe(Observation::Lost { packet })
                    }
                }
            }
            for w in wakers.drain(..) {
                w.wake();
            }
            // Give the (empty) buffers back for the next call.
            let mut st = self.net.borrow_mut();
            st.events = events;
            st.wakers = wakers;
        }
    }

    /// A packet was created: observe it and resolve its faults.
    fn on_sent(&self, packet: PacketId) {
        let info = {
            let st = self.net.borrow();
            let Some(p) = st.net.packet(packet) else {
                // Discarded at once; a Discarded event follows.
                if let Some(p) = st.net.discarded_at_send(packet) {
                    self.tell(|| sent_story(packet, p));
                }
                return;
            };
            (
                sim_host(p.src_host()),
                sim_host(p.dst_host()),
                st.net.faults(packet),
            )
        };
        let (from, to, faults) = info;
        self.tell(|| {
            let st = self.net.borrow();
            sent_story(packet, st.net.packet(packet).expect("checked above"))
        });
        if self.observing() {
            let by = self.current().map(|c| c.id);
            self.observe(Observation::Sent {
                packet,
                by,
                from,
                to,
            });
        }
        if faults.is_none() {
            return;
        }
        if faults.loss > 0.0
            && self.choose(
                ChoiceKind::Loss {
                    probability: faults.loss,
                },
                2,
            ) == 1
        {
            self.net.borrow_mut().net.drop_packet(packet);
            self.tell(|| crate::story::Happening::Lost {
                packet,
                why: "lost by chance",
            });
            self.observe(Observation::Lost { packet });
            return;
        }
        if faults.duplicate > 0.0
            && self.choose(
                ChoiceKind::Duplicate {
                    probability: faults.duplicate,
                },
                2,
            ) == 1
        {
            let copy = self.net.borrow_mut().net.duplicate_packet(packet);
            self.tell(|| crate::story::Happening::Duplicated { packet, copy });
            self.observe(Observation::Duplicated { packet, copy });
        }
    }
}

/// The story's words for a packet sent.
fn sent_story(packet: PacketId, p: &sim_net::Packet) -> crate::story::Happening {
    crate::story::Happening::Sent {
        packet,
        from: sim_host(p.src_host()),
        to: sim_host(p.dst_host()),
        kind: match p.kind() {
            sim_net::PacketKind::Datagram => "datagram",
            sim_net::PacketKind::Syn => "SYN",
            sim_net::PacketKind::SynAck => "SYN-ACK",
            sim_net::PacketKind::Data => "data",
            sim_net::PacketKind::Fin => "FIN",
            sim_net::PacketKind::Rst => "RST",
            sim_net::PacketKind::PortUnreachable => "ICMP port unreachable",
        },
        bytes: p.payload().len(),
        text: crate::story::preview(p.payload()),
    }
}

impl World {
    /// Partitions (or heals) the link from `from` to `to`.
    pub(crate) fn set_partitioned(&self, from: HostId, to: HostId, partitioned: bool) {
        let (a, b) = (self.net_host(from), self.net_host(to));
        self.net_op(|net, now| net.set_partitioned(a, b, partitioned, now));
        self.tell(|| crate::story::Happening::Link {
            from,
            to,
            partitioned,
        });
        self.observe(Observation::LinkChanged { from, to });
    }

    /// Heals every partitioned link, in host-id order.
    pub(crate) fn heal_all(&self) {
        let n = self.host_count();
        for a in 0..n {
            for b in 0..n {
                let (a, b) = (HostId(a as u32), HostId(b as u32));
                let (na, nb) = (self.net_host(a), self.net_host(b));
                if self.net_ref(|net| net.is_partitioned(na, nb)) {
                    self.set_partitioned(a, b, false);
                }
            }
        }
    }

    /// Replaces the settings of the link from `from` to `to`.
    pub(crate) fn set_link(&self, from: HostId, to: HostId, config: sim_net::LinkConfig) {
        let (a, b) = (self.net_host(from), self.net_host(to));
        self.net_op(|net, now| net.set_link(a, b, config, now));
        self.observe(Observation::LinkChanged { from, to });
    }
}
