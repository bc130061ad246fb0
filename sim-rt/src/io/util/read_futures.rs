//! The futures of [`AsyncReadExt`](super::AsyncReadExt) (except the
//! integer reads, in `read_int`) and of
//! [`AsyncBufReadExt`](super::AsyncBufReadExt) and
//! [`AsyncSeekExt`](super::AsyncSeekExt).
//!
//! Each holds `&mut` borrows of the reader and the destination and keeps
//! its progress in plain fields, so it can be polled again after
//! `Pending`. Each is `!Unpin`, as tokio's are (a `PhantomPinned` field):
//! code that moves one after polling it, or polls it without pinning,
//! must not compile under the simulator when it would not on tokio.

// `FillBuf` and `poll_read_buf` need `unsafe` (see there).
#![allow(unsafe_code)]

use std::future::Future;
use std::io::{self, SeekFrom};
use std::marker::PhantomPinned;
use std::mem;
use std::pin::Pin;
use std::task::{ready, Context, Poll};

use bytes::BufMut;
use pin_project_lite::pin_project;

use super::vec_buf::{poll_read_to_end, VecBuf};
use crate::io::{AsyncBufRead, AsyncRead, AsyncSeek, ReadBuf};

/// Declares a future struct: `!Unpin` through a pinned `PhantomPinned`,
/// with a `new` that takes the other fields in order.
macro_rules! future_struct {
    ($(#[$doc:meta])* $name:ident<$($lt:lifetime,)* $r:ident $(, $extra:ident)?> { $($field:ident: $ty:ty),* $(,)? }) => {
        pin_project! {
            $(#[$doc])*
            #[derive(Debug)]
            #[must_use = "futures do nothing unless you `.await` or poll them"]
            pub struct $name<$($lt,)* $r: ?Sized $(, $extra: ?Sized)?> {
                $($field: $ty,)*
                // `!Unpin`, as tokio's futures (for async trait methods).
                #[pin]
                _pin: PhantomPinned,
            }
        }

        impl<$($lt,)* $r: ?Sized $(, $extra: ?Sized)?> $name<$($lt,)* $r $(, $extra)?> {
            pub(super) fn new($($field: $ty),*) -> Self {
                $name { $($field,)* _pin: PhantomPinned }
            }
        }
    };
}

future_struct!(
    /// The future of [`AsyncReadExt::read`](super::AsyncReadExt::read).
    Read<'a, R> { reader: &'a mut R, buf: &'a mut [u8] }
);

impl<R: AsyncRead + ?Sized + Unpin> Future for Read<'_, R> {
    type Output = io::Result<usize>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<usize>> {
        let me = self.project();
        let mut buf = ReadBuf::new(me.buf);
        ready!(Pin::new(&mut **me.reader).poll_read(cx, &mut buf))?;
        Poll::Ready(Ok(buf.filled().len()))
    }
}

future_struct!(
    /// The future of [`AsyncReadExt::read_buf`](super::AsyncReadExt::read_buf).
    ReadBufFuture<'a, R, B> { reader: &'a mut R, buf: &'a mut B }
);

/// Reads once into the unfilled part of a `BufMut`; shared with
/// `read_to_end`-like loops. `Ok(0)` when `buf` has no room or at EOF.
pub(super) fn poll_read_buf<R: AsyncRead + ?Sized, B: BufMut + ?Sized>(
    reader: Pin<&mut R>,
    cx: &mut Context<'_>,
    buf: &mut B,
) -> Poll<io::Result<usize>> {
    if !buf.has_remaining_mut() {
        return Poll::Ready(Ok(0));
    }
    let n = {
        let chunk = buf.chunk_mut();
        // SAFETY: `ReadBuf` never writes an uninitialized byte, so nothing
        // in `chunk` is de-initialized.
        let mut read_buf = ReadBuf::uninit(unsafe { chunk.as_uninit_slice_mut() });
        let ptr = read_buf.filled().as_ptr();
        ready!(reader.poll_read(cx, &mut read_buf))?;
        assert_eq!(
            read_buf.filled().as_ptr(),
            ptr,
            "a reader replaced the ReadBuf it was given by another buffer"
        );
        read_buf.filled().len()
    };
    // SAFETY: `ReadBuf` counts as filled only bytes it initialized (or that
    // the reader initialized and vouched for with `assume_init`).
    unsafe { buf.advance_mut(n) };
    Poll::Ready(Ok(n))
}

impl<R, B> Future for ReadBufFuture<'_, R, B>
where
    R: AsyncRead + ?Sized + Unpin,
    B: BufMut + ?Sized,
{
    type Output = io::Result<usize>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<usize>> {
        let me = self.project();
        poll_read_buf(Pin::new(&mut **me.reader), cx, *me.buf)
    }
}

future_struct!(
    /// The future of [`AsyncReadExt::read_exact`](super::AsyncReadExt::read_exact).
    ReadExact<'a, R> { reader: &'a mut R, buf: &'a mut [u8], filled: usize }
);

pub(super) fn early_eof() -> io::Error {
    io::Error::new(io::ErrorKind::UnexpectedEof, "early eof")
}

impl<R: AsyncRead + ?Sized + Unpin> Future for ReadExact<'_, R> {
    type Output = io::Result<usize>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<usize>> {
        let me = self.project();
        while *me.filled < me.buf.len() {
            let mut buf = ReadBuf::new(&mut me.buf[*me.filled..]);
            match ready!(Pin::new(&mut **me.reader).poll_read(cx, &mut buf)) {
                Ok(()) if buf.filled().is_empty() => return Poll::Ready(Err(early_eof())),
                Ok(()) => *me.filled += buf.filled().len(),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Poll::Ready(Err(e)),
            }
        }
        Poll::Ready(Ok(me.buf.len()))
    }
}

