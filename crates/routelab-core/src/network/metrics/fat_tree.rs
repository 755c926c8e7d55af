//! Recognising a fat tree in any network, as OpenSM's `ftree` does, so that
//! a tree read back from an ibnetdiscover dump routes as a tree.
//!
//! Ranks count from the roots (rank 0) down to the leaves. Given root
//! switches (OpenSM's `root_guid_file`), a switch's rank is its distance
//! from the nearest root. Without them: switches holding terminals are
//! ranked by distance from them, the farthest become the roots, and ranks
//! are taken again from those. The network is a fat tree when every
//! terminal hangs off a switch of the deepest (leaf) rank, every switch
//! link joins adjacent ranks or one rank (siblings), and there are at
//! least two ranks; otherwise the reason is returned, naming the switch.

use crate::network::{Network, NodeId};
use std::collections::VecDeque;

/// The ranks of a recognised fat tree, by switch index.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FatTreeRanks {
    /// Rank of each switch (0 at the roots); `u32::MAX` for switches the
    /// roots cannot reach.
    pub rank: Vec<u32>,
    /// The rank of the leaves, those holding terminals.
    pub leaf_rank: u32,
}

/// The ranks of `net` as a fat tree, from `roots` (switch nodes) when given.
pub fn fat_tree_ranks(net: &Network, roots: &[NodeId]) -> Result<FatTreeRanks, String> {
    let s = net.switches().len();
    let links: Vec<Vec<usize>> = net
        .switches()
        .iter()
        .map(|&x| {
            net.neighbors(x)
                .filter(|&y| y != x && net.is_switch(y))
                .map(|y| net.kind_index(y))
                .collect()
        })
        .collect();
    let holds_terminals: Vec<bool> = net
        .switches()
        .iter()
        .map(|&x| net.neighbors(x).any(|y| !net.is_switch(y)))
        .collect();
    if s < 2 || !holds_terminals.iter().any(|&h| h) {
        return Err(format!(
            "a fat tree needs at least two switches and terminals; '{}' has {s} switches",
            net.name()
        ));
    }
    let bfs = |from: &[usize]| {
        let mut d = vec![u32::MAX; s];
        let mut q = VecDeque::new();
        for &x in from {
            d[x] = 0;
            q.push_back(x);
        }
        while let Some(x) = q.pop_front() {
            for &y in &links[x] {
                if d[y] == u32::MAX {
                    d[y] = d[x] + 1;
                    q.push_back(y);
                }
            }
        }
        d
    };
    let rank = if roots.is_empty() {
        let edge: Vec<usize> = (0..s).filter(|&x| holds_terminals[x]).collect();
        let from_edge = bfs(&edge);
        let far = from_edge
            .iter()
            .filter(|&&d| d != u32::MAX)
            .max()
            .copied()
            .unwrap_or(0);
        let tops: Vec<usize> = (0..s).filter(|&x| from_edge[x] == far).collect();
        bfs(&tops)
    } else {
        let mut idx = Vec::with_capacity(roots.len());
        for &r in roots {
            if !net.is_switch(r) {
                return Err(format!("root '{}' is not a switch", net.node(r).name));
            }
            idx.push(net.kind_index(r));
        }
        bfs(&idx)
    };
    let name = |x: usize| net.node(net.switches()[x]).name.clone();
    let leaf_rank = (0..s)
        .filter(|&x| holds_terminals[x])
        .map(|x| rank[x])
        .max()
        .unwrap_or(0);
    if leaf_rank == u32::MAX {
        let x = (0..s)
            .find(|&x| holds_terminals[x] && rank[x] == u32::MAX)
            .unwrap_or(0);
        return Err(format!(
            "switch '{}' holds terminals but no root reaches it",
            name(x)
        ));
    }
    if leaf_rank == 0 {
        return Err("the leaves are the roots: a fat tree needs at least two ranks".into());
    }
    for x in (0..s).filter(|&x| holds_terminals[x]) {
        if rank[x] != leaf_rank {
            return Err(format!(
                "switch '{}' holds terminals at rank {} but the leaves are at rank {leaf_rank} \
                 (rank 0 at the roots): not a fat tree",
                name(x),
                rank[x]
            ));
        }
    }
    for x in 0..s {
        for &y in &links[x] {
            if rank[x] != u32::MAX && rank[y] != u32::MAX && rank[x].abs_diff(rank[y]) > 1 {
                return Err(format!(
                    "the link from '{}' (rank {}) to '{}' (rank {}) skips a rank: not a fat tree",
                    name(x),
                    rank[x],
                    name(y),
                    rank[y]
                ));
            }
        }
        if rank[x] != u32::MAX
            && rank[x] < leaf_rank
            && !links[x].iter().any(|&y| rank[y] == rank[x] + 1)
        {
            return Err(format!(
                "switch '{}' at rank {} has no link down: not a fat tree",
                name(x),
                rank[x]
            ));
        }
    }
    // Up and down alone must join every two leaves (through a common
    // ancestor): a network whose leaves meet only through links within a
    // rank (a Megafly's spines) is no tree.
    // (Planes a switch link never joins, as an XGFT with w_1 > 1 has, are
    // separate trees.)
    let leaves: Vec<usize> = (0..s).filter(|&x| holds_terminals[x]).collect();
    let reach = |up_down_only: bool| {
        let mut seen = vec![false; s];
        let mut queue = VecDeque::from([leaves[0]]);
        seen[leaves[0]] = true;
        while let Some(x) = queue.pop_front() {
            for &y in &links[x] {
                if !seen[y] && (!up_down_only || rank[y] != rank[x]) {
                    seen[y] = true;
                    queue.push_back(y);
                }
            }
        }
        seen
    };
    let (any, up_down) = (reach(false), reach(true));
    if let Some(&x) = leaves.iter().find(|&&x| any[x] && !up_down[x]) {
        return Err(format!(
            "leaves '{}' and '{}' are joined only through links within a rank: not a fat tree",
            name(leaves[0]),
            name(x)
        ));
    }
    Ok(FatTreeRanks { rank, leaf_rank })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::network::{io::ibnetdiscover, spec};

    #[test]
    fn leaves_joined_only_within_a_rank_are_no_tree() {
        // A Megafly's groups are trees joined by their spines' global links.
        let net = spec::build("megafly:a=3,p=2,h=2").unwrap();
        let e = fat_tree_ranks(&net, &[]).unwrap_err();
        assert!(e.contains("only through links within a rank"), "{e}");
    }

    #[test]
    fn trees_read_back_from_a_dump_are_recognised() {
        for (s, leaf) in [
            ("kary-ntree:k=4,n=3", 2),
            ("xgft:m=4x4,w=1x4", 1),
            ("clos:ports=8,hosts=20", 1),
            ("kary-ntree:k=2,n=4,terminals=12", 3),
        ] {
            let gen = spec::build(s).unwrap();
            let net = ibnetdiscover::from_str(&ibnetdiscover::to_string(&gen), "x").unwrap();
            let r = fat_tree_ranks(&net, &[]).unwrap_or_else(|e| panic!("{s}: {e}"));
            assert_eq!(r.leaf_rank, leaf, "{s}");
        }
    }

    #[test]
    fn other_networks_say_why() {
        for (s, word) in [
            ("torus:4x4", "rank"),
            ("random:switches=12,ports=8,hosts=2,seed=3", "rank"),
            ("crossbar:4", "two switches"),
        ] {
            let net = spec::build(s).unwrap();
            let e = fat_tree_ranks(&net, &[]).unwrap_err();
            assert!(e.contains(word), "{s}: {e}");
        }
        // Roots given: a leaf as root is refused.
        let net = spec::build("kary-ntree:k=2,n=3").unwrap();
        let leaf = net
            .switches()
            .iter()
            .copied()
            .find(|&x| net.neighbors(x).any(|y| !net.is_switch(y)))
            .unwrap();
        assert!(fat_tree_ranks(&net, &[leaf]).is_err());
    }
}
