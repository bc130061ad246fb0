//! Each system on real tokio, over localhost: the same source the simulated
//! tests explore, built against tokio itself.
//!
//! Under `--cfg sim` the library is built against sim_rt, so these tests
//! (which start a real tokio runtime) are left out.

#![cfg(not(sim))]

mod chain;
mod kv;
mod raft;
mod twopc;
mod wal;

use tokio::net::TcpListener;

/// A listener on a free localhost port, and its address.
async fn listener() -> (TcpListener, String) {
    let l = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = l.local_addr().unwrap().to_string();
    (l, addr)
}
