//! Signals: what an execution showed that a search can count as new.
//!
//! A signal turns one execution's observations (and its data choices) into
//! a set of keys; a member of a portfolio whose executions keep showing
//! keys that none or only one earlier execution showed is exploring new
//! ground. Three signals are built in:
//!
//! - [`Signal::Orderings`]: pairs of consecutive events at each host
//!   (`orderings.rs`), what the adaptive search followed first;
//! - [`Signal::Faults`]: fault contexts ([`FaultContext`]): each fault with
//!   the shape of the run around it, after Mallory (CCS'23), which
//!   summarised faults by what happened before them;
//! - [`Signal::States`]: abstract states ([`StateNovelty`]): each host's
//!   reported state ([`sim_rt::sim::report_state`]), the tuple of every
//!   host's latest report, and the `sometimes!` and `reachable!` points
//!   hit, after ModelFuzz (OOPSLA'25), where abstract-state coverage beat
//!   line and event-order coverage on Raft implementations. A program that
//!   reports no state shows only its coverage points. What the portfolios'
//!   remainder follows (`search/portfolio.rs`).
//!
//! Several signals can be tracked in one execution: each key carries its
//! signal in its top two bits ([`Signal::owns`]), so one set of keys can
//! feed a learner that follows one signal and a corpus that keeps every
//! execution that showed anything new.
//!
//! Whether a signal *predicts* which member will find a bug is measured,
//! not assumed: the effectiveness bench's `--signals` mode ranks the
//! members by each signal after 32 executions of each and compares the
//! ranking with the members' rates (the guide's effectiveness chapter
//! gives the result).
//!
//! Determinism: keys are functions of the observations and choices, which
//! are the same for the same execution; the maps are ordered (no
//! `RandomState` is made on the execution's thread).

use std::collections::BTreeSet;
use std::hash::{Hash, Hasher};

use sim_rt::scheduler::{ChoiceKind, Observation};

use crate::orderings::Orderings;

/// A signal a search can collect from each execution.
#[doc(hidden)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Signal {
    /// Pairs of consecutive events at each host.
    Orderings,
    /// Each fault in its context (see the module docs).
    Faults,
    /// Abstract states: the hosts' reported states, their tuples, and the
    /// coverage points hit (see the module docs).
    States,
}

/// The bits of a key below its signal's tag.
const UNTAGGED: u64 = (1 << 62) - 1;

impl Signal {
    /// `orderings`, `faults`, `states`.
    pub fn name(self) -> &'static str {
        match self {
            Signal::Orderings => "orderings",
            Signal::Faults => "faults",
            Signal::States => "states",
        }
    }

    /// The tag in a key's top two bits.
    fn tag(self) -> u64 {
        (match self {
            Signal::Orderings => 1,
            Signal::Faults => 2,
            Signal::States => 3,
        }) << 62
    }

    /// Whether `key` is one of this signal's.
    pub fn owns(self, key: u64) -> bool {
        key & !UNTAGGED == self.tag()
    }

    /// `key` (of this signal) tagged as this signal's.
    pub(crate) fn tagged(self, key: u64) -> u64 {
        self.tag() | key & UNTAGGED
    }

    /// The key of a coverage point hit in an execution: `States` keys of
    /// their own kind (the tracker never sees coverage; the execution adds
    /// these when it ends).
    pub(crate) fn point_key(point: &sim_rt::sim::Point) -> u64 {
        Signal::States.tagged(hash(&(POINT, point)))
    }
}

/// Follows one execution for a set of signals.
#[derive(Debug, Default)]
pub(crate) struct Tracker {
    orderings: Option<Orderings>,
    faults: Option<FaultContext>,
    states: Option<StateNovelty>,
}

impl Tracker {
    pub(crate) fn new(signals: &[Signal]) -> Tracker {
        let mut t = Tracker::default();
        for s in signals {
            match s {
                Signal::Orderings => t.orderings = Some(Orderings::default()),
                Signal::Faults => t.faults = Some(FaultContext::default()),
                Signal::States => t.states = Some(StateNovelty::default()),
            }
        }
        t
    }

    pub(crate) fn observe(&mut self, o: &Observation) {
        if let Some(t) = &mut self.orderings {
            t.observe(o);
        }
        if let Some(t) = &mut self.faults {
            t.observe(o);
        }
        if let Some(t) = &mut self.states {
            t.observe(o);
        }
    }

    /// A data choice and the option taken.
    pub(crate) fn chose(&mut self, kind: ChoiceKind, n: usize, option: usize) {
        if let Some(t) = &mut self.faults {
            t.chose(kind, n, option);
        }
    }

    /// The distinct keys seen, each tagged with its signal, sorted.
    pub(crate) fn into_keys(self) -> Vec<u64> {
        let mut keys = Vec::new();
        let mut add = |signal: Signal, k: Vec<u64>| {
            keys.extend(k.into_iter().map(|k| signal.tagged(k)));
        };
        if let Some(t) = self.orderings {
            add(Signal::Orderings, t.into_keys());
        }
        if let Some(t) = self.faults {
            add(Signal::Faults, t.into_keys());
        }
        if let Some(t) = self.states {
            add(Signal::States, t.keys);
        }
        keys.sort_unstable();
        keys.dedup();
        keys
    }
}

