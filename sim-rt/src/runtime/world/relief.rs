//! `block_in_place` on a multi-thread runtime: the thread that drives the
//! simulation hands the drive to a *relief* thread while the closure runs.
//!
//! tokio's `block_in_place` hands the worker's core to another thread and
//! runs the closure on the calling thread, as a blocking thread. Here the
//! thread that drives the simulation calls it inside a poll (of a task, or
//! of the main future of a `block_on`), so the rest of the simulation sits
//! on its stack. For the closure's run that thread becomes a simulated
//! thread of the polled task's host (`threads`): its blocking calls give
//! the turn away and are the scheduler's choice points, as any simulated
//! thread's. A relief thread, started for the call, drives the simulation
//! meanwhile: the other tasks, the threads (this one among them), the
//! deliveries and the clock.
//!
//! The relief cannot poll what is on the calling thread's stack: the task
//! in place and the main future of the `block_on` beneath it. When it picks
//! one, the pick is a step that runs nothing, and the wake is kept: it is
//! made again when the closure returns (the main future's once no relief
//! runs). When the closure returns, the calling thread gives up its turn as
//! a thread ending; the relief stops at its next step and ends, and the
//! calling thread drives again from inside the poll it left. A task the
//! relief polls may call `block_in_place` in turn: its own relief drives
//! until it returns, and the calls end in the reverse order they began
//! (an outer call whose closure returned first waits for the drive).
//!
//! Every hand-over happens at a step, in an order the scheduler's choices
//! fix: a run with a relief replays as any other.

use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use super::threads::{self, OnTurn, SimThread};
use super::{Current, Next, World, MAIN_KEY};
use crate::runtime::context;
use crate::runtime::watchdog;
use crate::switches::without_interception;

/// What the reliefs of a simulation share (a field of the world).
#[derive(Default)]
pub(crate) struct Reliefs {
    /// The keys of the tasks whose poll is in a `block_in_place` now.
    in_place: Vec<usize>,
    /// Tasks in place (and [`MAIN_KEY`]) a relief picked and could not
    /// poll: woken again when they can be.
    deferred: Vec<usize>,
    /// How many reliefs drive now.
    depth: u32,
    /// The line that reproduces the run, made on the thread beneath the
    /// first relief (a relief's own thread is not the test's).
    line: Option<Arc<str>>,
}

impl World {
    /// Whether `block_in_place`, called by the thread driving this
    /// simulation, hands the drive over: on a multi-thread runtime, inside
    /// a poll, where threads can be simulated.
    pub(crate) fn relieves_in_place(&self) -> bool {
        crate::switches::SUPPORTED
            && self.core.try_borrow().is_ok_and(|c| {
                c.config.tasks_run_in_background() && c.current.is_some() && !c.failed
            })
    }

    /// Runs `f` as `block_in_place` does on a multi-thread runtime (see the
    /// module docs): the calling thread, which drives this simulation
    /// inside a poll, runs `f` as a simulated thread while a relief thread
    /// drives. Falls back to running `f` in place when no thread can be
    /// started.
    pub(crate) fn relieve<R>(self: &Rc<Self>, f: impl FnOnce() -> R) -> R {
        let Some(outer) = self.core.borrow().current else {
            return f();
        };
        let key = self.key_of(outer);
        // A thread of the polled task's host, whose thread task the relief
        // runs.
        let thread = self.start_thread();
        {
            let mut reliefs = self.reliefs.borrow_mut();
            if reliefs.depth == 0 {
                reliefs.line = Some(watchdog::line_here(self.seed()).into());
            }
            reliefs.depth += 1;
            reliefs.in_place.extend(key);
        }
        let done = Arc::new(AtomicBool::new(false));
        // The relief touches the world from its start: this thread does
        // not until its turn.
        let relief = {
            let world = OnTurn::new(self.clone());
            let done = done.clone();
            let relieved = thread.clone();
            without_interception(|| {
                std::thread::Builder::new()
                    .name("tokio-runtime-worker".to_string())
                    .spawn(move || {
                        let world = world.into_inner();
                        let failed = world.drive_relief(&done);
                        // Nothing of the simulation is touched from here on.
                        drop(world);
                        if let Some(report) = failed {
                            give_up(&report, &done, &relieved);
                        }
                    })
            })
        };
        let relief = match relief {
            Ok(relief) => relief,
            Err(_) => {
                self.thread_failed(thread.number());
                let mut reliefs = self.reliefs.borrow_mut();
                reliefs.depth -= 1;
                if key.is_some() {
                    reliefs.in_place.pop();
                }
                drop(reliefs);
                return f();
            }
        };
        // From here on this thread touches the world only during its turns,
        // as the simulated thread `thread`.
        let out = if threads::begin(&thread) {
            let out = catch_unwind(AssertUnwindSafe(f));
            done.store(true, Ordering::SeqCst);
            threads::end();
            out
        } else {
            // The simulation failed before the first turn (the relief let
            // the thread go, see `give_up`): `f` runs outside it.
            done.store(true, Ordering::SeqCst);
            catch_unwind(AssertUnwindSafe(f))
        };
        let _ = without_interception(|| relief.join());
        self.resume_in_place(outer, key);
        match out {
            Ok(out) => out,
            Err(payload) => resume_unwind(payload),
        }
    }

