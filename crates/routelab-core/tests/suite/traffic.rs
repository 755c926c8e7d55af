//! Traffic patterns against their definitions, on generated networks.

use proptest::prelude::*;
use routelab_core::network::metrics::bfs_distances;
use routelab_core::network::spec::build;
use routelab_core::rng::stream;
use routelab_core::traffic::{pairs, BoundPattern, Pattern, TrafficError};
use routelab_core::Network;

fn bind(topo: &str, pattern: &str, seed: u64) -> (Network, BoundPattern) {
    let net = build(topo).unwrap();
    let bound = Pattern::parse(pattern).unwrap().bind(&net, seed).unwrap();
    (net, bound)
}

/// The fixed destination of every source (message 0).
fn table(b: &BoundPattern) -> Vec<usize> {
    let mut rng = stream(0, "test");
    (0..b.terminals())
        .map(|s| b.destination(s, 0, &mut rng))
        .collect()
}

fn is_permutation(t: &[usize]) -> bool {
    let mut seen = vec![false; t.len()];
    t.iter()
        .all(|&d| d < t.len() && !std::mem::replace(&mut seen[d], true))
}

/// Coordinates of the switch a terminal hangs off, read from the torus
/// generator's switch names (`s{x}.{y}.{z}`).
fn coords(net: &Network, t: usize) -> Vec<u32> {
    let s = net.attached_switch(net.terminal(t)).unwrap();
    net.node(s).name[1..]
        .split('.')
        .map(|x| x.parse().unwrap())
        .collect()
}

/// A terminal's slot on its switch.
fn slot(net: &Network, t: usize) -> usize {
    let s = net.attached_switch(net.terminal(t)).unwrap();
    (0..t)
        .filter(|&u| net.attached_switch(net.terminal(u)) == Some(s))
        .count()
}

fn error(topo: &str, pattern: &str) -> String {
    let net = build(topo).unwrap();
    Pattern::parse(pattern)
        .unwrap()
        .bind(&net, 1)
        .unwrap_err()
        .to_string()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn index_patterns_are_permutations(n in 1u32..8, seed in any::<u64>()) {
        let topo = format!("crossbar:{}", 1u32 << n);
        for p in ["bit-reverse", "bit-complement", "shuffle", "permutation", "bisect"] {
            let (_, b) = bind(&topo, p, seed);
            prop_assert!(b.is_permutation() && !b.is_random());
            prop_assert!(is_permutation(&table(&b)), "{} on {}", p, topo);
        }
    }

    #[test]
    fn random_tables_are_permutations_of_any_size(t in 2u32..70, seed in any::<u64>()) {
        let topo = format!("crossbar:{t}");
        let (_, perm) = bind(&topo, "permutation", seed);
        let d = table(&perm);
        prop_assert!(is_permutation(&d));
        prop_assert!(d.iter().enumerate().all(|(s, &x)| s != x), "a derangement");
        let (_, bisect) = bind(&topo, "bisect", seed);
        prop_assert!(is_permutation(&table(&bisect)));
    }

    #[test]
    fn coordinate_patterns_are_permutations(
        dims in prop::collection::vec(2u32..6, 1..4),
        c in 1u32..3,
    ) {
        let shape = dims.iter().map(u32::to_string).collect::<Vec<_>>().join("x");
        let topo = format!("torus:{shape},c={c}");
        let net = build(&topo).unwrap();
        for p in ["neighbor", "tornado", "bridge"] {
            match Pattern::parse(p).unwrap().bind(&net, 0) {
                Ok(b) => prop_assert!(is_permutation(&table(&b)), "{} on {}", p, topo),
                Err(TrafficError::DoesNotFit { .. }) => {}
                Err(e) => prop_assert!(false, "{}", e),
            }
        }
    }

    #[test]
    fn square_and_cube_tori(k in 2u32..6, c in 1u32..3) {
        let (_, b) = bind(&format!("torus:{k}x{k},c={c}"), "transpose", 0);
        prop_assert!(is_permutation(&table(&b)));
        let (_, b) = bind(&format!("mesh:{k}x{k}x{k},c={c}"), "rotate3d", 0);
        prop_assert!(is_permutation(&table(&b)));
    }

    #[test]
    fn same_seed_same_pairs(seed in any::<u64>()) {
        let net = build("torus:4x4,c=2").unwrap();
        for p in ["uniform", "permutation", "bisect", "hotspot:f=0.3", "local:l=1"] {
            prop_assert_eq!(pairs(&net, p, seed).unwrap(), pairs(&net, p, seed).unwrap());
        }
    }

    /// BookSim's names give exactly the pairs of the patterns they alias.
    #[test]
    fn aliases_give_the_same_pairs(seed in any::<u64>()) {
        let net = build("torus:4x4x4").unwrap();
        for (alias, real) in routelab_core::traffic::patterns::ALIASES {
            prop_assert_eq!(pairs(&net, alias, seed).unwrap(), pairs(&net, real, seed).unwrap());
        }
    }
}

