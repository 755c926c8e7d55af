//! `router.allocator`: greedy (maximal) switch allocation against BookSim2's
//! one-iteration iSLIP and separable input-first allocators.

use routelab_core::sim::{self, Allocator, FlowControl, Spec, Switching};

const ALL: [Allocator; 3] = [
    Allocator::Greedy,
    Allocator::Islip,
    Allocator::SeparableInputFirst,
];

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
fn a_lone_flow_crosses_a_flit_per_cycle_under_every_allocator() {
    // Two switches in a line, one VC: nothing contends, so allocation in
    // rounds, one per cycle, must not cost a lone flow any throughput.
    for allocator in ALL {
        let mut s = booksim_like("mesh:2", "dor", allocator, 1.0);
        s.router.vcs = 1;
        let r = sim::simulate(&s).unwrap();
        assert!(r.accepted > 0.97, "{allocator:?} accepts {}", r.accepted);
    }
}

#[test]
fn zero_load_latency_does_not_depend_on_the_allocator() {
    // A round runs at the instant a flit may cross, after the arrivals of
    // that instant: no cycle is lost at zero load.
    let greedy = sim::simulate(&booksim_like("mesh:8x8", "dor", Allocator::Greedy, 0.005)).unwrap();
    for allocator in [Allocator::Islip, Allocator::SeparableInputFirst] {
        let r = sim::simulate(&booksim_like("mesh:8x8", "dor", allocator, 0.005)).unwrap();
        assert!(
            (greedy.latency_mean - r.latency_mean).abs() < 0.01 * greedy.latency_mean,
            "greedy {} against {allocator:?} {}",
            greedy.latency_mean,
            r.latency_mean
        );
    }
}

#[test]
fn one_switch_under_uniform_traffic_matches_booksim_and_is_fair() {
    // One 8-port switch, every terminal offering 1.0 to uniform random
    // destinations, BookSim2's input-queued pipeline. BookSim2 accepts
    // 0.805 (max-size), 0.641 (iSLIP) and 0.673 (separable input-first).
    // The pointers keep it fair: a grant pointer that never moved would
    // leave the least served terminal at a third of the most served, an
    // accept pointer that never moved at 0.8 of it.
    let want = [0.805, 0.641, 0.673];
    for (allocator, want) in ALL.into_iter().zip(want) {
        let mut s = booksim_like("kary-ntree:k=8,n=1", "minhop", allocator, 1.0);
        s.router.route_at_front = true;
        let r = sim::simulate(&s).unwrap();
        assert!(
            (r.accepted - want).abs() <= 0.05 * want,
            "{allocator:?} accepts {} against {want}",
            r.accepted
        );
        assert!(
            r.accepted_min >= 0.9 * r.accepted_max,
            "{allocator:?}: least served {} against most {}",
            r.accepted_min,
            r.accepted_max
        );
    }
}

#[test]
fn each_allocator_accepts_what_booksim_does_on_a_saturated_fat_tree() {
    // A 4-ary 3-tree with random minimal paths, 1-flit packets, offered
    // 1.0: BookSim2 accepts 0.776 (max-size), 0.668 (iSLIP) and 0.706
    // (separable input-first). A matching of one iteration leaves outputs
    // idle that a maximal one would have used.
    let want = [0.776, 0.668, 0.706];
    for (allocator, want) in ALL.into_iter().zip(want) {
        let mut s = booksim_like("kary-ntree:k=4,n=3", "multipath", allocator, 1.0);
        s.router.route_at_front = true;
        s.run.warmup_cycles = 500;
        s.run.measure_cycles = 2000;
        let got = sim::simulate(&s).unwrap().accepted;
        assert!(
            (got - want).abs() <= 0.05 * want,
            "{allocator:?} accepts {got} against {want}"
        );
    }
}

#[test]
fn rounds_on_saturated_tori_with_uneven_timing_never_deadlock_and_repeat() {
    // Link and pipeline times that are not multiples of the flit time, so
    // rounds fall between cycles; 4-flit packets, past saturation; each
    // switching mode and flow control.
    // The two allocators share everything but the matching.
    let cases = [
        (
            Allocator::SeparableInputFirst,
            Switching::Wormhole,
            FlowControl::Credit,
        ),
        (Allocator::Islip, Switching::Wormhole, FlowControl::Credit),
        (Allocator::Islip, Switching::CutThrough, FlowControl::Credit),
        (
            Allocator::Islip,
            Switching::StoreAndForward,
            FlowControl::Credit,
        ),
        (Allocator::Islip, Switching::Wormhole, FlowControl::StopGo),
    ];
    for (allocator, switching, flow) in cases {
        let mut s = Spec::new("torus:8x8", "duato");
        s.router.allocator = allocator;
        s.router.switching = switching;
        s.router.flow_control = flow;
        s.router.routing_delay = "30ns".into();
        s.traffic.packet_flits = Some(4);
        s.traffic.load = 1.0;
        s.run.warmup_cycles = 200;
        s.run.measure_cycles = 500;
        s.run.drain_cycles = Some(2000);
        let what = format!("{allocator:?} {switching:?} {flow:?}");
        let a = sim::simulate(&s).unwrap_or_else(|e| panic!("{what}: {e}"));
        assert!(a.accepted > 0.1, "{what} accepts {}", a.accepted);
        if switching == Switching::Wormhole && flow == FlowControl::Credit {
            let b = sim::simulate(&s).unwrap();
            assert_eq!(a.latency_mean.to_bits(), b.latency_mean.to_bits(), "{what}");
            assert_eq!(a.accepted.to_bits(), b.accepted.to_bits(), "{what}");
        }
    }
}

#[test]
fn rounds_take_a_crossbar_without_speedup() {
    let mut s = booksim_like("mesh:4x4", "dor", Allocator::Islip, 0.1);
    s.router.speedup = 2;
    let err = sim::simulate(&s).unwrap_err().to_string();
    assert!(
        err.contains("router.speedup") && err.contains("greedy"),
        "{err}"
    );
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
    assert!(
        err.contains("greedy") && err.contains("islip") && err.contains("separable-input-first"),
        "{err}"
    );
}
