//! Simulated/own version of
//! [`tokio::net::unix::pipe`](https://docs.rs/tokio/1/tokio/net/unix/pipe/index.html):
//! pipes and FIFOs of the simulated hosts.
//!
//! A pipe end is a descriptor of the simulation (`disk::posix::pipe`): an
//! end of one of the host's pipes in the network model, made by
//! [`pipe`] (`pipe2`), or by opening a FIFO's entry on the host's
//! simulated disk (made with `mkfifo`). [`Sender`] and [`Receiver`] do
//! what tokio's do over such a descriptor: the checks of the `from_*`
//! constructors (`fstat` says FIFO, the access mode, `O_NONBLOCK` set),
//! non-blocking `read`/`write` on it, and waits for the model's readiness.
//! The last writer's close is end of file for the readers; writing after
//! the last reader closed fails with `BrokenPipe`.
//!
//! # Differences from tokio
//!
//! - A pipe or FIFO end made outside the simulation (a real one) cannot
//!   join it: the `from_*` constructors fail with `Unsupported`.
//! - A blocking open of a FIFO without the other end fails with `ENXIO`
//!   instead of waiting (the openers here never block, as tokio's).
//! - Every task waiting on an end is woken when it becomes ready.

use std::fs::File;
use std::future::poll_fn;
use std::io;
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, OwnedFd, RawFd};
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;
use std::pin::Pin;
use std::sync::atomic::{AtomicU8, Ordering};
use std::task::{ready, Context, Poll};

use bytes::BufMut;
use sim_net::{Endpoint, PipeId, Readiness};

use crate::io::{AsyncRead, AsyncWrite, Interest, ReadBuf, Ready};
use crate::net::io::{Assumed, NetIo};

/// Simulated/own version of
/// [`tokio::net::unix::pipe::pipe`](https://docs.rs/tokio/1/tokio/net/unix/pipe/fn.pipe.html):
/// a new pipe of the running task's host, as a sender and a receiver.
///
/// # Panics
///
/// Outside a simulation, or in one without the I/O driver, as tokio's.
#[track_caller]
pub fn pipe() -> io::Result<(Sender, Receiver)> {
    NetIo::current()?;
    let mut fds = [0; 2];
    // SAFETY: a plain system call into our array (interposed: a simulated
    // pipe).
    #[allow(unsafe_code)]
    let r = unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC | libc::O_NONBLOCK) };
    if r < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: the two descriptors pipe2 just made, now owned here.
    #[allow(unsafe_code)]
    let (rx, tx) = unsafe {
        use std::os::fd::FromRawFd;
        (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1]))
    };
    Ok((
        Sender::from_owned_fd_unchecked(tx)?,
        Receiver::from_owned_fd_unchecked(rx)?,
    ))
}

/// Simulated/own version of
/// [`tokio::net::unix::pipe::OpenOptions`](https://docs.rs/tokio/1/tokio/net/unix/pipe/struct.OpenOptions.html):
/// options to open a FIFO file.
///
/// # Differences from tokio
///
/// None: the FIFO is opened with `O_NONBLOCK` through the interposed
/// `open`, on the host's simulated disk.
#[derive(Clone, Debug)]
pub struct OpenOptions {
    #[cfg(any(target_os = "linux", target_os = "android"))]
    read_write: bool,
    unchecked: bool,
}

impl OpenOptions {
    /// Simulated/own version of
    /// [`tokio::net::unix::pipe::OpenOptions::new`](https://docs.rs/tokio/1/tokio/net/unix/pipe/struct.OpenOptions.html#method.new).
    pub fn new() -> OpenOptions {
        OpenOptions {
            #[cfg(any(target_os = "linux", target_os = "android"))]
            read_write: false,
            unchecked: false,
        }
    }

    /// Simulated/own version of
    /// [`tokio::net::unix::pipe::OpenOptions::read_write`](https://docs.rs/tokio/1/tokio/net/unix/pipe/struct.OpenOptions.html#method.read_write):
    /// open for reading and writing (a sender then opens without a
    /// reader).
    #[cfg(any(target_os = "linux", target_os = "android"))]
    pub fn read_write(&mut self, value: bool) -> &mut Self {
        self.read_write = value;
        self
    }

