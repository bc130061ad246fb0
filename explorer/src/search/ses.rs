//! Stratified exhaustive search (SES): every execution with at most `d`
//! delays, for `d = 0, 1, 2...` up to a bound.
//!
//! After Desai, Qadeer & Seshia (FSE 2015), figure 5. The paper's
//! `DelayBoundedDFS` walks program states; sim-rt cannot clone a running
//! program, so this search is stateless in the CHESS sense: it re-executes
//! from the start to reach each frontier entry. An entry is a *schedule*,
//! the deviations from the explorer's default (see `schedule.rs`), and
//! running it is one execution.
//!
//! # The tree of schedules
//!
//! The root is the empty schedule (0 delays). A schedule whose last
//! deviation is at choice point `q` with action `a` has, once run:
//!
//! - a *sibling*: the same with action `a + 1` at `q`, when `q` has that
//!   many alternatives (at a pick with `m` enabled events, 0..m-1 delays
//!   name the `m` events of a sound explorer; at a data choice with `n`
//!   options, options 1..n-1). One more delay at a pick costs one more; every
//!   non-default data option costs one;
//! - *children*: one more deviation (one delay, or option 1) at every
//!   branching choice point after `q`, each costing one more delay.
//!
//! Every schedule has exactly one parent, so each is run once. Strata are
//! explored in order of cost; within a stratum, depth first (the newest
//! entry first), as the paper's DFS. Children are not materialised: an
//! entry keeps the run's branching points and yields one child at a time.
//!
//! # State caching
//!
//! With [`Exhaustive::cache_states`], the program state before every pick
//! (the hosts' [`report_state`](sim_rt::sim::report_state) hashes, the
//! time, the runnable tasks, the deliverable packets) is looked up in a
//! cache of hashes. When a run reaches a state already seen, the rest of
//! the run is not branched from: its subtree was (or will be) explored from
//! the first visit. As in the paper, only the program state is cached, not
//! the explorer's: a state first seen with more delays is not revisited with
//! fewer. The cache holds at most [`Exhaustive::cache_limit`] hashes; when
//! full, new states are not added (the search stays sound, with less
//! pruning).
//!
//! # Invariants
//!
//! - While stratum `d` is explored, `frontier` holds entries of cost `d`
//!   and `next_stratum` entries of cost `d + 1 <= max_delays`.
//! - When stratum `d` is left, every schedule of cost `<= d` (not pruned by
//!   the cache) has run.

use std::collections::HashSet;
use std::hash::BuildHasherDefault;
use std::rc::Rc;

use crate::exec::{Diverged, Exec};
use crate::guided::Branch;
use crate::report::Report;
use crate::schedule::{extend, flatten, with_last_action, Node};

use super::{Ctx, SearchKind};

/// Stratified exhaustive search: all executions with 0 delays, then 1, then
/// 2..., up to `max_delays` or the execution budget.
///
/// Runs on one thread (`SIM_JOBS` does not apply; `SIM_SHARD` is an error).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Exhaustive {
    /// The largest number of delays explored (default 3).
    pub max_delays: u32,
    /// Cache program states and skip runs that reach one already explored
    /// (default off: the program should report its state with
    /// [`sim_rt::sim::report_state`]).
    pub cache_states: bool,
    /// The most state hashes the cache holds (default 4 million, about 64
    /// MiB).
    pub cache_limit: usize,
}

impl Default for Exhaustive {
    fn default() -> Self {
        Exhaustive {
            max_delays: 3,
            cache_states: false,
            cache_limit: 1 << 22,
        }
    }
}

impl Exhaustive {
    /// Every execution with at most `max_delays` delays.
    pub fn new(max_delays: u32) -> Self {
        Exhaustive {
            max_delays,
            ..Exhaustive::default()
        }
    }

    /// Turns the state cache on.
    pub fn cache_states(mut self) -> Self {
        self.cache_states = true;
        self
    }
}

/// A pending part of the tree.
enum Entry {
    /// Run this schedule, of this cost; its last deviation is at `at`, a
    /// choice point its parent's run saw as `at` (none for the root).
    Run {
        node: Option<Rc<Node>>,
        cost: u32,
        at: Option<Branch>,
    },
    /// The children of `node`'s run: one delay at each of `points[next..]`
    /// (its branching points, as that run saw them), each of cost `cost`.
    Children {
        node: Option<Rc<Node>>,
        points: Rc<[Branch]>,
        next: usize,
        cost: u32,
    },
}

/// Hashes are already well mixed: use them as they are.
#[derive(Default)]
struct Identity(u64);

impl std::hash::Hasher for Identity {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ b as u64;
        }
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }
}

