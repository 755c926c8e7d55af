//! Pick-Orthant Routing (the GAL/GOAL/CQR family as versaci2013 §1 and
//! §4 describe it) on tori, built ABR-style as in versaci2013.
//!
//! At injection (the source hook, once per packet) the router may fix an
//! orthant: a direction per dimension that needs travel. Orthant `F` flips
//! the directions of the dimensions in `F` from the shorter way round to
//! the longer one; it costs `d_F = sum of the flipped k_i - d_i plus the
//! others' d_i` hops, the same as going through the Wraparound IDN of
//! that orthant (eq. 1). Its profit is eq. (15) with `eta` (default 1.0,
//! Remark 3): `u_* / u_F + eta d / d_F`, `u_F` the mean used flit slots of
//! the local outgoing links in the orthant's directions, `u_*` by default
//! the least of any outgoing link (see [`super::ofr`]); the minimal route scores
//! `u_* / u_0 + eta`. The packet is derouted into the best orthant only if
//! it scores more than the minimal route. Orthants that flip only
//! dimensions at a tie (`d_i = k_i / 2`) would not deroute and are not
//! considered; a dimension with `s_i = t_i` needs no travel and has no
//! direction to pick.
//!
//! Routing then follows the Adaptive Bubble Router ([`super::abr`]): VC 0
//! is the escape VC, in dimension order under bubble flow control
//! (priority 1), VCs `1..` adaptive (priority 0). A packet routed minimally
//! takes any minimal direction; a derouted one only the directions of its
//! orthant, in every dimension until it reaches the destination's
//! coordinate, on its adaptive and its escape VCs alike. Each escape ring
//! is still travelled one way and entered with two free packet slots, and
//! dimension order still orders the rings, so one escape VC suffices.
//! Header: `state` 0 before the source hook, [`DECIDED_MINIMAL`], or
//! [`ORTHANT`] with bit `8 + d` set if the packet moves `-` along `d`.
//!
//! Options: `eta` (1.0), `adaptive_vcs` (0: every VC above the escape
//! ones), `escape_vcs` (1; 2 gives each escape ring a second VC, see
//! [`super::bubble`]), `u_star` ("minimal") and `fraction` ("unbounded"),
//! the reading of eq. (15) ([`ProfitRule`](super::profit::ProfitRule)),
//! `one_way_ties` and `zero_dilation` (true). Counters: `minimal`,
//! `derouted` (packets by decision), `escape_hops`, `zero_dilation`
//! (derouted packets whose orthant adds no hop). Needs cut-through or store-and-forward switching and
//! buffers of at least two packets per VC.

use super::bubble::{count_escape_hop, escape_vcs, ESCAPE_VC};
use super::profit::{mean_minimal, undecided, ProfitRule};
use super::torus_geometry::{adaptive_vcs, TorusGeometry};
use super::{
    AnyRouter, BuildRouter, Candidate, Candidates, Header, Here, HopRouter, LocalView, RouterCtx,
    RouterOptions,
};
use crate::network::build::torus::dim_port;
use crate::network::{ChannelId, Network};
use crate::routing::RoutingError;

/// `Header::state` of a packet routed minimally.
pub const DECIDED_MINIMAL: u32 = 1;
/// `Header::state` bit of a packet in a fixed orthant.
pub const ORTHANT: u32 = 2;

/// Pick-Orthant Routing. See the module docs.
pub struct PorRouter {
    geo: TorusGeometry,
    eta: f64,
    adaptive: u8,
    escapes: u8,
    rule: ProfitRule,
    zero_dilation: bool,
}

