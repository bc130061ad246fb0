//! Why a simulation stopped without finishing, and how to say so.
//!
//! Every failure message has the same shape: what went wrong, where (host,
//! task, simulated time, step), and the one line that reproduces the run.

use std::fmt;
use std::time::Duration;

use super::liveness::{Violation, Walked};

/// A task as described in failure messages.
#[derive(Debug, Clone)]
pub(crate) struct TaskInfo {
    pub(crate) id: u64,
    pub(crate) host: String,
    pub(crate) origin: String,
    pub(crate) runnable: bool,
}

impl fmt::Display for TaskInfo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "task {} on host \"{}\" ({}){}",
            self.id,
            self.host,
            self.origin,
            if self.runnable { ", runnable" } else { "" }
        )
    }
}

/// What went wrong, with the details the report prints.
#[derive(Debug, Clone)]
pub(crate) enum Cause {
    /// A spawned task panicked and the runtime is set to shut down on it.
    TaskPanic { message: String, task: TaskInfo },
    /// The future passed to `block_on` panicked.
    MainPanic { message: String, task: TaskInfo },
    /// A host's entry point returned an error.
    HostError { message: String, task: TaskInfo },
    /// Nothing can happen and the main future is unfinished.
    Deadlock { tasks: Vec<TaskInfo> },
    /// The step limit was reached.
    StepLimit { limit: u64, tasks: Vec<TaskInfo> },
    /// The next event lies past the simulated-time limit.
    TimeLimit {
        limit: Duration,
        next: Duration,
        tasks: Vec<TaskInfo>,
    },
    /// A liveness property failed (see `runtime::liveness`).
    Liveness(super::liveness::Violation),
    /// Only tasks that woke themselves ran, for `steps` steps.
    Livelock { steps: u64, tasks: Vec<TaskInfo> },
}

/// The kind of a [`Failure`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum FailureKind {
    /// A spawned task panicked and the runtime shuts down on unhandled
    /// panics (the default).
    TaskPanic,
    /// The future passed to `block_on` panicked.
    MainPanic,
    /// A host's entry point returned an error.
    HostError,
    /// Nothing can happen and the main future is unfinished.
    Deadlock,
    /// The step limit was reached.
    StepLimit,
    /// The next event lies past the simulated-time limit.
    TimeLimit,
    /// A liveness property stated with [`sim::eventually`](crate::sim::eventually)
    /// did not hold (or stay) by the end of the run, or a
    /// [`sim::monitor`](crate::sim::monitor) stayed hot past its limit.
    Liveness,
    /// For [`Builder::livelock_steps`](crate::runtime::Builder::livelock_steps)
    /// steps only tasks that woke themselves ran (a busy wait on
    /// `yield_now`) and nothing else happened.
    Livelock,
}

/// Why a simulation stopped without finishing: what
/// [`Runtime::try_block_on`](crate::runtime::Runtime::try_block_on) returns,
/// and what [`Runtime::block_on`](crate::runtime::Runtime::block_on) panics
/// with.
///
/// Its `Display` is the report: what went wrong, where (host, task,
/// simulated time, step) and, for deadlocks and limits, the live tasks. It
/// does not include a reproduction line, which depends on how the run was
/// made (`block_on` adds `SIM_SEED=...`; the explorer adds `SIM_REPLAY=...`).
#[derive(Debug, Clone)]
pub struct Failure {
    pub(crate) cause: Box<Cause>,
    pub(crate) elapsed: Duration,
    pub(crate) step: u64,
    pub(crate) seed: u64,
    /// The first step at which a task ran out of tokio's current-thread
    /// order, if one did.
    pub(crate) unlike_tokio: Option<u64>,
    /// The first panic of a task that was handed to its `JoinHandle`
    /// before the failure: often its cause (a poisoned lock, an `unwrap` of
    /// the `JoinError`).
    pub(crate) earlier_panic: Option<(String, String)>,
    /// The simulated std threads the execution started, in words ("std
    /// thread 1 (task 3) on host \"main\""), so that a report's task
    /// numbers name them.
    pub(crate) threads: Box<[String]>,
}

impl Failure {
    /// The kind of failure.
    pub fn kind(&self) -> FailureKind {
        match *self.cause {
            Cause::TaskPanic { .. } => FailureKind::TaskPanic,
            Cause::MainPanic { .. } => FailureKind::MainPanic,
            Cause::HostError { .. } => FailureKind::HostError,
            Cause::Deadlock { .. } => FailureKind::Deadlock,
            Cause::StepLimit { .. } => FailureKind::StepLimit,
            Cause::TimeLimit { .. } => FailureKind::TimeLimit,
            Cause::Liveness(_) => FailureKind::Liveness,
            Cause::Livelock { .. } => FailureKind::Livelock,
        }
    }

