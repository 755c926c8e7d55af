//! Hop distances summarised: diameter and average distances.
//!
//! Distances count inter-switch hops: terminals never forward, and the two
//! terminal links at the ends of a path are left out. Regular shapes get
//! closed forms (verified cabling, see [`super::shape`]); XGFTs one BFS per
//! level (the switches of a level are one orbit of the automorphisms that
//! permute label digits); anything else all-pairs BFS from every switch, in
//! parallel with O(switches) memory per thread. A network too large for
//! all-pairs within [`MAX_WORK`] is sampled and marked inexact.

use super::graph::{Attachments, Scratch, SwitchGraph, FAR};
use super::shape::{recognise, Shape};
use crate::network::Network;
use rand::seq::index::sample;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

/// The most BFS work (sources times switches plus adjacency entries) spent
/// on exact all-pairs distances: about ten seconds on two cores in an
/// optimised build.
pub(crate) const MAX_WORK: u64 = 20_000_000_000;

/// The most BFS sources a sampled estimate uses. Each BFS measures the
/// distances to every switch, so the mean over a few hundred random sources
/// is already within a fraction of a percent of the exact one; more only
/// costs time, and on graphs larger than the caches a BFS is far slower
/// than [`MAX_WORK`] prices it (786,432 switches: minutes for the 8,000
/// sources that budget allows).
pub(crate) const MAX_SAMPLES: usize = 256;

/// Distance metrics of a network.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Distances {
    /// The largest shortest-path distance between two switches that reach
    /// each other, in inter-switch hops.
    pub diameter: u32,
    /// Mean inter-switch hops between two distinct terminals that reach
    /// each other: the shortest distance between any switch of one and any
    /// switch of the other (so terminals on one switch are 0 apart). Every
    /// ordered terminal pair counts once, so switches weigh by their
    /// terminals. Terminals cabled to no switch are left out; 0 when fewer
    /// than two terminals remain.
    pub avg_distance: f64,
    /// Mean distance over ordered pairs of distinct switches that reach each
    /// other; 0 with fewer than two switches.
    pub avg_switch_distance: f64,
    /// False when sampled: then `diameter` is a lower bound and the averages
    /// are estimates.
    pub exact: bool,
    /// `formula`, `xgft-levels`, `all-pairs-bfs` or `sampled-bfs`.
    pub method: String,
}

/// Diameter and average distances of `net`.
pub fn distances(net: &Network) -> Distances {
    distances_within(net, MAX_WORK)
}

pub(crate) fn distances_within(net: &Network, max_work: u64) -> Distances {
    match recognise(net) {
        Some(Shape::Single) => formula(0, 0.0, 0.0),
        Some(Shape::Grid { dims, wrap, c }) => grid(&dims, wrap, c),
        Some(Shape::Hypercube { n, c }) => {
            let s = 1u64 << n;
            let mean = f64::from(n) / 2.0;
            formula(n, pair_mean(s * u64::from(c), mean), pair_mean(s, mean))
        }
        Some(Shape::HyperX { sides, c, .. }) => hyperx(&sides, c),
        Some(Shape::LeafSpine {
            hosts,
            leaves,
            spines,
            ..
        }) => leaf_spine(&hosts, leaves, spines),
        Some(Shape::Xgft {
            m,
            sizes,
            leaf_hosts,
            ..
        }) => xgft_levels(net, &m, &sizes, leaf_hosts.as_deref()),
        None => by_bfs(net, max_work),
    }
}

fn formula(diameter: u32, avg_distance: f64, avg_switch_distance: f64) -> Distances {
    Distances {
        diameter,
        avg_distance,
        avg_switch_distance,
        exact: true,
        method: "formula".into(),
    }
}

/// Mean over ordered distinct pairs of `n` equally weighted items whose
/// mean over all ordered pairs (self-pairs included, at distance 0) is
/// `mean`.
fn pair_mean(n: u64, mean: f64) -> f64 {
    if n < 2 {
        0.0
    } else {
        mean * n as f64 / (n - 1) as f64
    }
}

