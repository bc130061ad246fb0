//! Chain replication in the simulator: four servers, the master, a client
//! and a fault injector that fails servers.
//!
//! The fault injector (the paper's machine `F`) runs on its own host. Every
//! [`TICK`] it may fail one server, chosen with [`sim_rt::choose`] among
//! the servers still running (the first by default), as long as more than
//! one runs and [`FAULTS_UNTIL`] has not passed. Whether it fails one at a
//! tick is a scheduling choice, not a coin: two tasks, `fail` and `pass`,
//! wake at every tick, and the first of them to run decides the tick. So,
//! as in the paper, a failure happens when the injector gets to run, and
//! an explorer's ordering of the tasks decides when that is.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use explorer::{Explorer, Sampling};
use futures::FutureExt;
use sim_rt::net::TcpListener;
use sim_rt::sim;
use sim_rt::time::{sleep, timeout};

use super::chain_explorer::{self, Staged};
use super::Case;

// The system finds the shared line protocol at `super::lines`.
use super::lines;

#[path = "../chain.rs"]
pub mod system;

use self::system::{Master, Server};

const MASTER: &str = "master:7000";
const SERVERS: [&str; 4] = ["s1:7000", "s2:7000", "s3:7000", "s4:7000"];
/// How many updates the client makes, one after the other (ids 1..).
const UPDATES: u64 = 4;
/// How often the fault injector gets a chance to fail a server: often, as
/// the paper's `F` may run at any step (the network's latency is 1 to 10
/// ms).
pub const TICK: Duration = Duration::from_millis(2);
/// The fault injector stops this long after the simulation starts.
pub const FAULTS_UNTIL: Duration = Duration::from_millis(300);
/// When the checks run: the injector has stopped and the master has had
/// the time to detect every failure and repair the chain.
pub const SETTLED: Duration = Duration::from_millis(800);
/// How long the client tries one update at one head.
const ATTEMPT: Duration = Duration::from_millis(300);

/// The planted bug and how to find it.
pub fn case() -> Case {
    Case {
        name: "chain",
        bug: "the master repairs two failures at once with stale neighbours",
        test: |bug| test(bug).boxed_local(),
        explorer,
        custom: Some(|e| e.explorer(Staged::new())),
    }
}

/// The staged round robin of the paper's case study, stratified sampling:
/// with the master and the fault injector first once the chain has
/// started, failures come at once without a delay.
pub fn explorer() -> Explorer {
    Explorer::new()
        .name("chain")
        .explorer(Staged::new())
        .search(Sampling::new(2))
        .executions(2_000)
}

/// Starts the fault injector on its own host: see the module docs.
fn fault_injector() {
    sim::host("fault").start(|| async {
        let alive = Arc::new(Mutex::new(SERVERS.to_vec()));
        let decided = Arc::new(AtomicU64::new(0));
        let mut tasks = Vec::new();
        for fail in [false, true] {
            let (alive, decided) = (alive.clone(), decided.clone());
            tasks.push(sim_rt::spawn(async move {
                if fail {
                    sim::annotate(chain_explorer::FAULT);
                }
                let mut tick = sim_rt::time::interval(TICK);
                tick.tick().await;
                for n in 1.. {
                    tick.tick().await;
                    let mut alive = alive.lock().unwrap();
                    if sim::elapsed() >= FAULTS_UNTIL || alive.len() <= 1 {
                        return;
                    }
                    if decided.load(Ordering::Relaxed) >= n {
                        continue; // the other task ran first at this tick
                    }
                    decided.store(n, Ordering::Relaxed);
                    if fail {
                        let i = sim_rt::choose(alive.len());
                        let server = alive.remove(i);
                        let host = server.split(':').next().unwrap_or(server);
                        sim::stop(host);
                    }
                }
            }));
        }
        for t in tasks {
            let _ = t.await;
        }
    });
}

/// One simulation: start the chain, write updates through failures, then
/// check chain replication's properties.
pub async fn test(bug: bool) {
    for server in SERVERS {
        let host = server.split(':').next().unwrap();
        sim::host(host).start(move || async move {
            let listener = TcpListener::bind("0.0.0.0:7000").await?;
            Server::new(server).serve(listener).await
        });
    }
    sim::host("master").start(move || async move {
        sim::annotate(chain_explorer::MASTER);
        let listener = TcpListener::bind("0.0.0.0:7000").await?;
        let servers = SERVERS.iter().map(|s| s.to_string()).collect();
        Master::new(servers)
            .stale_neighbours(bug)
            .serve(listener)
            .await
    });
    fault_injector();

    // The chain has started once the master has seen an update through it.
    while system::chain(MASTER)
        .await
        .expect("the master answers")
        .is_none()
    {
        sleep(Duration::from_millis(5)).await;
    }
    sim::annotate(chain_explorer::STARTED);

    // The client: updates one after the other, each at the head of the
    // moment, retried until the checks are due; a query at the tail after
    // each acknowledgement.
    let mut acknowledged = Vec::new();
    let mut seen_at_tail: Vec<u64> = Vec::new();
    for id in 1..=UPDATES {
        while sim::elapsed() < SETTLED {
            let chain = system::chain(MASTER).await.expect("the master answers");
            let Some(head) = chain.as_ref().and_then(|c| c.first()) else {
                break;
            };
            if let Ok(Ok(Some(_seq))) = timeout(ATTEMPT, system::update(head, id)).await {
                acknowledged.push(id);
                break;
            }
            sleep(TICK).await;
        }
        let chain = system::chain(MASTER).await.expect("the master answers");
        let tail = chain.as_ref().and_then(|c| c.last()).expect("a chain");
        if let Ok(Ok(Some(history))) = timeout(ATTEMPT, system::query(tail)).await {
            // A query never loses what an earlier one returned.
            assert!(
                history.starts_with(&seen_at_tail),
                "update durability: the tail {tail} answered {history:?} after {seen_at_tail:?}"
            );
            seen_at_tail = history;
        }
    }

    // Let the injector stop and the master repair what it broke.
    let now = sim::elapsed();
    if now < SETTLED {
        sleep(SETTLED - now).await;
    }
    let chain = system::chain(MASTER)
        .await
        .expect("the master answers")
        .expect("the chain has started");
    let mut histories = Vec::new();
    for (i, server) in chain.iter().enumerate() {
        let status = system::status(server)
            .await
            .expect("a server in the master's chain is running");
        let pred = i.checked_sub(1).map(|j| chain[j].clone());
        let succ = chain.get(i + 1).cloned();
        assert!(
            status.pred == pred && status.succ == succ,
            "chain integrity: the master's chain is {chain:?}, but {server} links {:?} -> \
             {server} -> {:?}",
            status.pred,
            status.succ
        );
        histories.push(status.history);
    }
    assert_eq!(
        acknowledged,
        (1..=UPDATES).collect::<Vec<_>>(),
        "progress: every update is acknowledged through a repaired chain"
    );
    // Update propagation: each server's history is a prefix of its
    // predecessor's, and every acknowledged update is at the tail.
    for (i, pair) in histories.windows(2).enumerate() {
        assert!(
            pair[0].starts_with(&pair[1]),
            "prefix order: {} holds {:?} but its successor {} holds {:?}",
            chain[i],
            pair[0],
            chain[i + 1],
            pair[1]
        );
    }
    let tail = histories.last().expect("a chain");
    for id in &acknowledged {
        assert!(
            tail.contains(id),
            "update durability: update {id} was acknowledged but the tail {} holds {tail:?}",
            chain.last().expect("a chain")
        );
    }
}
