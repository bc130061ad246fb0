use crate::planted_liveness_bug_found;
use crate::sim::lock;

#[test]
fn a_crashed_holder_is_a_liveness_violation_at_its_crash() {
    let (report, critical) =
        planted_liveness_bug_found(lock::explorer(), lock::test, lock::PROPERTY);
    // The module's critical transition: the fault injector resets a client
    // (c1 or c2; the server is "locks") while it holds the lock.
    assert!(
        ["reset c1 (fault injector)", "reset c2 (fault injector)"].contains(&&*critical.event),
        "{report}"
    );
}

#[test]
fn with_leases_every_client_finishes() {
    let report = lock::explorer().executions(300).run(|| lock::test(false));
    assert!(!report.failed(), "{report}");
}
