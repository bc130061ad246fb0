//! The packets in the network, by id.
//!
//! Packet ids are handed out in increasing order and a packet is stored
//! when it is created, so appending keeps the store sorted: it is a
//! `VecDeque` ordered by id, looked up by binary search. Deliveries mostly
//! take packets near the front (the oldest), which a `VecDeque` removes
//! cheaply, and nothing is boxed or allocated per packet once the buffer
//! has grown to the number in flight.
//!
//! Each packet carries its id and whether it is its flow's *head* (no
//! older packet of its flow is stored; every datagram is a head), which
//! the store sets. So the store holds bare `Packet`s, which a delivery
//! moves out with no wrapper to unpack; the runtime's per-step question
//! ("what is deliverable, and when does that change?") is one pass
//! without bookkeeping of flows; and a delivery checks FIFO order without
//! a scan.
//!
//! # Invariants
//!
//! - Ids are strictly increasing from front to back.
//! - A packet's `head` is true exactly when no older stored packet
//!   belongs to the same flow (always for a datagram).
//!   [`Packets::check`] verifies it.

use std::collections::VecDeque;
use std::time::Duration;

use crate::{ConnId, Packet, PacketId, Window};

#[derive(Debug, Default)]
pub(crate) struct Packets {
    /// Oldest first.
    slots: VecDeque<Packet>,
    /// Bumped by every call that may change a packet or the set.
    generation: u64,
}

impl Packets {
    fn position(&self, id: PacketId) -> Option<usize> {
        // The newest and the oldest packets are the ones most often looked
        // up (just sent, about to be delivered).
        match self.slots.back() {
            Some(s) if s.id == id => return Some(self.slots.len() - 1),
            _ => {}
        }
        match self.slots.front() {
            Some(s) if s.id == id => return Some(0),
            _ => {}
        }
        self.slots.binary_search_by_key(&id, |s| s.id).ok()
    }

    /// Stores a new packet, whose id must be newer than every stored one.
    pub(crate) fn insert(&mut self, mut p: Packet) {
        let id = p.id;
        assert!(
            self.slots.back().is_none_or(|s| s.id < id),
            "packet {id} is not newer than every packet in the network"
        );
        self.generation += 1;
        p.head = match p.flow() {
            None => true,
            f => !self.slots.iter().any(|s| s.flow() == f),
        };
        self.slots.push_back(p);
    }

    /// A number that changes whenever the packets may have changed.
    pub(crate) fn generation(&self) -> u64 {
        self.generation
    }

    pub(crate) fn get(&self, id: PacketId) -> Option<&Packet> {
        self.position(id).map(|i| &self.slots[i])
    }

    /// Gives stored packet `id` window `w` (`None`: held).
    ///
    /// # Panics
    ///
    /// If the packet is not stored.
    pub(crate) fn set_window(&mut self, id: PacketId, w: Option<Window>) {
        self.generation += 1;
        let i = self
            .position(id)
            .unwrap_or_else(|| panic!("set_window({id}): not in the network"));
        self.slots[i].window = w;
    }

    pub(crate) fn remove(&mut self, id: PacketId) -> Option<Packet> {
        let i = self.position(id)?;
        self.generation += 1;
        let s = &self.slots[i];
        if let (true, Some(f)) = (s.head, s.flow()) {
            // The next packet of the flow, if any, becomes its head.
            let flow = Some(f);
            if let Some(next) = self.slots.range_mut(i + 1..).find(|s| s.flow() == flow) {
                next.head = true;
            }
        }
        // Mostly the oldest is delivered: no shifting then.
        if i == 0 {
            self.slots.pop_front()
        } else {
            self.slots.remove(i)
        }
    }

    pub(crate) fn len(&self) -> usize {
        self.slots.len()
    }

    /// Every packet, oldest first.
    pub(crate) fn iter(&self) -> impl DoubleEndedIterator<Item = (PacketId, &Packet)> + '_ {
        self.slots.iter().map(|s| (s.id, s))
    }

    /// [`Net::schedule_into`](crate::Net::schedule_into): appends the
    /// heads whose window is open at `now` to `out`, oldest first, and
    /// returns the earliest opening of the other heads' windows and the
    /// earliest close of all windows.
    pub(crate) fn schedule_into(
        &self,
        now: Duration,
        out: &mut Vec<PacketId>,
    ) -> (Option<Duration>, Option<Duration>) {
        fn scan(
            slots: &[Packet],
            now: Duration,
            out: &mut Vec<PacketId>,
            next: &mut Option<Duration>,
            latest: &mut Option<Duration>,
        ) {
            for s in slots {
                let Some(w) = s.window else { continue };
                *latest = Some(latest.map_or(w.latest, |l| l.min(w.latest)));
                if !s.head {
                    continue;
                }
                if w.earliest <= now {
                    out.push(s.id);
                } else {
                    *next = Some(next.map_or(w.earliest, |n| n.min(w.earliest)));
                }
            }
        }
        let (mut next, mut latest) = (None, None);
        let (a, b) = self.slots.as_slices();
        scan(a, now, out, &mut next, &mut latest);
        scan(b, now, out, &mut next, &mut latest);
        (next, latest)
    }

    /// The window of the newest packet of `flow` older than `id` that has
    /// one (held packets have none).
    pub(crate) fn predecessor_window(&self, flow: ConnId, id: PacketId) -> Option<crate::Window> {
        let flow = Some(flow);
        let end = match self.slots.back() {
            Some(s) if s.id >= id => self.slots.partition_point(|s| s.id < id),
            // Most often `id` is new, newer than every stored packet.
            _ => self.slots.len(),
        };
        self.slots
            .range(..end)
            .rev()
            .filter(|s| s.flow() == flow)
            .find_map(|s| s.window)
    }

    /// Every id, oldest first.
    pub(crate) fn ids(&self) -> Vec<PacketId> {
        self.slots.iter().map(|s| s.id).collect()
    }

    /// Checks the store's invariants (see the module docs).
    pub(crate) fn check(&self) {
        assert!(
            self.slots
                .iter()
                .zip(self.slots.iter().skip(1))
                .all(|(a, b)| a.id < b.id),
            "the packet store is not in send order"
        );
        for (i, s) in self.slots.iter().enumerate() {
            let flow = s.flow();
            let head = flow.is_none() || !self.slots.range(..i).any(|o| o.flow() == flow);
            assert_eq!(s.head, head, "{}: stale head flag in the store", s.id);
        }
    }
}

