//! Folded 3-stage Clos networks. Being written.
use crate::network::spec::Family;
use crate::network::{Network, TopologyError};
pub const CLOS: Family = Family {
    name: "clos",
    usage: "clos:ports=32,hosts=512",
    keys: &["ports", "hosts"],
    positional: None,
    generate: |_| Err(TopologyError::impossible("clos: not yet available")),
};
pub fn clos(_ports: u32, _hosts: u32) -> Result<Network, TopologyError> {
    Err(TopologyError::impossible("not yet available"))
}
