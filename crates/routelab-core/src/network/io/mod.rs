//! Fabric file formats, chosen by file extension:
//!
//! | extension | format | |
//! |---|---|---|
//! | `.json` | [`json`]: routelab's own, everything kept | read, write |
//! | `.ibnet`, `.topo`, `.ibnd`, `.txt` | [`ibnetdiscover`] text, as the tool prints and ibsim reads | read, write |
//! | `.dot` | [`dot`]: Graphviz, to draw | write |
//!
//! `docs/formats.md` documents each, and what a round trip keeps.

pub mod dot;
pub mod ibnetdiscover;
pub mod json;

use super::{Network, TopologyError};
use std::path::Path;

/// A fabric file format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Json,
    Ibnetdiscover,
    /// Graphviz DOT; write only.
    Dot,
}

const VALID: &str = ".json (routelab), .ibnet, .topo, .ibnd or .txt (ibnetdiscover), \
                     .dot (Graphviz, write only)";

impl Format {
    /// The format a file's extension names (case-insensitive).
    pub fn of_path(path: &Path) -> Result<Format, TopologyError> {
        let ext = path
            .extension()
            .map(|e| e.to_string_lossy().to_ascii_lowercase());
        match ext.as_deref() {
            Some("json") => Ok(Format::Json),
            Some("ibnet" | "topo" | "ibnd" | "txt") => Ok(Format::Ibnetdiscover),
            Some("dot") => Ok(Format::Dot),
            Some(other) => Err(io_error(
                path,
                format!("unknown fabric file extension '.{other}'; valid: {VALID}"),
            )),
            None => Err(io_error(
                path,
                format!("a fabric file needs an extension; valid: {VALID}"),
            )),
        }
    }
}

fn io_error(path: &Path, reason: String) -> TopologyError {
    TopologyError::Io {
        path: path.display().to_string(),
        reason,
    }
}

/// Loads a fabric file, choosing the format by extension. JSON files keep
/// their name; ibnetdiscover files are named by their `# routelab network`
/// line, else by the file's stem.
pub fn load(path: &Path) -> Result<Network, TopologyError> {
    let format = Format::of_path(path)?;
    let origin = path.display().to_string();
    match format {
        Format::Json => {
            let text = crate::text::read(path).map_err(|e| io_error(path, e))?;
            json::from_str(&text, &origin)
        }
        Format::Ibnetdiscover => {
            // Node descriptions come from devices; do not fail on stray bytes.
            let bytes =
                std::fs::read(path).map_err(|e| io_error(path, format!("cannot read: {e}")))?;
            ibnetdiscover::from_str(&String::from_utf8_lossy(&bytes), &origin)
        }
        Format::Dot => Err(io_error(
            path,
            "DOT files are write only; load a .json or ibnetdiscover file".into(),
        )),
    }
}

/// A fabric file that describes no node is a mistake (an empty or
/// truncated dump), not an empty network.
fn not_empty(net: Network, origin: &str) -> Result<Network, TopologyError> {
    if net.nodes().is_empty() {
        return Err(TopologyError::parse(
            origin,
            0,
            "no switch or host found: the file is empty or holds no fabric",
        ));
    }
    Ok(net)
}

/// Saves a network, choosing the format by extension.
pub fn save(net: &Network, path: &Path) -> Result<(), TopologyError> {
    let text = match Format::of_path(path)? {
        Format::Json => json::to_string(net),
        Format::Ibnetdiscover => ibnetdiscover::to_string(net),
        Format::Dot => dot::to_string(net),
    };
    std::fs::write(path, text).map_err(|e| io_error(path, format!("cannot write: {e}")))
}
