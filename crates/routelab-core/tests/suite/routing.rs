//! Routing engines and deadlock analysis, end to end.

use proptest::prelude::*;
use rand::Rng;
use routelab_core::deadlock::{self, Heuristic, PathRef};
use routelab_core::network::metrics::updown as updown_order;
use routelab_core::network::metrics::{bfs_distances, UNREACHABLE};
use routelab_core::network::spec;
use routelab_core::routing::{self, Routes, RoutingError, RoutingOptions, ENGINES};
use routelab_core::{ChannelId, Network, NetworkBuilder, NodeId, PortId};
use std::collections::VecDeque;

/// A random connected irregular network: a random spanning tree of
/// switches, `extra` more random switch links (parallel cables allowed),
/// and `hosts` terminals per switch.
fn random_net(switches: u32, extra: u32, hosts: u32, seed: u64) -> Network {
    let mut rng = routelab_core::rng::stream(seed, "routing-test");
    let (mut b, s, t) = NetworkBuilder::with_default_classes(format!("rand{seed}"));
    let sw: Vec<NodeId> = (0..switches)
        .map(|i| b.add_switch(format!("sw{i}"), 64))
        .collect();
    for i in 1..switches as usize {
        let j = rng.gen_range(0..i);
        b.connect_next(sw[i], sw[j], s).unwrap();
    }
    for _ in 0..extra {
        let i = rng.gen_range(0..switches as usize);
        let j = rng.gen_range(0..switches as usize);
        if i != j {
            b.connect_next(sw[i], sw[j], s).unwrap();
        }
    }
    for (i, &x) in sw.iter().enumerate() {
        for h in 0..hosts {
            let ht = b.add_terminal(format!("h{i}.{h}"), 1);
            b.connect_next(x, ht, t).unwrap();
        }
    }
    b.build().unwrap()
}

/// A random network from the generator when it exists, else from the test's own.
fn random_fabric(switches: u32, hosts: u32, seed: u64) -> Network {
    spec::build(&format!(
        "random:switches={switches},ports=8,hosts={hosts},seed={seed}"
    ))
    .unwrap_or_else(|_| random_net(switches, switches, hosts, seed))
}

fn opts() -> RoutingOptions {
    RoutingOptions::default()
}

/// Asserts every path equals the terminal-to-terminal BFS distance.
fn assert_minimal(net: &Network, r: &Routes) {
    let t = net.terminals().len();
    for s in 0..t {
        let dist = bfs_distances(net, net.terminal(s));
        for d in 0..t {
            if s == d {
                continue;
            }
            let dd = dist[net.terminal(d).index()];
            assert_ne!(dd, UNREACHABLE);
            let p = r.path(net, s, d).unwrap();
            assert_eq!(
                p.len(),
                dd as usize,
                "{} on {}: path {s} -> {d} has {} hops, distance {dd}",
                r.engine(),
                net.name(),
                p.len()
            );
        }
    }
    assert!(r.is_minimal(net).unwrap());
}

/// Routes per channel over all ordered pairs of distinct terminals.
fn channel_loads(net: &Network, r: &Routes) -> Vec<u64> {
    let mut load = vec![0u64; net.channel_count()];
    let t = net.terminals().len();
    for s in 0..t {
        for d in 0..t {
            for c in r.path(net, s, d).unwrap() {
                load[c.index()] += 1;
            }
        }
    }
    load
}

fn max_switch_load(net: &Network, r: &Routes) -> u64 {
    let load = channel_loads(net, r);
    net.channel_ids()
        .filter(|&c| {
            let ch = net.channel(c);
            net.is_switch(ch.src) && net.is_switch(ch.dst)
        })
        .map(|c| load[c.index()])
        .max()
        .unwrap_or(0)
}

/// Levels of a BFS over switches from `root`.
fn levels(net: &Network, root: NodeId) -> Vec<u32> {
    let mut level = vec![u32::MAX; net.node_count()];
    let mut q = VecDeque::from([root]);
    level[root.index()] = 0;
    while let Some(u) = q.pop_front() {
        for v in net.neighbors(u).filter(|&v| net.is_switch(v)) {
            if level[v.index()] == u32::MAX {
                level[v.index()] = level[u.index()] + 1;
                q.push_back(v);
            }
        }
    }
    level
}

/// The automatic up*/down* root: smallest eccentricity, lowest id.
fn central_switch(net: &Network) -> NodeId {
    *net.switches()
        .iter()
        .min_by_key(|&&s| {
            let l = levels(net, s);
            let ecc = net.switches().iter().map(|x| l[x.index()]).max().unwrap();
            (ecc, s)
        })
        .unwrap()
}

/// Every path goes up zero or more times, then down.
fn assert_up_down(net: &Network, r: &Routes, root: NodeId) {
    let level = levels(net, root);
    assert_legal(net, r, |v| (level[v.index()], v));
}

