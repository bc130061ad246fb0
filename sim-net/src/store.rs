//! The packets in the network, by id, and the answer to the runtime's
//! per-step question: what is deliverable, and when does that change?
//!
//! Packet ids are handed out in increasing order and a packet is stored
//! when it is created, so appending keeps the store sorted: a `VecDeque`
//! ordered by id. Deliveries mostly take the oldest packet, which the
//! deque pops. A packet removed from the middle of a small store shifts
//! the few behind it; in a large (indexed) one it leaves a *tombstone* (no
//! packet) that goes when it reaches the front, or when tombstones
//! outnumber packets, so no removal shifts thousands of packets. A large
//! store keeps its ids in a deque of their own beside the packets, so a
//! lookup reads 8 bytes a probe rather than a 200-byte packet, and mostly
//! needs one probe: a packet is as far from the front (or the back) in
//! places as in ids, unless a packet between was never stored.
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
//! - the other heads with a window, by opening instant, and every window
//!   by its latest instant: two binary heaps ([`Lazy`]) that drop an entry
//!   once it reaches the front and no longer stands, rather than finding
//!   it when its packet leaves.
//!
//! Either way the answer is the same, in send order (checked against a scan
//! by [`Packets::check`] and a proptest of random histories).
//!
//! # Invariants
//!
//! - Ids are strictly increasing from front to back; the front slot is
//!   never a tombstone, and a store without an index holds none.
//! - A packet's `head` is true exactly when no older stored packet belongs
//!   to the same flow (always for a datagram).
//! - With an index: `open` holds, in id order, exactly the heads with a
//!   window whose `earliest` is at most `opened`; the entries of `closed`
//!   that stand are exactly the other heads with a window, those of
//!   `latest` exactly the packets with a window, and neither has a stale
//!   entry at its front; `flows` holds each flow's stored ids in order.

