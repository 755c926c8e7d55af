//! The switch graph the metrics walk: terminals never forward, so distances
//! live on switches, and terminals only say where traffic starts and ends.

use crate::network::{Network, NodeId};
use std::collections::BTreeMap;

/// Marks an unreached switch in scratch distance vectors.
pub(crate) const FAR: u32 = u32::MAX;

/// Switch-to-switch adjacency, CSR, indexed by position in
/// [`Network::switches`]; parallel cables and self-loops are dropped because
/// they never shorten a path.
pub(crate) struct SwitchGraph {
    base: Vec<u32>,
    adj: Vec<u32>,
}

impl SwitchGraph {
    pub fn new(net: &Network) -> Self {
        let mut base = Vec::with_capacity(net.switches().len() + 1);
        let mut adj = Vec::new();
        for (i, &s) in net.switches().iter().enumerate() {
            base.push(adj.len() as u32);
            let start = adj.len();
            adj.extend(
                net.neighbors(s)
                    .filter(|&v| net.is_switch(v))
                    .map(|v| net.kind_index(v) as u32)
                    .filter(|&j| j as usize != i),
            );
            adj[start..].sort_unstable();
            let mut w = start;
            for r in start..adj.len() {
                if w == start || adj[w - 1] != adj[r] {
                    adj[w] = adj[r];
                    w += 1;
                }
            }
            adj.truncate(w);
        }
        base.push(adj.len() as u32);
        SwitchGraph { base, adj }
    }

    pub fn len(&self) -> usize {
        self.base.len() - 1
    }

    /// Adjacency entries: with `len`, the cost of one BFS.
    pub fn edges(&self) -> usize {
        self.adj.len()
    }

    #[inline]
    pub fn neighbors(&self, i: u32) -> &[u32] {
        &self.adj[self.base[i as usize] as usize..self.base[i as usize + 1] as usize]
    }

    /// Breadth-first search from `sources` into `scratch`, which must be
    /// clean (all `FAR`); the visited switches are left in `scratch.order`
    /// so [`Scratch::clear`] resets only what was touched.
    pub fn bfs(&self, sources: &[u32], scratch: &mut Scratch) {
        let Scratch { dist, order } = scratch;
        for &s in sources {
            if dist[s as usize] == FAR {
                dist[s as usize] = 0;
                order.push(s);
            }
        }
        let mut head = 0;
        while head < order.len() {
            let u = order[head];
            head += 1;
            let du = dist[u as usize] + 1;
            for &v in self.neighbors(u) {
                if dist[v as usize] == FAR {
                    dist[v as usize] = du;
                    order.push(v);
                }
            }
        }
    }
}

/// Per-thread BFS state: O(switches) memory, reused across sources.
pub(crate) struct Scratch {
    pub dist: Vec<u32>,
    pub order: Vec<u32>,
}

impl Scratch {
    pub fn new(n: usize) -> Self {
        Scratch {
            dist: vec![FAR; n],
            order: Vec::with_capacity(n),
        }
    }

    pub fn clear(&mut self) {
        for &v in &self.order {
            self.dist[v as usize] = FAR;
        }
        self.order.clear();
    }
}

/// Where terminals attach. A terminal's switches are the distinct switches
/// it is cabled to; most terminals have one, multi-homed ones several, and
/// those cabled to no switch take no part in distances.
pub(crate) struct Attachments {
    /// Single-homed terminals per switch.
    pub single: Vec<u64>,
    /// Multi-homed terminals grouped by their (sorted) set of switches.
    pub multi: Vec<(Vec<u32>, u64)>,
}

impl Attachments {
    pub fn new(net: &Network) -> Self {
        let mut single = vec![0u64; net.switches().len()];
        let mut multi: BTreeMap<Vec<u32>, u64> = BTreeMap::new();
        for &t in net.terminals() {
            let set = switches_of(net, t);
            match set.len() {
                0 => {}
                1 => single[set[0] as usize] += 1,
                _ => *multi.entry(set).or_insert(0) += 1,
            }
        }
        Attachments {
            single,
            multi: multi.into_iter().collect(),
        }
    }
}

/// The distinct switches (as switch indices, sorted) a node is cabled to.
pub(crate) fn switches_of(net: &Network, v: NodeId) -> Vec<u32> {
    let mut set: Vec<u32> = net
        .neighbors(v)
        .filter(|&n| net.is_switch(n))
        .map(|n| net.kind_index(n) as u32)
        .collect();
    set.sort_unstable();
    set.dedup();
    set
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::network::build::torus;

    #[test]
    fn ring_bfs_and_attachments() {
        let net = torus(&[5], 2).unwrap();
        let g = SwitchGraph::new(&net);
        assert_eq!(g.len(), 5);
        assert_eq!(g.neighbors(0), &[1, 4]);
        let mut sc = Scratch::new(5);
        g.bfs(&[0], &mut sc);
        assert_eq!(sc.dist, vec![0, 1, 2, 2, 1]);
        sc.clear();
        assert!(sc.dist.iter().all(|&d| d == FAR));
        let at = Attachments::new(&net);
        assert_eq!(at.single, vec![2; 5]);
        assert!(at.multi.is_empty());
    }

    #[test]
    fn two_ring_has_no_parallel_edges() {
        // k = 2 with wraparound cables each pair twice.
        let net = torus(&[2, 3], 1).unwrap();
        let g = SwitchGraph::new(&net);
        assert_eq!(g.neighbors(0), &[1, 2, 4]);
    }
}
