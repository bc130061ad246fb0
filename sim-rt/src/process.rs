//! Simulated [`tokio::process`](https://docs.rs/tokio/1/tokio/process/index.html): the API exists so that code using it
//! builds, but a simulation cannot start real processes.
//!
//! A real child process would run outside the simulation's control (real
//! time, real I/O, its own threads), so nothing it does could be replayed.
//! [`Command`] keeps its configuration (it wraps
//! [`std::process::Command`]), and every call that would start a process
//! returns an `io::Error` of kind [`Unsupported`](std::io::ErrorKind::Unsupported)
//! that says so and what to do instead. [`Child`] and the pipe types can
//! therefore never exist; their methods are total over an uninhabited
//! field.

use std::ffi::OsStr;
use std::fmt;
use std::future::Future;
use std::io;
use std::path::Path;
use std::pin::Pin;
use std::process::{Command as StdCommand, ExitStatus, Output, Stdio};
use std::task::{Context, Poll};

use crate::io::{AsyncRead, AsyncWrite, ReadBuf};

/// No value: the type of what a simulation cannot make.
#[derive(Debug, Clone, Copy)]
enum Never {}

fn unsupported(what: &str) -> io::Error {
    io::Error::new(
        io::ErrorKind::Unsupported,
        format!(
            "{what}: processes are not simulated by sim-rt (a real child process would run \
             outside the simulation, so the run could not be reproduced). Simulate the \
             program as a host instead (sim_rt::sim::host / tokio::sim::host), or run this \
             code outside the simulation"
        ),
    )
}

/// Simulated [`tokio::process::Command`](https://docs.rs/tokio/1/tokio/process/struct.Command.html): a process builder whose
/// configuration methods work and whose `spawn`, `status` and `output` fail.
///
/// # Differences from tokio
///
/// [`spawn`](Self::spawn), [`status`](Self::status) and
/// [`output`](Self::output) return an error of kind `Unsupported`.
pub struct Command {
    std: StdCommand,
    kill_on_drop: bool,
}

impl fmt::Debug for Command {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.std.fmt(f)
    }
}

impl From<StdCommand> for Command {
    fn from(std: StdCommand) -> Command {
        Command {
            std,
            kill_on_drop: false,
        }
    }
}

impl Command {
    /// Simulated [`tokio::process::Command::new`](https://docs.rs/tokio/1/tokio/process/struct.Command.html#method.new).
    pub fn new<S: AsRef<OsStr>>(program: S) -> Command {
        Command::from(StdCommand::new(program))
    }

    /// Simulated [`tokio::process::Command::as_std`](https://docs.rs/tokio/1/tokio/process/struct.Command.html#method.as_std).
    pub fn as_std(&self) -> &StdCommand {
        &self.std
    }

    /// Simulated [`tokio::process::Command::as_std_mut`](https://docs.rs/tokio/1/tokio/process/struct.Command.html#method.as_std_mut).
    pub fn as_std_mut(&mut self) -> &mut StdCommand {
        &mut self.std
    }

    /// Simulated [`tokio::process::Command::into_std`](https://docs.rs/tokio/1/tokio/process/struct.Command.html#method.into_std).
    pub fn into_std(self) -> StdCommand {
        self.std
    }

    /// Simulated [`tokio::process::Command::arg`](https://docs.rs/tokio/1/tokio/process/struct.Command.html#method.arg).
    pub fn arg<S: AsRef<OsStr>>(&mut self, arg: S) -> &mut Command {
        self.std.arg(arg);
        self
    }

