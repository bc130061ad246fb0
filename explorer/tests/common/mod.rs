//! Programs shared by the explorer's integration tests.

use std::sync::{Arc, Mutex};

/// Two tasks increment a counter with a yield between read and write: some
/// interleavings lose an update.
pub async fn lost_update() {
    let counter = Arc::new(Mutex::new(0));
    let tasks: Vec<_> = (0..2)
        .map(|_| {
            let c = counter.clone();
            sim_rt::spawn(async move {
                let v = *c.lock().unwrap();
                sim_rt::task::yield_now().await;
                *c.lock().unwrap() = v + 1;
            })
        })
        .collect();
    for t in tasks {
        t.await.unwrap();
    }
    assert_eq!(*counter.lock().unwrap(), 2, "lost update");
}
