//! Route file formats, one file per format:
//!
//! | file | format | |
//! |---|---|---|
//! | `opensm-lfts.dump` | [`lfts`]: OpenSM's linear forwarding table dump, per switch one port per LID | read, write |
//! | `lanes.txt` | [`lanes`]: the lane of each (source, destination) pair as `slid dlid lane` lines | read, write |
//! | e.g. `routes.dot` | [`orcs`]: the topology as a directed graph, each edge naming the destinations routed over it (ORCS style); not written by [`save_all`] | write |
//! | `paths.jsonl` | [`paths`]: one JSON object per (source, destination): lane and node names along the path | write |
//! | `opensm-sl2vl.dump` | [`sl2vl`]: OpenSM's SL-to-VL tables per node and port pair; with a lane table of SLs, the VL of every hop | read, write |
//! | `opensm-path-records.dump` | [`path_records`]: OpenSM's path records, per source port the SL (and MTU, rate) to every LID; its SLs are pair lanes | read, write |
//! | `source-routes.txt` | [`source_routes`]: Myrinet-style source routes, the output port at each switch per pair, `\|` at in-transit hosts | read, write |
//!
//! LFT dumps and lane tables address nodes by LID; [`assign_lids`] decides
//! the LIDs in one place (the fabric's own, else switches then terminals
//! from 1). An imported LFT dump, possibly combined with a lane table, gives
//! [`Routes`] that walk, measure and audit like those of any engine: a loop
//! or black hole shows when walking, naming the pair and the switch.
//!
//! Readers take untrusted text: they never panic, allocate in proportion to
//! the network and the text only, and report the file and the 1-based line
//! of what they cannot read.

pub mod lanes;
pub mod lfts;
pub(crate) mod lid_ports;
pub mod lids;
pub mod orcs;
pub mod path_records;
pub mod paths;
pub mod sl2vl;
pub mod source_routes;

pub use lanes::{read_lanes, write_lanes};
pub use lfts::{read_lfts, write_lfts};
pub use lids::{assign_lids, LidEntry, Lids, MAX_UNICAST_LID};
pub use orcs::write_orcs_dot;
pub use path_records::{is_path_records, read_path_records, write_path_records};
pub use paths::write_paths;
pub use sl2vl::{read_sl2vl, write_sl2vl};
pub use source_routes::{read_source_routes, write_source_routes};

use super::{Routes, RoutingError};
use crate::network::Network;
use std::io::Write;
use std::path::Path;

/// The LFT dump written by [`save_all`], named as OpenSM names it.
pub const LFTS_FILE: &str = "opensm-lfts.dump";
/// The lane table written by [`save_all`].
pub const LANES_FILE: &str = "lanes.txt";
/// The paths file written by [`save_all`].
pub const PATHS_FILE: &str = "paths.jsonl";
/// The SL-to-VL tables [`save_all`] writes for routes on several lanes.
pub const SL2VL_FILE: &str = "opensm-sl2vl.dump";
/// The path records [`save_all`] writes beside [`SL2VL_FILE`].
pub const PATH_RECORDS_FILE: &str = "opensm-path-records.dump";
/// The source routes [`save_all`] writes for routes with a path set.
pub const SOURCE_ROUTES_FILE: &str = "source-routes.txt";

/// Writes [`LFTS_FILE`] and [`LANES_FILE`] into `dir`, creating it if
/// needed; [`SL2VL_FILE`] and [`PATH_RECORDS_FILE`] whenever some sending
/// port uses an SL other than 0 or the routes have SL-to-VL tables (`dor`'s
/// datelines written as torus-2QoS's; see [`LidRoutes`]), so that the files
/// hold every SL and VL the deadlock verdict depends on;
/// [`SOURCE_ROUTES_FILE`] when the routes are source routes on one lane
/// ([`writes_source_routes`]); and [`PATHS_FILE`] when `paths` (it grows
/// as the square of the terminals: 349 MB for 1,552). Returns the files
/// written.
///
/// [`LidRoutes`]: crate::routing::LidRoutes
pub fn save_all(
    net: &Network,
    routes: &Routes,
    dir: &Path,
    paths: bool,
) -> Result<Vec<std::path::PathBuf>, RoutingError> {
    check_size(net, routes)?;
    let view = crate::routing::LidRoutes::of(net, routes)?;
    save_all_of(net, routes, &view, dir, paths, None)
}