/// Tori and meshes: coordinates of a uniform pair are independent, so the
/// mean distance is the sum of the per-dimension means: `k/4` (even) or
/// `(k^2-1)/(4k)` (odd) around a ring, `(k^2-1)/(3k)` along a line.
fn grid(dims: &[u32], wrap: bool, c: u32) -> Distances {
    let s: u64 = dims.iter().map(|&k| u64::from(k)).product();
    let mut mean = 0.0;
    let mut diameter = 0;
    for &k in dims {
        let kf = f64::from(k);
        if wrap {
            diameter += k / 2;
            mean += if k % 2 == 0 {
                kf / 4.0
            } else {
                (kf * kf - 1.0) / (4.0 * kf)
            };
        } else {
            diameter += k - 1;
            mean += (kf * kf - 1.0) / (3.0 * kf);
        }
    }
    formula(
        diameter,
        pair_mean(s * u64::from(c), mean),
        pair_mean(s, mean),
    )
}

/// HyperX: two switches are as many hops apart as they have differing
/// coordinates, and the coordinates of a uniform pair differ in dimension
/// `d` with probability `(S_d - 1)/S_d`, independently.
fn hyperx(sides: &[u32], c: u32) -> Distances {
    let s: u64 = sides.iter().map(|&k| u64::from(k)).product();
    let mean: f64 = sides.iter().map(|&k| f64::from(k - 1) / f64::from(k)).sum();
    formula(
        sides.len() as u32,
        pair_mean(s * u64::from(c), mean),
        pair_mean(s, mean),
    )
}

/// Leaves and spines: a leaf and a spine are 1 apart, two leaves or two
/// spines 2.
fn leaf_spine(hosts: &[u64], leaves: u64, spines: u64) -> Distances {
    let t: u64 = hosts.iter().sum();
    let same: u64 = hosts.iter().map(|h| h * h).sum();
    let s = leaves + spines;
    let diameter = if leaves >= 2 || spines >= 2 { 2 } else { 1 };
    let sw_sum = 2 * leaves * (leaves - 1) + 2 * spines * (spines - 1) + 2 * leaves * spines;
    let avg = if t < 2 {
        0.0
    } else {
        2.0 * (t * t - same) as f64 / (t * (t - 1)) as f64
    };
    formula(diameter, avg, sw_sum as f64 / (s * (s - 1)) as f64)
}

/// XGFT: two terminals whose labels first differ (from the top) in
/// position `L` meet at level `L`, `2(L - 1)` inter-switch hops apart; of
/// the other terminals, `M_L - M_{L-1}` do so (`M_L = m_1 .. m_L`). With
/// leaf switches (`leaf_hosts`), terminals on leaves that first differ in
/// position `L` are `2L` hops apart, and the pairs are counted from the
/// terminals of each subtree (see [`leaf_pairs_mean`]). Switch metrics
/// come from one BFS per level.
fn xgft_levels(net: &Network, m: &[u32], sizes: &[u64], leaf_hosts: Option<&[u64]>) -> Distances {
    let avg_distance = match leaf_hosts {
        Some(hosts) => leaf_pairs_mean(m, hosts),
        None => {
            let t = sizes[0];
            let mut pairs = 0u128;
            let (mut below, mut upto) = (1u64, 1u64);
            for (l, &ml) in m.iter().enumerate() {
                upto *= u64::from(ml);
                pairs += u128::from(upto - below) * 2 * l as u128;
                below = upto;
            }
            if t < 2 {
                0.0
            } else {
                pairs as f64 / (t - 1) as f64
            }
        }
    };
    let g = SwitchGraph::new(net);
    let mut reps = Vec::new();
    let mut first = 0u64;
    let switch_levels = if leaf_hosts.is_some() {
        sizes
    } else {
        &sizes[1..]
    };
    for &size in switch_levels {
        if size > 0 {
            reps.push((first as u32, size));
        }
        first += size;
    }
    let acc = reps
        .par_iter()
        .map_init(
            || Scratch::new(g.len()),
            |sc, &(s, mult)| {
                g.bfs(&[s], sc);
                let row = switch_row(sc);
                sc.clear();
                row.scaled(mult)
            },
        )
        .reduce(Acc::default, Acc::merge);
    Distances {
        diameter: acc.diameter,
        avg_distance,
        avg_switch_distance: ratio(acc.sw_sum, acc.sw_pairs),
        exact: true,
        method: "xgft-levels".into(),
    }
}

