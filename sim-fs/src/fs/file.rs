//! Operations on open handles: open, read, write, seek, set_len, sync,
//! close.
//!
//! # What a sync makes durable
//!
//! - On a file, `sync_all` and `sync_data` (identical: the model has no
//!   timestamps) make the file's data and length durable: its pending writes
//!   and length changes are applied to the durable layer, oldest first, and
//!   leave the log. With [`EntryDurability::FileSyncToo`], every pending
//!   directory operation up to the last one naming this file is made
//!   durable too, in order, as a journal commit would.
//! - On a directory, they make its entries durable: every pending create,
//!   link, remove, mkdir in it, and its half of each rename into or out of
//!   it.
//!
//! A sync may fail with `EIO` (see [`Faults`](crate::Faults)); a failed file
//! sync drops the file's dirty data by default, as Linux does.

use std::io::{self, SeekFrom};
use std::path::Path;

use crate::choice::Chooser;
use crate::config::{EntryDurability, IoOp};
use crate::errno;
use crate::handle::{Access, Fd, OpenFile, OpenOptions};
use crate::inode::{Ino, Node};
use crate::metadata::{FileType, Metadata};
use crate::pending::PendingOp;

use super::{Fs, Target};

/// The longest file the model holds (1 GiB); a write or `set_len` past it
/// fails with `EFBIG`. The model keeps file data in memory and has no sparse
/// files, so this guards the simulator against a stray huge offset.
pub const MAX_FILE_LEN: u64 = 1 << 30;

impl Fs {
    /// Simulated `open(2)` with [`std::fs::OpenOptions`] semantics
    /// ([`OpenOptions::for_open`] is `File::open`,
    /// [`OpenOptions::for_create`] is `File::create`).
    ///
    /// Creating a file adds a pending directory entry; truncating an
    /// existing file a pending length change. A directory opens read-only
    /// (for `sync_all` on it); with write access it is `EISDIR`. A socket
    /// does not open (`ENXIO`, as Linux answers: only `connect(2)` reaches
    /// it), whatever the options, unless `create_new` (`EEXIST`) or a
    /// trailing `/` (`ENOTDIR`) fails first. Neither does a FIFO, in the
    /// same order, because the model has no pipe behind its entry: `ENXIO`
    /// again (what Linux answers a non-blocking write-only open with no
    /// reader), on its own path so the runtime can answer a FIFO's opens
    /// itself.
    pub fn open(&mut self, path: impl AsRef<Path>, options: &OpenOptions) -> io::Result<Fd> {
        options.validate()?;
        let ino = match self.target(path.as_ref())? {
            Target::Whole { ino, .. } => {
                if options.create_new {
                    return Err(errno::already_exists());
                }
                if options.writable() {
                    return Err(errno::is_a_directory());
                }
                ino
            }
            Target::Named {
                dir,
                name,
                trailing_slash,
                ..
            } => match self.entry(dir, &name) {
                Some(ino) => {
                    if options.create_new {
                        return Err(errno::already_exists());
                    }
                    let kind = self.inodes.file_type(ino);
                    if trailing_slash && !kind.is_dir() {
                        return Err(errno::not_a_directory());
                    }
                    match kind {
                        FileType::Dir if options.writable() => return Err(errno::is_a_directory()),
                        FileType::Dir => {}
                        FileType::Socket => return Err(errno::no_such_device_or_address()),
                        FileType::Fifo => return Err(errno::fifo_without_pipe()),
                        FileType::File if options.truncate => self.set_len_data(ino, 0)?,
                        FileType::File => {}
                    }
                    ino
                }
                None => {
                    if !(options.create || options.create_new) {
                        return Err(errno::not_found());
                    }
                    if trailing_slash {
                        return Err(errno::is_a_directory());
                    }
                    self.create_node(dir, name, Node::File(Vec::new()))
                }
            },
        };
        Ok(self.new_fd(OpenFile {
            ino,
            read: options.read,
            write: options.writable(),
            append: options.append,
            pos: 0,
            refs: 0,
        }))
    }

