//! What an exploration found, and how it says so.

use std::fmt;
use std::time::Duration;

use sim_rt::runtime::{Failure, Trace};

use crate::coverage::Coverage;
use crate::liveness::LivenessFinding;
use crate::shrink::Shrunk;
use crate::token::ReplayToken;

/// The first failure an exploration found.
#[derive(Debug, Clone)]
pub struct FoundFailure {
    /// Who found it: "ss with rtc", or a portfolio's member ("the default
    /// portfolio's walk with pct:3").
    pub found_by: String,
    /// For a swarm walk ([`Swarm`](crate::Swarm)): the execution's fault
    /// rates, drawn from its seed ("faults x100, loss off, ...").
    pub swarm: Option<String>,
    /// The simulation's own report (what went wrong, where).
    pub failure: Failure,
    /// What happened in the execution that the defaults would not have
    /// made happen, in order, in words: faults, delays, and the races they
    /// made (see the `tell` module's docs); at most a dozen lines.
    pub story: Vec<String>,
    /// The failure drawn: a self-contained HTML page under the target
    /// directory (`sim-failures/`), when it could be written.
    pub picture: Option<std::path::PathBuf>,
    /// The execution as a ShiViz log (with vector clocks), next to it.
    pub shiviz: Option<std::path::PathBuf>,
    /// For an "eventually" property that did not hold: the walks that
    /// found it dead and its critical transition (see
    /// [`Liveness`](crate::Liveness)).
    pub liveness: Option<LivenessFinding>,
    /// What shrinking did (see [`crate::shrink`]); `None` when it was off.
    /// Everything else here is about the shrunk execution, except
    /// `execution`, which is the search's.
    pub shrunk: Option<Shrunk>,
    /// Where the panic that failed it happened (`file:line:column`), when
    /// known.
    pub location: Option<String>,
    /// Delays the failing execution used (its stratum; a deviation at a
    /// data choice counts one).
    pub delays: u32,
    /// The failing execution's runtime seed.
    pub seed: u64,
    /// Which execution of the search it was (1 is the first).
    pub execution: u64,
    /// The token that replays it.
    pub token: ReplayToken,
    /// The command that replays it: `SIM_REPLAY=<token> cargo test ...`.
    pub command: String,
    /// For stratified sampling and random walks: a command that reproduces
    /// it from the seed alone.
    pub seed_command: Option<String>,
    /// The failing execution's trace, for comparing a replay step by step.
    pub trace: Trace,
    /// Where the failure was saved for `SIM_REPLAY=last`
    /// (`<target>/sim-failures/<test>.last`), when it was.
    pub saved: Option<std::path::PathBuf>,
}

/// The result of an exploration: see [`Explorer::run`](crate::Explorer::run).
#[derive(Debug, Clone)]
pub struct Report {
    /// The test's name ("" outside a test).
    pub test: String,
    /// The explorer's name ("rtc", "pct:3:1000"...).
    pub explorer: String,
    /// The search: "ses", "ss", "walk", "swarm", "portfolio" (the default)
    /// or "replay".
    pub search: String,
    /// The search's base seed.
    pub seed: u64,
    /// Executions run (for a parallel search: those that count, in order,
    /// up to and including the failing one).
    pub executions: u64,
    /// The largest number of delays any execution used.
    pub max_delays_reached: u32,
    /// Exhaustive search: the largest `d` such that every execution with at
    /// most `d` delays was explored (`None` when not even the default run
    /// finished, or for other searches).
    pub strata_complete: Option<u32>,
    /// Exhaustive search: whether every execution within the delay bound
    /// was explored (the frontier ran dry).
    pub exhausted: bool,
    /// Exhaustive search with a state cache: distinct program states seen.
    pub distinct_states: u64,
    /// Sampling and walks: the seeds of the samples (walks: executions) this
    /// run covered, in order: the first [`Report::SAMPLES_KEPT`] of them,
    /// so that a long exploration's report does not grow with it
    /// ([`samples_total`](Self::samples_total) counts them all).
    pub samples: Vec<u64>,
    /// Sampling and walks: how many samples this run covered, those past
    /// [`Report::SAMPLES_KEPT`] (not in [`samples`](Self::samples))
    /// included.
    pub samples_total: u64,
    /// Sampling and walks: `(i, n)` when this run is shard `i` of `n`.
    pub shard: Option<(u32, u32)>,
    /// Real time the exploration took.
    pub elapsed: Duration,
    /// The first failure, if any.
    pub failure: Option<FoundFailure>,
    /// Executions that ended with an "eventually" property unmet but from
    /// whose end a liveness walk reached it: slow, not failed (see
    /// [`Liveness`](crate::Liveness)). With several jobs and a failure,
    /// executions run after the failing one may be counted too.
    pub slow: u64,
    /// The coverage points ([`sim_rt::sometimes!`], [`sim_rt::reachable!`])
    /// this exploration answers for, and in how many of its executions
    /// (those counted in `executions`) each was reached and hit. See
    /// [`crate::coverage`].
    pub coverage: Coverage,
    /// Under a portfolio (the default search, or
    /// [`Explorer::adaptive`](crate::Explorer::adaptive)): each member, as
    /// a failure's `found_by` names it ("swarm with pct:3:1000"), and the
    /// executions it ran of those counted in
    /// [`executions`](Self::executions). The default gives part of its
    /// budget to the member that keeps reaching new states, so this shows
    /// where the budget went. Empty under other searches.
    pub members: Vec<(String, u64)>,
    /// With [`Explorer::probe_signal`](crate::Explorer::probe_signal): each
    /// key of the probed signals and in how many units (a walk's execution,
    /// a sample) it showed (under a portfolio, of every signal). Exhaustive
    /// search tallies none.
    #[doc(hidden)]
    pub signal: std::collections::BTreeMap<u64, u64>,
}

