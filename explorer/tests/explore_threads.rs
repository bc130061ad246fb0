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

/// The account both withdraw from.
type Account = Arc<Mutex<i64>>;

/// The task's withdrawal: check and act under one acquisition of the lock.
fn withdraw_at_once(balance: &Account) {
    let mut b = balance.lock().unwrap();
    if *b >= 60 {
        *b -= 60;
    }
}

/// The worker's withdrawal: check and act under two acquisitions, its
/// decision logged in between (the planted bug).
fn withdraw_in_two(balance: &Account, log: &mpsc::SyncSender<String>) {
    let covered = *balance.lock().unwrap() >= 60;
    log.send(format!("covered: {covered}")).unwrap();
    if covered {
        *balance.lock().unwrap() -= 60;
    }
}

fn assert_not_overdrawn(balance: &Account) {
    let left = *balance.lock().unwrap();
    assert!(left >= 0, "the account was overdrawn: balance {left}");
}

async fn overdraw() {
    let balance = Account::new(Mutex::new(100));
    let (log_tx, log_rx) = mpsc::sync_channel::<String>(0);
    let logger = std::thread::spawn(move || log_rx.iter().count());
    let task = {
        let balance = balance.clone();
        sim_rt::spawn(async move { withdraw_at_once(&balance) })
    };
    let worker = {
        let balance = balance.clone();
        std::thread::spawn(move || withdraw_in_two(&balance, &log_tx))
    };
    task.await.unwrap();
    worker.join().unwrap();
    assert_eq!(logger.join().unwrap(), 1);
    assert_not_overdrawn(&balance);
}

#[test]
fn a_plain_run_passes() {
    sim_rt::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
        .block_on(overdraw());
}

#[test]
#[ignore = "run by the other tests of this file, in a subprocess"]
fn overdraw_child() {
    Explorer::new().executions(2_000).check(overdraw);
}

/// Runs the search child `child`, checks it finds the overdraw
/// deterministically and that the failure replays from its line in a fresh
/// process; returns the search's output.
fn finds_the_overdraw_and_it_replays(child: &str) -> String {
    let (ok, out) = run_child(child, &[]);
    assert!(!ok, "the search finds the overdraw:\n{out}");
    assert!(out.contains("the account was overdrawn"), "{out}");
    assert!(!out.contains("not deterministic"), "{out}");
    let token = common::replay_token(&out).expect("a reproduce line");
    let (ok, again) = run_child(child, &[("SIM_REPLAY", token.as_str())]);
    assert!(!ok, "the replay fails again:\n{again}");
    assert!(
        again.contains("found a failure in execution 1")
            && again.contains("the account was overdrawn"),
        "{again}"
    );
    assert!(!again.contains("is not the recorded one"), "{again}");
    out
}

#[test]
fn the_default_search_finds_the_overdraw_and_it_replays() {
    let out = finds_the_overdraw_and_it_replays("overdraw_child");
    assert!(
        out.contains("std threads: std thread 1 (task "),
        "the report names the threads:\n{out}"
    );
    // The picture names the threads' turns as threads, not as tasks.
    let picture = out
        .lines()
        .find_map(|l| l.trim().strip_prefix("picture: "))
        .expect("a picture line");
    let html = std::fs::read_to_string(picture.trim()).expect("the picture");
    // "std thread N (task M) on main", as a pick's subject.
    let named = html.match_indices("std thread ").any(|(i, _)| {
        let rest = &html[i..];
        rest.find(") on main")
            .is_some_and(|end| end < 40 && rest[..end].contains(" (task "))
    });
    assert!(named, "the picture names a std thread's turns");
}

/// The same overdraw with the worker's code in a `block_in_place` closure
/// on a multi-thread runtime, and the log drained by another task's
/// closure in place: the closures run as simulated threads, so their
/// blocking calls are choice points the search explores.
async fn overdraw_in_place() {
    let balance = Account::new(Mutex::new(100));
    let (log_tx, log_rx) = mpsc::sync_channel::<String>(0);
    let logger =
        sim_rt::spawn(async move { sim_rt::task::block_in_place(|| log_rx.iter().count()) });
    let task = {
        let balance = balance.clone();
        sim_rt::spawn(async move { withdraw_at_once(&balance) })
    };
    let worker = {
        let balance = balance.clone();
        sim_rt::spawn(async move {
            sim_rt::task::block_in_place(move || withdraw_in_two(&balance, &log_tx))
        })
    };
    task.await.unwrap();
    worker.await.unwrap();
    assert_eq!(logger.await.unwrap(), 1);
    assert_not_overdrawn(&balance);
}

