//! Independent units of work (samples, walk executions) on several threads
//! and across shards, with results that do not depend on either.
//!
//! # The plan
//!
//! Units are numbered `0, 1, 2...`; unit `j` has a seed and a delay bound
//! that depend only on `j` and the search's settings, and a planned cost
//! (the executions it runs when nothing fails: bound + 1). The budget admits
//! the longest prefix of units whose planned costs fit (at least one unit),
//! so which units run never depends on timing. Shard `i` of `n` runs the admitted units with
//! `j % n == i`: the shards partition the unsharded set.
//!
//! # Determinism
//!
//! Threads take units in order from a shared counter and may finish them in
//! any order. The result is defined by unit order alone: the failure
//! reported is the one of the lowest-numbered failing unit, and executions
//! are counted over units up to and including it. Units after a known
//! failure are skipped; units before it always complete. So `SIM_JOBS=1`
//! and `SIM_JOBS=8` report the same thing. A unit that finds the program
//! not deterministic (see `nondet.rs`) counts as a failing one: its report
//! goes on unwinding once the units before it are known to pass.

use std::collections::BTreeMap;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

use crate::coverage::Coverage;
use crate::exec::as_clean_worker;
use crate::nondet::Nondeterministic;
use crate::report::{FoundFailure, Report};

use super::Ctx;

/// Unit `index`'s settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Unit {
    pub(super) index: u64,
    pub(super) seed: u64,
    /// Delay bound (0 for walks).
    pub(super) bound: u32,
    /// In a portfolio, the member that runs it (0 otherwise).
    pub(super) member: usize,
}

/// A numbered sequence of units and how many of them a budget admits.
pub(super) trait Units: Sync {
    /// The number of units whose planned costs fit in `budget` executions;
    /// at least one, so that a budget smaller than one unit still runs one
    /// (the budget is rounded up to whole units).
    fn admitted(&self, budget: u64) -> u64;
    /// Unit `j` of a search with base seed `base`.
    fn unit(&self, j: u64, base: u64) -> Unit;
}

/// What a unit did.
#[derive(Debug)]
pub(super) struct Done {
    pub(super) executions: u64,
    pub(super) max_delays: u32,
    /// Its failure; `execution` counts within the unit until the pool
    /// offsets it.
    pub(super) found: Option<FoundFailure>,
    /// What its executions covered.
    pub(super) coverage: Coverage,
    /// Its executions' signal keys (`signals.rs`), sorted and distinct;
    /// empty unless a signal is tracked.
    pub(super) signal: Vec<u64>,
    /// The execution, kept to be mutated (the adaptive search's walks).
    pub(super) kept: Option<Kept>,
}

impl Done {
    /// A unit that ran `executions` and found nothing.
    pub(super) fn unfound(
        executions: u64,
        max_delays: u32,
        coverage: Coverage,
        signal: Vec<u64>,
    ) -> Done {
        Done {
            executions,
            max_delays,
            found: None,
            coverage,
            signal,
            kept: None,
        }
    }
}

/// A walk execution as the adaptive search's corpus keeps it: enough to
/// run it again with changed choices.
#[derive(Debug, Clone)]
pub(super) struct Kept {
    /// The portfolio member whose explorer and data choices it ran with.
    pub(super) member: usize,
    pub(super) seed: u64,
    pub(super) schedule: Vec<crate::schedule::Deviation>,
    /// Its choice points with more than one option.
    pub(super) branches: Vec<crate::guided::Branch>,
}

/// `into` (sorted, distinct) with `more` (sorted, distinct) added.
pub(super) fn merge_sorted(into: &mut Vec<u64>, more: &[u64]) {
    if more.is_empty() {
        return;
    }
    into.extend_from_slice(more);
    into.sort_unstable();
    into.dedup();
}

/// The sequence of units: `strata[k] = (bound, count)` units in order, the
/// last stratum repeating without end; unit 0's bound may be raised.
#[derive(Debug, Clone)]
pub(super) struct Plan {
    pub(super) strata: Vec<(u32, u64)>,
    /// Unit 0's bound instead of its stratum's. Sampling runs its first
    /// sample to the full delay bound, so that the seed of any sample,
    /// given as the base seed (in code or as `SIM_SEED`), runs that sample
    /// first and finds what it found: its runs with fewer delays are a
    /// prefix of the full one.
    pub(super) first_bound: Option<u32>,
}

impl Units for Plan {
    fn admitted(&self, budget: u64) -> u64 {
        self.fitting(budget).max(1)
    }

    fn unit(&self, j: u64, base: u64) -> Unit {
        Unit {
            index: j,
            seed: unit_seed(base, j),
            bound: self.bound(j),
            member: 0,
        }
    }
}

impl Plan {
    /// Independent executions with no delays, without end (walks).
    pub(super) fn walks() -> Plan {
        Plan {
            strata: vec![(0, u64::MAX)],
            first_bound: None,
        }
    }

