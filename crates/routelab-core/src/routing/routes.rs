//! Oblivious routes: destination-based forwarding tables and lanes.
//!
//! # Tables
//! Like an InfiniBand linear forwarding table (LFT), every switch holds one
//! output port per destination terminal, stored flat as `u16` indexed
//! `switch_index * T + terminal_index` (indices as in
//! [`Network::switches`] and [`Network::terminals`]); port 0 means "no
//! route". A packet from terminal `s` enters the fabric through its first
//! cabled switch port ([`Network::attached_switch`]) and follows the tables
//! until a switch delivers it to its destination.
//!
//! # Lanes
//! Each (source, destination) terminal pair has a *pair lane* (`u8`, T x T
//! entries), the lane the packet is injected on (an InfiniBand service
//! level mapped to a VL). How the lane evolves along the path is the
//! [`LaneRule`]:
//! - [`LaneRule::Fixed`]: every hop stays on the pair lane (virtual layers:
//!   DFSSSP, LASH; single-lane engines).
//! - [`LaneRule::Dateline`]: dimension-order routing on tori. Every
//!   switch-to-switch channel belongs to a ring (its dimension) and the
//!   wraparound channels are datelines. A packet travels each ring on its
//!   pair lane until it has crossed that ring's dateline, then on the next
//!   lane (pair lane plus one); entering a new ring starts again on the pair
//!   lane, and channels outside any ring (terminal links) keep the current
//!   lane. This is
//!   InfiniBand's SL-to-VL mapping per (input port, output port) in spirit:
//!   the lane of a hop follows from the previous hop's lane and the two
//!   channels, so no per-hop lanes are stored.
//!
//! [`Routes::path_lanes`] gives the real lane of every hop; the deadlock
//! check ([`Routes::deadlock_report`]) builds its dependency graph from them.
//!
//! # Memory
//! Tables take 2 bytes per (switch, terminal); pair lanes 1 byte per
//! terminal pair: 256 MiB at 16,384 terminals, so beyond ~16k terminals
//! pair lanes should be stored per (source switch, destination) instead.

use super::RoutingError;
use crate::deadlock::{CdgBuilder, DeadlockReport, PathList, PathRef};
use crate::network::metrics::{bfs_distances, UNREACHABLE};
use crate::network::{ChannelId, Network, NodeId, PortId};

/// How the lane of each hop follows from the pair lane. See the module docs.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum LaneRule {
    /// Every hop uses the pair lane.
    #[default]
    Fixed,
    /// Dateline lane changes on rings (torus DOR).
    Dateline(Datelines),
}

/// Per channel: the ring it belongs to and whether it is the ring's dateline.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Datelines {
    /// `ring[c]`: ring (dimension) of channel `c`, or [`Datelines::NO_RING`].
    pub ring: Vec<u8>,
    /// `dateline[c]`: crossing `c` moves the packet to the next lane.
    pub dateline: Vec<bool>,
}

impl Datelines {
    pub const NO_RING: u8 = u8::MAX;
}

impl LaneRule {
    /// The lane of every hop of `channels` for a packet on `pair_lane`.
    pub fn hop_lanes(&self, pair_lane: u8, channels: &[ChannelId], out: &mut Vec<u8>) {
        out.clear();
        match self {
            LaneRule::Fixed => out.resize(channels.len(), pair_lane),
            LaneRule::Dateline(d) => {
                let mut ring = Datelines::NO_RING;
                let mut crossed = false;
                for &c in channels {
                    let r = d.ring[c.index()];
                    if r != Datelines::NO_RING && r != ring {
                        ring = r;
                        crossed = false;
                    }
                    out.push(pair_lane + u8::from(crossed));
                    if d.dateline[c.index()] {
                        crossed = true;
                    }
                }
            }
        }
    }

    /// Lanes a hop can add on top of the pair lane.
    fn extra_lanes(&self) -> u8 {
        match self {
            LaneRule::Fixed => 0,
            LaneRule::Dateline(d) => u8::from(d.dateline.iter().any(|&x| x)),
        }
    }
}

/// Several source routes per terminal pair, for multipath engines: the
/// paths of pair `(s, d)` are `paths[base[s * T + d]..base[s * T + d + 1]]`,
/// each with its lane.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PathSet {
    terminals: usize,
    base: Vec<usize>,
    paths: PathList,
    lanes: Vec<u8>,
}