future_struct!(
    /// The future of [`AsyncReadExt::read_to_end`](super::AsyncReadExt::read_to_end).
    ReadToEnd<'a, R> { reader: &'a mut R, buf: VecBuf<&'a mut Vec<u8>>, read: usize }
);

impl<R: AsyncRead + ?Sized + Unpin> Future for ReadToEnd<'_, R> {
    type Output = io::Result<usize>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<usize>> {
        let me = self.project();
        poll_read_to_end(me.buf, Pin::new(&mut **me.reader), me.read, cx)
    }
}

/// Turns the bytes of a string read (`bytes`: the original contents, then
/// `read` new bytes) back into `output`, as tokio does:
///
/// - valid UTF-8 and no I/O error: all of it;
/// - valid UTF-8 and an I/O error: all of it, or the original contents if
///   `truncate_on_io_error` (`read_to_string`);
/// - invalid UTF-8: the original contents, and an `InvalidData` error
///   (unless there was an I/O error, which wins).
fn finish_string_read(
    io_res: io::Result<usize>,
    bytes: Vec<u8>,
    read: usize,
    output: &mut String,
    truncate_on_io_error: bool,
) -> io::Result<usize> {
    match (io_res, String::from_utf8(bytes)) {
        (Ok(n), Ok(s)) => {
            *output = s;
            Ok(n)
        }
        (Err(e), Ok(mut s)) => {
            if truncate_on_io_error {
                s.truncate(s.len() - read);
            }
            *output = s;
            Err(e)
        }
        (res, Err(utf8)) => {
            let utf8_error = utf8.utf8_error();
            let mut bytes = utf8.into_bytes();
            let read = match &res {
                Ok(n) => *n,
                Err(_) => read,
            };
            bytes.truncate(bytes.len() - read);
            *output = String::from_utf8(bytes).expect("the original data must be valid UTF-8");
            match res {
                Ok(_) => Err(io::Error::new(io::ErrorKind::InvalidData, utf8_error)),
                Err(e) => Err(e),
            }
        }
    }
}

future_struct!(
    /// The future of [`AsyncReadExt::read_to_string`](super::AsyncReadExt::read_to_string).
    ReadToString<'a, R> { reader: &'a mut R, output: &'a mut String, buf: VecBuf<Vec<u8>>, read: usize }
);

impl<R: AsyncRead + ?Sized + Unpin> Future for ReadToString<'_, R> {
    type Output = io::Result<usize>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<usize>> {
        let me = self.project();
        let res = ready!(poll_read_to_end(
            me.buf,
            Pin::new(&mut **me.reader),
            me.read,
            cx
        ));
        let read = mem::take(me.read);
        let bytes = me.buf.take();
        debug_assert!(me.buf.is_empty());
        Poll::Ready(finish_string_read(res, bytes, read, me.output, true))
    }
}

