//! Signals: what an execution showed that a search can count as new.
//!
//! A signal turns one execution's observations (and its data choices) into
//! a set of keys; a member of a portfolio whose executions keep showing
//! keys that none or only one earlier execution showed is exploring new
//! ground. Two signals are built in:
//!
//! - [`Signal::Orderings`]: pairs of consecutive events at each host
//!   (`orderings.rs`), what the adaptive search followed first;
//! - [`Signal::Faults`]: fault contexts ([`FaultContext`]): each fault with
//!   the shape of the run around it, after Mallory (CCS'23), which
//!   summarised faults by what happened before them; what the adaptive
//!   search follows now (`search/portfolio.rs`).
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
}

impl Signal {
    /// `orderings`, `faults`.
    pub fn name(self) -> &'static str {
        match self {
            Signal::Orderings => "orderings",
            Signal::Faults => "faults",
        }
    }
}

/// Follows one execution for one signal.
#[derive(Debug)]
pub(crate) enum Tracker {
    Orderings(Orderings),
    Faults(FaultContext),
}

impl Tracker {
    pub(crate) fn new(signal: Signal) -> Tracker {
        match signal {
            Signal::Orderings => Tracker::Orderings(Orderings::default()),
            Signal::Faults => Tracker::Faults(FaultContext::default()),
        }
    }

    pub(crate) fn observe(&mut self, o: &Observation) {
        match self {
            Tracker::Orderings(t) => t.observe(o),
            Tracker::Faults(t) => t.observe(o),
        }
    }

    /// A data choice and the option taken.
    pub(crate) fn chose(&mut self, kind: ChoiceKind, n: usize, option: usize) {
        if let Tracker::Faults(t) = self {
            t.chose(kind, n, option);
        }
    }

    /// The distinct keys seen, sorted.
    pub(crate) fn into_keys(self) -> Vec<u64> {
        match self {
            Tracker::Orderings(t) => t.into_keys(),
            Tracker::Faults(t) => t.into_keys(),
        }
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
    fn only_taken_faults_count() {
        let mut t = FaultContext::default();
        t.chose(ChoiceKind::Loss { probability: 0.1 }, 2, 0);
        assert!(t.into_keys().is_empty());
        let mut t = FaultContext::default();
        t.chose(ChoiceKind::Loss { probability: 0.1 }, 2, 1);
        assert_eq!(t.into_keys(), vec![LOST]);
    }
}
