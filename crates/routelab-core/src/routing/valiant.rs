//! Valiant: every (source, destination) pair goes through an intermediate
//! switch drawn at random, in two phases: a shortest path from the source's
//! injection switch to the intermediate on lane 0, then a shortest path
//! from the intermediate to the destination on lane 1.
//!
//! The intermediate is drawn uniformly among the switches of the
//! terminals' component (the source's own switch included, which leaves
//! phase 1 empty) from one seeded stream per source, `routing/valiant/<src>`
//! of the `seed` option, one draw per destination in order;
//! [`intermediates`] gives the same draws.
//!
//! Each phase routes on its own lane, and a packet only moves from lane 0
//! to lane 1, so the routes are deadlock-free when each phase's paths are
//! acyclic on their lane. Both phases use the same shortest-path routing,
//! so a pair whose intermediate is its own injection switch (no phase 1)
//! travels on lane 0 throughout: lane 0 still carries paths of that one
//! routing only, and on a crossbar every pair stays on lane 0. On fat trees (k-ary n-trees, XGFTs, Clos networks
//! and crossbars) the phases take shortest *up\*/down\** paths (never up
//! after down, levels counted from the leaves), which are acyclic, so the
//! routes are deadlock-free on two lanes. Elsewhere a phase takes plain
//! shortest paths; on tori those close cycles, and each phase would need a
//! deadlock-free routing of its own (dimension order with datelines, two
//! lanes per phase, four in all), which this engine does not provide: the
//! deadlock report shows the cycle. Ties between equally short next hops
//! go to the `key mod n`-th (`key` the intermediate switch for phase 1, the
//! destination terminal for phase 2), spreading targets over links as
//! D-mod-k does.
//!
//! Paths are not minimal. They are stored per pair ([`PathKey::Pair`]) with
//! per-hop lanes, so memory grows as `T^2`: the engine refuses fabrics
//! whose paths would exceed [`MAX_HOPS`] stored hops. The tables are
//! MinHop's, so the routes still export as an LFT.

use super::fabric::{Fabric, NONE};
use super::minhop::MinHop;
use super::{PathKey, PathSet, Routes, RoutingEngine, RoutingError, RoutingOptions};
use crate::network::{ChannelId, Network, NodeId, Structure};
use crate::rng;
use rand::Rng;
use rayon::prelude::*;
use std::collections::{HashMap, VecDeque};

/// The most path hops the engine stores (about 320 MiB with their lanes).
pub const MAX_HOPS: u64 = 1 << 26;

const UNREACHED: u32 = u32::MAX;

pub struct Valiant {
    pub seed: u64,
}

pub fn engine(options: &RoutingOptions) -> Box<dyn RoutingEngine> {
    Box::new(Valiant { seed: options.seed })
}

/// The intermediate switch of every pair `(src, d)`, `d` in terminal
/// order (`None` for `d == src`), as the engine draws them with `seed`.
pub fn intermediates(
    net: &Network,
    seed: u64,
    src: usize,
) -> Result<Vec<Option<NodeId>>, RoutingError> {
    let f = Fabric::new(net, "valiant")?;
    let cand = candidates(&f);
    Ok(draws(cand.len(), seed, src, f.t)
        .into_iter()
        .map(|c| (c != NONE).then(|| f.switch_node(cand[c as usize] as usize)))
        .collect())
}

/// The switches an intermediate is drawn from.
fn candidates(f: &Fabric) -> Vec<u32> {
    (0..f.s as u32).filter(|&x| f.in_main(x as usize)).collect()
}

/// Candidate index per destination (NONE for the source itself).
fn draws(n: usize, seed: u64, src: usize, t: usize) -> Vec<u32> {
    let mut r = rng::stream(seed, &format!("routing/valiant/{src}"));
    (0..t)
        .map(|d| {
            if d == src || n == 0 {
                NONE
            } else {
                r.gen_range(0..n as u32)
            }
        })
        .collect()
}

