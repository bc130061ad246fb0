//! Random walks: independent executions, each following a randomized
//! explorer's `next` with no delays, data choices drawn with the configured
//! fault probabilities (as the default scheduler does) or, for [`Swarm`],
//! with the probabilities scaled by a draw from the execution's seed (see
//! the `swarm` module).
//!
//! With the [`Random`](crate::explorers::Random) explorer this is the
//! uniform random walk other simulators run; with
//! [`Pct`](crate::explorers::Pct), PCT's independent runs. Execution `j` has
//! seed [`unit_seed`](super::pool::unit_seed)`(base, j)`, so `SIM_SEED=s`
//! runs the execution with seed `s` first. Executions run on `SIM_JOBS`
//! threads and shard with `SIM_SHARD` (see `pool.rs`).

use crate::coverage::Coverage;
use crate::exec::Exec;
use crate::report::Report;

use crate::schedule::Deviation;

use super::pool::{self, Done, Kept, Plan, Unit};
use super::{Ctx, SearchKind};

/// Independent executions of a randomized explorer (the baselines: uniform
/// random walk, PCT).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Walk;

/// Random walks with swarm testing: each execution scales the test's fault
/// rates (the injector's, loss, duplication, disk errors, `buggify`) by
/// multipliers drawn from its seed, from off to a hundred times, so that
/// some executions are quiet and others are storms; and in half of them
/// the uniform data choices (`select!`, `sim::choose`) take their default
/// option. The failure report prints the draw; its replay token and
/// `SIM_SEED` line give it back.
///
/// | kind | multipliers, equally likely |
/// |---|---|
/// | fault injector (resets, partitions, heals) | 1, 10, 100 |
/// | packet loss, duplication, disk `EIO` | 0, 1, 10 |
/// | `buggify` | 0, 1, 4 |
///
/// A rate is at most 0.5 after scaling, and a kind the test did not
/// configure (probability 0) stays off. Works with any randomized
/// explorer: [`Random`](crate::Random) (the default for walks) or
/// [`Pct`](crate::Pct).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Swarm;

pub(super) fn run(ctx: &Ctx<'_>, swarm: bool) -> Report {
    let mut report = ctx.report();
    let plan = Plan::walks();
    ctx.progress.stratum(0);
    pool::run(
        ctx,
        &plan,
        &mut report,
        |u| ctx.seed_line(u.seed),
        |unit| execution(ctx, unit, swarm),
    );
    report
}

/// One walk execution.
pub(super) fn execution(ctx: &Ctx<'_>, unit: Unit, swarm: bool) -> Done {
    guided(ctx, unit.seed, swarm, Vec::new(), None)
}

/// A walk execution with seed `seed` and the deviations `schedule` (a
/// mutated walk of the adaptive search, which keeps it for member `keep`
/// with its branching choice points).
pub(super) fn guided(
    ctx: &Ctx<'_>,
    seed: u64,
    swarm: bool,
    schedule: Vec<Deviation>,
    keep: Option<usize>,
) -> Done {
    let search = if swarm {
        SearchKind::Swarm
    } else {
        SearchKind::Walk
    };
    ctx.numbered(1, || {
        let mut ran = ctx.target.run(Exec {
            record_from: if keep.is_some() { 0 } else { u32::MAX },
            ..Exec::of(seed, schedule.clone(), search)
        });
        ctx.progress.executed(1, 0);
        let delays = schedule.iter().map(|&(_, a)| a).sum();
        Done {
            executions: 1,
            max_delays: delays,
            coverage: Coverage::of_execution(&ran.coverage),
            signal: std::mem::take(&mut ran.record.signal),
            kept: keep.map(|member| Kept {
                member,
                seed,
                schedule: schedule.clone(),
                branches: std::mem::take(&mut ran.record.branches),
            }),
            found: ran
                .failure
                .is_some()
                .then(|| ctx.found(ran, seed, &schedule, delays, 1)),
        }
    })
}
