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
//! # Path sets
//! Multipath and non-minimal engines (`multipath`, `valiant`) also attach a
//! [`PathSet`]: several source routes per pair, each with a lane per hop.
//! Traffic follows the path set, split evenly over a pair's paths; the
//! tables still hold one valid minimal route per destination so they can be
//! exported as an LFT. When a path set is present, [`Routes::path`],
//! [`Routes::path_lanes`], the hop statistics, [`Routes::is_minimal`] and
//! [`Routes::deadlock_report`] all use it (every path of every pair), and
//! [`Routes::lanes`] counts its lanes.
//!
//! # Memory
//! Tables take 2 bytes per (switch, terminal); pair lanes 1 byte per
//! terminal pair: 256 MiB at 16,384 terminals, so beyond ~16k terminals
//! pair lanes should be stored per (source switch, destination) instead.

use super::RoutingError;
use crate::deadlock::{CdgBuilder, DeadlockReport, PathRef};
use crate::network::metrics::{bfs_distances, UNREACHABLE};
use crate::network::{ChannelId, Network, NodeId, PortId};

/// The in-transit hosts a path visits: terminals it enters before its
/// last hop. Each visit adds an ejection and an injection channel that
/// hop counts leave out (the switch path is what is minimal or not).
pub fn transit_hosts(net: &Network, channels: &[ChannelId]) -> usize {
    let n = channels.len().saturating_sub(1);
    channels[..n]
        .iter()
        .filter(|&&c| net.is_terminal(net.channel(c).dst))
        .count()
}

/// How the lane of each hop follows from the pair lane. See the module docs.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum LaneRule {
    /// Every hop uses the pair lane.
    #[default]
    Fixed,
    /// Dateline lane changes on rings (torus DOR).
    Dateline(Datelines),
    /// InfiniBand SL-to-VL tables (`opensm-sl2vl.dump`): the pair lane is
    /// the service level; each hop's lane is the VL the table of the node
    /// it leaves maps that SL to, for the port the packet came in on and
    /// the port it leaves by.
    SlToVl(SlToVl),
}

/// SL-to-VL tables per node and (input port, output port); see
/// [`LaneRule::SlToVl`]. A node or port pair without a table keeps SL `i`
/// on VL `i`. VL 15 is InfiniBand's "drop".
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SlToVl {
    /// `(node index, input port, output port)` -> VL of each SL.
    pub tables: std::collections::HashMap<(u32, u16, u16), [u8; 16]>,
    /// Per channel: its source node, source port and destination port.
    pub channels: Vec<(u32, u16, u16)>,
}

impl SlToVl {
    /// Empty tables (SL `i` on VL `i` everywhere) for `net`'s channels.
    pub fn new(net: &crate::network::Network) -> Self {
        SlToVl {
            tables: std::collections::HashMap::new(),
            channels: net
                .channels()
                .iter()
                .map(|c| (c.src.0, c.src_port.0, c.dst_port.0))
                .collect(),
        }
    }

    /// The VL of `sl` on channel `c` entered through `in_port` (0 for a
    /// packet its source node injects).
    pub fn vl(&self, in_port: u16, c: ChannelId, sl: u8) -> u8 {
        let (node, out, _) = self.channels[c.index()];
        self.tables
            .get(&(node, in_port, out))
            .map_or(sl, |t| t[usize::from(sl & 15)])
    }

    /// The highest VL any table maps an SL below `sls` to, 15 (drop)
    /// aside; `sls - 1` without tables.
    fn max_vl(&self, sls: u8) -> u8 {
        if self.tables.is_empty() {
            return sls.saturating_sub(1);
        }
        self.tables
            .values()
            .flat_map(|t| t[..usize::from(sls.min(16))].iter().copied())
            .filter(|&v| v != DROP_VL)
            .max()
            .unwrap_or(0)
    }
}

/// The VL an SL-to-VL table names to drop a packet.
pub const DROP_VL: u8 = 15;

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
            LaneRule::SlToVl(t) => {
                let mut in_port = 0;
                for &c in channels {
                    out.push(t.vl(in_port, c, pair_lane));
                    in_port = t.channels[c.index()].2;
                }
            }
        }
    }

    /// Lanes a hop can add on top of the pair lane.
    fn extra_lanes(&self) -> u8 {
        match self {
            LaneRule::Fixed => 0,
            LaneRule::Dateline(d) => u8::from(d.dateline.iter().any(|&x| x)),
            LaneRule::SlToVl(_) => 0,
        }
    }
}

/// How the rows of a [`PathSet`] are keyed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PathKey {
    /// One row per (source terminal, destination terminal): the paths may
    /// differ for every source (Valiant's random intermediate switch).
    Pair,
    /// One row per (injection switch, destination terminal), shared by
    /// every terminal injecting at that switch (all minimal paths depend
    /// only on where a packet enters the fabric). Far smaller than
    /// [`PathKey::Pair`] when switches hold many terminals.
    Switch,
}

/// Several source routes per terminal pair, for multipath and
/// non-minimal engines, stored flat.
///
/// A stored path starts at the source's injection switch: the injection
/// channel (terminal to switch, [`Network::attached_switch`]) is implied
/// and not stored, the last channel enters the destination. Rows are
/// keyed by [`PathKey`]; row `b * T + d` holds the paths from block `b`
/// (the source terminal, or its injection switch) to terminal `d`.
/// Offsets are `u32`: path `i` of the set has hops
/// `channels[hop_base[i]..hop_base[i + 1]]`, row `r` has paths
/// `row_base[r]..row_base[r + 1]`. Per-hop lanes are stored only when some
/// hop is not on lane 0 (`lanes` is then parallel to `channels`).
///
/// Build one row at a time, in row order: [`PathSet::push`] the paths of
/// the current row, then [`PathSet::next_row`]; [`PathSet::append`] joins
/// sets built in parallel over consecutive rows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PathSet {
    key: PathKey,
    terminals: usize,
    /// Per source terminal: its block (itself, or its injection switch
    /// index), or [`PathSet::NO_BLOCK`].
    block: Vec<u32>,
    blocks: usize,
    row_base: Vec<u32>,
    hop_base: Vec<u32>,
    channels: Vec<ChannelId>,
    lanes: Vec<u8>,
    max_lane: u8,
    max_paths: u32,
    /// Least common multiple of the path counts of all non-empty rows, or
    /// `None` once it exceeds [`PathSet::MAX_DENOMINATOR`].
    lcm: Option<u64>,
}

fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

impl PathSet {
    /// Marks a terminal without a switch.
    pub const NO_BLOCK: u32 = u32::MAX;
    /// The largest common denominator [`PathSet::denominator`] reports.
    pub const MAX_DENOMINATOR: u64 = 1 << 32;

    /// An empty set (no rows yet) for the terminals of `net`.
    pub fn new(net: &Network, key: PathKey) -> Self {
        let t = net.terminals().len();
        let (block, blocks) = match key {
            PathKey::Pair => ((0..t as u32).collect(), t),
            PathKey::Switch => (
                net.terminals()
                    .iter()
                    .map(|&h| {
                        Routes::injection(net, h).map_or(Self::NO_BLOCK, |c| {
                            net.kind_index(net.channel(c).dst) as u32
                        })
                    })
                    .collect(),
                net.switches().len(),
            ),
        };
        PathSet {
            key,
            terminals: t,
            block,
            blocks,
            row_base: vec![0],
            hop_base: vec![0],
            channels: Vec::new(),
            lanes: Vec::new(),
            max_lane: 0,
            max_paths: 0,
            lcm: Some(1),
        }
    }

    /// An empty set of the same network and key to build rows in and
    /// [`PathSet::append`] to this one (without the per-terminal index
    /// only the complete set needs).
    pub fn part(&self) -> Self {
        PathSet {
            block: Vec::new(),
            row_base: vec![0],
            hop_base: vec![0],
            channels: Vec::new(),
            lanes: Vec::new(),
            max_lane: 0,
            max_paths: 0,
            lcm: Some(1),
            ..*self
        }
    }

