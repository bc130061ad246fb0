//! [`AsyncBufReadExt`]: the methods of every [`AsyncBufRead`].

use std::pin::Pin;

use super::lines::{lines, Lines};
use super::read_futures::{FillBuf, ReadLine, ReadUntil};
use super::split::{split, Split};
use crate::io::AsyncBufRead;

/// Own version of
/// [`tokio::io::AsyncBufReadExt`](https://docs.rs/tokio/1/tokio/io/trait.AsyncBufReadExt.html):
/// the methods of every [`AsyncBufRead`], as futures and streams.
///
/// # Differences from tokio
///
/// None.
pub trait AsyncBufReadExt: AsyncBufRead {
    /// Reads into `buf` up to and including `byte`, or to end of file;
    /// returns the number of bytes appended (0 at end of file).
    ///
    /// # Cancel safety
    ///
    /// Not cancel safe: bytes read before a cancellation stay in `buf`,
    /// but a new call does not know about them.
    fn read_until<'a>(&'a mut self, byte: u8, buf: &'a mut Vec<u8>) -> ReadUntil<'a, Self>
    where
        Self: Unpin,
    {
        ReadUntil::new(self, byte, buf, 0)
    }

    /// Reads a line (up to and including `\n`) and appends it to `buf`;
    /// returns the number of bytes appended (0 at end of file).
    ///
    /// If the line is not valid UTF-8 this fails with
    /// [`ErrorKind::InvalidData`](std::io::ErrorKind::InvalidData) and
    /// `buf` keeps its original contents.
    ///
    /// # Cancel safety
    ///
    /// Not cancel safe: a cancelled call may lose the bytes read and the
    /// original contents of `buf`.
    fn read_line<'a>(&'a mut self, buf: &'a mut String) -> ReadLine<'a, Self>
    where
        Self: Unpin,
    {
        let bytes = std::mem::take(buf).into_bytes();
        ReadLine::new(self, buf, bytes, 0)
    }

    /// The segments of this reader separated by `byte` (without it).
    fn split(self, byte: u8) -> Split<Self>
    where
        Self: Sized + Unpin,
    {
        split(self, byte)
    }

    /// Returns the contents of the internal buffer, filling it first if it
    /// is empty (an empty slice means end of file). Call
    /// [`consume`](Self::consume) with the number of bytes used.
    ///
    /// # Cancel safety
    ///
    /// Cancel safe.
    fn fill_buf(&mut self) -> FillBuf<'_, Self>
    where
        Self: Unpin,
    {
        FillBuf::new(Some(self))
    }

    /// Marks `amt` bytes of the buffer returned by
    /// [`fill_buf`](Self::fill_buf) as read.
    fn consume(&mut self, amt: usize)
    where
        Self: Unpin,
    {
        Pin::new(self).consume(amt)
    }

    /// The lines of this reader, without their `\n` or `\r\n`.
    fn lines(self) -> Lines<Self>
    where
        Self: Sized,
    {
        lines(self)
    }
}

impl<R: AsyncBufRead + ?Sized> AsyncBufReadExt for R {}
