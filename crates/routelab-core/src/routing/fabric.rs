//! The switch graph the engines route on, indexed by switch index (position
//! in [`Network::switches`]), with each terminal's injection switch and the
//! switches that can deliver to it. Built once per routing run; checks that
//! every terminal can reach every other.

use super::RoutingError;
use crate::network::{ChannelId, Network, NodeId, PortId};

pub(crate) const NONE: u32 = u32::MAX;

/// A switch-to-switch channel seen from its source switch.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Link {
    pub ch: ChannelId,
    /// Index of the switch it leads to.
    pub to: u32,
    pub port: PortId,
}

/// A switch that delivers to a terminal, and the port it uses.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Sink {
    pub switch: u32,
    pub port: PortId,
}

pub(crate) struct Fabric<'a> {
    pub net: &'a Network,
    pub engine: &'static str,
    /// Number of switches and terminals.
    pub s: usize,
    pub t: usize,
    /// Per terminal: the switch index it injects into.
    pub inject: Vec<u32>,
    /// Per switch: number of terminals injecting into it.
    pub injecting: Vec<u32>,
    sink_base: Vec<u32>,
    sinks: Vec<Sink>,
    adj_base: Vec<u32>,
    adj: Vec<Link>,
    /// Per switch: connected component (over switch links), and the
    /// component of the terminals.
    pub comp: Vec<u32>,
    pub main: u32,
    /// Per channel: the weight of a route on it; empty: all 1.
    cost: Vec<u64>,
}

/// How the balancing engines see link capacity ([`Fabric::balancing`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Capacity {
    /// Leave throttled switch links out of the graph (OpenSM's
    /// `avoid_throttled_links`, honoured by its dfsssp, sssp and nue).
    pub avoid_throttled: bool,
    /// Count a route on a link as many times as the link is slower than
    /// the fabric's fastest switch link.
    pub weigh: bool,
}

impl Capacity {
    pub fn of(o: &super::RoutingOptions) -> Self {
        Capacity {
            avoid_throttled: o.avoid_throttled_links,
            weigh: o.weigh_capacity,
        }
    }
}

/// Per channel: whether it is a throttled switch-to-switch link, one that
/// runs slower than the fastest switch link at each of its two ends. A
/// dump gives each link's active rate only; a switch's fastest link stands
/// for what its ports can run, as OpenSM compares the active rate with
/// what both ends enable (a 4xDDR cable between two EDR switches).
pub fn throttled_channels(net: &Network) -> Vec<bool> {
    let bw = |c: ChannelId| net.class(net.channel(c).class).bandwidth.0;
    let fastest: Vec<u64> = net
        .switches()
        .iter()
        .map(|&x| {
            net.out_channels(x)
                .iter()
                .filter(|&&c| net.is_switch(net.channel(c).dst))
                .map(|&c| bw(c))
                .max()
                .unwrap_or(0)
        })
        .collect();
    (0..net.channel_count())
        .map(|i| {
            let c = ChannelId(i as u32);
            let ch = net.channel(c);
            net.is_switch(ch.src)
                && net.is_switch(ch.dst)
                && bw(c) < fastest[net.kind_index(ch.src)].min(fastest[net.kind_index(ch.dst)])
        })
        .collect()
}

/// Per channel: its link's slowness, the fastest switch link's bandwidth
/// over its own, rounded to the nearest integer and at least 1.
pub fn slowness(net: &Network) -> Vec<u64> {
    let bw = |c: &crate::network::Channel| net.class(c.class).bandwidth.0.max(1);
    let fastest = net
        .channels()
        .iter()
        .filter(|c| net.is_switch(c.src) && net.is_switch(c.dst))
        .map(bw)
        .max()
        .unwrap_or(1);
    net.channels()
        .iter()
        .map(|c| ((fastest + bw(c) / 2) / bw(c)).max(1))
        .collect()
}

impl<'a> Fabric<'a> {
    pub fn new(net: &'a Network, engine: &'static str) -> Result<Self, RoutingError> {
        Self::build(net, engine, None)
    }

