//! Liveness in an exploration, after MaceMC (Killian et al., NSDI 2007):
//! random walks from an execution that ended with an "eventually" property
//! unmet, a verdict on what kind of failure it is, and the search for its
//! critical transition.
//!
//! An execution whose main future returns while a
//! [`sim::eventually`](sim_rt::sim::eventually) property has not held is
//! only *indeterminate*: the system may be stuck, or only slower than the
//! test's bound. The explorer then runs [`walks`](Liveness::walks) random
//! walks from the state the execution ended in. The runtime cannot snapshot
//! a state, so a walk re-runs the execution's choices up to that point and
//! then chooses at random. If one walk reaches the property, the execution
//! was only slow: it does not count as a failure (the report counts it
//! in [`Report::slow`](crate::Report::slow)). If none does, the failure is
//! reported with a [`LivenessFinding`] and its [`Verdict`].
//!
//! # Verdicts
//!
//! Each walk ends in one of three ways: it reaches the property; it
//! *stops*, because nothing more can happen (no task can run, no timer is
//! armed, no packet is in flight); or it *runs on* to its bound with events
//! still happening. When no walk reaches the property:
//!
//! - **dead**: every walk stopped (or the execution itself ended with
//!   nothing more to happen): the property can never hold;
//! - **livelock**: every walk ran on for the whole of its simulated time
//!   (or spun: see `Builder::livelock_steps`): the system keeps doing
//!   things and the property never comes; the report says what kept
//!   happening in the first walk (clock moves, deliveries, polls);
//! - **unknown**: the walks disagree (some stopped, some ran on), or they
//!   ran out of steps before their simulated time was up.
//!
//! # Walk bounds
//!
//! A walk is bounded in simulated time and in steps, both derived from the
//! execution. Its time reaches at least [`WALK_TIME_FACTOR`] + 1 times the
//! execution's simulated duration, twice the latest deadline any timer of
//! the execution was armed with (so it outlasts the program's own timeouts,
//! retries and scheduled heals) as far as its steps can reach, and
//! [`MIN_WALK_TIME`] past the execution's end. Its steps are what the
//! execution's own rate of steps per simulated time needs to cover that,
//! twice over, at least [`WALK_LENGTH_FACTOR`] times the execution's steps
//! and [`MIN_WALK_LENGTH`], and at most [`MAX_WALK_LENGTH_FACTOR`] times
//! the larger of those two. A chatty system (a client pinging every
//! millisecond) thus gets the steps its chatter needs, and a timer far
//! beyond what those steps reach at that rate (a daily job, a "never"
//! deadline) does not stretch its walks past them. A walk that runs out of
//! steps first is reported "unknown", never "livelock"; so is one that
//! waited, with nothing happening for half its time, for an event past its
//! end.
//!
//! # The critical transition
//!
//! For a dead execution, the explorer looks for the choice after which no
//! walk recovers. A *probe* at a cut runs up to `k` walks from the state
//! after the execution's first steps up to the cut: it is live when one of
//! them reaches the property (it stops there), dead when none does. Cuts
//! are placed only just after steps that had a real choice (two options or
//! more): a forced step leads to the same state whatever a walk does, so it
//! cannot be the transition. The probes go over those cuts 0, 1, 2, 4, ...
//! until one is dead (the end is dead already), then a binary search
//! between the last live cut and the first dead one. The choice between
//! them is the critical transition. The report gives its event, a replay
//! token for a dead walk just after it and one for a live walk just before
//! it (the two share every step before the transition), and a confidence:
//! how many of `k` walks from just before it reach the property (none of
//! `k` from just after it do).
//!
//! # Cost
//!
//! For an execution of `N` steps with `C` real choices and walks of `L`
//! steps, a probe costs at most `k` walks of at most `N + L` steps (the
//! prefix is re-run). The search runs at most `2 * ceil(log2 C) + 3`
//! probes (one more, complete, for the confidence): so at most
//! `k * (N + L) * (2 * ceil(log2 C) + 3)` steps. A live probe usually stops
//! after its first walk, and a dead one whose walks stop (a dead system)
//! after a few steps each; only a livelock's dead probes run their walks to
//! the bound.
//!
//! # Defaults and why
//!
//! - `k` = [`DEFAULT_WALKS`] = 10 walks. If a walk from a live state reaches
//!   the property with probability `q`, all ten miss it with probability
//!   `(1 - q)^10`: 2.8% at `q = 0.3`, 0.1% at `q = 0.5`. Raising `k` makes
//!   the verdict surer and a dead probe proportionally dearer.
//! - The bounds above: see *Walk bounds*.
//! - Faults: [`WalkFaults::Heal`]. A walk heals every partition when it
//!   starts and makes no new faults: MaceMC's assumption that the
//!   environment eventually behaves, and TigerBeetle's liveness mode. A
//!   system that only stalls while a partition lasts is then slow, not
//!   dead; a crashed host stays down, so a system that cannot recover from
//!   a crash is still found. [`WalkFaults::Keep`] asks whether the system
//!   can get there in the environment the execution left it in (a
//!   partition stays); [`WalkFaults::Rare`] lets the injector go on at a
//!   tenth of its rate.
//!
//! Hot monitors ([`sim::monitor`](sim_rt::sim::monitor)) past their limit
//! are violations as they stand: they are reported without walks.
//!
//! # Determinism
//!
//! Walk seeds derive from the execution's seed and the probe's prefix
//! length; the search is a function of the execution, so the same failure
//! gives the same verdict and the same critical transition.

