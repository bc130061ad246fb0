//! A linearizability checker for recorded client histories of a key-value
//! store.
//!
//! A history is what the clients saw: for each operation, when it was
//! invoked, when (if ever) its response came back, and what the response
//! said. It is *linearizable* (Herlihy & Wing, 1990) when every operation
//! can be given a point between its invocation and its response such that
//! the responses are those of a single register per key applying the
//! operations one at a time, in the order of those points.
//!
//! # Algorithm
//!
//! Wing & Gong's search as improved by Lowe ("Testing for linearizability",
//! CCPE 2017), the algorithm Porcupine and Knossos use:
//!
//! - The history is split by key and each key is checked on its own: a
//!   history of independent registers is linearizable exactly when each
//!   register's sub-history is (P-compositionality, Horn & Kroening 2015).
//! - For one key, the invocation and response events are put in a list in
//!   real-time order. The search walks the list: at an invocation it tries
//!   to linearize that operation next (apply it to the model; the response
//!   must match), removes it from the list and starts over from the head;
//!   at a response of an operation not yet linearized it backtracks,
//!   because that operation must come before everything invoked after it.
//! - Memoization: a pair (set of linearized operations, register value) is
//!   explored once (Lowe's cache).
//!
//! # Operations whose outcome is unknown
//!
//! A client that gives up on an operation (a timeout, an ambiguous error)
//! does not know whether it took effect. Such an operation is recorded
//! with no response ([`Entry::ret`] is `None`): it may take effect at any
//! point after its invocation, or never. The checker treats its response
//! as coming after every other event and accepts any output for it; a
//! `put` with no response may then be linearized anywhere after its
//! invocation, including at the very end where it is harmless (which is
//! the same as never). A `get` with no response constrains nothing.
//!
//! # Time
//!
//! Only the order of events matters. [`Recorder`] stamps each invocation
//! and response with a sequence number taken under one lock, so two events
//! are ordered exactly as they happened; it also keeps the time each was
//! recorded at, for error messages. A history built by hand gives
//! [`Stamp`]s whose `seq` orders the events; events with equal `seq` count
//! as concurrent.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// What an operation asks.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Input {
    /// Read the key.
    Get(String),
    /// Write the key.
    Put(String, String),
}

impl Input {
    /// The key the operation touches.
    pub fn key(&self) -> &str {
        match self {
            Input::Get(k) | Input::Put(k, _) => k,
        }
    }
}

/// What an operation's response said.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Output {
    /// A `get`'s value (`None`: the key was never written).
    Value(Option<String>),
    /// A `put` took effect.
    Written,
}

/// When an event happened: its place in the history's order (`seq`) and,
/// for messages, the time it was recorded at.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Stamp {
    /// Orders events: a response with a smaller `seq` than an invocation
    /// happened before it.
    pub seq: u64,
    /// Time since the history started, for display only.
    pub at: Duration,
}

/// One operation of a history.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// Which client ran it (a client runs one operation at a time).
    pub client: usize,
    /// What it asked.
    pub input: Input,
    /// When it was invoked.
    pub call: Stamp,
    /// When its response arrived and what it said; `None` when the outcome
    /// is unknown (see the module docs).
    pub ret: Option<(Stamp, Output)>,
}

impl fmt::Display for Entry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "client {} ", self.client)?;
        match &self.input {
            Input::Get(k) => write!(f, "get({k})")?,
            Input::Put(k, v) => write!(f, "put({k}, {v})")?,
        }
        match &self.ret {
            Some((_, Output::Value(Some(v)))) => write!(f, " -> {v}")?,
            Some((_, Output::Value(None))) => write!(f, " -> none")?,
            Some((_, Output::Written)) => write!(f, " -> ok")?,
            None => write!(f, " -> ? (no response)")?,
        }
        write!(f, " [{:?}", self.call.at)?;
        match &self.ret {
            Some((s, _)) => write!(f, " .. {:?}]", s.at),
            None => write!(f, " .. ]"),
        }
    }
}

