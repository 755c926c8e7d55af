//! Bisection lower bounds and formula cuts of the regular shapes.
//!
//! Notation: `T` terminals, `S` switches, the `true` side gets `floor(T/2)`.
//! A bisection is *exact* when a partition's counted width meets a proven
//! lower bound; the cuts below are upper bounds by construction (they are
//! realised and counted), so no formula is trusted without its bound.
//!
//! **Flow bound.** Route a unit of demand between every ordered pair of
//! terminals; if no cable carries more than `L`, a cut separating `a`
//! terminals from `T - a` carries `2a(T - a)` and so has at least
//! `2a(T-a)/L` cables. For tori, meshes and hypercubes route switch to
//! switch (terminals on one switch need no cable) in dimension order,
//! splitting ties evenly; the load is uniform per dimension by translation
//! symmetry. With `c` terminals per switch and `A` switches on one side,
//! the width is at least `ceil(2|A|(S-|A|) / L')` (switch pairs, `L'` the
//! per-cable switch-pair load) plus the terminals to move,
//! `|c|A| - T/2|` (rounded to the nearer half). The bound is the minimum
//! over `|A|`: it is concave plus piecewise linear in `|A|`, so the ends of
//! the linear pieces suffice.
//!
//! - Torus, dimension `k` (per cable, switch pairs): `S k/4` for even `k`,
//!   `S (k^2-1)/(4k)` for odd. With `k` the largest dimension, even, and
//!   `|A| = S/2 - d`, the bound is `2S/k - 8d^2/(Sk) + c d >= 2S/k` for
//!   all `d` when `c k >= 4`: the plane cut across `k` (twice, with the
//!   wraparound), `2S/k`, is exact. Otherwise `k = 2` and `c = 1` (a
//!   hypercube with doubled cables), where the terminal cut, `S/2`, meets
//!   the bound. More terminals never make cutting them cheaper: that costs
//!   `cS/2`. An odd largest dimension has no balanced plane; the plane cut
//!   with moved terminals, a cut across an even dimension and the
//!   heuristic's staircases compete, and the result is exact only if it
//!   meets the bound.
//! - Mesh: the middle cable of dimension `k` carries
//!   `2S floor(k/2) ceil(k/2)/k`; for even `k` the bound is
//!   `S/k - 4d^2/(Sk) + c d`, so one plane, `S/k`, is exact for `c >= 1`.
//! - Hypercube: `S` per cable; the bound is `S/2 - 2d^2/S + c d`, so a
//!   dimension cut, `S/2`, is exact for `c >= 1`.
//! - HyperX with sides `S_d` and `t` cables between switches that differ
//!   in one coordinate: dimension order, the `t` trunks shared evenly,
//!   loads a directed dimension-`d` channel with `S/(S_d t)` switch pairs
//!   (the pairs whose route corrects coordinate `d` on it: `S_e` choices
//!   for every other coordinate), a cable with `2S/(S_d t)`, most in the
//!   smallest dimension `k`. The bound is `S k t/4 - d^2 k t/S + c d`:
//!   for even `k` the half cut across `k`, `t (k/2)^2 S/k`, and the
//!   terminal cut, `cS/2`, are its two ends, and the smaller is exact
//!   (halving a larger even dimension costs more, `S k' t/4`). For odd
//!   `k` the half cuts, with moved terminals, and the heuristic compete,
//!   and the result is exact only if it meets the bound.
//!
//! **Tree bound.** In an XGFT, send `lambda |Y|^-1` from every terminal of
//! the smaller side `X` to every terminal of `Y`, up to the nearest common
//! level and down, split evenly over parents. Flow leaving (entering) a
//! level-`l` subtree is at most `lambda` times its `M_l = m_1..m_l`
//! terminals and spreads evenly over its `W_{l+1} = w_1..w_{l+1}` up
//! cables, and paths down are unique, so every channel carries at most 1
//! when `lambda = min_l W_{l+1}/M_l`; by max-flow/min-cut every bisection
//! cuts at least `ceil(lambda floor(T/2))` cables (each cut cable has one
//! channel from `X`'s side to `Y`'s). Cutting `floor(T/2)/M_l` whole
//! level-`l` subtrees off costs `W_{l+1}` each and meets the bound when
//! `M_l` divides `floor(T/2)` at the minimising `l`. k-ary n-trees have
//! `lambda = 1`: every bisection cuts `floor(T/2) = floor(k^n/2)`, as the
//! all-terminal cut does.
//! With leaf switches at level 0 (the `terminals=T` trees) holding
//! uneven numbers of terminals, the same flow works with the subtree's
//! terminal count in place of `M_l`: flow leaving or entering a level-`l`
//! subtree (its `M_l` leaves, `l = 0..h-1`) is at most `lambda` times the
//! terminals on them and spreads evenly over its `W_{l+1}` up cables, and
//! a terminal cable carries at most `lambda`, so
//! `lambda = min(1, min_l W_{l+1} / H_l)` with `H_l` the most terminals
//! any level-`l` subtree holds. Cuts of whole subtrees, as many as fit in
//! `floor(T/2)` terminals and one more, are tried; they meet the bound
//! when the terminals divide evenly, and otherwise the heuristic searches
//! and the result is exact only if it meets the bound.
//! A leaf-spine with `mult` cables from every leaf to each of `P` spines
//! is the same argument with `lambda = min(1, mult P / max hosts per
//! leaf)`: full when the uplinks cover the hosts.
//!
//! **Single switch.** The side without the switch holds at least
//! `floor(T/2)` terminals, each a cut cable: exactly `floor(T/2)`.

