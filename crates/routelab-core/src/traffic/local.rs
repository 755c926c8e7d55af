//! Neighbourhoods of the local pattern: for each source, the terminals whose
//! switch is at most `l` switch-to-switch hops from its own. Terminals on the
//! same switch share one sorted candidate list, so memory grows with the
//! switches rather than the terminals; a source skips itself through its
//! position in that list, which keeps a draw O(1).

use super::patterns::LocalAlong;
use super::TrafficError;
use crate::network::metrics::updown;
use crate::network::{Network, NodeId};
use rand::Rng;

const NONE: u32 = u32::MAX;
const UNSEEN: u32 = u32::MAX;

#[derive(Debug, Clone)]
pub(crate) struct Local {
    /// Start of each group's list in `cands`; `len = groups + 1`.
    base: Vec<u32>,
    /// Candidate terminals, ascending within a group.
    cands: Vec<u32>,
    /// The group of each terminal.
    group: Vec<u32>,
    /// Position of each terminal in its own group's list, or `NONE`.
    self_pos: Vec<u32>,
}

impl Local {
    pub(crate) fn new(net: &Network, l: u32, along: LocalAlong) -> Result<Local, TrafficError> {
        // A terminal wired only to switch s shares s's list, reached within
        // l + 1 hops of s; any other terminal is its own root, l + 2 hops.
        let mut group_of_root = vec![NONE; net.node_count()];
        let mut roots: Vec<(NodeId, u32)> = Vec::new();
        let mut group = Vec::with_capacity(net.terminals().len());
        for &t in net.terminals() {
            let root = match net.neighbors(t).next() {
                Some(s) if net.is_switch(s) && net.neighbors(t).all(|n| n == s) => (s, l + 1),
                _ => (t, l + 2),
            };
            let g = &mut group_of_root[root.0.index()];
            if *g == NONE {
                *g = roots.len() as u32;
                roots.push(root);
            }
            group.push(*g);
        }

        let mut base = Vec::with_capacity(roots.len() + 1);
        let mut cands = Vec::new();
        let mut dist = vec![UNSEEN; net.node_count()];
        let mut queue = Vec::new();
        base.push(0);
        let rank = match along {
            LocalAlong::Shortest => Vec::new(),
            LocalAlong::Updown => updown::default_updown_ranks(net),
        };
        for &(root, limit) in &roots {
            let start = cands.len();
            match along {
                LocalAlong::Shortest => {
                    terminals_within(net, root, limit, &mut dist, &mut queue, &mut cands)
                }
                LocalAlong::Updown => terminals_within_updown(net, root, l, &rank, &mut cands),
            }
            cands[start..].sort_unstable();
            base.push(cands.len() as u32);
        }

        let mut self_pos = Vec::with_capacity(group.len());
        for (t, &g) in group.iter().enumerate() {
            let list = &cands[base[g as usize] as usize..base[g as usize + 1] as usize];
            let pos = list.binary_search(&(t as u32)).map_or(NONE, |p| p as u32);
            if list.len() - usize::from(pos != NONE) == 0 {
                return Err(TrafficError::does_not_fit(
                    &format!("local:l={l}"),
                    format!("'{}'", net.name()),
                    format!(
                        "another terminal within {l} switch hops of terminal {t} ('{}'); raise l",
                        net.node(net.terminal(t)).name
                    ),
                ));
            }
            self_pos.push(pos);
        }
        Ok(Local {
            base,
            cands,
            group,
            self_pos,
        })
    }

    /// A destination drawn uniformly among `src`'s candidates.
    #[inline]
    pub(crate) fn draw<R: Rng + ?Sized>(&self, src: usize, rng: &mut R) -> usize {
        let g = self.group[src] as usize;
        let (lo, hi) = (self.base[g], self.base[g + 1]);
        let pos = self.self_pos[src];
        let mut r = rng.gen_range(0..hi - lo - u32::from(pos != NONE));
        if r >= pos {
            r += 1;
        }
        self.cands[(lo + r) as usize] as usize
    }
}

