//! Parallel runs (`run.threads`): repeatable for a seed and thread count,
//! whatever the cores that run them (`run.cores`), in agreement with
//! sequential runs within the spread over seeds, exact in their accounting
//! whatever crosses between parts (multi-flit wormhole packets, messages,
//! stop & go, in-transit packets), and reporting a deadlock's cycle across
//! parts.

use routelab_core::network::spec;
use routelab_core::sim::{
    self, AnyRouter, Candidate, Candidates, Experiment, FlowControl, Header, Here, HopRouter,
    LocalView, RouterCtx, SimError, SimResult, Spec, Switching, Workload,
};
use routelab_core::ChannelId;

use crate::common::{cyclic_ring, quick, run};

fn threads(s: &Spec, n: usize) -> Spec {
    let mut s = s.clone();
    s.run.threads = n;
    s
}

fn strip(r: SimResult) -> serde_json::Value {
    let mut v = serde_json::to_value(r).unwrap();
    v.as_object_mut().unwrap().remove("wall_seconds");
    v
}

#[test]
fn a_parallel_run_repeats_bit_for_bit_for_its_seed_and_thread_count() {
    let mut s = quick("torus:8x8", "duato");
    s.router.vcs = 3;
    s.router.selection = sim::Selection::Random;
    s.traffic.load = 0.5;
    s.traffic.packet_flits = Some(4);
    let s3 = threads(&s, 3);
    let a = strip(run(&s3));
    assert_eq!(a, strip(run(&s3)));
    let mut other_seed = s3.clone();
    other_seed.run.seed = 2;
    assert_ne!(a, strip(run(&other_seed)));
    // Another thread count is another run (credits between parts travel
    // as messages), not another result.
    assert_ne!(a, strip(run(&threads(&s, 2))));
}

#[test]
fn a_parallel_run_is_the_same_on_any_number_of_cores() {
    // Five parts of an 8x8 torus under saturation with 4-flit packets, on
    // one thread (every part in turn), on two (three parts and two), and
    // on five: a part reads only the mail of windows already ended.
    let mut s = quick("torus:8x8", "duato");
    s.router.vcs = 3;
    s.traffic.load = 0.9;
    s.traffic.packet_flits = Some(4);
    let mut s5 = threads(&s, 5);
    let on = |s5: &mut Spec, cores: usize| {
        s5.run.cores = cores;
        strip(run(s5))
    };
    let one = on(&mut s5, 1);
    assert_eq!(one, on(&mut s5, 2));
    assert_eq!(one, on(&mut s5, 5));
    // More cores than parts: one thread a part.
    assert_eq!(one, on(&mut s5, 64));
}

/// Mean and standard deviation.
fn spread(xs: &[f64]) -> (f64, f64) {
    let n = xs.len() as f64;
    let mean = xs.iter().sum::<f64>() / n;
    let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0);
    (mean, var.sqrt())
}

#[test]
fn parallel_runs_agree_with_sequential_ones_within_the_spread_over_seeds() {
    // 8-ary 3-cube, wormhole, 4-flit packets: below saturation and far
    // beyond it (dimension order saturates tornado near 0.5 of a link).
    for (pattern, load) in [("uniform", 0.3), ("tornado", 0.9)] {
        let mut s = quick("torus:8x8x8", "dor");
        s.router.vcs = 2;
        s.traffic.pattern = Some(pattern.into());
        s.traffic.load = load;
        s.traffic.packet_flits = Some(4);
        s.run.warmup_cycles = 300;
        s.run.measure_cycles = 1200;
        s.run.drain_cycles = Some(0);
        let seq: Vec<SimResult> = (1..=4)
            .map(|seed| {
                let mut t = s.clone();
                t.run.seed = seed;
                run(&t)
            })
            .collect();
        let (acc, acc_sd) = spread(&seq.iter().map(|r| r.accepted).collect::<Vec<_>>());
        let (lat, lat_sd) = spread(&seq.iter().map(|r| r.latency_mean).collect::<Vec<_>>());
        for n in [2, 5] {
            let r = run(&threads(&s, n));
            // Four standard deviations over four seeds, or 1% where the
            // seeds happen to agree more closely than that.
            let ok = |x: f64, m: f64, sd: f64| (x - m).abs() <= (4.0 * sd).max(0.01 * m);
            assert!(
                ok(r.accepted, acc, acc_sd),
                "{pattern} {load}, {n} threads: accepted {} against {acc} +- {acc_sd}",
                r.accepted
            );
            assert!(
                ok(r.latency_mean, lat, lat_sd),
                "{pattern} {load}, {n} threads: latency {} against {lat} +- {lat_sd}",
                r.latency_mean
            );
            assert_eq!(r.avg_hops.round(), seq[0].avg_hops.round());
        }
    }
}

