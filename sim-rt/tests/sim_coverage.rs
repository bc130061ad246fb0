//! Coverage points in one execution: `Runtime::coverage` counts each
//! point's evaluations and hits and the step of its first hit, and the
//! linker's table lists the macro points whether reached or not. (The
//! macros expand to nothing a crate that denies `unsafe_code` refuses.)

#![deny(unsafe_code)]

use sim_rt::runtime::Builder;
use sim_rt::sim::{Hits, PointKind};

#[allow(dead_code)] // never called: its point is registered all the same
fn unreached() {
    sim_rt::reachable!("not called");
}

#[test]
fn an_execution_counts_its_points() {
    let rt = Builder::new_current_thread()
        .enable_all()
        .seed(3)
        .build()
        .unwrap();
    rt.block_on(async {
        for i in 0..4 {
            let held = sim_rt::sometimes!(i % 2 == 1, "odd");
            assert_eq!(held, i % 2 == 1, "the condition is returned");
            sim_rt::task::yield_now().await;
        }
        sim_rt::reachable!("after the loop");
    });
    let seen: Vec<(&str, PointKind, Hits)> = rt
        .coverage()
        .into_iter()
        .map(|(p, h)| (p.name, p.kind, h))
        .collect();
    assert_eq!(seen.len(), 2, "{seen:?}");
    let (name, kind, odd) = seen[0];
    assert_eq!((name, kind), ("odd", PointKind::Sometimes));
    assert_eq!((odd.reached, odd.hit), (4, 2));
    let first = odd.first_hit_step.expect("hit");
    assert!(first > 0, "the second pass, after a yield: {first}");
    let (name, kind, end) = seen[1];
    assert_eq!((name, kind), ("after the loop", PointKind::Reachable));
    assert_eq!((end.reached, end.hit), (1, 1));
    assert!(end.first_hit_step.unwrap() > first);

    let registered: Vec<&str> = sim_rt::sim::coverage_points()
        .iter()
        .filter(|p| p.file == "sim-rt/tests/sim_coverage.rs")
        .map(|p| p.name)
        .collect();
    assert_eq!(registered, vec!["not called", "odd", "after the loop"]);
}
