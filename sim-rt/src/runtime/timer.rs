//! The timer queue: deadlines in simulated time, and who to wake at each.
//!
//! A [`Sleep`](crate::time::Sleep) registers an entry the first time it is
//! polled before its deadline and removes it when dropped. The queue is a
//! min-heap of `(deadline, seq, key)` with lazy deletion: resetting or
//! removing an entry leaves its old heap item behind, recognised as stale
//! because the entry's `seq` no longer matches.
//!
//! # Invariants
//!
//! - Every live entry with `fired == false` has exactly one heap item whose
//!   `seq` equals the entry's `seq`; every other heap item is stale.
//! - `seq` is unique over the queue's lifetime, so a reused slab key never
//!   revives a stale item.
//!
//! # Determinism
//!
//! Entries due at the same instant fire in (deadline, seq) order, that is in
//! the order they were armed; the scheduler then decides the order in which
//! the woken tasks run.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::task::Waker;
use std::time::Duration;

use slab::Slab;

#[derive(Debug)]
struct Entry {
    deadline: Duration,
    seq: u64,
    waker: Option<Waker>,
    fired: bool,
}

/// Key of a registered timer, owned by the future that registered it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct TimerKey(usize);

#[derive(Debug, Default)]
pub(crate) struct Timers {
    entries: Slab<Entry>,
    heap: BinaryHeap<Reverse<(Duration, u64, usize)>>,
    next_seq: u64,
}

impl Timers {
    pub(crate) fn insert(&mut self, deadline: Duration, waker: Waker) -> TimerKey {
        let seq = self.bump();
        let key = self.entries.insert(Entry {
            deadline,
            seq,
            waker: Some(waker),
            fired: false,
        });
        self.heap.push(Reverse((deadline, seq, key)));
        TimerKey(key)
    }

    /// Replaces the waker to wake, unless it would wake the same task.
    pub(crate) fn set_waker(&mut self, key: TimerKey, waker: &Waker) {
        let e = self
            .entries
            .get_mut(key.0)
            .expect("a timer key is removed only by its owner");
        match &mut e.waker {
            Some(w) if w.will_wake(waker) => {}
            slot => *slot = Some(waker.clone()),
        }
    }

    /// Moves the entry to a new deadline (re-arming it if it had fired).
    pub(crate) fn reset(&mut self, key: TimerKey, deadline: Duration) {
        let seq = self.bump();
        let e = self
            .entries
            .get_mut(key.0)
            .expect("a timer key is removed only by its owner");
        e.deadline = deadline;
        e.seq = seq;
        e.fired = false;
        self.heap.push(Reverse((deadline, seq, key.0)));
        self.compact_if_needed();
    }

    pub(crate) fn remove(&mut self, key: TimerKey) {
        self.entries.remove(key.0);
        self.compact_if_needed();
    }

    /// The earliest deadline of an armed entry, discarding stale heap items.
    pub(crate) fn next_deadline(&mut self) -> Option<Duration> {
        while let Some(&Reverse((deadline, seq, key))) = self.heap.peek() {
            if self.is_live(seq, key) {
                return Some(deadline);
            }
            self.heap.pop();
        }
        None
    }

    /// Marks every entry due at or before `now` as fired and moves its waker
    /// into `out`.
    pub(crate) fn fire_until(&mut self, now: Duration, out: &mut Vec<Waker>) {
        while let Some(&Reverse((deadline, seq, key))) = self.heap.peek() {
            if deadline > now {
                break;
            }
            self.heap.pop();
            if self.is_live(seq, key) {
                let e = &mut self.entries[key];
                e.fired = true;
                out.extend(e.waker.take());
            }
        }
    }

    /// Number of armed, unfired timers.
    #[cfg(test)]
    pub(crate) fn armed(&self) -> usize {
        self.entries.iter().filter(|(_, e)| !e.fired).count()
    }

    fn is_live(&self, seq: u64, key: usize) -> bool {
        self.entries
            .get(key)
            .is_some_and(|e| e.seq == seq && !e.fired)
    }

    fn bump(&mut self) -> u64 {
        self.next_seq += 1;
        self.next_seq
    }

    /// Drops stale heap items once they outnumber live entries, so a timer
    /// that is reset over and over does not grow the heap without bound.
    fn compact_if_needed(&mut self) {
        if self.heap.len() > 64 && self.heap.len() > 2 * self.entries.len() {
            let entries = &self.entries;
            self.heap.retain(|Reverse((_, seq, key))| {
                entries.get(*key).is_some_and(|e| e.seq == *seq && !e.fired)
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use futures::task::noop_waker;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    #[test]
    fn fires_in_deadline_order_and_skips_stale_items() {
        let mut t = Timers::default();
        let a = t.insert(ms(30), noop_waker());
        let b = t.insert(ms(10), noop_waker());
        let c = t.insert(ms(20), noop_waker());
        assert_eq!(t.next_deadline(), Some(ms(10)));
        t.remove(b);
        assert_eq!(t.next_deadline(), Some(ms(20)));
        t.reset(c, ms(40));
        assert_eq!(t.next_deadline(), Some(ms(30)));
        let mut out = Vec::new();
        t.fire_until(ms(30), &mut out);
        assert_eq!(out.len(), 1);
        assert_eq!(t.next_deadline(), Some(ms(40)));
        t.reset(a, ms(50));
        t.fire_until(ms(45), &mut out);
        assert_eq!(out.len(), 2);
        assert_eq!(t.next_deadline(), Some(ms(50)));
        assert_eq!(t.armed(), 1);
    }

    #[test]
    fn repeated_resets_do_not_grow_the_heap_without_bound() {
        let mut t = Timers::default();
        let k = t.insert(ms(1), noop_waker());
        for i in 0..10_000 {
            t.reset(k, ms(2 + i));
        }
        assert!(t.heap.len() <= 130, "heap has {} items", t.heap.len());
        assert_eq!(t.next_deadline(), Some(ms(10_001)));
    }
}
