//! A failure report tells, in words, what the defaults would not have
//! done: the delays at picks and the faults.

use explorer::{Explorer, Rtc, Sampling};

mod common;

#[test]
fn a_delay_is_told_as_what_it_put_off() {
    let report = Explorer::new()
        .progress(false)
        .explorer(Rtc::default())
        .search(Sampling::new(2))
        .executions(200)
        .run(common::lost_update);
    let found = report.failure.expect("the lost update is found");
    assert!(found.delays > 0);
    assert!(
        found
            .story
            .iter()
            .any(|l| l.contains("task ") && l.contains(" on main delayed past task ")),
        "{:?}",
        found.story
    );
}

#[test]
fn an_injected_partition_and_the_timeout_it_caused_are_told() {
    let report = common::partition_explorer().run(common::hello);
    let found = report.failure.expect("a partition before the hello");
    let story = found.story.join("\n");
    assert!(
        story.contains("partition a | b (fault injector)"),
        "{story}"
    );
    assert!(
        story.contains("fired before the packet a -> b (datagram, 7 bytes, \"hello b\")"),
        "{story}"
    );
}

#[test]
fn shrinking_can_be_turned_off() {
    let explorer = || {
        Explorer::new()
            .progress(false)
            .explorer(Rtc::default())
            .search(Sampling::new(2))
            .executions(200)
    };
    let off = explorer().shrink(0).run(common::lost_update);
    let off = off.failure.expect("found");
    assert!(off.shrunk.is_none());
    let on = explorer().run(common::lost_update);
    let on = on.failure.expect("found");
    let shrunk = on.shrunk.expect("on by default");
    // The search found what it found; the report is the shrunk one.
    assert_eq!(shrunk.original, off.token);
    assert!(shrunk.after <= shrunk.before);
}

#[test]
fn a_buggify_point_is_a_fault_a_search_can_spend() {
    // The retry path is wrong, and only a buggify point takes it.
    let program = || async {
        let mut sent = 0;
        for _ in 0..20 {
            sent += 1;
            if sim_rt::sim::buggify() {
                sent += 1; // the bug: a retry counted as a second message
            }
            sim_rt::task::yield_now().await;
        }
        assert_eq!(sent, 20, "every message counted once");
    };
    let report = Explorer::new()
        .progress(false)
        .explorer(Rtc::default())
        .search(Sampling::new(1))
        .executions(100)
        .run(program);
    let found = report.failure.expect("one fired buggify point fails it");
    assert!(
        found
            .story
            .iter()
            .any(|l| l.contains("a sim::buggify point fired")),
        "{:?}",
        found.story
    );
    let shrunk = found.shrunk.expect("shrunk");
    assert_eq!(shrunk.after.faults, 1, "one buggify point is a fault");
}
