//! Running one execution of the program under test.
//!
//! Every search reduces to this: build a fresh runtime with the test's
//! settings and an exact seed, hand it a [`Guided`] scheduler, run the
//! test's future, and return whether it failed together with what the
//! scheduler recorded. Nothing survives from one execution to the next but
//! what the search keeps.

use std::cell::RefCell;
use std::future::Future;
use std::rc::Rc;

use sim_rt::runtime::{Builder, Failure, Runtime, Trace};

use crate::explorers::DelayingExplorer;
use crate::guided::{Data, Guided, Record};
use crate::schedule::Deviation;

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
pub(crate) struct Target<'a> {
    pub(crate) program: &'a Program<'a>,
    pub(crate) configure: &'a Configure,
    pub(crate) explorer: &'a MakeExplorer,
}

/// Panics inside executions the search runs are part of the search, not
/// news: the panic hook stays quiet for them and keeps the location for the
/// report. Replays print panics as usual, backtraces and all.
mod quiet {
    use std::cell::{Cell, RefCell};

    thread_local! {
        static QUIET: Cell<bool> = const { Cell::new(false) };
        static LOCATION: RefCell<Option<String>> = const { RefCell::new(None) };
    }

    /// Installs the hook (once per process), chaining to the previous one.
    fn install() {
        static ONCE: std::sync::Once = std::sync::Once::new();
        ONCE.call_once(|| {
            let previous = std::panic::take_hook();
            std::panic::set_hook(Box::new(move |info| {
                if QUIET.with(Cell::get) {
                    let at = info.location().map(|l| l.to_string());
                    LOCATION.with(|l| *l.borrow_mut() = at);
                } else {
                    previous(info)
                }
            }));
        });
    }

    /// Runs `f` with this thread's panics quiet (when `quiet`); returns its
    /// result and where the last panic happened.
    pub(super) fn run<R>(quiet: bool, f: impl FnOnce() -> R) -> (R, Option<String>) {
        if !quiet {
            return (f(), None);
        }
        install();
        struct Reset(bool);
        impl Drop for Reset {
            fn drop(&mut self) {
                QUIET.with(|q| q.set(self.0));
            }
        }
        let _reset = Reset(QUIET.with(|q| q.replace(true)));
        LOCATION.with(|l| l.borrow_mut().take());
        let r = f();
        (r, LOCATION.with(|l| l.borrow_mut().take()))
    }
}

/// One execution to run.
pub(crate) struct Exec {
    pub(crate) seed: u64,
    pub(crate) schedule: Vec<Deviation>,
    /// Record branches (and states) from this choice point on.
    pub(crate) record_from: u32,
    /// Random data choices with the fault probabilities (walks), instead of
    /// option 0.
    pub(crate) random_data: bool,
    pub(crate) cache_states: bool,
    /// Keep panics quiet (searches) or print them (replays).
    pub(crate) quiet: bool,
}

/// What one execution produced.
pub(crate) struct Ran {
    pub(crate) failure: Option<Failure>,
    /// The full trace, kept only when the execution failed.
    pub(crate) trace: Option<Trace>,
    /// Where the failing panic happened, when panics were quiet.
    pub(crate) location: Option<String>,
    pub(crate) record: Record,
}

impl Target<'_> {
    pub(crate) fn run(&self, exec: Exec) -> Ran {
        let record = Rc::new(RefCell::new(Record {
            from: exec.record_from,
            ..Record::default()
        }));
        let data = if exec.random_data {
            Data::Random(sim_rt::scheduler::RandomScheduler::new(exec.seed))
        } else {
            Data::Default
        };
        let guided = Guided::new(
            (self.explorer)(),
            exec.seed,
            exec.schedule,
            data,
            record.clone(),
            exec.cache_states,
        );
        let mut builder = Builder::new_current_thread();
        builder.enable_all();
        (self.configure)(&mut builder);
        builder.exact_seed(exec.seed);
        let mut guided = Some(guided);
        builder.scheduler(move |_| {
            guided
                .take()
                .expect("the explorer builds one runtime per builder")
        });
        let rt = builder
            .build()
            .expect("building a simulation runtime cannot fail");
        let (result, location) = quiet::run(exec.quiet, || (self.program)(&rt));
        let failure = result.err();
        let trace = failure.as_ref().map(|_| rt.trace());
        drop(rt);
        let record = Rc::try_unwrap(record)
            .map(RefCell::into_inner)
            .unwrap_or_else(|rc| std::mem::take(&mut *rc.borrow_mut()));
        Ran {
            location: failure.as_ref().and(location),
            failure,
            trace,
            record,
        }
    }
}
