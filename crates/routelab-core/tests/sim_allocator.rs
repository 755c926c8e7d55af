//! `router.allocator`: the greedy (maximal) switch allocation against one
//! iSLIP iteration per cycle, BookSim2's default.

use routelab_core::sim::{self, Allocator, Spec};

/// One-cycle links (16-byte flits at 128 Gb/s, 1 ns latency) and a
/// 3-cycle pipeline, as in the BookSim2 reference specs.
fn booksim_like(topology: &str, routing: &str, allocator: Allocator, load: f64) -> Spec {
    let mut s = Spec::new(topology, routing);
    s.network.links = Some(sim::LinkSpec {
        bandwidth: Some("128Gb/s".into()),
        latency: Some("1ns".into()),
    });
    s.router.vcs = 4;
    s.router.buffer_flits = Some(8);
    s.router.routing_delay = "3ns".into();
    s.router.allocator = allocator;
    s.traffic.load = load;
    s.run.warmup_cycles = 1000;
    s.run.measure_cycles = 3000;
    s
}

#[test]
fn a_lone_flow_crosses_a_flit_per_cycle_either_way() {
    // Two switches in a line, one VC: nothing contends, so one round per
    // cycle must match every flit the cycle it can go (a round that missed
    // the flits arriving at its own instant would lose cycles here).
    for allocator in [Allocator::Greedy, Allocator::Islip] {
        let mut s = booksim_like("mesh:2", "dor", allocator, 1.0);
        s.router.vcs = 1;
        let r = sim::simulate(&s).unwrap();
        assert!(r.accepted > 0.97, "{allocator:?} accepts {}", r.accepted);
    }
}

#[test]
fn zero_load_latency_does_not_depend_on_the_allocator() {
    let greedy = sim::simulate(&booksim_like("mesh:8x8", "dor", Allocator::Greedy, 0.005)).unwrap();
    let islip = sim::simulate(&booksim_like("mesh:8x8", "dor", Allocator::Islip, 0.005)).unwrap();
    assert!(
        (greedy.latency_mean - islip.latency_mean).abs() < 0.01 * greedy.latency_mean,
        "greedy {} against iSLIP {}",
        greedy.latency_mean,
        islip.latency_mean
    );
}

#[test]
fn one_islip_iteration_loses_matching_efficiency_on_a_fat_tree() {
    // A 4-ary 3-tree with random minimal paths, 1-flit packets, offered
    // 1.0 (BookSim2: 0.668 with iSLIP, 0.776 with its max-size
    // allocator). An input whose pick loses at its output sends nothing
    // that cycle, however many of its other VCs could have gone.
    let run = |a| {
        let mut s = booksim_like("kary-ntree:k=4,n=3", "multipath", a, 1.0);
        s.router.route_at_front = true;
        sim::simulate(&s).unwrap().accepted
    };
    let (greedy, islip) = (run(Allocator::Greedy), run(Allocator::Islip));
    assert!(greedy > 0.74, "greedy accepts {greedy}");
    assert!((0.60..0.70).contains(&islip), "iSLIP accepts {islip}");
}

#[test]
fn islip_on_a_saturated_torus_with_uneven_timing_never_deadlocks_and_repeats() {
    // Link and pipeline times that are not multiples of the flit time, so
    // rounds fall between cycles; 4-flit packets, past saturation.
    let mut s = Spec::new("torus:8x8", "duato");
    s.router.allocator = Allocator::Islip;
    s.router.routing_delay = "30ns".into();
    s.traffic.packet_flits = Some(4);
    s.traffic.load = 1.0;
    s.run.warmup_cycles = 500;
    s.run.measure_cycles = 1500;
    s.run.drain_cycles = Some(3000);
    let a = sim::simulate(&s).unwrap_or_else(|e| panic!("{e}"));
    let b = sim::simulate(&s).unwrap();
    assert!(a.accepted > 0.1, "accepts {}", a.accepted);
    assert_eq!(a.latency_mean.to_bits(), b.latency_mean.to_bits());
    assert_eq!(a.accepted.to_bits(), b.accepted.to_bits());
}

#[test]
fn the_allocator_is_read_from_the_spec() {
    let text = r#"
        [network]
        topology = "mesh:4x4"
        [router]
        allocator = "islip"
        [routing]
        algorithm = "dor"
    "#;
    let spec: Spec = toml::from_str(text).unwrap();
    assert_eq!(spec.router.allocator, Allocator::Islip);
    let bad = text.replace("islip", "wavefront");
    let err = toml::from_str::<Spec>(&bad).unwrap_err().to_string();
    assert!(err.contains("greedy") && err.contains("islip"), "{err}");
}