    /// Opens a descriptor on a new description.
    pub(crate) fn new_fd(&mut self, mut desc: OpenFile) -> Fd {
        self.inodes.open(desc.ino);
        desc.refs = 1;
        let id = self.next_desc;
        self.next_desc += 1;
        self.descs.insert(id, desc);
        let fd = Fd(self.next_fd);
        self.next_fd += 1;
        self.fds.insert(fd, id);
        fd
    }

    /// Closes `fd` (`close(2)`, i.e. dropping the `File`). The last close of
    /// a removed file frees it. Closing an unknown descriptor (for example
    /// one from before a crash) does nothing. Closing never syncs.
    pub fn close(&mut self, fd: Fd) {
        let Some(id) = self.fds.remove(&fd) else {
            return;
        };
        let desc = self
            .descs
            .get_mut(&id)
            .expect("descriptors name live descriptions");
        desc.refs -= 1;
        if desc.refs == 0 {
            let ino = desc.ino;
            self.descs.remove(&id);
            self.inodes.close(ino);
        }
    }

    /// `dup(2)`, as `File::try_clone`: a new descriptor sharing `fd`'s
    /// description, cursor included.
    pub fn try_clone(&mut self, fd: Fd) -> io::Result<Fd> {
        let id = *self.fds.get(&fd).ok_or_else(errno::bad_fd)?;
        self.descs
            .get_mut(&id)
            .expect("descriptors name live descriptions")
            .refs += 1;
        let new = Fd(self.next_fd);
        self.next_fd += 1;
        self.fds.insert(new, id);
        Ok(new)
    }

    fn desc(&self, fd: Fd) -> io::Result<&OpenFile> {
        let id = self.fds.get(&fd).ok_or_else(errno::bad_fd)?;
        Ok(&self.descs[id])
    }

    fn desc_mut(&mut self, fd: Fd) -> io::Result<&mut OpenFile> {
        let id = self.fds.get(&fd).ok_or_else(errno::bad_fd)?;
        Ok(self
            .descs
            .get_mut(id)
            .expect("descriptors name live descriptions"))
    }

    /// The inode `fd` reads from, checking access.
    fn readable(&self, fd: Fd) -> io::Result<Ino> {
        let desc = self.desc(fd)?;
        if !desc.read {
            return Err(errno::bad_fd());
        }
        if self.inodes.data(desc.ino).is_none() {
            return Err(errno::is_a_directory());
        }
        Ok(desc.ino)
    }

    /// `read(2)` at the cursor, advancing it. Returns 0 at or past the end.
    /// May fail with an injected `EIO` ([`IoOp::Read`]), which leaves the
    /// cursor where it was.
    pub fn read(&mut self, fd: Fd, buf: &mut [u8], chooser: &mut dyn Chooser) -> io::Result<usize> {
        let pos = self.desc(fd)?.pos;
        let n = self.read_at(fd, pos, buf, chooser)?;
        self.desc_mut(fd)?.pos = pos + n as u64;
        Ok(n)
    }

    /// `pread(2)`: reads at `offset` without moving the cursor
    /// (`FileExt::read_at`).
    pub fn read_at(
        &self,
        fd: Fd,
        offset: u64,
        buf: &mut [u8],
        chooser: &mut dyn Chooser,
    ) -> io::Result<usize> {
        let ino = self.readable(fd)?;
        self.fault(IoOp::Read, chooser)?;
        let data = self
            .inodes
            .data(ino)
            .expect("readable checked it is a file");
        let start = usize::try_from(offset)
            .unwrap_or(usize::MAX)
            .min(data.len());
        let n = buf.len().min(data.len() - start);
        buf[..n].copy_from_slice(&data[start..start + n]);
        Ok(n)
    }

