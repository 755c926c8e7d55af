//! Dragonfly routers (Kim, Dally, Scott & Abts 2008; Jiang, Kim & Dally
//! 2009): MIN, VAL, UGAL-L, UGAL-G and PAR, computed from the cabling
//! (no tables).
//!
//! - `df-min`: minimal. In the source group a local hop to the router
//!   holding the global link to the destination group (none if the source
//!   router holds it), that global link, then a local hop to the
//!   destination router. Minimal in global hops, as the dragonfly
//!   literature counts it: a path through a third group can take fewer
//!   switch hops (global, global) than local, global, local.
//! - `df-val`: Valiant. Minimal to a uniformly random intermediate group
//!   (neither the source's nor the destination's), then minimal to the
//!   destination: two global hops, up to five hops.
//! - `df-ugal-l`: at the source router, minimal or Valiant (through a
//!   random intermediate group) by UGAL's rule: the Valiant path when
//!   `q_min * H_min > q_val * H_val + threshold`, `q` the flits queued on
//!   the path's first output port at the source router (all its VCs), `H`
//!   the path's switch-to-switch hops.
//! - `df-ugal-g`: the same rule with `q` the source router's first output
//!   port plus the queue of the path's first global channel, read at its
//!   gateway wherever that is: the flits in the channel's downstream
//!   buffers and the packets waiting at the gateway for one of its VCs (in
//!   an input-queued switch the queue in front of an output is those
//!   heads). That is the global queue information of the paper's UGAL-G.
//!   It reads channels beyond its switch, so a simulation split over
//!   threads refuses it.
//! - `df-par`: progressive adaptive routing. UGAL-L at the source router;
//!   a packet sent minimally is judged again, by the same rule, at the
//!   router of its source group that holds the global link (the gateway),
//!   and may leave there for the intermediate group instead.
//!
//! Traffic within a group goes minimally (one local hop) under every
//! router. The intermediate group of a packet is drawn once, at its
//! source.
//!
//! **Deadlock freedom: VCs by hop class.** Every hop belongs to a class,
//! and along any route the classes strictly increase in the order
//! `L0 < L0' < G0 < L1 < G1 < L2` (local hops in the source group, the
//! second one only under PAR; the first global hop; a local hop in the
//! intermediate group; the second global hop; a local hop in the
//! destination group). Global hop `i` (counted from 0) takes global class
//! `i`; a local hop before any global hop takes class 0 (PAR's second,
//! class 1); a local hop after `i` global hops takes class `i` (`i + 1`
//! under PAR). Each class has its own VCs on its channels, so every channel
//! dependency goes from a lower class to a higher one: the channel
//! dependency graph is acyclic. Classes needed (VCs per port): MIN 2,
//! VAL and UGAL 3, PAR 4. With more VCs than that, class `c` uses VCs
//! `c, c + n, c + 2n, ...` (`n` the classes needed), all offered.
//!
//! Options (UGAL-L, UGAL-G and PAR): `threshold`, flits added to the
//! Valiant side (default 0); `hops = "switch" | "global"`, what `H` counts
//! in the rule: switch-to-switch hops (the default) or global hops (MIN 1,
//! Valiant 2, as BookSim2's dragonfly UGAL weighs them). Counters: `minimal` and `nonminimal` (the
//! decision at the source, per packet), `par_reroutes` (PAR: packets that
//! left their source group's gateway for the intermediate group).
//!
//! Needs a network whose structure is a dragonfly with the generator's
//! numbering (router `r` of group `g` is switch `g * a + r`), as
//! `dragonfly:a=..,p=..,h=..` builds it or as a dump of one is recognised:
//! every group fully connected and a global link between every two
//! groups.

use super::{
    AnyRouter, BuildRouter, Candidate, Candidates, Direct, Header, Here, HopRouter, LocalView,
    RouterCtx, RouterOptions,
};
use crate::network::{ChannelId, Network, PortId, Structure};
use crate::routing::RoutingError;
use rand::Rng as _;
use std::marker::PhantomData;

