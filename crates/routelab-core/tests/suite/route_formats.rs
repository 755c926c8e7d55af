//! D-mod-k and LASH routing, and the route file formats: LFT dumps, lane
//! tables, ORCS-style DOT and paths files, with the deadlock audit of
//! imported tables.

use proptest::prelude::*;
use routelab_core::network::io::ibnetdiscover;
use routelab_core::network::metrics::{bfs_distances, UNREACHABLE};
use routelab_core::network::{build, spec};
use routelab_core::routing::formats::{
    self, assign_lids, read_lanes, read_lfts, read_sl2vl, write_lanes, write_lfts, write_orcs_dot,
    write_paths, write_sl2vl,
};
use routelab_core::routing::{self, Routes, RoutingError, RoutingOptions};
use routelab_core::{Network, NodeId};
use std::collections::{HashMap, HashSet};

const SMALL: &str = include_str!("../../../../examples/fabrics/small.ibnet");

fn opts() -> RoutingOptions {
    RoutingOptions::default()
}

fn lanes(max_lanes: u8) -> RoutingOptions {
    RoutingOptions {
        max_lanes,
        ..opts()
    }
}

/// Asserts every path is as long as the terminal-to-terminal BFS distance.
fn assert_minimal(net: &Network, r: &Routes) {
    let t = net.terminals().len();
    for s in 0..t {
        let dist = bfs_distances(net, net.terminal(s));
        for d in (0..t).filter(|&d| d != s) {
            let dd = dist[net.terminal(d).index()];
            assert_ne!(dd, UNREACHABLE);
            let p = r.path(net, s, d).unwrap();
            assert_eq!(
                p.len(),
                dd as usize,
                "{} on {}: {s} -> {d} takes {} hops, distance {dd}",
                r.engine(),
                net.name(),
                p.len()
            );
        }
    }
    assert!(r.is_minimal(net).unwrap());
}

fn assert_deadlock_free(net: &Network, r: &Routes, lanes: u8) {
    let rep = r.deadlock_report(net).unwrap();
    assert!(rep.deadlock_free, "{} on {}: {rep}", r.engine(), net.name());
    assert!(
        rep.lanes_used <= lanes,
        "{} on {}: {rep}",
        r.engine(),
        net.name()
    );
}

/// Per channel: the distinct destinations of all paths crossing it.
fn destinations_per_channel(net: &Network, r: &Routes) -> Vec<HashSet<usize>> {
    let t = net.terminals().len();
    let mut out = vec![HashSet::new(); net.channel_count()];
    for s in 0..t {
        for d in 0..t {
            for c in r.path(net, s, d).unwrap() {
                out[c.index()].insert(d);
            }
        }
    }
    out
}

// ---------------------------------------------------------------- dmodk

#[test]
fn dmodk_is_minimal_and_acyclic_on_one_lane() {
    for s in [
        "kary-ntree:k=4,n=3",
        "xgft:m=4x4,w=1x4",
        "clos:ports=8,hosts=32",
        "clos:ports=8,hosts=13",
        "xgft:m=3x2x2,w=2x2x3",
        "crossbar:4",
    ] {
        let net = spec::build(s).unwrap();
        let r = routing::route(&net, "dmodk", &opts()).unwrap();
        assert_eq!(r.engine(), "dmodk");
        assert_minimal(&net, &r);
        assert_eq!(r.lanes(), 1, "{s}");
        assert_deadlock_free(&net, &r, 1);
    }
}

/// XGFT levels of every switch of a generated tree (terminals: 0).
fn tree_levels(net: &Network, m: &[u32], w: &[u32]) -> Vec<u32> {
    net.node_ids()
        .map(|v| {
            if net.is_terminal(v) {
                0
            } else {
                build::tree::xgft_level_and_label(m, w, v.0).unwrap().0
            }
        })
        .collect()
}

#[test]
fn dmodk_balances_up_channels_on_a_full_kary_ntree() {
    let (k, n) = (4u32, 3u32);
    let net = spec::build("kary-ntree:k=4,n=3").unwrap();
    let (m, mut w) = (vec![k; n as usize], vec![k; n as usize]);
    w[0] = 1;
    let level = tree_levels(&net, &m, &w);
    let r = routing::route(&net, "dmodk", &opts()).unwrap();
    let dests = destinations_per_channel(&net, &r);
    // Up channels leaving level i carry k^(n-i) - 1 destinations each.
    for i in 1..n {
        let counts: Vec<usize> = net
            .channel_ids()
            .filter(|&c| {
                let ch = net.channel(c);
                net.is_switch(ch.src)
                    && level[ch.src.index()] == i
                    && level[ch.dst.index()] == i + 1
            })
            .map(|c| dests[c.index()].len())
            .collect();
        assert_eq!(counts.len(), (k.pow(n - 1) * k) as usize);
        let expect = (k.pow(n - i) - 1) as usize;
        assert!(
            counts.iter().all(|&c| c == expect),
            "level {i}: {counts:?}, expected {expect} each"
        );
    }
    // Each destination is reached through one top switch only, and every
    // switch forwards it one way.
    let t = net.terminals().len();
    for d in 0..t {
        let mut tops = HashSet::new();
        for s in 0..t {
            for c in r.path(&net, s, d).unwrap() {
                let v = net.channel(c).dst;
                if net.is_switch(v) && level[v.index()] == n {
                    tops.insert(v);
                }
            }
        }
        assert_eq!(tops.len(), 1, "destination {d} via {tops:?}");
    }
}

