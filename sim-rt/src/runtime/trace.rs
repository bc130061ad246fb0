//! The record of an execution: every choice that was not forced, in order.
//!
//! A [`Trace`] together with its seed determines an execution completely:
//! [`Replay`](crate::scheduler::Replay) feeds the recorded answers back and
//! checks, step by step, that the program asks the same questions.
//!
//! # Size
//!
//! A step whose pick was forced (only one event was enabled) is counted and
//! hashed but not stored: replay needs nothing from it. So a run keeps
//! [`RECORDED_STEP_BYTES`] bytes per step that had a real choice (a pick
//! among several enabled events, a data choice among several options) and
//! nothing per forced step: a two-host TCP ping-pong, every step of which is
//! forced, keeps a trace of constant size however long it runs.
//! [`Builder::full_trace`](crate::runtime::Builder::full_trace) records
//! every step instead, for those who want to read the whole schedule
//! (`SIM_CHECK_DETERMINISM` uses it, to name the first differing step).
//!
//! # Invariants
//!
//! - `hash` is always the hash of every step pushed, stored or not (it is
//!   updated on every push), so two traces with equal hashes are, with
//!   overwhelming probability, the same execution.
//! - `positions[k]` is the step number of `steps[k]`; positions strictly
//!   increase and are below `len`.
//! - The hash is a fixed function (FNV-style over the step encoding), never
//!   seeded from the OS: it is the same across processes and machines.

use std::fmt;

use sim_net::PacketId;

use crate::ids::Id;

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
    /// A data choice of kind `kind` ([`ChoiceTag::code`]) resolved to
    /// `index` of `of` options.
    Choose {
        /// The kind's code ([`ChoiceTag::from_code`] reads it back).
        kind: u8,
        /// The option chosen (0 is the default).
        index: u32,
        /// How many options there were.
        of: u32,
    },
}

/// One thing that can happen next.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Event {
    /// Poll this task: it was woken (or just spawned) and not yet polled.
    Poll(Id),
    /// No task can run: move simulated time to the next instant at which
    /// something becomes due (a timer deadline or a packet's arrival window
    /// opening), and fire what is due then. Never enabled past the latest
    /// arrival time of a packet in flight.
    Advance,
    /// Deliver this packet: it is in flight and its arrival window has
    /// opened (for a stream, it is the oldest undelivered segment of its
    /// direction). The receiving kernel processes it at once.
    Deliver(PacketId),
}

/// A data choice's kind as a trace records it: a
/// [`ChoiceKind`](crate::scheduler::ChoiceKind) without its parameters
/// ([`ChoiceKind::tag`](crate::scheduler::ChoiceKind::tag)), stored in a
/// [`Step::Choose`] as its [`code`](ChoiceTag::code). What tells, draws and
/// shrinks executions reads the code back and matches on the tag
/// exhaustively, so a new kind of choice does not compile until each of
/// them says what it means.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ChoiceTag {
    /// [`ChoiceKind::Select`](crate::scheduler::ChoiceKind::Select).
    Select,
    /// [`ChoiceKind::User`](crate::scheduler::ChoiceKind::User).
    User,
    /// [`ChoiceKind::Loss`](crate::scheduler::ChoiceKind::Loss).
    Loss,
    /// [`ChoiceKind::Duplicate`](crate::scheduler::ChoiceKind::Duplicate).
    Duplicate,
    /// [`ChoiceKind::Fault`](crate::scheduler::ChoiceKind::Fault).
    Fault,
    /// [`ChoiceKind::DiskEio`](crate::scheduler::ChoiceKind::DiskEio).
    DiskEio,
    /// [`ChoiceKind::DiskCrashPrefix`](crate::scheduler::ChoiceKind::DiskCrashPrefix).
    DiskCrashPrefix,
    /// [`ChoiceKind::DiskCrashKeep`](crate::scheduler::ChoiceKind::DiskCrashKeep).
    DiskCrashKeep,
    /// [`ChoiceKind::DiskTornWrite`](crate::scheduler::ChoiceKind::DiskTornWrite).
    DiskTornWrite,
    /// [`ChoiceKind::Buggify`](crate::scheduler::ChoiceKind::Buggify).
    Buggify,
    /// [`ChoiceKind::Late`](crate::scheduler::ChoiceKind::Late).
    Late,
    /// [`ChoiceKind::Thread`](crate::scheduler::ChoiceKind::Thread).
    Thread,
}

impl ChoiceTag {
    /// Every tag, in the order of their codes.
    pub const ALL: [ChoiceTag; 12] = [
        ChoiceTag::Select,
        ChoiceTag::User,
        ChoiceTag::Loss,
        ChoiceTag::Duplicate,
        ChoiceTag::Fault,
        ChoiceTag::DiskEio,
        ChoiceTag::DiskCrashPrefix,
        ChoiceTag::DiskCrashKeep,
        ChoiceTag::DiskTornWrite,
        ChoiceTag::Buggify,
        ChoiceTag::Late,
        ChoiceTag::Thread,
    ];

