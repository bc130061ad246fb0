//! The crates.io crate queue-file (the version the workspace's lockfile
//! pins; `examples` depends on it), its own integration tests run inside a
//! simulation, and a copy of it with a planted missing sync explored under
//! host resets.
//!
//! At run time the harness copies the package from cargo's registry cache
//! into a scratch workspace, `<target>/crate-suites/queue-file/` (nothing
//! of queue-file's is committed here), as three members:
//!
//! - `queue-file-real`: the package's `src/` and `tests/` as published,
//!   its tests on the real disk (the baseline);
//! - `queue-file-sim`: the same, each test file opened by `use
//!   sim_rt::test;`, so every `#[test]` in it (quickcheck's `#[quickcheck]`
//!   ones included) is a `#[sim_rt::test]` and runs inside a fresh
//!   simulation, its `std::fs` calls on the host's simulated disk. The one
//!   edit to a test: test_case 2.x writes the built-in attribute by its full
//!   path on the cases of a synchronous function, which the import cannot
//!   shadow, so those functions (4 of them, 10 cases) get test_case's async
//!   form, `#[sim_rt::test] async fn` under their `#[test_case]` lines
//!   (`crate_suites::edit::async_test_cases`). Every test that runs must
//!   announce a simulation's seed, so a test left outside one fails the
//!   check. It also gets `explore.rs` (`tests/queue_file/explore.rs`), the
//!   exploration of `examples/tests/storage_crate.rs` (its module
//!   `storage_crate/scenario.rs`, copied) with the caller's directory sync;
//! - `queue-file-planted`: the crate with one planted durability bug (the
//!   `sync_data` that makes a write durable, deleted from the one function
//!   every `add` writes through), and the same `explore.rs`.
//!
//! and runs them with nested `cargo test`s in that workspace's own target
//! directory. The checks: each test passing on the real disk passes in the
//! simulation too, unless [`DIFFERENCES`] lists it with its reason; the
//! unmodified copy survives the exploration; the explorer finds the planted
//! bug, prints its reproduce line, and that line, pasted into `sh`,
//! replays the same failure at the same step.
//!
//! Cost: the nested builds compile sim-rt, the explorer and queue-file's
//! test dependencies once, into the scratch workspace's own target
//! directory (about 500 MB): the three tests take about a minute and a half
//! cold on 2 cores, and 10 seconds warm (queue-file's quickcheck tests are
//! the slowest on the real disk, with real fsyncs; in the simulation they
//! take under a second). The first run needs crates.io for queue-file's
//! test-only dependencies, which the workspace's lockfile does not pin.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::{Mutex, OnceLock};

use crate_suites::edit::Plant;
use crate_suites::libtest::{self, Outcome};
use crate_suites::{Member, Package, Scratch};

/// Tests whose outcome in the simulation differs from the real disk's, by
/// `file::test` (`test::iter_nth`), each with its reason. None: all of queue-file 2.0.0's 96
/// integration tests pass in both.
const DIFFERENCES: &[(&str, &str)] = &[];

/// The planted bug: queue-file's `QueueFileInner::write` (every element,
/// header slot and erase goes through it) without its `sync_data`, so an
/// `add` returns, and the writer acknowledges the element, before anything
/// of it is durable.
const MISSING_SYNC: Plant = Plant {
    file: "src/qio.rs",
    anchor: "\
        if self.sync_writes {
            if let Some(phase) = self.deferred_sync_phase {
                maybe_inject_failpoint(phase.failpoint_name())?;
            }
            self.file_mut()?.sync_data()?;
        }",
    replacement: "\
        if self.sync_writes {
            if let Some(phase) = self.deferred_sync_phase {
                maybe_inject_failpoint(phase.failpoint_name())?;
            }
            // Planted by crate-suites: the write is not synced.
        }",
    what: "`write` does not `sync_data` (a missing fsync)",
};

const REAL: &str = "queue-file-real";
const SIM: &str = "queue-file-sim";
const PLANTED: &str = "queue-file-planted";

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("crate-suites lives in the repository's root")
        .to_path_buf()
}

