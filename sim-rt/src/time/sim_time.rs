//! Simulated time in log lines.

use std::fmt;

use tracing_subscriber::fmt::format::Writer;
use tracing_subscriber::fmt::time::FormatTime;

use crate::runtime::context;

/// A [`tracing_subscriber`] timer that stamps each log line with the
/// simulation's elapsed time (the real wall clock means nothing inside a
/// simulation). Outside a simulation it writes `-`.
///
/// ```
/// let subscriber = tracing_subscriber::fmt()
///     .with_timer(sim_rt::time::SimTime)
///     .finish();
/// # let _ = subscriber;
/// ```
///
/// Every poll also runs inside a `host{name=..}` and a `task{id=..}` span,
/// so a line reads like
/// `   1.250000s  INFO host{name="server"}:task{id=3}: accepted`.
#[derive(Debug, Clone, Copy, Default)]
pub struct SimTime;

impl FormatTime for SimTime {
    fn format_time(&self, w: &mut Writer<'_>) -> fmt::Result {
        // The runtime may be in the middle of changing its state (a span
        // event while a task is created or removed): no time then.
        let elapsed = context::try_with(|world| {
            let core = world.core.try_borrow().ok()?;
            Some(core.now - core.start)
        });
        match elapsed.flatten() {
            Some(elapsed) => write!(w, "{:>11.6}s", elapsed.as_secs_f64()),
            None => write!(w, "{:>12}", "-"),
        }
    }
}
