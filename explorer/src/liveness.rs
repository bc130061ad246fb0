//! Liveness in an exploration, after MaceMC (Killian et al., NSDI 2007):
//! random walks from an execution that ended with an "eventually" property
//! unmet, and the search for its critical transition.
//!
//! An execution whose main future returns while a
//! [`sim::eventually`](sim_rt::sim::eventually) property has not held is
//! only *indeterminate*: the system may be stuck, or only slower than the
//! test's bound. The explorer then runs [`walks`](Liveness::walks) random
//! walks from the state the execution ended in. The runtime cannot snapshot
//! a state, so a walk re-runs the execution's choices up to that point and
//! then chooses at random. If one walk reaches the property, the execution
//! was only slow: it does not count as a failure (the report counts it
//! in [`Report::slow`](crate::Report::slow)). If none does, the property is
//! dead with high probability, and the failure is reported with a
//! [`LivenessFinding`].
//!
//! # The critical transition
//!
//! For a dead execution, the explorer looks for the first step after which
//! no walk recovers. A *probe* at `i` runs up to `k` walks after the first
//! `i` steps of the execution: it is live when one of them reaches the
//! property (it stops there), dead when none does. The probes go 0, 1, 2,
//! 4, ... until one is dead (the end is dead already), then a binary search
//! between the last live probe and the first dead one. The step between
//! them is the critical transition. The report gives its event, a replay
//! token for a dead walk just after it, and one for the live walk just
//! before it: the two share every step before the transition, so comparing
//! them shows what went differently.
//!
//! # Cost
//!
//! For an execution of `N` steps and walks of `L` steps, a probe costs at
//! most `k` walks of at most `N + L` steps (the prefix is re-run). The
//! search runs at most `2 * ceil(log2 N) + 2` probes: so at most
//! `k * (N + L) * (2 * ceil(log2 N) + 2)` steps, O(k · L · log N) since
//! `L >= N`. With the defaults (`k` = 10, `L` = 4 N but at least 5,000) and
//! an execution of 500 steps, that is at most 20 probes and 1.1 million
//! steps: one to two seconds in a debug build. A live probe usually stops
//! after its first walk, so the actual cost is closer to half.
//!
//! # Defaults and why
//!
//! - `k` = [`DEFAULT_WALKS`] = 10 walks. If a walk from a live state reaches
//!   the property with probability `q`, all ten miss it with probability
//!   `(1 - q)^10`: 2.8% at `q = 0.3`, 0.1% at `q = 0.5`. Raising `k` makes
//!   "dead" surer and a dead probe proportionally dearer.
//! - `L` = [`WALK_LENGTH_FACTOR`] times the execution's own length, at least
//!   [`MIN_WALK_LENGTH`] steps. The execution is the test's own idea of how
//!   long the system needs; four times that covers timeouts, retries and
//!   backoff that the bound cut short, and the minimum covers short tests
//!   whose retry timers are long.
//! - Faults: [`WalkFaults::Keep`]. A walk makes no new faults and heals
//!   nothing: it asks whether the system can still get there in the
//!   environment the execution left it in (a crashed host stays down, a
//!   partition stays). Faults make walks slower to reach the goal, never
//!   faster (MaceMC weights its walks for the same reason), and a walk that
//!   heals by chance would call a system "slow" that is dead under a
//!   lasting partition. [`WalkFaults::Heal`] asks the stronger question of
//!   TigerBeetle's liveness mode: does the system recover once every
//!   partition heals and no new fault comes?
//!
//! Hot monitors ([`sim::monitor`](sim_rt::sim::monitor)) past their limit
//! are violations as they stand: they are reported without walks.
//!
//! # Determinism
//!
//! Walk seeds derive from the execution's seed and the probe's prefix
//! length; the search is a function of the execution, so the same failure
//! gives the same critical transition.

use std::cell::RefCell;
use std::rc::Rc;

use sim_rt::scheduler::{derive_seed, ChoiceKind, Event, Observation, RandomScheduler, Scheduler};

use crate::exec::{Exec, Ran, Target};
use crate::token::{ReplayToken, WalkTail};

/// Walks from an indeterminate state (`k`) by default.
pub const DEFAULT_WALKS: u32 = 10;
/// A walk is this many times the failing execution's length by default...
pub const WALK_LENGTH_FACTOR: u64 = 4;
/// ...and at least this many steps.
pub const MIN_WALK_LENGTH: u64 = 5_000;