impl BuildRouter for PorRouter {
    fn build(net: &Network, opts: &RouterOptions) -> Result<AnyRouter, RoutingError> {
        opts.only(&[
            "eta",
            "adaptive_vcs",
            "escape_vcs",
            "u_star",
            "fraction",
            "one_way_ties",
            "zero_dilation",
        ])?;
        let eta = opts.f64("eta", 1.0)?;
        if !eta.is_finite() || eta < 0.0 {
            return Err(RoutingError::BadOption {
                option: "eta".into(),
                value: eta.to_string(),
                expected: "a non-negative number".into(),
            });
        }
        let geo = TorusGeometry::new(net, "por", true)?.with_ties(opts)?;
        if geo.n() > 24 {
            return Err(RoutingError::Unfit {
                engine: "por",
                needs: "at most 24 dimensions".into(),
                network: net.name().to_string(),
                found: format!("{} dimensions", geo.n()),
            });
        }
        Ok(AnyRouter::Por(PorRouter {
            geo,
            eta,
            adaptive: opts.u32("adaptive_vcs", 0)?.min(63) as u8,
            escapes: escape_vcs(opts)?,
            rule: ProfitRule::from_options(opts)?,
            zero_dilation: opts.bool("zero_dilation", true)?,
        }))
    }
}

impl PorRouter {
    /// The orthant eq. (15) picks for a packet from switch `s` to switch
    /// `t` given the used flit slots `occ[p - 1]` of every network port `p`
    /// of `s`: `Some((mask, extra))` (bit `d` of `mask` set: `-` along `d`;
    /// `extra` the hops it adds) to deroute, `None` to route minimally.
    pub fn decide(&self, s: u32, t: u32, occ: &[u32]) -> Option<(u32, u32)> {
        let geo = &self.geo;
        let (sc, tc) = (geo.coords(s), geo.coords(t));
        let m: Vec<usize> = (0..geo.n()).filter(|&d| sc[d] != tc[d]).collect();
        if m.is_empty() {
            return None;
        }
        let off: Vec<(u32, bool)> = (0..geo.n()).map(|d| geo.offset(d, sc[d], tc[d])).collect();
        let d: u32 = off.iter().map(|o| o.0).sum();
        let u_star = self.rule.u_star(geo, sc, tc, occ);
        let mut best = self
            .rule
            .profit(u_star, mean_minimal(geo, sc, tc, occ), self.eta, d, d);
        let mut choice = None;
        for f in 1u32..1 << m.len() {
            let (mut dq, mut mask, mut used, mut deroutes) = (0u32, 0u32, 0u64, false);
            for (j, &dim) in m.iter().enumerate() {
                let (di, plus) = off[dim];
                let k = geo.dims[dim];
                let flip = f >> j & 1 == 1;
                let positive = plus != flip;
                if flip {
                    dq += k - di;
                    deroutes |= 2 * di != k;
                } else {
                    dq += di;
                }
                if !positive {
                    mask |= 1 << dim;
                }
                used += u64::from(occ[usize::from(dim_port(dim, positive).0) - 1]);
            }
            // Only ties flipped: the other half-ring, no extra hop. A
            // route apart from the minimal ones only when those go `+`.
            let other_half_ring = geo.one_way_ties && self.zero_dilation;
            if !(deroutes || other_half_ring) {
                continue;
            }
            let uq = used as f64 / m.len() as f64;
            let p = self.rule.profit(u_star, uq, self.eta, d, dq);
            if p > best {
                best = p;
                choice = Some((mask, dq - d));
            }
        }
        choice
    }
}

impl HopRouter for PorRouter {
    fn name(&self) -> &str {
        "por"
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
        ["minimal", "derouted", "escape_hops", "zero_dilation"]
            .map(String::from)
            .to_vec()
    }

