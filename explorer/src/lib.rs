//! Systematic search over the executions of a `sim_rt` simulation.
//!
//! This crate will hold the delaying explorers (run-to-completion,
//! round-robin, randomized round-robin), the random-walk and PCT baselines,
//! stratified exhaustive search and stratified sampling, replay tokens and
//! failure reports (see the project's DESIGN.md). It talks to the runtime only
//! through [`sim_rt::scheduler::Scheduler`].
//!
//! Nothing is implemented yet: the crate exports no items, so nothing can be
//! mistaken for a working explorer. Until it lands, a simulation's choices
//! come from the seeded [`sim_rt::scheduler::RandomScheduler`], and a run is
//! reproduced with `SIM_SEED` or replayed with
//! [`sim_rt::runtime::Builder::replay`].

#![deny(missing_docs, rust_2018_idioms)]
#![warn(missing_debug_implementations)]