/// One dragonfly router: how it picks between the minimal and the
/// Valiant path.
pub trait Policy: Send + Sync + 'static {
    const NAME: &'static str;
    /// VCs per port (hop classes) needed.
    const CLASSES: u8;
    /// Whether local hops after the first global one shift up a class
    /// (PAR's second source-group hop takes class 1).
    const PAR: bool = false;
    /// What the decision at the source reads.
    const READS: Reads;
    /// Whether a packet between groups always goes through an
    /// intermediate group (VAL) rather than minimally (MIN).
    const ALWAYS_VALIANT: bool = false;
    /// The router as the registry's variant.
    fn wrap(r: DragonflyRouter<Self>) -> AnyRouter
    where
        Self: Sized;
}

/// What a policy's decision reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reads {
    /// Nothing: MIN and VAL.
    Nothing,
    /// The source router's output queues: UGAL-L and PAR.
    Local,
    /// The global channels' queues anywhere: UGAL-G.
    Global,
}

impl Reads {
    /// The `threshold` option of a router whose decision reads queues
    /// (flits added to the Valiant side of UGAL's rule, default 0); a
    /// router that reads nothing takes no option.
    pub(crate) fn threshold(self, opts: &RouterOptions) -> Result<f64, RoutingError> {
        if self == Reads::Nothing {
            opts.only(&[])?;
            return Ok(0.0);
        }
        opts.only(&["threshold"])?;
        opts.f64("threshold", 0.0)
    }
}

/// UGAL's rule: the Valiant path when `q_min * H_min > q_val * H_val +
/// threshold`, `H` counting a path's switch-to-switch hops (the default) or
/// its global hops (MIN 1, Valiant 2, BookSim2's dragonfly UGAL), from the
/// options `threshold` and `hops = "switch" | "global"`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct UgalRule {
    threshold: f64,
    global_hops: bool,
}

impl UgalRule {
    /// The rule of a router reading `reads`; a router that reads nothing
    /// takes no option.
    pub(crate) fn from_options(reads: Reads, opts: &RouterOptions) -> Result<Self, RoutingError> {
        if reads == Reads::Nothing {
            opts.only(&[])?;
        } else {
            opts.only(&["threshold", "hops"])?;
        }
        let hops = opts.choice("hops", &["switch", "global"])?;
        Ok(UgalRule {
            threshold: opts.f64("threshold", 0.0)?,
            global_hops: hops == "global",
        })
    }

    /// Whether an empty minimal queue settles the rule for the minimal
    /// path whatever the other side holds (a threshold of at least 0):
    /// the rest of it need not be read.
    #[inline]
    pub(crate) fn minimal_when_idle(&self, q_min: f64) -> bool {
        q_min == 0.0 && self.threshold >= 0.0
    }

    /// Whether the Valiant path is the better: queues `q` and
    /// switch-to-switch hops `h` of the two paths, `globals` the global
    /// hops each takes.
    #[inline]
    pub(crate) fn valiant(
        &self,
        q_min: f64,
        h_min: f64,
        q_val: f64,
        h_val: f64,
        globals: (f64, f64),
    ) -> bool {
        let (w_min, w_val) = if self.global_hops {
            globals
        } else {
            (h_min, h_val)
        };
        q_min * w_min > q_val * w_val + self.threshold
    }
}

/// A uniformly random index in `0..n` other than `a` and `b` (`a != b`,
/// `n >= 3`): the intermediate of a Valiant route.
pub(crate) fn draw_other(rng: &mut crate::rng::Rng, n: u32, a: u32, b: u32) -> u32 {
    let (lo, hi) = (a.min(b), a.max(b));
    let mut i = rng.gen_range(0..n - 2);
    if i >= lo {
        i += 1;
    }
    if i >= hi {
        i += 1;
    }
    i
}

pub struct Min;
pub struct Val;
pub struct UgalL;
pub struct UgalG;
pub struct Par;

