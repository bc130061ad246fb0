//! What a nested `cargo test` printed: each test's outcome (libtest's
//! `test <name> ... ok` lines), which tests ran inside a simulation (sim-rt
//! announces each simulation's seed under the test's name before it runs,
//! shown with `--nocapture`), and a failure's reproduce line.

use std::collections::{BTreeMap, BTreeSet};

/// How one test ended, as libtest says.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Outcome {
    /// `ok`
    Pass,
    /// `FAILED`
    Fail,
    /// `ignored`
    Ignored,
}

/// Every test's outcome, by name (`name` or `module::name`), from the
/// output of all the test binaries one `cargo test` ran. With several
/// binaries a name may repeat; the worse outcome is kept.
pub fn outcomes(stdout: &str) -> BTreeMap<String, Outcome> {
    let mut all = BTreeMap::new();
    for line in stdout.lines() {
        let Some(rest) = line.strip_prefix("test ") else {
            continue;
        };
        let Some((name, result)) = rest.split_once(" ... ") else {
            continue;
        };
        let outcome = match result.trim() {
            "ok" => Outcome::Pass,
            "FAILED" => Outcome::Fail,
            r if r.starts_with("ignored") => Outcome::Ignored,
            _ => continue,
        };
        // `should_panic` tests read `name - should panic ... ok`.
        let name = name.trim_end_matches(" - should panic").to_owned();
        let e = all.entry(name).or_insert(outcome);
        if outcome == Outcome::Fail {
            *e = Outcome::Fail;
        }
    }
    all
}

/// The tests that announced a simulation: sim-rt's `sim_rt: <test>: seed
/// <seed>; this run again: ...` lines.
pub fn announced(stderr: &str) -> BTreeSet<String> {
    stderr
        .lines()
        .filter_map(|l| l.strip_prefix("sim_rt: "))
        .filter_map(|l| l.split_once(": seed ").map(|(name, _)| name.to_owned()))
        .collect()
}

/// The command after `reproduce: ` in a failure report.
pub fn reproduce_line(output: &str) -> Option<String> {
    output
        .lines()
        .find_map(|l| l.trim().strip_prefix("reproduce: "))
        .map(str::to_owned)
}

/// The report's line that names the failing step (`... (step N) ...`).
pub fn failing_step(output: &str) -> Option<String> {
    output
        .lines()
        .find(|l| l.contains("(step "))
        .map(|l| l.trim().to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outcomes_are_read_from_libtests_lines() {
        let out = "\
running 4 tests
test a ... ok
test m::b ... FAILED
test c ... ignored, slow
test d - should panic ... ok
test result: FAILED. 2 passed; 1 failed; 1 ignored
running 1 test
test a ... FAILED
";
        let got = outcomes(out);
        let want: BTreeMap<String, Outcome> = [
            ("a", Outcome::Fail),
            ("c", Outcome::Ignored),
            ("d", Outcome::Pass),
            ("m::b", Outcome::Fail),
        ]
        .into_iter()
        .map(|(n, o)| (n.to_owned(), o))
        .collect();
        assert_eq!(got, want);
    }

    #[test]
    fn announcements_and_reproduce_lines_are_found() {
        let err = "\
   Compiling x v0.1.0
sim_rt: m::case_a: seed 12; this run again: SIM_SEED=12 cargo test m::case_a -- --exact
sim_rt: plain: seed 0x2a; this run again: SIM_SEED=42 cargo test plain -- --exact
explorer: at 3ms (step 8) on host queue: the test panicked
  reproduce: SIM_REPLAY=sr1abc cargo test -p p --test explore t -- --exact
";
        assert_eq!(
            announced(err),
            BTreeSet::from(["m::case_a".to_owned(), "plain".to_owned()])
        );
        assert_eq!(
            reproduce_line(err).unwrap(),
            "SIM_REPLAY=sr1abc cargo test -p p --test explore t -- --exact"
        );
        assert_eq!(
            failing_step(err).unwrap(),
            "explorer: at 3ms (step 8) on host queue: the test panicked"
        );
        assert_eq!(reproduce_line("nothing"), None);
    }
}
