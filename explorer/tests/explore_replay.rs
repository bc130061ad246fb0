//! Replay: a failure found by any explorer and search replays from its
//! token, step for step; bad tokens are rejected clearly.

mod common;

use common::lost_update;

use explorer::{
    Exhaustive, Explorer, Pct, Pos, Random, RandomizedRoundRobin, ReplayToken, Report, RoundRobin,
    Rtc, Sampling, Swarm, Walk,
};

fn explorers() -> Vec<(&'static str, Explorer)> {
    let base = || Explorer::new().executions(2_000).progress(false);
    vec![
        (
            "rtc",
            base().explorer(Rtc::default()).search(Sampling::new(3)),
        ),
        (
            "rr",
            base()
                .explorer(RoundRobin::default())
                .search(Exhaustive::new(2)),
        ),
        (
            "prr",
            base()
                .explorer(RandomizedRoundRobin::default())
                .search(Sampling::new(3)),
        ),
        ("random", base().explorer(Random::default()).search(Walk)),
        ("pct", base().explorer(Pct::new(2)).search(Walk)),
        ("pos", base().explorer(Pos::default()).search(Walk)),
        ("pos-swarm", base().explorer(Pos::default()).search(Swarm)),
    ]
}

fn replayed(explorer: Explorer, token: &str) -> Report {
    explorer.replay(token).run(lost_update)
}

/// Every explorer finds the lost update; replaying its token gives the same
/// execution, step for step (the traces are compared, not only the
/// outcome), and the same failure.
#[test]
fn every_explorer_replays_its_failure_step_for_step() {
    for (name, explorer) in explorers() {
        let found = explorer.run(lost_update);
        let f = found
            .failure
            .as_ref()
            .unwrap_or_else(|| panic!("{name}: the lost update is found: {found}"));
        assert_eq!(
            f.failure.message(),
            Some("assertion `left == right` failed: lost update\n  left: 1\n right: 2")
        );
        let token = f.token.to_string();
        assert!(
            f.command
                .starts_with(&format!("SIM_REPLAY={token} cargo test")),
            "{}",
            f.command
        );
        // Through the text, as a user pastes it.
        let (_, again) = explorers().into_iter().find(|(n, _)| *n == name).unwrap();
        let r = replayed(again, &format!("  SIM_REPLAY={token}\n"));
        let g = r.failure.as_ref().expect("the replay fails");
        assert_eq!(g.trace.first_difference(&f.trace), None, "{name}");
        assert_eq!(g.trace.hash(), f.trace.hash());
        assert_eq!(g.failure.to_string(), f.failure.to_string());
        assert_eq!(g.token, f.token);
        assert_eq!(r.executions, 1);
        assert_eq!(
            g.delays, f.delays,
            "{name}: the replay counts the same delays"
        );
    }
}

/// A replay token made by one test's explorer replays in a test configured
/// with another: built-in explorers are named by the token.
#[test]
fn a_token_names_its_built_in_explorer() {
    let found = Explorer::new()
        .explorer(Pct::new(2))
        .search(Walk)
        .executions(2_000)
        .progress(false)
        .run(lost_update);
    let f = found.failure.expect("found");
    let r = Explorer::new()
        .explorer(Rtc::default())
        .replay(f.token.to_string())
        .run(lost_update);
    assert_eq!(r.failure.expect("fails").trace.hash(), f.trace.hash());
}

/// The token of the lost update that round robin finds with one delay.
fn lost_update_token() -> ReplayToken {
    let found = Explorer::new()
        .explorer(RoundRobin::default())
        .search(Exhaustive::new(1))
        .progress(false)
        .run(lost_update);
    found.failure.unwrap().token
}

fn panic_text(f: impl FnOnce() + std::panic::UnwindSafe) -> String {
    let err = std::panic::catch_unwind(f).expect_err("it panics");
    err.downcast_ref::<String>()
        .cloned()
        .or_else(|| err.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap()
}

#[test]
fn corrupted_tokens_are_rejected_with_a_clear_message() {
    let token = lost_update_token().to_string();
    // Change one character in the middle.
    let mut chars: Vec<char> = token.chars().collect();
    let i = chars.len() / 2;
    chars[i] = if chars[i] == 'A' { 'B' } else { 'A' };
    let bad: String = chars.into_iter().collect();
    let msg = panic_text(|| {
        Explorer::new().replay(bad).run(lost_update);
    });
    assert!(msg.contains("corrupted"), "{msg}");
    assert!(msg.contains("copy the whole"), "{msg}");
    let msg = panic_text(|| {
        Explorer::new().replay("hello").run(lost_update);
    });
    assert!(msg.contains("sr1"), "{msg}");
    // Truncated.
    let msg = panic_text(|| {
        Explorer::new()
            .replay(&token[..token.len() - 3])
            .run(lost_update);
    });
    assert!(msg.contains("truncated"), "{msg}");
}

/// A token whose execution no longer happens (the program changed) is
/// reported as a divergence, not as a pass or an unrelated failure.
#[test]
fn a_replay_of_a_changed_program_reports_the_divergence() {
    let token = lost_update_token();
    // The same deviations in a program whose tasks do not race.
    let msg = panic_text(|| {
        Explorer::new()
            .explorer(RoundRobin::default())
            .replay(token.to_string())
            .run(|| async {
                let t = sim_rt::spawn(async {});
                t.await.unwrap();
            });
    });
    assert!(msg.contains("is not the recorded one"), "{msg}");
    assert!(msg.contains("ran to the end without failing"), "{msg}");
    // A hand-made token for a custom explorer nobody configured.
    let custom = ReplayToken {
        explorer: "my-explorer".into(),
        ..token
    };
    let msg = panic_text(|| {
        Explorer::new().replay(custom.to_string()).run(lost_update);
    });
    assert!(
        msg.contains("\"my-explorer\", which is neither a built-in"),
        "{msg}"
    );
}
