//! Forwarding tables read one destination at a time.
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

use crate::network::{ChannelId, Network, PortId};

/// No next switch: no entry, an uncabled port, or a port that leaves the
/// switches (delivery to a terminal, or a switch's own LID).
pub(crate) const NONE: u32 = u32::MAX;

/// Destinations read together: 32 entries of `u16` fill a cache line.
pub(crate) const BLOCK: usize = 32;

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
pub(crate) fn columns(table: &[u16], cols: usize, mut f: impl FnMut(usize, &[u16])) {
    let switches = if cols == 0 { 0 } else { table.len() / cols };
    let mut block = vec![0u16; BLOCK * switches];
    for d0 in (0..cols).step_by(BLOCK) {
        let width = BLOCK.min(cols - d0);
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
    }
}
