//! Engines that need a family's structure (dimension order, torus-2QoS,
//! D-mod-k) on a fabric that does not declare it: a torus or fat tree read
//! from a dump. The family is recognised from the cabling
//! ([`crate::network::recognise`]), the engine routes the renumbered
//! network, and its routes are carried back onto the fabric's own switches
//! and ports ([`Routes::renumbered`]), so they export as the fabric's LFTs.

use super::{Routes, RoutingEngine, RoutingError};
use crate::network::recognise::{recognise, Recognised};
use crate::network::Network;

/// Routes `net` with `engine` on the family recognised from its cabling.
/// `unfit` is the engine's refusal of `net` as declared; it is returned,
/// with why no family was recognised, when none is.
pub(super) fn route(
    engine: &dyn RoutingEngine,
    net: &Network,
    unfit: RoutingError,
) -> Result<Routes, RoutingError> {
    let r = recognised_or(net, unfit)?;
    match engine.route(&r.net) {
        Ok(routes) => Ok(routes.renumbered(&r.net, net, &r.node, &r.channel)),
        Err(RoutingError::Unfit {
            engine,
            needs,
            network,
            found,
        }) => Err(RoutingError::Unfit {
            engine,
            needs,
            network,
            found: format!("{found} (recognised from its cabling)"),
        }),
        Err(e) => Err(e),
    }
}

/// The family `net` is recognised as, or `unfit` (an engine's or router's
/// refusal of `net` as declared) saying why it is none.
pub fn recognised_or(net: &Network, unfit: RoutingError) -> Result<Recognised, RoutingError> {
    match recognise(net) {
        Ok(r) => Ok(r),
        Err(why) => Err(match unfit {
            RoutingError::Unfit {
                engine,
                needs,
                network,
                found,
            } => RoutingError::Unfit {
                engine,
                needs,
                network,
                found: format!("{found}, and its cabling is of no family routelab knows ({why})"),
            },
            other => other,
        }),
    }
}

#[cfg(test)]
mod tests {
    use crate::network::recognise::shuffled;
    use crate::network::{spec, Network, NodeId};
    use crate::routing::{route, Routes, RoutingError, RoutingOptions};

    /// Every pair's path as node names with the lane of each hop.
    fn named_paths(net: &Network, r: &Routes) -> Vec<(String, String, Vec<String>, Vec<u8>)> {
        let mut out = Vec::new();
        for s in 0..net.terminals().len() {
            for d in (0..net.terminals().len()).filter(|&d| d != s) {
                let (path, lanes) = r.path_lanes(net, s, d).unwrap();
                let names = path
                    .iter()
                    .map(|&c| net.node(net.channel(c).dst).name.clone())
                    .collect();
                let name = |t: usize| net.node(net.terminal(t)).name.clone();
                out.push((name(s), name(d), names, lanes));
            }
        }
        out.sort();
        out
    }

