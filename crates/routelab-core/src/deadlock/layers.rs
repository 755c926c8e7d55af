//! Virtual-layer assignment: split a set of paths into layers whose channel
//! dependency graphs are acyclic (the acyclic path partitioning problem of
//! Domke et al. 2011, NP-complete, so heuristics).
//!
//! - Offline (Algorithm 2 of the paper): put every path in layer 0, search
//!   the layer's CDG for a cycle, break it by moving every path that induces
//!   one chosen dependency of the cycle to the next layer, resume the search
//!   where it stopped; when a layer is acyclic, go on with the next one.
//!   Which dependency is broken is the [`Heuristic`]: the `weakest` (fewest
//!   paths, the paper's choice), the `heaviest` (most paths) or the `first`
//!   one the search discovered.
//! - Online: give each path in turn the first layer it fits in without
//!   closing a cycle ([`IncrementalCdg`], with an incrementally maintained
//!   topological order so most insertions cost O(1)).
//!
//! [`spread_layers`] then spreads the paths of each used layer over spare
//! layers (any subset of an acyclic layer is acyclic), as the paper's
//! balancing step does, giving each layer spare lanes in proportion to its
//! paths (OpenSM's apportionment).

use super::cdg::Turns;
use super::{DeadlockError, PathList};
use crate::network::ChannelId;

const NONE: u32 = u32::MAX;
const WHITE: u8 = 0;
const GRAY: u8 = 1;
const BLACK: u8 = 2;

/// The heuristics stop after this many layers and report "at least".
pub const GIVE_UP_LAYERS: u32 = 64;

/// How cycles are broken.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Heuristic {
    /// Offline: move the paths of the cycle's dependency induced by the fewest
    /// paths (the paper's best heuristic).
    #[default]
    Weakest,
    /// Offline: move the paths of the dependency induced by the most paths,
    /// hoping to break cycles not found yet.
    Heaviest,
    /// Offline: move the paths of the first dependency of the cycle the
    /// search discovered.
    First,
    /// Online: each path goes to the first layer where it closes no cycle.
    Online,
}

impl Heuristic {
    pub const ALL: [Heuristic; 4] = [
        Heuristic::Weakest,
        Heuristic::Heaviest,
        Heuristic::First,
        Heuristic::Online,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Heuristic::Weakest => "weakest",
            Heuristic::Heaviest => "heaviest",
            Heuristic::First => "first",
            Heuristic::Online => "online",
        }
    }

    pub fn parse(s: &str) -> Option<Heuristic> {
        Heuristic::ALL.into_iter().find(|h| h.name() == s)
    }

    /// The valid names, comma-separated.
    pub fn names() -> String {
        Heuristic::ALL.map(|h| h.name()).join(", ")
    }
}

/// The layer of each path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LayerAssignment {
    /// `layer[i]` is the layer of path `i`.
    pub layer: Vec<u8>,
    /// The number of layers used (highest layer plus one; 0 without paths).
    pub layers: u8,
}

/// Paths as sequences of turn ids.
struct TurnPaths {
    base: Vec<usize>,
    turns: Vec<u32>,
}

impl TurnPaths {
    fn new(net: &crate::Network, index: &Turns, paths: &PathList) -> Result<Self, DeadlockError> {
        if index.len() >= NONE as usize {
            return Err(DeadlockError::TooLarge {
                what: format!("{} turns; at most {}", index.len(), NONE - 1),
            });
        }
        let mut base = Vec::with_capacity(paths.len() + 1);
        let mut turns = Vec::with_capacity(paths.total_hops());
        base.push(0);
        for (i, p) in paths.iter().enumerate() {
            index.check_path(net, i, p)?;
            turns.extend(
                p.windows(2)
                    .filter_map(|w| index.turn(w[0], w[1]))
                    .map(|t| t as u32),
            );
            base.push(turns.len());
        }
        Ok(TurnPaths { base, turns })
    }

    fn len(&self) -> usize {
        self.base.len() - 1
    }

    #[inline]
    fn get(&self, i: usize) -> &[u32] {
        &self.turns[self.base[i]..self.base[i + 1]]
    }
}

