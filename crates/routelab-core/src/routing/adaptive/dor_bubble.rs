//! Dimension-order routing on tori and meshes with bubble flow control
//! instead of dateline lanes (the escape network of the Adaptive Bubble
//! Router used on its own).
//!
//! A switch corrects the lowest dimension in which it differs from the
//! target's switch, the shorter way round a ring (`+` on a tie at `k / 2`),
//! as `dor` does. Every VC of a port is its own set of unidirectional
//! rings: a packet that keeps travelling along the ring it arrived on stays
//! on its VC and needs one free packet slot downstream (`need = flits`); a
//! packet entering a ring (from the injection queue or from another
//! dimension) may take any VC of the port and needs two (`need = 2 *
//! flits`). The free packet slot that this leaves in every ring keeps it
//! moving, so one VC suffices on a torus. Needs cut-through or
//! store-and-forward switching and buffers of at least two packets per VC.
//!
//! No options.

use super::bubble::push_ring_hop;
use super::torus_geometry::TorusGeometry;
use super::{
    AnyRouter, BuildRouter, Candidates, Header, Here, HopRouter, LocalView, RouterCtx,
    RouterOptions,
};
use crate::network::Network;
use crate::routing::RoutingError;

/// Dimension order under bubble flow control. See the module docs.
pub struct DorBubbleRouter {
    geo: TorusGeometry,
}

impl BuildRouter for DorBubbleRouter {
    fn build(net: &Network, opts: &RouterOptions) -> Result<AnyRouter, RoutingError> {
        opts.only(&[])?;
        Ok(AnyRouter::DorBubble(DorBubbleRouter {
            geo: TorusGeometry::new(net, "dor-bubble", false)?,
        }))
    }
}

impl HopRouter for DorBubbleRouter {
    fn name(&self) -> &str {
        "dor-bubble"
    }

    fn reads_view(&self) -> bool {
        false
    }

    fn fixed_candidates(&self) -> bool {
        true
    }

    fn vcs_needed(&self) -> u8 {
        1
    }

    fn check(&self, res: &super::Resources) -> Result<(), String> {
        super::bubble::check(res, self.vcs_needed())
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
        let Some(goal) = self.geo.goal_or_eject(hdr.target, here, out) else {
            return;
        };
        if let Some(port) = self.geo.dor_port(here.switch_index, goal) {
            push_ring_hop(here, port, hdr.flits, out);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::torus_geometry::test_view::FixedView;
    use super::*;
    use crate::network::{spec, NodeId, PortId};

    #[test]
    fn one_packet_along_a_ring_two_to_enter_it() {
        let net = spec::build("torus:8x8").unwrap();
        let AnyRouter::DorBubble(r) =
            DorBubbleRouter::build(&net, &RouterOptions::default()).unwrap()
        else {
            panic!()
        };
        let hdr = Header {
            target: 6 + 8 * 2,
            flits: 4,
            ..Header::default()
        };
        let view = FixedView::empty(5);
        let at = |in_port: u16, in_vc: u8| {
            let h = Here {
                switch: NodeId(0),
                switch_index: 0,
                in_port: PortId(in_port),
                in_vc,
                vcs: 2,
                now_ps: 0,
            };
            let mut out = Candidates::default();
            let mut rng = crate::rng::stream(1, "t");
            let mut ctx = RouterCtx::new(&mut rng, &mut []);
            r.route(&hdr, &h, &view, &mut ctx, &mut out);
            out.as_slice()
                .iter()
                .map(|c| (c.port.0, c.vc, c.need))
                .collect::<Vec<_>>()
        };
        // x: 0 -> 6 is 2 hops the - way.
        assert_eq!(at(5, 0), vec![(2, 0, 8), (2, 1, 8)]);
        assert_eq!(at(1, 1), vec![(2, 1, 4)]);
        assert_eq!(at(2, 1), vec![(2, 0, 8), (2, 1, 8)]);
    }
}
