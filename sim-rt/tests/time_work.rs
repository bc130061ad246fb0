//! Simulated work time: while the clock is not paused, every poll moves it
//! by the runtime's poll cost (`Builder::poll_cost`), and timers the polls
//! carried it past fire at the scheduler's next park, as tokio's driver
//! sees them.

use std::sync::Arc;
use std::time::Duration;

use sim_rt::runtime::{Builder, Runtime};
use sim_rt::sync::{Mutex, Semaphore};
use sim_rt::time::{self, Instant};

/// The cost the guide recommends: a microsecond a poll.
const COST: Duration = Duration::from_micros(1);

fn runtime(cost: Duration) -> Runtime {
    Builder::new_current_thread()
        .enable_all()
        .poll_cost(cost)
        .build()
        .expect("a simulated runtime builds")
}

/// Four workers share a pool of one connection; each holds it across a
/// yield. Returns each worker's wait for it, read with `std::time`.
fn pool_waits(rt: &Runtime) -> Vec<Duration> {
    rt.block_on(async {
        let pool = Arc::new(Semaphore::new(1));
        let waits = Arc::new(Mutex::new(Vec::new()));
        let mut workers = Vec::new();
        for _ in 0..4 {
            let (pool, waits) = (pool.clone(), waits.clone());
            workers.push(sim_rt::spawn(async move {
                let asked = std::time::Instant::now();
                let _conn = pool.acquire().await.unwrap();
                waits.lock().await.push(asked.elapsed());
                // Some work with the connection held.
                sim_rt::task::yield_now().await;
                sim_rt::task::yield_now().await;
            }));
        }
        for w in workers {
            w.await.unwrap();
        }
        let waits = waits.lock().await.clone();
        waits
    })
}

#[test]
fn a_wait_under_contention_is_measured_above_zero() {
    let waits = pool_waits(&runtime(COST));
    assert_eq!(waits.len(), 4);
    // The first worker finds the connection free; each other one waits
    // while those before it work.
    assert_eq!(waits.iter().filter(|w| w.is_zero()).count(), 1, "{waits:?}");
    assert!(waits.iter().max().unwrap() >= &(3 * COST));
    // Without work time, every wait reads zero: what the cost is for.
    let instant = pool_waits(&runtime(Duration::ZERO));
    assert!(instant.iter().all(|w| w.is_zero()), "{instant:?}");
}

#[test]
fn a_loop_of_zero_length_timeouts_does_not_starve_a_sleep() {
    let rt = runtime(COST);
    let (spins, slept_at) = rt.block_on(async {
        let start = Instant::now();
        let done = Arc::new(std::sync::Mutex::new(None));
        let sleeper = {
            let done = done.clone();
            sim_rt::spawn(async move {
                time::sleep(Duration::from_millis(1)).await;
                *done.lock().unwrap() = Some(start.elapsed());
            })
        };
        let mut spins = 0u64;
        while done.lock().unwrap().is_none() {
            // Ready at once: only the coop budget ever yields.
            let _ = time::timeout(Duration::ZERO, std::future::pending::<()>()).await;
            spins += 1;
        }
        sleeper.await.unwrap();
        let slept_at = done.lock().unwrap().unwrap();
        (spins, slept_at)
    });
    // It fired at its millisecond tick (rounded up as tokio's wheel does:
    // it was armed a poll after the start), once the loop's polls passed
    // it.
    assert_eq!(slept_at, Duration::from_millis(2));
    assert!(spins > 1_000, "{spins}");
}

