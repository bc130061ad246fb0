//! Systematic search over the executions of a `sim_rt` simulation.
//!
//! A test states a property as an async closure and an exploration budget;
//! the explorer runs it as many simulations, each with different choices,
//! and stops at the first that fails, printing one command that replays it:
//!
//! ```
//! use explorer::{Explorer, Exhaustive, RoundRobin};
//!
//! let report = Explorer::new()
//!     .explorer(RoundRobin::default())
//!     .search(Exhaustive::new(2))
//!     .executions(1_000)
//!     .run(|| async {
//!         use std::sync::atomic::{AtomicBool, Ordering};
//!         let flag = std::sync::Arc::new(AtomicBool::new(false));
//!         let f = flag.clone();
//!         let t = sim_rt::spawn(async move { f.store(true, Ordering::SeqCst) });
//!         sim_rt::task::yield_now().await;
//!         let seen = flag.load(Ordering::SeqCst);
//!         t.await.unwrap();
//!         // Fails when the main task runs on before the spawned one.
//!         assert!(seen, "the spawned task has not run yet");
//!     });
//! assert!(report.failed());
//! println!("{report}");
//! ```
//!
//! # Map
//!
//! - [`explorers`]: the [`DelayingExplorer`] interface and the built-ins,
//!   run-to-completion ([`Rtc`]), round-robin ([`RoundRobin`]), randomized
//!   round-robin ([`RandomizedRoundRobin`]), the baselines [`Random`]
//!   and [`Pct`], and partial order sampling ([`Pos`]).
//! - [`search`]: stratified exhaustive search ([`Exhaustive`]), stratified
//!   sampling ([`Sampling`]), random walks ([`Walk`]) and swarm walks
//!   ([`Swarm`]: fault rates drawn per execution).
//! - [`Explorer`]: the user's entry point; with no explorer and no search
//!   named, it runs a portfolio of them ([`Explorer::portfolio`]);
//!   [`Report`]: what it found.
//! - [`liveness`]: walks from an execution that ended with an "eventually"
//!   property unmet, and its critical transition ([`Liveness`]).
//! - [`shrink`]: a smaller execution that fails the same way.
//! - [`prop`]: property-based tests whose cases are explorations
//!   ([`Explorer::check_prop`], feature `proptest`, on by default).
//! - [`token`]: replay tokens.
//!
//! The explorer talks to the runtime only through
//! [`sim_rt::scheduler::Scheduler`]: it is one more scheduler.
//!
//! # Environment
//!
//! | variable | values |
//! |---|---|
//! | `SIM_EXPLORER` | `rtc`, `rr`, `prr`, `random`, `pos`, `pct`, `pct:<depth>`, `pct:<depth>:<steps>`, or the name of the test's own explorer |
//! | `SIM_SEARCH` | `ses`, `ss`, `walk`, `swarm` |
//! | `SIM_MAX_DELAYS` | the delay bound of `ses` and `ss` |
//! | `SIM_EXECUTIONS` | the execution budget, at least 1 |
//! | `SIM_SEED` | the base seed, decimal or `0x` hex; for `ss` and `walk`, the first sample's seed (so a sample's seed alone reproduces it) |
//! | `SIM_REPLAY` | a replay token from a failure report, or `last`: the test's last saved failure (`<target>/sim-failures/<test>.last`) |
//! | `SIM_JOBS` | threads for `ss` and `walk`, at least 1 (default: all cores) |
//! | `SIM_SHARD` | `i/n`: shard `i` (from 0) of `n` of an `ss` or `walk` search |
//! | `SIM_PROP` | a property test's case, as its failure report prints it (see [`prop`]) |
//! | `SIM_SHRINK` | `0` to report a failure as found, or a budget of executions for shrinking it (default 200 for searches; replays are shrunk only when it is set) |
//! | `SIM_CHECK_DETERMINISM` | `1` to run every execution twice and stop at the first whose two runs differ, naming the step |
//!
//! # Determinism
//!
//! An exploration is a function of its settings and the program: the same
//! seed gives the same executions, in the same order, with the same result,
//! whatever `SIM_JOBS` is. Each execution runs on a thread started for it,
//! so what the program keeps per thread (std's `HashMap` keys,
//! `rand::rng()`, any crate's thread-locals) starts afresh in each, from
//! the execution's seed: an execution replays alone, in another process.
//! A program that is not deterministic anyway (it keeps state between
//! executions in a `static`, say) is reported as such when a search
//! notices, with the determinism check's first divergence and the line
//! that shows it.

#![deny(missing_docs, rust_2018_idioms)]
#![warn(missing_debug_implementations)]
#![forbid(unsafe_code)]

// Floors, bottom to top: a module imports from its floor or below (the
// one exception is in exec.rs, with its reason).
//
// Vocabulary: settings, schedules, tokens, words for a trace.
pub mod coverage;
mod env;
mod orderings;
mod progress;
mod schedule;
mod search_kind;
mod signals;
mod swarm;
mod tell;
pub mod token;

// Running one execution.
mod exec;
pub mod explorers;
mod guided;
mod logs;
mod walker;

// Verdicts on an execution.
pub mod liveness;
mod nondet;

// Reports of a failure.
mod picture;
mod report;
pub mod shrink;

// The searches.
pub mod search;

// The user's entry points.
mod harness;
#[cfg(feature = "proptest")]
pub mod prop;

pub use crate::coverage::Coverage;
pub use crate::exec::TestOutcome;
pub use crate::explorers::{
    DelayingExplorer, Pct, Pos, Random, RandomizedRoundRobin, RoundRobin, Rtc, Unit,
};
pub use crate::harness::{Explorer, DEFAULT_EXECUTIONS};
pub use crate::liveness::{CriticalTransition, Liveness, LivenessFinding, Verdict, WalkFaults};
#[cfg(feature = "proptest")]
pub use crate::prop::{PropFailure, PropReport};
pub use crate::report::{FoundFailure, Report};
pub use crate::search::{Exhaustive, Sampling, Search, Swarm, Walk};
pub use crate::shrink::{ExecutionSize, Shrunk, DEFAULT_SHRINK_EXECUTIONS};
#[doc(hidden)]
pub use crate::signals::Signal;
pub use crate::token::{ReplayToken, TokenError};
