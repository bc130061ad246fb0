//! `#[sim_rt::test]` and `#[sim_rt::main]`: the forms tokio accepts, run on
//! a simulation.
//!
//! Compile errors are not tested here (no trybuild, to keep CI fast); the
//! macros' own unit tests (`sim-rt-macros/src/entry.rs`) check each message.
//! They are tokio's, with `sim_rt::` in place of `tokio::`:
//!
//! - `#[sim_rt::main] fn main() {}` and, under the whole-graph swap,
//!   `#[tokio::test] fn f() {}`: "the `async` keyword is missing from the
//!   function declaration" (`#[sim_rt::test]` takes a synchronous `fn`:
//!   see `macros_test_sync.rs`)
//! - `#[sim_rt::test] async fn f(x: u32) {}`: "the test function cannot accept
//!   arguments" (tokio leaves this one to libtest)
//! - `#[sim_rt::main] async fn main(x: u32) {}`: "the main function cannot
//!   accept arguments"
//! - `#[sim_rt::test] #[test] async fn f() {}`: "second test attribute is
//!   supplied, consider removing or changing the order of your test
//!   attributes"
//! - `#[sim_rt::test(worker_threads = 2)]`: "The `worker_threads` option
//!   requires the `multi_thread` runtime flavor. Use
//!   `#[sim_rt::test(flavor = "multi_thread")]`"
//! - `start_paused` or `unhandled_panic` with `flavor = "multi_thread"` (the
//!   default of `main`): "The `start_paused` option requires the
//!   `current_thread` runtime flavor. ..."
//! - `#[sim_rt::test(foo = 1)]`: "Unknown attribute foo is specified;
//!   expected one of: `flavor`, `worker_threads`, `start_paused`, `crate`,
//!   `unhandled_panic`, `name`."
//! - `flavor = "x"`: "No such runtime flavor `x`. The runtime flavors are
//!   `current_thread`, `local`, and `multi_thread`."

// The swap the design relies on: every `tokio::` path, `#[tokio::test]`
// included, resolves to `sim_rt`.
extern crate sim_rt as tokio;

use std::error::Error;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use sim_rt::runtime::{Handle, RuntimeFlavor};
use sim_rt::time::{sleep, Instant};

/// Whether a sleep of `d` took `elapsed`: at least `d`, and within the
/// millisecond tick its deadline is rounded up to (the polls that armed
/// and read it take simulated time).
fn slept(elapsed: Duration, d: Duration) -> bool {
    elapsed >= d && elapsed <= d + Duration::from_millis(1)
}

#[sim_rt::test]
async fn plain() {
    let start = Instant::now();
    sleep(Duration::from_secs(3)).await;
    assert!(slept(start.elapsed(), Duration::from_secs(3)));
    assert_eq!(
        Handle::current().runtime_flavor(),
        RuntimeFlavor::CurrentThread
    );
}

/// tokio's `name` argument names the runtime, as `Handle::name` reads it.
#[sim_rt::test(name = "named-runtime")]
async fn the_name_argument_names_the_runtime() {
    assert_eq!(
        sim_rt::runtime::Handle::current().name(),
        Some("named-runtime")
    );
}

#[sim_rt::test(start_paused = true)]
async fn start_paused() {
    let start = Instant::now();
    sleep(Duration::from_secs(3600)).await;
    assert_eq!(start.elapsed(), Duration::from_secs(3600));
}

#[sim_rt::test(flavor = "current_thread", start_paused = false)]
async fn current_thread_not_paused() {
    assert_eq!(
        Handle::current().runtime_flavor(),
        RuntimeFlavor::CurrentThread
    );
}

#[sim_rt::test(flavor = "multi_thread", worker_threads = 4)]
async fn multi_thread_with_worker_threads() {
    assert_eq!(
        Handle::current().runtime_flavor(),
        RuntimeFlavor::MultiThread
    );
    let task = sim_rt::spawn(async {
        sleep(Duration::from_millis(5)).await;
        7
    });
    assert_eq!(task.await.unwrap(), 7);
}

#[sim_rt::test(flavor = "multi_thread")]
async fn multi_thread() {
    assert_eq!(
        Handle::current().runtime_flavor(),
        RuntimeFlavor::MultiThread
    );
}

/// `local` is tokio's `LocalRuntime`; a simulation is single-threaded, so it
/// is a current-thread runtime.
#[sim_rt::test(flavor = "local")]
async fn local() {
    assert_eq!(
        Handle::current().runtime_flavor(),
        RuntimeFlavor::CurrentThread
    );
}

#[sim_rt::test]
async fn returns_a_result() -> Result<(), Box<dyn Error>> {
    let n: u32 = "5".parse()?;
    sleep(Duration::from_millis(n.into())).await;
    Ok(())
}

