//! The door of a simulation: how threads it did not start reach it, and how
//! the thread that owns it drives it while that thread waits outside a
//! `block_on`.
//!
//! A simulation runs on the thread that built it, its *owner*. A thread
//! started outside the simulation (before it, or by the owner outside a
//! `block_on`) that calls `Handle::spawn`, `Handle::block_on`,
//! `Runtime::block_on` or `Handle::enter` is a *guest*: it knocks at the
//! door ([`visit`]), and the owner, at its next step, adopts it as a
//! simulated thread of the main host ([`World::admit_guests`]). From then
//! on it runs only when the scheduler gives it the turn, as any simulated
//! thread (`threads`); when its call returns it leaves, and runs on
//! outside the simulation.
//!
//! The owner takes knocks wherever it drives the simulation: in
//! `block_on`, while a task it polls blocks, and while it waits outside a
//! `block_on` ([`owner_wait`]): a std lock, channel or join, a sleep, a
//! `yield_now`. There it also runs what tokio's own threads would run
//! meanwhile: every simulated thread; on a multi-thread runtime, or while
//! a guest is in a `block_on` (which drives a current-thread runtime in
//! tokio), the tasks too, with the network and the clock.
//!
//! # Determinism
//!
//! A guest's knock comes when its OS thread gets there, in real time: the
//! step at which it is adopted is not chosen by the seed. A run is
//! reproducible when guests only wait (their knocks find the simulation
//! idle, at a step the program decides); a guest that races a running
//! simulation is not, and the determinism check says so. When the main
//! future of a `block_on` can go no further, and threads the owner started
//! outside the simulation while it owned it are still running, the owner
//! waits for them to knock or end (up to the watchdog's poll timeout)
//! before it reports a deadlock.

use std::cell::RefCell;
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, Weak};
use std::time::{Duration, Instant};

use super::threads::{self, SimThread};
use super::World;
use crate::runtime::context;
use crate::switches::without_interception;

/// An owner thread's part of the doors: what wakes it while it waits for
/// its simulations' guests (a knock, or the end of a thread it started
/// outside a simulation), and the guests waiting at each of its
/// simulations' doors. One per thread that ever built a simulation, found
/// by guests through [`BELLS`].
#[derive(Default)]
pub(crate) struct Bell {
    rung: Mutex<u64>,
    changed: Condvar,
    /// Threads the owner started outside a simulation, while it owned one,
    /// that still run.
    outside: AtomicUsize,
    /// Guests wait at one of `doors`: the hint the step loop reads at every
    /// step (one atomic load).
    knocked: AtomicBool,
    /// This thread's live simulations, by runtime id, with the guests
    /// waiting to be adopted by each.
    doors: Mutex<Vec<(u64, Vec<Arc<SimThread>>)>>,
}

impl Bell {
    fn ring(&self) {
        without_interception(|| {
            let mut rung = self.rung.lock().unwrap_or_else(|e| e.into_inner());
            *rung += 1;
            self.changed.notify_all();
        })
    }

    /// How many times it rang so far.
    fn count(&self) -> u64 {
        without_interception(|| *self.rung.lock().unwrap_or_else(|e| e.into_inner()))
    }

    /// Waits until it rings after `seen` rings, for at most `timeout` of
    /// real time.
    fn wait(&self, seen: u64, timeout: Duration) {
        without_interception(|| {
            let rung = self.rung.lock().unwrap_or_else(|e| e.into_inner());
            let _ = self
                .changed
                .wait_timeout_while(rung, timeout, |r| *r == seen)
                .unwrap_or_else(|e| e.into_inner());
        })
    }

    /// Whether threads started outside the simulation may still knock.
    fn outside_running(&self) -> bool {
        self.outside.load(Ordering::SeqCst) > 0
    }

    /// Runs `f` on the doors, with the knock hint brought up to date after.
    fn with_doors<R>(&self, f: impl FnOnce(&mut Vec<(u64, Vec<Arc<SimThread>>)>) -> R) -> R {
        without_interception(|| {
            let mut doors = self.doors.lock().unwrap_or_else(|e| e.into_inner());
            let out = f(&mut doors);
            let knocked = doors.iter().any(|(_, waiting)| !waiting.is_empty());
            self.knocked.store(knocked, Ordering::SeqCst);
            out
        })
    }

