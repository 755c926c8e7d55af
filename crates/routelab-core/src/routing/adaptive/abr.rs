//! The Adaptive Bubble Router (Puente et al., as versaci2013 §2 describes
//! it) on tori and meshes.
//!
//! Per unidirectional link: VC 0 is the escape VC and VCs `1..` are
//! adaptive (all of them, or `adaptive_vcs` of them). A head may take any
//! adaptive VC of any port on a minimal path to its target (fully
//! adaptive; both ways round a ring at distance `k / 2`), with priority 0;
//! the escape VC of the dimension-order port (the lowest dimension still to
//! correct, the shorter way, `+` on a tie) has priority 1, so it is taken
//! only when no minimal adaptive queue can take the packet. The escape VC
//! runs bubble flow control (see [`super::torus_geometry`]): moving along
//! the ring the packet arrived on needs one free packet slot downstream
//! (`need = flits`); entering a ring from the injection queue, from a lower
//! dimension or from an adaptive VC needs two (`need = 2 * flits`). No
//! datelines: the bubble keeps each escape ring deadlock-free, dimension
//! order keeps the escape network acyclic across rings, and every packet
//! can always request its escape VC.
//!
//! Needs cut-through or store-and-forward switching and buffers of at
//! least two packets per VC (the bubble is counted in whole packets).
//!
//! Options: `adaptive_vcs` (default 0: every VC above the escape ones);
//! `escape_vcs` (default 1; with 2 each escape ring has a second VC, see
//! [`super::bubble`]); `one_way_ties` (default false): at distance `k / 2`
//! only the `+` way is minimal, as in dimension order.
//! Counter `escape_hops`: hops taken on the escape VC.

use super::bubble::{count_escape_hop, escape_vcs, ESCAPE_VC};
use super::torus_geometry::{adaptive_vcs, TorusGeometry};
use super::{
    AnyRouter, BuildRouter, Candidate, Candidates, Header, Here, HopRouter, LocalView, RouterCtx,
    RouterOptions,
};
use crate::network::{ChannelId, Network};
use crate::routing::RoutingError;

/// The Adaptive Bubble Router. See the module docs.
pub struct AbrRouter {
    geo: TorusGeometry,
    adaptive: u8,
    escapes: u8,
}

impl BuildRouter for AbrRouter {
    fn build(net: &Network, opts: &RouterOptions) -> Result<AnyRouter, RoutingError> {
        opts.only(&["adaptive_vcs", "escape_vcs", "one_way_ties"])?;
        let adaptive = opts.u32("adaptive_vcs", 0)?.min(63) as u8;
        Ok(AnyRouter::Abr(AbrRouter {
            geo: TorusGeometry::new(net, "abr", false)?.with_ties(opts)?,
            adaptive,
            escapes: escape_vcs(opts)?,
        }))
    }
}

impl HopRouter for AbrRouter {
    fn name(&self) -> &str {
        "abr"
    }

    fn reads_view(&self) -> bool {
        false
    }

    fn fixed_candidates(&self) -> bool {
        true
    }

    fn vcs_needed(&self) -> u8 {
        self.escapes + self.adaptive.max(1)
    }

    fn check(&self, res: &super::Resources) -> Result<(), String> {
        super::bubble::check(res, self.vcs_needed())
    }

    fn counters(&self) -> Vec<String> {
        vec!["escape_hops".into()]
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
        let adaptive = adaptive_vcs(here.vcs, self.escapes, self.adaptive);
        self.geo.minimal_hop(
            here,
            goal,
            hdr.flits,
            (ESCAPE_VC, self.escapes),
            adaptive,
            out,
        );
    }

    #[inline]
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

#[cfg(test)]
mod tests {
    use super::super::torus_geometry::test_view::FixedView;
    use super::*;
    use crate::network::{spec, NodeId, PortId};

