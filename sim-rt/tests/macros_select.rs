//! `sim_rt::select!`: every form of tokio's syntax, its semantics, and the
//! one difference from tokio: without `biased;`, the branch polled first is a
//! data choice of the simulation's scheduler, so it varies with the seed and
//! replays exactly for a given seed.
//!
//! Compile errors are not tested here (no trybuild, to keep CI fast); they are
//! those of tokio's `select!`:
//!
//! - `select! {}`: "select! requires at least one branch."
//! - 65 branches: "select! supports at most 64 branches, this one has 65; ...".
//! - `x = &mut fut` with a `!Unpin` future: `F: Unpin` is not satisfied (pin
//!   it first with `pin!`).
//! - a handler expression not followed by a comma, unless it is a block or
//!   the last branch: "no rules expected ...".

mod rt_support;

use std::cell::Cell;
use std::future::{pending, ready, Future, IntoFuture};
use std::pin::{pin, Pin};
use std::rc::Rc;
use std::task::{Context, Poll};
use std::time::Duration;

use rt_support::sim;
use sim_rt::runtime::{Builder, Step};

/// Completes at the `n`-th poll (counting from 1), waking itself meanwhile.
struct ReadyAfter {
    polls: Rc<Cell<u32>>,
    n: u32,
    value: u32,
}

impl Future for ReadyAfter {
    type Output = u32;
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<u32> {
        self.polls.set(self.polls.get() + 1);
        if self.polls.get() >= self.n {
            Poll::Ready(self.value)
        } else {
            cx.waker().wake_by_ref();
            Poll::Pending
        }
    }
}

/// Counts its drops; never completes.
struct DropCounter(Rc<Cell<u32>>);

impl Drop for DropCounter {
    fn drop(&mut self) {
        self.0.set(self.0.get() + 1);
    }
}