/// The scratch workspace, written once per process.
fn scratch() -> &'static Scratch {
    static SCRATCH: OnceLock<Result<Scratch, String>> = OnceLock::new();
    match SCRATCH.get_or_init(prepare) {
        Ok(s) => s,
        Err(e) => panic!("crate-suites: {e}"),
    }
}

fn prepare() -> Result<Scratch, String> {
    let repo = repo();
    let package = Package::locate(&repo, "queue-file")?;
    let tests = package.test_files()?;
    let read = |path: &Path| {
        std::fs::read_to_string(path).map_err(|e| format!("reading {}: {e}", path.display()))
    };
    let scenario = read(&repo.join("examples/tests/storage_crate/scenario.rs"))?;
    let explore = read(&repo.join("crate-suites/tests/queue_file/explore.rs"))?;
    let own = |with_suite: bool| Member {
        name: String::new(),
        simulated: with_suite,
        plant: None,
        tests: if with_suite { tests.clone() } else { vec![] },
        own_tests: vec![("explore".to_owned(), explore.clone())],
        files: vec![("storage_crate_scenario.rs".to_owned(), scenario.clone())],
    };
    let members = [
        Member {
            name: REAL.to_owned(),
            simulated: false,
            plant: None,
            tests: tests.clone(),
            own_tests: vec![],
            files: vec![],
        },
        Member {
            name: SIM.to_owned(),
            ..own(true)
        },
        Member {
            name: PLANTED.to_owned(),
            plant: Some(MISSING_SYNC),
            ..own(false)
        },
    ];
    let (scratch, notes) = Scratch::write(package, &repo, &members)?;
    eprintln!(
        "crate-suites: {} {} from {}, copied to {}",
        scratch.package.name,
        scratch.package.version,
        scratch.package.dir.display(),
        scratch.dir.display()
    );
    for note in notes {
        eprintln!("crate-suites: {note}");
    }
    Ok(scratch)
}

/// What a command printed, both streams.
struct Ran {
    success: bool,
    stdout: String,
    stderr: String,
}

impl Ran {
    fn all(&self) -> String {
        format!("{}\n{}", self.stdout, self.stderr)
    }
}

