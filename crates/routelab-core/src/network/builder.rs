//! Building a [`Network`]: add nodes and classes, cable ports, then freeze.

use super::{
    Channel, ChannelClass, ChannelId, ClassId, Network, Node, NodeId, NodeKind, PortAttrs, PortId,
    Structure, TopologyError, NO_CHANNEL, NO_INDEX,
};
use crate::units::{Bandwidth, Picos};

/// Mutable assembly of a network. Cabling checks ports as it goes, so a
/// port used twice or out of range is reported where it happens.
#[derive(Debug, Clone)]
pub struct NetworkBuilder {
    name: String,
    structure: Structure,
    nodes: Vec<Node>,
    classes: Vec<ChannelClass>,
    /// Cables as (a, port a, b, port b, class).
    cables: Vec<(NodeId, PortId, NodeId, PortId, ClassId)>,
    /// Per node, per port: the cable index using it (NO_INDEX if free).
    port_use: Vec<Vec<u32>>,
    port_attrs: Vec<Vec<PortAttrs>>,
    /// Ports of all nodes added so far.
    ports: u64,
}

/// Ports a network may have in all (2^26, about 67 million; the largest
/// machines have a few million). Port, cable and channel tables grow with
/// them, about [`BYTES_PER_PORT`] each: a generator asked for more fails at
/// its first cable instead of exhausting memory.
pub const MAX_PORTS: u64 = 1 << 26;

/// Memory a port takes while building and once built, in bytes (port
/// tables, half a cable, a channel and its adjacency entry).
pub const BYTES_PER_PORT: u64 = 64;

/// Refuses a network of `nodes` nodes with `ports` ports in all past
/// [`MAX_PORTS`]; generators that know their size call it before building.
pub fn check_ports(name: &str, nodes: u64, ports: u64) -> Result<(), TopologyError> {
    if ports <= MAX_PORTS {
        return Ok(());
    }
    Err(TopologyError::impossible(format!(
        "{name}: the network is too large: {nodes} nodes with {ports} ports in all, more \
         than the limit of {MAX_PORTS} ports (about {} GiB of tables at {BYTES_PER_PORT} \
         bytes a port); build a smaller one",
        (ports * BYTES_PER_PORT) >> 30,
    )))
}

/// The class names generators use for inter-switch and terminal links.
pub const SWITCH_LINK: &str = "switch";
pub const TERMINAL_LINK: &str = "terminal";
/// The class of a dragonfly's or Megafly's links between groups, so that
/// a spec can give them their own latency (optical cables, metres long).
pub const GLOBAL_LINK: &str = "global";

impl NetworkBuilder {
    pub fn new(name: impl Into<String>) -> Self {
        NetworkBuilder {
            name: name.into(),
            structure: Structure::Irregular,
            nodes: Vec::new(),
            classes: Vec::new(),
            cables: Vec::new(),
            port_use: Vec::new(),
            port_attrs: Vec::new(),
            ports: 0,
        }
    }

    /// A builder with the two default classes of generated networks:
    /// `switch` (inter-switch) and `terminal` links, both 20Gb/s and 100ns
    /// until a simulation spec says otherwise. Returns the builder and the
    /// class ids `(switch, terminal)`.
    pub fn with_default_classes(name: impl Into<String>) -> (Self, ClassId, ClassId) {
        let mut b = NetworkBuilder::new(name);
        let bw = Bandwidth(20_000_000_000);
        let lat = Picos(100_000);
        let s = b.add_class(ChannelClass::new(SWITCH_LINK, bw, lat));
        let t = b.add_class(ChannelClass::new(TERMINAL_LINK, bw, lat));
        (b, s, t)
    }

    /// A class like `like` (bandwidth and latency) named `name`.
    pub fn add_class_like(&mut self, name: &str, like: ClassId) -> ClassId {
        let c = &self.classes[like.0 as usize];
        let (bw, lat) = (c.bandwidth, c.latency);
        self.add_class(ChannelClass::new(name, bw, lat))
    }