    /// The fabric as a balancing engine sees it: without throttled links
    /// when asked (an error names the pair they alone connected), and with
    /// each channel's count weight ([`Fabric::cost`]).
    pub fn balancing(
        net: &'a Network,
        engine: &'static str,
        capacity: Capacity,
    ) -> Result<Self, RoutingError> {
        let skip = capacity.avoid_throttled.then(|| throttled_channels(net));
        let mut f = Self::build(net, engine, skip.as_deref()).map_err(|e| match e {
            RoutingError::Disconnected { engine, src, dst } if skip.is_some() => {
                RoutingError::BadOption {
                    option: "avoid_throttled_links".into(),
                    value: "true".into(),
                    expected: format!(
                        "false on this fabric: without its throttled links {engine} finds no \
                         route from {src} to {dst}"
                    ),
                }
            }
            e => e,
        })?;
        if capacity.weigh {
            f.cost = slowness(net);
        }
        Ok(f)
    }

    /// The weight of one route on channel `c`: 1, or its slowness when the
    /// engine weighs capacity.
    #[inline]
    pub fn cost(&self, c: ChannelId) -> u64 {
        self.cost.get(c.index()).copied().unwrap_or(1)
    }

    /// The largest [`Fabric::cost`].
    pub fn max_cost(&self) -> u64 {
        self.cost.iter().copied().max().unwrap_or(1)
    }

    fn build(
        net: &'a Network,
        engine: &'static str,
        skip: Option<&[bool]>,
    ) -> Result<Self, RoutingError> {
        let s = net.switches().len();
        let t = net.terminals().len();
        let mut adj_base = Vec::with_capacity(s + 1);
        let mut adj = Vec::new();
        for &x in net.switches() {
            adj_base.push(adj.len() as u32);
            for &c in net.out_channels(x) {
                let ch = net.channel(c);
                let skipped = skip.is_some_and(|k| k[c.index()]);
                if ch.dst != x && net.is_switch(ch.dst) && !skipped {
                    adj.push(Link {
                        ch: c,
                        to: net.kind_index(ch.dst) as u32,
                        port: ch.src_port,
                    });
                }
            }
        }
        adj_base.push(adj.len() as u32);

        let mut inject = vec![NONE; t];
        let mut injecting = vec![0u32; s];
        let mut sink_base = Vec::with_capacity(t + 1);
        let mut sinks = Vec::new();
        for (i, &h) in net.terminals().iter().enumerate() {
            sink_base.push(sinks.len() as u32);
            for &c in net.out_channels(h) {
                let ch = net.channel(c);
                if !net.is_switch(ch.dst) {
                    continue;
                }
                let sw = net.kind_index(ch.dst) as u32;
                if inject[i] == NONE {
                    inject[i] = sw;
                    injecting[sw as usize] += 1;
                }
                if !sinks[sink_base[i] as usize..]
                    .iter()
                    .any(|k: &Sink| k.switch == sw)
                {
                    sinks.push(Sink {
                        switch: sw,
                        port: ch.dst_port,
                    });
                }
            }
        }
        sink_base.push(sinks.len() as u32);

        let mut f = Fabric {
            net,
            engine,
            s,
            t,
            inject,
            injecting,
            sink_base,
            sinks,
            adj_base,
            adj,
            comp: vec![NONE; s],
            main: NONE,
            cost: Vec::new(),
        };
        f.components();
        f.check_connected()?;
        Ok(f)
    }

    #[inline]
    pub fn links(&self, x: usize) -> &[Link] {
        &self.adj[self.adj_base[x] as usize..self.adj_base[x + 1] as usize]
    }

    #[inline]
    pub fn sinks(&self, t: usize) -> &[Sink] {
        &self.sinks[self.sink_base[t] as usize..self.sink_base[t + 1] as usize]
    }

    /// The delivery port of switch `x` to terminal `t`, if `x` is a sink.
    #[inline]
    pub fn sink_port(&self, x: usize, t: usize) -> Option<PortId> {
        self.sinks(t)
            .iter()
            .find(|k| k.switch as usize == x)
            .map(|k| k.port)
    }

