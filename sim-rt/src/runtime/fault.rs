//! The built-in fault injector: host resets and partitions as data choices.
//!
//! When a runtime is built with
//! [`Builder::fault_injector`](super::Builder::fault_injector), before every
//! step the runtime asks its scheduler one [`ChoiceKind::Fault`] data
//! choice. Option 0 (the default) does nothing; the others are, in order:
//!
//! 1. reset host `h`, for every host other than the main one that is
//!    running and has an entry point (while resets remain in the budget);
//! 2. partition hosts `a` and `b` both ways, for every such pair that is not
//!    already partitioned (while partitions remain in the budget);
//! 3. heal a partition the injector made and nothing has healed since
//!    (always offered, free).
//!
//! With no option but the default there is no choice, and nothing is
//! recorded. So an explorer meets faults like any other deviation (each
//! costs one delay), and the default scheduler injects one with the
//! configured probability per step.
//!
//! # Determinism
//!
//! The options are listed in host-id order, from state that depends only on
//! the execution so far.

use crate::scheduler::{ChoiceKind, HostId};

use super::world::{Core, HostOp, World, MAIN_HOST};

/// The built-in fault injector's settings (see
/// [`Builder::fault_injector`](crate::runtime::Builder::fault_injector)).
///
/// Before every step, the runtime asks one
/// [`ChoiceKind::Fault`](crate::scheduler::ChoiceKind::Fault) data choice:
/// nothing (the default), reset a host, partition two hosts both ways, or
/// heal a partition it made. Only hosts created with [`host`](crate::sim::host) are touched
/// (never the main host), resets only hosts with an entry point. The
/// default scheduler injects a fault with probability
/// [`probability`](Self::probability) per step; an explorer treats each
/// fault as a deviation.
///
/// ```
/// use sim_rt::sim::FaultInjector;
/// let faults = FaultInjector::new().max_resets(2).max_partitions(1).probability(0.01);
/// let rt = sim_rt::runtime::Builder::new_current_thread().enable_all()
///     .fault_injector(faults)
///     .build()
///     .unwrap();
/// # drop(rt);
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct FaultInjector {
    /// How many host resets it may inject in one run (default 1).
    pub max_resets: u32,
    /// How many partitions it may inject in one run (default 1).
    pub max_partitions: u32,
    /// The default scheduler's chance of a fault at any one step (default
    /// 0.001).
    pub probability: f64,
}

impl Default for FaultInjector {
    fn default() -> Self {
        FaultInjector {
            max_resets: 1,
            max_partitions: 1,
            probability: 0.001,
        }
    }
}

impl FaultInjector {
    /// The default settings.
    pub fn new() -> Self {
        FaultInjector::default()
    }

    /// Sets [`max_resets`](Self::max_resets).
    pub fn max_resets(mut self, n: u32) -> Self {
        self.max_resets = n;
        self
    }

    /// Sets [`max_partitions`](Self::max_partitions).
    pub fn max_partitions(mut self, n: u32) -> Self {
        self.max_partitions = n;
        self
    }

    /// Sets [`probability`](Self::probability).
    ///
    /// # Panics
    ///
    /// When `p` is not in `[0, 1]`.
    pub fn probability(mut self, p: f64) -> Self {
        assert!(
            (0.0..=1.0).contains(&p),
            "FaultInjector::probability must be in [0, 1], got {p}"
        );
        self.probability = p;
        self
    }
}

/// The injector's state during one run.
#[derive(Debug, Clone)]
pub(crate) struct Injector {
    config: FaultInjector,
    resets: u32,
    partitions: u32,
    /// Partitions the injector made and has not healed, in creation order.
    active: Vec<(HostId, HostId)>,
}

impl Injector {
    pub(crate) fn new(config: FaultInjector) -> Injector {
        Injector {
            config,
            resets: 0,
            partitions: 0,
            active: Vec::new(),
        }
    }
}

#[derive(Debug, Clone, Copy)]
enum Fault {
    Reset(HostId),
    Partition(HostId, HostId),
    Heal(usize),
}

