//! The runnable tasks, in the order tokio's current-thread scheduler would
//! run them.
//!
//! tokio's `current_thread` runtime (1.x, `runtime/scheduler/current_thread`)
//! keeps one first-in-first-out run queue. Its loop polls the `block_on`
//! future when it was woken, then runs up to `event_interval` (61) tasks
//! from the front of the queue, then *parks*: it polls the I/O and timer
//! drivers (the tasks they wake join the back of the queue) and wakes the
//! tasks that [`yield_now`](crate::task::yield_now) deferred, then starts
//! again with the `block_on` future. It also parks whenever the queue is
//! empty.
//!
//! [`RunQueue`] keeps the runnable tasks in that order as two lanes:
//!
//! ```text
//! [ queued: woken tasks, first in first out | parked: main?, yielded... ]
//!   0 .. queued                               queued .. len
//! ```
//!
//! A park (the queue empty, or `event_interval` polls since the last one)
//! moves the main future to the front and makes the parked lane part of
//! the queue. The runtime's `Poll` events are numbered in this order, so
//! the default scheduler runs tokio's order by picking event 0, and every
//! other scheduler still sees every runnable task: the orders tokio does not
//! promise stay the explorer's to try.
//!
//! # Invariants
//!
//! - `queued <= runnable.len()`.
//! - The main future, when runnable, is either in the queued lane or the
//!   first of the parked lane.
//! - `parking` is true from a park until the next poll is picked.

use std::collections::VecDeque;

use super::task::MAIN_KEY;

/// tokio's default `event_interval`: the current-thread scheduler parks
/// (polls its drivers, wakes yielded tasks) after this many task polls.
pub(crate) const EVENT_INTERVAL: u32 = 61;

/// A runnable task's slab key ([`MAIN_KEY`] for the main future) in four
/// bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Runnable(u32);

impl Runnable {
    pub(crate) fn new(key: usize) -> Runnable {
        Runnable(u32::try_from(key).expect("fewer than 4 billion tasks alive at once"))
    }

    pub(crate) fn key(self) -> usize {
        self.0 as usize
    }
}

/// How a task became runnable, which decides its place.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Lane {
    /// Woken (or spawned): the back of the run queue. The main future's
    /// wakes are placed by [`RunQueue::push`] itself.
    Woken,
    /// Woken by [`yield_now`](crate::task::yield_now): behind every task
    /// that is runnable at the next park.
    Yielded,
}

/// The runnable tasks in tokio's current-thread order (see the module
/// docs).
#[derive(Debug, Default)]
pub(crate) struct RunQueue {
    runnable: VecDeque<Runnable>,
    /// The length of the queued lane.
    queued: usize,
    /// Task polls since the last park.
    since_park: u32,
    /// A park happened and no task has been polled since.
    parking: bool,
}

impl RunQueue {
    pub(crate) fn len(&self) -> usize {
        self.runnable.len()
    }

    pub(crate) fn get(&self, index: usize) -> Runnable {
        self.runnable[index]
    }

