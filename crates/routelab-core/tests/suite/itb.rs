//! In-transit buffers and Myrinet up*/down* source routes (flich2000):
//! ITB routes are minimal and split into legal up*/down* sub-routes whose
//! dependency graph is acyclic once hosts eject, while the same minimal
//! routes unsplit are cyclic; `updown-source` routes are legal; the
//! simulator's in-transit NICs reproduce the analytical zero-load latency,
//! never overflow a stop & go slack buffer and stay deadlock-free.

use routelab_core::deadlock::{self, PathRef};
use routelab_core::network::{spec, Network};
use routelab_core::routing::{self, transit_hosts, RoutingOptions};
use routelab_core::sim::{self, SimResult, Spec, Workload};
use routelab_core::ChannelId;
use std::collections::VecDeque;

fn options(seed: u64) -> RoutingOptions {
    RoutingOptions {
        root: Some("0".into()),
        seed,
        ..RoutingOptions::default()
    }
}

/// (BFS level from switch index 0, switch index) of every node; the "up"
/// end of a link is the smaller. Computed here, apart from the engines.
fn up_order(net: &Network) -> Vec<(u32, usize)> {
    let mut level = vec![u32::MAX; net.node_count()];
    let root = net.switches()[0];
    level[root.index()] = 0;
    let mut q = VecDeque::from([root]);
    while let Some(v) = q.pop_front() {
        for &c in net.out_channels(v) {
            let w = net.channel(c).dst;
            if net.is_switch(w) && level[w.index()] == u32::MAX {
                level[w.index()] = level[v.index()] + 1;
                q.push_back(w);
            }
        }
    }
    net.node_ids()
        .map(|v| (level[v.index()], net.kind_index(v)))
        .collect()
}

/// Splits a path at the terminals it passes through.
fn sub_routes<'a>(net: &Network, path: &'a [ChannelId]) -> Vec<&'a [ChannelId]> {
    let mut out = Vec::new();
    let mut start = 0;
    for (i, &c) in path.iter().enumerate() {
        if net.is_terminal(net.channel(c).dst) {
            out.push(&path[start..=i]);
            start = i + 1;
        }
    }
    out
}

/// Whether a terminal-to-terminal route goes up zero or more links, then
/// down zero or more.
fn legal(net: &Network, order: &[(u32, usize)], route: &[ChannelId]) -> bool {
    let mut down = false;
    for &c in route {
        let ch = net.channel(c);
        if !(net.is_switch(ch.src) && net.is_switch(ch.dst)) {
            continue;
        }
        let up = order[ch.dst.index()] < order[ch.src.index()];
        if up && down {
            return false;
        }
        down |= !up;
    }
    true
}

fn net16(seed: u64) -> Network {
    spec::build(&format!("random:switches=16,ports=8,hosts=4,seed={seed}")).unwrap()
}

#[test]
fn itb_routes_are_minimal_and_split_into_legal_sub_routes() {
    let mut split_pairs = 0;
    for seed in 1..=4 {
        let net = net16(seed);
        let order = up_order(&net);
        let engine = ["itb", "itb-any", "itb-legal-first"][seed as usize % 3];
        let itb = routing::route(&net, engine, &options(seed)).unwrap();
        assert!(itb.is_minimal(&net).unwrap(), "seed {seed}");
        let t = net.terminals().len();
        let mut unsplit = Vec::new();
        for s in 0..t {
            for d in (0..t).filter(|&d| d != s) {
                let p = itb.path(&net, s, d).unwrap();
                let subs = sub_routes(&net, &p);
                assert_eq!(subs.len(), transit_hosts(&net, &p) + 1);
                for sub in &subs {
                    assert!(legal(&net, &order, sub), "seed {seed}: {s} -> {d}");
                }
                if subs.len() > 1 {
                    split_pairs += 1;
                    // A split is needed: the whole minimal path is illegal.
                    let mut whole: Vec<ChannelId> = Vec::new();
                    let mut k = 0;
                    while k < p.len() {
                        let c = p[k];
                        if net.is_terminal(net.channel(c).dst) && k + 1 < p.len() {
                            k += 2;
                            continue;
                        }
                        whole.push(c);
                        k += 1;
                    }
                    assert!(!legal(&net, &order, &whole), "seed {seed}: {s} -> {d}");
                    unsplit.push(whole);
                } else {
                    unsplit.push(p);
                }
            }
        }
        // Hosts eject: acyclic. The same minimal paths without the hosts:
        // on one lane they close a cycle.
        let report = itb.deadlock_report(&net).unwrap();
        assert!(report.deadlock_free, "seed {seed}: {:?}", report.cycle);
        let whole = deadlock::verify(&net, unsplit.iter().map(|p| PathRef::uniform(p, 0))).unwrap();
        if split_pairs > 0 {
            assert!(
                !whole.deadlock_free,
                "seed {seed}: unsplit minimal routes acyclic"
            );
        }
    }
    assert!(split_pairs > 0, "no route needed an in-transit host");
}

