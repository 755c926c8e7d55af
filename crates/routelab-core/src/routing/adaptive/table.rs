//! Oblivious [`Routes`] as a [`HopRouter`].
//!
//! - Forwarding tables (InfiniBand): each switch looks up the output port
//!   of the packet's target terminal.
//! - Source routes (Myrinet): when the routes carry a [`crate::routing::PathSet`],
//!   the source picks one of the pair's paths ([`PathChoice`]) and the
//!   header carries it; each switch takes the next hop of that path (hop
//!   `leg_hops - 1` of the stored path, the injection being implied).
//! - In-transit hosts (flich2000): a path may pass through terminals. The
//!   packet's leg then ends at the first of them ([`Header::target`]); that
//!   NIC keeps it in transit ([`HopRouter::arrived`]) and re-injects it
//!   along the rest of the same path, leg after leg (hop `hops - 1` of the
//!   source-to-destination path).
//!
//! Lanes become VCs: with `L` lanes and `V >= L` VCs, lane `l` may use
//! every VC `v` with `v mod L == l` (the selection policy picks among
//! them). The lane of each hop follows the routes' [`LaneRule`]: the pair
//! lane, plus one on a ring after its dateline ([`LaneRule::Dateline`]),
//! tracked in the header exactly as [`LaneRule::hop_lanes`] does.
//!
//! For speed the tables are copied into one array of 16-bit entries, the
//! output port in the low byte and the ring of its channel in the high
//! byte, when every port number fits a byte (one memory access per hop).

use super::{
    Candidate, Candidates, Direct, Header, Here, HopRouter, LocalView, PathChoice, RouterCtx,
};
use crate::network::{ChannelId, Network, PortId};
use crate::routing::{Datelines, LaneRule, Routes, RoutingError};
use rand::Rng;

/// Ring and dateline flags per channel, when the routes use datelines.
struct Rings {
    ring: Vec<u8>,
    dateline: Vec<bool>,
}

/// The forwarding tables in the form the hot path reads.
enum Lookup {
    /// `port | ring << 8` per (switch, terminal); port 0: no route.
    Packed(Vec<u16>),
    /// Ports above 255: the routes' own table, and the channel leaving
    /// each switch port (`port_base[switch] + port - 1`) for its ring.
    Wide {
        port_base: Vec<u32>,
        port_ch: Vec<u32>,
    },
}

/// Oblivious routes wrapped for the simulator. See the module docs.
pub struct TableRouter {
    name: String,
    routes: Routes,
    lanes: u8,
    rings: Option<Rings>,
    lookup: Lookup,
    terminals: usize,
    /// The pair lane when every pair has the same one.
    pair_lane: Option<u8>,
    /// Source port of every channel (to follow source routes).
    src_port: Vec<u16>,
    choice: PathChoice,
    /// When some source route passes through a terminal: per channel, the
    /// terminal it enters (or `u32::MAX`).
    enters: Option<Vec<u32>>,
}

/// `Header::state` of a packet on no ring yet (else the ring's index).
pub(super) const NO_RING: u32 = Datelines::NO_RING as u32;
/// `Header::state` bit of a packet past the dateline of its ring.
pub(super) const CROSSED: u32 = 1 << 8;

/// Pushes the VCs of `port` that carry `lane` when `lanes` lanes share
/// `vcs` VCs (VC `v` carries lane `v mod lanes`).
#[inline]
pub(super) fn push_lane(port: PortId, lane: u8, lanes: u8, vcs: u8, out: &mut Candidates) {
    let mut v = lane;
    while v < vcs {
        out.push(port, v);
        v += lanes;
    }
}

/// The lane of a hop onto a channel of `ring` for a packet in `hdr.state`
/// (as [`LaneRule::hop_lanes`]): one up after the dateline of the ring the
/// packet travels on, else its lane.
#[inline]
pub(super) fn dateline_lane(hdr: &Header, ring: u32) -> u8 {
    let same = ring == NO_RING || ring == hdr.state & 0xff;
    hdr.lane + u8::from(same & (hdr.state & CROSSED != 0))
}

