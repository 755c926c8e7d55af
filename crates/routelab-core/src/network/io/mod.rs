//! Fabric file formats, chosen by file extension, else by content, or
//! named ([`Format::parse`], `--format` on the command line):
//!
//! | name | extension | format | |
//! |---|---|---|---|
//! | `json` | `.json` | [`json`]: routelab's own, everything kept | read, write |
//! | `ibnetdiscover` | `.ibnet`, `.topo`, `.ibnd`, `.txt`, `.net` | [`ibnetdiscover`] text, as the tool prints it; ibsim's net files too | read, write |
//! | `ports` | `.ports` | [`ports_report`]: what `ibnetdiscover -p` prints | read, write |
//! | `subnet-lst` | `.lst` | [`subnet_lst`]: OpenSM's `opensm-subnet.lst` | read, write |
//! | `dot` | `.dot` | [`dot`]: Graphviz, to draw | write |
//!
//! Files without an extension or with another one (`ibnetdiscover.out`)
//! are read by what their first line shows. OpenSM's LID cache
//! ([`guid2lid`]) gives a fabric read from any of them the subnet's LIDs.
//! `docs/formats.md` documents each, and what a round trip keeps.

mod cable_list;
pub mod dot;
pub mod guid2lid;
pub mod ibnetdiscover;
pub mod json;
pub mod ports_report;
pub mod subnet_lst;

use super::{Network, TopologyError};
use std::path::Path;

/// A fabric file format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Json,
    Ibnetdiscover,
    /// `ibnetdiscover -p`.
    Ports,
    /// OpenSM's `opensm-subnet.lst`.
    SubnetLst,
    /// Graphviz DOT; write only.
    Dot,
}

/// `(name, other names, extensions)` of every format.
const FORMATS: &[(Format, &str, &[&str], &[&str])] = &[
    (Format::Json, "json", &[], &["json"]),
    (
        Format::Ibnetdiscover,
        "ibnetdiscover",
        &["ibnet", "ibsim", "net"],
        &["ibnet", "topo", "ibnd", "txt", "net"],
    ),
    (Format::Ports, "ports", &["ibnetdiscover-p"], &["ports"]),
    (
        Format::SubnetLst,
        "subnet-lst",
        &["opensm-subnet.lst", "lst"],
        &["lst"],
    ),
    (Format::Dot, "dot", &["graphviz"], &["dot"]),
];

const VALID: &str = ".json (routelab), .ibnet, .topo, .ibnd, .txt or .net (ibnetdiscover, \
                     ibsim), .ports (ibnetdiscover -p), .lst (opensm-subnet.lst), \
                     .dot (Graphviz, write only)";

impl Format {
    /// The format named `name` (`json`, `ibnetdiscover`, `ibsim`, `ports`,
    /// `subnet-lst`, `dot`, ...).
    pub fn parse(name: &str) -> Result<Format, TopologyError> {
        let n = name.trim().to_ascii_lowercase();
        FORMATS
            .iter()
            .find(|(_, main, other, _)| *main == n || other.contains(&n.as_str()))
            .map(|(f, ..)| *f)
            .ok_or_else(|| TopologyError::BadValue {
                family: "fabric file".into(),
                key: "format".into(),
                value: name.to_string(),
                expected: format!("one of {}", Self::names()),
            })
    }

    /// The format names, comma-separated.
    pub fn names() -> String {
        FORMATS
            .iter()
            .map(|(_, n, ..)| *n)
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// The name of this format.
    pub fn name(self) -> &'static str {
        FORMATS
            .iter()
            .find(|(f, ..)| *f == self)
            .map_or("", |(_, n, ..)| n)
    }

    /// The format a file's extension names (case-insensitive), if it names one.
    pub fn of_extension(path: &Path) -> Option<Format> {
        let ext = path.extension()?.to_string_lossy().to_ascii_lowercase();
        FORMATS
            .iter()
            .find(|(.., exts)| exts.contains(&ext.as_str()))
            .map(|(f, ..)| *f)
    }

    /// The format a file's extension names (case-insensitive).
    pub fn of_path(path: &Path) -> Result<Format, TopologyError> {
        Self::of_extension(path).ok_or_else(|| {
            let ext = path
                .extension()
                .map(|e| e.to_string_lossy().to_ascii_lowercase());
            let reason = match ext {
                Some(other) => format!(
                    "unknown fabric file extension '.{other}'; valid: {VALID}, or name the \
                     format (--format)"
                ),
                None => format!("a fabric file to write needs an extension; valid: {VALID}"),
            };
            io_error(path, reason)
        })
    }