/// A history that is not linearizable, for one key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation {
    /// The key whose sub-history has no linearization.
    pub key: String,
    /// The longest prefix of operations the search could linearize, in
    /// linearization order.
    pub linearized: Vec<Entry>,
    /// The key's value after that prefix.
    pub value: Option<String>,
    /// The operations that could come next in real time after that
    /// prefix, none of which the register allows.
    pub stuck: Vec<Entry>,
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "the history of key {:?} is not linearizable; the longest linearizable prefix is:",
            self.key
        )?;
        for e in &self.linearized {
            writeln!(f, "    {e}")?;
        }
        writeln!(
            f,
            "  which leaves {:?} = {}, and none of these can come next:",
            self.key,
            self.value.as_deref().unwrap_or("none")
        )?;
        for (i, e) in self.stuck.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            write!(f, "    {e}")?;
        }
        Ok(())
    }
}

impl std::error::Error for Violation {}

/// Checks that `history` is linearizable for a map of independent
/// registers (every key starts unwritten).
///
/// # Errors
///
/// The first key (in key order) whose sub-history is not linearizable,
/// with the operations that show it.
pub fn check(history: &[Entry]) -> Result<(), Violation> {
    let mut by_key: BTreeMap<&str, Vec<&Entry>> = BTreeMap::new();
    for e in history {
        by_key.entry(e.input.key()).or_default().push(e);
    }
    for (key, ops) in by_key {
        check_register(key, &ops)?;
    }
    Ok(())
}

/// One node of the event list: an invocation or a response of `op`.
#[derive(Debug, Clone, Copy)]
struct Event {
    op: usize,
    call: bool,
}

/// Lowe's search over one key's operations.
fn check_register(key: &str, ops: &[&Entry]) -> Result<(), Violation> {
    // A get that never answered constrains nothing: leave it out.
    let ops: Vec<&Entry> = ops
        .iter()
        .copied()
        .filter(|e| e.ret.is_some() || matches!(e.input, Input::Put(..)))
        .collect();
    let n = ops.len();
    // Events in real-time order; at equal `seq`, invocations first, so
    // that equal stamps count as concurrent. A missing response is after
    // everything.
    let mut events: Vec<(u64, bool, usize)> = Vec::with_capacity(2 * n);
    for (i, e) in ops.iter().enumerate() {
        events.push((e.call.seq, false, i));
        let ret = e.ret.as_ref().map_or(u64::MAX, |(s, _)| s.seq);
        events.push((ret, true, i));
    }
    events.sort();
    let list: Vec<Event> = events
        .iter()
        .map(|&(_, is_ret, op)| Event { op, call: !is_ret })
        .collect();
    // A doubly linked list over `list` with a head sentinel at `end`:
    // lifting an operation unlinks its two events, backtracking relinks
    // them (dancing links).
    let len = list.len();
    let end = len;
    let mut next = vec![end; len + 1];
    let mut prev = vec![end; len + 1];
    for i in 0..len {
        next[i] = if i + 1 < len { i + 1 } else { end };
        prev[i] = if i == 0 { end } else { i - 1 };
    }
    next[end] = if len > 0 { 0 } else { end };
    let mut call_at = vec![0; n];
    let mut ret_at = vec![0; n];
    for (i, ev) in list.iter().enumerate() {
        if ev.call {
            call_at[ev.op] = i;
        } else {
            ret_at[ev.op] = i;
        }
    }
    let unlink = |next: &mut Vec<usize>, prev: &mut Vec<usize>, i: usize| {
        let (p, nx) = (prev[i], next[i]);
        next[p] = nx;
        if nx != end {
            prev[nx] = p;
        }
    };
    let relink = |next: &mut Vec<usize>, prev: &mut Vec<usize>, i: usize| {
        let (p, nx) = (prev[i], next[i]);
        next[p] = i;
        if nx != end {
            prev[nx] = i;
        }
    };

    let mut value: Option<String> = None;
    let mut linearized = vec![false; n];
    let mut cache: BTreeSet<(Vec<bool>, Option<String>)> = BTreeSet::new();
    // The operations linearized so far, with the value before each.
    let mut stack: Vec<(usize, Option<String>)> = Vec::new();
    let mut best: (Vec<usize>, Option<String>) = (Vec::new(), None);
    let mut at = next[end];
    while next[end] != end {
        // Every operation left has its response after its invocation, so
        // the walk meets a response before the end.
        debug_assert!(at != end, "the walk meets a response before the end");
        let ev = list[at];
        if ev.call {
            let op = ops[ev.op];
            let (ok, after) = apply(&value, op);
            if ok {
                linearized[ev.op] = true;
                let fresh = cache.insert((linearized.clone(), after.clone()));
                if fresh {
                    stack.push((ev.op, value.clone()));
                    value = after;
                    unlink(&mut next, &mut prev, call_at[ev.op]);
                    unlink(&mut next, &mut prev, ret_at[ev.op]);
                    if stack.len() > best.0.len() {
                        best = (stack.iter().map(|&(o, _)| o).collect(), value.clone());
                    }
                    at = next[end];
                    continue;
                }
                linearized[ev.op] = false;
            }
            at = next[at];
        } else {
            // The earliest pending response: what is linearized so far
            // cannot be extended. Backtrack.
            let Some((op, before)) = stack.pop() else {
                return Err(violation(key, &ops, &best, &list, &call_at, &ret_at));
            };
            linearized[op] = false;
            value = before;
            relink(&mut next, &mut prev, ret_at[op]);
            relink(&mut next, &mut prev, call_at[op]);
            at = next[call_at[op]];
        }
    }
    Ok(())
}

