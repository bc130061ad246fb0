//! Data choices: how the model asks its caller to decide faults and crash
//! outcomes, since it draws no randomness of its own.
//!
//! Wherever a real disk could behave in more than one way (an I/O error or
//! not, which unsynced operations reach the platter before power goes), the
//! model asks a [`Chooser`]: `choose(&choice, n)` returns an index in `0..n`.
//! **Index 0 is always the default**: no fault, nothing unsynced survives, a
//! write is not torn. A [`Choice`] describes the decision, so
//!
//! - the runtime's default scheduler can apply a probability with its seeded
//!   RNG ([`Choice::Eio`] carries the configured probability), and
//! - an explorer can enumerate the answers, treating every non-zero answer as
//!   one delay (so executions with fewer faults come first).
//!
//! The model asks only when the configuration makes more than one answer
//! possible: with the default [`FsConfig`](crate::FsConfig) it never asks.
//!
//! # Determinism
//!
//! The model asks in a fixed order that depends only on its state and the
//! call, so a recorded answer sequence replays exactly
//! ([`ScriptedChooser`]).

use std::collections::VecDeque;
use std::fmt;

use crate::config::IoOp;
use crate::pending::PendingKind;

/// One decision the model asks its caller to make.
///
/// The answer is an index in `0..n` (`n` is passed beside it); index 0 is the
/// default, fault-free outcome.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum Choice {
    /// Does this operation fail with `EIO`? `n == 2`: 0 = it succeeds,
    /// 1 = it fails. Asked only when the configured probability for `op` is
    /// above zero; `probability` is that configured value, for a scheduler
    /// that samples.
    Eio {
        /// The kind of operation that may fail.
        op: IoOp,
        /// The configured probability of failure, in `(0, 1]`.
        probability: f64,
    },
    /// How many of the `pending` unsynced operations, oldest first, survive
    /// this crash ([`KeepUnsynced::Prefix`](crate::KeepUnsynced::Prefix)).
    /// `n == pending + 1`: answer `k` keeps the oldest `k`; 0 keeps none.
    CrashKeepPrefix {
        /// Number of unsynced operations at the crash.
        pending: usize,
    },
    /// Does unsynced operation number `index` (of `pending`, oldest first)
    /// survive this crash ([`KeepUnsynced::Subset`](crate::KeepUnsynced::Subset))?
    /// `n == 2`: 0 = it is lost, 1 = it survives. Asked once per pending
    /// operation, in log order.
    CrashKeepOp {
        /// Position of the operation in the log, oldest first.
        index: usize,
        /// Number of unsynced operations at the crash.
        pending: usize,
        /// What the operation was.
        kind: PendingKind,
    },
    /// A surviving unsynced write that spans `sectors` sectors may be torn
    /// ([`TornWrites`](crate::TornWrites)). Answer 0 = the write survives
    /// whole; answer `s` in `1..=sectors` = only its first `s - 1` sectors
    /// survive; when `garbage` is true, answer `sectors + s` in
    /// `1..=sectors` = its first `s - 1` sectors survive and the next one
    /// holds garbage. So `n == sectors + 1`, or `2 * sectors + 1` with
    /// garbage.
    TornWrite {
        /// How many sectors the write touches.
        sectors: usize,
        /// Whether garbage outcomes are offered.
        garbage: bool,
    },
}

/// Makes the data choices the model asks for.
///
/// Implemented by the runtime (seeded RNG or explorer), by
/// [`DefaultChooser`], [`ScriptedChooser`], [`RecordingChooser`], and by
/// [`FnChooser`] for a closure.
pub trait Chooser {
    /// Picks an index in `0..n` for `choice`; 0 is the default outcome.
    /// `n >= 2` whenever the model asks. Returning `n` or more is a bug in
    /// the chooser and makes the model panic.
    fn choose(&mut self, choice: &Choice, n: usize) -> usize;
}

/// A [`Chooser`] from a closure `FnMut(&Choice, usize) -> usize`.
pub struct FnChooser<F>(pub F);

impl<F: FnMut(&Choice, usize) -> usize> Chooser for FnChooser<F> {
    fn choose(&mut self, choice: &Choice, n: usize) -> usize {
        (self.0)(choice, n)
    }
}