    /// The panic message or the entry point's error, for failures that have
    /// one.
    pub fn message(&self) -> Option<&str> {
        match &*self.cause {
            Cause::TaskPanic { message, .. }
            | Cause::MainPanic { message, .. }
            | Cause::HostError { message, .. } => Some(message),
            _ => None,
        }
    }

    /// The host of the task that failed, for failures of one task.
    pub fn host(&self) -> Option<&str> {
        match &*self.cause {
            Cause::TaskPanic { task, .. }
            | Cause::MainPanic { task, .. }
            | Cause::HostError { task, .. } => Some(&task.host),
            _ => None,
        }
    }

    /// For a liveness failure, the name of the property or monitor it is
    /// about.
    pub fn property(&self) -> Option<&str> {
        match &*self.cause {
            Cause::Liveness(Violation::Unmet { name, .. })
            | Cause::Liveness(Violation::HotTooLong { name, .. }) => Some(name),
            _ => None,
        }
    }

    /// For an "eventually" property that did not hold by the end of the
    /// run: `Some(true)` when the run showed it dead (it went on after the
    /// main future returned until nothing more could happen), `Some(false)`
    /// when it is only indeterminate (the system may be stuck, or slow).
    /// `None` for every other failure, a monitor hot past its limit
    /// included: that is a violation as it stands.
    pub fn liveness_dead(&self) -> Option<bool> {
        match &*self.cause {
            Cause::Liveness(Violation::Unmet { walked, .. }) => {
                Some(walked.is_some_and(|w| w.dead))
            }
            _ => None,
        }
    }

    /// For a liveness failure whose run went on after its main future
    /// returned and stopped at the simulated-time limit only waiting: the
    /// time (since the start) of the event it was waiting for, past the
    /// limit, when nothing had happened for at least half of that walk's
    /// time. A run still busy at the limit, or stopped otherwise, gives
    /// `None`.
    pub fn liveness_waiting(&self) -> Option<Duration> {
        match &*self.cause {
            Cause::Liveness(Violation::Unmet {
                walked: Some(w), ..
            }) => w.waiting,
            _ => None,
        }
    }

    /// The number of steps the simulation had taken when it failed.
    pub fn step(&self) -> u64 {
        self.step
    }

    /// Simulated time elapsed since the start when it failed.
    pub fn elapsed(&self) -> Duration {
        self.elapsed
    }

    /// The simulation's seed.
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// The first step at which the failing execution polled a task out of
    /// tokio's current-thread order (not the first of its `Poll` events:
    /// see [`Shape`](crate::scheduler::Shape)), or `None` when every poll
    /// followed it: then a `current_thread` tokio runtime could run the
    /// same schedule.
    pub fn unlike_tokio(&self) -> Option<u64> {
        self.unlike_tokio
    }
}

impl std::error::Error for Failure {}

/// `SIM_SEED=<seed> cargo test ...`: see [`crate::sim::cargo_test_command`].
pub(crate) fn reproduce_line(seed: u64) -> String {
    format!("SIM_SEED={seed} {}", super::command::cargo_test_command())
}