    /// Reserves room for `rows` more rows holding `paths` paths of `hops`
    /// hops in all, with per-hop lanes when `lanes`.
    pub fn reserve(&mut self, rows: usize, paths: usize, hops: usize, lanes: bool) {
        self.row_base.reserve(rows);
        self.hop_base.reserve(paths);
        self.channels.reserve(hops);
        if lanes {
            self.lanes.reserve(hops);
        }
    }

    fn offset(n: usize) -> u32 {
        u32::try_from(n).expect("a path set holds fewer than 2^32 paths and hops")
    }

    /// Adds a path to the current row: its channels from the source's
    /// injection switch to the destination, and the lane of each hop
    /// (`lanes` empty: every hop on lane 0; otherwise one per channel).
    pub fn push(&mut self, channels: &[ChannelId], lanes: &[u8]) {
        assert!(
            lanes.is_empty() || lanes.len() == channels.len(),
            "one lane per hop, or none"
        );
        let nonzero = lanes.iter().any(|&l| l != 0);
        if nonzero && self.lanes.len() < self.channels.len() {
            self.lanes.resize(self.channels.len(), 0);
        }
        self.channels.extend_from_slice(channels);
        if !self.lanes.is_empty() || nonzero {
            if lanes.is_empty() {
                self.lanes.resize(self.channels.len(), 0);
            } else {
                self.lanes.extend_from_slice(lanes);
            }
        }
        if let Some(&m) = lanes.iter().max() {
            self.max_lane = self.max_lane.max(m);
        }
        self.hop_base.push(Self::offset(self.channels.len()));
    }

    /// Closes the current row and moves to the next one.
    pub fn next_row(&mut self) {
        let n = self.hop_base.len() - 1;
        let count = (n - *self.row_base.last().unwrap_or(&0) as usize) as u32;
        self.row_base.push(Self::offset(n));
        self.note_count(count);
    }

    fn note_count(&mut self, count: u32) {
        self.max_paths = self.max_paths.max(count);
        if count > 0 {
            self.lcm = self.lcm.and_then(|l| {
                let c = u64::from(count);
                let m = l / gcd(l, c) * c;
                (m <= Self::MAX_DENOMINATOR).then_some(m)
            });
        }
    }

    /// Appends the rows of `other` (built for the same network and key,
    /// every row closed) after the rows of `self`.
    pub fn append(&mut self, other: PathSet) {
        assert_eq!(
            (self.key, self.terminals),
            (other.key, other.terminals),
            "path sets of one network and key"
        );
        let hops = self.channels.len();
        let paths = self.hop_base.len() - 1;
        let other_nonzero = !other.lanes.is_empty();
        if other_nonzero && self.lanes.len() < hops {
            self.lanes.resize(hops, 0);
        }
        self.channels.extend_from_slice(&other.channels);
        if other_nonzero {
            self.lanes.extend_from_slice(&other.lanes);
        } else if !self.lanes.is_empty() {
            self.lanes.resize(self.channels.len(), 0);
        }
        self.hop_base.extend(
            other.hop_base[1..]
                .iter()
                .map(|&h| Self::offset(hops + h as usize)),
        );
        self.row_base.extend(
            other.row_base[1..]
                .iter()
                .map(|&r| Self::offset(paths + r as usize)),
        );
        self.max_lane = self.max_lane.max(other.max_lane);
        self.max_paths = self.max_paths.max(other.max_paths);
        self.lcm = match (self.lcm, other.lcm) {
            (Some(a), Some(b)) => {
                let m = u128::from(a / gcd(a, b)) * u128::from(b);
                (m <= u128::from(Self::MAX_DENOMINATOR)).then_some(m as u64)
            }
            _ => None,
        };
    }

    /// Pads with empty rows up to the full `blocks * T`, dropping an
    /// unclosed row's paths; called when the set is attached to routes.
    fn finish(&mut self) {
        let paths = *self.row_base.last().unwrap_or(&0) as usize;
        self.hop_base.truncate(paths + 1);
        let hops = self.hop_base[paths] as usize;
        self.channels.truncate(hops);
        if !self.lanes.is_empty() {
            self.lanes.truncate(hops);
        }
        let rows = self.blocks * self.terminals;
        if self.row_base.len() < rows + 1 {
            self.row_base.resize(rows + 1, Self::offset(paths));
        }
    }

    pub fn key(&self) -> PathKey {
        self.key
    }

    /// The number of terminals the set is for.
    pub fn terminals(&self) -> usize {
        self.terminals
    }

    /// The number of rows closed so far.
    pub fn rows(&self) -> usize {
        self.row_base.len() - 1
    }

    #[inline]
    fn row_range(&self, src: usize, dst: usize) -> std::ops::Range<usize> {
        let b = self.block.get(src).copied().unwrap_or(Self::NO_BLOCK);
        if b == Self::NO_BLOCK || dst >= self.terminals || src == dst {
            return 0..0;
        }
        let r = b as usize * self.terminals + dst;
        if r + 1 >= self.row_base.len() {
            return 0..0;
        }
        self.row_base[r] as usize..self.row_base[r + 1] as usize
    }

    #[inline]
    fn path_ref(&self, i: usize) -> PathRef<'_> {
        let (a, b) = (self.hop_base[i] as usize, self.hop_base[i + 1] as usize);
        if self.lanes.is_empty() {
            PathRef::uniform(&self.channels[a..b], 0)
        } else {
            PathRef::per_hop(&self.channels[a..b], &self.lanes[a..b])
        }
    }

    /// The number of paths from terminal `src` to terminal `dst` (0 when
    /// `src == dst`).
    #[inline]
    pub fn path_count(&self, src: usize, dst: usize) -> usize {
        self.row_range(src, dst).len()
    }

    /// The paths from terminal `src` to terminal `dst`, each from the
    /// source's injection switch (the injection channel is not stored),
    /// with the lane of every hop.
    pub fn paths(&self, src: usize, dst: usize) -> impl ExactSizeIterator<Item = PathRef<'_>> + '_ {
        self.row_range(src, dst).map(move |i| self.path_ref(i))
    }

    /// The paths of row `row` (see the type docs), for walking a whole set.
    pub fn row_paths(&self, row: usize) -> impl ExactSizeIterator<Item = PathRef<'_>> + '_ {
        let range = if row + 1 < self.row_base.len() {
            self.row_base[row] as usize..self.row_base[row + 1] as usize
        } else {
            0..0
        };
        range.map(move |i| self.path_ref(i))
    }

    /// Per source terminal: its block (the row block `b` of row `b * T + d`),
    /// or [`PathSet::NO_BLOCK`].
    pub fn blocks(&self) -> &[u32] {
        &self.block
    }

    /// Whether some path passes through a terminal (an in-transit host,
    /// flich2000) before its last hop.
    pub fn passes_terminals(&self, net: &Network) -> bool {
        (0..self.hop_base.len().saturating_sub(1)).any(|i| {
            let p = self.path_ref(i);
            transit_hosts(net, p.channels) > 0
        })
    }

    /// The most paths any pair has.
    pub fn max_paths(&self) -> usize {
        self.max_paths as usize
    }

    /// The highest lane of any hop.
    pub fn max_lane(&self) -> u8 {
        self.max_lane
    }

    /// A common denominator for even splitting: the least common multiple
    /// of every pair's path count, so that `denominator / n` is an integer
    /// share for a pair with `n` paths; `None` when it exceeds
    /// [`PathSet::MAX_DENOMINATOR`].
    pub fn denominator(&self) -> Option<u64> {
        self.lcm
    }

    /// The number of stored paths.
    pub fn len(&self) -> usize {
        self.hop_base.len() - 1
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The number of stored hops over all paths.
    pub fn total_hops(&self) -> usize {
        self.channels.len()
    }

    /// Heap bytes held.
    pub fn memory_bytes(&self) -> usize {
        self.block.capacity() * 4
            + self.row_base.capacity() * 4
            + self.hop_base.capacity() * 4
            + self.channels.capacity() * std::mem::size_of::<ChannelId>()
            + self.lanes.capacity()
    }
}