    /// The switches terminals inject into, in index order: the sources of
    /// the engines that keep a lane per injecting switch.
    pub fn injecting_switches(&self) -> Vec<usize> {
        (0..self.s).filter(|&x| self.injecting[x] > 0).collect()
    }

    pub fn switch_node(&self, x: usize) -> NodeId {
        self.net.switches()[x]
    }

    pub fn terminal_name(&self, t: usize) -> String {
        self.net.node(self.net.terminal(t)).name.clone()
    }

    fn components(&mut self) {
        let mut stack = Vec::new();
        let mut next = 0;
        for r in 0..self.s {
            if self.comp[r] != NONE {
                continue;
            }
            self.comp[r] = next;
            stack.push(r);
            while let Some(u) = stack.pop() {
                for k in self.adj_base[u] as usize..self.adj_base[u + 1] as usize {
                    let v = self.adj[k].to as usize;
                    if self.comp[v] == NONE {
                        self.comp[v] = next;
                        stack.push(v);
                    }
                }
            }
            next += 1;
        }
    }

    fn disconnected(&self, a: usize, b: usize) -> RoutingError {
        RoutingError::Disconnected {
            engine: self.engine,
            src: self.terminal_name(a),
            dst: self.terminal_name(b),
        }
    }

    fn check_connected(&mut self) -> Result<(), RoutingError> {
        if self.t == 0 {
            return Ok(());
        }
        if self.t == 1 {
            if self.inject[0] != NONE {
                self.main = self.comp[self.inject[0] as usize];
            }
            return Ok(());
        }
        // The reference: the component of the first terminal with a switch.
        let Some(r) = (0..self.t).find(|&i| self.inject[i] != NONE) else {
            return Err(self.disconnected(0, 1));
        };
        self.main = self.comp[self.inject[r] as usize];
        for i in 0..self.t {
            let ok = self.inject[i] != NONE && self.comp[self.inject[i] as usize] == self.main;
            if !ok {
                let other = if i == r { usize::from(r == 0) } else { r };
                return Err(self.disconnected(other, i));
            }
        }
        Ok(())
    }

