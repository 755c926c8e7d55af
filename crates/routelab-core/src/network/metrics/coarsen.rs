//! Coarsening by heavy-edge matching, for multilevel refinement. On a large
//! mesh-like graph FM from a grown start stalls far from a good cut; a few
//! levels of merged pairs down, the same moves shift whole regions, and
//! refining again on the way back up restores the detail.

use super::weighted::Weighted;
use crate::rng::Rng;
use rand::seq::SliceRandom;

const UNSET: u32 = u32::MAX;

/// Merges each vertex, in random order, with the unmatched neighbour it
/// shares the most cables with (the lighter on a tie), unless the pair
/// would outweigh `max(heaviest vertex, T/32)`. Returns the coarse graph and
/// the coarse vertex of each vertex.
pub(crate) fn coarsen(g: &Weighted, rng: &mut Rng) -> (Weighted, Vec<u32>) {
    let n = g.len();
    let limit = g.max_weight.max(g.total / 32);
    let mut order: Vec<u32> = (0..n as u32).collect();
    order.shuffle(rng);
    let mut mate = vec![UNSET; n];
    for &u in &order {
        if mate[u as usize] != UNSET {
            continue;
        }
        let wu = g.weight[u as usize];
        let best = g
            .neighbors(u)
            .filter(|&(v, _)| mate[v as usize] == UNSET && wu + g.weight[v as usize] <= limit)
            .max_by_key(|&(v, m)| {
                (
                    m,
                    std::cmp::Reverse(g.weight[v as usize]),
                    std::cmp::Reverse(v),
                )
            });
        let v = best.map_or(u, |(v, _)| v);
        mate[u as usize] = v;
        mate[v as usize] = u;
    }
    let mut coarse_of = vec![UNSET; n];
    let mut weight = Vec::new();
    for u in 0..n {
        if coarse_of[u] == UNSET {
            let m = mate[u] as usize;
            coarse_of[u] = weight.len() as u32;
            coarse_of[m] = weight.len() as u32;
            weight.push(g.weight[u] + if m != u { g.weight[m] } else { 0 });
        }
    }
    let coarse_of_ref = &coarse_of;
    let edges = || {
        (0..n as u32).flat_map(move |u| {
            let coarse_of = coarse_of_ref;
            let cu = coarse_of[u as usize];
            g.neighbors(u).filter_map(move |(v, m)| {
                let cv = coarse_of[v as usize];
                (u < v && cu != cv).then_some((cu, cv, m))
            })
        })
    };
    let coarse = Weighted::new(weight, edges, g.total, g.absorbs);
    (coarse, coarse_of)
}

#[cfg(test)]
mod tests {
    use super::super::partition::Units;
    use super::*;
    use crate::network::build::torus;

    #[test]
    fn coarsening_keeps_weight_and_cut() {
        let net = torus(&[8, 8], 2).unwrap();
        let g = Units::new(&net).graph;
        let mut rng = crate::rng::stream(3, "t");
        let (c, map) = coarsen(&g, &mut rng);
        assert!(c.len() < g.len() && c.len() >= g.len() / 2);
        assert_eq!(c.weight.iter().sum::<u64>(), 128);
        // A coarse partition costs the same as its projection.
        let side: Vec<bool> = (0..c.len()).map(|i| i % 3 == 0).collect();
        let fine: Vec<bool> = map.iter().map(|&k| side[k as usize]).collect();
        assert_eq!(c.cost(&side), g.cost(&fine));
    }
}
