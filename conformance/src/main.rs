//! The conformance harness: tokio's own integration tests (`tests/*.rs` of
//! the published `tokio` package the workspace pins, from cargo's registry
//! cache) built against real tokio and under the whole-graph patch, each
//! test run alone in its own process with a time limit, the two outcomes
//! compared with the list of known differences (`conformance/known.toml`).
//!
//! ```text
//! cargo run -p conformance -- [--suite tokio-util] [--files 'sync_*,time_*'] [--jobs 2] [--timeout 30] [--check]
//! ```
//!
//! `--suite` runs another published package's integration tests the same
//! way (`tokio-util`, `tokio-stream`: the version the workspace's lockfile
//! pins), the package itself built against real tokio and under the patch,
//! with its own list (`conformance/known-<suite>.toml`) and table
//! (`conformance/RESULTS-<suite>.md`).
//!
//! It generates two scratch crates, `target/conformance/{real,sim}/` (see
//! [`scratch`]), builds each with `cargo build --tests --keep-going` (see
//! [`compile`]), lists each binary's tests and runs them (see [`run`]), and
//! writes the table (see [`report`]): `conformance/RESULTS.md` for a run of
//! every file, `target/conformance/RESULTS.md` for a selection. With
//! `--check` it exits non-zero when a test that passes on real tokio does
//! not pass on the simulator and the list does not name it.
//!
//! The only network it uses is cargo's, for the package registry (tokio's
//! dev-dependencies on the first run).

#![deny(missing_docs, rust_2018_idioms)]
#![warn(missing_debug_implementations)]

mod cfg;
mod compile;
mod glob;
mod known;
mod report;
mod run;
mod saved;
mod scratch;

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::thread;
use std::time::{Duration, Instant};

use crate::cfg::CfgSet;
use crate::compile::BuildOutcome;
use crate::glob::Selection;
use crate::known::Known;
use crate::report::{Counts, FileResult, RunInfo, TestResult, Verdict};
use crate::run::Outcome;
use crate::scratch::{Mode, TokioPackage};

const USAGE: &str = "\
usage: cargo run -p conformance -- [options]

  --suite NAME    whose integration tests: tokio (the default), tokio-util,
                  tokio-stream (a registry package the workspace pins)
  --files GLOBS   comma-separated globs of test files (stems), default `*`
  --jobs N        builds and tests at once, default 2
  --timeout SECS  time limit of one test, default 30
  --check         exit 1 when a test that passes on real tokio does not pass
                  on the simulator and conformance/known.toml does not list it
  --from-last-run make the table again from the last run's saved outcomes
                  (target/conformance/results.json) and the current list,
                  without building or running anything
  --out PATH      where to write the table (default: conformance/RESULTS.md
                  for every file, target/conformance/RESULTS.md otherwise)";

/// The command line.
#[derive(Debug)]
struct Options {
    suite: String,
    files: Selection,
    jobs: usize,
    timeout: Duration,
    check: bool,
    from_last_run: bool,
    out: Option<PathBuf>,
    command: String,
}

fn parse_args(args: &[String]) -> Result<Options, String> {
    let mut o = Options {
        suite: "tokio".to_owned(),
        files: Selection::all(),
        jobs: 2,
        timeout: Duration::from_secs(30),
        check: false,
        from_last_run: false,
        out: None,
        command: ["cargo run -p conformance --"]
            .into_iter()
            .chain(args.iter().map(String::as_str))
            .collect::<Vec<_>>()
            .join(" ")
            .trim_end_matches(" --")
            .to_owned(),
    };
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        let mut value = |name: &str| {
            it.next()
                .cloned()
                .ok_or_else(|| format!("{name} needs a value\n{USAGE}"))
        };
        match arg.as_str() {
            "--files" => o.files = Selection::parse(&value("--files")?),
            "--suite" => o.suite = value("--suite")?,
            "--jobs" => {
                o.jobs = value("--jobs")?
                    .parse()
                    .ok()
                    .filter(|&n| n > 0)
                    .ok_or("--jobs takes a positive number")?
            }
            "--timeout" => {
                let secs: u64 = value("--timeout")?
                    .parse()
                    .ok()
                    .filter(|&n| n > 0)
                    .ok_or("--timeout takes a positive number of seconds")?;
                o.timeout = Duration::from_secs(secs);
            }
            "--check" => o.check = true,
            "--from-last-run" => o.from_last_run = true,
            "--out" => o.out = Some(PathBuf::from(value("--out")?)),
            "-h" | "--help" => return Err(USAGE.to_owned()),
            other => return Err(format!("unknown argument `{other}`\n{USAGE}")),
        }
    }
    Ok(o)
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let options = match parse_args(&args) {
        Ok(o) => o,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::from(2);
        }
    };
    match harness(&options) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("conformance: {e}");
            ExitCode::from(2)
        }
    }
}

