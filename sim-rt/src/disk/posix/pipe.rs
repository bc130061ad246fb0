//! The POSIX calls on pipes inside a simulation: `pipe`/`pipe2`, the open
//! of a FIFO's entry on the simulated disk, and `read`/`write`/`close`/
//! `dup`/`fcntl` on their ends, over the host's pipes in the network
//! model (`sim_net`'s `pipe.rs`).
//!
//! An end's descriptor is an end of a real pipe (the placeholder, made
//! with interception off, its other end closed): `fstat` says FIFO, as
//! tokio's `pipe` checks. Each descriptor, `dup`s included, is one end
//! counted by the model, so the last writer's close is end of file and
//! the last reader's makes writes fail with `EPIPE`.
//!
//! A FIFO's pipe is the one its entry's inode number names while an end
//! is open. Opening follows Linux: `O_RDONLY | O_NONBLOCK` always opens,
//! `O_WRONLY | O_NONBLOCK` fails with `ENXIO` while no reader has it
//! open, `O_RDWR` always opens. A *blocking* open waits on Linux for the
//! other end; here it opens at once when the other end is there and
//! otherwise fails with `ENXIO` and a note (tokio's `pipe::OpenOptions`
//! opens without blocking).

use std::ffi::c_int;

use sim_net::{Endpoint, PipeId, Readiness};

use super::table::{self, Kind, Open};
use super::{here, last_errno, real, world_of, Errno, Route};
use crate::runtime::world::World;
use crate::scheduler::HostId;
use crate::switches::Escape;

/// A pipe end of the current simulation.
pub(crate) struct End {
    open: Open,
    id: PipeId,
    read: bool,
    write: bool,
}

/// The pipe end behind `fd`, if it is one of the current simulation's.
pub(crate) fn end_of(fd: c_int) -> Option<End> {
    let open = table::get(fd)?;
    let Kind::Pipe { id, read, write } = open.kind else {
        return None;
    };
    world_of(&open)?;
    Some(End {
        open,
        id,
        read,
        write,
    })
}

/// The pipe `fd` is an end of, with its host: for tokio's pipe types.
pub(crate) fn pipe_of(fd: c_int) -> Option<(PipeId, HostId)> {
    end_of(fd).map(|e| (e.id, e.open.host))
}

/// A real pipe, both ends, with interception off.
fn real_pipe(cloexec: bool) -> Result<[c_int; 2], Errno> {
    let mut fds = [0; 2];
    let flags = if cloexec { libc::O_CLOEXEC } else { 0 };
    // SAFETY: a plain system call into our array.
    #[allow(unsafe_code)]
    let r = real(|| unsafe { libc::pipe2(fds.as_mut_ptr(), flags) });
    if r < 0 {
        return Err(last_errno());
    }
    Ok(fds)
}

fn entry(world: &World, host: HostId, id: PipeId, read: bool, write: bool, flags: c_int) -> Open {
    let acc = match (read, write) {
        (true, true) => libc::O_RDWR,
        (true, false) => libc::O_RDONLY,
        _ => libc::O_WRONLY,
    };
    let kind = Kind::Pipe { id, read, write };
    let cloexec = flags & libc::O_CLOEXEC != 0;
    Open::endpoint(
        world.id,
        host,
        kind,
        acc | (flags & libc::O_NONBLOCK),
        cloexec,
    )
}

/// `pipe2(flags)` inside a simulation: a pipe of the calling task's host,
/// read end first.
pub(crate) fn pipe2(flags: c_int) -> Route<[c_int; 2]> {
    let Ok((world, host)) = here() else {
        return Route::Real;
    };
    let fds = match real_pipe(flags & libc::O_CLOEXEC != 0) {
        Ok(fds) => fds,
        Err(e) => return Route::Sim(Err(e)),
    };
    let net_host = world.net_host(host);
    let id = world.net_op(|net, _| {
        let id = net.pipe_new(net_host);
        net.pipe_open(id, true, false);
        net.pipe_open(id, false, true);
        id
    });
    table::insert(fds[0], entry(&world, host, id, true, false, flags));
    table::insert(fds[1], entry(&world, host, id, false, true, flags));
    Route::Sim(Ok(fds))
}

