//! The timer queue: deadlines in simulated time, and who to wake at each.
//!
//! A [`Sleep`](crate::time::Sleep) registers an entry the first time it is
//! polled before its deadline and removes it when dropped. Items
//! `(seq, key)` sit in a bucket per exact deadline, and a min-heap holds each
//! distinct deadline once: arming is a hash lookup and a push, and firing
//! pops one heap item per instant, not per timer (many timers share
//! instants in simulations). Deletion is lazy: resetting or removing an
//! entry leaves its old item behind, recognised as stale because the entry's
//! `seq` no longer matches.
//!
//! The queue keeps exact deadlines. tokio's timers have its resolution:
//! its timer wheel counts whole milliseconds since the runtime started and
//! fires an entry at the first tick at or after its deadline, so
//! [`Timers::tick`] rounds a `Sleep`'s deadline up to a millisecond since
//! the simulation's start (a `sleep(3ns)` takes 1 ms) before it is armed;
//! the simulator's own delays (a disk's latency) are armed exactly.
//!
//! # Invariants
//!
//! - Every live entry with `fired == false` has exactly one item whose `seq`
//!   equals the entry's `seq`, in the bucket of its deadline; every other
//!   item is stale.
//! - A deadline is in the heap exactly when it has a bucket; `items` counts
//!   the items in all buckets.
//! - `seq` is unique over the queue's lifetime, so a reused slab key never
//!   revives a stale item.
//!
//! # Determinism
//!
//! Entries due at the same instant fire in (deadline, seq) order, that is in
//! the order they were armed; the scheduler then decides the order in which
//! the woken tasks run. The bucket map is a hash map used only by key; its
//! one full pass (compaction) filters each bucket on its own, so its
//! iteration order never reaches behaviour.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::task::Waker;
use std::time::Duration;

use rustc_hash::FxHashMap;
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
    /// deadline -> (seq, key) in seq order (pushed in increasing seq).
    /// Only looked up by key, never iterated where order could matter.
    buckets: FxHashMap<u64, Vec<(u64, usize)>>,
    /// Distinct deadlines with a bucket, min first.
    order: BinaryHeap<Reverse<u64>>,
    items: usize,
    spare: Vec<Vec<(u64, usize)>>,
    next_seq: u64,
    /// The simulation's start, in nanoseconds since the epoch: ticks count
    /// from it.
    start: u64,
    /// The latest deadline any timer was armed with, in nanoseconds since
    /// the epoch (0: none yet).
    latest: u64,
}

/// tokio's timer resolution.
const TICK: u64 = 1_000_000;

/// A deadline as nanoseconds since the epoch (buckets are keyed by it).
/// Simulated deadlines stay far below the ~584 years a u64 holds.
fn ns(d: Duration) -> u64 {
    debug_assert!(
        d.as_nanos() < u64::MAX as u128,
        "deadline beyond u64 nanoseconds"
    );
    u64::try_from(d.as_nanos()).unwrap_or(u64::MAX)
}

impl Timers {
    /// A queue whose ticks count from `start`.
    pub(crate) fn starting_at(start: Duration) -> Timers {
        Timers {
            start: ns(start),
            ..Timers::default()
        }
    }

    /// The latest deadline a timer was ever armed with (since the epoch),
    /// if any was.
    pub(crate) fn latest_deadline(&self) -> Option<Duration> {
        (self.latest > 0).then(|| Duration::from_nanos(self.latest))
    }

    /// The instant a tokio timer with this deadline fires: the first tick
    /// at or after it.
    pub(crate) fn tick(&self, deadline: Duration) -> Duration {
        let since = ns(deadline).saturating_sub(self.start);
        let ticks = since.div_ceil(TICK);
        Duration::from_nanos(self.start.saturating_add(ticks.saturating_mul(TICK)))
    }

    fn push_item(&mut self, deadline: Duration, seq: u64, key: usize) {
        let spare = &mut self.spare;
        let order = &mut self.order;
        let at = ns(deadline);
        self.latest = self.latest.max(at);
        self.buckets
            .entry(at)
            .or_insert_with(|| {
                order.push(Reverse(at));
                spare.pop().unwrap_or_default()
            })
            .push((seq, key));
        self.items += 1;
    }

    pub(crate) fn insert(&mut self, deadline: Duration, waker: Waker) -> TimerKey {
        let seq = self.bump();
        let key = self.entries.insert(Entry {
            deadline,
            seq,
            waker: Some(waker),
            fired: false,
        });
        self.push_item(deadline, seq, key);
        TimerKey(key)
    }

    /// Replaces the waker to wake, unless it would wake the same task;
    /// returns the one replaced, for the caller to drop outside its borrow.
    #[must_use = "drop the replaced waker outside the world's borrow"]
    pub(crate) fn set_waker(&mut self, key: TimerKey, waker: &Waker) -> Option<Waker> {
        let e = self
            .entries
            .get_mut(key.0)
            .expect("a timer key is removed only by its owner");
        match &mut e.waker {
            Some(w) if w.will_wake(waker) => None,
            slot => slot.replace(waker.clone()),
        }
    }

