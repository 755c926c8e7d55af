//! LIDs for route files: InfiniBand addresses every switch and terminal
//! port by a 16-bit local identifier, and LFT dumps and lane tables are
//! keyed by them.
//!
//! [`assign_lids`] is the one place that decides them:
//! - a fabric whose switches and terminals all carry distinct unicast LIDs
//!   (`1..=0xBFFF`; e.g. read from ibnetdiscover) keeps them, and the LIDs
//!   of a terminal's other ports ([`Network::port_attrs`]) name that
//!   terminal too;
//! - any other network (generated ones have LID 0) gets LIDs in node order
//!   by kind: switches `1..=S` in [`Network::switches`] order, then
//!   terminals `S + 1..=S + T` in [`Network::terminals`] order, then the
//!   other cabled ports of multi-homed terminals, in terminal and port
//!   order (every port that sends has a LID, as a subnet manager gives
//!   it). More than 49,151 LIDs do not fit in the unicast range.
//!
//! A terminal's own LID (its first entry) is that of its lowest cabled port,
//! the port it injects through.

use super::super::RoutingError;
use crate::network::{Network, NodeId, NodeKind, PortId};

/// The highest unicast LID.
pub const MAX_UNICAST_LID: u16 = 0xBFFF;

/// One LID in use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LidEntry {
    pub lid: u16,
    pub node: NodeId,
    /// The GUID of the port the LID belongs to (a switch: its node GUID).
    pub port_guid: u64,
    /// Is it the node's own LID (not that of another terminal port)?
    pub primary: bool,
    /// The terminal port the LID belongs to (`None` for a switch, whose
    /// LID is that of its management port 0). Traffic to this LID must
    /// leave the fabric through the switch port cabled to it.
    pub port: Option<PortId>,
}

/// The LIDs of a network. See the module docs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lids {
    /// Per node: its own LID.
    lid: Vec<u16>,
    /// Every LID in use, sorted by LID.
    entries: Vec<LidEntry>,
    from_fabric: bool,
}

impl Lids {
    /// The own LID of a switch or terminal.
    pub fn lid(&self, node: NodeId) -> u16 {
        self.lid[node.index()]
    }

    /// The LID entry of `lid`, if some node has it.
    pub fn lookup(&self, lid: u16) -> Option<LidEntry> {
        self.entries
            .binary_search_by_key(&lid, |e| e.lid)
            .ok()
            .map(|i| self.entries[i])
    }

    /// Every LID in use, sorted.
    pub fn entries(&self) -> &[LidEntry] {
        &self.entries
    }

    /// The highest LID in use (0 for an empty network).
    pub fn max_lid(&self) -> u16 {
        self.entries.last().map_or(0, |e| e.lid)
    }

    /// Were the fabric's own LIDs used (rather than assigned)?
    pub fn from_fabric(&self) -> bool {
        self.from_fabric
    }
}

/// The LIDs of `net`'s switches and terminals. See the module docs.
pub fn assign_lids(net: &Network) -> Result<Lids, RoutingError> {
    if let Some(lids) = fabric_lids(net) {
        return Ok(lids);
    }
    let others: Vec<(NodeId, PortId)> = net
        .terminals()
        .iter()
        .flat_map(|&t| {
            let own = own_port(net, t);
            net.out_channels(t)
                .iter()
                .map(move |&c| (t, net.channel(c).src_port))
                .filter(move |&(_, p)| Some(p) != own)
        })
        .collect();
    let count = net.switches().len() + net.terminals().len() + others.len();
    if count > usize::from(MAX_UNICAST_LID) {
        return Err(RoutingError::BeyondLidSpace {
            network: net.name().to_string(),
            count,
            max: MAX_UNICAST_LID,
        });
    }
    let mut lid = vec![0u16; net.node_count()];
    let mut entries = Vec::with_capacity(count);
    for (i, &node) in net.switches().iter().chain(net.terminals()).enumerate() {
        let l = (i + 1) as u16;
        lid[node.index()] = l;
        entries.push(LidEntry {
            lid: l,
            node,
            port_guid: own_port_guid(net, node),
            primary: true,
            port: own_port(net, node),
        });
    }
    for (node, port) in others {
        let l = (entries.len() + 1) as u16;
        entries.push(LidEntry {
            lid: l,
            node,
            // Recorded, else the node GUID plus the port, as ibsim gives it.
            port_guid: net.port_guid(node, port),
            primary: false,
            port: Some(port),
        });
    }
    Ok(Lids {
        lid,
        entries,
        from_fabric: false,
    })
}

