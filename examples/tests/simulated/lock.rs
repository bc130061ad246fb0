use crate::sim::lock;

#[test]
fn a_crashed_holder_is_a_liveness_violation_at_its_crash() {
    let report = lock::explorer().run(|| lock::test(true));
    let found = report.failure.as_ref().expect("the planted bug is found");
    let finding = found.liveness.as_ref().expect("a liveness violation");
    assert_eq!(finding.property, lock::PROPERTY);
    let critical = finding.critical.as_ref().expect("searched by default");
    assert!(critical.step.is_some(), "{report}");
    // The module's critical transition: the fault injector resets a client
    // (hosts 2 and 3; the server is host 1) while it holds the lock.
    assert!(
        critical.event.contains("fault injector")
            && (critical.event.contains("host 2 stopped")
                || critical.event.contains("host 3 stopped")),
        "{report}"
    );
}

#[test]
fn with_leases_every_client_finishes() {
    let report = lock::explorer().executions(300).run(|| lock::test(false));
    assert!(!report.failed(), "{report}");
}
