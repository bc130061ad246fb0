//! The network: every host, link, socket and packet, and the answers the
//! runtime's choice point needs (what is deliverable now, when something
//! next becomes deliverable, how far time may advance).
//!
//! # Invariants
//!
//! - `now` only grows, and no packet in flight has a window that closed
//!   before `now` (the runtime delivers every packet before its `latest`;
//!   checked on every call that takes `now` in debug builds).
//! - The flow of a stream endpoint `f` is the segments in the network whose
//!   sender is `f`, in send (= id) order; only its oldest is deliverable.
//!   Its windows are monotonic, and it is either all in flight or all held.
//! - A stream endpoint's `in_flight` equals the data bytes of its flow.
//!
//! [`Net::check_invariants`] checks all of these and those of the stream
//! endpoints and the packet store (whose indexes answer
//! [`Net::schedule`] and [`Net::schedule_into`]; they are checked against a
//! scan of the flows); the tests call it after every step.

use std::collections::BTreeMap;
use std::net::{IpAddr, SocketAddr};
use std::time::Duration;

use bytes::Bytes;
use rustc_hash::FxHashMap;

use crate::datagram::Socket;
use crate::host::Host;
use crate::id::IdGen;
use crate::link::Links;
use crate::listener::Listener;
use crate::packet::{Body, Segment};
use crate::store::Deliverable;
use crate::store::Packets;
use crate::table::{Conns, Table};
use crate::{
    ConnId, Discard, Event, HostId, ListenerId, NetConfig, Packet, PacketId, SocketId, Window,
};

/// The simulated network: a pure, deterministic model. See the crate docs.
#[derive(Debug)]
pub struct Net {
    pub(crate) config: NetConfig,
    /// The latest time the model was told.
    pub(crate) now: Duration,
    pub(crate) hosts: Vec<Host>,
    pub(crate) names: BTreeMap<String, HostId>,
    /// Which host owns each address. Only looked up, never iterated, so a
    /// hash map (a B-tree's comparisons of `IpAddr`s cost a tenth of a
    /// 1,000-host gossip's instructions).
    pub(crate) addrs: FxHashMap<IpAddr, HostId>,
    pub(crate) links: Links,
    pub(crate) ids: IdGen,
    /// Every packet in flight or held, by id (= send order).
    pub(crate) packets: Packets,
    pub(crate) conns: Conns,
    pub(crate) listeners: BTreeMap<ListenerId, Listener>,
    pub(crate) sockets: Table<SocketId, Socket>,
    /// The datagram sockets of each (host, local port), in id order: where
    /// a bind looks for a clash, and where a datagram arriving at that port
    /// looks for its socket once the network has more than a few (a pass
    /// over every socket of the network, below that).
    pub(crate) udp_ports: BTreeMap<(HostId, u16), Vec<SocketId>>,
    pub(crate) unix: crate::unix::UnixSockets,
    pub(crate) pipes: crate::pipe::Pipes,
    pub(crate) events: Vec<Event>,
    /// Datagrams discarded as they were sent (a blocked path), since the
    /// last [`Net::take_events`]...
    pub(crate) blocked_at_send: Vec<Packet>,
    /// ...and those of the batch the last `take_events` handed out, for
    /// [`Net::discarded_at_send`].
    pub(crate) last_blocked: Vec<Packet>,
    /// Whether `Event::Sent` is queued for stream segments too.
    announce_segments: bool,
}

impl Default for Net {
    fn default() -> Self {
        Net::new(NetConfig::default())
    }
}

impl Net {
    /// An empty network (no hosts) at time zero.
    ///
    /// # Panics
    ///
    /// If the configuration is invalid (see [`NetConfig`]'s fields).
    pub fn new(config: NetConfig) -> Self {
        config.validate();
        Net {
            links: Links::new(&config),
            config,
            now: Duration::ZERO,
            hosts: Vec::new(),
            names: BTreeMap::new(),
            addrs: FxHashMap::default(),
            ids: IdGen::default(),
            packets: Packets::default(),
            conns: Conns::default(),
            listeners: BTreeMap::new(),
            sockets: Table::default(),
            udp_ports: BTreeMap::new(),
            unix: crate::unix::UnixSockets::default(),
            pipes: crate::pipe::Pipes::default(),
            events: Vec::new(),
            blocked_at_send: Vec::new(),
            last_blocked: Vec::new(),
            announce_segments: true,
        }
    }

