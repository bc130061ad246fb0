//! Coverage points: `sometimes!` and `reachable!` (after Antithesis's
//! assertions of the same names).
//!
//! A point is a place in the program that a good test should reach, or a
//! condition it should see hold, in *some* execution: a leader isolated
//! while a client writes, a retry that finds its request already applied.
//! Unlike an `assert!`, a point that is not hit in one execution is no
//! failure; a point hit in none of an exploration's executions tells the
//! user that the search never got there, and the explorer reports it.
//!
//! The macros register each point in a table the linker gathers
//! ([`linkme`]'s distributed slice) so that a point never reached at all is
//! known and reported too, not only one reached with its condition false.
//! [`sim::sometimes`](crate::sim::sometimes) and
//! [`sim::reachable`](crate::sim::reachable), the function forms, name the
//! caller's location and are known only once reached.
//!
//! # Determinism
//!
//! An execution's record is a `BTreeMap` ordered by the point (file, line,
//! column, name), so what a run reports does not depend on addresses.

use std::collections::BTreeMap;

/// What a coverage point asks of an exploration.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum PointKind {
    /// `sometimes!(condition, name)`: the condition holds in at least one
    /// execution.
    Sometimes,
    /// `reachable!(name)`: the line runs in at least one execution.
    Reachable,
}

/// A coverage point: where it is and what it is called.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Point {
    /// The file, as `file!()` gives it.
    pub file: &'static str,
    /// The line.
    pub line: u32,
    /// The column.
    pub column: u32,
    /// The name the program gave it.
    pub name: &'static str,
    /// Sometimes or reachable.
    pub kind: PointKind,
}

impl std::fmt::Display for Point {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let kind = match self.kind {
            PointKind::Sometimes => "sometimes",
            PointKind::Reachable => "reachable",
        };
        write!(
            f,
            "{kind} {:?} at {}:{}:{}",
            self.name, self.file, self.line, self.column
        )
    }
}

/// What one execution did at one point.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Hits {
    /// Times the point was evaluated.
    pub reached: u64,
    /// Times it was hit: its condition held (always, for `reachable!`).
    pub hit: u64,
    /// The step (as [`sim::step`](crate::sim::step) counts) of the first
    /// hit, if any.
    pub first_hit_step: Option<u64>,
}

/// Every point an execution evaluated, in point order.
#[derive(Debug, Default)]
pub(crate) struct Coverage {
    points: BTreeMap<Point, Hits>,
}

impl Coverage {
    /// Records one evaluation of `point` at `step`.
    pub(crate) fn record(&mut self, point: Point, held: bool, step: u64) {
        let hits = self.points.entry(point).or_default();
        hits.reached += 1;
        if held {
            hits.hit += 1;
            hits.first_hit_step.get_or_insert(step);
        }
    }

    pub(crate) fn snapshot(&self) -> Vec<(Point, Hits)> {
        self.points.iter().map(|(p, h)| (*p, *h)).collect()
    }
}

/// The points the macros registered, gathered by the linker from every
/// crate of the binary.
#[linkme::distributed_slice]
#[doc(hidden)]
pub static POINTS: [Point];

/// Every point registered in this binary by `sometimes!`/`reachable!`,
/// sorted, each once.
pub fn registered() -> Vec<Point> {
    let mut all: Vec<Point> = POINTS.iter().copied().collect();
    all.sort();
    all.dedup();
    all
}

#[cfg(test)]
mod tests {
    use super::*;

    fn point(line: u32) -> Point {
        Point {
            file: "f.rs",
            line,
            column: 1,
            name: "p",
            kind: PointKind::Sometimes,
        }
    }

    #[test]
    fn hits_count_and_keep_the_first_step() {
        let mut c = Coverage::default();
        c.record(point(2), false, 1);
        c.record(point(1), true, 5);
        c.record(point(1), true, 9);
        let s = c.snapshot();
        assert_eq!(s[0].0, point(1), "in point order");
        assert_eq!(
            s[0].1,
            Hits {
                reached: 2,
                hit: 2,
                first_hit_step: Some(5)
            }
        );
        assert_eq!(
            s[1].1,
            Hits {
                reached: 1,
                hit: 0,
                first_hit_step: None
            }
        );
    }
}
