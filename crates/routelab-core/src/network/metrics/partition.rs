//! Two-way partitions of a network and what they cost in cut cables.
//!
//! Bisection works on *units*: every switch, plus every node that is not a
//! terminal on a single cable to a switch. Such a terminal is absorbed into
//! its switch: with the switches placed, the cheapest balanced placement of
//! absorbed terminals leaves each with its switch except as many as the
//! balance needs, each of which cuts its one cable. So a partition of units
//! costs its cut plus its terminal imbalance, and the search space shrinks
//! to the switches.

use super::weighted::Weighted;
use crate::network::{Network, NodeId};

pub(crate) struct Units {
    /// Units as vertices, terminals as weights, cables between units as edges.
    pub graph: Weighted,
    /// The unit of each node.
    pub unit_of: Vec<u32>,
    /// The node standing for each unit (the switch, or the node itself).
    pub node_of: Vec<NodeId>,
}

/// Is `v` a terminal on one cable to a switch?
fn absorbed(net: &Network, v: NodeId) -> bool {
    net.is_terminal(v) && net.degree(v) == 1 && net.neighbors(v).all(|s| net.is_switch(s))
}

impl Units {
    pub fn new(net: &Network) -> Self {
        let switches = net.switches().len();
        let mut unit_of = vec![0u32; net.node_count()];
        let mut node_of: Vec<NodeId> = net.switches().to_vec();
        let mut weight = vec![0u64; switches];
        let mut absorbs = false;
        for v in net.node_ids() {
            if net.is_switch(v) {
                unit_of[v.index()] = net.kind_index(v) as u32;
            } else if absorbed(net, v) {
                let s = net.neighbors(v).next().unwrap_or(v);
                unit_of[v.index()] = net.kind_index(s) as u32;
                weight[net.kind_index(s)] += 1;
                absorbs = true;
            } else {
                unit_of[v.index()] = node_of.len() as u32;
                node_of.push(v);
                weight.push(1);
            }
        }
        let edges = || {
            net.channels().chunks(2).filter_map(|c| {
                let (a, b) = (unit_of[c[0].src.index()], unit_of[c[0].dst.index()]);
                (a != b).then_some((a, b, 1))
            })
        };
        let graph = Weighted::new(weight, edges, net.terminals().len() as u64, absorbs);
        Units {
            graph,
            unit_of,
            node_of,
        }
    }

    pub fn len(&self) -> usize {
        self.node_of.len()
    }

    /// Unit sides from node sides (a unit goes where its node is).
    pub fn unit_sides(&self, side: &[bool]) -> Vec<bool> {
        self.node_of.iter().map(|v| side[v.index()]).collect()
    }

    /// A balanced partition of all nodes from unit sides, and its width as
    /// counted on the cables. Absorbed terminals follow their switch except
    /// those moved to balance; other terminals move only when no absorbed
    /// one is left to move. The `true` side ends with `floor(T/2)` terminals.
    pub fn realise(&self, net: &Network, units: &[bool]) -> (u64, Vec<bool>) {
        let mut side: Vec<bool> = self.unit_of.iter().map(|&u| units[u as usize]).collect();
        let w = net.terminals().iter().filter(|t| side[t.index()]).count() as u64;
        let (lo, hi) = (self.graph.half(), self.graph.total - self.graph.half());
        let target = if w <= lo { lo } else { hi.min(w) };
        let mut surplus = w.abs_diff(target);
        // Move from the heavier (`true` when above target) side.
        let from = w > target;
        for pass_absorbed in [true, false] {
            for &t in net.terminals().iter().rev() {
                if surplus == 0 {
                    break;
                }
                if side[t.index()] == from && absorbed(net, t) == pass_absorbed {
                    side[t.index()] = !from;
                    surplus -= 1;
                }
            }
        }
        if target != lo {
            side.iter_mut().for_each(|s| *s = !*s);
        }
        (cut_width(net, &side), side)
    }
}

/// Cables with their two ends on different sides.
pub(crate) fn cut_width(net: &Network, side: &[bool]) -> u64 {
    net.channels()
        .chunks(2)
        .filter(|c| side[c[0].src.index()] != side[c[0].dst.index()])
        .count() as u64
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::network::build::{torus, xgft};

    #[test]
    fn terminals_are_absorbed_and_balanced() {
        let net = torus(&[4], 3).unwrap();
        let u = Units::new(&net);
        assert_eq!(u.len(), 4);
        assert_eq!(u.graph.weight, vec![3; 4]);
        assert_eq!(
            u.graph.neighbors(0).collect::<Vec<_>>(),
            vec![(1, 1), (3, 1)]
        );
        // Switches 0 and 1 on the true side: balanced, 2 ring cables cut.
        let (w, side) = u.realise(&net, &[true, true, false, false]);
        assert_eq!(w, 2);
        assert_eq!(side.iter().filter(|&&s| s).count(), 2 + 6);
        // Everything on one side: six terminal cables cut.
        let (w, side) = u.realise(&net, &[true; 4]);
        assert_eq!(w, 6);
        let t = net.terminals().iter().filter(|t| side[t.index()]).count();
        assert_eq!(t, 6);
        assert_eq!(u.graph.imbalance(0), 6);
        assert_eq!(u.graph.imbalance(7), 1);
    }

    #[test]
    fn multi_homed_terminals_are_units() {
        let net = xgft(&[2], &[2]).unwrap();
        let u = Units::new(&net);
        assert_eq!(u.len(), 4);
        assert!(!u.graph.absorbs);
        assert_eq!(u.graph.neighbors(0).count(), 2);
        let (w, side) = u.realise(&net, &[true, false, true, false]);
        assert_eq!(w, 2);
        assert_eq!(cut_width(&net, &side), 2);
    }
}
