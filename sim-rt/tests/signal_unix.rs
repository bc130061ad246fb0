//! `signal::unix`: listeners per host and signal kind, deliveries sent by
//! the simulation, coalescing, and the signals tokio refuses.

use std::time::Duration;

use sim_rt::signal::unix::{signal, SignalKind};
use sim_rt::sync::mpsc;

#[sim_rt::test]
async fn a_host_sees_the_signals_sent_to_it() {
    let (tx, mut rx) = mpsc::unbounded_channel();
    sim_rt::sim::host("server").start(move || {
        let tx = tx.clone();
        async move {
            let mut term = signal(SignalKind::terminate()).unwrap();
            let mut hup = signal(SignalKind::hangup()).unwrap();
            hup.recv().await;
            tx.send("hangup").unwrap();
            term.recv().await;
            tx.send("terminate").unwrap();
        }
    });
    sim_rt::time::sleep(Duration::from_millis(1)).await;
    sim_rt::sim::send_signal("server", SignalKind::hangup());
    assert_eq!(rx.recv().await, Some("hangup"));
    // A signal to another host, or of another kind, is not seen.
    sim_rt::sim::send_signal("main", SignalKind::terminate());
    sim_rt::sim::send_signal("server", SignalKind::user_defined1());
    sim_rt::time::sleep(Duration::from_millis(1)).await;
    assert!(rx.try_recv().is_err());
    sim_rt::sim::send_signal("server", SignalKind::terminate());
    assert_eq!(rx.recv().await, Some("terminate"));
}

#[sim_rt::test]
async fn signals_sent_between_receives_count_once_and_earlier_ones_not_at_all() {
    sim_rt::sim::send_signal("main", SignalKind::user_defined2());
    let mut usr2 = signal(SignalKind::user_defined2()).unwrap();
    let waker = std::task::Waker::noop();
    let mut cx = std::task::Context::from_waker(waker);
    assert!(
        usr2.poll_recv(&mut cx).is_pending(),
        "sent before the listener"
    );
    sim_rt::sim::send_signal("main", SignalKind::user_defined2());
    sim_rt::sim::send_signal("main", SignalKind::user_defined2());
    assert_eq!(usr2.recv().await, Some(()));
    assert!(
        usr2.poll_recv(&mut cx).is_pending(),
        "two deliveries, one receive"
    );
}

#[sim_rt::test]
async fn ctrl_c_is_sigint() {
    let mut int = signal(SignalKind::interrupt()).unwrap();
    let (listening, ready) = sim_rt::sync::oneshot::channel();
    let ctrl_c = sim_rt::spawn(async move {
        // ctrl_c() starts listening at its first poll.
        let mut ctrl_c = std::pin::pin!(sim_rt::signal::ctrl_c());
        assert!(futures::poll!(ctrl_c.as_mut()).is_pending());
        listening.send(()).unwrap();
        ctrl_c.await
    });
    ready.await.unwrap();
    sim_rt::sim::send_ctrl_c("main");
    int.recv().await;
    ctrl_c.await.unwrap().unwrap();
}

#[sim_rt::test]
async fn unhandleable_signals_are_refused() {
    for forbidden in [4, 8, 9, 11, 19, -1] {
        let err = signal(SignalKind::from_raw(forbidden)).unwrap_err();
        assert_eq!(
            err.to_string(),
            format!("Refusing to register signal {forbidden}")
        );
    }
    let kind: SignalKind = 15.into();
    assert_eq!(kind, SignalKind::terminate());
    assert_eq!(i32::from(SignalKind::window_change()), 28);
}