#[test]
fn myrinet_updown_source_routes_are_legal_and_balanced() {
    for seed in 1..=3 {
        let net = net16(seed);
        let order = up_order(&net);
        let ud = routing::route(&net, "updown-source", &options(seed)).unwrap();
        let t = net.terminals().len();
        for s in 0..t {
            for d in (0..t).filter(|&d| d != s) {
                let p = ud.path(&net, s, d).unwrap();
                assert_eq!(transit_hosts(&net, &p), 0);
                assert!(legal(&net, &order, &p), "seed {seed}: {s} -> {d}");
            }
        }
        assert!(ud.deadlock_report(&net).unwrap().deadlock_free);
        // Balancing may lengthen routes, never below the shortest legal
        // ones of the table engine on average by much.
        let tables = routing::route(&net, "updown", &options(seed)).unwrap();
        let (a, b) = (ud.avg_hops(&net).unwrap(), tables.avg_hops(&net).unwrap());
        assert!(a >= b - 1e-9 || a <= b + 1.0, "{a} vs {b}");
    }
}

/// flich2000's Myrinet: 160 MB/s, 1-byte flits, 10 m cables, 150 ns
/// through a switch, stop & go on 80-byte slack buffers, 275 + 200 ns to
/// re-inject an in-transit packet.
fn myrinet(topology: &str, algorithm: &str) -> Spec {
    let text = format!(
        r#"
[network]
topology = "{topology}"
links = {{ bandwidth = "160MB/s", latency = "49.2ns" }}
[router]
switching = "wormhole"
vcs = 1
buffer_flits = 80
flit_bytes = 1
routing_delay = "150ns"
flow_control = "stop-go"
stop_threshold = 56
go_threshold = 40
[routing]
algorithm = "{algorithm}"
root = "0"
[nic]
transit_delay = "475ns"
transit_buffer = "512KiB"
[traffic]
pattern = "uniform"
load = 0.02
packet_bytes = "64B"
[run]
warmup_cycles = 2000
measure_cycles = 20000
"#
    );
    Spec::from_toml_str(&text).unwrap()
}

#[test]
fn zero_load_latency_counts_every_in_transit_host() {
    let topology = "random:switches=16,ports=8,hosts=4,seed=2";
    let net = spec::build(topology).unwrap();
    let itb = routing::route(&net, "itb", &options(1)).unwrap();
    let t = net.terminals().len();
    let (s, d, p) = (0..t)
        .flat_map(|s| (0..t).map(move |d| (s, d)))
        .filter(|(s, d)| s != d)
        .map(|(s, d)| (s, d, itb.path(&net, s, d).unwrap()))
        .find(|(_, _, p)| transit_hosts(&net, p) > 0)
        .expect("a pair through an in-transit host");
    let k = transit_hosts(&net, &p) as u64;
    let flits = 64u64;
    let (f_ps, l_ps, r_ps, d_ps) = (6250u64, 49_200u64, 150_000u64, 475_000u64);
    // Every channel costs a flit time and the cable; every switch visit
    // the routing delay; every host in transit its delay; the tail
    // follows the head by flits - 1 flit times.
    let channels = p.len() as u64;
    let switch_visits = channels - 1 - k;
    let expect = channels * (f_ps + l_ps) + switch_visits * r_ps + k * d_ps + (flits - 1) * f_ps;
    let mut spec = myrinet(topology, "itb");
    spec.traffic.workload = Workload::PingPong;
    spec.traffic.pairs = Some(vec![[s as u32, d as u32]]);
    spec.traffic.rounds = 1;
    spec.traffic.packet_bytes = Some(sim::Size::Bytes(flits));
    spec.traffic.message_bytes = Some(sim::Size::Bytes(flits));
    let r = sim::simulate(&spec).unwrap();
    // The message goes s -> d, the reply d -> s on its own route.
    let w = r.workload.as_ref().unwrap();
    let back = itb.path(&net, d, s).unwrap();
    let kb = transit_hosts(&net, &back) as u64;
    let cb = back.len() as u64;
    let expect_back = cb * (f_ps + l_ps) + (cb - 1 - kb) * r_ps + kb * d_ps + (flits - 1) * f_ps;
    let rtt_ps = w.pairs[0].round_trip_ns.unwrap() * 1000.0;
    assert!(
        (rtt_ps - (expect + expect_back) as f64).abs() < 1.0,
        "{rtt_ps} vs {} + {}",
        expect,
        expect_back
    );
    assert_eq!(r.transits, k + kb);
}

fn run(spec: &Spec) -> SimResult {
    let r = sim::simulate(spec).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        r.packets_generated,
        r.packets_delivered + r.packets_in_flight
    );
    r
}

