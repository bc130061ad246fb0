use std::time::Duration;

use examples::raft::{Client, Node};
use tokio::net::UdpSocket;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn five_nodes_elect_a_leader_and_commit_commands_over_localhost() {
    let dir = tempfile::tempdir().unwrap();
    let mut sockets = Vec::new();
    for _ in 0..5 {
        sockets.push(UdpSocket::bind("127.0.0.1:0").await.unwrap());
    }
    let peers: Vec<String> = sockets
        .iter()
        .map(|s| s.local_addr().unwrap().to_string())
        .collect();
    for (i, socket) in sockets.into_iter().enumerate() {
        let node = Node::new(i, peers.clone(), dir.path().join(format!("n{i}.log")));
        tokio::spawn(node.run(socket));
    }

    let socket = UdpSocket::bind("127.0.0.1:0").await.unwrap();
    let mut client = Client::new(socket, peers);
    let mut indexes = Vec::new();
    for command in ["one", "two", "three"] {
        let index = client
            .submit(command, Duration::from_secs(10))
            .await
            .unwrap()
            .expect("the cluster commits the command");
        indexes.push(index);
    }
    // Retries may commit a command twice, but each commits after the last.
    assert!(indexes.windows(2).all(|w| w[0] < w[1]), "{indexes:?}");
    // Every node keeps the log on disk.
    let log = tokio::fs::read_to_string(dir.path().join(format!("n{}.log", client.leader())))
        .await
        .unwrap();
    assert!(log.contains(" three\n"), "{log}");
}
