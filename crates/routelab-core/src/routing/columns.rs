//! Forwarding tables read one destination at a time, and the walks of all
//! sources toward one destination taken together.
//!
//! Tables are stored switch-major (`table[x * cols + d]`: switch `x`'s
//! port for destination `d`), as a switch holds them. Checks that follow
//! every switch's route toward one destination want the transpose: for
//! destination `d`, the next switch of every switch, a tree rooted at the
//! destination (or a forest with loops, for broken tables). Reading a
//! column entry by entry touches one cache line per switch; [`columns`]
//! reads a block of [`BLOCK`] destinations per cache line instead, which
//! is what keeps the walks over 10^8 table entries of a 50,000-endpoint
//! fabric at memory speed.

use crate::deadlock::CdgBuilder;
use crate::network::{ChannelId, Network, PortId};

/// No next switch: no entry, an uncabled port, or a port that leaves the
/// switches (delivery to a terminal, or a switch's own LID).
pub(crate) const NONE: u32 = u32::MAX;

/// Destinations read together: 32 entries of `u16` fill a cache line.
pub(crate) const BLOCK: usize = 32;

/// Tables written one destination at a time, as the engines that route
/// destination after destination do. A destination writes to every
/// switch's row, a cache line and a page apart, so the entries of up to
/// [`BLOCK`] destinations are gathered per switch here and go to the table
/// together, a run of each row.
pub(crate) struct ColumnWriter {
    /// Per switch, [`BLOCK`] ports (0: no entry).
    block: Vec<u16>,
    /// The destinations of the block, in order.
    dests: Vec<usize>,
}

impl ColumnWriter {
    pub(crate) fn new(switches: usize) -> Self {
        ColumnWriter {
            block: vec![0; switches * BLOCK],
            dests: Vec::with_capacity(BLOCK),
        }
    }

    /// Destination `d` is next: [`Self::set`] writes its entries. Writes a
    /// full block to `table` (`cols` destinations per row) first.
    pub(crate) fn start(&mut self, table: &mut [u16], cols: usize, d: usize) {
        if self.dests.len() == BLOCK {
            self.flush(table, cols);
        }
        self.dests.push(d);
    }

    /// Switch `x` reaches the current destination by `port`.
    #[inline]
    pub(crate) fn set(&mut self, x: usize, port: u16) {
        debug_assert!(!self.dests.is_empty(), "set before start");
        self.block[x * BLOCK + self.dests.len() - 1] = port;
    }

    /// Writes the block's entries to `table` and empties it. An entry not
    /// set is written as 0: the table must be fresh (all 0) for the
    /// destinations of the block, and each destination started once.
    pub(crate) fn flush(&mut self, table: &mut [u16], cols: usize) {
        for (x, ports) in self.block.chunks_exact_mut(BLOCK).enumerate() {
            let row = &mut table[x * cols..(x + 1) * cols];
            for (port, &d) in ports.iter_mut().zip(&self.dests) {
                row[d] = std::mem::take(port);
            }
        }
        self.dests.clear();
    }
}

/// Per switch index and port: the channel out of that port and the switch
/// index it leads to, for lookups without the network's indirections.
pub(crate) struct PortMap {
    stride: usize,
    next: Vec<u32>,
    channel: Vec<u32>,
}

impl PortMap {
    pub(crate) fn new(net: &Network) -> Self {
        let sw = net.switches();
        let stride = sw
            .iter()
            .map(|&x| usize::from(net.node(x).ports) + 1)
            .max()
            .unwrap_or(1);
        let mut next = vec![NONE; sw.len() * stride];
        let mut channel = vec![NONE; sw.len() * stride];
        for (i, &x) in sw.iter().enumerate() {
            for p in 1..=net.node(x).ports {
                if let Some(c) = net.channel_at(x, PortId(p)) {
                    let slot = i * stride + usize::from(p);
                    channel[slot] = c.0;
                    let to = net.channel(c).dst;
                    if net.is_switch(to) {
                        next[slot] = net.kind_index(to) as u32;
                    }
                }
            }
        }
        PortMap {
            stride,
            next,
            channel,
        }
    }

