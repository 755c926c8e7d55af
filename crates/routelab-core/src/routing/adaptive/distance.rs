//! Routers for any network, from its switch-to-switch distances: minimal
//! adaptive, Valiant and UGAL, as low-diameter networks without a
//! coordinate system are routed (Slim Fly, Besta & Hoefler 2014; the same
//! three on Megaflies, Kautz graphs, random and imported fabrics).
//!
//! - `dist-min`: minimal adaptive. At every switch each port one hop
//!   closer to the destination's switch is a candidate, and the switch
//!   picks among them by its selection policy.
//! - `dist-val`: Valiant. Minimal adaptive to a uniformly random
//!   intermediate switch that holds terminals (neither the source's nor
//!   the destination's), then minimal adaptive to the destination.
//! - `dist-ugal`: UGAL-L at the source switch: Valiant through a random
//!   intermediate when `q_min * H_min > q_val * H_val + threshold`, `q` the
//!   flits queued on the least occupied first output port of the path at
//!   the source switch (all its VCs), `H` the path's switch hops.
//!
//! **Deadlock freedom: VCs by hop.** The `i`-th switch-to-switch hop of a
//! route takes class `i` (counted from 0). Along every route the classes
//! strictly increase, so every channel dependency goes from a lower class
//! to a higher one and the channel dependency graph is acyclic, whatever
//! the topology. Classes needed (VCs per port): `D` for `dist-min` and `2D`
//! for `dist-val` and `dist-ugal`, `D` the largest distance between two
//! switches that hold terminals (a Slim Fly: 2 and 4). With more VCs,
//! class `c` uses VCs `c, c + n, ...` (`n` the classes), all offered.
//!
//! Options: `threshold` (`dist-ugal`: flits added to the Valiant side,
//! default 0). Counters: `minimal` and `nonminimal` (the decision at the
//! source). The table of distances takes one byte per pair of switches:
//! networks of up to [`MAX_SWITCHES`] switches.

use super::dragonfly::Reads;
use super::{
    AnyRouter, BuildRouter, Candidate, Candidates, Header, Here, HopRouter, LocalView, RouterCtx,
    RouterOptions,
};
use crate::network::{ChannelId, Network, PortId};
use crate::routing::RoutingError;
use rand::Rng as _;
use std::marker::PhantomData;

/// The most switches the distance table is built for (64 MiB).
pub const MAX_SWITCHES: usize = 8192;
/// The most VC classes a route may need.
const MAX_CLASSES: u32 = 16;

/// One distance router: minimal, Valiant or UGAL.
pub trait Policy: Send + Sync + 'static {
    const NAME: &'static str;
    const READS: Reads;
    const ALWAYS_VALIANT: bool = false;
    /// Whether routes may go through an intermediate switch.
    const VALIANT: bool;
    /// The router as the registry's variant.
    fn wrap(r: DistanceRouter<Self>) -> AnyRouter
    where
        Self: Sized;
}

pub struct Min;
pub struct Val;
pub struct Ugal;

impl Policy for Min {
    fn wrap(r: DistanceRouter<Self>) -> AnyRouter {
        AnyRouter::DistMin(r)
    }
    const NAME: &'static str = "dist-min";
    const READS: Reads = Reads::Nothing;
    const VALIANT: bool = false;
}
impl Policy for Val {
    fn wrap(r: DistanceRouter<Self>) -> AnyRouter {
        AnyRouter::DistVal(r)
    }
    const NAME: &'static str = "dist-val";
    const READS: Reads = Reads::Nothing;
    const ALWAYS_VALIANT: bool = true;
    const VALIANT: bool = true;
}
impl Policy for Ugal {
    fn wrap(r: DistanceRouter<Self>) -> AnyRouter {
        AnyRouter::DistUgal(r)
    }
    const NAME: &'static str = "dist-ugal";
    const READS: Reads = Reads::Local;
    const VALIANT: bool = true;
}

// `Header::state` bits.
/// Switch-to-switch hops taken: the class of the next hop.
const HOPS: u32 = 0xff;
/// Through an intermediate switch (`Header::aux`).
const VALIANT: u32 = 1 << 8;
/// The intermediate switch was reached: on to the destination.
const REACHED: u32 = 1 << 9;
const NONE: u32 = u32::MAX;

