//! The macros of the public API that `sim_rt` defines itself:
//! [`select!`](crate::select!), [`join!`](crate::join!),
//! [`try_join!`](crate::try_join!) and [`pin!`](crate::pin!) (exported at
//! the crate root), and the hidden items their expansions name.
//!
//! `#[sim_rt::main]` and `#[sim_rt::test]` are procedural macros in the
//! `sim-rt-macros` crate.
//!
//! The macros expand to paths under `$crate::macros`, so everything they
//! need is reachable from here: the `support` module and the `select_priv_*`
//! procedural helpers of `sim-rt-macros`.

#[macro_use]
mod join;
#[macro_use]
mod select;

#[doc(hidden)]
pub mod support;

#[doc(hidden)]
pub use sim_rt_macros::{
    select_priv_clean_pattern, select_priv_cons, select_priv_count,
    select_priv_declare_output_enum, select_priv_nth, select_priv_variant,
};

/// A coverage point that should hold in *some* execution, after
/// Antithesis's `assert_sometimes!`: records whether `condition` holds
/// here and evaluates to it. Not a failure when it does not hold; an
/// exploration in which it never held says so in its report
/// (`Report::never_hit`), so a test learns that its search never reached
/// the state the point describes (a leader isolated while a client
/// writes, a retry that finds its request applied).
///
/// The point is registered with the linker, so the report names it even
/// when no execution reached its line. `name` is a string literal.
///
/// ```
/// # sim_rt::runtime::Runtime::new().unwrap().block_on(async {
/// let retries = 2;
/// sim_rt::sometimes!(retries > 1, "a request retried more than once");
/// # });
/// ```
///
/// # Panics
///
/// Outside a simulation.
#[macro_export]
macro_rules! sometimes {
    ($condition:expr, $name:literal $(,)?) => {
        $crate::sim::cover($crate::__point!(Sometimes, $name), $condition)
    };
}

/// A coverage point that should run in *some* execution, after
/// Antithesis's `assert_reachable!`: see [`sometimes!`](crate::sometimes!).
///
/// ```
/// # sim_rt::runtime::Runtime::new().unwrap().block_on(async {
/// if sim_rt::choose(2) == 1 {
///     sim_rt::reachable!("the rare branch");
/// }
/// # });
/// ```
///
/// # Panics
///
/// Outside a simulation.
#[macro_export]
macro_rules! reachable {
    ($name:literal $(,)?) => {{
        $crate::sim::cover($crate::__point!(Reachable, $name), true);
    }};
}

/// A coverage point of kind `$kind` named `$name`, here, registered with
/// the linker (what [`sometimes!`](crate::sometimes!) and
/// [`reachable!`](crate::reachable!) expand to).
#[doc(hidden)]
#[macro_export]
macro_rules! __point {
    ($kind:ident, $name:literal) => {{
        #[$crate::sim::__linkme::distributed_slice($crate::sim::__POINTS)]
        #[linkme(crate = $crate::sim::__linkme)]
        static POINT: $crate::sim::Point = $crate::sim::Point {
            file: ::core::file!(),
            line: ::core::line!(),
            column: ::core::column!(),
            name: $name,
            kind: $crate::sim::PointKind::$kind,
        };
        POINT
    }};
}