use std::collections::BTreeMap;
use std::time::Duration;

use sim_rt::runtime::{FailureKind, Step, Trace};
use sim_rt::scheduler::{derive_seed, Event};
use sim_rt::task::Id;

use crate::exec::{Exec, Ran, Target};
use crate::tell::Words;
pub use crate::token::WalkFaults;
use crate::token::{ReplayToken, WalkTail};

/// Walks from an indeterminate state (`k`) by default.
pub const DEFAULT_WALKS: u32 = 10;
/// A walk takes at least this many times the failing execution's steps...
pub const WALK_LENGTH_FACTOR: u64 = 4;
/// ...and at least this many steps...
pub const MIN_WALK_LENGTH: u64 = 5_000;
/// ...and at most this many times the larger of those two, however many
/// its simulated time would need.
pub const MAX_WALK_LENGTH_FACTOR: u64 = 20;
/// A walk's simulated time goes on at least this many times the
/// execution's own duration past its end...
pub const WALK_TIME_FACTOR: u32 = 4;
/// ...and at least this long past it.
pub const MIN_WALK_TIME: Duration = Duration::from_secs(1);

/// How an exploration treats an execution that ends with an "eventually"
/// property unmet: see the [module docs](crate::liveness).
///
/// ```
/// use std::time::Duration;
///
/// use explorer::{Explorer, Liveness, WalkFaults};
///
/// let explorer = Explorer::new().liveness(
///     Liveness::new()
///         .walks(5)
///         .walk_length(20_000)
///         .walk_time(Duration::from_secs(30))
///         .faults(WalkFaults::Keep),
/// );
/// # let _ = explorer;
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Liveness {
    walks: u32,
    length: Option<u64>,
    time: Option<Duration>,
    faults: WalkFaults,
    critical: bool,
}

impl Default for Liveness {
    fn default() -> Self {
        Liveness::new()
    }
}

impl Liveness {
    /// [`DEFAULT_WALKS`] walks with the default bounds, partitions healed,
    /// and the critical-transition search on.
    pub fn new() -> Liveness {
        Liveness {
            walks: DEFAULT_WALKS,
            length: None,
            time: None,
            faults: WalkFaults::Heal,
            critical: true,
        }
    }

    /// Walks per state (`k`). 0 turns walks off: an indeterminate
    /// execution is reported as found, without a verdict.
    pub fn walks(mut self, k: u32) -> Self {
        self.walks = k;
        self
    }

    /// Steps per walk after its prefix (default: derived from the
    /// execution, see the [module docs](crate::liveness)).
    ///
    /// # Panics
    ///
    /// When `steps` is 0.
    pub fn walk_length(mut self, steps: u64) -> Self {
        assert!(steps > 0, "a liveness walk needs at least one step");
        self.length = Some(steps);
        self
    }

