//! No escape for files: `std::fs`, `tempfile` and libc's file calls inside
//! a simulation use the host's simulated disk, under the real files as a
//! read-only lower layer.
//!
//! Each test fails without the interposed file calls: a file written with
//! `std::fs` would land on the real disk, where `sim_rt::fs` does not see
//! it, survive host resets, be shared by hosts and outlive the run.
#![cfg(all(feature = "intercept", target_os = "linux", target_env = "gnu"))]

mod rt_support;

use std::io::{Read, Seek, SeekFrom, Write};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use rt_support::child_test;
use sim_rt::runtime::Builder;
use sim_rt::sim::{self, RealFiles};
use sim_rt::sync::Notify;

fn runtime() -> sim_rt::runtime::Runtime {
    Builder::new_current_thread().enable_all().build().unwrap()
}

/// A path under the real temporary directory that does not exist, unique to
/// this test and process.
fn real_scratch(test: &str) -> PathBuf {
    let path = std::env::temp_dir().join(format!("sim-rt-fs-std-{}-{test}", std::process::id()));
    assert!(!path.exists(), "{} exists before the test", path.display());
    path
}

#[test]
fn std_fs_and_tokio_fs_share_the_simulated_disk() {
    runtime().block_on(async {
        // std::fs writes, sim_rt::fs reads.
        std::fs::create_dir_all("/data/std").unwrap();
        std::fs::write("/data/std/a", b"from std").unwrap();
        assert_eq!(sim_rt::fs::read("/data/std/a").await.unwrap(), b"from std");
        let meta = sim_rt::fs::metadata("/data/std").await.unwrap();
        assert!(meta.is_dir());

        // sim_rt::fs writes, std::fs reads, through every kind of call.
        sim_rt::fs::write("/data/tokio", b"0123456789")
            .await
            .unwrap();
        assert_eq!(std::fs::read("/data/tokio").unwrap(), b"0123456789");
        let mut f = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open("/data/tokio")
            .unwrap();
        f.seek(SeekFrom::Start(2)).unwrap();
        f.write_all(b"ab").unwrap();
        let mut buf = [0; 3];
        f.read_exact_at(&mut buf, 1).unwrap();
        assert_eq!(&buf, b"1ab");
        f.write_all_at(b"Z", 9).unwrap();
        f.set_len(11).unwrap();
        assert_eq!(f.metadata().unwrap().len(), 11);
        let mut clone = f.try_clone().unwrap();
        clone.seek(SeekFrom::Start(0)).unwrap();
        let mut all = String::new();
        f.read_to_string(&mut all).unwrap(); // the clone shares the cursor
        assert_eq!(all, "01ab45678Z\0");
        f.sync_all().unwrap();
        f.lock().unwrap();
        f.unlock().unwrap();
        drop((f, clone));
        assert_eq!(
            sim_rt::fs::read("/data/tokio").await.unwrap(),
            b"01ab45678Z\0"
        );

        // Names: rename, hard link, copy, remove, read_dir, canonicalize.
        std::fs::rename("/data/std/a", "/data/std/b").unwrap();
        std::fs::hard_link("/data/std/b", "/data/std/c").unwrap();
        std::fs::copy("/data/tokio", "/data/std/d").unwrap();
        let names: Vec<String> = std::fs::read_dir("/data/std")
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        assert_eq!(names, ["b", "c", "d"]);
        let mut listed = sim_rt::fs::read_dir("/data/std").await.unwrap();
        let mut tokio_names = Vec::new();
        while let Some(e) = listed.next_entry().await.unwrap() {
            tokio_names.push(e.file_name().into_string().unwrap());
        }
        assert_eq!(tokio_names, names);
        assert_eq!(std::fs::metadata("/data/std/c").unwrap().nlink(), 2);
        assert_eq!(
            std::fs::canonicalize("/data/./std/../std/d").unwrap(),
            Path::new("/data/std/d")
        );
        std::fs::remove_dir_all("/data/std").unwrap();
        assert!(!sim_rt::fs::try_exists("/data/std").await.unwrap());
        let err = std::fs::read("/data/std/b").unwrap_err();
        assert_eq!(err.kind(), std::io::ErrorKind::NotFound);

        // What the simulated disk has not: symlinks.
        let err = std::os::unix::fs::symlink("/data/tokio", "/data/link").unwrap_err();
        assert_eq!(err.raw_os_error(), Some(libc::EPERM));
    });
}

use std::os::unix::fs::MetadataExt;

