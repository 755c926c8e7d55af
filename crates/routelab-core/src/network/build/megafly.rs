//! Megafly, or Dragonfly+ (Shpiner, Haramaty, Eliad, Zdornov, Gafni &
//! Zahavi 2017; Flajslik, Borch & Parker 2018): a dragonfly whose groups
//! are two-level fat trees. A group has `a` leaves and `a` spines, every
//! leaf cabled to every spine; each leaf holds `p` terminals, each spine
//! `h` global links; `a*h + 1` groups, one global link between every two.
//! Balanced when `p = h = a` (leaves and spines of radix `2a`).
//!
//! The spines of a group lay out their `a*h` global links as a dragonfly's
//! routers do ([`super::dragonfly::global_peer`]): link `j = s*h + k` is
//! spine `s`'s `k`-th global port, in the absolute, relative or circulant
//! arrangement.
//!
//! Numbering: group `G`'s leaf `l` is switch `2aG + l`, its spine `s`
//! switch `2aG + a + s`; then terminals, terminal `i` on leaf `i / p`
//! (the `(i / p) mod a`-th leaf of group `i / (a p)`). Ports, fabric
//! first: a leaf reaches spine `s` on port `s + 1` and holds its terminals
//! on ports `a + 1 ..= a + p`; a spine reaches leaf `l` on port `l + 1`
//! and holds its `k`-th global link on port `a + 1 + k`. Global links are
//! channel class `global`, leaf-spine cables `switch`.

use crate::network::builder::GLOBAL_LINK;
use crate::network::spec::Family;
use crate::network::{
    GlobalArrangement, Network, NetworkBuilder, NodeId, PortId, Structure, TopologyError,
};

use super::bad_param;
use super::dragonfly::global_link;

/// The largest Megafly the generator builds, in switches.
const MAX_SWITCHES: u64 = 1 << 20;
/// The largest network, in switches plus terminals.
const MAX_NODES: u64 = 1 << 22;

pub const MEGAFLY: Family = Family {
    name: "megafly",
    usage: "megafly:a=4,p=4,h=4  (a leaves and a spines per group, every leaf on every spine; \
            p terminals per leaf, h global links per spine; a*h+1 groups; \
            arrangement=absolute|relative|circulant, default absolute)",
    keys: &["a", "p", "h", "arrangement"],
    positional: None,
    generate: |args| {
        let max = u32::from(u16::MAX);
        let a = args.u32("a", None, 1, max)?;
        let p = args.u32("p", None, 0, max)?;
        let h = args.u32("h", None, 1, max)?;
        let arr = args.choice("arrangement", &GlobalArrangement::NAMES)?;
        let arr = GlobalArrangement::from_name(arr).unwrap_or_default();
        megafly(a, p, h, arr)
    },
};

