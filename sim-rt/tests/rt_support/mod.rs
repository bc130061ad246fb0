//! Shared by the integration tests: one future run on a fresh simulation.

#![allow(dead_code)]

use std::future::Future;

use sim_rt::runtime::{Builder, UnhandledPanic};
use sim_rt::sim::NetConfig;

/// Runs `future` on a fresh simulation with the given seed.
pub fn sim<F: Future>(seed: u64, future: F) -> F::Output {
    sim_on(Builder::new_current_thread().seed(seed), future)
}

/// Runs `future` on a fresh simulation with the given seed, where a
/// spawned task's panic does not fail the simulation.
pub fn sim_ignoring_panics<F: Future>(seed: u64, future: F) -> F::Output {
    sim_on(
        Builder::new_current_thread()
            .seed(seed)
            .unhandled_panic(UnhandledPanic::Ignore),
        future,
    )
}

/// Runs `future` on a fresh simulation with seed 0 and the given network.
pub fn sim_with_network<F: Future>(config: NetConfig, future: F) -> F::Output {
    sim_on(
        Builder::new_current_thread().seed(0).network(config),
        future,
    )
}

/// Runs `future` on a fresh simulation that `builder` builds.
pub fn sim_on<F: Future>(builder: &mut Builder, future: F) -> F::Output {
    builder
        .build()
        .expect("building a simulation cannot fail")
        .block_on(future)
}
