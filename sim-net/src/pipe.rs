//! Pipes (`pipe(2)`, FIFOs): one byte queue of a host, with counts of the
//! read and write ends open on it, as Linux's pipe buffer.
//!
//! | situation | result |
//! |---|---|
//! | read, bytes queued | up to the buffer's length |
//! | read, nothing queued, no write end open | `Ok(0)` (end of file; reported as readable only once a writer has come since the reader opened, as Linux's `poll`) |
//! | read, nothing queued, a write end open | `WouldBlock` |
//! | write, no read end open | `BrokenPipe` (Linux's `EPIPE`; the signal is the runtime's business) |
//! | write, the queue full ([`PIPE_CAPACITY`] bytes) | `WouldBlock`; a write of at most [`PIPE_BUF`] bytes is written whole or not at all |
//!
//! The runtime opens and closes ends ([`Net::pipe_open`],
//! [`Net::pipe_close`]) as descriptors come and go; a pipe with no end
//! open forgets its bytes (a FIFO opened again starts empty). Waiters wait
//! on [`Endpoint::Pipe`]: readers for `READABLE`, writers for `WRITABLE`.
//! A stopped host loses its pipes.

use std::collections::{BTreeMap, VecDeque};
use std::io::{ErrorKind, Result};

use crate::error;
use crate::event::{Endpoint, Readiness};
use crate::{HostId, Net, PipeId};

/// A pipe's capacity (Linux's default, 16 pages).
pub const PIPE_CAPACITY: usize = 65_536;

/// The largest write a pipe takes whole or not at all (POSIX `PIPE_BUF`).
pub const PIPE_BUF: usize = 4096;

#[derive(Debug)]
pub(crate) struct Pipe {
    host: HostId,
    buf: VecDeque<u8>,
    readers: usize,
    writers: usize,
    /// Whether the end of file (no writer) is reported as readable:
    /// Linux's `pipe_poll` reports a FIFO's hangup only to a reader that
    /// has seen a writer since it opened (a reader waiting for its first
    /// writer is not woken by the lack of one). One flag for the pipe:
    /// set by a writer's open, cleared by a reader's open while no writer
    /// is there.
    hangup_seen: bool,
}

/// The pipes of a network.
#[derive(Debug, Default)]
pub(crate) struct Pipes {
    pipes: BTreeMap<PipeId, Pipe>,
    /// The pipe of each FIFO (host, inode number of its entry) while an
    /// end is open.
    fifos: BTreeMap<(HostId, u64), PipeId>,
}

impl Pipes {
    pub(crate) fn readiness(&self, id: PipeId) -> Readiness {
        let Some(p) = self.pipes.get(&id) else {
            return Readiness::BOTH;
        };
        let mut r = Readiness::EMPTY;
        if !p.buf.is_empty() || (p.writers == 0 && p.hangup_seen) {
            r |= Readiness::READABLE;
        }
        if p.buf.len() < PIPE_CAPACITY || p.readers == 0 {
            r |= Readiness::WRITABLE;
        }
        r
    }

    pub(crate) fn exists(&self, id: PipeId) -> bool {
        self.pipes.contains_key(&id)
    }

    pub(crate) fn stop_host(&mut self, host: HostId) {
        self.pipes.retain(|_, p| p.host != host);
        self.fifos.retain(|(h, _), _| *h != host);
    }

    fn pipe_mut(&mut self, id: PipeId) -> &mut Pipe {
        self.pipes
            .get_mut(&id)
            .unwrap_or_else(|| panic!("{id} used after its ends closed or its host stopped"))
    }
}

impl Net {
    /// A new pipe of `host`, with no end open yet.
    pub fn pipe_new(&mut self, host: HostId) -> PipeId {
        self.running(host);
        let id = self.ids.pipe();
        self.pipes.pipes.insert(
            id,
            Pipe {
                host,
                buf: VecDeque::new(),
                readers: 0,
                writers: 0,
                hangup_seen: false,
            },
        );
        id
    }

    /// An end is opened: for reading, writing or both (`O_RDWR` on a
    /// FIFO).
    pub fn pipe_open(&mut self, id: PipeId, read: bool, write: bool) {
        let p = self.pipes.pipe_mut(id);
        p.readers += usize::from(read);
        p.writers += usize::from(write);
        if write {
            p.hangup_seen = true;
        } else if read && p.writers == 0 {
            p.hangup_seen = false;
        }
    }

    /// An end is closed. The last write end closed is end of file for
    /// the readers; the last read end closed breaks the writers' pipe;
    /// the last end of all forgets the pipe.
    pub fn pipe_close(&mut self, id: PipeId, read: bool, write: bool) {
        let Some(p) = self.pipes.pipes.get_mut(&id) else {
            return;
        };
        p.readers -= usize::from(read).min(p.readers);
        p.writers -= usize::from(write).min(p.writers);
        let (readers, writers) = (p.readers, p.writers);
        if readers == 0 && writers == 0 {
            self.pipes.pipes.remove(&id);
            self.pipes.fifos.retain(|_, p| *p != id);
            return;
        }
        if write && writers == 0 {
            self.wake(Endpoint::Pipe(id), Readiness::READABLE);
        }
        if read && readers == 0 {
            self.wake(Endpoint::Pipe(id), Readiness::WRITABLE);
        }
    }

