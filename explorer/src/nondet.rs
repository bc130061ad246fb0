//! Programs that are not deterministic: how the explorer finds out, and
//! what it says.
//!
//! An execution is a function of its seed and its choices, and the explorer
//! relies on it everywhere: a sample places its next delay at a choice
//! point of its last run, exhaustive search extends the schedule of a run
//! it saw, a failure is told and shrunk by running it again, a replay
//! checks its token's trace hash. Every execution runs on a fresh thread
//! (see `exec.rs`), so what a program keeps per thread cannot break that;
//! a program that reads something else outside the simulation (a `static`
//! shared by executions, real time with interception off, a thread of its
//! own) can. A search notices when a run does not agree with the run it
//! was built from, and reports the program as not deterministic: which
//! execution, the determinism check's first divergence (the execution run
//! twice more, each on a fresh thread with every step recorded, and
//! compared step by step), the line that replays it under the check, and
//! the hint to check every execution with `SIM_CHECK_DETERMINISM=1`. It
//! does not search on with schedules that now mean something else, nor
//! trip one of its own consistency checks.
//!
//! # Unwinding
//!
//! A divergence shows at any depth: in a search's loop, in the shrinker,
//! in the run that tells a failure, in any run under
//! `SIM_CHECK_DETERMINISM=1`. It unwinds with a [`Diverged`] payload
//! (`resume_unwind`, which does not call the panic hook: nothing is
//! printed on the way) to the nearest [`Ctx::numbered`], which knows the
//! execution's number and the strategy that ran it and turns it into a
//! [`Nondeterministic`] report. That one unwinds on: the pool keeps unit
//! order (a failure or a divergence of the lowest unit is reported, so the
//! report does not depend on `SIM_JOBS`), and `Explorer::run` panics with
//! its text.

use std::fmt;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};

use crate::exec::{on_fresh_thread, Exec, Target};
use crate::search::{Ctx, SearchKind};
use crate::token::ReplayToken;

/// A run that did not agree with what the search knew of its execution.
pub(crate) struct Diverged {
    /// The execution concerned.
    pub(crate) exec: Exec,
    /// What showed it ("its choice point 12 was a data choice with 2
    /// options; the run before, with the same choices up to there, had a
    /// pick among 3 events").
    pub(crate) saw: String,
    /// The determinism check's message, when it already ran.
    pub(crate) divergence: Option<String>,
}

impl Diverged {
    /// Unwinds with this divergence, to the nearest [`Ctx::numbered`].
    pub(crate) fn raise(self) -> ! {
        resume_unwind(Box::new(self))
    }
}

/// The report of a program found not deterministic.
#[derive(Debug, Clone)]
pub(crate) struct Nondeterministic {
    /// Who found it ("ss with rtc", a portfolio's member).
    pub(crate) found_by: String,
    /// Which execution of the search (1 is the first; the pool adds the
    /// units before).
    pub(crate) execution: u64,
    pub(crate) seed: u64,
    pub(crate) saw: String,
    /// The determinism check's first divergence, or what it found instead.
    pub(crate) check: String,
    /// `SIM_CHECK_DETERMINISM=1 SIM_REPLAY=... cargo test ...`.
    pub(crate) command: String,
}

impl Nondeterministic {
    /// Unwinds with this report, to the pool or `Explorer::run`.
    pub(crate) fn raise(self) -> ! {
        resume_unwind(Box::new(self))
    }

    /// The report's text, for the test named `test`.
    pub(crate) fn text(&self, test: &str) -> String {
        let name = if test.is_empty() { "exploration" } else { test };
        format!("{name}: {self}")
    }
}

/// The hint every report ends with.
pub(crate) const HINT: &str = "Run the test with SIM_CHECK_DETERMINISM=1 to run every \
     execution twice, each on a fresh thread, and stop at the first whose runs diverge, naming \
     the step";

/// What it means when two runs of one execution agree but differ from the
/// search's.
const COMES_AND_GOES: &str = "what differs comes and goes between executions: state kept \
     between executions (a `static`, a global cache, a `OnceLock`), real time or randomness \
     read with interception off, a real thread, or real I/O";

impl fmt::Display for Nondeterministic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "{} found that the program is not deterministic in execution {} (seed {}): {}",
            self.found_by, self.execution, self.seed, self.saw
        )?;
        for line in self.check.lines() {
            writeln!(f, "  {line}")?;
        }
        writeln!(f, "  reproduce: {}", self.command)?;
        write!(f, "  {HINT}")
    }
}

impl fmt::Debug for Diverged {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Diverged")
            .field("seed", &self.exec.seed)
            .field("saw", &self.saw)
            .finish_non_exhaustive()
    }
}

impl Target<'_> {
    /// The determinism check of `exec`: two runs, each on a fresh thread
    /// with every step recorded. Returns the check's message when they
    /// differ, and the first run's token fields (steps, hash).
    pub(crate) fn check_twice(&self, exec: &Exec) -> (Option<String>, u32, u64) {
        let exec = Exec {
            full_trace: true,
            quiet: true,
            tell: false,
            ..exec.clone()
        };
        let first = on_fresh_thread(|| self.run_here(&exec, true));
        let second = on_fresh_thread(|| self.run_here(&exec, true));
        let (a, b) = (first.trace.as_ref(), second.trace.as_ref());
        let (a, b) = a.zip(b).expect("checked runs keep their traces");
        (
            sim_rt::runtime::__private::compare_traces(a, b),
            a.len() as u32,
            a.hash(),
        )
    }
}

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