/// Every path goes up zero or more times, then down, "up" meaning towards
/// a smaller key.
fn assert_legal<K: Ord>(net: &Network, r: &Routes, key: impl Fn(NodeId) -> K) {
    let t = net.terminals().len();
    for s in 0..t {
        for d in 0..t {
            let p = r.path(net, s, d).unwrap();
            let mut gone_down = false;
            for &c in p.iter() {
                let ch = net.channel(c);
                if !(net.is_switch(ch.src) && net.is_switch(ch.dst)) {
                    continue;
                }
                let up = key(ch.dst) < key(ch.src);
                assert!(
                    !(up && gone_down),
                    "{}: path {s} -> {d} goes up at {} after going down",
                    net.name(),
                    net.node(ch.src).name
                );
                gone_down |= !up;
            }
        }
    }
}

#[test]
fn engines_are_minimal_on_regular_networks() {
    for spec_text in [
        "torus:4x4",
        "torus:3x3x3",
        "torus:4x3,c=2",
        "mesh:4x3",
        "mesh:3x3x2,c=2",
        "hypercube:4",
        "hypercube:3,c=2",
    ] {
        let net = spec::build(spec_text).unwrap();
        for engine in ["minhop", "sssp", "dfsssp", "dor"] {
            let r = routing::route(&net, engine, &opts()).unwrap();
            assert_eq!(r.engine(), engine);
            assert_minimal(&net, &r);
        }
    }
}

#[test]
fn engines_are_minimal_on_random_and_kautz_networks() {
    let mut nets: Vec<Network> = (0..4).map(|seed| random_fabric(10, 2, seed)).collect();
    if let Ok(k) = spec::build("kautz:b=2,n=2,hosts=2") {
        nets.push(k);
    }
    if let Ok(k) = spec::build("kary-ntree:k=2,n=3") {
        nets.push(k);
    }
    for net in &nets {
        for engine in ["minhop", "sssp", "dfsssp"] {
            let r = routing::route(net, engine, &opts()).unwrap();
            assert_minimal(net, &r);
        }
        let r = routing::route(net, "dfsssp", &opts()).unwrap();
        let rep = r.deadlock_report(net).unwrap();
        assert!(rep.deadlock_free, "{}: {rep}", net.name());
    }
}

#[test]
fn dor_on_a_torus_needs_datelines() {
    let net = spec::build("torus:4x4").unwrap();
    let o = RoutingOptions {
        datelines: false,
        ..opts()
    };
    let r = routing::route(&net, "dor", &o).unwrap();
    assert_eq!(r.lanes(), 1);
    let rep = r.deadlock_report(&net).unwrap();
    assert!(!rep.deadlock_free);
    let cycle = rep.cycle.unwrap();
    assert!(cycle.text.contains("(lane 0)"), "{}", cycle.text);
    assert!(cycle.text.contains(" port "), "{}", cycle.text);

    let r = routing::route(&net, "dor", &opts()).unwrap();
    assert_eq!(r.lanes(), 2);
    let rep = r.deadlock_report(&net).unwrap();
    assert!(rep.deadlock_free, "{rep}");
    assert_eq!(rep.lanes_used, 2);
    // h3 at (3,0) to h1 at (1,0): +x twice, across the wraparound link
    // s3.0 -> s0.0, then on lane 1 (ejection keeps the lane).
    let (p, lanes) = r.path_lanes(&net, 3, 1).unwrap();
    assert_eq!(p.len(), 4);
    assert_eq!(lanes, vec![0, 0, 1, 1]);
    let (_, lanes) = r.path_lanes(&net, 0, 1).unwrap();
    assert!(lanes.iter().all(|&l| l == 0));
}

#[test]
fn dor_on_meshes_and_hypercubes_is_acyclic_on_one_lane() {
    for s in ["mesh:4x4", "mesh:3x3x3", "hypercube:4"] {
        let net = spec::build(s).unwrap();
        let r = routing::route(&net, "dor", &opts()).unwrap();
        assert_eq!(r.lanes(), 1);
        let rep = r.deadlock_report(&net).unwrap();
        assert!(rep.deadlock_free, "{s}: {rep}");
        assert_eq!(rep.lanes_used, 1);
    }
}

#[test]
fn dor_needs_structure() {
    let net = random_net(6, 3, 1, 1);
    let e = routing::route(&net, "dor", &opts()).unwrap_err();
    assert!(matches!(e, RoutingError::Unfit { .. }), "{e}");
    assert!(
        e.to_string().contains("torus, mesh or hypercube") && e.to_string().contains("irregular"),
        "{e}"
    );
}

