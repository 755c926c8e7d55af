//! OpenSM's `guid2lid` file (its LID cache): one `0x<port GUID> <base LID>
//! <top LID>` line per port, `#` comments. Applied to a fabric, it gives
//! switches and adapter ports the LIDs the subnet really uses, so that
//! forwarding tables and lane tables written or read for the fabric use
//! them too.
//!
//! A switch is matched by its GUID (its port 0's), an adapter port by its
//! port GUID, or by the adapter's GUID for an adapter without port GUIDs.
//! Lines for GUIDs the fabric does not have are skipped, as OpenSM keeps
//! them for nodes that may come back. A malformed line, a LID outside
//! 1..=0xBFFF (the unicast range) or a top LID below the base is an error
//! naming the line; two ports given one LID is an error naming both lines.

use std::collections::HashMap;
use std::fmt::Write;

use crate::network::{Network, NodeKind, PortAttrs, PortId, TopologyError};

/// The highest unicast LID.
const MAX_UNICAST: u64 = 0xbfff;

/// `net` with the LIDs `text` gives; `origin` names the file in errors.
/// Also returns how many lines named GUIDs the fabric does not have.
///
/// A file that gives no LID to a switch or to an attached adapter (its
/// first cabled port) is refused, naming the nodes: a fabric with some of
/// the subnet's LIDs and some of its own would address the wrong nodes.
pub fn apply(net: &Network, text: &str, origin: &str) -> Result<(Network, usize), TopologyError> {
    // GUID -> (node, port; None for a switch or an adapter's node GUID).
    let mut by_guid: HashMap<u64, (crate::NodeId, Option<PortId>)> = HashMap::new();
    for id in net.node_ids() {
        let n = net.node(id);
        if n.kind == NodeKind::Switch {
            by_guid.insert(n.guid, (id, None));
        }
    }
    for id in net.node_ids() {
        let n = net.node(id);
        if n.kind == NodeKind::Terminal {
            for p in 1..=n.ports {
                by_guid.insert(net.port_guid(id, PortId(p)), (id, Some(PortId(p))));
            }
        }
    }
    // Files that name an adapter by its node GUID (older routelab output).
    for id in net.node_ids() {
        let n = net.node(id);
        if n.kind == NodeKind::Terminal {
            by_guid.entry(n.guid).or_insert((id, None));
        }
    }
    let mut b = net.to_builder();
    let mut skipped = 0;
    let mut given = vec![false; net.node_count()];
    let mut seen: HashMap<u64, usize> = HashMap::new();
    for (i, raw) in text.lines().enumerate() {
        let n = i + 1;
        let line = raw.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let bad = |why: String| TopologyError::parse(origin, n, why);
        let w: Vec<&str> = line.split_whitespace().collect();
        if w.len() != 3 {
            return Err(bad(format!(
                "expected '0x<port GUID> <base LID> <top LID>', found {} fields",
                w.len()
            )));
        }
        let guid = hex(w[0]).ok_or_else(|| {
            bad(format!(
                "'{}' is not a GUID (0x followed by hex digits)",
                clip(w[0])
            ))
        })?;
        // OpenSM writes LIDs in hex (`0x0015`); decimal reads too.
        let lid = |s: &str, what: &str| -> Result<u64, TopologyError> {
            hex(s)
                .or_else(|| s.parse::<u64>().ok())
                .filter(|&v| (1..=MAX_UNICAST).contains(&v))
                .ok_or_else(|| {
                    bad(format!(
                        "{what} LID '{}' is not in 1..=49151 (0x0001..=0xbfff)",
                        clip(s)
                    ))
                })
        };
        let (base, top) = (lid(w[1], "base")?, lid(w[2], "top")?);
        if top < base {
            return Err(bad(format!("top LID {top} is below the base LID {base}")));
        }
        let Some(&(node, port)) = by_guid.get(&guid) else {
            skipped += 1;
            continue;
        };
        if let Some(before) = seen.insert(base, n) {
            return Err(bad(format!("LID {base} is also given on line {before}")));
        }
        let lid = base as u32;
        let first = (1..=net.node(node).ports)
            .find(|&q| net.channel_at(node, PortId(q)).is_some())
            .unwrap_or(1);
        match port {
            Some(p) => {
                b.set_port_attrs(node, p, PortAttrs { guid, lid })?;
                if p.0 == first {
                    b.node_mut(node).lid = lid;
                    given[node.index()] = true;
                }
            }
            None => {
                b.node_mut(node).lid = lid;
                given[node.index()] = true;
            }
        }
    }
    let missing: Vec<String> = net
        .node_ids()
        .filter(|&id| !given[id.index()] && (net.is_switch(id) || !net.out_channels(id).is_empty()))
        .map(|id| {
            let n = net.node(id);
            let (what, guid) = match n.kind {
                NodeKind::Switch => ("switch", n.guid),
                NodeKind::Terminal => {
                    let p = (1..=n.ports)
                        .find(|&q| net.channel_at(id, PortId(q)).is_some())
                        .unwrap_or(1);
                    ("adapter", net.port_guid(id, PortId(p)))
                }
            };
            format!("{what} '{}' (port GUID {guid:#018x})", n.name)
        })
        .collect();
    if !missing.is_empty() {
        let more = if missing.len() > 3 {
            format!(" and {} more", missing.len() - 3)
        } else {
            String::new()
        };
        return Err(TopologyError::parse(
            origin,
            0,
            format!(
                "no LID for {}{more}: the file must give every switch and attached adapter \
                 of the fabric a LID (take the guid2lid of the subnet this fabric was \
                 discovered on)",
                missing[..missing.len().min(3)].join(", ")
            ),
        ));
    }
    Ok((b.build()?, skipped))
}

