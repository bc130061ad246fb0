//! Ordering coverage: at each host, which kind of event followed which.
//!
//! One of the signals a search can follow (`signals.rs`): the adaptive
//! search gave budget to the strategies whose executions showed orderings
//! no earlier execution showed, until abstract states replaced them there
//! (the effectiveness chapter has the signals measured); its mutations
//! still keep walks that showed a new one. An execution's orderings are
//! the pairs (previous event, this event) at each host, where an event is one of what
//! distributed bugs are made of: a packet from host `g` delivered, a timer
//! firing, the host stopped, started, paused or resumed, a link of it cut
//! or healed, a packet of it lost or duplicated. So "the reply from b
//! arrived before the retry timer fired at a" and "a was reset between two
//! deliveries from c" are orderings; which task ran when is not (the
//! delaying explorers already enumerate those).
//!
//! The signal needs nothing from the test, is the same for the same
//! execution (it is a function of the observations, which are), and is
//! cheap: a few map updates per delivery, timer and fault, only in
//! executions that track it.

// Ordered maps, not std's `HashMap`: an execution's orderings are tracked
// on its thread before the program runs, and a `RandomState` made there
// would draw the thread's keys (or count them up), so the program's own
// maps would no longer follow the seed, and its replay (which tracks no
// orderings) could differ.
use std::collections::BTreeMap;

use sim_rt::scheduler::{Observation, PacketId};
use sim_rt::task::Id;

/// Classes of events at a host (a delivery's class is `FROM + sender`).
const START: u32 = 0;
const TIMER: u32 = 1;
const STOPPED: u32 = 2;
const STARTED: u32 = 3;
const PAUSED: u32 = 4;
const RESUMED: u32 = 5;
const LINK: u32 = 6;
const LOST: u32 = 7;
const DUPLICATED: u32 = 8;
const FROM: u32 = 16;

/// Follows one execution's observations and collects its orderings.
#[derive(Debug, Default)]
pub(crate) struct Orderings {
    /// Each packet in flight: its sender.
    senders: BTreeMap<PacketId, u32>,
    /// Each task: its host.
    hosts: BTreeMap<Id, u32>,
    /// Each host's last event class.
    last: Vec<u32>,
    /// Time just advanced: the wakes from outside any task that follow
    /// are timers firing (until a delivery's wakes start).
    timers: bool,
    /// The orderings seen, as keys (with repeats).
    keys: Vec<u64>,
}

impl Orderings {
    /// Takes in one observation.
    pub(crate) fn observe(&mut self, o: &Observation) {
        match *o {
            Observation::Spawned { task, host, .. } => {
                self.hosts.insert(task, host.index() as u32);
            }
            Observation::Sent { packet, from, .. } => {
                self.senders.insert(packet, from.index() as u32);
            }
            Observation::Delivered { packet, to } => {
                self.timers = false;
                let class = self.senders.remove(&packet).map_or(FROM, |s| FROM + 1 + s);
                self.event(to.index() as u32, class);
            }
            Observation::Lost { packet } => {
                if let Some(from) = self.senders.remove(&packet) {
                    self.event(from, LOST);
                }
            }
            Observation::Duplicated { packet, copy } => {
                if let Some(&from) = self.senders.get(&packet) {
                    self.senders.insert(copy, from);
                    self.event(from, DUPLICATED);
                }
            }
            Observation::Advanced { .. } => self.timers = true,
            Observation::Woken { task, by: None } if self.timers => {
                if let Some(&host) = self.hosts.get(&task) {
                    self.event(host, TIMER);
                }
            }
            Observation::HostStopped { host } => self.event(host.index() as u32, STOPPED),
            Observation::HostStarted { host } => self.event(host.index() as u32, STARTED),
            Observation::HostPaused { host, paused } => {
                self.event(host.index() as u32, if paused { PAUSED } else { RESUMED })
            }
            Observation::LinkChanged { from, to } => {
                self.event(from.index() as u32, LINK);
                self.event(to.index() as u32, LINK);
            }
            _ => {}
        }
    }

    /// An event of `class` at `host`.
    fn event(&mut self, host: u32, class: u32) {
        let h = host as usize;
        if self.last.len() <= h {
            self.last.resize(h + 1, START);
        }
        let prev = std::mem::replace(&mut self.last[h], class);
        self.keys.push(key(host, prev, class));
    }

    /// The distinct orderings seen, sorted.
    pub(crate) fn into_keys(mut self) -> Vec<u64> {
        self.keys.sort_unstable();
        self.keys.dedup();
        self.keys
    }
}

/// The key of ordering (`prev`, `class`) at `host`.
fn key(host: u32, prev: u32, class: u32) -> u64 {
    (u64::from(host) << 42) ^ (u64::from(prev) << 21) ^ u64::from(class)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn orderings_are_pairs_of_events_at_each_host() {
        let mut o = Orderings::default();
        // At host 0: a packet from host 1, one from host 2, then a stop;
        // at host 3: a timer.
        o.event(0, FROM + 2);
        o.event(0, FROM + 3);
        o.event(0, STOPPED);
        o.event(3, TIMER);
        o.event(0, STOPPED);
        let mut want = vec![
            key(0, START, FROM + 2),
            key(0, FROM + 2, FROM + 3),
            key(0, FROM + 3, STOPPED),
            key(3, START, TIMER),
            key(0, STOPPED, STOPPED),
        ];
        want.sort_unstable();
        assert_eq!(o.into_keys(), want);
        // Distinct hosts, classes and orders are distinct keys.
        assert_ne!(key(0, 1, 2), key(0, 2, 1));
        assert_ne!(key(0, 1, 2), key(1, 1, 2));
    }
}
