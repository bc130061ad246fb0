//! The readiness and `try_*` methods the Unix stream types share with
//! tokio's, written once over the [`UnixIo`](super::core::UnixIo) each
//! holds: `unix_methods!(path, url, |s| io-of-s; groups...)`, where a group
//! is `ready`, `read` (`readable`, `try_read`, `try_read_vectored`,
//! `try_read_buf`), `write` (`writable`, `try_write`, `try_write_vectored`),
//! `io` (`try_io`, `async_io`) or `addrs` (`peer_addr`, `local_addr`).
//! Each method's first doc line names tokio's (`tokio_doc!`).

/// The first doc line of `$method` of tokio's `$path`.
macro_rules! tokio_doc {
    ($path:literal, $url:literal, $method:ident) => {
        concat!(
            "Simulated/own version of\n[`",
            $path,
            "::",
            stringify!($method),
            "`](",
            $url,
            "#method.",
            stringify!($method),
            ")."
        )
    };
}

macro_rules! unix_methods {
    ($p:literal, $u:literal, |$s:ident| $io:expr; $($group:ident),+ $(,)?) => {
        $(unix_methods!(@$group $p, $u, |$s| $io);)+
    };
    (@ready $p:literal, $u:literal, |$s:ident| $io:expr) => {
        #[doc = tokio_doc!($p, $u, ready)]
        ///
        /// Waits until the socket is ready for any kind in `interest`.
        pub async fn ready(&self, interest: Interest) -> io::Result<Ready> {
            let $s = self;
            $io.ready(interest).await
        }
    };
    (@read $p:literal, $u:literal, |$s:ident| $io:expr) => {
        #[doc = tokio_doc!($p, $u, readable)]
        ///
        /// Waits until the socket is readable (bytes, end of stream or an
        /// error to report).
        pub async fn readable(&self) -> io::Result<()> {
            let $s = self;
            $io.wait(sim_net::Readiness::READABLE).await
        }

        #[doc = tokio_doc!($p, $u, try_read)]
        ///
        /// Reads what is queued, without waiting: `Ok(0)` at end of stream,
        /// `WouldBlock` when nothing is queued.
        pub fn try_read(&self, buf: &mut [u8]) -> io::Result<usize> {
            let $s = self;
            $io.try_read(buf)
        }

        #[doc = tokio_doc!($p, $u, try_read_vectored)]
        ///
        /// As `try_read`, filling the buffers in order.
        pub fn try_read_vectored(&self, bufs: &mut [io::IoSliceMut<'_>]) -> io::Result<usize> {
            let mut data = vec![0; bufs.iter().map(|b| b.len()).sum()];
            let n = self.try_read(&mut data)?;
            let mut rest = &data[..n];
            for buf in bufs.iter_mut() {
                let k = buf.len().min(rest.len());
                buf[..k].copy_from_slice(&rest[..k]);
                rest = &rest[k..];
            }
            Ok(n)
        }

        #[doc = tokio_doc!($p, $u, try_read_buf)]
        ///
        /// As `try_read`, appending to `buf` (at most its current chunk).
        pub fn try_read_buf<B: BufMut>(&self, buf: &mut B) -> io::Result<usize> {
            let mut data = vec![0; buf.chunk_mut().len()];
            let n = self.try_read(&mut data)?;
            buf.put_slice(&data[..n]);
            Ok(n)
        }
    };
    (@write $p:literal, $u:literal, |$s:ident| $io:expr) => {
        #[doc = tokio_doc!($p, $u, writable)]
        ///
        /// Waits until the socket is writable (room in the peer's queue,
        /// or an error to report).
        pub async fn writable(&self) -> io::Result<()> {
            let $s = self;
            $io.wait(sim_net::Readiness::WRITABLE).await
        }

        #[doc = tokio_doc!($p, $u, try_write)]
        ///
        /// Writes what fits in the peer's queue, without waiting.
        pub fn try_write(&self, buf: &[u8]) -> io::Result<usize> {
            let $s = self;
            $io.try_write(buf)
        }

        #[doc = tokio_doc!($p, $u, try_write_vectored)]
        ///
        /// As `try_write`, with the buffers concatenated.
        pub fn try_write_vectored(&self, buf: &[io::IoSlice<'_>]) -> io::Result<usize> {
            let data: Vec<u8> = buf.iter().flat_map(|b| b.iter().copied()).collect();
            self.try_write(&data)
        }
    };
    (@io $p:literal, $u:literal, |$s:ident| $io:expr) => {
        #[doc = tokio_doc!($p, $u, try_io)]
        ///
        /// Runs `f` once if the socket is ready for `interest`, without
        /// waiting; a `WouldBlock` from `f` clears the cached readiness.
        pub fn try_io<R>(
            &self,
            interest: Interest,
            f: impl FnOnce() -> io::Result<R>,
        ) -> io::Result<R> {
            let $s = self;
            $io.try_io(interest, f)
        }

        #[doc = tokio_doc!($p, $u, async_io)]
        ///
        /// Waits for `interest` and runs `f`, again while it returns
        /// `WouldBlock`.
        pub async fn async_io<R>(
            &self,
            interest: Interest,
            f: impl FnMut() -> io::Result<R>,
        ) -> io::Result<R> {
            let $s = self;
            $io.async_io(interest, f).await
        }
    };
    (@addrs $p:literal, $u:literal, |$s:ident| $io:expr) => {
        #[doc = tokio_doc!($p, $u, peer_addr)]
        ///
        /// The connected peer's address.
        pub fn peer_addr(&self) -> io::Result<SocketAddr> {
            let $s = self;
            $io.peer_addr()
        }

        #[doc = tokio_doc!($p, $u, local_addr)]
        ///
        /// The socket's own address.
        pub fn local_addr(&self) -> io::Result<SocketAddr> {
            let $s = self;
            $io.local_addr()
        }
    };
}
