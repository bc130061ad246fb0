//! The shop inside the simulation, with its whole dependency graph (axum,
//! hyper, reqwest, tonic, tower...) on sim-tokio:
//! `cargo test --config .cargo/sim.toml`.
#![cfg(sim)]

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::time::Duration;

use shop::{client, ledger, shop::Shop};
use tokio::net::TcpListener;
// The simulation and its explorer, through tokio alone (sim-tokio).
use tokio::sim::{self, Explorer, FaultInjector, RoundRobin, Sampling};

/// Where `name` (a simulated host and port) is.
async fn resolve(name: &str) -> SocketAddr {
    tokio::net::lookup_host(name)
        .await
        .expect("a simulated host")
        .next()
        .expect("an address")
}

/// One simulation: a ledger, a shop, two customers (each on its own host)
/// placing two orders each, then the check that every order was reserved at most once.
async fn scenario(bug: bool) {
    sim::host("ledger").start(|| async {
        let listener = TcpListener::bind("0.0.0.0:50051").await?;
        ledger::serve(listener).await.map_err(std::io::Error::other)
    });
    sim::host("shop").start(move || async move {
        let ledger = resolve("ledger:50051").await;
        let listener = TcpListener::bind("0.0.0.0:8080").await?;
        Shop::new(ledger).fresh_ids(bug).serve(listener).await
    });
    let shop = resolve("shop:8080").await;
    // Each customer on a host of its own, awaited from here.
    let customers: Vec<_> = (1..=2)
        .map(|c| {
            sim::host(format!("customer{c}")).spawn(async move {
                let http = client::client();
                for o in 1..=2 {
                    client::place_order(&http, shop, &format!("c{c}-o{o}"), "apple").await;
                }
            })
        })
        .collect();
    for c in customers {
        c.await.expect("a customer finished");
    }
    // The network recovers and what it held lands.
    sim::heal_all();
    tokio::time::sleep(Duration::from_secs(2)).await;

    let ledger_addr = resolve("ledger:50051").await;
    let entries = ledger::list(ledger_addr).await.expect("the ledger answers");
    let mut per_order = BTreeMap::<&str, usize>::new();
    for e in &entries {
        *per_order.entry(&e.order).or_default() += 1;
    }
    for (order, n) in per_order {
        assert!(
            n <= 1,
            "reserved twice: order {order} has {n} ledger entries: {entries:?}"
        );
    }
}

/// One partition, anywhere, and round-robin with stratified sampling, as
/// the two-phase commit example.
fn explorer() -> Explorer {
    Explorer::new()
        .name("shop")
        .runtime(|b| {
            b.fault_injector(FaultInjector::new().max_resets(0).max_partitions(1));
        })
        .explorer(RoundRobin::default())
        .search(Sampling::new(2))
        .executions(500)
}

#[test]
fn the_planted_bug_reserves_an_order_twice_and_is_found_and_replayed() {
    let report = explorer().run(|| scenario(true));
    let found = report.failure.as_ref().expect("the planted bug is found");
    assert!(
        found.failure.to_string().contains("reserved twice"),
        "{}",
        found.failure
    );
    let again = explorer()
        .replay(found.token.to_string())
        .run(|| scenario(true));
    let replayed = again.failure.expect("the replay fails again");
    assert_eq!(
        replayed.trace, found.trace,
        "the replay is the same execution"
    );
}

#[test]
fn without_the_bug_no_order_is_reserved_twice() {
    explorer().executions(100).check(|| scenario(false));
}

/// Fails on purpose, printing its reproduce line (see the feature's note).
#[cfg(feature = "planted-failure")]
#[test]
fn planted_failure() {
    explorer().check(|| scenario(true));
}
