//! Exploration throughput: executions per second of stratified sampling on
//! a small protocol.
//!
//! The protocol: a key-value server on host "server" and two clients on
//! hosts "c1" and "c2", each client sending 3 writes and reading the key
//! back over one TCP connection (about 40 scheduling steps and 20 packet
//! deliveries per execution). The search is stratified sampling with the
//! run-to-completion explorer, up to 3 delays, so each execution is a fresh
//! simulation: runtime, hosts, connections.
//!
//! - `ss_rtc_1_job`: one thread.
//! - `ss_rtc_2_jobs`: two threads (the machine's cores).
//! - `walk_1_job`, `default_1_job`, `adaptive_1_job`: the same protocol
//!   under a uniform random walk, the default portfolio and the adaptive
//!   portfolio, one thread: what a search costs per execution on top of
//!   the simulation.
//! - `runtime_alone`, `runtime_alone_fresh_thread`: the same protocol
//!   without the explorer, a fresh runtime per seed (`Builder::seed`, the
//!   default scheduler), on the bench's thread or each on a thread of its
//!   own as the explorer runs them: what the simulation costs by itself,
//!   and what a thread per execution adds to it.
//!
//! Run with `cargo bench -p explorer --bench ss`; for CPU time and system
//! calls, `SIM_BENCH_ONCE=<jobs> perf stat -e task-clock <the bench
//! binary>` runs ten explorations and nothing else.
//!
//! `SIM_BENCH_MEMORY=<executions>[:default|walk|ss|alone|alone-thread]`
//! runs one exploration (or the runtime alone, as above)
//! of that many executions of the protocol (the default search unless
//! named; one thread) and prints its rate and the process's peak memory
//! (`VmHWM`), to check that memory stays flat in the number of executions
//! (`docs/src/performance.md`).

use std::time::Duration;

use criterion::{criterion_group, Criterion, Throughput};
use explorer::{Explorer, Random, Rtc, Sampling, Walk};
use sim_rt::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use sim_rt::net::{TcpListener, TcpStream};
use sim_rt::sim;

const EXECUTIONS: u64 = 1_000;

async fn server() {
    let l = TcpListener::bind("0.0.0.0:7").await.unwrap();
    let value = std::sync::Arc::new(std::sync::Mutex::new(0u64));
    loop {
        let (s, _) = l.accept().await.unwrap();
        let value = value.clone();
        sim_rt::spawn(async move {
            let (r, mut w) = s.into_split();
            let mut lines = BufReader::new(r).lines();
            while let Ok(Some(line)) = lines.next_line().await {
                let reply = match line.strip_prefix("set ") {
                    Some(v) => {
                        *value.lock().unwrap() = v.parse().unwrap();
                        "ok\n".to_string()
                    }
                    None => format!("{}\n", value.lock().unwrap()),
                };
                if w.write_all(reply.as_bytes()).await.is_err() {
                    break;
                }
            }
        });
    }
}

async fn client(id: u64) -> u64 {
    let s = TcpStream::connect("server:7").await.unwrap();
    let (r, mut w) = s.into_split();
    let mut lines = BufReader::new(r).lines();
    for i in 0..3 {
        w.write_all(format!("set {}\n", id * 10 + i).as_bytes())
            .await
            .unwrap();
        lines.next_line().await.unwrap();
    }
    w.write_all(b"get\n").await.unwrap();
    lines.next_line().await.unwrap().unwrap().parse().unwrap()
}

async fn protocol() {
    sim::host("server").start(server);
    let (tx, mut rx) = sim_rt::sync::mpsc::channel(2);
    for (name, id) in [("c1", 1), ("c2", 2)] {
        let tx = tx.clone();
        sim::host(name).start(move || {
            let tx = tx.clone();
            async move {
                let _ = tx.send(client(id).await).await;
            }
        });
    }
    for _ in 0..2 {
        let v = rx.recv().await.unwrap();
        assert!(v % 10 <= 2, "a value some client wrote");
    }
}

fn explore(jobs: usize) -> u64 {
    explore_with(
        Explorer::new()
            .explorer(Rtc::default())
            .search(Sampling::new(3)),
        jobs,
    )
}

fn explore_with(explorer: Explorer, jobs: usize) -> u64 {
    let report = explorer
        .executions(EXECUTIONS)
        .jobs(jobs)
        .progress(false)
        .run(protocol);
    assert!(!report.failed(), "{report}");
    report.executions
}

