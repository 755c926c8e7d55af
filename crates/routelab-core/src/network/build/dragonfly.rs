//! Dragonflies. Being written.
use crate::network::spec::Family;
use crate::network::{Network, TopologyError};
pub const DRAGONFLY: Family = Family {
    name: "dragonfly",
    usage: "dragonfly:a=4,p=2,h=2",
    keys: &["a", "p", "h"],
    positional: None,
    generate: |_| Err(TopologyError::impossible("dragonfly: not yet available")),
};
pub fn dragonfly(_a: u32, _p: u32, _h: u32) -> Result<Network, TopologyError> {
    Err(TopologyError::impossible("not yet available"))
}