    /// Whether [`Event::Sent`] is queued for stream segments as well as
    /// for datagrams (by default, yes).
    ///
    /// Segments have no faults to choose (see [`Net::faults`]), so a
    /// runtime that does not report packets to anyone can turn their
    /// announcements off and skip an event per segment. A segment that
    /// leaves the network undelivered is still reported by
    /// [`Event::Discarded`].
    pub fn announce_segments(&mut self, on: bool) {
        self.announce_segments = on;
    }

    /// The configuration.
    pub fn config(&self) -> &NetConfig {
        &self.config
    }

    /// The latest time the model was told.
    pub fn now(&self) -> Duration {
        self.now
    }

    /// A packet in flight or held, if it is still in the network.
    #[inline]
    pub fn packet(&self, id: PacketId) -> Option<&Packet> {
        self.packets.get(id)
    }

    /// A datagram of the last batch of events ([`Net::take_events`]) that
    /// was discarded as it was sent (its path was partitioned or its
    /// destination down), which [`Net::packet`] no longer knows: for
    /// telling what it was.
    pub fn discarded_at_send(&self, id: PacketId) -> Option<&Packet> {
        self.last_blocked.iter().find(|p| p.id == id)
    }

    /// A number that changes whenever a packet enters or leaves the network
    /// or its window changes; while it and `now` stay the same,
    /// [`Net::schedule_into`] gives the same answer.
    pub fn generation(&self) -> u64 {
        self.packets.generation()
    }

    /// How many packets are in the network (in flight or held).
    pub fn packet_count(&self) -> usize {
        self.packets.len()
    }

