//! Small real systems written against tokio's API, tested under the
//! simulator with planted, documented bugs.
//!
//! Each system is one source file written against `tokio::` paths only,
//! and its hosts also call [`sim_rt::sim::report_state`] (which does
//! nothing outside a simulation) to tell a search their protocol state:
//!
//! | module | system | planted bug |
//! |---|---|---|
//! | [`twopc`] | two-phase commit, a coordinator and 3 participants over TCP, logs on disk | a participant that voted yes treats a timeout as abort |
//! | [`chain`] | chain replication, 4 servers and a master that repairs the chain | two neighbours fail at once and the master links the chain with stale neighbours |
//! | [`raft`] | Raft leader election and log replication, 5 nodes over UDP, durable state on disk | a leader commits an entry of an earlier term by counting replicas (the paper's figure 8) |
//! | [`kv`] | a key-value store, 3 replicas over UDP, a leader with a lease; checked with [`linearizability`] | a leader cut off from the others serves reads without checking its lease |
//! | [`wal`] | a key-value store over TCP with a write-ahead log, group commit and crash recovery | a write is acknowledged before the fsync that makes it durable |
//! | [`lock`] | a lock service over UDP with leases, 2 clients that restart as new owners | leases never expire: a crashed holder keeps the lock forever (liveness) |
//! | [`registry`] | a name registry, a primary and a replica over UDP | the replica applies changes in arrival order: a delete that overtakes its create leaves a name the primary deleted (an ordering bug, no fault) |
//! | [`counter`] | a counter over UDP with request numbers and retries, on a network that duplicates datagrams | the server applies a duplicated request twice (needs a duplicate) |
//! | [`quorum`] | a register on 3 replicas over UDP, writes to all, reads from the first two answers | replicas keep values in memory only: two restarts leave a read quorum without the value (needs two faults) |
//! | [`election`] | Raft's leader election, 3 nodes over UDP, staggered timeouts | a node follows a disruptive candidate while it hears a live leader: under a partition of the leader from one node the office changes hands forever (liveness) |
//! | [`lease`] | a lease server over UDP, 2 clients that renew the lease while they work under it | a holder counts its lease from the renewal's reply, not its request: cut off by a partition, it acts on past the server's expiry |
//! | [`quorum_read`] | a register on 3 replicas over UDP with majority writes and reads, on a lossy network | a read returns the newest of its two answers without writing it back: a later read can return an older value |
//! | [`shards`] | a name directory in two locked shards on one host, a write-ahead journal of moves with group commit, checkpoints | a move lets the source shard go before journaling: a checkpoint between the sync and the insert includes the move but not the name (four tasks in one order) |
//! | [`flusher`] | a key-value store over TCP: a data file of writes, a background flusher (group commit), a compactor that renames a rewritten copy into place | the compactor renames its copy into place unsynced and leaves the sync to the flusher: a crash in between empties the store |
//! | [`drain`] | a key-value store over TCP that writes behind and drains its queue on SIGTERM (graceful shutdown) | on SIGTERM the writer stops at once: acknowledged writes still queued are lost |
//!
//! # Three ways the same source is compiled
//!
//! - **This library**, on real tokio: the systems run over localhost
//!   (`tests/smoke`).
//! - **This library under `RUSTFLAGS="--cfg sim"`**: the line below swaps
//!   tokio for `sim_rt` crate-wide, which is what a user of sim-rt writes.
//! - **The simulated targets** (the `explore` binary, `tests/simulated`,
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
pub mod counter;
pub mod drain;
pub mod election;
pub mod flusher;
#[cfg(doctest)]
mod guide;
pub mod kv;
pub mod lease;
pub mod linearizability;
mod lines;
pub mod lock;
pub mod quorum;
pub mod quorum_read;
pub mod raft;
pub mod registry;
pub mod shards;
pub mod twopc;
pub mod wal;