impl TableRouter {
    pub fn new(net: &Network, routes: Routes, choice: PathChoice) -> Result<Self, RoutingError> {
        if routes.switch_count() != net.switches().len()
            || routes.terminal_count() != net.terminals().len()
        {
            return Err(RoutingError::Mismatch {
                what: format!(
                    "the routes of {} were computed for another network than '{}'",
                    routes.engine(),
                    net.name()
                ),
            });
        }
        let rings = match routes.lane_rule() {
            LaneRule::Fixed => None,
            LaneRule::Dateline(d) => Some(Rings {
                ring: d.ring.clone(),
                dateline: d.dateline.clone(),
            }),
            LaneRule::SlToVl(_) => {
                return Err(RoutingError::Unfit {
                    engine: "table",
                    needs: "routes without SL-to-VL tables (audit them with `routelab deadlock`)"
                        .into(),
                    network: net.name().to_string(),
                    found: "routes whose VLs come from an opensm-sl2vl.dump".into(),
                })
            }
        };
        let t = net.terminals().len();
        let switches = net.switches();
        let ring_of = |c: Option<ChannelId>| -> u16 {
            match (&rings, c) {
                (Some(r), Some(c)) => u16::from(r.ring[c.index()]),
                _ => NO_RING as u16,
            }
        };
        let lookup = if switches.iter().all(|&s| net.node(s).ports <= 255) {
            let mut packed = Vec::with_capacity(routes.table.len());
            for (x, &s) in switches.iter().enumerate() {
                // Ring of each port of this switch.
                let ports = net.node(s).ports;
                let port_ring: Vec<u16> = (0..=ports)
                    .map(|p| {
                        if p == 0 {
                            NO_RING as u16
                        } else {
                            ring_of(net.channel_at(s, PortId(p)))
                        }
                    })
                    .collect();
                for &p in routes.table(x) {
                    let ring = port_ring.get(usize::from(p)).copied().unwrap_or(0);
                    packed.push(p | ring << 8);
                }
            }
            debug_assert_eq!(packed.len(), switches.len() * t);
            Lookup::Packed(packed)
        } else {
            let mut port_base = Vec::with_capacity(switches.len());
            let mut port_ch = Vec::new();
            for &s in switches {
                port_base.push(port_ch.len() as u32);
                for p in 1..=net.node(s).ports {
                    port_ch.push(net.channel_at(s, PortId(p)).map_or(u32::MAX, |c| c.0));
                }
            }
            Lookup::Wide { port_base, port_ch }
        };
        let enters = routes
            .path_set()
            .filter(|ps| ps.passes_terminals(net))
            .map(|_| {
                net.channels()
                    .iter()
                    .map(|c| {
                        if net.is_terminal(c.dst) {
                            net.kind_index(c.dst) as u32
                        } else {
                            u32::MAX
                        }
                    })
                    .collect()
            });
        let pair_lane = routes.uniform_lane();
        Ok(TableRouter {
            name: routes.engine().to_string(),
            lanes: routes.lanes().max(1),
            rings,
            lookup,
            terminals: t,
            pair_lane,
            src_port: net.channels().iter().map(|c| c.src_port.0).collect(),
            routes,
            choice,
            enters,
        })
    }

    /// The terminal ending the leg that leaves path `k` of the packet's
    /// pair at hop `from`: the first in-transit host at or after it, or
    /// the destination.
    fn leg_target(&self, hdr: &Header, k: u32, from: usize) -> u32 {
        let (Some(enters), Some(ps)) = (&self.enters, self.routes.path_set()) else {
            return hdr.dst;
        };
        let Some(path) = ps.paths(hdr.src as usize, hdr.dst as usize).nth(k as usize) else {
            return hdr.dst;
        };
        let last = path.channels.len().saturating_sub(1);
        path.channels
            .iter()
            .take(last)
            .skip(from)
            .map(|c| enters[c.index()])
            .find(|&t| t != u32::MAX)
            .unwrap_or(hdr.dst)
    }

    /// The wrapped routes.
    pub fn routes(&self) -> &Routes {
        &self.routes
    }

    #[inline]
    fn push_lane(&self, port: PortId, lane: u8, vcs: u8, out: &mut Candidates) {
        push_lane(port, lane, self.lanes, vcs, out);
    }

    /// The lane of a hop onto a channel of `ring` for a packet in `state`.
    #[inline]
    fn hop_lane(&self, hdr: &Header, ring: u32) -> u8 {
        if self.rings.is_none() {
            return hdr.lane;
        }
        dateline_lane(hdr, ring)
    }

    /// Port and ring of switch `x` towards terminal `t`.
    #[inline]
    fn port_ring(&self, x: usize, t: usize) -> Option<(PortId, u32)> {
        match &self.lookup {
            Lookup::Packed(table) => {
                let e = table[x * self.terminals + t];
                let p = e & 0xff;
                (p != 0).then_some((PortId(p), u32::from(e >> 8)))
            }
            Lookup::Wide { port_base, port_ch } => {
                let p = self.routes.port(x, t)?;
                let c = port_ch[port_base[x] as usize + usize::from(p.0) - 1];
                let ring = match &self.rings {
                    Some(r) if c != u32::MAX => u32::from(r.ring[c as usize]),
                    _ => NO_RING,
                };
                Some((p, ring))
            }
        }
    }
}

