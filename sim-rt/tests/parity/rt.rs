// Included by tests/parity.rs twice: once with `tokio` = tokio, once with
// `tokio` = sim_rt. Only tokio paths may appear here. The runtime, task,
// signal and process items added for the whole-graph mode.

/// Every item pinned to tokio's signature.
#[allow(dead_code, clippy::type_complexity, unused_must_use)]
fn rt_signatures() {
    use std::future::{Future, Ready};
    use std::task::{Context, Poll};
    use std::time::Duration;
    use tokio::runtime::{Builder, Handle, Id, LocalOptions, LocalRuntime, Runtime, RuntimeMetrics};
    use tokio::task::coop;

    fn future_of<T, F: Future<Output = T>>(_: F) {}
    type R = Ready<u8>;

    // task::coop and its re-exports.
    future_of::<(), _>(coop::consume_budget());
    future_of::<(), _>(tokio::task::consume_budget());
    let _: fn(R) -> coop::Unconstrained<R> = coop::unconstrained::<R>;
    let _: fn(R) -> tokio::task::Unconstrained<R> = tokio::task::unconstrained::<R>;
    let _: fn(R) -> coop::Coop<R> = coop::cooperative::<R>;
    let _: fn() -> bool = coop::has_budget_remaining;
    let _: for<'a, 'b> fn(&'a mut Context<'b>) -> Poll<coop::RestoreOnPending> = coop::poll_proceed;
    let _: fn(&coop::RestoreOnPending) = coop::RestoreOnPending::made_progress;
    let _: fn(fn() -> u8) -> u8 = tokio::task::block_in_place::<fn() -> u8, u8>;
    let _: fn(&tokio::task::LocalSet) -> Id = tokio::task::LocalSet::id;
    fn unconstrained_is_future<F: Future<Output = u8> + Unpin>(_: F) {}
    unconstrained_is_future(coop::unconstrained(std::future::ready(1u8)));

    // runtime
    fn named(b: &mut Builder) -> &mut Builder {
        b.name("x").name(String::from("y"))
    }
    let _: fn(&mut Builder, fn() -> String) -> &mut Builder = Builder::thread_name_fn::<fn() -> String>;
    let _: fn(&mut Builder, fn()) -> &mut Builder = Builder::on_thread_start::<fn()>;
    let _: fn(&mut Builder, fn()) -> &mut Builder = Builder::on_thread_stop::<fn()>;
    let _: fn(&mut Builder, fn()) -> &mut Builder = Builder::on_thread_park::<fn()>;
    let _: fn(&mut Builder, fn()) -> &mut Builder = Builder::on_thread_unpark::<fn()>;
    let _: fn(&mut Builder, usize) -> &mut Builder = Builder::max_io_events_per_tick;
    let _: fn(&mut Builder, usize) -> &mut Builder = Builder::max_io_events_per_busy_tick;
    let _: fn(&mut Builder, LocalOptions) -> std::io::Result<LocalRuntime> = Builder::build_local;
    let _: fn(&Runtime) -> RuntimeMetrics = Runtime::metrics;
    let _: fn(&Handle) -> RuntimeMetrics = Handle::metrics;
    let _: fn(&Handle) -> Id = Handle::id;
    let _: fn(&Handle) -> Option<&str> = Handle::name;
    let _: fn(&RuntimeMetrics) -> usize = RuntimeMetrics::num_workers;
    let _: fn(&RuntimeMetrics) -> usize = RuntimeMetrics::num_alive_tasks;
    let _: fn(&RuntimeMetrics) -> usize = RuntimeMetrics::global_queue_depth;
    let _: fn(&RuntimeMetrics, usize) -> u64 = RuntimeMetrics::worker_park_count;
    let _: fn(&RuntimeMetrics, usize) -> u64 = RuntimeMetrics::worker_park_unpark_count;
    let _: fn(&RuntimeMetrics, usize) -> Duration = RuntimeMetrics::worker_total_busy_duration;
    let _: fn(&std::io::Error) -> bool = tokio::runtime::is_rt_shutdown_err;
    let _: fn() -> Option<usize> = tokio::runtime::worker_index;
    fn id_traits<T: Clone + Copy + std::fmt::Debug + std::fmt::Display + Eq + std::hash::Hash>() {}
    id_traits::<Id>();
    fn clone_debug<T: Clone + std::fmt::Debug>() {}
    clone_debug::<RuntimeMetrics>();
    fn debug_default<T: std::fmt::Debug + Default>() {}
    debug_default::<LocalOptions>();
    let _: fn() -> std::io::Result<LocalRuntime> = LocalRuntime::new;
    let _: fn(&LocalRuntime) -> &Handle = LocalRuntime::handle;
    let _: fn(&LocalRuntime, R) -> tokio::task::JoinHandle<u8> = LocalRuntime::spawn_local::<R>;
    let _: fn(&LocalRuntime, fn() -> u8) -> tokio::task::JoinHandle<u8> =
        LocalRuntime::spawn_blocking::<fn() -> u8, u8>;
    let _: fn(&LocalRuntime, R) -> u8 = LocalRuntime::block_on::<R>;
    let _: fn(&LocalRuntime) -> tokio::runtime::EnterGuard<'_> = LocalRuntime::enter;
    let _: fn(LocalRuntime, Duration) = LocalRuntime::shutdown_timeout;
    let _: fn(LocalRuntime) = LocalRuntime::shutdown_background;
    let _: fn(&LocalRuntime) -> RuntimeMetrics = LocalRuntime::metrics;

    // signal::unix
    use tokio::signal::unix::{signal, Signal, SignalKind};
    let _: fn(SignalKind) -> std::io::Result<Signal> = signal;
    fn recv_future(s: &mut Signal) {
        future_of::<Option<()>, _>(s.recv());
    }
    let _: for<'a, 'b> fn(&mut Signal, &'a mut Context<'b>) -> Poll<Option<()>> = Signal::poll_recv;
    for kind in [
        SignalKind::alarm(),
        SignalKind::child(),
        SignalKind::hangup(),
        SignalKind::interrupt(),
        SignalKind::io(),
        SignalKind::pipe(),
        SignalKind::quit(),
        SignalKind::terminate(),
        SignalKind::user_defined1(),
        SignalKind::user_defined2(),
        SignalKind::window_change(),
    ] {
        let raw: std::os::raw::c_int = kind.as_raw_value();
        assert_eq!(SignalKind::from_raw(raw), kind);
        assert_eq!(SignalKind::from(raw), kind);
        assert_eq!(std::os::raw::c_int::from(kind), raw);
    }
    fn kind_traits<T: Clone + Copy + std::fmt::Debug + Eq + std::hash::Hash>() {}
    kind_traits::<SignalKind>();

    // process
    use tokio::process::{Child, ChildStderr, ChildStdin, ChildStdout, Command};
    let _: fn(&'static str) -> Command = Command::new::<&str>;
    let _: for<'a> fn(&'a mut Command, &'static str) -> &'a mut Command = Command::arg::<&str>;
    let _: for<'a> fn(&'a mut Command, [&'static str; 1]) -> &'a mut Command = Command::args::<[&str; 1], &str>;
    let _: for<'a> fn(&'a mut Command, &'static str, &'static str) -> &'a mut Command = Command::env::<&str, &str>;
    let _: for<'a> fn(&'a mut Command, [(&'static str, &'static str); 1]) -> &'a mut Command =
        Command::envs::<[(&str, &str); 1], &str, &str>;
    let _: for<'a> fn(&'a mut Command, &'static str) -> &'a mut Command = Command::env_remove::<&str>;
    let _: fn(&mut Command) -> &mut Command = Command::env_clear;
    let _: for<'a> fn(&'a mut Command, &'static str) -> &'a mut Command = Command::current_dir::<&str>;
    let _: for<'a> fn(&'a mut Command, std::process::Stdio) -> &'a mut Command = Command::stdin::<std::process::Stdio>;
    let _: for<'a> fn(&'a mut Command, std::process::Stdio) -> &'a mut Command = Command::stdout::<std::process::Stdio>;
    let _: for<'a> fn(&'a mut Command, std::process::Stdio) -> &'a mut Command = Command::stderr::<std::process::Stdio>;
    let _: for<'a> fn(&'a mut Command, bool) -> &'a mut Command = Command::kill_on_drop;
    let _: fn(&Command) -> bool = Command::get_kill_on_drop;
    let _: for<'a> fn(&'a mut Command, u32) -> &'a mut Command = Command::uid;
    let _: for<'a> fn(&'a mut Command, u32) -> &'a mut Command = Command::gid;
    let _: for<'a> fn(&'a mut Command, &'static str) -> &'a mut Command = Command::arg0::<&str>;
    let _: for<'a> fn(&'a mut Command, i32) -> &'a mut Command = Command::process_group;
    let _: fn(&Command) -> &std::process::Command = Command::as_std;
    let _: fn(&mut Command) -> &mut std::process::Command = Command::as_std_mut;
    let _: fn(Command) -> std::process::Command = Command::into_std;
    let _: fn(std::process::Command) -> Command = Command::from;
    let _: fn(&mut Command) -> std::io::Result<Child> = Command::spawn;
    fn command_futures(c: &mut Command) {
        future_of::<std::io::Result<std::process::ExitStatus>, _>(c.status());
        future_of::<std::io::Result<std::process::Output>, _>(c.output());
    }
    fn child_api(mut c: Child) {
        let _: Option<u32> = c.id();
        let _: std::io::Result<()> = c.start_kill();
        let _: std::io::Result<Option<std::process::ExitStatus>> = c.try_wait();
        let _: Option<ChildStdin> = c.stdin.take();
        let _: Option<ChildStdout> = c.stdout.take();
        let _: Option<ChildStderr> = c.stderr.take();
        future_of::<std::io::Result<()>, _>(c.kill());
        future_of::<std::io::Result<std::process::ExitStatus>, _>(c.wait());
        future_of::<std::io::Result<std::process::Output>, _>(c.wait_with_output());
    }
    let _: fn(std::process::ChildStdin) -> std::io::Result<ChildStdin> = ChildStdin::from_std;
    let _: fn(std::process::ChildStdout) -> std::io::Result<ChildStdout> = ChildStdout::from_std;
    let _: fn(std::process::ChildStderr) -> std::io::Result<ChildStderr> = ChildStderr::from_std;
    let _: fn(ChildStdin) -> std::io::Result<std::os::fd::OwnedFd> = ChildStdin::into_owned_fd;
    fn pipes<I, O, E>()
    where
        I: tokio::io::AsyncWrite + std::os::fd::AsFd + std::os::fd::AsRawFd + std::fmt::Debug + TryInto<std::process::Stdio>,
        O: tokio::io::AsyncRead + std::os::fd::AsFd + std::os::fd::AsRawFd + std::fmt::Debug + TryInto<std::process::Stdio>,
        E: tokio::io::AsyncRead + std::os::fd::AsFd + std::os::fd::AsRawFd + std::fmt::Debug,
    {
    }
    pipes::<ChildStdin, ChildStdout, ChildStderr>();
    fn debug<T: std::fmt::Debug>() {}
    debug::<Child>();
    debug::<Command>();
}
