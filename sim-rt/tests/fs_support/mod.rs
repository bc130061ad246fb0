//! Shared by the crash-consistency tests: run a program once for every
//! answer to the disk-crash data choices, exhaustively.
//!
//! [`every_crash_outcome`] is a small depth-first search over the answers
//! to [`ChoiceKind::DiskCrashPrefix`], [`ChoiceKind::DiskCrashKeep`] and
//! [`ChoiceKind::DiskTornWrite`]: the first run answers 0 everywhere (the
//! default crash); each next run keeps the answers of the previous one up to
//! the last question that still has an untried option, takes that option,
//! and answers 0 after it. Every other pick and choice comes from the
//! seeded [`RandomScheduler`](sim_rt::scheduler::RandomScheduler), so with
//! a fixed seed the questions asked up to a given point are the same in
//! every run, and the search visits each combination of crash answers
//! exactly once.

#![allow(dead_code)]

use std::cell::RefCell;
use std::rc::Rc;

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use crate::rt_support::RandomWith;
use sim_rt::runtime::Builder;
use sim_rt::scheduler::ChoiceKind;
use sim_rt::sim::{self, CrashModel, FsConfig, HostOutput};
use sim_rt::sync::Notify;

/// What the program of a crash run tells the run: that it has set up, and
/// that it has recovered after its reset.
#[derive(Clone, Default)]
pub struct Signals {
    pub set_up: Arc<Notify>,
    pub rebooted: Arc<Notify>,
}

/// One crash run: starts host `db` with `entry`, waits until it signals
/// `set_up`, resets it `crash_at` later, and waits until the restarted
/// entry point signals `rebooted` (it has recovered).
pub fn reset_db_after_set_up<F, Fut>(
    builder: &mut Builder,
    entry: F,
    Signals { set_up, rebooted }: Signals,
    crash_at: Duration,
) where
    F: Fn() -> Fut + 'static,
    Fut: Future + 'static,
    Fut::Output: HostOutput,
{
    builder.build().unwrap().block_on(async move {
        sim::host("db").start(entry);
        set_up.notified().await;
        sim::sleep_exact(crash_at).await;
        sim::reset("db");
        rebooted.notified().await;
    });
}

/// A disk with crash model `crash` and small latencies (5 us metadata and
/// reads, 10 us writes, 100 us syncs), so a reset can land between any two
/// operations of the programs under test.
pub fn disk(crash: CrashModel) -> FsConfig {
    let mut disk = FsConfig {
        crash,
        ..FsConfig::default()
    };
    disk.latency.meta = Duration::from_micros(5);
    disk.latency.read = Duration::from_micros(5);
    disk.latency.write = Duration::from_micros(10);
    disk.latency.sync = Duration::from_micros(100);
    disk
}

/// Answers the disk-crash questions from a script (then 0) and records how
/// many options each had; leaves everything else to the random scheduler.
fn crash_script(
    script: Vec<usize>,
    asked: Rc<RefCell<Vec<usize>>>,
) -> impl FnMut(ChoiceKind, usize) -> Option<usize> {
    move |kind, n| match kind {
        ChoiceKind::DiskCrashPrefix | ChoiceKind::DiskCrashKeep | ChoiceKind::DiskTornWrite => {
            let mut asked = asked.borrow_mut();
            let answer = script.get(asked.len()).copied().unwrap_or(0);
            assert!(answer < n, "the crash questions changed between runs");
            asked.push(n);
            Some(answer)
        }
        _ => None,
    }
}

/// Calls `run` once per combination of answers to the disk-crash choices of
/// the program it runs (see the module docs), with a builder seeded with
/// `seed` whose scheduler gives those answers. Returns the number of runs.
///
/// # Panics
///
/// After `limit` runs: the program's crash space is bigger than the test
/// meant it to be.
pub fn every_crash_outcome(seed: u64, limit: usize, mut run: impl FnMut(&mut Builder)) -> usize {
    let mut script: Vec<usize> = Vec::new();
    let mut runs = 0;
    loop {
        let asked = Rc::new(RefCell::new(Vec::new()));
        let mut builder = Builder::new_current_thread();
        builder.enable_all();
        let (s, a) = (script.clone(), asked.clone());
        builder
            .exact_seed(seed)
            .scheduler(move |seed| RandomWith::answering(seed, crash_script(s.clone(), a.clone())));
        run(&mut builder);
        runs += 1;
        assert!(
            runs <= limit,
            "more than {limit} crash outcomes: the test's crash space grew"
        );
        let asked = asked.borrow();
        let mut next: Vec<usize> = (0..asked.len())
            .map(|i| script.get(i).copied().unwrap_or(0))
            .collect();
        let Some(i) = (0..asked.len()).rev().find(|&i| next[i] + 1 < asked[i]) else {
            return runs;
        };
        next[i] += 1;
        next.truncate(i + 1);
        script = next;
    }
}
