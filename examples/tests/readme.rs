//! The README's Rust snippets, compiled (and run where that is cheap), so
//! they cannot drift from the API.
//!
//! Each snippet is copied here verbatim, wrapped in whatever makes it an
//! item or a function body, next to the stand-ins it names (`handle`,
//! `my_net_config`, `run_bank_and_check_total`). The first test checks
//! that every ```` ```rust ```` block of the README still appears here,
//! line for line (ignoring indentation, blank lines and `rustfmt::skip`
//! attributes), so editing a snippet in one place and not the other fails.

// ----- README: swap tokio for sim-rt -----------------------------------------
#[cfg(sim)]
extern crate sim_rt as tokio;

const README: &str = include_str!("../../README.md");
const HERE: &str = include_str!("readme.rs");

/// The lines of `text`, trimmed, without blank ones and without the
/// `#[rustfmt::skip]` that keeps the copies here as the README has them.
fn lines(text: &str) -> Vec<&str> {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && *l != "#[rustfmt::skip]")
        .collect()
}

/// The README's ```` ```rust ```` blocks.
fn rust_blocks(readme: &str) -> Vec<String> {
    let mut blocks = Vec::new();
    let mut current: Option<String> = None;
    for line in readme.lines() {
        match (&mut current, line.trim_start()) {
            (None, "```rust") => current = Some(String::new()),
            (Some(_), "```") => blocks.extend(current.take()),
            (Some(block), _) => {
                block.push_str(line);
                block.push('\n');
            }
            (None, _) => {}
        }
    }
    blocks
}

#[test]
fn every_rust_snippet_of_the_readme_is_compiled_here() {
    let blocks = rust_blocks(README);
    assert!(blocks.len() >= 6, "found {} rust blocks", blocks.len());
    let here = lines(HERE);
    for block in &blocks {
        let want = lines(block);
        assert!(
            here.windows(want.len()).any(|w| w == want.as_slice()),
            "this README snippet is not in examples/tests/readme.rs (copy it \
             there, wrapped so it compiles):\n{block}"
        );
    }
}

// ----- README: a test in the simulator ---------------------------------------

use std::time::Duration;

#[sim_rt::test]
#[rustfmt::skip]
async fn hour_long_timeout_in_no_time() {
    let start = sim_rt::time::Instant::now();
    let never = std::future::pending::<()>();
    assert!(sim_rt::time::timeout(Duration::from_secs(3600), never).await.is_err());
    assert_eq!(start.elapsed(), Duration::from_secs(3600));
}

// ----- README: hosts, faults, signals and data choices -----------------------

/// Stand-in: echoes until the peer goes away.
async fn handle(mut socket: sim_rt::net::TcpStream) {
    let (mut r, mut w) = socket.split();
    let _ = sim_rt::io::copy(&mut r, &mut w).await;
}

#[sim_rt::test]
#[rustfmt::skip]
async fn hosts_faults_signals_and_choices() -> std::io::Result<()> {
    use sim_rt::net::{TcpListener, TcpStream};
    use sim_rt::sim::{self, LinkConfig};

    async fn serve() -> std::io::Result<()> {
        let listener = TcpListener::bind("0.0.0.0:80").await?;
        loop {
            let (socket, _) = listener.accept().await?;
            sim_rt::spawn(handle(socket));
        }
    }

    sim::host("server").ip([10, 0, 0, 9]).start(serve); // restartable entry point
    let stream = TcpStream::connect("server:80").await?;  // names resolve
    sim::set_link("main", "server", LinkConfig::default().with_loss(0.1));
    sim::partition("main", "server");                     // and heal, partition_oneway, partition_groups
    sim::reset("server");        // crash + reboot: peers see ConnectionReset, the entry point runs again
    sim::stop("server");         // power off (silent); sim::restart brings it back
    sim::pause("server");        // a stalled process; sim::resume
    sim::send_ctrl_c("server");
    let branch = sim_rt::choose(3);                       // nondeterminism the scheduler resolves

    assert_eq!(stream.peer_addr()?, "10.0.0.9:80".parse().unwrap());
    assert!(branch < 3);
    Ok(())
}

