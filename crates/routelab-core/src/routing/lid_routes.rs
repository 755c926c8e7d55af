//! Routes as a subnet holds them: an output port per switch and LID, and an
//! SL per (sending port, destination LID).
//!
//! [`Routes`] hold one route per terminal, injected through its first
//! port. A subnet has more: every cabled adapter port has its own LID and
//! sends from its own switch, every switch has a LID that management and
//! performance traffic is sent to, and a switch sends from its port 0. The
//! files a subnet manager loads (`opensm-lfts.dump`, the path records and
//! the SL-to-VL tables) say what happens to all of it, and that is what an
//! administrator needs checked. [`LidRoutes`] is that view:
//!
//! - *LIDs*: every LID of [`assign_lids`] (switches, and every cabled
//!   adapter port).
//! - *Senders*: every switch (from its port 0) and every adapter port that
//!   has a LID and a cable to a switch.
//! - *Tables*: for engine routes, exactly what [`write_lfts`] writes (a
//!   single-homed terminal's LID follows its routes; other LIDs as
//!   `lid_ports` decides); for routes read from a dump, the dump's entries.
//! - *SLs*: read from the subnet's path records or lane table when given
//!   (0 where they say nothing, as a subnet answers); for engine routes the
//!   pair lane of the terminals involved (a switch stands for the terminal
//!   that injects there or that it alone delivers to). Where those SLs
//!   close a dependency cycle (pairs the engine never saw: a second port,
//!   a switch without adapters, whose LID follows a min-hop tree), the
//!   pairs the engine did not route are moved to the first lane, within
//!   the engine's `max_lanes`, on which they close none; the engine's own
//!   pairs keep their lanes. So `updown` on a 3-level tree sends some
//!   switch traffic on SL 1, and says so in the files it writes.
//! - *VLs*: `dor`'s datelines become torus-2QoS's SLs (a bit per ring
//!   whose dateline the path crosses) and SL-to-VL tables (VL = the SL bit
//!   of the hop's ring), which a subnet manager can load; other rules stay.
//!
//! [`LidRoutes::deadlock_report`] builds the dependency graph of every
//! sender to every LID of another node on the VL of every hop, except
//! switch-to-switch pairs: that traffic is subnet management (SMPs) on
//! VL 15, which has no flow control and cannot wait on a buffer (adapters
//! to switches, and switches to adapters, are analysed on their SLs).
//! [`LidRoutes::audit`] walks every LID, switch LIDs included, from every
//! switch.
//!
//! [`write_lfts`]: super::formats::write_lfts

use super::columns::{DestinationTree, PortMap, WALK_ONLY};
use super::formats::lid_ports::{proxies, special_lid_ports};
use super::formats::lids::{assign_lids, Lids};
use super::{Datelines, LaneRule, Routes, RoutingError, SlToVl, DROP_VL};
use crate::deadlock::layers::IncrementalCdg;
use crate::deadlock::{CdgBuilder, DeadlockReport, PathRef, Turns};
use crate::network::{ChannelId, Network, NodeId, PortId};
use std::collections::HashMap;

/// No table entry for a LID at a switch.
pub const NO_ENTRY: u16 = u16::MAX;

/// Tables per LID read from a subnet's files (see the module docs).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LidTables {
    /// Per switch index `x` and LID entry `i` ([`Lids::entries`] order):
    /// `ports[x * lids + i]`, [`NO_ENTRY`] where the dump has none.
    pub ports: Vec<u16>,
    /// The number of LIDs.
    pub lids: usize,
    /// SLs the files give: (source LID, destination LID) -> SL.
    pub sls: HashMap<(u16, u16), u8>,
}

impl LidTables {
    /// Empty tables (no entries, no SLs) for `lids` LIDs on `switches`.
    pub fn new(switches: usize, lids: usize) -> Self {
        LidTables {
            ports: vec![NO_ENTRY; switches * lids],
            lids,
            sls: HashMap::new(),
        }
    }
}

/// A port that sends: a switch (from its port 0) or an adapter port.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sender {
    /// Its LID entry (index in [`Lids::entries`]).
    pub entry: usize,
    /// The switch its packets start at.
    pub start: NodeId,
    /// The injection channel of an adapter port (`None` for a switch).
    pub inj: Option<ChannelId>,
}

/// Why a walk toward a LID stopped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LidStop {
    Loop(NodeId),
    Hole(NodeId, String),
    Wrong(NodeId, String),
}

