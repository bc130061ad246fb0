//! Placeholder: the sim-fs model is being written.
