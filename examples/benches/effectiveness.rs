//! The effectiveness table: for each planted bug and each search strategy,
//! how many executions it takes to find the bug, as in Table 1 of the
//! delaying-explorer paper (Desai, Qadeer & Seshia, FSE 2015).
//!
//! Every strategy gets the case's own runtime settings (network, faults,
//! disk) and differs only in explorer and search:
//!
//! | column | explorer | search |
//! |---|---|---|
//! | default | the default portfolio: what a test that names neither gets ([`Explorer::portfolio`]) | |
//! | walk | uniform random ([`Random`]) | random walks ([`Walk`]) |
//! | pct3 | PCT, depth 3 ([`Pct`]) | random walks |
//! | swarm, pct3-swarm | uniform random, PCT depth 3 | swarm walks: fault rates drawn per execution ([`Swarm`]) |
//! | ss-rtc, ss-rr, ss-prr | run-to-completion, round-robin, randomized round-robin | stratified sampling, up to [`MAX_DELAYS`] delays |
//! | ses-rtc, ses-rr, ses-prr | the same three | stratified exhaustive search, up to [`MAX_DELAYS`] delays |
//! | ss-own, ses-own | the case's own delaying explorer, where it has one | as above |
//!
//! A cell is the median, over the seeds 0..N, of the executions up to and
//! including the first failing one; a seed that finds nothing within the
//! cap counts as more than the cap, and a median beyond the cap shows as
//! `>cap`. The last two columns divide the default's median by the better
//! of the two baselines' (walk, pct3), and by the best single built-in
//! strategy's (every column but the default and a case's own explorer).
//!
//! ```text
//! cargo bench -p examples --bench effectiveness                   # print the table
//! cargo bench -p examples --bench effectiveness -- --write-guide  # and put it in docs/src/effectiveness.md
//! options: --cap N (default 10000)  --seeds N (default 10)  --only <case>
//!          --strategies default,walk,...  (print only these columns)
//!          --rate N  (executions per second instead; see below)
//! ```
//!
//! `--rate N` measures speed, not effectiveness: each case with its bug
//! off, N executions under each strategy (default: walk, default,
//! adaptive) on one thread, seed 0, and prints executions per second of
//! CPU time (the fastest of three runs each) and each strategy's rate
//! against the walk's (issue 34 asks the default's within 15% of a plain
//! walk's), by executions and by simulation steps (strategies that make
//! longer executions run fewer of them at the same cost per step).
//! Liveness cases pay their end walks, as in a real exploration.

extern crate sim_rt as tokio;

#[path = "../src/sim/mod.rs"]
mod sim;

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use explorer::{
    Exhaustive, Explorer, Pct, Random, RandomizedRoundRobin, RoundRobin, Rtc, Sampling, Swarm, Walk,
};

/// The delay bound of the stratified searches.
const MAX_DELAYS: u32 = 4;

struct Strategy {
    name: String,
    /// A single built-in strategy (not the default portfolio, not a case's
    /// own explorer): a candidate for the last column.
    builtin: bool,
    apply: Box<dyn Fn(Explorer) -> Explorer>,
}

fn strategy(
    name: impl Into<String>,
    builtin: bool,
    apply: impl Fn(Explorer) -> Explorer + 'static,
) -> Strategy {
    Strategy {
        name: name.into(),
        builtin,
        apply: Box::new(apply),
    }
}

