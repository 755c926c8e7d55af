//! The fluid view of minimal adaptive routing: every flow split evenly over
//! all of its minimal paths, found by counting paths rather than listing
//! them, so it scales where listing cannot (a 16x16x16 torus has up to
//! 9.4 x 10^9 minimal paths per pair).
//!
//! A path runs from the source terminal through switches to the
//! destination terminal; terminals never forward, and parallel cables are
//! distinct paths (as in [`crate::network::metrics::count_shortest_paths`]).
//! With `n_s(v)` the minimal paths from the source to node `v` and `n_d(v)`
//! those from `v` to the destination, channel `u -> v` carries the share
//! `n_s(u) n_d(v) / n_s(d)` of the flow when it lies on a minimal path
//! (`dist(s, u) + 1 + dist(v, d) = dist(s, d)`): edge betweenness restricted
//! to the flows of a pattern.
//!
//! The largest load gives what this one routing sustains: `capacity / (max
//! load x rate per flow)`. It is not a bound on minimal routing: routers
//! that adapt to congestion may spread unevenly and do better, up to
//! [`super::concurrent`]'s bound over minimal paths; routers that deroute
//! may do better still.

use super::FlowError;
use crate::network::{ChannelId, Network, NodeId};
use rayon::prelude::*;

const FAR: u32 = u32::MAX;

/// Per-channel loads, in flows, of `flows` (`(source, destination)`
/// terminal indices) each split evenly over all its minimal paths. Self
/// pairs load nothing.
pub fn minimal_split_loads(net: &Network, flows: &[(usize, usize)]) -> Result<Vec<f64>, FlowError> {
    let t = net.terminals().len();
    if let Some((index, &(src, dst))) = flows
        .iter()
        .enumerate()
        .find(|(_, &(s, d))| s >= t || d >= t)
    {
        return Err(FlowError::BadFlow {
            index,
            src,
            dst,
            terminals: t,
        });
    }
    let chunks: Vec<&[(usize, usize)]> = flows.chunks(64).collect();
    let partial: Result<Vec<Vec<f64>>, FlowError> = chunks
        .par_iter()
        .map(|chunk| {
            let mut ws = Counting::new(net);
            let mut load = vec![0.0; net.channel_count()];
            for &(s, d) in *chunk {
                if s != d {
                    ws.add_flow(net, net.terminal(s), net.terminal(d), &mut load)?;
                }
            }
            Ok(load)
        })
        .collect();
    // Summed in chunk order: the result does not depend on the threads.
    let mut total = vec![0.0; net.channel_count()];
    for load in partial? {
        for (t, l) in total.iter_mut().zip(load) {
            *t += l;
        }
    }
    Ok(total)
}

/// Per-thread state: distances and path counts from both ends.
struct Counting {
    dist_s: Vec<u32>,
    dist_d: Vec<u32>,
    paths_s: Vec<f64>,
    paths_d: Vec<f64>,
    order_s: Vec<NodeId>,
    order_d: Vec<NodeId>,
}

impl Counting {
    fn new(net: &Network) -> Self {
        let n = net.node_count();
        Counting {
            dist_s: vec![FAR; n],
            dist_d: vec![FAR; n],
            paths_s: vec![0.0; n],
            paths_d: vec![0.0; n],
            order_s: Vec::with_capacity(n),
            order_d: Vec::with_capacity(n),
        }
    }

    /// Adds the flow `s -> d` (terminal nodes) to `load`.
    fn add_flow(
        &mut self,
        net: &Network,
        s: NodeId,
        d: NodeId,
        load: &mut [f64],
    ) -> Result<(), FlowError> {
        count(
            net,
            s,
            d,
            false,
            &mut self.dist_s,
            &mut self.paths_s,
            &mut self.order_s,
        );
        count(
            net,
            d,
            s,
            true,
            &mut self.dist_d,
            &mut self.paths_d,
            &mut self.order_d,
        );
        let hops = self.dist_s[d.index()];
        let result = if hops == FAR {
            Err(FlowError::Disconnected {
                src: net.label(s).into_owned(),
                dst: net.label(d).into_owned(),
            })
        } else {
            let total = self.paths_s[d.index()];
            for &u in &self.order_s {
                let du = self.dist_s[u.index()];
                if u != s && net.is_terminal(u) {
                    continue;
                }
                for &c in net.out_channels(u) {
                    let v = net.channel(c).dst;
                    let dv = self.dist_d[v.index()];
                    if dv != FAR && du + 1 + dv == hops {
                        load[c.index()] +=
                            self.paths_s[u.index()] * self.paths_d[v.index()] / total;
                    }
                }
            }
            Ok(())
        };
        reset(&mut self.dist_s, &mut self.paths_s, &mut self.order_s);
        reset(&mut self.dist_d, &mut self.paths_d, &mut self.order_d);
        result
    }
}

