//! Megafly (Dragonfly+) routers: MIN, VAL, UGAL-L, UGAL-G and PAR, computed
//! from the cabling (no tables). A group is a two-level fat tree: a packet
//! climbs from its leaf to a spine, crosses global links between spines,
//! and descends to its leaf; moving between two spines of a group takes a
//! hop down to any leaf and one up.
//!
//! - `mf-min`: minimal. Up to the spine holding the global link to the
//!   destination group, that link, down to the destination leaf. Within a
//!   group, up to any spine and down (the switch picks the spine).
//! - `mf-val`: Valiant. Minimal to a uniformly random intermediate group
//!   (neither the source's nor the destination's); there, down to any leaf
//!   and up to the spine holding the link onwards unless the arriving
//!   spine holds it; then to the destination: up to six hops.
//! - `mf-ugal-l`: at the source leaf, minimal or Valiant through a random
//!   intermediate group by UGAL's rule (Valiant when
//!   `q_min * H_min > q_val * H_val + threshold`), `q` the flits queued on
//!   the path's up port at the source leaf, `H` the path's hops. The
//!   random intermediate is drawn again (up to 8 times) while its path
//!   leaves by the minimal path's up port: a leaf has only `a` up ports,
//!   and comparing a port with itself keeps packets on a saturated minimal
//!   path (on `megafly:a=4,p=4,h=4` under `group-shift`, UGAL-G carried
//!   0.28 per terminal without the redraw and 0.36 with it; Valiant 0.41).
//! - `mf-ugal-g`: the same with `q` the up port plus the queue of the
//!   path's first global channel at its spine (the flits in its downstream
//!   buffers and the packets waiting for it there), as `df-ugal-g` reads
//!   it. It reads channels beyond its switch: a split run refuses it.
//! - `mf-par`: progressive adaptive. UGAL-L at the source leaf; a packet
//!   sent minimally is judged again at the spine holding the global link
//!   (the gateway), against one of that spine's other global links: the
//!   `(aux mod (h - 1))`-th of them, `aux` the random group drawn at the
//!   source, so the alternative is uniform over the spine's other links
//!   and costs no extra local hop. With `h = 1` it is UGAL-L.
//!
//! **Deadlock freedom: VCs by global hops taken.** Every hop takes the
//! class of the global hops before it (0, 1 or 2). A global hop is
//! followed by hops of a higher class, so a cycle of dependencies would
//! have to stay within one class among local channels; but in class 0 a
//! route only goes up then down in its own group (no hop down is followed
//! by one up), in class 1 a route goes down and then up in the
//! intermediate group (no hop up is followed by one down) or down to its
//! leaf, and class 2 is a last hop down. The channel dependency graph is
//! acyclic. Classes needed (VCs per port): MIN 2, VAL, UGAL and PAR 3; with
//! more VCs, class `c` uses VCs `c, c + n, ...`, all offered.
//!
//! Options (UGAL-L, UGAL-G, PAR): `threshold`, flits added to the Valiant
//! side (default 0), and `hops = "switch" | "global"`, as the dragonfly's
//! routers take them. Counters: `minimal` and `nonminimal` (the decision at
//! the source), `par_reroutes` (PAR). Needs a Megafly in the generator's
//! numbering (`megafly:a=..,p=..,h=..`, or a dump recognised as one).

use super::dragonfly::{draw_other, Reads, UgalRule};
use super::{
    AnyRouter, BuildRouter, Candidate, Candidates, Header, Here, HopRouter, LocalView, RouterCtx,
    RouterOptions,
};
use crate::network::{ChannelId, Network, PortId, Structure};
use crate::routing::RoutingError;
use std::marker::PhantomData;

/// One Megafly router: how it picks between the minimal and the Valiant
/// path.
pub trait Policy: Send + Sync + 'static {
    const NAME: &'static str;
    const CLASSES: u8;
    const READS: Reads;
    const ALWAYS_VALIANT: bool = false;
    const PAR: bool = false;
    /// The router as the registry's variant.
    fn wrap(r: MegaflyRouter<Self>) -> AnyRouter
    where
        Self: Sized;
}

pub struct Min;
pub struct Val;
pub struct UgalL;
pub struct UgalG;
pub struct Par;

