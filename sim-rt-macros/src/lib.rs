//! Procedural macros for `sim_rt`: [`macro@main`] and [`macro@test`], and the
//! hidden helpers behind `sim_rt::select!`.
//!
//! Use them through the `sim_rt` crate (`#[sim_rt::main]`, `#[sim_rt::test]`,
//! or `#[tokio::main]` in a crate that does `extern crate sim_rt as tokio;`
//! under `cfg(sim)`), never by depending on this crate directly: the
//! expansions name items of `sim_rt` (by default through the path `::sim_rt`,
//! see the `crate` argument).
//!
//! The attribute macros accept exactly the arguments of tokio-macros 2.7
//! (`flavor`, `worker_threads`, `start_paused`, `crate`, `unhandled_panic`,
//! `name`) and reject the same mistakes with the same messages, so code that
//! compiles against tokio compiles here. What they expand to differs: the
//! function body becomes a closure that creates the body's future, handed to
//! `sim_rt::runtime::__private::run_fresh` together with a closure that makes
//! the configured `sim_rt::runtime::Builder`. The runtime may call them more
//! than once (`SIM_CHECK_DETERMINISM=1` runs an execution twice, each on a
//! fresh thread, and compares traces).

#![deny(missing_docs, rust_2018_idioms)]
#![warn(missing_debug_implementations)]

use proc_macro::TokenStream;

mod entry;
mod select;

/// Simulated [`tokio::main`](https://docs.rs/tokio/1/tokio/attr.main.html): runs an `async fn` to completion on a fresh
/// simulation.
///
/// ```ignore
/// #[sim_rt::main]
/// async fn main() -> Result<(), Box<dyn std::error::Error>> {
///     sim_rt::time::sleep(std::time::Duration::from_secs(1)).await;
///     Ok(())
/// }
/// ```
///
/// expands to (roughly)
///
/// ```ignore
/// fn main() -> Result<(), Box<dyn std::error::Error>> {
///     let builder = || {
///         let mut b = ::sim_rt::runtime::Builder::new_multi_thread();
///         b.enable_all();
///         b
///     };
///     ::sim_rt::runtime::__private::run_fresh(builder, move || async move {
///         sim_rt::time::sleep(std::time::Duration::from_secs(1)).await;
///         Ok(())
///     })
/// }
/// ```
///
/// # Arguments
///
/// - `flavor = "multi_thread"` (the default for `main`), `"current_thread"`
///   or `"local"`: selects `Builder::new_multi_thread` or
///   `Builder::new_current_thread` (`"local"`: the latter, built as a
///   `LocalRuntime`, where `spawn_local` works outside a `LocalSet`, as
///   tokio's attribute builds). Every flavor runs on the one simulation
///   thread.
/// - `worker_threads = N`: only with `flavor = "multi_thread"`; passed to
///   `Builder::worker_threads`.
/// - `start_paused = bool`: not with `multi_thread`; passed to
///   `Builder::start_paused`.
/// - `unhandled_panic = "ignore" | "shutdown_runtime"`: not with
///   `multi_thread`; passed to `Builder::unhandled_panic`.
/// - `crate = "path"`: the path of the `sim_rt` crate (default `::sim_rt`),
///   for a crate that renames it, e.g. `crate = "tokio"`.
/// - `name = "..."`: accepted for compatibility and ignored.
///
/// # Differences from tokio
///
/// - The body is wrapped in a closure that the runtime may call twice (for
///   the determinism check, `SIM_CHECK_DETERMINISM=1`), for a function
///   without arguments each time on a fresh thread (the first run on one
///   started for it, the second on the calling thread), so that per-thread
///   state such as std's `HashMap` keys starts afresh for each. A function whose
///   arguments are not all of types that are `Copy` whatever the program
///   defines (shared references, `&self`, primitives, and tuples and arrays
///   of those) moves them into its body, which can then be built once only:
///   such a function runs its body once, with `Builder::build` and
///   `Runtime::block_on` as tokio does, and is not checked for determinism.
/// - `name` is accepted and ignored.
/// - Error messages name `sim_rt::main` instead of `tokio::main`.
///
/// [`tokio::main`]: https://docs.rs/tokio/1/tokio/attr.main.html
#[proc_macro_attribute]
pub fn main(args: TokenStream, item: TokenStream) -> TokenStream {
    entry::main(args.into(), item.into(), entry::Root::SimRt).into()
}

