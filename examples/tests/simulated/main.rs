//! The examples under the simulator: each planted bug is found within a
//! bounded number of executions, and each system passes with it off.

extern crate sim_rt as tokio;

#[path = "../../src/sim/mod.rs"]
mod sim;

mod chain;
mod counter;
mod election;
mod flusher;
mod kv;
mod lease;
mod liveness;
mod lock;
mod quorum;
mod quorum_read;
mod raft;
mod registry;
mod shards;
mod shrink;
mod twopc;
mod wal;
