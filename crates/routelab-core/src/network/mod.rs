//! The network layer: an immutable topology model, its generators, file
//! formats and metrics.
//!
//! A [`Network`] holds switches and terminals (hosts/NICs). A cable joins two
//! ports and is two unidirectional channels; channel `2c` runs from the cable's
//! first end to its second and `2c + 1` back, so the reverse of a channel is
//! `id ^ 1`. Each channel has a class carrying bandwidth and latency.
//! Ports are numbered from 1, as on InfiniBand hardware. Outgoing channels
//! are stored CSR-style per node in port order.

pub mod build;
mod builder;
mod error;
pub mod io;
pub mod metrics;
pub mod recognise;
pub mod spec;
mod structure;

pub use builder::NetworkBuilder;
pub use error::TopologyError;
pub use structure::{with_article, GlobalArrangement, Structure};

use crate::units::{Bandwidth, Picos};
use serde::{Deserialize, Serialize};
use std::borrow::Cow;

/// A switch or terminal.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct NodeId(pub u32);

/// A physical port number, starting at 1 (0 is a switch's management port).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct PortId(pub u16);

/// A unidirectional channel.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct ChannelId(pub u32);

/// A channel class (bandwidth and latency shared by many channels).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct ClassId(pub u16);

impl NodeId {
    #[inline]
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

impl ChannelId {
    #[inline]
    pub fn index(self) -> usize {
        self.0 as usize
    }
    /// The channel running the other way on the same cable.
    #[inline]
    pub fn reverse(self) -> ChannelId {
        ChannelId(self.0 ^ 1)
    }
    /// The cable this channel belongs to.
    #[inline]
    pub fn cable(self) -> usize {
        (self.0 >> 1) as usize
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum NodeKind {
    Switch,
    Terminal,
}

/// A switch or terminal and its identity. `guid` and `lid` are InfiniBand
/// identifiers (0 when unknown); generated networks get synthetic ones.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Node {
    pub kind: NodeKind,
    pub name: String,
    pub guid: u64,
    pub lid: u32,
    pub ports: u16,
}

/// Bandwidth and latency shared by a group of channels.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChannelClass {
    pub name: String,
    pub bandwidth: Bandwidth,
    pub latency: Picos,
}

impl ChannelClass {
    pub fn new(name: &str, bandwidth: Bandwidth, latency: Picos) -> Self {
        ChannelClass {
            name: name.to_string(),
            bandwidth,
            latency,
        }
    }
}

/// A unidirectional channel from `src`/`src_port` to `dst`/`dst_port`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Channel {
    pub src: NodeId,
    pub src_port: PortId,
    pub dst: NodeId,
    pub dst_port: PortId,
    pub class: ClassId,
}

/// Per-port InfiniBand identity, kept so imported fabrics survive export.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PortAttrs {
    pub guid: u64,
    pub lid: u32,
}

pub(crate) const NO_CHANNEL: u32 = u32::MAX;
pub(crate) const NO_INDEX: u32 = u32::MAX;

/// An immutable network. Build one with a generator ([`spec::build`]), a
/// reader ([`io`]) or a [`NetworkBuilder`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Network {
    pub(crate) name: String,
    pub(crate) structure: Structure,
    pub(crate) nodes: Vec<Node>,
    pub(crate) classes: Vec<ChannelClass>,
    pub(crate) channels: Vec<Channel>,
    /// Global slot of port 1 of each node; `len = nodes + 1`.
    pub(crate) port_base: Vec<u32>,
    /// Outgoing channel per port slot, or `NO_CHANNEL`.
    pub(crate) port_channel: Vec<u32>,
    /// Per port slot; empty when no port carries its own identity.
    pub(crate) port_attrs: Vec<PortAttrs>,
    /// CSR of outgoing channels per node, in port order.
    pub(crate) out_base: Vec<u32>,
    pub(crate) out_channels: Vec<ChannelId>,
    pub(crate) switches: Vec<NodeId>,
    pub(crate) terminals: Vec<NodeId>,
    /// Position of a node in `switches` or `terminals`.
    pub(crate) kind_index: Vec<u32>,
    /// Per node: another node has the same name (see [`Network::label`]).
    pub(crate) shared_name: Vec<bool>,
}

