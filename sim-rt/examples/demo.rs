//! The README's demo: find a planted bug by sweeping simulation seeds, print
//! the line that reproduces it, and replay it.
//!
//! The system: a counter server and clients that increment it over a
//! request/response channel. Each client waits 30 ms for the reply and, on a
//! timeout, retries. **The planted bug**: the increment is not idempotent, so
//! when the server is slow (its processing time is a simulated choice: 5 ms,
//! or 45 ms one time in 50) the request is applied twice. The property checked at the end:
//! the counter equals the number of increments the clients performed.
//!
//! Run: `cargo run --release -p sim-rt --example demo`. With `SIM_SEED` set,
//! it runs just that seed (the reproduction).

use std::time::Duration;

use sim_rt::runtime::Builder;
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

/// One simulation: 3 clients, 4 increments each. Returns the final counter.
async fn system() -> u64 {
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
    max
}

fn run(seed: u64) -> Result<sim_rt::runtime::Trace, String> {
    let rt = Builder::new_current_thread().seed(seed).build().unwrap();
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| rt.block_on(system())));
    match result {
        Ok(_) => Ok(rt.trace()),
        Err(p) => Err(p
            .downcast_ref::<String>()
            .cloned()
            .unwrap_or_else(|| "non-string panic".into())),
    }
}

fn main() {
    // The simulation's failure report is the message we print; keep the
    // default hook's duplicate out of the way.
    std::panic::set_hook(Box::new(|_| {}));
    if std::env::var("SIM_SEED").is_ok() {
        match run(0) {
            Ok(trace) => println!("SIM_SEED run passed (trace {:016x})", trace.hash()),
            Err(report) => {
                println!("{report}");
                std::process::exit(1);
            }
        }
        return;
    }
    let start = std::time::Instant::now();
    for seed in 0..100_000u64 {
        if let Err(report) = run(seed) {
            println!(
                "found the planted bug after {} executions ({:.2?}):\n",
                seed + 1,
                start.elapsed()
            );
            println!("{report}");
            // Replay: the same seed fails the same way, step for step.
            let again = run(seed).expect_err("the same seed fails again");
            assert_eq!(again, report, "replay gives the same report");
            println!("replayed seed {seed}: same failure, same report");
            return;
        }
    }
    println!("no failure in 100000 executions");
    std::process::exit(1);
}