impl<F> fmt::Debug for FnChooser<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("FnChooser(..)")
    }
}

impl<C: Chooser + ?Sized> Chooser for &mut C {
    fn choose(&mut self, choice: &Choice, n: usize) -> usize {
        (**self).choose(choice, n)
    }
}

/// Asks `chooser` and checks the answer is in range.
pub(crate) fn ask(chooser: &mut dyn Chooser, choice: Choice, n: usize) -> usize {
    debug_assert!(n >= 2, "the model asks only when there is a choice");
    let answer = chooser.choose(&choice, n);
    assert!(
        answer < n,
        "Chooser returned {answer} for {choice:?}, which has only {n} options (0..{n})"
    );
    answer
}

/// Always answers 0: no faults, nothing unsynced survives a crash.
#[derive(Clone, Copy, Debug, Default)]
pub struct DefaultChooser;

impl Chooser for DefaultChooser {
    fn choose(&mut self, _choice: &Choice, _n: usize) -> usize {
        0
    }
}

/// Answers from a fixed script, then 0 once the script runs out.
///
/// This is how a recorded or enumerated sequence of answers is replayed.
/// An answer that is out of range for the choice it meets is clamped to the
/// last option, so a script written for one state still drives another.
#[derive(Clone, Debug, Default)]
pub struct ScriptedChooser {
    script: VecDeque<usize>,
}

impl ScriptedChooser {
    /// A chooser that gives `answers` in order, then 0.
    pub fn new(answers: impl IntoIterator<Item = usize>) -> Self {
        ScriptedChooser {
            script: answers.into_iter().collect(),
        }
    }

    /// The answers not used yet.
    pub fn remaining(&self) -> usize {
        self.script.len()
    }
}

impl Chooser for ScriptedChooser {
    fn choose(&mut self, _choice: &Choice, n: usize) -> usize {
        self.script.pop_front().unwrap_or(0).min(n - 1)
    }
}

/// Wraps a chooser and records every question and answer.
///
/// An explorer sees the shape of a crash this way: run it once with the
/// default answers, read [`RecordingChooser::log`], and enumerate.
pub struct RecordingChooser<C> {
    inner: C,
    log: Vec<(Choice, usize, usize)>,
}

impl<C: Chooser> RecordingChooser<C> {
    /// Records the choices `inner` makes.
    pub fn new(inner: C) -> Self {
        RecordingChooser {
            inner,
            log: Vec::new(),
        }
    }

    /// Every `(choice, n, answer)` so far, in order.
    pub fn log(&self) -> &[(Choice, usize, usize)] {
        &self.log
    }

    /// Gives back the wrapped chooser.
    pub fn into_inner(self) -> C {
        self.inner
    }
}

impl<C: Chooser> Chooser for RecordingChooser<C> {
    fn choose(&mut self, choice: &Choice, n: usize) -> usize {
        let answer = self.inner.choose(choice, n);
        self.log.push((choice.clone(), n, answer));
        answer
    }
}

impl<C> fmt::Debug for RecordingChooser<C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RecordingChooser")
            .field("log", &self.log)
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const EIO: Choice = Choice::Eio {
        op: IoOp::Read,
        probability: 0.5,
    };

    #[test]
    fn scripted_replays_then_defaults_and_clamps() {
        let mut c = ScriptedChooser::new([1, 7]);
        assert_eq!(c.choose(&EIO, 2), 1);
        assert_eq!(c.choose(&EIO, 3), 2, "out-of-range answers are clamped");
        assert_eq!(c.choose(&EIO, 2), 0, "an exhausted script answers 0");
        assert_eq!(c.remaining(), 0);
    }

    #[test]
    fn recording_keeps_every_question() {
        let mut c = RecordingChooser::new(FnChooser(|_: &Choice, n: usize| n - 1));
        assert_eq!(ask(&mut c, EIO, 2), 1);
        assert_eq!(c.log(), &[(EIO, 2, 1)]);
    }

    #[test]
    #[should_panic(expected = "which has only 2 options")]
    fn out_of_range_answer_panics() {
        let mut c = FnChooser(|_: &Choice, _: usize| 5);
        ask(&mut c, EIO, 2);
    }
}
