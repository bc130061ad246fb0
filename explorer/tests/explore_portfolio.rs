//! The default portfolio and swarm walks, through the public API: what a
//! test that names no explorer runs, how its failures are reported and
//! replayed, and what swarm's per-execution fault rates find that fixed
//! rates do not.

mod common;

use std::cell::Cell;
use std::rc::Rc;
use std::time::Duration;

use common::lost_update;
use explorer::{Explorer, Pct, Random, Rtc, Swarm, Walk};
use sim_rt::sim::{self, FaultInjector};

/// A test that names neither an explorer nor a search runs the portfolio;
/// its failure names the member that found it and replays from its token,
/// step for step.
#[test]
fn the_default_is_the_portfolio_and_its_failures_replay() {
    let report = Explorer::new()
        .executions(500)
        .progress(false)
        .run(lost_update);
    assert_eq!(
        (report.search.as_str(), report.explorer.as_str()),
        ("portfolio", "default")
    );
    let f = report
        .failure
        .as_ref()
        .expect("the portfolio finds the lost update");
    assert!(
        f.found_by.starts_with("the default portfolio's "),
        "{}",
        f.found_by
    );
    assert!(report.to_string().contains(&f.found_by), "{report}");
    let again = Explorer::new()
        .progress(false)
        .replay(f.token.to_string())
        .run(lost_update);
    let g = again.failure.expect("the replay fails again");
    assert_eq!(g.trace, f.trace, "the same execution, step for step");
}

/// The portfolio's result does not depend on how many threads run it.
#[test]
fn the_portfolio_does_not_depend_on_the_jobs() {
    let run = |jobs| {
        let report = storm().executions(3_000).jobs(jobs).run(three_resets);
        let f = report.failure.expect("the storm is found");
        (
            report.executions,
            f.execution,
            f.found_by,
            f.token.to_string(),
        )
    };
    assert_eq!(run(1), run(2));
}

/// Reports a state one of a thousand data options decides: a walk draws
/// it in every execution, sampling at each of its delays that falls on
/// it, so both keep reaching new states.
async fn reports_a_drawn_state() {
    let worker = sim_rt::spawn(async { sim_rt::task::yield_now().await });
    let x = sim_rt::choose(1000);
    sim::report_state(&x);
    worker.await.unwrap();
}

/// The same program, reporting nothing.
async fn reports_nothing() {
    let worker = sim_rt::spawn(async { sim_rt::task::yield_now().await });
    sim_rt::choose(1000);
    worker.await.unwrap();
}

/// The executions each member of the default portfolio ran, as shares of
/// the exploration's.
fn shares<Fut: std::future::Future<Output = ()>>(program: fn() -> Fut) -> Vec<(String, f64)> {
    let report = Explorer::new().executions(960).progress(false).run(program);
    assert!(report.failure.is_none());
    let total: u64 = report.members.iter().map(|m| m.1).sum();
    assert_eq!(total, report.executions, "{:?}", report.members);
    report
        .members
        .iter()
        .map(|(name, n)| (name.clone(), *n as f64 / total as f64))
        .collect()
}

/// The default portfolio gives a third of its budget to the walk or
/// sampling member whose executions keep reaching new reported states;
/// a program that reports none runs the fixed shares (a quarter, a half, a
/// quarter of the planned executions; a sample may end before its plan).
#[test]
fn the_default_spends_its_remainder_where_new_states_are() {
    let fixed = shares(reports_nothing);
    let names: Vec<&str> = fixed.iter().map(|m| m.0.as_str()).collect();
    assert_eq!(names.len(), 3, "{fixed:?}");
    assert!(names[0].starts_with("first-delay sweep"), "{fixed:?}");
    assert!(names[1].starts_with("swarm with pct"), "{fixed:?}");
    assert!(names[2].starts_with("ss with rr"), "{fixed:?}");
    for ((_, share), planned) in fixed.iter().zip([0.25, 0.5, 0.25]) {
        assert!((share - planned).abs() < 0.07, "{fixed:?}");
    }
    let following = shares(reports_a_drawn_state);
    // The sweep is never given the remainder: its share falls.
    assert!(
        following[0].1 < fixed[0].1 - 0.05,
        "{following:?}\n{fixed:?}"
    );
    let rose = (1..3)
        .map(|m| following[m].1 - fixed[m].1)
        .fold(f64::MIN, f64::max);
    assert!(rose > 0.1, "{following:?}\n{fixed:?}");
}

