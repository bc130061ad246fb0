//! The poll watchdog: ends, with a report, a process whose simulation has
//! been inside one poll for too long in real time.
//!
//! A simulation runs on one thread, so a task that never returns from a
//! poll (a loop with no `.await` that waits, a real blocking call: a std
//! `Mutex` or channel, `thread::park`, `futures::executor::block_on`) stops
//! everything, and nothing inside the simulation can notice. A thread of
//! this module's, started with the first simulation, samples every running
//! simulation's poll counter; when one has not moved for
//! [`SIM_POLL_TIMEOUT`](limit) seconds of real time (10 by default), it
//! prints which task is stuck and the line that reproduces the run, and
//! exits the process: the stuck thread cannot be unwound from outside.
//!
//! It also ends the other way a simulated test hangs: its thread waits
//! for real (a std channel, `Barrier`, `thread::sleep`, a join) while tasks
//! spawned on its runtime wait for a `block_on` to run them. tokio's
//! multi-thread runtime runs spawned tasks on its workers at once; a
//! simulation runs them only while something drives it. The interposed
//! waits (`intercept`) mark the waits of a thread that owns such a runtime
//! ([`real_wait`]).
//!
//! Reading real time here is fine: the watchdog never changes what a
//! simulation does; it only ends a process that would otherwise hang.
//!
//! What a poll publishes costs a few relaxed stores ([`PollWatch::begin`]);
//! a simulation registers once, when it is built, until it is dropped.

use std::panic::Location;
use std::sync::atomic::{AtomicPtr, AtomicU32, AtomicU64, AtomicU8, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

/// What the simulation thread publishes about the poll it is in, for the
/// watchdog thread.
#[derive(Debug, Default)]
pub(crate) struct PollWatch {
    /// Polls begun plus polls ended: odd while inside a poll. Written only
    /// by the simulation's thread.
    polls: AtomicU64,
    task: AtomicU64,
    host: AtomicU32,
    /// A [`Kind`] as a byte.
    kind: AtomicU8,
    /// Where the task was spawned (null for the main future and host entry
    /// points).
    at: AtomicPtr<Location<'static>>,
    /// The hosts' names, by index (pushed as hosts are made).
    hosts: Mutex<Vec<String>>,
    /// Real waits of the owner thread begun plus ended, while no
    /// `block_on` drives the simulation: odd while in one.
    waits: AtomicU64,
    /// Tasks wait for a `block_on` to run them: spawned while none drives
    /// the simulation, or left unfinished when the last one returned.
    undriven: std::sync::atomic::AtomicBool,
}

/// What the task in a poll is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub(crate) enum Kind {
    Main = 0,
    Spawn = 1,
    Blocking = 2,
    HostEntry = 3,
    /// A simulated std thread's turn.
    Thread = 4,
}

impl PollWatch {
    /// A poll of task `task` (of `kind`, spawned at `at`) on host `host`
    /// begins.
    #[inline]
    pub(crate) fn begin(
        &self,
        task: u64,
        host: u32,
        kind: Kind,
        at: Option<&'static Location<'static>>,
    ) {
        self.task.store(task, Ordering::Relaxed);
        self.host.store(host, Ordering::Relaxed);
        self.kind.store(kind as u8, Ordering::Relaxed);
        let at = at.map_or(std::ptr::null_mut(), |l| l as *const _ as *mut _);
        self.at.store(at, Ordering::Relaxed);
        let n = self.polls.load(Ordering::Relaxed);
        self.polls.store(n | 1, Ordering::Release);
    }

    /// The poll ended.
    #[inline]
    pub(crate) fn end(&self) {
        let n = self.polls.load(Ordering::Relaxed);
        self.polls.store((n | 1) + 1, Ordering::Release);
    }

    /// Whether tasks wait for a `block_on` (see [`PollWatch::undriven`]).
    pub(crate) fn set_undriven(&self, undriven: bool) {
        self.undriven.store(undriven, Ordering::Relaxed);
    }

    /// Host number `index` is named `name`.
    pub(crate) fn host_added(&self, index: u32, name: &str) {
        let mut hosts = self.hosts.lock().unwrap_or_else(|e| e.into_inner());
        if hosts.len() == index as usize {
            hosts.push(name.to_string());
        }
    }