    /// The pipe of the FIFO whose entry on `host`'s disk has inode number
    /// `ino`: the one an open end holds, or a new one (a FIFO opened again
    /// after every end closed starts empty). Open an end on it at once
    /// ([`Net::pipe_open`]): a pipe with no end is forgotten when one
    /// closes.
    pub fn fifo_pipe(&mut self, host: HostId, ino: u64) -> PipeId {
        if let Some(&id) = self.pipes.fifos.get(&(host, ino)) {
            return id;
        }
        let id = self.pipe_new(host);
        self.pipes.fifos.insert((host, ino), id);
        id
    }

    /// Whether a read end is open (a FIFO's non-blocking open for writing
    /// fails with `ENXIO` without one).
    pub fn pipe_has_reader(&self, id: PipeId) -> bool {
        self.pipes.pipes.get(&id).is_some_and(|p| p.readers > 0)
    }

    /// Whether a write end is open.
    pub fn pipe_has_writer(&self, id: PipeId) -> bool {
        self.pipes.pipes.get(&id).is_some_and(|p| p.writers > 0)
    }

    /// `read` from the pipe.
    pub fn pipe_read(&mut self, id: PipeId, buf: &mut [u8]) -> Result<usize> {
        let p = self.pipes.pipe_mut(id);
        if p.buf.is_empty() {
            return if p.writers == 0 || buf.is_empty() {
                Ok(0)
            } else {
                Err(error::would_block())
            };
        }
        let was_full = p.buf.len() >= PIPE_CAPACITY;
        let n = buf.len().min(p.buf.len());
        for (d, b) in buf.iter_mut().zip(p.buf.drain(..n)) {
            *d = b;
        }
        if was_full || p.buf.is_empty() {
            self.wake(Endpoint::Pipe(id), Readiness::WRITABLE);
        }
        Ok(n)
    }

    /// `write` to the pipe.
    pub fn pipe_write(&mut self, id: PipeId, buf: &[u8]) -> Result<usize> {
        let p = self.pipes.pipe_mut(id);
        if p.readers == 0 {
            return Err(error::kind(ErrorKind::BrokenPipe));
        }
        if buf.is_empty() {
            return Ok(0);
        }
        let room = PIPE_CAPACITY - p.buf.len();
        if room == 0 || (buf.len() <= PIPE_BUF && room < buf.len()) {
            return Err(error::would_block());
        }
        let n = room.min(buf.len());
        p.buf.extend(&buf[..n]);
        self.wake(Endpoint::Pipe(id), Readiness::READABLE);
        Ok(n)
    }

    /// Bytes queued (`FIONREAD`).
    pub fn pipe_queued(&self, id: PipeId) -> usize {
        self.pipes.pipes.get(&id).map_or(0, |p| p.buf.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::NetConfig;

    #[test]
    fn a_pipe_carries_bytes_and_reports_eof_and_broken_pipe() {
        let mut net = Net::new(NetConfig::default());
        let h = net.add_host("h", []);
        let p = net.pipe_new(h);
        net.pipe_open(p, true, false);
        // No writer yet: end of file, not reported as readable.
        let mut buf = [0; 8];
        assert_eq!(net.pipe_read(p, &mut buf).unwrap(), 0);
        assert!(!net.readiness(Endpoint::Pipe(p)).is_readable());
        net.pipe_open(p, false, true);
        assert_eq!(
            net.pipe_read(p, &mut buf).unwrap_err().kind(),
            ErrorKind::WouldBlock
        );
        assert_eq!(net.pipe_write(p, b"abc").unwrap(), 3);
        assert_eq!(net.pipe_read(p, &mut buf).unwrap(), 3);
        net.pipe_close(p, false, true);
        assert_eq!(net.pipe_read(p, &mut buf).unwrap(), 0);
        assert!(net.readiness(Endpoint::Pipe(p)).is_readable());
        // A second writer, as a FIFO's next opener.
        net.pipe_open(p, false, true);
        net.pipe_write(p, b"de").unwrap();
        net.pipe_close(p, true, false);
        assert_eq!(
            net.pipe_write(p, b"x").unwrap_err().kind(),
            ErrorKind::BrokenPipe
        );
        net.pipe_close(p, false, true);
        assert!(!net.exists(Endpoint::Pipe(p)));
        // A FIFO's pipe lives while an end is open.
        let f = net.fifo_pipe(h, 7);
        net.pipe_open(f, true, false);
        assert_eq!(net.fifo_pipe(h, 7), f);
        net.pipe_close(f, true, false);
        assert_ne!(net.fifo_pipe(h, 7), f);
    }

    #[test]
    fn small_writes_are_whole_and_a_full_pipe_waits() {
        let mut net = Net::new(NetConfig::default());
        let h = net.add_host("h", []);
        let p = net.pipe_new(h);
        net.pipe_open(p, true, true);
        let big = vec![1; PIPE_CAPACITY - 10];
        assert_eq!(net.pipe_write(p, &big).unwrap(), big.len());
        // 20 bytes do not fit whole: nothing is written.
        assert_eq!(
            net.pipe_write(p, &[2; 20]).unwrap_err().kind(),
            ErrorKind::WouldBlock
        );
        // A large write takes what fits.
        assert_eq!(net.pipe_write(p, &vec![3; 5000]).unwrap(), 10);
        assert!(!net.readiness(Endpoint::Pipe(p)).is_writable());
        net.drain_events().for_each(drop);
        let mut buf = vec![0; 100];
        net.pipe_read(p, &mut buf).unwrap();
        assert!(net.drain_events().any(|e| matches!(
            e,
            crate::Event::Ready {
                endpoint: Endpoint::Pipe(_),
                readiness
            } if readiness.is_writable()
        )));
    }
}
