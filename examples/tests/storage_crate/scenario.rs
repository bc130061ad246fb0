//! The exploration of queue-file under host resets, shared: the writer
//! (a host whose entry opens the queue, checks what a restart found, and
//! adds and acknowledges elements), the scenario that drives it, and the
//! explorer's settings. `../storage_crate.rs` runs it against the
//! registry's queue-file; the crate-suites harness
//! (`crate-suites/tests/queue_file.rs`) copies this file into its copies of
//! the crate (the unmodified one, and one with a planted missing sync) and
//! runs it there, so both explore exactly this.
//!
//! It names nothing but `queue_file`, `sim_rt` and `explorer`, which both
//! places depend on.

use std::cell::{Cell, RefCell};
use std::rc::Rc;
use std::time::Duration;

use explorer::{Explorer, Rtc, Sampling};
use queue_file::QueueFile;
use sim_rt::runtime::Builder;
use sim_rt::sim::{self, CrashModel, FaultInjector, FsConfig, KeepUnsynced, TornWrites};

const DIR: &str = "/sim-queue";
pub const QUEUE: &str = "/sim-queue/jobs.qf";
/// Elements the writer adds, one at a time, acknowledging each.
const ELEMENTS: u32 = 4;

/// How the test's writer uses the crate.
#[derive(Debug, Clone, Copy)]
pub struct Caller {
    /// After `QueueFile::open`, sync the queue's directory, so that the
    /// name the crate gave a new queue file survives a reset.
    sync_dir_after_open: bool,
    /// The planted bug: turn `sync_writes` off and acknowledge each element
    /// when `add` returns, with one `sync_all` after the batch.
    ack_before_sync: bool,
}

/// The crate's API exactly as its docs show it: open, `add` (synced).
pub const AS_DOCUMENTED: Caller = Caller {
    sync_dir_after_open: false,
    ack_before_sync: false,
};
/// As documented, plus a sync of the directory after the open.
pub const DIR_SYNCED: Caller = Caller {
    sync_dir_after_open: true,
    ack_before_sync: false,
};
/// [`DIR_SYNCED`] with the planted bug.
pub const ACK_BEFORE_SYNC: Caller = Caller {
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
pub async fn scenario(caller: Caller) {
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

pub fn explorer() -> Explorer {
    Explorer::new()
        .name("storage_crate")
        .runtime(runtime)
        .explorer(Rtc::default())
        .search(Sampling::new(1))
        .progress(false)
}