/// Oblivious routes of one network. See the module docs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Routes {
    engine: String,
    switches: usize,
    terminals: usize,
    pub(crate) table: Vec<u16>,
    /// Lanes per pair of terminals (`src * terminals + dst`), or empty.
    lanes: Vec<u8>,
    /// Lanes per injecting switch and destination, or empty; used while
    /// `lanes` is empty.
    switch_lanes: Vec<u8>,
    /// Per terminal: the switch index it injects into (`u32::MAX`: none).
    inject: Vec<u32>,
    max_pair_lane: u8,
    lanes_needed: Option<u8>,
    lane_rule: LaneRule,
    paths: Option<PathSet>,
    escape_routed: Option<u32>,
    /// The lanes the engine was allowed (`max_lanes`), for the SLs of the
    /// LID pairs its own pairs do not cover ([`super::LidRoutes`]).
    lane_limit: Option<u8>,
    /// Tables per LID read from a subnet's files: when present, they (not
    /// the tables per terminal) are what is analysed and written.
    lid_tables: Option<std::sync::Arc<super::lid_routes::LidTables>>,
}

/// Whether `e` says a network has more switches and ports than the
/// unicast LIDs of one subnet.
pub fn is_beyond_lid_space(e: &RoutingError) -> bool {
    matches!(e, RoutingError::BeyondLidSpace { .. })
}

/// Hop counts of the routes of every pair of distinct terminals.
#[derive(Debug, Clone, PartialEq)]
pub struct HopStats {
    /// The longest path in switch-to-switch hops.
    pub max_hops: usize,
    /// The mean switch-to-switch hops (with a path set, each pair counts
    /// the mean of its paths).
    pub avg_hops: f64,
    /// The first pair (in source, destination order) whose path is longer
    /// than the shortest: `(src, dst, hops, distance)`, terminal links
    /// counted.
    pub first_non_minimal: Option<(usize, usize, usize, usize)>,
}

/// Pairs whose routes are longer than their distance.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Detours {
    pub stats: HopStats,
    /// Pairs routed longer than the distance from their injection switch.
    pub pairs: u64,
    /// Hops beyond the distance, summed over those pairs.
    pub extra_hops: u64,
    /// Some of them: `(src, dst, hops, distance)`, terminal links counted.
    pub examples: Vec<(usize, usize, usize, usize)>,
}

/// Why a table walk stopped.
enum Stop {
    Loop(NodeId),
    Hole(NodeId, String),
}

