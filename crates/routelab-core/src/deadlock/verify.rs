//! Deadlock verification: is the channel dependency graph of a set of paths
//! acyclic (Dally and Seitz's sufficient condition), and if not, which cycle
//! proves it?

use super::cycles::{describe_cycle, find_cycle};
use super::{Cdg, DeadlockError, LaneChannel, PathRef};
use crate::network::Network;

/// A dependency cycle: its channels in order, and the same in words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cycle {
    pub hops: Vec<LaneChannel>,
    /// E.g. `"s0 port 1 -> s1 port 2 (lane 0); s1 port 1 -> ...; back to the first"`.
    pub text: String,
}

/// The outcome of a deadlock check.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeadlockReport {
    /// No cycle in the channel dependency graph.
    pub deadlock_free: bool,
    /// The number of lanes the paths need (the highest lane used plus one;
    /// 0 when there are no paths).
    pub lanes_used: u8,
    /// Paths and distinct dependencies examined.
    pub paths: usize,
    pub dependencies: usize,
    /// A cycle proving a possible deadlock, when there is one.
    pub cycle: Option<Cycle>,
}

impl std::fmt::Display for DeadlockReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.cycle {
            None => write!(
                f,
                "deadlock-free on {} lane(s): {} paths, {} dependencies, no cycle",
                self.lanes_used, self.paths, self.dependencies
            ),
            Some(c) => write!(
                f,
                "may deadlock: cycle of {} channels: {}",
                c.hops.len(),
                c.text
            ),
        }
    }
}

/// Checks a set of paths for deadlock freedom.
pub fn verify<'a>(
    net: &Network,
    paths: impl IntoIterator<Item = PathRef<'a>>,
) -> Result<DeadlockReport, DeadlockError> {
    let cdg = Cdg::build(net, paths)?;
    Ok(verify_cdg(net, &cdg))
}

/// Checks a channel dependency graph already built.
pub fn verify_cdg(net: &Network, cdg: &Cdg) -> DeadlockReport {
    let cycle = find_cycle(cdg).map(|hops| Cycle {
        text: describe_cycle(net, &hops),
        hops,
    });
    DeadlockReport {
        deadlock_free: cycle.is_none(),
        lanes_used: if cdg.path_count() == 0 {
            0
        } else {
            cdg.lanes()
        },
        paths: cdg.path_count(),
        dependencies: cdg.edge_count(),
        cycle,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::deadlock::{PathLanes, PathList};
    use crate::network::build::torus;
    use crate::network::{ChannelId, NodeId};

    /// Channels going once around dimension 0 of a ring, `len` hops from `s`.
    fn ring_path(net: &Network, s: u32, len: usize, k: u32) -> Vec<ChannelId> {
        let mut out = vec![];
        let mut x = s;
        for _ in 0..len {
            out.push(net.channel_at(NodeId(x), torus::dim_port(0, true)).unwrap());
            x = (x + 1) % k;
        }
        out
    }

    #[test]
    fn ring_with_overlapping_paths_is_cyclic() {
        let net = torus::torus(&[4], 1).unwrap();
        let mut paths = PathList::new();
        for s in 0..4 {
            paths.push(&ring_path(&net, s, 2, 4));
        }
        let r = verify(&net, paths.iter().map(|p| PathRef::uniform(p, 0))).unwrap();
        assert!(!r.deadlock_free);
        let c = r.cycle.unwrap();
        assert_eq!(c.hops.len(), 4);
        assert!(
            c.text.contains("s0 port 1 -> s1 port 2 (lane 0)"),
            "{}",
            c.text
        );
        // On two lanes with a dateline at the wraparound link, no cycle.
        let lanes: Vec<Vec<u8>> = (0..4u32)
            .map(|s| (0..2u32).map(|h| u8::from(s + h > 3)).collect())
            .collect();
        let r = verify(
            &net,
            paths
                .iter()
                .zip(&lanes)
                .map(|(p, l)| PathRef::per_hop(p, l)),
        )
        .unwrap();
        assert!(r.deadlock_free, "{r}");
        assert_eq!(r.lanes_used, 2);
    }

    #[test]
    fn broken_and_forwarding_paths_are_rejected() {
        let net = torus::torus(&[4], 1).unwrap();
        let a = net.channel_at(NodeId(0), torus::dim_port(0, true)).unwrap();
        let b = net.channel_at(NodeId(2), torus::dim_port(0, true)).unwrap();
        let e = verify(&net, [PathRef::uniform(&[a, b], 0)]).unwrap_err();
        assert!(matches!(e, DeadlockError::BrokenPath { hop: 1, .. }), "{e}");
        // s0 -> h0 -> s0: an in-transit host, no dependency across it.
        let h0 = net.terminal(0);
        let down = net.channel_at(NodeId(0), crate::PortId(3)).unwrap();
        assert_eq!(net.channel(down).dst, h0);
        let r = verify(&net, [PathRef::uniform(&[a, down, down.reverse(), a], 0)]);
        assert!(r.is_err(), "a -> s1 does not lead to h0");
        let back = a.reverse();
        let r = verify(
            &net,
            [PathRef::uniform(&[back, down, down.reverse(), a], 0)],
        )
        .unwrap();
        assert!(r.deadlock_free);
        assert_eq!(r.dependencies, 0, "nothing crosses the in-transit host");
        let e = verify(
            &net,
            [PathRef {
                channels: &[a],
                lanes: PathLanes::PerHop(&[0, 1]),
            }],
        )
        .unwrap_err();
        assert!(matches!(e, DeadlockError::LaneCount { .. }));
        let e = verify(&net, [PathRef::uniform(&[a], 16)]).unwrap_err();
        assert!(e.to_string().contains("0..=15"), "{e}");
    }
}