    /// The start of a write through `fd`: checks access, then draws the
    /// injected fault ([`IoOp::Write`]). Returns the inode and, for a handle
    /// in append mode, the offset the write goes to (the file's end).
    fn start_write(&self, fd: Fd, chooser: &mut dyn Chooser) -> io::Result<(Ino, Option<u64>)> {
        let desc = self.desc(fd)?;
        if !desc.write {
            return Err(errno::bad_fd());
        }
        let (ino, append) = (desc.ino, desc.append);
        self.fault(IoOp::Write, chooser)?;
        let end = append.then(|| {
            self.inodes
                .data(ino)
                .expect("writable handles are on files")
                .len() as u64
        });
        Ok((ino, end))
    }

    /// `write(2)` at the cursor (at the end in append mode), advancing it.
    ///
    /// The write changes the volatile view at once and is pending until the
    /// file is synced. May be short, or fail with `ENOSPC`, when the
    /// configured capacity is reached; may fail with an injected `EIO`
    /// ([`IoOp::Write`]), which changes nothing.
    pub fn write(&mut self, fd: Fd, buf: &[u8], chooser: &mut dyn Chooser) -> io::Result<usize> {
        let (ino, end) = self.start_write(fd, chooser)?;
        let offset = match end {
            Some(end) => end,
            None => self.desc(fd)?.pos,
        };
        let n = self.write_data(ino, offset, buf)?;
        self.desc_mut(fd)?.pos = offset + n as u64;
        Ok(n)
    }

    /// `pwrite(2)`: writes at `offset` without moving the cursor
    /// (`FileExt::write_at`). As on Linux, a handle in append mode writes at
    /// the end whatever `offset` says.
    pub fn write_at(
        &mut self,
        fd: Fd,
        offset: u64,
        buf: &[u8],
        chooser: &mut dyn Chooser,
    ) -> io::Result<usize> {
        let (ino, end) = self.start_write(fd, chooser)?;
        self.write_data(ino, end.unwrap_or(offset), buf)
    }

    /// Writes what fits of `buf` at `offset` into file `ino` and logs it.
    pub(crate) fn write_data(&mut self, ino: Ino, offset: u64, buf: &[u8]) -> io::Result<usize> {
        if buf.is_empty() {
            return Ok(0);
        }
        let len = self.inodes.data(ino).expect("writes go to files").len() as u64;
        let end = offset.saturating_add(buf.len() as u64);
        if end > MAX_FILE_LEN {
            return Err(errno::file_too_large());
        }
        let mut fit = buf.len();
        if let Some(capacity) = self.config.faults.capacity {
            let available = capacity.saturating_sub(self.inodes.usage());
            if end.saturating_sub(len) > available {
                let limit = len + available;
                fit = limit.saturating_sub(offset).min(buf.len() as u64) as usize;
            }
        }
        if fit == 0 {
            return Err(errno::no_space());
        }
        let data = buf[..fit].to_vec();
        let start = offset as usize;
        self.inodes.update_data(ino, |file| {
            if file.len() < start + fit {
                file.resize(start + fit, 0);
            }
            file[start..start + fit].copy_from_slice(&data);
        });
        self.log.push(PendingOp::Write { ino, offset, data });
        Ok(fit)
    }

    /// Sets file `ino`'s length and logs it.
    pub(crate) fn set_len_data(&mut self, ino: Ino, len: u64) -> io::Result<()> {
        let old = self.inodes.data(ino).expect("set_len goes to files").len() as u64;
        if len == old {
            return Ok(());
        }
        if len > MAX_FILE_LEN {
            return Err(errno::file_too_large());
        }
        if let Some(capacity) = self.config.faults.capacity {
            if len > old && len - old > capacity.saturating_sub(self.inodes.usage()) {
                return Err(errno::no_space());
            }
        }
        self.inodes
            .update_data(ino, |file| file.resize(len as usize, 0));
        self.log.push(PendingOp::SetLen { ino, len });
        Ok(())
    }

