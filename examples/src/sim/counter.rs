//! The counter in the simulator: a server and two clients on their own
//! hosts, over a network that duplicates a datagram now and then. Once
//! the clients are done, the total must be what they added.

use futures::FutureExt;
use sim_rt::net::UdpSocket;
use sim_rt::sim::{self, LinkConfig, NetConfig};

use explorer::{Explorer, Rtc, Sampling};

use super::Case;

#[path = "../counter.rs"]
pub mod system;

use self::system::{Client, Server};

/// Additions per client.
const ADDS: u64 = 3;

/// The planted bug and how to find it.
pub fn case() -> Case {
    Case {
        name: "counter",
        bug: "the server applies a duplicated request twice",
        test: |bug| test(bug).boxed_local(),
        explorer,
        custom: None,
    }
}

/// The network: the default links, duplicating a datagram with
/// probability 0.01.
pub fn runtime(b: &mut sim_rt::runtime::Builder) {
    b.network(NetConfig {
        default_link: LinkConfig {
            duplicate: 0.01,
            ..LinkConfig::default()
        },
        ..NetConfig::default()
    });
}

/// Run-to-completion, stratified sampling with one delay: the failing
/// executions need one non-default data choice, the duplicate of an `ADD`.
pub fn explorer() -> Explorer {
    Explorer::new()
        .name("counter")
        .runtime(runtime)
        .explorer(Rtc::default())
        .search(Sampling::new(1))
        .executions(2_000)
}

/// One simulation: two clients add 1, 2, 3 each; then the total is read.
pub async fn test(bug: bool) {
    sim::host("server").start(move || async move {
        let socket = UdpSocket::bind("0.0.0.0:7000").await?;
        Server::new().without_dedup(bug).serve(socket).await
    });
    let server = sim_rt::net::lookup_host("server:7000")
        .await
        .unwrap()
        .next()
        .unwrap();
    let clients: Vec<_> = ["c1", "c2"]
        .into_iter()
        .map(|name| {
            sim_rt::spawn(async move {
                let mut client = Client::new(name, server).await.unwrap();
                for amount in 1..=ADDS {
                    client.add(amount).await.unwrap();
                }
            })
        })
        .collect();
    for c in clients {
        c.await.unwrap();
    }
    let client = Client::new("reader", server).await.unwrap();
    let total = client.get().await.unwrap();
    let added = 2 * ADDS * (ADDS + 1) / 2;
    assert_eq!(
        total, added,
        "the total: the clients added {added}, the counter says {total}"
    );
}
