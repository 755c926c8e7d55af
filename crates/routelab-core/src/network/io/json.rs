//! routelab's own JSON format: everything a [`Network`] holds, so a round
//! trip gives an equal network. The schema (version 1) is documented in
//! `docs/formats.md`:
//!
//! ```json
//! {
//!   "format": "routelab-network",
//!   "version": 1,
//!   "name": "torus:4x4",
//!   "structure": {"family": "torus", "dims": [4, 4], "wrap": true, "concentration": 1},
//!   "classes": [{"name": "switch", "bandwidth": "20Gb/s", "latency": "100ns"}],
//!   "nodes": [{"kind": "switch", "name": "s0.0", "guid": "0x0002c90000000100", "lid": 0, "ports": 5}],
//!   "cables": [[0, 1, 1, 2, 0]]
//! }
//! ```
//!
//! A cable is `[a, port_a, b, port_b, class]` with node and class indices;
//! its first channel runs from `a` to `b`. Reading goes through
//! [`NetworkBuilder`], so its checks (ports in range, each port cabled once)
//! apply to files too.

use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt::Write;

use super::super::{
    ChannelClass, ClassId, Network, NetworkBuilder, NodeId, NodeKind, PortAttrs, PortId, Structure,
    TopologyError,
};
use crate::units::{Bandwidth, Picos};

/// The value of `"format"`.
pub const FORMAT: &str = "routelab-network";
/// The schema version this code writes and reads.
pub const VERSION: u64 = 1;

/// Declared ports may add up to this many, or one per byte of the file.
const PORT_BUDGET: u64 = 1 << 20;

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Doc {
    format: String,
    version: u64,
    name: String,
    #[serde(default = "irregular")]
    structure: Structure,
    classes: Vec<ClassDoc>,
    nodes: Vec<NodeDoc>,
    cables: Vec<[u64; 5]>,
}

fn irregular() -> Structure {
    Structure::Irregular
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct ClassDoc {
    name: String,
    bandwidth: BandwidthText,
    latency: LatencyText,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct NodeDoc {
    kind: NodeKind,
    name: String,
    guid: Guid,
    lid: u32,
    ports: u16,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    port_attrs: Vec<PortDoc>,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct PortDoc {
    port: u16,
    guid: Guid,
    lid: u32,
}

/// Only what decides whether the rest can be read.
#[derive(Deserialize)]
struct Probe {
    format: Option<serde_json::Value>,
    version: Option<serde_json::Value>,
}

/// A GUID as a hex string, `"0x0002c90000000001"`.
struct Guid(u64);

impl Serialize for Guid {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&format!("0x{:016x}", self.0))
    }
}

impl<'de> Deserialize<'de> for Guid {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        let hex = s
            .strip_prefix("0x")
            .or_else(|| s.strip_prefix("0X"))
            .unwrap_or(&s);
        if hex.is_empty() || hex.len() > 16 || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(D::Error::custom(format!(
                "GUID '{s}' is not 1 to 16 hexadecimal digits such as \"0x0002c90000000001\""
            )));
        }
        u64::from_str_radix(hex, 16)
            .map(Guid)
            .map_err(D::Error::custom)
    }
}

/// A bandwidth as its string, `"20Gb/s"`.
struct BandwidthText(Bandwidth);

impl Serialize for BandwidthText {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.0.to_string())
    }
}

impl<'de> Deserialize<'de> for BandwidthText {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        Bandwidth::parse(&s)
            .map(BandwidthText)
            .map_err(D::Error::custom)
    }
}

/// A latency as its string, `"100ns"`.
struct LatencyText(Picos);

impl Serialize for LatencyText {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.0.to_string())
    }
}

impl<'de> Deserialize<'de> for LatencyText {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        Picos::parse(&s).map(LatencyText).map_err(D::Error::custom)
    }
}

/// The JSON text of a network: one class, node or cable per line, so that
/// files diff well and stay readable.
pub fn to_string(net: &Network) -> String {
    let mut out = String::with_capacity(64 * (net.node_count() + net.cable_count()) + 256);
    // Writing to a String cannot fail.
    let _ = writeln!(out, "{{");
    let _ = writeln!(out, "  \"format\": {},", json(&FORMAT));
    let _ = writeln!(out, "  \"version\": {VERSION},");
    let _ = writeln!(out, "  \"name\": {},", json(&net.name()));
    let _ = writeln!(out, "  \"structure\": {},", json(net.structure()));
    let classes: Vec<String> = net
        .classes()
        .iter()
        .map(|c| {
            json(&ClassDoc {
                name: c.name.clone(),
                bandwidth: BandwidthText(c.bandwidth),
                latency: LatencyText(c.latency),
            })
        })
        .collect();
    list(&mut out, "classes", &classes, true);
    let nodes: Vec<String> = net
        .node_ids()
        .map(|id| {
            let n = net.node(id);
            let port_attrs = (1..=n.ports)
                .filter_map(|p| {
                    net.port_attrs(id, PortId(p)).map(|a| PortDoc {
                        port: p,
                        guid: Guid(a.guid),
                        lid: a.lid,
                    })
                })
                .collect();
            json(&NodeDoc {
                kind: n.kind,
                name: n.name.clone(),
                guid: Guid(n.guid),
                lid: n.lid,
                ports: n.ports,
                port_attrs,
            })
        })
        .collect();
    list(&mut out, "nodes", &nodes, true);
    let cables: Vec<String> = net
        .channels()
        .chunks(2)
        .map(|c| {
            let c = c[0];
            format!(
                "[{}, {}, {}, {}, {}]",
                c.src.0, c.src_port.0, c.dst.0, c.dst_port.0, c.class.0
            )
        })
        .collect();
    list(&mut out, "cables", &cables, false);
    let _ = writeln!(out, "}}");
    out
}

