//! Reading simulated directories through libc: `getdents64` on a
//! directory descriptor, and the `DIR` streams of `opendir`/`fdopendir`/
//! `readdir`/`closedir` (std's `read_dir`, C code).
//!
//! A simulated `DIR *` is a [`DirStream`] allocated here, never glibc's;
//! the interposed `readdir`, `closedir`, `dirfd`... tell the two apart by
//! the registry of streams handed out on this thread. A stream lists the
//! merged view of its directory (the model's entries and the lower layer's,
//! sorted by name, `.` and `..` first), taken when it is opened or
//! rewound.
//!
//! # Invariants
//!
//! - A registered pointer is a live `Box<DirStream>` leaked by
//!   [`fdopendir`] and freed only by [`closedir`], which unregisters it
//!   first.
//! - `STREAMS` counts the registry, so the check in `readdir` outside a
//!   simulation, with no simulated stream open, is one thread-local read.

use std::cell::{Cell, RefCell};
use std::collections::BTreeSet;
use std::ffi::{c_int, OsString};
use std::os::unix::ffi::OsStrExt;

use sim_fs::FileType;

use super::table::{self, Kind};
use super::{on_disk, world_of, Errno, Route};

/// One entry of a listing: name, inode number, `d_type`.
type Entry = (OsString, u64, u8);

/// A simulated `DIR`.
#[derive(Debug)]
pub(crate) struct DirStream {
    /// The directory's descriptor (the simulation's), closed by `closedir`.
    fd: c_int,
    entries: Vec<Entry>,
    pos: usize,
    /// What the last `readdir` returned points here.
    current: Box<libc::dirent64>,
}

thread_local! {
    static REGISTRY: RefCell<BTreeSet<usize>> = const { RefCell::new(BTreeSet::new()) };
    static STREAMS: Cell<usize> = const { Cell::new(0) };
}

/// The listing of simulated directory descriptor `fd`.
fn listing(fd: c_int) -> Result<Vec<Entry>, Errno> {
    let open = table::get(fd).ok_or(libc::EBADF)?;
    let Kind::Sim { fd: sfd, dir: true } = open.kind else {
        return Err(libc::ENOTDIR);
    };
    let world = world_of(&open).ok_or(libc::EBADF)?;
    on_disk(&world, open.host, |disk, _| {
        let me = disk.fs.file_metadata(sfd)?.ino();
        let up = open
            .path
            .parent()
            .and_then(|p| disk.fs.metadata(p).ok())
            .map_or(me, |m| m.ino());
        let mut out: Vec<Entry> = vec![
            (".".into(), me, libc::DT_DIR),
            ("..".into(), up, libc::DT_DIR),
        ];
        for e in disk.list(&open.path)? {
            let t = match e.file_type() {
                FileType::Dir => libc::DT_DIR,
                FileType::File => libc::DT_REG,
                FileType::Socket => libc::DT_SOCK,
                FileType::Fifo => libc::DT_FIFO,
            };
            out.push((e.file_name(), e.ino(), t));
        }
        Ok(out)
    })
}

fn fill(ent: &mut libc::dirent64, (name, ino, t): &Entry, next: usize) -> bool {
    let bytes = name.as_bytes();
    if bytes.len() >= ent.d_name.len() {
        return false;
    }
    ent.d_ino = *ino;
    ent.d_off = next as i64;
    ent.d_reclen = std::mem::size_of::<libc::dirent64>() as u16;
    ent.d_type = *t;
    for (i, &b) in bytes.iter().enumerate() {
        ent.d_name[i] = b as _;
    }
    ent.d_name[bytes.len()] = 0;
    true
}

/// `getdents64(fd, buf, len)` on a simulated directory: as many records
/// as fit, from where the last call stopped.
pub(crate) fn getdents64(fd: c_int, buf: &mut [u8]) -> Route<usize> {
    let Some(open) = table::get(fd) else {
        return Route::Real;
    };
    if open.kind == Kind::Lower {
        return Route::Sim(Err(libc::ENOTDIR));
    }
    let entries = match listing(fd) {
        Ok(e) => e,
        Err(e) => return Route::Sim(Err(e)),
    };
    let header = std::mem::offset_of!(libc::dirent64, d_name);
    let mut used = 0;
    let mut pos = open.dir_pos;
    while let Some((name, ino, t)) = entries.get(pos) {
        let reclen = (header + name.len() + 1).next_multiple_of(8);
        if used + reclen > buf.len() {
            if used == 0 {
                return Route::Sim(Err(libc::EINVAL));
            }
            break;
        }
        let rec = &mut buf[used..used + reclen];
        rec.fill(0);
        rec[0..8].copy_from_slice(&ino.to_ne_bytes());
        rec[8..16].copy_from_slice(&((pos + 1) as i64).to_ne_bytes());
        rec[16..18].copy_from_slice(&(reclen as u16).to_ne_bytes());
        rec[18] = *t;
        rec[header..header + name.len()].copy_from_slice(name.as_bytes());
        used += reclen;
        pos += 1;
    }
    table::update(fd, |o| o.dir_pos = pos);
    Route::Sim(Ok(used))
}

