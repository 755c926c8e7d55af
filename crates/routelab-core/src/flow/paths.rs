//! The paths of flows under given routes, written into reused buffers with
//! no allocation per flow, and the integer channel loads they cause.
//!
//! Single-path routes are walked through the forwarding tables (flat
//! lookups: table entry, port to channel, channel to next switch). Routes
//! with a [`PathSet`] give every path of the pair, each led by the source's
//! injection channel.
//!
//! Loads are integers: a flow with `n` paths puts `denominator / n` units
//! on every channel of each path, `denominator` being the path set's
//! common denominator ([`PathSet::denominator`], 1 for single paths), so a
//! flow is `denominator` units and loads are exact. When that least common
//! multiple exceeds [`PathSet::MAX_DENOMINATOR`] the denominator is
//! `MAX_DENOMINATOR` and shares are rounded to the nearest unit
//! ([`FlowPaths::exact`] is false).

use super::FlowError;
use crate::network::Network;
use crate::routing::{PathSet, Routes, RoutingError};

const NONE: u32 = u32::MAX;
const TERMINAL: u32 = 1 << 31;

pub(crate) struct FlowPaths<'a> {
    net: &'a Network,
    routes: &'a Routes,
    t: usize,
    s: usize,
    /// Per terminal: injection channel and switch index, or NONE.
    inj: Vec<u32>,
    inj_sw: Vec<u32>,
    set: Option<&'a PathSet>,
    den: u64,
    exact: bool,
    /// Per switch index: slot of its port 0 in `port_ch`.
    port_base: Vec<u32>,
    port_ch: Vec<u32>,
    /// Per channel: switch index of its sink, or TERMINAL | terminal index.
    next: Vec<u32>,
}

/// Buffers reused from one list of flows to the next.
pub(crate) struct Workspace {
    /// Per channel: load in units.
    pub load: Vec<u64>,
    /// Channels of every path, flat.
    pub hops: Vec<u32>,
    /// Per path: end of its hops.
    pub ends: Vec<u32>,
    /// Per flow (self pairs included): number of paths (0 for self pairs).
    pub paths: Vec<u32>,
}

impl Workspace {
    pub fn new(channels: usize) -> Self {
        Workspace {
            load: vec![0; channels],
            hops: Vec::new(),
            ends: Vec::new(),
            paths: Vec::new(),
        }
    }

    /// Zeroes the loads of the channels used (cheaper than a fill on large
    /// networks).
    pub fn clear(&mut self) {
        for &c in &self.hops {
            self.load[c as usize] = 0;
        }
        self.hops.clear();
        self.ends.clear();
        self.paths.clear();
    }
}

impl<'a> FlowPaths<'a> {
    pub fn new(net: &'a Network, routes: &'a Routes) -> Result<Self, FlowError> {
        let (s, t) = (net.switches().len(), net.terminals().len());
        if routes.switch_count() != s || routes.terminal_count() != t {
            return Err(RoutingError::Mismatch {
                what: format!(
                    "the routes are for {} switches and {} terminals, '{}' has {s} and {t}",
                    routes.switch_count(),
                    routes.terminal_count(),
                    net.name()
                ),
            }
            .into());
        }
        let mut inj = vec![NONE; t];
        let mut inj_sw = vec![NONE; t];
        for (i, &h) in net.terminals().iter().enumerate() {
            if let Some(c) = Routes::injection(net, h) {
                inj[i] = c.0;
                inj_sw[i] = net.kind_index(net.channel(c).dst) as u32;
            }
        }
        let mut port_base = Vec::with_capacity(s + 1);
        let mut port_ch = Vec::new();
        for &x in net.switches() {
            port_base.push(port_ch.len() as u32);
            port_ch.push(NONE);
            for p in 1..=net.node(x).ports {
                port_ch.push(net.channel_at(x, crate::PortId(p)).map_or(NONE, |c| c.0));
            }
        }
        port_base.push(port_ch.len() as u32);
        let next = net
            .channels()
            .iter()
            .map(|c| {
                let i = net.kind_index(c.dst) as u32;
                if net.is_terminal(c.dst) {
                    TERMINAL | i
                } else {
                    i
                }
            })
            .collect();
        let set = routes.path_set();
        let (den, exact) = match set.map(|p| p.denominator()) {
            None => (1, true),
            Some(Some(d)) => (d, true),
            Some(None) => (PathSet::MAX_DENOMINATOR, false),
        };
        Ok(FlowPaths {
            net,
            routes,
            t,
            s,
            inj,
            inj_sw,
            set,
            den,
            exact,
            port_base,
            port_ch,
            next,
        })
    }