    /// Every packet in the network (in flight or held), in send order.
    pub fn packets(&self) -> impl Iterator<Item = (PacketId, &Packet)> + '_ {
        self.packets.iter()
    }

    /// The packets that may be delivered at `now`, in send order: in
    /// flight, window open, and, for a stream segment, the oldest
    /// undelivered segment of its direction. Each is a `Deliver` event for
    /// the scheduler.
    pub fn deliverable(&self, now: Duration) -> Vec<PacketId> {
        let mut out = Vec::new();
        self.schedule_into(now, &mut out);
        out
    }

    /// [`Net::schedule_into`] for a runtime that asks at every step, with a
    /// clock that never goes back: the deliverable packets (a view of the
    /// store's own index, in send order), the next opening and the latest
    /// arrival. A few packets are answered by a pass over them, cached until
    /// they or `now` change; past the store's index threshold (64 packets)
    /// it costs a logarithm per packet that entered, left or opened since
    /// the last call, not a pass over the packets in flight.
    ///
    /// # Panics
    ///
    /// If `now` is earlier than at the last call.
    pub fn schedule(
        &mut self,
        now: Duration,
    ) -> (Deliverable<'_>, Option<Duration>, Option<Duration>) {
        self.packets.schedule(now)
    }

    /// [`Net::deliverable`] (appended to `out`),
    /// [`Net::next_deliverable_at`] and [`Net::latest_arrival`] at once,
    /// for any `now`, from the store's indexes (the other three are this
    /// one, so the model's tests of them test it).
    pub fn schedule_into(
        &self,
        now: Duration,
        out: &mut Vec<PacketId>,
    ) -> (Option<Duration>, Option<Duration>) {
        self.packets.schedule_into(now, out)
    }

    /// The earliest instant after `now` at which a packet that is not
    /// deliverable at `now` becomes deliverable, if no delivery happens in
    /// between. `Advance` may move time to it if that does not pass
    /// [`Net::latest_arrival`].
    pub fn next_deliverable_at(&self, now: Duration) -> Option<Duration> {
        self.schedule_into(now, &mut Vec::new()).0
    }

    /// The instant by which some packet in flight must have been delivered:
    /// the smallest `latest` of all windows. Time must not advance past it.
    /// `None` when nothing is in flight (held packets do not count: they
    /// wait for a heal or a restart, which no amount of time brings).
    ///
    /// Whenever `latest_arrival() == Some(t)`, some packet is deliverable at
    /// `t` (the head of the flow holding the packet with that deadline), so
    /// the runtime can always honour it.
    pub fn latest_arrival(&self) -> Option<Duration> {
        self.schedule_into(self.now, &mut Vec::new()).1
    }

    /// Delivers packet `id` at `now`: the receiving kernel processes it,
    /// which may queue data, complete a handshake, send replies and queue
    /// events. Returns the receiving host.
    ///
    /// # Panics
    ///
    /// If the packet is not deliverable at `now` (unknown, held, window not
    /// yet open, or not the oldest segment of its stream direction): the
    /// runtime must only deliver what [`Net::deliverable`] returned.
    pub fn deliver(&mut self, id: PacketId, now: Duration) -> HostId {
        self.observe(now);
        let p = self
            .packets
            .get(id)
            .unwrap_or_else(|| panic!("deliver({id}): the packet is not in the network"));
        let w = p.window.unwrap_or_else(|| {
            panic!(
                "deliver({id}): the packet is held for retransmission (partition or stopped host)"
            )
        });
        assert!(
            w.earliest <= now,
            "deliver({id}) at {now:?}: its window opens at {:?}",
            w.earliest
        );
        assert!(
            p.head,
            "deliver({id}): only the oldest undelivered segment of a stream direction is deliverable"
        );
        let p = self.remove_packet(id);
        debug_assert!(
            self.hosts[p.dst_host.index()].up,
            "packets to a stopped host are never in flight"
        );
        match p.body {
            Body::Datagram(data) => {
                self.on_datagram(now, id, (p.src_host, p.src), (p.dst_host, p.dst), data)
            }
            Body::PortUnreachable => self.on_port_unreachable(p.dst_host, p.dst, p.src),
            Body::Segment { from, to, seg } => {
                self.on_segment(now, (p.src_host, p.src), (p.dst_host, p.dst), from, to, seg)
            }
        }
        p.dst_host
    }

    /// Checks every invariant of the model, panicking with the one that is
    /// broken. Costs time linear in the model's size; meant for tests.
    pub fn check_invariants(&self) {
        let mut flows: BTreeMap<ConnId, Vec<PacketId>> = BTreeMap::new();
        for (id, p) in self.packets.iter() {
            if let Some(f) = p.flow() {
                flows.entry(f).or_default().push(id);
            }
        }
        for (f, q) in &flows {
            let mut prev: Option<(PacketId, Option<Window>)> = None;
            let mut data = 0;
            for id in q {
                let p = self.packets.get(*id).expect("listed from the store");
                data += p.payload().len();
                if let Some((pid, pw)) = prev {
                    assert_eq!(
                        pw.is_some(),
                        p.window.is_some(),
                        "flow {f} mixes held and in-flight segments"
                    );
                    if let (Some(a), Some(b)) = (pw, p.window) {
                        assert!(
                            a.earliest <= b.earliest && a.latest <= b.latest,
                            "flow {f}: windows of {pid} and {id} are not monotonic"
                        );
                    }
                }
                prev = Some((*id, p.window));
            }
            if let Some(c) = self.conns.get(f) {
                assert_eq!(c.in_flight, data, "{f}: in_flight does not match its flow");
            }
        }
        self.packets.check();
        // The store's head flags give the answer a scan of the flows gives.
        for t in [Some(self.now), self.latest_arrival()]
            .into_iter()
            .flatten()
        {
            let (mut got, mut want) = (Vec::new(), Vec::new());
            let got_due = self.schedule_into(t, &mut got);
            let want_due = self.schedule_by_scan(t, &mut want);
            assert_eq!(
                (got, got_due),
                (want, want_due),
                "schedule_into({t:?}) disagrees with a scan of the flows"
            );
        }
        for (id, p) in self.packets.iter() {
            if let Some(w) = p.window {
                assert!(w.earliest <= w.latest, "{id}: empty window");
                assert!(
                    self.now <= w.latest,
                    "{id}: time {:?} passed its latest arrival {:?}",
                    self.now,
                    w.latest
                );
                assert!(
                    self.hosts[p.dst_host.index()].up,
                    "{id} is in flight to a stopped host"
                );
            }
        }
        let mut ports: BTreeMap<(HostId, u16), Vec<SocketId>> = BTreeMap::new();
        for (id, s) in self.sockets.iter() {
            ports.entry((s.host, s.local.port())).or_default().push(id);
        }
        assert_eq!(
            ports, self.udp_ports,
            "the datagram sockets' port index is stale"
        );
        self.conns.check();
        self.sockets.check();
        for (id, c) in self.conns.iter() {
            if !flows.contains_key(&id) {
                assert_eq!(c.in_flight, 0, "{id}: bytes in flight but no flow");
            }
            c.check(id, self);
        }
    }

    /// [`Net::schedule_into`] computed from the packets alone, finding
    /// each flow's head by the flows met before it: the reference the
    /// store's head flags are checked against.
    fn schedule_by_scan(
        &self,
        now: Duration,
        out: &mut Vec<PacketId>,
    ) -> (Option<Duration>, Option<Duration>) {
        let mut next: Option<Duration> = None;
        let mut latest: Option<Duration> = None;
        let mut seen: Vec<ConnId> = Vec::new();
        for (id, p) in self.packets.iter() {
            let head = match p.flow() {
                None => true,
                Some(f) if seen.contains(&f) => false,
                Some(f) => {
                    seen.push(f);
                    true
                }
            };
            let Some(w) = p.window else { continue };
            latest = Some(latest.map_or(w.latest, |l| l.min(w.latest)));
            if !head {
                continue;
            }
            if w.earliest <= now {
                out.push(id);
            } else {
                next = Some(next.map_or(w.earliest, |n| n.min(w.earliest)));
            }
        }
        (next, latest)
    }

    /// Records that time is `now`.
    pub(crate) fn observe(&mut self, now: Duration) {
        assert!(
            now >= self.now,
            "time went backwards: the network model was told {now:?} after {:?}",
            self.now
        );
        // Only a move of the clock can pass a deadline: every packet sent
        // since the last call has its deadline at or after `self.now`.
        if cfg!(debug_assertions) && now > self.now {
            if let Some((id, p)) = self
                .packets
                .iter()
                .find(|(_, p)| p.window.is_some_and(|w| w.latest < now))
            {
                panic!(
                    "time advanced to {now:?}, past the latest arrival {:?} of {id} still in flight: \
                     the runtime must deliver it first (Net::latest_arrival bounds Advance)",
                    p.window.map(|w| w.latest)
                );
            }
        }
        self.now = now;
    }

    /// Why nothing can currently go from `src` to `dst`, if so.
    fn blocked(&self, src: HostId, dst: HostId) -> Option<Discard> {
        if !self.hosts[dst.index()].up {
            Some(Discard::HostDown)
        } else if self.links.get(src, dst).partitioned {
            Some(Discard::Partitioned)
        } else {
            None
        }
    }

    /// A fresh window for packet `id` over its link, sent at `now`.
    fn window_for(&self, id: PacketId, p: &Packet, now: Duration) -> Window {
        let w = self
            .links
            .get(p.src_host, p.dst_host)
            .window(now, p.flow().is_some());
        match p.flow() {
            Some(f) => w.after(self.packets.predecessor_window(f, id)),
            None => w,
        }
    }

    pub(crate) fn send_segment(
        &mut self,
        now: Duration,
        src: (HostId, SocketAddr),
        dst: (HostId, SocketAddr),
        from: ConnId,
        to: Option<ConnId>,
        seg: Segment,
    ) -> PacketId {
        self.send(now, src, dst, Body::Segment { from, to, seg })
    }

    pub(crate) fn send_datagram(
        &mut self,
        now: Duration,
        src: (HostId, SocketAddr),
        dst: (HostId, SocketAddr),
        data: Bytes,
    ) -> PacketId {
        self.send(now, src, dst, Body::Datagram(data))
    }

    /// Sends an ICMP port unreachable from `src` (the address a datagram
    /// found no socket at) back to `dst` (the datagram's source).
    pub(crate) fn send_port_unreachable(
        &mut self,
        now: Duration,
        src: (HostId, SocketAddr),
        dst: (HostId, SocketAddr),
    ) -> PacketId {
        self.send(now, src, dst, Body::PortUnreachable)
    }

    /// Puts a new packet into the network at `now`.
    fn send(
        &mut self,
        now: Duration,
        (src_host, src): (HostId, SocketAddr),
        (dst_host, dst): (HostId, SocketAddr),
        body: Body,
    ) -> PacketId {
        let id = self.ids.packet();
        let mut p = Packet {
            id,
            head: false, // set when stored
            src_host,
            dst_host,
            src,
            dst,
            sent_at: now,
            body,
            window: None,
        };
        if self.announce_segments || p.flow().is_none() {
            self.events.push(Event::Sent { packet: id });
        }
        match self.blocked(p.src_host, p.dst_host) {
            Some(reason) if p.flow().is_none() => {
                self.events.push(Event::Discarded { packet: id, reason });
                self.blocked_at_send.push(p);
                return id;
            }
            Some(_) => p.window = None,
            None => p.window = Some(self.window_for(id, &p, now)),
        }
        self.packets.insert(p);
        id
    }

    /// Removes a packet from the network (and its flow), keeping the
    /// sender's in-flight count in step.
    pub(crate) fn remove_packet(&mut self, id: PacketId) -> Packet {
        let p = self
            .packets
            .remove(id)
            .expect("removing a packet in the network");
        if let Some(f) = p.flow() {
            if let Some(c) = self.conns.get_mut(&f) {
                // Only data segments carry a payload.
                c.in_flight -= p.payload().len();
            }
        }
        p
    }

    /// Removes a packet undelivered and reports why.
    pub(crate) fn discard(&mut self, id: PacketId, reason: Discard) {
        self.remove_packet(id);
        self.events.push(Event::Discarded { packet: id, reason });
    }

    /// Brings every packet in line with the current links and hosts: in
    /// flight over a blocked path, datagrams are lost and segments are held;
    /// held over an open path, segments are sent again with windows from
    /// `now` (in send order, so flows stay monotonic).
    pub(crate) fn reconcile(&mut self, now: Duration) {
        for id in self.packets.ids() {
            let p = self.packets.get(id).expect("listed");
            match (self.blocked(p.src_host, p.dst_host), p.window) {
                (Some(reason), Some(_)) if p.flow().is_none() => self.discard(id, reason),
                (Some(_), Some(_)) => self.packets.set_window(id, None),
                (None, None) => {
                    let w = self.window_for(id, p, now);
                    self.packets.set_window(id, Some(w));
                }
                _ => {}
            }
        }
    }
}

/// Test helper: delivers the oldest deliverable packet, advancing time to
/// the next opening when nothing is deliverable, until nothing is in flight
/// (held packets may remain). Checks invariants at every step.
#[cfg(test)]
pub(crate) fn settle(net: &mut Net, mut now: Duration) -> Duration {
    loop {
        net.check_invariants();
        if let Some(id) = net.deliverable(now).first() {
            net.deliver(*id, now);
            continue;
        }
        match net.next_deliverable_at(now) {
            Some(t) => now = t,
            None => return now,
        }
    }
}
