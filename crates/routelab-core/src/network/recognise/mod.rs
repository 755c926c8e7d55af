//! Regular families recognised from the cabling alone, so that a torus or
//! a fat tree read back from a fabric dump routes as one.
//!
//! A real fabric numbers its switches and ports as it was cabled; routings
//! such as dimension order or D-mod-k need the coordinates and port
//! conventions of a generated network ([`Structure`]). [`recognise`] finds
//! the family member the switch graph is (a match of the whole graph onto
//! the generated one, keeping cable counts) and returns the network
//! renumbered as that generator numbers it: switches at their coordinates
//! or labels, switch links on the family's ports, terminals after them.
//! Names, GUIDs, LIDs and link classes are the fabric's, so the renumbered
//! network simulates exactly as the original; [`Recognised::node`] and
//! [`Recognised::channel`] map it back (routes computed on it are mapped
//! onto the fabric by the routing layer).
//!
//! Tried in turn, each only where the switch degrees allow it:
//! - a single switch: a crossbar;
//! - a torus: every switch with `2n` cables (dimensions of 2 are doubled
//!   cables, as `torus:` builds them), dimensions from the factorisations
//!   of the switch count, largest first (a ring of 4 is also a square, so
//!   a hypercube of even dimension is found as a torus of 4-rings);
//! - a hypercube: `2^n` switches of `n` single cables each;
//! - a mesh: the corners have `n` cables, the degree counts must be the
//!   mesh's;
//! - a HyperX: every switch with `t` cables to each of the same number of
//!   others, sides from the factorisations of the switch count whose
//!   `sum (S_d - 1)` is that number, largest first (a HyperX of sides 3
//!   is a torus, of sides 2 a hypercube: those are found as such);
//! - a dragonfly: every switch with single cables to `a - 1 + h` others,
//!   `a (a h + 1)` switches, each global link arrangement in turn (a
//!   dragonfly of one-router groups is a complete graph: a HyperX);
//! - a Slim Fly: `2 q²` switches of `(3q - δ) / 2` single cables each;
//! - a Megafly: half the switches (leaves) with single cables to `a`
//!   others, half (spines) to `a + h`, `2a (a h + 1)` switches, each global
//!   link arrangement in turn;
//! - an XGFT with leaf switches (k-ary n-trees, folded Clos networks):
//!   levels from [`fat_tree_ranks`], `m_i` and `w_i` read off the cables
//!   between levels, which must be the same for every switch of a level.
//!
//! Terminals must each hang off one switch by one cable. They keep their
//! order within a switch (by the switch's port) and follow their switches
//! in the new numbering, so a leaf's terminals stay consecutive.

mod matching;

use crate::network::build::torus::{hypercube, mesh, torus};
use crate::network::build::tree::{is_untrunked, xgft_level_sizes, xgft_trunked};
use crate::network::metrics::fat_tree::fat_tree_ranks;
use crate::network::{
    ChannelId, Network, NetworkBuilder, Node, NodeId, PortAttrs, PortId, Structure,
};
use matching::{find_map, find_map_from, Graph, NoMatch};

/// A network renumbered as the generator of the family it was recognised
/// as numbers it.
#[derive(Debug, Clone)]
pub struct Recognised {
    /// The renumbered network, with the family's [`Structure`].
    pub net: Network,
    /// Per node of [`Recognised::net`]: the node of the original it is.
    pub node: Vec<NodeId>,
    /// Per channel of [`Recognised::net`]: the original channel.
    pub channel: Vec<ChannelId>,
}

impl Recognised {
    /// The spec that builds the recognised network again
    /// (`torus:4x4x3,c=2`), or the shape and how the terminals differ from
    /// it when the generator would place them otherwise
    /// (`torus:4x4 with 30 terminals, not the same number on every switch`).
    pub fn describe(&self) -> String {
        let t = self.net.terminals().len();
        let s = self.net.structure();
        let exact = crate::network::metrics::declared_holds(&self.net);
        match (exact, s) {
            (false, Structure::Torus { dims, wrap, .. }) => {
                let shape = Structure::Torus {
                    dims: dims.clone(),
                    wrap: *wrap,
                    concentration: 1,
                };
                format!(
                    "{} with {t} terminals, not the same number on every switch",
                    shape.spec(t).unwrap_or_default()
                )
            }
            (false, Structure::Hypercube { n, .. }) => {
                format!("hypercube:{n} with {t} terminals, not the same number on every switch")
            }
            (
                false,
                Structure::HyperX {
                    sides, trunking, ..
                },
            ) => {
                let shape = sides
                    .iter()
                    .map(u32::to_string)
                    .collect::<Vec<_>>()
                    .join("x");
                format!(
                    "hyperx:S={shape},t={trunking} with {t} terminals, not the same number on \
                     every switch"
                )
            }
            (
                _,
                Structure::Dragonfly {
                    a,
                    h,
                    arrangement: crate::network::GlobalArrangement::Cabled,
                    ..
                }
                | Structure::Megafly {
                    a,
                    h,
                    arrangement: crate::network::GlobalArrangement::Cabled,
                    ..
                },
            ) => format!(
                "{} of a = {a}, h = {h} with {t} terminals, its global links as cabled (in no \
                 arrangement of the generator's)",
                s.family()
            ),
            _ => s.spec(t).unwrap_or_else(|| s.family().to_string()),
        }
    }
}

/// Candidate checks the search may spend per cable before giving up.
const CHECKS_PER_CABLE: u64 = 64;
/// And at least this many in all.
const MIN_CHECKS: u64 = 100_000;

/// The regular family `net` is, renumbered as its generator numbers it, or
/// why it is none of them (one line per family tried).
pub fn recognise(net: &Network) -> Result<Recognised, String> {
    let g = SwitchGraph::of(net)?;
    let mut why = Vec::new();
    if g.adj.len() == 1 {
        let one = crate::network::build::crossbar::crossbar(1).map_err(|e| e.to_string())?;
        let terminals = net.terminals().len() as u32;
        return relabel(
            net,
            &g,
            &one,
            &[0],
            |_| 0,
            Structure::Crossbar { terminals },
        );
    }
    // A tree's upper switches hold no terminals, a grid's switches all do:
    // try first the family the terminals point to (K2,2 is a 4-ring too).
    let order: [Family; 6] = if g.terminals.iter().all(|t| !t.is_empty()) {
        [grid, hyperx, dragonfly, slimfly, fat_tree, megafly]
    } else {
        [fat_tree, megafly, grid, hyperx, dragonfly, slimfly]
    };
    for family in order {
        match family(net, &g) {
            Ok(r) => return Ok(r),
            Err(e) => why.push(e),
        }
    }
    Err(why.join("; "))
}

type Family = fn(&Network, &SwitchGraph) -> Result<Recognised, String>;

/// The switches of a network as a multigraph, with each switch's
/// terminals in port order.
struct SwitchGraph {
    adj: Vec<Vec<(u32, u16)>>,
    /// Per switch, the terminals whose first port is cabled to it.
    terminals: Vec<Vec<NodeId>>,
    /// Per switch, its other cables to terminals (a dual-homed adapter's
    /// second port): kept, on ports after its terminals, outside the
    /// family's structure.
    extra: Vec<Vec<ChannelId>>,
    budget: u64,
}

impl SwitchGraph {
    fn of(net: &Network) -> Result<SwitchGraph, String> {
        if net.switches().is_empty() {
            return Err(format!("'{}' has no switch", net.name()));
        }
        if let Some(&x) = net
            .switches()
            .iter()
            .find(|&&x| net.neighbors(x).any(|y| y == x))
        {
            return Err(format!("switch '{}' is cabled to itself", net.label(x)));
        }
        // A terminal's home is the switch its first cabled port leads to
        // (where it injects); its other cables are extras of their switches.
        let mut home = vec![None; net.node_count()];
        for &t in net.terminals() {
            let to_switches = net
                .out_channels(t)
                .iter()
                .all(|&c| net.is_switch(net.channel(c).dst));
            match net.out_channels(t).first() {
                Some(&c) if to_switches => home[t.index()] = Some(c.reverse()),
                _ => {
                    return Err(format!(
                        "terminal '{}' is not cabled to switches only; the regular families hang \
                         terminals off switches",
                        net.label(t)
                    ))
                }
            }
        }
        let mut terminals = vec![Vec::new(); net.switches().len()];
        let mut extra = vec![Vec::new(); net.switches().len()];
        for (i, &x) in net.switches().iter().enumerate() {
            for &c in net.out_channels(x) {
                let t = net.channel(c).dst;
                if !net.is_terminal(t) {
                    continue;
                }
                if home[t.index()] == Some(c) {
                    terminals[i].push(t);
                } else {
                    extra[i].push(c);
                }
            }
        }
        let adj = switch_links(net);
        Ok(SwitchGraph {
            adj,
            terminals,
            extra,
            budget: (net.cable_count() as u64)
                .saturating_mul(CHECKS_PER_CABLE)
                .max(MIN_CHECKS),
        })
    }

