//! Stratified sampling (SS): near-uniform samples of the executions with
//! `d` delays, for `d = 1, 2...` up to a bound.
//!
//! After Desai, Qadeer & Seshia (FSE 2015), figure 7 (`DelayBoundedSample`).
//! A sample with bound `d` runs the program with no delay, picks a
//! uniformly random branching choice point of the last *segment* (the
//! choice points from the last delay on) for the next delay, runs again
//! with it, and so on until it holds `d` delays. A delay at a pick is one
//! more `delay` before `next`; at a data choice it takes a uniformly random
//! non-default option. Every run of the sample is checked, so a sample with
//! bound `d` also tests its prefixes with `1..d` delays.
//!
//! # Guarantee
//!
//! If an execution needs `d` delays, at each of the `d` rounds the sample
//! picks the right point with probability at least `1/L`, where `L` is the
//! most branching choice points a segment has; so each sample with bound
//! `d` finds it with probability at least `1/L^d`. Only choice points with
//! at least two options count, which keeps `L` smaller than the paper's
//! "steps".
//!
//! # The strata
//!
//! Sample `j` has seed [`unit_seed`](super::pool::unit_seed)`(base, j)` (its
//! runtime seed too: randomized explorers and the world draw from it) and a
//! bound that grows with `j`: sample 0 has the full bound `max_delays`
//! (so a sample's seed, made the base seed in code or with `SIM_SEED`,
//! runs that sample first: its runs with fewer delays are a prefix of the
//! full one, and the count of executions does not depend on where the seed
//! was set); then [`Sampling::first`] samples with 1 delay,
//! `first * growth` with 2, `first * growth^2` with 3..., and after
//! `max_delays` samples keep that bound until the budget is spent. Samples
//! are independent: they run on `SIM_JOBS` threads and shard with
//! `SIM_SHARD` (see `pool.rs`).

use rand_core::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;
use sim_rt::scheduler::{derive_seed, uniform};

use crate::coverage::Coverage;
use crate::exec::{Diverged, Exec};
use crate::guided::Branch;
use crate::report::Report;
use crate::schedule::Deviation;

use super::pool::{self, Done, Plan, Unit};
use super::{Ctx, SearchKind};

/// Stratified sampling: `first` samples with 1 delay, `first * growth` with
/// 2, ... up to `max_delays`, then samples with `max_delays` delays until the
/// execution budget is spent.
#[derive(Debug, Clone, PartialEq)]
pub struct Sampling {
    /// The most delays a sample places (default 4).
    pub max_delays: u32,
    /// Samples with one delay (default 32). With 0, every sample has
    /// `max_delays` delays.
    pub first: u64,
    /// How much the number of samples grows from one stratum to the next
    /// (default 4.0).
    pub growth: f64,
}

impl Default for Sampling {
    fn default() -> Self {
        Sampling {
            max_delays: 4,
            first: 32,
            growth: 4.0,
        }
    }
}

impl Sampling {
    /// Samples with up to `max_delays` delays.
    pub fn new(max_delays: u32) -> Self {
        Sampling {
            max_delays,
            ..Sampling::default()
        }
    }

    /// `numsamples(d)`: how many samples have bound `d` (before the last
    /// stratum, which has no end).
    pub fn samples(&self, d: u32) -> u64 {
        if d == 0 {
            return 0;
        }
        let n = self.first as f64 * self.growth.powi(d as i32 - 1);
        if n >= u64::MAX as f64 {
            u64::MAX
        } else {
            n.ceil() as u64
        }
    }

    /// The units: sample 0 to the full bound (see [`Plan::first_bound`]),
    /// then the strata.
    pub(super) fn plan(&self) -> Plan {
        let strata = if self.max_delays == 0 {
            vec![(0, u64::MAX)]
        } else {
            (1..=self.max_delays)
                .map(|d| (d, self.samples(d)))
                .collect()
        };
        Plan {
            strata,
            first_bound: Some(self.max_delays),
        }
    }
}

/// Generator stream for a sample's delay positions.
const SS_STREAM: u64 = 0x5353;