/// Whether `dir` is a simulated stream of this thread.
#[inline]
pub(crate) fn is_stream(dir: *mut libc::DIR) -> bool {
    STREAMS.with(|s| s.get()) > 0
        && REGISTRY
            .try_with(|r| r.try_borrow().is_ok_and(|r| r.contains(&(dir as usize))))
            .unwrap_or(false)
}

/// `fdopendir(fd)`: a simulated stream on simulated directory `fd`.
pub(crate) fn fdopendir(fd: c_int) -> Route<*mut libc::DIR> {
    if table::get(fd).is_none() {
        return Route::Real;
    }
    let entries = match listing(fd) {
        Ok(e) => e,
        Err(e) => return Route::Sim(Err(e)),
    };
    // SAFETY: `dirent64` is plain old data; all zeros is a valid value.
    let current = Box::new(unsafe { std::mem::zeroed::<libc::dirent64>() });
    let stream = Box::new(DirStream {
        fd,
        entries,
        pos: 0,
        current,
    });
    let ptr = Box::into_raw(stream) as *mut libc::DIR;
    let registered = REGISTRY
        .try_with(|r| {
            r.try_borrow_mut()
                .map(|mut r| r.insert(ptr as usize))
                .is_ok()
        })
        .unwrap_or(false);
    if !registered {
        // SAFETY: `ptr` came from `Box::into_raw` just above.
        drop(unsafe { Box::from_raw(ptr as *mut DirStream) });
        return Route::Sim(Err(libc::ENOMEM));
    }
    STREAMS.with(|s| s.set(s.get() + 1));
    Route::Sim(Ok(ptr))
}

/// The stream behind a registered pointer.
///
/// # Safety
///
/// `dir` is registered ([`is_stream`]) and not used elsewhere meanwhile.
unsafe fn stream<'a>(dir: *mut libc::DIR) -> &'a mut DirStream {
    // SAFETY: registered pointers are live `DirStream`s (module invariant).
    unsafe { &mut *(dir as *mut DirStream) }
}

/// `readdir64` on a simulated stream: the next entry, or null at the end.
///
/// # Safety
///
/// `dir` is registered.
pub(crate) unsafe fn readdir(dir: *mut libc::DIR) -> *mut libc::dirent64 {
    // SAFETY: forwarded.
    let s = unsafe { stream(dir) };
    while let Some(entry) = s.entries.get(s.pos) {
        s.pos += 1;
        if fill(&mut s.current, entry, s.pos) {
            return &mut *s.current;
        }
    }
    std::ptr::null_mut()
}

/// `dirfd` of a simulated stream.
///
/// # Safety
///
/// `dir` is registered.
pub(crate) unsafe fn dirfd(dir: *mut libc::DIR) -> c_int {
    // SAFETY: forwarded.
    unsafe { stream(dir) }.fd
}

/// `rewinddir`: back to the start, listing the directory again.
///
/// # Safety
///
/// `dir` is registered.
pub(crate) unsafe fn rewinddir(dir: *mut libc::DIR) {
    // SAFETY: forwarded.
    let s = unsafe { stream(dir) };
    if let Ok(entries) = listing(s.fd) {
        s.entries = entries;
    }
    s.pos = 0;
}

/// `closedir` of a simulated stream: unregisters and frees it, and
/// returns its descriptor for the caller to close.
///
/// # Safety
///
/// `dir` is registered; it is dangling afterwards.
pub(crate) unsafe fn closedir(dir: *mut libc::DIR) -> c_int {
    let _ = REGISTRY.try_with(|r| {
        if let Ok(mut r) = r.try_borrow_mut() {
            r.remove(&(dir as usize));
        }
    });
    STREAMS.with(|s| s.set(s.get().saturating_sub(1)));
    // SAFETY: registered pointers come from `Box::into_raw` (invariant).
    let s = unsafe { Box::from_raw(dir as *mut DirStream) };
    s.fd
}
