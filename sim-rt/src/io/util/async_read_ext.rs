//! [`AsyncReadExt`]: the reading methods of every [`AsyncRead`].

use bytes::BufMut;

use super::chain::{chain, Chain};
use super::read_futures::{Read, ReadBufFuture, ReadExact, ReadToEnd, ReadToString};
use super::read_int::*;
use super::take::{take, Take};
use super::vec_buf::VecBuf;
use crate::io::AsyncRead;

macro_rules! read_int_methods {
    ($($name:ident -> $fut:ident: $ty:ty, $endian:literal;)*) => {$(
        #[doc = concat!("Reads a ", $endian, " `", stringify!($ty),
            "` (exactly `size_of::<", stringify!($ty), ">()` bytes).")]
        ///
        /// Fails with [`ErrorKind::UnexpectedEof`](std::io::ErrorKind::UnexpectedEof)
        /// if the reader ends first.
        ///
        /// # Cancel safety
        ///
        /// Not cancel safe: bytes read before a cancellation are lost.
        fn $name(&mut self) -> $fut<&mut Self>
        where
            Self: Unpin,
        {
            $fut::new(self)
        }
    )*};
}

/// Own version of
/// [`tokio::io::AsyncReadExt`](https://docs.rs/tokio/1/tokio/io/trait.AsyncReadExt.html):
/// the reading methods of every [`AsyncRead`], as futures.
///
/// # Differences from tokio
///
/// None.
pub trait AsyncReadExt: AsyncRead {
    /// Chains this reader with `next`: reads from `next` once this one is at
    /// end of file.
    fn chain<R>(self, next: R) -> Chain<Self, R>
    where
        Self: Sized,
        R: AsyncRead,
    {
        chain(self, next)
    }

    /// Reads some bytes into `buf`; returns how many (0: end of file, or
    /// `buf` is empty).
    ///
    /// # Cancel safety
    ///
    /// Cancel safe: if it is dropped before completing, no data was read.
    fn read<'a>(&'a mut self, buf: &'a mut [u8]) -> Read<'a, Self>
    where
        Self: Unpin,
    {
        Read::new(self, buf)
    }

    /// Reads some bytes into the spare room of `buf` and advances it;
    /// returns how many (0: end of file, or `buf` has no room).
    ///
    /// # Cancel safety
    ///
    /// Cancel safe: if it is dropped before completing, no data was read.
    fn read_buf<'a, B>(&'a mut self, buf: &'a mut B) -> ReadBufFuture<'a, Self, B>
    where
        Self: Unpin,
        B: BufMut + ?Sized,
    {
        ReadBufFuture::new(self, buf)
    }

    /// Reads exactly `buf.len()` bytes; returns `buf.len()`.
    ///
    /// Fails with [`ErrorKind::UnexpectedEof`](std::io::ErrorKind::UnexpectedEof)
    /// ("early eof") if the reader ends first; the content of `buf` is then
    /// unspecified.
    ///
    /// # Cancel safety
    ///
    /// Not cancel safe: bytes read before a cancellation are lost.
    fn read_exact<'a>(&'a mut self, buf: &'a mut [u8]) -> ReadExact<'a, Self>
    where
        Self: Unpin,
    {
        ReadExact::new(self, buf, 0)
    }

    read_int_methods! {
        read_u8 -> ReadU8: u8, "big-endian";
        read_i8 -> ReadI8: i8, "big-endian";
        read_u16 -> ReadU16: u16, "big-endian";
        read_i16 -> ReadI16: i16, "big-endian";
        read_u32 -> ReadU32: u32, "big-endian";
        read_i32 -> ReadI32: i32, "big-endian";
        read_u64 -> ReadU64: u64, "big-endian";
        read_i64 -> ReadI64: i64, "big-endian";
        read_u128 -> ReadU128: u128, "big-endian";
        read_i128 -> ReadI128: i128, "big-endian";
        read_f32 -> ReadF32: f32, "big-endian";
        read_f64 -> ReadF64: f64, "big-endian";
        read_u16_le -> ReadU16Le: u16, "little-endian";
        read_i16_le -> ReadI16Le: i16, "little-endian";
        read_u32_le -> ReadU32Le: u32, "little-endian";
        read_i32_le -> ReadI32Le: i32, "little-endian";
        read_u64_le -> ReadU64Le: u64, "little-endian";
        read_i64_le -> ReadI64Le: i64, "little-endian";
        read_u128_le -> ReadU128Le: u128, "little-endian";
        read_i128_le -> ReadI128Le: i128, "little-endian";
        read_f32_le -> ReadF32Le: f32, "little-endian";
        read_f64_le -> ReadF64Le: f64, "little-endian";
    }

    /// Reads to end of file, appending to `buf`; returns the number of
    /// bytes appended. On error, what was read so far stays in `buf`.
    fn read_to_end<'a>(&'a mut self, buf: &'a mut Vec<u8>) -> ReadToEnd<'a, Self>
    where
        Self: Unpin,
    {
        ReadToEnd::new(self, VecBuf::new(buf), 0)
    }

    /// Reads to end of file, appending to `dst`; returns the number of
    /// bytes appended.
    ///
    /// If the data is not valid UTF-8 this fails with
    /// [`ErrorKind::InvalidData`](std::io::ErrorKind::InvalidData) and
    /// `dst` keeps its original contents; on an I/O error too.
    fn read_to_string<'a>(&'a mut self, dst: &'a mut String) -> ReadToString<'a, Self>
    where
        Self: Unpin,
    {
        let buf = std::mem::take(dst).into_bytes();
        ReadToString::new(self, dst, VecBuf::new(buf), 0)
    }

    /// A reader that reads at most `limit` bytes from this one.
    fn take(self, limit: u64) -> Take<Self>
    where
        Self: Sized,
    {
        take(self, limit)
    }
}

impl<R: AsyncRead + ?Sized> AsyncReadExt for R {}
