//! The shop on real tokio, over localhost: the smoke test of the same code
//! the simulated tests explore.
#![cfg(not(sim))]

use shop::{client, ledger, shop::Shop};

#[tokio::test]
async fn an_order_is_reserved_once_over_localhost() {
    let ledger_listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let ledger_addr = ledger_listener.local_addr().unwrap();
    tokio::spawn(ledger::serve(ledger_listener));
    let shop_listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let shop_addr = shop_listener.local_addr().unwrap();
    tokio::spawn(Shop::new(ledger_addr).serve(shop_listener));

    let customer = client::client();
    assert!(client::place_order(&customer, shop_addr, "o1", "apple").await);
    assert!(client::place_order(&customer, shop_addr, "o1", "apple").await);
    assert!(client::place_order(&customer, shop_addr, "o2", "pear").await);
    let entries = ledger::list(ledger_addr).await.unwrap();
    let orders: Vec<_> = entries
        .iter()
        .map(|e| (e.order.as_str(), e.item.as_str()))
        .collect();
    assert_eq!(orders, [("o1", "apple"), ("o2", "pear")]);
}
