//! Randomized Dynamic Routing (parker, §3) on tori and meshes, made
//! deadlock-free.
//!
//! parker's rule: at every hop, mark each dimension in which the packet
//! still has to travel as viable (the direction being the shorter way
//! round, judged by the half length of the ring), pick a viable dimension
//! uniformly at random and move one hop along it. parker says nothing
//! about deadlock, and that rule alone, on one VC, deadlocks a torus (its
//! rings and its turns form cycles). Here the random hop goes on the
//! adaptive VCs (VCs `1..`, priority 0) over the escape network of the
//! Adaptive Bubble Router: VC 0 in dimension order under bubble flow
//! control (priority 1; one free packet slot to keep travelling along a
//! ring, two to enter one), used only when the adaptive VCs of the chosen
//! port cannot take the packet. The escape network is deadlock-free and
//! reachable from every adaptive VC, so the whole is (Duato's condition,
//! as for `abr`).
//!
//! The draw is made once per packet and hop: a per-packet random salt
//! (from the terminal's stream, at the source) mixed with the number of
//! channels crossed, so asking the router again for the same hop (while
//! the packet waits) gives the same dimension. At a tie (`k / 2` either
//! way) the direction is drawn the same way. Needs cut-through or
//! store-and-forward switching and buffers of at least two packets per VC.
//!
//! Options: `adaptive_vcs` (default 0: every VC above the escape one).
//! Counter `escape_hops`: hops taken on the escape VC.

use super::bubble::{count_escape_hop, ESCAPE_VC};
use super::torus_geometry::{adaptive_vcs, mix64, push_vcs, TorusGeometry};
use super::{
    AnyRouter, BuildRouter, Candidate, Candidates, Header, Here, HopRouter, LocalView, RouterCtx,
    RouterOptions,
};
use crate::network::build::torus::dim_port;
use crate::network::{ChannelId, Network};
use crate::routing::RoutingError;
use rand::Rng as _;

/// Randomized Dynamic Routing over a bubble escape. See the module docs.
pub struct RdrRouter {
    geo: TorusGeometry,
    adaptive: u8,
}

impl BuildRouter for RdrRouter {
    fn build(net: &Network, opts: &RouterOptions) -> Result<AnyRouter, RoutingError> {
        opts.only(&["adaptive_vcs"])?;
        let adaptive = opts.u32("adaptive_vcs", 0)?.min(63) as u8;
        Ok(AnyRouter::Rdr(RdrRouter {
            geo: TorusGeometry::new(net, "rdr", false)?,
            adaptive,
        }))
    }
}

impl RdrRouter {
    /// The `(dimension, positive)` parker's rule picks for a packet with
    /// this salt after `hops` channels, at switch `at` towards `goal`.
    pub fn pick(&self, salt: u32, hops: u16, at: u32, goal: u32) -> Option<(usize, bool)> {
        let a = self.geo.coords(at);
        let b = self.geo.coords(goal);
        let viable = (0..self.geo.n()).filter(|&d| a[d] != b[d]).count() as u64;
        if viable == 0 {
            return None;
        }
        let h = mix64(u64::from(salt) << 16 | u64::from(hops));
        let mut i = (h % viable) as usize;
        for d in 0..self.geo.n() {
            if a[d] == b[d] {
                continue;
            }
            if i == 0 {
                let positive = match self.geo.minimal(d, a[d], b[d]) {
                    (true, true) => h >> 63 == 0,
                    (plus, _) => plus,
                };
                return Some((d, positive));
            }
            i -= 1;
        }
        None
    }
}

impl HopRouter for RdrRouter {
    fn name(&self) -> &str {
        "rdr"
    }

    fn reads_view(&self) -> bool {
        false
    }

    fn fixed_candidates(&self) -> bool {
        true
    }

    fn vcs_needed(&self) -> u8 {
        1 + self.adaptive.max(1)
    }

    fn check(&self, res: &super::Resources) -> Result<(), String> {
        super::bubble::check(res, self.vcs_needed())
    }

    fn counters(&self) -> Vec<String> {
        vec!["escape_hops".into()]
    }

    fn source(&self, hdr: &mut Header, _view: &dyn LocalView, ctx: &mut RouterCtx) {
        hdr.state = ctx.rng.gen();
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
        if let Some((d, positive)) = self.pick(hdr.state, hdr.hops, here.switch_index, goal) {
            let adaptive = adaptive_vcs(here.vcs, ESCAPE_VC + 1, self.adaptive);
            push_vcs(dim_port(d, positive), adaptive, out);
        }
        // The escape: dimension order under bubble flow control.
        self.geo.minimal_hop(
            here,
            goal,
            hdr.flits,
            (ESCAPE_VC, ESCAPE_VC + 1),
            (0, 0),
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
    use super::*;
    use crate::network::spec;

    #[test]
    fn picks_viable_dimensions_uniformly_and_repeats_a_hop() {
        let net = spec::build("torus:8x8x8").unwrap();
        let AnyRouter::Rdr(r) = RdrRouter::build(&net, &RouterOptions::default()).unwrap() else {
            panic!()
        };
        // (0,0,0) -> (2,0,4): x is + (2 hops), z a tie; y is not viable.
        let goal = r.geo.switch_at(&[2, 0, 4]);
        let mut seen = [0u32; 6];
        for salt in 0..6000u32 {
            let (d, p) = r.pick(salt, 3, 0, goal).unwrap();
            assert_ne!(d, 1);
            assert!(d == 2 || p, "x only +");
            seen[2 * d + usize::from(!p)] += 1;
            assert_eq!(r.pick(salt, 3, 0, goal), Some((d, p)));
        }
        // Half x, a quarter each way along z.
        assert!((seen[0] as f64 / 6000.0 - 0.5).abs() < 0.03, "{seen:?}");
        assert!((seen[4] as f64 / 6000.0 - 0.25).abs() < 0.03, "{seen:?}");
        assert!((seen[5] as f64 / 6000.0 - 0.25).abs() < 0.03, "{seen:?}");
        assert_eq!(r.pick(1, 1, goal, goal), None);
    }
}