#[test]
fn ring_of_five_needs_two_lanes() {
    let net = spec::build("torus:5").unwrap();
    let r = routing::route(&net, "minhop", &opts()).unwrap();
    assert_minimal(&net, &r);
    let rep = r.deadlock_report(&net).unwrap();
    assert_eq!(rep.lanes_used, 1);
    assert!(!rep.deadlock_free);
    assert_eq!(rep.cycle.unwrap().hops.len(), 5);

    for h in Heuristic::ALL {
        let o = RoutingOptions {
            heuristic: h,
            ..opts()
        };
        let r = routing::route(&net, "dfsssp", &o).unwrap();
        assert_eq!(r.lanes_needed(), 2, "{}", h.name());
        assert!(r.lanes() >= 2 && r.lanes() <= 8);
        let rep = r.deadlock_report(&net).unwrap();
        assert!(rep.deadlock_free, "{rep}");
        assert_eq!(rep.lanes_used, r.lanes());
    }
    let o = RoutingOptions {
        max_lanes: 2,
        ..opts()
    };
    let r = routing::route(&net, "dfsssp", &o).unwrap();
    assert_eq!(r.lanes(), 2);
}

#[test]
fn dfsssp_lanes_used_stay_within_needed_and_allowed() {
    // After spreading onto spare lanes the routes use at least the lanes
    // the layering needed and at most max_lanes, and every lane's channel
    // dependency graph stays acyclic.
    for topo in ["torus:5", "torus:4x4", "torus:3x3x3"] {
        let net = spec::build(topo).unwrap();
        for max_lanes in [3u8, 8, 15] {
            let o = RoutingOptions {
                max_lanes,
                ..opts()
            };
            let r = routing::route(&net, "dfsssp", &o).unwrap();
            let (needed, used) = (r.lanes_needed(), r.lanes());
            assert!(
                needed <= used && used <= max_lanes,
                "{topo}, max {max_lanes}: needed {needed}, used {used}"
            );
            let rep = r.deadlock_report(&net).unwrap();
            assert!(rep.deadlock_free, "{topo}, max {max_lanes}: {rep}");
            assert_eq!(rep.lanes_used, used);
        }
    }
}

#[test]
fn crossbar_needs_one_lane() {
    let net = spec::build("crossbar:8").unwrap();
    for (name, ..) in ENGINES {
        match routing::route(&net, name, &opts()) {
            Ok(r) => {
                assert_minimal(&net, &r);
                assert_eq!(r.lanes_needed(), 1, "{name}");
                let rep = r.deadlock_report(&net).unwrap();
                assert!(rep.deadlock_free);
                assert_eq!(rep.dependencies, 0);
            }
            Err(e) => assert!(matches!(e, RoutingError::Unfit { .. }), "{name}: {e}"),
        }
    }
}

#[test]
fn dfsssp_on_a_3d_torus() {
    let net = spec::build("torus:4x4x4").unwrap();
    let r = routing::route(&net, "dfsssp", &opts()).unwrap();
    assert!(r.lanes_needed() >= 2);
    assert!(r.lanes() <= 8);
    let rep = r.deadlock_report(&net).unwrap();
    assert!(rep.deadlock_free, "{rep}");
    assert!(rep.lanes_used <= r.lanes());

    let o = RoutingOptions {
        max_lanes: 1,
        ..opts()
    };
    let e = routing::route(&net, "dfsssp", &o).unwrap_err();
    let text = e.to_string();
    assert!(
        matches!(e, RoutingError::LanesExceeded { limit: 1, needed, .. } if needed >= 2),
        "{text}"
    );
    assert!(
        text.contains("needs") && text.contains("max_lanes is 1"),
        "{text}"
    );
}

#[test]
fn dfsssp_heuristics_are_all_deadlock_free() {
    let net = spec::build("torus:4x4").unwrap();
    for h in Heuristic::ALL {
        let o = RoutingOptions {
            heuristic: h,
            ..opts()
        };
        let r = routing::route(&net, "dfsssp", &o).unwrap();
        let rep = r.deadlock_report(&net).unwrap();
        assert!(rep.deadlock_free, "{}: {rep}", h.name());
        assert_minimal(&net, &r);
    }
}

#[test]
fn sssp_balances_better_than_minhop() {
    let mut nets: Vec<Network> = (0..3).map(|s| random_net(12, 10, 3, 100 + s)).collect();
    if let Ok(k) = spec::build("kautz:b=2,n=2,hosts=3") {
        nets.push(k);
    }
    let (mut sum_sssp, mut sum_minhop) = (0, 0);
    for net in &nets {
        let a = max_switch_load(net, &routing::route(net, "sssp", &opts()).unwrap());
        let b = max_switch_load(net, &routing::route(net, "minhop", &opts()).unwrap());
        assert!(a <= b, "{}: sssp {a} > minhop {b}", net.name());
        sum_sssp += a;
        sum_minhop += b;
    }
    assert!(
        sum_sssp < sum_minhop,
        "sssp {sum_sssp} vs minhop {sum_minhop}"
    );
}

#[test]
fn updown_is_legal_and_acyclic_on_random_networks() {
    for seed in 0..20 {
        let net = random_net(
            4 + seed as u32 % 9,
            seed as u32 % 7,
            1 + seed as u32 % 2,
            seed,
        );
        let r = routing::route(&net, "updown", &opts()).unwrap();
        assert_up_down(&net, &r, central_switch(&net));
        let rep = r.deadlock_report(&net).unwrap();
        assert!(rep.deadlock_free, "{}: {rep}", net.name());
        assert_eq!(rep.lanes_used, 1);
        // With an explicit root.
        let root = net.switches()[seed as usize % net.switches().len()];
        let o = RoutingOptions {
            root: Some(net.node(root).name.clone()),
            ..opts()
        };
        let r = routing::route(&net, "updown", &o).unwrap();
        assert_up_down(&net, &r, root);
        assert!(r.deadlock_report(&net).unwrap().deadlock_free);
    }
}