/// The repository's root (this crate's parent directory).
fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the conformance crate lives in the repository's root")
        .to_path_buf()
}

fn cargo() -> Command {
    Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
}

/// Returns whether the check (if asked for) holds.
fn harness(o: &Options) -> Result<bool, String> {
    let root = repo_root();
    let known_path = root.join("conformance").join(report::known_file(&o.suite));
    let known = Known::parse(
        &fs::read_to_string(&known_path)
            .map_err(|e| format!("reading {}: {e}", known_path.display()))?,
    )?;
    let (tokio, target_dir) = tokio_package(&root)?;
    let suite = if o.suite == "tokio" {
        tokio.clone()
    } else {
        TokioPackage::locate(&root, &o.suite)?
    };
    let base = if o.suite == "tokio" {
        target_dir.join("conformance")
    } else {
        target_dir.join("conformance").join(&o.suite)
    };
    let saved_path = base.join("results.json");
    let saved = if o.from_last_run {
        saved::from_json(
            &fs::read_to_string(&saved_path)
                .map_err(|e| format!("reading {}: {e}", saved_path.display()))?,
        )?
    } else {
        let saved = build_and_run(o, &root, &tokio, &suite, &base)?;
        fs::write(&saved_path, saved::to_json(&saved))
            .map_err(|e| format!("writing {}: {e}", saved_path.display()))?;
        saved
    };
    let results = &saved.files;
    let table = report::render(&known, results, &saved.info);
    let out = o.out.clone().unwrap_or_else(|| {
        if saved.all_files {
            root.join("conformance")
                .join(report::results_file(&o.suite))
        } else {
            base.join("RESULTS.md")
        }
    });
    fs::write(&out, &table).map_err(|e| format!("writing {}: {e}", out.display()))?;

    let total = Counts::total(&known, results);
    let mut unlisted = 0;
    for f in results {
        for t in &f.tests {
            match report::verdict(&known, &f.file, t) {
                Verdict::Unlisted => {
                    unlisted += 1;
                    println!(
                        "not on the list: {}::{}: {}",
                        f.file,
                        t.name,
                        t.sim.describe()
                    );
                }
                Verdict::PassesListed => {
                    println!("listed, and passing now: {}::{}", f.file, t.name)
                }
                _ => {}
            }
        }
    }
    println!("{}", report::totals_line(&total));
    println!("table: {}", out.display());
    Ok(!o.check || unlisted == 0)
}

