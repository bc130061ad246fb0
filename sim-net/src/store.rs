//! The packets in the network, by id, and the answer to the runtime's
//! per-step question: what is deliverable, and when does that change?
//!
//! Packet ids are handed out in increasing order and a packet is stored
//! when it is created, so appending keeps the store sorted: a `VecDeque`
//! ordered by id, looked up by binary search. Deliveries mostly take the
//! oldest packet, which the deque pops; a packet removed from the middle
//! leaves a *tombstone* (its id, no packet) that goes when it reaches the
//! front, or when tombstones outnumber packets, so no removal shifts the
//! packets behind it.
//!
//! Each packet carries whether it is its flow's *head* (no older packet of
//! its flow is stored; every datagram is a head), which the store sets.
//!
//! # Two ways to answer, by size
//!
//! A simulation of a few hosts has a handful of packets in flight: a pass
//! over them at each step (cached while neither the packets nor the time
//! change) is the cheapest answer, and what a small run pays. A large one
//! (a thousand gossiping hosts: thousands in flight) cannot afford a pass
//! per step, so past [`INDEX_AT`] packets the store builds indexes and keeps
//! them up to date at every change, until it is empty again:
//!
//! - each flow's packet ids, oldest first (the next head, without a scan);
//! - the heads whose window has opened (by the last instant asked), oldest
//!   first, in chunks ([`OpenHeads`]): the `Deliver` events;
//! - the other heads with a window, by opening instant;
//! - every window by its latest instant.
//!
//! Either way the answer is the same, in send order (checked against a scan
//! by [`Packets::check`] and a proptest of random histories).
//!
//! # Invariants
//!
//! - Ids are strictly increasing from front to back; the front slot is
//!   never a tombstone.
//! - A packet's `head` is true exactly when no older stored packet belongs
//!   to the same flow (always for a datagram).
//! - With an index: `open` holds, in id order, exactly the heads with a
//!   window whose `earliest` is at most `opened`; `closed` exactly the
//!   other heads with a window; `latest` exactly the packets with a window;
//!   `flows` each flow's stored ids in order.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::time::Duration;

use crate::{ConnId, Packet, PacketId, Window};

/// Packets stored before the store indexes them (see the module docs).
pub(crate) const INDEX_AT: usize = 64;

/// Packet ids in increasing order, in chunks of at most `2 * CHUNK`: the
/// deliverable heads of an indexed store. A delivery removes one anywhere
/// in the order, a scheduler names one by its position; both cost a pass
/// over the chunks' lengths and a shift within one chunk, where one sorted
/// `Vec` would shift half the ids (28% of a 1,000-host gossip's
/// instructions).
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(crate) struct OpenHeads {
    chunks: Vec<Vec<PacketId>>,
    len: usize,
}

/// The packets deliverable now, in send order, as
/// [`Net::schedule`](crate::Net::schedule) answers: counted, and each named
/// by its position, without a copy.
#[derive(Debug, Clone, Copy)]
pub struct Deliverable<'a>(Ids<'a>);

#[derive(Debug, Clone, Copy)]
enum Ids<'a> {
    Slice(&'a [PacketId]),
    Chunks(&'a OpenHeads),
}

impl<'a> Deliverable<'a> {
    /// No packet.
    pub fn none() -> Deliverable<'static> {
        Deliverable(Ids::Slice(&[]))
    }

    /// How many packets are deliverable.
    pub fn len(&self) -> usize {
        match self.0 {
            Ids::Slice(s) => s.len(),
            Ids::Chunks(c) => c.len,
        }
    }

    /// Whether none is.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The `i`-th deliverable packet in send order.
    pub fn get(&self, i: usize) -> Option<PacketId> {
        match self.0 {
            Ids::Slice(s) => s.get(i).copied(),
            Ids::Chunks(c) => c.get(i),
        }
    }

    /// Every deliverable packet, in send order.
    pub fn iter(&self) -> impl Iterator<Item = PacketId> + 'a {
        let (slice, chunks) = match self.0 {
            Ids::Slice(s) => (s, None),
            Ids::Chunks(c) => (&[][..], Some(c)),
        };
        slice
            .iter()
            .copied()
            .chain(chunks.into_iter().flat_map(OpenHeads::iter))
    }
}

