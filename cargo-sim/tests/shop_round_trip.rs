//! The acceptance test: examples/shop (axum, hyper, tonic, reqwest, tower
//! on tokio) under `cargo sim`, with nothing of the simulation written in
//! it. Ignored by default, since a cold run builds the shop's graph twice
//! (real and simulated, the simulated one with its dependencies optimized:
//! about 6 minutes on two cores, 3.5 of them the simulated build):
//!
//! ```sh
//! cargo test -p cargo-sim -- --ignored shop_round_trip
//! ```
//!
//! The copy of the shop has no `.cargo/` (so no sim.toml) and keeps the
//! shop's committed lockfile (the real build's); its target directory is `<target>/tmp/shop-round-trip`, kept between
//! runs.

use std::fs;
use std::path::Path;
use std::process::{Command, Output};
use std::time::Instant;

mod common;
use common::{cargo_program, command_in, compiled, copy_dir, repo, shown};

fn command(program: impl AsRef<std::ffi::OsStr>, ws: &Path) -> Command {
    command_in(
        program,
        ws,
        &Path::new(env!("CARGO_TARGET_TMPDIR")).join("shop-round-trip"),
    )
}

/// Runs `cmd`, printing how long it took (shown with `--nocapture`).
fn timed(what: &str, cmd: &mut Command) -> Output {
    let start = Instant::now();
    let out = cmd.output().unwrap();
    eprintln!("shop_round_trip: {what}: {:.0?}", start.elapsed());
    out
}

#[test]
#[ignore = "builds examples/shop twice, real and simulated: minutes"]
fn shop_round_trip() {
    let tmp = tempfile::tempdir().unwrap();
    let ws = tmp.path();
    // The shop as committed (its Cargo.lock included), without its
    // .cargo/sim.toml: nothing of the simulation is written in it, and it
    // names neither sim-rt nor the explorer (its simulated tests reach
    // them through `tokio::sim`).
    copy_dir(&repo().join("examples/shop"), ws, &[".cargo", "target"]);
    let text = fs::read_to_string(ws.join("Cargo.toml")).unwrap();
    assert!(
        !text.contains("path ="),
        "the shop names a path (of this repository):\n{text}"
    );
    assert!(
        ws.join("Cargo.lock").exists(),
        "examples/shop keeps its Cargo.lock (the real build's)"
    );
    let lock = ws.join("Cargo.lock");
    let committed = fs::read(&lock).unwrap();
    let cargo_sim = || {
        let mut cmd = command(env!("CARGO_BIN_EXE_cargo-sim"), ws);
        cmd.args(["sim", "test"]);
        cmd
    };

    let sim = timed("cargo sim test", &mut cargo_sim());
    assert!(sim.status.success(), "{}", shown(&sim));
    let out = String::from_utf8_lossy(&sim.stdout);
    // The explorer finds the planted bug (the test passes when it does).
    assert!(
        out.contains(
            "test the_planted_bug_reserves_an_order_twice_and_is_found_and_replayed ... ok"
        ),
        "{}",
        shown(&sim)
    );
    assert!(out.contains("test without_the_bug_no_order_is_reserved_twice ... ok"));
    assert!(!out.contains("an_order_is_reserved_once_over_localhost"));
    assert_eq!(fs::read(&lock).unwrap(), committed, "after cargo sim test");

    let real = timed("cargo test", command(cargo_program(), ws).arg("test"));
    assert!(real.status.success(), "{}", shown(&real));
    let out = String::from_utf8_lossy(&real.stdout);
    assert!(out.contains("test an_order_is_reserved_once_over_localhost ... ok"));
    assert!(!out.contains("the_planted_bug"));
    assert_eq!(fs::read(&lock).unwrap(), committed, "after cargo test");

    let again = timed("cargo sim test, again", &mut cargo_sim());
    assert!(again.status.success(), "{}", shown(&again));
    let compiled = compiled(&again);
    assert!(
        !compiled
            .iter()
            .any(|l| l.starts_with("Compiling axum ") || l.starts_with("Compiling tonic ")),
        "{}",
        shown(&again)
    );
    // Not just axum and tonic: nothing at all.
    assert_eq!(compiled, Vec::<String>::new(), "{}", shown(&again));
    assert_eq!(fs::read(&lock).unwrap(), committed, "after cargo sim test");
}
