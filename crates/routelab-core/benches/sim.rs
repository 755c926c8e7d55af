//! Simulator benchmark. Run with `cargo bench -p routelab-core --bench sim`
//! and record results in BENCHMARKS.md.
//!
//! The standard configuration: an 8-ary 3-cube torus (512 terminals),
//! dimension order with dateline lanes, uniform traffic of 1-flit packets
//! at 0.3 flits per node per cycle, 4 VCs of 8 flits, wormhole; a cycle is
//! 1 ns (16-byte flits at 128 Gb/s, 1 ns links, 1 ns router pipeline).
//! Throughput is reported in flit-hops (flit transmissions over channels,
//! injection and ejection included) per second.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use routelab_core::sim::{Experiment, Spec};

const SPEC: &str = r#"
[network]
topology = "torus:8x8x8"
links = { bandwidth = "128Gb/s", latency = "1ns" }
[router]
switching = "wormhole"
vcs = 4
buffer_flits = 8
flit_bytes = 16
routing_delay = "1ns"
[routing]
algorithm = "dor"
[traffic]
pattern = "uniform"
load = 0.3
packet_flits = 1
[run]
warmup_cycles = 1000
measure_cycles = 10000
seed = 1
"#;

fn torus_dor(c: &mut Criterion) {
    let spec = Spec::from_toml_str(SPEC).expect("the benchmark spec reads");
    let exp = Experiment::new(&spec).expect("the benchmark experiment builds");
    let probe = exp.run().expect("the benchmark runs");
    eprintln!(
        "torus 8x8x8 dor uniform 0.3: {} flit-hops, {} events, {:.3e} flit-hops/s, \
         {:.3e} simulated ns per wall second, accepted {:.3}, latency {:.1} ns",
        probe.flit_hops,
        probe.events,
        probe.flit_hops as f64 / probe.wall_seconds,
        probe.simulated_ps as f64 / 1000.0 / probe.wall_seconds,
        probe.accepted,
        probe.latency_mean
    );
    let mut g = c.benchmark_group("sim");
    g.sample_size(10);
    g.throughput(Throughput::Elements(probe.flit_hops));
    g.bench_function("torus8x8x8 dor uniform 0.3 (flit-hops)", |b| {
        b.iter(|| exp.run().expect("the benchmark runs"))
    });
    g.finish();
}

criterion_group!(benches, torus_dor);
criterion_main!(benches);
