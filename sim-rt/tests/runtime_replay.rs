//! Replaying a recorded trace reproduces the run step for step, and a
//! program that no longer matches its trace is caught at the step where it
//! diverges.

mod rt_support;

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rt_support::{assert_contains_all, random_order};
use sim_rt::runtime::{Builder, Trace};
use sim_rt::scheduler::{ChoiceKind, Event, Observation, Scheduler};

async fn program(extra_task: bool) -> Vec<u32> {
    {
        let log = Arc::new(Mutex::new(Vec::new()));
        let mut handles = Vec::new();
        for t in 0..5u32 {
            let log = log.clone();
            handles.push(sim_rt::spawn(async move {
                for i in 0..4u32 {
                    if sim_rt::choose(3) == 2 {
                        sim_rt::time::sleep(Duration::from_millis(1)).await;
                    }
                    sim_rt::task::yield_now().await;
                    log.lock().unwrap().push(t * 10 + i);
                }
            }));
        }
        if extra_task {
            sim_rt::spawn(async {});
        }
        for h in handles {
            h.await.unwrap();
        }
        let v = log.lock().unwrap().clone();
        v
    }
}

/// A scheduler that records everything it is asked and observes, so two
/// runs can be compared step for step (not only by hash).
#[derive(Default)]
struct Recording<S> {
    inner: S,
    log: Arc<Mutex<Vec<String>>>,
}

impl<S: Scheduler> Scheduler for Recording<S> {
    fn pick(&mut self, enabled: &[Event]) -> usize {
        let i = self.inner.pick(enabled);
        self.log
            .lock()
            .unwrap()
            .push(format!("pick {:?} of {enabled:?}", enabled[i]));
        i
    }
    fn choose(&mut self, kind: ChoiceKind, n: usize) -> usize {
        let i = self.inner.choose(kind, n);
        self.log
            .lock()
            .unwrap()
            .push(format!("choose {kind:?} {i}/{n}"));
        i
    }
    fn observe(&mut self, o: &Observation) {
        self.log.lock().unwrap().push(format!("observe {o:?}"));
    }
}

fn record(seed: u64) -> (Vec<u32>, Trace, Vec<String>) {
    let log = Arc::new(Mutex::new(Vec::new()));
    let l = log.clone();
    let rt = Builder::new_current_thread()
        .enable_all()
        .seed(seed)
        .full_trace(true)
        .scheduler(move |seed| Recording {
            inner: sim_rt::scheduler::RandomScheduler::new(seed),
            log: l.clone(),
        })
        .build()
        .unwrap();
    let out = rt.block_on(program(false));
    let trace = rt.trace();
    drop(rt);
    let steps = log.lock().unwrap().clone();
    (out, trace, steps)
}

#[test]
fn replay_reproduces_the_run_step_for_step() {
    for seed in 0..20 {
        let (out, trace, steps) = record(seed);
        let log = Arc::new(Mutex::new(Vec::new()));
        let l = log.clone();
        let t = trace.clone();
        let rt = Builder::new_current_thread()
            .enable_all()
            .replay(trace.clone())
            .scheduler(move |_| Recording {
                inner: sim_rt::scheduler::Replay::new(t.clone()),
                log: l.clone(),
            })
            .build()
            .unwrap();
        assert_eq!(rt.seed(), seed, "replay runs with the recorded seed");
        let replayed = rt.block_on(program(false));
        assert_eq!(replayed, out, "seed {seed}: output");
        assert_eq!(rt.trace(), trace, "seed {seed}: trace");
        drop(rt);
        assert_eq!(
            *log.lock().unwrap(),
            steps,
            "seed {seed}: every step and observation"
        );
    }
}

#[test]
fn replay_via_builder_replay_gives_the_same_trace() {
    let (out, trace, _) = record(7);
    let rt = Builder::new_current_thread()
        .enable_all()
        .replay(trace.clone())
        .build()
        .unwrap();
    assert_eq!(rt.block_on(program(false)), out);
    assert_eq!(rt.trace().hash(), trace.hash());
}

#[test]
fn a_changed_program_diverges_with_a_clear_message() {
    let (_, trace, _) = record(3);
    let rt = Builder::new_current_thread()
        .enable_all()
        .replay(trace)
        .build()
        .unwrap();
    let err = catch_unwind(AssertUnwindSafe(|| rt.block_on(program(true)))).unwrap_err();
    let msg = err.downcast_ref::<String>().cloned().unwrap_or_default();
    assert_contains_all(
        &msg,
        &[
            "replay diverged at step",
            "not deterministic or changed since recording",
        ],
    );
}

#[test]
fn a_trace_that_ends_early_is_reported() {
    let (_, trace, _) = record(4);
    let short = Trace::from_steps(trace.seed(), trace.steps()[..trace.len() / 2].to_vec());
    let rt = Builder::new_current_thread()
        .enable_all()
        .replay(short)
        .build()
        .unwrap();
    let err = catch_unwind(AssertUnwindSafe(|| rt.block_on(program(false)))).unwrap_err();
    let msg = err.downcast_ref::<String>().cloned().unwrap_or_default();
    assert!(msg.contains("the recorded run ended after"), "{msg}");
}