    fn source(&self, hdr: &mut Header, view: &dyn LocalView, ctx: &mut RouterCtx) {
        let Some((s, t, occ)) = undecided(&self.geo, hdr, view) else {
            return;
        };
        match self.decide(s, t, &occ) {
            None => {
                hdr.state = DECIDED_MINIMAL;
                ctx.count(0);
            }
            Some((mask, extra)) => {
                hdr.state = ORTHANT | mask << 8;
                ctx.count(1);
                if extra == 0 {
                    ctx.count(3);
                }
            }
        }
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
        let escape = (ESCAPE_VC, self.escapes);
        if hdr.state & ORTHANT != 0 {
            self.geo
                .orthant_hop(here, goal, hdr.state >> 8, hdr.flits, escape, adaptive, out);
        } else {
            self.geo
                .minimal_hop(here, goal, hdr.flits, escape, adaptive, out);
        }
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
        count_escape_hop(chosen, ctx, 2);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::network::spec;

    #[test]
    fn picks_the_orthant_with_free_links_when_minimal_ones_are_busy() {
        let net = spec::build("torus:8x8x8").unwrap();
        let AnyRouter::Por(r) = PorRouter::build(&net, &RouterOptions::default()).unwrap() else {
            panic!()
        };
        let g = &r.geo;
        let s = g.switch_at(&[0, 0, 0]);
        // x: +3, y: +1; z equal.
        let t = g.switch_at(&[3, 1, 0]);
        assert_eq!(r.decide(s, t, &[0; 6]), None);
        // +y full: flipping y costs 8 - 1 - 1 = 6 more hops (d = 4, d_F =
        // 10): 1 + 0.4 = 1.4 against u*/u0 + 1 = 0 + 1.
        let mut occ = [0u32; 6];
        occ[2] = 16;
        assert_eq!(r.decide(s, t, &occ), Some((1 << 1, 6)));
        // Both minimal links full: flipping both, d_F = 5 + 7 = 12; one of
        // them flipped keeps a full link (u*/u = 0 / 8 = 0): flip both.
        occ[0] = 16;
        assert_eq!(r.decide(s, t, &occ), Some((0b11, 8)));
    }

    fn por(opts: &[(&str, &str)]) -> PorRouter {
        let net = spec::build("torus:8x8x8").unwrap();
        let mut o = RouterOptions::default();
        for (k, v) in opts {
            o.params.insert(k.to_string(), v.to_string());
        }
        let AnyRouter::Por(r) = PorRouter::build(&net, &o).unwrap() else {
            panic!()
        };
        r
    }

    #[test]
    fn one_way_ties_leave_the_other_half_ring_as_a_free_orthant() {
        let r = por(&[("one_way_ties", "true")]);
        let g = &r.geo;
        let s = g.switch_at(&[0, 0, 0]);
        // x: +2, y: a tie at 4 (minimal: +y only).
        let t = g.switch_at(&[2, 4, 0]);
        assert_eq!(r.decide(s, t, &[0; 6]), None);
        // +y busy: the orthant flipping only y is -y, 4 hops, no more.
        let mut occ = [0u32; 6];
        occ[2] = 16;
        assert_eq!(r.decide(s, t, &occ), Some((1 << 1, 0)));
        // Without the option the other half-ring is not considered: the
        // packet is derouted in x as well, 4 hops more.
        let r = por(&[("one_way_ties", "true"), ("zero_dilation", "false")]);
        assert_eq!(r.decide(s, t, &occ), Some((0b11, 4)));
        // Both ways minimal: the tie-only orthant is a minimal route.
        let r = por(&[]);
        assert!(r.decide(s, t, &occ).is_none_or(|(_, extra)| extra > 0));
    }

    #[test]
    fn a_second_escape_vc_is_offered_on_the_escape_port() {
        let r = por(&[("escape_vcs", "2"), ("adaptive_vcs", "1")]);
        assert_eq!(r.vcs_needed(), 3);
        let bad = {
            let net = spec::build("torus:8x8x8").unwrap();
            let mut o = RouterOptions::default();
            o.params.insert("escape_vcs".into(), "3".into());
            PorRouter::build(&net, &o).err().unwrap().to_string()
        };
        assert!(bad.contains("escape_vcs"), "{bad}");
    }
}