/// Generates, builds and runs the selected files in both builds.
fn build_and_run(
    o: &Options,
    root: &Path,
    tokio: &TokioPackage,
    suite: &TokioPackage,
    base: &Path,
) -> Result<saved::Saved, String> {
    let files: Vec<String> = suite
        .test_files()?
        .into_iter()
        .filter(|f| o.files.matches(f))
        .collect();
    if files.is_empty() {
        return Err(format!("--files selects no {} test file", suite.name));
    }
    eprintln!(
        "conformance: {} {} from {}; {} test files",
        suite.name,
        suite.version,
        suite.dir.display(),
        files.len()
    );
    let host = CfgSet::parse(&output(
        Command::new(std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into()))
            .args(["--print", "cfg"]),
    )?);
    let sources = scratch::read_sources(&suite.dir.join("tests"))
        .map_err(|e| format!("reading {}'s tests: {e}", suite.name))?;
    let dev_deps = scratch::dev_dependencies(suite, &sources, &host)?;

    let mut phases = Vec::new();
    let mut builds = Vec::new();
    for mode in [Mode::Real, Mode::Sim] {
        let dir = base.join(mode.name());
        prepare(tokio, suite, mode, &dir, &dev_deps, &files, root)?;
        let start = Instant::now();
        eprintln!(
            "conformance: building {} ({} files) in {}",
            mode.name(),
            files.len(),
            dir.display()
        );
        let built = build(&dir, &scratch::crate_name(&suite.name, mode), o.jobs)?;
        let secs = start.elapsed().as_secs();
        eprintln!(
            "conformance: {} built {} of {} files in {secs} s",
            mode.name(),
            built.executables.len(),
            files.len()
        );
        phases.push((format!("build {}", mode.name()), secs));
        builds.push((dir, built));
    }

    let start = Instant::now();
    let results = run_all(o, &files, &builds)?;
    phases.push(("run".to_owned(), start.elapsed().as_secs()));
    Ok(saved::Saved {
        info: RunInfo {
            command: o.command.clone(),
            suite: suite.name.clone(),
            tokio_version: suite.version.clone(),
            timeout_secs: o.timeout.as_secs(),
            phases,
        },
        all_files: o.files.is_all(),
        files: results,
    })
}

/// Runs a command and returns its stdout, or says what failed.
fn output(cmd: &mut Command) -> Result<String, String> {
    let out = cmd
        .stderr(Stdio::inherit())
        .output()
        .map_err(|e| format!("running {cmd:?}: {e}"))?;
    if !out.status.success() {
        return Err(format!("{cmd:?} failed ({})", out.status));
    }
    String::from_utf8(out.stdout).map_err(|e| format!("{cmd:?}: {e}"))
}

/// The registry `tokio` the workspace's lockfile pins, from `cargo
/// metadata`, and the workspace's target directory.
fn tokio_package(root: &Path) -> Result<(TokioPackage, PathBuf), String> {
    let tokio = TokioPackage::locate(root, "tokio")?;
    let target_dir = tokio.target_dir.clone();
    Ok((tokio, target_dir))
}

/// Writes the scratch crate of `mode` and readies its lockfile.
fn prepare(
    tokio: &TokioPackage,
    suite: &TokioPackage,
    mode: Mode,
    dir: &Path,
    dev_deps: &str,
    files: &[String],
    root: &Path,
) -> Result<(), String> {
    let io = |what: &str, e: std::io::Error| format!("{what} in {}: {e}", dir.display());
    scratch::copy_tests(&suite.dir.join("tests"), &dir.join("tests"))
        .map_err(|e| io("copying the package's tests", e))?;
    let manifest = scratch::manifest(tokio, suite, mode, dev_deps, files);
    scratch::write_if_changed(&dir.join("Cargo.toml"), manifest.as_bytes())
        .map_err(|e| io("writing Cargo.toml", e))?;
    scratch::write_if_changed(
        &dir.join("lib.rs"),
        b"//! Generated: the package's test files are this crate's test targets.\n",
    )
    .map_err(|e| io("writing lib.rs", e))?;
    // Where the tests run: tokio's package root as its tests see it (one
    // reads `Cargo.toml` from the current directory).
    scratch::write_if_changed(
        &dir.join("package/Cargo.toml"),
        &fs::read(suite.dir.join("Cargo.toml"))
            .map_err(|e| io("reading the package's Cargo.toml", e))?,
    )
    .map_err(|e| io("writing package/Cargo.toml", e))?;
    let lock = dir.join("Cargo.lock");
    if mode == Mode::Sim {
        scratch::write_if_changed(
            &dir.join(".cargo/config.toml"),
            scratch::sim_config(&root.join("sim-tokio")).as_bytes(),
        )
        .map_err(|e| io("writing .cargo/config.toml", e))?;
    }
    if !lock.exists() {
        // The workspace's versions (tokio's own dependencies as the
        // workspace pins them); cargo adds the test-only crates.
        let from = match mode {
            Mode::Real => root.join("Cargo.lock"),
            Mode::Sim => dir.with_file_name(Mode::Real.name()).join("Cargo.lock"),
        };
        let from = if from.exists() {
            from
        } else {
            root.join("Cargo.lock")
        };
        fs::copy(&from, &lock).map_err(|e| io("copying Cargo.lock", e))?;
    }
    if mode == Mode::Sim && registry_tokio_locked(&fs::read_to_string(&lock).unwrap_or_default()) {
        // Cargo keeps a locked registry tokio rather than take the patch
        // (the guide's "The lockfile", docs/src/whole-graph.md): re-resolve tokio once.
        let status = child_cargo(dir)
            .args(["update", "-p", "tokio"])
            .status()
            .map_err(|e| io("cargo update -p tokio", e))?;
        if !status.success() {
            return Err(format!("cargo update -p tokio failed in {}", dir.display()));
        }
    }
    Ok(())
}

