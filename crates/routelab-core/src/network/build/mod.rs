//! Generators, one file per family, named after the family (the networkx
//! habit). Each exposes a typed function and a [`Family`](super::spec::Family)
//! entry for the spec registry.

pub mod clos;
pub mod crossbar;
pub mod dragonfly;
pub mod hyperx;
pub mod kautz;
pub mod megafly;
pub mod random;
pub mod slimfly;
pub mod torus;
pub mod tree;

pub use clos::clos;
pub use crossbar::crossbar;
pub use dragonfly::dragonfly;
pub use hyperx::{flattened_butterfly, hyperx};
pub use kautz::{kautz, kautz_with_terminals};
pub use megafly::megafly;
pub use random::{random_irregular, random_with_links};
pub use slimfly::slimfly;
pub use torus::{hypercube, mesh, torus};
pub use tree::{kary_ntree, xgft};

use super::TopologyError;

/// An out-of-range parameter of a typed generator, named as in its spec, so
/// `clos(32, 600)` and `clos:ports=32,hosts=600` report the same thing.
pub(crate) fn bad_param(
    family: &str,
    key: &str,
    value: impl ToString,
    expected: impl Into<String>,
) -> TopologyError {
    TopologyError::BadValue {
        family: family.to_string(),
        key: key.to_string(),
        value: value.to_string(),
        expected: expected.into(),
    }
}