    /// A fabric dump of a torus, mesh, hypercube or fat tree (switches,
    /// ports and cables in another order, no structure) routes as the
    /// network it is recognised as: the same path and lanes for every pair,
    /// by name; and as well as the generated network (deadlock freedom,
    /// lanes, minimality), the recognised frame being one of its symmetries.
    #[test]
    fn shuffled_fabrics_route_as_their_recognised_network() {
        for (engine, spec_text) in [
            ("dor", "torus:4x3x3"),
            ("dor", "torus:5x4,c=2"),
            ("dor", "mesh:4x3,c=2"),
            ("dor", "hypercube:3"),
            ("torus-2qos", "torus:4x4"),
            ("dmodk", "kary-ntree:k=3,n=3"),
            ("dmodk", "kary-ntree:k=4,n=3,terminals=40"),
            ("dmodk", "xgft:m=3x4,w=2x2,terminals=20"),
            ("dmodk", "clos:ports=8,hosts=14"),
        ] {
            let generated = spec::build(spec_text).unwrap();
            let o = RoutingOptions::default();
            let base = route(&generated, engine, &o).unwrap();
            for seed in 0..2 {
                let fabric = shuffled(&generated, seed);
                let got = route(&fabric, engine, &o)
                    .unwrap_or_else(|e| panic!("{engine} on {spec_text}: {e}"));
                let r = crate::network::recognise::recognise(&fabric).unwrap();
                let want = route(&r.net, engine, &o).unwrap();
                let (a, b) = (named_paths(&fabric, &got), named_paths(&r.net, &want));
                if let Some(i) = (0..a.len()).find(|&i| a[i] != b[i]) {
                    panic!(
                        "{engine} on {spec_text}, seed {seed}: {:?} != {:?}",
                        a[i], b[i]
                    );
                }
                let rep = got.deadlock_report(&fabric).unwrap();
                assert_eq!(
                    rep.deadlock_free,
                    base.deadlock_report(&generated).unwrap().deadlock_free
                );
                assert_eq!(got.lanes(), base.lanes(), "{engine} on {spec_text}");
                assert!(got.is_minimal(&fabric).unwrap(), "{engine} on {spec_text}");
            }
        }
    }

    #[test]
    fn renumbered_path_sets_keep_every_path() {
        let generated = spec::build("torus:4x3").unwrap();
        let fabric = shuffled(&generated, 3);
        let r = crate::network::recognise::recognise(&fabric).unwrap();
        let o = RoutingOptions::default();
        for engine in ["multipath", "valiant"] {
            let on_canonical = route(&r.net, engine, &o).unwrap();
            let back = on_canonical.renumbered(&r.net, &fabric, &r.node, &r.channel);
            let ps = back.path_set().unwrap();
            let canon = on_canonical.path_set().unwrap();
            assert_eq!(ps.len(), canon.len(), "{engine}");
            let t = fabric.terminals().len();
            for s in 0..t {
                for d in (0..t).filter(|&d| d != s) {
                    // The same terminals of the canonical numbering.
                    let find = |n: NodeId| {
                        r.net
                            .kind_index(NodeId(r.node.iter().position(|&x| x == n).unwrap() as u32))
                    };
                    let (cs, cd) = (find(fabric.terminal(s)), find(fabric.terminal(d)));
                    let names = |net: &Network, p: &[crate::network::ChannelId]| -> Vec<String> {
                        p.iter()
                            .map(|&c| net.node(net.channel(c).dst).name.clone())
                            .collect()
                    };
                    let a: Vec<_> = ps.paths(s, d).map(|p| names(&fabric, p.channels)).collect();
                    let b: Vec<_> = canon
                        .paths(cs, cd)
                        .map(|p| names(&r.net, p.channels))
                        .collect();
                    assert_eq!(a, b, "{engine} {s} -> {d}");
                }
            }
            let rep = back.deadlock_report(&fabric).unwrap();
            let want = on_canonical.deadlock_report(&r.net).unwrap();
            assert_eq!(rep.deadlock_free, want.deadlock_free, "{engine}");
        }
    }

    #[test]
    fn unrecognised_fabrics_say_why() {
        let net = spec::build("random:switches=12,ports=6,hosts=2,seed=3").unwrap();
        let e = route(&net, "dor", &RoutingOptions::default()).unwrap_err();
        let text = e.to_string();
        assert!(matches!(e, RoutingError::Unfit { .. }), "{text}");
        assert!(
            text.contains("no family routelab knows") && text.contains("not a fat tree"),
            "{text}"
        );
        // A recognised fat tree is still no torus for dor.
        let tree = shuffled(&spec::build("kary-ntree:k=2,n=3").unwrap(), 1);
        let text = route(&tree, "dor", &RoutingOptions::default())
            .unwrap_err()
            .to_string();
        assert!(
            text.contains("recognised from its cabling") && text.contains("kary-ntree"),
            "{text}"
        );
    }
}
