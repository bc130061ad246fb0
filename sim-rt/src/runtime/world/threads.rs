//! Simulated threads: real OS threads that run one at a time, when the
//! scheduler gives them the turn.
//!
//! Inside a simulation, `pthread_create` (`std::thread::spawn`) starts a
//! real OS thread that belongs to the calling task's host and is driven by
//! a task of that host, its *thread task* (this module's [`ThreadTask`]).
//! Polling the thread task hands the OS thread the turn and waits until it
//! gives the turn back; meanwhile the thread runs the program's code with
//! the simulation current on it, as a task's poll would. It gives the turn
//! back wherever it would block ([`Op`]): a futex wait (std's `Mutex`,
//! `Condvar`, channels, `park`, crossbeam and parking_lot through them), a
//! sleep, `sched_yield`, a join, a `block_on`, and its exit. The thread
//! task then waits for that, as a future: a futex wake, a simulated timer,
//! another thread's exit, a waker. So which thread or task runs next is the
//! scheduler's pick among runnable tasks, a choice point like any other,
//! and replay, the story and the failure report see threads as tasks (of
//! origin "std thread N").
//!
//! The turn passes through a [`Baton`] (a std `Mutex` and `Condvar`, used
//! with interception off): the owner thread (the one polling the thread
//! task) and the simulated thread never run at the same time, and each
//! hand-over is a happens-before edge, so the world's state (`Rc`s,
//! `RefCell`s) is touched by one thread at a time.
//!
//! When a task on the owner thread itself blocks (a std lock or channel
//! shared with a thread, a join), [`World::block_owner`] runs the
//! runnable threads, and moves the clock, until it may go on: what a
//! current-thread tokio runtime's worker sees while it blocks and the
//! other threads run.
//!
//! # The end of a thread
//!
//! A host reset, an abort or the end of the simulation drops the thread
//! task: the thread then never gets the turn again in the simulation (it is
//! stopped, with its host's tasks). When the simulation itself is dropped,
//! every thread still blocked in it is let go: its blocking call returns as
//! a spurious wake-up would, and it continues outside the simulation, with
//! interception off, as a real thread that outlives a tokio runtime does. A
//! thread that then waits forever stays, as it would under tokio.
//!
//! # Invariants
//!
//! - At most one of the owner thread and a simulated thread runs program
//!   code of a simulation at a time; the other waits on the baton.
//! - A simulated thread holds an `Rc<World>` only during its turn.

use std::cell::{Cell, RefCell};
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::sync::{Arc, Condvar, Mutex};
use std::task::{Context, Poll, Waker};
use std::time::Duration;

use rustc_hash::FxHashMap;

use super::World;
use crate::runtime::context;
use crate::scheduler::HostId;

/// Where a simulated thread blocked: what its thread task waits for before
/// giving it the turn again.
#[derive(Debug)]
pub(crate) enum Op {
    /// `futex(FUTEX_WAIT..)` on `addr`, the value checked: until a wake of
    /// `addr` matching `bitset`, or the simulated clock reaching `deadline`
    /// (then [`TIMED_OUT`]).
    FutexWait {
        addr: usize,
        bitset: u32,
        deadline: Option<Duration>,
    },
    /// A sleep, until the simulated clock reaches the instant.
    Sleep(Duration),
    /// `sched_yield`: behind every runnable task, as `yield_now`.
    Yield,
    /// A join of thread number `thread`: until it exits.
    Join(u32),
    /// A blocking socket or pipe call, or a `poll`: until one of the
    /// model's endpoints in `wants` is ready for its readiness (or gone),
    /// or the clock reaches `deadline` (then [`TIMED_OUT`]):
    /// `SO_RCVTIMEO`/`SO_SNDTIMEO`, `poll`'s timeout.
    Ready {
        wants: Vec<(sim_net::Endpoint, sim_net::Readiness)>,
        deadline: Option<Duration>,
    },
    /// A `block_on`'s future is pending: until a waker of the turn wakes
    /// the thread task.
    Park,
    /// The thread's start routine returned.
    Exit,
}

/// What the owner thread hands a simulated thread with the turn.
pub(crate) enum Resume {
    /// Go on: the result of the blocking call, the simulation to make
    /// current, and the waker of the thread task.
    Go {
        result: i64,
        world: OnTurn<Rc<World>>,
        waker: Waker,
    },
    /// The simulation is gone: go on outside it.
    Release,
}

/// A value passed with the turn between threads: `Rc<World>` is not
/// `Send`, and needs not be, since the two threads never run at once.
pub(crate) struct OnTurn<T>(T);

