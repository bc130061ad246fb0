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

/// W7 of the performance chapter (`docs/src/performance.md`): the shop's
/// exploration (the explorer above, without the bug, on one thread),
/// timed. A benchmark, not a test: run it in the build to be measured,
///
/// ```sh
/// cargo sim test --test sim w7 -- --ignored --nocapture                     # cargo sim's profile
/// cargo sim test --no-optimize-deps --test sim w7 -- --ignored --nocapture  # debug
/// cargo sim test --release --test sim w7 -- --ignored --nocapture           # release
/// ```
///
/// It prints executions per second of real time and per second of the
/// process's CPU time (user and system, from `/proc/self/stat`, in the
/// kernel's ticks of 10 ms), which a machine shared with other work
/// disturbs less. `SIM_EXECUTIONS` sets the number of executions (default
/// 200).
#[test]
#[ignore = "a benchmark: run it with --ignored in the build to be measured"]
fn w7_executions_per_second() {
    let cpu_before = cpu_seconds();
    let report = explorer().executions(200).jobs(1).run(|| scenario(false));
    let cpu = cpu_seconds()
        .zip(cpu_before)
        .map(|(after, before)| after - before);
    assert!(report.failure.is_none(), "{:?}", report.failure);
    let n = report.executions as f64;
    let real = report.elapsed.as_secs_f64();
    let cpu = cpu.map_or("CPU time unknown".to_string(), |cpu| {
        format!("{cpu:.2} s of CPU: {:.1} executions/s of CPU", n / cpu)
    });
    eprintln!(
        "w7: {n} executions in {real:.2} s: {:.1} executions/s; {cpu}",
        n / real
    );
}

/// The process's CPU time so far (user and system, all its threads, those
/// that ended included), from `/proc/self/stat`; `None` where there is no
/// such file.
fn cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // The fields after the command's name (in parentheses, which may hold
    // spaces): utime and stime are the 14th and 15th of the line.
    let fields: Vec<&str> = stat.rsplit_once(')')?.1.split_whitespace().collect();
    let ticks: u64 = fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?;
    Some(ticks as f64 / 100.0)
}