#[test]
fn bit_patterns_by_hand() {
    // 8 terminals, 3 bits.
    let (_, b) = bind("crossbar:8", "bit-reverse", 0);
    assert_eq!(table(&b), [0, 4, 2, 6, 1, 5, 3, 7]);
    let (_, b) = bind("crossbar:8", "bit-complement", 0);
    assert_eq!(table(&b), [7, 6, 5, 4, 3, 2, 1, 0]);
    let (_, b) = bind("crossbar:8", "shuffle", 0);
    assert_eq!(table(&b), [0, 2, 4, 6, 1, 3, 5, 7]);
    // 16 terminals: 0100 -> 0010, 0001 -> 1000, 1011 -> 1101.
    let (_, b) = bind("crossbar:16", "bit-reverse", 0);
    let t = table(&b);
    assert_eq!((t[0b0100], t[0b0001], t[0b1011]), (0b0010, 0b1000, 0b1101));
}

#[test]
fn transpose_by_hand() {
    // 9 terminals as a 3x3 matrix, row-major.
    let (_, b) = bind("crossbar:9", "transpose", 0);
    assert_eq!(table(&b), [0, 3, 6, 1, 4, 7, 2, 5, 8]);
    // 16 terminals: the two 2-bit halves of the index swap.
    let (_, b) = bind("crossbar:16", "transpose", 0);
    let t = table(&b);
    assert_eq!((t[0b0111], t[0b1000]), (0b1101, 0b0010));
}

#[test]
fn fixed_points_are_idle_in_flows() {
    // Bit-reverse on 8: 0, 2, 5 and 7 are palindromes.
    let (_, b) = bind("crossbar:8", "bit-reverse", 0);
    assert_eq!(b.flows(), [(1, 4), (3, 6), (4, 1), (6, 3)]);
}

#[test]
fn tornado_on_tori_matches_coordinates() {
    for topo in [
        "torus:5x4",
        "torus:8x8,c=2",
        "torus:3x4x5",
        "mesh:6x3x2,c=3",
    ] {
        let (net, b) = bind(topo, "tornado", 0);
        let dims: Vec<u32> = topo
            .split([':', ','])
            .nth(1)
            .unwrap()
            .split('x')
            .map(|k| k.parse().unwrap())
            .collect();
        for (s, &d) in table(&b).iter().enumerate() {
            let want: Vec<u32> = coords(&net, s)
                .iter()
                .zip(&dims)
                .map(|(&x, &k)| (x + k.div_ceil(2) - 1) % k)
                .collect();
            assert_eq!(coords(&net, d), want, "{topo}: {s} -> {d}");
            assert_eq!(slot(&net, d), slot(&net, s));
        }
    }
}

#[test]
fn neighbor_adds_one_everywhere() {
    let (net, b) = bind("torus:3x4,c=2", "neighbor", 0);
    for (s, &d) in table(&b).iter().enumerate() {
        let x = coords(&net, s);
        assert_eq!(coords(&net, d), [(x[0] + 1) % 3, (x[1] + 1) % 4]);
        assert_eq!(slot(&net, d), slot(&net, s));
    }
}

#[test]
fn transpose_on_2d_torus_swaps_coordinates() {
    for topo in ["torus:5x5", "mesh:4x4,c=3"] {
        let (net, b) = bind(topo, "transpose", 0);
        for (s, &d) in table(&b).iter().enumerate() {
            let x = coords(&net, s);
            assert_eq!(coords(&net, d), [x[1], x[0]], "{topo}");
            assert_eq!(slot(&net, d), slot(&net, s));
        }
    }
}

#[test]
fn transpose_on_3d_torus_reads_the_index_as_a_matrix() {
    // versaci2013's 16x8x8 case: 1024 nodes as a 32 x 32 matrix.
    let (_, b) = bind("torus:16x8x8", "transpose", 0);
    let t = table(&b);
    assert_eq!(t[32 + 5], 5 * 32 + 1);
}

#[test]
fn rotate3d_matches_coordinates() {
    let (net, b) = bind("torus:4x4x4,c=2", "rotate3d", 0);
    for (s, &d) in table(&b).iter().enumerate() {
        let x = coords(&net, s);
        assert_eq!(coords(&net, d), [x[1], x[2], x[0]]);
        assert_eq!(slot(&net, d), slot(&net, s));
    }
    let (_, b) = bind("torus:3x3x3", "transpose3d", 0);
    assert!(is_permutation(&table(&b)));
}