/// Naming an explorer or a search replaces the portfolio; a walk named
/// alone walks with the uniform random explorer.
#[test]
fn a_named_explorer_or_search_replaces_the_portfolio() {
    let ran = |e: Explorer| {
        let r = e.executions(20).progress(false).run(|| async {});
        (r.search, r.explorer)
    };
    assert_eq!(
        ran(Explorer::new().explorer(Rtc::default())),
        ("ss".into(), "rtc".into())
    );
    assert_eq!(
        ran(Explorer::new().search(Walk)),
        ("walk".into(), "random".into())
    );
    assert_eq!(
        ran(Explorer::new().search(Swarm)),
        ("swarm".into(), "random".into())
    );
    assert_eq!(
        ran(Explorer::new().search(Walk).explorer(Pct::new(2))),
        ("walk".into(), "pct:2:1000".into())
    );
    assert_eq!(
        ran(Explorer::new().explorer(Rtc::default()).portfolio()),
        ("portfolio".into(), "default".into())
    );
}

/// Three replicas whose entry points count their starts; the property
/// fails once all three have been reset: a storm the injector's default
/// rate (0.001 a step) almost never makes in a short run.
async fn three_resets() {
    let starts: Vec<Rc<Cell<u32>>> = (0..3).map(|_| Rc::new(Cell::new(0))).collect();
    for (i, s) in starts.iter().enumerate() {
        let s = s.clone();
        sim::host(format!("r{i}")).start(move || {
            s.set(s.get() + 1);
            std::future::pending::<()>()
        });
    }
    sim_rt::time::sleep(Duration::from_millis(60)).await;
    let reset = starts.iter().filter(|s| s.get() > 1).count();
    assert!(reset < 3, "all three replicas were reset");
}

fn storm() -> Explorer {
    Explorer::new()
        .executions(400)
        .progress(false)
        .runtime(|b| {
            b.fault_injector(FaultInjector::new().max_resets(3).max_partitions(0));
        })
}

/// Swarm walks find the storm that walks with the configured rate do not;
/// the report prints the execution's draw, and both its token (search
/// "swarm") and its seed reproduce it.
#[test]
fn swarm_finds_a_storm_and_replays_it_with_its_rates() {
    let walked = storm()
        .explorer(Random::default())
        .search(Walk)
        .run(three_resets);
    assert!(!walked.failed(), "fixed rates make the storm: {walked}");

    let report = storm().search(Swarm).shrink(0).run(three_resets);
    let f = report
        .failure
        .as_ref()
        .expect("a swarm walk makes the storm");
    let rates = f.swarm.as_deref().expect("a swarm failure has its draw");
    assert!(rates.contains("faults x10"), "{rates}");
    assert!(
        report.to_string().contains(&format!("swarm: {rates}")),
        "{report}"
    );
    assert_eq!(f.token.search, "swarm");

    let replayed = storm().replay(f.token.to_string()).run(three_resets);
    let g = replayed.failure.expect("the token replays the failure");
    assert_eq!(g.trace, f.trace);
    assert_eq!(
        g.swarm.as_deref(),
        Some(rates),
        "the replay draws the same rates"
    );

    // The seed line: the same search with this seed runs it first.
    let seeded = storm()
        .search(Swarm)
        .shrink(0)
        .seed(f.seed)
        .run(three_resets);
    let h = seeded.failure.expect("the seed alone reproduces it");
    assert_eq!((h.execution, h.trace.hash()), (1, f.trace.hash()));
}