    /// Unit `j`'s delay bound.
    pub(super) fn bound(&self, j: u64) -> u32 {
        if j == 0 {
            if let Some(b) = self.first_bound {
                return b;
            }
        }
        let mut start = 0u64;
        for (k, &(bound, count)) in self.strata.iter().enumerate() {
            if k + 1 == self.strata.len() || j < start.saturating_add(count) {
                return bound;
            }
            start = start.saturating_add(count);
        }
        unreachable!("a plan has at least one stratum")
    }

    fn fitting(&self, budget: u64) -> u64 {
        let mut spent = 0u64;
        let mut j = 0u64;
        // Walk the finite strata, then divide what is left by the last one's cost.
        let cost = |j: u64| self.bound(j) as u64 + 1;
        let finite: u64 = self.strata[..self.strata.len() - 1]
            .iter()
            .map(|s| s.1)
            .sum();
        while j < finite.max(1) {
            if spent + cost(j) > budget {
                return j;
            }
            spent += cost(j);
            j += 1;
        }
        let last = self.strata.last().expect("a plan has a stratum").0 as u64 + 1;
        j + (budget - spent) / last
    }
}

/// Seed of unit `j`: the base seed itself for unit 0, so `SIM_SEED=s`
/// makes `s` the first unit.
pub(super) fn unit_seed(base: u64, j: u64) -> u64 {
    if j == 0 {
        base
    } else {
        sim_rt::scheduler::derive_seed(base, 0x5353_0000 + j)
    }
}

/// Runs the plan's admitted units of this shard with `work`, on
/// `ctx.jobs` threads, and fills `report`; `line` is the command that
/// reproduces a unit, printed when it runs long.
pub(super) fn run(
    ctx: &Ctx<'_>,
    plan: &dyn Units,
    report: &mut Report,
    line: impl Fn(&Unit) -> String + Sync,
    work: impl Fn(Unit) -> Done + Sync,
) {
    run_observed(ctx, plan, report, line, work, |_, _| {});
}

/// [`run`], and `observe` sees each unit's result, in unit order, before it
/// is added to the report (up to and including the first failing unit):
/// for a search that learns from its units (the adaptive portfolio).
pub(super) fn run_observed(
    ctx: &Ctx<'_>,
    plan: &dyn Units,
    report: &mut Report,
    line: impl Fn(&Unit) -> String + Sync,
    work: impl Fn(Unit) -> Done + Sync,
    observe: impl FnMut(&Unit, &Done) + Send,
) {
    let admitted = plan.admitted(ctx.executions);
    let (shard, shards) = ctx.shard.map_or((0, 1), |(i, n)| (i as u64, n as u64));
    // Units of this shard: j = shard + k * shards for k < mine.
    let mine = admitted.saturating_sub(shard).div_ceil(shards);
    let unit = |k: u64| plan.unit(shard + k * shards, ctx.seed);
    let next = AtomicU64::new(0);
    let first_failure = AtomicU64::new(u64::MAX);
    let merge = Mutex::new(Merge {
        report,
        observe,
        // Only a probe's keys are tallied: a search's own (the portfolios'
        // states) can be new in every execution.
        tally: !ctx.target.signals.is_empty(),
        next: 0,
        early: BTreeMap::new(),
        stopped: false,
        nondeterministic: None,
    });
    let worker = || loop {
        let k = next.fetch_add(1, Ordering::Relaxed);
        if k >= mine || k > first_failure.load(Ordering::Acquire) {
            break;
        }
        let u = unit(k);
        ctx.progress.start(u.index, line(&u));
        let done = match catch_unwind(AssertUnwindSafe(|| work(u))) {
            Ok(done) => Ok(done),
            Err(payload) => match payload.downcast::<Nondeterministic>() {
                Ok(n) => Err(*n),
                Err(other) => resume_unwind(other),
            },
        };
        ctx.progress.end(u.index);
        if done.as_ref().map_or(true, |d| d.found.is_some()) {
            first_failure.fetch_min(k, Ordering::AcqRel);
        }
        merge
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .add(k, done, &unit);
    };
    // Each worker on a thread of its own that runs its executions itself
    // while they leave it clean (`exec::as_clean_worker`).
    let jobs = ctx.jobs.max(1).min(mine.max(1) as usize);
    if jobs == 1 {
        as_clean_worker(worker);
    } else {
        std::thread::scope(|s| {
            for _ in 1..jobs {
                s.spawn(|| as_clean_worker(worker));
            }
            as_clean_worker(worker);
        });
    }
    let merge = merge.into_inner().unwrap_or_else(|e| e.into_inner());
    if let Some(n) = merge.nondeterministic {
        n.raise();
    }
    assert!(
        merge.stopped || (merge.next == mine && merge.early.is_empty()),
        "every unit up to the first failure completes"
    );
}

