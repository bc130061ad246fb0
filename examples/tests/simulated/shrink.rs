//! Shrinking the planted bugs' failures: smaller or equal, the same
//! assertion, and the same result when a token is shrunk again.

use explorer::{Explorer, Random, Walk};

use crate::sim;

/// Explores `case` with `explorer`, then shrinks the failure's original
/// token again and checks the two shrinks agree.
fn check(
    case: &sim::Case,
    explorer: Explorer,
) -> (explorer::ExecutionSize, explorer::ExecutionSize) {
    let test = case.test;
    let report = explorer.progress(false).run(move || test(true));
    let found = report
        .failure
        .unwrap_or_else(|| panic!("{}: the planted bug is found", case.name));
    let shrunk = found.shrunk.as_ref().expect("searches shrink by default");
    assert!(shrunk.after <= shrunk.before, "{}: {shrunk:?}", case.name);

    // The original execution fails at the same place as the shrunk one.
    let original = (case.explorer)()
        .progress(false)
        .replay(shrunk.original.to_string())
        .run(move || test(true));
    let original = original.failure.expect("the original fails");
    assert_eq!(original.location, found.location, "{}", case.name);
    assert_eq!(original.failure.kind(), found.failure.kind());
    assert_eq!(original.failure.property(), found.failure.property());

    // Deterministic: shrinking the original's token gives the same.
    let again = (case.explorer)()
        .progress(false)
        .shrink(explorer::DEFAULT_SHRINK_EXECUTIONS)
        .replay(shrunk.original.to_string())
        .run(move || test(true));
    let again = again.failure.expect("the replay fails");
    assert_eq!(again.token, found.token, "{}: the same shrink", case.name);
    (shrunk.before, shrunk.after)
}

#[test]
fn each_planted_bug_shrinks_to_the_same_failure() {
    for case in sim::cases() {
        let explorer = (case.explorer)();
        check(&case, explorer);
    }
}

#[test]
fn a_walks_data_choices_shrink_away() {
    // Random walks make many non-default data choices (select! branches);
    // none of them is needed for these bugs.
    for name in ["kv", "election"] {
        let case = sim::case(name).unwrap();
        let explorer = (case.explorer)()
            .explorer(Random::default())
            .search(Walk)
            .executions(500);
        let (before, after) = check(&case, explorer);
        assert!(
            before.data > 0 && after.data == 0,
            "{name}: {before} -> {after}"
        );
        // Steps come last in the order: an execution without a walk's late
        // deliveries may take a few more steps in the same simulated time.
        assert!(after.faults <= before.faults, "{name}: {before} -> {after}");
    }
}