    /// Queues `guest` at simulation `id`'s door; false when it is gone.
    fn knock(&self, id: u64, guest: Arc<SimThread>) -> bool {
        let queued = self.with_doors(|doors| match doors.iter_mut().find(|(i, _)| *i == id) {
            Some((_, waiting)) => {
                waiting.push(guest);
                true
            }
            None => false,
        });
        if queued {
            self.ring();
        }
        queued
    }
}

thread_local! {
    /// This thread's bell, made when it first builds a simulation.
    static BELL: RefCell<Option<Arc<Bell>>> = const { RefCell::new(None) };
}

/// The bell of every thread that built a simulation (while it lives).
static BELLS: Mutex<Vec<Weak<Bell>>> = Mutex::new(Vec::new());

/// This thread's bell.
fn bell() -> Arc<Bell> {
    BELL.with(|b| {
        b.borrow_mut()
            .get_or_insert_with(|| {
                let bell = Arc::<Bell>::default();
                without_interception(|| {
                    let mut bells = BELLS.lock().unwrap_or_else(|e| e.into_inner());
                    bells.retain(|b| b.strong_count() > 0);
                    bells.push(Arc::downgrade(&bell));
                });
                bell
            })
            .clone()
    })
}

/// A thread is being started outside a simulation: when this thread owns
/// one, the returned count goes down when the new thread ends (the caller
/// calls [`outside_thread_ended`]), so that a `block_on` that would
/// deadlock waits for it first. `None` on other threads.
pub(crate) fn outside_thread_started() -> Option<Arc<Bell>> {
    if crate::switches::suspended() || !context::owns_simulations() {
        return None;
    }
    let bell = bell();
    bell.outside.fetch_add(1, Ordering::SeqCst);
    Some(bell)
}

/// A thread counted by [`outside_thread_started`] ended (or was not
/// started).
pub(crate) fn outside_thread_ended(bell: &Bell) {
    bell.outside.fetch_sub(1, Ordering::SeqCst);
    bell.ring();
}

/// A simulation's door (a field of its world): an entry in its owner
/// thread's [`Bell`], where guests from any thread find it by the
/// runtime's id. Opening one costs no allocation: a build pays a lock of
/// its own thread's bell.
pub(crate) struct Door {
    id: u64,
    /// The owner thread's bell.
    bell: Arc<Bell>,
    /// The owner gave up waiting for outside threads at a deadlock: the
    /// next one is reported.
    gave_up: std::cell::Cell<bool>,
}

impl Door {
    /// The door of simulation `id`, built on this thread (its owner).
    pub(crate) fn open(id: u64) -> Door {
        let bell = bell();
        bell.with_doors(|doors| doors.push((id, Vec::new())));
        Door {
            id,
            bell,
            gave_up: std::cell::Cell::new(false),
        }
    }

    /// Whether a guest waits to be adopted (one atomic load unless guests
    /// wait at a door of this thread: the step loop asks at every step).
    #[inline]
    pub(crate) fn knocked(&self) -> bool {
        self.bell.knocked.load(Ordering::Relaxed) && self.waiting()
    }

    fn waiting(&self) -> bool {
        let id = self.id;
        self.bell
            .with_doors(|doors| doors.iter().any(|(i, w)| *i == id && !w.is_empty()))
    }

    fn take(&self) -> Vec<Arc<SimThread>> {
        let id = self.id;
        self.bell.with_doors(|doors| {
            doors
                .iter_mut()
                .find(|(i, _)| *i == id)
                .map(|(_, waiting)| std::mem::take(waiting))
                .unwrap_or_default()
        })
    }

    /// The simulation is gone: guests waiting and to come are turned away.
    pub(crate) fn close(&self) {
        let id = self.id;
        let turned_away =
            self.bell
                .with_doors(|doors| match doors.iter().position(|(i, _)| *i == id) {
                    Some(at) => doors.swap_remove(at).1,
                    None => Vec::new(),
                });
        for guest in turned_away {
            guest.baton.release();
        }
    }
}

