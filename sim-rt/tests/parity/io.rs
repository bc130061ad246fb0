// Included by tests/parity.rs twice: once with `tokio` = tokio, once with
// `tokio` = sim_rt. Only tokio paths may appear here. sim_rt's `io` is its
// own (the whole-graph `tokio` package cannot depend on crates.io tokio):
// its whole surface is pinned here, down to trait impls and auto traits.

/// Every item of `tokio::io`, pinned to tokio's signature.
#[allow(dead_code, clippy::type_complexity, deprecated)]
fn io_signatures() {
    use std::future::Future;
    use std::io::{Cursor, IoSlice, SeekFrom};
    use std::mem::MaybeUninit;
    use std::pin::Pin;
    use std::task::{Context, Poll};
    use tokio::io::{
        self, AsyncBufRead, AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncSeek, AsyncSeekExt,
        AsyncWrite, AsyncWriteExt, BufReader, BufStream, BufWriter, Chain, DuplexStream, Empty,
        Interest, Join, Lines, ReadBuf, ReadHalf, Ready, Repeat, SimplexStream, Sink, Split,
        Stderr, Stdin, Stdout, Take, WriteHalf,
    };

    fn future_of<T, F: Future<Output = T> + Send>(_: F) {}
    fn send_sync_unpin<T: Send + Sync + Unpin>() {}
    fn debug<T: std::fmt::Debug>() {}
    type C = Cursor<Vec<u8>>;
    type S = &'static [u8];

    // std re-exports.
    let _: io::Error = io::Error::from(io::ErrorKind::Other);
    let _: io::Result<SeekFrom> = Ok(io::SeekFrom::Start(0));

    // The traits' methods.
    let _: fn(Pin<&mut C>, &mut Context<'_>, &mut ReadBuf<'_>) -> Poll<io::Result<()>> =
        <C as AsyncRead>::poll_read;
    let _: fn(Pin<&mut Vec<u8>>, &mut Context<'_>, &[u8]) -> Poll<io::Result<usize>> =
        <Vec<u8> as AsyncWrite>::poll_write;
    let _: fn(Pin<&mut Vec<u8>>, &mut Context<'_>, &[IoSlice<'_>]) -> Poll<io::Result<usize>> =
        <Vec<u8> as AsyncWrite>::poll_write_vectored;
    let _: fn(&Vec<u8>) -> bool = <Vec<u8> as AsyncWrite>::is_write_vectored;
    let _: fn(Pin<&mut Vec<u8>>, &mut Context<'_>) -> Poll<io::Result<()>> =
        <Vec<u8> as AsyncWrite>::poll_flush;
    let _: fn(Pin<&mut Vec<u8>>, &mut Context<'_>) -> Poll<io::Result<()>> =
        <Vec<u8> as AsyncWrite>::poll_shutdown;
    let _: for<'a> fn(Pin<&'a mut C>, &mut Context<'_>) -> Poll<io::Result<&'a [u8]>> =
        <C as AsyncBufRead>::poll_fill_buf;
    let _: fn(Pin<&mut C>, usize) = <C as AsyncBufRead>::consume;
    let _: fn(Pin<&mut C>, SeekFrom) -> io::Result<()> = <C as AsyncSeek>::start_seek;
    let _: fn(Pin<&mut C>, &mut Context<'_>) -> Poll<io::Result<u64>> =
        <C as AsyncSeek>::poll_complete;

    // tokio's impls of the traits.
    fn reader<T: AsyncRead>() {}
    fn writer<T: AsyncWrite>() {}
    fn buf_reader<T: AsyncBufRead>() {}
    fn seeker<T: AsyncSeek>() {}
    reader::<&[u8]>();
    reader::<Cursor<&[u8]>>();
    reader::<C>();
    reader::<&mut C>();
    reader::<Box<C>>();
    reader::<Box<dyn AsyncRead + Unpin + Send>>();
    reader::<Pin<Box<dyn AsyncRead + Send>>>();
    reader::<Pin<&mut C>>();
    writer::<Vec<u8>>();
    writer::<Cursor<&mut [u8]>>();
    writer::<Cursor<&mut Vec<u8>>>();
    writer::<Cursor<Vec<u8>>>();
    writer::<Cursor<Box<[u8]>>>();
    writer::<&mut Vec<u8>>();
    writer::<Box<dyn AsyncWrite + Unpin + Send>>();
    writer::<Pin<Box<dyn AsyncWrite + Send>>>();
    buf_reader::<&[u8]>();
    buf_reader::<C>();
    buf_reader::<&mut C>();
    buf_reader::<Box<C>>();
    buf_reader::<Pin<Box<dyn AsyncBufRead + Send>>>();
    seeker::<C>();
    seeker::<&mut C>();
    seeker::<Box<C>>();
    seeker::<Pin<Box<C>>>();

    // ReadBuf.
    #[allow(clippy::extra_unused_lifetimes)]
    fn read_buf_api<'b>() {
        let _: fn(&'b mut [u8]) -> ReadBuf<'b> = ReadBuf::<'b>::new;
        let _: fn(&'b mut [MaybeUninit<u8>]) -> ReadBuf<'b> = ReadBuf::<'b>::uninit;
        let _: fn(&ReadBuf<'b>) -> usize = ReadBuf::<'b>::capacity;
        let _: for<'a> fn(&'a ReadBuf<'b>) -> &'a [u8] = ReadBuf::<'b>::filled;
        let _: for<'a> fn(&'a mut ReadBuf<'b>) -> &'a mut [u8] = ReadBuf::<'b>::filled_mut;
        let _: for<'a> fn(&'a mut ReadBuf<'b>, usize) -> ReadBuf<'a> = ReadBuf::<'b>::take;
        let _: for<'a> fn(&'a ReadBuf<'b>) -> &'a [u8] = ReadBuf::<'b>::initialized;
        let _: for<'a> fn(&'a mut ReadBuf<'b>) -> &'a mut [u8] = ReadBuf::<'b>::initialized_mut;
        let _: for<'a> unsafe fn(&'a mut ReadBuf<'b>) -> &'a mut [MaybeUninit<u8>] =
            ReadBuf::<'b>::inner_mut;
        let _: for<'a> unsafe fn(&'a mut ReadBuf<'b>) -> &'a mut [MaybeUninit<u8>] =
            ReadBuf::<'b>::unfilled_mut;
        let _: for<'a> fn(&'a mut ReadBuf<'b>) -> &'a mut [u8] = ReadBuf::<'b>::initialize_unfilled;
        let _: for<'a> fn(&'a mut ReadBuf<'b>, usize) -> &'a mut [u8] =
            ReadBuf::<'b>::initialize_unfilled_to;
        let _: fn(&ReadBuf<'b>) -> usize = ReadBuf::<'b>::remaining;
        let _: fn(&mut ReadBuf<'b>) = ReadBuf::<'b>::clear;
        let _: fn(&mut ReadBuf<'b>, usize) = ReadBuf::<'b>::advance;
        let _: fn(&mut ReadBuf<'b>, usize) = ReadBuf::<'b>::set_filled;
        let _: unsafe fn(&mut ReadBuf<'b>, usize) = ReadBuf::<'b>::assume_init;
        let _: fn(&mut ReadBuf<'b>, &[u8]) = ReadBuf::<'b>::put_slice;
    }
    fn buf_mut<B: bytes::BufMut + std::fmt::Debug + Send + Sync + Unpin>() {}
    buf_mut::<ReadBuf<'static>>();

    // Interest and Ready.
    let _: [Interest; 4] = [
        Interest::READABLE,
        Interest::WRITABLE,
        Interest::ERROR,
        Interest::PRIORITY,
    ];
    const _: bool = Interest::READABLE.is_readable();
    const _: bool = Interest::READABLE.is_writable();
    const _: bool = Interest::READABLE.is_error();
    const _: bool = Interest::READABLE.is_priority();
    const _: Interest = Interest::READABLE.add(Interest::WRITABLE);
    let _: fn(Interest, Interest) -> Option<Interest> = Interest::remove;
    let _: Interest = Interest::READABLE | Interest::WRITABLE;
    fn interest_impls<T: Copy + Eq + std::fmt::Debug + std::ops::BitOrAssign + Send + Sync>() {}
    interest_impls::<Interest>();
    let _: [Ready; 8] = [
        Ready::EMPTY,
        Ready::READABLE,
        Ready::WRITABLE,
        Ready::READ_CLOSED,
        Ready::WRITE_CLOSED,
        Ready::PRIORITY,
        Ready::ERROR,
        Ready::ALL,
    ];
    for f in [
        Ready::is_empty,
        Ready::is_readable,
        Ready::is_writable,
        Ready::is_read_closed,
        Ready::is_write_closed,
        Ready::is_priority,
        Ready::is_error,
    ] {
        let _: fn(Ready) -> bool = f;
    }
    let _: Ready = (Ready::READABLE | Ready::WRITABLE) & (Ready::READABLE - Ready::WRITABLE);
    fn ready_impls<
        T: Copy + Ord + std::fmt::Debug + std::ops::BitOrAssign + std::ops::Sub<Output = T> + Send + Sync,
    >() {
    }
    ready_impls::<Ready>();

    // AsyncReadExt: each future's output, and Send through generic code.
    fn read_ext<R: AsyncRead + Unpin + Send>(r: &mut R, buf: &mut [u8], v: &mut Vec<u8>) {
        future_of::<io::Result<usize>, _>(r.read(buf));
        future_of::<io::Result<usize>, _>(r.read_buf(v));
        future_of::<io::Result<usize>, _>(r.read_exact(buf));
        future_of::<io::Result<usize>, _>(r.read_to_end(v));
        let mut s = String::new();
        future_of::<io::Result<usize>, _>(r.read_to_string(&mut s));
        future_of::<io::Result<u8>, _>(r.read_u8());
        future_of::<io::Result<i8>, _>(r.read_i8());
        future_of::<io::Result<u16>, _>(r.read_u16());
        future_of::<io::Result<i16>, _>(r.read_i16());
        future_of::<io::Result<u32>, _>(r.read_u32());
        future_of::<io::Result<i32>, _>(r.read_i32());
        future_of::<io::Result<u64>, _>(r.read_u64());
        future_of::<io::Result<i64>, _>(r.read_i64());
        future_of::<io::Result<u128>, _>(r.read_u128());
        future_of::<io::Result<i128>, _>(r.read_i128());
        future_of::<io::Result<f32>, _>(r.read_f32());
        future_of::<io::Result<f64>, _>(r.read_f64());
        future_of::<io::Result<u16>, _>(r.read_u16_le());
        future_of::<io::Result<i16>, _>(r.read_i16_le());
        future_of::<io::Result<u32>, _>(r.read_u32_le());
        future_of::<io::Result<i32>, _>(r.read_i32_le());
        future_of::<io::Result<u64>, _>(r.read_u64_le());
        future_of::<io::Result<i64>, _>(r.read_i64_le());
        future_of::<io::Result<u128>, _>(r.read_u128_le());
        future_of::<io::Result<i128>, _>(r.read_i128_le());
        future_of::<io::Result<f32>, _>(r.read_f32_le());
        future_of::<io::Result<f64>, _>(r.read_f64_le());
    }
    fn read_ext_bound<R: AsyncReadExt + Unpin + Send>(r: &mut R, buf: &mut [u8]) {
        future_of::<io::Result<usize>, _>(r.read(buf));
    }
    let _: fn(S, C) -> Chain<S, C> = <S as AsyncReadExt>::chain::<C>;
    let _: fn(C, u64) -> Take<C> = <C as AsyncReadExt>::take;

    // AsyncWriteExt.
    fn write_ext<W: AsyncWrite + Unpin + Send>(w: &mut W, src: &[u8], bufs: &[IoSlice<'_>]) {
        future_of::<io::Result<usize>, _>(w.write(src));
        future_of::<io::Result<usize>, _>(w.write_vectored(bufs));
        future_of::<io::Result<()>, _>(w.write_all(src));
        future_of::<io::Result<()>, _>(w.flush());
        future_of::<io::Result<()>, _>(w.shutdown());
        future_of::<io::Result<()>, _>(w.write_u8(1));
        future_of::<io::Result<()>, _>(w.write_i8(1));
        future_of::<io::Result<()>, _>(w.write_u16(1));
        future_of::<io::Result<()>, _>(w.write_i16(1));
        future_of::<io::Result<()>, _>(w.write_u32(1));
        future_of::<io::Result<()>, _>(w.write_i32(1));
        future_of::<io::Result<()>, _>(w.write_u64(1));
        future_of::<io::Result<()>, _>(w.write_i64(1));
        future_of::<io::Result<()>, _>(w.write_u128(1));
        future_of::<io::Result<()>, _>(w.write_i128(1));
        future_of::<io::Result<()>, _>(w.write_f32(1.0));
        future_of::<io::Result<()>, _>(w.write_f64(1.0));
        future_of::<io::Result<()>, _>(w.write_u16_le(1));
        future_of::<io::Result<()>, _>(w.write_i16_le(1));
        future_of::<io::Result<()>, _>(w.write_u32_le(1));
        future_of::<io::Result<()>, _>(w.write_i32_le(1));
        future_of::<io::Result<()>, _>(w.write_u64_le(1));
        future_of::<io::Result<()>, _>(w.write_i64_le(1));
        future_of::<io::Result<()>, _>(w.write_u128_le(1));
        future_of::<io::Result<()>, _>(w.write_i128_le(1));
        future_of::<io::Result<()>, _>(w.write_f32_le(1.0));
        future_of::<io::Result<()>, _>(w.write_f64_le(1.0));
    }
    fn write_buf_ext<W: AsyncWrite + Unpin + Send>(w: &mut W, b: &mut bytes::Bytes) {
        future_of::<io::Result<usize>, _>(w.write_buf(b));
        future_of::<io::Result<()>, _>(w.write_all_buf(b));
    }

    // AsyncBufReadExt.
    fn buf_read_ext<R: AsyncBufRead + Unpin + Send>(r: &mut R, v: &mut Vec<u8>, s: &mut String) {
        future_of::<io::Result<usize>, _>(r.read_until(b'\n', v));
        future_of::<io::Result<usize>, _>(r.read_line(s));
        r.consume(0);
    }
    fn fill_buf_ext<'a, R: AsyncBufRead + Unpin + Send>(r: &'a mut R) {
        future_of::<io::Result<&'a [u8]>, _>(r.fill_buf());
    }
    let _: fn(S, u8) -> Split<S> = <S as AsyncBufReadExt>::split;
    let _: fn(S) -> Lines<S> = <S as AsyncBufReadExt>::lines;

    // AsyncSeekExt.
    fn seek_ext<S: AsyncSeek + Unpin + Send>(s: &mut S) {
        future_of::<io::Result<u64>, _>(s.seek(SeekFrom::Start(0)));
        future_of::<io::Result<u64>, _>(s.rewind());
        future_of::<io::Result<u64>, _>(s.stream_position());
    }

    // Lines and Split.
    fn lines_api(l: &mut Lines<&[u8]>) {
        future_of::<io::Result<Option<String>>, _>(l.next_line());
    }
    let _: fn(Pin<&mut Lines<S>>, &mut Context<'_>) -> Poll<io::Result<Option<String>>> =
        Lines::poll_next_line;
    let _: fn(&mut Lines<S>) -> &mut S = Lines::get_mut;
    let _: fn(&mut Lines<S>) -> &S = Lines::get_ref;
    let _: fn(Lines<S>) -> S = Lines::into_inner;
    fn split_api(s: &mut Split<&[u8]>) {
        future_of::<io::Result<Option<Vec<u8>>>, _>(s.next_segment());
    }
    let _: fn(Pin<&mut Split<S>>, &mut Context<'_>) -> Poll<io::Result<Option<Vec<u8>>>> =
        Split::poll_next_segment;

    // Chain and Take.
    type Ch = Chain<C, C>;
    let _: fn(&Ch) -> (&C, &C) = Ch::get_ref;
    let _: fn(&mut Ch) -> (&mut C, &mut C) = Ch::get_mut;
    let _: fn(Pin<&mut Ch>) -> (Pin<&mut C>, Pin<&mut C>) = Ch::get_pin_mut;
    let _: fn(Ch) -> (C, C) = Ch::into_inner;
    let _: fn(&Take<C>) -> u64 = Take::<C>::limit;
    let _: fn(&mut Take<C>, u64) = Take::<C>::set_limit;
    let _: fn(&Take<C>) -> &C = Take::<C>::get_ref;
    let _: fn(&mut Take<C>) -> &mut C = Take::<C>::get_mut;
    let _: fn(Pin<&mut Take<C>>) -> Pin<&mut C> = Take::<C>::get_pin_mut;
    let _: fn(Take<C>) -> C = Take::<C>::into_inner;
    buf_reader::<Ch>();
    buf_reader::<Take<C>>();

    // BufReader, BufWriter, BufStream.
    let _: fn(C) -> BufReader<C> = BufReader::new;
    let _: fn(usize, C) -> BufReader<C> = BufReader::with_capacity;
    let _: fn(&BufReader<C>) -> &C = BufReader::get_ref;
    let _: fn(&mut BufReader<C>) -> &mut C = BufReader::get_mut;
    let _: fn(Pin<&mut BufReader<C>>) -> Pin<&mut C> = BufReader::get_pin_mut;
    let _: fn(BufReader<C>) -> C = BufReader::into_inner;
    let _: fn(&BufReader<C>) -> &[u8] = BufReader::buffer;
    let _: fn(C) -> BufWriter<C> = BufWriter::new;
    let _: fn(usize, C) -> BufWriter<C> = BufWriter::with_capacity;
    let _: fn(&BufWriter<C>) -> &C = BufWriter::get_ref;
    let _: fn(&mut BufWriter<C>) -> &mut C = BufWriter::get_mut;
    let _: fn(Pin<&mut BufWriter<C>>) -> Pin<&mut C> = BufWriter::get_pin_mut;
    let _: fn(BufWriter<C>) -> C = BufWriter::into_inner;
    let _: fn(&BufWriter<C>) -> &[u8] = BufWriter::buffer;
    let _: fn(C) -> BufStream<C> = BufStream::new;
    let _: fn(usize, usize, C) -> BufStream<C> = BufStream::with_capacity;
    let _: fn(&BufStream<C>) -> &C = BufStream::get_ref;
    let _: fn(&mut BufStream<C>) -> &mut C = BufStream::get_mut;
    let _: fn(Pin<&mut BufStream<C>>) -> Pin<&mut C> = BufStream::get_pin_mut;
    let _: fn(BufStream<C>) -> C = BufStream::into_inner;
    let _: fn(BufReader<BufWriter<C>>) -> BufStream<C> = BufStream::from;
    let _: fn(BufWriter<BufReader<C>>) -> BufStream<C> = BufStream::from;
    fn read_write_seek<T: AsyncRead + AsyncWrite + AsyncSeek + Send + Sync + Unpin + std::fmt::Debug>() {}
    fn buf_read_write_seek<T: AsyncBufRead + AsyncWrite + AsyncSeek>() {}
    buf_read_write_seek::<BufReader<DuplexSeek>>();
    read_write_seek::<BufWriter<DuplexSeek>>();
    buf_read_write_seek::<BufStream<DuplexSeek>>();
    buf_reader::<BufWriter<BufReader<C>>>();
    /// A stand-in read+write+seek type.
    #[derive(Debug)]
    struct DuplexSeek;
    impl AsyncRead for DuplexSeek {
        fn poll_read(
            self: Pin<&mut Self>,
            _: &mut Context<'_>,
            _: &mut ReadBuf<'_>,
        ) -> Poll<io::Result<()>> {
            Poll::Ready(Ok(()))
        }
    }
    impl AsyncWrite for DuplexSeek {
        fn poll_write(self: Pin<&mut Self>, _: &mut Context<'_>, b: &[u8]) -> Poll<io::Result<usize>> {
            Poll::Ready(Ok(b.len()))
        }
        fn poll_flush(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
            Poll::Ready(Ok(()))
        }
        fn poll_shutdown(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
            Poll::Ready(Ok(()))
        }
    }
    impl AsyncSeek for DuplexSeek {
        fn start_seek(self: Pin<&mut Self>, _: SeekFrom) -> io::Result<()> {
            Ok(())
        }
        fn poll_complete(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<u64>> {
            Poll::Ready(Ok(0))
        }
    }

    // copy and friends.
    fn copies<A, B>(a: &mut A, b: &mut B)
    where
        A: AsyncRead + AsyncWrite + AsyncBufRead + Unpin + Send,
        B: AsyncRead + AsyncWrite + Unpin + Send,
    {
        future_of::<io::Result<u64>, _>(io::copy(a, b));
        future_of::<io::Result<u64>, _>(io::copy_buf(a, b));
        future_of::<io::Result<(u64, u64)>, _>(io::copy_bidirectional(a, b));
        future_of::<io::Result<(u64, u64)>, _>(io::copy_bidirectional_with_sizes(a, b, 1, 1));
    }

    // In-memory pipes.
    let _: fn(usize) -> (DuplexStream, DuplexStream) = io::duplex;
    let _: fn(usize) -> (ReadHalf<SimplexStream>, WriteHalf<SimplexStream>) = io::simplex;
    let _: fn(usize) -> SimplexStream = SimplexStream::new_unsplit;
    fn read_write<T: AsyncRead + AsyncWrite + Send + Sync + Unpin + std::fmt::Debug>() {}
    read_write::<DuplexStream>();
    read_write::<SimplexStream>();

    // split and join.
    let _: fn(C) -> (ReadHalf<C>, WriteHalf<C>) = io::split::<C>;
    let _: fn(&ReadHalf<C>, &WriteHalf<C>) -> bool = ReadHalf::<C>::is_pair_of;
    let _: fn(&WriteHalf<C>, &ReadHalf<C>) -> bool = WriteHalf::<C>::is_pair_of;
    let _: fn(ReadHalf<C>, WriteHalf<C>) -> C = ReadHalf::<C>::unsplit;
    reader::<ReadHalf<C>>();
    writer::<WriteHalf<C>>();
    fn send_unpin_debug<T: Send + Unpin + std::fmt::Debug>() {}
    send_unpin_debug::<ReadHalf<C>>();
    send_unpin_debug::<WriteHalf<C>>();
    type J = Join<C, Vec<u8>>;
    let _: fn(C, Vec<u8>) -> J = io::join;
    let _: fn(J) -> (C, Vec<u8>) = J::into_inner;
    let _: fn(&J) -> &C = J::reader;
    let _: fn(&J) -> &Vec<u8> = J::writer;
    let _: fn(&mut J) -> &mut C = J::reader_mut;
    let _: fn(&mut J) -> &mut Vec<u8> = J::writer_mut;
    let _: fn(Pin<&mut J>) -> Pin<&mut C> = J::reader_pin_mut;
    let _: fn(Pin<&mut J>) -> Pin<&mut Vec<u8>> = J::writer_pin_mut;
    buf_reader::<J>();
    writer::<J>();
    debug::<J>();

    // empty, repeat, sink.
    let _: fn() -> Empty = io::empty;
    let _: fn(u8) -> Repeat = io::repeat;
    let _: fn() -> Sink = io::sink;
    fn empty_impls<T: AsyncBufRead + AsyncWrite + AsyncSeek + Send + Sync + Unpin + std::fmt::Debug>() {}
    empty_impls::<Empty>();
    reader::<Repeat>();
    send_sync_unpin::<Repeat>();
    writer::<Sink>();
    send_sync_unpin::<Sink>();

    // Standard streams.
    let _: fn() -> Stdin = io::stdin;
    let _: fn() -> Stdout = io::stdout;
    let _: fn() -> Stderr = io::stderr;
    fn std_stream<T: Send + Sync + Unpin + std::fmt::Debug + std::os::fd::AsRawFd + std::os::fd::AsFd>() {}
    std_stream::<Stdin>();
    std_stream::<Stdout>();
    std_stream::<Stderr>();
    reader::<Stdin>();
    writer::<Stdout>();
    writer::<Stderr>();

    // Auto traits and Debug of the helpers.
    send_sync_unpin::<BufReader<C>>();
    send_sync_unpin::<BufWriter<C>>();
    send_sync_unpin::<BufStream<C>>();
    send_sync_unpin::<Lines<C>>();
    send_sync_unpin::<Split<C>>();
    send_sync_unpin::<Chain<C, C>>();
    send_sync_unpin::<Take<C>>();
    send_sync_unpin::<Empty>();
    send_sync_unpin::<DuplexStream>();
    debug::<BufReader<C>>();
    debug::<BufWriter<C>>();
    debug::<BufStream<C>>();
    debug::<Lines<C>>();
    debug::<Split<C>>();
    debug::<Chain<C, C>>();
    debug::<Take<C>>();
    debug::<ReadBuf<'static>>();

    // io::unix.
    use std::os::fd::OwnedFd;
    use tokio::io::unix::{
        AsyncFd, AsyncFdReadyGuard, AsyncFdReadyMutGuard, AsyncFdRegisterError, AsyncFdTryNewError,
        TryIoError,
    };
    let _: fn(OwnedFd) -> io::Result<AsyncFd<OwnedFd>> = AsyncFd::new;
    let _: fn(OwnedFd, Interest) -> io::Result<AsyncFd<OwnedFd>> = AsyncFd::with_interest;
    let _: fn(OwnedFd) -> Result<AsyncFd<OwnedFd>, AsyncFdRegisterError<OwnedFd>> =
        AsyncFd::try_new;
    let _: fn(OwnedFd, Interest) -> Result<AsyncFd<OwnedFd>, AsyncFdTryNewError<OwnedFd>> =
        AsyncFd::try_with_interest;
    let _: unsafe fn(OwnedFd) -> Result<AsyncFd<OwnedFd>, AsyncFdRegisterError<OwnedFd>> =
        AsyncFd::register;
    let _: unsafe fn(OwnedFd, Interest) -> Result<AsyncFd<OwnedFd>, AsyncFdRegisterError<OwnedFd>> =
        AsyncFd::register_with_interest;
    let _: fn(&AsyncFd<OwnedFd>) -> &OwnedFd = AsyncFd::get_ref;
    let _: fn(&mut AsyncFd<OwnedFd>) -> &mut OwnedFd = AsyncFd::get_mut;
    let _: fn(AsyncFd<OwnedFd>) -> OwnedFd = AsyncFd::into_inner;
    let _: for<'a> fn(&'a AsyncFd<OwnedFd>, &mut Context<'_>) -> Poll<io::Result<AsyncFdReadyGuard<'a, OwnedFd>>> =
        AsyncFd::poll_read_ready;
    let _: for<'a> fn(&'a AsyncFd<OwnedFd>, &mut Context<'_>) -> Poll<io::Result<AsyncFdReadyGuard<'a, OwnedFd>>> =
        AsyncFd::poll_write_ready;
    let _: for<'a> fn(&'a mut AsyncFd<OwnedFd>, &mut Context<'_>) -> Poll<io::Result<AsyncFdReadyMutGuard<'a, OwnedFd>>> =
        AsyncFd::poll_read_ready_mut;
    let _: for<'a> fn(&'a mut AsyncFd<OwnedFd>, &mut Context<'_>) -> Poll<io::Result<AsyncFdReadyMutGuard<'a, OwnedFd>>> =
        AsyncFd::poll_write_ready_mut;
    fn async_fd_futures(fd: &AsyncFd<OwnedFd>) {
        future_of::<io::Result<AsyncFdReadyGuard<'_, OwnedFd>>, _>(fd.ready(Interest::READABLE));
        future_of::<io::Result<AsyncFdReadyGuard<'_, OwnedFd>>, _>(fd.readable());
        future_of::<io::Result<AsyncFdReadyGuard<'_, OwnedFd>>, _>(fd.writable());
        future_of::<io::Result<u8>, _>(fd.async_io(Interest::READABLE, |_: &OwnedFd| Ok(1u8)));
        let _: io::Result<u8> = fd.try_io(Interest::READABLE, |_: &OwnedFd| Ok(1u8));
    }
    fn async_fd_mut_futures(fd: &mut AsyncFd<OwnedFd>) {
        future_of::<io::Result<AsyncFdReadyMutGuard<'_, OwnedFd>>, _>(fd.ready_mut(Interest::READABLE));
    }
    fn async_fd_mut_futures2(fd: &mut AsyncFd<OwnedFd>) {
        future_of::<io::Result<AsyncFdReadyMutGuard<'_, OwnedFd>>, _>(fd.readable_mut());
    }
    fn async_fd_mut_futures3(fd: &mut AsyncFd<OwnedFd>) {
        future_of::<io::Result<AsyncFdReadyMutGuard<'_, OwnedFd>>, _>(fd.writable_mut());
    }
    fn async_fd_mut_futures4(fd: &mut AsyncFd<OwnedFd>) {
        future_of::<io::Result<u8>, _>(fd.async_io_mut(Interest::READABLE, |_: &mut OwnedFd| Ok(1u8)));
    }
    fn async_fd_mut_try(fd: &mut AsyncFd<OwnedFd>) {
        let _: io::Result<u8> = fd.try_io_mut(Interest::READABLE, |_: &mut OwnedFd| Ok(1u8));
    }
    fn guard_api<'a>(mut g: AsyncFdReadyGuard<'a, OwnedFd>) {
        g.clear_ready();
        g.clear_ready_matching(Ready::READABLE);
        g.retain_ready();
        let _: Ready = g.ready();
        let _: Result<io::Result<u8>, TryIoError> = g.try_io(|_: &'a AsyncFd<OwnedFd>| Ok(1u8));
        let _: &'a AsyncFd<OwnedFd> = g.get_ref();
        let _: &'a OwnedFd = g.get_inner();
    }
    fn mut_guard_api(mut g: AsyncFdReadyMutGuard<'_, OwnedFd>) {
        g.clear_ready();
        g.clear_ready_matching(Ready::READABLE);
        g.retain_ready();
        let _: Ready = g.ready();
        let _: Result<io::Result<u8>, TryIoError> = g.try_io(|_: &mut AsyncFd<OwnedFd>| Ok(1u8));
        let _: &AsyncFd<OwnedFd> = g.get_ref();
        let _: &mut AsyncFd<OwnedFd> = g.get_mut();
        let _: &OwnedFd = g.get_inner();
        let _: &mut OwnedFd = g.get_inner_mut();
    }
    fn fd_impls<T: std::os::fd::AsRawFd + std::os::fd::AsFd + std::fmt::Debug + Send + Sync + Unpin>() {}
    fd_impls::<AsyncFd<OwnedFd>>();
    debug::<AsyncFdReadyGuard<'static, OwnedFd>>();
    debug::<AsyncFdReadyMutGuard<'static, OwnedFd>>();
    debug::<TryIoError>();
    let _: fn(AsyncFdRegisterError<OwnedFd>) -> (OwnedFd, io::Error) =
        AsyncFdRegisterError::into_parts;
    fn register_error_impls<E: std::error::Error + Into<io::Error> + Send + Sync>() {}
    register_error_impls::<AsyncFdRegisterError<OwnedFd>>();
}

/// The io helpers in use, run under both runtimes.
#[tokio::test]
async fn io_helpers_run() {
    use tokio::io::{
        AsyncBufReadExt, AsyncReadExt, AsyncSeekExt, AsyncWriteExt, BufReader, BufWriter,
    };

    let (client, mut server) = tokio::io::duplex(16);
    let echo = tokio::spawn(async move {
        let (mut r, mut w) = tokio::io::split(&mut server);
        tokio::io::copy(&mut r, &mut w).await.unwrap()
    });
    let (r, mut w) = tokio::io::split(client);
    let mut lines = BufReader::new(r).lines();
    let text = "alpha\nbeta\r\ngamma";
    w.write_all(text.as_bytes()).await.unwrap();
    w.shutdown().await.unwrap();
    let mut got = Vec::new();
    while let Some(line) = lines.next_line().await.unwrap() {
        got.push(line);
    }
    assert_eq!(got, ["alpha", "beta", "gamma"]);
    assert_eq!(echo.await.unwrap(), text.len() as u64);

    let mut out = BufWriter::with_capacity(4, std::io::Cursor::new(Vec::new()));
    out.write_u32(0xdead_beef).await.unwrap();
    out.write_i16_le(-2).await.unwrap();
    out.flush().await.unwrap();
    let mut cursor = out.into_inner();
    assert_eq!(cursor.stream_position().await.unwrap(), 6);
    cursor.rewind().await.unwrap();
    assert_eq!(cursor.read_u32().await.unwrap(), 0xdead_beef);
    assert_eq!(cursor.read_i16_le().await.unwrap(), -2);
    let err = cursor.read_u8().await.unwrap_err();
    assert_eq!(err.kind(), std::io::ErrorKind::UnexpectedEof);

    let mut s = String::new();
    let mut chained = (&b"ab"[..]).chain(&b"cd"[..]).take(3);
    chained.read_to_string(&mut s).await.unwrap();
    assert_eq!(s, "abc");
}

/// `copy` between always-ready ends yields on the cooperative budget after
/// the same number of polls on both runtimes.
#[tokio::test]
async fn io_copy_yields_on_budget_like_tokio() {
    use std::future::Future;
    use std::pin::Pin;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;
    use std::task::{Context, Poll};
    use tokio::io::AsyncReadExt;

    struct CountPolls<F>(Pin<Box<F>>, Arc<AtomicUsize>);
    impl<F: Future> Future for CountPolls<F> {
        type Output = F::Output;
        fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
            self.1.fetch_add(1, Ordering::Relaxed);
            self.0.as_mut().poll(cx)
        }
    }
    let polls = Arc::new(AtomicUsize::new(0));
    let task = CountPolls(
        Box::pin(async {
            let mut src = tokio::io::repeat(7).take(1 << 20);
            tokio::io::copy(&mut src, &mut tokio::io::sink()).await.unwrap()
        }),
        polls.clone(),
    );
    assert_eq!(tokio::spawn(task).await.unwrap(), 1 << 20);
    assert_eq!(polls.load(Ordering::Relaxed), 3);

    // A loop over `empty()`: one unit per read.
    let polls = Arc::new(AtomicUsize::new(0));
    let task = CountPolls(
        Box::pin(async {
            let mut e = tokio::io::empty();
            for _ in 0..300 {
                assert_eq!(e.read(&mut [0u8; 1]).await.unwrap(), 0);
            }
        }),
        polls.clone(),
    );
    tokio::spawn(task).await.unwrap();
    assert_eq!(polls.load(Ordering::Relaxed), 3);

    // A duplex pipe that always has room and data: budgeted too.
    let polls = Arc::new(AtomicUsize::new(0));
    let task = CountPolls(
        Box::pin(async {
            use tokio::io::AsyncWriteExt;
            let (mut a, mut b) = tokio::io::duplex(1 << 16);
            for _ in 0..100 {
                a.write_all(b"x").await.unwrap();
                b.read_exact(&mut [0u8; 1]).await.unwrap();
            }
        }),
        polls.clone(),
    );
    tokio::spawn(task).await.unwrap();
    assert_eq!(polls.load(Ordering::Relaxed), 2);
}

/// The auto traits of tokio's io futures and helpers, pinned: each future
/// of the `*Ext` traits (and of `copy`, `Lines`, `Split`) is `Send + Sync`
/// and `!Unpin`, the helper types are `Send + Sync + Unpin`. `!Unpin` is
/// checked with an ambiguous trait: with an `Unpin` type two impls of
/// `AmbiguousIfUnpin` apply and the call does not compile. As everything
/// here is compiled against tokio too, it is tokio's answer that is pinned.
#[allow(
    dead_code,
    unreachable_code,
    unused_variables,
    clippy::diverging_sub_expression
)]
fn io_auto_traits() {
    use std::io::{Cursor, IoSlice, SeekFrom};
    use std::pin::Pin;
    use tokio::io::{
        AsyncBufRead, AsyncBufReadExt, AsyncReadExt, AsyncSeek, AsyncSeekExt, AsyncWrite,
        AsyncWriteExt, BufReader, BufStream, BufWriter, Chain, DuplexStream, Empty, Join, Lines,
        ReadHalf, Repeat, SimplexStream, Sink, Split, Stderr, Stdin, Stdout, Take, WriteHalf,
    };

    type R = Pin<Box<dyn AsyncBufRead + Send + Sync>>;
    type Sk = Pin<Box<dyn AsyncSeek + Send + Sync>>;
    type W = Pin<Box<dyn AsyncWrite + Send + Sync>>;
    type C = Cursor<Vec<u8>>;

    struct Invalid;
    trait AmbiguousIfUnpin<A> {
        fn some_item(&self) {}
    }
    impl<T: ?Sized> AmbiguousIfUnpin<()> for T {}
    impl<T: ?Sized + Unpin> AmbiguousIfUnpin<Invalid> for T {}
    fn send_sync<T: Send + Sync>(_: &T) {}
    fn send_sync_unpin<T: Send + Sync + Unpin>() {}

    /// Each expression is `Send + Sync + !Unpin`.
    macro_rules! send_sync_not_unpin {
        ($($e:expr),* $(,)?) => {$({
            let f = $e;
            send_sync(&f);
            AmbiguousIfUnpin::some_item(&f);
        })*};
    }

    let r: &mut R = todo!();
    let s: &mut Sk = todo!();
    let w: &mut W = todo!();
    let buf: &mut [u8] = todo!();
    let v: &mut Vec<u8> = todo!();
    let string: &mut String = todo!();
    let bytes: &mut bytes::Bytes = todo!();
    let slices: &[IoSlice<'_>] = todo!();

    send_sync_not_unpin!(
        r.read(buf),
        r.read_buf(v),
        r.read_exact(buf),
        r.read_to_end(v),
        r.read_to_string(string),
        r.read_u8(),
        r.read_i8(),
        r.read_u16(),
        r.read_i16(),
        r.read_u32(),
        r.read_i32(),
        r.read_u64(),
        r.read_i64(),
        r.read_u128(),
        r.read_i128(),
        r.read_f32(),
        r.read_f64(),
        r.read_u16_le(),
        r.read_i16_le(),
        r.read_u32_le(),
        r.read_i32_le(),
        r.read_u64_le(),
        r.read_i64_le(),
        r.read_u128_le(),
        r.read_i128_le(),
        r.read_f32_le(),
        r.read_f64_le(),
        r.read_until(b'\n', v),
        r.read_line(string),
        r.fill_buf(),
        s.seek(SeekFrom::Start(0)),
        s.rewind(),
        s.stream_position(),
        w.write(buf),
        w.write_vectored(slices),
        w.write_buf(bytes),
        w.write_all_buf(bytes),
        w.write_all(buf),
        w.write_u8(1),
        w.write_i8(1),
        w.write_u16(1),
        w.write_i16(1),
        w.write_u32(1),
        w.write_i32(1),
        w.write_u64(1),
        w.write_i64(1),
        w.write_u128(1),
        w.write_i128(1),
        w.write_f32(1.0),
        w.write_f64(1.0),
        w.write_u16_le(1),
        w.write_i16_le(1),
        w.write_u32_le(1),
        w.write_i32_le(1),
        w.write_u64_le(1),
        w.write_i64_le(1),
        w.write_u128_le(1),
        w.write_i128_le(1),
        w.write_f32_le(1.0),
        w.write_f64_le(1.0),
        w.flush(),
        w.shutdown(),
    );

    let c: &mut C = todo!();
    let br: &mut BufReader<C> = todo!();
    let lines: &mut Lines<BufReader<C>> = todo!();
    let split: &mut Split<BufReader<C>> = todo!();
    send_sync_not_unpin!(
        tokio::io::copy(c, w),
        tokio::io::copy_buf(br, w),
        tokio::io::copy_bidirectional(c, c),
        lines.next_line(),
        split.next_segment(),
    );

    send_sync_unpin::<Empty>();
    send_sync_unpin::<Repeat>();
    send_sync_unpin::<Sink>();
    send_sync_unpin::<Stdin>();
    send_sync_unpin::<Stdout>();
    send_sync_unpin::<Stderr>();
    send_sync_unpin::<DuplexStream>();
    send_sync_unpin::<SimplexStream>();
    send_sync_unpin::<BufReader<C>>();
    send_sync_unpin::<BufWriter<C>>();
    send_sync_unpin::<BufStream<C>>();
    send_sync_unpin::<Chain<C, C>>();
    send_sync_unpin::<Take<C>>();
    send_sync_unpin::<Lines<C>>();
    send_sync_unpin::<Split<C>>();
    send_sync_unpin::<ReadHalf<C>>();
    send_sync_unpin::<WriteHalf<C>>();
    send_sync_unpin::<Join<C, C>>();
}