fn ran(out: Output) -> Ran {
    Ran {
        success: out.status.success(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// Runs `cmd` to its end. One at a time: the tests of this file share the
/// scratch workspace's target directory, and cargo would only wait for its
/// lock.
fn run(mut cmd: Command) -> Ran {
    static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    ran(cmd
        .output()
        .unwrap_or_else(|e| panic!("crate-suites: could not run {cmd:?}: {e}")))
}

/// Runs `cargo <args>` in the scratch workspace.
fn cargo(args: &[&str]) -> Ran {
    let mut cmd = scratch().cargo();
    cmd.args(args);
    run(cmd)
}

/// The outcomes of the package's tests in `member`, by `file::test`, and
/// which of them announced a simulation; one `cargo test` per test file (a
/// name may repeat across files, and libtest's lines do not say which
/// binary they come from), with the tests' output shown (sim-rt's seed
/// announcements go to it).
fn package_tests(member: &str) -> (Outcomes, BTreeSet<String>, String) {
    let mut outcomes = Outcomes::new();
    let mut announced = BTreeSet::new();
    let mut output = String::new();
    let files = scratch()
        .package
        .test_files()
        .expect("the package's tests were listed before");
    for file in &files {
        let r = cargo(&["test", "-p", member, "--test", file, "--", "--nocapture"]);
        let key = |name: &String| format!("{file}::{name}");
        outcomes.extend(
            libtest::outcomes(&r.stdout)
                .iter()
                .map(|(n, &o)| (key(n), o)),
        );
        announced.extend(libtest::announced(&r.stderr).iter().map(key));
        output.push_str(&r.all());
    }
    (outcomes, announced, output)
}

type Outcomes = BTreeMap<String, Outcome>;

fn tail(text: &str) -> String {
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(60)..].join("\n")
}

#[test]
fn its_own_tests_pass_inside_a_simulation_as_on_the_real_disk() {
    let (outside, _, real) = package_tests(REAL);
    let (inside, announced, sim) = package_tests(SIM);
    assert!(
        !outside.is_empty(),
        "no test ran on the real disk:\n{}",
        tail(&real)
    );
    assert!(
        !inside.is_empty(),
        "no test ran in the simulation:\n{}",
        tail(&sim)
    );
    let count = |o: &Outcomes, want| o.values().filter(|&&v| v == want).count();
    eprintln!(
        "crate-suites: queue-file's {} integration tests: on the real disk {} pass, {} fail; \
         in a simulation {} pass, {} fail; {} announced a simulation",
        outside.len(),
        count(&outside, Outcome::Pass),
        count(&outside, Outcome::Fail),
        count(&inside, Outcome::Pass),
        count(&inside, Outcome::Fail),
        announced.len()
    );

    let mut problems = Vec::new();
    for (name, &real) in &outside {
        let listed = DIFFERENCES.iter().find(|(n, _)| n == name);
        match (inside.get(name), listed) {
            (None, _) => problems.push(format!("{name}: not run in the simulation")),
            (Some(&sim), None) if sim != real => problems.push(format!(
                "{name}: {real:?} on the real disk, {sim:?} in the simulation, and not listed"
            )),
            (Some(&sim), Some(_)) if sim == real => problems.push(format!(
                "{name}: listed in DIFFERENCES, but {sim:?} in both now"
            )),
            _ => {}
        }
    }
    for (name, &sim) in &inside {
        if sim != Outcome::Ignored && !announced.contains(name) {
            problems.push(format!(
                "{name}: ran, but not in a simulation (no seed announced): a `#[test]` the \
                 `use sim_rt::test;` import did not reach"
            ));
        }
        if !outside.contains_key(name) {
            problems.push(format!("{name}: only in the simulation"));
        }
    }
    assert!(
        problems.is_empty(),
        "{}\n\nthe simulated run's output:\n{}",
        problems.join("\n"),
        tail(&sim)
    );
}

#[test]
fn the_unmodified_crate_survives_the_exploration() {
    let run = cargo(&["test", "-p", SIM, "--test", "explore", "--", "--nocapture"]);
    assert!(
        run.success,
        "the unmodified crate failed the exploration:\n{}",
        tail(&run.all())
    );
    let summary = run
        .stdout
        .lines()
        .find(|l| l.contains("no failure in 400 executions"))
        .unwrap_or_else(|| panic!("no report of 400 executions:\n{}", tail(&run.all())));
    eprintln!("crate-suites: {summary}");
}

#[test]
fn a_planted_missing_sync_is_found_and_replays_from_its_line() {
    let first = cargo(&["test", "-p", PLANTED, "--test", "explore"]);
    let text = first.all();
    assert!(
        !first.success,
        "the planted bug was not found:\n{}",
        tail(&text)
    );
    let found = text
        .lines()
        .find(|l| l.contains("found a failure in execution"))
        .unwrap_or_else(|| panic!("no failure report:\n{}", tail(&text)));
    assert!(text.contains("durability"), "{}", tail(&text));
    let line = libtest::reproduce_line(&text)
        .unwrap_or_else(|| panic!("no reproduce line:\n{}", tail(&text)));
    assert!(
        line.starts_with("SIM_REPLAY=") && line.contains(&format!("-p {PLANTED}")),
        "{line}"
    );
    let step = libtest::failing_step(&text);
    eprintln!("crate-suites: {}", found.trim());
    eprintln!("crate-suites: reproduce: {line}");

    // The line as a user pastes it, in the directory it was printed in.
    let s = scratch();
    let mut sh = Command::new("sh");
    sh.arg("-c").arg(&line);
    s.clean(&mut sh);
    let pasted = run(sh);
    let again = pasted.all();
    assert!(!pasted.success, "the pasted line passed:\n{}", tail(&again));
    assert!(
        again.contains(": replay with"),
        "the pasted line replayed the token:\n{}",
        tail(&again)
    );
    assert!(again.contains("durability"), "{}", tail(&again));
    assert_eq!(libtest::failing_step(&again), step, "{}", tail(&again));
    assert_eq!(libtest::reproduce_line(&again).as_deref(), Some(&*line));
}
