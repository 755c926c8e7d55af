//! The channel dependency graph (CDG) of a set of paths.
//!
//! A dependency joins two switch-to-switch channels meeting at a switch: a
//! *turn*. [`Turns`] numbers every possible turn densely (per switch, one
//! row per incoming channel and one column per outgoing channel), so the
//! dependencies of a path are found in O(1) per hop without hashing, and a
//! CDG can be stored as one bit (or counter) per turn and lane pair.
//! [`CdgBuilder`] collects the dependencies of many paths; [`Cdg`] is the
//! frozen graph over (channel, lane) nodes in CSR form.

use super::{DeadlockError, LaneChannel, PathRef, MAX_LANES};
use crate::network::{ChannelId, Network, NodeId};

const NONE: u32 = u32::MAX;

/// Dense numbering of the turns (switch-to-switch channel pairs meeting at a
/// switch). The turn from incoming channel `a` to outgoing channel `b` at
/// switch `n` is `base[n] + i * d + j`, where `d` is the number of
/// switch-to-switch channels leaving `n`, `j` the position of `b` among them
/// and `i` the position of `a`'s reverse.
#[derive(Debug, Clone)]
pub struct Turns {
    base: Vec<usize>,
    out_base: Vec<u32>,
    out: Vec<ChannelId>,
    /// Per channel: its position among its source's switch channels, or NONE.
    local: Vec<u32>,
    /// Per channel: source and sink node.
    tail: Vec<u32>,
    head: Vec<u32>,
    /// Per node: is it a terminal?
    terminal: Vec<bool>,
}

impl Turns {
    pub fn new(net: &Network) -> Self {
        let n = net.node_count();
        let mut out_base = Vec::with_capacity(n + 1);
        let mut out = Vec::new();
        let mut local = vec![NONE; net.channel_count()];
        let mut base = Vec::with_capacity(n + 1);
        let mut turns = 0usize;
        for v in net.node_ids() {
            out_base.push(out.len() as u32);
            base.push(turns);
            if !net.is_switch(v) {
                continue;
            }
            let first = out.len();
            for &c in net.out_channels(v) {
                if net.is_switch(net.channel(c).dst) {
                    local[c.index()] = (out.len() - first) as u32;
                    out.push(c);
                }
            }
            let d = out.len() - first;
            turns += d * d;
        }
        out_base.push(out.len() as u32);
        base.push(turns);
        let tail = net.channels().iter().map(|c| c.src.0).collect();
        let head = net.channels().iter().map(|c| c.dst.0).collect();
        let terminal = net.node_ids().map(|v| net.is_terminal(v)).collect();
        Turns {
            base,
            out_base,
            out,
            local,
            tail,
            head,
            terminal,
        }
    }

