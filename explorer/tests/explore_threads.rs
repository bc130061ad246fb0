//! A bug that needs a std thread and a task to interleave at a lock is
//! found by the default search, told with the thread named, and replays
//! from its line in a fresh process; a plain run passes.
//!
//! The planted bug: an account shared by a task and a std worker thread
//! behind a std `Mutex`. Each withdraws 60 of its 100 when the balance
//! covers it, but the worker checks and withdraws under two separate
//! acquisitions of the lock, and logs its decision in between (a
//! rendezvous with a logger thread). When the worker checks first, the task
//! withdraws while the worker logs, and the worker's withdrawal overdraws.
//! In tokio's order the task, spawned first, runs first: the worker then
//! finds 40 and withdraws nothing.

mod common;

use std::sync::mpsc;
use std::sync::{Arc, Mutex};

use common::run_child;
use explorer::Explorer;

async fn overdraw() {
    let balance = Arc::new(Mutex::new(100i64));
    let (log_tx, log_rx) = mpsc::sync_channel::<String>(0);
    let logger = std::thread::spawn(move || log_rx.iter().count());
    let task = {
        let balance = balance.clone();
        sim_rt::spawn(async move {
            let mut b = balance.lock().unwrap();
            if *b >= 60 {
                *b -= 60;
            }
        })
    };
    let worker = {
        let balance = balance.clone();
        std::thread::spawn(move || {
            let covered = *balance.lock().unwrap() >= 60;
            log_tx.send(format!("covered: {covered}")).unwrap();
            if covered {
                *balance.lock().unwrap() -= 60;
            }
        })
    };
    task.await.unwrap();
    worker.join().unwrap();
    assert_eq!(logger.join().unwrap(), 1);
    let left = *balance.lock().unwrap();
    assert!(left >= 0, "the account was overdrawn: balance {left}");
}

#[test]
fn a_plain_run_passes() {
    sim_rt::runtime::Builder::new_current_thread()
        .build()
        .unwrap()
        .block_on(overdraw());
}

#[test]
#[ignore = "run by the other tests of this file, in a subprocess"]
fn overdraw_child() {
    Explorer::new().executions(2_000).check(overdraw);
}

#[test]
fn the_default_search_finds_the_overdraw_and_it_replays() {
    let (ok, out) = run_child("overdraw_child", &[]);
    assert!(!ok, "the search finds the overdraw:\n{out}");
    assert!(out.contains("the account was overdrawn"), "{out}");
    assert!(
        out.contains("std threads: std thread 1 (task "),
        "the report names the threads:\n{out}"
    );
    assert!(!out.contains("not deterministic"), "{out}");
    let token = common::replay_token(&out).expect("a reproduce line");
    let (ok, again) = run_child("overdraw_child", &[("SIM_REPLAY", token.as_str())]);
    assert!(!ok, "the replay fails again:\n{again}");
    assert!(
        again.contains("found a failure in execution 1")
            && again.contains("the account was overdrawn"),
        "{again}"
    );
    assert!(!again.contains("is not the recorded one"), "{again}");
}
