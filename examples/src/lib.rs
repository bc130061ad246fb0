//! Small real systems written against tokio's API, tested under the
//! simulator with planted, documented bugs.
//!
//! Each system is one source file written against `tokio::` paths only:
//!
//! | module | system | planted bug |
//! |---|---|---|
//! | [`twopc`] | two-phase commit, a coordinator and 3 participants over TCP | a participant that voted yes aborts on a timeout |
//! | [`chain`] | chain replication, 4 servers and a master that repairs the chain | two neighbours fail at once and the master links the chain with stale neighbours |
//!
//! # Three ways the same source is compiled
//!
//! - **This library**, on real tokio: the systems run over localhost
//!   (`tests/smoke.rs`).
//! - **This library under `RUSTFLAGS="--cfg sim"`**: the line below swaps
//!   tokio for `sim_rt` crate-wide, which is what a user of sim-rt writes.
//! - **The simulated targets** (the `examples` binary, `tests/simulated`,
//!   `benches/effectiveness.rs`): their crate roots say `extern crate sim_rt
//!   as tokio;` unconditionally and mount `src/sim/mod.rs`, which mounts the
//!   same system files next to their simulated scenarios. That is how plain
//!   `cargo test` and `cargo run` explore them without a second build
//!   configuration.

#![deny(missing_docs, rust_2018_idioms)]
#![warn(missing_debug_implementations)]

#[cfg(sim)]
extern crate sim_rt as tokio;

pub mod chain;
pub mod linearizability;
pub mod twopc;