    /// Simulated/own version of
    /// [`tokio::net::unix::pipe::OpenOptions::unchecked`](https://docs.rs/tokio/1/tokio/net/unix/pipe/struct.OpenOptions.html#method.unchecked):
    /// skip the check that the file is a FIFO.
    pub fn unchecked(&mut self, value: bool) -> &mut Self {
        self.unchecked = value;
        self
    }

    /// Simulated/own version of
    /// [`tokio::net::unix::pipe::OpenOptions::open_receiver`](https://docs.rs/tokio/1/tokio/net/unix/pipe/struct.OpenOptions.html#method.open_receiver).
    ///
    /// # Errors
    ///
    /// `NotFound` without a file at `path`; `InvalidInput` ("not a pipe")
    /// when it is not a FIFO (unless unchecked).
    pub fn open_receiver<P: AsRef<Path>>(&self, path: P) -> io::Result<Receiver> {
        let file = self.open(path.as_ref(), false)?;
        Receiver::from_file_unchecked(file)
    }

    /// Simulated/own version of
    /// [`tokio::net::unix::pipe::OpenOptions::open_sender`](https://docs.rs/tokio/1/tokio/net/unix/pipe/struct.OpenOptions.html#method.open_sender).
    ///
    /// # Errors
    ///
    /// As [`open_receiver`](Self::open_receiver); `ENXIO` (raw OS error)
    /// when no reader has the FIFO open and `read_write` is not set, as
    /// Linux.
    pub fn open_sender<P: AsRef<Path>>(&self, path: P) -> io::Result<Sender> {
        let file = self.open(path.as_ref(), true)?;
        Sender::from_file_unchecked(file)
    }

    fn open(&self, path: &Path, sender: bool) -> io::Result<File> {
        let mut options = std::fs::OpenOptions::new();
        options
            .read(!sender)
            .write(sender)
            .custom_flags(libc::O_NONBLOCK);
        #[cfg(any(target_os = "linux", target_os = "android"))]
        if self.read_write {
            options.read(true).write(true);
        }
        let file = options.open(path)?;
        if !self.unchecked && !is_pipe(file.as_fd())? {
            return Err(io::Error::new(io::ErrorKind::InvalidInput, "not a pipe"));
        }
        Ok(file)
    }
}

impl Default for OpenOptions {
    fn default() -> OpenOptions {
        OpenOptions::new()
    }
}

/// Whether `fd` is a pipe or FIFO (`fstat`).
fn is_pipe(fd: BorrowedFd<'_>) -> io::Result<bool> {
    // SAFETY: `stat` is plain data; `fstat` on an open descriptor.
    #[allow(unsafe_code)]
    let (r, stat) = unsafe {
        let mut stat: libc::stat = std::mem::zeroed();
        (libc::fstat(fd.as_raw_fd(), &mut stat), stat)
    };
    if r == -1 {
        return Err(io::Error::last_os_error());
    }
    Ok(stat.st_mode & libc::S_IFMT == libc::S_IFIFO)
}

/// `F_GETFL` of `fd`.
fn file_flags(fd: BorrowedFd<'_>) -> io::Result<libc::c_int> {
    // SAFETY: `fcntl(F_GETFL)` on an open descriptor.
    #[allow(unsafe_code)]
    let flags = unsafe { libc::fcntl(fd.as_raw_fd(), libc::F_GETFL) };
    if flags < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(flags)
}

/// Sets `O_NONBLOCK` on (`on`) or off.
fn set_nonblocking(fd: BorrowedFd<'_>, on: bool) -> io::Result<()> {
    let flags = file_flags(fd)?;
    let new = if on {
        flags | libc::O_NONBLOCK
    } else {
        flags & !libc::O_NONBLOCK
    };
    if new != flags {
        // SAFETY: `fcntl(F_SETFL)` on an open descriptor.
        #[allow(unsafe_code)]
        if unsafe { libc::fcntl(fd.as_raw_fd(), libc::F_SETFL, new) } < 0 {
            return Err(io::Error::last_os_error());
        }
    }
    Ok(())
}

