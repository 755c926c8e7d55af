//! Random irregular networks. Being written.
use crate::network::spec::Family;
use crate::network::{Network, TopologyError};
pub const RANDOM: Family = Family {
    name: "random",
    usage: "random:switches=64,ports=8,hosts=4[,links=L],seed=1",
    keys: &["switches", "ports", "hosts", "links", "seed"],
    positional: None,
    generate: |_| Err(TopologyError::impossible("random: not yet available")),
};
pub fn random_irregular(_s: u32, _p: u32, _h: u32, _seed: u64) -> Result<Network, TopologyError> {
    Err(TopologyError::impossible("not yet available"))
}
pub fn random_with_links(
    _s: u32,
    _p: u32,
    _h: u32,
    _l: u32,
    _seed: u64,
) -> Result<Network, TopologyError> {
    Err(TopologyError::impossible("not yet available"))
}
