//! A clean worker (`__private::become_clean_worker`) runs simulations one
//! after another as if each were on a fresh thread: std's `HashMap` keys
//! are drawn again inside each, from its seed; a simulation that draws OS
//! randomness otherwise retires the worker. (The keys' probe is for
//! x86-64 glibc; elsewhere a worker keeps no keys.)
#![cfg(all(
    feature = "intercept",
    target_os = "linux",
    target_env = "gnu",
    target_arch = "x86_64"
))]

use std::collections::HashMap;
use std::time::Duration;

use sim_rt::runtime::{__private, Builder};

/// A simulation whose result is its map's iteration order.
fn map_order(seed: u64) -> Vec<u32> {
    Builder::new_current_thread()
        .enable_all()
        .seed(seed)
        .poll_cost(Duration::ZERO)
        .build()
        .unwrap()
        .block_on(async {
            let map: HashMap<u32, ()> = (0..16).map(|i| (i, ())).collect();
            map.into_keys().collect()
        })
}

/// `f` on a new thread.
fn on_thread<R: Send>(f: impl FnOnce() -> R + Send) -> R {
    std::thread::scope(|s| s.spawn(f).join().unwrap())
}

#[test]
fn simulations_on_a_clean_worker_see_the_map_orders_of_fresh_threads() {
    let fresh: Vec<Vec<u32>> = (0..4).map(|seed| on_thread(|| map_order(seed))).collect();
    // Different seeds, different orders: the comparison below means
    // something.
    assert!(fresh.iter().any(|o| o != &fresh[0]), "{fresh:?}");
    let (on_worker, clean) = on_thread(|| {
        assert!(__private::become_clean_worker());
        // The worker's own maps, between simulations, do not leak in.
        let _own: HashMap<u8, u8> = HashMap::new();
        let orders: Vec<Vec<u32>> = (0..4)
            .map(|seed| __private::run_on_clean_worker(|| map_order(seed)))
            .collect();
        (orders, __private::on_clean_worker())
    });
    assert_eq!(on_worker, fresh);
    assert!(clean, "drawing std's keys does not retire the worker");
}

#[test]
fn every_new_worker_finds_its_keys() {
    // The probe compares the keys' bytes before and after their draw; a
    // key byte drawn equal to the old one (one in 256) once made it give
    // up on a worker whose keys it had drawn from the OS. A thousand
    // workers meet that about four times.
    let fresh = on_thread(|| map_order(0));
    for worker in 0..1000 {
        let order = on_thread(|| {
            assert!(__private::become_clean_worker());
            __private::run_on_clean_worker(|| map_order(0))
        });
        assert_eq!(order, fresh, "worker {worker}'s first simulation");
    }
}

#[test]
fn a_thread_that_drew_its_keys_is_no_worker() {
    // Its maps would iterate in an order no seed gives.
    let worker = on_thread(|| {
        let _early: HashMap<u8, u8> = HashMap::new();
        __private::become_clean_worker()
    });
    assert!(!worker);
}

#[test]
fn a_simulation_that_draws_other_randomness_retires_the_worker() {
    let clean = on_thread(|| {
        assert!(__private::become_clean_worker());
        __private::run_on_clean_worker(|| {
            Builder::new_current_thread()
                .seed(1)
                .build()
                .unwrap()
                .block_on(async {
                    let mut buf = [0u8; 8];
                    getrandom(&mut buf);
                })
        });
        __private::on_clean_worker()
    });
    assert!(
        !clean,
        "a generator seeded itself: the thread keeps its draw"
    );
}

/// Draws from the OS as a per-thread generator seeds itself.
fn getrandom(buf: &mut [u8]) {
    // SAFETY: `buf` is valid for its length.
    let n = unsafe { libc::getrandom(buf.as_mut_ptr().cast(), buf.len(), 0) };
    assert_eq!(n, buf.len() as isize);
}