/// A shrunk swarm failure is written down as its data choices: its token
/// replays without the draw, and the token of the execution as found still
/// replays with it.
#[test]
fn a_shrunk_swarm_failure_replays_both_ways() {
    let report = storm().search(Swarm).run(three_resets);
    let f = report
        .failure
        .as_ref()
        .expect("a swarm walk makes the storm");
    let shrunk = f.shrunk.as_ref().expect("failures are shrunk by default");
    assert_eq!(shrunk.original.search, "swarm");
    for token in [f.token.to_string(), shrunk.original.to_string()] {
        let again = storm().replay(token.clone()).shrink(0).run(three_resets);
        assert!(again.failed(), "{token} replays the failure");
    }
}

/// The adaptive portfolio (`Explorer::adaptive`, `SIM_SEARCH=adaptive`)
/// finds the storm and the lost update, names the member that found each,
/// replays its failure, and gives the same result with one job or two.
#[test]
fn the_adaptive_portfolio_finds_replays_and_does_not_depend_on_the_jobs() {
    let run = |jobs| {
        let report = storm()
            .adaptive()
            .executions(3_000)
            .jobs(jobs)
            .run(three_resets);
        assert_eq!(
            (report.search.as_str(), report.explorer.as_str()),
            ("portfolio", "adaptive")
        );
        let f = report.failure.expect("the storm is found");
        assert!(
            f.found_by.starts_with("the adaptive portfolio's "),
            "{}",
            f.found_by
        );
        (
            report.executions,
            f.execution,
            f.found_by,
            f.token.to_string(),
        )
    };
    let one = run(1);
    assert_eq!(one, run(2));
    let replayed = storm().replay(one.3.clone()).run(three_resets);
    assert!(replayed.failed(), "the token replays the failure");

    let report = Explorer::new()
        .adaptive()
        .executions(500)
        .progress(false)
        .run(lost_update);
    let f = report.failure.expect("the lost update is found");
    let again = Explorer::new()
        .progress(false)
        .replay(f.token.to_string())
        .run(lost_update);
    assert_eq!(again.failure.expect("replayed").trace, f.trace);
}

/// The adaptive portfolio's mutations of its walks: some seed's storm is
/// found by one (a kept walk run again with changed choices); its failure
/// says so, gives no seed line (the seed alone is not that walk), and both
/// its token and its shrunk token replay it.
#[test]
fn an_adaptive_mutations_failure_says_so_and_replays() {
    let (report, f) = (0..20)
        .find_map(|seed| {
            let report = storm()
                .adaptive()
                .seed(seed)
                .executions(2_000)
                .run(three_resets);
            let f = report.failure.clone()?;
            f.found_by.contains("mutation").then_some((report, f))
        })
        .expect("a mutation finds the storm on one of 20 seeds");
    assert!(report.to_string().contains(&f.found_by), "{report}");
    assert!(f.seed_command.is_none(), "{:?}", f.seed_command);
    let shrunk = f.shrunk.as_ref().expect("failures are shrunk by default");
    assert!(
        !shrunk.original.schedule.is_empty(),
        "a mutated walk deviates"
    );
    let again = storm().replay(f.token.to_string()).run(three_resets);
    assert_eq!(again.failure.expect("replayed").trace, f.trace);
    let original = storm()
        .replay(shrunk.original.to_string())
        .shrink(0)
        .run(three_resets);
    assert!(original.failed(), "the walk as found replays too");
}

/// Under `SIM_SHARD` the adaptive portfolio's shards run their part of
/// each generation: a shard's result does not depend on the jobs, and the
/// failure a shard finds replays.
#[test]
fn adaptive_shards_do_not_depend_on_the_jobs() {
    let run = |shard, jobs| {
        let report = storm()
            .adaptive()
            .executions(3_000)
            .shard(shard, 2)
            .jobs(jobs)
            .run(three_resets);
        report
            .failure
            .map(|f| (report.executions, f.token.to_string()))
    };
    for shard in 0..2 {
        let one = run(shard, 1);
        assert_eq!(one, run(shard, 2));
        let (_, token) = one.expect("each shard finds the storm");
        assert!(storm().replay(token).run(three_resets).failed());
    }
}
