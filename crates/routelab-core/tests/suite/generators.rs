//! Properties of the generated families over random small parameters:
//! connected, the degrees and counts asked for, the documented numbering,
//! and errors (never panics) for bad parameters.

use proptest::prelude::*;
use routelab_core::network::build::{
    clos, dragonfly, flattened_butterfly, hyperx,
    hyperx::{coords, hyperx_link_ports, hyperx_port},
    kary_ntree, kautz, random_irregular, random_with_links,
    tree::{
        xgft_leaf_terminal_count, xgft_level_and_label, xgft_level_sizes,
        xgft_node_level_and_label, xgft_node_switch_index, xgft_switch_index, xgft_terminal_leaf,
        xgft_with_terminals,
    },
    xgft,
};
use routelab_core::network::metrics::{bfs_distances, count_shortest_paths, is_connected};
use routelab_core::network::spec;
use routelab_core::{Network, NodeId, Structure};

/// Sorted switch neighbours of every switch.
fn switch_neighbours(net: &Network) -> Vec<Vec<NodeId>> {
    net.switches()
        .iter()
        .map(|&s| {
            let mut ns: Vec<_> = net.neighbors(s).filter(|&n| net.is_switch(n)).collect();
            ns.sort();
            ns
        })
        .collect()
}

fn terminal_count(net: &Network, s: NodeId) -> usize {
    net.neighbors(s).filter(|&n| net.is_terminal(n)).count()
}