impl PathSet {
    /// An empty set for `terminals` terminals; fill it pair by pair, in
    /// (source, destination) order, with [`PathSet::push`] and
    /// [`PathSet::next_pair`].
    pub fn new(terminals: usize) -> Self {
        PathSet {
            terminals,
            base: vec![0],
            paths: PathList::new(),
            lanes: Vec::new(),
        }
    }

    /// Adds a path to the current pair.
    pub fn push(&mut self, channels: &[ChannelId], lane: u8) {
        self.paths.push(channels);
        self.lanes.push(lane);
    }

    /// Closes the current pair and moves to the next one.
    pub fn next_pair(&mut self) {
        self.base.push(self.paths.len());
    }

    /// The paths of a pair with their lanes.
    pub fn paths(&self, src: usize, dst: usize) -> impl Iterator<Item = (&[ChannelId], u8)> + '_ {
        let p = src * self.terminals + dst;
        let (a, b) = if p + 1 < self.base.len() {
            (self.base[p], self.base[p + 1])
        } else {
            (0, 0)
        };
        (a..b).map(move |i| (self.paths.get(i), self.lanes[i]))
    }
}

/// Oblivious routes of one network. See the module docs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Routes {
    engine: String,
    switches: usize,
    terminals: usize,
    pub(crate) table: Vec<u16>,
    pub(crate) lanes: Vec<u8>,
    max_pair_lane: u8,
    lanes_needed: Option<u8>,
    lane_rule: LaneRule,
    paths: Option<PathSet>,
}

/// Why a table walk stopped.
enum Stop {
    Loop(NodeId),
    Hole(NodeId, String),
}

impl Routes {
    /// Empty tables (every entry "no route", every pair on lane 0) for `net`.
    pub fn new(net: &Network, engine: impl Into<String>) -> Self {
        let s = net.switches().len();
        let t = net.terminals().len();
        Routes {
            engine: engine.into(),
            switches: s,
            terminals: t,
            table: vec![0; s * t],
            lanes: vec![0; t * t],
            max_pair_lane: 0,
            lanes_needed: None,
            lane_rule: LaneRule::Fixed,
            paths: None,
        }
    }

    /// The engine that computed the routes (or where they were read from).
    pub fn engine(&self) -> &str {
        &self.engine
    }

    pub fn switch_count(&self) -> usize {
        self.switches
    }

    pub fn terminal_count(&self) -> usize {
        self.terminals
    }

    /// The output port of switch `switch` (index in [`Network::switches`])
    /// towards terminal `dst`, if it has a route.
    pub fn port(&self, switch: usize, dst: usize) -> Option<PortId> {
        match self.table[switch * self.terminals + dst] {
            0 => None,
            p => Some(PortId(p)),
        }
    }

    pub fn set_port(&mut self, switch: usize, dst: usize, port: Option<PortId>) {
        self.table[switch * self.terminals + dst] = port.map_or(0, |p| p.0);
    }

    /// The forwarding table of one switch: the port per destination terminal
    /// (0 = no route).
    pub fn table(&self, switch: usize) -> &[u16] {
        &self.table[switch * self.terminals..(switch + 1) * self.terminals]
    }

    /// The pair lane of `(src, dst)`: the lane the packet is injected on.
    pub fn lane(&self, src: usize, dst: usize) -> u8 {
        self.lanes[src * self.terminals + dst]
    }

    pub fn set_lane(&mut self, src: usize, dst: usize, lane: u8) {
        self.lanes[src * self.terminals + dst] = lane;
        self.max_pair_lane = self.max_pair_lane.max(lane);
    }

    /// Number of lanes the routes use (highest hop lane plus one).
    pub fn lanes(&self) -> u8 {
        self.max_pair_lane + 1 + self.lane_rule.extra_lanes()
    }

    /// Lanes the engine needed for deadlock freedom before spreading paths
    /// over spare lanes (DFSSSP's balancing); otherwise [`Routes::lanes`].
    pub fn lanes_needed(&self) -> u8 {
        self.lanes_needed.unwrap_or_else(|| self.lanes())
    }

    pub fn set_lanes_needed(&mut self, lanes: u8) {
        self.lanes_needed = Some(lanes);
    }

    pub fn lane_rule(&self) -> &LaneRule {
        &self.lane_rule
    }

    pub fn set_lane_rule(&mut self, rule: LaneRule) {
        self.lane_rule = rule;
    }

    /// Several paths per pair, for multipath engines.
    pub fn path_set(&self) -> Option<&PathSet> {
        self.paths.as_ref()
    }

