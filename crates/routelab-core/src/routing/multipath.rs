//! Multipath: every minimal path per pair (or `k` of them), traffic split
//! evenly over them; the fluid view of randomized dispersive routing
//! (geoffray2008 §4.1: a packet takes a random one of the pair's routes, so
//! in the long run each route carries an equal share).
//!
//! A minimal path runs from the source's injection switch along switch
//! links, each hop one closer (in switch hops) to a switch the destination
//! hangs off, then down to the destination. Parallel cables count as
//! distinct paths, as in [`crate::network::metrics::count_shortest_paths`].
//! Paths depend only on the injection switch and the destination, so they
//! are stored once per (switch, destination) ([`PathKey::Switch`]).
//!
//! With `paths=k` (`k > 0`) and `N > k` minimal paths, the paths kept are
//! numbers `floor(i N / k)`, `i = 0..k`, in the order that enumerates paths
//! by lowest port first at every hop: evenly spaced, so the first hops
//! (and the spines of a Clos) are used evenly. `paths=0` (the default)
//! keeps them all; on a Clos of 32-port crossbars that is 16 paths between
//! hosts on different leaves and 1 on the same leaf. When all paths would
//! need more than [`MAX_HOPS`] stored hops the engine fails and says so.
//!
//! The tables are MinHop's, one minimal route per destination, so the
//! routes still export as an LFT. One lane: minimal paths on a tree are
//! up*/down* and deadlock-free; on tori and other cyclic fabrics they are
//! not, and the deadlock report says so.

use super::fabric::Fabric;
use super::minhop::MinHop;
use super::{PathKey, PathSet, Routes, RoutingEngine, RoutingError, RoutingOptions};
use crate::network::{ChannelId, Network};
use rayon::prelude::*;
use std::collections::{HashMap, VecDeque};

/// The most path hops the engine stores (256 MiB of channels).
pub const MAX_HOPS: u64 = 1 << 26;

const UNREACHED: u32 = u32::MAX;

pub struct Multipath {
    /// Paths kept per pair; 0 keeps all.
    pub paths: u32,
}

pub fn engine(options: &RoutingOptions) -> Box<dyn RoutingEngine> {
    Box::new(Multipath {
        paths: options.paths,
    })
}

impl RoutingEngine for Multipath {
    fn name(&self) -> &'static str {
        "multipath"
    }

    /// Tables and, at least, one path of one hop per switch and destination.
    fn memory_bytes(&self, net: &Network) -> u64 {
        let rows = net.switches().len() as u64 * net.terminals().len() as u64;
        Routes::table_bytes(net) + rows * std::mem::size_of::<ChannelId>() as u64
    }

    fn route(&self, net: &Network) -> Result<Routes, RoutingError> {
        let f = Fabric::new(net, self.name())?;
        let mut routes = Routes::new(net, self.name());
        if f.t == 0 {
            return Ok(routes);
        }
        let groups = Groups::new(&f);
        let k = u64::from(self.paths);
        let kept = |n: u64| if k == 0 { n } else { n.min(k) };

        // Stored hops, checked before anything is stored.
        let mut total: u64 = 0;
        for x in 0..f.s {
            if f.injecting[x] == 0 {
                continue;
            }
            for d in 0..f.t {
                let g = groups.of(d);
                if g.dist[x] != UNREACHED {
                    let hops = u64::from(g.dist[x]) + 1;
                    total = total.saturating_add(kept(g.count[x]).saturating_mul(hops));
                }
            }
        }
        if total > MAX_HOPS {
            return Err(RoutingError::Unfit {
                engine: "multipath",
                needs: format!(
                    "at most {MAX_HOPS} stored path hops (limit the paths per pair with paths=k)"
                ),
                network: net.name().to_string(),
                found: format!(
                    "{total} hops with {}",
                    if k == 0 {
                        "all minimal paths".to_string()
                    } else {
                        format!("paths={k}")
                    }
                ),
            });
        }

        routes.table = MinHop::default().route(net)?.table;
        // One block of rows per switch, built in parallel.
        let mut set = PathSet::new(net, PathKey::Switch);
        let parts: Vec<PathSet> = (0..f.s)
            .into_par_iter()
            .map(|x| {
                let mut part = set.part();
                if f.injecting[x] == 0 {
                    for _ in 0..f.t {
                        part.next_row();
                    }
                    return part;
                }
                let mut buf = Vec::new();
                for d in 0..f.t {
                    let g = groups.of(d);
                    let n = g.count[x];
                    if g.dist[x] != UNREACHED && n > 0 {
                        let m = kept(n);
                        for i in 0..m {
                            let j = (u128::from(i) * u128::from(n) / u128::from(m)) as u64;
                            buf.clear();
                            decode(&f, g, x, j, d, &mut buf);
                            part.push(&buf, &[]);
                        }
                    }
                    part.next_row();
                }
                part
            })
            .collect();
        set.reserve(f.s * f.t, 0, total as usize, false);
        for part in parts {
            set.append(part);
        }
        routes.set_path_set(Some(set));
        Ok(routes)
    }
}

