//! Simulated network throughput: how fast sim-rt runs networked code.
//!
//! - `tcp_round_trips`: a client on one host and an echo server on another,
//!   one TCP connection, 64-byte request, 64-byte reply, 10,000 times, over
//!   the default LAN link (latency window 1-10 ms), in one simulation.
//! - `udp_round_trips`: the same over UDP datagrams.
//! - `w4_tcp`: whole executions of a small networked simulation: 3 hosts,
//!   each sending 10 request/replies over TCP to each other host (60 round
//!   trips), a fresh simulation per seed; throughput is executions per
//!   second.
//!
//! Each round trip is at least two task polls, two deliveries and two clock
//! advances, all scheduled steps of the simulation. Building the runtime
//! and the hosts is part of the timed work.
//!
//! Run with `cargo bench -p sim-rt --bench net`.
//!
//! On a shared machine criterion's means move by up to half from run to run,
//! more than most changes are worth. To compare two commits, run
//! `SIM_BENCH_BEST_OF=60 cargo bench -p sim-rt --bench net` on each
//! instead: it runs every workload that many times and prints the fastest
//! run, the one the machine disturbed least, which repeats within a few
//! percent.

use std::time::{Duration, Instant};

use criterion::{criterion_group, Criterion, Throughput};
use sim_rt::io::{AsyncReadExt, AsyncWriteExt};
use sim_rt::net::{TcpListener, TcpStream, UdpSocket};
use sim_rt::runtime::Builder;
use sim_rt::sim;

const ROUND_TRIPS: u64 = 10_000;
const MSG: usize = 64;
const W4_HOSTS: usize = 3;
const W4_REQUESTS: usize = 10;

async fn tcp_echo() {
    let l = TcpListener::bind("0.0.0.0:7").await.unwrap();
    let (mut s, _) = l.accept().await.unwrap();
    let mut buf = [0u8; MSG];
    while s.read_exact(&mut buf).await.is_ok() {
        s.write_all(&buf).await.unwrap();
    }
}

async fn udp_echo() {
    let s = UdpSocket::bind("0.0.0.0:7").await.unwrap();
    let mut buf = [0u8; MSG];
    loop {
        let (len, from) = s.recv_from(&mut buf).await.unwrap();
        s.send_to(&buf[..len], from).await.unwrap();
    }
}

/// The client runs in the test future (host "main"), the server on host
/// "server".
fn tcp_round_trips(n: u64) -> u64 {
    Builder::new_current_thread()
        .build()
        .unwrap()
        .block_on(async move {
            sim::host("server").start(tcp_echo);
            let mut s = TcpStream::connect("server:7").await.unwrap();
            let mut buf = [7u8; MSG];
            let mut done = 0;
            for _ in 0..n {
                s.write_all(&buf).await.unwrap();
                s.read_exact(&mut buf).await.unwrap();
                done += 1;
            }
            done
        })
}

fn udp_round_trips(n: u64) -> u64 {
    Builder::new_current_thread()
        .build()
        .unwrap()
        .block_on(async move {
            sim::host("server").start(udp_echo);
            let s = UdpSocket::bind("0.0.0.0:0").await.unwrap();
            s.connect("server:7").await.unwrap();
            let mut buf = [7u8; MSG];
            let mut done = 0;
            for _ in 0..n {
                s.send(&buf).await.unwrap();
                let len = s.recv(&mut buf).await.unwrap();
                assert_eq!(len, MSG);
                done += 1;
            }
            done
        })
}

