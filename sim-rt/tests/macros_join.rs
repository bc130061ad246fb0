//! `join!`, `try_join!` and `pin!`: outputs, evaluation order, the rotation
//! of the branch polled first (tokio's rule), early return on error, and
//! that every branch is dropped exactly once.

use std::cell::RefCell;
use std::future::{Future, IntoFuture};
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll};

/// A branch that logs `(poll number, branch)` at each poll, stays pending
/// for `pending` polls (waking itself each time), then returns `out`.
struct Logged<T> {
    branch: usize,
    pending: usize,
    out: Option<T>,
    log: Rc<RefCell<Vec<usize>>>,
    drops: Rc<RefCell<Vec<usize>>>,
}

impl<T: Unpin> Future for Logged<T> {
    type Output = T;
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<T> {
        self.log.borrow_mut().push(self.branch);
        if self.pending == 0 {
            return Poll::Ready(self.out.take().expect("polled after completion"));
        }
        self.pending -= 1;
        cx.waker().wake_by_ref();
        Poll::Pending
    }
}

impl<T> Drop for Logged<T> {
    fn drop(&mut self) {
        self.drops.borrow_mut().push(self.branch);
    }
}

type Log = Rc<RefCell<Vec<usize>>>;

fn logs() -> (Log, Log) {
    (Rc::default(), Rc::default())
}

fn branch<T>(branch: usize, pending: usize, out: T, log: &Log, drops: &Log) -> Logged<T> {
    Logged {
        branch,
        pending,
        out: Some(out),
        log: log.clone(),
        drops: drops.clone(),
    }
}

fn block_on<F: Future>(f: F) -> F::Output {
    sim_rt::runtime::Runtime::new().unwrap().block_on(f)
}

#[test]
fn join_returns_every_output_in_order() {
    let (log, drops) = logs();
    let out = block_on(async {
        sim_rt::join!(
            branch(0, 2, "a", &log, &drops),
            branch(1, 0, 1u8, &log, &drops),
            branch(2, 1, 'c', &log, &drops),
        )
    });
    assert_eq!(out, ("a", 1u8, 'c'));
    let mut dropped = drops.borrow().clone();
    dropped.sort();
    assert_eq!(dropped, vec![0, 1, 2], "each branch dropped exactly once");
}

/// Three branches pending for two polls each. Unbiased: poll 1 starts at
/// branch 0, poll 2 at branch 1, poll 3 at branch 2. Completed branches are
/// not polled again.
#[test]
fn unbiased_join_rotates_the_first_branch() {
    let (log, drops) = logs();
    block_on(async {
        sim_rt::join!(
            branch(0, 2, (), &log, &drops),
            branch(1, 2, (), &log, &drops),
            branch(2, 2, (), &log, &drops),
        )
    });
    assert_eq!(*log.borrow(), vec![0, 1, 2, 1, 2, 0, 2, 0, 1]);
}

#[test]
fn biased_join_polls_top_to_bottom() {
    let (log, drops) = logs();
    block_on(async {
        sim_rt::join!(
            biased;
            branch(0, 1, (), &log, &drops),
            branch(1, 2, (), &log, &drops),
            branch(2, 0, (), &log, &drops),
        )
    });
    assert_eq!(*log.borrow(), vec![0, 1, 2, 0, 1, 1]);
}

#[test]
fn join_evaluates_every_expression_before_polling() {
    let order = RefCell::new(Vec::new());
    block_on(async {
        sim_rt::join!(
            {
                order.borrow_mut().push("eval a");
                async { order.borrow_mut().push("poll a") }
            },
            {
                order.borrow_mut().push("eval b");
                async { order.borrow_mut().push("poll b") }
            },
        )
    });
    assert_eq!(
        order.into_inner(),
        vec!["eval a", "eval b", "poll a", "poll b"]
    );
}

struct Later(u32);

impl IntoFuture for Later {
    type Output = u32;
    type IntoFuture = std::future::Ready<u32>;
    fn into_future(self) -> Self::IntoFuture {
        std::future::ready(self.0 * 2)
    }
}