    /// `lseek(2)`: moves the cursor; returns the new position. Seeking
    /// before the start is `EINVAL`; past the end is allowed (a later write
    /// fills the gap with zeros).
    pub fn seek(&mut self, fd: Fd, pos: SeekFrom) -> io::Result<u64> {
        let desc = self.desc(fd)?;
        let len = match self.inodes.data(desc.ino) {
            Some(data) => data.len() as u64,
            None => crate::metadata::DIR_LEN,
        };
        let new = match pos {
            SeekFrom::Start(n) => Some(n),
            SeekFrom::Current(d) => desc.pos.checked_add_signed(d),
            SeekFrom::End(d) => len.checked_add_signed(d),
        };
        let new = new
            .filter(|&n| n <= i64::MAX as u64)
            .ok_or_else(errno::invalid_input)?;
        self.desc_mut(fd)?.pos = new;
        Ok(new)
    }

    /// `ftruncate(2)` (`File::set_len`): truncates or extends with zeros.
    /// Pending until the file is synced. `EINVAL` on a handle without write
    /// access or on a directory, as on Linux.
    pub fn set_len(&mut self, fd: Fd, len: u64, chooser: &mut dyn Chooser) -> io::Result<()> {
        let desc = self.desc(fd)?;
        let ino = desc.ino;
        if !desc.write || self.inodes.data(ino).is_none() {
            return Err(errno::invalid_input());
        }
        if len > i64::MAX as u64 {
            return Err(errno::invalid_input_msg(
                "out of range integral type conversion attempted",
            ));
        }
        self.fault(IoOp::Write, chooser)?;
        self.set_len_data(ino, len)
    }

    /// `fsync(2)` (`File::sync_all`) on a file or a directory handle.
    ///
    /// On a file, makes its data and length durable (with
    /// [`EntryDurability::FileSyncToo`], also the pending entry operations
    /// up to its own last one, in order). On a directory, makes its entries
    /// durable: its pending creates, links, removes, mkdirs, and its half of
    /// each rename into or out of it. May fail with an injected `EIO`
    /// ([`IoOp::Sync`]); a failed file sync drops the file's dirty data
    /// unless [`Faults::sync_error_drops_dirty`](crate::Faults) is off.
    pub fn sync_all(&mut self, fd: Fd, chooser: &mut dyn Chooser) -> io::Result<()> {
        self.sync(fd, chooser)
    }

    /// `fdatasync(2)` (`File::sync_data`): the same as
    /// [`Fs::sync_all`], since the model has no timestamps and a file's
    /// length is part of its data.
    pub fn sync_data(&mut self, fd: Fd, chooser: &mut dyn Chooser) -> io::Result<()> {
        self.sync(fd, chooser)
    }

    fn sync(&mut self, fd: Fd, chooser: &mut dyn Chooser) -> io::Result<()> {
        let ino = self.desc(fd)?.ino;
        let is_file = self.inodes.data(ino).is_some();
        if let Err(e) = self.fault(IoOp::Sync, chooser) {
            if is_file && self.config.faults.sync_error_drops_dirty {
                let before = self.log.len();
                self.log.retain(|op| !(op.is_data() && op.ino() == ino));
                if self.log.len() != before {
                    self.lost_dirty.insert(ino);
                }
            }
            return Err(e);
        }
        if is_file {
            self.sync_file(ino);
        } else {
            self.sync_dir(ino);
        }
        Ok(())
    }

    /// Makes file `ino`'s data durable (and, with
    /// [`EntryDurability::FileSyncToo`], the entry operations up to its last
    /// one).
    pub(crate) fn sync_file(&mut self, ino: Ino) {
        let last_entry_op = match self.config.entries {
            EntryDurability::ParentSync => None,
            EntryDurability::FileSyncToo => self
                .log
                .iter()
                .rposition(|op| !op.is_data() && op.ino() == ino),
        };
        let durable = &mut self.durable;
        let mut index = 0;
        self.log.retain(|op| {
            let in_commit = last_entry_op.is_some_and(|last| index <= last) && !op.is_data();
            index += 1;
            if in_commit || (op.is_data() && op.ino() == ino) {
                durable.apply(op);
                false
            } else {
                true
            }
        });
    }