impl<T> OnTurn<T> {
    /// Wraps a value to hand over with the turn.
    pub(crate) fn new(value: T) -> OnTurn<T> {
        OnTurn(value)
    }

    /// The value, on the thread that now has the turn.
    pub(crate) fn into_inner(self) -> T {
        self.0
    }
}

// SAFETY: an `OnTurn` is created by the thread that has the turn and
// handed over the baton, whose mutex orders every use of the value on the
// giving thread before every use on the receiving one; the giver never
// touches the world again until it gets the turn back (the module's
// invariants).
#[allow(unsafe_code)]
unsafe impl<T> Send for OnTurn<T> {}

enum Turn {
    /// The owner thread runs (and, when `Some`, the thread said why it
    /// gave the turn back).
    Owner(Option<Op>),
    /// The simulated thread runs.
    Thread(Resume),
}

/// The turn between the owner thread and one simulated thread.
pub(crate) struct Baton {
    turn: Mutex<Turn>,
    changed: Condvar,
}

impl Baton {
    pub(crate) fn new() -> Baton {
        Baton {
            turn: Mutex::new(Turn::Owner(None)),
            changed: Condvar::new(),
        }
    }

    /// Owner side: gives the thread the turn with `resume`, and waits until
    /// it gives it back.
    fn run(&self, resume: Resume) -> Op {
        crate::switches::without_interception(|| {
            let mut turn = self.turn.lock().unwrap_or_else(|e| e.into_inner());
            *turn = Turn::Thread(resume);
            self.changed.notify_all();
            loop {
                if let Turn::Owner(op) = &mut *turn {
                    if let Some(op) = op.take() {
                        return op;
                    }
                }
                turn = self.changed.wait(turn).unwrap_or_else(|e| e.into_inner());
            }
        })
    }

    /// Owner side: lets the thread go (the simulation is gone), without
    /// waiting for it.
    pub(crate) fn release(&self) {
        crate::switches::without_interception(|| {
            let mut turn = self.turn.lock().unwrap_or_else(|e| e.into_inner());
            if let Turn::Owner(_) = &*turn {
                *turn = Turn::Thread(Resume::Release);
                self.changed.notify_all();
            }
        })
    }

    /// Thread side: gives the turn back (`op` says why; `None` before the
    /// first turn) and waits for the next one.
    pub(crate) fn give_back(&self, op: Option<Op>) -> Resume {
        crate::switches::without_interception(|| {
            let mut turn = self.turn.lock().unwrap_or_else(|e| e.into_inner());
            if let Some(op) = op {
                *turn = Turn::Owner(Some(op));
                self.changed.notify_all();
            }
            loop {
                if let Turn::Thread(_) = &*turn {
                    let Turn::Thread(resume) = std::mem::replace(&mut *turn, Turn::Owner(None))
                    else {
                        unreachable!("just matched")
                    };
                    return resume;
                }
                turn = self.changed.wait(turn).unwrap_or_else(|e| e.into_inner());
            }
        })
    }
}

/// One simulated thread, shared by its OS thread and the simulation.
pub(crate) struct SimThread {
    /// Its number in its simulation, from 1 in the order threads were
    /// started (or adopted: 0 until then).
    number: std::sync::atomic::AtomicU32,
    pub(crate) baton: Baton,
}

impl SimThread {
    /// A thread outside the simulation that asks to be adopted (`door`).
    pub(crate) fn guest() -> SimThread {
        SimThread {
            number: std::sync::atomic::AtomicU32::new(0),
            baton: Baton::new(),
        }
    }

    /// Its number in its simulation.
    pub(crate) fn number(&self) -> u32 {
        self.number.load(std::sync::atomic::Ordering::Relaxed)
    }
}

/// What a simulation knows of its threads (a field of the world).
#[derive(Default)]
pub(crate) struct Threads {
    /// Every thread started, by number - 1.
    list: Vec<Entry>,
    /// The threads (and owner-thread waits) waiting on each futex address,
    /// in the order they began waiting. Looked up, never iterated.
    futexes: FxHashMap<usize, Vec<Rc<Waiter>>>,
    /// The hosts' blocking pools (`blocking`), made on first use.
    pub(super) pools: Vec<super::blocking::Pool>,
}

struct Entry {
    thread: Arc<SimThread>,
    /// Its thread task's id and host.
    task: u64,
    host: HostId,
    /// A guest: a thread started outside the simulation (`door`).
    guest: bool,
    /// The OS thread's handle (`pthread_t` as an integer), once known.
    handle: u64,
    exited: bool,
    /// Wakers of joins waiting for the exit.
    joiners: Vec<Waker>,
}

/// One futex wait.
struct Waiter {
    bitset: u32,
    woken: Cell<bool>,
    waker: RefCell<Option<Waker>>,
}