/// dnup: legal on the order ranked from the edge (switches holding
/// terminals first, inner ones above, ties by index), computed here
/// independently; deadlock-free on one lane; every pair reached.
#[test]
fn dnup_is_legal_from_the_edge_and_acyclic() {
    let mut nets: Vec<Network> = (0..12)
        .map(|seed| random_net(5 + seed as u32 % 8, seed as u32 % 6, 1, seed))
        .collect();
    for s in [
        "kary-ntree:k=4,n=3",
        "torus:4x4",
        "xgft:m=4x4,w=1x2",
        "kary-ntree:k=4,n=2,terminals=10",
    ] {
        nets.push(spec::build(s).unwrap());
    }
    for net in &nets {
        let r = routing::route(net, "dnup", &opts()).unwrap();
        // Distance from the nearest switch that holds a terminal.
        let mut dist = vec![u32::MAX; net.node_count()];
        let mut q = VecDeque::new();
        for &x in net.switches() {
            if net.neighbors(x).any(|v| !net.is_switch(v)) {
                dist[x.index()] = 1;
                q.push_back(x);
            }
        }
        while let Some(u) = q.pop_front() {
            for v in net.neighbors(u).filter(|&v| net.is_switch(v)) {
                if dist[v.index()] == u32::MAX {
                    dist[v.index()] = dist[u.index()] + 1;
                    q.push_back(v);
                }
            }
        }
        // Ties in distance: updown's order from the most central switch.
        let members: Vec<usize> = (0..net.switches().len()).collect();
        let centre = updown_order::central_switch(net, &members).unwrap();
        let from_centre = updown_order::updown_ranks(net, centre);
        assert_legal(net, &r, |v| {
            let tie = if net.is_switch(v) {
                from_centre[net.kind_index(v)]
            } else {
                0
            };
            (std::cmp::Reverse(dist[v.index()]), tie, v)
        });
        let rep = r.deadlock_report(net).unwrap();
        assert!(rep.deadlock_free, "{}: {rep}", net.name());
        assert_eq!(rep.lanes_used, 1);
    }
    // On a fat tree the edge order is the tree's own: routes are minimal.
    let net = spec::build("kary-ntree:k=4,n=3").unwrap();
    assert_minimal(&net, &routing::route(&net, "dnup", &opts()).unwrap());
}

/// Nue: deadlock-free (an independent CDG check) within any number of
/// lanes, one included, on fabrics where shortest paths need more; every
/// pair reached; the lanes it uses never more than allowed; repeatable.
#[test]
fn nue_is_deadlock_free_within_the_lanes_given() {
    let mut nets: Vec<Network> = [
        "torus:5",
        "torus:4x4",
        "torus:3x3x3",
        "kautz:b=2,n=3,hosts=1",
        "dragonfly:a=4,p=2,h=2",
        "hypercube:4",
    ]
    .iter()
    .map(|s| spec::build(s).unwrap())
    .collect();
    nets.extend((0..8).map(|seed| random_net(6 + seed as u32 % 10, 4 + seed as u32 % 9, 2, seed)));
    for net in &nets {
        for lanes in [1u8, 2, 4] {
            let o = RoutingOptions {
                max_lanes: lanes,
                ..opts()
            };
            let r = routing::route(net, "nue", &o).unwrap();
            let rep = r.deadlock_report(net).unwrap();
            assert!(rep.deadlock_free, "{} on {lanes} lanes: {rep}", net.name());
            assert!(rep.lanes_used <= lanes, "{}: {rep}", net.name());
            let t = net.terminals().len();
            for s in 0..t {
                for d in 0..t {
                    r.path(net, s, d).unwrap();
                }
            }
            let again = routing::route(net, "nue", &o).unwrap();
            assert_eq!(again, r);
        }
    }
    // One lane where shortest-path routing needs two.
    let ring = spec::build("torus:5").unwrap();
    let one = RoutingOptions {
        max_lanes: 1,
        ..opts()
    };
    assert!(routing::route(&ring, "dfsssp", &one).is_err());
    assert!(routing::route(&ring, "nue", &one).is_ok());
}

/// Where minimal routes are acyclic anyway (fat trees), Nue finds them;
/// on a torus with enough lanes it stays close to minimal.
#[test]
fn nue_is_minimal_on_fat_trees_and_near_minimal_on_tori() {
    for s in ["kary-ntree:k=4,n=3", "clos:ports=8,hosts=24"] {
        let net = spec::build(s).unwrap();
        let r = routing::route(&net, "nue", &opts()).unwrap();
        assert_minimal(&net, &r);
        assert_eq!(r.escape_routed(), Some(0));
    }
    let net = spec::build("torus:4x4x4").unwrap();
    let nue = routing::route(&net, "nue", &opts()).unwrap();
    let minhop = routing::route(&net, "minhop", &opts()).unwrap();
    let (a, b) = (nue.avg_hops(&net).unwrap(), minhop.avg_hops(&net).unwrap());
    assert!(a <= b * 1.05, "nue {a} vs minimal {b}");
}

