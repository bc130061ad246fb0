//! The small demo of the guide's introduction: explore a small system until its planted bug shows,
//! print the line that reproduces the failure, and replay it.
//!
//! The system: a counter server and clients that increment it over a
//! request/response channel. Each client waits 30 ms for the reply and, on a
//! timeout, retries. **The planted bug**: the increment is not idempotent, so
//! when the server is slow (its processing time is a data choice: 5 ms by
//! default, 45 ms for one of 50 options) the request is applied twice. The
//! property checked at the end: the counter equals the number of increments
//! the clients performed.
//!
//! The exploration is stratified sampling with the run-to-completion
//! explorer: a slow server costs one delay, so the bug sits in a low
//! stratum, where a random walk needs the 1-in-50 choice at the right
//! request.
//!
//! Run: `cargo run --release -p explorer --example demo`. With `SIM_REPLAY`
//! set (the line it prints), it replays just that execution.

use std::time::Duration;

use explorer::{Explorer, Rtc, Sampling};
use sim_rt::sync::{mpsc, oneshot};
use sim_rt::time::{sleep, timeout};

type Request = (u64, oneshot::Sender<u64>);

async fn server(mut requests: mpsc::Receiver<Request>) {
    let mut counter = 0;
    while let Some((_client, reply)) = requests.recv().await {
        if reply.is_closed() {
            continue; // the client gave up before we started
        }
        // Usually fast; one request in 50 takes longer than the client waits.
        let work = if sim_rt::choose(50) == 49 { 45 } else { 5 };
        sleep(Duration::from_millis(work)).await;
        counter += 1;
        let _ = reply.send(counter);
    }
}

async fn client(id: u64, server: mpsc::Sender<Request>, increments: u32) -> u64 {
    let mut last = 0;
    for _ in 0..increments {
        loop {
            let (tx, rx) = oneshot::channel();
            server.send((id, tx)).await.expect("server is up");
            // BUG: a timed-out request may still be applied; retrying it
            // applies it twice.
            if let Ok(Ok(value)) = timeout(Duration::from_millis(30), rx).await {
                last = value;
                break;
            }
        }
    }
    last
}

/// One simulation: 3 clients, 4 increments each.
async fn system() {
    let (tx, rx) = mpsc::channel(16);
    sim_rt::spawn(server(rx));
    let clients: Vec<_> = (0..3)
        .map(|id| sim_rt::spawn(client(id, tx.clone(), 4)))
        .collect();
    let mut max = 0;
    for c in clients {
        max = max.max(c.await.expect("client finished"));
    }
    let expected = 3 * 4;
    assert_eq!(
        max, expected,
        "counter is {max} after {expected} increments: an increment was applied twice"
    );
}

fn explorer() -> Explorer {
    Explorer::new()
        .name("demo")
        .explorer(Rtc::default())
        .search(Sampling::new(3))
        .executions(20_000)
}

fn main() {
    let replaying = std::env::var("SIM_REPLAY").is_ok();
    let report = explorer().run(system);
    println!("{report}");
    let Some(found) = &report.failure else {
        std::process::exit(1);
    };
    if replaying {
        // Asked to reproduce: the failure above is it.
        std::process::exit(1);
    }
    println!(
        "found the planted bug after {} executions ({:.2?})",
        report.executions, report.elapsed
    );
    // Replay: the token gives the same execution, step for step.
    let again = explorer().replay(found.token.to_string()).run(system);
    let replayed = again.failure.expect("the replay fails again");
    assert_eq!(replayed.trace, found.trace, "the same execution");
    println!(
        "replayed it: the same {} steps, the same failure",
        replayed.trace.len()
    );
}