impl Drop for Threads {
    fn drop(&mut self) {
        // Idle pool threads exit when let go.
        for pool in &self.pools {
            pool.shut_down();
        }
        for entry in &self.list {
            if !entry.exited {
                entry.thread.baton.release();
            }
        }
    }
}

impl Threads {
    /// The number of the thread whose OS handle is `handle`, if it is one
    /// of this simulation's.
    pub(crate) fn by_handle(&self, handle: u64) -> Option<u32> {
        // The newest: an exited thread's handle is reused by the next
        // thread once it is reaped (the same stack, the same `pthread_t`).
        self.list
            .iter()
            .rposition(|e| e.handle == handle && e.handle != 0)
            .map(|i| i as u32 + 1)
    }

    /// Whether thread `number` has exited.
    pub(crate) fn exited(&self, number: u32) -> bool {
        self.list.get(number as usize - 1).is_some_and(|e| e.exited)
    }

    /// Each thread started, in words: "std thread 1 (task 3) on host
    /// \"main\"".
    pub(crate) fn describe(&self, hosts: &[super::Host]) -> Vec<String> {
        self.list
            .iter()
            .map(|e| {
                let host = hosts.get(e.host.index()).map_or("?", |h| &*h.name);
                let guest = if e.guest {
                    ", started outside the simulation"
                } else {
                    ""
                };
                format!(
                    "std thread {} (task {}) on host \"{host}\"{guest}",
                    e.thread.number(),
                    e.task
                )
            })
            .collect()
    }

    /// How many threads were started and have not exited.
    pub(crate) fn live(&self) -> usize {
        self.list.iter().filter(|e| !e.exited).count()
    }
}

impl World {
    /// Starts a simulated thread of `host` that runs `f` (a blocking pool's
    /// thread): a real OS thread, started outside the interposed
    /// `pthread_create`, that waits for its first turn.
    pub(crate) fn spawn_thread(
        &self,
        host: HostId,
        f: impl FnOnce() + Send + 'static,
    ) -> std::io::Result<()> {
        let sim = self.start_thread_on(Some(host));
        let number = sim.number();
        let started = crate::switches::allow_threads(|| {
            std::thread::Builder::new()
                .name("tokio-runtime-worker".to_string())
                .spawn(move || {
                    if begin(&sim) {
                        f();
                        end();
                    } else {
                        // The simulation ended first: outside it.
                        f();
                    }
                })
        });
        match started {
            // Detached: the pool knows when its threads end.
            Ok(_) => Ok(()),
            Err(e) => {
                self.thread_failed(number);
                Err(e)
            }
        }
    }

    /// The host's blocking pool is gone with its threads (a reset).
    pub(crate) fn forget_pool(&self, host: HostId) {
        let pool = {
            let mut threads = self.threads.borrow_mut();
            let i = threads.pools.iter().position(|p| p.host() == host);
            i.map(|i| threads.pools.remove(i))
        };
        if let Some(pool) = pool {
            pool.shut_down();
        }
    }

    /// Registers a new simulated thread and spawns its thread task on the
    /// current task's host. The OS thread is started by the caller, which
    /// then tells its handle ([`World::thread_started`]).
    pub(crate) fn start_thread(&self) -> Arc<SimThread> {
        self.start_thread_on(None)
    }

    fn start_thread_on(&self, host: Option<HostId>) -> Arc<SimThread> {
        let thread = Arc::new(SimThread::guest());
        self.register_thread(thread.clone(), host, false);
        thread
    }

    /// Adopts `guest`, a thread outside the simulation that knocked at its
    /// door, as a simulated thread of the main host.
    pub(crate) fn adopt_thread(&self, guest: Arc<SimThread>) {
        self.register_thread(guest, Some(super::MAIN_HOST), true);
    }

    fn register_thread(&self, thread: Arc<SimThread>, host: Option<HostId>, guest: bool) {
        {
            let mut threads = self.threads.borrow_mut();
            let number = threads.list.len() as u32 + 1;
            thread
                .number
                .store(number, std::sync::atomic::Ordering::Relaxed);
            threads.list.push(Entry {
                thread: thread.clone(),
                task: 0,
                host: super::MAIN_HOST,
                guest,
                handle: 0,
                exited: false,
                joiners: Vec::new(),
            });
        }
        let task = ThreadTask {
            thread: thread.clone(),
            wait: None,
        };
        let origin = super::Origin::Thread(thread.number());
        let (key, id) = self.spawn(task, host, origin);
        let host = self.core.borrow().tasks[key].host;
        if let Some(e) = self.threads.borrow_mut().list.last_mut() {
            e.task = id.as_u64();
            e.host = host;
        }
        // Nobody joins the task: the thread's join waits for its exit.
        self.release_handle(key, id);
        self.tell(|| crate::story::Happening::Thread {
            task: id,
            number: thread.number(),
            outside: guest,
        });
    }

