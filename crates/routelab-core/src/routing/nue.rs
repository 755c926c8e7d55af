//! Nue: deadlock-free oblivious routing within a given number of lanes
//! (Domke, Hoefler, Matsuoka, HPDC 2016; OpenSM's `nue`).
//!
//! DFSSSP routes first and then looks for lanes that break the cycles, so
//! it may need more lanes than a fabric has. Nue turns this around: it
//! routes *on* the channel dependency graph, never taking a dependency that
//! would close a cycle, and so fits in any number of lanes, one included.
//!
//! - Destinations are split into `max_lanes` layers, compact regions of
//!   the fabric (see [`partition`]). Every path to a destination uses its
//!   layer's lane.
//! - Each layer keeps a set `U` of dependencies in use, acyclic at all
//!   times. Before its first destination, `U` receives the dependencies of
//!   up*/down* routes on a spanning tree towards the layer's destination
//!   switches (the escape paths): a breadth-first tree from the median of
//!   those switches (OpenSM roots it at the most between one of their
//!   convex hull). The root matters: far from the
//!   layer's destinations, the escape dependencies cross the routes to
//!   them and block many (on an 8x8x8 torus with 8 layers, 293 of 512
//!   destinations fell back to escape paths with the fabric's central
//!   switch as every layer's root).
//! - Per destination, Dijkstra runs over the switches outwards from the
//!   switches that deliver to it, by channel weight. A switch `x` may take
//!   channel `x -> y` only if the dependency from it onto `y`'s channel is
//!   in `U` or can join it without a cycle (checked by a search in `U`,
//!   skipped when a union-find says the two channels are not connected); a
//!   dependency that would close a cycle is blocked for the rest of the
//!   layer. Each switch keeps one next hop, so the routes are a tree and the
//!   forwarding tables destination-based.
//! - A switch left without an acyclic way in is let in by local
//!   backtracking: a neighbour moves to another next hop whose
//!   dependencies (its children's onto it, its onto the next switch's, the
//!   stuck switch's onto it) all keep `U` acyclic.
//! - A destination that still leaves some switch without a way in is
//!   routed on the escape tree instead (up to the common ancestor, then
//!   down), whose dependencies are already in `U`; so Nue always succeeds.
//! - After each destination the weight of every channel grows by the routes
//!   now crossing it, as in SSSP, so later destinations spread out.
//!
//! Dependencies taken tentatively during a Dijkstra run and then superseded
//! are dropped at its end; blocked ones stay blocked (conservative, as in
//! OpenSM). Not built: OpenSM's shortcut discovery after backtracking and
//! its METIS partitioning; they change which paths are found, not deadlock
//! freedom. The number of destinations routed
//! on the escape tree is [`Routes::escape_routed`].

use super::fabric::{Capacity, Fabric, NONE};
use super::{Routes, RoutingEngine, RoutingError, RoutingOptions};
use crate::network::{ChannelId, Network};
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashSet, VecDeque};

pub struct Nue {
    lanes: u8,
    capacity: Capacity,
}

pub fn engine(o: &RoutingOptions) -> Box<dyn RoutingEngine> {
    Box::new(Nue {
        lanes: o.max_lanes,
        capacity: Capacity::of(o),
    })
}

impl RoutingEngine for Nue {
    fn name(&self) -> &'static str {
        "nue"
    }

    fn memory_bytes(&self, net: &Network) -> u64 {
        Routes::table_bytes(net) + Routes::switch_lane_bytes(net)
    }

    fn route(&self, net: &Network) -> Result<Routes, RoutingError> {
        super::canonical::by_guid(net, |n, _| self.route_listed(n))
    }
}

impl Nue {
    /// Routes `net` in the order it lists nodes and cables ([`Self::route`]
    /// gives it the canonical order, by GUID).
    fn route_listed(&self, net: &Network) -> Result<Routes, RoutingError> {
        let f = Fabric::balancing(net, self.name(), self.capacity)?;
        let mut routes = Routes::new(net, self.name());
        if f.t == 0 || f.main == NONE {
            return Ok(routes);
        }
        let layers = partition(&f, usize::from(self.lanes.max(1)));
        let sources = f.injecting_switches();
        let mut r = Router::new(&f);
        let mut escaped = 0u32;
        for (lane, dests) in layers.iter().enumerate() {
            r.start_layer(dests);

            for &d in dests {
                if !r.route(d) {
                    r.route_on_escape_tree(d);
                    escaped += 1;
                }
                r.finish(d, &mut routes);
                // A destination's layer is every source's lane towards it:
                // kept per injecting switch, not per pair of terminals.
                for &x in &sources {
                    routes.set_switch_lane(x, d, lane as u8);
                }
            }
        }
        routes.set_escape_routed(escaped);
        Ok(routes)
    }
}