/// Mean inter-switch hops over ordered pairs of distinct terminals of an
/// XGFT with leaf switches holding `hosts` terminals each (leaves in label
/// order, so a level-`l` subtree is `M_l` consecutive leaves). With `S_l`
/// the sum over level-`l` subtrees of their squared terminal counts (`S_0`
/// per leaf), `S_L - S_{L-1}` ordered pairs meet first at level `L`, `2L`
/// hops apart.
fn leaf_pairs_mean(m: &[u32], hosts: &[u64]) -> f64 {
    let t: u64 = hosts.iter().sum();
    if t < 2 {
        return 0.0;
    }
    let mut counts: Vec<u128> = hosts.iter().map(|&h| u128::from(h)).collect();
    let squares = |c: &[u128]| c.iter().map(|x| x * x).sum::<u128>();
    let mut prev = squares(&counts);
    let mut sum = 0u128;
    for (l, &ml) in m.iter().enumerate() {
        counts = counts
            .chunks(ml.max(1) as usize)
            .map(|c| c.iter().sum())
            .collect();
        let now = squares(&counts);
        sum += (now - prev) * 2 * (l as u128 + 1);
        prev = now;
    }
    sum as f64 / (u128::from(t) * u128::from(t - 1)) as f64
}

/// Sums over sources; integers, so the parallel reduction is exact and the
/// result independent of the thread count.
#[derive(Debug, Default, Clone, Copy)]
struct Acc {
    diameter: u32,
    sw_sum: u128,
    sw_pairs: u128,
    t_sum: u128,
    t_pairs: u128,
}

impl Acc {
    fn merge(a: Acc, b: Acc) -> Acc {
        Acc {
            diameter: a.diameter.max(b.diameter),
            sw_sum: a.sw_sum + b.sw_sum,
            sw_pairs: a.sw_pairs + b.sw_pairs,
            t_sum: a.t_sum + b.t_sum,
            t_pairs: a.t_pairs + b.t_pairs,
        }
    }

    fn scaled(self, k: u64) -> Acc {
        let k = u128::from(k);
        Acc {
            diameter: self.diameter,
            sw_sum: self.sw_sum * k,
            sw_pairs: self.sw_pairs * k,
            t_sum: self.t_sum * k,
            t_pairs: self.t_pairs * k,
        }
    }
}

fn ratio(num: u128, den: u128) -> f64 {
    if den == 0 {
        0.0
    } else {
        num as f64 / den as f64
    }
}

/// Switch metrics of one BFS from one switch.
fn switch_row(sc: &Scratch) -> Acc {
    let far = sc.order.last().map_or(0, |&v| sc.dist[v as usize]);
    Acc {
        diameter: far,
        sw_sum: sc
            .order
            .iter()
            .map(|&v| u128::from(sc.dist[v as usize]))
            .sum(),
        sw_pairs: sc.order.len().saturating_sub(1) as u128,
        ..Acc::default()
    }
}

