//! `sim_rt::sync::{Barrier, OnceCell, SetOnce}`. The `both!` tests run
//! against sim-rt's and tokio's types (hand polling), so the outcomes
//! asserted are tokio's.

#[macro_use]
mod sync_support;

use std::pin::pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use sync_support::{ready, Task};

both! {
    fn barrier_releases_all_with_one_leader(s) {
        let b = s::Barrier::new(3);
        let tasks: Vec<Task> = (0..3).map(|_| Task::new()).collect();
        let mut waits: Vec<_> = (0..3).map(|_| Box::pin(b.wait())).collect();
        assert!(tasks[0].poll(waits[0].as_mut()).is_pending());
        assert!(tasks[1].poll(waits[1].as_mut()).is_pending());
        let last = ready(tasks[2].poll(waits[2].as_mut()));
        assert!(last.is_leader());
        assert_eq!((tasks[0].wakes(), tasks[1].wakes()), (1, 1));
        assert!(!ready(tasks[0].poll(waits[0].as_mut())).is_leader());
        assert!(!ready(tasks[1].poll(waits[1].as_mut())).is_leader());
        // Reusable, and `new(0)` means 1.
        let t = Task::new();
        assert!(ready(t.poll(pin!(s::Barrier::new(0).wait()))).is_leader());
    }
}

both! {
    fn once_cell_set_and_errors(s) {
        let c = s::OnceCell::new();
        assert!(!c.initialized());
        assert_eq!(c.get(), None);
        c.set(1).unwrap();
        let e = c.set(2).unwrap_err();
        assert!(e.is_already_init_err());
        assert_eq!(e, s::SetError::AlreadyInitializedError(2));
        assert_eq!(e.to_string(), "AlreadyInitializedError");
        assert_eq!(c.get(), Some(&1));
        assert_eq!(format!("{c:?}"), "OnceCell { value: Some(1) }");
        let mut c2 = c.clone();
        assert_eq!(c2, c);
        assert_eq!(c2.take(), Some(1));
        assert_eq!(c2.get(), None);
        assert_eq!(s::OnceCell::new_with(Some(4)).into_inner(), Some(4));
        static C: s::OnceCell<u8> = s::OnceCell::const_new_with(9);
        assert_eq!(C.get(), Some(&9));
        assert!(C.set(1).unwrap_err().is_already_init_err());
    }
}

both! {
    /// While one caller initialises, `set` fails with `InitializingError`
    /// and other initialisers wait, then return the value without running
    /// their own `f`.
    fn once_cell_initialises_once(s) {
        let c = s::OnceCell::<u8>::new();
        let (ta, tb) = (Task::new(), Task::new());
        let (tx, rx) = s::oneshot::channel::<u8>();
        let mut a = pin!(c.get_or_init(|| async { rx.await.unwrap() }));
        let mut b = pin!(c.get_or_init(|| async { panic!("second initialiser ran") }));
        assert!(ta.poll(a.as_mut()).is_pending());
        assert!(tb.poll(b.as_mut()).is_pending());
        let e = c.set(3).unwrap_err();
        assert!(e.is_initializing_err());
        assert_eq!(e.to_string(), "InitializingError");
        tx.send(7).unwrap();
        assert_eq!(*ready(ta.poll(a.as_mut())), 7);
        assert_eq!(tb.wakes(), 1);
        assert_eq!(*ready(tb.poll(b.as_mut())), 7);
    }
}

both! {
    /// A failed `get_or_try_init` leaves the cell empty for the next one.
    fn once_cell_try_init_failure(s) {
        let c = s::OnceCell::<u8>::new();
        let t = Task::new();
        let r = ready(t.poll(pin!(c.get_or_try_init(|| async { Err::<u8, &str>("no") }))));
        assert_eq!(r, Err("no"));
        assert!(!c.initialized());
        let r = ready(t.poll(pin!(c.get_or_try_init(|| async { Ok::<u8, &str>(5) }))));
        assert_eq!(r, Ok(&5));
    }
}

both! {
    fn set_once(s) {
        let c = s::SetOnce::<u8>::new();
        let t = Task::new();
        {
            let mut w = pin!(c.wait());
            assert!(t.poll(w.as_mut()).is_pending());
            c.set(4).unwrap();
            assert_eq!(t.wakes(), 1);
            assert_eq!(*ready(t.poll(w.as_mut())), 4);
        }
        let e = c.set(5).unwrap_err();
        assert_eq!(e, s::SetOnceError(5));
        assert_eq!(e.to_string(), "SetOnceError");
        assert_eq!(*ready(t.poll(pin!(c.wait()))), 4);
        assert_eq!(format!("{c:?}"), "SetOnce { value: Some(4) }");
        assert_eq!(c.into_inner(), Some(4));
        static S: s::SetOnce<u8> = s::SetOnce::const_new_with(1);
        assert!(S.initialized());
        assert!(S.set(2).is_err());
    }
}

/// In a simulation: tasks meet at a barrier; exactly one is the leader,
/// and none passes before the last arrives.
#[sim_rt::test(start_paused = true)]
async fn barrier_in_a_simulation() {
    let b = Arc::new(sim_rt::sync::Barrier::new(4));
    let leaders = Arc::new(AtomicUsize::new(0));
    let mut hs = Vec::new();
    for i in 0..4u64 {
        let (b, leaders) = (b.clone(), leaders.clone());
        hs.push(sim_rt::spawn(async move {
            sim_rt::time::sleep(Duration::from_secs(i)).await;
            if b.wait().await.is_leader() {
                leaders.fetch_add(1, Ordering::SeqCst);
            }
            sim_rt::time::Instant::now()
        }));
    }
    let start = sim_rt::time::Instant::now();
    for h in hs {
        assert_eq!(h.await.unwrap() - start, Duration::from_secs(3));
    }
    assert_eq!(leaders.load(Ordering::SeqCst), 1);
}