    /// Makes directory `dir`'s entries durable.
    pub(crate) fn sync_dir(&mut self, dir: Ino) {
        let durable = &mut self.durable;
        self.log.retain_mut(|op| match op {
            PendingOp::Link { dir: d, .. } | PendingOp::Unlink { dir: d, .. } if *d == dir => {
                durable.apply(op);
                false
            }
            PendingOp::Rename {
                from,
                to,
                ino,
                kind,
            } => {
                if from.as_ref().is_some_and(|(d, _)| *d == dir) {
                    let (d, name) = from.take().expect("checked above");
                    durable.remove_entry(d, &name, *ino);
                }
                if to.as_ref().is_some_and(|(d, _)| *d == dir) {
                    let (d, name) = to.take().expect("checked above");
                    durable.add_entry(d, name, *ino, *kind);
                }
                from.is_some() || to.is_some()
            }
            _ => true,
        });
        self.collect_garbage();
    }

    /// How `fd` was opened (its description's access mode and append
    /// flag), as `fcntl(F_GETFL)` reports it.
    ///
    /// # Errors
    ///
    /// `EBADF` for an unknown descriptor.
    pub fn access(&self, fd: Fd) -> io::Result<Access> {
        let desc = self.desc(fd)?;
        Ok(Access {
            read: desc.read,
            write: desc.write,
            append: desc.append,
        })
    }

    /// `fstat(2)` (`File::metadata`). Works on a removed file that is still
    /// open (its link count is 0).
    pub fn file_metadata(&self, fd: Fd) -> io::Result<Metadata> {
        Ok(self.metadata_of(self.desc(fd)?.ino))
    }
}

#[cfg(all(test, unix))]
mod tests {
    use std::io::SeekFrom;

    use crate::{
        Choice, DefaultChooser, FnChooser, Fs, FsConfig, IoOp, OpenOptions, RecordingChooser,
        TreeEntry,
    };

    fn errno(r: std::io::Result<impl std::fmt::Debug>) -> i32 {
        r.expect_err("expected an error")
            .raw_os_error()
            .expect("a raw OS error")
    }

    fn file(fs: &Fs, path: &str) -> Vec<u8> {
        match &fs.tree()[std::path::Path::new(path)] {
            TreeEntry::File(data) => data.clone(),
            other => panic!("{path} is not a file: {other:?}"),
        }
    }

    #[test]
    fn write_read_seek_with_a_shared_cursor() {
        let mut fs = Fs::default();
        let f = fs
            .open("/f", OpenOptions::new().read(true).write(true).create(true))
            .unwrap();
        assert_eq!(
            fs.write(f, b"hello world", &mut DefaultChooser).unwrap(),
            11
        );
        assert_eq!(fs.seek(f, SeekFrom::Start(6)).unwrap(), 6);
        let g = fs.try_clone(f).unwrap();
        let mut buf = [0; 5];
        assert_eq!(fs.read(g, &mut buf, &mut DefaultChooser).unwrap(), 5);
        assert_eq!(&buf, b"world");
        assert_eq!(
            fs.seek(f, SeekFrom::Current(0)).unwrap(),
            11,
            "dup shares the cursor"
        );
        assert_eq!(
            fs.read(f, &mut buf, &mut DefaultChooser).unwrap(),
            0,
            "end of file"
        );
        assert_eq!(errno(fs.seek(f, SeekFrom::Current(-12))), libc::EINVAL);
        assert_eq!(fs.seek(f, SeekFrom::End(2)).unwrap(), 13);
        fs.write(f, b"!", &mut DefaultChooser).unwrap();
        assert_eq!(file(&fs, "/f"), b"hello world\0\0!");
        fs.close(f);
        assert_eq!(fs.open_handles(), 1);
        fs.close(g);
        fs.close(g); // closing twice is harmless
        assert_eq!(
            errno(fs.read(g, &mut buf, &mut DefaultChooser)),
            libc::EBADF
        );
        fs.check_invariants();
    }

