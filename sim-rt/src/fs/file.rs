//! Simulated [`tokio::fs::File`](https://docs.rs/tokio/1/tokio/fs/struct.File.html): an open file on a host's disk.
//!
//! This follows tokio's own `File` state machine closely (tokio's
//! `fs/file.rs`): the file is `Idle` with a buffer, or `Busy` with one
//! blocking job in flight. A write copies the caller's bytes into the
//! buffer, starts a job that writes them, and returns at once; the next
//! operation on the file (or `flush`) first waits for that job, and a write
//! error surfaces there. A read starts a job that fills the buffer, then
//! serves the caller from it. `sync_all`, `sync_data`, `set_len`,
//! `metadata` and `try_clone` first complete the job in flight.
//!
//! # Invariants
//!
//! - At most one job is in flight per `File` (`State::Busy`); its buffer
//!   comes back with its result.
//! - A write buffer is only ever written whole (`write_all`) by its job;
//!   unread read bytes are given back to the cursor (a relative seek)
//!   before any other operation moves it.

use std::fmt;
use std::fs::{File as StdFile, Permissions};
use std::future::Future;
use std::io::{self, SeekFrom};
use std::path::Path;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{ready, Context, Poll};

use crate::io::{AsyncRead, AsyncSeek, AsyncWrite, ReadBuf};
use crate::sync::Mutex;
use sim_fs::IoOp;

use super::blocking::{
    asyncify_on, background_failed, spawn_op, Buf, Handle, DEFAULT_MAX_BUF_SIZE,
};
#[cfg(unix)]
use super::fd::Placeholder;
use super::fd::{from_std_panic, into_std_panic};
use super::metadata::Metadata;
use super::{FileTimes, OpenOptions};
use crate::task::JoinHandle;

/// Simulated [`tokio::fs::File`](https://docs.rs/tokio/1/tokio/fs/struct.File.html): a reference to an open file on the
/// disk of the host that opened it.
///
/// `File` implements tokio's [`AsyncRead`], [`AsyncWrite`] and
/// [`AsyncSeek`], so the helpers of [`AsyncReadExt`](crate::io::AsyncReadExt),
/// [`AsyncWriteExt`](crate::io::AsyncWriteExt) and
/// [`AsyncSeekExt`](crate::io::AsyncSeekExt) work on it.
///
/// As in tokio, a write returns as soon as its bytes are buffered, and a
/// background job writes them: call [`flush`](crate::io::AsyncWriteExt::flush)
/// (or any other operation) to wait for it and see its error. A write is
/// then in the host's volatile view (other handles read it), but it is
/// **durable**, i.e. survives a crash of the host, only after
/// [`sync_all`](Self::sync_all) or [`sync_data`](Self::sync_data); a new
/// file's name is durable only once its directory is synced too:
///
/// ```
/// # sim_rt::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
/// use sim_rt::fs::File;
/// use sim_rt::io::AsyncWriteExt;
///
/// let mut file = File::create("/data").await?;
/// file.write_all(b"hello").await?;
/// file.sync_all().await?; // the bytes are durable...
/// File::open("/").await?.sync_all().await?; // ...and so is the name "data"
/// # Ok::<(), std::io::Error>(())
/// # }).unwrap();
/// ```
///
/// When the host crashes (is stopped or reset), its open files die: the
/// tasks holding them are dropped, and a `File` that escaped to another
/// host fails every operation (`EBADF`).
///
/// # Differences from tokio
///
/// - There is no OS file. [`from_std`](Self::from_std),
///   `From<std::fs::File>`, `From<OwnedFd>` and `FromRawFd` take a file
///   that `std::fs` opened inside the simulation (on Linux with glibc,
///   where std's calls reach the simulated disk), and panic on a real
///   file (a real file cannot join the simulated disk: open it inside the
///   simulation). [`into_std`](Self::into_std) and
///   [`try_into_std`](Self::try_into_std) go the other way: the std file
///   they give holds a descriptor that std's calls route to the same
///   simulated file (same platforms), inside the simulation that opened it.
/// - `AsRawFd`/`AsFd` give a placeholder descriptor, `/dev/null` opened
///   read-only the first time it is asked for and closed with the `File`:
///   a caller that only reads or records the number works, but I/O,
///   `fstat` or `flock` through it does not reach the simulated file (and
///   `flock`s of different files meet on the same `/dev/null`).
/// - The disk has no permissions or timestamps:
///   [`set_permissions`](Self::set_permissions),
///   [`set_times`](Self::set_times) and
///   [`set_modified`](Self::set_modified) succeed on an open file and
///   change nothing.
/// - [`metadata`](Self::metadata) returns the simulation's [`Metadata`].
/// - A file belongs to the disk of the host whose task opened it, wherever
///   it is moved; its background jobs run as tasks of the host that polls
///   it.
pub struct File {
    handle: Arc<Handle>,
    inner: Mutex<Inner>,
    max_buf_size: usize,
    /// The descriptor `as_raw_fd` reports, opened on first use.
    #[cfg(unix)]
    placeholder: Placeholder,
}

