#[cfg(sim)]
extern crate sim_rt as tokio;

use oneline::Bank;

/// Two concurrent transfers among three accounts; money is conserved.
async fn scenario(atomic: bool) {
    let bank = Bank::new(&[("a", 100), ("b", 100), ("c", 100)]);
    let (one, two) = (bank.clone(), bank.clone());
    let t1 = tokio::spawn(async move { one.transfer("a", "b", 10, atomic).await });
    let t2 = tokio::spawn(async move { two.transfer("b", "c", 20, atomic).await });
    t1.await.unwrap();
    t2.await.unwrap();
    assert_eq!(bank.total().await, 300, "money is not conserved");
}

#[tokio::test]
async fn transfers_conserve_money() {
    scenario(true).await;
}

#[cfg(sim)]
fn explorer() -> explorer::Explorer {
    explorer::Explorer::new()
        .explorer(explorer::RoundRobin::default())
        .executions(200)
}

#[cfg(sim)]
#[test]
fn the_explorer_finds_the_lost_update() {
    let report = explorer().run(|| scenario(false));
    assert!(report.failed(), "{report}");
}

/// Fails on purpose, printing its reproduce line (see the feature's note).
#[cfg(all(sim, feature = "planted-failure"))]
#[test]
fn planted_failure() {
    explorer().check(|| scenario(false));
}

/// Fails on purpose when `ONELINE_PLANTED` is set: a test that the binary
/// run directly (not by cargo) can fail with, and whose reproduce line,
/// pasted with the same environment, selects the same build.
#[cfg(sim)]
#[test]
fn planted_failure_when_asked() {
    if std::env::var_os("ONELINE_PLANTED").is_some() {
        explorer().check(|| scenario(false));
    }
}