/// Assigns every path a layer so that each layer's CDG is acyclic, using at
/// most `limit` layers. Paths must not forward through terminals.
pub fn assign_layers(
    net: &crate::Network,
    paths: &PathList,
    heuristic: Heuristic,
    limit: u8,
) -> Result<LayerAssignment, DeadlockError> {
    let index = Turns::new(net);
    let (layer, used, gave_up) = match heuristic {
        Heuristic::Online => online(&index, paths, net)?,
        _ => {
            let tp = TurnPaths::new(net, &index, paths)?;
            offline(&index, &tp, heuristic)
        }
    };
    layer_assignment(layer, used, gave_up, heuristic, limit)
}

/// [`assign_layers`] of paths it may drop once read: the offline
/// heuristics work on the turns of each path, and the paths themselves
/// (1.2 GB for the 60 million switch paths of 46,656 endpoints) go before
/// the cycle breaking allocates its own tables.
pub fn assign_layers_owned(
    net: &crate::Network,
    paths: PathList,
    heuristic: Heuristic,
    limit: u8,
) -> Result<LayerAssignment, DeadlockError> {
    if heuristic == Heuristic::Online {
        return assign_layers(net, &paths, heuristic, limit);
    }
    let index = Turns::new(net);
    let tp = TurnPaths::new(net, &index, &paths)?;
    drop(paths);
    let (layer, used, gave_up) = offline(&index, &tp, heuristic);
    layer_assignment(layer, used, gave_up, heuristic, limit)
}

fn layer_assignment(
    layer: Vec<u8>,
    used: u32,
    gave_up: bool,
    heuristic: Heuristic,
    limit: u8,
) -> Result<LayerAssignment, DeadlockError> {
    if gave_up || used > u32::from(limit) {
        return Err(DeadlockError::LayersExceeded {
            needed: used,
            at_least: gave_up,
            limit,
            heuristic: heuristic.name(),
        });
    }
    Ok(LayerAssignment {
        layer,
        layers: used as u8,
    })
}

/// Offline cycle breaking. Returns the layers, the number used and whether
/// it gave up (then the number is a lower bound).
fn offline(index: &Turns, tp: &TurnPaths, heuristic: Heuristic) -> (Vec<u8>, u32, bool) {
    let p = tp.len();
    let nt = index.len();
    let mut layer = vec![0u8; p];
    let mut count = vec![0u32; nt];
    let mut users_base = vec![0usize; nt + 1];
    let mut users: Vec<u32> = Vec::new();
    let mut l: u32 = 0;
    loop {
        let members: Vec<u32> = (0..p as u32)
            .filter(|&i| u32::from(layer[i as usize]) == l)
            .collect();
        if members.is_empty() {
            return (layer, l, false);
        }
        if l + 1 >= GIVE_UP_LAYERS {
            return (layer, GIVE_UP_LAYERS, true);
        }
        count.fill(0);
        for &m in &members {
            for &t in tp.get(m as usize) {
                count[t as usize] += 1;
            }
        }
        users_base[0] = 0;
        for t in 0..nt {
            users_base[t + 1] = users_base[t] + count[t] as usize;
        }
        users.clear();
        users.resize(users_base[nt], 0);
        let mut fill = users_base.clone();
        for &m in &members {
            for &t in tp.get(m as usize) {
                users[fill[t as usize]] = m;
                fill[t as usize] += 1;
            }
        }
        let mut layer_state = Layer {
            index,
            tp,
            l: l as u8,
            layer: &mut layer,
            count: &mut count,
            users_base: &users_base,
            users: &users,
        };
        layer_state.break_cycles(heuristic);
        l += 1;
    }
}

/// One layer being made acyclic.
struct Layer<'a> {
    index: &'a Turns,
    tp: &'a TurnPaths,
    l: u8,
    layer: &'a mut [u8],
    count: &'a mut [u32],
    users_base: &'a [usize],
    users: &'a [u32],
}

#[derive(Clone, Copy)]
struct Frame {
    ch: u32,
    next: u32,
    /// The turn that led here (NONE at a root).
    entry: u32,
}