/// Writes minimal path number `j` (lowest port first at every hop) from
/// switch `x` to terminal `d` into `out`.
fn decode(f: &Fabric, g: &Group, x: usize, mut j: u64, d: usize, out: &mut Vec<ChannelId>) {
    let mut y = x;
    while g.dist[y] > 0 {
        let h = g.dist[y];
        let mut next = None;
        for l in f.links(y) {
            let z = l.to as usize;
            if g.dist[z] != UNREACHED && g.dist[z] + 1 == h {
                let c = g.count[z];
                next = Some((l.ch, z));
                if j < c {
                    break;
                }
                // Counts saturate on astronomically many paths: the last
                // child absorbs what is left.
                j -= c;
            }
        }
        let (ch, z) = next.expect("a switch off the destination has a closer neighbour");
        out.push(ch);
        y = z;
    }
    let port = f
        .sink_port(y, d)
        .expect("a switch at distance 0 delivers to the destination");
    let ch = f
        .net
        .channel_at(f.switch_node(y), port)
        .expect("a sink port is cabled");
    out.push(ch);
}

/// Per destination group (terminals hanging off the same switches): switch
/// hop distances to the group and the number of minimal paths.
struct Group {
    dist: Vec<u32>,
    count: Vec<u64>,
}

struct Groups {
    of: Vec<u32>,
    groups: Vec<Group>,
}

impl Groups {
    fn new(f: &Fabric) -> Self {
        let mut index: HashMap<Vec<u32>, u32> = HashMap::new();
        let mut keys: Vec<Vec<u32>> = Vec::new();
        let of = (0..f.t)
            .map(|d| {
                let key: Vec<u32> = f.sinks(d).iter().map(|k| k.switch).collect();
                let next = keys.len() as u32;
                *index.entry(key.clone()).or_insert_with(|| {
                    keys.push(key);
                    next
                })
            })
            .collect();
        let groups = keys.par_iter().map(|key| Group::new(f, key)).collect();
        Groups { of, groups }
    }

    #[inline]
    fn of(&self, d: usize) -> &Group {
        &self.groups[self.of[d] as usize]
    }
}

impl Group {
    fn new(f: &Fabric, sinks: &[u32]) -> Self {
        let mut dist = vec![UNREACHED; f.s];
        let mut count = vec![0u64; f.s];
        let mut order = Vec::with_capacity(f.s);
        let mut queue = VecDeque::new();
        for &k in sinks {
            if dist[k as usize] == UNREACHED {
                dist[k as usize] = 0;
                count[k as usize] = 1;
                queue.push_back(k as usize);
            }
        }
        while let Some(u) = queue.pop_front() {
            order.push(u);
            for l in f.links(u) {
                let v = l.to as usize;
                if dist[v] == UNREACHED {
                    dist[v] = dist[u] + 1;
                    queue.push_back(v);
                }
            }
        }
        // In BFS order every closer neighbour is counted before.
        for &u in &order {
            if dist[u] == 0 {
                continue;
            }
            count[u] = f
                .links(u)
                .iter()
                .filter(|l| dist[l.to as usize] != UNREACHED && dist[l.to as usize] + 1 == dist[u])
                .fold(0u64, |acc, l| acc.saturating_add(count[l.to as usize]));
        }
        Group { dist, count }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::network::metrics::count_shortest_paths;
    use crate::network::spec;

    #[test]
    fn all_minimal_paths_of_a_torus() {
        let net = spec::build("torus:4x4").unwrap();
        let r = Multipath { paths: 0 }.route(&net).unwrap();
        let ps = r.path_set().unwrap();
        for s in 0..16 {
            for d in 0..16 {
                let n = if s == d {
                    0
                } else {
                    count_shortest_paths(&net, net.terminal(s), net.terminal(d)) as usize
                };
                assert_eq!(ps.path_count(s, d), n, "{s} -> {d}");
                let mut seen: Vec<&[ChannelId]> = ps.paths(s, d).map(|p| p.channels).collect();
                seen.sort();
                seen.dedup();
                assert_eq!(seen.len(), n, "paths are distinct");
            }
        }
        assert!(r.is_minimal(&net).unwrap());
        assert_eq!(r.lanes(), 1);
    }

    #[test]
    fn k_paths_are_evenly_spaced() {
        let net = spec::build("clos:ports=8,hosts=32").unwrap();
        let r = Multipath { paths: 2 }.route(&net).unwrap();
        // 4 spines; paths 0 and 2 of 4 use spines 0 and 2.
        let spines: Vec<String> = r
            .path_set()
            .unwrap()
            .paths(0, 31)
            .map(|p| net.node(net.channel(p.channels[0]).dst).name.clone())
            .collect();
        assert_eq!(spines, ["spine0", "spine2"]);
        assert_eq!(r.path_set().unwrap().path_count(0, 1), 1);
    }

    #[test]
    fn too_many_paths_fail_with_the_fix() {
        let net = spec::build("torus:12x12x12").unwrap();
        let e = Multipath { paths: 0 }.route(&net).unwrap_err().to_string();
        assert!(
            e.contains("paths=k") && e.contains("all minimal paths"),
            "{e}"
        );
    }
}