/// Half the most ids a chunk holds before it is split.
const CHUNK: usize = 64;

impl OpenHeads {
    /// The chunk `id` belongs in: the first whose last id is at least
    /// `id`, or the last.
    fn chunk_of(&self, id: PacketId) -> usize {
        let c = self
            .chunks
            .partition_point(|c| *c.last().expect("no empty chunk") < id);
        c.min(self.chunks.len().saturating_sub(1))
    }

    fn insert(&mut self, id: PacketId) {
        self.len += 1;
        if self.chunks.is_empty() {
            self.chunks.push(vec![id]);
            return;
        }
        let c = self.chunk_of(id);
        let chunk = &mut self.chunks[c];
        let at = chunk.partition_point(|o| *o < id);
        debug_assert!(chunk.get(at) != Some(&id), "{id} is open once");
        chunk.insert(at, id);
        if chunk.len() > 2 * CHUNK {
            let rest = chunk.split_off(CHUNK);
            self.chunks.insert(c + 1, rest);
        }
    }

    /// Removes `id`; false if it was not there.
    fn remove(&mut self, id: PacketId) -> bool {
        if self.chunks.is_empty() {
            return false;
        }
        let c = self.chunk_of(id);
        let chunk = &mut self.chunks[c];
        let Ok(at) = chunk.binary_search(&id) else {
            return false;
        };
        chunk.remove(at);
        if chunk.is_empty() {
            self.chunks.remove(c);
        }
        self.len -= 1;
        true
    }

    /// The `i`-th id in increasing order.
    fn get(&self, mut i: usize) -> Option<PacketId> {
        for c in &self.chunks {
            if i < c.len() {
                return Some(c[i]);
            }
            i -= c.len();
        }
        None
    }

    /// Every id, in increasing order.
    fn iter(&self) -> impl Iterator<Item = PacketId> + '_ {
        self.chunks.iter().flatten().copied()
    }
}

/// A stored packet, or the tombstone of one removed from the middle.
#[derive(Debug)]
struct Slot {
    id: PacketId,
    packet: Option<Packet>,
}

/// The indexes of a large store (see the module docs).
#[derive(Debug, Default)]
struct Index {
    /// Each flow's stored packets, oldest first.
    flows: BTreeMap<ConnId, VecDeque<PacketId>>,
    /// Heads whose window opened by `opened`, in id order.
    open: OpenHeads,
    /// Heads with a window that had not opened by `opened`.
    closed: BTreeSet<(Duration, PacketId)>,
    /// Every window, by its latest instant.
    latest: BTreeSet<(Duration, PacketId)>,
    /// The instant up to which `closed` heads were moved to `open`.
    opened: Duration,
}

impl Index {
    /// Adds packet `id`'s window `w` to the indexes.
    fn add_window(&mut self, id: PacketId, w: Window, head: bool) {
        self.latest.insert((w.latest, id));
        if head {
            self.add_head(id, w);
        }
    }

    /// Adds head `id` with window `w` to `open` or `closed`.
    fn add_head(&mut self, id: PacketId, w: Window) {
        if w.earliest <= self.opened {
            self.open.insert(id);
        } else {
            self.closed.insert((w.earliest, id));
        }
    }

    /// Removes packet `id`'s window `w` from the indexes.
    fn remove_window(&mut self, id: PacketId, w: Window, head: bool) {
        self.latest.remove(&(w.latest, id));
        if head {
            if w.earliest <= self.opened {
                let removed = self.open.remove(id);
                assert!(removed, "an open head is in `open`");
            } else {
                self.closed.remove(&(w.earliest, id));
            }
        }
    }
}

#[derive(Debug)]
pub(crate) struct Packets {
    /// Oldest first; the front is never a tombstone.
    slots: VecDeque<Slot>,
    /// Packets stored (slots that are not tombstones).
    live: usize,
    /// Built past `index_at` packets, dropped when the store empties.
    index: Option<Index>,
    index_at: usize,
    /// The last instant [`schedule`](Packets::schedule) was asked about.
    asked: Duration,
    /// A small store's answer, valid while `cached_at` is `(asked,
    /// generation)`.
    cache: Vec<PacketId>,
    due: (Option<Duration>, Option<Duration>),
    cached_at: Option<(Duration, u64)>,
    /// Bumped by every call that may change a packet or the set.
    generation: u64,
}