// ----- README: the simulated disk --------------------------------------------

#[test]
#[rustfmt::skip]
fn disk_settings() -> std::io::Result<()> {
    use sim_rt::sim::{CrashModel, EntryDurability, FsConfig, KeepUnsynced, TornWrites};

    let mut disk = FsConfig {
        crash: CrashModel { keep: KeepUnsynced::Subset, torn_writes: TornWrites::PrefixOrGarbage },
        entries: EntryDurability::FileSyncToo, // ext4-like: fsync commits the file's entries too
        ..FsConfig::default()
    };
    disk.faults.eio_sync = 0.001;
    disk.latency.sync = std::time::Duration::from_micros(200);
    let rt = sim_rt::runtime::Builder::new_current_thread().disk(disk.clone()).build()?; // every host
    // or one host: sim_rt::sim::host("db").disk(disk).start(...)

    rt.block_on(async move {
        sim_rt::sim::host("db").disk(disk).start(|| async {
            sim_rt::fs::write("/data", b"x").await.unwrap();
        });
        sim_rt::time::sleep(Duration::from_secs(1)).await;
    });
    Ok(())
}

// ----- README: exploring executions ------------------------------------------

/// Stand-in: the default network.
fn my_net_config() -> sim_rt::sim::NetConfig {
    sim_rt::sim::NetConfig::default()
}

/// Stand-in: two accounts, concurrent transfers between them under a
/// lock, and the check that money is neither made nor lost.
async fn run_bank_and_check_total() {
    use sim_rt::sync::Mutex;
    use std::sync::Arc;

    let accounts = Arc::new(Mutex::new([60i64, 40]));
    let mut transfers = Vec::new();
    for (from, to, amount) in [(0, 1, 10), (1, 0, 25), (0, 1, 5)] {
        let accounts = accounts.clone();
        transfers.push(sim_rt::spawn(async move {
            let mut a = accounts.lock().await;
            sim_rt::task::yield_now().await;
            a[from] -= amount;
            a[to] += amount;
        }));
    }
    for t in transfers {
        t.await.unwrap();
    }
    let total: i64 = accounts.lock().await.iter().sum();
    assert_eq!(total, 100, "total is {total}, expected 100");
}

/// Stand-in: the transfers, `(from, amount)` between two accounts, run
/// concurrently under a lock; money is neither made nor lost.
async fn run_transfers_and_check_total(transfers: Vec<(usize, i64)>) {
    use sim_rt::sync::Mutex;
    use std::sync::Arc;

    let accounts = Arc::new(Mutex::new([60i64, 40]));
    let tasks: Vec<_> = transfers
        .into_iter()
        .map(|(from, amount)| {
            let accounts = accounts.clone();
            sim_rt::spawn(async move {
                let mut a = accounts.lock().await;
                sim_rt::task::yield_now().await;
                a[from] -= amount;
                a[1 - from] += amount;
            })
        })
        .collect();
    for t in tasks {
        t.await.unwrap();
    }
    let total: i64 = accounts.lock().await.iter().sum();
    assert_eq!(total, 100, "total is {total}, expected 100");
}

mod prop_snippet {
    use super::run_transfers_and_check_total;

    // ----- README: property tests --------------------------------------------

    use explorer::{Explorer, Random, Walk};
    use proptest::prelude::*;

    #[test]
    #[rustfmt::skip]
    fn any_transfers_keep_the_total() {
        Explorer::new()
            .explorer(Random::default())
            .search(Walk)
            .executions(1)                     // each case one execution; any search works
            .check_prop(prop::collection::vec((0..2usize, 1..50i64), 1..8), |transfers| async move {
                run_transfers_and_check_total(transfers).await
            });
    }
}

use explorer::{Explorer, RoundRobin, Sampling};

#[test]
#[rustfmt::skip]
fn transfers_keep_the_total() {
    Explorer::new()                        // names no strategy: the default portfolio
        .executions(20_000)
        .runtime(|b| { b.network(my_net_config()); })
        .check(|| async { run_bank_and_check_total().await });
}