#[sim_rt::test]
async fn returns_an_io_result() -> std::io::Result<()> {
    let n = std::io::Result::Ok(3)?;
    assert_eq!(n, 3);
    Ok(())
}

#[sim_rt::test]
#[should_panic(expected = "boom")]
async fn should_panic() {
    sleep(Duration::from_millis(1)).await;
    panic!("boom");
}

#[sim_rt::test]
#[ignore = "shows that #[ignore] is kept: `cargo test` lists this test as ignored"]
async fn ignored() {
    sleep(Duration::from_millis(1)).await;
}

#[sim_rt::test(unhandled_panic = "ignore")]
async fn unhandled_panic_ignore() {
    let task = sim_rt::spawn(async { panic!("inside a task") });
    assert!(task.await.unwrap_err().is_panic());
}

#[sim_rt::test(flavor = "current_thread", unhandled_panic = "shutdown_runtime")]
#[should_panic]
async fn unhandled_panic_shutdown_runtime() {
    let _task = sim_rt::spawn(async { panic!("inside a task") });
    sleep(Duration::from_secs(1)).await;
}

/// Doc comments and inner attributes are kept.
#[sim_rt::test(crate = "sim_rt", name = "ignored by the simulation")]
async fn crate_and_name() {
    #![allow(clippy::bool_assert_comparison)]
    assert_eq!(true, true);
}

#[tokio::test]
async fn through_the_tokio_alias() {
    tokio::time::sleep(Duration::from_millis(1)).await;
}

#[tokio::test(crate = "tokio", flavor = "multi_thread", worker_threads = 2)]
async fn through_the_tokio_alias_with_crate() {
    tokio::time::sleep(Duration::from_millis(1)).await;
}

#[sim_rt::test]
async fn body_returns_early() {
    if Instant::now().elapsed() == Duration::ZERO {
        return;
    }
    unreachable!();
}

#[test]
fn main_on_a_nested_fn() {
    #[sim_rt::main]
    async fn main() -> Duration {
        let start = Instant::now();
        sleep(Duration::from_secs(2)).await;
        start.elapsed()
    }
    let first = main();
    assert!(slept(first, Duration::from_secs(2)), "{first:?}");
    // Each call is a fresh simulation.
    assert_eq!(main(), first);
}

#[test]
fn main_with_flavor_and_fallible_body() {
    #[sim_rt::main(flavor = "current_thread", start_paused = true)]
    async fn main() -> Result<u32, Box<dyn Error>> {
        assert_eq!(
            Handle::current().runtime_flavor(),
            RuntimeFlavor::CurrentThread
        );
        let n: u32 = "12".parse()?;
        Ok(n)
    }
    assert_eq!(main().unwrap(), 12);

    #[sim_rt::main]
    async fn fails() -> Result<u32, Box<dyn Error>> {
        let n: u32 = "x".parse()?;
        Ok(n)
    }
    assert!(fails().is_err());
}

#[test]
fn main_on_a_fn_with_arguments() {
    // Arguments that are not `Copy`: the body is built once and run once.
    #[sim_rt::main(flavor = "current_thread", start_paused = true)]
    async fn run(label: String, delay: Duration) -> String {
        let start = Instant::now();
        sleep(delay).await;
        format!("{label} after {:?}", start.elapsed())
    }
    assert_eq!(run("done".into(), Duration::from_secs(1)), "done after 1s");

    // `Copy` arguments (primitives, shared references): the body can be
    // built again, for the determinism check.
    #[sim_rt::main(flavor = "current_thread")]
    async fn add(mut a: u64, b: &u64, (c, d): (u8, [bool; 1])) -> u64 {
        sleep(Duration::from_millis(a)).await;
        a += *b + u64::from(c) + u64::from(d[0]);
        a
    }
    assert_eq!(add(1, &2, (3, [true])), 7);
}

#[test]
fn main_runs_its_body_on_each_call() {
    static RUNS: AtomicU32 = AtomicU32::new(0);
    #[sim_rt::main(flavor = "multi_thread", worker_threads = 1)]
    async fn count() {
        RUNS.fetch_add(1, Ordering::SeqCst);
    }
    count();
    count();
    // Twice as many under SIM_CHECK_DETERMINISM=1, which runs each body twice.
    assert!(matches!(RUNS.load(Ordering::SeqCst), 2 | 4));
}

struct Service {
    delay: Duration,
}

impl Service {
    #[sim_rt::main(flavor = "current_thread", start_paused = true)]
    async fn wait(&self) -> Duration {
        let start = Instant::now();
        sleep(self.delay).await;
        start.elapsed()
    }
}

#[test]
fn main_on_a_method() {
    let service = Service {
        delay: Duration::from_millis(250),
    };
    assert_eq!(service.wait(), Duration::from_millis(250));
}
