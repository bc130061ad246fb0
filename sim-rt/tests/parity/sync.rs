// Included by tests/parity.rs twice: once with `tokio` = tokio, once with
// `tokio` = sim_rt. Only tokio paths may appear here. sim-rt owns all of
// `tokio::sync` (watch is pinned in parity/watch.rs): every public item is
// pinned here to tokio's signature, so a drift fails the build. Auto traits
// are compared type by type in tests/sync_auto_traits.rs.

/// Every item of `tokio::sync` except `watch`, pinned to tokio's signature.
#[allow(
    dead_code,
    deprecated,
    clippy::type_complexity,
    clippy::declare_interior_mutable_const,
    clippy::extra_unused_lifetimes
)]
fn sync_signatures() {
    use std::future::Future;
    use std::pin::Pin;
    use std::sync::Arc;
    use std::task::{Context, Poll};
    use std::time::Duration;
    use tokio::sync::futures::{Notified, OwnedNotified};
    use tokio::sync::*;

    fn future_of<T, F: Future<Output = T> + Send>(_: F) {}
    fn error<E: std::error::Error + Send + Sync + 'static>() {}
    fn debug<T: std::fmt::Debug>() {}
    fn display<T: std::fmt::Display>() {}

    // ----- Notify -----
    let _: fn() -> Notify = Notify::new;
    const _N: Notify = Notify::const_new();
    let _: fn() -> Notify = <Notify as Default>::default;
    let _: for<'a> fn(&'a Notify) -> Notified<'a> = Notify::notified;
    let _: fn(Arc<Notify>) -> OwnedNotified = Notify::notified_owned;
    let _: fn(&Notify) = Notify::notify_one;
    let _: fn(&Notify) = Notify::notify_last;
    let _: fn(&Notify) = Notify::notify_waiters;
    fn notified_enable<'b>() {
        let _: for<'a> fn(Pin<&'a mut Notified<'b>>) -> bool = Notified::<'b>::enable;
    }
    let _: for<'a> fn(Pin<&'a mut OwnedNotified>) -> bool = OwnedNotified::enable;
    fn notified_futures(n: &Notify, a: Arc<Notify>) {
        future_of::<(), _>(n.notified());
        future_of::<(), _>(a.notified_owned());
    }
    debug::<Notify>();
    debug::<Notified<'static>>();
    debug::<OwnedNotified>();
    fn unwind_safe<T: std::panic::UnwindSafe + std::panic::RefUnwindSafe>() {}
    unwind_safe::<Notify>();

    // ----- Semaphore -----
    let _: usize = Semaphore::MAX_PERMITS;
    let _: fn(usize) -> Semaphore = Semaphore::new;
    const _S: Semaphore = Semaphore::const_new(1);
    let _: fn(&Semaphore) -> usize = Semaphore::available_permits;
    let _: fn(&Semaphore, usize) = Semaphore::add_permits;
    let _: fn(&Semaphore, usize) -> usize = Semaphore::forget_permits;
    let _: for<'a> fn(&'a Semaphore) -> Result<SemaphorePermit<'a>, TryAcquireError> =
        Semaphore::try_acquire;
    let _: for<'a> fn(&'a Semaphore, u32) -> Result<SemaphorePermit<'a>, TryAcquireError> =
        Semaphore::try_acquire_many;
    let _: for<'a> fn(&'a Semaphore) -> Result<SemaphorePermit<'a>, AcquireError> =
        Semaphore::blocking_acquire;
    let _: for<'a> fn(&'a Semaphore, u32) -> Result<SemaphorePermit<'a>, AcquireError> =
        Semaphore::blocking_acquire_many;
    let _: fn(Arc<Semaphore>) -> Result<OwnedSemaphorePermit, TryAcquireError> =
        Semaphore::try_acquire_owned;
    let _: fn(Arc<Semaphore>, u32) -> Result<OwnedSemaphorePermit, TryAcquireError> =
        Semaphore::try_acquire_many_owned;
    let _: fn(Arc<Semaphore>) -> Result<OwnedSemaphorePermit, AcquireError> =
        Semaphore::blocking_acquire_owned;
    let _: fn(Arc<Semaphore>, u32) -> Result<OwnedSemaphorePermit, AcquireError> =
        Semaphore::blocking_acquire_many_owned;
    let _: fn(&Semaphore) = Semaphore::close;
    let _: fn(&Semaphore) -> bool = Semaphore::is_closed;
    fn semaphore_futures<'a>(s: &'a Semaphore, a: Arc<Semaphore>) {
        future_of::<Result<SemaphorePermit<'a>, AcquireError>, _>(s.acquire());
        future_of::<Result<SemaphorePermit<'a>, AcquireError>, _>(s.acquire_many(2));
        future_of::<Result<OwnedSemaphorePermit, AcquireError>, _>(a.clone().acquire_owned());
        future_of::<Result<OwnedSemaphorePermit, AcquireError>, _>(a.acquire_many_owned(2));
    }
    fn permit_methods<'a>() {
        let _: fn(SemaphorePermit<'a>) = SemaphorePermit::<'a>::forget;
        let _: fn(&mut SemaphorePermit<'a>, SemaphorePermit<'a>) = SemaphorePermit::<'a>::merge;
        let _: fn(&mut SemaphorePermit<'a>, usize) -> Option<SemaphorePermit<'a>> =
            SemaphorePermit::<'a>::split;
        let _: for<'b> fn(&'b SemaphorePermit<'a>) -> &'b Semaphore =
            SemaphorePermit::<'a>::semaphore;
        let _: fn(&SemaphorePermit<'a>) -> usize = SemaphorePermit::<'a>::num_permits;
    }
    let _: fn(OwnedSemaphorePermit) = OwnedSemaphorePermit::forget;
    let _: fn(&mut OwnedSemaphorePermit, OwnedSemaphorePermit) = OwnedSemaphorePermit::merge;
    let _: fn(&mut OwnedSemaphorePermit, usize) -> Option<OwnedSemaphorePermit> =
        OwnedSemaphorePermit::split;
    let _: fn(&OwnedSemaphorePermit) -> &Arc<Semaphore> = OwnedSemaphorePermit::semaphore;
    let _: fn(&OwnedSemaphorePermit) -> usize = OwnedSemaphorePermit::num_permits;
    debug::<Semaphore>();
    debug::<SemaphorePermit<'static>>();
    debug::<OwnedSemaphorePermit>();
    error::<AcquireError>();
    error::<TryAcquireError>();
    fn try_acquire_error_derives<E: PartialEq + Eq + std::fmt::Debug>() {}
    try_acquire_error_derives::<TryAcquireError>();
    let _ = [TryAcquireError::Closed, TryAcquireError::NoPermits];

    // ----- Mutex -----
    let _: fn(u8) -> Mutex<u8> = Mutex::<u8>::new;
    const _M: Mutex<u8> = Mutex::const_new(0);
    let _: for<'a> fn(&'a Mutex<u8>) -> MutexGuard<'a, u8> = Mutex::<u8>::blocking_lock;
    let _: fn(Arc<Mutex<u8>>) -> OwnedMutexGuard<u8> = Mutex::<u8>::blocking_lock_owned;
    let _: for<'a> fn(&'a Mutex<u8>) -> Result<MutexGuard<'a, u8>, TryLockError> =
        Mutex::<u8>::try_lock;
    let _: fn(Arc<Mutex<u8>>) -> Result<OwnedMutexGuard<u8>, TryLockError> =
        Mutex::<u8>::try_lock_owned;
    let _: for<'a> fn(&'a mut Mutex<u8>) -> &'a mut u8 = Mutex::<u8>::get_mut;
    let _: fn(Mutex<u8>) -> u8 = Mutex::<u8>::into_inner;
    let _: fn(u8) -> Mutex<u8> = <Mutex<u8> as From<u8>>::from;
    let _: fn() -> Mutex<u8> = <Mutex<u8> as Default>::default;
    fn mutex_futures<'a>(m: &'a Mutex<u8>, a: Arc<Mutex<u8>>) {
        future_of::<MutexGuard<'a, u8>, _>(m.lock());
        future_of::<OwnedMutexGuard<u8>, _>(a.lock_owned());
    }
    fn unsized_mutex(m: &Mutex<[u8]>, g: MutexGuard<'_, [u8]>) -> usize {
        g.len() + m.try_lock().map(|g| g.len()).unwrap_or(0)
    }
    fn mutex_guard_methods<'a>() {
        let _: fn(MutexGuard<'a, (u8, u16)>, fn(&mut (u8, u16)) -> &mut u16) -> MappedMutexGuard<'a, u16> =
            MutexGuard::map;
        let _: fn(
            MutexGuard<'a, (u8, u16)>,
            fn(&mut (u8, u16)) -> Option<&mut u16>,
        ) -> Result<MappedMutexGuard<'a, u16>, MutexGuard<'a, (u8, u16)>> = MutexGuard::try_map;
        let _: fn(&MutexGuard<'a, u8>) -> &'a Mutex<u8> = MutexGuard::mutex;
        let _: fn(MappedMutexGuard<'a, (u8, u16)>, fn(&mut (u8, u16)) -> &mut u16) -> MappedMutexGuard<'a, u16> =
            MappedMutexGuard::map;
        let _: fn(
            MappedMutexGuard<'a, (u8, u16)>,
            fn(&mut (u8, u16)) -> Option<&mut u16>,
        ) -> Result<MappedMutexGuard<'a, u16>, MappedMutexGuard<'a, (u8, u16)>> =
            MappedMutexGuard::try_map;
    }
    let _: fn(OwnedMutexGuard<(u8, u16)>, fn(&mut (u8, u16)) -> &mut u16) -> OwnedMappedMutexGuard<(u8, u16), u16> =
        OwnedMutexGuard::map;
    let _: fn(
        OwnedMutexGuard<(u8, u16)>,
        fn(&mut (u8, u16)) -> Option<&mut u16>,
    ) -> Result<OwnedMappedMutexGuard<(u8, u16), u16>, OwnedMutexGuard<(u8, u16)>> =
        OwnedMutexGuard::try_map;
    let _: fn(&OwnedMutexGuard<u8>) -> &Arc<Mutex<u8>> = OwnedMutexGuard::mutex;
    let _: fn(OwnedMappedMutexGuard<u8, (u8, u16)>, fn(&mut (u8, u16)) -> &mut u16) -> OwnedMappedMutexGuard<u8, u16> =
        OwnedMappedMutexGuard::map;
    let _: fn(
        OwnedMappedMutexGuard<u8, (u8, u16)>,
        fn(&mut (u8, u16)) -> Option<&mut u16>,
    ) -> Result<OwnedMappedMutexGuard<u8, u16>, OwnedMappedMutexGuard<u8, (u8, u16)>> =
        OwnedMappedMutexGuard::try_map;
    fn deref_mut<T: std::ops::DerefMut<Target = u8> + std::fmt::Debug + std::fmt::Display>() {}
    deref_mut::<MutexGuard<'static, u8>>();
    deref_mut::<OwnedMutexGuard<u8>>();
    deref_mut::<MappedMutexGuard<'static, u8>>();
    deref_mut::<OwnedMappedMutexGuard<u16, u8>>();
    debug::<Mutex<u8>>();
    error::<TryLockError>();

    // ----- RwLock -----
    let _: fn(u8) -> RwLock<u8> = RwLock::<u8>::new;
    let _: fn(u8, u32) -> RwLock<u8> = RwLock::<u8>::with_max_readers;
    const _R: RwLock<u8> = RwLock::const_new(0);
    const _R2: RwLock<u8> = RwLock::const_with_max_readers(0, 2);
    let _: for<'a> fn(&'a RwLock<u8>) -> RwLockReadGuard<'a, u8> = RwLock::<u8>::blocking_read;
    let _: for<'a> fn(&'a RwLock<u8>) -> RwLockWriteGuard<'a, u8> = RwLock::<u8>::blocking_write;
    let _: for<'a> fn(&'a RwLock<u8>) -> Result<RwLockReadGuard<'a, u8>, TryLockError> =
        RwLock::<u8>::try_read;
    let _: for<'a> fn(&'a RwLock<u8>) -> Result<RwLockWriteGuard<'a, u8>, TryLockError> =
        RwLock::<u8>::try_write;
    let _: fn(Arc<RwLock<u8>>) -> Result<OwnedRwLockReadGuard<u8>, TryLockError> =
        RwLock::<u8>::try_read_owned;
    let _: fn(Arc<RwLock<u8>>) -> Result<OwnedRwLockWriteGuard<u8>, TryLockError> =
        RwLock::<u8>::try_write_owned;
    let _: for<'a> fn(&'a mut RwLock<u8>) -> &'a mut u8 = RwLock::<u8>::get_mut;
    let _: fn(RwLock<u8>) -> u8 = RwLock::<u8>::into_inner;
    let _: fn(u8) -> RwLock<u8> = <RwLock<u8> as From<u8>>::from;
    let _: fn() -> RwLock<u8> = <RwLock<u8> as Default>::default;
    debug::<RwLock<u8>>();
    fn rwlock_futures<'a>(l: &'a RwLock<u8>, a: Arc<RwLock<u8>>) {
        future_of::<RwLockReadGuard<'a, u8>, _>(l.read());
        future_of::<RwLockWriteGuard<'a, u8>, _>(l.write());
        future_of::<OwnedRwLockReadGuard<u8>, _>(a.clone().read_owned());
        future_of::<OwnedRwLockWriteGuard<u8>, _>(a.write_owned());
    }
    type P = (u8, u16);
    fn rwlock_guard_methods<'a>() {
        let _: fn(RwLockReadGuard<'a, P>, fn(&P) -> &u16) -> RwLockReadGuard<'a, u16> =
            RwLockReadGuard::map;
        let _: fn(RwLockReadGuard<'a, P>, fn(&P) -> Option<&u16>) -> Result<RwLockReadGuard<'a, u16>, RwLockReadGuard<'a, P>> =
            RwLockReadGuard::try_map;
        let _: fn(RwLockWriteGuard<'a, P>, fn(&mut P) -> &mut u16) -> RwLockMappedWriteGuard<'a, u16> =
            RwLockWriteGuard::map;
        let _: fn(RwLockWriteGuard<'a, P>, fn(&mut P) -> Option<&mut u16>) -> Result<RwLockMappedWriteGuard<'a, u16>, RwLockWriteGuard<'a, P>> =
            RwLockWriteGuard::try_map;
        let _: fn(RwLockWriteGuard<'a, P>, fn(&P) -> &u16) -> RwLockReadGuard<'a, u16> =
            RwLockWriteGuard::downgrade_map;
        let _: fn(RwLockWriteGuard<'a, P>, fn(&P) -> Option<&u16>) -> Result<RwLockReadGuard<'a, u16>, RwLockWriteGuard<'a, P>> =
            RwLockWriteGuard::try_downgrade_map;
        let _: fn(RwLockWriteGuard<'a, P>) -> RwLockMappedWriteGuard<'a, P> =
            RwLockWriteGuard::into_mapped;
        let _: fn(RwLockWriteGuard<'a, P>) -> RwLockReadGuard<'a, P> = RwLockWriteGuard::downgrade;
        let _: fn(RwLockMappedWriteGuard<'a, P>, fn(&mut P) -> &mut u16) -> RwLockMappedWriteGuard<'a, u16> =
            RwLockMappedWriteGuard::map;
        let _: fn(RwLockMappedWriteGuard<'a, P>, fn(&mut P) -> Option<&mut u16>) -> Result<RwLockMappedWriteGuard<'a, u16>, RwLockMappedWriteGuard<'a, P>> =
            RwLockMappedWriteGuard::try_map;
    }
    let _: fn(OwnedRwLockReadGuard<P>, fn(&P) -> &u16) -> OwnedRwLockReadGuard<P, u16> =
        OwnedRwLockReadGuard::map;
    let _: fn(OwnedRwLockReadGuard<P>, fn(&P) -> Option<&u16>) -> Result<OwnedRwLockReadGuard<P, u16>, OwnedRwLockReadGuard<P>> =
        OwnedRwLockReadGuard::try_map;
    let _: fn(&OwnedRwLockReadGuard<P, u16>) -> &Arc<RwLock<P>> = OwnedRwLockReadGuard::rwlock;
    let _: fn(OwnedRwLockWriteGuard<P>, fn(&mut P) -> &mut u16) -> OwnedRwLockMappedWriteGuard<P, u16> =
        OwnedRwLockWriteGuard::map;
    let _: fn(OwnedRwLockWriteGuard<P>, fn(&mut P) -> Option<&mut u16>) -> Result<OwnedRwLockMappedWriteGuard<P, u16>, OwnedRwLockWriteGuard<P>> =
        OwnedRwLockWriteGuard::try_map;
    let _: fn(OwnedRwLockWriteGuard<P>, fn(&P) -> &u16) -> OwnedRwLockReadGuard<P, u16> =
        OwnedRwLockWriteGuard::downgrade_map;
    let _: fn(OwnedRwLockWriteGuard<P>, fn(&P) -> Option<&u16>) -> Result<OwnedRwLockReadGuard<P, u16>, OwnedRwLockWriteGuard<P>> =
        OwnedRwLockWriteGuard::try_downgrade_map;
    let _: fn(OwnedRwLockWriteGuard<P>) -> OwnedRwLockMappedWriteGuard<P> =
        OwnedRwLockWriteGuard::into_mapped;
    let _: fn(OwnedRwLockWriteGuard<P>) -> OwnedRwLockReadGuard<P> = OwnedRwLockWriteGuard::downgrade;
    let _: fn(&OwnedRwLockWriteGuard<P>) -> &Arc<RwLock<P>> = OwnedRwLockWriteGuard::rwlock;
    let _: fn(OwnedRwLockMappedWriteGuard<P>, fn(&mut P) -> &mut u16) -> OwnedRwLockMappedWriteGuard<P, u16> =
        OwnedRwLockMappedWriteGuard::map;
    let _: fn(OwnedRwLockMappedWriteGuard<P>, fn(&mut P) -> Option<&mut u16>) -> Result<OwnedRwLockMappedWriteGuard<P, u16>, OwnedRwLockMappedWriteGuard<P>> =
        OwnedRwLockMappedWriteGuard::try_map;
    let _: fn(&OwnedRwLockMappedWriteGuard<P, u16>) -> &Arc<RwLock<P>> =
        OwnedRwLockMappedWriteGuard::rwlock;
    fn deref<T: std::ops::Deref<Target = u8> + std::fmt::Debug + std::fmt::Display>() {}
    deref::<RwLockReadGuard<'static, u8>>();
    deref::<OwnedRwLockReadGuard<u16, u8>>();
    deref_mut::<RwLockWriteGuard<'static, u8>>();
    deref_mut::<RwLockMappedWriteGuard<'static, u8>>();
    deref_mut::<OwnedRwLockWriteGuard<u8>>();
    deref_mut::<OwnedRwLockMappedWriteGuard<u16, u8>>();

    // ----- Barrier -----
    let _: fn(usize) -> Barrier = Barrier::new;
    fn barrier_future(b: &Barrier) {
        future_of::<BarrierWaitResult, _>(b.wait());
    }
    let _: fn(&BarrierWaitResult) -> bool = BarrierWaitResult::is_leader;
    debug::<Barrier>();
    fn clone_debug<T: Clone + std::fmt::Debug>() {}
    clone_debug::<BarrierWaitResult>();

    // ----- OnceCell / SetOnce -----
    let _: fn() -> OnceCell<u8> = OnceCell::<u8>::new;
    const _O: OnceCell<u8> = OnceCell::const_new();
    const _O2: OnceCell<u8> = OnceCell::const_new_with(1);
    let _: fn(Option<u8>) -> OnceCell<u8> = OnceCell::<u8>::new_with;
    let _: fn(&OnceCell<u8>) -> bool = OnceCell::<u8>::initialized;
    let _: fn(&OnceCell<u8>) -> Option<&u8> = OnceCell::<u8>::get;
    let _: fn(&mut OnceCell<u8>) -> Option<&mut u8> = OnceCell::<u8>::get_mut;
    let _: fn(&OnceCell<u8>, u8) -> Result<(), SetError<u8>> = OnceCell::<u8>::set;
    let _: fn(OnceCell<u8>) -> Option<u8> = OnceCell::<u8>::into_inner;
    let _: fn(&mut OnceCell<u8>) -> Option<u8> = OnceCell::<u8>::take;
    let _: fn(u8) -> OnceCell<u8> = <OnceCell<u8> as From<u8>>::from;
    fn once_cell_futures<'a>(c: &'a OnceCell<u8>) {
        future_of::<&'a u8, _>(c.get_or_init(|| async { 1 }));
        future_of::<Result<&'a u8, ()>, _>(c.get_or_try_init(|| async { Ok(1) }));
    }
    fn cell_traits<T: Default + Clone + PartialEq + Eq + std::fmt::Debug>() {}
    cell_traits::<OnceCell<u8>>();
    cell_traits::<SetOnce<u8>>();
    let _: fn(&SetError<u8>) -> bool = SetError::<u8>::is_already_init_err;
    let _: fn(&SetError<u8>) -> bool = SetError::<u8>::is_initializing_err;
    let _ = [SetError::AlreadyInitializedError(1u8), SetError::InitializingError(1u8)];
    error::<SetError<u8>>();
    fn eq_debug<T: PartialEq + Eq + std::fmt::Debug>() {}
    eq_debug::<SetError<u8>>();
    let _: fn() -> SetOnce<u8> = SetOnce::<u8>::new;
    const _SO: SetOnce<u8> = SetOnce::const_new();
    const _SO2: SetOnce<u8> = SetOnce::const_new_with(1);
    let _: fn(Option<u8>) -> SetOnce<u8> = SetOnce::<u8>::new_with;
    let _: fn(&SetOnce<u8>) -> bool = SetOnce::<u8>::initialized;
    let _: fn(&SetOnce<u8>) -> Option<&u8> = SetOnce::<u8>::get;
    let _: fn(&SetOnce<u8>, u8) -> Result<(), SetOnceError<u8>> = SetOnce::<u8>::set;
    let _: fn(SetOnce<u8>) -> Option<u8> = SetOnce::<u8>::into_inner;
    let _: fn(u8) -> SetOnce<u8> = <SetOnce<u8> as From<u8>>::from;
    fn set_once_future<'a>(c: &'a SetOnce<u8>) {
        future_of::<&'a u8, _>(c.wait());
    }
    let _: u8 = SetOnceError(1u8).0;
    error::<SetOnceError<u8>>();
    eq_debug::<SetOnceError<u8>>();

    // ----- mpsc -----
    {
        use tokio::sync::mpsc::error::{SendError, SendTimeoutError, TryRecvError, TrySendError};
        use tokio::sync::mpsc::*;
        let _: fn(usize) -> (Sender<u8>, Receiver<u8>) = channel::<u8>;
        let _: fn() -> (UnboundedSender<u8>, UnboundedReceiver<u8>) = unbounded_channel::<u8>;

        // Receiver.
        let _: fn(&mut Receiver<u8>) -> Result<u8, TryRecvError> = Receiver::<u8>::try_recv;
        let _: fn(&mut Receiver<u8>) -> Option<u8> = Receiver::<u8>::blocking_recv;
        let _: fn(&mut Receiver<u8>, &mut Vec<u8>, usize) -> usize =
            Receiver::<u8>::blocking_recv_many;
        let _: fn(&mut Receiver<u8>) = Receiver::<u8>::close;
        let _: fn(&Receiver<u8>) -> bool = Receiver::<u8>::is_closed;
        let _: fn(&Receiver<u8>) -> bool = Receiver::<u8>::is_empty;
        let _: fn(&Receiver<u8>) -> usize = Receiver::<u8>::len;
        let _: fn(&Receiver<u8>) -> usize = Receiver::<u8>::capacity;
        let _: fn(&Receiver<u8>) -> usize = Receiver::<u8>::max_capacity;
        let _: for<'a, 'b> fn(&mut Receiver<u8>, &'a mut Context<'b>) -> Poll<Option<u8>> =
            Receiver::<u8>::poll_recv;
        let _: for<'a, 'b> fn(&mut Receiver<u8>, &'a mut Context<'b>, &mut Vec<u8>, usize) -> Poll<usize> =
            Receiver::<u8>::poll_recv_many;
        let _: fn(&Receiver<u8>) -> usize = Receiver::<u8>::sender_strong_count;
        let _: fn(&Receiver<u8>) -> usize = Receiver::<u8>::sender_weak_count;
        fn receiver_futures(rx: &mut Receiver<u8>, buf: &mut Vec<u8>) {
            future_of::<Option<u8>, _>(rx.recv());
            future_of::<usize, _>(rx.recv_many(buf, 2));
        }

        // Sender.
        let _: fn(&Sender<u8>, u8) -> Result<(), TrySendError<u8>> = Sender::<u8>::try_send;
        let _: fn(&Sender<u8>, u8) -> Result<(), SendError<u8>> = Sender::<u8>::blocking_send;
        let _: fn(&Sender<u8>) -> bool = Sender::<u8>::is_closed;
        let _: for<'a> fn(&'a Sender<u8>) -> Result<Permit<'a, u8>, TrySendError<()>> =
            Sender::<u8>::try_reserve;
        let _: for<'a> fn(&'a Sender<u8>, usize) -> Result<PermitIterator<'a, u8>, TrySendError<()>> =
            Sender::<u8>::try_reserve_many;
        let _: fn(Sender<u8>) -> Result<OwnedPermit<u8>, TrySendError<Sender<u8>>> =
            Sender::<u8>::try_reserve_owned;
        let _: fn(&Sender<u8>, &Sender<u8>) -> bool = Sender::<u8>::same_channel;
        let _: fn(&Sender<u8>) -> usize = Sender::<u8>::capacity;
        let _: fn(&Sender<u8>) -> WeakSender<u8> = Sender::<u8>::downgrade;
        let _: fn(&Sender<u8>) -> usize = Sender::<u8>::max_capacity;
        let _: fn(&Sender<u8>) -> usize = Sender::<u8>::strong_count;
        let _: fn(&Sender<u8>) -> usize = Sender::<u8>::weak_count;
        fn sender_futures<'a>(tx: &'a Sender<u8>) {
            future_of::<Result<(), SendError<u8>>, _>(tx.send(1));
            future_of::<(), _>(tx.closed());
            future_of::<Result<(), SendTimeoutError<u8>>, _>(tx.send_timeout(1, Duration::ZERO));
            future_of::<Result<Permit<'a, u8>, SendError<()>>, _>(tx.reserve());
            future_of::<Result<PermitIterator<'a, u8>, SendError<()>>, _>(tx.reserve_many(2));
            future_of::<Result<OwnedPermit<u8>, SendError<()>>, _>(tx.clone().reserve_owned());
        }
        let _: fn(&WeakSender<u8>) -> Option<Sender<u8>> = WeakSender::<u8>::upgrade;
        let _: fn(&WeakSender<u8>) -> usize = WeakSender::<u8>::strong_count;
        let _: fn(&WeakSender<u8>) -> usize = WeakSender::<u8>::weak_count;

        // Permits.
        fn permit_send<'a>() {
            let _: fn(Permit<'a, u8>, u8) = Permit::<'a, u8>::send;
        }
        fn permit_iter<'a, I: ExactSizeIterator<Item = Permit<'a, u8>> + std::iter::FusedIterator>() {}
        permit_iter::<PermitIterator<'static, u8>>();
        let _: fn(OwnedPermit<u8>, u8) -> Sender<u8> = OwnedPermit::<u8>::send;
        let _: fn(OwnedPermit<u8>) -> Sender<u8> = OwnedPermit::<u8>::release;
        let _: fn(&OwnedPermit<u8>, &OwnedPermit<u8>) -> bool = OwnedPermit::<u8>::same_channel;
        let _: fn(&OwnedPermit<u8>, &Sender<u8>) -> bool = OwnedPermit::<u8>::same_channel_as_sender;

        // Unbounded.
        let _: fn(&mut UnboundedReceiver<u8>) -> Result<u8, TryRecvError> =
            UnboundedReceiver::<u8>::try_recv;
        let _: fn(&mut UnboundedReceiver<u8>) -> Option<u8> = UnboundedReceiver::<u8>::blocking_recv;
        let _: fn(&mut UnboundedReceiver<u8>, &mut Vec<u8>, usize) -> usize =
            UnboundedReceiver::<u8>::blocking_recv_many;
        let _: fn(&mut UnboundedReceiver<u8>) = UnboundedReceiver::<u8>::close;
        let _: fn(&UnboundedReceiver<u8>) -> bool = UnboundedReceiver::<u8>::is_closed;
        let _: fn(&UnboundedReceiver<u8>) -> bool = UnboundedReceiver::<u8>::is_empty;
        let _: fn(&UnboundedReceiver<u8>) -> usize = UnboundedReceiver::<u8>::len;
        let _: for<'a, 'b> fn(&mut UnboundedReceiver<u8>, &'a mut Context<'b>) -> Poll<Option<u8>> =
            UnboundedReceiver::<u8>::poll_recv;
        let _: for<'a, 'b> fn(&mut UnboundedReceiver<u8>, &'a mut Context<'b>, &mut Vec<u8>, usize) -> Poll<usize> =
            UnboundedReceiver::<u8>::poll_recv_many;
        let _: fn(&UnboundedReceiver<u8>) -> usize = UnboundedReceiver::<u8>::sender_strong_count;
        let _: fn(&UnboundedReceiver<u8>) -> usize = UnboundedReceiver::<u8>::sender_weak_count;
        fn unbounded_futures(rx: &mut UnboundedReceiver<u8>, tx: &UnboundedSender<u8>, buf: &mut Vec<u8>) {
            future_of::<Option<u8>, _>(rx.recv());
            future_of::<usize, _>(rx.recv_many(buf, 2));
            future_of::<(), _>(tx.closed());
        }
        let _: fn(&UnboundedSender<u8>, u8) -> Result<(), SendError<u8>> = UnboundedSender::<u8>::send;
        let _: fn(&UnboundedSender<u8>) -> bool = UnboundedSender::<u8>::is_closed;
        let _: fn(&UnboundedSender<u8>, &UnboundedSender<u8>) -> bool = UnboundedSender::<u8>::same_channel;
        let _: fn(&UnboundedSender<u8>) -> WeakUnboundedSender<u8> = UnboundedSender::<u8>::downgrade;
        let _: fn(&UnboundedSender<u8>) -> usize = UnboundedSender::<u8>::strong_count;
        let _: fn(&UnboundedSender<u8>) -> usize = UnboundedSender::<u8>::weak_count;
        let _: fn(&WeakUnboundedSender<u8>) -> Option<UnboundedSender<u8>> =
            WeakUnboundedSender::<u8>::upgrade;
        let _: fn(&WeakUnboundedSender<u8>) -> usize = WeakUnboundedSender::<u8>::strong_count;
        let _: fn(&WeakUnboundedSender<u8>) -> usize = WeakUnboundedSender::<u8>::weak_count;

        // Handles: Clone + Debug without `T: Clone/Debug`.
        struct Opaque;
        fn clone_debug<T: Clone + std::fmt::Debug>() {}
        clone_debug::<Sender<Opaque>>();
        clone_debug::<UnboundedSender<Opaque>>();
        clone_debug::<WeakSender<Opaque>>();
        clone_debug::<WeakUnboundedSender<Opaque>>();
        debug::<Receiver<Opaque>>();
        debug::<UnboundedReceiver<Opaque>>();
        debug::<Permit<'static, Opaque>>();
        debug::<OwnedPermit<Opaque>>();
        debug::<PermitIterator<'static, Opaque>>();

        // Errors.
        let _: u8 = SendError(1u8).0;
        let _: fn(TrySendError<u8>) -> u8 = TrySendError::<u8>::into_inner;
        let _: fn(SendTimeoutError<u8>) -> u8 = SendTimeoutError::<u8>::into_inner;
        let _: fn(SendError<u8>) -> TrySendError<u8> = <TrySendError<u8> as From<SendError<u8>>>::from;
        let _ = [TrySendError::Full(1u8), TrySendError::Closed(1u8)];
        let _ = [SendTimeoutError::Timeout(1u8), SendTimeoutError::Closed(1u8)];
        let _ = [TryRecvError::Empty, TryRecvError::Disconnected];
        fn error_derives<T: PartialEq + Eq + Clone + Copy + std::fmt::Debug>() {}
        error_derives::<SendError<u8>>();
        error_derives::<TrySendError<u8>>();
        error_derives::<SendTimeoutError<u8>>();
        error_derives::<TryRecvError>();
        // Error and Debug without `T: Debug`.
        error::<SendError<Opaque2>>();
        error::<TrySendError<Opaque2>>();
        error::<SendTimeoutError<Opaque2>>();
        error::<TryRecvError>();
        struct Opaque2;
        error::<tokio::sync::mpsc::error::RecvError>();
    }

    // ----- oneshot -----
    {
        use tokio::sync::oneshot::error::{RecvError, TryRecvError};
        use tokio::sync::oneshot::*;
        let _: fn() -> (Sender<u8>, Receiver<u8>) = channel::<u8>;
        let _: fn(Sender<u8>, u8) -> Result<(), u8> = Sender::<u8>::send;
        let _: fn(&Sender<u8>) -> bool = Sender::<u8>::is_closed;
        let _: for<'a, 'b> fn(&mut Sender<u8>, &'a mut Context<'b>) -> Poll<()> =
            Sender::<u8>::poll_closed;
        fn oneshot_futures(tx: &mut Sender<u8>, rx: Receiver<u8>) {
            future_of::<(), _>(tx.closed());
            future_of::<Result<u8, RecvError>, _>(rx);
        }
        let _: fn(&mut Receiver<u8>) = Receiver::<u8>::close;
        let _: fn(&Receiver<u8>) -> bool = Receiver::<u8>::is_terminated;
        let _: fn(&Receiver<u8>) -> bool = Receiver::<u8>::is_empty;
        let _: fn(&mut Receiver<u8>) -> Result<u8, TryRecvError> = Receiver::<u8>::try_recv;
        let _: fn(Receiver<u8>) -> Result<u8, RecvError> = Receiver::<u8>::blocking_recv;
        debug::<Sender<u8>>();
        debug::<Receiver<u8>>();
        fn recv_error<E: std::error::Error + Clone + PartialEq + Eq + Send + Sync + 'static>() {}
        recv_error::<RecvError>();
        recv_error::<TryRecvError>();
        let _ = [TryRecvError::Empty, TryRecvError::Closed];
    }

    // ----- broadcast -----
    {
        use tokio::sync::broadcast::error::{RecvError, SendError, TryRecvError};
        use tokio::sync::broadcast::*;
        let _: fn(usize) -> (Sender<u8>, Receiver<u8>) = channel::<u8>;
        let _: fn(usize) -> Sender<u8> = Sender::<u8>::new;
        let _: fn(&Sender<u8>, u8) -> Result<usize, SendError<u8>> = Sender::<u8>::send;
        let _: fn(&Sender<u8>) -> Receiver<u8> = Sender::<u8>::subscribe;
        let _: fn(&Sender<u8>) -> WeakSender<u8> = Sender::<u8>::downgrade;
        let _: fn(&Sender<u8>) -> usize = Sender::<u8>::len;
        let _: fn(&Sender<u8>) -> bool = Sender::<u8>::is_empty;
        let _: fn(&Sender<u8>) -> usize = Sender::<u8>::receiver_count;
        let _: fn(&Sender<u8>, &Sender<u8>) -> bool = Sender::<u8>::same_channel;
        let _: fn(&Sender<u8>) -> usize = Sender::<u8>::strong_count;
        let _: fn(&Sender<u8>) -> usize = Sender::<u8>::weak_count;
        let _: fn(&WeakSender<u8>) -> Option<Sender<u8>> = WeakSender::<u8>::upgrade;
        let _: fn(&WeakSender<u8>) -> usize = WeakSender::<u8>::strong_count;
        let _: fn(&WeakSender<u8>) -> usize = WeakSender::<u8>::weak_count;
        let _: fn(&Receiver<u8>) -> usize = Receiver::<u8>::len;
        let _: fn(&Receiver<u8>) -> bool = Receiver::<u8>::is_empty;
        let _: fn(&Receiver<u8>, &Receiver<u8>) -> bool = Receiver::<u8>::same_channel;
        let _: fn(&Receiver<u8>) -> usize = Receiver::<u8>::sender_strong_count;
        let _: fn(&Receiver<u8>) -> usize = Receiver::<u8>::sender_weak_count;
        let _: fn(&Receiver<u8>) -> bool = Receiver::<u8>::is_closed;
        let _: fn(&Receiver<u8>) -> Receiver<u8> = Receiver::<u8>::resubscribe;
        let _: fn(&mut Receiver<u8>) -> Result<u8, TryRecvError> = Receiver::<u8>::try_recv;
        let _: fn(&mut Receiver<u8>) -> Result<u8, RecvError> = Receiver::<u8>::blocking_recv;
        fn broadcast_futures(tx: &Sender<u8>, rx: &mut Receiver<u8>) {
            future_of::<(), _>(tx.closed());
            future_of::<Result<u8, RecvError>, _>(rx.recv());
        }
        struct Opaque;
        fn clone_debug<T: Clone + std::fmt::Debug>() {}
        clone_debug::<Sender<Opaque>>();
        clone_debug::<WeakSender<Opaque>>();
        debug::<Receiver<Opaque>>();
        let _: u8 = SendError(1u8).0;
        error::<SendError<u8>>();
        fn recv_error<E: std::error::Error + Clone + PartialEq + Eq + Send + Sync + 'static>() {}
        recv_error::<RecvError>();
        recv_error::<TryRecvError>();
        let _ = [RecvError::Closed, RecvError::Lagged(1)];
        let _ = [TryRecvError::Empty, TryRecvError::Closed, TryRecvError::Lagged(1)];
    }
}

/// The sync primitives in use across tasks, run under both runtimes.
#[tokio::test]
async fn sync_primitives_run() {
    use std::sync::Arc;
    use std::time::Duration;
    use tokio::sync::{broadcast, mpsc, oneshot, Mutex, Notify, RwLock, Semaphore};

    let m = Arc::new(Mutex::new(0u32));
    let sem = Arc::new(Semaphore::new(2));
    let notify = Arc::new(Notify::new());
    let (tx, mut rx) = mpsc::channel::<u32>(2);
    let (btx, _) = broadcast::channel::<u32>(8);
    let mut set = tokio::task::JoinSet::new();
    for i in 0..4 {
        let (m, sem, tx, mut brx) = (m.clone(), sem.clone(), tx.clone(), btx.subscribe());
        set.spawn(async move {
            let permit = sem.acquire().await.unwrap();
            *m.lock().await += i;
            tx.send(i).await.unwrap();
            drop((permit, tx));
            brx.recv().await.unwrap()
        });
    }
    drop(tx);
    let mut sum = 0;
    while let Some(i) = rx.recv().await {
        sum += i;
    }
    assert_eq!((sum, *m.lock().await), (6, 6));
    btx.send(9).unwrap();
    while let Some(v) = set.join_next().await {
        assert_eq!(v.unwrap(), 9);
    }

    let (otx, orx) = oneshot::channel();
    let n = notify.clone();
    tokio::spawn(async move {
        n.notified().await;
        otx.send("woken").unwrap();
    });
    tokio::time::sleep(Duration::from_millis(1)).await;
    notify.notify_one();
    assert_eq!(orx.await, Ok("woken"));

    let l = RwLock::new(1);
    let (a, b) = tokio::join!(l.read(), l.read());
    assert_eq!(*a + *b, 2);
}
