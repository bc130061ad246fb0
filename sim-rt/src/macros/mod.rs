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
    select_priv_clean_pattern, select_priv_count, select_priv_declare_output_enum,
    select_priv_variant,
};
