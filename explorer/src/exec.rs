//! Running one execution of the program under test.
//!
//! Every search reduces to this: build a fresh runtime with the test's
//! settings and an exact seed, hand it a [`Guided`] scheduler, run the
//! test's future, and return whether it failed together with what the
//! scheduler recorded. Nothing survives from one execution to the next but
//! what the search keeps.
//!
//! # Determinism
//!
//! Each execution runs as on an OS thread of its own. What a program keeps
//! per thread starts fresh with it: std's `HashMap` keys (`RandomState`
//! draws them once per thread and counts up), `rand::rng()` (seeded once
//! per thread), any crate's thread-locals. Seeded inside the simulation
//! from the intercepted `getrandom`, they are then a function of the
//! execution's seed and choices alone, not of the executions that ran
//! before it on the same worker: the n-th execution of a search replays
//! alone, in a fresh process, with any `SIM_JOBS`. A search's workers are
//! clean workers ([`as_clean_worker`]) that run executions themselves
//! while that holds, std's keys put back before each, and start a fresh
//! thread per execution ([`on_fresh_thread`]) once an execution drew other
//! OS randomness (the guide's "Performance" chapter,
//! `docs/src/performance.md`, has the measures).

use std::cell::RefCell;
use std::future::Future;
use std::rc::Rc;
use std::sync::atomic::{AtomicU64, Ordering};

use sim_rt::runtime::{Builder, Failure, Runtime, Trace};
use sim_rt::scheduler::Scheduler;

use crate::explorers::DelayingExplorer;
use crate::guided::{Data, Guided, Record};
// The one import from a floor above: `Target::run` asks the liveness
// verdict (walks from the end) about an execution that ended with a
// property unmet, so that every search and the shrinker see a slow
// execution as a pass; `Target` carries its settings, `Ran` its result.
use crate::liveness::{self, EndWalks, Liveness};
use crate::schedule::Deviation;
use crate::search_kind::SearchKind;
use crate::token::{WalkFaults, WalkTail};
use crate::walker::{Switch, Walker};

/// What a test's future may return: `()`, or a `Result` whose `Err` is a
/// failure (like a `#[test]` returning `Result`).
pub trait TestOutcome {
    /// `Err` with a description when the test failed.
    fn into_result(self) -> Result<(), String>;
}

impl TestOutcome for () {
    fn into_result(self) -> Result<(), String> {
        Ok(())
    }
}

impl<E: std::fmt::Debug> TestOutcome for Result<(), E> {
    fn into_result(self) -> Result<(), String> {
        self.map_err(|e| format!("{e:?}"))
    }
}

/// The program under test, type-erased: runs the test's future in a
/// runtime.
pub(crate) type Program<'a> = dyn Fn(&Runtime) -> Result<(), Failure> + Sync + 'a;

/// Runs `test`'s future in `rt`; an `Err` output is a failure.
pub(crate) fn run_test<F, Fut>(test: &F, rt: &Runtime) -> Result<(), Failure>
where
    F: Fn() -> Fut,
    Fut: Future,
    Fut::Output: TestOutcome,
{
    rt.try_block_on(async {
        if let Err(e) = test().await.into_result() {
            panic!("the test returned an error: {e}");
        }
    })
}

/// Applies the test's runtime settings to each execution's builder.
pub(crate) type Configure = dyn Fn(&mut Builder) + Sync;

/// Makes a fresh explorer for each execution.
pub(crate) type MakeExplorer = dyn Fn() -> Box<dyn DelayingExplorer> + Sync;

/// Everything a search needs to run executions; shared by worker threads.
#[derive(Clone, Copy)]
pub(crate) struct Target<'a> {
    pub(crate) program: &'a Program<'a>,
    pub(crate) configure: &'a Configure,
    /// Each execution's runtime is a multi-thread one (`Explorer::multi_thread`).
    pub(crate) multi_thread: bool,
    pub(crate) explorer: &'a MakeExplorer,
    pub(crate) liveness: &'a Liveness,
    /// CHESS's fairness rule (see `guided.rs`).
    pub(crate) fair: bool,
    /// Executions whose unmet property a walk reached (not failures).
    pub(crate) slow: &'a AtomicU64,
    /// `SIM_CHECK_DETERMINISM=1`: run every execution twice and compare.
    pub(crate) check: bool,
    /// Collect each execution's keys of these signals (`signals.rs`: the
    /// adaptive search's, or a bench's probe); none when empty.
    pub(crate) signals: &'a [crate::signals::Signal],
}