/// What [`LidRoutes::audit`] finds.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct LidAudit {
    /// LIDs walked, and switches each was walked from.
    pub lids: usize,
    pub switches: usize,
    /// Walks that loop, end in a black hole, or reach the wrong port.
    pub loops: usize,
    pub holes: usize,
    pub wrong: usize,
    /// LIDs some switch cannot deliver, sorted.
    pub unreachable: Vec<u16>,
    /// Up to the requested number: (switch name, LID, why).
    pub examples: Vec<(String, u16, String)>,
}

/// Routes per LID. See the module docs.
#[derive(Debug, Clone)]
pub struct LidRoutes {
    pub lids: Lids,
    ports: Vec<u16>,
    pub senders: Vec<Sender>,
    sls: Vec<u8>,
    pub rule: LaneRule,
    /// Pairs moved to another lane than their natural one.
    pub moved: usize,
    switches: usize,
    /// Per switch index: its component over switch links; per LID entry:
    /// the component of the switch it hangs off (`u32::MAX`: none).
    comp: Vec<u32>,
    home: Vec<u32>,
    /// The verdict of [`LidRoutes::deadlock_report`], kept: writing the
    /// files and reporting on them ask for it again.
    report: std::sync::OnceLock<DeadlockReport>,
}

impl LidRoutes {
    /// The routes per LID of `routes` on `net`. See the module docs.
    pub fn of(net: &Network, routes: &Routes) -> Result<LidRoutes, RoutingError> {
        let lids = assign_lids(net)?;
        let l = lids.entries().len();
        let s = net.switches().len();
        let file = routes.lid_tables();
        let ports = match file {
            Some(t) if t.lids == l && t.ports.len() == s * l => t.ports.clone(),
            Some(_) => {
                return Err(RoutingError::Mismatch {
                    what: format!("the LID tables are not of '{}'", net.name()),
                })
            }
            None => {
                let mut ports = vec![NO_ENTRY; s * l];
                let special = special_lid_ports(net, routes, &lids);
                // Row by row (switch by switch), as both tables are stored:
                // a single-homed terminal's LID copies its routes.
                let follows: Vec<Option<usize>> = lids
                    .entries()
                    .iter()
                    .zip(&special)
                    .map(|(e, sp)| sp.is_none().then(|| net.kind_index(e.node)))
                    .collect();
                for x in 0..s {
                    let table = routes.table(x);
                    let row = &mut ports[x * l..(x + 1) * l];
                    for (p, d) in row.iter_mut().zip(&follows) {
                        if let Some(d) = *d {
                            if table[d] != 0 {
                                *p = table[d];
                            }
                        }
                    }
                }
                for (i, (e, sp)) in lids.entries().iter().zip(special).enumerate() {
                    if let Some(v) = &sp {
                        for (x, p) in v.iter().enumerate() {
                            if let Some(p) = p {
                                ports[x * l + i] = *p;
                            }
                        }
                    }
                    // A switch LID every switch can reach: where no route
                    // leads, the lowest port of a shortest switch path.
                    if net.is_switch(e.node) && (0..s).any(|x| ports[x * l + i] == NO_ENTRY) {
                        let tree = min_hop_ports(net, net.kind_index(e.node));
                        for (x, p) in tree.into_iter().enumerate() {
                            if ports[x * l + i] == NO_ENTRY {
                                if let Some(p) = p {
                                    ports[x * l + i] = p;
                                }
                            }
                        }
                    }
                }
                ports
            }
        };
        let mut senders = Vec::new();
        for (i, e) in lids.entries().iter().enumerate() {
            if net.is_switch(e.node) {
                senders.push(Sender {
                    entry: i,
                    start: e.node,
                    inj: None,
                });
            } else if let Some(c) = e.port.and_then(|p| net.channel_at(e.node, p)) {
                let to = net.channel(c).dst;
                if net.is_switch(to) {
                    senders.push(Sender {
                        entry: i,
                        start: to,
                        inj: Some(c),
                    });
                }
            }
        }
        let mut out = LidRoutes {
            lids,
            ports,
            senders,
            sls: Vec::new(),
            rule: routes.lane_rule().clone(),
            moved: 0,
            switches: s,
            comp: Vec::new(),
            home: Vec::new(),
            report: std::sync::OnceLock::new(),
        };
        out.comp = switch_components(net);
        out.home = out
            .lids
            .entries()
            .iter()
            .map(|e| {
                let at = if net.is_switch(e.node) {
                    Some(e.node)
                } else {
                    e.port
                        .and_then(|p| net.channel_at(e.node, p))
                        .map(|c| net.channel(c).dst)
                        .filter(|&n| net.is_switch(n))
                };
                at.map_or(u32::MAX, |x| out.comp[net.kind_index(x)])
            })
            .collect();
        if let Some(t) = file {
            if t.sls.values().any(|&sl| sl != 0) {
                let mut sls = vec![0; out.senders.len() * l];
                for (k, snd) in out.senders.iter().enumerate() {
                    let slid = out.lids.entries()[snd.entry].lid;
                    for (i, e) in out.lids.entries().iter().enumerate() {
                        if let Some(&sl) = t.sls.get(&(slid, e.lid)) {
                            sls[k * l + i] = sl;
                        }
                    }
                }
                out.sls = sls;
            }
            return Ok(out);
        }
        out.natural_sls(net, routes);
        if let LaneRule::Dateline(d) = routes.lane_rule() {
            out.datelines_to_sl2vl(net, d)?;
        } else if matches!(out.rule, LaneRule::Fixed) {
            out.relayer(net, routes.lane_limit())?;
        }
        Ok(out)
    }

