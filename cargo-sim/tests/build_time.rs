//! How long a first simulated build takes against the real one, on a fresh
//! axum crate made here (its dependencies resolved afresh from crates.io),
//! one build after the other on the same machine. Ignored by default: it
//! builds the crate four times from scratch (minutes on two cores), and it
//! measures, it does not judge (times on a shared machine are not a test):
//!
//! ```sh
//! cargo test -p cargo-sim --test build_time -- --ignored --nocapture
//! ```
//!
//! It prints, in seconds: the real `cargo test --no-run`; `cargo sim test
//! --no-run` with the shared cache off (the first build on a machine that
//! never ran `cargo sim`); the same with a cache another workspace (a copy
//! of the fixture app) filled first (the first build of a second
//! workspace); and the second simulated build, which compiles nothing.
//! The guide's "How long the first build takes" has the figures.

use std::fs;
use std::path::Path;
use std::process::{Command, Output};
use std::time::Instant;

mod common;
use common::{cargo_program, command_in, compiled, copy_dir, shown};

/// Runs `cmd`, printing how long it took, and checks that it succeeded.
fn timed(what: &str, cmd: &mut Command) -> Output {
    let start = Instant::now();
    let out = cmd.output().unwrap();
    eprintln!("build_time: {what}: {:.1} s", start.elapsed().as_secs_f64());
    assert!(out.status.success(), "{what}: {}", shown(&out));
    out
}

/// A fresh crate on axum and tokio, with one simulated test.
fn axum_crate(dir: &Path) {
    fs::create_dir_all(dir.join("src")).unwrap();
    fs::create_dir_all(dir.join("tests")).unwrap();
    fs::write(
        dir.join("Cargo.toml"),
        r#"[package]
name = "axum-fresh"
version = "0.1.0"
edition = "2021"

[workspace]

[dependencies]
axum = "0.8"
tokio = { version = "1", features = ["full"] }

[lints.rust]
unexpected_cfgs = { level = "warn", check-cfg = ["cfg(sim)"] }
"#,
    )
    .unwrap();
    fs::write(
        dir.join("src/lib.rs"),
        r#"//! Hello over HTTP.
pub async fn serve(listener: tokio::net::TcpListener) {
    let app = axum::Router::new().route("/", axum::routing::get(|| async { "hello" }));
    axum::serve(listener, app).await.unwrap();
}
"#,
    )
    .unwrap();
    fs::write(
        dir.join("tests/sim.rs"),
        r#"#![cfg(sim)]
use tokio::io::{AsyncReadExt, AsyncWriteExt};

#[tokio::test]
async fn serves_hello() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:3000").await.unwrap();
    tokio::spawn(axum_fresh::serve(listener));
    let mut s = tokio::net::TcpStream::connect("127.0.0.1:3000").await.unwrap();
    s.write_all(b"GET / HTTP/1.1\r\nhost: a\r\nconnection: close\r\n\r\n").await.unwrap();
    let mut reply = String::new();
    s.read_to_string(&mut reply).await.unwrap();
    assert!(reply.ends_with("hello"), "{reply}");
}
"#,
    )
    .unwrap();
}

#[test]
#[ignore = "builds a fresh axum crate four times from scratch: minutes"]
fn first_build_times() {
    let tmp = tempfile::tempdir().unwrap();
    let ws = tmp.path().join("axum-fresh");
    axum_crate(&ws);
    let target = tmp.path().join("target");
    let cache = tmp.path().join("cache");
    let cmd = |program: &std::ffi::OsStr, ws: &Path| {
        let mut c = command_in(program, ws, &target);
        c.env("CARGO_SIM_CACHE", &cache);
        c
    };
    let cargo_sim = std::ffi::OsStr::new(env!("CARGO_BIN_EXE_cargo-sim"));
    // Resolved and downloaded first: the builds below compile only.
    timed(
        "cargo generate-lockfile",
        cmd(&cargo_program(), &ws).arg("generate-lockfile"),
    );
    timed("cargo fetch", cmd(&cargo_program(), &ws).arg("fetch"));
    timed(
        "real: cargo test --no-run",
        cmd(&cargo_program(), &ws).args(["test", "--no-run"]),
    );
    timed(
        "simulated, the shared cache off: cargo sim test --no-run",
        cmd(cargo_sim, &ws)
            .env("CARGO_SIM_CACHE", "off")
            .args(["sim", "test", "--no-run"]),
    );
    // Another workspace fills the cache; then this one's first simulated
    // build again, from an empty target directory.
    let other = tmp.path().join("other");
    copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/app"),
        &other,
        &[],
    );
    timed(
        "another workspace's simulated build (fills the cache)",
        cmd(cargo_sim, &other).args(["sim", "test", "--no-run"]),
    );
    fs::remove_dir_all(target.join("sim")).unwrap();
    timed(
        "simulated, the cache filled by another workspace: cargo sim test --no-run",
        cmd(cargo_sim, &ws).args(["sim", "test", "--no-run"]),
    );
    let again = timed(
        "simulated, again",
        cmd(cargo_sim, &ws).args(["sim", "test", "--no-run"]),
    );
    assert_eq!(compiled(&again), Vec::<String>::new(), "{}", shown(&again));
    let run = timed(
        "the simulated test",
        cmd(cargo_sim, &ws).args(["sim", "test"]),
    );
    assert!(
        String::from_utf8_lossy(&run.stdout).contains("test serves_hello ... ok"),
        "{}",
        shown(&run)
    );
}
