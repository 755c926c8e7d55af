//! The throughput bound of a pattern: the maximum concurrent flow, over the
//! minimal paths (what any minimal router, adaptive or not, can at best
//! sustain) or over all paths (what any routing can).
//!
//! Every flow `(source, destination)` asks for the same rate `lambda`; a
//! routing may split a flow over any of its allowed paths in any
//! proportion; every channel carries at most its bandwidth. The largest
//! such `lambda` is a linear program (the maximum concurrent flow). Its
//! dual gives a certificate: for any channel lengths `l >= 0`,
//!
//! ```text
//!     lambda* <= sum_c bandwidth(c) l(c) / sum_flows dist_l(source, destination)
//! ```
//!
//! where `dist_l` is the shortest allowed path under `l` (minimal paths
//! only, or all paths). Any routing that carries every flow at once gives a
//! lower bound. [`max_concurrent_flow`] narrows the two with the
//! Garg-Könemann multiplicative-weights method, commodities grouped by
//! source (Karakostas): each phase routes every source's demand on its
//! shortest-path tree under the current lengths and raises the lengths of
//! the channels it loads. The certified upper bound (`upper`) is what a
//! "bound" column shows; `lower` is a rate a routing found by the method
//! reaches, so `lambda*` lies in `[lower, upper]`.
//!
//! A path runs from the source terminal through switches to the
//! destination terminal; terminals never forward. With minimal paths the
//! allowed channels of a source form the breadth-first DAG from it (every
//! path in that DAG to a destination is a shortest one). Cost per phase: one
//! pass over the channels per source (Dijkstra for all paths), so a
//! 16x16x16 torus (4,096 sources, 32,768 channels) takes about a second a
//! phase; see BENCHMARKS.md.

use super::FlowError;
use crate::network::{ChannelId, Network, NodeId};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::time::Instant;

/// Which paths a flow may take.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PathRule {
    /// Minimal (shortest-hop) paths only.
    #[default]
    Minimal,
    /// Any path.
    Any,
}

impl PathRule {
    pub fn parse(text: &str) -> Result<PathRule, FlowError> {
        match text.trim() {
            "minimal" => Ok(PathRule::Minimal),
            "any" => Ok(PathRule::Any),
            other => Err(FlowError::bad_option(
                "paths",
                other,
                "minimal (shortest paths only) or any",
            )),
        }
    }
}

/// How far [`max_concurrent_flow`] narrows the interval.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BoundOptions {
    pub paths: PathRule,
    /// Stop once `1 - lower / upper` is at most this (default 0.01).
    pub tolerance: f64,
    /// Stop after this many phases whatever the gap (default 400).
    pub max_phases: usize,
    /// The step of the length updates (default 0.1): smaller converges
    /// closer but slower.
    pub epsilon: f64,
    /// Whether terminal links (injection and ejection) limit the flows
    /// (default true); without, only links between switches do.
    pub terminal_links: bool,
}

impl Default for BoundOptions {
    fn default() -> Self {
        BoundOptions {
            paths: PathRule::Minimal,
            tolerance: 0.01,
            max_phases: 400,
            epsilon: 0.1,
            terminal_links: true,
        }
    }
}

/// The outcome of [`max_concurrent_flow`]; rates in bit/s per flow.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ConcurrentFlow {
    pub paths: PathRule,
    /// No routing over the allowed paths carries every flow at a higher
    /// common rate (certified by LP duality).
    pub upper: f64,
    /// A routing over the allowed paths carries every flow at this rate.
    pub lower: f64,
    /// `1 - lower / upper`.
    pub gap: f64,
    /// Phases run.
    pub phases: usize,
    /// Per-channel load, in flows, of the routing that reaches `lower`.
    pub loads: Vec<f64>,
    pub seconds: f64,
}