use std::cmp::Reverse;
use std::collections::{BTreeMap, BTreeSet, BinaryHeap, VecDeque};
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

    /// Adds `id`, unless it is there already (a head can have two
    /// entries in `closed` that stand, when its window was set twice).
    fn insert(&mut self, id: PacketId) {
        if self.chunks.is_empty() {
            self.len += 1;
            self.chunks.push(vec![id]);
            return;
        }
        let c = self.chunk_of(id);
        let chunk = &mut self.chunks[c];
        let at = chunk.partition_point(|o| *o < id);
        if chunk.get(at) == Some(&id) {
            return;
        }
        self.len += 1;
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

/// Where packet `id` is in `v` (oldest first, ids increasing, `key`
/// giving each entry's id), if it is there.
#[inline]
fn find<T>(v: &VecDeque<T>, id: PacketId, key: impl Fn(&T) -> PacketId) -> Option<usize> {
    // The newest and the oldest packets are the ones most often looked up
    // (just sent, about to be delivered).
    match (v.back(), v.front()) {
        (Some(t), _) if key(t) == id => Some(v.len() - 1),
        (_, Some(t)) if key(t) == id => Some(0),
        _ => v.binary_search_by_key(&id, key).ok(),
    }
}

/// The ids of `v` are strictly increasing.
fn in_send_order<T>(v: &VecDeque<T>, key: impl Fn(&T) -> PacketId) -> bool {
    v.iter().zip(v.iter().skip(1)).all(|(a, b)| key(a) < key(b))
}

/// Checks that a new packet's `id` is newer than the `newest` stored.
#[inline]
fn newer_than(newest: Option<PacketId>, id: PacketId) {
    assert!(
        newest.is_none_or(|n| n < id),
        "packet {id} is not newer than every packet in the network"
    );
}

/// An indexed store's packets and indexes (see the module docs).
#[derive(Debug, Default)]
struct Large {
    /// Each position's packet id, oldest first: what a lookup searches, 8
    /// bytes a packet, so a search among thousands touches a few cache
    /// lines rather than one per probe of a 200-byte packet.
    ids: VecDeque<PacketId>,
    /// Each position's packet; `None` is a tombstone.
    packets: VecDeque<Option<Packet>>,
    index: Index,
}

impl Large {
    #[inline]
    fn position(&self, id: PacketId) -> Option<usize> {
        lookup(&self.ids, &self.packets, id).map(|(i, _)| i)
    }

    /// Packet `id` lost its window (removed, or given another): its
    /// entries at the front of `closed` and `latest` go, and the stale ones
    /// behind them.
    fn forget(&mut self, id: PacketId) {
        let Large {
            ids,
            packets,
            index,
        } = self;
        let get = |id| lookup(ids, packets, id).map(|(_, p)| p);
        index.closed.forget(id, |t, id| opens_at(get(id), t));
        index.latest.forget(id, |t, id| closes_at(get(id), t));
    }

    /// [`Packets::schedule`] for an indexed store: moves the heads that
    /// opened by `now` to `open`; returns the next opening and the
    /// earliest latest instant.
    fn schedule(&mut self, now: Duration) -> (Option<Duration>, Option<Duration>) {
        let Large {
            ids,
            packets,
            index: ix,
        } = self;
        let get = |id| lookup(ids, packets, id).map(|(_, p)| p);
        ix.opened = now;
        let next = loop {
            match ix.closed.first() {
                Some((t, id)) if t <= now => {
                    ix.open.insert(id);
                    ix.closed.pop(|t, id| opens_at(get(id), t));
                }
                first => break first.map(|(t, _)| t),
            }
        };
        (next, ix.latest.first().map(|(t, _)| t))
    }
}

/// Packet `id`'s position and packet among an indexed store's `ids` and
/// `packets`, if it is stored.
#[inline]
fn lookup<'a>(
    ids: &VecDeque<PacketId>,
    packets: &'a VecDeque<Option<Packet>>,
    id: PacketId,
) -> Option<(usize, &'a Packet)> {
    // Ids count up in steps of one, but for the ids of packets never
    // stored (discarded as they were sent) or dropped as tombstones: a
    // packet is mostly exactly as far from the front, or from the back, in
    // places as in ids.
    let from_front = usize::try_from(id.0.checked_sub(ids.front()?.0)?).ok()?;
    let from_back = usize::try_from(ids.back()?.0.checked_sub(id.0)?).ok()?;
    let by_back = ids.len().checked_sub(from_back + 1);
    let i = match (ids.get(from_front), by_back.and_then(|i| ids.get(i))) {
        (Some(&at), _) if at == id => from_front,
        (_, Some(&at)) if at == id => by_back.expect("just read"),
        _ => find(ids, id, |i| *i)?,
    };
    packets[i].as_ref().map(|p| (i, p))
}

/// Entries `(instant, packet)`, earliest first, some of them stale: an
/// entry stands for a window its packet may since have lost (delivered,
/// held, or given another), and goes when it reaches the front. A push in
/// send order, as most of a link's packets come, is one comparison; a
/// B-tree paid a pass over a node per level, for an insert and again for
/// a removal (a third of a 1,000-host gossip's instructions).
///
/// Kept so that the front entry, if any, is never stale: whatever may
/// make it so ([`Large::forget`], a pop) prunes the stale ones after it.
///
/// An entry is packed in a `u128` (nanoseconds, then the packet's number),
/// which orders as the pair does and compares in one instruction or two.
#[derive(Debug, Default)]
struct Lazy(BinaryHeap<Reverse<u128>>);

impl Lazy {
    fn push(&mut self, t: Duration, id: PacketId) {
        let nanos = u64::try_from(t.as_nanos())
            .expect("a packet's window ends within 584 years of simulated time");
        self.0
            .push(Reverse(u128::from(nanos) << 64 | u128::from(id.0)));
    }

    fn unpack(key: u128) -> (Duration, PacketId) {
        (
            Duration::from_nanos((key >> 64) as u64),
            PacketId(key as u64),
        )
    }

    /// The front entry.
    fn first(&self) -> Option<(Duration, PacketId)> {
        self.0.peek().map(|r| Self::unpack(r.0))
    }

    /// Drops the front entry, then every stale one that comes to the front
    /// (`holds` tells which still stand).
    fn pop(&mut self, holds: impl Fn(Duration, PacketId) -> bool) {
        self.0.pop();
        self.prune(holds);
    }