    /// The OS thread of thread `number` was created with handle `handle`.
    pub(crate) fn thread_started(&self, number: u32, handle: u64) {
        if let Some(e) = self.threads.borrow_mut().list.get_mut(number as usize - 1) {
            e.handle = handle;
        }
    }

    /// Thread `number` could not be started: it never runs.
    pub(crate) fn thread_failed(&self, number: u32) {
        self.thread_exited(number);
    }

    fn thread_exited(&self, number: u32) {
        let joiners = {
            let mut threads = self.threads.borrow_mut();
            match threads.list.get_mut(number as usize - 1) {
                Some(e) => {
                    e.exited = true;
                    std::mem::take(&mut e.joiners)
                }
                None => Vec::new(),
            }
        };
        joiners.into_iter().for_each(Waker::wake);
    }

    /// `futex(FUTEX_WAKE..)` in the simulation: wakes up to `n` waiters of
    /// `addr` whose bitset meets `bitset`, in the order they began
    /// waiting. Returns how many it woke.
    pub(crate) fn futex_wake(&self, addr: usize, n: usize, bitset: u32) -> usize {
        let woken: Vec<Rc<Waiter>> = {
            let mut threads = match self.threads.try_borrow_mut() {
                Ok(t) => t,
                Err(_) => return 0,
            };
            let Some(waiters) = threads.futexes.get_mut(&addr) else {
                return 0;
            };
            let mut woken = Vec::new();
            waiters.retain(|w| {
                if woken.len() < n && w.bitset & bitset != 0 {
                    w.woken.set(true);
                    woken.push(w.clone());
                    false
                } else {
                    true
                }
            });
            if waiters.is_empty() {
                threads.futexes.remove(&addr);
            }
            woken
        };
        for w in &woken {
            if let Some(waker) = w.waker.borrow_mut().take() {
                waker.wake();
            }
        }
        woken.len()
    }

    fn futex_enqueue(&self, addr: usize, bitset: u32) -> Rc<Waiter> {
        let waiter = Rc::new(Waiter {
            bitset,
            woken: Cell::new(false),
            waker: RefCell::new(None),
        });
        self.threads
            .borrow_mut()
            .futexes
            .entry(addr)
            .or_default()
            .push(waiter.clone());
        waiter
    }

    fn futex_dequeue(&self, addr: usize, waiter: &Rc<Waiter>) {
        if let Ok(mut threads) = self.threads.try_borrow_mut() {
            if let Some(waiters) = threads.futexes.get_mut(&addr) {
                waiters.retain(|w| !Rc::ptr_eq(w, waiter));
                if waiters.is_empty() {
                    threads.futexes.remove(&addr);
                }
            }
        }
    }

    /// A futex wait of the owner thread (a task or the main future blocking
    /// on a std lock or channel): runs the simulated threads until a wake
    /// of `addr` matching `bitset`. Returns `None` when no thread can run
    /// and nothing is due (the caller waits for real), else the wait's
    /// result (0, or [`TIMED_OUT`] at `deadline`).
    pub(crate) fn futex_wait_owner(
        &self,
        addr: usize,
        bitset: u32,
        deadline: Option<Duration>,
        changed: &dyn Fn() -> bool,
    ) -> Option<i64> {
        if !self.can_block_owner() {
            return None;
        }
        let waiter = self.futex_enqueue(addr, bitset);
        let ran = self.block_owner(&|w| {
            waiter.woken.get() || changed() || deadline.is_some_and(|d| w.now() >= d)
        });
        if waiter.woken.get() {
            return Some(0);
        }
        self.futex_dequeue(addr, &waiter);
        match deadline {
            Some(d) if ran && self.now() >= d => Some(TIMED_OUT),
            // The value changed (a thread outside the simulation): a
            // spurious wake-up, std checks again.
            _ if ran => Some(0),
            _ => None,
        }
    }

    /// Whether the owner thread may run simulated threads (or, on a
    /// multi-thread runtime, tasks) while it blocks: some thread lives or
    /// other workers exist, and the world is not in use (a wait inside the
    /// runtime's own code waits for real).
    fn can_block_owner(&self) -> bool {
        let Ok(core) = self.core.try_borrow_mut() else {
            return false;
        };
        // Other workers of a multi-thread runtime run tasks meanwhile.
        core.config.workers > 1 || self.threads.try_borrow().is_ok_and(|t| t.live() > 0)
    }

