//! Simulated [`tokio::runtime::LocalRuntime`](https://docs.rs/tokio/1/tokio/runtime/struct.LocalRuntime.html): a runtime whose tasks need
//! not be `Send`.
//!
//! Every simulation already runs on one thread, so this is a [`Runtime`]
//! under tokio's name and signatures, with `spawn_local` in place of
//! `spawn`.

use std::future::Future;
use std::io;
use std::marker::PhantomData;
use std::panic::Location;
use std::time::Duration;

use super::world::Origin;
use super::{EnterGuard, Handle, Runtime, RuntimeMetrics};
use crate::task::JoinHandle;

/// Simulated [`tokio::runtime::LocalOptions`](https://docs.rs/tokio/1/tokio/runtime/struct.LocalOptions.html): options of a
/// [`LocalRuntime`] (none yet, as in tokio).
///
/// # Differences from tokio
///
/// None.
#[derive(Default, Debug)]
#[non_exhaustive]
pub struct LocalOptions {
    /// `!Send`, as tokio's.
    _not_send: PhantomData<*mut u8>,
}

/// Simulated [`tokio::runtime::LocalRuntime`](https://docs.rs/tokio/1/tokio/runtime/struct.LocalRuntime.html): one simulation, driven from
/// the thread that owns it, whose tasks may be `!Send`.
///
/// # Differences from tokio
///
/// Besides tokio's methods it gives the simulation's [`seed`](Self::seed)
/// and its [`Trace`](super::Trace), like [`Runtime`].
#[derive(Debug)]
pub struct LocalRuntime {
    inner: Runtime,
    /// `!Send + !Sync`, as tokio's `LocalRuntime`.
    _local: std::marker::PhantomData<std::rc::Rc<()>>,
}

impl LocalRuntime {
    pub(crate) fn from_runtime(inner: Runtime) -> LocalRuntime {
        LocalRuntime {
            inner,
            _local: std::marker::PhantomData,
        }
    }

    /// Simulated [`tokio::runtime::LocalRuntime::new`](https://docs.rs/tokio/1/tokio/runtime/struct.LocalRuntime.html#method.new).
    pub fn new() -> io::Result<LocalRuntime> {
        super::Builder::new_current_thread()
            .enable_all()
            .build_local(LocalOptions::default())
    }

    /// Simulated [`tokio::runtime::LocalRuntime::handle`](https://docs.rs/tokio/1/tokio/runtime/struct.LocalRuntime.html#method.handle).
    pub fn handle(&self) -> &Handle {
        self.inner.handle()
    }

    /// Simulated [`tokio::runtime::LocalRuntime::spawn_local`](https://docs.rs/tokio/1/tokio/runtime/struct.LocalRuntime.html#method.spawn_local): the task
    /// runs on the main host once the simulation is driven.
    #[track_caller]
    pub fn spawn_local<F>(&self, future: F) -> JoinHandle<F::Output>
    where
        F: Future + 'static,
        F::Output: 'static,
    {
        let origin = Origin::Spawn(Location::caller());
        JoinHandle::spawn_on(self.inner.world(), future, None, origin)
    }

    /// Simulated [`tokio::runtime::LocalRuntime::spawn_blocking`](https://docs.rs/tokio/1/tokio/runtime/struct.LocalRuntime.html#method.spawn_blocking).
    #[track_caller]
    pub fn spawn_blocking<F, R>(&self, func: F) -> JoinHandle<R>
    where
        F: FnOnce() -> R + Send + 'static,
        R: Send + 'static,
    {
        self.inner.spawn_blocking(func)
    }

    /// Simulated [`tokio::runtime::LocalRuntime::block_on`](https://docs.rs/tokio/1/tokio/runtime/struct.LocalRuntime.html#method.block_on). See
    /// [`Runtime::block_on`].
    #[track_caller]
    pub fn block_on<F: Future>(&self, future: F) -> F::Output {
        self.inner.block_on(future)
    }

    /// Simulated [`tokio::runtime::LocalRuntime::enter`](https://docs.rs/tokio/1/tokio/runtime/struct.LocalRuntime.html#method.enter).
    pub fn enter(&self) -> EnterGuard<'_> {
        self.inner.enter()
    }

    /// Simulated [`tokio::runtime::LocalRuntime::shutdown_timeout`](https://docs.rs/tokio/1/tokio/runtime/struct.LocalRuntime.html#method.shutdown_timeout): as
    /// [`Runtime::shutdown_timeout`](super::Runtime::shutdown_timeout).
    pub fn shutdown_timeout(self, duration: Duration) {
        self.inner.shutdown_timeout(duration)
    }

    /// Simulated [`tokio::runtime::LocalRuntime::shutdown_background`](https://docs.rs/tokio/1/tokio/runtime/struct.LocalRuntime.html#method.shutdown_background):
    /// drops every task now.
    pub fn shutdown_background(self) {
        self.inner.shutdown_background()
    }

    /// Simulated [`tokio::runtime::LocalRuntime::metrics`](https://docs.rs/tokio/1/tokio/runtime/struct.LocalRuntime.html#method.metrics).
    pub fn metrics(&self) -> RuntimeMetrics {
        self.inner.metrics()
    }

    /// The seed this simulation runs with.
    pub fn seed(&self) -> u64 {
        self.inner.seed()
    }

    /// Every choice made so far, with the seed (see [`Runtime::trace`]).
    pub fn trace(&self) -> super::Trace {
        self.inner.trace()
    }
}
