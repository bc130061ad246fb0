//! The futures of [`AsyncWriteExt`](super::AsyncWriteExt)'s integer and
//! float writes (`write_u8` ... `write_f64_le`): each encodes the value,
//! then writes all of its bytes.

use std::future::Future;
use std::io;
use std::marker::PhantomPinned;
use std::pin::Pin;
use std::task::{ready, Context, Poll};

use pin_project_lite::pin_project;

use crate::io::AsyncWrite;

macro_rules! write_int {
    ($($name:ident => $ty:ty, $to:ident;)*) => {$(
        pin_project! {
            #[doc = concat!("The future of `AsyncWriteExt::", stringify!($name), "`: writes a `",
                stringify!($ty), "` (`", stringify!($to), "`).")]
            #[derive(Debug)]
            #[must_use = "futures do nothing unless you `.await` or poll them"]
            pub struct $name<W> {
                #[pin]
                dst: W,
                buf: [u8; size_of::<$ty>()],
                written: usize,
                // `!Unpin`, as tokio's futures (for async trait methods).
                #[pin]
                _pin: PhantomPinned,
            }
        }

        impl<W> $name<W> {
            pub(super) fn new(dst: W, n: $ty) -> Self {
                $name { dst, buf: n.$to(), written: 0, _pin: PhantomPinned }
            }
        }

        impl<W: AsyncWrite> Future for $name<W> {
            type Output = io::Result<()>;

            fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
                let mut me = self.project();
                while *me.written < me.buf.len() {
                    match ready!(me.dst.as_mut().poll_write(cx, &me.buf[*me.written..])) {
                        Ok(0) => return Poll::Ready(Err(io::ErrorKind::WriteZero.into())),
                        Ok(n) => *me.written += n,
                        Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                        Err(e) => return Poll::Ready(Err(e)),
                    }
                }
                Poll::Ready(Ok(()))
            }
        }
    )*};
}

write_int! {
    WriteU8 => u8, to_be_bytes;
    WriteI8 => i8, to_be_bytes;
    WriteU16 => u16, to_be_bytes;
    WriteI16 => i16, to_be_bytes;
    WriteU32 => u32, to_be_bytes;
    WriteI32 => i32, to_be_bytes;
    WriteU64 => u64, to_be_bytes;
    WriteI64 => i64, to_be_bytes;
    WriteU128 => u128, to_be_bytes;
    WriteI128 => i128, to_be_bytes;
    WriteF32 => f32, to_be_bytes;
    WriteF64 => f64, to_be_bytes;
    WriteU16Le => u16, to_le_bytes;
    WriteI16Le => i16, to_le_bytes;
    WriteU32Le => u32, to_le_bytes;
    WriteI32Le => i32, to_le_bytes;
    WriteU64Le => u64, to_le_bytes;
    WriteI64Le => i64, to_le_bytes;
    WriteU128Le => u128, to_le_bytes;
    WriteI128Le => i128, to_le_bytes;
    WriteF32Le => f32, to_le_bytes;
    WriteF64Le => f64, to_le_bytes;
}