    /// Simulated time per walk past the execution's end (default: derived
    /// from the execution, see the [module docs](crate::liveness)). A walk
    /// that covers it with events still happening is a livelock.
    ///
    /// # Panics
    ///
    /// When `time` is shorter than a millisecond.
    pub fn walk_time(mut self, time: Duration) -> Self {
        assert!(
            time >= Duration::from_millis(1),
            "a liveness walk needs at least a millisecond of simulated time"
        );
        self.time = Some(time);
        self
    }

    /// What walks do with faults (default [`WalkFaults::Heal`]).
    pub fn faults(mut self, faults: WalkFaults) -> Self {
        self.faults = faults;
        self
    }

    /// Whether to search for the critical transition of a dead execution
    /// (default on).
    pub fn critical_transition(mut self, on: bool) -> Self {
        self.critical = on;
        self
    }

    /// A walk's bounds after an execution of `steps` steps that took
    /// `elapsed` of simulated time and armed its latest timer for
    /// `latest`: steps, and the simulated time since the start at which it
    /// ends (see the module docs).
    pub(crate) fn bounds_for(
        &self,
        steps: u64,
        elapsed: Duration,
        latest: Option<Duration>,
    ) -> (u64, Duration) {
        let floor = steps
            .saturating_mul(WALK_LENGTH_FACTOR)
            .max(MIN_WALK_LENGTH);
        let ceiling = self
            .length
            .unwrap_or_else(|| floor.saturating_mul(MAX_WALK_LENGTH_FACTOR));
        let past = self.time.unwrap_or_else(|| {
            let own = elapsed.saturating_mul(WALK_TIME_FACTOR);
            let timers = latest.map_or(Duration::ZERO, |d| {
                d.saturating_mul(2).saturating_sub(elapsed)
            });
            // As far as the ceiling's steps reach at the execution's own
            // rate, twice over: past that a walk would run out of steps.
            let reach = if steps == 0 || elapsed.is_zero() {
                Duration::MAX
            } else {
                let nanos = u128::from(ceiling) * elapsed.as_nanos() / (2 * u128::from(steps));
                Duration::from_nanos(u64::try_from(nanos).unwrap_or(u64::MAX))
            };
            own.max(timers.min(reach)).max(MIN_WALK_TIME)
        });
        // Whole milliseconds: a token writes them.
        let end = Duration::from_millis(
            u64::try_from(elapsed.saturating_add(past).as_millis())
                .unwrap_or(u64::MAX)
                .saturating_add(1),
        );
        let length = self.length.unwrap_or_else(|| {
            let rate = if elapsed.is_zero() {
                u64::MAX
            } else {
                let need = 2 * u128::from(steps) * (end - elapsed).as_nanos() / elapsed.as_nanos();
                u64::try_from(need).unwrap_or(u64::MAX)
            };
            rate.clamp(floor, ceiling)
        });
        (length, end)
    }

    pub(crate) fn enabled(&self) -> bool {
        self.walks > 0
    }
}

/// What kind of liveness failure walks from its end found: see the
/// [module docs](crate::liveness).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Verdict {
    /// Nothing more can happen: every walk stopped (or the execution
    /// itself ended) with no task runnable, no timer armed and no packet in
    /// flight.
    Dead,
    /// Events keep happening and the property never holds: every walk ran
    /// for its whole simulated time, or spun.
    Livelock {
        /// What kept happening in the first walk: clock moves, deliveries,
        /// the tasks polled most.
        evidence: String,
    },
    /// The walks disagree, or ran out of steps before their time was up.
    Unknown {
        /// What the walks did.
        why: String,
    },
}

/// What the explorer found out about a liveness failure.
#[derive(Debug, Clone)]
pub struct LivenessFinding {
    /// The property that never held.
    pub property: String,
    /// Dead, livelocked or unknown.
    pub verdict: Verdict,
    /// Walks run from the end of the execution, none of which reached it
    /// (0 when the execution itself showed it dead: nothing more could
    /// happen).
    pub walks: u32,
    /// Their bound in steps.
    pub walk_length: u64,
    /// Their bound in simulated time, since the execution's start.
    pub walk_time: Duration,
    /// What they did with faults.
    pub faults: WalkFaults,
    /// The critical transition, when searched for.
    pub critical: Option<CriticalTransition>,
}