/// What both ends share: the descriptor, the pipe it is an end of, and
/// tokio's cached readiness.
///
/// tokio registers a pipe end with no readiness: its driver reports the
/// end's state at its next turn. So within the step that registered it,
/// the end is ready for nothing (a poll wakes itself for the next step);
/// and once a `try_io` closure returned `WouldBlock`, tokio's cached
/// readiness of that direction is cleared until the next event: here
/// until readiness is awaited again.
#[derive(Debug)]
struct PipeIo {
    fd: OwnedFd,
    io: NetIo,
    id: PipeId,
    assumed: Assumed,
    registered_at: u64,
    /// Directions (`Readiness` bits) a `try_io` closure found blocked.
    blocked: AtomicU8,
}

impl PipeIo {
    /// The end `fd` is, as tokio's `from_owned_fd_unchecked` registers it.
    #[track_caller]
    fn from_fd(fd: OwnedFd, item: &str) -> io::Result<PipeIo> {
        let (world, _, _) = NetIo::current()?;
        let Some((id, host)) = crate::net::fd::pipe_of(fd.as_raw_fd()) else {
            return Err(io::Error::new(
                io::ErrorKind::Unsupported,
                format!(
                    "{item}: the descriptor is not a pipe of the simulation (a real pipe or \
                     FIFO, made outside it, cannot join it). Make the pipe inside the \
                     simulation: tokio::net::unix::pipe::pipe, or a FIFO made with mkfifo and \
                     opened with pipe::OpenOptions"
                ),
            ));
        };
        let registered_at = world.core.borrow().step;
        Ok(PipeIo {
            fd,
            io: NetIo::on(&world, host),
            id,
            assumed: Assumed::default(),
            registered_at,
            blocked: AtomicU8::new(0),
        })
    }

    /// Whether the driver has not reported on the end yet (see the type's
    /// docs).
    fn unreported(&self) -> bool {
        self.io
            .world()
            .is_ok_and(|w| w.core.borrow().step == self.registered_at)
    }

    fn bits(interest: Interest) -> u8 {
        u8::from(interest.is_readable()) | u8::from(interest.is_writable()) << 1
    }

    fn endpoint(&self) -> Endpoint {
        Endpoint::Pipe(self.id)
    }

    fn poll_ready(&self, cx: &mut Context<'_>, dir: Readiness) -> Poll<io::Result<()>> {
        if self.unreported() {
            cx.waker().wake_by_ref();
            return Poll::Pending;
        }
        let bit = u8::from(dir.is_readable()) | u8::from(dir.is_writable()) << 1;
        self.blocked.fetch_and(!bit, Ordering::Relaxed);
        if self.assumed.has(dir) {
            return Poll::Ready(Ok(()));
        }
        self.io.poll_ready(cx, self.endpoint(), dir)
    }

    async fn ready(&self, interest: Interest) -> io::Result<Ready> {
        poll_fn(|cx| {
            if self.unreported() {
                cx.waker().wake_by_ref();
                return Poll::Pending;
            }
            self.blocked
                .fetch_and(!Self::bits(interest), Ordering::Relaxed);
            let assumed = self.assumed.ready(interest);
            if assumed.is_empty() {
                self.io.poll_ready_set(cx, self.endpoint(), interest)
            } else {
                Poll::Ready(Ok(self.io.ready_now(self.endpoint(), interest)? | assumed))
            }
        })
        .await
    }

    /// A non-blocking `read` of the descriptor (`WouldBlock` before the
    /// driver reported on the end, as tokio's).
    fn try_read(&self, buf: &mut [u8]) -> io::Result<usize> {
        if self.unreported() {
            return Err(io::ErrorKind::WouldBlock.into());
        }
        // SAFETY: a read into the caller's buffer.
        #[allow(unsafe_code)]
        let n = unsafe { libc::read(self.fd.as_raw_fd(), buf.as_mut_ptr().cast(), buf.len()) };
        let r = if n < 0 {
            Err(io::Error::last_os_error())
        } else {
            Ok(n as usize)
        };
        self.assumed.note(Readiness::READABLE, &r);
        r
    }

    /// A non-blocking `write` of the descriptor (as `try_read`).
    fn try_write(&self, buf: &[u8]) -> io::Result<usize> {
        if self.unreported() {
            return Err(io::ErrorKind::WouldBlock.into());
        }
        // SAFETY: a write of the caller's buffer.
        #[allow(unsafe_code)]
        let n = unsafe { libc::write(self.fd.as_raw_fd(), buf.as_ptr().cast(), buf.len()) };
        let r = if n < 0 {
            Err(io::Error::last_os_error())
        } else {
            Ok(n as usize)
        };
        self.assumed.note(Readiness::WRITABLE, &r);
        r
    }

