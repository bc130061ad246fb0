//! A program whose every coverage point some execution within one delay
//! hits; in a file of its own, since an exploration answers for the
//! registered points of each file it reached a point in.

use std::sync::{Arc, Mutex};

/// Main yields once while a task increments a counter: with no delay the
/// task runs first, with one delay main does.
pub async fn either_first() {
    let counter = Arc::new(Mutex::new(0));
    let c = counter.clone();
    let t = sim_rt::spawn(async move {
        *c.lock().unwrap() += 1;
    });
    sim_rt::task::yield_now().await;
    let seen = *counter.lock().unwrap();
    sim_rt::sometimes!(seen == 0, "main ran first");
    sim_rt::sometimes!(seen == 1, "the task ran first");
    t.await.unwrap();
}