/// Sequential and 3-thread runs of `s`: both exact in their accounting,
/// and within `tol` (relative) of each other in accepted throughput.
fn close_in_parallel(s: &Spec, tol: f64) -> (SimResult, SimResult) {
    let a = run(s);
    let b = run(&threads(s, 3));
    assert!(
        (a.accepted - b.accepted).abs() <= tol * a.accepted,
        "accepted {} sequential, {} in parallel",
        a.accepted,
        b.accepted
    );
    (a, b)
}

#[test]
fn whatever_crosses_between_parts_is_accounted_for() {
    // Multi-packet messages: the generating part counts their deliveries.
    let mut s = quick("torus:8x8", "dor");
    s.router.vcs = 2;
    s.traffic.load = 0.3;
    s.traffic.packet_flits = Some(2);
    s.traffic.message_packets = 4;
    let (a, b) = close_in_parallel(&s, 0.05);
    assert!(b.messages_measured_delivered > 0);
    let rel = (a.message_latency_mean - b.message_latency_mean).abs() / a.message_latency_mean;
    assert!(
        rel < 0.1,
        "{} against {}",
        b.message_latency_mean,
        a.message_latency_mean
    );

    // Stop & go: stop and go signals cross as messages.
    let mut s = quick("torus:8x8", "dor");
    s.router.vcs = 2;
    s.router.flow_control = FlowControl::StopGo;
    // Slack for the 32-flit round trip of the default 100 ns links.
    s.router.buffer_flits = Some(64);
    s.router.stop_threshold = Some(16);
    s.router.go_threshold = Some(8);
    s.traffic.load = 0.4;
    s.traffic.packet_flits = Some(8);
    let (_, b) = close_in_parallel(&s, 0.05);
    assert!(b.stop_signals.unwrap() > 0);

    // Store-and-forward, routing at the front, allocation in rounds.
    let mut s = quick("torus:8x8", "dor");
    s.router.vcs = 2;
    s.router.switching = Switching::StoreAndForward;
    s.router.route_at_front = true;
    s.router.allocator = sim::Allocator::Islip;
    s.traffic.load = 0.5;
    s.traffic.packet_flits = Some(3);
    close_in_parallel(&s, 0.05);
}

#[test]
fn in_transit_packets_cross_parts() {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../examples/myrinet-itb.toml"
    ))
    .unwrap();
    let mut s = Spec::from_toml_str(&text).unwrap();
    s.run.warmup_cycles = 5000;
    s.run.measure_cycles = 40_000;
    s.run.drain_cycles = Some(40_000);
    let (a, b) = close_in_parallel(&s, 0.05);
    assert!(a.transits > 0 && b.transits > 0);
}

#[test]
fn a_deadlock_across_parts_is_reported_with_its_cycle() {
    // The cycle runs through both halves of the ring.
    let mut s = cyclic_ring();
    s.run.threads = 2;
    for cores in [1, 2] {
        s.run.cores = cores;
        deadlocks_across_the_halves(&s);
    }
}

fn deadlocks_across_the_halves(s: &Spec) {
    match sim::simulate(s) {
        Err(SimError::Deadlock(info)) => {
            assert!(info.cycle.len() >= 2, "{info}");
            assert!(info.packets_in_network > 0);
            assert!(info.cycle.iter().all(|b| b.flits > 0), "{info}");
            // Switches s0..s3 are one part, s4..s7 the other.
            let low = |b: &sim::WaitingBuffer| b.node[1..].parse::<u32>().unwrap() < 4;
            assert!(
                info.cycle.iter().any(low) && !info.cycle.iter().all(low),
                "{info}"
            );
        }
        other => panic!("expected a deadlock, got {other:?}"),
    }
}

