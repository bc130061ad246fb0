//! [`Lines`]: the lines of a buffered reader.

use std::future::poll_fn;
use std::io;
use std::mem;
use std::pin::Pin;
use std::task::{ready, Context, Poll};

use pin_project_lite::pin_project;

use super::read_futures::poll_read_until;
use crate::io::AsyncBufRead;

pin_project! {
    /// Own version of
    /// [`tokio::io::Lines`](https://docs.rs/tokio/1/tokio/io/struct.Lines.html):
    /// the lines of an [`AsyncBufRead`], without their `\n` or `\r\n`;
    /// made by [`AsyncBufReadExt::lines`](super::AsyncBufReadExt::lines).
    ///
    /// # Differences from tokio
    ///
    /// None.
    #[derive(Debug)]
    #[must_use = "streams do nothing unless polled"]
    pub struct Lines<R> {
        #[pin]
        reader: R,
        buf: Vec<u8>,
        read: usize,
    }
}

pub(super) fn lines<R: AsyncBufRead>(reader: R) -> Lines<R> {
    Lines {
        reader,
        buf: Vec::new(),
        read: 0,
    }
}

impl<R: AsyncBufRead + Unpin> Lines<R> {
    /// The next line, or `None` at end of file.
    ///
    /// Fails with [`ErrorKind::InvalidData`](std::io::ErrorKind::InvalidData)
    /// if the line is not valid UTF-8.
    ///
    /// # Cancel safety
    ///
    /// Cancel safe: a line partly read before a cancellation is kept and
    /// returned by the next call.
    pub async fn next_line(&mut self) -> io::Result<Option<String>> {
        poll_fn(|cx| Pin::new(&mut *self).poll_next_line(cx)).await
    }

    /// The reader.
    pub fn get_mut(&mut self) -> &mut R {
        &mut self.reader
    }

    /// The reader.
    pub fn get_ref(&mut self) -> &R {
        &self.reader
    }

    /// The reader; data it has buffered is kept, a partly read line is
    /// lost.
    pub fn into_inner(self) -> R {
        self.reader
    }
}

impl<R: AsyncBufRead> Lines<R> {
    /// Polls for the next line: `Ready(Ok(None))` at end of file.
    pub fn poll_next_line(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<io::Result<Option<String>>> {
        let me = self.project();
        let n = ready!(poll_read_until(me.reader, cx, b'\n', me.buf, me.read))?;
        if n == 0 && me.buf.is_empty() {
            return Poll::Ready(Ok(None));
        }
        let mut line = mem::take(me.buf);
        if line.last() == Some(&b'\n') {
            line.pop();
            if line.last() == Some(&b'\r') {
                line.pop();
            }
        }
        Poll::Ready(
            String::from_utf8(line)
                .map(Some)
                .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e)),
        )
    }
}