    /// Moves the entry to a new deadline (re-arming it if it had fired). A
    /// deadline at or before `now` fires the entry at once, as tokio's
    /// wheel fires an entry reset to a tick it has processed: its waker is
    /// returned, for the caller to wake outside its borrow.
    #[must_use = "wake the waker outside the world's borrow"]
    pub(crate) fn reset(
        &mut self,
        key: TimerKey,
        deadline: Duration,
        now: Duration,
    ) -> Option<Waker> {
        let seq = self.bump();
        let e = self
            .entries
            .get_mut(key.0)
            .expect("a timer key is removed only by its owner");
        e.deadline = deadline;
        e.seq = seq;
        if deadline <= now {
            e.fired = true;
            return e.waker.take();
        }
        e.fired = false;
        self.push_item(deadline, seq, key.0);
        self.compact_if_needed();
        None
    }

    /// Removes the entry; returns its waker, for the caller to drop outside
    /// its borrow (a waker's `Drop` may drop another timer).
    #[must_use = "drop the waker outside the world's borrow"]
    pub(crate) fn remove(&mut self, key: TimerKey) -> Option<Waker> {
        let entry = self.entries.remove(key.0);
        self.compact_if_needed();
        entry.waker
    }

    /// The earliest deadline of an armed entry, discarding stale items.
    #[inline]
    pub(crate) fn next_deadline(&mut self) -> Option<Duration> {
        // Asked at every step that runs no task: answer "none" in place.
        if self.order.is_empty() {
            return None;
        }
        self.next_deadline_slow()
    }

    #[inline(never)]
    fn next_deadline_slow(&mut self) -> Option<Duration> {
        loop {
            let &Reverse(at) = self.order.peek()?;
            let entries = &self.entries;
            let bucket = self
                .buckets
                .get_mut(&at)
                .expect("every ordered deadline has a bucket");
            let before = bucket.len();
            bucket.retain(|&(seq, key)| entries.get(key).is_some_and(|e| e.seq == seq && !e.fired));
            self.items -= before - bucket.len();
            if let Some(&(_, key)) = bucket.first() {
                return Some(self.entries[key].deadline);
            }
            self.order.pop();
            let b = self.buckets.remove(&at).unwrap();
            self.spare.push(b);
        }
    }

    /// Whether some deadline (perhaps of a stale item) is at or before
    /// `now`: when false, [`Timers::fire_until`] would fire nothing.
    #[inline]
    pub(crate) fn any_due(&self, now: Duration) -> bool {
        self.order.peek().is_some_and(|&Reverse(at)| at <= ns(now))
    }

    /// Marks every entry due at or before `now` as fired and moves its waker
    /// into `out`.
    pub(crate) fn fire_until(&mut self, now: Duration, out: &mut Vec<Waker>) {
        let now = ns(now);
        while let Some(&Reverse(at)) = self.order.peek() {
            if at > now {
                break;
            }
            self.order.pop();
            let mut bucket = self
                .buckets
                .remove(&at)
                .expect("every ordered deadline has a bucket");
            self.items -= bucket.len();
            for (seq, key) in bucket.drain(..) {
                if let Some(e) = self.entries.get_mut(key) {
                    if e.seq == seq && !e.fired {
                        e.fired = true;
                        out.extend(e.waker.take());
                    }
                }
            }
            self.spare.push(bucket);
        }
    }

    /// Number of armed, unfired timers.
    #[cfg(test)]
    pub(crate) fn armed(&self) -> usize {
        self.entries.iter().filter(|(_, e)| !e.fired).count()
    }

    fn bump(&mut self) -> u64 {
        self.next_seq += 1;
        self.next_seq
    }

    fn compact_if_needed(&mut self) {
        if self.items > 64 && self.items > 2 * self.entries.len() {
            let entries = &self.entries;
            let mut items = 0;
            // Only bucket contents change here; empty buckets stay until
            // next_deadline/fire_until reach them (order and buckets agree).
            for b in self.buckets.values_mut() {
                b.retain(|&(seq, key)| entries.get(key).is_some_and(|e| e.seq == seq && !e.fired));
                items += b.len();
            }
            self.items = items;
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
        drop(t.remove(b));
        assert_eq!(t.next_deadline(), Some(ms(20)));
        assert!(t.reset(c, ms(40), Duration::ZERO).is_none());
        assert_eq!(t.next_deadline(), Some(ms(30)));
        let mut out = Vec::new();
        t.fire_until(ms(30), &mut out);
        assert_eq!(out.len(), 1);
        assert_eq!(t.next_deadline(), Some(ms(40)));
        assert!(t.reset(a, ms(50), Duration::ZERO).is_none());
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
            assert!(t.reset(k, ms(2 + i), Duration::ZERO).is_none());
        }
        assert!(t.items <= 130, "heap has {} items", t.items);
        assert_eq!(t.next_deadline(), Some(ms(10_001)));
    }
}