/// The bell of the thread that owns simulation `id`, if it lives.
fn find(id: u64) -> Option<Arc<Bell>> {
    without_interception(|| {
        let bells = BELLS.lock().unwrap_or_else(|e| e.into_inner());
        bells.iter().filter_map(Weak::upgrade).find(|bell| {
            let doors = bell.doors.lock().unwrap_or_else(|e| e.into_inner());
            doors.iter().any(|(i, _)| *i == id)
        })
    })
}

/// A guest's stay in a simulation: from its adoption to its drop, the
/// calling thread is a simulated thread of it, with the simulation
/// current while it has the turn.
pub(crate) struct Visit {
    /// The guest, held for the stay.
    _thread: Arc<SimThread>,
    /// What the thread was before (a simulated thread of another
    /// simulation holding its turn), put back at the end.
    before: Option<threads::Suspended>,
}

impl Visit {
    /// Knocks at simulation `id`'s door and waits to be adopted; `None`
    /// when the simulation is gone (or goes before adopting the caller).
    pub(crate) fn begin(id: u64) -> Option<Visit> {
        let bell = find(id)?;
        let thread = Arc::new(SimThread::guest());
        if !bell.knock(id, thread.clone()) {
            return None;
        }
        drop(bell);
        let before = threads::suspend();
        if threads::begin(&thread) {
            Some(Visit {
                _thread: thread,
                before,
            })
        } else {
            threads::resume(before);
            None
        }
    }
}

impl Drop for Visit {
    fn drop(&mut self) {
        threads::end();
        threads::resume(self.before.take());
    }
}

/// Runs `f` in simulation `id` as a guest of it (see the module docs);
/// `None` when the simulation is gone.
pub(crate) fn visit<R>(id: u64, f: impl FnOnce(&Rc<World>) -> R) -> Option<R> {
    let visit = Visit::begin(id)?;
    let world = context::current();
    let out = f(&world);
    drop(world);
    drop(visit);
    Some(out)
}

impl World {
    /// Adopts the guests waiting at the door: each becomes a simulated
    /// thread of the main host, whose thread task gives it its first turn.
    pub(crate) fn admit_guests(&self) {
        if self.core.borrow().failed {
            // A failed simulation runs nothing more: turned away.
            for guest in self.door.take() {
                guest.baton.release();
            }
            return;
        }
        for guest in self.door.take() {
            self.core.borrow_mut().trace.note_guest();
            self.adopt_thread(guest);
        }
    }

    /// Whether the main future of a `block_on`, which can go no further,
    /// should wait for a knock rather than be reported deadlocked: threads
    /// started outside the simulation still run and the owner has not
    /// given up on them yet.
    pub(super) fn may_knock(&self) -> bool {
        self.door.bell.outside_running() && !self.door.gave_up.get()
    }

    /// Waits, for real, until a guest knocks or a thread started outside
    /// ends, for at most the watchdog's poll timeout; gives up (the next
    /// deadlock is reported) if neither happens.
    pub(super) fn wait_for_knock(&self) {
        let limit =
            crate::runtime::watchdog::limit().unwrap_or(crate::runtime::watchdog::DEFAULT_LIMIT);
        let began = Instant::now();
        let bell = self.door.bell.clone();
        loop {
            let seen = bell.count();
            if self.door.knocked() || !bell.outside_running() {
                return;
            }
            let left = limit.saturating_sub(began.elapsed());
            if left.is_zero() {
                self.door.gave_up.set(true);
                return;
            }
            bell.wait(seen, left.min(Duration::from_millis(100)));
        }
    }

    /// Whether, outside a `block_on`, the owner thread runs tasks (not
    /// only threads) while it waits: on a multi-thread runtime, whose
    /// workers tokio runs in the background, or while a guest is in a
    /// `block_on` (which drives a current-thread runtime in tokio).
    fn tasks_run_outside(&self) -> bool {
        self.guests_blocking.get() > 0 || self.core.borrow().config.tasks_run_in_background()
    }