/// `value` hashed with a fixed function (std's `DefaultHasher::new` has
/// fixed keys: no `RandomState` is made, the same hash in every run).
fn hash(value: &impl Hash) -> u64 {
    let mut h = std::hash::DefaultHasher::new();
    value.hash(&mut h);
    h.finish()
}

/// What an abstract-state key stands for, hashed in first.
const HOST_STATE: u8 = 1;
const TUPLE: u8 = 2;
const POINT: u8 = 3;

/// Abstract-state coverage: every (host, reported state) pair and every
/// tuple of the hosts' latest reports an execution went through. A host
/// that is stopped has no state until it reports again (as in the
/// exhaustive search's state cache). Host identities are kept: in a
/// system of roles, the coordinator's state and a participant's are not
/// the same ground.
#[derive(Debug, Default)]
pub(crate) struct StateNovelty {
    hosts: HostStates,
    keys: Vec<u64>,
}

impl StateNovelty {
    fn observe(&mut self, o: &Observation) {
        if let Some((i, state)) = self.hosts.observe(o) {
            self.keys.push(hash(&(HOST_STATE, i, state)));
            self.keys.push(hash(&(TUPLE, self.hosts.latest())));
        }
    }
}

/// Every host's latest [`Observation::State`] (what it reported with
/// [`sim_rt::sim::report_state`]); a stopped host has none until it
/// reports again. Also the exhaustive search's state cache's view of the
/// program (`guided.rs`).
#[derive(Debug, Default)]
pub(crate) struct HostStates {
    hosts: Vec<Option<u64>>,
}

impl HostStates {
    /// Takes in `o`; returns the host and its state when `o` reported one.
    pub(crate) fn observe(&mut self, o: &Observation) -> Option<(usize, u64)> {
        match *o {
            Observation::State { host, hash } => {
                let i = host.index();
                if self.hosts.len() <= i {
                    self.hosts.resize(i + 1, None);
                }
                self.hosts[i] = Some(hash);
                Some((i, hash))
            }
            Observation::HostStopped { host } => {
                if let Some(h) = self.hosts.get_mut(host.index()) {
                    *h = None;
                }
                None
            }
            _ => None,
        }
    }

    /// Each host's latest state, by host index.
    pub(crate) fn latest(&self) -> &[Option<u64>] {
        &self.hosts
    }
}

/// Kinds of faults.
const STOPPED: u64 = 1;
const STARTED: u64 = 2;
const PAUSED: u64 = 3;
const RESUMED: u64 = 4;
const LINK: u64 = 5;
const LOST: u64 = 6;
const DUPLICATED: u64 = 7;
const EIO: u64 = 8;
const BUGGIFY: u64 = 9;
/// A crash that found unsynced operations on the host's disk (the disk
/// asked which of them survive).
const CRASH_UNSYNCED: u64 = 10;

/// Counts above this are kept as this (a fifth fault is like a fourth).
const CAP: u64 = 4;

/// Fault-context coverage: each fault as a key of its kind, its ordinal in
/// the run, how many distinct hosts had been faulted before it, how many
/// hosts are down (stopped or paused) and how many links are cut when it
/// happens. A crash that found unsynced writes on the disk is a fault of
/// its own kind. Host identities are left out: a reset of `a` or of `b`
/// in the same context is the same context.
#[derive(Debug, Default)]
pub(crate) struct FaultContext {
    faults: u64,
    faulted: BTreeSet<u32>,
    down: BTreeSet<u32>,
    /// Links changed an odd number of times (a partition not yet healed).
    cut: BTreeSet<(u32, u32)>,
    /// The host of the last stop, for a crash's disk choices after it.
    stop: Option<u32>,
    keys: Vec<u64>,
}

impl FaultContext {
    fn observe(&mut self, o: &Observation) {
        match *o {
            Observation::HostStopped { host } => return self.stopped(host.index() as u32),
            Observation::HostStarted { host } => self.started(host.index() as u32),
            Observation::HostPaused { host, paused } => self.paused(host.index() as u32, paused),
            Observation::LinkChanged { from, to } => {
                self.link(from.index() as u32, to.index() as u32)
            }
            // A stop's disk choices come right after it, before anything
            // else is observed.
            _ => {}
        }
        self.stop = None;
    }

    fn stopped(&mut self, h: u32) {
        self.fault(STOPPED, Some(h));
        self.down.insert(h);
        self.stop = Some(h);
    }

    fn started(&mut self, h: u32) {
        // A host's first start is not a fault.
        if self.down.remove(&h) {
            self.fault(STARTED, Some(h));
        }
    }

    fn paused(&mut self, h: u32, paused: bool) {
        if paused {
            self.fault(PAUSED, Some(h));
            self.down.insert(h);
        } else {
            self.down.remove(&h);
            self.fault(RESUMED, Some(h));
        }
    }

    fn link(&mut self, from: u32, to: u32) {
        if !self.cut.remove(&(from, to)) {
            self.cut.insert((from, to));
        }
        self.fault(LINK, None);
    }