/// Appends the indices of the terminals within `limit` hops of `root` (the
/// root included if it is one). Terminals do not forward, as in
/// [`crate::network::metrics::bfs_distances`]. Leaves `dist` all `UNSEEN`.
fn terminals_within(
    net: &Network,
    root: NodeId,
    limit: u32,
    dist: &mut [u32],
    queue: &mut Vec<NodeId>,
    out: &mut Vec<u32>,
) {
    queue.clear();
    queue.push(root);
    dist[root.index()] = 0;
    let mut head = 0;
    while head < queue.len() {
        let u = queue[head];
        head += 1;
        if net.is_terminal(u) {
            out.push(net.kind_index(u) as u32);
            if u != root {
                continue;
            }
        }
        let du = dist[u.index()];
        if du == limit {
            continue;
        }
        for v in net.neighbors(u) {
            if dist[v.index()] == UNSEEN {
                dist[v.index()] = du + 1;
                queue.push(v);
            }
        }
    }
    for u in queue.iter() {
        dist[u.index()] = UNSEEN;
    }
}

/// Appends the indices of the terminals attached to a switch that a legal
/// up*/down* route of at most `l` switch hops reaches from `root` (a
/// switch, or a terminal through any of its switches; itself included).
fn terminals_within_updown(net: &Network, root: NodeId, l: u32, rank: &[u32], out: &mut Vec<u32>) {
    let from: Vec<usize> = if net.is_switch(root) {
        vec![net.kind_index(root)]
    } else {
        net.neighbors(root)
            .filter(|&v| net.is_switch(v))
            .map(|v| net.kind_index(v))
            .collect()
    };
    let mut best = vec![updown::OUTSIDE; net.switches().len()];
    for x in from {
        for (y, d) in updown::legal_distances(net, rank, x)
            .into_iter()
            .enumerate()
        {
            best[y] = best[y].min(d);
        }
    }
    for (i, &t) in net.terminals().iter().enumerate() {
        let near = net
            .neighbors(t)
            .any(|v| net.is_switch(v) && best[net.kind_index(v)] <= l);
        if near || t == root {
            out.push(i as u32);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::network::spec::build;
    use crate::rng::stream;

    #[test]
    fn lists_are_shared_per_switch() {
        // 4-ring, 2 terminals per switch, l = 1: own switch plus two others.
        let net = build("torus:4,c=2").unwrap();
        let local = Local::new(&net, 1, LocalAlong::Shortest).unwrap();
        assert_eq!(local.base.len(), 5);
        assert_eq!(&local.cands[..6], [0, 1, 2, 3, 6, 7]);
        let mut rng = stream(3, "t");
        for _ in 0..200 {
            let d = local.draw(1, &mut rng);
            assert!(d != 1 && [0, 2, 3, 6, 7].contains(&d));
        }
    }

    #[test]
    fn along_updown_reaches_what_legal_routes_reach_within_l() {
        // On a 6-ring rooted at s0, s3 is the bottom: s2 -> s3 -> s4 goes down
        // then up, so s4 is 4 legal hops from s2 (via s1, s0, s5), 2 by path.
        let net = build("torus:6").unwrap();
        let rank = updown::updown_ranks(&net, 0);
        assert_eq!(updown::legal_distances(&net, &rank, 2)[4], 4);
        let short = Local::new(&net, 2, LocalAlong::Shortest).unwrap();
        let mut v = Vec::new();
        terminals_within_updown(&net, net.switches()[2], 2, &rank, &mut v);
        let group = short.group[2] as usize;
        let by_path = &short.cands[short.base[group] as usize..short.base[group + 1] as usize];
        assert!(
            by_path.contains(&4) && !v.contains(&4),
            "{by_path:?} vs {v:?}"
        );
        assert!(
            v.iter().all(|t| by_path.contains(t)),
            "legal is never shorter"
        );
        // From the root, legal routes are shortest paths: the same lists.
        let mut from_root = Vec::new();
        terminals_within_updown(&net, net.switches()[0], 2, &rank, &mut from_root);
        assert_eq!(from_root, vec![0, 1, 2, 4, 5]);
    }

    #[test]
    fn lonely_terminal_is_an_error() {
        let net = build("torus:4").unwrap();
        let e = Local::new(&net, 0, LocalAlong::Shortest)
            .unwrap_err()
            .to_string();
        assert!(e.contains("local:l=0") && e.contains("raise l"), "{e}");
    }
}
