//! Down*/up* routing (OpenSM's `dnup`): up*/down* ranked from the edge.
//!
//! `updown` ranks switches by distance from one central root; `dnup` ranks
//! them by distance from the switches that hold terminals (rank 1 for
//! those, then a breadth-first search inwards), so every edge switch is a
//! leaf of the order and the switches farthest from any terminal are its
//! top. A legal route first moves away from the edge (to a higher rank),
//! then back towards it. On a fat tree both rankings put the spines on top;
//! on fabrics whose terminals hang off switches at different depths (a
//! tree with hosts on its middle level, storage on a core switch) the edge
//! ranking keeps every edge switch on the bottom, where the root ranking
//! puts some above others.
//!
//! Switches of equal rank are ordered as `updown` orders them from the
//! most central switch (then by index), so the order is total and the
//! channel dependency graph acyclic on one lane, whatever links join
//! switches of one rank; where every switch holds terminals (one rank) this
//! is `updown`'s order, which reaches every pair. Routes are then chosen
//! exactly as `updown` chooses them on its order (shortest legal next hops,
//! fewest routes per channel). Where the edge ranks still leave a pair
//! without a legal route (an inner switch that no higher one neighbours
//! can only go down), the engine refuses the fabric, naming the pair,
//! instead of writing tables with holes.

use super::fabric::{Fabric, NONE};
use super::{updown, Routes, RoutingEngine, RoutingError, RoutingOptions};
use crate::network::metrics::updown as updown_order;
use crate::network::Network;
use std::collections::VecDeque;

pub struct DnUp;

pub fn engine(_: &RoutingOptions) -> Box<dyn RoutingEngine> {
    Box::new(DnUp)
}

impl RoutingEngine for DnUp {
    fn name(&self) -> &'static str {
        "dnup"
    }

    fn route(&self, net: &Network) -> Result<Routes, RoutingError> {
        super::canonical::by_guid(net, |n, _| self.route_listed(n))
    }
}

impl DnUp {
    /// Routes `net` in the order it lists nodes and cables ([`Self::route`]
    /// gives it the canonical order, by GUID).
    fn route_listed(&self, net: &Network) -> Result<Routes, RoutingError> {
        let f = Fabric::new(net, self.name())?;
        let mut routes = Routes::new(net, self.name());
        if f.t == 0 || f.main == NONE {
            return Ok(routes);
        }
        let rank = edge_order(&f);
        updown::fill_tables(&f, &rank, &mut routes);
        for x in (0..f.s).filter(|&x| rank[x] != NONE) {
            if let Some(d) = (0..f.t).find(|&d| routes.port(x, d).is_none()) {
                return Err(RoutingError::Unfit {
                    engine: "dnup",
                    needs: "a legal down*/up* route between every pair under its edge ranking"
                        .into(),
                    network: net.name().to_string(),
                    found: format!(
                        "a fabric where switch {} has none to {} (route it with updown                          and a root, or nue)",
                        net.node(f.switch_node(x)).name,
                        f.terminal_name(d)
                    ),
                });
            }
        }
        Ok(routes)
    }
}

/// Each switch's distance from the nearest switch holding a terminal
/// (1 for those), `NONE` outside the terminals' component.
pub(crate) fn edge_ranks(f: &Fabric) -> Vec<u32> {
    let mut rank = vec![NONE; f.s];
    let mut queue = VecDeque::new();
    for (x, r) in rank.iter_mut().enumerate() {
        if f.injecting[x] > 0 || (0..f.t).any(|d| f.sink_port(x, d).is_some()) {
            *r = 1;
            queue.push_back(x);
        }
    }
    while let Some(x) = queue.pop_front() {
        for l in f.links(x) {
            let y = l.to as usize;
            if rank[y] == NONE {
                rank[y] = rank[x] + 1;
                queue.push_back(y);
            }
        }
    }
    rank
}

/// The up/down order `updown` routes by, from the edge ranks: the highest
/// rank first, ties in `updown`'s order from the most central switch, then
/// by index; "up" leads away from the edge.
fn edge_order(f: &Fabric) -> Vec<u32> {
    let rank = edge_ranks(f);
    let mut order: Vec<usize> = (0..f.s)
        .filter(|&x| rank[x] != NONE && f.in_main(x))
        .collect();
    let central = updown_order::central_switch(f.net, &order);
    let from_centre = match central {
        Some(root) => updown_order::updown_ranks(f.net, root),
        None => vec![0; f.s],
    };
    order.sort_unstable_by_key(|&x| (std::cmp::Reverse(rank[x]), from_centre[x], x));
    let mut pos = vec![NONE; f.s];
    for (i, &x) in order.iter().enumerate() {
        pos[x] = i as u32;
    }
    pos
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::network::spec;

    #[test]
    fn edge_switches_rank_one_and_inner_ones_above() {
        let net = spec::build("kary-ntree:k=4,n=3").unwrap();
        let f = Fabric::new(&net, "dnup").unwrap();
        let rank = edge_ranks(&f);
        let leaves = (0..f.s).filter(|&x| f.injecting[x] > 0).count();
        assert_eq!(leaves, 16);
        for (x, &r) in rank.iter().enumerate() {
            assert_eq!(f.injecting[x] > 0, r == 1);
            assert!((1..=3).contains(&r));
        }
        // The order puts the top level first.
        let order = edge_order(&f);
        let top = (0..f.s).min_by_key(|&x| order[x]).unwrap();
        assert_eq!(rank[top], 3);
    }

    #[test]
    fn every_pair_routes_where_every_switch_holds_terminals() {
        // One edge rank for all: ties by index alone left switch s0 with no
        // legal route to h4.
        let net = spec::build("random:switches=16,ports=8,hosts=4,seed=3").unwrap();
        let routes = DnUp.route(&net).unwrap();
        for x in 0..routes.switch_count() {
            for d in 0..routes.terminal_count() {
                assert!(routes.port(x, d).is_some(), "switch {x} to terminal {d}");
            }
        }
        let report = routes.deadlock_report(&net).unwrap();
        assert!(report.deadlock_free, "{report}");
    }
}
