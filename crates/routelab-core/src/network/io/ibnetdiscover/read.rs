//! Reading ibnetdiscover text into a [`Network`]: node sections first, then
//! cables matched from their two ends, then classes and identities.
//!
//! Everything is keyed by hash maps or vectors indexed by node, so the work
//! is linear in the size of the file. Memory is bounded by the file too:
//! declared ports, which cost memory without costing text, have a budget.

use std::collections::hash_map::Entry;
use std::collections::HashMap;

use super::line::{self, clip, Directive, Line, NodeLine, PortLine, Section};
use super::speed;
use super::{DEFAULT_BANDWIDTH, DEFAULT_LATENCY};
use crate::network::builder::{SWITCH_LINK, TERMINAL_LINK};
use crate::network::{
    ChannelClass, ClassId, Network, NetworkBuilder, NodeId, NodeKind, PortAttrs, PortId,
    TopologyError,
};

/// Declared ports over the whole file may add up to this many, or to one
/// per byte of the file if that is more.
const PORT_BUDGET: u64 = 1 << 20;

/// The most classes a network can have (class ids are `u16`).
const MAX_CLASSES: usize = u16::MAX as usize;

/// A port as `(node index, port number)`.
type Slot = (u32, u16);

struct Node<'a> {
    kind: NodeKind,
    id: &'a str,
    desc: Option<&'a str>,
    guid: u64,
    ports: u16,
    /// The line of its section header; 0 when it has no section.
    line: usize,
}

/// One port line: a cable as seen from one end.
struct End<'a> {
    line: usize,
    node: u32,
    p: PortLine<'a>,
    /// The remote node, once resolved.
    remote: u32,
}

/// A cable between two distinct ports, and the line that completed it.
struct Cable<'a> {
    a: Slot,
    b: Slot,
    speed: Option<&'a str>,
    class: Option<&'a str>,
    line: usize,
}

/// A value seen for an identity field, and where.
type Seen<T> = HashMap<Slot, (T, usize)>;

/// Records a value; on a conflict returns the value seen before, and where.
fn record<T: Copy + PartialEq>(
    seen: &mut Seen<T>,
    slot: Slot,
    value: T,
    n: usize,
) -> Option<(T, usize)> {
    match seen.entry(slot) {
        Entry::Occupied(o) if o.get().0 != value => Some(*o.get()),
        Entry::Occupied(_) => None,
        Entry::Vacant(v) => {
            v.insert((value, n));
            None
        }
    }
}

struct Reader<'a> {
    file: &'a str,
    name: Option<&'a str>,
    nodes: Vec<Node<'a>>,
    ids: HashMap<&'a str, u32>,
    ends: Vec<End<'a>>,
    /// The end listed in the port's own node section.
    own: HashMap<Slot, u32>,
    classes: Vec<ChannelClass>,
    /// Class by name (every class read here is named by its token).
    class_ids: HashMap<&'a str, (ClassId, usize)>,
    /// LIDs: of a switch at port 0, of a terminal port at that port.
    lids: Seen<u32>,
    /// Port GUIDs of terminal ports.
    guids: Seen<u64>,
    ports_declared: u64,
    port_budget: u64,
    /// The file is a tool's whole listing (`# Topology file:` heading, as
    /// ibnetdiscover and routelab write), so every node has a section.
    complete: bool,
}

/// Reads ibnetdiscover text; `origin` names the file in errors and, by its
/// stem, the network when the text does not name it.
pub(crate) fn read(text: &str, origin: &str) -> Result<Network, TopologyError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut r = Reader {
        file: origin,
        name: None,
        nodes: Vec::new(),
        ids: HashMap::new(),
        ends: Vec::new(),
        own: HashMap::new(),
        classes: Vec::new(),
        class_ids: HashMap::new(),
        lids: HashMap::new(),
        guids: HashMap::new(),
        ports_declared: 0,
        port_budget: PORT_BUDGET.max(text.len() as u64),
        complete: text
            .lines()
            .take(16)
            .any(|l| l.trim_start().starts_with("# Topology file:")),
    };
    r.scan(text)?;
    r.resolve()?;
    let cables = r.cables()?;
    r.build(cables)
}

/// The GUID in an id such as `S-0002c902004a0950`, if it has one.
fn guid_of_id(id: &str) -> Option<u64> {
    let hex = id
        .strip_prefix("S-")
        .or_else(|| id.strip_prefix("H-"))
        .or_else(|| id.strip_prefix("R-"))?;
    line::hex(hex).ok()
}

