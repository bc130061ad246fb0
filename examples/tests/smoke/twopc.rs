use examples::twopc::{self, Coordinator, Decision, Known, Participant};

use crate::listener;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn transactions_commit_at_every_participant_over_localhost() {
    let dir = tempfile::tempdir().unwrap();
    let (coordinator_listener, coordinator) = listener().await;
    let mut participants = Vec::new();
    for i in 0..3 {
        let (l, addr) = listener().await;
        let p = Participant::open(dir.path().join(format!("p{i}")), coordinator.clone())
            .await
            .unwrap();
        tokio::spawn(p.serve(l));
        participants.push(addr);
    }
    let c = Coordinator::open(dir.path().join("coordinator"), participants.clone())
        .await
        .unwrap();
    tokio::spawn(c.serve(coordinator_listener));

    assert!(twopc::transaction(&coordinator, 1, "x", "one")
        .await
        .unwrap());
    assert!(twopc::transaction(&coordinator, 2, "x", "two")
        .await
        .unwrap());
    assert_eq!(
        twopc::status(&coordinator, 2).await.unwrap(),
        Some(Decision::Commit)
    );
    for p in &participants {
        assert_eq!(
            twopc::outcome(p, 2).await.unwrap(),
            Known::Decided(Decision::Commit)
        );
        assert_eq!(twopc::get(p, "x").await.unwrap().as_deref(), Some("two"));
    }

    // A participant restarted from its log has the committed data.
    let (l, addr) = listener().await;
    let again = Participant::open(dir.path().join("p0"), coordinator.clone())
        .await
        .unwrap();
    tokio::spawn(again.serve(l));
    assert_eq!(
        twopc::get(&addr, "x").await.unwrap().as_deref(),
        Some("two")
    );
}
