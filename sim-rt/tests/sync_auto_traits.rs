//! sim-rt's `sync` types have tokio's auto traits: `Send`, `Sync` and
//! `Unpin` exactly where tokio's have them (users put them in `Arc`s and
//! move them into `spawn`ed tasks). Each type is checked with a `Send`,
//! a non-`Send` (`Rc`), a `Send + !Sync` (`Cell`) and a `!Send + Sync`
//! (`MutexGuard`) parameter where it has one.
//!
//! The check is by inherent-method probing: `Probe::<T>` has an inherent
//! `send()` only when `T: Send`, which wins over the trait method
//! returning `false`.

#![allow(dead_code, clippy::type_complexity)]

use std::cell::Cell;
use std::marker::PhantomData;
use std::rc::Rc;

struct Probe<T: ?Sized>(PhantomData<T>);

trait NotSend {
    fn send(&self) -> bool {
        false
    }
}
impl<T: ?Sized> NotSend for Probe<T> {}
impl<T: ?Sized + Send> Probe<T> {
    fn send(&self) -> bool {
        true
    }
}
trait NotSync {
    fn sync(&self) -> bool {
        false
    }
}
impl<T: ?Sized> NotSync for Probe<T> {}
impl<T: ?Sized + Sync> Probe<T> {
    fn sync(&self) -> bool {
        true
    }
}
trait NotUnpin {
    fn unpin(&self) -> bool {
        false
    }
}
impl<T: ?Sized> NotUnpin for Probe<T> {}
impl<T: ?Sized + Unpin> Probe<T> {
    fn unpin(&self) -> bool {
        true
    }
}

type G = std::sync::MutexGuard<'static, u8>;

/// For each type written with a `$s` module path, checks sim_rt's against
/// tokio's.
macro_rules! same_auto_traits {
    ($($name:literal => |$s:ident| $t:ty;)*) => {{
        let mut diffs = Vec::new();
        $(
            let sim = {
                use sim_rt::sync as $s;
                let p = Probe::<$t>(PhantomData);
                (p.send(), p.sync(), p.unpin())
            };
            let real = {
                use tokio::sync as $s;
                let p = Probe::<$t>(PhantomData);
                (p.send(), p.sync(), p.unpin())
            };
            if sim != real {
                diffs.push(format!("{}: sim (send, sync, unpin) = {:?}, tokio = {:?}", $name, sim, real));
            }
        )*
        diffs
    }};
}