    /// The number of LIDs.
    pub fn lid_count(&self) -> usize {
        self.lids.entries().len()
    }

    /// The output port of switch index `x` for LID entry `i`.
    pub fn port(&self, x: usize, i: usize) -> Option<u16> {
        match self.ports[x * self.lid_count() + i] {
            NO_ENTRY => None,
            p => Some(p),
        }
    }

    /// The SL of sender `k` to LID entry `i`.
    pub fn sl(&self, k: usize, i: usize) -> u8 {
        if self.sls.is_empty() {
            return 0;
        }
        self.sls[k * self.lid_count() + i]
    }

    /// The SL table, made dense for writing.
    fn sls_mut(&mut self) -> &mut [u8] {
        if self.sls.is_empty() {
            self.sls = vec![0; self.senders.len() * self.lid_count()];
        }
        &mut self.sls
    }

    /// The highest SL any sender uses.
    pub fn max_sl(&self) -> u8 {
        self.sls.iter().copied().max().unwrap_or(0)
    }

    /// SLs from the pair lanes of the terminals involved.
    fn natural_sls(&mut self, net: &Network, routes: &Routes) {
        if !routes.has_pair_lanes() {
            return; // every pair on lane 0
        }
        let l = self.lid_count();
        let proxy = proxies(net);
        // Per switch: a terminal injecting there.
        let mut injector = vec![None; self.switches];
        for (t, &h) in net.terminals().iter().enumerate() {
            if let Some(c) = Routes::injection(net, h) {
                injector[net.kind_index(net.channel(c).dst)].get_or_insert(t);
            }
        }
        let rep = |n: NodeId, as_source: bool| -> Option<usize> {
            if net.is_terminal(n) {
                Some(net.kind_index(n))
            } else if as_source {
                injector[net.kind_index(n)]
            } else {
                proxy[net.kind_index(n)]
            }
        };
        let dst_rep: Vec<Option<usize>> = self
            .lids
            .entries()
            .iter()
            .map(|e| rep(e.node, false))
            .collect();
        let mut sls = vec![0; self.senders.len() * l];
        for (k, snd) in self.senders.iter().enumerate() {
            let Some(s) = rep(self.lids.entries()[snd.entry].node, true) else {
                continue;
            };
            for (i, d) in dst_rep.iter().enumerate() {
                if let Some(d) = *d {
                    if d != s {
                        sls[k * l + i] = routes.lane(s, d);
                    }
                }
            }
        }
        self.sls = sls;
    }

    /// Follows the tables from switch `start` toward LID entry `i`,
    /// appending the channels taken.
    pub fn walk(
        &self,
        net: &Network,
        start: NodeId,
        i: usize,
        out: &mut Vec<ChannelId>,
    ) -> Result<(), LidStop> {
        let e = self.lids.entries()[i];
        let first = out.len();
        let mut x = start;
        loop {
            let port = match self.port(net.kind_index(x), i) {
                None => return Err(LidStop::Hole(x, "no table entry".into())),
                Some(p) => p,
            };
            if port == 0 {
                if x == e.node {
                    return Ok(());
                }
                return Err(LidStop::Wrong(
                    x,
                    "the switch takes it as its own LID".into(),
                ));
            }
            let Some(c) = net.channel_at(x, PortId(port)) else {
                return Err(LidStop::Hole(x, format!("port {port} is not cabled")));
            };
            out.push(c);
            let ch = net.channel(c);
            if net.is_terminal(ch.dst) {
                if ch.dst == e.node && e.port.is_none_or(|p| p == ch.dst_port) {
                    return Ok(());
                }
                return Err(LidStop::Wrong(
                    x,
                    format!(
                        "port {port} leads to {} port {}",
                        net.label(ch.dst),
                        ch.dst_port.0
                    ),
                ));
            }
            if out.len() - first > self.switches {
                return Err(LidStop::Loop(ch.dst));
            }
            x = ch.dst;
        }
    }

