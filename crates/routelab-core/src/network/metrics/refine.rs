//! The bisection heuristic: seeded starts grown by BFS, each refined by
//! Fiduccia–Mattheyses passes (half of them multilevel: coarsened first,
//! refined on the way back), run in parallel; the best wins.
//!
//! FM moves one unit at a time (the best by cut gain plus change in
//! terminal imbalance), locks it, and after a pass rolls back to the best
//! prefix, so a pass never makes a partition worse but can climb out of a
//! local minimum on the way. The imbalance term lets a pass trade cut
//! cables for moved terminals exactly as the cost counts them; a window
//! keeps a pass from drifting far from balance.

use super::coarsen::coarsen;
use super::partition::Units;
use super::weighted::Weighted;
use crate::network::Network;
use crate::rng::{stream, Rng};
use rand::Rng as _;
use rayon::prelude::*;
use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

pub(crate) const HEURISTIC: &str = "multistart-fm";

/// Starts when not given: many on small networks, fewer as they grow.
pub(crate) fn default_starts(units: usize) -> usize {
    match units {
        0..=2_000 => 32,
        2_001..=50_000 => 12,
        50_001..=500_000 => 4,
        _ => 2,
    }
}

/// Refines each of `seeds` (unit sides; the last is the all-terminal cut)
/// and `starts` grown partitions, and returns the best realised one: its
/// width, node sides, and which seed it is if a seed won unchanged.
pub(crate) fn search(
    net: &Network,
    units: &Units,
    seeds: &[Vec<bool>],
    starts: usize,
    seed: u64,
    max_passes: usize,
) -> (u64, Vec<bool>, Option<usize>) {
    let g = &units.graph;
    (0..seeds.len() + starts)
        .into_par_iter()
        .map(|job| {
            let mut rng = stream(seed, &format!("metrics/bisection/{job}"));
            let (side, unchanged) = match seeds.get(job) {
                Some(start) => {
                    let mut side = start.clone();
                    refine(g, &mut side, &priorities(g, &mut rng), max_passes);
                    let unchanged = side == *start;
                    (side, unchanged.then_some(job))
                }
                // Alternate multilevel starts (good on large meshes) with
                // flat ones (sometimes better on expanders).
                None if (job - seeds.len()) % 2 == 1 => {
                    let mut side = grown(g, &mut rng, job % 4 >= 2);
                    refine(g, &mut side, &priorities(g, &mut rng), max_passes);
                    (side, None)
                }
                None => (multilevel(g, &mut rng, max_passes), None),
            };
            let (width, nodes) = units.realise(net, &side);
            (width, job, nodes, unchanged)
        })
        // On a tie a partition of switches beats the all-terminal cut.
        .min_by_key(|(width, job, _, _)| (*width, *job + 1 == seeds.len(), *job))
        .map(|(w, _, nodes, unchanged)| (w, nodes, unchanged))
        .unwrap_or_else(|| {
            let (w, nodes) = units.realise(net, &vec![false; units.len()]);
            (w, nodes, None)
        })
}

/// Random tie-breaking priorities, one per vertex.
fn priorities(g: &Weighted, rng: &mut Rng) -> Vec<u64> {
    (0..g.len()).map(|_| rng.gen()).collect()
}

/// Coarsest graphs this small are partitioned directly.
const COARSEST: usize = 96;
/// Grown starts tried on the coarsest graph of one multilevel start.
const INITIAL: usize = 4;

/// Coarsen until small, partition from grown starts, then project back
/// level by level, refining at each.
fn multilevel(g: &Weighted, rng: &mut Rng, max_passes: usize) -> Vec<bool> {
    let mut graphs: Vec<Weighted> = Vec::new();
    let mut maps: Vec<Vec<u32>> = Vec::new();
    loop {
        let cur = graphs.last().unwrap_or(g);
        if cur.len() <= COARSEST {
            break;
        }
        let (coarse, map) = coarsen(cur, rng);
        if coarse.len() * 10 > cur.len() * 9 {
            break;
        }
        graphs.push(coarse);
        maps.push(map);
    }
    let coarsest = graphs.last().unwrap_or(g);
    let mut best: Option<(u64, Vec<bool>)> = None;
    for k in 0..INITIAL {
        let mut side = grown(coarsest, rng, k % 2 == 1);
        let cost = refine(coarsest, &mut side, &priorities(coarsest, rng), max_passes);
        let better = match &best {
            Some((c, _)) => cost < *c,
            None => true,
        };
        if better {
            best = Some((cost, side));
        }
    }
    let mut side = best.map(|(_, s)| s).unwrap_or_default();
    for level in (0..maps.len()).rev() {
        let fine = if level == 0 { g } else { &graphs[level - 1] };
        side = maps[level].iter().map(|&c| side[c as usize]).collect();
        refine(fine, &mut side, &priorities(fine, rng), max_passes);
    }
    side
}

/// A partition grown by BFS from a random unit (or, if `peripheral`, from
/// the last unit a BFS from a random unit reaches) until the `true` side
/// holds half the terminals; other components are entered as needed.
fn grown(units: &Weighted, rng: &mut Rng, peripheral: bool) -> Vec<bool> {
    let n = units.len();
    let mut side = vec![false; n];
    if n == 0 {
        return side;
    }
    let mut root = rng.gen_range(0..n) as u32;
    if peripheral {
        let order = bfs_order(units, root);
        root = *order.last().unwrap_or(&root);
    }
    let target = units.half();
    let mut seen = vec![false; n];
    let mut queue = VecDeque::from([root]);
    seen[root as usize] = true;
    let mut held = 0u64;
    let mut next = rng.gen_range(0..n);
    let mut entered = 1;
    while held < target {
        let Some(u) = queue.pop_front() else {
            // Component exhausted: continue from the next unseen unit.
            if entered == n {
                break;
            }
            while seen[next % n] {
                next += 1;
            }
            let u = (next % n) as u32;
            seen[u as usize] = true;
            entered += 1;
            queue.push_back(u);
            continue;
        };
        side[u as usize] = true;
        held += units.weight[u as usize];
        for (v, _) in units.neighbors(u) {
            if !seen[v as usize] {
                seen[v as usize] = true;
                entered += 1;
                queue.push_back(v);
            }
        }
    }
    side
}