/// Simulated [`tokio::test`](https://docs.rs/tokio/1/tokio/attr.test.html): a `#[test]` that runs an `async fn` on a fresh
/// simulation.
///
/// ```ignore
/// #[sim_rt::test]
/// async fn sleeps() {
///     sim_rt::time::sleep(std::time::Duration::from_secs(1)).await;
/// }
///
/// #[sim_rt::test(start_paused = true)]
/// #[should_panic(expected = "boom")]
/// async fn panics() {
///     panic!("boom");
/// }
///
/// #[sim_rt::test]
/// async fn fallible() -> std::io::Result<()> {
///     Ok(())
/// }
/// ```
///
/// Takes the same arguments as [`macro@main`]; the default flavor is
/// `current_thread`. Other attributes (`#[should_panic]`, `#[ignore]`, doc
/// comments) are kept, and `#[::core::prelude::v1::test]` is added after
/// them.
///
/// A synchronous `fn` is a test too, run the same way: its body is the
/// simulation's main future (on one host), which runs to its end in its
/// first poll, so its `std::fs` calls (and a C library's libc file calls)
/// are on the simulated disk and nothing reaches the real one:
///
/// ```ignore
/// use sim_rt::test;
///
/// #[test]
/// fn writes_a_file() -> std::io::Result<()> {
///     std::fs::write("/tmp/x", b"hi")?;
///     assert_eq!(std::fs::read("/tmp/x")?, b"hi");
///     Ok(())
/// }
/// ```
///
/// # Differences from tokio
///
/// - A synchronous `fn` is accepted (`tokio::test` rejects it: it would
///   have nothing to await). The reason is an existing suite: a test file
///   that starts with `use sim_rt::test;` runs every `#[test]` in it inside
///   a simulation, without editing any test, including those a macro writes
///   as `#[test]` at its call site (quickcheck's `quickcheck!` and
///   `#[quickcheck]`). A macro that writes the built-in attribute by its
///   full path is not reached by the import: `test_case` (2.x) does so for a
///   synchronous case; put `#[sim_rt::test]` under the `#[test_case(..)]`
///   lines of an `async fn`, as test_case documents for `#[tokio::test]`.
///   In a module of tests, import `test` by name: rustc finds a glob import
///   of it (`use super::*;`) ambiguous with the prelude's (E0659). A test
///   that starts a runtime or an explorer of its own cannot run inside
///   another simulation (`block_on` panics there): keep
///   `#[::core::prelude::v1::test]` on it. The body is one poll, so the
///   poll watchdog (`SIM_POLL_TIMEOUT`, 10 s of real time by default) ends
///   a process whose synchronous test runs longer: raise it for such a
///   suite. The whole-graph package's
///   `#[tokio::test]` rejects a synchronous `fn`, as tokio does.
/// - A test with arguments is rejected here (tokio leaves it to libtest).
/// - `name` is accepted and ignored.
/// - Error messages name `sim_rt::test` instead of `tokio::test`.
///
/// [`tokio::test`]: https://docs.rs/tokio/1/tokio/attr.test.html
#[proc_macro_attribute]
pub fn test(args: TokenStream, item: TokenStream) -> TokenStream {
    entry::test(args.into(), item.into(), entry::Root::SimRt).into()
}

/// `#[tokio::main]` of the whole-graph package (`sim-tokio`, named `tokio`):
/// [`macro@main`] with `crate = "tokio"` as its default and `tokio::main` in
/// its messages, since a crate built in that mode reaches the runtime only as
/// `tokio`.
#[doc(hidden)]
#[proc_macro_attribute]
pub fn tokio_main(args: TokenStream, item: TokenStream) -> TokenStream {
    entry::main(args.into(), item.into(), entry::Root::Tokio).into()
}

/// `#[tokio::test]` of the whole-graph package: [`macro@test`] with
/// `crate = "tokio"` as its default and `tokio::test` in its messages.
#[doc(hidden)]
#[proc_macro_attribute]
pub fn tokio_test(args: TokenStream, item: TokenStream) -> TokenStream {
    entry::test(args.into(), item.into(), entry::Root::Tokio).into()
}

/// Implementation detail of `sim_rt::select!`; not public API.
///
/// `select_priv_declare_output_enum!(Name (_ _ _))` declares
/// `enum Name<_0, _1, _2> { _0(_0), _1(_1), _2(_2), Disabled }`, one variant
/// per `_`.
#[doc(hidden)]
#[proc_macro]
pub fn select_priv_declare_output_enum(input: TokenStream) -> TokenStream {
    select::declare_output_enum(input.into()).into()
}

/// Implementation detail of `sim_rt::select!`; not public API.
///
/// Removes `ref` and `mut` from a pattern, so it can be matched against a
/// reference to the value to test whether it matches, without moving it.
#[doc(hidden)]
#[proc_macro]
pub fn select_priv_clean_pattern(input: TokenStream) -> TokenStream {
    select::clean_pattern_macro(input.into()).into()
}

/// Implementation detail of `sim_rt::select!`; not public API.
///
/// `select_priv_count!(_ _ _)` is the integer literal `3`.
#[doc(hidden)]
#[proc_macro]
pub fn select_priv_count(input: TokenStream) -> TokenStream {
    select::count(input.into()).into()
}

/// Implementation detail of `sim_rt::select!`; not public API.
///
/// `select_priv_variant!(Name (_ _) (payload))` is `Name::_2(payload)`, in
/// expression or pattern position.
#[doc(hidden)]
#[proc_macro]
pub fn select_priv_variant(input: TokenStream) -> TokenStream {
    select::variant(input.into()).into()
}

/// Implementation detail of `sim_rt::select!` and `sim_rt::join!`; not
/// public API.
///
/// `select_priv_cons!((path) [a] [b])` is
/// `path::Cons::new(a, path::Cons::new(b, path::Nil))`.
#[doc(hidden)]
#[proc_macro]
pub fn select_priv_cons(input: TokenStream) -> TokenStream {
    select::cons(input.into()).into()
}

/// Implementation detail of `sim_rt::select!`; not public API.
///
/// `select_priv_nth!((path) (list) _ _)` is
/// `path::Cons::head(path::Cons::tail(path::Cons::tail(list)))`.
#[doc(hidden)]
#[proc_macro]
pub fn select_priv_nth(input: TokenStream) -> TokenStream {
    select::nth(input.into()).into()
}