/// Runs `f` on a new OS thread, named as the calling one (libtest names a
/// test's thread after the test, and reproduce lines read it), and returns
/// what it returns; a panic in `f` continues in the caller with the same
/// payload. Output capture (libtest's) is inherited by the new thread.
///
/// The stack is `RUST_MIN_STACK` bytes when set, else 8 MiB, a main
/// thread's: executions used to run on the caller's thread, which may be a
/// program's main thread, and a debug build's futures are large.
pub(crate) fn on_fresh_thread<R: Send>(f: impl FnOnce() -> R + Send) -> R {
    // The poll watchdog's line for the simulations the thread runs.
    let line = crate::progress::unit_line();
    on_new_thread(move || {
        sim_rt::runtime::__private::set_reproduce_line(line);
        f()
    })
}

/// Runs `f` on a new thread as [`on_fresh_thread`] does.
fn on_new_thread<R: Send>(f: impl FnOnce() -> R + Send) -> R {
    static STACK: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    let stack = *STACK.get_or_init(|| {
        std::env::var("RUST_MIN_STACK")
            .ok()
            .and_then(|s| s.trim().parse().ok())
            .unwrap_or(8 << 20)
    });
    let mut builder = std::thread::Builder::new().stack_size(stack);
    if let Some(name) = std::thread::current().name() {
        builder = builder.name(name.to_string());
    }
    std::thread::scope(|s| {
        let thread = builder.spawn_scoped(s, f).unwrap_or_else(|e| {
            panic!("explorer: could not start a thread to run an execution on: {e}")
        });
        match thread.join() {
            Ok(r) => r,
            Err(payload) => std::panic::resume_unwind(payload),
        }
    })
}

/// Runs `work` (a search's worker loop) on a new thread, as
/// [`on_fresh_thread`], made a clean worker first: its executions then run
/// on it, one after another ([`on_clean_thread`]), while they leave nothing
/// a fresh thread would not have.
pub(crate) fn as_clean_worker<R: Send>(work: impl FnOnce() -> R + Send) -> R {
    on_new_thread(move || {
        sim_rt::runtime::__private::become_clean_worker();
        work()
    })
}

/// Runs `f` (one execution) on this thread when it is a clean worker
/// ([`as_clean_worker`]) still clean, else on a fresh thread.
///
/// A thread per execution was there for what programs keep per thread:
/// std's `RandomState` keys, `rand`'s thread generator, crates'
/// thread-locals. A clean worker puts std's keys back before each
/// execution and stops running executions itself after one that drew OS
/// randomness otherwise (`sim_rt::runtime::__private::run_on_clean_worker`);
/// a program's own thread-locals carry over as statics would, and a
/// failure that needs them differs in the run that tells it, which is on a
/// fresh thread (see [`Target::run_once`]).
pub(crate) fn on_clean_thread<R: Send>(f: impl FnOnce() -> R + Send) -> R {
    if !sim_rt::runtime::__private::on_clean_worker() {
        return on_fresh_thread(f);
    }
    sim_rt::runtime::__private::set_reproduce_line(crate::progress::unit_line());
    sim_rt::runtime::__private::run_on_clean_worker(f)
}

/// Panics inside executions the search runs are part of the search, not
/// news: the panic hook stays quiet for them and keeps the location for the
/// report. Replays print panics as usual, backtraces and all.
mod quiet {
    use std::cell::{Cell, RefCell};

    thread_local! {
        static QUIET: Cell<bool> = const { Cell::new(false) };
        static RECORDING: Cell<bool> = const { Cell::new(false) };
        static LOCATION: RefCell<Option<String>> = const { RefCell::new(None) };
    }

    /// Installs the hook (once per process), chaining to the previous one.
    fn install() {
        static ONCE: std::sync::Once = std::sync::Once::new();
        ONCE.call_once(|| {
            let previous = std::panic::take_hook();
            std::panic::set_hook(Box::new(move |info| {
                if RECORDING.with(Cell::get) {
                    let at = info.location().map(|l| l.to_string());
                    LOCATION.with(|l| *l.borrow_mut() = at);
                }
                if !QUIET.with(Cell::get) {
                    previous(info)
                }
            }));
        });
    }

