//! Adaptive routing on fat trees and Clos networks, `ft-adaptive`: each
//! switch picks a packet's up port per packet by its local occupancy, as
//! InfiniBand adaptive routing and Slingshot do, and goes down the way
//! the tree leads (beside the `dmodk` and `ftree` tables, which fix one up
//! port per destination).
//!
//! The network is read as a fat tree by its ranks ([`fat_tree_ranks`]:
//! generated trees, Clos networks, and dumps of them alike). A packet whose
//! destination leaf is not below the switch it is at may take any up port
//! (to a switch one rank nearer the roots); once it is below, any down port
//! towards a child that has the leaf below it (one in an XGFT, several in a
//! trunked or irregular tree). The switch picks among the candidates by
//! its selection policy (by default the most free credits); the up ports
//! are offered starting from the port D-mod-k would take (`target mod
//! ups`), so that ties, and a network at rest, spread destinations as
//! D-mod-k does. Links within a rank are not used.
//!
//! Every route climbs to a least common ancestor and descends: minimal in
//! a fat tree, and deadlock-free on one VC, since no hop down is ever
//! followed by one up (the channel dependencies go from up channels by
//! decreasing rank to down channels by increasing rank). Every VC is
//! offered.

use super::{
    AnyRouter, BuildRouter, Candidate, Candidates, Header, Here, HopRouter, LocalView, RouterCtx,
    RouterOptions,
};
use crate::network::metrics::fat_tree::fat_tree_ranks;
use crate::network::{ChannelId, Network, PortId};
use crate::routing::RoutingError;

/// Per-packet adaptive up-port routing on a fat tree. See the module docs.
pub struct FatTreeRouter {
    /// Per switch, its ports to switches one rank nearer the roots.
    up: Vec<Vec<PortId>>,
    /// Per switch, its ports to switches one rank further, with the child.
    down: Vec<Vec<(PortId, u32)>>,
    /// Per switch, the leaves below it (including itself), as a bit set
    /// of `words` words.
    below: Vec<u64>,
    words: usize,
    /// Per switch, its leaf number (`u32::MAX` for a non-leaf).
    leaf: Vec<u32>,
    /// The switch index and ejection port of each terminal.
    terminal: Vec<(u32, PortId)>,
}

/// The most bits the leaf sets may take in all (128 MiB).
const MAX_BITS: u64 = 1 << 30;

impl BuildRouter for FatTreeRouter {
    fn build(net: &Network, opts: &RouterOptions) -> Result<AnyRouter, RoutingError> {
        opts.only(&[])?;
        Ok(AnyRouter::FtAdaptive(FatTreeRouter::new(net)?))
    }
}

impl FatTreeRouter {
    pub fn new(net: &Network) -> Result<Self, RoutingError> {
        let unfit = |found: String| RoutingError::Unfit {
            engine: "ft-adaptive",
            needs: "a fat tree: terminals on the deepest rank, switch links between adjacent ranks"
                .into(),
            network: net.name().to_string(),
            found,
        };
        let ranks = fat_tree_ranks(net, &[]).map_err(unfit)?;
        let n = net.switches().len();
        let mut up = vec![Vec::new(); n];
        let mut down = vec![Vec::new(); n];
        for (x, &node) in net.switches().iter().enumerate() {
            for &c in net.out_channels(node) {
                let ch = net.channel(c);
                if !net.is_switch(ch.dst) {
                    continue;
                }
                let y = net.kind_index(ch.dst);
                let (rx, ry) = (ranks.rank[x], ranks.rank[y]);
                if ry.wrapping_add(1) == rx {
                    up[x].push(ch.src_port);
                } else if rx.wrapping_add(1) == ry {
                    down[x].push((ch.src_port, y as u32));
                }
            }
        }
        let mut leaf = vec![u32::MAX; n];
        let mut leaves = 0u32;
        for x in (0..n).filter(|&x| ranks.rank[x] == ranks.leaf_rank) {
            leaf[x] = leaves;
            leaves += 1;
        }
        let words = (leaves as usize).div_ceil(64);
        if n as u64 * words as u64 * 64 > MAX_BITS {
            return Err(unfit(format!(
                "{n} switches and {leaves} leaves: more than {MAX_BITS} bits of leaf sets"
            )));
        }
        // Leaves first, then each rank from the leaves up: a switch's set
        // is the union of its children's.
        let mut below = vec![0u64; n * words];
        let mut order: Vec<usize> = (0..n).filter(|&x| ranks.rank[x] != u32::MAX).collect();
        order.sort_by_key(|&x| std::cmp::Reverse(ranks.rank[x]));
        for x in order {
            if leaf[x] != u32::MAX {
                below[x * words + leaf[x] as usize / 64] |= 1 << (leaf[x] % 64);
            }
            for &(_, c) in &down[x] {
                let c = c as usize;
                for w in 0..words {
                    below[x * words + w] |= below[c * words + w];
                }
            }
        }
        let terminal = super::terminal_attachments(net).map_err(unfit)?;
        Ok(FatTreeRouter {
            up,
            down,
            below,
            words,
            leaf,
            terminal,
        })
    }