#[test]
fn dmodk_routes_shift_permutations_without_contention() {
    let net = spec::build("kary-ntree:k=4,n=3").unwrap();
    let r = routing::route(&net, "dmodk", &opts()).unwrap();
    let t = net.terminals().len();
    for shift in 1..t {
        let mut load = vec![0u32; net.channel_count()];
        for s in 0..t {
            for c in r.path(&net, s, (s + shift) % t).unwrap() {
                load[c.index()] += 1;
            }
        }
        let max = load.iter().max().copied().unwrap_or(0);
        assert_eq!(max, 1, "shift {shift}: a channel carries {max} flows");
    }
}

#[test]
fn dmodk_needs_a_tree() {
    for s in ["torus:4x4", "kautz:b=2,n=2", "random:switches=6,seed=3"] {
        let net = spec::build(s).unwrap();
        let e = routing::route(&net, "dmodk", &opts()).unwrap_err();
        assert!(matches!(e, RoutingError::Unfit { .. }), "{s}: {e}");
        let text = e.to_string();
        assert!(
            text.contains("dmodk needs a k-ary n-tree, XGFT or Clos"),
            "{s}: {text}"
        );
    }
    // A tree grown after generation no longer matches its parameters.
    let net = spec::build("kary-ntree:k=2,n=2").unwrap();
    let mut b = net.to_builder();
    b.add_switch("extra", 4);
    let grown = b.build().unwrap();
    let e = routing::route(&grown, "dmodk", &opts()).unwrap_err();
    assert!(
        matches!(e, RoutingError::Unfit { .. }) && e.to_string().contains("do not match"),
        "{e}"
    );
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 32, ..ProptestConfig::default() })]

    #[test]
    fn dmodk_on_small_xgfts(
        levels in proptest::collection::vec((1u32..4, 1u32..4), 1..4),
    ) {
        let (m, w): (Vec<u32>, Vec<u32>) = levels.into_iter().unzip();
        let net = build::xgft(&m, &w).unwrap();
        let r = routing::route(&net, "dmodk", &opts()).unwrap();
        prop_assert_eq!(r.first_non_minimal(&net).unwrap(), None);
        let t = net.terminals().len();
        for s in 0..t {
            let dist = bfs_distances(&net, net.terminal(s));
            for d in (0..t).filter(|&d| d != s) {
                prop_assert_eq!(
                    r.path(&net, s, d).unwrap().len(),
                    dist[net.terminal(d).index()] as usize
                );
            }
        }
        let rep = r.deadlock_report(&net).unwrap();
        prop_assert!(rep.deadlock_free, "{}", rep);
        prop_assert!(rep.lanes_used <= 1);
    }
}

// ----------------------------------------------------------------- lash

#[test]
fn lash_is_minimal_and_deadlock_free() {
    let mut nets: Vec<Network> = [
        "torus:4x4",
        "torus:3x3x3",
        "torus:5",
        "torus:4x3,c=2",
        "mesh:4x4",
        "hypercube:4",
        "kautz:b=2,n=2,hosts=2",
        "kautz:b=3,n=2",
        "kary-ntree:k=2,n=3",
        "dragonfly:a=4,p=2,h=2",
        "crossbar:4",
    ]
    .iter()
    .map(|s| spec::build(s).unwrap())
    .collect();
    for seed in 1..=6 {
        nets.push(spec::build(&format!("random:switches=16,ports=6,hosts=2,seed={seed}")).unwrap());
    }
    for net in &nets {
        let r = routing::route(net, "lash", &opts()).unwrap();
        assert_eq!(r.engine(), "lash");
        assert_minimal(net, &r);
        assert_eq!(r.lanes(), r.lanes_needed());
        assert_deadlock_free(net, &r, r.lanes());
    }
    // A dual-homed terminal injects through its first port, so paths are
    // minimal from the switch it injects into.
    let net = ibnetdiscover::from_str(SMALL, "small.ibnet").unwrap();
    let r = routing::route(&net, "lash", &opts()).unwrap();
    assert!(r.is_minimal(&net).unwrap());
    assert_deadlock_free(&net, &r, 1);
}

#[test]
fn lash_reports_the_lanes_it_needs() {
    let net = spec::build("torus:4x4").unwrap();
    let r = routing::route(&net, "lash", &opts()).unwrap();
    let needed = r.lanes();
    assert!(needed >= 2, "a 4x4 torus needs more than one lane");
    let e = routing::route(&net, "lash", &lanes(1)).unwrap_err();
    assert!(
        matches!(e, RoutingError::LanesExceeded { limit: 1, needed: n, at_least: false, .. } if n == u32::from(needed)),
        "{e}"
    );
    let text = e.to_string();
    assert!(
        text.contains(&format!("lash needs {needed} lanes")) && text.contains("max_lanes is 1"),
        "{text}"
    );
    // Exactly enough lanes is fine; trees need one.
    assert!(routing::route(&net, "lash", &lanes(needed)).is_ok());
    let tree = spec::build("xgft:m=4x4,w=1x4").unwrap();
    let r = routing::route(&tree, "lash", &lanes(1)).unwrap();
    assert_eq!(r.lanes(), 1);
}

// ------------------------------------------------------------ LFT dumps

/// Every (engine, network) pair that routes.
fn routed_cases() -> Vec<(Network, Routes)> {
    let mut nets: Vec<Network> = [
        "torus:4x4",
        "torus:5",
        "mesh:3x3,c=2",
        "kary-ntree:k=4,n=2",
        "clos:ports=8,hosts=13",
        "kautz:b=2,n=2,hosts=2",
        "random:switches=16,ports=6,hosts=2,seed=7",
    ]
    .iter()
    .map(|s| spec::build(s).unwrap())
    .collect();
    nets.push(ibnetdiscover::from_str(SMALL, "examples/fabrics/small.ibnet").unwrap());
    let mut out = Vec::new();
    for net in nets {
        for engine in ["minhop", "sssp", "dfsssp", "updown", "dor", "dmodk", "lash"] {
            match routing::route(&net, engine, &opts()) {
                Ok(r) => out.push((net.clone(), r)),
                Err(RoutingError::Unfit { .. }) => {}
                Err(e) => panic!("{engine} on {}: {e}", net.name()),
            }
        }
    }
    out
}

