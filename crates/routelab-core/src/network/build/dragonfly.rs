//! Dragonflies (Kim, Dally, Scott & Abts 2008): `g = a*h + 1` groups of `a`
//! routers, the routers of a group fully connected, each router with `p`
//! terminals and `h` global links, and exactly one global link between every
//! two groups. Balanced when `a = 2p = 2h`.
//!
//! Group `G` numbers its `a*h` global links `j = r*h + k` (router `r`, its
//! `k`-th global port); the arrangement says which group link `j` leads to
//! ([`GlobalArrangement`]): consecutive ("absolute", the default: group
//! `j` if `j < G`, else `j + 1`), relative (`G + j + 1`) or circulant
//! (`G ± (j/2 + 1)`, alternating), all modulo the `a*h + 1` groups.
//!
//! Numbering: router `r` of group `G` is switch `G*a + r`, then terminals,
//! terminal `i` on router `i / p`. Ports, fabric first as in the other
//! families: `1..=a-1` local (router `r'` on port `r' + 1` if `r' < r`, else
//! `r'`), `a..=a+h-1` global (the `k`-th on `a + k`), then `p` terminals.
//! Global links are channel class `global`, local ones `switch`, so that a
//! simulation spec can give the long cables their own latency.

use crate::network::builder::GLOBAL_LINK;
use crate::network::spec::Family;
use crate::network::{
    GlobalArrangement, Network, NetworkBuilder, NodeId, PortId, Structure, TopologyError,
};

use super::{bad_param, torus::attach_terminals};

/// The largest dragonfly the generator builds, in routers.
const MAX_ROUTERS: u64 = 1 << 20;
/// The largest network, in routers plus terminals.
const MAX_NODES: u64 = 1 << 22;

pub const DRAGONFLY: Family = Family {
    name: "dragonfly",
    usage: "dragonfly:a=4,p=2,h=2  (a routers per group, p terminals and h global links per router; a*h+1 groups; \
            arrangement=absolute|relative|circulant, the global links' layout, default absolute)",
    keys: &["a", "p", "h", "arrangement"],
    positional: None,
    generate: |args| {
        let max = u32::from(u16::MAX);
        let a = args.u32("a", None, 1, max)?;
        let p = args.u32("p", None, 0, max)?;
        let h = args.u32("h", None, 1, max)?;
        let arr = args.choice("arrangement", &GlobalArrangement::NAMES)?;
        let arr = GlobalArrangement::from_name(arr).unwrap_or_default();
        dragonfly_arranged(a, p, h, arr)
    },
};

/// A dragonfly of `a*h + 1` groups of `a` routers, each router with `p`
/// terminals and `h` global links, in the absolute arrangement.
pub fn dragonfly(a: u32, p: u32, h: u32) -> Result<Network, TopologyError> {
    dragonfly_arranged(a, p, h, GlobalArrangement::Absolute)
}

