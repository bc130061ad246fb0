//! Coverage points (`sometimes!`, `reachable!`) through the explorer: a
//! report counts in how many executions each was reached and hit, names
//! the points no execution hit (reached or not), and `require_coverage`
//! makes such a pass a failure.

mod common;
mod coverage_support;

use explorer::{Exhaustive, Explorer, Rtc, Sampling, Signal, Walk};
use sim_rt::sim::PointKind;

/// Two tasks increment a counter with a yield between read and write
/// (`common::racy_count`). Run to completion with no delay, the first task finishes before the second
/// reads: no update is lost. One delay (the first task put off after its
/// read) loses one.
async fn racy_counter() {
    let total = common::racy_count().await;
    sim_rt::sometimes!(total == 1, "an update was lost");
    sim_rt::sometimes!(total == 2, "both updates kept");
    if total > 2 {
        never_called();
    }
}

/// A point no execution reaches: it is known through the linker's table.
fn never_called() {
    sim_rt::reachable!("more updates than tasks");
}

fn names(points: &[sim_rt::sim::Point]) -> Vec<&'static str> {
    points.iter().map(|p| p.name).collect()
}

fn exhaustive(delays: u32) -> Explorer {
    Explorer::new()
        .explorer(Rtc::default())
        .search(Exhaustive::new(delays))
        .progress(false)
}

/// With no delay, the lost update is never seen (and the unreachable point
/// never reached); every delay-1 execution is explored next, and among
/// them the lost update is hit.
#[test]
fn a_shallow_search_reports_the_state_it_never_reached() {
    let shallow = exhaustive(0).run(racy_counter);
    assert!(!shallow.failed());
    assert_eq!(shallow.executions, 1);
    assert_eq!(
        names(&shallow.never_hit()),
        vec!["an update was lost", "more updates than tasks"],
        "{shallow}"
    );
    let text = shallow.to_string();
    assert!(text.contains("coverage: 1 of 3 points hit"), "{text}");
    assert!(
        text.contains(
            "never hit: sometimes \"an update was lost\" at explorer/tests/explore_coverage.rs"
        ) && text.contains("(reached in 1 executions, never held)"),
        "{text}"
    );
    assert!(
        text.contains("never hit: reachable \"more updates than tasks\"")
            && text.contains("(never reached)"),
        "{text}"
    );

    let deeper = exhaustive(1).run(racy_counter);
    assert!(deeper.exhausted, "{deeper}");
    assert_eq!(
        names(&deeper.never_hit()),
        vec!["more updates than tasks"],
        "{deeper}"
    );
    // Every execution reached both `sometimes!` points; each ends with one
    // total, so their hits add up to the executions.
    let tallies: Vec<_> = deeper
        .coverage
        .points()
        .map(|(p, t)| (p.name, p.kind, t.reached, t.hit))
        .collect();
    let n = deeper.executions;
    let lost = tallies[0].3;
    assert!(lost > 0 && lost < n, "{tallies:?}");
    assert_eq!(
        tallies,
        vec![
            ("an update was lost", PointKind::Sometimes, n, lost),
            ("both updates kept", PointKind::Sometimes, n, n - lost),
            ("more updates than tasks", PointKind::Reachable, 0, 0),
        ]
    );
}

/// The tallies of a parallel search do not depend on its threads.
#[test]
fn sampling_counts_the_same_on_one_thread_and_two() {
    let run = |jobs| {
        Explorer::new()
            .explorer(Rtc::default())
            .search(Sampling::new(2))
            .executions(60)
            .jobs(jobs)
            .progress(false)
            .run(racy_counter)
    };
    let (one, two) = (run(1), run(2));
    assert_eq!(one.executions, two.executions);
    assert_eq!(one.coverage, two.coverage);
    let lost = one
        .coverage
        .points()
        .find(|(p, _)| p.name == "an update was lost")
        .map(|(_, t)| t.hit)
        .unwrap();
    assert!(lost > 0, "{one}");
}

