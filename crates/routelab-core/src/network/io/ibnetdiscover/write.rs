//! Writing a [`Network`] as ibnetdiscover text, laid out as ibnetdiscover
//! prints it so that ibsim and scripts written for the real tool read it.
//!
//! What the plain format has no place for (the network name, class
//! bandwidth and latency) goes into `# routelab` comment lines, which
//! other tools skip and the reader here uses.

use std::collections::HashMap;
use std::fmt::{self, Write};

use super::line::is_token;
use super::read::clean;
use crate::network::{Network, NodeId, NodeKind, PortId};

/// The ibnetdiscover text of a network.
pub(crate) fn write(net: &Network) -> String {
    let mut out = String::with_capacity(128 * net.channel_count() + 1024);
    // Writing to a String cannot fail.
    let _ = write_to(net, &mut out);
    out
}

/// One speed word per class: its name when that is a single safe word,
/// else the name with the offending characters replaced, made unique.
fn class_tokens(net: &Network) -> Vec<String> {
    let mut used: HashMap<String, u32> = HashMap::new();
    let mut tokens = Vec::with_capacity(net.classes().len());
    for class in net.classes() {
        let base: String = if is_token(&class.name) {
            class.name.clone()
        } else {
            let t: String = class
                .name
                .chars()
                .map(|c| {
                    let bad = c.is_whitespace()
                        || c.is_control()
                        || matches!(c, '"' | '#' | '=' | '[' | ']' | '(' | ')');
                    if bad {
                        '_'
                    } else {
                        c
                    }
                })
                .collect();
            if is_token(&t) {
                t
            } else {
                format!("{t}_class")
            }
        };
        let mut token = base.clone();
        while used.contains_key(&token) {
            let k = used.entry(base.clone()).or_insert(1);
            *k += 1;
            token = format!("{base}_{k}");
        }
        used.insert(token.clone(), 1);
        tokens.push(token);
    }
    tokens
}

/// Node ids: `S-<guid>` / `H-<guid>` as ibnetdiscover makes them, with the
/// node index appended when GUIDs repeat so that ids stay unique.
fn node_ids(net: &Network) -> Vec<String> {
    let mut count: HashMap<u64, u32> = HashMap::new();
    for n in net.nodes() {
        *count.entry(n.guid).or_insert(0) += 1;
    }
    net.nodes()
        .iter()
        .enumerate()
        .map(|(i, n)| {
            let prefix = match n.kind {
                NodeKind::Switch => 'S',
                NodeKind::Terminal => 'H',
            };
            if count[&n.guid] == 1 {
                format!("{prefix}-{:016x}", n.guid)
            } else {
                format!("{prefix}-{:016x}-{i}", n.guid)
            }
        })
        .collect()
}

/// The GUID and LID a port shows: its own if recorded, else its node's.
fn port_identity(net: &Network, node: NodeId, port: PortId) -> (u64, u32) {
    let lid = match net.port_attrs(node, port) {
        Some(a) => a.lid,
        None => net.node(node).lid,
    };
    (net.port_guid(node, port), lid)
}

fn write_to(net: &Network, out: &mut String) -> fmt::Result {
    let tokens = class_tokens(net);
    let ids = node_ids(net);
    let descs: Vec<String> = net.nodes().iter().map(|n| clean(&n.name)).collect();
    writeln!(out, "#\n# Topology file: written by routelab\n#")?;
    writeln!(out, "# routelab network {}", clean(net.name()))?;
    for (class, token) in net.classes().iter().zip(&tokens) {
        writeln!(
            out,
            "# routelab class {token} {} {}",
            class.bandwidth, class.latency
        )?;
    }
    for id in net.node_ids() {
        let node = net.node(id);
        let i = id.index();
        let guid = node.guid;
        writeln!(out)?;
        match node.kind {
            NodeKind::Switch => {
                writeln!(out, "switchguid=0x{guid:x}({guid:x})")?;
                writeln!(
                    out,
                    "Switch\t{} \"{}\"\t\t# \"{}\" enhanced port 0 lid {} lmc 0",
                    node.ports, ids[i], descs[i], node.lid
                )?;
            }
            NodeKind::Terminal => {
                writeln!(out, "caguid=0x{guid:x}")?;
                writeln!(
                    out,
                    "Ca\t{} \"{}\"\t\t# \"{}\"",
                    node.ports, ids[i], descs[i]
                )?;
            }
        }
        for p in 1..=node.ports {
            let Some(c) = net.channel_at(id, PortId(p)) else {
                continue;
            };
            let ch = net.channel(c);
            let (r, rp) = (ch.dst, ch.dst_port);
            let remote = net.node(r);
            let (rguid, rlid) = match remote.kind {
                NodeKind::Switch => (remote.guid, remote.lid),
                NodeKind::Terminal => port_identity(net, r, rp),
            };
            let token = &tokens[ch.class.0 as usize];
            // ibsim reads a width and speed here: a class that is not one
            // gets the nearest, followed by its own word.
            let token = if super::speed::data_rate(token).is_some() {
                token.clone()
            } else {
                format!(
                    "{} {token}",
                    super::speed::nearest_word(net.classes()[ch.class.0 as usize].bandwidth)
                )
            };
            let rid = &ids[r.index()];
            let rdesc = &descs[r.index()];
            match node.kind {
                NodeKind::Switch => write!(out, "[{p}]\t\"{rid}\"[{}]", rp.0)?,
                NodeKind::Terminal => {
                    let (pguid, _) = port_identity(net, id, PortId(p));
                    write!(out, "[{p}]({pguid:x}) \t\"{rid}\"[{}]", rp.0)?;
                }
            }
            if remote.kind == NodeKind::Terminal {
                let space = if node.kind == NodeKind::Terminal {
                    " "
                } else {
                    ""
                };
                write!(out, "{space}({rguid:x}) ")?;
            }
            match node.kind {
                NodeKind::Switch => writeln!(out, "\t\t# \"{rdesc}\" lid {rlid} {token}")?,
                NodeKind::Terminal => {
                    let (_, plid) = port_identity(net, id, PortId(p));
                    writeln!(out, "\t\t# lid {plid} lmc 0 \"{rdesc}\" lid {rlid} {token}")?;
                }
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::network::{ChannelClass, NetworkBuilder};
    use crate::units::{Bandwidth, Picos};

    #[test]
    fn awkward_class_names_become_unique_words() {
        let mut b = NetworkBuilder::new("t");
        for name in ["a b", "a_b", "a b", "lid", "", "4xQDR"] {
            b.add_class(ChannelClass::new(
                name,
                Bandwidth(name.len() as u64 + 1),
                Picos(0),
            ));
        }
        let net = b.build().unwrap();
        let tokens = class_tokens(&net);
        assert_eq!(tokens, ["a_b", "a_b_2", "lid_class", "_class", "4xQDR"]);
    }

    #[test]
    fn repeated_guids_get_distinct_ids() {
        let mut b = NetworkBuilder::new("t");
        let a = b.add_switch("a", 1);
        let c = b.add_switch("c", 1);
        b.node_mut(a).guid = 7;
        b.node_mut(c).guid = 7;
        let net = b.build().unwrap();
        assert_eq!(
            node_ids(&net),
            ["S-0000000000000007-0", "S-0000000000000007-1"]
        );
    }
}