    /// Switches per hop count from `from` (to those it reaches).
    fn distance_profile(&self, from: usize) -> Vec<u64> {
        let mut hops = vec![u32::MAX; self.adj.len()];
        let mut queue = std::collections::VecDeque::from([from]);
        hops[from] = 0;
        let mut out = vec![1u64];
        while let Some(x) = queue.pop_front() {
            for &(y, _) in &self.adj[x] {
                let y = y as usize;
                if hops[y] == u32::MAX {
                    hops[y] = hops[x] + 1;
                    let h = hops[y] as usize;
                    if out.len() <= h {
                        out.resize(h + 1, 0);
                    }
                    out[h] += 1;
                    queue.push_back(y);
                }
            }
        }
        out
    }

    /// Cables per switch to other switches.
    fn degree(&self, x: usize) -> u32 {
        self.adj[x].iter().map(|&(_, k)| u32::from(k)).sum()
    }

    fn graph(&self, colour: impl Fn(usize) -> u64) -> Graph<'_> {
        Graph {
            adj: &self.adj,
            colour: (0..self.adj.len()).map(colour).collect(),
        }
    }
}

/// Per switch, the switches it is cabled to and how many cables to each,
/// sorted by switch index.
fn switch_links(net: &Network) -> Vec<Vec<(u32, u16)>> {
    net.switches()
        .iter()
        .map(|&x| {
            let mut row: Vec<(u32, u16)> = Vec::new();
            for y in net.neighbors(x).filter(|&y| net.is_switch(y) && y != x) {
                let k = net.kind_index(y) as u32;
                match row.iter_mut().find(|(z, _)| *z == k) {
                    Some(e) => e.1 += 1,
                    None => row.push((k, 1)),
                }
            }
            row.sort_unstable();
            row
        })
        .collect()
}

/// The switch graph of a generated network (its terminals left out).
fn pattern(net: &Network) -> SwitchGraph {
    SwitchGraph {
        adj: switch_links(net),
        terminals: Vec::new(),
        extra: Vec::new(),
        budget: 0,
    }
}

/// Colour by degree and distinct neighbours.
fn degree_colour(g: &SwitchGraph) -> impl Fn(usize) -> u64 + '_ {
    |x| (u64::from(g.degree(x)) << 32) | g.adj[x].len() as u64
}

/// Tori, meshes and hypercubes.
fn grid(net: &Network, g: &SwitchGraph) -> Result<Recognised, String> {
    let s = g.adj.len() as u64;
    let degrees: Vec<u32> = (0..g.adj.len()).map(|x| g.degree(x)).collect();
    let (lo, hi) = (
        *degrees.iter().min().unwrap_or(&0),
        *degrees.iter().max().unwrap_or(&0),
    );
    let c = uniform_terminals(g);
    let mut candidates: Vec<Structure> = Vec::new();
    if lo == hi && lo.is_multiple_of(2) && lo > 0 {
        candidates.extend(
            factorisations(s, lo / 2)
                .into_iter()
                .map(|dims| Structure::Torus {
                    dims,
                    wrap: true,
                    concentration: c,
                }),
        );
    }
    let single = g.adj.iter().flatten().all(|&(_, k)| k == 1);
    if lo == hi && single && lo < 63 && s == 1u64 << lo {
        candidates.push(Structure::Hypercube {
            n: lo,
            concentration: c,
        });
    }
    if lo < hi && lo > 0 {
        let mut want: Vec<u32> = degrees.clone();
        want.sort_unstable();
        candidates.extend(
            factorisations(s, lo)
                .into_iter()
                .filter(|dims| mesh_degrees(dims) == want)
                .map(|dims| Structure::Torus {
                    dims,
                    wrap: false,
                    concentration: c,
                }),
        );
    }
    if candidates.is_empty() {
        return Err(format!(
            "not a torus, mesh or hypercube: switch links per switch range from {lo} to {hi}"
        ));
    }
    // Hops from the switch the search starts at (a corner of a mesh): a
    // candidate whose own count of switches per distance differs is not it,
    // with no search.
    let from = (0..g.adj.len()).find(|&x| degrees[x] == lo).unwrap_or(0);
    let seen = g.distance_profile(from);
    let mut tried = Vec::new();
    for structure in candidates {
        // Named without terminals: the shape is what was tried.
        let name = match &structure {
            Structure::Torus { dims, wrap, .. } => Structure::Torus {
                dims: dims.clone(),
                wrap: *wrap,
                concentration: 1,
            },
            Structure::Hypercube { n, .. } => Structure::Hypercube {
                n: *n,
                concentration: 1,
            },
            other => other.clone(),
        }
        .spec(0)
        .unwrap_or_default();
        if grid_profile(&structure) != seen {
            tried.push(name);
            continue;
        }
        let generated = match &structure {
            Structure::Torus {
                dims, wrap: true, ..
            } => torus(dims, 0),
            Structure::Torus { dims, .. } => mesh(dims, 0),
            Structure::Hypercube { n, .. } => hypercube(*n, 0),
            _ => continue,
        }
        .map_err(|e| e.to_string())?;
        match map_onto(net, g, &generated, structure) {
            Ok(found) => return found,
            Err(NoMatch::GaveUp) => tried.push(format!("{name} (the search gave up)")),
            Err(NoMatch::Different) => tried.push(name),
        }
    }
    Err(format!(
        "not a torus, mesh or hypercube (the switch count and degrees allow {}, but the \
         cabling is none of them)",
        tried.join(", ")
    ))
}

/// Switches per hop count from switch 0 of a torus or hypercube, or from a
/// corner of a mesh: per dimension a ring (k = 2: one neighbour) or a line,
/// the dimensions combined by convolution.
fn grid_profile(structure: &Structure) -> Vec<u64> {
    let lines: Vec<Vec<u64>> = match structure {
        Structure::Torus { dims, wrap, .. } => dims
            .iter()
            .map(|&k| {
                let k = k as usize;
                if !wrap {
                    return vec![1; k];
                }
                (0..=k / 2)
                    .map(|d| if d == 0 || 2 * d == k { 1 } else { 2 })
                    .collect()
            })
            .collect(),
        Structure::Hypercube { n, .. } => vec![vec![1, 1]; *n as usize],
        _ => Vec::new(),
    };
    lines.iter().fold(vec![1u64], |acc, line| {
        let mut out = vec![0u64; acc.len() + line.len() - 1];
        for (i, &a) in acc.iter().enumerate() {
            for (j, &b) in line.iter().enumerate() {
                out[i + j] += a * b;
            }
        }
        out
    })
}

/// Terminals per switch when every switch holds the same number, else the
/// most any holds (the structure's layout is then not the generator's).
fn uniform_terminals(g: &SwitchGraph) -> u32 {
    g.terminals.iter().map(Vec::len).max().unwrap_or(0) as u32
}

/// The ways to write `s` as a product of `n` factors of at least 2, each
/// list in non-increasing order (a torus with its dimensions permuted is
/// the same torus).
fn factorisations(s: u64, n: u32) -> Vec<Vec<u32>> {
    fn go(s: u64, n: u32, max: u64, acc: &mut Vec<u32>, out: &mut Vec<Vec<u32>>) {
        if n == 0 {
            if s == 1 {
                out.push(acc.clone());
            }
            return;
        }
        let mut f = max.min(s);
        while f >= 2 {
            if s.is_multiple_of(f) && f <= u64::from(u16::MAX) {
                acc.push(f as u32);
                go(s / f, n - 1, f, acc, out);
                acc.pop();
            }
            f -= 1;
        }
    }
    let mut out = Vec::new();
    if n == 0 || n > 64 || s < 2 {
        return out;
    }
    go(s, n, s, &mut Vec::new(), &mut out);
    out
}

/// The sorted switch-link counts of a mesh with `dims`.
fn mesh_degrees(dims: &[u32]) -> Vec<u32> {
    // Per degree, how many switches: one dimension at a time.
    let mut count: Vec<u64> = vec![1];
    for &k in dims {
        let (ends, inner) = if k == 2 {
            (2, 0)
        } else {
            (2, u64::from(k) - 2)
        };
        let mut next = vec![0u64; count.len() + 2];
        for (d, &c) in count.iter().enumerate() {
            next[d + 1] += c * ends;
            next[d + 2] += c * inner;
        }
        count = next;
    }
    let mut out = Vec::new();
    for (d, &c) in count.iter().enumerate() {
        out.extend(std::iter::repeat_n(d as u32, c as usize));
    }
    out
}

