//! Simulated [`tokio::stream`](https://docs.rs/tokio/1/tokio/stream/index.html): empty, as tokio's is.
//!
//! tokio moved its stream utilities to the `tokio-stream` crate, which
//! builds on sim-rt unchanged in the whole-graph mode (the `tokio` package of
//! this repository); in the one-line mode, use `futures::Stream` and
//! `tokio-stream`'s adapters over sim-rt's types.
