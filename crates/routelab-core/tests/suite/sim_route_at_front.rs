//! `router.route_at_front`: a head queued behind another packet in its VC
//! starts the routing pipeline only when it reaches the front, as in an
//! input-queued router (BookSim2's `iq`): one packet per VC per
//! `routing_delay` at most.

use routelab_core::sim::{self, Spec};

/// Two switches in a line, one VC, a 3-cycle pipeline, 1-flit packets
/// from one terminal to the other at full load.
fn line(front: bool, load: f64) -> Spec {
    let mut s = Spec::new("mesh:2", "dor");
    s.network.links = Some(sim::LinkSpec {
        bandwidth: Some("128Gb/s".into()),
        latency: Some("1ns".into()),
    });
    s.router.vcs = 1;
    s.router.buffer_flits = Some(8);
    s.router.routing_delay = "3ns".into();
    s.router.route_at_front = front;
    s.traffic.load = load;
    s.run.warmup_cycles = 500;
    s.run.measure_cycles = 3000;
    s
}

#[test]
fn a_vc_forwards_one_packet_per_pipeline_delay() {
    // Pipelined, the VC forwards a packet a cycle; at the front, one per
    // 3 cycles: both terminals offer 0.6, the VCs take 1/3.
    let piped = sim::simulate(&line(false, 0.6)).unwrap();
    let front = sim::simulate(&line(true, 0.6)).unwrap();
    assert!(
        piped.accepted > 0.58,
        "pipelined accepts {}",
        piped.accepted
    );
    assert!(
        (0.30..=0.34).contains(&front.accepted),
        "at the front accepts {}",
        front.accepted
    );
}

#[test]
fn zero_load_latency_is_the_same_either_way() {
    let piped = sim::simulate(&line(false, 0.01)).unwrap();
    let front = sim::simulate(&line(true, 0.01)).unwrap();
    assert!(
        (piped.latency_mean - front.latency_mean).abs() < 0.05 * piped.latency_mean,
        "{} against {}",
        piped.latency_mean,
        front.latency_mean
    );
}

#[test]
fn multi_flit_packets_on_a_torus_never_deadlock_and_repeat() {
    // 8x8 torus, dateline classes, 4-flit packets, saturated: the option
    // changes when heads move, not which channels they wait for.
    let mut s = Spec::new("torus:8x8", "dor");
    s.router.route_at_front = true;
    s.router.routing_delay = "20ns".into();
    s.traffic.packet_flits = Some(4);
    s.traffic.load = 1.0;
    s.run.warmup_cycles = 500;
    s.run.measure_cycles = 1500;
    s.run.drain_cycles = Some(2000);
    let a = sim::simulate(&s).unwrap_or_else(|e| panic!("{e}"));
    let b = sim::simulate(&s).unwrap();
    assert!(a.accepted > 0.0);
    assert_eq!(a.latency_mean.to_bits(), b.latency_mean.to_bits());
    assert_eq!(a.accepted.to_bits(), b.accepted.to_bits());
}
