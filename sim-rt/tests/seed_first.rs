//! The seed first: a `#[sim_rt::test]` prints the line that reproduces its
//! run before it runs, so a run killed by a harness's deadline has already
//! left it.

use std::io::BufRead;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Run in a child process by the test below: with `SEED_FIRST_CHECK` set,
/// prints its seed and returns; without, never returns (a poll that never
/// yields, as a hung run would).
#[sim_rt::test]
#[ignore = "run in a child process by a_killed_test_already_printed_its_seed"]
async fn child_never_ends() {
    if std::env::var_os("SEED_FIRST_CHECK").is_some() {
        println!("SEED {}", sim_rt::sim::seed());
        return;
    }
    loop {
        std::hint::spin_loop();
    }
}

fn child(env: &[(&str, &str)]) -> Command {
    let mut cmd = Command::new(std::env::current_exe().unwrap());
    cmd.args(["child_never_ends", "--exact", "--ignored", "--nocapture"])
        .env_remove("SIM_SEED")
        .env_remove("SIM_CHECK_DETERMINISM")
        .envs(env.iter().copied());
    cmd
}

#[test]
fn a_killed_test_already_printed_its_seed() {
    let mut running = child(&[])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stderr = running.stderr.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(stderr)
            .lines()
            .map_while(Result::ok)
        {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut seen = String::new();
    let line = loop {
        match rx.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
            Ok(l) if l.contains("this run again: ") => break l,
            Ok(l) => seen.push_str(&(l + "\n")),
            Err(_) => break String::new(),
        }
    };
    running.kill().unwrap();
    running.wait().unwrap();
    let (_, again) = line
        .split_once("this run again: ")
        .unwrap_or_else(|| panic!("no seed line before the deadline:\n{seen}"));
    assert!(
        again.contains("cargo test -p sim-rt --test seed_first child_never_ends"),
        "{again}"
    );
    let seed = again
        .strip_prefix("SIM_SEED=")
        .and_then(|rest| rest.split_whitespace().next())
        .unwrap_or_else(|| panic!("the line starts with the seed: {again}"));
    // The printed seed is the run's: run again with it, the run says so.
    let out = child(&[("SIM_SEED", seed), ("SEED_FIRST_CHECK", "1")])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    assert!(text.contains(&format!("SEED {seed}")), "{text}");
}
