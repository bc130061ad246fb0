//! Liveness verdicts under the default settings (no `Builder::liveness_walk`,
//! no `Liveness` settings): a stuck election is *dead*, a retry loop that
//! never succeeds is a *livelock*, and a correct system that only stalls
//! while a partition lasts is never reported, whatever the strategy.

use std::cell::Cell;
use std::rc::Rc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;
use std::time::Duration;

use explorer::{
    Exhaustive, Explorer, Pct, Random, RandomizedRoundRobin, RoundRobin, Rtc, Sampling, Swarm,
    Verdict, Walk,
};
use sim_rt::net::UdpSocket;
use sim_rt::sim::{self, FaultInjector};
use sim_rt::time::sleep;

/// Three voters and a candidate on their own hosts. The candidate asks
/// each voter once for its vote; a voter votes once. A leader needs two
/// votes. The candidate's host may be reset (the injector): restarted, it
/// does not know it was a candidate and waits, and the voters, having
/// voted, wait too. Nothing more can happen.
async fn vote_once() {
    let leader = Rc::new(Cell::new(false));
    let seen = leader.clone();
    sim::eventually("a leader is elected", move || seen.get());
    let starts = Rc::new(Cell::new(0u32));
    for v in 0..3 {
        sim::host(format!("voter{v}")).start(|| async {
            let socket = UdpSocket::bind("0.0.0.0:7").await.unwrap();
            let mut buf = [0u8; 16];
            let (_, from) = socket.recv_from(&mut buf).await.unwrap();
            socket.send_to(b"yes", from).await.unwrap();
            // Voted: never again.
            std::future::pending::<()>().await;
        });
    }
    sim::host("candidate").start(move || {
        let (leader, starts) = (leader.clone(), starts.clone());
        async move {
            starts.set(starts.get() + 1);
            let socket = UdpSocket::bind("0.0.0.0:8").await.unwrap();
            if starts.get() == 1 {
                for v in 0..3 {
                    socket
                        .send_to(b"vote?", format!("voter{v}:7"))
                        .await
                        .unwrap();
                }
            }
            let mut votes = 0;
            let mut buf = [0u8; 16];
            while votes < 2 {
                socket.recv_from(&mut buf).await.unwrap();
                votes += 1;
            }
            leader.set(true);
        }
    });
    sleep(Duration::from_millis(30)).await;
}

fn with_one_reset(e: Explorer) -> Explorer {
    e.progress(false).runtime(|b| {
        b.fault_injector(FaultInjector::new().max_resets(1).max_partitions(0));
    })
}

#[test]
fn a_stuck_election_is_dead() {
    let report = with_one_reset(Explorer::new().executions(300)).run(vote_once);
    let found = report
        .failure
        .as_ref()
        .unwrap_or_else(|| panic!("{report}"));
    let finding = found.liveness.as_ref().expect("walks decided it");
    assert_eq!(finding.verdict, Verdict::Dead, "{report}");
    let text = report.to_string();
    assert!(text.contains("  dead: all 10 walks from the end"), "{text}");
    let critical = finding.critical.as_ref().expect("searched by default");
    assert!(
        critical.event.contains("fault injector"),
        "the candidate's reset: {}",
        critical.event
    );
}

/// A client updates a register with compare-and-swap, retrying every 5 ms
/// on a conflict; the bug: on a conflict it retries with the version it
/// read first, never re-reading, so once another write got in, every retry
/// conflicts, forever.
async fn stale_retry() {
    let done = Rc::new(Cell::new(false));
    let seen = done.clone();
    sim::eventually("the client's update is applied", move || seen.get());
    sim::host("register").start(|| async {
        let socket = UdpSocket::bind("0.0.0.0:7").await.unwrap();
        let mut version = 0u8;
        let mut buf = [0u8; 4];
        while let Ok((n, from)) = socket.recv_from(&mut buf).await {
            let reply = match &buf[..n] {
                [b'r'] => [b'v', version],
                [b'w', expected] if *expected == version => {
                    version += 1;
                    [b'o', version]
                }
                _ => [b'x', version],
            };
            socket.send_to(&reply, from).await.unwrap();
        }
    });
    sim::host("other").start(|| async {
        let socket = UdpSocket::bind("0.0.0.0:0").await.unwrap();
        // A blind write of version 0 at some point.
        if sim::choose(2) == 1 {
            socket.send_to(&[b'w', 0], "register:7").await.unwrap();
        }
    });
    sim::host("client").start(move || {
        let done = done.clone();
        async move {
            let socket = UdpSocket::bind("0.0.0.0:0").await.unwrap();
            let mut buf = [0u8; 4];
            socket.send_to(b"r", "register:7").await.unwrap();
            socket.recv_from(&mut buf).await.unwrap();
            let read = buf[1];
            loop {
                socket.send_to(&[b'w', read], "register:7").await.unwrap();
                socket.recv_from(&mut buf).await.unwrap();
                if buf[0] == b'o' {
                    done.set(true);
                    return;
                }
                sleep(Duration::from_millis(5)).await;
            }
        }
    });
    sleep(Duration::from_millis(50)).await;
}

