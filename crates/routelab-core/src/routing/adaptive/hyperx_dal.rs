//! DAL, dimensionally-adaptive load-balanced routing on a HyperX (Ahn,
//! Binkert, Davis, McLaren & Schreiber 2009), `hx-dal`: the unaligned
//! dimensions in any order, and in each at most one deroute.
//!
//! At every switch, for each dimension in which the packet is not yet at
//! its destination's coordinate, the hop straight to that coordinate is a
//! candidate, and, unless the packet has derouted in that dimension
//! already, so is a hop to any other coordinate of it (a deroute) whose
//! queue is less than half the minimal hop's: `q_min > 2 q_deroute +
//! threshold`, `q` the flits queued on every trunk of the hop (a deroute
//! takes two hops in the dimension for one). So DAL stays minimal until
//! its minimal ports back up; the switch picks among the candidates by its
//! selection policy. Every trunk of a hop is offered. A route takes at
//! most two hops per dimension.
//!
//! **Deadlock freedom: an escape network (Duato).** VC 0 of every port is
//! the escape network, dimension-order routing: from any switch the hop
//! that fixes the lowest unaligned dimension (priority 1, used only when no
//! adaptive hop can be taken). Dimension order is deadlock-free on one VC
//! in a HyperX (one hop per dimension, dimensions in increasing order), a
//! packet can always ask for its escape hop, and a packet that takes it
//! stays in the escape network to its destination, so the escape network
//! has no dependency beyond its own (Duato's condition holds without
//! indirect dependencies). The other VCs are adaptive. Under wormhole
//! switching a head takes an adaptive VC only when the buffer has room for
//! the whole packet, as `duato` does, so no packet waits in an adaptive
//! buffer behind another. Needs 2 VCs per port.
//!
//! Options: `threshold` (flits added to the deroute's side, default 0).
//! Counters: `deroutes` (hops to a coordinate other than the
//! destination's) and `escape_hops`. Needs a HyperX in the generator's
//! numbering (`hyperx:..`, `flatfly:..`, or a dump recognised as one).

use super::{
    AnyRouter, BuildRouter, Candidate, Candidates, Header, Here, HopRouter, LocalView, RouterCtx,
    RouterOptions,
};
use crate::network::build::hyperx::{hyperx_link_ports, hyperx_port};
use crate::network::build::torus::coords;
use crate::network::{ChannelId, Network, PortId, Structure};
use crate::routing::RoutingError;

/// Priority of the escape hop (adaptive hops have 0).
const ESCAPE: u8 = 1;
/// `Header::state` bit: the packet took the escape network.
const ESCAPED: u32 = 1 << 31;
/// The most dimensions (one state bit each).
const MAX_DIMS: usize = 31;

/// DAL on a HyperX. See the module docs.
pub struct DalRouter {
    sides: Vec<u32>,
    trunks: u32,
    concentration: u32,
    /// `n` coordinates per switch.
    coord: Vec<u32>,
    /// Per link port group `k = (port - 1) / t`: its dimension and the
    /// index `j` of the other coordinate value it leads to.
    slot: Vec<(usize, u32)>,
    threshold: f64,
}

impl BuildRouter for DalRouter {
    fn build(net: &Network, opts: &RouterOptions) -> Result<AnyRouter, RoutingError> {
        opts.only(&["threshold"])?;
        let mut r = DalRouter::new(net)?;
        r.threshold = opts.f64("threshold", 0.0)?;
        Ok(AnyRouter::HxDal(r))
    }
}

impl DalRouter {
    pub fn new(net: &Network) -> Result<Self, RoutingError> {
        let unfit = |found: String| RoutingError::Unfit {
            engine: "hx-dal",
            needs: format!(
                "a HyperX in its generator's numbering, of at most {MAX_DIMS} dimensions"
            ),
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
        if switches != net.switches().len() as u64 || sides.len() > MAX_DIMS {
            return Err(unfit(format!(
                "{} switches in {} dimensions",
                net.switches().len(),
                sides.len()
            )));
        }
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
        let slot = sides
            .iter()
            .enumerate()
            .flat_map(|(d, &k)| (0..k - 1).map(move |j| (d, j)))
            .collect();
        let coord = (0..switches as u32)
            .flat_map(|s| coords(sides, s))
            .collect();
        Ok(DalRouter {
            sides: sides.clone(),
            trunks: *trunking,
            concentration: c,
            coord,
            slot,
            threshold: 0.0,
        })
    }

    #[inline]
    fn coords(&self, s: u32) -> &[u32] {
        let n = self.sides.len();
        &self.coord[s as usize * n..(s as usize + 1) * n]
    }

    /// Pushes every trunk of the hop from coordinate `from` to `to` in
    /// dimension `d`, on VCs `vcs`, with `priority` and `need`.
    #[inline]
    #[allow(clippy::too_many_arguments)]
    fn push_hop(
        &self,
        d: usize,
        from: u32,
        to: u32,
        vcs: std::ops::Range<u8>,
        priority: u8,
        need: u32,
        out: &mut Candidates,
    ) {
        for trunk in 0..self.trunks {
            let port = hyperx_port(&self.sides, self.trunks, d, from, to, trunk);
            for v in vcs.clone() {
                out.push_with(port, v, priority, need);
            }
        }
    }

    /// The flits queued on every trunk of the hop from `from` to `to` in
    /// dimension `d`.
    #[inline]
    fn queue(&self, view: &dyn LocalView, d: usize, from: u32, to: u32) -> f64 {
        let q: u32 = (0..self.trunks)
            .map(|c| view.port_occupancy(hyperx_port(&self.sides, self.trunks, d, from, to, c)))
            .sum();
        f64::from(q)
    }

    /// The dimension and coordinate a link port leads to from switch `s`.
    #[inline]
    fn hop_of(&self, s: u32, port: PortId) -> (usize, u32) {
        let (d, j) = self.slot[(usize::from(port.0) - 1) / self.trunks as usize];
        let x = self.coords(s)[d];
        (d, j + u32::from(j >= x))
    }
}

impl HopRouter for DalRouter {
    fn name(&self) -> &str {
        "hx-dal"
    }

