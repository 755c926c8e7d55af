//! Network metrics against first principles: closed-form diameters, an
//! exhaustive minimum bisection on small networks, summaries that match
//! their generators, and components of a disconnected network.

use proptest::prelude::*;
use routelab_core::network::build::hyperx::hyperx_half_cut;
use routelab_core::network::build::{crossbar, hypercube, hyperx, mesh, torus};
use routelab_core::network::metrics::{
    bisection, bisection_with, distances, summary, Bisection, BisectionOptions,
};
use routelab_core::network::spec;
use routelab_core::{Network, NetworkBuilder, Structure};

/// The same cabling without its structure, so nothing structural applies.
fn irregular(net: &Network) -> Network {
    let mut b = net.to_builder();
    b.set_structure(Structure::Irregular);
    b.build().unwrap()
}

/// The minimum bisection by enumerating every switch partition. Each
/// terminal must hang off one switch by one cable, or have no cable at all.
/// With the switches placed, the best balanced placement of terminals
/// leaves each on its switch but as many as the imbalance (one cable each);
/// cable-less terminals fill either side for free.
fn brute_force_bisection(net: &Network) -> u64 {
    let sw = net.switches();
    assert!(sw.len() <= 20, "too many switches to enumerate");
    let mut hosts = vec![0u64; sw.len()];
    let mut free = 0u64;
    for &t in net.terminals() {
        let ends: Vec<_> = net.neighbors(t).collect();
        match ends[..] {
            [] => free += 1,
            [s] if net.is_switch(s) => hosts[net.kind_index(s)] += 1,
            _ => panic!("{}: terminal not on one cable", net.name()),
        }
    }
    let links: Vec<(usize, usize)> = net
        .channels()
        .chunks(2)
        .filter(|c| net.is_switch(c[0].src) && net.is_switch(c[0].dst))
        .map(|c| (net.kind_index(c[0].src), net.kind_index(c[0].dst)))
        .collect();
    let t = net.terminals().len() as u64;
    let (lo, hi) = (t / 2, t - t / 2);
    // Complements cost the same, so switch 0 stays on side 0.
    (0u64..1 << (sw.len().max(1) - 1))
        .map(|mask| {
            let on = |i: usize| i > 0 && mask >> (i - 1) & 1 == 1;
            let cut = links.iter().filter(|&&(a, b)| on(a) != on(b)).count() as u64;
            let w: u64 = (0..sw.len()).filter(|&i| on(i)).map(|i| hosts[i]).sum();
            (w..=w + free)
                .map(|w| cut + lo.saturating_sub(w) + w.saturating_sub(hi))
                .min()
                .unwrap_or(u64::MAX)
        })
        .min()
        .unwrap_or(0)
}

/// The partition is balanced and its counted cut is the width reported.
fn check_partition(net: &Network, b: &Bisection) {
    assert_eq!(b.side.len(), net.node_count());
    let on_true = net.terminals().iter().filter(|t| b.side[t.index()]).count();
    assert_eq!(on_true, net.terminals().len() / 2, "{}", net.name());
    let crossing = net
        .channels()
        .chunks(2)
        .filter(|c| b.side[c[0].src.index()] != b.side[c[0].dst.index()])
        .count() as u64;
    assert_eq!(crossing, b.width, "{}", net.name());
    if let Some(lb) = b.lower_bound {
        assert!(
            lb <= b.width,
            "{}: bound {lb} above width {}",
            net.name(),
            b.width
        );
    }
}