    /// The switch index port `port` of switch index `x` leads to.
    #[inline]
    pub(crate) fn next(&self, x: usize, port: u16) -> u32 {
        let p = usize::from(port);
        if p >= self.stride {
            return NONE;
        }
        self.next[x * self.stride + p]
    }

    /// The channel out of port `port` of switch index `x`.
    #[inline]
    pub(crate) fn channel(&self, x: usize, port: u16) -> Option<ChannelId> {
        let p = usize::from(port);
        if p >= self.stride {
            return None;
        }
        match self.channel[x * self.stride + p] {
            NONE => None,
            c => Some(ChannelId(c)),
        }
    }
}

/// Calls `f(d, ports)` for every destination `d` in `0..cols` of the
/// switch-major `table` (`switches * cols` entries), in order, where
/// `ports[y]` is switch `y`'s entry for `d`.
pub(crate) fn columns(table: &[u16], cols: usize, f: impl FnMut(usize, &[u16])) {
    columns_in(table, cols, 0..cols, f);
}

/// [`columns`] of the destinations in `range`.
fn columns_in(
    table: &[u16],
    cols: usize,
    range: std::ops::Range<usize>,
    mut f: impl FnMut(usize, &[u16]),
) {
    let switches = table.len().checked_div(cols).unwrap_or(0);
    let mut block = vec![0u16; BLOCK * switches];
    for d0 in range.clone().step_by(BLOCK) {
        let width = BLOCK.min(range.end - d0);
        for y in 0..switches {
            let row = &table[y * cols + d0..y * cols + d0 + width];
            for (j, &p) in row.iter().enumerate() {
                block[j * switches + y] = p;
            }
        }
        for j in 0..width {
            f(d0 + j, &block[j * switches..(j + 1) * switches]);
        }
    }
}

/// [`columns`] on every core: the destinations split in contiguous ranges
/// (several per thread, for balance), each read in order into its own
/// state from `init`; returns the states in destination order, for the
/// caller to merge.
pub(crate) fn par_columns<S: Send>(
    table: &[u16],
    cols: usize,
    init: impl Fn() -> S + Sync,
    f: impl Fn(&mut S, usize, &[u16]) + Sync,
) -> Vec<S> {
    use rayon::prelude::*;
    let parts = (rayon::current_num_threads() * 4).max(1);
    let per = cols.div_ceil(parts).div_ceil(BLOCK).max(1) * BLOCK;
    let ranges: Vec<(usize, usize)> = (0..cols)
        .step_by(per)
        .map(|a| (a, (a + per).min(cols)))
        .collect();
    ranges
        .into_par_iter()
        .map(|(a, b)| {
            let mut state = init();
            columns_in(table, cols, a..b, |d, ports| f(&mut state, d, ports));
            state
        })
        .collect()
}

/// How a walk toward a destination ends at switch `z` whose entry `port`
/// leads out of the switches (to a terminal, or 0, or no entry): whether
/// that is the destination.
pub(crate) trait Delivery {
    fn delivered(&self, z: usize, port: u16) -> bool;
}

impl<F: Fn(usize, u16) -> bool> Delivery for F {
    fn delivered(&self, z: usize, port: u16) -> bool {
        self(z, port)
    }
}

/// The walks of every source toward one destination at once. A switch has
/// one entry per destination, so those walks form a tree: each switch is
/// walked from once per lane that reaches it, and the dependencies are
/// those of each switch reached, on each lane reaching it. Lanes are bits
/// of a mask (lanes fixed per pair, as in one SL per pair); [`WALK_ONLY`]
/// checks a walk that carries no traffic.
pub(crate) struct DestinationTree {
    reached: Vec<u32>,
    fate: Vec<u8>,
    stamp: Vec<u32>,
    touched: Vec<usize>,
    walk: Vec<usize>,
    walks: u32,
}

/// The mask bit of a walk that carries no lane.
pub(crate) const WALK_ONLY: u32 = 1 << 31;

const FATE_OK: u8 = 1;
const FATE_BAD: u8 = 2;

impl DestinationTree {
    pub(crate) fn new(switches: usize) -> Self {
        DestinationTree {
            reached: vec![0; switches],
            fate: vec![0; switches],
            stamp: vec![0; switches],
            touched: Vec::new(),
            walk: Vec::new(),
            walks: 0,
        }
    }

