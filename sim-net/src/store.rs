//! The packets in the network, by id.
//!
//! Packet ids are handed out in increasing order and a packet is stored
//! when it is created, so appending keeps the store sorted: it is a
//! `VecDeque` ordered by id, looked up by binary search. Deliveries mostly
//! take packets near the front (the oldest), which a `VecDeque` removes
//! cheaply, and nothing is boxed or allocated per packet once the buffer
//! has grown to the number in flight.
//!
//! # Invariants
//!
//! Ids are strictly increasing from front to back.

use std::collections::VecDeque;

use crate::{Packet, PacketId};

#[derive(Debug, Default)]
pub(crate) struct Packets {
    slots: VecDeque<(PacketId, Packet)>,
    /// Bumped by every call that may change a packet or the set.
    generation: u64,
}

impl Packets {
    fn position(&self, id: PacketId) -> Option<usize> {
        // The newest and the oldest packets are the ones most often looked
        // up (just sent, about to be delivered).
        match self.slots.back() {
            Some((last, _)) if *last == id => return Some(self.slots.len() - 1),
            _ => {}
        }
        match self.slots.front() {
            Some((first, _)) if *first == id => return Some(0),
            _ => {}
        }
        self.slots.binary_search_by_key(&id, |(k, _)| *k).ok()
    }

    /// Stores a new packet; `id` must be newer than every stored one.
    pub(crate) fn insert(&mut self, id: PacketId, p: Packet) {
        assert!(
            self.slots.back().is_none_or(|(last, _)| *last < id),
            "packet {id} is not newer than every packet in the network"
        );
        self.generation += 1;
        self.slots.push_back((id, p));
    }

    /// A number that changes whenever the packets may have changed.
    pub(crate) fn generation(&self) -> u64 {
        self.generation
    }

    pub(crate) fn get(&self, id: PacketId) -> Option<&Packet> {
        self.position(id).map(|i| &self.slots[i].1)
    }

    pub(crate) fn get_mut(&mut self, id: PacketId) -> Option<&mut Packet> {
        self.generation += 1;
        self.position(id).map(|i| &mut self.slots[i].1)
    }

    pub(crate) fn remove(&mut self, id: PacketId) -> Option<Packet> {
        let i = self.position(id)?;
        self.generation += 1;
        self.slots.remove(i).map(|(_, p)| p)
    }

    pub(crate) fn len(&self) -> usize {
        self.slots.len()
    }

    /// Every packet, oldest first.
    pub(crate) fn iter(&self) -> impl DoubleEndedIterator<Item = (PacketId, &Packet)> + '_ {
        self.slots.iter().map(|(id, p)| (*id, p))
    }

    /// The packets older than `id` (whether or not `id` is stored), oldest
    /// first.
    pub(crate) fn before(
        &self,
        id: PacketId,
    ) -> impl DoubleEndedIterator<Item = (PacketId, &Packet)> + '_ {
        let end = self.slots.partition_point(|(k, _)| *k < id);
        self.slots.range(..end).map(|(id, p)| (*id, p))
    }

    /// Every id, oldest first.
    pub(crate) fn ids(&self) -> Vec<PacketId> {
        self.slots.iter().map(|(id, _)| *id).collect()
    }
}

#[cfg(test)]
mod tests {
    use std::net::SocketAddr;
    use std::time::Duration;

    use bytes::Bytes;

    use super::*;
    use crate::packet::Body;
    use crate::HostId;

    fn packet(n: u8) -> Packet {
        let a: SocketAddr = "10.0.0.1:1".parse().unwrap();
        Packet {
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
            s.insert(*id, packet(i as u8));
        }
        assert_eq!(s.remove(ids[3]).unwrap().payload()[..], [3]);
        assert_eq!(s.remove(ids[0]).unwrap().payload()[..], [0]);
        assert_eq!(s.remove(ids[5]).unwrap().payload()[..], [5]);
        assert!(s.remove(ids[5]).is_none());
        assert!(s.get(ids[3]).is_none());
        assert_eq!(s.get(ids[2]).unwrap().payload()[..], [2]);
        assert_eq!(s.ids(), vec![ids[1], ids[2], ids[4]]);
        let older: Vec<PacketId> = s.before(ids[4]).map(|(id, _)| id).collect();
        assert_eq!(older, vec![ids[1], ids[2]]);
        assert_eq!(s.before(ids[3]).count(), 2);
        assert_eq!(s.before(ids[0]).count(), 0);
        assert_eq!(s.len(), 3);
        let g = s.generation();
        assert!(s.get(ids[2]).is_some());
        assert_eq!(s.generation(), g, "a lookup changes nothing");
        s.get_mut(ids[2]);
        assert!(s.generation() > g);
    }

    #[test]
    #[should_panic(expected = "is not newer")]
    fn an_old_id_is_refused() {
        let mut s = Packets::default();
        s.insert(PacketId::__from_u64(2), packet(0));
        s.insert(PacketId::__from_u64(1), packet(1));
    }
}