impl Policy for Min {
    fn wrap(r: DragonflyRouter<Self>) -> AnyRouter {
        AnyRouter::DfMin(r)
    }
    const NAME: &'static str = "df-min";
    const CLASSES: u8 = 2;
    const READS: Reads = Reads::Nothing;
}
impl Policy for Val {
    fn wrap(r: DragonflyRouter<Self>) -> AnyRouter {
        AnyRouter::DfVal(r)
    }
    const NAME: &'static str = "df-val";
    const CLASSES: u8 = 3;
    const READS: Reads = Reads::Nothing;
    const ALWAYS_VALIANT: bool = true;
}
impl Policy for UgalL {
    fn wrap(r: DragonflyRouter<Self>) -> AnyRouter {
        AnyRouter::DfUgalL(r)
    }
    const NAME: &'static str = "df-ugal-l";
    const CLASSES: u8 = 3;
    const READS: Reads = Reads::Local;
}
impl Policy for UgalG {
    fn wrap(r: DragonflyRouter<Self>) -> AnyRouter {
        AnyRouter::DfUgalG(r)
    }
    const NAME: &'static str = "df-ugal-g";
    const CLASSES: u8 = 3;
    const READS: Reads = Reads::Global;
}
impl Policy for Par {
    fn wrap(r: DragonflyRouter<Self>) -> AnyRouter {
        AnyRouter::DfPar(r)
    }
    const NAME: &'static str = "df-par";
    const CLASSES: u8 = 4;
    const PAR: bool = true;
    const READS: Reads = Reads::Local;
}

/// The global link a group uses towards another.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Gateway {
    /// The router of the group (index in the group) holding the link.
    router: u32,
    /// Its port.
    port: PortId,
    /// The channel.
    channel: ChannelId,
    /// The router of the other group (index in its group) it arrives at.
    arrives: u32,
}

/// A dragonfly's groups, read off its cabling.
#[derive(Debug, Clone)]
pub struct DragonflyGeometry {
    /// Routers per group.
    pub a: u32,
    pub groups: u32,
    /// The switch index and ejection port of each terminal.
    terminal: Vec<(u32, PortId)>,
    /// `local[s * a + r]`: the port from switch `s` to router `r` of its group.
    local: Vec<PortId>,
    /// `gateway[g * groups + t]`: group `g`'s global link to group `t`.
    gateway: Vec<Gateway>,
}

const NONE: u32 = u32::MAX;

impl DragonflyGeometry {
    /// The groups of `net`, a dragonfly in the generator's numbering;
    /// `router` names the router in errors.
    pub fn new(net: &Network, router: &'static str) -> Result<Self, RoutingError> {
        let unfit = |found: String| RoutingError::Unfit {
            engine: router,
            needs: "a dragonfly (fully connected groups, a global link between every two)".into(),
            network: net.name().to_string(),
            found,
        };
        let &Structure::Dragonfly { a, groups, .. } = net.structure() else {
            return Err(unfit(net.structure().family_with_article()));
        };
        let switches = net.switches().len();
        if u64::from(a) * u64::from(groups) != switches as u64 {
            return Err(unfit(format!(
                "{switches} switches, not {groups} groups of {a}"
            )));
        }
        let (a_us, g_us) = (a as usize, groups as usize);
        let mut local = vec![PortId(0); switches * a_us];
        let unset = Gateway {
            router: NONE,
            port: PortId(0),
            channel: ChannelId(NONE),
            arrives: NONE,
        };
        let mut gateway = vec![unset; g_us * g_us];
        for (s, &node) in net.switches().iter().enumerate() {
            let g = s / a_us;
            for &c in net.out_channels(node) {
                let ch = net.channel(c);
                if !net.is_switch(ch.dst) {
                    continue;
                }
                let j = net.kind_index(ch.dst);
                if j / a_us == g {
                    local[s * a_us + j % a_us] = ch.src_port;
                } else {
                    let gw = &mut gateway[g * g_us + j / a_us];
                    if gw.router == NONE {
                        *gw = Gateway {
                            router: (s % a_us) as u32,
                            port: ch.src_port,
                            channel: c,
                            arrives: (j % a_us) as u32,
                        };
                    }
                }
            }
            for r in (0..a_us).filter(|&r| r != s % a_us) {
                if local[s * a_us + r].0 == 0 {
                    return Err(unfit(format!(
                        "switch {} without a link to router {r} of its group",
                        net.label(node)
                    )));
                }
            }
        }
        for g in 0..g_us {
            for t in (0..g_us).filter(|&t| t != g) {
                if gateway[g * g_us + t].router == NONE {
                    return Err(unfit(format!("no global link from group {g} to group {t}")));
                }
            }
        }
        let terminal = super::terminal_attachments(net).map_err(unfit)?;
        Ok(DragonflyGeometry {
            a,
            groups,
            terminal,
            local,
            gateway,
        })
    }

    /// The group of switch `s`.
    #[inline]
    pub fn group(&self, s: u32) -> u32 {
        s / self.a
    }

