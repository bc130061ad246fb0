//! Which place a simulation's disks take among the simulations alive
//! in the process: part of their files' device number.

/// A simulation's place among those alive in the process at once, which
/// its disks' device number includes. Files of two simulations running
/// side by side (tests on parallel threads, `SIM_JOBS`) then never share
/// a `(st_dev, st_ino)` pair: a library with process-wide state keyed by
/// it (SQLite keeps one lock record and its spare descriptors per inode)
/// would otherwise take one simulation's file for the other's. The
/// lowest free slot is taken and freed when the simulation ends, so runs
/// one after another, and a run alone, see the same numbers.
#[derive(Debug)]
pub(crate) struct DiskSlot(u32);

/// The slots taken.
static SLOTS: std::sync::Mutex<Vec<bool>> = std::sync::Mutex::new(Vec::new());

impl DiskSlot {
    pub(crate) fn take() -> DiskSlot {
        let mut slots = SLOTS.lock().unwrap_or_else(|e| e.into_inner());
        let free = slots.iter().position(|taken| !taken).unwrap_or(slots.len());
        if free == slots.len() {
            slots.push(true);
        } else {
            slots[free] = true;
        }
        DiskSlot(free as u32)
    }

    /// The slot's index: 0 for the first simulation alive.
    pub(crate) fn index(&self) -> u32 {
        self.0
    }
}

impl Drop for DiskSlot {
    fn drop(&mut self) {
        let mut slots = SLOTS.lock().unwrap_or_else(|e| e.into_inner());
        slots[self.0 as usize] = false;
    }
}