/// Appends to `buf` up to and including `delimiter` (or to EOF), counting
/// in `read` the bytes appended; returns that count (and resets it).
pub(super) fn poll_read_until<R: AsyncBufRead + ?Sized>(
    mut reader: Pin<&mut R>,
    cx: &mut Context<'_>,
    delimiter: u8,
    buf: &mut Vec<u8>,
    read: &mut usize,
) -> Poll<io::Result<usize>> {
    loop {
        let (done, used) = {
            let available = match ready!(reader.as_mut().poll_fill_buf(cx)) {
                Ok(available) => available,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Poll::Ready(Err(e)),
            };
            match available.iter().position(|&b| b == delimiter) {
                Some(i) => {
                    buf.extend_from_slice(&available[..=i]);
                    (true, i + 1)
                }
                None => {
                    buf.extend_from_slice(available);
                    (false, available.len())
                }
            }
        };
        reader.as_mut().consume(used);
        *read += used;
        if done || used == 0 {
            return Poll::Ready(Ok(mem::take(read)));
        }
    }
}

future_struct!(
    /// The future of [`AsyncBufReadExt::read_until`](super::AsyncBufReadExt::read_until).
    ReadUntil<'a, R> { reader: &'a mut R, delimiter: u8, buf: &'a mut Vec<u8>, read: usize }
);

impl<R: AsyncBufRead + ?Sized + Unpin> Future for ReadUntil<'_, R> {
    type Output = io::Result<usize>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<usize>> {
        let me = self.project();
        poll_read_until(
            Pin::new(&mut **me.reader),
            cx,
            *me.delimiter,
            me.buf,
            me.read,
        )
    }
}

/// One `read_line` step over a string whose bytes were moved into `buf`:
/// shared with [`Lines`](super::Lines).
pub(super) fn poll_read_line<R: AsyncBufRead + ?Sized>(
    reader: Pin<&mut R>,
    cx: &mut Context<'_>,
    output: &mut String,
    buf: &mut Vec<u8>,
    read: &mut usize,
) -> Poll<io::Result<usize>> {
    let res = ready!(poll_read_until(reader, cx, b'\n', buf, read));
    let read = mem::take(read);
    Poll::Ready(finish_string_read(res, mem::take(buf), read, output, false))
}

future_struct!(
    /// The future of [`AsyncBufReadExt::read_line`](super::AsyncBufReadExt::read_line).
    ReadLine<'a, R> { reader: &'a mut R, output: &'a mut String, buf: Vec<u8>, read: usize }
);

impl<R: AsyncBufRead + ?Sized + Unpin> Future for ReadLine<'_, R> {
    type Output = io::Result<usize>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<usize>> {
        let me = self.project();
        poll_read_line(Pin::new(&mut **me.reader), cx, me.output, me.buf, me.read)
    }
}

future_struct!(
    /// The future of [`AsyncBufReadExt::fill_buf`](super::AsyncBufReadExt::fill_buf).
    FillBuf<'a, R> { reader: Option<&'a mut R> }
);

impl<'a, R: AsyncBufRead + ?Sized + Unpin> Future for FillBuf<'a, R> {
    type Output = io::Result<&'a [u8]>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<&'a [u8]>> {
        let me = self.project();
        let reader: &'a mut R = me.reader.take().expect("Polled after completion.");
        let ptr: *mut R = reader;
        // SAFETY: `ptr` comes from a unique `&'a mut R` that this future
        // owned and just gave up (`me.reader` is `None`). On `Pending` the
        // borrow made here ends before `ptr` is turned back into the
        // reference stored again; on `Ready` the reference is never used
        // again, so the returned `&'a [u8]` is the only borrow left. This
        // is the borrow checker's "conditional return of a borrow"
        // limitation (NLL problem case #3), not a real aliasing.
        match Pin::new(unsafe { &mut *ptr }).poll_fill_buf(cx) {
            Poll::Pending => {
                *me.reader = Some(unsafe { &mut *ptr });
                Poll::Pending
            }
            ready => ready,
        }
    }
}

future_struct!(
    /// The future of [`AsyncSeekExt::seek`](super::AsyncSeekExt::seek).
    Seek<'a, S> { seek: &'a mut S, pos: Option<SeekFrom> }
);

impl<S: AsyncSeek + ?Sized + Unpin> Future for Seek<'_, S> {
    type Output = io::Result<u64>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<u64>> {
        let me = self.project();
        if let Some(pos) = *me.pos {
            // Finish a seek some earlier, dropped `Seek` left in progress.
            ready!(Pin::new(&mut **me.seek).poll_complete(cx))?;
            Pin::new(&mut **me.seek).start_seek(pos)?;
            *me.pos = None;
        }
        Pin::new(&mut **me.seek).poll_complete(cx)
    }
}