    /// The switch of terminal `t`.
    #[inline]
    pub fn switch_of(&self, t: u32) -> u32 {
        self.terminal[t as usize].0
    }

    #[inline]
    fn gateway(&self, g: u32, t: u32) -> Gateway {
        self.gateway[(g * self.groups + t) as usize]
    }

    #[inline]
    fn local_port(&self, s: u32, router: u32) -> PortId {
        self.local[(s * self.a + router) as usize]
    }

    /// The next hop from switch `s` towards group `goal` (another group):
    /// the port, and whether it is the global link.
    #[inline]
    fn towards_group(&self, s: u32, goal: u32) -> (PortId, bool) {
        let gw = self.gateway(self.group(s), goal);
        if s % self.a == gw.router {
            (gw.port, true)
        } else {
            (self.local_port(s, gw.router), false)
        }
    }

    /// Switch-to-switch hops of the minimal path from switch `s` to switch `d`.
    pub fn min_hops(&self, s: u32, d: u32) -> u32 {
        let (gs, gd) = (self.group(s), self.group(d));
        if s == d {
            0
        } else if gs == gd {
            1
        } else {
            let gw = self.gateway(gs, gd);
            u32::from(s % self.a != gw.router) + 1 + u32::from(d % self.a != gw.arrives)
        }
    }

    /// Hops from switch `s` to switch `d` through group `via`.
    pub fn valiant_hops(&self, s: u32, via: u32, d: u32) -> u32 {
        let (gs, gd) = (self.group(s), self.group(d));
        let first = self.gateway(gs, via);
        let second = self.gateway(via, gd);
        u32::from(s % self.a != first.router)
            + 1
            + u32::from(first.arrives != second.router)
            + 1
            + u32::from(d % self.a != second.arrives)
    }
}

// `Header::state` bits.
/// Global hops taken (0..=2).
const GLOBALS: u32 = 0b11;
/// Local hops taken in the source group, before any global hop (0..=2).
const SOURCE_LOCALS_SHIFT: u32 = 2;
const SOURCE_LOCALS: u32 = 0b11 << SOURCE_LOCALS_SHIFT;
/// Through an intermediate group (`Header::aux` = that group).
const VALIANT: u32 = 1 << 4;
/// The intermediate group was reached: on to the destination.
const REACHED: u32 = 1 << 5;

/// A dragonfly router of policy `P`. See the module docs.
pub struct DragonflyRouter<P: Policy> {
    geo: DragonflyGeometry,
    rule: UgalRule,
    policy: PhantomData<P>,
}

impl<P: Policy> DragonflyRouter<P> {
    pub fn new(net: &Network, opts: &RouterOptions) -> Result<Self, RoutingError> {
        let rule = UgalRule::from_options(P::READS, opts)?;
        let geo = DragonflyGeometry::new(net, P::NAME)?;
        let through_a_third = P::ALWAYS_VALIANT || P::READS != Reads::Nothing;
        if through_a_third && geo.groups < 3 {
            return Err(RoutingError::Unfit {
                engine: P::NAME,
                needs: "at least 3 groups (a third one to route through)".into(),
                network: net.name().to_string(),
                found: format!("{} groups", geo.groups),
            });
        }
        Ok(DragonflyRouter {
            geo,
            rule,
            policy: PhantomData,
        })
    }

    pub fn geometry(&self) -> &DragonflyGeometry {
        &self.geo
    }

    /// The group a packet heads for now.
    #[inline]
    fn goal_group(&self, hdr: &Header, dst_switch: u32) -> u32 {
        if hdr.state & VALIANT != 0 && hdr.state & REACHED == 0 {
            hdr.aux
        } else {
            self.geo.group(dst_switch)
        }
    }

    /// The hop class of the next hop (see the module docs).
    #[inline]
    fn class(&self, state: u32, global: bool) -> u8 {
        let globals = (state & GLOBALS) as u8;
        if global {
            globals
        } else if globals == 0 {
            ((state & SOURCE_LOCALS) >> SOURCE_LOCALS_SHIFT) as u8
        } else {
            globals + u8::from(P::PAR)
        }
    }

    /// Pushes every VC of `class` on `port` (`lanes` apart).
    #[inline]
    fn push_class(port: PortId, class: u8, vcs: u8, out: &mut Candidates) {
        let mut v = class;
        while v < vcs {
            out.push(port, v);
            v += P::CLASSES;
        }
    }