/// The protocol once in a fresh runtime with `seed`, without the explorer.
fn alone(seed: u64) {
    sim_rt::runtime::Builder::new_current_thread()
        .enable_all()
        .seed(seed)
        .build()
        .unwrap()
        .block_on(protocol());
}

/// `n` executions of the runtime alone, each on a fresh thread when
/// `threads`; returns `n`.
fn alone_n(n: u64, threads: bool) -> u64 {
    for seed in 0..n {
        if threads {
            std::thread::spawn(move || alone(seed)).join().unwrap();
        } else {
            alone(seed);
        }
    }
    n
}

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("explore");
    g.throughput(Throughput::Elements(EXECUTIONS))
        .sample_size(10)
        .measurement_time(Duration::from_secs(10));
    g.bench_function("ss_rtc_1_job", |b| b.iter(|| explore(1)));
    g.bench_function("ss_rtc_2_jobs", |b| b.iter(|| explore(2)));
    let walk = || Explorer::new().explorer(Random::default()).search(Walk);
    g.bench_function("walk_1_job", |b| b.iter(|| explore_with(walk(), 1)));
    g.bench_function("default_1_job", |b| {
        b.iter(|| explore_with(Explorer::new(), 1))
    });
    g.bench_function("adaptive_1_job", |b| {
        b.iter(|| explore_with(Explorer::new().adaptive(), 1))
    });
    g.bench_function("runtime_alone", |b| b.iter(|| alone_n(EXECUTIONS, false)));
    g.bench_function("runtime_alone_fresh_thread", |b| {
        b.iter(|| alone_n(EXECUTIONS, true))
    });
    g.finish();
}

criterion_group!(benches, bench);

/// `SIM_BENCH_ONCE=<jobs>`: ten explorations of `EXECUTIONS` executions on
/// that many jobs and nothing else, for `perf stat` (CPU time, context
/// switches) and instruction counts, which criterion's repetitions would
/// swamp.
fn main() {
    if let Ok(what) = std::env::var("SIM_BENCH_MEMORY") {
        return memory(&what);
    }
    if let Ok(jobs) = std::env::var("SIM_BENCH_ONCE") {
        let jobs = jobs.parse().expect("SIM_BENCH_ONCE takes a number of jobs");
        for _ in 0..10 {
            assert_eq!(explore(jobs), EXECUTIONS);
        }
        return;
    }
    // What `criterion_main!` does.
    benches();
    Criterion::default().configure_from_args().final_summary();
}

/// `SIM_BENCH_MEMORY=<executions>[:<search>]`: one exploration, then its
/// rate and the peak resident memory of the process.
fn memory(what: &str) {
    let (n, search) = what.split_once(':').unwrap_or((what, "default"));
    let n: u64 = n
        .replace('_', "")
        .parse()
        .expect("SIM_BENCH_MEMORY takes <executions>[:default|walk|ss|alone|alone-thread]");
    if let Some(threads) = match search {
        "alone" => Some(false),
        "alone-thread" => Some(true),
        _ => None,
    } {
        let start = std::time::Instant::now();
        alone_n(n, threads);
        let elapsed = start.elapsed();
        println!(
            "{search}: {n} executions in {elapsed:.2?} ({:.0}/s), peak memory {}",
            n as f64 / elapsed.as_secs_f64(),
            peak_memory()
        );
        return;
    }
    let explorer = match search {
        "default" => Explorer::new(),
        "walk" => Explorer::new().explorer(Random::default()).search(Walk),
        "ss" => Explorer::new()
            .explorer(Rtc::default())
            .search(Sampling::new(3)),
        other => panic!(
            "SIM_BENCH_MEMORY: no search {other:?} (default, walk, ss, alone or alone-thread)"
        ),
    };
    let start = std::time::Instant::now();
    let report = explorer.executions(n).jobs(1).progress(false).run(protocol);
    assert!(!report.failed(), "{report}");
    let elapsed = start.elapsed();
    println!(
        "{search}: {} executions in {elapsed:.2?} ({:.0}/s), peak memory {}",
        report.executions,
        report.executions as f64 / elapsed.as_secs_f64(),
        peak_memory()
    );
}

/// The process's peak resident memory (`VmHWM`).
fn peak_memory() -> String {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .map_or("unknown".to_string(), |v| v.trim().to_string())
}
