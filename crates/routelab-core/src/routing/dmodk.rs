//! D-mod-k: deterministic fat-tree routing for k-ary n-trees, extended
//! generalized fat trees (XGFT) and folded Clos networks (Zahavi; Gomez et
//! al.), what OpenSM's `ftree` engine computes on pure trees.
//!
//! All three are seen as one XGFT(h; m_1..m_h; w_1..w_h) (see
//! [`crate::network::build::tree`] for labels and ports): a k-ary n-tree is
//! XGFT(n; k..k; 1, k..k), a Clos of P-port crossbars XGFT(2; P/2, leaves;
//! 1, P/2) whose last leaf may be partly populated, and a crossbar
//! XGFT(1; T; 1). Let `M_i = m_1 ⋯ m_i` and `W_i = w_1 ⋯ w_i`. A level-i
//! switch reaches the `M_i` consecutive terminals that share its digits
//! `a_h .. a_{i+1}`. For destination terminal `d` it
//! - goes down, if `d` is below it, through the port to its child with
//!   `a_i = ⌊d / M_{i-1}⌋ mod m_i` (the only way down to `d`);
//! - goes up otherwise, to its parent with
//!   `b_{i+1} = ⌊d / W_i⌋ mod w_{i+1}`.
//!
//! The parent chosen at each level depends on the destination only, so all
//! upward paths to `d` that turn at level `L` converge on the same level-L
//! switch (label `a_h .. a_{L+1}` of `d`, then the chosen `b_L .. b_1`), and
//! the way down from it is unique. On a full k-ary n-tree consecutive
//! destinations take consecutive up ports, so every up channel of a level
//! carries the same number of destinations and shift permutations meet no
//! contention. Paths go up to the nearest common ancestor level and down
//! again, so they are minimal, and up-then-down paths on a tree close no
//! dependency cycle: one lane.
//!
//! A terminal with several up links (`w_1 > 1`) injects through its first
//! one ([`Routes`] routes by destination only), so with such trees only the
//! `b_1 = 0` level-1 switches carry traffic. Networks without tree structure
//! get [`RoutingError::Unfit`].
//!
//! Trees with leaf switches (`terminals=T`, level 0 made of switches holding
//! any number of terminals each, terminal indices in leaf order) follow the
//! same rule with levels `0..=h` and `W_0 = 1`: a leaf sends destination
//! `d` up through its parent `b_1 = d mod w_1`, a level-i switch through
//! `b_{i+1} = ⌊d / W_i⌋ mod w_{i+1}`, and a switch above `d`'s leaf `ℓ` goes
//! down to the child with `a_i = ⌊ℓ / M_{i-1}⌋ mod m_i`, the leaf itself to
//! `d`'s port. A terminal's leaf and port are read off the cabling, so a
//! tree recognised from a fabric dump may hold any number on each leaf. Consecutive destinations, which share a leaf, so leave a
//! leaf through different up links.

use super::fabric::Fabric;
use super::{Routes, RoutingEngine, RoutingError, RoutingOptions};
use crate::network::build::tree::{
    xgft_down_port_copy, xgft_level_sizes, xgft_node_level_and_label, xgft_up_port,
};
use crate::network::{Network, PortId, Structure};
use rayon::prelude::*;

pub struct Dmodk;

pub fn engine(_: &RoutingOptions) -> Box<dyn RoutingEngine> {
    Box::new(Dmodk)
}

const NEEDS: &str = "a k-ary n-tree, XGFT or Clos network (the fat-tree structure of \
                     kary-ntree:, xgft: or clos: specs)";

impl RoutingEngine for Dmodk {
    fn name(&self) -> &'static str {
        "dmodk"
    }

    fn needs_structure(&self) -> bool {
        true
    }

    fn route(&self, net: &Network) -> Result<Routes, RoutingError> {
        let f = Fabric::new(net, self.name())?;
        let tree = Tree::of(net)?;
        let mut routes = Routes::new(net, self.name());
        let t = f.t;
        if t == 0 {
            return Ok(routes);
        }
        routes
            .table
            .par_chunks_mut(t)
            .enumerate()
            .for_each(|(x, row)| tree.fill(x as u32, row));
        // The tables follow the generator's port conventions; a network
        // edited after generation may not.
        for (x, &sw) in net.switches().iter().enumerate() {
            let row = routes.table(x);
            if let Some(&p) = row
                .iter()
                .find(|&&p| p != 0 && net.channel_at(sw, PortId(p)).is_none())
            {
                return Err(unfit(
                    net,
                    format!(
                        "a network that no longer follows its {} layout (port {p} of {} is not cabled)",
                        net.structure().family(),
                        net.label(sw)
                    ),
                ));
            }
        }
        Ok(routes)
    }
}