struct Inner {
    state: State,
    /// The kind of a write error not yet reported (tokio keeps only the
    /// kind).
    last_write_err: Option<io::ErrorKind>,
    /// The cursor as the last seek left it.
    pos: u64,
}

enum State {
    Idle(Option<Buf>),
    Busy(JoinHandle<(Operation, Buf)>),
}

enum Operation {
    Read(io::Result<usize>),
    Write(io::Result<()>),
    Seek(io::Result<u64>),
}

impl File {
    pub(crate) fn from_handle(handle: Handle) -> File {
        File {
            handle: Arc::new(handle),
            inner: Mutex::new(Inner {
                state: State::Idle(Some(Buf::default())),
                last_write_err: None,
                pos: 0,
            }),
            max_buf_size: DEFAULT_MAX_BUF_SIZE,
            #[cfg(unix)]
            placeholder: Placeholder::default(),
        }
    }

    /// Simulated [`tokio::fs::File::open`](https://docs.rs/tokio/1/tokio/fs/struct.File.html#method.open): opens a file read-only.
    ///
    /// # Errors
    ///
    /// `NotFound` when the path does not exist; see
    /// [`OpenOptions::open`].
    ///
    /// # Panics
    ///
    /// Outside a simulation.
    ///
    /// # Differences from tokio
    ///
    /// None. A directory opens too, as on Linux, so that it can be synced.
    pub async fn open(path: impl AsRef<Path>) -> io::Result<File> {
        OpenOptions::new().read(true).open(path).await
    }

    /// Simulated [`tokio::fs::File::create`](https://docs.rs/tokio/1/tokio/fs/struct.File.html#method.create): opens a file write-only,
    /// creating it or truncating it.
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub async fn create(path: impl AsRef<Path>) -> io::Result<File> {
        OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .open(path)
            .await
    }

    /// Simulated [`tokio::fs::File::create_new`](https://docs.rs/tokio/1/tokio/fs/struct.File.html#method.create_new): creates a new file for
    /// reading and writing, failing with `AlreadyExists` if the name is
    /// taken.
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub async fn create_new(path: impl AsRef<Path>) -> io::Result<File> {
        OpenOptions::new()
            .read(true)
            .write(true)
            .create_new(true)
            .open(path)
            .await
    }

    /// Simulated [`tokio::fs::File::options`](https://docs.rs/tokio/1/tokio/fs/struct.File.html#method.options): a blank [`OpenOptions`].
    pub fn options() -> OpenOptions {
        OpenOptions::new()
    }

    /// Simulated [`tokio::fs::File::from_std`](https://docs.rs/tokio/1/tokio/fs/struct.File.html#method.from_std):
    /// wraps a `std::fs::File` that std opened inside the simulation (on
    /// the simulated disk, see the guide's "No escape" chapter); the new
    /// `File` shares its cursor, as tokio's shares the OS file's.
    ///
    /// # Panics
    ///
    /// When `std` is a real OS file (opened outside the simulation, or
    /// where sim-rt does not interpose libc): it cannot join the simulated
    /// disk. Open the file inside the simulation instead.
    ///
    /// # Differences from tokio
    ///
    /// The panic. The std file is dropped (closed) either way.
    #[track_caller]
    pub fn from_std(std: StdFile) -> File {
        match adopt(&std) {
            Some(file) => file,
            None => {
                drop(std);
                from_std_panic("File::from_std")
            }
        }
    }

