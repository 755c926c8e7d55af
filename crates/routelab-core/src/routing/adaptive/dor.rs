//! Dimension-order routing computed hop by hop on tori and meshes.
//!
//! The same routes and lanes as the `dor` engine ([`crate::routing::dor`])
//! wrapped in a [`super::TableRouter`], without its tables (which take 2 bytes per
//! switch and terminal, 2 GB at 32,768 terminals): a switch corrects the
//! lowest dimension in which it differs from the target's switch, the
//! shorter way round a ring (`+` on a tie at distance k/2), towards the
//! target on a mesh. With datelines (the default on a torus) a packet
//! travels each dimension on lane 0 and on lane 1 after crossing that
//! ring's wraparound link, starts the next dimension on lane 0, and keeps
//! the lane of its last dimension on the ejection channel; lanes map onto
//! VCs as in [`super::TableRouter`] (lane `l` may use every VC `v` with
//! `v mod lanes == l`).
//!
//! Options (`[routing.options]`), for the variants other simulators build:
//! - `ties = "plus"` (default) or `"random"`: at distance k/2 either way
//!   round a ring is minimal; `random` draws the direction once per packet
//!   at its source, as BookSim2's `dim_order_torus` does. Always `+` puts
//!   (k + 2)/k of the mean load on the `+` channels (1.25 at k = 8).
//! - `classes = "after-dateline"` (default) or `"wrapping"`: with
//!   `wrapping` a packet whose way along a ring crosses the wraparound link
//!   takes lane 1 for that whole dimension, from its first hop in it, and
//!   every other packet lane 0 (BookSim2's `dim_order_torus`). Deadlock-free
//!   too: lane 0 never takes a wraparound link, and a minimal route crosses
//!   at most k/2 hops, so on lane 1 no route runs on from channel
//!   `k/2 - 1 -> k/2` (the `+` direction; the `-` one mirrors it).
//! - `injection = "lane"` (default) or `"any"`: with `any` a terminal
//!   injects on any VC of its link, whatever the packet's lane, as
//!   BookSim2's `dim_order_torus` allows (the whole VC range at
//!   injection). Deadlock-free too: no channel waits on an injection
//!   channel, and the packet takes its lane from its first switch on.
//!
//! Networks that are not generated tori or meshes (hypercubes, fabrics
//! with other terminal placements) get the engine's tables instead (the
//! registry then builds a [`super::TableRouter`]).

use super::table::{dateline_lane, push_lane, CROSSED, NO_RING};
use super::{
    check_torus_terminals, AnyRouter, BuildRouter, Candidate, Candidates, Direct, Header, Here,
    HopRouter, LocalView, RouterCtx, RouterOptions,
};
use crate::network::build::torus::dim_port;
use crate::network::{ChannelId, Network, PortId, Structure};
use crate::routing::{Datelines, RoutingError};

/// Header state bit: this packet breaks k/2 ties towards `+`.
const TIE_PLUS: u32 = 1 << 9;

/// Dimension order from coordinates. See the module docs.
pub struct DorRouter {
    dims: Vec<u32>,
    /// Coordinates of every switch, `n` per switch.
    coord: Vec<u16>,
    /// With at most four dimensions: every switch's coordinates packed in
    /// one word, 16 bits each, so that the first differing dimension is a
    /// count of trailing zeros (empty otherwise).
    packed: Vec<u64>,
    wrap: bool,
    datelines: bool,
    concentration: u32,
    lanes: u8,
    /// `classes = "wrapping"`: lane 1 for a whole dimension whose ring
    /// the packet crosses the wraparound link of.
    wrapping: bool,
    /// `ties = "random"`: k/2 ties by a coin per packet.
    random_ties: bool,
    /// [`TIE_PLUS`] when every tie goes `+`, else 0.
    plus_ties: u32,
    /// `injection = "any"`: terminals inject on every VC.
    inject_any: bool,
}