impl Policy for Min {
    fn wrap(r: MegaflyRouter<Self>) -> AnyRouter {
        AnyRouter::MfMin(r)
    }
    const NAME: &'static str = "mf-min";
    const CLASSES: u8 = 2;
    const READS: Reads = Reads::Nothing;
}
impl Policy for Val {
    fn wrap(r: MegaflyRouter<Self>) -> AnyRouter {
        AnyRouter::MfVal(r)
    }
    const NAME: &'static str = "mf-val";
    const CLASSES: u8 = 3;
    const READS: Reads = Reads::Nothing;
    const ALWAYS_VALIANT: bool = true;
}
impl Policy for UgalL {
    fn wrap(r: MegaflyRouter<Self>) -> AnyRouter {
        AnyRouter::MfUgalL(r)
    }
    const NAME: &'static str = "mf-ugal-l";
    const CLASSES: u8 = 3;
    const READS: Reads = Reads::Local;
}
impl Policy for UgalG {
    fn wrap(r: MegaflyRouter<Self>) -> AnyRouter {
        AnyRouter::MfUgalG(r)
    }
    const NAME: &'static str = "mf-ugal-g";
    const CLASSES: u8 = 3;
    const READS: Reads = Reads::Global;
}
impl Policy for Par {
    fn wrap(r: MegaflyRouter<Self>) -> AnyRouter {
        AnyRouter::MfPar(r)
    }
    const NAME: &'static str = "mf-par";
    const CLASSES: u8 = 3;
    const READS: Reads = Reads::Local;
    const PAR: bool = true;
}

/// A global link between two groups.
#[derive(Debug, Clone, Copy)]
struct Gateway {
    /// The spine (index within its group's spines) holding it.
    spine: u32,
    port: PortId,
    channel: ChannelId,
}

const NONE: u32 = u32::MAX;

/// A Megafly's groups, read off its cabling.
#[derive(Debug, Clone)]
pub struct MegaflyGeometry {
    /// Leaves (and spines) per group.
    a: u32,
    groups: u32,
    /// The leaf (switch index) and ejection port of each terminal.
    terminal: Vec<(u32, PortId)>,
    /// `ports[x * a + i]`: leaf `x`'s port to spine `i` of its group, or
    /// spine `x`'s port to leaf `i`.
    ports: Vec<PortId>,
    /// `gateway[g * groups + t]`: group `g`'s global link to group `t`.
    gateway: Vec<Gateway>,
    /// Per spine (switch index), the groups its global links lead to.
    reach: Vec<Vec<u32>>,
}

impl MegaflyGeometry {
    pub fn new(net: &Network, router: &'static str) -> Result<Self, RoutingError> {
        let unfit = |found: String| RoutingError::Unfit {
            engine: router,
            needs: "a Megafly (groups of a leaves and a spines, a global link between every two)"
                .into(),
            network: net.name().to_string(),
            found,
        };
        let &Structure::Megafly { a, groups, .. } = net.structure() else {
            return Err(unfit(net.structure().family_with_article()));
        };
        let n = net.switches().len();
        if 2 * u64::from(a) * u64::from(groups) != n as u64 {
            return Err(unfit(format!(
                "{n} switches, not {groups} groups of 2 x {a}"
            )));
        }
        let (a_us, g_us) = (a as usize, groups as usize);
        let unset = Gateway {
            spine: NONE,
            port: PortId(0),
            channel: ChannelId(NONE),
        };
        let mut ports = vec![PortId(0); n * a_us];
        let mut gateway = vec![unset; g_us * g_us];
        let mut reach = vec![Vec::new(); n];
        for (x, &node) in net.switches().iter().enumerate() {
            let g = x / (2 * a_us);
            let leaf = x % (2 * a_us) < a_us;
            for &c in net.out_channels(node) {
                let ch = net.channel(c);
                if !net.is_switch(ch.dst) {
                    continue;
                }
                let y = net.kind_index(ch.dst);
                let (gy, ry) = (y / (2 * a_us), y % (2 * a_us));
                if gy == g && leaf == (ry < a_us) {
                    return Err(unfit(format!(
                        "{} cabled to {} of its own level",
                        net.label(node),
                        net.label(ch.dst)
                    )));
                }
                if gy == g {
                    ports[x * a_us + ry % a_us] = ch.src_port;
                } else {
                    reach[x].push(gy as u32);
                    let gw = &mut gateway[g * g_us + gy];
                    if gw.spine == NONE {
                        *gw = Gateway {
                            spine: (x % (2 * a_us) - a_us) as u32,
                            port: ch.src_port,
                            channel: c,
                        };
                    }
                }
            }
            if let Some(i) = (0..a_us).find(|&i| ports[x * a_us + i].0 == 0) {
                return Err(unfit(format!(
                    "{} without a link to {} {i} of its group",
                    net.label(node),
                    if leaf { "spine" } else { "leaf" }
                )));
            }
        }
        for g in 0..g_us {
            if let Some(t) = (0..g_us).find(|&t| t != g && gateway[g * g_us + t].spine == NONE) {
                return Err(unfit(format!("no global link from group {g} to group {t}")));
            }
        }
        let terminal = super::terminal_attachments(net).map_err(unfit)?;
        if let Some(i) = terminal.iter().position(|&(x, _)| x % (2 * a) >= a) {
            let t = net.terminals()[i];
            return Err(unfit(format!("terminal {} on a spine", net.label(t))));
        }
        Ok(MegaflyGeometry {
            a,
            groups,
            terminal,
            ports,
            gateway,
            reach,
        })
    }