impl Network {
    /// A short name: the spec it was built from or the file it was read from.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The regular structure the network was generated with, if any.
    pub fn structure(&self) -> &Structure {
        &self.structure
    }

    pub fn node_count(&self) -> usize {
        self.nodes.len()
    }

    pub fn node(&self, id: NodeId) -> &Node {
        &self.nodes[id.index()]
    }

    pub fn nodes(&self) -> &[Node] {
        &self.nodes
    }

    pub fn node_ids(&self) -> impl ExactSizeIterator<Item = NodeId> {
        (0..self.nodes.len() as u32).map(NodeId)
    }

    pub fn is_switch(&self, id: NodeId) -> bool {
        self.nodes[id.index()].kind == NodeKind::Switch
    }

    pub fn is_terminal(&self, id: NodeId) -> bool {
        self.nodes[id.index()].kind == NodeKind::Terminal
    }

    /// Switches in id order.
    pub fn switches(&self) -> &[NodeId] {
        &self.switches
    }

    /// Terminals in id order; traffic patterns index into this list.
    pub fn terminals(&self) -> &[NodeId] {
        &self.terminals
    }

    /// The terminal with index `t` (as patterns number them).
    pub fn terminal(&self, t: usize) -> NodeId {
        self.terminals[t]
    }

    /// Index of a terminal in [`Network::terminals`] or of a switch in
    /// [`Network::switches`].
    pub fn kind_index(&self, id: NodeId) -> usize {
        self.kind_index[id.index()] as usize
    }

    pub fn classes(&self) -> &[ChannelClass] {
        &self.classes
    }

    pub fn class(&self, id: ClassId) -> &ChannelClass {
        &self.classes[id.0 as usize]
    }

    pub fn channel_count(&self) -> usize {
        self.channels.len()
    }

    pub fn cable_count(&self) -> usize {
        self.channels.len() / 2
    }

    pub fn channel(&self, id: ChannelId) -> &Channel {
        &self.channels[id.index()]
    }

    pub fn channels(&self) -> &[Channel] {
        &self.channels
    }

    pub fn channel_ids(&self) -> impl ExactSizeIterator<Item = ChannelId> {
        (0..self.channels.len() as u32).map(ChannelId)
    }

    /// Outgoing channels of a node, in port order.
    #[inline]
    pub fn out_channels(&self, id: NodeId) -> &[ChannelId] {
        let i = id.index();
        &self.out_channels[self.out_base[i] as usize..self.out_base[i + 1] as usize]
    }

    /// Number of cabled ports of a node.
    #[inline]
    pub fn degree(&self, id: NodeId) -> usize {
        let i = id.index();
        (self.out_base[i + 1] - self.out_base[i]) as usize
    }

