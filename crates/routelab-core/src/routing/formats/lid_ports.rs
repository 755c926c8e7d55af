//! The output port of every switch for every LID, as a subnet manager must
//! program it: traffic to a LID leaves the fabric through the switch port
//! cabled to the port that owns the LID.
//!
//! [`Routes`] hold one route per terminal, and a terminal with several
//! cabled ports (a dual-homed storage node, an HCA with both ports cabled)
//! may be delivered through any of them. Its LIDs are per port, so they are
//! routed here toward the switch `X` that the owning port hangs off:
//! - at `X`, out of the port cabled to the owning port;
//! - elsewhere, along the routes to a *proxy* of `X`, a terminal whose only
//!   cable goes to `X` (its routes reach `X` from every switch). The paths
//!   are prefixes of the proxy's paths plus one delivery hop, so they add no
//!   switch-to-switch channel dependency the proxy's routes did not have;
//! - with no proxy, along the terminal's own routes from the switches whose
//!   walk passes `X`, and from the others along a min-hop tree toward `X`
//!   over switch links (lowest port among the shortest next hops; loop-free
//!   as the distance falls at every hop). These few paths are outside the
//!   engine's own deadlock argument: audit the dump if that matters.
//!
//! A switch's LID is routed the same way toward the switch itself (port 0
//! there; a switch without a proxy along the routes of a terminal whose
//! walk passes it, else the min-hop tree); a single-homed terminal's LID
//! simply follows its routes.

use super::lids::{LidEntry, Lids};
use crate::network::{Network, NodeId};
use crate::routing::columns::{columns, PortMap, NONE};
use crate::routing::Routes;

/// Per switch, the terminal (index) whose only cable goes to it.
pub(crate) fn proxies(net: &Network) -> Vec<Option<usize>> {
    let mut proxy = vec![None; net.switches().len()];
    for (d, &t) in net.terminals().iter().enumerate() {
        let mut to = net
            .out_channels(t)
            .iter()
            .map(|&c| net.channel(c).dst)
            .filter(|&n| net.is_switch(n));
        if let (Some(x), None) = (to.next(), to.next()) {
            if net.out_channels(t).len() == 1 {
                proxy[net.kind_index(x)].get_or_insert(d);
            }
        }
    }
    proxy
}

/// Is terminal `t` cabled through one port only?
fn single_homed(net: &Network, t: NodeId) -> bool {
    net.out_channels(t).len() == 1
}

/// The switch (index) and switch port a LID's owning port is cabled to;
/// for a switch LID, the switch and port 0.
fn home(net: &Network, e: &LidEntry) -> Option<(usize, u16)> {
    if net.is_switch(e.node) {
        return Some((net.kind_index(e.node), 0));
    }
    let c = net.channel(net.channel_at(e.node, e.port?)?);
    net.is_switch(c.dst)
        .then(|| (net.kind_index(c.dst), c.dst_port.0))
}

/// Does the walk toward terminal `d` from switch `x` pass switch `home`?
fn walk_passes(net: &Network, routes: &Routes, d: usize, mut x: usize, home: usize) -> bool {
    for _ in 0..=net.switches().len() {
        if x == home {
            return true;
        }
        let Some(p) = routes.port(x, d) else {
            return false;
        };
        let Some(c) = net.channel_at(net.switches()[x], p) else {
            return false;
        };
        let to = net.channel(c).dst;
        if !net.is_switch(to) {
            return false;
        }
        x = net.kind_index(to);
    }
    false
}

/// For the switches without a proxy: per such switch `x` and every switch
/// `y`, the first terminal (in index order) whose walk from `y` passes `x`.
/// One pass over the destinations, each walked from every switch: time
/// linear in terminals x switches x path length, where asking per
/// (`x`, `y`) would cost that for every switch `x` again.
struct FirstPassing {
    slot: Vec<u32>,
    wanted: usize,
    first: Vec<u32>,
}

