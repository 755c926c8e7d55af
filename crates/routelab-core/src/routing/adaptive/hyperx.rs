//! HyperX routers (Ahn, Binkert, Davis, McLaren & Schreiber 2009): minimal
//! dimension order, Valiant and UGAL, computed from the coordinates (no
//! tables). In a HyperX every dimension is a complete graph: a packet
//! fixes a differing coordinate in one hop.
//!
//! - `hx-dor`: the differing coordinates in dimension order, one hop each.
//! - `hx-val`: Valiant. Dimension order to a uniformly random intermediate
//!   switch (neither the source's nor the destination's), then dimension
//!   order to the destination.
//! - `hx-ugal`: at the source switch, dimension order or Valiant through a
//!   random intermediate switch by UGAL's rule: Valiant when
//!   `q_min * H_min > q_val * H_val + threshold`, `q` the flits queued on
//!   the path's first output (all its trunks and VCs) at the source switch,
//!   `H` the path's hops.
//!
//! Between trunked switches (`t` > 1) every trunk of the hop is offered,
//! and the switch picks among them.
//!
//! **Deadlock freedom: VCs by phase.** Within a phase a route fixes
//! coordinates in dimension order, one hop per dimension, so its channels
//! go from lower dimensions to higher ones and no dependency cycle forms
//! inside a phase. Valiant's second phase takes class 1, the first (and
//! every minimal route) class 0, so dependencies only rise from class 0 to
//! class 1. Classes needed (VCs per port): DOR 1, VAL and UGAL 2; with
//! more VCs, class `c` uses VCs `c, c + n, ...` (`n` the classes).
//!
//! Options: `threshold` (`hx-ugal`: flits added to the Valiant side,
//! default 0); `intermediate` (`hx-val`, `hx-ugal`): where the Valiant
//! intermediate is drawn, `other` (any switch but the source's and the
//! destination's, the default), `any` (any switch, as BookSim2's
//! `valiant_flatfly` draws a random node) or `differing` (a random
//! coordinate in each dimension where source and destination differ, as
//! BookSim2's `ugal_flatfly`). A packet whose first phase passes its
//! destination's switch is delivered there. Counters: `minimal` and `nonminimal` (the decision at the
//! source). Needs a HyperX in the generator's numbering (`hyperx:..`,
//! `flatfly:..`, or a dump recognised as one).

use super::dragonfly::{draw_other, Reads};
use super::{
    AnyRouter, BuildRouter, Candidate, Candidates, Direct, Header, Here, HopRouter, LocalView,
    RouterCtx, RouterOptions,
};
use crate::network::build::hyperx::{hyperx_link_ports, hyperx_port};
use crate::network::build::torus::coords;
use crate::network::{ChannelId, Network, PortId, Structure};
use crate::routing::RoutingError;
use rand::Rng as _;
use std::marker::PhantomData;

/// One HyperX router: how it picks between the minimal and the Valiant
/// path.
pub trait Policy: Send + Sync + 'static {
    const NAME: &'static str;
    const CLASSES: u8;
    const READS: Reads;
    const ALWAYS_VALIANT: bool = false;
    /// The router as the registry's variant.
    fn wrap(r: HyperXRouter<Self>) -> AnyRouter
    where
        Self: Sized;
}

pub struct Dor;
pub struct Val;
pub struct Ugal;

impl Policy for Dor {
    const NAME: &'static str = "hx-dor";
    const CLASSES: u8 = 1;
    const READS: Reads = Reads::Nothing;
    fn wrap(r: HyperXRouter<Self>) -> AnyRouter {
        AnyRouter::HxDor(r)
    }
}
impl Policy for Val {
    const NAME: &'static str = "hx-val";
    const CLASSES: u8 = 2;
    const READS: Reads = Reads::Nothing;
    const ALWAYS_VALIANT: bool = true;
    fn wrap(r: HyperXRouter<Self>) -> AnyRouter {
        AnyRouter::HxVal(r)
    }
}
impl Policy for Ugal {
    const NAME: &'static str = "hx-ugal";
    const CLASSES: u8 = 2;
    const READS: Reads = Reads::Local;
    fn wrap(r: HyperXRouter<Self>) -> AnyRouter {
        AnyRouter::HxUgal(r)
    }
}

// `Header::state` bits.
/// Through an intermediate switch (`Header::aux`).
const VALIANT: u32 = 1;
/// The intermediate switch was reached: on to the destination.
const REACHED: u32 = 2;
const NONE: u32 = u32::MAX;

/// A HyperX router of policy `P`. See the module docs.
pub struct HyperXRouter<P: Policy> {
    sides: Vec<u32>,
    trunks: u32,
    /// Terminals per switch.
    concentration: u32,
    /// `n` coordinates per switch.
    coord: Vec<u32>,
    threshold: f64,
    intermediate: Intermediate,
    policy: PhantomData<P>,
}

