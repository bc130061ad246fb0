//! Why a simulation stopped without finishing, and how to say so.
//!
//! Every failure message has the same shape: what went wrong, where (host,
//! task, simulated time, step), and the one line that reproduces the run.

use std::fmt;
use std::time::Duration;

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

#[derive(Debug, Clone)]
pub(crate) enum FailureKind {
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
}

/// A failed simulation, ready to be printed.
#[derive(Debug, Clone)]
pub(crate) struct Failure {
    pub(crate) kind: FailureKind,
    pub(crate) elapsed: Duration,
    pub(crate) step: u64,
    pub(crate) seed: u64,
}

/// `SIM_SEED=<seed> cargo test ...`: see [`crate::sim::cargo_test_command`].
pub(crate) fn reproduce_line(seed: u64) -> String {
    format!("SIM_SEED={seed} {}", crate::sim::cargo_test_command())
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
        match &self.kind {
            FailureKind::TaskPanic { message, task } => {
                writeln!(f, "simulation failed: a task panicked: {message}")?;
                writeln!(f, "  in {task}")?;
                at(f)?;
            }
            FailureKind::MainPanic { message, task } => {
                writeln!(f, "simulation failed: the main future panicked: {message}")?;
                writeln!(f, "  in {task}")?;
                at(f)?;
            }
            FailureKind::HostError { message, task } => {
                writeln!(
                    f,
                    "simulation failed: host \"{}\" entry point returned an error: {message}",
                    task.host
                )?;
                writeln!(f, "  in {task}")?;
                at(f)?;
            }
            FailureKind::Deadlock { tasks } => {
                writeln!(
                    f,
                    "simulation failed: deadlock: the main future is unfinished, no task can run \
                     and no timer is pending"
                )?;
                at(f)?;
                list(f, "blocked tasks", tasks)?;
            }
            FailureKind::StepLimit { limit, tasks } => {
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
            FailureKind::TimeLimit { limit, next, tasks } => {
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
        }
        write!(f, "  reproduce: {}", reproduce_line(self.seed))
    }
}

/// The text of a panic payload.
pub(crate) fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&'static str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "<non-string panic payload>".to_string()
    }
}
