use crate::sim::wal;

#[test]
fn the_planted_bug_loses_an_acknowledged_write_and_is_found() {
    let report = wal::explorer().run(|| wal::test(true));
    let found = report.failure.expect("the planted bug is found");
    assert!(
        found.failure.to_string().contains("durability"),
        "{}",
        found.failure
    );
}

#[test]
fn without_the_bug_every_explored_crash_keeps_the_acknowledged_writes() {
    wal::explorer().executions(300).check(|| wal::test(false));
}
