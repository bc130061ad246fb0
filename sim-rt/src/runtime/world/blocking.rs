//! The blocking pool: `spawn_blocking` closures run on simulated threads
//! (`threads`) of the calling task's host.
//!
//! As tokio's pool: a closure goes to an idle thread if there is one, else
//! to a new thread while fewer than `max_blocking_threads` run, else it
//! waits in a queue; a thread idle for the keep-alive (10 s by default, in
//! simulated time) exits. The pool is written with std's `Mutex` and
//! `Condvar`: on simulated threads their waits are the simulation's, so the
//! pool's threads take turns, time out and are picked like any thread.
//!
//! One pool per host, made on first use: a host is a machine, and a reset
//! stops its threads with its tasks (the pool is forgotten then, and a new
//! one made at the next `spawn_blocking`). A shutdown that waits (a drop,
//! `shutdown_timeout`) first lets the pools' threads finish what they hold
//! ([`World::drain_blocking`]); when the simulation is dropped, the pools
//! are shut down before their threads are let go, so an idle thread exits.

use std::collections::VecDeque;
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

use super::threads::Runs;
use super::World;
use crate::scheduler::HostId;

/// A closure of `spawn_blocking`, wrapped to report its result.
pub(crate) type Job = Box<dyn FnOnce() + Send>;

/// tokio's default `max_blocking_threads`.
pub(crate) const MAX_BLOCKING_THREADS: usize = 512;

/// tokio's default `thread_keep_alive`.
pub(crate) const KEEP_ALIVE: Duration = Duration::from_secs(10);

/// One host's pool, shared with its threads.
pub(crate) struct Pool {
    host: HostId,
    shared: Arc<Shared>,
}

struct Shared {
    state: Mutex<State>,
    work: Condvar,
    max_threads: usize,
    keep_alive: Duration,
}

#[derive(Default)]
struct State {
    queue: VecDeque<Job>,
    /// Threads started and not exited.
    threads: usize,
    /// Threads waiting for a closure.
    idle: usize,
    /// Wake-ups sent to idle threads and not yet taken.
    notified: usize,
    shutdown: bool,
}

impl Pool {
    pub(crate) fn host(&self) -> HostId {
        self.host
    }

    /// Stops the pool: its idle threads exit when next they run, and its
    /// queue is dropped (what the threads did not take before).
    pub(crate) fn shut_down(&self) {
        let queued = {
            let mut st = lock(&self.shared.state);
            st.shutdown = true;
            std::mem::take(&mut st.queue)
        };
        self.shared.work.notify_all();
        drop(queued);
    }
}

fn lock(m: &Mutex<State>) -> std::sync::MutexGuard<'_, State> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// How many steps a shutdown waits for the blocking pools at most: tokio's
/// drop waits for ever for a closure that never returns; a simulation says
/// so and goes on.
const DRAIN_STEPS: u32 = 1_000_000;

impl World {
    /// tokio's wait for its blocking pool at a shutdown that waits (a
    /// dropped runtime; `shutdown_timeout` for `limit`): the pools stop,
    /// and a thread busy with a closure runs it, then the closures still
    /// queued, then exits, as tokio's threads do. Meanwhile the threads
    /// run (and the tasks that only await a closure's result, so that its
    /// `JoinHandle` gets it), packets arrive and the clock moves, until
    /// every pool thread has exited, nothing can happen, or `limit` of
    /// simulated time has passed. Called before the tasks are dropped.
    pub(crate) fn drain_blocking(&self, limit: Option<Duration>) {
        let pools: Vec<Arc<Shared>> = {
            let threads = self.threads.borrow();
            threads.pools.iter().map(|p| p.shared.clone()).collect()
        };
        let busy = || pools.iter().any(|p| lock(&p.state).threads > 0) || self.blocking_runnable();
        if !busy() {
            return;
        }
        for p in &pools {
            lock(&p.state).shutdown = true;
            p.work.notify_all();
        }
        let deadline = limit.map(|l| self.now().saturating_add(l));
        // The clock stops at the deadline, not past it.
        if let Some(d) = deadline {
            self.timer_insert_exact(d, std::task::Waker::noop());
        }
        let mut steps = 0;
        while busy() && deadline.is_none_or(|d| self.now() < d) {
            if steps == DRAIN_STEPS {
                eprintln!(
                    "sim_rt: the runtime's shutdown waited {DRAIN_STEPS} steps for its blocking \
                     pool's threads and goes on without them (tokio's would wait for ever): a \
                     spawn_blocking closure does not return"
                );
                break;
            }
            if !self.blocked_step(Runs::ThreadsAndBlocking) {
                break;
            }
            steps += 1;
        }
    }

    /// Whether a `spawn_blocking` task can be polled now: its closure's
    /// result came (or, where no thread could start, the task runs it).
    fn blocking_runnable(&self) -> bool {
        let core = self.core.borrow();
        core.tasks.iter().any(|(k, s)| {
            matches!(core.cold[k].origin, super::Origin::Blocking(_))
                && !s.finished
                && s.cell.is_some()
                && (s.queued || self.wakes.holds(k, s.id))
        })
    }

    /// Runs `job` on the blocking pool of `host`; hands `job` back when no
    /// thread can be started to run it.
    pub(crate) fn run_blocking(&self, host: HostId, job: Job) -> Result<(), Job> {
        let shared = {
            let mut threads = self.threads.borrow_mut();
            let pools = &mut threads.pools;
            match pools.iter().find(|p| p.host() == host) {
                Some(p) => p.shared.clone(),
                None => {
                    let (max_threads, keep_alive) = {
                        let core = self.core.borrow();
                        (core.config.max_blocking_threads, core.config.keep_alive)
                    };
                    let shared = Arc::new(Shared {
                        state: Mutex::default(),
                        work: Condvar::new(),
                        max_threads: max_threads.max(1),
                        keep_alive,
                    });
                    pools.push(Pool {
                        host,
                        shared: shared.clone(),
                    });
                    shared
                }
            }
        };
        let start = {
            let mut st = lock(&shared.state);
            st.queue.push_back(job);
            if st.idle > st.notified {
                st.notified += 1;
                shared.work.notify_one();
                false
            } else if st.threads < shared.max_threads {
                st.threads += 1;
                true
            } else {
                false
            }
        };
        if start {
            let worker = shared.clone();
            if let Err(e) = self.spawn_thread(host, move || work(&worker)) {
                let mut st = lock(&shared.state);
                st.threads -= 1;
                if st.threads == 0 {
                    // Nobody will run it: hand the closure back.
                    let job = st.queue.pop_back().expect("just queued");
                    drop(st);
                    drop(e);
                    return Err(job);
                }
            }
        }
        Ok(())
    }
}

/// A pool thread: runs closures until idle for the keep-alive, or the pool
/// is shut down.
fn work(shared: &Shared) {
    let mut st = lock(&shared.state);
    loop {
        if let Some(job) = st.queue.pop_front() {
            drop(st);
            job();
            st = lock(&shared.state);
            continue;
        }
        if st.shutdown {
            break;
        }
        st.idle += 1;
        let (guard, timeout) = shared
            .work
            .wait_timeout(st, shared.keep_alive)
            .unwrap_or_else(|e| e.into_inner());
        st = guard;
        st.idle -= 1;
        if st.notified > 0 {
            st.notified -= 1;
        } else if timeout.timed_out() && st.queue.is_empty() {
            break;
        }
    }
    st.threads -= 1;
}