    /// Neighbours of a node (one entry per cable, so parallel cables repeat).
    pub fn neighbors(&self, id: NodeId) -> impl Iterator<Item = NodeId> + '_ {
        self.out_channels(id)
            .iter()
            .map(move |&c| self.channels[c.index()].dst)
    }

    /// The channel leaving `node` through `port`, if that port is cabled.
    pub fn channel_at(&self, node: NodeId, port: PortId) -> Option<ChannelId> {
        let slot = self.port_slot(node, port)?;
        let c = self.port_channel[slot];
        (c != NO_CHANNEL).then_some(ChannelId(c))
    }

    /// Per-port identity (GUID, LID) of an imported fabric, if recorded.
    pub fn port_attrs(&self, node: NodeId, port: PortId) -> Option<PortAttrs> {
        let slot = self.port_slot(node, port)?;
        self.port_attrs
            .get(slot)
            .copied()
            .filter(|a| *a != PortAttrs::default())
    }

    /// The GUID `port` of `node` shows on the subnet: its own when recorded,
    /// else a switch's GUID (all its ports share it), or for an adapter its
    /// node GUID plus the port number, as adapters and ibsim number them
    /// (node GUID `...00`, port 1 `...01`). 0 for a node without a GUID.
    pub fn port_guid(&self, node: NodeId, port: PortId) -> u64 {
        if let Some(a) = self.port_attrs(node, port) {
            if a.guid != 0 {
                return a.guid;
            }
        }
        let n = &self.nodes[node.index()];
        match n.kind {
            NodeKind::Terminal if n.guid != 0 => n.guid.wrapping_add(u64::from(port.0)),
            _ => n.guid,
        }
    }

    fn port_slot(&self, node: NodeId, port: PortId) -> Option<usize> {
        let i = node.index();
        if i >= self.nodes.len() || port.0 == 0 || port.0 > self.nodes[i].ports {
            return None;
        }
        Some(self.port_base[i] as usize + port.0 as usize - 1)
    }

    /// The switch a terminal hangs off (its first cabled port's peer), if any.
    pub fn attached_switch(&self, terminal: NodeId) -> Option<NodeId> {
        self.neighbors(terminal).find(|&n| self.is_switch(n))
    }

    /// Finds a node by name.
    pub fn find(&self, name: &str) -> Option<NodeId> {
        self.nodes
            .iter()
            .position(|n| n.name == name)
            .map(|i| NodeId(i as u32))
    }

    /// A node as messages, paths and reports show it: its name, with its
    /// GUID beside it when another node has the same name (every switch of
    /// a real fabric may be "SwitchIB Mellanox Technologies").
    pub fn label(&self, id: NodeId) -> Cow<'_, str> {
        let node = &self.nodes[id.index()];
        if !self.shared_name[id.index()] {
            Cow::Borrowed(&node.name)
        } else if node.guid != 0 {
            Cow::Owned(format!("{} (GUID {:#018x})", node.name, node.guid))
        } else {
            Cow::Owned(format!("{} (node {})", node.name, id.0))
        }
    }

    /// Finds a node by its name, if no other node has it, or by its GUID
    /// (`0x0002c90300a1b2c3`, or `S-`/`H-` and the hex digits as
    /// ibnetdiscover writes it). The error says what matched instead.
    pub fn find_node(&self, text: &str) -> Result<NodeId, String> {
        let named: Vec<usize> = (0..self.nodes.len())
            .filter(|&i| self.nodes[i].name == text)
            .collect();
        match named[..] {
            [i] => return Ok(NodeId(i as u32)),
            [] => {}
            _ => {
                let guids: Vec<String> = named
                    .iter()
                    .take(4)
                    .map(|&i| format!("{:#018x}", self.nodes[i].guid))
                    .collect();
                return Err(format!(
                    "{} nodes are named '{text}'; give a GUID instead (such as {}{})",
                    named.len(),
                    guids.join(", "),
                    if named.len() > 4 { ", ..." } else { "" }
                ));
            }
        }
        let t = text.trim();
        let hex = t
            .strip_prefix("0x")
            .or_else(|| t.strip_prefix("0X"))
            .or_else(|| t.strip_prefix("S-"))
            .or_else(|| t.strip_prefix("H-"));
        if let Some(guid) = hex.and_then(|h| u64::from_str_radix(h, 16).ok()) {
            if guid != 0 {
                if let Some(i) = self.nodes.iter().position(|n| n.guid == guid) {
                    return Ok(NodeId(i as u32));
                }
            }
            return Err(format!("no node has GUID {guid:#018x}"));
        }
        Err(format!("no node is named '{text}'"))
    }

    /// Re-opens the network as a builder (e.g. to attach other classes).
    pub fn to_builder(&self) -> NetworkBuilder {
        NetworkBuilder::from_network(self)
    }
}