    pub(crate) fn iter(&self) -> impl Iterator<Item = Runnable> + '_ {
        self.runnable.iter().copied()
    }

    /// Makes the task at `key` runnable.
    #[inline]
    pub(crate) fn push(&mut self, key: usize, lane: Lane) {
        let r = Runnable::new(key);
        match lane {
            Lane::Yielded => self.runnable.push_back(r),
            Lane::Woken => {
                // Mostly nothing is parked: the back of the queue.
                if self.queued == self.runnable.len() {
                    self.runnable.push_back(r);
                } else {
                    self.runnable.insert(self.queued, r);
                }
                // tokio polls the `block_on` future at the next park, before
                // the tasks that park wakes: first of the parked lane.
                if key != MAIN_KEY {
                    self.queued += 1;
                }
            }
        }
        debug_assert!(self.queued <= self.runnable.len());
    }

    /// Whether tokio's scheduler would park before its next poll (see
    /// [`RunQueue::park_if_due`]) and has not yet.
    #[inline]
    pub(crate) fn park_due(&self) -> bool {
        !self.parking && (self.queued == 0 || self.since_park >= EVENT_INTERVAL)
    }

    /// Parks when tokio's scheduler would before its next poll: the queue
    /// is empty, or it ran [`EVENT_INTERVAL`] tasks since the last park.
    /// The main future moves to the front and the parked lane joins the
    /// queue.
    #[inline]
    pub(crate) fn park_if_due(&mut self) {
        if !self.park_due() {
            return;
        }
        if self.queued < self.runnable.len() && self.runnable[self.queued].key() == MAIN_KEY {
            let main = self.runnable.remove(self.queued).expect("checked");
            self.runnable.push_front(main);
        }
        self.queued = self.runnable.len();
        self.since_park = 0;
        self.parking = true;
    }

    /// How many of the runnable tasks tokio's scheduler would run before it
    /// next polls its drivers: 0 while parking (the drivers first), else
    /// the queued lane.
    pub(crate) fn before_drivers(&self) -> usize {
        if self.parking {
            0
        } else {
            self.queued
        }
    }

    /// Takes the runnable task at `index` to poll it.
    #[inline]
    pub(crate) fn take(&mut self, index: usize) -> Runnable {
        // Mostly tokio's order: the front.
        let r = if index == 0 {
            self.runnable.pop_front()
        } else {
            self.runnable.remove(index)
        }
        .expect("the scheduler picks a runnable task");
        if index < self.queued {
            self.queued -= 1;
        }
        if r.key() != MAIN_KEY {
            self.since_park += 1;
        }
        self.parking = false;
        r
    }

    /// Keeps only the runnable tasks for which `keep` is true, in order.
    pub(crate) fn retain(&mut self, mut keep: impl FnMut(Runnable) -> bool) {
        let mut index = 0;
        let queued = self.queued;
        self.runnable.retain(|&r| {
            let kept = keep(r);
            if !kept && index < queued {
                self.queued -= 1;
            }
            index += 1;
            kept
        });
    }

    pub(crate) fn clear(&mut self) {
        self.runnable.clear();
        self.queued = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(q: &RunQueue) -> Vec<usize> {
        q.iter().map(Runnable::key).collect()
    }

    #[test]
    fn woken_tasks_run_first_in_first_out_and_yielded_ones_after_a_park() {
        let mut q = RunQueue::default();
        q.push(1, Lane::Woken);
        q.push(2, Lane::Yielded);
        q.push(3, Lane::Woken);
        assert_eq!(keys(&q), [1, 3, 2]);
        assert_eq!(q.before_drivers(), 2);
        q.park_if_due();
        assert_eq!(q.take(0).key(), 1);
        // Woken while the yielded task waits: still ahead of it.
        q.push(4, Lane::Woken);
        assert_eq!(keys(&q), [3, 4, 2]);
        assert_eq!(q.take(0).key(), 3);
        assert_eq!(q.take(0).key(), 4);
        // The queue is empty: the park wakes the yielded task.
        assert_eq!(q.before_drivers(), 0);
        q.park_if_due();
        assert_eq!(q.before_drivers(), 0, "parking: the drivers first");
        assert_eq!(q.take(0).key(), 2);
        q.push(5, Lane::Woken);
        assert_eq!(q.before_drivers(), 1);
    }

    #[test]
    fn the_main_future_runs_at_the_next_park_ahead_of_yielded_tasks() {
        let mut q = RunQueue::default();
        q.push(1, Lane::Woken);
        q.push(2, Lane::Yielded);
        q.push(MAIN_KEY, Lane::Woken);
        q.push(3, Lane::Woken);
        assert_eq!(keys(&q), [1, 3, MAIN_KEY, 2]);
        q.park_if_due();
        assert_eq!(q.take(0).key(), 1);
        assert_eq!(q.take(0).key(), 3);
        q.park_if_due();
        assert_eq!(keys(&q), [MAIN_KEY, 2]);
    }

    #[test]
    fn a_park_every_event_interval_polls_puts_the_main_future_first() {
        let mut q = RunQueue::default();
        for key in 0..100 {
            q.push(key, Lane::Woken);
        }
        q.push(MAIN_KEY, Lane::Woken);
        for key in 0..EVENT_INTERVAL as usize {
            q.park_if_due();
            assert_eq!(q.take(0).key(), key);
        }
        q.park_if_due();
        assert_eq!(q.get(0).key(), MAIN_KEY);
        assert_eq!(q.before_drivers(), 0);
    }

    #[test]
    fn retain_keeps_the_lanes() {
        let mut q = RunQueue::default();
        q.push(1, Lane::Woken);
        q.push(2, Lane::Woken);
        q.push(3, Lane::Yielded);
        q.retain(|r| r.key() != 1);
        assert_eq!(keys(&q), [2, 3]);
        assert_eq!(q.before_drivers(), 1);
        q.retain(|r| r.key() != 3);
        assert_eq!(q.before_drivers(), 1);
    }
}
