//! `sim_rt::sync::Semaphore`: FIFO fairness with batch acquisition, permit
//! accounting, close, and cancel safety. Each `both!` test runs against
//! sim-rt's and tokio's semaphore (hand polling), so the outcomes asserted
//! are tokio's.

mod rt_support;

#[macro_use]
mod sync_support;

use std::pin::pin;
use std::sync::Arc;

use sync_support::{ready, Task};

both! {
    /// A request at the head of the queue that needs more permits than are
    /// free blocks smaller requests behind it; permits go to it as they are
    /// released.
    fn head_of_line_blocks_smaller_requests(s) {
        let sem = s::Semaphore::new(0);
        let (ta, tb) = (Task::new(), Task::new());
        let mut a = pin!(sem.acquire_many(2));
        let mut b = pin!(sem.acquire());
        assert!(ta.poll(a.as_mut()).is_pending());
        assert!(tb.poll(b.as_mut()).is_pending());
        sem.add_permits(1);
        // Assigned to `a`, not available, and `b` waits behind `a`.
        assert_eq!(sem.available_permits(), 0);
        assert_eq!((ta.wakes(), tb.wakes()), (0, 0));
        assert!(sem.try_acquire().is_err());
        sem.add_permits(1);
        assert_eq!((ta.wakes(), tb.wakes()), (1, 0));
        let pa = ready(ta.poll(a.as_mut())).unwrap();
        assert_eq!(pa.num_permits(), 2);
        assert!(tb.poll(b.as_mut()).is_pending());
        drop(pa);
        assert_eq!(tb.wakes(), 1);
        let pb = ready(tb.poll(b.as_mut())).unwrap();
        assert_eq!(sem.available_permits(), 1);
        drop(pb);
        assert_eq!(sem.available_permits(), 2);
    }
}

both! {
    /// Dropping a queued acquire gives back what was assigned to it, and
    /// the waiter behind it gets it.
    fn dropped_acquire_returns_assigned_permits(s) {
        let sem = s::Semaphore::new(0);
        let (ta, tb) = (Task::new(), Task::new());
        let mut a = Box::pin(sem.acquire_many(3));
        let mut b = Box::pin(sem.acquire());
        assert!(ta.poll(a.as_mut()).is_pending());
        assert!(tb.poll(b.as_mut()).is_pending());
        sem.add_permits(2);
        assert_eq!(sem.available_permits(), 0);
        drop(a);
        assert_eq!(tb.wakes(), 1);
        assert_eq!(sem.available_permits(), 1);
        let pb = ready(tb.poll(b.as_mut())).unwrap();
        assert_eq!(pb.num_permits(), 1);
    }
}

both! {
    /// An acquire that got its permits but was dropped before it was
    /// polled again gives them all back.
    fn dropped_granted_acquire_returns_everything(s) {
        let sem = s::Semaphore::new(0);
        let t = Task::new();
        let mut a = Box::pin(sem.acquire_many(2));
        assert!(t.poll(a.as_mut()).is_pending());
        sem.add_permits(2);
        assert_eq!(t.wakes(), 1);
        drop(a);
        assert_eq!(sem.available_permits(), 2);
    }
}

both! {
    /// `try_acquire*` errors and their texts.
    fn try_acquire_errors(s) {
        let sem = s::Semaphore::new(1);
        let p = sem.try_acquire().unwrap();
        let e = sem.try_acquire().unwrap_err();
        assert_eq!(e, s::TryAcquireError::NoPermits);
        assert_eq!(e.to_string(), "no permits available");
        assert!(sem.try_acquire_many(2).is_err());
        drop(p);
        sem.close();
        assert!(sem.is_closed());
        let e = sem.try_acquire().unwrap_err();
        assert_eq!(e, s::TryAcquireError::Closed);
        assert_eq!(e.to_string(), "semaphore closed");
        assert_eq!(format!("{e:?}"), "Closed");
    }
}