#[test]
fn itb_beyond_saturation_stays_deadlock_free_within_the_slack_buffer() {
    let topology = "random:switches=16,ports=8,hosts=4,seed=3";
    for algorithm in ["itb", "updown-source"] {
        let mut s = myrinet(topology, algorithm);
        s.traffic.load = 0.9;
        s.run.measure_cycles = 40_000;
        s.run.watchdog_cycles = 20_000;
        let r = run(&s);
        // The watchdog would have failed the run; a stop & go buffer that
        // overflowed fails it too (flits are never dropped).
        assert!(r.accepted > 0.0);
        // Stop above 56 with 8 flits in flight each way: 80 bytes suffice.
        let peak = r.buffer_occupancy_max.expect("stop & go reports it");
        assert!(peak <= 80, "slack buffer overflowed: {peak}");
        assert!(peak > 56, "back-pressure was exercised: {peak}");
        if algorithm == "itb" {
            assert!(r.transits > 0);
            assert!(r.transit_peak_bytes > 0 && r.transit_peak_bytes <= 512 * 1024);
            assert_eq!(r.transit_spills, 0);
        } else {
            assert_eq!(r.transits, 0);
        }
    }
}

#[test]
fn a_full_in_transit_buffer_spills_to_host_memory_and_says_so() {
    let topology = "random:switches=16,ports=8,hosts=4,seed=3";
    let mut s = myrinet(topology, "itb");
    s.traffic.load = 0.9;
    s.nic.transit_buffer = Some(sim::Size::Bytes(64));
    let r = run(&s);
    assert!(r.transit_spills > 0);
    assert!(r.transit_peak_bytes <= 64);
}

#[test]
fn itb_runs_repeat_bit_for_bit() {
    let topology = "random:switches=16,ports=8,hosts=4,seed=4";
    let mut s = myrinet(topology, "itb");
    s.traffic.load = 0.3;
    let mut a = run(&s);
    let mut b = run(&s);
    (a.wall_seconds, b.wall_seconds) = (0.0, 0.0);
    assert!(a.transits > 0);
    assert_eq!(format!("{a:?}"), format!("{b:?}"));
}

#[test]
fn dispersive_refuses_routes_through_in_transit_hosts() {
    let mut s = myrinet("random:switches=16,ports=8,hosts=4,seed=1", "dispersive");
    s.routing
        .options
        .insert("engine".into(), toml::Value::String("itb".into()));
    let e = sim::simulate(&s).unwrap_err().to_string();
    assert!(e.contains("engine") && e.contains("in-transit"), "{e}");
}

#[test]
fn itb_legal_first_splits_exactly_the_pairs_without_a_legal_minimal_path() {
    let net = spec::build("random:switches=32,ports=8,hosts=4,seed=5").unwrap();
    let few = routing::route(&net, "itb", &options(1)).unwrap();
    let first = routing::route(&net, "itb-legal-first", &options(1)).unwrap();
    let t = net.terminals().len();
    let (mut split, mut more) = (0, 0);
    for s in 0..t {
        for d in (0..t).filter(|&d| d != s) {
            let (p, q) = (
                few.path(&net, s, d).unwrap(),
                first.path(&net, s, d).unwrap(),
            );
            let (a, b) = (transit_hosts(&net, &p), transit_hosts(&net, &q));
            // `itb` splits a pair only when no legal minimal path exists,
            // and then with the fewest hosts: legal-first splits the same
            // pairs, with as many hosts or more.
            assert_eq!(a == 0, b == 0, "{s} -> {d}");
            assert!(a <= b, "{s} -> {d}");
            split += usize::from(b > 0);
            more += usize::from(b > a);
        }
    }
    assert!(
        split > 0 && more > 0,
        "{split} split, {more} with more hosts"
    );
    assert!(first.is_minimal(&net).unwrap());
    assert!(first.deadlock_report(&net).unwrap().deadlock_free);
}

#[test]
fn itb_any_spreads_over_more_paths_with_more_in_transit_hosts() {
    let net = spec::build("random:switches=32,ports=8,hosts=4,seed=5").unwrap();
    let few = routing::route(&net, "itb", &options(1)).unwrap();
    let any = routing::route(&net, "itb-any", &options(1)).unwrap();
    let (f, a) = (
        few.transit_hosts_mean(&net).unwrap(),
        any.transit_hosts_mean(&net).unwrap(),
    );
    // The fewest hosts per pair, by construction: never more on any pair.
    let t = net.terminals().len();
    for s in 0..t {
        for d in (0..t).filter(|&d| d != s) {
            let (p, q) = (few.path(&net, s, d).unwrap(), any.path(&net, s, d).unwrap());
            assert!(
                transit_hosts(&net, &p) <= transit_hosts(&net, &q),
                "{s} -> {d}"
            );
        }
    }
    assert!(f < a, "{f} vs {a}");
    assert!(any.is_minimal(&net).unwrap() && any.deadlock_report(&net).unwrap().deadlock_free);
}
