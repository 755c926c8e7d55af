//! The weighted graph bisection refines: vertices carry terminals, edges
//! carry cables. The units of a network are one; coarser graphs of merged
//! units are others.

/// CSR adjacency with edge multiplicities and vertex weights.
pub(crate) struct Weighted {
    base: Vec<u32>,
    adj: Vec<u32>,
    /// Cables behind each adjacency entry.
    mult: Vec<u32>,
    /// Terminals each vertex carries.
    pub weight: Vec<u64>,
    /// Terminals in the network.
    pub total: u64,
    pub max_weight: u64,
    /// Whether imbalance costs one cable per terminal (some terminal can
    /// move alone); otherwise moving terminals means moving vertices.
    pub absorbs: bool,
}

impl Weighted {
    /// The graph of `weight.len()` vertices and the undirected `edges`
    /// (repeats add up; self-loops must be left out).
    pub fn new<I>(weight: Vec<u64>, edges: impl Fn() -> I, total: u64, absorbs: bool) -> Self
    where
        I: Iterator<Item = (u32, u32, u32)>,
    {
        let n = weight.len();
        let mut base = vec![0u32; n + 1];
        for (a, b, _) in edges() {
            base[a as usize + 1] += 1;
            base[b as usize + 1] += 1;
        }
        for u in 0..n {
            base[u + 1] += base[u];
        }
        let mut fill = base.clone();
        let mut raw = vec![(0u32, 0u32); base[n] as usize];
        for (a, b, m) in edges() {
            raw[fill[a as usize] as usize] = (b, m);
            fill[a as usize] += 1;
            raw[fill[b as usize] as usize] = (a, m);
            fill[b as usize] += 1;
        }
        // Sort each row and merge repeats into one entry.
        let (mut out_base, mut adj, mut mult) = (Vec::with_capacity(n + 1), Vec::new(), Vec::new());
        out_base.push(0u32);
        for u in 0..n {
            let row = &mut raw[base[u] as usize..base[u + 1] as usize];
            row.sort_unstable();
            let start = adj.len();
            for &(v, m) in row.iter() {
                if adj.len() > start && adj.last() == Some(&v) {
                    if let Some(last) = mult.last_mut() {
                        *last += m;
                    }
                } else {
                    adj.push(v);
                    mult.push(m);
                }
            }
            out_base.push(adj.len() as u32);
        }
        Weighted {
            base: out_base,
            adj,
            mult,
            max_weight: weight.iter().copied().max().unwrap_or(0),
            weight,
            total,
            absorbs,
        }
    }

    pub fn len(&self) -> usize {
        self.weight.len()
    }

    /// Neighbours of `u` with the number of cables to each.
    #[inline]
    pub fn neighbors(&self, u: u32) -> impl Iterator<Item = (u32, u32)> + '_ {
        let r = self.base[u as usize] as usize..self.base[u as usize + 1] as usize;
        self.adj[r.clone()]
            .iter()
            .copied()
            .zip(self.mult[r].iter().copied())
    }

    /// Terminals the `true` side holds after balancing: `floor(T/2)`.
    pub fn half(&self) -> u64 {
        self.total / 2
    }

    /// Terminals to move when the `true` side carries `w`: the distance to
    /// `floor(T/2)` or `ceil(T/2)`, whichever is nearer.
    pub fn imbalance(&self, w: u64) -> u64 {
        let (lo, hi) = (self.half(), self.total - self.half());
        lo.saturating_sub(w) + w.saturating_sub(hi)
    }

    /// Cut cables plus imbalance: what the partition costs once balanced.
    #[cfg(test)]
    pub fn cost(&self, side: &[bool]) -> u64 {
        let mut cut = 0u64;
        let mut w = 0u64;
        for u in 0..self.len() as u32 {
            for (v, m) in self.neighbors(u) {
                if u < v && side[u as usize] != side[v as usize] {
                    cut += u64::from(m);
                }
            }
            if side[u as usize] {
                w += self.weight[u as usize];
            }
        }
        cut + self.imbalance(w)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repeats_merge_and_cost_counts_them() {
        let edges = [(0, 1, 1), (1, 0, 2), (1, 2, 1)];
        let g = Weighted::new(vec![1, 0, 3], || edges.iter().copied(), 4, true);
        assert_eq!(g.neighbors(1).collect::<Vec<_>>(), vec![(0, 3), (2, 1)]);
        assert_eq!(g.cost(&[true, false, false]), 3 + 1);
        assert_eq!(g.cost(&[false, false, true]), 1 + 1);
        assert_eq!(g.imbalance(2), 0);
    }
}