    pub fn set_path_set(&mut self, paths: Option<PathSet>) {
        self.paths = paths;
    }

    fn check(&self, net: &Network) -> Result<(), RoutingError> {
        let (s, t) = (net.switches().len(), net.terminals().len());
        if s != self.switches || t != self.terminals {
            return Err(RoutingError::Mismatch {
                what: format!(
                    "the routes are for {} switches and {} terminals, '{}' has {s} and {t}",
                    self.switches,
                    self.terminals,
                    net.name()
                ),
            });
        }
        Ok(())
    }

    fn check_pair(&self, src: usize, dst: usize) -> Result<(), RoutingError> {
        if src >= self.terminals || dst >= self.terminals {
            return Err(RoutingError::Mismatch {
                what: format!(
                    "terminal pair ({src}, {dst}) out of range: there are {} terminals",
                    self.terminals
                ),
            });
        }
        Ok(())
    }

    /// Follows the tables from `start` (a switch) to terminal `dst`, appending
    /// the channels taken (the last one enters `dst`).
    fn walk(
        &self,
        net: &Network,
        start: NodeId,
        dst: usize,
        out: &mut Vec<ChannelId>,
    ) -> Result<(), Stop> {
        let target = net.terminal(dst);
        let first = out.len();
        let mut x = start;
        loop {
            let si = net.kind_index(x);
            let port = self.table[si * self.terminals + dst];
            if port == 0 {
                return Err(Stop::Hole(x, "no table entry".into()));
            }
            let Some(c) = net.channel_at(x, PortId(port)) else {
                return Err(Stop::Hole(x, format!("port {port} is not cabled")));
            };
            out.push(c);
            let y = net.channel(c).dst;
            if y == target {
                return Ok(());
            }
            if net.is_terminal(y) {
                return Err(Stop::Hole(
                    x,
                    format!("port {port} leads to terminal {}", net.node(y).name),
                ));
            }
            if out.len() - first > self.switches {
                // Some switch repeats: report the first one that does.
                let mut seen = vec![false; self.switches];
                seen[net.kind_index(start)] = true;
                for &c in &out[first..] {
                    let v = net.channel(c).dst;
                    let i = net.kind_index(v);
                    if seen[i] {
                        return Err(Stop::Loop(v));
                    }
                    seen[i] = true;
                }
                return Err(Stop::Loop(y));
            }
            x = y;
        }
    }

    fn stop_error(net: &Network, src: NodeId, dst: usize, stop: Stop) -> RoutingError {
        let name = |v: NodeId| net.node(v).name.clone();
        let dst = name(net.terminal(dst));
        match stop {
            Stop::Loop(sw) => RoutingError::Loop {
                src: name(src),
                dst,
                switch: name(sw),
            },
            Stop::Hole(sw, reason) => RoutingError::BlackHole {
                src: name(src),
                dst,
                switch: name(sw),
                reason,
            },
        }
    }

    /// The injection channel of a terminal: towards its first switch.
    fn injection(net: &Network, src: NodeId) -> Option<ChannelId> {
        net.out_channels(src)
            .iter()
            .copied()
            .find(|&c| net.is_switch(net.channel(c).dst))
    }

    /// Appends the channels from terminal `src` to terminal `dst` to `out`.
    fn path_into(
        &self,
        net: &Network,
        src: usize,
        dst: usize,
        out: &mut Vec<ChannelId>,
    ) -> Result<(), RoutingError> {
        if src == dst {
            return Ok(());
        }
        let s = net.terminal(src);
        let Some(inj) = Self::injection(net, s) else {
            return Err(RoutingError::BlackHole {
                src: net.node(s).name.clone(),
                dst: net.node(net.terminal(dst)).name.clone(),
                switch: "(none)".into(),
                reason: "the source has no switch".into(),
            });
        };
        out.push(inj);
        self.walk(net, net.channel(inj).dst, dst, out)
            .map_err(|e| Self::stop_error(net, s, dst, e))
    }

    /// The channels from terminal `src` to terminal `dst` (indices as in
    /// [`Network::terminals`]), injection and ejection channels included;
    /// empty when `src == dst`.
    pub fn path(
        &self,
        net: &Network,
        src: usize,
        dst: usize,
    ) -> Result<Vec<ChannelId>, RoutingError> {
        self.check(net)?;
        self.check_pair(src, dst)?;
        let mut out = Vec::new();
        self.path_into(net, src, dst, &mut out)?;
        Ok(out)
    }

