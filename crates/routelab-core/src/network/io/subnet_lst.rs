//! `opensm-subnet.lst`, the cable list OpenSM writes after every sweep: one
//! line per cabled port, the port's node and the peer's in braces, then the
//! link state.
//!
//! ```text
//! { SW Ports:24 SystemGUID:0002c902004a0953 NodeGUID:0002c902004a0950 PortGUID:0002c902004a0950 VenID:0002C9 DevID:C738 Rev:000000A0 {leaf-1} LID:0001 PN:01 } { CA Ports:01 SystemGUID:e41d2d0300a1b2c0 NodeGUID:e41d2d0300a1b2c0 PortGUID:e41d2d0300a1b2c1 VenID:000002C9 DevID:1013 Rev:00000000 {node01 mlx5_0} LID:0003 PN:01 } PHY=4x LOG=ACT SPD=25
//! ```
//!
//! Ports, LID and PN are hexadecimal; a switch's LID is that of its port 0.
//! `SW-SM` marks the node of the master SM. The speed is the lane rate in
//! Gb/s (`2.5` SDR, `5` DDR, `10` QDR, `14` FDR, `25` EDR, `50` HDR, `100`
//! NDR, or `FDR10`) and with the width becomes the class (`4xEDR`). Every
//! cable is listed from both ends and reads as one.

use super::cable_list::{self, End, Kind, Link};
use crate::network::{Network, TopologyError};
use std::fmt::Write;

/// Reads `opensm-subnet.lst`. `origin` names the file in errors.
pub fn from_str(text: &str, origin: &str) -> Result<Network, TopologyError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut links = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let (a, b, speed) = parse_line(line).map_err(|r| TopologyError::parse(origin, i + 1, r))?;
        links.push(Link {
            a,
            b,
            speed,
            line: i + 1,
        });
    }
    if links.is_empty() {
        return Err(TopologyError::parse(
            origin,
            0,
            "no cable found: the file is empty",
        ));
    }
    cable_list::to_network(&links, origin)
}

/// Whether `line` reads as a line of this file (for telling formats apart).
pub(crate) fn looks_like(line: &str) -> bool {
    line.strip_prefix('{')
        .map(str::trim_start)
        .and_then(|r| r.split_whitespace().next())
        .is_some_and(|k| {
            matches!(
                k,
                "SW" | "CA" | "Rt" | "**" | "SW-SM" | "CA-SM" | "Rt-SM" | "**-SM"
            )
        })
}

fn parse_line(line: &str) -> Result<(End, End, Option<String>), String> {
    let (a, rest) = record(line).map_err(|e| format!("the first node: {e}"))?;
    let (b, rest) = record(rest).map_err(|e| format!("the second node: {e}"))?;
    let mut width = None;
    let mut speed = None;
    for w in rest.split_whitespace() {
        match w.split_once('=') {
            Some(("PHY", v)) => width = Some(v),
            Some(("SPD", v)) => speed = Some(v),
            _ => {}
        }
    }
    let name = match speed {
        Some("2.5") => Some("SDR"),
        Some("5") => Some("DDR"),
        Some("10") => Some("QDR"),
        Some("14") => Some("FDR"),
        Some("25") => Some("EDR"),
        Some("50") => Some("HDR"),
        Some("100") => Some("NDR"),
        Some("200") => Some("XDR"),
        Some("FDR10") => Some("FDR10"),
        _ => None,
    };
    let word = width.zip(name).map(|(w, s)| format!("{w}{s}"));
    let word = word.filter(|w| cable_list::width_and_speed(w).is_some());
    Ok((a, b, word))
}