impl RoutingEngine for Valiant {
    fn name(&self) -> &'static str {
        "valiant"
    }

    /// Tables, pair lanes and, at least, two hops per pair of terminals.
    fn memory_bytes(&self, net: &Network) -> u64 {
        let pairs = Routes::pair_lane_bytes(net);
        Routes::table_bytes(net) + pairs + 2 * pairs * std::mem::size_of::<ChannelId>() as u64
    }

    fn route(&self, net: &Network) -> Result<Routes, RoutingError> {
        let f = Fabric::new(net, self.name())?;
        let t = f.t;
        let mut routes = Routes::new(net, self.name());
        if t < 2 {
            routes.table = MinHop::default().route(net)?.table;
            return Ok(routes);
        }
        let too_big = |found: String| RoutingError::Unfit {
            engine: "valiant",
            needs: format!("at most {MAX_HOPS} stored path hops (paths are stored per pair)"),
            network: net.name().to_string(),
            found,
        };
        let pairs = (t as u64) * (t as u64 - 1);
        if pairs > MAX_HOPS {
            return Err(too_big(format!("{t} terminals, {pairs} pairs")));
        }
        let cand = candidates(&f);
        let ph = Phases::new(&f, &cand)?;

        // The exact number of hops the draws need, before storing any.
        let n = cand.len();
        let hops_of = |s: usize| -> u64 {
            let x = f.inject[s] as usize;
            draws(n, self.seed, s, t)
                .iter()
                .enumerate()
                .filter(|(_, &c)| c != NONE)
                .map(|(d, &c)| (ph.one(c as usize, x).len() + ph.two(d, c as usize).len()) as u64)
                .sum()
        };
        let total: u64 = (0..t).into_par_iter().map(hops_of).sum();
        if total > MAX_HOPS {
            return Err(too_big(format!("{total} hops")));
        }

        routes.table = MinHop::default().route(net)?.table;
        // Copying precomputed phases: one pass, in place, no second copy.
        let mut set = PathSet::new(net, PathKey::Pair);
        set.reserve(t * t, t * (t - 1), total as usize, true);
        let (mut ch, mut lanes) = (Vec::new(), Vec::new());
        for s in 0..t {
            let x = f.inject[s] as usize;
            for (d, &c) in draws(n, self.seed, s, t).iter().enumerate() {
                if c != NONE {
                    let (a, b) = (ph.one(c as usize, x), ph.two(d, c as usize));
                    ch.clear();
                    ch.extend_from_slice(a);
                    ch.extend_from_slice(b);
                    lanes.clear();
                    lanes.resize(a.len(), 0);
                    lanes.resize(a.len() + b.len(), u8::from(!a.is_empty()));
                    set.push(&ch, &lanes);
                }
                set.next_row();
            }
        }
        routes.set_path_set(Some(set));
        Ok(routes)
    }
}

/// Switch levels of a fat tree (1 at the switches holding terminals), when
/// the network is one and every switch link joins adjacent levels.
fn tree_levels(f: &Fabric) -> Option<Vec<u32>> {
    match f.net.structure() {
        Structure::Xgft { .. } | Structure::Clos { .. } | Structure::Crossbar { .. } => {}
        _ => return None,
    }
    let mut level = vec![UNREACHED; f.s];
    let mut queue = VecDeque::new();
    let leaves = (0..f.t).flat_map(|d| f.sinks(d).iter().map(|k| k.switch as usize));
    for x in leaves.chain(f.inject.iter().map(|&x| x as usize)) {
        if x < f.s && level[x] == UNREACHED {
            level[x] = 1;
            queue.push_back(x);
        }
    }
    while let Some(u) = queue.pop_front() {
        for l in f.links(u) {
            let v = l.to as usize;
            if level[v] == UNREACHED {
                level[v] = level[u] + 1;
                queue.push_back(v);
            }
        }
    }
    let adjacent = (0..f.s).all(|x| {
        level[x] == UNREACHED
            || f.links(x)
                .iter()
                .all(|l| level[l.to as usize].abs_diff(level[x]) == 1)
    });
    adjacent.then_some(level)
}

/// Shortest paths over states (switch, gone down): on a tree a path never
/// goes up after going down; elsewhere every link is allowed.
struct Router<'f> {
    f: &'f Fabric<'f>,
    level: Option<Vec<u32>>,
}