#[test]
fn without_work_time_the_same_loop_is_a_livelock() {
    let rt = Builder::new_current_thread()
        .enable_all()
        .poll_cost(Duration::ZERO)
        .livelock_steps(1_000)
        .build()
        .unwrap();
    let failure = rt
        .try_block_on(async {
            let done = Arc::new(std::sync::atomic::AtomicBool::new(false));
            let d = done.clone();
            sim_rt::spawn(async move {
                time::sleep(Duration::from_millis(1)).await;
                d.store(true, std::sync::atomic::Ordering::Relaxed);
            });
            while !done.load(std::sync::atomic::Ordering::Relaxed) {
                let _ = time::timeout(Duration::ZERO, std::future::pending::<()>()).await;
            }
        })
        .expect_err("the clock never moves while the loop runs");
    assert!(failure.to_string().contains("livelock"), "{failure}");
}

#[test]
fn an_age_compared_after_sleeping_its_limit_is_past_it() {
    let ttl = Duration::from_millis(10);
    let age = |cost| {
        runtime(cost).block_on(async {
            let inserted = std::time::Instant::now();
            time::sleep(ttl).await;
            inserted.elapsed()
        })
    };
    // The poll that reads the age ran after the timer fired.
    let aged = age(COST);
    assert!(aged > ttl, "{aged:?}");
    assert!(aged <= ttl + Duration::from_millis(1), "{aged:?}");
    assert_eq!(age(Duration::ZERO), ttl);
}

#[test]
fn a_paused_clock_does_not_move_with_work() {
    let rt = Builder::new_current_thread()
        .enable_all()
        .poll_cost(COST)
        .start_paused(true)
        .build()
        .unwrap();
    let (busy, slept) = rt.block_on(async {
        let start = Instant::now();
        for _ in 0..1_000 {
            sim_rt::task::yield_now().await;
        }
        let busy = start.elapsed();
        time::sleep(Duration::from_millis(10)).await;
        (busy, start.elapsed())
    });
    assert_eq!(busy, Duration::ZERO);
    assert_eq!(slept, Duration::from_millis(10));
    // Resumed, it moves again.
    let moved = rt.block_on(async {
        time::resume();
        let start = Instant::now();
        sim_rt::task::yield_now().await;
        start.elapsed()
    });
    assert_eq!(moved, COST);
}

#[test]
fn a_spinning_task_lets_a_timer_fire_at_the_next_park() {
    // A yield loop with a timer armed is no livelock while polls move the
    // clock: the timer fires when the queue parks, and the sleeper runs
    // behind the spinner's next poll.
    let rt = runtime(Duration::from_micros(100));
    let (order, at) = rt.block_on(async {
        let order = Arc::new(std::sync::Mutex::new(Vec::new()));
        let o = order.clone();
        let start = Instant::now();
        let sleeper = sim_rt::spawn(async move {
            time::sleep(Duration::from_millis(1)).await;
            o.lock().unwrap().push("slept");
            start.elapsed()
        });
        while order.lock().unwrap().is_empty() {
            sim_rt::task::yield_now().await;
        }
        order.lock().unwrap().push("saw it");
        let at = sleeper.await.unwrap();
        let order = order.lock().unwrap().clone();
        (order, at)
    });
    assert_eq!(order, ["slept", "saw it"]);
    // Armed at 200 us (the sleeper's first poll), due at the 2 ms tick
    // (tokio's wheel rounds up), read by its next poll a poll later; the
    // start was read at 100 us.
    assert_eq!(at, Duration::from_millis(2));
}

#[test]
fn the_default_cost_is_a_microsecond_and_zero_turns_it_off() {
    assert_eq!(sim_rt::runtime::DEFAULT_POLL_COST, COST);
    let busy = |rt: Runtime| {
        rt.block_on(async {
            let start = Instant::now();
            for _ in 0..10 {
                sim_rt::task::yield_now().await;
            }
            let metrics = sim_rt::runtime::Handle::current().metrics();
            (start.elapsed(), metrics.worker_total_busy_duration(0))
        })
    };
    let default = Builder::new_current_thread().enable_all().build().unwrap();
    // Ten polls after the one that read the start; eleven in all.
    assert_eq!(busy(default), (10 * COST, 11 * COST));
    assert_eq!(
        busy(runtime(Duration::ZERO)),
        (Duration::ZERO, Duration::ZERO)
    );
}