impl Default for Packets {
    fn default() -> Self {
        Packets::with_index_at(INDEX_AT)
    }
}

impl Packets {
    /// A store that indexes itself past `index_at` packets.
    pub(crate) fn with_index_at(index_at: usize) -> Packets {
        Packets {
            slots: VecDeque::new(),
            live: 0,
            index: None,
            index_at,
            asked: Duration::ZERO,
            cache: Vec::new(),
            due: (None, None),
            cached_at: None,
            generation: 0,
        }
    }

    #[inline]
    fn position(&self, id: PacketId) -> Option<usize> {
        // The newest and the oldest packets are the ones most often looked
        // up (just sent, about to be delivered).
        let i = match (self.slots.back(), self.slots.front()) {
            (Some(s), _) if s.id == id => self.slots.len() - 1,
            (_, Some(s)) if s.id == id => 0,
            _ => self.slots.binary_search_by_key(&id, |s| s.id).ok()?,
        };
        self.slots[i].packet.is_some().then_some(i)
    }

    /// Stores a new packet, whose id must be newer than every stored one.
    pub(crate) fn insert(&mut self, mut p: Packet) {
        let id = p.id;
        assert!(
            self.slots.back().is_none_or(|s| s.id < id),
            "packet {id} is not newer than every packet in the network"
        );
        self.generation += 1;
        let flow = p.flow();
        p.head = match (&mut self.index, flow) {
            (_, None) => true,
            (Some(ix), Some(f)) => {
                let q = ix.flows.entry(f).or_default();
                q.push_back(id);
                q.len() == 1
            }
            (None, f) => !self
                .slots
                .iter()
                .any(|s| s.packet.as_ref().is_some_and(|o| o.flow() == f)),
        };
        if let (Some(ix), Some(w)) = (&mut self.index, p.window) {
            ix.add_window(id, w, p.head);
        }
        self.slots.push_back(Slot {
            id,
            packet: Some(p),
        });
        self.live += 1;
        if self.index.is_none() && self.live > self.index_at {
            self.build_index();
        }
    }

    /// Indexes the store as it is (see the module docs).
    fn build_index(&mut self) {
        let mut ix = Index {
            opened: self.asked,
            ..Index::default()
        };
        for s in &self.slots {
            let Some(p) = &s.packet else { continue };
            if let Some(f) = p.flow() {
                ix.flows.entry(f).or_default().push_back(p.id);
            }
            if let Some(w) = p.window {
                ix.add_window(p.id, w, p.head);
            }
        }
        self.index = Some(ix);
    }

    /// A number that changes whenever the packets may have changed.
    pub(crate) fn generation(&self) -> u64 {
        self.generation
    }

    #[inline]
    pub(crate) fn get(&self, id: PacketId) -> Option<&Packet> {
        self.position(id)
            .and_then(|i| self.slots[i].packet.as_ref())
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
        let p = self.slots[i].packet.as_mut().expect("a stored packet");
        let (old, head) = (std::mem::replace(&mut p.window, w), p.head);
        if let Some(ix) = &mut self.index {
            if let Some(old) = old {
                ix.remove_window(id, old, head);
            }
            if let Some(w) = w {
                ix.add_window(id, w, head);
            }
        }
    }

