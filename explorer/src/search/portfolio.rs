//! The default search: a portfolio of strategies interleaved over one
//! execution budget.
//!
//! Which search finds a bug soonest changes from bug to bug (see the
//! effectiveness table in the guide, `docs/src/effectiveness.md`): PCT finds message-ordering bugs in a
//! handful of executions and is slow on fault bugs; stratified sampling
//! finds bugs that need two faults far apart and misses some orderings;
//! swarm walks find fault storms. A user who does not know in advance which
//! one their bug needs gets, from the portfolio, close to the best of them:
//! each member gets its share of the budget, interleaved, so the portfolio
//! needs about `members / weight` times the executions of the member that
//! finds the bug soonest, and less when several can.
//!
//! # The interleaving
//!
//! Each member is a search of independent units (a walk execution, a
//! sample) with its own numbering, as if it ran alone with the same base
//! seed: its unit `l` has the seed and delay bound that unit `l` of the
//! member's search run alone would have. The portfolio's unit `j` goes to
//! the member that has spent the least of its share of the planned budget
//! (planned cost over weight; ties to the member listed first), so the
//! sequence depends only on the settings. The units then run on the shared
//! pool (`pool.rs`): on every core, sharded by `SIM_SHARD`, with the same
//! result whatever `SIM_JOBS` is.
//!
//! A failure is reported and replayed as its member's: its token names the
//! member's explorer and search, and its `SIM_SEED` line names them too.

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::exec::{Diverged, Exec};
use crate::explorers::{DelayingExplorer, Pct, RoundRobin, Rtc};
use crate::guided::Branch;
use crate::report::Report;
use crate::schedule::Deviation;
use crate::signals::Signal;

use rand_core::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;
use sim_rt::scheduler::{derive_seed, uniform};

use super::pool::{self, unit_seed, Done, Kept, Plan, Unit, Units};
use super::{ss, walk, Ctx, Sampling, Search, SearchKind};

/// Makes a fresh explorer for each execution.
pub(crate) type Make = Arc<dyn Fn() -> Box<dyn DelayingExplorer> + Send + Sync>;

/// What a member runs.
#[derive(Clone)]
pub(crate) enum Kind {
    /// Stratified sampling, a walk or a swarm walk, unit by unit as the
    /// search alone would run them.
    Search(Search),
    /// The first two strata of exhaustive search: the explorer's default
    /// execution, then each execution with one delay (or one non-default
    /// data option) at a branching point of it, in order. Finite: a member
    /// whose units run out leaves the interleaving.
    Sweep,
    /// The adaptive portfolio's mutations: each unit takes a walk from the
    /// corpus (walks, of any walk member, that showed a key of any signal,
    /// an ordering, a fault context or an abstract state, no earlier
    /// execution had) and runs it again with one or two of its choices
    /// changed (see [`mutate`]). With the corpus still empty it runs a
    /// fresh walk of the first walk member.
    Mutate,
}

/// One strategy of a portfolio.
#[derive(Clone)]
pub(crate) struct Member {
    pub(crate) make: Make,
    pub(crate) explorer: String,
    pub(crate) kind: Kind,
    /// Its share of the budget, relative to the others'.
    pub(crate) weight: u64,
}

impl Member {
    fn new<E: DelayingExplorer + Clone + Sync + 'static>(
        explorer: E,
        kind: Kind,
        weight: u64,
    ) -> Member {
        Member {
            explorer: explorer.name(),
            make: Arc::new(move || Box::new(explorer.clone())),
            kind,
            weight,
        }
    }

    /// The search a failure of this member replays with.
    fn search(&self) -> SearchKind {
        match &self.kind {
            Kind::Search(s) => s.kind(),
            Kind::Sweep => SearchKind::Ses,
            Kind::Mutate => SearchKind::Walk,
        }
    }

    /// "ss with rr", "the first-delay sweep (ses) with rtc".
    fn describe(&self) -> String {
        match &self.kind {
            Kind::Search(s) => format!("{} with {}", s.name(), self.explorer),
            Kind::Sweep => format!(
                "first-delay sweep (ses, at most 1 delay) with {}",
                self.explorer
            ),
            Kind::Mutate => "mutations of its walks".to_string(),
        }
    }

    /// Sets the delay bound of a sampling member.
    pub(crate) fn set_max_delays(&mut self, d: u32) {
        if let Kind::Search(Search::Sampling(s)) = &mut self.kind {
            s.max_delays = d;
        }
    }
}