    /// The queue of the path from switch `s` towards group `goal`: the
    /// flits on its first port at this router and, under UGAL-G, the queue
    /// of its global channel at its gateway (the flits in the channel's
    /// downstream buffers, counted once when this router is the gateway,
    /// and the packets, of `flits` each, waiting there for one of its VCs).
    fn queue(&self, view: &dyn LocalView, s: u32, goal: u32, flits: u16) -> f64 {
        let (port, global) = self.geo.towards_group(s, goal);
        let mut q = view.port_occupancy(port);
        if P::READS == Reads::Global {
            let c = self.geo.gateway(self.geo.group(s), goal).channel;
            if !global {
                q += view.channel_occupancy(c).unwrap_or(0);
            }
            q += view.channel_waiting(c).unwrap_or(0) * u32::from(flits);
        }
        f64::from(q)
    }

    /// UGAL's rule at switch `s` for a packet to switch `d`: whether the
    /// path through group `via` is the better one.
    fn valiant_is_better(
        &self,
        view: &dyn LocalView,
        hdr: &Header,
        s: u32,
        via: u32,
        d: u32,
    ) -> bool {
        let q_min = self.queue(view, s, self.geo.group(d), hdr.flits);
        if self.rule.minimal_when_idle(q_min) {
            return false;
        }
        let q_val = self.queue(view, s, via, hdr.flits);
        let h_min = f64::from(self.geo.min_hops(s, d));
        let h_val = f64::from(self.geo.valiant_hops(s, via, d));
        self.rule.valiant(q_min, h_min, q_val, h_val, (1.0, 2.0))
    }

    /// PAR: whether a packet sent minimally reached the gateway of its
    /// source group after a local hop, where it is judged again (a source
    /// router that is its own gateway judged it already).
    #[inline]
    fn could_reroute(&self, hdr: &Header, s: u32, d: u32) -> bool {
        P::PAR
            && hdr.state & (VALIANT | GLOBALS) == 0
            && hdr.state & SOURCE_LOCALS != 0
            && hdr.aux != NONE
            && self.geo.group(s) != self.geo.group(d)
            && self.geo.towards_group(s, self.geo.group(d)).1
    }

    /// The next hop at switch `s` of a packet to switch `d` (ejected
    /// there on `eject`) heading for group `goal`: the port, the first VC
    /// of its hop class and the classes as lanes, and the header's state
    /// once forwarded.
    #[inline]
    fn decide(&self, hdr: &Header, s: u32, d: u32, eject: PortId, goal: u32) -> Direct {
        if s == d {
            return Direct {
                port: eject,
                lane: 0,
                lanes: 1,
                state: hdr.state,
            };
        }
        let (port, global) = if self.geo.group(s) == goal {
            (self.geo.local_port(s, d % self.geo.a), false)
        } else {
            self.geo.towards_group(s, goal)
        };
        let mut state = hdr.state;
        if global {
            state += 1;
            if state & VALIANT != 0 && goal == hdr.aux {
                state |= REACHED;
            }
        } else if state & GLOBALS == 0 {
            let locals = ((state & SOURCE_LOCALS) >> SOURCE_LOCALS_SHIFT) + 1;
            state = state & !SOURCE_LOCALS | locals.min(3) << SOURCE_LOCALS_SHIFT;
        }
        Direct {
            port,
            lane: self.class(hdr.state, global),
            lanes: P::CLASSES,
            state,
        }
    }
}

impl<P: Policy> BuildRouter for DragonflyRouter<P> {
    fn build(net: &Network, opts: &RouterOptions) -> Result<AnyRouter, RoutingError> {
        Ok(P::wrap(DragonflyRouter::<P>::new(net, opts)?))
    }
}

impl<P: Policy> HopRouter for DragonflyRouter<P> {
    fn name(&self) -> &str {
        P::NAME
    }

    fn vcs_needed(&self) -> u8 {
        P::CLASSES
    }

