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
//! A `macro_rules!` muncher takes one expression per step and pins its
//! future on the stack inside a new block (`let mut fut = pin!(...)`). Each
//! step's `fut` is a different binding, because a name written by a macro
//! belongs to the expansion that wrote it (hygiene), and the muncher passes
//! the bindings made so far on to the next step as tokens. The last step
//! polls them through `Pin<&mut dyn ...>` trait objects in an array, so the
//! polling loop is written once, whatever the number of branches. No
//! `unsafe`: tokio projects into an unpinned tuple with
//! `Pin::new_unchecked` instead.
//!
//! # Invariants
//!
//! - A branch is polled only while it has not completed; its output is kept
//!   until every branch is done (or, in `try_join!`, dropped with the rest
//!   when one fails).
//! - `start < N` for N branches.

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
    // Pin the next expression's future and carry on with the rest.
    (@pin [$($done:ident)*] $biased:literal; $e:expr, $($rest:expr,)*) => {{
        let mut fut = $crate::macros::support::pin!($crate::macros::support::MaybeDone::new($e));
        $crate::join!(@pin [$($done)* fut] $biased; $($rest,)*)
    }};
    // Every future is pinned: poll them until all are done.
    (@pin [$($fut:ident)*] $biased:literal;) => {{
        let mut start = 0usize;
        $crate::macros::support::poll_fn(|cx| {
            let mut branches: [$crate::macros::support::Pin<&mut dyn $crate::macros::support::Join>; $crate::join!(@count $($fut)*)] =
                [$($fut.as_mut()),*];
            $crate::macros::support::poll_join(&mut branches, cx, &mut start, $biased)
        })
        .await;
        ($($fut.as_mut().take_output(),)*)
    }};
    (@count) => { 0usize };
    (@count $head:ident $($tail:ident)*) => { 1usize + $crate::join!(@count $($tail)*) };
    (biased; $($e:expr),+ $(,)?) => { $crate::join!(@pin [] true; $($e,)*) };
    ($($e:expr),+ $(,)?) => { $crate::join!(@pin [] false; $($e,)*) };
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
    (@pin [$($done:ident)*] $biased:literal; $e:expr, $($rest:expr,)*) => {{
        let mut fut = $crate::macros::support::pin!($crate::macros::support::MaybeDone::new($e));
        $crate::try_join!(@pin [$($done)* fut] $biased; $($rest,)*)
    }};
    (@pin [$($fut:ident)*] $biased:literal;) => {{
        let mut start = 0usize;
        let all = $crate::macros::support::poll_fn(|cx| {
            let mut branches: [$crate::macros::support::Pin<&mut dyn $crate::macros::support::TryJoin<_>>; $crate::join!(@count $($fut)*)] =
                [$($fut.as_mut()),*];
            $crate::macros::support::poll_try_join(&mut branches, cx, &mut start, $biased)
        })
        .await;
        match all {
            ::core::result::Result::Ok(()) => ::core::result::Result::Ok((
                $($crate::macros::support::ok_output($fut.as_mut().take_output()),)*
            )),
            ::core::result::Result::Err(e) => ::core::result::Result::Err(e),
        }
    }};
    (biased; $($e:expr),+ $(,)?) => { $crate::try_join!(@pin [] true; $($e,)*) };
    ($($e:expr),+ $(,)?) => { $crate::try_join!(@pin [] false; $($e,)*) };
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