    fn vcs_needed(&self) -> u8 {
        2
    }

    fn counters(&self) -> Vec<String> {
        vec!["deroutes".into(), "escape_hops".into()]
    }

    fn source(&self, hdr: &mut Header, _view: &dyn LocalView, _ctx: &mut RouterCtx) {
        hdr.state = 0;
    }

    fn route(
        &self,
        hdr: &Header,
        here: &Here,
        view: &dyn LocalView,
        _ctx: &mut RouterCtx,
        out: &mut Candidates,
    ) {
        let s = here.switch_index;
        let dst = hdr.target / self.concentration;
        if s == dst {
            let first = hyperx_link_ports(&self.sides, self.trunks);
            let eject = PortId((first + 1 + hdr.target % self.concentration) as u16);
            for v in 0..here.vcs {
                out.push(eject, v);
            }
            return;
        }
        let (x, z) = (self.coords(s), self.coords(dst));
        let Some(lowest) = (0..x.len()).find(|&d| x[d] != z[d]) else {
            return;
        };
        if hdr.state & ESCAPED == 0 {
            let whole = u32::from(hdr.flits).min(view.capacity());
            for d in (lowest..x.len()).filter(|&d| x[d] != z[d]) {
                self.push_hop(d, x[d], z[d], 1..here.vcs, 0, whole, out);
                if hdr.state & (1 << d) != 0 {
                    continue;
                }
                // A deroute takes two hops in the dimension for one: offered
                // where its queue is less than half the minimal hop's.
                let q_min = self.queue(view, d, x[d], z[d]);
                let best = (0..self.sides[d])
                    .filter(|&y| y != x[d] && y != z[d])
                    .map(|y| (self.queue(view, d, x[d], y), y))
                    .min_by(|a, b| a.0.total_cmp(&b.0));
                if let Some((q, y)) = best {
                    if q_min > 2.0 * q + self.threshold {
                        self.push_hop(d, x[d], y, 1..here.vcs, 0, whole, out);
                    }
                }
            }
        }
        self.push_hop(lowest, x[lowest], z[lowest], 0..1, ESCAPE, 0, out);
    }

