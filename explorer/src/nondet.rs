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
//! `SIM_CHECK_DETERMINISM=1`. It unwinds with a
//! [`Diverged`](crate::exec::Diverged) payload
//! (`resume_unwind`, which does not call the panic hook: nothing is
//! printed on the way) to the nearest
//! [`Ctx::numbered`](crate::search::Ctx::numbered), which knows the
//! execution's number and the strategy that ran it and turns it into a
//! [`Nondeterministic`] report. That one unwinds on: the pool keeps unit
//! order (a failure or a divergence of the lowest unit is reported, so the
//! report does not depend on `SIM_JOBS`), and `Explorer::run` panics with
//! its text.

use std::fmt;
use std::panic::resume_unwind;

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
pub(crate) const COMES_AND_GOES: &str =
    "what differs comes and goes between executions: state kept \
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
