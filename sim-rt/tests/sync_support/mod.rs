//! Shared by the `sync_*` tests: hand polling with counting wakers, and
//! [`both!`], which runs one test body against sim-rt's `sync` and against
//! tokio's (a dev-dependency), so that every exact outcome asserted is
//! tokio's documented behaviour *and* sim-rt's.

#![allow(dead_code, unused_macros)]

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Wake, Waker};

/// A waker that counts how often it was woken, and logs its id into a
/// shared log when it has one.
#[derive(Default)]
pub struct Counter(AtomicUsize, Option<(usize, Log)>);

/// Ids of the tasks woken, in wake order.
pub type Log = Arc<Mutex<Vec<usize>>>;

impl Wake for Counter {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }
    fn wake_by_ref(self: &Arc<Self>) {
        self.0.fetch_add(1, Ordering::SeqCst);
        if let Some((id, log)) = &self.1 {
            log.lock().unwrap().push(*id);
        }
    }
}

/// A task for hand polling: its waker counts wakes.
pub struct Task {
    counter: Arc<Counter>,
    waker: Waker,
}

impl Task {
    pub fn new() -> Task {
        let counter = Arc::new(Counter::default());
        Task {
            waker: Waker::from(counter.clone()),
            counter,
        }
    }

    /// A task that logs `id` into `log` when woken.
    pub fn logged(id: usize, log: &Log) -> Task {
        let counter = Arc::new(Counter(AtomicUsize::new(0), Some((id, log.clone()))));
        Task {
            waker: Waker::from(counter.clone()),
            counter,
        }
    }

    /// How often this task was woken so far.
    pub fn wakes(&self) -> usize {
        self.counter.0.load(Ordering::SeqCst)
    }

    pub fn poll<F: Future + ?Sized>(&self, f: Pin<&mut F>) -> Poll<F::Output> {
        f.poll(&mut Context::from_waker(&self.waker))
    }

    pub fn waker(&self) -> &Waker {
        &self.waker
    }
}

/// `Poll::Ready(x)` → `x`, panicking on `Pending`.
pub fn ready<T>(p: Poll<T>) -> T {
    match p {
        Poll::Ready(t) => t,
        Poll::Pending => panic!("expected Ready, got Pending"),
    }
}

/// Runs the body twice, with `$s` = `sim_rt::sync` and with `$s` =
/// `tokio::sync`, as two `#[test]`s in a module named `$name`.
macro_rules! both {
    ($(#[$m:meta])* fn $name:ident($s:ident) $body:block) => {
        mod $name {
            #[allow(unused_imports)]
            use super::*;

            $(#[$m])*
            #[test]
            fn sim() {
                #[allow(unused_imports)]
                use sim_rt::sync as $s;
                $body
            }

            $(#[$m])*
            #[test]
            fn tokio() {
                #[allow(unused_imports)]
                use ::tokio::sync as $s;
                $body
            }
        }
    };
}
