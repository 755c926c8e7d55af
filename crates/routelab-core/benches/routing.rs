//! Routing-engine benchmarks on fabrics of about 4,000 endpoints. Run with
//! `cargo bench -p routelab-core --bench routing`; record results in
//! BENCHMARKS.md.

use criterion::{criterion_group, criterion_main, Criterion};
use routelab_core::network::spec;
use routelab_core::routing::{self, RoutingOptions};
use std::hint::black_box;

/// 256 switches of 32 ports, 16 endpoints each: 4,096 endpoints.
const RANDOM: &str = "random:switches=256,ports=32,hosts=16,seed=1";
/// 16-ary 3-tree: 4,096 endpoints, 768 switches.
const TREE: &str = "kary-ntree:k=16,n=3";

fn engines(c: &mut Criterion) {
    let opts = RoutingOptions {
        max_lanes: 15,
        ..RoutingOptions::default()
    };
    let mut g = c.benchmark_group("route 4096 endpoints");
    g.sample_size(10);
    for (label, topo) in [("random", RANDOM), ("tree", TREE)] {
        let net = spec::build(topo).expect("the benchmark fabric builds");
        for engine in ["minhop", "sssp", "dfsssp", "updown", "lash"] {
            g.bench_function(format!("{engine} {label}"), |b| {
                b.iter(|| routing::route(black_box(&net), engine, &opts).expect("routes"))
            });
        }
        let routes = routing::route(&net, "sssp", &opts).expect("routes");
        g.bench_function(format!("deadlock check sssp {label}"), |b| {
            b.iter(|| routes.deadlock_report(black_box(&net)).expect("checks"))
        });
    }
    g.finish();
}

criterion_group!(benches, engines);
criterion_main!(benches);
