//! `sim::annotate`: the scheduler observes each label with the task and
//! host that gave it, in program order; outside a simulation it does
//! nothing.

mod rt_support;

use std::sync::{Arc, Mutex};

use rt_support::RandomWith;
use sim_rt::runtime::Builder;
use sim_rt::scheduler::Observation;
use sim_rt::sim;

/// Records every annotation it observes.
fn record_annotations(seen: Arc<Mutex<Vec<Observation>>>) -> impl FnMut(&Observation) {
    move |o| {
        if let Observation::Annotated { .. } = o {
            seen.lock().unwrap().push(*o);
        }
    }
}

#[test]
fn the_scheduler_sees_each_label_with_its_task_and_host() {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let s = seen.clone();
    let (main_host, worker_host, worker_task) = Builder::new_current_thread()
        .enable_all()
        .scheduler(move |seed| RandomWith::watching(seed, record_annotations(s.clone())))
        .build()
        .unwrap()
        .block_on(async {
            let main_host = sim::current_host();
            let (tx, rx) = sim_rt::sync::oneshot::channel();
            let tx = std::cell::Cell::new(Some(tx));
            let host = sim::host("worker").start(move || {
                let tx = tx.take();
                async move {
                    sim::annotate("role:worker");
                    if let Some(tx) = tx {
                        let _ = tx.send(sim_rt::task::id());
                    }
                }
            });
            let task = rx.await.unwrap();
            sim::annotate("phase:started");
            (main_host, host, task)
        });
    let seen = seen.lock().unwrap().clone();
    assert_eq!(seen.len(), 2, "{seen:?}");
    assert_eq!(
        seen[0],
        Observation::Annotated {
            task: Some(worker_task),
            host: worker_host,
            label: "role:worker",
        }
    );
    let Observation::Annotated { task, host, label } = seen[1] else {
        unreachable!()
    };
    assert_eq!((host, label), (main_host, "phase:started"));
    assert!(
        task.is_some_and(|t| t != worker_task),
        "the main task annotates as itself: {task:?}"
    );
}

#[test]
fn outside_a_simulation_it_does_nothing() {
    sim::annotate("nobody listens");
}