/// Every terminal has a name `h<index>` and every name is unique and plain.
fn names_are_plain(net: &Network) -> bool {
    let mut names: Vec<&str> = net.nodes().iter().map(|n| n.name.as_str()).collect();
    let plain = names
        .iter()
        .all(|n| !n.is_empty() && !n.contains([' ', '"', '\'', ',']));
    let hosts = net
        .terminals()
        .iter()
        .enumerate()
        .all(|(i, &t)| net.node(t).name == format!("h{i}"));
    names.sort_unstable();
    let unique = names.windows(2).all(|w| w[0] != w[1]);
    plain && hosts && unique
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 48,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn kary_ntree_counts(k in 2u32..6, n in 1u32..4) {
        let net = kary_ntree(k, n).unwrap();
        prop_assert_eq!(net.terminals().len() as u32, k.pow(n));
        prop_assert_eq!(net.switches().len() as u32, n * k.pow(n - 1));
        prop_assert!(is_connected(&net));
        prop_assert!(names_are_plain(&net));
        for &s in net.switches() {
            let (level, _) = xgft_level_and_label(&vec![k; n as usize], &{
                let mut w = vec![k; n as usize];
                w[0] = 1;
                w
            }, s.0).unwrap();
            let up = if level < n { k } else { 0 };
            prop_assert_eq!(net.degree(s) as u32, k + up);
        }
        for &t in net.terminals() {
            prop_assert_eq!(net.degree(t), 1);
        }
    }

    #[test]
    fn xgft_levels_match_the_formula(
        mw in prop::collection::vec((1u32..4, 1u32..4), 1..4)
    ) {
        let (m, w): (Vec<u32>, Vec<u32>) = mw.into_iter().unzip();
        let h = m.len();
        let net = xgft(&m, &w).unwrap();
        prop_assert!(is_connected(&net));
        prop_assert!(names_are_plain(&net));
        // Level i holds prod_{j>i} m_j * prod_{j<=i} w_j nodes.
        let formula: Vec<u64> = (0..=h)
            .map(|i| {
                m[i..].iter().map(|&x| u64::from(x)).product::<u64>()
                    * w[..i].iter().map(|&x| u64::from(x)).product::<u64>()
            })
            .collect();
        prop_assert_eq!(&xgft_level_sizes(&m, &w).unwrap(), &formula);
        prop_assert_eq!(net.terminals().len() as u64, formula[0]);
        let mut per_level = vec![0u64; h + 1];
        for &s in net.switches() {
            let (level, label) = xgft_level_and_label(&m, &w, s.0).unwrap();
            per_level[level as usize] += 1;
            prop_assert_eq!(xgft_switch_index(&m, &w, level, &label), Some(s.0));
            let i = level as usize;
            let up = if i < h { w[i] } else { 0 };
            prop_assert_eq!(net.degree(s) as u32, m[i - 1] + up);
        }
        prop_assert_eq!(&per_level[1..], &formula[1..]);
        for &t in net.terminals() {
            prop_assert_eq!(net.degree(t) as u32, w[0]);
        }
    }

    /// `terminals=T`: level 0 is leaf switches holding T terminals in
    /// blocks (the first T mod L one more), in leaf order, on ports after
    /// the w_1 up ports; every other level as in the plain XGFT.
    #[test]
    fn xgft_leaf_switches_hold_the_terminals(
        mw in prop::collection::vec((1u32..4, 1u32..4), 1..4),
        t in 0u32..80,
    ) {
        let (m, w): (Vec<u32>, Vec<u32>) = mw.into_iter().unzip();
        let h = m.len();
        let net = xgft_with_terminals(&m, &w, t).unwrap();
        prop_assert!(names_are_plain(&net));
        let sizes = xgft_level_sizes(&m, &w).unwrap();
        let leaves = sizes[0];
        prop_assert_eq!(net.switches().len() as u64, sizes.iter().sum::<u64>());
        prop_assert_eq!(net.terminals().len() as u32, t);
        // The switch graph is connected; so is the network when it has terminals.
        prop_assert!(t == 0 || is_connected(&net));
        for (x, &s) in net.switches().iter().enumerate() {
            let (level, label) = xgft_node_level_and_label(&m, &w, true, x as u32).unwrap();
            prop_assert_eq!(xgft_node_switch_index(&m, &w, true, level, &label), Some(x as u32));
            let i = level as usize;
            let hosts = terminal_count(&net, s) as u64;
            let expect = if i == 0 {
                prop_assert_eq!(hosts, xgft_leaf_terminal_count(leaves, u64::from(t), x as u64));
                u64::from(w[0]) + hosts
            } else {
                prop_assert_eq!(hosts, 0);
                u64::from(m[i - 1] + if i < h { w[i] } else { 0 })
            };
            prop_assert_eq!(net.degree(s) as u64, expect);
        }
        for (i, &v) in net.terminals().iter().enumerate() {
            let (leaf, _) = xgft_terminal_leaf(leaves, u64::from(t), i as u64).unwrap();
            prop_assert_eq!(net.degree(v), 1);
            prop_assert_eq!(net.attached_switch(v), Some(NodeId(leaf as u32)));
        }
    }

    #[test]
    fn clos_routes_and_leaves(half in 1u32..9, fill in 0.0f64..1.0) {
        let ports = 2 * half;
        let max = ports * half;
        let hosts = 1 + ((f64::from(max - 1)) * fill) as u32;
        let net = clos(ports, hosts).unwrap();
        let leaves = hosts.div_ceil(half);
        prop_assert_eq!(net.switches().len() as u32, leaves + half);
        prop_assert_eq!(net.terminals().len() as u32, hosts);
        prop_assert!(is_connected(&net));
        prop_assert!(names_are_plain(&net));
        for l in 0..leaves {
            let expect = (hosts - l * half).min(half);
            prop_assert_eq!(terminal_count(&net, NodeId(l)) as u32, expect);
        }
        let (a, b) = (0, hosts - 1);
        let routes = count_shortest_paths(&net, net.terminal(a as usize), net.terminal(b as usize));
        prop_assert_eq!(routes, if a / half == b / half { 1 } else { u64::from(half) });
    }

    #[test]
    fn kautz_counts(b in 1u32..4, n in 1u32..4, hosts in 0u32..3) {
        let net = kautz(b, n, hosts).unwrap();
        let switches = (b + 1) * b.pow(n);
        prop_assert_eq!(net.switches().len() as u32, switches);
        prop_assert_eq!(net.terminals().len() as u32, switches * hosts);
        prop_assert!(is_connected(&net));
        prop_assert!(names_are_plain(&net));
        for &s in net.switches() {
            prop_assert_eq!(net.degree(s) as u32, 2 * b + hosts);
        }
    }

    #[test]
    fn dragonfly_one_global_link_per_group_pair(a in 1u32..5, p in 0u32..3, h in 1u32..3) {
        let net = dragonfly(a, p, h).unwrap();
        let g = a * h + 1;
        prop_assert_eq!(net.switches().len() as u32, g * a);
        prop_assert_eq!(net.terminals().len() as u32, g * a * p);
        prop_assert!(is_connected(&net));
        prop_assert!(names_are_plain(&net));
        let mut links = vec![0u32; (g * g) as usize];
        for (i, ns) in switch_neighbours(&net).iter().enumerate() {
            let gi = i as u32 / a;
            prop_assert_eq!(net.degree(NodeId(i as u32)) as u32, a - 1 + h + p);
            let local = ns.iter().filter(|n| n.0 / a == gi).count() as u32;
            prop_assert_eq!(local, a - 1);
            for n in ns.iter().filter(|n| n.0 / a != gi) {
                links[(gi * g + n.0 / a) as usize] += 1;
            }
        }
        for x in 0..g {
            for y in 0..g {
                prop_assert_eq!(links[(x * g + y) as usize], u32::from(x != y));
            }
        }
    }

    /// Two switches share exactly `t` cables if their coordinates differ in
    /// one place and none otherwise; every switch has the documented ports
    /// and `p` terminals; switches are at most `n` hops apart, and exactly
    /// as many as their coordinates differ.
    #[test]
    fn hyperx_is_a_trunked_hamming_graph(
        sides in prop::collection::vec(2u32..6, 1..4), t in 1u32..4, p in 0u32..4
    ) {
        let net = hyperx(&sides, t, p).unwrap();
        let s: u32 = sides.iter().product();
        let spread: u32 = sides.iter().map(|&k| k - 1).sum();
        prop_assert_eq!(net.switches().len() as u32, s);
        prop_assert_eq!(net.terminals().len() as u32, s * p);
        prop_assert_eq!(net.cable_count() as u32, s * spread * t / 2 + s * p);
        prop_assert!(is_connected(&net));
        prop_assert!(names_are_plain(&net));
        prop_assert_eq!(hyperx_link_ports(&sides, t), spread * t);
        let mut cables = vec![0u32; (s * s) as usize];
        for pair in net.channels().chunks(2) {
            let c = pair[0];
            if net.is_switch(c.src) && net.is_switch(c.dst) {
                cables[(c.src.0 * s + c.dst.0) as usize] += 1;
                cables[(c.dst.0 * s + c.src.0) as usize] += 1;
            }
        }
        for a in 0..s {
            let x = coords(&sides, a);
            let node = NodeId(a);
            prop_assert_eq!(net.degree(node) as u32, spread * t + p);
            prop_assert_eq!(terminal_count(&net, node) as u32, p);
            let dist = bfs_distances(&net, node);
            for b in 0..s {
                let y = coords(&sides, b);
                let differ = x.iter().zip(&y).filter(|(i, j)| i != j).count() as u32;
                let want = if differ == 1 { t } else { 0 };
                prop_assert_eq!(cables[(a * s + b) as usize], want, "{:?} {:?}", x, y);
                prop_assert_eq!(dist[b as usize], differ);
            }
            for (d, &k) in sides.iter().enumerate() {
                for to in (0..k).filter(|&to| to != x[d]) {
                    for c in 0..t {
                        let port = hyperx_port(&sides, t, d, x[d], to, c);
                        let ch = net.channel(net.channel_at(node, port).unwrap());
                        prop_assert_eq!(coords(&sides, ch.dst.0)[d], to);
                    }
                }
            }
        }
        let back = spec::build(&net.structure().spec(net.terminals().len()).unwrap()).unwrap();
        prop_assert_eq!(&back, &net);
    }

    /// `flatfly:k,n` is `hyperx:S=k^(n-1),t=1,p=k`, cable for cable.
    #[test]
    fn flattened_butterfly_is_the_hyperx(k in 2u32..6, n in 2u32..5) {
        let f = flattened_butterfly(k, n).unwrap();
        let sides = vec![k; (n - 1) as usize];
        let h = hyperx(&sides, 1, k).unwrap();
        prop_assert_eq!(f.name(), format!("flatfly:k={k},n={n}"));
        prop_assert_eq!(f.structure(), h.structure());
        prop_assert_eq!(f.nodes(), h.nodes());
        prop_assert_eq!(f.channels(), h.channels());
        prop_assert_eq!(
            f.structure(),
            &Structure::HyperX { sides, trunking: 1, concentration: k }
        );
    }

    #[test]
    fn random_networks_respect_budgets(
        switches in 1u32..40, ports in 1u32..10, hosts in 0u32..10, seed in 0u64..1000
    ) {
        match random_irregular(switches, ports, hosts, seed) {
            Err(e) => {
                let e = e.to_string();
                prop_assert!(e.contains("'hosts'") || e.contains("'ports'"), "{}", e);
                prop_assert!(hosts > ports || ports - hosts < switches.saturating_sub(1).min(2));
            }
            Ok(net) => {
                let free = (ports - hosts) as usize;
                prop_assert!(is_connected(&net));
                prop_assert!(names_are_plain(&net));
                let ns = switch_neighbours(&net);
                for (s, list) in ns.iter().enumerate() {
                    prop_assert!(list.windows(2).all(|w| w[0] != w[1]), "parallel links");
                    prop_assert!(!list.contains(&NodeId(s as u32)));
                    prop_assert!(list.len() <= free);
                    prop_assert_eq!(terminal_count(&net, NodeId(s as u32)) as u32, hosts);
                }
                // No legal link is left.
                for s in 0..ns.len() {
                    for t in s + 1..ns.len() {
                        prop_assert!(
                            ns[s].len() == free
                                || ns[t].len() == free
                                || ns[s].contains(&NodeId(t as u32))
                        );
                    }
                }
                prop_assert_eq!(&random_irregular(switches, ports, hosts, seed).unwrap(), &net);
            }
        }
    }

    #[test]
    fn random_with_exact_links(
        switches in 2u32..30, free in 2u32..8, hosts in 0u32..3, pos in 0.0f64..=1.0, seed in 0u64..1000
    ) {
        let s = u64::from(switches);
        let lo = s - 1;
        let hi = (s * u64::from(free) / 2).min(s * (s - 1) / 2);
        let links = lo + ((hi - lo) as f64 * pos) as u64;
        let net = random_with_links(switches, free + hosts, hosts, links as u32, seed).unwrap();
        prop_assert!(is_connected(&net));
        let ns = switch_neighbours(&net);
        let total: usize = ns.iter().map(Vec::len).sum();
        prop_assert_eq!(total as u64, 2 * links);
        for list in &ns {
            prop_assert!(list.windows(2).all(|w| w[0] != w[1]));
            prop_assert!(list.len() as u32 <= free);
        }
        // Out of range on either side is an error naming `links`.
        let e = random_with_links(switches, free + hosts, hosts, (hi + 1) as u32, seed)
            .unwrap_err()
            .to_string();
        prop_assert!(e.contains("'links'") && e.contains(&format!("{lo}..={hi}")), "{}", e);
        let e = random_with_links(switches, free + hosts, hosts, (lo - 1) as u32, seed)
            .unwrap_err()
            .to_string();
        prop_assert!(e.contains("'links'"), "{}", e);
    }

    /// Any small integers in any spec give a network or an error, never a panic.
    #[test]
    fn specs_never_panic(family in 0usize..8, x in 0u32..7, y in 0u32..7, z in 0u32..7) {
        let spec = match family {
            0 => format!("kary-ntree:k={x},n={y}"),
            1 => format!("xgft:m={x}x{y},w={z}x{x}"),
            2 => format!("clos:ports={x},hosts={}", y * z),
            3 => format!("kautz:b={x},n={y},hosts={z}"),
            4 => format!("random:switches={},ports={x},hosts={y},seed={z}", z * 3),
            5 => format!("dragonfly:a={x},p={y},h={z}"),
            6 => format!("hyperx:S={x}x{y},t={z},p={x}"),
            _ => format!("flatfly:k={x},n={y}"),
        };
        if let Ok(net) = spec::build(&spec) {
            prop_assert!(is_connected(&net), "{}", spec);
        }
    }
}

