//! SSSP: single-source shortest paths balanced globally (Domke et al. 2011,
//! Algorithm 1).
//!
//! Destinations are taken in terminal order. For each, Dijkstra runs on the
//! switch graph from the switches the destination hangs off, over the
//! reversed channels, with integer channel weights; every switch forwards
//! along its shortest-path tree. Then each channel's weight grows by the
//! number of routes (source terminals) now crossing it, so later
//! destinations avoid loaded channels. Every channel starts at `T^2 + 1`
//! (`T` terminals): the added weight never exceeds `T (T - 1)`, so a detour
//! always costs more than any load and every path stays minimal. Terminals
//! never forward. One lane; the routes may contain dependency cycles (use
//! `dfsssp` for deadlock freedom).
//!
//! Because a path's added load stays below one channel's base weight in
//! practice, Dijkstra settles the switches hop level by hop level; each
//! tree is built that way, without a heap, and checked to be Dijkstra's
//! (same distances, same settling order, hence the same ties). Where the
//! check fails, the tree comes from Dijkstra itself: the tables are
//! Dijkstra's either way.
//!
//! Options ([`Capacity`]): `avoid_throttled_links` routes without the
//! throttled switch links, as OpenSM's sssp and dfsssp do when asked;
//! `weigh_capacity` adds each route to a channel's weight as many times as
//! its link is slower than the fastest (`k`), channels starting at
//! `k_max T^2 + 1` so that paths stay minimal.

use super::columns::ColumnWriter;
use super::fabric::{Capacity, Fabric, NONE};
use super::{Routes, RoutingEngine, RoutingError, RoutingOptions};
use crate::network::Network;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

pub struct Sssp {
    capacity: Capacity,
}

pub fn engine(o: &RoutingOptions) -> Box<dyn RoutingEngine> {
    Box::new(Sssp {
        capacity: Capacity::of(o),
    })
}

impl RoutingEngine for Sssp {
    fn name(&self) -> &'static str {
        "sssp"
    }

    fn route(&self, net: &Network) -> Result<Routes, RoutingError> {
        super::canonical::by_guid(net, |n, _| self.route_listed(n))
    }
}

impl Sssp {
    /// Routes `net` in the order it lists nodes and cables ([`Self::route`]
    /// gives it the canonical order, by GUID).
    fn route_listed(&self, net: &Network) -> Result<Routes, RoutingError> {
        let f = Fabric::balancing(net, self.name(), self.capacity)?;
        Ok(tables(&f))
    }
}

/// The SSSP tables of a fabric (shared with `dfsssp`).
pub(crate) fn tables(f: &Fabric) -> Routes {
    let net = f.net;
    let mut routes = Routes::new(net, f.engine);
    let (s, t) = (f.s, f.t);
    let w0 = f.max_cost() * (t as u64) * (t as u64) + 1;
    let mut weight = vec![w0; net.channel_count()];
    let mut tree = Tree::new(s);
    let mut count = vec![0u64; s];
    let mut writer = ColumnWriter::new(s);
    for d in 0..t {
        if !tree.by_levels(f, &weight, d) {
            tree.by_dijkstra(f, &weight, d);
        }
        let Tree {
            order,
            next,
            next_to,
            ..
        } = &tree;
        writer.start(&mut routes.table, t, d);
        for &x in order {
            let xi = x as usize;
            let entry = if let Some(p) = f.sink_port(xi, d) {
                p.0
            } else {
                net.channel(crate::ChannelId(next[xi])).src_port.0
            };
            writer.set(xi, entry);
        }
        // Routes per switch: its own terminals (but d) plus those passing.
        for &x in order {
            let xi = x as usize;
            count[xi] = u64::from(f.injecting[xi]) - u64::from(f.inject[d] == x);
        }
        for &x in order.iter().rev() {
            let xi = x as usize;
            if next[xi] != NONE {
                weight[next[xi] as usize] += count[xi] * f.cost(crate::ChannelId(next[xi]));
                count[next_to[xi] as usize] += count[xi];
            }
        }
    }
    writer.flush(&mut routes.table, t);
    routes
}

/// The shortest-path tree towards one destination over the reversed
/// channels: per switch its distance, the channel it forwards on and the
/// switch that leads to, and the switches in the order Dijkstra settles
/// them (by distance, ties by index).
struct Tree {
    dist: Vec<u64>,
    next: Vec<u32>,
    next_to: Vec<u32>,
    order: Vec<u32>,
    /// [`Self::by_levels`]: the level being settled, the next one, and
    /// per switch whether it is in neither, the next, the current one, or
    /// settled before it.
    level: Vec<u32>,
    ahead: Vec<u32>,
    state: Vec<u8>,
    heap: BinaryHeap<Reverse<(u64, u32)>>,
}

impl Tree {
    fn new(s: usize) -> Self {
        Tree {
            dist: vec![u64::MAX; s],
            next: vec![NONE; s],
            next_to: vec![NONE; s],
            order: Vec::with_capacity(s),
            level: Vec::new(),
            ahead: Vec::new(),
            state: vec![UNSEEN; s],
            heap: BinaryHeap::new(),
        }
    }

    fn clear(&mut self) {
        self.dist.fill(u64::MAX);
        self.next.fill(NONE);
        self.order.clear();
    }

