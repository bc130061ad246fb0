use examples::chain::{self, Master, Server};

use crate::listener;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn updates_reach_the_tail_over_localhost() {
    let mut servers = Vec::new();
    for _ in 0..3 {
        let (l, addr) = listener().await;
        tokio::spawn(Server::new(addr.clone()).serve(l));
        servers.push(addr);
    }
    let (l, master) = listener().await;
    tokio::spawn(Master::new(servers.clone()).serve(l));

    let chain = loop {
        if let Some(chain) = chain::chain(&master).await.unwrap() {
            break chain;
        }
        tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    };
    assert_eq!(chain, servers);
    for id in 1..=3 {
        assert!(chain::update(&servers[0], id).await.unwrap().is_some());
    }
    // The master's start-up probe (id 0), then the client's updates.
    let history = chain::query(&servers[2]).await.unwrap();
    assert_eq!(history, Some(vec![0, 1, 2, 3]));
    assert_eq!(
        chain::query(&servers[0]).await.unwrap(),
        None,
        "not the tail"
    );
    let middle = chain::status(&servers[1]).await.unwrap();
    assert_eq!(middle.pred.as_deref(), Some(servers[0].as_str()));
    assert_eq!(middle.succ.as_deref(), Some(servers[2].as_str()));
}