/// `require_coverage` turns a pass that never hit a point into a failure
/// that names it and says what to try.
#[test]
fn require_coverage_fails_a_pass_that_missed_a_point() {
    let missed =
        std::panic::catch_unwind(|| exhaustive(1).require_coverage(true).check(racy_counter))
            .expect_err("the unreachable point is never hit");
    let message = missed.downcast_ref::<String>().cloned().unwrap_or_default();
    assert!(
        message.contains("never hit: reachable \"more updates than tasks\""),
        "{message}"
    );
    assert!(message.contains("SIM_EXECUTIONS"), "{message}");
    // A program whose points can all be hit (in a file of its own) passes
    // the same search; with no delay it misses one of them.
    exhaustive(1)
        .require_coverage(true)
        .check(coverage_support::either_first);
    let shallow = exhaustive(0).run(coverage_support::either_first);
    assert_eq!(shallow.never_hit().len(), 1, "{shallow}");
}

/// The function forms name the caller's place and count like the macros,
/// and the linker's table holds every macro point of this binary.
#[test]
fn function_forms_and_the_registered_points() {
    let report = exhaustive(0).run(|| async {
        sim_rt::sim::reachable("the function form");
        assert!(!sim_rt::sim::sometimes(false, "a false function form"));
    });
    let tallies: Vec<_> = report
        .coverage
        .points()
        .map(|(p, t)| (p.name, p.file, t.reached, t.hit))
        .collect();
    let file = "explorer/tests/explore_coverage.rs";
    assert!(
        tallies.contains(&("the function form", file, 1, 1))
            && tallies.contains(&("a false function form", file, 1, 0)),
        "{tallies:?}"
    );
    // This exploration reached a point of this file, so it answers for the
    // file's registered points too, reached or not.
    assert!(
        names(&report.never_hit()).contains(&"more updates than tasks"),
        "{report}"
    );
    let registered = sim_rt::sim::coverage_points();
    assert!(
        [
            "an update was lost",
            "both updates kept",
            "more updates than tasks"
        ]
        .iter()
        .all(|n| registered.iter().any(|p| p.name == *n && p.file == file)),
        "{registered:?}"
    );
}

/// The abstract-state signal (what a search can count as new ground)
/// tallies each host's reported states, the tuples of every host's latest
/// report, and the coverage points hit; other signals' keys are apart.
#[test]
fn the_states_signal_counts_reported_states_their_tuples_and_points_hit() {
    use std::time::Duration;
    // Host a reports 1 and, 10 ms later, 2; host b reports 7 at 5 ms:
    // host states (a,1), (a,2), (b,7); tuples (1), (1,7), (2,7).
    let two_hosts = || async {
        sim_rt::sim::host("a").start(|| async {
            sim_rt::sim::report_state(&1u32);
            sim_rt::time::sleep(Duration::from_millis(10)).await;
            sim_rt::sim::report_state(&2u32);
        });
        sim_rt::sim::host("b").start(|| async {
            sim_rt::time::sleep(Duration::from_millis(5)).await;
            sim_rt::sim::report_state(&7u32);
        });
        sim_rt::time::sleep(Duration::from_millis(50)).await;
    };
    let walks = |executions| {
        Explorer::new()
            .search(Walk)
            .executions(executions)
            .probe_signal(Signal::States)
            .probe_signal(Signal::Faults)
            .progress(false)
    };
    let report = walks(3).run(two_hosts);
    let states: Vec<u64> = report
        .signal
        .iter()
        .filter(|&(&k, _)| Signal::States.owns(k))
        .map(|(_, &units)| units)
        .collect();
    assert_eq!(states, vec![3; 6], "{:?}", report.signal);
    // No fault, no fault context; nothing but the two signals probed.
    assert!(
        report
            .signal
            .keys()
            .all(|&k| Signal::States.owns(k) && !Signal::Faults.owns(k)),
        "{:?}",
        report.signal
    );

    // A program that reports no state shows the points it hit: over 50
    // walks of the racy counter, both of its `sometimes!` points held.
    let report = walks(50).run(racy_counter);
    let points: u64 = report
        .signal
        .iter()
        .filter(|&(&k, _)| Signal::States.owns(k))
        .map(|(_, &units)| units)
        .sum();
    assert_eq!(report.signal.len(), 2, "{:?}", report.signal);
    assert_eq!(points, 50, "each walk hits one of the two");
}