    /// Simulated [`tokio::fs::File::sync_all`](https://docs.rs/tokio/1/tokio/fs/struct.File.html#method.sync_all): waits for the write in
    /// flight, then makes the file's data and length durable. On a
    /// directory (`File::open(dir)`), makes its entries durable: the files
    /// created, renamed into or out of, or removed from it.
    ///
    /// # Errors
    ///
    /// An injected `EIO` ([`Faults::eio_sync`](crate::sim::Faults)); as on
    /// Linux the dirty data is then dropped, and a retried sync does not
    /// bring it back. `EBADF` after the host crashed.
    ///
    /// # Differences from tokio
    ///
    /// None. As in tokio, an error of the write in flight is not returned
    /// here but by the next write or flush.
    pub async fn sync_all(&self) -> io::Result<()> {
        let mut inner = self.inner.lock().await;
        inner.complete_inflight().await;
        asyncify_on(&self.handle, IoOp::Sync, |fs, fd, chooser| {
            fs.sync_all(fd, chooser)
        })
        .await
    }

    /// Simulated [`tokio::fs::File::sync_data`](https://docs.rs/tokio/1/tokio/fs/struct.File.html#method.sync_data): as
    /// [`sync_all`](Self::sync_all) (the disk keeps no timestamps, and a
    /// file's length is part of its data).
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub async fn sync_data(&self) -> io::Result<()> {
        let mut inner = self.inner.lock().await;
        inner.complete_inflight().await;
        asyncify_on(&self.handle, IoOp::Sync, |fs, fd, chooser| {
            fs.sync_data(fd, chooser)
        })
        .await
    }

    /// Simulated [`tokio::fs::File::set_len`](https://docs.rs/tokio/1/tokio/fs/struct.File.html#method.set_len): truncates or extends the
    /// file (with zeros). Not durable until synced.
    ///
    /// # Errors
    ///
    /// `InvalidInput` without write access, `StorageFull` past the
    /// capacity, an injected `EIO`.
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub async fn set_len(&self, size: u64) -> io::Result<()> {
        let mut inner = self.inner.lock().await;
        inner.complete_inflight().await;
        let mut buf = match inner.state {
            State::Idle(ref mut cell) => cell.take().expect("an idle file holds its buffer"),
            State::Busy(_) => unreachable!("complete_inflight left the file idle"),
        };
        let seek = (!buf.is_empty()).then(|| SeekFrom::Current(buf.discard_read()));
        let job = spawn_op(
            self.handle.disk,
            IoOp::Write,
            self.handle.clone(),
            move |fs, h, chooser| {
                let res = match seek {
                    Some(seek) => fs.seek(h.fd, seek).map(drop),
                    None => Ok(()),
                }
                .and_then(|()| fs.set_len(h.fd, size, chooser))
                .map(|()| 0);
                (Operation::Seek(res), buf)
            },
        );
        let job = match job {
            Ok(job) => job,
            Err(e) => {
                inner.state = State::Idle(Some(Buf::default()));
                return Err(e);
            }
        };
        inner.state = State::Busy(job);
        let (op, buf) = match inner.state {
            State::Busy(ref mut job) => match job.await {
                Ok(out) => out,
                Err(_) => {
                    inner.state = State::Idle(Some(Buf::default()));
                    return Err(background_failed());
                }
            },
            State::Idle(_) => unreachable!("the job was just started"),
        };
        inner.state = State::Idle(Some(buf));
        match op {
            Operation::Seek(res) => res.map(|pos| inner.pos = pos),
            _ => unreachable!("set_len's job reports a seek"),
        }
    }