#[test]
fn real_files_are_a_read_only_lower_layer() {
    let me = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fs_std.rs");
    let real = std::fs::read(&me).unwrap();
    let scratch = real_scratch("lower");
    // A real fixture the simulation changes, set up outside it.
    std::fs::create_dir_all(&scratch).unwrap();
    let fixture = scratch.join("fixture");
    std::fs::write(&fixture, b"real").unwrap();
    let created = scratch.join("created-inside");

    runtime().block_on({
        let (me, fixture, created, scratch) = (
            me.clone(),
            fixture.clone(),
            created.clone(),
            scratch.clone(),
        );
        async move {
            // This test's own source reads through, with std and tokio.
            assert_eq!(std::fs::read(&me).unwrap(), real);
            assert_eq!(sim_rt::fs::read(&me).await.unwrap(), real);
            assert!(std::fs::metadata(&me).unwrap().is_file());

            // Changing a fixture copies it up; the real one is untouched.
            std::fs::OpenOptions::new()
                .append(true)
                .open(&fixture)
                .unwrap()
                .write_all(b"+sim")
                .unwrap();
            assert_eq!(std::fs::read(&fixture).unwrap(), b"real+sim");
            std::fs::write(&created, b"new").unwrap();
            let mut names: Vec<_> = std::fs::read_dir(&scratch)
                .unwrap()
                .map(|e| e.unwrap().file_name())
                .collect();
            names.sort();
            assert_eq!(names, ["created-inside", "fixture"]);

            // Removing a fixture hides it for good.
            std::fs::remove_file(&fixture).unwrap();
            assert!(!fixture.exists());
            assert!(std::fs::read_dir(&scratch)
                .unwrap()
                .all(|e| e.unwrap().file_name() != "fixture"));
        }
    });

    // Nothing reached the real disk.
    assert!(
        !created.exists(),
        "a file the simulation created is on the real disk"
    );
    assert_eq!(std::fs::read(&fixture).unwrap(), b"real");
    std::fs::remove_dir_all(&scratch).unwrap();
}

#[test]
fn a_directory_created_inside_is_not_on_the_real_disk() {
    let scratch = real_scratch("created");
    runtime().block_on({
        let scratch = scratch.clone();
        async move {
            std::fs::create_dir_all(scratch.join("a/b")).unwrap();
            std::fs::write(scratch.join("a/b/f"), b"x").unwrap();
            assert!(scratch.join("a/b/f").exists());
        }
    });
    assert!(
        !scratch.exists(),
        "{} reached the real disk",
        scratch.display()
    );
}

#[test]
fn hidden_real_files_leave_an_empty_disk() {
    let me = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fs_std.rs");
    Builder::new_current_thread()
        .enable_all()
        .real_files(RealFiles::Hidden)
        .build()
        .unwrap()
        .block_on(async move {
            assert_eq!(
                std::fs::read(&me).unwrap_err().kind(),
                std::io::ErrorKind::NotFound
            );
            let root: Vec<_> = std::fs::read_dir("/").unwrap().collect();
            assert!(root.is_empty(), "{root:?}");
            // /proc and /dev stay real.
            assert!(std::fs::metadata("/dev/null").is_ok());
        });
}

/// The content of `/db/synced` and `/db/unsynced` after the reset.
type Found = (Option<Vec<u8>>, Option<Vec<u8>>);

#[derive(Default)]
struct Boots {
    boots: u32,
    after_reset: Option<Found>,
}

/// How host `db` makes `/db/synced` durable.
#[derive(Clone, Copy, PartialEq)]
enum Durability {
    /// `sync_all` on the file and its directory.
    Fsync,
    /// Opened with `O_DSYNC` (each write durable), directory synced.
    Dsync,
    /// Not at all.
    None,
}

/// Host `db` writes `/db/synced` (made durable as `how` says) and
/// `/db/unsynced` (not synced) with std::fs, then is reset; on reboot it
/// reports what it finds.
fn unsynced_std_writes_are_lost(how: Durability) -> Found {
    let shared = Arc::new(Mutex::new(Boots::default()));
    let (set_up, rebooted) = (Arc::new(Notify::new()), Arc::new(Notify::new()));
    runtime().block_on({
        let shared = shared.clone();
        async move {
            let entry = {
                let (shared, set_up, rebooted) = (shared.clone(), set_up.clone(), rebooted.clone());
                move || {
                    let (shared, set_up, rebooted) =
                        (shared.clone(), set_up.clone(), rebooted.clone());
                    async move {
                        let boot = {
                            let mut s = shared.lock().unwrap();
                            s.boots += 1;
                            s.boots
                        };
                        if boot == 1 {
                            std::fs::create_dir("/db").unwrap();
                            std::fs::File::open("/").unwrap().sync_all().unwrap();
                            use std::os::unix::fs::OpenOptionsExt;
                            let dsync = if how == Durability::Dsync {
                                libc::O_DSYNC
                            } else {
                                0
                            };
                            let mut f = std::fs::OpenOptions::new()
                                .write(true)
                                .create(true)
                                .custom_flags(dsync)
                                .open("/db/synced")
                                .unwrap();
                            f.write_all(b"kept").unwrap();
                            if how == Durability::Fsync {
                                f.sync_all().unwrap();
                            }
                            if how != Durability::None {
                                std::fs::File::open("/db").unwrap().sync_all().unwrap();
                            }
                            std::fs::write("/db/unsynced", b"lost").unwrap();
                            set_up.notify_one();
                            std::future::pending::<()>().await;
                        } else {
                            let found = (
                                std::fs::read("/db/synced").ok(),
                                std::fs::read("/db/unsynced").ok(),
                            );
                            shared.lock().unwrap().after_reset = Some(found);
                            rebooted.notify_one();
                        }
                    }
                }
            };
            sim::host("db").start(entry);
            set_up.notified().await;
            sim::reset("db");
            rebooted.notified().await;
        }
    });
    let s = shared.lock().unwrap();
    assert_eq!(s.boots, 2);
    s.after_reset.clone().unwrap()
}