/// The destinations of each layer: `k` seeds among the switches that
/// terminals inject into, each the farthest from those before (the first
/// being terminal 0's); then destinations join the layer of the nearest
/// seed that is not yet full (at most `ceil(T / k)` each), nearest pairs
/// first. The layers are compact regions of near-equal size, as METIS's
/// partitions are in OpenSM; fewer than `k` when fewer switches hold
/// terminals. Compact regions matter: on an 8x8x8 torus with 8 layers,
/// the shells of a breadth-first order left 155 of 512 destinations to
/// escape paths.
fn partition(f: &Fabric, k: usize) -> Vec<Vec<usize>> {
    let mut seeds = vec![f.inject[0] as usize];
    let mut from_seeds = vec![hops_from(f, seeds[0])];
    let mut nearest = from_seeds[0].clone();
    while seeds.len() < k {
        let far = (0..f.t)
            .map(|d| f.inject[d] as usize)
            .max_by_key(|&x| (nearest[x], Reverse(x)));
        match far {
            Some(x) if nearest[x] > 0 && nearest[x] != u32::MAX => {
                seeds.push(x);
                let h = hops_from(f, x);
                for (n, &v) in nearest.iter_mut().zip(&h) {
                    *n = (*n).min(v);
                }
                from_seeds.push(h);
            }
            _ => break,
        }
    }
    let cap = f.t.div_ceil(seeds.len());
    let mut pairs: Vec<(u32, usize, usize)> = (0..f.t)
        .flat_map(|d| {
            let x = f.inject[d] as usize;
            from_seeds
                .iter()
                .enumerate()
                .map(move |(i, h)| (h[x], d, i))
        })
        .collect();
    pairs.sort_unstable();
    let mut layer_of = vec![usize::MAX; f.t];
    let mut layers = vec![Vec::new(); seeds.len()];
    for (_, d, i) in pairs {
        if layer_of[d] == usize::MAX && layers[i].len() < cap {
            layer_of[d] = i;
            layers[i].push(d);
        }
    }
    for l in &mut layers {
        l.sort_unstable();
    }
    layers.retain(|l| !l.is_empty());
    layers
}

/// Hop distances between switches from `from`.
fn hops_from(f: &Fabric, from: usize) -> Vec<u32> {
    let mut dist = vec![u32::MAX; f.s];
    dist[from] = 0;
    let mut queue = VecDeque::from([from]);
    while let Some(x) = queue.pop_front() {
        for l in f.links(x) {
            let y = l.to as usize;
            if dist[y] == u32::MAX {
                dist[y] = dist[x] + 1;
                queue.push_back(y);
            }
        }
    }
    dist
}

/// The dependencies in use in one layer: channel `a` (into a switch) onto
/// channel `b` (out of it), kept acyclic.
struct Deps {
    out: Vec<Vec<u32>>,
    blocked: HashSet<(u32, u32)>,
    /// Union-find over channels: a superset of U's weak components.
    parent: Vec<u32>,
    /// Dependencies added during the current destination.
    wet: Vec<(u32, u32)>,
    seen: Vec<u32>,
    stamp: u32,
    stack: Vec<u32>,
}

impl Deps {
    fn new(channels: usize) -> Self {
        Deps {
            out: vec![Vec::new(); channels],
            blocked: HashSet::new(),
            parent: (0..channels as u32).collect(),
            wet: Vec::new(),
            seen: vec![0; channels],
            stamp: 0,
            stack: Vec::new(),
        }
    }

    fn reset(&mut self) {
        for o in &mut self.out {
            o.clear();
        }
        self.blocked.clear();
        for (i, p) in self.parent.iter_mut().enumerate() {
            *p = i as u32;
        }
        self.wet.clear();
    }