impl BuildRouter for DorRouter {
    fn build(net: &Network, opts: &RouterOptions) -> Result<AnyRouter, RoutingError> {
        opts.only(&["ties", "classes", "injection"])?;
        let random_ties = opts.choice("ties", &["plus", "random"])? == "random";
        let wrapping = opts.choice("classes", &["after-dateline", "wrapping"])? == "wrapping";
        let inject_any = opts.choice("injection", &["lane", "any"])? == "any";
        if let Structure::Torus {
            dims,
            wrap,
            concentration,
        } = net.structure()
        {
            let switches: u64 = dims.iter().map(|&k| u64::from(k)).product();
            let placed = switches == net.switches().len() as u64
                && dims.iter().all(|&k| k <= 1 << 16)
                && dims.len() < usize::from(Datelines::NO_RING)
                && check_torus_terminals(net, "dor", dims.len(), *concentration).is_ok();
            if placed {
                let mut coord = Vec::with_capacity(switches as usize * dims.len());
                for s in 0..switches as u32 {
                    let mut x = s;
                    for &k in dims {
                        coord.push((x % k) as u16);
                        x /= k;
                    }
                }
                let packed = if dims.len() <= 4 {
                    coord
                        .chunks(dims.len())
                        .map(|c| {
                            c.iter()
                                .enumerate()
                                .fold(0u64, |w, (d, &x)| w | u64::from(x) << (16 * d))
                        })
                        .collect()
                } else {
                    Vec::new()
                };
                let datelines = *wrap && opts.routing.datelines;
                return Ok(AnyRouter::Dor(DorRouter {
                    dims: dims.clone(),
                    coord,
                    packed,
                    wrap: *wrap,
                    datelines,
                    concentration: (*concentration).max(1),
                    lanes: if datelines { 2 } else { 1 },
                    wrapping,
                    random_ties,
                    plus_ties: if random_ties { 0 } else { TIE_PLUS },
                    inject_any,
                }));
            }
        }
        if random_ties || wrapping || inject_any {
            let option = if random_ties {
                "ties"
            } else if wrapping {
                "classes"
            } else {
                "injection"
            };
            return Err(RoutingError::BadOption {
                option: option.into(),
                value: opts.params[option].clone(),
                expected: "the default: this network is routed by the dor engine's tables \
                           (the options need a generated torus or mesh)"
                    .into(),
            });
        }
        super::table_router(net, "dor", opts)
    }
}

impl DorRouter {
    #[inline]
    fn push_lane(&self, port: PortId, lane: u8, vcs: u8, out: &mut Candidates) {
        push_lane(port, lane, self.lanes, vcs, out);
    }

    /// The lane of a hop onto a channel of `ring` for a packet in `state`
    /// (as [`crate::routing::LaneRule::hop_lanes`]).
    #[inline]
    fn hop_lane(&self, hdr: &Header, ring: u32) -> u8 {
        if !self.datelines {
            return hdr.lane;
        }
        dateline_lane(hdr, ring)
    }

    /// The next hop of `hdr` at switch `sw` and the header state after it
    /// (`None` off the structure: the caller reports no route).
    #[inline(always)]
    fn decide(&self, hdr: &Header, sw: u32) -> Option<Direct> {
        let n = self.dims.len();
        let c = self.concentration;
        let (tsw, local) = if c == 1 {
            (hdr.target, 0)
        } else {
            (hdr.target / c, hdr.target % c)
        };
        if sw == tsw {
            return Some(Direct {
                port: PortId(2 * n as u16 + 1 + local as u16),
                lane: self.hop_lane(hdr, NO_RING),
                lanes: self.lanes,
                state: hdr.state,
            });
        }
        let (d, x, y) = match (self.packed.get(sw as usize), self.packed.get(tsw as usize)) {
            (Some(&a), Some(&b)) => {
                let d = ((a ^ b).trailing_zeros() / 16) as usize;
                let at = |w: u64| (w >> (16 * d)) as u32 & 0xffff;
                (d, at(a), at(b))
            }
            _ => {
                let a = self.coord.get(sw as usize * n..)?.get(..n)?;
                let b = self.coord.get(tsw as usize * n..)?.get(..n)?;
                let d = (0..n).find(|&i| a[i] != b[i])?;
                (d, u32::from(a[d]), u32::from(b[d]))
            }
        };
        let k = *self.dims.get(d)?;
        let positive = if self.wrap {
            let up = if y >= x { y - x } else { y + k - x };
            // A tie goes `+` unless the packet's coin says `-`.
            let plus_tie = (hdr.state | self.plus_ties) & TIE_PLUS != 0;
            2 * up + u32::from(!plus_tie) <= k
        } else {
            y > x
        };
        if self.datelines && self.wrapping {
            // The lane is set on entering the dimension, for all of it.
            let state = if d as u32 == hdr.state & 0xff {
                hdr.state
            } else {
                let wraps = if positive { y < x } else { y > x };
                (hdr.state & TIE_PLUS) | d as u32 | (u32::from(wraps) * CROSSED)
            };
            return Some(Direct {
                port: dim_port(d, positive),
                lane: hdr.lane + u8::from(state & CROSSED != 0),
                lanes: self.lanes,
                state,
            });
        }
        let state = if self.datelines {
            // Without branches: which way a packet turns is data, not
            // pattern. The lane rises after the ring's wraparound link.
            let kept = if d as u32 == hdr.state & 0xff {
                hdr.state
            } else {
                (hdr.state & TIE_PLUS) | d as u32
            };
            let edge = if positive { k - 1 } else { 0 };
            kept | (u32::from(x == edge) * CROSSED)
        } else {
            hdr.state
        };
        Some(Direct {
            port: dim_port(d, positive),
            lane: self.hop_lane(hdr, d as u32),
            lanes: self.lanes,
            state,
        })
    }
}