#[test]
fn myrinet_clos_has_16_routes_between_leaves() {
    let net = spec::build("clos:ports=32,hosts=512").unwrap();
    let t = |i| net.terminal(i);
    assert_eq!(count_shortest_paths(&net, t(0), t(511)), 16);
    assert_eq!(count_shortest_paths(&net, t(20), t(40)), 16);
    assert_eq!(count_shortest_paths(&net, t(16), t(31)), 1);
}

#[test]
fn random_seeds_differ() {
    let a = random_irregular(64, 8, 4, 1).unwrap();
    let b = random_irregular(64, 8, 4, 2).unwrap();
    assert_ne!(switch_neighbours(&a), switch_neighbours(&b));
    let a = random_with_links(128, 32, 16, 200, 1).unwrap();
    let b = random_with_links(128, 32, 16, 200, 1).unwrap();
    let c = random_with_links(128, 32, 16, 200, 2).unwrap();
    assert_eq!(a, b);
    assert_ne!(switch_neighbours(&a), switch_neighbours(&c));
}

/// A fixed seed is a fixed network: this fingerprint must not change across
/// machines or releases without notice.
#[test]
fn random_network_is_stable() {
    let net = random_irregular(8, 8, 4, 1).unwrap();
    let ns = switch_neighbours(&net);
    let fingerprint: Vec<Vec<u32>> = ns.iter().map(|l| l.iter().map(|n| n.0).collect()).collect();
    assert_eq!(fingerprint, stable_fingerprint());
}