/// The default portfolio's members, in order.
pub(crate) fn default_members() -> Vec<Member> {
    vec![
        Member::new(Rtc::default(), Kind::Sweep, 1),
        Member::new(Pct::new(3), Kind::Search(super::Swarm.into()), 2),
        Member::new(
            RoundRobin::default(),
            Kind::Search(Sampling::default().into()),
            1,
        ),
    ]
}

/// The adaptive portfolio's members, in order: the default's, with its
/// weights as their starting shares, and the other built-in walks
/// (uniform, PCT, uniform swarm) with a share of 1 each.
pub(crate) fn adaptive_members() -> Vec<Member> {
    let mut members = default_members();
    members.push(Member::new(
        crate::explorers::Random::default(),
        Kind::Search(super::Walk.into()),
        1,
    ));
    members.push(Member::new(
        Pct::new(3),
        Kind::Search(super::Walk.into()),
        1,
    ));
    members.push(Member::new(
        crate::explorers::Random::default(),
        Kind::Search(super::Swarm.into()),
        1,
    ));
    members.push(Member::new(Pct::new(3), Kind::Mutate, 1));
    members
}

/// A member's own units.
#[derive(Clone)]
enum Own {
    /// As its search alone would number them.
    Plan(Plan),
    /// A finite list of one-execution units.
    Finite(u64),
}

impl Own {
    /// Unit `l`'s planned cost, `None` past the end.
    fn cost(&self, l: u64) -> Option<u64> {
        match self {
            Own::Plan(p) => Some(p.bound(l) as u64 + 1),
            Own::Finite(n) => (l < *n).then_some(1),
        }
    }

    fn bound(&self, l: u64) -> u32 {
        match self {
            Own::Plan(p) => p.bound(l),
            Own::Finite(_) => 1,
        }
    }
}

/// The portfolio's sequence of units, as far as a budget reaches.
struct Interleaving {
    own: Vec<Own>,
    /// Member `m`'s seeds are its own unit seeds from the base seed, or
    /// (a sweep) the base seed itself.
    fixed_seed: Vec<bool>,
    /// Unit `j`: its member and the member's own unit number.
    units: Vec<(usize, u64)>,
}

impl Interleaving {
    /// `spent[m]`: executions member `m` already ran (a sweep's default
    /// execution); `start[m]`: its first unit.
    fn new(
        members: &[Member],
        own: Vec<Own>,
        spent: Vec<u64>,
        start: Vec<u64>,
        budget: u64,
    ) -> Self {
        let mut next = start;
        let mut spent = spent;
        let mut total = 0u64;
        let mut units = Vec::new();
        loop {
            // The member whose share would be least used after its next
            // unit: (spent + cost) / weight, compared without division.
            let share = |m: usize| -> Option<(u128, u128)> {
                let c = own[m].cost(next[m])?;
                Some(((spent[m] + c) as u128, members[m].weight as u128))
            };
            let pick = (0..members.len())
                .filter_map(|m| share(m).map(|s| (m, s)))
                .min_by(|(_, (a, wa)), (_, (b, wb))| (a * wb).cmp(&(b * wa)));
            let Some((m, _)) = pick else { break };
            let c = own[m]
                .cost(next[m])
                .expect("picked members have a next unit");
            if total + c > budget && !units.is_empty() {
                break;
            }
            units.push((m, next[m]));
            next[m] += 1;
            spent[m] += c;
            total += c;
        }
        let fixed_seed = members
            .iter()
            .map(|m| matches!(m.kind, Kind::Sweep))
            .collect();
        Interleaving {
            own,
            fixed_seed,
            units,
        }
    }
}