fn bfs_order(units: &Weighted, root: u32) -> Vec<u32> {
    let mut seen = vec![false; units.len()];
    let mut order = vec![root];
    seen[root as usize] = true;
    let mut head = 0;
    while head < order.len() {
        let u = order[head];
        head += 1;
        for (v, _) in units.neighbors(u) {
            if !seen[v as usize] {
                seen[v as usize] = true;
                order.push(v);
            }
        }
    }
    order
}

/// FM passes until one brings nothing or `max_passes` ran; returns the cost.
fn refine(units: &Weighted, side: &mut [bool], prio: &[u64], max_passes: usize) -> u64 {
    let mut best = u64::MAX;
    for _ in 0..max_passes.max(1) {
        let cost = pass(units, side, prio);
        if cost >= best {
            break;
        }
        best = cost;
    }
    best
}

/// One FM pass; leaves `side` at the best prefix of its moves.
fn pass(units: &Weighted, side: &mut [bool], prio: &[u64]) -> u64 {
    let n = units.len();
    let total = units.total as i64;
    // Without absorbed terminals, balancing moves whole units: price the
    // imbalance high enough that the pass balances by itself.
    let rate: i64 = if units.absorbs { 1 } else { 1 + n as i64 };
    let imbalance = |w: i64| units.imbalance(w as u64) as i64 * rate;
    let slack = 2 * (units.max_weight as i64).max(total / 8).max(2);

    let mut gain = vec![0i64; n];
    let mut cut = 0i64;
    let mut w = 0i64;
    for u in 0..n as u32 {
        for (v, m) in units.neighbors(u) {
            let m = i64::from(m);
            if side[u as usize] != side[v as usize] {
                gain[u as usize] += m;
                if u < v {
                    cut += m;
                }
            } else {
                gain[u as usize] -= m;
            }
        }
        if side[u as usize] {
            w += units.weight[u as usize] as i64;
        }
    }
    let mut heaps = [BinaryHeap::new(), BinaryHeap::new()];
    for u in 0..n {
        heaps[side[u] as usize].push((gain[u], prio[u], u as u32));
    }
    let mut locked = vec![false; n];
    let mut moves: Vec<u32> = Vec::new();
    let mut best = cut + imbalance(w);
    let mut best_len = 0;
    let stall = (n / 4).max(100);
    loop {
        // The best admissible move from each side; then the better of the two.
        let mut choice: Option<(i64, Reverse<u64>, u32)> = None;
        for (from, heap) in heaps.iter_mut().enumerate() {
            while let Some(&(g, _, u)) = heap.peek() {
                if locked[u as usize] || gain[u as usize] != g {
                    heap.pop();
                } else {
                    break;
                }
            }
            let Some(&(g, p, u)) = heap.peek() else {
                continue;
            };
            let dw = units.weight[u as usize] as i64;
            let w2 = if from == 1 { w - dw } else { w + dw };
            let (before, after) = ((2 * w - total).abs(), (2 * w2 - total).abs());
            if after > before && after > slack {
                continue;
            }
            let c = (cut - g + imbalance(w2), Reverse(p), u);
            if choice.is_none() || Some(c) < choice {
                choice = Some(c);
            }
        }
        let Some((cost, _, u)) = choice else {
            break;
        };
        let from = side[u as usize];
        heaps[from as usize].pop();
        cut -= gain[u as usize];
        let dw = units.weight[u as usize] as i64;
        w += if from { -dw } else { dw };
        side[u as usize] = !from;
        locked[u as usize] = true;
        moves.push(u);
        for (v, m) in units.neighbors(u) {
            let m = 2 * i64::from(m);
            let vi = v as usize;
            gain[vi] += if side[vi] == from { m } else { -m };
            if !locked[vi] {
                heaps[side[vi] as usize].push((gain[vi], prio[vi], v));
            }
        }
        if cost < best {
            best = cost;
            best_len = moves.len();
        } else if moves.len() - best_len > stall {
            break;
        }
    }
    for &u in &moves[best_len..] {
        side[u as usize] = !side[u as usize];
    }
    best as u64
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::network::build::torus;

    #[test]
    fn passes_never_worsen_and_fix_a_bad_start() {
        let net = torus(&[8], 1).unwrap();
        let units = Units::new(&net);
        // Alternating sides cut all 8 ring cables.
        let mut side: Vec<bool> = (0..8).map(|i| i % 2 == 0).collect();
        let prio: Vec<u64> = (0..8).collect();
        let cost = refine(&units.graph, &mut side, &prio, 10);
        assert_eq!(cost, 2);
        assert_eq!(units.realise(&net, &side).0, 2);
    }

    #[test]
    fn grown_starts_hold_half_the_terminals() {
        let net = torus(&[6, 4], 2).unwrap();
        let units = Units::new(&net).graph;
        let mut rng = stream(1, "t");
        for peripheral in [false, true] {
            let side = grown(&units, &mut rng, peripheral);
            let held: u64 = (0..units.len())
                .filter(|&u| side[u])
                .map(|u| units.weight[u])
                .sum();
            assert_eq!(held, 24);
        }
    }
}
