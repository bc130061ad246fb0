//! How a simulated disk operation runs: as a blocking job, like tokio's.
//!
//! tokio runs every file system call on its blocking pool
//! (`spawn_blocking`) and awaits the result. Here a job is a task of the
//! calling host that sleeps the model's latency for the operation, then
//! calls the host's disk model once. So every operation is a scheduling
//! point (the job is polled as a step of its own, and the caller resumes as
//! another), takes simulated time when the disk is configured with
//! latency, keeps running when the caller stops waiting for it (as a
//! blocking job does), and dies with its host's tasks when the host crashes.
//!
//! # Invariants
//!
//! - A job never holds an `Rc<World>` across its sleep (it names its world
//!   by id), so no world is kept alive by its own tasks.
//! - A [`Handle`] (an open descriptor) is never dropped while the disk is
//!   borrowed: closures passed to the model receive the bare [`Fd`], and the
//!   `Arc<Handle>` they came from is dropped after the call returns.

use std::io;
use std::panic::Location;
use std::path::PathBuf;
use std::sync::Arc;

use crate::io::ReadBuf;
use sim_fs::{Chooser, Fd, Fs, IoOp};

use crate::disk::HostDisk;

use crate::runtime::context;
use crate::runtime::world::{Origin, World};
use crate::scheduler::HostId;
use crate::task::JoinHandle;

/// A host's disk in a simulation, named by ids so it is `Send`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Disk {
    runtime: u64,
    host: HostId,
}

impl Disk {
    /// Host `host`'s disk in simulation `runtime`.
    #[cfg_attr(
        not(all(
            feature = "intercept",
            target_os = "linux",
            target_env = "gnu",
            not(target_feature = "crt-static")
        )),
        allow(dead_code)
    )]
    pub(crate) fn new(runtime: u64, host: HostId) -> Disk {
        Disk { runtime, host }
    }

    /// The disk of the running task's host (the main host outside any task).
    ///
    /// # Panics
    ///
    /// Outside a simulation.
    #[track_caller]
    pub(crate) fn current() -> Disk {
        // A `match`: a closure would not carry the caller's location.
        let Some(world) = context::try_current() else {
            panic!(
                "there is no reactor running, must be called from the context of a Tokio 1.x \
                 runtime (sim_rt::fs was used outside a simulation: a simulated file lives on a \
                 simulated host's disk, so call it from inside `Runtime::block_on`, \
                 `#[sim_rt::test]` or `#[sim_rt::main]`; use std::fs or tokio::fs for real files)"
            )
        };
        let host = world.current_host();
        Disk {
            runtime: world.id,
            host,
        }
    }

    /// The simulation's id and the host.
    #[cfg_attr(
        not(all(
            feature = "intercept",
            target_os = "linux",
            target_env = "gnu",
            not(target_feature = "crt-static")
        )),
        allow(dead_code)
    )]
    pub(crate) fn ids(&self) -> (u64, HostId) {
        (self.runtime, self.host)
    }

    fn world(&self) -> io::Result<std::rc::Rc<World>> {
        context::world_of(self.runtime).ok_or_else(|| {
            io::Error::other(
                "this file's simulation has ended or runs on another thread; a simulated \
                 file works only inside the simulation that opened it",
            )
        })
    }
}

/// An open descriptor on a host's disk, closed when the last reference
/// goes (the `File`, its in-flight job, or an unclaimed job output).
#[derive(Debug)]
pub(crate) struct Handle {
    pub(crate) disk: Disk,
    pub(crate) fd: Fd,
    /// The absolute path it was opened by (for `Debug` and
    /// `File::into_std`); a later rename does not change it.
    pub(crate) path: PathBuf,
}

impl Handle {
    /// How the descriptor was opened; `None` outside its simulation or
    /// while the disks are borrowed.
    pub(crate) fn access(&self) -> Option<sim_fs::Access> {
        let world = self.disk.world().ok()?;
        world
            .try_fs_op(self.disk.host, |disk, _| disk.fs.access(self.fd))?
            .ok()
    }
}

impl Drop for Handle {
    fn drop(&mut self) {
        // A descriptor from before a crash is unknown to the model: closing
        // it does nothing. Outside the simulation there is nothing to close.
        if let Ok(world) = self.disk.world() {
            let fd = self.fd;
            world.fs_op(self.disk.host, |fs, _| fs.close(fd));
        }
    }
}

/// Spawns the blocking job for one operation of kind `op` on `disk`: a task
/// of the calling host that sleeps the operation's latency, then runs `f`.
/// `keep` is held by the job and dropped after `f` returns (an open
/// descriptor `f` uses: see the module invariants).
#[track_caller]
pub(crate) fn spawn_op<K, R, F>(disk: Disk, op: IoOp, keep: K, f: F) -> io::Result<JoinHandle<R>>
where
    K: 'static,
    R: 'static,
    F: FnOnce(&mut HostDisk, &K, &mut dyn Chooser) -> R + 'static,
{
    let origin = Origin::Blocking(Location::caller());
    let world = disk.world()?;
    if world.is_shut_down() {
        // tokio's blocking pool is gone with its runtime.
        return Err(background_failed());
    }
    let job = async move {
        let latency = disk
            .world()
            .expect("a job runs inside its simulation")
            .fs_latency(disk.host, op);
        if !latency.is_zero() {
            crate::time::exact::sleep_exact(latency).await;
        }
        let world = disk.world().expect("a job runs inside its simulation");
        let r = world.fs_op(disk.host, |fs, chooser| f(fs, &keep, chooser));
        drop(world);
        drop(keep);
        r
    };
    Ok(JoinHandle::spawn_on(&world, job, None, origin))
}