impl Units for Interleaving {
    fn admitted(&self, _budget: u64) -> u64 {
        self.units.len() as u64
    }

    fn unit(&self, j: u64, base: u64) -> Unit {
        let (member, local) = self.units[j as usize];
        Unit {
            index: local,
            seed: if self.fixed_seed[member] {
                base
            } else {
                unit_seed(base, local)
            },
            bound: self.own[member].bound(local),
            member,
        }
    }
}

/// Runs the members interleaved, in generations whose shares are a fixed
/// floor and a remainder that follows the new abstract states each member
/// found (see [`Learner`]); `ctx` is the portfolio's own. When `adaptive`,
/// the walks that showed anything new are kept for the mutations member.
pub(crate) fn run(ctx: &Ctx<'_>, members: &[Member], adaptive: bool) -> Report {
    let mut executed = vec![0u64; members.len()];
    let mut report = run_members(ctx, members, adaptive, &mut executed);
    report.members = members.iter().map(Member::describe).zip(executed).collect();
    report
}

/// [`run`], counting the executions of each member (of those the report
/// counts) into `executed`.
fn run_members(ctx: &Ctx<'_>, members: &[Member], adaptive: bool, executed: &mut [u64]) -> Report {
    assert!(
        members.iter().all(|m| m.weight > 0),
        "every member of a portfolio needs a positive weight"
    );
    let mut report = ctx.report();
    let ctxs: Vec<Ctx<'_>> = members
        .iter()
        .map(|m| Ctx {
            explorer: m.explorer.clone(),
            search: m.search(),
            env_prefix: format!(
                "{}SIM_EXPLORER={} SIM_SEARCH={} ",
                ctx.env_prefix,
                m.explorer,
                m.search()
            ),
            strategy: Some(format!(
                "the {} portfolio's {}",
                if adaptive { "adaptive" } else { "default" },
                m.describe()
            )),
            target: crate::exec::Target {
                explorer: &*m.make,
                // A bench's probe gets every signal (its keys say theirs).
                signals: if adaptive || !ctx.target.signals.is_empty() {
                    TRACKED
                } else {
                    &[FOLLOW]
                },
                ..ctx.target
            },
            ..ctx.clone()
        })
        .collect();
    // A sweep needs its default execution's branching points before its
    // units can be numbered: that execution runs first.
    let mut spent = vec![0u64; members.len()];
    // Each deviation with the choice point as the default execution saw it.
    let mut sweep: Vec<(Deviation, Branch)> = Vec::new();
    let mut own = Vec::new();
    for (m, member) in members.iter().enumerate() {
        own.push(match &member.kind {
            Kind::Search(Search::Sampling(s)) => Own::Plan(s.plan()),
            Kind::Search(_) | Kind::Mutate => Own::Plan(Plan::walks()),
            Kind::Sweep => {
                assert!(sweep.is_empty(), "a portfolio has at most one sweep");
                let c = &ctxs[m];
                let ran = c.numbered(1, || {
                    c.target.run(Exec {
                        record_from: 0,
                        ..Exec::of(ctx.seed, Vec::new(), SearchKind::Ses)
                    })
                });
                ctx.progress.executed(1, 0);
                report.executions = 1;
                executed[m] = 1;
                report.coverage.add_execution(&ran.coverage);
                if ran.failure.is_some() {
                    report.failure = Some(c.numbered(1, || c.found(ran, ctx.seed, &[], 0, 1)));
                    return report;
                }
                spent[m] = 1;
                for b in &ran.record.branches {
                    let options = if b.pick { 1 } else { b.options - 1 };
                    sweep.extend((1..=options).map(|a| ((b.at, a), *b)));
                }
                Own::Finite(sweep.len() as u64 + 1)
            }
        });
    }
    let first = report.executions;
    if first >= ctx.executions {
        return report;
    }
    let start = members
        .iter()
        .map(|m| u64::from(matches!(m.kind, Kind::Sweep)))
        .collect();
    let line = |u: &Unit| {
        let c = &ctxs[u.member];
        match members[u.member].kind {
            // The sweep's unit l is exhaustive search's execution l + 1.
            Kind::Sweep => format!("SIM_EXECUTIONS={} {}", u.index + 1, c.seed_line(u.seed)),
            Kind::Search(_) => c.seed_line(u.seed),
            // Depends on the corpus: the exploration reaches it again.
            Kind::Mutate => ctx.seed_line(ctx.seed),
        }
    };
    // The adaptive portfolio's walks, kept when they showed anything new
    // (a key of any signal), and the first walk member (a mutation's
    // stand-in while the corpus is empty).
    let corpus: std::sync::RwLock<Arc<Vec<Kept>>> = Default::default();
    let first_walk = members
        .iter()
        .position(|m| matches!(m.kind, Kind::Search(Search::Walk(_) | Search::Swarm(_))));
    let is_swarm = |m: usize| matches!(members[m].kind, Kind::Search(Search::Swarm(_)));
    let work = |unit: Unit| {
        let c = &ctxs[unit.member];
        match &members[unit.member].kind {
            Kind::Search(Search::Sampling(_)) => ss::sample(c, unit),
            Kind::Search(Search::Swarm(_) | Search::Walk(_)) if adaptive => walk::guided(
                c,
                unit.seed,
                is_swarm(unit.member),
                Vec::new(),
                Some(unit.member),
            ),
            Kind::Search(Search::Swarm(_)) => walk::execution(c, unit, true),
            Kind::Search(_) => walk::execution(c, unit, false),
            Kind::Mutate => {
                let entries = corpus.read().unwrap_or_else(|e| e.into_inner()).clone();
                let mut rng =
                    Xoshiro256PlusPlus::seed_from_u64(derive_seed(unit.seed, MUTATE_STREAM));
                let Some(parent) =
                    (!entries.is_empty()).then(|| &entries[uniform(&mut rng, entries.len())])
                else {
                    let m = first_walk.expect("an adaptive portfolio has a walk member");
                    return walk::guided(&ctxs[m], unit.seed, is_swarm(m), Vec::new(), Some(m));
                };
                let m = parent.member;
                let mut done = walk::guided(
                    &ctxs[m],
                    parent.seed,
                    is_swarm(m),
                    mutate(parent, &mut rng),
                    Some(m),
                );
                if let Some(found) = &mut done.found {
                    found.found_by = format!(
                        "the adaptive portfolio's mutations of its walks (a mutation of {})",
                        members[m].describe()
                    );
                }
                done
            }
            Kind::Sweep => {
                let (deviation, at) = sweep[unit.index as usize - 1];
                let schedule = vec![deviation];
                c.numbered(1, || {
                    let exec = Exec {
                        record_from: at.at,
                        ..Exec::of(unit.seed, schedule.clone(), SearchKind::Ses)
                    };
                    let mut ran = c.target.run(exec.clone());
                    ctx.progress.executed(1, 1);
                    // The same choices as the default execution up to the
                    // deviation: the same question there.
                    let here = ran.record.branches.first().filter(|h| h.at == at.at);
                    if here != Some(&at) {
                        Diverged {
                            exec,
                            saw: format!(
                                "its choice point {} was {}, where the default execution, with \
                                 the same choices up to there, had {at}",
                                at.at,
                                here.map_or(
                                    "not a choice among several options".to_string(),
                                    |h| { h.to_string() }
                                )
                            ),
                            divergence: None,
                        }
                        .raise();
                    }
                    Done {
                        executions: 1,
                        max_delays: 1,
                        coverage: crate::coverage::Coverage::of_execution(&ran.coverage),
                        signal: std::mem::take(&mut ran.record.signal),
                        kept: None,
                        found: ran
                            .failure
                            .is_some()
                            .then(|| c.found(ran, unit.seed, &schedule, 1, 1)),
                    }
                })
            }
        }
    };
    // The pool counts on from the sweep's default execution.
    let mut learner = Learner::new(members);
    let mut next: Vec<u64> = start;
    // The budget counts planned executions of every shard's units, as the
    // default's single plan does: a shard runs its part of each generation.
    let mut planned = first;
    while planned < ctx.executions && report.failure.is_none() {
        let weighted: Vec<Member> = members
            .iter()
            .zip(learner.weights())
            .map(|(m, w)| Member {
                weight: w,
                ..m.clone()
            })
            .collect();
        let budget = GENERATION.min(ctx.executions - planned);
        let plan = Interleaving::new(&weighted, own.clone(), spent.clone(), next.clone(), budget);
        if plan.units.is_empty() {
            break;
        }
        for &(m, l) in &plan.units {
            let cost = own[m].cost(l).expect("planned units have a cost");
            spent[m] += cost;
            planned += cost;
            next[m] = next[m].max(l + 1);
        }
        let mut keep = Vec::new();
        pool::run_observed(ctx, &plan, &mut report, line, work, |unit, done| {
            executed[unit.member] += done.executions;
            if learner.learn(unit.member, done) > 0 {
                keep.extend(done.kept.clone());
            }
        });
        if !keep.is_empty() {
            let mut c = corpus.write().unwrap_or_else(|e| e.into_inner());
            let mut entries: Vec<Kept> = c.as_ref().clone();
            entries.extend(keep);
            let over = entries.len().saturating_sub(CORPUS);
            entries.drain(..over);
            *c = Arc::new(entries);
        }
    }
    report
}