/// HyperX networks (flattened butterflies included).
fn hyperx(net: &Network, g: &SwitchGraph) -> Result<Recognised, String> {
    let not = |why: String| format!("not a hyperx: {why}");
    let name = |x: usize| net.label(net.switches()[x]).into_owned();
    let (others, t) = match g.adj[0].first() {
        Some(&(_, t)) => (g.adj[0].len(), t),
        None => return Err(not(format!("'{}' has no switch links", name(0)))),
    };
    for (x, row) in g.adj.iter().enumerate() {
        if row.len() != others {
            return Err(not(format!(
                "'{}' is cabled to {} switches where '{}' is cabled to {others}",
                name(x),
                row.len(),
                name(0)
            )));
        }
        if let Some(&(y, k)) = row.iter().find(|&&(_, k)| k != t) {
            return Err(not(format!(
                "'{}' and '{}' share {k} cables where '{}' and '{}' share {t}",
                name(x),
                name(y as usize),
                name(0),
                name(g.adj[0][0].0 as usize)
            )));
        }
    }
    let s = g.adj.len() as u64;
    let candidates = hamming_sides(s, others as u64);
    if candidates.is_empty() {
        return Err(not(format!(
            "no sides multiply to {s} switches with {others} neighbours each"
        )));
    }
    let c = uniform_terminals(g);
    let seen = g.distance_profile(0);
    let mut tried = Vec::new();
    for sides in candidates {
        // Named without terminals: the shape is what was tried.
        let shape = sides
            .iter()
            .map(u32::to_string)
            .collect::<Vec<_>>()
            .join("x");
        let spec = format!("hyperx:S={shape},t={t}");
        if hamming_profile(&sides) != seen {
            tried.push(spec);
            continue;
        }
        let generated = crate::network::build::hyperx(&sides, u32::from(t), 0)
            .map_err(|e| not(e.to_string()))?;
        let structure = Structure::HyperX {
            sides,
            trunking: u32::from(t),
            concentration: c,
        };
        match map_onto(net, g, &generated, structure) {
            Ok(found) => return found,
            Err(NoMatch::GaveUp) => tried.push(format!("{spec} (the search gave up)")),
            Err(NoMatch::Different) => tried.push(spec),
        }
    }
    Err(not(format!(
        "the switch count and degrees allow {}, but the cabling is none of them",
        tried.join(", ")
    )))
}

/// The number of switches every switch is cabled to, once each, or why
/// the cabling is not that regular.
fn single_cabled_degree(net: &Network, g: &SwitchGraph, family: &str) -> Result<usize, String> {
    let name = |x: usize| net.label(net.switches()[x]).into_owned();
    let d = g.adj[0].len();
    for (x, row) in g.adj.iter().enumerate() {
        if let Some(&(y, k)) = row.iter().find(|&&(_, k)| k != 1) {
            return Err(format!(
                "not a {family}: '{}' and '{}' share {k} cables",
                name(x),
                name(y as usize)
            ));
        }
        if row.len() != d {
            return Err(format!(
                "not a {family}: '{}' is cabled to {} switches where '{}' is cabled to {d}",
                name(x),
                row.len(),
                name(0)
            ));
        }
    }
    Ok(d)
}

/// Dragonflies, in each global link arrangement.
fn dragonfly(net: &Network, g: &SwitchGraph) -> Result<Recognised, String> {
    use crate::network::GlobalArrangement;
    let not = |why: String| format!("not a dragonfly: {why}");
    let d = single_cabled_degree(net, g, "dragonfly")? as u64;
    let s = g.adj.len() as u64;
    // a - 1 + h = d and a (a h + 1) = s.
    let shapes: Vec<(u32, u32)> = (2..=d)
        .map(|a| (a, d + 1 - a))
        .filter(|&(a, h)| h >= 1 && a * (a * h + 1) == s)
        .map(|(a, h)| (a as u32, h as u32))
        .collect();
    if shapes.is_empty() {
        return Err(not(format!(
            "no a, h with a - 1 + h = {d} links per switch give a (a h + 1) = {s} switches"
        )));
    }
    let c = uniform_terminals(g);
    let mut tried = Vec::new();
    for (a, h) in shapes {
        for name in GlobalArrangement::NAMES {
            let arr = GlobalArrangement::from_name(name).unwrap_or_default();
            let generated = crate::network::build::dragonfly::dragonfly_arranged(a, 0, h, arr)
                .map_err(|e| not(e.to_string()))?;
            let spec = format!("dragonfly:a={a},h={h},arrangement={name}");
            let structure = Structure::Dragonfly {
                a,
                p: c,
                h,
                groups: a * h + 1,
                arrangement: arr,
            };
            match map_onto(net, g, &generated, structure) {
                Ok(found) => return found,
                Err(NoMatch::GaveUp) => tried.push(format!("{spec} (the search gave up)")),
                Err(NoMatch::Different) => tried.push(spec),
            }
        }
        if let Ok(groups) = dragonfly_groups(g, a, h) {
            return grouped(net, g, Grouped::Dragonfly { a, h, c }, &groups);
        }
    }
    Err(not(format!(
        "the switch count and degrees allow {}, but the cabling is none of them",
        tried.join(", ")
    )))
}

/// The groups of a dragonfly of `a` routers and `h` global links per
/// router, each a list of switch indices: a link is local when its ends
/// share the other `a - 2` routers of their group as neighbours. `Err`
/// unless every group is a clique of `a` and every two groups share one
/// global link.
fn dragonfly_groups(g: &SwitchGraph, a: u32, h: u32) -> Result<Vec<Vec<u32>>, ()> {
    if a < 3 {
        return Err(());
    }
    let n = g.adj.len();
    let nbrs: Vec<std::collections::HashSet<u32>> = g
        .adj
        .iter()
        .map(|row| row.iter().map(|&(y, _)| y).collect())
        .collect();
    let local = |x: usize, y: u32| nbrs[x].intersection(&nbrs[y as usize]).count() as u32 >= a - 2;
    let mut group = vec![u32::MAX; n];
    let mut groups: Vec<Vec<u32>> = Vec::new();
    for x in 0..n {
        if group[x] != u32::MAX {
            continue;
        }
        let mut members: Vec<u32> = std::iter::once(x as u32)
            .chain(g.adj[x].iter().map(|&(y, _)| y).filter(|&y| local(x, y)))
            .collect();
        members.sort_unstable();
        if members.len() != a as usize || members.iter().any(|&m| group[m as usize] != u32::MAX) {
            return Err(());
        }
        for &m in &members {
            group[m as usize] = groups.len() as u32;
        }
        groups.push(members);
    }
    check_group_links(g, &group, groups.len(), |x| {
        g.adj[x].len() as u32 == a - 1 + h
    })?;
    Ok(groups)
}

/// Checks that every two of `count` groups share exactly one link and
/// that `ok(x)` holds for every switch `x`.
fn check_group_links(
    g: &SwitchGraph,
    group: &[u32],
    count: usize,
    ok: impl Fn(usize) -> bool,
) -> Result<(), ()> {
    let mut pair = vec![0u32; count * count];
    for x in 0..g.adj.len() {
        if !ok(x) {
            return Err(());
        }
        for &(y, _) in &g.adj[x] {
            let (gx, gy) = (group[x] as usize, group[y as usize] as usize);
            if gx != gy {
                pair[gx * count + gy] += 1;
            }
        }
    }
    let complete = (0..count).all(|i| (0..count).all(|j| pair[i * count + j] == u32::from(i != j)));
    if complete {
        Ok(())
    } else {
        Err(())
    }
}

/// A dragonfly or Megafly laid out group by group as it is cabled.
enum Grouped {
    Dragonfly { a: u32, h: u32, c: u32 },
    Megafly { a: u32, h: u32, c: u32 },
}