impl HopRouter for DorRouter {
    fn name(&self) -> &str {
        "dor"
    }

    fn reads_view(&self) -> bool {
        false
    }

    fn vcs_needed(&self) -> u8 {
        self.lanes
    }

    #[inline]
    fn source(&self, hdr: &mut Header, _view: &dyn LocalView, ctx: &mut RouterCtx) {
        hdr.lane = 0;
        hdr.state = NO_RING;
        if self.random_ties {
            use rand::Rng;
            if ctx.rng.gen_bool(0.5) {
                hdr.state |= TIE_PLUS;
            }
        }
    }

    #[inline]
    fn inject(&self, hdr: &Header, vcs: u8, out: &mut Candidates) {
        self.push_lane(PortId(1), hdr.lane, vcs, out);
    }

    #[inline(always)]
    fn inject_lane(&self, hdr: &Header) -> Option<(u8, u8)> {
        if self.inject_any {
            return Some((0, 1));
        }
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
        if let Some(d) = self.decide(hdr, here.switch_index) {
            self.push_lane(d.port, d.lane, here.vcs, out);
        }
    }

    #[inline(always)]
    fn direct(&self, hdr: &Header, switch_index: u32) -> Option<Direct> {
        self.decide(hdr, switch_index)
    }

    #[inline(always)]
    fn forwarded(
        &self,
        hdr: &mut Header,
        here: &Here,
        chosen: Candidate,
        _channel: ChannelId,
        _ctx: &mut RouterCtx,
    ) {
        if let Some(d) = self.decide(hdr, here.switch_index) {
            debug_assert_eq!(d.port, chosen.port);
            hdr.state = d.state;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::network::spec;
    use crate::routing::RoutingOptions;

    /// Walks the computed router from every terminal to every other and
    /// compares ports and lanes with the engine's tables.
    fn same_as_tables(topology: &str, datelines: bool) {
        let net = spec::build(topology).unwrap();
        let mut opts = RouterOptions::default();
        opts.routing.datelines = datelines;
        let dor = DorRouter::build(&net, &opts).unwrap();
        assert!(matches!(dor, AnyRouter::Dor(_)), "{topology}");
        let ro = RoutingOptions {
            datelines,
            ..RoutingOptions::default()
        };
        let routes = crate::routing::route(&net, "dor", &ro).unwrap();
        assert_eq!(dor.vcs_needed(), routes.lanes().max(1), "{topology}");
        let mut lanes = Vec::new();
        let vcs = dor.vcs_needed();
        let mut rng = crate::rng::stream(1, "t");
        let mut counters = [];
        let t = net.terminals().len();
        for s in 0..t {
            for d in (0..t).filter(|&d| d != s) {
                let path = routes.path(&net, s, d).unwrap();
                routes.lane_rule().hop_lanes(0, &path, &mut lanes);
                let mut hdr = Header {
                    src: s as u32,
                    dst: d as u32,
                    origin: s as u32,
                    target: d as u32,
                    flits: 1,
                    ..Header::default()
                };
                let view = NoView;
                let mut ctx = RouterCtx::new(&mut rng, &mut counters);
                dor.source(&mut hdr, &view, &mut ctx);
                let mut out = Candidates::default();
                dor.inject(&hdr, vcs, &mut out);
                assert_eq!(out.as_slice()[0].vc, lanes[0]);
                for (h, &c) in path.iter().enumerate().skip(1) {
                    let ch = net.channel(c);
                    let here = Here {
                        switch: ch.src,
                        switch_index: net.kind_index(ch.src) as u32,
                        in_port: PortId(0),
                        in_vc: 0,
                        vcs,
                        now_ps: 0,
                    };
                    out.clear();
                    dor.route(&hdr, &here, &view, &mut ctx, &mut out);
                    let first = out.as_slice()[0];
                    assert_eq!(first.port, ch.src_port, "{topology} {s}->{d} hop {h}");
                    assert_eq!(first.vc, lanes[h], "{topology} {s}->{d} hop {h}");
                    dor.forwarded(&mut hdr, &here, first, c, &mut ctx);
                }
            }
        }
    }

    struct NoView;
    impl LocalView for NoView {
        fn now_ps(&self) -> u64 {
            0
        }
        fn ports(&self) -> u16 {
            0
        }
        fn vcs(&self) -> u8 {
            0
        }
        fn capacity(&self) -> u32 {
            0
        }
        fn channel(&self, _: PortId) -> Option<ChannelId> {
            None
        }
        fn credits(&self, _: PortId, _: u8) -> u32 {
            0
        }
        fn is_held(&self, _: PortId, _: u8) -> bool {
            false
        }
        fn is_busy(&self, _: PortId) -> bool {
            false
        }
    }

    #[test]
    fn computed_routes_and_lanes_match_the_engine_tables() {
        same_as_tables("torus:4x4", true);
        same_as_tables("torus:5x3x2", true);
        same_as_tables("torus:4x3,c=2", true);
        same_as_tables("torus:6", false);
        same_as_tables("mesh:4x3", true);
    }

    #[test]
    fn hypercubes_fall_back_to_tables() {
        let net = spec::build("hypercube:3").unwrap();
        let dor = DorRouter::build(&net, &RouterOptions::default()).unwrap();
        assert!(matches!(dor, AnyRouter::Table(_)));
        assert_eq!(dor.name(), "dor");
    }

    /// The router's hops (channel, lane) from terminal `s` to `d`, its k/2
    /// ties broken towards `+` when `tie_plus`.
    fn walk(
        dor: &AnyRouter,
        net: &Network,
        s: usize,
        d: usize,
        tie_plus: bool,
    ) -> Vec<(usize, u8)> {
        let mut rng = crate::rng::stream(1, "walk");
        let mut counters = [];
        let mut ctx = RouterCtx::new(&mut rng, &mut counters);
        let mut hdr = Header {
            src: s as u32,
            dst: d as u32,
            origin: s as u32,
            target: d as u32,
            flits: 1,
            ..Header::default()
        };
        dor.source(&mut hdr, &NoView, &mut ctx);
        hdr.state = (hdr.state & !TIE_PLUS) | if tie_plus { TIE_PLUS } else { 0 };
        let mut at = net.channel(net.out_channels(net.terminal(s))[0]).dst;
        let mut hops = Vec::new();
        while net.is_switch(at) {
            let here = Here {
                switch: at,
                switch_index: net.kind_index(at) as u32,
                in_port: PortId(0),
                in_vc: 0,
                vcs: 4,
                now_ps: 0,
            };
            let mut out = Candidates::default();
            dor.route(&hdr, &here, &NoView, &mut ctx, &mut out);
            let first = out.as_slice()[0];
            let c = net.channel_at(at, first.port).unwrap();
            hops.push((c.index(), first.vc % 2));
            dor.forwarded(&mut hdr, &here, first, c, &mut ctx);
            at = net.channel(c).dst;
            assert!(hops.len() <= net.switches().len(), "{s}->{d} loops");
        }
        assert_eq!(at, net.terminal(d));
        hops
    }

    /// BookSim2's variant: random k/2 ties and lane 1 for a whole
    /// dimension that wraps. Every route minimal, lane 1 exactly on the
    /// dimensions whose trip crosses the wraparound link, and the
    /// dependencies between (channel, lane) of every route, with either
    /// tie, acyclic.
    #[test]
    fn wrapping_classes_and_random_ties_stay_minimal_and_acyclic() {
        for topology in ["torus:8x8", "torus:6x5x4", "torus:8x8x8"] {
            let net = spec::build(topology).unwrap();
            let mut opts = RouterOptions::default();
            opts.params.insert("ties".into(), "random".into());
            opts.params.insert("classes".into(), "wrapping".into());
            let dor = DorRouter::build(&net, &opts).unwrap();
            let AnyRouter::Dor(inner) = &dor else {
                panic!("{topology}: not computed")
            };
            let dims = inner.dims.clone();
            let n = dims.len();
            let coord = |x: usize| inner.coord[x * n..(x + 1) * n].to_vec();
            let t = net.terminals().len();
            let mut next: Vec<Vec<usize>> = vec![Vec::new(); 2 * net.channel_count()];
            let mut both_ways = false;
            for s in 0..t {
                for d in (0..t).filter(|&d| d != s) {
                    let (a, b) = (coord(s), coord(d));
                    let dist: u32 = (0..n)
                        .map(|i| {
                            let up = (b[i] + dims[i] as u16 - a[i]) as u32 % dims[i];
                            up.min(dims[i] - up)
                        })
                        .sum();
                    let mut ways = Vec::new();
                    for tie in [false, true] {
                        let hops = walk(&dor, &net, s, d, tie);
                        // Injection, switch hops, ejection.
                        assert_eq!(hops.len() as u32, dist + 1, "{topology} {s}->{d}");
                        for w in hops.windows(2) {
                            next[2 * w[0].0 + usize::from(w[0].1)]
                                .push(2 * w[1].0 + usize::from(w[1].1));
                        }
                        // Lane 1 on a hop exactly when its dimension's trip
                        // wraps: the hop's ring sees its coordinate fall
                        // (+) or rise (-) somewhere in the dimension.
                        for &(c, lane) in &hops[..hops.len() - 1] {
                            let ch = net.channel(ChannelId(c as u32));
                            let (x, y) =
                                (coord(net.kind_index(ch.src)), coord(net.kind_index(ch.dst)));
                            let i = (0..n).find(|&i| x[i] != y[i]).unwrap();
                            let plus = (x[i] + 1) % dims[i] as u16 == y[i];
                            let wraps = if plus { b[i] < a[i] } else { b[i] > a[i] };
                            assert_eq!(lane, u8::from(wraps), "{topology} {s}->{d} hop {c}");
                        }
                        ways.push(hops);
                    }
                    both_ways |= ways[0] != ways[1];
                }
            }
            assert!(both_ways, "{topology}: ties never split");
            // Acyclic: Kahn's algorithm removes every (channel, lane).
            let m = next.len();
            for v in &mut next {
                v.sort_unstable();
                v.dedup();
            }
            let mut indeg = vec![0usize; m];
            for v in &next {
                for &w in v {
                    indeg[w] += 1;
                }
            }
            let mut stack: Vec<usize> = (0..m).filter(|&v| indeg[v] == 0).collect();
            let mut removed = 0;
            while let Some(v) = stack.pop() {
                removed += 1;
                for &w in &next[v] {
                    indeg[w] -= 1;
                    if indeg[w] == 0 {
                        stack.push(w);
                    }
                }
            }
            assert_eq!(removed, m, "{topology}: a dependency cycle");
        }
        // The options are refused where the engine's tables route.
        let mut opts = RouterOptions::default();
        opts.params.insert("ties".into(), "random".into());
        let cube = spec::build("hypercube:3").unwrap();
        assert!(DorRouter::build(&cube, &opts).is_err());
        opts.params.insert("ties".into(), "sometimes".into());
        let e = DorRouter::build(&spec::build("torus:4x4").unwrap(), &opts).unwrap_err();
        assert!(e.to_string().contains("plus, random"), "{e}");
    }

    /// The default breaks ties towards `+`; the dateline classes rise after
    /// the wraparound link, as the engine's tables (checked above).
    #[test]
    fn plus_ties_put_more_on_the_plus_channels() {
        let net = spec::build("torus:8").unwrap();
        let dor = DorRouter::build(&net, &RouterOptions::default()).unwrap();
        let hops = walk(&dor, &net, 0, 4, false);
        let again = walk(&dor, &net, 0, 4, true);
        assert_eq!(hops, again, "ties = plus ignores the coin");
    }
}