/// The kind an id's prefix announces (`S-` switch, `H-` host, `R-` router).
fn kind_of_id(id: &str) -> Option<NodeKind> {
    match id.get(..2)? {
        "S-" | "R-" => Some(NodeKind::Switch),
        "H-" => Some(NodeKind::Terminal),
        _ => None,
    }
}

/// Control characters would break the line structure; ibnetdiscover
/// itself prints them as spaces.
pub(crate) fn clean(text: &str) -> String {
    text.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect()
}

impl<'a> Reader<'a> {
    fn err(&self, line: usize, reason: impl Into<String>) -> TopologyError {
        TopologyError::parse(self.file, line, reason)
    }

    /// `"id" port p`, for messages.
    fn port_name(&self, (node, port): Slot) -> String {
        format!("\"{}\" port {port}", clip(self.nodes[node as usize].id))
    }

    /// Pass 1: sections, port lines, settings and directives.
    fn scan(&mut self, text: &'a str) -> Result<(), TopologyError> {
        let mut section: Option<(u32, Section)> = None;
        let mut pending: Option<(Section, u64, usize)> = None;
        for (i, raw) in text.lines().enumerate() {
            let n = i + 1;
            match line::parse(raw).map_err(|reason| self.err(n, reason))? {
                Line::Comment => {}
                Line::Directive(d) => self.directive(d, n)?,
                Line::Port(p) => {
                    let Some((node, sec)) = section else {
                        return Err(self.err(
                            n,
                            "port line outside a node section: port lines follow their \
                             Switch or Ca line, with no blank line between",
                        ));
                    };
                    self.port(node, sec, p, n)?;
                }
                Line::Node(h) => {
                    let sec = h.section;
                    section = Some((self.node(h, pending.take(), n)?, sec));
                }
                Line::Guid { section: s, guid } => {
                    section = None;
                    pending = Some((s, guid, n));
                }
                Line::Blank | Line::Other => section = None,
            }
        }
        Ok(())
    }

    fn directive(&mut self, d: Directive<'a>, n: usize) -> Result<(), TopologyError> {
        match d {
            Directive::Name(name) => self.name = Some(name),
            Directive::Class {
                token,
                bandwidth,
                latency,
            } => {
                if !line::is_token(token) {
                    return Err(self.err(
                        n,
                        format!(
                            "class name '{}' must be one word without \" # = [ ] ( ), \
                             and not 'lid' or 'lmc'",
                            clip(token)
                        ),
                    ));
                }
                if let Some(&(_, first)) = self.class_ids.get(token) {
                    return Err(self.err(
                        n,
                        format!(
                            "class '{}' is declared twice (first at line {first})",
                            clip(token)
                        ),
                    ));
                }
                self.add_class(ChannelClass::new(token, bandwidth, latency), token, n)?;
            }
        }
        Ok(())
    }

    fn add_class(
        &mut self,
        class: ChannelClass,
        name: &'a str,
        n: usize,
    ) -> Result<ClassId, TopologyError> {
        if self.classes.len() >= MAX_CLASSES {
            return Err(self.err(n, format!("too many link classes: at most {MAX_CLASSES}")));
        }
        let id = ClassId(self.classes.len() as u16);
        self.classes.push(class);
        self.class_ids.insert(name, (id, n));
        Ok(id)
    }

    fn declare_ports(&mut self, ports: u64, n: usize) -> Result<(), TopologyError> {
        self.ports_declared += ports;
        if self.ports_declared > self.port_budget {
            return Err(self.err(
                n,
                format!(
                    "the nodes declare more than {} ports in all (at most {PORT_BUDGET} or \
                     one per byte of the file); is a port count wrong?",
                    self.port_budget
                ),
            ));
        }
        Ok(())
    }

    fn observe_lid(&mut self, slot: Slot, lid: u32, n: usize) -> Result<(), TopologyError> {
        match record(&mut self.lids, slot, lid, n) {
            None => Ok(()),
            Some((seen, at)) => {
                Err(self.conflict("lid", slot, (seen.to_string(), at), (lid.to_string(), n)))
            }
        }
    }

    fn observe_guid(&mut self, slot: Slot, guid: u64, n: usize) -> Result<(), TopologyError> {
        match record(&mut self.guids, slot, guid, n) {
            None => Ok(()),
            Some((seen, at)) => Err(self.conflict(
                "port GUID",
                slot,
                (format!("{seen:x}"), at),
                (format!("{guid:x}"), n),
            )),
        }
    }