fn strategies(case: &sim::Case) -> Vec<Strategy> {
    let mut all = vec![
        strategy("default", false, |e| e.portfolio()),
        strategy("adaptive", false, |e| e.adaptive()),
        strategy("walk", true, |e| e.explorer(Random::default()).search(Walk)),
        strategy("pct3", true, |e| e.explorer(Pct::new(3)).search(Walk)),
        strategy("swarm", true, |e| {
            e.explorer(Random::default()).search(Swarm)
        }),
        strategy("pct3-swarm", true, |e| {
            e.explorer(Pct::new(3)).search(Swarm)
        }),
        strategy("ss-rtc", true, |e| {
            e.explorer(Rtc::default()).search(Sampling::new(MAX_DELAYS))
        }),
        strategy("ss-rr", true, |e| {
            e.explorer(RoundRobin::default())
                .search(Sampling::new(MAX_DELAYS))
        }),
        strategy("ss-prr", true, |e| {
            e.explorer(RandomizedRoundRobin::default())
                .search(Sampling::new(MAX_DELAYS))
        }),
        strategy("ses-rtc", true, |e| {
            e.explorer(Rtc::default())
                .search(Exhaustive::new(MAX_DELAYS))
        }),
        strategy("ses-rr", true, |e| {
            e.explorer(RoundRobin::default())
                .search(Exhaustive::new(MAX_DELAYS))
        }),
        strategy("ses-prr", true, |e| {
            e.explorer(RandomizedRoundRobin::default())
                .search(Exhaustive::new(MAX_DELAYS))
        }),
    ];
    if let Some(own) = case.custom {
        all.push(strategy("ss-own", false, move |e| {
            own(e).search(Sampling::new(MAX_DELAYS))
        }));
        all.push(strategy("ses-own", false, move |e| {
            own(e).search(Exhaustive::new(MAX_DELAYS))
        }));
    }
    all
}

struct Options {
    cap: u64,
    seeds: u64,
    only: Option<String>,
    strategies: Option<Vec<String>>,
    write_guide: bool,
    rate: Option<u64>,
}

fn options() -> Options {
    let mut o = Options {
        cap: 10_000,
        seeds: 10,
        only: None,
        strategies: None,
        write_guide: false,
        rate: None,
    };
    let mut args = std::env::args().skip(1);
    let number = |flag: &str, v: Option<String>| -> u64 {
        v.and_then(|v| v.parse().ok())
            .filter(|n| *n > 0)
            .unwrap_or_else(|| panic!("{flag} needs a positive number"))
    };
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--cap" => o.cap = number("--cap", args.next()),
            "--seeds" => o.seeds = number("--seeds", args.next()),
            "--only" => o.only = Some(args.next().expect("--only needs a case name")),
            "--strategies" => {
                let list = args
                    .next()
                    .expect("--strategies needs a list like default,walk");
                o.strategies = Some(list.split(',').map(str::to_string).collect());
            }
            "--write-guide" => o.write_guide = true,
            "--rate" => o.rate = Some(number("--rate", args.next())),
            "--bench" => {} // cargo bench adds it
            other => panic!(
                "unknown option {other:?}; the options are --cap N, --seeds N, --only <case>, \
                 --strategies a,b,..., --write-guide, --rate N"
            ),
        }
    }
    assert!(
        !o.write_guide || (o.only.is_none() && o.strategies.is_none()),
        "--write-guide writes the whole table: drop --only and --strategies"
    );
    o
}

/// The median of `runs` (executions to the first failure; `None`: none
/// within the cap), `None` when it lies beyond the cap.
fn median(runs: &[Option<u64>]) -> Option<u64> {
    let mut sorted: Vec<u64> = runs.iter().map(|r| r.unwrap_or(u64::MAX)).collect();
    sorted.sort_unstable();
    let m = sorted[(sorted.len() - 1) / 2];
    (m != u64::MAX).then_some(m)
}

fn cell(m: Option<u64>, cap: u64) -> String {
    m.map_or(format!(">{cap}"), |m| m.to_string())
}

