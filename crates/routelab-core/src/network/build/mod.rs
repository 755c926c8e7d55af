//! Generators, one file per family, named after the family (the networkx
//! habit). Each exposes a typed function and a [`Family`](super::spec::Family)
//! entry for the spec registry.

pub mod clos;
pub mod crossbar;
pub mod dragonfly;
pub mod kautz;
pub mod random;
pub mod torus;
pub mod tree;

pub use clos::clos;
pub use crossbar::crossbar;
pub use dragonfly::dragonfly;
pub use kautz::kautz;
pub use random::{random_irregular, random_with_links};
pub use torus::{hypercube, mesh, torus};
pub use tree::{kary_ntree, xgft};
