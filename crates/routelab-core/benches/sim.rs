//! Simulator benchmarks. Run with `cargo bench -p routelab-core --bench sim`
//! and record results in BENCHMARKS.md (section "Simulator").
//!
//! - The standard configuration: an 8-ary 3-cube torus (512 terminals),
//!   dimension order with dateline lanes, uniform traffic of 1-flit
//!   packets at 0.3 flits per node per cycle, 4 VCs of 8 flits, wormhole;
//!   a cycle is 1 ns (16-byte flits at 128 Gb/s, 1 ns links, 1 ns router
//!   pipeline). `dor` computes its hops; the same routes as tables of the
//!   `dor` engine are measured too (identical results).
//! - versaci2013 Table 1 parameters on a 16x16x16 torus at half load
//!   (`examples/versaci-table1.toml`): 100 microseconds of network time.
//!
//! - flich2000's Myrinet (`examples/myrinet-itb.toml`) on 64 switches and
//!   256 hosts: 1-byte flits under stop & go, ITB routes with in-transit
//!   hosts, uniform 512-byte packets at 0.06 flits per host per cycle.
//!
//! - Adaptive routing on the balanced 1,056-terminal dragonfly (a = 8,
//!   p = h = 4): the standard configuration's router and links, 6 VCs,
//!   `df-ugal-l` at 0.5 (half the injection bandwidth), and `df-min` at the
//!   same load and VCs beside it. The target: UGAL-L should move at least
//!   half the standard torus's flit-hops per second (`routelab bench` runs
//!   the two in turn and gives the ratio).
//!
//! Throughput is reported in flit-hops (flit transmissions over channels,
//! injection and ejection included) per second.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use routelab_core::routing::{self, RoutingOptions};
use routelab_core::sim::{build_network, AnyRouter, Experiment, PathChoice, Spec, TableRouter};

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

fn report(what: &str, exp: &Experiment) -> u64 {
    let probe = exp.run().expect("the benchmark runs");
    eprintln!(
        "{what}: {} flit-hops, {} events, {:.3e} flit-hops/s, {:.3e} simulated ns per wall \
         second, accepted {:.3}, latency {:.1} ns",
        probe.flit_hops,
        probe.events,
        probe.flit_hops as f64 / probe.wall_seconds,
        probe.simulated_ps as f64 / 1000.0 / probe.wall_seconds,
        probe.accepted,
        probe.latency_mean
    );
    probe.flit_hops
}

fn torus_dor(c: &mut Criterion) {
    let spec = Spec::from_toml_str(SPEC).expect("the benchmark spec reads");
    let exp = Experiment::new(&spec).expect("the benchmark experiment builds");
    let hops = report("torus 8x8x8 dor uniform 0.3", &exp);
    let net = build_network(&spec).expect("the network builds");
    let routes = routing::route(&net, "dor", &RoutingOptions::default()).expect("dor routes");
    let table = TableRouter::new(&net, routes, PathChoice::Random).expect("tables fit");
    let tables = Experiment::with_any_router(&spec, net, AnyRouter::from(table))
        .expect("the table experiment builds");
    report("torus 8x8x8 dor tables uniform 0.3", &tables);
    let mut g = c.benchmark_group("sim");
    g.sample_size(10);
    g.throughput(Throughput::Elements(hops));
    g.bench_function("torus8x8x8 dor uniform 0.3 (flit-hops)", |b| {
        b.iter(|| exp.run().expect("the benchmark runs"))
    });
    g.bench_function("torus8x8x8 dor tables uniform 0.3 (flit-hops)", |b| {
        b.iter(|| tables.run().expect("the benchmark runs"))
    });
    g.finish();
}

fn versaci_16(c: &mut Criterion) {
    let text = include_str!("../../../examples/versaci-table1.toml");
    // 100 us of network time: cycles of 64 ns (512 bytes at 64 Gb/s).
    let spec = Spec::from_toml_with(
        text,
        &[
            ("network.topology", "torus:16x16x16"),
            ("run.warmup_cycles", "500"),
            ("run.measure_cycles", "1063"),
            ("run.drain_cycles", "0"),
        ],
    )
    .expect("the versaci spec reads");
    let exp = Experiment::new(&spec).expect("the versaci experiment builds");
    let hops = report(
        "torus 16x16x16 versaci2013 Table 1, half load, 100 us",
        &exp,
    );
    let mut g = c.benchmark_group("sim");
    g.sample_size(10);
    g.throughput(Throughput::Elements(hops));
    g.bench_function("torus16x16x16 versaci half load 100us", |b| {
        b.iter(|| exp.run().expect("the benchmark runs"))
    });
    g.finish();
}

fn myrinet_itb(c: &mut Criterion) {
    let text = include_str!("../../../examples/myrinet-itb.toml");
    let spec = Spec::from_toml_with(
        text,
        &[
            (
                "network.topology",
                "random:switches=64,ports=8,hosts=4,seed=1",
            ),
            ("traffic.load", "0.06"),
            ("run.measure_cycles", "100000"),
        ],
    )
    .expect("the myrinet spec reads");
    let exp = Experiment::new(&spec).expect("the myrinet experiment builds");
    let hops = report("myrinet itb 64 switches uniform 0.06", &exp);
    let mut g = c.benchmark_group("sim");
    g.sample_size(10);
    g.throughput(Throughput::Elements(hops));
    g.bench_function("myrinet itb 64 switches uniform (flit-hops)", |b| {
        b.iter(|| exp.run().expect("the benchmark runs"))
    });
    g.finish();
}

fn dragonfly_ugal(c: &mut Criterion) {
    let mut g = c.benchmark_group("sim");
    g.sample_size(10);
    for router in ["df-ugal-l", "df-min"] {
        let spec = Spec::from_toml_with(
            SPEC,
            &[
                ("network.topology", "dragonfly:a=8,p=4,h=4"),
                ("routing.algorithm", router),
                ("router.vcs", "6"),
                ("traffic.load", "0.5"),
                ("run.measure_cycles", "4000"),
            ],
        )
        .expect("the dragonfly spec reads");
        let exp = Experiment::new(&spec).expect("the dragonfly experiment builds");
        let what = format!("dragonfly a=8,p=h=4 {router} uniform 0.5");
        g.throughput(Throughput::Elements(report(&what, &exp)));
        g.bench_function(format!("{what} (flit-hops)"), |b| {
            b.iter(|| exp.run().expect("the benchmark runs"))
        });
    }
    g.finish();
}

criterion_group!(benches, torus_dor, versaci_16, myrinet_itb, dragonfly_ugal);
criterion_main!(benches);
