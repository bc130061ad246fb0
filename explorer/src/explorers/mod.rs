//! Delaying explorers: a default scheduling strategy plus a `delay` that
//! deviates from it (Desai, Qadeer & Seshia, "Systematic testing of
//! asynchronous reactive systems", FSE 2015, section 2).
//!
//! A [`DelayingExplorer`] is a tuple `(next, delay, step)` over the
//! runtime's enabled [`Event`]s and its [`Observation`]s:
//!
//! - [`next`](DelayingExplorer::next) names the enabled event the explorer's
//!   strategy would run now;
//! - [`delay`](DelayingExplorer::delay) changes the explorer's state so that
//!   `next` names a different event (round-robin moves the head of its queue
//!   to the tail);
//! - [`step`](DelayingExplorer::step) tells it what happened, so it can keep
//!   its data structure up to date (a task was spawned, woken, blocked; a
//!   packet was sent).
//!
//! The searches ([`crate::search`]) decide where delays go; the explorer only
//! decides what a delay means. Data choices (packet loss, duplication, fault
//! injection, `select!` branch order, `sim_rt::choose`) never reach the
//! explorer: the searches resolve them, default first, each other option
//! costing one delay.
//!
//! # Soundness
//!
//! An explorer must be **sound**: from any state, applying `delay` `k` times
//! and then `next` once, to a fresh copy of the explorer for each `k = 0, 1,
//! ..., m - 1`, where `m` is the number of enabled events, names every
//! enabled event (a copy for each `k`, because `next` may change the state:
//! PCT counts steps, the random explorer ends its step). The built-ins do more: the `m`
//! answers are pairwise distinct, so `k = m` comes back to the first, and
//! stratified exhaustive search tries exactly `m` alternatives at a step.
//! Each built-in has a test of this. [`check_sound`] checks an explorer at
//! one state; a custom explorer's tests should call it at many.
//!
//! # Identity of events
//!
//! Explorers order *units*, the things behind events ([`Unit`]): a task, a
//! packet in flight, or the clock. A unit keeps its identity across steps
//! while the enabled set changes around it.
//!
//! # Determinism
//!
//! An explorer must be a function of its seed and of what it was told. The
//! order of the `enabled` slice is deterministic but not canonical, so
//! explorers look events up by unit, never by position alone.
//!
//! # Writing one
//!
//! A "last in, first out" explorer: newest unit first, `delay` moves the
//! unit it would pick to the back.
//!
//! ```
//! use explorer::{DelayingExplorer, Unit};
//! use sim_rt::scheduler::{Event, Observation};
//!
//! #[derive(Debug, Clone, Default)]
//! struct Lifo {
//!     /// Units, newest last.
//!     stack: Vec<Unit>,
//! }
//!
//! impl Lifo {
//!     /// Position in `enabled` and in `stack` of the newest enabled unit,
//!     /// learning units it has not seen yet (they count as newest, in
//!     /// `Unit` order, so that the slice's order does not matter).
//!     fn top(&mut self, enabled: &[Event]) -> (usize, usize) {
//!         let mut new: Vec<Unit> = enabled
//!             .iter()
//!             .map(|e| Unit::of(*e))
//!             .filter(|u| !self.stack.contains(u))
//!             .collect();
//!         new.sort();
//!         self.stack.extend(new);
//!         let s = (0..self.stack.len())
//!             .rev()
//!             .find(|&s| enabled.iter().any(|e| Unit::of(*e) == self.stack[s]))
//!             .expect("every enabled unit is on the stack");
//!         let i = enabled.iter().position(|e| Unit::of(*e) == self.stack[s]).unwrap();
//!         (i, s)
//!     }
//! }
//!
//! impl DelayingExplorer for Lifo {
//!     fn name(&self) -> String {
//!         "lifo".into()
//!     }
//!     fn next(&mut self, enabled: &[Event]) -> usize {
//!         self.top(enabled).0
//!     }
//!     fn delay(&mut self, enabled: &[Event]) {
//!         let (_, s) = self.top(enabled);
//!         let unit = self.stack.remove(s);
//!         self.stack.insert(0, unit);
//!     }
//!     fn step(&mut self, observation: &Observation) {
//!         if let Observation::Spawned { task, .. } = observation {
//!             self.stack.push(Unit::Task(*task));
//!         }
//!     }
//! }
//! ```