/// `net` renumbered group by group (groups in order of their first switch,
/// a Megafly's leaves then spines), each switch's links on its family's
/// ports (global links in the order of the groups they reach), when its
/// global links follow none of the generator's arrangements under the
/// numbering the search could find: the routers read the global links off
/// the cabling, so they route it all the same. Its structure says
/// [`GlobalArrangement::Cabled`].
fn grouped(
    net: &Network,
    g: &SwitchGraph,
    kind: Grouped,
    groups: &[Vec<u32>],
) -> Result<Recognised, String> {
    use crate::network::build::dragonfly::dragonfly_local_port;
    use crate::network::GlobalArrangement;
    let bad = |e: crate::network::TopologyError| e.to_string();
    let map: Vec<u32> = groups.iter().flatten().copied().collect();
    let mut new_of = vec![0u32; map.len()];
    for (i, &o) in map.iter().enumerate() {
        new_of[o as usize] = i as u32;
    }
    let (a, h, per_group) = match kind {
        Grouped::Dragonfly { a, h, .. } => (a, h, a),
        Grouped::Megafly { a, h, .. } => (a, h, 2 * a),
    };
    let group_of = |i: u32| i / per_group;
    let is_dragonfly = matches!(kind, Grouped::Dragonfly { .. });
    let ports = |i: u32| -> u16 {
        if is_dragonfly {
            (a - 1 + h) as u16
        } else if i % per_group < a {
            a as u16
        } else {
            (a + h) as u16
        }
    };
    let (mut b, class, _) = NetworkBuilder::with_default_classes(net.name());
    for i in 0..map.len() as u32 {
        b.add_switch(format!("s{i}"), ports(i));
    }
    // Each new switch's global neighbours, by the group they are in.
    let mut globals: Vec<Vec<u32>> = vec![Vec::new(); map.len()];
    for (i, &o) in map.iter().enumerate() {
        let mut far: Vec<u32> = g.adj[o as usize]
            .iter()
            .map(|&(y, _)| new_of[y as usize])
            .filter(|&y| group_of(y) != group_of(i as u32))
            .collect();
        far.sort_unstable_by_key(|&y| group_of(y));
        globals[i] = far;
    }
    let global_port = |k: usize| -> PortId {
        if is_dragonfly {
            PortId((a as usize + k) as u16)
        } else {
            PortId((a as usize + 1 + k) as u16)
        }
    };
    for i in 0..map.len() as u32 {
        let o = map[i as usize] as usize;
        for &(y, _) in &g.adj[o] {
            let j = new_of[y as usize];
            if j <= i {
                continue;
            }
            let (pi, pj) = if group_of(i) != group_of(j) {
                let ki = globals[i as usize]
                    .iter()
                    .position(|&z| z == j)
                    .unwrap_or(0);
                let kj = globals[j as usize]
                    .iter()
                    .position(|&z| z == i)
                    .unwrap_or(0);
                (global_port(ki), global_port(kj))
            } else if is_dragonfly {
                let (ri, rj) = (i % per_group, j % per_group);
                (dragonfly_local_port(ri, rj), dragonfly_local_port(rj, ri))
            } else {
                // A leaf's port s + 1 to spine s, a spine's port l + 1 to leaf l.
                let (ri, rj) = (i % per_group, j % per_group);
                let (leaf, spine) = if ri < a { (ri, rj - a) } else { (rj, ri - a) };
                let (lp, sp) = (PortId(spine as u16 + 1), PortId(leaf as u16 + 1));
                if ri < a {
                    (lp, sp)
                } else {
                    (sp, lp)
                }
            };
            b.connect(NodeId(i), pi, NodeId(j), pj, class)
                .map_err(bad)?;
        }
    }
    let generated = b.build().map_err(bad)?;
    let groups_n = groups.len() as u32;
    let structure = match kind {
        Grouped::Dragonfly { a, h, c } => Structure::Dragonfly {
            a,
            p: c,
            h,
            groups: groups_n,
            arrangement: GlobalArrangement::Cabled,
        },
        Grouped::Megafly { a, h, c } => Structure::Megafly {
            a,
            p: c,
            h,
            groups: groups_n,
            arrangement: GlobalArrangement::Cabled,
        },
    };
    relabel(net, g, &generated, &map, |i| ports(i as u32), structure)
}

/// Megaflies (Dragonfly+), in each global link arrangement.
fn megafly(net: &Network, g: &SwitchGraph) -> Result<Recognised, String> {
    use crate::network::GlobalArrangement;
    let not = |why: String| format!("not a megafly: {why}");
    if let Some((x, &(y, k))) = g
        .adj
        .iter()
        .enumerate()
        .find_map(|(x, row)| row.iter().find(|&&(_, k)| k != 1).map(|e| (x, e)))
    {
        let name = |x: usize| net.label(net.switches()[x]).into_owned();
        return Err(not(format!(
            "'{}' and '{}' share {k} cables",
            name(x),
            name(y as usize)
        )));
    }
    let degrees: Vec<u32> = (0..g.adj.len()).map(|x| g.adj[x].len() as u32).collect();
    let lo = degrees.iter().copied().min().unwrap_or(0);
    let hi = degrees.iter().copied().max().unwrap_or(0);
    let leaves = degrees.iter().filter(|&&d| d == lo).count() as u64;
    let s = g.adj.len() as u64;
    if lo == hi || lo == 0 || 2 * leaves != s || degrees.iter().any(|&d| d != lo && d != hi) {
        return Err(not(
            "its switches are not half leaves of one degree and half spines of a higher one".into(),
        ));
    }
    let (a, h) = (lo, hi - lo);
    if 2 * u64::from(a) * (u64::from(a) * u64::from(h) + 1) != s {
        return Err(not(format!(
            "leaves of {a} links and spines of {hi} give a = {a}, h = {h}: 2a(a h + 1) switches, \
             not {s}"
        )));
    }
    let c = uniform_terminals(g);
    let mut tried = Vec::new();
    for name in GlobalArrangement::NAMES {
        let arr = GlobalArrangement::from_name(name).unwrap_or_default();
        let generated =
            crate::network::build::megafly(a, 0, h, arr).map_err(|e| not(e.to_string()))?;
        let spec = format!("megafly:a={a},h={h},arrangement={name}");
        let structure = Structure::Megafly {
            a,
            p: c,
            h,
            groups: a * h + 1,
            arrangement: arr,
        };
        match map_onto(net, g, &generated, structure) {
            Ok(found) => return found,
            Err(NoMatch::GaveUp) => tried.push(format!("{spec} (the search gave up)")),
            Err(NoMatch::Different) => tried.push(spec),
        }
    }
    if let Ok(groups) = megafly_groups(g, a, h, lo) {
        return grouped(net, g, Grouped::Megafly { a, h, c }, &groups);
    }
    Err(not(format!(
        "the switch count and degrees allow {}, but the cabling is none of them",
        tried.join(", ")
    )))
}

/// The groups of a Megafly, each its `a` leaves (the switches of `leaf`
/// links) then its `a` spines, by the leaf-spine links: `Err` unless every
/// group has `a` of each, leaves cabled to spines only, and every two
/// groups share one global link.
fn megafly_groups(g: &SwitchGraph, a: u32, h: u32, leaf: u32) -> Result<Vec<Vec<u32>>, ()> {
    let n = g.adj.len();
    let is_leaf = |x: usize| g.adj[x].len() as u32 == leaf;
    let mut group = vec![u32::MAX; n];
    let mut groups: Vec<Vec<u32>> = Vec::new();
    for x in (0..n).filter(|&x| is_leaf(x)) {
        if group[x] != u32::MAX {
            continue;
        }
        // The spines of a leaf, then every leaf of those spines.
        let spines: Vec<u32> = g.adj[x].iter().map(|&(y, _)| y).collect();
        let mut leaves: Vec<u32> = g.adj[spines[0] as usize]
            .iter()
            .map(|&(y, _)| y)
            .filter(|&y| is_leaf(y as usize))
            .collect();
        let mut spines = spines;
        leaves.sort_unstable();
        spines.sort_unstable();
        if leaves.len() != a as usize || spines.len() != a as usize {
            return Err(());
        }
        let members: Vec<u32> = leaves.iter().chain(&spines).copied().collect();
        if members.iter().any(|&m| group[m as usize] != u32::MAX) {
            return Err(());
        }
        for &m in &members {
            group[m as usize] = groups.len() as u32;
        }
        groups.push(members);
    }
    if group.contains(&u32::MAX) {
        return Err(());
    }
    check_group_links(g, &group, groups.len(), |x| {
        let same = g.adj[x]
            .iter()
            .filter(|&&(y, _)| group[y as usize] == group[x])
            .count() as u32;
        if is_leaf(x) {
            same == a
        } else {
            same == a && g.adj[x].len() as u32 == a + h
        }
    })?;
    Ok(groups)
}

/// Slim Flies (MMS graphs).
fn slimfly(net: &Network, g: &SwitchGraph) -> Result<Recognised, String> {
    use crate::network::build::slimfly::{slimfly_links, MAX_Q};
    let not = |why: String| format!("not a slimfly: {why}");
    let d = single_cabled_degree(net, g, "slimfly")?;
    let s = g.adj.len() as u64;
    let q = (1..=MAX_Q).find(|&q| 2 * u64::from(q) * u64::from(q) >= s);
    let Some(q) = q.filter(|&q| 2 * u64::from(q) * u64::from(q) == s) else {
        return Err(not(format!(
            "{s} switches is not 2q² for a q up to {MAX_Q}"
        )));
    };
    if slimfly_links(q) != Some(d as u32) {
        return Err(not(format!(
            "{s} switches would be q = {q}, whose routers have {} links, not {d}",
            slimfly_links(q).map_or("no".into(), |k| k.to_string())
        )));
    }
    let generated =
        crate::network::build::slimfly::slimfly(q, Some(0)).map_err(|e| not(e.to_string()))?;
    let structure = Structure::SlimFly {
        q,
        concentration: uniform_terminals(g),
    };
    match map_onto(net, g, &generated, structure) {
        Ok(found) => found,
        Err(NoMatch::GaveUp) => Err(not(format!("slimfly:q={q} (the search gave up)"))),
        Err(NoMatch::Different) => Err(not(format!(
            "the switch count and degrees allow slimfly:q={q}, but the cabling is not it"
        ))),
    }
}

/// The sides, each at least 2 and in non-increasing order (a HyperX with
/// its dimensions permuted is the same HyperX), whose product is `s` and
/// whose `sum (S_d - 1)` is `others`.
fn hamming_sides(s: u64, others: u64) -> Vec<Vec<u32>> {
    fn go(s: u64, left: u64, max: u64, acc: &mut Vec<u32>, out: &mut Vec<Vec<u32>>) {
        if s == 1 {
            if left == 0 {
                out.push(acc.clone());
            }
            return;
        }
        let mut f = max.min(s).min(left + 1);
        while f >= 2 {
            if s.is_multiple_of(f) {
                acc.push(f as u32);
                go(s / f, left - (f - 1), f, acc, out);
                acc.pop();
            }
            f -= 1;
        }
    }
    let mut out = Vec::new();
    if s >= 2 && others <= u64::from(u16::MAX) {
        go(
            s,
            others,
            s.min(u64::from(u16::MAX)),
            &mut Vec::new(),
            &mut out,
        );
    }
    out
}

