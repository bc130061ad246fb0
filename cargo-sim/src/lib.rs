//! `cargo sim`: run a crate's tests (or binary) with its whole dependency
//! graph on sim-tokio, with nothing written in its repository.
//!
//! ```sh
//! cargo install --path cargo-sim      # from this repository
//! cargo sim test                      # in the user's workspace
//! cargo sim test -p shop --seed 7 the_planted_bug -- --nocapture
//! cargo sim test --replay last        # the last failure of each test, again
//! cargo sim run --release
//! cargo sim nextest -p shop
//! ```
//!
//! A whole-graph simulated build patches crates.io's `tokio` with this
//! repository's `sim-tokio` (a package named `tokio`, version 1.99.0) and
//! sets `--cfg sim` (see the README's "The whole dependency graph").
//! `cargo sim test|run|nextest` runs `cargo test`, `cargo run` or `cargo
//! nextest run` with, on the command line:
//!
//! - `--config patch.crates-io.tokio.path="<sim-tokio>"`;
//! - `--cfg sim` for rustc and rustdoc: `--config build.rustflags=[...]`
//!   (and `build.rustdocflags`, for doc-tests), or, when the environment
//!   sets `RUSTFLAGS` (`RUSTDOCFLAGS`, or their `CARGO_ENCODED_` forms),
//!   which cargo prefers to the configuration, `--cfg sim` appended to it.
//!   `target.<triple>.rustflags` in a cargo configuration file also takes
//!   precedence over `build.rustflags`: with those, set `RUSTFLAGS`;
//! - `--config profile.dev.package."*".opt-level=2` (and `debug =
//!   "line-tables-only"`): the dependencies (every package that is not a
//!   workspace member, sim-rt included) build optimized in the dev profile
//!   while the workspace's own crates keep it as written, so an
//!   exploration of a service on hyper or tonic runs several times faster
//!   and the user's code stays debuggable; packages only build code uses
//!   (proc macros, build scripts' dependencies) stay unoptimized (see
//!   [`cargo::optimized_deps`]); `--no-optimize-deps` leaves it out;
//! - `--target-dir <target>/sim`, where `<target>` is the workspace's target
//!   directory (`--target-dir`, `CARGO_TARGET_DIR`, `build.target-dir` or
//!   `target/`), so the real and the simulated builds keep their artifacts
//!   and switching between them rebuilds nothing. The dependencies'
//!   builds are shared with other workspaces through a cache (see
//!   [`cache`]), so a second workspace compiles mostly its own crates.
//!
//! sim-tokio is found at `--sim-tokio DIR`, else `$CARGO_SIM_TOKIO`, else
//! where it was when cargo-sim was built (`<this repository>/sim-tokio`).
//!
//! # Options
//!
//! Every argument is cargo's (or, after `--`, the test binary's or the
//! program's, passed on untouched), except these, which set the variable the
//! simulator reads (see `explorer`'s docs for their values):
//!
//! | option | variable |
//! |---|---|
//! | `--seed N` (decimal or `0x` hex) | `SIM_SEED` |
//! | `--replay TOKEN\|last` | `SIM_REPLAY` |
//! | `--explorer E` | `SIM_EXPLORER` |
//! | `--search ses\|ss\|walk\|swarm\|adaptive` | `SIM_SEARCH` |
//! | `--executions N` | `SIM_EXECUTIONS` |
//! | `--jobs N` (cargo's build jobs stay `-j N`) | `SIM_JOBS` |
//! | `--sim-tokio DIR` | (where sim-tokio is) |
//! | `--no-optimize-deps` | (dependencies unoptimized in the dev profile) |
//!
//! A value the simulator would reject is a one-line error (exit code 2)
//! before anything is built. The test binaries also get `CARGO_SIM_COMMAND`,
//! the command that selects the same build (`cargo sim test --release
//! --features f`, see [`args::Invocation::reproduce_prefix`]), which the
//! simulator's reproduce lines start with.
//!
//! # Errors instead of a green run that simulated nothing
//!
//! - Before the build, `cargo metadata` with the patch must resolve `tokio`
//!   to sim-tokio and to no crates.io tokio 1.x: otherwise (nothing depends
//!   on tokio, or a requirement sim-tokio's version does not meet keeps
//!   crates.io's) the run is an error naming the crates involved, not
//!   cargo's warning that the patch "was not used in the crate graph".
//! - `cargo sim test` counts libtest's `running N tests` lines (doc-tests'
//!   included) as it streams cargo's output: when cargo succeeds but no test
//!   ran, it fails, saying whether the filter (named) matched nothing or the
//!   selected packages have no test under `--cfg sim`. (`--no-run` and
//!   `-- --list` are not checked; nextest fails on its own when no test
//!   runs.)
//!
//! # The lockfile
//!
//! The committed `Cargo.lock` is never changed. The simulated build
//! resolves tokio (and what sim-tokio depends on) with a lockfile of its
//! own, `<target>/sim/Cargo.lock`, seeded from the committed one: copied,
//! then `cargo update -p tokio` with the patch (offline first, then
//! online), so every other crate keeps its committed version; a package
//! whose committed pin is older than what sim-tokio's graph requires is
//! unlocked as well, and a requirement no version meets is an error naming
//! the package and both requirements (see [`seed`]). It is seeded again
//! when the committed lockfile (or the workspace, or sim-tokio's path) is
//! not the one it was seeded from (`<target>/sim/Cargo.lock.seed`); one
//! line says so, and `-v` shows cargo's own output of the seeding.
//!
//! For each run, cargo-sim records the committed lockfile in
//! `<target>/sim/Cargo.lock.swapped`, puts the simulated one in its place,
//! runs cargo, saves the simulated one back (cargo may have updated it),
//! and writes the committed one back byte for byte, with its modification
//! time (or removes the `Cargo.lock` cargo made, if there was none). This
//! is also done on an error, a panic, and Ctrl-C (cargo-sim outlives
//! SIGINT and SIGTERM while cargo runs, so that cargo stops and cargo-sim
//! restores); after a `kill -9`, the next `cargo sim` puts the committed
//! lockfile back from the record before anything else. Two `cargo sim`
//! runs with the same target directory take turns.
//!
//! **The hazard**: while `cargo sim` runs, the workspace's `Cargo.lock` is
//! the simulated one. A real cargo command started in the same workspace
//! meanwhile (an editor's rust-analyzer running `cargo metadata` or `cargo
//! check`, another terminal) sees it: it re-resolves tokio to crates.io's,
//! and may write that into the file, which cargo-sim then saves as the
//! simulated lockfile (the next `cargo sim` notices and re-seeds). The
//! committed lockfile is put back either way.
//!
//! This crate is the library behind the `cargo-sim` binary; its API is for
//! the binary and its tests, not a stable interface.
#![deny(missing_docs, rust_2018_idioms)]
#![warn(missing_debug_implementations)]