/// The lowest cabled port of a node.
fn first_port(net: &Network, node: NodeId) -> Option<PortId> {
    net.out_channels(node)
        .first()
        .map(|&c| net.channel(c).src_port)
}

/// The port a node's own LID belongs to: a terminal's lowest cabled port.
fn own_port(net: &Network, node: NodeId) -> Option<PortId> {
    if net.is_terminal(node) {
        first_port(net, node)
    } else {
        None
    }
}

/// The GUID of the port a node's own LID belongs to.
fn own_port_guid(net: &Network, node: NodeId) -> u64 {
    let n = net.node(node);
    if n.kind == NodeKind::Terminal {
        if let Some(p) = first_port(net, node) {
            return net.port_guid(node, p);
        }
    }
    n.guid
}

/// The fabric's own LIDs, if every switch and terminal has a distinct one.
fn fabric_lids(net: &Network) -> Option<Lids> {
    let valid = |l: u32| (1..=u32::from(MAX_UNICAST_LID)).contains(&l);
    let mut lid = vec![0u16; net.node_count()];
    let mut entries = Vec::new();
    for &node in net.switches().iter().chain(net.terminals()) {
        let n = net.node(node);
        if !valid(n.lid) {
            return None;
        }
        lid[node.index()] = n.lid as u16;
        entries.push(LidEntry {
            lid: n.lid as u16,
            node,
            port_guid: own_port_guid(net, node),
            primary: true,
            port: own_port(net, node),
        });
        if n.kind == NodeKind::Terminal {
            for &c in net.out_channels(node) {
                let port = net.channel(c).src_port;
                let Some(a) = net.port_attrs(node, port) else {
                    continue;
                };
                if a.lid != 0 && a.lid != n.lid && valid(a.lid) {
                    entries.push(LidEntry {
                        lid: a.lid as u16,
                        node,
                        port_guid: net.port_guid(node, port),
                        primary: false,
                        port: Some(port),
                    });
                }
            }
        }
    }
    entries.sort_by_key(|e| e.lid);
    if entries.windows(2).any(|w| w[0].lid == w[1].lid) {
        return None;
    }
    Some(Lids {
        lid,
        entries,
        from_fabric: true,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::network::spec;

    #[test]
    fn generated_networks_get_switches_then_terminals() {
        let net = spec::build("torus:3,c=2").unwrap();
        let lids = assign_lids(&net).unwrap();
        assert!(!lids.from_fabric());
        assert_eq!(lids.lid(net.switches()[0]), 1);
        assert_eq!(lids.lid(net.switches()[2]), 3);
        assert_eq!(lids.lid(net.terminal(0)), 4);
        assert_eq!(lids.lid(net.terminal(5)), 9);
        assert_eq!(lids.max_lid(), 9);
        assert_eq!(lids.lookup(4).unwrap().node, net.terminal(0));
        assert_eq!(lids.lookup(10), None);
        assert_eq!(lids.lookup(0), None);
    }

    #[test]
    fn too_many_nodes_for_the_unicast_range() {
        let net = crate::network::build::crossbar(49_151).unwrap();
        let e = assign_lids(&net).unwrap_err().to_string();
        assert!(e.contains("at most 49151") && e.contains("49152"), "{e}");
        let net = crate::network::build::crossbar(49_150).unwrap();
        assert_eq!(assign_lids(&net).unwrap().max_lid(), MAX_UNICAST_LID);
    }

    #[test]
    fn duplicate_fabric_lids_are_replaced() {
        let mut b = spec::build("crossbar:2").unwrap().to_builder();
        for (i, l) in [5, 6, 6].into_iter().enumerate() {
            b.node_mut(NodeId(i as u32)).lid = l;
        }
        let net = b.build().unwrap();
        let lids = assign_lids(&net).unwrap();
        assert!(!lids.from_fabric());
        assert_eq!(lids.lid(NodeId(2)), 3);
    }
}