#[test]
fn join_accepts_into_future_and_single_and_empty_forms() {
    let out = block_on(async {
        let one = sim_rt::join!(Later(4));
        sim_rt::join!();
        sim_rt::join!(biased;);
        let two = sim_rt::join!(Later(1), async { 5 },);
        (one, two)
    });
    assert_eq!(out, ((8,), (2, 5)));
}

#[test]
fn try_join_returns_all_values_when_every_branch_succeeds() {
    let (log, drops) = logs();
    let out: Result<(u8, &str), ()> = block_on(async {
        sim_rt::try_join!(
            branch(0, 1, Ok(1u8), &log, &drops),
            branch(1, 0, Ok("two"), &log, &drops),
        )
    });
    assert_eq!(out, Ok((1, "two")));
}

/// Branch 1 fails at its first poll: branch 2 is never polled, and every
/// branch (finished or not) is dropped once.
#[test]
fn try_join_returns_the_first_error_at_once() {
    let (log, drops) = logs();
    let out: Result<((), (), ()), &str> = block_on(async {
        sim_rt::try_join!(
            biased;
            branch(0, 5, Ok(()), &log, &drops),
            branch(1, 0, Err("boom"), &log, &drops),
            branch(2, 0, Ok(()), &log, &drops),
        )
    });
    assert_eq!(out, Err("boom"));
    assert_eq!(*log.borrow(), vec![0, 1]);
    let mut dropped = drops.borrow().clone();
    dropped.sort();
    assert_eq!(dropped, vec![0, 1, 2]);
}

#[test]
fn try_join_with_no_branches_is_ok() {
    let out: Result<(), std::io::Error> = block_on(async { sim_rt::try_join!() });
    assert!(out.is_ok());
}

#[test]
fn pin_shadows_variables_and_declares_new_ones() {
    block_on(async {
        let a = async { 1 };
        let b = async { 2 };
        sim_rt::pin!(a, b);
        fn is_pinned<F: Future>(_: &Pin<&mut F>) {}
        is_pinned(&a);
        assert_eq!((&mut a).await + (&mut b).await, 3);
        sim_rt::pin! {
            let c = async { 3 };
            let d = std::future::ready(4);
        }
        assert_eq!(c.as_mut().await + d.as_mut().await, 7);
    });
}

/// The branches of one join! are polled on the calling task: inside a
/// simulation they add no tasks.
#[sim_rt::test]
async fn join_runs_its_branches_on_the_calling_task() {
    sim_rt::spawn(async {
        let here = sim_rt::task::id();
        let (a, b) = sim_rt::join!(async { sim_rt::task::id() }, async {
            sim_rt::task::yield_now().await;
            sim_rt::task::id()
        });
        assert_eq!((a, b), (here, here));
    })
    .await
    .unwrap();
}

/// The joined future has tokio's layout: the branches pinned together and
/// a poll function holding the pin and the rotation (zero-sized when
/// biased). tokio's own tests assert these sizes.
#[test]
fn join_futures_have_tokios_sizes() {
    use std::future::ready;
    use std::mem::size_of_val;

    let one = async { sim_rt::join!(ready(0i32)) };
    let two = async { sim_rt::join!(ready(0i32), ready(0i32)) };
    assert_eq!((size_of_val(&one), size_of_val(&two)), (32, 48));
    let one = async { sim_rt::join!(biased; ready(0i32)) };
    let two = async { sim_rt::join!(biased; ready(0i32), ready(0i32)) };
    assert_eq!((size_of_val(&one), size_of_val(&two)), (24, 40));

    let one = async { sim_rt::try_join!(ready(Ok::<i32, ()>(0))) };
    let two = async { sim_rt::try_join!(ready(Ok::<i32, ()>(0)), ready(Ok::<i32, ()>(0))) };
    assert_eq!((size_of_val(&one), size_of_val(&two)), (32, 48));
    let one = async { sim_rt::try_join!(biased; ready(Ok::<i32, ()>(0))) };
    let two = async { sim_rt::try_join!(biased; ready(Ok::<i32, ()>(0)), ready(Ok::<i32, ()>(0))) };
    assert_eq!((size_of_val(&one), size_of_val(&two)), (24, 40));
}
