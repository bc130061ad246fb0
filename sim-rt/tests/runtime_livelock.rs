//! A busy wait that can never end is reported as a livelock naming the
//! spinning task, not as the step limit; a fair wait completes. With a
//! paused clock (tokio's `start_paused`) polls take no time, so a spin
//! waiting for a timer never ends, as on tokio; with a poll cost
//! (`Builder::poll_cost`), each poll moves the clock and the timer fires,
//! as real time would.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use sim_rt::runtime::{Builder, FailureKind};

/// A waiter spins on `yield_now` until a flag is set by a task that sleeps
/// first. With a paused clock, the clock only moves when nothing can run,
/// and the spinner can always run: the sleeper never wakes.
async fn spin_wait(fair: bool) {
    let flag = Arc::new(AtomicBool::new(false));
    let setter = flag.clone();
    sim_rt::spawn(async move {
        sim_rt::time::sleep(Duration::from_millis(5)).await;
        setter.store(true, Ordering::SeqCst);
    });
    let waiter = sim_rt::spawn(async move {
        while !flag.load(Ordering::SeqCst) {
            if fair {
                sim_rt::time::sleep(Duration::from_millis(1)).await;
            } else {
                sim_rt::task::yield_now().await;
            }
        }
    });
    waiter.await.unwrap();
}

#[test]
fn a_spin_wait_is_reported_as_a_livelock_naming_the_spinner() {
    let rt = Builder::new_current_thread()
        .enable_all()
        .start_paused(true)
        .build()
        .unwrap();
    let failure = rt.try_block_on(spin_wait(false)).unwrap_err();
    assert_eq!(failure.kind(), FailureKind::Livelock);
    let text = failure.to_string();
    assert!(text.contains("livelock: for 100000 steps"), "{text}");
    assert!(text.contains("spinning tasks:"), "{text}");
    // The waiter (spawned at line 24 of this file) and nobody else.
    let spinners: Vec<&str> = text
        .lines()
        .filter(|l| l.trim().starts_with("- task"))
        .collect();
    assert_eq!(spinners.len(), 1, "{text}");
    assert!(spinners[0].contains("runtime_livelock.rs:24"), "{text}");
    // Long before the step limit.
    assert!(failure.step() < 200_010, "{}", failure.step());
}

#[test]
fn with_polls_moving_the_clock_a_spin_wait_for_a_timer_completes() {
    let rt = Builder::new_current_thread()
        .enable_all()
        .poll_cost(Duration::from_micros(1))
        .build()
        .unwrap();
    rt.block_on(async {
        let start = sim_rt::time::Instant::now();
        spin_wait(false).await;
        // The 5 ms sleep fired at its tick once the spinner's polls passed
        // it.
        let waited = start.elapsed();
        assert!(waited >= Duration::from_millis(5), "{waited:?}");
        assert!(waited <= Duration::from_millis(7), "{waited:?}");
    });
}

#[test]
fn a_fair_wait_completes() {
    let rt = Builder::new_current_thread().enable_all().build().unwrap();
    rt.block_on(spin_wait(true));
}

#[test]
fn the_limit_is_the_builders_and_zero_turns_it_off() {
    let rt = Builder::new_current_thread()
        .enable_all()
        .start_paused(true)
        .livelock_steps(1_000)
        .build()
        .unwrap();
    let failure = rt.try_block_on(spin_wait(false)).unwrap_err();
    assert!(failure.to_string().contains("for 1000 steps"), "{failure}");

    let rt = Builder::new_current_thread()
        .enable_all()
        .start_paused(true)
        .livelock_steps(0)
        .max_steps(50_000)
        .build()
        .unwrap();
    let failure = rt.try_block_on(spin_wait(false)).unwrap_err();
    assert_eq!(failure.kind(), FailureKind::StepLimit);
}