#[test]
fn what_a_parallel_run_cannot_do_is_refused_by_name() {
    let refused = |s: &Spec| match sim::simulate(s) {
        Err(SimError::Config(e)) => e.to_string(),
        other => panic!("expected a refusal, got {other:?}"),
    };
    let s = quick("torus:4x4", "dor");
    let e = refused(&threads(&s, 0));
    assert!(e.contains("run.threads") && e.contains("1..=16"), "{e}");
    let e = refused(&threads(&s, 17));
    assert!(e.contains("run.threads") && e.contains("1..=16"), "{e}");
    let mut ping = threads(&s, 2);
    ping.traffic.workload = Workload::PingPong;
    ping.traffic.pairs = Some(vec![[0, 5]]);
    let e = refused(&ping);
    assert!(
        e.contains("run.threads") && e.contains("closed-loop"),
        "{e}"
    );
    // Probing reads channels anywhere in the network.
    let mut probing = quick("clos:ports=8,hosts=16", "dispersive");
    probing.routing.options = toml::from_str("mode = \"probing\"").unwrap();
    probing.run.threads = 2;
    let e = refused(&probing);
    assert!(e.contains("run.threads") && e.contains("anywhere"), "{e}");
    probing.routing.options = toml::from_str("mode = \"adaptive\"").unwrap();
    run(&probing);
    // So does UGAL-G, for the global channels' queues.
    let mut global = quick("dragonfly:a=4,p=2,h=2", "df-ugal-g");
    global.run.threads = 2;
    let e = refused(&global);
    assert!(e.contains("df-ugal-g") && e.contains("anywhere"), "{e}");
    let mut instant = threads(&s, 2);
    instant.network.links = Some(sim::LinkSpec {
        bandwidth: None,
        latency: Some("0ns".into()),
    });
    let e = refused(&instant);
    assert!(e.contains("run.threads") && e.contains("latency"), "{e}");
}

#[test]
fn a_run_beyond_its_memory_limit_is_refused_with_what_fits() {
    let mut s = quick("torus:16x16x16", "dor");
    s.run.threads = 8;
    let exp = sim::Experiment::new(&s).unwrap();
    let need = exp.memory_bytes();
    // Every thread's copy is counted.
    s.run.threads = 1;
    let one = sim::Experiment::new(&s).unwrap().memory_bytes();
    assert_eq!(need, 8 * one);
    // At least the channel lines and VC records of 4,096 switches.
    assert!(one > 4096 * 8 * (64 + 2 * 32), "{one}");
    s.run.threads = 8;
    s.run.memory_limit = sim::Size::Bytes(need / 3);
    let e = match sim::simulate(&s) {
        Err(SimError::Config(e)) => e.to_string(),
        other => panic!("expected a refusal, got {other:?}"),
    };
    assert!(
        e.contains("run.memory_limit") && e.contains("8 threads"),
        "{e}"
    );
    // What it suggests fits.
    assert!(e.contains("run.threads = 2,"), "{e}");
    let torus = e.split('(').find_map(|p| p.strip_prefix("torus:")).unwrap();
    let torus = format!("torus:{}", torus.split(')').next().unwrap());
    let mut smaller = s.clone();
    smaller.network.topology = torus.clone();
    let fits = sim::Experiment::new(&smaller).unwrap().memory_bytes();
    assert!(
        fits <= need / 3 && fits > need / 6,
        "{torus}: {fits} of {}",
        need / 3
    );
}

/// Dimension-order routing that breaks (panics) at one switch once the
/// run is past `at_ps`: an internal error inside one part.
struct BreaksAt {
    inner: AnyRouter,
    switch: u32,
    at_ps: u64,
}

impl HopRouter for BreaksAt {
    fn name(&self) -> &str {
        "breaks-at"
    }
    fn vcs_needed(&self) -> u8 {
        self.inner.vcs_needed()
    }
    fn route(
        &self,
        hdr: &Header,
        here: &Here,
        view: &dyn LocalView,
        ctx: &mut RouterCtx,
        out: &mut Candidates,
    ) {
        if here.switch_index == self.switch && here.now_ps > self.at_ps {
            panic!("broken at switch {}", self.switch);
        }
        self.inner.route(hdr, here, view, ctx, out)
    }
    fn forwarded(
        &self,
        hdr: &mut Header,
        here: &Here,
        chosen: Candidate,
        channel: ChannelId,
        ctx: &mut RouterCtx,
    ) {
        self.inner.forwarded(hdr, here, chosen, channel, ctx)
    }
}

#[test]
fn a_part_that_breaks_fails_the_run_instead_of_hanging_it() {
    let mut s = quick("torus:8x8", "dor");
    s.router.vcs = 2;
    s.traffic.load = 0.3;
    s.run.threads = 4;
    // Two threads: the failing part shares its thread with part 2.
    s.run.cores = 2;
    let net = spec::build("torus:8x8").unwrap();
    let opts = sim::router_options(&s.routing, s.run.seed).unwrap();
    let inner = routelab_core::routing::adaptive::build(&net, "dor", &opts).unwrap();
    // Switch 63 is in the last part, not the caller's thread.
    let router = BreaksAt {
        inner,
        switch: 63,
        at_ps: 1_000_000,
    };
    let exp = Experiment::with_router(&s, net, Box::new(router)).unwrap();
    match exp.run() {
        Err(e) => {
            let e = e.to_string();
            assert!(
                e.contains("internal error in part 3") && e.contains("broken at switch 63"),
                "{e}"
            );
        }
        Ok(r) => panic!("expected an error, got {r:?}"),
    }
}
