//! The world's disks: one `sim_fs` model per host, and the glue that turns
//! the model's questions into data choices of the scheduler.
//!
//! # How a disk operation runs
//!
//! `sim_rt::fs` runs every operation the way tokio does, as a blocking job
//! (a task of the calling host, see `fs/blocking.rs`) that first sleeps the
//! model's latency for the operation and then calls [`World::fs_op`] with a
//! closure over the host's [`Fs`] and a [`Chooser`]. The chooser forwards
//! each [`Choice`] the model asks to [`World::choose`] as a
//! [`ChoiceKind`]:
//!
//! | model's question | data choice |
//! |---|---|
//! | [`Choice::Eio`] | [`ChoiceKind::DiskEio`] with the configured probability |
//! | [`Choice::CrashKeepPrefix`] | [`ChoiceKind::DiskCrashPrefix`] |
//! | [`Choice::CrashKeepOp`] | [`ChoiceKind::DiskCrashKeep`] |
//! | [`Choice::TornWrite`] | [`ChoiceKind::DiskTornWrite`] |
//!
//! Option 0 is the model's default in every case (no fault, nothing
//! unsynced survives, nothing torn), so an explorer that never deviates
//! sees the strictest crash, and each deviation costs one delay.
//!
//! # Host crashes
//!
//! [`World::fs_crash`] is called when a host is stopped or reset, before
//! its tasks are dropped: the disk loses its volatile layer as the crash
//! model allows and every open descriptor dies (`EBADF` afterwards), so an
//! in-flight write of a dropped task never lands.
//!
//! # Invariants
//!
//! - `disks[h]` is host `h`'s disk; disks are created on first use with the
//!   runtime's default configuration, or by [`World::fs_configure`].
//! - The `RefCell` is borrowed only inside `fs_op` and the small helpers
//!   here, never while user code runs; the scheduler asked meanwhile sees
//!   only kinds and counts and cannot reach it.
//!
//! # Determinism
//!
//! Disks are indexed by host id; the model is deterministic and asks its
//! questions in an order fixed by its state.

use sim_fs::{Choice, Chooser, Fs, FsConfig};

use super::world::World;
use crate::disk::{HostDisk, RealFiles};
use crate::scheduler::{ChoiceKind, HostId};

/// The disks of a world. See the module docs.
pub(crate) struct FsState {
    /// The configuration of a disk created on first use.
    default: FsConfig,
    /// What every disk shows of the real files.
    real: RealFiles,
    /// Host `h`'s disk at index `h`, created lazily.
    disks: Vec<HostDisk>,
}

impl FsState {
    pub(crate) fn new(default: FsConfig, real: RealFiles) -> FsState {
        FsState {
            default,
            real,
            disks: Vec::new(),
        }
    }

    /// Host `host`'s disk, created with the default configuration if it is
    /// the first use.
    fn disk(&mut self, host: HostId) -> &mut HostDisk {
        while self.disks.len() <= host.index() {
            self.disks
                .push(HostDisk::new(Fs::new(self.default.clone()), self.real));
        }
        &mut self.disks[host.index()]
    }
}

/// Answers the model's questions with the world's scheduler.
struct WorldChooser<'a>(&'a World);

impl Chooser for WorldChooser<'_> {
    fn choose(&mut self, choice: &Choice, n: usize) -> usize {
        let kind = match choice {
            Choice::Eio { probability, .. } => ChoiceKind::DiskEio {
                probability: *probability,
            },
            Choice::CrashKeepPrefix { .. } => ChoiceKind::DiskCrashPrefix,
            Choice::CrashKeepOp { .. } => ChoiceKind::DiskCrashKeep,
            Choice::TornWrite { .. } => ChoiceKind::DiskTornWrite,
            other => panic!(
                "the disk model asked a question the runtime does not know ({other:?}); \
                 sim_rt and sim_fs are out of step"
            ),
        };
        self.0.choose(kind, n)
    }
}

impl World {
    /// Runs `f` on `host`'s disk, with the scheduler answering the model's
    /// questions. The disk stays borrowed while `f` runs: the scheduler it
    /// asks sees only kinds and counts and cannot reach the disks.
    pub(crate) fn fs_op<R>(
        &self,
        host: HostId,
        f: impl FnOnce(&mut HostDisk, &mut dyn Chooser) -> R,
    ) -> R {
        let mut st = self.fs.borrow_mut();
        f(st.disk(host), &mut WorldChooser(self))
    }

    /// [`World::fs_op`] for the interposed libc calls, which may run while
    /// the disks are in use (a destructor run from inside an operation):
    /// `None` then, instead of a panic.
    pub(crate) fn try_fs_op<R>(
        &self,
        host: HostId,
        f: impl FnOnce(&mut HostDisk, &mut dyn Chooser) -> R,
    ) -> Option<R> {
        let mut st = self.fs.try_borrow_mut().ok()?;
        Some(f(st.disk(host), &mut WorldChooser(self)))
    }

    /// The latency the model gives `op` on `host`'s disk.
    pub(crate) fn fs_latency(&self, host: HostId, op: sim_fs::IoOp) -> std::time::Duration {
        self.fs.borrow_mut().disk(host).latency(op)
    }

    /// Replaces the configuration of `host`'s disk (creating it if needed).
    pub(crate) fn fs_configure(&self, host: HostId, config: FsConfig) {
        *self.fs.borrow_mut().disk(host).fs.config_mut() = config;
    }

    /// Crashes `host`'s disk (a host stop or reset). A host that never used
    /// its disk has nothing to lose.
    pub(crate) fn fs_crash(&self, host: HostId) {
        if self.fs.borrow().disks.len() <= host.index() {
            return;
        }
        let report = self.fs_op(host, |fs, chooser| fs.crash(chooser));
        tracing::debug!(%host, ?report, "disk crashed");
    }
}