    /// Drops the stale entries at the front.
    fn prune(&mut self, holds: impl Fn(Duration, PacketId) -> bool) {
        while let Some((t, id)) = self.first() {
            if holds(t, id) {
                return;
            }
            self.0.pop();
        }
    }

    /// Packet `id` lost a window: drops its entries at the front, and the
    /// stale ones behind them.
    fn forget(&mut self, id: PacketId, holds: impl Fn(Duration, PacketId) -> bool) {
        if self.first().is_some_and(|(_, f)| f == id) {
            self.pop(holds);
        }
    }

    /// The entries that stand, once each.
    fn standing(
        &self,
        holds: impl Fn(Duration, PacketId) -> bool,
    ) -> BTreeSet<(Duration, PacketId)> {
        self.0
            .iter()
            .map(|r| Self::unpack(r.0))
            .filter(|&(t, id)| holds(t, id))
            .collect()
    }
}

/// The indexes of a large store (see the module docs).
#[derive(Debug, Default)]
struct Index {
    /// Each flow's stored packets, oldest first.
    flows: BTreeMap<ConnId, VecDeque<PacketId>>,
    /// Heads whose window opened by `opened`, in id order.
    open: OpenHeads,
    /// Heads with a window that had not opened by `opened`, by opening
    /// instant. An entry stands while its packet is a head with a window
    /// that opens then.
    closed: Lazy,
    /// Every window, by its latest instant. An entry stands while its
    /// packet has a window that closes then.
    latest: Lazy,
    /// The instant up to which `closed` heads were moved to `open`.
    opened: Duration,
}

impl Index {
    /// Adds packet `id`'s window `w` to the indexes.
    fn add_window(&mut self, id: PacketId, w: Window, head: bool) {
        self.latest.push(w.latest, id);
        if head {
            self.add_head(id, w);
        }
    }

    /// Adds head `id` with window `w` to `open` or `closed`.
    fn add_head(&mut self, id: PacketId, w: Window) {
        if w.earliest <= self.opened {
            self.open.insert(id);
        } else {
            self.closed.push(w.earliest, id);
        }
    }

    /// Removes packet `id`'s window `w` from `open`; its entries in
    /// `closed` and `latest` are stale from now on ([`Large::forget`]).
    fn remove_window(&mut self, id: PacketId, w: Window, head: bool) {
        if head && w.earliest <= self.opened {
            let removed = self.open.remove(id);
            assert!(removed, "an open head is in `open`");
        }
    }
}

/// Whether `closed`'s entry `(t, id)` stands: `p` is packet `id`, a head
/// whose window opens at `t`.
fn opens_at(p: Option<&Packet>, t: Duration) -> bool {
    p.is_some_and(|p| p.head && p.window.is_some_and(|w| w.earliest == t))
}

/// Whether `latest`'s entry `(t, id)` stands: `p` is packet `id`, with a
/// window that closes at `t`.
fn closes_at(p: Option<&Packet>, t: Duration) -> bool {
    p.is_some_and(|p| p.window.is_some_and(|w| w.latest == t))
}

/// The two shapes of a store (see the module docs).
#[derive(Debug)]
enum Shape {
    /// Bare packets, oldest first: no index, no tombstones.
    Small(VecDeque<Packet>),
    /// Oldest first, the front never a tombstone; and the indexes.
    Indexed(Large),
}