use sim_rt::scheduler::{Event, Observation, PacketId};
use sim_rt::task::Id;

/// What an [`Event`] is about: the unit an explorer orders.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Unit {
    /// A task ([`Event::Poll`]).
    Task(Id),
    /// A packet in flight ([`Event::Deliver`]).
    Packet(PacketId),
    /// Simulated time ([`Event::Advance`]).
    Clock,
}

impl Unit {
    /// The unit behind `event`.
    pub fn of(event: Event) -> Unit {
        match event {
            Event::Poll(id) => Unit::Task(id),
            Event::Deliver(p) => Unit::Packet(p),
            Event::Advance => Unit::Clock,
            // `Event` is non-exhaustive; every variant sim-rt has today is
            // matched above, and a new one must get its own unit here.
            #[allow(unreachable_patterns)]
            other => unreachable!("no unit for {other:?}: Unit::of needs updating"),
        }
    }
}

/// A default strategy with a way to deviate from it. See the module docs.
///
/// The harness clones a configured value for each execution and calls
/// [`start`](Self::start) with the execution's seed; then, at every step,
/// [`delay`](Self::delay) as many times as the search decided and
/// [`next`](Self::next) once. [`step`](Self::step) receives every
/// observation as it happens: the effects of the event just run, and also
/// wakes collected while the runtime prepares the next pick (so some arrive
/// between one `next` and the following `delay`).
pub trait DelayingExplorer: Send {
    /// A short name for reports and replay tokens ("rtc", "rr"...).
    fn name(&self) -> String;

    /// Begins an execution. `seed` is the execution's seed: randomized
    /// explorers seed their generator from it. The harness calls it on a
    /// fresh clone of the configured value; an explorer that may be reused
    /// should also reset its state here (the built-ins do). The default does
    /// nothing.
    fn start(&mut self, seed: u64) {
        let _ = seed;
    }

    /// The index in `enabled` (never empty) of the event the explorer's
    /// strategy runs now.
    fn next(&mut self, enabled: &[Event]) -> usize;

    /// Deviates from the strategy at this step, so that `next(enabled)`
    /// names another event. Must be sound (see the module docs).
    fn delay(&mut self, enabled: &[Event]);

    /// Learns what happened (called for every observation, in order).
    fn step(&mut self, observation: &Observation);

    /// Whether the explorer draws random numbers (from the seed given to
    /// [`start`](Self::start)). Random walks need a randomized explorer;
    /// the default is `false`.
    fn is_randomized(&self) -> bool {
        false
    }

    /// Whether calling [`next`](Self::next) twice with nothing between
    /// gives the same answer and changes nothing (it draws no random
    /// number). The harness then asks `next` before a scheduled delay, to
    /// learn which event the delay puts off: a delayed delivery is held
    /// back (see [`Explorer`](crate::Explorer)). The default is `false`
    /// (an explorer that counts or draws in `next` must not be asked twice);
    /// the built-in delaying explorers say `true`.
    fn next_is_pure(&self) -> bool {
        false
    }
}

impl DelayingExplorer for Box<dyn DelayingExplorer> {
    fn name(&self) -> String {
        (**self).name()
    }
    fn start(&mut self, seed: u64) {
        (**self).start(seed)
    }
    fn next(&mut self, enabled: &[Event]) -> usize {
        (**self).next(enabled)
    }
    fn delay(&mut self, enabled: &[Event]) {
        (**self).delay(enabled)
    }
    fn step(&mut self, observation: &Observation) {
        (**self).step(observation)
    }
    fn is_randomized(&self) -> bool {
        (**self).is_randomized()
    }
    fn next_is_pure(&self) -> bool {
        (**self).next_is_pure()
    }
}

mod pct;
mod pos;
mod prr;
mod random;
mod rr;
mod rtc;
mod soundness;

pub use self::pct::Pct;
pub use self::pos::Pos;
pub use self::prr::RandomizedRoundRobin;
pub use self::random::Random;
pub use self::rr::RoundRobin;
pub use self::rtc::Rtc;
pub use self::soundness::check_sound;