    fn reads_view(&self) -> bool {
        P::READS != Reads::Nothing
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
        let s = self.geo.switch_of(hdr.origin);
        let d = self.geo.switch_of(hdr.target);
        let (gs, gd) = (self.geo.group(s), self.geo.group(d));
        let minimal_only = P::READS == Reads::Nothing && !P::ALWAYS_VALIANT;
        if gs == gd || minimal_only {
            ctx.count(0);
            return;
        }
        let via = draw_other(ctx.rng, self.geo.groups, gs, gd);
        hdr.aux = via;
        let valiant = P::ALWAYS_VALIANT || {
            P::READS != Reads::Nothing && self.valiant_is_better(view, hdr, s, via, d)
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
        let s = here.switch_index;
        let (d, eject) = self.geo.terminal[hdr.target as usize];
        if s == d {
            for v in 0..here.vcs {
                out.push(eject, v);
            }
            return;
        }
        let goal =
            if self.could_reroute(hdr, s, d) && self.valiant_is_better(view, hdr, s, hdr.aux, d) {
                hdr.aux
            } else {
                self.goal_group(hdr, d)
            };
        let hop = self.decide(hdr, s, d, eject, goal);
        Self::push_class(hop.port, hop.lane, here.vcs, out);
    }

    #[inline]
    fn direct(&self, hdr: &Header, switch_index: u32) -> Option<Direct> {
        let (d, eject) = self.geo.terminal[hdr.target as usize];
        if self.could_reroute(hdr, switch_index, d) {
            return None;
        }
        Some(self.decide(hdr, switch_index, d, eject, self.goal_group(hdr, d)))
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
        let s = here.switch_index;
        let (d, eject) = self.geo.terminal[hdr.target as usize];
        let mut goal = self.goal_group(hdr, d);
        if self.could_reroute(hdr, s, d) && chosen.port != self.decide(hdr, s, d, eject, goal).port
        {
            // PAR's gateway sent it towards the intermediate group.
            hdr.state |= VALIANT;
            goal = hdr.aux;
            ctx.count(2);
        }
        hdr.state = self.decide(hdr, s, d, eject, goal).state;
    }
}

#[cfg(test)]
mod tests {
    use super::super::torus_geometry::test_view::FixedView;
    use super::*;
    use crate::network::spec;

    #[test]
    fn groups_and_gateways_are_read_off_the_cabling() {
        // a = 4, h = 2: 9 groups of 4 routers, each pair of groups joined once.
        let net = spec::build("dragonfly:a=4,p=2,h=2").unwrap();
        let g = DragonflyGeometry::new(&net, "df-min").unwrap();
        assert_eq!((g.a, g.groups), (4, 9));
        assert_eq!(g.switch_of(0), 0);
        assert_eq!(g.switch_of(2 * 4 * 9 - 1), 35);
        for s in 0..36 {
            for d in 0..36 {
                let h = g.min_hops(s, d);
                assert!(h <= 3, "{s} -> {d}: {h}");
                assert_eq!(h == 0, s == d);
                if g.group(s) == g.group(d) && s != d {
                    assert_eq!(h, 1);
                }
                for via in (0..9).filter(|&v| v != g.group(s) && v != g.group(d)) {
                    let v = g.valiant_hops(s, via, d);
                    // Two global hops can be fewer than local-global-local.
                    assert!((2..=5).contains(&v), "{s} via {via} -> {d}: {v}");
                }
            }
        }
        // Every gateway's channel leaves its router in group a and reaches
        // the router it names in group b.
        for a in 0..9u32 {
            for b in (0..9).filter(|&b| b != a) {
                let gw = g.gateway(a, b);
                let ch = net.channel(gw.channel);
                assert_eq!(net.kind_index(ch.src) as u32, a * 4 + gw.router);
                assert_eq!(net.kind_index(ch.dst) as u32, b * 4 + gw.arrives);
                assert_eq!(ch.src_port, gw.port);
            }
        }
    }

    /// A view in which one port of the switch is full (all others empty).
    fn one_port_busy(port: Option<PortId>) -> FixedView {
        let mut view = FixedView {
            vcs: 4,
            capacity: 32,
            occ: vec![0; 64],
        };
        if let Some(p) = port {
            view.occ[usize::from(p.0) - 1] = 32;
        }
        view
    }