    pub(crate) fn from_network(net: &Network) -> Self {
        let mut b = NetworkBuilder::new(net.name.clone());
        b.structure = net.structure.clone();
        b.classes = net.classes.clone();
        for (i, node) in net.nodes.iter().enumerate() {
            let id = b.push_node(node.clone());
            if !net.port_attrs.is_empty() {
                let base = net.port_base[i] as usize;
                for p in 0..node.ports as usize {
                    b.port_attrs[id.index()][p] = net.port_attrs[base + p];
                }
            }
        }
        for c in net.channels.chunks(2) {
            let ch = c[0];
            b.cables
                .push((ch.src, ch.src_port, ch.dst, ch.dst_port, ch.class));
            let idx = (b.cables.len() - 1) as u32;
            b.port_use[ch.src.index()][ch.src_port.0 as usize - 1] = idx;
            b.port_use[ch.dst.index()][ch.dst_port.0 as usize - 1] = idx;
        }
        b
    }

    pub fn set_name(&mut self, name: impl Into<String>) {
        self.name = name.into();
    }

    pub fn set_structure(&mut self, structure: Structure) {
        self.structure = structure;
    }

    pub fn add_class(&mut self, class: ChannelClass) -> ClassId {
        if let Some(i) = self.classes.iter().position(|c| *c == class) {
            return ClassId(i as u16);
        }
        self.classes.push(class);
        ClassId((self.classes.len() - 1) as u16)
    }

    /// Replaces the bandwidth and latency of the class named `name`.
    pub fn set_class(&mut self, name: &str, bandwidth: Bandwidth, latency: Picos) -> bool {
        match self.classes.iter_mut().find(|c| c.name == name) {
            Some(c) => {
                c.bandwidth = bandwidth;
                c.latency = latency;
                true
            }
            None => false,
        }
    }

    pub fn class_id(&self, name: &str) -> Option<ClassId> {
        self.classes
            .iter()
            .position(|c| c.name == name)
            .map(|i| ClassId(i as u16))
    }

    pub(crate) fn push_node(&mut self, node: Node) -> NodeId {
        self.ports += u64::from(node.ports);
        // Past the limit nothing more is allocated; the next cable fails.
        let ports = if self.ports > MAX_PORTS {
            0
        } else {
            node.ports as usize
        };
        self.port_use.push(vec![NO_INDEX; ports]);
        self.port_attrs.push(vec![PortAttrs::default(); ports]);
        self.nodes.push(node);
        NodeId((self.nodes.len() - 1) as u32)
    }

    /// Adds a node with `ports` ports and a synthetic GUID.
    pub fn add_node(&mut self, kind: NodeKind, name: impl Into<String>, ports: u16) -> NodeId {
        let guid = synthetic_guid(self.nodes.len() as u64);
        self.push_node(Node {
            kind,
            name: name.into(),
            guid,
            lid: 0,
            ports,
        })
    }

    pub fn add_switch(&mut self, name: impl Into<String>, ports: u16) -> NodeId {
        self.add_node(NodeKind::Switch, name, ports)
    }

    pub fn add_terminal(&mut self, name: impl Into<String>, ports: u16) -> NodeId {
        self.add_node(NodeKind::Terminal, name, ports)
    }

    pub fn node_count(&self) -> usize {
        self.nodes.len()
    }

    pub fn node_mut(&mut self, id: NodeId) -> &mut Node {
        &mut self.nodes[id.index()]
    }

    pub fn node(&self, id: NodeId) -> &Node {
        &self.nodes[id.index()]
    }

    pub fn set_port_attrs(
        &mut self,
        node: NodeId,
        port: PortId,
        attrs: PortAttrs,
    ) -> Result<(), TopologyError> {
        self.check_port(node, port)?;
        self.port_attrs[node.index()][port.0 as usize - 1] = attrs;
        Ok(())
    }

    /// Fails once the nodes have more ports than [`MAX_PORTS`].
    fn check_size(&self) -> Result<(), TopologyError> {
        check_ports(&self.name, self.nodes.len() as u64, self.ports)
    }

    fn check_port(&self, node: NodeId, port: PortId) -> Result<(), TopologyError> {
        self.check_size()?;
        let n = self
            .nodes
            .get(node.index())
            .ok_or_else(|| TopologyError::impossible(format!("node {} does not exist", node.0)))?;
        if port.0 == 0 || port.0 > n.ports {
            return Err(TopologyError::PortOutOfRange {
                node: n.name.clone(),
                port: port.0,
                ports: n.ports,
            });
        }
        Ok(())
    }

    /// Is this port already cabled?
    pub fn port_in_use(&self, node: NodeId, port: PortId) -> bool {
        self.port_use
            .get(node.index())
            .and_then(|v| v.get((port.0 as usize).wrapping_sub(1)))
            .is_some_and(|&u| u != NO_INDEX)
    }

