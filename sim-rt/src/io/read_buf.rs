//! [`ReadBuf`]: a byte buffer that may be partly uninitialized, filled by
//! readers.
//!
//! # Invariants
//!
//! `filled <= initialized <= buf.len()`: the first `filled` bytes hold
//! data, the first `initialized` bytes have been written at some point
//! (so may be read as `u8`), the rest may be uninitialized. Every `unsafe`
//! block below relies on this and nothing else.

// The one place in `io` with `unsafe`: a buffer of `MaybeUninit<u8>` seen
// as `&[u8]` up to its initialized length, as tokio's API requires.
#![allow(unsafe_code)]

use std::fmt;
use std::mem::MaybeUninit;

/// Own version of
/// [`tokio::io::ReadBuf`](https://docs.rs/tokio/1/tokio/io/struct.ReadBuf.html):
/// a wrapper around a byte buffer that is incrementally filled and
/// initialized.
///
/// The buffer has three regions: the *filled* bytes at its start (data
/// read so far), then initialized but unfilled bytes, then uninitialized
/// bytes:
///
/// ```text
/// [             capacity              ]
/// [ filled |         unfilled         ]
/// [    initialized    | uninitialized ]
/// ```
///
/// # Differences from tokio
///
/// None.
pub struct ReadBuf<'a> {
    buf: &'a mut [MaybeUninit<u8>],
    filled: usize,
    initialized: usize,
}

/// `&mut [u8]` as `&mut [MaybeUninit<u8>]`.
///
/// # Safety
///
/// The caller must never write an uninitialized byte through the result.
unsafe fn as_uninit_mut(slice: &mut [u8]) -> &mut [MaybeUninit<u8>] {
    // SAFETY: `MaybeUninit<u8>` has the layout of `u8`; the caller
    // promises to keep the bytes initialized.
    unsafe { &mut *(slice as *mut [u8] as *mut [MaybeUninit<u8>]) }
}

/// # Safety
///
/// Every byte of `slice` must be initialized.
unsafe fn assume_init_ref(slice: &[MaybeUninit<u8>]) -> &[u8] {
    // SAFETY: same layout; the caller promises the bytes are initialized.
    unsafe { &*(slice as *const [MaybeUninit<u8>] as *const [u8]) }
}

/// # Safety
///
/// Every byte of `slice` must be initialized.
unsafe fn assume_init_mut(slice: &mut [MaybeUninit<u8>]) -> &mut [u8] {
    // SAFETY: same layout; the caller promises the bytes are initialized,
    // and a `&mut [u8]` can only write initialized bytes.
    unsafe { &mut *(slice as *mut [MaybeUninit<u8>] as *mut [u8]) }
}

