//! Two-phase commit in the simulator: a coordinator and three
//! participants, each on its own host with its own disk, two clients
//! writing the same key at once, and a fault injector that may reset one
//! host once.

use std::time::Duration;

use explorer::{Explorer, RoundRobin, Sampling};
use futures::FutureExt;
use sim_rt::net::TcpListener;
use sim_rt::sim::{self, FaultInjector};

use super::Case;

// The system finds the shared line protocol at `super::lines`.
use super::lines;

#[path = "../twopc.rs"]
pub mod system;

use self::system::{Coordinator, Decision, Known, Participant};

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

/// One host reset and one partition, anywhere (the runtime's fault
/// injector, at its default probability for random runs); round-robin with
/// stratified sampling: a failing schedule is the default one plus one
/// partition at the right step.
pub fn explorer() -> Explorer {
    Explorer::new()
        .name("2pc")
        .runtime(|b| {
            b.fault_injector(FaultInjector::new().max_resets(1).max_partitions(1));
        })
        .explorer(RoundRobin::default())
        .search(Sampling::new(2))
        .executions(2_000)
}

/// One simulation: start the system, run two concurrent clients, then
/// check atomicity once every participant has settled.
pub async fn test(bug: bool) {
    sim::host("coordinator").start(|| async {
        let participants = PARTICIPANTS.iter().map(|p| p.to_string()).collect();
        let coordinator = Coordinator::open("/2pc", participants).await?;
        coordinator
            .serve(TcpListener::bind("0.0.0.0:7000").await?)
            .await
    });
    for (i, _) in PARTICIPANTS.iter().enumerate() {
        sim::host(format!("p{}", i + 1)).start(move || async move {
            let participant = Participant::open("/2pc", COORDINATOR).await?;
            participant
                .timeout_aborts(bug)
                .serve(TcpListener::bind("0.0.0.0:7000").await?)
                .await
        });
    }

    // Two clients, two transactions each, all on the same key. A client
    // whose coordinator crashed does not know the outcome.
    let clients: Vec<_> = (0..2u64)
        .map(|c| {
            sim_rt::spawn(async move {
                let mut told = Vec::new();
                for t in 0..2 {
                    let id = 10 * (c + 1) + t;
                    let value = format!("v{id}");
                    let reply = system::transaction(COORDINATOR, id, "x", &value).await;
                    told.push((id, reply.ok()));
                }
                told
            })
        })
        .collect();
    let mut told = Vec::new();
    for c in clients {
        told.extend(c.await.expect("a client finished"));
    }
    // The network recovers; the system must then settle.
    sim::heal_all();

    // Atomicity, once every participant has decided (uncertain ones get
    // time to ask): a transaction is committed by every participant or by
    // none, and as the coordinator's log says.
    for (id, client_heard) in told {
        let coordinator = retry(|| system::status(COORDINATOR, id)).await;
        let mut seen = Vec::new();
        for p in PARTICIPANTS {
            let mut known = Known::Pending;
            for _ in 0..40 {
                known = retry(|| system::outcome(p, id)).await;
                if known != Known::Pending {
                    break;
                }
                sim_rt::time::sleep(Duration::from_millis(100)).await;
            }
            seen.push((p, known));
        }
        let committed = coordinator == Some(Decision::Commit);
        let atomic = seen.iter().all(|(_, k)| match k {
            Known::Decided(d) => *d == coordinator.unwrap_or(Decision::Abort),
            Known::Nothing => !committed,
            Known::Pending => false,
        });
        assert!(
            atomic,
            "atomicity: transaction {id}: the coordinator decided {coordinator:?} \
             (its client heard {client_heard:?} committed), the participants: {seen:?}"
        );
    }
}

/// Asks until the host answers (it may be restarting after a reset).
async fn retry<T, F, Fut>(mut ask: F) -> T
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = std::io::Result<T>>,
{
    for _ in 0..50 {
        if let Ok(answer) = ask().await {
            return answer;
        }
        sim_rt::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("a host did not answer for a second")
}