/// Where a Valiant route's intermediate switch is drawn (`intermediate`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Intermediate {
    /// Any switch but the source's and the destination's (the default).
    Other,
    /// Any switch, as BookSim2's `valiant_flatfly` draws a random node: the
    /// source's (no first phase) and the destination's included.
    Any,
    /// A random coordinate in each dimension where source and destination
    /// differ, the source's elsewhere: BookSim2's `ugal_flatfly`, Kim,
    /// Dally & Abts' UGAL on the flattened butterfly.
    Differing,
}

impl Intermediate {
    fn parse(name: &str) -> Self {
        match name {
            "any" => Intermediate::Any,
            "differing" => Intermediate::Differing,
            _ => Intermediate::Other,
        }
    }
}

impl<P: Policy> BuildRouter for HyperXRouter<P> {
    fn build(net: &Network, opts: &RouterOptions) -> Result<AnyRouter, RoutingError> {
        Ok(P::wrap(HyperXRouter::<P>::new(net, opts)?))
    }
}

impl<P: Policy> HyperXRouter<P> {
    pub fn new(net: &Network, opts: &RouterOptions) -> Result<Self, RoutingError> {
        let (threshold, intermediate) = if P::CLASSES > 1 {
            let mut known = vec!["intermediate"];
            if P::READS != Reads::Nothing {
                known.push("threshold");
            }
            opts.only(&known)?;
            let threshold = if P::READS != Reads::Nothing {
                opts.f64("threshold", 0.0)?
            } else {
                0.0
            };
            let how = opts.choice("intermediate", &["other", "any", "differing"])?;
            (threshold, Intermediate::parse(how))
        } else {
            (P::READS.threshold(opts)?, Intermediate::Other)
        };
        let unfit = |found: String| RoutingError::Unfit {
            engine: P::NAME,
            needs: "a HyperX in its generator's numbering".into(),
            network: net.name().to_string(),
            found,
        };
        let Structure::HyperX {
            sides,
            trunking,
            concentration,
        } = net.structure()
        else {
            return Err(unfit(net.structure().family_with_article()));
        };
        let switches: u64 = sides.iter().map(|&k| u64::from(k)).product();
        if switches != net.switches().len() as u64 || (P::CLASSES > 1 && switches < 3) {
            return Err(unfit(format!("{} switches", net.switches().len())));
        }
        // Terminal `i` on switch `i / c`, port `L + 1 + i mod c`.
        let (c, first) = ((*concentration).max(1), hyperx_link_ports(sides, *trunking));
        for (i, &t) in net.terminals().iter().enumerate() {
            let at = net.out_channels(t).first().map(|&ch| net.channel(ch));
            let ok = at.is_some_and(|ch| {
                net.is_switch(ch.dst)
                    && net.kind_index(ch.dst) == i / c as usize
                    && u32::from(ch.dst_port.0) == first + 1 + i as u32 % c
            });
            if !ok {
                return Err(unfit(format!("terminal {} elsewhere", net.label(t))));
            }
        }
        let coord = (0..switches as u32)
            .flat_map(|s| coords(sides, s))
            .collect();
        Ok(HyperXRouter {
            sides: sides.clone(),
            trunks: *trunking,
            concentration: c,
            coord,
            threshold,
            intermediate,
            policy: PhantomData,
        })
    }

    #[inline]
    fn coords(&self, s: u32) -> &[u32] {
        let n = self.sides.len();
        &self.coord[s as usize * n..(s as usize + 1) * n]
    }

    /// Hops between two switches: the coordinates in which they differ.
    pub fn distance(&self, a: u32, b: u32) -> u32 {
        let (x, y) = (self.coords(a), self.coords(b));
        x.iter().zip(y).filter(|(p, q)| p != q).count() as u32
    }

    /// The first port of the dimension-order hop from `s` towards `goal`
    /// (`s != goal`), trunk 0.
    #[inline]
    fn first_port(&self, s: u32, goal: u32) -> PortId {
        let (x, y) = (self.coords(s), self.coords(goal));
        let d = (0..x.len()).find(|&d| x[d] != y[d]).unwrap_or(0);
        hyperx_port(&self.sides, self.trunks, d, x[d], y[d], 0)
    }

    /// The switch a packet heads for at `s`, and its hop class.
    #[inline]
    fn goal(&self, hdr: &Header, s: u32, d: u32) -> (u32, u8) {
        if hdr.state & VALIANT == 0 {
            (d, 0)
        } else if hdr.state & REACHED == 0 && s != hdr.aux {
            (hdr.aux, 0)
        } else {
            (d, 1)
        }
    }

