//! The up*/down* order of a network's switches (Schroeder et al.; Myrinet,
//! flich2000 §2) and the route lengths it allows: what the `updown`,
//! `updown-source` and `itb` engines route by, and what a traffic pattern
//! measures "switches away" by when distance means the length of a
//! Myrinet route.
//!
//! A breadth-first spanning tree from a root switch orders the switches
//! by (tree level, index); the "up" end of a link is the end earlier in
//! that order. A legal route goes up zero or more links, then down zero or
//! more. Switches are numbered by their index in [`Network::switches`];
//! links between switches only (terminals never forward).

use crate::network::{Network, NodeId};
use rayon::prelude::*;
use std::collections::VecDeque;

/// Marks a switch outside the root's component.
pub const OUTSIDE: u32 = u32::MAX;

/// The switch-to-switch neighbours of every switch, by switch index.
fn switch_links(net: &Network) -> Vec<Vec<u32>> {
    net.switches()
        .iter()
        .map(|&x| {
            net.out_channels(x)
                .iter()
                .map(|&c| net.channel(c).dst)
                .filter(|&y| y != x && net.is_switch(y))
                .map(|y| net.kind_index(y) as u32)
                .collect()
        })
        .collect()
}

fn bfs(links: &[Vec<u32>], root: usize, dist: &mut [u32], queue: &mut VecDeque<usize>) -> u32 {
    dist.fill(OUTSIDE);
    dist[root] = 0;
    queue.push_back(root);
    let mut far = 0;
    while let Some(u) = queue.pop_front() {
        far = dist[u];
        for &v in &links[u] {
            if dist[v as usize] == OUTSIDE {
                dist[v as usize] = dist[u] + 1;
                queue.push_back(v as usize);
            }
        }
    }
    far
}

/// The switch of `members` (switch indices, one connected component) with
/// the smallest eccentricity, ties to the lowest index: the default root.
pub fn central_switch(net: &Network, members: &[usize]) -> Option<usize> {
    let links = switch_links(net);
    let s = links.len();
    let ecc: Vec<u32> = members
        .par_iter()
        .map_init(
            || (vec![OUTSIDE; s], VecDeque::new()),
            |(dist, queue), &r| bfs(&links, r, dist, queue),
        )
        .collect();
    (0..members.len())
        .min_by_key(|&i| (ecc[i], members[i]))
        .map(|i| members[i])
}

/// Each switch's position in the up/down order from switch index `root`
/// (root first, then by BFS level and index); [`OUTSIDE`] for switches
/// the root cannot reach. A move to a lower rank goes up.
pub fn updown_ranks(net: &Network, root: usize) -> Vec<u32> {
    let links = switch_links(net);
    let mut level = vec![OUTSIDE; links.len()];
    bfs(&links, root, &mut level, &mut VecDeque::new());
    let mut order: Vec<usize> = (0..links.len()).filter(|&x| level[x] != OUTSIDE).collect();
    order.sort_unstable_by_key(|&x| (level[x], x));
    let mut rank = vec![OUTSIDE; links.len()];
    for (i, &x) in order.iter().enumerate() {
        rank[x] = i as u32;
    }
    rank
}

/// The ranks from the default root: the most central switch of the
/// component of the first terminal attached to a switch (of the first
/// switch when no terminal is).
pub fn default_updown_ranks(net: &Network) -> Vec<u32> {
    let links = switch_links(net);
    let start = net
        .terminals()
        .iter()
        .find_map(|&t| net.neighbors(t).find(|&v| net.is_switch(v)))
        .map(|v| net.kind_index(v))
        .or((!links.is_empty()).then_some(0));
    let Some(start) = start else {
        return Vec::new();
    };
    let mut dist = vec![OUTSIDE; links.len()];
    bfs(&links, start, &mut dist, &mut VecDeque::new());
    let members: Vec<usize> = (0..links.len()).filter(|&x| dist[x] != OUTSIDE).collect();
    let root = central_switch(net, &members).unwrap_or(start);
    updown_ranks(net, root)
}

/// The length (switch-to-switch hops) of the shortest legal up*/down*
/// route from switch index `from` to every switch, [`OUTSIDE`] where none
/// exists.
pub fn legal_distances(net: &Network, rank: &[u32], from: usize) -> Vec<u32> {
    let links = switch_links(net);
    let s = links.len();
    // States: 2 x + 0 may still go up, 2 x + 1 has gone down.
    let mut dist = vec![OUTSIDE; 2 * s];
    let mut queue = VecDeque::from([2 * from]);
    dist[2 * from] = 0;
    while let Some(v) = queue.pop_front() {
        let (x, down) = (v / 2, v % 2 == 1);
        for &y in &links[x] {
            let y = y as usize;
            if rank[y] == OUTSIDE {
                continue;
            }
            let up = rank[y] < rank[x];
            if up && down {
                continue;
            }
            let w = 2 * y + usize::from(!up);
            if dist[w] == OUTSIDE {
                dist[w] = dist[v] + 1;
                queue.push_back(w);
            }
        }
    }
    (0..s).map(|x| dist[2 * x].min(dist[2 * x + 1])).collect()
}

/// The switch a terminal is wired to, when it is wired to exactly one.
pub fn only_switch(net: &Network, t: NodeId) -> Option<NodeId> {
    let s = net.neighbors(t).next()?;
    (net.is_switch(s) && net.neighbors(t).all(|n| n == s)).then_some(s)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::network::spec;

    #[test]
    fn legal_routes_are_never_shorter_than_paths_and_reach_everything() {
        let net = spec::build("random:switches=24,ports=8,hosts=2,seed=7").unwrap();
        let rank = default_updown_ranks(&net);
        for x in 0..net.switches().len() {
            let legal = legal_distances(&net, &rank, x);
            let any = crate::network::metrics::bfs_distances(&net, net.switches()[x]);
            for (y, &d) in legal.iter().enumerate() {
                let shortest = any[net.switches()[y].index()];
                assert!(
                    d != OUTSIDE && d >= shortest,
                    "{x} -> {y}: {d} < {shortest}"
                );
            }
            assert_eq!(legal[x], 0);
        }
        // From the root every shortest path goes down the BFS tree's levels,
        // and towards it up: both legal.
        let root = rank.iter().position(|&r| r == 0).unwrap();
        let from_root = legal_distances(&net, &rank, root);
        let bfs = crate::network::metrics::bfs_distances(&net, net.switches()[root]);
        for (y, &d) in from_root.iter().enumerate() {
            assert_eq!(d, bfs[net.switches()[y].index()]);
            assert_eq!(legal_distances(&net, &rank, y)[root], d);
        }
    }
}
