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

/// [`channel_loads`] of all-to-all traffic (every terminal to every other)
/// without listing the flows, which number the square of the terminals
/// (2 x 10^9 on 46,656 endpoints). Tables are walked once per destination
/// and injecting switch, carrying the switch's sources together; path
/// sets source by source.
pub fn all_to_all_loads(net: &Network, routes: &Routes) -> Result<ChannelLoads, FlowError> {
    if let Some(units) = table_all_to_all(net, routes) {
        return Ok(ChannelLoads {
            units,
            denominator: 1,
            exact: true,
        });
    }
    let t = net.terminals().len();
    let paths = FlowPaths::new(net, routes)?;
    let mut ws = Workspace::new(net.channel_count());
    let mut units = vec![0u64; net.channel_count()];
    let mut flows = Vec::new();
    // Sources in blocks of about a million flows.
    let block = (1 << 20) / t.max(1) + 1;
    for first in (0..t).step_by(block) {
        flows.clear();
        for s in first..(first + block).min(t) {
            flows.extend((0..t).filter(|&d| d != s).map(|d| (s, d)));
        }
        paths.load(&flows, &mut ws)?;
        for (u, &l) in units.iter_mut().zip(&ws.load) {
            *u += l;
        }
    }
    Ok(ChannelLoads {
        units,
        denominator: paths.denominator(),
        exact: paths.exact(),
    })
}

/// The all-to-all loads of tables, one destination at a time; `None` for
/// path sets, terminals without a switch, or tables some walk fails on
/// (the flow by flow load then names the failure).
fn table_all_to_all(net: &Network, routes: &Routes) -> Option<Vec<u64>> {
    use crate::routing::columns::{columns, PortMap, NONE};
    let (s, t) = (net.switches().len(), net.terminals().len());
    if routes.path_set().is_some() || routes.switch_count() != s || routes.terminal_count() != t {
        return None;
    }
    let mut units = vec![0u64; net.channel_count()];
    let mut inject = vec![NONE; t];
    let mut count = vec![0u64; s];
    for (i, &h) in net.terminals().iter().enumerate() {
        let c = Routes::injection(net, h)?;
        let x = net.kind_index(net.channel(c).dst);
        inject[i] = x as u32;
        count[x] += 1;
        units[c.index()] += t as u64 - 1;
    }
    let sources: Vec<usize> = (0..s).filter(|&x| count[x] > 0).collect();
    let map = PortMap::new(net);
    let mut ok = true;
    columns(routes.tables(), t, |d, col| {
        if !ok {
            return;
        }
        let target = net.terminal(d);
        for &y in &sources {
            let n = count[y] - u64::from(inject[d] as usize == y);
            if n == 0 {
                continue;
            }
            let mut z = y;
            for _ in 0..=s {
                let p = col[z];
                let Some(c) = map.channel(z, p) else {
                    ok = false;
                    return;
                };
                units[c.index()] += n;
                match map.next(z, p) {
                    NONE => {
                        ok &= net.channel(c).dst == target;
                        break;
                    }
                    nx => z = nx as usize,
                }
            }
            if map.next(z, col[z]) != NONE {
                ok = false; // a loop
            }
            if !ok {
                return;
            }
        }
    });
    ok.then_some(units)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::network::spec;
    use crate::routing::{self, RoutingOptions};

    #[test]
    fn all_to_all_loads_match_the_listed_flows() {
        for (topology, engine) in [
            ("kary-ntree:k=4,n=3", "ftree"),
            ("torus:5x4", "dor"),
            ("random:switches=16,ports=6,hosts=2,seed=2", "updown"),
            ("torus:4x4", "valiant"),
        ] {
            let net = spec::build(topology).unwrap();
            let r = routing::route(&net, engine, &RoutingOptions::default()).unwrap();
            let t = net.terminals().len();
            let flows: Vec<_> = (0..t)
                .flat_map(|s| (0..t).filter(move |&d| d != s).map(move |d| (s, d)))
                .collect();
            let want = channel_loads(&net, &r, &flows).unwrap();
            assert_eq!(
                all_to_all_loads(&net, &r).unwrap(),
                want,
                "{engine} on {topology}"
            );
            // Tables go by destination tree, path sets source by source.
            assert_eq!(
                table_all_to_all(&net, &r).is_some(),
                r.path_set().is_none(),
                "{engine}"
            );
        }
        // A broken table: the flow by flow load names it.
        let net = spec::build("kary-ntree:k=4,n=2").unwrap();
        let mut r = routing::route(&net, "ftree", &RoutingOptions::default()).unwrap();
        r.set_port(0, 5, None);
        assert!(all_to_all_loads(&net, &r).is_err());
    }

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