impl Layer<'_> {
    /// Moves every path of this layer inducing turn `t` to the next layer.
    fn evict(&mut self, t: usize) {
        for &p in &self.users[self.users_base[t]..self.users_base[t + 1]] {
            let p = p as usize;
            if self.layer[p] == self.l {
                self.layer[p] = self.l + 1;
                for &u in self.tp.get(p) {
                    self.count[u as usize] -= 1;
                }
            }
        }
    }

    fn choose(&self, cycle: &[u32], heuristic: Heuristic) -> usize {
        let c = |t: &&u32| self.count[**t as usize];
        let t = match heuristic {
            // Ties go to the earliest dependency of the cycle (max_by_key
            // returns the last maximum, hence rev()).
            Heuristic::Heaviest => cycle.iter().rev().max_by_key(c),
            Heuristic::First => cycle.first(),
            _ => cycle.iter().min_by_key(c),
        };
        *t.expect("a cycle has at least one dependency") as usize
    }

    /// Depth-first search over the layer's CDG (nodes: channels, edges: turns
    /// with a positive count), breaking each cycle found and resuming.
    fn break_cycles(&mut self, heuristic: Heuristic) {
        let c = self.index.channel_count();
        let mut color = vec![WHITE; c];
        let mut pos = vec![0u32; c];
        let mut stack: Vec<Frame> = Vec::new();
        let mut revisit: Vec<u32> = Vec::new();
        let mut cycle: Vec<u32> = Vec::new();
        let mut next_root = 0usize;
        loop {
            let root = loop {
                if let Some(r) = revisit.pop() {
                    if color[r as usize] == WHITE {
                        break Some(r);
                    }
                    continue;
                }
                if next_root >= c {
                    break None;
                }
                let r = next_root;
                next_root += 1;
                if color[r] == WHITE && self.index.is_switch_channel(ChannelId(r as u32)) {
                    break Some(r as u32);
                }
            };
            let Some(root) = root else { return };
            color[root as usize] = GRAY;
            pos[root as usize] = 0;
            stack.push(Frame {
                ch: root,
                next: 0,
                entry: NONE,
            });
            while let Some(&top) = stack.last() {
                let (first, targets) = self.index.row(ChannelId(top.ch));
                let j = top.next as usize;
                if j >= targets.len() {
                    color[top.ch as usize] = BLACK;
                    stack.pop();
                    continue;
                }
                stack.last_mut().unwrap().next += 1;
                let t = first + j;
                if self.count[t] == 0 {
                    continue;
                }
                let b = targets[j].index();
                match color[b] {
                    WHITE => {
                        color[b] = GRAY;
                        pos[b] = stack.len() as u32;
                        stack.push(Frame {
                            ch: b as u32,
                            next: 0,
                            entry: t as u32,
                        });
                    }
                    GRAY => {
                        let k0 = pos[b] as usize;
                        cycle.clear();
                        cycle.extend(stack[k0 + 1..].iter().map(|f| f.entry));
                        cycle.push(t as u32);
                        let victim = self.choose(&cycle, heuristic);
                        self.evict(victim);
                        // Edges on the stack may have vanished with the moved
                        // paths: unwind to the first broken one; the nodes
                        // above it become unvisited again.
                        if let Some(k) =
                            (1..stack.len()).find(|&k| self.count[stack[k].entry as usize] == 0)
                        {
                            for f in stack.drain(k..) {
                                color[f.ch as usize] = WHITE;
                                revisit.push(f.ch);
                            }
                        }
                    }
                    _ => {}
                }
            }
        }
    }
}

/// The online variant: each path goes to the first layer it fits.
fn online(
    index: &Turns,
    paths: &PathList,
    net: &crate::Network,
) -> Result<(Vec<u8>, u32, bool), DeadlockError> {
    let mut layer = vec![0u8; paths.len()];
    let mut cdgs: Vec<IncrementalCdg> = Vec::new();
    for (i, p) in paths.iter().enumerate() {
        index.check_path(net, i, p)?;
        let mut l = 0usize;
        loop {
            if l as u32 >= GIVE_UP_LAYERS - 1 {
                return Ok((layer, GIVE_UP_LAYERS, true));
            }
            if l == cdgs.len() {
                cdgs.push(IncrementalCdg::new(index));
            }
            if cdgs[l].try_add(index, p) {
                break;
            }
            l += 1;
        }
        layer[i] = l as u8;
    }
    let used = layer.iter().max().map_or(0, |&m| u32::from(m) + 1);
    Ok((layer, used, false))
}