/// A router of policy `P` over a network's switch distances.
pub struct DistanceRouter<P: Policy> {
    switches: usize,
    /// `dist[a * switches + b]`: switch hops from switch `a` to switch `b`.
    dist: Vec<u8>,
    /// Per switch, its links to switches: (port, neighbour switch index).
    links: Vec<Vec<(PortId, u32)>>,
    /// The switch index and ejection port of each terminal.
    terminal: Vec<(u32, PortId)>,
    /// The switches that hold terminals: the Valiant intermediates.
    hosts: Vec<u32>,
    classes: u8,
    threshold: f64,
    policy: PhantomData<P>,
}

impl<P: Policy> BuildRouter for DistanceRouter<P> {
    fn build(net: &Network, opts: &RouterOptions) -> Result<AnyRouter, RoutingError> {
        Ok(P::wrap(DistanceRouter::<P>::new(net, opts)?))
    }
}

impl<P: Policy> DistanceRouter<P> {
    pub fn new(net: &Network, opts: &RouterOptions) -> Result<Self, RoutingError> {
        let threshold = P::READS.threshold(opts)?;
        let unfit = |needs: &str, found: String| RoutingError::Unfit {
            engine: P::NAME,
            needs: needs.into(),
            network: net.name().to_string(),
            found,
        };
        let n = net.switches().len();
        if n > MAX_SWITCHES {
            return Err(unfit(
                &format!("at most {MAX_SWITCHES} switches (a byte per pair of switches)"),
                format!("{n} switches"),
            ));
        }
        let mut links = vec![Vec::new(); n];
        for (s, &node) in net.switches().iter().enumerate() {
            for &c in net.out_channels(node) {
                let ch = net.channel(c);
                if net.is_switch(ch.dst) {
                    links[s].push((ch.src_port, net.kind_index(ch.dst) as u32));
                }
            }
        }
        let terminal = super::terminal_attachments(net)
            .map_err(|found| unfit("every terminal on a switch", found))?;
        let mut holds = vec![false; n];
        for &(s, _) in &terminal {
            holds[s as usize] = true;
        }
        let hosts: Vec<u32> = (0..n as u32).filter(|&s| holds[s as usize]).collect();
        // All-pairs switch distances by a breadth-first search from each.
        let mut dist = vec![u8::MAX; n * n];
        let mut queue = std::collections::VecDeque::new();
        for src in 0..n {
            let row = &mut dist[src * n..(src + 1) * n];
            row[src] = 0;
            queue.push_back(src);
            while let Some(x) = queue.pop_front() {
                let next = row[x].saturating_add(1);
                for &(_, y) in &links[x] {
                    if row[y as usize] == u8::MAX {
                        row[y as usize] = next;
                        queue.push_back(y as usize);
                    }
                }
            }
        }
        let mut diameter = 0u32;
        for &a in &hosts {
            for &b in &hosts {
                let d = dist[a as usize * n + b as usize];
                if d == u8::MAX {
                    let first_on = |x: u32| {
                        let t = terminal.iter().position(|&(s, _)| s == x).unwrap_or(0);
                        net.label(net.terminals()[t]).into_owned()
                    };
                    return Err(RoutingError::Disconnected {
                        engine: P::NAME,
                        src: first_on(a),
                        dst: first_on(b),
                    });
                }
                diameter = diameter.max(u32::from(d));
            }
        }
        let classes = if P::VALIANT { 2 * diameter } else { diameter }.max(1);
        if classes > MAX_CLASSES {
            return Err(unfit(
                &format!("routes of at most {MAX_CLASSES} hops (a VC each)"),
                format!("switches holding terminals {diameter} hops apart"),
            ));
        }
        if P::VALIANT && hosts.len() < 3 {
            return Err(unfit(
                "at least 3 switches with terminals (a third to route through)",
                format!("{}", hosts.len()),
            ));
        }
        Ok(DistanceRouter {
            switches: n,
            dist,
            links,
            terminal,
            hosts,
            classes: classes as u8,
            threshold,
            policy: PhantomData,
        })
    }

    /// Switch hops from switch `a` to switch `b`.
    #[inline]
    pub fn distance(&self, a: u32, b: u32) -> u32 {
        u32::from(self.dist[a as usize * self.switches + b as usize])
    }

