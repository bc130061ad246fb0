//! A published storage crate, unmodified, on the simulated disk: the
//! crates.io crate [`queue-file`](https://crates.io/crates/queue-file)
//! 2.0.0 (Apache-2.0), "a lightning-fast, transactional, file-based FIFO",
//! a port of Square's Tape `QueueFile`. It does all its I/O through
//! `std::fs`: `OpenOptions::open`, positioned reads and writes
//! (`FileExt::read_at`/`write_all_at`), `set_len`, `sync_data`/`sync_all`
//! and a `rename` of a freshly initialized file into place; no mmap, no
//! threads, no async. Its durability promise: with `sync_writes` on (the
//! default outside its own unit tests) every `add` is `sync_data`'d before
//! it returns, its header is written to one of two checksummed slots, and
//! an open after a crash recovers the newest valid slot.
//!
//! Inside a simulation those `std::fs` calls go to the host's simulated
//! disk (nothing reaches the real one), and a host reset takes what the
//! crate did not sync. The tests here:
//!
//! - run its public API on a host, sync as it documents, reset the host,
//!   reopen the queue and check what was synced is there;
//! - explore it under host resets (the fault injector may reset the writer's
//!   host at any step; the host's entry reopens the queue on restart and
//!   checks that every acknowledged element is in it);
//! - plant a durability bug in the caller, not in the crate (the writer
//!   turns `sync_writes` off and acknowledges each element on `add`, with
//!   one `sync_all` at the end of the batch) and show the explorer finds it
//!   and that the failure replays from its token.
//!
//! # What the explorer found
//!
//! Used exactly as its docs show (`QueueFile::open`, then `add`), the crate
//! loses every acknowledged element on the first reset: the first
//! execution fails. A new queue's file is initialized as `jobs..tmp`
//! (`Path::with_extension(".tmp")`) and renamed to `jobs.qf`, and nothing
//! syncs the directory; each `add` is `sync_data`'d, which makes the file's
//! data durable but not its name, so after the reset `jobs.qf` is gone and
//! the reopen creates a new, empty queue. The story: "step 8, 1ms: reset
//! queue (the program)", then "element 0 was acknowledged, but start 1 of
//! the host found the queue holding [] (its file was gone)". The simulated
//! disk, like POSIX (and ALICE), makes a directory entry durable only by a
//! sync of its directory; ext4 in its default mode commits the rename with
//! the file's fsync, which is why this goes unseen on a laptop. With the
//! caller syncing the directory once after the open, the unmodified crate
//! survives 400 explored executions (a reset at any of the writer's steps,
//! with the harshest crash model for what was unsynced).
//!
//! Limits of that exploration: a reset takes effect at a step of the
//! simulation, and a call into the crate is synchronous, so resets land
//! between the writer's calls (before the open, between two `add`s, after
//! the batch), not between the writes and syncs inside one `add`, nor
//! between the crate's write of the temporary file and its rename.
//!
//! # Running the crate's own tests inside a simulation
//!
//! Issue 35 asks for the crate's own test suite to run in a simulation. Its
//! integration tests (`tests/test.rs`, `tests/v2_tests.rs`,
//! `tests/format_coverage.rs`, `tests/bug_cases.rs` in the published
//! package, about 100 test functions) use its public API, but not only it:
//! they take a temporary path from the `auto-delete-path` crate, use
//! `quickcheck`/`test-case` for parameters, open the file with `std::fs`
//! to corrupt it on purpose, and set a `QUEUE_FILE_FAILPOINT` environment
//! variable (behind a process-wide `Mutex`) that the crate reads to inject
//! errors. Each test function is a plain synchronous `fn()`, so wrapping one
//! is mechanical: `Runtime::block_on(async { the_test() })` runs it with
//! its file calls on the simulated disk. What it would take is a copy of
//! those files next to this one with each `#[test]` turned into a
//! `block_on` of the original body (or a `#[path]` into the registry's
//! copy of the package, which is neither portable nor pinned), plus its
//! dev-dependencies here. That is not done: no copy of the crate's source
//! is committed to this repository. Those tests also never reset a host:
//! they check the format and API, so in a simulation they would check that
//! the interposed file calls behave like the real ones, not crash safety,
//! which is what the explorations below are for.

use std::cell::{Cell, RefCell};
use std::rc::Rc;
use std::time::Duration;

use explorer::{Explorer, Rtc, Sampling};
use queue_file::QueueFile;
use sim_rt::runtime::Builder;
use sim_rt::sim::{self, CrashModel, FaultInjector, FsConfig, KeepUnsynced, TornWrites};

