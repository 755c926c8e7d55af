//! k-ary n-trees and extended generalized fat trees (XGFT). Being written.
use crate::network::spec::Family;
use crate::network::{Network, TopologyError};
pub const KARY_NTREE: Family = Family {
    name: "kary-ntree",
    usage: "kary-ntree:k=4,n=3",
    keys: &["k", "n"],
    positional: None,
    generate: |_| Err(TopologyError::impossible("kary-ntree: not yet available")),
};
pub const XGFT: Family = Family {
    name: "xgft",
    usage: "xgft:m=32x32,w=1x32",
    keys: &["m", "w"],
    positional: None,
    generate: |_| Err(TopologyError::impossible("xgft: not yet available")),
};
pub fn kary_ntree(_k: u32, _n: u32) -> Result<Network, TopologyError> {
    Err(TopologyError::impossible("not yet available"))
}
pub fn xgft(_m: &[u32], _w: &[u32]) -> Result<Network, TopologyError> {
    Err(TopologyError::impossible("not yet available"))
}