both! {
    /// `close` fails waiting and future acquisitions; permits held stay
    /// valid and are given back.
    fn close_fails_waiters(s) {
        let sem = s::Semaphore::new(1);
        let held = sem.try_acquire().unwrap();
        let t = Task::new();
        let mut w = pin!(sem.acquire());
        assert!(t.poll(w.as_mut()).is_pending());
        sem.close();
        assert_eq!(t.wakes(), 1);
        let e = ready(t.poll(w.as_mut())).unwrap_err();
        assert_eq!(e.to_string(), "semaphore closed");
        assert!(ready(t.poll(pin!(sem.acquire()))).is_err());
        drop(held);
        assert_eq!(sem.available_permits(), 1);
    }
}

both! {
    /// Permit bookkeeping: forget, merge, split, forget_permits.
    fn permit_accounting(s) {
        let sem = s::Semaphore::new(5);
        let mut p = sem.try_acquire_many(3).unwrap();
        let q = p.split(1).unwrap();
        assert!(p.split(3).is_none());
        assert_eq!((p.num_permits(), q.num_permits()), (2, 1));
        p.merge(q);
        assert_eq!(p.num_permits(), 3);
        assert!(std::ptr::eq(p.semaphore(), &sem));
        p.forget();
        assert_eq!(sem.available_permits(), 2);
        assert_eq!(sem.forget_permits(5), 2);
        assert_eq!(sem.available_permits(), 0);
        sem.add_permits(4);
        assert_eq!(sem.forget_permits(1), 1);
        assert_eq!(sem.available_permits(), 3);
        assert_eq!(s::Semaphore::MAX_PERMITS, usize::MAX >> 3);
    }
}

both! {
    /// The owned variants keep the `Arc`.
    fn owned_permits(s) {
        let sem = Arc::new(s::Semaphore::new(2));
        let mut p = sem.clone().try_acquire_owned().unwrap();
        let q = sem.clone().try_acquire_many_owned(1).unwrap();
        assert!(sem.clone().try_acquire_owned().is_err());
        p.merge(q);
        assert_eq!(p.num_permits(), 2);
        assert!(Arc::ptr_eq(p.semaphore(), &sem));
        let r = p.split(1).unwrap();
        drop(p);
        assert_eq!(sem.available_permits(), 1);
        let t = Task::new();
        let got = ready(t.poll(pin!(sem.clone().acquire_owned()))).unwrap();
        assert_eq!(sem.available_permits(), 0);
        drop((got, r));
        assert_eq!(sem.available_permits(), 2);
    }
}

both! {
    #[should_panic(expected = "merging permits from different semaphore instances")]
    fn merge_across_semaphores_panics(s) {
        let (a, b) = (s::Semaphore::new(1), s::Semaphore::new(1));
        let mut p = a.try_acquire().unwrap();
        p.merge(b.try_acquire().unwrap());
    }
}

both! {
    #[should_panic(expected = "a semaphore may not have more than MAX_PERMITS permits")]
    fn too_many_permits_panics(s) {
        let _ = s::Semaphore::new(usize::MAX);
    }
}

/// `const_new` works in a `static`.
#[test]
fn const_new_in_a_static() {
    static SEM: sim_rt::sync::Semaphore = sim_rt::sync::Semaphore::const_new(2);
    assert_eq!(SEM.available_permits(), 2);
    let _p = SEM.try_acquire().unwrap();
    assert_eq!(SEM.available_permits(), 1);
}

/// `blocking_acquire` works outside a simulation and refuses inside one.
#[test]
fn blocking_acquire_outside_and_inside() {
    let sem = sim_rt::sync::Semaphore::new(1);
    assert_eq!(sem.blocking_acquire().unwrap().num_permits(), 1);
    let rt = sim_rt::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        rt.block_on(async { drop(sem.blocking_acquire()) })
    }));
    let msg = rt_support::panic_text(&*r.unwrap_err()).unwrap_or_default();
    assert!(
        msg.contains("Cannot block the current thread from within a runtime"),
        "{msg}"
    );
}
