//! The guide's chapters (`docs/src/*.md`) and the README as doctests, so
//! that `cargo test` compiles every Rust snippet in them and runs those
//! not marked `no_run`: a snippet cannot drift from the API.
//!
//! Built only when rustdoc collects doctests (`cfg(doctest)`). The marks
//! on a block, as they read in the Markdown:
//!
//! - `rust,test_harness`: built with `--test`, so its `#[test]` and
//!   `#[sim_rt::test]` functions run (plain doctests drop them);
//! - `rust,no_run`: compiled, not run (a global subscriber, a test that
//!   would wait an hour on real tokio);
//! - lines starting with `# `: stand-ins and assertions, hidden by rustdoc
//!   and by mdBook alike;
//! - `toml`, `sh`, `text`: not Rust. A block with no language would be
//!   taken for Rust, so every block names one (`tests/guide.rs` checks
//!   it, and that every chapter is listed below).

macro_rules! chapters {
    ($($module:ident = $file:literal,)*) => {
        $(
            #[doc = include_str!(concat!("../../docs/src/", $file))]
            mod $module {}
        )*
    };
}

#[doc = include_str!("../../README.md")]
mod readme {}

chapters! {
    introduction = "introduction.md",
    swap = "swap.md",
    whole_graph = "whole-graph.md",
    simulation = "simulation.md",
    api = "api.md",
    disk = "disk.md",
    runs = "runs.md",
    environment = "environment.md",
    no_escape = "no-escape.md",
    exploring = "exploring.md",
    property_tests = "property-tests.md",
    liveness = "liveness.md",
    failures = "failures.md",
    shrinking = "shrinking.md",
    failure_in_words = "failure-in-words.md",
    failure_drawn = "failure-drawn.md",
    conformance = "conformance.md",
    examples = "examples.md",
    effectiveness = "effectiveness.md",
    performance = "performance.md",
    layout = "layout.md",
}