    /// Dijkstra with a binary heap.
    fn by_dijkstra(&mut self, f: &Fabric, weight: &[u64], d: usize) {
        self.clear();
        let mut heap = std::mem::take(&mut self.heap);
        for k in f.sinks(d) {
            self.dist[k.switch as usize] = 0;
            heap.push(Reverse((0, k.switch)));
        }
        while let Some(Reverse((dy, y))) = heap.pop() {
            if dy != self.dist[y as usize] {
                continue;
            }
            self.order.push(y);
            for l in f.links(y as usize) {
                let x = l.to as usize;
                // The channel x -> y is the reverse of y -> x.
                let c = l.ch.reverse();
                let nd = dy + weight[c.index()];
                if nd < self.dist[x] {
                    self.dist[x] = nd;
                    self.next[x] = c.0;
                    self.next_to[x] = y;
                    heap.push(Reverse((nd, x as u32)));
                }
            }
        }
        self.heap = heap;
    }

    /// The same tree, level by level of hops, without a heap: each
    /// channel weighs more than all the load added to any path, so
    /// Dijkstra settles every switch h hops away before any farther one.
    /// Each level is sorted by (distance, index) and settled in that
    /// order, which is Dijkstra's. False, with the tree unfinished, where
    /// that does not hold (a level's distances not all above the last
    /// one's, or a switch brought closer through its own level): then
    /// only Dijkstra gives its order.
    fn by_levels(&mut self, f: &Fabric, weight: &[u64], d: usize) -> bool {
        self.clear();
        let mut state = std::mem::take(&mut self.state);
        let mut level = std::mem::take(&mut self.level);
        let mut ahead = std::mem::take(&mut self.ahead);
        state.fill(UNSEEN);
        level.clear();
        for k in f.sinks(d) {
            self.dist[k.switch as usize] = 0;
            level.push(k.switch);
        }
        level.sort_unstable();
        let mut last = None;
        let mut exact = true;
        while exact && !level.is_empty() {
            let first = self.dist[level[0] as usize];
            if last.is_some_and(|last| first <= last) {
                exact = false;
                break;
            }
            last = Some(self.dist[level[level.len() - 1] as usize]);
            for &y in &level {
                state[y as usize] = CURRENT;
            }
            self.order.extend_from_slice(&level);
            ahead.clear();
            for &y in &level {
                let dy = self.dist[y as usize];
                for l in f.links(y as usize) {
                    let x = l.to as usize;
                    // Settled in an earlier level: closer than y, so no
                    // channel (all weigh more than 0) brings it closer.
                    if state[x] == SETTLED {
                        continue;
                    }
                    let c = l.ch.reverse();
                    let nd = dy + weight[c.index()];
                    if nd < self.dist[x] {
                        if state[x] == CURRENT {
                            // Closer through its own level: not by hops.
                            exact = false;
                        }
                        self.dist[x] = nd;
                        self.next[x] = c.0;
                        self.next_to[x] = y;
                        if state[x] == UNSEEN {
                            state[x] = AHEAD;
                            ahead.push(x as u32);
                        }
                    }
                }
            }
            for &y in &level {
                state[y as usize] = SETTLED;
            }
            let dist = &self.dist;
            ahead.sort_unstable_by_key(|&x| (dist[x as usize], x));
            std::mem::swap(&mut level, &mut ahead);
        }
        self.state = state;
        self.level = level;
        self.ahead = ahead;
        exact
    }
}

/// [`Tree::state`] of a switch.
const UNSEEN: u8 = 0;
const AHEAD: u8 = 1;
const CURRENT: u8 = 2;
const SETTLED: u8 = 3;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::network::spec;
    use rand::Rng as _;

    /// Settles `d` both ways and holds the levels' tree to Dijkstra's;
    /// false when the level shortcut declined.
    fn agree(f: &Fabric, weight: &[u64], d: usize) -> bool {
        let mut by_levels = Tree::new(f.s);
        let mut by_dijkstra = Tree::new(f.s);
        by_dijkstra.by_dijkstra(f, weight, d);
        if !by_levels.by_levels(f, weight, d) {
            return false;
        }
        assert_eq!(by_levels.dist, by_dijkstra.dist, "destination {d}");
        assert_eq!(by_levels.order, by_dijkstra.order, "destination {d}");
        let reached = |t: &Tree| -> Vec<u32> {
            (t.order.iter())
                .flat_map(|&x| [t.next[x as usize], t.next_to[x as usize]])
                .collect()
        };
        assert_eq!(
            reached(&by_levels),
            reached(&by_dijkstra),
            "destination {d}"
        );
        true
    }

    #[test]
    fn levels_settle_switches_as_dijkstra_does_or_decline() {
        let specs = [
            "random:switches=40,ports=10,hosts=2,seed=7",
            "torus:5x5",
            "dragonfly:a=4,p=2,h=2",
            "kary-ntree:k=4,n=3",
        ];
        for text in specs {
            let net = spec::build(text).unwrap();
            let f = Fabric::balancing(&net, "sssp", Capacity::default()).unwrap();
            let w0 = (f.t * f.t) as u64 + 1;
            let mut rng = crate::rng::stream(3, "sssp levels test");
            // Loads below w0 / 16 per channel (these paths have fewer than
            // 16 hops): a path's loads stay below one channel's base
            // weight, as in SSSP's runs, and the shortcut must apply.
            // Loads of several w0 break the order of hops: it must agree
            // with Dijkstra or decline, and decline somewhere.
            let (mut agreed, mut declined) = (0, 0);
            for spread in [w0 / 16, 3 * w0] {
                for _ in 0..4 {
                    let weight: Vec<u64> = (0..net.channel_count())
                        .map(|_| w0 + rng.gen_range(0..spread))
                        .collect();
                    for d in 0..f.t {
                        if agree(&f, &weight, d) {
                            agreed += 1;
                        } else if spread < w0 {
                            panic!("{text}: declined at {d}");
                        } else {
                            declined += 1;
                        }
                    }
                }
            }
            assert!(
                agreed > 0 && declined > 0,
                "{text}: {agreed} agreed, {declined} declined"
            );
        }
    }
}