/// The first choice of a dead execution after which no walk recovers.
#[derive(Debug, Clone)]
pub struct CriticalTransition {
    /// The step, numbered as the story, the failure page and
    /// [`sim::step`](sim_rt::sim::step) number them (events run, from 1;
    /// a data choice or fault is in the step it happened in or after), or
    /// `None` when no walk reaches the property even from the start: it
    /// may be unreachable. Always a choice with two options or more (see
    /// [`point`](Self::point)).
    pub step: Option<u64>,
    /// Simulated time at that step.
    pub at: std::time::Duration,
    /// The choice point the step's pick or data choice was, as replay
    /// tokens count them (every pick and data choice, from 0).
    pub point: Option<u64>,
    /// The execution's length in choice points.
    pub of: u64,
    /// What happened at that step, in the story's words: the event or
    /// data choice, and what it did ("reset worker (fault injector)",
    /// "poll task 7 on a: sends a -> b \"hello b\"").
    pub event: String,
    /// Replays a dead walk from just after the step.
    pub dead: ReplayToken,
    /// The command that replays it.
    pub dead_command: String,
    /// Replays the live walk from just before it, which shares every
    /// earlier step with the dead one (`None` with `step`).
    pub live: Option<ReplayToken>,
    /// The command that replays it.
    pub live_command: Option<String>,
    /// The confidence: of [`walks_per_probe`](Self::walks_per_probe) walks
    /// from just before the step, how many reached the property (none from
    /// just after it did).
    pub live_walks: u32,
    /// Walks per probe (`k`).
    pub walks_per_probe: u32,
    /// Probes run (each up to `k` walks).
    pub probes: u32,
    /// Walks run in all.
    pub walks: u64,
    /// Steps those walks took in all, prefixes included (the cost).
    pub steps: u64,
}

impl std::fmt::Display for LivenessFinding {
    /// Indented lines for a failure report.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let faults = self.faults.words();
        let p = &self.property;
        match &self.verdict {
            Verdict::Dead if self.walks == 0 => writeln!(
                f,
                "  dead: the execution went on until nothing more could happen (no task could \
                 run, no timer was armed, no packet was in flight), and \"{p}\" never held"
            )?,
            Verdict::Dead => writeln!(
                f,
                "  dead: all {} walks from the end ({faults}) stopped with nothing more to happen \
                 (no task could run, no timer was armed, no packet was in flight) without \
                 reaching \"{p}\"",
                self.walks
            )?,
            Verdict::Livelock { evidence } => writeln!(
                f,
                "  livelock: none of {} walks from the end ({faults}) reached \"{p}\" in {:?} of \
                 simulated time since the start, and events kept happening: {evidence}",
                self.walks, self.walk_time
            )?,
            Verdict::Unknown { why } => writeln!(
                f,
                "  unknown: none of {} walks from the end ({faults}) reached \"{p}\"; {why}",
                self.walks
            )?,
        }
        let Some(c) = &self.critical else {
            return Ok(());
        };
        match c.step {
            Some(step) => {
                writeln!(
                    f,
                    "  critical transition: step {step}, {:?}: {}",
                    c.at, c.event
                )?;
                writeln!(
                    f,
                    "    confidence: from just before it {} of {} walks reach the property, from \
                     just after it none of {}",
                    c.live_walks, c.walks_per_probe, c.walks_per_probe
                )?;
                writeln!(f, "    after it no walk recovers: {}", c.dead_command)?;
                if let Some(live) = &c.live_command {
                    writeln!(f, "    just before it, this walk does: {live}")?;
                }
            }
            None => {
                let why = c.event.strip_prefix("none: ").unwrap_or(&c.event);
                writeln!(
                    f,
                    "  no critical transition: {why}; the property may be unreachable"
                )?;
                writeln!(f, "    a dead walk from the start: {}", c.dead_command)?;
            }
        }
        writeln!(
            f,
            "    (found with {} probes, {} walks, {} steps)",
            c.probes, c.walks, c.steps
        )
    }
}