    fn chose(&mut self, kind: ChoiceKind, n: usize, option: usize) {
        let fault = match kind {
            ChoiceKind::Loss { .. } if option > 0 => LOST,
            ChoiceKind::Duplicate { .. } if option > 0 => DUPLICATED,
            ChoiceKind::DiskEio { .. } if option > 0 => EIO,
            ChoiceKind::Buggify { .. } if option > 0 => BUGGIFY,
            ChoiceKind::DiskCrashPrefix | ChoiceKind::DiskCrashKeep if n > 1 => {
                // Once per crash: the first of its disk choices.
                let Some(h) = self.stop.take() else { return };
                self.fault(CRASH_UNSYNCED, Some(h));
                return;
            }
            _ => return,
        };
        self.fault(fault, None);
    }

    /// A fault of `kind` (at `host` when it has one) in the current
    /// context; the context then counts it.
    fn fault(&mut self, kind: u64, host: Option<u32>) {
        let key = kind
            | self.faults.min(CAP) << 8
            | (self.faulted.len() as u64).min(CAP) << 16
            | (self.down.len() as u64).min(CAP) << 24
            | (self.cut.len() as u64).min(CAP) << 32;
        self.keys.push(key);
        self.faults += 1;
        if let Some(h) = host {
            self.faulted.insert(h);
        }
    }

    fn into_keys(mut self) -> Vec<u64> {
        self.keys.sort_unstable();
        self.keys.dedup();
        self.keys
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fault_is_keyed_by_its_context_not_its_host() {
        let mut a = FaultContext::default();
        a.stopped(1);
        let mut b = FaultContext::default();
        b.stopped(2);
        assert_eq!(a.into_keys(), b.into_keys());

        // The same kind of fault, second in a run with a host down, is
        // another context.
        let mut c = FaultContext::default();
        c.stopped(1);
        c.stopped(2);
        let keys = c.into_keys();
        assert_eq!(keys.len(), 2);
    }

    #[test]
    fn a_crash_with_unsynced_writes_is_its_own_fault() {
        let mut t = FaultContext::default();
        t.stopped(0);
        t.chose(ChoiceKind::DiskCrashPrefix, 3, 0);
        // Only once per crash.
        t.chose(ChoiceKind::DiskCrashPrefix, 3, 0);
        let keys = t.into_keys();
        assert_eq!(keys.len(), 2);
        assert!(keys.iter().any(|k| k & 0xff == CRASH_UNSYNCED));

        // A disk choice with nothing stopped just before is no crash.
        let mut u = FaultContext::default();
        u.chose(ChoiceKind::DiskCrashKeep, 2, 1);
        assert!(u.into_keys().is_empty());
    }

    #[test]
    fn states_are_hosts_reports_and_their_tuples() {
        use sim_rt::scheduler::__testing::host;
        let report = |h, state| Observation::State {
            host: host(h),
            hash: state,
        };
        let mut t = StateNovelty::default();
        t.observe(&report(0, 7));
        t.observe(&report(1, 7));
        // The same host state again, with the other host's changed: one
        // new tuple, no new host state.
        t.observe(&report(1, 8));
        t.observe(&report(1, 7));
        let mut keys = t.keys;
        keys.sort_unstable();
        keys.dedup();
        // (0,7), (1,7), (1,8); tuples [7], [7,7], [7,8].
        assert_eq!(keys.len(), 6);

        // A stopped host has no state: the tuple after its restart's
        // first report differs from before the stop.
        let mut t = StateNovelty::default();
        t.observe(&report(0, 7));
        t.observe(&report(1, 7));
        t.observe(&Observation::HostStopped { host: host(0) });
        t.observe(&report(1, 7));
        let mut keys = t.keys;
        keys.sort_unstable();
        keys.dedup();
        // (0,7), (1,7); tuples [7], [7,7], [None,7].
        assert_eq!(keys.len(), 5);
    }

    #[test]
    fn keys_carry_their_signal() {
        let mut t = Tracker::new(&[Signal::Faults, Signal::Orderings]);
        t.observe(&Observation::HostStopped {
            host: sim_rt::scheduler::__testing::host(1),
        });
        let keys = t.into_keys();
        assert!(keys.iter().any(|&k| Signal::Faults.owns(k)));
        assert!(keys.iter().any(|&k| Signal::Orderings.owns(k)));
        assert!(!keys.iter().any(|&k| Signal::States.owns(k)));
        // Untracked signals add nothing.
        let mut t = Tracker::new(&[Signal::States]);
        t.observe(&Observation::HostStopped {
            host: sim_rt::scheduler::__testing::host(1),
        });
        assert!(t.into_keys().is_empty());
    }

    #[test]
    fn only_taken_faults_count() {
        let mut t = FaultContext::default();
        t.chose(ChoiceKind::Loss { probability: 0.1 }, 2, 0);
        assert!(t.into_keys().is_empty());
        let mut t = FaultContext::default();
        t.chose(ChoiceKind::Loss { probability: 0.1 }, 2, 1);
        assert_eq!(t.into_keys(), vec![LOST]);
    }
}