    /// Units per flow.
    pub fn denominator(&self) -> u64 {
        self.den
    }

    /// Are shares of split flows exact integers of units?
    pub fn exact(&self) -> bool {
        self.exact
    }

    /// Units a flow with `n` paths puts on each of them.
    #[inline]
    pub fn weight(&self, n: u32) -> u64 {
        if n <= 1 {
            self.den
        } else if self.exact {
            self.den / u64::from(n)
        } else {
            (self.den + u64::from(n) / 2) / u64::from(n)
        }
    }

    /// The error for an unroutable pair, with the reason the routes give.
    fn error(&self, src: usize, dst: usize) -> FlowError {
        let name = |i: usize| self.net.label(self.net.terminal(i)).into_owned();
        let reason = match self.routes.path(self.net, src, dst) {
            Err(e) => e,
            Ok(_) => RoutingError::BlackHole {
                src: name(src),
                dst: name(dst),
                switch: "(none)".into(),
                reason: "the tables do not lead to the destination".into(),
            },
        };
        FlowError::Unroutable {
            src: name(src),
            dst: name(dst),
            reason: Box::new(reason),
        }
    }

    /// Appends every path of flow `src -> dst` (`src != dst`, both checked
    /// in range) to `hops`, closing each in `ends`; returns the number of
    /// paths.
    pub fn append(
        &self,
        src: usize,
        dst: usize,
        hops: &mut Vec<u32>,
        ends: &mut Vec<u32>,
    ) -> Result<u32, FlowError> {
        let inj = self.inj[src];
        if inj == NONE {
            return Err(self.error(src, dst));
        }
        if let Some(set) = self.set {
            let mut n = 0;
            for p in set.paths(src, dst) {
                hops.push(inj);
                hops.extend(p.channels.iter().map(|c| c.0));
                ends.push(hops.len() as u32);
                n += 1;
            }
            if n == 0 {
                return Err(self.error(src, dst));
            }
            return Ok(n);
        }
        let start = hops.len();
        hops.push(inj);
        let table = &self.routes.table;
        let mut x = self.inj_sw[src] as usize;
        for _ in 0..=self.s {
            let port = table[x * self.t + dst] as usize;
            let slot = self.port_base[x] as usize + port;
            if port == 0 || slot >= self.port_base[x + 1] as usize {
                break;
            }
            let c = self.port_ch[slot];
            if c == NONE {
                break;
            }
            hops.push(c);
            let v = self.next[c as usize];
            if v & TERMINAL != 0 {
                if (v & !TERMINAL) as usize == dst {
                    ends.push(hops.len() as u32);
                    return Ok(1);
                }
                break;
            }
            x = v as usize;
        }
        hops.truncate(start);
        Err(self.error(src, dst))
    }

    /// Routes `flows` into `ws` (cleared first) and adds their loads.
    pub fn load(&self, flows: &[(usize, usize)], ws: &mut Workspace) -> Result<(), FlowError> {
        ws.clear();
        for (index, &(src, dst)) in flows.iter().enumerate() {
            if src >= self.t || dst >= self.t {
                return Err(FlowError::BadFlow {
                    index,
                    src,
                    dst,
                    terminals: self.t,
                });
            }
            if src == dst {
                ws.paths.push(0);
                continue;
            }
            let first = ws.hops.len();
            let n = self.append(src, dst, &mut ws.hops, &mut ws.ends)?;
            let w = self.weight(n);
            for &c in &ws.hops[first..] {
                ws.load[c as usize] += w;
            }
            ws.paths.push(n);
        }
        Ok(())
    }

    /// Calls `f(flow, n, path)` for every path of every flow loaded in
    /// `ws`, in order (`n` the flow's path count; self pairs are skipped).
    pub fn for_each_path(ws: &Workspace, mut f: impl FnMut(usize, u32, &[u32])) {
        let mut p = 0;
        let mut start = 0;
        for (flow, &n) in ws.paths.iter().enumerate() {
            for _ in 0..n {
                let end = ws.ends[p] as usize;
                f(flow, n, &ws.hops[start..end]);
                start = end;
                p += 1;
            }
        }
    }
}