/// What a liveness walk does with faults.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum WalkFaults {
    /// No new faults and no heals: the environment stays as the execution
    /// left it (the default; see the [module docs](crate::liveness)).
    #[default]
    Keep,
    /// The fault injector goes on at a tenth of its probability (it may
    /// also heal its partitions).
    Rare,
    /// Every partition heals when the walk starts, and no new fault comes
    /// (TigerBeetle's liveness mode; crashed hosts stay down).
    Heal,
}

impl WalkFaults {
    pub(crate) fn code(self) -> u8 {
        match self {
            WalkFaults::Keep => 0,
            WalkFaults::Rare => 1,
            WalkFaults::Heal => 2,
        }
    }

    pub(crate) fn from_code(code: u32) -> Option<WalkFaults> {
        Some(match code {
            0 => WalkFaults::Keep,
            1 => WalkFaults::Rare,
            2 => WalkFaults::Heal,
            _ => return None,
        })
    }
}

/// How an exploration treats an execution that ends with an "eventually"
/// property unmet: see the [module docs](crate::liveness).
///
/// ```
/// use explorer::{Explorer, Liveness, WalkFaults};
///
/// let explorer = Explorer::new().liveness(
///     Liveness::new()
///         .walks(5)
///         .walk_length(20_000)
///         .faults(WalkFaults::Heal),
/// );
/// # let _ = explorer;
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Liveness {
    walks: u32,
    length: Option<u64>,
    faults: WalkFaults,
    critical: bool,
}

impl Default for Liveness {
    fn default() -> Self {
        Liveness::new()
    }
}

impl Liveness {
    /// [`DEFAULT_WALKS`] walks of the default length, faults kept, and the
    /// critical-transition search on.
    pub fn new() -> Liveness {
        Liveness {
            walks: DEFAULT_WALKS,
            length: None,
            faults: WalkFaults::Keep,
            critical: true,
        }
    }

    /// Walks per state (`k`). 0 turns walks off: an indeterminate
    /// execution is reported as found, without a verdict.
    pub fn walks(mut self, k: u32) -> Self {
        self.walks = k;
        self
    }

    /// Steps per walk after its prefix (default: [`WALK_LENGTH_FACTOR`]
    /// times the execution's length, at least [`MIN_WALK_LENGTH`]).
    ///
    /// # Panics
    ///
    /// When `steps` is 0.
    pub fn walk_length(mut self, steps: u64) -> Self {
        assert!(steps > 0, "a liveness walk needs at least one step");
        self.length = Some(steps);
        self
    }

    /// What walks do with faults (default [`WalkFaults::Keep`]).
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

    /// The walk length for an execution of `steps` steps.
    pub(crate) fn length_for(&self, steps: u64) -> u64 {
        self.length
            .unwrap_or_else(|| (steps * WALK_LENGTH_FACTOR).max(MIN_WALK_LENGTH))
    }

    pub(crate) fn enabled(&self) -> bool {
        self.walks > 0
    }
}

/// What the explorer found out about a liveness failure.
#[derive(Debug, Clone)]
pub struct LivenessFinding {
    /// The property that never held.
    pub property: String,
    /// Walks run from the end of the execution, none of which reached it
    /// (0 when the execution itself showed it dead: nothing more could
    /// happen).
    pub walks: u32,
    /// Their length in steps.
    pub walk_length: u64,
    /// What they did with faults.
    pub faults: WalkFaults,
    /// The critical transition, when searched for.
    pub critical: Option<CriticalTransition>,
}

