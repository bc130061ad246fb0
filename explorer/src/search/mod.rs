//! The searches: how executions are chosen, one file each.
//!
//! - [`Exhaustive`] (`ses.rs`): stratified exhaustive search.
//! - [`Sampling`] (`ss.rs`): stratified sampling.
//! - [`Walk`] and [`Swarm`] (`walk.rs`): independent executions of a
//!   randomized explorer (the random-walk and PCT baselines), with the
//!   configured fault rates or with rates drawn per execution.
//! - `portfolio.rs`: the default, several of the above interleaved.
//! - `replay.rs`: one execution from a replay token.
//!
//! Sampling and walks run independent units of work (samples, executions)
//! on several threads and shards (`pool.rs`).

use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::time::Instant;

use crate::exec::{Diverged, Exec, Ran, Target};
use crate::liveness::{self, Tokens};
use crate::nondet::{Nondeterministic, COMES_AND_GOES};
use crate::progress::Progress;
use crate::report::{FoundFailure, Report};
use crate::schedule::Deviation;
use crate::shrink;
use crate::token::ReplayToken;
use sim_rt::runtime::Trace;

mod pool;
pub(crate) mod portfolio;
pub(crate) mod replay;
mod ses;
mod ss;
mod walk;

pub use self::ses::Exhaustive;
pub use self::ss::Sampling;
pub use self::walk::{Swarm, Walk};
pub use crate::search_kind::SearchKind;

/// Which search an [`Explorer`](crate::Explorer) runs.
#[derive(Debug, Clone, PartialEq)]
pub enum Search {
    /// Stratified exhaustive search.
    Exhaustive(Exhaustive),
    /// Stratified sampling.
    Sampling(Sampling),
    /// Independent executions of a randomized explorer.
    Walk(Walk),
    /// Walks whose fault rates each execution draws from its seed.
    Swarm(Swarm),
}

impl Search {
    /// Which search it is.
    pub fn kind(&self) -> SearchKind {
        match self {
            Search::Exhaustive(_) => SearchKind::Ses,
            Search::Sampling(_) => SearchKind::Ss,
            Search::Walk(_) => SearchKind::Walk,
            Search::Swarm(_) => SearchKind::Swarm,
        }
    }

    /// The short name used in reports, tokens and `SIM_SEARCH`.
    pub fn name(&self) -> &'static str {
        self.kind().name()
    }

    /// The delay bound, for the searches that have one.
    pub(crate) fn max_delays(&self) -> Option<u32> {
        match self {
            Search::Exhaustive(e) => Some(e.max_delays),
            Search::Sampling(s) => Some(s.max_delays),
            Search::Walk(_) | Search::Swarm(_) => None,
        }
    }
}

/// `Search::X(s)` from each search's settings `X`.
macro_rules! search_from {
    ($($kind:ident),*) => {
        $(
            impl From<$kind> for Search {
                fn from(s: $kind) -> Search {
                    Search::$kind(s)
                }
            }
        )*
    };
}

search_from!(Exhaustive, Sampling, Walk, Swarm);

/// A search's view of the exploration: what to run, with what budget, and
/// where to put what it found.
#[derive(Clone)]
pub(crate) struct Ctx<'a> {
    pub(crate) target: Target<'a>,
    pub(crate) test: String,
    /// `cargo test <name> ...` for this test, without environment.
    pub(crate) command: String,
    /// The `SIM_*` overrides in effect other than the seed (`SIM_SEARCH=ss
    /// SIM_EXPLORER=rr `...), for reproduction lines that need them.
    pub(crate) env_prefix: String,
    pub(crate) explorer: String,
    pub(crate) search: SearchKind,
    /// Execution budget.
    pub(crate) executions: u64,
    pub(crate) seed: u64,
    pub(crate) jobs: usize,
    pub(crate) shard: Option<(u32, u32)>,
    pub(crate) progress: &'a Progress,
    /// How a failure report names who found it, when not "<search> with
    /// <explorer>" (a portfolio's member).
    pub(crate) strategy: Option<String>,
    pub(crate) started: Instant,
    /// Executions a failure may be shrunk with (0: not shrunk).
    pub(crate) shrink: u64,
    /// Tell a failure in words and draw it (off for the explorations a
    /// property test runs while it shrinks its input).
    pub(crate) describe: bool,
}

