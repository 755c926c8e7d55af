//! Up*/down* routing (Schroeder et al.; as used by Myrinet, Flich et al.
//! 2000 §2).
//!
//! A breadth-first spanning tree from a root switch (the `root` option, a
//! switch's name, GUID or index; or the switch with the smallest
//! eccentricity, ties to the lowest id) orders the switches by (tree level,
//! id). The "up" end of every link is the end earlier in that order: the one
//! closer to the root, or the lower id at the same level. A legal route
//! takes zero or more links up, then zero or more down; every cycle of the
//! network has an up and a down link, so the channel dependency graph is
//! acyclic on a single lane.
//!
//! Per destination terminal the engine computes, for every switch, the
//! shortest all-down distance and the shortest legal distance to it. With
//! destination-based tables a switch has one next hop for every packet, so a
//! switch entered by a down link must keep going down: switches are decided
//! in up/down order (root first), each taking its shortest legal next hop
//! given the decisions above it, and a switch that some route enters going
//! down takes its shortest all-down next hop. Every route is therefore legal
//! and as short as destination-based forwarding allows; it equals the
//! shortest legal path unless that would force a switch to continue upwards
//! after a down link. Ties go to the channel carrying the fewest routes so
//! far (link load weights, as Myrinet's simple_routes), then the lowest port.

use super::columns::ColumnWriter;
use super::fabric::{Fabric, Link, NONE};
use super::{Routes, RoutingEngine, RoutingError, RoutingOptions};
use crate::network::metrics::updown as updown_order;
use crate::network::Network;
use std::cmp::Reverse;
use std::collections::VecDeque;

pub struct UpDown {
    root: Option<String>,
}

pub fn engine(o: &RoutingOptions) -> Box<dyn RoutingEngine> {
    Box::new(UpDown {
        root: o.root.clone(),
    })
}

const INF: u32 = u32::MAX / 4;

impl RoutingEngine for UpDown {
    fn name(&self) -> &'static str {
        "updown"
    }

    fn route(&self, net: &Network) -> Result<Routes, RoutingError> {
        // The root option may name a switch by index: map it too.
        super::canonical::by_guid(net, |n, node| {
            UpDown {
                root: self.root.as_deref().map(node),
            }
            .route_listed(n)
        })
    }
}

impl UpDown {
    /// Routes `net` in the order it lists nodes and cables ([`Self::route`]
    /// gives it the canonical order, by GUID).
    fn route_listed(&self, net: &Network) -> Result<Routes, RoutingError> {
        let f = Fabric::new(net, self.name())?;
        let mut routes = Routes::new(net, self.name());
        if f.t == 0 || f.main == NONE {
            return Ok(routes);
        }
        let rank = order(&f, &self.root)?;
        route_all(&f, &rank, &mut routes);
        Ok(routes)
    }
}

/// The up/down order of the switches from the `root` option (or the most
/// central switch): each switch's rank, root first; `NONE` outside the
/// terminals' component. A move to a lower rank goes up.
pub(crate) fn order(f: &Fabric, root: &Option<String>) -> Result<Vec<u32>, RoutingError> {
    let root = root_switch(f, root)?;
    Ok(ranks(f, root))
}

/// Fills `routes`' tables with up*/down* routes on the order `rank` (the
/// tables source-routing engines keep for export).
pub(crate) fn fill_tables(f: &Fabric, rank: &[u32], routes: &mut Routes) {
    route_all(f, rank, routes);
}

fn root_switch(f: &Fabric, root: &Option<String>) -> Result<usize, RoutingError> {
    let net = f.net;
    match root {
        Some(name) => {
            let bad = |expected: &str| RoutingError::BadOption {
                option: "root".into(),
                value: name.clone(),
                expected: expected.into(),
            };
            // A name or GUID first; a number no node is named is a switch index.
            let index = name.trim().parse::<usize>().ok().filter(|&i| i < f.s);
            let node = match (net.find_node(name), index) {
                (Ok(node), _) => node,
                (Err(_), Some(i)) => f.switch_node(i),
                (Err(why), None) => {
                    return Err(bad(&format!(
                        "a switch of the network by name, GUID (0x...) or index \
                             (0..={}); {why}",
                        f.s.saturating_sub(1)
                    )))
                }
            };
            if !net.is_switch(node) {
                return Err(bad("a switch (this is a terminal)"));
            }
            let x = net.kind_index(node);
            if !f.in_main(x) {
                return Err(bad("a switch connected to the terminals"));
            }
            Ok(x)
        }
        None => Ok(central_switch(f)),
    }
}

/// The switch of the terminals' component with the smallest eccentricity
/// (ties to the lowest id).
fn central_switch(f: &Fabric) -> usize {
    let members: Vec<usize> = (0..f.s).filter(|&x| f.in_main(x)).collect();
    updown_order::central_switch(f.net, &members).expect("the component has a switch")
}

/// Position of every switch in the up/down order (root first); `NONE`
/// outside the terminals' component. "Up" leads to a lower rank.
fn ranks(f: &Fabric, root: usize) -> Vec<u32> {
    // `OUTSIDE` and `NONE` are both u32::MAX.
    updown_order::updown_ranks(f.net, root)
}

