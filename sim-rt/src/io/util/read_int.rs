//! The futures of [`AsyncReadExt`](super::AsyncReadExt)'s integer and
//! float reads (`read_u8` ... `read_f64_le`): each reads exactly
//! `size_of::<T>()` bytes, then decodes them.

use std::future::Future;
use std::io;
use std::marker::PhantomPinned;
use std::pin::Pin;
use std::task::{ready, Context, Poll};

use pin_project_lite::pin_project;

use crate::io::{AsyncRead, ReadBuf};

macro_rules! read_int {
    ($($name:ident => $ty:ty, $from:ident;)*) => {$(
        pin_project! {
            #[doc = concat!("The future of `AsyncReadExt::", stringify!($name), "`: reads a `",
                stringify!($ty), "` (`", stringify!($from), "`).")]
            #[derive(Debug)]
            #[must_use = "futures do nothing unless you `.await` or poll them"]
            pub struct $name<R> {
                #[pin]
                src: R,
                buf: [u8; size_of::<$ty>()],
                read: usize,
                // `!Unpin`, as tokio's futures (for async trait methods).
                #[pin]
                _pin: PhantomPinned,
            }
        }

        impl<R> $name<R> {
            pub(super) fn new(src: R) -> Self {
                $name { src, buf: [0; size_of::<$ty>()], read: 0, _pin: PhantomPinned }
            }
        }

        impl<R: AsyncRead> Future for $name<R> {
            type Output = io::Result<$ty>;

            fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<$ty>> {
                let mut me = self.project();
                while *me.read < me.buf.len() {
                    let mut buf = ReadBuf::new(&mut me.buf[*me.read..]);
                    match ready!(me.src.as_mut().poll_read(cx, &mut buf)) {
                        Ok(()) if buf.filled().is_empty() => {
                            return Poll::Ready(Err(io::ErrorKind::UnexpectedEof.into()))
                        }
                        Ok(()) => *me.read += buf.filled().len(),
                        Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                        Err(e) => return Poll::Ready(Err(e)),
                    }
                }
                Poll::Ready(Ok(<$ty>::$from(*me.buf)))
            }
        }
    )*};
}

read_int! {
    ReadU8 => u8, from_be_bytes;
    ReadI8 => i8, from_be_bytes;
    ReadU16 => u16, from_be_bytes;
    ReadI16 => i16, from_be_bytes;
    ReadU32 => u32, from_be_bytes;
    ReadI32 => i32, from_be_bytes;
    ReadU64 => u64, from_be_bytes;
    ReadI64 => i64, from_be_bytes;
    ReadU128 => u128, from_be_bytes;
    ReadI128 => i128, from_be_bytes;
    ReadF32 => f32, from_be_bytes;
    ReadF64 => f64, from_be_bytes;
    ReadU16Le => u16, from_le_bytes;
    ReadI16Le => i16, from_le_bytes;
    ReadU32Le => u32, from_le_bytes;
    ReadI32Le => i32, from_le_bytes;
    ReadU64Le => u64, from_le_bytes;
    ReadI64Le => i64, from_le_bytes;
    ReadU128Le => u128, from_le_bytes;
    ReadI128Le => i128, from_le_bytes;
    ReadF32Le => f32, from_le_bytes;
    ReadF64Le => f64, from_le_bytes;
}