    #[inline]
    fn group(&self, x: u32) -> u32 {
        x / (2 * self.a)
    }

    #[inline]
    fn is_leaf(&self, x: u32) -> bool {
        x % (2 * self.a) < self.a
    }

    /// Spine `s` of group `g`, as a switch index.
    #[inline]
    fn spine(&self, g: u32, s: u32) -> u32 {
        2 * self.a * g + self.a + s
    }

    #[inline]
    fn gateway(&self, g: u32, t: u32) -> Gateway {
        self.gateway[(g * self.groups + t) as usize]
    }

    /// Leaf `x`'s port to spine `i` of its group, or spine `x`'s to leaf `i`.
    #[inline]
    fn port(&self, x: u32, i: u32) -> PortId {
        self.ports[(x * self.a + i) as usize]
    }

    /// Whether spine `x` holds the global link to group `t`.
    #[inline]
    fn holds(&self, x: u32, t: u32) -> bool {
        let g = self.group(x);
        g != t && self.spine(g, self.gateway(g, t).spine) == x
    }

    /// Hops from leaf `s` to leaf `d` by the minimal route.
    fn min_hops(&self, s: u32, d: u32) -> u32 {
        if s == d {
            0
        } else {
            2 + u32::from(self.group(s) != self.group(d))
        }
    }

    /// Hops from leaf `s` to leaf `d` through group `via`.
    fn valiant_hops(&self, s: u32, via: u32, d: u32) -> u32 {
        let arrive = self.gateway(via, self.group(s));
        let leave = self.gateway(via, self.group(d));
        4 + if arrive.spine == leave.spine { 0 } else { 2 }
    }
}

// `Header::state` bits.
/// Global hops taken (0..=2): the class of the next hop.
const GLOBALS: u32 = 0b11;
/// Through an intermediate group (`Header::aux`).
const VALIANT: u32 = 1 << 2;
/// The intermediate group was reached: on to the destination.
const REACHED: u32 = 1 << 3;

/// A Megafly router of policy `P`. See the module docs.
pub struct MegaflyRouter<P: Policy> {
    geo: MegaflyGeometry,
    rule: UgalRule,
    policy: PhantomData<P>,
}

impl<P: Policy> BuildRouter for MegaflyRouter<P> {
    fn build(net: &Network, opts: &RouterOptions) -> Result<AnyRouter, RoutingError> {
        Ok(P::wrap(MegaflyRouter::<P>::new(net, opts)?))
    }
}

impl<P: Policy> MegaflyRouter<P> {
    pub fn new(net: &Network, opts: &RouterOptions) -> Result<Self, RoutingError> {
        let rule = UgalRule::from_options(P::READS, opts)?;
        let geo = MegaflyGeometry::new(net, P::NAME)?;
        if (P::ALWAYS_VALIANT || P::READS != Reads::Nothing) && geo.groups < 3 {
            return Err(RoutingError::Unfit {
                engine: P::NAME,
                needs: "at least 3 groups (a third one to route through)".into(),
                network: net.name().to_string(),
                found: format!("{} groups", geo.groups),
            });
        }
        Ok(MegaflyRouter {
            geo,
            rule,
            policy: PhantomData,
        })
    }

