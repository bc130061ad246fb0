//! `cargo sim`: run a crate's tests (or binary) with its whole dependency
//! graph on sim-tokio, with nothing written in its repository.
//!
//! Its parts: the command line ([`args`]), and the swap of the simulated
//! build's own lockfile with the committed one ([`lockfile`]).
#![deny(missing_docs, rust_2018_idioms)]
#![warn(missing_debug_implementations)]

pub mod args;
pub mod lockfile;
