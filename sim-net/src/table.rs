//! Tables of the model's things by id: stream endpoints and datagram
//! sockets.
//!
//! Every socket operation and every packet delivered looks them up, often
//! several times, so a lookup is an index rather than a search: ids of a
//! kind come from a counter that only goes up (see `id.rs`), so a table is
//! a `VecDeque` of slots, slot `i` for id `base + i`. Ids that name nothing
//! in the table (forgotten endpoints, closed sockets, and the flows of
//! kernel RSTs, which draw from the endpoints' counter) leave empty slots;
//! empty slots at either end are dropped, so the table spans the ids from
//! the oldest live entry to the newest (one pointer per id in between:
//! entries are boxed).
//!
//! # Invariants
//!
//! - The first and last slots are occupied (or there are none).
//! - `len` is the number of occupied slots.
//!
//! # Determinism
//!
//! [`Table::iter`] and [`Table::values`] go in id order, as the `BTreeMap`s
//! this replaces did.

use std::collections::VecDeque;
use std::marker::PhantomData;

use crate::stream::Conn;
use crate::ConnId;

/// An id a [`Table`] is keyed by: a number from a counter that only goes
/// up.
pub(crate) trait TableId: Copy + std::fmt::Display {
    fn number(self) -> u64;
    fn from_number(n: u64) -> Self;
}

/// The stream endpoints.
pub(crate) type Conns = Table<ConnId, Conn>;

pub(crate) struct Table<K, V> {
    /// The id of `slots[0]`.
    base: u64,
    slots: VecDeque<Option<Box<V>>>,
    /// Occupied slots.
    len: usize,
    key: PhantomData<K>,
}

impl<K, V> Default for Table<K, V> {
    fn default() -> Self {
        Table {
            base: 0,
            slots: VecDeque::new(),
            len: 0,
            key: PhantomData,
        }
    }
}

/// Like the `BTreeMap` it replaces: the entries by id.
impl<K: TableId + std::fmt::Debug, V: std::fmt::Debug> std::fmt::Debug for Table<K, V> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

impl<K: TableId, V> Table<K, V> {
    #[inline]
    fn slot_of(&self, id: K) -> Option<usize> {
        let i = usize::try_from(id.number().checked_sub(self.base)?).ok()?;
        (i < self.slots.len()).then_some(i)
    }

    #[inline]
    pub(crate) fn get(&self, id: &K) -> Option<&V> {
        self.slot_of(*id).and_then(|i| self.slots[i].as_deref())
    }

    #[inline]
    pub(crate) fn get_mut(&mut self, id: &K) -> Option<&mut V> {
        self.slot_of(*id).and_then(|i| self.slots[i].as_deref_mut())
    }

    #[inline]
    pub(crate) fn contains_key(&self, id: &K) -> bool {
        self.get(id).is_some()
    }

    /// Entries in the table.
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// Adds entry `id`, which must be newer than every entry in the table
    /// (a fresh id).
    pub(crate) fn insert(&mut self, id: K, value: V) {
        if self.slots.is_empty() {
            self.base = id.number();
        }
        let end = self.base + self.slots.len() as u64;
        assert!(
            id.number() >= end,
            "{id} is not newer than every entry in the table"
        );
        for _ in end..id.number() {
            self.slots.push_back(None);
        }
        self.slots.push_back(Some(Box::new(value)));
        self.len += 1;
    }

    pub(crate) fn remove(&mut self, id: &K) -> Option<V> {
        let i = self.slot_of(*id)?;
        let value = self.slots[i].take()?;
        self.len -= 1;
        self.trim();
        Some(*value)
    }

    /// Keeps the entries `keep` says to, dropping the others.
    pub(crate) fn retain(&mut self, mut keep: impl FnMut(K, &V) -> bool) {
        let base = self.base;
        for (slot, n) in self.slots.iter_mut().zip(base..) {
            if slot.as_deref().is_some_and(|v| !keep(K::from_number(n), v)) {
                *slot = None;
                self.len -= 1;
            }
        }
        self.trim();
    }

    /// Drops the empty slots at both ends.
    fn trim(&mut self) {
        while self.slots.front().is_some_and(Option::is_none) {
            self.slots.pop_front();
            self.base += 1;
        }
        while self.slots.back().is_some_and(Option::is_none) {
            self.slots.pop_back();
        }
    }