impl Router<'_> {
    /// The move along link `y -> z` from mode `m` (1: gone down), if legal.
    #[inline]
    fn step(&self, y: usize, z: usize, m: usize) -> Option<usize> {
        match &self.level {
            None => Some(0),
            Some(lv) if lv[z] > lv[y] => (m == 0).then_some(0),
            Some(_) => Some(1),
        }
    }

    /// Hops to the nearest target from every state `2 * switch + mode`.
    fn distances(&self, targets: &[u32], dist: &mut Vec<u32>, queue: &mut VecDeque<usize>) {
        dist.clear();
        dist.resize(2 * self.f.s, UNREACHED);
        queue.clear();
        for &w in targets {
            for m in 0..2 {
                dist[2 * w as usize + m] = 0;
                queue.push_back(2 * w as usize + m);
            }
        }
        while let Some(st) = queue.pop_front() {
            let (z, mz) = (st / 2, st % 2);
            for l in self.f.links(z) {
                let y = l.to as usize;
                for m in 0..2 {
                    if self.step(y, z, m) == Some(mz) && dist[2 * y + m] == UNREACHED {
                        dist[2 * y + m] = dist[st] + 1;
                        queue.push_back(2 * y + m);
                    }
                }
            }
        }
    }

    /// Appends a shortest legal path from switch `x` (mode 0) to the
    /// targets of `dist`, ties broken by `key`; returns the last switch, or
    /// `None` when no legal path exists.
    fn walk(&self, dist: &[u32], x: usize, key: usize, out: &mut Vec<ChannelId>) -> Option<usize> {
        if dist[2 * x] == UNREACHED {
            return None;
        }
        let (mut y, mut m) = (x, 0);
        while dist[2 * y + m] > 0 {
            let h = dist[2 * y + m];
            let legal = |l: &&super::fabric::Link| {
                let z = l.to as usize;
                self.step(y, z, m)
                    .is_some_and(|mz| dist[2 * z + mz] != UNREACHED && dist[2 * z + mz] + 1 == h)
            };
            let n = self.f.links(y).iter().filter(legal).count();
            let l = self
                .f
                .links(y)
                .iter()
                .filter(legal)
                .nth(key % n)
                .expect("a state off the target has a closer successor");
            out.push(l.ch);
            m = self.step(y, l.to as usize, m).unwrap_or(0);
            y = l.to as usize;
        }
        Some(y)
    }
}

/// Phase paths, flat: phase 1 from every injecting switch to every
/// candidate, phase 2 from every candidate to every terminal (ejection
/// included).
struct Phases {
    /// Row of an injecting switch in phase 1, or NONE.
    inj_row: Vec<u32>,
    inj_rows: usize,
    one_base: Vec<u32>,
    one: Vec<ChannelId>,
    cands: usize,
    two_base: Vec<u32>,
    two: Vec<ChannelId>,
}

/// Path lengths and their hops, one part of a phase table.
type Phase = (Vec<u32>, Vec<ChannelId>);

fn flatten(parts: Vec<Phase>) -> Result<Phase, String> {
    let mut base = vec![0u32];
    let mut hops = Vec::new();
    for (lens, ch) in parts {
        let mut at = hops.len();
        hops.extend_from_slice(&ch);
        for len in lens {
            at += len as usize;
            base.push(u32::try_from(at).map_err(|_| format!("over {} phase hops", u32::MAX))?);
        }
    }
    Ok((base, hops))
}

