//! Sampling and walks on several threads and shards: the results do not
//! depend on `SIM_JOBS`, and the shards partition the unsharded search.

use std::collections::BTreeSet;
use std::sync::{Arc, Mutex};

use explorer::{Explorer, Pct, Report, RoundRobin, Sampling, Search, Walk};

/// Three tasks appending to a log through a yield; with `bug`, the order
/// `C` before `A` fails.
async fn program(bug: bool) {
    let log = Arc::new(Mutex::new(String::new()));
    let tasks: Vec<_> = ['A', 'B', 'C']
        .into_iter()
        .map(|c| {
            let l = log.clone();
            sim_rt::spawn(async move {
                sim_rt::task::yield_now().await;
                l.lock().unwrap().push(c);
            })
        })
        .collect();
    for t in tasks {
        t.await.unwrap();
    }
    let log = log.lock().unwrap().clone();
    if bug {
        assert!(log.find('A') < log.find('C'), "C before A: {log}");
    }
}

/// Sampling with round-robin, walks with PCT (a walk needs a randomized
/// explorer).
fn explore(search: Search, jobs: usize, shard: Option<(u32, u32)>, bug: bool) -> Report {
    let e = Explorer::new();
    let mut e = match search {
        Search::Sampling(_) => e.explorer(RoundRobin::default()),
        _ => e.explorer(Pct::new(2)),
    }
    .search(search)
    .executions(600)
    .seed(11)
    .jobs(jobs)
    .progress(false);
    if let Some((i, n)) = shard {
        e = e.shard(i, n);
    }
    e.run(move || program(bug))
}

fn searches() -> [Search; 2] {
    [Sampling::new(3).into(), Walk.into()]
}

#[test]
fn shards_partition_the_unsharded_samples() {
    for search in searches() {
        let whole = explore(search.clone(), 2, None, false);
        assert!(!whole.failed());
        let all: BTreeSet<u64> = whole.samples.iter().copied().collect();
        assert_eq!(all.len(), whole.samples.len(), "sample seeds are distinct");
        let mut union = BTreeSet::new();
        let mut executions = 0;
        for i in 0..3 {
            let part = explore(search.clone(), 2, Some((i, 3)), false);
            assert_eq!(part.shard, Some((i, 3)));
            executions += part.executions;
            for s in part.samples {
                assert!(union.insert(s), "shards are disjoint");
            }
        }
        assert_eq!(union, all, "{}", search.name());
        assert_eq!(executions, whole.executions);
    }
}

#[test]
fn one_job_and_two_jobs_give_identical_results() {
    for search in searches() {
        for bug in [false, true] {
            let one = explore(search.clone(), 1, None, bug);
            let two = explore(search.clone(), 2, None, bug);
            assert_eq!(one.samples, two.samples);
            assert_eq!(one.executions, two.executions);
            assert_eq!(one.max_delays_reached, two.max_delays_reached);
            assert_eq!(one.failed(), bug, "{}: {one}", search.name());
            if let (Some(a), Some(b)) = (&one.failure, &two.failure) {
                assert_eq!(a.token, b.token);
                assert_eq!(a.execution, b.execution);
                assert_eq!(a.trace, b.trace);
            }
        }
    }
}

/// A budget smaller than one sample still runs one sample (the budget is
/// rounded up to whole samples, never down to nothing).
#[test]
fn a_budget_below_one_sample_runs_one() {
    let r = Explorer::new()
        .explorer(RoundRobin::default())
        .search(Sampling::new(3))
        .executions(1)
        .progress(false)
        .run(|| program(false));
    assert_eq!(r.samples.len(), 1);
    assert!(r.executions >= 1, "{r}");
}