/// Many tasks that each yield once are not spinning: a task's first
/// self-wake in a streak does not count.
#[test]
fn many_tasks_yielding_once_are_not_a_livelock() {
    let rt = Builder::new_current_thread()
        .enable_all()
        .livelock_steps(100)
        .build()
        .unwrap();
    let sum = rt.block_on(async {
        let handles: Vec<_> = (0..10_000u64)
            .map(|i| {
                sim_rt::spawn(async move {
                    sim_rt::task::yield_now().await;
                    i
                })
            })
            .collect();
        let mut sum = 0;
        for h in handles {
            sum += h.await.unwrap();
        }
        sum
    });
    assert_eq!(sum, 10_000 * 9_999 / 2);
}

/// The main future spinning is caught too.
#[test]
fn the_main_future_spinning_is_a_livelock() {
    let rt = Builder::new_current_thread()
        .enable_all()
        .start_paused(true)
        .livelock_steps(500)
        .build()
        .unwrap();
    let failure = rt
        .try_block_on(async {
            let never = Arc::new(AtomicBool::new(false));
            let set = never.clone();
            sim_rt::spawn(async move {
                sim_rt::time::sleep(Duration::from_secs(1)).await;
                set.store(true, Ordering::SeqCst);
            });
            while !never.load(Ordering::SeqCst) {
                sim_rt::task::yield_now().await;
            }
        })
        .unwrap_err();
    assert_eq!(failure.kind(), FailureKind::Livelock);
    assert!(
        failure
            .to_string()
            .contains("the future passed to block_on"),
        "{failure}"
    );
}

/// A task that yields only because its coop budget ran out is working, not
/// spinning: draining 100,000 queued messages takes hundreds of polls that
/// each wake themselves, with nothing else happening, and is no livelock.
#[test]
fn yields_forced_by_the_coop_budget_are_work() {
    let rt = Builder::new_current_thread()
        .enable_all()
        .livelock_steps(50)
        .build()
        .unwrap();
    let drained = rt.block_on(async {
        let (tx, mut rx) = sim_rt::sync::mpsc::unbounded_channel::<u32>();
        for i in 0..100_000 {
            tx.send(i).unwrap();
        }
        drop(tx);
        let drain = sim_rt::spawn(async move {
            let mut n = 0u32;
            while rx.recv().await.is_some() {
                n += 1;
            }
            n
        });
        drain.await.unwrap()
    });
    assert_eq!(drained, 100_000);
}

/// tokio's `timeout_is_not_exhausted_by_future`: a loop that never waits
/// (reads of `io::empty()`) inside a timeout. It yields only because its
/// coop budget runs out, so some task can always run and the clock never
/// reaches the timeout's deadline while the clock is paused (on tokio only
/// real time passing ends it; with a paused clock it hangs). The run ends
/// with a livelock report that names the budget, not with a hang: each poll
/// is a budget-forced yield while a timer waits. Unpaused with a poll cost,
/// the polls move the clock and the timeout elapses, as on tokio.
#[test]
fn budget_yields_that_starve_a_timer_are_a_livelock() {
    let busy_in_timeout = || async {
        let busy = async {
            let mut buffer = [0u8; 1];
            loop {
                use sim_rt::io::AsyncReadExt;
                let _ = sim_rt::io::empty().read(&mut buffer).await;
            }
        };
        sim_rt::time::timeout(Duration::from_millis(1), busy).await
    };
    let rt = Builder::new_current_thread()
        .enable_all()
        .poll_cost(Duration::from_micros(1))
        .build()
        .unwrap();
    assert!(rt.block_on(busy_in_timeout()).is_err(), "elapsed");

    let rt = Builder::new_current_thread()
        .enable_all()
        .start_paused(true)
        .livelock_steps(200)
        .build()
        .unwrap();
    let failure = rt.try_block_on(busy_in_timeout()).unwrap_err();
    assert_eq!(failure.kind(), FailureKind::Livelock);
    let text = failure.to_string();
    assert!(text.contains("for 200 steps"), "{text}");
    assert!(
        text.contains("runs out of its cooperative budget"),
        "{text}"
    );
}