/// Switches per hop count from any switch of a HyperX: per dimension the
/// switch itself and `S_d - 1` others one hop away, combined by convolution.
fn hamming_profile(sides: &[u32]) -> Vec<u64> {
    sides.iter().fold(vec![1u64], |acc, &k| {
        let mut out = vec![0u64; acc.len() + 1];
        for (i, &a) in acc.iter().enumerate() {
            out[i] += a;
            out[i + 1] += a * u64::from(k - 1);
        }
        out
    })
}

/// XGFTs with leaf switches: k-ary n-trees, folded Clos networks.
fn fat_tree(net: &Network, g: &SwitchGraph) -> Result<Recognised, String> {
    let not = |why: String| format!("not a fat tree: {why}");
    let ranks = fat_tree_ranks(net, &[]).map_err(not)?;
    let h = ranks.leaf_rank as usize;
    let name = |x: usize| net.label(net.switches()[x]).into_owned();
    // Levels count up from the leaves; a switch the roots do not reach, or
    // below the leaves, has none.
    if let Some(x) = (0..g.adj.len()).find(|&x| ranks.rank[x] > ranks.leaf_rank) {
        return Err(not(if ranks.rank[x] == u32::MAX {
            format!("'{}' is not connected to the tree", name(x))
        } else {
            format!("'{}' hangs below the leaves", name(x))
        }));
    }
    let level = |x: usize| ranks.leaf_rank - ranks.rank[x];
    // m_i: cables down from a level-i switch; w_i: up from level i - 1.
    let mut m: Vec<Option<u32>> = vec![None; h];
    let mut w: Vec<Option<u32>> = vec![None; h];
    // trunks[i]: cables between a level-(i+1) switch and each child, the
    // same for every pair of those levels.
    let mut trunks: Vec<Option<(u16, usize, usize)>> = vec![None; h];
    for x in 0..g.adj.len() {
        let lx = level(x) as usize;
        let (mut down, mut up) = (0u32, 0u32);
        for &(y, k) in &g.adj[x] {
            let ly = level(y as usize) as usize;
            if ly + 1 == lx || lx + 1 == ly {
                let slot = &mut trunks[lx.min(ly)];
                match *slot {
                    None => *slot = Some((k, x, y as usize)),
                    Some((t, a, b)) if t != k => {
                        return Err(not(format!(
                            "'{}' and '{}' share {k} cables where '{}' and '{}' share {t}; \
                             a fat tree trunks every parent and child of two levels alike",
                            name(x),
                            name(y as usize),
                            name(a),
                            name(b)
                        )))
                    }
                    Some(_) => {}
                }
            }
            if ly == lx {
                return Err(not(format!(
                    "'{}' and '{}' are cabled on one level",
                    name(x),
                    name(y as usize)
                )));
            }
            if ly + 1 == lx {
                down += 1;
            } else {
                up += 1;
            }
        }
        for (slot, value, what) in [
            (lx.checked_sub(1).map(|i| &mut m[i]), down, "down"),
            (w.get_mut(lx), up, "up"),
        ] {
            let Some(slot) = slot else { continue };
            match *slot {
                None => *slot = Some(value),
                Some(v) if v != value => {
                    return Err(not(format!(
                        "'{}' has {value} cables {what} where others of its level have {v}",
                        name(x)
                    )))
                }
                Some(_) => {}
            }
        }
    }
    let m: Vec<u32> = m.into_iter().map(|v| v.unwrap_or(0)).collect();
    let w: Vec<u32> = w.into_iter().map(|v| v.unwrap_or(0)).collect();
    let trunks: Vec<u32> = trunks
        .into_iter()
        .map(|v| v.map_or(1, |(k, _, _)| u32::from(k)))
        .collect();
    let trunks = if is_untrunked(&trunks) {
        Vec::new()
    } else {
        trunks
    };
    let sizes = xgft_level_sizes(&m, &w).ok_or_else(|| not("levels too large".into()))?;
    let mut have = vec![0u64; h + 1];
    for x in 0..g.adj.len() {
        have[level(x) as usize] += 1;
    }
    let join = |v: &[u32]| v.iter().map(u32::to_string).collect::<Vec<_>>().join("x");
    let mut spec = format!("xgft:m={},w={}", join(&m), join(&w));
    if !trunks.is_empty() {
        spec.push_str(&format!(",trunks={}", join(&trunks)));
    }
    if sizes != have {
        return Err(not(format!(
            "switches per level {have:?}, where {spec} has {sizes:?}"
        )));
    }
    let t = net.terminals().len() as u32;
    let generated = xgft_trunked(&m, &w, &trunks, Some(t)).map_err(|e| not(e.to_string()))?;
    let p = pattern(&generated);
    let p_level = |x: usize| -> u64 {
        // Generated leaf-switch XGFTs number level by level from the leaves.
        let mut first = 0u64;
        for (l, &n) in sizes.iter().enumerate() {
            if (x as u64) < first + n {
                return l as u64;
            }
            first += n;
        }
        u64::MAX
    };
    let map = find_map(
        &p.graph(p_level),
        &g.graph(|x| u64::from(level(x))),
        g.budget,
    )
    .map_err(|e| {
        not(match e {
            NoMatch::Different => format!("levels as {spec} but cabled otherwise"),
            NoMatch::GaveUp => format!("levels as {spec}; the search gave up"),
        })
    })?;
    let k = m[0];
    let up = w[0] * trunks.first().copied().unwrap_or(1);
    let (leaves, up) = (sizes[0] as usize, up as u16);
    // Leaves (numbered first): their up links, then terminals.
    let ports = |i: usize| {
        if i < leaves {
            up
        } else {
            generated.node(generated.switches()[i]).ports
        }
    };
    let structure = Structure::Xgft {
        kary_ntree: m.iter().chain(&w).all(|&x| x == k),
        m,
        w,
        leaf_terminals: Some(t),
        trunks,
    };
    relabel(net, g, &generated, &map, ports, structure)
}

/// `net` renumbered as `generated`: its switch `i` is `net`'s switch
/// `map[i]`, switch links on `generated`'s ports, each switch's terminals
/// on the ports after its `link_ports(i)` switch-link ports, as the
/// generator lays them out (a mesh's edge switch keeps its unused ports).
/// Maps the fabric's switch graph onto `generated` (built without
/// terminals, so every port is a link's) and, when it matches, relabels
/// the fabric as that family.
fn map_onto(
    net: &Network,
    g: &SwitchGraph,
    generated: &Network,
    structure: Structure,
) -> Result<Result<Recognised, String>, NoMatch> {
    // Dragonflies, Megaflies and Slim Flies do not look alike from every
    // switch of a degree: the search tries each as the first.
    let every_anchor = matches!(
        structure,
        Structure::Dragonfly { .. } | Structure::Megafly { .. } | Structure::SlimFly { .. }
    );
    let p = pattern(generated);
    let map = find_map_from(
        &p.graph(degree_colour(&p)),
        &g.graph(degree_colour(g)),
        g.budget,
        every_anchor,
    )?;
    let ports = |i: usize| generated.node(generated.switches()[i]).ports;
    Ok(relabel(net, g, generated, &map, ports, structure))
}

