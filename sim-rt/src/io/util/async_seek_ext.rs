//! [`AsyncSeekExt`]: the methods of every [`AsyncSeek`].

use std::io::SeekFrom;

use super::read_futures::Seek;
use crate::io::AsyncSeek;

/// Own version of
/// [`tokio::io::AsyncSeekExt`](https://docs.rs/tokio/1/tokio/io/trait.AsyncSeekExt.html):
/// the methods of every [`AsyncSeek`], as futures.
///
/// # Differences from tokio
///
/// None.
pub trait AsyncSeekExt: AsyncSeek {
    /// Seeks to `pos`; returns the new position from the start.
    fn seek(&mut self, pos: SeekFrom) -> Seek<'_, Self>
    where
        Self: Unpin,
    {
        Seek::new(self, Some(pos))
    }

    /// Seeks to the start; returns 0.
    fn rewind(&mut self) -> Seek<'_, Self>
    where
        Self: Unpin,
    {
        self.seek(SeekFrom::Start(0))
    }

    /// Returns the current position from the start.
    fn stream_position(&mut self) -> Seek<'_, Self>
    where
        Self: Unpin,
    {
        self.seek(SeekFrom::Current(0))
    }
}

impl<S: AsyncSeek + ?Sized> AsyncSeekExt for S {}