    /// The group a packet heads for now.
    #[inline]
    fn goal_group(&self, hdr: &Header, d: u32) -> u32 {
        if hdr.state & VALIANT != 0 && hdr.state & REACHED == 0 {
            hdr.aux
        } else {
            self.geo.group(d)
        }
    }

    /// The queue of the path from leaf `s` towards group `goal`: its up
    /// port and, under UGAL-G, its global channel's queue at the spine.
    fn queue(&self, view: &dyn LocalView, s: u32, goal: u32, flits: u16) -> f64 {
        let gw = self.geo.gateway(self.geo.group(s), goal);
        let mut q = view.port_occupancy(self.geo.port(s, gw.spine));
        if P::READS == Reads::Global {
            q += view.channel_occupancy(gw.channel).unwrap_or(0);
            q += view.channel_waiting(gw.channel).unwrap_or(0) * u32::from(flits);
        }
        f64::from(q)
    }

    /// PAR: the group a gateway spine `x` would send a minimal packet to
    /// instead (its `aux mod (h - 1)`-th other global link), if any.
    fn par_alternative(&self, hdr: &Header, x: u32, d: u32) -> Option<u32> {
        let reach = &self.geo.reach[x as usize];
        let gd = self.geo.group(d);
        let others = reach.len().checked_sub(1).filter(|&n| n > 0)?;
        let i = hdr.aux as usize % others;
        reach.iter().copied().filter(|&t| t != gd).nth(i)
    }

    /// PAR: whether a minimal packet at switch `x` is at its source group's
    /// gateway, where it is judged again.
    #[inline]
    fn at_par_gateway(&self, hdr: &Header, x: u32, d: u32) -> bool {
        P::PAR
            && hdr.state & (VALIANT | GLOBALS) == 0
            && hdr.aux != NONE
            && !self.geo.is_leaf(x)
            && self.geo.group(x) != self.geo.group(d)
    }

    /// PAR's judgement at gateway spine `x`: the alternative group, when
    /// its global port is the better by UGAL's rule.
    fn par_reroute(&self, hdr: &Header, view: &dyn LocalView, x: u32, d: u32) -> Option<u32> {
        let via = self.par_alternative(hdr, x, d)?;
        let g = self.geo.group(x);
        let q_min = f64::from(view.port_occupancy(self.geo.gateway(g, self.geo.group(d)).port));
        let q_val = f64::from(view.port_occupancy(self.geo.gateway(g, via).port));
        // Hops left: global, down (2) against global, (down, up), global, down.
        let onward = self.geo.gateway(via, self.geo.group(d)).spine;
        let arrives = self.geo.gateway(via, g).spine;
        let h_val = if onward == arrives { 3.0 } else { 5.0 };
        self.rule
            .valiant(q_min, 2.0, q_val, h_val, (1.0, 2.0))
            .then_some(via)
    }

    /// Pushes every VC of `class` on `port` (`CLASSES` apart).
    #[inline]
    fn push_class(port: PortId, class: u8, vcs: u8, out: &mut Candidates) {
        let mut v = class;
        while v < vcs {
            out.push(port, v);
            v += P::CLASSES;
        }
    }

    /// The candidates at switch `x` of a packet to leaf `d` heading for
    /// group `goal`.
    fn hops(&self, hdr: &Header, x: u32, d: u32, goal: u32, vcs: u8, out: &mut Candidates) {
        let geo = &self.geo;
        let class = (hdr.state & GLOBALS) as u8;
        let g = geo.group(x);
        if geo.is_leaf(x) {
            if g == goal {
                // Up to any spine, then down to the destination leaf.
                for i in 0..geo.a {
                    Self::push_class(geo.port(x, i), class, vcs, out);
                }
            } else {
                let gw = geo.gateway(g, goal);
                Self::push_class(geo.port(x, gw.spine), class, vcs, out);
            }
        } else if g == goal {
            Self::push_class(geo.port(x, d % (2 * geo.a)), class, vcs, out);
        } else if geo.holds(x, goal) {
            Self::push_class(geo.gateway(g, goal).port, class, vcs, out);
        } else {
            // Down to any leaf, then up to the spine holding the link.
            for i in 0..geo.a {
                Self::push_class(geo.port(x, i), class, vcs, out);
            }
        }
    }
}

impl<P: Policy> HopRouter for MegaflyRouter<P> {
    fn name(&self) -> &str {
        P::NAME
    }