    /// The path and the lane of each of its hops.
    pub fn path_lanes(
        &self,
        net: &Network,
        src: usize,
        dst: usize,
    ) -> Result<(Vec<ChannelId>, Vec<u8>), RoutingError> {
        let p = self.path(net, src, dst)?;
        let mut lanes = Vec::new();
        self.lane_rule
            .hop_lanes(self.lane(src, dst), &p, &mut lanes);
        Ok((p, lanes))
    }

    /// Number of channels from `src` to `dst`.
    pub fn hops(&self, net: &Network, src: usize, dst: usize) -> Result<usize, RoutingError> {
        Ok(self.path(net, src, dst)?.len())
    }

    /// Calls `f(switch, dst, channels)` for every switch that injects
    /// traffic and every destination terminal, with the channels from that
    /// switch to the destination (ejection included). All terminals
    /// injecting at a switch share these channels after their injection
    /// channel.
    fn for_each_switch_path(
        &self,
        net: &Network,
        mut f: impl FnMut(NodeId, usize, &[ChannelId]) -> Result<(), RoutingError>,
    ) -> Result<(), RoutingError> {
        self.check(net)?;
        let mut injecting = vec![false; self.switches];
        for &t in net.terminals() {
            if let Some(c) = Self::injection(net, t) {
                injecting[net.kind_index(net.channel(c).dst)] = true;
            }
        }
        let mut buf = Vec::new();
        for (si, &x) in net.switches().iter().enumerate() {
            if !injecting[si] {
                continue;
            }
            for d in 0..self.terminals {
                buf.clear();
                self.walk(net, x, d, &mut buf).map_err(|e| {
                    // Name a real source terminal injecting here.
                    let src = net
                        .terminals()
                        .iter()
                        .copied()
                        .find(|&t| Self::injection(net, t).map(|c| net.channel(c).dst) == Some(x))
                        .unwrap_or(x);
                    Self::stop_error(net, src, d, e)
                })?;
                f(x, d, &buf)?;
            }
        }
        Ok(())
    }

    /// Per terminal: the switch it injects into, if any.
    fn injection_switches(net: &Network) -> Vec<Option<NodeId>> {
        net.terminals()
            .iter()
            .map(|&t| Self::injection(net, t).map(|c| net.channel(c).dst))
            .collect()
    }

    /// Hop counts of every pair `src != dst`: calls `f(src, dst, hops)`.
    fn for_each_pair_hops(
        &self,
        net: &Network,
        mut f: impl FnMut(usize, usize, usize) -> Result<(), RoutingError>,
    ) -> Result<(), RoutingError> {
        let inj = Self::injection_switches(net);
        // Terminals grouped by injection switch index.
        let mut by_switch: Vec<Vec<usize>> = vec![Vec::new(); self.switches];
        for (t, s) in inj.iter().enumerate() {
            match s {
                Some(s) => by_switch[net.kind_index(*s)].push(t),
                None if self.terminals > 1 => {
                    let other = usize::from(t == 0);
                    return Err(RoutingError::BlackHole {
                        src: net.node(net.terminal(t)).name.clone(),
                        dst: net.node(net.terminal(other)).name.clone(),
                        switch: "(none)".into(),
                        reason: "the source has no switch".into(),
                    });
                }
                None => {}
            }
        }
        self.for_each_switch_path(net, |x, d, p| {
            for &s in &by_switch[net.kind_index(x)] {
                if s != d {
                    f(s, d, p.len() + 1)?;
                }
            }
            Ok(())
        })
    }

    /// The longest path, in channels.
    pub fn max_hops(&self, net: &Network) -> Result<usize, RoutingError> {
        let mut m = 0;
        self.for_each_pair_hops(net, |_, _, h| {
            m = m.max(h);
            Ok(())
        })?;
        Ok(m)
    }

    /// The mean path length over all pairs of distinct terminals.
    pub fn avg_hops(&self, net: &Network) -> Result<f64, RoutingError> {
        let (mut sum, mut n) = (0u64, 0u64);
        self.for_each_pair_hops(net, |_, _, h| {
            sum += h as u64;
            n += 1;
            Ok(())
        })?;
        Ok(if n == 0 { 0.0 } else { sum as f64 / n as f64 })
    }