fn list(f: &mut fmt::Formatter<'_>, heading: &str, tasks: &[TaskInfo]) -> fmt::Result {
    const SHOWN: usize = 20;
    writeln!(f, "  {heading}:")?;
    for t in tasks.iter().take(SHOWN) {
        writeln!(f, "    - {t}")?;
    }
    if tasks.len() > SHOWN {
        writeln!(f, "    ... and {} more", tasks.len() - SHOWN)?;
    }
    Ok(())
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let at = |f: &mut fmt::Formatter<'_>| {
            writeln!(
                f,
                "  at simulated time {:?} (step {}), seed {}",
                self.elapsed, self.step, self.seed
            )
        };
        match &*self.cause {
            Cause::TaskPanic { message, task } => {
                writeln!(f, "simulation failed: a task panicked: {message}")?;
                writeln!(f, "  in {task}")?;
                at(f)?;
            }
            Cause::MainPanic { message, task } => {
                writeln!(f, "simulation failed: the main future panicked: {message}")?;
                writeln!(f, "  in {task}")?;
                at(f)?;
            }
            Cause::HostError { message, task } => {
                writeln!(
                    f,
                    "simulation failed: host \"{}\" entry point returned an error: {message}",
                    task.host
                )?;
                writeln!(f, "  in {task}")?;
                at(f)?;
            }
            Cause::Deadlock { tasks } => {
                writeln!(
                    f,
                    "simulation failed: deadlock: the main future is unfinished, no task can run \
                     and no timer is pending"
                )?;
                at(f)?;
                list(f, "blocked tasks", tasks)?;
            }
            Cause::StepLimit { limit, tasks } => {
                writeln!(
                    f,
                    "simulation failed: step limit of {limit} steps reached with the main future \
                     unfinished. This is often caused by a busy loop (a task that yields or wakes \
                     itself forever) or a test that never ends; raise the limit with \
                     Builder::max_steps if the run is just long"
                )?;
                at(f)?;
                list(f, "live tasks", tasks)?;
            }
            Cause::TimeLimit { limit, next, tasks } => {
                writeln!(
                    f,
                    "simulation failed: simulated-time limit of {limit:?} reached with the main \
                     future unfinished (the next timer is due at {next:?}). This is often caused \
                     by a periodic task that never lets the test end, or a wait for something \
                     that never happens; raise the limit with Builder::max_time if the run is \
                     just long"
                )?;
                at(f)?;
                list(f, "live tasks", tasks)?;
            }
            Cause::Liveness(Violation::Unmet {
                name,
                stated,
                stays,
                lost_at,
                walked,
            }) => {
                let pending = self.elapsed.saturating_sub(stated.1);
                let steps = self.step.saturating_sub(stated.0);
                let what = if *stays { "held and stayed" } else { "held" };
                writeln!(
                    f,
                    "simulation failed: liveness: \"{name}\" has not {what} by the end of the \
                     run, {pending:?} ({steps} steps) after it was stated at {:?} (step {})",
                    stated.1, stated.0
                )?;
                if let Some((step, time)) = lost_at {
                    writeln!(f, "  it last stopped holding at {time:?} (step {step})")?;
                }
                match walked {
                    Some(Walked {
                        waiting: Some(next),
                        steps,
                        ..
                    }) => writeln!(
                        f,
                        "  indeterminate: after the main future returned the run went on {steps} \
                         more steps, then waited with nothing happening until its time limit; \
                         the next event was due at {next:?} (Builder::max_time allows more)"
                    )?,
                    Some(w) if w.dead => writeln!(
                        f,
                        "  dead: after the main future returned the run went on {} more steps, \
                         until nothing more could happen (no task could run, no timer was \
                         armed, no packet was in flight)",
                        w.steps
                    )?,
                    Some(w) => writeln!(
                        f,
                        "  indeterminate: after the main future returned the run went on {} more \
                         steps (Builder::liveness_walk) and it still did not hold: the system may \
                         be stuck, or only slower than that",
                        w.steps
                    )?,
                    None => writeln!(
                        f,
                        "  indeterminate: the system may be stuck, or only slower than this run's \
                         bound; run longer to tell (Builder::liveness_walk goes on after the main \
                         future returns)"
                    )?,
                }
                at(f)?;
            }
            Cause::Livelock { steps, tasks } => {
                writeln!(
                    f,
                    "simulation failed: livelock: for {steps} steps only the tasks below ran, \
                     each waking itself again at every poll (a busy wait: yield_now in a loop, or \
                     a retry without a sleep, or a loop that never waits and runs out of its \
                     cooperative budget at every poll while a timer is pending: with the clock \
                     paused, or a zero Builder::poll_cost, simulated time moves only when no task \
                     can run, so that timer cannot fire), and nothing \
                     else happened: no other task ran, no timer fired, no packet was delivered. \
                     What they wait for cannot happen while they spin; wait on it (a Notify, a \
                     channel, a sleep) instead, or, if the loop is real work, raise \
                     Builder::livelock_steps"
                )?;
                at(f)?;
                list(f, "spinning tasks", tasks)?;
            }
            Cause::Liveness(Violation::HotTooLong { name, limit, since }) => {
                let hot = self.elapsed.saturating_sub(since.1);
                let steps = self.step.saturating_sub(since.0);
                writeln!(
                    f,
                    "simulation failed: liveness: monitor \"{name}\" has been hot for {hot:?} \
                     ({steps} steps) since {:?} (step {}), past its limit of {limit:?}",
                    since.1, since.0
                )?;
                at(f)?;
            }
        }
        if let Some((task, message)) = &self.earlier_panic {
            writeln!(
                f,
                "  note: before this, {task} panicked (handed to its JoinHandle): {message}"
            )?;
        }
        if !self.threads.is_empty() {
            writeln!(f, "  std threads: {}", self.threads.join(", "))?;
        }
        if let Some(step) = self.unlike_tokio {
            writeln!(
                f,
                "  note: this execution polled a task out of tokio's current-thread order (first \
                 at step {step}): a `current_thread` tokio runtime would not run it this way; a \
                 multi-thread one, or a task woken at another time, might"
            )?;
        }
        Ok(())
    }
}
