//! Simulated [`tokio::signal`]: signals a host receives only when the
//! simulation sends them (see [`crate::sim::send_ctrl_c`]).

use std::future::poll_fn;
use std::io;
use std::task::Poll;

use crate::runtime::context;

/// Simulated [`tokio::signal::ctrl_c`]: completes when the simulation sends
/// ctrl-c to the calling task's host after this call.
///
/// # Examples
///
/// ```
/// # sim_rt::runtime::Runtime::new().unwrap().block_on(async {
/// use std::time::Duration;
/// sim_rt::sim::host("server").start(|| async {
///     sim_rt::signal::ctrl_c().await.unwrap();
///     println!("server: shutting down");
/// });
/// // Time moves only once every task waits, so the server is listening by now.
/// sim_rt::time::sleep(Duration::from_millis(1)).await;
/// sim_rt::sim::send_ctrl_c("server");
/// # });
/// ```
///
/// # Panics
///
/// Outside a simulation.
///
/// # Differences from tokio
///
/// Signals are per simulated host, never the process's real ones. A ctrl-c
/// counts for every `ctrl_c()` future of the host created before it was
/// sent; one sent earlier is not seen.
pub async fn ctrl_c() -> io::Result<()> {
    let (host, seen) = context::with(|w| {
        let host = w
            .current()
            .map_or(crate::runtime::world::MAIN_HOST, |c| c.host);
        (host, w.core.borrow().hosts[host.index()].ctrl_c)
    });
    poll_fn(|cx| {
        context::with(|w| {
            let mut core = w.core.borrow_mut();
            let h = &mut core.hosts[host.index()];
            if h.ctrl_c > seen {
                return Poll::Ready(Ok(()));
            }
            if !h.ctrl_c_waiters.iter().any(|x| x.will_wake(cx.waker())) {
                h.ctrl_c_waiters.push(cx.waker().clone());
            }
            Poll::Pending
        })
    })
    .await
}
