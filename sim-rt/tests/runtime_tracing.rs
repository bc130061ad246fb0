//! Each poll runs inside host and task spans; `SimTime` stamps log lines
//! with simulated time.

use std::io::Write;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tracing_subscriber::fmt::format::FmtSpan;

#[derive(Clone, Default)]
struct Buf(Arc<Mutex<Vec<u8>>>);

impl Write for Buf {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(b);
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// What `f`, given a fresh simulation with the default settings, logs
/// through a `SimTime`-stamped fmt subscriber that also writes the span
/// events in `spans`. The simulation is built and dropped under that
/// subscriber.
fn logged(spans: FmtSpan, f: impl FnOnce(&sim_rt::runtime::Runtime)) -> String {
    let buf = Buf::default();
    let writer = buf.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_timer(sim_rt::time::SimTime)
        .with_span_events(spans)
        .with_max_level(tracing::Level::TRACE)
        .with_ansi(false)
        .with_writer(move || writer.clone())
        .finish();
    tracing::subscriber::with_default(subscriber, || {
        f(&sim_rt::runtime::Builder::new_current_thread()
            // Work takes no time: the times asserted are exact.
            .poll_cost(std::time::Duration::ZERO)
            .enable_all()
            .build()
            .unwrap())
    });
    let out = buf.0.lock().unwrap().clone();
    String::from_utf8(out).unwrap()
}

#[test]
fn log_lines_show_simulated_time_host_and_task() {
    let out = logged(FmtSpan::NONE, |rt| {
        rt.block_on(async {
            sim_rt::sim::host("server").start(|| async {
                sim_rt::time::sleep(Duration::from_millis(1250)).await;
                tracing::info!("accepted");
            });
            sim_rt::time::sleep(Duration::from_secs(2)).await;
            tracing::info!("done");
        });
        tracing::info!("outside");
    });
    let lines: Vec<&str> = out.lines().collect();
    let accepted = lines.iter().find(|l| l.ends_with("accepted")).expect(&out);
    assert!(accepted.starts_with("   1.250000s"), "{accepted}");
    assert!(
        accepted.contains("host{name=\"server\"}:task{id=2 entry=true}:"),
        "{accepted}"
    );
    let done = lines.iter().find(|l| l.ends_with("done")).expect(&out);
    assert!(done.starts_with("   2.000000s"), "{done}");
    assert!(
        done.contains("host{name=\"main\"}:task{id=1 main=true}:"),
        "{done}"
    );
    let outside = lines.iter().find(|l| l.ends_with("outside")).expect(&out);
    assert!(outside.trim_start().starts_with("- "), "{outside}");
}

/// Span events (`FmtSpan::NEW | CLOSE`) are written while the runtime is
/// creating or removing a task: the timer must not need the runtime then.
#[test]
fn span_events_while_tasks_come_and_go_are_stamped_without_panicking() {
    let out = logged(FmtSpan::FULL, |rt| {
        rt.block_on(async {
            let t = sim_rt::spawn(async { sim_rt::time::sleep(Duration::from_millis(3)).await });
            t.await.unwrap();
        });
    });
    assert!(out.contains("task{"), "{out}");
    assert!(out.lines().any(|l| l.starts_with("   0.003000s")), "{out}");
}
