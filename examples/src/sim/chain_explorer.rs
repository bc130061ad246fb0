//! The chain-replication case's own delaying explorer: round robin in
//! stages (Desai, Qadeer & Seshia, FSE 2015, section 5, "CustExplorer").
//!
//! The paper tests chain replication against a fault injector that fails
//! servers whenever it gets to run. Failures during the initialisation are
//! uninteresting (the chain is simply set up without the failed server),
//! so its custom explorer keeps an ordering of the machines and cycles
//! through them, and the program changes the ordering: while the system
//! starts, the servers come before the master and the fault injector;
//! once it has started, the master and the fault injector move ahead of
//! the servers. Failures then come right after the start, without a delay
//! spent on them.
//!
//! Here the program says who is who with [`sim_rt::sim::annotate`]: a task
//! labelled [`MASTER`] or [`FAULT`] has that role, and so has every task it
//! spawns; the label [`STARTED`] (from any task) ends the start. Units
//! (tasks, packets, the clock) are ordered as by round robin (a new unit,
//! a task that blocks and the clock once it advances go to the back), but
//! in classes, front first:
//!
//! | class | before [`STARTED`] | after |
//! |---|---|---|
//! | front | | tasks with a role |
//! | normal | everything else | everything else |
//! | back | tasks with a role | |
//! | delayed | units delayed since they last blocked | the same |
//!
//! `next` runs the first enabled unit; `delay` moves it to the very back
//! (the delayed class) until it blocks again.
//!
//! # Invariants
//!
//! - `order` is sorted by class (stably: within a class, round robin
//!   order), and holds no unit twice.
//!
//! # Soundness
//!
//! A delay moves the first enabled unit behind every other unit and leaves
//! the others in place, so, as for round robin, `k = 0..m` delays name each
//! of the `m` enabled events once and `k = m` the first again. The test is
//! in `tests/simulated/chain.rs`.
//!
//! # Determinism
//!
//! The order depends only on the observations and the sets of enabled
//! units: units first seen in the enabled set join in [`Unit`] order.

use std::collections::BTreeMap;

use explorer::{DelayingExplorer, Unit};
use sim_rt::scheduler::{Event, Observation};
use sim_rt::task::Id;

/// The label of the master's task (its children inherit the role).
pub const MASTER: &str = "chain:master";
/// The label of the fault injector's task that fails servers.
pub const FAULT: &str = "chain:fault";
/// The label that ends the start: the chain works.
pub const STARTED: &str = "chain:started";

/// A unit's place in the order; see the module docs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Class {
    Front,
    Normal,
    Back,
    Delayed,
}

/// Round robin in stages: the master and the fault injector last while the
/// system starts, first once it has. See the [module docs](self).
#[derive(Debug, Clone, Default)]
pub struct Staged {
    /// Every unit known, with whether it was delayed since it last
    /// blocked; sorted by [`Class`].
    order: Vec<(Unit, bool)>,
    /// Tasks with a role (master or fault injector).
    roles: BTreeMap<Id, &'static str>,
    started: bool,
}

impl Staged {
    /// The explorer, before the start.
    pub fn new() -> Staged {
        Staged::default()
    }

    fn class(&self, unit: Unit, delayed: bool) -> Class {
        if delayed {
            return Class::Delayed;
        }
        match unit {
            Unit::Task(t) if self.roles.contains_key(&t) => {
                if self.started {
                    Class::Front
                } else {
                    Class::Back
                }
            }
            _ => Class::Normal,
        }
    }

    fn position(&self, unit: Unit) -> Option<usize> {
        self.order.iter().position(|(u, _)| *u == unit)
    }

    /// Puts `unit` (not delayed) at the back of its class, moving it if it
    /// is known.
    fn place(&mut self, unit: Unit) {
        if let Some(at) = self.position(unit) {
            self.order.remove(at);
        }
        let class = self.class(unit, false);
        let at = self
            .order
            .iter()
            .position(|&(u, d)| self.class(u, d) > class)
            .unwrap_or(self.order.len());
        self.order.insert(at, (unit, false));
    }

    fn remove(&mut self, unit: Unit) {
        if let Some(at) = self.position(unit) {
            self.order.remove(at);
        }
    }

    /// Learns enabled units never seen, then returns the index in
    /// `enabled` and the position in `order` of the first enabled unit.
    fn head(&mut self, enabled: &[Event]) -> (usize, usize) {
        let mut fresh: Vec<Unit> = enabled
            .iter()
            .map(|e| Unit::of(*e))
            .filter(|u| self.position(*u).is_none())
            .collect();
        fresh.sort_unstable();
        fresh.dedup();
        for unit in fresh {
            self.place(unit);
        }
        self.order
            .iter()
            .enumerate()
            .find_map(|(at, (u, _))| {
                let i = enabled.iter().position(|e| Unit::of(*e) == *u)?;
                Some((i, at))
            })
            .expect("every enabled unit is in the order once head() has learned them")
    }
}

impl DelayingExplorer for Staged {
    fn name(&self) -> String {
        "staged".into()
    }

    fn start(&mut self, _seed: u64) {
        *self = Staged::default();
    }

    fn next(&mut self, enabled: &[Event]) -> usize {
        self.head(enabled).0
    }

    fn next_is_pure(&self) -> bool {
        // `head` only places units first seen, once.
        true
    }

    fn delay(&mut self, enabled: &[Event]) {
        let (_, at) = self.head(enabled);
        let (unit, _) = self.order.remove(at);
        self.order.push((unit, true));
    }

    fn step(&mut self, observation: &Observation) {
        match *observation {
            Observation::Spawned { task, parent, .. } => {
                if let Some(role) = parent.and_then(|p| self.roles.get(&p).copied()) {
                    self.roles.insert(task, role);
                }
                self.place(Unit::Task(task));
            }
            Observation::Annotated { task, label, .. } => match (label, task) {
                (MASTER | FAULT, Some(task)) => {
                    self.roles.insert(task, label);
                    self.place(Unit::Task(task));
                }
                (STARTED, _) if !self.started => {
                    self.started = true;
                    let mut order = std::mem::take(&mut self.order);
                    order.sort_by_key(|&(u, d)| self.class(u, d));
                    self.order = order;
                }
                _ => {}
            },
            Observation::Sent { packet, .. } if self.position(Unit::Packet(packet)).is_none() => {
                self.place(Unit::Packet(packet));
            }
            Observation::Duplicated { copy, .. } => self.place(Unit::Packet(copy)),
            Observation::Blocked { task } => self.place(Unit::Task(task)),
            Observation::Advanced { .. } => self.place(Unit::Clock),
            Observation::Finished { task } => {
                self.roles.remove(&task);
                self.remove(Unit::Task(task));
            }
            Observation::Delivered { packet, .. } | Observation::Lost { packet } => {
                self.remove(Unit::Packet(packet));
            }
            _ => {}
        }
        debug_assert!(
            self.order
                .windows(2)
                .all(|w| self.class(w[0].0, w[0].1) <= self.class(w[1].0, w[1].1)),
            "the order is sorted by class"
        );
    }
}