    fn vcs_needed(&self) -> u8 {
        P::CLASSES
    }

    fn reads_view(&self) -> bool {
        // Within a group the switch picks a spine or leaf by its credits.
        true
    }

    fn reads_remote_channels(&self) -> bool {
        P::READS == Reads::Global
    }

    fn fixed_candidates(&self) -> bool {
        // Only PAR's gateway reads the view in `route`.
        !P::PAR
    }

    fn counters(&self) -> Vec<String> {
        let mut c = vec!["minimal".to_string(), "nonminimal".to_string()];
        if P::PAR {
            c.push("par_reroutes".into());
        }
        c
    }

    fn source(&self, hdr: &mut Header, view: &dyn LocalView, ctx: &mut RouterCtx) {
        hdr.state = 0;
        hdr.aux = NONE;
        let (s, _) = self.geo.terminal[hdr.origin as usize];
        let (d, _) = self.geo.terminal[hdr.target as usize];
        let (gs, gd) = (self.geo.group(s), self.geo.group(d));
        if gs == gd || !(P::ALWAYS_VALIANT || P::READS != Reads::Nothing) {
            ctx.count(0);
            return;
        }
        let mut via = draw_other(ctx.rng, self.geo.groups, gs, gd);
        if P::READS != Reads::Nothing {
            // UGAL compares two up ports: an intermediate reached through
            // the minimal path's spine would compare that port with itself.
            let min_spine = self.geo.gateway(gs, gd).spine;
            for _ in 0..8 {
                if self.geo.gateway(gs, via).spine != min_spine {
                    break;
                }
                via = draw_other(ctx.rng, self.geo.groups, gs, gd);
            }
        }
        hdr.aux = via;
        let valiant = P::ALWAYS_VALIANT || {
            let q_min = self.queue(view, s, gd, hdr.flits);
            let q_val = self.queue(view, s, via, hdr.flits);
            let h_min = f64::from(self.geo.min_hops(s, d));
            let h_val = f64::from(self.geo.valiant_hops(s, via, d));
            self.rule.valiant(q_min, h_min, q_val, h_val, (1.0, 2.0))
        };
        if valiant {
            hdr.state |= VALIANT;
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
        view: &dyn LocalView,
        _ctx: &mut RouterCtx,
        out: &mut Candidates,
    ) {
        let x = here.switch_index;
        let (d, eject) = self.geo.terminal[hdr.target as usize];
        if x == d {
            for v in 0..here.vcs {
                out.push(eject, v);
            }
            return;
        }
        let goal = if self.at_par_gateway(hdr, x, d) {
            self.par_reroute(hdr, view, x, d)
                .unwrap_or(self.geo.group(d))
        } else {
            self.goal_group(hdr, d)
        };
        self.hops(hdr, x, d, goal, here.vcs, out);
    }

    #[inline]
    fn forwarded(
        &self,
        hdr: &mut Header,
        here: &Here,
        chosen: Candidate,
        _channel: ChannelId,
        ctx: &mut RouterCtx,
    ) {
        let x = here.switch_index;
        let (d, _) = self.geo.terminal[hdr.target as usize];
        let gd = self.geo.group(d);
        if self.at_par_gateway(hdr, x, d)
            && chosen.port != self.geo.gateway(self.geo.group(x), gd).port
        {
            // PAR's gateway sent it out on another global link.
            if let Some(via) = self.par_alternative(hdr, x, d) {
                hdr.aux = via;
                hdr.state |= VALIANT;
                ctx.count(2);
            }
        }
        // A spine's ports lead to its leaves or along global links.
        let global =
            !self.geo.is_leaf(x) && !(0..self.geo.a).any(|i| self.geo.port(x, i) == chosen.port);
        if global {
            let globals = (hdr.state & GLOBALS) + 1;
            hdr.state = hdr.state & !GLOBALS | globals.min(GLOBALS);
            if hdr.state & VALIANT != 0 && hdr.state & REACHED == 0 {
                hdr.state |= REACHED;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::torus_geometry::test_view::FixedView;
    use super::*;
    use crate::network::spec;

    /// Every route `P` can give (each pair of terminals, each intermediate
    /// group, minimal or not, under PAR rerouted at the gateway or not,
    /// every spine or leaf the switch may pick): the longest route and
    /// whether the dependencies form a cycle; each hop on its class.
    fn walk_every_route<P: Policy>(topology: &str) -> (usize, bool) {
        let net = spec::build(topology).unwrap();
        let r = MegaflyRouter::<P>::new(&net, &RouterOptions::default()).unwrap();
        let g = &r.geo;
        let terminals = net.terminals().len() as u32;
        let mut headers = Vec::new();
        for src in 0..terminals {
            for dst in (0..terminals).filter(|&d| d != src) {
                let (gs, gd) = (
                    g.group(g.terminal[src as usize].0),
                    g.group(g.terminal[dst as usize].0),
                );
                let mut choices = vec![(NONE, 0)];
                if gs != gd && (P::READS != Reads::Nothing || P::ALWAYS_VALIANT) {
                    choices = (0..g.groups)
                        .filter(|&v| v != gs && v != gd)
                        .flat_map(|v| [(v, VALIANT), (v, 0)])
                        .filter(|&(_, how)| how == VALIANT || !P::ALWAYS_VALIANT)
                        .collect();
                }
                for (via, valiant) in choices {
                    for reroute in [0, 1] {
                        headers.push(Header {
                            src,
                            dst,
                            origin: src,
                            target: dst,
                            flits: 1,
                            aux: via,
                            state: valiant,
                            phase: reroute,
                            ..Header::default()
                        });
                    }
                }
            }
        }
        // Marked walks find their gateway's minimal global port full.
        let view = |x: u32, hdr: &Header| {
            let mut v = FixedView::empty(64);
            let gd = g.group(g.terminal[hdr.target as usize].0);
            if hdr.phase == 1 && !g.is_leaf(x) && g.group(x) != gd {
                let p = g.gateway(g.group(x), gd).port;
                v.occ[usize::from(p.0) - 1] = v.capacity;
            }
            v
        };
        let mut check = |step: &crate::routing::adaptive::Step| {
            if net.is_switch(step.next) {
                assert_eq!(u32::from(step.taken.vc), step.hdr.state & GLOBALS);
            }
        };
        crate::routing::adaptive::walk_every_branch(
            &net,
            &r,
            P::CLASSES,
            headers,
            &view,
            &mut check,
        )
    }

    #[test]
    fn every_route_of_every_router_has_an_acyclic_channel_dependency_graph() {
        // a = 3, h = 2: 7 groups. Longest routes: MIN 3 hops, the others 6
        // (up, global, down, up, global, down).
        for t in [
            "megafly:a=3,p=1,h=2",
            "megafly:a=2,p=1,h=3,arrangement=circulant",
        ] {
            assert_eq!(walk_every_route::<Min>(t), (3, false), "{t}");
            assert_eq!(walk_every_route::<Val>(t), (6, false), "{t}");
            assert_eq!(walk_every_route::<UgalL>(t), (6, false), "{t}");
            assert_eq!(walk_every_route::<UgalG>(t), (6, false), "{t}");
            assert_eq!(walk_every_route::<Par>(t), (6, false), "{t}");
        }
    }

    #[test]
    fn one_class_for_every_hop_makes_a_cycle() {
        // The check can fail: Valiant's routes with every hop on one VC
        // (down then up in the intermediate group, then down at the
        // destination) close cycles through the spines.
        let net = spec::build("megafly:a=2,p=1,h=2").unwrap();
        let r = MegaflyRouter::<Val>::new(&net, &RouterOptions::default()).unwrap();
        let mut edges = vec![Vec::new(); net.channel_count()];
        let g = &r.geo;
        let terminals = net.terminals().len() as u32;
        for src in 0..terminals {
            for dst in (0..terminals).filter(|&d| d != src) {
                let (gs, gd) = (
                    g.group(g.terminal[src as usize].0),
                    g.group(g.terminal[dst as usize].0),
                );
                for via in (0..g.groups).filter(|&v| v != gs && v != gd) {
                    let mut hdr = Header {
                        origin: src,
                        target: dst,
                        aux: via,
                        state: VALIANT,
                        ..Header::default()
                    };
                    let mut at = net.attached_switch(net.terminal(src as usize)).unwrap();
                    let mut prev: Option<usize> = None;
                    let mut rng = crate::rng::stream(1, "t");
                    let mut counters = vec![0; 2];
                    while net.is_switch(at) {
                        let x = net.kind_index(at) as u32;
                        let here = Here {
                            switch: at,
                            switch_index: x,
                            in_port: PortId(1),
                            in_vc: 0,
                            vcs: 3,
                            now_ps: 0,
                        };
                        let mut out = Candidates::default();
                        let mut ctx = RouterCtx::new(&mut rng, &mut counters);
                        r.route(&hdr, &here, &FixedView::empty(64), &mut ctx, &mut out);
                        let c = out.as_slice()[0];
                        let ch = net.channel_at(at, c.port).unwrap();
                        if let Some(p) = prev {
                            edges[p].push(ch.index());
                        }
                        prev = Some(ch.index());
                        r.forwarded(&mut hdr, &here, c, ch, &mut ctx);
                        at = net.channel(ch).dst;
                    }
                }
            }
        }
        assert!(crate::routing::adaptive::has_cycle(&edges));
    }

    #[test]
    fn hop_counts_agree_with_the_cabling() {
        let net = spec::build("megafly:a=3,p=1,h=2").unwrap();
        let r = MegaflyRouter::<Val>::new(&net, &RouterOptions::default()).unwrap();
        let g = &r.geo;
        let dist = |s: u32, d: u32| {
            let d0 = crate::network::metrics::bfs_distances(&net, net.switches()[s as usize]);
            d0[net.switches()[d as usize].index()]
        };
        for s in (0..42).filter(|&x| g.is_leaf(x)) {
            for d in (0..42).filter(|&x| g.is_leaf(x)) {
                assert_eq!(g.min_hops(s, d), dist(s, d), "{s} -> {d}");
                for via in (0..7).filter(|&v| v != g.group(s) && v != g.group(d)) {
                    let h = g.valiant_hops(s, via, d);
                    assert!(h == 4 || h == 6, "{h}");
                }
            }
        }
    }

    #[test]
    fn par_leaves_a_full_global_port_for_another_of_its_spine() {
        let net = spec::build("megafly:a=2,p=1,h=3").unwrap();
        let r = MegaflyRouter::<Par>::new(&net, &RouterOptions::default()).unwrap();
        let g = &r.geo;
        // Terminal 0 (group 0) to the last terminal (group 6), minimal.
        let dst = net.terminals().len() as u32 - 1;
        let gd = g.group(g.terminal[dst as usize].0);
        let gw = g.gateway(0, gd);
        let x = g.spine(0, gw.spine);
        let mut hdr = Header {
            origin: 0,
            target: dst,
            aux: 3,
            ..Header::default()
        };
        let here = Here {
            switch: net.switches()[x as usize],
            switch_index: x,
            in_port: PortId(1),
            in_vc: 0,
            vcs: 3,
            now_ps: 0,
        };
        let mut rng = crate::rng::stream(1, "t");
        let mut counters = vec![0; 3];
        let mut ctx = RouterCtx::new(&mut rng, &mut counters);
        let mut out = Candidates::default();
        r.route(&hdr, &here, &FixedView::empty(64), &mut ctx, &mut out);
        assert_eq!(out.as_slice()[0].port, gw.port);
        let mut full = FixedView::empty(64);
        full.occ[usize::from(gw.port.0) - 1] = full.capacity;
        out.clear();
        r.route(&hdr, &here, &full, &mut ctx, &mut out);
        let c = out.as_slice()[0];
        assert_ne!(c.port, gw.port);
        let ch = net.channel_at(here.switch, c.port).unwrap();
        r.forwarded(&mut hdr, &here, c, ch, &mut ctx);
        let via = g.group(net.kind_index(net.channel(ch).dst) as u32);
        assert!(via != gd && via != 0);
        assert_eq!((hdr.aux, hdr.state), (via, VALIANT | REACHED | 1));
        assert_eq!(counters[2], 1);
    }

    #[test]
    fn another_network_is_refused_by_name() {
        let net = spec::build("dragonfly:a=4,p=1,h=2").unwrap();
        let e = MegaflyRouter::<Min>::new(&net, &RouterOptions::default())
            .err()
            .unwrap()
            .to_string();
        assert!(e.contains("mf-min") && e.contains("Megafly"), "{e}");
        let two = spec::build("megafly:a=1,p=1,h=1").unwrap();
        assert!(MegaflyRouter::<UgalL>::new(&two, &RouterOptions::default()).is_err());
        assert!(MegaflyRouter::<Min>::new(&two, &RouterOptions::default()).is_ok());
    }
}
