//! Random walks: independent executions, each following a randomized
//! explorer's `next` with no delays, data choices drawn with the configured
//! fault probabilities (as the default scheduler does).
//!
//! With the [`Random`](crate::explorers::Random) explorer this is the
//! uniform random walk other simulators run; with
//! [`Pct`](crate::explorers::Pct), PCT's independent runs. Execution `j` has
//! seed [`unit_seed`](super::pool::unit_seed)`(base, j)`, so `SIM_SEED=s`
//! runs the execution with seed `s` first. Executions run on `SIM_JOBS`
//! threads and shard with `SIM_SHARD` (see `pool.rs`).

use crate::exec::Exec;
use crate::report::Report;

use super::pool::{self, Done, Plan};
use super::Ctx;

/// Independent executions of a randomized explorer (the baselines: uniform
/// random walk, PCT).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Walk;

pub(super) fn run(ctx: &Ctx<'_>, _cfg: &Walk) -> Report {
    let mut report = ctx.report();
    let plan = Plan {
        strata: vec![(0, u64::MAX)],
        first_bound: None,
    };
    ctx.progress.stratum(0);
    pool::run(ctx, &plan, &mut report, |unit| {
        let ran = ctx.target.run(Exec::of(unit.seed, Vec::new(), true));
        ctx.progress.executed(1, 0);
        Done {
            executions: 1,
            max_delays: 0,
            found: ran
                .failure
                .is_some()
                .then(|| ctx.found(ran, unit.seed, &[], 0, 1)),
        }
    });
    report
}