/// Networks small enough to enumerate, with single-homed terminals.
const SMALL: &[&str] = &[
    "torus:4x4",
    "torus:4x2",
    "torus:2x2",
    "torus:2x2x2",
    "torus:3x3",
    "torus:5x3",
    "torus:4x4,c=2",
    "torus:3x3,c=3",
    "torus:3x5,c=2",
    "torus:6x2",
    "torus:4x4,c=0",
    "mesh:4x4",
    "mesh:3x3",
    "mesh:3x5",
    "mesh:4x3,c=3",
    "hypercube:3",
    "hypercube:4",
    "hypercube:3,c=3",
    "crossbar:8",
    "crossbar:7",
    "kary-ntree:k=2,n=3",
    "kary-ntree:k=2,n=2",
    "kary-ntree:k=3,n=2",
    "kary-ntree:k=4,n=2",
    "xgft:m=2x2x2,w=1x2x2",
    "xgft:m=4x3,w=1x2",
    "xgft:m=3x4,w=1x1",
    "xgft:m=3,w=2,terminals=8",
    "xgft:m=2x2,w=2x2,terminals=7",
    "xgft:m=3x2,w=2x2,terminals=13",
    "xgft:m=4x2,w=1x2,terminals=11",
    "kary-ntree:k=2,n=3,terminals=9",
    "kary-ntree:k=3,n=2,terminals=10",
    "kary-ntree:k=4,n=2,terminals=16",
    "xgft:m=2x2x2,w=1x1x2,terminals=5",
    "clos:ports=4,hosts=8",
    "clos:ports=6,hosts=16",
    "clos:ports=8,hosts=32",
    "clos:ports=8,hosts=10",
    "kautz:b=2,n=1,hosts=2",
    "kautz:b=2,n=2,hosts=1",
    "kautz:b=3,n=1,hosts=3",
    "random:switches=12,ports=6,hosts=2,seed=1",
    "random:switches=14,ports=5,hosts=1,seed=7",
    "dragonfly:a=2,p=1,h=1",
    "dragonfly:a=2,p=2,h=2",
    "hyperx:S=4x4,t=1,p=4",
    "hyperx:S=4x4,t=1,p=1",
    "hyperx:S=2x4,t=1,p=3",
    "hyperx:S=8x2,t=1,p=2",
    "hyperx:S=3x3,t=1,p=2",
    "hyperx:S=3x4,t=2,p=3",
    "hyperx:S=2x2x3,t=1,p=2",
    "hyperx:S=5,t=2,p=3",
    "hyperx:S=6,t=1,p=4",
    "hyperx:S=2x2x2x2,t=2,p=2",
    "flatfly:k=4,n=2",
    "flatfly:k=4,n=3",
];

/// Builds a spec; families still being written are skipped.
fn small_networks() -> Vec<Network> {
    SMALL
        .iter()
        .filter_map(|s| match spec::build(s) {
            Ok(net) => Some(net),
            Err(e) if e.to_string().contains("not yet available") => None,
            Err(e) => panic!("{s}: {e}"),
        })
        .collect()
}

#[test]
fn exact_bisections_equal_the_brute_force() {
    for net in small_networks() {
        let best = brute_force_bisection(&net);
        let b = bisection(&net);
        check_partition(&net, &b);
        if b.exact {
            assert_eq!(b.width, best, "{} claims exact ({})", net.name(), b.method);
        }
        assert!(b.width >= best, "{}", net.name());
        // The heuristic alone, from BFS-grown starts only, finds the optimum.
        let opts = BisectionOptions {
            formula_cuts: false,
            ..BisectionOptions::default()
        };
        let h = bisection_with(&irregular(&net), &opts);
        check_partition(&net, &h);
        assert_eq!(h.width, best, "heuristic on {}", net.name());
        assert_eq!(b.width, best, "{} ({})", net.name(), b.method);
    }
}

#[test]
fn regular_families_are_exact_by_formula() {
    let cases: &[(&str, u64)] = &[
        ("torus:4x4", 8),
        ("torus:4x2", 4),
        ("torus:8x8x4", 64),
        ("torus:4x4,c=0", 0),
        ("torus:2x2", 2),
        ("torus:2x2,c=2", 4),
        ("mesh:4x4", 4),
        ("mesh:6x3,c=2", 3),
        ("hypercube:3", 4),
        ("hypercube:6,c=4", 32),
        ("crossbar:8", 4),
        ("crossbar:9", 4),
        ("kary-ntree:k=2,n=3", 4),
        ("kary-ntree:k=4,n=3", 32),
        ("xgft:m=4x4,w=1x2", 4),
        ("kary-ntree:k=4,n=2,terminals=16", 8),
        ("kary-ntree:k=4,n=3,terminals=64", 32),
        ("xgft:m=6,w=3,terminals=66", 9),
        ("xgft:m=4x4,w=2x2,terminals=48", 8),
        ("clos:ports=32,hosts=512", 256),
        ("clos:ports=8,hosts=12", 6),
        // HyperX: t (k/2)^2 S/k across the smallest side k, or the
        // terminals, pS/2, when fewer.
        ("hyperx:S=4x4x4,t=1,p=4", 64),
        ("hyperx:S=4x4x4,t=1,p=1", 32),
        ("hyperx:S=8x8x8,t=2,p=8", 2048),
        ("hyperx:S=8x2,t=1,p=2", 8),
        ("hyperx:S=4x6x8,t=3,p=16", 576),
        ("flatfly:k=4,n=3", 16),
        ("flatfly:k=8,n=4", 1024),
    ];
    for &(s, width) in cases {
        let net = match spec::build(s) {
            Ok(net) => net,
            Err(e) if e.to_string().contains("not yet available") => continue,
            Err(e) => panic!("{s}: {e}"),
        };
        let b = bisection(&net);
        check_partition(&net, &b);
        assert_eq!(b.width, width, "{s}");
        assert!(b.exact, "{s}: {} not exact", b.method);
    }
}