    /// A join of thread `number` by the owner thread: runs the simulated
    /// threads until it exits. Returns false when it cannot.
    pub(crate) fn join_owner(&self, number: u32) -> bool {
        self.can_block_owner() && self.block_owner(&|w| w.threads.borrow().exited(number))
    }

    /// Runs the simulated threads (the scheduler's pick among the runnable
    /// ones, one turn at a time; on a multi-thread runtime with more than
    /// one worker, the runnable tasks too, as the other workers would),
    /// delivers the packets that can arrive,
    /// and moves the clock to the next timer or packet when nothing else
    /// can happen, until `done`: the owner thread is blocked, inside a
    /// poll whose task is current. Tasks woken meanwhile run after that
    /// poll, as on a current-thread runtime whose only worker blocks.
    /// Returns whether `done` holds (false: nothing could run, nothing was
    /// due).
    pub(crate) fn block_owner(&self, done: &dyn Fn(&World) -> bool) -> bool {
        // Inside the runtime's own code (the world in use) nothing can run.
        if self.core.try_borrow_mut().is_err() || self.net.try_borrow_mut().is_err() {
            return false;
        }
        // On a multi-thread runtime the other workers go on running tasks
        // while this one blocks (with one worker, nothing else runs).
        let other_workers = self.core.borrow().config.workers > 1;
        self.run_blocked(done, other_workers)
    }

    /// Runs `fut` to completion inside the current poll: a `block_on` of
    /// this runtime inside `block_in_place`. While it is pending the other
    /// tasks (not the blocked one, nor the main future) and the threads
    /// run and the clock moves, as other workers of a multi-thread runtime
    /// would while this one blocks in place.
    ///
    /// # Panics
    ///
    /// When nothing can run and nothing is due while `fut` is pending.
    pub(crate) fn block_on_in_place<F: Future>(&self, fut: F) -> F::Output {
        struct Flag(std::sync::atomic::AtomicBool);
        impl std::task::Wake for Flag {
            fn wake(self: Arc<Self>) {
                self.0.store(true, std::sync::atomic::Ordering::SeqCst);
            }
        }
        let flag = Arc::new(Flag(std::sync::atomic::AtomicBool::new(true)));
        let waker = Waker::from(flag.clone());
        let mut fut = std::pin::pin!(fut);
        loop {
            if flag.0.swap(false, std::sync::atomic::Ordering::SeqCst) {
                crate::runtime::budget::start_poll(true);
                if let Poll::Ready(out) = fut.as_mut().poll(&mut Context::from_waker(&waker)) {
                    return out;
                }
                continue;
            }
            let woken = |_: &World| flag.0.load(std::sync::atomic::Ordering::SeqCst);
            if !self.run_blocked(&woken, true) {
                panic!(
                    "a block_on inside block_in_place waits for something nothing in the \
                     simulation will do: no task or thread can run and no timer is pending \
                     (a deadlock)"
                );
            }
        }
    }

    /// [`block_owner`](Self::block_owner); with `tasks`, the runnable
    /// tasks run too (all but the main future and the tasks being polled),
    /// and the clock moves whether or not a thread lives.
    pub(super) fn run_blocked(&self, done: &dyn Fn(&World) -> bool, tasks: bool) -> bool {
        loop {
            if done(self) {
                return true;
            }
            if !self.blocked_step(Runs::of(tasks)) {
                return false;
            }
        }
    }

    /// A `sched_yield` of the owner thread inside a poll (a task spinning
    /// on `std::thread::yield_now`): one step of what happens while it
    /// blocks, so that packets arrive and threads run while it spins, as
    /// the kernel and the other threads go on during a real spin.
    pub(crate) fn owner_yield(&self) {
        if self.core.try_borrow_mut().is_err() || self.net.try_borrow_mut().is_err() {
            return;
        }
        let other_workers = self.core.borrow().config.workers > 1;
        self.blocked_step(Runs::of(other_workers));
    }

