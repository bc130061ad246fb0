//! Shared by the network tests: an echo server.

use std::io;

use sim_rt::io::{AsyncReadExt, AsyncWriteExt};
use sim_rt::net::TcpListener;

/// Listens on `port` and echoes every connection until end of stream (or
/// an error), then closes it. Returns only if the listener fails.
pub async fn echo(port: u16) -> io::Result<()> {
    let listener = TcpListener::bind(("0.0.0.0", port)).await?;
    loop {
        let (mut socket, _) = listener.accept().await?;
        sim_rt::spawn(async move {
            let mut buf = [0u8; 1024];
            loop {
                match socket.read(&mut buf).await {
                    Ok(0) | Err(_) => return,
                    Ok(n) => {
                        if socket.write_all(&buf[..n]).await.is_err() {
                            return;
                        }
                    }
                }
            }
        });
    }
}