    /// A LID and the port or switch it belongs to, for messages.
    pub fn lid_name(&self, net: &Network, i: usize) -> String {
        let e = self.lids.entries()[i];
        match e.port {
            Some(p) if net.out_channels(e.node).len() > 1 => {
                format!("LID {} ({} port {})", e.lid, net.label(e.node), p.0)
            }
            _ => format!("LID {} ({})", e.lid, net.label(e.node)),
        }
    }

    fn stop_error(&self, net: &Network, from: String, i: usize, stop: LidStop) -> RoutingError {
        let dst = self.lid_name(net, i);
        match stop {
            LidStop::Loop(x) => RoutingError::Loop {
                src: from,
                dst,
                switch: net.label(x).into_owned(),
            },
            LidStop::Hole(x, reason) | LidStop::Wrong(x, reason) => RoutingError::BlackHole {
                src: from,
                dst,
                switch: net.label(x).into_owned(),
                reason,
            },
        }
    }

    /// Is the pair (sender `k`, LID entry `i`) part of the analysis? Not
    /// an adapter to its own other port, not a LID that no switch path
    /// leads to (switches joined only through adapters), and not a switch
    /// to a switch:
    /// switch-to-switch traffic is subnet management (SMPs), sent on VL 15,
    /// which has no flow control and so waits on no buffer.
    pub fn analysed(&self, net: &Network, k: usize, i: usize) -> bool {
        let from = self.lids.entries()[self.senders[k].entry].node;
        let to = self.lids.entries()[i].node;
        from != to
            && !(net.is_switch(from) && net.is_switch(to))
            && self.home[i] == self.comp[net.kind_index(self.senders[k].start)]
    }

    /// Can switch `x` reach LID entry `i` over switch links at all?
    pub fn reachable(&self, net: &Network, x: NodeId, i: usize) -> bool {
        self.home[i] == self.comp[net.kind_index(x)]
    }

    /// The senders grouped by where their packets start (and, for SL-to-VL
    /// tables, the port they enter by): `(start, in port, senders)`.
    fn groups(&self, net: &Network) -> Vec<(NodeId, u16, Vec<usize>)> {
        let by_port = matches!(self.rule, LaneRule::SlToVl(_));
        let mut map: HashMap<(NodeId, u16), usize> = HashMap::new();
        let mut out: Vec<(NodeId, u16, Vec<usize>)> = Vec::new();
        for (k, snd) in self.senders.iter().enumerate() {
            let inp = match snd.inj {
                Some(c) if by_port => net.channel(c).dst_port.0,
                _ => 0,
            };
            let g = *map.entry((snd.start, inp)).or_insert_with(|| {
                out.push((snd.start, inp, Vec::new()));
                out.len() - 1
            });
            out[g].2.push(k);
        }
        out
    }

    /// Calls `f(sender, entry, sl, channels)` once per distinct (start,
    /// in port, LID, SL) of every analysed pair ([`LidRoutes::analysed`]); the
    /// channels start with the sender's injection channel (if any).
    fn for_each_path(
        &self,
        net: &Network,
        mut f: impl FnMut(usize, usize, u8, &[ChannelId]) -> Result<(), RoutingError>,
    ) -> Result<usize, RoutingError> {
        let l = self.lid_count();
        let mut pairs = 0;
        let mut path = Vec::new();
        for (start, _, members) in self.groups(net) {
            for i in 0..l {
                let mut mask = 0u16;
                for &k in &members {
                    if !self.analysed(net, k, i) {
                        continue;
                    }
                    pairs += 1;
                    let sl = self.sl(k, i) & 15;
                    if mask & (1 << sl) != 0 {
                        continue;
                    }
                    mask |= 1 << sl;
                    path.clear();
                    path.extend(self.senders[k].inj);
                    self.walk(net, start, i, &mut path).map_err(|e| {
                        let from = self.lid_name(net, self.senders[k].entry);
                        self.stop_error(net, from, i, e)
                    })?;
                    f(k, i, sl, &path)?;
                }
            }
        }
        Ok(pairs)
    }