impl Ctx<'_> {
    /// `SIM_SEED=<seed> <overrides> cargo test ...`: for a sample or a
    /// walk, the line that runs the unit of that seed first.
    pub(crate) fn seed_line(&self, seed: u64) -> String {
        format!("SIM_SEED={seed} {}{}", self.env_prefix, self.command)
    }

    /// An empty report for this exploration.
    pub(crate) fn report(&self) -> Report {
        Report {
            test: self.test.clone(),
            explorer: self.explorer.clone(),
            search: self.search.name().to_string(),
            seed: self.seed,
            executions: 0,
            max_delays_reached: 0,
            strata_complete: None,
            exhausted: false,
            distinct_states: 0,
            samples: Vec::new(),
            samples_total: 0,
            shard: self.shard,
            elapsed: self.started.elapsed(),
            failure: None,
            slow: 0,
            coverage: Default::default(),
            members: Vec::new(),
            signal: Default::default(),
        }
    }

    /// The report of a failed execution `ran`, the `execution`-th of the
    /// search, made with `seed` and `schedule`.
    pub(crate) fn found(
        &self,
        ran: Ran,
        seed: u64,
        schedule: &[Deviation],
        delays: u32,
        execution: u64,
    ) -> FoundFailure {
        self.found_shrinking(ran, seed, schedule, delays, execution, self.shrink)
    }

    /// [`found`](Self::found), shrinking with a budget of `shrink`
    /// executions (0: not at all).
    pub(crate) fn found_shrinking(
        &self,
        ran: Ran,
        seed: u64,
        schedule: &[Deviation],
        delays: u32,
        execution: u64,
        shrink: u64,
    ) -> FoundFailure {
        let trace = ran
            .trace
            .as_ref()
            .expect("a failed execution keeps its trace");
        // A walk with deviations (a mutated one) is not its seed's walk.
        let by_seed = self.search.by_seed(!schedule.is_empty());
        let original = self.token(seed, schedule, trace, self.search);
        let original_command = format!("SIM_REPLAY={original} {}", self.command);
        let (mut ran, schedule, search, shrunk) = if shrink > 0 {
            let base = Exec::of(seed, schedule.to_vec(), self.search);
            let (target, search) = (&self.target, self.search);
            shrink::found(
                target,
                base,
                search,
                ran,
                original,
                original_command,
                shrink,
            )
        } else {
            (ran, schedule.to_vec(), self.search, None)
        };
        // The reported execution's delays, counted as a search counts them:
        // a data deviation costs one.
        let delays = shrunk
            .as_ref()
            .map_or(delays, |s| s.after.delays + s.after.faults + s.after.data);
        let end = ran.end.take();
        let walked = ran.walked;
        let location = ran.location;
        let failure = ran.failure.expect("only failed executions are reported");
        let trace = ran.trace.expect("a failed execution keeps its trace");
        let token = self.token(seed, &schedule, &trace, search);
        let command = format!("SIM_REPLAY={token} {}", self.command);
        let seed_command = by_seed.then(|| self.seed_line(seed));
        // For a liveness failure: walks decided it dead; its critical
        // transition, told before the picture, which shows it.
        let liveness = end.map(|end| {
            let base = Exec::of(seed, schedule.clone(), search);
            let tokens = Tokens {
                base: &token,
                command: &self.command,
            };
            liveness::finding(&self.target, &base, &trace, end, &tokens)
        });
        // Once more, to tell it in words and draw it (unless this search
        // only needs to know that it failed).
        let (story, picture, shiviz) = if self.describe {
            let told = self.target.run_once(&Exec {
                tell: true,
                full_trace: true,
                ..Exec::of(seed, schedule.clone(), search)
            });
            // The same execution, unless the failure is a liveness walk's
            // (whose base execution is told).
            let again = told.trace.as_ref().map(|t| (t.len(), t.hash()));
            if !walked && again != Some((trace.len(), trace.hash())) {
                let saw = match again {
                    Some((steps, hash)) => format!(
                        "it failed, and run again to be told it failed differently ({steps} \
                         steps, trace hash {hash:016x}, instead of {} steps, {:016x})",
                        trace.len(),
                        trace.hash()
                    ),
                    None => "it failed, and run again to be told it did not fail".to_string(),
                };
                Diverged {
                    exec: Exec::of(seed, schedule.clone(), search),
                    saw,
                    divergence: None,
                }
                .raise();
            }
            let lines =
                crate::tell::lines(&told.story, &told.hosts, &told.delayed, told.trace.as_ref());
            let critical = liveness
                .as_ref()
                .and_then(|l| l.critical.as_ref())
                .and_then(|c| {
                    Some(crate::tell::Line {
                        step: c.step?,
                        at: c.at,
                        words: format!("critical transition: {}", c.event),
                        names: Vec::new(),
                    })
                });
            let picture = told.trace.as_ref().map(|full| {
                let run = crate::picture::Run {
                    story: &told.story,
                    hosts: &told.hosts,
                    delayed: &told.delayed,
                    logs: &told.logs,
                    trace: full,
                    lines: &lines,
                    critical,
                    failure: failure.to_string(),
                    failed_at: failure.step(),
                    reproduce: command.clone(),
                    title: format!(
                        "{} ({} with {}, seed {seed})",
                        if self.test.is_empty() {
                            "exploration"
                        } else {
                            &self.test
                        },
                        self.search,
                        self.explorer
                    ),
                };
                let name = format!(
                    "{}-{:016x}",
                    if self.test.is_empty() {
                        "exploration"
                    } else {
                        &self.test
                    },
                    trace.hash()
                );
                crate::picture::write(&name, &run)
            });
            let (picture, shiviz) = match picture {
                Some(Ok((html, log))) => (Some(html), Some(log)),
                Some(Err(e)) => {
                    eprintln!("explorer: could not write the failure's picture: {e}");
                    (None, None)
                }
                None => (None, None),
            };
            (crate::tell::tell(&lines), picture, shiviz)
        } else {
            (Vec::new(), None, None)
        };
        let found_by = self
            .strategy
            .clone()
            .unwrap_or_else(|| format!("{} with {}", self.search, self.explorer));
        let swarm = self
            .search
            .swarm()
            .then(|| crate::swarm::Rates::of(seed).to_string());
        FoundFailure {
            found_by,
            swarm,
            failure,
            story,
            picture,
            shiviz,
            liveness,
            shrunk,
            location,
            delays,
            seed,
            execution,
            token,
            command,
            seed_command,
            trace,
            saved: None,
        }
    }

    fn token(
        &self,
        seed: u64,
        schedule: &[Deviation],
        trace: &Trace,
        search: SearchKind,
    ) -> ReplayToken {
        ReplayToken {
            test: self.test.clone(),
            explorer: self.explorer.clone(),
            search: search.name().to_string(),
            seed,
            schedule: schedule.to_vec(),
            steps: trace.len() as u32,
            hash: trace.hash(),
            walk: None,
        }
    }
}