/// The planned executions of one generation of the adaptive portfolio:
/// its shares change only between generations, from what the units of
/// the generations before found, in unit order, so the result does not
/// depend on `SIM_JOBS`. (Under `SIM_SHARD` each shard learns from its own
/// units.)
const GENERATION: u64 = 16;

/// The most walks the corpus keeps: past it, the oldest go.
const CORPUS: usize = 256;

/// Generator stream for a mutation's choices.
const MUTATE_STREAM: u64 = 0x4d55;

/// `parent`'s deviations with one or two changes, each at a uniformly
/// random branching choice point of its execution: one more delay at a
/// pick, another option at a data choice (a fault where it had none, or
/// another draw); or, a quarter of the time, one deviation dropped. The
/// parent's seed stays, so the walk is the same up to the first change.
fn mutate(parent: &Kept, rng: &mut Xoshiro256PlusPlus) -> Vec<Deviation> {
    let mut schedule = parent.schedule.clone();
    for _ in 0..1 + uniform(rng, 2) {
        if !schedule.is_empty() && uniform(rng, 4) == 0 {
            schedule.remove(uniform(rng, schedule.len()));
            continue;
        }
        if parent.branches.is_empty() {
            break;
        }
        let b = parent.branches[uniform(rng, parent.branches.len())];
        let option = |rng: &mut Xoshiro256PlusPlus| 1 + uniform(rng, b.options as usize - 1) as u32;
        match schedule.binary_search_by_key(&b.at, |d| d.0) {
            Ok(i) if b.pick => schedule[i].1 += 1,
            Ok(i) => schedule[i].1 = option(rng),
            Err(i) => {
                let action = if b.pick { 1 } else { option(rng) };
                schedule.insert(i, (b.at, action));
            }
        }
    }
    schedule
}