/// The open of the FIFO whose entry has inode number `ino`, with the
/// `open(2)` `flags`: a new descriptor on an end of its pipe.
pub(crate) fn open_fifo(
    world: &World,
    host: HostId,
    ino: u64,
    flags: c_int,
) -> Result<c_int, Errno> {
    let acc = flags & libc::O_ACCMODE;
    let read = acc == libc::O_RDONLY || acc == libc::O_RDWR;
    let write = acc == libc::O_WRONLY || acc == libc::O_RDWR;
    let nonblocking = flags & libc::O_NONBLOCK != 0;
    let net_host = world.net_host(host);
    let id = world.net_op(|net, _| net.fifo_pipe(net_host, ino));
    let (has_reader, has_writer) =
        world.net_ref(|net| (net.pipe_has_reader(id), net.pipe_has_writer(id)));
    let waits = !(read && write) && ((write && !has_reader) || (read && !has_writer));
    if waits && (write || !nonblocking) {
        if !nonblocking {
            crate::switches::say(Escape::FifoOpen);
        }
        // Forget a pipe this open made and nothing holds.
        world.net_op(|net, _| {
            net.pipe_open(id, read, false);
            net.pipe_close(id, read, false);
        });
        return Err(libc::ENXIO);
    }
    let fds = real_pipe(flags & libc::O_CLOEXEC != 0)?;
    let (keep, other) = if read {
        (fds[0], fds[1])
    } else {
        (fds[1], fds[0])
    };
    super::close_real(other);
    world.net_op(|net, _| net.pipe_open(id, read, write));
    table::insert(keep, entry(world, host, id, read, write, flags));
    Ok(keep)
}

/// The entry of a descriptor is gone (closed): its end closes.
pub(crate) fn closed(open: &Open) {
    let Kind::Pipe { id, read, write } = open.kind else {
        return;
    };
    if let Some(world) = world_of(open) {
        world.net_op(|net, _| net.pipe_close(id, read, write));
    }
}

/// Runs `op` on `end`'s pipe; when it would block and the descriptor
/// blocks, waits for `dir` and tries again.
fn blocking<T>(
    end: &End,
    dir: Readiness,
    mut op: impl FnMut(&mut sim_net::Net) -> std::io::Result<T>,
) -> Route<T> {
    let Some(world) = world_of(&end.open) else {
        return Route::Real;
    };
    let blocks = end.open.flags & libc::O_NONBLOCK == 0;
    Route::Sim(super::poll::retry(
        &world,
        Endpoint::Pipe(end.id),
        dir,
        blocks,
        None,
        libc::EPIPE,
        |net, _| op(net),
    ))
}

/// `read` from a pipe end (`EBADF` on a write-only end).
pub(crate) fn read(end: End, buf: &mut [u8]) -> Route<usize> {
    if !end.read {
        return Route::Sim(Err(libc::EBADF));
    }
    let id = end.id;
    blocking(&end, Readiness::READABLE, |net| net.pipe_read(id, buf))
}

/// `write` to a pipe end (`EBADF` on a read-only end, `EPIPE` with no
/// reader).
pub(crate) fn write(end: End, buf: &[u8]) -> Route<usize> {
    if !end.write {
        return Route::Sim(Err(libc::EBADF));
    }
    let id = end.id;
    blocking(&end, Readiness::WRITABLE, |net| net.pipe_write(id, buf))
}

/// `ioctl(FIONREAD)` on a pipe end.
pub(crate) fn queued(fd: c_int) -> Route<c_int> {
    let Some(end) = end_of(fd) else {
        return Route::Real;
    };
    let Some(world) = world_of(&end.open) else {
        return Route::Real;
    };
    Route::Sim(Ok(world.net_ref(|net| {
        c_int::try_from(net.pipe_queued(end.id)).unwrap_or(c_int::MAX)
    })))
}
