//! Simulated threads end with their simulation: a thread still blocked
//! when the simulation is dropped is let go, and exits as a real thread
//! would, so many simulations that start threads leave none behind. (A
//! file of its own: it counts the process's threads.)

mod rt_support;

use std::sync::{mpsc, Arc, Mutex};
use std::time::Duration;

use rt_support::sim;

/// The process's OS threads, from `/proc/self/status`.
fn os_threads() -> usize {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix("Threads:"))
        .unwrap()
        .trim()
        .parse()
        .unwrap()
}

/// Four workers wait on a channel whose sender a task keeps until the
/// simulation ends; one more is joined.
fn run(seed: u64) -> u32 {
    sim(seed, async {
        let (tx, rx) = mpsc::channel::<u32>();
        let rx = Arc::new(Mutex::new(rx));
        for _ in 0..4 {
            let rx = rx.clone();
            std::thread::spawn(move || while rx.lock().unwrap().recv().is_ok() {});
        }
        tx.send(1).unwrap();
        sim_rt::spawn(async move {
            let _tx = tx;
            std::future::pending::<()>().await
        });
        sim_rt::task::yield_now().await;
        std::thread::spawn(|| 2).join().unwrap()
    })
}

#[test]
fn simulations_that_start_threads_leave_none_behind() {
    assert_eq!(run(0), 2);
    // Let-go threads exit in real time, soon after their simulation.
    let settle = |at_most: usize| {
        for _ in 0..500 {
            if os_threads() <= at_most {
                break;
            }
            sim_rt::sim::without_interception(|| std::thread::sleep(Duration::from_millis(20)));
        }
        os_threads()
    };
    // The first run's let-go threads (and the watchdog's) have settled when
    // the count stops moving.
    let mut before = os_threads();
    loop {
        sim_rt::sim::without_interception(|| std::thread::sleep(Duration::from_millis(100)));
        let now = os_threads();
        if now == before {
            break;
        }
        before = now;
    }
    for seed in 1..300 {
        assert_eq!(run(seed), 2);
    }
    assert_eq!(settle(before), before);
}
