use examples::twopc::{self, Coordinator, Decision, Participant};
use tokio::net::TcpListener;

async fn listener() -> (TcpListener, String) {
    let l = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = l.local_addr().unwrap().to_string();
    (l, addr)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn transactions_commit_at_every_participant_over_localhost() {
    let (coordinator_listener, coordinator) = listener().await;
    let mut participants = Vec::new();
    for _ in 0..3 {
        let (l, addr) = listener().await;
        tokio::spawn(Participant::new(coordinator.clone()).serve(l));
        participants.push(addr);
    }
    tokio::spawn(Coordinator::new(participants.clone()).serve(coordinator_listener));

    assert!(twopc::transaction(&coordinator, 1, "x", "one")
        .await
        .unwrap());
    assert!(twopc::transaction(&coordinator, 2, "x", "two")
        .await
        .unwrap());
    for p in &participants {
        assert_eq!(twopc::outcome(p, 2).await.unwrap(), Some(Decision::Commit));
        assert_eq!(twopc::get(p, "x").await.unwrap().as_deref(), Some("two"));
    }
}
