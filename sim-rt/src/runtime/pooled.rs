//! A thread kept to run one harness's simulations on, one after another,
//! while the simulations leave nothing behind on it that would make the
//! next one differ from its replay (`__private::on_clean_thread`).
//!
//! Per-thread generators seed themselves from the OS once per thread and
//! keep what they drew: std's `RandomState` keys, `rand`'s thread
//! generator. Drawn inside a simulation, the seed comes from the
//! simulation's entropy stream, but it stays with the thread: the next
//! simulation on it would start from the first's draws, where its replay
//! (on a fresh thread) starts from its own. So a thread is kept while no
//! OS randomness was asked for on it ([`take_entropy_drawn`], marked by
//! the interposed `getrandom`, `getentropy` and `syscall(SYS_getrandom)`),
//! and retired after the first simulation that did; a build that cannot
//! tell (no interception: `take_entropy_drawn` is `None`) retires it after
//! every simulation, so each gets a fresh thread.
//!
//! # Invariants
//!
//! - A job borrows from the frame of the `on_clean_thread` call that sent
//!   it; that frame returns only after the pooled thread said the job is
//!   over, or after the thread was joined.
//! - At most one pooled thread per calling thread, kept in `POOL` only
//!   while clean.
//! - Before each job, what sim_rt itself keeps per thread across
//!   simulations (the reserved task ids of `LocalSet` spawns made outside
//!   a runtime, the last simulated time read) is as a fresh thread has it.
//!
//! [`take_entropy_drawn`]: crate::switches::take_entropy_drawn

use std::cell::RefCell;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::sync::mpsc::{channel, Receiver, Sender};
use std::thread::JoinHandle;

use crate::switches::take_entropy_drawn;

/// A job, its borrows' lifetime erased (see the invariants).
type Job = Box<dyn FnOnce() + Send + 'static>;

/// A thread kept to run simulations on while it is clean.
struct Pooled {
    jobs: Option<Sender<Job>>,
    /// After each job: whether the thread is still clean.
    done: Receiver<bool>,
    thread: Option<JoinHandle<()>>,
}

thread_local! {
    /// This thread's pooled thread, while it is clean.
    static POOL: RefCell<Option<Pooled>> = const { RefCell::new(None) };
}

impl Pooled {
    /// A new thread of `stack` bytes, named as the calling one (libtest
    /// names a test's thread after the test, and reproduce lines read it).
    fn start(stack: usize) -> Pooled {
        let (jobs, queue) = channel::<Job>();
        let (report, done) = channel();
        let mut builder = std::thread::Builder::new().stack_size(stack);
        if let Some(name) = std::thread::current().name() {
            builder = builder.name(name.to_string());
        }
        let thread = builder
            .spawn(move || {
                // Whatever the thread's start drew is not a simulation's.
                let _ = take_entropy_drawn();
                while let Ok(job) = queue.recv() {
                    // What sim_rt itself keeps per thread between
                    // simulations, as a fresh thread has it.
                    crate::task::deferred::reset_thread_ids();
                    crate::intercept::reset_thread_clock();
                    job();
                    let clean = take_entropy_drawn() == Some(false);
                    if report.send(clean).is_err() || !clean {
                        break;
                    }
                }
            })
            .unwrap_or_else(|e| {
                panic!("sim_rt: could not start a thread to run simulations on: {e}")
            });
        Pooled {
            jobs: Some(jobs),
            done,
            thread: Some(thread),
        }
    }
}

impl Drop for Pooled {
    fn drop(&mut self) {
        // No more jobs: the thread's loop ends; wait for it.
        self.jobs = None;
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// Runs `f` on this thread's pooled thread (started with `stack` bytes
/// when there is none, or when the last one was retired); see the module
/// docs. A panic in `f` continues in the caller with the same payload.
pub(crate) fn on_clean_thread<R: Send>(stack: usize, f: impl FnOnce() -> R + Send) -> R {
    let pooled = POOL
        .with(|p| p.borrow_mut().take())
        .unwrap_or_else(|| Pooled::start(stack));
    let mut slot: Option<std::thread::Result<R>> = None;
    let out = &mut slot;
    let job: Box<dyn FnOnce() + Send + '_> = Box::new(move || {
        *out = Some(catch_unwind(AssertUnwindSafe(f)));
    });
    // SAFETY: the job borrows `f` and `slot` from this frame, and this
    // frame does not end before the pooled thread reported the job over
    // (`done`), or, when it cannot report, was joined by `pooled`'s drop
    // below: no borrow outlives the frame. Only the lifetime changes.
    #[allow(unsafe_code)]
    let job: Job = unsafe { std::mem::transmute::<Box<dyn FnOnce() + Send + '_>, Job>(job) };
    let clean = match pooled.jobs.as_ref().map(|j| j.send(job)) {
        Some(Ok(())) => pooled.done.recv().ok(),
        _ => None,
    };
    match clean {
        Some(true) => POOL.with(|p| *p.borrow_mut() = Some(pooled)),
        // Retired, or gone: joined here, before the frame ends.
        _ => drop(pooled),
    }
    match slot {
        Some(Ok(r)) => r,
        Some(Err(payload)) => resume_unwind(payload),
        None => panic!("sim_rt: the thread running a simulation ended without running it"),
    }
}
