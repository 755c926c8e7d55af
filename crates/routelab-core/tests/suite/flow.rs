//! The flow layer end to end: channel loads, the ORCS effective bisection
//! bandwidth and max-min fair rates on the routes of every kind of engine.

use routelab_core::flow::{
    self, channel_loads, ebb, max_min_rates, orcs_shares, Capacity, EbbOptions, EbbResult,
    FlowError, Metric, Seeding,
};
use routelab_core::network::metrics::bisection;
use routelab_core::network::spec;
use routelab_core::routing::{self, Routes, RoutingOptions};
use routelab_core::traffic::Pattern;
use routelab_core::{ChannelId, Network};

fn route(net: &Network, engine: &str) -> Routes {
    routing::route(net, engine, &RoutingOptions::default())
        .unwrap_or_else(|e| panic!("{engine} on {}: {e}", net.name()))
}

fn run(net: &Network, r: &Routes, patterns: usize, pattern: Option<&str>, seed: u64) -> EbbResult {
    ebb(
        net,
        r,
        &EbbOptions {
            patterns,
            pattern: pattern.map(String::from),
            seed,
            ..EbbOptions::default()
        },
    )
    .unwrap()
}

fn flows(net: &Network, spec_text: &str, seed: u64) -> Vec<(usize, usize)> {
    Pattern::parse(spec_text)
        .unwrap()
        .bind(net, seed)
        .unwrap()
        .flows()
}

#[test]
fn a_single_crossbar_is_exactly_one() {
    let net = spec::build("crossbar:32").unwrap();
    for engine in ["minhop", "sssp", "multipath", "valiant"] {
        let r = route(&net, engine);
        // Any permutation: random destinations (uniform) may collide.
        for pattern in [None, Some("permutation"), Some("bit-reverse")] {
            let res = run(&net, &r, 40, pattern, 3);
            assert_eq!((res.min, res.avg, res.max), (1.0, 1.0, 1.0), "{engine}");
        }
    }
}

#[test]
fn static_routes_on_a_fat_tree_lose_bandwidth() {
    let net = spec::build("kary-ntree:k=4,n=3").unwrap();
    for engine in ["sssp", "dmodk", "minhop"] {
        let r = route(&net, engine);
        let res = run(&net, &r, 200, None, 1);
        assert!(res.max <= 1.0 && res.min > 0.0, "{engine}: {res:?}");
        assert!(res.min <= res.avg && res.avg <= res.max);
        // Random bisections collide on static routes (geoffray2008 Fig. 2).
        assert!(res.avg < 1.0 && res.min < res.max, "{engine}: {res:?}");
    }
    // D-mod-k meets no contention on shift permutations of a full tree.
    let r = route(&net, "dmodk");
    for shift in [1, 4, 16, 21] {
        let f: Vec<_> = (0..64).map(|s| (s, (s + shift) % 64)).collect();
        assert_eq!(flow::orcs(&net, &r, &f).unwrap(), 1.0, "shift {shift}");
    }
}

#[test]
fn multipath_gives_full_bandwidth_on_full_bisection_trees() {
    for spec_text in ["clos:ports=32,hosts=512", "kary-ntree:k=4,n=3"] {
        let net = spec::build(spec_text).unwrap();
        let r = route(&net, "multipath");
        for pattern in [None, Some("permutation"), Some("bridge")] {
            let res = run(&net, &r, 20, pattern, 9);
            assert_eq!(
                (res.min, res.max),
                (1.0, 1.0),
                "{spec_text} {pattern:?}: {res:?}"
            );
        }
        let l = channel_loads(&net, &r, &flows(&net, "permutation", 4)).unwrap();
        assert!(l.exact);
        assert!(l.max() <= 1.0, "{spec_text}: an even split never overloads");
        // The same fabric routed statically falls short.
        let res = run(&net, &route(&net, "sssp"), 20, None, 9);
        assert!(res.avg < 1.0, "{spec_text}: {res:?}");
    }
}