use super::shape::Shape;
use crate::network::Network;

/// Lower bound and cuts (as node sides) for one network: the shape's
/// formula cuts, then the all-terminal cut any network has (last, so a
/// formula cut wins a tie).
pub(crate) struct Plan {
    pub lower: Option<u64>,
    pub cuts: Vec<Vec<bool>>,
}

pub(crate) fn plan(net: &Network, shape: Option<&Shape>) -> Plan {
    let t = net.terminals().len() as u64;
    let half = t / 2;
    let nodes = net.node_count();
    let mut cuts = Vec::new();
    let lower = match shape {
        None => None,
        Some(Shape::Single) => Some(half),
        Some(Shape::Grid { dims, wrap, c }) => {
            let s: u64 = dims.iter().map(|&k| u64::from(k)).product();
            let mut stride = 1usize;
            for &k in dims {
                cuts.push(switch_cut(net, |i| {
                    (i / stride) % (k as usize) < (k as usize) / 2
                }));
                stride *= k as usize;
            }
            let load = dims
                .iter()
                .map(|&k| grid_load(s, u64::from(k), *wrap))
                .fold((0, 1), max_ratio);
            Some(flow_bound(s, u64::from(*c), t, load))
        }
        Some(Shape::Hypercube { n, c }) => {
            let s = 1u64 << n;
            cuts.push(switch_cut(net, |i| i >> (n - 1) & 1 == 0));
            Some(flow_bound(s, u64::from(*c), t, (u128::from(s), 1)))
        }
        Some(Shape::HyperX {
            sides,
            t: trunks,
            c,
        }) => {
            let s: u64 = sides.iter().map(|&k| u64::from(k)).product();
            let mut stride = 1usize;
            for &k in sides {
                cuts.push(switch_cut(net, |i| {
                    (i / stride) % (k as usize) < (k as usize) / 2
                }));
                stride *= k as usize;
            }
            let k = sides.iter().copied().min().unwrap_or(2);
            let load = (2 * u128::from(s), u128::from(k) * u128::from(*trunks));
            Some(flow_bound(s, u64::from(*c), t, load))
        }
        Some(Shape::Xgft {
            m,
            w,
            sizes,
            leaf_hosts: None,
        }) => Some(xgft(net, m, w, sizes, &mut cuts)),
        Some(Shape::Xgft {
            m,
            w,
            sizes,
            leaf_hosts: Some(hosts),
        }) => Some(xgft_leaves(net, m, w, sizes, hosts, &mut cuts)),
        Some(Shape::LeafSpine {
            hosts,
            spines,
            mult,
            ..
        }) => {
            let mut held = 0;
            cuts.push(switch_cut(net, |i| {
                let take = hosts[i] > 0 && held + hosts[i] <= half;
                held += if take { hosts[i] } else { 0 };
                take
            }));
            let most = hosts.iter().copied().max().unwrap_or(1).max(1);
            let up = u128::from(mult * spines);
            Some(half.min(div_ceil(up * u128::from(half), u128::from(most)) as u64))
        }
    };
    // Every switch on the `false` side: only terminals are cut.
    cuts.push(vec![false; nodes]);
    Plan { lower, cuts }
}

