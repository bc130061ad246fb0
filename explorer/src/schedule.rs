//! Where an execution deviates from its explorer's default: a schedule.
//!
//! An execution of a program under a delaying explorer is determined by its
//! seed and by the deviations at its choice points. Choice points are
//! numbered in the order the runtime asks (every `pick` and every data
//! `choose`); a deviation at a `pick` is a number of delays, at a `choose`
//! the option taken instead of 0. Everywhere else the explorer's `next` and
//! option 0 are taken.
//!
//! Searches build schedules by extending a parent with one more deviation
//! after the parent's last one, so schedules share prefixes: a [`Node`] list
//! keeps each prefix once.
//!
//! # Invariants
//!
//! - Along a node list, choice points strictly increase from the root.
//! - Every action is at least 1.

use std::rc::Rc;

/// A deviation at choice point `at`: `action` delays before `next` at a
/// pick, option `action` at a data choice.
pub(crate) type Deviation = (u32, u32);

/// A schedule as a persistent list: the last deviation and the schedule it
/// extends. `None` is the empty schedule (the explorer's default run).
#[derive(Debug)]
pub(crate) struct Node {
    pub(crate) at: u32,
    pub(crate) action: u32,
    pub(crate) parent: Option<Rc<Node>>,
}

/// The deviations of `node`'s schedule, in choice-point order.
pub(crate) fn flatten(node: &Option<Rc<Node>>) -> Vec<Deviation> {
    let mut out = Vec::new();
    let mut cur = node.as_deref();
    while let Some(n) = cur {
        debug_assert!(n.action >= 1, "a deviation takes at least one delay");
        out.push((n.at, n.action));
        cur = n.parent.as_deref();
    }
    out.reverse();
    debug_assert!(
        out.windows(2).all(|w| w[0].0 < w[1].0),
        "a schedule's choice points strictly increase"
    );
    out
}

/// `parent` with one more deviation, at `at`.
pub(crate) fn extend(parent: &Option<Rc<Node>>, at: u32, action: u32) -> Option<Rc<Node>> {
    debug_assert!(parent.as_ref().is_none_or(|p| p.at < at));
    Some(Rc::new(Node {
        at,
        action,
        parent: parent.clone(),
    }))
}

/// `node` with its last deviation's action replaced.
pub(crate) fn with_last_action(node: &Rc<Node>, action: u32) -> Option<Rc<Node>> {
    Some(Rc::new(Node {
        at: node.at,
        action,
        parent: node.parent.clone(),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extend_and_flatten_keep_order_and_share_prefixes() {
        let a = extend(&None, 3, 1);
        let b = extend(&a, 7, 2);
        let c = extend(&a, 5, 1);
        assert_eq!(flatten(&b), vec![(3, 1), (7, 2)]);
        assert_eq!(flatten(&c), vec![(3, 1), (5, 1)]);
        assert_eq!(
            flatten(&with_last_action(b.as_ref().unwrap(), 3)),
            vec![(3, 1), (7, 3)]
        );
        assert_eq!(Rc::strong_count(a.as_ref().unwrap()), 3);
        assert!(flatten(&None).is_empty());
    }
}
