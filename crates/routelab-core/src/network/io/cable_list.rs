//! Fabric files that list cables, one line per cable end with both ends'
//! identities (`ibnetdiscover -p`, `opensm-subnet.lst`), read by turning
//! them into ibnetdiscover text for the one reader that builds networks.
//!
//! Each format's parser yields [`Link`]s; [`to_network`] groups their ends
//! into nodes, checks that no port is cabled twice (naming both lines of
//! the file), writes the node sections, and maps any error of the reader
//! back to the line of the original file.

use std::collections::hash_map::Entry;
use std::collections::HashMap;

use super::ibnetdiscover;
use crate::network::{Network, NodeKind, PortId, TopologyError};

/// The kind of a node as these files print it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Kind {
    Switch,
    Ca,
    Router,
}

/// One end of a link: who it is and which port.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct End {
    pub kind: Kind,
    /// The node's GUID: what groups ends into one node.
    pub node_guid: u64,
    pub port_guid: u64,
    /// The port's LID (a switch's: that of its port 0); 0 when unassigned.
    pub lid: u32,
    pub port: u16,
    pub desc: String,
    /// The node's port count when the file states it.
    pub ports: Option<u16>,
}

impl End {
    fn key(&self) -> (Kind, u64, &str) {
        (self.kind, self.node_guid, self.desc.as_str())
    }
}

/// A cable seen from `a`, with its speed word (`4xEDR`) when known and
/// the 1-based line of the file that lists it.
#[derive(Debug, Clone)]
pub(crate) struct Link {
    pub a: End,
    pub b: End,
    pub speed: Option<String>,
    pub line: usize,
}

struct NodeAcc {
    kind: Kind,
    guid: u64,
    desc: String,
    lid: u32,
    ports: u16,
    /// Port -> (remote node, remote port, speed, line).
    cabled: HashMap<u16, (usize, u16, Option<String>, usize)>,
    port_guids: HashMap<u16, (u64, u32)>,
}