#[test]
fn multipath_on_the_myrinet_clos_has_16_paths() {
    let net = spec::build("clos:ports=32,hosts=512").unwrap();
    let r = route(&net, "multipath");
    let ps = r.path_set().expect("multipath routes carry a path set");
    for (s, d) in [(0, 16), (0, 511), (37, 200), (511, 0)] {
        assert_eq!(r.path_count(s, d), 16, "{s} -> {d}: different leaves");
        let mut first_hops: Vec<ChannelId> = ps.paths(s, d).map(|p| p.channels[0]).collect();
        first_hops.sort();
        first_hops.dedup();
        assert_eq!(first_hops.len(), 16, "one path through each spine");
        for (p, lanes) in r.all_paths(&net, s, d).unwrap() {
            assert_eq!(p.len(), 4);
            assert!(lanes.iter().all(|&l| l == 0));
        }
    }
    for (s, d) in [(0, 15), (17, 16), (500, 511)] {
        assert_eq!(r.path_count(s, d), 1, "{s} -> {d}: same leaf");
        assert_eq!(r.path(&net, s, d).unwrap().len(), 2);
    }
    assert_eq!(r.path_count(5, 5), 0);
    assert_eq!(ps.denominator(), Some(16));
    assert!(r.is_minimal(&net).unwrap());
    assert_eq!(r.max_hops(&net).unwrap(), 2, "leaf, spine, leaf");
    let rep = r.deadlock_report(&net).unwrap();
    assert!(rep.deadlock_free, "{rep}");
    assert_eq!(rep.lanes_used, 1);
    // Every pair's paths: 15 same-leaf pairs and 496 * 16 others per source.
    assert_eq!(rep.paths, 512 * (15 + 496 * 16));
    // The tables still hold one minimal route per destination.
    assert!(r.port(0, 511).is_some());
}

#[test]
fn loads_conserve_path_lengths() {
    for (spec_text, engine) in [
        ("torus:4x4,c=2", "sssp"),
        ("torus:5x3", "dor"),
        ("kary-ntree:k=4,n=2", "dmodk"),
        ("random:switches=12,ports=8,hosts=2,seed=5", "minhop"),
        ("torus:4x4", "valiant"),
    ] {
        let net = spec::build(spec_text).unwrap();
        let r = route(&net, engine);
        for pattern in ["bisect", "uniform", "bit-complement", "local:l=1"] {
            let Ok(p) = Pattern::parse(pattern).unwrap().bind(&net, 2) else {
                continue;
            };
            let f = p.flows();
            let l = channel_loads(&net, &r, &f).unwrap();
            assert_eq!(l.denominator, 1, "single paths count whole flows");
            let sum: u64 = l.units.iter().sum();
            let lengths: usize = f.iter().map(|&(s, d)| r.hops(&net, s, d).unwrap()).sum();
            assert_eq!(sum, lengths as u64, "{spec_text} {engine} {pattern}");
        }
    }
    // Split flows conserve too: each flow adds its mean path length.
    let net = spec::build("torus:4x4").unwrap();
    let r = route(&net, "multipath");
    let f = flows(&net, "bisect", 1);
    let l = channel_loads(&net, &r, &f).unwrap();
    let expect: f64 = f
        .iter()
        .map(|&(s, d)| r.path(&net, s, d).unwrap().len() as f64)
        .sum();
    assert!((l.total() - expect).abs() < 1e-9);
}

/// The bound of one pattern: across the bisection `side`, at most
/// `width` flows' worth of bandwidth crosses each way.
fn bisection_bound(side: &[bool], net: &Network, f: &[(usize, usize)], width: f64) -> f64 {
    let side_of = |t: usize| side[net.terminal(t).index()];
    let ab = f
        .iter()
        .filter(|&&(s, d)| side_of(s) && !side_of(d))
        .count() as f64;
    let ba = f
        .iter()
        .filter(|&&(s, d)| !side_of(s) && side_of(d))
        .count() as f64;
    let inside = f.len() as f64 - ab - ba;
    (inside + ab.min(width) + ba.min(width)) / f.len() as f64
}

#[test]
fn consecutive_seeding_binds_pattern_i_with_seed_plus_i() {
    // The patterns a simulation draws from run.seed 7, 8, 9: a flow-level
    // and a packet-level study of them line up one to one.
    let net = spec::build("clos:ports=8,hosts=16").unwrap();
    let r = route(&net, "dmodk");
    let opts = EbbOptions {
        patterns: 3,
        seed: 7,
        seeding: Seeding::Consecutive,
        ..EbbOptions::default()
    };
    let res = ebb(&net, &r, &opts).unwrap();
    assert_eq!(res.pattern_seeds, vec![7, 8, 9]);
    for (i, seed) in (7..10).enumerate() {
        let f = flows(&net, "bisect", seed);
        let shares = orcs_shares(&net, &r, &f).unwrap();
        let mean = shares.iter().sum::<f64>() / f.len() as f64;
        assert_eq!(mean, res.per_pattern[i], "pattern {i}");
    }
    let drawn = ebb(
        &net,
        &r,
        &EbbOptions {
            seeding: Seeding::Drawn,
            ..opts.clone()
        },
    )
    .unwrap();
    assert_eq!(drawn.pattern_seeds, flow::pattern_seeds(7, 3));
    let mut set = EbbOptions::default();
    set.set("seeding", "consecutive").unwrap();
    assert_eq!(set.seeding, Seeding::Consecutive);
    let e = set.set("seeding", "sequential").unwrap_err().to_string();
    assert!(
        e.contains("seeding") && e.contains("drawn, consecutive"),
        "{e}"
    );
}