    /// Simulated [`tokio::fs::File::metadata`](https://docs.rs/tokio/1/tokio/fs/struct.File.html#method.metadata): what `fstat` says about
    /// the file (it works on a removed file still open).
    ///
    /// # Differences from tokio
    ///
    /// Returns the simulation's [`Metadata`], not `std::fs::Metadata`.
    pub async fn metadata(&self) -> io::Result<Metadata> {
        asyncify_on(&self.handle, IoOp::Meta, |fs, fd, _| {
            fs.file_metadata(fd).map(Metadata::new)
        })
        .await
    }

    /// Simulated [`tokio::fs::File::try_clone`](https://docs.rs/tokio/1/tokio/fs/struct.File.html#method.try_clone): a new `File` on the same
    /// open file description, sharing its cursor (`dup`).
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub async fn try_clone(&self) -> io::Result<File> {
        self.inner.lock().await.complete_inflight().await;
        let disk = self.handle.disk;
        let path = self.handle.path.clone();
        let new = asyncify_on(&self.handle, IoOp::Meta, move |fs, fd, _| {
            fs.try_clone(fd).map(|fd| Handle { disk, fd, path })
        })
        .await?;
        let mut clone = File::from_handle(new);
        // tokio's clone keeps the buffer size.
        clone.max_buf_size = self.max_buf_size;
        Ok(clone)
    }

    /// Simulated [`tokio::fs::File::into_std`](https://docs.rs/tokio/1/tokio/fs/struct.File.html#method.into_std):
    /// waits for the operation in flight and returns a `std::fs::File` on
    /// the same open file description (its cursor shared), whose reads,
    /// writes, seeks and syncs reach the simulated file through the
    /// interposed libc calls.
    ///
    /// # Panics
    ///
    /// Outside the simulation that opened the file, and where std's calls
    /// are not interposed (sim-rt without its `intercept` feature, or not
    /// Linux with glibc): there the std file could not reach the simulated
    /// disk. Use [`try_into_std`](Self::try_into_std) to get the file back
    /// instead.
    ///
    /// # Differences from tokio
    ///
    /// The std file's descriptor is a placeholder on `/dev/null` that the
    /// interposed calls recognise; a call that bypasses libc (a raw
    /// `syscall`) reaches `/dev/null`.
    pub async fn into_std(mut self) -> StdFile {
        self.inner.get_mut().complete_inflight().await;
        hand_over(&self.handle).unwrap_or_else(|| into_std_panic())
    }

    /// Simulated [`tokio::fs::File::try_into_std`](https://docs.rs/tokio/1/tokio/fs/struct.File.html#method.try_into_std):
    /// the `std::fs::File` of [`into_std`](Self::into_std) at once, or the
    /// file back if that cannot be had now.
    ///
    /// # Errors
    ///
    /// `Err(self)`, the file unchanged, while an operation is in flight
    /// (as tokio), and where [`into_std`](Self::into_std) would panic.
    ///
    /// # Differences from tokio
    ///
    /// As [`into_std`](Self::into_std).
    #[allow(clippy::result_large_err)]
    pub fn try_into_std(mut self) -> Result<StdFile, Self> {
        if !matches!(self.inner.get_mut().state, State::Idle(_)) {
            return Err(self);
        }
        hand_over(&self.handle).ok_or(self)
    }

    /// Simulated [`tokio::fs::File::set_permissions`](https://docs.rs/tokio/1/tokio/fs/struct.File.html#method.set_permissions):
    /// would change the file's permissions (`fchmod`).
    ///
    /// # Errors
    ///
    /// `EBADF` after the file's host crashed.
    ///
    /// # Differences from tokio
    ///
    /// The simulated disk has no permissions: on an open file this
    /// succeeds and changes nothing.
    pub async fn set_permissions(&self, perm: Permissions) -> io::Result<()> {
        let _ = perm; // nowhere to keep it
        asyncify_on(&self.handle, IoOp::Meta, |fs, fd, _| {
            fs.file_metadata(fd).map(drop)
        })
        .await
    }

