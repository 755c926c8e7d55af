//! Fat-tree routing as OpenSM's `ftree` does it, on any network recognised
//! as a fat tree ([`fat_tree_ranks`]): generated trees and trees read back
//! from ibnetdiscover dumps alike, from given roots (the `roots` option,
//! OpenSM's `root_guid_file`) or found from the leaves.
//!
//! Destinations are taken leaf by leaf (leaves in switch order), each
//! leaf's terminals in port order, then as many placeholders as the
//! fullest leaf has more terminals, so that a missing host does not shift
//! the balance of the others. For each destination:
//! - going up from its leaf, every switch routes it down to the switch
//!   below; at each step one parent takes the *main* path: the parent
//!   group (all cables to one switch) with the fewest destinations routed
//!   down through it, ties to the parent of lowest index, then the cable
//!   of that group with the fewest, ties to the lowest local port; both
//!   counters grow. The other parents, in the same order, get the
//!   destination too, by their least-loaded cable (same tie-break),
//!   without counting (the secondary paths);
//! - going down from every switch that has a route, its child groups are
//!   taken fewest routes up first, ties to the child of lowest index, and
//!   each child without a shorter route routes it up to that switch by the
//!   cable that carries the fewest routes up (ties to the parent's lowest
//!   port), counted only where the child's own subtree sends traffic.
//!
//! (OpenSM's `port_group_compare_load_down` would break a tie between
//! parent groups first by the parents' least-loaded group down, but it
//! counts routes down on the child's side of a link only, so that load is
//! always 0 there and the index decides; counting it on the parents' side
//! instead picks other parents on trunked trees.)
//!
//! Every route goes up, then down: deadlock-free on one lane. Links
//! between switches of one rank are not used. OpenSM's tuple indexing
//! orders leaves and groups by position in the tree; here switch index
//! (generated trees are numbered in that order) and remote switch index
//! do. Not built: IO-node reverse hops (`max_reverse_hops`).

use super::fabric::Fabric;
use super::{Routes, RoutingEngine, RoutingError, RoutingOptions};
use crate::network::metrics::fat_tree::{fat_tree_ranks, FatTreeRanks};
use crate::network::{Network, PortId};

pub struct Ftree {
    roots: Vec<String>,
}

pub fn engine(o: &RoutingOptions) -> Box<dyn RoutingEngine> {
    Box::new(Ftree {
        roots: o.roots.clone(),
    })
}

/// All cables from a switch to one neighbour.
#[derive(Debug, Clone)]
struct Group {
    remote: usize,
    /// (local port, remote port, counter)
    ports: Vec<(PortId, PortId, u64)>,
    counter: u64,
}

impl RoutingEngine for Ftree {
    fn name(&self) -> &'static str {
        "ftree"
    }

    fn route(&self, net: &Network) -> Result<Routes, RoutingError> {
        let f = Fabric::new(net, self.name())?;
        let mut roots = Vec::with_capacity(self.roots.len());
        for r in &self.roots {
            let node = net.find_node(r).map_err(|why| RoutingError::BadOption {
                option: "roots".into(),
                value: r.clone(),
                expected: format!("switches of the network by name or GUID (0x...); {why}"),
            })?;
            roots.push(node);
        }
        let ranks = fat_tree_ranks(net, &roots).map_err(|found| RoutingError::Unfit {
            engine: "ftree",
            needs: "a fat tree: terminals on the deepest rank, switch links between adjacent \
                    ranks (give the roots with the roots option when the leaves cannot tell)"
                .into(),
            network: net.name().to_string(),
            found: format!("not one ({found})"),
        })?;
        Ok(Router::new(&f, &ranks).run())
    }
}

struct Router<'a, 'n> {
    f: &'a Fabric<'n>,
    rank: &'a [u32],
    /// Per switch: groups towards the roots and towards the leaves.
    up: Vec<Vec<Group>>,
    down: Vec<Vec<Group>>,
    /// Per switch: hops to the current destination (u32::MAX: none yet).
    hops: Vec<u32>,
    routes: Routes,
}