fn relabel(
    net: &Network,
    g: &SwitchGraph,
    generated: &Network,
    map: &[u32],
    link_ports: impl Fn(usize) -> u16,
    structure: Structure,
) -> Result<Recognised, String> {
    let bad = |e: crate::network::TopologyError| e.to_string();
    let mut b = NetworkBuilder::new(net.name());
    for class in net.classes() {
        b.add_class(class.clone());
    }
    let mut node = Vec::with_capacity(net.node_count());
    let links: Vec<u16> = (0..generated.switches().len()).map(link_ports).collect();
    for (i, &o) in map.iter().enumerate() {
        let orig = net.switches()[o as usize];
        let held = g.terminals[o as usize].len() + g.extra[o as usize].len();
        let ports = usize::from(links[i]) + held;
        let ports = u16::try_from(ports).map_err(|_| "too many ports".to_string())?;
        b.push_node(Node {
            ports,
            ..net.node(orig).clone()
        });
        node.push(orig);
    }
    for &o in map {
        for &t in &g.terminals[o as usize] {
            let id = b.push_node(net.node(t).clone());
            for p in 1..=net.node(t).ports {
                if let Some(a) = net.port_attrs(t, PortId(p)) {
                    b.set_port_attrs(id, PortId(p), a).map_err(bad)?;
                }
            }
            node.push(t);
        }
    }
    let mut new_of = vec![NodeId(u32::MAX); net.node_count()];
    for (i, &o) in node.iter().enumerate() {
        new_of[o.index()] = NodeId(i as u32);
    }
    // Switch links: each generated cable takes the next unused original
    // cable between the same two switches.
    let mut taken = vec![false; net.cable_count()];
    let mut channel = Vec::with_capacity(net.channel_count());
    let copy_attrs = |b: &mut NetworkBuilder,
                      from: NodeId,
                      port: PortId,
                      to: NodeId,
                      new_port: PortId| {
        match net.port_attrs(from, port) {
            Some(a) if a != PortAttrs::default() => b.set_port_attrs(to, new_port, a),
            _ => Ok(()),
        }
    };
    for pair in generated.channels().chunks(2) {
        let gc = pair[0];
        if !(generated.is_switch(gc.src) && generated.is_switch(gc.dst)) {
            continue;
        }
        let (gi, gj) = (generated.kind_index(gc.src), generated.kind_index(gc.dst));
        let (a, z) = (
            net.switches()[map[gi] as usize],
            net.switches()[map[gj] as usize],
        );
        let oc = net
            .out_channels(a)
            .iter()
            .copied()
            .find(|&c| net.channel(c).dst == z && !taken[c.cable()])
            .ok_or_else(|| "the cabling changed while it was matched".to_string())?;
        taken[oc.cable()] = true;
        let o = net.channel(oc);
        let (na, nz) = (new_of[a.index()], new_of[z.index()]);
        b.connect(na, gc.src_port, nz, gc.dst_port, o.class)
            .map_err(bad)?;
        copy_attrs(&mut b, a, o.src_port, na, gc.src_port).map_err(bad)?;
        copy_attrs(&mut b, z, o.dst_port, nz, gc.dst_port).map_err(bad)?;
        channel.push(oc);
        channel.push(oc.reverse());
    }
    for (i, &o) in map.iter().enumerate() {
        let x = net.switches()[o as usize];
        let homed = g.terminals[o as usize].iter().map(|&t| {
            net.out_channels(t)
                .first()
                .map(|&c| c.reverse())
                .ok_or_else(|| "the cabling changed while it was matched".to_string())
        });
        let extra = g.extra[o as usize].iter().map(|&c| Ok(c));
        for (slot, oc) in homed.chain(extra).enumerate() {
            let oc = oc?;
            let ch = net.channel(oc);
            let t = ch.dst;
            if ch.src != x {
                return Err("the cabling changed while it was matched".to_string());
            }
            let port = PortId(links[i] + 1 + slot as u16);
            let (nx, nt) = (new_of[x.index()], new_of[t.index()]);
            b.connect(nx, port, nt, ch.dst_port, ch.class)
                .map_err(bad)?;
            copy_attrs(&mut b, x, ch.src_port, nx, port).map_err(bad)?;
            channel.push(oc);
            channel.push(oc.reverse());
        }
    }
    b.set_structure(structure);
    let renumbered = b.build().map_err(bad)?;
    Ok(Recognised {
        net: renumbered,
        node,
        channel,
    })
}

#[cfg(test)]
/// `net` with its switches, their ports and its cables shuffled, as a
/// fabric dump would number them; structure forgotten.
pub(crate) fn shuffled(net: &Network, seed: u64) -> Network {
    use rand::seq::SliceRandom;
    let mut rng = crate::rng::stream(seed, "shuffle");
    let n = net.node_count();
    let mut order: Vec<usize> = (0..n).collect();
    order.shuffle(&mut rng);
    let mut b = NetworkBuilder::new(format!("{}.ibnet", net.name()));
    for class in net.classes() {
        b.add_class(class.clone());
    }
    let mut new_of = vec![NodeId(0); n];
    for &i in &order {
        new_of[i] = b.push_node(net.node(NodeId(i as u32)).clone());
    }
    // Ports permuted per node.
    let mut perm: Vec<Vec<u16>> = net
        .nodes()
        .iter()
        .map(|node| {
            let mut p: Vec<u16> = (1..=node.ports).collect();
            p.shuffle(&mut rng);
            p
        })
        .collect();
    let mut cables: Vec<&[crate::network::Channel]> = net.channels().chunks(2).collect();
    cables.shuffle(&mut rng);
    for c in cables {
        let c = c[0];
        let pa = perm[c.src.index()][usize::from(c.src_port.0) - 1];
        let pb = perm[c.dst.index()][usize::from(c.dst_port.0) - 1];
        b.connect(
            new_of[c.src.index()],
            PortId(pa),
            new_of[c.dst.index()],
            PortId(pb),
            c.class,
        )
        .unwrap();
    }
    perm.clear();
    b.build().unwrap()
}

#[cfg(test)]
mod tests {
    use super::shuffled;
    use super::*;
    use crate::network::spec;

    /// The renumbered network is the fabric: same nodes, every channel
    /// mapped to one with the same ends, class and node ports of terminals.
    fn check_mapping(orig: &Network, r: &Recognised) {
        assert_eq!(r.net.node_count(), orig.node_count());
        assert_eq!(r.net.channel_count(), orig.channel_count());
        let mut seen = vec![false; orig.channel_count()];
        for (i, c) in r.net.channels().iter().enumerate() {
            let o = orig.channel(r.channel[i]);
            assert_eq!(r.node[c.src.index()], o.src);
            assert_eq!(r.node[c.dst.index()], o.dst);
            assert_eq!(c.class, o.class);
            assert!(!std::mem::replace(&mut seen[r.channel[i].index()], true));
        }
        for (i, &o) in r.node.iter().enumerate() {
            assert_eq!(r.net.node(NodeId(i as u32)).name, orig.node(o).name);
        }
    }

    #[test]
    fn shuffled_regular_networks_are_recognised_as_generated() {
        for (spec_text, family) in [
            ("torus:4x4x4", "torus"),
            ("torus:8x8", "torus"),
            ("torus:5x3,c=2", "torus"),
            ("torus:6x2", "torus"),
            ("torus:3x3x3", "torus"),
            ("torus:16x8x8", "torus"),
            ("mesh:4x3", "mesh"),
            ("mesh:5x4x3,c=2", "mesh"),
            ("hypercube:5", "hypercube"),
            ("hypercube:4", "torus"),
            ("kary-ntree:k=4,n=3", "kary-ntree"),
            ("kary-ntree:k=3,n=3,terminals=20", "kary-ntree"),
            ("xgft:m=4x3,w=2x3,terminals=30", "xgft"),
            ("clos:ports=8,hosts=16", "kary-ntree"),
            ("clos:ports=8,hosts=14", "kary-ntree"),
            ("xgft:m=3x4,w=2x2,terminals=24", "xgft"),
            ("crossbar:5", "crossbar"),
            ("hyperx:S=4x3,t=1,p=2", "hyperx"),
            ("hyperx:S=3x4x2,t=2,p=1", "hyperx"),
            ("hyperx:S=5,t=1,p=3", "hyperx"),
            ("hyperx:S=4x4,t=1,p=0", "hyperx"),
            ("hyperx:S=2x3,t=3,p=1", "hyperx"),
            ("flatfly:k=4,n=3", "hyperx"),
            // The same graphs as a torus of 3-rings, a hypercube and a
            // torus of doubled 2-rings: found as those.
            ("hyperx:S=3x3,t=1,p=1", "torus"),
            ("hyperx:S=2x2x2,t=1,p=1", "hypercube"),
            ("hyperx:S=2x2,t=2,p=1", "torus"),
        ] {
            let generated = spec::build(spec_text).unwrap();
            for seed in 0..3 {
                let fabric = shuffled(&generated, seed);
                assert_eq!(fabric.structure(), &Structure::Irregular);
                let r = recognise(&fabric).unwrap_or_else(|e| panic!("{spec_text}: {e}"));
                assert_eq!(r.net.structure().family(), family, "{spec_text}");
                check_mapping(&fabric, &r);
                // The renumbered network is laid out as the generator lays it
                // out, terminal ports included (what the metrics' closed
                // forms and the torus routers check).
                assert!(
                    crate::network::metrics::declared_holds(&r.net),
                    "{spec_text}"
                );
            }
        }
    }

    #[test]
    fn recognised_tori_get_the_generator_dimensions_and_cabling() {
        let fabric = shuffled(&spec::build("torus:6x4x3,c=2").unwrap(), 7);
        let r = recognise(&fabric).unwrap();
        assert_eq!(
            r.net.structure(),
            &Structure::Torus {
                dims: vec![6, 4, 3],
                wrap: true,
                concentration: 2
            }
        );
        // Port 2d + 1 of every switch leads to +1 along d, as generated.
        let generated = spec::build("torus:6x4x3,c=2").unwrap();
        for (i, &x) in r.net.switches().iter().enumerate() {
            for p in 1..=6u16 {
                let dst = |n: &Network, s| n.channel(n.channel_at(s, PortId(p)).unwrap()).dst;
                assert_eq!(
                    r.net.kind_index(dst(&r.net, x)),
                    generated.kind_index(dst(&generated, generated.switches()[i]))
                );
            }
        }
    }