impl Phases {
    fn new(f: &Fabric, cand: &[u32]) -> Result<Self, RoutingError> {
        let router = Router {
            f,
            level: tree_levels(f),
        };
        let mut inj_row = vec![NONE; f.s];
        let mut injecting = Vec::new();
        for (x, (row, &n)) in inj_row.iter_mut().zip(&f.injecting).enumerate() {
            if n > 0 {
                *row = injecting.len() as u32;
                injecting.push(x);
            }
        }
        let rows = (cand.len() as u64) * (injecting.len() as u64 + f.t as u64);
        if rows > MAX_HOPS {
            return Err(RoutingError::Unfit {
                engine: "valiant",
                needs: format!("at most {MAX_HOPS} phase paths"),
                network: f.net.name().to_string(),
                found: format!("{rows}"),
            });
        }
        // Phase 1, per candidate: paths from every injecting switch.
        let no_path = |a: usize, b: NodeId| RoutingError::Unfit {
            engine: "valiant",
            needs: "a path from every switch to every other (up*/down* on fat trees)".into(),
            network: f.net.name().to_string(),
            found: format!(
                "without one from {} to {}",
                f.net.label(f.switch_node(a)),
                f.net.label(b)
            ),
        };
        let one: Vec<Phase> = cand
            .par_iter()
            .map_init(
                || (Vec::new(), VecDeque::new()),
                |(dist, queue), &w| {
                    router.distances(&[w], dist, queue);
                    let mut lens = Vec::with_capacity(injecting.len());
                    let mut hops = Vec::new();
                    for &x in &injecting {
                        let before = hops.len();
                        router
                            .walk(dist, x, w as usize, &mut hops)
                            .ok_or_else(|| no_path(x, f.switch_node(w as usize)))?;
                        lens.push((hops.len() - before) as u32);
                    }
                    Ok((lens, hops))
                },
            )
            .collect::<Result<_, RoutingError>>()?;
        // Phase 2, per destination: paths from every candidate.
        let mut group_of: HashMap<Vec<u32>, Vec<usize>> = HashMap::new();
        for d in 0..f.t {
            let key: Vec<u32> = f.sinks(d).iter().map(|k| k.switch).collect();
            group_of.entry(key).or_default().push(d);
        }
        let mut groups: Vec<(Vec<u32>, Vec<usize>)> = group_of.into_iter().collect();
        groups.sort_unstable_by_key(|(_, ds)| ds[0]);
        let mut two: Vec<(usize, Phase)> = groups
            .par_iter()
            .map_init(
                || (Vec::new(), VecDeque::new()),
                |(dist, queue), (sinks, ds)| {
                    router.distances(sinks, dist, queue);
                    ds.iter()
                        .map(|&d| {
                            let mut lens = Vec::with_capacity(cand.len());
                            let mut hops = Vec::new();
                            for &w in cand {
                                let before = hops.len();
                                let y = router
                                    .walk(dist, w as usize, d, &mut hops)
                                    .ok_or_else(|| no_path(w as usize, f.net.terminal(d)))?;
                                let port = f.sink_port(y, d).expect("a target switch delivers");
                                hops.push(
                                    f.net
                                        .channel_at(f.switch_node(y), port)
                                        .expect("a sink port is cabled"),
                                );
                                lens.push((hops.len() - before) as u32);
                            }
                            Ok((d, (lens, hops)))
                        })
                        .collect::<Vec<_>>()
                },
            )
            .flatten()
            .collect::<Result<_, RoutingError>>()?;
        two.sort_unstable_by_key(|(d, _)| *d);
        let unfit = |found: String| RoutingError::Unfit {
            engine: "valiant",
            needs: "phase paths of fewer than 2^32 hops".into(),
            network: f.net.name().to_string(),
            found,
        };
        let (one_base, one) = flatten(one).map_err(unfit)?;
        let (two_base, two) = flatten(two.into_iter().map(|(_, p)| p).collect()).map_err(unfit)?;
        Ok(Phases {
            inj_row,
            inj_rows: injecting.len(),
            one_base,
            one,
            cands: cand.len(),
            two_base,
            two,
        })
    }

    /// Phase 1 from injecting switch `x` to candidate `c`.
    #[inline]
    fn one(&self, c: usize, x: usize) -> &[ChannelId] {
        let r = c * self.inj_rows + self.inj_row[x] as usize;
        &self.one[self.one_base[r] as usize..self.one_base[r + 1] as usize]
    }

    /// Phase 2 from candidate `c` to terminal `d`, ejection included.
    #[inline]
    fn two(&self, d: usize, c: usize) -> &[ChannelId] {
        let r = d * self.cands + c;
        &self.two[self.two_base[r] as usize..self.two_base[r + 1] as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::network::spec;

    #[test]
    fn draws_are_repeatable_per_seed() {
        let net = spec::build("torus:3x3").unwrap();
        let a = intermediates(&net, 7, 2).unwrap();
        assert_eq!(a, intermediates(&net, 7, 2).unwrap());
        assert_ne!(a, intermediates(&net, 8, 2).unwrap());
        assert_eq!(a[2], None);
        assert!(a.iter().flatten().all(|&w| net.is_switch(w)));
    }

    #[test]
    fn fat_tree_levels_are_found() {
        let net = spec::build("kary-ntree:k=2,n=3").unwrap();
        let f = Fabric::new(&net, "valiant").unwrap();
        let lv = tree_levels(&f).unwrap();
        let mut per_level = [0; 4];
        for l in lv {
            per_level[l as usize] += 1;
        }
        assert_eq!(per_level, [0, 4, 4, 4]);
        let torus = spec::build("torus:3x3").unwrap();
        assert!(tree_levels(&Fabric::new(&torus, "valiant").unwrap()).is_none());
    }
}