    fn find(&mut self, mut x: u32) -> u32 {
        while self.parent[x as usize] != x {
            let p = self.parent[x as usize];
            self.parent[x as usize] = self.parent[p as usize];
            x = p;
        }
        x
    }

    fn has(&self, a: u32, b: u32) -> bool {
        self.out[a as usize].contains(&b)
    }

    /// Adds `a => b` without a check (escape dependencies, acyclic by
    /// construction).
    fn insert(&mut self, a: u32, b: u32) {
        if !self.has(a, b) {
            self.out[a as usize].push(b);
            let (ra, rb) = (self.find(a), self.find(b));
            self.parent[ra as usize] = rb;
        }
    }

    /// Takes `a => b` if it is in use (`Some(false)`) or joins without
    /// closing a cycle (`Some(true)`, added tentatively); blocks it for the
    /// layer otherwise (`None`).
    fn take(&mut self, a: u32, b: u32) -> Option<bool> {
        if self.has(a, b) {
            return Some(false);
        }
        if self.blocked.contains(&(a, b)) {
            return None;
        }
        let (ra, rb) = (self.find(a), self.find(b));
        if ra == rb && self.reaches(b, a) {
            self.blocked.insert((a, b));
            return None;
        }
        self.out[a as usize].push(b);
        self.parent[ra as usize] = rb;
        self.wet.push((a, b));
        Some(true)
    }

    /// Drops a tentative dependency that a better one superseded.
    fn drop_tentative(&mut self, a: u32, b: u32) {
        self.out[a as usize].retain(|&x| x != b);
    }

    /// Whether a path of dependencies leads from `from` to `to`.
    fn reaches(&mut self, from: u32, to: u32) -> bool {
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            self.seen.fill(0);
            self.stamp = 1;
        }
        self.stack.clear();
        self.stack.push(from);
        self.seen[from as usize] = self.stamp;
        while let Some(c) = self.stack.pop() {
            if c == to {
                return true;
            }
            for i in 0..self.out[c as usize].len() {
                let n = self.out[c as usize][i];
                if self.seen[n as usize] != self.stamp {
                    self.seen[n as usize] = self.stamp;
                    self.stack.push(n);
                }
            }
        }
        false
    }

    /// Drops this destination's tentative dependencies that `keep` does not
    /// hold (removing dependencies cannot close a cycle).
    fn dry(&mut self, keep: &HashSet<(u32, u32)>) {
        for (a, b) in std::mem::take(&mut self.wet) {
            if !keep.contains(&(a, b)) {
                self.out[a as usize].retain(|&x| x != b);
            }
        }
    }
}

struct Router<'f, 'n> {
    f: &'f Fabric<'n>,
    weight: Vec<u64>,
    deps: Deps,
    dist: Vec<u64>,
    done: Vec<bool>,
    /// Per switch: the channel it forwards on for the current destination.
    next: Vec<u32>,
    /// Per switch: the dependency its current choice added in this run.
    tentative: Vec<Option<(u32, u32)>>,
    /// The escape tree: per switch its channel to its parent (`NONE` at the
    /// root), children, and the layer's delivering switches below.
    up: Vec<u32>,
    children: Vec<Vec<u32>>,
    needed: Vec<bool>,
}

impl<'f, 'n> Router<'f, 'n> {
    fn new(f: &'f Fabric<'n>) -> Self {
        let t = f.t as u64;
        let c = f.net.channel_count();
        Router {
            f,
            weight: vec![f.max_cost() * t * t + 1; c],
            deps: Deps::new(c),
            dist: vec![u64::MAX; f.s],
            done: vec![false; f.s],
            next: vec![NONE; f.s],
            tentative: vec![None; f.s],
            up: vec![NONE; f.s],
            children: vec![Vec::new(); f.s],
            needed: vec![false; f.s],
        }
    }

