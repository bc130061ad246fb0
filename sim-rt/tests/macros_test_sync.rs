//! `#[sim_rt::test]` on a synchronous `fn`, reached as `#[test]` through
//! `use sim_rt::test;`: every test of this file, the ones macros write
//! included, runs inside a simulation, its `std::fs` calls on the host's
//! simulated disk.
//!
//! `props!` writes tests the way `quickcheck!` does (a `macro_rules!`
//! writing `#[test]` at its call site): they reach the imported `test`. A
//! macro that writes `#[::core::prelude::v1::test]` (test_case does for a
//! synchronous case) is not reached; the last test here shows the form
//! that is. In a module, `test` is imported by name: a glob import of it
//! (`use super::*;`) is ambiguous with the prelude's to rustc (E0659).
#![cfg(all(feature = "intercept", target_os = "linux", target_env = "gnu"))]

use std::path::PathBuf;

use sim_rt::test;

/// A path under the real temporary directory, unique to this process and
/// test; real files are the simulated disk's read-only lower layer, so a
/// file written here inside a simulation must not appear on the real disk.
fn real_path(test: &str) -> PathBuf {
    std::env::temp_dir().join(format!(
        "sim-rt-macros-test-sync-{}-{test}",
        std::process::id()
    ))
}

/// Panics outside a simulation.
fn in_simulation() -> u64 {
    sim_rt::sim::seed()
}

#[test]
fn a_synchronous_test_runs_in_a_simulation() {
    in_simulation();
    let path = real_path("writes");
    std::fs::write(&path, b"simulated").unwrap();
    assert_eq!(std::fs::read(&path).unwrap(), b"simulated");
}

/// The test above, called as a function outside any simulation (this test
/// has the built-in attribute by its full path): it runs in a simulation of
/// its own, and after it nothing of its file is on the real disk.
#[::core::prelude::v1::test]
fn nothing_a_synchronous_test_writes_reaches_the_real_disk() {
    a_synchronous_test_runs_in_a_simulation();
    assert!(!real_path("writes").exists());
    let outside = std::panic::catch_unwind(in_simulation);
    assert!(outside.is_err(), "this test itself is not in a simulation");
}

#[test]
fn a_result_is_returned() -> std::io::Result<()> {
    in_simulation();
    std::fs::create_dir_all("/data")?;
    std::fs::write("/data/x", b"1")?;
    let missing = std::fs::read("/data/y");
    assert_eq!(
        missing.unwrap_err().kind(),
        std::io::ErrorKind::NotFound,
        "a fresh disk for each test"
    );
    Ok(())
}

#[test]
#[should_panic(expected = "planted")]
fn should_panic_is_kept() {
    in_simulation();
    panic!("planted");
}

#[test]
#[ignore = "kept ignored by the attribute"]
fn ignore_is_kept() {
    panic!("an ignored test ran");
}

/// `quickcheck!`'s shape: `#[test]` written by a `macro_rules!` resolves
/// where the macro is called.
macro_rules! props {
    ($(fn $name:ident() $body:block)*) => {
        $(
            #[test]
            fn $name() {
                fn prop() $body
                prop()
            }
        )*
    };
}

props! {
    fn a_macro_rules_test_runs_in_a_simulation() {
        in_simulation();
        std::fs::write("/prop", b"x").unwrap();
    }
}

/// A module of tests imports `test` by name: through a glob (`use
/// super::*;`) rustc finds it ambiguous with the prelude's (E0659).
mod cases {
    use super::{in_simulation, test};

    #[test]
    fn a_test_in_a_module_that_imports_the_parents_names_runs_in_a_simulation() {
        in_simulation();
        assert!(!std::path::Path::new("/prop").exists());
    }
}

/// What does not reach the imported `test`, made explicit: a test case
/// written as `async fn` with `#[sim_rt::test]` under it (what test_case
/// documents for `#[tokio::test]`) is the form that runs in a simulation.
mod async_case {
    use super::*;

    async fn case(n: u64) {
        sim_rt::task::yield_now().await;
        std::fs::write(format!("/case-{n}"), b"").unwrap();
    }

    #[sim_rt::test]
    async fn one() {
        in_simulation();
        case(1).await;
    }
}
