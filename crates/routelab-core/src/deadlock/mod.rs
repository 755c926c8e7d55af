//! Channel dependency graphs and deadlock analysis on generic paths.
//!
//! This layer sits below `routing`: it knows nothing about engines or
//! forwarding tables, only about paths, each a sequence of [`ChannelId`]s with
//! the lane used on every hop ([`PathRef`]). Routing engines that must avoid
//! cycles while they route (DFSSSP, LASH) use [`layers`]; every set of routes
//! can be audited with [`verify`].
//!
//! Dependencies follow Dally and Seitz: a packet holding channel `a` on lane
//! `la` and requesting channel `b` on lane `lb` makes `(a, la) -> (b, lb)` an
//! edge of the channel dependency graph (CDG). Terminals never forward, so an
//! injection channel (leaving a terminal) has no incoming dependency and an
//! ejection channel (entering one) no outgoing one: neither can close a cycle
//! and both are left out of the graph. A path may pass through a terminal
//! that ejects the packet whole and re-injects it (an in-transit host,
//! flich2000): no dependency crosses it, which is how in-transit buffers
//! break the cycles of minimal routes.
//!
//! - [`cdg`]: the turn index and the CDG over (channel, lane) nodes (CSR).
//! - [`cycles`]: cycle search (iterative, no recursion) and cycle reports.
//! - [`verify`]: deadlock freedom of a set of paths.
//! - [`layers`]: virtual-layer assignment (offline cycle breaking and the
//!   online variant of DFSSSP), and spreading paths over spare layers.

pub mod cdg;
pub mod cycles;
pub mod layers;
pub mod verify;

pub use cdg::{Cdg, CdgBuilder, Turns};
pub use cycles::{describe_cycle, find_cycle};
pub use layers::{
    assign_layers, assign_layers_owned, spread_layers, spread_shares, Heuristic, IncrementalCdg,
    LayerAssignment,
};
pub use verify::{verify, verify_cdg, Cycle, DeadlockReport};

use crate::network::ChannelId;
use thiserror::Error;

/// The most lanes (virtual channels) a path may use: lanes are numbered
/// `0..MAX_LANES`, as InfiniBand's data VLs 0..=15 at most.
pub const MAX_LANES: usize = 16;

/// Errors of the deadlock layer. Each names the path and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum DeadlockError {
    #[error("path {path} is broken at hop {hop}: {detail}")]
    BrokenPath {
        path: usize,
        hop: usize,
        detail: String,
    },

    #[error(
        "path {path} goes from terminal {terminal} to another terminal at hop {hop}; a terminal forwards only back into the network (in transit)"
    )]
    TerminalForwards {
        path: usize,
        hop: usize,
        terminal: String,
    },

    #[error("path {path} uses lane {lane}; lanes are 0..={max}", max = MAX_LANES - 1)]
    LaneOutOfRange { path: usize, lane: u8 },

    #[error("path {path} has {lanes} lanes for {hops} hops; give one lane per hop")]
    LaneCount {
        path: usize,
        lanes: usize,
        hops: usize,
    },

    #[error("{}", layers_exceeded(*needed, *at_least, *limit, heuristic))]
    LayersExceeded {
        /// Layers the heuristic used (a lower bound when `at_least`).
        needed: u32,
        /// The heuristic gave up before finishing: it needs `needed` or more.
        at_least: bool,
        limit: u8,
        heuristic: &'static str,
    },

    #[error("the channel dependency graph is too large: {what}")]
    TooLarge { what: String },
}

fn layers_exceeded(needed: u32, at_least: bool, limit: u8, heuristic: &str) -> String {
    if at_least {
        format!(
            "needs at least {needed} lanes with the '{heuristic}' heuristic (it gave up there), \
             but the limit is {limit}"
        )
    } else {
        format!(
            "needs {needed} lanes with the '{heuristic}' heuristic, but the limit is {limit} \
             (the true minimum may be lower: finding it is NP-complete; try another heuristic \
             or raise max_lanes)"
        )
    }
}

/// The lanes of a path: one for every hop, or one per hop.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PathLanes<'a> {
    /// Every hop on the same lane (virtual layers).
    Uniform(u8),
    /// `lanes[i]` is the lane of hop `i` (lane changes such as datelines).
    PerHop(&'a [u8]),
}

impl PathLanes<'_> {
    /// The lane of hop `i`.
    #[inline]
    pub fn at(&self, i: usize) -> u8 {
        match self {
            PathLanes::Uniform(l) => *l,
            PathLanes::PerHop(v) => v[i],
        }
    }
}

/// A borrowed path: its channels and lanes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PathRef<'a> {
    pub channels: &'a [ChannelId],
    pub lanes: PathLanes<'a>,
}

impl<'a> PathRef<'a> {
    /// A path whose hops all use `lane`.
    pub fn uniform(channels: &'a [ChannelId], lane: u8) -> Self {
        PathRef {
            channels,
            lanes: PathLanes::Uniform(lane),
        }
    }

    /// A path with one lane per hop (`lanes.len() == channels.len()`).
    pub fn per_hop(channels: &'a [ChannelId], lanes: &'a [u8]) -> Self {
        PathRef {
            channels,
            lanes: PathLanes::PerHop(lanes),
        }
    }
}

/// A channel on a lane: one node of the channel dependency graph.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct LaneChannel {
    pub channel: ChannelId,
    pub lane: u8,
}

/// Many paths stored flat (CSR): the channels of path `i` are
/// `channels[base[i]..base[i + 1]]`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PathList {
    base: Vec<usize>,
    channels: Vec<ChannelId>,
}

impl PathList {
    pub fn new() -> Self {
        PathList {
            base: vec![0],
            channels: Vec::new(),
        }
    }

    pub fn with_capacity(paths: usize, channels: usize) -> Self {
        let mut base = Vec::with_capacity(paths + 1);
        base.push(0);
        PathList {
            base,
            channels: Vec::with_capacity(channels),
        }
    }

    /// Appends a path and returns its index.
    pub fn push(&mut self, path: &[ChannelId]) -> usize {
        if self.base.is_empty() {
            self.base.push(0);
        }
        self.channels.extend_from_slice(path);
        self.base.push(self.channels.len());
        self.base.len() - 2
    }

    pub fn len(&self) -> usize {
        self.base.len().saturating_sub(1)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The channels of path `i`.
    #[inline]
    pub fn get(&self, i: usize) -> &[ChannelId] {
        &self.channels[self.base[i]..self.base[i + 1]]
    }

    pub fn iter(&self) -> impl ExactSizeIterator<Item = &[ChannelId]> + '_ {
        (0..self.len()).map(move |i| self.get(i))
    }

    /// Total number of hops over all paths.
    pub fn total_hops(&self) -> usize {
        self.channels.len()
    }
}