fn assert_same_paths(net: &Network, a: &Routes, b: &Routes) {
    let t = net.terminals().len();
    for s in 0..t {
        for d in 0..t {
            assert_eq!(
                a.path(net, s, d).unwrap(),
                b.path(net, s, d).unwrap(),
                "{} on {}: {s} -> {d}",
                a.engine(),
                net.name()
            );
        }
    }
}

#[test]
fn lft_dumps_round_trip() {
    let cases = routed_cases();
    let engines: HashSet<&str> = cases.iter().map(|(_, r)| r.engine()).collect();
    assert_eq!(engines.len(), 7, "{engines:?}");
    for (net, r) in &cases {
        let text = write_lfts(net, r).unwrap();
        let back = read_lfts(net, &text, "opensm-lfts.dump").unwrap();
        assert_eq!(back.engine(), "opensm-lfts.dump");
        // A multi-homed terminal is read back as routed to the port of its
        // own LID (the dump routes each port LID to its port); the others
        // keep their tables and paths.
        let single: Vec<bool> = net
            .terminals()
            .iter()
            .map(|&t| net.out_channels(t).len() == 1)
            .collect();
        for x in 0..net.switches().len() {
            for (d, _) in single.iter().enumerate().filter(|(_, &s)| s) {
                assert_eq!(
                    back.port(x, d),
                    r.port(x, d),
                    "{} on {}",
                    r.engine(),
                    net.name()
                );
            }
        }
        let t = net.terminals().len();
        for s in 0..t {
            for (d, &one) in single.iter().enumerate() {
                if one {
                    assert_eq!(r.path(net, s, d).unwrap(), back.path(net, s, d).unwrap());
                } else if s != d {
                    let path = back.path(net, s, d).unwrap();
                    let last = net.channel(*path.last().unwrap());
                    let first = net.channel(net.out_channels(net.terminal(d))[0]);
                    assert_eq!(
                        last.dst_port,
                        first.src_port,
                        "{} on {}",
                        r.engine(),
                        net.name()
                    );
                }
            }
        }
        assert_eq!(back.lanes(), 1);
        // Writing again gives the same text.
        assert_eq!(
            write_lfts(net, &back)
                .unwrap()
                .lines()
                .skip(1)
                .collect::<Vec<_>>(),
            text.lines().skip(1).collect::<Vec<_>>()
        );
    }
}

#[test]
fn imported_fabrics_keep_their_lids() {
    let net = ibnetdiscover::from_str(SMALL, "small.ibnet").unwrap();
    let lids = assign_lids(&net).unwrap();
    assert!(lids.from_fabric());
    let leaf1 = net.find("MF0;leaf-1:SX6036/U1").unwrap();
    let storage = net.find("storage01 mlx5_0").unwrap();
    assert_eq!(lids.lid(leaf1), 1);
    assert_eq!(lids.lid(storage), 7);
    // The storage node's second port has LID 8, which names it too.
    assert_eq!(lids.lookup(8).unwrap().node, storage);
    assert!(!lids.lookup(8).unwrap().primary);
    let r = routing::route(&net, "minhop", &opts()).unwrap();
    let text = write_lfts(&net, &r).unwrap();
    assert!(
        text.contains(
            "Unicast lids [0-8] of switch Lid 1 guid 0x0002c902004a0950 ('MF0;leaf-1:SX6036/U1'):"
        ),
        "{text}"
    );
    assert!(
        text.contains(
            "0x0008 010 # Channel Adapter portguid 0x248a070300c0ffe2: 'storage01 mlx5_0'"
        ),
        "{text}"
    );
    assert!(
        text.contains("0x0001 000 # Switch portguid 0x0002c902004a0950"),
        "{text}"
    );
}

/// The 1-D torus `torus:4`: switches s0..s3 (LIDs 1..4; port 1 to +1, port
/// 2 to -1, port 3 to the terminal), terminals h0..h3 (LIDs 5..8).
fn ring4() -> Network {
    let net = spec::build("torus:4").unwrap();
    let lids = assign_lids(&net).unwrap();
    for i in 0..4u32 {
        let s = net.switches()[i as usize];
        assert_eq!(net.node(s).name, format!("s{i}"));
        assert_eq!(lids.lid(s), i as u16 + 1);
        assert_eq!(lids.lid(net.terminal(i as usize)), i as u16 + 5);
        assert_eq!(
            net.node(s).guid,
            0x0002_c900_0000_0000 | u64::from(i + 1) << 8
        );
    }
    net
}