/// Applies `op` to a register holding `value`: whether the op's response
/// is the register's, and the value after.
fn apply(value: &Option<String>, op: &Entry) -> (bool, Option<String>) {
    let output = op.ret.as_ref().map(|(_, o)| o);
    match &op.input {
        Input::Get(_) => {
            let ok = match output {
                None => true,
                Some(Output::Value(v)) => v == value,
                Some(Output::Written) => false,
            };
            (ok, value.clone())
        }
        Input::Put(_, v) => {
            let ok = matches!(output, None | Some(Output::Written));
            (ok, Some(v.clone()))
        }
    }
}

/// The report for a key with no linearization: the deepest prefix the
/// search reached, and the operations that could have come next after it
/// (those invoked before the first response still outstanding).
fn violation(
    key: &str,
    ops: &[&Entry],
    best: &(Vec<usize>, Option<String>),
    list: &[Event],
    call_at: &[usize],
    ret_at: &[usize],
) -> Violation {
    let done: BTreeSet<usize> = best.0.iter().copied().collect();
    let first_ret = (0..ops.len())
        .filter(|o| !done.contains(o))
        .map(|o| ret_at[o])
        .min()
        .unwrap_or(list.len());
    let mut stuck: Vec<usize> = (0..ops.len())
        .filter(|o| !done.contains(o) && call_at[*o] < first_ret)
        .collect();
    stuck.sort_by_key(|&o| call_at[o]);
    Violation {
        key: key.to_string(),
        linearized: best.0.iter().map(|&o| ops[o].clone()).collect(),
        value: best.1.clone(),
        stuck: stuck.into_iter().map(|o| ops[o].clone()).collect(),
    }
}

/// Records a history as clients run, from any number of tasks or threads.
///
/// ```
/// use examples::linearizability::{Input, Output, Recorder};
/// use std::time::Duration;
///
/// let history = Recorder::new();
/// let put = history.invoke(0, Input::Put("x".into(), "1".into()), Duration::ZERO);
/// history.complete(put, Output::Written, Duration::from_millis(1));
/// let get = history.invoke(1, Input::Get("x".into()), Duration::from_millis(2));
/// history.complete(get, Output::Value(Some("1".into())), Duration::from_millis(3));
/// assert!(history.check().is_ok());
/// ```
#[derive(Debug, Clone, Default)]
pub struct Recorder {
    inner: Arc<Mutex<Recorded>>,
}

#[derive(Debug, Default)]
struct Recorded {
    seq: u64,
    entries: Vec<Entry>,
}

/// An operation invoked and not yet completed, from [`Recorder::invoke`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[must_use = "complete the operation, or drop it if its outcome is unknown"]
pub struct Pending(usize);

impl Recorder {
    /// An empty history.
    pub fn new() -> Recorder {
        Recorder::default()
    }

    /// Records that `client` invoked `input` at `at` (time since the start,
    /// for display).
    pub fn invoke(&self, client: usize, input: Input, at: Duration) -> Pending {
        let mut r = self.inner.lock().unwrap();
        let call = Stamp { seq: r.seq, at };
        r.seq += 1;
        r.entries.push(Entry {
            client,
            input,
            call,
            ret: None,
        });
        Pending(r.entries.len() - 1)
    }