    #[test]
    fn access_modes_match_linux() {
        let mut fs = Fs::default();
        fs.write_file("/f", b"abc", &mut DefaultChooser).unwrap();
        let ro = fs.open("/f", &OpenOptions::for_open()).unwrap();
        assert_eq!(errno(fs.write(ro, b"x", &mut DefaultChooser)), libc::EBADF);
        assert_eq!(errno(fs.set_len(ro, 0, &mut DefaultChooser)), libc::EINVAL);
        fs.sync_all(ro, &mut DefaultChooser)
            .expect("fsync works on a read-only handle");
        let wo = fs.open("/f", OpenOptions::new().write(true)).unwrap();
        assert_eq!(
            errno(fs.read(wo, &mut [0; 1], &mut DefaultChooser)),
            libc::EBADF
        );
        let no_access = fs.open("/f", &OpenOptions::new());
        assert_eq!(
            no_access.unwrap_err().kind(),
            std::io::ErrorKind::InvalidInput
        );
        let access = |read, write, append| crate::Access {
            read,
            write,
            append,
        };
        assert_eq!(fs.access(ro).unwrap(), access(true, false, false));
        assert_eq!(fs.access(wo).unwrap(), access(false, true, false));
        let app = fs.open("/f", OpenOptions::new().append(true)).unwrap();
        assert_eq!(fs.access(app).unwrap(), access(false, true, true));
        fs.close(app);
        assert_eq!(errno(fs.access(app)), libc::EBADF);
        fs.check_invariants();
    }

    #[test]
    fn append_and_pwrite_in_append_mode_go_to_the_end() {
        let mut fs = Fs::default();
        fs.write_file("/f", b"hello", &mut DefaultChooser).unwrap();
        let a = fs.open("/f", OpenOptions::new().append(true)).unwrap();
        fs.write_at(a, 0, b"ZZ", &mut DefaultChooser).unwrap();
        fs.write(a, b"!", &mut DefaultChooser).unwrap();
        assert_eq!(file(&fs, "/f"), b"helloZZ!");
        let w = fs.open("/f", OpenOptions::new().write(true)).unwrap();
        fs.write_at(w, 10, b"Q", &mut DefaultChooser).unwrap();
        assert_eq!(file(&fs, "/f"), b"helloZZ!\0\0Q");
        fs.check_invariants();
    }

    #[test]
    fn open_errors_match_linux() {
        let mut fs = Fs::default();
        fs.write_file("/f", b"x", &mut DefaultChooser).unwrap();
        fs.create_dir("/d").unwrap();
        let create = OpenOptions::for_create();
        let create_new = OpenOptions::for_create_new();
        let open = OpenOptions::for_open();
        assert_eq!(errno(fs.open("/missing", &open)), libc::ENOENT);
        assert_eq!(errno(fs.open("", &open)), libc::ENOENT);
        assert_eq!(errno(fs.open("/f/x", &open)), libc::ENOTDIR);
        assert_eq!(errno(fs.open("/f/x", &create)), libc::ENOTDIR);
        assert_eq!(errno(fs.open("/f/", &open)), libc::ENOTDIR);
        assert_eq!(errno(fs.open("/nodir/x", &create)), libc::ENOENT);
        assert_eq!(errno(fs.open("/new/", &create)), libc::EISDIR);
        assert_eq!(errno(fs.open("/d", &create)), libc::EISDIR);
        assert_eq!(errno(fs.open("/f", &create_new)), libc::EEXIST);
        assert_eq!(errno(fs.open("/d", &create_new)), libc::EEXIST);
        let d = fs.open("/d/", &open).expect("a directory opens read-only");
        assert_eq!(
            errno(fs.read(d, &mut [0; 1], &mut DefaultChooser)),
            libc::EISDIR
        );
        assert_eq!(errno(fs.set_len(d, 0, &mut DefaultChooser)), libc::EINVAL);
        assert!(fs.file_metadata(d).unwrap().is_dir());
        fs.check_invariants();
    }

