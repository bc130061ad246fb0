//! `sim_rt::sync::Mutex`: FIFO fairness, cancel safety, guards, and
//! tokio's texts. Each `both!` test runs against sim-rt's and tokio's
//! mutex (hand polling), so the outcomes asserted are tokio's.

#[macro_use]
mod sync_support;

use std::pin::pin;
use std::sync::{Arc, Mutex as StdMutex};
use std::time::Duration;

use sync_support::{ready, Log, Task};

both! {
    /// Waiters get the lock in the order they started waiting.
    fn lock_is_fifo(s) {
        let m = s::Mutex::new(0);
        let g = m.try_lock().unwrap();
        let log = Log::default();
        let tasks: Vec<Task> = (0..4).map(|i| Task::logged(i, &log)).collect();
        let mut futs: Vec<_> = (0..4).map(|_| Box::pin(m.lock())).collect();
        for i in [2, 0, 3, 1] {
            assert!(tasks[i].poll(futs[i].as_mut()).is_pending());
        }
        drop(g);
        for i in [2, 0, 3, 1] {
            let mut g = ready(tasks[i].poll(futs[i].as_mut()));
            *g += 1;
        }
        assert_eq!(*log.lock().unwrap(), [2, 0, 3, 1]);
        assert_eq!(*m.try_lock().unwrap(), 4);
    }
}

both! {
    /// A lock future dropped after the lock was handed to it passes the
    /// lock on to the next waiter.
    fn dropped_lock_future_passes_the_lock_on(s) {
        let m = s::Mutex::new(());
        let g = m.try_lock().unwrap();
        let (ta, tb) = (Task::new(), Task::new());
        let mut a = Box::pin(m.lock());
        let mut b = Box::pin(m.lock());
        assert!(ta.poll(a.as_mut()).is_pending());
        assert!(tb.poll(b.as_mut()).is_pending());
        drop(g);
        assert_eq!((ta.wakes(), tb.wakes()), (1, 0));
        drop(a);
        assert_eq!(tb.wakes(), 1);
        assert!(tb.poll(b.as_mut()).is_ready());
    }
}

both! {
    /// `try_lock` fails while locked, with tokio's texts; `Debug` shows the
    /// value or `<locked>`.
    fn try_lock_and_debug(s) {
        let m = s::Mutex::new(5);
        assert_eq!(format!("{m:?}"), "Mutex { data: 5 }");
        let g = m.try_lock().unwrap();
        assert_eq!(format!("{g:?} {g}"), "5 5");
        let e = m.try_lock().unwrap_err();
        assert_eq!(e.to_string(), "operation would block");
        assert_eq!(format!("{e:?}"), "TryLockError(())");
        assert_eq!(format!("{m:?}"), "Mutex { data: <locked> }");
        assert!(std::ptr::eq(s::MutexGuard::mutex(&g), &m));
    }
}

both! {
    /// Mapped guards keep the lock until dropped.
    fn map_and_try_map(s) {
        let m = s::Mutex::new((1u8, (2u8, 3u8)));
        let g = m.try_lock().unwrap();
        let g = match s::MutexGuard::try_map(g, |_| None::<&mut u8>) {
            Ok(_) => panic!("try_map with None maps"),
            Err(g) => g,
        };
        let mut inner = s::MutexGuard::map(g, |v| &mut v.1);
        inner.1 = 30;
        assert!(m.try_lock().is_err());
        let mut first = s::MappedMutexGuard::map(inner, |v| &mut v.0);
        *first = 20;
        assert!(m.try_lock().is_err());
        drop(first);
        assert_eq!(*m.try_lock().unwrap(), (1, (20, 30)));
    }
}

both! {
    /// Owned guards and their mapped forms.
    fn owned_guards(s) {
        let m = Arc::new(s::Mutex::new((1u8, 2u8)));
        let g = m.clone().try_lock_owned().unwrap();
        assert!(Arc::ptr_eq(s::OwnedMutexGuard::mutex(&g), &m));
        assert!(m.clone().try_lock_owned().is_err());
        let mut mapped = s::OwnedMutexGuard::map(g, |v| &mut v.1);
        *mapped = 5;
        let mapped = match s::OwnedMappedMutexGuard::try_map(mapped, |_| None::<&mut u8>) {
            Ok(_) => panic!("try_map with None maps"),
            Err(g) => g,
        };
        assert!(m.try_lock().is_err());
        drop(mapped);
        let t = Task::new();
        let g = ready(t.poll(pin!(m.clone().lock_owned())));
        assert_eq!(*g, (1, 5));
        drop(g);
        assert_eq!(Arc::strong_count(&m), 1);
        let m = Arc::try_unwrap(m).unwrap();
        assert_eq!(m.into_inner(), (1, 5));
    }
}

both! {
    /// `get_mut`, `From`, `Default`, `const_new`.
    fn constructors(s) {
        let mut m = s::Mutex::from(3);
        *m.get_mut() += 1;
        assert_eq!(*m.try_lock().unwrap(), 4);
        let d: s::Mutex<u8> = Default::default();
        assert_eq!(d.into_inner(), 0);
        static M: s::Mutex<u8> = s::Mutex::const_new(7);
        assert_eq!(*M.try_lock().unwrap(), 7);
    }
}

/// In a simulation, tasks contending for one mutex get it in the order
/// they asked, whatever the seed, and a seed replays exactly.
#[test]
fn tasks_get_the_lock_in_request_order() {
    fn run(seed: u64) -> Vec<u64> {
        let rt = sim_rt::runtime::Builder::new_current_thread()
            .enable_all()
            .seed(seed)
            .build()
            .unwrap();
        let order = Arc::new(StdMutex::new(Vec::new()));
        let o = order.clone();
        rt.block_on(async move {
            let m = Arc::new(sim_rt::sync::Mutex::new(()));
            let g = m.lock().await;
            let mut hs = Vec::new();
            for i in 0..8u64 {
                let (m, o) = (m.clone(), o.clone());
                hs.push(sim_rt::spawn(async move {
                    sim_rt::time::sleep(Duration::from_millis(i)).await;
                    let _g = m.lock().await;
                    o.lock().unwrap().push(i);
                    sim_rt::time::sleep(Duration::from_millis(1)).await;
                }));
            }
            sim_rt::time::sleep(Duration::from_millis(50)).await;
            drop(g);
            for h in hs {
                h.await.unwrap();
            }
        });
        let v = order.lock().unwrap().clone();
        v
    }
    for seed in 0..4 {
        assert_eq!(run(seed), (0..8).collect::<Vec<_>>(), "seed {seed}");
    }
}

/// `blocking_lock` works outside a simulation.
#[test]
fn blocking_lock_outside_a_simulation() {
    let m = sim_rt::sync::Mutex::new(1);
    *m.blocking_lock() += 1;
    assert_eq!(*m.blocking_lock(), 2);
}