pub(super) fn run(ctx: &Ctx<'_>, cfg: &Exhaustive) -> Report {
    let mut report = ctx.report();
    let max = cfg.max_delays;
    // Every entry made while exploring stratum `d` costs `d` or `d + 1`:
    // only two strata of the frontier are ever live.
    let mut frontier: Vec<Entry> = vec![Entry::Run {
        node: None,
        cost: 0,
        at: None,
    }];
    let mut next_stratum: Vec<Entry> = Vec::new();
    let mut cache: HashSet<u64, BuildHasherDefault<Identity>> = HashSet::default();
    let mut executions = 0u64;
    'strata: for d in 0..=max {
        ctx.progress.stratum(d);
        while let Some(entry) = frontier.pop() {
            let (node, c, expected) = match entry {
                Entry::Run { node, cost, at } => (node, cost, at),
                Entry::Children {
                    node,
                    points,
                    next,
                    cost,
                } => {
                    let at = points[next];
                    let child = extend(&node, at.at, 1);
                    if next + 1 < points.len() {
                        frontier.push(Entry::Children {
                            node,
                            points,
                            next: next + 1,
                            cost,
                        });
                    }
                    (child, cost, Some(at))
                }
            };
            debug_assert_eq!(c, d, "the frontier holds entries of the current stratum");
            if executions >= ctx.executions {
                // Budget spent with this stratum unfinished.
                break 'strata;
            }
            let schedule = flatten(&node);
            let q = node.as_ref().map_or(0, |n| n.at);
            // Exhaustive search is sequential: its first n executions are
            // the same in every run, so SIM_EXECUTIONS=n reproduces the
            // n-th.
            let line = format!(
                "SIM_EXECUTIONS={} {}",
                executions + 1,
                ctx.seed_line(ctx.seed)
            );
            ctx.progress.start(executions, line);
            let exec = Exec {
                record_from: q,
                cache_states: cfg.cache_states,
                ..Exec::of(ctx.seed, schedule.clone(), SearchKind::Ses)
            };
            let ran = ctx.numbered(executions + 1, || ctx.target.run(exec.clone()));
            ctx.progress.end(executions);
            executions += 1;
            // The run asks the question its parent's run asked at the
            // choice point it deviates at: the same choices lead there.
            let here = rec_at(&ran.record.branches, q);
            if let Some(b) = expected.filter(|&b| here != Some(b)) {
                let saw = format!(
                    "its choice point {} was {}, where the run it extends, with the same \
                     choices up to there, had {b}",
                    b.at,
                    here.map_or("not a choice among several options".to_string(), |h| {
                        h.to_string()
                    }),
                );
                let d = Diverged {
                    exec,
                    saw,
                    divergence: None,
                };
                ctx.nondeterministic(executions, d).raise();
            }
            ctx.progress.executed(1, c);
            report.max_delays_reached = report.max_delays_reached.max(c);
            report.coverage.add_execution(&ran.coverage);
            if ran.failure.is_some() {
                report.executions = executions;
                report.distinct_states = cache.len() as u64;
                report.failure = Some(ctx.numbered(executions, || {
                    ctx.found(ran, ctx.seed, &schedule, c, executions)
                }));
                return report;
            }
            let rec = &ran.record;
            // Where the cache cuts this run: the first pick after `q` whose
            // state was already seen.
            let mut cut = u32::MAX;
            if cfg.cache_states {
                for &(p, h) in &rec.states {
                    if node.is_some() && p <= q {
                        continue; // seen by the parent's run
                    }
                    if cache.contains(&h) {
                        cut = p;
                        break;
                    }
                    if cache.len() < cfg.cache_limit {
                        cache.insert(h);
                    }
                }
            }
            // The sibling: one more alternative at `q`.
            if let Some(n) = &node {
                if let Some(b) = here {
                    if n.action + 1 < b.options {
                        let sc = if b.pick { c + 1 } else { c };
                        let entry = Entry::Run {
                            node: with_last_action(n, n.action + 1),
                            cost: sc,
                            at: Some(b),
                        };
                        if sc == c {
                            frontier.push(entry);
                        } else if sc <= max {
                            next_stratum.push(entry);
                        }
                    }
                }
            }
            // The children: one delay at each branching point after `q`.
            if c < max {
                let points: Rc<[Branch]> = rec
                    .branches
                    .iter()
                    .copied()
                    .filter(|b| (node.is_none() || b.at > q) && b.at < cut)
                    .collect();
                if !points.is_empty() {
                    next_stratum.push(Entry::Children {
                        node,
                        points,
                        next: 0,
                        cost: c + 1,
                    });
                }
            }
        }
        report.strata_complete = Some(d);
        ctx.progress.stratum_complete(d, executions);
        if next_stratum.is_empty() {
            // Nothing costs more: every execution within the bound ran.
            report.exhausted = true;
            report.strata_complete = Some(max);
            break;
        }
        std::mem::swap(&mut frontier, &mut next_stratum);
    }
    report.executions = executions;
    report.distinct_states = cache.len() as u64;
    report
}

/// The branching point `at` of a run's record, when it recorded one there.
fn rec_at(branches: &[Branch], at: u32) -> Option<Branch> {
    branches.iter().find(|b| b.at == at).copied()
}
