//! A customer: places orders through reqwest, retrying what fails.

use std::net::SocketAddr;
use std::time::Duration;

/// How long a customer waits for the shop's answer to one attempt.
pub const TIMEOUT: Duration = Duration::from_millis(300);
/// How many times a customer tries one order.
pub const ATTEMPTS: u32 = 3;
/// How long a customer waits between attempts.
pub const BACKOFF: Duration = Duration::from_millis(100);

/// A reqwest client as a customer configures it.
pub fn client() -> reqwest::Client {
    reqwest::Client::builder()
        .timeout(TIMEOUT)
        .build()
        .expect("a reqwest client without TLS builds")
}

/// Places `order` for `item` at the shop at `shop`, retrying up to
/// [`ATTEMPTS`] times (the request is idempotent: the order names it).
/// Returns whether the shop confirmed it.
pub async fn place_order(
    client: &reqwest::Client,
    shop: SocketAddr,
    order: &str,
    item: &str,
) -> bool {
    let url = format!("http://{shop}/orders/{order}/{item}");
    for attempt in 0..ATTEMPTS {
        if attempt > 0 {
            tokio::time::sleep(BACKOFF).await;
        }
        match client.post(&url).send().await {
            Ok(response) if response.status().is_success() => return true,
            Ok(_) | Err(_) => continue,
        }
    }
    false
}