    /// The number of turns.
    pub fn len(&self) -> usize {
        *self.base.last().unwrap_or(&0)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The number of channels of the network.
    pub fn channel_count(&self) -> usize {
        self.local.len()
    }

    /// Does the channel join two switches?
    #[inline]
    pub fn is_switch_channel(&self, c: ChannelId) -> bool {
        self.local[c.index()] != NONE
    }

    #[inline]
    pub fn head(&self, c: ChannelId) -> NodeId {
        NodeId(self.head[c.index()])
    }

    #[inline]
    pub fn tail(&self, c: ChannelId) -> NodeId {
        NodeId(self.tail[c.index()])
    }

    /// Switch-to-switch channels leaving node `n`, in port order.
    #[inline]
    pub fn switch_out(&self, n: NodeId) -> &[ChannelId] {
        let i = n.index();
        &self.out[self.out_base[i] as usize..self.out_base[i + 1] as usize]
    }

    /// The turn from `a` into `b`, if both join switches and meet.
    #[inline]
    pub fn turn(&self, a: ChannelId, b: ChannelId) -> Option<usize> {
        let i = self.local[a.reverse().index()];
        let j = self.local[b.index()];
        if i == NONE || j == NONE || self.head[a.index()] != self.tail[b.index()] {
            return None;
        }
        let n = self.head[a.index()] as usize;
        let d = (self.out_base[n + 1] - self.out_base[n]) as usize;
        Some(self.base[n] + i as usize * d + j as usize)
    }

    /// The turns out of channel `a`: the first turn id and the channels
    /// they lead to (turn `first + k` leads to `targets[k]`).
    #[inline]
    pub fn row(&self, a: ChannelId) -> (usize, &[ChannelId]) {
        let i = self.local[a.reverse().index()];
        if i == NONE {
            return (0, &[]);
        }
        let n = NodeId(self.head[a.index()]);
        let targets = self.switch_out(n);
        (self.base[n.index()] + i as usize * targets.len(), targets)
    }

    /// The turns into channel `b`: turn `first + k * stride` comes from
    /// `sources[k].reverse()`. Returns `(first, stride, sources)`.
    #[inline]
    pub fn column(&self, b: ChannelId) -> (usize, usize, &[ChannelId]) {
        let j = self.local[b.index()];
        if j == NONE {
            return (0, 0, &[]);
        }
        let n = NodeId(self.tail[b.index()]);
        let outs = self.switch_out(n);
        (self.base[n.index()] + j as usize, outs.len(), outs)
    }

    /// The channels of turn `t`: `(from, to)`.
    pub fn channels_of(&self, t: usize) -> (ChannelId, ChannelId) {
        let n = self.base.partition_point(|&b| b <= t) - 1;
        // Skip nodes without turns that share the same base.
        let outs = self.switch_out(NodeId(n as u32));
        let d = outs.len();
        let k = t - self.base[n];
        (outs[k / d].reverse(), outs[k % d])
    }

    /// Checks that consecutive channels meet and that a terminal is left
    /// only by its injection channel back into the network (an in-transit
    /// host, flich2000: it ejects the packet whole, so no dependency
    /// crosses it). `path` is the index used in error messages.
    pub fn check_path(
        &self,
        net: &Network,
        path: usize,
        channels: &[ChannelId],
    ) -> Result<(), DeadlockError> {
        for (k, w) in channels.windows(2).enumerate() {
            let (a, b) = (w[0], w[1]);
            let (h, t) = (self.head[a.index()], self.tail[b.index()]);
            if h != t {
                return Err(DeadlockError::BrokenPath {
                    path,
                    hop: k + 1,
                    detail: format!(
                        "hop {} ends at {} but hop {} starts at {}",
                        k,
                        net.label(NodeId(h)),
                        k + 1,
                        net.label(NodeId(t))
                    ),
                });
            }
            if self.terminal[h as usize] && self.terminal[self.head[b.index()] as usize] {
                return Err(DeadlockError::TerminalForwards {
                    path,
                    hop: k + 1,
                    terminal: net.label(NodeId(h)).into_owned(),
                });
            }
        }
        Ok(())
    }
}

/// A set of bits, one per turn, for one pair of lanes.
#[derive(Debug, Clone)]
struct TurnBits(Vec<u64>);

impl TurnBits {
    fn new(turns: usize) -> Self {
        TurnBits(vec![0; turns.div_ceil(64)])
    }
    #[inline]
    fn set(&mut self, t: usize) -> bool {
        let w = &mut self.0[t >> 6];
        let m = 1u64 << (t & 63);
        let fresh = *w & m == 0;
        *w |= m;
        fresh
    }
    fn iter(&self) -> impl Iterator<Item = usize> + '_ {
        self.0.iter().enumerate().flat_map(|(i, &w)| {
            let mut w = w;
            std::iter::from_fn(move || {
                if w == 0 {
                    return None;
                }
                let b = w.trailing_zeros() as usize;
                w &= w - 1;
                Some(i * 64 + b)
            })
        })
    }
}

/// Collects the dependencies of paths, one path at a time, so that the
/// paths of a whole fabric never need to be held in memory together.
/// Memory: one bit per turn for every (lane, next lane) pair in use.
#[derive(Debug, Clone)]
pub struct CdgBuilder<'n> {
    net: &'n Network,
    turns: Turns,
    /// Indexed `from_lane * MAX_LANES + to_lane`; allocated on first use.
    bits: Vec<Option<TurnBits>>,
    max_lane: Option<u8>,
    paths: usize,
    dependencies: usize,
}

impl<'n> CdgBuilder<'n> {
    pub fn new(net: &'n Network) -> Self {
        CdgBuilder {
            net,
            turns: Turns::new(net),
            bits: vec![None; MAX_LANES * MAX_LANES],
            max_lane: None,
            paths: 0,
            dependencies: 0,
        }
    }