impl HopRouter for TableRouter {
    fn name(&self) -> &str {
        &self.name
    }

    fn reads_view(&self) -> bool {
        false
    }

    fn vcs_needed(&self) -> u8 {
        self.lanes
    }

    #[inline]
    fn source(&self, hdr: &mut Header, _view: &dyn LocalView, ctx: &mut RouterCtx) {
        if self.enters.is_some() && hdr.hops > 0 {
            // Re-injected at an in-transit host: same path, same lane.
            return;
        }
        let (o, t) = (hdr.origin as usize, hdr.target as usize);
        hdr.lane = match self.pair_lane {
            Some(l) => l,
            None => self.routes.lane(o, t),
        };
        hdr.state = NO_RING;
        if let Some(ps) = self.routes.path_set() {
            let n = ps.path_count(o, t);
            let k = match self.choice {
                PathChoice::Random if n > 1 => ctx.rng.gen_range(0..n),
                _ => 0,
            };
            hdr.state = k as u32;
            hdr.target = self.leg_target(hdr, k as u32, 0);
        }
    }

    #[inline]
    fn inject(&self, hdr: &Header, vcs: u8, out: &mut Candidates) {
        self.push_lane(PortId(1), hdr.lane, vcs, out);
    }

    #[inline(always)]
    fn inject_lane(&self, hdr: &Header) -> Option<(u8, u8)> {
        Some((hdr.lane, self.lanes))
    }

    #[inline]
    fn route(
        &self,
        hdr: &Header,
        here: &Here,
        _view: &dyn LocalView,
        _ctx: &mut RouterCtx,
        out: &mut Candidates,
    ) {
        if let Some(ps) = self.routes.path_set() {
            // Paths through in-transit hosts run from source to destination
            // across legs; other paths from each leg's start to its end.
            let (o, t, hop) = if self.enters.is_some() {
                (hdr.src, hdr.dst, hdr.hops)
            } else {
                (hdr.origin, hdr.target, hdr.leg_hops)
            };
            let hop = usize::from(hop).wrapping_sub(1);
            let Some(path) = ps.paths(o as usize, t as usize).nth(hdr.state as usize) else {
                return;
            };
            let Some(&c) = path.channels.get(hop) else {
                return;
            };
            let port = PortId(self.src_port[c.index()]);
            self.push_lane(port, path.lanes.at(hop), here.vcs, out);
            return;
        }
        let Some((port, ring)) = self.port_ring(here.switch_index as usize, hdr.target as usize)
        else {
            return;
        };
        let lane = self.hop_lane(hdr, ring);
        self.push_lane(port, lane, here.vcs, out);
    }

    /// Forwarding tables without datelines: the header does not change.
    #[inline(always)]
    fn direct(&self, hdr: &Header, switch_index: u32) -> Option<Direct> {
        if self.rings.is_some() || self.routes.path_set().is_some() {
            return None;
        }
        let (port, _) = self.port_ring(switch_index as usize, hdr.target as usize)?;
        Some(Direct {
            port,
            lane: hdr.lane,
            lanes: self.lanes,
            state: hdr.state,
        })
    }

    /// At an in-transit host: the next leg runs to the next one, or to
    /// the destination, along the same path (the NIC adds its delays).
    fn arrived(&self, hdr: &mut Header, _ctx: &mut RouterCtx) -> Option<u64> {
        if hdr.target == hdr.dst {
            return None;
        }
        // The ejection into this host was hop `hops - 2` of the path.
        let next = usize::from(hdr.hops);
        hdr.origin = hdr.target;
        hdr.target = self.leg_target(hdr, hdr.state, next);
        Some(0)
    }

    #[inline]
    fn forwarded(
        &self,
        hdr: &mut Header,
        _here: &Here,
        _chosen: Candidate,
        channel: ChannelId,
        _ctx: &mut RouterCtx,
    ) {
        if self.routes.path_set().is_some() {
            return;
        }
        if let Some(r) = &self.rings {
            let ring = u32::from(r.ring[channel.index()]);
            if ring != NO_RING && ring != hdr.state & 0xff {
                hdr.state = ring;
            }
            if r.dateline[channel.index()] {
                hdr.state |= CROSSED;
            }
        }
    }
}
