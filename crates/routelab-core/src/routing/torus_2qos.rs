//! DOR with the SL and VL scheme of OpenSM's `torus-2QoS`, on tori of up
//! to three dimensions.
//!
//! Routes are those of `dor` (the shorter way round each ring), but on a
//! tie (distance k/2) the direction that does not cross the ring's
//! dateline, as OpenSM's torus-2QoS chooses: from coordinate `a` to `b`,
//! `+` when `b > a`, else `-`. The service level of a pair is fixed at the source: bit `d` is set
//! when its path crosses the dateline (the wraparound link) of dimension
//! `d`. Every switch then maps it to a VL per output port: on a link of
//! dimension `d`, VL = bit `d` of the SL, for the whole traversal of that
//! ring; on links to terminals, VL 0. Paths that wrap a ring use VL 1 in
//! it and, being shortest, never reach the link opposite the dateline;
//! paths that do not wrap use VL 0 and never use the dateline link; so no
//! ring closes a cycle, and dimension order keeps the dimensions apart:
//! two VLs, deadlock-free, as `dor`'s datelines are but with the VL of
//! each hop given by SL-to-VL tables a subnet manager can load
//! ([`LaneRule::SlToVl`], written as `opensm-sl2vl.dump`). OpenSM's
//! fourth SL bit (the QoS level) and its turn VL bit for routing around
//! failed switches are not modelled: the fabric is whole, so dimension
//! order never turns back. Routes with SL-to-VL tables are for export and
//! audit; the simulator runs `dor`.

use super::{dor, LaneRule, Routes, RoutingEngine, RoutingError, RoutingOptions, SlToVl};
use crate::network::{Network, PortId};

pub struct Torus2Qos;

pub fn engine(_: &RoutingOptions) -> Box<dyn RoutingEngine> {
    Box::new(Torus2Qos)
}

impl RoutingEngine for Torus2Qos {
    fn name(&self) -> &'static str {
        "torus-2qos"
    }

    fn needs_structure(&self) -> bool {
        true
    }

    fn memory_bytes(&self, net: &Network) -> u64 {
        Routes::table_bytes(net) + Routes::pair_lane_bytes(net)
    }

    fn route(&self, net: &Network) -> Result<Routes, RoutingError> {
        let unfit = |found: String| RoutingError::Unfit {
            engine: "torus-2qos",
            needs: "a torus of one to three dimensions (three SL bits, one per dimension)".into(),
            network: net.name().to_string(),
            found,
        };
        let dims = match net.structure() {
            crate::network::Structure::Torus {
                dims, wrap: true, ..
            } => dims.clone(),
            other => return Err(unfit(other.family_with_article())),
        };
        if dims.len() > 3 {
            return Err(unfit(format!("a torus with {} dimensions", dims.len())));
        }
        let mut routes = dor::inside_ties().route(net)?;
        routes.set_engine("torus-2qos");
        let LaneRule::Dateline(lines) = routes.lane_rule().clone() else {
            return Err(unfit("a torus dor routes without datelines".into()));
        };
        // The SL of each pair: the dimensions whose dateline its path crosses.
        let t = net.terminals().len();
        for s in 0..t {
            for d in (0..t).filter(|&d| d != s) {
                let sl = routes.path(net, s, d)?.iter().fold(0u8, |sl, c| {
                    if lines.dateline[c.index()] {
                        sl | 1 << lines.ring[c.index()]
                    } else {
                        sl
                    }
                });
                routes.set_lane(s, d, sl);
            }
        }
        // VL = the SL bit of the output port's dimension; 0 towards terminals.
        let mut table = SlToVl::new(net);
        for &x in net.switches() {
            let ports = net.node(x).ports;
            for out in 1..=ports {
                let Some(c) = net.channel_at(x, PortId(out)) else {
                    continue;
                };
                let ring = lines.ring[c.index()];
                let vls: [u8; 16] = std::array::from_fn(|sl| {
                    if ring == super::Datelines::NO_RING {
                        0
                    } else {
                        (sl as u8 >> ring) & 1
                    }
                });
                for inp in 0..=ports {
                    table.tables.insert((x.0, inp, out), vls);
                }
            }
        }
        for &h in net.terminals() {
            for p in 1..=net.node(h).ports {
                table.tables.insert((h.0, 0, p), [0; 16]);
            }
        }
        routes.set_lane_rule(LaneRule::SlToVl(table));
        routes.set_lanes_needed(2);
        Ok(routes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::network::spec;
    use crate::routing;

    #[test]
    fn two_vls_and_sls_that_name_the_wrapped_dimensions() {
        let net = spec::build("torus:4x4x4").unwrap();
        let o = RoutingOptions::default();
        let r = routing::route(&net, "torus-2qos", &o).unwrap();
        let rep = r.deadlock_report(&net).unwrap();
        assert!(rep.deadlock_free, "{rep}");
        assert_eq!(rep.lanes_used, 2);
        assert!(r.is_minimal(&net).unwrap());
        let sls: std::collections::BTreeSet<u8> = (0..64)
            .flat_map(|s| (0..64).filter(move |&d| d != s).map(move |d| (s, d)))
            .map(|(s, d)| r.lane(s, d))
            .collect();
        assert_eq!(
            sls.into_iter().collect::<Vec<_>>(),
            (0..8).collect::<Vec<_>>()
        );
        // Same paths as dor where the shorter way is unique.
        let dor = routing::route(&net, "dor", &o).unwrap();
        let net5 = spec::build("torus:5x5").unwrap();
        let (r5, dor5) = (
            routing::route(&net5, "torus-2qos", &o).unwrap(),
            routing::route(&net5, "dor", &o).unwrap(),
        );
        for x in 0..net5.switches().len() {
            assert_eq!(r5.table(x), dor5.table(x));
        }
        let differ = (0..net.switches().len())
            .filter(|&x| r.table(x) != dor.table(x))
            .count();
        assert!(differ > 0);
        assert!(routing::route(&spec::build("torus:3x3x3x3").unwrap(), "torus-2qos", &o).is_err());
        assert!(routing::route(
            &spec::build("kary-ntree:k=2,n=2").unwrap(),
            "torus-2qos",
            &o
        )
        .is_err());
    }

    #[test]
    fn ties_stay_off_the_dateline() {
        // On a ring of 4, distance-2 pairs go the way that does not wrap,
        // so they keep SL 0, as OpenSM's torus-2QoS gives them.
        let net = spec::build("torus:4").unwrap();
        let o = RoutingOptions::default();
        let r = routing::route(&net, "torus-2qos", &o).unwrap();
        let t = net.terminals().len();
        let per = t / 4;
        for s in 0..t {
            for d in (0..t).filter(|&d| d != s) {
                let (a, b) = (s / per, d / per);
                let path = r.path(&net, s, d).unwrap();
                if (a + 4 - b) % 4 == 2 {
                    assert_eq!(r.lane(s, d), 0, "{s}->{d}");
                    assert_eq!(path.len(), 4, "{s}->{d}");
                }
            }
        }
        let rep = r.deadlock_report(&net).unwrap();
        assert!(rep.deadlock_free, "{rep}");
    }
}