/// [`save_all`] of routes already seen per LID (`view`, of these routes).
/// `lft_comments`: a comment on every LFT entry naming the LID's port, or
/// none; by default only up to [`lfts::ANNOTATED_LFT_ENTRIES`] entries.
pub fn save_all_of(
    net: &Network,
    routes: &Routes,
    view: &crate::routing::LidRoutes,
    dir: &Path,
    paths: bool,
    lft_comments: Option<bool>,
) -> Result<Vec<std::path::PathBuf>, RoutingError> {
    std::fs::create_dir_all(dir).map_err(|e| io_error(dir, "cannot create the directory", e))?;
    check_size(net, routes)?;
    let p = dir.join(LFTS_FILE);
    let file = std::fs::File::create(&p).map_err(|e| io_error(&p, "cannot write", e))?;
    let mut w = std::io::BufWriter::with_capacity(1 << 20, file);
    let entries = (net.switches().len() * view.lid_count()) as u64;
    let annotated = lft_comments.unwrap_or(entries <= lfts::ANNOTATED_LFT_ENTRIES);
    lfts::write_lid_lfts_to(net, routes.engine(), view, annotated, &mut w)
        .and_then(|()| w.flush())
        .map_err(|e| io_error(&p, "cannot write", e))?;
    let mut written = vec![p];
    let mut put = |name: &str, text: String| -> Result<(), RoutingError> {
        let p = dir.join(name);
        std::fs::write(&p, text).map_err(|e| io_error(&p, "cannot write", e))?;
        written.push(p);
        Ok(())
    };
    put(
        LANES_FILE,
        lanes::write_lid_lanes(net, routes.engine(), view),
    )?;
    if writes_sl2vl_of(view) {
        let text = match &view.rule {
            crate::routing::LaneRule::SlToVl(t) => write_sl2vl(net, t)?,
            _ => write_sl2vl(net, &crate::routing::SlToVl::new(net))?,
        };
        put(SL2VL_FILE, text)?;
        put(
            PATH_RECORDS_FILE,
            path_records::write_lid_path_records(net, view),
        )?;
    }
    if writes_source_routes(routes) {
        put(SOURCE_ROUTES_FILE, write_source_routes(net, routes)?)?;
    }
    if paths {
        let p = dir.join(PATHS_FILE);
        let file = std::fs::File::create(&p).map_err(|e| io_error(&p, "cannot write", e))?;
        let mut w = std::io::BufWriter::new(file);
        write_paths(net, routes, &mut w).map_err(|e| match e {
            RoutingError::Io { reason, .. } => RoutingError::Io {
                path: p.display().to_string(),
                reason,
            },
            e => e,
        })?;
        w.flush().map_err(|e| io_error(&p, "cannot write", e))?;
        written.push(p);
    }
    Ok(written)
}

/// Reads pair lanes into `routes` from a lane table ([`read_lanes`]) or
/// OpenSM's path records ([`read_path_records`]), told apart by content.
pub fn read_pair_lanes(
    net: &Network,
    routes: &mut Routes,
    text: &str,
    origin: &str,
) -> Result<(), RoutingError> {
    if is_path_records(text) {
        read_path_records(net, routes, text, origin)
    } else {
        read_lanes(net, routes, text, origin)
    }
}

/// Whether [`save_all`] writes [`SL2VL_FILE`] and [`PATH_RECORDS_FILE`]
/// for `routes` on `net`: SL-to-VL tables, or some SL other than 0.
pub fn writes_sl2vl(net: &Network, routes: &Routes) -> Result<bool, RoutingError> {
    if routes.path_set().is_some() {
        return Ok(false);
    }
    Ok(writes_sl2vl_of(&crate::routing::LidRoutes::of(
        net, routes,
    )?))
}

