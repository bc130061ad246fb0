use examples::wal::{Client, Store};
use tokio::net::TcpListener;

/// Serves the store in `dir` on a fresh localhost port; returns its address
/// and the serving task.
async fn serve(dir: &std::path::Path) -> (String, tokio::task::JoinHandle<std::io::Result<()>>) {
    let store = Store::open(dir).await.unwrap();
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    (addr, tokio::spawn(store.serve(listener)))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn acknowledged_writes_survive_a_restart_from_the_log_on_a_real_disk() {
    let dir = tempfile::tempdir().unwrap();
    let (addr, server) = serve(dir.path()).await;
    // Two clients at once: their writes may share one sync_all.
    let writers: Vec<_> = (0..2)
        .map(|c| {
            let addr = addr.clone();
            tokio::spawn(async move {
                let mut client = Client::new(addr);
                for k in 0..5 {
                    client
                        .put(&format!("k{c}{k}"), &format!("v{c}{k}"))
                        .await
                        .unwrap();
                }
                client.put(&format!("k{c}0"), "overwritten").await.unwrap();
            })
        })
        .collect();
    for w in writers {
        w.await.unwrap();
    }
    server.abort();
    let _ = server.await;

    // A new store process recovers everything from the log alone.
    let recovered = Store::open(dir.path()).await.unwrap();
    assert_eq!(recovered.len(), 12, "every record is in the log");
    // A torn append at the tail (a crash mid-write) is cut off on open.
    let log = dir.path().join(examples::wal::LOG_FILE);
    let whole = std::fs::metadata(&log).unwrap().len();
    let mut torn = std::fs::OpenOptions::new().append(true).open(&log).unwrap();
    std::io::Write::write_all(&mut torn, &[7, 0, 0, 0, 1, 2]).unwrap();
    drop(torn);

    let (addr, _server) = serve(dir.path()).await;
    assert_eq!(
        std::fs::metadata(&log).unwrap().len(),
        whole,
        "the torn tail is cut off"
    );
    let mut client = Client::new(addr);
    for c in 0..2 {
        assert_eq!(
            client.get(&format!("k{c}0")).await.unwrap().as_deref(),
            Some("overwritten")
        );
        for k in 1..5 {
            let value = client.get(&format!("k{c}{k}")).await.unwrap();
            assert_eq!(value, Some(format!("v{c}{k}")));
        }
    }
    assert_eq!(client.get("never").await.unwrap(), None);
    // Writing after recovery continues the log's sequence.
    assert_eq!(client.put("after", "restart").await.unwrap(), 13);
}