/// How one walk ended, when it did not reach the property.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum End {
    /// Nothing more could happen.
    Stopped,
    /// It reached its simulated time with events still happening, or spun.
    RanOn,
    /// It reached its simulated time waiting, with nothing happening for
    /// at least half of it, for an event due later (this long after the
    /// start): a timer longer than the walk, not a livelock.
    Waiting(Duration),
    /// It ran out of steps before its time was up.
    OutOfSteps,
    /// It failed otherwise (a panic in the walk): no verdict from it.
    Other,
}

impl End {
    /// How the walk `tail` that ran as `ran` ended.
    fn of(tail: &WalkTail, ran: &Ran) -> End {
        let out_of_steps = ran.steps >= u64::from(tail.from).saturating_add(tail.length);
        match ran.failure.as_ref() {
            Some(f) => match f.liveness_dead() {
                Some(true) => End::Stopped,
                // The walk ended at its step or time limit with the
                // property unmet.
                Some(false) if out_of_steps => End::OutOfSteps,
                Some(false) => f.liveness_waiting().map_or(End::RanOn, End::Waiting),
                None => match f.kind() {
                    FailureKind::Livelock | FailureKind::TimeLimit => End::RanOn,
                    FailureKind::StepLimit => End::OutOfSteps,
                    _ => End::Other,
                },
            },
            // It ended without a failure and without the property.
            None => End::Other,
        }
    }
}

/// A probe's outcome.
struct Probe {
    /// The first walk that reached the property.
    live: Option<(WalkTail, Ran)>,
    /// The first walk, when it did not.
    first_dead: Option<(WalkTail, Ran)>,
    /// How each walk that did not reach the property ended.
    ends: Vec<End>,
    /// Walks that reached the property (a complete probe counts them all).
    reached: u32,
    walks: u32,
    steps: u64,
}

/// The seed of walk `w` after `from` steps of an execution seeded `seed`.
fn walk_seed(seed: u64, from: u64, w: u32) -> u64 {
    derive_seed(derive_seed(seed, 0x11fe_0000 + from), u64::from(w))
}

/// A walk's bounds.
#[derive(Debug, Clone, Copy)]
struct Bounds {
    length: u64,
    time: Duration,
}

/// Runs up to `k` walks within `bounds` after the first `from` steps of
/// `base`; stops at the first that reaches the property unless
/// `complete`.
fn probe(target: &Target<'_>, base: &Exec, from: u64, bounds: Bounds, complete: bool) -> Probe {
    let mut probe = Probe {
        live: None,
        first_dead: None,
        ends: Vec::new(),
        reached: 0,
        walks: 0,
        steps: 0,
    };
    for w in 0..target.liveness.walks {
        let tail = WalkTail {
            from: u32::try_from(from).expect("an execution of fewer than 2^32 steps"),
            seed: walk_seed(base.seed, from, w),
            length: bounds.length,
            faults: target.liveness.faults,
            time: Some(bounds.time),
        };
        let ran = target.run_once(&Exec {
            walk: Some(tail),
            ..base.clone()
        });
        probe.walks += 1;
        probe.steps += ran.steps;
        if ran.met {
            probe.reached += 1;
            if probe.live.is_none() {
                probe.live = Some((tail, ran));
            }
            if complete {
                continue;
            }
            break;
        }
        probe.ends.push(End::of(&tail, &ran));
        if probe.first_dead.is_none() {
            probe.first_dead = Some((tail, ran));
        }
    }
    probe
}

