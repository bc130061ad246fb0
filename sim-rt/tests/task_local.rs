//! `task_local!`: scopes, nesting, isolation between tasks, errors.

mod rt_support;

use std::cell::Cell;
use std::collections::BTreeSet;
use std::future::Future;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::pin::pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use rt_support::{panic_text, sim as run};
use sim_rt::task::{self, JoinSet};
use sim_rt::time::sleep;

sim_rt::task_local! {
    static NUMBER: u32;
    pub static NAME: String;
}

sim_rt::task_local! {
    #[allow(dead_code)]
    static SINGLE: u8
}

fn panic_message(f: impl FnOnce()) -> String {
    let err = catch_unwind(AssertUnwindSafe(f)).unwrap_err();
    panic_text(&*err).unwrap()
}

#[test]
fn scope_sets_the_value_for_the_future_only() {
    run(1, async {
        assert!(NUMBER.try_with(|_| ()).is_err());
        let out = NUMBER
            .scope(1, async {
                assert_eq!(NUMBER.get(), 1);
                sleep(Duration::from_secs(1)).await;
                NUMBER.with(|n| *n + 1)
            })
            .await;
        assert_eq!(out, 2);
        assert!(NUMBER.try_get().is_err());
    });
}

#[test]
fn outside_a_scope_try_with_errs_and_with_panics() {
    let err = NUMBER.try_with(|n| *n).unwrap_err();
    assert_eq!(err.to_string(), "task-local value not set");
    assert_eq!(format!("{err:?}"), "AccessError");
    assert_eq!(
        panic_message(|| {
            NUMBER.with(|_| ());
        }),
        "cannot access a task-local storage value without setting it first"
    );
    assert_eq!(
        panic_message(|| {
            NAME.get();
        }),
        "cannot access a task-local storage value without setting it first"
    );
}

#[test]
fn nested_scopes_shadow_and_restore() {
    let seen = run(2, async {
        let mut seen = Vec::new();
        NUMBER
            .scope(1, async {
                seen.push(NUMBER.get());
                NUMBER
                    .scope(2, async {
                        seen.push(NUMBER.get());
                        sleep(Duration::from_millis(5)).await;
                        seen.push(NUMBER.get());
                    })
                    .await;
                seen.push(NUMBER.get());
                NAME.scope("inner".to_string(), async {
                    seen.push(NUMBER.get());
                    NAME.with(|n| assert_eq!(n, "inner"));
                })
                .await;
            })
            .await;
        seen
    });
    assert_eq!(seen, vec![1, 2, 2, 1, 1]);
}

/// Ten tasks each scope their own value and yield between reads; over many
/// seeds (so many interleavings) every read sees the task's own value, and a
/// task without a scope sees none, even when it runs between the others.
#[test]
fn values_do_not_leak_across_tasks() {
    for seed in 0..50 {
        let reads = run(seed, async {
            let reads = Arc::new(Mutex::new(BTreeSet::new()));
            let mut set = JoinSet::new();
            for i in 0..10u32 {
                let reads = reads.clone();
                set.spawn(NUMBER.scope(i, async move {
                    for _ in 0..5 {
                        task::yield_now().await;
                        reads.lock().unwrap().insert((i, NUMBER.get()));
                    }
                }));
            }
            set.spawn(async {
                for _ in 0..5 {
                    task::yield_now().await;
                    assert!(NUMBER.try_get().is_err());
                }
            });
            while let Some(res) = set.join_next().await {
                res.unwrap();
            }
            let reads = reads.lock().unwrap().clone();
            reads
        });
        let expected: BTreeSet<(u32, u32)> = (0..10).map(|i| (i, i)).collect();
        assert_eq!(reads, expected, "seed {seed}");
    }
}

#[test]
fn spawned_tasks_do_not_inherit_the_scope() {
    run(3, async {
        NUMBER
            .scope(7, async {
                let inherited = task::spawn(async { NUMBER.try_get().ok() }).await.unwrap();
                assert_eq!(inherited, None);
                assert_eq!(NUMBER.get(), 7);
            })
            .await;
    });
}

#[test]
fn sync_scope_sets_the_value_for_the_closure() {
    let out = NUMBER.sync_scope(4, || {
        let inner = NUMBER.sync_scope(5, || NUMBER.get());
        (inner, NUMBER.get())
    });
    assert_eq!(out, (5, 4));
    assert!(NUMBER.try_get().is_err());
}

