//! Replaying one execution from a [`ReplayToken`].
//!
//! The token names the explorer, the seed and the deviations; running them
//! again gives the same execution, step for step, if the program is
//! deterministic and unchanged. The token also holds the execution's length
//! and trace hash, so a replay that went elsewhere is reported as such
//! instead of passing or failing for an unrelated reason.

use crate::exec::Exec;
use crate::report::Report;
use crate::token::ReplayToken;

use super::{Ctx, SearchKind};

/// How a replay ended, besides its report.
#[derive(Debug)]
pub(crate) enum Replayed {
    /// The same execution ran again (it may or may not have failed).
    Same(Report),
    /// The execution differs from the recorded one.
    Diverged {
        report: Report,
        steps: u32,
        hash: u64,
        /// The determinism check's first divergence, when its two runs of
        /// the token's execution differ from each other.
        check: Option<String>,
    },
}

pub(crate) fn run(ctx: &Ctx<'_>, token: &ReplayToken) -> Replayed {
    let mut report = ctx.report();
    report.search = SearchKind::Replay.name().to_string();
    let exec = Exec {
        record_from: 0,
        quiet: false,
        walk: token.walk,
        ..Exec::of(token.seed, token.schedule.clone(), ctx.search)
    };
    let ran = ctx.numbered(1, || ctx.target.run(exec.clone()));
    report.executions = 1;
    report.add_sample(token.seed);
    report.coverage.add_execution(&ran.coverage);
    // A deviation at a pick costs its delays; at a data choice, one.
    let delays = token
        .schedule
        .iter()
        .map(|&(at, a)| {
            let pick = ran.record.branches.iter().find(|b| b.at == at);
            if pick.is_none_or(|b| b.pick) {
                a
            } else {
                1
            }
        })
        .sum();
    report.max_delays_reached = delays;
    let (steps, hash) = match &ran.trace {
        Some(t) => (t.len() as u32, t.hash()),
        None => (ran.record.points, 0),
    };
    let failed = ran.failure.is_some();
    if failed {
        // A walk's execution is not shrunk: it replays as it is.
        let shrink = if token.walk.is_some() { 0 } else { ctx.shrink };
        let mut found = ctx.numbered(1, || {
            ctx.found_shrinking(ran, token.seed, &token.schedule, delays, 1, shrink)
        });
        if token.walk.is_some() {
            // A walk's failure replays with its own token.
            found.command = format!("SIM_REPLAY={token} {}", ctx.command);
            found.token = token.clone();
        }
        report.failure = Some(found);
    }
    report.elapsed = ctx.started.elapsed();
    let walk = token.walk.is_some();
    if walk && !failed && steps == token.steps && hash == token.hash {
        eprintln!(
            "explorer: the replayed liveness walk (from step {} of the execution) reached every \
             \"eventually\" property after {steps} steps",
            token.walk.map_or(0, |w| w.from)
        );
    }
    if (failed || walk) && steps == token.steps && hash == token.hash {
        Replayed::Same(report)
    } else {
        Replayed::Diverged {
            report,
            steps,
            hash,
            check: ctx.target.check_twice(&exec).0,
        }
    }
}