    /// The format a text's first meaningful line shows, if any: JSON,
    /// an `ibnetdiscover -p` report, `opensm-subnet.lst` or ibnetdiscover
    /// (and ibsim) text.
    pub fn sniff(text: &str) -> Option<Format> {
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        let first = text
            .lines()
            .map(str::trim)
            .find(|l| !l.is_empty() && !l.starts_with('#'))?;
        if subnet_lst::looks_like(first) {
            return Some(Format::SubnetLst);
        }
        if first.starts_with('{') || first.starts_with('[') && first.len() == 1 {
            return Some(Format::Json);
        }
        if ports_report::looks_like(first) {
            return Some(Format::Ports);
        }
        const KEYWORDS: &[&str] = &[
            "Switch",
            "Ca",
            "Hca",
            "Rt",
            "switchguid",
            "caguid",
            "hcaguids",
            "rtguid",
            "vendid",
            "devid",
            "sysimgguid",
            "Chassis",
            "Non-Chassis",
            "Hostname",
            "width",
            "speed",
            "extspeed",
            "netprefix",
        ];
        let word: String = first
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '-')
            .collect();
        KEYWORDS
            .contains(&word.as_str())
            .then_some(Format::Ibnetdiscover)
    }
}

fn io_error(path: &Path, reason: String) -> TopologyError {
    TopologyError::Io {
        path: path.display().to_string(),
        reason,
    }
}

/// Loads a fabric file, choosing the format by extension, else by content.
/// JSON files keep their name; the others are named by their `# routelab
/// network` line, else by the file's stem.
pub fn load(path: &Path) -> Result<Network, TopologyError> {
    load_as(path, None)
}

/// Loads a fabric file in `format`, or as [`load`] chooses when `None`.
pub fn load_as(path: &Path, format: Option<Format>) -> Result<Network, TopologyError> {
    let origin = path.display().to_string();
    if format.or_else(|| Format::of_extension(path)) == Some(Format::Dot) {
        return Err(io_error(
            path,
            "DOT files are write only; load a .json or ibnetdiscover file".into(),
        ));
    }
    // Node descriptions come from devices; do not fail on stray bytes.
    let bytes = std::fs::read(path).map_err(|e| io_error(path, format!("cannot read: {e}")))?;
    let text = String::from_utf8_lossy(&bytes);
    let format = match format.or_else(|| Format::of_extension(path)) {
        Some(f) => f,
        None => Format::sniff(&text).ok_or_else(|| {
            let ext = path
                .extension()
                .map(|e| {
                    format!(
                        "its extension '.{}' names no format and ",
                        e.to_string_lossy()
                    )
                })
                .unwrap_or_default();
            io_error(
                path,
                format!(
                    "cannot tell the fabric format: {ext}its first line is none of them; \
                     valid: {VALID}; or name it with --format ({})",
                    Format::names()
                ),
            )
        })?,
    };
    if format == Format::Json && std::str::from_utf8(&bytes).is_err() {
        // JSON must be UTF-8: say where it is not.
        return Err(crate::text::read(path)
            .err()
            .map_or_else(|| io_error(path, "not UTF-8".into()), |e| io_error(path, e)));
    }
    parse(&text, format, &origin)
}

/// Reads fabric text in `format`; `origin` names it in errors (and, by its
/// stem, the network when the text does not name it).
pub fn parse(text: &str, format: Format, origin: &str) -> Result<Network, TopologyError> {
    match format {
        Format::Json => json::from_str(text, origin),
        Format::Ibnetdiscover => ibnetdiscover::from_str(text, origin),
        Format::Ports => ports_report::from_str(text, origin),
        Format::SubnetLst => subnet_lst::from_str(text, origin),
        Format::Dot => Err(TopologyError::parse(
            origin,
            0,
            "DOT is write only; read a .json or ibnetdiscover file",
        )),
    }
}

/// Reads fabric text whose format its content shows.
pub fn parse_sniffed(text: &str, origin: &str) -> Result<Network, TopologyError> {
    let format = Format::sniff(text).ok_or_else(|| {
        TopologyError::parse(
            origin,
            1,
            format!(
                "cannot tell the fabric format from the first line; name it ({})",
                Format::names()
            ),
        )
    })?;
    parse(text, format, origin)
}

/// The text of `net` in `format`.
pub fn to_string(net: &Network, format: Format) -> String {
    match format {
        Format::Json => json::to_string(net),
        Format::Ibnetdiscover => ibnetdiscover::to_string(net),
        Format::Ports => ports_report::to_string(net),
        Format::SubnetLst => subnet_lst::to_string(net),
        Format::Dot => dot::to_string(net),
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
    save_as(net, path, None)
}

/// Saves a network in `format`, or by extension when `None`.
pub fn save_as(net: &Network, path: &Path, format: Option<Format>) -> Result<(), TopologyError> {
    let format = match format {
        Some(f) => f,
        None => Format::of_path(path)?,
    };
    std::fs::write(path, to_string(net, format))
        .map_err(|e| io_error(path, format!("cannot write: {e}")))
}
