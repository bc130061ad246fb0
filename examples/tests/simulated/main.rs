//! The examples under the simulator: each planted bug is found within a
//! bounded number of executions, and each system passes with it off.

extern crate sim_rt as tokio;

use std::future::Future;

use explorer::{
    CriticalTransition, Exhaustive, Explorer, FoundFailure, Random, Report, Sampling, Signal, Walk,
};

#[path = "../../src/sim/mod.rs"]
mod sim;

mod chain;
mod counter;
mod drain;
mod election;
mod flusher;
mod kv;
mod lease;
mod liveness;
mod lock;
mod quorum;
mod quorum_read;
mod raft;
mod registry;
mod shards;
mod shrink;
mod twopc;
mod wal;

/// Every system tells a search its hosts' states
/// (`sim_rt::sim::report_state`): one execution of each case, its bug off,
/// goes through several abstract states (host states and their tuples),
/// the ground the state signal and the exhaustive search's cache count.
#[test]
fn every_system_reports_its_hosts_states() {
    for case in sim::cases() {
        let test = case.test;
        let report = (case.explorer)()
            .explorer(Random::default())
            .search(Walk)
            .executions(1)
            .probe_signal(Signal::States)
            .progress(false)
            .run(move || test(false));
        let states = report
            .signal
            .keys()
            .filter(|&&k| Signal::States.owns(k))
            .count();
        assert!(states >= 4, "{}: {states} abstract states", case.name);
    }
}

/// The default portfolio learns from the states `quorum`'s replicas report
/// (its remainder follows new abstract states): the same seed gives the
/// same result on one thread and two, and under `SIM_SHARD` each shard's
/// does not depend on the threads either; every failure replays.
#[test]
fn the_default_following_states_does_not_depend_on_the_jobs() {
    let case = sim::case("quorum").expect("the quorum case");
    let test = case.test;
    let run = |jobs, shard: Option<u32>| {
        let mut e = (case.explorer)()
            .portfolio()
            .seed(0)
            .executions(3_000)
            .jobs(jobs)
            .progress(false);
        if let Some(i) = shard {
            e = e.shard(i, 2);
        }
        let report = e.run(move || test(true));
        let f = report.failure.expect("the default finds the lost value");
        (report.executions, f.execution, f.token.to_string())
    };
    for shard in [None, Some(0), Some(1)] {
        let one = run(1, shard);
        assert_eq!(one, run(2, shard), "shard {shard:?}");
        // Past the members' probes: the remainder has followed the states.
        if shard.is_none() {
            assert!(one.1 > 3 * 32, "found at {}", one.1);
        }
        let again = (case.explorer)()
            .progress(false)
            .replay(one.2.clone())
            .run(move || test(true));
        assert!(again.failed(), "the token replays the failure");
    }
}

/// Explores `test` with its planted bug and returns the failure found,
/// after checking that the failure names `property`.
#[track_caller]
fn planted_bug_found<F, Fut>(explorer: Explorer, test: F, property: &str) -> FoundFailure
where
    F: Fn(bool) -> Fut + Sync,
    Fut: Future<Output = ()>,
{
    let report = explorer.run(|| test(true));
    let found = report.failure.expect("the planted bug is found");
    assert!(
        found.failure.to_string().contains(property),
        "{}",
        found.failure
    );
    found
}

/// Explores `test` with its planted bug, which an "eventually" property
/// named `property` finds dead, and returns the report and the violation's
/// critical transition, after checking that the transition has a step.
#[track_caller]
fn planted_liveness_bug_found<F, Fut>(
    explorer: Explorer,
    test: F,
    property: &str,
) -> (Report, CriticalTransition)
where
    F: Fn(bool) -> Fut + Sync,
    Fut: Future<Output = ()>,
{
    let report = explorer.run(|| test(true));
    let found = report.failure.as_ref().expect("the planted bug is found");
    let finding = found.liveness.as_ref().expect("a liveness violation");
    assert_eq!(finding.property, property);
    let critical = finding.critical.clone().expect("searched by default");
    assert!(critical.step.is_some(), "{report}");
    (report, critical)
}

/// Explores every execution of `test` without its planted bug with at
/// most one delay (`explorer` bounds how many it may run), and checks that
/// none failed and that every one ran.
#[track_caller]
fn every_execution_one_delay_away_passes<F, Fut>(explorer: Explorer, test: F)
where
    F: Fn(bool) -> Fut + Sync,
    Fut: Future<Output = ()>,
{
    let report = explorer.search(Exhaustive::new(1)).run(|| test(false));
    assert!(!report.failed(), "{report}");
    assert!(
        report.exhausted,
        "every execution with at most one delay ran: {report}"
    );
}

/// `explorer` over 500 stratified samples with up to four delays each.
fn sampled(explorer: Explorer) -> Explorer {
    explorer.search(Sampling::new(4)).executions(500)
}

/// `explorer` over 1,000 random walks.
fn random_walks(explorer: Explorer) -> Explorer {
    explorer
        .explorer(Random::default())
        .search(Walk)
        .executions(1_000)
}

/// Checks that a line of the failure's story is one that `told` holds for.
#[track_caller]
fn story_tells(found: &FoundFailure, told: impl Fn(&str) -> bool) {
    assert!(found.story.iter().any(|l| told(l)), "{:?}", found.story);
}

/// A scenario's two tests: `$found` explores with the planted bug and
/// expects a failure that names `$property` (and, given `story`, a line of
/// the story that the closure holds for); `$passes` explores `$executions`
/// executions without the bug and expects none to fail.
macro_rules! planted_bug {
    (
        $scenario:ident;
        $found:ident: $property:expr $(, story: $story:expr)?;
        $passes:ident: $executions:expr;
    ) => {
        #[test]
        fn $found() {
            let _found =
                crate::planted_bug_found($scenario::explorer(), $scenario::test, $property);
            $(crate::story_tells(&_found, $story);)?
        }

        #[test]
        fn $passes() {
            $scenario::explorer()
                .executions($executions)
                .check(|| $scenario::test(false));
        }
    };
}
use planted_bug;
