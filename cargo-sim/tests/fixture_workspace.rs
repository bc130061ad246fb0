//! `cargo sim` on small workspaces (tests/fixtures/), copied to temporary
//! directories: the lockfile round trip, the errors that replace silence,
//! the reproduce line, and Ctrl-C.
//!
//! Every cargo command runs offline (the fixture's committed lockfile names
//! versions of the main workspace's lockfile, so they are in cargo's cache)
//! and shares one target directory, `<target>/tmp/cargo-sim-fixtures`, so
//! sim-rt and tokio build once for all the tests (about a minute on two
//! cores, then seconds). The tests take turns ([`serial`]): each one's
//! commands then run back to back, as a user's would.

use std::fs::{self, File};
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

use tempfile::TempDir;

mod common;
use common::{
    cargo_program, command_in, compiled, copy_dir, path_with_cargo_sim, shown, stderr, stdout,
};

/// One test at a time: they share a target directory.
fn serial() -> MutexGuard<'static, ()> {
    static TURN: Mutex<()> = Mutex::new(());
    TURN.lock().unwrap_or_else(|e| e.into_inner())
}

fn target_dir() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join("cargo-sim-fixtures")
}

/// A copy of `tests/fixtures/<name>` in a temporary directory.
fn fixture(name: &str) -> TempDir {
    let tmp = tempfile::tempdir().unwrap();
    let from = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name);
    copy_dir(&from, tmp.path(), &[]);
    tmp
}

/// A command in `ws` with the fixtures' target directory, and none of the
/// environment that would change what is built or run.
fn command(program: impl AsRef<std::ffi::OsStr>, ws: &Path) -> Command {
    command_in(program, ws, &target_dir())
}

/// `cargo sim <args>` in `ws`, as cargo runs it (`cargo-sim sim <args>`).
fn cargo_sim(ws: &Path, args: &[&str]) -> Output {
    command(env!("CARGO_BIN_EXE_cargo-sim"), ws)
        .arg("sim")
        .args(args)
        .output()
        .unwrap()
}

/// `cargo <args>` in `ws`.
fn cargo(ws: &Path, args: &[&str]) -> Output {
    command(cargo_program(), ws).args(args).output().unwrap()
}

#[test]
fn sim_then_real_then_sim_keeps_the_committed_lock_and_rebuilds_nothing() {
    let _turn = serial();
    let ws = fixture("app");
    let lock = ws.path().join("Cargo.lock");
    let committed = fs::read(&lock).unwrap();

    let sim = cargo_sim(ws.path(), &["test", "--offline"]);
    assert!(sim.status.success(), "{}", shown(&sim));
    assert!(
        stdout(&sim).contains("test an_hour_passes_in_no_time ... ok"),
        "{}",
        shown(&sim)
    );
    assert!(
        !stdout(&sim).contains("a_millisecond_passes"),
        "{}",
        shown(&sim)
    );
    assert_eq!(fs::read(&lock).unwrap(), committed, "after cargo sim test");

    // The real build: crates.io's tokio, tests/real.rs; the simulated
    // tests are compiled out (what `cargo sim test` refuses to call green).
    let real = cargo(ws.path(), &["test", "--offline"]);
    assert!(real.status.success(), "{}", shown(&real));
    assert!(
        stdout(&real).contains("test a_millisecond_passes ... ok"),
        "{}",
        shown(&real)
    );
    assert!(!stdout(&real).contains("an_hour_passes_in_no_time"));
    assert_eq!(fs::read(&lock).unwrap(), committed, "after cargo test");

    // Back to the simulation: not a single crate is compiled again, the
    // fixture's own included (both builds keep their artifacts and their
    // lockfiles).
    let again = cargo_sim(ws.path(), &["test", "--offline"]);
    assert!(again.status.success(), "{}", shown(&again));
    assert!(stdout(&again).contains("test an_hour_passes_in_no_time ... ok"));
    assert_eq!(compiled(&again), Vec::<String>::new(), "{}", shown(&again));
    assert_eq!(fs::read(&lock).unwrap(), committed, "after cargo sim test");

    // And to the real build, which has nothing to rebuild either.
    let real = cargo(ws.path(), &["test", "--offline"]);
    assert!(real.status.success(), "{}", shown(&real));
    assert_eq!(compiled(&real), Vec::<String>::new(), "{}", shown(&real));
    assert_eq!(fs::read(&lock).unwrap(), committed, "after cargo test");
}