    /// The tag whose [`code`](ChoiceTag::code) is `code`, if any.
    pub fn from_code(code: u8) -> Option<ChoiceTag> {
        ChoiceTag::ALL.into_iter().find(|t| t.code() == code)
    }

    /// A stable small number for this kind: what a trace stores (its hash,
    /// and so a replay token's, mixes it in), and what a step's text shows.
    pub fn code(self) -> u8 {
        match self {
            ChoiceTag::Select => 1,
            ChoiceTag::User => 2,
            ChoiceTag::Loss => 3,
            ChoiceTag::Duplicate => 4,
            ChoiceTag::Fault => 5,
            ChoiceTag::DiskEio => 6,
            ChoiceTag::DiskCrashPrefix => 7,
            ChoiceTag::DiskCrashKeep => 8,
            ChoiceTag::DiskTornWrite => 9,
            ChoiceTag::Buggify => 10,
            ChoiceTag::Late => 11,
            ChoiceTag::Thread => 12,
        }
    }
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

/// Bytes a trace keeps per recorded step: the [`Step`] and its step number.
/// Forced steps are not recorded (see the module docs).
pub const RECORDED_STEP_BYTES: usize = std::mem::size_of::<Step>() + std::mem::size_of::<u64>();

/// The choices of one execution, with its seed, and a running hash of all
/// its steps.
#[derive(Clone, PartialEq, Eq)]
pub struct Trace {
    seed: u64,
    /// The recorded steps: those with a real choice, or all when `full`.
    steps: Vec<Step>,
    /// The step number of each of `steps`.
    positions: Vec<u64>,
    /// Steps pushed, recorded or not.
    len: u64,
    hash: u64,
    /// Every step is recorded.
    full: bool,
    /// The run's scheduler took late deliveries
    /// ([`Scheduler::late_deliveries`](crate::scheduler::Scheduler::late_deliveries)).
    late: bool,
    /// The steps at which threads started outside the simulation joined it
    /// (their timing is real: see `Handle::block_on`).
    guests: Vec<u64>,
}

impl fmt::Debug for Trace {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Trace")
            .field("seed", &self.seed)
            .field("steps", &self.len)
            .field("recorded", &self.steps.len())
            .field("hash", &format_args!("{:016x}", self.hash))
            .finish()
    }
}

impl Trace {
    /// An empty trace for a run seeded with `seed`, recording the steps
    /// that had a real choice.
    pub fn new(seed: u64) -> Self {
        Trace {
            seed,
            steps: Vec::new(),
            positions: Vec::new(),
            len: 0,
            hash: mix(FNV_OFFSET, seed),
            full: false,
            late: false,
            guests: Vec::new(),
        }
    }

    /// An empty trace that records every step, forced ones included.
    pub fn full(seed: u64) -> Self {
        Trace {
            full: true,
            ..Trace::new(seed)
        }
    }

    /// Rebuilds a full trace from its seed and every step, in order.
    pub fn from_steps(seed: u64, steps: Vec<Step>) -> Self {
        let mut t = Trace::full(seed);
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
        if self.full || !step.is_forced() {
            self.steps.push(step);
            self.positions.push(self.len);
        }
        self.len += 1;
    }

    /// A thread started outside the simulation joined it now (not a step:
    /// the hash does not change).
    pub(crate) fn note_guest(&mut self) {
        self.guests.push(self.len);
    }

    /// The steps at which threads started outside the simulation joined
    /// it (a `Handle::block_on` or `spawn` from such a thread): a run with
    /// any is reproducible only when they joined while the simulation
    /// waited for them.
    pub fn guests(&self) -> &[u64] {
        &self.guests
    }

    /// The seed of the recorded run.
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// Whether the recorded run offered late deliveries (its scheduler's
    /// [`late_deliveries`](crate::scheduler::Scheduler::late_deliveries)):
    /// a replay of it offers them too.
    pub fn late_deliveries(&self) -> bool {
        self.late
    }

    pub(crate) fn set_late_deliveries(&mut self, late: bool) {
        self.late = late;
    }

    /// The recorded steps, in order: every step of a [`full`](Self::full)
    /// trace, else the steps that had a real choice (see
    /// [`positions`](Self::positions) for their step numbers).
    pub fn steps(&self) -> &[Step] {
        &self.steps
    }

    /// The step number of each of [`steps`](Self::steps).
    pub fn positions(&self) -> &[u64] {
        &self.positions
    }

    /// Whether every step is recorded, forced ones included.
    pub fn is_full(&self) -> bool {
        self.full
    }