fn stable_fingerprint() -> Vec<Vec<u32>> {
    vec![
        vec![1, 4, 6, 7],
        vec![0, 2, 3, 5],
        vec![1, 3, 4, 6],
        vec![1, 2, 5, 6],
        vec![0, 2, 5, 7],
        vec![1, 3, 4, 7],
        vec![0, 2, 3, 7],
        vec![0, 4, 5, 6],
    ]
}

#[test]
fn spec_examples_build() {
    for spec in [
        "kary-ntree:k=4,n=3",
        "xgft:m=32x32,w=1x32",
        "clos:ports=32,hosts=512",
        "kautz:b=2,n=3,hosts=4",
        "kautz:b=2,n=2,terminals=64",
        "random:switches=64,ports=8,hosts=4,seed=1",
        "random:switches=128,ports=32,hosts=16,links=200,seed=1",
        "dragonfly:a=4,p=2,h=2",
        "hyperx:S=4x4x4,t=1,p=2",
        "hyperx:S=8x4,t=2,p=4",
        "flatfly:k=4,n=3",
    ] {
        let net = spec::build(spec).unwrap_or_else(|e| panic!("{spec}: {e}"));
        assert!(is_connected(&net), "{spec}");
        assert_eq!(net.name(), spec);
    }
}

#[test]
fn bad_specs_name_the_parameter() {
    for (spec, key) in [
        ("kary-ntree:k=1,n=3", "'k'"),
        ("kary-ntree:k=4", "'n'"),
        ("xgft:m=4x4,w=1", "'w'"),
        ("clos:ports=31,hosts=8", "'ports'"),
        ("clos:ports=32,hosts=513", "'hosts'"),
        ("kautz:b=0,n=3", "'b'"),
        ("random:switches=8,ports=4,hosts=5", "'hosts'"),
        ("random:switches=8,ports=8,hosts=4,links=3", "'links'"),
        ("dragonfly:a=0,p=2,h=2", "'a'"),
        ("hyperx:S=4x1,p=2", "'S'"),
        ("hyperx:S=4x4,t=0,p=2", "'t'"),
        ("hyperx:S=4x4", "'p'"),
        ("hyperx:S=4x4,p=2,q=1", "'q'"),
        ("hyperx:S=128x128x128,p=1", "'S'"),
        ("hyperx:S=256x256,t=200,p=1", "'t'"),
        ("hyperx:S=16x16,p=20000", "'p'"),
        ("flatfly:k=1,n=3", "'k'"),
        ("flatfly:k=4,n=1", "'n'"),
        ("flatfly:k=4", "'n'"),
        ("flatfly:k=4,n=15", "'n'"),
        ("flatfly:k=40,n=5", "'n'"),
        ("flatfly:k=40000,n=2", "'k'"),
    ] {
        let e = spec::build(spec).unwrap_err().to_string();
        assert!(e.contains(key), "{spec}: {e}");
    }
}

#[test]
fn a_topology_too_large_for_memory_fails_at_once_naming_the_limit() {
    // dragonfly a=1000, h=1: a million routers of 1,000 ports each, a
    // billion ports: refused, quickly, with the size and the limit.
    let t0 = std::time::Instant::now();
    let e = routelab_core::network::spec::build("dragonfly:a=1000,p=1,h=1").unwrap_err();
    let text = e.to_string();
    assert!(
        text.contains("too large") && text.contains("67108864"),
        "{text}"
    );
    assert!(t0.elapsed().as_secs() < 20, "{:?}", t0.elapsed());
}