#[test]
fn a_plain_run_in_place_passes() {
    sim_rt::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap()
        .block_on(overdraw_in_place());
}

#[test]
#[ignore = "run by the other tests of this file, in a subprocess"]
fn overdraw_in_place_child() {
    Explorer::new()
        .multi_thread()
        .executions(2_000)
        .check(overdraw_in_place);
}

#[test]
fn the_default_search_finds_the_overdraw_in_place_and_it_replays() {
    let out = finds_the_overdraw_and_it_replays("overdraw_in_place_child");
    assert!(
        out.contains("std threads: std thread 1 (task "),
        "the closures in place are named as threads:\n{out}"
    );
}

/// Four std threads per execution: two joined, one that ends when a
/// task's channel closes, one still blocked when the execution ends (let
/// go with its simulation).
async fn four_threads() {
    let (tx, rx) = mpsc::channel::<u32>();
    let summer = std::thread::spawn(move || rx.iter().sum::<u32>());
    let doubler = std::thread::spawn(|| 21 * 2);
    let (stay_tx, stay_rx) = mpsc::channel::<()>();
    std::thread::spawn(move || stay_rx.recv().is_ok());
    let (done_tx, done_rx) = mpsc::channel::<()>();
    std::thread::spawn(move || done_rx.recv().is_err());
    let keeper = sim_rt::spawn(async move {
        let _keep = stay_tx;
        std::future::pending::<()>().await
    });
    for i in 0..3 {
        tx.send(i).unwrap();
        sim_rt::task::yield_now().await;
    }
    drop(tx);
    drop(done_tx);
    assert_eq!(summer.join().unwrap(), 3);
    assert_eq!(doubler.join().unwrap(), 42);
    drop(keeper);
}

/// A field of `/proc/self/status`, as a number (`Threads`, `VmHWM` in kB).
fn status(field: &str) -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix(field)?.strip_prefix(':'))
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
        .unwrap_or_else(|| panic!("no {field} in /proc/self/status"))
}

#[test]
#[ignore = "run by the other tests of this file, in a subprocess"]
fn many_executions_child() {
    let n: u64 = std::env::var("THREADS_EXECUTIONS")
        .unwrap()
        .parse()
        .unwrap();
    // One execution first: the explorer's and the runtime's own threads
    // (the poll watchdog) start with it.
    Explorer::new()
        .executions(1)
        .progress(false)
        .check(four_threads);
    let mut before = status("Threads");
    loop {
        std::thread::sleep(std::time::Duration::from_millis(100));
        let now = status("Threads");
        if now == before {
            break;
        }
        before = now;
    }
    Explorer::new()
        .executions(n)
        .progress(false)
        .check(four_threads);
    // Let-go threads exit in real time, soon after their simulation.
    for _ in 0..500 {
        if status("Threads") <= before {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    println!(
        "threads {before} -> {}; peak {} kB",
        status("Threads"),
        status("VmHWM")
    );
}

/// What `many_executions_child` printed: threads before and after, and
/// the peak resident memory in kB.
fn many(executions: &str) -> (u64, u64, u64) {
    let (ok, out) = run_child(
        "many_executions_child",
        &[("THREADS_EXECUTIONS", executions)],
    );
    assert!(ok, "{out}");
    let line = out
        .lines()
        .find_map(|l| Some(&l[l.find("threads ")? + "threads ".len()..]))
        .unwrap_or_else(|| panic!("{out}"));
    let nums: Vec<u64> = line
        .split(|c: char| !c.is_ascii_digit())
        .filter(|w| !w.is_empty())
        .map(|w| w.parse().unwrap())
        .collect();
    (nums[0], nums[1], nums[2])
}

/// 10,000 explored executions that start four threads each leave the
/// process's thread count where it was, and use at most twice the memory
/// of 1,000.
#[test]
fn ten_thousand_executions_leave_no_thread_and_keep_memory_flat() {
    let (before, after, small) = many("1000");
    assert_eq!(after, before, "1,000 executions");
    let (before, after, large) = many("10000");
    assert_eq!(after, before, "10,000 executions");
    assert!(
        large < 2 * small,
        "peak {large} kB after 10,000, {small} kB after 1,000"
    );
}
