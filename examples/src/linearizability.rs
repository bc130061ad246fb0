//! A linearizability checker for recorded client histories (placeholder
//! replaced by the key-value store's checker).