/// Breadth-first distances and minimal-path counts from `from`, forwarding
/// only through switches (and `from` itself); along channels reversed when
/// `backward`, so that the counts are of paths towards `from`. Stops
/// expanding past the distance of `to`.
fn count(
    net: &Network,
    from: NodeId,
    to: NodeId,
    backward: bool,
    dist: &mut [u32],
    paths: &mut [f64],
    order: &mut Vec<NodeId>,
) {
    dist[from.index()] = 0;
    paths[from.index()] = 1.0;
    order.push(from);
    let mut head = 0;
    while head < order.len() {
        let u = order[head];
        head += 1;
        let du = dist[u.index()];
        if dist[to.index()] != FAR && du >= dist[to.index()] {
            break;
        }
        if u != from && net.is_terminal(u) {
            continue;
        }
        let pu = paths[u.index()];
        for &c in net.out_channels(u) {
            // Backward: the channel entering `u` from this neighbour.
            let v = if backward {
                let r: ChannelId = c.reverse();
                net.channel(r).src
            } else {
                net.channel(c).dst
            };
            if dist[v.index()] == FAR {
                dist[v.index()] = du + 1;
                order.push(v);
            }
            if dist[v.index()] == du + 1 {
                paths[v.index()] += pu;
            }
        }
    }
}

fn reset(dist: &mut [u32], paths: &mut [f64], order: &mut Vec<NodeId>) {
    for &v in order.iter() {
        dist[v.index()] = FAR;
        paths[v.index()] = 0.0;
    }
    order.clear();
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::flow::channel_loads;
    use crate::network::spec;
    use crate::routing::{self, RoutingOptions};
    use proptest::prelude::*;

    #[test]
    fn a_ring_half_way_splits_both_ways() {
        let net = spec::build("torus:4").unwrap();
        // Two hops either way round: half the flow each way.
        let l = minimal_split_loads(&net, &[(0, 2)]).unwrap();
        let total: f64 = l.iter().sum();
        assert!(
            (total - 4.0).abs() < 1e-12,
            "injection, 2 x 1/2 x 2 hops, ejection: {total}"
        );
        assert!(l.iter().all(|&x| x == 0.0 || x == 0.5 || x == 1.0), "{l:?}");
        let e = minimal_split_loads(&net, &[(0, 9)])
            .unwrap_err()
            .to_string();
        assert!(e.contains("0..=3"), "{e}");
    }

    #[test]
    fn a_mesh_corner_to_corner_counts_the_binomial_paths() {
        // 3x3 mesh, corner to corner: 6 minimal paths, the centre switch on
        // 4 of them.
        let net = spec::build("mesh:3x3").unwrap();
        let l = minimal_split_loads(&net, &[(0, 8)]).unwrap();
        let centre = net.switches()[4];
        let into_centre: f64 = net
            .channels()
            .iter()
            .zip(&l)
            .filter(|(c, _)| c.dst == centre)
            .map(|(_, &x)| x)
            .sum();
        assert!((into_centre - 4.0 / 6.0).abs() < 1e-12, "{into_centre}");
    }

    #[test]
    fn agrees_with_every_path_listed() {
        // The multipath engine lists every minimal path and splits evenly.
        for topo in ["torus:4x4", "mesh:3x4", "kary-ntree:k=2,n=3", "hypercube:4"] {
            let net = spec::build(topo).unwrap();
            let r = routing::route(&net, "multipath", &RoutingOptions::default()).unwrap();
            let t = net.terminals().len();
            let flows: Vec<_> = (0..t).map(|s| (s, (s * 5 + 3) % t)).collect();
            let listed = channel_loads(&net, &r, &flows).unwrap().to_f64();
            let counted = minimal_split_loads(&net, &flows).unwrap();
            for (a, b) in listed.iter().zip(&counted) {
                assert!((a - b).abs() < 1e-9, "{topo}: {a} listed, {b} counted");
            }
        }
    }

    proptest! {
        #[test]
        fn each_flow_carries_its_length(k in 2u32..6, a in 0usize..64, b in 0usize..64) {
            // Every flow loads channels with its hop count in all, and the
            // ejection channel of its destination with exactly one.
            let net = spec::build(&format!("torus:{k}x{k}")).unwrap();
            let t = net.terminals().len();
            let (s, d) = (a % t, b % t);
            prop_assume!(s != d);
            let l = minimal_split_loads(&net, &[(s, d)]).unwrap();
            let hops = crate::network::metrics::bfs_distances(&net, net.terminal(s))
                [net.terminal(d).index()];
            let total: f64 = l.iter().sum();
            prop_assert!((total - f64::from(hops)).abs() < 1e-9);
            let eject: f64 = net.channels().iter().zip(&l)
                .filter(|(c, _)| c.dst == net.terminal(d)).map(|(_, &x)| x).sum();
            prop_assert!((eject - 1.0).abs() < 1e-12);
        }
    }
}