    /// The dependency graph of every sender to every LID of another node,
    /// on the VL of every hop; `paths` counts the (sender, LID) pairs.
    pub fn deadlock_report(&self, net: &Network) -> Result<DeadlockReport, RoutingError> {
        if let Some(r) = self.report.get() {
            return Ok(r.clone());
        }
        let tree = match self.rule {
            LaneRule::Fixed => self.tree_report(net)?,
            _ => None,
        };
        let r = match tree {
            Some(r) => r,
            None => self.path_report(net)?,
        };
        let _ = self.report.set(r.clone());
        Ok(r)
    }

    /// [`LidRoutes::deadlock_report`] when every hop of a pair is on the
    /// pair's SL, one LID at a time. A switch has one entry per LID, so
    /// the walks of all senders toward a LID follow one tree: its
    /// dependencies are those of each switch the walks reach, on each SL
    /// that reaches it, found in time linear in the switches per LID
    /// instead of in the senders times their path lengths. `None` when
    /// some analysed walk fails: [`LidRoutes::path_report`] then names it.
    fn tree_report(&self, net: &Network) -> Result<Option<DeadlockReport>, RoutingError> {
        let (l, s) = (self.lid_count(), self.switches);
        let entries = self.lids.entries();
        let map = PortMap::new(net);
        let groups: Vec<(usize, Vec<usize>)> = self
            .groups(net)
            .into_iter()
            .map(|(start, _, members)| (net.kind_index(start), members))
            .collect();
        // Per group: whether the switch itself is one of the senders.
        let switch_member: Vec<bool> = groups
            .iter()
            .map(|(_, m)| m.iter().any(|&k| self.senders[k].inj.is_none()))
            .collect();
        // Per node: its senders (an adapter's ports, a switch's port 0).
        let mut own: HashMap<NodeId, Vec<usize>> = HashMap::new();
        for (k, snd) in self.senders.iter().enumerate() {
            own.entry(entries[snd.entry].node).or_default().push(k);
        }
        let dense = !self.sls.is_empty();
        struct Part<'n> {
            builder: CdgBuilder<'n>,
            tree: DestinationTree,
            pairs: usize,
            start: Vec<u32>,
            count: Vec<usize>,
            starts: Vec<usize>,
            failed: bool,
            error: Option<crate::deadlock::DeadlockError>,
        }
        let parts = super::columns::par_columns(
            &self.ports,
            l,
            || Part {
                builder: CdgBuilder::new(net),
                tree: DestinationTree::new(s),
                pairs: 0,
                start: vec![0; s],
                count: vec![0; s],
                starts: Vec::new(),
                failed: false,
                error: None,
            },
            |part, i, col| {
                if part.failed || part.error.is_some() {
                    return;
                }
                let e = entries[i];
                let to_switch = net.is_switch(e.node);
                part.starts.clear();
                for (g, (y, members)) in groups.iter().enumerate() {
                    if self.home[i] != self.comp[*y] {
                        continue;
                    }
                    if dense {
                        for &k in members {
                            if self.analysed(net, k, i) {
                                part.pairs += 1;
                                // A pair on SL 15 is dropped at its first hop
                                // and waits on nothing, but its walk must work.
                                let sl = self.sl(k, i) & 15;
                                part.start[*y] |= if sl == DROP_VL { WALK_ONLY } else { 1 << sl };
                            }
                        }
                    } else {
                        part.count[*y] = members.len() - usize::from(to_switch && switch_member[g]);
                    }
                    part.starts.push(*y);
                }
                if !dense {
                    if !to_switch {
                        // A node does not send to its own LIDs.
                        for &k in own.get(&e.node).into_iter().flatten() {
                            let y = net.kind_index(self.senders[k].start);
                            if self.home[i] == self.comp[y] {
                                part.count[y] -= 1;
                            }
                        }
                    }
                    for &y in &part.starts {
                        part.pairs += part.count[y];
                        part.start[y] = u32::from(part.count[y] > 0);
                        part.count[y] = 0;
                    }
                }
                // Delivered: at the LID's own switch (port 0), or out of
                // the port cabled to the LID's port.
                let end = |z: usize, p: u16| -> bool {
                    if p == 0 {
                        return net.switches()[z] == e.node;
                    }
                    map.channel(z, p).is_some_and(|c| {
                        let ch = net.channel(c);
                        ch.dst == e.node && e.port.is_none_or(|q| q == ch.dst_port)
                    })
                };
                let mut lanes = 0u32;
                for k in 0..part.starts.len() {
                    let y = part.starts[k];
                    let m = std::mem::take(&mut part.start[y]);
                    if m != 0 && !part.failed {
                        lanes |= m & !WALK_ONLY;
                        part.failed = !part.tree.spread(&map, col, y, m, &end);
                    }
                }
                if part.failed {
                    part.tree.forget();
                    return;
                }
                for sl in (0..16u8).filter(|&b| lanes >> b & 1 == 1) {
                    if let Err(err) = part.builder.add_path_lane(sl) {
                        part.error = Some(err);
                    }
                }
                part.tree.finish(&map, col, &mut part.builder);
            },
        );
        let mut builder = CdgBuilder::new(net);
        let mut pairs = 0;
        for part in parts {
            if let Some(e) = part.error {
                return Err(e.into());
            }
            if part.failed {
                return Ok(None);
            }
            pairs += part.pairs;
            builder.merge(part.builder);
        }
        let cdg = builder.finish();
        let mut report = crate::deadlock::verify_cdg(net, &cdg);
        report.paths = pairs;
        if pairs > 0 {
            report.lanes_used = report.lanes_used.max(1);
        }
        Ok(Some(report))
    }

    /// [`LidRoutes::deadlock_report`] path by path, for any lane rule.
    fn path_report(&self, net: &Network) -> Result<DeadlockReport, RoutingError> {
        let mut builder = CdgBuilder::new(net);
        let mut lanes = Vec::new();
        let pairs = self.for_each_path(net, |_, _, sl, p| {
            self.rule.hop_lanes(sl, p, &mut lanes);
            let keep = lanes.iter().position(|&v| v == DROP_VL).unwrap_or(p.len());
            builder.add(PathRef::per_hop(&p[..keep], &lanes[..keep]))?;
            Ok(())
        })?;
        let cdg = builder.finish();
        let mut report = crate::deadlock::verify_cdg(net, &cdg);
        report.paths = pairs;
        if pairs > 0 {
            report.lanes_used = report.lanes_used.max(1);
        }
        Ok(report)
    }

    /// `dor`'s datelines as torus-2QoS's SLs and SL-to-VL tables (at most
    /// four rings; more keep the dateline rule, which no file expresses).
    fn datelines_to_sl2vl(&mut self, net: &Network, d: &Datelines) -> Result<(), RoutingError> {
        let rings = d
            .ring
            .iter()
            .filter(|&&r| r != Datelines::NO_RING)
            .max()
            .map_or(0, |&r| r + 1);
        if rings > 4 {
            return Ok(());
        }
        let l = self.lid_count();
        let mut sls = vec![0u8; self.senders.len() * l];
        let mut path = Vec::new();
        for (start, _, members) in self.groups(net) {
            for i in 0..l {
                path.clear();
                if self.walk(net, start, i, &mut path).is_err() {
                    continue;
                }
                let sl = path.iter().fold(0u8, |sl, c| {
                    if d.dateline[c.index()] {
                        sl | 1 << d.ring[c.index()]
                    } else {
                        sl
                    }
                });
                for &k in &members {
                    sls[k * l + i] = sl;
                }
            }
        }
        self.sls = sls;
        self.report = std::sync::OnceLock::new();
        let mut table = SlToVl::new(net);
        for &x in net.switches() {
            let ports = net.node(x).ports;
            for out in 1..=ports {
                let Some(c) = net.channel_at(x, PortId(out)) else {
                    continue;
                };
                let ring = d.ring[c.index()];
                let vls: [u8; 16] = std::array::from_fn(|sl| {
                    if ring == Datelines::NO_RING {
                        0
                    } else {
                        (sl as u8 >> ring) & 1
                    }
                });
                for inp in 0..=ports {
                    table.tables.insert((x.0, inp, out), vls);
                }
            }
        }
        for &h in net.terminals() {
            for p in 1..=net.node(h).ports {
                table.tables.insert((h.0, 0, p), [0; 16]);
            }
        }
        self.rule = LaneRule::SlToVl(table);
        Ok(())
    }

    /// Moves the pairs the engine did not route to lanes on which they
    /// close no cycle, when the natural SLs close one (see the module docs).
    fn relayer(&mut self, net: &Network, limit: u8) -> Result<(), RoutingError> {
        // Broken tables (a hand-made or partial set) are left as they are:
        // the walks report them.
        match self.deadlock_report(net) {
            Ok(r) if !r.deadlock_free => {}
            _ => return Ok(()),
        }
        let l = self.lid_count();
        let index = Turns::new(net);
        let limit = limit.clamp(1, super::MAX_LANES);
        let mut layers: Vec<IncrementalCdg> =
            (0..limit).map(|_| IncrementalCdg::new(&index)).collect();
        // (start, entry, sl, senders, the engine's own pair)
        let mut items: Vec<(NodeId, usize, u8, Vec<usize>, bool)> = Vec::new();
        for (start, _, members) in self.groups(net) {
            for i in 0..l {
                let e = self.lids.entries()[i];
                let mut by_sl: Vec<(u8, Vec<usize>, bool)> = Vec::new();
                for &k in &members {
                    let se = self.lids.entries()[self.senders[k].entry];
                    if !self.analysed(net, k, i) {
                        continue;
                    }
                    let own = se.primary
                        && net.is_terminal(se.node)
                        && net.is_terminal(e.node)
                        && net.out_channels(e.node).len() == 1;
                    let sl = self.sl(k, i);
                    match by_sl.iter_mut().find(|(s, ..)| *s == sl) {
                        Some((_, v, o)) => {
                            v.push(k);
                            *o |= own;
                        }
                        None => by_sl.push((sl, vec![k], own)),
                    }
                }
                items.extend(by_sl.into_iter().map(|(sl, v, o)| (start, i, sl, v, o)));
            }
        }
        let mut path = Vec::new();
        for pass in [true, false] {
            for (start, i, sl, members, own) in &items {
                if *own != pass {
                    continue;
                }
                path.clear();
                if self.walk(net, *start, *i, &mut path).is_err() {
                    continue;
                }
                let natural = usize::from(*sl).min(layers.len() - 1);
                if pass {
                    if !layers[natural].try_add(&index, &path) {
                        return Ok(()); // the engine's own routes close a cycle
                    }
                    continue;
                }
                let order =
                    std::iter::once(natural).chain((0..layers.len()).filter(|&x| x != natural));
                let mut placed = None;
                for lane in order {
                    if layers[lane].try_add(&index, &path) {
                        placed = Some(lane as u8);
                        break;
                    }
                }
                if let Some(lane) = placed {
                    if lane != *sl {
                        self.report = std::sync::OnceLock::new();
                        for &k in members {
                            self.sls_mut()[k * l + i] = lane;
                            self.moved += 1;
                        }
                    }
                }
            }
        }
        Ok(())
    }

    /// Walks every LID from every switch; `examples` of the failures.
    pub fn audit(&self, net: &Network, examples: usize) -> LidAudit {
        let l = self.lid_count();
        let mut a = LidAudit {
            lids: l,
            switches: self.switches,
            ..LidAudit::default()
        };
        let mut bad = vec![false; l];
        let mut path = Vec::new();
        for &x in net.switches() {
            for (i, b) in bad.iter_mut().enumerate() {
                if !self.reachable(net, x, i) {
                    continue;
                }
                path.clear();
                let Err(stop) = self.walk(net, x, i, &mut path) else {
                    continue;
                };
                *b = true;
                let why = match &stop {
                    LidStop::Loop(y) => {
                        a.loops += 1;
                        format!("loops (returns to switch {})", net.label(*y))
                    }
                    LidStop::Hole(y, r) => {
                        a.holes += 1;
                        format!("lost at switch {}: {r}", net.label(*y))
                    }
                    LidStop::Wrong(y, r) => {
                        a.wrong += 1;
                        format!("wrong destination at switch {}: {r}", net.label(*y))
                    }
                };
                if a.examples.len() < examples {
                    a.examples.push((
                        net.label(x).into_owned(),
                        self.lids.entries()[i].lid,
                        format!("{}: {why}", self.lid_name(net, i)),
                    ));
                }
            }
        }
        a.unreachable = (0..l)
            .filter(|&i| bad[i])
            .map(|i| self.lids.entries()[i].lid)
            .collect();
        a
    }
}

