//! Per-channel load of a list of flows under given routes.
//!
//! The load of a channel is the number of flows crossing it; a flow split
//! over `n` paths (a [`crate::routing::PathSet`]) counts `1/n` on each
//! channel of each path. Loads are kept as integer units with a common
//! denominator ([`ChannelLoads`]), so they are exact.

use super::paths::{FlowPaths, Workspace};
use super::FlowError;
use crate::network::{ChannelId, Network};
use crate::routing::Routes;

/// Per-channel loads: channel `c` carries `units[c] / denominator` flows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChannelLoads {
    /// Per channel, in units of `1 / denominator` flow.
    pub units: Vec<u64>,
    /// Units per flow: 1 for single-path routes, the least common multiple
    /// of the path counts for a path set.
    pub denominator: u64,
    /// False when the path counts' least common multiple was too large and
    /// split shares were rounded to the nearest unit.
    pub exact: bool,
}

impl ChannelLoads {
    /// The load of one channel, in flows.
    pub fn get(&self, c: ChannelId) -> f64 {
        self.units[c.index()] as f64 / self.denominator as f64
    }

    /// Every channel's load, in flows.
    pub fn to_f64(&self) -> Vec<f64> {
        let d = self.denominator as f64;
        self.units.iter().map(|&u| u as f64 / d).collect()
    }

    /// The largest load, in flows.
    pub fn max(&self) -> f64 {
        self.units.iter().copied().max().unwrap_or(0) as f64 / self.denominator as f64
    }

    /// The sum of all loads, in flows: the mean path length times the
    /// number of flows.
    pub fn total(&self) -> f64 {
        self.units.iter().map(|&u| u as f64).sum::<f64>() / self.denominator as f64
    }
}

/// The load every channel carries when `flows` (`(source, destination)`
/// terminal indices, as [`crate::traffic::BoundPattern::flows`] gives them)
/// are routed by `routes`. Self pairs load nothing.
pub fn channel_loads(
    net: &Network,
    routes: &Routes,
    flows: &[(usize, usize)],
) -> Result<ChannelLoads, FlowError> {
    let paths = FlowPaths::new(net, routes)?;
    let mut ws = Workspace::new(net.channel_count());
    paths.load(flows, &mut ws)?;
    Ok(ChannelLoads {
        units: ws.load,
        denominator: paths.denominator(),
        exact: paths.exact(),
    })
}

/// The largest channel load of `flows` under `routes`, in flows.
pub fn max_channel_load(
    net: &Network,
    routes: &Routes,
    flows: &[(usize, usize)],
) -> Result<f64, FlowError> {
    Ok(channel_loads(net, routes, flows)?.max())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::network::spec;
    use crate::routing::{self, RoutingOptions};

    #[test]
    fn a_ring_carries_its_flows() {
        let net = spec::build("torus:4").unwrap();
        let r = routing::route(&net, "dor", &RoutingOptions::default()).unwrap();
        // Every terminal one step forward: each forward ring channel once.
        let flows: Vec<_> = (0..4).map(|s| (s, (s + 1) % 4)).collect();
        let l = channel_loads(&net, &r, &flows).unwrap();
        assert_eq!(l.denominator, 1);
        assert_eq!(l.max(), 1.0);
        assert_eq!(l.total(), 12.0, "4 flows of 3 channels");
        let e = channel_loads(&net, &r, &[(0, 9)]).unwrap_err().to_string();
        assert!(e.contains("0..=3"), "{e}");
        assert_eq!(channel_loads(&net, &r, &[(2, 2)]).unwrap().total(), 0.0);
    }

    #[test]
    fn split_flows_count_fractions() {
        let net = spec::build("clos:ports=8,hosts=32").unwrap();
        let r = routing::route(&net, "multipath", &RoutingOptions::default()).unwrap();
        let l = channel_loads(&net, &r, &[(0, 31)]).unwrap();
        assert_eq!(l.denominator, 4);
        assert!(l.exact);
        // Injection and ejection carry the flow, each of 4 spines a quarter.
        let inj = r.path(&net, 0, 31).unwrap()[0];
        assert_eq!(l.get(inj), 1.0);
        assert_eq!(l.units.iter().filter(|&&u| u == 1).count(), 8);
        assert_eq!(l.total(), 4.0);
    }
}
