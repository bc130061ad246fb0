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
//! ```

extern crate sim_rt as tokio;

#[path = "../src/sim/mod.rs"]
mod sim;

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
}

fn options() -> Options {
    let mut o = Options {
        cap: 10_000,
        seeds: 10,
        only: None,
        strategies: None,
        write_guide: false,
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
            "--bench" => {} // cargo bench adds it
            other => panic!(
                "unknown option {other:?}; the options are --cap N, --seeds N, --only <case>, \
                 --strategies a,b,..., --write-guide"
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