    /// Two lines that give a field different values; the later is reported.
    fn conflict(
        &self,
        what: &str,
        slot: Slot,
        x: (String, usize),
        y: (String, usize),
    ) -> TopologyError {
        let ((a, la), (b, lb)) = if x.1 <= y.1 { (x, y) } else { (y, x) };
        let who = if slot.1 == 0 {
            format!("\"{}\"", clip(self.nodes[slot.0 as usize].id))
        } else {
            self.port_name(slot)
        };
        self.err(
            lb,
            format!("the {what} of {who} is {a} at line {la} but {b} here"),
        )
    }

    fn node(
        &mut self,
        h: NodeLine<'a>,
        pending: Option<(Section, u64, usize)>,
        n: usize,
    ) -> Result<u32, TopologyError> {
        if let Some(&first) = self.ids.get(h.id) {
            return Err(self.err(
                n,
                format!(
                    "node \"{}\" already has a section, at line {}",
                    clip(h.id),
                    self.nodes[first as usize].line
                ),
            ));
        }
        if self.nodes.len() >= (u32::MAX - 1) as usize {
            return Err(self.err(n, "too many nodes"));
        }
        let id_guid = guid_of_id(h.id);
        let guid = match pending {
            Some((s, guid, at)) => {
                if s.kind() != h.section.kind() {
                    return Err(self.err(
                        n,
                        format!(
                            "line {at} gives the GUID of a {} but this is a {} section",
                            s.keyword(),
                            h.section.keyword()
                        ),
                    ));
                }
                if id_guid.is_some_and(|g| g != guid) {
                    return Err(self.err(
                        n,
                        format!(
                            "node id \"{}\" does not match GUID 0x{guid:x} given at line {at}",
                            clip(h.id)
                        ),
                    ));
                }
                guid
            }
            None => id_guid.unwrap_or(0),
        };
        self.declare_ports(u64::from(h.ports), n)?;
        let idx = self.nodes.len() as u32;
        self.nodes.push(Node {
            kind: h.section.kind(),
            id: h.id,
            desc: h.desc,
            guid,
            ports: h.ports,
            line: n,
        });
        self.ids.insert(h.id, idx);
        if let (Some(lid), NodeKind::Switch) = (h.lid, h.section.kind()) {
            self.observe_lid((idx, 0), lid, n)?;
        }
        Ok(idx)
    }

    fn port(
        &mut self,
        node: u32,
        sec: Section,
        p: PortLine<'a>,
        n: usize,
    ) -> Result<(), TopologyError> {
        let nd = &self.nodes[node as usize];
        if p.port > nd.ports {
            return Err(self.err(
                n,
                format!(
                    "port {} is beyond the {} ports declared for \"{}\" at line {}",
                    p.port,
                    nd.ports,
                    clip(nd.id),
                    nd.line
                ),
            ));
        }
        let slot = (node, p.port);
        if let Some(&first) = self.own.get(&slot) {
            return Err(self.err(
                n,
                format!(
                    "{} is listed twice (first at line {})",
                    self.port_name(slot),
                    self.ends[first as usize].line
                ),
            ));
        }
        match sec.kind() {
            NodeKind::Terminal => {
                if let Some(g) = p.guid {
                    self.observe_guid(slot, g, n)?;
                }
                if let Some(lid) = p.lid {
                    self.observe_lid(slot, lid, n)?;
                }
            }
            NodeKind::Switch => {
                if let Some(lid) = p.lid {
                    self.observe_lid((node, 0), lid, n)?;
                }
            }
        }
        self.own.insert(slot, self.ends.len() as u32);
        self.ends.push(End {
            line: n,
            node,
            p,
            remote: u32::MAX,
        });
        Ok(())
    }

