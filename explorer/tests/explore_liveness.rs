//! A liveness failure (a hot monitor past its limit, an "eventually" that
//! never held) is found by the explorer like any other failure, and its
//! token replays it step for step.

mod common;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use explorer::{Explorer, Liveness, RoundRobin, Sampling, Verdict, WalkFaults};
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
    let explorer = || common::sampling(RoundRobin::default(), 2, 500);
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

/// A worker host does a 200 ms job; a worker that was reset forgets it had
/// one (the bug) and idles. The test's bound (100 ms) is shorter than the
/// job, so every execution ends with the job undone: only walks tell the
/// slow ones (no reset) from the dead ones (reset before the job ended).
async fn forgetful_worker() {
    use std::sync::atomic::AtomicU32;
    let done = Arc::new(AtomicBool::new(false));
    let seen = done.clone();
    sim_rt::sim::eventually("the job is done", move || seen.load(Ordering::SeqCst));
    let starts = Arc::new(AtomicU32::new(0));
    sim_rt::sim::host("worker").start(move || {
        let (done, starts) = (done.clone(), starts.clone());
        async move {
            if starts.fetch_add(1, Ordering::SeqCst) == 0 {
                for _ in 0..20 {
                    sim_rt::time::sleep(Duration::from_millis(10)).await;
                }
                done.store(true, Ordering::SeqCst);
            }
            for _ in 0.. {
                sim_rt::time::sleep(Duration::from_millis(50)).await;
            }
        }
    });
    sim_rt::time::sleep(Duration::from_millis(100)).await;
}

fn with_resets(explorer: Explorer) -> Explorer {
    explorer.runtime(|b| {
        b.fault_injector(
            sim_rt::sim::FaultInjector::new()
                .max_resets(1)
                .max_partitions(0),
        );
    })
}

const WALKS: u32 = 4;
const WALK_LENGTH: u64 = 2_000;

fn liveness_explorer() -> Explorer {
    with_resets(
        common::sampling(RoundRobin::default(), 1, 300)
            .liveness(Liveness::new().walks(WALKS).walk_length(WALK_LENGTH)),
    )
}

#[test]
fn slow_executions_are_not_failures() {
    // No faults: every execution ends with the job undone, and a walk from
    // its end finishes it.
    let report = common::sampling(RoundRobin::default(), 2, 50)
        .liveness(Liveness::new().walks(WALKS).walk_length(WALK_LENGTH))
        .run(forgetful_worker);
    assert!(!report.failed(), "{report}");
    // Every execution the budget admitted (whole samples: 49 of 50, the
    // first sample running to the full bound) is slow.
    assert_eq!((report.executions, report.slow), (49, 49), "{report}");
    assert!(report.to_string().contains("49 slow"), "{report}");

    // With walks off, the same executions are reported as indeterminate.
    let report = Explorer::new()
        .progress(false)
        .executions(5)
        .liveness(Liveness::new().walks(0))
        .run(forgetful_worker);
    let found = report.failure.expect("indeterminate without walks");
    assert_eq!(found.failure.liveness_dead(), Some(false));
    assert!(found.liveness.is_none());
}