fn main() {
    let o = options();
    let cases: Vec<sim::Case> = sim::cases()
        .into_iter()
        .filter(|c| o.only.as_deref().is_none_or(|n| n == c.name))
        .collect();
    assert!(!cases.is_empty(), "no case named {:?}", o.only);
    if let Some(executions) = o.rate {
        return rates(&cases, &o, executions);
    }
    let started = Instant::now();
    let mut columns: Vec<String> = Vec::new();
    let mut rows = Vec::new();
    for case in &cases {
        let mut row = Vec::new();
        let chosen = strategies(case).into_iter().filter(|s| {
            o.strategies
                .as_ref()
                .is_none_or(|names| names.contains(&s.name))
        });
        for s in chosen {
            let t = Instant::now();
            let mut runs = Vec::new();
            for seed in 0..o.seeds {
                let test = case.test;
                // Executions to the first failure are what count here: a
                // liveness failure's critical transition is not searched.
                // The case's own liveness settings otherwise (`election`
                // keeps its partition in walks).
                let explorer = (s.apply)((case.explorer)());
                let liveness = explorer.liveness_settings().clone();
                let report = explorer
                    .liveness(liveness.critical_transition(false))
                    .name(case.name)
                    .seed(seed)
                    .executions(o.cap)
                    .progress(false)
                    .run(move || test(true));
                runs.push(report.failure.map(|f| f.execution));
            }
            let m = median(&runs);
            let found = runs.iter().filter(|r| r.is_some()).count();
            let each: Vec<String> = runs
                .iter()
                .map(|r| r.map_or("-".to_string(), |n| n.to_string()))
                .collect();
            eprintln!(
                "{:>8} {:>8}: median {:>7} ({found}/{} seeds found it) in {:.1?}; by seed: {}",
                case.name,
                s.name,
                cell(m, o.cap),
                o.seeds,
                t.elapsed(),
                each.join(" ")
            );
            if !columns.contains(&s.name) {
                columns.push(s.name.clone());
            }
            row.push((s.name, s.builtin, m));
        }
        rows.push((case.name, case.bug, row));
    }

    let mut table = String::new();
    table.push_str("| bug | ");
    table.push_str(&columns.join(" | "));
    table.push_str(
        " | default vs the better of walk and pct3 | best single built-in (default vs it) |\n|---|",
    );
    table.push_str(&"---:|".repeat(columns.len() + 2));
    table.push('\n');
    for (name, bug, row) in &rows {
        table.push_str(&format!("| `{name}`: {bug} |"));
        for c in &columns {
            let v = row.iter().find(|(n, ..)| n == c).map(|(.., m)| *m);
            match v {
                Some(m) => table.push_str(&format!(" {} |", cell(m, o.cap))),
                None => table.push_str(" |"),
            }
        }
        let get = |c: &str| row.iter().find(|(n, ..)| n == c).and_then(|r| r.2);
        let default = get("default");
        let baseline = [get("walk"), get("pct3")].into_iter().flatten().min();
        let best = row
            .iter()
            .filter(|r| r.1)
            .filter_map(|r| Some((r.2?, &r.0)))
            .min();
        let versus = |d: Option<u64>, other: Option<u64>| match (d, other) {
            (Some(d), Some(o)) => format!("{:.1}x", d as f64 / o as f64),
            (Some(_), None) => format!("below 1x (the other: >{})", o.cap),
            (None, Some(_)) => "none found".to_string(),
            (None, None) => "neither found it".to_string(),
        };
        let best = match best {
            Some((b, name)) => format!("{name} {b} ({})", versus(default, Some(b))),
            None => "none found".to_string(),
        };
        table.push_str(&format!(" {} | {best} |\n", versus(default, baseline)));
    }
    let note = format!(
        "Median over seeds 0-{} of the executions until the first failure; cap {} \
         executions; delay bound {MAX_DELAYS}; measured in {:.0?}.\n",
        o.seeds - 1,
        o.cap,
        started.elapsed()
    );
    println!("{table}\n{note}");

    if o.write_guide {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/src/effectiveness.md");
        let chapter = std::fs::read_to_string(path).expect("the effectiveness chapter is readable");
        let (begin, end) = (
            "<!-- effectiveness:begin -->\n",
            "<!-- effectiveness:end -->",
        );
        let (Some(b), Some(e)) = (chapter.find(begin), chapter.find(end)) else {
            panic!("{path} has no {begin:?} ... {end:?} markers to write the table between");
        };
        let updated = format!("{}{begin}{table}\n{note}{}", &chapter[..b], &chapter[e..]);
        std::fs::write(path, updated).expect("the effectiveness chapter is writable");
        eprintln!("wrote the table into {path}");
    }
}

/// Steps of the executions `--rate` ran, up to each main future's end.
static STEPS: AtomicU64 = AtomicU64::new(0);