#[test]
fn butterfly_flips_one_advancing_bit() {
    let (_, b) = bind("torus:4x4x2", "butterfly", 0);
    assert!(b.is_permutation() && b.phases() == 5);
    let mut rng = stream(0, "test");
    for s in 0..32 {
        for seq in 0..12u64 {
            let d = b.destination(s, seq, &mut rng);
            assert_eq!(s ^ d, 1 << (seq % 5), "{s} message {seq}");
        }
    }
    for seq in 0..5 {
        let flows = b.flows_at(seq);
        assert_eq!(flows.len(), 32);
        let dst: Vec<usize> = flows.iter().map(|&(_, d)| d).collect();
        assert!(is_permutation(&dst));
    }
}

#[test]
fn bisect_pairs_across_halves_both_ways() {
    for seed in 0..10 {
        let (_, b) = bind("torus:4x4,c=2", "bisect", seed);
        let t = table(&b);
        // A perfect matching used both ways: no fixed point, an involution.
        for (s, &d) in t.iter().enumerate() {
            assert_ne!(s, d);
            assert_eq!(t[d], s);
        }
        // Each pair has one end in each half: take the lower ends as A.
        let a: Vec<usize> = (0..32).filter(|&s| s < t[s]).collect();
        assert_eq!(a.len(), 16);
        assert_eq!(b.flows().len(), 32);
    }
    let p0 = pairs(&build("crossbar:32").unwrap(), "bisect", 0).unwrap();
    let p1 = pairs(&build("crossbar:32").unwrap(), "bisect", 1).unwrap();
    assert_ne!(p0, p1, "seeds give different bisections");
}

#[test]
fn one_way_bisect_is_the_first_half_of_the_exchange() {
    // ORCS's bisect: the same pairs as the exchange for a seed, each sent
    // one way only; every terminal is in at most one flow, T/2 flows, and
    // the senders are exactly one half.
    for seed in 0..10 {
        let (_, both) = bind("torus:4x4,c=2", "bisect", seed);
        let (_, one) = bind("torus:4x4,c=2", "bisect:dir=one", seed);
        let (tb, to) = (table(&both), table(&one));
        let flows = one.flows();
        assert_eq!(flows.len(), 16);
        let mut seen = [false; 32];
        for &(s, d) in &flows {
            assert_eq!(tb[s], d, "seed {seed}: a pair of the exchange");
            assert_eq!(to[d], d, "seed {seed}: the receiver is idle");
            assert!(!seen[s] && !seen[d]);
            seen[s] = true;
            seen[d] = true;
        }
    }
    let p = Pattern::parse("bisect:one").unwrap();
    assert_eq!(p.to_string(), "bisect:dir=one");
    assert_eq!(Pattern::parse("bisect").unwrap().to_string(), "bisect");
    let e = Pattern::parse("bisect:dir=two").unwrap_err().to_string();
    assert!(e.contains("'dir'") && e.contains("one"), "{e}");
    let toml_form: Pattern = toml::from_str("pattern = \"bisect\"\ndir = \"one\"").unwrap();
    assert_eq!(toml_form, p);
    let default_form: Pattern = toml::from_str("pattern = \"bisect\"").unwrap();
    assert_eq!(default_form.to_string(), "bisect");
}

#[test]
fn bridge_pairs_switch_groups() {
    // 4 terminals per switch on a 4-ring: switch 0 <-> 1, 2 <-> 3.
    let (net, b) = bind("torus:4,c=4", "bridge", 0);
    let t = table(&b);
    assert_eq!(&t[..8], [4, 5, 6, 7, 0, 1, 2, 3]);
    for (s, &d) in t.iter().enumerate() {
        assert_eq!(t[d], s);
        let (ss, sd) = (coords(&net, s)[0], coords(&net, d)[0]);
        assert_eq!(ss / 2, sd / 2);
        assert_ne!(ss, sd);
    }
}

#[test]
fn bridge_on_a_clos_pairs_leaves() {
    // geoffray2008 5.4 on 8-port crossbars: 4 hosts per leaf, hosts 0..4
    // exchange with 4..8, 8..12 with 12..16, and so on.
    let (_, b) = bind("clos:ports=8,hosts=32", "bridge", 0);
    assert!(table(&b).iter().enumerate().all(|(h, &d)| d == h ^ 4));
    // A partial last leaf (28, 29): its partners 24, 25 exchange, 26, 27 idle.
    let (_, b) = bind("clos:ports=8,hosts=30", "bridge", 0);
    let t = table(&b);
    assert_eq!(&t[24..], [28, 29, 26, 27, 24, 25]);
}

