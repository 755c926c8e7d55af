//! Max-min fair rates by progressive filling.
//!
//! Every flow is greedy (it would send at any rate) and is limited only by
//! channel capacities. All flows start at rate 0 and grow together; when a
//! channel fills up, the flows crossing it stop growing (they are
//! *bottlenecked* there) and the others go on, until every flow has
//! stopped. The result is the max-min fair allocation: no flow's rate can
//! grow without lowering the rate of a flow whose rate is not larger. A
//! flow split over `n` paths (a [`crate::routing::PathSet`]) keeps its even
//! split: rate `r` puts `r / n` on each path, so it uses `k r / n` of a
//! channel that `k` of its paths cross.
//!
//! Rates are relative to the *link rate*, the highest bandwidth of any
//! injection channel (terminal to switch). With [`Capacity::Bandwidth`] a
//! channel's capacity is its class bandwidth over the link rate (1 on a
//! network of one speed); with [`Capacity::Unit`] every channel has
//! capacity 1, as ORCS assumes. A flow therefore never exceeds 1 on a
//! homogeneous network. Levels are computed in `f64`; a channel counts as
//! full within a relative `1e-12`.

use super::paths::{FlowPaths, Workspace};
use super::FlowError;
use crate::network::Network;
use crate::routing::Routes;
use crate::units::Bandwidth;
use serde::{Deserialize, Serialize};
use std::fmt;

/// Channel capacities of the max-min computation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Capacity {
    /// Class bandwidth relative to the link rate.
    #[default]
    Bandwidth,
    /// Every channel 1.
    Unit,
}

impl Capacity {
    pub fn name(self) -> &'static str {
        match self {
            Capacity::Bandwidth => "bandwidth",
            Capacity::Unit => "unit",
        }
    }

    pub fn parse(text: &str) -> Result<Capacity, FlowError> {
        match text.trim().to_ascii_lowercase().as_str() {
            "bandwidth" => Ok(Capacity::Bandwidth),
            "unit" => Ok(Capacity::Unit),
            other => Err(FlowError::bad_option(
                "capacity",
                other,
                "one of bandwidth, unit",
            )),
        }
    }
}

impl fmt::Display for Capacity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Max-min fair rates of a list of flows.
#[derive(Debug, Clone, PartialEq)]
pub struct MaxMin {
    /// Per flow, in the order given, relative to `link_rate`; 0 for a self
    /// pair (idle).
    pub rates: Vec<f64>,
    /// Mean rate over the flows that are not self pairs.
    pub mean: f64,
    /// The link rate rates are relative to.
    pub link_rate: Bandwidth,
}

/// The link rate: the highest bandwidth of an injection channel (or of any
/// channel when no terminal is attached).
pub fn link_rate(net: &Network) -> Bandwidth {
    let bw = |c: &crate::Channel| net.class(c.class).bandwidth;
    net.channels()
        .iter()
        .filter(|c| net.is_terminal(c.src))
        .map(bw)
        .max()
        .or_else(|| net.channels().iter().map(bw).max())
        .unwrap_or(Bandwidth(0))
}

/// Per channel: its capacity relative to the link rate.
pub fn capacities(net: &Network, capacity: Capacity) -> Vec<f64> {
    let rate = link_rate(net).0;
    match capacity {
        Capacity::Bandwidth if rate > 0 => net
            .channels()
            .iter()
            .map(|c| net.class(c.class).bandwidth.0 as f64 / rate as f64)
            .collect(),
        _ => vec![1.0; net.channel_count()],
    }
}

/// The max-min fair rates of `flows` under `routes`. See the module docs.
pub fn max_min_rates(
    net: &Network,
    routes: &Routes,
    flows: &[(usize, usize)],
    capacity: Capacity,
) -> Result<MaxMin, FlowError> {
    let paths = FlowPaths::new(net, routes)?;
    let mut ws = Workspace::new(net.channel_count());
    paths.load(flows, &mut ws)?;
    let caps = capacities(net, capacity);
    let rates = Filler::default().rates(&paths, &ws, &caps);
    let (mut sum, mut n) = (0.0, 0usize);
    for &r in &rates {
        if !r.is_nan() {
            sum += r;
            n += 1;
        }
    }
    Ok(MaxMin {
        rates: rates
            .into_iter()
            .map(|r| if r.is_nan() { 0.0 } else { r })
            .collect(),
        mean: if n == 0 { 0.0 } else { sum / n as f64 },
        link_rate: link_rate(net),
    })
}

/// Scratch space of progressive filling, reused across patterns.
#[derive(Debug, Default)]
pub(crate) struct Filler {
    /// Per flow: its (channel, coefficient) entries, CSR.
    flow_base: Vec<u32>,
    entry_ch: Vec<u32>,
    entry_coef: Vec<f64>,
    /// Per channel used: the entries on it, CSR over `used`.
    used: Vec<u32>,
    slot: Vec<u32>,
    ch_base: Vec<u32>,
    ch_entries: Vec<u32>,
    /// Per used channel: active coefficient sum, active entries, frozen use.
    weight: Vec<f64>,
    count: Vec<u32>,
    frozen: Vec<f64>,
}

const NO_SLOT: u32 = u32::MAX;