/// The maximum concurrent flow of `flows` (`(source, destination)` terminal
/// indices, each asking for the same rate; a repeated pair asks for that
/// rate once per listing) on `net`'s channel bandwidths. Self pairs are
/// idle. See the module docs.
pub fn max_concurrent_flow(
    net: &Network,
    flows: &[(usize, usize)],
    opts: &BoundOptions,
) -> Result<ConcurrentFlow, FlowError> {
    let start = Instant::now();
    if !(opts.tolerance > 0.0 && opts.tolerance < 1.0) {
        return Err(FlowError::bad_option(
            "tolerance",
            opts.tolerance,
            "a fraction in (0, 1), e.g. 0.01",
        ));
    }
    if !(opts.epsilon > 0.0 && opts.epsilon <= 0.5) {
        return Err(FlowError::bad_option(
            "epsilon",
            opts.epsilon,
            "a step in (0, 0.5], e.g. 0.1",
        ));
    }
    let mut groups = group_by_source(net, flows)?;
    if opts.paths == PathRule::Minimal {
        let n = net.node_count();
        let (mut fwd, mut bwd) = (Bfs::new(n), Bfs::new(n));
        for g in &mut groups {
            minimal_dag(net, g, &mut fwd, &mut bwd)?;
        }
    }
    // A capacity of 0 marks a channel that limits nothing.
    let cap: Vec<f64> = net
        .channels()
        .iter()
        .map(|c| {
            let free = !opts.terminal_links && (net.is_terminal(c.src) || net.is_terminal(c.dst));
            if free {
                0.0
            } else {
                net.class(c.class).bandwidth.0 as f64
            }
        })
        .collect();
    let m = net.channel_count();
    let solver = Solver {
        net,
        rule: opts.paths,
        cap: &cap,
        groups: &groups,
    };
    let unbounded = |start: Instant| ConcurrentFlow {
        paths: opts.paths,
        upper: f64::INFINITY,
        lower: f64::INFINITY,
        gap: 0.0,
        phases: 0,
        loads: vec![0.0; m],
        seconds: start.elapsed().as_secs_f64(),
    };
    if groups.is_empty() {
        return Ok(unbounded(start));
    }

    // Lengths 1 / bandwidth: the first trees are the fewest-hop ones
    // weighted by bandwidth; their rate sets the demand scale, so that a
    // phase loads the busiest channel about once.
    let mut len: Vec<f64> = cap
        .iter()
        .map(|&c| if c > 0.0 { 1.0 / c } else { 0.0 })
        .collect();
    let first = solver.certify(&len)?;
    let mut upper = first.0;
    let mut lower = 0.0f64;
    let mut best_loads = vec![0.0; m];
    let scale = {
        let peak = first
            .1
            .iter()
            .zip(&cap)
            .filter(|(_, &c)| c > 0.0)
            .map(|(&f, &c)| f / c)
            .fold(0.0, f64::max);
        if peak == 0.0 {
            // No flow crosses a channel that limits it.
            return Ok(unbounded(start));
        }
        1.0 / peak
    };
    let mut total = vec![0.0; m];
    let mut window_start = vec![0.0; m];
    let (mut phase, mut window_phase) = (0usize, 0usize);
    let mut ws = Workspace::new(net.node_count(), m);
    while phase < opts.max_phases {
        for g in &groups {
            solver.route_group(g, scale, opts.epsilon, &mut len, &mut total, &mut ws)?;
        }
        phase += 1;
        // Lengths only matter up to a common factor: keep them in range.
        let top = len.iter().copied().fold(0.0, f64::max);
        if top > 0.0 {
            len.iter_mut().for_each(|l| *l /= top);
        }
        // The phases since the window start route every flow `phases`
        // times at `scale`: a feasible routing once scaled to capacity.
        let phases = (phase - window_phase) as f64;
        let mut worst = 0.0f64;
        for c in 0..m {
            if cap[c] > 0.0 {
                worst = worst.max((total[c] - window_start[c]) / cap[c]);
            }
        }
        if worst > 0.0 {
            let rate = phases * scale / worst;
            if rate > lower {
                lower = rate;
                for c in 0..m {
                    best_loads[c] = (total[c] - window_start[c]) / (phases * scale);
                }
                // Lengths on the channels the new routing fills (nearly)
                // full: when it is optimal, its tight channels are a cut
                // whose dual bound meets it.
                for power in [f64::INFINITY, 16.0] {
                    let tight = tight_lengths(&best_loads, &cap, lower, power);
                    upper = upper.min(solver.certify(&tight)?.0);
                }
            }
        }
        if phase == 2 * window_phase.max(1) {
            window_start.copy_from_slice(&total);
            window_phase = phase;
        }
        upper = upper.min(solver.certify(&len)?.0);
        if 1.0 - lower / upper <= opts.tolerance {
            break;
        }
    }
    Ok(ConcurrentFlow {
        paths: opts.paths,
        upper,
        lower,
        gap: 1.0 - lower / upper,
        phases: phase,
        loads: best_loads,
        seconds: start.elapsed().as_secs_f64(),
    })
}