/// Is the move along `l` from switch `x` a step up?
#[inline]
pub(crate) fn is_up(rank: &[u32], x: usize, l: &Link) -> bool {
    rank[l.to as usize] < rank[x]
}

fn route_all(f: &Fabric, rank: &[u32], routes: &mut Routes) {
    let net = f.net;
    let (s, t) = (f.s, f.t);
    let mut order: Vec<usize> = (0..s).filter(|&x| rank[x] != NONE).collect();
    order.sort_unstable_by_key(|&x| rank[x]);
    let mut load = vec![0u64; net.channel_count()];
    let mut down = vec![INF; s];
    let mut any = vec![INF; s];
    let mut actual = vec![INF; s];
    let mut forced = vec![false; s];
    let mut next = vec![NONE; s];
    let mut count = vec![0u64; s];
    let mut queue = VecDeque::new();
    let mut buckets: Vec<Vec<u32>> = Vec::new();
    let mut writer = ColumnWriter::new(s);
    let mut by_len: Vec<usize> = Vec::with_capacity(s);
    for d in 0..t {
        // Shortest all-down distance: backwards from the sinks, each step
        // arriving at a switch from one earlier in the order.
        down.fill(INF);
        for k in f.sinks(d) {
            if rank[k.switch as usize] != NONE {
                down[k.switch as usize] = 0;
                queue.push_back(k.switch as usize);
            }
        }
        while let Some(v) = queue.pop_front() {
            for l in f.links(v) {
                let u = l.to as usize;
                // u -> v goes down when u is earlier.
                if rank[u] < rank[v] && down[u] == INF {
                    down[u] = down[v] + 1;
                    queue.push_back(u);
                }
            }
        }
        // Shortest legal distance: up moves, then an all-down tail. Steps
        // cost one, so switches wait in a bucket per distance (Dial's
        // algorithm; only the distances are used, not the order).
        any.copy_from_slice(&down);
        for bucket in &mut buckets {
            bucket.clear();
        }
        for &x in &order {
            if any[x] != INF {
                bucket_of(&mut buckets, any[x]).push(x as u32);
            }
        }
        let mut dv = 0;
        while (dv as usize) < buckets.len() {
            while let Some(v) = buckets[dv as usize].pop() {
                let v = v as usize;
                if any[v] != dv {
                    continue;
                }
                for l in f.links(v) {
                    let w = l.to as usize;
                    // w -> v goes up when v is earlier.
                    if rank[v] < rank[w] && dv + 1 < any[w] {
                        any[w] = dv + 1;
                        bucket_of(&mut buckets, dv + 1).push(w as u32);
                    }
                }
            }
            dv += 1;
        }
        // Decide in up/down order.
        writer.start(&mut routes.table, t, d);
        forced.fill(false);
        actual.fill(INF);
        next.fill(NONE);
        for &x in &order {
            if let Some(p) = f.sink_port(x, d) {
                writer.set(x, p.0);
                actual[x] = 0;
                continue;
            }
            let links = f.links(x);
            // Candidate key: (length, harm, load); harm = how much longer
            // the route of a switch we force downwards becomes.
            let mut best: Option<(u32, u32, u64, usize)> = None;
            for (k, l) in links.iter().enumerate() {
                let y = l.to as usize;
                if rank[y] == NONE {
                    continue;
                }
                let (len, harm) = if forced[x] {
                    if is_up(rank, x, l) || down[y] == INF || down[y] + 1 != down[x] {
                        continue;
                    }
                    (down[y] + 1, 0)
                } else if is_up(rank, x, l) {
                    if actual[y] == INF {
                        continue;
                    }
                    (actual[y] + 1, 0)
                } else {
                    if down[y] == INF {
                        continue;
                    }
                    let harm = if forced[y] { 0 } else { down[y] - any[y] };
                    (down[y] + 1, harm)
                };
                let key = (len, harm, load[l.ch.index()], k);
                let better = match best {
                    None => true,
                    Some(b) => key < b,
                };
                if better {
                    best = Some(key);
                }
            }
            let Some((len, _, _, k)) = best else { continue };
            let l = links[k];
            let y = l.to as usize;
            if !is_up(rank, x, &l) {
                forced[y] = true;
            }
            actual[x] = len;
            next[x] = k as u32;
            writer.set(x, l.port.0);
        }
        // Link loads: routes per switch, pushed along the in-tree from the
        // longest routes down.
        by_len.clear();
        by_len.extend(order.iter().copied().filter(|&x| actual[x] != INF));
        by_len.sort_unstable_by_key(|&x| Reverse(actual[x]));
        for &x in &by_len {
            count[x] = u64::from(f.injecting[x]) - u64::from(f.inject[d] as usize == x);
        }
        for &x in &by_len {
            if next[x] != NONE {
                let l = f.links(x)[next[x] as usize];
                load[l.ch.index()] += count[x];
                count[l.to as usize] += count[x];
            }
        }
    }
    writer.flush(&mut routes.table, t);
}

/// The bucket of switches at distance `d`, made when first needed.
fn bucket_of(buckets: &mut Vec<Vec<u32>>, d: u32) -> &mut Vec<u32> {
    let d = d as usize;
    if buckets.len() <= d {
        buckets.resize_with(d + 1, Vec::new);
    }
    &mut buckets[d]
}
