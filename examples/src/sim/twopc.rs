//! Two-phase commit in the simulator: a coordinator and three
//! participants, two clients writing the same key at once.

use std::time::Duration;

use explorer::{Explorer, Rtc, Sampling};
use futures::FutureExt;
use sim_rt::net::TcpListener;
use sim_rt::sim;

use super::Case;

#[path = "../twopc.rs"]
pub mod system;

use self::system::{Coordinator, Decision, Participant};

const COORDINATOR: &str = "coordinator:7000";
const PARTICIPANTS: [&str; 3] = ["p1:7000", "p2:7000", "p3:7000"];

/// The planted bug and how to find it.
pub fn case() -> Case {
    Case {
        name: "2pc",
        bug: "a participant that voted yes treats a timeout as abort",
        test: |bug| test(bug).boxed_local(),
        explorer,
        custom: None,
    }
}

/// Run-to-completion, stratified sampling: the failing schedules need a
/// few slow deliveries, each one delay.
pub fn explorer() -> Explorer {
    Explorer::new()
        .name("2pc")
        .explorer(Rtc::default())
        .search(Sampling::new(3))
        .executions(5_000)
}

/// One simulation: start the system, run two concurrent clients, then
/// check atomicity: every participant reaches the coordinator's decision.
pub async fn test(bug: bool) {
    sim::host("coordinator").start(|| async {
        let listener = TcpListener::bind("0.0.0.0:7000").await?;
        let participants = PARTICIPANTS.iter().map(|p| p.to_string()).collect();
        Coordinator::new(participants).serve(listener).await
    });
    for (i, _) in PARTICIPANTS.iter().enumerate() {
        sim::host(format!("p{}", i + 1)).start(move || async move {
            let listener = TcpListener::bind("0.0.0.0:7000").await?;
            Participant::new(COORDINATOR)
                .timeout_aborts(bug)
                .serve(listener)
                .await
        });
    }

    // Two clients, two transactions each, all on the same key.
    let clients: Vec<_> = (0..2u64)
        .map(|c| {
            sim_rt::spawn(async move {
                let mut results = Vec::new();
                for t in 0..2 {
                    let id = 10 * (c + 1) + t;
                    let committed = system::transaction(COORDINATOR, id, "x", &format!("v{id}"))
                        .await
                        .expect("the coordinator answers");
                    results.push((id, committed));
                }
                results
            })
        })
        .collect();
    let mut results = Vec::new();
    for c in clients {
        results.extend(c.await.expect("a client finished"));
    }

    // Atomicity: a committed transaction is committed everywhere; an
    // aborted one nowhere. Uncertain participants get a while to ask.
    for (id, committed) in results {
        let expected = if committed {
            Decision::Commit
        } else {
            Decision::Abort
        };
        for p in PARTICIPANTS {
            let mut outcome = None;
            for _ in 0..20 {
                outcome = system::outcome(p, id)
                    .await
                    .expect("the participant answers");
                if outcome.is_some() {
                    break;
                }
                sim_rt::time::sleep(Duration::from_millis(50)).await;
            }
            match outcome {
                Some(d) => assert_eq!(
                    d, expected,
                    "atomicity: transaction {id} was {expected:?} by the coordinator \
                     but {p} decided {d:?}"
                ),
                // Never prepared (the coordinator gave up first): fine for
                // an abort.
                None => assert!(
                    !committed,
                    "transaction {id} committed but {p} never learned of it"
                ),
            }
        }
    }
}
