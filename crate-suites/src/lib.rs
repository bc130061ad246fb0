//! Published crates' own test suites, run inside a simulation.
//!
//! A crate that does its I/O through `std::fs` runs unchanged on a host's
//! simulated disk (sim-rt interposes libc's file calls), and so do its own
//! tests, once each of them runs inside a simulation. This crate builds
//! that at run time, from the package the workspace's lockfile pins: it
//! copies the package's `src/` and `tests/` out of cargo's registry cache
//! ([`Package`], located with `cargo metadata`) into scratch crates under
//! the workspace's target directory (nothing of the package is committed
//! here), edits the copies ([`edit`]: `use sim_rt::test;` at the top of
//! each test file, which turns every `#[test]` in it into a
//! `#[sim_rt::test]`; a planted bug, by an anchor that must match once),
//! and runs them with a nested `cargo test` ([`Scratch::cargo`]), whose
//! output [`libtest`] reads: each test's outcome, which tests announced a
//! simulation's seed, and a failure's reproduce line.
//!
//! The instances are its tests: `tests/queue_file.rs` runs the crates.io
//! crate queue-file's integration tests outside and inside a simulation
//! and compares, and explores a copy with a planted missing sync under
//! host resets.
//!
//! The conformance harness (`conformance/`) does the same for tokio's test
//! suite, with a whole-graph build and a table of differences; this one is
//! for a crate that needs no tokio at all, and runs within `cargo test`.

#![deny(missing_docs, rust_2018_idioms)]
#![warn(missing_debug_implementations)]

pub mod edit;
pub mod libtest;
mod package;
mod scratch;

pub use self::package::{names_crate, Dependency, Package};
pub use self::scratch::{write_if_changed, Member, Scratch};
