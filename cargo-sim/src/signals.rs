//! Ctrl-C while cargo runs: it stops cargo (and the tests), not cargo-sim,
//! which then puts the committed `Cargo.lock` back.
//!
//! Ctrl-C sends SIGINT to the terminal's whole foreground process group,
//! cargo-sim and its children alike. cargo-sim catches SIGINT and SIGTERM
//! with a handler that does nothing, rather than ignoring them: an ignored
//! signal stays ignored across `exec`, so cargo and the tests would not stop
//! either, while a handler is reset to the default in a child.

/// From now on, SIGINT and SIGTERM do not stop this process (they still
/// stop its children). On platforms other than Unix, nothing changes.
pub fn outlive_interrupts() {
    #[cfg(unix)]
    {
        extern "C" fn do_nothing(_signal: libc::c_int) {}
        let handler = do_nothing as extern "C" fn(libc::c_int) as libc::sighandler_t;
        for signal in [libc::SIGINT, libc::SIGTERM] {
            // SAFETY: the handler does nothing, so it is async-signal-safe,
            // and no other code of this process installs handlers. A read or
            // wait it interrupts is resumed (SA_RESTART with glibc's
            // `signal`; std retries on EINTR in any case).
            unsafe {
                libc::signal(signal, handler);
            }
        }
    }
}