#[test]
fn odd_tori_are_bounded_and_searched() {
    let net = torus(&[5, 5], 1).unwrap();
    let b = bisection(&net);
    check_partition(&net, &b);
    assert!(b.lower_bound.is_some());
    // A staircase beats the plane cut with moved terminals (10 + 2).
    assert!(b.width <= 12, "{b:?}");
}

#[test]
fn hypercube_and_crossbar_diameters() {
    for n in 1..=6 {
        assert_eq!(distances(&hypercube(n, 1).unwrap()).diameter, n);
    }
    let d = distances(&crossbar(8).unwrap());
    assert_eq!((d.diameter, d.avg_distance), (0, 0.0));
}

#[test]
fn tree_diameters() {
    for (k, n) in [(2, 3), (4, 3), (3, 2), (2, 5)] {
        let Ok(net) = spec::build(&format!("kary-ntree:k={k},n={n}")) else {
            return;
        };
        let d = distances(&net);
        assert_eq!(d.diameter, 2 * (n - 1), "k={k} n={n}");
        assert_eq!(d.diameter, distances(&irregular(&net)).diameter);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// Torus diameter sum(floor(k/2)), mesh sum(k - 1), both equal to BFS.
    #[test]
    fn grid_diameters(dims in prop::collection::vec(2u32..7, 1..4), c in 0u32..3, wrap: bool) {
        let net = if wrap { torus(&dims, c) } else { mesh(&dims, c) }.unwrap();
        let d = distances(&net);
        let expect: u32 = dims.iter().map(|&k| if wrap { k / 2 } else { k - 1 }).sum();
        prop_assert_eq!(d.diameter, expect);
        prop_assert_eq!(d.method.as_str(), "formula");
        let b = distances(&irregular(&net));
        prop_assert_eq!(b.method.as_str(), "all-pairs-bfs");
        prop_assert_eq!(b.diameter, expect);
        prop_assert!((b.avg_distance - d.avg_distance).abs() < 1e-9);
        prop_assert!((b.avg_switch_distance - d.avg_switch_distance).abs() < 1e-9);
    }

    /// Every bisection is balanced and counts its own cut.
    #[test]
    fn bisections_count_their_cut(dims in prop::collection::vec(2u32..6, 1..3), c in 0u32..3, seed: u64) {
        let net = irregular(&torus(&dims, c).unwrap());
        let opts = BisectionOptions { seed, starts: 4, ..BisectionOptions::default() };
        let b = bisection_with(&net, &opts);
        check_partition(&net, &b);
        prop_assert_eq!(&b, &bisection_with(&net, &opts));
    }
}

/// The closed forms of a HyperX: diameter the number of dimensions, the
/// mean distance `sum (S_d - 1)/S_d`, and a minimum bisection of
/// `min(t (k/2)^2 S/k, pS/2)` cables when the smallest side `k` is even,
/// all equal to what is computed on the same cabling without structure.
fn check_hyperx(sides: &[u32], t: u32, p: u32) -> Result<(), TestCaseError> {
    let net = hyperx(sides, t, p).unwrap();
    let s: u64 = sides.iter().map(|&k| u64::from(k)).product();
    let d = distances(&net);
    prop_assert_eq!(d.method.as_str(), "formula");
    prop_assert_eq!(d.diameter, sides.len() as u32);
    let bfs = distances(&irregular(&net));
    prop_assert_eq!(bfs.diameter, d.diameter);
    prop_assert!((bfs.avg_distance - d.avg_distance).abs() < 1e-9);
    prop_assert!((bfs.avg_switch_distance - d.avg_switch_distance).abs() < 1e-9);
    let b = bisection(&net);
    check_partition(&net, &b);
    let k = *sides.iter().min().unwrap();
    if k.is_multiple_of(2) {
        let plane = hyperx_half_cut(sides, t, sides.iter().position(|&x| x == k).unwrap());
        let want = plane.unwrap().min(s * u64::from(p) / 2);
        prop_assert_eq!(b.width, want);
        prop_assert!(b.exact, "{}: {}", net.name(), b.method);
    }
    // The generic computation: the heuristic without the formula cuts,
    // and the exhaustive minimum where the switches are few.
    let opts = BisectionOptions {
        formula_cuts: false,
        starts: 8,
        ..BisectionOptions::default()
    };
    let h = bisection_with(&irregular(&net), &opts);
    check_partition(&net, &h);
    prop_assert!(
        b.width <= h.width,
        "{}: {} > {}",
        net.name(),
        b.width,
        h.width
    );
    if b.exact {
        prop_assert_eq!(h.width, b.width, "{}", net.name());
    }
    if s <= 16 {
        prop_assert_eq!(b.width, brute_force_bisection(&net), "{}", net.name());
    }
    Ok(())
}

#[test]
fn hyperx_closed_forms() {
    for (sides, t, p) in [
        (&[4, 4][..], 1, 4),
        (&[8, 2], 1, 2),
        (&[2, 8], 2, 5),
        (&[3, 4], 2, 3),
        (&[6, 6, 6], 1, 6),
        (&[4, 4, 4], 3, 2),
        (&[5, 3], 1, 2),
    ] {
        check_hyperx(sides, t, p).unwrap();
    }
    // Halving the largest side costs more than halving the smallest.
    let net = hyperx(&[2, 8], 1, 8).unwrap();
    assert_eq!(hyperx_half_cut(&[2, 8], 1, 1), Some(32));
    assert_eq!(bisection(&net).width, 8);
    // The summary `routelab topo` prints.
    let s = summary(&spec::build("hyperx:S=8x8x8,t=1,p=8").unwrap());
    assert_eq!(s.family, "hyperx");
    assert_eq!((s.switches, s.terminals), (512, 4096));
    assert_eq!(s.cables, 512 * 21 / 2 + 4096);
    assert_eq!((s.switch_links.min, s.switch_links.max), (21, 21));
    assert_eq!((s.diameter, s.distance_exact), (3, true));
    assert!((s.avg_switch_distance - 3.0 * 7.0 / 8.0 * 512.0 / 511.0).abs() < 1e-12);
    assert_eq!((s.bisection_width, s.bisection_exact), (1024, true));
    assert_eq!(s.bisection_method, "formula");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn hyperx_metrics(sides in prop::collection::vec(2u32..6, 1..4), t in 1u32..3, p in 0u32..5) {
        check_hyperx(&sides, t, p)?;
    }
}

#[test]
fn summary_matches_the_generator() {
    let net = torus(&[4, 4], 2).unwrap();
    let s = summary(&net);
    assert_eq!(s.name, "torus:4x4,c=2");
    assert_eq!(s.family, "torus");
    assert_eq!(
        (s.switches, s.terminals, s.cables, s.channels),
        (16, 32, 64, 128)
    );
    assert_eq!((s.switch_degree.min, s.switch_degree.max), (6, 6));
    assert_eq!(s.switch_degree.mean, 6.0);
    assert_eq!((s.switch_links.min, s.switch_links.max), (4, 4));
    assert_eq!(
        (s.terminals_per_switch.min, s.terminals_per_switch.max),
        (2, 2)
    );
    assert_eq!(s.diameter, 4);
    // Mean ring distance 1 per dimension: 2 * 32 / 31 over distinct terminals.
    assert!((s.avg_distance - 64.0 / 31.0).abs() < 1e-12);
    assert!((s.avg_switch_distance - 32.0 / 15.0).abs() < 1e-12);
    assert!(s.connected && s.components == 1 && s.smaller_components.is_empty());
    assert_eq!((s.bisection_width, s.bisection_exact), (8, true));
    assert_eq!(s.bisection_method, "formula");
    let json = serde_json::to_string(&s).unwrap();
    let back: routelab_core::network::metrics::Summary = serde_json::from_str(&json).unwrap();
    assert_eq!(back, s);

    let s = summary(&spec::build("kary-ntree:k=4,n=3").unwrap());
    assert_eq!(s.family, "kary-ntree");
    assert_eq!((s.switches, s.terminals, s.cables), (48, 64, 192));
    assert_eq!((s.switch_degree.min, s.switch_degree.max), (4, 8));
    assert_eq!((s.switch_links.min, s.switch_links.max), (4, 8));
    assert_eq!(
        (s.terminals_per_switch.min, s.terminals_per_switch.max),
        (0, 4)
    );
    assert_eq!(s.diameter, 4);
    // From a terminal: 3 others 0 hops away, 12 at 2, 48 at 4.
    assert!((s.avg_distance - 216.0 / 63.0).abs() < 1e-12);
    assert_eq!((s.bisection_width, s.bisection_exact), (32, true));

    let s = summary(&spec::build("clos:ports=8,hosts=12").unwrap());
    assert_eq!((s.switches, s.terminals, s.cables), (7, 12, 24));
    assert_eq!(
        (s.terminals_per_switch.min, s.terminals_per_switch.max),
        (0, 4)
    );
    assert_eq!(
        (s.diameter, s.bisection_width, s.bisection_exact),
        (2, 6, true)
    );
}

#[test]
fn components_of_a_disconnected_network() {
    // A ring of 3 switches with 2 terminals each, a pair of switches with
    // one terminal, and a lone terminal.
    let (mut b, s, t) = NetworkBuilder::with_default_classes("islands");
    let ring: Vec<_> = (0..3).map(|i| b.add_switch(format!("r{i}"), 4)).collect();
    for i in 0..3 {
        b.connect_next(ring[i], ring[(i + 1) % 3], s).unwrap();
        for j in 0..2 {
            let h = b.add_terminal(format!("rh{i}.{j}"), 1);
            b.connect_next(ring[i], h, t).unwrap();
        }
    }
    let p0 = b.add_switch("p0", 2);
    let p1 = b.add_switch("p1", 2);
    b.connect_next(p0, p1, s).unwrap();
    let ph = b.add_terminal("ph", 1);
    b.connect_next(p0, ph, t).unwrap();
    b.add_terminal("lone", 1);
    let net = b.build().unwrap();
    let s = summary(&net);
    assert!(!s.connected);
    assert_eq!(s.components, 3);
    let sizes: Vec<_> = s.smaller_components.iter().map(|c| c.size).collect();
    assert_eq!(sizes, vec![3, 1]);
    assert_eq!(s.smaller_components[0].examples, vec!["p0", "p1", "ph"]);
    assert_eq!(s.smaller_components[1].examples, vec!["lone"]);
    assert_eq!(s.diameter, 1);
    assert_eq!(s.switches, 5);
    // 8 terminals, 6 on the ring: no union of components holds 4, so a
    // cut is needed.
    let bis = bisection(&net);
    check_partition(&net, &bis);
    assert_eq!(bis.width, brute_force_bisection(&net));
    assert_eq!(bis.width, 2);
}

/// A 65,536-switch torus is summarised by formulas and O(cables) checks.
#[test]
fn large_torus_summary() {
    let net = torus(&[32, 32, 64], 1).unwrap();
    let start = std::time::Instant::now();
    let s = summary(&net);
    let took = start.elapsed();
    assert_eq!(s.diameter, 16 + 16 + 32);
    assert_eq!((s.bisection_width, s.bisection_exact), (2048, true));
    assert!(s.distance_exact && s.connected);
    eprintln!("summary(torus:32x32x64) took {took:?}");
}

/// Without structure the heuristic still finds the plane cuts of larger
/// regular networks.
#[test]
fn heuristic_finds_plane_cuts() {
    let opts = BisectionOptions {
        formula_cuts: false,
        ..BisectionOptions::default()
    };
    for (s, width) in [
        ("torus:16x8,c=4", 16),
        ("hypercube:7,c=2", 64),
        ("mesh:12x6,c=2", 6),
    ] {
        let net = spec::build(s).unwrap();
        let h = bisection_with(&irregular(&net), &opts);
        check_partition(&net, &h);
        assert_eq!(h.width, width, "{s}");
        assert_eq!(bisection(&net).width, width, "{s}");
    }
}