const DIR: &str = "/sim-queue";
const QUEUE: &str = "/sim-queue/jobs.qf";
/// Elements the writer adds, one at a time, acknowledging each.
const ELEMENTS: u32 = 4;

/// How the test's writer uses the crate.
#[derive(Debug, Clone, Copy)]
struct Caller {
    /// After `QueueFile::open`, sync the queue's directory, so that the
    /// name the crate gave a new queue file survives a reset.
    sync_dir_after_open: bool,
    /// The planted bug: turn `sync_writes` off and acknowledge each element
    /// when `add` returns, with one `sync_all` after the batch.
    ack_before_sync: bool,
}

/// The crate's API exactly as its docs show it: open, `add` (synced).
const AS_DOCUMENTED: Caller = Caller {
    sync_dir_after_open: false,
    ack_before_sync: false,
};
/// As documented, plus a sync of the directory after the open.
const DIR_SYNCED: Caller = Caller {
    sync_dir_after_open: true,
    ack_before_sync: false,
};
/// [`DIR_SYNCED`] with the planted bug.
const ACK_BEFORE_SYNC: Caller = Caller {
    sync_dir_after_open: true,
    ack_before_sync: true,
};

/// What one start of the writer's host found when it opened the queue.
#[derive(Debug, Clone)]
struct Recovery {
    /// The elements acknowledged before this start (nothing is acknowledged
    /// while the host is down, so these are the ones the reset must keep).
    acked: Vec<u32>,
    /// Whether the queue's file was there before the open.
    existed: bool,
    /// The queue's elements, or why it did not open.
    got: Result<Vec<u32>, String>,
}

/// State the writer's host shares with the test across its restarts.
#[derive(Default)]
struct Shared {
    acked: RefCell<Vec<u32>>,
    recoveries: RefCell<Vec<Recovery>>,
    done: Cell<bool>,
}

/// The directory, made durable as a service's setup would (a reset loses an
/// entry its directory never synced). Idempotent: every start runs it.
fn setup() -> std::io::Result<()> {
    std::fs::create_dir_all(DIR)?;
    std::fs::File::open("/")?.sync_all()
}

fn open() -> Result<(QueueFile, Vec<u32>), String> {
    let qf = QueueFile::open(QUEUE).map_err(|e| format!("open: {e}"))?;
    let got = qf
        .iter()
        .map(|e| u32::from_le_bytes(e[..].try_into().expect("a 4-byte element")))
        .collect();
    Ok((qf, got))
}

/// The writer's host entry (run again on every restart): open the queue,
/// record what it holds, then add the elements not yet acknowledged, one at
/// a time, acknowledging each once `add` returns (with `sync_writes` on,
/// the default, `add` has synced it).
async fn writer(shared: Rc<Shared>, caller: Caller) {
    setup().expect("setup");
    let existed = std::path::Path::new(QUEUE).exists();
    let opened = open();
    if caller.sync_dir_after_open {
        std::fs::File::open(DIR)
            .and_then(|d| d.sync_all())
            .expect("sync the directory");
    }
    shared.recoveries.borrow_mut().push(Recovery {
        acked: shared.acked.borrow().clone(),
        existed,
        got: opened
            .as_ref()
            .map(|(_, got)| got.clone())
            .map_err(Clone::clone),
    });
    let Ok((mut qf, _)) = opened else {
        // The test reports it from the recovery above.
        return std::future::pending().await;
    };
    qf.set_sync_writes(!caller.ack_before_sync);
    // Unacknowledged elements are added again (at least once, as a client
    // retries): the check is that every acknowledged one is there.
    let next = shared.acked.borrow().len() as u32;
    for i in next..ELEMENTS {
        qf.add(&i.to_le_bytes()).expect("add");
        shared.acked.borrow_mut().push(i);
        // A step between elements, where a reset may come.
        sim_rt::task::yield_now().await;
    }
    qf.sync_all().expect("sync_all");
    shared.done.set(true);
    std::future::pending().await
}

