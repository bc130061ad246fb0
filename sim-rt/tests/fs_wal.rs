//! A write-ahead log on the simulated disk, crashed at every point.
//!
//! The `db` host appends numbered records to `/db/wal` and acknowledges
//! each one (pushes it to `acked`) after it is written. The test resets the
//! host at a chosen simulated instant; on reboot the host recovers the log
//! (every well-formed record up to the first bad one) and the test checks
//! durability: **every acknowledged record is recovered**, and nothing but
//! the records written, in order, is.
//!
//! - [`Wal::Correct`] syncs each record before acknowledging it, and
//!   frames records with a checksum so a torn or garbage tail is dropped.
//!   It must never lose an acknowledged record: checked at every crash
//!   instant of the run, for several seeds, under the default crash model
//!   and under the harshest one (any subset of unsynced operations
//!   survives, and surviving writes may be torn or end in garbage), with
//!   every crash outcome enumerated.
//! - [`Wal::NoSync`] forgets `sync_all` (it only flushes tokio's buffer):
//!   the test must find a crash after which an acknowledged record is gone.

mod rt_support;

mod fs_support;

use std::io;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use sim_rt::fs::{self, File, OpenOptions};
use sim_rt::io::AsyncWriteExt;
use sim_rt::runtime::Builder;
use sim_rt::sim::{CrashModel, KeepUnsynced, TornWrites};

use fs_support::{disk, every_crash_outcome, reset_db_after_set_up, Signals};

/// Records the host appends.
const RECORDS: u32 = 5;
/// Bytes per record: length, value, checksum.
const RECORD_LEN: usize = 12;

#[derive(Debug, Clone, Copy, PartialEq)]
enum Wal {
    Correct,
    NoSync,
}

#[derive(Default)]
struct Shared {
    boots: u32,
    acked: Vec<u32>,
    recovered: Option<Vec<u32>>,
    /// Bytes after the last well-formed record at recovery (a torn or
    /// garbage tail the decoder dropped).
    dropped: usize,
    signals: Signals,
}

fn checksum(value: u32) -> u32 {
    (value ^ 0x9E37_79B9)
        .wrapping_mul(0x85EB_CA6B)
        .rotate_left(13)
}

fn encode(value: u32) -> Vec<u8> {
    let mut r = Vec::with_capacity(RECORD_LEN);
    r.extend_from_slice(&4u32.to_le_bytes());
    r.extend_from_slice(&value.to_le_bytes());
    r.extend_from_slice(&checksum(value).to_le_bytes());
    r
}

/// Every well-formed record up to the first that is not.
fn decode(bytes: &[u8]) -> Vec<u32> {
    let word = |c: &[u8], i: usize| u32::from_le_bytes(c[4 * i..4 * i + 4].try_into().unwrap());
    bytes
        .chunks_exact(RECORD_LEN)
        .map_while(|c| (word(c, 0) == 4 && word(c, 2) == checksum(word(c, 1))).then(|| word(c, 1)))
        .collect()
}

async fn db(wal: Wal, shared: Arc<Mutex<Shared>>) -> io::Result<()> {
    let boot = {
        let mut s = shared.lock().unwrap();
        s.boots += 1;
        s.boots
    };
    if boot > 1 {
        let bytes = match fs::read("/db/wal").await {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == io::ErrorKind::NotFound => Vec::new(),
            Err(e) => return Err(e),
        };
        let recovered = decode(&bytes);
        let mut s = shared.lock().unwrap();
        s.dropped = bytes.len() - recovered.len() * RECORD_LEN;
        s.recovered = Some(recovered);
        s.signals.rebooted.notify_one();
        return Ok(());
    }
    // Create the log and make its name durable.
    fs::create_dir("/db").await?;
    let mut log = OpenOptions::new()
        .create(true)
        .append(true)
        .open("/db/wal")
        .await?;
    log.sync_all().await?;
    File::open("/db").await?.sync_all().await?;
    File::open("/").await?.sync_all().await?;
    shared.lock().unwrap().signals.set_up.notify_one();
    for value in 0..RECORDS {
        log.write_all(&encode(value)).await?;
        match wal {
            Wal::Correct => log.sync_all().await?,
            Wal::NoSync => log.flush().await?,
        }
        shared.lock().unwrap().acked.push(value);
    }
    Ok(())
}

/// Runs the log once, resetting `db` `crash_at` after its log is set up;
/// returns what it acknowledged, what it recovered, and how many bytes
/// recovery dropped after the last good record.
fn run(builder: &mut Builder, wal: Wal, crash_at: Duration) -> (Vec<u32>, Vec<u32>, usize) {
    let shared: Arc<Mutex<Shared>> = Arc::default();
    let s = shared.clone();
    let signals = shared.lock().unwrap().signals.clone();
    let entry = move || db(wal, s.clone());
    reset_db_after_set_up(builder, entry, signals, crash_at);
    let s = shared.lock().unwrap();
    let recovered = s.recovered.clone().expect("db recovered");
    (s.acked.clone(), recovered, s.dropped)
}