#[test]
fn no_pattern_beats_the_bisection_bound_on_a_torus() {
    let net = spec::build("torus:4x4,c=4").unwrap();
    let b = bisection(&net);
    let width = b.width as f64;
    assert_eq!(b.width, 8);
    for engine in ["sssp", "dor", "multipath", "valiant"] {
        let r = route(&net, engine);
        let res = run(&net, &r, 30, None, 11);
        let mut below = 0;
        for (i, seed) in flow::pattern_seeds(11, 30).into_iter().enumerate() {
            let f = flows(&net, "bisect", seed);
            let shares = orcs_shares(&net, &r, &f).unwrap();
            let mean = shares.iter().sum::<f64>() / f.len() as f64;
            assert!((mean - res.per_pattern[i]).abs() < 1e-12);
            let side_of = |t: usize| b.side[net.terminal(t).index()];
            for dir in [true, false] {
                let across: f64 = f
                    .iter()
                    .zip(&shares)
                    .filter(|(&(s, d), _)| side_of(s) == dir && side_of(d) != dir)
                    .map(|(_, &x)| x)
                    .sum();
                assert!(across <= width + 1e-9, "{engine}: {across} > {width}");
            }
            let bound = bisection_bound(&b.side, &net, &f, width);
            assert!(res.per_pattern[i] <= bound + 1e-12, "{engine} pattern {i}");
            below += usize::from(res.per_pattern[i] < bound);
        }
        assert!(res.avg < 1.0, "{engine}: {res:?}");
        assert!(
            below > 0,
            "{engine}: congestion keeps some pattern under the bound"
        );
    }
}

#[test]
fn results_do_not_depend_on_the_thread_count() {
    let net = spec::build("kary-ntree:k=4,n=3").unwrap();
    for engine in ["sssp", "multipath", "valiant"] {
        let r = route(&net, engine);
        for metric in [Metric::Orcs, Metric::MaxMin] {
            let opts = EbbOptions {
                patterns: 64,
                metric,
                seed: 5,
                ..EbbOptions::default()
            };
            let with = |threads: usize| {
                rayon::ThreadPoolBuilder::new()
                    .num_threads(threads)
                    .build()
                    .unwrap()
                    .install(|| ebb(&net, &r, &opts).unwrap())
            };
            let (one, two) = (with(1), with(2));
            assert_eq!(one.per_pattern, two.per_pattern, "{engine} {metric}");
            assert_eq!(
                (one.avg, one.min, one.max),
                (two.avg, two.min, two.max),
                "{engine} {metric}"
            );
            if engine == "sssp" {
                let other = ebb(
                    &net,
                    &r,
                    &EbbOptions {
                        seed: 6,
                        ..opts.clone()
                    },
                )
                .unwrap();
                assert_ne!(one.per_pattern, other.per_pattern, "seeds matter");
            }
        }
    }
}

/// Per flow, per channel: the share of the flow's rate the channel carries.
fn coefficients(net: &Network, r: &Routes, f: &[(usize, usize)]) -> Vec<Vec<(usize, f64)>> {
    f.iter()
        .map(|&(s, d)| {
            let paths = r.all_paths(net, s, d).unwrap();
            let n = paths.len() as f64;
            let mut out: Vec<(usize, f64)> = Vec::new();
            for (p, _) in paths {
                for c in p {
                    match out.iter_mut().find(|(x, _)| *x == c.index()) {
                        Some(e) => e.1 += 1.0 / n,
                        None => out.push((c.index(), 1.0 / n)),
                    }
                }
            }
            out
        })
        .collect()
}

