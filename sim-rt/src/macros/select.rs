//! `select!`: wait on several futures at once, run the handler of the first
//! to complete, and drop the others.
//!
//! The macro follows tokio's `select!` (tokio 1.x, `macros/select.rs`) in
//! syntax and semantics, and in its implementation strategy: a `macro_rules!`
//! tt-muncher normalises one branch per step (so it recurses once per branch
//! and never needs a raised recursion limit), then the final rule expands to
//! a `poll_fn` over all the branches' futures. Branches are numbered by a run
//! of `_` tokens, one per earlier branch, which the `select_priv_*` procedural
//! helpers of `sim-rt-macros` turn into indices and enum variants.
//!
//! It differs from tokio's in two ways:
//!
//! - The branch polled first (without `biased;`) is a data choice of the
//!   simulation's scheduler, made among the branches still enabled
//!   ([`support::select_start_among`](crate::macros::support::select_start_among)),
//!   instead of a draw from a thread-local RNG.
//! - No `unsafe`: each future is pinned on the stack on its own with
//!   [`core::pin::pin!`], and the poll function holds the resulting
//!   `Pin<&mut _>`s; tokio keeps an unpinned tuple and projects into it with
//!   `Pin::new_unchecked`.
//!
//! # Invariants
//!
//! - Bit `i` of `disabled` is set iff branch `i` must not be polled again in
//!   this `select!`: its precondition was false, or its future completed
//!   (with a value that did not match its pattern, or the select is over).
//! - The futures are dropped when the poll function's scope ends, before the
//!   handler runs, so a handler may use whatever the futures borrowed.

// The documentation shows the user-facing grammar rather than the muncher's
// internal rules, as tokio's does.
#[cfg(doc)]
/// Simulated [`tokio::select!`](https://docs.rs/tokio/1/tokio/macro.select.html): waits on several concurrent branches,
/// returning when the **first** branch completes and cancelling (dropping)
/// the remaining ones.
///
/// ```text
/// select! {
///     [biased;]
///     <pattern> = <async expression> [, if <precondition>] => <handler>,
///     ...
///     [else => <expression>]
/// }
/// ```
///
/// An *async expression* is anything that implements [`IntoFuture`]; a
/// borrowed future (`&mut fut`) must be [`Unpin`] (pin it with
/// [`pin!`](crate::pin!) first). Up to 64 branches are supported.
///
/// Execution:
///
/// 1. Every *precondition* is evaluated; a branch whose precondition is
///    `false` is **disabled** for the rest of this `select!`.
/// 2. Every *async expression* is evaluated and converted into a future,
///    including those of disabled branches (whose futures are never polled).
/// 3. The futures of the enabled branches are polled, one after another.
///    When one completes, its value is matched against its *pattern*; if it
///    matches, the other futures are dropped and the branch's *handler* runs
///    with the pattern's bindings, and its value is the value of `select!`.
///    If it does not match, the branch is disabled and the others are
///    polled.
/// 4. If every branch is disabled, the `else` expression is evaluated;
///    without `else`, `select!` panics with "all branches are disabled and
///    there is no else branch".
///
/// Each poll of the `select!` first checks the task's cooperative budget
/// ([`task::coop`](crate::task::coop)): when it is spent, the `select!`
/// returns `Pending` (and the task is woken to run again) without polling
/// any branch, as tokio's does.
///
/// Without `biased;`, each poll of the `select!` starts at a branch chosen
/// by the simulation's scheduler and goes round from there; with `biased;`,
/// branches are polled in the order they are written.
///
/// A handler runs outside the futures' scope: it may `break`, `continue`,
/// `return` or use `?` as if written where `select!` is, and may use what
/// the futures borrowed.
///
/// # Examples
///
/// ```
/// # sim_rt::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
/// use std::future::ready;
///
/// let mut first = std::pin::pin!(async { 7 });
/// let mut seen = Vec::new();
/// for round in 0..4 {
///     sim_rt::select! {
///         // Polled in round 0 only: a completed future must not be polled.
///         v = &mut first, if round == 0 => seen.push(v),
///         // A `None` disables this branch instead of completing the select.
///         Some(v) = ready((round % 2 == 1).then_some(round)), if round > 0 => {
///             seen.push(v * 10)
///         }
///         else => seen.push(0),
///     }
/// }
/// assert_eq!(seen, [7, 10, 0, 30]);
/// # });
/// ```
///
/// # Cancel safety
///
/// When one branch completes, the futures of the others are dropped. Using
/// `select!` in a loop is only correct if those futures are *cancel safe*:
/// dropping one before it completes loses nothing. This is the future's
/// property, as documented by tokio for each of its methods.
///
/// # Panics
///
/// - When every branch is disabled and there is no `else` branch.
/// - When a future panics, the panic propagates, as with tokio.
///
/// # Differences from tokio
///
/// - The branch polled first (without `biased;`) is a data choice of the
///   simulation's scheduler (`ChoiceKind::Select`), recorded in the trace and
///   replayed, instead of a draw from a thread-local RNG. It is chosen among
///   the branches not yet disabled, uniformly by default, and not asked at
///   all when at most one branch is enabled; outside a simulation the first
///   enabled branch is polled first.
///
/// [`tokio::select!`]: https://docs.rs/tokio/1/tokio/macro.select.html
/// [`IntoFuture`]: core::future::IntoFuture
#[macro_export]
macro_rules! select {
    {
        $(biased;)?
        $($bind:pat = $fut:expr $(, if $cond:expr)? => $handler:expr,)*
        $(else => $els:expr $(,)?)?
    } => {
        // Documentation only (`cfg(doc)`): the real macro follows.
    };
}

