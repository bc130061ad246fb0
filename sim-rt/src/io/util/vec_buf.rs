//! The destination vector of `read_to_end` and `read_to_string`, grown as
//! tokio grows it.
//!
//! tokio reads straight into the vector's spare capacity without zeroing
//! it, remembers how many bytes past the length earlier reads initialized,
//! and hands the reader a [`ReadBuf`] that says so
//! ([`ReadBuf::initialized`] is observable). It grows the vector only when
//! fewer than [`MIN_ROOM`] bytes are spare, by `Vec::reserve(MIN_ROOM)`
//! (so amortized doubling); and when a vector that has not grown yet (and
//! had at least `MIN_ROOM` capacity) is nearly full, it first reads into a
//! small buffer on the stack, so that reaching end of file does not cost a
//! reallocation: a vector with room for all the data keeps its capacity.
//!
//! # Invariants
//!
//! The first `initialized` bytes of the vector's allocation are
//! initialized, and `len <= initialized <= capacity`.

// Reading into spare capacity without zeroing it needs `unsafe` (see the
// `SAFETY` comments); it is what makes `ReadBuf::initialized` report what
// tokio reports.
#![allow(unsafe_code)]

use std::io;
use std::mem::MaybeUninit;
use std::pin::Pin;
use std::task::{Context, Poll};

use crate::io::{AsyncRead, ReadBuf};

/// The least spare room a read gets, and the size of the small read.
const MIN_ROOM: usize = 32;

/// A vector that `VecBuf` may hold: the vector itself or a unique borrow
/// of one. Sealed, so that `as_vec` always returns the same vector (the
/// invariant above is about that one allocation).
pub(super) trait OwnedOrBorrowed: sealed::Sealed {
    fn as_vec(&mut self) -> &mut Vec<u8>;
    fn as_vec_ref(&self) -> &Vec<u8>;
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for Vec<u8> {}
    impl Sealed for &mut Vec<u8> {}
}

impl OwnedOrBorrowed for Vec<u8> {
    fn as_vec(&mut self) -> &mut Vec<u8> {
        self
    }
    fn as_vec_ref(&self) -> &Vec<u8> {
        self
    }
}

impl OwnedOrBorrowed for &mut Vec<u8> {
    fn as_vec(&mut self) -> &mut Vec<u8> {
        self
    }
    fn as_vec_ref(&self) -> &Vec<u8> {
        self
    }
}

/// A vector with a count of the initialized bytes in its spare capacity.
#[derive(Debug)]
pub(super) struct VecBuf<V> {
    vec: V,
    /// Bytes of the allocation known to be initialized, from its start.
    initialized: usize,
    /// The capacity the vector had when the read began.
    starting_capacity: usize,
}

impl<V: OwnedOrBorrowed> VecBuf<V> {
    pub(super) fn new(mut vec: V) -> Self {
        let v = vec.as_vec();
        VecBuf {
            initialized: v.len(),
            starting_capacity: v.capacity(),
            vec,
        }
    }

    /// Makes at least `room` bytes spare; a reallocation forgets what was
    /// initialized past the length.
    fn reserve(&mut self, room: usize) {
        let v = self.vec.as_vec();
        if v.capacity() - v.len() >= room {
            return;
        }
        self.initialized = v.len();
        v.reserve(room);
    }

    /// Whether to read into a small buffer first (see the module docs).
    fn small_read_first(&self) -> bool {
        let v = self.vec.as_vec_ref();
        v.capacity() - v.len() < MIN_ROOM
            && self.starting_capacity == v.capacity()
            && self.starting_capacity >= MIN_ROOM
    }

    /// Calls `f` with a `ReadBuf` over the whole allocation, its filled
    /// part being the vector's contents; then takes the new length and
    /// the initialized count from it.
    fn with_read_buf<T>(&mut self, f: impl FnOnce(&mut ReadBuf<'_>) -> T) -> T {
        let initialized = self.initialized;
        let v = self.vec.as_vec();
        let len = v.len();
        let capacity = v.capacity();
        let ptr = v.as_mut_ptr();
        debug_assert!(len <= initialized && initialized <= capacity);
        // SAFETY: `ptr` points to an allocation of `capacity` bytes owned
        // by `v`, which stays borrowed (unused otherwise) while the slice
        // lives. Viewing bytes as `MaybeUninit` asserts nothing about them.
        let all =
            unsafe { std::slice::from_raw_parts_mut(ptr.cast::<MaybeUninit<u8>>(), capacity) };
        let mut read_buf = ReadBuf::uninit(all);
        // SAFETY: the invariant: the first `initialized` bytes are
        // initialized.
        unsafe { read_buf.assume_init(initialized) };
        read_buf.set_filled(len);
        let out = f(&mut read_buf);
        let (new_len, new_initialized) = (read_buf.filled().len(), read_buf.initialized().len());
        assert_eq!(
            read_buf.filled().as_ptr(),
            ptr.cast_const(),
            "a reader replaced the ReadBuf it was given by another buffer"
        );
        // SAFETY: `ReadBuf` counts as initialized only bytes that were
        // (it never de-initializes, and `assume_init` by a reader vouches
        // for its bytes), and its filled part is within its initialized
        // part; both lie in this allocation (checked above).
        unsafe { v.set_len(new_len) };
        self.initialized = new_initialized;
        out
    }

    pub(super) fn is_empty(&self) -> bool {
        self.vec.as_vec_ref().is_empty()
    }
}

impl VecBuf<Vec<u8>> {
    /// Takes the vector out, leaving an empty one.
    pub(super) fn take(&mut self) -> Vec<u8> {
        self.initialized = 0;
        std::mem::take(&mut self.vec)
    }
}

/// Reads once from `reader` into `buf`, growing it as tokio does; returns
/// the number of bytes appended (0 at end of file).
fn poll_read_once<V: OwnedOrBorrowed, R: AsyncRead + ?Sized>(
    buf: &mut VecBuf<V>,
    reader: Pin<&mut R>,
    cx: &mut Context<'_>,
) -> Poll<io::Result<usize>> {
    if buf.small_read_first() {
        let mut small = [MaybeUninit::<u8>::uninit(); MIN_ROOM];
        let mut small_buf = ReadBuf::uninit(&mut small);
        let res = reader.poll_read(cx, &mut small_buf);
        let got = small_buf.filled();
        if got.len() > buf.with_read_buf(|rb| rb.remaining()) {
            buf.reserve(MIN_ROOM);
        }
        buf.with_read_buf(|rb| rb.put_slice(got));
        res.map_ok(|()| got.len())
    } else {
        buf.reserve(MIN_ROOM);
        buf.with_read_buf(|rb| {
            let before = rb.filled().len();
            let res = reader.poll_read(cx, rb);
            res.map_ok(|()| rb.filled().len() - before)
        })
    }
}

/// Reads into `buf` until end of file, counting in `read` the bytes
/// appended since the start; at end of file returns that count (and
/// resets it). `Interrupted` is retried.
pub(super) fn poll_read_to_end<V: OwnedOrBorrowed, R: AsyncRead + ?Sized>(
    buf: &mut VecBuf<V>,
    mut reader: Pin<&mut R>,
    read: &mut usize,
    cx: &mut Context<'_>,
) -> Poll<io::Result<usize>> {
    loop {
        match std::task::ready!(poll_read_once(buf, reader.as_mut(), cx)) {
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Poll::Ready(Err(e)),
            Ok(0) => return Poll::Ready(Ok(std::mem::take(read))),
            Ok(n) => *read += n,
        }
    }
}
