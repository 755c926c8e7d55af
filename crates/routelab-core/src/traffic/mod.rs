//! The traffic layer. Being written.