#[test]
fn a_retry_that_never_succeeds_is_a_livelock() {
    let report = Explorer::new()
        .executions(300)
        .progress(false)
        .run(stale_retry);
    let found = report
        .failure
        .as_ref()
        .unwrap_or_else(|| panic!("{report}"));
    let finding = found.liveness.as_ref().expect("walks decided it");
    let Verdict::Livelock { evidence } = &finding.verdict else {
        panic!("{report}");
    };
    // The retries: the clock moves and packets keep going.
    assert!(
        evidence.contains("the clock moved") && !evidence.contains(" 0 packets"),
        "{evidence}"
    );
    // The busiest tasks by host, as the story names them: the retrying
    // client and the register that answers it.
    assert!(
        evidence.contains(" on client ") && evidence.contains(" on register "),
        "{evidence}"
    );
    let text = report.to_string();
    assert!(text.contains("  livelock: none of 10 walks"), "{text}");
}

/// An echo server on host "server" and a [`pinger`] on host "client", and
/// the property that the client hears `replies` replies.
fn echo_service(replies: u32) {
    let heard = Arc::new(AtomicU32::new(0));
    let seen = heard.clone();
    sim::eventually(format!("the client heard {replies} replies"), move || {
        seen.load(Ordering::Relaxed) >= replies
    });
    sim::host("server").start(|| async {
        let socket = UdpSocket::bind("0.0.0.0:7").await.unwrap();
        let mut buf = [0u8; 8];
        while let Ok((n, from)) = socket.recv_from(&mut buf).await {
            let _ = socket.send_to(&buf[..n], from).await;
        }
    });
    sim::host("client").start(move || pinger(heard.clone()));
}

/// Pings the server every millisecond, counting its replies.
async fn pinger(replies: Arc<AtomicU32>) {
    let socket = Arc::new(UdpSocket::bind("0.0.0.0:0").await.unwrap());
    let listen = socket.clone();
    sim_rt::spawn(async move {
        let mut buf = [0u8; 8];
        while listen.recv_from(&mut buf).await.is_ok() {
            replies.fetch_add(1, Ordering::Relaxed);
        }
    });
    for _ in 0.. {
        let _ = socket.send_to(b"ping", "server:7").await;
        sleep(Duration::from_millis(1)).await;
    }
}

/// A correct service: a client pings a server every millisecond and counts
/// the replies; a partition cuts them apart for 3 s (made by the test
/// itself, healed by it), so every execution's 100 ms ends with the
/// property unmet. Only slow: never reported.
async fn chatty_through_an_outage() {
    echo_service(10);
    sim::partition("client", "server");
    sim_rt::spawn(async {
        sleep(Duration::from_secs(3)).await;
        sim::heal("client", "server");
    });
    sleep(Duration::from_millis(100)).await;
}

/// Every built-in strategy, 500 executions.
fn strategies() -> Vec<(&'static str, Explorer)> {
    vec![
        ("default", Explorer::new()),
        (
            "walk",
            Explorer::new().explorer(Random::default()).search(Walk),
        ),
        ("pct", Explorer::new().explorer(Pct::new(3)).search(Walk)),
        ("swarm", Explorer::new().search(Swarm)),
        (
            "pct-swarm",
            Explorer::new().explorer(Pct::new(3)).search(Swarm),
        ),
        ("adaptive", Explorer::new().adaptive()),
        (
            "ss-rtc",
            Explorer::new()
                .explorer(Rtc::default())
                .search(Sampling::new(3)),
        ),
        (
            "ss-rr",
            Explorer::new()
                .explorer(RoundRobin::default())
                .search(Sampling::new(3)),
        ),
        (
            "ss-prr",
            Explorer::new()
                .explorer(RandomizedRoundRobin::default())
                .search(Sampling::new(3)),
        ),
        (
            "ses-rtc",
            Explorer::new()
                .explorer(Rtc::default())
                .search(Exhaustive::new(2)),
        ),
    ]
}

#[test]
fn a_correct_system_stalled_by_a_long_partition_is_never_reported() {
    for (name, e) in strategies() {
        let report = e
            .executions(500)
            .progress(false)
            .run(chatty_through_an_outage);
        assert!(!report.failed(), "{name}: {report}");
        assert!(
            report.slow > 0,
            "{name}: every execution ends early: {report}"
        );
    }
}

