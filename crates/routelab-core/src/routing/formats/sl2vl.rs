//! OpenSM's `opensm-sl2vl.dump`: the SL-to-VL table of every port pair of
//! every node, what decides the virtual lane of each hop on a real
//! subnet. Read with a lane table whose lanes are service levels, it lets
//! the deadlock check see the VLs packets really use ([`LaneRule::SlToVl`]).
//!
//! ```text
//! Switch 0x0002c902004a0950, base LID 1, "leaf-1"
//! #in out : 0  1  2  3  4  5  6  7  8  9  10 11 12 13 14 15
//! #--------------------------------------------------------
//! 0   1   : 0  1  2  3  4  5  6  7  0  1  2  3  4  5  6  15
//! 1   2   : 0  1  2  3  4  5  6  7  0  1  2  3  4  5  6  15
//! #--------------------------------------------------------
//!
//! Channel Adapter 0xe41d2d0300a1b2c1, base LID 3, "node01 mlx5_0"
//! ...
//! 0   0   : 0  1  2  3  4  5  6  7  0  1  2  3  4  5  6  15
//! ```
//!
//! A section starts with the node type (`Switch`, `Channel Adapter`,
//! `Router`), the port GUID (a switch's: its own GUID), the base LID and
//! the description; each row gives the input and output port, then the VL
//! of SL 0 to 15. An adapter's single row (`0 0`) maps the SLs it injects
//! on that port. Sections are found by GUID, else by LID; a section for
//! no node of the fabric, a port a node does not have, or a VL above 15 is
//! an error naming the line. Nodes and port pairs the file leaves out keep
//! SL `i` on VL `i`.

use super::lids::assign_lids;
use super::{clip, parse_error, parse_number};
use crate::network::{Network, NodeId, NodeKind, PortId};
use crate::routing::{RoutingError, SlToVl};
use std::fmt::Write;

/// Reads `opensm-sl2vl.dump` for `net`.
pub fn read_sl2vl(net: &Network, text: &str, origin: &str) -> Result<SlToVl, RoutingError> {
    let lids = assign_lids(net)?;
    let mut by_guid: std::collections::HashMap<u64, (NodeId, Option<PortId>)> =
        std::collections::HashMap::new();
    let mut by_lid: std::collections::HashMap<u32, (NodeId, Option<PortId>)> =
        std::collections::HashMap::new();
    for e in lids.entries() {
        by_guid.insert(e.port_guid, (e.node, e.port));
        by_lid.insert(u32::from(e.lid), (e.node, e.port));
    }
    let mut out = SlToVl::new(net);
    // The node of the current section, and the adapter port it is for.
    let mut section: Option<(NodeId, Option<PortId>)> = None;
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    for (i, raw) in text.lines().enumerate() {
        let n = i + 1;
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let kind = ["Switch", "Channel Adapter", "Router"]
            .into_iter()
            .find(|k| line.starts_with(k));
        if let Some(kind) = kind {
            section =
                Some(header(line, kind, &by_guid, &by_lid).map_err(|r| parse_error(origin, n, r))?);
            continue;
        }
        let Some((node, ca_port)) = section else {
            return Err(parse_error(
                origin,
                n,
                format!(
                    "'{}' comes before any node header (Switch 0x..., base LID N, \"...\")",
                    clip(line)
                ),
            ));
        };
        let (ports, vls) = line
            .split_once(':')
            .ok_or_else(|| parse_error(origin, n, "expected 'in out : vl0 .. vl15'"))?;
        let mut p = ports.split_whitespace();
        let ports_of = net.node(node).ports;
        let mut port = |what: &str| -> Result<u16, RoutingError> {
            p.next()
                .and_then(|w| parse_number(w, u64::from(ports_of)))
                .map(|v| v as u16)
                .ok_or_else(|| {
                    parse_error(
                        origin,
                        n,
                        format!("expected the {what} port, 0..={ports_of} for this node"),
                    )
                })
        };
        let (inp, outp) = (port("input")?, port("output")?);
        let mut table = [0u8; 16];
        let words: Vec<&str> = vls.split_whitespace().collect();
        if words.len() != 16 {
            return Err(parse_error(
                origin,
                n,
                format!("expected 16 VLs (SL 0 to 15), found {}", words.len()),
            ));
        }
        for (sl, w) in words.iter().enumerate() {
            table[sl] = parse_number(w, 15).map(|v| v as u8).ok_or_else(|| {
                parse_error(
                    origin,
                    n,
                    format!("VL of SL {sl}: '{}' is not 0..=15", clip(w)),
                )
            })?;
        }
        // An adapter's row maps the SLs it sends out of its own port.
        let key = match (net.node(node).kind, ca_port) {
            (NodeKind::Terminal, Some(port)) => (node.0, 0, port.0),
            (NodeKind::Terminal, None) => (node.0, 0, first_port(net, node)),
            _ => (node.0, inp, outp),
        };
        out.tables.insert(key, table);
    }
    Ok(out)
}

