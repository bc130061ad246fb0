//! The methods and traits that the types here which never exist (see the
//! module docs) share with tokio's: each group is written once, for every
//! type that has it, and every body is `self.absurd()`.
//!
//! A type that uses these has a private `fn absurd<T>(&self) -> T`, and
//! `$path`/`$url` name tokio's item and its documentation page, for each
//! method's first doc line.

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

/// The methods `$group...` of tokio's `$path`, whose page is `$url`: each
/// group is a name below (`ready`, `readable`, `writable`; `io`: `try_io`,
/// `async_io`; `read`: `readable`, `try_read`, `try_read_vectored`,
/// `try_read_buf`; `write`: `writable`, `try_write`, `try_write_vectored`;
/// `addrs`: `peer_addr`, `local_addr`), or the name of a method that polls
/// readiness (`poll_read_ready`, `poll_send_ready`...).
macro_rules! never_methods {
    ($path:literal, $url:literal: $($group:ident),+ $(,)?) => {
        $(never_methods!(@$group $path, $url);)+
    };
    (@ready $p:literal, $u:literal) => {
        never_methods!(@fn $p, $u, ready: async fn(interest: Interest) -> io::Result<Ready>);
    };
    (@io $p:literal, $u:literal) => {
        never_methods!(@fn $p, $u, try_io<R>: fn(
            interest: Interest,
            f: impl FnOnce() -> io::Result<R>,
        ) -> io::Result<R>);
        never_methods!(@fn $p, $u, async_io<R>: async fn(
            interest: Interest,
            f: impl FnMut() -> io::Result<R>,
        ) -> io::Result<R>);
    };
    (@readable $p:literal, $u:literal) => {
        never_methods!(@fn $p, $u, readable: async fn() -> io::Result<()>);
    };
    (@writable $p:literal, $u:literal) => {
        never_methods!(@fn $p, $u, writable: async fn() -> io::Result<()>);
    };
    (@read $p:literal, $u:literal) => {
        never_methods!(@readable $p, $u);
        never_methods!(@fn $p, $u, try_read: fn(buf: &mut [u8]) -> io::Result<usize>);
        never_methods!(@fn $p, $u, try_read_vectored: fn(
            bufs: &mut [io::IoSliceMut<'_>],
        ) -> io::Result<usize>);
        never_methods!(@fn $p, $u, try_read_buf<B: BufMut>: fn(buf: &mut B) -> io::Result<usize>);
    };
    (@write $p:literal, $u:literal) => {
        never_methods!(@writable $p, $u);
        never_methods!(@fn $p, $u, try_write: fn(buf: &[u8]) -> io::Result<usize>);
        never_methods!(@fn $p, $u, try_write_vectored: fn(
            buf: &[io::IoSlice<'_>],
        ) -> io::Result<usize>);
    };
    (@addrs $p:literal, $u:literal) => {
        never_methods!(@fn $p, $u, peer_addr: fn() -> io::Result<SocketAddr>);
        never_methods!(@fn $p, $u, local_addr: fn() -> io::Result<SocketAddr>);
    };
    // One method, `name<generics>: [async] fn(args) -> ret` with `&self`
    // before the arguments: never called (there is no `self`), so its
    // arguments go unused.
    (@fn $p:literal, $u:literal, $name:ident $(<$($g:ident $(: $bound:path)?),+>)?:
        $(async $(@$async:tt)?)? fn($($args:tt)*) -> $ret:ty) => {
        #[doc = tokio_doc!($p, $u, $name)]
        #[allow(unused_variables)]
        pub $(async $($async)?)? fn $name $(<$($g $(: $bound)?),+>)?(&self, $($args)*) -> $ret {
            self.absurd()
        }
    };
    (@$name:ident $p:literal, $u:literal) => {
        never_methods!(@fn $p, $u, $name: fn(cx: &mut Context<'_>) -> Poll<io::Result<()>>);
    };
}

/// `AsyncRead` (`read`) or `AsyncWrite` (`write`) for `$ty`.
macro_rules! never_async {
    (read $ty:ty) => {
        impl AsyncRead for $ty {
            never_async!(@poll poll_read(&mut ReadBuf<'_>) -> ());
        }
    };
    (write $ty:ty) => {
        impl AsyncWrite for $ty {
            never_async!(@poll poll_write(&[u8]) -> usize);
            never_async!(@poll poll_write_vectored(&[io::IoSlice<'_>]) -> usize);
            never_async!(@poll poll_flush() -> ());
            never_async!(@poll poll_shutdown() -> ());

            fn is_write_vectored(&self) -> bool {
                self.absurd()
            }
        }
    };
    (@poll $name:ident($($arg:ty),*) -> $ret:ty) => {
        fn $name(self: Pin<&mut Self>, _: &mut Context<'_>, $(_: $arg),*) -> Poll<io::Result<$ret>> {
            self.absurd()
        }
    };
}

/// `AsRawFd` and `AsFd` for `$ty`, and `TryFrom<$std>` as its `from_std`
/// (always `Unsupported`) where it has one.
macro_rules! never_fd {
    ($ty:ident $(, $std:ty)?) => {
        $(
            impl TryFrom<$std> for $ty {
                type Error = io::Error;

                #[doc = concat!("As [`", stringify!($ty), "::from_std`]: always `Unsupported`.")]
                #[track_caller]
                fn try_from(std: $std) -> io::Result<Self> {
                    Self::from_std(std)
                }
            }
        )?

        impl AsRawFd for $ty {
            fn as_raw_fd(&self) -> RawFd {
                self.absurd()
            }
        }

        impl AsFd for $ty {
            fn as_fd(&self) -> BorrowedFd<'_> {
                self.absurd()
            }
        }
    };
}