    /// Drives this simulation from its owner thread outside a `block_on`,
    /// until `done`, or until nothing can run and nothing is due, or for
    /// `steps` steps at most.
    fn drive_outside(self: &Rc<Self>, done: &dyn Fn(&World) -> bool, mut steps: usize) {
        if self.core.try_borrow_mut().is_err() || self.driven.get() {
            return;
        }
        let _enter = context::enter(self.clone());
        let _driving = context::drive();
        while steps > 0 && !done(self) {
            steps -= 1;
            if self.door.knocked() {
                self.admit_guests();
            }
            if !self.tasks_run_outside() {
                // Threads only (and the clock for their sleeps).
                let _ = self.run_blocked(&|w| done(w) || w.door.knocked(), false);
                if !self.door.knocked() {
                    break;
                }
                continue;
            }
            self.outside.set(true);
            let next = self.next_event();
            self.outside.set(false);
            match next {
                Ok(super::Next::Idle) => break,
                Ok(super::Next::Main) => {}
                Ok(next) => self.dispatch(next),
                Err(failure) => {
                    // Reported by the next `block_on`.
                    self.core.borrow_mut().failure = Some(*failure);
                    break;
                }
            }
        }
    }
}

/// How long the owner thread waits for real at a time while its
/// simulations may get knocks.
const SLICE: Duration = Duration::from_millis(1);

/// What the owner thread waits for, outside a `block_on`.
pub(crate) enum Wait<'a> {
    /// A futex word to change from its value.
    Futex(&'a AtomicU32, u32),
    /// A sleep of this long: over when this much simulated time passed in
    /// a simulation that runs, or this much real time.
    Sleep(Duration),
    /// `sched_yield`: one round of what can run.
    Yield,
    /// Another real wait (a join), tried a slice at a time.
    Other,
}

/// How an owner thread's wait ended.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Waited {
    /// What it waited for happened.
    Done,
    /// Its deadline passed first.
    TimedOut,
}

/// Whether this thread, outside any simulation, owns simulations it drives
/// while it blocks (see the module docs): what the interposed blocking
/// calls ask first (thread-local reads).
#[inline]
pub(crate) fn owner_may_drive() -> bool {
    context::owns_simulations()
        && !context::driving()
        && !crate::switches::suspended()
        && context::try_current_quiet().is_none()
}

/// An owner thread's wait outside a `block_on` (see the module docs):
/// drives its simulations while `wait` is not over, and waits for real in
/// slices meanwhile (`real` waits at most the slice it is given, and
/// returns true when the real wait ended: a wake, a join), until it is
/// over or `deadline` (real time) passes.
///
/// A simulation whose tasks run meanwhile runs them on its [`Worker`],
/// while this thread really waits: a task that wakes this thread (a std
/// channel's send, a `Condvar` notify) does so from another thread, as on
/// tokio (std's channels do not wake a receiver from its own thread). One
/// that runs only threads is driven from here between slices.
pub(crate) fn owner_wait(
    wait: Wait<'_>,
    deadline: Option<Instant>,
    real: &mut dyn FnMut(Duration) -> bool,
) -> Waited {
    let worlds = context::owned_simulations();
    check_spin(&wait, &worlds);
    let starts: Vec<Duration> = worlds.iter().map(|w| w.now()).collect();
    let deadline = match wait {
        Wait::Sleep(d) => Some(Instant::now() + d),
        _ => deadline,
    };
    let word_changed = || match wait {
        Wait::Futex(word, val) => word.load(Ordering::SeqCst) != val,
        _ => false,
    };
    // The simulations whose worker runs now.
    let mut working = vec![false; worlds.len()];
    // The simulations whose worker ran in this wait.
    let mut worked = vec![false; worlds.len()];
    let waited = loop {
        let mut reached = false;
        for (i, world) in worlds.iter().enumerate() {
            if working[i] {
                match world.worker_finished() {
                    Some(r) => {
                        working[i] = false;
                        reached |= r;
                    }
                    None => continue,
                }
            }
            let until = match wait {
                Wait::Sleep(d) => Some(starts[i] + d),
                _ => None,
            };
            let steps = match wait {
                Wait::Yield => world
                    .core
                    .try_borrow()
                    .map_or(0, |c| c.enabled.len().max(1)),
                _ => usize::MAX,
            };
            if world.tasks_run_outside() {
                // Again once it went idle only when a guest knocked, or
                // something woke one of its tasks (another simulation's
                // task, a thread outside).
                if !worked[i] || world.door.knocked() || world.wakes.any() {
                    world.worker_start(steps, until);
                    working[i] = true;
                    worked[i] = true;
                }
            } else {
                let done = |w: &World| word_changed() || until.is_some_and(|u| w.now() >= u);
                world.drive_outside(&done, steps);
                reached |= until.is_some_and(|u| world.now() >= u);
            }
        }
        if matches!(wait, Wait::Yield) {
            for (i, world) in worlds.iter().enumerate() {
                if working[i] {
                    world.worker_wait();
                    working[i] = false;
                }
            }
            break Waited::Done;
        }
        if reached || word_changed() {
            break Waited::Done;
        }
        let slice = match deadline {
            Some(d) => {
                let left = d.saturating_duration_since(Instant::now());
                if left.is_zero() {
                    break match wait {
                        Wait::Sleep(_) => Waited::Done,
                        _ => Waited::TimedOut,
                    };
                }
                left.min(SLICE)
            }
            None => SLICE,
        };
        if real(slice) {
            break Waited::Done;
        }
    };
    for (i, world) in worlds.iter().enumerate() {
        if working[i] {
            world.worker_stop();
        }
    }
    waited
}

