//! The name registry in the simulator: a primary, a replica and two
//! clients, each on its own host, no faults. Once the clients are done,
//! the replica must list what the primary lists.

use std::time::Duration;

use explorer::{Explorer, Rtc, Sampling};
use futures::FutureExt;
use sim_rt::net::UdpSocket;
use sim_rt::sim;

use super::Case;

#[path = "../registry.rs"]
pub mod system;

use self::system::{ask, Primary, Replica};

/// The planted bug and how to find it.
pub fn case() -> Case {
    Case {
        name: "registry",
        bug: "the replica applies changes in arrival order, so a delete can overtake its create",
        test: |bug| test(bug).boxed_local(),
        explorer,
        custom: None,
    }
}

/// Run-to-completion, stratified sampling with two delays. The failing
/// executions need no fault, only the `CREATE` forward held back until
/// the `DELETE` forward can arrive, a few milliseconds later. One delay
/// does not do it: it moves the delivery below the clock, and the clock
/// goes back to the bottom after each advance, so the delivery comes
/// first again before the `DELETE` is even sent; two delays do, and
/// round-robin (which puts a delayed delivery only one place back) finds
/// nothing within 5,000 executions at any bound up to 4. Random walks
/// find it in about a hundred executions and PCT in a few (issue #22).
pub fn explorer() -> Explorer {
    Explorer::new()
        .name("registry")
        .explorer(Rtc::default())
        .search(Sampling::new(2))
        .executions(2_000)
}

async fn addr(name: &str) -> std::net::SocketAddr {
    sim_rt::net::lookup_host(name)
        .await
        .unwrap()
        .next()
        .expect("the host's address")
}

/// One simulation: two clients each create and delete two names, then the
/// replica's list is compared with the primary's.
pub async fn test(bug: bool) {
    sim::host("replica").start(move || async move {
        let socket = UdpSocket::bind("0.0.0.0:7000").await?;
        Replica::new().in_arrival_order(bug).serve(socket).await
    });
    sim::host("primary").start(|| async {
        let replica = addr("replica:7000").await;
        let socket = UdpSocket::bind("0.0.0.0:7000").await?;
        Primary::new(replica).serve(socket).await
    });
    let clients: Vec<_> = ["c1", "c2"]
        .into_iter()
        .map(|c| {
            sim_rt::spawn(async move {
                let primary = addr("primary:7000").await;
                let socket = UdpSocket::bind("0.0.0.0:0").await.unwrap();
                for k in 0..2 {
                    let name = format!("{c}-{k}");
                    ask(&socket, primary, &format!("CREATE {name}"))
                        .await
                        .unwrap();
                    ask(&socket, primary, &format!("DELETE {name}"))
                        .await
                        .unwrap();
                }
                // One name stays.
                ask(&socket, primary, &format!("CREATE {c}-kept"))
                    .await
                    .unwrap();
            })
        })
        .collect();
    for c in clients {
        c.await.unwrap();
    }
    // Quiet: every forward has arrived.
    sim_rt::time::sleep(Duration::from_millis(50)).await;
    let socket = UdpSocket::bind("0.0.0.0:0").await.unwrap();
    let primary = ask(&socket, addr("primary:7000").await, "LIST")
        .await
        .unwrap();
    let replica = ask(&socket, addr("replica:7000").await, "LIST")
        .await
        .unwrap();
    assert_eq!(
        replica, primary,
        "convergence: the replica lists {replica:?}, the primary {primary:?}"
    );
}