    /// The task in the current poll, in words.
    fn describe(&self) -> String {
        let task = self.task.load(Ordering::Relaxed);
        let host = self.host.load(Ordering::Relaxed) as usize;
        let host = self
            .hosts
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(host)
            .map_or_else(|| format!("number {host}"), |n| format!("\"{n}\""));
        let at = self.at.load(Ordering::Relaxed);
        // SAFETY: `at` is null or was stored from a `&'static Location`,
        // which lives for the whole program and is never written.
        #[allow(unsafe_code)]
        let at = unsafe { at.as_ref() };
        let what = match (self.kind.load(Ordering::Relaxed), at) {
            (0, _) => "the future passed to block_on".to_string(),
            (3, _) => "the host's entry point".to_string(),
            (4, _) => "a std thread, which runs without blocking".to_string(),
            (2, Some(l)) => format!("spawn_blocking at {l}"),
            (_, Some(l)) => format!("spawned at {l}"),
            (_, None) => "spawned".to_string(),
        };
        format!("task {task} ({what}) on host {host}")
    }
}

/// `SIM_POLL_TIMEOUT`: seconds of real time a simulation may spend inside
/// one poll before the watchdog ends the process; `None` when set to 0
/// (off). Read once.
///
/// # Panics
///
/// When the variable is set to something else than a number of seconds.
pub(crate) fn limit() -> Option<Duration> {
    static LIMIT: OnceLock<Result<Option<Duration>, String>> = OnceLock::new();
    let parsed = LIMIT.get_or_init(|| match std::env::var("SIM_POLL_TIMEOUT") {
        Err(_) => Ok(Some(DEFAULT_LIMIT)),
        Ok(raw) => parse_limit(&raw),
    });
    match parsed {
        Ok(limit) => *limit,
        Err(msg) => super::config::fail_quietly(msg.clone()),
    }
}

/// The default of [`limit`].
pub(crate) const DEFAULT_LIMIT: Duration = Duration::from_secs(10);

fn parse_limit(raw: &str) -> Result<Option<Duration>, String> {
    let s = raw.trim();
    match s.parse::<f64>() {
        Ok(0.0) => Ok(None),
        Ok(secs) if secs.is_finite() && secs > 0.0 => Ok(Some(Duration::from_secs_f64(secs))),
        _ => Err(format!(
            "SIM_POLL_TIMEOUT={raw:?} is not understood: give the seconds of real time a \
             simulation may spend inside one poll before the process is ended with a report \
             (for example 10 or 2.5), or 0 to never end it"
        )),
    }
}

/// One watched simulation.
struct Watched {
    key: u64,
    watch: Arc<PollWatch>,
    /// The wait counter last sampled, and when it was first seen so.
    seen_waits: u64,
    waits_since: Instant,
    /// The simulation's thread (a test's thread is named after the test).
    thread: std::thread::Thread,
    seed: u64,
    /// The line that reproduces this run, when its harness knows it (the
    /// explorer's); else `SIM_SEED=<seed> cargo test ...` is made for it.
    line: Option<Arc<str>>,
    /// The poll counter last sampled, and when it was first seen so.
    seen: u64,
    since: Instant,
}

static WATCHED: Mutex<Vec<Watched>> = Mutex::new(Vec::new());

thread_local! {
    static LINE: std::cell::RefCell<Option<Arc<str>>> = const { std::cell::RefCell::new(None) };
    /// The simulations this thread owns (registered here), for
    /// [`real_wait`].
    static OWNED: std::cell::RefCell<Vec<std::sync::Weak<PollWatch>>> =
        const { std::cell::RefCell::new(Vec::new()) };
}

/// Runs `wait`, a real blocking wait of this thread (interposed: a futex
/// wait, a sleep), marked on each simulation this thread owns whose tasks
/// wait for a `block_on` while none drives it, so that the watchdog can end
/// a wait that would never end. Never panics and never allocates (called
/// from `extern "C"` functions, maybe inside a lock); outside that case,
/// a thread-local read.
pub(crate) fn real_wait<R>(wait: impl FnOnce() -> R) -> R {
    let marked = mark_waits(true);
    let r = wait();
    if marked {
        mark_waits(false);
    }
    r
}