/// Per switch index, the lowest port of a shortest switch-only path toward
/// switch index `x` (`None` at `x` and out of reach).
fn min_hop_ports(net: &Network, x: usize) -> Vec<Option<u16>> {
    let sw = net.switches();
    let mut dist = vec![u32::MAX; sw.len()];
    dist[x] = 0;
    let mut queue = std::collections::VecDeque::from([x]);
    while let Some(y) = queue.pop_front() {
        for &c in net.out_channels(sw[y]) {
            let to = net.channel(c).dst;
            if net.is_switch(to) && dist[net.kind_index(to)] == u32::MAX {
                dist[net.kind_index(to)] = dist[y] + 1;
                queue.push_back(net.kind_index(to));
            }
        }
    }
    (0..sw.len())
        .map(|y| {
            net.out_channels(sw[y])
                .iter()
                .map(|&c| net.channel(c))
                .filter(|ch| {
                    net.is_switch(ch.dst)
                        && dist[y] != u32::MAX
                        && dist[y] > 0
                        && dist[net.kind_index(ch.dst)] + 1 == dist[y]
                })
                .map(|ch| ch.src_port.0)
                .min()
        })
        .collect()
}

/// Per switch index: its connected component over switch links.
fn switch_components(net: &Network) -> Vec<u32> {
    let sw = net.switches();
    let mut comp = vec![u32::MAX; sw.len()];
    let mut next = 0;
    for r in 0..sw.len() {
        if comp[r] != u32::MAX {
            continue;
        }
        comp[r] = next;
        let mut stack = vec![r];
        while let Some(y) = stack.pop() {
            for &c in net.out_channels(sw[y]) {
                let to = net.channel(c).dst;
                if net.is_switch(to) && comp[net.kind_index(to)] == u32::MAX {
                    comp[net.kind_index(to)] = next;
                    stack.push(net.kind_index(to));
                }
            }
        }
        next += 1;
    }
    comp
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::network::spec;
    use crate::routing::{route, RoutingOptions};

    fn same(net: &Network, routes: &Routes) -> DeadlockReport {
        let view = LidRoutes::of(net, routes).unwrap();
        let by_path = view.path_report(net).unwrap();
        let by_tree = view.tree_report(net).unwrap().expect("the walks succeed");
        assert_eq!(
            by_tree.deadlock_free,
            by_path.deadlock_free,
            "{}",
            net.name()
        );
        assert_eq!(by_tree.lanes_used, by_path.lanes_used, "{}", net.name());
        assert_eq!(by_tree.paths, by_path.paths, "{}", net.name());
        assert_eq!(by_tree.dependencies, by_path.dependencies, "{}", net.name());
        by_tree
    }

    #[test]
    fn one_tree_per_lid_finds_the_dependencies_of_every_walk() {
        let mut cyclic = 0;
        for seed in 1..=4 {
            let net =
                spec::build(&format!("random:switches=20,ports=6,hosts=2,seed={seed}")).unwrap();
            // minhop can deadlock; updown and dfsssp (several SLs) cannot;
            // lash within one lane fails or deadlocks.
            for (engine, lanes) in [("minhop", 8), ("updown", 8), ("dfsssp", 8), ("sssp", 8)] {
                let opts = RoutingOptions {
                    max_lanes: lanes,
                    ..RoutingOptions::default()
                };
                let Ok(routes) = route(&net, engine, &opts) else {
                    continue;
                };
                let r = same(&net, &routes);
                cyclic += usize::from(!r.deadlock_free);
            }
        }
        assert!(cyclic > 0, "some routing with a cycle was compared");
        // A 3-level tree, where up*/down* moves switch traffic to SL 1.
        let net = spec::build("kary-ntree:k=4,n=3").unwrap();
        for engine in ["updown", "ftree", "minhop"] {
            let routes = route(&net, engine, &RoutingOptions::default()).unwrap();
            same(&net, &routes);
        }
    }

    #[test]
    fn a_broken_walk_is_named_by_the_walk_that_breaks() {
        let net = spec::build("kary-ntree:k=4,n=2").unwrap();
        let mut routes = route(&net, "ftree", &RoutingOptions::default()).unwrap();
        // Switch 0 loses its entry toward terminal 5.
        routes.set_port(0, 5, None);
        let view = LidRoutes::of(&net, &routes).unwrap();
        assert!(view.tree_report(&net).unwrap().is_none());
        let err = view.deadlock_report(&net).unwrap_err().to_string();
        assert_eq!(err, view.path_report(&net).unwrap_err().to_string());
        assert!(err.contains("no table entry"), "{err}");
    }
}