/// The signal the portfolios' remainder follows: new abstract states, the
/// one of the three measured that moved budget to the right member on the
/// slow bugs (the effectiveness chapter, "Signals, validated before use").
const FOLLOW: Signal = Signal::States;

/// The signals the adaptive portfolio's executions track: the one it
/// follows, and for its corpus every built-in one (a walk that showed
/// anything no walk before it showed is kept to mutate, so a program
/// without faults, or without reported states, still fills the corpus).
const TRACKED: &[Signal] = &[Signal::Orderings, Signal::Faults, Signal::States];

/// The most distinct keys the learner counts per member: a program's
/// states can be new in every execution, and the counts must not grow
/// with the exploration (about 4 MiB a member at most).
const KEYS: usize = 1 << 16;

/// Executions a member runs before its signal counts (as many as the
/// effectiveness bench's `--signals 32` ranks strategies after).
const PROBE: u64 = 32;

/// A portfolio's shares: a fixed floor, the members' own weights, takes
/// two thirds of each generation; the remaining third goes to the walk or
/// sampling member whose executions are most likely to show an abstract
/// state (a host's reported state, a tuple of them, a coverage point:
/// `signals.rs`) none of its executions showed before, by Good-Turing's
/// estimate (states seen in exactly one of its units, over the executions
/// it ran), once it has run [`PROBE`] executions. Until one has, or when
/// the program reports no state and hits no point, the third follows the
/// floor too. So no member ever gets less than two thirds of its share,
/// and a member that keeps finding new states gets up to half the budget
/// more.
#[derive(Debug)]
struct Learner {
    /// Keys no unit before showed (the mutations' corpus keeps the walks
    /// that showed one).
    seen: std::collections::BTreeSet<u64>,
    /// Per member: its floor weight.
    floor: Vec<u64>,
    /// Per member: whether the signal may give it the remainder (walks and
    /// samples; not the finite sweep, not the mutations).
    eligible: Vec<bool>,
    /// Per member: for each key, the units that showed it.
    counts: Vec<BTreeMap<u64, u64>>,
    /// Per member: its keys counted exactly once.
    singletons: Vec<u64>,
    /// Per member: the executions its counts are over.
    executions: Vec<u64>,
    /// Whether new keys are looked for (a mutations member keeps the walks
    /// that showed one).
    keeps: bool,
}