/// Node sides with switch `i` (in switch order) on `f(i)`, the rest `false`.
fn switch_cut(net: &Network, mut f: impl FnMut(usize) -> bool) -> Vec<bool> {
    let mut side = vec![false; net.node_count()];
    for (i, &s) in net.switches().iter().enumerate() {
        side[s.index()] = f(i);
    }
    side
}

fn div_ceil(a: u128, b: u128) -> u128 {
    a.div_ceil(b)
}

/// The larger of two loads given as fractions.
fn max_ratio(a: (u128, u128), b: (u128, u128)) -> (u128, u128) {
    if a.0 * b.1 >= b.0 * a.1 {
        a
    } else {
        b
    }
}

/// Per-cable switch-pair load of dimension `k` in an `s`-switch grid.
fn grid_load(s: u64, k: u64, wrap: bool) -> (u128, u128) {
    let (s, k) = (u128::from(s), u128::from(k));
    match (wrap, k % 2 == 0) {
        (true, true) => (s * k, 4),
        (true, false) => (s * (k * k - 1), 4 * k),
        (false, _) => (2 * s * (k / 2) * k.div_ceil(2), k),
    }
}

/// `min over a of ceil(2a(s-a)/L) + imbalance(c a)`, `L = num/den`.
pub(crate) fn flow_bound(s: u64, c: u64, t: u64, (num, den): (u128, u128)) -> u64 {
    let (lo, hi) = (t / 2, t - t / 2);
    let at = |a: u64| -> Option<u64> {
        let pairs = 2 * u128::from(a) * u128::from(s - a);
        let cut = match (pairs, num) {
            (0, _) => 0,
            (_, 0) => return None,
            _ => div_ceil(pairs * den, num) as u64,
        };
        let w = c * a;
        Some(cut + lo.saturating_sub(w) + w.saturating_sub(hi))
    };
    let mut ends = vec![0, s];
    for x in [lo, hi] {
        if let Some(a) = x.checked_div(c) {
            ends.push(a.min(s));
            ends.push((a + u64::from(x % c != 0)).min(s));
        }
    }
    ends.into_iter().filter_map(at).min().unwrap_or(0)
}

/// The tree bound, and cuts of whole level-`l` subtrees.
fn xgft(net: &Network, m: &[u32], w: &[u32], sizes: &[u64], cuts: &mut Vec<Vec<bool>>) -> u64 {
    let h = m.len();
    let t = sizes[0];
    let half = t / 2;
    // M_l and W_l for l = 0..=h.
    let mut mm = vec![1u64; h + 1];
    let mut ww = vec![1u64; h + 1];
    for l in 1..=h {
        mm[l] = mm[l - 1] * u64::from(m[l - 1]);
        ww[l] = ww[l - 1] * u64::from(w[l - 1]);
    }
    let lower = (0..h)
        .map(|l| div_ceil(u128::from(ww[l + 1]) * u128::from(half), u128::from(mm[l])) as u64)
        .min()
        .unwrap_or(0);
    // Level of each switch and its index within the level.
    let mut level_of = Vec::with_capacity(net.switches().len());
    for (l, &size) in sizes.iter().enumerate().skip(1) {
        level_of.extend((0..size).map(|x| (l, x)));
    }
    for l in 1..h {
        let q = half / mm[l];
        if q == 0 {
            continue;
        }
        let mut side = vec![false; net.node_count()];
        for (i, &s) in net.switches().iter().enumerate() {
            let (j, x) = level_of[i];
            if j <= l {
                // Positions above l are a-digits; below them W_j and m_{j+1}..m_l.
                side[s.index()] = x / (ww[j] * mm[l] / mm[j]) < q;
            }
        }
        for (x, &v) in net.terminals().iter().enumerate() {
            side[v.index()] = (x as u64) / mm[l] < q;
        }
        cuts.push(side);
    }
    lower
}