    /// Walks every route policy `P` can give (each pair of terminals, each
    /// intermediate group, minimal or not, and under PAR rerouted at the
    /// gateway or not): the longest route, whether the dependencies form a
    /// cycle, and the hops left to `route`.
    fn walk_every_route<P: Policy>(topology: &str) -> (usize, bool, usize) {
        let net = spec::build(topology).unwrap();
        let r = DragonflyRouter::<P>::new(&net, &RouterOptions::default()).unwrap();
        let g = &r.geo;
        let terminals = net.terminals().len() as u32;
        let mut headers = Vec::new();
        for src in 0..terminals {
            for dst in (0..terminals).filter(|&d| d != src) {
                let (gs, gd) = (g.group(g.switch_of(src)), g.group(g.switch_of(dst)));
                let mut choices = vec![(NONE, 0)];
                // What `source` can decide: within a group minimal; else
                // Valiant through any third group, or (adaptive) minimal.
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
                            // Marks the walks whose gateway sees its minimal port full.
                            phase: reroute,
                            ..Header::default()
                        });
                    }
                }
            }
        }
        let view = |s: u32, hdr: &Header| {
            let gd = g.group(g.switch_of(hdr.target));
            let min_port = (g.group(s) != gd).then(|| g.towards_group(s, gd).0);
            one_port_busy(if hdr.phase == 1 { min_port } else { None })
        };
        let w = crate::routing::adaptive::walk_routes(&net, &r, P::CLASSES, headers, &view);
        (w.longest, w.cycle, w.undecided)
    }

    #[test]
    fn every_route_of_every_router_has_an_acyclic_channel_dependency_graph() {
        // a = 4, p = 1, h = 2: 9 groups, every route of each router walked
        // hop by hop; the hop classes make the dependencies acyclic, with
        // the VCs each router says it needs. Longest routes: MIN 3 hops,
        // VAL and UGAL 5, PAR 6.
        // Only PAR's second decision, at the gateway, asks for candidates.
        let t = "dragonfly:a=4,p=1,h=2";
        assert_eq!(walk_every_route::<Min>(t), (3, false, 0));
        assert_eq!(walk_every_route::<Val>(t), (5, false, 0));
        assert_eq!(walk_every_route::<UgalL>(t), (5, false, 0));
        assert_eq!(walk_every_route::<UgalG>(t), (5, false, 0));
        let (longest, cycle, undecided) = walk_every_route::<Par>(t);
        assert_eq!((longest, cycle), (6, false));
        assert!(undecided > 0);
        // The routers read the gateways off the cabling: the other global
        // link arrangements route the same way.
        for arr in ["relative", "circulant"] {
            let t = format!("dragonfly:a=4,p=1,h=2,arrangement={arr}");
            assert_eq!(walk_every_route::<Min>(&t), (3, false, 0));
            assert_eq!(walk_every_route::<UgalL>(&t), (5, false, 0));
            assert_eq!(walk_every_route::<Par>(&t).0, 6);
            assert!(!walk_every_route::<Par>(&t).1);
        }
    }

    #[test]
    fn one_class_too_few_makes_a_cycle() {
        // The check can fail: all local hops on one VC (the hop classes
        // folded) give the cyclic dependencies of a group's clique.
        let mut edges = vec![Vec::new(); 3];
        edges[0].push(1);
        edges[1].push(2);
        edges[2].push(0);
        assert!(crate::routing::adaptive::has_cycle(&edges));
        edges[2].clear();
        assert!(!crate::routing::adaptive::has_cycle(&edges));
    }

    #[test]
    fn a_network_that_is_not_a_dragonfly_is_refused_by_name() {
        let net = spec::build("torus:4x4").unwrap();
        let e = DragonflyRouter::<Min>::new(&net, &RouterOptions::default())
            .err()
            .unwrap()
            .to_string();
        assert!(e.contains("df-min") && e.contains("dragonfly"), "{e}");
        // Two groups: no intermediate group for Valiant; MIN routes them.
        let net = spec::build("dragonfly:a=1,p=2,h=1").unwrap();
        let e = DragonflyRouter::<Val>::new(&net, &RouterOptions::default())
            .err()
            .unwrap()
            .to_string();
        assert!(e.contains("at least 3 groups"), "{e}");
        assert!(DragonflyRouter::<Min>::new(&net, &RouterOptions::default()).is_ok());
        let mut o = RouterOptions::default();
        o.params.insert("threshold".into(), "4".into());
        let net = spec::build("dragonfly:a=2,p=1,h=1").unwrap();
        assert!(DragonflyRouter::<UgalL>::new(&net, &o).is_ok());
        let e = DragonflyRouter::<Min>::new(&net, &o)
            .err()
            .unwrap()
            .to_string();
        assert!(e.contains("threshold"), "{e}");
    }
}
