//! DFSSSP: deadlock-free SSSP (Domke et al. 2011, Algorithm 2).
//!
//! 1. The `sssp` tables (with its `avoid_throttled_links` and
//!    `weigh_capacity` options).
//! 2. One path per (switch with terminals, destination terminal): every
//!    terminal injecting at that switch shares it after its injection
//!    channel, so lanes are assigned per switch, not per source terminal
//!    (which keeps the path store at S x T instead of T x T).
//! 3. Virtual layers ([`crate::deadlock::assign_layers`]): with the offline
//!    heuristics (`weakest`, the paper's default, `heaviest`, `first`) all
//!    paths start in layer 0, and each cycle of a layer's channel dependency
//!    graph is broken by moving the paths inducing one of its dependencies
//!    to the next layer; with `online` each path takes the first layer it
//!    fits. More layers than `max_lanes` is an error that says how many the
//!    heuristic needed.
//! 4. Balancing: the paths of the used layers are spread over the spare
//!    lanes up to `max_lanes` (a subset of an acyclic layer stays acyclic).
//!    [`Routes::lanes_needed`] keeps the number before spreading.

use super::fabric::{Capacity, Fabric};
use super::{sssp, Routes, RoutingEngine, RoutingError, RoutingOptions};
use crate::deadlock::{assign_layers_owned, spread_layers, DeadlockError, Heuristic, PathList};
use crate::network::{ChannelId, Network, PortId};

pub struct Dfsssp {
    max_lanes: u8,
    heuristic: Heuristic,
    capacity: Capacity,
}

pub fn engine(o: &RoutingOptions) -> Box<dyn RoutingEngine> {
    Box::new(Dfsssp {
        max_lanes: o.max_lanes,
        heuristic: o.heuristic,
        capacity: Capacity::of(o),
    })
}

impl RoutingEngine for Dfsssp {
    fn name(&self) -> &'static str {
        "dfsssp"
    }

    /// Tables and the pair lanes it assigns.
    fn memory_bytes(&self, net: &Network) -> u64 {
        Routes::table_bytes(net) + Routes::switch_lane_bytes(net)
    }

    fn route(&self, net: &Network) -> Result<Routes, RoutingError> {
        super::canonical::by_guid(net, |n, _| self.route_listed(n))
    }
}

impl Dfsssp {
    /// Routes `net` in the order it lists nodes and cables ([`Self::route`]
    /// gives it the canonical order, by GUID).
    fn route_listed(&self, net: &Network) -> Result<Routes, RoutingError> {
        let f = Fabric::balancing(net, self.name(), self.capacity)?;
        let mut routes = sssp::tables(&f);
        let t = f.t;

        // Switch-to-switch part of the path from each injecting switch.
        let sources = f.injecting_switches();
        let mut paths = PathList::with_capacity(sources.len() * t, sources.len() * t * 4);
        let mut buf: Vec<ChannelId> = Vec::new();
        let mut walks = Walks::new(t);
        for &x in &sources {
            if walks.all_from(&f, &routes, x) {
                for d in 0..t {
                    walks.path(d, &mut buf);
                    paths.push(&buf);
                }
            } else {
                // Some walk failed: one at a time names the first failure.
                for d in 0..t {
                    switch_path(&f, &routes, x, d, &mut buf)?;
                    paths.push(&buf);
                }
            }
        }

        let a = assign_layers_owned(net, paths, self.heuristic, self.max_lanes).map_err(
            |e| match e {
                DeadlockError::LayersExceeded {
                    needed,
                    at_least,
                    limit,
                    heuristic,
                } => RoutingError::LanesExceeded {
                    engine: self.name(),
                    needed,
                    at_least,
                    limit,
                    note: if at_least {
                        format!("the '{heuristic}' heuristic gave up there")
                    } else {
                        format!(
                        "found by the '{heuristic}' cycle-breaking heuristic; the true minimum \
                         may be lower, since finding it is NP-complete: try another heuristic \
                         (weakest, heaviest, first, online) or raise max_lanes, at most 15"
                    )
                    },
                },
                e => RoutingError::Deadlock(e),
            },
        )?;
        let mut layer = a.layer;
        spread_layers(&mut layer, a.layers, self.max_lanes);
        // Lanes per injecting switch: its terminals share its paths. A
        // destination that is the switch's only source is no pair.
        for (u, &x) in sources.iter().enumerate() {
            for d in 0..t {
                if f.injecting[x] == 1 && f.inject[d] as usize == x {
                    continue;
                }
                routes.set_switch_lane(x, d, layer[u * t + d]);
            }
        }
        routes.set_lanes_needed(a.layers.max(1));
        Ok(routes)
    }
}

/// The switch-to-switch paths from one switch towards every terminal,
/// walked a hop at a time for all terminals together: the table reads of
/// one hop are independent, so the memory serves many at once, where a
/// walk at a time waits for each (a cache miss per hop on large fabrics).
struct Walks {
    t: usize,
    /// Hop `h` towards terminal `d`: `channels[h * t + d]`.
    channels: Vec<ChannelId>,
    hops: Vec<u32>,
    at: Vec<u32>,
    walking: Vec<u32>,
}

/// Hops beyond which [`Walks`] leaves a switch's paths to [`switch_path`].
const LONGEST_WALKED: usize = 64;