    pub(crate) fn remove(&mut self, id: PacketId) -> Option<Packet> {
        let i = self.position(id)?;
        self.generation += 1;
        let p = self.slots[i].packet.take().expect("a stored packet");
        self.live -= 1;
        let mut promoted = None;
        if let Some(ix) = &mut self.index {
            if let Some(w) = p.window {
                ix.remove_window(id, w, p.head);
            }
            if let Some(f) = p.flow() {
                let q = ix
                    .flows
                    .get_mut(&f)
                    .expect("a stored segment's flow is listed");
                if p.head {
                    debug_assert_eq!(q.front(), Some(&id), "a flow's head is its oldest packet");
                    q.pop_front();
                    promoted = q.front().copied();
                } else if let Some(at) = q.iter().position(|o| *o == id) {
                    q.remove(at);
                }
                if q.is_empty() {
                    ix.flows.remove(&f);
                }
            }
        } else if let (true, Some(f)) = (p.head, p.flow()) {
            let flow = Some(f);
            promoted = self
                .slots
                .range(i + 1..)
                .filter_map(|s| s.packet.as_ref())
                .find(|s| s.flow() == flow)
                .map(|s| s.id);
        }
        // The next packet of the flow, if any, becomes its head.
        if let Some(next) = promoted {
            let at = self.position(next).expect("a listed packet is stored");
            let n = self.slots[at].packet.as_mut().expect("a stored packet");
            n.head = true;
            if let (Some(ix), Some(w)) = (&mut self.index, n.window) {
                ix.add_head(next, w);
            }
        }
        // Tombstones go from the front, or all at once when they outnumber
        // the packets.
        while self.slots.front().is_some_and(|s| s.packet.is_none()) {
            self.slots.pop_front();
        }
        if self.slots.len() > 2 * self.live + 32 {
            self.slots.retain(|s| s.packet.is_some());
        }
        if self.live == 0 {
            self.index = None;
        }
        Some(p)
    }

    pub(crate) fn len(&self) -> usize {
        self.live
    }

