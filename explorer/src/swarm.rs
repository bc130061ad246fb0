//! Swarm testing: fault rates drawn per execution from its seed.
//!
//! A random walk draws each fault with the probability the test configured:
//! the fault injector's chance per step, each link's loss and duplication,
//! each disk's `EIO`, each [`buggify`](sim_rt::sim::buggify) point. With
//! the same rates in every execution, runs look alike: a bug that needs
//! two resets in a hundred steps, at 0.001 per step, is as rare in the
//! ten-thousandth execution as in the first. After Groce et al.'s swarm
//! testing (ISSTA 2012) and TigerBeetle's simulator, a [`Swarm`] search
//! draws, for each execution, a multiplier for each kind of fault from its
//! seed: some executions have no lost packets and a storm of injector
//! faults, others the reverse.
//!
//! | kind | multipliers, equally likely |
//! |---|---|
//! | fault injector (resets, partitions, heals) | 1, 10, 100 |
//! | packet loss | 0, 1, 10 |
//! | duplication | 0, 1, 10 |
//! | disk `EIO` | 0, 1, 10 |
//! | `buggify` | 0, 1, 4 |
//!
//! A rate is the configured probability times its multiplier, at most
//! [`MAX_RATE`]. A kind the test did not configure stays off: swarm varies
//! the faults a test's world has, it adds none. The injector is never off:
//! its faults have a budget ([`FaultInjector`](sim_rt::sim::FaultInjector)'s
//! `max_resets`, `max_partitions`), and a draw of 0 wasted a third of the
//! executions of every bug that needs one (measured on the effectiveness
//! table: `quorum` needed 101 swarm walks with 0 on the menu, 55 without).
//!
//! The draw has one more dimension: in half the executions, the uniform
//! data choices (`select!`'s branch, `sim::choose`) take their default
//! option, as the systematic searches do, instead of a uniform one. A
//! test's nemesis often makes its most telling choice the default (the
//! `raft` example cuts off the current leader by default); a walk that
//! always chooses uniformly almost never repeats it (`raft`: walks 231
//! executions, swarm walks 14).
//!
//! The draw is a function of the execution's seed alone, so a replay token
//! (whose search is `swarm`) and `SIM_SEED` give the same draw back, and
//! the failure report prints it.
//!
//! [`Swarm`]: crate::Swarm

use std::fmt;

use rand_core::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;
use sim_rt::runtime::ChoiceTag;
use sim_rt::scheduler::{derive_seed, uniform, ChoiceKind};

/// The highest rate swarm gives a kind of fault, per draw.
pub const MAX_RATE: f64 = 0.5;

const FAULTS: [f64; 3] = [1.0, 10.0, 100.0];
const NETWORK: [f64; 3] = [0.0, 1.0, 10.0];
const BUGGIFY: [f64; 3] = [0.0, 1.0, 4.0];

/// Generator stream of an execution's swarm draw.
const SWARM_STREAM: u64 = 0x5357_4152;

/// One execution's fault-rate multipliers.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Rates {
    pub(crate) faults: f64,
    pub(crate) loss: f64,
    pub(crate) duplicate: f64,
    pub(crate) disk: f64,
    pub(crate) buggify: f64,
    /// Uniform data choices (`select!`'s branch, `sim::choose`) take their
    /// default option instead of a uniform one.
    pub(crate) defaults: bool,
}

impl Rates {
    /// The draw of the execution with runtime seed `seed`.
    pub(crate) fn of(seed: u64) -> Rates {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(derive_seed(seed, SWARM_STREAM));
        // One draw per kind, in a fixed order.
        let mut pick = |menu: &[f64]| menu[uniform(&mut rng, menu.len())];
        let faults = pick(&FAULTS);
        let loss = pick(&NETWORK);
        let duplicate = pick(&NETWORK);
        let disk = pick(&NETWORK);
        let buggify = pick(&BUGGIFY);
        let defaults = uniform(&mut rng, 2) == 1;
        Rates {
            defaults,
            faults,
            loss,
            duplicate,
            disk,
            buggify,
        }
    }

