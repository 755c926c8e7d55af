//! Flow-level benchmarks. Run with `cargo bench -p routelab-core --bench flow`
//! and record results in BENCHMARKS.md. The target: 1,000 random
//! bisections on 1,024 endpoints in well under 0.1 s.

use criterion::{criterion_group, criterion_main, Criterion};
use routelab_core::flow::{ebb, EbbOptions, Metric};
use routelab_core::network::spec;
use routelab_core::routing::{self, RoutingOptions};
use std::hint::black_box;

/// 1,024 endpoints: a 2-level fat tree of 32-port-down switches.
const FAT_TREE: &str = "kary-ntree:k=32,n=2";
/// The 512-node Myrinet Clos of geoffray2008 (16 paths between leaves).
const CLOS: &str = "clos:ports=32,hosts=512";

fn bisections(c: &mut Criterion) {
    let mut g = c.benchmark_group("ebb");
    g.sample_size(10);
    let cases = [
        (FAT_TREE, "sssp", Metric::Orcs, 1000),
        (CLOS, "multipath", Metric::Orcs, 1000),
        (FAT_TREE, "sssp", Metric::MaxMin, 100),
    ];
    for (spec_text, engine, metric, patterns) in cases {
        let net = spec::build(spec_text).expect("the benchmark fabric builds");
        let routes = routing::route(&net, engine, &RoutingOptions::default()).expect("routes");
        let opts = EbbOptions {
            patterns,
            metric,
            ..EbbOptions::default()
        };
        g.bench_function(
            format!("{spec_text} {engine} {metric}, {patterns} bisections"),
            |b| b.iter(|| ebb(black_box(&net), black_box(&routes), &opts).expect("evaluates")),
        );
    }
    g.finish();
}

criterion_group!(benches, bisections);
criterion_main!(benches);
