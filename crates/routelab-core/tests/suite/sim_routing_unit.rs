//! `router.routing_unit_time`: one routing control unit per switch, as in
//! Myrinet: a switch routes one head per unit time at most, which bounds
//! its packet rate and leaves the flit rate of long packets and the
//! zero-load latency alone.

use routelab_core::sim::{self, SimError, SimResult, Spec};

/// One 8-port crossbar switch, 1 ns flits, uniform traffic.
fn crossbar(unit: &str, packet_flits: u32, load: f64) -> Spec {
    let mut s = Spec::new("crossbar:8", "minhop");
    s.network.links = Some(sim::LinkSpec {
        bandwidth: Some("128Gb/s".into()),
        latency: Some("1ns".into()),
    });
    s.router.vcs = 1;
    s.router.buffer_flits = Some(32);
    s.router.routing_unit_time = unit.into();
    s.traffic.packet_flits = Some(packet_flits);
    s.traffic.load = load;
    s.run.warmup_cycles = 2000;
    s.run.measure_cycles = 10000;
    s.run.seed = 7;
    s
}

#[test]
fn a_switch_routes_one_head_per_unit_time() {
    // A 4 ns unit routes 0.25 heads a cycle: 8 terminals offering one-flit
    // packets at 0.5 get 1/32 each at most; heads rarely find their
    // one-flit output busy, so the unit loses little to them.
    let r = sim::simulate(&crossbar("4ns", 1, 0.5)).unwrap();
    let bound = 1.0 / 32.0;
    assert!(
        r.accepted <= bound * 1.01 && r.accepted >= bound * 0.97,
        "accepted {} against the unit's {bound}",
        r.accepted
    );
    let free = sim::simulate(&crossbar("0ns", 1, 0.5)).unwrap();
    assert!(free.accepted > 0.45, "without the unit {}", free.accepted);
}

/// The crossbar run with a unit of `unit` and without one.
fn with_and_without(unit: &str, packet_flits: u32, load: f64) -> (SimResult, SimResult) {
    let with = sim::simulate(&crossbar(unit, packet_flits, load)).unwrap();
    let without = sim::simulate(&crossbar("0ns", packet_flits, load)).unwrap();
    (with, without)
}

fn assert_within(what: &str, with: f64, without: f64, share: f64) {
    assert!(
        (with - without).abs() < share * without,
        "{what}: {with} with the unit against {without}"
    );
}

#[test]
fn long_packets_keep_their_flit_rate() {
    // 64-flit packets at 0.5 ask for 1/16 heads a cycle; a 2 ns unit
    // routes 0.5, heads that find their output busy included: what is
    // accepted matches the switch without the unit.
    let (unit, free) = with_and_without("2ns", 64, 0.5);
    assert_within("accepted", unit.accepted, free.accepted, 0.03);
}

#[test]
fn zero_load_latency_is_unchanged() {
    let (unit, free) = with_and_without("4ns", 4, 0.002);
    assert_within("latency", unit.latency_mean, free.latency_mean, 0.05);
}

#[test]
fn a_saturated_torus_moves_and_repeats() {
    // 8x8 torus, dateline classes, 4-flit packets past saturation: heads
    // wait for turns, never for each other in a cycle.
    let mut s = Spec::new("torus:8x8", "dor");
    s.router.routing_unit_time = "30ns".into();
    s.router.routing_delay = "20ns".into();
    s.traffic.packet_flits = Some(4);
    s.traffic.load = 1.0;
    s.run.warmup_cycles = 500;
    s.run.measure_cycles = 1500;
    s.run.drain_cycles = Some(3000);
    let a = sim::simulate(&s).unwrap_or_else(|e| panic!("{e}"));
    let b = sim::simulate(&s).unwrap();
    assert!(a.accepted > 0.0);
    assert_eq!(a.latency_mean.to_bits(), b.latency_mean.to_bits());
    assert_eq!(a.accepted.to_bits(), b.accepted.to_bits());
}

#[test]
fn a_malformed_time_names_the_key() {
    let e = sim::simulate(&crossbar("fast", 1, 0.1)).unwrap_err();
    assert!(e.to_string().contains("router.routing_unit_time"), "{e}");
}

#[test]
fn a_deadlock_is_reported_though_blocked_heads_keep_taking_turns() {
    // Heads that cannot move still ask the unit for turns; the watchdog
    // looks at flits, not events, and names the cycle.
    let mut s = crate::common::cyclic_ring();
    s.router.routing_unit_time = "2ns".into();
    match sim::simulate(&s) {
        Err(SimError::Deadlock(info)) => assert!(info.cycle.len() >= 2, "{info}"),
        other => panic!("expected a deadlock, got {other:?}"),
    }
}