/// One simulation: the writer adds and acknowledges [`ELEMENTS`] elements
/// on host "queue" (which the fault injector may reset at any step), then
/// the test resets the host once more; every start must find every element
/// acknowledged before it.
async fn scenario(caller: Caller) {
    let shared = Rc::new(Shared::default());
    let s = shared.clone();
    sim::host("queue").start(move || writer(s.clone(), caller));
    for _ in 0..1_000 {
        if shared.done.get() || shared.recoveries.borrow().iter().any(|r| r.got.is_err()) {
            break;
        }
        sim_rt::time::sleep(Duration::from_millis(1)).await;
    }
    let starts = shared.recoveries.borrow().len();
    sim::reset("queue");
    while shared.recoveries.borrow().len() == starts {
        sim_rt::time::sleep(Duration::from_millis(1)).await;
    }
    for (start, r) in shared.recoveries.borrow().iter().enumerate() {
        let got = match &r.got {
            Ok(got) => got,
            Err(e) => panic!(
                "durability: start {start} of the host could not open the queue ({e}); \
                 {:?} had been acknowledged",
                r.acked
            ),
        };
        for a in &r.acked {
            assert!(
                got.contains(a),
                "durability: element {a} was acknowledged, but start {start} of the host found \
                 the queue holding {got:?} (its file was {})",
                if r.existed { "there" } else { "gone" }
            );
        }
    }
    let last = shared.recoveries.borrow().last().cloned().unwrap();
    assert_eq!(last.acked, (0..ELEMENTS).collect::<Vec<_>>());
}

/// The harshest crash model: any subset of the unsynced writes survives a
/// reset, and a surviving one may be torn or end in garbage.
fn disk() -> FsConfig {
    FsConfig {
        crash: CrashModel {
            keep: KeepUnsynced::Subset,
            torn_writes: TornWrites::PrefixOrGarbage,
        },
        ..FsConfig::default()
    }
}

/// The fault injector may reset the writer's host once, at any step.
fn runtime(b: &mut Builder) {
    b.disk(disk())
        .fault_injector(FaultInjector::new().max_resets(1).max_partitions(0));
}

fn explorer() -> Explorer {
    Explorer::new()
        .name("storage_crate")
        .runtime(runtime)
        .explorer(Rtc::default())
        .search(Sampling::new(1))
        .progress(false)
}

/// What the explorer finds in the crate used exactly as documented: a new
/// queue's file is initialized as `jobs..tmp` and renamed to `jobs.qf`, and
/// nothing syncs the directory; every `add` after it is `sync_data`'d, but
/// a reset takes the file's name, the reopen creates a new, empty queue,
/// and every acknowledged element is gone. (The simulated disk, like
/// POSIX, makes a directory entry durable only by syncing its directory;
/// on ext4 in its default mode a file's fsync happens to commit the rename
/// with it, which is why this goes unseen on a laptop.)
#[test]
fn as_documented_a_reset_loses_the_new_queues_name_and_every_element() {
    let report = explorer().executions(300).run(|| scenario(AS_DOCUMENTED));
    let found = report
        .failure
        .as_ref()
        .expect("the explorer finds the loss");
    let message = found.failure.to_string();
    assert!(
        message.contains("durability") && message.contains("its file was gone"),
        "{report}"
    );
}

/// Point 1 without exploration: add (synced, as documented), sync the
/// directory once after the open, reset, reopen: everything is there.
#[test]
fn synced_elements_survive_a_host_reset() {
    let rt = Builder::new_current_thread().build().unwrap();
    rt.block_on(scenario(DIR_SYNCED));
    assert!(
        !std::path::Path::new(QUEUE).exists(),
        "nothing on the real disk"
    );
}

/// With the directory synced after the open, the unmodified crate keeps
/// every acknowledged element whatever step the reset comes at and
/// whatever the crash kept of its unsynced writes.
#[test]
fn with_the_directory_synced_the_crate_survives_resets_at_any_step() {
    let report = explorer().executions(400).run(|| scenario(DIR_SYNCED));
    assert!(!report.failed(), "{report}");
}

/// The planted bug, in the caller: acknowledging an element before the
/// crate's sync. The explorer finds it under resets, and the failure
/// replays from its token, step for step.
#[test]
fn acknowledging_before_the_sync_is_found_and_replays_from_its_token() {
    let report = explorer().executions(400).run(|| scenario(ACK_BEFORE_SYNC));
    let found = report.failure.as_ref().expect("the planted bug is found");
    assert!(found.failure.to_string().contains("durability"), "{report}");
    let token = found.token.to_string();
    let again = explorer()
        .replay(token.clone())
        .run(|| scenario(ACK_BEFORE_SYNC));
    let replayed = again.failure.as_ref().expect("the replay fails");
    assert_eq!(replayed.trace.first_difference(&found.trace), None);
    assert_eq!(replayed.failure.to_string(), found.failure.to_string());
    assert_eq!(replayed.token.to_string(), token);
    assert_eq!(again.executions, 1);
}
