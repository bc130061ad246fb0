//! Controls that exist only in a simulation: hosts, signals, data choices.
//!
//! These have no tokio counterpart; test code uses them to set up the world
//! and to inject events. Code meant to also run on tokio should call them
//! only from `#[cfg(sim)]` test code.

use std::fmt::Debug;
use std::future::Future;
use std::time::Duration;

use crate::runtime::context;
use crate::runtime::world::Origin;
use crate::scheduler::ChoiceKind;
pub use crate::scheduler::HostId;
use crate::task::JoinHandle;

/// Chooses one of `n` options: user-level nondeterminism resolved by the
/// simulation's scheduler (recorded and replayed; 0 is the option an
/// explorer tries first).
///
/// # Panics
///
/// When `n` is 0, or outside a simulation.
#[track_caller]
pub fn choose(n: usize) -> usize {
    assert!(n > 0, "sim_rt::choose needs at least one option");
    context::with(|w| w.choose(ChoiceKind::User, n))
}

/// The seed of the running simulation.
#[track_caller]
pub fn seed() -> u64 {
    context::with(|w| w.seed())
}

/// Simulated time elapsed since the simulation started.
#[track_caller]
pub fn elapsed() -> Duration {
    context::with(|w| {
        let core = w.core.borrow();
        core.now - core.start
    })
}

/// The host of the running task (the main host outside any task).
#[track_caller]
pub fn current_host() -> HostId {
    context::with(|w| {
        w.current()
            .map_or(crate::runtime::world::MAIN_HOST, |c| c.host)
    })
}

/// The name of `host`.
#[track_caller]
pub fn host_name(host: HostId) -> String {
    context::with(|w| w.host_name(host).to_string())
}

/// The host named `name`, if any.
#[track_caller]
pub fn lookup_host(name: &str) -> Option<HostId> {
    context::with(|w| w.host_by_name(name))
}

/// Sends ctrl-c to the host named `name`: every pending
/// [`crate::signal::ctrl_c`] future of that host completes.
///
/// # Panics
///
/// When no host has that name, or outside a simulation.
#[track_caller]
pub fn send_ctrl_c(name: &str) {
    let waiters = context::with(|w| {
        let host = w
            .host_by_name(name)
            .unwrap_or_else(|| panic!("send_ctrl_c: no host named \"{name}\" in this simulation"));
        let mut core = w.core.borrow_mut();
        let h = &mut core.hosts[host.index()];
        h.ctrl_c += 1;
        std::mem::take(&mut h.ctrl_c_waiters)
    });
    for w in waiters {
        w.wake();
    }
}

/// The cargo command that re-runs the current test alone, for reproduction
/// lines: `cargo test -p <package> --test <target> <test name> -- --exact`.
///
/// The test name is the running thread's (libtest names each test's thread
/// after the test), the package comes from `CARGO_PKG_NAME` (set by cargo when
/// it runs a test), and the target from the test executable's name. Parts
/// that cannot be known are left out; outside a test (a binary), it is
/// `cargo run`.
pub fn cargo_test_command() -> String {
    let Some(test) = std::thread::current()
        .name()
        .filter(|n| *n != "main")
        .map(str::to_string)
    else {
        return cargo_run_command();
    };
    let mut cmd = String::from("cargo test");
    if let Ok(pkg) = std::env::var("CARGO_PKG_NAME") {
        cmd.push_str(&format!(" -p {pkg}"));
        let target = std::env::current_exe().ok().and_then(|exe| {
            let stem = exe.file_stem()?.to_str()?.to_string();
            // `<target>-<16 hex digits>` as cargo names test executables.
            let (name, hash) = stem.rsplit_once('-')?;
            (hash.len() == 16 && hash.bytes().all(|b| b.is_ascii_hexdigit()))
                .then(|| name.to_string())
        });
        match target {
            Some(t) if t != pkg.replace('-', "_") => cmd.push_str(&format!(" --test {t}")),
            _ => {}
        }
    }
    cmd.push_str(&format!(" {test} -- --exact"));
    cmd
}

/// `cargo run [--release] -p <package> [--example <name> | --bin <name>]`
/// for the running executable, as far as it can be told.
fn cargo_run_command() -> String {
    let mut cmd = String::from("cargo run");
    let exe = std::env::current_exe().ok();
    let in_dir = |name: &str| {
        exe.as_ref().is_some_and(|e| {
            e.ancestors()
                .any(|a| a.file_name().is_some_and(|f| f == name))
        })
    };
    if in_dir("release") {
        cmd.push_str(" --release");
    }
    if let Ok(pkg) = std::env::var("CARGO_PKG_NAME") {
        cmd.push_str(&format!(" -p {pkg}"));
    }
    if let Some(stem) = exe
        .as_ref()
        .and_then(|e| e.file_stem()?.to_str().map(str::to_string))
    {
        let parent_is_examples = exe
            .as_ref()
            .and_then(|e| e.parent()?.file_name())
            .is_some_and(|f| f == "examples");
        if parent_is_examples {
            cmd.push_str(&format!(" --example {stem}"));
        } else {
            cmd.push_str(&format!(" --bin {stem}"));
        }
    }
    cmd
}

/// Starts describing a new host named `name`; see [`HostBuilder::start`].
pub fn host(name: impl Into<String>) -> HostBuilder {
    HostBuilder { name: name.into() }
}

/// A host about to be created.
#[derive(Debug)]
#[must_use = "a host is created only by `start`"]
pub struct HostBuilder {
    name: String,
}

/// What a host's entry point may return: `()`, or a `Result` whose error
/// fails the simulation.
pub trait HostOutput: 'static {
    /// `Err(message)` when the entry point failed.
    fn into_result(self) -> Result<(), String>;
}

impl HostOutput for () {
    fn into_result(self) -> Result<(), String> {
        Ok(())
    }
}

impl<E: Debug + 'static> HostOutput for Result<(), E> {
    fn into_result(self) -> Result<(), String> {
        self.map_err(|e| format!("{e:?}"))
    }
}

impl HostBuilder {
    /// Creates the host and spawns its entry point on it. The entry point is
    /// a function so the simulation can restart the host.
    ///
    /// An entry point that returns an error fails the simulation with a
    /// report naming the host.
    ///
    /// # Panics
    ///
    /// When a host of that name exists, or outside a simulation.
    #[track_caller]
    pub fn start<F, Fut>(self, entry: F) -> HostId
    where
        F: Fn() -> Fut + 'static,
        Fut: Future + 'static,
        Fut::Output: HostOutput,
    {
        context::with(|w| {
            let host = w.add_host(&self.name);
            let fut = entry();
            let handle: JoinHandle<()> = JoinHandle::spawn_on(
                w,
                async move {
                    if let Err(message) = fut.await.into_result() {
                        context::with(|w| w.fail_host(message));
                    }
                },
                Some(host),
                Origin::HostEntry,
            );
            drop(handle);
            host
        })
    }
}