    /// Polls `op` until it does not block, as tokio's `poll_*_io`.
    fn poll_io<R>(
        &self,
        cx: &mut Context<'_>,
        dir: Readiness,
        mut op: impl FnMut() -> io::Result<R>,
    ) -> Poll<io::Result<R>> {
        loop {
            ready!(self.poll_ready(cx, dir))?;
            match op() {
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {}
                r => return Poll::Ready(r),
            }
        }
    }

    fn try_io<R>(&self, interest: Interest, f: impl FnOnce() -> io::Result<R>) -> io::Result<R> {
        let bits = Self::bits(interest);
        if self.unreported() || self.blocked.load(Ordering::Relaxed) & bits == bits {
            return Err(io::ErrorKind::WouldBlock.into());
        }
        let mut called = false;
        let f = || {
            called = true;
            f()
        };
        let r = if self.assumed.ready(interest).is_empty() {
            self.io.try_io(self.endpoint(), interest, f)
        } else {
            f()
        };
        if matches!(&r, Err(e) if e.kind() == io::ErrorKind::WouldBlock) {
            self.assumed.clear(interest);
            if called {
                self.blocked.fetch_or(bits, Ordering::Relaxed);
            }
            return Err(io::ErrorKind::WouldBlock.into());
        }
        r
    }

    fn into_fd(self, nonblocking: bool) -> io::Result<OwnedFd> {
        set_nonblocking(self.fd.as_fd(), nonblocking)?;
        self.io.close(self.endpoint(), |_, _| {});
        Ok(self.fd)
    }
}

/// The `from_*` constructors and descriptor conversions of an end.
macro_rules! pipe_end {
    ($ty:ident, $name:literal, $access:literal, $has_access:expr) => {
        impl $ty {
            #[doc = concat!("Simulated/own version of [`tokio::net::unix::pipe::", $name, "::from_file`](https://docs.rs/tokio/1/tokio/net/unix/pipe/struct.", $name, ".html#method.from_file): checks that the file is a pipe open for ", $access, ", sets it non-blocking.\n\n# Errors\n\n`InvalidInput` when it is not a pipe or has the wrong access mode; `Unsupported` for a real pipe, made outside the simulation.")]
            #[track_caller]
            pub fn from_file(file: File) -> io::Result<$ty> {
                $ty::from_owned_fd(file.into())
            }

            #[doc = concat!("Simulated/own version of [`tokio::net::unix::pipe::", $name, "::from_owned_fd`](https://docs.rs/tokio/1/tokio/net/unix/pipe/struct.", $name, ".html#method.from_owned_fd): as `from_file`.")]
            #[track_caller]
            pub fn from_owned_fd(owned_fd: OwnedFd) -> io::Result<$ty> {
                if !is_pipe(owned_fd.as_fd())? {
                    return Err(io::Error::new(io::ErrorKind::InvalidInput, "not a pipe"));
                }
                let flags = file_flags(owned_fd.as_fd())?;
                let mode = flags & libc::O_ACCMODE;
                if !$has_access(mode) {
                    return Err(io::Error::new(
                        io::ErrorKind::InvalidInput,
                        concat!("not in ", $access, " access mode"),
                    ));
                }
                set_nonblocking(owned_fd.as_fd(), true)?;
                $ty::from_owned_fd_unchecked(owned_fd)
            }

            #[doc = concat!("Simulated/own version of [`tokio::net::unix::pipe::", $name, "::from_file_unchecked`](https://docs.rs/tokio/1/tokio/net/unix/pipe/struct.", $name, ".html#method.from_file_unchecked).\n\n# Errors\n\n`Unsupported` when the file is not a pipe end of the simulation.")]
            #[track_caller]
            pub fn from_file_unchecked(file: File) -> io::Result<$ty> {
                $ty::from_owned_fd_unchecked(file.into())
            }

            #[doc = concat!("Simulated/own version of [`tokio::net::unix::pipe::", $name, "::from_owned_fd_unchecked`](https://docs.rs/tokio/1/tokio/net/unix/pipe/struct.", $name, ".html#method.from_owned_fd_unchecked).\n\n# Errors\n\n`Unsupported` when the descriptor is not a pipe end of the simulation.\n\n# Panics\n\nOutside a simulation, as tokio's outside a runtime.")]
            #[track_caller]
            pub fn from_owned_fd_unchecked(owned_fd: OwnedFd) -> io::Result<$ty> {
                Ok($ty {
                    io: PipeIo::from_fd(owned_fd, concat!("pipe::", $name, "::from_owned_fd"))?,
                })
            }

            #[doc = concat!("Simulated/own version of [`tokio::net::unix::pipe::", $name, "::into_blocking_fd`](https://docs.rs/tokio/1/tokio/net/unix/pipe/struct.", $name, ".html#method.into_blocking_fd): the descriptor, in blocking mode.")]
            pub fn into_blocking_fd(self) -> io::Result<OwnedFd> {
                self.io.into_fd(false)
            }

            #[doc = concat!("Simulated/own version of [`tokio::net::unix::pipe::", $name, "::into_nonblocking_fd`](https://docs.rs/tokio/1/tokio/net/unix/pipe/struct.", $name, ".html#method.into_nonblocking_fd): the descriptor, in non-blocking mode.")]
            pub fn into_nonblocking_fd(self) -> io::Result<OwnedFd> {
                self.io.into_fd(true)
            }

            #[doc = concat!("Simulated/own version of [`tokio::net::unix::pipe::", $name, "::ready`](https://docs.rs/tokio/1/tokio/net/unix/pipe/struct.", $name, ".html#method.ready): waits for any kind in `interest`.")]
            pub async fn ready(&self, interest: Interest) -> io::Result<Ready> {
                self.io.ready(interest).await
            }

            #[doc = concat!("Simulated/own version of [`tokio::net::unix::pipe::", $name, "::try_io`](https://docs.rs/tokio/1/tokio/net/unix/pipe/struct.", $name, ".html#method.try_io).")]
            pub fn try_io<R>(&self, f: impl FnOnce() -> io::Result<R>) -> io::Result<R> {
                let interest = if $access == "O_RDONLY or O_RDWR" {
                    Interest::READABLE
                } else {
                    Interest::WRITABLE
                };
                self.io.try_io(interest, f)
            }
        }

        impl AsRawFd for $ty {
            fn as_raw_fd(&self) -> RawFd {
                self.io.fd.as_raw_fd()
            }
        }

        impl AsFd for $ty {
            fn as_fd(&self) -> BorrowedFd<'_> {
                self.io.fd.as_fd()
            }
        }
    };
}