    /// `kind` with its probability scaled by this draw (kinds without a
    /// probability, the uniform ones, are unchanged).
    pub(crate) fn scale(&self, kind: ChoiceKind) -> ChoiceKind {
        // Which of this draw's rates scales the kind: matched on the tag,
        // so a new kind of choice does not compile until it is decided.
        let m = match kind.tag() {
            ChoiceTag::Fault => self.faults,
            ChoiceTag::Loss => self.loss,
            ChoiceTag::Duplicate => self.duplicate,
            ChoiceTag::DiskEio => self.disk,
            ChoiceTag::Buggify => self.buggify,
            // Late deliveries keep the walk's own rate; the uniform kinds
            // have none.
            ChoiceTag::Late
            | ChoiceTag::Select
            | ChoiceTag::User
            | ChoiceTag::DiskCrashPrefix
            | ChoiceTag::DiskCrashKeep
            | ChoiceTag::DiskTornWrite
            | ChoiceTag::Thread => return kind,
        };
        let scaled = |p: f64| (p * m).min(MAX_RATE.max(p));
        match kind {
            ChoiceKind::Fault { probability } => ChoiceKind::Fault {
                probability: scaled(probability),
            },
            ChoiceKind::Loss { probability } => ChoiceKind::Loss {
                probability: scaled(probability),
            },
            ChoiceKind::Duplicate { probability } => ChoiceKind::Duplicate {
                probability: scaled(probability),
            },
            ChoiceKind::DiskEio { probability } => ChoiceKind::DiskEio {
                probability: scaled(probability),
            },
            ChoiceKind::Buggify { probability } => ChoiceKind::Buggify {
                probability: scaled(probability),
            },
            other => unreachable!("{other:?} has no rate of a swarm's, by its tag"),
        }
    }

    /// The option of a uniform data choice, when this draw fixes it.
    pub(crate) fn fixed(&self, kind: ChoiceKind) -> Option<usize> {
        (self.defaults && kind.probability().is_none()).then_some(0)
    }
}

impl fmt::Display for Rates {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut first = true;
        if self.defaults {
            f.write_str("default choices, ")?;
        }
        for (name, m) in [
            ("faults", self.faults),
            ("loss", self.loss),
            ("duplication", self.duplicate),
            ("disk errors", self.disk),
            ("buggify", self.buggify),
        ] {
            if !first {
                f.write_str(", ")?;
            }
            first = false;
            if m == 0.0 {
                write!(f, "{name} off")?;
            } else {
                write!(f, "{name} x{m}")?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn draws_depend_on_the_seed_alone_and_vary() {
        assert_eq!(Rates::of(7), Rates::of(7));
        let draws: Vec<Rates> = (0..64).map(Rates::of).collect();
        for m in FAULTS {
            assert!(
                draws.iter().any(|r| r.faults == m),
                "faults x{m} never drawn"
            );
        }
        assert!(draws.iter().any(|r| r.loss == 0.0));
        assert!(draws.iter().any(|r| r.defaults) && draws.iter().any(|r| !r.defaults));
        assert!(draws.iter().any(|r| r.buggify == 4.0));
    }

    #[test]
    fn scaling_keeps_unconfigured_kinds_off_and_caps_rates() {
        let r = Rates {
            faults: 100.0,
            loss: 10.0,
            duplicate: 0.0,
            disk: 1.0,
            buggify: 4.0,
            defaults: true,
        };
        let p = |k: ChoiceKind| k.probability().unwrap();
        assert_eq!(p(r.scale(ChoiceKind::Fault { probability: 0.001 })), 0.1);
        assert_eq!(p(r.scale(ChoiceKind::Fault { probability: 0.2 })), MAX_RATE);
        assert_eq!(p(r.scale(ChoiceKind::Loss { probability: 0.0 })), 0.0);
        assert_eq!(p(r.scale(ChoiceKind::Duplicate { probability: 0.3 })), 0.0);
        // A rate the test set above the cap is not lowered by a multiplier of 1.
        assert_eq!(p(r.scale(ChoiceKind::DiskEio { probability: 0.9 })), 0.9);
        assert_eq!(r.scale(ChoiceKind::User), ChoiceKind::User);
        assert_eq!(r.fixed(ChoiceKind::User), Some(0));
        assert_eq!(r.fixed(ChoiceKind::Fault { probability: 0.1 }), None);
        assert_eq!(
            r.to_string(),
            "default choices, faults x100, loss x10, duplication off, disk errors x1, buggify x4"
        );
    }
}
