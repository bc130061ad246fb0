//! A line-oriented TCP connection, for the systems that speak text lines
//! over TCP (they use it as `super::lines`). Mounted next to them both in
//! the library and in `src/sim`, so it compiles against whichever `tokio`
//! they do: real tokio in the library, sim_rt in the simulated targets.

// Not every system uses every method.
#![allow(dead_code)]

use std::io;

use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, Lines};
use tokio::net::tcp::{OwnedReadHalf, OwnedWriteHalf};
use tokio::net::TcpStream;

/// One line-oriented connection.
#[derive(Debug)]
pub struct Conn {
    lines: Lines<BufReader<OwnedReadHalf>>,
    write: OwnedWriteHalf,
}

impl Conn {
    /// Wraps a connected stream.
    pub fn new(stream: TcpStream) -> Conn {
        let (read, write) = stream.into_split();
        Conn {
            lines: BufReader::new(read).lines(),
            write,
        }
    }

    /// Connects to `addr`.
    pub async fn connect(addr: &str) -> io::Result<Conn> {
        Ok(Conn::new(TcpStream::connect(addr).await?))
    }

    /// Sends `line` and its newline.
    pub async fn send(&mut self, line: &str) -> io::Result<()> {
        self.write.write_all(format!("{line}\n").as_bytes()).await
    }

    /// The next line; end of stream is an `UnexpectedEof` error.
    pub async fn recv(&mut self) -> io::Result<String> {
        match self.lines.next_line().await? {
            Some(line) => Ok(line),
            None => Err(io::ErrorKind::UnexpectedEof.into()),
        }
    }

    /// Sends `line` and waits for the reply line.
    pub async fn call(&mut self, line: &str) -> io::Result<String> {
        self.send(line).await?;
        self.recv().await
    }
}

/// Asks `addr` one question on a fresh connection.
pub async fn ask(addr: &str, line: &str) -> io::Result<String> {
    Conn::connect(addr).await?.call(line).await
}

/// The error for a line the protocol does not allow.
pub fn bad(line: &str) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidData,
        format!("unexpected message {line:?}"),
    )
}