impl<'a, 'n> Router<'a, 'n> {
    fn new(f: &'a Fabric<'n>, ranks: &'a FatTreeRanks) -> Self {
        let rank = &ranks.rank;
        let mut up = vec![Vec::new(); f.s];
        let mut down = vec![Vec::new(); f.s];
        for x in 0..f.s {
            for l in f.links(x) {
                let y = l.to as usize;
                if rank[x] == u32::MAX || rank[y] == u32::MAX || rank[x] == rank[y] {
                    continue;
                }
                let remote_port = f.net.channel(l.ch).dst_port;
                let groups: &mut Vec<Group> = if rank[y] < rank[x] {
                    &mut up[x]
                } else {
                    &mut down[x]
                };
                match groups.iter_mut().find(|g| g.remote == y) {
                    Some(g) => g.ports.push((l.port, remote_port, 0)),
                    None => groups.push(Group {
                        remote: y,
                        ports: vec![(l.port, remote_port, 0)],
                        counter: 0,
                    }),
                }
            }
        }
        // Groups in remote switch order (OpenSM's qsort by index), the
        // cables of a group in local port order (OpenSM adds them scanning
        // ports 1, 2, ...).
        for g in up.iter_mut().chain(down.iter_mut()) {
            g.sort_by_key(|g| g.remote);
            for g in g.iter_mut() {
                g.ports.sort_by_key(|p| p.0);
            }
        }
        Router {
            f,
            rank,
            up,
            down,
            hops: vec![u32::MAX; f.s],
            routes: Routes::new(f.net, "ftree"),
        }
    }

    fn run(mut self) -> Routes {
        let f = self.f;
        // Destinations per leaf, in port order.
        let mut per_leaf: Vec<Vec<(PortId, usize)>> = vec![Vec::new(); f.s];
        for d in 0..f.t {
            let leaf = f.inject[d] as usize;
            if let Some(p) = f.sink_port(leaf, d) {
                per_leaf[leaf].push((p, d));
            }
        }
        let fullest = per_leaf.iter().map(Vec::len).max().unwrap_or(0);
        for (leaf, dests) in per_leaf.iter_mut().enumerate() {
            if dests.is_empty() {
                continue;
            }
            dests.sort_unstable();
            for &(_, d) in dests.iter() {
                self.destination(leaf, Some(d));
            }
            // Placeholders keep the counters as if the leaf were full.
            for _ in dests.len()..fullest {
                self.destination(leaf, None);
            }
        }
        self.routes
    }

    /// Routes destination `d` (a placeholder when `None`) on leaf `leaf`.
    fn destination(&mut self, leaf: usize, d: Option<usize>) {
        self.hops.fill(u32::MAX);
        self.hops[leaf] = 0;
        if let Some(d) = d {
            let f = self.f;
            // Every switch that delivers to d does so directly.
            for k in f.sinks(d) {
                self.set(k.switch as usize, d, k.port);
                self.hops[k.switch as usize] = 0;
            }
        }
        self.down_by_going_up(leaf, None, d, true, 0);
    }

    fn set(&mut self, x: usize, d: usize, port: PortId) {
        let t = self.f.t;
        self.routes.table[x * t + d] = port.0;
    }

    /// Switches above `x` route `d` down to it; switches below route up.
    fn down_by_going_up(
        &mut self,
        x: usize,
        prev: Option<usize>,
        d: Option<usize>,
        main: bool,
        hops: u32,
    ) {
        self.up_by_going_down(x, prev, d, hops);
        if self.rank[x] == 0 || self.up[x].is_empty() {
            return;
        }
        // The parent group with the fewest routes down first, ties by
        // index. (OpenSM breaks ties first by the parent's least-loaded
        // group down, but counts routes down on the child's side of a
        // link only, so that load is always 0 and never decides.)
        self.up[x].sort_unstable_by_key(|g| (g.counter, g.remote));
        for i in 0..self.up[x].len() {
            let is_main = main && i == 0;
            let y = self.up[x][i].remote;
            if !is_main && self.hops[y] != u32::MAX && hops + 1 >= self.hops[y] {
                continue;
            }
            let j = least(&self.up[x][i].ports);
            if is_main {
                self.up[x][i].counter += 1;
                self.up[x][i].ports[j].2 += 1;
            }
            let remote_port = self.up[x][i].ports[j].1;
            if self.hops[y] == u32::MAX || hops + 1 < self.hops[y] {
                self.hops[y] = hops + 1;
                if let Some(d) = d {
                    self.set(y, d, remote_port);
                }
            } else if !is_main {
                continue;
            }
            self.down_by_going_up(y, Some(x), d, is_main, hops + 1);
        }
    }