/// Simulated/own version of
/// [`tokio::net::unix::pipe::Sender`](https://docs.rs/tokio/1/tokio/net/unix/pipe/struct.Sender.html):
/// the writing end of a pipe.
///
/// # Differences from tokio
///
/// See the module docs.
#[derive(Debug)]
pub struct Sender {
    io: PipeIo,
}

pipe_end!(Sender, "Sender", "O_WRONLY or O_RDWR", |m| m
    == libc::O_WRONLY
    || m == libc::O_RDWR);

impl Sender {
    /// Simulated/own version of
    /// [`tokio::net::unix::pipe::Sender::writable`](https://docs.rs/tokio/1/tokio/net/unix/pipe/struct.Sender.html#method.writable):
    /// waits until a write would not block (room, or no reader left).
    pub async fn writable(&self) -> io::Result<()> {
        poll_fn(|cx| self.poll_write_ready(cx)).await
    }

    /// Simulated/own version of
    /// [`tokio::net::unix::pipe::Sender::poll_write_ready`](https://docs.rs/tokio/1/tokio/net/unix/pipe/struct.Sender.html#method.poll_write_ready).
    pub fn poll_write_ready(&self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.io.poll_ready(cx, Readiness::WRITABLE)
    }

    /// Simulated/own version of
    /// [`tokio::net::unix::pipe::Sender::try_write`](https://docs.rs/tokio/1/tokio/net/unix/pipe/struct.Sender.html#method.try_write):
    /// writes what fits, without waiting (`WouldBlock` when full,
    /// `BrokenPipe` without a reader).
    pub fn try_write(&self, buf: &[u8]) -> io::Result<usize> {
        self.io.try_write(buf)
    }