/// The tree bound of an XGFT with leaf switches holding `hosts` terminals
/// each (see the module notes), and cuts of whole level-`l` subtrees.
fn xgft_leaves(
    net: &Network,
    m: &[u32],
    w: &[u32],
    sizes: &[u64],
    hosts: &[u64],
    cuts: &mut Vec<Vec<bool>>,
) -> u64 {
    let h = m.len();
    let t: u64 = hosts.iter().sum();
    let half = t / 2;
    let mut mm = vec![1u64; h + 1];
    let mut ww = vec![1u64; h + 1];
    for l in 1..=h {
        mm[l] = mm[l - 1] * u64::from(m[l - 1]);
        ww[l] = ww[l - 1] * u64::from(w[l - 1]);
    }
    // Terminals per level-l subtree, l = 0..h (M_l consecutive leaves).
    let mut per: Vec<Vec<u64>> = vec![hosts.to_vec()];
    for l in 1..=h {
        let next = per[l - 1]
            .chunks(m[l - 1].max(1) as usize)
            .map(|c| c.iter().sum())
            .collect();
        per.push(next);
    }
    let lower = (0..h)
        .filter_map(|l| {
            let most = per[l].iter().copied().max().unwrap_or(0);
            (most > 0).then(|| {
                div_ceil(u128::from(ww[l + 1]) * u128::from(half), u128::from(most)) as u64
            })
        })
        .fold(half, u64::min);
    // Level of each switch and its index within the level.
    let mut level_of = Vec::with_capacity(net.switches().len());
    for (l, &size) in sizes.iter().enumerate() {
        level_of.extend((0..size).map(|x| (l, x)));
    }
    for l in 0..h {
        // The first q subtrees hold at most half the terminals; try q and q + 1.
        let mut q = 0u64;
        let mut held = 0u64;
        while (q as usize) < per[l].len() && held + per[l][q as usize] <= half {
            held += per[l][q as usize];
            q += 1;
        }
        for take in [q, q + 1] {
            if take == 0 || take as usize >= per[l].len() {
                continue;
            }
            let mut side = vec![false; net.node_count()];
            for (i, &s) in net.switches().iter().enumerate() {
                let (j, x) = level_of[i];
                if j <= l {
                    // Positions above l are a-digits; below them W_j and m_{j+1}..m_l.
                    side[s.index()] = x / (ww[j] * mm[l] / mm[j]) < take;
                }
            }
            for &v in net.terminals() {
                if let Some(s) = net.neighbors(v).next() {
                    side[v.index()] = side[s.index()];
                }
            }
            cuts.push(side);
        }
    }
    lower
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The ends of the linear pieces give the same minimum as every `a`.
    #[test]
    fn flow_bound_matches_a_full_scan() {
        for s in 1..40u64 {
            for c in 0..5u64 {
                for (num, den) in [
                    (s as u128 * 4, 4),
                    (s as u128 * 24, 20),
                    (s as u128, 1),
                    (0, 1),
                ] {
                    let t = s * c;
                    let (lo, hi) = (t / 2, t - t / 2);
                    let full = (0..=s)
                        .filter_map(|a| {
                            let pairs = 2 * u128::from(a) * u128::from(s - a);
                            let cut = if pairs == 0 {
                                0
                            } else if num == 0 {
                                return None;
                            } else {
                                (pairs * den).div_ceil(num) as u64
                            };
                            let w = c * a;
                            Some(cut + lo.saturating_sub(w) + w.saturating_sub(hi))
                        })
                        .min()
                        .unwrap();
                    assert_eq!(
                        flow_bound(s, c, t, (num, den)),
                        full,
                        "s={s} c={c} L={num}/{den}"
                    );
                }
            }
        }
    }
}
