//! One source route per pair of terminals, gathered in any order and
//! stored as a [`PathSet`] keyed by pair: what source-routing engines
//! (`updown-source`, `itb`) hand to the simulator and the analyses.

use super::fabric::{Fabric, NONE};
use super::{PathKey, PathSet, Routes, RoutingError};
use crate::network::{ChannelId, Network};

pub(super) struct SourcePaths {
    t: usize,
    /// Per pair `src * T + dst`: the channels from the source's switch to
    /// the destination's switch (the ejection is added at the end).
    switch_paths: Vec<Option<Vec<ChannelId>>>,
}

impl SourcePaths {
    pub fn new(f: &Fabric) -> Self {
        SourcePaths {
            t: f.t,
            switch_paths: vec![None; f.t * f.t],
        }
    }

    /// The memory a pair-keyed set of short paths takes, roughly.
    pub fn estimate_bytes(net: &Network) -> u64 {
        let t = net.terminals().len() as u64;
        t * t * 40
    }

    /// The route of `(src, dst)`: its channels from the source's switch to
    /// the destination's switch.
    pub fn set(&mut self, src: usize, dst: usize, channels: Vec<ChannelId>) {
        self.switch_paths[src * self.t + dst] = Some(channels);
    }

    /// Attaches the routes as the path set of `routes`; every pair of
    /// terminals with switches must have one.
    pub fn finish(self, f: &Fabric, routes: &mut Routes) -> Result<(), RoutingError> {
        let net = f.net;
        let mut ps = PathSet::new(net, PathKey::Pair);
        let mut path = Vec::new();
        for src in 0..self.t {
            for dst in 0..self.t {
                let (a, d) = (f.inject[src], f.inject[dst]);
                if src != dst && a != NONE && d != NONE {
                    let eject = f
                        .sink_port(d as usize, dst)
                        .and_then(|p| net.channel_at(f.switch_node(d as usize), p));
                    let (Some(channels), Some(eject)) =
                        (&self.switch_paths[src * self.t + dst], eject)
                    else {
                        return Err(RoutingError::BlackHole {
                            src: f.terminal_name(src),
                            dst: f.terminal_name(dst),
                            switch: net.label(f.switch_node(a as usize)).into_owned(),
                            reason: format!("{} found no route", f.engine),
                        });
                    };
                    path.clear();
                    path.extend_from_slice(channels);
                    path.push(eject);
                    ps.push(&path, &[]);
                }
                ps.next_row();
            }
        }
        routes.set_path_set(Some(ps));
        Ok(())
    }
}