/// The CDG of one layer (nodes: channels on a single lane), grown path by
/// path. Keeps a topological order of the channels (Pearce and Kelly's
/// dynamic topological sort), so adding a dependency that agrees with the
/// order costs O(1) and only the affected region is searched otherwise.
#[derive(Debug, Clone)]
pub struct IncrementalCdg {
    /// Paths inducing each turn.
    count: Vec<u32>,
    /// Position of each channel in the topological order.
    ord: Vec<u32>,
    mark: Vec<u32>,
    epoch: u32,
    fwd: Vec<u32>,
    bwd: Vec<u32>,
    stack: Vec<u32>,
}

impl IncrementalCdg {
    pub fn new(index: &Turns) -> Self {
        let c = index.channel_count();
        IncrementalCdg {
            count: vec![0; index.len()],
            ord: (0..c as u32).collect(),
            mark: vec![0; c],
            epoch: 0,
            fwd: Vec::new(),
            bwd: Vec::new(),
            stack: Vec::new(),
        }
    }

    /// The number of paths inducing the dependency from `a` into `b`.
    pub fn paths_through(&self, index: &Turns, a: ChannelId, b: ChannelId) -> u32 {
        index.turn(a, b).map_or(0, |t| self.count[t])
    }

    /// Adds the dependencies of `path` unless that would close a cycle.
    /// Returns whether the path was added (if not, the graph is unchanged).
    /// The path must be contiguous and must not forward through terminals
    /// ([`Turns::check_path`]).
    pub fn try_add(&mut self, index: &Turns, path: &[ChannelId]) -> bool {
        for k in 1..path.len() {
            let (a, b) = (path[k - 1], path[k]);
            let Some(t) = index.turn(a, b) else { continue };
            self.count[t] += 1;
            if self.count[t] == 1 && !self.insert(index, a, b) {
                self.remove(index, &path[..=k]);
                return false;
            }
        }
        true
    }

    /// Removes the dependencies of a path added before.
    pub fn remove(&mut self, index: &Turns, path: &[ChannelId]) {
        for w in path.windows(2) {
            if let Some(t) = index.turn(w[0], w[1]) {
                self.count[t] -= 1;
            }
        }
    }

    fn next_epoch(&mut self) -> u32 {
        if self.epoch == u32::MAX {
            self.mark.fill(0);
            self.epoch = 0;
        }
        self.epoch += 1;
        self.epoch
    }

    /// Restores the topological order after the new edge `x -> y`; false if
    /// the edge closes a cycle.
    fn insert(&mut self, index: &Turns, x: ChannelId, y: ChannelId) -> bool {
        if x == y {
            return false;
        }
        let (ox, oy) = (self.ord[x.index()], self.ord[y.index()]);
        if ox < oy {
            return true;
        }
        // Forward from y through nodes ordered before x.
        let e = self.next_epoch();
        self.fwd.clear();
        self.stack.clear();
        self.stack.push(y.0);
        self.mark[y.index()] = e;
        while let Some(w) = self.stack.pop() {
            self.fwd.push(w);
            let (first, targets) = index.row(ChannelId(w));
            for (k, &s) in targets.iter().enumerate() {
                if self.count[first + k] == 0 {
                    continue;
                }
                if s == x {
                    return false;
                }
                let si = s.index();
                if self.mark[si] != e && self.ord[si] < ox {
                    self.mark[si] = e;
                    self.stack.push(s.0);
                }
            }
        }
        // Backward from x through nodes ordered after y.
        let e = self.next_epoch();
        self.bwd.clear();
        self.stack.push(x.0);
        self.mark[x.index()] = e;
        while let Some(w) = self.stack.pop() {
            self.bwd.push(w);
            let (first, stride, sources) = index.column(ChannelId(w));
            for (k, &o) in sources.iter().enumerate() {
                if self.count[first + k * stride] == 0 {
                    continue;
                }
                let p = o.reverse();
                let pi = p.index();
                if self.mark[pi] != e && self.ord[pi] > oy {
                    self.mark[pi] = e;
                    self.stack.push(p.0);
                }
            }
        }
        // Reorder: the backward set before the forward set, in the same slots.
        let ord = &mut self.ord;
        self.fwd.sort_unstable_by_key(|&w| ord[w as usize]);
        self.bwd.sort_unstable_by_key(|&w| ord[w as usize]);
        let mut slots: Vec<u32> = self
            .bwd
            .iter()
            .chain(self.fwd.iter())
            .map(|&w| ord[w as usize])
            .collect();
        slots.sort_unstable();
        for (&w, &s) in self.bwd.iter().chain(self.fwd.iter()).zip(&slots) {
            ord[w as usize] = s;
        }
        true
    }
}

