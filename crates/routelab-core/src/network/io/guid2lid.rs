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
pub fn apply(net: &Network, text: &str, origin: &str) -> Result<(Network, usize), TopologyError> {
    // GUID -> (node, port; None for a switch or a port-less adapter GUID).
    let mut by_guid: HashMap<u64, (crate::NodeId, Option<PortId>)> = HashMap::new();
    for id in net.node_ids() {
        let n = net.node(id);
        match n.kind {
            NodeKind::Switch => {
                by_guid.insert(n.guid, (id, None));
            }
            NodeKind::Terminal => {
                by_guid.entry(n.guid).or_insert((id, None));
                for p in 1..=n.ports {
                    if let Some(a) = net.port_attrs(id, PortId(p)) {
                        by_guid.insert(a.guid, (id, Some(PortId(p))));
                    }
                }
            }
        }
    }
    let mut b = net.to_builder();
    let mut skipped = 0;
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
        let guid = w[0]
            .strip_prefix("0x")
            .or_else(|| w[0].strip_prefix("0X"))
            .and_then(|h| u64::from_str_radix(h, 16).ok())
            .ok_or_else(|| {
                bad(format!(
                    "'{}' is not a GUID (0x followed by hex digits)",
                    clip(w[0])
                ))
            })?;
        let lid = |s: &str, what: &str| -> Result<u64, TopologyError> {
            s.parse::<u64>()
                .ok()
                .filter(|&v| (1..=MAX_UNICAST).contains(&v))
                .ok_or_else(|| bad(format!("{what} LID '{}' is not in 1..=49151", clip(s))))
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
        match port {
            Some(p) => {
                b.set_port_attrs(node, p, PortAttrs { guid, lid })?;
                let first = (1..=net.node(node).ports)
                    .find(|&q| net.channel_at(node, PortId(q)).is_some())
                    .unwrap_or(1);
                if p.0 == first {
                    b.node_mut(node).lid = lid;
                }
            }
            None => b.node_mut(node).lid = lid,
        }
    }
    Ok((b.build()?, skipped))
}

fn clip(s: &str) -> String {
    s.chars().take(40).collect()
}

/// The `guid2lid` lines of `net`'s own LIDs: switches, then each adapter
/// port with a LID (or the adapter, without port identities).
pub fn to_string(net: &Network) -> String {
    let mut out = String::new();
    for id in net.node_ids() {
        let n = net.node(id);
        let mut ports: Vec<(u64, u32)> = Vec::new();
        if n.kind == NodeKind::Terminal {
            for p in 1..=n.ports {
                if let Some(a) = net.port_attrs(id, PortId(p)) {
                    ports.push((a.guid, a.lid));
                }
            }
        }
        if ports.is_empty() {
            ports.push((n.guid, n.lid));
        }
        for (guid, lid) in ports.into_iter().filter(|&(_, l)| l != 0) {
            let _ = writeln!(out, "0x{guid:016x} {lid} {lid}");
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
                let lid: u32 = w[1].parse().unwrap();
                format!("{} {} {}\n", w[0], lid + 100, lid + 100)
            })
            .collect::<String>()
            + "0x00000000deadbeef 7 7 # gone\n";
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
            moved.replace("0x00000000deadbeef 7 7 # gone\n", "")
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
}