fn unfit(net: &Network, found: String) -> RoutingError {
    RoutingError::Unfit {
        engine: "dmodk",
        needs: NEEDS.to_string(),
        network: net.name().to_string(),
        found,
    }
}

/// A fat tree as XGFT parameters.
struct Tree {
    m: Vec<u32>,
    w: Vec<u32>,
    /// `t[i]`: cables between a level-(i+1) switch and each child.
    t: Vec<u32>,
    /// Terminals actually present (a Clos may leave its last leaf partly
    /// empty).
    terminals: u64,
    /// `mp[i] = M_i = m_1 ⋯ m_i`, `wp[i] = w_1 t_1 ⋯ w_i t_i` (up ports
    /// per level: `W_i` without trunks); `mp[0] = wp[0] = 1`.
    mp: Vec<u64>,
    wp: Vec<u64>,
    /// With leaf switches at level 0: the leaf of each terminal and the
    /// leaf's port to it.
    leaf_of: Option<Vec<(u64, u16)>>,
}

impl Tree {
    fn of(net: &Network) -> Result<Tree, RoutingError> {
        let t = net.terminals().len() as u64;
        let s = net.switches().len() as u64;
        let (m, w, leaf_terminals, trunks) = match net.structure() {
            Structure::Xgft {
                m,
                w,
                leaf_terminals,
                trunks,
                ..
            } => (m.clone(), w.clone(), *leaf_terminals, trunks.clone()),
            Structure::Clos {
                leaves,
                spines,
                hosts_per_leaf,
                ..
            } => (
                vec![*hosts_per_leaf, *leaves],
                vec![1, *spines],
                None,
                Vec::new(),
            ),
            Structure::Crossbar { terminals } => (vec![*terminals], vec![1], None, Vec::new()),
            other => {
                return Err(unfit(
                    net,
                    format!("{} network", other.family_with_article()),
                ));
            }
        };
        let bad = || {
            unfit(
                net,
                format!(
                    "{} whose switch and terminal counts do not match its parameters",
                    net.structure().family_with_article()
                ),
            )
        };
        let trunks = if trunks.is_empty() {
            vec![1; m.len()]
        } else {
            trunks
        };
        if m.is_empty()
            || m.len() != w.len()
            || trunks.len() != m.len()
            || m.iter().chain(&w).chain(&trunks).any(|&x| x == 0)
        {
            return Err(bad());
        }
        let sizes = xgft_level_sizes(&m, &w).ok_or_else(bad)?;
        let leaf_of = match leaf_terminals {
            Some(declared) => {
                let switches: u64 = sizes.iter().sum();
                if switches != s || t != u64::from(declared) {
                    return Err(bad());
                }
                // Each terminal's leaf and port, as cabled: generated
                // trees lay terminals out in blocks, fabrics recognised
                // from a dump keep their own counts per leaf.
                let leaf = |&h: &crate::network::NodeId| {
                    let c = Routes::injection(net, h)?;
                    let ch = net.channel(c);
                    let x = net.kind_index(ch.dst) as u64;
                    (x < sizes[0]).then_some((x, ch.dst_port.0))
                };
                Some(
                    net.terminals()
                        .iter()
                        .map(leaf)
                        .collect::<Option<Vec<(u64, u16)>>>()
                        .ok_or_else(|| {
                            unfit(net, "a tree with a terminal off its leaf switches".into())
                        })?,
                )
            }
            None => {
                let switches: u64 = sizes[1..].iter().sum();
                if switches != s || t > sizes[0] {
                    return Err(bad());
                }
                None
            }
        };
        let prefix = |v: &[u32]| -> Vec<u64> {
            let mut out = vec![1u64];
            for &x in v {
                let last = *out.last().unwrap_or(&1);
                out.push(last.saturating_mul(u64::from(x)));
            }
            out
        };
        let up_ports: Vec<u32> = w.iter().zip(&trunks).map(|(&w, &t)| w * t).collect();
        Ok(Tree {
            mp: prefix(&m),
            wp: prefix(&up_ports),
            m,
            w,
            t: trunks,
            terminals: t,
            leaf_of,
        })
    }