/// One `{ ... }` node record and the text after it.
fn record(text: &str) -> Result<(End, &str), String> {
    let body = text
        .trim_start()
        .strip_prefix('{')
        .ok_or("expected a node record starting with '{'")?;
    let kind_word = body
        .split_whitespace()
        .next()
        .ok_or("expected the node type (SW, CA, Rt)")?;
    let kind = match kind_word.trim_end_matches("-SM") {
        "SW" => Kind::Switch,
        "CA" => Kind::Ca,
        "Rt" => Kind::Router,
        other => {
            return Err(format!(
                "unknown node type '{}'; expected SW, CA or Rt",
                super::ibnetdiscover::clean_text(&other.chars().take(16).collect::<String>())
            ))
        }
    };
    // The description is the braced text after Rev:; it may hold braces,
    // so it ends at the last "} LID:" of this record.
    let open = body
        .find(" {")
        .ok_or("expected the node description in braces, as in {node01 mlx5_0}")?;
    let head = &body[..open];
    let after_open = &body[open + 2..];
    let close = after_open
        .find("} LID:")
        .ok_or("expected 'LID:' after the description's closing brace")?;
    let desc = &after_open[..close];
    let tail = &after_open[close + 1..];
    let end_rec = tail
        .find('}')
        .ok_or("the node record needs a closing '}'")?;
    let fields = &tail[..end_rec];
    let rest = &tail[end_rec + 1..];
    let hex = |src: &str, key: &str| -> Result<u64, String> {
        let v = src
            .split_whitespace()
            .find_map(|w| w.strip_prefix(key).and_then(|w| w.strip_prefix(':')))
            .ok_or_else(|| format!("expected {key}:"))?;
        u64::from_str_radix(v, 16).map_err(|_| format!("{key}: '{v}' is not a hexadecimal number"))
    };
    let ports = hex(head, "Ports")?;
    let node_guid = hex(head, "NodeGUID")?;
    let port_guid = hex(head, "PortGUID")?;
    let lid = hex(fields, "LID")?;
    let port = hex(fields, "PN")?;
    let ports = u16::try_from(ports).map_err(|_| format!("Ports: {ports:X} is out of range"))?;
    let port = u16::try_from(port)
        .ok()
        .filter(|&p| p > 0)
        .ok_or_else(|| format!("PN: {port:X} is not a port that can hold a cable (1-FFFF)"))?;
    let lid = u32::try_from(lid).map_err(|_| format!("LID: {lid:X} is out of range"))?;
    Ok((
        End {
            kind,
            node_guid,
            port_guid,
            lid,
            port,
            desc: super::ibnetdiscover::clean_text(desc),
            ports: Some(ports),
        },
        rest,
    ))
}

/// `opensm-subnet.lst` of a network: every cabled port, nodes in order.
pub fn to_string(net: &Network) -> String {
    let mut out = String::new();
    for (a, b, class) in cable_list::ends(net) {
        let (width, spd) = match cable_list::width_and_speed(&class) {
            Some((w, s)) => (format!("{w}x"), lane_rate(s)),
            None => ("4x".to_string(), "??"),
        };
        let _ = writeln!(out, "{} {} PHY={width} LOG=ACT SPD={spd}", rec(&a), rec(&b));
    }
    out
}

fn rec(e: &End) -> String {
    let kind = match e.kind {
        Kind::Switch => "SW",
        Kind::Ca => "CA",
        Kind::Router => "Rt",
    };
    format!(
        "{{ {kind} Ports:{:02X} SystemGUID:{:016x} NodeGUID:{:016x} PortGUID:{:016x} \
         VenID:000000 DevID:0000 Rev:00000000 {{{}}} LID:{:04X} PN:{:02X} }}",
        e.ports.unwrap_or(e.port),
        e.node_guid,
        e.node_guid,
        e.port_guid,
        e.desc,
        e.lid,
        e.port
    )
}

fn lane_rate(speed: &str) -> &'static str {
    match speed.to_ascii_uppercase().as_str() {
        "SDR" => "2.5",
        "DDR" => "5",
        "QDR" => "10",
        "FDR10" => "FDR10",
        "FDR" => "14",
        "EDR" => "25",
        "HDR" => "50",
        "NDR" => "100",
        "XDR" => "200",
        _ => "??",
    }
}