    /// One step of [`run_blocked`](Self::run_blocked): a packet delivered,
    /// a thread (or a task `runs` allows) run, or the clock moved. False
    /// when nothing can happen.
    pub(super) fn blocked_step(&self, runs: Runs) -> bool {
        let outer = self.core.borrow().current;
        if self.door.knocked() {
            self.admit_guests();
        }
        // The kernel does not wait for the blocked worker: a packet
        // that can arrive now arrives first (the first in send order:
        // the scheduler is not asked), and one that must arrive before
        // a poll would end arrives before the poll.
        let now = self.now();
        let (first, window, latest) = {
            let mut st = self.net.borrow_mut();
            let (deliverable, window, latest) = st.schedule(now);
            (deliverable.get(0), window, latest)
        };
        if let Some(packet) = first {
            self.deliver(packet);
            return true;
        }
        let cost = {
            let core = self.core.borrow();
            if core.work_moves_clock {
                core.config.poll_cost
            } else {
                Duration::ZERO
            }
        };
        if let (Some(w), Some(l)) = (window, latest) {
            if l < now + cost && w <= l {
                self.move_clock_to(w);
                return true;
            }
        }
        match self.take_runnable(runs) {
            Some(key) => {
                self.run_task(key);
                self.set_running(outer);
                if let Some(c) = outer {
                    self.watch.begin(
                        c.id.as_u64(),
                        c.host.index() as u32,
                        crate::runtime::watchdog::Kind::Spawn,
                        None,
                    );
                }
                true
            }
            None => {
                // A thread may sleep, a packet may be on its way:
                // time passes while the worker blocks.
                let timer = self.core.borrow_mut().timers.next_deadline();
                let timer =
                    timer.filter(|_| runs == Runs::Tasks || self.threads.borrow().live() > 0);
                let next = match (timer, window) {
                    (Some(a), Some(b)) => Some(a.min(b)),
                    (a, b) => a.or(b),
                };
                match next {
                    Some(at)
                        if at <= self.core.borrow().time_limit
                            && latest.is_none_or(|l| at <= l) =>
                    {
                        self.move_clock_to(at);
                        true
                    }
                    _ => false,
                }
            }
        }
    }
}

/// What runs while the owner thread blocks (`World::blocked_step`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Runs {
    /// The simulated threads.
    Threads,
    /// The threads and the `spawn_blocking` tasks, which only await their
    /// closure's result (a shutdown's wait for the blocking pools).
    ThreadsAndBlocking,
    /// The threads and every task but the main future and those being
    /// polled (other workers of a multi-thread runtime); the clock moves
    /// whether or not a thread lives.
    Tasks,
}

impl Runs {
    /// [`Runs::Tasks`] when `tasks`, else [`Runs::Threads`].
    fn of(tasks: bool) -> Runs {
        if tasks {
            Runs::Tasks
        } else {
            Runs::Threads
        }
    }
}

impl World {
    /// A runnable thread task (or another task `runs` allows), taken out
    /// of the enabled set to be polled: the scheduler's choice
    /// ([`ChoiceKind::Thread`]) among them, in run-queue order.
    fn take_runnable(&self, runs: Runs) -> Option<usize> {
        let runnable: Vec<usize> = {
            let mut guard = self.core.borrow_mut();
            let core = &mut *guard;
            self.drain_wakes(core);
            core.enabled
                .iter()
                .enumerate()
                .filter(|(_, r)| {
                    let key = r.key();
                    key != super::MAIN_KEY
                        && core.tasks[key].cell.is_some()
                        && match core.cold[key].origin {
                            super::Origin::Thread(_) => true,
                            super::Origin::Blocking(_) => runs != Runs::Threads,
                            _ => runs == Runs::Tasks,
                        }
                })
                .map(|(i, _)| i)
                .collect()
        };
        let first = *runnable.first()?;
        let pick = self.choose(crate::scheduler::ChoiceKind::Thread, runnable.len());
        let index = runnable.get(pick).copied().unwrap_or(first);
        Some(self.core.borrow_mut().enabled.take(index).key())
    }

    /// Whether a `block_on` drives this simulation now.
    pub(crate) fn is_driven(&self) -> bool {
        self.driven.get()
    }
}

/// A timed futex wait's result when its deadline passed (the intercept
/// answers `ETIMEDOUT`); a wake is 0.
pub(crate) const TIMED_OUT: i64 = -1;

/// The future of a thread's task: gives the thread the turn, then waits for
/// what it blocked on.
struct ThreadTask {
    thread: Arc<SimThread>,
    /// What the thread blocked on, as a future whose output is the blocking
    /// call's result.
    wait: Option<Pin<Box<dyn Future<Output = i64>>>>,
}