#[derive(Debug)]
pub(crate) struct Packets {
    shape: Shape,
    /// The buffers of the shape not in use, kept for its next turn: a
    /// store that fills and empties in bursts (hosts that all send on the
    /// same tick) would otherwise grow them anew each time.
    spare_small: VecDeque<Packet>,
    spare_large: Option<Large>,
    /// Packets stored (slots that are not tombstones).
    live: usize,
    /// A small store is indexed once it holds more than this many.
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
            shape: Shape::Small(VecDeque::new()),
            spare_small: VecDeque::new(),
            spare_large: None,
            live: 0,
            index_at,
            asked: Duration::ZERO,
            cache: Vec::new(),
            due: (None, None),
            cached_at: None,
            generation: 0,
        }
    }

    /// Stores a new packet, whose id must be newer than every stored one.
    pub(crate) fn insert(&mut self, mut p: Packet) {
        let id = p.id;
        self.generation += 1;
        self.live += 1;
        match &mut self.shape {
            Shape::Small(slots) => {
                newer_than(slots.back().map(|s| s.id), id);
                let flow = p.flow();
                p.head = flow.is_none() || !slots.iter().any(|o| o.flow() == flow);
                slots.push_back(p);
                if self.live > self.index_at {
                    self.build_index();
                }
            }
            Shape::Indexed(large) => {
                newer_than(large.ids.back().copied(), id);
                let index = &mut large.index;
                p.head = match p.flow() {
                    None => true,
                    Some(f) => {
                        let q = index.flows.entry(f).or_default();
                        q.push_back(id);
                        q.len() == 1
                    }
                };
                if let Some(w) = p.window {
                    index.add_window(id, w, p.head);
                }
                large.ids.push_back(id);
                large.packets.push_back(Some(p));
            }
        }
    }

    /// Indexes a small store as it is (see the module docs).
    fn build_index(&mut self) {
        let Shape::Small(small) = &mut self.shape else {
            return;
        };
        let mut large = self.spare_large.take().unwrap_or_default();
        let index = &mut large.index;
        index.opened = self.asked;
        large.ids.extend(small.iter().map(|p| p.id));
        for p in small.drain(..) {
            if let Some(f) = p.flow() {
                index.flows.entry(f).or_default().push_back(p.id);
            }
            if let Some(w) = p.window {
                index.add_window(p.id, w, p.head);
            }
            large.packets.push_back(Some(p));
        }
        if let Shape::Small(small) = std::mem::replace(&mut self.shape, Shape::Indexed(large)) {
            self.spare_small = small;
        }
    }

    /// A number that changes whenever the packets may have changed.
    pub(crate) fn generation(&self) -> u64 {
        self.generation
    }

    #[inline(always)]
    pub(crate) fn get(&self, id: PacketId) -> Option<&Packet> {
        match &self.shape {
            Shape::Small(slots) => find(slots, id, |p| p.id).map(|i| &slots[i]),
            Shape::Indexed(large) => large.position(id).and_then(|i| large.packets[i].as_ref()),
        }
    }

    /// Gives stored packet `id` window `w` (`None`: held).
    ///
    /// # Panics
    ///
    /// If the packet is not stored.
    pub(crate) fn set_window(&mut self, id: PacketId, w: Option<Window>) {
        self.generation += 1;
        let missing = || -> usize { panic!("set_window({id}): not in the network") };
        match &mut self.shape {
            Shape::Small(slots) => {
                let i = find(slots, id, |p| p.id).unwrap_or_else(missing);
                slots[i].window = w;
            }
            Shape::Indexed(large) => {
                let i = large.position(id).unwrap_or_else(missing);
                let p = large.packets[i].as_mut().expect("a stored packet");
                let (old, head) = (std::mem::replace(&mut p.window, w), p.head);
                if let Some(old) = old {
                    large.index.remove_window(id, old, head);
                    large.forget(id);
                }
                if let Some(w) = w {
                    large.index.add_window(id, w, head);
                }
            }
        }
    }

    pub(crate) fn remove(&mut self, id: PacketId) -> Option<Packet> {
        let large = match &mut self.shape {
            Shape::Small(slots) => {
                // Returned as the deque hands it over: a packet is large.
                let i = find(slots, id, |p| p.id)?;
                self.generation += 1;
                self.live -= 1;
                return remove_small(slots, i);
            }
            Shape::Indexed(large) => large,
        };
        let p = remove_indexed(large, id)?;
        self.generation += 1;
        self.live -= 1;
        // Tombstones go from the front (dropped where they lie), or all at
        // once when they outnumber the packets.
        let dead = large.packets.iter().take_while(|p| p.is_none()).count();
        large.packets.drain(..dead);
        large.ids.drain(..dead);
        if large.packets.len() > 2 * self.live + 32 {
            let mut i = 0;
            large.ids.retain(|_| {
                i += 1;
                large.packets[i - 1].is_some()
            });
            large.packets.retain(Option::is_some);
        }
        if self.live == 0 {
            let small = Shape::Small(std::mem::take(&mut self.spare_small));
            if let Shape::Indexed(mut large) = std::mem::replace(&mut self.shape, small) {
                large.ids.clear();
                large.packets.clear();
                large.index = Index::default();
                self.spare_large = Some(large);
            }
        }
        Some(p)
    }

    pub(crate) fn len(&self) -> usize {
        self.live
    }

    /// Every packet, oldest first.
    pub(crate) fn iter(&self) -> impl DoubleEndedIterator<Item = (PacketId, &Packet)> + '_ {
        let (small, indexed) = match &self.shape {
            Shape::Small(slots) => (Some(slots), None),
            Shape::Indexed(large) => (None, Some(&large.packets)),
        };
        small
            .into_iter()
            .flatten()
            .chain(indexed.into_iter().flatten().filter_map(Option::as_ref))
            .map(|p| (p.id, p))
    }

    /// The runtime's question at `now`, which must not be earlier than the
    /// last `now` asked: the heads whose window is open, oldest first, the
    /// earliest opening of the other heads' windows, and the earliest close
    /// of all windows. A small store answers by a pass over its packets,
    /// cached until they or `now` change; an indexed one costs a logarithm
    /// per head that opened since the last call, and one per stale entry
    /// its heaps drop.
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
        let ix = match &mut self.shape {
            Shape::Small(slots) => {
                let key = Some((now, self.generation));
                if self.cached_at != key {
                    self.cached_at = key;
                    self.cache.clear();
                    self.due = scan(slots.iter(), now, &mut self.cache);
                }
                return (Deliverable(Ids::Slice(&self.cache)), self.due.0, self.due.1);
            }
            Shape::Indexed(large) => large,
        };
        let (next, latest) = ix.schedule(now);
        (Deliverable(Ids::Chunks(&ix.index.open)), next, latest)
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
        match &self.shape {
            Shape::Indexed(large) if now >= large.index.opened => {
                let ix = &large.index;
                let get = |id| lookup(&large.ids, &large.packets, id).map(|(_, p)| p);
                let start = out.len();
                out.extend(ix.open.iter());
                let mut next = None;
                for (earliest, id) in ix.closed.standing(|t, id| opens_at(get(id), t)) {
                    if earliest > now {
                        next = Some(earliest);
                        break;
                    }
                    out.push(id);
                }
                out[start..].sort_unstable();
                (next, ix.latest.first().map(|(t, _)| t))
            }
            _ => scan(self.iter().map(|(_, p)| p), now, out),
        }
    }

    /// The window of the newest packet of `flow` older than `id` that has
    /// one (held packets have none).
    pub(crate) fn predecessor_window(&self, flow: ConnId, id: PacketId) -> Option<crate::Window> {
        let slots = match &self.shape {
            Shape::Small(slots) => slots,
            Shape::Indexed(large) => {
                return large
                    .index
                    .flows
                    .get(&flow)?
                    .iter()
                    .rev()
                    .filter(|o| **o < id)
                    .find_map(|o| self.get(*o).and_then(|p| p.window));
            }
        };
        let flow = Some(flow);
        let end = match slots.back() {
            Some(s) if s.id >= id => slots.partition_point(|s| s.id < id),
            // Most often `id` is new, newer than every stored packet.
            _ => slots.len(),
        };
        slots
            .range(..end)
            .rev()
            .filter(|s| s.flow() == flow)
            .find_map(|s| s.window)
    }

    /// Every id, oldest first.
    pub(crate) fn ids(&self) -> Vec<PacketId> {
        self.iter().map(|(id, _)| id).collect()
    }

    /// Checks the store's invariants (see the module docs).
    pub(crate) fn check(&self) {
        let ix = match &self.shape {
            Shape::Small(slots) => {
                assert!(
                    in_send_order(slots, |p| p.id),
                    "the packet store is not in send order"
                );
                assert!(
                    self.live <= self.index_at || self.live == 0,
                    "a large store unindexed"
                );
                None
            }
            Shape::Indexed(large) => {
                assert!(
                    in_send_order(&large.ids, |i| *i),
                    "the packet store is not in send order"
                );
                assert_eq!(
                    large.ids.len(),
                    large.packets.len(),
                    "an id for each position"
                );
                assert!(
                    large.packets.front().is_none_or(Option::is_some),
                    "a tombstone at the front"
                );
                assert!(self.live > 0, "an empty store indexed");
                for (id, p) in large.ids.iter().zip(&large.packets) {
                    if let Some(p) = p {
                        assert_eq!(*id, p.id, "a packet is stored under its own id");
                    }
                }
                Some(&large.index)
            }
        };
        assert_eq!(
            self.live,
            self.iter().count(),
            "the count of packets is stale"
        );
        let mut seen: BTreeSet<ConnId> = BTreeSet::new();
        for (id, s) in self.iter() {
            let head = match s.flow() {
                None => true,
                Some(f) => seen.insert(f),
            };
            assert_eq!(s.head, head, "{id}: stale head flag in the store");
        }
        let Some(ix) = ix else {
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
        let Shape::Indexed(large) = &self.shape else {
            unreachable!("an index is a large store's")
        };
        let get = |id| lookup(&large.ids, &large.packets, id).map(|(_, p)| p);
        let (opens, closes) = (|t, id| opens_at(get(id), t), |t, id| closes_at(get(id), t));
        assert_eq!(
            closed,
            ix.closed.standing(opens),
            "the closed heads are stale"
        );
        assert_eq!(
            latest,
            ix.latest.standing(closes),
            "the windows' latest instants are stale"
        );
        for (what, lazy, holds) in [
            (
                "closed",
                &ix.closed,
                &opens as &dyn Fn(Duration, PacketId) -> bool,
            ),
            ("latest", &ix.latest, &closes),
        ] {
            assert!(
                lazy.first().is_none_or(|(t, id)| holds(t, id)),
                "a stale entry at the front of `{what}`"
            );
        }
        assert_eq!(flows, ix.flows, "the flows' packet lists are stale");
    }
}