#[test]
fn a_host_reset_loses_unsynced_std_writes_and_keeps_synced_ones() {
    let kept = (Some(b"kept".to_vec()), None);
    assert_eq!(unsynced_std_writes_are_lost(Durability::Fsync), kept);
    assert_eq!(unsynced_std_writes_are_lost(Durability::Dsync), kept);
    // Without the syncs, the new file's name and data are lost too.
    assert_eq!(unsynced_std_writes_are_lost(Durability::None), (None, None));
}

#[test]
fn a_std_file_opened_inside_converts_to_a_tokio_file() {
    use sim_rt::io::{AsyncReadExt, AsyncWriteExt};
    runtime().block_on(async {
        let mut std_file = std::fs::File::create("/converted").unwrap();
        std_file.write_all(b"std ").unwrap();
        let mut file = sim_rt::fs::File::from_std(std_file);
        file.write_all(b"then tokio").await.unwrap();
        file.sync_all().await.unwrap();
        drop(file);
        let mut s = String::new();
        sim_rt::fs::File::from(std::fs::File::open("/converted").unwrap())
            .read_to_string(&mut s)
            .await
            .unwrap();
        assert_eq!(s, "std then tokio");
    });
}

#[test]
fn a_simulated_file_maps_only_as_a_copy() {
    use std::os::fd::AsRawFd;
    runtime().block_on(async {
        std::fs::write("/mapped", b"bytes on the simulated disk").unwrap();
        let f = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open("/mapped")
            .unwrap();
        let len = 27;
        // SAFETY: plain mmap calls on an open descriptor; unmapped below.
        unsafe {
            let private = libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ,
                libc::MAP_PRIVATE,
                f.as_raw_fd(),
                0,
            );
            assert_ne!(private, libc::MAP_FAILED);
            let seen = std::slice::from_raw_parts(private.cast::<u8>(), len);
            assert_eq!(seen, b"bytes on the simulated disk");
            libc::munmap(private, len);
            let shared = libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_SHARED,
                f.as_raw_fd(),
                0,
            );
            assert_eq!(shared, libc::MAP_FAILED);
            assert_eq!(
                std::io::Error::last_os_error().raw_os_error(),
                Some(libc::ENODEV)
            );
        }
    });
}

#[test]
fn hosts_do_not_see_each_others_files() {
    runtime().block_on(async {
        let a = sim::host("a").spawn(async {
            std::fs::write("/tmp/mine", b"a").unwrap();
            std::fs::read("/tmp/mine").unwrap()
        });
        assert_eq!(a.await.unwrap(), b"a");
        let b = sim::host("b").spawn(async { std::fs::metadata("/tmp/mine").is_err() });
        assert!(b.await.unwrap(), "host b sees host a's file");
        assert!(
            std::fs::metadata("/tmp/mine").is_err(),
            "the main host sees host a's file"
        );
    });
}

/// A program that uses `tempfile` and `std::fs`, and reports names and
/// inode numbers: all functions of the seed.
fn tempfile_program(seed: u64) -> Vec<String> {
    Builder::new_current_thread()
        .enable_all()
        .exact_seed(seed)
        .build()
        .unwrap()
        .block_on(async {
            let mut out = Vec::new();
            let dir = tempfile::tempdir().unwrap();
            out.push(dir.path().display().to_string());
            let mut named = tempfile::NamedTempFile::new_in(dir.path()).unwrap();
            named.write_all(b"named").unwrap();
            named.as_file().sync_all().unwrap();
            out.push(named.path().display().to_string());
            let read_back = sim_rt::fs::read(named.path()).await.unwrap();
            assert_eq!(read_back, b"named");
            let kept = dir.path().join("kept");
            named.persist(&kept).unwrap();
            out.push(format!("ino {}", std::fs::metadata(&kept).unwrap().ino()));
            let mut anonymous = tempfile::tempfile().unwrap();
            anonymous.write_all(b"anon").unwrap();
            anonymous.seek(SeekFrom::Start(0)).unwrap();
            let mut s = String::new();
            anonymous.read_to_string(&mut s).unwrap();
            assert_eq!(s, "anon");
            assert!(dir.path().starts_with(std::env::temp_dir()));
            drop(dir);
            out
        })
}