#[test]
fn sync_types_have_tokios_auto_traits() {
    let diffs = same_auto_traits! {
        "Notify" => |s| s::Notify;
        "Notified" => |s| s::futures::Notified<'static>;
        "OwnedNotified" => |s| s::futures::OwnedNotified;
        "Semaphore" => |s| s::Semaphore;
        "SemaphorePermit" => |s| s::SemaphorePermit<'static>;
        "OwnedSemaphorePermit" => |s| s::OwnedSemaphorePermit;
        "AcquireError" => |s| s::AcquireError;
        "TryAcquireError" => |s| s::TryAcquireError;
        "TryLockError" => |s| s::TryLockError;
        "Barrier" => |s| s::Barrier;
        "BarrierWaitResult" => |s| s::BarrierWaitResult;

        "Mutex<u8>" => |s| s::Mutex<u8>;
        "Mutex<Cell>" => |s| s::Mutex<Cell<u8>>;
        "Mutex<Rc>" => |s| s::Mutex<Rc<u8>>;
        "Mutex<G>" => |s| s::Mutex<G>;
        "MutexGuard<u8>" => |s| s::MutexGuard<'static, u8>;
        "MutexGuard<Cell>" => |s| s::MutexGuard<'static, Cell<u8>>;
        "MutexGuard<G>" => |s| s::MutexGuard<'static, G>;
        "OwnedMutexGuard<u8>" => |s| s::OwnedMutexGuard<u8>;
        "OwnedMutexGuard<Cell>" => |s| s::OwnedMutexGuard<Cell<u8>>;
        "OwnedMutexGuard<G>" => |s| s::OwnedMutexGuard<G>;
        "MappedMutexGuard<u8>" => |s| s::MappedMutexGuard<'static, u8>;
        "MappedMutexGuard<Cell>" => |s| s::MappedMutexGuard<'static, Cell<u8>>;
        "MappedMutexGuard<G>" => |s| s::MappedMutexGuard<'static, G>;
        "OwnedMappedMutexGuard<u8>" => |s| s::OwnedMappedMutexGuard<u8, u8>;
        "OwnedMappedMutexGuard<Cell>" => |s| s::OwnedMappedMutexGuard<u8, Cell<u8>>;
        "OwnedMappedMutexGuard<G>" => |s| s::OwnedMappedMutexGuard<u8, G>;

        "RwLock<u8>" => |s| s::RwLock<u8>;
        "RwLock<Cell>" => |s| s::RwLock<Cell<u8>>;
        "RwLock<G>" => |s| s::RwLock<G>;
        "RwLockReadGuard<u8>" => |s| s::RwLockReadGuard<'static, u8>;
        "RwLockReadGuard<Cell>" => |s| s::RwLockReadGuard<'static, Cell<u8>>;
        "RwLockReadGuard<G>" => |s| s::RwLockReadGuard<'static, G>;
        "RwLockWriteGuard<u8>" => |s| s::RwLockWriteGuard<'static, u8>;
        "RwLockWriteGuard<Cell>" => |s| s::RwLockWriteGuard<'static, Cell<u8>>;
        "RwLockMappedWriteGuard<Cell>" => |s| s::RwLockMappedWriteGuard<'static, Cell<u8>>;
        "OwnedRwLockReadGuard<u8>" => |s| s::OwnedRwLockReadGuard<u8>;
        "OwnedRwLockReadGuard<Cell>" => |s| s::OwnedRwLockReadGuard<Cell<u8>>;
        "OwnedRwLockReadGuard<u8, G>" => |s| s::OwnedRwLockReadGuard<u8, G>;
        "OwnedRwLockWriteGuard<Cell>" => |s| s::OwnedRwLockWriteGuard<Cell<u8>>;
        "OwnedRwLockMappedWriteGuard<u8, Cell>" => |s| s::OwnedRwLockMappedWriteGuard<u8, Cell<u8>>;

        "OnceCell<u8>" => |s| s::OnceCell<u8>;
        "OnceCell<Cell>" => |s| s::OnceCell<Cell<u8>>;
        "OnceCell<G>" => |s| s::OnceCell<G>;
        "SetError<Rc>" => |s| s::SetError<Rc<u8>>;
        "SetOnce<u8>" => |s| s::SetOnce<u8>;
        "SetOnce<Cell>" => |s| s::SetOnce<Cell<u8>>;
        "SetOnce<G>" => |s| s::SetOnce<G>;

        "mpsc::Sender<u8>" => |s| s::mpsc::Sender<u8>;
        "mpsc::Sender<Cell>" => |s| s::mpsc::Sender<Cell<u8>>;
        "mpsc::Sender<G>" => |s| s::mpsc::Sender<G>;
        "mpsc::Receiver<Cell>" => |s| s::mpsc::Receiver<Cell<u8>>;
        "mpsc::Receiver<Rc>" => |s| s::mpsc::Receiver<Rc<u8>>;
        "mpsc::UnboundedSender<Cell>" => |s| s::mpsc::UnboundedSender<Cell<u8>>;
        "mpsc::UnboundedReceiver<Cell>" => |s| s::mpsc::UnboundedReceiver<Cell<u8>>;
        "mpsc::WeakSender<Cell>" => |s| s::mpsc::WeakSender<Cell<u8>>;
        "mpsc::WeakUnboundedSender<Cell>" => |s| s::mpsc::WeakUnboundedSender<Cell<u8>>;
        "mpsc::Permit<Cell>" => |s| s::mpsc::Permit<'static, Cell<u8>>;
        "mpsc::OwnedPermit<Cell>" => |s| s::mpsc::OwnedPermit<Cell<u8>>;
        "mpsc::PermitIterator<Cell>" => |s| s::mpsc::PermitIterator<'static, Cell<u8>>;
        "mpsc::error::SendError<Rc>" => |s| s::mpsc::error::SendError<Rc<u8>>;
        "mpsc::error::TrySendError<Cell>" => |s| s::mpsc::error::TrySendError<Cell<u8>>;
        "mpsc::error::SendTimeoutError<u8>" => |s| s::mpsc::error::SendTimeoutError<u8>;
        "mpsc::error::TryRecvError" => |s| s::mpsc::error::TryRecvError;

        "oneshot::Sender<u8>" => |s| s::oneshot::Sender<u8>;
        "oneshot::Sender<Cell>" => |s| s::oneshot::Sender<Cell<u8>>;
        "oneshot::Receiver<Cell>" => |s| s::oneshot::Receiver<Cell<u8>>;
        "oneshot::Receiver<Rc>" => |s| s::oneshot::Receiver<Rc<u8>>;
        "oneshot::error::RecvError" => |s| s::oneshot::error::RecvError;
        "oneshot::error::TryRecvError" => |s| s::oneshot::error::TryRecvError;

        "broadcast::Sender<u8>" => |s| s::broadcast::Sender<u8>;
        "broadcast::Sender<Cell>" => |s| s::broadcast::Sender<Cell<u8>>;
        "broadcast::Sender<G>" => |s| s::broadcast::Sender<G>;
        "broadcast::Receiver<Cell>" => |s| s::broadcast::Receiver<Cell<u8>>;
        "broadcast::WeakSender<Cell>" => |s| s::broadcast::WeakSender<Cell<u8>>;
        "broadcast::error::SendError<Cell>" => |s| s::broadcast::error::SendError<Cell<u8>>;
        "broadcast::error::RecvError" => |s| s::broadcast::error::RecvError;
        "broadcast::error::TryRecvError" => |s| s::broadcast::error::TryRecvError;
    };
    assert!(
        diffs.is_empty(),
        "auto traits differ from tokio's:\n{}",
        diffs.join("\n")
    );
}