#[test]
fn hotspot_sends_about_f_to_the_host() {
    let (f, host, t) = (0.2, 3usize, 16usize);
    let (_, b) = bind("crossbar:16", "hotspot:f=0.2,host=3", 0);
    assert!(b.is_random() && !b.is_permutation());
    let mut rng = stream(42, "test");
    let (mut hits, mut total) = (0u64, 0u64);
    for s in (0..t).filter(|&s| s != host) {
        for seq in 0..10_000 {
            let d = b.destination(s, seq, &mut rng);
            assert_ne!(d, s);
            hits += u64::from(d == host);
            total += 1;
        }
    }
    let share = hits as f64 / total as f64;
    let want = f + (1.0 - f) / (t - 1) as f64;
    assert!((share - want).abs() < 0.01, "share {share}, want {want}");
    for seq in 0..1000 {
        assert_ne!(b.destination(host, seq, &mut rng), host);
    }
}

#[test]
fn local_stays_within_l_hops() {
    for (topo, l) in [("torus:6x6,c=2", 1u32), ("mesh:5x5", 2), ("hypercube:5", 2)] {
        let spec = format!("local:l={l}");
        let (net, b) = bind(topo, &spec, 0);
        let mut rng = stream(5, "test");
        for s in 0..b.terminals() {
            let dist = bfs_distances(&net, net.terminal(s));
            let mut seen = std::collections::BTreeSet::new();
            for seq in 0..200 {
                let d = b.destination(s, seq, &mut rng);
                assert_ne!(d, s);
                // Terminal -> switch, l switch hops, switch -> terminal.
                assert!(dist[net.terminal(d).index()] <= l + 2, "{topo}: {s} -> {d}");
                seen.insert(d);
            }
            // Every candidate can be drawn: on a 6x6 torus with c = 2 and l = 1,
            // 5 switches x 2 terminals minus the source.
            if topo == "torus:6x6,c=2" {
                assert_eq!(seen.len(), 9);
            }
        }
    }
}

#[test]
fn uniform_never_returns_the_source() {
    let (_, b) = bind("crossbar:5", "uniform", 0);
    let mut rng = stream(9, "test");
    let mut counts = [[0u32; 5]; 5];
    for (s, row) in counts.iter_mut().enumerate() {
        for seq in 0..4000 {
            row[b.destination(s, seq, &mut rng)] += 1;
        }
    }
    for (s, row) in counts.iter().enumerate() {
        assert_eq!(row[s], 0);
        assert!(
            row.iter().enumerate().all(|(d, &n)| d == s || n > 850),
            "{row:?}"
        );
    }
    assert_eq!(b.flows().len(), 5);
}

#[test]
fn sizes_that_do_not_fit_are_errors() {
    let e = error("crossbar:12", "bit-reverse");
    assert!(
        e.contains("12 terminals") && e.contains("power of two"),
        "{e}"
    );
    let e = error("crossbar:12", "butterfly");
    assert!(e.contains("8 or 16"), "{e}");
    let e = error("crossbar:8", "transpose");
    assert!(e.contains("square number"), "{e}");
    let e = error("torus:4x2", "transpose");
    assert!(
        e.contains("'torus:4x2' (4x2)") && e.contains("k x k"),
        "{e}"
    );
    let e = error("torus:4x4", "rotate3d");
    assert!(e.contains("k x k x k"), "{e}");
    let e = error("crossbar:1", "uniform");
    assert!(e.contains("at least 2 terminals"), "{e}");
    let e = error("crossbar:8", "hotspot:f=0.1,host=8");
    assert!(e.contains("'host' = '8'") && e.contains("0..=7"), "{e}");
    let e = error("torus:4x4", "local:l=0");
    assert!(e.contains("raise l"), "{e}");
    assert!(pairs(&build("crossbar:4").unwrap(), "nope", 0).is_err());
}

#[test]
fn coordinate_patterns_need_coordinates() {
    for p in ["tornado", "neighbor", "rotate3d"] {
        let e = error("crossbar:8", p);
        assert!(
            e.contains(&format!("{p} needs switch coordinates"))
                && e.contains("'crossbar:8' is a crossbar network"),
            "{e}"
        );
    }
}

#[test]
fn flows_of_random_patterns_skip_self() {
    let net = build("torus:4x4").unwrap();
    for p in [
        "uniform",
        "hotspot:f=0.9",
        "local:l=1",
        "permutation",
        "bisect",
    ] {
        let flows = pairs(&net, p, 7).unwrap();
        assert_eq!(flows.len(), 16, "{p}");
        assert!(flows.iter().all(|&(s, d)| s != d && d < 16));
    }
}