pub mod args;
pub mod cache;
pub mod cargo;
pub mod lockfile;
pub mod seed;
pub mod signals;

use std::ffi::OsString;
use std::fmt;
use std::path::{Path, PathBuf};

use self::args::{Invocation, Parsed, Subcommand, UsageError};
use self::cache::Units;
use self::cargo::{Cargo, Selection};
use self::lockfile::LockDir;

/// Where sim-tokio was when cargo-sim was built.
pub const BUILT_IN_SIM_TOKIO: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../sim-tokio");

/// `cargo sim --help`.
pub const HELP: &str = "\
cargo sim: run tests (or a binary) with the whole dependency graph on sim-tokio

Usage:
    cargo sim test    [CARGO TEST ARGS] [SIM OPTIONS] [-- TEST BINARY ARGS]
    cargo sim run     [CARGO RUN ARGS] [SIM OPTIONS] [-- PROGRAM ARGS]
    cargo sim nextest [CARGO NEXTEST RUN ARGS] [SIM OPTIONS] [-- ...]
    cargo sim help | --help | --version

Runs cargo test/run (or cargo nextest run) with crates.io's tokio patched by
sim-tokio and --cfg sim, in <target>/sim, with a Cargo.lock of its own
(<target>/sim/Cargo.lock, seeded from the committed one). The committed
Cargo.lock is put back byte for byte after the run; nothing in the
repository changes. Fails when the patch is unused, and when no test ran.

Dependencies build optimized: the dev profile (and test, which inherits it)
gets --config 'profile.dev.package.\"*\".opt-level=2' (with line tables for
debug information), so every package that is not a workspace member (hyper,
tonic, sim-rt...) is optimized and an exploration runs several times faster,
while your own crates keep the profile as written (unoptimized, debuggable)
and proc macros stay unoptimized. A --config of yours for the same key wins;
--no-optimize-deps leaves the profile alone.

The dependencies' builds are kept in a cache shared by your workspaces
($CARGO_SIM_CACHE, else ~/.cache/cargo-sim; CARGO_SIM_CACHE=off turns it
off), so another workspace's first simulated build compiles mostly its own
crates. Deleting the cache is always safe.