    /// Simulated [`tokio::process::Command::args`](https://docs.rs/tokio/1/tokio/process/struct.Command.html#method.args).
    pub fn args<I, S>(&mut self, args: I) -> &mut Command
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        self.std.args(args);
        self
    }

    /// Simulated [`tokio::process::Command::env`](https://docs.rs/tokio/1/tokio/process/struct.Command.html#method.env).
    pub fn env<K, V>(&mut self, key: K, val: V) -> &mut Command
    where
        K: AsRef<OsStr>,
        V: AsRef<OsStr>,
    {
        self.std.env(key, val);
        self
    }

    /// Simulated [`tokio::process::Command::envs`](https://docs.rs/tokio/1/tokio/process/struct.Command.html#method.envs).
    pub fn envs<I, K, V>(&mut self, vars: I) -> &mut Command
    where
        I: IntoIterator<Item = (K, V)>,
        K: AsRef<OsStr>,
        V: AsRef<OsStr>,
    {
        self.std.envs(vars);
        self
    }

    /// Simulated [`tokio::process::Command::env_remove`](https://docs.rs/tokio/1/tokio/process/struct.Command.html#method.env_remove).
    pub fn env_remove<K: AsRef<OsStr>>(&mut self, key: K) -> &mut Command {
        self.std.env_remove(key);
        self
    }

    /// Simulated [`tokio::process::Command::env_clear`](https://docs.rs/tokio/1/tokio/process/struct.Command.html#method.env_clear).
    pub fn env_clear(&mut self) -> &mut Command {
        self.std.env_clear();
        self
    }

    /// Simulated [`tokio::process::Command::current_dir`](https://docs.rs/tokio/1/tokio/process/struct.Command.html#method.current_dir).
    pub fn current_dir<P: AsRef<Path>>(&mut self, dir: P) -> &mut Command {
        self.std.current_dir(dir);
        self
    }

    /// Simulated [`tokio::process::Command::stdin`](https://docs.rs/tokio/1/tokio/process/struct.Command.html#method.stdin).
    pub fn stdin<T: Into<Stdio>>(&mut self, cfg: T) -> &mut Command {
        self.std.stdin(cfg);
        self
    }

    /// Simulated [`tokio::process::Command::stdout`](https://docs.rs/tokio/1/tokio/process/struct.Command.html#method.stdout).
    pub fn stdout<T: Into<Stdio>>(&mut self, cfg: T) -> &mut Command {
        self.std.stdout(cfg);
        self
    }

    /// Simulated [`tokio::process::Command::stderr`](https://docs.rs/tokio/1/tokio/process/struct.Command.html#method.stderr).
    pub fn stderr<T: Into<Stdio>>(&mut self, cfg: T) -> &mut Command {
        self.std.stderr(cfg);
        self
    }

    /// Simulated [`tokio::process::Command::kill_on_drop`](https://docs.rs/tokio/1/tokio/process/struct.Command.html#method.kill_on_drop).
    pub fn kill_on_drop(&mut self, kill_on_drop: bool) -> &mut Command {
        self.kill_on_drop = kill_on_drop;
        self
    }

    /// Simulated [`tokio::process::Command::get_kill_on_drop`](https://docs.rs/tokio/1/tokio/process/struct.Command.html#method.get_kill_on_drop).
    pub fn get_kill_on_drop(&self) -> bool {
        self.kill_on_drop
    }

    /// Simulated [`tokio::process::Command::uid`](https://docs.rs/tokio/1/tokio/process/struct.Command.html#method.uid).
    #[cfg(unix)]
    pub fn uid(&mut self, id: u32) -> &mut Command {
        std::os::unix::process::CommandExt::uid(&mut self.std, id);
        self
    }

    /// Simulated [`tokio::process::Command::gid`](https://docs.rs/tokio/1/tokio/process/struct.Command.html#method.gid).
    #[cfg(unix)]
    pub fn gid(&mut self, id: u32) -> &mut Command {
        std::os::unix::process::CommandExt::gid(&mut self.std, id);
        self
    }

    /// Simulated [`tokio::process::Command::arg0`](https://docs.rs/tokio/1/tokio/process/struct.Command.html#method.arg0).
    #[cfg(unix)]
    pub fn arg0<S>(&mut self, arg: S) -> &mut Command
    where
        S: AsRef<OsStr>,
    {
        std::os::unix::process::CommandExt::arg0(&mut self.std, arg);
        self
    }

    /// Simulated [`tokio::process::Command::pre_exec`](https://docs.rs/tokio/1/tokio/process/struct.Command.html#method.pre_exec): the closure is
    /// dropped, since no process is ever started.
    ///
    /// # Safety
    ///
    /// The contract of [`std::os::unix::process::CommandExt::pre_exec`];
    /// here the closure never runs.
    #[cfg(unix)]
    // An `unsafe fn` only because tokio's is: it has no unsafe body.
    #[allow(unsafe_code)]
    pub unsafe fn pre_exec<F>(&mut self, f: F) -> &mut Command
    where
        F: FnMut() -> io::Result<()> + Send + Sync + 'static,
    {
        drop(f);
        self
    }

    /// Simulated [`tokio::process::Command::process_group`](https://docs.rs/tokio/1/tokio/process/struct.Command.html#method.process_group).
    #[cfg(unix)]
    pub fn process_group(&mut self, pgroup: i32) -> &mut Command {
        std::os::unix::process::CommandExt::process_group(&mut self.std, pgroup);
        self
    }

    /// Simulated [`tokio::process::Command::spawn`](https://docs.rs/tokio/1/tokio/process/struct.Command.html#method.spawn).
    ///
    /// # Errors
    ///
    /// Always, with kind `Unsupported`: see the [module docs](self).
    pub fn spawn(&mut self) -> io::Result<Child> {
        Err(unsupported("tokio::process::Command::spawn"))
    }

    /// Simulated [`tokio::process::Command::status`](https://docs.rs/tokio/1/tokio/process/struct.Command.html#method.status).
    ///
    /// # Errors
    ///
    /// Always, with kind `Unsupported`: see the [module docs](self).
    pub fn status(&mut self) -> impl Future<Output = io::Result<ExitStatus>> {
        std::future::ready(Err(unsupported("tokio::process::Command::status")))
    }

    /// Simulated [`tokio::process::Command::output`](https://docs.rs/tokio/1/tokio/process/struct.Command.html#method.output).
    ///
    /// # Errors
    ///
    /// Always, with kind `Unsupported`: see the [module docs](self).
    pub fn output(&mut self) -> impl Future<Output = io::Result<Output>> {
        std::future::ready(Err(unsupported("tokio::process::Command::output")))
    }
}