    fn here(sw: u32, in_port: u16, in_vc: u8) -> Here {
        Here {
            switch: NodeId(sw),
            switch_index: sw,
            in_port: PortId(in_port),
            in_vc,
            vcs: 3,
            now_ps: 0,
        }
    }

    fn route(r: &AbrRouter, h: &Here, target: u32) -> Vec<Candidate> {
        let hdr = Header {
            target,
            flits: 4,
            ..Header::default()
        };
        let mut rng = crate::rng::stream(1, "t");
        let mut c = [0u64];
        let mut ctx = RouterCtx::new(&mut rng, &mut c);
        let mut out = Candidates::default();
        let view = FixedView::empty(5);
        r.route(&hdr, h, &view, &mut ctx, &mut out);
        out.as_slice().to_vec()
    }

    #[test]
    fn adaptive_on_minimal_ports_escape_in_dimension_order_with_bubbles() {
        let net = spec::build("torus:8x8").unwrap();
        let AnyRouter::Abr(r) = AbrRouter::build(&net, &RouterOptions::default()).unwrap() else {
            panic!()
        };
        // (0,0) -> (2,4): +x minimal, y at a tie (both ways).
        let t = 2 + 8 * 4;
        let c = route(&r, &here(0, 5, 0), t);
        let adaptive: Vec<(u16, u8)> = c
            .iter()
            .filter(|c| c.priority == 0)
            .map(|c| (c.port.0, c.vc))
            .collect();
        assert_eq!(
            adaptive,
            vec![(1, 1), (1, 2), (3, 1), (3, 2), (4, 1), (4, 2)]
        );
        let esc: Vec<&Candidate> = c.iter().filter(|c| c.priority == 1).collect();
        assert_eq!(esc.len(), 1);
        assert_eq!((esc[0].port.0, esc[0].vc, esc[0].need), (1, 0, 8));
        // Arrived on the escape VC travelling +x: one packet suffices.
        let c = route(&r, &here(0, 2, 0), t);
        let esc = c.iter().find(|c| c.priority == 1).unwrap();
        assert_eq!(esc.need, 4);
        // Arrived on an adaptive VC: entering the ring needs two.
        let c = route(&r, &here(0, 2, 1), t);
        assert_eq!(c.iter().find(|c| c.priority == 1).unwrap().need, 8);
        // Turning from y into... x is lower, so a packet from y enters x.
        let c = route(&r, &here(0, 4, 0), t);
        assert_eq!(c.iter().find(|c| c.priority == 1).unwrap().need, 8);
        // At the target switch: the terminal port, every VC.
        let c = route(&r, &here(t, 2, 0), t);
        assert!(c.iter().all(|c| c.port.0 == 5 && c.priority == 0));
        assert_eq!(c.len(), 3);
    }

    #[test]
    fn one_way_ties_leave_only_the_plus_way_at_half_a_ring() {
        let net = spec::build("torus:8x8").unwrap();
        let mut opts = RouterOptions::default();
        opts.params.insert("one_way_ties".into(), "true".into());
        let AnyRouter::Abr(r) = AbrRouter::build(&net, &opts).unwrap() else {
            panic!()
        };
        // (0,0) -> (2,4): +x and, at the tie in y, +y only (port 3).
        let ports = |target: u32| -> Vec<u16> {
            let mut p: Vec<u16> = route(&r, &here(0, 5, 0), target)
                .iter()
                .filter(|c| c.priority == 0)
                .map(|c| c.port.0)
                .collect();
            p.dedup();
            p
        };
        assert_eq!(ports(2 + 8 * 4), vec![1, 3]);
        // Off the tie nothing changes: (0,0) -> (5,3) is -x and +y.
        assert_eq!(ports(5 + 8 * 3), vec![2, 3]);
        // (0,0) -> (4,0): the tie in x alone, +x only.
        assert_eq!(ports(4), vec![1]);
        opts.params.insert("one_way_ties".into(), "maybe".into());
        assert!(AbrRouter::build(&net, &opts).is_err());
    }
}