    /// The turn index of the network.
    pub fn turns(&self) -> &Turns {
        &self.turns
    }

    /// Adds the dependencies of one path.
    pub fn add(&mut self, path: PathRef<'_>) -> Result<(), DeadlockError> {
        let index = self.paths;
        let ch = path.channels;
        if let super::PathLanes::PerHop(l) = path.lanes {
            if l.len() != ch.len() {
                return Err(DeadlockError::LaneCount {
                    path: index,
                    lanes: l.len(),
                    hops: ch.len(),
                });
            }
        }
        self.turns.check_path(self.net, index, ch)?;
        for k in 0..ch.len() {
            let lane = path.lanes.at(k);
            if lane as usize >= MAX_LANES {
                return Err(DeadlockError::LaneOutOfRange { path: index, lane });
            }
            self.max_lane = Some(self.max_lane.map_or(lane, |m| m.max(lane)));
        }
        for k in 1..ch.len() {
            if let Some(t) = self.turns.turn(ch[k - 1], ch[k]) {
                let pair = path.lanes.at(k - 1) as usize * MAX_LANES + path.lanes.at(k) as usize;
                let n = self.turns.len();
                let bits = self.bits[pair].get_or_insert_with(|| TurnBits::new(n));
                if bits.set(t) {
                    self.dependencies += 1;
                }
            }
        }
        self.paths += 1;
        Ok(())
    }

    /// Adds one path whose dependencies the caller adds turn by turn
    /// ([`CdgBuilder::add_turn`]): checks that collect the dependencies of
    /// a whole destination tree at once instead of path by path.
    pub fn add_path_lane(&mut self, lane: u8) -> Result<(), DeadlockError> {
        if lane as usize >= MAX_LANES {
            return Err(DeadlockError::LaneOutOfRange {
                path: self.paths,
                lane,
            });
        }
        self.max_lane = Some(self.max_lane.map_or(lane, |m| m.max(lane)));
        self.paths += 1;
        Ok(())
    }

    /// Adds the dependency of a packet on lane `la` of channel `a` on lane
    /// `lb` of channel `b` (`a` ending where `b` starts); nothing when the
    /// two do not meet at a switch as switch-to-switch channels.
    #[inline]
    pub fn add_turn(&mut self, a: ChannelId, b: ChannelId, la: u8, lb: u8) {
        if let Some(t) = self.turns.turn(a, b) {
            let pair = la as usize * MAX_LANES + lb as usize;
            let n = self.turns.len();
            let bits = self.bits[pair].get_or_insert_with(|| TurnBits::new(n));
            if bits.set(t) {
                self.dependencies += 1;
            }
        }
    }

    /// Adds everything `other` (built on the same network) collected: the
    /// merge of builders filled on several threads.
    pub fn merge(&mut self, other: CdgBuilder<'_>) {
        for (pair, bits) in other.bits.into_iter().enumerate() {
            let Some(bits) = bits else { continue };
            match &mut self.bits[pair] {
                Some(mine) => {
                    for (w, o) in mine.0.iter_mut().zip(&bits.0) {
                        self.dependencies += (o & !*w).count_ones() as usize;
                        *w |= o;
                    }
                }
                slot @ None => {
                    self.dependencies += bits
                        .0
                        .iter()
                        .map(|w| w.count_ones() as usize)
                        .sum::<usize>();
                    *slot = Some(bits);
                }
            }
        }
        self.max_lane = match (self.max_lane, other.max_lane) {
            (Some(a), Some(b)) => Some(a.max(b)),
            (a, b) => a.or(b),
        };
        self.paths += other.paths;
    }

    /// The number of paths added.
    pub fn path_count(&self) -> usize {
        self.paths
    }

    /// The highest lane any path used, if any path was added.
    pub fn max_lane(&self) -> Option<u8> {
        self.max_lane
    }