    /// Runs `f`, with this thread's panics quiet when `quiet`; returns its
    /// result and where the last panic happened.
    pub(super) fn run<R>(quiet: bool, f: impl FnOnce() -> R) -> (R, Option<String>) {
        install();
        struct Reset(bool, bool);
        impl Drop for Reset {
            fn drop(&mut self) {
                QUIET.with(|q| q.set(self.0));
                RECORDING.with(|r| r.set(self.1));
            }
        }
        let _reset = Reset(
            QUIET.with(|q| q.replace(quiet)),
            RECORDING.with(|r| r.replace(true)),
        );
        LOCATION.with(|l| l.borrow_mut().take());
        let r = f();
        (r, LOCATION.with(|l| l.borrow_mut().take()))
    }
}

/// One execution to run.
#[derive(Clone)]
pub(crate) struct Exec {
    pub(crate) seed: u64,
    pub(crate) schedule: Vec<Deviation>,
    /// Record branches (and states) from this choice point on.
    pub(crate) record_from: u32,
    /// Anchor loss and duplication choices (record them, and apply these
    /// deviations by anchor): the shrinker's (see `guided::Anchor`).
    pub(crate) anchored: Option<Vec<(crate::guided::Anchor, u32)>>,
    /// Random data choices with the fault probabilities (walks), instead of
    /// option 0.
    pub(crate) random_data: bool,
    /// With `random_data`: the fault rates scaled by the seed's swarm draw.
    pub(crate) swarm: bool,
    pub(crate) cache_states: bool,
    /// Keep panics quiet (searches) or print them (replays).
    pub(crate) quiet: bool,
    /// A liveness walk after a prefix of this execution, instead of all of
    /// it.
    pub(crate) walk: Option<WalkTail>,
    /// Keep the observations made during this trace step.
    pub(crate) watch: Option<u64>,
    /// Record forced steps too.
    pub(crate) full_trace: bool,
    /// Record the story and the delays, to tell the execution in words.
    pub(crate) tell: bool,
}

impl Exec {
    /// The execution of `seed` and `schedule` as `search` ran it (walks
    /// draw data choices), with nothing recorded.
    pub(crate) fn of(seed: u64, schedule: Vec<Deviation>, search: SearchKind) -> Exec {
        Exec {
            seed,
            schedule,
            record_from: u32::MAX,
            anchored: None,
            random_data: search.random_data(),
            swarm: search.swarm(),
            cache_states: false,
            quiet: true,
            walk: None,
            watch: None,
            full_trace: false,
            tell: false,
        }
    }
}

/// What one execution produced.
pub(crate) struct Ran {
    pub(crate) failure: Option<Failure>,
    /// The full trace, kept only when the execution failed.
    pub(crate) trace: Option<Trace>,
    /// Where the failing panic happened.
    pub(crate) location: Option<String>,
    pub(crate) record: Record,
    /// Every "eventually" property was met (see `Runtime::liveness_met`).
    pub(crate) met: bool,
    /// Steps the run took.
    pub(crate) steps: u64,
    /// Simulated time it took.
    pub(crate) elapsed: std::time::Duration,
    /// The latest deadline a timer of it was armed with
    /// (`Runtime::latest_timer_deadline`).
    pub(crate) latest_deadline: Option<std::time::Duration>,
    /// For a liveness failure that walks from its end confirmed.
    pub(crate) end: Option<EndWalks>,
    /// When telling: the runtime's story, the hosts' names, the delayed
    /// picks, and the log lines by step.
    pub(crate) story: Vec<sim_rt::runtime::Told>,
    pub(crate) hosts: Vec<String>,
    pub(crate) delayed: Vec<crate::tell::Delayed>,
    pub(crate) logs: Vec<(u64, String)>,
    /// The coverage points the execution evaluated.
    pub(crate) coverage: Vec<(sim_rt::sim::Point, sim_rt::sim::Hits)>,
    /// It was a liveness walk after a prefix of its execution.
    pub(crate) walked: bool,
}