/// After an execution that ended with a property unmet and undecided:
/// walks from its end. `None` when a walk reached the property (the
/// execution was only slow); else the finding, without its critical
/// transition yet.
pub(crate) fn walk_from_end(target: &Target<'_>, base: &Exec, ran: &Ran) -> Option<EndWalks> {
    let failure = ran.failure.as_ref()?;
    let steps = ran.trace.as_ref().map_or(0, |t| t.len() as u64);
    let (length, time) = target
        .liveness
        .bounds_for(steps, ran.elapsed, ran.latest_deadline);
    let bounds = Bounds { length, time };
    let property = failure.property().unwrap_or_default().to_string();
    let dead = failure.liveness_dead()?;
    if dead {
        return Some(EndWalks {
            property,
            walks: 0,
            bounds,
            verdict: Verdict::Dead,
            first_dead: None,
        });
    }
    let probe = probe(target, base, steps, bounds, false);
    if probe.live.is_some() {
        return None;
    }
    let verdict = verdict(target, base, &probe, steps, bounds);
    Some(EndWalks {
        property,
        walks: probe.walks,
        bounds,
        verdict,
        first_dead: probe.first_dead.map(|(tail, ran)| {
            let trace = ran.trace.expect("walks keep their trace");
            (tail, trace.len() as u32, trace.hash())
        }),
    })
}

/// The verdict of walks from the end that all missed the property.
fn verdict(target: &Target<'_>, base: &Exec, probe: &Probe, from: u64, bounds: Bounds) -> Verdict {
    let count = |e: End| probe.ends.iter().filter(|&&x| x == e).count();
    let (stopped, ran_on, short, other) = (
        count(End::Stopped),
        count(End::RanOn),
        count(End::OutOfSteps),
        count(End::Other),
    );
    let waits: Vec<Duration> = probe
        .ends
        .iter()
        .filter_map(|e| match e {
            End::Waiting(next) => Some(*next),
            _ => None,
        })
        .collect();
    let k = probe.ends.len();
    if stopped == k {
        return Verdict::Dead;
    }
    if ran_on == k {
        let first = probe
            .first_dead
            .as_ref()
            .map(|(tail, _)| *tail)
            .expect("k >= 1 walks");
        return Verdict::Livelock {
            evidence: what_kept_happening(target, base, first, from),
        };
    }
    let mut parts = Vec::new();
    if stopped > 0 {
        parts.push(format!("{stopped} stopped with nothing more to happen"));
    }
    if ran_on > 0 {
        parts.push(format!(
            "{ran_on} ran on with events still happening until {:?}",
            bounds.time
        ));
    }
    if let Some(first) = waits.iter().min() {
        parts.push(format!(
            "{} waited with nothing happening until {:?}, the next event due at {first:?} \
             or later (Liveness::walk_time lets walks run longer)",
            waits.len(),
            bounds.time
        ));
    }
    if short > 0 {
        parts.push(format!(
            "{short} ran out of their {} steps before {:?} (Liveness::walk_length raises \
             it)",
            bounds.length, bounds.time
        ));
    }
    if other > 0 {
        parts.push(format!("{other} failed otherwise"));
    }
    Verdict::Unknown {
        why: format!("of the walks, {}", parts.join(", ")),
    }
}

/// What happened in the walk `tail` after its prefix: clock moves,
/// deliveries, and the tasks polled most, named as the story names
/// them ("task 7 (client) on a").
fn what_kept_happening(target: &Target<'_>, base: &Exec, tail: WalkTail, from: u64) -> String {
    // Told, for the tasks' hosts and labels: recording the story does
    // not change the run.
    let ran = target.run_once(&Exec {
        walk: Some(tail),
        full_trace: true,
        tell: true,
        ..base.clone()
    });
    let words = Words::new(&ran.story, &ran.hosts);
    let trace = ran.trace.as_ref().expect("walks keep their trace");
    let (mut advances, mut deliveries, mut polls) = (0u64, 0u64, 0u64);
    let mut by_task: BTreeMap<Id, u64> = BTreeMap::new();
    for (&at, step) in trace.positions().iter().zip(trace.steps()) {
        if at < from {
            continue;
        }
        match step {
            Step::Pick { event, .. } => match event {
                Event::Advance => advances += 1,
                Event::Deliver(_) => deliveries += 1,
                Event::Poll(id) => {
                    polls += 1;
                    *by_task.entry(*id).or_default() += 1;
                }
                _ => {}
            },
            Step::Choose { .. } => {}
        }
    }
    let mut busiest: Vec<(Id, u64)> = by_task.into_iter().collect();
    busiest.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    let most = busiest
        .iter()
        .take(3)
        .map(|(id, n)| format!("{} {n} times", words.task(*id)))
        .collect::<Vec<_>>()
        .join(", ");
    format!(
        "in the first walk, until {:?}, the clock moved {advances} times, {deliveries} \
         packets were delivered and tasks were polled {polls} times (most: {most})",
        ran.elapsed
    )
}