    #[test]
    fn truncate_on_open_and_set_len() {
        let mut fs = Fs::default();
        fs.write_file("/f", b"hello", &mut DefaultChooser).unwrap();
        let f = fs.open("/f", OpenOptions::new().write(true)).unwrap();
        fs.set_len(f, 2, &mut DefaultChooser).unwrap();
        assert_eq!(file(&fs, "/f"), b"he");
        fs.set_len(f, 4, &mut DefaultChooser).unwrap();
        assert_eq!(file(&fs, "/f"), b"he\0\0");
        let t = fs.open("/f", &OpenOptions::for_create()).unwrap();
        assert_eq!(fs.file_metadata(t).unwrap().len(), 0);
        fs.check_invariants();
    }

    #[test]
    fn removed_file_lives_while_open() {
        let mut fs = Fs::default();
        fs.write_file("/f", b"data", &mut DefaultChooser).unwrap();
        let f = fs
            .open("/f", OpenOptions::new().read(true).write(true))
            .unwrap();
        fs.remove_file("/f").unwrap();
        assert!(!fs.try_exists("/f").unwrap());
        assert_eq!(fs.file_metadata(f).unwrap().nlink(), 0);
        fs.write_at(f, 4, b"+", &mut DefaultChooser).unwrap();
        let mut buf = [0; 8];
        assert_eq!(fs.read_at(f, 0, &mut buf, &mut DefaultChooser).unwrap(), 5);
        assert_eq!(&buf[..5], b"data+");
        assert_eq!(fs.usage(), 5);
        fs.close(f);
        assert_eq!(fs.usage(), 0, "the last close frees the data");
        fs.check_invariants();
    }

    #[test]
    fn file_sync_makes_data_durable_not_the_entry() {
        let mut fs = Fs::default();
        let f = fs.open("/f", &OpenOptions::for_create()).unwrap();
        fs.write(f, b"abc", &mut DefaultChooser).unwrap();
        fs.sync_data(f, &mut DefaultChooser).unwrap();
        assert!(
            fs.durable_tree().is_empty(),
            "the entry needs the root synced"
        );
        let root = fs.open("/", &OpenOptions::for_open()).unwrap();
        fs.sync_all(root, &mut DefaultChooser).unwrap();
        assert_eq!(fs.durable_tree(), fs.tree());
        assert!(fs.pending().is_empty());
        fs.check_invariants();
    }

    #[test]
    fn file_sync_too_commits_entries_up_to_its_own() {
        let mut fs = Fs::new(FsConfig {
            entries: crate::EntryDurability::FileSyncToo,
            ..FsConfig::default()
        });
        fs.create_dir("/d").unwrap();
        let f = fs.open("/d/f", &OpenOptions::for_create()).unwrap();
        fs.write(f, b"abc", &mut DefaultChooser).unwrap();
        fs.write_file("/later", b"", &mut DefaultChooser).unwrap();
        fs.sync_all(f, &mut DefaultChooser).unwrap();
        let durable = fs.durable_tree();
        assert_eq!(durable.len(), 2, "/d and /d/f, not /later: {durable:?}");
        assert_eq!(
            durable[std::path::Path::new("/d/f")],
            TreeEntry::File(b"abc".to_vec())
        );
        fs.check_invariants();
    }

    #[test]
    fn eio_is_a_choice_only_when_configured() {
        let mut fs = Fs::default();
        let mut rec = RecordingChooser::new(DefaultChooser);
        fs.write_file("/f", b"abc", &mut rec).unwrap();
        assert!(rec.log().is_empty(), "no faults configured, nothing asked");

        fs.config_mut().faults.eio_write = 0.25;
        let f = fs.open("/f", OpenOptions::new().write(true)).unwrap();
        let mut fail = FnChooser(|c: &Choice, n: usize| {
            assert_eq!(
                *c,
                Choice::Eio {
                    op: IoOp::Write,
                    probability: 0.25
                }
            );
            n - 1
        });
        assert_eq!(errno(fs.write(f, b"x", &mut fail)), libc::EIO);
        assert_eq!(file(&fs, "/f"), b"abc", "a failed write changes nothing");
        assert_eq!(
            fs.write(f, b"x", &mut DefaultChooser).unwrap(),
            1,
            "answer 0 is success"
        );
        fs.check_invariants();
    }