    /// The first pair (in source, destination order) whose path is longer
    /// than the shortest path between them: `(src, dst, hops, distance)`.
    pub fn first_non_minimal(
        &self,
        net: &Network,
    ) -> Result<Option<(usize, usize, usize, usize)>, RoutingError> {
        self.check(net)?;
        let inj = Self::injection_switches(net);
        let mut dist_of: Vec<Option<Vec<u32>>> = vec![None; self.switches];
        let mut found = None;
        self.for_each_pair_hops(net, |s, d, h| {
            if found.is_some() {
                return Ok(());
            }
            let x = inj[s].expect("checked by for_each_pair_hops");
            let dist = dist_of[net.kind_index(x)].get_or_insert_with(|| bfs_distances(net, x));
            let dd = dist[net.terminal(d).index()];
            let expect = if dd == UNREACHABLE {
                usize::MAX
            } else {
                dd as usize + 1
            };
            if h != expect {
                found = Some((s, d, h, expect));
            }
            Ok(())
        })?;
        Ok(found)
    }

    /// Is every path a shortest one? (Measured from the switch each source
    /// injects into, plus the injection hop: for single-homed terminals this
    /// is the BFS distance between the terminals.)
    pub fn is_minimal(&self, net: &Network) -> Result<bool, RoutingError> {
        Ok(self.first_non_minimal(net)?.is_none())
    }

    /// Builds the channel dependency graph of all routes, with the real lane
    /// of every hop, and looks for a cycle.
    pub fn deadlock_report(&self, net: &Network) -> Result<DeadlockReport, RoutingError> {
        let inj = Self::injection_switches(net);
        let t = self.terminals;
        let mut by_switch: Vec<Vec<usize>> = vec![Vec::new(); self.switches];
        for (s, x) in inj.iter().enumerate() {
            if let Some(x) = x {
                by_switch[net.kind_index(*x)].push(s);
            }
        }
        let mut builder = CdgBuilder::new(net);
        let mut lanes = Vec::new();
        self.for_each_switch_path(net, |x, d, p| {
            // Distinct pair lanes used from this switch to d.
            let mut mask = 0u32;
            for &s in &by_switch[net.kind_index(x)] {
                if s != d {
                    mask |= 1 << self.lanes[s * t + d].min(31);
                }
            }
            while mask != 0 {
                let lane = mask.trailing_zeros() as u8;
                mask &= mask - 1;
                self.lane_rule.hop_lanes(lane, p, &mut lanes);
                builder.add(PathRef::per_hop(p, &lanes))?;
            }
            Ok(())
        })?;
        let cdg = builder.finish();
        let mut report = crate::deadlock::verify_cdg(net, &cdg);
        // Paths were added per (switch, destination, lane); count pairs.
        report.paths = if t > 1 {
            inj.iter().filter(|x| x.is_some()).count() * (t - 1)
        } else {
            0
        };
        if report.paths > 0 {
            report.lanes_used = report.lanes_used.max(1);
        }
        Ok(report)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dateline_lanes_change_after_the_dateline_and_reset_per_ring() {
        // Channels 0..6: 0 a terminal link, 1-3 ring 0 (2 is the dateline),
        // 4-5 ring 1, 6 a terminal link.
        let rule = LaneRule::Dateline(Datelines {
            ring: vec![Datelines::NO_RING, 0, 0, 0, 1, 1, Datelines::NO_RING],
            dateline: vec![false, false, true, false, false, false, false],
        });
        let path: Vec<ChannelId> = (0..7).map(ChannelId).collect();
        let mut lanes = Vec::new();
        rule.hop_lanes(0, &path, &mut lanes);
        assert_eq!(lanes, vec![0, 0, 0, 1, 0, 0, 0]);
        rule.hop_lanes(2, &path[..4], &mut lanes);
        assert_eq!(lanes, vec![2, 2, 2, 3]);
        LaneRule::Fixed.hop_lanes(3, &path[..2], &mut lanes);
        assert_eq!(lanes, vec![3, 3]);
        assert_eq!(rule.extra_lanes(), 1);
    }

    #[test]
    fn path_sets_hold_several_paths_per_pair() {
        let mut ps = PathSet::new(2);
        for pair in 0..4 {
            for k in 0..pair {
                ps.push(&[ChannelId(k)], k as u8);
            }
            ps.next_pair();
        }
        assert_eq!(ps.paths(0, 0).count(), 0);
        assert_eq!(ps.paths(1, 1).count(), 3);
        let v: Vec<_> = ps.paths(1, 0).collect();
        assert_eq!(v, vec![(&[ChannelId(0)][..], 0), (&[ChannelId(1)][..], 1)]);
    }
}