impl Learner {
    fn new(members: &[Member]) -> Learner {
        let n = members.len();
        Learner {
            seen: Default::default(),
            floor: members.iter().map(|m| m.weight).collect(),
            eligible: members
                .iter()
                .map(|m| matches!(m.kind, Kind::Search(_)))
                .collect(),
            counts: vec![BTreeMap::new(); n],
            singletons: vec![0; n],
            executions: vec![0; n],
            keeps: members.iter().any(|m| matches!(m.kind, Kind::Mutate)),
        }
    }

    /// Counts `done`'s keys of the followed signal for `member` (until it
    /// has counted [`KEYS`]: its estimate then stays as measured), and
    /// returns how many keys (of any signal) no unit before showed (none
    /// without a mutations member, or once [`KEYS`] times the members'
    /// number were seen).
    fn learn(&mut self, member: usize, done: &Done) -> u64 {
        let counts = &mut self.counts[member];
        if counts.len() < KEYS {
            let singletons = &mut self.singletons[member];
            for k in done.signal.iter().filter(|&&k| FOLLOW.owns(k)) {
                let c = counts.entry(*k).or_default();
                *c += 1;
                match *c {
                    1 => *singletons += 1,
                    2 => *singletons -= 1,
                    _ => {}
                }
            }
            self.executions[member] += done.executions;
        }
        if !self.keeps || self.seen.len() >= KEYS * self.floor.len() {
            return 0;
        }
        done.signal.iter().filter(|k| self.seen.insert(**k)).count() as u64
    }

    /// `member`'s Good-Turing discovery estimate per execution, as
    /// (singletons, executions): the keys seen in exactly one of its units,
    /// over the executions it ran (a sample's unit is several executions
    /// and shows more keys than a walk's one, at the cost of several).
    fn discovery(&self, member: usize) -> (u64, u64) {
        (self.singletons[member], self.executions[member].max(1))
    }