/// Dual lengths from a routing's utilisation `u = load x rate / bandwidth`:
/// `u^power / bandwidth` (with an infinite power, `1 / bandwidth` on the
/// channels within 1e-9 of full and 0 elsewhere).
fn tight_lengths(loads: &[f64], cap: &[f64], rate: f64, power: f64) -> Vec<f64> {
    loads
        .iter()
        .zip(cap)
        .map(|(&l, &c)| {
            if c <= 0.0 {
                return 0.0;
            }
            let u = l * rate / c;
            if power.is_infinite() {
                if u >= 1.0 - 1e-9 {
                    1.0 / c
                } else {
                    0.0
                }
            } else {
                u.min(1.0).powf(power) / c
            }
        })
        .collect()
}

/// The destinations of one source terminal, with their demands (flows),
/// and, for minimal paths, the channels of its DAG of minimal paths in
/// topological order.
struct Group {
    src: NodeId,
    dsts: Vec<(NodeId, f64)>,
    dag: Vec<ChannelId>,
}

fn group_by_source(net: &Network, flows: &[(usize, usize)]) -> Result<Vec<Group>, FlowError> {
    let t = net.terminals().len();
    let mut per_src: Vec<Vec<usize>> = vec![Vec::new(); t];
    for (index, &(src, dst)) in flows.iter().enumerate() {
        if src >= t || dst >= t {
            return Err(FlowError::BadFlow {
                index,
                src,
                dst,
                terminals: t,
            });
        }
        if src != dst {
            per_src[src].push(dst);
        }
    }
    let mut groups = Vec::new();
    for (s, mut ds) in per_src.into_iter().enumerate() {
        if ds.is_empty() {
            continue;
        }
        // Sorted by node, so that a search finds a destination.
        let mut nodes: Vec<NodeId> = ds.drain(..).map(|d| net.terminal(d)).collect();
        nodes.sort_unstable();
        let mut dsts: Vec<(NodeId, f64)> = Vec::new();
        for node in nodes {
            match dsts.last_mut() {
                Some((n, w)) if *n == node => *w += 1.0,
                _ => dsts.push((node, 1.0)),
            }
        }
        groups.push(Group {
            src: net.terminal(s),
            dsts,
            dag: Vec::new(),
        });
    }
    Ok(groups)
}

/// Above this many destinations a source's DAG is its whole breadth-first
/// DAG (up to the farthest destination) rather than the union of one DAG
/// per destination: with many destinations they cover nearly all of it.
const FEW_DESTINATIONS: usize = 16;