    /// A fresh dependency set holding the escape paths of a layer.
    fn start_layer(&mut self, dests: &[usize]) {
        let f = self.f;
        self.deps.reset();
        self.needed.fill(false);
        for &d in dests {
            for k in f.sinks(d) {
                self.needed[k.switch as usize] = true;
            }
        }
        // The tree: breadth-first from the median of the layer's
        // delivering switches. Rooted among them, the escape dependencies
        // point the way routes to them go; rooted far away, they cross
        // those routes and block them. Fewest hops, not the channel
        // weights: a tree bent towards the lightest channels lies across
        // where the layer's routes go next (on an 8x8x8 torus with two
        // lanes 197 of 512 destinations fell back to escape paths with
        // the weighted tree, 68 with this one).
        let root = self.median(&self.needed.clone());
        self.up.fill(NONE);
        for c in &mut self.children {
            c.clear();
        }
        let mut dist = vec![u64::MAX; f.s];
        let mut order = Vec::with_capacity(f.s);
        let mut heap = BinaryHeap::from([Reverse((0u64, root as u32))]);
        dist[root] = 0;
        while let Some(Reverse((dx, x))) = heap.pop() {
            let x = x as usize;
            if dx != dist[x] {
                continue;
            }
            order.push(x);
            for l in f.links(x) {
                let y = l.to as usize;
                // y's way up is y -> x.
                let c = l.ch.reverse();
                let nd = dx + 1;
                if nd < dist[y] {
                    dist[y] = nd;
                    self.up[y] = c.0;
                    heap.push(Reverse((nd, y as u32)));
                }
            }
        }
        for &x in &order {
            if self.up[x] != NONE {
                let p = self.parent_of(x);
                self.children[p].push(x as u32);
            }
        }
        for &x in order.iter().rev() {
            if self.needed[x] && self.up[x] != NONE {
                let p = self.parent_of(x);
                self.needed[p] = true;
            }
        }
        // Up, turn and down dependencies of every up*/down* route on the
        // tree that ends at a delivering switch of the layer.
        for &x in &order {
            if self.up[x] == NONE {
                continue;
            }
            let p = self.parent_of(x);
            let climb = self.up[x];
            if self.up[p] != NONE {
                self.deps.insert(climb, self.up[p]);
            }
            for i in 0..self.children[p].len() {
                let c = self.children[p][i] as usize;
                if c != x && self.needed[c] {
                    self.deps.insert(climb, self.down(c));
                }
            }
            for i in 0..self.children[x].len() {
                let c = self.children[x][i] as usize;
                if self.needed[c] {
                    self.deps.insert(self.down(x), self.down(c));
                }
            }
        }
    }

    /// The switch of the terminals' component with the smallest total hop
    /// distance to the `marked` ones (ties to the lowest index).
    fn median(&self, marked: &[bool]) -> usize {
        let f = self.f;
        let mut total = vec![0u64; f.s];
        let mut dist = vec![u32::MAX; f.s];
        let mut queue = VecDeque::new();
        for m in (0..f.s).filter(|&m| marked[m]) {
            dist.fill(u32::MAX);
            dist[m] = 0;
            queue.push_back(m);
            while let Some(x) = queue.pop_front() {
                total[x] += u64::from(dist[x]);
                for l in f.links(x) {
                    let y = l.to as usize;
                    if dist[y] == u32::MAX {
                        dist[y] = dist[x] + 1;
                        queue.push_back(y);
                    }
                }
            }
        }
        (0..f.s)
            .filter(|&x| f.in_main(x))
            .min_by_key(|&x| (total[x], x))
            .unwrap_or(0)
    }

    fn parent_of(&self, x: usize) -> usize {
        let ch = self.f.net.channel(ChannelId(self.up[x]));
        self.f.net.kind_index(ch.dst)
    }

    /// The tree channel from `x`'s parent down to `x`.
    fn down(&self, x: usize) -> u32 {
        ChannelId(self.up[x]).reverse().0
    }

    /// Dijkstra on the dependency graph towards `d`; false when a switch of
    /// the terminals' component has no acyclic way to it.
    fn route(&mut self, d: usize) -> bool {
        let f = self.f;
        self.dist.fill(u64::MAX);
        self.done.fill(false);
        self.next.fill(NONE);
        self.tentative.fill(None);
        let mut heap = BinaryHeap::new();
        for k in f.sinks(d) {
            self.dist[k.switch as usize] = 0;
            heap.push(Reverse((0u64, k.switch)));
        }
        loop {
            self.expand(&mut heap);
            if (0..f.s).all(|x| !f.in_main(x) || self.done[x]) {
                return true;
            }
            if !self.backtrack(&mut heap) {
                return false;
            }
        }
    }