impl Walks {
    fn new(t: usize) -> Self {
        Walks {
            t,
            channels: Vec::new(),
            hops: vec![0; t],
            at: vec![0; t],
            walking: Vec::with_capacity(t),
        }
    }

    /// Walks from switch `x` towards every terminal; false when a walk
    /// finds no table entry or runs longer than [`LONGEST_WALKED`] hops or
    /// there are switches ([`switch_path`] says which, if any, failed).
    fn all_from(&mut self, f: &Fabric, routes: &Routes, x: usize) -> bool {
        let (net, t) = (f.net, self.t);
        self.walking.clear();
        for d in 0..t {
            self.hops[d] = 0;
            self.at[d] = x as u32;
            if f.sink_port(x, d).is_none() {
                self.walking.push(d as u32);
            }
        }
        let mut hop = 0;
        while !self.walking.is_empty() {
            // A loop, or a path longer than fabrics have: one walk at a
            // time settles which, without hops x terminals of channels.
            if hop >= f.s.min(LONGEST_WALKED) {
                return false;
            }
            if self.channels.len() < (hop + 1) * t {
                self.channels.resize((hop + 1) * t, ChannelId(0));
            }
            let mut kept = 0;
            for i in 0..self.walking.len() {
                let d = self.walking[i] as usize;
                let y = self.at[d] as usize;
                let Some(c) = table_hop(f, routes, y, d) else {
                    return false;
                };
                self.channels[hop * t + d] = c;
                self.hops[d] = hop as u32 + 1;
                let next = net.kind_index(net.channel(c).dst);
                self.at[d] = next as u32;
                if f.sink_port(next, d).is_none() {
                    self.walking[kept] = d as u32;
                    kept += 1;
                }
            }
            self.walking.truncate(kept);
            hop += 1;
        }
        true
    }

    /// The path towards `d` of the last [`Self::all_from`].
    fn path(&self, d: usize, out: &mut Vec<ChannelId>) {
        out.clear();
        out.extend((0..self.hops[d] as usize).map(|h| self.channels[h * self.t + d]));
    }
}

/// The channel switch `y`'s table entry for terminal `d` leaves on, if it
/// has one and its port is cabled.
fn table_hop(f: &Fabric, routes: &Routes, y: usize, d: usize) -> Option<ChannelId> {
    let port = routes.table[y * f.t + d];
    (port != 0)
        .then(|| f.net.channel_at(f.switch_node(y), PortId(port)))
        .flatten()
}

/// The switch-to-switch channels from switch `x` towards terminal `d`
/// (without the ejection channel).
fn switch_path(
    f: &Fabric,
    routes: &Routes,
    x: usize,
    d: usize,
    out: &mut Vec<ChannelId>,
) -> Result<(), RoutingError> {
    out.clear();
    let net = f.net;
    let mut y = x;
    while f.sink_port(y, d).is_none() {
        let Some(c) = table_hop(f, routes, y, d) else {
            return Err(RoutingError::BlackHole {
                src: net.label(f.switch_node(x)).into_owned(),
                dst: f.terminal_name(d),
                switch: net.label(f.switch_node(y)).into_owned(),
                reason: "no table entry".into(),
            });
        };
        out.push(c);
        if out.len() > f.s {
            return Err(RoutingError::Loop {
                src: net.label(f.switch_node(x)).into_owned(),
                dst: f.terminal_name(d),
                switch: net.label(f.switch_node(y)).into_owned(),
            });
        }
        y = net.kind_index(net.channel(c).dst);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::network::spec;

    #[test]
    fn walks_together_are_walks_one_at_a_time_and_find_broken_tables() {
        let net = spec::build("random:switches=24,ports=8,hosts=2,seed=5").unwrap();
        let f = Fabric::balancing(&net, "dfsssp", Capacity::default()).unwrap();
        let mut routes = sssp::tables(&f);
        let mut walks = Walks::new(f.t);
        let (mut together, mut alone) = (Vec::new(), Vec::new());
        for x in 0..f.s {
            assert!(walks.all_from(&f, &routes, x));
            for d in 0..f.t {
                walks.path(d, &mut together);
                switch_path(&f, &routes, x, d, &mut alone).unwrap();
                assert_eq!(together, alone, "switch {x} towards terminal {d}");
            }
        }
        // A switch on the way with no entry, then two that send to each other.
        let (x, d) = (0, f.t - 1);
        let path = {
            switch_path(&f, &routes, x, d, &mut alone).unwrap();
            alone.clone()
        };
        assert!(
            path.len() >= 2,
            "terminal {d} is {} hops from switch {x}",
            path.len()
        );
        let second = net.kind_index(net.channel(path[0]).dst);
        let kept = routes.table[second * f.t + d];
        routes.table[second * f.t + d] = 0;
        assert!(!walks.all_from(&f, &routes, x));
        let e = switch_path(&f, &routes, x, d, &mut alone).unwrap_err();
        assert!(matches!(e, RoutingError::BlackHole { .. }), "{e}");
        let back = net.channel(path[0].reverse()).src_port;
        routes.table[second * f.t + d] = back.0;
        assert!(kept != back.0 && !walks.all_from(&f, &routes, x));
        let e = switch_path(&f, &routes, x, d, &mut alone).unwrap_err();
        assert!(matches!(e, RoutingError::Loop { .. }), "{e}");
    }
}