impl FirstPassing {
    fn new(net: &Network, routes: &Routes, proxy: &[Option<usize>]) -> Self {
        let s = net.switches().len();
        let mut slot = vec![NONE; s];
        let mut wanted = 0u32;
        for (x, p) in proxy.iter().enumerate() {
            if p.is_none() {
                slot[x] = wanted;
                wanted += 1;
            }
        }
        // Per switch y, then per wanted switch: `first[y * wanted + k]`, so
        // that each core takes a range of switches y, reading every
        // destination's column itself.
        let w = wanted as usize;
        let mut first = vec![NONE; w * s];
        if w > 0 {
            use rayon::prelude::*;
            let map = PortMap::new(net);
            let per = s.div_ceil(rayon::current_num_threads()).max(1);
            first
                .par_chunks_mut(per * w)
                .enumerate()
                .for_each(|(chunk, out)| {
                    let y0 = chunk * per;
                    let mut next = vec![NONE; s];
                    columns(&routes.table, net.terminals().len(), |d, ports| {
                        for (y, n) in next.iter_mut().enumerate() {
                            *n = map.next(y, ports[y]);
                        }
                        for (j, row) in out.chunks_mut(w).enumerate() {
                            let mut x = next[y0 + j];
                            // A loop in the tables: stop after as many
                            // hops as there are switches, as any walk does.
                            for _ in 0..s {
                                if x == NONE {
                                    break;
                                }
                                let k = slot[x as usize];
                                if k != NONE && row[k as usize] == NONE {
                                    row[k as usize] = d as u32;
                                }
                                x = next[x as usize];
                            }
                        }
                    });
                });
        }
        FirstPassing {
            slot,
            wanted: w,
            first,
        }
    }

    /// The first terminal whose walk from `y` passes `x`, if any.
    fn get(&self, x: usize, y: usize) -> Option<usize> {
        match self.slot[x] {
            NONE => None,
            k => match self.first[y * self.wanted + k as usize] {
                NONE => None,
                d => Some(d as usize),
            },
        }
    }
}

/// The LFT entries of one LID: per switch (index), the output port (0 at
/// the switch that owns a switch LID), or `None` for no entry.
fn lid_ports(
    net: &Network,
    routes: &Routes,
    proxy: &[Option<usize>],
    passing: &FirstPassing,
    e: &LidEntry,
) -> Vec<Option<u16>> {
    let s = net.switches().len();
    let Some((x, q)) = home(net, e) else {
        return vec![None; s];
    };
    let own = net.is_terminal(e.node).then(|| net.kind_index(e.node));
    let mut tree: Option<Vec<Option<u16>>> = None;
    (0..s)
        .map(|y| {
            if y == x {
                return Some(q);
            }
            let via = match (own, proxy[x]) {
                (Some(d), _) if single_homed(net, e.node) => d,
                (_, Some(p)) => p,
                (Some(d), None) if walk_passes(net, routes, d, y, x) => d,
                // A switch without adapters of its own: along the routes
                // of a terminal whose walk from here passes it.
                (None, None) => match passing.get(x, y) {
                    Some(d) => d,
                    None => return tree.get_or_insert_with(|| min_hop_tree(net, x))[y],
                },
                _ => return tree.get_or_insert_with(|| min_hop_tree(net, x))[y],
            };
            // A terminal without a route from here: the min-hop tree.
            routes
                .port(y, via)
                .map(|p| p.0)
                .or_else(|| tree.get_or_insert_with(|| min_hop_tree(net, x))[y])
        })
        .collect()
}

/// Per switch, the lowest port of a shortest switch-only path toward
/// switch `x` (`None` at `x` and where `x` is out of reach).
fn min_hop_tree(net: &Network, x: usize) -> Vec<Option<u16>> {
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
                        && dist[net.kind_index(ch.dst)] + 1 == dist[y]
                })
                .map(|ch| ch.src_port.0)
                .min()
        })
        .collect()
}

/// The entries of every LID that does not simply follow a terminal's
/// routes (switch LIDs and the LIDs of multi-homed terminals), in
/// [`Lids::entries`] order; `None` for the LIDs of single-homed terminals,
/// whose entries are their routes (so no table of LIDs x switches is built
/// for them).
pub(crate) fn special_lid_ports(
    net: &Network,
    routes: &Routes,
    lids: &Lids,
) -> Vec<Option<Vec<Option<u16>>>> {
    let proxy = proxies(net);
    let passing = FirstPassing::new(net, routes, &proxy);
    // Each LID on its own: on every core.
    use rayon::prelude::*;
    lids.entries()
        .par_iter()
        .map(|e| {
            (net.is_switch(e.node) || !single_homed(net, e.node))
                .then(|| lid_ports(net, routes, &proxy, &passing, e))
        })
        .collect()
}