/// Begins (`begin`) or ends a real wait on this thread's undriven
/// simulations; whether any was marked.
fn mark_waits(begin: bool) -> bool {
    OWNED
        .try_with(|owned| {
            let Ok(owned) = owned.try_borrow() else {
                return false;
            };
            if owned.is_empty() || (begin && super::context::driving()) {
                return false;
            }
            let mut any = false;
            for w in owned.iter().filter_map(std::sync::Weak::upgrade) {
                let n = w.waits.load(Ordering::Relaxed);
                if begin && w.undriven.load(Ordering::Relaxed) {
                    w.waits.store(n | 1, Ordering::Release);
                    any = true;
                } else if !begin && n % 2 == 1 {
                    w.waits.store(n + 1, Ordering::Release);
                }
            }
            any
        })
        .unwrap_or(false)
}

/// The line that reproduces the simulations this thread runs next, for
/// the watchdog's report (a harness that knows better than
/// `SIM_SEED=<seed> cargo test ...`); `None` goes back to that.
pub(crate) fn set_line(line: Option<Arc<str>>) {
    LINE.with(|l| *l.borrow_mut() = line);
}

/// The line that reproduces a run of seed `seed` on this thread: the
/// harness's (see [`set_line`]), else `SIM_SEED=<seed> cargo test ...` for
/// this thread's test.
pub(crate) fn line_here(seed: u64) -> String {
    match LINE.with(|l| l.borrow().clone()) {
        Some(line) => line.to_string(),
        None => super::failure::reproduce_line(seed),
    }
}

/// Watches the simulation publishing to `watch` until the returned guard
/// drops; nothing when the watchdog is off.
pub(crate) fn register(watch: &Arc<PollWatch>, seed: u64) -> Option<Registration> {
    let limit = limit()?;
    start(limit)?;
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let key = NEXT.fetch_add(1, Ordering::Relaxed);
    let now = Instant::now();
    let entry = Watched {
        key,
        watch: watch.clone(),
        thread: std::thread::current(),
        seed,
        line: LINE.with(|l| l.borrow().clone()),
        seen: watch.polls.load(Ordering::Relaxed),
        since: now,
        seen_waits: watch.waits.load(Ordering::Relaxed),
        waits_since: now,
    };
    OWNED.with(|owned| {
        if let Ok(mut owned) = owned.try_borrow_mut() {
            owned.retain(|w| w.strong_count() > 0);
            owned.push(Arc::downgrade(watch));
        }
    });
    WATCHED
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .push(entry);
    Some(Registration(key))
}

/// Stops watching a simulation when dropped.
pub(crate) struct Registration(u64);

impl Drop for Registration {
    fn drop(&mut self) {
        let mut all = WATCHED.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(i) = all.iter().position(|w| w.key == self.0) {
            all.swap_remove(i);
        }
    }
}

/// Starts the watchdog thread once; `None` if it could not be started.
fn start(limit: Duration) -> Option<()> {
    static STARTED: OnceLock<bool> = OnceLock::new();
    let ok = *STARTED.get_or_init(|| {
        crate::switches::allow_threads(|| {
            std::thread::Builder::new()
                .name("sim-rt poll watchdog".into())
                .spawn(move || watch_forever(limit))
                .is_ok()
        })
    });
    ok.then_some(())
}

fn watch_forever(limit: Duration) -> ! {
    let every = (limit / 4).clamp(Duration::from_millis(10), Duration::from_millis(500));
    loop {
        std::thread::sleep(every);
        let now = Instant::now();
        let stuck = {
            let mut all = WATCHED.lock().unwrap_or_else(|e| e.into_inner());
            all.iter_mut().find_map(|w| {
                let waits = w.watch.waits.load(Ordering::Acquire);
                let undriven = w.watch.undriven.load(Ordering::Relaxed);
                if waits != w.seen_waits || waits % 2 == 0 || !undriven {
                    w.seen_waits = waits;
                    w.waits_since = now;
                } else if now.duration_since(w.waits_since) >= limit {
                    return Some(report_undriven(w, now.duration_since(w.waits_since)));
                }
                let polls = w.watch.polls.load(Ordering::Acquire);
                if polls != w.seen || polls % 2 == 0 {
                    w.seen = polls;
                    w.since = now;
                    return None;
                }
                let stuck_for = now.duration_since(w.since);
                (stuck_for >= limit).then(|| report(w, stuck_for))
            })
        };
        if let Some(report) = stuck {
            use std::io::Write;
            let mut err = std::io::stderr().lock();
            let _ = err.write_all(report.as_bytes());
            let _ = err.flush();
            std::process::exit(101);
        }
    }
}

