//! Same seed ⇒ same execution, bit for bit; different seeds ⇒ different
//! interleavings, under the uniformly random scheduler (the default keeps
//! tokio's order and varies only what tokio leaves to the world).
//!
//! The program under test mixes everything that introduces a choice: many
//! tasks, timers with colliding deadlines, an mpsc channel, `yield_now`, and
//! an unbiased `select!` (whose branch order is a data choice).

mod rt_support;

use std::collections::BTreeSet;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rt_support::random_order;
use sim_rt::runtime::Trace;
use sim_rt::sync::mpsc;
use sim_rt::time::{sleep, Instant};

/// Runs the program with `seed`; returns its observable output and the trace.
fn run(seed: u64) -> (Vec<String>, Trace) {
    let rt = random_order(seed);
    let log = Arc::new(Mutex::new(Vec::new()));
    let out = {
        let log = log.clone();
        rt.block_on(async move {
            let start = Instant::now();
            let (tx, mut rx) = mpsc::channel::<(u32, u32)>(4);
            for t in 0..6u32 {
                let tx = tx.clone();
                let log = log.clone();
                sim_rt::spawn(async move {
                    for i in 0..3u32 {
                        // Deadlines collide across tasks: who wakes first is a choice.
                        sleep(Duration::from_millis(((t % 3) * 5 + i * 5) as u64)).await;
                        sim_rt::task::yield_now().await;
                        log.lock().unwrap().push(format!("t{t}.{i}"));
                        tx.send((t, i)).await.unwrap();
                    }
                });
            }
            drop(tx);
            let mut ticks = 0;
            let mut received = Vec::new();
            loop {
                sim_rt::select! {
                    msg = rx.recv() => match msg {
                        Some(m) => received.push(m),
                        None => break,
                    },
                    _ = sleep(Duration::from_millis(5)) => ticks += 1,
                }
            }
            log.lock()
                .unwrap()
                .push(format!("ticks={ticks} elapsed={:?}", start.elapsed()));
            received
        })
    };
    let mut lines = log.lock().unwrap().clone();
    lines.push(format!("{out:?}"));
    (lines, rt.trace())
}

#[test]
fn same_seed_same_trace_hash_across_1000_seeds() {
    for seed in 0..1000 {
        let (out1, t1) = run(seed);
        let (out2, t2) = run(seed);
        assert_eq!(t1.hash(), t2.hash(), "seed {seed}: trace hashes differ");
        assert_eq!(t1, t2, "seed {seed}: traces differ");
        assert_eq!(out1, out2, "seed {seed}: outputs differ");
        assert!(t1.len() > 50, "the program makes many choices");
    }
}

#[test]
fn different_seeds_give_different_interleavings() {
    let mut outputs = BTreeSet::new();
    let mut hashes = BTreeSet::new();
    for seed in 0..50 {
        let (out, trace) = run(seed);
        outputs.insert(out);
        hashes.insert(trace.hash());
    }
    assert!(
        outputs.len() > 10,
        "only {} distinct outcomes",
        outputs.len()
    );
    assert!(hashes.len() > 10, "only {} distinct traces", hashes.len());
}

#[test]
fn unbiased_select_branch_order_is_recorded_as_a_data_choice() {
    let (_, trace) = run(1);
    assert!(
        trace
            .steps()
            .iter()
            .any(|s| matches!(s, sim_rt::runtime::Step::Choose { kind: 1, of: 2, .. })),
        "select! between two branches asks a 2-way Select choice"
    );
}
