//! sim-rt against tokio's current-thread runtime, the same workload side by
//! side.
//!
//! Each workload is written once, inside [`workloads!`], and instantiated
//! twice: against `sim_rt` and against `tokio` (the same switch a user makes
//! with `extern crate sim_rt as tokio`). Every group has a `sim` and a
//! `tokio` function:
//!
//! - `w1_mpsc`: two tasks ping-pong 100,000 messages (50,000 round trips)
//!   over a pair of `sync::mpsc` channels.
//! - `w2_spawn_yield`: 100,000 tasks that each `yield_now().await` once,
//!   then joined.
//! - `w3_sleep`: 10,000 tasks, each sleeping 10 times for a pseudo-random
//!   1..=1000 ms (inline xorshift, the same durations on both runtimes;
//!   tokio with paused time, so both jump the clock).
//! - `w4_tiny_sim`: whole executions of a tiny simulation (3 tasks in a
//!   ring, 10 messages each), a fresh runtime per execution, one seed after
//!   another: throughput is executions per second.
//!
//! # Fairness
//!
//! W1–W3 build the runtime in criterion's untimed setup and time only
//! `block_on` (the runtime is dropped untimed too), for both runtimes. A sim
//! runtime is built per iteration rather than reused because it records a
//! trace step per scheduling decision and counts steps and simulated time
//! against its limits for its whole life; one runtime per execution is also
//! how a simulation is used. W4 times runtime construction on purpose: that
//! is part of an execution.
//!
//! Run with `cargo bench -p sim-rt --bench runtime`.

use std::time::Duration;

use criterion::{criterion_group, BatchSize, Criterion, Throughput};

/// W1: messages exchanged (each way counts).
const W1_MESSAGES: u64 = 100_000;
/// W2: tasks spawned.
const W2_TASKS: u64 = 100_000;
/// W3: tasks, and sleeps per task.
const W3_TASKS: u64 = 10_000;
const W3_SLEEPS: u64 = 10;
/// W4: tasks in the ring, and messages each sends.
const W4_TASKS: usize = 3;
const W4_MESSAGES: u32 = 10;

/// xorshift64 (Marsaglia 2003): the W3 durations, the same on both runtimes.
fn xorshift(state: &mut u64) -> u64 {
    let mut x = *state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    *state = x;
    x
}

