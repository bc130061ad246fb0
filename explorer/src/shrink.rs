//! Shrinking a failing execution: a smaller one that fails the same way.
//!
//! An execution is its seed and its choices. What a search chose lives in
//! its schedule (the deviations from the explorer's default); what a walk
//! chose at random is in its trace, and becomes a schedule by writing down
//! its non-default data choices (its picks come from the explorer's own
//! seeded generator and replay by themselves). The shrinker reduces that
//! schedule, as Hypothesis reduces its choice sequence: every candidate is
//! a real execution of the program, run from the remaining deviations with
//! the explorer's defaults filling every other choice, and it is kept only
//! when it fails *the same way*: the same failure kind and, for a panic,
//! the same location; for a liveness failure, the same property.
//!
//! The passes, until none makes progress or the budget of executions runs
//! out:
//!
//! 1. each loss or duplication dropped alone, with the later losses and
//!    duplications kept *by packet* (the `n`-th packet from one host to
//!    another: see `guided::Anchor`) rather than by choice point: a packet
//!    delivered instead of lost shifts every later choice point, so
//!    dropping it by position alone would move the losses the failure
//!    needs onto other packets;
//! 2. delta debugging (Zeller's ddmin) over the deviations: drop halves,
//!    quarters, ... of them, and their complements;
//! 3. fewer delays at each remaining pick, and lower options at each
//!    remaining data choice (a fault's first option, say);
//! 4. each deviation moved to an earlier choice point of the same kind, so
//!    that the failure comes sooner (a binary search over those points).
//!
//! The size of an execution is, in this order of importance: its faults
//! (lost or duplicated packets, injected resets and partitions, disk
//! errors), its other non-default data choices, its delays and its choice
//! points (picks and data choices).
//!
//! # Determinism
//!
//! The candidates and their order are a function of the schedule and of
//! the program's answers: the same failure shrinks to the same execution.

use sim_rt::runtime::{ChoiceTag, FailureKind, Step, Trace};

use crate::exec::{Exec, Ran, Target};
use crate::schedule::Deviation;
use crate::search_kind::SearchKind;
use crate::tell::tag;
use crate::token::ReplayToken;

/// Executions a shrink may run by default.
pub const DEFAULT_SHRINK_EXECUTIONS: u64 = 200;

/// How big an execution is, as the shrinker measures it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default)]
pub struct ExecutionSize {
    /// Non-default choices of fault kinds: packet losses and duplicates,
    /// the fault injector's resets and partitions, disk errors.
    pub faults: u32,
    /// Other non-default data choices (`select!` branches, `sim::choose`,
    /// disk crash outcomes).
    pub data: u32,
    /// Delays at picks.
    pub delays: u32,
    /// Choice points: every pick and data choice, as replay tokens count
    /// them (not the steps a report numbers, which count events run).
    pub steps: u32,
}

impl std::fmt::Display for ExecutionSize {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} faults, {} other data choices, {} delays, {} choice points",
            self.faults, self.data, self.delays, self.steps
        )
    }
}

/// What shrinking did.
#[derive(Debug, Clone)]
pub struct Shrunk {
    /// The execution the search found.
    pub before: ExecutionSize,
    /// The one reported (the same when nothing smaller failed the same way).
    pub after: ExecutionSize,
    /// Executions the shrinker ran.
    pub executions: u64,
    /// The token of the execution the search found.
    pub original: ReplayToken,
    /// The command that replays it.
    pub original_command: String,
}

/// The kinds whose non-default options are faults.
fn is_fault(kind: ChoiceTag) -> bool {
    match kind {
        ChoiceTag::Loss
        | ChoiceTag::Duplicate
        | ChoiceTag::Fault
        | ChoiceTag::DiskEio
        | ChoiceTag::Buggify => true,
        ChoiceTag::Select
        | ChoiceTag::User
        | ChoiceTag::Late
        | ChoiceTag::DiskCrashPrefix
        | ChoiceTag::DiskCrashKeep
        | ChoiceTag::DiskTornWrite
        | ChoiceTag::Thread => false,
    }
}