/// The units' results, added to the report in unit order as soon as every
/// unit before them has been: a unit that finishes before one below it
/// waits in `early`, so about as many results as there are jobs are held
/// at once, not one per unit (a unit's `Done` is about 2 KB inline: a
/// 100,000-execution walk held 150 MB of them until its end, before).
struct Merge<'r, O> {
    report: &'r mut Report,
    observe: O,
    /// Whether units' signal keys go into the report (a probe asked).
    tally: bool,
    /// The next unit to add.
    next: u64,
    /// Results of units after `next` that finished first.
    early: BTreeMap<u64, Result<Done, Nondeterministic>>,
    /// A unit failed (or was not deterministic): nothing after it is added.
    stopped: bool,
    /// The first unit's finding that the program is not deterministic,
    /// raised once the threads are done.
    nondeterministic: Option<Nondeterministic>,
}

impl<O: FnMut(&Unit, &Done)> Merge<'_, O> {
    /// Unit `k` finished with `done`; adds it, and the early results it
    /// was the last one missing for, unless a failure came before.
    fn add(&mut self, k: u64, done: Result<Done, Nondeterministic>, unit: &impl Fn(u64) -> Unit) {
        if self.stopped {
            return;
        }
        self.early.insert(k, done);
        while let Some(done) = self.early.remove(&self.next) {
            let u = unit(self.next);
            self.next += 1;
            self.add_in_order(&u, done);
            if self.stopped {
                self.early.clear();
                return;
            }
        }
    }

    fn add_in_order(&mut self, unit: &Unit, done: Result<Done, Nondeterministic>) {
        let report = &mut *self.report;
        let done = match done {
            Ok(done) => done,
            Err(mut n) => {
                n.execution += report.executions;
                self.nondeterministic = Some(n);
                self.stopped = true;
                return;
            }
        };
        (self.observe)(unit, &done);
        report.add_sample(unit.seed);
        report.max_delays_reached = report.max_delays_reached.max(done.max_delays);
        report.coverage.merge(&done.coverage);
        if self.tally {
            for k in &done.signal {
                *report.signal.entry(*k).or_default() += 1;
            }
        }
        if let Some(mut found) = done.found {
            found.execution += report.executions;
            report.executions += done.executions;
            report.failure = Some(found);
            self.stopped = true;
            return;
        }
        report.executions += done.executions;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn report() -> Report {
        Report {
            test: String::new(),
            explorer: String::new(),
            search: String::new(),
            seed: 0,
            executions: 0,
            max_delays_reached: 0,
            strata_complete: None,
            exhausted: false,
            distinct_states: 0,
            samples: Vec::new(),
            samples_total: 0,
            shard: None,
            elapsed: std::time::Duration::ZERO,
            failure: None,
            slow: 0,
            coverage: Coverage::default(),
            members: Vec::new(),
            signal: Default::default(),
        }
    }

    #[test]
    fn the_report_keeps_the_first_sample_seeds_and_counts_them_all() {
        let mut r = report();
        let n = Report::SAMPLES_KEPT as u64 + 10;
        for seed in 0..n {
            r.add_sample(seed);
        }
        assert_eq!(r.samples.len(), Report::SAMPLES_KEPT);
        assert_eq!(r.samples.last(), Some(&(Report::SAMPLES_KEPT as u64 - 1)));
        assert_eq!(r.samples_total, n);
    }

    fn done(executions: u64) -> Result<Done, Nondeterministic> {
        Ok(Done {
            executions,
            max_delays: executions as u32,
            found: None,
            coverage: Coverage::default(),
            signal: Vec::new(),
            kept: None,
        })
    }

    fn unit(k: u64) -> Unit {
        Unit {
            index: k,
            seed: 100 + k,
            bound: 0,
            member: 0,
        }
    }

    /// Units finishing out of order (2, 0, 3, 1) are added in unit order,
    /// each as soon as the ones before it are, and only those that finished
    /// early are held meanwhile.
    #[test]
    fn results_are_added_in_unit_order_as_soon_as_they_can_be() {
        let mut report = report();
        let mut observed = Vec::new();
        let mut merge = Merge {
            report: &mut report,
            observe: |u: &Unit, _: &Done| observed.push(u.index),
            tally: false,
            next: 0,
            early: BTreeMap::new(),
            stopped: false,
            nondeterministic: None,
        };
        merge.add(2, done(3), &unit);
        assert_eq!((merge.next, merge.early.len()), (0, 1));
        merge.add(0, done(1), &unit);
        assert_eq!((merge.next, merge.early.len()), (1, 1));
        merge.add(3, done(4), &unit);
        assert_eq!((merge.next, merge.early.len()), (1, 2));
        merge.add(1, done(2), &unit);
        assert_eq!((merge.next, merge.early.len()), (4, 0));
        assert!(!merge.stopped);
        drop(merge);
        assert_eq!(observed, [0, 1, 2, 3]);
        assert_eq!(report.samples, [100, 101, 102, 103]);
        assert_eq!(report.samples_total, 4);
        assert_eq!(report.executions, 10);
        assert_eq!(report.max_delays_reached, 4);
    }
}
