// Included by tests/parity.rs twice: once with `tokio` = tokio, once with
// `tokio` = sim_rt. Only tokio paths may appear here. sim_rt's `sync::watch`
// is its own (tokio's wakes waiters in a random order): its whole surface is
// pinned here, down to trait impls and auto traits.

/// Every item of `tokio::sync::watch`, pinned to tokio's signature.
#[allow(dead_code, clippy::type_complexity)]
fn watch_signatures() {
    use std::future::Future;
    use tokio::sync::watch::error::{RecvError, SendError};
    use tokio::sync::watch::{self, Receiver, Ref, Sender};

    fn future_of<T, F: Future<Output = T> + Send>(_: F) {}

    // Free functions and constructors.
    let _: fn(u8) -> (Sender<u8>, Receiver<u8>) = watch::channel::<u8>;
    let _: fn(u8) -> Sender<u8> = Sender::<u8>::new;

    // Sender.
    let _: fn(&Sender<u8>, u8) -> Result<(), SendError<u8>> = Sender::<u8>::send;
    let _: fn(&Sender<u8>, fn(&mut u8)) = Sender::<u8>::send_modify::<fn(&mut u8)>;
    let _: fn(&Sender<u8>, fn(&mut u8) -> bool) -> bool =
        Sender::<u8>::send_if_modified::<fn(&mut u8) -> bool>;
    let _: fn(&Sender<u8>, u8) -> u8 = Sender::<u8>::send_replace;
    let _: for<'a> fn(&'a Sender<u8>) -> Ref<'a, u8> = Sender::<u8>::borrow;
    let _: fn(&Sender<u8>) -> bool = Sender::<u8>::is_closed;
    let _: fn(&Sender<u8>) -> Receiver<u8> = Sender::<u8>::subscribe;
    let _: fn(&Sender<u8>) -> usize = Sender::<u8>::receiver_count;
    let _: fn(&Sender<u8>) -> usize = Sender::<u8>::sender_count;
    let _: fn(&Sender<u8>, &Sender<u8>) -> bool = Sender::<u8>::same_channel;
    fn sender_futures(tx: &Sender<u8>) {
        future_of::<(), _>(tx.closed());
    }

    // Receiver.
    let _: for<'a> fn(&'a Receiver<u8>) -> Ref<'a, u8> = Receiver::<u8>::borrow;
    let _: for<'a> fn(&'a mut Receiver<u8>) -> Ref<'a, u8> = Receiver::<u8>::borrow_and_update;
    let _: fn(&Receiver<u8>) -> Result<bool, RecvError> = Receiver::<u8>::has_changed;
    let _: fn(&Receiver<u8>) -> bool = Receiver::<u8>::is_closed;
    let _: fn(&mut Receiver<u8>) = Receiver::<u8>::mark_changed;
    let _: fn(&mut Receiver<u8>) = Receiver::<u8>::mark_unchanged;
    let _: fn(&Receiver<u8>, &Receiver<u8>) -> bool = Receiver::<u8>::same_channel;
    fn receiver_futures(rx: &mut Receiver<u8>) {
        future_of::<Result<(), RecvError>, _>(rx.changed());
    }
    fn wait_for_future<'a>(rx: &'a mut Receiver<u8>) {
        future_of::<Result<Ref<'a, u8>, RecvError>, _>(rx.wait_for(|v: &u8| *v > 0));
    }

    // Ref.
    fn ref_has_changed<'b>(_: &Ref<'b, u8>) {
        let _: fn(&Ref<'b, u8>) -> bool = Ref::<'b, u8>::has_changed;
    }
    fn deref<'a>(r: &'a Ref<'_, u8>) -> &'a u8 {
        std::ops::Deref::deref(r)
    }

    // Errors: public field, tokio's derives and impls.
    let _: SendError<u8> = SendError(1u8);
    let _: u8 = SendError(1u8).0;
    fn send_error_impls<T>()
    where
        SendError<T>: std::fmt::Debug + std::fmt::Display + std::error::Error,
    {
    }
    send_error_impls::<std::rc::Rc<u8>>();
    fn send_error_derives<T: PartialEq + Eq + Clone + Copy>()
    where
        SendError<T>: PartialEq + Eq + Clone + Copy,
    {
    }
    send_error_derives::<u8>();
    fn recv_error_impls<E: std::fmt::Debug + std::fmt::Display + std::error::Error + Clone>() {}
    recv_error_impls::<RecvError>();
    let _: fn(SendError<u8>) -> Box<dyn std::error::Error + Send + Sync> = |e| Box::new(e);
    let _: fn(RecvError) -> Box<dyn std::error::Error + Send + Sync> = |e| Box::new(e);

    // Handles: trait impls.
    fn clone_debug<T: Clone + std::fmt::Debug>() {}
    clone_debug::<Sender<u8>>();
    clone_debug::<Receiver<u8>>();
    let _: fn() -> Sender<u8> = <Sender<u8> as Default>::default;
    fn debug<T: std::fmt::Debug>() {}
    debug::<Ref<'static, u8>>();

    // Auto traits: handles are Send + Sync + Unpin; a Ref is Sync, not Send.
    fn send_sync_unpin<T: Send + Sync + Unpin>() {}
    send_sync_unpin::<Sender<u8>>();
    send_sync_unpin::<Receiver<u8>>();
    send_sync_unpin::<SendError<u8>>();
    send_sync_unpin::<RecvError>();
    fn sync<T: Sync>() {}
    sync::<Ref<'static, u8>>();
    trait AmbiguousIfSend<A> {
        fn some_item() {}
    }
    impl<T: ?Sized> AmbiguousIfSend<()> for T {}
    impl<T: ?Sized + Send> AmbiguousIfSend<u8> for T {}
    let _ = <Ref<'static, u8> as AmbiguousIfSend<_>>::some_item;
}

/// The watch channel in use, run under both runtimes.
#[tokio::test]
async fn watch_channel_runs() {
    use std::time::Duration;
    use tokio::sync::watch;

    let (tx, mut rx) = watch::channel(0u32);
    let mut waiters = tokio::task::JoinSet::new();
    for _ in 0..3 {
        let mut rx = rx.clone();
        waiters.spawn(async move {
            rx.changed().await.unwrap();
            *rx.borrow_and_update()
        });
    }
    tokio::time::sleep(Duration::from_millis(1)).await;
    tx.send(1).unwrap();
    while let Some(v) = waiters.join_next().await {
        assert_eq!(v.unwrap(), 1);
    }

    assert!(!tx.send_if_modified(|_| false));
    tx.send_modify(|v| *v += 1);
    assert_eq!(tx.send_replace(3), 2);
    assert_eq!(*rx.borrow(), 3);
    assert!(rx.borrow().has_changed());
    let tx2 = tx.clone();
    assert_eq!((tx.sender_count(), tx.receiver_count()), (2, 1));
    let h = tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(1)).await;
        tx2.send(7).unwrap();
    });
    assert_eq!(*rx.wait_for(|v| *v == 7).await.unwrap(), 7);
    h.await.unwrap();
    rx.mark_changed();
    assert!(rx.has_changed().unwrap());
    rx.mark_unchanged();
    assert!(!rx.has_changed().unwrap());

    let closed = tokio::spawn(async move {
        tx.closed().await;
        assert!(tx.send(8).is_err());
        tx
    });
    tokio::time::sleep(Duration::from_millis(1)).await;
    drop(rx);
    let tx = closed.await.unwrap();
    let mut rx = tx.subscribe();
    drop(tx);
    assert!(rx.is_closed());
    assert!(rx.changed().await.is_err());
}