#[test]
fn a_reset_is_the_critical_transition() {
    let report = liveness_explorer().run(forgetful_worker);
    let found = report.failure.as_ref().expect("a reset during the job");
    assert_eq!(found.failure.kind(), FailureKind::Liveness);
    let finding = found.liveness.as_ref().expect("walks decided it");
    assert_eq!(finding.property, "the job is done");
    assert_eq!(finding.walks, WALKS);
    // Partitions heal at a walk's start by default; a reset host stays
    // reset, and the forgotten job's worker goes on sleeping: timers keep
    // firing and the job never comes.
    assert_eq!(finding.faults, WalkFaults::Heal);
    assert!(
        matches!(&finding.verdict, Verdict::Livelock { evidence } if evidence.contains("the clock moved")),
        "{:?}",
        finding.verdict
    );
    let critical = finding.critical.as_ref().expect("searched by default");
    let step = critical.step.expect("the start is live");
    assert_eq!(
        critical.event, "reset worker (fault injector)",
        "the critical step is the worker's reset"
    );
    let text = report.to_string();
    eprintln!("{text}");
    assert!(text.contains("livelock: none of 4 walks"), "{text}");
    assert!(
        text.contains(&format!(
            "confidence: from just before it {} of 4 walks reach the property, from just after \
             it none of 4",
            critical.live_walks
        )),
        "{text}"
    );
    assert!(critical.live_walks >= 1, "{critical:?}");
    // One numbering: the story tells the reset at the transition's step,
    // and the page names that step.
    let told = format!(
        "step {step}, {:?}: reset worker (fault injector)",
        critical.at
    );
    assert!(
        text.contains(&format!("critical transition: {told}")),
        "{text}"
    );
    assert!(found.story.contains(&told), "{text}");
    let page = std::fs::read_to_string(found.picture.as_ref().unwrap()).unwrap();
    assert!(
        page.contains(&format!(
            "step {step}, {:?}: critical transition: reset worker (fault injector)",
            critical.at
        )) && page.contains(&format!(r#"class="named-row" data-step="{step}""#)),
        "the page names the transition's step"
    );
    assert!(
        text.contains("just before it, this walk does: SIM_REPLAY="),
        "{text}"
    );

    // The cost model: at most 2 ceil(log2 N) + 3 probes of at most k walks,
    // each at most N + L steps.
    let n = critical.of;
    let log = 64 - (n - 1).leading_zeros() as u64;
    assert!(u64::from(critical.probes) <= 2 * log + 3, "{critical:?}");
    assert!(critical.walks <= u64::from(WALKS) * u64::from(critical.probes));
    assert!(critical.steps <= critical.walks * (n + WALK_LENGTH));

    // Deterministic: the same exploration finds the same transition.
    let again = liveness_explorer().run(forgetful_worker);
    let again = again.failure.unwrap().liveness.unwrap().critical.unwrap();
    assert_eq!(again.step, critical.step);
    assert_eq!(again.dead, critical.dead);
    assert_eq!(again.live, critical.live);

    // The tokens replay: the dead walk fails, the live one reaches the
    // property.
    let dead = liveness_explorer()
        .replay(critical.dead.to_string())
        .run(forgetful_worker);
    assert!(dead.failed(), "{dead}");
    let live = liveness_explorer()
        .replay(critical.live.as_ref().unwrap().to_string())
        .run(forgetful_worker);
    assert!(!live.failed(), "{live}");
    // And the failure's own token replays the confirmed failure.
    let replayed = liveness_explorer()
        .replay(found.token.to_string())
        .run(forgetful_worker);
    let replayed = replayed.failure.expect("replays");
    assert_eq!(replayed.trace, found.trace);
    assert_eq!(
        replayed.liveness.unwrap().critical.unwrap().step,
        Some(step)
    );
}

/// Host "a" pings "b" every 10 ms; "b" is done after 20 pings. The bound
/// (50 ms) is short of that, and a partition of a | b stalls it for as long
/// as it lasts.
async fn pings() {
    use std::sync::atomic::AtomicU32;
    let pings = Arc::new(AtomicU32::new(0));
    let seen = pings.clone();
    sim_rt::sim::eventually("b heard 20 pings", move || {
        seen.load(Ordering::SeqCst) >= 20
    });
    sim_rt::sim::host("a").start(|| async {
        let sock = sim_rt::net::UdpSocket::bind("0.0.0.0:0").await.unwrap();
        for _ in 0.. {
            sock.send_to(b"ping", "b:9").await.unwrap();
            sim_rt::time::sleep(Duration::from_millis(10)).await;
        }
    });
    sim_rt::sim::host("b").start(move || {
        let pings = pings.clone();
        async move {
            let sock = sim_rt::net::UdpSocket::bind("0.0.0.0:9").await.unwrap();
            let mut buf = [0u8; 8];
            for _ in 0.. {
                sock.recv_from(&mut buf).await.unwrap();
                pings.fetch_add(1, Ordering::SeqCst);
            }
        }
    });
    sim_rt::time::sleep(Duration::from_millis(50)).await;
}

#[test]
fn healed_walks_recover_from_a_partition() {
    let explorer = |faults| {
        common::sampling(RoundRobin::default(), 1, 60)
            .runtime(|b| {
                b.fault_injector(
                    sim_rt::sim::FaultInjector::new()
                        .max_resets(0)
                        .max_partitions(1),
                );
            })
            .liveness(
                Liveness::new()
                    .walks(WALKS)
                    .walk_length(WALK_LENGTH)
                    .faults(faults)
                    .critical_transition(false),
            )
    };
    // Under a lasting partition "b" never hears enough: dead.
    let kept = explorer(WalkFaults::Keep).run(pings);
    let found = kept.failure.as_ref().expect("a partition stalls the pings");
    assert!(found.liveness.is_some(), "{kept}");
    assert!(kept.to_string().contains("(no new faults)"), "{kept}");
    // Once the network heals, every execution recovers: slow, not dead.
    let healed = explorer(WalkFaults::Heal).run(pings);
    assert!(!healed.failed(), "{healed}");
    assert_eq!(healed.slow, 60, "{healed}");
}

/// Main waits for a flag another task sets, spinning on `yield_now`.
async fn spin_wait() {
    let flag = Arc::new(AtomicBool::new(false));
    let set = flag.clone();
    sim_rt::spawn(async move { set.store(true, Ordering::SeqCst) });
    while !flag.load(Ordering::SeqCst) {
        sim_rt::task::yield_now().await;
    }
}

/// The text of the failure `report` found, `expect`ed, which must be a
/// livelock.
fn livelock_text(report: explorer::Report, expect: &str) -> String {
    let found = report.failure.expect(expect);
    assert_eq!(
        found.failure.kind(),
        FailureKind::Livelock,
        "{}",
        found.failure
    );
    found.failure.to_string()
}

#[test]
fn fair_explorers_let_a_spin_wait_end() {
    let explorer = |fair| {
        Explorer::new()
            .progress(false)
            .fair(fair)
            .search(Sampling::new(2))
            .executions(50)
            .runtime(|b| {
                b.livelock_steps(1_000);
            })
    };
    // Run to completion keeps polling the task that just woke (itself), so
    // without fairness the setter never runs.
    let text = livelock_text(explorer(false).run(spin_wait), "rtc starves the setter");
    assert!(text.contains("main"), "{text}");
    // With CHESS's rule every schedule ends.
    let reports = [
        explorer(true)
            .explorer(explorer::Rtc::default())
            .run(spin_wait),
        explorer(true)
            .explorer(RoundRobin::default())
            .run(spin_wait),
        explorer(true)
            .explorer(explorer::RandomizedRoundRobin::default())
            .run(spin_wait),
        explorer(true)
            .explorer(explorer::Pct::new(3))
            .run(spin_wait),
        explorer(true)
            .explorer(explorer::Random::default())
            .run(spin_wait),
    ];
    for report in reports {
        assert!(!report.failed(), "{report}");
    }
}

#[test]
fn a_spin_that_cannot_end_is_a_livelock_even_when_fair() {
    let report = Explorer::new()
        .progress(false)
        .executions(5)
        .runtime(|b| {
            b.livelock_steps(1_000);
        })
        .run(|| async {
            let never = Arc::new(AtomicBool::new(false));
            let spinner = sim_rt::spawn({
                let never = never.clone();
                async move {
                    while !never.load(Ordering::SeqCst) {
                        sim_rt::task::yield_now().await;
                    }
                }
            });
            spinner.await.unwrap();
        });
    let text = livelock_text(report, "nothing sets the flag");
    assert!(text.contains("spinning tasks"), "{text}");
    assert!(
        text.contains("explore_liveness.rs"),
        "names the spinner's spawn: {text}"
    );
}
