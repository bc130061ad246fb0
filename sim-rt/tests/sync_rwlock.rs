//! `sim_rt::sync::RwLock`: shared reads, exclusive writes, fair
//! write-preferring queueing, downgrade, guards. Each `both!` test runs
//! against sim-rt's and tokio's lock (hand polling), so the outcomes
//! asserted are tokio's.

#[macro_use]
mod sync_support;

use std::pin::pin;
use std::sync::Arc;

use sync_support::{ready, Log, Task};

both! {
    /// A queued writer blocks later readers (no writer starvation), and is
    /// served before them.
    fn writer_queued_blocks_later_readers(s) {
        let l = s::RwLock::new(0);
        let r1 = l.try_read().unwrap();
        let log = Log::default();
        let (tw, tr) = (Task::logged(0, &log), Task::logged(1, &log));
        let mut w = pin!(l.write());
        let mut r2 = pin!(l.read());
        assert!(tw.poll(w.as_mut()).is_pending());
        assert!(l.try_read().is_err());
        assert!(tr.poll(r2.as_mut()).is_pending());
        drop(r1);
        assert_eq!(*log.lock().unwrap(), [0]);
        let mut g = ready(tw.poll(w.as_mut()));
        *g = 1;
        drop(g);
        assert_eq!(*log.lock().unwrap(), [0, 1]);
        assert_eq!(*ready(tr.poll(r2.as_mut())), 1);
    }
}

both! {
    /// Readers share; `with_max_readers` bounds them; writers exclude.
    fn readers_share_up_to_the_maximum(s) {
        let l = s::RwLock::with_max_readers(5, 2);
        let a = l.try_read().unwrap();
        let b = l.try_read().unwrap();
        assert_eq!(*a + *b, 10);
        let e = l.try_read().unwrap_err();
        assert_eq!(e.to_string(), "operation would block");
        drop(a);
        assert!(l.try_write().is_err());
        drop(b);
        let w = l.try_write().unwrap();
        assert!(l.try_read().is_err());
        assert_eq!(format!("{l:?}"), "RwLock { data: <locked> }");
        drop(w);
        assert_eq!(format!("{l:?}"), "RwLock { data: 5 }");
    }
}

both! {
    /// `downgrade` lets waiting readers in, but not writers.
    fn downgrade_admits_readers(s) {
        let l = s::RwLock::new(1);
        let w = l.try_write().unwrap();
        let t = Task::new();
        let mut r = pin!(l.read());
        assert!(t.poll(r.as_mut()).is_pending());
        let d = s::RwLockWriteGuard::downgrade(w);
        assert_eq!(t.wakes(), 1);
        assert_eq!(*ready(t.poll(r.as_mut())), 1);
        assert!(l.try_write().is_err());
        drop(d);
    }
}

both! {
    /// Mapped guards and downgrade_map.
    fn mapping(s) {
        let l = s::RwLock::new((1u8, 2u8));
        let w = l.try_write().unwrap();
        let mut m = s::RwLockWriteGuard::map(w, |v| &mut v.1);
        *m = 20;
        let m = match s::RwLockMappedWriteGuard::try_map(m, |_| None::<&mut u8>) {
            Ok(_) => panic!("try_map with None maps"),
            Err(m) => m,
        };
        drop(m);
        let w = l.try_write().unwrap();
        let r = s::RwLockWriteGuard::downgrade_map(w, |v| &v.0);
        assert_eq!(*r, 1);
        let r2 = l.try_read().unwrap();
        let r2 = s::RwLockReadGuard::map(r2, |v| &v.1);
        assert_eq!(*r2, 20);
        assert!(l.try_write().is_err());
        drop((r, r2));
        let w = l.try_write().unwrap();
        let w = match s::RwLockWriteGuard::try_downgrade_map(w, |_| None::<&u8>) {
            Ok(_) => panic!("try_downgrade_map with None maps"),
            Err(w) => w,
        };
        let mut m = s::RwLockWriteGuard::into_mapped(w);
        m.0 = 10;
        drop(m);
        assert_eq!(l.into_inner(), (10, 20));
    }
}

both! {
    /// Owned guards.
    fn owned_guards(s) {
        let l = Arc::new(s::RwLock::new(1u8));
        let t = Task::new();
        let w = ready(t.poll(pin!(l.clone().write_owned())));
        assert!(Arc::ptr_eq(s::OwnedRwLockWriteGuard::rwlock(&w), &l));
        assert!(l.clone().try_read_owned().is_err());
        let r = w.downgrade();
        let r2 = l.clone().try_read_owned().unwrap();
        assert_eq!(*r + *r2, 2);
        drop((r, r2));
        let mut w = l.clone().try_write_owned().unwrap();
        *w = 3;
        let m = s::OwnedRwLockWriteGuard::map(w, |v| v);
        assert!(Arc::ptr_eq(s::OwnedRwLockMappedWriteGuard::rwlock(&m), &l));
        drop(m);
        let r = ready(t.poll(pin!(l.clone().read_owned())));
        let r = s::OwnedRwLockReadGuard::map(r, |v| v);
        assert_eq!(*r, 3);
    }
}

both! {
    /// A cancelled write gives back the read permits assigned to it, and
    /// lets the readers queued behind it in.
    fn cancelled_write_lets_readers_in(s) {
        let l = s::RwLock::new(0);
        let r1 = l.try_read().unwrap();
        let (tw, tr) = (Task::new(), Task::new());
        let mut w = Box::pin(l.write());
        let mut r2 = Box::pin(l.read());
        assert!(tw.poll(w.as_mut()).is_pending());
        assert!(tr.poll(r2.as_mut()).is_pending());
        drop(w);
        assert_eq!(tr.wakes(), 1);
        assert!(tr.poll(r2.as_mut()).is_ready());
        drop(r1);
    }
}

both! {
    #[should_panic(expected = "a RwLock may not be created with 0 readers")]
    fn zero_readers_panics(s) {
        let _ = s::RwLock::with_max_readers(0u8, 0);
    }
}