/// Writes each workload once, against the runtime crate `$rt`.
macro_rules! workloads {
    ($m:ident, $rt:ident) => {
        mod $m {
            use std::time::Duration;

            use ::$rt as rt;
            use rt::sync::mpsc;

            /// Joins `handles` in order and sums their outputs.
            async fn sum_joined<T: Default + std::ops::AddAssign>(
                handles: Vec<rt::task::JoinHandle<T>>,
            ) -> T {
                let mut sum = T::default();
                for h in handles {
                    sum += h.await.unwrap();
                }
                sum
            }

            /// W1: ping-pong between two spawned tasks; returns the sum of
            /// what came back so nothing is optimised away.
            pub async fn w1_mpsc(messages: u64) -> u64 {
                let round_trips = messages / 2;
                let (ping_tx, mut ping_rx) = mpsc::channel::<u64>(1);
                let (pong_tx, mut pong_rx) = mpsc::channel::<u64>(1);
                let pinger = rt::spawn(async move {
                    let mut sum = 0;
                    for i in 0..round_trips {
                        ping_tx.send(i).await.unwrap();
                        sum += pong_rx.recv().await.unwrap();
                    }
                    sum
                });
                let ponger = rt::spawn(async move {
                    while let Some(i) = ping_rx.recv().await {
                        pong_tx.send(i + 1).await.unwrap();
                    }
                });
                let sum = pinger.await.unwrap();
                ponger.await.unwrap();
                sum
            }

            /// W2: spawn `tasks` tasks that yield once, then join them all.
            pub async fn w2_spawn_yield(tasks: u64) -> u64 {
                let handles: Vec<_> = (0..tasks)
                    .map(|i| {
                        rt::spawn(async move {
                            rt::task::yield_now().await;
                            i
                        })
                    })
                    .collect();
                sum_joined(handles).await
            }

            /// W3: `tasks` tasks each sleep `sleeps` times for 1..=1000 ms.
            pub async fn w3_sleep(tasks: u64, sleeps: u64) -> u64 {
                let handles: Vec<_> = (0..tasks)
                    .map(|i| {
                        rt::spawn(async move {
                            // Nonzero, distinct per task.
                            let mut state = i.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
                            let mut slept = 0;
                            for _ in 0..sleeps {
                                let ms = 1 + super::xorshift(&mut state) % 1000;
                                rt::time::sleep(Duration::from_millis(ms)).await;
                                slept += ms;
                            }
                            slept
                        })
                    })
                    .collect();
                sum_joined(handles).await
            }

            /// W4: `tasks` tasks in a ring; each sends `messages` messages to
            /// the next and receives as many from the previous, alternating.
            pub async fn w4_ring(tasks: usize, messages: u32) -> u32 {
                let (txs, rxs): (Vec<_>, Vec<_>) =
                    (0..tasks).map(|_| mpsc::channel::<u32>(4)).unzip();
                let mut rxs: Vec<_> = rxs.into_iter().map(Some).collect();
                let handles: Vec<_> = txs
                    .into_iter()
                    .enumerate()
                    .map(|(i, tx)| {
                        // Task i sends on channel i, receives on channel i - 1.
                        let mut rx = rxs[(i + tasks - 1) % tasks].take().unwrap();
                        rt::spawn(async move {
                            let mut sum = 0;
                            for k in 0..messages {
                                tx.send(k).await.unwrap();
                                sum += rx.recv().await.unwrap();
                            }
                            sum
                        })
                    })
                    .collect();
                sum_joined(handles).await
            }
        }
    };
}

workloads!(on_sim, sim_rt);
workloads!(on_tokio, tokio);

fn sim_runtime() -> sim_rt::runtime::Runtime {
    sim_rt::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

fn tokio_runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

fn sim_runtime_paused() -> sim_rt::runtime::Runtime {
    sim_rt::runtime::Builder::new_current_thread()
        .enable_time()
        .start_paused(true)
        .build()
        .unwrap()
}

fn tokio_runtime_paused() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .start_paused(true)
        .build()
        .unwrap()
}

/// Times `block_on(work())` only: the runtime is built in the untimed setup
/// and handed back so that it is dropped untimed as well.
macro_rules! bench_block_on {
    ($group:expr, $name:literal, $make:expr, $work:expr, $expect:expr) => {
        $group.bench_function($name, |b| {
            b.iter_batched(
                $make,
                |rt| {
                    let out = rt.block_on($work);
                    assert_eq!(out, $expect);
                    rt
                },
                BatchSize::PerIteration,
            )
        })
    };
}

/// [`bench_block_on!`] of the same workload, `on_sim::$work` on the
/// simulation `$sim` builds and `on_tokio::$work` on the tokio runtime
/// `$tokio` builds, with the same expected output.
macro_rules! bench_both {
    ($group:expr, ($sim:expr, $tokio:expr), $work:ident($($arg:expr),*), $expect:expr) => {
        bench_block_on!($group, "sim", $sim, on_sim::$work($($arg),*), $expect);
        bench_block_on!($group, "tokio", $tokio, on_tokio::$work($($arg),*), $expect);
    };
}

fn w1_mpsc(c: &mut Criterion) {
    let mut g = c.benchmark_group("w1_mpsc");
    g.sample_size(10).measurement_time(Duration::from_secs(4));
    g.throughput(Throughput::Elements(W1_MESSAGES));
    let expect: u64 = (1..=W1_MESSAGES / 2).sum();
    bench_both!(
        g,
        (sim_runtime, tokio_runtime),
        w1_mpsc(W1_MESSAGES),
        expect
    );
    g.finish();
}