#[test]
fn updown_on_a_torus_is_deadlock_free_and_mostly_short() {
    let net = spec::build("torus:4x4").unwrap();
    let r = routing::route(&net, "updown", &opts()).unwrap();
    assert_up_down(&net, &r, central_switch(&net));
    assert!(r.deadlock_report(&net).unwrap().deadlock_free);
    let minimal = routing::route(&net, "minhop", &opts()).unwrap();
    assert!(r.avg_hops(&net).unwrap() >= minimal.avg_hops(&net).unwrap());
    assert!(r.avg_hops(&net).unwrap() < minimal.avg_hops(&net).unwrap() + 1.0);
}

#[test]
fn updown_root_option_is_checked() {
    let net = spec::build("torus:3x3").unwrap();
    for (root, expect) in [
        ("nope", "a switch of the network"),
        ("h0", "this is a terminal"),
    ] {
        let o = RoutingOptions {
            root: Some(root.into()),
            ..opts()
        };
        let e = routing::route(&net, "updown", &o).unwrap_err();
        assert!(e.to_string().contains(expect), "{e}");
        assert!(e.to_string().contains("'root'"), "{e}");
    }
}

/// Two switches with two terminals each, not cabled to each other.
fn split_net() -> Network {
    let (mut b, _, t) = NetworkBuilder::with_default_classes("split");
    let a = b.add_switch("a", 4);
    let c = b.add_switch("c", 4);
    for (i, sw) in [a, a, c, c].into_iter().enumerate() {
        let h = b.add_terminal(format!("h{i}"), 1);
        b.connect_next(sw, h, t).unwrap();
    }
    b.build().unwrap()
}

#[test]
fn every_engine_fails_cleanly_on_a_disconnected_network() {
    let net = split_net();
    for (name, ..) in ENGINES {
        let e = routing::route(&net, name, &opts()).unwrap_err();
        match &e {
            RoutingError::Disconnected { src, dst, .. } => {
                assert_eq!((src.as_str(), dst.as_str()), ("h0", "h2"), "{e}");
                assert!(e.to_string().contains("no route from h0 to h2"), "{e}");
            }
            RoutingError::Unfit { .. } => {
                assert!(
                    ["dor", "torus-2qos", "df-min", "hx-dor"].contains(name),
                    "{name}"
                )
            }
            _ => panic!("{name}: {e}"),
        }
    }
}

#[test]
fn registry_and_options_report_valid_choices() {
    let net = spec::build("torus:3x3").unwrap();
    let e = routing::route(&net, "ospf", &opts())
        .unwrap_err()
        .to_string();
    assert!(e.contains("unknown routing engine 'ospf'"), "{e}");
    for (name, ..) in ENGINES {
        assert!(e.contains(name), "{e}");
    }
    let mut o = opts();
    let e = o.set("max_lanes", "16").unwrap_err().to_string();
    assert!(e.contains("'max_lanes'") && e.contains("1..=15"), "{e}");
    let e = o.set("heuristic", "lightest").unwrap_err().to_string();
    assert!(e.contains("weakest, heaviest, first, online"), "{e}");
    let e = o.set("colour", "red").unwrap_err().to_string();
    assert!(e.contains("max_lanes") && e.contains("heuristic"), "{e}");
    o.set("heuristic", "heaviest").unwrap();
    o.set("max_lanes", "4").unwrap();
    o.set("datelines", "false").unwrap();
    assert_eq!(o.heuristic, Heuristic::Heaviest);
    assert_eq!(o.max_lanes, 4);
    assert!(!o.datelines);
    let bad = RoutingOptions {
        max_lanes: 0,
        ..opts()
    };
    assert!(routing::route(&net, "minhop", &bad).is_err());
}

#[test]
fn broken_tables_report_loops_and_black_holes() {
    let net = spec::build("torus:4").unwrap();
    let mut r = Routes::new(&net, "hand");
    // h0 -> h2: s0 sends +, s1 sends -, a loop between s0 and s1.
    r.set_port(0, 2, Some(PortId(1)));
    r.set_port(1, 2, Some(PortId(2)));
    let e = r.path(&net, 0, 2).unwrap_err();
    assert!(matches!(e, RoutingError::Loop { .. }), "{e}");
    let text = e.to_string();
    assert!(
        text.contains("h0") && text.contains("h2") && text.contains("s0"),
        "{text}"
    );
    // h0 -> h3: no entry at s0.
    let e = r.path(&net, 0, 3).unwrap_err();
    assert!(
        matches!(&e, RoutingError::BlackHole { switch, .. } if switch == "s0"),
        "{e}"
    );
    assert!(r.is_minimal(&net).is_err());
    let other = spec::build("torus:5").unwrap();
    assert!(matches!(
        r.path(&other, 0, 1),
        Err(RoutingError::Mismatch { .. })
    ));
}