/// Every path between two terminals starts and ends on a terminal link.
const TERMINAL_LINKS: usize = 2;

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
            lanes: Vec::new(),
            switch_lanes: Vec::new(),
            inject: Self::injection_switches(net)
                .iter()
                .map(|x| x.map_or(u32::MAX, |x| net.kind_index(x) as u32))
                .collect(),
            max_pair_lane: 0,
            lanes_needed: None,
            lane_rule: LaneRule::Fixed,
            paths: None,
            escape_routed: None,
            lane_limit: None,
            lid_tables: None,
        }
    }

    /// The lanes the engine was allowed; 8 (the default `max_lanes`) when
    /// not set.
    pub fn lane_limit(&self) -> u8 {
        self.lane_limit.unwrap_or(8)
    }

    pub fn set_lane_limit(&mut self, lanes: u8) {
        self.lane_limit = Some(lanes);
    }

    /// The tables per LID read from a subnet's files, if any.
    pub fn lid_tables(&self) -> Option<&super::lid_routes::LidTables> {
        self.lid_tables.as_deref()
    }

    /// Sets (or drops) the tables per LID read from a subnet's files.
    pub fn set_lid_tables(&mut self, tables: Option<super::lid_routes::LidTables>) {
        self.lid_tables = tables.map(std::sync::Arc::new);
    }

    /// The tables per LID read from a subnet's files, for readers that add
    /// the SLs of its files.
    pub fn lid_tables_mut(&mut self) -> Option<&mut super::lid_routes::LidTables> {
        self.lid_tables.as_mut().map(std::sync::Arc::make_mut)
    }

    /// The engine that computed the routes (or where they were read from).
    pub fn engine(&self) -> &str {
        &self.engine
    }

    /// Names the engine, for engines that build on another's routes.
    pub(crate) fn set_engine(&mut self, engine: impl Into<String>) {
        self.engine = engine.into();
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

    /// Every switch's forwarding table, switch after switch
    /// (`[x * terminals + d]`: switch `x`'s port toward terminal `d`).
    pub fn tables(&self) -> &[u16] {
        &self.table
    }

    /// Bytes of the forwarding tables of `net` (2 per switch and terminal).
    pub fn table_bytes(net: &Network) -> u64 {
        2 * net.switches().len() as u64 * net.terminals().len() as u64
    }

    /// Bytes of the pair-lane table of `net` (1 per pair of terminals),
    /// allocated only by engines that put pairs on lanes other than 0.
    pub fn pair_lane_bytes(net: &Network) -> u64 {
        let t = net.terminals().len() as u64;
        t * t
    }

    /// Bytes of a lane table per injecting switch and destination (1 per
    /// switch and terminal), what engines that choose lanes per switch
    /// ([`Routes::set_switch_lane`]) allocate instead of one per pair.
    pub fn switch_lane_bytes(net: &Network) -> u64 {
        net.switches().len() as u64 * net.terminals().len() as u64
    }

    /// The pair lane of `(src, dst)`: the lane the packet is injected on.
    pub fn lane(&self, src: usize, dst: usize) -> u8 {
        // Both tables stay empty until a pair is put on a lane other than 0.
        if !self.lanes.is_empty() {
            return self.lanes[src * self.terminals + dst];
        }
        if self.switch_lanes.is_empty() || src == dst {
            return 0;
        }
        match self.inject.get(src) {
            Some(&x) if x != u32::MAX => self.switch_lanes[x as usize * self.terminals + dst],
            _ => 0,
        }
    }

    /// The lane of every pair when they all share one, else `None`.
    pub fn uniform_lane(&self) -> Option<u8> {
        if !self.switch_lanes.is_empty() {
            return None;
        }
        let first = self.lanes.first().copied().unwrap_or(0);
        self.lanes.iter().all(|&l| l == first).then_some(first)
    }

    /// Whether some pair is on a lane other than 0.
    pub fn has_pair_lanes(&self) -> bool {
        !self.lanes.is_empty() || !self.switch_lanes.is_empty()
    }

    pub fn set_lane(&mut self, src: usize, dst: usize, lane: u8) {
        if self.lanes.is_empty() {
            if lane == self.lane(src, dst) {
                return;
            }
            // One pair leaves its switch's lane: a lane per pair from now.
            let t = self.terminals;
            let mut lanes = vec![0; t * t];
            if !self.switch_lanes.is_empty() {
                for s in 0..t {
                    for d in 0..t {
                        lanes[s * t + d] = self.lane(s, d);
                    }
                }
            }
            self.lanes = lanes;
            self.switch_lanes = Vec::new();
        }
        self.lanes[src * self.terminals + dst] = lane;
        self.max_pair_lane = self.max_pair_lane.max(lane);
    }

    /// Puts every terminal injecting at switch index `x` on `lane` toward
    /// `dst`: one byte per switch and destination where [`Routes::set_lane`]
    /// takes one per pair of terminals (2.2 GB on 46,656 endpoints).
    pub fn set_switch_lane(&mut self, x: usize, dst: usize, lane: u8) {
        let t = self.terminals;
        if !self.lanes.is_empty() {
            for s in (0..t).filter(|&s| self.inject[s] as usize == x && s != dst) {
                self.lanes[s * t + dst] = lane;
            }
        } else {
            if self.switch_lanes.is_empty() {
                if lane == 0 {
                    return;
                }
                self.switch_lanes = vec![0; self.switches * t];
            }
            self.switch_lanes[x * t + dst] = lane;
        }
        self.max_pair_lane = self.max_pair_lane.max(lane);
    }

    /// Number of lanes the routes use (highest hop lane plus one).
    pub fn lanes(&self) -> u8 {
        if let LaneRule::SlToVl(t) = &self.lane_rule {
            return t.max_vl(self.max_pair_lane + 1) + 1;
        }
        let table = self.max_pair_lane + 1 + self.lane_rule.extra_lanes();
        match &self.paths {
            Some(ps) => table.max(ps.max_lane() + 1),
            None => table,
        }
    }

    /// Lanes the engine needed for deadlock freedom before spreading paths
    /// over spare lanes (DFSSSP's balancing); otherwise [`Routes::lanes`].
    pub fn lanes_needed(&self) -> u8 {
        self.lanes_needed.unwrap_or_else(|| self.lanes())
    }

    pub fn set_lanes_needed(&mut self, lanes: u8) {
        self.lanes_needed = Some(lanes);
    }

    /// Destinations routed on escape paths because no acyclic way was
    /// found (`nue`); `None` for engines without them.
    pub fn escape_routed(&self) -> Option<u32> {
        self.escape_routed
    }

    pub fn set_escape_routed(&mut self, destinations: u32) {
        self.escape_routed = Some(destinations);
    }

    /// The pairs an SL-to-VL table drops (maps to VL 15 somewhere on the
    /// path), as `(source, destination, hop)`; empty for other lane rules.
    pub fn dropped_pairs(&self, net: &Network) -> Result<Vec<(usize, usize, usize)>, RoutingError> {
        let mut out = Vec::new();
        if !matches!(self.lane_rule, LaneRule::SlToVl(_)) {
            return Ok(out);
        }
        for s in 0..self.terminals {
            for d in (0..self.terminals).filter(|&d| d != s) {
                let (_, l) = self.path_lanes(net, s, d)?;
                if let Some(hop) = l.iter().position(|&v| v == DROP_VL) {
                    out.push((s, d, hop));
                }
            }
        }
        Ok(out)
    }

    pub fn lane_rule(&self) -> &LaneRule {
        &self.lane_rule
    }

    pub fn set_lane_rule(&mut self, rule: LaneRule) {
        self.lane_rule = rule;
    }

    /// Several paths per pair, for multipath and non-minimal engines.
    pub fn path_set(&self) -> Option<&PathSet> {
        self.paths.as_ref()
    }

    /// Attaches (or removes) a path set built for the same network; rows
    /// not filled are left empty.
    pub fn set_path_set(&mut self, paths: Option<PathSet>) {
        if let Some(ps) = &paths {
            assert_eq!(ps.terminals(), self.terminals, "a path set of this network");
        }
        self.paths = paths.map(|mut ps| {
            ps.finish();
            ps
        });
    }

    /// The number of paths traffic from `src` to `dst` is split over: the
    /// path set's count when there is one, else 1 (0 when `src == dst`).
    pub fn path_count(&self, src: usize, dst: usize) -> usize {
        match &self.paths {
            _ if src == dst => 0,
            Some(ps) => ps.path_count(src, dst),
            None => 1,
        }
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
                    format!("port {port} leads to terminal {}", net.label(y)),
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
        let name = |v: NodeId| net.label(v).into_owned();
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
    pub(crate) fn injection(net: &Network, src: NodeId) -> Option<ChannelId> {
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
                src: net.label(s).into_owned(),
                dst: net.label(net.terminal(dst)).into_owned(),
                switch: "(none)".into(),
                reason: "the source has no switch".into(),
            });
        };
        out.push(inj);
        if let Some(ps) = &self.paths {
            let Some(p) = ps.paths(src, dst).next() else {
                return Err(Self::no_path(net, src, dst));
            };
            out.extend_from_slice(p.channels);
            return Ok(());
        }
        self.walk(net, net.channel(inj).dst, dst, out)
            .map_err(|e| Self::stop_error(net, s, dst, e))
    }

    fn no_path(net: &Network, src: usize, dst: usize) -> RoutingError {
        RoutingError::BlackHole {
            src: net.label(net.terminal(src)).into_owned(),
            dst: net.label(net.terminal(dst)).into_owned(),
            switch: "(none)".into(),
            reason: "the path set has no path for this pair".into(),
        }
    }

    /// The channels from terminal `src` to terminal `dst` (indices as in
    /// [`Network::terminals`]), injection and ejection channels included;
    /// empty when `src == dst`. With a path set, its first path for the pair.
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
        if self.paths.is_some() {
            let mut all = self.all_paths(net, src, dst)?;
            return Ok(if all.is_empty() {
                (Vec::new(), Vec::new())
            } else {
                all.swap_remove(0)
            });
        }
        let p = self.path(net, src, dst)?;
        let mut lanes = Vec::new();
        self.lane_rule
            .hop_lanes(self.lane(src, dst), &p, &mut lanes);
        Ok((p, lanes))
    }

    /// Every path from `src` to `dst` with the lane of each hop: the path
    /// set's paths (the injection hop on the pair lane), or the one table
    /// path. Empty when `src == dst`.
    #[allow(clippy::type_complexity)]
    pub fn all_paths(
        &self,
        net: &Network,
        src: usize,
        dst: usize,
    ) -> Result<Vec<(Vec<ChannelId>, Vec<u8>)>, RoutingError> {
        let Some(ps) = &self.paths else {
            return Ok(if src == dst {
                Vec::new()
            } else {
                vec![self.path_lanes(net, src, dst)?]
            });
        };
        self.check(net)?;
        self.check_pair(src, dst)?;
        if src == dst {
            return Ok(Vec::new());
        }
        let inj = self.path(net, src, dst)?[0];
        let lane = self.lane(src, dst);
        Ok(ps
            .paths(src, dst)
            .map(|p| {
                let mut ch = Vec::with_capacity(p.channels.len() + 1);
                ch.push(inj);
                ch.extend_from_slice(p.channels);
                let mut lanes = Vec::with_capacity(ch.len());
                lanes.push(lane);
                lanes.extend((0..p.channels.len()).map(|i| p.lanes.at(i)));
                (ch, lanes)
            })
            .collect())
    }

    /// Channels on the path from `src` to `dst`, the two terminal links
    /// included (so a path through one switch has 2); 0 when `src == dst`.
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

    /// Hop counts of every path of every pair `src != dst`: calls
    /// `f(src, dst, hops, n)`, `n` being the number of paths of the pair
    /// (1 without a path set).
    fn for_each_pair_hops(
        &self,
        net: &Network,
        mut f: impl FnMut(usize, usize, usize, usize) -> Result<(), RoutingError>,
    ) -> Result<(), RoutingError> {
        self.check(net)?;
        let inj = Self::injection_switches(net);
        // Terminals grouped by injection switch index.
        let mut by_switch: Vec<Vec<usize>> = vec![Vec::new(); self.switches];
        for (t, s) in inj.iter().enumerate() {
            match s {
                Some(s) => by_switch[net.kind_index(*s)].push(t),
                None if self.terminals > 1 => {
                    let other = usize::from(t == 0);
                    return Err(RoutingError::BlackHole {
                        src: net.label(net.terminal(t)).into_owned(),
                        dst: net.label(net.terminal(other)).into_owned(),
                        switch: "(none)".into(),
                        reason: "the source has no switch".into(),
                    });
                }
                None => {}
            }
        }
        if let Some(ps) = &self.paths {
            let t = self.terminals;
            for (b, sources) in Self::block_sources(ps, &by_switch) {
                for d in 0..t {
                    let row = b * t + d;
                    let n = ps.row_paths(row).len();
                    for p in ps.row_paths(row) {
                        let hops = p.channels.len() + 1 - 2 * transit_hosts(net, p.channels);
                        for &src in &sources {
                            if src != d {
                                f(src, d, hops, n)?;
                            }
                        }
                    }
                    if n == 0 {
                        if let Some(&src) = sources.iter().find(|&&src| src != d) {
                            return Err(Self::no_path(net, src, d));
                        }
                    }
                }
            }
            return Ok(());
        }
        self.for_each_switch_path(net, |x, d, p| {
            for &s in &by_switch[net.kind_index(x)] {
                if s != d {
                    f(s, d, p.len() + 1, 1)?;
                }
            }
            Ok(())
        })
    }

    /// The row blocks of a path set that have sources, with those source
    /// terminals (`by_switch`: the terminals injecting at each switch).
    fn block_sources(ps: &PathSet, by_switch: &[Vec<usize>]) -> Vec<(usize, Vec<usize>)> {
        match ps.key() {
            PathKey::Switch => by_switch
                .iter()
                .enumerate()
                .filter(|(_, v)| !v.is_empty())
                .map(|(x, v)| (x, v.clone()))
                .collect(),
            PathKey::Pair => ps
                .blocks()
                .iter()
                .enumerate()
                .filter(|(_, &b)| b != PathSet::NO_BLOCK)
                .map(|(s, _)| (s, vec![s]))
                .collect(),
        }
    }

    /// Hop counts and minimality of every pair at once: per destination,
    /// the switches' tables form a tree toward it, so each switch's hops
    /// are counted once per destination and every terminal injecting
    /// there shares them. Time linear in destinations x switches, where
    /// walking every pair costs the square of the terminals x path length
    /// (2 x 10^9 pairs on 46,656 endpoints).
    pub fn hop_stats(&self, net: &Network) -> Result<HopStats, RoutingError> {
        self.check(net)?;
        if let Some(s) = self.table_hop_stats(net) {
            return Ok(s);
        }
        // Path sets, and tables some walk fails on: pair by pair, which
        // also names the walk that fails.
        Ok(HopStats {
            max_hops: self.pairwise_max_hops(net)?,
            avg_hops: self.pairwise_avg_hops(net)?,
            first_non_minimal: self.pairwise_first_non_minimal(net)?,
        })
    }

    /// [`Routes::hop_stats`] of tables, one destination tree at a time;
    /// `None` with a path set or when some walk from a switch where
    /// terminals inject fails.
    fn table_hop_stats(&self, net: &Network) -> Option<HopStats> {
        self.table_detours(net, 0).map(|d| d.stats)
    }

    /// [`Routes::hop_stats`] of tables with the pairs routed longer than
    /// their distance counted, and up to `examples` of them in destination
    /// order; `None` as for [`Routes::hop_stats`]'s fast path.
    pub(crate) fn table_detours(&self, net: &Network, examples: usize) -> Option<Detours> {
        if self.paths.is_some() || self.check(net).is_err() {
            return None;
        }
        let (s, t) = (self.switches, self.terminals);
        let inj = Self::injection_switches(net);
        let mut injecting = vec![0usize; s];
        // Per switch: the lowest terminal injecting there.
        let mut lowest = vec![usize::MAX; s];
        for (term, x) in inj.iter().enumerate() {
            match x {
                Some(x) => {
                    let i = net.kind_index(*x);
                    injecting[i] += 1;
                    lowest[i] = lowest[i].min(term);
                }
                None if t > 1 => return None,
                None => {}
            }
        }
        let sources: Vec<usize> = (0..s).filter(|&y| injecting[y] > 0).collect();
        let map = super::columns::PortMap::new(net);
        const UNKNOWN: u32 = u32::MAX;
        #[derive(Default)]
        struct Part {
            hops: Vec<u32>,
            walk: Vec<usize>,
            max: usize,
            sum: u64,
            pairs: u64,
            longer: u64,
            beyond: u64,
            listed: Vec<(usize, usize, usize, usize)>,
            first: Option<(usize, usize, usize, usize)>,
            // Distances from a destination's switch, kept while the
            // terminals of one switch follow each other.
            dist_at: Option<(NodeId, Vec<u32>)>,
            broken: bool,
        }
        let parts = super::columns::par_columns(
            &self.table,
            t,
            || Part {
                hops: vec![UNKNOWN; s],
                ..Part::default()
            },
            |part, d, col| {
                if part.broken {
                    return;
                }
                let target = net.terminal(d);
                let hops = &mut part.hops;
                hops.fill(UNKNOWN);
                for &y in &sources {
                    part.walk.clear();
                    let mut z = y;
                    let base = loop {
                        if hops[z] != UNKNOWN {
                            break hops[z];
                        }
                        if part.walk.len() > s {
                            part.broken = true; // a loop
                            return;
                        }
                        part.walk.push(z);
                        let p = col[z];
                        let Some(c) = map.channel(z, p) else {
                            part.broken = true; // no entry, or an uncabled port
                            return;
                        };
                        match map.next(z, p) {
                            super::columns::NONE if net.channel(c).dst == target => break 0,
                            super::columns::NONE => {
                                part.broken = true; // delivered elsewhere
                                return;
                            }
                            nx => z = nx as usize,
                        }
                    };
                    for (k, &w) in part.walk.iter().rev().enumerate() {
                        hops[w] = base + k as u32 + 1;
                    }
                }
                // Distances toward d: the network's cables run both ways,
                // so they are the distances from d, and from its one switch
                // plus one for a single-homed d.
                let (from, extra) = match net.out_channels(target) {
                    [c] if net.is_switch(net.channel(*c).dst) => (net.channel(*c).dst, 1),
                    _ => (target, 0),
                };
                if part.dist_at.as_ref().is_none_or(|(n, _)| *n != from) {
                    part.dist_at = Some((from, bfs_distances(net, from)));
                }
                let dist = &part.dist_at.as_ref().expect("just set").1;
                let d_inj = inj[d].map(|x| net.kind_index(x));
                for &y in &sources {
                    let n = injecting[y] - usize::from(d_inj == Some(y));
                    if n == 0 {
                        continue;
                    }
                    // Channels from the source terminal: injection + hops.
                    let h = hops[y] as usize + 1;
                    part.max = part.max.max(h - TERMINAL_LINKS);
                    part.sum += (n * (h - TERMINAL_LINKS)) as u64;
                    part.pairs += n as u64;
                    let dy = dist[net.switches()[y].index()];
                    let expect = if dy == UNREACHABLE {
                        usize::MAX
                    } else {
                        dy as usize + extra + 1
                    };
                    if h == expect {
                        continue;
                    }
                    part.longer += n as u64;
                    part.beyond += (n * h.saturating_sub(expect)) as u64;
                    let here = |u: usize| u != d && inj[u].map(|x| net.kind_index(x)) == Some(y);
                    if part.listed.len() < examples {
                        let room = examples - part.listed.len();
                        let at: Vec<usize> = (0..t).filter(|&u| here(u)).take(room).collect();
                        part.listed
                            .extend(at.into_iter().map(|u| (u, d, h, expect)));
                    }
                    let src = if lowest[y] == d {
                        (0..t).find(|&u| here(u))
                    } else {
                        Some(lowest[y])
                    };
                    if let Some(src) = src {
                        if part.first.is_none_or(|(fs, fd, ..)| (src, d) < (fs, fd)) {
                            part.first = Some((src, d, h, expect));
                        }
                    }
                }
            },
        );
        let mut all = Part::default();
        for part in parts {
            if part.broken {
                return None;
            }
            all.max = all.max.max(part.max);
            all.sum += part.sum;
            all.pairs += part.pairs;
            all.longer += part.longer;
            all.beyond += part.beyond;
            let room = examples.saturating_sub(all.listed.len());
            all.listed.extend(part.listed.into_iter().take(room));
            if let Some(f) = part.first {
                if all.first.is_none_or(|(fs, fd, ..)| (f.0, f.1) < (fs, fd)) {
                    all.first = Some(f);
                }
            }
        }
        Some(Detours {
            stats: HopStats {
                max_hops: all.max,
                avg_hops: if all.pairs == 0 {
                    0.0
                } else {
                    all.sum as f64 / all.pairs as f64
                },
                first_non_minimal: all.first,
            },
            pairs: all.longer,
            extra_hops: all.beyond,
            examples: all.listed,
        })
    }

    /// The longest path in switch-to-switch hops (terminal links not
    /// counted, as in the network's diameter).
    pub fn max_hops(&self, net: &Network) -> Result<usize, RoutingError> {
        Ok(self.hop_stats(net)?.max_hops)
    }

    /// The mean switch-to-switch hops over all pairs of distinct terminals
    /// (with a path set, each pair counts the mean of its paths).
    pub fn avg_hops(&self, net: &Network) -> Result<f64, RoutingError> {
        Ok(self.hop_stats(net)?.avg_hops)
    }

    /// The first pair (in source, destination order) whose path is longer
    /// than the shortest path between them: `(src, dst, hops, distance)`.
    pub fn first_non_minimal(
        &self,
        net: &Network,
    ) -> Result<Option<(usize, usize, usize, usize)>, RoutingError> {
        Ok(self.hop_stats(net)?.first_non_minimal)
    }

    fn pairwise_max_hops(&self, net: &Network) -> Result<usize, RoutingError> {
        let mut m = 0;
        self.for_each_pair_hops(net, |_, _, h, _| {
            m = m.max(h - TERMINAL_LINKS);
            Ok(())
        })?;
        Ok(m)
    }

    fn pairwise_avg_hops(&self, net: &Network) -> Result<f64, RoutingError> {
        let (mut sum, mut pairs) = (0f64, 0f64);
        self.for_each_pair_hops(net, |_, _, h, n| {
            sum += (h - TERMINAL_LINKS) as f64 / n as f64;
            pairs += 1.0 / n as f64;
            Ok(())
        })?;
        Ok(if pairs == 0.0 {
            0.0
        } else {
            sum / pairs.round()
        })
    }

    /// In-transit hosts per route, averaged over the pairs of distinct
    /// terminals (each pair the mean of its paths); 0 without source routes
    /// through terminals.
    pub fn transit_hosts_mean(&self, net: &Network) -> Result<f64, RoutingError> {
        let Some(ps) = self.paths.as_ref().filter(|ps| ps.passes_terminals(net)) else {
            return Ok(0.0);
        };
        let (mut sum, mut pairs) = (0.0, 0usize);
        for s in 0..self.terminals {
            for d in (0..self.terminals).filter(|&d| d != s) {
                let n = ps.path_count(s, d);
                if n > 0 {
                    let k: usize = ps.paths(s, d).map(|p| transit_hosts(net, p.channels)).sum();
                    sum += k as f64 / n as f64;
                    pairs += 1;
                }
            }
        }
        Ok(if pairs == 0 { 0.0 } else { sum / pairs as f64 })
    }

    fn pairwise_first_non_minimal(
        &self,
        net: &Network,
    ) -> Result<Option<(usize, usize, usize, usize)>, RoutingError> {
        self.check(net)?;
        let inj = Self::injection_switches(net);
        let mut dist_of: Vec<Option<Vec<u32>>> = vec![None; self.switches];
        let mut found: Option<(usize, usize, usize, usize)> = None;
        self.for_each_pair_hops(net, |s, d, h, _| {
            if found.is_some_and(|(fs, fd, ..)| (fs, fd) < (s, d)) {
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

    /// These routes, computed on `from`, carried onto `to`, the same
    /// network numbered otherwise: `node[i]` is `to`'s node for `from`'s
    /// node `i`, `channel[c]` its channel for `from`'s channel `c` (a fabric
    /// renumbered by [`crate::network::recognise`]). Tables, pair lanes,
    /// the lane rule and path sets follow the nodes, ports and channels.
    pub fn renumbered(
        &self,
        from: &Network,
        to: &Network,
        node: &[NodeId],
        channel: &[ChannelId],
    ) -> Routes {
        let t = self.terminals;
        let term: Vec<usize> = from
            .terminals()
            .iter()
            .map(|&x| to.kind_index(node[x.index()]))
            .collect();
        let port_of = |x: NodeId, p: u16| -> u16 {
            if p == 0 {
                return 0;
            }
            from.channel_at(x, PortId(p))
                .map_or(0, |c| to.channel(channel[c.index()]).src_port.0)
        };
        let mut out = Routes::new(to, self.engine.clone());
        let mut ports = Vec::new();
        for (i, &x) in from.switches().iter().enumerate() {
            let xo = to.kind_index(node[x.index()]);
            // The switch's ports mapped once, not once per destination.
            ports.clear();
            ports.extend((0..=from.node(x).ports).map(|p| port_of(x, p)));
            let row = &mut out.table[xo * t..(xo + 1) * t];
            for (d, &p) in self.table(i).iter().enumerate() {
                row[term[d]] = ports.get(usize::from(p)).copied().unwrap_or(0);
            }
        }
        if !self.lanes.is_empty() {
            for s in 0..t {
                for d in 0..t {
                    out.set_lane(term[s], term[d], self.lane(s, d));
                }
            }
        } else if !self.switch_lanes.is_empty() {
            for (i, &x) in from.switches().iter().enumerate() {
                let xo = to.kind_index(node[x.index()]);
                for (d, &lane) in self.switch_lanes[i * t..(i + 1) * t].iter().enumerate() {
                    out.set_switch_lane(xo, term[d], lane);
                }
            }
        }
        out.lanes_needed = self.lanes_needed;
        out.lane_limit = self.lane_limit;
        out.escape_routed = self.escape_routed;
        out.lane_rule = match &self.lane_rule {
            LaneRule::Fixed => LaneRule::Fixed,
            LaneRule::Dateline(d) => {
                let mut ring = vec![Datelines::NO_RING; to.channel_count()];
                let mut dateline = vec![false; to.channel_count()];
                for (c, &o) in channel.iter().enumerate() {
                    ring[o.index()] = d.ring[c];
                    dateline[o.index()] = d.dateline[c];
                }
                LaneRule::Dateline(Datelines { ring, dateline })
            }
            LaneRule::SlToVl(tables) => {
                let mut mapped = SlToVl::new(to);
                for (&(n, i, o), vls) in &tables.tables {
                    let x = NodeId(n);
                    mapped
                        .tables
                        .insert((node[x.index()].0, port_of(x, i), port_of(x, o)), *vls);
                }
                LaneRule::SlToVl(mapped)
            }
        };
        if let Some(ps) = &self.paths {
            let mut mapped = PathSet::new(to, ps.key());
            // Row blocks of `to` and the block of `from` each stands for.
            let from_block: Vec<usize> = match ps.key() {
                PathKey::Pair => {
                    let mut inv = vec![0; t];
                    for (f, &o) in term.iter().enumerate() {
                        inv[o] = f;
                    }
                    inv
                }
                PathKey::Switch => {
                    let mut inv = vec![0; self.switches];
                    for (f, &x) in from.switches().iter().enumerate() {
                        inv[to.kind_index(node[x.index()])] = f;
                    }
                    inv
                }
            };
            let mut from_term = vec![0; t];
            for (f, &o) in term.iter().enumerate() {
                from_term[o] = f;
            }
            let (mut hops, mut lanes) = (Vec::new(), Vec::new());
            for &b in &from_block {
                for &d in &from_term {
                    for p in ps.row_paths(b * t + d) {
                        hops.clear();
                        hops.extend(p.channels.iter().map(|c| channel[c.index()]));
                        lanes.clear();
                        match p.lanes {
                            crate::deadlock::PathLanes::Uniform(0) => {}
                            crate::deadlock::PathLanes::Uniform(l) => lanes.resize(hops.len(), l),
                            crate::deadlock::PathLanes::PerHop(l) => lanes.extend_from_slice(l),
                        }
                        mapped.push(&hops, &lanes);
                    }
                    mapped.next_row();
                }
            }
            out.set_path_set(Some(mapped));
        }
        out
    }

    /// Builds the channel dependency graph of all routes, with the real lane
    /// of every hop, and looks for a cycle. With a path set, every path of
    /// every pair; `paths` in the report counts them. Tables are checked
    /// as a subnet holds them, every LID from every sending port
    /// ([`super::LidRoutes`]); a network with more switches and ports than
    /// one subnet has LIDs (49,151) cannot be one subnet, and is checked
    /// per terminal pair instead ([`Routes::terminal_deadlock_report`]).
    pub fn deadlock_report(&self, net: &Network) -> Result<DeadlockReport, RoutingError> {
        self.check(net)?;
        if self.paths.is_none() {
            match super::LidRoutes::of(net, self) {
                Ok(view) => return view.deadlock_report(net),
                Err(e) if is_beyond_lid_space(&e) => {}
                Err(e) => return Err(e),
            }
        }
        self.terminal_deadlock_report(net)
    }

    /// The deadlock check of the routes per terminal pair (each terminal
    /// sending from its first port only), without the LIDs of other
    /// ports and of switches; [`Routes::deadlock_report`] checks those.
    pub fn terminal_deadlock_report(&self, net: &Network) -> Result<DeadlockReport, RoutingError> {
        self.check(net)?;
        let inj = Self::injection_switches(net);
        let t = self.terminals;
        let mut by_switch: Vec<Vec<usize>> = vec![Vec::new(); self.switches];
        for (s, x) in inj.iter().enumerate() {
            if let Some(x) = x {
                by_switch[net.kind_index(*x)].push(s);
            }
        }
        let mut builder = CdgBuilder::new(net);
        if let Some(ps) = &self.paths {
            let mut pairs = 0usize;
            for (b, sources) in Self::block_sources(ps, &by_switch) {
                for d in 0..t {
                    let real = sources.iter().filter(|&&s| s != d).count();
                    if real == 0 {
                        continue;
                    }
                    let row = b * t + d;
                    pairs += real * ps.row_paths(row).len();
                    for p in ps.row_paths(row) {
                        builder.add(p)?;
                    }
                }
            }
            let cdg = builder.finish();
            let mut report = crate::deadlock::verify_cdg(net, &cdg);
            report.paths = pairs;
            if pairs > 0 {
                report.lanes_used = report.lanes_used.max(1);
            }
            return Ok(report);
        }
        if let Some(r) = self.tree_terminal_report(net)? {
            return Ok(r);
        }
        let mut lanes = Vec::new();
        if let LaneRule::SlToVl(_) = &self.lane_rule {
            // A hop's VL depends on the port the packet came in by, so
            // every source's own path counts; dropped packets wait on nothing.
            let mut paths = 0;
            for s in 0..t {
                for d in (0..t).filter(|&d| d != s) {
                    let (p, l) = self.path_lanes(net, s, d)?;
                    paths += 1;
                    let keep = l.iter().position(|&v| v == DROP_VL).unwrap_or(l.len());
                    builder.add(PathRef::per_hop(&p[..keep], &l[..keep]))?;
                }
            }
            let cdg = builder.finish();
            let mut report = crate::deadlock::verify_cdg(net, &cdg);
            report.paths = paths;
            if paths > 0 {
                report.lanes_used = report.lanes_used.max(1);
            }
            return Ok(report);
        }
        self.for_each_switch_path(net, |x, d, p| {
            // Distinct pair lanes used from this switch to d.
            let mut mask = 0u32;
            for &s in &by_switch[net.kind_index(x)] {
                if s != d {
                    mask |= 1 << self.lane(s, d).min(31);
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

impl Routes {
    /// [`Routes::terminal_deadlock_report`] of tables with lanes fixed per
    /// pair, one destination tree at a time (see
    /// [`super::columns::DestinationTree`]): time linear in destinations x
    /// switches. `None` for other routes, or when a walk fails (the path
    /// by path check then names it).
    fn tree_terminal_report(&self, net: &Network) -> Result<Option<DeadlockReport>, RoutingError> {
        use super::columns::{columns, DestinationTree, PortMap, WALK_ONLY};
        if self.paths.is_some() || !matches!(self.lane_rule, LaneRule::Fixed) {
            return Ok(None);
        }
        let t = self.terminals;
        let inj = Self::injection_switches(net);
        let mut by_switch: Vec<Vec<usize>> = vec![Vec::new(); self.switches];
        for (s, x) in inj.iter().enumerate() {
            if let Some(x) = x {
                by_switch[net.kind_index(*x)].push(s);
            }
        }
        let sources: Vec<usize> = (0..self.switches)
            .filter(|&y| !by_switch[y].is_empty())
            .collect();
        let map = PortMap::new(net);
        let mut tree = DestinationTree::new(self.switches);
        let mut builder = CdgBuilder::new(net);
        let (mut failed, mut error) = (false, None);
        columns(&self.table, t, |d, col| {
            if failed || error.is_some() {
                return;
            }
            let target = net.terminal(d);
            let end = |z: usize, p: u16| {
                p != 0
                    && map
                        .channel(z, p)
                        .is_some_and(|c| net.channel(c).dst == target)
            };
            let mut lanes = 0u32;
            for &y in &sources {
                let mut m = 0u32;
                for &s in by_switch[y].iter().filter(|&&s| s != d) {
                    m |= 1 << self.lane(s, d).min(30);
                    if self.lanes.is_empty() {
                        break; // the same lane for every terminal here
                    }
                }
                lanes |= m;
                if !tree.spread(&map, col, y, if m == 0 { WALK_ONLY } else { m }, &end) {
                    failed = true;
                    tree.forget();
                    return;
                }
            }
            while lanes != 0 {
                let lane = lanes.trailing_zeros() as u8;
                lanes &= lanes - 1;
                if let Err(e) = builder.add_path_lane(lane) {
                    error = Some(e);
                    tree.forget();
                    return;
                }
            }
            tree.finish(&map, col, &mut builder);
        });
        if let Some(e) = error {
            return Err(e.into());
        }
        if failed {
            return Ok(None);
        }
        let cdg = builder.finish();
        let mut report = crate::deadlock::verify_cdg(net, &cdg);
        report.paths = if t > 1 {
            inj.iter().filter(|x| x.is_some()).count() * (t - 1)
        } else {
            0
        };
        if report.paths > 0 {
            report.lanes_used = report.lanes_used.max(1);
        }
        Ok(Some(report))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Hop statistics pair by pair from [`Routes::path`] and breadth-first
    /// distances: the oracle for [`Routes::hop_stats`].
    pub(crate) fn hop_stats_by_pairs(net: &Network, routes: &Routes) -> HopStats {
        let t = net.terminals().len();
        let (mut max, mut sum, mut pairs, mut first) = (0, 0usize, 0usize, None);
        for s in 0..t {
            let dist = bfs_distances(net, net.terminal(s));
            for d in (0..t).filter(|&d| d != s) {
                let h = routes.path(net, s, d).unwrap().len();
                max = usize::max(max, h - 2);
                sum += h - 2;
                pairs += 1;
                let expect = dist[net.terminal(d).index()] as usize;
                if h != expect && first.is_none() {
                    first = Some((s, d, h, expect));
                }
            }
        }
        HopStats {
            max_hops: max,
            avg_hops: sum as f64 / pairs as f64,
            first_non_minimal: first,
        }
    }

    #[test]
    fn lanes_per_switch_read_per_pair_and_turn_per_pair_when_one_differs() {
        use crate::network::spec;
        // 4 switches in a ring, 2 terminals each: terminals 0, 1 on switch 0.
        let net = spec::build("torus:4,c=2").unwrap();
        let mut r = Routes::new(&net, "t");
        assert_eq!(r.uniform_lane(), Some(0));
        r.set_switch_lane(0, 5, 2);
        assert_eq!((r.lane(0, 5), r.lane(1, 5), r.lane(2, 5)), (2, 2, 0));
        assert_eq!(r.lane(5, 5), 0, "no lane to itself");
        assert!(r.has_pair_lanes() && r.uniform_lane().is_none());
        assert_eq!(r.max_pair_lane, 2);
        // One terminal of switch 0 set apart: every pair keeps its lane.
        r.set_lane(1, 5, 3);
        assert_eq!((r.lane(0, 5), r.lane(1, 5), r.lane(2, 5)), (2, 3, 0));
        assert!(r.switch_lanes.is_empty() && !r.lanes.is_empty());
        r.set_switch_lane(0, 6, 1);
        assert_eq!((r.lane(0, 6), r.lane(1, 6), r.lane(2, 6)), (1, 1, 0));
    }

    #[test]
    fn the_terminal_deadlock_check_per_destination_tree_agrees_with_every_pair() {
        use crate::network::spec;
        use crate::routing::{route, RoutingOptions};
        let mut cyclic = 0;
        for (topology, engine) in [
            ("kary-ntree:k=4,n=3", "ftree"),
            ("torus:5x4", "minhop"),
            ("random:switches=24,ports=6,hosts=2,seed=3", "updown"),
            ("random:switches=24,ports=6,hosts=2,seed=4", "minhop"),
            ("random:switches=24,ports=6,hosts=2,seed=4", "dfsssp"),
            ("random:switches=24,ports=6,hosts=2,seed=5", "lash"),
        ] {
            let net = spec::build(topology).unwrap();
            let routes = route(&net, engine, &RoutingOptions::default()).unwrap();
            let got = routes
                .tree_terminal_report(&net)
                .unwrap()
                .expect("tables with lanes fixed per pair go by destination tree");
            let mut builder = CdgBuilder::new(&net);
            let t = net.terminals().len();
            for s in 0..t {
                for d in (0..t).filter(|&d| d != s) {
                    let (p, l) = routes.path_lanes(&net, s, d).unwrap();
                    builder.add(PathRef::per_hop(&p, &l)).unwrap();
                }
            }
            let want = crate::deadlock::verify_cdg(&net, &builder.finish());
            let name = format!("{engine} on {topology}");
            assert_eq!(got.deadlock_free, want.deadlock_free, "{name}");
            assert_eq!(got.dependencies, want.dependencies, "{name}");
            assert_eq!(got.lanes_used, want.lanes_used, "{name}");
            assert_eq!(got.paths, t * (t - 1), "{name}");
            cyclic += usize::from(!got.deadlock_free);
        }
        assert!(cyclic > 0, "some routing with a cycle was compared");
    }

    #[test]
    fn hop_stats_per_destination_tree_agree_with_every_pair_walked() {
        use crate::network::spec;
        use crate::routing::{route, RoutingOptions};
        let mut non_minimal = 0;
        for (topology, engine) in [
            ("kary-ntree:k=4,n=3", "ftree"),
            ("kary-ntree:k=4,n=3", "updown"),
            ("torus:5x4", "dor"),
            ("mesh:4x3", "minhop"),
            ("random:switches=24,ports=6,hosts=2,seed=3", "updown"),
            ("random:switches=24,ports=6,hosts=2,seed=4", "updown"),
            ("random:switches=24,ports=6,hosts=2,seed=4", "sssp"),
        ] {
            let net = spec::build(topology).unwrap();
            let routes = route(&net, engine, &RoutingOptions::default()).unwrap();
            let by_tree = routes.table_hop_stats(&net).expect("every walk succeeds");
            let want = hop_stats_by_pairs(&net, &routes);
            assert_eq!(by_tree.max_hops, want.max_hops, "{topology} {engine}");
            assert!((by_tree.avg_hops - want.avg_hops).abs() < 1e-12);
            assert_eq!(
                by_tree.first_non_minimal, want.first_non_minimal,
                "{topology} {engine}"
            );
            non_minimal += usize::from(want.first_non_minimal.is_some());
        }
        assert!(non_minimal > 0, "some non-minimal routing was compared");
        // Terminals numbered against the switch order: a ring of 6
        // switches, terminal i on switch 5 - i, routed up*/down* (the
        // ring's far side goes the long way).
        let (mut b, sc, tc) = crate::network::NetworkBuilder::with_default_classes("ring");
        let sw: Vec<NodeId> = (0..6).map(|i| b.add_switch(format!("s{i}"), 3)).collect();
        for i in 0..6 {
            b.connect(sw[i], PortId(1), sw[(i + 1) % 6], PortId(2), sc)
                .unwrap();
        }
        for i in 0..6 {
            let h = b.add_terminal(format!("h{i}"), 1);
            b.connect(h, PortId(1), sw[5 - i], PortId(3), tc).unwrap();
        }
        let net = b.build().unwrap();
        let routes = route(&net, "updown", &RoutingOptions::default()).unwrap();
        let by_tree = routes.table_hop_stats(&net).expect("every walk succeeds");
        let want = hop_stats_by_pairs(&net, &routes);
        assert!(want.first_non_minimal.is_some());
        assert_eq!(by_tree, want);
        assert_eq!(
            routes.pairwise_first_non_minimal(&net).unwrap(),
            want.first_non_minimal
        );
        // A broken table: the pair-by-pair walk names it.
        let net = spec::build("kary-ntree:k=4,n=2").unwrap();
        let mut routes = route(&net, "ftree", &RoutingOptions::default()).unwrap();
        routes.set_port(0, 5, None);
        assert!(routes.table_hop_stats(&net).is_none());
        let err = routes.hop_stats(&net).unwrap_err().to_string();
        assert!(err.contains("no table entry"), "{err}");
    }

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
        let net = crate::network::build::torus::torus(&[3], 1).unwrap();
        let mut ps = PathSet::new(&net, PathKey::Pair);
        // Rows (s, d) in order; row r gets r % 3 paths.
        for row in 0..9u32 {
            for k in 0..row % 3 {
                let lanes: &[u8] = if row == 5 { &[1, 2] } else { &[] };
                ps.push(&[ChannelId(k), ChannelId(row)], lanes);
            }
            ps.next_row();
        }
        assert_eq!((ps.rows(), ps.len(), ps.total_hops()), (9, 9, 18));
        assert_eq!(ps.path_count(0, 0), 0, "self pairs have no paths");
        assert_eq!(ps.path_count(0, 1), 1);
        assert_eq!(ps.path_count(1, 2), 2);
        let v: Vec<_> = ps.paths(1, 2).collect();
        assert_eq!(v[1].channels, &[ChannelId(1), ChannelId(5)][..]);
        assert_eq!(v[1].lanes.at(1), 2);
        // Paths pushed before the first lane change stay on lane 0.
        let first: Vec<_> = ps.paths(0, 1).collect();
        assert_eq!(first[0].lanes.at(0), 0);
        assert_eq!(
            (ps.max_paths(), ps.max_lane(), ps.denominator()),
            (2, 2, Some(2))
        );

        // Built in two halves and appended: the same set.
        let mut a = PathSet::new(&net, PathKey::Pair);
        let mut b = PathSet::new(&net, PathKey::Pair);
        for row in 0..9u32 {
            let part = if row < 4 { &mut a } else { &mut b };
            for k in 0..row % 3 {
                let lanes: &[u8] = if row == 5 { &[1, 2] } else { &[] };
                part.push(&[ChannelId(k), ChannelId(row)], lanes);
            }
            part.next_row();
        }
        a.append(b);
        assert_eq!(a, ps);
    }

    #[test]
    fn path_set_denominators_and_padding() {
        let net = crate::network::build::crossbar::crossbar(4).unwrap();
        let mut ps = PathSet::new(&net, PathKey::Switch);
        for n in [3u32, 4, 5] {
            for _ in 0..n {
                ps.push(&[ChannelId(0)], &[]);
            }
            ps.next_row();
        }
        assert_eq!(ps.denominator(), Some(60));
        assert_eq!(ps.blocks(), &[0, 0, 0, 0]);
        // An unclosed row is dropped and missing rows are empty.
        ps.push(&[ChannelId(1)], &[]);
        ps.finish();
        assert_eq!((ps.rows(), ps.len()), (4, 12));
        assert_eq!(ps.path_count(0, 3), 0);
        assert_eq!(ps.path_count(3, 2), 5);
        assert!(ps.memory_bytes() > 0);
        let mut big = PathSet::new(&net, PathKey::Switch);
        for n in [65_521u32, 65_519, 65_497] {
            big.note_count(n);
        }
        assert_eq!(big.denominator(), None, "lcm above 2^32");
    }
}