/// The child's seed (set by the parent test).
const CHILD_SEED: &str = "SIM_FS_STD_CHILD_SEED";

/// Run by [`tempfile_works_and_is_a_function_of_the_seed`] in a process of
/// its own: `tempfile`'s generator (fastrand) is seeded once per thread
/// from the thread's id, which counts the threads the process started, so
/// only a fresh process shows that the names come from the seed alone.
#[test]
#[ignore = "run by tempfile_works_and_is_a_function_of_the_seed"]
fn tempfile_child() {
    let seed = std::env::var(CHILD_SEED).unwrap().parse().unwrap();
    for line in tempfile_program(seed) {
        println!("OUT {line}");
    }
}

fn run_child(seed: u64) -> Vec<String> {
    let out = child_test("tempfile_child")
        .env(CHILD_SEED, seed.to_string())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "the child failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
        .lines()
        .filter_map(|l| l.split_once("OUT ").map(|(_, v)| v.to_owned()))
        .collect()
}

#[test]
fn tempfile_works_and_is_a_function_of_the_seed() {
    let first = run_child(7);
    assert_eq!(first.len(), 3, "{first:?}");
    assert_eq!(first, run_child(7), "same seed, same names and inodes");
    assert_ne!(first, run_child(8), "the names come from the seed");
    for path in &first[..2] {
        assert!(!Path::new(path).exists(), "{path} reached the real disk");
    }
}

#[test]
fn outside_a_simulation_the_real_disk_is_used() {
    let scratch = real_scratch("outside");
    std::fs::write(&scratch, b"real").unwrap();
    assert_eq!(std::fs::read(&scratch).unwrap(), b"real");
    std::fs::remove_file(&scratch).unwrap();
}

/// The `(st_dev, st_ino)` of a file host "db" writes in a fresh simulation,
/// taken while `hold` keeps the simulation alive.
fn dev_and_ino_of_a_file(hold: impl FnOnce() + 'static) -> (u64, u64) {
    use std::os::unix::fs::MetadataExt;
    let rt = Builder::new_current_thread().enable_all().build().unwrap();
    rt.block_on(async move {
        let out = Arc::new(Mutex::new(None));
        let seen = out.clone();
        sim::host("db").start(move || {
            let seen = seen.clone();
            async move {
                std::fs::write("/data.db", b"x").unwrap();
                let m = std::fs::metadata("/data.db").unwrap();
                *seen.lock().unwrap() = Some((m.dev(), m.ino()));
            }
        });
        sim_rt::time::sleep(std::time::Duration::from_millis(1)).await;
        hold();
        let pair = out.lock().unwrap().expect("the host ran");
        pair
    })
}

/// Two simulations alive at once in one process (tests on parallel
/// threads) never give two files the same `(st_dev, st_ino)`: a library
/// with process-wide state keyed by it, as SQLite's per-inode locks, would
/// mix them up.
#[test]
fn simulations_alive_at_once_have_distinct_devices() {
    let both = Arc::new(std::sync::Barrier::new(2));
    let threads: Vec<_> = (0..2)
        .map(|_| {
            let both = both.clone();
            std::thread::spawn(move || {
                dev_and_ino_of_a_file(move || {
                    // Each simulation has its numbers; neither ends before
                    // the other has taken its own.
                    sim::without_interception(|| both.wait());
                })
            })
        })
        .collect();
    let pairs: Vec<(u64, u64)> = threads.into_iter().map(|t| t.join().unwrap()).collect();
    assert_eq!(pairs[0].1, pairs[1].1, "the same file of each disk");
    assert_ne!(pairs[0].0, pairs[1].0, "{pairs:?}");
}

/// One simulation after another sees the same numbers. In a child
/// process: a simulation of another test alive meanwhile (tests run on
/// parallel threads) would take the first device number.
#[test]
fn simulations_one_after_another_have_the_same_devices() {
    let out = child_test("same_devices_child").output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
#[ignore = "run by simulations_one_after_another_have_the_same_devices"]
fn same_devices_child() {
    let first = dev_and_ino_of_a_file(|| {});
    let second = dev_and_ino_of_a_file(|| {});
    assert_eq!(first, second);
}