impl Future for ThreadTask {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let world = context::current();
        if self.wait.is_none() && world.threads.borrow().exited(self.thread.number()) {
            // Its OS thread could not be started.
            return Poll::Ready(());
        }
        loop {
            let result = match &mut self.wait {
                Some(wait) => match wait.as_mut().poll(cx) {
                    Poll::Ready(r) => r,
                    Poll::Pending => return Poll::Pending,
                },
                None => 0,
            };
            self.wait = None;
            let op = self.thread.baton.run(Resume::Go {
                result,
                world: OnTurn(world.clone()),
                waker: cx.waker().clone(),
            });
            let number = self.thread.number();
            self.wait = Some(match op {
                Op::Exit => {
                    world.thread_exited(number);
                    return Poll::Ready(());
                }
                Op::FutexWait {
                    addr,
                    bitset,
                    deadline,
                } => Box::pin(FutexWait {
                    addr,
                    waiter: world.futex_enqueue(addr, bitset),
                    timer: deadline
                        .map(|d| crate::runtime::exact::sleep_exact(d.saturating_sub(world.now()))),
                }),
                // A paused clock does not move while a thread sleeps (as
                // tokio's: real time passes, the paused clock stands): the
                // sleep only gives the turn away.
                Op::Sleep(_) if world.core.borrow().paused => Box::pin(Park {
                    parked: false,
                    yielding: true,
                }),
                Op::Sleep(until) => {
                    let sleep =
                        crate::runtime::exact::sleep_exact(until.saturating_sub(world.now()));
                    Box::pin(async move {
                        sleep.await;
                        0
                    })
                }
                Op::Yield => Box::pin(Park {
                    parked: false,
                    yielding: true,
                }),
                Op::Join(target) => Box::pin(Join { target }),
                Op::Ready { wants, deadline } => Box::pin(ReadyWait {
                    wants,
                    timer: deadline
                        .map(|d| crate::runtime::exact::sleep_exact(d.saturating_sub(world.now()))),
                }),
                Op::Park => Box::pin(Park {
                    parked: false,
                    yielding: false,
                }),
            });
        }
    }
}

/// A simulated thread's futex wait.
struct FutexWait {
    addr: usize,
    waiter: Rc<Waiter>,
    timer: Option<crate::runtime::exact::SleepExact>,
}

impl Future for FutexWait {
    type Output = i64;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<i64> {
        if self.waiter.woken.get() {
            return Poll::Ready(0);
        }
        if let Some(timer) = &mut self.timer {
            if Pin::new(timer).poll(cx).is_ready() {
                let world = context::current();
                world.futex_dequeue(self.addr, &self.waiter);
                return Poll::Ready(TIMED_OUT);
            }
        }
        *self.waiter.waker.borrow_mut() = Some(cx.waker().clone());
        Poll::Pending
    }
}

impl Drop for FutexWait {
    fn drop(&mut self) {
        if !self.waiter.woken.get() {
            if let Some(world) = context::try_current_quiet() {
                world.futex_dequeue(self.addr, &self.waiter);
            }
        }
    }
}

/// A simulated thread's blocking socket call or `poll`, waiting for
/// readiness.
struct ReadyWait {
    wants: Vec<(sim_net::Endpoint, sim_net::Readiness)>,
    timer: Option<crate::runtime::exact::SleepExact>,
}

impl Future for ReadyWait {
    type Output = i64;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<i64> {
        let world = context::current();
        let ready = world.net_ref(|net| {
            self.wants
                .iter()
                .any(|&(endpoint, want)| net.readiness(endpoint).intersects(want))
        });
        if ready {
            return Poll::Ready(0);
        }
        if let Some(timer) = &mut self.timer {
            if Pin::new(timer).poll(cx).is_ready() {
                return Poll::Ready(TIMED_OUT);
            }
        }
        for &(endpoint, want) in &self.wants {
            world.net_register(endpoint, want, cx.waker());
        }
        Poll::Pending
    }
}

/// A simulated thread's join of another.
struct Join {
    target: u32,
}

impl Future for Join {
    type Output = i64;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<i64> {
        let world = context::current();
        let mut threads = world.threads.borrow_mut();
        match threads.list.get_mut(self.target as usize - 1) {
            Some(e) if !e.exited => {
                e.joiners.push(cx.waker().clone());
                Poll::Pending
            }
            _ => Poll::Ready(0),
        }
    }
}

/// A `block_on` on a simulated thread whose future is pending, or a
/// `sched_yield`: the first poll parks (a yield wakes the thread task at
/// once, behind the runnable tasks, as `yield_now`); the next goes on.
struct Park {
    parked: bool,
    yielding: bool,
}

impl Future for Park {
    type Output = i64;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<i64> {
        if self.parked {
            return Poll::Ready(0);
        }
        self.parked = true;
        if self.yielding {
            match context::try_current_quiet() {
                Some(world) => world.wake_yielding(cx.waker()),
                None => cx.waker().wake_by_ref(),
            }
        }
        Poll::Pending
    }
}

// ----- the simulated thread's side ---------------------------------------------

thread_local! {
    /// The simulated thread this OS thread is (null on others). Set by
    /// the start routine for the thread's whole life.
    static SELF: Cell<*const SimThread> = const { Cell::new(std::ptr::null()) };
    /// The turn this thread holds now: the simulation made current, and the
    /// thread task's waker.
    static TURN: RefCell<Option<Held>> = const { RefCell::new(None) };
}

