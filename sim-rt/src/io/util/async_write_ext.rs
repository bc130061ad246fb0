//! [`AsyncWriteExt`]: the writing methods of every [`AsyncWrite`].

use std::io::IoSlice;

use bytes::Buf;

use super::write_futures::{
    Flush, Shutdown, Write, WriteAll, WriteAllBuf, WriteBuf, WriteVectored,
};
use super::write_int::*;
use crate::io::AsyncWrite;

macro_rules! write_int_methods {
    ($($name:ident($ty:ty) -> $fut:ident, $endian:literal;)*) => {$(
        #[doc = concat!("Writes a ", $endian, " `", stringify!($ty), "` (all of its bytes).")]
        ///
        /// # Cancel safety
        ///
        /// Not cancel safe: part of the value may have been written.
        fn $name(&mut self, n: $ty) -> $fut<&mut Self>
        where
            Self: Unpin,
        {
            $fut::new(self, n)
        }
    )*};
}

/// Own version of
/// [`tokio::io::AsyncWriteExt`](https://docs.rs/tokio/1/tokio/io/trait.AsyncWriteExt.html):
/// the writing methods of every [`AsyncWrite`], as futures.
///
/// # Differences from tokio
///
/// None.
pub trait AsyncWriteExt: AsyncWrite {
    /// Writes some bytes of `src`; returns how many.
    ///
    /// # Cancel safety
    ///
    /// Cancel safe: if it is dropped before completing, nothing was written.
    fn write<'a>(&'a mut self, src: &'a [u8]) -> Write<'a, Self>
    where
        Self: Unpin,
    {
        Write::new(self, src)
    }

    /// Writes some bytes from a list of buffers; returns how many.
    ///
    /// # Cancel safety
    ///
    /// Cancel safe: if it is dropped before completing, nothing was written.
    fn write_vectored<'a, 'b>(&'a mut self, bufs: &'a [IoSlice<'b>]) -> WriteVectored<'a, 'b, Self>
    where
        Self: Unpin,
    {
        WriteVectored::new(self, bufs)
    }

    /// Writes some bytes of `src` and advances it; returns how many (0 if
    /// `src` is empty).
    ///
    /// # Cancel safety
    ///
    /// Cancel safe: if it is dropped before completing, nothing was written.
    fn write_buf<'a, B>(&'a mut self, src: &'a mut B) -> WriteBuf<'a, Self, B>
    where
        Self: Sized + Unpin,
        B: Buf,
    {
        WriteBuf::new(self, src)
    }

    /// Writes all of `src`, advancing it as bytes are written.
    ///
    /// Fails with [`ErrorKind::WriteZero`](std::io::ErrorKind::WriteZero)
    /// if the writer accepts no more bytes.
    ///
    /// # Cancel safety
    ///
    /// Cancel safe in the sense that `src` is advanced past exactly what
    /// was written, so a new call resumes where this one stopped.
    fn write_all_buf<'a, B>(&'a mut self, src: &'a mut B) -> WriteAllBuf<'a, Self, B>
    where
        Self: Sized + Unpin,
        B: Buf,
    {
        WriteAllBuf::new(self, src)
    }

    /// Writes all of `src`.
    ///
    /// Fails with [`ErrorKind::WriteZero`](std::io::ErrorKind::WriteZero)
    /// if the writer accepts no more bytes.
    ///
    /// # Cancel safety
    ///
    /// Not cancel safe: part of `src` may have been written.
    fn write_all<'a>(&'a mut self, src: &'a [u8]) -> WriteAll<'a, Self>
    where
        Self: Unpin,
    {
        WriteAll::new(self, src)
    }

    write_int_methods! {
        write_u8(u8) -> WriteU8, "big-endian";
        write_i8(i8) -> WriteI8, "big-endian";
        write_u16(u16) -> WriteU16, "big-endian";
        write_i16(i16) -> WriteI16, "big-endian";
        write_u32(u32) -> WriteU32, "big-endian";
        write_i32(i32) -> WriteI32, "big-endian";
        write_u64(u64) -> WriteU64, "big-endian";
        write_i64(i64) -> WriteI64, "big-endian";
        write_u128(u128) -> WriteU128, "big-endian";
        write_i128(i128) -> WriteI128, "big-endian";
        write_f32(f32) -> WriteF32, "big-endian";
        write_f64(f64) -> WriteF64, "big-endian";
        write_u16_le(u16) -> WriteU16Le, "little-endian";
        write_i16_le(i16) -> WriteI16Le, "little-endian";
        write_u32_le(u32) -> WriteU32Le, "little-endian";
        write_i32_le(i32) -> WriteI32Le, "little-endian";
        write_u64_le(u64) -> WriteU64Le, "little-endian";
        write_i64_le(i64) -> WriteI64Le, "little-endian";
        write_u128_le(u128) -> WriteU128Le, "little-endian";
        write_i128_le(i128) -> WriteI128Le, "little-endian";
        write_f32_le(f32) -> WriteF32Le, "little-endian";
        write_f64_le(f64) -> WriteF64Le, "little-endian";
    }

    /// Flushes buffered bytes to their destination.
    fn flush(&mut self) -> Flush<'_, Self>
    where
        Self: Unpin,
    {
        Flush::new(self)
    }

    /// Shuts the writer down (flushing first); a TCP stream sends FIN.
    fn shutdown(&mut self) -> Shutdown<'_, Self>
    where
        Self: Unpin,
    {
        Shutdown::new(self)
    }
}

impl<W: AsyncWrite + ?Sized> AsyncWriteExt for W {}