    /// Simulated [`tokio::fs::File::set_times`](https://docs.rs/tokio/1/tokio/fs/struct.File.html#method.set_times):
    /// waits for the operation in flight, then would set the file's
    /// timestamps (`futimens`).
    ///
    /// # Errors
    ///
    /// `EBADF` after the file's host crashed.
    ///
    /// # Differences from tokio
    ///
    /// The simulated disk keeps no timestamps: on an open file this
    /// succeeds and changes nothing ([`Metadata::modified`] stays
    /// `Unsupported`).
    pub async fn set_times(&self, times: FileTimes) -> io::Result<()> {
        let _ = times; // nowhere to keep them
        self.inner.lock().await.complete_inflight().await;
        asyncify_on(&self.handle, IoOp::Meta, |fs, fd, _| {
            fs.file_metadata(fd).map(drop)
        })
        .await
    }

    /// Simulated [`tokio::fs::File::set_modified`](https://docs.rs/tokio/1/tokio/fs/struct.File.html#method.set_modified):
    /// [`set_times`](Self::set_times) with only the modification time.
    ///
    /// # Differences from tokio
    ///
    /// As [`set_times`](Self::set_times): succeeds and changes nothing.
    pub async fn set_modified(&self, time: std::time::SystemTime) -> io::Result<()> {
        self.set_times(FileTimes::new().set_modified(time)).await
    }

    /// Simulated [`tokio::fs::File::set_max_buf_size`](https://docs.rs/tokio/1/tokio/fs/struct.File.html#method.set_max_buf_size): the most one
    /// background job reads or writes (default 2 MiB).
    ///
    /// # Differences from tokio
    ///
    /// None.
    ///
    /// # Panics
    ///
    /// When `max_buf_size` is 0, as tokio does.
    #[track_caller]
    pub fn set_max_buf_size(&mut self, max_buf_size: usize) {
        assert!(max_buf_size > 0, "`max_buf_size` must be greater than 0");
        self.max_buf_size = max_buf_size;
    }

    /// Simulated [`tokio::fs::File::max_buf_size`](https://docs.rs/tokio/1/tokio/fs/struct.File.html#method.max_buf_size).
    pub fn max_buf_size(&self) -> usize {
        self.max_buf_size
    }
}

impl Inner {
    /// Waits for the job in flight; a write error is kept for the next
    /// write or flush.
    async fn complete_inflight(&mut self) {
        std::future::poll_fn(|cx| self.poll_complete_inflight(cx)).await
    }

    fn poll_complete_inflight(&mut self, cx: &mut Context<'_>) -> Poll<()> {
        match self.poll_flush(cx) {
            Poll::Ready(Err(e)) => {
                self.last_write_err = Some(e.kind());
                Poll::Ready(())
            }
            Poll::Ready(Ok(())) => Poll::Ready(()),
            Poll::Pending => Poll::Pending,
        }
    }

    fn poll_flush(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        if let Some(e) = self.last_write_err.take() {
            return Poll::Ready(Err(e.into()));
        }
        let (op, buf) = match self.state {
            State::Idle(_) => return Poll::Ready(Ok(())),
            State::Busy(ref mut job) => match ready!(Self::poll_job(job, cx)) {
                Some(out) => out,
                None => {
                    self.state = State::Idle(Some(Buf::default()));
                    return Poll::Ready(Err(background_failed()));
                }
            },
        };
        self.state = State::Idle(Some(buf));
        match op {
            Operation::Read(_) | Operation::Seek(_) => Poll::Ready(Ok(())),
            Operation::Write(res) => Poll::Ready(res),
        }
    }

