//! Resetting a host whose tasks hold each other's `JoinHandle`s.

use std::time::Duration;

use sim_rt::runtime::Builder;
use sim_rt::sim;

/// A host task holding the `JoinHandle` of another task of the same host:
/// the reset drops both, and dropping the first releases the second's
/// handle while the second is itself being dropped. (Found with
/// `sim_rt::fs`, whose blocking jobs are such tasks.)
#[test]
fn a_reset_drops_tasks_that_hold_each_others_handles() {
    for seed in 0..4 {
        Builder::new_current_thread()
            .enable_all()
            .seed(seed)
            .build()
            .unwrap()
            .block_on(async {
                sim::host("h").start(|| async {
                    let child = sim_rt::spawn(async {
                        sim_rt::time::sleep(Duration::from_secs(10)).await;
                    });
                    let _ = child.await;
                });
                sim_rt::time::sleep(Duration::from_millis(1)).await;
                sim::reset("h");
                sim_rt::time::sleep(Duration::from_millis(1)).await;
                assert!(sim::is_running("h"));
            });
    }
}
