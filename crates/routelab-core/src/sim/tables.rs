//! Oblivious [`Routes`] as a [`HopRouter`].
//!
//! - Forwarding tables (InfiniBand): each switch looks up the output port
//!   of the packet's target terminal.
//! - Source routes (Myrinet): when the routes carry a [`crate::routing::PathSet`],
//!   the source picks one of the pair's paths ([`PathChoice`]) and the
//!   header carries it; each switch takes the next hop of that path.
//!
//! Lanes become VCs: with `L` lanes and `V >= L` VCs, lane `l` may use
//! every VC `v` with `v mod L == l` (the selection policy picks among
//! them). The lane of each hop follows the routes' [`LaneRule`]: the pair
//! lane, plus one on a ring after its dateline ([`LaneRule::Dateline`]),
//! tracked in the header exactly as [`LaneRule::hop_lanes`] does.

use super::config::PathChoice;
use super::error::SimError;
use super::router::{Candidate, Candidates, Header, Here, HopRouter, LocalView, RouterCtx};
use crate::network::{ChannelId, Network, PortId};
use crate::routing::{Datelines, LaneRule, Routes};
use rand::Rng;

/// Ring and dateline flags per channel, when the routes use datelines.
struct Rings {
    ring: Vec<u8>,
    dateline: Vec<bool>,
}

/// Oblivious routes wrapped for the simulator. See the module docs.
pub struct TableRouter {
    name: String,
    routes: Routes,
    lanes: u8,
    rings: Option<Rings>,
    /// Source port of every channel (to follow source routes).
    src_port: Vec<u16>,
    choice: PathChoice,
}

const NO_RING: u32 = Datelines::NO_RING as u32;
const CROSSED: u32 = 1 << 8;

impl TableRouter {
    pub fn new(net: &Network, routes: Routes, choice: PathChoice) -> Result<Self, SimError> {
        if routes.switch_count() != net.switches().len()
            || routes.terminal_count() != net.terminals().len()
        {
            return Err(SimError::router(
                routes.engine(),
                "the routes were computed for another network",
            ));
        }
        let rings = match routes.lane_rule() {
            LaneRule::Fixed => None,
            LaneRule::Dateline(d) => Some(Rings {
                ring: d.ring.clone(),
                dateline: d.dateline.clone(),
            }),
        };
        Ok(TableRouter {
            name: routes.engine().to_string(),
            lanes: routes.lanes().max(1),
            rings,
            src_port: net.channels().iter().map(|c| c.src_port.0).collect(),
            routes,
            choice,
        })
    }

    /// The wrapped routes.
    pub fn routes(&self) -> &Routes {
        &self.routes
    }

    #[inline]
    fn push_lane(&self, port: PortId, lane: u8, vcs: u8, out: &mut Candidates) {
        let mut v = lane;
        while v < vcs {
            out.push(port, v);
            v += self.lanes;
        }
    }

    /// The lane of the hop on `channel` for a packet in `state`.
    #[inline]
    fn hop_lane(&self, hdr: &Header, channel: Option<ChannelId>) -> u8 {
        match (&self.rings, channel) {
            (Some(r), Some(c)) => {
                let ring = u32::from(r.ring[c.index()]);
                let same = ring == NO_RING || ring == hdr.state & 0xff;
                hdr.lane + u8::from(same && hdr.state & CROSSED != 0)
            }
            _ => hdr.lane,
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

    fn source(&self, hdr: &mut Header, _view: &LocalView, ctx: &mut RouterCtx) {
        let (o, t) = (hdr.origin as usize, hdr.target as usize);
        hdr.lane = self.routes.lane(o, t);
        hdr.state = NO_RING;
        if let Some(ps) = self.routes.path_set() {
            let n = ps.path_count(o, t);
            let k = match self.choice {
                PathChoice::Random if n > 1 => ctx.rng.gen_range(0..n),
                _ => 0,
            };
            hdr.state = k as u32;
        }
    }

    fn inject(&self, hdr: &Header, vcs: u8, out: &mut Candidates) {
        self.push_lane(PortId(1), hdr.lane, vcs, out);
    }

    fn route(
        &self,
        hdr: &Header,
        here: &Here,
        view: &LocalView,
        _ctx: &mut RouterCtx,
        out: &mut Candidates,
    ) {
        if let Some(ps) = self.routes.path_set() {
            let hop = usize::from(hdr.leg_hops).wrapping_sub(1);
            let Some(path) = ps
                .paths(hdr.origin as usize, hdr.target as usize)
                .nth(hdr.state as usize)
            else {
                return;
            };
            let Some(&c) = path.channels.get(hop) else {
                return;
            };
            let port = PortId(self.src_port[c.index()]);
            self.push_lane(port, path.lanes.at(hop), view.vcs(), out);
            return;
        }
        let Some(port) = self
            .routes
            .port(here.switch_index as usize, hdr.target as usize)
        else {
            return;
        };
        let lane = self.hop_lane(hdr, view.channel(port));
        self.push_lane(port, lane, view.vcs(), out);
    }

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
