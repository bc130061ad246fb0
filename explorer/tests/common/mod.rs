//! Programs shared by the explorer's integration tests.

// Each test crate that mounts this module uses only some of it.
#![allow(dead_code)]

use std::process::Command;
use std::sync::{Arc, Mutex};

/// The replay token of the `reproduce: SIM_REPLAY=<token> ...` line a
/// failure report printed into `out`, if any.
pub fn replay_token(out: &str) -> Option<String> {
    out.lines()
        .find_map(|l| l.trim().strip_prefix("reproduce: SIM_REPLAY="))
        .and_then(|rest| rest.split_whitespace().next())
        .map(str::to_string)
}

/// Two tasks increment a counter with a yield between read and write: some
/// interleavings lose an update.
pub async fn lost_update() {
    assert_eq!(racy_count().await, 2, "lost update");
}

/// Two tasks each increment a counter, yielding between the read and the
/// write; returns the count (1 when an update was lost).
pub async fn racy_count() -> u32 {
    racy_count_labelled(None).await
}

/// [`racy_count`], each task annotated with `label` first when given.
pub async fn racy_count_labelled(label: Option<&'static str>) -> u32 {
    let counter = Arc::new(Mutex::new(0));
    let tasks: Vec<_> = (0..2)
        .map(|_| {
            let c = counter.clone();
            sim_rt::spawn(async move {
                if let Some(label) = label {
                    sim_rt::sim::annotate(label);
                }
                let v = *c.lock().unwrap();
                sim_rt::task::yield_now().await;
                *c.lock().unwrap() = v + 1;
            })
        })
        .collect();
    for t in tasks {
        t.await.unwrap();
    }
    let total = *counter.lock().unwrap();
    total
}

/// "b" must hear "hello b" from "a" within 50 ms, or it gives up; main
/// greets "a" (a message that arrives). A partition of a | b before the
/// hello fails it.
pub async fn hello() {
    use std::time::Duration;
    sim_rt::sim::host("a").start(|| async {
        let sock = sim_rt::net::UdpSocket::bind("0.0.0.0:9").await?;
        sim_rt::time::sleep(Duration::from_millis(20)).await;
        sock.send_to(b"hello b", "b:9").await?;
        tracing::info!("a said hello");
        std::future::pending::<std::io::Result<()>>().await
    });
    start_b_waiting_for_a(Duration::from_millis(50));
    let sock = sim_rt::net::UdpSocket::bind("0.0.0.0:0").await.unwrap();
    sock.send_to(b"hi", "a:9").await.unwrap();
    sim_rt::time::sleep(Duration::from_millis(100)).await;
}

/// Starts host "b", which must hear from "a" on UDP port 9 within `wait`
/// or it fails.
pub fn start_b_waiting_for_a(wait: std::time::Duration) {
    sim_rt::sim::host("b").start(move || async move {
        let sock = sim_rt::net::UdpSocket::bind("0.0.0.0:9").await?;
        let mut buf = [0u8; 16];
        let heard = sim_rt::time::timeout(wait, sock.recv_from(&mut buf));
        assert!(heard.await.is_ok(), "b never heard from a");
        Ok::<(), std::io::Error>(())
    });
}

/// Round-robin sampling with one delay, a fault injector that may make one
/// partition: finds [`hello`]'s failure. Work takes no simulated time
/// (`poll_cost(ZERO)`), so that the stories' times are the sleeps' own.
pub fn partition_explorer() -> explorer::Explorer {
    explorer::Explorer::new()
        .progress(false)
        .runtime(|b| {
            b.poll_cost(std::time::Duration::ZERO);
            b.fault_injector(
                sim_rt::sim::FaultInjector::new()
                    .max_resets(0)
                    .max_partitions(1),
            );
        })
        .explorer(explorer::RoundRobin::default())
        .search(explorer::Sampling::new(1))
        .executions(200)
}

/// A command that runs the ignored test `name` of this test binary alone,
/// with `vars` and no other `SIM_*` variable of this process.
pub fn child_command(name: &str, vars: &[(&str, &str)]) -> Command {
    let mut cmd = Command::new(std::env::current_exe().unwrap());
    cmd.args([
        "--ignored",
        "--exact",
        name,
        "--nocapture",
        "--test-threads=1",
    ]);
    for (k, _) in std::env::vars() {
        if k.starts_with("SIM_") {
            cmd.env_remove(k);
        }
    }
    cmd.envs(vars.iter().copied());
    cmd
}

/// Runs [`child_command`]; returns whether it passed and everything it
/// printed.
pub fn run_child(name: &str, vars: &[(&str, &str)]) -> (bool, String) {
    run_child_env(name, vars, &[])
}

/// `run_child` with `other` (variables the child test reads itself) set
/// too.
pub fn run_child_env(name: &str, vars: &[(&str, &str)], other: &[(&str, &str)]) -> (bool, String) {
    let out = child_command(name, vars)
        .envs(other.iter().copied())
        .output()
        .unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.success(), text)
}

/// Checks that a line of a failure's story is one that `told` holds for;
/// otherwise fails with `context` and the story.
#[track_caller]
pub fn assert_story_tells(story: &[String], context: &str, told: impl Fn(&str) -> bool) {
    assert!(story.iter().any(|l| told(l)), "{context}: {story:?}");
}

/// A quiet explorer (no progress line) that runs `executions` stratified
/// samples of `explorer` with at most `delays` delays each, its work taking
/// no simulated time.
pub fn sampling<E>(explorer: E, delays: u32, executions: u64) -> explorer::Explorer
where
    E: explorer::DelayingExplorer + Clone + Sync + 'static,
{
    explorer::Explorer::new()
        .progress(false)
        // Work takes no simulated time: the tests count executions and
        // samples, which the run's shape decides.
        .runtime(|b| {
            b.poll_cost(std::time::Duration::ZERO);
        })
        .explorer(explorer)
        .search(explorer::Sampling::new(delays))
        .executions(executions)
}