/// Fills `g.dag`: the channels on minimal paths from the source to its
/// destinations, ordered by the hop distance of their tail.
fn minimal_dag(
    net: &Network,
    g: &mut Group,
    fwd: &mut Bfs,
    bwd: &mut Bfs,
) -> Result<(), FlowError> {
    fwd.run(net, g.src, false, &g.dsts);
    let mut far = 0;
    for &(d, _) in &g.dsts {
        match fwd.dist[d.index()] {
            FAR => {
                fwd.reset();
                return Err(FlowError::Disconnected {
                    src: net.node(g.src).name.clone(),
                    dst: net.node(d).name.clone(),
                });
            }
            h => far = far.max(h),
        }
    }
    let hop = |fwd: &Bfs, c: ChannelId| fwd.dist[net.channel(c).src.index()];
    let mut dag = Vec::new();
    let forwards = |u: NodeId| u == g.src || !net.is_terminal(u);
    if g.dsts.len() > FEW_DESTINATIONS {
        for &u in &fwd.order {
            let hu = fwd.dist[u.index()];
            if hu >= far || !forwards(u) {
                continue;
            }
            for &c in net.out_channels(u) {
                if fwd.dist[net.channel(c).dst.index()] == hu + 1 {
                    dag.push(c);
                }
            }
        }
    } else {
        for &(d, _) in &g.dsts {
            let hd = fwd.dist[d.index()];
            bwd.run(net, d, true, &[(g.src, 0.0)]);
            for &u in &fwd.order {
                let hu = fwd.dist[u.index()];
                if hu >= hd || !forwards(u) {
                    continue;
                }
                for &c in net.out_channels(u) {
                    let back = bwd.dist[net.channel(c).dst.index()];
                    if back != FAR && hu + 1 + back == hd {
                        dag.push(c);
                    }
                }
            }
            bwd.reset();
        }
        dag.sort_unstable_by_key(|&c| (hop(fwd, c), c.0));
        dag.dedup();
    }
    fwd.reset();
    g.dag = dag;
    Ok(())
}

/// Breadth-first hop distances from one node, forwarding only through
/// switches (and the start); along reversed channels when `backward`, so
/// that they are distances towards the start. Stops past the farthest of
/// `targets`.
struct Bfs {
    dist: Vec<u32>,
    order: Vec<NodeId>,
}

impl Bfs {
    fn new(nodes: usize) -> Self {
        Bfs {
            dist: vec![FAR; nodes],
            order: Vec::new(),
        }
    }

    fn run(&mut self, net: &Network, from: NodeId, backward: bool, targets: &[(NodeId, f64)]) {
        self.dist[from.index()] = 0;
        self.order.push(from);
        let mut left = targets.len();
        let mut far = FAR;
        let mut head = 0;
        while head < self.order.len() {
            let u = self.order[head];
            head += 1;
            let hu = self.dist[u.index()];
            if hu >= far {
                break;
            }
            if u != from && net.is_terminal(u) {
                continue;
            }
            for &c in net.out_channels(u) {
                let v = if backward {
                    net.channel(c.reverse()).src
                } else {
                    net.channel(c).dst
                };
                if self.dist[v.index()] == FAR {
                    self.dist[v.index()] = hu + 1;
                    self.order.push(v);
                    if targets.binary_search_by_key(&v, |&(t, _)| t).is_ok() {
                        left -= 1;
                        if left == 0 {
                            far = hu + 1;
                        }
                    }
                }
            }
        }
    }

    fn reset(&mut self) {
        for &v in &self.order {
            self.dist[v.index()] = FAR;
        }
        self.order.clear();
    }
}

struct Solver<'a> {
    net: &'a Network,
    rule: PathRule,
    cap: &'a [f64],
    groups: &'a [Group],
}

/// Per-thread buffers of a shortest-path tree.
struct Workspace {
    hops: Vec<u32>,
    dist: Vec<f64>,
    pred: Vec<Option<ChannelId>>,
    order: Vec<NodeId>,
    step: Vec<f64>,
    touched: Vec<ChannelId>,
}

const FAR: u32 = u32::MAX;

impl Workspace {
    fn new(nodes: usize, channels: usize) -> Self {
        Workspace {
            hops: vec![FAR; nodes],
            dist: vec![f64::INFINITY; nodes],
            pred: vec![None; nodes],
            order: Vec::with_capacity(nodes),
            step: vec![0.0; channels],
            touched: Vec::new(),
        }
    }