/// The size of the execution of `schedule` whose trace is `trace`.
pub(crate) fn size(schedule: &[Deviation], trace: &Trace) -> ExecutionSize {
    let mut s = ExecutionSize {
        steps: trace.len() as u32,
        ..Default::default()
    };
    for &(at, action) in schedule {
        match trace.step_at(at.into()) {
            Some(Step::Choose { kind, .. }) if is_fault(tag(kind)) => s.faults += 1,
            Some(Step::Choose { .. }) => s.data += 1,
            _ => s.delays += action,
        }
    }
    s
}

/// The schedule that makes a walk's execution without random data: its
/// non-default data choices, as deviations, and the delays of its own
/// `schedule` (a mutated walk's).
fn data_choices(trace: &Trace, schedule: &[Deviation]) -> Vec<Deviation> {
    let delays = schedule
        .iter()
        .filter(|&&(at, _)| !matches!(trace.step_at(at.into()), Some(Step::Choose { .. })));
    let mut all: Vec<Deviation> = trace
        .positions()
        .iter()
        .zip(trace.steps())
        .filter_map(|(&at, step)| match *step {
            Step::Choose { index, .. } if index > 0 => Some((at as u32, index)),
            _ => None,
        })
        .chain(delays.copied())
        .collect();
    all.sort_unstable();
    all
}

/// How a failure is told apart from others.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Signature {
    kind: FailureKind,
    at: Option<String>,
}

fn signature(ran: &Ran) -> Option<Signature> {
    let failure = ran.failure.as_ref()?;
    let at = ran
        .location
        .clone()
        .or_else(|| failure.property().map(str::to_string));
    Some(Signature {
        kind: failure.kind(),
        at,
    })
}

/// The shrinker's state: the smallest failing execution so far.
struct Shrinker<'t, 'a> {
    target: &'t Target<'a>,
    base: Exec,
    want: Signature,
    budget: u64,
    executions: u64,
    best: (Vec<Deviation>, Ran, ExecutionSize),
}

impl Shrinker<'_, '_> {
    /// Runs `schedule`; keeps it when it fails the same way and is
    /// smaller. Whether it was kept.
    fn try_schedule(&mut self, schedule: Vec<Deviation>) -> bool {
        if self.executions >= self.budget || schedule == self.best.0 {
            return false;
        }
        self.executions += 1;
        let ran = self.target.run(Exec {
            schedule: schedule.clone(),
            ..self.base.clone()
        });
        if signature(&ran).as_ref() != Some(&self.want) {
            return false;
        }
        let trace = ran
            .trace
            .as_ref()
            .expect("a failed execution keeps its trace");
        let size = size(&schedule, trace);
        if size >= self.best.2 {
            return false;
        }
        self.best = (schedule, ran, size);
        true
    }

    /// Each loss or duplication deviation dropped alone, the later ones kept
    /// by their packet's anchor: the candidate runs anchored, and when it
    /// fails the same way, the choice points where its anchored deviations
    /// applied make its schedule, which runs again positionally (so that
    /// what is kept replays from a token like any schedule).
    fn unlose(&mut self) -> bool {
        use crate::guided::Anchor;
        let trace = self
            .best
            .1
            .trace
            .as_ref()
            .expect("failures keep their trace");
        let any = self.best.0.iter().any(|&(at, _)| {
            matches!(
                trace.step_at(at.into()),
                Some(Step::Choose { kind, .. })
                    if matches!(tag(kind), ChoiceTag::Loss | ChoiceTag::Duplicate)
            )
        });
        if !any || self.executions >= self.budget {
            return false;
        }
        // The best execution's loss and duplication choices, by anchor.
        self.executions += 1;
        let probe = self.target.run(Exec {
            schedule: self.best.0.clone(),
            anchored: Some(Vec::new()),
            ..self.base.clone()
        });
        // Recorded as the run went: in choice-point order.
        let anchors: Vec<(u32, Anchor)> = probe.record.anchors;
        debug_assert!(anchors.windows(2).all(|w| w[0].0 < w[1].0));
        let anchor_of = |at: u32| {
            anchors
                .binary_search_by_key(&at, |&(p, _)| p)
                .ok()
                .map(|i| anchors[i].1)
        };
        let mut i = 0;
        while i < self.best.0.len() && self.executions < self.budget {
            let schedule = self.best.0.clone();
            if anchor_of(schedule[i].0).is_none() {
                i += 1;
                continue;
            }
            let mut positional = Vec::new();
            let mut anchored = Vec::new();
            for (j, &(at, action)) in schedule.iter().enumerate() {
                match anchor_of(at) {
                    _ if j == i => {}
                    Some(a) => anchored.push((a, action)),
                    None => positional.push((at, action)),
                }
            }
            self.executions += 1;
            let ran = self.target.run(Exec {
                schedule: positional.clone(),
                anchored: Some(anchored),
                ..self.base.clone()
            });
            if signature(&ran).as_ref() != Some(&self.want) {
                i += 1;
                continue;
            }
            let mut candidate = positional;
            for &(at, action) in &ran.record.applied {
                candidate.retain(|&(p, _)| p != at);
                candidate.push((at, action));
            }
            candidate.sort_unstable();
            if self.try_schedule(candidate) {
                // The anchors moved with the new execution: find them again
                // before the next drop.
                self.unlose();
                return true;
            }
            i += 1;
        }
        false
    }