/// Terminal metrics of one BFS whose sources hold `weight` terminals.
fn terminal_row(sc: &Scratch, at: &Attachments, weight: u64) -> Acc {
    if weight == 0 {
        return Acc::default();
    }
    let mut sum = 0u128;
    let mut reach = 0u64;
    for &v in &sc.order {
        let w = at.single[v as usize];
        sum += u128::from(w) * u128::from(sc.dist[v as usize]);
        reach += w;
    }
    for (set, count) in &at.multi {
        let d = set
            .iter()
            .map(|&v| sc.dist[v as usize])
            .min()
            .unwrap_or(FAR);
        if d != FAR {
            sum += u128::from(*count) * u128::from(d);
            reach += count;
        }
    }
    Acc {
        t_sum: sum * u128::from(weight),
        t_pairs: u128::from(weight) * u128::from(reach.saturating_sub(1)),
        ..Acc::default()
    }
}

/// All-pairs BFS: one source per switch and per multi-homed terminal group,
/// or a seeded sample of them when that is more than `max_work`.
fn by_bfs(net: &Network, max_work: u64) -> Distances {
    let g = SwitchGraph::new(net);
    let at = Attachments::new(net);
    let n = g.len();
    let sources = n + at.multi.len();
    let per_bfs = (n + g.edges()) as u64 + 1;
    let exact = (sources as u64).saturating_mul(per_bfs) <= max_work;
    let chosen: Vec<usize> = if exact {
        (0..sources).collect()
    } else {
        let k = ((max_work / per_bfs) as usize)
            .min(MAX_SAMPLES)
            .clamp(64.min(sources), sources);
        let mut rng = crate::rng::stream(0, "metrics/distance-sample");
        let mut picked = sample(&mut rng, sources, k).into_vec();
        picked.sort_unstable();
        picked
    };
    let acc = chosen
        .par_iter()
        .map_init(
            || Scratch::new(n),
            |sc, &i| {
                let row = if i < n {
                    g.bfs(&[i as u32], sc);
                    Acc::merge(switch_row(sc), terminal_row(sc, &at, at.single[i]))
                } else {
                    let (set, count) = &at.multi[i - n];
                    g.bfs(set, sc);
                    terminal_row(sc, &at, *count)
                };
                sc.clear();
                row
            },
        )
        .reduce(Acc::default, Acc::merge);
    Distances {
        diameter: acc.diameter,
        avg_distance: ratio(acc.t_sum, acc.t_pairs),
        avg_switch_distance: ratio(acc.sw_sum, acc.sw_pairs),
        exact,
        method: if exact {
            "all-pairs-bfs"
        } else {
            "sampled-bfs"
        }
        .into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::network::build::tree::{kary_ntree_with_terminals, xgft_with_terminals};
    use crate::network::build::{clos, crossbar, hypercube, kary_ntree, mesh, torus, xgft};
    use crate::network::{NetworkBuilder, PortId};

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-9 * (1.0 + a.abs())
    }

    /// The closed forms agree with all-pairs BFS.
    #[test]
    fn formulas_match_all_pairs() {
        let nets = [
            torus(&[4, 3], 2).unwrap(),
            torus(&[5, 2, 3], 1).unwrap(),
            torus(&[2, 2], 3).unwrap(),
            mesh(&[4, 3], 1).unwrap(),
            mesh(&[2, 5, 3], 2).unwrap(),
            hypercube(4, 2).unwrap(),
            crossbar(6).unwrap(),
            clos(8, 14).unwrap(),
            clos(6, 18).unwrap(),
            kary_ntree(3, 3).unwrap(),
            kary_ntree(2, 1).unwrap(),
            xgft(&[3, 2, 4], &[2, 3, 2]).unwrap(),
            xgft(&[2, 3], &[1, 1]).unwrap(),
            xgft(&[4], &[2]).unwrap(),
            xgft_with_terminals(&[3, 2], &[2, 2], 14).unwrap(),
            xgft_with_terminals(&[6], &[3], 64).unwrap(),
            xgft_with_terminals(&[2, 3, 2], &[1, 2, 2], 5).unwrap(),
            xgft_with_terminals(&[2, 2], &[2, 2], 0).unwrap(),
            xgft_with_terminals(&[2, 2], &[2, 2], 1).unwrap(),
            kary_ntree_with_terminals(4, 3, 50).unwrap(),
            kary_ntree_with_terminals(3, 2, 10).unwrap(),
        ];
        for net in &nets {
            let f = distances(net);
            let b = by_bfs(net, u64::MAX);
            assert_ne!(f.method, "all-pairs-bfs", "{}", net.name());
            assert_eq!(f.diameter, b.diameter, "{}", net.name());
            assert!(
                close(f.avg_distance, b.avg_distance),
                "{} {f:?} {b:?}",
                net.name()
            );
            assert!(
                close(f.avg_switch_distance, b.avg_switch_distance),
                "{} {f:?} {b:?}",
                net.name()
            );
            assert!(b.exact && f.exact);
        }
    }

    #[test]
    fn multi_homed_terminals_take_their_nearest_switches() {
        // Path s0 - s1 - s2; terminal a on s0, b on s2, c on both s0 and s2.
        let (mut b, s, t) = NetworkBuilder::with_default_classes("path");
        let sw: Vec<_> = (0..3).map(|i| b.add_switch(format!("s{i}"), 4)).collect();
        b.connect_next(sw[0], sw[1], s).unwrap();
        b.connect_next(sw[1], sw[2], s).unwrap();
        let ha = b.add_terminal("a", 1);
        let hb = b.add_terminal("b", 1);
        let hc = b.add_terminal("c", 2);
        b.connect_next(sw[0], ha, t).unwrap();
        b.connect_next(sw[2], hb, t).unwrap();
        b.connect(sw[0], PortId(4), hc, PortId(1), t).unwrap();
        b.connect(sw[2], PortId(4), hc, PortId(2), t).unwrap();
        let d = distances(&b.build().unwrap());
        // a-b 2, a-c 0, b-c 0, each both ways: 4 / 6.
        assert!(close(d.avg_distance, 4.0 / 6.0), "{d:?}");
        assert_eq!(d.diameter, 2);
        assert!(close(d.avg_switch_distance, 8.0 / 6.0));
        assert_eq!(d.method, "all-pairs-bfs");
    }

    #[test]
    fn sampling_is_marked_and_repeatable() {
        let mut b = torus(&[12, 10], 1).unwrap().to_builder();
        b.set_structure(crate::Structure::Irregular);
        let net = b.build().unwrap();
        let exact = distances(&net);
        assert_eq!(exact.method, "all-pairs-bfs");
        let s1 = distances_within(&net, 1000);
        let s2 = distances_within(&net, 1000);
        assert_eq!(s1, s2);
        assert!(!s1.exact && s1.method == "sampled-bfs");
        // A vertex-transitive network: any sample is exact in value.
        assert_eq!(s1.diameter, exact.diameter);
        assert!(close(s1.avg_switch_distance, exact.avg_switch_distance));
    }

    #[test]
    fn a_few_hundred_sources_estimate_an_irregular_network_closely() {
        // 3,000 switches: one less than the budget for all of them gives
        // the capped sample of MAX_SAMPLES sources.
        let net =
            crate::network::spec::build("random:switches=3000,ports=8,hosts=1,seed=3").unwrap();
        let exact = distances(&net);
        assert!(exact.exact);
        let g = SwitchGraph::new(&net);
        let per_bfs = (g.len() + g.edges()) as u64 + 1;
        let s = distances_within(&net, 2999 * per_bfs);
        assert!(!s.exact);
        let rel = (s.avg_switch_distance / exact.avg_switch_distance - 1.0).abs();
        assert!(rel < 0.005, "{s:?} against {exact:?}");
        assert!((s.avg_distance / exact.avg_distance - 1.0).abs() < 0.005);
        // A lower bound of the diameter, and a close one.
        assert!(s.diameter <= exact.diameter && s.diameter + 1 >= exact.diameter);
    }
}
