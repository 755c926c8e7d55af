//! Network benchmarks. Run with `cargo bench -p routelab-core --bench network`
//! and record results in BENCHMARKS.md.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use routelab_core::network::io::{ibnetdiscover, json};
use routelab_core::network::recognise::recognise;
use routelab_core::network::spec;
use std::hint::black_box;

/// A 3-level fat tree of 675 switches and 3375 hosts: 20,250 ports.
const FABRIC: &str = "kary-ntree:k=15,n=3";

fn fabric_files(c: &mut Criterion) {
    let net = spec::build(FABRIC).expect("the benchmark fabric builds");
    let ports: u64 = net.nodes().iter().map(|n| u64::from(n.ports)).sum();
    let ibnet = ibnetdiscover::to_string(&net);
    let json_text = json::to_string(&net);

    let mut g = c.benchmark_group(format!("fabric files ({ports} ports)"));
    g.throughput(Throughput::Bytes(ibnet.len() as u64));
    g.bench_function("ibnetdiscover parse", |b| {
        b.iter(|| ibnetdiscover::from_str(black_box(&ibnet), "bench.ibnet").expect("reads"))
    });
    g.bench_function("ibnetdiscover write", |b| {
        b.iter(|| ibnetdiscover::to_string(black_box(&net)))
    });
    g.throughput(Throughput::Bytes(json_text.len() as u64));
    g.bench_function("json parse", |b| {
        b.iter(|| json::from_str(black_box(&json_text), "bench.json").expect("reads"))
    });
    g.finish();
}

/// Building the two large regular networks of the foundation targets.
fn generators(c: &mut Criterion) {
    let mut g = c.benchmark_group("build");
    g.sample_size(10);
    for spec_text in ["kary-ntree:k=16,n=4", "torus:32x32x64"] {
        g.bench_function(spec_text, |b| {
            b.iter(|| spec::build(black_box(spec_text)).expect("builds"))
        });
    }
    g.finish();
}

/// Recognising tori and fat trees in their ibnetdiscover dumps (no
/// structure): the whole switch graph matched onto the generated one.
fn recognition(c: &mut Criterion) {
    let mut g = c.benchmark_group("recognise");
    g.sample_size(10);
    for spec_text in [
        "torus:16x16x16",
        "torus:32x32x64",
        "kary-ntree:k=18,n=3,terminals=4096",
        "kary-ntree:k=16,n=4",
    ] {
        let net = spec::build(spec_text).expect("builds");
        let dump = ibnetdiscover::from_str(&ibnetdiscover::to_string(&net), "dump.ibnet")
            .expect("reads back");
        g.bench_function(spec_text, |b| {
            b.iter(|| recognise(black_box(&dump)).expect("recognised"))
        });
    }
    g.finish();
}

criterion_group!(benches, fabric_files, generators, recognition);
criterion_main!(benches);
