//! The log lines of a telling run: a tracing subscriber that keeps each
//! line with the step it was emitted at, for the failure's picture.

use std::fmt::Write as _;
use std::sync::{Arc, Mutex};

/// Keeps every tracing call site's interest open for the telling runs'
/// [`Logs`]: a subscriber that records nothing and lives as long as the
/// process, registered before the first execution, so that no call site is
/// cached as "never" interesting. Without it, a call site first hit by a
/// search thread while no subscriber listened could stay "never" for a
/// telling run on another thread, rebuilt cache or not (seen with several
/// explorations in parallel: the picture lost its log lines). Costs a
/// thread-local lookup per event outside telling runs.
pub(crate) fn keep_interest() {
    struct Keeper;
    impl tracing::Subscriber for Keeper {
        fn register_callsite(
            &self,
            _: &'static tracing::Metadata<'static>,
        ) -> tracing::subscriber::Interest {
            tracing::subscriber::Interest::sometimes()
        }
        fn enabled(&self, _: &tracing::Metadata<'_>) -> bool {
            false
        }
        fn max_level_hint(&self) -> Option<tracing::level_filters::LevelFilter> {
            Some(tracing::level_filters::LevelFilter::DEBUG)
        }
        fn new_span(&self, _: &tracing::span::Attributes<'_>) -> tracing::span::Id {
            tracing::span::Id::from_u64(1)
        }
        fn record(&self, _: &tracing::span::Id, _: &tracing::span::Record<'_>) {}
        fn record_follows_from(&self, _: &tracing::span::Id, _: &tracing::span::Id) {}
        fn event(&self, _: &tracing::Event<'_>) {}
        fn enter(&self, _: &tracing::span::Id) {}
        fn exit(&self, _: &tracing::span::Id) {}
    }
    static KEEPER: std::sync::OnceLock<tracing::Dispatch> = std::sync::OnceLock::new();
    KEEPER.get_or_init(|| tracing::Dispatch::new(Keeper));
}

/// The log lines of a run, with the step each was emitted at: a tracing
/// subscriber for the run that draws a failure.
#[derive(Clone, Default)]
pub(crate) struct Logs(Arc<Mutex<Vec<(u64, String)>>>);

impl Logs {
    pub(crate) fn take(&self) -> Vec<(u64, String)> {
        std::mem::take(&mut *self.0.lock().expect("not poisoned"))
    }
}

struct Fields(String);

impl tracing::field::Visit for Fields {
    fn record_debug(&mut self, field: &tracing::field::Field, value: &dyn std::fmt::Debug) {
        if field.name() == "message" {
            let _ = write!(self.0, "{value:?} ");
        } else {
            let _ = write!(self.0, "{}={value:?} ", field.name());
        }
    }
}

impl tracing::Subscriber for Logs {
    fn enabled(&self, metadata: &tracing::Metadata<'_>) -> bool {
        *metadata.level() <= tracing::Level::DEBUG
    }
    fn new_span(&self, _: &tracing::span::Attributes<'_>) -> tracing::span::Id {
        tracing::span::Id::from_u64(1)
    }
    fn record(&self, _: &tracing::span::Id, _: &tracing::span::Record<'_>) {}
    fn record_follows_from(&self, _: &tracing::span::Id, _: &tracing::span::Id) {}
    fn event(&self, event: &tracing::Event<'_>) {
        if sim_rt::runtime::Handle::try_current().is_err() {
            return;
        }
        let step = sim_rt::sim::step();
        let mut fields = Fields(String::new());
        event.record(&mut fields);
        let m = event.metadata();
        let line = format!("{} {}: {}", m.level(), m.target(), fields.0.trim_end());
        self.0.lock().expect("not poisoned").push((step, line));
    }
    fn enter(&self, _: &tracing::span::Id) {}
    fn exit(&self, _: &tracing::span::Id) {}
}