fn writes_sl2vl_of(view: &crate::routing::LidRoutes) -> bool {
    matches!(view.rule, crate::routing::LaneRule::SlToVl(_)) || view.max_sl() > 0
}

/// Whether [`save_all`] writes [`SOURCE_ROUTES_FILE`] for `routes`: source
/// routes on one lane (the format has no lanes).
pub fn writes_source_routes(routes: &Routes) -> bool {
    routes.path_set().is_some() && routes.lanes() <= 1
}

fn io_error(path: &Path, what: &str, e: std::io::Error) -> RoutingError {
    RoutingError::Io {
        path: path.display().to_string(),
        reason: format!("{what}: {e}"),
    }
}

/// Checks that `routes` were computed for `net`.
fn check_size(net: &Network, routes: &Routes) -> Result<(), RoutingError> {
    let (s, t) = (net.switches().len(), net.terminals().len());
    if routes.switch_count() != s || routes.terminal_count() != t {
        return Err(RoutingError::Mismatch {
            what: format!(
                "the routes are for {} switches and {} terminals, '{}' has {s} and {t}",
                routes.switch_count(),
                routes.terminal_count(),
                net.name()
            ),
        });
    }
    Ok(())
}

/// A parse error at 1-based `line` of `file`.
fn parse_error(file: &str, line: usize, reason: impl Into<String>) -> RoutingError {
    RoutingError::Parse {
        file: file.to_string(),
        line,
        reason: reason.into(),
    }
}

/// Text from a file, shortened for an error message.
fn clip(text: &str) -> String {
    const MAX: usize = 60;
    let mut out: String = text
        .chars()
        .take(MAX)
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    if text.chars().nth(MAX).is_some() {
        out.push_str("...");
    }
    out
}

/// A node name or description on one line of a text file.
fn one_line(text: &str) -> String {
    text.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect()
}

/// Parses a number written in hex (`0x1f`) or decimal (`31`), at most
/// `max`.
fn parse_number(token: &str, max: u64) -> Option<u64> {
    let (digits, radix) = match token
        .strip_prefix("0x")
        .or_else(|| token.strip_prefix("0X"))
    {
        Some(h) => (h, 16),
        None => (token, 10),
    };
    // Leading zeros are fine; anything longer than a u64 is not a number here.
    if digits.is_empty() || digits.len() > 20 || !digits.chars().all(|c| c.is_digit(radix)) {
        return None;
    }
    u64::from_str_radix(digits, radix)
        .ok()
        .filter(|&v| v <= max)
}

/// The hexadecimal number at the start of `text` (after `0x`), and the
/// rest; at most 16 digits.
fn leading_hex(text: &str) -> Option<(u64, &str)> {
    let end = text
        .find(|c: char| !c.is_ascii_hexdigit())
        .unwrap_or(text.len());
    if end == 0 || end > 16 {
        return None;
    }
    let v = u64::from_str_radix(&text[..end], 16).ok()?;
    Some((v, &text[end..]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_parse_in_both_radices() {
        assert_eq!(parse_number("0x1f", 0xffff), Some(31));
        assert_eq!(parse_number("0X001F", 0xffff), Some(31));
        assert_eq!(parse_number("31", 0xffff), Some(31));
        assert_eq!(parse_number("0x10000", 0xffff), None);
        assert_eq!(parse_number("0x", 0xffff), None);
        assert_eq!(parse_number("-1", 0xffff), None);
        assert_eq!(parse_number("1e3", 0xffff), None);
        assert_eq!(parse_number(&"9".repeat(400), u64::MAX), None);
        assert_eq!(leading_hex("0002c9:'x'"), Some((0x2c9, ":'x'")));
        assert_eq!(leading_hex(&"f".repeat(17)), None);
        assert_eq!(leading_hex("zz"), None);
    }

    #[test]
    fn clipped_text_is_short_and_single_line() {
        let long = "a\n".repeat(100);
        let c = clip(&long);
        assert!(c.len() <= 63 && !c.contains('\n'), "{c}");
        assert_eq!(clip("short"), "short");
    }
}
