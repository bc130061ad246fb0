//! A task's life counted exactly, after async-task's tests: allocations per
//! spawn (two: the boxed future and its waker, as `sim_rt::runtime`'s docs
//! state), polls, wakes and drops of its future and output, for `spawn` and
//! `spawn_local` alike.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::{Cell, RefCell};
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Waker};

use sim_rt::runtime::Builder;
use sim_rt::sim;

/// Counts this thread's allocations (tests run on threads of their own).
struct Counting;

thread_local! {
    static ALLOCATIONS: Cell<u64> = const { Cell::new(0) };
}

// SAFETY: every call goes to the system allocator unchanged; the count is
// a const-initialized thread-local, which allocates nothing.
#[allow(unsafe_code)]
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let _ = ALLOCATIONS.try_with(|c| c.set(c.get() + 1));
        // SAFETY: the caller's contract, passed on.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: the caller's contract, passed on.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static COUNTING: Counting = Counting;

fn allocations() -> u64 {
    ALLOCATIONS.with(Cell::get)
}

/// Runs `future` on a fresh simulation with the default settings.
/// Runs `future` on a local runtime: `spawn_local` works anywhere in it.
fn run<F: Future>(future: F) -> F::Output {
    Builder::new_current_thread()
        .enable_all()
        .build_local(Default::default())
        .unwrap()
        .block_on(future)
}

/// Tasks each count spawns.
const N: u64 = 1_000;

/// Allocations made by `spawn_n(N)`, after a first round of `N` that grew
/// every table to size (the slab, the wake queue): exactly what the tasks
/// themselves cost.
fn allocations_for_n_spawns(spawn_n: fn(u64) -> Vec<sim_rt::task::JoinHandle<u64>>) -> u64 {
    // A local runtime: `spawn_local` works in it outside a `LocalSet`.
    Builder::new_current_thread()
        .enable_all()
        .build_local(Default::default())
        .unwrap()
        .block_on(async move {
            for h in spawn_n(N) {
                h.await.unwrap();
            }
            let before = allocations();
            let handles = spawn_n(N);
            let spent = allocations() - before;
            for h in handles {
                h.await.unwrap();
            }
            // Room for the handles themselves: one vector.
            spent - 1
        })
}

#[test]
fn a_spawned_task_is_two_allocations() {
    let spent =
        allocations_for_n_spawns(|n| (0..n).map(|i| sim_rt::spawn(async move { i })).collect());
    assert_eq!(spent, 2 * N, "spawn: the boxed future and its waker");
}

#[test]
fn a_local_task_is_two_allocations() {
    let spent = allocations_for_n_spawns(|n| {
        (0..n)
            .map(|i| sim_rt::task::spawn_local(async move { i }))
            .collect()
    });
    assert_eq!(spent, 2 * N, "spawn_local: the boxed future and its waker");
}

/// What happened to one task's future and output.
#[derive(Default, Debug)]
struct Counts {
    polls: AtomicUsize,
    future_drops: AtomicUsize,
    output_drops: AtomicUsize,
}

/// A future that counts its polls and its drop, keeps a clone of its waker
/// in `keep`, and returns an output that counts its drop after `pending`
/// pending polls.
struct Counted {
    counts: Arc<Counts>,
    pending: usize,
    keep: Arc<Mutex<Option<Waker>>>,
}

struct Output(Arc<Counts>);

impl Drop for Output {
    fn drop(&mut self) {
        self.0.output_drops.fetch_add(1, Ordering::SeqCst);
    }
}

impl Future for Counted {
    type Output = Output;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Output> {
        self.counts.polls.fetch_add(1, Ordering::SeqCst);
        *self.keep.lock().unwrap() = Some(cx.waker().clone());
        if self.pending == 0 {
            return Poll::Ready(Output(self.counts.clone()));
        }
        self.pending -= 1;
        Poll::Pending
    }
}

impl Drop for Counted {
    fn drop(&mut self) {
        self.counts.future_drops.fetch_add(1, Ordering::SeqCst);
    }
}

fn counted(pending: usize) -> (Counted, Arc<Counts>, Arc<Mutex<Option<Waker>>>) {
    let counts = Arc::new(Counts::default());
    let keep = Arc::new(Mutex::new(None));
    let f = Counted {
        counts: counts.clone(),
        pending,
        keep: keep.clone(),
    };
    (f, counts, keep)
}

fn snapshot(c: &Counts) -> (usize, usize, usize) {
    (
        c.polls.load(Ordering::SeqCst),
        c.future_drops.load(Ordering::SeqCst),
        c.output_drops.load(Ordering::SeqCst),
    )
}

/// Yields until `done` holds (the default scheduler runs the enabled tasks
/// in a random order, so a yield alone does not say who ran).
async fn until(done: impl Fn() -> bool) {
    for _ in 0..1_000 {
        if done() {
            return;
        }
        sim_rt::task::yield_now().await;
    }
    panic!("never happened");
}

/// Both ways of spawning, for each lifecycle test.
fn both(test: impl Fn(bool)) {
    test(true);
    test(false);
}

fn spawn_counted(send: bool, f: Counted) -> sim_rt::task::JoinHandle<Output> {
    if send {
        sim_rt::spawn(f)
    } else {
        sim_rt::task::spawn_local(f)
    }
}

