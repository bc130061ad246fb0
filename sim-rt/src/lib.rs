//! A deterministic simulation runtime that stands in for tokio.
//!
//! `sim_rt` runs async Rust written against tokio's API on one thread, with a
//! simulated clock and simulated hosts, every run determined by a seed and
//! the choices of a [`Scheduler`](scheduler::Scheduler). Switch a crate over
//! with one line at its root:
//!
//! ```ignore
//! #[cfg(sim)]
//! extern crate sim_rt as tokio;
//! ```
//!
//! and every `tokio::` path (`tokio::spawn`, `tokio::time::sleep`,
//! `#[tokio::test]`, `tokio::select!`...) resolves to the simulated one.
//! tokio's runtime-independent parts, `io` and `sync`, are sim-rt's own,
//! with tokio's exact API and a deterministic wake order, so no crates.io
//! tokio stands behind them.
//!
//! # Which swap
//!
//! The one-line swap changes one crate: use it for code that calls tokio
//! itself. A dependency that spawns tasks, arms timers or opens sockets
//! through tokio (axum, hyper-util, tonic, reqwest, tower's timeout,
//! tokio-util's `DelayQueue`) still calls crates.io tokio, which cannot run
//! inside a simulation: for those, swap the whole graph with the package
//! named `tokio` in this repository's `sim-tokio/`, selected by a cargo
//! config file (`[patch.crates-io]` plus `--cfg sim`; see the guide's "The
//! whole dependency graph", `docs/src/whole-graph.md`). Both are this
//! crate: `sim-tokio` only re-exports it at tokio's paths, so there is one
//! implementation of everything.
//!
//! # Map
//!
//! - [`runtime`], [`task`], [`time`], [`net`], [`fs`], [`signal`]: tokio's
//!   API, simulated.
//! - [`io`]: tokio's API, reimplemented (no crates.io tokio behind it).
//! - [`sync`]: sim-rt's own channels and locks with tokio's API, waking
//!   waiters in FIFO order (tokio's `watch` wakes its waiters in an order
//!   drawn from an unseeded thread-local generator).
//! - [`sim`]: simulation-only controls (hosts, signals, data choices, and
//!   the opt-outs of interception: [`sim::allow_threads`],
//!   [`sim::without_interception`]).
//! - [`scheduler`]: the choice point through which every decision goes.
//!
//! # Determinism
//!
//! An execution is a function of (configuration, seed, choices). Nothing in
//! this crate reads real time, OS randomness or iterates a hashed collection
//! in a way that reaches behaviour.
//!
//! On Linux (glibc), the program under test cannot read them either: inside
//! a simulation, `std::time::{Instant, SystemTime}`, OS randomness (std's
//! `HashMap` keys, `rand`, `uuid`) read the simulated clock and a seeded
//! stream, and std threads and real sockets are refused with a message
//! saying what to use instead (see [`sim::intercepting`] and the guide's
//! "No escape" chapter, `docs/src/no-escape.md`).

#![deny(missing_docs, rust_2018_idioms)]
#![warn(missing_debug_implementations)]
// Only `intercept` (the libc functions interposed on Linux) and
// `disk::posix` (the simulated file-system calls behind them), three io
// files (`ReadBuf`'s uninitialized bytes, `read_buf`/`fill_buf`, tokio's
// `unsafe fn AsyncFd::register` signatures), the lock guards of
// `sync::{mutex, rwlock}`, `runtime::clean_thread` (std's keys in the
// thread's TLS block) and the `unsafe fn`s whose traits demand it
// (`FromRawFd`...) use `unsafe`, each allowing it where it is.
#![deny(unsafe_code)]

#[macro_use]
pub mod macros;

mod disk;
pub mod fs;
mod ids;
#[allow(unsafe_code)]
mod intercept;
pub mod io;
pub mod net;
pub mod process;
pub mod runtime;
pub mod scheduler;
pub mod signal;
pub mod sim;
mod story;
pub mod stream;
mod switches;
pub mod sync;
pub mod task;
pub mod time;

pub use sim_rt_macros::{main, test};

pub use crate::sim::choose;
pub use crate::task::spawn;