    /// The ports of `s` one hop closer to `goal` (`s != goal`).
    #[inline]
    fn closer(&self, s: u32, goal: u32) -> impl Iterator<Item = PortId> + '_ {
        let want = self.distance(s, goal) - 1;
        self.links[s as usize]
            .iter()
            .filter(move |&&(_, y)| self.distance(y, goal) == want)
            .map(|&(p, _)| p)
    }

    /// The least occupied first port of a minimal path from `s` to `goal`.
    fn queue(&self, view: &dyn LocalView, s: u32, goal: u32) -> f64 {
        let q = self
            .closer(s, goal)
            .map(|p| view.port_occupancy(p))
            .min()
            .unwrap_or(0);
        f64::from(q)
    }

    /// The switch a packet to switch `d` heads for at `s`.
    #[inline]
    fn goal(&self, hdr: &Header, s: u32, d: u32) -> u32 {
        if hdr.state & VALIANT != 0 && hdr.state & REACHED == 0 && s != hdr.aux {
            hdr.aux
        } else {
            d
        }
    }

    /// A random switch with terminals other than `a` and `b`.
    fn draw_intermediate(&self, rng: &mut crate::rng::Rng, a: u32, b: u32) -> u32 {
        loop {
            let v = self.hosts[rng.gen_range(0..self.hosts.len())];
            if v != a && v != b {
                return v;
            }
        }
    }
}

impl<P: Policy> HopRouter for DistanceRouter<P> {
    fn name(&self) -> &str {
        P::NAME
    }

    fn vcs_needed(&self) -> u8 {
        self.classes
    }

    fn reads_view(&self) -> bool {
        // Only UGAL's decision at the source reads the view; the switch's
        // selection policy reads the candidates' own credits.
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
        let (s, _) = self.terminal[hdr.origin as usize];
        let (d, _) = self.terminal[hdr.target as usize];
        if s == d || !P::VALIANT {
            ctx.count(0);
            return;
        }
        let via = self.draw_intermediate(ctx.rng, s, d);
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
        let (d, eject) = self.terminal[hdr.target as usize];
        if s == d && self.goal(hdr, s, d) == d {
            for v in 0..here.vcs {
                out.push(eject, v);
            }
            return;
        }
        let goal = self.goal(hdr, s, d);
        let class = (hdr.state & HOPS) as u8;
        for port in self.closer(s, goal) {
            let mut v = class;
            while v < here.vcs {
                out.push(port, v);
                v += self.classes;
            }
        }
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
        let s = here.switch_index;
        if hdr.state & VALIANT != 0 && s == hdr.aux {
            hdr.state |= REACHED;
        }
        hdr.state = hdr.state & !HOPS | ((hdr.state & HOPS) + 1).min(HOPS);
    }
}

#[cfg(test)]
mod tests {
    use super::super::torus_geometry::test_view::FixedView;
    use super::*;
    use crate::network::{spec, NodeId};

    /// Every route `P` can give: each pair of terminals, each intermediate
    /// (or none), and at each hop every candidate. Returns the longest
    /// route in switch hops and whether the (channel, VC) dependencies of
    /// all of them form a cycle; checks that every hop gets one step closer
    /// to its goal on the VC of its hop.
    fn walk_every_route<P: Policy>(topology: &str) -> (usize, bool) {
        let net = spec::build(topology).unwrap();
        let r = DistanceRouter::<P>::new(&net, &RouterOptions::default()).unwrap();
        let terminals = net.terminals().len() as u32;
        let mut headers = Vec::new();
        for src in 0..terminals {
            for dst in (0..terminals).filter(|&d| d != src) {
                let (s, d) = (r.terminal[src as usize].0, r.terminal[dst as usize].0);
                let mut vias = vec![NONE];
                if P::VALIANT && s != d {
                    vias = r
                        .hosts
                        .iter()
                        .copied()
                        .filter(|&v| v != s && v != d)
                        .collect();
                    if !P::ALWAYS_VALIANT {
                        vias.push(NONE);
                    }
                }
                headers.extend(vias.into_iter().map(|via| Header {
                    src,
                    dst,
                    origin: src,
                    target: dst,
                    flits: 1,
                    aux: via,
                    state: if via == NONE { 0 } else { VALIANT },
                    ..Header::default()
                }));
            }
        }
        let view = |_: u32, _: &Header| FixedView::empty(64);
        let mut check = |step: &crate::routing::adaptive::Step| {
            if net.is_terminal(step.next) {
                return;
            }
            assert_eq!(
                usize::from(step.taken.vc),
                step.hop,
                "the VC of hop {}",
                step.hop
            );
            let d = r.terminal[step.hdr.target as usize].0;
            let goal = r.goal(step.hdr, step.switch, d);
            let next = net.kind_index(step.next) as u32;
            assert_eq!(r.distance(next, goal) + 1, r.distance(step.switch, goal));
        };
        crate::routing::adaptive::walk_every_branch(&net, &r, r.classes, headers, &view, &mut check)
    }