impl Future for DropCounter {
    type Output = ();
    fn poll(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<()> {
        Poll::Pending
    }
}

/// A future that must never be polled.
struct MustNotPoll;

impl Future for MustNotPoll {
    type Output = u32;
    fn poll(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<u32> {
        panic!("a disabled branch was polled");
    }
}

// ----- syntax ---------------------------------------------------------------

#[test]
fn one_branch() {
    let v = sim(0, async {
        sim_rt::select! {
            v = ready(1) => v,
        }
    });
    assert_eq!(v, 1);
}

#[test]
fn one_branch_without_trailing_comma() {
    let v = sim(0, async {
        sim_rt::select! { v = ready(1) => v + 1 }
    });
    assert_eq!(v, 2);
}

#[test]
fn biased_polls_in_written_order() {
    for seed in 0..20 {
        let v = sim(seed, async {
            sim_rt::select! {
                biased;
                v = ready("first") => v,
                v = ready("second") => v,
                v = ready("third") => v,
            }
        });
        assert_eq!(v, "first", "seed {seed}");
    }
}

#[test]
fn only_else() {
    let v = futures::executor::block_on(async {
        sim_rt::select! { else => 3 }
    });
    assert_eq!(v, 3);
    let v = futures::executor::block_on(async {
        sim_rt::select! { biased; else => 4, }
    });
    assert_eq!(v, 4);
}

#[test]
fn else_runs_when_every_precondition_is_false() {
    let evaluated = Cell::new(0);
    let v = sim(0, async {
        sim_rt::select! {
            v = { evaluated.set(evaluated.get() + 1); MustNotPoll }, if false => v,
            v = MustNotPoll, if 1 > 2 => v,
            else => 99,
        }
    });
    assert_eq!(v, 99);
    // The async expression of a disabled branch is still evaluated.
    assert_eq!(evaluated.get(), 1);
}

#[test]
fn false_precondition_disables_only_its_branch() {
    for seed in 0..20 {
        let v = sim(seed, async {
            sim_rt::select! {
                v = MustNotPoll, if false => v,
                v = ready(2) => v,
                v = MustNotPoll, if seed > 1000 => v,
            }
        });
        assert_eq!(v, 2);
    }
}

#[test]
fn refutable_pattern_disables_the_branch_and_others_continue() {
    let polls = Rc::new(Cell::new(0));
    for seed in 0..20 {
        polls.set(0);
        let v = sim(seed, async {
            sim_rt::select! {
                Some(v) = ready(None::<u32>) => v,
                Ok(v) = ready(Err::<u32, ()>(())) => v,
                v = ReadyAfter { polls: polls.clone(), n: 3, value: 7 } => v + 1,
            }
        });
        assert_eq!(v, 8, "seed {seed}");
    }
}

#[test]
fn refutable_patterns_that_never_match_reach_else() {
    let v = sim(0, async {
        sim_rt::select! {
            Some(v) = ready(None::<u32>) => v,
            Ok(v) = ready(Err::<u32, u32>(5)) => v,
            else => 0,
        }
    });
    assert_eq!(v, 0);
}

#[test]
#[should_panic(expected = "all branches are disabled and there is no else branch")]
fn panics_when_every_branch_is_disabled_without_else() {
    sim(0, async {
        sim_rt::select! {
            Some(v) = ready(None::<u32>) => v,
            v = MustNotPoll, if false => v,
        }
    });
}

#[test]
#[should_panic(expected = "all branches are disabled and there is no else branch")]
fn panics_outside_a_simulation_too() {
    futures::executor::block_on(async {
        sim_rt::select! {
            biased;
            v = ready(1), if false => v,
        }
    });
}

#[test]
fn patterns_with_ref_mut_or_and_structs() {
    struct Pair {
        a: u32,
        b: Vec<u32>,
    }
    let v = sim(0, async {
        sim_rt::select! {
            biased;
            mut v = ready(vec![1]) => { v.push(2); v }
            Pair { a, ref mut b } = ready(Pair { a: 3, b: vec![] }) => { b.push(a); b.clone() }
        }
    });
    assert_eq!(v, [1, 2]);

    let v = sim(0, async {
        sim_rt::select! {
            Ok(v) | Err(v) = ready(Err::<u32, u32>(4)) => v,
        }
    });
    assert_eq!(v, 4);

    let v = sim(0, async {
        sim_rt::select! {
            (ref x, mut y) = ready((String::from("a"), 1)) => { y += 1; format!("{x}{y}") }
        }
    });
    assert_eq!(v, "a2");
}

#[test]
fn block_handlers_need_no_commas() {
    let v = sim(0, async {
        sim_rt::select! {
            biased;
            v = ready(1), if false => { v }
            v = ready(2) => { v * 10 }
            else => { 0 }
        }
    });
    assert_eq!(v, 20);
}

#[test]
fn into_future_operands() {
    struct Later(u32);
    impl IntoFuture for Later {
        type Output = u32;
        type IntoFuture = std::future::Ready<u32>;
        fn into_future(self) -> Self::IntoFuture {
            ready(self.0)
        }
    }
    let v = sim(0, async {
        sim_rt::select! {
            v = Later(5) => v,
            () = pending::<()>() => unreachable!(),
        }
    });
    assert_eq!(v, 5);
}

/// One `select!` with 64 branches, only branch `live` enabled.
async fn select_sixty_four(live: u32) -> u32 {
    sim_rt::select! {
        v = ready(0), if 0 == live => v,
        v = ready(1), if 1 == live => v,
        v = ready(2), if 2 == live => v,
        v = ready(3), if 3 == live => v,
        v = ready(4), if 4 == live => v,
        v = ready(5), if 5 == live => v,
        v = ready(6), if 6 == live => v,
        v = ready(7), if 7 == live => v,
        v = ready(8), if 8 == live => v,
        v = ready(9), if 9 == live => v,
        v = ready(10), if 10 == live => v,
        v = ready(11), if 11 == live => v,
        v = ready(12), if 12 == live => v,
        v = ready(13), if 13 == live => v,
        v = ready(14), if 14 == live => v,
        v = ready(15), if 15 == live => v,
        v = ready(16), if 16 == live => v,
        v = ready(17), if 17 == live => v,
        v = ready(18), if 18 == live => v,
        v = ready(19), if 19 == live => v,
        v = ready(20), if 20 == live => v,
        v = ready(21), if 21 == live => v,
        v = ready(22), if 22 == live => v,
        v = ready(23), if 23 == live => v,
        v = ready(24), if 24 == live => v,
        v = ready(25), if 25 == live => v,
        v = ready(26), if 26 == live => v,
        v = ready(27), if 27 == live => v,
        v = ready(28), if 28 == live => v,
        v = ready(29), if 29 == live => v,
        v = ready(30), if 30 == live => v,
        v = ready(31), if 31 == live => v,
        v = ready(32), if 32 == live => v,
        v = ready(33), if 33 == live => v,
        v = ready(34), if 34 == live => v,
        v = ready(35), if 35 == live => v,
        v = ready(36), if 36 == live => v,
        v = ready(37), if 37 == live => v,
        v = ready(38), if 38 == live => v,
        v = ready(39), if 39 == live => v,
        v = ready(40), if 40 == live => v,
        v = ready(41), if 41 == live => v,
        v = ready(42), if 42 == live => v,
        v = ready(43), if 43 == live => v,
        v = ready(44), if 44 == live => v,
        v = ready(45), if 45 == live => v,
        v = ready(46), if 46 == live => v,
        v = ready(47), if 47 == live => v,
        v = ready(48), if 48 == live => v,
        v = ready(49), if 49 == live => v,
        v = ready(50), if 50 == live => v,
        v = ready(51), if 51 == live => v,
        v = ready(52), if 52 == live => v,
        v = ready(53), if 53 == live => v,
        v = ready(54), if 54 == live => v,
        v = ready(55), if 55 == live => v,
        v = ready(56), if 56 == live => v,
        v = ready(57), if 57 == live => v,
        v = ready(58), if 58 == live => v,
        v = ready(59), if 59 == live => v,
        v = ready(60), if 60 == live => v,
        v = ready(61), if 61 == live => v,
        v = ready(62), if 62 == live => v,
        v = ready(63), if 63 == live => v,
    }
}

#[test]
fn sixty_four_branches() {
    for live in [0u32, 31, 63] {
        let v = futures::executor::block_on(select_sixty_four(live));
        assert_eq!(v, live);
        let v = sim(u64::from(live), select_sixty_four(live));
        assert_eq!(v, live);
    }
}

#[test]
fn the_expansion_does_not_capture_the_callers_names() {
    // Names the expansion uses internally, as the caller's own variables.
    let disabled = 1;
    let output = 2;
    let futures = 3;
    let branches = 4;
    let start = 5;
    let cx = 6;
    let fut = 7;
    let out = 8;
    let mask = 9;
    let v = sim(0, async {
        sim_rt::select! {
            v = ready(disabled + output + futures), if branches + start + cx > 0 => {
                v + fut + out + mask
            }
            () = pending() => unreachable!(),
        }
    });
    assert_eq!(v, 1 + 2 + 3 + 7 + 8 + 9);
}

#[test]
fn through_the_tokio_alias() {
    // What a crate gets with `extern crate sim_rt as tokio;`.
    use sim_rt as tokio;
    let v = sim(0, async {
        tokio::select! {
            v = ready(1) => v,
            () = pending() => unreachable!(),
        }
    });
    assert_eq!(v, 1);
}

// ----- borrowing, control flow, values ----------------------------------------

#[test]
fn borrowed_futures_declared_outside_resume_across_selects() {
    let (a, b) = sim(0, async {
        let polls_a = Rc::new(Cell::new(0));
        let mut a = ReadyAfter {
            polls: polls_a.clone(),
            n: 2,
            value: 1,
        };
        let mut b = pin!(sim_rt::time::sleep(Duration::from_millis(10)));
        let start = sim_rt::time::Instant::now();
        let (mut a_done, mut b_done) = (None, None);
        while a_done.is_none() || b_done.is_none() {
            sim_rt::select! {
                v = &mut a, if a_done.is_none() => a_done = Some(v),
                () = &mut b, if b_done.is_none() => b_done = Some(sim_rt::time::Instant::now()),
            }
        }
        // Polled until ready, never again afterwards.
        assert_eq!(polls_a.get(), 2);
        (a_done.unwrap(), b_done.unwrap() - start)
    });
    assert_eq!(a, 1);
    assert_eq!(b, Duration::from_millis(10));
}

#[test]
fn handlers_break_continue_and_return() {
    async fn first_even(values: Vec<u32>) -> Option<u32> {
        let mut iter = values.into_iter();
        loop {
            sim_rt::select! {
                Some(v) = ready(iter.next()) => {
                    if v % 2 == 1 {
                        continue;
                    }
                    return Some(v);
                }
                else => break,
            }
        }
        None
    }
    assert_eq!(sim(0, first_even(vec![1, 3, 4, 5])), Some(4));
    assert_eq!(sim(0, first_even(vec![1, 3])), None);

    let total = sim(0, async {
        let mut total = 0;
        'outer: for i in 0..10 {
            sim_rt::select! {
                v = ready(i) => {
                    if v == 5 {
                        break 'outer;
                    }
                    total += v;
                }
            }
        }
        total
    });
    assert_eq!(total, 1 + 2 + 3 + 4);
}

#[test]
fn handlers_can_use_the_question_mark() {
    async fn parse(s: &str) -> Result<u32, std::num::ParseIntError> {
        let v = sim_rt::select! {
            v = ready(s.parse::<u32>()) => v?,
        };
        Ok(v + 1)
    }
    assert_eq!(sim(0, parse("41")), Ok(42));
    assert!(sim(0, parse("x")).is_err());
}

#[test]
fn value_types() {
    let unit: () = sim(0, async {
        sim_rt::select! { () = ready(()) => {} }
    });
    let string: String = sim(0, async {
        sim_rt::select! { s = ready("a") => s.to_owned(), () = pending() => unreachable!() }
    });
    let boxed: Box<dyn std::fmt::Debug> = sim(0, async {
        sim_rt::select! {
            biased;
            v = ready(1u8) => Box::new(v) as Box<dyn std::fmt::Debug>,
            v = ready("x") => Box::new(v),
        }
    });
    assert_eq!(unit, ());
    assert_eq!(string, "a");
    assert_eq!(format!("{boxed:?}"), "1");
}

#[test]
fn losing_futures_are_dropped_before_the_handler_runs() {
    let drops = Rc::new(Cell::new(0));
    sim(0, async {
        sim_rt::select! {
            () = DropCounter(drops.clone()) => unreachable!(),
            () = DropCounter(drops.clone()) => unreachable!(),
            () = ready(()) => assert_eq!(drops.get(), 2),
        }
    });
    assert_eq!(drops.get(), 2);
}

#[test]
fn nested_selects() {
    let v = sim(0, async {
        sim_rt::select! {
            a = ready(1) => sim_rt::select! {
                b = ready(a + 1) => b * 10,
                () = pending() => unreachable!(),
            },
            () = pending() => unreachable!(),
        }
    });
    assert_eq!(v, 20);
}

#[test]
fn the_first_to_complete_in_simulated_time_wins() {
    for seed in 0..10 {
        let v = sim(seed, async {
            sim_rt::select! {
                () = sim_rt::time::sleep(Duration::from_secs(2)) => "slow",
                () = sim_rt::time::sleep(Duration::from_secs(1)) => "fast",
            }
        });
        assert_eq!(v, "fast");
    }
}

// ----- the branch polled first is a scheduler choice --------------------------

/// Which of two always-ready branches wins, and the trace of the run.
fn race(seed: u64) -> (&'static str, Vec<Step>) {
    let rt = Builder::new_current_thread()
        .enable_all()
        .seed(seed)
        .build()
        .unwrap();
    let winner = rt.block_on(async {
        sim_rt::select! {
            v = ready("a") => v,
            v = ready("b") => v,
        }
    });
    (winner, rt.trace().steps().to_vec())
}

#[test]
fn without_biased_the_first_branch_varies_with_the_seed_and_replays() {
    let mut winners = Vec::new();
    for seed in 0..50 {
        let (winner, steps) = race(seed);
        // The same seed makes the same choice.
        assert_eq!(race(seed), (winner, steps.clone()), "seed {seed}");
        // And it is recorded as a select choice among two.
        let choices: Vec<_> = steps
            .iter()
            .filter_map(|s| match s {
                Step::Choose { kind, index, of } => Some((*kind, *index, *of)),
                _ => None,
            })
            .collect();
        let expected_index = if winner == "a" { 0 } else { 1 };
        assert_eq!(choices, [(1, expected_index, 2)], "seed {seed}");
        winners.push(winner);
    }
    assert!(winners.contains(&"a"), "{winners:?}");
    assert!(winners.contains(&"b"), "{winners:?}");
}

#[test]
fn no_choice_is_asked_when_at_most_one_branch_is_enabled() {
    let rt = Builder::new_current_thread()
        .enable_all()
        .seed(1)
        .build()
        .unwrap();
    let v = rt.block_on(async {
        let one = sim_rt::select! { v = ready(1) => v };
        let three = sim_rt::select! {
            v = ready(2), if false => v,
            v = ready(3) => v,
        };
        let four = sim_rt::select! { biased; v = ready(4) => v, v = ready(5) => v };
        one + three + four
    });
    assert_eq!(v, 1 + 3 + 4);
    assert!(
        !rt.trace()
            .steps()
            .iter()
            .any(|s| matches!(s, Step::Choose { .. })),
        "{:?}",
        rt.trace().steps()
    );
}

#[test]
fn the_choice_is_among_enabled_branches_only() {
    // Branch 0 is disabled, so the choice is among branches 1 and 2 and each
    // answer starts at a different one.
    let mut winners = Vec::new();
    for seed in 0..50 {
        let rt = Builder::new_current_thread()
            .enable_all()
            .seed(seed)
            .build()
            .unwrap();
        let winner = rt.block_on(async {
            sim_rt::select! {
                v = ready(0), if false => v,
                v = ready(1) => v,
                v = ready(2) => v,
            }
        });
        let choice = rt
            .trace()
            .steps()
            .iter()
            .find_map(|s| match s {
                Step::Choose { index, of, .. } => Some((*index, *of)),
                _ => None,
            })
            .expect("a select among two enabled branches makes a choice");
        assert_eq!(choice, (winner - 1, 2), "seed {seed}");
        winners.push(winner);
    }
    assert!(winners.contains(&1) && winners.contains(&2), "{winners:?}");
}

#[test]
fn outside_a_simulation_the_first_enabled_branch_is_polled_first() {
    let v = futures::executor::block_on(async {
        sim_rt::select! {
            v = ready(0), if false => v,
            v = ready(1) => v,
            v = ready(2) => v,
        }
    });
    assert_eq!(v, 1);
}

/// The `select!` future has tokio's layout: the branches pinned together
/// and a poll function holding the pin and the disabled mask. tokio's own
/// tests assert these sizes.
#[test]
fn select_futures_have_tokios_sizes() {
    use std::future::ready;
    use std::mem::size_of_val;

    let one = async {
        sim_rt::select! {
            _ = ready(0i32) => {},
        }
    };
    let two = async {
        sim_rt::select! {
            _ = ready(0i32) => {},
            _ = ready(0i32) => {},
        }
    };
    let three = async {
        sim_rt::select! {
            _ = ready(0i32) => {},
            _ = ready(0i32) => {},
            _ = ready(0i32) => {},
        }
    };
    assert_eq!(
        (size_of_val(&one), size_of_val(&two), size_of_val(&three)),
        (32, 40, 48)
    );
}
