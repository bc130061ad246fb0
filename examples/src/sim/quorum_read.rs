//! The majority-quorum register in the simulator: three replicas, a writer
//! and two readers, each on its own host, over a network that loses a
//! datagram now and then; the clients' history must be linearizable.

use std::time::Duration;

use explorer::{Explorer, Pct, Walk};
use futures::FutureExt;
use sim_rt::net::UdpSocket;
use sim_rt::sim::{self, LinkConfig, NetConfig};

use examples::linearizability as lin;

use super::Case;

#[path = "../quorum_read.rs"]
pub mod system;

use self::system::{Client, Replica};

const REPLICAS: [&str; 3] = ["r1", "r2", "r3"];
/// The readers, by host name.
const READERS: [&str; 2] = ["reader1", "reader2"];
/// Writes by the writer, and its pause after each.
const WRITES: u64 = 4;
const WRITE_THINK: Duration = Duration::from_millis(10);
/// Reads by each reader, and its pause after each.
const READS: usize = 6;
const READ_THINK: Duration = Duration::from_millis(3);
/// The property.
pub const PROPERTY: &str = "linearizability";

/// The planted bug and how to find it.
pub fn case() -> Case {
    Case {
        name: "quorum_read",
        bug: "a read returns the newest of two answers without writing it back, so a later read can return an older value",
        test: |bug| test(bug).boxed_local(),
        explorer,
        custom: None,
    }
}

/// The network: the default links, losing a datagram with probability
/// 0.02.
pub fn runtime(b: &mut sim_rt::runtime::Builder) {
    b.network(NetConfig {
        default_link: LinkConfig {
            loss: 0.02,
            ..LinkConfig::default()
        },
        ..NetConfig::default()
    });
}

/// PCT walks (depth 3). The failing executions need two deliveries out of
/// order with respect to several others (both late `PUT`s after a whole
/// read), or two losses and two reads heard from different pairs of
/// replicas: PCT's priority changes find that in tens of executions, where
/// the delaying explorers' sampling needs thousands and uniform walks
/// hundreds.
pub fn explorer() -> Explorer {
    Explorer::new()
        .name("quorum_read")
        .runtime(runtime)
        .explorer(Pct::new(3))
        .search(Walk)
        .executions(2_000)
}

/// One simulation: the writer writes `x` a few times while the readers
/// read it; then the history is checked.
pub async fn test(bug: bool) {
    for name in REPLICAS {
        sim::host(name).start(|| async {
            let socket = UdpSocket::bind("0.0.0.0:7000").await?;
            Replica::new().serve(socket).await
        });
    }
    let mut replicas = Vec::new();
    for name in REPLICAS {
        replicas.extend(
            sim_rt::net::lookup_host(format!("{name}:7000"))
                .await
                .unwrap(),
        );
    }
    let history = lin::Recorder::new();
    let mut clients = Vec::new();
    {
        let (history, replicas) = (history.clone(), replicas.clone());
        clients.push(sim::host("writer").spawn(async move {
            let mut client = Client::new(replicas).await.unwrap();
            for version in 1..=WRITES {
                let value = format!("v{version}");
                let input = lin::Input::Put("x".into(), value.clone());
                let call = history.invoke(0, input, sim::elapsed());
                client.put("x", version, &value).await.unwrap();
                history.complete(call, lin::Output::Written, sim::elapsed());
                sim_rt::time::sleep(WRITE_THINK).await;
            }
        }));
    }
    for (r, name) in READERS.into_iter().enumerate() {
        let (history, replicas) = (history.clone(), replicas.clone());
        clients.push(sim::host(name).spawn(async move {
            let mut client = Client::new(replicas).await.unwrap().without_write_back(bug);
            for _ in 0..READS {
                let call = history.invoke(r + 1, lin::Input::Get("x".into()), sim::elapsed());
                let got = client.get("x").await.unwrap();
                history.complete(call, lin::Output::Value(got), sim::elapsed());
                sim_rt::time::sleep(READ_THINK).await;
            }
        }));
    }
    for c in clients {
        c.await.expect("a client finished");
    }
    if let Err(violation) = history.check() {
        panic!("{PROPERTY}: {violation}");
    }
}
