//! Libraries that start std threads, unmodified, inside a simulation:
//! their threads are simulated threads of the host that started them
//! (`docs/src/no-escape.md`, *Threads*), so they take turns with the
//! tasks, wait on the simulated clock, and a seed gives the same run.

use std::io::Write;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use sim_rt::runtime::Builder;
use sim_rt::sim;

/// Runs `future` in a fresh simulation of seed `seed`; returns its output
/// and the hash of the run's trace.
fn run<F: std::future::Future>(seed: u64, future: F) -> (F::Output, u64) {
    let rt = Builder::new_current_thread()
        .enable_all()
        .seed(seed)
        .build()
        .unwrap();
    let out = rt.block_on(future);
    (out, rt.trace().hash())
}

/// A `Write` that keeps what it is given.
#[derive(Clone, Default)]
struct Sink(Arc<Mutex<Vec<u8>>>);

impl Write for Sink {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// tracing-appender's non-blocking writer: tasks on three hosts log
/// through it, its worker thread writes the lines, and dropping its guard
/// at the end flushes them all.
#[test]
fn tracing_appenders_worker_thread_writes_every_line() {
    let logged = |seed| {
        run(seed, async {
            let sink = Sink::default();
            let (writer, guard) = tracing_appender::non_blocking(sink.clone());
            let nodes: Vec<_> = (0..3)
                .map(|i| {
                    let mut w = writer.clone();
                    sim::host(format!("node{i}")).spawn(async move {
                        for j in 0..5 {
                            writeln!(w, "node{i} line {j}").unwrap();
                            sim_rt::time::sleep(Duration::from_millis(1)).await;
                        }
                    })
                })
                .collect();
            for n in nodes {
                n.await.unwrap();
            }
            drop(writer);
            drop(guard);
            let text = String::from_utf8(sink.0.lock().unwrap().clone()).unwrap();
            text
        })
    };
    let (text, trace) = logged(1);
    assert_eq!(text.lines().count(), 15, "{text}");
    for i in 0..3 {
        assert!(text.contains(&format!("node{i} line 4")), "{text}");
    }
    assert_eq!(logged(1), (text, trace), "a seed gives the same run");
}

/// rayon's `par_iter` from a task on host "cpu": the pool's threads are
/// simulated threads of that host. The pool is built inside the
/// simulation: rayon's global pool, made once per process, would outlive
/// it.
#[test]
fn rayons_par_iter_runs_on_simulated_pool_threads() {
    use rayon::prelude::*;
    let sum = |seed| {
        run(seed, async {
            sim::host("cpu")
                .spawn(async {
                    let pool = rayon::ThreadPoolBuilder::new()
                        .num_threads(3)
                        .build()
                        .unwrap();
                    let host = sim::current_host();
                    let hosts: Vec<bool> = pool.install(|| {
                        (0..64u32)
                            .into_par_iter()
                            .map(|_| sim::current_host() == host)
                            .collect()
                    });
                    let sum = pool.install(|| (1..=1000u64).into_par_iter().map(|x| x * x).sum());
                    assert!(hosts.iter().all(|&on_cpu| on_cpu));
                    sum
                })
                .await
                .unwrap()
        })
    };
    let (total, trace): (u64, u64) = sum(2);
    assert_eq!(total, (1..=1000u64).map(|x| x * x).sum::<u64>());
    assert_eq!(sum(2), (total, trace), "a seed gives the same run");
}

/// `std::thread::scope` from a task: the scoped threads borrow the task's
/// data and are joined before the scope returns.
#[test]
fn scoped_threads_split_a_tasks_work() {
    let (counts, _) = run(3, async {
        let words = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta"];
        sim::host("indexer")
            .spawn(async move {
                std::thread::scope(|s| {
                    let (a, b) = words.split_at(3);
                    let left = s.spawn(|| a.iter().map(|w| w.len()).sum::<usize>());
                    let right = s.spawn(|| b.iter().map(|w| w.len()).sum::<usize>());
                    (left.join().unwrap(), right.join().unwrap())
                })
            })
            .await
            .unwrap()
    });
    assert_eq!(counts, (14, 16));
}

/// A crossbeam-channel pipeline: a task feeds a std worker thread, which
/// sleeps per item (simulated time) and answers through a tokio channel's
/// `blocking_send`, which the task awaits.
#[test]
fn a_crossbeam_pipeline_between_a_thread_and_a_task() {
    let ((results, elapsed), _) = run(4, async {
        let (jobs, inbox) = crossbeam_channel::unbounded::<u32>();
        let (answers, mut results) = sim_rt::sync::mpsc::channel::<u32>(1);
        let start = sim_rt::time::Instant::now();
        let worker = std::thread::spawn(move || {
            for n in inbox {
                std::thread::sleep(Duration::from_millis(10));
                answers.blocking_send(n * 10).unwrap();
            }
        });
        for n in 1..=4 {
            jobs.send(n).unwrap();
        }
        drop(jobs);
        let mut got = Vec::new();
        while let Some(r) = results.recv().await {
            got.push(r);
        }
        worker.join().unwrap();
        (got, start.elapsed())
    });
    assert_eq!(results, vec![10, 20, 30, 40]);
    // Four sleeps of 10 ms, and the polls' cost (a microsecond each).
    assert!(elapsed >= Duration::from_millis(40), "{elapsed:?}");
    assert!(elapsed < Duration::from_millis(41), "{elapsed:?}");
}

/// `spawn_blocking` whose closure waits with `blocking_recv` for a message
/// a task sends later.
#[test]
fn a_blocking_closure_receives_a_tasks_message() {
    let (got, _) = run(5, async {
        let (tx, mut rx) = sim_rt::sync::mpsc::channel::<String>(1);
        let reader = sim::host("db").spawn(async move {
            sim_rt::task::spawn_blocking(move || rx.blocking_recv())
                .await
                .unwrap()
        });
        sim_rt::time::sleep(Duration::from_millis(30)).await;
        tx.send("hello".to_string()).await.unwrap();
        reader.await.unwrap()
    });
    assert_eq!(got.as_deref(), Some("hello"));
}