/// Each crate's optimization level in a `cargo sim test --no-run
/// --message-format=json` (cargo's `compiler-artifact` messages name every
/// unit's profile, fresh ones too), by target name; a target built twice
/// (a build script's dependency and a library's) lists each level once.
fn opt_levels(ws: &Path, extra: &[&str]) -> std::collections::BTreeMap<String, Vec<String>> {
    let mut args = vec!["test", "--offline", "--no-run", "--message-format=json"];
    args.extend(extra);
    let out = cargo_sim(ws, &args);
    assert!(out.status.success(), "{}", shown(&out));
    let mut levels = std::collections::BTreeMap::<String, Vec<String>>::new();
    for line in stdout(&out).lines() {
        let Ok(msg) = serde_json::from_str::<serde_json::Value>(line) else {
            continue;
        };
        if msg["reason"] != "compiler-artifact" {
            continue;
        }
        let name = msg["target"]["name"].as_str().unwrap().to_string();
        let level = msg["profile"]["opt_level"].as_str().unwrap().to_string();
        let seen = levels.entry(name).or_default();
        if !seen.contains(&level) {
            seen.push(level);
        }
    }
    levels
}

/// The simulated build optimizes the dependencies (sim-rt, sim-tokio and
/// crates.io's), not the workspace's own crate, which keeps the dev
/// profile as written, nor the build code (proc macros); `--no-optimize-deps`
/// leaves every crate at the dev profile.
#[test]
fn dependencies_build_optimized_and_the_workspace_as_written() {
    let _turn = serial();
    let ws = fixture("app");
    let lock = ws.path().join("Cargo.lock");
    let committed = fs::read(&lock).unwrap();
    let levels = opt_levels(ws.path(), &[]);
    for dep in ["sim_rt", "tokio", "slab"] {
        assert_eq!(
            levels.get(dep),
            Some(&vec!["2".to_string()]),
            "{dep}: {levels:?}"
        );
    }
    // Proc macros (and what only they use) as cargo builds build code:
    // unoptimized, since they run once per build.
    for build in ["sim_rt_macros", "linkme_impl", "proc_macro2"] {
        assert_eq!(
            levels.get(build),
            Some(&vec!["0".to_string()]),
            "{build}: {levels:?}"
        );
    }
    // The library and its two test targets.
    for own in ["fixture_app", "sim", "real"] {
        assert_eq!(
            levels.get(own),
            Some(&vec!["0".to_string()]),
            "{own}: {levels:?}"
        );
    }
    let plain = opt_levels(ws.path(), &["--no-optimize-deps"]);
    assert!(
        plain.values().all(|l| l == &["0"]),
        "with --no-optimize-deps: {plain:?}"
    );
    assert_eq!(
        plain.keys().collect::<Vec<_>>(),
        levels.keys().collect::<Vec<_>>()
    );
    assert_eq!(fs::read(&lock).unwrap(), committed);
}

#[test]
fn no_test_ran_is_a_failure_that_says_why() {
    let _turn = serial();
    let ws = fixture("app");
    let lock = ws.path().join("Cargo.lock");
    let committed = fs::read(&lock).unwrap();

    let filtered = cargo_sim(ws.path(), &["test", "--offline", "no_such_test"]);
    assert_eq!(filtered.status.code(), Some(1), "{}", shown(&filtered));
    assert!(
        stderr(&filtered).contains(
            "cargo sim: error: no test ran: the filter \"no_such_test\" matched no test of the \
             simulated build (--cfg sim)"
        ),
        "{}",
        shown(&filtered)
    );
    // cargo's own output was passed on, unchanged.
    assert!(stdout(&filtered).contains("running 0 tests"));

    // tests/real.rs is compiled out under --cfg sim.
    let none = cargo_sim(ws.path(), &["test", "--offline", "--test", "real"]);
    assert_eq!(none.status.code(), Some(1), "{}", shown(&none));
    assert!(
        stderr(&none).contains(
            "cargo sim: error: no test ran: the selected packages have no test under --cfg sim"
        ),
        "{}",
        shown(&none)
    );
    assert_eq!(fs::read(&lock).unwrap(), committed);
}