/// Spreads the paths of the `used` layers over the spare layers up to
/// `limit`, in proportion to the paths per layer as OpenSM's dfsssp
/// balances its virtual lanes: each spare layer in turn goes to the used
/// layer with the most paths per layer it already has (the lowest index on
/// a tie), and each used layer deals its paths round-robin over itself and
/// its share. Every layer stays acyclic (a subset of an acyclic layer is
/// acyclic). Returns the number of layers in use afterwards (highest used
/// plus one): a layer that is given more lanes than it has paths leaves
/// some empty.
pub fn spread_layers(layer: &mut [u8], used: u8, limit: u8) -> u8 {
    let share = spread_shares(layer, used, limit);
    let u = share.len();
    // Layer i keeps itself and spare layers first[i] .. first[i] + share[i].
    let mut first = vec![0usize; u];
    let mut next = u;
    for i in 0..u {
        first[i] = next;
        next += share[i];
    }
    let mut dealt = vec![0usize; u];
    let mut top = 0u8;
    for l in layer.iter_mut() {
        let i = *l as usize;
        if i >= u {
            continue;
        }
        let g = dealt[i] % (1 + share[i]);
        dealt[i] += 1;
        if g > 0 {
            *l = (first[i] + g - 1) as u8;
        }
        top = top.max(*l + 1);
    }
    top
}