thread_local! {
    /// When this owner thread began a run of `yield_now`s with no other
    /// wait between them.
    static SPINNING_SINCE: std::cell::Cell<Option<Instant>> =
        const { std::cell::Cell::new(None) };
}

/// Ends the process with a report when the owner thread has spun on
/// `yield_now` for longer than the watchdog's limit (`SIM_POLL_TIMEOUT`):
/// the spin waits for something its simulations' tasks, which run at each
/// yield, have not done in all that time (tokio's internal tuning, say),
/// and would never end. Any other wait ends the run of yields.
fn check_spin(wait: &Wait<'_>, worlds: &[Rc<World>]) {
    if !matches!(wait, Wait::Yield) {
        SPINNING_SINCE.with(|s| s.set(None));
        return;
    }
    let since = SPINNING_SINCE.with(|s| {
        let since = s.get().unwrap_or_else(Instant::now);
        s.set(Some(since));
        since
    });
    let Some(limit) = crate::runtime::watchdog::limit() else {
        return;
    };
    let spun = since.elapsed();
    if spun <= limit {
        return;
    }
    let seed = worlds.first().map_or(0, |w| w.seed());
    let thread = std::thread::current();
    let name = thread.name().map_or(String::new(), |n| format!(" ({n})"));
    eprintln!(
        "\nsim_rt: the thread{name} that owns a simulation has spun in yield_now (a loop of \
         std::thread::yield_now or sched_yield outside block_on) for {spun:.1?} of real time. At \
         each yield the simulation's tasks run, and they have not done what the loop waits for: \
         it would never end (a condition only real threads' timing meets, such as tokio's \
         internal scheduling, cannot be met in a simulation). Wait on a tokio::sync channel or a \
         JoinHandle inside block_on instead.\n  reproduce: {}\n  (SIM_POLL_TIMEOUT sets this \
         limit in seconds, 0 turns it off.) Ending the process.\n",
        crate::runtime::failure::reproduce_line(seed)
    );
    std::process::exit(101);
}

/// A simulation's worker: the OS thread that runs its tasks while its
/// owner thread waits outside a `block_on` (see [`owner_wait`]). It touches
/// the simulation only between [`World::worker_start`] and the owner's
/// [`World::worker_stop`] (or `worker_wait`), while the owner does not.
pub(crate) struct Worker {
    shared: Arc<WorkerShared>,
}

struct WorkerShared {
    job: Mutex<Job>,
    changed: Condvar,
    /// The owner asks the drive to end after its current step.
    stop: AtomicBool,
}

enum Job {
    /// Nothing to do.
    Waiting,
    /// Drive the simulation for at most `steps` steps, or until its clock
    /// reaches `until`.
    Run {
        world: threads::OnTurn<Rc<World>>,
        steps: usize,
        until: Option<Duration>,
    },
    /// Driving now.
    Running,
    /// The drive ended; `reached`: at `until`.
    Finished { reached: bool },
    /// The simulation is gone.
    Quit,
}