#[test]
fn max_min_rates_are_feasible_and_every_flow_is_bottlenecked() {
    for (spec_text, engine, pattern) in [
        ("torus:4x4,c=2", "sssp", "bisect"),
        ("torus:4x4,c=2", "multipath", "uniform"),
        ("kary-ntree:k=4,n=3", "valiant", "permutation"),
        ("clos:ports=8,hosts=32", "multipath", "bisect"),
        (
            "random:switches=12,ports=8,hosts=3,seed=2",
            "minhop",
            "hotspot:f=0.3",
        ),
    ] {
        let net = spec::build(spec_text).unwrap();
        let r = route(&net, engine);
        for seed in 0..4 {
            let f = flows(&net, pattern, seed);
            let m = max_min_rates(&net, &r, &f, Capacity::Unit).unwrap();
            let coef = coefficients(&net, &r, &f);
            let mut used = vec![0.0; net.channel_count()];
            for (cs, &rate) in coef.iter().zip(&m.rates) {
                assert!(rate > 0.0 && rate <= 1.0 + 1e-12);
                for &(c, a) in cs {
                    used[c] += rate * a;
                }
            }
            assert!(
                used.iter().all(|&u| u <= 1.0 + 1e-9),
                "{spec_text} {engine}: a channel is over capacity"
            );
            // Max-min optimality: every flow crosses a full channel on which
            // no flow has a higher rate.
            for (i, cs) in coef.iter().enumerate() {
                let bottleneck = cs.iter().any(|&(c, _)| {
                    used[c] >= 1.0 - 1e-9
                        && coef.iter().zip(&m.rates).all(|(other, &r2)| {
                            !other.iter().any(|&(c2, _)| c2 == c) || r2 <= m.rates[i] + 1e-9
                        })
                });
                assert!(
                    bottleneck,
                    "{spec_text} {engine}: flow {i} is not bottlenecked"
                );
            }
            let mean = m.rates.iter().sum::<f64>() / f.len() as f64;
            assert!((m.mean - mean).abs() < 1e-12);
        }
    }
}

#[test]
fn max_min_never_falls_below_orcs_on_single_paths() {
    // A flow stops at level r when a channel c of its path fills, with no
    // flow on c above r: 1 = sum of rates on c <= L_c r, so r >= 1 / L_c,
    // at least the flow's ORCS share.
    for (spec_text, engine) in [("torus:4x4,c=2", "sssp"), ("kary-ntree:k=4,n=3", "dmodk")] {
        let net = spec::build(spec_text).unwrap();
        let r = route(&net, engine);
        for seed in 0..10 {
            let f = flows(&net, "bisect", seed);
            let shares = orcs_shares(&net, &r, &f).unwrap();
            let m = max_min_rates(&net, &r, &f, Capacity::Unit).unwrap();
            for (rate, share) in m.rates.iter().zip(&shares) {
                assert!(rate + 1e-12 >= *share, "{spec_text}: {rate} < {share}");
            }
        }
        let opts = EbbOptions {
            patterns: 20,
            seed: 4,
            ..EbbOptions::default()
        };
        let orcs = ebb(&net, &r, &opts).unwrap();
        let mm = ebb(
            &net,
            &r,
            &EbbOptions {
                metric: Metric::MaxMin,
                ..opts
            },
        )
        .unwrap();
        assert_eq!(mm.metric, Metric::MaxMin);
        for (o, m) in orcs.per_pattern.iter().zip(&mm.per_pattern) {
            assert!(m + 1e-12 >= *o, "{m} < {o}");
        }
        assert!(
            mm.avg > orcs.avg,
            "{spec_text}: max-min fills what ORCS leaves idle"
        );
    }
}

#[test]
fn bad_routes_and_flows_are_reported() {
    let net = spec::build("torus:4").unwrap();
    let mut r = route(&net, "dor");
    r.set_port(2, 3, None);
    let e = channel_loads(&net, &r, &[(0, 1), (1, 3)]).unwrap_err();
    assert!(matches!(e, FlowError::Unroutable { .. }), "{e}");
    let text = e.to_string();
    assert!(
        text.contains("cannot be routed") && text.contains("no table entry"),
        "{text}"
    );
    let e = run_err(&net, &r);
    assert!(e.contains("cannot be routed"), "{e}");
    let other = spec::build("torus:5").unwrap();
    let e = channel_loads(&other, &r, &[(0, 1)])
        .unwrap_err()
        .to_string();
    assert!(e.contains("do not match"), "{e}");
    let e = max_min_rates(&net, &route(&net, "dor"), &[(0, 7)], Capacity::Unit)
        .unwrap_err()
        .to_string();
    assert!(e.contains("out of range"), "{e}");
    let e = ebb(
        &net,
        &route(&net, "dor"),
        &EbbOptions {
            pattern: Some("rotate3d".into()),
            ..EbbOptions::default()
        },
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("rotate3d"), "{e}");
}

fn run_err(net: &Network, r: &Routes) -> String {
    ebb(
        net,
        r,
        &EbbOptions {
            patterns: 10,
            pattern: Some("uniform".into()),
            ..EbbOptions::default()
        },
    )
    .unwrap_err()
    .to_string()
}
