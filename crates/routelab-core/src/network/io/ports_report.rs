//! The ports report `ibnetdiscover -p` prints: one line per port, with the
//! peer when the port is cabled.
//!
//! ```text
//! SW     1 35 0x0002c902004a0950 4x EDR - SW     2 35 0x0002c902004a0a10 ( 'leaf-1' - 'leaf-2' )
//! CA     3  1 0xe41d2d0300a1b2c1 4x EDR - SW     1  1 0x0002c902004a0950 ( 'node01 mlx5_0' - 'leaf-1' )
//! SW     1 20 0x0002c902004a0950 4x ???                                    'leaf-1'
//! ```
//!
//! Fields: node type (`SW`, `CA`, `RT`), LID (a switch's is that of its
//! port 0), port number, port GUID (a switch's ports all show the
//! switch's), width, speed, then `-` and the same four fields of the peer,
//! then both descriptions. Lines without a peer are ports that are down.
//!
//! The report has no node GUIDs for adapters, only port GUIDs. Adapter
//! ports are taken as one node when their descriptions match and their
//! port GUIDs minus their port numbers do (how adapters number their port
//! GUIDs); otherwise each port is a node of its own. Links read as one
//! cable from both ends; the link speed (`4x EDR` → `4xEDR`) is the class.

use super::cable_list::{self, End, Kind, Link};
use crate::network::{Network, TopologyError};
use std::fmt::Write;

/// Reads the ports report. `origin` names the file in errors.
pub fn from_str(text: &str, origin: &str) -> Result<Network, TopologyError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut links = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let parsed = parse_line(line).map_err(|r| TopologyError::parse(origin, i + 1, r))?;
        if let Some((a, b, speed)) = parsed {
            links.push(Link {
                a,
                b,
                speed,
                line: i + 1,
            });
        }
    }
    if links.is_empty() {
        return Err(TopologyError::parse(
            origin,
            0,
            "no cabled port found: the report is empty or every port is down",
        ));
    }
    cable_list::to_network(&links, origin)
}

/// Whether `line` reads as a line of the report (for telling formats apart).
pub(crate) fn looks_like(line: &str) -> bool {
    let mut w = line.split_whitespace();
    matches!(w.next(), Some("SW" | "CA" | "RT"))
        && w.next().is_some_and(|x| x.parse::<u32>().is_ok())
        && w.next().is_some_and(|x| x.parse::<u16>().is_ok())
        && w.next().is_some_and(|x| x.starts_with("0x"))
}

type Parsed = Option<(End, End, Option<String>)>;

fn parse_line(line: &str) -> Result<Parsed, String> {
    let mut words = line.split_whitespace();
    let (kind, lid, port, guid) = peer(&mut words).map_err(|e| format!("this port: {e}"))?;
    let width = words
        .next()
        .ok_or("expected the link width (4x) after the GUID")?;
    let speed = words
        .next()
        .ok_or("expected the link speed (EDR) after the width")?;
    if words.next() != Some("-") {
        // A port that is down: only its node's description follows.
        return Ok(None);
    }
    let (rkind, rlid, rport, rguid) = peer(&mut words).map_err(|e| format!("the peer: {e}"))?;
    // The fields before the first " - " hold no quotes, so it is the separator.
    let rest = line.find(" - ").map_or("", |d| &line[d + 3..]);
    let open = rest
        .find('(')
        .ok_or("expected the descriptions in parentheses, as in ( 'a' - 'b' ), after the peer")?;
    let close = rest
        .rfind(')')
        .filter(|&c| c > open)
        .ok_or("the descriptions need a closing ')'")?;
    let (a, b) = rest[open + 1..close]
        .trim()
        .strip_prefix('\'')
        .and_then(|s| s.strip_suffix('\''))
        .and_then(|s| s.split_once("' - '"))
        .ok_or("expected the descriptions as ( 'this node' - 'peer' )")?;
    let word = format!("{width}{speed}");
    let speed = cable_list::width_and_speed(&word).is_some().then_some(word);
    Ok(Some((
        end(&kind, lid, port, guid, a)?,
        end(&rkind, rlid, rport, rguid, b)?,
        speed,
    )))
}

fn peer<'a>(w: &mut impl Iterator<Item = &'a str>) -> Result<(String, u32, u16, u64), String> {
    let kind = w.next().ok_or("expected the node type (SW, CA or RT)")?;
    if !matches!(kind, "SW" | "CA" | "RT") {
        return Err(format!(
            "unknown node type '{}'; expected SW, CA or RT",
            super::ibnetdiscover::clean_text(&kind.chars().take(16).collect::<String>())
        ));
    }
    let lid = w
        .next()
        .and_then(|x| x.parse::<u32>().ok())
        .ok_or("expected the LID, a number, after the node type")?;
    let port = w
        .next()
        .and_then(|x| x.parse::<u16>().ok())
        .ok_or("expected the port number (0-65535) after the LID")?;
    let guid = w
        .next()
        .and_then(|x| x.strip_prefix("0x"))
        .and_then(|x| u64::from_str_radix(x, 16).ok())
        .ok_or("expected the port GUID (0x followed by 16 hex digits) after the port")?;
    Ok((kind.to_string(), lid, port, guid))
}

fn end(kind: &str, lid: u32, port: u16, guid: u64, desc: &str) -> Result<End, String> {
    if port == 0 {
        return Err("port 0 is a switch's management port; it has no cable".into());
    }
    let kind = match kind {
        "SW" => Kind::Switch,
        "RT" => Kind::Router,
        _ => Kind::Ca,
    };
    // Adapters number their port GUIDs from the node GUID.
    let node_guid = match kind {
        Kind::Switch => guid,
        _ => guid.wrapping_sub(u64::from(port)),
    };
    Ok(End {
        kind,
        node_guid,
        port_guid: guid,
        lid,
        port,
        desc: super::ibnetdiscover::clean_text(desc),
        ports: None,
    })
}

/// The ports report of a network: every cabled port, switches' ports in
/// descending order as the tool prints them.
pub fn to_string(net: &Network) -> String {
    let mut out = String::new();
    let mut ends = cable_list::ends(net);
    // The tool walks each node's ports from the highest.
    ends.sort_by(|x, y| {
        (x.0.node_guid, &x.0.desc, std::cmp::Reverse(x.0.port)).cmp(&(
            y.0.node_guid,
            &y.0.desc,
            std::cmp::Reverse(y.0.port),
        ))
    });
    for (a, b, class) in ends {
        let (width, speed) = cable_list::width_and_speed(&class)
            .map(|(w, s)| (format!("{w}x"), s.to_ascii_uppercase()))
            .unwrap_or_else(|| ("4x".into(), "???".into()));
        let _ = writeln!(
            out,
            "{} {:5} {:2} 0x{:016x} {width} {speed} - {} {:5} {:2} 0x{:016x} ( '{}' - '{}' )",
            code(a.kind),
            a.lid,
            a.port,
            a.port_guid,
            code(b.kind),
            b.lid,
            b.port,
            b.port_guid,
            a.desc,
            b.desc
        );
    }
    out
}

fn code(kind: Kind) -> &'static str {
    match kind {
        Kind::Switch => "SW",
        Kind::Ca => "CA",
        Kind::Router => "RT",
    }
}