#[test]
fn loops_and_black_holes_in_dumps_name_the_pair() {
    let net = ring4();
    // s0 sends h2 (LID 7) up to s1, s1 sends it back: a loop. s0 has no
    // entry for h3 (LID 8): a black hole. h1 (LID 6) is fine.
    let text = "Unicast lids [0-8] of switch Lid 1 guid 0x0002c90000000100 ('s0'):\n\
                0x0006 001\n\
                0x0007 001\n\
                2 lids dumped\n\
                Unicast lids [0-8] of switch Lid 2 guid 0x0002c90000000200 ('s1'):\n\
                0x0006 003\n\
                0x0007 002\n\
                2 lids dumped\n";
    let r = read_lfts(&net, text, "hand.dump").unwrap();
    assert_eq!(r.path(&net, 0, 1).unwrap().len(), 3);
    let e = r.path(&net, 0, 2).unwrap_err();
    assert!(matches!(e, RoutingError::Loop { .. }), "{e}");
    let s = e.to_string();
    assert!(s.contains("from h0 to h2") && s.contains("switch s"), "{s}");
    let e = r.path(&net, 0, 3).unwrap_err();
    assert!(
        matches!(&e, RoutingError::BlackHole { src, dst, switch, .. }
            if src == "h0" && dst == "h3" && switch == "s0"),
        "{e}"
    );
    // Audits walk every pair and stop at the first broken one.
    assert!(r.deadlock_report(&net).is_err());
    assert!(r.is_minimal(&net).is_err());
    // Sent into a terminal that is not the destination.
    let text = "Unicast lids [0-8] of switch Lid 1 guid 0x0002c90000000100 ('s0'):\n\
                0x0006 003\n";
    let r = read_lfts(&net, text, "hand.dump").unwrap();
    let e = r.path(&net, 0, 1).unwrap_err();
    assert!(
        matches!(&e, RoutingError::BlackHole { switch, reason, .. }
            if switch == "s0" && reason.contains("terminal h0")),
        "{e}"
    );
    // Switches named by LID alone; port 255 is "no path".
    let text = "Unicast lids [0-8] of switch Lid 1:\n0x0006 255\n";
    let r = read_lfts(&net, text, "hand.dump").unwrap();
    assert_eq!(r.port(0, 1), None);
}