/// `--rate N`: executions per second of each strategy on each case with
/// its bug off, against the walk's, by the process's CPU time (the machine
/// is shared: wall time moves with the neighbours), the fastest of
/// [`RATE_ROUNDS`] runs of each, the strategies taking turns.
fn rates(cases: &[sim::Case], o: &Options, executions: u64) {
    let names = o
        .strategies
        .clone()
        .unwrap_or_else(|| ["walk", "default", "adaptive"].map(str::to_string).to_vec());
    assert!(
        names.first().is_some_and(|n| n == "walk"),
        "--rate compares against the walk: put walk first in --strategies"
    );
    let mut table = format!("| case | {} |\n|---|", names.join(" | "));
    table.push_str(&"---:|".repeat(names.len()));
    table.push('\n');
    for case in cases {
        let all = strategies(case);
        let chosen: Vec<&Strategy> = names
            .iter()
            .map(|name| {
                all.iter()
                    .find(|s| &s.name == name)
                    .unwrap_or_else(|| panic!("no strategy named {name:?}"))
            })
            .collect();
        // Per strategy: the least CPU time of a run, and its steps.
        let mut best = vec![(f64::MAX, 0u64); chosen.len()];
        for _ in 0..RATE_ROUNDS {
            for (i, s) in chosen.iter().enumerate() {
                let (cpu, steps) = rate_run(case, s, executions);
                if cpu < best[i].0 {
                    best[i] = (cpu, steps);
                }
            }
        }
        table.push_str(&format!("| `{}` |", case.name));
        let (walk_cpu, walk_steps) = best[0];
        for (s, &(cpu, steps)) in chosen.iter().zip(&best) {
            let rate = executions as f64 / cpu;
            eprintln!(
                "{:>8} {:>8}: {rate:.0} executions/s, {:.0} steps/s (CPU)",
                case.name,
                s.name,
                steps as f64 / cpu
            );
            table.push_str(&format!(
                " {rate:.0} ({:.2}; steps/s {:.2}) |",
                walk_cpu / cpu,
                (steps as f64 / cpu) / (walk_steps as f64 / walk_cpu)
            ));
        }
        table.push('\n');
    }
    println!(
        "{table}\nExecutions per second of CPU time, and against the walk's: executions per \
         second and simulation steps per second (a strategy whose executions run longer runs \
         fewer of them a second at the same cost per step); {executions} executions each, one \
         thread, each case's bug off, the fastest of {RATE_ROUNDS} runs."
    );
}

/// Runs of each strategy `--rate` takes the fastest of.
const RATE_ROUNDS: usize = 3;

/// One `--rate` run: the CPU seconds it took and the steps it ran.
fn rate_run(case: &sim::Case, s: &Strategy, executions: u64) -> (f64, u64) {
    let test = case.test;
    let explorer = (s.apply)((case.explorer)());
    let liveness = explorer.liveness_settings().clone();
    STEPS.store(0, Ordering::Relaxed);
    let before = cpu_seconds();
    let report = explorer
        .liveness(liveness.critical_transition(false))
        .name(case.name)
        .seed(0)
        .jobs(1)
        .executions(executions)
        .progress(false)
        .run(move || async move {
            test(false).await;
            // The steps up to the main future's end, which ends the run.
            STEPS.fetch_add(sim_rt::sim::step(), Ordering::Relaxed);
        });
    let cpu = cpu_seconds() - before;
    if report.failure.is_some() {
        panic!(
            "{} failed under {} with its bug off: the rate needs a passing run\n{report}",
            case.name, s.name
        );
    }
    (cpu, STEPS.load(Ordering::Relaxed))
}

/// The process's CPU time so far, user and system, its ended threads
/// included (`/proc/self/stat`, in clock ticks of 10 ms).
fn cpu_seconds() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").expect("/proc/self/stat is readable");
    // The fields after the command's closing parenthesis; utime and stime
    // are the 14th and 15th of the line.
    let rest = &stat[stat.rfind(')').expect("a command in parentheses") + 2..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let ticks: u64 =
        fields[11].parse::<u64>().expect("utime") + fields[12].parse::<u64>().expect("stime");
    ticks as f64 / 100.0
}
