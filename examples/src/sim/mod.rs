//! The systems compiled against `sim_rt`, and their simulated scenarios.
//!
//! Mounted (with `#[path]`) by every simulated target: the `examples`
//! binary, `tests/simulated` and `benches/effectiveness.rs`. Each of those
//! crate roots says `extern crate sim_rt as tokio;`, so the system files,
//! which only name `tokio::`, compile against the simulator unchanged.
//!
//! Each scenario module mounts its system as `system` and exports a
//! [`Case`]: the test (a property checked in one simulation), the runtime
//! settings it needs, and the exploration that finds its planted bug.

#![allow(dead_code)] // each target uses a different part

use futures::future::LocalBoxFuture;

use explorer::Explorer;

pub mod chain;
pub mod chain_explorer;
pub mod counter;
pub mod drain;
pub mod election;
pub mod flusher;
pub mod kv;
pub mod lease;
#[path = "../lines.rs"]
mod lines;
pub mod lock;
pub mod quorum;
pub mod quorum_read;
pub mod raft;
pub mod registry;
pub mod shards;
pub mod twopc;
pub mod wal;

/// One planted bug, as the binary, the tests and the effectiveness bench
/// see it.
pub struct Case {
    /// The name on the command line (`cargo run -p examples -- <name>`).
    pub name: &'static str,
    /// The planted bug, in one line.
    pub bug: &'static str,
    /// One simulation of the scenario; panics when the property fails.
    /// `bug` turns the planted bug on.
    pub test: fn(bug: bool) -> LocalBoxFuture<'static, ()>,
    /// The exploration that finds the bug: runtime settings, explorer,
    /// search and budget. The bench swaps the explorer and search and keeps
    /// the runtime settings.
    pub explorer: fn() -> Explorer,
    /// The case's own delaying explorer, if it has one: sets it on an
    /// [`Explorer`] (the effectiveness bench gives it its own column).
    pub custom: Option<fn(Explorer) -> Explorer>,
}

/// Every case, in the order of the guide's effectiveness table.
pub fn cases() -> Vec<Case> {
    vec![
        twopc::case(),
        chain::case(),
        raft::case(),
        kv::case(),
        wal::case(),
        lock::case(),
        election::case(),
        registry::case(),
        counter::case(),
        quorum::case(),
        lease::case(),
        quorum_read::case(),
        shards::case(),
        flusher::case(),
        drain::case(),
    ]
}

/// The case named `name`.
pub fn case(name: &str) -> Option<Case> {
    cases().into_iter().find(|c| c.name == name)
}