/// A scheduler that says whether it wants observations, and counts those
/// it gets.
struct Opting {
    inner: sim_rt::scheduler::RandomScheduler,
    wants: bool,
    seen: Arc<Mutex<usize>>,
}

impl Scheduler for Opting {
    fn pick(&mut self, enabled: &[Event]) -> usize {
        self.inner.pick(enabled)
    }
    fn choose(&mut self, kind: ChoiceKind, n: usize) -> usize {
        self.inner.choose(kind, n)
    }
    fn observe(&mut self, _: &Observation) {
        *self.seen.lock().unwrap() += 1;
    }
    fn observes(&self) -> bool {
        self.wants
    }
}

/// A scheduler that declines observations gets none, and the run is the
/// same as with one that takes them (observing changes nothing).
#[test]
fn a_scheduler_that_declines_observations_gets_none_and_the_same_run() {
    let run = |wants: bool| {
        let seen = Arc::new(Mutex::new(0));
        let s = seen.clone();
        let rt = Builder::new_current_thread()
            .enable_all()
            .seed(3)
            .scheduler(move |seed| Opting {
                inner: sim_rt::scheduler::RandomScheduler::new(seed),
                wants,
                seen: s.clone(),
            })
            .build()
            .unwrap();
        let out = rt.block_on(program(false));
        let seen = *seen.lock().unwrap();
        (out, rt.trace(), seen)
    };
    let (out_on, trace_on, seen_on) = run(true);
    let (out_off, trace_off, seen_off) = run(false);
    assert!(
        seen_on > 0,
        "observations reach a scheduler that wants them"
    );
    assert_eq!(seen_off, 0, "none reach one that declines them");
    assert_eq!(out_on, out_off);
    assert_eq!(trace_on, trace_off);
}

/// The default trace stores only the steps that had a real choice; it
/// replays the same execution (same output, same hash over every step,
/// forced ones included) and catches a changed program all the same.
#[test]
fn a_compact_trace_replays_the_same_execution() {
    let (out, full, _) = record(5);
    let rt = random_order(5);
    assert_eq!(rt.block_on(program(false)), out);
    let compact = rt.trace();
    drop(rt);
    assert!(!compact.is_full());
    assert_eq!(compact.len(), full.len());
    assert_eq!(compact.hash(), full.hash());
    let forced = full.steps().iter().filter(|s| s.is_forced()).count();
    assert!(forced > 0, "the program has forced steps");
    assert_eq!(compact.steps().len(), full.len() - forced);
    assert!(compact
        .positions()
        .iter()
        .all(|&at| !full.steps()[at as usize].is_forced()));

    let rt = Builder::new_current_thread()
        .enable_all()
        .replay(compact.clone())
        .build()
        .unwrap();
    assert_eq!(rt.block_on(program(false)), out);
    assert_eq!(rt.trace().hash(), full.hash());
    drop(rt);

    let rt = Builder::new_current_thread()
        .enable_all()
        .replay(compact)
        .build()
        .unwrap();
    let err = catch_unwind(AssertUnwindSafe(|| rt.block_on(program(true)))).unwrap_err();
    let msg = err.downcast_ref::<String>().cloned().unwrap_or_default();
    assert!(msg.contains("replay diverged at step"), "{msg}");
}

/// A walk from a prefix: the first `k` steps are the recorded run's, step
/// for step; after them the walk's own scheduler decides, so walks with
/// different seeds part ways, and each is itself deterministic.
#[test]
fn a_walk_replays_its_prefix_then_goes_its_own_way() {
    use sim_rt::scheduler::{RandomScheduler, ReplayPrefix};
    let (_, recorded, _) = record(11);
    let k = recorded.len() as u64 / 2;
    let walk = |walk_seed: u64| {
        let t = recorded.clone();
        let rt = Builder::new_current_thread()
            .enable_all()
            .seed(recorded.seed())
            .full_trace(true)
            .scheduler(move |_| ReplayPrefix::new(t.clone(), k, RandomScheduler::new(walk_seed)))
            .build()
            .unwrap();
        let out = rt.block_on(program(false));
        (out, rt.trace())
    };
    let mut ends = std::collections::BTreeSet::new();
    for seed in 0..6 {
        let (out, trace) = walk(seed);
        assert_eq!(
            &trace.steps()[..k as usize],
            &recorded.steps()[..k as usize],
            "walk {seed}: the prefix is the recorded run's"
        );
        assert_eq!(walk(seed).1, trace, "walk {seed} is deterministic");
        ends.insert((out, trace.hash()));
    }
    assert!(ends.len() > 1, "walks with different seeds part ways");

    // A prefix of the whole trace is the recorded run.
    let t = recorded.clone();
    let rt = Builder::new_current_thread()
        .enable_all()
        .seed(recorded.seed())
        .full_trace(true)
        .scheduler(move |_| ReplayPrefix::new(t.clone(), t.len() as u64, RandomScheduler::new(99)))
        .build()
        .unwrap();
    rt.block_on(program(false));
    assert_eq!(rt.trace(), recorded);
}