    /// The flits queued on every trunk of `s`'s first hop towards `goal`.
    fn queue(&self, view: &dyn LocalView, s: u32, goal: u32) -> f64 {
        let p = self.first_port(s, goal).0;
        let q: u32 = (0..self.trunks as u16)
            .map(|c| view.port_occupancy(PortId(p + c)))
            .sum();
        f64::from(q)
    }

    /// The state once the packet leaves `s`.
    #[inline]
    fn next_state(&self, hdr: &Header, s: u32) -> u32 {
        if hdr.state & VALIANT != 0 && s == hdr.aux {
            hdr.state | REACHED
        } else {
            hdr.state
        }
    }
}

impl<P: Policy> HopRouter for HyperXRouter<P> {
    fn name(&self) -> &str {
        P::NAME
    }

    fn vcs_needed(&self) -> u8 {
        P::CLASSES
    }

    fn reads_view(&self) -> bool {
        P::READS != Reads::Nothing
    }

    fn fixed_candidates(&self) -> bool {
        // `route` reads the header and the switch alone.
        true
    }

    fn counters(&self) -> Vec<String> {
        vec!["minimal".into(), "nonminimal".into()]
    }

    fn source(&self, hdr: &mut Header, view: &dyn LocalView, ctx: &mut RouterCtx) {
        hdr.state = 0;
        hdr.aux = NONE;
        let s = hdr.origin / self.concentration;
        let d = hdr.target / self.concentration;
        let switches = self.coord.len() as u32 / self.sides.len() as u32;
        if s == d || !(P::ALWAYS_VALIANT || P::READS != Reads::Nothing) {
            ctx.count(0);
            return;
        }
        let via = match self.intermediate {
            Intermediate::Other => draw_other(ctx.rng, switches, s, d),
            Intermediate::Any => ctx.rng.gen_range(0..switches),
            Intermediate::Differing => {
                let (x, z) = (self.coords(s), self.coords(d));
                let mut v = 0;
                for dim in (0..self.sides.len()).rev() {
                    let k = self.sides[dim];
                    let c = if x[dim] == z[dim] {
                        x[dim]
                    } else {
                        ctx.rng.gen_range(0..k)
                    };
                    v = v * k + c;
                }
                v
            }
        };
        let valiant = P::ALWAYS_VALIANT || {
            let h_min = f64::from(self.distance(s, d));
            let h_val = f64::from(self.distance(s, via) + self.distance(via, d));
            self.queue(view, s, d) * h_min > self.queue(view, s, via) * h_val + self.threshold
        };
        if valiant {
            hdr.state = VALIANT;
            hdr.aux = via;
            ctx.count(1);
        } else {
            ctx.count(0);
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
        let s = here.switch_index;
        let d = hdr.target / self.concentration;
        if s == d {
            let first = hyperx_link_ports(&self.sides, self.trunks);
            let eject = PortId((first + 1 + hdr.target % self.concentration) as u16);
            for v in 0..here.vcs {
                out.push(eject, v);
            }
            return;
        }
        let (goal, class) = self.goal(hdr, s, d);
        let port = self.first_port(s, goal).0;
        for trunk in 0..self.trunks as u16 {
            let mut v = class;
            while v < here.vcs {
                out.push(PortId(port + trunk), v);
                v += P::CLASSES;
            }
        }
    }

    #[inline]
    fn direct(&self, hdr: &Header, switch_index: u32) -> Option<Direct> {
        let d = hdr.target / self.concentration;
        if self.trunks != 1 || switch_index == d {
            return None;
        }
        let (goal, class) = self.goal(hdr, switch_index, d);
        Some(Direct {
            port: self.first_port(switch_index, goal),
            lane: class,
            lanes: P::CLASSES,
            state: self.next_state(hdr, switch_index),
        })
    }

    #[inline]
    fn forwarded(
        &self,
        hdr: &mut Header,
        here: &Here,
        _chosen: Candidate,
        _channel: ChannelId,
        _ctx: &mut RouterCtx,
    ) {
        hdr.state = self.next_state(hdr, here.switch_index);
    }
}

#[cfg(test)]
mod tests {
    use super::super::torus_geometry::test_view::FixedView;
    use super::*;
    use crate::network::spec;

