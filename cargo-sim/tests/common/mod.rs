//! Helpers shared by the integration tests that run cargo and `cargo sim`
//! on copies of workspaces.

// Each test crate that mounts this module uses only some of it.
#![allow(dead_code)]

use std::ffi::{OsStr, OsString};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// `from` copied to `to`, without `skip` (names at the top level).
pub fn copy_dir(from: &Path, to: &Path, skip: &[&str]) {
    fs::create_dir_all(to).unwrap();
    for entry in fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        if skip.iter().any(|s| entry.file_name() == *s) {
            continue;
        }
        let to = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &to, &[]);
        } else {
            fs::copy(entry.path(), to).unwrap();
        }
    }
}

/// A command in `ws` with the target directory `target`, the tests' shared
/// cache (`<target>/tmp/cargo-sim-cache`), and none of the environment that
/// would change what is built or run.
pub fn command_in(program: impl AsRef<OsStr>, ws: &Path, target: &Path) -> Command {
    let mut cmd = Command::new(program);
    cmd.current_dir(ws)
        .env("CARGO_TARGET_DIR", target)
        // The tests' own shared cache of dependencies' builds, not the
        // user's.
        .env(
            "CARGO_SIM_CACHE",
            Path::new(env!("CARGO_TARGET_TMPDIR")).join("cargo-sim-cache"),
        )
        .stdin(Stdio::null());
    for var in [
        "RUSTFLAGS",
        "RUSTDOCFLAGS",
        "CARGO_ENCODED_RUSTFLAGS",
        "CARGO_ENCODED_RUSTDOCFLAGS",
        "CARGO_BUILD_TARGET_DIR",
        "CARGO_SIM_TOKIO",
        "CARGO_SIM_COMMAND",
        "SIM_SEED",
        "SIM_REPLAY",
        "SIM_EXPLORER",
        "SIM_SEARCH",
        "SIM_EXECUTIONS",
        "SIM_JOBS",
    ] {
        cmd.env_remove(var);
    }
    cmd
}

/// The cargo that runs these tests.
pub fn cargo_program() -> OsString {
    std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into())
}

/// `PATH` with this build's `cargo-sim` first, so `cargo sim` finds it as
/// an installed one would be found.
pub fn path_with_cargo_sim() -> OsString {
    let bin_dir = Path::new(env!("CARGO_BIN_EXE_cargo-sim")).parent().unwrap();
    std::env::join_paths(
        std::iter::once(bin_dir.to_path_buf())
            .chain(std::env::split_paths(&std::env::var_os("PATH").unwrap())),
    )
    .unwrap()
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// The command's output, for assertion messages.
pub fn shown(o: &Output) -> String {
    format!(
        "status {}\n--- stdout\n{}\n--- stderr\n{}",
        o.status,
        stdout(o),
        stderr(o)
    )
}

/// The lines of cargo's `Compiling <crate> ...` in `o`'s error output.
pub fn compiled(o: &Output) -> Vec<String> {
    stderr(o)
        .lines()
        .map(str::trim)
        .filter(|l| l.starts_with("Compiling "))
        .map(str::to_string)
        .collect()
}

/// This repository's root.
pub fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .canonicalize()
        .unwrap()
}
