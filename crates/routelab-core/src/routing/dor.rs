//! Dimension-order routing (DOR) on tori, meshes and hypercubes.
//!
//! Needs [`Structure::Torus`] or [`Structure::Hypercube`] and uses their port
//! conventions (see `network::build::torus`): a switch corrects the lowest
//! dimension in which it differs from the destination's switch first.
//! - Torus: the shorter way around each ring; on a tie (distance k/2) the
//!   `+` direction. Mesh: towards the destination.
//! - Hypercube: flip the lowest differing bit (port `d + 1`).
//!
//! Lanes: meshes and hypercubes need one (dimension order is acyclic).
//! Rings are cyclic, so on a torus with `datelines` (the default) the
//! wraparound channels of each dimension are datelines: packets travel each
//! dimension on lane 0 and on lane 1 after crossing its wraparound link, and
//! start again on lane 0 in the next dimension ([`LaneRule::Dateline`]).
//! Without datelines a torus is routed on one lane and may deadlock.

use super::fabric::{Fabric, NONE};
use super::{Datelines, LaneRule, Routes, RoutingEngine, RoutingError, RoutingOptions};
use crate::network::build::torus::{coords, dim_port};
use crate::network::{Network, PortId, Structure};

pub struct Dor {
    datelines: bool,
    /// On a tie, the direction that does not cross the wraparound link
    /// (OpenSM's torus-2QoS), instead of `+`.
    ties_inside: bool,
}

pub fn engine(o: &RoutingOptions) -> Box<dyn RoutingEngine> {
    Box::new(Dor {
        datelines: o.datelines,
        ties_inside: false,
    })
}

/// DOR as OpenSM's torus-2QoS routes: datelines on the wraparound links,
/// and a tie (distance k/2) broken towards the direction that stays
/// inside `0..k`, so that the path does not cross the dateline.
pub(crate) fn inside_ties() -> Dor {
    Dor {
        datelines: true,
        ties_inside: true,
    }
}

enum Shape {
    Torus { dims: Vec<u32>, wrap: bool },
    Cube { n: u32 },
}

impl RoutingEngine for Dor {
    fn name(&self) -> &'static str {
        "dor"
    }

    fn needs_structure(&self) -> bool {
        true
    }

    fn route(&self, net: &Network) -> Result<Routes, RoutingError> {
        let unfit = |found: String| RoutingError::Unfit {
            engine: self.name(),
            needs: "a torus, mesh or hypercube (dimension-order needs coordinates)".into(),
            network: net.name().to_string(),
            found,
        };
        let (shape, switches) = match net.structure() {
            Structure::Torus { dims, wrap, .. } => (
                Shape::Torus {
                    dims: dims.clone(),
                    wrap: *wrap,
                },
                dims.iter().map(|&k| u64::from(k)).product::<u64>(),
            ),
            Structure::Hypercube { n, .. } => (Shape::Cube { n: *n }, 1u64 << n),
            other => return Err(unfit(other.family_with_article())),
        };
        if switches != net.switches().len() as u64 {
            return Err(unfit(format!(
                "a {} with {} switches instead of {switches}",
                net.structure().family(),
                net.switches().len()
            )));
        }
        let f = Fabric::new(net, self.name())?;
        let mut routes = Routes::new(net, self.name());
        let t = f.t;
        // Coordinates of every switch (hypercube: the bits).
        let coord: Vec<Vec<u32>> = (0..f.s)
            .map(|x| match &shape {
                Shape::Torus { dims, .. } => coords(dims, x as u32),
                Shape::Cube { n } => (0..*n).map(|b| (x as u32 >> b) & 1).collect(),
            })
            .collect();
        for x in 0..f.s {
            let sw = f.switch_node(x);
            for d in 0..t {
                if let Some(p) = f.sink_port(x, d) {
                    routes.set_port(x, d, Some(p));
                    continue;
                }
                let Some(target) = (f.inject[d] != NONE).then_some(f.inject[d] as usize) else {
                    continue;
                };
                let (a, b) = (&coord[x], &coord[target]);
                let Some(dim) = (0..a.len()).find(|&i| a[i] != b[i]) else {
                    continue;
                };
                let port = match &shape {
                    Shape::Cube { .. } => PortId(dim as u16 + 1),
                    Shape::Torus { dims, wrap } => {
                        let k = dims[dim];
                        let up = (b[dim] + k - a[dim]) % k;
                        // A mesh, or a tie kept off the wraparound link:
                        // towards the destination's coordinate.
                        let inside = !*wrap || (2 * up == k && self.ties_inside);
                        let positive = if inside { b[dim] > a[dim] } else { 2 * up <= k };
                        dim_port(dim, positive)
                    }
                };
                if net.channel_at(sw, port).is_none() {
                    return Err(unfit(format!(
                        "missing the link on port {} of {} (dimension {dim})",
                        port.0,
                        net.label(sw)
                    )));
                }
                routes.set_port(x, d, Some(port));
            }
        }
        if let Shape::Torus { dims, wrap: true } = &shape {
            if self.datelines {
                routes.set_lane_rule(LaneRule::Dateline(datelines(net, &f, dims)?));
            }
        }
        Ok(routes)
    }
}

/// Rings (dimensions) and dateline channels of a torus: in dimension `d`,
/// the `+` channel leaving coordinate `k - 1` and the `-` channel leaving
/// coordinate 0 (the wraparound link, both ways).
fn datelines(net: &Network, f: &Fabric, dims: &[u32]) -> Result<Datelines, RoutingError> {
    if dims.len() >= usize::from(Datelines::NO_RING) {
        return Err(RoutingError::Unfit {
            engine: "dor",
            needs: format!(
                "at most {} dimensions for datelines",
                Datelines::NO_RING - 1
            ),
            network: net.name().to_string(),
            found: format!("a torus with {} dimensions", dims.len()),
        });
    }
    let mut ring = vec![Datelines::NO_RING; net.channel_count()];
    let mut dateline = vec![false; net.channel_count()];
    for x in 0..f.s {
        let sw = f.switch_node(x);
        let c = coords(dims, x as u32);
        for (d, &k) in dims.iter().enumerate() {
            for positive in [true, false] {
                if let Some(ch) = net.channel_at(sw, dim_port(d, positive)) {
                    ring[ch.index()] = d as u8;
                    dateline[ch.index()] = if positive { c[d] == k - 1 } else { c[d] == 0 };
                }
            }
        }
    }
    Ok(Datelines { ring, dateline })
}