    /// Dijkstra from the switches in `heap` until it runs dry.
    fn expand(&mut self, heap: &mut BinaryHeap<Reverse<(u64, u32)>>) {
        let f = self.f;
        while let Some(Reverse((dy, y))) = heap.pop() {
            let y = y as usize;
            if dy != self.dist[y] || self.done[y] {
                continue;
            }
            self.done[y] = true;
            let onward = self.next[y];
            for l in f.links(y) {
                let x = l.to as usize;
                if self.done[x] {
                    continue;
                }
                // x forwards on x -> y, then y on `onward`.
                let c = l.ch.reverse();
                let nd = dy + self.weight[c.index()];
                if nd >= self.dist[x] {
                    continue;
                }
                let fresh = if onward == NONE {
                    false
                } else {
                    match self.deps.take(c.0, onward) {
                        Some(fresh) => fresh,
                        None => continue,
                    }
                };
                // The dependency x's previous choice added is no longer needed.
                if let Some((a, b)) = self.tentative[x].take() {
                    self.deps.drop_tentative(a, b);
                }
                if fresh {
                    self.tentative[x] = Some((c.0, onward));
                }
                self.dist[x] = nd;
                self.next[x] = c.0;
                heap.push(Reverse((nd, x as u32)));
            }
        }
    }

    /// Local backtracking (Domke's dissertation, Alg. 6.5): a switch `u`
    /// no neighbour can take is let in through a neighbour `a` that moves
    /// to another next hop `a -> x`, if the dependencies of `a`'s children
    /// onto it, of it onto `x`'s, and of `u -> a` onto it all keep `U`
    /// acyclic. The first such move (shortest new distance of `a` first)
    /// is made and Dijkstra resumes from `u`; false when none exists.
    fn backtrack(&mut self, heap: &mut BinaryHeap<Reverse<(u64, u32)>>) -> bool {
        let f = self.f;
        for u in 0..f.s {
            if !f.in_main(u) || self.done[u] {
                continue;
            }
            // (new distance of a, u -> a, a -> x)
            let mut cands: Vec<(u64, u32, u32)> = Vec::new();
            for l in f.links(u) {
                let a = l.to as usize;
                if !self.done[a] || self.next[a] == NONE {
                    continue;
                }
                for l2 in f.links(a) {
                    let x = l2.to as usize;
                    if x == u || !self.done[x] || l2.ch.0 == self.next[a] {
                        continue;
                    }
                    cands.push((self.dist[x] + self.weight[l2.ch.index()], l.ch.0, l2.ch.0));
                }
            }
            cands.sort_unstable();
            for (da, new, c) in cands {
                if self.try_move(new, c) {
                    let a = f.net.kind_index(f.net.channel(ChannelId(new)).dst);
                    self.next[a] = c;
                    self.dist[a] = da;
                    self.next[u] = new;
                    self.dist[u] = da + self.weight[new as usize];
                    heap.push(Reverse((self.dist[u], u as u32)));
                    return true;
                }
            }
        }
        false
    }

    /// Takes the dependencies of moving `a` (the head of `new`) to forward
    /// on `c` and of `new` onto it; on any refusal undoes the ones it added.
    fn try_move(&mut self, new: u32, c: u32) -> bool {
        let f = self.f;
        let a = f.net.kind_index(f.net.channel(ChannelId(c)).src);
        let x = f.net.kind_index(f.net.channel(ChannelId(c)).dst);
        let mut pairs: Vec<(u32, u32)> = Vec::new();
        if self.next[x] != NONE {
            if self.next[x] == ChannelId(c).reverse().0 {
                return false;
            }
            pairs.push((c, self.next[x]));
        }
        // a's children: switches forwarding into a.
        for l in f.links(a) {
            let w = l.to as usize;
            let into_a = l.ch.reverse().0;
            if self.next[w] == into_a {
                if ChannelId(c).reverse().0 == into_a {
                    return false;
                }
                pairs.push((into_a, c));
            }
        }
        pairs.push((new, c));
        let mut added = Vec::new();
        for (p, q) in pairs {
            match self.deps.take(p, q) {
                Some(fresh) => {
                    if fresh {
                        added.push((p, q));
                    }
                }
                None => {
                    for (p, q) in added {
                        self.deps.drop_tentative(p, q);
                    }
                    return false;
                }
            }
        }
        true
    }