    /// The forwarding table of switch `x` (its index equals its node id in
    /// the tree numbering) towards every terminal.
    fn fill(&self, x: u32, row: &mut [u16]) {
        let leaves = self.leaf_of.is_some();
        let Some((level, label)) = xgft_node_level_and_label(&self.m, &self.w, leaves, x) else {
            return;
        };
        if let Some(leaf_of) = &self.leaf_of {
            self.fill_with_leaves(level as usize, &label, leaf_of, row);
            return;
        }
        let i = level as usize;
        // The a-digits above the level, as a number in radices m_{i+1}..m_h.
        let a = label[i..]
            .iter()
            .zip(&self.m[i..])
            .rev()
            .fold(0u64, |acc, (&digit, &radix)| {
                acc * u64::from(radix) + u64::from(digit)
            });
        let lo = a * self.mp[i];
        let hi = (lo + self.mp[i]).min(self.terminals);
        let (below, down_radix) = (self.mp[i - 1], u64::from(self.m[i - 1]));
        for (d, entry) in row.iter_mut().enumerate() {
            let d = d as u64;
            let port = if (lo..hi).contains(&d) {
                let a = ((d / below) % down_radix) as u32;
                xgft_down_port_copy(self.m[i - 1], a, self.down_copy(i, d))
            } else if i < self.m.len() {
                xgft_up_port(&self.m, &self.t, level, self.up_index(i, d))
            } else {
                // A top switch reaches every terminal; nothing else to do.
                continue;
            };
            *entry = port.0;
        }
    }

    /// The up port index (parent digit, then cable) a level-`i` node takes
    /// towards `d`: consecutive destinations, consecutive up ports.
    fn up_index(&self, i: usize, d: u64) -> u32 {
        let radix = u64::from(self.w[i]) * u64::from(self.t[i]);
        ((d / self.wp[i]) % radix) as u32
    }

    /// The cable a level-`i` switch takes down to its child towards `d`:
    /// the one the child takes up towards `d`, so each destination keeps one
    /// cable of a trunk both ways and a trunk's cables share the
    /// destinations.
    fn down_copy(&self, i: usize, d: u64) -> u32 {
        self.up_index(i - 1, d) / self.w[i - 1]
    }