    /// Delta debugging over the deviations.
    fn ddmin(&mut self) -> bool {
        let mut progress = false;
        if !self.best.0.is_empty() && self.try_schedule(Vec::new()) {
            return true;
        }
        let mut n = 2;
        while self.best.0.len() >= 2 && self.executions < self.budget {
            let d = self.best.0.clone();
            let chunk = d.len().div_ceil(n);
            let parts: Vec<Vec<Deviation>> = d.chunks(chunk).map(<[_]>::to_vec).collect();
            let mut reduced = false;
            for part in &parts {
                if self.try_schedule(part.clone()) {
                    n = 2;
                    reduced = true;
                    break;
                }
            }
            if !reduced && parts.len() > 2 {
                for i in 0..parts.len() {
                    let rest: Vec<Deviation> = parts
                        .iter()
                        .enumerate()
                        .filter(|&(j, _)| j != i)
                        .flat_map(|(_, p)| p.iter().copied())
                        .collect();
                    if self.try_schedule(rest) {
                        n = (n - 1).max(2);
                        reduced = true;
                        break;
                    }
                }
            }
            if reduced {
                progress = true;
                continue;
            }
            if n >= d.len() {
                break;
            }
            n = (2 * n).min(d.len());
        }
        progress
    }

    /// Each deviation moved to an earlier choice point of the same kind
    /// (between the deviation before it and itself), so that the failure
    /// comes sooner: a binary search for the earliest that still fails the
    /// same way in fewer steps.
    fn earlier(&mut self) -> bool {
        let mut progress = false;
        for i in 0..self.best.0.len() {
            if self.executions >= self.budget {
                break;
            }
            let (at, action) = self.best.0[i];
            let after = if i == 0 {
                None
            } else {
                Some(self.best.0[i - 1].0)
            };
            let trace = self
                .best
                .1
                .trace
                .as_ref()
                .expect("failures keep their trace");
            let kind = |step: Option<Step>| match step {
                Some(Step::Choose { kind, .. }) => Some(tag(kind)),
                _ => None,
            };
            let mine = kind(trace.step_at(at.into()));
            // Earlier points where this deviation means the same thing.
            let points: Vec<u32> = trace
                .positions()
                .iter()
                .zip(trace.steps())
                .map(|(&p, s)| (p as u32, *s))
                .filter(|&(p, s)| p < at && after.is_none_or(|a| p > a) && kind(Some(s)) == mine)
                .filter(|&(_, s)| match s {
                    Step::Pick { of, .. } | Step::Choose { of, .. } => of > action,
                })
                .map(|(p, _)| p)
                .collect();
            let (mut lo, mut hi) = (0, points.len());
            while lo < hi && self.executions < self.budget {
                let mid = lo + (hi - lo) / 2;
                let mut candidate = self.best.0.clone();
                candidate[i] = (points[mid], action);
                if self.try_schedule(candidate) {
                    progress = true;
                    hi = mid;
                } else {
                    lo = mid + 1;
                }
            }
        }
        progress
    }