    /// Every entry, in id order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = (K, &V)> + '_ {
        let base = self.base;
        self.slots
            .iter()
            .zip(base..)
            .filter_map(|(v, n)| v.as_deref().map(|v| (K::from_number(n), v)))
    }

    /// Every entry, in id order.
    pub(crate) fn values(&self) -> impl Iterator<Item = &V> + '_ {
        self.slots.iter().filter_map(|v| v.as_deref())
    }

    /// Checks the table's invariants (see the module docs).
    pub(crate) fn check(&self) {
        assert!(
            self.slots.front().is_none_or(Option::is_some)
                && self.slots.back().is_none_or(Option::is_some),
            "a table keeps an empty slot at an end"
        );
        assert_eq!(
            self.len,
            self.slots.iter().filter(|v| v.is_some()).count(),
            "a table miscounts its entries"
        );
    }
}

impl<K: TableId, V> std::ops::Index<&K> for Table<K, V> {
    type Output = V;

    fn index(&self, id: &K) -> &V {
        self.get(id)
            .unwrap_or_else(|| panic!("{id} is not in the table"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{HostId, Net};

    fn conn(port: u16) -> Conn {
        let a = format!("10.0.0.1:{port}").parse().unwrap();
        Conn::new(&Net::default(), HostId(0), a, (HostId(1), a))
    }

    fn ports(t: &Conns) -> Vec<(u64, u16)> {
        t.iter().map(|(id, c)| (id.0, c.local.port())).collect()
    }

    #[test]
    fn lookups_by_id_and_iteration_in_id_order() {
        let mut t = Conns::default();
        assert!(t.get(&ConnId(1)).is_none());
        t.insert(ConnId(3), conn(3));
        t.insert(ConnId(4), conn(4));
        // Ids 5 and 6 name no endpoint (a kernel RST's flow, say).
        t.insert(ConnId(7), conn(7));
        t.check();
        assert_eq!(ports(&t), vec![(3, 3), (4, 4), (7, 7)]);
        assert_eq!(t.values().count(), 3);
        for missing in [0, 1, 2, 5, 6, 8, u64::MAX] {
            assert!(!t.contains_key(&ConnId(missing)), "{missing}");
        }
        t.get_mut(&ConnId(4)).unwrap().in_flight = 9;
        assert_eq!(t.get(&ConnId(4)).unwrap().in_flight, 9);
        // Removing the oldest drops the empty slots behind it.
        assert_eq!(t.remove(&ConnId(3)).unwrap().local.port(), 3);
        assert!(t.remove(&ConnId(3)).is_none());
        assert_eq!(t.remove(&ConnId(4)).unwrap().in_flight, 9);
        t.check();
        assert_eq!(t.slots.len(), 1);
        assert_eq!(ports(&t), vec![(7, 7)]);
        // Removing the newest too: empty, and a new base.
        t.remove(&ConnId(7));
        t.check();
        assert!(t.slots.is_empty());
        t.insert(ConnId(10), conn(10));
        t.insert(ConnId(11), conn(11));
        t.remove(&ConnId(11));
        t.check();
        assert_eq!(ports(&t), vec![(10, 10)]);
        assert_eq!(format!("{t:?}").matches("Conn {").count(), 1);
    }

    #[test]
    fn retain_drops_entries_and_trims_the_ends() {
        let mut t = Conns::default();
        for n in [2, 3, 5, 6, 8] {
            t.insert(ConnId(n), conn(n as u16));
        }
        t.retain(|id, c| id.0 == u64::from(c.local.port()) && id.0 % 2 == 1);
        t.check();
        assert_eq!(ports(&t), vec![(3, 3), (5, 5)]);
        assert_eq!((t.len(), t.slots.len()), (2, 3));
        assert_eq!(t[&ConnId(5)].local.port(), 5);
        t.retain(|_, _| false);
        t.check();
        assert!(t.slots.is_empty() && t.len() == 0);
    }

    #[test]
    #[should_panic(expected = "is not newer")]
    fn an_old_id_is_refused() {
        let mut t = Conns::default();
        t.insert(ConnId(5), conn(5));
        t.insert(ConnId(4), conn(4));
    }
}
