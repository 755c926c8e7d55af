//! VC allocation among waiting heads: a buffer served while the heads
//! waiting for an output are retried does not come first again.

use routelab_core::sim::{self, Spec};

#[test]
fn an_injection_buffer_does_not_starve_through_traffic_past_saturation() {
    // Ring of 8, dimension order with a dateline, 4 VCs of 8 flits,
    // 1-flit packets, tornado at full injection. The lane-0 buffers fill;
    // the terminal next to the wraparound link and the packets that came
    // round the ring wait for the same two VCs of that link. Each credit
    // used to go to the injection buffer, whose next head, registered
    // during the retry, came first again: one source delivered 1.0 and
    // the seven others nothing (0.125 in all). Served in turn, every
    // source delivers (0.164 in all, least 0.028; BookSim2 on the same
    // ring: 0.167).
    let mut s = Spec::new("torus:8", "dor");
    s.network.links = Some(sim::LinkSpec {
        bandwidth: Some("128Gb/s".into()),
        latency: Some("1ns".into()),
    });
    s.router.vcs = 4;
    s.router.buffer_flits = Some(8);
    s.router.routing_delay = "3ns".into();
    s.traffic.pattern = Some("tornado".into());
    s.traffic.load = 1.0;
    s.run.warmup_cycles = 500;
    s.run.measure_cycles = 2000;
    s.run.drain_cycles = Some(3000);
    let r = sim::simulate(&s).unwrap_or_else(|e| panic!("{e}"));
    assert!(r.accepted > 0.15, "accepted {}", r.accepted);
    assert!(r.accepted_min > 0.01, "least served {}", r.accepted_min);
    assert!(r.accepted_max < 0.6, "most served {}", r.accepted_max);
}
