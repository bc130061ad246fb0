//! sim-rt under tokio's name, for a whole dependency graph.
//!
//! This crate is the package `tokio` of this repository (directory
//! `sim-tokio/`). A test build selects it for every crate of the graph with a
//! cargo config file:
//!
//! ```toml
//! # sim.toml, used as `cargo test --config sim.toml`
//! [patch.crates-io]
//! tokio = { path = "<this repository>/sim-tokio" }
//!
//! [build]
//! rustflags = ["--cfg", "sim"]
//! ```
//!
//! Every crate that names `tokio` (axum, hyper-util, tonic, reqwest, tower,
//! tokio-util, tokio-stream...) then compiles against this crate: the tasks
//! they spawn are tasks of the simulation, their timers run on the simulated
//! clock, their sockets are simulated sockets on the calling task's host. The
//! user's manifest and source do not change between the real and the
//! simulated build.
//!
//! Each module is sim-rt's module of the same name; see sim-rt's docs for
//! what each item does in a simulation and how it differs from tokio. The
//! simulation's own API (hosts, faults, choices) is `sim` ([`sim_rt::sim`]), present under
//! `cfg(sim)` only, so code that uses it is `#[cfg(sim)]` in both builds.
//!
//! # Features
//!
//! Every tokio feature exists so that dependents' feature lists resolve;
//! none selects anything, as everything sim-rt has is always compiled.
//!
//! # Not simulated
//!
//! - `process`: commands build, but spawning returns
//!   `io::ErrorKind::Unsupported` (a simulation cannot run a child process).
//! - `io::unix::AsyncFd` and `net::windows`: they need the operating
//!   system's reactor; constructors return `io::ErrorKind::Unsupported`
//!   naming the item. (Unix domain sockets and pipes are simulated, on the
//!   calling task's host.)
//! - `runtime::Builder::new_multi_thread` runs on the simulator's one thread:
//!   its `worker_threads` sets the workers that metrics, `worker_index` and
//!   the thread hooks see, not OS threads.

#![deny(missing_docs)]

pub use sim_rt::{fs, io, net, process, runtime, signal, stream, sync, task, time};
pub use sim_rt::{join, pin, select, spawn, task_local, try_join};

/// What tokio's macros expand to (`tokio::macros::support`), hidden as in
/// tokio; code outside tokio reaches `tokio::macros::support::poll_fn`.
#[doc(hidden)]
pub use sim_rt::macros;

/// Simulated `#[tokio::main]`: see [`sim_rt::main`]. Here its `crate`
/// argument defaults to `tokio`.
pub use sim_rt_macros::tokio_main as main;
/// Simulated `#[tokio::test]`: see [`sim_rt::test`]. Here its `crate`
/// argument defaults to `tokio`.
pub use sim_rt_macros::tokio_test as test;

/// The simulation's own API, and the explorer: everything a simulated test
/// needs, so a whole-graph crate depends on nothing but `tokio`. Only under
/// `cfg(sim)`.
///
/// - sim-rt's [`sim_rt::sim`]: hosts, the network and disk faults,
///   choices, coverage points (`tokio::sim::sometimes!`), liveness
///   properties.
/// - The explorer's items ([`explorer`]): [`Explorer`](sim::Explorer), the
///   delaying explorers and searches, replay tokens, property tests
///   (`Explorer::check_prop`, with proptest re-exported as
///   `tokio::sim::proptest`), and its modules by name.
///
/// ```ignore
/// #[cfg(sim)]
/// #[test]
/// fn no_order_is_lost() {
///     tokio::sim::Explorer::new().executions(500).check(|| async {
///         tokio::sim::host("server").start(serve);
///         // ... clients, then the property
///     });
/// }
/// ```
#[cfg(sim)]
pub mod sim {
    pub use sim_rt::sim::*;

    pub use explorer::{
        coverage, explorers, liveness, prop, search, shrink, token, Coverage, CriticalTransition,
        DelayingExplorer, ExecutionSize, Exhaustive, Explorer, FoundFailure, Liveness,
        LivenessFinding, Pct, PropFailure, PropReport, Random, RandomizedRoundRobin, ReplayToken,
        Report, RoundRobin, Rtc, Sampling, Search, Shrunk, Swarm, TestOutcome, TokenError, Unit,
        Walk, WalkFaults, DEFAULT_EXECUTIONS, DEFAULT_SHRINK_EXECUTIONS,
    };

    /// The proptest crate the explorer's property tests take strategies
    /// from (`tokio::sim::proptest::prelude::*`).
    pub use explorer::prop::proptest;
}

/// A coverage point that must hold in some execution: see
/// [`sim_rt::sometimes!`]. Only under `cfg(sim)`.
#[cfg(sim)]
pub use sim_rt::sometimes;

/// A coverage point that must run in some execution: see
/// [`sim_rt::reachable!`]. Only under `cfg(sim)`.
#[cfg(sim)]
pub use sim_rt::reachable;

/// The scheduler interface the explorer drives (sim-rt's
/// [`sim_rt::scheduler`]). Only under `cfg(sim)`.
#[cfg(sim)]
pub use sim_rt::scheduler;

/// A choice of the simulation: see [`sim_rt::choose`]. Only under
/// `cfg(sim)`.
#[cfg(sim)]
pub use sim_rt::choose;