/// Walks from the end of an execution that found no way to the property.
#[derive(Debug, Clone)]
pub(crate) struct EndWalks {
    property: String,
    walks: u32,
    bounds: Bounds,
    verdict: Verdict,
    /// The first dead walk's tail, steps and hash.
    first_dead: Option<(WalkTail, u32, u64)>,
}

/// Makes tokens and commands for walks of one failing execution.
pub(crate) struct Tokens<'a> {
    pub(crate) base: &'a ReplayToken,
    pub(crate) command: &'a str,
}

impl Tokens<'_> {
    fn token(&self, tail: WalkTail, steps: u32, hash: u64) -> ReplayToken {
        ReplayToken {
            steps,
            hash,
            walk: Some(tail),
            ..self.base.clone()
        }
    }

    fn of(&self, tail: WalkTail, ran: &Ran) -> ReplayToken {
        let trace = ran.trace.as_ref().expect("walks keep their trace");
        self.token(tail, trace.len() as u32, trace.hash())
    }

    /// The command that replays `token`.
    pub(crate) fn command(&self, token: &ReplayToken) -> String {
        format!("SIM_REPLAY={token} {}", self.command)
    }
}

/// The finding for a dead execution `base` (whose trace is `trace`),
/// with its critical transition when the settings ask for it.
pub(crate) fn finding(
    target: &Target<'_>,
    base: &Exec,
    trace: &Trace,
    end: EndWalks,
    tokens: &Tokens<'_>,
) -> LivenessFinding {
    let critical = target
        .liveness
        .critical
        .then(|| critical(target, base, trace, &end, tokens));
    LivenessFinding {
        property: end.property,
        verdict: end.verdict,
        walks: end.walks,
        walk_length: end.bounds.length,
        walk_time: end.bounds.time,
        faults: target.liveness.faults,
        critical,
    }
}