    /// Records the response of `op`. An operation never completed keeps
    /// an unknown outcome.
    pub fn complete(&self, op: Pending, output: Output, at: Duration) {
        let mut r = self.inner.lock().unwrap();
        let ret = Stamp { seq: r.seq, at };
        r.seq += 1;
        r.entries[op.0].ret = Some((ret, output));
    }

    /// The history so far.
    pub fn entries(&self) -> Vec<Entry> {
        self.inner.lock().unwrap().entries.clone()
    }

    /// [`check`]s the history so far.
    pub fn check(&self) -> Result<(), Violation> {
        check(&self.entries())
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    fn get(key: &str) -> Input {
        Input::Get(key.into())
    }

    fn put(key: &str, v: &str) -> Input {
        Input::Put(key.into(), v.into())
    }

    fn val(v: Option<&str>) -> Output {
        Output::Value(v.map(str::to_string))
    }

    /// An entry invoked at `call` and answered at `ret` (sequence numbers).
    fn op(client: usize, input: Input, call: u64, ret: Option<(u64, Output)>) -> Entry {
        let stamp = |seq| Stamp {
            seq,
            at: Duration::from_millis(seq),
        };
        Entry {
            client,
            input,
            call: stamp(call),
            ret: ret.map(|(s, o)| (stamp(s), o)),
        }
    }

    #[test]
    fn an_empty_history_is_linearizable() {
        assert_eq!(check(&[]), Ok(()));
    }

    #[test]
    fn sequential_reads_see_the_latest_write() {
        let h = [
            op(0, get("x"), 0, Some((1, val(None)))),
            op(0, put("x", "1"), 2, Some((3, Output::Written))),
            op(1, get("x"), 4, Some((5, val(Some("1"))))),
        ];
        assert_eq!(check(&h), Ok(()));
    }

    /// The stale read the key-value store's planted bug produces: a write
    /// completed, then a read invoked after it returns the older value.
    #[test]
    fn a_stale_read_is_rejected_and_shown() {
        let h = [
            op(0, put("x", "1"), 0, Some((1, Output::Written))),
            op(0, put("x", "2"), 2, Some((3, Output::Written))),
            op(1, get("x"), 4, Some((5, val(Some("1"))))),
        ];
        let v = check(&h).unwrap_err();
        assert_eq!(v.key, "x");
        assert_eq!(v.linearized, h[..2].to_vec());
        assert_eq!(v.value.as_deref(), Some("2"));
        assert_eq!(v.stuck, vec![h[2].clone()]);
        let shown = v.to_string();
        assert!(shown.contains("get(x) -> 1"), "{shown}");
        assert!(shown.contains("not linearizable"), "{shown}");
    }

    /// Overlapping operations may take effect in either order.
    #[test]
    fn concurrent_operations_may_linearize_either_way() {
        // put 1 and put 2 overlap; reads after both see 1 then 1: put 2
        // went first.
        let h = [
            op(0, put("x", "1"), 0, Some((3, Output::Written))),
            op(1, put("x", "2"), 1, Some((2, Output::Written))),
            op(2, get("x"), 4, Some((5, val(Some("1"))))),
            op(2, get("x"), 6, Some((7, val(Some("1"))))),
        ];
        assert_eq!(check(&h), Ok(()));
        // But not 1 then 2 then 1.
        let h = [
            op(0, put("x", "1"), 0, Some((3, Output::Written))),
            op(1, put("x", "2"), 1, Some((2, Output::Written))),
            op(2, get("x"), 4, Some((5, val(Some("1"))))),
            op(2, get("x"), 6, Some((7, val(Some("2"))))),
            op(2, get("x"), 8, Some((9, val(Some("1"))))),
        ];
        assert!(check(&h).is_err());
    }

    /// A write whose outcome is unknown may take effect late, or never.
    #[test]
    fn a_write_without_response_may_land_any_time_after_its_call() {
        let late = [
            op(0, put("x", "1"), 0, None),
            op(1, get("x"), 1, Some((2, val(None)))),
            op(1, get("x"), 10, Some((11, val(Some("1"))))),
        ];
        assert_eq!(check(&late), Ok(()));
        let never = [
            op(0, put("x", "1"), 0, None),
            op(1, get("x"), 10, Some((11, val(None)))),
        ];
        assert_eq!(check(&never), Ok(()));
        // But not before it was invoked.
        let early = [
            op(1, get("x"), 0, Some((1, val(Some("1"))))),
            op(0, put("x", "1"), 2, None),
        ];
        assert!(check(&early).is_err());
        // Nor twice: once seen, a later read cannot go back.
        let flicker = [
            op(0, put("x", "1"), 0, None),
            op(1, get("x"), 1, Some((2, val(Some("1"))))),
            op(1, get("x"), 3, Some((4, val(None)))),
        ];
        assert!(check(&flicker).is_err());
    }

    /// Keys are independent: each is checked alone.
    #[test]
    fn keys_are_checked_independently() {
        let h = [
            op(0, put("x", "1"), 0, Some((1, Output::Written))),
            op(1, get("y"), 2, Some((3, val(None)))),
            op(1, get("x"), 4, Some((5, val(Some("1"))))),
            op(0, put("y", "1"), 6, Some((7, Output::Written))),
            op(1, get("y"), 8, Some((9, val(Some("2"))))),
        ];
        let v = check(&h).unwrap_err();
        assert_eq!(v.key, "y");
    }

    #[test]
    fn the_recorder_orders_events_as_recorded() {
        let r = Recorder::new();
        let a = r.invoke(0, put("x", "1"), Duration::ZERO);
        let b = r.invoke(1, get("x"), Duration::ZERO);
        r.complete(b, val(Some("1")), Duration::ZERO);
        r.complete(a, Output::Written, Duration::ZERO);
        assert_eq!(r.check(), Ok(()));
        // A get that completed before the put was invoked cannot see it.
        let r = Recorder::new();
        let b = r.invoke(1, get("x"), Duration::ZERO);
        r.complete(b, val(Some("1")), Duration::ZERO);
        let a = r.invoke(0, put("x", "1"), Duration::ZERO);
        r.complete(a, Output::Written, Duration::ZERO);
        assert!(r.check().is_err());
    }

    /// A concurrent history made from a sequential run: operations applied
    /// to a map in order `0..n`, each with an interval around its point.
    fn sequential_history() -> impl Strategy<Value = Vec<Entry>> {
        let step = (
            0..3usize,
            0..2usize,
            any::<bool>(),
            0..4u64,
            0..4u64,
            0..8u8,
        );
        proptest::collection::vec(step, 0..24).prop_map(|steps| {
            let mut map: BTreeMap<String, String> = BTreeMap::new();
            let mut entries = Vec::new();
            for (i, (client, key, is_put, before, after, lost)) in steps.into_iter().enumerate() {
                // Linearization point 10 * i; the interval reaches up to 4
                // points either side, so neighbours overlap.
                let point = 10 * i as u64 + 40;
                let key = ["x", "y"][key].to_string();
                let (input, output) = if is_put {
                    let v = format!("v{i}");
                    map.insert(key.clone(), v.clone());
                    (Input::Put(key, v), Output::Written)
                } else {
                    let v = map.get(&key).cloned();
                    (Input::Get(key), Output::Value(v))
                };
                let ret = (lost != 0).then(|| (point + 10 * after + 5, output));
                entries.push(op(client, input, point - 10 * before - 5, ret));
            }
            entries
        })
    }

    proptest! {
        #[test]
        fn histories_of_sequential_runs_are_linearizable(h in sequential_history()) {
            prop_assert_eq!(check(&h), Ok(()));
        }

        /// A read of a value nobody wrote is never linearizable.
        #[test]
        fn a_read_of_an_unwritten_value_is_rejected(
            h in sequential_history(),
            pick in any::<prop::sample::Index>(),
        ) {
            let reads: Vec<usize> = (0..h.len())
                .filter(|&i| matches!(h[i].input, Input::Get(_)) && h[i].ret.is_some())
                .collect();
            prop_assume!(!reads.is_empty());
            let mut h = h;
            let i = reads[pick.index(reads.len())];
            if let Some((_, out)) = &mut h[i].ret {
                *out = Output::Value(Some("never-written".into()));
            }
            let v = check(&h).unwrap_err();
            prop_assert!(v.stuck.iter().chain(&v.linearized).count() > 0);
        }
    }
}