#[cfg(test)]
mod tests {
    use std::net::SocketAddr;
    use std::time::Duration;

    use bytes::Bytes;

    use super::*;
    use crate::packet::{Body, Segment};
    use crate::HostId;

    /// Stores `p` as packet `id`.
    fn put(s: &mut Packets, id: PacketId, mut p: Packet) {
        p.id = id;
        s.insert(p);
    }

    fn packet(n: u8) -> Packet {
        let a: SocketAddr = "10.0.0.1:1".parse().unwrap();
        Packet {
            id: PacketId::__from_u64(0),
            head: false,
            src_host: HostId::__from_u64(0),
            dst_host: HostId::__from_u64(1),
            src: a,
            dst: a,
            sent_at: Duration::ZERO,
            body: Body::Datagram(Bytes::from(vec![n])),
            window: None,
        }
    }

    #[test]
    fn lookups_and_removals_anywhere_keep_the_order() {
        let mut s = Packets::default();
        let ids: Vec<PacketId> = (1..=6).map(PacketId::__from_u64).collect();
        for (i, id) in ids.iter().enumerate() {
            put(&mut s, *id, packet(i as u8));
        }
        assert_eq!(s.remove(ids[3]).unwrap().payload()[..], [3]);
        assert_eq!(s.remove(ids[0]).unwrap().payload()[..], [0]);
        assert_eq!(s.remove(ids[5]).unwrap().payload()[..], [5]);
        assert!(s.remove(ids[5]).is_none());
        assert!(s.get(ids[3]).is_none());
        assert_eq!(s.get(ids[2]).unwrap().payload()[..], [2]);
        assert_eq!(s.ids(), vec![ids[1], ids[2], ids[4]]);
        s.check();
        assert_eq!(s.len(), 3);
        let g = s.generation();
        assert!(s.get(ids[2]).is_some());
        assert_eq!(s.generation(), g, "a lookup changes nothing");
        s.set_window(ids[2], None);
        assert!(s.generation() > g);
    }

    fn segment(flow: u64, window: Option<u64>) -> Packet {
        let mut p = packet(0);
        p.body = Body::Segment {
            from: ConnId::__from_u64(flow),
            to: None,
            seg: Segment::Fin,
        };
        p.window = window.map(|t| crate::Window {
            earliest: Duration::from_millis(t),
            latest: Duration::from_millis(t),
        });
        p
    }

    #[test]
    fn heads_follow_insertions_and_removals() {
        let mut s = Packets::default();
        let id = PacketId::__from_u64;
        // Flows 7 and 8 interleaved, a datagram between.
        put(&mut s, id(1), segment(7, Some(1)));
        put(&mut s, id(2), segment(8, Some(2)));
        put(&mut s, id(3), segment(7, Some(3)));
        put(&mut s, id(4), packet(0));
        put(&mut s, id(5), segment(8, None));
        put(&mut s, id(6), segment(7, Some(6)));
        s.check();
        let heads = |s: &Packets| -> Vec<u64> {
            s.ids()
                .into_iter()
                .filter(|id| s.get(*id).unwrap().head)
                .map(PacketId::as_u64)
                .collect()
        };
        assert_eq!(heads(&s), vec![1, 2, 4]);
        assert_eq!(s.get(id(3)).map(|p| p.head), Some(false));
        // The newest windowed packet of the flow older than the id.
        let w = |s: &Packets, f, i| s.predecessor_window(ConnId::__from_u64(f), id(i));
        assert_eq!(w(&s, 7, 7), Some(segment(7, Some(6)).window.unwrap()));
        assert_eq!(w(&s, 7, 6), Some(segment(7, Some(3)).window.unwrap()));
        assert_eq!(w(&s, 8, 9), Some(segment(8, Some(2)).window.unwrap()));
        assert_eq!(w(&s, 7, 1), None);
        // Removing a head promotes its flow's next packet.
        s.remove(id(1));
        assert_eq!(heads(&s), vec![2, 3, 4]);
        s.remove(id(3));
        assert_eq!(heads(&s), vec![2, 4, 6]);
        // Removing a packet that is not a head changes no head.
        s.remove(id(5));
        assert_eq!(heads(&s), vec![2, 4, 6]);
        s.remove(id(2));
        s.check();
        // A new packet of a flow with none stored is a head.
        put(&mut s, id(7), segment(8, Some(7)));
        put(&mut s, id(8), segment(7, Some(8)));
        assert_eq!(heads(&s), vec![4, 6, 7]);
        s.check();
    }

    #[test]
    #[should_panic(expected = "is not newer")]
    fn an_old_id_is_refused() {
        let mut s = Packets::default();
        put(&mut s, PacketId::__from_u64(2), packet(0));
        put(&mut s, PacketId::__from_u64(1), packet(1));
    }
}