    #[test]
    fn irregular_networks_say_why_they_are_no_family() {
        let net = spec::build("random:switches=16,ports=8,hosts=4,seed=1").unwrap();
        let e = recognise(&net).unwrap_err();
        assert!(
            e.contains("allow torus:8x2, torus:4x4, hypercube:4,"),
            "{e}"
        );
        assert!(e.contains("not a fat tree"), "{e}");
        // Two cables of a torus swapped (every degree kept) make no torus.
        let t = spec::build("torus:5x5").unwrap();
        let mut b = NetworkBuilder::new("rewired");
        for class in t.classes() {
            b.add_class(class.clone());
        }
        for node in t.nodes() {
            b.push_node(node.clone());
        }
        // s0-s1 and s12-s13 (both along dimension 0) become s0-s13, s12-s1.
        let (s0, s1, s12, s13) = (NodeId(0), NodeId(1), NodeId(12), NodeId(13));
        for pair in t.channels().chunks(2) {
            let c = pair[0];
            let (a, z) = match (c.src, c.dst) {
                (x, y) if (x, y) == (s0, s1) => (s0, s13),
                (x, y) if (x, y) == (s12, s13) => (s12, s1),
                ends => ends,
            };
            b.connect(a, c.src_port, z, c.dst_port, c.class).unwrap();
        }
        let e = recognise(&b.build().unwrap()).unwrap_err();
        assert!(e.contains("allow torus:5x5,"), "{e}");
    }

    /// Large and highly symmetric fabrics, where a search without its
    /// two-hop check pairs the switches of different pods and gives up.
    #[test]
    fn large_symmetric_fabrics_are_recognised() {
        for (spec_text, family) in [
            ("torus:16x16x16", "torus"),
            ("kary-ntree:k=16,n=3", "kary-ntree"),
            ("kary-ntree:k=18,n=3,terminals=4096", "kary-ntree"),
            ("mesh:16x16x8", "mesh"),
            ("clos:ports=32,hosts=512", "xgft"),
            ("hyperx:S=8x8x8,t=1,p=2", "hyperx"),
            ("flatfly:k=16,n=3", "hyperx"),
        ] {
            let fabric = shuffled(&spec::build(spec_text).unwrap(), 1);
            let r = recognise(&fabric).unwrap_or_else(|e| panic!("{spec_text}: {e}"));
            assert_eq!(r.net.structure().family(), family, "{spec_text}");
        }
    }

    /// Trees with a stray switch, or one hanging below a leaf, are no
    /// family, and say so instead of failing.
    #[test]
    fn broken_trees_are_refused_by_name() {
        let tree = spec::build("kary-ntree:k=2,n=3").unwrap();
        let mut b = tree.to_builder();
        b.add_switch("spare", 4);
        let e = recognise(&b.build().unwrap()).unwrap_err();
        assert!(e.contains("'spare' is not connected"), "{e}");
        // A switch cabled to a leaf only: a rank below the leaves.
        let leaf = tree.attached_switch(tree.terminal(0)).unwrap();
        let mut b = NetworkBuilder::new("below");
        for class in tree.classes() {
            b.add_class(class.clone());
        }
        for (i, node) in tree.nodes().iter().enumerate() {
            let mut node = node.clone();
            if NodeId(i as u32) == leaf {
                node.ports += 1;
            }
            b.push_node(node);
        }
        for pair in tree.channels().chunks(2) {
            let c = pair[0];
            b.connect(c.src, c.src_port, c.dst, c.dst_port, c.class)
                .unwrap();
        }
        let extra = b.add_switch("extra", 1);
        let port = PortId(tree.node(leaf).ports + 1);
        b.connect(leaf, port, extra, PortId(1), crate::ClassId(0))
            .unwrap();
        let e = recognise(&b.build().unwrap()).unwrap_err();
        assert!(e.contains("'extra' hangs below the leaves"), "{e}");
    }

    /// `t` with one more terminal, on its first switch's new last port.
    fn with_extra_terminal(t: &Network) -> Network {
        let mut b = NetworkBuilder::new("uneven");
        for class in t.classes() {
            b.add_class(class.clone());
        }
        for (i, node) in t.nodes().iter().enumerate() {
            let mut node = node.clone();
            node.ports += u16::from(i == 0);
            b.push_node(node);
        }
        for pair in t.channels().chunks(2) {
            let c = pair[0];
            b.connect(c.src, c.src_port, c.dst, c.dst_port, c.class)
                .unwrap();
        }
        let extra = b.add_terminal("extra", 1);
        let port = PortId(t.node(NodeId(0)).ports + 1);
        b.connect(NodeId(0), port, extra, PortId(1), crate::ClassId(1))
            .unwrap();
        b.build().unwrap()
    }

    /// A torus with one switch holding an extra host is still a torus to
    /// route, described with its terminals; dimension order routes it.
    #[test]
    fn uneven_terminals_are_described_and_routed() {
        let net = with_extra_terminal(&spec::build("torus:4x4").unwrap());
        let r = recognise(&net).unwrap();
        assert_eq!(
            r.describe(),
            "torus:4x4 with 17 terminals, not the same number on every switch"
        );
        let routes =
            crate::routing::route(&net, "dor", &crate::routing::RoutingOptions::default()).unwrap();
        assert!(routes.deadlock_report(&net).unwrap().deadlock_free);
        assert!(routes.is_minimal(&net).unwrap());
    }

    /// `net` with one more cable from `a`'s and `z`'s new last ports.
    fn with_cable(net: &Network, a: NodeId, z: NodeId) -> Network {
        let mut b = NetworkBuilder::new(net.name());
        for class in net.classes() {
            b.add_class(class.clone());
        }
        for (i, node) in net.nodes().iter().enumerate() {
            let mut node = node.clone();
            node.ports += u16::from(i == a.index()) + u16::from(i == z.index());
            b.push_node(node);
        }
        for pair in net.channels().chunks(2) {
            let c = pair[0];
            b.connect(c.src, c.src_port, c.dst, c.dst_port, c.class)
                .unwrap();
        }
        let (pa, pz) = (net.node(a).ports + 1, net.node(z).ports + 1);
        b.connect(a, PortId(pa), z, PortId(pz), crate::ClassId(0))
            .unwrap();
        b.build().unwrap()
    }

    /// Real fat trees trunk their leaf-spine cables (two, three, twelve
    /// cables between a leaf and a spine): recognised with their trunks,
    /// switch links on the generator's ports.
    #[test]
    fn trunked_fat_trees_are_recognised() {
        for spec_text in [
            "xgft:m=4,w=2,terminals=12,trunks=3",
            "xgft:m=4x3,w=2x3,terminals=30,trunks=2x2",
            "xgft:m=3x4,w=2x2,terminals=24,trunks=1x3",
        ] {
            let generated = spec::build(spec_text).unwrap();
            for seed in 0..3 {
                let fabric = shuffled(&generated, seed);
                let r = recognise(&fabric).unwrap_or_else(|e| panic!("{spec_text}: {e}"));
                check_mapping(&fabric, &r);
                assert_eq!(r.describe(), spec_text);
                assert_eq!(generated.structure(), r.net.structure());
                for c in generated.channels() {
                    if !(generated.is_switch(c.src) && generated.is_switch(c.dst)) {
                        continue;
                    }
                    let x = r.net.switches()[generated.kind_index(c.src)];
                    let o = r.net.channel(r.net.channel_at(x, c.src_port).unwrap());
                    assert_eq!(
                        (r.net.kind_index(o.dst), o.dst_port),
                        (generated.kind_index(c.dst), c.dst_port),
                        "{spec_text}"
                    );
                }
            }
        }
        // One pair of a level with a cable more than the others: no tree.
        let tree = spec::build("xgft:m=4,w=2,terminals=8,trunks=2").unwrap();
        let (leaf, spine) = (tree.switches()[0], tree.switches()[4]);
        let e = recognise(&shuffled(&with_cable(&tree, leaf, spine), 1)).unwrap_err();
        assert!(e.contains("share 3 cables where"), "{e}");
        assert!(e.contains("share 2"), "{e}");
    }

    /// A storage adapter cabled to two switches of a torus or two leaves of
    /// a tree keeps the family: it belongs to the switch its first port is
    /// cabled to, its second cable is kept outside the structure, and the
    /// structure engines route the fabric.
    #[test]
    fn dual_homed_adapters_keep_the_family() {
        use crate::routing::{route, RoutingOptions};
        for (spec_text, a, z, engines, shown) in [
            (
                "torus:4x4",
                0,
                10,
                &["dor", "torus-2qos"][..],
                "torus:4x4 with 17 terminals, not the same number on every switch",
            ),
            (
                "xgft:m=4,w=2,terminals=8,trunks=2",
                1,
                2,
                &["dmodk"][..],
                "xgft:m=4,w=2,terminals=9,trunks=2",
            ),
        ] {
            let net = spec::build(spec_text).unwrap();
            // The storage's two ports cabled to switches a and z.
            let (sa, sz) = (net.switches()[a], net.switches()[z]);
            let mut b = NetworkBuilder::new(net.name());
            for class in net.classes() {
                b.add_class(class.clone());
            }
            for (i, node) in net.nodes().iter().enumerate() {
                let mut node = node.clone();
                node.ports += u16::from(i == sa.index()) + u16::from(i == sz.index());
                b.push_node(node);
            }
            for pair in net.channels().chunks(2) {
                let c = pair[0];
                b.connect(c.src, c.src_port, c.dst, c.dst_port, c.class)
                    .unwrap();
            }
            let storage = b.add_terminal("storage", 2);
            for (sw, port) in [(sa, 1u16), (sz, 2)] {
                let p = PortId(net.node(sw).ports + 1);
                b.connect(sw, p, storage, PortId(port), crate::ClassId(1))
                    .unwrap();
            }
            let net = b.build().unwrap();
            for seed in 0..2 {
                let fabric = shuffled(&net, seed);
                let r = recognise(&fabric).unwrap_or_else(|e| panic!("{spec_text}: {e}"));
                check_mapping(&fabric, &r);
                assert_eq!(r.describe(), shown);
                for engine in engines {
                    let routes = route(&fabric, engine, &RoutingOptions::default())
                        .unwrap_or_else(|e| panic!("{engine} on {spec_text}: {e}"));
                    let rep = routes.deadlock_report(&fabric).unwrap();
                    assert!(rep.deadlock_free, "{engine} on {spec_text}: {rep}");
                    // Every LID reached from every switch.
                    let view = crate::routing::LidRoutes::of(&fabric, &routes).unwrap();
                    let audit = view.audit(&fabric, 3);
                    assert!(audit.unreachable.is_empty(), "{engine}: {audit:?}");
                }
            }
        }
    }