/// Whether a lockfile holds a `tokio` package from a registry.
fn registry_tokio_locked(lock: &str) -> bool {
    lock.split("[[package]]")
        .any(|p| p.contains("\nname = \"tokio\"\n") && p.contains("\nsource = \"registry+"))
}

/// A cargo command for a scratch crate: its own target directory, and no
/// flags inherited from the environment (the simulated crate's rustflags
/// come from its `.cargo/config.toml`, which `RUSTFLAGS` would override).
fn child_cargo(dir: &Path) -> Command {
    let mut cmd = cargo();
    for var in [
        "RUSTFLAGS",
        "CARGO_ENCODED_RUSTFLAGS",
        "CARGO_BUILD_RUSTFLAGS",
        "CARGO_TARGET_DIR",
        "CARGO_BUILD_TARGET_DIR",
    ] {
        cmd.env_remove(var);
    }
    cmd.current_dir(dir)
        .env("CARGO_TARGET_DIR", dir.join("target"));
    cmd
}

/// Builds every test target of a scratch crate, as far as each compiles.
fn build(dir: &Path, crate_name: &str, jobs: usize) -> Result<BuildOutcome, String> {
    let log = dir.join("build.log");
    let out = child_cargo(dir)
        .args([
            "build",
            "--tests",
            "--keep-going",
            "--message-format",
            "json",
            "-j",
        ])
        .arg(jobs.to_string())
        .stderr(fs::File::create(&log).map_err(|e| format!("creating {}: {e}", log.display()))?)
        .output()
        .map_err(|e| format!("running cargo build in {}: {e}", dir.display()))?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    let built = compile::parse_messages(&stdout, crate_name);
    if built.executables.is_empty()
        && built.errors.is_empty()
        && built.dependency_error.is_none()
        && !out.status.success()
    {
        return Err(format!(
            "cargo build failed in {} before compiling anything; see {}",
            dir.display(),
            log.display()
        ));
    }
    Ok(built)
}