#[test]
fn malformed_dumps_name_the_line() {
    let net = spec::build("crossbar:3").unwrap();
    let head = "Unicast lids [0-4] of switch Lid 1 guid 0x0002c90000000100 ('s0'):\n";
    let cases: Vec<(String, usize, &str)> = vec![
        (String::new(), 1, "not an LFT dump"),
        ("# only a comment\n".into(), 1, "not an LFT dump"),
        ("0x0002 001\n".into(), 1, "before any switch"),
        (
            format!("{head}0x0002 001\nhello there\n"),
            3,
            "cannot read 'hello there'",
        ),
        (format!("\n{head}0xZZ 001\n"), 3, "cannot read the LID"),
        (format!("{head}0x0002\n"), 2, "cannot read the port"),
        (format!("{head}0x0002 one\n"), 2, "cannot read the port"),
        (format!("{head}0x0002 004\n"), 2, "port 4 does not exist"),
        (
            format!("{head}0x0009 001\n"),
            2,
            "LID 0x0009 belongs to no switch or terminal",
        ),
        (format!("{head}0xc000 001\n"), 2, "not a unicast LID"),
        (
            format!("{head}0x0002 001\n0x0002 002\n"),
            3,
            "line 2 says port 1",
        ),
        (
            format!("{head}0x0002 001\n{head}"),
            3,
            "second section (the first is at line 1)",
        ),
        (
            "Unicast lids [0-4] of switch Lid 9 guid 0x00000000000000ff ('x'):\n".into(),
            1,
            "no switch of 'crossbar:3' has GUID 0x00000000000000ff or LID 9",
        ),
        (
            "Unicast lids [0-4] of switch Lid 2:\n".into(),
            1,
            "has LID 2",
        ),
        (
            "Unicast lids [0-4] of switch:\n".into(),
            1,
            "needs the switch's 'guid 0x...' or 'Lid N'",
        ),
        (
            "Unicast lids of switch guid 0xnothex\n".into(),
            1,
            "cannot read the switch GUID",
        ),
        (
            "Unicast lids of switch Lid x guid 0x1\n".into(),
            1,
            "cannot read the switch LID",
        ),
        (
            "Multicast mlids [0xc000-0xc001] of switch Lid 1 guid 0x1:\n".into(),
            1,
            "multicast",
        ),
    ];
    for (text, line, what) in cases {
        let e = read_lfts(&net, &text, "bad.dump").unwrap_err();
        assert!(matches!(e, RoutingError::Parse { .. }), "{e}");
        let s = e.to_string();
        assert!(
            s.starts_with(&format!("bad.dump:{line}: ")) && s.contains(what),
            "{text:?}: {s}"
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// Arbitrary text, and dumps with lines cut or swapped, never panic.
    #[test]
    fn dump_reading_never_panics(
        noise in "[ -~\n]{0,200}",
        cut in 0usize..2000,
        swap in (0usize..40, 0usize..40),
    ) {
        let net = spec::build("torus:3,c=2").unwrap();
        let _ = read_lfts(&net, &noise, "x");
        let mut routes = Routes::new(&net, "x");
        let _ = read_lanes(&net, &mut routes, &noise, "x");
        let _ = formats::read_path_records(&net, &mut routes, &noise, "x");
        let _ = formats::read_path_records(
            &net,
            &mut routes,
            &format!("Channel Adapter 0x1, base LID 4, \"h\", port 1\n{noise}"),
            "x",
        );
        let r = routing::route(&net, "minhop", &opts()).unwrap();
        let text = write_lfts(&net, &r).unwrap();
        let cut = text.char_indices().nth(cut).map_or(text.len(), |(i, _)| i);
        let _ = read_lfts(&net, &text[..cut], "x");
        let mut lines: Vec<&str> = text.lines().collect();
        let (a, b) = (swap.0 % lines.len(), swap.1 % lines.len());
        lines.swap(a, b);
        if let Ok(back) = read_lfts(&net, &lines.join("\n"), "x") {
            let _ = back.deadlock_report(&net);
        }
    }
}

#[test]
fn imported_minhop_tables_of_a_ring_are_audited() {
    // A ring of five routed minimally: the dump, read back on one lane,
    // has a dependency cycle around the ring.
    let net = spec::build("torus:5").unwrap();
    let r = routing::route(&net, "minhop", &opts()).unwrap();
    let back = read_lfts(&net, &write_lfts(&net, &r).unwrap(), "ring.dump").unwrap();
    let rep = back.deadlock_report(&net).unwrap();
    assert!(!rep.deadlock_free);
    assert_eq!(rep.lanes_used, 1);
    let cycle = rep.cycle.unwrap();
    assert_eq!(cycle.hops.len(), 5);
    assert!(cycle.text.contains("(lane 0)"), "{}", cycle.text);
}

// ---------------------------------------------------------- lane tables

#[test]
fn lane_tables_round_trip_and_complete_an_audit() {
    for (spec_text, engine) in [
        ("torus:5", "dfsssp"),
        ("torus:4x4", "dfsssp"),
        ("torus:4x4", "lash"),
        ("kautz:b=2,n=2,hosts=2", "lash"),
    ] {
        let net = spec::build(spec_text).unwrap();
        let r = routing::route(&net, engine, &opts()).unwrap();
        assert!(r.lanes() >= 2 || spec_text.starts_with("kautz"));
        let lfts = write_lfts(&net, &r).unwrap();
        let lanes_text = write_lanes(&net, &r).unwrap();
        let mut back = read_lfts(&net, &lfts, "opensm-lfts.dump").unwrap();
        let rep = back.deadlock_report(&net).unwrap();
        if r.lanes() > 1 {
            // Tables alone, on one lane, have the cycles the lanes break.
            assert!(!rep.deadlock_free, "{engine} on {spec_text}");
        }
        read_lanes(&net, &mut back, &lanes_text, "lanes.txt").unwrap();
        let t = net.terminals().len();
        for s in 0..t {
            for d in (0..t).filter(|&d| d != s) {
                assert_eq!(back.lane(s, d), r.lane(s, d));
            }
        }
        assert_eq!(back.lanes(), r.lanes());
        let rep = back.deadlock_report(&net).unwrap();
        assert!(rep.deadlock_free, "{engine} on {spec_text}: {rep}");
        assert_eq!(
            write_lanes(&net, &back)
                .unwrap()
                .lines()
                .skip(1)
                .collect::<Vec<_>>(),
            lanes_text.lines().skip(1).collect::<Vec<_>>()
        );
    }
}

#[test]
fn lane_tables_use_fabric_lids() {
    let net = ibnetdiscover::from_str(SMALL, "small.ibnet").unwrap();
    let r = routing::route(&net, "minhop", &opts()).unwrap();
    let node01 = net.kind_index(net.find("node01 mlx5_0").unwrap());
    let storage = net.kind_index(net.find("storage01 mlx5_0").unwrap());
    let mut back = read_lfts(&net, &write_lfts(&net, &r).unwrap(), "f").unwrap();
    // LID 3 is node01, LID 8 the storage node's second port.
    read_lanes(
        &net,
        &mut back,
        "# hand\n3 8 2\n0x0007 0x0003 1\n",
        "lanes.txt",
    )
    .unwrap();
    // A LID has its own SL: LID 8 is not the storage node's own LID 7.
    assert_eq!(back.lane(node01, storage), 0);
    assert_eq!(back.lane(storage, node01), 1);
    let view = routing::LidRoutes::of(&net, &back).unwrap();
    let entry = |lid: u16| {
        view.lids
            .entries()
            .iter()
            .position(|e| e.lid == lid)
            .unwrap()
    };
    let sender = view
        .senders
        .iter()
        .position(|s| s.entry == entry(3))
        .unwrap();
    assert_eq!(view.sl(sender, entry(8)), 2);
    assert_eq!(view.sl(sender, entry(7)), 0);
    let text = write_lanes(&net, &back).unwrap();
    assert!(text.contains("\n0x0003 0x0008 2\n"), "{text}");
    assert!(text.contains("\n0x0007 0x0003 1\n"), "{text}");
}

// ------------------------------------------------ DOT and paths files

#[test]
fn orcs_dot_lists_destinations_per_edge() {
    let net = spec::build("kary-ntree:k=2,n=2").unwrap();
    let r = routing::route(&net, "dmodk", &opts()).unwrap();
    let dot = write_orcs_dot(&net, &r).unwrap();
    let dests = destinations_per_channel(&net, &r);
    let edges: Vec<&str> = dot.lines().filter(|l| l.contains(" -> ")).collect();
    assert_eq!(edges.len(), net.channel_count());
    for (c, line) in net.channel_ids().zip(&edges) {
        let ch = net.channel(c);
        let head = format!(
            "  \"{}\" -> \"{}\" [comment=\"",
            net.node(ch.src).name,
            net.node(ch.dst).name
        );
        assert!(line.starts_with(&head), "{line}");
        let comment = &line[head.len()..line.len() - "\"];".len()];
        if net.is_terminal(ch.src) {
            assert_eq!(comment, "*");
            continue;
        }
        let mut expect: Vec<usize> = dests[c.index()].iter().copied().collect();
        expect.sort_unstable();
        let names: Vec<String> = expect
            .iter()
            .map(|&d| net.node(net.terminal(d)).name.clone())
            .collect();
        assert_eq!(comment, names.join(","), "{line}");
    }
}

#[test]
fn paths_file_has_a_line_per_pair_with_real_nodes() {
    for (spec_text, engine) in [("torus:4x4", "dfsssp"), ("xgft:m=4x4,w=1x4", "dmodk")] {
        let net = spec::build(spec_text).unwrap();
        let r = routing::route(&net, engine, &opts()).unwrap();
        let mut out = Vec::new();
        write_paths(&net, &r, &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        let t = net.terminals().len();
        assert_eq!(text.lines().count(), t * (t - 1));
        let index: HashMap<&str, NodeId> = net
            .node_ids()
            .map(|v| (net.node(v).name.as_str(), v))
            .collect();
        let mut pairs = HashSet::new();
        for line in text.lines() {
            let v: serde_json::Value = serde_json::from_str(line).unwrap();
            let (src, dst) = (v["src"].as_str().unwrap(), v["dst"].as_str().unwrap());
            assert!(pairs.insert((src.to_string(), dst.to_string())));
            let (s, d) = (index[src], index[dst]);
            assert!(net.is_terminal(s) && net.is_terminal(d) && s != d);
            let lane = v["lane"].as_u64().unwrap() as u8;
            assert_eq!(lane, r.lane(net.kind_index(s), net.kind_index(d)));
            let path: Vec<NodeId> = v["path"]
                .as_array()
                .unwrap()
                .iter()
                .map(|x| index[x.as_str().unwrap()])
                .collect();
            assert_eq!((path[0], *path.last().unwrap()), (s, d));
            for w in path.windows(2) {
                assert!(net.neighbors(w[0]).any(|x| x == w[1]), "{line}");
            }
            assert_eq!(
                path.len() - 1,
                r.hops(&net, net.kind_index(s), net.kind_index(d)).unwrap()
            );
        }
    }
}

#[test]
fn save_all_writes_the_three_files() {
    let net = spec::build("torus:4x4").unwrap();
    let r = routing::route(&net, "lash", &opts()).unwrap();
    let dir = std::env::temp_dir().join(format!("routelab-route-formats-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    formats::save_all(&net, &r, &dir.join("out"), true).unwrap();
    let out = dir.join("out");
    let lfts = std::fs::read_to_string(out.join(formats::LFTS_FILE)).unwrap();
    let lanes_text = std::fs::read_to_string(out.join(formats::LANES_FILE)).unwrap();
    let paths = std::fs::read_to_string(out.join(formats::PATHS_FILE)).unwrap();
    let mut back = read_lfts(&net, &lfts, "opensm-lfts.dump").unwrap();
    read_lanes(&net, &mut back, &lanes_text, "lanes.txt").unwrap();
    assert_same_paths(&net, &r, &back);
    assert!(back.deadlock_report(&net).unwrap().deadlock_free);
    assert_eq!(paths.lines().count(), 16 * 15);
    // A file where the directory should be cannot be written.
    let e = formats::save_all(&net, &r, &out.join(formats::LFTS_FILE), false).unwrap_err();
    assert!(matches!(e, RoutingError::Io { .. }), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn formats_check_the_network() {
    let net = spec::build("torus:4").unwrap();
    let other = spec::build("torus:5").unwrap();
    let r = routing::route(&net, "minhop", &opts()).unwrap();
    assert!(matches!(
        write_lfts(&other, &r),
        Err(RoutingError::Mismatch { .. })
    ));
    assert!(matches!(
        write_lanes(&other, &r),
        Err(RoutingError::Mismatch { .. })
    ));
    assert!(matches!(
        write_orcs_dot(&other, &r),
        Err(RoutingError::Mismatch { .. })
    ));
    let mut sink = Vec::new();
    assert!(matches!(
        write_paths(&other, &r, &mut sink),
        Err(RoutingError::Mismatch { .. })
    ));
    let mut r2 = r.clone();
    assert!(matches!(
        read_lanes(&other, &mut r2, "", "x"),
        Err(RoutingError::Mismatch { .. })
    ));
    // The dump of a larger ring read on a smaller one names a LID it lacks.
    let r5 = routing::route(&other, "minhop", &opts()).unwrap();
    let e = read_lfts(&net, &write_lfts(&other, &r5).unwrap(), "x").unwrap_err();
    assert!(matches!(e, RoutingError::Parse { .. }), "{e}");
}

/// An administrator's audit of DFSSSP service levels: with SL `i` on VL `i`
/// (QoS on, as DFSSSP needs) the SLs of the lane table keep the subnet
/// deadlock-free; with every SL on VL 0 (OpenSM's tables without QoS) the
/// same routes and SLs deadlock, and the check shows the cycle; an SL
/// mapped to VL 15 is dropped. The dump round-trips through its text.
#[test]
fn sl2vl_tables_decide_the_vls_the_audit_checks() {
    let net = ibnetdiscover::from_str(
        &ibnetdiscover::to_string(&spec::build("torus:5").unwrap()),
        "ring",
    )
    .unwrap();
    let routes = routing::route(&net, "dfsssp", &lanes(2)).unwrap();
    assert_eq!(routes.lanes_needed(), 2);
    let lfts = write_lfts(&net, &routes).unwrap();
    let lane_table = write_lanes(&net, &routes).unwrap();
    let audit = |sl2vl: &str| {
        let mut r = read_lfts(&net, &lfts, "opensm-lfts.dump").unwrap();
        read_lanes(&net, &mut r, &lane_table, "lanes.txt").unwrap();
        let t = read_sl2vl(&net, sl2vl, "opensm-sl2vl.dump").unwrap();
        r.set_lane_rule(routing::LaneRule::SlToVl(t));
        r
    };
    let identity = write_sl2vl(&net, &routing::SlToVl::new(&net)).unwrap();
    assert!(identity.contains("Channel Adapter 0x") && identity.contains("Switch 0x"));
    let r = audit(&identity);
    let rep = r.deadlock_report(&net).unwrap();
    assert!(rep.deadlock_free, "{rep}");
    assert_eq!(rep.lanes_used, 2);
    assert!(r.dropped_pairs(&net).unwrap().is_empty());
    // Every SL on VL 0.
    let zero: String = identity
        .lines()
        .map(|l| match l.split_once(':') {
            Some((ports, _)) if !l.starts_with('#') => format!("{ports}:{}\n", " 0".repeat(16)),
            _ => format!("{l}\n"),
        })
        .collect();
    let r = audit(&zero);
    let rep = r.deadlock_report(&net).unwrap();
    assert!(!rep.deadlock_free && rep.cycle.is_some(), "{rep}");
    assert_eq!(r.lanes(), 1);
    // SL 1 dropped: every pair DFSSSP put on lane 1.
    let drop: String = identity
        .lines()
        .map(|l| match l.split_once(':') {
            Some((ports, vls)) if !l.starts_with('#') => {
                let mut v: Vec<&str> = vls.split_whitespace().collect();
                v[1] = "15";
                format!("{ports}: {}\n", v.join(" "))
            }
            _ => format!("{l}\n"),
        })
        .collect();
    let r = audit(&drop);
    let dropped = r.dropped_pairs(&net).unwrap();
    let on_one = (0..5)
        .flat_map(|s| (0..5).map(move |d| (s, d)))
        .filter(|&(s, d)| s != d && routes.lane(s, d) == 1)
        .count();
    assert!(on_one > 0);
    assert_eq!(dropped.len(), on_one);
    assert!(dropped.iter().all(|&(_, _, hop)| hop == 0));
    // Round trip.
    let t = read_sl2vl(&net, &zero, "x").unwrap();
    assert_eq!(
        read_sl2vl(&net, &write_sl2vl(&net, &t).unwrap(), "y").unwrap(),
        t
    );
}

/// OpenSM's path records stand where the lane table stood: their SLs give
/// the same lanes, so the audit on the subnet's SL-to-VL tables finds the
/// same (and, with every SL on VL 0, the same cycle).
#[test]
fn path_records_give_the_audit_the_subnets_sls() {
    let net = ibnetdiscover::from_str(
        &ibnetdiscover::to_string(&spec::build("torus:5,c=2").unwrap()),
        "ring",
    )
    .unwrap();
    let routes = routing::route(&net, "dfsssp", &lanes(2)).unwrap();
    let lfts = write_lfts(&net, &routes).unwrap();
    let records = formats::write_path_records(&net, &routes).unwrap();
    let table = write_lanes(&net, &routes).unwrap();
    let identity = write_sl2vl(&net, &routing::SlToVl::new(&net)).unwrap();
    let zero: String = identity
        .lines()
        .map(|l| match l.split_once(':') {
            Some((ports, _)) if !l.starts_with('#') => format!("{ports}:{}\n", " 0".repeat(16)),
            _ => format!("{l}\n"),
        })
        .collect();
    for sl2vl in [&identity, &zero] {
        let audit = |pair_lanes: &str| {
            let mut r = read_lfts(&net, &lfts, "opensm-lfts.dump").unwrap();
            formats::read_pair_lanes(&net, &mut r, pair_lanes, "lanes").unwrap();
            let t = read_sl2vl(&net, sl2vl, "opensm-sl2vl.dump").unwrap();
            r.set_lane_rule(routing::LaneRule::SlToVl(t));
            (r.deadlock_report(&net).unwrap(), r)
        };
        let (a, ra) = audit(&records);
        let (b, rb) = audit(&table);
        assert_eq!(a.deadlock_free, b.deadlock_free);
        assert_eq!(a.cycle.is_some(), b.cycle.is_some());
        let t = net.terminals().len();
        for s in 0..t {
            for d in 0..t {
                assert_eq!(ra.lane(s, d), rb.lane(s, d));
                assert_eq!(ra.lane(s, d), routes.lane(s, d));
            }
        }
    }
    // Written by route -o beside the SL-to-VL tables.
    let dir = std::env::temp_dir().join(format!("routelab-path-records-{}", std::process::id()));
    formats::save_all(&net, &routes, &dir, false).unwrap();
    let written = std::fs::read_to_string(dir.join(formats::PATH_RECORDS_FILE)).unwrap();
    assert_eq!(written, records);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn malformed_sl2vl_dumps_name_the_line() {
    let net = ibnetdiscover::from_str(
        &ibnetdiscover::to_string(&spec::build("torus:3").unwrap()),
        "ring",
    )
    .unwrap();
    let good = write_sl2vl(&net, &routing::SlToVl::new(&net)).unwrap();
    let lines: Vec<&str> = good.lines().collect();
    let row = lines.iter().position(|l| l.starts_with("0   ")).unwrap() + 1;
    let edit = |n: usize, f: fn(&str) -> String| -> String {
        let mut l: Vec<String> = lines.iter().map(|x| x.to_string()).collect();
        l[n - 1] = f(&l[n - 1]);
        l.join("\n")
    };
    for (text, line, word) in [
        ("0 1 : 0 1 2\n".to_string(), 1, "before any node"),
        (
            "Switch 0x00000000deadbeef, base LID 999, \"x\"\n".to_string(),
            1,
            "LID 999",
        ),
        (edit(row, |l| l.replace(" 15", " 16")), row, "VL of SL 15"),
        (edit(row, |l| l.replace(" 15", "")), row, "16 VLs"),
    ] {
        let e = read_sl2vl(&net, &text, "f").unwrap_err().to_string();
        assert!(e.contains(&format!("f:{line}:")) && e.contains(word), "{e}");
    }
}

/// ftree on fat trees generated and read back from dumps (doubled
/// cables, partial trees, roots given or found): minimal, deadlock-free
/// on one lane; on a full k-ary n-tree, like D-mod-k, shift permutations
/// run without two flows on one channel.
#[test]
fn ftree_is_minimal_acyclic_and_balanced_on_recognised_trees() {
    let doubled = {
        // Two spines, three leaves, every leaf-spine cable doubled.
        let (mut b, sw, term) = routelab_core::NetworkBuilder::with_default_classes("doubled");
        let spines: Vec<_> = (0..2)
            .map(|i| b.add_switch(format!("spine{i}"), 8))
            .collect();
        for l in 0..3 {
            let leaf = b.add_switch(format!("leaf{l}"), 8);
            for &s in &spines {
                b.connect_next(leaf, s, sw).unwrap();
                b.connect_next(leaf, s, sw).unwrap();
            }
            for h in 0..3 {
                let host = b.add_terminal(format!("h{l}.{h}"), 1);
                b.connect_next(leaf, host, term).unwrap();
            }
        }
        b.build().unwrap()
    };
    let mut nets = vec![doubled];
    for s in [
        "kary-ntree:k=4,n=3",
        "xgft:m=4x4,w=2x2",
        "kary-ntree:k=2,n=4,terminals=11",
        "clos:ports=8,hosts=20",
    ] {
        let gen = spec::build(s).unwrap();
        nets.push(gen.clone());
        nets.push(ibnetdiscover::from_str(&ibnetdiscover::to_string(&gen), s).unwrap());
    }
    for net in &nets {
        let r = routing::route(net, "ftree", &opts()).unwrap();
        assert_minimal(net, &r);
        assert_deadlock_free(net, &r, 1);
    }
    // Both cables from a leaf to a spine carry routes up. (Down, a spine
    // reaches a leaf's three hosts by at most three of its four cables.)
    let net = &nets[0];
    let r = routing::route(net, "ftree", &opts()).unwrap();
    let t = net.terminals().len();
    let mut load = vec![0u32; net.channel_count()];
    for s in 0..t {
        for d in (0..t).filter(|&d| d != s) {
            for c in r.path(net, s, d).unwrap() {
                load[c.index()] += 1;
            }
        }
    }
    for (i, ch) in net.channels().iter().enumerate() {
        if net.node(ch.src).name.starts_with("leaf") && net.is_switch(ch.dst) {
            assert!(load[i] > 0, "channel {i} carries nothing");
        }
    }
    let net = spec::build("kary-ntree:k=4,n=3").unwrap();
    let r = routing::route(&net, "ftree", &opts()).unwrap();
    let t = net.terminals().len();
    for shift in 1..t {
        let mut load = vec![0u32; net.channel_count()];
        for s in 0..t {
            for c in r.path(&net, s, (s + shift) % t).unwrap() {
                load[c.index()] += 1;
            }
        }
        let max = load.iter().max().copied().unwrap_or(0);
        assert_eq!(max, 1, "shift {shift}: a channel carries {max} flows");
    }
    // Roots given by GUID: the same tree; a leaf as a root is refused.
    let roots: Vec<String> = net
        .switches()
        .iter()
        .filter(|&&x| net.neighbors(x).all(|y| net.is_switch(y)))
        .filter(|&&x| {
            net.neighbors(x)
                .all(|y| net.neighbors(y).all(|z| net.is_switch(z)))
        })
        .map(|&x| format!("0x{:x}", net.node(x).guid))
        .collect();
    assert_eq!(roots.len(), 16);
    let mut o = opts();
    o.set("roots", &roots.join(",")).unwrap();
    let given = routing::route(&net, "ftree", &o).unwrap();
    assert_minimal(&net, &given);
    let leaf = net
        .node(net.attached_switch(net.terminal(0)).unwrap())
        .name
        .clone();
    o.set("roots", &leaf).unwrap();
    let e = routing::route(&net, "ftree", &o).unwrap_err().to_string();
    assert!(e.contains("not a fat tree") || e.contains("rank"), "{e}");
    let e = routing::route(&spec::build("torus:4x4").unwrap(), "ftree", &opts())
        .unwrap_err()
        .to_string();
    assert!(e.contains("fat tree"), "{e}");
}

/// torus-2QoS routes exported as an LFT dump, SL table and SL-to-VL dump,
/// and read back as a subnet's files: the same VLs, deadlock-free on two;
/// read without the SL-to-VL tables (every SL on its own VL) also fine, and
/// with every SL on VL 0 the rings close.
#[test]
fn torus_2qos_exports_its_sl_to_vl_tables() {
    // 5x5: on rings of 4, the ties that stay off the dateline leave the
    // rings acyclic even on one VL.
    let net = ibnetdiscover::from_str(
        &ibnetdiscover::to_string(&spec::build("torus:5x5").unwrap()),
        "t",
    )
    .unwrap();
    // Read back from a dump the torus has no structure; route the original.
    let gen = spec::build("torus:5x5").unwrap();
    let r = routing::route(&gen, "torus-2QoS", &opts()).unwrap();
    assert_eq!(r.engine(), "torus-2qos");
    let dir = std::env::temp_dir().join(format!("routelab-t2q-{}", std::process::id()));
    formats::save_all(&gen, &r, &dir, false).unwrap();
    let read = |sl2vl: Option<&str>| {
        let lfts = std::fs::read_to_string(dir.join(formats::LFTS_FILE)).unwrap();
        let lanes = std::fs::read_to_string(dir.join(formats::LANES_FILE)).unwrap();
        let mut x = read_lfts(&net, &lfts, "l").unwrap();
        read_lanes(&net, &mut x, &lanes, "s").unwrap();
        if let Some(text) = sl2vl {
            x.set_lane_rule(routing::LaneRule::SlToVl(
                read_sl2vl(&net, text, "v").unwrap(),
            ));
        }
        x
    };
    let tables = std::fs::read_to_string(dir.join(formats::SL2VL_FILE)).unwrap();
    let rep = read(Some(&tables)).deadlock_report(&net).unwrap();
    assert!(rep.deadlock_free && rep.lanes_used == 2, "{rep}");
    let zero: String = tables
        .lines()
        .map(|l| match l.split_once(':') {
            Some((p, _)) if !l.starts_with('#') => format!("{p}:{}\n", " 0".repeat(16)),
            _ => format!("{l}\n"),
        })
        .collect();
    assert!(
        !read(Some(&zero))
            .deadlock_report(&net)
            .unwrap()
            .deadlock_free
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
