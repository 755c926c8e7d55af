//! Forwarding tables from an oblivious hop router, so that the minimal
//! routing of a dragonfly (`df-min`), HyperX (`hx-dor`) or any network by
//! distances (`dist-min`, a Slim Fly's MIN)
//! feeds everything that reads tables: channel loads, the flow layer's
//! effective bisection bandwidth, the deadlock check and the OpenSM files.
//!
//! The router is walked, with every queue empty, from each switch holding
//! terminals to every terminal, taking its first candidate at each hop:
//! the port becomes the switch's table entry for that destination, and the
//! VC becomes the VL of that hop. The routers' hop classes depend only on
//! the ports a packet comes in and leaves by (a dragonfly's hop after a
//! global one, a Slim Fly's second hop), so they are InfiniBand SL-to-VL
//! tables: every pair on SL 0, each node mapping SL 0 to the VL of its
//! (input port, output port) ([`LaneRule::SlToVl`]). A router whose choices
//! are not destination-based, or whose VLs need more than the ports to
//! tell them apart, is refused by name.
//!
//! Not offered for the Megafly: its spines hold no terminals, so a subnet
//! routes their LIDs along min-hop trees (see `formats::lid_ports`) that
//! go down and up inside a group on SL 0 and close cycles with `mf-min`'s
//! VLs; `dfsssp` routes a Megafly's tables deadlock-free.

use super::adaptive::{self, Candidates, Header, Here, HopRouter, LocalView, RouterCtx};
use super::{LaneRule, Routes, RoutingEngine, RoutingError, RoutingOptions, SlToVl};
use crate::network::{ChannelId, Network, PortId};

/// The tables of hop router `router`. See the module docs.
pub struct HopTables {
    router: &'static str,
    structured: bool,
}

pub fn df_min(_: &RoutingOptions) -> Box<dyn RoutingEngine> {
    Box::new(HopTables {
        router: "df-min",
        structured: true,
    })
}

pub fn hx_dor(_: &RoutingOptions) -> Box<dyn RoutingEngine> {
    Box::new(HopTables {
        router: "hx-dor",
        structured: true,
    })
}

pub fn dist_min(_: &RoutingOptions) -> Box<dyn RoutingEngine> {
    Box::new(HopTables {
        router: "dist-min",
        structured: false,
    })
}

/// A switch at rest: every buffer empty, nothing held.
struct Idle {
    ports: u16,
    vcs: u8,
}

impl LocalView for Idle {
    fn now_ps(&self) -> u64 {
        0
    }
    fn ports(&self) -> u16 {
        self.ports
    }
    fn vcs(&self) -> u8 {
        self.vcs
    }
    fn capacity(&self) -> u32 {
        u32::from(u16::MAX)
    }
    fn channel(&self, _port: PortId) -> Option<ChannelId> {
        None
    }
    fn credits(&self, _port: PortId, _vc: u8) -> u32 {
        self.capacity()
    }
    fn is_held(&self, _port: PortId, _vc: u8) -> bool {
        false
    }
    fn is_busy(&self, _port: PortId) -> bool {
        false
    }
}