impl WorkerShared {
    fn lock(&self) -> std::sync::MutexGuard<'_, Job> {
        self.job.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The worker thread's life.
    fn work(&self) {
        loop {
            let job = without_interception(|| {
                let mut job = self.lock();
                loop {
                    match std::mem::replace(&mut *job, Job::Running) {
                        Job::Run {
                            world,
                            steps,
                            until,
                        } => return Some((world.into_inner(), steps, until)),
                        Job::Quit => return None,
                        other => *job = other,
                    }
                    job = self.changed.wait(job).unwrap_or_else(|e| e.into_inner());
                }
            });
            let Some((world, steps, until)) = job else {
                return;
            };
            let done =
                |w: &World| self.stop.load(Ordering::SeqCst) || until.is_some_and(|u| w.now() >= u);
            let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                world.drive_outside(&done, steps)
            }));
            let reached = until.is_some_and(|u| world.now() >= u);
            drop(world);
            without_interception(|| {
                let mut job = self.lock();
                *job = Job::Finished { reached };
                self.changed.notify_all();
            });
        }
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        without_interception(|| {
            *self.shared.lock() = Job::Quit;
            self.shared.changed.notify_all();
        });
    }
}

impl World {
    /// Starts a drive of this simulation on its worker (made on first
    /// use): at most `steps` steps, or until the clock reaches `until`.
    fn worker_start(self: &Rc<Self>, steps: usize, until: Option<Duration>) {
        let mut slot = self.worker.borrow_mut();
        if slot.is_none() {
            let shared = Arc::new(WorkerShared {
                job: Mutex::new(Job::Waiting),
                changed: Condvar::new(),
                stop: AtomicBool::new(false),
            });
            let theirs = shared.clone();
            // Reports made on the worker (a relief's, say) name the owner's
            // test, not the worker thread.
            let line: Arc<str> = crate::runtime::watchdog::line_here(self.seed()).into();
            let started = without_interception(|| {
                std::thread::Builder::new()
                    .name("tokio-runtime-worker".to_string())
                    .spawn(move || {
                        crate::runtime::watchdog::set_line(Some(line));
                        theirs.work()
                    })
            });
            if started.is_err() {
                return;
            }
            *slot = Some(Worker { shared });
        }
        let Some(worker) = slot.as_ref() else { return };
        worker.shared.stop.store(false, Ordering::SeqCst);
        without_interception(|| {
            *worker.shared.lock() = Job::Run {
                world: threads::OnTurn::new(self.clone()),
                steps,
                until,
            };
            worker.shared.changed.notify_all();
        });
    }

    /// Whether the worker's drive ended (`Some(reached until)`), without
    /// waiting.
    fn worker_finished(&self) -> Option<bool> {
        let worker = self.worker.try_borrow().ok()?;
        // Never started (no thread could be made): nothing runs.
        let Some(worker) = worker.as_ref() else {
            return Some(false);
        };
        without_interception(|| match &*worker.shared.lock() {
            Job::Finished { reached } => Some(*reached),
            Job::Waiting => Some(false),
            _ => None,
        })
    }

    /// Waits until the worker's drive ends.
    fn worker_wait(&self) {
        let Ok(worker) = self.worker.try_borrow() else {
            return;
        };
        let Some(worker) = worker.as_ref() else {
            return;
        };
        without_interception(|| {
            let mut job = worker.shared.lock();
            while matches!(&*job, Job::Run { .. } | Job::Running) {
                job = worker
                    .shared
                    .changed
                    .wait(job)
                    .unwrap_or_else(|e| e.into_inner());
            }
            *job = Job::Waiting;
        })
    }

    /// Ends the worker's drive after its current step, and waits for it.
    fn worker_stop(&self) {
        if let Ok(worker) = self.worker.try_borrow() {
            if let Some(worker) = worker.as_ref() {
                worker.shared.stop.store(true, Ordering::SeqCst);
            }
        }
        self.worker_wait();
    }
}