/// A Megafly of `a*h + 1` groups of `a` leaves (with `p` terminals each)
/// and `a` spines (with `h` global links each).
pub fn megafly(a: u32, p: u32, h: u32, arr: GlobalArrangement) -> Result<Network, TopologyError> {
    super::dragonfly::check_arrangement("megafly", arr)?;
    let max = u64::from(u16::MAX);
    if a == 0 || u64::from(a) + u64::from(h) > max {
        return Err(bad_param(
            "megafly",
            "a",
            a,
            format!(
                "an integer in 1..={} (a + h spine ports)",
                max - u64::from(h)
            ),
        ));
    }
    if h == 0 {
        return Err(bad_param(
            "megafly",
            "h",
            h,
            format!("an integer in 1..={max}"),
        ));
    }
    let groups = u64::from(a) * u64::from(h) + 1;
    let switches = groups * 2 * u64::from(a);
    if switches > MAX_SWITCHES {
        return Err(TopologyError::impossible(format!(
            "megafly: a = {a}, h = {h} gives 2a(a*h+1) = {switches} switches, more than \
             {MAX_SWITCHES}; lower a or h"
        )));
    }
    let leaves = groups * u64::from(a);
    let most_p = ((MAX_NODES - switches) / leaves).min(max - u64::from(a));
    if u64::from(p) > most_p {
        return Err(bad_param(
            "megafly",
            "p",
            p,
            format!("an integer in 0..={most_p} ({MAX_NODES} nodes in all, a + p leaf ports)"),
        ));
    }
    let name = if arr.is_absolute() {
        format!("megafly:a={a},p={p},h={h}")
    } else {
        format!("megafly:a={a},p={p},h={h},arrangement={}", arr.name())
    };
    crate::network::builder::check_ports(
        &name,
        switches + leaves * u64::from(p),
        leaves * (u64::from(a) + 2 * u64::from(p)) + leaves * u64::from(a + h),
    )?;
    let (groups, switches) = (groups as u32, switches as u32);
    let (mut b, sw_class, t_class) = NetworkBuilder::with_default_classes(name);
    let global_class = b.add_class_like(GLOBAL_LINK, sw_class);
    for s in 0..switches {
        let (g, r) = (s / (2 * a), s % (2 * a));
        if r < a {
            b.add_switch(format!("g{g}l{r}"), (a + p) as u16);
        } else {
            b.add_switch(format!("g{g}s{}", r - a), (a + h) as u16);
        }
    }
    let leaf = |g: u32, l: u32| NodeId(2 * a * g + l);
    let spine = |g: u32, s: u32| NodeId(2 * a * g + a + s);
    for g in 0..groups {
        for l in 0..a {
            for s in 0..a {
                b.connect(
                    leaf(g, l),
                    PortId(s as u16 + 1),
                    spine(g, s),
                    PortId(l as u16 + 1),
                    sw_class,
                )?;
            }
        }
    }
    for g in 0..groups {
        for t in g + 1..groups {
            let j = global_link(arr, groups, g, t);
            let k = global_link(arr, groups, t, g);
            b.connect(
                spine(g, j / h),
                PortId((a + 1 + j % h) as u16),
                spine(t, k / h),
                PortId((a + 1 + k % h) as u16),
                global_class,
            )?;
        }
    }
    for i in 0..groups * a * p {
        let (l, slot) = (i / p, i % p);
        let t = b.add_terminal(format!("h{i}"), 1);
        b.connect(
            leaf(l / a, l % a),
            PortId((a + 1 + slot) as u16),
            t,
            PortId(1),
            t_class,
        )?;
    }
    b.set_structure(Structure::Megafly {
        a,
        p,
        h,
        groups,
        arrangement: arr,
    });
    b.build()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::network::metrics::{bfs_distances, is_connected};

    #[test]
    fn groups_are_complete_bipartite_and_every_two_groups_share_one_link() {
        for arr in [GlobalArrangement::Absolute, GlobalArrangement::Circulant] {
            let (a, p, h) = (3, 2, 2);
            let net = megafly(a, p, h, arr).unwrap();
            let g = a * h + 1;
            assert_eq!(net.switches().len() as u32, 2 * a * g);
            assert_eq!(net.terminals().len() as u32, a * g * p);
            assert!(is_connected(&net));
            let group = |s: NodeId| s.0 / (2 * a);
            let is_leaf = |s: NodeId| s.0 % (2 * a) < a;
            let mut pair = vec![0u32; (g * g) as usize];
            for &s in net.switches() {
                let switches: Vec<NodeId> =
                    net.neighbors(s).filter(|&n| net.is_switch(n)).collect();
                let local = switches.iter().filter(|&&n| group(n) == group(s));
                assert!(local.clone().all(|&n| is_leaf(n) != is_leaf(s)));
                assert_eq!(local.count() as u32, a);
                for &n in switches.iter().filter(|&&n| group(n) != group(s)) {
                    assert!(!is_leaf(s) && !is_leaf(n));
                    pair[(group(s) * g + group(n)) as usize] += 1;
                }
                // Leaves within three hops of each other: up, global, down.
                if is_leaf(s) {
                    let d = bfs_distances(&net, s);
                    let far = net.switches().iter().filter(|&&v| is_leaf(v));
                    assert!(far.into_iter().all(|v| d[v.index()] <= 3));
                    assert_eq!(net.degree(s) as u32, a + p);
                } else {
                    assert_eq!(net.degree(s) as u32, a + h);
                }
            }
            for x in 0..g {
                for y in 0..g {
                    assert_eq!(pair[(x * g + y) as usize], u32::from(x != y), "{x}-{y}");
                }
            }
            let spec = net.structure().spec(net.terminals().len()).unwrap();
            assert_eq!(spec, net.name());
            // Spine-to-spine links between groups, and only those, are
            // class `global`.
            for c in net.channels() {
                let global = net.class(c.class).name == GLOBAL_LINK;
                let between =
                    net.is_switch(c.src) && net.is_switch(c.dst) && group(c.src) != group(c.dst);
                assert_eq!(global, between, "{c:?}");
            }
        }
    }

    #[test]
    fn bad_parameters_name_the_key() {
        let e = megafly(0, 2, 2, GlobalArrangement::Absolute)
            .unwrap_err()
            .to_string();
        assert!(e.contains("'a'"), "{e}");
        let e = megafly(4, 2, 0, GlobalArrangement::Absolute)
            .unwrap_err()
            .to_string();
        assert!(e.contains("'h'"), "{e}");
        let e = megafly(4, 65535, 2, GlobalArrangement::Absolute)
            .unwrap_err()
            .to_string();
        assert!(e.contains("'p'"), "{e}");
    }
}