    /// K2,2 is a 4-ring too: a 2-ary 2-tree, whose upper switches hold no
    /// terminals, is recognised as the tree.
    #[test]
    fn a_small_tree_is_a_tree_not_a_ring() {
        let r = recognise(&shuffled(&spec::build("kary-ntree:k=2,n=2").unwrap(), 1)).unwrap();
        assert_eq!(r.net.structure().family(), "kary-ntree");
    }

    /// A recognised fabric names the spec that builds it again.
    #[test]
    fn recognised_structures_name_their_spec() {
        for spec_text in [
            "torus:6x4x3,c=2",
            "mesh:4x3",
            "hypercube:3,c=2",
            "kary-ntree:k=3,n=3,terminals=27",
            "xgft:m=4x3,w=2x3,terminals=30",
            "crossbar:5",
            "hyperx:S=4x3,t=2,p=2",
            "dragonfly:a=4,p=2,h=2",
            "dragonfly:a=3,p=1,h=2,arrangement=circulant",
            "slimfly:q=5,p=4",
            "slimfly:q=4,p=2",
            "megafly:a=3,p=2,h=2",
            "megafly:a=2,p=3,h=3,arrangement=relative",
        ] {
            let generated = spec::build(spec_text).unwrap();
            let r = recognise(&shuffled(&generated, 2)).unwrap();
            check_mapping(&shuffled(&generated, 2), &r);
            assert!(
                crate::network::metrics::declared_holds(&r.net),
                "{spec_text}"
            );
            let text = r.net.structure().spec(r.net.terminals().len()).unwrap();
            assert_eq!(text, spec_text);
            let again = spec::build(&text).unwrap();
            assert_eq!(again.structure(), r.net.structure(), "{text}");
        }
    }

    #[test]
    fn groups_and_slim_flies_are_recognised_in_any_switch_order() {
        // Their switches of one degree do not all look alike (a dragonfly's
        // groups in the absolute arrangement, a Slim Fly's two kinds of
        // routers): the search tries every first match.
        // Where the search gives up (large groups of interchangeable
        // switches), the groups are found from the cabling and laid out as
        // cabled; the routers read their global links off it.
        use crate::network::GlobalArrangement;
        use crate::routing::adaptive::{dragonfly::DragonflyGeometry, megafly::MegaflyGeometry};
        for spec_text in [
            "dragonfly:a=4,p=1,h=2",
            "dragonfly:a=8,p=4,h=4",
            "megafly:a=3,p=2,h=3",
            "megafly:a=4,p=4,h=4",
            "megafly:a=4,p=1,h=2,arrangement=circulant",
            "slimfly:q=5,p=1",
            "slimfly:q=7,p=1",
        ] {
            let generated = spec::build(spec_text).unwrap();
            for seed in 0..4 {
                let fabric = shuffled(&generated, seed);
                let r = recognise(&fabric).unwrap_or_else(|e| panic!("{spec_text} {seed}: {e}"));
                check_mapping(&fabric, &r);
                let found = r.net.structure();
                assert_eq!(found.family(), generated.structure().family());
                match found {
                    Structure::Dragonfly {
                        arrangement: GlobalArrangement::Cabled,
                        ..
                    } => {
                        assert!(DragonflyGeometry::new(&r.net, "df-min").is_ok());
                        assert!(r.describe().contains("as cabled"), "{}", r.describe());
                    }
                    Structure::Megafly {
                        arrangement: GlobalArrangement::Cabled,
                        ..
                    } => assert!(MegaflyGeometry::new(&r.net, "mf-min").is_ok()),
                    _ => assert_eq!(r.describe(), spec_text),
                }
            }
        }
    }

    #[test]
    fn profiles_count_switches_per_distance() {
        for spec_text in ["torus:5x4x2", "torus:3x3", "mesh:4x3x2", "hypercube:4"] {
            let net = spec::build(spec_text).unwrap();
            let g = SwitchGraph::of(&net).unwrap();
            let corner = 0; // switch 0 is a corner of a mesh too
            assert_eq!(
                grid_profile(net.structure()),
                g.distance_profile(corner),
                "{spec_text}"
            );
        }
    }

    /// A shuffled HyperX comes back with its sides largest first, every
    /// switch link on the generator's ports, and one that lost a cable or
    /// gained one is no HyperX and says why.
    #[test]
    fn recognised_hyperx_gets_the_generator_layout() {
        let fabric = shuffled(&spec::build("hyperx:S=3x5x4,t=2,p=2").unwrap(), 5);
        let r = recognise(&fabric).unwrap();
        check_mapping(&fabric, &r);
        assert_eq!(r.describe(), "hyperx:S=5x4x3,t=2,p=2");
        let generated = spec::build("hyperx:S=5x4x3,t=2,p=2").unwrap();
        assert_eq!(generated.structure(), r.net.structure());
        for c in generated.channels() {
            if !(generated.is_switch(c.src) && generated.is_switch(c.dst)) {
                continue;
            }
            let x = r.net.switches()[generated.kind_index(c.src)];
            let o = r.net.channel(r.net.channel_at(x, c.src_port).unwrap());
            assert_eq!(
                (r.net.kind_index(o.dst), o.dst_port),
                (generated.kind_index(c.dst), c.dst_port)
            );
        }
        let net = spec::build("hyperx:S=4x4,t=1,p=1").unwrap();
        let (a, z) = (net.switches()[0], net.switches()[5]);
        let e = recognise(&shuffled(&with_cable(&net, a, z), 1)).unwrap_err();
        assert!(
            e.contains("not a hyperx: ") && e.contains("cabled to 7"),
            "{e}"
        );
        let (a, z) = (net.switches()[0], net.switches()[1]);
        let e = recognise(&shuffled(&with_cable(&net, a, z), 1)).unwrap_err();
        assert!(
            e.contains("not a hyperx: ") && e.contains("cables where"),
            "{e}"
        );
        // One more terminal on a switch: still the HyperX, described so.
        let r = recognise(&shuffled(&with_extra_terminal(&net), 3)).unwrap();
        assert_eq!(
            r.describe(),
            "hyperx:S=4x4,t=1 with 17 terminals, not the same number on every switch"
        );
    }

    #[test]
    fn hamming_sides_and_profiles() {
        assert_eq!(hamming_sides(16, 6), vec![vec![4, 4]]);
        assert_eq!(hamming_sides(16, 4), vec![vec![2, 2, 2, 2]]);
        assert_eq!(hamming_sides(12, 4), vec![vec![3, 2, 2]]);
        assert_eq!(hamming_sides(12, 5), vec![vec![4, 3]]);
        assert_eq!(hamming_sides(12, 11), vec![vec![12]]);
        assert_eq!(hamming_sides(12, 6), vec![vec![6, 2]]);
        assert!(hamming_sides(12, 7).is_empty());
        assert!(hamming_sides(1, 0).is_empty());
        for spec_text in ["hyperx:S=4x3x2,t=1,p=0", "hyperx:S=5,t=2,p=0"] {
            let net = spec::build(spec_text).unwrap();
            let g = SwitchGraph::of(&net).unwrap();
            let Structure::HyperX { sides, .. } = net.structure() else {
                panic!()
            };
            assert_eq!(hamming_profile(sides), g.distance_profile(7 % g.adj.len()));
        }
        assert_eq!(hamming_profile(&[4, 3, 2]), vec![1, 6, 11, 6]);
    }

    #[test]
    fn factorisations_and_mesh_degrees() {
        assert_eq!(factorisations(16, 2), vec![vec![8, 2], vec![4, 4]]);
        assert_eq!(factorisations(12, 3), vec![vec![3, 2, 2]]);
        assert!(factorisations(7, 2).is_empty());
        let mut d = mesh_degrees(&[3, 2]);
        d.sort_unstable();
        assert_eq!(d, vec![2, 2, 2, 2, 3, 3]);
    }
}