    /// Freezes the graph.
    pub fn finish(self) -> Cdg {
        let channels = self.turns.channel_count();
        let lanes = self.max_lane.map_or(1, |m| m as usize + 1);
        let nodes = channels * lanes;
        let mut edges: Vec<(u32, u32)> = Vec::with_capacity(self.dependencies);
        for (pair, bits) in self.bits.iter().enumerate() {
            let Some(bits) = bits else { continue };
            let (la, lb) = (pair / MAX_LANES, pair % MAX_LANES);
            for t in bits.iter() {
                let (a, b) = self.turns.channels_of(t);
                edges.push((
                    (la * channels + a.index()) as u32,
                    (lb * channels + b.index()) as u32,
                ));
            }
        }
        Cdg::from_edges(channels, lanes as u8, nodes, edges, self.paths)
    }
}

/// A channel dependency graph over (channel, lane) nodes, stored CSR.
/// Node `lane * channels + channel` stands for `channel` on `lane`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cdg {
    channels: usize,
    lanes: u8,
    base: Vec<u32>,
    targets: Vec<u32>,
    paths: usize,
}

impl Cdg {
    fn from_edges(
        channels: usize,
        lanes: u8,
        nodes: usize,
        mut edges: Vec<(u32, u32)>,
        paths: usize,
    ) -> Self {
        edges.sort_unstable();
        edges.dedup();
        let mut base = vec![0u32; nodes + 1];
        for &(u, _) in &edges {
            base[u as usize + 1] += 1;
        }
        for i in 0..nodes {
            base[i + 1] += base[i];
        }
        let targets = edges.iter().map(|&(_, v)| v).collect();
        Cdg {
            channels,
            lanes,
            base,
            targets,
            paths,
        }
    }

    /// Builds the CDG of a collection of paths.
    pub fn build<'a>(
        net: &Network,
        paths: impl IntoIterator<Item = PathRef<'a>>,
    ) -> Result<Cdg, DeadlockError> {
        let mut b = CdgBuilder::new(net);
        for p in paths {
            b.add(p)?;
        }
        Ok(b.finish())
    }

    /// Number of nodes: channels times lanes.
    pub fn node_count(&self) -> usize {
        self.base.len() - 1
    }

    /// Number of dependencies.
    pub fn edge_count(&self) -> usize {
        self.targets.len()
    }

    /// Lanes covered (the highest lane used plus one).
    pub fn lanes(&self) -> u8 {
        self.lanes
    }

    /// Number of paths the graph was built from.
    pub fn path_count(&self) -> usize {
        self.paths
    }

    #[inline]
    pub fn node(&self, c: LaneChannel) -> u32 {
        (c.lane as usize * self.channels + c.channel.index()) as u32
    }

    #[inline]
    pub fn lane_channel(&self, node: u32) -> LaneChannel {
        let n = node as usize;
        LaneChannel {
            channel: ChannelId((n % self.channels) as u32),
            lane: (n / self.channels) as u8,
        }
    }

    /// The nodes `node` depends on.
    #[inline]
    pub fn successors(&self, node: u32) -> &[u32] {
        let i = node as usize;
        &self.targets[self.base[i] as usize..self.base[i + 1] as usize]
    }

    /// Is there a dependency from `a` to `b`?
    pub fn has_edge(&self, a: LaneChannel, b: LaneChannel) -> bool {
        self.successors(self.node(a)).contains(&self.node(b))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::network::build::torus;

    #[test]
    fn turns_round_trip() {
        let net = torus::torus(&[3, 4], 2).unwrap();
        let turns = Turns::new(&net);
        // 12 switches with 4 switch channels each: 16 turns per switch.
        assert_eq!(turns.len(), 12 * 16);
        for &s in net.switches() {
            for &b in turns.switch_out(s) {
                for &o in turns.switch_out(s) {
                    let a = o.reverse();
                    let t = turns.turn(a, b).unwrap();
                    assert_eq!(turns.channels_of(t), (a, b));
                    let (first, targets) = turns.row(a);
                    let k = targets.iter().position(|&x| x == b).unwrap();
                    assert_eq!(first + k, t);
                    let (first, stride, sources) = turns.column(b);
                    let k = sources.iter().position(|&x| x == o).unwrap();
                    assert_eq!(first + k * stride, t);
                }
            }
        }
        // Terminal channels have no turns.
        let h = net.terminal(0);
        let inj = net.out_channels(h)[0];
        assert!(!turns.is_switch_channel(inj));
        assert_eq!(
            turns.turn(inj, turns.switch_out(net.switches()[0])[0]),
            None
        );
    }
}