    fn reset(&mut self) {
        for &v in &self.order {
            self.hops[v.index()] = FAR;
            self.dist[v.index()] = f64::INFINITY;
            self.pred[v.index()] = None;
        }
        self.order.clear();
    }
}

impl Solver<'_> {
    /// The shortest allowed paths from `g.src` under `len` into `ws`
    /// (`dist`, `pred`); an unreachable destination is an error.
    fn tree(&self, g: &Group, len: &[f64], ws: &mut Workspace) -> Result<(), FlowError> {
        ws.reset();
        let net = self.net;
        match self.rule {
            PathRule::Minimal => {
                ws.dist[g.src.index()] = 0.0;
                ws.order.push(g.src);
                for &c in &g.dag {
                    let ch = net.channel(c);
                    let dv = ws.dist[ch.src.index()] + len[c.index()];
                    let v = ch.dst.index();
                    if dv < ws.dist[v] {
                        if ws.dist[v] == f64::INFINITY {
                            ws.order.push(ch.dst);
                        }
                        ws.dist[v] = dv;
                        ws.pred[v] = Some(c);
                    }
                }
            }
            PathRule::Any => {
                let mut heap = BinaryHeap::new();
                ws.dist[g.src.index()] = 0.0;
                ws.hops[g.src.index()] = 0;
                ws.order.push(g.src);
                heap.push(Reverse((Key(0.0), g.src.0)));
                while let Some(Reverse((Key(du), u))) = heap.pop() {
                    let u = NodeId(u);
                    if du > ws.dist[u.index()] || (u != g.src && net.is_terminal(u)) {
                        continue;
                    }
                    for &c in net.out_channels(u) {
                        let v = net.channel(c).dst;
                        let dv = du + len[c.index()];
                        if dv < ws.dist[v.index()] {
                            if ws.hops[v.index()] == FAR {
                                ws.hops[v.index()] = 0;
                                ws.order.push(v);
                            }
                            ws.dist[v.index()] = dv;
                            ws.pred[v.index()] = Some(c);
                            heap.push(Reverse((Key(dv), v.0)));
                        }
                    }
                }
            }
        }
        for &(d, _) in &g.dsts {
            if ws.pred[d.index()].is_none() {
                return Err(FlowError::Disconnected {
                    src: net.node(g.src).name.clone(),
                    dst: net.node(d).name.clone(),
                });
            }
        }
        Ok(())
    }

    /// Routes `scale` x the demands of `g` on shortest trees under `len`,
    /// in steps that load no channel beyond its bandwidth, raising each
    /// loaded channel's length by `1 + epsilon x load / bandwidth`.
    fn route_group(
        &self,
        g: &Group,
        scale: f64,
        epsilon: f64,
        len: &mut [f64],
        total: &mut [f64],
        ws: &mut Workspace,
    ) -> Result<(), FlowError> {
        let mut left = 1.0f64;
        while left > 1e-12 {
            self.tree(g, len, ws)?;
            ws.touched.clear();
            for &(d, w) in &g.dsts {
                let amount = w * scale * left;
                let mut v = d;
                while let Some(c) = ws.pred[v.index()] {
                    if ws.step[c.index()] == 0.0 {
                        ws.touched.push(c);
                    }
                    ws.step[c.index()] += amount;
                    v = self.net.channel(c).src;
                }
            }
            let sigma = ws
                .touched
                .iter()
                .filter(|c| self.cap[c.index()] > 0.0)
                .map(|c| ws.step[c.index()] / self.cap[c.index()])
                .fold(0.0, f64::max);
            let kappa = if sigma > 1.0 { 1.0 / sigma } else { 1.0 };
            for &c in &ws.touched {
                let f = kappa * ws.step[c.index()];
                total[c.index()] += f;
                if self.cap[c.index()] > 0.0 {
                    len[c.index()] *= 1.0 + epsilon * f / self.cap[c.index()];
                }
                ws.step[c.index()] = 0.0;
            }
            left *= 1.0 - kappa;
        }
        Ok(())
    }

    /// The dual bound `sum bandwidth x length / sum demand x distance` for
    /// `len`, and the loads (flows per channel) of every flow on its
    /// shortest allowed path.
    fn certify(&self, len: &[f64]) -> Result<(f64, Vec<f64>), FlowError> {
        let m = self.net.channel_count();
        let parts: Result<Vec<(f64, Vec<f64>)>, FlowError> = self
            .groups
            .par_chunks(64)
            .map(|chunk| {
                let mut ws = Workspace::new(self.net.node_count(), 0);
                let mut load = vec![0.0; m];
                let mut alpha = 0.0;
                for g in chunk {
                    self.tree(g, len, &mut ws)?;
                    for &(d, w) in &g.dsts {
                        alpha += w * ws.dist[d.index()];
                        let mut v = d;
                        while let Some(c) = ws.pred[v.index()] {
                            load[c.index()] += w;
                            v = self.net.channel(c).src;
                        }
                    }
                }
                Ok((alpha, load))
            })
            .collect();
        let mut alpha = 0.0;
        let mut load = vec![0.0; m];
        for (a, l) in parts? {
            alpha += a;
            for (t, x) in load.iter_mut().zip(l) {
                *t += x;
            }
        }
        let volume: f64 = self.cap.iter().zip(len).map(|(c, l)| c * l).sum();
        let bound = if alpha > 0.0 {
            volume / alpha
        } else {
            f64::INFINITY
        };
        Ok((bound, load))
    }
}