    /// Pass 2: finds each remote node, creating the ones without a section
    /// of their own, and records what each end says about its peer.
    fn resolve(&mut self) -> Result<(), TopologyError> {
        // ibnetdiscover gives every node it found a section: in its
        // listing, a node cabled to but without one means the file was cut
        // (`head -n`) or edited. Files written by hand may name nodes by
        // their cables alone.
        let sections = self.nodes.iter().filter(|nd| nd.line != 0).count();
        for e in 0..self.ends.len() {
            let (n, p) = (self.ends[e].line, self.ends[e].p);
            let m = match self.ids.get(p.remote) {
                Some(&m) => m,
                None => {
                    let Some(kind) = kind_of_id(p.remote) else {
                        return Err(self.err(
                            n,
                            format!(
                                "node \"{}\" has no section, and its kind is unknown \
                                 (an id starting S- is a switch, H- a host)",
                                clip(p.remote)
                            ),
                        ));
                    };
                    if self.complete {
                        return Err(self.err(
                            n,
                            format!(
                                "node \"{}\" is cabled here but has no section of its own, \
                                 while {sections} nodes have theirs: the file is cut or \
                                 incomplete (a topology file lists every node found)",
                                clip(p.remote)
                            ),
                        ));
                    }
                    if self.nodes.len() >= (u32::MAX - 1) as usize {
                        return Err(self.err(n, "too many nodes"));
                    }
                    let m = self.nodes.len() as u32;
                    self.nodes.push(Node {
                        kind,
                        id: p.remote,
                        desc: p.remote_desc,
                        guid: guid_of_id(p.remote).unwrap_or(0),
                        ports: 0,
                        line: 0,
                    });
                    self.ids.insert(p.remote, m);
                    m
                }
            };
            let (ports, line, kind) = {
                let nd = &self.nodes[m as usize];
                (nd.ports, nd.line, nd.kind)
            };
            if p.remote_port > ports {
                if line != 0 {
                    return Err(self.err(
                        n,
                        format!(
                            "{} does not exist: its section at line {line} declares {ports} ports",
                            self.port_name((m, p.remote_port))
                        ),
                    ));
                }
                self.declare_ports(u64::from(p.remote_port - ports), n)?;
                self.nodes[m as usize].ports = p.remote_port;
            }
            self.ends[e].remote = m;
            match kind {
                NodeKind::Switch => {
                    if let Some(lid) = p.remote_lid {
                        self.observe_lid((m, 0), lid, n)?;
                    }
                }
                NodeKind::Terminal => {
                    if let Some(lid) = p.remote_lid {
                        self.observe_lid((m, p.remote_port), lid, n)?;
                    }
                    if let Some(g) = p.remote_guid {
                        self.observe_guid((m, p.remote_port), g, n)?;
                    }
                }
            }
        }
        Ok(())
    }