/// The injector's options other than the default, in the order of the
/// module docs.
fn options<'a>(core: &'a Core, inj: &'a Injector) -> impl Iterator<Item = Fault> + 'a {
    let first = MAIN_HOST.index() + 1;
    let n = core.hosts.len();
    let resets = (inj.resets < inj.config.max_resets)
        .then(|| {
            core.hosts
                .iter()
                .enumerate()
                .skip(first)
                .filter(|(_, h)| !h.stopped && h.entry.is_some())
                .map(|(i, _)| Fault::Reset(HostId(i as u32)))
        })
        .into_iter()
        .flatten();
    let partitions = (inj.partitions < inj.config.max_partitions)
        .then(|| {
            (first..n)
                .flat_map(move |i| (i + 1..n).map(move |j| (HostId(i as u32), HostId(j as u32))))
                .filter(|pair| !inj.active.contains(pair))
                .map(|(a, b)| Fault::Partition(a, b))
        })
        .into_iter()
        .flatten();
    let heals = (0..inj.active.len()).map(Fault::Heal);
    resets.chain(partitions).chain(heals)
}

impl World {
    /// Asks the scheduler whether to inject a fault before the next step,
    /// and injects it. See the module docs.
    pub(crate) fn inject_fault(&self) {
        if self.heal_due() {
            return;
        }
        self.forget_healed_partitions();
        // Counted without allocating: this runs before every step, and the
        // default (no fault) is by far the most common answer.
        let (n, probability) = {
            let core = self.core.borrow();
            let Some(inj) = core.injector.as_ref() else {
                return;
            };
            (options(&core, inj).count(), inj.config.probability)
        };
        if n == 0 {
            return;
        }
        let pick = self.choose(ChoiceKind::Fault { probability }, n + 1);
        if pick == 0 {
            return;
        }
        let fault = {
            let core = self.core.borrow();
            let inj = core.injector.as_ref().expect("the injector is configured");
            let fault = options(&core, inj).nth(pick - 1);
            fault.expect("the options have not changed since they were counted")
        };
        tracing::debug!("fault injector: {}", self.fault_words(fault));
        self.tell(|| crate::story::Happening::Injected);
        match fault {
            Fault::Reset(h) => {
                self.with_injector(|inj| inj.resets += 1);
                self.host_op(h, HostOp::Reset);
            }
            Fault::Partition(a, b) => {
                self.with_injector(|inj| {
                    inj.partitions += 1;
                    inj.active.push((a, b));
                });
                self.set_partitioned(a, b, true);
                self.set_partitioned(b, a, true);
            }
            Fault::Heal(i) => {
                let (a, b) = self.with_injector(|inj| inj.active.remove(i));
                self.set_partitioned(a, b, false);
                self.set_partitioned(b, a, false);
            }
        }
    }

    /// A fault in a failure report's words: "reset b", "partition a | b",
    /// "heal a | b".
    fn fault_words(&self, fault: Fault) -> String {
        match fault {
            Fault::Reset(h) => format!("reset {}", self.host_name(h)),
            Fault::Partition(a, b) => {
                format!("partition {} | {}", self.host_name(a), self.host_name(b))
            }
            Fault::Heal(i) => match self.with_injector(|inj| inj.active.get(i).copied()) {
                Some((a, b)) => format!("heal {} | {}", self.host_name(a), self.host_name(b)),
                None => "heal".to_string(),
            },
        }
    }

    /// At [`Builder::heal_at_step`](super::Builder::heal_at_step)'s step
    /// (once): heals every partition and turns the injector off; true when
    /// it did.
    fn heal_due(&self) -> bool {
        {
            let mut core = self.core.borrow_mut();
            let at = core.config.heal_at;
            if at == u64::MAX || (core.trace.len() as u64) < at {
                return false;
            }
            core.config.heal_at = u64::MAX;
            core.injector = None;
        }
        tracing::debug!("faults stop: every partition healed");
        self.heal_all();
        true
    }

    /// Drops from the injector's partitions those healed by other means
    /// (`sim::heal`, `sim::heal_all`): they are no longer its to heal, and
    /// their pair may be partitioned again.
    fn forget_healed_partitions(&self) {
        let mut guard = self.core.borrow_mut();
        let core = &mut *guard;
        let Some(inj) = core.injector.as_mut() else {
            return;
        };
        if inj.active.is_empty() {
            return;
        }
        let net = self.net.borrow();
        let hosts = &core.hosts;
        inj.active.retain(|(a, b)| {
            let (a, b) = (hosts[a.index()].net_id, hosts[b.index()].net_id);
            net.net.is_partitioned(a, b) || net.net.is_partitioned(b, a)
        });
    }

    fn with_injector<R>(&self, f: impl FnOnce(&mut Injector) -> R) -> R {
        let mut core = self.core.borrow_mut();
        f(core.injector.as_mut().expect("the injector is configured"))
    }
}