    /// Routes `d` on the escape tree: up to the first switch on the way
    /// from the delivering switch to the root, then down to it.
    fn route_on_escape_tree(&mut self, d: usize) {
        let f = self.f;
        let s = f.inject[d] as usize;
        self.next.fill(NONE);
        // The path from s up to the root: each ancestor goes down towards s.
        let mut x = s;
        while self.up[x] != NONE {
            let p = self.parent_of(x);
            self.next[p] = self.down(x);
            x = p;
        }
        for y in 0..f.s {
            // Switches off the path climb.
            if y != s && self.next[y] == NONE && self.up[y] != NONE {
                self.next[y] = self.up[y];
            }
        }
    }

    /// Writes `d`'s table entries, keeps its dependencies, and weighs its
    /// routes into the channels.
    fn finish(&mut self, d: usize, routes: &mut Routes) {
        let f = self.f;
        let t = f.t;
        let mut keep = HashSet::new();
        for x in 0..f.s {
            if let Some(p) = f.sink_port(x, d) {
                routes.table[x * t + d] = p.0;
                continue;
            }
            if self.next[x] == NONE {
                continue;
            }
            let ch = f.net.channel(ChannelId(self.next[x]));
            routes.table[x * t + d] = ch.src_port.0;
            let y = f.net.kind_index(ch.dst);
            if f.sink_port(y, d).is_none() && self.next[y] != NONE {
                keep.insert((self.next[x], self.next[y]));
            }
        }
        self.deps.dry(&keep);
        // Routes crossing each channel: every injecting switch's terminals
        // (but d) walk their path.
        for x in 0..f.s {
            let n = u64::from(f.injecting[x]) - u64::from(f.inject[d] as usize == x);
            if n == 0 {
                continue;
            }
            let mut y = x;
            for _ in 0..f.s {
                if f.sink_port(y, d).is_some() || self.next[y] == NONE {
                    break;
                }
                let c = self.next[y] as usize;
                self.weight[c] += n * f.cost(ChannelId(c as u32));
                y = f.net.kind_index(f.net.channel(ChannelId(c as u32)).dst);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::network::spec;

    #[test]
    fn layers_are_nonempty_regions() {
        let net = spec::build("torus:4x4").unwrap();
        let f = Fabric::new(&net, "nue").unwrap();
        for k in [1, 3, 8, 40] {
            let layers = partition(&f, k);
            assert_eq!(layers.len(), k.min(16));
            // Near-equal sizes.
            let cap = 16usize.div_ceil(k.min(16));
            assert!(layers.iter().all(|l| l.len() <= cap), "{layers:?}");
            assert!(layers.iter().all(|l| !l.is_empty()));
            let mut all: Vec<usize> = layers.concat();
            all.sort_unstable();
            assert_eq!(all, (0..16).collect::<Vec<_>>());
        }
    }

    #[test]
    fn a_dependency_closing_a_cycle_is_blocked() {
        let mut u = Deps::new(4);
        assert_eq!(
            (u.take(0, 1), u.take(1, 2), u.take(2, 3)),
            (Some(true), Some(true), Some(true))
        );
        assert_eq!(u.take(1, 2), Some(false));
        assert_eq!(u.take(3, 0), None);
        assert!(u.blocked.contains(&(3, 0)));
        // Dropping the tentative ones opens the way again, but blocked stays.
        u.dry(&HashSet::new());
        assert_eq!(u.take(3, 0), None);
        assert_eq!(u.take(3, 1), Some(true));
    }

    /// More lanes give shorter paths: on an 8x8x8 torus two lanes beat
    /// one and few destinations fall back to escape paths (with an escape
    /// tree bent towards light channels, 197 of 512 did and paths grew
    /// from 6.90 to 7.55 hops).
    #[test]
    fn a_second_lane_shortens_the_paths_of_a_torus() {
        let net = crate::network::spec::build("torus:8x8x8").unwrap();
        let route = |lanes: u8| {
            Nue {
                lanes,
                capacity: Capacity::default(),
            }
            .route(&net)
            .map(|r| (r.escape_routed().unwrap_or(0), r.avg_hops(&net).unwrap()))
            .unwrap()
        };
        let (one, two) = (route(1), route(2));
        assert!(two.1 < one.1, "{one:?} {two:?}");
        assert!(two.0 < 100, "{two:?}");
    }
}