    /// Walks every route policy `P` can give (each pair of terminals, each
    /// intermediate switch or none): the longest route, whether the
    /// dependencies form a cycle, and the hops left to `route`.
    fn walk_every_route<P: Policy>(topology: &str) -> (usize, bool, usize) {
        let net = spec::build(topology).unwrap();
        let r = HyperXRouter::<P>::new(&net, &RouterOptions::default()).unwrap();
        let (terminals, c) = (net.terminals().len() as u32, r.concentration);
        let switches = net.switches().len() as u32;
        let mut headers = Vec::new();
        for src in 0..terminals {
            for dst in (0..terminals).filter(|&d| d != src) {
                let (s, d) = (src / c, dst / c);
                let mut choices = vec![(0, NONE)];
                if s != d && P::CLASSES > 1 {
                    choices = (0..switches)
                        .filter(|&v| v != s && v != d)
                        .map(|v| (VALIANT, v))
                        .collect();
                    if !P::ALWAYS_VALIANT {
                        choices.push((0, NONE));
                    }
                }
                for (state, aux) in choices {
                    headers.push(Header {
                        src,
                        dst,
                        origin: src,
                        target: dst,
                        flits: 1,
                        state,
                        aux,
                        ..Header::default()
                    });
                }
            }
        }
        let view = |_: u32, _: &Header| FixedView::empty(64);
        let w = crate::routing::adaptive::walk_routes(&net, &r, P::CLASSES, headers, &view);
        (w.longest, w.cycle, w.undecided)
    }

    #[test]
    fn every_route_has_an_acyclic_channel_dependency_graph() {
        // 4 x 3 x 2, two trunks, one terminal per switch: DOR takes at most
        // one hop per dimension, Valiant twice that.
        // Trunked, every hop asks for candidates (one per trunk).
        let t = "hyperx:S=4x3x2,t=2,p=1";
        assert_eq!(walk_every_route::<Dor>(t).0, 3);
        assert_eq!(walk_every_route::<Val>(t).0, 6);
        assert_eq!(walk_every_route::<Ugal>(t).0, 6);
        for w in [walk_every_route::<Dor>(t), walk_every_route::<Val>(t)] {
            assert!(!w.1);
        }
        assert!(!walk_every_route::<Ugal>(t).1);
        // Untrunked: every hop is decided without candidates too, and agrees.
        assert_eq!(
            walk_every_route::<Val>("hyperx:S=3x3,t=1,p=2"),
            (4, false, 0)
        );
        assert_eq!(
            walk_every_route::<Dor>("hyperx:S=3x3,t=1,p=2"),
            (2, false, 0)
        );
    }

    #[test]
    fn intermediates_are_drawn_where_the_option_says() {
        use super::super::torus_geometry::test_view::FixedView;
        let net = spec::build("hyperx:S=4x4x4,t=1,p=1").unwrap();
        // Source (0, 0, 0) to destination (1, 2, 0): terminal = switch.
        let (src, dst) = (0u32, 1 + 2 * 4);
        let mut rng = crate::rng::stream(5, "via");
        let mut counters = vec![0u64; 2];
        for (how, check) in [
            (
                "other",
                Box::new(|v: u32| v != src && v != dst) as Box<dyn Fn(u32) -> bool>,
            ),
            ("any", Box::new(|_| true)),
            // Dimension 2 agrees (0): the intermediate keeps it.
            ("differing", Box::new(|v: u32| v / 16 == 0)),
        ] {
            let mut o = RouterOptions::default();
            o.params.insert("intermediate".into(), how.into());
            let r = HyperXRouter::<Val>::new(&net, &o).unwrap();
            let mut seen = std::collections::BTreeSet::new();
            for _ in 0..2000 {
                let mut hdr = Header {
                    origin: src,
                    target: dst,
                    ..Header::default()
                };
                let mut ctx = RouterCtx::new(&mut rng, &mut counters);
                r.source(&mut hdr, &FixedView::empty(16), &mut ctx);
                assert!(check(hdr.aux), "{how}: {}", hdr.aux);
                seen.insert(hdr.aux);
            }
            let want = match how {
                "other" => 62,
                "any" => 64,
                _ => 16,
            };
            assert_eq!(seen.len(), want, "{how}");
        }
        let mut o = RouterOptions::default();
        o.params.insert("intermediate".into(), "nearest".into());
        let e = HyperXRouter::<Val>::new(&net, &o)
            .err()
            .unwrap()
            .to_string();
        assert!(e.contains("intermediate") && e.contains("differing"), "{e}");
        // Dimension order takes no such option.
        assert!(HyperXRouter::<Dor>::new(&net, &o).is_err());
    }

    #[test]
    fn another_network_is_refused_by_name() {
        let net = spec::build("torus:4x4").unwrap();
        let e = HyperXRouter::<Dor>::new(&net, &RouterOptions::default())
            .err()
            .unwrap()
            .to_string();
        assert!(e.contains("hx-dor") && e.contains("HyperX"), "{e}");
        // Two switches leave no third to route through, for UGAL as for
        // Valiant; dimension order routes them.
        let two = spec::build("hyperx:S=2,t=1,p=2").unwrap();
        assert!(HyperXRouter::<Ugal>::new(&two, &RouterOptions::default()).is_err());
        assert!(HyperXRouter::<Dor>::new(&two, &RouterOptions::default()).is_ok());
    }
}