    /// The member the remainder goes to: the eligible member, past its
    /// probe, with the highest discovery estimate (the first of equals).
    fn leader(&self) -> Option<usize> {
        let mut best: Option<(usize, (u64, u64))> = None;
        for m in (0..self.floor.len()).filter(|&m| self.eligible[m] && self.executions[m] >= PROBE)
        {
            let (s, u) = self.discovery(m);
            // s / u > bs / bu, without division.
            if best.is_none_or(|(_, (bs, bu))| {
                u128::from(s) * u128::from(bu) > u128::from(bs) * u128::from(u)
            }) {
                best = Some((m, (s, u)));
            }
        }
        best.filter(|(_, (s, _))| *s > 0).map(|(m, _)| m)
    }

    /// The members' weights for the next generation: the floor's, twice
    /// (two thirds), and the remainder (the floor's total) to the leader,
    /// or spread as the floor when there is none.
    fn weights(&self) -> Vec<u64> {
        let total: u64 = self.floor.iter().sum();
        let mut w: Vec<u64> = self.floor.iter().map(|f| f * 2).collect();
        match self.leader() {
            Some(l) => w[l] += total,
            None => w.iter_mut().zip(&self.floor).for_each(|(w, f)| *w += f),
        }
        w
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plain(
        explorer: impl DelayingExplorer + Clone + Sync + 'static,
        s: impl Into<Search>,
        w: u64,
    ) -> Member {
        Member::new(explorer, Kind::Search(s.into()), w)
    }

    fn own(members: &[Member]) -> Vec<Own> {
        members
            .iter()
            .map(|m| match &m.kind {
                Kind::Search(Search::Sampling(s)) => Own::Plan(s.plan()),
                _ => Own::Plan(Plan::walks()),
            })
            .collect()
    }

    #[test]
    fn shares_follow_weights_and_planned_costs() {
        let members = vec![
            plain(Pct::new(3), super::super::Walk, 2),
            plain(Rtc::default(), Sampling::new(2), 1),
        ];
        let plan = Interleaving::new(&members, own(&members), vec![0, 0], vec![0, 0], 300);
        let spent = |m: usize| -> u64 {
            plan.units
                .iter()
                .filter(|u| u.0 == m)
                .map(|&(m, l)| plan.own[m].cost(l).unwrap())
                .sum()
        };
        assert_eq!(spent(0) + spent(1), 300);
        // Within a unit of the weights: a sample costs at most 3 (the
        // first, to the full bound 2), and the walk's weight is 2.
        assert!(
            (spent(0) as i64 - 2 * spent(1) as i64).abs() <= 2 * 3,
            "{} {}",
            spent(0),
            spent(1)
        );
        // Each member's units are its own, numbered from 0 in order.
        let walks: Vec<u64> = plan
            .units
            .iter()
            .filter(|u| u.0 == 0)
            .map(|u| u.1)
            .collect();
        assert_eq!(walks, (0..walks.len() as u64).collect::<Vec<_>>());
        // The first member starts, and unit 0 of each has the base seed.
        assert_eq!(plan.unit(0, 9).member, 0);
        assert_eq!(plan.unit(0, 9).seed, 9);
        let first_sample = plan.units.iter().position(|u| u.0 == 1).unwrap();
        assert_eq!(plan.unit(first_sample as u64, 9).seed, 9);
        // Sample 0 runs to the full bound, the next ones from 1 up.
        assert_eq!(plan.unit(first_sample as u64, 9).bound, 2);
        let second_sample = first_sample
            + 1
            + plan.units[first_sample + 1..]
                .iter()
                .position(|u| u.0 == 1)
                .unwrap();
        assert_eq!(plan.unit(second_sample as u64, 9).bound, 1);
    }

    #[test]
    fn a_finite_member_leaves_when_its_units_run_out() {
        let members = vec![
            Member::new(Rtc::default(), Kind::Sweep, 1),
            plain(Pct::new(3), super::super::Walk, 1),
        ];
        let own = vec![Own::Finite(4), own(&members[1..]).pop().unwrap()];
        // The sweep's unit 0 (its default execution) already ran.
        let plan = Interleaving::new(&members, own, vec![1, 0], vec![1, 0], 20);
        let sweep: Vec<u64> = plan
            .units
            .iter()
            .filter(|u| u.0 == 0)
            .map(|u| u.1)
            .collect();
        assert_eq!(sweep, vec![1, 2, 3]);
        assert_eq!(plan.units.len(), 20);
        // The walk went first (it had spent nothing), and a sweep unit
        // keeps the base seed.
        assert_eq!(plan.units[0], (1, 0));
        assert_eq!(
            plan.unit(1, 9),
            Unit {
                index: 1,
                seed: 9,
                bound: 1,
                member: 0
            }
        );
    }

    /// A mutation changes one or two choices at the parent's branching
    /// points and keeps a schedule (sorted, every action at least 1).
    #[test]
    fn mutations_stay_schedules_at_the_parents_choice_points() {
        let branch = |at, options, pick| Branch { at, options, pick };
        let parent = Kept {
            member: 0,
            seed: 7,
            schedule: vec![(3, 2)],
            branches: vec![branch(1, 2, true), branch(3, 3, true), branch(8, 4, false)],
        };
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(1);
        let mut changed = 0;
        for _ in 0..200 {
            let s = mutate(&parent, &mut rng);
            assert!(s.windows(2).all(|w| w[0].0 < w[1].0), "{s:?}");
            assert!(s.iter().all(|&(at, a)| a >= 1 && [1, 3, 8].contains(&at)));
            assert!(s.iter().all(|&(at, a)| at != 8 || a <= 3), "{s:?}");
            changed += usize::from(s != parent.schedule);
        }
        assert!(
            changed > 150,
            "{changed} of 200 mutations changed something"
        );
    }

    #[test]
    fn a_budget_below_one_unit_still_runs_one() {
        let members = vec![plain(Rtc::default(), Sampling::new(4), 1)];
        let plan = Interleaving::new(&members, own(&members), vec![0], vec![0], 1);
        assert_eq!(plan.units.len(), 1);
    }

    #[test]
    fn the_floor_keeps_two_thirds_and_the_remainder_follows_discovery() {
        let members = vec![
            Member::new(Rtc::default(), Kind::Sweep, 1),
            plain(Pct::new(3), crate::search::Walk, 2),
            plain(RoundRobin::default(), Sampling::new(4), 1),
        ];
        let mut l = Learner::new(&members);
        let unit = |keys: &[u64]| {
            let keys = keys.iter().map(|&k| FOLLOW.tagged(k)).collect();
            Done::unfound(1, 0, Default::default(), keys)
        };
        // Before any member has run its probe: the floor alone.
        assert_eq!(l.weights(), vec![3, 6, 3]);
        // The walk shows a new key in every execution, the samples the
        // same key in every one: the walk leads once both ran the probe.
        for i in 0..PROBE {
            l.learn(1, &unit(&[i]));
            l.learn(2, &unit(&[7]));
            // The sweep's keys do not make it a leader.
            l.learn(0, &unit(&[1000 + i]));
        }
        assert_eq!(l.leader(), Some(1));
        assert_eq!(l.weights(), vec![2, 4 + 4, 2]);
        // No member's share falls below two thirds of its floor's: the
        // weights sum to three floors, and each is at least two of its own.
        let w = l.weights();
        assert_eq!(w.iter().sum::<u64>(), 3 * 4);
        assert!(w.iter().zip([1, 2, 1]).all(|(w, f)| *w >= 2 * f));

        // Without a mutations member nothing is new (there is no corpus);
        // with one, keys of the signals not followed are new (the corpus
        // keeps their walks) but give no member the remainder.
        let other = Signal::Orderings.tagged(7);
        let done = Done::unfound(1, 0, Default::default(), vec![other]);
        assert_eq!(l.learn(2, &done), 0);
        l.keeps = true;
        assert_eq!(l.learn(2, &done), 1);
        for _ in 0..3 * PROBE {
            assert_eq!(l.learn(2, &done), 0);
        }
        assert_eq!(l.leader(), Some(1));
    }
}
