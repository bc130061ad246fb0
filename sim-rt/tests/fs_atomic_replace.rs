//! The atomic-replace idiom, crashed at every point.
//!
//! `db` holds a durable `/config` ("old"). It replaces it with "new" and
//! then acknowledges the update. After a reset at any instant, recovery
//! must find `/config` holding exactly "old" or "new" (never missing,
//! empty, partial or garbage), and "new" once the update was acknowledged.
//!
//! The correct idiom is: write `/config.tmp`, `sync_all` it, `rename` it
//! over `/config`, `sync_all` the directory. It must survive every crash
//! instant under every crash model with every crash outcome enumerated.
//! Each classic mistake must be caught:
//!
//! - no file sync: the rename can become durable before the data (the
//!   file is found empty);
//! - no directory sync: the acknowledged rename is lost ("old" is back);
//! - no rename (overwrite in place): the truncation can reach the disk
//!   without the new data, which needs a crash model that keeps some
//!   unsynced operations (here an ordered journal, `KeepUnsynced::Prefix`).

mod rt_support;

mod fs_support;

use std::io;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use sim_rt::fs::{self, File};
use sim_rt::io::AsyncWriteExt;
use sim_rt::runtime::Builder;
use sim_rt::sim::{CrashModel, KeepUnsynced, TornWrites};

use fs_support::{disk, every_crash_outcome, reset_db_after_set_up, Signals};

#[derive(Debug, Clone, Copy, PartialEq)]
enum Replace {
    Correct,
    NoFileSync,
    NoDirSync,
    NoRename,
}

const OLD: &[u8] = b"version = 1\n";

/// Longer than a sector, so torn writes have something to tear.
fn new_config() -> Vec<u8> {
    let mut v = b"version = 2\n".to_vec();
    v.extend((0..700).map(|i| b'a' + (i % 26) as u8));
    v
}

#[derive(Default)]
struct Shared {
    boots: u32,
    acked: bool,
    recovered: Option<io::Result<Vec<u8>>>,
    signals: Signals,
}

async fn db(how: Replace, shared: Arc<Mutex<Shared>>) -> io::Result<()> {
    let boot = {
        let mut s = shared.lock().unwrap();
        s.boots += 1;
        s.boots
    };
    if boot > 1 {
        let found = fs::read("/config").await;
        let mut s = shared.lock().unwrap();
        s.recovered = Some(found);
        s.signals.rebooted.notify_one();
        return Ok(());
    }
    let mut f = File::create("/config").await?;
    f.write_all(OLD).await?;
    f.sync_all().await?;
    File::open("/").await?.sync_all().await?;
    drop(f);
    shared.lock().unwrap().signals.set_up.notify_one();

    let new = new_config();
    if how == Replace::NoRename {
        let mut f = File::create("/config").await?;
        f.write_all(&new).await?;
        f.sync_all().await?;
    } else {
        let mut tmp = File::create("/config.tmp").await?;
        tmp.write_all(&new).await?;
        if how == Replace::NoFileSync {
            tmp.flush().await?;
        } else {
            tmp.sync_all().await?;
        }
        fs::rename("/config.tmp", "/config").await?;
        if how != Replace::NoDirSync {
            File::open("/").await?.sync_all().await?;
        }
    }
    shared.lock().unwrap().acked = true;
    Ok(())
}

/// One run: set up, update, reset `crash_at` after set-up, recover.
/// Returns what is wrong with the recovery, if anything.
fn run(builder: &mut Builder, how: Replace, crash_at: Duration) -> Option<String> {
    let shared: Arc<Mutex<Shared>> = Arc::default();
    let s = shared.clone();
    let signals = shared.lock().unwrap().signals.clone();
    let entry = move || db(how, s.clone());
    reset_db_after_set_up(builder, entry, signals, crash_at);
    let mut s = shared.lock().unwrap();
    let acked = s.acked;
    let found = match s.recovered.take().expect("db recovered") {
        Ok(bytes) => bytes,
        Err(e) => return Some(format!("/config unreadable after the crash: {e}")),
    };
    let what = if found == OLD {
        "old"
    } else if found == new_config() {
        "new"
    } else {
        return Some(format!(
            "/config holds {} bytes that are neither version",
            found.len()
        ));
    };
    (acked && what == "old").then(|| "the acknowledged update was lost".to_string())
}

/// Every crash instant (every 5 µs, past the end of the update), every
/// crash outcome of `crash`, seeds 0 and 1; returns (runs, violations).
fn explore(how: Replace, crash: CrashModel) -> (usize, Vec<String>) {
    let mut runs = 0;
    let mut violations = Vec::new();
    for seed in 0..2 {
        for i in 0..=60 {
            let at = Duration::from_micros(5 * i);
            runs += every_crash_outcome(seed, 256, |b| {
                b.disk(disk(crash));
                if let Some(v) = run(b, how, at) {
                    violations.push(format!("seed {seed}, crash {at:?} after set-up: {v}"));
                }
            });
        }
    }
    (runs, violations)
}

const MODELS: [CrashModel; 3] = [
    CrashModel {
        keep: KeepUnsynced::Nothing,
        torn_writes: TornWrites::Never,
    },
    CrashModel {
        keep: KeepUnsynced::Prefix,
        torn_writes: TornWrites::Prefix,
    },
    CrashModel {
        keep: KeepUnsynced::Subset,
        torn_writes: TornWrites::PrefixOrGarbage,
    },
];

#[test]
fn the_atomic_replace_idiom_survives_every_crash() {
    for crash in MODELS {
        let (runs, violations) = explore(Replace::Correct, crash);
        assert!(
            violations.is_empty(),
            "{crash:?}: {} of {runs} runs: {violations:#?}",
            violations.len()
        );
        if crash.keep != KeepUnsynced::Nothing {
            assert!(
                runs > 2 * 61,
                "{crash:?}: only the default crash outcomes ran"
            );
        }
    }
}

fn caught(how: Replace, crash: CrashModel, expected: &str) {
    let (runs, violations) = explore(how, crash);
    assert!(
        violations.iter().any(|v| v.contains(expected)),
        "{how:?} under {crash:?}: expected a violation containing {expected:?} in {runs} runs, \
         found {violations:#?}"
    );
}

#[test]
fn forgetting_the_file_sync_is_caught() {
    caught(Replace::NoFileSync, MODELS[0], "neither version");
}

#[test]
fn forgetting_the_directory_sync_is_caught() {
    caught(
        Replace::NoDirSync,
        MODELS[0],
        "acknowledged update was lost",
    );
}

#[test]
fn overwriting_in_place_is_caught() {
    // Under the default model an unsynced truncation is lost with the data,
    // so overwriting in place looks safe...
    let (_, violations) = explore(Replace::NoRename, MODELS[0]);
    assert!(violations.is_empty(), "{violations:#?}");
    // ...but a disk that journals operations in order can keep the
    // truncation and not the data.
    caught(Replace::NoRename, MODELS[1], "neither version");
}