impl Filler {
    /// Per flow loaded in `ws`: its max-min rate, `NaN` for a self pair.
    pub fn rates(&mut self, paths: &FlowPaths, ws: &Workspace, caps: &[f64]) -> Vec<f64> {
        let den = paths.denominator() as f64;
        let flows = ws.paths.len();
        // Entries per flow (a channel on several paths of a flow repeats).
        self.flow_base.clear();
        self.entry_ch.clear();
        self.entry_coef.clear();
        self.flow_base.push(0);
        let mut current = 0;
        FlowPaths::for_each_path(ws, |flow, n, hops| {
            while current < flow {
                self.flow_base.push(self.entry_ch.len() as u32);
                current += 1;
            }
            let coef = paths.weight(n) as f64 / den;
            for &c in hops {
                self.entry_ch.push(c);
                self.entry_coef.push(coef);
            }
        });
        while self.flow_base.len() <= flows {
            self.flow_base.push(self.entry_ch.len() as u32);
        }
        // Dense numbering of the channels used.
        if self.slot.len() < caps.len() {
            self.slot.resize(caps.len(), NO_SLOT);
        }
        self.used.clear();
        for &c in &self.entry_ch {
            if self.slot[c as usize] == NO_SLOT {
                self.slot[c as usize] = self.used.len() as u32;
                self.used.push(c);
            }
        }
        let u = self.used.len();
        self.ch_base.clear();
        self.ch_base.resize(u + 1, 0);
        for &c in &self.entry_ch {
            self.ch_base[self.slot[c as usize] as usize + 1] += 1;
        }
        for i in 0..u {
            self.ch_base[i + 1] += self.ch_base[i];
        }
        self.ch_entries.clear();
        self.ch_entries.resize(self.entry_ch.len(), 0);
        let mut fill: Vec<u32> = self.ch_base[..u].to_vec();
        for f in 0..flows {
            for e in self.flow_base[f]..self.flow_base[f + 1] {
                let k = self.slot[self.entry_ch[e as usize] as usize] as usize;
                self.ch_entries[fill[k] as usize] = f as u32;
                fill[k] += 1;
            }
        }
        self.weight.clear();
        self.weight.resize(u, 0.0);
        self.count.clear();
        self.count.resize(u, 0);
        self.frozen.clear();
        self.frozen.resize(u, 0.0);
        for (e, &c) in self.entry_ch.iter().enumerate() {
            let k = self.slot[c as usize] as usize;
            self.weight[k] += self.entry_coef[e];
            self.count[k] += 1;
        }

        let mut rate = vec![f64::NAN; flows];
        let mut active: Vec<bool> = (0..flows)
            .map(|f| self.flow_base[f + 1] > self.flow_base[f])
            .collect();
        let mut left = active.iter().filter(|&&a| a).count();
        let mut level = 0.0f64;
        while left > 0 {
            // The level at which the next channel fills.
            let mut next = f64::INFINITY;
            for k in 0..u {
                if self.count[k] > 0 {
                    let cap = caps[self.used[k] as usize];
                    next = next.min(((cap - self.frozen[k]) / self.weight[k]).max(level));
                }
            }
            level = next;
            let mut froze = false;
            for k in 0..u {
                if self.count[k] == 0 {
                    continue;
                }
                let cap = caps[self.used[k] as usize];
                let fills = (cap - self.frozen[k]) / self.weight[k];
                if fills > level * (1.0 + 1e-12) + 1e-300 {
                    continue;
                }
                for i in self.ch_base[k]..self.ch_base[k + 1] {
                    let f = self.ch_entries[i as usize] as usize;
                    if !active[f] {
                        continue;
                    }
                    active[f] = false;
                    left -= 1;
                    froze = true;
                    rate[f] = level;
                    for e in self.flow_base[f]..self.flow_base[f + 1] {
                        let e = e as usize;
                        let k2 = self.slot[self.entry_ch[e] as usize] as usize;
                        self.frozen[k2] += level * self.entry_coef[e];
                        self.count[k2] -= 1;
                        self.weight[k2] = if self.count[k2] == 0 {
                            0.0
                        } else {
                            self.weight[k2] - self.entry_coef[e]
                        };
                    }
                }
            }
            debug_assert!(froze, "every round freezes a flow");
            if !froze {
                break;
            }
        }
        for &c in &self.used {
            self.slot[c as usize] = NO_SLOT;
        }
        rate
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::network::spec;
    use crate::routing::{self, RoutingOptions};

    #[test]
    fn two_flows_share_a_ring_channel() {
        let net = spec::build("torus:4").unwrap();
        let r = routing::route(&net, "dor", &RoutingOptions::default()).unwrap();
        // 0->2 and 1->3 share 1->2; 3->0 is alone.
        let m = max_min_rates(&net, &r, &[(0, 2), (1, 3), (3, 0), (2, 2)], Capacity::Unit).unwrap();
        assert_eq!(m.rates, vec![0.5, 0.5, 1.0, 0.0]);
        assert!((m.mean - 2.0 / 3.0).abs() < 1e-15);
        assert_eq!(m.link_rate, Bandwidth(20_000_000_000));
    }

    #[test]
    fn unequal_bottlenecks_leave_room_for_others() {
        // A line of 8. Three flows eject into 5 (a third each); 2->4
        // shares 3 -> 4 only with 3->5 and takes the other two thirds.
        let net = spec::build("mesh:8").unwrap();
        let r = routing::route(&net, "dor", &RoutingOptions::default()).unwrap();
        let flows = [(2, 4), (3, 5), (4, 5), (6, 5)];
        let m = max_min_rates(&net, &r, &flows, Capacity::Unit).unwrap();
        let want = [2.0 / 3.0, 1.0 / 3.0, 1.0 / 3.0, 1.0 / 3.0];
        for (got, want) in m.rates.iter().zip(want) {
            assert!((got - want).abs() < 1e-12, "{:?}", m.rates);
        }
    }

    #[test]
    fn capacities_follow_classes() {
        let net = spec::build("crossbar:3").unwrap();
        let caps = capacities(&net, Capacity::Bandwidth);
        assert!(caps.iter().all(|&c| c == 1.0));
        assert_eq!(Capacity::parse("unit").unwrap(), Capacity::Unit);
        assert!(Capacity::parse("x").is_err());
    }
}
