//! The runtime's settings that the engine below the builder reads: the
//! defaults, the runtime's flavor and what an unhandled panic does, and
//! how a failure ends a test. A leaf: [`crate::runtime`] re-exports the
//! public items at their tokio paths.

use std::time::Duration;

/// The seed used when neither [`Builder::seed`](crate::runtime::Builder::seed) nor `SIM_SEED` gives one.
pub const DEFAULT_SEED: u64 = 0;

/// Default [`Builder::max_steps`](crate::runtime::Builder::max_steps).
pub const DEFAULT_MAX_STEPS: u64 = 10_000_000;

/// [`Builder::livelock_steps`](crate::runtime::Builder::livelock_steps)'s default: a hundred thousand polls of
/// tasks spinning with nothing else happening. A loop of real work that
/// yields at every iteration with no other task to run would need more;
/// such a test raises it.
pub const DEFAULT_LIVELOCK_STEPS: u64 = 100_000;

/// Default [`Builder::poll_cost`](crate::runtime::Builder::poll_cost): a
/// microsecond of simulated time per poll while the clock is not paused.
///
/// A poll of a small task on tokio takes from a few hundred nanoseconds to
/// a few microseconds of real time (madsim charges 50-100 ns). At a
/// microsecond a task spinning on ready timers lets a 1 ms sleep fire
/// after a thousand polls, far inside the livelock limit
/// ([`DEFAULT_LIVELOCK_STEPS`]) and the step limit, and a run's times move
/// by at most a millisecond tick from the zero-cost ones. See the guide's
/// "Work time" section.
pub const DEFAULT_POLL_COST: Duration = Duration::from_micros(1);

/// How often a random walk (and the fault-rate draws of a swarm walk, which
/// scale it like a fault's) delivers late: the probability of option 1 of
/// a [`ChoiceKind::Late`](crate::scheduler::ChoiceKind::Late) choice, which
/// moves the clock to the packets' latest arrival before any of them is
/// delivered. Low, so that a walk's messages mostly keep their usual
/// timing; a delaying explorer takes it as any data choice's non-default
/// option.
pub const LATE_PROBABILITY: f64 = 0.1;

/// Default [`Builder::max_time`](crate::runtime::Builder::max_time): no limit. As on tokio with its clock
/// paused, a run may sleep as long as it likes (two simulated days, or the
/// thirty years of `sleep(Duration::MAX)`); a run that never ends stops at
/// the step limit ([`DEFAULT_MAX_STEPS`]) or at livelock detection, each
/// with a message that names the likely cause.
pub const DEFAULT_MAX_TIME: Duration = Duration::MAX;

/// What to do when a spawned task panics: simulated
/// [`tokio::runtime::UnhandledPanic`](https://docs.rs/tokio/1/tokio/runtime/enum.UnhandledPanic.html)
/// (unstable in tokio).
///
/// The default is tokio's, [`Ignore`](UnhandledPanic::Ignore): a panic
/// goes to the task's `JoinHandle` (or `JoinSet`), awaited as a
/// [`JoinError`](crate::task::JoinError), and is dropped with it; the panic
/// hook has printed it, and a later failure's report names it.
///
/// # Differences from tokio
///
/// A third behaviour, for explorations:
/// [`Builder::report_unobserved_panics`](crate::runtime::Builder::report_unobserved_panics)
/// (the explorer's default) keeps the panic for a handle that is held and
/// fails the simulation when nobody can observe it.
/// [`ShutdownRuntime`](UnhandledPanic::ShutdownRuntime) always fails the
/// simulation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum UnhandledPanic {
    /// The panic is caught and returned through the task's `JoinHandle`.
    Ignore,
    /// The simulation fails: `block_on` panics with a report naming the task,
    /// its host, the simulated time and the line that reproduces the run.
    ShutdownRuntime,
}

/// The flavor a runtime was built as: simulated
/// [`tokio::runtime::RuntimeFlavor`](https://docs.rs/tokio/1/tokio/runtime/enum.RuntimeFlavor.html).
///
/// # Differences from tokio
///
/// Both flavors run the same single-threaded simulation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum RuntimeFlavor {
    /// Built with [`Builder::new_current_thread`](crate::runtime::Builder::new_current_thread).
    CurrentThread,
    /// Built with [`Builder::new_multi_thread`](crate::runtime::Builder::new_multi_thread).
    MultiThread,
}

/// Ends the current test (or program) with `message` and no
/// backtrace: prints it on stderr, then unwinds with it as the panic
/// payload without calling the panic hook. For a failure report or a
/// malformed setting, where a backtrace of the harness's frames (with
/// `RUST_BACKTRACE=1`) would bury the one message that matters. A test
/// still fails (and `#[should_panic(expected = ..)]` still reads the
/// message); a program's `main` exits with code 101.
pub fn fail_quietly(message: String) -> ! {
    {
        use std::io::Write;
        // `eprintln!` so that libtest's capture shows it with the test.
        eprintln!("{message}");
        let _ = std::io::stderr().flush();
    }
    std::panic::resume_unwind(Box::new(message))
}