/// Lists and runs every test of every file, in both builds.
fn run_all(
    o: &Options,
    files: &[String],
    builds: &[(PathBuf, BuildOutcome)],
) -> Result<Vec<FileResult>, String> {
    let (real_dir, real) = &builds[0];
    let (sim_dir, sim) = &builds[1];
    let not_built = |b: &BuildOutcome, f: &str| {
        b.errors.get(f).cloned().or_else(|| {
            (!b.executables.contains_key(f)).then(|| {
                b.dependency_error
                    .clone()
                    .unwrap_or_else(|| "not built (see the build's log)".to_owned())
            })
        })
    };
    let mut results = Vec::new();
    // (file index, test index, mode) for every run to make.
    let mut jobs = Vec::new();
    for file in files {
        let mut r = FileResult {
            file: file.clone(),
            real_error: not_built(real, file),
            sim_error: not_built(sim, file),
            ..FileResult::default()
        };
        let (dir, exe) = match (real.executables.get(file), sim.executables.get(file)) {
            (Some(exe), _) => (real_dir, exe),
            (None, Some(exe)) => (sim_dir, exe),
            (None, None) => {
                results.push(r);
                continue;
            }
        };
        let listing =
            |ignored| run::list(exe, dir, ignored).map_err(|e| format!("listing {file}: {e}"));
        let ignored: BTreeSet<String> = listing(true)?.into_iter().collect();
        r.ignored = ignored.len();
        for name in listing(false)?.into_iter().filter(|n| !ignored.contains(n)) {
            let i = r.tests.len();
            for (mode, present) in [
                (Mode::Real, r.real_error.is_none()),
                (Mode::Sim, r.sim_error.is_none()),
            ] {
                if present {
                    jobs.push((results.len(), i, mode));
                }
            }
            r.tests.push(TestResult {
                name,
                real: Outcome::NotBuilt,
                sim: Outcome::NotBuilt,
            });
        }
        results.push(r);
    }

    eprintln!("conformance: {} runs, {} at a time", jobs.len(), o.jobs);
    let next = AtomicUsize::new(0);
    let done = Mutex::new(Vec::with_capacity(jobs.len()));
    thread::scope(|s| {
        for _ in 0..o.jobs {
            s.spawn(|| loop {
                let k = next.fetch_add(1, Ordering::Relaxed);
                let Some(&(fi, ti, mode)) = jobs.get(k) else {
                    break;
                };
                let file = &results[fi].file;
                let test = &results[fi].tests[ti].name;
                let (dir, build) = if mode == Mode::Real {
                    (real_dir, real)
                } else {
                    (sim_dir, sim)
                };
                let exe = &build.executables[file];
                let log = dir
                    .join("logs")
                    .join(file)
                    .join(format!("{}.log", test.replace("::", "__")));
                // A test the harness could not run (no process, no log:
                // out of disk space, say) is that test's crash, not the
                // end of the run.
                let root = (dir.join("package"), "tokio");
                let outcome = run::run_one(exe, test, (&root.0, root.1), &log, o.timeout)
                    .unwrap_or_else(|e| {
                        Outcome::Crash(format!("the harness could not run it: {e}"))
                    });
                let mut d = done.lock().expect("a runner thread panicked");
                d.push((fi, ti, mode, outcome));
                if d.len() % 100 == 0 {
                    eprintln!("conformance: {} of {} runs done", d.len(), jobs.len());
                }
            });
        }
    });
    for (fi, ti, mode, outcome) in done.into_inner().expect("a runner thread panicked") {
        let t = &mut results[fi].tests[ti];
        match mode {
            Mode::Real => t.real = outcome,
            Mode::Sim => t.sim = outcome,
        }
    }
    Ok(results)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(s: &str) -> Vec<String> {
        s.split_whitespace().map(str::to_owned).collect()
    }

    #[test]
    fn options_parse_with_defaults() {
        let o = parse_args(&[]).unwrap();
        assert!(o.files.is_all() && o.jobs == 2 && !o.check);
        assert_eq!(o.timeout, Duration::from_secs(30));
        assert_eq!(o.command, "cargo run -p conformance");
        let o = parse_args(&args("--files sync_*,time_* --jobs 3 --timeout 5 --check")).unwrap();
        assert!(o.files.matches("time_sleep") && !o.files.matches("rt_common"));
        assert_eq!((o.jobs, o.timeout.as_secs(), o.check), (3, 5, true));
        assert_eq!(
            o.command,
            "cargo run -p conformance -- --files sync_*,time_* --jobs 3 --timeout 5 --check"
        );
    }

    #[test]
    fn bad_options_are_named() {
        assert!(parse_args(&args("--jobs 0"))
            .unwrap_err()
            .contains("positive"));
        assert!(parse_args(&args("--timeout"))
            .unwrap_err()
            .contains("needs a value"));
        assert!(parse_args(&args("--fast"))
            .unwrap_err()
            .contains("unknown argument `--fast`"));
    }

    #[test]
    fn a_registry_tokio_in_the_lock_is_seen() {
        let real = "[[package]]\nname = \"tokio\"\nversion = \"1.54.1\"\nsource = \"registry+https://github.com/rust-lang/crates.io-index\"\n";
        let sim = "[[package]]\nname = \"tokio\"\nversion = \"1.99.0\"\ndependencies = [\n]\n\n[[package]]\nname = \"tokio-test\"\nversion = \"0.4.6\"\nsource = \"registry+x\"\n";
        assert!(registry_tokio_locked(real));
        assert!(!registry_tokio_locked(sim));
    }
}