/// The line that reproduces `w`'s run, and " of <test>" when its thread
/// is a test's.
fn line_and_test(w: &Watched) -> (String, String) {
    let line = match &w.line {
        Some(line) => line.to_string(),
        None => format!(
            "SIM_SEED={} {}",
            w.seed,
            super::command::cargo_test_command_for(w.thread.name())
        ),
    };
    let test = w
        .thread
        .name()
        .filter(|n| *n != "main")
        .map_or(String::new(), |n| format!(" of {n}"));
    (line, test)
}

/// The report of a simulation whose thread has waited for real for
/// `waited` while its tasks wait for a `block_on`.
fn report_undriven(w: &Watched, waited: Duration) -> String {
    let (line, test) = line_and_test(w);
    format!(
        "\nsim_rt: the thread{test} has been blocked in a real wait (a std channel, Mutex, \
         Barrier or Condvar, thread::sleep, a join) for {waited:.1?} while tasks spawned on its \
         simulated runtime wait to run: a current-thread runtime runs its tasks only while \
         Runtime::block_on (or #[tokio::test]) drives it, as tokio's does, so nothing can run \
         them and the wait never ends. Wait inside block_on (rt.block_on(..)) on a tokio::sync \
         channel or the task's JoinHandle, or build a multi-thread runtime (whose tasks run while \
         the thread that built it waits on a std lock, channel, join or sleep).\n  \
         reproduce: {line}\n  \
         (SIM_POLL_TIMEOUT sets this limit in seconds, 0 turns it off.) Ending the process.\n"
    )
}

/// The report of a simulation stuck in a poll for `stuck_for`.
fn report(w: &Watched, stuck_for: Duration) -> String {
    let (line, test) = line_and_test(w);
    format!(
        "\nsim_rt: the simulation{test} has been inside one poll for {stuck_for:.1?} of real \
         time, and nothing simulated moves until it returns:\n  \
         in {task}\n  \
         that task loops without reaching an `.await` that waits, or blocks its thread (a std \
         Mutex, channel or Condvar, thread::sleep, thread::park, futures::executor::block_on, \
         real I/O). Inside a simulation only `.await` lets other tasks and simulated time move: \
         await a tokio::sync primitive or tokio::time::sleep instead.\n  \
         reproduce: {line}\n  \
         (SIM_POLL_TIMEOUT sets this limit in seconds, 0 turns it off.) Ending the process.\n",
        task = w.watch.describe(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_limit_is_seconds_or_zero_for_off() {
        assert_eq!(parse_limit("2.5"), Ok(Some(Duration::from_millis(2500))));
        assert_eq!(parse_limit(" 10 "), Ok(Some(Duration::from_secs(10))));
        assert_eq!(parse_limit("0"), Ok(None));
        for bad in ["", "-1", "ten", "inf", "NaN"] {
            let err = parse_limit(bad).unwrap_err();
            assert!(err.contains("SIM_POLL_TIMEOUT"), "{err}");
        }
    }

    #[test]
    fn a_poll_is_described_by_its_task_and_host() {
        let w = PollWatch::default();
        w.host_added(0, "main");
        w.host_added(1, "server");
        let at = Location::caller();
        w.begin(7, 1, Kind::Spawn, Some(at));
        assert_eq!(w.polls.load(Ordering::Relaxed) % 2, 1);
        assert_eq!(
            w.describe(),
            format!("task 7 (spawned at {at}) on host \"server\"")
        );
        w.end();
        assert_eq!(w.polls.load(Ordering::Relaxed) % 2, 0);
        w.begin(1, 0, Kind::Main, None);
        assert_eq!(
            w.describe(),
            "task 1 (the future passed to block_on) on host \"main\""
        );
    }
}