/// The network the links describe. `origin` names the file in errors.
pub(crate) fn to_network(links: &[Link], origin: &str) -> Result<Network, TopologyError> {
    let mut nodes: Vec<NodeAcc> = Vec::new();
    let mut index: HashMap<(Kind, u64, String), usize> = HashMap::new();
    let mut node_of = |e: &End, nodes: &mut Vec<NodeAcc>| -> usize {
        let key = e.key();
        let i = *index
            .entry((key.0, key.1, key.2.to_string()))
            .or_insert_with(|| {
                nodes.push(NodeAcc {
                    kind: e.kind,
                    guid: e.node_guid,
                    desc: e.desc.clone(),
                    lid: 0,
                    ports: 0,
                    cabled: HashMap::new(),
                    port_guids: HashMap::new(),
                });
                nodes.len() - 1
            });
        let n = &mut nodes[i];
        n.ports = n.ports.max(e.port).max(e.ports.unwrap_or(0));
        if e.kind == Kind::Switch && e.lid != 0 {
            n.lid = e.lid;
        }
        n.port_guids.insert(e.port, (e.port_guid, e.lid));
        i
    };
    for link in links {
        let a = node_of(&link.a, &mut nodes);
        let b = node_of(&link.b, &mut nodes);
        if a == b && link.a.port == link.b.port {
            return Err(TopologyError::parse(
                origin,
                link.line,
                format!(
                    "port {} of '{}' is cabled to itself",
                    link.a.port, link.a.desc
                ),
            ));
        }
        for (x, px, y, py) in [
            (a, link.a.port, b, link.b.port),
            (b, link.b.port, a, link.a.port),
        ] {
            let desc = nodes[x].desc.clone();
            let remote = nodes[y].desc.clone();
            match nodes[x].cabled.entry(px) {
                Entry::Vacant(v) => {
                    v.insert((y, py, link.speed.clone(), link.line));
                }
                Entry::Occupied(o) => {
                    let &(y0, py0, _, line0) = o.get();
                    if (y0, py0) != (y, py) {
                        let before = nodes[y0].desc.clone();
                        return Err(TopologyError::parse(
                            origin,
                            link.line,
                            format!(
                                "port {px} of '{desc}' is cabled to port {py} of '{remote}' here \
                                 but to port {py0} of '{before}' on line {line0}"
                            ),
                        ));
                    }
                }
            }
        }
    }
    let ids = node_ids(&nodes);
    let mut text = String::new();
    // lines[k]: the line of the original file behind line k + 1 of `text`.
    let mut lines: Vec<usize> = Vec::new();
    let emit = |text: &mut String, lines: &mut Vec<usize>, line: usize, s: String| {
        text.push_str(&s);
        text.push('\n');
        lines.push(line);
    };
    let quote = ibnetdiscover::clean_text;
    for (i, n) in nodes.iter().enumerate() {
        let first = n.cabled.values().map(|c| c.3).min().unwrap_or(0);
        emit(&mut text, &mut lines, first, String::new());
        let header = match n.kind {
            Kind::Switch | Kind::Router => {
                let kw = if n.kind == Kind::Switch {
                    "Switch"
                } else {
                    "Rt"
                };
                let guid_kw = if n.kind == Kind::Switch {
                    "switchguid"
                } else {
                    "rtguid"
                };
                emit(
                    &mut text,
                    &mut lines,
                    first,
                    format!("{guid_kw}=0x{:x}", n.guid),
                );
                let lid = if n.lid != 0 {
                    format!(" port 0 lid {} lmc 0", n.lid)
                } else {
                    String::new()
                };
                format!(
                    "{kw}\t{} \"{}\"\t\t# \"{}\"{lid}",
                    n.ports,
                    ids[i],
                    quote(&n.desc)
                )
            }
            Kind::Ca => {
                emit(
                    &mut text,
                    &mut lines,
                    first,
                    format!("caguid=0x{:x}", n.guid),
                );
                format!("Ca\t{} \"{}\"\t\t# \"{}\"", n.ports, ids[i], quote(&n.desc))
            }
        };
        emit(&mut text, &mut lines, first, header);
        let mut ports: Vec<_> = n.cabled.iter().collect();
        ports.sort_by_key(|(p, _)| **p);
        for (&p, (r, rp, speed, line)) in ports {
            let remote = &nodes[*r];
            let (rguid, rlid) = remote.port_guids.get(rp).copied().unwrap_or((0, 0));
            let rlid = if remote.kind == Kind::Ca {
                rlid
            } else {
                remote.lid
            };
            let speed = speed.as_deref().unwrap_or("");
            let rid = &ids[*r];
            let rdesc = quote(&remote.desc);
            let rg = if remote.kind == Kind::Ca {
                format!("({rguid:x}) ")
            } else {
                String::new()
            };
            let rlid = if rlid != 0 {
                format!(" lid {rlid}")
            } else {
                String::new()
            };
            let s = if n.kind == Kind::Ca {
                let (pg, plid) = n.port_guids.get(&p).copied().unwrap_or((0, 0));
                let own = if plid != 0 {
                    format!("lid {plid} lmc 0 ")
                } else {
                    String::new()
                };
                format!("[{p}]({pg:x}) \t\"{rid}\"[{rp}]{rg}\t\t# {own}\"{rdesc}\"{rlid} {speed}")
            } else {
                format!("[{p}]\t\"{rid}\"[{rp}]{rg}\t\t# \"{rdesc}\"{rlid} {speed}")
            };
            emit(&mut text, &mut lines, *line, s);
        }
    }
    ibnetdiscover::from_str(&text, origin).map_err(|e| match e {
        TopologyError::Parse { file, line, reason } => TopologyError::Parse {
            file,
            line: line
                .checked_sub(1)
                .and_then(|k| lines.get(k))
                .copied()
                .unwrap_or(0),
            reason,
        },
        other => other,
    })
}

