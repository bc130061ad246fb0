//! A small shop, built the way a tokio service usually is: an HTTP front end
//! on axum, a gRPC back end on tonic, and customers that talk to the front
//! end through reqwest. None of it knows about the simulator: `cargo test`
//! runs it on real tokio over localhost, `cargo test --config .cargo/sim.toml`
//! runs the same code, every dependency included, inside the simulation.
//!
//! ```text
//! customer --HTTP POST /orders/{order}/{item}--> shop --gRPC Record--> ledger
//! ```
//!
//! A customer places an order with [`place_order`]; the shop reserves the
//! item by recording an entry in the [`ledger`]. The ledger keeps one entry
//! per entry id: recording an id it already has is a no-op, so a request
//! that is retried must reuse its id.
//!
//! # The planted bug ([`shop::Shop::fresh_ids`])
//!
//! **What:** the shop gives each ledger entry a fresh id per HTTP request
//! instead of deriving it from the order. A customer whose request timed out
//! retries it (the request is meant to be idempotent), the shop records a
//! second entry, and the order is reserved twice.
//!
//! **Caught by:** at most one ledger entry per order.
//!
//! **Schedule:** a request must time out after the shop received it: the
//! network between the shop and the ledger (or between the customer and the
//! shop) must hold the first attempt's messages until the customer's
//! [`client::TIMEOUT`] has passed, then let them through. One partition, at
//! any step while an attempt is in flight, and the heal at the end of the
//! test do it. Without a fault every attempt is answered in time and no
//! request is retried.

pub mod client;
pub mod ledger;
pub mod shop;

/// The generated gRPC code for `proto/ledger.proto`.
pub mod proto {
    #![allow(missing_docs, clippy::all)]
    tonic::include_proto!("ledger");
}