    /// Polls the job in flight: `None` when it did not complete (its host
    /// crashed while a task of another host waited on it); the caller then
    /// leaves the file idle and reports tokio's "background task failed".
    fn poll_job(
        job: &mut JoinHandle<(Operation, Buf)>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<(Operation, Buf)>> {
        Poll::Ready(ready!(Pin::new(job).poll(cx)).ok())
    }
}

impl AsyncRead for File {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        dst: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let me = self.get_mut();
        let handle = &me.handle;
        let max_buf_size = me.max_buf_size;
        let inner = me.inner.get_mut();
        loop {
            match inner.state {
                State::Idle(ref mut cell) => {
                    let mut buf = cell.take().expect("an idle file holds its buffer");
                    if !buf.is_empty() || dst.remaining() == 0 {
                        buf.copy_to(dst);
                        *cell = Some(buf);
                        return Poll::Ready(Ok(()));
                    }
                    let max = dst.remaining().min(max_buf_size);
                    let job =
                        spawn_op(handle.disk, IoOp::Read, handle.clone(), move |fs, h, ch| {
                            let res = buf.read_from(fs, h.fd, max, ch);
                            (Operation::Read(res), buf)
                        });
                    match job {
                        Ok(job) => inner.state = State::Busy(job),
                        Err(e) => {
                            *cell = Some(Buf::default());
                            return Poll::Ready(Err(e));
                        }
                    }
                }
                State::Busy(ref mut job) => {
                    let Some((op, mut buf)) = ready!(Inner::poll_job(job, cx)) else {
                        inner.state = State::Idle(Some(Buf::default()));
                        return Poll::Ready(Err(background_failed()));
                    };
                    match op {
                        Operation::Read(Ok(_)) => {
                            buf.copy_to(dst);
                            inner.state = State::Idle(Some(buf));
                            return Poll::Ready(Ok(()));
                        }
                        Operation::Read(Err(e)) => {
                            debug_assert!(buf.is_empty());
                            inner.state = State::Idle(Some(buf));
                            return Poll::Ready(Err(e));
                        }
                        Operation::Write(Ok(())) => {
                            inner.state = State::Idle(Some(buf));
                        }
                        Operation::Write(Err(e)) => {
                            debug_assert!(inner.last_write_err.is_none());
                            inner.last_write_err = Some(e.kind());
                            inner.state = State::Idle(Some(buf));
                        }
                        Operation::Seek(result) => {
                            inner.state = State::Idle(Some(buf));
                            if let Ok(pos) = result {
                                inner.pos = pos;
                            }
                        }
                    }
                }
            }
        }
    }
}

impl AsyncSeek for File {
    fn start_seek(self: Pin<&mut Self>, mut pos: SeekFrom) -> io::Result<()> {
        let me = self.get_mut();
        let handle = &me.handle;
        let inner = me.inner.get_mut();
        match inner.state {
            State::Busy(_) => Err(io::Error::other(
                "other file operation is pending, call poll_complete before start_seek",
            )),
            State::Idle(ref mut cell) => {
                let mut buf = cell.take().expect("an idle file holds its buffer");
                if !buf.is_empty() {
                    let n = buf.discard_read();
                    if let SeekFrom::Current(ref mut offset) = pos {
                        *offset += n;
                    }
                }
                match spawn_op(handle.disk, IoOp::Meta, handle.clone(), move |fs, h, _| {
                    (Operation::Seek(fs.seek(h.fd, pos)), buf)
                }) {
                    Ok(job) => {
                        inner.state = State::Busy(job);
                        Ok(())
                    }
                    Err(e) => {
                        *cell = Some(Buf::default());
                        Err(e)
                    }
                }
            }
        }
    }

    fn poll_complete(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<u64>> {
        let inner = self.get_mut().inner.get_mut();
        loop {
            match inner.state {
                State::Idle(_) => return Poll::Ready(Ok(inner.pos)),
                State::Busy(ref mut job) => {
                    let Some((op, buf)) = ready!(Inner::poll_job(job, cx)) else {
                        inner.state = State::Idle(Some(Buf::default()));
                        return Poll::Ready(Err(background_failed()));
                    };
                    inner.state = State::Idle(Some(buf));
                    match op {
                        Operation::Read(_) => {}
                        Operation::Write(Err(e)) => {
                            debug_assert!(inner.last_write_err.is_none());
                            inner.last_write_err = Some(e.kind());
                        }
                        Operation::Write(_) => {}
                        Operation::Seek(res) => {
                            if let Ok(pos) = res {
                                inner.pos = pos;
                            }
                            return Poll::Ready(res);
                        }
                    }
                }
            }
        }
    }
}

impl AsyncWrite for File {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        src: &[u8],
    ) -> Poll<io::Result<usize>> {
        self.get_mut()
            .poll_write_with(cx, |buf, max| buf.copy_from(src, max))
    }