/// A run that did not agree with what the search knew of its execution.
pub(crate) struct Diverged {
    /// The execution concerned.
    pub(crate) exec: Exec,
    /// What showed it ("its choice point 12 was a data choice with 2
    /// options; the run before, with the same choices up to there, had a
    /// pick among 3 events").
    pub(crate) saw: String,
    /// The determinism check's message, when it already ran.
    pub(crate) divergence: Option<String>,
}

impl Diverged {
    /// Unwinds with this divergence, to the nearest `Ctx::numbered` (a
    /// search's: see `nondet.rs`).
    pub(crate) fn raise(self) -> ! {
        std::panic::resume_unwind(Box::new(self))
    }
}

impl std::fmt::Debug for Diverged {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Diverged")
            .field("seed", &self.exec.seed)
            .field("saw", &self.saw)
            .finish_non_exhaustive()
    }
}

impl Target<'_> {
    /// Runs `exec`; when it ends with a liveness property unmet and
    /// undecided, walks from its end: a walk that reaches the property
    /// makes it a pass (a slow execution, counted), none makes it a
    /// confirmed failure.
    pub(crate) fn run(&self, exec: Exec) -> Ran {
        let mut ran = self.run_once(&exec);
        let undecided = ran
            .failure
            .as_ref()
            .is_some_and(|f| f.liveness_dead().is_some());
        if exec.walk.is_none() && undecided && self.liveness.enabled() {
            match liveness::walk_from_end(self, &exec, &ran) {
                Some(end) => ran.end = Some(end),
                None => {
                    self.slow.fetch_add(1, Ordering::Relaxed);
                    ran.failure = None;
                    ran.trace = None;
                    ran.location = None;
                }
            }
        }
        ran
    }

    /// Runs `exec` once, on a clean worker or a fresh thread
    /// ([`on_clean_thread`]); with `SIM_CHECK_DETERMINISM=1`, twice, the
    /// second on a fresh thread, and unwinds with the nondeterminism report
    /// when their traces differ.
    pub(crate) fn run_once(&self, exec: &Exec) -> Ran {
        if !self.check {
            // The run that tells a failure is on a fresh thread, as its
            // replay will be: a failure that needed what a worker kept
            // from earlier executions (a program's own thread-locals)
            // differs there, and is reported so, never handed out as a
            // token that does not replay.
            if exec.tell {
                return on_fresh_thread(|| self.run_here(exec, false));
            }
            return on_clean_thread(|| self.run_here(exec, false));
        }
        let exec = &Exec {
            full_trace: true,
            ..exec.clone()
        };
        let mut ran = on_clean_thread(|| self.run_here(exec, true));
        let again = on_fresh_thread(|| self.run_here(exec, true));
        let (first, second) = (ran.trace.as_ref(), again.trace.as_ref());
        let (first, second) = first.zip(second).expect("checked runs keep their traces");
        if let Some(divergence) = sim_rt::runtime::__private::compare_traces(first, second) {
            Diverged {
                exec: exec.clone(),
                saw: "SIM_CHECK_DETERMINISM=1 ran it twice, and the two runs differ".to_string(),
                divergence: Some(divergence),
            }
            .raise();
        }
        if ran.failure.is_none() && exec.walk.is_none() {
            ran.trace = None;
        }
        ran
    }

    /// The determinism check of `exec`: two runs, each on a fresh thread
    /// with every step recorded. Returns the check's message when they
    /// differ, and the first run's token fields (steps, hash).
    pub(crate) fn check_twice(&self, exec: &Exec) -> (Option<String>, u32, u64) {
        let exec = Exec {
            full_trace: true,
            quiet: true,
            tell: false,
            ..exec.clone()
        };
        let first = on_fresh_thread(|| self.run_here(&exec, true));
        let second = on_fresh_thread(|| self.run_here(&exec, true));
        let (a, b) = (first.trace.as_ref(), second.trace.as_ref());
        let (a, b) = a.zip(b).expect("checked runs keep their traces");
        (
            sim_rt::runtime::__private::compare_traces(a, b),
            a.len() as u32,
            a.hash(),
        )
    }

    /// Runs `exec` once on this thread (keeping its trace when `keep`).
    pub(crate) fn run_here(&self, exec: &Exec, keep: bool) -> Ran {
        let record = Rc::new(RefCell::new(Record {
            from: exec.record_from,
            tell: exec.tell,
            ..Record::default()
        }));
        let data = if exec.random_data {
            Data::Random(
                sim_rt::scheduler::RandomScheduler::new(exec.seed),
                exec.swarm.then(|| crate::swarm::Rates::of(exec.seed)),
            )
        } else {
            Data::Default
        };
        let mut guided = Guided::new(
            (self.explorer)(),
            exec.seed,
            exec.schedule.clone(),
            data,
            record.clone(),
            exec.cache_states,
            self.fair,
        );
        if !self.signals.is_empty() {
            guided.track(self.signals);
        }
        if let Some(anchored) = &exec.anchored {
            guided.anchor(anchored.clone());
        }
        let mut builder = if self.multi_thread {
            Builder::new_multi_thread()
        } else {
            Builder::new_current_thread()
        };
        builder.enable_all().report_unobserved_panics(true);
        (self.configure)(&mut builder);
        builder.exact_seed(exec.seed);
        if exec.full_trace {
            builder.full_trace(true);
        }
        if exec.tell {
            builder.record_story(true);
        }
        let seen = Rc::new(RefCell::new(Vec::new()));
        let mut scheduler: Option<Box<dyn Scheduler>> = match exec.walk {
            None => Some(Box::new(guided)),
            Some(tail) => {
                // The walk goes on past the main future's return, for at
                // least `length` steps after the prefix (steps count picks,
                // the prefix counts picks and data choices).
                builder
                    .liveness_walk(u64::MAX / 4)
                    .max_steps(u64::from(tail.from).saturating_add(tail.length));
                if let Some(time) = tail.time {
                    builder.max_time(time);
                }
                if tail.faults == WalkFaults::Heal {
                    builder.heal_at_step(tail.from.into());
                }
                Some(Box::new(Switch {
                    first: guided,
                    then: Walker::new(tail.seed, tail.faults),
                    at: tail.from.into(),
                    calls: 0,
                    watch: exec.watch,
                    seen: seen.clone(),
                }))
            }
        };
        builder.scheduler(move |_| {
            scheduler
                .take()
                .expect("the explorer builds one runtime per builder")
        });
        let rt = builder
            .build()
            .expect("building a simulation runtime cannot fail");
        let logs = crate::logs::Logs::default();
        let (result, location) = if exec.tell {
            let subscriber = logs.clone();
            tracing::subscriber::with_default(subscriber, || {
                // Call sites first hit with no subscriber cached "never":
                // ask them again now that one listens.
                tracing::callsite::rebuild_interest_cache();
                quiet::run(exec.quiet, || (self.program)(&rt))
            })
        } else {
            quiet::run(exec.quiet, || (self.program)(&rt))
        };
        let logs = logs.take();
        let failure = result.err();
        let keep = keep || failure.is_some() || exec.walk.is_some();
        let trace = keep.then(|| rt.trace());
        let met = rt.liveness_met();
        let steps = rt.steps();
        let elapsed = rt.elapsed();
        let latest_deadline = rt.latest_timer_deadline();
        let story = rt.story();
        let hosts = rt.host_names();
        let coverage = rt.coverage();
        drop(rt);
        let record = Rc::try_unwrap(record)
            .map(RefCell::into_inner)
            .unwrap_or_else(|rc| std::mem::take(&mut *rc.borrow_mut()));
        let mut record = record;
        if self.signals.contains(&crate::signals::Signal::States) {
            // The coverage points hit are abstract states too (the tracker
            // never sees them).
            let hit = coverage.iter().filter(|(_, h)| h.hit > 0);
            record
                .signal
                .extend(hit.map(|(p, _)| crate::signals::Signal::point_key(p)));
            record.signal.sort_unstable();
            record.signal.dedup();
        }
        let delayed = std::mem::take(&mut record.delayed);
        Ran {
            location: failure.as_ref().and(location),
            failure,
            trace,
            record,
            met,
            steps,
            elapsed,
            latest_deadline,
            end: None,
            story,
            hosts,
            delayed,
            logs,
            coverage,
            walked: exec.walk.is_some(),
        }
    }
}