impl Report {
    /// How many sample seeds [`samples`](Self::samples) keeps: 65,536
    /// (512 KiB).
    pub const SAMPLES_KEPT: usize = 1 << 16;

    /// Notes a sample covered: its seed is kept while fewer than
    /// [`SAMPLES_KEPT`](Self::SAMPLES_KEPT) are.
    pub(crate) fn add_sample(&mut self, seed: u64) {
        if self.samples.len() < Self::SAMPLES_KEPT {
            self.samples.push(seed);
        }
        self.samples_total += 1;
    }

    /// Whether a failure was found.
    pub fn failed(&self) -> bool {
        self.failure.is_some()
    }

    /// The coverage points hit in none of the executions: states the
    /// search never reached.
    pub fn never_hit(&self) -> Vec<sim_rt::sim::Point> {
        self.coverage.never_hit()
    }
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = if self.test.is_empty() {
            "exploration"
        } else {
            &self.test
        };
        match &self.failure {
            Some(found) => {
                writeln!(
                    f,
                    "{name}: {} found a failure in execution {} ({} delays, seed {})",
                    found.found_by, found.execution, found.delays, found.seed
                )?;
                if let Some(rates) = &found.swarm {
                    writeln!(f, "  swarm: {rates}")?;
                }
                let failure = found.failure.to_string();
                for line in failure.lines() {
                    writeln!(f, "  {line}")?;
                }
                if let Some(at) = &found.location {
                    writeln!(f, "    panicked at {at}")?;
                }
                if !found.story.is_empty() {
                    writeln!(f, "  what happened that the defaults would not do:")?;
                    for line in &found.story {
                        writeln!(f, "    {line}")?;
                    }
                }
                if let Some(l) = &found.liveness {
                    write!(f, "{l}")?;
                }
                if let Some(s) = &found.shrunk {
                    if s.after < s.before {
                        writeln!(
                            f,
                            "  shrunk in {} executions from {} to {}",
                            s.executions, s.before, s.after
                        )?;
                        writeln!(f, "    as the search found it: {}", s.original_command)?;
                    } else {
                        writeln!(
                            f,
                            "  not shrunk: nothing smaller fails the same way ({}; {} executions \
                             tried)",
                            s.after, s.executions
                        )?;
                    }
                }
                if let Some(p) = &found.picture {
                    writeln!(f, "  picture: {}", p.display())?;
                }
                if let Some(p) = &found.shiviz {
                    writeln!(f, "  ShiViz log: {}", p.display())?;
                }
                writeln!(f, "  reproduce: {}", found.command)?;
                if let Some((_, rest)) = found
                    .command
                    .split_once(' ')
                    .filter(|_| found.saved.is_some())
                {
                    writeln!(f, "         or: SIM_REPLAY=last {rest}")?;
                }
                if let Some(cmd) = &found.seed_command {
                    writeln!(f, "         or: {cmd}")?;
                }
                Ok(())
            }
            None => {
                write!(
                    f,
                    "{name}: {} with {}: no failure in {} executions",
                    self.search, self.explorer, self.executions
                )?;
                if let Some(d) = self.strata_complete {
                    write!(f, "; every execution with at most {d} delays explored")?;
                }
                if self.exhausted {
                    write!(f, "; the search space within the delay bound is exhausted")?;
                }
                if self.distinct_states > 0 {
                    write!(f, "; {} distinct states", self.distinct_states)?;
                }
                if self.slow > 0 {
                    write!(
                        f,
                        "; {} slow (a liveness walk from their end met the property)",
                        self.slow
                    )?;
                }
                if let Some((i, n)) = self.shard {
                    write!(f, " (shard {i}/{n})")?;
                }
                write!(f, " in {:.1?}", self.elapsed)?;
                if !self.coverage.is_empty() {
                    write!(f, "\n  {}", self.coverage)?;
                }
                Ok(())
            }
        }
    }
}
