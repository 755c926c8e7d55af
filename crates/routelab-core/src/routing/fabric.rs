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
}

impl<'a> Fabric<'a> {
    pub fn new(net: &'a Network, engine: &'static str) -> Result<Self, RoutingError> {
        let s = net.switches().len();
        let t = net.terminals().len();
        let mut adj_base = Vec::with_capacity(s + 1);
        let mut adj = Vec::new();
        for &x in net.switches() {
            adj_base.push(adj.len() as u32);
            for &c in net.out_channels(x) {
                let ch = net.channel(c);
                if ch.dst != x && net.is_switch(ch.dst) {
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
