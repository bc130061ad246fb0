//! Placeholder: the sim-net model is being written.