    /// As tokio's: the slices are copied into the buffer (up to its
    /// maximum size) and written by one job.
    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        self.get_mut()
            .poll_write_with(cx, |buf, max| buf.copy_from_bufs(bufs, max))
    }

    fn is_write_vectored(&self) -> bool {
        true
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.get_mut().inner.get_mut().poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.poll_flush(cx)
    }
}

impl File {
    /// A write: once the write in flight is done, `fill` copies the bytes
    /// into the buffer (at most the maximum size; it returns how many) and
    /// a job writes them out.
    fn poll_write_with(
        &mut self,
        cx: &mut Context<'_>,
        fill: impl FnOnce(&mut Buf, usize) -> usize,
    ) -> Poll<io::Result<usize>> {
        let handle = &self.handle;
        let max_buf_size = self.max_buf_size;
        let inner = self.inner.get_mut();
        if let Some(e) = inner.last_write_err.take() {
            return Poll::Ready(Err(e.into()));
        }
        let mut fill = Some(fill);
        loop {
            match inner.state {
                State::Idle(ref mut cell) => {
                    let mut buf = cell.take().expect("an idle file holds its buffer");
                    let seek = (!buf.is_empty()).then(|| SeekFrom::Current(buf.discard_read()));
                    let fill = fill.take().expect("an idle file is met once per write");
                    let n = fill(&mut buf, max_buf_size);
                    let job = spawn_op(
                        handle.disk,
                        IoOp::Write,
                        handle.clone(),
                        move |fs, h, ch| {
                            let res = match seek {
                                Some(seek) => fs.seek(h.fd, seek).map(drop),
                                None => Ok(()),
                            }
                            .and_then(|()| buf.write_to(fs, h.fd, ch));
                            (Operation::Write(res), buf)
                        },
                    );
                    return match job {
                        Ok(job) => {
                            inner.state = State::Busy(job);
                            Poll::Ready(Ok(n))
                        }
                        Err(e) => {
                            *cell = Some(Buf::default());
                            Poll::Ready(Err(e))
                        }
                    };
                }
                State::Busy(ref mut job) => {
                    let Some((op, buf)) = ready!(Inner::poll_job(job, cx)) else {
                        inner.state = State::Idle(Some(Buf::default()));
                        return Poll::Ready(Err(background_failed()));
                    };
                    inner.state = State::Idle(Some(buf));
                    match op {
                        // The cursor moved; the next round sees it.
                        Operation::Read(_) | Operation::Seek(_) => {}
                        Operation::Write(res) => res?,
                    }
                }
            }
        }
    }
}

/// The simulated `File` sharing the open file description of `fd`, if it
/// is a file std opened on the simulated disk; `fd` stays the caller's.
#[cfg(all(
    feature = "intercept",
    target_os = "linux",
    target_env = "gnu",
    not(target_feature = "crt-static")
))]
fn adopt(fd: &impl std::os::fd::AsRawFd) -> Option<File> {
    let (runtime, host, fd, path) = crate::disk::posix::adopt(fd.as_raw_fd())?;
    Some(File::from_handle(Handle {
        disk: super::blocking::Disk::new(runtime, host),
        fd,
        path,
    }))
}

/// A std file on a new descriptor of `handle`'s open file description,
/// which the interposed calls route to the simulated file; `None` outside
/// the simulation the file belongs to.
#[cfg(all(
    feature = "intercept",
    target_os = "linux",
    target_env = "gnu",
    not(target_feature = "crt-static")
))]
#[allow(unsafe_code)]
fn hand_over(handle: &Handle) -> Option<StdFile> {
    use std::os::fd::FromRawFd;
    let (runtime, host) = handle.disk.ids();
    let fd = crate::disk::posix::hand_over(runtime, host, handle.fd, &handle.path).ok()?;
    // SAFETY: `hand_over` opened `fd` for us; the std file owns it now.
    Some(unsafe { StdFile::from_raw_fd(fd) })
}