/// The futures of the async methods are `Send` where tokio's are (they are
/// awaited inside `spawn`ed tasks).
#[test]
fn futures_are_send() {
    fn send<F: std::future::Future + Send>(_: F) {}
    let m = sim_rt::sync::Mutex::new(1u8);
    send(m.lock());
    let l = sim_rt::sync::RwLock::new(1u8);
    send(l.read());
    send(l.write());
    let s = sim_rt::sync::Semaphore::new(1);
    send(s.acquire());
    send(s.acquire_many(2));
    let n = sim_rt::sync::Notify::new();
    send(n.notified());
    let (tx, mut rx) = sim_rt::sync::mpsc::channel::<u8>(1);
    send(tx.send(1));
    send(tx.reserve());
    send(tx.reserve_many(1));
    send(tx.closed());
    send(tx.send_timeout(1, std::time::Duration::from_secs(1)));
    send(rx.recv());
    let (btx, mut brx) = sim_rt::sync::broadcast::channel::<u8>(1);
    send(brx.recv());
    send(btx.closed());
    let (_otx, orx) = sim_rt::sync::oneshot::channel::<u8>();
    send(orx);
    let b = sim_rt::sync::Barrier::new(1);
    send(b.wait());
    let c = sim_rt::sync::OnceCell::<u8>::new();
    send(c.get_or_init(|| async { 1 }));
    let so = sim_rt::sync::SetOnce::<u8>::new();
    send(so.wait());
}