    /// Every packet, oldest first.
    pub(crate) fn iter(&self) -> impl DoubleEndedIterator<Item = (PacketId, &Packet)> + '_ {
        self.slots
            .iter()
            .filter_map(|s| s.packet.as_ref().map(|p| (s.id, p)))
    }

    /// The runtime's question at `now`, which must not be earlier than the
    /// last `now` asked: the heads whose window is open, oldest first, the
    /// earliest opening of the other heads' windows, and the earliest close
    /// of all windows. A small store answers by a pass over its packets,
    /// cached until they or `now` change; an indexed one costs a logarithm
    /// per head that opened since the last call.
    pub(crate) fn schedule(
        &mut self,
        now: Duration,
    ) -> (Deliverable<'_>, Option<Duration>, Option<Duration>) {
        assert!(
            now >= self.asked,
            "the packet store was asked about {now:?} after {:?}: time does not go back",
            self.asked
        );
        self.asked = now;
        if self.index.is_none() {
            let key = Some((now, self.generation));
            if self.cached_at != key {
                self.cached_at = key;
                self.cache.clear();
                self.due = scan(&self.slots, now, &mut self.cache);
            }
            return (Deliverable(Ids::Slice(&self.cache)), self.due.0, self.due.1);
        }
        let ix = self.index.as_mut().expect("a small store answered above");
        ix.opened = now;
        while let Some(&(earliest, id)) = ix.closed.first() {
            if earliest > now {
                break;
            }
            ix.closed.pop_first();
            ix.open.insert(id);
        }
        (
            Deliverable(Ids::Chunks(&ix.open)),
            ix.closed.first().map(|(t, _)| *t),
            ix.latest.first().map(|(t, _)| *t),
        )
    }

    /// [`Net::schedule_into`](crate::Net::schedule_into): appends the
    /// heads whose window is open at `now` to `out`, oldest first, and
    /// returns the earliest opening of the other heads' windows and the
    /// earliest close of all windows. Any `now`, without changing the
    /// store.
    pub(crate) fn schedule_into(
        &self,
        now: Duration,
        out: &mut Vec<PacketId>,
    ) -> (Option<Duration>, Option<Duration>) {
        match &self.index {
            Some(ix) if now >= ix.opened => {
                let start = out.len();
                out.extend(ix.open.iter());
                let mut next = None;
                for &(earliest, id) in &ix.closed {
                    if earliest > now {
                        next = Some(earliest);
                        break;
                    }
                    out.push(id);
                }
                out[start..].sort_unstable();
                (next, ix.latest.first().map(|(t, _)| *t))
            }
            _ => scan(&self.slots, now, out),
        }
    }

    /// The window of the newest packet of `flow` older than `id` that has
    /// one (held packets have none).
    pub(crate) fn predecessor_window(&self, flow: ConnId, id: PacketId) -> Option<crate::Window> {
        if let Some(ix) = &self.index {
            return ix
                .flows
                .get(&flow)?
                .iter()
                .rev()
                .filter(|o| **o < id)
                .find_map(|o| self.get(*o).and_then(|p| p.window));
        }
        let flow = Some(flow);
        let end = match self.slots.back() {
            Some(s) if s.id >= id => self.slots.partition_point(|s| s.id < id),
            // Most often `id` is new, newer than every stored packet.
            _ => self.slots.len(),
        };
        self.slots
            .range(..end)
            .rev()
            .filter_map(|s| s.packet.as_ref())
            .filter(|s| s.flow() == flow)
            .find_map(|s| s.window)
    }

    /// Every id, oldest first.
    pub(crate) fn ids(&self) -> Vec<PacketId> {
        self.iter().map(|(id, _)| id).collect()
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
        assert!(
            self.slots.front().is_none_or(|s| s.packet.is_some()),
            "a tombstone at the front"
        );
        assert_eq!(
            self.live,
            self.iter().count(),
            "the count of packets is stale"
        );
        let mut seen: BTreeSet<ConnId> = BTreeSet::new();
        for (id, s) in self.iter() {
            assert_eq!(id, s.id, "a packet is stored under its own id");
            let head = match s.flow() {
                None => true,
                Some(f) => seen.insert(f),
            };
            assert_eq!(s.head, head, "{id}: stale head flag in the store");
        }
        let Some(ix) = &self.index else {
            assert!(
                self.live <= self.index_at || self.live == 0,
                "a large store unindexed"
            );
            return;
        };
        let mut open = Vec::new();
        let mut closed = BTreeSet::new();
        let mut latest = BTreeSet::new();
        let mut flows: BTreeMap<ConnId, VecDeque<PacketId>> = BTreeMap::new();
        for (id, s) in self.iter() {
            if let Some(f) = s.flow() {
                flows.entry(f).or_default().push_back(id);
            }
            if let Some(w) = s.window {
                latest.insert((w.latest, id));
                if s.head && w.earliest <= ix.opened {
                    open.push(id);
                } else if s.head {
                    closed.insert((w.earliest, id));
                }
            }
        }
        assert_eq!(
            open,
            ix.open.iter().collect::<Vec<_>>(),
            "the open heads are stale"
        );
        assert_eq!(ix.open.len, open.len(), "the open heads' count is stale");
        assert!(
            ix.open
                .chunks
                .iter()
                .all(|c| !c.is_empty() && c.len() <= 2 * CHUNK),
            "an empty or oversized chunk of open heads"
        );
        assert_eq!(closed, ix.closed, "the closed heads are stale");
        assert_eq!(latest, ix.latest, "the windows' latest instants are stale");
        assert_eq!(flows, ix.flows, "the flows' packet lists are stale");
    }
}