    /// Is switch `x` in the component of the terminals?
    #[inline]
    pub fn in_main(&self, x: usize) -> bool {
        self.comp[x] == self.main
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::network::{spec, ChannelClass, NetworkBuilder};
    use crate::routing::{route, RoutingOptions};
    use crate::units::Bandwidth;

    /// `net` with cable `slow` running `factor` times slower than the rest.
    fn with_slow_cable(net: &Network, slow: usize, factor: u64) -> Network {
        let mut b = NetworkBuilder::new(net.name());
        for class in net.classes() {
            b.add_class(class.clone());
        }
        let first = &net.classes()[net.channels()[2 * slow].class.0 as usize];
        let bw = Bandwidth(first.bandwidth.0 / factor);
        let class = b.add_class(ChannelClass::new("4xDDR", bw, first.latency));
        for node in net.nodes() {
            b.push_node(node.clone());
        }
        for (i, pair) in net.channels().chunks(2).enumerate() {
            let c = pair[0];
            let k = if i == slow { class } else { c.class };
            b.connect(c.src, c.src_port, c.dst, c.dst_port, k).unwrap();
        }
        b.build().unwrap()
    }

    /// A leaf-spine fabric (4 leaves, 4 spines, 4 hosts a leaf) with one
    /// leaf-spine cable 5 times slower, and that cable's index.
    fn slow_fabric() -> (Network, usize) {
        let net = spec::build("clos:ports=8,hosts=16").unwrap();
        let slow = net
            .channels()
            .chunks(2)
            .position(|p| net.is_switch(p[0].src) && net.is_switch(p[0].dst))
            .unwrap();
        (with_slow_cable(&net, slow, 5), slow)
    }

    /// Routes (all-to-all) on each channel.
    fn loads(net: &Network, engine: &str, o: &RoutingOptions) -> Vec<usize> {
        let r = route(net, engine, o).unwrap_or_else(|e| panic!("{engine}: {e}"));
        if engine != "minhop" && engine != "sssp" {
            assert!(r.deadlock_report(net).unwrap().deadlock_free, "{engine}");
        }
        let t = net.terminals().len();
        let mut load = vec![0; net.channel_count()];
        for s in 0..t {
            for d in (0..t).filter(|&d| d != s) {
                for c in r.path_lanes(net, s, d).unwrap().0 {
                    load[c.index()] += 1;
                }
            }
        }
        load
    }

    #[test]
    fn a_slow_link_between_fast_switches_is_throttled() {
        let (net, slow) = slow_fabric();
        let throttled = throttled_channels(&net);
        let marked: Vec<usize> = (0..net.channel_count()).filter(|&i| throttled[i]).collect();
        assert_eq!(marked, vec![2 * slow, 2 * slow + 1]);
        let k = slowness(&net);
        assert_eq!((k[2 * slow], k[2 * slow + 1]), (5, 5));
        assert_eq!(k.iter().filter(|&&x| x != 1).count(), 2);
        // A fabric whose links are all slow has none throttled.
        let plain = spec::build("clos:ports=8,hosts=16").unwrap();
        assert!(!throttled_channels(&plain).iter().any(|&x| x));
    }

    #[test]
    fn avoiding_throttled_links_leaves_them_unused() {
        let (net, slow) = slow_fabric();
        let mut o = RoutingOptions::default();
        o.set("avoid_throttled_links", "true").unwrap();
        for engine in ["sssp", "dfsssp", "nue"] {
            let before = loads(&net, engine, &RoutingOptions::default());
            assert!(before[2 * slow] > 0, "{engine}");
            let after = loads(&net, engine, &o);
            assert_eq!((after[2 * slow], after[2 * slow + 1]), (0, 0), "{engine}");
        }
        // When the throttled links alone connect the fabric, the option
        // says so instead of routing around nothing.
        let ring = spec::build("torus:4").unwrap();
        let cut = ring
            .channels()
            .chunks(2)
            .position(|p| ring.is_switch(p[0].src) && ring.is_switch(p[0].dst))
            .unwrap();
        let mut chain = with_slow_cable(&ring, cut, 4);
        // Slow a second cable of the ring: the two cut it in two.
        let second = ring
            .channels()
            .chunks(2)
            .enumerate()
            .filter(|(_, p)| ring.is_switch(p[0].src) && ring.is_switch(p[0].dst))
            .nth(2)
            .unwrap()
            .0;
        let class = chain.channels()[2 * cut].class;
        let mut b = NetworkBuilder::new("cut");
        for c in chain.classes() {
            b.add_class(c.clone());
        }
        for node in chain.nodes() {
            b.push_node(node.clone());
        }
        for (i, pair) in chain.channels().chunks(2).enumerate() {
            let c = pair[0];
            let k = if i == second { class } else { c.class };
            b.connect(c.src, c.src_port, c.dst, c.dst_port, k).unwrap();
        }
        chain = b.build().unwrap();
        let e = route(&chain, "dfsssp", &o).unwrap_err().to_string();
        assert!(e.contains("avoid_throttled_links"), "{e}");
    }

    #[test]
    fn weighing_capacity_moves_routes_off_slow_links() {
        let (net, slow) = slow_fabric();
        let mut o = RoutingOptions::default();
        o.set("weigh_capacity", "true").unwrap();
        for engine in ["minhop", "sssp", "dfsssp", "nue"] {
            let plain = loads(&net, engine, &RoutingOptions::default());
            let weighed = loads(&net, engine, &o);
            let (p, w) = (plain[2 * slow], weighed[2 * slow]);
            // Equal shares without weights (3 of a leaf's 12 remote
            // destinations a port); with them at most a third of that (its
            // fair share is under one destination).
            assert!(
                w * 3 <= p && w < p,
                "{engine}: {w} routes on the slow link, {p} unweighed"
            );
        }
        assert!(RoutingOptions::default()
            .set("weigh_capacity", "maybe")
            .is_err());
    }
}
