use examples::kv::{Client, Replica};
use tokio::net::UdpSocket;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn writes_are_read_back_from_the_leader_over_localhost() {
    let mut sockets = Vec::new();
    let mut replicas = Vec::new();
    for _ in 0..3 {
        let s = UdpSocket::bind("127.0.0.1:0").await.unwrap();
        replicas.push(s.local_addr().unwrap().to_string());
        sockets.push(s);
    }
    for (i, s) in sockets.into_iter().enumerate() {
        tokio::spawn(Replica::new(i, replicas.clone()).serve(s));
    }
    let socket = UdpSocket::bind("127.0.0.1:0").await.unwrap();
    let mut client = Client::new(socket, &replicas).await.unwrap();
    // The first leader is elected after an election timeout; the client
    // retries until then.
    client.put("x", "one").await.unwrap();
    assert_eq!(client.get("x").await.unwrap().as_deref(), Some("one"));
    client.put("x", "two").await.unwrap();
    assert_eq!(client.get("x").await.unwrap().as_deref(), Some("two"));
    assert_eq!(client.get("y").await.unwrap(), None);
}
