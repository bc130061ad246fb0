//! `join!` and `try_join!`: run several futures concurrently on the current
//! task and wait for all of them (or, for `try_join!`, for the first error).
//!
//! tokio's own versions need no runtime, and sim-rt re-exported them until
//! the whole-graph mode (the `tokio` package of this repository) made sim-rt
//! stop depending on tokio. These are sim-rt's, with tokio's syntax and
//! semantics: the expressions are evaluated in order before anything is
//! polled; without `biased;` the branch polled first moves on by one every
//! time the joined future is polled (tokio's rotation, which is
//! deterministic), with `biased;` they are polled top to bottom every time.
//!
//! # How the expansion works
//!
//! A `macro_rules!` muncher takes one expression per step and names its
//! output (`out`: each step's is a different binding, because a name
//! written by a macro belongs to the expansion that wrote it). The last
//! step pins every branch together in a [`Cons`] list (tokio: a tuple) and
//! polls it with a `move` closure holding the pinned list and the rotation,
//! so the joined future has tokio's layout and size, which tokio's own
//! tests assert. The list's traits poll any number of branches with safe
//! pin projections, where tokio projects into the tuple with `unsafe`.
//!
//! [`Cons`]: crate::macros::support::Cons
//!
//! # Invariants
//!
//! - A branch is polled only while it has not completed; its output is kept
//!   until every branch is done (or, in `try_join!`, dropped with the rest
//!   when one fails).
//! - The rotation's next first branch is below the number of branches.

#[cfg(doc)]
/// Simulated [`tokio::join!`](https://docs.rs/tokio/1/tokio/macro.join.html): waits on several concurrent branches and
/// returns their outputs as a tuple when **all** have completed.
///
/// ```text
/// join!([biased;] <async expression>, <async expression>, ...)
/// ```
///
/// The futures run concurrently on the current task, not in parallel.
/// Without `biased;`, the branch polled first rotates by one each time the
/// joined future is polled, so no branch can starve the others; with
/// `biased;` they are polled in the order written.
///
/// # Examples
///
/// ```
/// # sim_rt::runtime::Runtime::new().unwrap().block_on(async {
/// let (a, b) = sim_rt::join!(async { 1 }, async { "two" });
/// assert_eq!((a, b), (1, "two"));
/// # });
/// ```
///
/// # Differences from tokio
///
/// None.
#[macro_export]
macro_rules! join {
    ($(biased;)? $($future:expr),* $(,)?) => {
        // Documentation only (`cfg(doc)`): the real macro follows.
    };
}

#[cfg(not(doc))]
#[doc(hidden)]
#[macro_export]
macro_rules! join {
    // Name the next expression's output and carry on with the rest.
    (@munch [$($out:ident)*] [$($e:expr,)*] $biased:tt; $next:expr, $($rest:expr,)*) => {
        $crate::join!(@munch [$($out)* out] [$($e,)* $next,] $biased; $($rest,)*)
    };
    // Every branch named: pin them together and poll until all are done.
    (@munch [$($out:ident)*] [$($e:expr,)*] $biased:tt;) => {{
        let mut futures = $crate::macros::support::pin!($crate::join!(@list $($e,)*));
        let mut rotator = $crate::join!(@rotator $biased);
        let $crate::join!(@nested $($out)*) = $crate::macros::support::poll_fn(move |cx| {
            const COUNT: u32 = $crate::join!(@count $($out)*);
            let first = rotator.first(COUNT);
            $crate::macros::support::poll_join(futures.as_mut(), cx, first, COUNT)
        })
        .await;
        ($($out,)*)
    }};
    (@list $($e:expr,)*) => {
        $crate::macros::select_priv_cons!(($crate::macros::support) $( [
            $crate::macros::support::MaybeDone::new($e)
        ] )*)
    };
    (@nested $head:ident $($tail:ident)*) => { ($head, $crate::join!(@nested $($tail)*)) };
    (@nested) => { () };
    (@rotator true) => { $crate::macros::support::BiasedRotator };
    (@rotator false) => {
        <$crate::macros::support::Rotator as ::core::default::Default>::default()
    };
    (@count) => { 0u32 };
    (@count $head:ident $($tail:ident)*) => { 1u32 + $crate::join!(@count $($tail)*) };
    (biased; $($e:expr),+ $(,)?) => { $crate::join!(@munch [] [] true; $($e,)*) };
    ($($e:expr),+ $(,)?) => { $crate::join!(@munch [] [] false; $($e,)*) };
    (biased;) => { async {}.await };
    () => { async {}.await };
}