#[cfg(not(doc))]
/// Simulated [`tokio::select!`](https://docs.rs/tokio/1/tokio/macro.select.html):
/// waits on several concurrent branches, returning when the first completes
/// and dropping the others. See the rendered documentation of this macro for
/// the grammar, the semantics and the differences from tokio.
#[macro_export]
macro_rules! select {
    // ===== Final form: every branch normalised ==========================
    //
    // `biased` is `true` or `false`; `( $count )` holds one `_` per branch;
    // each branch is `( $skip ) pat = fut, if cond => handler,` where
    // `$skip` holds one `_` per earlier branch; `$else` follows the `;`.
    (@{
        biased = $biased:tt;
        ( $($count:tt)* )
        $( ( $($skip:tt)* ) $bind:pat = $fut:expr, if $cond:expr => $handler:expr, )+
        ; $else:expr
    }) => {{
        // `enum __SimRtSelectOut<_0, .., _n> { _0(_0), .., Disabled }`: the
        // value of the branch that completed, or `Disabled`.
        $crate::macros::select_priv_declare_output_enum!(__SimRtSelectOut ( $($count)* ));

        const BRANCHES: u32 = $crate::macros::select_priv_count!( $($count)* );

        // Bit `i` set: branch `i` is not polled (again).
        let mut disabled: u64 = 0;
        $(
            if !$cond {
                disabled |= 1u64 << $crate::macros::select_priv_count!( $($skip)* );
            }
        )+

        // The futures live in this block only, so they are dropped before
        // the handler runs.
        #[allow(unused_mut)]
        let mut output = {
            // The async expressions as written first, so that temporaries
            // they borrow live as long as the futures (temporary lifetime
            // extension applies to the operands of a tuple in a `let`).
            let futures_init = ( $( $fut, )+ );

            // Each future pinned on its own, and the `Pin<&mut _>`s in a
            // tuple: `pin!` in a tuple in a `let` is extended to the block.
            // The futures pinned together (tokio: a tuple); the poll
            // function holds the pin and the mask by value (`move`), as
            // tokio's holds a borrow of each, so the layouts match. The
            // futures stay in this block's frame and are dropped with it.
            let mut futures = $crate::macros::support::pin!(
                $crate::macros::select_priv_cons!(($crate::macros::support) $( [
                    $crate::macros::support::IntoFuture::into_future({
                        let ( $($skip,)* fut, .. ) = futures_init;
                        fut
                    })
                ] )+)
            );

            $crate::macros::support::poll_fn(move |cx| {
                // A spent budget: yield before polling anything (tokio's
                // rule; budget-aware branches would yield anyway).
                $crate::macros::support::ready!(
                    $crate::macros::support::poll_budget_available(cx)
                );

                // Whether some enabled branch is still pending; if none is
                // and none completed, every branch is disabled.
                let mut is_pending = false;

                let start: u32 = if $biased {
                    0
                } else {
                    $crate::macros::support::select_start_among(BRANCHES, disabled)
                };

                for offset in 0..BRANCHES {
                    #[allow(clippy::modulo_one)]
                    let branch = (start + offset) % BRANCHES;
                    match branch {
                        $(
                            #[allow(unreachable_code)]
                            $crate::macros::select_priv_count!( $($skip)* ) => {
                                let mask = 1u64 << branch;
                                if disabled & mask != 0 {
                                    continue;
                                }

                                let fut = $crate::macros::select_priv_nth!(
                                    ($crate::macros::support) (futures.as_mut()) $($skip)*
                                );
                                let out = match $crate::macros::support::Future::poll(fut, cx) {
                                    $crate::macros::support::Poll::Ready(out) => out,
                                    $crate::macros::support::Poll::Pending => {
                                        is_pending = true;
                                        continue;
                                    }
                                };

                                // Completed: never poll it again, whether or
                                // not the value matches.
                                disabled |= mask;

                                // Test the pattern on a reference, without
                                // `ref`/`mut`, so the value is not moved.
                                #[allow(unused_variables, unused_mut, unreachable_patterns)]
                                match &out {
                                    $crate::macros::select_priv_clean_pattern!($bind) => {}
                                    _ => continue,
                                }

                                return $crate::macros::support::Poll::Ready(
                                    $crate::macros::select_priv_variant!(
                                        __SimRtSelectOut ( $($skip)* ) (out)
                                    )
                                );
                            }
                        )+
                        _ => ::core::unreachable!(
                            "select! computed branch {} of {}",
                            branch,
                            BRANCHES
                        ),
                    }
                }

                if is_pending {
                    $crate::macros::support::Poll::Pending
                } else {
                    $crate::macros::support::Poll::Ready(__SimRtSelectOut::Disabled)
                }
            })
            .await
        };

        match output {
            $(
                $crate::macros::select_priv_variant!(
                    __SimRtSelectOut ( $($skip)* ) ($bind)
                ) => $handler,
            )+
            __SimRtSelectOut::Disabled => $else,
            #[allow(unreachable_patterns)]
            _ => ::core::unreachable!("select! value did not match the pattern it matched before"),
        }
    }};

    // ===== Normalisation: one branch (or the `else`) per step =============

    // No branch left and no `else`.
    (@{ $($acc:tt)* }) => {
        $crate::select!(@{
            $($acc)*
            ; ::core::panic!("all branches are disabled and there is no else branch")
        })
    };
    (@{ $($acc:tt)* } else => $else:expr $(,)?) => {
        $crate::select!(@{ $($acc)* ; $else })
    };

    // A branch: with or without a precondition, with a block handler (comma
    // optional) or an expression handler (comma required unless last).
    (@{ biased = $b:tt; ( $($n:tt)* ) $($acc:tt)* }
        $p:pat = $f:expr, if $c:expr => $h:block, $($rest:tt)*) => {
        $crate::select!(@{ biased = $b; ( $($n)* _ ) $($acc)* ( $($n)* ) $p = $f, if $c => $h, } $($rest)*)
    };
    (@{ biased = $b:tt; ( $($n:tt)* ) $($acc:tt)* }
        $p:pat = $f:expr => $h:block, $($rest:tt)*) => {
        $crate::select!(@{ biased = $b; ( $($n)* _ ) $($acc)* ( $($n)* ) $p = $f, if true => $h, } $($rest)*)
    };
    (@{ biased = $b:tt; ( $($n:tt)* ) $($acc:tt)* }
        $p:pat = $f:expr, if $c:expr => $h:block $($rest:tt)*) => {
        $crate::select!(@{ biased = $b; ( $($n)* _ ) $($acc)* ( $($n)* ) $p = $f, if $c => $h, } $($rest)*)
    };
    (@{ biased = $b:tt; ( $($n:tt)* ) $($acc:tt)* }
        $p:pat = $f:expr => $h:block $($rest:tt)*) => {
        $crate::select!(@{ biased = $b; ( $($n)* _ ) $($acc)* ( $($n)* ) $p = $f, if true => $h, } $($rest)*)
    };
    (@{ biased = $b:tt; ( $($n:tt)* ) $($acc:tt)* }
        $p:pat = $f:expr, if $c:expr => $h:expr) => {
        $crate::select!(@{ biased = $b; ( $($n)* _ ) $($acc)* ( $($n)* ) $p = $f, if $c => $h, })
    };
    (@{ biased = $b:tt; ( $($n:tt)* ) $($acc:tt)* }
        $p:pat = $f:expr => $h:expr) => {
        $crate::select!(@{ biased = $b; ( $($n)* _ ) $($acc)* ( $($n)* ) $p = $f, if true => $h, })
    };
    (@{ biased = $b:tt; ( $($n:tt)* ) $($acc:tt)* }
        $p:pat = $f:expr, if $c:expr => $h:expr, $($rest:tt)*) => {
        $crate::select!(@{ biased = $b; ( $($n)* _ ) $($acc)* ( $($n)* ) $p = $f, if $c => $h, } $($rest)*)
    };
    (@{ biased = $b:tt; ( $($n:tt)* ) $($acc:tt)* }
        $p:pat = $f:expr => $h:expr, $($rest:tt)*) => {
        $crate::select!(@{ biased = $b; ( $($n)* _ ) $($acc)* ( $($n)* ) $p = $f, if true => $h, } $($rest)*)
    };

    // ===== Entry points =====================================================

    ($(biased;)? else => $else:expr $(,)?) => {{
        $else
    }};
    (biased; $p:pat = $($rest:tt)*) => {
        $crate::select!(@{ biased = true; () } $p = $($rest)*)
    };
    ($p:pat = $($rest:tt)*) => {
        $crate::select!(@{ biased = false; () } $p = $($rest)*)
    };
    () => {
        ::core::compile_error!("select! requires at least one branch.")
    };
}