    /// The slab key of the task `current` is (`None` for the main future).
    fn key_of(&self, current: Current) -> Option<usize> {
        let core = self.core.borrow();
        if core.main.as_ref().is_some_and(|m| m.id == current.id) {
            return None;
        }
        core.tasks
            .iter()
            .find(|(_, t)| t.id == current.id)
            .map(|(k, _)| k)
    }

    /// The drive is back on the thread whose poll of `outer` (at `key`)
    /// went into `block_in_place`: the poll goes on, and the wakes a relief
    /// kept for it (and for the main future, once no relief drives) are
    /// made again.
    fn resume_in_place(&self, outer: Current, key: Option<usize>) {
        let (task, main) = {
            let mut reliefs = self.reliefs.borrow_mut();
            reliefs.depth -= 1;
            if let Some(key) = key {
                if let Some(at) = reliefs.in_place.iter().rposition(|&k| k == key) {
                    reliefs.in_place.remove(at);
                }
            }
            let last = reliefs.depth == 0;
            let deferred = &mut reliefs.deferred;
            let mut take = |k: usize| match deferred.iter().position(|&d| d == k) {
                Some(at) => {
                    deferred.swap_remove(at);
                    true
                }
                None => false,
            };
            let task = key.filter(|&k| take(k));
            let main = last && take(MAIN_KEY);
            (task, main)
        };
        if let Some(key) = task {
            let id = {
                let mut core = self.core.borrow_mut();
                let slot = &mut core.tasks[key];
                slot.queued = false;
                slot.id
            };
            self.wake(key, id);
        }
        if main {
            let id = {
                let mut core = self.core.borrow_mut();
                core.main.as_mut().map(|m| {
                    m.queued = false;
                    m.id
                })
            };
            if let Some(id) = id {
                self.wake(MAIN_KEY, id);
            }
        }
        self.set_running(Some(outer));
        self.watch.begin(
            outer.id.as_u64(),
            outer.host.index() as u32,
            watchdog::Kind::Spawn,
            None,
        );
    }

    /// A relief thread's life: drives the simulation, step by step, until
    /// `done` (the closure in place returned). Returns the failure's report
    /// when the simulation failed first (a deadlock, a limit), kept for the
    /// `block_on` beneath.
    fn drive_relief(self: &Rc<Self>, done: &AtomicBool) -> Option<String> {
        let _enter = context::enter(self.clone());
        let _driving = context::drive();
        while !done.load(Ordering::SeqCst) {
            if self.door.knocked() {
                self.admit_guests();
            }
            if self.injecting {
                self.inject_fault();
            }
            self.park_hooks();
            match self.next_event() {
                Ok(Next::Main) => self.reliefs.borrow_mut().deferred.push(MAIN_KEY),
                Ok(Next::Task(key)) if self.reliefs.borrow().in_place.contains(&key) => {
                    self.reliefs.borrow_mut().deferred.push(key)
                }
                Ok(Next::Idle) => self.wait_for_knock(),
                Ok(next) => self.dispatch(next),
                Err(failure) => {
                    let line = self.reliefs.borrow().line.clone();
                    let report = format!(
                        "{failure}\n  reproduce: {}",
                        line.as_deref().unwrap_or("(unknown)")
                    );
                    self.core.borrow_mut().failure = Some(*failure);
                    return Some(report);
                }
            }
        }
        None
    }
}

/// The simulation failed while a relief drove it: lets the thread in place
/// go (its blocking call returns, and it runs on outside the simulation,
/// so that the `block_on` beneath reports the failure once the closure
/// returns); if the closure does not return within the watchdog's limit,
/// reports the failure and ends the process, as the watchdog does for a
/// poll that never returns.
fn give_up(report: &str, done: &AtomicBool, relieved: &SimThread) {
    relieved.baton.release();
    // Off (`SIM_POLL_TIMEOUT=0`): as a poll that never returns.
    let Some(limit) = watchdog::limit() else {
        return;
    };
    let began = std::time::Instant::now();
    while began.elapsed() < limit {
        if done.load(Ordering::SeqCst) {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    eprintln!(
        "\nsim_rt: the simulation failed while a block_in_place closure blocked in it, and the \
         closure has not returned in {limit:.1?} of real time since (it waits for something only \
         the failed simulation would have done). Ending the process.\n{report}"
    );
    std::process::exit(101);
}