#[cfg(not(all(
    feature = "intercept",
    target_os = "linux",
    target_env = "gnu",
    not(target_feature = "crt-static")
)))]
fn hand_over(_: &Handle) -> Option<StdFile> {
    None
}

#[cfg(not(all(
    feature = "intercept",
    target_os = "linux",
    target_env = "gnu",
    not(target_feature = "crt-static")
)))]
fn adopt<T>(_: &T) -> Option<File> {
    None
}

impl From<StdFile> for File {
    /// As [`File::from_std`].
    #[track_caller]
    fn from(std: StdFile) -> Self {
        match adopt(&std) {
            Some(file) => file,
            None => {
                drop(std);
                from_std_panic("From<std::fs::File> for File")
            }
        }
    }
}

#[cfg(unix)]
impl From<std::os::fd::OwnedFd> for File {
    /// As [`File::from_std`] (the descriptor is closed either way).
    #[track_caller]
    fn from(fd: std::os::fd::OwnedFd) -> Self {
        match adopt(&fd) {
            Some(file) => file,
            None => {
                drop(fd);
                from_std_panic("From<OwnedFd> for File")
            }
        }
    }
}

#[cfg(unix)]
impl std::os::fd::AsRawFd for File {
    /// The placeholder descriptor (see the type's docs): `/dev/null`,
    /// opened on first use, not the simulated file.
    ///
    /// # Panics
    ///
    /// When the process has no file descriptor left for it.
    fn as_raw_fd(&self) -> std::os::fd::RawFd {
        self.placeholder.get_or_open().as_raw_fd()
    }
}

#[cfg(unix)]
impl std::os::fd::AsFd for File {
    /// As [`as_raw_fd`](std::os::fd::AsRawFd::as_raw_fd).
    fn as_fd(&self) -> std::os::fd::BorrowedFd<'_> {
        self.placeholder.get_or_open().as_fd()
    }
}

// `unsafe` because the trait is: the fd's ownership is the caller's promise.
#[cfg(unix)]
#[allow(unsafe_code)]
impl std::os::fd::FromRawFd for File {
    /// As [`File::from_std`]: takes (and closes) a descriptor std opened
    /// on the simulated disk; panics on any other, which is left open (it
    /// is never touched).
    ///
    /// # Safety
    ///
    /// As [`std::os::fd::FromRawFd::from_raw_fd`].
    #[track_caller]
    unsafe fn from_raw_fd(fd: std::os::fd::RawFd) -> Self {
        struct Raw(std::os::fd::RawFd);
        impl std::os::fd::AsRawFd for Raw {
            fn as_raw_fd(&self) -> std::os::fd::RawFd {
                self.0
            }
        }
        match adopt(&Raw(fd)) {
            Some(file) => {
                // SAFETY: the caller hands over ownership of `fd`.
                drop(unsafe { std::os::fd::OwnedFd::from_raw_fd(fd) });
                file
            }
            None => from_std_panic("FromRawFd for File"),
        }
    }
}

impl fmt::Debug for File {
    /// tokio's form, `tokio::fs::File { std: File { fd: .., path: .., .. } }`,
    /// with the simulated disk's descriptor number as `fd` (deterministic,
    /// unlike the placeholder [`as_raw_fd`](std::os::fd::AsRawFd) gives),
    /// the path the file was opened by, and its access mode when the
    /// simulation is current.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        struct Std<'a>(&'a Handle);
        impl fmt::Debug for Std<'_> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                let mut d = f.debug_struct("File");
                d.field("fd", &self.0.fd.as_u64())
                    .field("path", &self.0.path);
                if let Some(access) = self.0.access() {
                    d.field("read", &access.read).field("write", &access.write);
                }
                d.finish()
            }
        }
        f.debug_struct("tokio::fs::File")
            .field("std", &Std(&self.handle))
            .finish()
    }
}