fn critical(
    target: &Target<'_>,
    base: &Exec,
    trace: &Trace,
    end: &EndWalks,
    tokens: &Tokens<'_>,
) -> CriticalTransition {
    let n = trace.len() as u64;
    let bounds = end.bounds;
    let k = target.liveness.walks;
    // Cut i is the state after the first c[i] steps: the start, then
    // just after each step with a real choice. The steps after the last
    // choice are forced, so the last cut is the end's state: the end
    // walks' verdict is its.
    let mut cuts: Vec<u64> = vec![0];
    cuts.extend(
        trace
            .positions()
            .iter()
            .zip(trace.steps())
            .filter(|(_, s)| match s {
                Step::Pick { of, .. } | Step::Choose { of, .. } => *of > 1,
            })
            .map(|(&at, _)| at + 1),
    );
    cuts.dedup();
    let (mut probes, mut walks, mut steps) = (0u32, 0u64, 0u64);
    let mut run = |from: u64, complete: bool| {
        let p = probe(target, base, from, bounds, complete);
        probes += 1;
        walks += u64::from(p.walks);
        steps += p.steps;
        p
    };
    // The dead end: the end walks' first, or (when the execution showed
    // itself dead) a walk from the end.
    let last = cuts.len() - 1;
    let mut dead = match end.first_dead {
        Some((tail, s, h)) => (last, tokens.token(tail, s, h)),
        None => {
            let p = run(n, false);
            let (tail, ran) = p.first_dead.or(p.live).expect("k >= 1 walks");
            (last, tokens.of(tail, &ran))
        }
    };
    let start = run(0, false);
    // With no real choice in the execution, the start is the end's
    // state: there is no transition to find.
    let start_live = if last > 0 { start.live } else { None };
    let Some((tail, ran)) = start_live else {
        let dead = match start.first_dead {
            Some((tail, ran)) => tokens.of(tail, &ran),
            None => dead.1,
        };
        let event = if last > 0 {
            "none: no walk reaches the property even from the start"
        } else {
            "none: the execution made no choice, so its start is its end's state"
        };
        return CriticalTransition {
            step: None,
            at: std::time::Duration::ZERO,
            point: None,
            of: n,
            event: event.to_string(),
            dead_command: tokens.command(&dead),
            dead,
            live: None,
            live_command: None,
            live_walks: 0,
            walks_per_probe: k,
            probes,
            walks,
            steps,
        };
    };
    let mut live = (0usize, tokens.of(tail, &ran));
    // Doubling over the cuts from the start, then bisection.
    let mut i = 1;
    while i < dead.0 {
        let p = run(cuts[i], false);
        match (p.live, p.first_dead) {
            (Some((tail, ran)), _) => live = (i, tokens.of(tail, &ran)),
            (None, Some((tail, ran))) => {
                dead = (i, tokens.of(tail, &ran));
                break;
            }
            (None, None) => unreachable!("k >= 1 walks"),
        }
        i *= 2;
    }
    while dead.0 - live.0 > 1 {
        let mid = live.0 + (dead.0 - live.0) / 2;
        let p = run(cuts[mid], false);
        match (p.live, p.first_dead) {
            (Some((tail, ran)), _) => live = (mid, tokens.of(tail, &ran)),
            (None, Some((tail, ran))) => dead = (mid, tokens.of(tail, &ran)),
            (None, None) => unreachable!("k >= 1 walks"),
        }
    }
    // The confidence: every walk from just before it.
    let live_walks = run(cuts[live.0], true).reached;
    // The choice just before the first dead cut.
    let point = cuts[dead.0] - 1;
    let told = describe(target, base, &dead.1, point);
    CriticalTransition {
        step: Some(told.step),
        at: told.at,
        point: Some(point),
        of: n,
        event: told.words,
        dead_command: tokens.command(&dead.1),
        dead: dead.1,
        live_command: Some(tokens.command(&live.1)),
        live: Some(live.1),
        live_walks,
        walks_per_probe: k,
        probes,
        walks,
        steps,
    }
}

/// What happened at choice point `point` of the walk `token` replays,
/// in the story's words and step numbering (see `tell::transition`).
fn describe(
    target: &Target<'_>,
    base: &Exec,
    token: &ReplayToken,
    point: u64,
) -> crate::tell::Line {
    let ran = target.run_once(&Exec {
        walk: token.walk,
        full_trace: true,
        tell: true,
        ..base.clone()
    });
    let trace = ran.trace.as_ref().expect("walks keep their trace");
    crate::tell::transition(&ran.story, &ran.hosts, trace, point).unwrap_or_else(|| {
        crate::tell::Line {
            step: point,
            at: std::time::Duration::ZERO,
            words: format!("choice point {point}, which the walk did not reach"),
            names: Vec::new(),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounds() {
        let ms = Duration::from_millis;
        let l = Liveness::new();
        // A short run of few steps: the minimum steps, a second of time.
        assert_eq!(
            l.bounds_for(100, ms(100), None),
            (MIN_WALK_LENGTH, ms(1_101))
        );
        // Time: five times the run, or twice its latest timer.
        assert_eq!(l.bounds_for(100, ms(1_000), None).1, ms(5_001));
        assert_eq!(l.bounds_for(100, ms(1_000), Some(ms(4_000))).1, ms(8_001));
        // Steps: what the run's own rate needs for that time, twice over,
        // between 4 N (at least 5,000) and 20 times that.
        assert_eq!(l.bounds_for(10_000, ms(1_000), None).0, 80_020);
        assert_eq!(l.bounds_for(10_000, ms(1), None).0, 800_000);
        assert_eq!(l.bounds_for(10_000, Duration::ZERO, None).0, 800_000);
        // Set by hand.
        let set = l.walk_length(7).walk_time(ms(20));
        assert_eq!(set.bounds_for(10_000, ms(1_000), None), (7, ms(1_021)));
    }
}