/// A total order on distances for the heap (they are never NaN).
#[derive(Debug, Clone, Copy, PartialEq)]
struct Key(f64);

impl Eq for Key {}

impl PartialOrd for Key {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Key {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.0.total_cmp(&other.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::flow::{channel_loads, minimal_split_loads};
    use crate::network::spec;
    use crate::routing::{self, RoutingOptions};
    use crate::traffic::Pattern;

    fn solve(topo: &str, flows: &[(usize, usize)], paths: PathRule) -> (Network, ConcurrentFlow) {
        let net = spec::build(topo).unwrap();
        let opts = BoundOptions {
            paths,
            tolerance: 0.01,
            max_phases: 1000,
            ..BoundOptions::default()
        };
        let r = max_concurrent_flow(&net, flows, &opts).unwrap();
        assert!(r.lower <= r.upper * (1.0 + 1e-12), "{topo}: {r:?}");
        (net, r)
    }

    fn link_bps(net: &Network) -> f64 {
        net.class(net.channels()[0].class).bandwidth.0 as f64
    }

    fn pattern(net: &Network, name: &str) -> Vec<(usize, usize)> {
        Pattern::parse(name).unwrap().bind(net, 1).unwrap().flows()
    }

    #[test]
    fn a_ring_under_tornado_meets_the_analytical_values() {
        // 8-ring, x -> x + 3: minimal paths go 3 hops one way, each channel
        // of that way carries 3 flows (lambda = c / 3); any routing sends
        // 5/8 of each flow the short way and 3/8 the long way, 15/8 flows on
        // every ring channel (lambda = 8c / 15).
        let flows: Vec<_> = (0..8).map(|s| (s, (s + 3) % 8)).collect();
        let (net, min) = solve("torus:8", &flows, PathRule::Minimal);
        let c = link_bps(&net);
        brackets(&min, c / 3.0);
        let (_, any) = solve("torus:8", &flows, PathRule::Any);
        brackets(&any, 8.0 * c / 15.0);
    }

    /// The bound is a bound, the rate reached is reached, and both are
    /// within the tolerance of the exact value.
    fn brackets(r: &ConcurrentFlow, exact: f64) {
        assert!(r.upper >= exact * (1.0 - 1e-9), "{r:?} against {exact}");
        assert!(r.lower <= exact * (1.0 + 1e-9), "{r:?} against {exact}");
        assert!(
            r.gap <= 0.01 && r.upper <= exact * 1.01,
            "{r:?} against {exact}"
        );
    }

    #[test]
    fn a_crossbar_is_limited_by_its_terminal_links() {
        // Uniform on 8 ports: each injection link carries 7 flows.
        let flows: Vec<_> = (0..8)
            .flat_map(|s| (0..8).filter(move |&d| d != s).map(move |d| (s, d)))
            .collect();
        for paths in [PathRule::Minimal, PathRule::Any] {
            let (net, r) = solve("crossbar:8", &flows, paths);
            brackets(&r, link_bps(&net) / 7.0);
        }
        let (net, r) = solve("crossbar:8", &[(0, 5), (3, 5)], PathRule::Any);
        brackets(&r, link_bps(&net) / 2.0);
        let e = max_concurrent_flow(&net, &[(0, 8)], &BoundOptions::default()).unwrap_err();
        assert!(e.to_string().contains("0..=7"), "{e}");
    }

    #[test]
    fn no_routing_beats_the_bound() {
        // The bound over minimal paths is at least what the even split and
        // every minimal engine's routes allow; the bound over all paths at
        // least what the best minimal routing found reaches.
        for (topo, pat) in [
            ("torus:4x4", "transpose"),
            ("torus:4x4", "tornado"),
            ("torus:4x4x2", "bit-reverse"),
            ("mesh:3x4", "permutation"),
            ("kary-ntree:k=2,n=3", "bit-complement"),
            ("kary-ntree:k=4,n=2", "shuffle"),
        ] {
            let net = spec::build(topo).unwrap();
            let flows = pattern(&net, pat);
            let (_, min) = solve(topo, &flows, PathRule::Minimal);
            let (_, any) = solve(topo, &flows, PathRule::Any);
            let caps: Vec<f64> = net
                .channels()
                .iter()
                .map(|c| net.class(c.class).bandwidth.0 as f64)
                .collect();
            let allows = |loads: &[f64]| {
                loads
                    .iter()
                    .zip(&caps)
                    .filter(|(&l, _)| l > 0.0)
                    .map(|(&l, &c)| c / l)
                    .fold(f64::INFINITY, f64::min)
            };
            let even = allows(&minimal_split_loads(&net, &flows).unwrap());
            assert!(
                min.upper >= even * (1.0 - 1e-9),
                "{topo} {pat}: {min:?} < even {even}"
            );
            for engine in ["minhop", "dfsssp", "dor", "dmodk"] {
                let Ok(r) = routing::route(&net, engine, &RoutingOptions::default()) else {
                    continue;
                };
                let rate = allows(&channel_loads(&net, &r, &flows).unwrap().to_f64());
                assert!(min.upper >= rate * (1.0 - 1e-9), "{topo} {pat} {engine}");
            }
            assert!(any.upper >= min.lower * (1.0 - 1e-9), "{topo} {pat}");
            assert!(
                min.gap <= 0.01 && any.gap <= 0.01,
                "{topo} {pat}: {min:?} {any:?}"
            );
            // The routing found is feasible: its loads times its rate fit.
            for (l, c) in min.loads.iter().zip(&caps) {
                assert!(l * min.lower <= c * (1.0 + 1e-9));
            }
        }
    }

    #[test]
    fn bad_options_and_idle_patterns() {
        let net = spec::build("torus:4").unwrap();
        let bad = BoundOptions {
            tolerance: 0.0,
            ..BoundOptions::default()
        };
        let e = max_concurrent_flow(&net, &[(0, 1)], &bad).unwrap_err();
        assert!(e.to_string().contains("tolerance"), "{e}");
        let r = max_concurrent_flow(&net, &[(2, 2)], &BoundOptions::default()).unwrap();
        assert!(r.upper.is_infinite() && r.phases == 0);
        assert!(PathRule::parse("shortest")
            .unwrap_err()
            .to_string()
            .contains("minimal"));
    }
}
