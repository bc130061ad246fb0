//! W8: W4 over TCP (three hosts, 60 request/replies, a fresh simulation
//! per seed: `sim-rt/benches/shared/w4_tcp.rs`) as users run it, an
//! exploration of many seeds, against the runtime alone on the same seeds.
//!
//! - `walk`: the explorer's uniform random walk, one job.
//! - `default`: the default search (the portfolio), one job.
//! - `alone`: a fresh runtime per seed on the bench's thread, no explorer.
//!
//! Each is timed as the fastest of `SIM_BENCH_BATCHES` (default 5) runs of
//! `SIM_BENCH_EXECUTIONS` (default 10,000) executions, by wall time, run
//! in turn; the table is executions per second. `SIM_BENCH_ONLY=<run>`
//! runs one of them (for a profiler). madsim's side of the
//! comparison (its `Builder::run` over `MADSIM_TEST_NUM` seeds on the same
//! protocol) is measured outside the repository, as the guide's
//! performance chapter says.
//!
//! Run with `cargo bench -p explorer --bench w8`.

use std::time::{Duration, Instant};

use explorer::{Explorer, Random, Walk};

#[path = "../../sim-rt/benches/shared/w4_tcp.rs"]
mod w4;

async fn checked() {
    assert_eq!(w4::protocol().await, w4::REPLIES);
}

/// One exploration of `n` executions with `explorer`; its wall time.
fn explore(explorer: Explorer, n: u64) -> Duration {
    let start = Instant::now();
    let report = explorer.executions(n).jobs(1).progress(false).run(checked);
    let elapsed = start.elapsed();
    assert!(!report.failed(), "{report}");
    assert_eq!(report.executions, n);
    elapsed
}

/// `n` seeds of the runtime alone; its wall time.
fn alone(n: u64) -> Duration {
    let start = Instant::now();
    for seed in 0..n {
        let replies = sim_rt::runtime::Builder::new_current_thread()
            .enable_all()
            .seed(seed)
            .build()
            .unwrap()
            .block_on(w4::protocol());
        assert_eq!(replies, w4::REPLIES);
    }
    start.elapsed()
}

fn env(name: &str, default: u64) -> u64 {
    std::env::var(name).map_or(default, |v| {
        v.replace('_', "")
            .parse()
            .unwrap_or_else(|_| panic!("{name} takes a number, not {v:?}"))
    })
}

fn main() {
    // `cargo test --benches` runs the bench binary with `--bench` absent:
    // one small batch then, to check that it runs.
    let quick = !std::env::args().any(|a| a == "--bench");
    let n = if quick {
        20
    } else {
        env("SIM_BENCH_EXECUTIONS", 10_000)
    };
    let batches = if quick {
        1
    } else {
        env("SIM_BENCH_BATCHES", 5)
    };
    let runs: [(&str, &dyn Fn() -> Duration); 3] = [
        ("walk", &|| {
            explore(Explorer::new().explorer(Random::default()).search(Walk), n)
        }),
        ("default", &|| explore(Explorer::new(), n)),
        ("alone", &|| alone(n)),
    ];
    let only = std::env::var("SIM_BENCH_ONLY").ok();
    if let Some(only) = &only {
        assert!(
            runs.iter().any(|(name, _)| name == only),
            "SIM_BENCH_ONLY={only:?}: no such run (walk, default or alone)"
        );
    }
    let mut best = [Duration::MAX; 3];
    for _ in 0..batches {
        for (i, (name, run)) in runs.iter().enumerate() {
            if only.as_deref().is_none_or(|o| o == *name) {
                best[i] = best[i].min(run());
            }
        }
    }
    println!("W8: {n} executions of W4 over TCP, fastest of {batches} runs each (wall time)");
    println!("| run | executions/s |");
    println!("|---|---:|");
    for (i, (name, _)) in runs.iter().enumerate() {
        if best[i] < Duration::MAX {
            println!("| {name} | {:.0} |", n as f64 / best[i].as_secs_f64());
        }
    }
}
