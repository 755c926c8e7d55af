//! Kautz graphs. Being written.
use crate::network::spec::Family;
use crate::network::{Network, TopologyError};
pub const KAUTZ: Family = Family {
    name: "kautz",
    usage: "kautz:b=2,n=3,hosts=4",
    keys: &["b", "n", "hosts"],
    positional: None,
    generate: |_| Err(TopologyError::impossible("kautz: not yet available")),
};
pub fn kautz(_b: u32, _n: u32, _hosts: u32) -> Result<Network, TopologyError> {
    Err(TopologyError::impossible("not yet available"))
}
