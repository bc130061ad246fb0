//! `sim_rt::sync::Notify`: tokio's permit semantics, FIFO order, and
//! cancel safety. Each `both!` test runs against sim-rt's and tokio's
//! `Notify` (hand polling, no runtime), so the outcomes asserted are
//! tokio's.

#[macro_use]
mod sync_support;

use std::pin::pin;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use sync_support::{ready, Log, Task};

both! {
    /// A `notify_one` with nobody waiting is stored, once.
    fn permit_is_stored_once(s) {
        let n = s::Notify::new();
        n.notify_one();
        n.notify_one();
        let t = Task::new();
        assert!(t.poll(pin!(n.notified())).is_ready());
        assert!(t.poll(pin!(n.notified())).is_pending());
    }
}

both! {
    /// `notify_one` wakes the oldest waiter, `notify_last` the newest.
    fn one_is_fifo_last_is_lifo(s) {
        let n = s::Notify::new();
        let tasks: Vec<Task> = (0..4).map(|_| Task::new()).collect();
        let mut futs: Vec<_> = (0..4).map(|_| Box::pin(n.notified())).collect();
        for (t, f) in tasks.iter().zip(futs.iter_mut()) {
            assert!(t.poll(f.as_mut()).is_pending());
        }
        n.notify_one();
        assert_eq!(tasks.iter().map(Task::wakes).collect::<Vec<_>>(), [1, 0, 0, 0]);
        n.notify_last();
        assert_eq!(tasks.iter().map(Task::wakes).collect::<Vec<_>>(), [1, 0, 0, 1]);
        assert!(tasks[0].poll(futs[0].as_mut()).is_ready());
        assert!(tasks[1].poll(futs[1].as_mut()).is_pending());
        assert!(tasks[3].poll(futs[3].as_mut()).is_ready());
        n.notify_one();
        assert_eq!(tasks.iter().map(Task::wakes).collect::<Vec<_>>(), [1, 1, 0, 1]);
        // No permit was stored while waiters existed.
        assert!(tasks[2].poll(futs[2].as_mut()).is_pending());
    }
}

both! {
    /// `notify_waiters` completes every future created before it (polled
    /// or not), wakes the polled ones, and stores no permit.
    fn notify_waiters_wakes_all_and_stores_nothing(s) {
        let n = s::Notify::new();
        let (t1, t2) = (Task::new(), Task::new());
        let mut polled = pin!(n.notified());
        let mut unpolled = pin!(n.notified());
        assert!(t1.poll(polled.as_mut()).is_pending());
        n.notify_waiters();
        assert_eq!(t1.wakes(), 1);
        assert!(t1.poll(polled.as_mut()).is_ready());
        assert!(t2.poll(unpolled.as_mut()).is_ready());
        // Created after the call: waits.
        assert!(t2.poll(pin!(n.notified())).is_pending());
    }
}

both! {
    /// A future that `notify_one` picked, dropped before it completed,
    /// passes the notification on to the next waiter.
    fn dropped_notified_forwards_notify_one(s) {
        let n = s::Notify::new();
        let (ta, tb) = (Task::new(), Task::new());
        let mut a = Box::pin(n.notified());
        let mut b = Box::pin(n.notified());
        assert!(ta.poll(a.as_mut()).is_pending());
        assert!(tb.poll(b.as_mut()).is_pending());
        n.notify_one();
        assert_eq!((ta.wakes(), tb.wakes()), (1, 0));
        drop(a);
        assert_eq!(tb.wakes(), 1);
        assert!(tb.poll(b.as_mut()).is_ready());
    }
}

both! {
    /// ... and with nobody left to take it, it becomes the stored permit.
    fn dropped_notified_forwards_to_the_permit(s) {
        let n = s::Notify::new();
        let t = Task::new();
        let mut a = Box::pin(n.notified());
        assert!(t.poll(a.as_mut()).is_pending());
        n.notify_one();
        drop(a);
        assert!(t.poll(pin!(n.notified())).is_ready());
    }
}

both! {
    /// A `notify_waiters` notification is not passed on.
    fn dropped_notified_does_not_forward_notify_waiters(s) {
        let n = s::Notify::new();
        let (ta, tb) = (Task::new(), Task::new());
        let mut a = Box::pin(n.notified());
        assert!(ta.poll(a.as_mut()).is_pending());
        n.notify_waiters();
        drop(a);
        let mut b = pin!(n.notified());
        assert!(tb.poll(b.as_mut()).is_pending());
        assert_eq!(tb.wakes(), 0);
    }
}