    /// The step numbered `at`, when it is recorded.
    pub fn step_at(&self, at: u64) -> Option<Step> {
        let k = self.positions.binary_search(&at).ok()?;
        Some(self.steps[k])
    }

    /// Number of steps, recorded or not.
    pub fn len(&self) -> usize {
        self.len as usize
    }

    /// Whether the run took no step.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// A hash of the seed and every step: equal executions have equal
    /// hashes, in any process on any machine.
    pub fn hash(&self) -> u64 {
        self.hash
    }

    /// The number of the first step where `self` and `other` differ (a
    /// different recorded step, one recorded where the other is forced, or
    /// one trace ending first), or `None` if they are equal. Seeds are not
    /// compared. Two traces whose recorded steps and lengths agree but
    /// whose hashes differ (they differ only in forced steps, which are not
    /// stored) differ at step 0 as far as this can tell: record
    /// [`full`](Self::full) traces to locate such a difference.
    pub fn first_difference(&self, other: &Trace) -> Option<usize> {
        let mine = self.positions.iter().zip(&self.steps);
        let theirs = other.positions.iter().zip(&other.steps);
        let mut both = mine.zip(theirs);
        if let Some(((a, _), (b, _))) = both.find(|((a, x), (b, y))| a != b || x != y) {
            return Some((*a).min(*b) as usize);
        }
        let (m, n) = (self.steps.len(), other.steps.len());
        if m != n {
            // One has a recorded step past the other's last.
            let extra = if m > n {
                self.positions[n]
            } else {
                other.positions[m]
            };
            return Some(extra.min(self.len.min(other.len)) as usize);
        }
        if self.len != other.len {
            return Some(self.len.min(other.len) as usize);
        }
        let comparable = self.seed == other.seed && !(self.full && other.full);
        (comparable && self.hash != other.hash).then_some(0)
    }
}

impl Step {
    /// Whether the step had only one option (a pick among one enabled event,
    /// a choice among one option): replay needs nothing from it.
    pub fn is_forced(&self) -> bool {
        match *self {
            Step::Pick { of, .. } | Step::Choose { of, .. } => of <= 1,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::Id;

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
            kind: ChoiceTag::Select.code(),
            index: 0,
            of: 2,
        });
        assert_eq!(a.first_difference(&d), Some(2));
        assert_ne!(a.hash(), d.hash());
        assert_ne!(Trace::new(1).hash(), Trace::new(2).hash());
    }

    #[test]
    fn every_choice_tag_reads_back_from_its_code() {
        for tag in ChoiceTag::ALL {
            assert_eq!(ChoiceTag::from_code(tag.code()), Some(tag));
        }
        assert_eq!(ChoiceTag::from_code(0), None);
        assert_eq!(ChoiceTag::from_code(13), None);
    }

    fn compact(steps: &[Step]) -> Trace {
        let mut t = Trace::new(7);
        for s in steps {
            t.push(*s);
        }
        t
    }

    #[test]
    fn a_compact_trace_stores_only_real_choices_and_still_locates_differences() {
        let forced = pick(0, 1, 9);
        let a = compact(&[forced, pick(1, 2, 2), forced, forced, pick(0, 3, 4)]);
        assert_eq!(a.len(), 5);
        assert_eq!(a.steps(), [pick(1, 2, 2), pick(0, 3, 4)]);
        assert_eq!(a.positions(), [1, 4]);
        assert_eq!(a.step_at(4), Some(pick(0, 3, 4)));
        assert_eq!(a.step_at(2), None);
        // The hash covers the forced steps too, as a full trace's does.
        let full = Trace::from_steps(
            7,
            vec![forced, pick(1, 2, 2), forced, forced, pick(0, 3, 4)],
        );
        assert_eq!(a.hash(), full.hash());

        let same = compact(&[forced, pick(1, 2, 2), forced, forced, pick(0, 3, 4)]);
        assert_eq!(a.first_difference(&same), None);
        // A different choice, located at its step.
        let b = compact(&[forced, pick(1, 2, 2), forced, forced, pick(2, 3, 6)]);
        assert_eq!(a.first_difference(&b), Some(4));
        // A choice where the other was forced.
        let c = compact(&[forced, pick(1, 2, 2), pick(0, 2, 5), forced, pick(0, 3, 4)]);
        assert_eq!(a.first_difference(&c), Some(2));
        // One run longer.
        let d = compact(&[forced, pick(1, 2, 2), forced, forced, pick(0, 3, 4), forced]);
        assert_eq!(a.first_difference(&d), Some(5));
        // Only a forced step differs: not stored, so not located.
        let e = compact(&[pick(0, 1, 8), pick(1, 2, 2), forced, forced, pick(0, 3, 4)]);
        assert_eq!(a.first_difference(&e), Some(0));
    }
}