/// One part of a document, compact. Plain data cannot fail to serialise.
fn json<T: Serialize + ?Sized>(value: &T) -> String {
    serde_json::to_string(value).unwrap_or_else(|_| "null".into())
}

fn list(out: &mut String, key: &str, items: &[String], comma: bool) {
    let end = if comma { "," } else { "" };
    if items.is_empty() {
        let _ = writeln!(out, "  \"{key}\": []{end}");
        return;
    }
    let _ = writeln!(out, "  \"{key}\": [");
    for (i, item) in items.iter().enumerate() {
        let sep = if i + 1 < items.len() { "," } else { "" };
        let _ = writeln!(out, "    {item}{sep}");
    }
    let _ = writeln!(out, "  ]{end}");
}

/// A JSON error without serde's position suffix, and its line.
fn json_error(file: &str, e: &serde_json::Error) -> TopologyError {
    let msg = e.to_string();
    let reason = match msg.rfind(" at line ") {
        Some(i) => format!("{} (column {})", &msg[..i], e.column()),
        None => msg,
    };
    TopologyError::parse(file, e.line(), reason)
}

/// Reads routelab JSON. `origin` names the file in errors. Errors found
/// while reading carry the line; those found after (a cable naming a node
/// that does not exist, a port cabled twice) carry line 0 and name the item.
pub fn from_str(text: &str, origin: &str) -> Result<Network, TopologyError> {
    let probe: Probe = serde_json::from_str(text).map_err(|e| json_error(origin, &e))?;
    let whole = |reason: String| TopologyError::parse(origin, 0, reason);
    match probe.format {
        Some(serde_json::Value::String(f)) if f == FORMAT => {}
        Some(f) => {
            return Err(whole(format!(
                "\"format\" is {f}, not \"{FORMAT}\": this is not a routelab network file"
            )))
        }
        None => {
            return Err(whole(format!(
                "no \"format\": \"{FORMAT}\" key: this is not a routelab network file"
            )))
        }
    }
    match probe.version {
        Some(v) if v.as_u64() == Some(VERSION) => {}
        Some(v) => {
            return Err(whole(format!(
                "unsupported version {v}: this routelab reads version {VERSION}; \
                 a newer routelab may read it"
            )))
        }
        None => return Err(whole(format!("no \"version\" key (expected {VERSION})"))),
    }
    let doc: Doc = serde_json::from_str(text).map_err(|e| json_error(origin, &e))?;
    build(doc, text.len(), &whole).and_then(|net| super::not_empty(net, origin))
}

fn build(
    doc: Doc,
    text_len: usize,
    whole: &dyn Fn(String) -> TopologyError,
) -> Result<Network, TopologyError> {
    if doc.classes.len() > usize::from(u16::MAX) {
        return Err(whole(format!(
            "{} classes: at most {}",
            doc.classes.len(),
            u16::MAX
        )));
    }
    let budget = PORT_BUDGET.max(text_len as u64);
    let declared: u64 = doc.nodes.iter().map(|n| u64::from(n.ports)).sum();
    if declared > budget {
        return Err(whole(format!(
            "the nodes declare {declared} ports in all: at most {budget} \
             ({PORT_BUDGET} or one per byte of the file)"
        )));
    }
    if doc.nodes.len() >= (u32::MAX - 1) as usize {
        return Err(whole("too many nodes".into()));
    }
    let mut b = NetworkBuilder::new(doc.name);
    b.set_structure(doc.structure);
    let class_count = doc.classes.len();
    for (i, c) in doc.classes.into_iter().enumerate() {
        let class = ChannelClass::new(&c.name, c.bandwidth.0, c.latency.0);
        if b.add_class(class).0 as usize != i {
            return Err(whole(format!(
                "classes[{i}] repeats an earlier class exactly; each class must differ"
            )));
        }
    }
    for (i, n) in doc.nodes.into_iter().enumerate() {
        let id = b.add_node(n.kind, n.name, n.ports);
        let node = b.node_mut(id);
        node.guid = n.guid.0;
        node.lid = n.lid;
        for (j, a) in n.port_attrs.into_iter().enumerate() {
            let attrs = PortAttrs {
                guid: a.guid.0,
                lid: a.lid,
            };
            b.set_port_attrs(id, PortId(a.port), attrs)
                .map_err(|e| whole(format!("nodes[{i}].port_attrs[{j}]: {e}")))?;
        }
    }
    let node_count = b.node_count() as u64;
    for (i, &[a, pa, nb, pb, class]) in doc.cables.iter().enumerate() {
        let at = |what: String| whole(format!("cables[{i}]: {what}"));
        for n in [a, nb] {
            if n >= node_count {
                return Err(at(format!(
                    "node {n} does not exist (there are {node_count} nodes)"
                )));
            }
        }
        for p in [pa, pb] {
            if p == 0 || p > u64::from(u16::MAX) {
                return Err(at(format!("port {p} does not exist: ports are 1..=65535")));
            }
        }
        if class >= class_count as u64 {
            return Err(at(format!(
                "class {class} does not exist (there are {class_count} classes)"
            )));
        }
        b.connect(
            NodeId(a as u32),
            PortId(pa as u16),
            NodeId(nb as u32),
            PortId(pb as u16),
            ClassId(class as u16),
        )
        .map_err(|e| at(e.to_string()))?;
    }
    b.build().map_err(|e| whole(e.to_string()))
}
