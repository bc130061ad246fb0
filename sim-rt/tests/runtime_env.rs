//! `SIM_SEED` and `SIM_CHECK_DETERMINISM`. Environment variables are
//! process-global, so everything here runs in one test, in sequence.

mod rt_support;

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicU64, Ordering};

use rt_support::{assert_contains_all, panic_text};
use sim_rt::runtime::{__private::run, Builder};

fn message(err: Box<dyn std::any::Any + Send>) -> String {
    panic_text(&*err).unwrap_or_default()
}

/// A program that takes a different path on its second run: state kept in a
/// static between runs, the kind of leak the determinism check exists for.
static RUNS: AtomicU64 = AtomicU64::new(0);

async fn leaky() -> u64 {
    let run = RUNS.fetch_add(1, Ordering::SeqCst);
    let a = sim_rt::spawn(async {});
    let b = sim_rt::spawn(async {});
    if run % 2 == 1 {
        sim_rt::spawn(async {}); // only on odd runs
    }
    a.await.unwrap();
    b.await.unwrap();
    run
}

async fn honest() -> u64 {
    let a = sim_rt::spawn(async { 1 });
    let b = sim_rt::spawn(async { 2 });
    a.await.unwrap() + b.await.unwrap()
}

#[test]
fn environment_overrides() {
    // SIM_SEED overrides the builder's seed, in decimal or hex.
    std::env::set_var("SIM_SEED", "1234");
    let rt = Builder::new_current_thread()
        .enable_all()
        .seed(1)
        .build()
        .unwrap();
    assert_eq!(rt.seed(), 1234);
    std::env::set_var("SIM_SEED", "0x10");
    assert_eq!(
        Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap()
            .seed(),
        16
    );

    // A malformed SIM_SEED is a clear error.
    std::env::set_var("SIM_SEED", "12abc");
    let err = catch_unwind(|| Builder::new_current_thread().enable_all().build()).unwrap_err();
    let msg = message(err);
    assert!(
        msg.starts_with(
            "SIM_SEED=\"12abc\" is not a valid seed: expected an unsigned 64-bit integer"
        ),
        "{msg}"
    );
    std::env::set_var("SIM_SEED", "-1");
    assert!(catch_unwind(|| Builder::new_current_thread().enable_all().build()).is_err());
    std::env::remove_var("SIM_SEED");
    assert_eq!(
        Builder::new_current_thread()
            .enable_all()
            .seed(5)
            .build()
            .unwrap()
            .seed(),
        5
    );

    // SIM_CHECK_DETERMINISM=1 passes a deterministic program...
    std::env::set_var("SIM_CHECK_DETERMINISM", "1");
    assert_eq!(run(Builder::new_current_thread(), honest), 3);

    // ...and catches one that is not, naming the step where the runs diverged.
    let err = catch_unwind(AssertUnwindSafe(|| {
        run(Builder::new_current_thread(), leaky)
    }))
    .unwrap_err();
    let msg = message(err);
    assert!(
        msg.starts_with("SIM_CHECK_DETERMINISM: two runs with seed 0 diverged at step "),
        "{msg}"
    );
    assert_contains_all(&msg, &["first run:", "second run:", "reading real time"]);
    assert_eq!(
        RUNS.load(Ordering::SeqCst),
        2,
        "the check ran the program twice"
    );

    // Runtime::block_on cannot re-run its future: it runs once (and says on
    // stderr that the check does not apply).
    let rt = Builder::new_current_thread().enable_all().build().unwrap();
    let before = RUNS.load(Ordering::SeqCst);
    rt.block_on(leaky());
    assert_eq!(RUNS.load(Ordering::SeqCst), before + 1, "run once");

    // A value it does not understand is a clear error too.
    std::env::set_var("SIM_CHECK_DETERMINISM", "yes please");
    let msg = message(catch_unwind(|| run(Builder::new_current_thread(), honest)).unwrap_err());
    assert!(
        msg.starts_with("SIM_CHECK_DETERMINISM=\"yes please\" is not understood"),
        "{msg}"
    );

    // Off: one run.
    std::env::remove_var("SIM_CHECK_DETERMINISM");
    RUNS.store(0, Ordering::SeqCst);
    run(Builder::new_current_thread(), leaky);
    assert_eq!(RUNS.load(Ordering::SeqCst), 1);
}