/// The runtime's question answered by a pass over `slots` (oldest
/// first): appends the open heads to `out`, returns the next opening and
/// the latest arrival.
fn scan(
    slots: &VecDeque<Slot>,
    now: Duration,
    out: &mut Vec<PacketId>,
) -> (Option<Duration>, Option<Duration>) {
    let (mut next, mut latest): (Option<Duration>, Option<Duration>) = (None, None);
    for p in slots.iter().filter_map(|s| s.packet.as_ref()) {
        let Some(w) = p.window else { continue };
        latest = Some(latest.map_or(w.latest, |l| l.min(w.latest)));
        if !p.head {
            continue;
        }
        if w.earliest <= now {
            out.push(p.id);
        } else {
            next = Some(next.map_or(w.earliest, |n| n.min(w.earliest)));
        }
    }
    (next, latest)
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

    /// One operation of a random history (see below).
    #[derive(Debug, Clone)]
    enum Op {
        /// A new packet: flow (0: a datagram), window (earliest, length) in
        /// ms or held.
        Insert(u64, Option<(u64, u64)>),
        /// Remove the i-th stored packet (modulo the count).
        Remove(usize),
        /// A new window (or held) for the i-th stored packet.
        Window(usize, Option<(u64, u64)>),
        /// The runtime's question, some ms later.
        Schedule(u64),
    }

    fn op() -> impl proptest::strategy::Strategy<Value = Op> {
        use proptest::prelude::*;
        let window = proptest::option::weighted(0.8, (0..30u64, 0..10u64));
        prop_oneof![
            4 => (0..4u64, window.clone()).prop_map(|(f, w)| Op::Insert(f, w)),
            2 => any::<usize>().prop_map(Op::Remove),
            1 => (any::<usize>(), window).prop_map(|(i, w)| Op::Window(i, w)),
            2 => (0..8u64).prop_map(Op::Schedule),
        ]
    }

    proptest::proptest! {
        /// Whatever enters, leaves and opens, the indexes answer what a
        /// scan of the packets answers, at every instant from the last one
        /// asked on.
        #[test]
        fn the_indexes_answer_as_a_scan_does(
            ops in proptest::collection::vec(op(), 1..120),
            index_at in proptest::prop_oneof![proptest::strategy::Just(0usize), 1..6usize, proptest::strategy::Just(INDEX_AT)],
        ) {
            let mut s = Packets::with_index_at(index_at);
            let (mut next_id, mut now) = (1u64, Duration::ZERO);
            let ms = Duration::from_millis;
            let win = |w: Option<(u64, u64)>, now: Duration| {
                w.map(|(e, l)| crate::Window { earliest: now + ms(e), latest: now + ms(e + l) })
            };
            for op in ops {
                match op {
                    Op::Insert(f, w) => {
                        let mut p = if f == 0 { packet(0) } else { segment(f, None) };
                        p.window = win(w, now);
                        put(&mut s, PacketId::__from_u64(next_id), p);
                        next_id += 1;
                    }
                    Op::Remove(i) if s.len() > 0 => {
                        let id = s.ids()[i % s.len()];
                        s.remove(id);
                    }
                    Op::Window(i, w) if s.len() > 0 => {
                        let id = s.ids()[i % s.len()];
                        s.set_window(id, win(w, now));
                    }
                    Op::Schedule(d) => {
                        now += ms(d);
                        let (open, next, latest) = s.schedule(now);
                        let got = (open.iter().collect::<Vec<_>>(), next, latest);
                        // Each by its position, as a scheduler names it.
                        for (i, id) in open.iter().enumerate() {
                            proptest::prop_assert_eq!(open.get(i), Some(id));
                        }
                        proptest::prop_assert_eq!(open.get(open.len()), None);
                        // The scan: every head with a window.
                        let (mut want, mut wnext, mut wlatest) = (Vec::new(), None, None);
                        for (id, p) in s.iter() {
                            let Some(w) = p.window else { continue };
                            wlatest = Some(wlatest.map_or(w.latest, |l: Duration| l.min(w.latest)));
                            if !p.head {
                                continue;
                            }
                            if w.earliest <= now {
                                want.push(id);
                            } else {
                                wnext = Some(wnext.map_or(w.earliest, |n: Duration| n.min(w.earliest)));
                            }
                        }
                        proptest::prop_assert_eq!(got, (want, wnext, wlatest));
                        // Asked about later instants without moving on.
                        for later in [now, now + ms(3), now + ms(40)] {
                            let mut a = Vec::new();
                            let ra = s.schedule_into(later, &mut a);
                            let (mut b, mut bnext) = (Vec::new(), None);
                            for (id, p) in s.iter().filter(|(_, p)| p.head) {
                                let Some(w) = p.window else { continue };
                                if w.earliest <= later {
                                    b.push(id);
                                } else {
                                    bnext = Some(bnext.map_or(w.earliest, |n: Duration| n.min(w.earliest)));
                                }
                            }
                            proptest::prop_assert_eq!((a, ra.0, ra.1), (b, bnext, wlatest));
                        }
                    }
                    _ => {}
                }
                s.check();
            }
        }
    }

    #[test]
    #[should_panic(expected = "is not newer")]
    fn an_old_id_is_refused() {
        let mut s = Packets::default();
        put(&mut s, PacketId::__from_u64(2), packet(0));
        put(&mut s, PacketId::__from_u64(1), packet(1));
    }
}