/// The first step of a dead execution after which no walk recovers.
#[derive(Debug, Clone)]
pub struct CriticalTransition {
    /// The step, numbered as the story, the failure page and
    /// [`sim::step`](sim_rt::sim::step) number them (events run, from 1;
    /// a data choice or fault is in the step it happened in or after), or
    /// `None` when no walk reaches the property even from the start: it
    /// may be unreachable.
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
        let faults = match self.faults {
            WalkFaults::Keep => "no new faults",
            WalkFaults::Rare => "rare faults",
            WalkFaults::Heal => "partitions healed, no new faults",
        };
        if self.walks > 0 {
            writeln!(
                f,
                "  dead with high probability: none of {} walks of {} steps from the end ({faults}) \
                 reached \"{}\"",
                self.walks, self.walk_length, self.property
            )?;
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
                writeln!(f, "    after it no walk recovers: {}", c.dead_command)?;
                if let Some(live) = &c.live_command {
                    writeln!(f, "    just before it, this walk does: {live}")?;
                }
            }
            None => {
                writeln!(
                    f,
                    "  no critical transition: no walk reaches the property even from the start; \
                     it may be unreachable"
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

/// Runs the prefix's scheduler for the first `at` trace steps, then the
/// walker; keeps the observations made during trace step `watch`.
pub(crate) struct Switch<A, B> {
    pub(crate) first: A,
    pub(crate) then: B,
    pub(crate) at: u64,
    pub(crate) calls: u64,
    pub(crate) watch: Option<u64>,
    pub(crate) seen: Rc<RefCell<Vec<Observation>>>,
}

impl<A: Scheduler, B: Scheduler> Switch<A, B> {
    fn walking(&mut self) -> bool {
        let walking = self.calls >= self.at;
        self.calls += 1;
        walking
    }
}

impl<A: Scheduler, B: Scheduler> Scheduler for Switch<A, B> {
    fn pick(&mut self, enabled: &[Event]) -> usize {
        if self.walking() {
            self.then.pick(enabled)
        } else {
            self.first.pick(enabled)
        }
    }

    fn choose(&mut self, kind: ChoiceKind, n: usize) -> usize {
        if self.walking() {
            self.then.choose(kind, n)
        } else {
            self.first.choose(kind, n)
        }
    }

    fn observe(&mut self, observation: &Observation) {
        if self.watch.is_some_and(|w| self.calls == w + 1) {
            self.seen.borrow_mut().push(*observation);
        }
        if self.calls < self.at {
            self.first.observe(observation);
        }
    }

    fn observes(&self) -> bool {
        self.first.observes() || self.watch.is_some()
    }
}

/// A walk's scheduler: uniform picks, data choices with their
/// probabilities, faults as [`WalkFaults`] says.
pub(crate) struct Walker {
    random: RandomScheduler,
    faults: WalkFaults,
}

impl Walker {
    pub(crate) fn new(seed: u64, faults: WalkFaults) -> Walker {
        Walker {
            random: RandomScheduler::new(seed),
            faults,
        }
    }
}

impl Scheduler for Walker {
    fn pick(&mut self, enabled: &[Event]) -> usize {
        self.random.pick(enabled)
    }

    fn choose(&mut self, kind: ChoiceKind, n: usize) -> usize {
        match (kind, self.faults) {
            (ChoiceKind::Fault { probability }, WalkFaults::Rare) => self.random.choose(
                ChoiceKind::Fault {
                    probability: probability / 10.0,
                },
                n,
            ),
            (ChoiceKind::Fault { .. }, _) => 0,
            _ => self.random.choose(kind, n),
        }
    }

    fn observes(&self) -> bool {
        false
    }
}

/// A probe's outcome.
struct Probe {
    /// The first walk that reached the property.
    live: Option<(WalkTail, Ran)>,
    /// The first walk, when it did not.
    first_dead: Option<(WalkTail, Ran)>,
    walks: u32,
    steps: u64,
}

/// The seed of walk `w` after `from` steps of an execution seeded `seed`.
fn walk_seed(seed: u64, from: u64, w: u32) -> u64 {
    derive_seed(derive_seed(seed, 0x11fe_0000 + from), u64::from(w))
}

impl Target<'_> {
    /// Runs up to `k` walks of `length` steps after the first `from` steps
    /// of `base`; stops at the first that reaches the property.
    fn probe(&self, base: &Exec, from: u64, length: u64) -> Probe {
        let mut probe = Probe {
            live: None,
            first_dead: None,
            walks: 0,
            steps: 0,
        };
        for w in 0..self.liveness.walks {
            let tail = WalkTail {
                from: u32::try_from(from).expect("an execution of fewer than 2^32 steps"),
                seed: walk_seed(base.seed, from, w),
                length,
                faults: self.liveness.faults,
            };
            let ran = self.run_once(&Exec {
                walk: Some(tail),
                ..base.clone()
            });
            probe.walks += 1;
            probe.steps += ran.steps;
            if ran.met {
                probe.live = Some((tail, ran));
                break;
            }
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
    pub(crate) fn walk_from_end(&self, base: &Exec, ran: &Ran) -> Option<EndWalks> {
        let failure = ran.failure.as_ref()?;
        let steps = ran.trace.as_ref().map_or(0, |t| t.len() as u64);
        let length = self.liveness.length_for(steps);
        let property = failure.property().unwrap_or_default().to_string();
        let dead = failure.liveness_dead()?;
        if dead {
            return Some(EndWalks {
                property,
                walks: 0,
                length,
                first_dead: None,
            });
        }
        let probe = self.probe(base, steps, length);
        if probe.live.is_some() {
            return None;
        }
        Some(EndWalks {
            property,
            walks: probe.walks,
            length,
            first_dead: probe.first_dead.map(|(tail, ran)| {
                let trace = ran.trace.expect("walks keep their trace");
                (tail, trace.len() as u32, trace.hash())
            }),
        })
    }
}

/// Walks from the end of an execution that found no way to the property.
#[derive(Debug, Clone)]
pub(crate) struct EndWalks {
    property: String,
    walks: u32,
    length: u64,
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

impl Target<'_> {
    /// The finding for a dead execution `base` (of `steps` trace steps),
    /// with its critical transition when the settings ask for it.
    pub(crate) fn finding(
        &self,
        base: &Exec,
        steps: u64,
        end: EndWalks,
        tokens: &Tokens<'_>,
    ) -> LivenessFinding {
        let critical = self
            .liveness
            .critical
            .then(|| self.critical(base, steps, &end, tokens));
        LivenessFinding {
            property: end.property,
            walks: end.walks,
            walk_length: end.length,
            faults: self.liveness.faults,
            critical,
        }
    }

    fn critical(
        &self,
        base: &Exec,
        n: u64,
        end: &EndWalks,
        tokens: &Tokens<'_>,
    ) -> CriticalTransition {
        let length = end.length;
        let (mut probes, mut walks, mut steps) = (0u32, 0u64, 0u64);
        let mut run = |from: u64| {
            let p = self.probe(base, from, length);
            probes += 1;
            walks += u64::from(p.walks);
            steps += p.steps;
            p
        };
        // The dead end: the end walks' first, or (when the execution showed
        // itself dead) a walk from the end.
        let mut dead = match end.first_dead {
            Some((tail, s, h)) => (n, tokens.token(tail, s, h)),
            None => {
                let p = run(n);
                let (tail, ran) = p.first_dead.or(p.live).expect("k >= 1 walks");
                (n, tokens.of(tail, &ran))
            }
        };
        let start = run(0);
        let Some((tail, ran)) = start.live else {
            let (tail, ran) = start.first_dead.expect("k >= 1 walks");
            let dead = tokens.of(tail, &ran);
            return CriticalTransition {
                step: None,
                at: std::time::Duration::ZERO,
                point: None,
                of: n,
                event: "none: no walk reaches the property even from the start".to_string(),
                dead_command: tokens.command(&dead),
                dead,
                live: None,
                live_command: None,
                probes,
                walks,
                steps,
            };
        };
        let mut live = (0u64, tokens.of(tail, &ran));
        // Doubling from the start, then bisection.
        let mut i = 1;
        while i < dead.0 {
            let p = run(i);
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
            let p = run(mid);
            match (p.live, p.first_dead) {
                (Some((tail, ran)), _) => live = (mid, tokens.of(tail, &ran)),
                (None, Some((tail, ran))) => dead = (mid, tokens.of(tail, &ran)),
                (None, None) => unreachable!("k >= 1 walks"),
            }
        }
        let point = dead.0 - 1;
        let told = self.describe(base, &dead.1, point);
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
            probes,
            walks,
            steps,
        }
    }

    /// What happened at choice point `point` of the walk `token` replays,
    /// in the story's words and step numbering (see `tell::transition`).
    fn describe(&self, base: &Exec, token: &ReplayToken, point: u64) -> crate::tell::Line {
        let ran = self.run_once(&Exec {
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
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lengths() {
        let l = Liveness::new();
        assert_eq!(l.length_for(100), MIN_WALK_LENGTH);
        assert_eq!(l.length_for(10_000), 40_000);
        assert_eq!(l.walk_length(7).length_for(10_000), 7);
    }
}