#[cfg(doc)]
/// Simulated [`tokio::try_join!`](https://docs.rs/tokio/1/tokio/macro.try_join.html): waits on several concurrent branches
/// that return `Result`s, returning `Ok` of all their values when all have
/// succeeded, or the first `Err` as soon as one fails (dropping the rest).
///
/// ```text
/// try_join!([biased;] <async expression>, <async expression>, ...)
/// ```
///
/// Every branch must have the same error type. Polling order is as for
/// [`join!`](crate::join!).
///
/// # Examples
///
/// ```
/// # sim_rt::runtime::Runtime::new().unwrap().block_on(async {
/// let ok: Result<(u8, u8), &str> = sim_rt::try_join!(async { Ok(1) }, async { Ok(2) });
/// assert_eq!(ok, Ok((1, 2)));
/// let err: Result<(u8, u8), &str> =
///     sim_rt::try_join!(async { Ok(1) }, async { Err("no") });
/// assert_eq!(err, Err("no"));
/// # });
/// ```
///
/// # Differences from tokio
///
/// None.
#[macro_export]
macro_rules! try_join {
    ($(biased;)? $($future:expr),* $(,)?) => {
        // Documentation only (`cfg(doc)`): the real macro follows.
    };
}

#[cfg(not(doc))]
#[doc(hidden)]
#[macro_export]
macro_rules! try_join {
    // As `join!`'s, with `try_join`'s poll.
    (@munch [$($out:ident)*] [$($e:expr,)*] $biased:tt; $next:expr, $($rest:expr,)*) => {
        $crate::try_join!(@munch [$($out)* out] [$($e,)* $next,] $biased; $($rest,)*)
    };
    (@munch [$($out:ident)*] [$($e:expr,)*] $biased:tt;) => {{
        let mut futures = $crate::macros::support::pin!($crate::join!(@list $($e,)*));
        let mut rotator = $crate::join!(@rotator $biased);
        match $crate::macros::support::poll_fn(move |cx| {
            const COUNT: u32 = $crate::join!(@count $($out)*);
            let first = rotator.first(COUNT);
            $crate::macros::support::poll_try_join(futures.as_mut(), cx, first, COUNT)
        })
        .await
        {
            ::core::result::Result::Ok($crate::join!(@nested $($out)*)) => {
                ::core::result::Result::Ok(($($out,)*))
            }
            ::core::result::Result::Err(e) => ::core::result::Result::Err(e),
        }
    }};
    (biased; $($e:expr),+ $(,)?) => { $crate::try_join!(@munch [] [] true; $($e,)*) };
    ($($e:expr),+ $(,)?) => { $crate::try_join!(@munch [] [] false; $($e,)*) };
    (biased;) => { async { ::core::result::Result::Ok(()) }.await };
    () => { async { ::core::result::Result::Ok(()) }.await };
}

#[cfg(doc)]
/// Simulated [`tokio::pin!`](https://docs.rs/tokio/1/tokio/macro.pin.html): pins values on the stack.
///
/// `pin!(a, b)` shadows each named variable with a `Pin<&mut _>` to it;
/// `pin! { let a = expr; }` pins the value of `expr` as `a`.
///
/// # Examples
///
/// ```
/// # sim_rt::runtime::Runtime::new().unwrap().block_on(async {
/// let fut = async { 7 };
/// sim_rt::pin!(fut);
/// assert_eq!((&mut fut).await, 7);
/// # });
/// ```
///
/// # Differences from tokio
///
/// None.
#[macro_export]
macro_rules! pin {
    ($($x:ident),* $(,)?) => {
        // Documentation only (`cfg(doc)`): the real macro follows.
    };
    ($(let $x:ident = $init:expr;)*) => {};
}

#[cfg(not(doc))]
#[doc(hidden)]
#[macro_export]
macro_rules! pin {
    ($($x:ident),* $(,)?) => {
        $(
            #[allow(unused_mut)]
            let mut $x = $crate::macros::support::pin!($x);
        )*
    };
    ($(let $x:ident = $init:expr;)*) => {
        $(
            #[allow(unused_mut)]
            let mut $x = $crate::macros::support::pin!($init);
        )*
    };
}