/// W4 over TCP: every host serves on port 7 and, from its entry point,
/// sends `W4_REQUESTS` request/replies to each other host on one
/// connection. Returns the replies received.
fn w4_tcp(seed: u64) -> usize {
    Builder::new_current_thread()
        .seed(seed)
        .build()
        .unwrap()
        .block_on(async {
            let (tx, mut rx) = sim_rt::sync::mpsc::unbounded_channel::<usize>();
            for h in 0..W4_HOSTS {
                let tx = tx.clone();
                sim::host(format!("h{h}")).start(move || {
                    let tx = tx.clone();
                    async move {
                        let l = TcpListener::bind("0.0.0.0:7").await.unwrap();
                        sim_rt::spawn(async move {
                            loop {
                                let (mut s, _) = l.accept().await.unwrap();
                                sim_rt::spawn(async move {
                                    let mut b = [0u8; MSG];
                                    while s.read_exact(&mut b).await.is_ok() {
                                        s.write_all(&b).await.unwrap();
                                    }
                                });
                            }
                        });
                        for peer in (0..W4_HOSTS).filter(|p| *p != h) {
                            let tx = tx.clone();
                            sim_rt::spawn(async move {
                                let mut s = loop {
                                    // The peer may not listen yet.
                                    match TcpStream::connect((format!("h{peer}").as_str(), 7)).await
                                    {
                                        Ok(s) => break s,
                                        Err(_) => {
                                            sim_rt::time::sleep(Duration::from_millis(1)).await
                                        }
                                    }
                                };
                                let mut b = [h as u8; MSG];
                                for _ in 0..W4_REQUESTS {
                                    s.write_all(&b).await.unwrap();
                                    s.read_exact(&mut b).await.unwrap();
                                }
                                tx.send(W4_REQUESTS).unwrap();
                            });
                        }
                    }
                });
            }
            drop(tx);
            let mut replies = 0;
            for _ in 0..W4_HOSTS * (W4_HOSTS - 1) {
                replies += rx.recv().await.unwrap();
            }
            replies
        })
}

fn round_trips(c: &mut Criterion) {
    let mut g = c.benchmark_group("net_round_trips");
    g.sample_size(10).measurement_time(Duration::from_secs(5));
    g.throughput(Throughput::Elements(ROUND_TRIPS));
    g.bench_function("tcp", |b| {
        b.iter(|| assert_eq!(tcp_round_trips(ROUND_TRIPS), ROUND_TRIPS))
    });
    g.bench_function("udp", |b| {
        b.iter(|| assert_eq!(udp_round_trips(ROUND_TRIPS), ROUND_TRIPS))
    });
    g.finish();
}

fn w4_over_tcp(c: &mut Criterion) {
    let mut g = c.benchmark_group("w4_tcp");
    g.sample_size(10).measurement_time(Duration::from_secs(5));
    g.throughput(Throughput::Elements(1));
    g.bench_function("sim", |b| {
        let mut seed = 0u64;
        b.iter(|| {
            seed += 1;
            assert_eq!(w4_tcp(seed), W4_HOSTS * (W4_HOSTS - 1) * W4_REQUESTS);
        })
    });
    g.finish();
}

/// W4 executions per `SIM_BENCH_BEST_OF` run.
const W4_BATCH: u64 = 100;

/// The `SIM_BENCH_BEST_OF` mode: the fastest of `runs` runs of each
/// workload (see the module docs).
fn best_of(runs: usize) {
    let fastest = |f: &mut dyn FnMut()| {
        (0..runs)
            .map(|_| {
                let t = Instant::now();
                f();
                t.elapsed()
            })
            .min()
            .expect("at least one run")
    };
    let tcp = fastest(&mut || assert_eq!(tcp_round_trips(ROUND_TRIPS), ROUND_TRIPS));
    let udp = fastest(&mut || assert_eq!(udp_round_trips(ROUND_TRIPS), ROUND_TRIPS));
    let w4 = fastest(&mut || {
        for seed in 0..W4_BATCH {
            assert_eq!(w4_tcp(seed), W4_HOSTS * (W4_HOSTS - 1) * W4_REQUESTS);
        }
    });
    let report = |name: &str, t: Duration, n: u64, unit: &str| {
        println!(
            "{name}: {:.0} ns per {unit}, {:.0} {unit}s/s (fastest of {runs} runs of {n})",
            t.as_nanos() as f64 / n as f64,
            n as f64 / t.as_secs_f64(),
        );
    };
    report("net_round_trips/tcp", tcp, ROUND_TRIPS, "round trip");
    report("net_round_trips/udp", udp, ROUND_TRIPS, "round trip");
    report("w4_tcp/sim", w4, W4_BATCH, "execution");
}

criterion_group!(benches, round_trips, w4_over_tcp);

fn main() {
    match std::env::var("SIM_BENCH_BEST_OF") {
        Ok(v) => match v.parse::<usize>() {
            Ok(runs) if runs > 0 => best_of(runs),
            _ => {
                eprintln!(
                    "SIM_BENCH_BEST_OF must be a number of runs, at least 1 (60 is a good \
                     choice); got {v:?}"
                );
                std::process::exit(2);
            }
        },
        // What `criterion_main!` does.
        Err(_) => {
            benches();
            Criterion::default().configure_from_args().final_summary();
        }
    }
}
