//! MinHop: shortest paths with local port balancing.
//!
//! For every destination terminal, the hop distance of every switch to it
//! (BFS over switch links from the switches the terminal hangs off). Each
//! switch then sends every destination through one of its minimal ports
//! (those leading to a switch one hop closer), choosing the port that carries
//! the fewest destinations so far, ties to the lowest port: the port
//! equalisation of OpenSM's MinHop. Destinations are taken in terminal order.
//! With `weigh_capacity` a destination counts on a port as many times as
//! its link is slower than the fastest switch link.
//! One lane; the routes may contain dependency cycles.

use super::fabric::{Capacity, Fabric, NONE};
use super::{Routes, RoutingEngine, RoutingError, RoutingOptions};
use crate::network::Network;
use rayon::prelude::*;
use std::collections::{HashMap, VecDeque};

#[derive(Default)]
pub struct MinHop {
    capacity: Capacity,
}

pub fn engine(o: &RoutingOptions) -> Box<dyn RoutingEngine> {
    Box::new(MinHop {
        capacity: Capacity {
            // OpenSM's minhop keeps every link.
            avoid_throttled: false,
            weigh: o.weigh_capacity,
        },
    })
}

impl RoutingEngine for MinHop {
    fn name(&self) -> &'static str {
        "minhop"
    }

    fn route(&self, net: &Network) -> Result<Routes, RoutingError> {
        let f = Fabric::balancing(net, self.name(), self.capacity)?;
        let dist = Distances::new(&f);
        let mut routes = Routes::new(net, self.name());
        let t = f.t;
        if t == 0 {
            return Ok(routes);
        }
        routes
            .table
            .par_chunks_mut(t)
            .enumerate()
            .for_each(|(x, row)| {
                let links = f.links(x);
                let mut used = vec![0u64; links.len()];
                for (d, entry) in row.iter_mut().enumerate() {
                    if let Some(p) = f.sink_port(x, d) {
                        *entry = p.0;
                        continue;
                    }
                    let dd = dist.of(d);
                    let h = dd[x];
                    if h == UNREACHED {
                        continue;
                    }
                    let mut best = NONE as usize;
                    for (k, l) in links.iter().enumerate() {
                        if dd[l.to as usize] + 1 == h
                            && (best == NONE as usize || used[k] < used[best])
                        {
                            best = k;
                        }
                    }
                    if best != NONE as usize {
                        used[best] += f.cost(links[best].ch);
                        *entry = links[best].port.0;
                    }
                }
            });
        Ok(routes)
    }
}

pub(crate) const UNREACHED: u16 = u16::MAX;

/// Hop distances of every switch to every destination, shared by the
/// terminals that hang off the same switches.
pub(crate) struct Distances {
    s: usize,
    /// Per terminal: its distance row.
    row_of: Vec<u32>,
    rows: Vec<u16>,
}

impl Distances {
    pub fn new(f: &Fabric) -> Self {
        let mut key_row: HashMap<Vec<u32>, u32> = HashMap::new();
        let mut row_of = Vec::with_capacity(f.t);
        let mut keys: Vec<Vec<u32>> = Vec::new();
        for d in 0..f.t {
            let key: Vec<u32> = f.sinks(d).iter().map(|k| k.switch).collect();
            let next = keys.len() as u32;
            let r = *key_row.entry(key.clone()).or_insert_with(|| {
                keys.push(key);
                next
            });
            row_of.push(r);
        }
        let s = f.s;
        let mut rows = vec![UNREACHED; keys.len() * s];
        if s > 0 {
            rows.par_chunks_mut(s).zip(&keys).for_each(|(row, key)| {
                let mut queue = VecDeque::new();
                for &k in key {
                    row[k as usize] = 0;
                    queue.push_back(k as usize);
                }
                while let Some(u) = queue.pop_front() {
                    let du = row[u];
                    for l in f.links(u) {
                        let v = l.to as usize;
                        if row[v] == UNREACHED {
                            row[v] = du.saturating_add(1).min(UNREACHED - 1);
                            queue.push_back(v);
                        }
                    }
                }
            });
        }
        Distances { s, row_of, rows }
    }

    /// Hop distances of every switch to terminal `d` (its switch at 0).
    #[inline]
    pub fn of(&self, d: usize) -> &[u16] {
        let r = self.row_of[d] as usize;
        &self.rows[r * self.s..(r + 1) * self.s]
    }
}
