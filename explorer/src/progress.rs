//! Progress lines for long explorations: at most one a second, on stderr.
//!
//! The first line appears after a second of exploring, so short searches
//! (most tests) print nothing. Progress reads real time, which is fine: it
//! runs outside any simulation and never changes what is explored.

use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Counters shared by the threads of one exploration.
#[derive(Debug)]
pub(crate) struct Progress {
    enabled: bool,
    label: String,
    start: Instant,
    last: Mutex<Instant>,
    executions: AtomicU64,
    stratum: AtomicU32,
    deepest: AtomicU32,
    printed: AtomicBool,
    /// Executions (units) under way: their number, when they started, the
    /// line that reproduces them, and whether it was printed.
    running: Mutex<Vec<Running>>,
}

/// A unit under way: its number, when it started, the line that reproduces
/// it, and whether that line was printed.
type Running = (u64, Instant, Arc<str>, bool);

thread_local! {
    /// The line that reproduces the unit this thread runs (see
    /// [`Progress::start`]).
    static UNIT_LINE: std::cell::RefCell<Option<Arc<str>>> = const { std::cell::RefCell::new(None) };
}

/// The line that reproduces the executions this thread runs now: the
/// current unit's, or a replay's.
pub(crate) fn set_unit_line(line: Option<Arc<str>>) {
    UNIT_LINE.with(|l| *l.borrow_mut() = line);
}

/// What [`set_unit_line`] last set on this thread.
pub(crate) fn unit_line() -> Option<Arc<str>> {
    UNIT_LINE.with(|l| l.borrow().clone())
}

/// How long an execution runs before its reproduce line is printed.
pub(crate) const LONG: Duration = Duration::from_secs(1);

const EVERY: Duration = Duration::from_secs(1);

impl Progress {
    pub(crate) fn new(enabled: bool, label: String) -> Progress {
        let now = Instant::now();
        Progress {
            enabled,
            label,
            start: now,
            last: Mutex::new(now),
            executions: AtomicU64::new(0),
            stratum: AtomicU32::new(0),
            deepest: AtomicU32::new(0),
            printed: AtomicBool::new(false),
            running: Mutex::new(Vec::new()),
        }
    }

    /// Unit `index` starts on this thread; `line` reproduces it (printed
    /// when it runs long, and by sim-rt's poll watchdog when it is stuck).
    pub(crate) fn start(&self, index: u64, line: String) {
        let line: Arc<str> = line.into();
        set_unit_line(Some(line.clone()));
        let mut r = self.running.lock().unwrap_or_else(|e| e.into_inner());
        r.push((index, Instant::now(), line, false));
    }

    /// Unit `index` ended.
    pub(crate) fn end(&self, index: u64) {
        let mut r = self.running.lock().unwrap_or_else(|e| e.into_inner());
        r.retain(|u| u.0 != index);
    }

    /// Prints, once each, the reproduce lines of the units that have run
    /// for [`LONG`] or more: if one never ends (a loop that never yields,
    /// a harness's deadline), its line is already out. Printed whether or
    /// not progress lines are on (a test harness captures it as usual).
    pub(crate) fn tell_long(&self) {
        let now = Instant::now();
        let mut r = self.running.lock().unwrap_or_else(|e| e.into_inner());
        for (index, started, line, told) in r.iter_mut() {
            if !*told && now.duration_since(*started) >= LONG {
                *told = true;
                eprintln!(
                    "{}: execution {} has run for {:.1?} of real time; if it never ends, this \
                     reproduces it: {line}",
                    self.label,
                    *index + 1,
                    now.duration_since(*started)
                );
            }
        }
    }

    /// The search is working on samples or entries of `d` delays.
    pub(crate) fn stratum(&self, d: u32) {
        self.stratum.store(d, Ordering::Relaxed);
    }

    /// `n` more executions ran, the last with `delays` delays.
    pub(crate) fn executed(&self, n: u64, delays: u32) {
        let total = self.executions.fetch_add(n, Ordering::Relaxed) + n;
        self.deepest.fetch_max(delays, Ordering::Relaxed);
        if !self.enabled {
            return;
        }
        let now = Instant::now();
        let Ok(mut last) = self.last.try_lock() else {
            return; // another thread is printing
        };
        if now.duration_since(*last) < EVERY {
            return;
        }
        *last = now;
        let secs = now.duration_since(self.start).as_secs_f64();
        eprintln!(
            "{}: {total} executions ({:.0}/s), stratum {}, deepest {} delays, 0 failures so far",
            self.label,
            total as f64 / secs,
            self.stratum.load(Ordering::Relaxed),
            self.deepest.load(Ordering::Relaxed),
        );
        self.printed.store(true, Ordering::Relaxed);
    }

    /// Exhaustive search finished stratum `d`.
    pub(crate) fn stratum_complete(&self, d: u32, executions: u64) {
        if self.enabled && self.printed.load(Ordering::Relaxed) {
            eprintln!(
                "{}: all executions with at most {d} delays explored ({executions} executions)",
                self.label
            );
        }
    }

    /// The end, after `executions` in `elapsed`, `failed` or not: a
    /// closing line if progress lines were printed.
    pub(crate) fn finish(&self, executions: u64, elapsed: Duration, failed: bool) {
        if self.enabled && self.printed.load(Ordering::Relaxed) {
            let failures = u32::from(failed);
            eprintln!(
                "{}: done: {executions} executions in {elapsed:.1?}, {failures} failure(s)",
                self.label
            );
        }
    }
}
