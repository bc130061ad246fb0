//! The lockfile swap, without cargo: a closure stands in for `cargo update
//! -p tokio` (the re-seed) and writes to the workspace's `Cargo.lock` stand
//! in for the cargo run.

use std::fs::{self, File};
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use cargo_sim::lockfile::{Held, LockDir, Swap};
use tempfile::TempDir;

const COMMITTED: &[u8] = b"# committed\n[[package]]\nname = \"tokio\"\nversion = \"1.54.1\"\n";

/// A workspace with `committed` as its `Cargo.lock` (none if `None`), its
/// target's `sim` directory, the lock directory of the two, and how many
/// times a re-seed ran.
struct Fixture {
    _tmp: TempDir,
    lock: PathBuf,
    dir: LockDir,
    calls: AtomicUsize,
}

impl Fixture {
    /// Swaps the simulated lockfile in under `held`; the re-seed, if one
    /// is needed, writes `seed` and counts itself.
    fn swap_in<'h>(&self, held: &'h Held, seed: &[u8]) -> Swap<'h> {
        self.dir
            .swap_in(held, reseed(&self.lock, &self.calls, seed))
            .unwrap()
    }

    /// How many times a re-seed ran.
    fn calls(&self) -> usize {
        self.calls.load(Ordering::SeqCst)
    }

    /// After a run: the committed lockfile is back, byte for byte and with
    /// its old time, and the simulated one holds `sim`.
    fn assert_committed_back(&self, sim: &[u8]) {
        assert_eq!(fs::read(&self.lock).unwrap(), COMMITTED);
        assert_eq!(time(&self.lock), an_old_time());
        assert_eq!(fs::read(self.dir.sim_lock()).unwrap(), sim);
    }
}

fn fixture(committed: Option<&[u8]>) -> Fixture {
    let tmp = tempfile::tempdir().unwrap();
    let ws = tmp.path().join("ws");
    fs::create_dir(&ws).unwrap();
    let lock = ws.join("Cargo.lock");
    if let Some(bytes) = committed {
        fs::write(&lock, bytes).unwrap();
        // An old time, so that a rewrite would show.
        set_time(&lock, an_old_time());
    }
    let dir = LockDir::new(
        &tmp.path().join("target/sim"),
        &ws,
        Path::new("/repo/sim-tokio"),
    );
    Fixture {
        _tmp: tmp,
        lock,
        dir,
        calls: AtomicUsize::new(0),
    }
}

fn an_old_time() -> SystemTime {
    UNIX_EPOCH + Duration::new(1_600_000_000, 5)
}

fn set_time(path: &Path, t: SystemTime) {
    File::options()
        .write(true)
        .open(path)
        .unwrap()
        .set_modified(t)
        .unwrap();
}

fn time(path: &Path) -> SystemTime {
    fs::metadata(path).unwrap().modified().unwrap()
}

/// The re-seed: counts its calls and writes `lock` over the workspace's.
fn reseed<'a>(
    path: &'a Path,
    calls: &'a AtomicUsize,
    lock: &'a [u8],
) -> impl FnOnce() -> io::Result<()> + 'a {
    move || {
        calls.fetch_add(1, Ordering::SeqCst);
        fs::write(path, lock)
    }
}

#[test]
fn the_committed_lock_comes_back_byte_for_byte_and_the_sim_lock_is_kept() {
    let f = fixture(Some(COMMITTED));

    // First run: seeded from the committed lockfile.
    let held = f.dir.hold().unwrap();
    let swap = f.swap_in(&held, b"sim 1");
    assert_eq!(f.calls(), 1);
    assert_eq!(fs::read(&f.lock).unwrap(), b"sim 1");
    swap.restore().unwrap();
    f.assert_committed_back(b"sim 1");

    // Second run: the saved one is put in place, no re-seed; cargo updates
    // it, and the update is kept.
    let swap = f.swap_in(&held, b"never");
    assert_eq!(f.calls(), 1);
    assert_eq!(fs::read(&f.lock).unwrap(), b"sim 1");
    fs::write(&f.lock, b"sim 2").unwrap();
    swap.restore().unwrap();
    f.assert_committed_back(b"sim 2");

    // The committed lockfile changes (a real build, a commit): re-seeded.
    fs::write(&f.lock, b"# committed, v2\n").unwrap();
    let swap = f.swap_in(&held, b"sim 3");
    assert_eq!(f.calls(), 2);
    swap.restore().unwrap();
    assert_eq!(fs::read(&f.lock).unwrap(), b"# committed, v2\n");
    assert_eq!(fs::read(f.dir.sim_lock()).unwrap(), b"sim 3");
}

#[test]
fn the_sim_lock_keeps_its_own_time_in_the_workspace() {
    // What compares times (a build script without rerun-if-changed) sees
    // the simulated lockfile as it was when saved, not as new on each run.
    let f = fixture(Some(COMMITTED));
    let held = f.dir.hold().unwrap();
    f.swap_in(&held, b"sim").restore().unwrap();
    let saved = UNIX_EPOCH + Duration::from_secs(1_650_000_000);
    set_time(&f.dir.sim_lock(), saved);
    let swap = f.swap_in(&held, b"never");
    assert_eq!(time(&f.lock), saved);
    swap.restore().unwrap();
    assert_eq!(time(&f.dir.sim_lock()), saved);
}

