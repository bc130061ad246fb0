//! The replicated register in the simulator: three replicas on their own
//! hosts, a fault injector that may reset two of them, a write, then a read
//! a second later that must return it.

use std::time::Duration;

use explorer::{Explorer, Rtc, Sampling};
use futures::FutureExt;
use sim_rt::net::UdpSocket;
use sim_rt::sim::{self, FaultInjector};

use super::Case;

#[path = "../quorum.rs"]
pub mod system;

use self::system::{Client, Replica};

const REPLICAS: [&str; 3] = ["r1", "r2", "r3"];

/// The planted bug and how to find it.
pub fn case() -> Case {
    Case {
        name: "quorum",
        bug: "replicas keep values in memory only, so two restarts leave a read quorum without the value",
        test: |bug| test(bug).boxed_local(),
        explorer,
        custom: None,
    }
}

/// The fault injector may reset hosts twice.
pub fn runtime(b: &mut sim_rt::runtime::Builder) {
    b.fault_injector(FaultInjector::new().max_resets(2).max_partitions(0));
}

/// Run-to-completion, stratified sampling with two delays: the failing
/// executions need two faults, resets of two different replicas between
/// the write and the read.
pub fn explorer() -> Explorer {
    Explorer::new()
        .name("quorum")
        .runtime(runtime)
        .explorer(Rtc::default())
        .search(Sampling::new(2))
        .executions(2_000)
}

/// One fault of a generated plan: what happens to which replicas
/// (indices into the three), some milliseconds after the start.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Fault {
    /// Reset (crash and reboot) a replica.
    Reset(usize),
    /// Cut two replicas off from each other for 200 ms.
    Partition(usize, usize),
}

/// How long a planned partition lasts.
pub const PARTITION: Duration = Duration::from_millis(200);

/// [`test`] with a nemesis that follows `plan` (time after the start in
/// ms, fault) instead of the runtime's fault injector.
pub async fn with_plan(bug: bool, plan: Vec<(u64, Fault)>) {
    let mut plan = plan;
    plan.sort_by_key(|(at, _)| *at);
    sim_rt::spawn(async move {
        let start = sim_rt::time::Instant::now() - sim::elapsed();
        for (at, fault) in plan {
            sim_rt::time::sleep_until(start + Duration::from_millis(at)).await;
            match fault {
                Fault::Reset(r) => sim::reset(REPLICAS[r]),
                Fault::Partition(a, b) => {
                    sim::partition(REPLICAS[a], REPLICAS[b]);
                    sim_rt::spawn(async move {
                        sim_rt::time::sleep(PARTITION).await;
                        sim::heal(REPLICAS[a], REPLICAS[b]);
                    });
                }
            }
        }
    });
    test(bug).await
}

/// One simulation: write `k = v`, wait a second, read `k`.
pub async fn test(bug: bool) {
    for name in REPLICAS {
        sim::host(name).start(move || async move {
            let socket = UdpSocket::bind("0.0.0.0:7000").await?;
            Replica::new().volatile(bug).serve(socket, "/data").await
        });
    }
    let mut replicas = Vec::new();
    for name in REPLICAS {
        let addr = sim_rt::net::lookup_host(format!("{name}:7000"))
            .await
            .unwrap();
        replicas.extend(addr);
    }
    let client = Client::new(replicas).await.unwrap();
    client.put("k", 1, "v").await.unwrap();
    sim_rt::time::sleep(Duration::from_secs(1)).await;
    let got = client.get("k").await.unwrap();
    assert_eq!(
        got.as_deref(),
        Some("v"),
        "a read after a completed write: k = v was written to all three replicas, the read \
         returned {got:?}"
    );
}
