//! Up*/down* source routes balanced over the links, as Myrinet's
//! `simple_routes` builds them (Flich et al. 2000 §4.5): one route per
//! pair of hosts, chosen among all legal up*/down* paths (not only the
//! shortest) so that the load spreads over the links.
//!
//! Pairs are routed one at a time in a seeded random order. Each takes
//! the legal path of least weight, a link weighing `base + routes on it
//! so far`, where `base` is the mean load a link would carry if every
//! pair took a shortest legal path: one hop more is worth one mean link
//! load, so a longer legal path is taken when it avoids links loaded
//! above the mean by more than that. The up/down order is `updown`'s
//! (`root` option, else the most central switch); the tables hold
//! `updown`'s routes so that the routes export as an LFT.

use super::fabric::{Fabric, NONE};
use super::source_paths::SourcePaths;
use super::updown::{fill_tables, is_up, order};
use super::{Routes, RoutingEngine, RoutingError, RoutingOptions};
use crate::network::{ChannelId, Network};
use crate::rng;
use rand::seq::SliceRandom;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

pub struct UpDownSource {
    root: Option<String>,
    seed: u64,
}

pub fn engine(o: &RoutingOptions) -> Box<dyn RoutingEngine> {
    Box::new(UpDownSource {
        root: o.root.clone(),
        seed: o.seed,
    })
}

const INF: u64 = u64::MAX / 4;

impl RoutingEngine for UpDownSource {
    fn name(&self) -> &'static str {
        "updown-source"
    }

    fn memory_bytes(&self, net: &Network) -> u64 {
        Routes::table_bytes(net) + SourcePaths::estimate_bytes(net)
    }

    fn route(&self, net: &Network) -> Result<Routes, RoutingError> {
        let f = Fabric::new(net, self.name())?;
        let mut routes = Routes::new(net, self.name());
        if f.t == 0 || f.main == NONE {
            return Ok(routes);
        }
        let rank = order(&f, &self.root)?;
        fill_tables(&f, &rank, &mut routes);
        let mut search = Search::new(&f);
        let mut pairs: Vec<(usize, usize)> = (0..f.t)
            .flat_map(|s| (0..f.t).map(move |d| (s, d)))
            .filter(|&(s, d)| s != d && f.inject[s] != NONE && f.inject[d] != NONE)
            .collect();
        // The mean link load under shortest legal paths sets the price of
        // a hop.
        let mut load = vec![0u64; net.channel_count()];
        let mut hops = 0u64;
        for &(s, d) in &pairs {
            let (a, b) = (f.inject[s] as usize, f.inject[d] as usize);
            hops += search
                .path(&f, &rank, &load, 1, a, b)
                .map_or(0, |p| p.len()) as u64;
        }
        let links = (0..f.s).map(|x| f.links(x).len()).sum::<usize>().max(1) as u64;
        let base = (hops / links).max(1);
        pairs.shuffle(&mut rng::stream(self.seed, "routing/updown-source"));
        let mut paths = SourcePaths::new(&f);
        for (s, d) in pairs {
            let (a, b) = (f.inject[s] as usize, f.inject[d] as usize);
            let Some(p) = search.path(&f, &rank, &load, base, a, b) else {
                return Err(RoutingError::BlackHole {
                    src: f.terminal_name(s),
                    dst: f.terminal_name(d),
                    switch: net.label(f.switch_node(a)).into_owned(),
                    reason: "no legal up*/down* path".into(),
                });
            };
            for c in &p {
                load[c.index()] += 1;
            }
            paths.set(s, d, p);
        }
        paths.finish(&f, &mut routes)?;
        Ok(routes)
    }
}

/// Dijkstra over (switch, phase): phase 0 may still go up, phase 1 has
/// gone down and may only go down.
struct Search {
    cost: Vec<u64>,
    prev: Vec<(u32, ChannelId)>,
    heap: BinaryHeap<Reverse<(u64, u32)>>,
}

impl Search {
    fn new(f: &Fabric) -> Self {
        Search {
            cost: vec![INF; 2 * f.s],
            prev: vec![(NONE, ChannelId(0)); 2 * f.s],
            heap: BinaryHeap::new(),
        }
    }

    /// The legal path of least weight from switch `a` to switch `b`, a
    /// link weighing `base + load`.
    fn path(
        &mut self,
        f: &Fabric,
        rank: &[u32],
        load: &[u64],
        base: u64,
        a: usize,
        b: usize,
    ) -> Option<Vec<ChannelId>> {
        if a == b {
            return Some(Vec::new());
        }
        self.cost.fill(INF);
        self.heap.clear();
        self.cost[2 * a] = 0;
        self.heap.push(Reverse((0, (2 * a) as u32)));
        let mut end = None;
        while let Some(Reverse((c, v))) = self.heap.pop() {
            let v = v as usize;
            if c != self.cost[v] {
                continue;
            }
            let (x, phase) = (v / 2, v % 2);
            if x == b {
                end = Some(v);
                break;
            }
            for l in f.links(x) {
                let y = l.to as usize;
                if rank[y] == NONE {
                    continue;
                }
                let up = is_up(rank, x, l);
                if up && phase == 1 {
                    continue;
                }
                let w = 2 * y + usize::from(!up);
                let nc = c + base + load[l.ch.index()];
                if nc < self.cost[w] {
                    self.cost[w] = nc;
                    self.prev[w] = (v as u32, l.ch);
                    self.heap.push(Reverse((nc, w as u32)));
                }
            }
        }
        let mut v = end?;
        let mut out = Vec::new();
        while v != 2 * a {
            let (u, ch) = self.prev[v];
            out.push(ch);
            v = u as usize;
        }
        out.reverse();
        Some(out)
    }
}