    /// Walks from switch `y` along `ports` (this destination's entries)
    /// with the lanes of `mask`, marking every switch passed; false when
    /// the walk fails (no entry, an uncabled port, a loop, or delivery
    /// elsewhere), so the caller can name it path by path.
    pub(crate) fn spread(
        &mut self,
        map: &PortMap,
        ports: &[u16],
        y: usize,
        mask: u32,
        end: &impl Delivery,
    ) -> bool {
        self.walks += 1;
        self.walk.clear();
        let mut z = y;
        let fate = loop {
            if self.reached[z] & mask == mask && self.fate[z] != 0 {
                break self.fate[z];
            }
            if self.stamp[z] == self.walks {
                break FATE_BAD; // a loop
            }
            if self.reached[z] == 0 {
                self.touched.push(z);
            }
            self.stamp[z] = self.walks;
            self.reached[z] |= mask;
            self.walk.push(z);
            let p = ports[z];
            match map.next(z, p) {
                NONE if map.channel(z, p).is_some() || p == 0 => {
                    break if end.delivered(z, p) {
                        FATE_OK
                    } else {
                        FATE_BAD
                    };
                }
                NONE => break FATE_BAD,
                nx => z = nx as usize,
            }
        };
        for &w in &self.walk {
            self.fate[w] = fate;
        }
        fate == FATE_OK
    }

    /// Adds the dependencies of every switch reached (each lane reaching
    /// it, from its channel into the next switch's) to `builder`, and
    /// forgets the destination.
    pub(crate) fn finish(&mut self, map: &PortMap, ports: &[u16], builder: &mut CdgBuilder<'_>) {
        for &z in &self.touched {
            let p = ports[z];
            let nx = map.next(z, p);
            if nx != NONE {
                if let (Some(a), Some(b)) = (
                    map.channel(z, p),
                    map.channel(nx as usize, ports[nx as usize]),
                ) {
                    let mut m = self.reached[z] & !WALK_ONLY;
                    while m != 0 {
                        let lane = m.trailing_zeros() as u8;
                        m &= m - 1;
                        builder.add_turn(a, b, lane, lane);
                    }
                }
            }
        }
        self.forget();
    }

    /// Forgets the destination without adding its dependencies.
    pub(crate) fn forget(&mut self) {
        for &z in &self.touched {
            self.reached[z] = 0;
            self.fate[z] = 0;
            self.stamp[z] = 0;
        }
        self.touched.clear();
        self.walks = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::network::spec;
    use crate::routing::{route, RoutingOptions};

    #[test]
    fn columns_follow_the_tables_entry_by_entry() {
        let net = spec::build("kary-ntree:k=4,n=3").unwrap();
        let routes = route(&net, "ftree", &RoutingOptions::default()).unwrap();
        let map = PortMap::new(&net);
        let t = net.terminals().len();
        let mut seen = 0;
        columns(&routes.table, t, |d, ports| {
            assert_eq!(d, seen);
            seen += 1;
            for (y, &p) in ports.iter().enumerate() {
                let n = map.next(y, p);
                let want = routes
                    .port(y, d)
                    .and_then(|p| net.channel_at(net.switches()[y], p))
                    .map(|c| net.channel(c).dst)
                    .filter(|&v| net.is_switch(v))
                    .map_or(NONE, |v| net.kind_index(v) as u32);
                assert_eq!(n, want, "switch {y}, destination {d}");
            }
        });
        assert_eq!(seen, t);
        // A partial last block, and the parallel reading in order.
        let net = spec::build("kary-ntree:k=5,n=3").unwrap();
        let routes = route(&net, "ftree", &RoutingOptions::default()).unwrap();
        let t = net.terminals().len();
        assert_ne!(t % BLOCK, 0);
        let mut serial = Vec::new();
        columns(&routes.table, t, |d, ports| {
            serial.push((d, ports.to_vec()))
        });
        let parts = par_columns(&routes.table, t, Vec::new, |v, d, ports| {
            v.push((d, ports.to_vec()))
        });
        assert_eq!(parts.concat(), serial);
        assert_eq!(serial.len(), t);
    }
}
