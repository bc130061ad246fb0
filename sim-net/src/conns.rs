//! The table of stream endpoints, by id.
//!
//! Every socket operation and every segment delivered looks endpoints up,
//! several times, so a lookup is an index rather than a search: endpoint
//! ids come from one counter that only goes up (see `id.rs`), so the table
//! is a `VecDeque` of slots, slot `i` for id `base + i`. Ids that name no
//! live endpoint (forgotten endpoints, and the flows of kernel RSTs, which
//! draw from the same counter) leave empty slots; empty slots at either
//! end are dropped, so the table spans the ids from the oldest live
//! endpoint to the newest (one pointer per id in between: endpoints are
//! boxed, and created only by a connect or an accepted SYN).
//!
//! # Invariants
//!
//! - The first and last slots are occupied (or there are none).
//! - `len` is the number of occupied slots.
//!
//! # Determinism
//!
//! [`Conns::iter`] and [`Conns::values`] go in id order, as the `BTreeMap`
//! this replaces did.

use std::collections::VecDeque;

use crate::stream::Conn;
use crate::ConnId;

#[derive(Default)]
pub(crate) struct Conns {
    /// The id of `slots[0]`.
    base: u64,
    slots: VecDeque<Option<Box<Conn>>>,
    /// Occupied slots.
    len: usize,
}

/// Like the `BTreeMap` it replaces: the endpoints by id.
impl std::fmt::Debug for Conns {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

impl Conns {
    fn index(&self, id: ConnId) -> Option<usize> {
        let i = usize::try_from(id.0.checked_sub(self.base)?).ok()?;
        (i < self.slots.len()).then_some(i)
    }

    pub(crate) fn get(&self, id: &ConnId) -> Option<&Conn> {
        self.index(*id).and_then(|i| self.slots[i].as_deref())
    }

    pub(crate) fn get_mut(&mut self, id: &ConnId) -> Option<&mut Conn> {
        self.index(*id).and_then(|i| self.slots[i].as_deref_mut())
    }

    pub(crate) fn contains_key(&self, id: &ConnId) -> bool {
        self.get(id).is_some()
    }

    /// Adds endpoint `id`, which must be newer than every endpoint in the
    /// table (a fresh id).
    pub(crate) fn insert(&mut self, id: ConnId, conn: Conn) {
        if self.slots.is_empty() {
            self.base = id.0;
        }
        let end = self.base + self.slots.len() as u64;
        assert!(
            id.0 >= end,
            "{id} is not newer than every endpoint in the table"
        );
        for _ in end..id.0 {
            self.slots.push_back(None);
        }
        self.slots.push_back(Some(Box::new(conn)));
        self.len += 1;
    }

    pub(crate) fn remove(&mut self, id: &ConnId) -> Option<Conn> {
        let i = self.index(*id)?;
        let conn = self.slots[i].take()?;
        self.len -= 1;
        while self.slots.front().is_some_and(Option::is_none) {
            self.slots.pop_front();
            self.base += 1;
        }
        while self.slots.back().is_some_and(Option::is_none) {
            self.slots.pop_back();
        }
        Some(*conn)
    }

    /// Every endpoint, in id order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = (ConnId, &Conn)> + '_ {
        let base = self.base;
        self.slots
            .iter()
            .zip(base..)
            .filter_map(|(c, id)| c.as_deref().map(|c| (ConnId(id), c)))
    }

    /// Every endpoint, in id order.
    pub(crate) fn values(&self) -> impl Iterator<Item = &Conn> + '_ {
        self.slots.iter().filter_map(|c| c.as_deref())
    }

    /// Checks the table's invariants (see the module docs).
    pub(crate) fn check(&self) {
        assert!(
            self.slots.front().is_none_or(Option::is_some)
                && self.slots.back().is_none_or(Option::is_some),
            "the endpoint table keeps an empty slot at an end"
        );
        assert_eq!(
            self.len,
            self.slots.iter().filter(|c| c.is_some()).count(),
            "the endpoint table miscounts its endpoints"
        );
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
    #[should_panic(expected = "is not newer")]
    fn an_old_id_is_refused() {
        let mut t = Conns::default();
        t.insert(ConnId(5), conn(5));
        t.insert(ConnId(4), conn(4));
    }
}