/// What is wrong with a recovery, if anything.
fn violation(acked: &[u32], recovered: &[u32]) -> Option<String> {
    if recovered.iter().copied().ne(0..recovered.len() as u32) {
        return Some(format!(
            "recovered {recovered:?}: not the records written, in order"
        ));
    }
    (recovered.len() < acked.len())
        .then(|| format!("acknowledged {acked:?} but recovered only {recovered:?}"))
}

/// Crash instants after set-up, every `step` µs until past the last
/// append; every 5 µs (the latencies' granularity) reaches every crash
/// point.
fn crash_instants(step: u64) -> impl Iterator<Item = Duration> {
    (0..=600 / step).map(move |i| Duration::from_micros(step * i))
}

/// What [`explore`] saw.
#[derive(Debug, Default)]
struct Explored {
    runs: usize,
    violations: Vec<String>,
    /// Runs that recovered a record written but not acknowledged.
    kept_unacked: usize,
    /// Runs whose recovery dropped a torn or garbage tail.
    torn: usize,
}

/// Runs `wal` at every crash instant, with every crash outcome of `crash`,
/// for each seed.
fn explore(
    wal: Wal,
    crash: CrashModel,
    seeds: std::ops::Range<u64>,
    step: u64,
    limit: usize,
) -> Explored {
    let mut seen = Explored::default();
    for seed in seeds {
        for at in crash_instants(step) {
            seen.runs += every_crash_outcome(seed, limit, |b| {
                b.disk(disk(crash));
                let (acked, recovered, dropped) = run(b, wal, at);
                if recovered.len() > acked.len() {
                    seen.kept_unacked += 1;
                }
                if dropped > 0 {
                    seen.torn += 1;
                }
                if let Some(v) = violation(&acked, &recovered) {
                    seen.violations
                        .push(format!("seed {seed}, crash {at:?} after set-up: {v}"));
                }
            });
        }
    }
    seen
}

const HARSHEST: CrashModel = CrashModel {
    keep: KeepUnsynced::Subset,
    torn_writes: TornWrites::PrefixOrGarbage,
};

#[test]
fn a_log_without_sync_all_loses_an_acknowledged_record() {
    let Explored {
        runs, violations, ..
    } = explore(Wal::NoSync, CrashModel::default(), 0..1, 5, 1);
    assert!(
        !violations.is_empty(),
        "the test must catch the missing sync_all ({runs} runs found nothing)"
    );
    assert!(
        violations[0].contains("acknowledged"),
        "the loss is of acknowledged records: {}",
        violations[0]
    );
}

#[test]
fn the_correct_log_never_loses_an_acknowledged_record() {
    let Explored {
        runs, violations, ..
    } = explore(Wal::Correct, CrashModel::default(), 0..3, 5, 1);
    assert!(
        violations.is_empty(),
        "{} of {runs} runs: {:#?}",
        violations.len(),
        violations
    );
}

#[test]
fn the_correct_log_survives_every_outcome_of_the_harshest_crash_model() {
    let Explored {
        runs,
        violations,
        kept_unacked,
        ..
    } = explore(Wal::Correct, HARSHEST, 0..2, 5, 16);
    assert!(
        violations.is_empty(),
        "{} of {runs} runs: {:#?}",
        violations.len(),
        violations
    );
    // The crash outcomes were really explored: some runs kept the record
    // in flight (written, not yet synced or acknowledged).
    assert!(
        kept_unacked > 0,
        "no run kept an unsynced record: the crash choices were not explored"
    );
    assert!(
        runs > 2 * crash_instants(5).count(),
        "only the default outcomes ran"
    );
}

#[test]
fn without_sync_the_harshest_model_can_also_tear_the_tail() {
    // Under torn writes the buggy log may keep some unsynced records, torn
    // or ending in garbage; the checksum makes recovery drop those, and the
    // loss of acknowledged records is still found. Crash instants every
    // 120 µs: with up to five unsynced appends, each instant has up to
    // 4^5 outcomes.
    let seen = explore(Wal::NoSync, HARSHEST, 0..1, 120, 1100);
    assert!(
        seen.torn > 0,
        "no crash outcome left a torn or garbage tail in {} runs",
        seen.runs
    );
    assert!(seen.violations.iter().any(|v| v.contains("acknowledged")));
    assert!(
        seen.violations.iter().all(|v| v.contains("acknowledged")),
        "the decoder never accepts garbage: {:#?}",
        seen.violations
    );
}