pub(super) fn run(ctx: &Ctx<'_>, cfg: &Sampling) -> Report {
    let mut report = ctx.report();
    let plan = cfg.plan();
    pool::run(
        ctx,
        &plan,
        &mut report,
        |u| ctx.seed_line(u.seed),
        |unit| sample(ctx, unit),
    );
    report
}

/// One `DelayBoundedSample` of `unit.bound` delays.
pub(super) fn sample(ctx: &Ctx<'_>, unit: Unit) -> Done {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(derive_seed(unit.seed, SS_STREAM));
    // Deviations in choice-point order, with whether each is at a pick.
    let mut schedule: Vec<(Deviation, bool)> = Vec::new();
    let mut from = 0u32;
    let mut from_data = false;
    let mut executions = 0u64;
    let mut coverage = Coverage::default();
    let mut signal: Vec<u64> = Vec::new();
    // The choice point the last delay was placed at, as the run before saw
    // it: this run, with the same choices up to it, must ask it again.
    let mut placed: Option<Branch> = None;
    loop {
        let deviations: Vec<Deviation> = schedule.iter().map(|&(d, _)| d).collect();
        let delays: u32 = schedule
            .iter()
            .map(|&((_, a), pick)| if pick { a } else { 1 })
            .sum();
        ctx.progress.stratum(unit.bound);
        let exec = Exec {
            record_from: from,
            ..Exec::of(unit.seed, deviations.clone(), SearchKind::Ss)
        };
        let ran = ctx.numbered(executions + 1, || ctx.target.run(exec.clone()));
        executions += 1;
        ctx.progress.executed(1, delays);
        if let Some(b) = placed {
            let here = ran.record.branches.iter().find(|h| h.at == b.at);
            if here != Some(&b) {
                let saw = format!(
                    "its choice point {} was {}, where the run before it, with the same \
                     choices up to there, had {}",
                    b.at,
                    here.map_or("not a choice among several options".to_string(), |h| {
                        h.to_string()
                    }),
                    b
                );
                ctx.nondeterministic(
                    executions,
                    Diverged {
                        exec,
                        saw,
                        divergence: None,
                    },
                )
                .raise();
            }
        }
        coverage.add_execution(&ran.coverage);
        super::pool::merge_sorted(&mut signal, &ran.record.signal);
        if ran.failure.is_some() {
            let found = ctx.numbered(executions, || {
                ctx.found(ran, unit.seed, &deviations, delays, executions)
            });
            return Done {
                executions,
                max_delays: delays,
                found: Some(found),
                coverage,
                signal,
                kept: None,
            };
        }
        if delays >= unit.bound {
            return Done::unfound(executions, delays, coverage, signal);
        }
        // The last segment: branching points from the last delay on (after
        // it, when it was a data choice: that choice is made).
        let segment: Vec<_> = ran
            .record
            .branches
            .iter()
            .filter(|b| b.at > from || (b.at == from && !from_data))
            .copied()
            .collect();
        if segment.is_empty() {
            // Nowhere left to delay: the sample ends short of its bound.
            return Done::unfound(executions, delays, coverage, signal);
        }
        let b = segment[uniform(&mut rng, segment.len())];
        match schedule.iter_mut().find(|((at, _), _)| *at == b.at) {
            // Every deviation is at or before `from`, so this is the last
            // one, at `from`. The segment offers `from` again only after a
            // pick (a data choice there is made), and this run asked the
            // same question there as the run that placed it (checked
            // above), so this is one more delay at the same pick.
            Some(((_, action), pick)) => {
                debug_assert!(*pick && b.pick);
                *action += 1;
            }
            None => {
                let action = if b.pick {
                    1
                } else {
                    1 + uniform(&mut rng, b.options as usize - 1) as u32
                };
                let i = schedule.partition_point(|((at, _), _)| *at < b.at);
                schedule.insert(i, ((b.at, action), b.pick));
            }
        }
        placed = Some(b);
        from = b.at;
        from_data = !b.pick;
    }
}
