//! A liveness failure (a hot monitor past its limit, an "eventually" that
//! never held) is found by the explorer like any other failure, and its
//! token replays it step for step.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use explorer::{Explorer, RoundRobin, Sampling};
use sim_rt::runtime::FailureKind;

/// A holder keeps a lease for 120 ms of its 150 ms limit while a busy
/// waiter yields. Delays reorder polls but do not stretch simulated time
/// (the clock moves only when nothing can run), so every schedule releases
/// the lease in time: an exploration must report nothing.
async fn lease() {
    let lease = sim_rt::sim::monitor("the lease is released", Duration::from_millis(150));
    let released = Arc::new(AtomicBool::new(false));
    let seen = released.clone();
    sim_rt::sim::eventually("the second worker got the lease", move || {
        seen.load(Ordering::SeqCst)
    });
    let holder = sim_rt::spawn(async move {
        lease.hot();
        for _ in 0..3 {
            sim_rt::time::sleep(Duration::from_millis(40)).await;
            sim_rt::task::yield_now().await;
        }
        lease.cold();
    });
    let waiter = sim_rt::spawn(async move {
        // The busy waiter: its yields give the scheduler other choices.
        for _ in 0..50 {
            sim_rt::task::yield_now().await;
        }
        released.store(true, Ordering::SeqCst);
    });
    holder.await.unwrap();
    waiter.await.unwrap();
    sim_rt::time::sleep(Duration::from_millis(10)).await;
}

#[test]
fn a_liveness_failure_is_found_and_replays() {
    let explorer = || {
        Explorer::new()
            .progress(false)
            .explorer(RoundRobin::default())
            .search(Sampling::new(2))
            .executions(500)
    };
    // No false positive in 500 schedules.
    explorer().check(lease);

    let stuck = || async {
        let never = Arc::new(AtomicBool::new(false));
        let seen = never.clone();
        sim_rt::sim::eventually("a leader is elected", move || seen.load(Ordering::SeqCst));
        let tick = sim_rt::spawn(async move {
            for _ in 0..10 {
                sim_rt::time::sleep(Duration::from_millis(10)).await;
                // True and false again within one step: properties are
                // checked between steps, so this is never seen.
                if sim_rt::choose(4) == 3 {
                    never.store(true, Ordering::SeqCst);
                }
                never.store(false, Ordering::SeqCst);
            }
        });
        tick.await.unwrap();
    };
    let report = explorer().run(stuck);
    let found = report
        .failure
        .as_ref()
        .expect("never elected, found at once");
    assert_eq!(found.failure.kind(), FailureKind::Liveness);
    assert!(
        found
            .failure
            .to_string()
            .contains("\"a leader is elected\" has not held"),
        "{}",
        found.failure
    );
    let again = explorer().replay(found.token.to_string()).run(stuck);
    let replayed = again.failure.expect("the replay fails the same way");
    assert_eq!(replayed.trace, found.trace);
    assert_eq!(replayed.failure.to_string(), found.failure.to_string());
}