/// Three wakes before a poll make one poll; the future drops once, when it
/// completes, though a clone of its waker outlives it; the output drops
/// once, when the handle that took it does.
#[test]
fn wakes_polls_and_drops_are_counted_exactly() {
    both(|send| {
        let rt = Builder::new_current_thread()
            .enable_all()
            .build_local(Default::default())
            .unwrap();
        let (f, counts, keep) = counted(1);
        rt.block_on(async {
            let h = spawn_counted(send, f);
            until(|| snapshot(&counts).0 == 1).await;
            assert_eq!(snapshot(&counts), (1, 0, 0), "polled once, pending");
            let w = keep.lock().unwrap().clone().unwrap();
            w.wake_by_ref();
            w.wake_by_ref();
            w.wake();
            let out = h.await.unwrap();
            assert_eq!(snapshot(&counts), (2, 1, 0), "three wakes, one poll");
            drop(out);
            assert_eq!(snapshot(&counts), (2, 1, 1));
        });
        // The waker clone still lives: waking it now does nothing, and
        // dropping it touches neither future nor output again.
        let stray = keep.lock().unwrap().take().unwrap();
        drop(rt);
        stray.wake();
        assert_eq!(snapshot(&counts), (2, 1, 1), "send: {send}");
    });
}

/// An output nobody takes drops once, when the handle does.
#[test]
fn an_unclaimed_output_drops_with_its_handle() {
    both(|send| {
        let (f, counts, _keep) = counted(0);
        run(async {
            let h = spawn_counted(send, f);
            until(|| snapshot(&counts).1 == 1).await;
            assert_eq!(snapshot(&counts), (1, 1, 0), "done, output kept");
            drop(h);
            assert_eq!(snapshot(&counts), (1, 1, 1), "send: {send}");
        });
    });
}

/// An aborted task's future drops once, at the poll it would have had,
/// and its handle reports the cancellation; a task whose handle went first
/// drops its output as it completes.
#[test]
fn abort_and_detach_drop_once() {
    both(|send| {
        let (f, counts, _keep) = counted(usize::MAX);
        let (g, gcounts, _gkeep) = counted(0);
        run(async {
            let h = spawn_counted(send, f);
            until(|| snapshot(&counts).0 == 1).await;
            h.abort();
            let err = h.await.err().expect("aborted");
            assert!(err.is_cancelled());
            assert_eq!(snapshot(&counts), (1, 1, 0), "send: {send}");
            drop(spawn_counted(send, g));
            until(|| snapshot(&gcounts).2 == 1).await;
            assert_eq!(snapshot(&gcounts), (1, 1, 1), "send: {send}");
        });
    });
}

/// A host's reset drops each of its tasks' futures once; the runtime's end
/// drops the futures of tasks still pending, once.
#[test]
fn resets_and_the_end_of_the_runtime_drop_once() {
    both(|send| {
        let counts: Rc<RefCell<Option<Arc<Counts>>>> = Rc::default();
        let seen = counts.clone();
        let rt = Builder::new_current_thread()
            .enable_all()
            .build_local(Default::default())
            .unwrap();
        let (f, left, _keep) = counted(usize::MAX);
        let pending = left.clone();
        rt.block_on(async move {
            sim::host("h").start(move || {
                let (f, c, _keep) = counted(usize::MAX);
                *seen.borrow_mut() = Some(c);
                async move {
                    spawn_counted(send, f);
                    std::future::pending::<()>().await
                }
            });
            until(|| counts.borrow().as_ref().is_some_and(|c| snapshot(c).0 == 1)).await;
            let c = counts.take().expect("the host started");
            assert_eq!(snapshot(&c), (1, 0, 0));
            sim::reset("h");
            assert_eq!(snapshot(&c), (1, 1, 0), "the reset dropped the future once");
            let h = spawn_counted(send, f);
            until(|| snapshot(&pending).0 == 1).await;
            std::mem::forget(h);
        });
        assert_eq!(snapshot(&left).1, 0);
        drop(rt);
        assert_eq!(snapshot(&left), (1, 1, 0), "send: {send}");
    });
}

/// A task's output is dropped as the task, as tokio's: its destructor sees
/// the task's id whether the handle was dropped before the task completed
/// (the output goes at once) or after (it goes with the handle).
#[test]
fn an_output_is_dropped_as_its_task() {
    struct Output(Rc<Cell<Option<sim_rt::task::Id>>>);
    impl Drop for Output {
        fn drop(&mut self) {
            self.0.set(sim_rt::task::try_id());
        }
    }
    run(async {
        let seen = Rc::new(Cell::new(None));
        let out = seen.clone();
        let handle = sim_rt::task::spawn_local(async move { Output(out) });
        let id = handle.id();
        drop(handle);
        until(|| seen.get().is_some()).await;
        assert_eq!(seen.get(), Some(id), "dropped with no handle left");

        let seen = Rc::new(Cell::new(None));
        let out = seen.clone();
        let handle = sim_rt::task::spawn_local(async move { Output(out) });
        let id = handle.id();
        until(|| handle.is_finished()).await;
        assert_eq!(seen.get(), None, "kept for the handle");
        drop(handle);
        assert_eq!(seen.get(), Some(id), "dropped with the handle");
        assert_eq!(sim_rt::task::try_id(), None, "the main future again");
    });
}