/// The same service with the injector's partitions (which it may leave
/// unhealed at the end) instead of the test's own.
async fn chatty() {
    echo_service(200);
    sleep(Duration::from_millis(100)).await;
}

#[test]
fn a_correct_system_under_the_injectors_partitions_is_never_reported() {
    for (name, e) in strategies() {
        let report = e
            .executions(500)
            .progress(false)
            .runtime(|b| {
                b.fault_injector(
                    FaultInjector::new()
                        .max_resets(0)
                        .max_partitions(2)
                        .probability(0.01),
                );
            })
            .run(chatty);
        assert!(!report.failed(), "{name}: {report}");
    }
}

/// A task that will set the flag after an hour, and a main future that
/// returns before it runs: every walk arms the hour's timer and waits,
/// with nothing else to happen, until its time is up.
async fn waits_an_hour() {
    let done = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let seen = done.clone();
    sim::eventually("the hour's job is done", move || {
        seen.load(Ordering::SeqCst)
    });
    sim_rt::spawn(async move {
        sleep(Duration::from_secs(3600)).await;
        done.store(true, Ordering::SeqCst);
    });
}

fn one_execution(
    liveness: explorer::Liveness,
    test: fn() -> std::pin::Pin<Box<dyn std::future::Future<Output = ()>>>,
) -> explorer::Report {
    Explorer::new()
        .progress(false)
        .jobs(1)
        .search(Sampling::new(0))
        .executions(1)
        .liveness(liveness)
        .run(test)
}

fn verdict_of(report: &explorer::Report) -> Verdict {
    let found = report
        .failure
        .as_ref()
        .unwrap_or_else(|| panic!("{report}"));
    let finding = found
        .liveness
        .as_ref()
        .unwrap_or_else(|| panic!("{report}"));
    finding.verdict.clone()
}

/// Waiting for a timer past the walks' end is not a livelock: nothing
/// kept happening. The verdict is unknown, and says what was awaited.
#[test]
fn waiting_for_a_timer_past_the_walks_is_unknown_not_a_livelock() {
    let report = one_execution(
        explorer::Liveness::new().walk_time(Duration::from_secs(60)),
        || Box::pin(waits_an_hour()),
    );
    let Verdict::Unknown { why } = verdict_of(&report) else {
        panic!("{report}");
    };
    assert!(
        // The hour's timer, armed a poll after the start, at its tick.
        why.contains("10 waited with nothing happening") && why.contains("due at 3600.001s"),
        "{why}"
    );
}

/// A task that sleeps 1 ms forever, so nothing ever holds; with `far`,
/// also a task sleeping a day (a daily job, a "never" deadline).
async fn spins(far: bool) {
    sim::eventually("never", || false);
    sim_rt::spawn(async {
        loop {
            sleep(Duration::from_millis(1)).await;
        }
    });
    if far {
        sim_rt::spawn(async {
            sleep(Duration::from_secs(86_400)).await;
        });
    }
    sleep(Duration::from_millis(10)).await;
}

/// A far-off timer does not stretch the walks beyond what their steps can
/// reach, so a busy loop is still a livelock.
#[test]
fn a_far_timer_does_not_hide_a_livelock() {
    let settings = || explorer::Liveness::new().critical_transition(false);
    let near = one_execution(settings(), || Box::pin(spins(false)));
    assert!(
        matches!(verdict_of(&near), Verdict::Livelock { .. }),
        "{near}"
    );
    let far = one_execution(settings(), || Box::pin(spins(true)));
    assert!(
        matches!(verdict_of(&far), Verdict::Livelock { .. }),
        "{far}"
    );
}

/// Settings meaning "no bound" do not overflow: with no bound on a
/// walk's steps it still ends at its time, waiting for the hour; with no
/// bound on its time either, it waits the hour out and the execution is
/// only slow.
#[test]
fn unbounded_walk_settings_are_taken() {
    let steps = explorer::Liveness::new()
        .walk_length(u64::MAX)
        .critical_transition(false);
    let report = one_execution(steps, || Box::pin(waits_an_hour()));
    assert!(
        matches!(verdict_of(&report), Verdict::Unknown { why } if why.contains("waited")),
        "{report}"
    );
    let time = explorer::Liveness::new()
        .walk_time(Duration::MAX)
        .walk_length(10_000);
    let report = one_execution(time, || Box::pin(waits_an_hour()));
    assert!(report.failure.is_none() && report.slow == 1, "{report}");
}