    /// [`Tree::fill`] for trees with leaf switches: level `i` in `0..=h`.
    fn fill_with_leaves(&self, i: usize, label: &[u32], leaf_of: &[(u64, u16)], row: &mut [u16]) {
        // The a-digits above the level: the subtree of M_i leaves it tops.
        let a = label[i..]
            .iter()
            .zip(&self.m[i..])
            .rev()
            .fold(0u64, |acc, (&digit, &radix)| {
                acc * u64::from(radix) + u64::from(digit)
            });
        for (d, entry) in row.iter_mut().enumerate() {
            let (leaf, leaf_port) = leaf_of[d];
            let d = d as u64;
            let port = if leaf / self.mp[i] == a {
                if i == 0 {
                    PortId(leaf_port)
                } else {
                    let child = (leaf / self.mp[i - 1]) % u64::from(self.m[i - 1]);
                    xgft_down_port_copy(self.m[i - 1], child as u32, self.down_copy(i, d))
                }
            } else if i < self.m.len() {
                xgft_up_port(&self.m, &self.t, i as u32, self.up_index(i, d))
            } else {
                continue;
            };
            *entry = port.0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::network::build::tree::{
        xgft_down_port, xgft_leaf_terminal_port, xgft_terminal_leaf,
    };
    use crate::network::spec;

    #[test]
    fn leaf_tables_follow_the_rule() {
        // 4-ary 2-tree: 4 leaves (switches 0..4), 4 roots (4..8), 16 hosts.
        let net = spec::build("kary-ntree:k=4,n=2").unwrap();
        let r = Dmodk.route(&net).unwrap();
        // Leaf 1 holds hosts 4..8 on ports 1..=4; others go up to root
        // d mod 4 through port 5 + d mod 4.
        for d in 0..16usize {
            let expect = if (4..8).contains(&d) {
                d as u16 - 4 + 1
            } else {
                5 + (d as u16 % 4)
            };
            assert_eq!(r.port(1, d), Some(PortId(expect)), "d = {d}");
        }
        // Root switches go down to leaf d / 4.
        for d in 0..16usize {
            assert_eq!(r.port(6, d), Some(PortId(d as u16 / 4 + 1)));
        }
    }

    #[test]
    fn partial_clos_and_crossbar_route() {
        for s in ["clos:ports=8,hosts=10", "crossbar:5"] {
            let net = spec::build(s).unwrap();
            let r = Dmodk.route(&net).unwrap();
            assert!(r.is_minimal(&net).unwrap(), "{s}");
            assert!(r.deadlock_report(&net).unwrap().deadlock_free, "{s}");
        }
    }

    /// Trees with leaf switches: minimal, one lane, deadlock-free, whatever
    /// the terminals per leaf.
    #[test]
    fn leaf_switch_trees_are_minimal_and_deadlock_free() {
        for s in [
            "xgft:m=6,w=3,terminals=64",
            "xgft:m=3x2,w=2x2,terminals=13",
            "xgft:m=2x3x2,w=1x2x2,terminals=29",
            "xgft:m=4x4,w=2x2,terminals=5",
            "kary-ntree:k=6,n=2,terminals=64",
            "kary-ntree:k=4,n=3,terminals=70",
            "kary-ntree:k=3,n=3,terminals=100",
            "kary-ntree:k=2,n=4,terminals=8",
        ] {
            let net = spec::build(s).unwrap();
            let r = Dmodk.route(&net).unwrap();
            assert!(r.is_minimal(&net).unwrap(), "{s}");
            let rep = r.deadlock_report(&net).unwrap();
            assert!(rep.deadlock_free, "{s}: {rep}");
            assert_eq!(r.lanes(), 1, "{s}");
        }
    }

    /// A leaf sends destination d up through parent d mod w_1 and its own
    /// terminals down their ports; the level above picks d / w_1 mod w_2.
    /// On trunked trees every cable carries its share of the destinations
    /// whose paths pass: per switch, its up cables within one destination
    /// of each other, and so the cables of each trunk down.
    #[test]
    fn trunked_trees_balance_over_parallel_cables() {
        use std::collections::{BTreeMap, BTreeSet};
        for s in [
            "xgft:m=4x4,w=2x2,terminals=64,trunks=2x2",
            "xgft:m=6,w=3,terminals=36,trunks=4",
            "xgft:m=3x4,w=2x2,terminals=48,trunks=1x3",
        ] {
            let net = spec::build(s).unwrap();
            let r = Dmodk.route(&net).unwrap();
            assert!(r.is_minimal(&net).unwrap(), "{s}");
            let rep = r.deadlock_report(&net).unwrap();
            assert!(rep.deadlock_free && r.lanes() == 1, "{s}: {rep}");
            let t = net.terminals().len();
            // Per channel, the destinations whose paths use it.
            let mut dests = vec![BTreeSet::new(); net.channel_count()];
            for src in 0..t {
                for dst in (0..t).filter(|&d| d != src) {
                    for c in r.path_lanes(&net, src, dst).unwrap().0 {
                        dests[c.index()].insert(dst);
                    }
                }
            }
            for &sw in net.switches() {
                let mut groups = BTreeMap::<(bool, u32), Vec<usize>>::new();
                for &c in net.out_channels(sw) {
                    let ch = net.channel(c);
                    if net.is_switch(ch.dst) {
                        let up = ch.dst.0 > sw.0;
                        let key = (up, if up { 0 } else { ch.dst.0 });
                        groups.entry(key).or_default().push(dests[c.index()].len());
                    }
                }
                for ((up, _), n) in groups {
                    let (lo, hi) = (n.iter().min().unwrap(), n.iter().max().unwrap());
                    assert!(
                        hi - lo <= 1 && *hi > 0,
                        "{s}: {} up {up}: {n:?}",
                        net.label(sw)
                    );
                }
            }
        }
    }

    #[test]
    fn leaf_switch_tables_follow_the_rule() {
        // XGFT(2; 3,2; 2,2) with 13 terminals: 6 leaves holding 3,2,2,2,2,2.
        let (m, w) = ([3u32, 2], [2u32, 2]);
        let net = spec::build("xgft:m=3x2,w=2x2,terminals=13").unwrap();
        let r = Dmodk.route(&net).unwrap();
        for d in 0..13usize {
            let (leaf, slot) = xgft_terminal_leaf(6, 13, d as u64).unwrap();
            for x in 0..6usize {
                let expect = if x as u64 == leaf {
                    xgft_leaf_terminal_port(&w, &[], slot as u32)
                } else {
                    xgft_up_port(&m, &[], 0, (d % 2) as u32)
                };
                assert_eq!(r.port(x, d), Some(expect), "leaf {x} d {d}");
            }
            // Level-1 switches 6..10: label (a_2, b_1); down to a_1 of the
            // leaf when a_2 matches, else up to b_2 = (d / 2) mod 2.
            for x in 6..10usize {
                let (level, label) = xgft_node_level_and_label(&m, &w, true, x as u32).unwrap();
                assert_eq!(level, 1);
                let expect = if u64::from(label[1]) == leaf / 3 {
                    xgft_down_port((leaf % 3) as u32)
                } else {
                    xgft_up_port(&m, &[], 1, ((d / 2) % 2) as u32)
                };
                assert_eq!(r.port(x, d), Some(expect), "switch {x} d {d}");
            }
        }
    }

    #[test]
    fn non_trees_are_unfit() {
        let net = spec::build("torus:4x4").unwrap();
        let e = Dmodk.route(&net).unwrap_err();
        assert!(matches!(e, RoutingError::Unfit { .. }), "{e}");
        let text = e.to_string();
        assert!(
            text.contains("k-ary n-tree, XGFT or Clos") && text.contains("torus"),
            "{text}"
        );
    }
}
