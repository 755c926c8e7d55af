//! Helpers shared by the simulator's tests.

use routelab_core::sim::{self, SimResult, Spec};

/// A spec with short phases, fit for debug builds.
pub fn quick(topology: &str, algorithm: &str) -> Spec {
    let mut s = Spec::new(topology, algorithm);
    s.run.warmup_cycles = 500;
    s.run.measure_cycles = 2000;
    s.run.drain_cycles = Some(3000);
    s
}

/// Runs and checks conservation as the result reports it.
pub fn run(spec: &Spec) -> SimResult {
    let r = sim::simulate(spec).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        r.packets_generated,
        r.packets_delivered + r.packets_in_flight,
        "conservation"
    );
    assert!(r.flits_delivered <= r.flits_generated);
    // Fairness: no source below the least or above the most of them.
    assert!(0.0 <= r.accepted_min && r.accepted_min <= r.accepted_max);
    assert!(r.accepted <= r.accepted_max + 1e-12, "{r:?}");
    r
}

/// A ring of 8 routed on one lane under tornado: everyone sends 3 hops the
/// same way round, so wormhole packets fill the ring and wait in a cycle.
pub fn cyclic_ring() -> Spec {
    let mut s = quick("torus:8", "minhop");
    s.router.vcs = 1;
    s.router.buffer_flits = Some(4);
    s.traffic.pattern = Some("tornado".into());
    s.traffic.packet_flits = Some(8);
    s.traffic.load = 1.0;
    s.run.watchdog_cycles = 300;
    s
}