#[test]
fn entering_a_scope_inside_with_panics() {
    let msg = panic_message(|| {
        NUMBER.sync_scope(1, || {
            NUMBER.with(|_| NUMBER.sync_scope(2, || ()));
        })
    });
    assert_eq!(
        msg,
        "cannot enter a task-local scope while the task-local storage is borrowed"
    );
    // The outer scope was unwound: nothing is left set.
    assert!(NUMBER.try_get().is_err());
}

#[test]
fn a_panic_inside_a_scope_restores_the_slot() {
    let msg = panic_message(|| {
        NUMBER.sync_scope(9, || panic!("inside"));
    });
    assert_eq!(msg, "inside");
    assert!(NUMBER.try_get().is_err());
    NUMBER.sync_scope(10, || assert_eq!(NUMBER.get(), 10));
}

#[test]
fn take_value_and_debug() {
    run(4, async {
        let mut fut = Box::pin(NAME.scope("value".to_string(), async { NAME.get().len() }));
        assert_eq!(format!("{fut:?}"), "TaskLocalFuture { value: \"value\" }");
        assert_eq!(fut.as_mut().await, 5);
        assert_eq!(fut.as_mut().take_value().as_deref(), Some("value"));
        assert_eq!(fut.as_mut().take_value(), None);
        assert_eq!(format!("{fut:?}"), "TaskLocalFuture { value: <missing> }");
        assert_eq!(format!("{NAME:?}"), "LocalKey { .. }");
    });
}

/// A future dropped before completion is dropped inside its scope: its
/// destructor sees the value.
#[test]
fn inner_future_is_dropped_inside_the_scope() {
    struct ReadOnDrop<'a>(&'a Cell<Option<u32>>);

    impl Future for ReadOnDrop<'_> {
        type Output = ();
        fn poll(self: std::pin::Pin<&mut Self>, _: &mut Context<'_>) -> Poll<()> {
            Poll::Pending
        }
    }

    impl Drop for ReadOnDrop<'_> {
        fn drop(&mut self) {
            self.0.set(NUMBER.try_get().ok());
        }
    }

    let seen = Cell::new(None);
    let fut = NUMBER.scope(11, ReadOnDrop(&seen));
    drop(fut);
    assert_eq!(seen.get(), Some(11));
    assert!(NUMBER.try_get().is_err());
}

#[test]
fn polling_after_completion_panics() {
    let msg = panic_message(|| {
        let waker = futures::task::noop_waker();
        let mut cx = Context::from_waker(&waker);
        let mut fut = pin!(NUMBER.scope(1, async {}));
        assert!(fut.as_mut().poll(&mut cx).is_ready());
        let _ = fut.as_mut().poll(&mut cx);
    });
    assert_eq!(msg, "`TaskLocalFuture` polled after completion");
}

#[test]
fn works_without_a_simulation() {
    let out = futures::executor::block_on(NUMBER.scope(3, async { NUMBER.get() * 2 }));
    assert_eq!(out, 6);
}

/// Compile-only parity with tokio: the same code builds against tokio and,
/// with `tokio` renamed to `sim_rt`, against the simulation.
macro_rules! parity {
    () => {
        tokio::task_local! {
            static KEY: u32;
        }

        #[allow(dead_code)]
        async fn task_local_api() {
            use std::future::Future;
            use std::pin::Pin;
            use tokio::task::futures::TaskLocalFuture;
            use tokio::task::LocalKey;

            let key: &'static LocalKey<u32> = &KEY;
            let fut: TaskLocalFuture<u32, _> = key.scope(1, async { 2u8 });
            let mut fut: Pin<Box<TaskLocalFuture<u32, _>>> = Box::pin(fut);
            let _: u8 = fut.as_mut().await;
            let _: Option<u32> = fut.as_mut().take_value();
            let _: u8 = KEY.sync_scope(1, || 2u8);
            let _: u32 = KEY.with(|v| *v);
            let err = KEY.try_with(|v| *v).unwrap_err();
            let _: &dyn std::error::Error = &err;
            let _: u32 = KEY.get();
            let _: Result<u32, _> = KEY.try_get();
            let _ = format!("{KEY:?}");
            fn is_future<F: Future>(_: F) {}
            is_future(KEY.scope(1, async {}));
        }
    };
}

mod real {
    parity!();
}

mod sim {
    use sim_rt as tokio;
    parity!();
}