#[test]
fn hop_statistics() {
    let net = spec::build("torus:4x4").unwrap();
    let r = routing::route(&net, "dor", &opts()).unwrap();
    // Two switch hops per dimension at most.
    assert_eq!(r.max_hops(&net).unwrap(), 4);
    // Mean over 16 * 15 pairs: a 4-ring averages 1 hop over all 4 offsets,
    // 2 per dimension over 16 pairs including self; without self, 2 * 16/15.
    let avg = r.avg_hops(&net).unwrap();
    let expect = 2.0 * 16.0 / 15.0;
    assert!((avg - expect).abs() < 1e-9, "{avg} vs {expect}");
    assert_eq!(r.hops(&net, 0, 0).unwrap(), 0);
    // Path length in channels: injection, one switch hop, ejection.
    assert_eq!(r.hops(&net, 0, 1).unwrap(), 3);
}

#[test]
fn deadlock_verify_on_generic_paths() {
    // The deadlock layer needs no routing: paths as channel lists.
    let net = spec::build("torus:3").unwrap();
    let plus = |s: u32| -> ChannelId { net.channel_at(NodeId(s), PortId(1)).unwrap() };
    let cyclic: Vec<Vec<ChannelId>> = (0..3).map(|s| vec![plus(s), plus((s + 1) % 3)]).collect();
    let rep = deadlock::verify(&net, cyclic.iter().map(|p| PathRef::uniform(p, 0))).unwrap();
    assert!(!rep.deadlock_free);
    let rep = deadlock::verify(
        &net,
        cyclic
            .iter()
            .enumerate()
            .map(|(i, p)| PathRef::uniform(p, u8::from(i == 2))),
    )
    .unwrap();
    assert!(rep.deadlock_free);
    assert_eq!(rep.lanes_used, 2);
}

