//! Minimal adaptive routing on meshes and tori with a dimension-order
//! escape channel (Duato's protocol).
//!
//! VCs `0..E` of every port form the escape network and the rest are
//! adaptive (`E` = 2 on a torus, 1 on a mesh; at least one adaptive VC).
//! A head may take any adaptive VC of any port that brings it closer to
//! its target (both ways round a ring at distance k/2), preferred;
//! otherwise the escape VC of the dimension-order port (the lowest
//! dimension still to correct, the shorter way, `+` on a tie). On a torus
//! the escape VC is 0 while the rest of the packet's way along that
//! dimension still crosses the wraparound link (the dateline) and 1 once
//! it does not, so each escape ring is acyclic; dimension order makes the
//! escape network acyclic across dimensions, and since every packet can
//! always request its escape VC, the escape network stays reachable from
//! any adaptive VC (Duato's condition) and routing is deadlock-free.
//!
//! Duato's theorem for wormhole switching assumes that a packet waiting
//! in an adaptive buffer waits only for its own next hop. A buffer that
//! holds the tail of one packet and the head of the next breaks that: the
//! second waits for whatever the first waits for, an escape channel in any
//! direction, and these waits across packets close cycles through the
//! escape network (on an 8x8 mesh at load 0.6 with 4-flit packets and
//! 33-flit buffers, most seeds deadlocked). So a head takes an adaptive
//! VC only when the buffer behind it has room for the whole packet (an
//! empty buffer when the packet is longer than the buffer): it then never
//! waits there with part of itself still upstream, holding an escape
//! channel, behind another packet. Escape VCs stay plain wormhole: every
//! packet in an escape buffer continues in dimension order from it, so
//! waiting behind one adds no dependency the escape network lacks.
//!
//! Counter `escape_hops`: hops taken on an escape VC.

use super::bubble::{count_escape_hop, ESCAPE_PRIORITY};
use super::torus_geometry::{adaptive_vcs, push_vcs_needing, TorusGeometry};
use super::{
    AnyRouter, BuildRouter, Candidate, Candidates, Header, Here, HopRouter, LocalView, RouterCtx,
    RouterOptions,
};
use crate::network::build::torus::dim_port;
use crate::network::{ChannelId, Network};
use crate::routing::RoutingError;

/// Duato's minimal adaptive router. See the module docs.
pub struct DuatoRouter {
    geo: TorusGeometry,
    escape: u8,
}

impl BuildRouter for DuatoRouter {
    fn build(net: &Network, opts: &RouterOptions) -> Result<AnyRouter, RoutingError> {
        opts.only(&[])?;
        Ok(AnyRouter::Duato(DuatoRouter::new(net)?))
    }
}

impl DuatoRouter {
    pub fn new(net: &Network) -> Result<Self, RoutingError> {
        let geo = TorusGeometry::new(net, "duato", false)?;
        let escape = if geo.wrap { 2 } else { 1 };
        Ok(DuatoRouter { geo, escape })
    }

    /// The escape VC of a hop from `x` to `y` the `positive` way along a
    /// ring: 0 while the rest of the way crosses the dateline, else 1; 0
    /// on a mesh.
    #[inline]
    fn escape_vc(&self, x: u32, y: u32, positive: bool) -> u8 {
        if self.geo.wrap {
            let crosses = if positive { y < x } else { y > x };
            u8::from(!crosses)
        } else {
            0
        }
    }
}

impl HopRouter for DuatoRouter {
    fn name(&self) -> &str {
        "duato"
    }

    fn reads_view(&self) -> bool {
        false
    }

    fn vcs_needed(&self) -> u8 {
        self.escape + 1
    }

    fn counters(&self) -> Vec<String> {
        vec!["escape_hops".into()]
    }

    fn route(
        &self,
        hdr: &Header,
        here: &Here,
        view: &dyn LocalView,
        _ctx: &mut RouterCtx,
        out: &mut Candidates,
    ) {
        let Some(goal) = self.geo.goal_or_eject(hdr.target, here, out) else {
            return;
        };
        let adaptive = adaptive_vcs(here.vcs, self.escape, 0);
        let whole = u32::from(hdr.flits).min(view.capacity());
        let a = self.geo.coords(here.switch_index);
        let b = self.geo.coords(goal);
        let mut escaped = false;
        for d in 0..self.geo.n() {
            let (plus, minus) = self.geo.minimal(d, a[d], b[d]);
            if plus {
                push_vcs_needing(dim_port(d, true), adaptive, whole, out);
            }
            if minus {
                push_vcs_needing(dim_port(d, false), adaptive, whole, out);
            }
            if !escaped && (plus || minus) {
                escaped = true;
                let vc = self.escape_vc(a[d], b[d], plus);
                out.push_with(dim_port(d, plus), vc, ESCAPE_PRIORITY, 0);
            }
        }
    }

    fn forwarded(
        &self,
        _hdr: &mut Header,
        _here: &Here,
        chosen: Candidate,
        _channel: ChannelId,
        ctx: &mut RouterCtx,
    ) {
        count_escape_hop(chosen, ctx, 0);
    }
}