#[test]
fn the_busy_duration_sums_the_cost() {
    let busy = runtime(COST).block_on(async {
        for _ in 0..10 {
            sim_rt::task::yield_now().await;
        }
        sim_rt::runtime::Handle::current()
            .metrics()
            .worker_total_busy_duration(0)
    });
    // The main future's eleven polls, the one reading the metric included.
    assert_eq!(busy, 11 * COST);
}

#[test]
fn work_time_replays_bit_for_bit() {
    let run = || {
        let rt = Builder::new_current_thread()
            .enable_all()
            .poll_cost(COST)
            .seed(7)
            .build()
            .unwrap();
        rt.block_on(async {
            let mut seen = Vec::new();
            let pool = Arc::new(Semaphore::new(2));
            let mut tasks = Vec::new();
            for i in 0..5u64 {
                let pool = pool.clone();
                tasks.push(sim_rt::spawn(async move {
                    let _p = pool.acquire().await.unwrap();
                    time::sleep(Duration::from_micros(300 * i)).await;
                    sim_rt::task::yield_now().await;
                    Instant::now()
                }));
            }
            for t in tasks {
                seen.push(t.await.unwrap());
            }
            seen
        })
    };
    assert_eq!(run(), run());
}

/// A scheduler that reads the enabled events and picks among them by a
/// small linear congruential generator: every event, polls and deliveries
/// alike, gets picked now and then.
struct Lcg(u64);

impl sim_rt::scheduler::Scheduler for Lcg {
    fn pick(&mut self, enabled: &[sim_rt::scheduler::Event]) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 33) as usize % enabled.len()
    }

    fn choose(&mut self, _kind: sim_rt::scheduler::ChoiceKind, _n: usize) -> usize {
        0
    }
}

#[test]
fn packets_arrive_within_their_windows_while_polls_move_the_clock() {
    // A spinner moves the clock while datagrams are in flight, so the
    // clock nears their latest arrivals with polls enabled: the packets go
    // first, and a scheduler reading the enabled events sees only them.
    for seed in 0..8 {
        let echoed = Builder::new_current_thread()
            .enable_all()
            .poll_cost(Duration::from_micros(50))
            // Each datagram arrives exactly 130 us after it is sent, not a
            // whole number of polls: a poll would often carry the clock
            // past it.
            .network(sim_rt::sim::NetConfig {
                default_link: sim_rt::sim::LinkConfig::default()
                    .with_latency(Duration::from_micros(130), Duration::from_micros(130)),
                ..Default::default()
            })
            .seed(seed)
            .scheduler(Lcg)
            .build()
            .unwrap()
            .block_on(async {
                sim_rt::sim::host("echo").start(|| async {
                    let socket = sim_rt::net::UdpSocket::bind("0.0.0.0:7").await?;
                    let mut buf = [0u8; 8];
                    while let Ok((n, from)) = socket.recv_from(&mut buf).await {
                        socket.send_to(&buf[..n], from).await?;
                    }
                    Ok::<(), std::io::Error>(())
                });
                let spinner = sim_rt::spawn(async {
                    for _ in 0..2_000 {
                        sim_rt::task::yield_now().await;
                    }
                });
                // The echo host binds first (a datagram to no socket is
                // lost).
                time::sleep(Duration::from_millis(5)).await;
                let socket = sim_rt::net::UdpSocket::bind("0.0.0.0:0").await.unwrap();
                let mut echoed = 0;
                for i in 0..20u8 {
                    socket.send_to(&[i], "echo:7").await.unwrap();
                    let mut buf = [0u8; 8];
                    let reply = time::timeout(Duration::from_secs(1), socket.recv_from(&mut buf));
                    if reply.await.is_ok() {
                        echoed += 1;
                    }
                }
                spinner.await.unwrap();
                echoed
            });
        assert_eq!(echoed, 20, "seed {seed}");
    }
}