impl RoutingEngine for HopTables {
    fn name(&self) -> &'static str {
        self.router
    }

    fn needs_structure(&self) -> bool {
        self.structured
    }

    fn route(&self, net: &Network) -> Result<Routes, RoutingError> {
        let r = adaptive::build(net, self.router, &adaptive::RouterOptions::default())?;
        let vcs = r.vcs_needed();
        let not_tables = |why: String| RoutingError::Unfit {
            engine: self.router,
            needs: "routes that forwarding and SL-to-VL tables can hold".into(),
            network: net.name().to_string(),
            found: why,
        };
        let mut routes = Routes::new(net, self.router);
        let mut sl2vl = SlToVl::new(net);
        let terminals = net.terminals();
        // One source terminal per switch: these routers decide by switch.
        let mut first_at = vec![None; net.switches().len()];
        for (t, &node) in terminals.iter().enumerate() {
            if let Some(x) = net.attached_switch(node) {
                first_at[net.kind_index(x)].get_or_insert(t as u32);
            }
        }
        let mut rng = crate::rng::stream(0, "hop-tables");
        let mut counters = vec![0u64; r.counters().len()];
        let mut out = Candidates::default();
        // The VL of each (node, input port, output port) a route takes.
        let mut vl_of: std::collections::HashMap<(u32, u16, u16), u8> = Default::default();
        let mut record = |node: u32, in_port: u16, out_port: u16, vl: u8| match vl_of
            .insert((node, in_port, out_port), vl)
        {
            Some(old) if old != vl => Err(not_tables(format!(
                "{} sends from port {in_port} to port {out_port} on VLs {old} and {vl}",
                net.label(crate::network::NodeId(node))
            ))),
            _ => Ok(()),
        };
        // Walks from a terminal of each switch to every terminal, then from
        // every switch still without an entry for a terminal (a Megafly's
        // spines off the minimal paths), as a packet passing through.
        let switches = net.switches().len();
        let starts = first_at
            .iter()
            .flatten()
            .flat_map(|&src| {
                (0..terminals.len() as u32)
                    .filter(move |&d| d != src)
                    .map(move |d| (Some(src), d, 0))
            })
            .chain(
                (0..switches).flat_map(|x| (0..terminals.len() as u32).map(move |d| (None, d, x))),
            );
        for (src, dst, x0) in starts {
            if src.is_none() && routes.port(x0, dst as usize).is_some() {
                continue;
            }
            let mut hdr = Header {
                src: src.unwrap_or(dst),
                dst,
                origin: src.unwrap_or(dst),
                target: dst,
                flits: 1,
                ..Header::default()
            };
            let (mut at, mut in_port, mut in_vc);
            if let Some(src) = src {
                let source = terminals[src as usize];
                let Some(first) = net.out_channels(source).first().copied() else {
                    continue;
                };
                at = net.channel(first).dst;
                let view = Idle {
                    ports: net.node(at).ports,
                    vcs,
                };
                let mut ctx = RouterCtx::new(&mut rng, &mut counters);
                r.source(&mut hdr, &view, &mut ctx);
                out.clear();
                r.inject(&hdr, vcs, &mut out);
                let inject_vc = out.as_slice().first().map_or(0, |c| c.vc);
                record(source.0, 0, net.channel(first).src_port.0, inject_vc)?;
                (in_port, in_vc) = (net.channel(first).dst_port, inject_vc);
            } else {
                at = net.switches()[x0];
                (in_port, in_vc) = (PortId(0), 0);
            }
            for _hop in 0..=switches {
                let x = net.kind_index(at);
                let here = Here {
                    switch: at,
                    switch_index: x as u32,
                    in_port,
                    in_vc,
                    vcs,
                    now_ps: 0,
                };
                let view = Idle {
                    ports: net.node(at).ports,
                    vcs,
                };
                out.clear();
                let mut ctx = RouterCtx::new(&mut rng, &mut counters);
                r.route(&hdr, &here, &view, &mut ctx, &mut out);
                let Some(&c) = out.as_slice().first() else {
                    return Err(not_tables(format!(
                        "no route at {} to terminal {dst}",
                        net.label(at)
                    )));
                };
                match routes.port(x, dst as usize) {
                    Some(p) if p != c.port => {
                        return Err(not_tables(format!(
                            "{} sends terminal {dst}'s packets by port {} and by port {}: \
                             not destination-based",
                            net.label(at),
                            p.0,
                            c.port.0
                        )))
                    }
                    _ => routes.set_port(x, dst as usize, Some(c.port)),
                }
                record(at.0, in_port.0, c.port.0, c.vc)?;
                let Some(ch) = net.channel_at(at, c.port) else {
                    return Err(not_tables(format!(
                        "{} routes to its uncabled port {}",
                        net.label(at),
                        c.port.0
                    )));
                };
                r.forwarded(&mut hdr, &here, c, ch, &mut ctx);
                let next = net.channel(ch);
                if !net.is_switch(next.dst) {
                    break;
                }
                (at, in_port, in_vc) = (next.dst, next.dst_port, c.vc);
            }
        }
        // SL 0 to the hop's VL; SL `k` to VL `vcs - 1 + k`, above the
        // router's, for the LIDs it does not route (a switch without
        // terminals, whose LID follows a min-hop tree and which the subnet
        // view moves to another SL when its paths close a cycle).
        for (key, vl) in vl_of {
            let mut table: [u8; 16] =
                std::array::from_fn(|sl| (usize::from(vcs) - 1 + sl).min(14) as u8);
            table[0] = vl;
            sl2vl.tables.insert(key, table);
        }
        routes.set_lanes_needed(vcs);
        routes.set_lane_rule(LaneRule::SlToVl(sl2vl));
        Ok(routes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::network::spec;

    fn tables(engine: &str, topology: &str) -> (Network, Routes) {
        let net = spec::build(topology).unwrap();
        let routes = crate::routing::route(&net, engine, &RoutingOptions::default()).unwrap();
        (net, routes)
    }

    #[test]
    fn tables_follow_the_router_and_their_vls_are_deadlock_free() {
        for (engine, topology, lanes) in [
            ("df-min", "dragonfly:a=4,p=2,h=2", 2),
            ("hx-dor", "hyperx:S=4x3,t=2,p=2", 1),
            ("dist-min", "slimfly:q=5,p=2", 2),
        ] {
            let (net, routes) = tables(engine, topology);
            assert_eq!(routes.engine(), engine);
            let report = routes.deadlock_report(&net).unwrap();
            assert!(report.deadlock_free, "{engine}: {report}");
            assert!(
                routes.lanes() <= lanes,
                "{engine}: {} lanes",
                routes.lanes()
            );
            // Minimal where the router is: every path a shortest one but
            // the dragonfly's (local, global, local can be longer than
            // two global hops through a third group).
            let hops = routes.hop_stats(&net).unwrap();
            if engine != "df-min" {
                assert!(hops.first_non_minimal.is_none(), "{engine}");
            }
        }
    }

    #[test]
    fn one_vl_for_every_hop_deadlocks_a_dragonfly() {
        // The check can fail: the same forwarding tables with every hop on
        // VL 0 close cycles through the groups' local links.
        let (net, mut routes) = tables("df-min", "dragonfly:a=4,p=2,h=2");
        routes.set_lane_rule(LaneRule::Fixed);
        assert!(!routes.deadlock_report(&net).unwrap().deadlock_free);
    }

    #[test]
    fn adaptive_routers_are_no_tables() {
        let net = spec::build("torus:4x4").unwrap();
        assert!(crate::routing::route(&net, "df-min", &RoutingOptions::default()).is_err());
    }
}