    /// Cables port `pa` of `a` to port `pb` of `b`.
    pub fn connect(
        &mut self,
        a: NodeId,
        pa: PortId,
        b: NodeId,
        pb: PortId,
        class: ClassId,
    ) -> Result<(), TopologyError> {
        self.check_port(a, pa)?;
        self.check_port(b, pb)?;
        for (n, p) in [(a, pa), (b, pb)] {
            if self.port_in_use(n, p) {
                return Err(TopologyError::PortInUse {
                    node: self.nodes[n.index()].name.clone(),
                    port: p.0,
                });
            }
        }
        if a == b && pa == pb {
            return Err(TopologyError::PortInUse {
                node: self.nodes[a.index()].name.clone(),
                port: pa.0,
            });
        }
        if class.0 as usize >= self.classes.len() {
            return Err(TopologyError::impossible(format!(
                "channel class {} does not exist",
                class.0
            )));
        }
        let idx = self.cables.len() as u32;
        self.cables.push((a, pa, b, pb, class));
        self.port_use[a.index()][pa.0 as usize - 1] = idx;
        self.port_use[b.index()][pb.0 as usize - 1] = idx;
        Ok(())
    }

    /// The lowest free port of a node.
    pub fn free_port(&self, node: NodeId) -> Option<PortId> {
        self.port_use[node.index()]
            .iter()
            .position(|&u| u == NO_INDEX)
            .map(|p| PortId(p as u16 + 1))
    }

    /// Cables the lowest free port of `a` to the lowest free port of `b`.
    pub fn connect_next(
        &mut self,
        a: NodeId,
        b: NodeId,
        class: ClassId,
    ) -> Result<(), TopologyError> {
        self.check_size()?;
        let no_port = |s: &Self, n: NodeId| {
            TopologyError::impossible(format!(
                "{} has no free port left (it has {})",
                s.nodes[n.index()].name,
                s.nodes[n.index()].ports
            ))
        };
        let pa = self.free_port(a).ok_or_else(|| no_port(self, a))?;
        // Reserve pa before looking for b's port, so a self-loop gets two ports.
        self.port_use[a.index()][pa.0 as usize - 1] = u32::MAX - 1;
        let pb = self.free_port(b);
        self.port_use[a.index()][pa.0 as usize - 1] = NO_INDEX;
        let pb = pb.ok_or_else(|| no_port(self, b))?;
        self.connect(a, pa, b, pb, class)
    }

    pub fn cable_count(&self) -> usize {
        self.cables.len()
    }

    /// Freezes the network: lays out channels, port slots and CSR adjacency.
    pub fn build(self) -> Result<Network, TopologyError> {
        self.check_size()?;
        let n = self.nodes.len();
        if n > (u32::MAX - 1) as usize || self.cables.len() * 2 > (u32::MAX - 1) as usize {
            return Err(TopologyError::impossible(
                "network too large: at most 2^32 - 2 nodes and channels",
            ));
        }
        let mut port_base = Vec::with_capacity(n + 1);
        let mut total = 0u32;
        for node in &self.nodes {
            port_base.push(total);
            total += u32::from(node.ports);
        }
        port_base.push(total);

        let mut channels = Vec::with_capacity(self.cables.len() * 2);
        let mut port_channel = vec![NO_CHANNEL; total as usize];
        for &(a, pa, b, pb, class) in &self.cables {
            let id = channels.len() as u32;
            channels.push(Channel {
                src: a,
                src_port: pa,
                dst: b,
                dst_port: pb,
                class,
            });
            channels.push(Channel {
                src: b,
                src_port: pb,
                dst: a,
                dst_port: pa,
                class,
            });
            port_channel[(port_base[a.index()] + u32::from(pa.0) - 1) as usize] = id;
            port_channel[(port_base[b.index()] + u32::from(pb.0) - 1) as usize] = id + 1;
        }

        let mut out_base = Vec::with_capacity(n + 1);
        let mut out_channels = Vec::with_capacity(channels.len());
        for i in 0..n {
            out_base.push(out_channels.len() as u32);
            let slots = &port_channel[port_base[i] as usize..port_base[i + 1] as usize];
            out_channels.extend(
                slots
                    .iter()
                    .filter(|&&c| c != NO_CHANNEL)
                    .map(|&c| ChannelId(c)),
            );
        }
        out_base.push(out_channels.len() as u32);

        let mut switches = Vec::new();
        let mut terminals = Vec::new();
        let mut kind_index = Vec::with_capacity(n);
        for (i, node) in self.nodes.iter().enumerate() {
            let list = match node.kind {
                NodeKind::Switch => &mut switches,
                NodeKind::Terminal => &mut terminals,
            };
            kind_index.push(list.len() as u32);
            list.push(NodeId(i as u32));
        }

        let any_attrs = self
            .port_attrs
            .iter()
            .flatten()
            .any(|a| *a != PortAttrs::default());
        let port_attrs = if any_attrs {
            self.port_attrs.into_iter().flatten().collect()
        } else {
            Vec::new()
        };

        let shared_name = shared_names(&self.nodes);
        Ok(Network {
            name: self.name,
            structure: self.structure,
            shared_name,
            nodes: self.nodes,
            classes: self.classes,
            channels,
            port_base,
            port_channel,
            port_attrs,
            out_base,
            out_channels,
            switches,
            terminals,
            kind_index,
        })
    }
}

