//! The ledger: a tonic gRPC service holding reservation entries in memory.

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use tonic::{Request, Response, Status};

use crate::proto::ledger_server::{Ledger as LedgerService, LedgerServer};
use crate::proto::{Entries, Entry, ListRequest, Recorded};

/// The ledger's state: entries by id, in id order.
#[derive(Debug, Clone, Default)]
pub struct Ledger {
    entries: Arc<Mutex<BTreeMap<String, Entry>>>,
}

#[tonic::async_trait]
impl LedgerService for Ledger {
    async fn record(&self, request: Request<Entry>) -> Result<Response<Recorded>, Status> {
        let entry = request.into_inner();
        if entry.id.is_empty() {
            return Err(Status::invalid_argument("an entry needs an id"));
        }
        let mut entries = self.entries.lock().expect("the ledger's lock");
        let fresh = !entries.contains_key(&entry.id);
        entries.entry(entry.id.clone()).or_insert(entry);
        Ok(Response::new(Recorded { fresh }))
    }

    async fn list(&self, _: Request<ListRequest>) -> Result<Response<Entries>, Status> {
        let entries = self.entries.lock().expect("the ledger's lock");
        Ok(Response::new(Entries {
            entries: entries.values().cloned().collect(),
        }))
    }
}

/// Serves the ledger on `listener` until the task is dropped.
pub async fn serve(listener: tokio::net::TcpListener) -> Result<(), tonic::transport::Error> {
    let incoming = tokio_stream::wrappers::TcpListenerStream::new(listener);
    tonic::transport::Server::builder()
        .add_service(LedgerServer::new(Ledger::default()))
        .serve_with_incoming(incoming)
        .await
}

/// Every entry of the ledger at `addr`.
pub async fn list(
    addr: SocketAddr,
) -> Result<Vec<Entry>, Box<dyn std::error::Error + Send + Sync>> {
    let mut client =
        crate::proto::ledger_client::LedgerClient::connect(format!("http://{addr}")).await?;
    Ok(client.list(ListRequest {}).await?.into_inner().entries)
}