fn w2_spawn_yield(c: &mut Criterion) {
    let mut g = c.benchmark_group("w2_spawn_yield");
    g.sample_size(10).measurement_time(Duration::from_secs(8));
    g.throughput(Throughput::Elements(W2_TASKS));
    let expect: u64 = (0..W2_TASKS).sum();
    bench_both!(
        g,
        (sim_runtime, tokio_runtime),
        w2_spawn_yield(W2_TASKS),
        expect
    );
    g.finish();
}

fn w3_sleep(c: &mut Criterion) {
    let mut g = c.benchmark_group("w3_sleep");
    g.sample_size(10).measurement_time(Duration::from_secs(5));
    g.throughput(Throughput::Elements(W3_TASKS * W3_SLEEPS));
    // The same durations on both runtimes, computed outside the runtimes.
    let expect: u64 = (0..W3_TASKS)
        .map(|i| {
            let mut state = i.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
            (0..W3_SLEEPS)
                .map(|_| 1 + xorshift(&mut state) % 1000)
                .sum::<u64>()
        })
        .sum();
    bench_both!(
        g,
        (sim_runtime_paused, tokio_runtime_paused),
        w3_sleep(W3_TASKS, W3_SLEEPS),
        expect
    );
    g.finish();
}

fn w4_tiny_sim(c: &mut Criterion) {
    let mut g = c.benchmark_group("w4_tiny_sim");
    g.sample_size(10).measurement_time(Duration::from_secs(4));
    g.throughput(Throughput::Elements(1));
    let expect = W4_TASKS as u32 * (0..W4_MESSAGES).sum::<u32>();
    g.bench_function("sim", |b| {
        let mut seed = 0u64;
        b.iter(|| {
            seed += 1;
            let out = sim_rt::runtime::Builder::new_current_thread()
                .enable_all()
                .seed(seed)
                .build()
                .unwrap()
                .block_on(on_sim::w4_ring(W4_TASKS, W4_MESSAGES));
            assert_eq!(out, expect);
        })
    });
    g.bench_function("tokio", |b| {
        b.iter(|| {
            let out = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap()
                .block_on(on_tokio::w4_ring(W4_TASKS, W4_MESSAGES));
            assert_eq!(out, expect);
        })
    });
    g.finish();
}

criterion_group!(benches, w1_mpsc, w2_spawn_yield, w3_sleep, w4_tiny_sim);

/// `SIM_BENCH_ONCE=w1|w2|w3|w4`: one run of that workload on sim-rt (W4:
/// 200 executions), for instruction counts (`valgrind --tool=callgrind`)
/// and allocation profiles, which criterion's repetitions would swamp.
fn once(which: &str) {
    match which {
        "w1" => assert_eq!(
            sim_runtime().block_on(on_sim::w1_mpsc(W1_MESSAGES)),
            (1..=W1_MESSAGES / 2).sum::<u64>()
        ),
        "w2" => assert_eq!(
            sim_runtime().block_on(on_sim::w2_spawn_yield(W2_TASKS)),
            (0..W2_TASKS).sum::<u64>()
        ),
        "w3" => {
            sim_runtime_paused().block_on(on_sim::w3_sleep(W3_TASKS, W3_SLEEPS));
        }
        "w4" => {
            for seed in 0..200 {
                sim_rt::runtime::Builder::new_current_thread()
                    .enable_all()
                    .seed(seed)
                    .build()
                    .unwrap()
                    .block_on(on_sim::w4_ring(W4_TASKS, W4_MESSAGES));
            }
        }
        _ => {
            eprintln!("SIM_BENCH_ONCE takes w1, w2, w3 or w4; got {which:?}");
            std::process::exit(2);
        }
    }
}

fn main() {
    if let Ok(which) = std::env::var("SIM_BENCH_ONCE") {
        return once(&which);
    }
    // What `criterion_main!` does.
    benches();
    Criterion::default().configure_from_args().final_summary();
}