#[test]
fn a_panic_during_the_run_puts_the_committed_lock_back() {
    let f = fixture(Some(COMMITTED));
    let held = f.dir.hold().unwrap();
    let panicked = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let _swap = f.swap_in(&held, b"sim");
        panic!("cargo-sim has a bug");
    }));
    assert!(panicked.is_err());
    // What cargo made of the seed is kept.
    f.assert_committed_back(b"sim");
}

#[test]
fn a_failed_reseed_restores_and_keeps_nothing() {
    let f = fixture(Some(COMMITTED));
    let held = f.dir.hold().unwrap();
    let result = f.dir.swap_in(&held, || {
        fs::write(&f.lock, b"half updated")?;
        Err(io::Error::other("offline and online failed"))
    });
    assert_eq!(result.unwrap_err().to_string(), "offline and online failed");
    assert_eq!(fs::read(&f.lock).unwrap(), COMMITTED);
    assert!(!f.dir.sim_lock().exists());
    // So the next run seeds again.
    f.swap_in(&held, b"sim").restore().unwrap();
    assert_eq!(f.calls(), 1);
}

#[test]
fn without_a_committed_lock_the_one_cargo_made_is_removed() {
    let f = fixture(None);
    let held = f.dir.hold().unwrap();
    let swap = f.swap_in(&held, b"never");
    // Nothing to seed from: cargo resolves with the patch by itself.
    assert_eq!(f.calls(), 0);
    assert!(!f.lock.exists());
    fs::write(&f.lock, b"made by cargo").unwrap();
    swap.restore().unwrap();
    assert!(!f.lock.exists());
    assert_eq!(fs::read(f.dir.sim_lock()).unwrap(), b"made by cargo");

    // The next run starts from it.
    let swap = f.swap_in(&held, b"never");
    assert_eq!(fs::read(&f.lock).unwrap(), b"made by cargo");
    swap.restore().unwrap();
    assert!(!f.lock.exists());
}

#[test]
fn the_sim_lock_of_another_workspace_is_not_used() {
    // Two workspaces with one target directory (CARGO_TARGET_DIR).
    let f = fixture(Some(COMMITTED));
    let other_ws = f.lock.parent().unwrap().with_file_name("other");
    fs::create_dir(&other_ws).unwrap();
    fs::write(other_ws.join("Cargo.lock"), COMMITTED).unwrap();
    let sim_dir = f.dir.sim_lock().parent().unwrap().to_path_buf();
    let other = LockDir::new(&sim_dir, &other_ws, Path::new("/repo/sim-tokio"));
    let other_sim_tokio = LockDir::new(
        &sim_dir,
        f.lock.parent().unwrap(),
        Path::new("/elsewhere/sim-tokio"),
    );
    let held = f.dir.hold().unwrap();
    for (dir, lock) in [
        (&f.dir, f.lock.clone()),
        (&other, other_ws.join("Cargo.lock")),
        (&other_sim_tokio, f.lock.clone()),
    ] {
        dir.swap_in(&held, reseed(&lock, &f.calls, b"sim"))
            .unwrap()
            .restore()
            .unwrap();
    }
    assert_eq!(f.calls(), 3);
}

#[test]
fn a_target_directory_cleaned_during_the_run_costs_only_a_reseed() {
    let f = fixture(Some(COMMITTED));
    let held = f.dir.hold().unwrap();
    let swap = f.swap_in(&held, b"sim");
    // `cargo clean` while cargo runs.
    fs::remove_dir_all(f.dir.sim_lock().parent().unwrap()).unwrap();
    swap.restore().unwrap();
    f.assert_committed_back(b"sim");
}

#[test]
fn a_killed_run_is_undone_by_the_next() {
    let f = fixture(Some(COMMITTED));
    {
        let held = f.dir.hold().unwrap();
        let swap = f.swap_in(&held, b"sim");
        // kill -9: nothing runs after this point.
        std::mem::forget(swap);
    }
    assert_eq!(fs::read(&f.lock).unwrap(), b"sim");
    let _held = f.dir.hold().unwrap();
    assert_eq!(fs::read(&f.lock).unwrap(), COMMITTED);
    assert_eq!(time(&f.lock), an_old_time());

    // Also when there was no committed lockfile.
    let f = fixture(None);
    {
        let held = f.dir.hold().unwrap();
        let swap = f.swap_in(&held, b"never");
        fs::write(&f.lock, b"made by cargo").unwrap();
        std::mem::forget(swap);
    }
    let _held = f.dir.hold().unwrap();
    assert!(!f.lock.exists());
}

#[test]
fn two_runs_take_turns() {
    let f = fixture(Some(COMMITTED));
    let held = f.dir.hold().unwrap();
    let (tx, rx) = mpsc::channel();
    std::thread::scope(|s| {
        s.spawn(|| {
            let _second = f.dir.hold().unwrap();
            tx.send(()).unwrap();
        });
        assert!(
            rx.recv_timeout(Duration::from_millis(300)).is_err(),
            "the second run got the lock while the first held it"
        );
        drop(held);
        rx.recv_timeout(Duration::from_secs(10))
            .expect("the second run gets the lock once the first lets go");
    });
}