    /// Simulated/own version of
    /// [`tokio::net::unix::pipe::Sender::try_write_vectored`](https://docs.rs/tokio/1/tokio/net/unix/pipe/struct.Sender.html#method.try_write_vectored):
    /// the buffers concatenated, one write.
    pub fn try_write_vectored(&self, buf: &[io::IoSlice<'_>]) -> io::Result<usize> {
        let data: Vec<u8> = buf.iter().flat_map(|b| b.iter().copied()).collect();
        self.io.try_write(&data)
    }
}

impl AsyncWrite for Sender {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        self.io
            .poll_io(cx, Readiness::WRITABLE, || self.io.try_write(buf))
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let data: Vec<u8> = bufs.iter().flat_map(|b| b.iter().copied()).collect();
        self.io
            .poll_io(cx, Readiness::WRITABLE, || self.io.try_write(&data))
    }

    fn is_write_vectored(&self) -> bool {
        true
    }

    fn poll_flush(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }

    fn poll_shutdown(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }
}

/// Simulated/own version of
/// [`tokio::net::unix::pipe::Receiver`](https://docs.rs/tokio/1/tokio/net/unix/pipe/struct.Receiver.html):
/// the reading end of a pipe.
///
/// # Differences from tokio
///
/// See the module docs.
#[derive(Debug)]
pub struct Receiver {
    io: PipeIo,
}

pipe_end!(Receiver, "Receiver", "O_RDONLY or O_RDWR", |m| m
    == libc::O_RDONLY
    || m == libc::O_RDWR);

impl Receiver {
    /// Simulated/own version of
    /// [`tokio::net::unix::pipe::Receiver::readable`](https://docs.rs/tokio/1/tokio/net/unix/pipe/struct.Receiver.html#method.readable):
    /// waits until a read would not block (bytes, or no writer left).
    pub async fn readable(&self) -> io::Result<()> {
        poll_fn(|cx| self.poll_read_ready(cx)).await
    }

    /// Simulated/own version of
    /// [`tokio::net::unix::pipe::Receiver::poll_read_ready`](https://docs.rs/tokio/1/tokio/net/unix/pipe/struct.Receiver.html#method.poll_read_ready).
    pub fn poll_read_ready(&self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.io.poll_ready(cx, Readiness::READABLE)
    }

    /// Simulated/own version of
    /// [`tokio::net::unix::pipe::Receiver::try_read`](https://docs.rs/tokio/1/tokio/net/unix/pipe/struct.Receiver.html#method.try_read):
    /// reads what is queued, without waiting (`Ok(0)` once no writer is
    /// left and the pipe is empty).
    pub fn try_read(&self, buf: &mut [u8]) -> io::Result<usize> {
        self.io.try_read(buf)
    }

    /// Simulated/own version of
    /// [`tokio::net::unix::pipe::Receiver::try_read_vectored`](https://docs.rs/tokio/1/tokio/net/unix/pipe/struct.Receiver.html#method.try_read_vectored).
    pub fn try_read_vectored(&self, bufs: &mut [io::IoSliceMut<'_>]) -> io::Result<usize> {
        let mut data = vec![0; bufs.iter().map(|b| b.len()).sum()];
        let n = self.io.try_read(&mut data)?;
        let mut rest = &data[..n];
        for buf in bufs.iter_mut() {
            let k = buf.len().min(rest.len());
            buf[..k].copy_from_slice(&rest[..k]);
            rest = &rest[k..];
        }
        Ok(n)
    }

    /// Simulated/own version of
    /// [`tokio::net::unix::pipe::Receiver::try_read_buf`](https://docs.rs/tokio/1/tokio/net/unix/pipe/struct.Receiver.html#method.try_read_buf):
    /// as `try_read`, appending to `buf`'s current chunk.
    pub fn try_read_buf<B: BufMut>(&self, buf: &mut B) -> io::Result<usize> {
        let mut data = vec![0; buf.chunk_mut().len()];
        let n = self.io.try_read(&mut data)?;
        buf.put_slice(&data[..n]);
        Ok(n)
    }
}

impl AsyncRead for Receiver {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let n = ready!(self.io.poll_io(cx, Readiness::READABLE, || {
            self.io.try_read(buf.initialize_unfilled())
        }))?;
        buf.advance(n);
        Poll::Ready(Ok(()))
    }
}
