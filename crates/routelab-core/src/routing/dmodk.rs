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

use super::fabric::Fabric;
use super::{Routes, RoutingEngine, RoutingError, RoutingOptions};
use crate::network::build::tree::{
    xgft_down_port, xgft_level_and_label, xgft_level_sizes, xgft_up_port,
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
                        net.node(sw).name
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
    /// Terminals actually present (a Clos may leave its last leaf partly
    /// empty).
    terminals: u64,
    /// `mp[i] = M_i = m_1 ⋯ m_i`, `wp[i] = W_i`; `mp[0] = wp[0] = 1`.
    mp: Vec<u64>,
    wp: Vec<u64>,
}

impl Tree {
    fn of(net: &Network) -> Result<Tree, RoutingError> {
        let t = net.terminals().len() as u64;
        let s = net.switches().len() as u64;
        let (m, w) = match net.structure() {
            Structure::Xgft { m, w, .. } => (m.clone(), w.clone()),
            Structure::Clos {
                leaves,
                spines,
                hosts_per_leaf,
                ..
            } => (vec![*hosts_per_leaf, *leaves], vec![1, *spines]),
            Structure::Crossbar { terminals } => (vec![*terminals], vec![1]),
            other => {
                let family = other.family();
                let article = if family.starts_with(['a', 'e', 'i', 'o', 'u']) {
                    "an"
                } else {
                    "a"
                };
                return Err(unfit(net, format!("{article} {family} network")));
            }
        };
        let bad = || {
            unfit(
                net,
                format!(
                    "a {} whose switch and terminal counts do not match its parameters",
                    net.structure().family()
                ),
            )
        };
        if m.is_empty() || m.len() != w.len() || m.iter().chain(&w).any(|&x| x == 0) {
            return Err(bad());
        }
        let sizes = xgft_level_sizes(&m, &w).ok_or_else(bad)?;
        let switches: u64 = sizes[1..].iter().sum();
        if switches != s || t > sizes[0] {
            return Err(bad());
        }
        let prefix = |v: &[u32]| -> Vec<u64> {
            let mut out = vec![1u64];
            for &x in v {
                let last = *out.last().unwrap_or(&1);
                out.push(last.saturating_mul(u64::from(x)));
            }
            out
        };
        Ok(Tree {
            mp: prefix(&m),
            wp: prefix(&w),
            m,
            w,
            terminals: t,
        })
    }

    /// The forwarding table of switch `x` (its index equals its node id in
    /// the tree numbering) towards every terminal.
    fn fill(&self, x: u32, row: &mut [u16]) {
        let Some((level, label)) = xgft_level_and_label(&self.m, &self.w, x) else {
            return;
        };
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
                xgft_down_port(((d / below) % down_radix) as u32)
            } else if i < self.m.len() {
                let b = (d / self.wp[i]) % u64::from(self.w[i]);
                xgft_up_port(&self.m, level, b as u32)
            } else {
                // A top switch reaches every terminal; nothing else to do.
                continue;
            };
            *entry = port.0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
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
