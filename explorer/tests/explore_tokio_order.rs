//! A test that passes on tokio's current-thread runtime only by its order:
//! it spawns a task, yields, and checks what the task did. A plain
//! simulated run keeps tokio's order and passes on every seed; an
//! exploration finds the other order, and its report says that tokio's
//! current-thread scheduler would not pick it.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use explorer::{Explorer, Walk};

async fn spawn_yield_check() {
    let ran = Arc::new(AtomicBool::new(false));
    let r = ran.clone();
    sim_rt::spawn(async move { r.store(true, Ordering::SeqCst) });
    sim_rt::task::yield_now().await;
    assert!(ran.load(Ordering::SeqCst), "the spawned task has not run");
}

#[test]
fn a_plain_run_keeps_tokios_order_on_every_seed() {
    for seed in 0..20 {
        sim_rt::runtime::Builder::new_current_thread()
            .enable_all()
            .seed(seed)
            .build()
            .unwrap()
            .block_on(spawn_yield_check());
    }
}

#[test]
fn an_exploration_finds_the_other_order_and_says_tokio_would_not_pick_it() {
    let report = Explorer::new()
        .progress(false)
        .search(Walk)
        .executions(200)
        .run(spawn_yield_check);
    let found = report
        .failure
        .as_ref()
        .unwrap_or_else(|| panic!("a walk runs the yielding future first: {report}"));
    assert!(found.failure.unlike_tokio().is_some(), "{report}");
    let text = report.to_string();
    assert!(
        text.contains("out of tokio's current-thread order"),
        "{text}"
    );
}