/// Simulated [`tokio::process::Child`](https://docs.rs/tokio/1/tokio/process/struct.Child.html): never exists in a simulation
/// ([`Command::spawn`] fails), so its methods cannot be called.
///
/// # Differences from tokio
///
/// Cannot be created.
#[derive(Debug)]
pub struct Child {
    /// Simulated `Child::stdin`.
    pub stdin: Option<ChildStdin>,
    /// Simulated `Child::stdout`.
    pub stdout: Option<ChildStdout>,
    /// Simulated `Child::stderr`.
    pub stderr: Option<ChildStderr>,
    never: Never,
}

impl Child {
    /// Simulated [`tokio::process::Child::id`](https://docs.rs/tokio/1/tokio/process/struct.Child.html#method.id).
    pub fn id(&self) -> Option<u32> {
        match self.never {}
    }

    /// Simulated [`tokio::process::Child::start_kill`](https://docs.rs/tokio/1/tokio/process/struct.Child.html#method.start_kill).
    pub fn start_kill(&mut self) -> io::Result<()> {
        match self.never {}
    }

    /// Simulated [`tokio::process::Child::kill`](https://docs.rs/tokio/1/tokio/process/struct.Child.html#method.kill).
    pub async fn kill(&mut self) -> io::Result<()> {
        match self.never {}
    }

    /// Simulated [`tokio::process::Child::wait`](https://docs.rs/tokio/1/tokio/process/struct.Child.html#method.wait).
    pub async fn wait(&mut self) -> io::Result<ExitStatus> {
        match self.never {}
    }

    /// Simulated [`tokio::process::Child::try_wait`](https://docs.rs/tokio/1/tokio/process/struct.Child.html#method.try_wait).
    pub fn try_wait(&mut self) -> io::Result<Option<ExitStatus>> {
        match self.never {}
    }

    /// Simulated [`tokio::process::Child::wait_with_output`](https://docs.rs/tokio/1/tokio/process/struct.Child.html#method.wait_with_output).
    pub async fn wait_with_output(self) -> io::Result<Output> {
        match self.never {}
    }
}

macro_rules! child_pipe {
    ($name:ident, $std:ty, $what:literal) => {
        #[doc = concat!("Simulated [`tokio::process::", stringify!($name), "`](", "https://docs.rs/tokio/1/tokio/process/struct.", stringify!($name), ".html): never exists in a simulation.")]
        ///
        /// # Differences from tokio
        ///
        /// `from_std` fails with kind `Unsupported`, so it cannot be created.
        #[derive(Debug)]
        pub struct $name {
            never: Never,
        }

        impl $name {
            #[doc = concat!("Simulated [`tokio::process::", stringify!($name), "::from_std`](", "https://docs.rs/tokio/1/tokio/process/struct.", stringify!($name), ".html#method.from_std).")]
            ///
            /// # Errors
            ///
            /// Always, with kind `Unsupported`: see the [module docs](self).
            pub fn from_std(inner: $std) -> io::Result<Self> {
                drop(inner);
                Err(unsupported($what))
            }

            #[doc = concat!("Simulated [`tokio::process::", stringify!($name), "::into_owned_fd`](", "https://docs.rs/tokio/1/tokio/process/struct.", stringify!($name), ".html#method.into_owned_fd).")]
            #[cfg(unix)]
            pub fn into_owned_fd(self) -> io::Result<std::os::fd::OwnedFd> {
                match self.never {}
            }
        }

        #[cfg(unix)]
        impl std::os::fd::AsRawFd for $name {
            fn as_raw_fd(&self) -> std::os::fd::RawFd {
                match self.never {}
            }
        }

        #[cfg(unix)]
        impl std::os::fd::AsFd for $name {
            fn as_fd(&self) -> std::os::fd::BorrowedFd<'_> {
                match self.never {}
            }
        }

        impl TryInto<Stdio> for $name {
            type Error = io::Error;

            fn try_into(self) -> Result<Stdio, io::Error> {
                match self.never {}
            }
        }
    };
}

child_pipe!(
    ChildStdin,
    std::process::ChildStdin,
    "tokio::process::ChildStdin::from_std"
);
child_pipe!(
    ChildStdout,
    std::process::ChildStdout,
    "tokio::process::ChildStdout::from_std"
);
child_pipe!(
    ChildStderr,
    std::process::ChildStderr,
    "tokio::process::ChildStderr::from_std"
);

impl AsyncWrite for ChildStdin {
    fn poll_write(self: Pin<&mut Self>, _: &mut Context<'_>, _: &[u8]) -> Poll<io::Result<usize>> {
        match self.never {}
    }

    fn poll_flush(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.never {}
    }

    fn poll_shutdown(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.never {}
    }
}

impl AsyncRead for ChildStdout {
    fn poll_read(
        self: Pin<&mut Self>,
        _: &mut Context<'_>,
        _: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        match self.never {}
    }
}

impl AsyncRead for ChildStderr {
    fn poll_read(
        self: Pin<&mut Self>,
        _: &mut Context<'_>,
        _: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        match self.never {}
    }
}
