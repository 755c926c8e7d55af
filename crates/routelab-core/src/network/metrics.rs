//! Network metrics. Being written.