/// A `0x`-prefixed hexadecimal number.
fn hex(s: &str) -> Option<u64> {
    s.strip_prefix("0x")
        .or_else(|| s.strip_prefix("0X"))
        .filter(|h| !h.is_empty())
        .and_then(|h| u64::from_str_radix(h, 16).ok())
}

fn clip(s: &str) -> String {
    s.chars().take(40).collect()
}

/// The `guid2lid` lines of `net`'s own LIDs, as OpenSM writes them (LIDs in
/// hex): switches, then each cabled adapter port with a LID.
pub fn to_string(net: &Network) -> String {
    let mut out = String::new();
    for id in net.node_ids() {
        let n = net.node(id);
        let mut ports: Vec<(u64, u32)> = Vec::new();
        if n.kind == NodeKind::Terminal {
            for p in 1..=n.ports {
                if let Some(a) = net.port_attrs(id, PortId(p)) {
                    ports.push((net.port_guid(id, PortId(p)), a.lid));
                } else if n.lid != 0 && ports.is_empty() && net.channel_at(id, PortId(p)).is_some()
                {
                    ports.push((net.port_guid(id, PortId(p)), n.lid));
                }
            }
        }
        if ports.is_empty() {
            ports.push((n.guid, n.lid));
        }
        for (guid, lid) in ports.into_iter().filter(|&(_, l)| l != 0) {
            let _ = writeln!(out, "0x{guid:016x} 0x{lid:04x} 0x{lid:04x}");
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::network::io::ibnetdiscover;

    const SMALL: &str = include_str!("../../../../../examples/fabrics/small.ibnet");

    #[test]
    fn lids_move_to_what_the_file_says() {
        let net = ibnetdiscover::from_str(SMALL, "small").unwrap();
        // Renumber: every LID + 100, plus a stale line.
        let moved: String = to_string(&net)
            .lines()
            .map(|l| {
                let w: Vec<&str> = l.split_whitespace().collect();
                let lid = u32::from_str_radix(&w[1][2..], 16).unwrap();
                format!("{} 0x{:04x} 0x{:04x}\n", w[0], lid + 100, lid + 100)
            })
            .collect::<String>()
            + "0x00000000deadbeef 0x0007 0x0007 # gone\n";
        let (back, skipped) = apply(&net, &moved, "guid2lid").unwrap();
        assert_eq!(skipped, 1);
        for id in net.node_ids() {
            assert_eq!(
                back.node(id).lid,
                net.node(id).lid + 100,
                "{}",
                net.node(id).name
            );
        }
        let storage = back.find("storage01 mlx5_0").unwrap();
        assert_eq!(back.port_attrs(storage, PortId(2)).unwrap().lid, 108);
        assert_eq!(
            to_string(&back),
            moved.replace("0x00000000deadbeef 0x0007 0x0007 # gone\n", "")
        );
    }

    #[test]
    fn bad_lines_are_named() {
        let net = ibnetdiscover::from_str(SMALL, "small").unwrap();
        let ok = to_string(&net);
        let first = ok.lines().next().unwrap().to_string();
        let guid = first.split_whitespace().next().unwrap();
        for (text, word) in [
            (format!("{guid} 1\n"), "2 fields"),
            (format!("{guid} 0 0\n"), "1..=49151"),
            (format!("{guid} 5 4\n"), "below"),
            ("zz 1 1\n".to_string(), "GUID"),
            (format!("{ok}{guid} 1 1\n"), "also given"),
        ] {
            let e = apply(&net, &text, "g").unwrap_err().to_string();
            assert!(e.contains("g:") && e.contains(word), "{text}: {e}");
        }
    }

    #[test]
    fn opensm_hex_lids_read() {
        // As OpenSM writes its cache: LIDs in hex, a blank line after each.
        let net = ibnetdiscover::from_str(SMALL, "small").unwrap();
        let text: String = to_string(&net)
            .lines()
            .map(|l| {
                let w: Vec<&str> = l.split_whitespace().collect();
                let lid = u32::from_str_radix(&w[1][2..], 16).unwrap() + 0x15;
                format!("{} 0x{lid:04x} 0x{lid:04x}\n\n", w[0])
            })
            .collect();
        let (back, skipped) = apply(&net, &text, "guid2lid").unwrap();
        assert_eq!(skipped, 0);
        for id in net.node_ids() {
            assert_eq!(back.node(id).lid, net.node(id).lid + 0x15);
        }
    }

    #[test]
    fn a_missing_node_is_named() {
        let net = ibnetdiscover::from_str(SMALL, "small").unwrap();
        let full = to_string(&net);
        let first = full.lines().next().unwrap();
        let guid = first.split_whitespace().next().unwrap();
        let short: String = full.lines().skip(1).map(|l| format!("{l}\n")).collect();
        let e = apply(&net, &short, "g").unwrap_err().to_string();
        assert!(e.contains("no LID for") && e.contains(&guid[2..]), "{e}");
    }

    #[test]
    fn generated_adapters_are_known_by_their_port_guids() {
        let net = crate::network::spec::build("kary-ntree:k=2,n=2").unwrap();
        let h0 = net.find("h0").unwrap();
        assert_eq!(net.port_guid(h0, PortId(1)), net.node(h0).guid + 1);
        let text: String = net
            .node_ids()
            .enumerate()
            .map(|(i, id)| {
                let g = if net.is_switch(id) {
                    net.node(id).guid
                } else {
                    net.port_guid(id, PortId(1))
                };
                format!("0x{g:016x} 0x{:04x} 0x{:04x}\n", i + 1, i + 1)
            })
            .collect();
        let (back, _) = apply(&net, &text, "g").unwrap();
        assert_eq!(back.node(h0).lid, h0.index() as u32 + 1);
    }
}