/// The same with the global links laid out by `arr`.
pub fn dragonfly_arranged(
    a: u32,
    p: u32,
    h: u32,
    arr: GlobalArrangement,
) -> Result<Network, TopologyError> {
    check_arrangement("dragonfly", arr)?;
    let max = u32::from(u16::MAX);
    if a == 0 || a > max {
        return Err(bad_param(
            "dragonfly",
            "a",
            a,
            format!("an integer in 1..={max}"),
        ));
    }
    if h == 0 || h > max {
        return Err(bad_param(
            "dragonfly",
            "h",
            h,
            format!("an integer in 1..={max}"),
        ));
    }
    let ports = u64::from(a - 1) + u64::from(h) + u64::from(p);
    if ports > u64::from(max) {
        return Err(bad_param(
            "dragonfly",
            "p",
            p,
            format!(
                "at most {} so that a - 1 + h + p <= {max} ports",
                u64::from(max).saturating_sub(u64::from(a - 1) + u64::from(h))
            ),
        ));
    }
    let groups = u64::from(a) * u64::from(h) + 1;
    let routers = groups * u64::from(a);
    if routers > MAX_ROUTERS {
        return Err(TopologyError::impossible(format!(
            "dragonfly: a = {a}, h = {h} gives a*(a*h+1) = {routers} routers, more than {MAX_ROUTERS}; lower a or h"
        )));
    }
    if routers * (1 + u64::from(p)) > MAX_NODES {
        return Err(bad_param(
            "dragonfly",
            "p",
            p,
            format!(
                "at most {} ({MAX_NODES} nodes in all)",
                MAX_NODES / routers - 1
            ),
        ));
    }
    let name = if arr.is_absolute() {
        format!("dragonfly:a={a},p={p},h={h}")
    } else {
        format!("dragonfly:a={a},p={p},h={h},arrangement={}", arr.name())
    };
    let nodes = routers * (1 + u64::from(p));
    crate::network::builder::check_ports(&name, nodes, routers * (ports + u64::from(p)))?;
    let (groups, routers) = (groups as u32, routers as u32);
    let (mut b, sw_class, t_class) = NetworkBuilder::with_default_classes(name);
    let global_class = b.add_class_like(GLOBAL_LINK, sw_class);
    for s in 0..routers {
        b.add_switch(format!("g{}r{}", s / a, s % a), ports as u16);
    }
    let router = |g: u32, r: u32| NodeId(g * a + r);
    for g in 0..groups {
        for r in 0..a {
            for r2 in r + 1..a {
                b.connect(
                    router(g, r),
                    dragonfly_local_port(r, r2),
                    router(g, r2),
                    dragonfly_local_port(r2, r),
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
                router(g, j / h),
                dragonfly_global_port(a, j % h),
                router(t, k / h),
                dragonfly_global_port(a, k % h),
                global_class,
            )?;
        }
    }
    attach_terminals(&mut b, routers, p, (a - 1 + h) as u16, t_class)?;
    b.set_structure(Structure::Dragonfly {
        a,
        p,
        h,
        groups,
        arrangement: arr,
    });
    b.build()
}

/// Refuses [`GlobalArrangement::Cabled`], which names a fabric's own
/// layout and no generator's.
pub(crate) fn check_arrangement(family: &str, arr: GlobalArrangement) -> Result<(), TopologyError> {
    if arr == GlobalArrangement::Cabled {
        return Err(bad_param(
            family,
            "arrangement",
            arr.name(),
            GlobalArrangement::NAMES.join(", "),
        ));
    }
    Ok(())
}

/// The port of router `r` leading to router `to` of its group (`to != r`).
pub fn dragonfly_local_port(r: u32, to: u32) -> PortId {
    PortId((to + u32::from(to < r)) as u16)
}

/// The port carrying the `k`-th global link of a router (`k < h`).
pub fn dragonfly_global_port(a: u32, k: u32) -> PortId {
    PortId((a + k) as u16)
}

/// The index `j = r*h + k` of the global link of group `from` that leads to
/// group `to` (`to != from`): router `j / h`, its `(j % h)`-th global port.
pub fn dragonfly_global_link(from: u32, to: u32) -> u32 {
    to - u32::from(to > from)
}

/// The group that global link `j` of group `from` leads to.
pub fn dragonfly_global_peer(from: u32, j: u32) -> u32 {
    j + u32::from(j >= from)
}

/// The group global link `j` of group `from` leads to under `arr`, `groups`
/// groups in all.
pub fn global_peer(arr: GlobalArrangement, groups: u32, from: u32, j: u32) -> u32 {
    match arr {
        GlobalArrangement::Absolute | GlobalArrangement::Cabled => dragonfly_global_peer(from, j),
        GlobalArrangement::Relative => (from + j + 1) % groups,
        GlobalArrangement::Circulant => {
            let offset = j / 2 + 1;
            if j.is_multiple_of(2) {
                (from + offset) % groups
            } else {
                (from + groups - offset % groups) % groups
            }
        }
    }
}

/// The index of group `from`'s global link to group `to` under `arr`
/// (`to != from`).
pub fn global_link(arr: GlobalArrangement, groups: u32, from: u32, to: u32) -> u32 {
    match arr {
        GlobalArrangement::Absolute | GlobalArrangement::Cabled => dragonfly_global_link(from, to),
        GlobalArrangement::Relative => (to + groups - from - 1) % groups,
        GlobalArrangement::Circulant => {
            // The offset of `to` from `from`, as its smaller sign.
            let up = (to + groups - from) % groups;
            let down = groups - up;
            if up <= down {
                2 * (up - 1)
            } else {
                2 * (down - 1) + 1
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::network::metrics::{bfs_distances, is_connected};

    #[test]
    fn counts_and_global_links() {
        let (a, p, h) = (4, 2, 2);
        let net = dragonfly(a, p, h).unwrap();
        let g = a * h + 1;
        let group_of = |s: NodeId| s.0 / a;
        assert_eq!(net.switches().len() as u32, g * a);
        assert_eq!(net.terminals().len() as u32, g * a * p);
        assert!(is_connected(&net));
        let mut pair = vec![0u32; (g * g) as usize];
        for &s in net.switches() {
            assert_eq!(net.degree(s) as u32, a - 1 + h + p);
            let gs = group_of(s);
            for n in net.neighbors(s).filter(|&n| net.is_switch(n)) {
                let gn = group_of(n);
                if gn != gs {
                    pair[(gs * g + gn) as usize] += 1;
                }
            }
            // Routers within three hops: local, global, local.
            let d = bfs_distances(&net, s);
            assert!(net.switches().iter().all(|v| d[v.index()] <= 3));
        }
        for x in 0..g {
            for y in 0..g {
                assert_eq!(pair[(x * g + y) as usize], u32::from(x != y), "{x}-{y}");
            }
        }
        // Links between groups, and only those, are class `global`.
        for c in net.channels() {
            let class = net.class(c.class).name.as_str();
            if net.is_switch(c.src) && net.is_switch(c.dst) {
                let between = group_of(c.src) != group_of(c.dst);
                assert_eq!(class == GLOBAL_LINK, between, "{c:?}");
            } else {
                assert_eq!(class, crate::network::builder::TERMINAL_LINK);
            }
        }
    }

    #[test]
    fn ports_follow_the_arrangement() {
        let (a, p, h) = (3, 1, 2);
        let net = dragonfly(a, p, h).unwrap();
        for from in 0..7 {
            for to in (0..7).filter(|&t| t != from) {
                let j = dragonfly_global_link(from, to);
                assert_eq!(dragonfly_global_peer(from, j), to);
                let c = net
                    .channel_at(NodeId(from * a + j / h), dragonfly_global_port(a, j % h))
                    .unwrap();
                assert_eq!(net.channel(c).dst.0 / a, to);
            }
            for r in 0..a {
                for r2 in (0..a).filter(|&x| x != r) {
                    let c = net
                        .channel_at(NodeId(from * a + r), dragonfly_local_port(r, r2))
                        .unwrap();
                    assert_eq!(net.channel(c).dst, NodeId(from * a + r2));
                }
                let c = net
                    .channel_at(NodeId(from * a + r), PortId((a + h) as u16))
                    .unwrap();
                assert!(net.is_terminal(net.channel(c).dst));
            }
        }
    }

    #[test]
    fn every_arrangement_joins_every_two_groups_once() {
        for (a, h) in [(4, 2), (3, 1), (2, 3), (1, 2)] {
            let groups = a * h + 1;
            for arr in [
                GlobalArrangement::Absolute,
                GlobalArrangement::Relative,
                GlobalArrangement::Circulant,
            ] {
                for from in 0..groups {
                    let mut seen = vec![false; groups as usize];
                    for j in 0..a * h {
                        let to = global_peer(arr, groups, from, j);
                        assert!(to != from && !seen[to as usize], "{arr:?} {from} {j}");
                        seen[to as usize] = true;
                        assert_eq!(global_link(arr, groups, from, to), j, "{arr:?}");
                    }
                }
                let net = dragonfly_arranged(a, 1, h, arr).unwrap();
                assert!(is_connected(&net));
                let spec = net.structure().spec(net.terminals().len()).unwrap();
                assert_eq!(spec, net.name());
                let again = crate::network::spec::build(&spec).unwrap();
                assert_eq!(again.structure(), net.structure());
                for &s in net.switches() {
                    let d = bfs_distances(&net, s);
                    assert!(net.switches().iter().all(|v| d[v.index()] <= 3));
                }
            }
        }
        // Circulant: a router's first two links reach both sides of its group.
        assert_eq!(global_peer(GlobalArrangement::Circulant, 9, 0, 0), 1);
        assert_eq!(global_peer(GlobalArrangement::Circulant, 9, 0, 1), 8);
        let e = crate::network::spec::build("dragonfly:a=2,p=1,h=1,arrangement=spiral")
            .unwrap_err()
            .to_string();
        assert!(e.contains("absolute, relative, circulant"), "{e}");
    }

    #[test]
    fn one_router_groups() {
        let net = dragonfly(1, 1, 3).unwrap();
        assert_eq!(net.switches().len(), 4);
        assert!(is_connected(&net));
    }

    #[test]
    fn bad_parameters_name_the_key() {
        let e = dragonfly(0, 2, 2).unwrap_err().to_string();
        assert!(e.contains("'a'") && e.contains("1..="), "{e}");
        let e = dragonfly(4, 2, 0).unwrap_err().to_string();
        assert!(e.contains("'h'"), "{e}");
        let e = dragonfly(4, 65535, 2).unwrap_err().to_string();
        assert!(e.contains("'p'"), "{e}");
        let e = dragonfly(256, 1, 256).unwrap_err().to_string();
        assert!(e.contains("lower a or h"), "{e}");
    }
}