    /// Whether leaf number `l` is below switch `x`.
    #[inline]
    fn is_below(&self, x: u32, l: u32) -> bool {
        self.below[x as usize * self.words + l as usize / 64] >> (l % 64) & 1 == 1
    }
}

impl HopRouter for FatTreeRouter {
    fn name(&self) -> &str {
        "ft-adaptive"
    }

    fn vcs_needed(&self) -> u8 {
        1
    }

    fn reads_view(&self) -> bool {
        // The switch picks among the candidates; the router reads nothing.
        false
    }

    fn fixed_candidates(&self) -> bool {
        // `route` reads the header and the switch alone.
        true
    }

    #[inline]
    fn route(
        &self,
        hdr: &Header,
        here: &Here,
        _view: &dyn LocalView,
        _ctx: &mut RouterCtx,
        out: &mut Candidates,
    ) {
        let x = here.switch_index;
        let (d, eject) = self.terminal[hdr.target as usize];
        let push = |port: PortId, out: &mut Candidates| {
            for v in 0..here.vcs {
                out.push(port, v);
            }
        };
        if x == d {
            push(eject, out);
            return;
        }
        let l = self.leaf[d as usize];
        if self.is_below(x, l) {
            for &(port, child) in &self.down[x as usize] {
                if self.is_below(child, l) {
                    push(port, out);
                }
            }
        } else {
            let ups = &self.up[x as usize];
            let start = hdr.target as usize % ups.len().max(1);
            for i in 0..ups.len() {
                push(ups[(start + i) % ups.len()], out);
            }
        }
    }

    #[inline]
    fn forwarded(
        &self,
        _hdr: &mut Header,
        _here: &Here,
        _chosen: Candidate,
        _channel: ChannelId,
        _ctx: &mut RouterCtx,
    ) {
    }
}

#[cfg(test)]
mod tests {
    use super::super::torus_geometry::test_view::FixedView;
    use super::*;
    use crate::network::metrics::bfs_distances;
    use crate::network::spec;

    /// Every branch of every route: minimal, and the dependencies acyclic
    /// on one VC.
    fn walk(topology: &str) -> (usize, bool) {
        let net = spec::build(topology).unwrap();
        let r = FatTreeRouter::new(&net).unwrap();
        let t = net.terminals().len() as u32;
        let headers = (0..t).flat_map(|src| {
            (0..t).filter(move |&d| d != src).map(move |dst| Header {
                src,
                dst,
                origin: src,
                target: dst,
                flits: 1,
                ..Header::default()
            })
        });
        let view = |_: u32, _: &Header| FixedView::empty(64);
        // Each hop leaves one switch hop fewer to the destination's switch.
        let dist: Vec<Vec<u32>> = net
            .switches()
            .iter()
            .map(|&s| bfs_distances(&net, s))
            .collect();
        let mut check = |step: &crate::routing::adaptive::Step| {
            let d = net.switches()[r.terminal[step.hdr.target as usize].0 as usize];
            if net.is_switch(step.next) {
                let here = dist[step.switch as usize][d.index()];
                let next = dist[net.kind_index(step.next)][d.index()];
                assert_eq!(next + 1, here, "{topology}: a hop that is not minimal");
            }
        };
        crate::routing::adaptive::walk_every_branch(&net, &r, 1, headers, &view, &mut check)
    }

    #[test]
    fn every_route_is_minimal_and_deadlock_free_on_one_vc() {
        assert_eq!(walk("kary-ntree:k=2,n=3"), (4, false));
        assert_eq!(walk("xgft:m=3x2,w=2x2,terminals=12"), (4, false));
        assert_eq!(walk("clos:ports=8,hosts=16"), (2, false));
        // Trunked: several cables to one parent, all offered.
        assert!(!walk("xgft:m=2x2,w=2x2,terminals=8,trunks=1x2").1);
    }

    #[test]
    fn up_ports_start_where_d_mod_k_would_go() {
        let net = spec::build("kary-ntree:k=4,n=2").unwrap();
        let r = FatTreeRouter::new(&net).unwrap();
        let leaf = 0u32;
        let here = Here {
            switch: net.switches()[leaf as usize],
            switch_index: leaf,
            in_port: PortId(1),
            in_vc: 0,
            vcs: 1,
            now_ps: 0,
        };
        let mut rng = crate::rng::stream(1, "t");
        let mut counters = vec![];
        for target in [5u32, 6, 7, 13] {
            let hdr = Header {
                target,
                ..Header::default()
            };
            let mut out = Candidates::default();
            let mut ctx = RouterCtx::new(&mut rng, &mut counters);
            r.route(&hdr, &here, &FixedView::empty(16), &mut ctx, &mut out);
            assert_eq!(out.len(), 4);
            let ups = &r.up[0];
            assert_eq!(out.as_slice()[0].port, ups[target as usize % 4]);
        }
    }

    #[test]
    fn a_network_that_is_not_a_tree_is_refused_by_name() {
        let net = spec::build("torus:4x4").unwrap();
        let e = FatTreeRouter::new(&net).err().unwrap().to_string();
        assert!(e.contains("ft-adaptive") && e.contains("fat tree"), "{e}");
    }
}
