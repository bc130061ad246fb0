//! Simulated [`tokio::fs::FileTimes`](https://docs.rs/tokio/1/tokio/fs/struct.FileTimes.html):
//! the timestamps [`File::set_times`](super::File::set_times) is asked to
//! set.

use std::time::SystemTime;

/// Simulated [`tokio::fs::FileTimes`](https://docs.rs/tokio/1/tokio/fs/struct.FileTimes.html):
/// timestamps to set on a file with [`File::set_times`](super::File::set_times).
///
/// # Differences from tokio
///
/// None for the type itself; but the simulated disk keeps no timestamps,
/// so [`File::set_times`](super::File::set_times) applies none of them (see
/// there).
#[derive(Debug, Clone, Default)]
#[must_use = "must be applied to a file via `File::set_times` to have any effect"]
pub struct FileTimes {
    accessed: Option<SystemTime>,
    modified: Option<SystemTime>,
    #[cfg(any(windows, target_vendor = "apple"))]
    created: Option<SystemTime>,
}

impl FileTimes {
    /// Simulated [`tokio::fs::FileTimes::new`](https://docs.rs/tokio/1/tokio/fs/struct.FileTimes.html#method.new):
    /// no timestamp to set.
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub fn new() -> Self {
        Self::default()
    }

    /// Simulated [`tokio::fs::FileTimes::set_accessed`](https://docs.rs/tokio/1/tokio/fs/struct.FileTimes.html#method.set_accessed):
    /// the last access time to set.
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub fn set_accessed(mut self, t: SystemTime) -> Self {
        self.accessed = Some(t);
        self
    }

    /// Simulated [`tokio::fs::FileTimes::set_modified`](https://docs.rs/tokio/1/tokio/fs/struct.FileTimes.html#method.set_modified):
    /// the last modification time to set.
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub fn set_modified(mut self, t: SystemTime) -> Self {
        self.modified = Some(t);
        self
    }

    /// Simulated [`tokio::fs::FileTimes::set_created`](https://docs.rs/tokio/1/tokio/fs/struct.FileTimes.html#method.set_created):
    /// the creation time to set (Windows and Apple platforms only, as in
    /// tokio).
    ///
    /// # Differences from tokio
    ///
    /// None.
    #[cfg(any(windows, target_vendor = "apple"))]
    pub fn set_created(mut self, t: SystemTime) -> Self {
        self.created = Some(t);
        self
    }
}
