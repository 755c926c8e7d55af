//! Same fabric, same tables: engines whose choices follow the order of
//! nodes and cables (first found, lowest id on a tie) route a canonical
//! copy of the network and carry the routes back, so that a fabric gives
//! the same tables whichever file it was read from (`.json`,
//! `opensm-subnet.lst`, ibnetdiscover) and however that file lists it.
//!
//! The canonical copy numbers the nodes by GUID (ties, such as GUID 0, in
//! their original order) and the cables from their lower (node, port) end,
//! sorted by that end, each running from that end. Structure metadata is
//! dropped: the engines that use it (DOR, D-mod-k) do not come here.

use super::{Routes, RoutingError};
use crate::network::{ChannelId, Network, NetworkBuilder, NodeId, PortId};

/// A network renumbered canonically, with the maps back to the original:
/// `node[i]` is the original node of canonical node `i`, `channel[c]` the
/// original channel of canonical channel `c`.
pub(crate) struct Canonical {
    pub net: Network,
    pub node: Vec<NodeId>,
    pub channel: Vec<ChannelId>,
    /// Canonical node of each original node.
    pub new_of_old: Vec<NodeId>,
}

/// A cable by its canonical ends: (node, port) at each end, the original
/// channel leaving the first end, the class.
type CableKey = ((u32, u16), (u32, u16), usize, u16);

/// The canonical copy of `net`, or `None` when `net` already is canonical.
pub(crate) fn canonical(net: &Network) -> Result<Option<Canonical>, RoutingError> {
    let n = net.node_count();
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by_key(|&i| (net.node(NodeId(i as u32)).guid, i));
    let mut new_of_old = vec![NodeId(0); n];
    for (new, &old) in order.iter().enumerate() {
        new_of_old[old] = NodeId(new as u32);
    }
    // Cables as (lower end, upper end, original channel from the lower end,
    // class).
    let mut cables: Vec<CableKey> = (0..net.cable_count())
        .map(|c| {
            let ch = net.channel(ChannelId(2 * c as u32));
            let a = (new_of_old[ch.src.index()].0, ch.src_port.0);
            let b = (new_of_old[ch.dst.index()].0, ch.dst_port.0);
            if a <= b {
                (a, b, 2 * c, ch.class.0)
            } else {
                (b, a, 2 * c + 1, ch.class.0)
            }
        })
        .collect();
    let nodes_sorted = order.iter().enumerate().all(|(i, &o)| i == o);
    let cables_sorted = cables.windows(2).all(|w| w[0].0 < w[1].0)
        && cables.iter().enumerate().all(|(c, k)| k.2 == 2 * c);
    if nodes_sorted && cables_sorted {
        return Ok(None);
    }
    cables.sort_unstable_by_key(|k| k.0);
    let mut b = NetworkBuilder::new(net.name());
    for class in net.classes() {
        b.add_class(class.clone());
    }
    for &old in &order {
        let node = net.node(NodeId(old as u32));
        let id = b.add_node(node.kind, node.name.clone(), node.ports);
        *b.node_mut(id) = node.clone();
        for p in 1..=node.ports {
            if let Some(a) = net.port_attrs(NodeId(old as u32), PortId(p)) {
                b.set_port_attrs(id, PortId(p), a)
                    .map_err(|e| mismatch(e.to_string()))?;
            }
        }
    }
    let mut channel = Vec::with_capacity(net.channel_count());
    for &(a, z, old, class) in &cables {
        b.connect(
            NodeId(a.0),
            PortId(a.1),
            NodeId(z.0),
            PortId(z.1),
            crate::network::ClassId(class),
        )
        .map_err(|e| mismatch(e.to_string()))?;
        channel.push(ChannelId(old as u32));
        channel.push(ChannelId((old ^ 1) as u32));
    }
    let canon = b.build().map_err(|e| mismatch(e.to_string()))?;
    Ok(Some(Canonical {
        net: canon,
        node: order.iter().map(|&o| NodeId(o as u32)).collect(),
        channel,
        new_of_old,
    }))
}

