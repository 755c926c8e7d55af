//! Fabric file formats. Being written.
use super::{Network, TopologyError};
use std::path::Path;
/// Loads a fabric file, choosing the format by extension.
pub fn load(path: &Path) -> Result<Network, TopologyError> {
    Err(TopologyError::Io {
        path: path.display().to_string(),
        reason: "not yet available".into(),
    })
}