impl<'a> ReadBuf<'a> {
    /// Creates a `ReadBuf` over a fully initialized buffer, with nothing
    /// filled.
    #[inline]
    pub fn new(buf: &'a mut [u8]) -> ReadBuf<'a> {
        let initialized = buf.len();
        // SAFETY: `ReadBuf` never writes an uninitialized byte into the
        // initialized region, and all of `buf` is initialized.
        let buf = unsafe { as_uninit_mut(buf) };
        ReadBuf {
            buf,
            filled: 0,
            initialized,
        }
    }

    /// Creates a `ReadBuf` over a buffer that may be uninitialized, with
    /// nothing filled or initialized.
    #[inline]
    pub fn uninit(buf: &'a mut [MaybeUninit<u8>]) -> ReadBuf<'a> {
        ReadBuf {
            buf,
            filled: 0,
            initialized: 0,
        }
    }

    /// The total size of the buffer.
    #[inline]
    pub fn capacity(&self) -> usize {
        self.buf.len()
    }

    /// The filled part of the buffer.
    #[inline]
    pub fn filled(&self) -> &[u8] {
        // SAFETY: filled <= initialized (invariant).
        unsafe { assume_init_ref(&self.buf[..self.filled]) }
    }

    /// The filled part of the buffer, mutably.
    #[inline]
    pub fn filled_mut(&mut self) -> &mut [u8] {
        // SAFETY: filled <= initialized (invariant).
        unsafe { assume_init_mut(&mut self.buf[..self.filled]) }
    }

    /// A new `ReadBuf` over at most `n` bytes of the unfilled part, with
    /// nothing filled or initialized (what it fills is not counted as
    /// filled here: use [`assume_init`](Self::assume_init) and
    /// [`advance`](Self::advance) for that).
    #[inline]
    pub fn take(&mut self, n: usize) -> ReadBuf<'_> {
        let end = self.filled + n.min(self.remaining());
        ReadBuf::uninit(&mut self.buf[self.filled..end])
    }

    /// The initialized part of the buffer (which includes the filled part).
    #[inline]
    pub fn initialized(&self) -> &[u8] {
        // SAFETY: the first `initialized` bytes are initialized (invariant).
        unsafe { assume_init_ref(&self.buf[..self.initialized]) }
    }

    /// The initialized part of the buffer, mutably.
    #[inline]
    pub fn initialized_mut(&mut self) -> &mut [u8] {
        // SAFETY: the first `initialized` bytes are initialized (invariant).
        unsafe { assume_init_mut(&mut self.buf[..self.initialized]) }
    }

    /// The whole buffer, which may be uninitialized.
    ///
    /// # Safety
    ///
    /// The caller must not de-initialize bytes that were initialized (write
    /// `MaybeUninit::uninit()` into them).
    #[inline]
    pub unsafe fn inner_mut(&mut self) -> &mut [MaybeUninit<u8>] {
        self.buf
    }

    /// The unfilled part of the buffer, which may be uninitialized.
    ///
    /// # Safety
    ///
    /// The caller must not de-initialize bytes that were initialized.
    #[inline]
    pub unsafe fn unfilled_mut(&mut self) -> &mut [MaybeUninit<u8>] {
        &mut self.buf[self.filled..]
    }

    /// The unfilled part of the buffer, zeroing what was not initialized.
    #[inline]
    pub fn initialize_unfilled(&mut self) -> &mut [u8] {
        self.initialize_unfilled_to(self.remaining())
    }

    /// The first `n` bytes of the unfilled part, zeroing what was not
    /// initialized.
    ///
    /// # Panics
    ///
    /// Panics if `self.remaining()` is less than `n`.
    #[inline]
    #[track_caller]
    pub fn initialize_unfilled_to(&mut self, n: usize) -> &mut [u8] {
        assert!(self.remaining() >= n, "n overflows remaining");
        let end = self.filled + n;
        if self.initialized < end {
            // One `memset`, not a loop of byte writes: in a debug build the
            // loop costs about a hundred instructions a byte, and hyper and
            // h2 hand over buffers of 8 KiB and more (a third of a debug
            // build's time on examples/shop, before this).
            let uninit = &mut self.buf[self.initialized..end];
            // SAFETY: `uninit` is a valid, writable region of `uninit.len()`
            // bytes; zero is a valid `MaybeUninit<u8>`.
            unsafe { std::ptr::write_bytes(uninit.as_mut_ptr(), 0, uninit.len()) };
            self.initialized = end;
        }
        // SAFETY: `..end` is initialized: before the `write_bytes` above or by it.
        unsafe { assume_init_mut(&mut self.buf[self.filled..end]) }
    }

    /// The number of bytes that can still be filled.
    #[inline]
    pub fn remaining(&self) -> usize {
        self.capacity() - self.filled
    }

    /// Clears the buffer: nothing is filled (the initialized part stays).
    #[inline]
    pub fn clear(&mut self) {
        self.filled = 0;
    }

    /// Counts `n` more bytes as filled.
    ///
    /// # Panics
    ///
    /// Panics if the filled region would pass the initialized one.
    #[inline]
    #[track_caller]
    pub fn advance(&mut self, n: usize) {
        let filled = self.filled.checked_add(n).expect("filled overflow");
        self.set_filled(filled);
    }

    /// Sets the filled length to `n` (it may shrink it).
    ///
    /// # Panics
    ///
    /// Panics if `n` is larger than the initialized length.
    #[inline]
    #[track_caller]
    pub fn set_filled(&mut self, n: usize) {
        assert!(
            n <= self.initialized,
            "filled must not become larger than initialized"
        );
        self.filled = n;
    }

    /// Asserts that the first `n` unfilled bytes are initialized.
    ///
    /// # Safety
    ///
    /// The caller must have initialized those bytes.
    #[inline]
    pub unsafe fn assume_init(&mut self, n: usize) {
        let end = self.filled + n;
        if end > self.initialized {
            self.initialized = end;
        }
    }

    /// Appends `buf` to the filled part.
    ///
    /// # Panics
    ///
    /// Panics if `self.remaining()` is less than `buf.len()`.
    #[inline]
    #[track_caller]
    pub fn put_slice(&mut self, buf: &[u8]) {
        assert!(
            self.remaining() >= buf.len(),
            "buf.len() must fit in remaining(); buf.len() = {}, remaining() = {}",
            buf.len(),
            self.remaining()
        );
        let end = self.filled + buf.len();
        for (dst, src) in self.buf[self.filled..end].iter_mut().zip(buf) {
            dst.write(*src);
        }
        self.initialized = self.initialized.max(end);
        self.filled = end;
    }
}

// SAFETY: `chunk_mut` hands out the unfilled part, which `UninitSlice`
// never de-initializes; `advance_mut` trusts the caller (per `BufMut`'s
// contract) that `cnt` of those bytes were written.
unsafe impl bytes::BufMut for ReadBuf<'_> {
    fn remaining_mut(&self) -> usize {
        self.remaining()
    }

    unsafe fn advance_mut(&mut self, cnt: usize) {
        // SAFETY: the caller of `advance_mut` initialized `cnt` bytes.
        unsafe { self.assume_init(cnt) };
        self.advance(cnt);
    }

    fn chunk_mut(&mut self) -> &mut bytes::buf::UninitSlice {
        // SAFETY: `UninitSlice` never writes uninitialized bytes.
        let unfilled = unsafe { self.unfilled_mut() };
        bytes::buf::UninitSlice::uninit(unfilled)
    }
}

impl fmt::Debug for ReadBuf<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ReadBuf")
            .field("filled", &self.filled)
            .field("initialized", &self.initialized)
            .field("capacity", &self.capacity())
            .finish()
    }
}