    #[test]
    fn failed_sync_drops_dirty_data_like_linux() {
        let mut fs = Fs::default();
        fs.config_mut().faults.eio_sync = 0.5;
        let f = fs.open("/f", &OpenOptions::for_create()).unwrap();
        let root = fs.open("/", &OpenOptions::for_open()).unwrap();
        fs.sync_all(root, &mut DefaultChooser).unwrap();
        fs.write(f, b"lost", &mut DefaultChooser).unwrap();
        let mut fail = FnChooser(|_: &Choice, _: usize| 1);
        assert_eq!(errno(fs.sync_all(f, &mut fail)), libc::EIO);
        assert_eq!(file(&fs, "/f"), b"lost", "reads still see the data");
        fs.write(f, b"!", &mut DefaultChooser).unwrap();
        fs.sync_all(f, &mut DefaultChooser)
            .expect("a retried fsync succeeds...");
        fs.check_invariants();
        fs.crash(&mut DefaultChooser);
        assert_eq!(file(&fs, "/f"), b"\0\0\0\0!", "...without the dropped data");

        let mut kind = Fs::default();
        kind.config_mut().faults.eio_sync = 0.5;
        kind.config_mut().faults.sync_error_drops_dirty = false;
        let f = kind.open("/f", &OpenOptions::for_create()).unwrap();
        kind.write(f, b"kept", &mut DefaultChooser).unwrap();
        assert!(kind.sync_all(f, &mut fail).is_err());
        kind.sync_all(f, &mut DefaultChooser).unwrap();
        let root = kind.open("/", &OpenOptions::for_open()).unwrap();
        kind.sync_all(root, &mut DefaultChooser).unwrap();
        kind.crash(&mut DefaultChooser);
        assert_eq!(file(&kind, "/f"), b"kept");
    }

    #[test]
    fn capacity_makes_writes_short_then_enospc() {
        let mut fs = Fs::default();
        fs.config_mut().faults.capacity = Some(10);
        let f = fs.open("/f", &OpenOptions::for_create()).unwrap();
        assert_eq!(fs.write(f, b"12345678", &mut DefaultChooser).unwrap(), 8);
        assert_eq!(
            fs.write(f, b"abcd", &mut DefaultChooser).unwrap(),
            2,
            "short write"
        );
        let e = fs.write(f, b"x", &mut DefaultChooser).unwrap_err();
        assert_eq!(e.raw_os_error(), Some(libc::ENOSPC));
        assert_eq!(e.kind(), std::io::ErrorKind::StorageFull);
        fs.write_at(f, 0, b"overwrite", &mut DefaultChooser)
            .expect("overwriting needs no space");
        assert_eq!(errno(fs.set_len(f, 11, &mut DefaultChooser)), libc::ENOSPC);
        assert_eq!(
            errno(fs.write_file("/g", b"x", &mut DefaultChooser)),
            libc::ENOSPC
        );
        fs.set_len(f, 0, &mut DefaultChooser).unwrap();
        fs.write_file("/g", b"x", &mut DefaultChooser)
            .expect("truncation freed space");
        assert_eq!(
            errno(fs.write_at(f, crate::MAX_FILE_LEN, b"x", &mut DefaultChooser)),
            libc::EFBIG
        );
        fs.check_invariants();
    }

    #[test]
    fn latency_is_reported_per_kind() {
        let mut fs = Fs::default();
        fs.config_mut().latency.sync = core::time::Duration::from_millis(5);
        assert_eq!(fs.latency(IoOp::Sync), core::time::Duration::from_millis(5));
        assert_eq!(fs.latency(IoOp::Read), core::time::Duration::ZERO);
    }
}