both! {
    /// A future dropped while waiting (not notified) leaves the queue: the
    /// next `notify_one` goes to the one behind it.
    fn dropped_waiter_leaves_the_queue(s) {
        let n = s::Notify::new();
        let (ta, tb) = (Task::new(), Task::new());
        let mut a = Box::pin(n.notified());
        let mut b = Box::pin(n.notified());
        assert!(ta.poll(a.as_mut()).is_pending());
        assert!(tb.poll(b.as_mut()).is_pending());
        drop(a);
        n.notify_one();
        assert_eq!(tb.wakes(), 1);
        assert!(tb.poll(b.as_mut()).is_ready());
    }
}

both! {
    /// `enable` joins the queue (so `notify_one` picks it) and reports a
    /// stored permit.
    fn enable_queues_and_takes_the_permit(s) {
        let n = s::Notify::new();
        let mut a = pin!(n.notified());
        assert!(!a.as_mut().enable());
        n.notify_one();
        let t = Task::new();
        assert!(t.poll(a.as_mut()).is_ready());

        n.notify_one();
        let mut b = pin!(n.notified());
        assert!(b.as_mut().enable());
        // The permit was consumed by `enable`.
        assert!(t.poll(pin!(n.notified())).is_pending());
    }
}

both! {
    /// The owned future behaves like the borrowed one.
    fn notified_owned(s) {
        let n = Arc::new(s::Notify::new());
        let t = Task::new();
        let mut f = Box::pin(n.clone().notified_owned());
        assert!(t.poll(f.as_mut()).is_pending());
        n.notify_one();
        assert_eq!(t.wakes(), 1);
        assert!(t.poll(f.as_mut()).is_ready());
        // Fused.
        assert!(t.poll(f.as_mut()).is_ready());
        ready(t.poll(f.as_mut()));
    }
}

both! {
    /// `notify_waiters` wakes the waiters in the order they started waiting
    /// (here a scrambled one), not in creation or address order.
    fn notify_waiters_wakes_in_wait_order(s) {
        let n = s::Notify::new();
        let log = Log::default();
        let tasks: Vec<Task> = (0..16).map(|i| Task::logged(i, &log)).collect();
        let mut futs: Vec<_> = (0..16).map(|_| Box::pin(n.notified())).collect();
        let start: Vec<usize> = (0..16).map(|i| (i * 7) % 16).collect();
        for &i in &start {
            assert!(tasks[i].poll(futs[i].as_mut()).is_pending());
        }
        n.notify_waiters();
        assert_eq!(*log.lock().unwrap(), start);
    }
}

/// One simulation where tasks wait on a `Notify` and are released one by
/// one; returns the order they ran in.
fn release_order(seed: u64) -> Vec<u64> {
    let rt = sim_rt::runtime::Builder::new_current_thread()
        .enable_all()
        .seed(seed)
        .build()
        .unwrap();
    let order = Arc::new(Mutex::new(Vec::new()));
    let o = order.clone();
    rt.block_on(async move {
        let n = Arc::new(sim_rt::sync::Notify::new());
        let mut hs = Vec::new();
        for i in 0..8 {
            let n = n.clone();
            let o = o.clone();
            hs.push(sim_rt::spawn(async move {
                sim_rt::time::sleep(Duration::from_millis(i)).await;
                n.notified().await;
                o.lock().unwrap().push(i);
            }));
        }
        sim_rt::time::sleep(Duration::from_millis(100)).await;
        for _ in 0..8 {
            n.notify_one();
            // Time moves only once no task can run: the woken one ran.
            sim_rt::time::sleep(Duration::from_millis(1)).await;
        }
        for h in hs {
            h.await.unwrap();
        }
    });
    let order = order.lock().unwrap().clone();
    order
}

/// `notify_one` releases the waiters in the order they started waiting
/// (each runs before the next is notified), for every seed, and a seed
/// replays exactly.
#[test]
fn notify_one_releases_tasks_in_wait_order() {
    for seed in 0..5 {
        assert_eq!(
            release_order(seed),
            (0..8).collect::<Vec<_>>(),
            "seed {seed}"
        );
        assert_eq!(release_order(seed), release_order(seed));
    }
}