/// `S-<guid>` / `H-<guid>` / `R-<guid>`, with the node's index appended
/// where GUIDs repeat.
fn node_ids(nodes: &[NodeAcc]) -> Vec<String> {
    let mut count: HashMap<u64, u32> = HashMap::new();
    for n in nodes {
        *count.entry(n.guid).or_insert(0) += 1;
    }
    nodes
        .iter()
        .enumerate()
        .map(|(i, n)| {
            let prefix = match n.kind {
                Kind::Switch => 'S',
                Kind::Ca => 'H',
                Kind::Router => 'R',
            };
            if count[&n.guid] == 1 {
                format!("{prefix}-{:016x}", n.guid)
            } else {
                format!("{prefix}-{:016x}-{i}", n.guid)
            }
        })
        .collect()
}

/// One cable end of `net` as these files show it: `(kind, node GUID, port
/// GUID, LID, description)`. A switch's ports share its GUID and LID.
pub(crate) fn identity(net: &Network, node: crate::NodeId, port: PortId) -> End {
    let n = net.node(node);
    let port_guid = net.port_guid(node, port);
    let lid = match (n.kind, net.port_attrs(node, port)) {
        (NodeKind::Terminal, Some(a)) => a.lid,
        _ => n.lid,
    };
    End {
        kind: match n.kind {
            NodeKind::Switch => Kind::Switch,
            NodeKind::Terminal => Kind::Ca,
        },
        node_guid: n.guid,
        port_guid,
        lid,
        port: port.0,
        desc: ibnetdiscover::clean_text(&n.name),
        ports: Some(n.ports),
    }
}

/// Every cable end of `net` with its remote end and speed word, in node
/// and port order: what the writers of these formats print.
pub(crate) fn ends(net: &Network) -> Vec<(End, End, String)> {
    let mut out = Vec::new();
    for id in net.node_ids() {
        for p in 1..=net.node(id).ports {
            let Some(c) = net.channel_at(id, PortId(p)) else {
                continue;
            };
            let ch = net.channel(c);
            let speed = net.class(ch.class).name.clone();
            out.push((
                identity(net, id, PortId(p)),
                identity(net, ch.dst, ch.dst_port),
                speed,
            ));
        }
    }
    out
}

/// Splits a speed word such as `4xEDR` into width and speed, if it is one.
pub(crate) fn width_and_speed(word: &str) -> Option<(&str, &str)> {
    ibnetdiscover::data_rate(word)?;
    word.split_once(['x', 'X'])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn end(kind: Kind, guid: u64, port: u16, desc: &str) -> End {
        End {
            kind,
            node_guid: guid,
            port_guid: guid + u64::from(port),
            lid: 0,
            port,
            desc: desc.into(),
            ports: None,
        }
    }

    #[test]
    fn a_port_cabled_twice_names_both_lines() {
        let s = |p| end(Kind::Switch, 0x10, p, "sw");
        let links = vec![
            Link {
                a: s(1),
                b: end(Kind::Ca, 0x20, 1, "h1"),
                speed: None,
                line: 3,
            },
            Link {
                a: s(1),
                b: end(Kind::Ca, 0x30, 1, "h2"),
                speed: None,
                line: 7,
            },
        ];
        let e = to_network(&links, "f").unwrap_err().to_string();
        assert!(e.contains("f:7") || e.contains("line 7"), "{e}");
        assert!(
            e.contains("line 3") && e.contains("h1") && e.contains("h2"),
            "{e}"
        );
    }

    #[test]
    fn both_listings_of_a_cable_make_one_cable() {
        let sw = |p| end(Kind::Switch, 0x10, p, "sw");
        let h = end(Kind::Ca, 0x20, 1, "h");
        let links = vec![
            Link {
                a: sw(1),
                b: h.clone(),
                speed: Some("4xEDR".into()),
                line: 1,
            },
            Link {
                a: h,
                b: sw(1),
                speed: Some("4xEDR".into()),
                line: 2,
            },
        ];
        let net = to_network(&links, "f").unwrap();
        assert_eq!((net.node_count(), net.cable_count()), (2, 1));
        assert_eq!(net.classes()[0].name, "4xEDR");
    }
}