    /// Pass 3: one cable per link, whether listed from one end or both.
    fn cables(&self) -> Result<Vec<Cable<'a>>, TopologyError> {
        let mut claimed: HashMap<Slot, usize> = HashMap::new();
        let mut cables = Vec::new();
        for (i, e) in self.ends.iter().enumerate() {
            let here = (e.node, e.p.port);
            let there = (e.remote, e.p.remote_port);
            if here == there {
                return Err(self.err(
                    e.line,
                    format!("{} is cabled to itself", self.port_name(here)),
                ));
            }
            match self.own.get(&there) {
                Some(&j) => {
                    let f = &self.ends[j as usize];
                    let back = (f.remote, f.p.remote_port);
                    if back != here {
                        return Err(self.err(
                            e.line.max(f.line),
                            format!(
                                "the ends of a cable disagree: line {} cables {} to {}, \
                                 but line {} cables {} to {}",
                                e.line,
                                self.port_name(here),
                                self.port_name(there),
                                f.line,
                                self.port_name(there),
                                self.port_name(back)
                            ),
                        ));
                    }
                    if (j as usize) < i {
                        continue; // made when its first end was read
                    }
                    let speed = match (e.p.speed, f.p.speed) {
                        (Some(x), Some(y)) if x != y => {
                            return Err(self.err(
                                f.line,
                                format!(
                                "the ends of a cable disagree on its speed: {} at line {}, {} here",
                                clip(x),
                                e.line,
                                clip(y)
                            ),
                            ))
                        }
                        (x, y) => x.or(y),
                    };
                    cables.push(Cable {
                        a: here,
                        b: there,
                        speed,
                        class: e.p.class.or(f.p.class),
                        line: f.line,
                    });
                }
                None => {
                    if let Some(&first) = claimed.get(&there) {
                        return Err(self.err(
                            e.line,
                            format!(
                                "{} is cabled twice: here and at line {first}",
                                self.port_name(there)
                            ),
                        ));
                    }
                    claimed.insert(there, e.line);
                    cables.push(Cable {
                        a: here,
                        b: there,
                        speed: e.p.speed,
                        class: e.p.class,
                        line: e.line,
                    });
                }
            }
        }
        // Canonical order, whatever the order of the file: each cable runs
        // from its lower (node, port) end, cables sorted by that end.
        for c in &mut cables {
            if c.b < c.a {
                std::mem::swap(&mut c.a, &mut c.b);
            }
        }
        cables.sort_unstable_by_key(|c| c.a);
        Ok(cables)
    }

    fn class_of(&mut self, c: &Cable<'a>) -> Result<ClassId, TopologyError> {
        // A declared class word after the speed (`4xDDR switch`) names the class.
        if let Some(&(id, _)) = c.class.and_then(|w| self.class_ids.get(w)) {
            return Ok(id);
        }
        let name = match c.speed {
            Some(token) => token,
            None if self.nodes[c.a.0 as usize].kind == NodeKind::Switch
                && self.nodes[c.b.0 as usize].kind == NodeKind::Switch =>
            {
                SWITCH_LINK
            }
            None => TERMINAL_LINK,
        };
        if let Some(&(id, _)) = self.class_ids.get(name) {
            return Ok(id);
        }
        let bandwidth = match c.speed {
            None => DEFAULT_BANDWIDTH,
            Some(token) => speed::data_rate(token).ok_or_else(|| {
                self.err(
                    c.line,
                    format!(
                        "unknown link speed '{}': expected a width and speed such as 4xQDR \
                         or 4xEDR, or declare it with '# routelab class {} <bandwidth> <latency>'",
                        clip(token),
                        clip(token)
                    ),
                )
            })?,
        };
        self.add_class(
            ChannelClass::new(name, bandwidth, DEFAULT_LATENCY),
            name,
            c.line,
        )
    }

    /// Pass 4: classes, identities and the network itself.
    fn build(mut self, cables: Vec<Cable<'a>>) -> Result<Network, TopologyError> {
        let mut classes = Vec::with_capacity(cables.len());
        for c in &cables {
            classes.push(self.class_of(c)?);
        }
        // A terminal's own LID is that of its lowest cabled port.
        let mut lowest = vec![0u16; self.nodes.len()];
        for c in &cables {
            for (node, port) in [c.a, c.b] {
                let l = &mut lowest[node as usize];
                if *l == 0 || port < *l {
                    *l = port;
                }
            }
        }
        let name = match self.name {
            Some(name) => clean(name),
            None => std::path::Path::new(self.file).file_stem().map_or_else(
                || self.file.to_string(),
                |s| s.to_string_lossy().into_owned(),
            ),
        };
        let mut b = NetworkBuilder::new(name);
        for class in std::mem::take(&mut self.classes) {
            b.add_class(class);
        }
        for (i, nd) in self.nodes.iter().enumerate() {
            let i = i as u32;
            let name = match nd.desc {
                Some(d) if !d.is_empty() => clean(d),
                _ => clean(nd.id),
            };
            let id = b.add_node(nd.kind, name, nd.ports);
            let lid_at = |slot: Slot| self.lids.get(&slot).map_or(0, |&(lid, _)| lid);
            let lid = match nd.kind {
                NodeKind::Switch => lid_at((i, 0)),
                NodeKind::Terminal if lowest[i as usize] > 0 => lid_at((i, lowest[i as usize])),
                NodeKind::Terminal => 0,
            };
            let node = b.node_mut(id);
            node.guid = nd.guid;
            node.lid = lid;
        }
        for (c, &class) in cables.iter().zip(&classes) {
            for (node, port) in [c.a, c.b] {
                let nd = &self.nodes[node as usize];
                if nd.kind != NodeKind::Terminal {
                    continue;
                }
                let lid = b.node(NodeId(node)).lid;
                // An adapter port's GUID is its node's plus the port number
                // unless the file says otherwise.
                let default_guid = if nd.guid != 0 {
                    nd.guid.wrapping_add(u64::from(port))
                } else {
                    0
                };
                let attrs = PortAttrs {
                    guid: self
                        .guids
                        .get(&(node, port))
                        .map(|&(g, _)| g)
                        .filter(|&g| g != 0)
                        .unwrap_or(default_guid),
                    lid: self.lids.get(&(node, port)).map_or(0, |&(l, _)| l),
                };
                if attrs
                    != (PortAttrs {
                        guid: default_guid,
                        lid,
                    })
                {
                    b.set_port_attrs(NodeId(node), PortId(port), attrs)
                        .map_err(|e| self.err(c.line, e.to_string()))?;
                }
            }
            b.connect(
                NodeId(c.a.0),
                PortId(c.a.1),
                NodeId(c.b.0),
                PortId(c.b.1),
                class,
            )
            .map_err(|e| self.err(c.line, e.to_string()))?;
        }
        b.build().map_err(|e| self.err(0, e.to_string()))
    }
}