    /// Fewer delays at each pick, lower options at each data choice.
    fn lower(&mut self) -> bool {
        let mut progress = false;
        let mut i = 0;
        while i < self.best.0.len() && self.executions < self.budget {
            let (at, action) = self.best.0[i];
            let mut lower = 1;
            while lower < action {
                let mut candidate = self.best.0.clone();
                candidate[i] = (at, lower);
                if self.try_schedule(candidate) {
                    progress = true;
                    break;
                }
                // 1, then halfway up, and so on.
                lower = lower + (action - lower).div_ceil(2);
            }
            i += 1;
        }
        progress
    }
}

/// Shrinks the failing execution `ran` of `base` within `budget`
/// executions; returns the smallest execution that fails the same way (the
/// input when none does), its schedule, and the sizes and count.
fn shrink(
    target: &Target<'_>,
    base: Exec,
    ran: Ran,
    budget: u64,
) -> (Vec<Deviation>, Ran, ExecutionSize, ExecutionSize, u64) {
    let want = signature(&ran).expect("only failures are shrunk");
    let trace = ran
        .trace
        .as_ref()
        .expect("a failed execution keeps its trace");
    let before = size(&base.schedule, trace);
    let mut shrinker = Shrinker {
        target,
        want,
        budget,
        executions: 0,
        best: (base.schedule.clone(), ran, before),
        base,
    };
    while shrinker.executions < budget {
        let z = shrinker.unlose();
        let a = shrinker.ddmin();
        let b = shrinker.lower();
        let c = shrinker.earlier();
        if !z && !a && !b && !c {
            break;
        }
    }
    let (schedule, ran, after) = shrinker.best;
    (schedule, ran, before, after, shrinker.executions)
}

/// Shrinks the failure `ran` that `search` found running `base`, with a
/// budget of `budget` executions; returns the execution to report, its
/// schedule, the search name its token needs, and what shrinking did
/// (`original` and `original_command` replay the failure as found). A
/// walk is shrunk only when its data choices, written down as a schedule,
/// run the same execution.
pub(crate) fn found(
    target: &Target<'_>,
    base: Exec,
    search: SearchKind,
    ran: Ran,
    original: ReplayToken,
    original_command: String,
    budget: u64,
) -> (Ran, Vec<Deviation>, SearchKind, Option<Shrunk>) {
    let mut base = base;
    let mut ran = ran;
    let mut search = search;
    let mut budget = budget;
    if base.random_data {
        // A walk: its random data choices (drawn with its swarm rates, if
        // any), written down as a schedule.
        let trace = ran
            .trace
            .as_ref()
            .expect("a failed execution keeps its trace");
        let converted = Exec {
            schedule: data_choices(trace, &base.schedule),
            random_data: false,
            swarm: false,
            ..base.clone()
        };
        let again = target.run(converted.clone());
        budget -= 1;
        let same = again
            .trace
            .as_ref()
            .is_some_and(|t| t.hash() == trace.hash());
        if !same {
            return (ran, base.schedule, search, None);
        }
        (base, ran, search) = (converted, again, SearchKind::Shrunk);
    }
    let (schedule, ran, before, after, executions) = shrink(target, base, ran, budget);
    let shrunk = Shrunk {
        before,
        after,
        executions,
        original,
        original_command,
    };
    (ran, schedule, search, Some(shrunk))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fault_kinds() {
        use sim_rt::scheduler::ChoiceKind;
        assert!(is_fault(ChoiceKind::Fault { probability: 0.1 }.tag()));
        assert!(is_fault(ChoiceKind::Loss { probability: 0.1 }.tag()));
        assert!(!is_fault(ChoiceKind::User.tag()));
        assert!(!is_fault(ChoiceKind::DiskCrashKeep.tag()));
    }

    #[test]
    fn sizes_order_faults_first() {
        let a = ExecutionSize {
            faults: 1,
            data: 0,
            delays: 0,
            steps: 10,
        };
        let b = ExecutionSize {
            faults: 0,
            data: 3,
            delays: 9,
            steps: 900,
        };
        assert!(b < a);
    }
}