fn mismatch(what: String) -> RoutingError {
    RoutingError::Mismatch {
        what: format!("canonical copy of the network: {what}"),
    }
}

/// Routes `net` with `route` on its canonical copy and carries the routes
/// back. `route` gets the network to route and a function that turns a
/// node option (a switch's name, GUID or index in `net`) into one that
/// names the same node in the network it routes.
pub(crate) fn by_guid(
    net: &Network,
    route: impl FnOnce(&Network, &dyn Fn(&str) -> String) -> Result<Routes, RoutingError>,
) -> Result<Routes, RoutingError> {
    match canonical(net)? {
        None => route(net, &|s: &str| s.to_string()),
        Some(c) => {
            let node_option = |s: &str| -> String {
                // Names and GUIDs survive; an index names another node.
                let t = s.trim();
                match t.parse::<usize>() {
                    Ok(i) if i < net.node_count() && net.find(t).is_none() => {
                        c.new_of_old[i].index().to_string()
                    }
                    _ => s.to_string(),
                }
            };
            let r = route(&c.net, &node_option)?;
            Ok(r.renumbered(&c.net, net, &c.node, &c.channel))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::network::spec;
    use crate::routing::{self, RoutingOptions};

    /// `net` with its nodes in reverse order and its cables reversed and
    /// turned around: the same fabric, listed otherwise.
    fn listed_otherwise(net: &Network) -> Network {
        let n = net.node_count();
        let mut b = NetworkBuilder::new(net.name());
        for class in net.classes() {
            b.add_class(class.clone());
        }
        for i in (0..n).rev() {
            let node = net.node(NodeId(i as u32));
            let id = b.add_node(node.kind, node.name.clone(), node.ports);
            *b.node_mut(id) = node.clone();
        }
        let new = |x: NodeId| NodeId((n - 1 - x.index()) as u32);
        for c in (0..net.cable_count()).rev() {
            let ch = net.channel(ChannelId(2 * c as u32 + 1));
            b.connect(new(ch.src), ch.src_port, new(ch.dst), ch.dst_port, ch.class)
                .unwrap();
        }
        b.build().unwrap()
    }

    #[test]
    fn a_fabric_listed_otherwise_gets_the_same_tables() {
        for spec_text in [
            "random:switches=12,ports=8,hosts=3,seed=1",
            "kary-ntree:k=4,n=3",
            "torus:4x4",
        ] {
            let net = spec::build(spec_text).unwrap();
            let other = listed_otherwise(&net);
            for engine in ["sssp", "dfsssp", "nue", "dnup", "updown"] {
                let o = RoutingOptions::default();
                let (a, b) = (
                    routing::route(&net, engine, &o),
                    routing::route(&other, engine, &o),
                );
                let (a, b) = match (a, b) {
                    (Ok(a), Ok(b)) => (a, b),
                    (Err(_), Err(_)) => continue,
                    (a, b) => panic!("{engine} on {spec_text}: {a:?} / {b:?}"),
                };
                // Every entry and pair lane, by node names.
                let by_name = |net: &Network, r: &Routes| {
                    let name = |x: NodeId| net.node(x).name.clone();
                    let mut rows: Vec<(String, String, Option<u16>)> = Vec::new();
                    for (i, &x) in net.switches().iter().enumerate() {
                        for (d, &h) in net.terminals().iter().enumerate() {
                            rows.push((name(x), name(h), r.port(i, d).map(|p| p.0)));
                        }
                    }
                    for (s, &h) in net.terminals().iter().enumerate() {
                        for (d, &g) in net.terminals().iter().enumerate() {
                            rows.push((name(h), name(g), Some(u16::from(r.lane(s, d)))));
                        }
                    }
                    rows.sort();
                    rows
                };
                assert!(
                    by_name(&net, &a) == by_name(&other, &b),
                    "{engine} on {spec_text}"
                );
            }
        }
    }
}