    fn forwarded(
        &self,
        hdr: &mut Header,
        here: &Here,
        chosen: Candidate,
        _channel: ChannelId,
        ctx: &mut RouterCtx,
    ) {
        let s = here.switch_index;
        let dst = hdr.target / self.concentration;
        if s == dst {
            return;
        }
        if chosen.priority == ESCAPE {
            hdr.state |= ESCAPED;
            ctx.count(1);
            return;
        }
        let (d, y) = self.hop_of(s, chosen.port);
        if y != self.coords(dst)[d] {
            hdr.state |= 1 << d;
            ctx.count(0);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::torus_geometry::test_view::FixedView;
    use super::*;
    use crate::network::spec;

    #[test]
    fn routes_are_bounded_and_the_escape_network_is_acyclic() {
        // 4 x 3 x 3: every branch of every route, the escape
        // hops' dependencies among themselves (the escape network) acyclic,
        // each route at most two hops per dimension.
        let net = spec::build("hyperx:S=4x3x3,t=1,p=1").unwrap();
        let r = DalRouter::new(&net).unwrap();
        let terminals = net.terminals().len() as u32;
        let headers = (0..terminals).flat_map(|src| {
            (0..terminals)
                .filter(move |&d| d != src)
                .map(move |dst| Header {
                    src,
                    dst,
                    origin: src,
                    target: dst,
                    flits: 1,
                    ..Header::default()
                })
        });
        // Every minimal port full: every deroute is offered too.
        let view = |s: u32, hdr: &Header| {
            let mut v = FixedView::empty(64);
            let (x, z) = (r.coords(s), r.coords(hdr.target));
            for d in (0..3).filter(|&d| x[d] != z[d]) {
                let p = hyperx_port(&r.sides, 1, d, x[d], z[d], 0);
                v.occ[usize::from(p.0) - 1] = v.capacity;
            }
            v
        };
        let mut deroutes = 0;
        let mut check = |step: &crate::routing::adaptive::Step| {
            if net.is_terminal(step.next) {
                return;
            }
            let (d, y) = r.hop_of(step.switch, step.taken.port);
            let z = r.coords(step.hdr.target);
            if y != z[d] {
                deroutes += 1;
            }
            // Once escaped, only the escape hop is offered.
            if step.hdr.state & ESCAPED != 0 {
                assert_eq!((step.taken.priority, step.taken.vc), (ESCAPE, 0));
            }
        };
        let (longest, _) =
            crate::routing::adaptive::walk_every_branch(&net, &r, 2, headers, &view, &mut check);
        assert_eq!(longest, 6);
        assert!(deroutes > 0);
        // The escape network alone: dimension order on VC 0 from anywhere.
        let mut edges = vec![Vec::new(); net.channel_count()];
        for s in 0..36u32 {
            for dst in (0..36u32).filter(|&d| d != s) {
                let mut at = s;
                let mut prev: Option<usize> = None;
                while at != dst {
                    let (x, z) = (r.coords(at).to_vec(), r.coords(dst));
                    let d = (0..3).find(|&d| x[d] != z[d]).unwrap();
                    let port = hyperx_port(&r.sides, 1, d, x[d], z[d], 0);
                    let ch = net.channel_at(net.switches()[at as usize], port).unwrap();
                    if let Some(p) = prev {
                        edges[p].push(ch.index());
                    }
                    prev = Some(ch.index());
                    at = net.kind_index(net.channel(ch).dst) as u32;
                }
            }
        }
        assert!(!crate::routing::adaptive::has_cycle(&edges));
    }

    #[test]
    fn deroutes_only_from_a_backed_up_port_and_once_per_dimension() {
        let net = spec::build("hyperx:S=4x4,t=1,p=1").unwrap();
        let r = DalRouter::new(&net).unwrap();
        // Switch 0 (0, 0) to switch 5 (1, 1).
        let hdr = Header {
            origin: 0,
            target: 5,
            flits: 4,
            ..Header::default()
        };
        let here = Here {
            switch: net.switches()[0],
            switch_index: 0,
            in_port: PortId(7),
            in_vc: 0,
            vcs: 2,
            now_ps: 0,
        };
        let mut rng = crate::rng::stream(1, "t");
        let mut counters = vec![0; 2];
        let mut ctx = RouterCtx::new(&mut rng, &mut counters);
        let mut out = Candidates::default();
        let hops = |out: &Candidates, at: u32| -> Vec<(usize, u32, u8)> {
            out.as_slice()
                .iter()
                .map(|c| {
                    let (d, y) = r.hop_of(at, c.port);
                    (d, y, c.priority)
                })
                .collect()
        };
        // Empty queues: the two minimal hops and the escape hop.
        r.route(&hdr, &here, &FixedView::empty(8), &mut ctx, &mut out);
        assert_eq!(hops(&out, 0), vec![(0, 1, 0), (1, 1, 0), (0, 1, ESCAPE)]);
        let mut view = FixedView::empty(8);
        let min0 = hyperx_port(&r.sides, 1, 0, 0, 1, 0);
        view.occ[usize::from(min0.0) - 1] = view.capacity;
        out.clear();
        r.route(&hdr, &here, &view, &mut ctx, &mut out);
        let got = hops(&out, 0);
        // Dimension 0's minimal port full: its least occupied deroute too
        // (x = 2, the first of the two empty ones).
        assert_eq!(got.len(), 4);
        assert!(got.contains(&(0, 2, 0)));
        // A deroute in dimension 0 (to x = 2) marks it: no second one there.
        let deroute = *out
            .as_slice()
            .iter()
            .find(|c| r.hop_of(0, c.port) == (0, 2))
            .unwrap();
        let mut h = hdr;
        let ch = net.channel_at(here.switch, deroute.port).unwrap();
        r.forwarded(&mut h, &here, deroute, ch, &mut ctx);
        assert_eq!((h.state, counters[0]), (1, 1));
        let at = net.kind_index(net.channel(ch).dst) as u32;
        assert_eq!(r.coords(at), &[2, 0]);
        let here2 = Here {
            switch: net.switches()[at as usize],
            switch_index: at,
            ..here
        };
        let mut ctx = RouterCtx::new(&mut rng, &mut counters);
        out.clear();
        let mut full = FixedView::empty(8);
        full.occ.iter_mut().for_each(|o| *o = 8);
        r.route(&h, &here2, &full, &mut ctx, &mut out);
        assert!(
            hops(&out, at).iter().all(|&(d, y, _)| d == 1 || y == 1),
            "{:?}",
            hops(&out, at)
        );
    }

    #[test]
    fn another_network_is_refused_by_name() {
        let net = spec::build("torus:4x4").unwrap();
        let e = DalRouter::new(&net).err().unwrap().to_string();
        assert!(e.contains("hx-dal") && e.contains("HyperX"), "{e}");
    }
}