    /// Children of `x` without a shorter route send `d` up to `x`; true
    /// when some switch below sends traffic this way.
    fn up_by_going_down(
        &mut self,
        x: usize,
        prev: Option<usize>,
        d: Option<usize>,
        hops: u32,
    ) -> bool {
        let f = self.f;
        if self.down[x].is_empty() {
            return false;
        }
        let mut order: Vec<usize> = (0..self.down[x].len()).collect();
        // Remote switches are distinct, so an unstable sort gives the same order.
        order.sort_unstable_by_key(|&i| (self.down[x][i].counter, self.down[x][i].remote));
        let mut created = false;
        for i in order {
            let y = self.down[x][i].remote;
            if Some(y) == prev {
                continue;
            }
            if self.hops[y] != u32::MAX && hops + 1 >= self.hops[y] {
                continue;
            }
            // The child reaches x by its cable with the fewest routes up.
            let j = least(&self.down[x][i].ports);
            let child_port = self.down[x][i].ports[j].1;
            self.hops[y] = hops + 1;
            if let Some(d) = d {
                self.set(y, d, child_port);
            }
            let below = self.up_by_going_down(y, None, d, hops + 1);
            if below || f.injecting[y] > 0 {
                self.down[x][i].counter += 1;
                self.down[x][i].ports[j].2 += 1;
                created = true;
            }
        }
        created
    }
}

/// The cable of a group with the fewest routes so far (first on ties).
fn least(ports: &[(PortId, PortId, u64)]) -> usize {
    (0..ports.len())
        .min_by_key(|&i| (ports[i].2, i))
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::network::{io::ibnetdiscover, spec};
    use crate::routing;

    #[test]
    fn a_tree_read_back_from_a_dump_routes_minimally_and_acyclically() {
        let gen = spec::build("kary-ntree:k=4,n=3").unwrap();
        let net = ibnetdiscover::from_str(&ibnetdiscover::to_string(&gen), "tree").unwrap();
        let o = RoutingOptions::default();
        let r = routing::route(&net, "ftree", &o).unwrap();
        assert!(r.is_minimal(&net).unwrap());
        let rep = r.deadlock_report(&net).unwrap();
        assert!(rep.deadlock_free && rep.lanes_used == 1, "{rep}");
        // ftree needs no structure; dmodk gets it recognised from the cabling.
        let d = routing::route(&net, "dmodk", &o).unwrap();
        assert!(d.is_minimal(&net).unwrap());
    }

    #[test]
    fn trunked_tree_matches_opensm_entry_for_entry() {
        // OpenSM 3.3.23's ftree on this fabric under ibsim: the tables of
        // the leaves s0-0..s0-3 and spines s1-0, s1-1 towards h0..h11.
        // Leaf s0-i reaches s1-0 by ports 1, 3 and s1-1 by ports 2, 4.
        let net = spec::build("xgft:m=4,w=2,terminals=12,trunks=2").unwrap();
        let r = routing::route(&net, "ftree", &RoutingOptions::default()).unwrap();
        let opensm: [(&str, [u16; 12]); 6] = [
            ("s0-0", [5, 6, 7, 1, 2, 3, 1, 4, 3, 1, 2, 3]),
            ("s0-1", [1, 2, 3, 5, 6, 7, 1, 4, 3, 1, 2, 3]),
            ("s0-2", [1, 2, 3, 1, 4, 3, 5, 6, 7, 1, 2, 3]),
            ("s0-3", [1, 2, 3, 1, 4, 3, 1, 2, 3, 5, 6, 7]),
            ("s1-0", [1, 5, 5, 2, 6, 6, 3, 7, 7, 4, 8, 8]),
            ("s1-1", [1, 1, 5, 2, 2, 6, 3, 3, 7, 4, 4, 8]),
        ];
        for (sw, ports) in opensm {
            let x = net.kind_index(net.find_node(sw).unwrap());
            let got: Vec<u16> = (0..12)
                .map(|h| {
                    let d = net.kind_index(net.find_node(&format!("h{h}")).unwrap());
                    r.port(x, d).map_or(0, |p| p.0)
                })
                .collect();
            assert_eq!(got, ports, "{sw}");
        }
    }
}
