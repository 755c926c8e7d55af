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

use super::columns::ColumnWriter;
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

/// All cables from a switch to one neighbour: `cables` of the router's
/// arena from `first`. Small, so that a visit scanning a switch's groups
/// reads a few cache lines.
#[derive(Debug, Clone, Copy)]
struct Group {
    remote: u32,
    /// Destinations routed through it (main paths only).
    counter: u32,
    first: u32,
    cables: u32,
}

/// One cable of a group (a group's cables are in local port order).
#[derive(Debug, Clone, Copy)]
struct Cable {
    /// The port it enters at the remote switch.
    remote: PortId,
    /// Destinations routed over it.
    count: u32,
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
    /// The groups' cables.
    cables: Vec<Cable>,
    /// Per switch: its parents' and children's indices, in a fixed order,
    /// for the check most visits end with (see [`any_shorter`]).
    parents: Vec<Vec<u32>>,
    children: Vec<Vec<u32>>,
    /// Per switch: hops to the current destination (u32::MAX: none yet).
    hops: Vec<u32>,
    routes: Routes,
    /// The table's entries, gathered a few destinations at a time.
    writer: ColumnWriter,
}

impl<'a, 'n> Router<'a, 'n> {
    fn new(f: &'a Fabric<'n>, ranks: &'a FatTreeRanks) -> Self {
        let rank = &ranks.rank;
        // Per switch and direction: (remote switch, its cables (local port,
        // remote port)).
        type Gathered = Vec<(usize, Vec<(PortId, PortId)>)>;
        let mut gathered: Vec<[Gathered; 2]> = vec![[Vec::new(), Vec::new()]; f.s];
        for x in 0..f.s {
            for l in f.links(x) {
                let y = l.to as usize;
                if rank[x] == u32::MAX || rank[y] == u32::MAX || rank[x] == rank[y] {
                    continue;
                }
                let remote_port = f.net.channel(l.ch).dst_port;
                let groups = &mut gathered[x][usize::from(rank[y] > rank[x])];
                match groups.iter_mut().find(|g| g.0 == y) {
                    Some(g) => g.1.push((l.port, remote_port)),
                    None => groups.push((y, vec![(l.port, remote_port)])),
                }
            }
        }
        // Groups in remote switch order (OpenSM's qsort by index), the
        // cables of a group in local port order (OpenSM adds them scanning
        // ports 1, 2, ...).
        let mut cables = Vec::new();
        let mut pack = |mut groups: Gathered| -> Vec<Group> {
            groups.sort_by_key(|g| g.0);
            groups
                .into_iter()
                .map(|(remote, mut ports)| {
                    ports.sort_by_key(|p| p.0);
                    let first = cables.len() as u32;
                    cables.extend(ports.iter().map(|&(_, remote)| Cable { remote, count: 0 }));
                    Group {
                        remote: remote as u32,
                        counter: 0,
                        first,
                        cables: ports.len() as u32,
                    }
                })
                .collect()
        };
        let (mut up, mut down) = (Vec::with_capacity(f.s), Vec::with_capacity(f.s));
        for [towards_roots, towards_leaves] in gathered {
            up.push(pack(towards_roots));
            down.push(pack(towards_leaves));
        }
        let ids = |groups: &Vec<Vec<Group>>| -> Vec<Vec<u32>> {
            groups
                .iter()
                .map(|g| g.iter().map(|g| g.remote).collect())
                .collect()
        };
        Router {
            f,
            rank,
            parents: ids(&up),
            children: ids(&down),
            up,
            down,
            cables,
            hops: vec![u32::MAX; f.s],
            routes: Routes::new(f.net, "ftree"),
            writer: ColumnWriter::new(f.s),
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
        self.writer.flush(&mut self.routes.table, f.t);
        self.routes
    }

    /// Routes destination `d` (a placeholder when `None`) on leaf `leaf`.
    fn destination(&mut self, leaf: usize, d: Option<usize>) {
        self.hops.fill(u32::MAX);
        self.hops[leaf] = 0;
        if let Some(d) = d {
            let f = self.f;
            self.writer.start(&mut self.routes.table, f.t, d);
            // Every switch that delivers to d does so directly.
            for k in f.sinks(d) {
                self.set(k.switch as usize, k.port);
                self.hops[k.switch as usize] = 0;
            }
        }
        self.down_by_going_up(leaf, None, d, true, 0);
    }

    /// Whether `hops` would be a first or a shorter route for switch `y`.
    #[inline]
    fn shorter(&self, y: u32, hops: u32) -> bool {
        hops < self.hops[y as usize]
    }

    /// Switch `x` routes the destination being routed by `port`.
    #[inline]
    fn set(&mut self, x: usize, port: PortId) {
        self.writer.set(x, port.0);
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
        // Off the main path only parents without a route this short take
        // part, and hops only ever shrink: none now, none later.
        if !main && !any_shorter(&self.parents[x], u32::MAX, &self.hops, hops + 1) {
            return;
        }
        // The parent group with the fewest routes down first, ties by
        // index. (OpenSM breaks ties first by the parent's least-loaded
        // group down, but counts routes down on the child's side of a
        // link only, so that load is always 0 and never decides.)
        by_load(&mut self.up[x]);
        for i in 0..self.up[x].len() {
            let is_main = main && i == 0;
            let g = self.up[x][i];
            if !is_main && !self.shorter(g.remote, hops + 1) {
                continue;
            }
            let cable = self.least(g);
            if is_main {
                self.up[x][i].counter += 1;
                self.cables[cable].count += 1;
            }
            let y = g.remote as usize;
            if self.shorter(g.remote, hops + 1) {
                self.hops[y] = hops + 1;
                if d.is_some() {
                    self.set(y, self.cables[cable].remote);
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
        let prev = prev.map_or(u32::MAX, |p| p as u32);
        // Most visits find every child routed already: the loop below
        // would skip them all and change nothing.
        if !any_shorter(&self.children[x], prev, &self.hops, hops + 1) {
            return false;
        }
        // In place: the order of this visit is fixed before any counter grows.
        by_load(&mut self.down[x]);
        let mut created = false;
        for i in 0..self.down[x].len() {
            let g = self.down[x][i];
            if g.remote == prev || !self.shorter(g.remote, hops + 1) {
                continue;
            }
            // The child reaches x by its cable with the fewest routes up.
            let cable = self.least(g);
            let y = g.remote as usize;
            self.hops[y] = hops + 1;
            if d.is_some() {
                self.set(y, self.cables[cable].remote);
            }
            let below = self.up_by_going_down(y, None, d, hops + 1);
            if below || f.injecting[y] > 0 {
                self.down[x][i].counter += 1;
                self.cables[cable].count += 1;
                created = true;
            }
        }
        created
    }

    /// The cable of `g` with the fewest routes so far (first on ties), as
    /// an index into `cables`.
    fn least(&self, g: Group) -> usize {
        let first = g.first as usize;
        let cables = &self.cables[first..first + g.cables as usize];
        let mut best = 0;
        for (i, c) in cables.iter().enumerate().skip(1) {
            if c.count < cables[best].count {
                best = i;
            }
        }
        first + best
    }
}

/// Whether a switch of `ids` other than `skip` would get a first or a
/// shorter route at `hops`. Most visits end here, so it reads a compact
/// list of indices rather than the groups.
#[inline]
fn any_shorter(ids: &[u32], skip: u32, hop_of: &[u32], hops: u32) -> bool {
    ids.iter().any(|&y| y != skip && hops < hop_of[y as usize])
}

/// Groups with the fewest routes first, ties by remote switch (distinct,
/// so the order is total). Insertion sort: a visit leaves them nearly in
/// order, so the next one costs a pass.
fn by_load(groups: &mut [Group]) {
    let key = |g: &Group| (g.counter, g.remote);
    for i in 1..groups.len() {
        let mut j = i;
        while j > 0 && key(&groups[j]) < key(&groups[j - 1]) {
            groups.swap(j, j - 1);
            j -= 1;
        }
    }
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
