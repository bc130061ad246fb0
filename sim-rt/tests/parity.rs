//! Compile parity with tokio.
//!
//! `parity/code.rs` is ordinary tokio-using code. It is compiled twice: in
//! `real`, where `tokio` is tokio itself, and in `sim`, where `tokio` is
//! `sim_rt` (as `#[cfg(sim)] extern crate sim_rt as tokio;` does for a whole
//! crate). A signature of sim_rt that drifts from tokio's fails this build.
//! Its `#[tokio::test]`s run under both runtimes.

/// The tokio-using code, expanded once in each module below.
macro_rules! parity_code {
    () => {
        include!("parity/code.rs");
        include!("parity/net.rs");
        include!("parity/fs.rs");
        include!("parity/watch.rs");
        include!("parity/sync.rs");
        include!("parity/rt.rs");
        include!("parity/io.rs");
    };
}

mod real {
    parity_code!();
}

mod sim {
    use sim_rt as tokio;
    parity_code!();
}
