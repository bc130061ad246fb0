//! The record of an execution: every pick and every data choice, in order.
//!
//! A [`Trace`] together with its seed determines an execution completely:
//! [`Replay`](crate::scheduler::Replay) feeds the recorded answers back and
//! checks, step by step, that the program asks the same questions.
//!
//! # Invariants
//!
//! - `hash` is always the hash of `steps` (it is updated on every push), so
//!   two traces with equal hashes are, with overwhelming probability, equal.
//! - The hash is a fixed function (FNV-style over the step encoding), never
//!   seeded from the OS: it is the same across processes and machines.

use std::fmt;

use crate::scheduler::Event;

/// One recorded step.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// The scheduler picked `event`, option `index` of `of` enabled events.
    Pick {
        /// Position in the enabled slice.
        index: u32,
        /// How many events were enabled.
        of: u32,
        /// The event picked.
        event: Event,
    },
    /// A data choice of kind `kind` ([`ChoiceKind::code`](crate::scheduler::ChoiceKind::code))
    /// resolved to `index` of `of` options.
    Choose {
        /// The kind's code.
        kind: u8,
        /// The option chosen (0 is the default).
        index: u32,
        /// How many options there were.
        of: u32,
    },
}

impl fmt::Display for Step {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Step::Pick { index, of, event } => match event {
                Event::Poll(id) => write!(f, "poll task {id} (option {index} of {of})"),
                Event::Advance => write!(f, "advance time (option {index} of {of})"),
                Event::Deliver(p) => write!(f, "deliver {p} (option {index} of {of})"),
            },
            Step::Choose { kind, index, of } => {
                write!(f, "data choice of kind {kind}: {index} of {of}")
            }
        }
    }
}

const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
const FNV_PRIME: u64 = 0x0000_0100_0000_01b3;

fn mix(h: u64, x: u64) -> u64 {
    (h ^ x).wrapping_mul(FNV_PRIME).rotate_left(23)
}

/// The choices of one execution, with its seed, and a running hash of them.
#[derive(Clone, PartialEq, Eq)]
pub struct Trace {
    seed: u64,
    steps: Vec<Step>,
    hash: u64,
}

impl fmt::Debug for Trace {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Trace")
            .field("seed", &self.seed)
            .field("steps", &self.steps.len())
            .field("hash", &format_args!("{:016x}", self.hash))
            .finish()
    }
}

impl Trace {
    /// An empty trace for a run seeded with `seed`.
    pub fn new(seed: u64) -> Self {
        Trace {
            seed,
            steps: Vec::new(),
            hash: mix(FNV_OFFSET, seed),
        }
    }

    /// Rebuilds a trace from its seed and steps (e.g. after decoding).
    pub fn from_steps(seed: u64, steps: Vec<Step>) -> Self {
        let mut t = Trace::new(seed);
        for s in steps {
            t.push(s);
        }
        t
    }

    /// Appends a step and updates the hash.
    pub fn push(&mut self, step: Step) {
        let h = match step {
            Step::Pick { index, of, event } => {
                let e = match event {
                    Event::Poll(id) => id.as_u64() << 2 | 1,
                    Event::Advance => 2,
                    Event::Deliver(p) => p.as_u64() << 2 | 3,
                };
                mix(
                    mix(mix(self.hash, 0x5049), e),
                    (of as u64) << 32 | index as u64,
                )
            }
            Step::Choose { kind, index, of } => mix(
                mix(self.hash, 0x4348 | (kind as u64) << 16),
                (of as u64) << 32 | index as u64,
            ),
        };
        self.hash = h;
        self.steps.push(step);
    }

    /// The seed of the recorded run.
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// The recorded steps, in order.
    pub fn steps(&self) -> &[Step] {
        &self.steps
    }

    /// Number of steps.
    pub fn len(&self) -> usize {
        self.steps.len()
    }

    /// Whether nothing was recorded.
    pub fn is_empty(&self) -> bool {
        self.steps.is_empty()
    }

    /// A hash of the seed and every step: equal executions have equal
    /// hashes, in any process on any machine.
    pub fn hash(&self) -> u64 {
        self.hash
    }

    /// The index of the first step where `self` and `other` differ (a
    /// different step, or one trace ending first), or `None` if they are
    /// equal. Seeds are not compared.
    pub fn first_difference(&self, other: &Trace) -> Option<usize> {
        let common = self.steps.len().min(other.steps.len());
        (0..common)
            .find(|&i| self.steps[i] != other.steps[i])
            .or((self.steps.len() != other.steps.len()).then_some(common))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::task::Id;

    fn pick(i: u32, of: u32, id: u64) -> Step {
        Step::Pick {
            index: i,
            of,
            event: Event::Poll(Id::from_u64(id)),
        }
    }

    #[test]
    fn hash_depends_on_every_step_and_order() {
        let a = Trace::from_steps(7, vec![pick(0, 2, 1), pick(1, 2, 2)]);
        let b = Trace::from_steps(7, vec![pick(1, 2, 2), pick(0, 2, 1)]);
        let c = Trace::from_steps(7, vec![pick(0, 2, 1), pick(1, 2, 2)]);
        assert_ne!(a.hash(), b.hash());
        assert_eq!(a.hash(), c.hash());
        assert_eq!(a.first_difference(&b), Some(0));
        assert_eq!(a.first_difference(&c), None);
        let mut d = c.clone();
        d.push(Step::Choose {
            kind: 1,
            index: 0,
            of: 2,
        });
        assert_eq!(a.first_difference(&d), Some(2));
        assert_ne!(a.hash(), d.hash());
        assert_ne!(Trace::new(1).hash(), Trace::new(2).hash());
    }
}
