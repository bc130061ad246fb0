//! The shop: an axum HTTP service that reserves items in the ledger.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::routing::post;
use axum::Router;
use tonic::transport::{Channel, Endpoint};

use crate::proto::ledger_client::LedgerClient;
use crate::proto::Entry;

/// How long the shop waits for the ledger before answering 503.
pub const LEDGER_TIMEOUT: Duration = Duration::from_millis(500);

/// The shop's configuration.
#[derive(Debug, Clone)]
pub struct Shop {
    ledger: SocketAddr,
    fresh_ids: bool,
}

impl Shop {
    /// A shop that records reservations in the ledger at `ledger`.
    pub fn new(ledger: SocketAddr) -> Shop {
        Shop {
            ledger,
            fresh_ids: false,
        }
    }

    /// The planted bug (see the crate docs): give every request's ledger
    /// entry a fresh id, so a retried order is reserved twice.
    pub fn fresh_ids(mut self, on: bool) -> Shop {
        self.fresh_ids = on;
        self
    }

    /// Serves the shop on `listener` with `axum::serve`.
    pub async fn serve(self, listener: tokio::net::TcpListener) -> std::io::Result<()> {
        // A lazy channel: the shop starts before the ledger may be up.
        let channel = Endpoint::from_shared(format!("http://{}", self.ledger))
            .expect("a valid ledger address")
            .timeout(LEDGER_TIMEOUT)
            .connect_lazy();
        let state = Arc::new(Served {
            shop: self,
            ledger: LedgerClient::new(channel),
            requests: AtomicU64::new(0),
        });
        let app = Router::new()
            .route("/orders/{order}/{item}", post(order))
            .with_state(state);
        axum::serve(listener, app).await
    }
}

struct Served {
    shop: Shop,
    ledger: LedgerClient<Channel>,
    requests: AtomicU64,
}

/// `POST /orders/{order}/{item}`: reserve `item` for `order`. Idempotent
/// (the customer retries it) unless the planted bug is on.
async fn order(
    State(served): State<Arc<Served>>,
    Path((order, item)): Path<(String, String)>,
) -> (StatusCode, String) {
    let n = served.requests.fetch_add(1, Ordering::Relaxed);
    let id = if served.shop.fresh_ids {
        format!("{order}#{n}")
    } else {
        order.clone()
    };
    let mut ledger = served.ledger.clone();
    match ledger.record(Entry { id, order, item }).await {
        Ok(_) => (StatusCode::OK, "reserved".into()),
        Err(status) => (
            StatusCode::SERVICE_UNAVAILABLE,
            format!("the ledger did not record it: {}", status.message()),
        ),
    }
}