/// Divergences: see `nondet.rs`.
impl Ctx<'_> {
    /// Runs `f`, the work of the search's `execution`-th execution; a
    /// divergence that unwinds out of it is told as this execution's, with
    /// this strategy.
    pub(crate) fn numbered<R>(&self, execution: u64, f: impl FnOnce() -> R) -> R {
        match catch_unwind(AssertUnwindSafe(f)) {
            Ok(r) => r,
            Err(payload) => match payload.downcast::<Diverged>() {
                Ok(d) => self.nondeterministic(execution, *d).raise(),
                Err(other) => resume_unwind(other),
            },
        }
    }

    /// Tells divergence `d` of the search's `execution`-th execution:
    /// runs the determinism check on it unless it ran, and makes the line
    /// that replays it under the check.
    pub(crate) fn nondeterministic(&self, execution: u64, d: Diverged) -> Nondeterministic {
        let (checked, steps, hash) = self.target.check_twice(&d.exec);
        let check = match d.divergence.or(checked) {
            Some(divergence) => divergence,
            None => format!(
                "the determinism check ran it twice more and both runs agreed ({steps} steps, \
                 trace hash {hash:016x}): {COMES_AND_GOES}"
            ),
        };
        let search = if d.exec.swarm {
            SearchKind::Swarm
        } else if d.exec.random_data {
            SearchKind::Walk
        } else if self.search == SearchKind::Ses {
            SearchKind::Ses
        } else {
            SearchKind::Ss
        };
        let token = ReplayToken {
            test: self.test.clone(),
            explorer: self.explorer.clone(),
            search: search.name().to_string(),
            seed: d.exec.seed,
            schedule: d.exec.schedule.clone(),
            steps,
            hash,
            walk: d.exec.walk,
        };
        Nondeterministic {
            found_by: self
                .strategy
                .clone()
                .unwrap_or_else(|| format!("{} with {}", self.search, self.explorer)),
            execution,
            seed: d.exec.seed,
            saw: d.saw,
            check,
            command: format!(
                "SIM_CHECK_DETERMINISM=1 SIM_REPLAY={token} {}",
                self.command
            ),
        }
    }
}

/// Runs the configured search.
pub(crate) fn run(ctx: &Ctx<'_>, search: &Search) -> Report {
    let report = match search {
        Search::Exhaustive(s) => ses::run(ctx, s),
        Search::Sampling(s) => ss::run(ctx, s),
        Search::Walk(_) => walk::run(ctx, false),
        Search::Swarm(_) => walk::run(ctx, true),
    };
    finish(ctx, report)
}

/// Runs the default portfolio of `members`.
pub(crate) fn run_portfolio(
    ctx: &Ctx<'_>,
    members: &[portfolio::Member],
    adaptive: bool,
) -> Report {
    finish(ctx, portfolio::run(ctx, members, adaptive))
}

fn finish(ctx: &Ctx<'_>, mut report: Report) -> Report {
    report.elapsed = ctx.started.elapsed();
    report.slow = ctx.target.slow.load(std::sync::atomic::Ordering::Relaxed);
    report.coverage.answer_for(&sim_rt::sim::coverage_points());
    ctx.progress
        .finish(report.executions, report.elapsed, report.failed());
    report
}
