//! What an exploration covered: for each coverage point
//! ([`sim_rt::sometimes!`], [`sim_rt::reachable!`]), in how many
//! executions it was reached and hit.
//!
//! A point hit in no execution is the news: the search never reached the
//! state the test's author meant it to reach, so a pass says less than it
//! seems to. [`Report::never_hit`](crate::Report::never_hit) lists those
//! points and a passing report prints them.
//!
//! # Which points an exploration answers for
//!
//! The macros register their points with the linker, for the whole test
//! binary, and one binary often holds the tests of several systems. An
//! exploration answers for the points it evaluated and for the registered
//! points of the *files* in which it evaluated one: a point in a file none
//! of whose points this exploration reached is taken to belong to another
//! test. So a file whose only point is never reached is not reported; put
//! a `reachable!` at the system's entry to anchor it.
//!
//! # Determinism
//!
//! Tallies are sums over executions, merged in unit order by the parallel
//! searches (see `search/pool.rs`), so the counts do not depend on
//! `SIM_JOBS`.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use sim_rt::sim::{Hits, Point};

/// In how many executions a point was reached and hit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Tally {
    /// Executions that evaluated the point.
    pub reached: u64,
    /// Executions in which it was hit (its condition held at least once).
    pub hit: u64,
}

/// Coverage over the executions of an exploration, in point order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Coverage {
    points: BTreeMap<Point, Tally>,
}

impl Coverage {
    /// One execution's coverage.
    pub(crate) fn of_execution(record: &[(Point, Hits)]) -> Coverage {
        let mut c = Coverage::default();
        c.add_execution(record);
        c
    }

    /// Adds one execution's record (as
    /// [`Runtime::coverage`](sim_rt::runtime::Runtime::coverage) gives it).
    pub(crate) fn add_execution(&mut self, record: &[(Point, Hits)]) {
        for (point, hits) in record {
            let t = self.points.entry(*point).or_default();
            t.reached += 1;
            t.hit += u64::from(hits.hit > 0);
        }
    }

    /// Adds another tally's executions.
    pub(crate) fn merge(&mut self, other: &Coverage) {
        for (point, tally) in &other.points {
            let t = self.points.entry(*point).or_default();
            t.reached += tally.reached;
            t.hit += tally.hit;
        }
    }

    /// Adds the `registered` points of the files this exploration reached
    /// a point in, with no executions (see the module docs).
    pub(crate) fn answer_for(&mut self, registered: &[Point]) {
        let files: BTreeSet<&str> = self.points.keys().map(|p| p.file).collect();
        for p in registered {
            if files.contains(p.file) {
                self.points.entry(*p).or_default();
            }
        }
    }

    /// Every point this exploration answers for, with its tally.
    pub fn points(&self) -> impl Iterator<Item = (&Point, &Tally)> {
        self.points.iter()
    }

    /// The points hit in no execution.
    pub fn never_hit(&self) -> Vec<Point> {
        self.points
            .iter()
            .filter(|(_, t)| t.hit == 0)
            .map(|(p, _)| *p)
            .collect()
    }

    /// Whether the exploration evaluated or answers for no point.
    pub fn is_empty(&self) -> bool {
        self.points.is_empty()
    }
}

impl fmt::Display for Coverage {
    /// `coverage: 2 of 3 points hit; never: sometimes "x" at f.rs:1:2
    /// (reached in 40 executions, never held)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let never = self.never_hit();
        write!(
            f,
            "coverage: {} of {} points hit",
            self.points.len() - never.len(),
            self.points.len()
        )?;
        for p in never {
            let t = self.points[&p];
            let how = if t.reached == 0 {
                "never reached".to_string()
            } else {
                format!("reached in {} executions, never held", t.reached)
            };
            write!(f, "\n  never hit: {p} ({how})")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sim_rt::sim::PointKind;

    fn point(file: &'static str, line: u32) -> Point {
        Point {
            file,
            line,
            column: 1,
            name: "p",
            kind: PointKind::Sometimes,
        }
    }

    fn hits(hit: u64) -> Hits {
        Hits {
            reached: 1,
            hit,
            first_hit_step: None,
        }
    }

    #[test]
    fn tallies_count_executions_and_answer_for_reached_files() {
        let mut c = Coverage::default();
        c.add_execution(&[(point("a.rs", 1), hits(3)), (point("a.rs", 2), hits(0))]);
        let mut other = Coverage::default();
        other.add_execution(&[(point("a.rs", 1), hits(0))]);
        c.merge(&other);
        c.answer_for(&[point("a.rs", 9), point("b.rs", 1)]);
        let all: Vec<_> = c
            .points()
            .map(|(p, t)| (p.line, t.reached, t.hit))
            .collect();
        assert_eq!(all, vec![(1, 2, 1), (2, 1, 0), (9, 0, 0)]);
        assert_eq!(c.never_hit(), vec![point("a.rs", 2), point("a.rs", 9)]);
        let text = c.to_string();
        assert!(text.starts_with("coverage: 1 of 3 points hit"), "{text}");
        assert!(
            text.contains("(reached in 1 executions, never held)"),
            "{text}"
        );
        assert!(text.contains("a.rs:9:1 (never reached)"), "{text}");
    }
}
