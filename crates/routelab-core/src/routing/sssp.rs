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
//! Options ([`Capacity`]): `avoid_throttled_links` routes without the
//! throttled switch links, as OpenSM's sssp and dfsssp do when asked;
//! `weigh_capacity` adds each route to a channel's weight as many times as
//! its link is slower than the fastest (`k`), channels starting at
//! `k_max T^2 + 1` so that paths stay minimal.

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
    let mut dist = vec![u64::MAX; s];
    // Per switch: the channel it forwards on (into the tree), or NONE.
    let mut next = vec![NONE; s];
    let mut next_to = vec![NONE; s];
    let mut order: Vec<u32> = Vec::with_capacity(s);
    let mut count = vec![0u64; s];
    let mut heap: BinaryHeap<Reverse<(u64, u32)>> = BinaryHeap::new();
    for d in 0..t {
        dist.fill(u64::MAX);
        next.fill(NONE);
        order.clear();
        for k in f.sinks(d) {
            dist[k.switch as usize] = 0;
            heap.push(Reverse((0, k.switch)));
        }
        while let Some(Reverse((dy, y))) = heap.pop() {
            let yi = y as usize;
            if dy != dist[yi] {
                continue;
            }
            order.push(y);
            for l in f.links(yi) {
                let x = l.to as usize;
                // The channel x -> y is the reverse of y -> x.
                let c = l.ch.reverse();
                let nd = dy + weight[c.index()];
                if nd < dist[x] {
                    dist[x] = nd;
                    next[x] = c.0;
                    next_to[x] = y;
                    heap.push(Reverse((nd, x as u32)));
                }
            }
        }
        for &x in &order {
            let xi = x as usize;
            let entry = if let Some(p) = f.sink_port(xi, d) {
                p.0
            } else {
                net.channel(crate::ChannelId(next[xi])).src_port.0
            };
            routes.table[xi * t + d] = entry;
        }
        // Routes per switch: its own terminals (but d) plus those passing.
        for &x in &order {
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
    routes
}