/// tokio's `asyncify`: runs `f` as a blocking job and waits for it.
pub(crate) async fn asyncify<R, F>(disk: Disk, op: IoOp, f: F) -> io::Result<R>
where
    R: Send + 'static,
    F: FnOnce(&mut HostDisk, &mut dyn Chooser) -> io::Result<R> + Send + 'static,
{
    match spawn_op(disk, op, (), move |fs, _, chooser| f(fs, chooser))?.await {
        Ok(res) => res,
        Err(_) => Err(background_failed()),
    }
}

/// [`asyncify`] on an open descriptor: `f` gets the bare [`Fd`], and the
/// job holds `handle` until the model call has returned (see the module
/// invariants: a closure that captured the `Arc` itself could drop the last
/// reference, and close the descriptor, while the disk is borrowed).
pub(crate) async fn asyncify_on<R, F>(handle: &Arc<Handle>, op: IoOp, f: F) -> io::Result<R>
where
    R: Send + 'static,
    F: FnOnce(&mut HostDisk, Fd, &mut dyn Chooser) -> io::Result<R> + Send + 'static,
{
    let job = spawn_op(handle.disk, op, handle.clone(), move |fs, h, chooser| {
        f(fs, h.fd, chooser)
    })?;
    match job.await {
        Ok(res) => res,
        Err(_) => Err(background_failed()),
    }
}

/// What tokio returns when a blocking job did not complete (here: its host
/// crashed while the caller, on another host, waited).
pub(crate) fn background_failed() -> io::Error {
    io::Error::other("background task failed")
}

/// A file's buffer, as tokio's `io::blocking::Buf`: what a write copied in
/// and its job writes out, or what a read job read that the caller has not
/// taken yet.
#[derive(Debug, Default)]
pub(crate) struct Buf {
    buf: Vec<u8>,
    pos: usize,
}

/// tokio's `DEFAULT_MAX_BUF_SIZE`: the most one job reads or writes.
pub(crate) const DEFAULT_MAX_BUF_SIZE: usize = 2 * 1024 * 1024;

impl Buf {
    pub(crate) fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn len(&self) -> usize {
        self.buf.len() - self.pos
    }

    /// Moves buffered read bytes into `dst`.
    pub(crate) fn copy_to(&mut self, dst: &mut ReadBuf<'_>) -> usize {
        let n = self.len().min(dst.remaining());
        dst.put_slice(&self.buf[self.pos..self.pos + n]);
        self.pos += n;
        if self.pos == self.buf.len() {
            self.buf.clear();
            self.pos = 0;
        }
        n
    }

    /// Takes up to `max` bytes of `src` to write.
    pub(crate) fn copy_from(&mut self, src: &[u8], max: usize) -> usize {
        debug_assert!(self.is_empty(), "a write starts from an empty buffer");
        let n = src.len().min(max);
        self.buf.extend_from_slice(&src[..n]);
        n
    }

    /// Takes up to `max` bytes of `bufs`, in order, to write.
    pub(crate) fn copy_from_bufs(&mut self, bufs: &[std::io::IoSlice<'_>], max: usize) -> usize {
        debug_assert!(self.is_empty(), "a write starts from an empty buffer");
        for src in bufs {
            let n = src.len().min(max - self.buf.len());
            self.buf.extend_from_slice(&src[..n]);
            if self.buf.len() == max {
                break;
            }
        }
        self.buf.len()
    }

    /// Drops unread bytes; returns the (non-positive) seek that puts the
    /// cursor back where the reader is.
    pub(crate) fn discard_read(&mut self) -> i64 {
        let ret = -(self.len() as i64);
        self.pos = 0;
        self.buf.clear();
        ret
    }

    /// Reads up to `max` bytes from `fd` into the buffer.
    pub(crate) fn read_from(
        &mut self,
        fs: &mut Fs,
        fd: Fd,
        max: usize,
        chooser: &mut dyn Chooser,
    ) -> io::Result<usize> {
        debug_assert!(self.is_empty(), "a read starts from an empty buffer");
        self.buf.resize(max, 0);
        let res = fs.read(fd, &mut self.buf, chooser);
        self.buf.truncate(*res.as_ref().unwrap_or(&0));
        res
    }

    /// Writes the whole buffer to `fd` (`write_all`) and empties it.
    pub(crate) fn write_to(
        &mut self,
        fs: &mut Fs,
        fd: Fd,
        chooser: &mut dyn Chooser,
    ) -> io::Result<()> {
        debug_assert_eq!(self.pos, 0, "a write buffer is never partly read");
        let mut rest = &self.buf[..];
        let mut res = Ok(());
        while !rest.is_empty() {
            match fs.write(fd, rest, chooser) {
                Ok(0) => {
                    res = Err(io::Error::new(
                        io::ErrorKind::WriteZero,
                        "failed to write whole buffer",
                    ));
                    break;
                }
                Ok(n) => rest = &rest[n..],
                Err(e) => {
                    res = Err(e);
                    break;
                }
            }
        }
        self.buf.clear();
        res
    }
}