/// A turn held by this simulated thread.
struct Held {
    _enter: context::EnterGuard,
    waker: Waker,
}

/// Whether this OS thread is a simulated thread holding its turn.
#[inline]
pub(crate) fn on_turn() -> bool {
    !SELF.with(|s| s.get()).is_null()
        && TURN
            .try_with(|t| t.try_borrow().is_ok_and(|t| t.is_some()))
            .unwrap_or(false)
}

/// Marks this OS thread as simulated thread `thread` (its start routine
/// keeps the `Arc` for the thread's life), and waits for its first turn.
/// Returns false when the simulation is gone before it ran: the thread
/// then runs outside it.
pub(crate) fn begin(thread: &Arc<SimThread>) -> bool {
    SELF.with(|s| s.set(Arc::as_ptr(thread)));
    let resume = thread.baton.give_back(None);
    take_turn(resume).is_some()
}

/// Gives the turn back at the thread's end.
pub(crate) fn end() {
    let me = SELF.with(|s| s.replace(std::ptr::null()));
    if me.is_null() || !holding() {
        return;
    }
    drop(TURN.with(|t| t.borrow_mut().take()));
    // SAFETY: `me` was set from an `Arc` the start routine still holds.
    #[allow(unsafe_code)]
    let thread = unsafe { &*me };
    crate::switches::without_interception(|| {
        let mut turn = thread.baton.turn.lock().unwrap_or_else(|e| e.into_inner());
        *turn = Turn::Owner(Some(Op::Exit));
        thread.baton.changed.notify_all();
    });
}

fn holding() -> bool {
    TURN.with(|t| t.borrow().is_some())
}

/// Blocks this simulated thread (it holds its turn) on `op`: gives the turn
/// back and waits for the next. Returns the blocking call's result, or
/// `None` when the simulation let the thread go (it now runs outside it).
pub(crate) fn block(op: Op) -> Option<i64> {
    let me = SELF.with(|s| s.get());
    if me.is_null() || !holding() {
        return None;
    }
    drop(TURN.with(|t| t.borrow_mut().take()));
    // SAFETY: `me` was set from an `Arc` the start routine holds for the
    // thread's whole life, and this runs on that thread.
    #[allow(unsafe_code)]
    let thread = unsafe { &*me };
    let resume = thread.baton.give_back(Some(op));
    take_turn(resume)
}

fn take_turn(resume: Resume) -> Option<i64> {
    match resume {
        Resume::Go {
            result,
            world,
            waker,
        } => {
            let enter = context::enter(world.0);
            TURN.with(|t| {
                *t.borrow_mut() = Some(Held {
                    _enter: enter,
                    waker,
                })
            });
            Some(result)
        }
        Resume::Release => {
            SELF.with(|s| s.set(std::ptr::null()));
            None
        }
    }
}

/// What a thread was before it visited another simulation as a guest
/// (`door`): a simulated thread of one, maybe holding its turn.
pub(crate) struct Suspended {
    me: *const SimThread,
    turn: Option<Held>,
}

/// Steps out of the simulated thread this OS thread is, if any, keeping
/// its turn aside (its simulation stays current beneath the visit's).
pub(crate) fn suspend() -> Option<Suspended> {
    let me = SELF.with(|s| s.replace(std::ptr::null()));
    if me.is_null() {
        return None;
    }
    let turn = TURN.with(|t| t.borrow_mut().take());
    Some(Suspended { me, turn })
}

/// Steps back into what [`suspend`] kept aside.
pub(crate) fn resume(before: Option<Suspended>) {
    if let Some(Suspended { me, turn }) = before {
        SELF.with(|s| s.set(me));
        TURN.with(|t| *t.borrow_mut() = turn);
    }
}

/// Runs `fut` to completion on this simulated thread (`Handle::block_on`
/// from a thread): polls it during the thread's turns, parking the thread
/// while it is pending.
///
/// # Panics
///
/// When the simulation ends while the future is pending.
pub(crate) fn block_on<F: Future>(fut: F) -> F::Output {
    let mut fut = std::pin::pin!(fut);
    loop {
        let waker = TURN.with(|t| t.borrow().as_ref().map(|h| h.waker.clone()));
        let Some(waker) = waker else {
            panic!(
                "the simulation ended while a simulated thread waited in block_on: the thread \
                 was let go, and its future can no longer run"
            );
        };
        if let Poll::Ready(out) = fut.as_mut().poll(&mut Context::from_waker(&waker)) {
            return out;
        }
        block(Op::Park);
    }
}
