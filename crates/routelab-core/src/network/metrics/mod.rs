//! Network metrics: distances, connectivity, path counts, bisection, and a
//! [`summary`] of them all.
//!
//! Distances count hops and never pass through a terminal. Whole-network
//! metrics use closed forms where the cabling is verified to be a regular
//! shape and otherwise compute exactly (parallel BFS, O(switches) memory
//! per thread); what could only be estimated or bounded says so
//! ([`Distances::exact`], [`Bisection::exact`]).

mod bisection;
mod bounds;
mod coarsen;
mod distance;
pub mod fat_tree;
mod graph;
mod partition;
mod refine;
mod shape;
mod summary;
pub mod updown;
mod weighted;

pub use bisection::{bisection, bisection_with, Bisection, BisectionOptions};
pub use distance::{distances, Distances};
pub(crate) use shape::declared_holds;
pub use summary::{summary, summary_with, ComponentSample, DegreeStats, Summary, SUMMARY_STAGES};

use super::{Network, NodeId};
use std::collections::VecDeque;

/// Marks an unreachable node in distance vectors.
pub const UNREACHABLE: u32 = u32::MAX;

/// Hop distances from `src` to every node. Terminals receive but never
/// forward, so a path never passes through a host.
pub fn bfs_distances(net: &Network, src: NodeId) -> Vec<u32> {
    let mut dist = vec![UNREACHABLE; net.node_count()];
    let mut queue = VecDeque::new();
    dist[src.index()] = 0;
    queue.push_back(src);
    while let Some(u) = queue.pop_front() {
        if u != src && net.is_terminal(u) {
            continue;
        }
        let du = dist[u.index()];
        for v in net.neighbors(u) {
            if dist[v.index()] == UNREACHABLE {
                dist[v.index()] = du + 1;
                queue.push_back(v);
            }
        }
    }
    dist
}

/// Connected components, each a sorted list of nodes; the largest first.
pub fn components(net: &Network) -> Vec<Vec<NodeId>> {
    let n = net.node_count();
    let mut comp = vec![u32::MAX; n];
    let mut out: Vec<Vec<NodeId>> = Vec::new();
    let mut stack = Vec::new();
    for start in net.node_ids() {
        if comp[start.index()] != u32::MAX {
            continue;
        }
        let id = out.len() as u32;
        let mut members = vec![start];
        comp[start.index()] = id;
        stack.push(start);
        while let Some(u) = stack.pop() {
            for v in net.neighbors(u) {
                if comp[v.index()] == u32::MAX {
                    comp[v.index()] = id;
                    members.push(v);
                    stack.push(v);
                }
            }
        }
        members.sort_unstable();
        out.push(members);
    }
    out.sort_by_key(|c| std::cmp::Reverse(c.len()));
    out
}

/// Is every node reachable from every other?
pub fn is_connected(net: &Network) -> bool {
    net.node_count() <= 1 || components(net).len() == 1
}

/// The number of distinct shortest paths (as channel sequences, so parallel
/// cables count separately) from `src` to `dst`, saturating at `u64::MAX`.
pub fn count_shortest_paths(net: &Network, src: NodeId, dst: NodeId) -> u64 {
    let dist = bfs_distances(net, src);
    if dist[dst.index()] == UNREACHABLE {
        return 0;
    }
    // Nodes in BFS order are those with finite distance, sorted by distance.
    let mut order: Vec<NodeId> = net
        .node_ids()
        .filter(|v| dist[v.index()] != UNREACHABLE)
        .collect();
    order.sort_by_key(|v| dist[v.index()]);
    let mut count = vec![0u64; net.node_count()];
    count[src.index()] = 1;
    for u in order {
        if u != src && net.is_terminal(u) {
            continue;
        }
        let cu = count[u.index()];
        for v in net.neighbors(u) {
            if dist[v.index()] == dist[u.index()] + 1 {
                count[v.index()] = count[v.index()].saturating_add(cu);
            }
        }
    }
    count[dst.index()]
}