    #[test]
    fn every_route_on_a_slim_fly_has_an_acyclic_channel_dependency_graph() {
        // q = 3: 18 routers of 5 links, diameter 2. MIN takes 2 classes and
        // at most 2 hops, Valiant and UGAL 4.
        let t = "slimfly:q=3,p=1";
        let net = spec::build(t).unwrap();
        let r = DistanceRouter::<Min>::new(&net, &RouterOptions::default()).unwrap();
        assert_eq!(r.vcs_needed(), 2);
        assert_eq!(walk_every_route::<Min>(t), (2, false));
        assert_eq!(walk_every_route::<Val>(t), (4, false));
        assert_eq!(walk_every_route::<Ugal>(t), (4, false));
        // Any topology: a random irregular network and a fat tree, whose
        // spines hold no terminals and are no intermediates.
        for t in [
            "random:switches=12,ports=5,hosts=1,seed=4",
            "kary-ntree:k=2,n=3",
        ] {
            let (longest, cycle) = walk_every_route::<Val>(t);
            assert!(!cycle, "{t}");
            let net = spec::build(t).unwrap();
            let r = DistanceRouter::<Val>::new(&net, &RouterOptions::default()).unwrap();
            assert!(longest <= usize::from(r.vcs_needed()), "{t}");
        }
    }

    #[test]
    fn folding_the_classes_onto_one_vc_makes_a_cycle() {
        // The check can fail: on a ring of 5 switches, minimal routes all on
        // VC 0 close the ring's dependency cycle.
        let net = spec::build("torus:5").unwrap();
        let r = DistanceRouter::<Min>::new(&net, &RouterOptions::default()).unwrap();
        let mut edges = vec![Vec::new(); net.channel_count()];
        for src in 0..5u32 {
            for dst in (0..5u32).filter(|&d| d != src) {
                let mut at = NodeId(src);
                let mut prev: Option<usize> = None;
                while at != NodeId(dst) {
                    let goal = dst;
                    let port = r.closer(at.0, goal).next().unwrap();
                    let ch = net.channel_at(at, port).unwrap();
                    if let Some(p) = prev {
                        edges[p].push(ch.index());
                    }
                    prev = Some(ch.index());
                    at = net.channel(ch).dst;
                }
            }
        }
        assert!(crate::routing::adaptive::has_cycle(&edges));
    }

    #[test]
    fn ugal_reads_the_queues_of_both_paths() {
        let net = spec::build("slimfly:q=5,p=1").unwrap();
        let r = DistanceRouter::<Ugal>::new(&net, &RouterOptions::default()).unwrap();
        let mut rng = crate::rng::stream(3, "ugal");
        let mut counters = vec![0u64; 2];
        // Source 0, destination two hops away.
        let d = (0..50u32).find(|&d| r.distance(0, d) == 2).unwrap();
        let hdr = Header {
            origin: 0,
            target: d,
            flits: 4,
            ..Header::default()
        };
        // Empty queues: minimal.
        let mut h = hdr;
        let mut ctx = RouterCtx::new(&mut rng, &mut counters);
        r.source(&mut h, &FixedView::empty(64), &mut ctx);
        assert_eq!(h.state & VALIANT, 0);
        // Every minimal first port full, the others empty: Valiant whenever
        // the intermediate's first port is another one.
        let mut view = FixedView::empty(64);
        for p in r.closer(0, d) {
            view.occ[usize::from(p.0) - 1] = view.capacity;
        }
        let mut valiant = 0;
        for _ in 0..200 {
            let mut h = hdr;
            let mut ctx = RouterCtx::new(&mut rng, &mut counters);
            r.source(&mut h, &view, &mut ctx);
            valiant += u32::from(h.state & VALIANT != 0);
        }
        assert!(valiant > 100, "{valiant} of 200");
    }

    #[test]
    fn too_large_or_disconnected_networks_are_refused_by_name() {
        let net = spec::build("torus:100x100").unwrap();
        let e = DistanceRouter::<Min>::new(&net, &RouterOptions::default())
            .err()
            .unwrap()
            .to_string();
        assert!(e.contains("dist-min") && e.contains("8192"), "{e}");
        let net = spec::build("crossbar:4").unwrap();
        let e = DistanceRouter::<Val>::new(&net, &RouterOptions::default())
            .err()
            .unwrap()
            .to_string();
        assert!(e.contains("at least 3 switches"), "{e}");
        assert!(DistanceRouter::<Min>::new(&net, &RouterOptions::default()).is_ok());
    }
}