/// The spare layers each of the `used` layers gets (see [`spread_layers`]):
/// none when `used` already reaches `limit`.
pub fn spread_shares(layer: &[u8], used: u8, limit: u8) -> Vec<usize> {
    let u = used as usize;
    let mut share = vec![0usize; u];
    if used == 0 || used >= limit {
        return share;
    }
    let mut paths = vec![0u64; u];
    for &l in layer {
        if let Some(p) = paths.get_mut(l as usize) {
            *p += 1;
        }
    }
    for _ in used..limit {
        // Most paths per lane: compare p_i / (1 + s_i) exactly by cross
        // multiplication.
        let mut best = 0;
        for i in 1..u {
            let (a, b) = (
                paths[i] * (1 + share[best] as u64),
                paths[best] * (1 + share[i] as u64),
            );
            if a > b {
                best = i;
            }
        }
        share[best] += 1;
    }
    share
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::deadlock::{verify, PathRef};
    use crate::network::build::torus;
    use crate::network::{Network, NodeId};

    /// All clockwise paths of `len` hops on a ring of `k` switches.
    fn ring_paths(net: &Network, k: u32, len: usize) -> PathList {
        let mut pl = PathList::new();
        for s in 0..k {
            let mut p = vec![];
            let mut x = s;
            for _ in 0..len {
                p.push(net.channel_at(NodeId(x), torus::dim_port(0, true)).unwrap());
                x = (x + 1) % k;
            }
            pl.push(&p);
        }
        pl
    }

    fn check(net: &Network, paths: &PathList, a: &LayerAssignment) {
        let r = verify(
            net,
            paths
                .iter()
                .zip(&a.layer)
                .map(|(p, &l)| PathRef::uniform(p, l)),
        )
        .unwrap();
        assert!(r.deadlock_free, "{r}");
    }

    #[test]
    fn every_heuristic_breaks_a_ring() {
        let net = torus::torus(&[6], 1).unwrap();
        let paths = ring_paths(&net, 6, 3);
        for h in Heuristic::ALL {
            let a = assign_layers(&net, &paths, h, 8).unwrap();
            assert_eq!(a.layers, 2, "{}", h.name());
            check(&net, &paths, &a);
            let e = assign_layers(&net, &paths, h, 1).unwrap_err();
            assert!(
                e.to_string().contains("needs 2 lanes") && e.to_string().contains("limit is 1"),
                "{e}"
            );
        }
    }

    #[test]
    fn spreading_keeps_layers_acyclic() {
        let net = torus::torus(&[7], 1).unwrap();
        let paths = ring_paths(&net, 7, 3);
        let mut a = assign_layers(&net, &paths, Heuristic::Weakest, 8).unwrap();
        let n = spread_layers(&mut a.layer, a.layers, 5);
        assert_eq!(n, 5);
        assert!(a.layer.iter().all(|&l| l < 5));
        check(&net, &paths, &a);
    }

    proptest::proptest! {
        #[test]
        fn shares_are_proportional(
            counts in proptest::collection::vec(0usize..60, 1..6),
            spare in 0u8..10,
        ) {
            // Every spare lane is given, and none could move to another
            // layer and leave that one with more paths per lane than the
            // layer it left (D'Hondt's condition: p_i / (1 + s_i) <= p_j / s_j).
            let used = counts.len() as u8;
            let layer: Vec<u8> = counts
                .iter()
                .enumerate()
                .flat_map(|(i, &n)| std::iter::repeat_n(i as u8, n))
                .collect();
            let share = spread_shares(&layer, used, used + spare);
            proptest::prop_assert_eq!(share.iter().sum::<usize>(), spare as usize);
            for (i, &pi) in counts.iter().enumerate() {
                for (j, &pj) in counts.iter().enumerate() {
                    if share[j] > 0 {
                        proptest::prop_assert!(pi * share[j] <= pj * (1 + share[i]), "{share:?}");
                    }
                }
            }
            let mut spread = layer.clone();
            let top = spread_layers(&mut spread, used, used + spare);
            proptest::prop_assert!(top <= used + spare);
            // A path moves only to its own layer's lanes.
            for (a, b) in layer.iter().zip(&spread) {
                let (a, b) = (*a as usize, *b as usize);
                let first: usize = counts.len() + share[..a].iter().sum::<usize>();
                proptest::prop_assert!(b == a || (first..first + share[a]).contains(&b));
            }
        }
    }

    #[test]
    fn spare_lanes_follow_the_paths_per_layer() {
        // 90 paths in layer 0, 30 in layer 1, 6 spare lanes: lanes go where
        // the most paths per lane are, 6 to 2 in all (3:1, as the paths).
        let mut layer: Vec<u8> = [vec![0u8; 90], vec![1u8; 30]].concat();
        assert_eq!(spread_shares(&layer, 2, 8), vec![5, 1]);
        assert_eq!(spread_layers(&mut layer, 2, 8), 8);
        let mut per = [0usize; 8];
        for &l in &layer {
            per[l as usize] += 1;
        }
        // Layer 0 over lanes 0, 2..=6 (15 each), layer 1 over 1 and 7 (15).
        assert_eq!(per, [15; 8]);
        // A layer of one path gets no spare lane while another has more.
        let mut layer = vec![0u8, 0, 0, 0, 1];
        assert_eq!(spread_shares(&layer, 2, 6), vec![4, 0]);
        assert_eq!(spread_layers(&mut layer, 2, 6), 5, "4 paths over 5 lanes");
        assert_eq!(spread_shares(&layer, 6, 6), vec![0; 6]);
    }

    #[test]
    fn incremental_cdg_refuses_closing_paths() {
        let net = torus::torus(&[4], 1).unwrap();
        let index = Turns::new(&net);
        let paths = ring_paths(&net, 4, 2);
        let mut g = IncrementalCdg::new(&index);
        for i in 0..3 {
            assert!(g.try_add(&index, paths.get(i)));
        }
        assert!(!g.try_add(&index, paths.get(3)));
        g.remove(&index, paths.get(0));
        assert!(g.try_add(&index, paths.get(3)));
        let p = paths.get(1);
        assert_eq!(g.paths_through(&index, p[0], p[1]), 1);
    }
}