#[test]
fn tiny_networks_route() {
    let lone = {
        let (mut b, _, t) = NetworkBuilder::with_default_classes("lone");
        let s = b.add_switch("s", 2);
        let h = b.add_terminal("h", 1);
        b.connect_next(s, h, t).unwrap();
        b.add_terminal("orphan", 1);
        b.build().unwrap()
    };
    let single = {
        let (mut b, _, _) = NetworkBuilder::with_default_classes("single");
        b.add_terminal("h", 1);
        b.build().unwrap()
    };
    for net in [
        spec::build("torus:3x3,c=0").unwrap(),
        spec::build("crossbar:1").unwrap(),
        single,
    ] {
        for (name, ..) in ENGINES {
            match routing::route(&net, name, &opts()) {
                Ok(r) => {
                    assert_eq!(r.max_hops(&net).unwrap(), 0, "{name}");
                    assert!(r.deadlock_report(&net).unwrap().deadlock_free);
                }
                Err(e) => assert!(matches!(e, RoutingError::Unfit { .. }), "{name}: {e}"),
            }
        }
    }
    // A terminal without a switch cannot be reached.
    for (name, ..) in ENGINES {
        let e = routing::route(&lone, name, &opts()).unwrap_err();
        assert!(
            matches!(
                e,
                RoutingError::Disconnected { .. } | RoutingError::Unfit { .. }
            ),
            "{name}: {e}"
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn random_networks_route_minimally_and_dfsssp_is_deadlock_free(
        switches in 2u32..12, extra in 0u32..14, hosts in 1u32..3, seed in 0u64..1_000_000,
    ) {
        let net = random_net(switches, extra, hosts, seed);
        for engine in ["minhop", "sssp", "dfsssp"] {
            let r = routing::route(&net, engine, &opts()).unwrap();
            prop_assert_eq!(r.first_non_minimal(&net).unwrap(), None);
        }
        let r = routing::route(&net, "dfsssp", &opts()).unwrap();
        let rep = r.deadlock_report(&net).unwrap();
        prop_assert!(rep.deadlock_free, "{}", rep);
        prop_assert!(rep.lanes_used <= 8);
    }

    #[test]
    fn random_networks_updown_is_legal_and_acyclic(
        switches in 2u32..14, extra in 0u32..16, seed in 0u64..1_000_000,
    ) {
        let net = random_net(switches, extra, 1, seed);
        let r = routing::route(&net, "updown", &opts()).unwrap();
        assert_up_down(&net, &r, central_switch(&net));
        let rep = r.deadlock_report(&net).unwrap();
        prop_assert!(rep.deadlock_free, "{}", rep);
        prop_assert_eq!(rep.lanes_used, 1);
    }

    /// Nue and dnup on random fabrics (parallel cables, several hosts per
    /// switch): acyclic channel dependencies within the lanes allowed,
    /// every pair reached.
    #[test]
    fn random_networks_nue_and_dnup_are_deadlock_free(
        switches in 2u32..16, extra in 0u32..20, hosts in 1u32..3, lanes in 1u8..5,
        seed in 0u64..1_000_000,
    ) {
        let net = random_net(switches, extra, hosts, seed);
        let o = RoutingOptions { max_lanes: lanes, ..opts() };
        for engine in ["nue", "dnup"] {
            let r = routing::route(&net, engine, &o).unwrap();
            let rep = r.deadlock_report(&net).unwrap();
            prop_assert!(rep.deadlock_free, "{engine}: {}", rep);
            prop_assert!(rep.lanes_used <= lanes);
            prop_assert!(r.max_hops(&net).is_ok());
        }
    }
}

/// The random topology class of Domke et al. (64 switches, 1024 endpoints,
/// 128 switch links): every heuristic ends deadlock-free within 15 lanes, and
/// breaking the weakest edge needs no more lanes than the other heuristics.
#[test]
fn dfsssp_on_the_papers_random_topologies() {
    for seed in 1..=3 {
        let net = spec::build(&format!(
            "random:switches=64,ports=20,hosts=16,links=128,seed={seed}"
        ))
        .unwrap();
        let mut needed = Vec::new();
        for h in [Heuristic::Weakest, Heuristic::First, Heuristic::Heaviest] {
            let t0 = std::time::Instant::now();
            let o = RoutingOptions {
                heuristic: h,
                max_lanes: 15,
                ..opts()
            };
            let r = routing::route(&net, "dfsssp", &o).unwrap();
            let took = t0.elapsed();
            let rep = r.deadlock_report(&net).unwrap();
            assert!(rep.deadlock_free, "{rep}");
            assert!(r.lanes_needed() >= 2 && r.lanes_needed() <= 15);
            needed.push(r.lanes_needed());
            eprintln!(
                "seed {seed} {}: {} lanes needed, {:?}",
                h.name(),
                r.lanes_needed(),
                took
            );
        }
        assert!(
            needed[0] <= needed[1] && needed[1] <= needed[2],
            "{needed:?}"
        );
    }
}

#[test]
fn multipath_keeps_every_minimal_path_or_k_of_them() {
    use routelab_core::network::metrics::count_shortest_paths;
    let mut nets: Vec<Network> = (0..3).map(|seed| random_fabric(10, 2, seed)).collect();
    nets.push(spec::build("torus:4x3,c=2").unwrap());
    nets.push(spec::build("xgft:m=4x4,w=1x3").unwrap());
    for net in &nets {
        let all = routing::route(net, "multipath", &opts()).unwrap();
        let mut two = opts();
        two.set("paths", "2").unwrap();
        let some = routing::route(net, "multipath", &two).unwrap();
        let t = net.terminals().len();
        for s in 0..t {
            for d in 0..t {
                let n = if s == d {
                    0
                } else {
                    count_shortest_paths(net, net.terminal(s), net.terminal(d)) as usize
                };
                assert_eq!(all.path_count(s, d), n, "{}: {s} -> {d}", net.name());
                assert_eq!(some.path_count(s, d), n.min(2));
                for (p, _) in some.all_paths(net, s, d).unwrap() {
                    assert_eq!(net.channel(*p.last().unwrap()).dst, net.terminal(d));
                }
            }
        }
        assert_minimal(net, &all);
        assert!(some.is_minimal(net).unwrap());
        assert_eq!(all.lanes(), 1);
        // The tables stay valid single paths for LFT export.
        let mut tables = all.clone();
        tables.set_path_set(None);
        assert_minimal(net, &tables);
    }
    let mut o = opts();
    for bad in ["-1", "65536", "many"] {
        let e = o.set("paths", bad).unwrap_err().to_string();
        assert!(e.contains("'paths'") && e.contains("0..=65535"), "{e}");
    }
    o.paths = 70_000;
    assert!(routing::route(&nets[0], "multipath", &o).is_err());
}

#[test]
fn valiant_goes_through_its_intermediate_on_two_lanes() {
    use routelab_core::routing::valiant;
    for (spec_text, tree) in [
        ("kary-ntree:k=4,n=3", true),
        ("clos:ports=8,hosts=20", true),
        ("torus:4x4", false),
        ("mesh:3x3,c=2", false),
    ] {
        let net = spec::build(spec_text).unwrap();
        let mut o = opts();
        o.seed = 17;
        let r = routing::route(&net, "valiant", &o).unwrap();
        let t = net.terminals().len();
        let mut detours = 0;
        for s in 0..t {
            let mid = valiant::intermediates(&net, 17, s).unwrap();
            for (d, w) in mid.iter().enumerate() {
                assert_eq!(r.path_count(s, d), usize::from(s != d));
                let Some(w) = *w else {
                    assert_eq!(s, d);
                    continue;
                };
                let (p, lanes) = r.path_lanes(&net, s, d).unwrap();
                assert_eq!(net.channel(p[0]).src, net.terminal(s));
                assert_eq!(net.channel(*p.last().unwrap()).dst, net.terminal(d));
                for k in 1..p.len() {
                    assert_eq!(net.channel(p[k - 1]).dst, net.channel(p[k]).src);
                }
                // Lane 0 up to the intermediate, lane 1 from it on; all on
                // lane 0 when the intermediate is the source's own switch.
                let first = lanes.iter().filter(|&&l| l == 0).count();
                assert!(lanes[..first].iter().all(|&l| l == 0));
                assert!(lanes[first..].iter().all(|&l| l == 1));
                let at = if first == p.len() { 1 } else { first };
                assert_eq!(net.channel(p[at - 1]).dst, w, "{spec_text}: {s} -> {d}");
                let dist = bfs_distances(&net, net.terminal(s))[net.terminal(d).index()];
                detours += usize::from(p.len() > dist as usize);
            }
        }
        assert!(detours > 0);
        assert!(!r.is_minimal(&net).unwrap(), "{spec_text}");
        assert_eq!(r.lanes(), 2);
        let rep = r.deadlock_report(&net).unwrap();
        assert_eq!(rep.lanes_used, 2, "{spec_text}: {rep}");
        assert_eq!(rep.paths, t * (t - 1));
        assert_eq!(rep.cycle.is_none(), rep.deadlock_free);
        if tree {
            assert!(rep.deadlock_free, "{spec_text}: {rep}");
        }
        assert!(r.max_hops(&net).unwrap() >= r.avg_hops(&net).unwrap().ceil() as usize);
        let other = routing::route(&net, "valiant", &opts()).unwrap();
        assert_ne!(other, r, "the seed picks the intermediates");
    }
}

#[test]
fn no_engine_returns_more_lanes_than_allowed() {
    // Valiant on a torus needs two phases of dateline lanes; dor needs the
    // dateline lane: with one lane allowed both are refused, saying how many
    // their routes use. Every engine that succeeds stays within the limit.
    let net = routelab_core::network::spec::build("torus:4x4").unwrap();
    let mut o = RoutingOptions::default();
    o.set("max_lanes", "1").unwrap();
    for name in ["valiant", "dor"] {
        match routing::route(&net, name, &o) {
            Err(e @ routing::RoutingError::LanesExceeded { needed, limit, .. }) => {
                assert!(needed >= 2 && limit == 1, "{e}");
                assert!(e.to_string().contains("max_lanes is 1"), "{e}");
            }
            other => panic!("{name}: expected a refusal, got {other:?}"),
        }
    }
    for (name, ..) in routing::ENGINES {
        for max in [1u8, 2, 4] {
            let mut o = RoutingOptions::default();
            o.set("max_lanes", &max.to_string()).unwrap();
            if let Ok(r) = routing::route(&net, name, &o) {
                assert!(r.lanes() <= max, "{name}: {} lanes > {max}", r.lanes());
            }
        }
    }
}

#[test]
fn routes_too_large_for_memory_are_refused_before_routing() {
    // A 64x64x64 torus: 262,144 switches and terminals, 137 GB of tables.
    // The refusal names the size and the limit and costs no routing.
    let net = spec::build("torus:64x64x64").unwrap();
    let t0 = std::time::Instant::now();
    match routing::route(&net, "dor", &RoutingOptions::default()) {
        Err(e @ RoutingError::TooLarge { bytes, limit, .. }) => {
            assert_eq!(bytes, 2 * 262_144 * 262_144);
            assert_eq!(limit, routing::DEFAULT_MEMORY_LIMIT);
            let text = e.to_string();
            assert!(
                text.contains("128.0 GiB") && text.contains("memory_limit"),
                "{text}"
            );
            // 262,144 x sqrt(8 / 128): a 32x32x64 torus would fit.
            assert!(text.contains("about 65536 terminals fit"), "{text}");
        }
        other => panic!("expected a refusal, got {:?}", other.map(|r| r.lanes())),
    }
    assert!(t0.elapsed().as_secs() < 5);
    // The limit is an option: a tight one refuses a small network, engines
    // with pair lanes or path sets count those too.
    let net = spec::build("torus:4x4").unwrap();
    let mut o = RoutingOptions::default();
    o.set("memory_limit", "600B").unwrap();
    assert!(
        routing::route(&net, "dor", &o).is_ok(),
        "512 bytes of tables"
    );
    for name in ["dfsssp", "valiant", "multipath"] {
        assert!(
            matches!(
                routing::route(&net, name, &o),
                Err(RoutingError::TooLarge { .. })
            ),
            "{name}"
        );
    }
    assert!(o.set("memory_limit", "0").is_err());
    assert!(o.set("memory_limit", "lots").is_err());
}

#[test]
fn engines_without_pair_lanes_keep_no_pair_table() {
    // Tables per destination only: every pair on lane 0 reads as lane 0.
    let net = spec::build("torus:6x6").unwrap();
    let r = routing::route(&net, "dor", &RoutingOptions::default()).unwrap();
    assert_eq!(r.lane(3, 17), 0);
    let d = routing::route(&net, "dfsssp", &RoutingOptions::default()).unwrap();
    assert!(d.lanes() >= 2);
}