/// Whether another node has the same name, per node: real fabrics give every
/// switch of a model the same description ("SwitchIB Mellanox Technologies").
fn shared_names(nodes: &[Node]) -> Vec<bool> {
    let mut count: std::collections::HashMap<&str, u32> = std::collections::HashMap::new();
    for node in nodes {
        *count.entry(node.name.as_str()).or_default() += 1;
    }
    nodes.iter().map(|n| count[n.name.as_str()] > 1).collect()
}

/// GUIDs for generated nodes: a vendor prefix plus the index times 256, so
/// that an adapter's port GUIDs (its GUID plus the port number, as real
/// adapters and ibsim give them) never meet another node's GUID.
pub fn synthetic_guid(index: u64) -> u64 {
    0x0002_c900_0000_0000 | ((index + 1) << 8)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cables_become_channel_pairs() {
        let (mut b, s, t) = NetworkBuilder::with_default_classes("t");
        let sw = b.add_switch("sw", 4);
        let h0 = b.add_terminal("h0", 1);
        let h1 = b.add_terminal("h1", 1);
        b.connect(sw, PortId(3), h0, PortId(1), t).unwrap();
        b.connect_next(sw, h1, t).unwrap();
        let sw2 = b.add_switch("sw2", 2);
        b.connect_next(sw, sw2, s).unwrap();
        b.connect_next(sw, sw2, s).unwrap(); // parallel cable
        let net = b.build().unwrap();
        assert_eq!(net.cable_count(), 4);
        assert_eq!(net.channel_count(), 8);
        assert_eq!(net.degree(sw), 4);
        assert_eq!(net.switches(), &[sw, sw2]);
        assert_eq!(net.terminals(), &[h0, h1]);
        // Out channels come in port order: port 1 (h1), 2 (sw2), 3 (h0), 4 (sw2).
        let dsts: Vec<_> = net
            .out_channels(sw)
            .iter()
            .map(|&c| net.channel(c).dst)
            .collect();
        assert_eq!(dsts, vec![h1, sw2, h0, sw2]);
        for c in net.channel_ids() {
            let ch = net.channel(c);
            let r = net.channel(c.reverse());
            assert_eq!(
                (ch.src, ch.src_port, ch.dst, ch.dst_port),
                (r.dst, r.dst_port, r.src, r.src_port)
            );
            assert_eq!(net.channel_at(ch.src, ch.src_port), Some(c));
        }
    }

    #[test]
    fn port_misuse_is_reported() {
        let (mut b, _, t) = NetworkBuilder::with_default_classes("t");
        let sw = b.add_switch("sw", 2);
        let h = b.add_terminal("h", 1);
        let h2 = b.add_terminal("h2", 1);
        b.connect(sw, PortId(1), h, PortId(1), t).unwrap();
        let e = b.connect(sw, PortId(1), h2, PortId(1), t).unwrap_err();
        assert_eq!(
            e,
            TopologyError::PortInUse {
                node: "sw".into(),
                port: 1
            }
        );
        let e = b.connect(sw, PortId(3), h2, PortId(1), t).unwrap_err();
        assert!(matches!(
            e,
            TopologyError::PortOutOfRange {
                port: 3,
                ports: 2,
                ..
            }
        ));
        assert!(b.connect_next(h, h2, t).is_err());
    }
}