Sim options (each sets the variable the simulator reads):
    --seed N             SIM_SEED        base seed, decimal or 0x hex
    --replay TOKEN|last  SIM_REPLAY      replay a failure (last: each test's last)
    --explorer E         SIM_EXPLORER    rtc, rr, prr, random, pct[:d[:s]], or a test's own
    --search S           SIM_SEARCH      ses, ss, walk, swarm or adaptive
    --executions N       SIM_EXECUTIONS  execution budget
    --jobs N             SIM_JOBS        exploration threads (cargo's build jobs: -j N)

Other options:
    --sim-tokio DIR      where sim-tokio is (default: $CARGO_SIM_TOKIO, else the
                         path cargo-sim was built with)
    --no-optimize-deps   build the dependencies unoptimized too (the dev profile
                         as written, for every package)

Everything else before `--` is cargo's; everything after it, the test
binary's (or the program's). A test's reproduce line starts with
CARGO_SIM_COMMAND, the cargo sim command that selects the same build.

Hazard: while it runs, the workspace's Cargo.lock is the simulated one; a
real cargo command run in the same workspace meanwhile sees it.
";

/// Why `cargo sim` stops without running (or after running) cargo.
#[derive(Debug)]
pub enum Error {
    /// A command line that makes no sense: exit code 2.
    Usage(UsageError),
    /// Anything else: exit code 1.
    Failed(String),
}

impl Error {
    /// The process's exit code for it.
    pub fn exit_code(&self) -> i32 {
        match self {
            Error::Usage(_) => 2,
            Error::Failed(_) => 1,
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Usage(e) => e.fmt(f),
            Error::Failed(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for Error {}

impl From<UsageError> for Error {
    fn from(e: UsageError) -> Error {
        Error::Usage(e)
    }
}

impl From<std::io::Error> for Error {
    fn from(e: std::io::Error) -> Error {
        Error::Failed(e.to_string())
    }
}

/// Runs `cargo sim` with `args` (the arguments after the program's name),
/// returning the exit code: cargo's when it failed, 0 when it succeeded.
pub fn run(args: Vec<String>) -> Result<i32, Error> {
    let inv = match args::parse(args)? {
        Parsed::Help => {
            print!("{HELP}");
            return Ok(0);
        }
        Parsed::Version => {
            println!("cargo-sim {}", env!("CARGO_PKG_VERSION"));
            return Ok(0);
        }
        Parsed::Run(inv) => inv,
    };
    let cargo = Cargo::from_env();
    if inv.subcommand == Subcommand::Nextest {
        cargo.require_nextest()?;
    }
    let sim_tokio = locate_sim_tokio(
        inv.sim_tokio.as_deref(),
        std::env::var_os("CARGO_SIM_TOKIO"),
    )?;
    let workspace = cargo.workspace(&inv)?;
    let target_dir = match &inv.target_dir {
        Some(dir) => std::path::absolute(dir)?,
        None => workspace.target_dir.clone(),
    }
    .join("sim");
    let selection = Selection::new(&sim_tokio, |var| std::env::var_os(var));
    let mut env: Vec<(&str, OsString)> = inv
        .sim_env
        .iter()
        .map(|(var, value)| (*var, value.into()))
        .collect();
    let rustflags = std::env::var("RUSTFLAGS").ok();
    env.push((
        "CARGO_SIM_COMMAND",
        inv.reproduce_prefix(rustflags.as_deref()).into(),
    ));

    let dir = LockDir::new(&target_dir, &workspace.root, &sim_tokio);
    let held = dir.hold().map_err(|e| {
        Error::Failed(format!(
            "could not take {} (or undo an interrupted run's swap): {e}",
            target_dir.join("cargo-sim.lock").display()
        ))
    })?;
    // Not before: Ctrl-C stops a cargo sim that waits for another.
    signals::outlive_interrupts();
    let reseed = || seed::reseed(&cargo, &inv, &selection, &sim_tokio, dir.workspace_lock());
    let mut swap = dir.swap_in(&held, reseed)?;
    let check = || cargo.check_patch(&inv, &selection, &sim_tokio, &dir.sim_lock());
    let mut checked = check();
    if checked.is_err() && !swap.fresh() {
        // The saved simulated lockfile may be what is wrong (a manifest
        // changed since it was seeded): seeded again, the check says
        // what is left (a cause no lockfile fixes fails the same way).
        eprintln!(
            "cargo sim: the check of the simulated build failed with the saved lockfile; seeding              it again from the committed one"
        );
        checked = swap.reseed(reseed).and_then(|()| check());
    }
    let ran = checked.and_then(|metadata| {
        let build_only = cargo::build_only(&metadata);
        let shared = Shared::new(&sim_tokio, &metadata, &workspace.root);
        shared.restore(&target_dir);
        let ran = cargo.run(&inv, &selection, &build_only, &target_dir, &env);
        shared.keep(&target_dir);
        ran
    });
    swap.restore().map_err(|e| {
        Error::Failed(format!(
            "could not put the committed {} back: {e}; its bytes are in {}",
            dir.workspace_lock().display(),
            target_dir.join("Cargo.lock.swapped").display()
        ))
    })?;
    let ran = ran?;
    if !ran.status.success() {
        return Ok(exit_code(ran.status));
    }
    if inv.expects_tests() && ran.count.tests == 0 {
        return Err(Error::Failed(no_test_ran(&inv)));
    }
    Ok(0)
}

/// The shared cache of dependencies' builds for one run (see [`cache`]):
/// nothing when it is off.
struct Shared {
    dir: Option<PathBuf>,
    units: Units,
}

impl Shared {
    fn new(sim_tokio: &Path, metadata: &serde_json::Value, root: &Path) -> Shared {
        let rustc = std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
        Shared {
            dir: cache::directory(|v| std::env::var_os(v), &rustc, sim_tokio),
            units: Units::shared(metadata, root),
        }
    }

    /// Copies the cache's units that `target` lacks into it, saying how many.
    fn restore(&self, target: &Path) {
        let Some(dir) = &self.dir else { return };
        match cache::copy_units(dir, target, dir, &self.units) {
            Ok(0) => {}
            Ok(n) => eprintln!(
                "cargo sim: {n} builds of dependencies from the shared cache ({})",
                dir.display()
            ),
            Err(e) => eprintln!(
                "cargo sim: warning: could not read the shared cache {}: {e}",
                dir.display()
            ),
        }
    }

    /// Copies `target`'s units that the cache lacks into it.
    fn keep(&self, target: &Path) {
        let Some(dir) = &self.dir else { return };
        if let Err(e) = cache::copy_units(target, dir, dir, &self.units) {
            eprintln!(
                "cargo sim: warning: could not add to the shared cache {}: {e}",
                dir.display()
            );
        }
    }
}

/// sim-tokio's directory: `flag`, else `env` (`$CARGO_SIM_TOKIO`), else
/// [`BUILT_IN_SIM_TOKIO`]; an error naming the path and the two ways to
/// set it when there is no `Cargo.toml` there.
pub fn locate_sim_tokio(flag: Option<&Path>, env: Option<OsString>) -> Result<PathBuf, Error> {
    let (dir, from) = match (flag, env.filter(|e| !e.is_empty())) {
        (Some(dir), _) => (dir.to_path_buf(), "given with --sim-tokio"),
        (None, Some(dir)) => (PathBuf::from(dir), "from CARGO_SIM_TOKIO"),
        (None, None) => (
            PathBuf::from(BUILT_IN_SIM_TOKIO),
            "where it was when cargo-sim was built",
        ),
    };
    match dir.join("Cargo.toml").is_file() {
        true => Ok(dir.canonicalize()?),
        false => Err(Error::Failed(format!(
            "no sim-tokio at {} ({from}): give the directory of sim-rt's sim-tokio package with \
             --sim-tokio DIR or the CARGO_SIM_TOKIO environment variable",
            dir.display()
        ))),
    }
}

/// The message for a `cargo sim test` that ran no test.
pub fn no_test_ran(inv: &Invocation) -> String {
    let filters = inv.filters();
    let why = if !filters.names.is_empty() {
        format!("{filters} matched no test of the simulated build (--cfg sim)")
    } else if filters.any() {
        format!("{filters} left no test of the simulated build (--cfg sim) to run")
    } else {
        "the selected packages have no test under --cfg sim (simulated tests are usually in \
         files that start with #![cfg(sim)])"
            .to_string()
    };
    format!("no test ran: {why}; cargo sim fails rather than pass on nothing")
}

/// A child's exit status as this process's exit code: its code, or 128 +
/// the signal that ended it, as a shell reports it.
fn exit_code(status: std::process::ExitStatus) -> i32 {
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(signal) = status.signal() {
            return 128 + signal;
        }
    }
    status.code().unwrap_or(1)
}