#[test]
#[rustfmt::skip]
fn transfers_keep_the_total_under_round_robin() {
    Explorer::new()
        .explorer(RoundRobin::default())   // or Rtc, RandomizedRoundRobin, Random, Pct, your own
        .search(Sampling::new(4))          // or Exhaustive::new(3), Walk, Swarm
        .executions(20_000)
        .runtime(|b| { b.network(my_net_config()); })
        .check(|| async { run_bank_and_check_total().await });
}

// ----- README: liveness properties -------------------------------------------

mod liveness {
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;
    use std::time::Duration;

    #[rustfmt::skip]
    async fn cluster_elects_a_leader(elected: Arc<AtomicBool>) {
        // Checked by the runtime after every step, outside any task.
        sim_rt::sim::eventually("a leader is elected", move || elected.load(Ordering::SeqCst));
        // Hot while something is owed; failing if it stays hot past 5 s.
        let lease = sim_rt::sim::monitor("a dead holder's lease is released", Duration::from_secs(5));
        lease.hot();
        lease.cold();
        sim_rt::time::sleep(Duration::from_secs(30)).await; // the run's bound
    }

    #[sim_rt::test]
    async fn the_liveness_snippet_passes_once_a_leader_is_elected() {
        cluster_elects_a_leader(Arc::new(AtomicBool::new(true))).await;
    }

    #[test]
    fn the_liveness_snippet_fails_without_a_leader() {
        let rt = sim_rt::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        let failure = rt
            .try_block_on(cluster_elects_a_leader(Arc::new(AtomicBool::new(false))))
            .unwrap_err();
        assert_eq!(failure.kind(), sim_rt::runtime::FailureKind::Liveness);
    }
}

// ----- README: dead or slow --------------------------------------------------

#[rustfmt::skip]
mod walks {
    mod snippet {
        use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
        use std::sync::Arc;
        use std::time::Duration;

        use explorer::{Explorer, Liveness, Report, RoundRobin, Sampling, WalkFaults};
        use sim_rt::sim::{self, FaultInjector};

        /// A worker does a 200 ms job; a restarted worker forgets it had one (the bug).
        async fn job_gets_done() {
            let done = Arc::new(AtomicBool::new(false));
            let seen = done.clone();
            sim::eventually("the job is done", move || seen.load(Ordering::SeqCst));
            let starts = Arc::new(AtomicU32::new(0));
            sim::host("worker").start(move || {
                let (done, starts) = (done.clone(), starts.clone());
                async move {
                    if starts.fetch_add(1, Ordering::SeqCst) == 0 {
                        sim_rt::time::sleep(Duration::from_millis(200)).await;
                        done.store(true, Ordering::SeqCst);
                    }
                    std::future::pending::<()>().await
                }
            });
            // Shorter than the job: only walks tell the slow runs from the dead ones.
            sim_rt::time::sleep(Duration::from_millis(100)).await;
        }

        fn explore() -> Report {
            Explorer::new()
                .runtime(|b| {
                    b.fault_injector(FaultInjector::new().max_resets(1).max_partitions(0));
                })
                .explorer(RoundRobin::default())
                .search(Sampling::new(1))
                .executions(500)
                .liveness(Liveness::new().walks(10).faults(WalkFaults::Keep))
                .run(job_gets_done) // `.check(...)` panics with the report instead
        }

    #[test]
    fn the_walks_snippet_finds_the_reset_as_the_critical_transition() {
        let report = explore();
        let found = report.failure.as_ref().expect("a reset before the job is done");
        let critical = found.liveness.as_ref().unwrap().critical.as_ref().unwrap();
        assert!(critical.event.contains("host 1 stopped"), "{report}");
        assert!(report.slow > 0, "executions without a reset are slow: {report}");
    }
    }
}

// ----- README: logging -------------------------------------------------------

/// Compiled, not run: it installs the global subscriber.
#[allow(dead_code)]
#[rustfmt::skip]
fn logging() {
    tracing_subscriber::fmt().with_timer(sim_rt::time::SimTime).init();
    //    1.250000s  INFO host{name="server"}:task{id=2 entry=true}: accepted
}