#[test]
fn an_unused_patch_is_an_error() {
    let _turn = serial();
    // Nothing depends on tokio (and there is no committed lockfile: the one
    // cargo makes is removed).
    let ws = fixture("no-tokio");
    let out = cargo_sim(ws.path(), &["test", "--offline"]);
    assert_eq!(out.status.code(), Some(1), "{}", shown(&out));
    assert!(
        stderr(&out).contains("is not used: nothing in the dependency graph depends on tokio 1.x"),
        "{}",
        shown(&out)
    );
    assert!(!ws.path().join("Cargo.lock").exists());

    // A requirement sim-tokio's version (1.99.0) does not meet.
    let ws = fixture("app");
    let manifest = ws.path().join("Cargo.toml");
    let pinned = fs::read_to_string(&manifest)
        .unwrap()
        .replace(r#"version = "1","#, r#"version = "=1.54.1","#);
    fs::write(&manifest, pinned).unwrap();
    let lock = ws.path().join("Cargo.lock");
    let committed = fs::read(&lock).unwrap();
    let out = cargo_sim(ws.path(), &["test", "--offline"]);
    assert_eq!(out.status.code(), Some(1), "{}", shown(&out));
    assert!(
        stderr(&out).contains(
            "is not used: the simulated build resolves crates.io tokio v1.54.1 (required by \
             fixture-app v0.1.0)"
        ),
        "{}",
        shown(&out)
    );
    assert!(!stderr(&out).contains("Compiling"), "{}", shown(&out));
    assert_eq!(fs::read(&lock).unwrap(), committed);
}

#[test]
fn the_reproduce_line_is_a_cargo_sim_command() {
    let _turn = serial();
    let ws = fixture("app");
    // Through cargo, as a user runs it: cargo finds cargo-sim on PATH.
    let path = path_with_cargo_sim();
    let out = command(cargo_program(), ws.path())
        .env("PATH", path)
        .args([
            "sim",
            "test",
            "--offline",
            "--profile",
            "dev",
            "--seed",
            "7",
        ])
        .args(["--test", "sim", "an_hour", "--", "--nocapture"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", shown(&out));
    assert!(
        stderr(&out).contains(
            "sim_rt: an_hour_passes_in_no_time: seed 7; this run again: SIM_SEED=7 cargo sim \
             test --profile dev -p fixture-app --test sim an_hour_passes_in_no_time -- --exact"
        ),
        "{}",
        shown(&out)
    );
}

/// A failing simulated test's reproduce line, pasted into a shell in the
/// workspace (with cargo-sim on PATH, as installed), replays the failure.
#[test]
fn a_failures_reproduce_line_pasted_replays_it() {
    let _turn = serial();
    let ws = fixture("app");
    let path = path_with_cargo_sim();
    let first = command(cargo_program(), ws.path())
        .env("PATH", &path)
        .env("FIXTURE_FAIL", "1")
        .args(["sim", "test", "--offline", "--test", "sim", "lost_update"])
        .output()
        .unwrap();
    assert!(!first.status.success(), "{}", shown(&first));
    let text = shown(&first);
    assert!(text.contains("lost update"), "{text}");
    let line = text
        .lines()
        .find_map(|l| l.trim().strip_prefix("reproduce: "))
        .unwrap_or_else(|| panic!("no reproduce line:\n{text}"))
        .to_string();
    assert!(
        line.starts_with("SIM_REPLAY=")
            && line.contains(
                " cargo sim test -p fixture-app --test sim lost_update_when_asked -- --exact"
            ),
        "{line}"
    );
    let pasted = command("sh", ws.path())
        .env("PATH", &path)
        .env("FIXTURE_FAIL", "1")
        .env("CARGO_NET_OFFLINE", "true")
        .args(["-c", &line])
        .output()
        .unwrap();
    let again = shown(&pasted);
    assert!(!pasted.status.success(), "{again}");
    assert!(again.contains("lost update"), "{again}");
    assert!(
        again.contains(": replay with"),
        "the pasted line replayed the token:\n{again}"
    );
    assert!(compiled(&pasted).is_empty(), "no rebuild:\n{again}");
}

#[cfg(unix)]
#[test]
fn ctrl_c_stops_cargo_and_the_committed_lock_comes_back() {
    use std::os::unix::process::CommandExt;

    let _turn = serial();
    let ws = fixture("app");
    let lock = ws.path().join("Cargo.lock");
    let committed = fs::read(&lock).unwrap();
    let mut child = command(env!("CARGO_BIN_EXE_cargo-sim"), ws.path())
        .args([
            "sim",
            "test",
            "--offline",
            "--test",
            "sim",
            "waits_when_asked",
        ])
        .env("FIXTURE_WAIT", "1")
        // Its own process group, as a terminal's foreground job.
        .process_group(0)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    /// The child's process group, killed when the test ends however it
    /// ends, so that a failed assertion leaves no cargo running.
    struct Group(libc::pid_t);
    impl Group {
        fn signal(&self, signal: libc::c_int) -> bool {
            // SAFETY: kill(2) on a process group this test made.
            unsafe { libc::kill(-self.0, signal) == 0 }
        }
    }
    impl Drop for Group {
        fn drop(&mut self) {
            self.signal(libc::SIGKILL);
        }
    }
    let group = Group(child.id() as libc::pid_t);
    let mut errors = child.stderr.take().unwrap();
    let errors = std::thread::spawn(move || {
        let mut s = String::new();
        std::io::Read::read_to_string(&mut errors, &mut s).ok();
        s
    });
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let started = lines
        .by_ref()
        .map_while(Result::ok)
        .any(|l| l == "running 1 test");
    if !started {
        panic!("the test never started: {}", errors.join().unwrap());
    }
    std::thread::sleep(Duration::from_millis(300));
    // Meanwhile the workspace's lockfile is the simulated one.
    let during = fs::read_to_string(&lock).unwrap();
    assert!(during.contains("name = \"sim-rt\""), "{during}");

    // Ctrl-C: SIGINT to the whole foreground group.
    assert!(group.signal(libc::SIGINT));
    let deadline = Instant::now() + Duration::from_secs(60);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if Instant::now() > deadline {
            panic!("cargo sim did not stop after SIGINT");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let errors = errors.join().unwrap();
    assert!(!status.success(), "{status}\n{errors}");
    assert_eq!(fs::read(&lock).unwrap(), committed, "{errors}");
    assert!(
        !target_dir().join("sim/Cargo.lock.swapped").exists(),
        "the swap record is gone once undone"
    );
    assert!(!errors.contains("could not put"), "{errors}");
}

#[test]
fn nextest_missing_is_a_clear_error() {
    let _turn = serial();
    // cargo alone on PATH, and a cargo home without binaries.
    let cargo = PathBuf::from(cargo_program());
    let Some(cargo_dir) = cargo.parent().filter(|d| d.is_absolute()) else {
        return; // $CARGO unset: cargo from PATH, which may hold nextest.
    };
    if cargo_dir.join("cargo-nextest").exists() {
        return;
    }
    let home = tempfile::tempdir().unwrap();
    let ws = fixture("app");
    let out = command(env!("CARGO_BIN_EXE_cargo-sim"), ws.path())
        .env("PATH", cargo_dir)
        .env("CARGO_HOME", home.path())
        .args(["sim", "nextest"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", shown(&out));
    assert!(
        stderr(&out).contains(
            "cargo sim: error: cargo nextest is not installed: install it with `cargo install \
             cargo-nextest --locked`"
        ),
        "{}",
        shown(&out)
    );
}

/// Whether `o`'s error output has lines of the seeding's own `cargo
/// update` (shown only with `-v`) or cargo's warning of an unused patch.
fn seeding_noise(o: &Output) -> Vec<String> {
    stderr(o)
        .lines()
        .map(str::trim)
        .filter(|l| {
            l.starts_with("Adding ")
                || l.starts_with("Updating tokio ")
                || l.contains("was not used in the crate graph")
        })
        .map(str::to_string)
        .collect()
}

/// A first `cargo sim test` on a machine whose cargo has never downloaded
/// sim-tokio's dependencies (an empty `CARGO_HOME`; crates.io reachable):
/// offline, cargo cannot resolve the patch and quietly keeps crates.io's
/// tokio, so the seeding goes online and the run passes the first time.
#[test]
fn a_fresh_download_cache_seeds_online_and_passes_the_first_time() {
    let _turn = serial();
    let home = tempfile::tempdir().unwrap();
    let ws = fixture("app");
    let lock = ws.path().join("Cargo.lock");
    let committed = fs::read(&lock).unwrap();
    let out = command(env!("CARGO_BIN_EXE_cargo-sim"), ws.path())
        .env("CARGO_HOME", home.path())
        .args(["sim", "test", "--test", "sim"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", shown(&out));
    assert!(
        stdout(&out).contains("test an_hour_passes_in_no_time ... ok"),
        "{}",
        shown(&out)
    );
    assert!(
        stderr(&out).contains(
            "cargo sim: seeded the simulated build's lockfile from the committed Cargo.lock \
             (tokio 1.54.1 -> sim-tokio 1.99.0)\n"
        ),
        "{}",
        shown(&out)
    );
    // Quiet: one line for the seeding, not cargo update's.
    assert_eq!(seeding_noise(&out), Vec::<String>::new(), "{}", shown(&out));
    assert!(
        home.path().join("registry").is_dir(),
        "the run used the empty CARGO_HOME"
    );
    assert_eq!(fs::read(&lock).unwrap(), committed);
}

/// A committed lockfile older than what sim-tokio's graph requires (libc
/// pinned at 0.2.100, sim-rt needs a later 0.2): the pin is unlocked in the
/// simulated lockfile only, and the run passes; a manifest requirement no
/// version can meet with sim-rt's is an error naming the package and both
/// requirements. The committed lockfile never changes.
#[test]
fn an_old_pin_is_unlocked_and_an_impossible_requirement_is_named() {
    let _turn = serial();
    let ws = fixture("app");
    let manifest = ws.path().join("Cargo.toml");
    let text = fs::read_to_string(&manifest).unwrap();
    fs::write(
        &manifest,
        text.replace("[dependencies]\n", "[dependencies]\nlibc = \"0.2\"\n"),
    )
    .unwrap();
    // The pin, as an old repository's lockfile has it.
    for args in [
        &["metadata", "--format-version", "1", "--offline"][..],
        &["update", "-p", "libc", "--precise", "0.2.100"],
    ] {
        let out = cargo(ws.path(), args);
        assert!(out.status.success(), "{}", shown(&out));
    }
    let lock = ws.path().join("Cargo.lock");
    let committed = fs::read(&lock).unwrap();
    assert!(String::from_utf8_lossy(&committed).contains("name = \"libc\"\nversion = \"0.2.100\""));

    let out = cargo_sim(ws.path(), &["test", "--test", "sim"]);
    assert!(out.status.success(), "{}", shown(&out));
    assert!(
        stdout(&out).contains("test an_hour_passes_in_no_time ... ok"),
        "{}",
        shown(&out)
    );
    assert!(
        stderr(&out).contains(
            "; unlocked for sim-tokio's graph, whose requirements the committed versions do not \
             meet: libc 0.2.100 -> 0.2."
        ),
        "{}",
        shown(&out)
    );
    assert_eq!(seeding_noise(&out), Vec::<String>::new(), "{}", shown(&out));
    assert_eq!(fs::read(&lock).unwrap(), committed);

    // Now the manifest itself pins libc: no lockfile can help. The saved
    // simulated lockfile no longer resolves, so it is seeded again, and
    // the error names both sides.
    fs::write(
        &manifest,
        fs::read_to_string(&manifest)
            .unwrap()
            .replace("libc = \"0.2\"", "libc = \"=0.2.100\""),
    )
    .unwrap();
    let out = cargo_sim(ws.path(), &["test", "--test", "sim"]);
    assert_eq!(out.status.code(), Some(1), "{}", shown(&out));
    let e = stderr(&out);
    assert!(
        e.contains("cargo sim: error: could not seed the simulated build's lockfile: libc is required as `^0.2.")
            && e.contains("` by sim-rt v0.1.0 (in sim-tokio's graph) and as `=0.2.100` by fixture-app v0.1.0: no version of libc meets both"),
        "{}",
        shown(&out)
    );
    assert!(compiled(&out).is_empty(), "{}", shown(&out));
    assert_eq!(fs::read(&lock).unwrap(), committed);
}

/// Interrupted while it seeds (Ctrl-C, or `kill -9` and a next run), `cargo
/// sim` leaves the committed lockfile as it was. A stand-in for cargo
/// (`$CARGO`) scribbles on `Cargo.lock` in its `update` and then hangs;
/// everything else goes to the real cargo.
#[cfg(unix)]
#[test]
fn a_run_interrupted_while_seeding_leaves_the_committed_lock() {
    use std::os::unix::fs::PermissionsExt;
    use std::os::unix::process::CommandExt;

    let _turn = serial();
    let tools = tempfile::tempdir().unwrap();
    let marker = tools.path().join("updating");
    let fake = tools.path().join("cargo");
    fs::write(
        &fake,
        format!(
            "#!/bin/sh\nif [ \"$1\" = update ]; then\n  echo half-written > Cargo.lock\n  touch \
             '{}'\n  exec sleep 600\nfi\nexec '{}' \"$@\"\n",
            marker.display(),
            Path::new(&cargo_program()).display()
        ),
    )
    .unwrap();
    fs::set_permissions(&fake, fs::Permissions::from_mode(0o755)).unwrap();

    for signal in [libc::SIGINT, libc::SIGKILL] {
        let ws = fixture("app");
        let lock = ws.path().join("Cargo.lock");
        let committed = fs::read(&lock).unwrap();
        let _ = fs::remove_file(&marker);
        let mut child = command(env!("CARGO_BIN_EXE_cargo-sim"), ws.path())
            .env("CARGO", &fake)
            .args(["sim", "test", "--offline"])
            .process_group(0)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let group = child.id() as libc::pid_t;
        let deadline = Instant::now() + Duration::from_secs(120);
        while !marker.exists() {
            assert!(Instant::now() < deadline, "the seeding never started");
            assert!(child.try_wait().unwrap().is_none(), "cargo sim ended first");
            std::thread::sleep(Duration::from_millis(20));
        }
        assert_eq!(fs::read(&lock).unwrap(), b"half-written\n");
        // SAFETY: kill(2) on the process group this test made.
        assert_eq!(unsafe { libc::kill(-group, signal) }, 0);
        let status = child.wait().unwrap();
        assert!(!status.success());
        let mut errors = String::new();
        std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut errors).unwrap();
        if signal == libc::SIGINT {
            // cargo sim outlived Ctrl-C and put the committed lockfile back.
            assert_eq!(fs::read(&lock).unwrap(), committed, "{errors}");
        } else {
            // Killed outright: the next run puts it back first, seeds with
            // the real cargo, and passes.
            let next = cargo_sim(ws.path(), &["test", "--offline", "--test", "sim"]);
            assert!(next.status.success(), "{}", shown(&next));
            assert!(
                stderr(&next).contains("which an interrupted cargo sim had left swapped"),
                "{}",
                shown(&next)
            );
            assert_eq!(fs::read(&lock).unwrap(), committed, "{}", shown(&next));
        }
    }
}

/// The dependencies' builds reach another workspace through the shared
/// cache: a second copy of the fixture, elsewhere, with a target directory
/// of its own, compiles only its own crate. Its own crate never comes
/// from the cache, even where its files are older than the first copy's
/// build (a second clone of one repository, on another branch): cargo
/// hashes a workspace's own packages by their path in the workspace, the
/// same in both copies, so only cargo-sim's rule keeps them apart.
#[test]
fn a_second_workspace_compiles_only_its_own_crate() {
    let _turn = serial();
    let first = fixture("app");
    let out = cargo_sim(first.path(), &["test", "--offline", "--test", "sim"]);
    assert!(out.status.success(), "{}", shown(&out));

    let second = fixture("app");
    let lib = second.path().join("src/lib.rs");
    let text = fs::read_to_string(&lib).unwrap();
    fs::write(&lib, text.replace("from_secs(secs)", "from_secs(secs * 2)")).unwrap();
    let old = std::time::UNIX_EPOCH + Duration::from_secs(1_000_000_000);
    for file in [
        "src/lib.rs",
        "tests/sim.rs",
        "tests/real.rs",
        "Cargo.toml",
        "Cargo.lock",
    ] {
        File::options()
            .write(true)
            .open(second.path().join(file))
            .unwrap()
            .set_modified(old)
            .unwrap();
    }
    let target = tempfile::tempdir().unwrap();
    let out = command_in(
        env!("CARGO_BIN_EXE_cargo-sim"),
        second.path(),
        target.path(),
    )
    .args(["sim", "test", "--offline", "--test", "sim"])
    .output()
    .unwrap();
    // Its own code ran: the nap is twice as long.
    assert!(!out.status.success(), "{}", shown(&out));
    assert!(
        stdout(&out).contains("test an_hour_passes_in_no_time ... FAILED"),
        "{}",
        shown(&out)
    );
    assert!(
        stderr(&out).contains("builds of dependencies from the shared cache"),
        "{}",
        shown(&out)
    );
    let compiled = compiled(&out);
    assert!(
        !compiled.is_empty()
            && compiled
                .iter()
                .all(|l| l.starts_with("Compiling fixture-app ")),
        "{}",
        shown(&out)
    );
}