fn first_port(net: &Network, node: NodeId) -> u16 {
    (1..=net.node(node).ports)
        .find(|&p| net.channel_at(node, PortId(p)).is_some())
        .unwrap_or(1)
}

type Index = std::collections::HashMap<u64, (NodeId, Option<PortId>)>;
type LidIndex = std::collections::HashMap<u32, (NodeId, Option<PortId>)>;

/// `Switch 0x..., base LID N, "desc"`: the node it names.
fn header(
    line: &str,
    kind: &str,
    by_guid: &Index,
    by_lid: &LidIndex,
) -> Result<(NodeId, Option<PortId>), String> {
    let rest = line[kind.len()..].trim_start();
    let guid_word = rest.split([',', ' ']).next().unwrap_or("");
    let guid = parse_number(guid_word, u64::MAX)
        .ok_or_else(|| format!("expected the port GUID (0x...) after '{kind}'"))?;
    let lid = rest
        .split_once("base LID")
        .and_then(|(_, r)| r.trim_start().split([',', ' ']).next())
        .and_then(|w| parse_number(w, 0xffff))
        .map(|v| v as u32);
    by_guid
        .get(&guid)
        .or_else(|| lid.and_then(|l| by_lid.get(&l)))
        .copied()
        .ok_or_else(|| {
            format!(
                "no node of the fabric has port GUID 0x{guid:016x}{}",
                lid.map(|l| format!(" or LID {l}")).unwrap_or_default()
            )
        })
}

/// `opensm-sl2vl.dump` of `table` for `net`: every switch's rows for each
/// pair of cabled ports (and port 0), and each adapter port's row.
pub fn write_sl2vl(net: &Network, table: &SlToVl) -> Result<String, RoutingError> {
    let lids = assign_lids(net)?;
    let mut out = String::new();
    let rule = "#--------------------------------------------------------";
    let row = |t: &[u8; 16]| -> String { t.iter().map(|v| format!(" {v:<2}")).collect() };
    let identity: [u8; 16] = std::array::from_fn(|i| i as u8);
    for e in lids.entries() {
        let node = net.node(e.node);
        let (kind, ports): (&str, Vec<(u16, u16)>) = match (node.kind, e.port) {
            (NodeKind::Switch, _) => {
                let cabled: Vec<u16> = (1..=node.ports)
                    .filter(|&p| net.channel_at(e.node, PortId(p)).is_some())
                    .collect();
                let mut pairs = Vec::new();
                for &o in &cabled {
                    for i in std::iter::once(0).chain(cabled.iter().copied()) {
                        pairs.push((i, o));
                    }
                }
                ("Switch", pairs)
            }
            (NodeKind::Terminal, port) => (
                "Channel Adapter",
                vec![(0, port.map_or_else(|| first_port(net, e.node), |p| p.0))],
            ),
        };
        let _ = writeln!(
            out,
            "{kind} 0x{:016x}, base LID {}, \"{}\"\n#in out : 0  1  2  3  4  5  6  7  8  9  10 11 12 13 14 15\n{rule}",
            e.port_guid,
            e.lid,
            super::one_line(&node.name)
        );
        for (i, o) in ports {
            let key = match node.kind {
                NodeKind::Terminal => (e.node.0, 0, o),
                NodeKind::Switch => (e.node.0, i, o),
            };
            let t = table.tables.get(&key).unwrap_or(&identity);
            let (i, o) = if node.kind == NodeKind::Terminal {
                (0, 0)
            } else {
                (i, o)
            };
            let _ = writeln!(out, "{i:<3} {o:<3} :{}", row(t));
        }
        let _ = writeln!(out, "{rule}\n");
    }
    Ok(out)
}