/// `remove` from a small store, of the packet at `i`: the few packets
/// behind it shift (none for the oldest, the one most often delivered).
#[inline]
fn remove_small(slots: &mut VecDeque<Packet>, i: usize) -> Option<Packet> {
    let p = &slots[i];
    if let (true, Some(f)) = (p.head, p.flow()) {
        // The next packet of the flow, if any, becomes its head.
        let flow = Some(f);
        if let Some(next) = slots.range_mut(i + 1..).find(|s| s.flow() == flow) {
            next.head = true;
        }
    }
    if i == 0 {
        slots.pop_front()
    } else {
        slots.remove(i)
    }
}

/// `remove` from an indexed store: leaves a tombstone, which the caller
/// clears away.
fn remove_indexed(large: &mut Large, id: PacketId) -> Option<Packet> {
    let i = large.position(id)?;
    let p = large.packets[i].take().expect("a stored packet");
    let ix = &mut large.index;
    if let Some(w) = p.window {
        ix.remove_window(id, w, p.head);
    }
    let mut promoted = None;
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
    // The next packet of the flow, if any, becomes its head.
    if let Some(next) = promoted {
        let at = large.position(next).expect("a listed packet is stored");
        let n = large.packets[at].as_mut().expect("a stored packet");
        n.head = true;
        if let Some(w) = n.window {
            large.index.add_head(next, w);
        }
    }
    if p.window.is_some() {
        large.forget(id);
    }
    Some(p)
}

/// The runtime's question answered by a pass over `packets` (oldest
/// first): appends the open heads to `out`, returns the next opening and
/// the latest arrival.
fn scan<'a>(
    packets: impl Iterator<Item = &'a Packet>,
    now: Duration,
    out: &mut Vec<PacketId>,
) -> (Option<Duration>, Option<Duration>) {
    let (mut next, mut latest): (Option<Duration>, Option<Duration>) = (None, None);
    for p in packets {
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
