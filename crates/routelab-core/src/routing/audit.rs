//! What an administrator asks of a fabric's routes besides deadlock
//! freedom: which pairs have no working route (a black hole or a loop in
//! the tables) and which routes are longer than the fabric allows.
//!
//! Table routes are walked once per (injection switch, destination): every
//! source on a switch shares the walk. Routes with paths per pair are
//! walked per pair.

use super::{Routes, RoutingError};
use crate::network::metrics::{bfs_distances, UNREACHABLE};
use crate::network::Network;

/// The findings of [`audit_routes`].
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct RouteAudit {
    /// Ordered pairs of distinct terminals.
    pub pairs: usize,
    /// Pairs whose route ends in a black hole or a loop.
    pub broken: usize,
    /// Up to the requested number of them: `(source, destination, why)`.
    pub broken_examples: Vec<(usize, usize, String)>,
    /// Destinations at least one source cannot reach, in terminal order.
    pub unreachable: Vec<usize>,
    /// Working pairs whose route is longer than the shortest path.
    pub non_minimal: usize,
    /// Up to the requested number: `(source, destination, hops, shortest)`
    /// in switch-to-switch hops.
    pub non_minimal_examples: Vec<(usize, usize, usize, usize)>,
    /// Hops over the shortest, summed over the non-minimal pairs.
    pub extra_hops: usize,
}

/// Walks every route of `routes` on `net`, keeping `examples` examples of
/// each finding.
pub fn audit_routes(
    net: &Network,
    routes: &Routes,
    examples: usize,
) -> Result<RouteAudit, RoutingError> {
    let t = net.terminals().len();
    let mut a = RouteAudit {
        pairs: t * t.saturating_sub(1),
        ..RouteAudit::default()
    };
    // Intact tables: one destination tree at a time, linear in
    // destinations x switches.
    if let Some(d) = routes.table_detours(net, examples) {
        a.non_minimal = d.pairs as usize;
        a.extra_hops = d.extra_hops as usize;
        a.non_minimal_examples = d
            .examples
            .iter()
            .map(|&(s, d, h, expect)| (s, d, h - 2, expect - 2))
            .collect();
        return Ok(a);
    }
    audit_pairs(net, routes, examples)
}

/// [`audit_routes`] walking the route of every injecting switch to every
/// destination: for path sets and broken tables, whose failures it names.
fn audit_pairs(
    net: &Network,
    routes: &Routes,
    examples: usize,
) -> Result<RouteAudit, RoutingError> {
    let t = net.terminals().len();
    let mut a = RouteAudit {
        pairs: t * t.saturating_sub(1),
        ..RouteAudit::default()
    };
    let mut cant_reach = vec![false; t];
    // Sources sharing an injection switch share a table walk.
    let per_pair = routes.path_set().is_some();
    let mut groups: Vec<(Option<crate::NodeId>, Vec<usize>)> = Vec::new();
    for s in 0..t {
        let x = net.attached_switch(net.terminal(s));
        match groups
            .iter_mut()
            .find(|(y, _)| !per_pair && *y == x && x.is_some())
        {
            Some((_, v)) => v.push(s),
            None => groups.push((x, vec![s])),
        }
    }
    for (x, sources) in &groups {
        let dist = x.map(|x| bfs_distances(net, x));
        for d in 0..t {
            let senders: Vec<usize> = sources.iter().copied().filter(|&s| s != d).collect();
            let Some(&rep) = senders.first() else {
                continue;
            };
            // Switch-to-switch hops: the two terminal links left out.
            match routes.hops(net, rep, d).map(|h| h.saturating_sub(2)) {
                Err(e) => {
                    a.broken += senders.len();
                    cant_reach[d] = true;
                    for &s in senders
                        .iter()
                        .take(examples.saturating_sub(a.broken_examples.len()))
                    {
                        a.broken_examples.push((s, d, e.to_string()));
                    }
                }
                Ok(hops) => {
                    let shortest = dist
                        .as_ref()
                        .map(|dist| dist[net.terminal(d).index()])
                        .filter(|&v| v != UNREACHABLE)
                        .map_or(usize::MAX, |v| v as usize - 1);
                    if hops > shortest {
                        a.non_minimal += senders.len();
                        a.extra_hops += (hops - shortest) * senders.len();
                        for &s in senders
                            .iter()
                            .take(examples.saturating_sub(a.non_minimal_examples.len()))
                        {
                            a.non_minimal_examples.push((s, d, hops, shortest));
                        }
                    }
                }
            }
        }
    }
    a.unreachable = (0..t).filter(|&d| cant_reach[d]).collect();
    Ok(a)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::network::spec;
    use crate::routing::{self, RoutingOptions};

    #[test]
    fn detours_per_destination_tree_are_those_found_pair_by_pair() {
        let o = RoutingOptions::default();
        let mut longer = 0;
        for (topology, engine) in [
            ("random:switches=24,ports=6,hosts=2,seed=3", "updown"),
            ("random:switches=24,ports=6,hosts=2,seed=4", "updown"),
            ("kary-ntree:k=4,n=3", "updown"),
            ("torus:6x5", "dor"),
        ] {
            let net = spec::build(topology).unwrap();
            let r = routing::route(&net, engine, &o).unwrap();
            assert!(r.table_detours(&net, 0).is_some(), "the fast path runs");
            let fast = audit_routes(&net, &r, 1000).unwrap();
            let slow = audit_pairs(&net, &r, 1000).unwrap();
            assert_eq!(
                (fast.pairs, fast.non_minimal, fast.extra_hops),
                (slow.pairs, slow.non_minimal, slow.extra_hops),
                "{engine} on {topology}"
            );
            let mut a = fast.non_minimal_examples.clone();
            let mut b = slow.non_minimal_examples.clone();
            a.sort_unstable();
            b.sort_unstable();
            assert_eq!(a, b, "every detour listed, {engine} on {topology}");
            longer += fast.non_minimal;
        }
        assert!(longer > 0);
    }

    #[test]
    fn holes_loops_and_detours_are_found() {
        let net = spec::build("torus:4x4").unwrap();
        let o = RoutingOptions::default();
        let good = routing::route(&net, "minhop", &o).unwrap();
        let a = audit_routes(&net, &good, 5).unwrap();
        assert_eq!((a.pairs, a.broken, a.non_minimal), (240, 0, 0));
        // Nue on one lane takes detours on a larger torus.
        let big = spec::build("torus:8x8").unwrap();
        let one = RoutingOptions {
            max_lanes: 1,
            ..RoutingOptions::default()
        };
        let nue = routing::route(&big, "nue", &one).unwrap();
        let a = audit_routes(&big, &nue, 3).unwrap();
        let avg = nue.avg_hops(&big).unwrap();
        let minimal = routing::route(&big, "minhop", &o)
            .unwrap()
            .avg_hops(&big)
            .unwrap();
        let pairs = a.pairs as f64;
        assert!((avg - minimal - a.extra_hops as f64 / pairs).abs() < 1e-9);
        assert!(a.non_minimal > 0 && a.extra_hops >= a.non_minimal);
        assert_eq!(a.non_minimal_examples.len(), 3);
        // A hole: switch 0 forgets destination 5.
        let mut holed = good.clone();
        holed.set_port(0, 5, None);
        let a = audit_routes(&net, &holed, 10).unwrap();
        assert!(a.broken > 0);
        assert_eq!(a.unreachable, vec![5]);
        assert!(a.broken_examples.iter().all(|(_, d, _)| *d == 5));
    }
}
