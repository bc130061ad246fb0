//! Small real systems written against tokio's API, tested under the
//! simulator with planted, documented bugs.
//!
//! The systems themselves (two-phase commit, chain replication, Raft, a
//! replicated store, a WAL on sim-fs) are not written yet; this crate exports
//! nothing so far. It is already built both ways by CI: against tokio, and
//! with `RUSTFLAGS="--cfg sim"` against `sim_rt`, through the one-line swap
//! below.

#![deny(missing_docs, rust_2018_idioms)]
#![warn(missing_debug_implementations)]

// Unused until the first system lands; the line is what users write.
#[cfg(sim)]
#[allow(unused_extern_crates)]
extern crate sim_rt as tokio;
