//! The replicated key-value store in the simulator: three replicas, clients
//! on the main host, and a network that may partition replicas from each
//! other; the clients' history must be linearizable.

use std::time::Duration;

use explorer::{Explorer, Pct, Random, Walk};
use futures::FutureExt;
use sim_rt::net::UdpSocket;
use sim_rt::runtime::Builder;
use sim_rt::sim::{self, FaultInjector};
use sim_rt::time::{sleep, Instant};

use examples::linearizability as lin;

use super::Case;

#[path = "../kv.rs"]
pub mod system;

use self::system::{Client, Replica};

/// The replicas' names, which are also their hosts'.
pub const HOSTS: [&str; 3] = ["r1", "r2", "r3"];
const REPLICAS: [&str; 3] = ["r1:7000", "r2:7000", "r3:7000"];

/// The first leader is elected within this long of the start (replica 0's
/// election timeout, and a vote's round trip); clients start after it.
pub const SETTLE: Duration = Duration::from_millis(130);
/// A client's pause between two operations.
pub const THINK: Duration = Duration::from_millis(20);

/// The planted bug and how to find it.
pub fn case() -> Case {
    Case {
        name: "kv",
        bug: "a leader cut off from the others keeps serving reads without checking its lease",
        test: |bug| test(bug).boxed_local(),
        explorer,
        custom: None,
    }
}

/// The runtime every exploration of the store uses: the fault injector may
/// partition two replicas from each other, twice (isolating the leader
/// takes both), and resets nothing.
pub fn runtime(b: &mut Builder) {
    b.fault_injector(FaultInjector::new().max_resets(0).max_partitions(2))
        .max_time(Duration::from_secs(10));
}

/// PCT walks (depth 3) with the injector's own rate: the failing
/// executions need both partitions, isolating the leader, after the
/// clients start. Over seeds 0-19 PCT walks need 80 executions (median),
/// at most 382; stratified sampling with run-to-completion, which every
/// packet's late-delivery choice gives more places to put a delay, needs
/// 382 (median of ten).
pub fn explorer() -> Explorer {
    Explorer::new()
        .name("kv")
        .runtime(runtime)
        .explorer(Pct::new(3))
        .search(Walk)
        .executions(1_000)
}

/// One random walk of `workload` from `seed` (for the proptest): a single
/// execution of the default random scheduler's kind, reproducible from the
/// seed.
pub fn walk(seed: u64) -> Explorer {
    Explorer::new()
        .name("kv-walk")
        .runtime(|b| {
            b.max_time(Duration::from_secs(10));
        })
        .explorer(Random::default())
        .search(Walk)
        .seed(seed)
        .executions(1)
        .jobs(1)
        .progress(false)
}

/// One client operation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Op {
    /// Read a key.
    Get(&'static str),
    /// Write a key (the value is made unique by the scenario).
    Put(&'static str),
}

/// What the clients do, and what the network does to the replicas.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Workload {
    /// Each client's operations, run one after the other.
    pub clients: Vec<Vec<Op>>,
    /// Cut the first leader off from the other replicas this long after
    /// the clients start (the scenario's own nemesis; `None`: only the
    /// runtime's fault injector, if any, partitions).
    pub isolate_leader_at: Option<Duration>,
}

impl Workload {
    /// The case's workload: a writer and two readers on one key.
    pub fn standard() -> Workload {
        Workload {
            clients: vec![
                vec![Op::Put("x"); 12],
                vec![Op::Get("x"); 24],
                vec![Op::Get("x"); 24],
            ],
            isolate_leader_at: None,
        }
    }
}

/// One simulation of the standard workload.
pub async fn test(bug: bool) {
    run(bug, Workload::standard()).await
}

/// One simulation: start three replicas, run `workload`'s clients on the
/// main host, record what they see, and check that it is linearizable.
///
/// # Panics
///
/// With a message starting `linearizability:` when the history is not.
pub async fn run(bug: bool, workload: Workload) {
    for (i, host) in HOSTS.iter().enumerate() {
        sim::host(*host).start(move || async move {
            let socket = UdpSocket::bind("0.0.0.0:7000").await?;
            let replicas = REPLICAS.iter().map(|r| r.to_string()).collect();
            Replica::new(i, replicas)
                .stale_reads(bug)
                .serve(socket)
                .await
        });
    }
    sleep(SETTLE).await;
    let start = Instant::now();
    let history = lin::Recorder::new();

    if let Some(at) = workload.isolate_leader_at {
        sim_rt::spawn(async move {
            sleep(at).await;
            // The first leader is replica 0 (the shortest election
            // timeout).
            sim::partition_groups(&HOSTS[..1], &HOSTS[1..]);
        });
    }

    let clients: Vec<_> = workload
        .clients
        .into_iter()
        .enumerate()
        .map(|(c, ops)| {
            let history = history.clone();
            sim_rt::spawn(async move {
                let socket = UdpSocket::bind("0.0.0.0:0").await.unwrap();
                let replicas: Vec<String> = REPLICAS.iter().map(|r| r.to_string()).collect();
                let mut client = Client::new(socket, &replicas).await.unwrap();
                for (i, op) in ops.into_iter().enumerate() {
                    let now = || start.elapsed();
                    match op {
                        Op::Get(key) => {
                            let call = history.invoke(c, lin::Input::Get(key.into()), now());
                            if let Ok(v) = client.get(key).await {
                                history.complete(call, lin::Output::Value(v), now());
                            }
                        }
                        Op::Put(key) => {
                            let value = format!("c{c}.{i}");
                            let input = lin::Input::Put(key.into(), value.clone());
                            let call = history.invoke(c, input, now());
                            match client.put(key, &value).await {
                                Ok(()) => history.complete(call, lin::Output::Written, now()),
                                // Unknown outcome: pending forever.
                                Err(e) if e.kind() == std::io::ErrorKind::TimedOut => {}
                                Err(e) => panic!("put({key}, {value}): {e}"),
                            }
                        }
                    }
                    sleep(THINK).await;
                }
            })
        })
        .collect();
    for c in clients {
        c.await.expect("a client finished");
    }

    if let Err(violation) = history.check() {
        panic!("linearizability: {violation}");
    }
}
