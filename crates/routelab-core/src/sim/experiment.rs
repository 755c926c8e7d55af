//! An experiment: a spec resolved once (network, router, pattern,
//! settings) and run at one or several loads.
//!
//! Open loop: warm-up periods (until the mean latency of two consecutive
//! periods agrees within `run.convergence`, at most `run.warmup_periods`),
//! then the measurement window, whose packets are labelled; then a drain
//! that keeps injecting until every labelled packet is delivered (at most
//! `run.drain_cycles`). Closed loop: the workload runs from time 0 until
//! every pair completes.

use super::config::{Allocator, FlowControl, LoadUnit, RoutingSpec, Spec, Switching, Workload};
use super::engine::Kind;
use super::error::{ConfigError, SimError};
use super::link::MAX_BUFFER_FLITS;
use super::load;
use super::parallel::{Parallel, Tally};
use super::partition::Partition;
use super::roundtrip;
use super::state::{Params, Sim};
use super::stats::{close, SimResult};
use super::workload::Closed;
use crate::network::Structure;
use crate::network::{self, Network};
use crate::routing::adaptive::{self, AnyRouter, HopRouter, Resources, RouterOptions};
use crate::routing::RoutingOptions;
use crate::traffic::{BoundPattern, Pattern};
use crate::units::bytes_text;
use crate::units::{Bandwidth, Picos};
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Instant;

/// The highest offered load, in flits per terminal per cycle. A NIC's
/// injection channel carries one; offering more only grows its source
/// queue, so loads a little above one are meaningful (saturation
/// searches start there) and loads far above it are mistakes.
pub const MAX_OFFERED_FLITS: f64 = 64.0;

/// A resolved experiment. See the module docs.
pub struct Experiment {
    spec: Spec,
    net: Network,
    router: AnyRouter,
    pattern: Option<BoundPattern>,
    pairs: Vec<(u32, u32)>,
    params: Params,
    /// versaci2013's unit of load in flits per cycle, when asked for.
    gamma0_flits: Option<f64>,
    /// What the spec allows but will likely regret (see [`Self::warnings`]).
    warnings: Vec<String>,
    /// A fabric simulated renumbered as the family it was recognised as:
    /// how to name its terminals and channels in the results as the
    /// fabric does.
    renumbered: Option<Renumbering>,
    /// With `run.threads` above 1, the network's parts, made once.
    partition: Option<Arc<Partition>>,
}

/// A recognised fabric's numbering against the one simulated.
struct Renumbering {
    /// Per simulated terminal: its index in the fabric.
    terminal: Vec<u32>,
    /// Per simulated channel: the fabric's channel.
    channel: Vec<network::ChannelId>,
}

impl Renumbering {
    fn of(fabric: &Network, r: &network::recognise::Recognised) -> Self {
        Renumbering {
            terminal: r
                .net
                .terminals()
                .iter()
                .map(|&t| fabric.kind_index(r.node[t.index()]) as u32)
                .collect(),
            channel: r.channel.clone(),
        }
    }

    /// `spec` with what it names by index in the fabric's numbering
    /// (closed-loop pairs, the hot spot, an up*/down* root) named in the
    /// simulated one. Patterns that permute terminal indices (bit-reverse,
    /// shuffle) act on the simulated numbering, switch by switch as the
    /// generated network numbers them.
    fn spec(&self, spec: &Spec, fabric: &Network) -> Result<Spec, SimError> {
        let mut to_sim = vec![u32::MAX; self.terminal.len()];
        for (sim, &fabric) in self.terminal.iter().enumerate() {
            to_sim[fabric as usize] = sim as u32;
        }
        let map = |t: u32| to_sim.get(t as usize).copied().unwrap_or(t);
        let mut out = spec.clone();
        if let Some(pairs) = &mut out.traffic.pairs {
            for pair in pairs.iter_mut() {
                *pair = [map(pair[0]), map(pair[1])];
            }
        }
        // A root given by index names the fabric's switch: name it by GUID
        // (or name), which the renumbered network keeps.
        if let Some(root) = &out.routing.root {
            if let Ok(i) = root.parse::<usize>() {
                if let Some(&x) = fabric.switches().get(i) {
                    let node = fabric.node(x);
                    out.routing.root = Some(if node.guid != 0 {
                        format!("{:#018x}", node.guid)
                    } else {
                        node.name.clone()
                    });
                }
            }
        }
        if let Some(name) = &out.traffic.pattern {
            if let Pattern::Hotspot { f, host } = Pattern::parse(name)? {
                let host = map(host as u32) as usize;
                out.traffic.pattern = Some(Pattern::Hotspot { f, host }.to_string());
            }
        }
        Ok(out)
    }
}

/// The options a spec gives to a router or engine.
pub fn router_options(spec: &RoutingSpec, run_seed: u64) -> Result<RouterOptions, SimError> {
    let mut o = RoutingOptions {
        seed: spec.seed.unwrap_or(run_seed),
        ..RoutingOptions::default()
    };
    if let Some(l) = spec.max_lanes {
        o.set("max_lanes", &l.to_string())?;
    }
    if let Some(d) = spec.datelines {
        o.datelines = d;
    }
    if let Some(r) = &spec.root {
        o.set("root", r)?;
    }
    if let Some(h) = &spec.heuristic {
        o.set("heuristic", h)?;
    }
    o.validate()?;
    let params = spec
        .options
        .iter()
        .map(|(k, v)| {
            let text = match v {
                toml::Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            (k.clone(), text)
        })
        .collect();
    Ok(RouterOptions {
        routing: o,
        path_choice: spec.path_choice,
        params,
    })
}

/// Builds the spec's network with its channel classes applied.
pub fn build_network(spec: &Spec) -> Result<Network, SimError> {
    let net = network::spec::build(&spec.network.topology)?;
    let ns = &spec.network;
    if ns.links.is_none() && ns.classes.is_empty() {
        return Ok(net);
    }
    let names: Vec<String> = net.classes().iter().map(|c| c.name.clone()).collect();
    for name in ns.classes.keys() {
        if !names.contains(name) {
            return Err(ConfigError::invalid(
                &format!("network.classes.{name}"),
                name,
                format!("a class of the network: {}", names.join(", ")),
            )
            .into());
        }
    }
    let mut b = net.to_builder();
    for class in net.classes() {
        let (mut bw, mut lat) = (class.bandwidth, class.latency);
        let key = format!("network.classes.{}", class.name);
        for (k, link) in [
            ("network.links", ns.links.as_ref()),
            (key.as_str(), ns.classes.get(&class.name)),
        ] {
            let Some(link) = link else { continue };
            if let Some(s) = &link.bandwidth {
                bw = Bandwidth::parse(s)
                    .map_err(|e| ConfigError::invalid(&format!("{k}.bandwidth"), s, e.reason))?;
            }
            if let Some(s) = &link.latency {
                lat = Picos::parse(s)
                    .map_err(|e| ConfigError::invalid(&format!("{k}.latency"), s, e.reason))?;
            }
        }
        b.set_class(&class.name, bw, lat);
    }
    Ok(b.build()?)
}

/// The closed-loop counts and sizes a workload runs with: none may be 0.
fn check_closed_loop(t: &super::config::TrafficSpec) -> Result<(), SimError> {
    let zero =
        |key: &str, expected: &str| -> SimError { ConfigError::invalid(key, 0, expected).into() };
    if t.workload == Workload::PingPong && t.rounds == 0 {
        return Err(zero("traffic.rounds", "at least 1 round"));
    }
    if t.workload == Workload::Exchange && t.messages == 0 {
        return Err(zero("traffic.messages", "at least 1 message"));
    }
    if let Some(s) = &t.message_bytes {
        if s.bytes("traffic.message_bytes")? == 0 {
            return Err(zero("traffic.message_bytes", "at least 1 byte"));
        }
    }
    Ok(())
}

/// `pairs` and, after them, each pair's reverse that is not already there.
fn both_ways(pairs: Vec<(u32, u32)>) -> Vec<(u32, u32)> {
    let mut listed: std::collections::HashSet<(u32, u32)> = pairs.iter().copied().collect();
    let reverse: Vec<(u32, u32)> = pairs
        .iter()
        .map(|&(a, b)| (b, a))
        .filter(|&r| listed.insert(r))
        .collect();
    let mut out = pairs;
    out.extend(reverse);
    out
}

/// Greedy disjoint pairs from `flows`: each terminal in at most one pair.
fn disjoint_pairs(flows: &[(usize, usize)], terminals: usize) -> Vec<(u32, u32)> {
    let mut used = vec![false; terminals];
    let mut out = Vec::new();
    for &(s, d) in flows {
        if s != d && !used[s] && !used[d] {
            used[s] = true;
            used[d] = true;
            out.push((s as u32, d as u32));
        }
    }
    out
}

impl Experiment {
    /// Builds the network and the router the spec names. A fabric read
    /// from a file that a router or pattern needs as a torus or fat tree is
    /// recognised from its cabling and simulated renumbered as one
    /// ([`crate::network::recognise`]): same nodes, names and links.
    pub fn new(spec: &Spec) -> Result<Self, SimError> {
        let net = build_network(spec)?;
        // Source routes from a file name the fabric's own ports: no
        // renumbering under them.
        if !matches!(net.structure(), network::Structure::Irregular)
            || spec.routing.routes_file.is_some()
        {
            return Self::on_network(spec, net);
        }
        match Self::on_network(spec, net) {
            Err(SimError::Routing(unfit @ crate::routing::RoutingError::Unfit { .. })) => {
                let net = build_network(spec)?;
                let r = crate::routing::recognised_or(&net, unfit)?;
                Self::recognised(spec, &net, r)
            }
            Err(SimError::Traffic(e @ crate::traffic::TrafficError::NeedsCoordinates { .. })) => {
                let net = build_network(spec)?;
                match network::recognise::recognise(&net) {
                    Ok(r) => Self::recognised(spec, &net, r),
                    Err(_) => Err(e.into()),
                }
            }
            other => other,
        }
    }

    /// The experiment on `fabric` renumbered as recognised: terminals the
    /// spec names are the fabric's, and so are those the results name.
    fn recognised(
        spec: &Spec,
        fabric: &Network,
        r: network::recognise::Recognised,
    ) -> Result<Self, SimError> {
        let renumbering = Renumbering::of(fabric, &r);
        let mut e = Self::on_network(&renumbering.spec(spec, fabric)?, r.net)?;
        // Everything the spec names by index is bound by now: the spec the
        // experiment shows is the one given.
        e.spec = spec.clone();
        e.renumbered = Some(renumbering);
        Ok(e)
    }

    fn on_network(spec: &Spec, net: Network) -> Result<Self, SimError> {
        if let Some(file) = &spec.routing.routes_file {
            let text = std::fs::read_to_string(file).map_err(|e| {
                ConfigError::invalid("routing.routes_file", file, format!("cannot read it: {e}"))
            })?;
            let routes = crate::routing::formats::read_source_routes(&net, &text, file)?;
            let router = adaptive::TableRouter::new(&net, routes, spec.routing.path_choice)?;
            return Self::with_any_router(spec, net, router.into());
        }
        let opts = router_options(&spec.routing, spec.run.seed)?;
        let router =
            adaptive::build(&net, &spec.routing.algorithm, &opts).map_err(|e| match e {
                crate::routing::RoutingError::UnknownEngine { name, valid, hint } => {
                    ConfigError::invalid("routing.algorithm", name, format!("one of {valid}{hint}"))
                        .into()
                }
                e => SimError::from(e),
            })?;
        Self::with_any_router(spec, net, router)
    }

    /// An experiment on a given network with a router of one's own (the
    /// spec's `[network]` and `[routing]` are then only labels).
    pub fn with_router(
        spec: &Spec,
        net: Network,
        router: Box<dyn HopRouter>,
    ) -> Result<Self, SimError> {
        Self::with_any_router(spec, net, AnyRouter::Custom(router))
    }

    /// An experiment on a given network with a given router: one of the
    /// registry ([`adaptive::build`]), a [`adaptive::TableRouter`], or one's
    /// own.
    pub fn with_any_router(spec: &Spec, net: Network, router: AnyRouter) -> Result<Self, SimError> {
        let (r, t, run) = (&spec.router, &spec.traffic, &spec.run);
        let bad = |key: &str, value: String, expected: &str| -> SimError {
            ConfigError::invalid(key, value, expected).into()
        };
        if r.flit_bytes == 0 {
            return Err(bad("router.flit_bytes", "0".into(), "at least 1"));
        }
        let flit_bytes = u64::from(r.flit_bytes);
        let packet_bytes = t
            .packet_bytes
            .as_ref()
            .map(|s| s.bytes("traffic.packet_bytes"))
            .transpose()?;
        if packet_bytes == Some(0) {
            return Err(bad("traffic.packet_bytes", "0".into(), "at least 1 byte"));
        }
        let packet_flits = match (t.packet_flits, packet_bytes) {
            (Some(_), Some(_)) => {
                return Err(bad(
                    "traffic.packet_flits",
                    "both packet_flits and packet_bytes".into(),
                    "one of them",
                ))
            }
            (Some(f), None) => u64::from(f),
            (None, Some(b)) => b.div_ceil(flit_bytes),
            (None, None) => 1,
        };
        if packet_flits == 0 || packet_flits > u64::from(u16::MAX) {
            return Err(bad(
                "traffic.packet_flits",
                packet_flits.to_string(),
                "1..=65535 flits",
            ));
        }
        let mtu_bytes = packet_bytes.unwrap_or(packet_flits * flit_bytes);
        let routing_delay_ps = Picos::parse(&r.routing_delay)
            .map_err(|e| ConfigError::invalid("router.routing_delay", &r.routing_delay, e.reason))?
            .0;
        let routing_unit_ps = Picos::parse(&r.routing_unit_time)
            .map_err(|e| {
                ConfigError::invalid("router.routing_unit_time", &r.routing_unit_time, e.reason)
            })?
            .0;
        let nic = &spec.nic;
        let picos = |key: &str, text: &str| {
            Picos::parse(text)
                .map(|p| p.0)
                .map_err(|e| ConfigError::invalid(key, text, e.reason))
        };
        let transit_delay_ps = picos("nic.transit_delay", &nic.transit_delay)?;
        let spill_delay_ps = picos("nic.spill_delay", &nic.spill_delay)?;
        // A host rate as a flit time (0: the link's); it must fit the event
        // clock's per-hop arithmetic.
        let host_flit_ps = |key: &str, rate: &Option<String>| -> Result<u64, ConfigError> {
            let Some(s) = rate else { return Ok(0) };
            let ps = crate::units::Bandwidth::parse(s)
                .map_err(|e| ConfigError::invalid(key, s, e.reason))?
                .serialization_ps(flit_bytes);
            if ps > u64::from(u32::MAX) / 2 {
                return Err(ConfigError::invalid(
                    key,
                    s,
                    "a rate that moves a flit in under a millisecond",
                ));
            }
            Ok(ps)
        };
        let receive_flit_ps = host_flit_ps("nic.receive_bandwidth", &nic.receive_bandwidth)?;
        let send_flit_ps = host_flit_ps("nic.send_bandwidth", &nic.send_bandwidth)?;
        let transit_buffer_flits = match &nic.transit_buffer {
            Some(b) => b.bytes("nic.transit_buffer")? / flit_bytes,
            None => u64::MAX,
        };
        let buf = match (r.buffer_flits, r.buffer_packets) {
            (Some(_), Some(_)) => {
                return Err(bad(
                    "router.buffer_flits",
                    "both buffer_flits and buffer_packets".into(),
                    "one of them",
                ))
            }
            (Some(f), None) => u64::from(f),
            (None, Some(p)) => u64::from(p) * packet_flits,
            // Enough to cover the longest credit round trip (roundtrip.rs).
            (None, None) => 8
                .max(2 * packet_flits)
                .max(if r.flow_control == FlowControl::StopGo {
                    roundtrip::stop_go_buffer(&net, r.flit_bytes)
                } else {
                    roundtrip::covering_buffer(&net, r.flit_bytes, routing_delay_ps)
                }),
        };
        if buf == 0 || buf > u64::from(MAX_BUFFER_FLITS) {
            // Blame the key the spec gave, in its own unit.
            return Err(match r.buffer_packets {
                Some(p) => bad(
                    "router.buffer_packets",
                    p.to_string(),
                    &format!(
                        "1..={} packets of {packet_flits} flits (at most {MAX_BUFFER_FLITS} flits)",
                        u64::from(MAX_BUFFER_FLITS) / packet_flits
                    ),
                ),
                None => bad(
                    "router.buffer_flits",
                    buf.to_string(),
                    &format!("1..={MAX_BUFFER_FLITS} flits"),
                ),
            });
        }
        if r.switching != Switching::Wormhole && buf < packet_flits {
            return Err(bad(
                "router.buffer_flits",
                buf.to_string(),
                "at least one packet for cut-through and store-and-forward",
            ));
        }
        let vcs = if r.vcs == 0 {
            router.vcs_needed().max(1)
        } else {
            r.vcs
        };
        if vcs > 64 {
            return Err(bad("router.vcs", vcs.to_string(), "at most 64"));
        }
        let stop_go = r.flow_control == FlowControl::StopGo;
        let warnings = if stop_go {
            Vec::new() // the slack check below refuses what would not cover it
        } else {
            roundtrip::buffer_warnings(&net, r.flit_bytes, routing_delay_ps, buf)
        };
        let (stop_at, go_at) = if stop_go {
            if r.switching != Switching::Wormhole {
                return Err(bad(
                    "router.flow_control",
                    "stop-go".into(),
                    "credit with cut-through and store-and-forward (stop & go is for wormhole)",
                ));
            }
            let stop = r.stop_threshold.unwrap_or((buf * 7 / 10) as u32);
            let go = r.go_threshold.unwrap_or((buf / 2) as u32);
            if u64::from(stop) >= buf || stop == 0 {
                return Err(bad(
                    "router.stop_threshold",
                    stop.to_string(),
                    &format!("1..{buf} flits (below buffer_flits)"),
                ));
            }
            if go > stop || go == 0 {
                return Err(bad(
                    "router.go_threshold",
                    go.to_string(),
                    &format!("1..={stop} flits (at most stop_threshold)"),
                ));
            }
            (stop, go)
        } else {
            for (key, v) in [
                ("router.stop_threshold", r.stop_threshold),
                ("router.go_threshold", r.go_threshold),
            ] {
                if let Some(v) = v {
                    return Err(bad(
                        key,
                        v.to_string(),
                        "only with flow_control = \"stop-go\"",
                    ));
                }
            }
            (0, 0)
        };
        router
            .check(&Resources {
                vcs,
                buffer_flits: buf as u32,
                packet_flits: packet_flits as u32,
                whole_packets: r.switching != Switching::Wormhole,
            })
            .map_err(|e| SimError::router(router.name(), e))?;
        if r.speedup == 0 {
            return Err(bad("router.speedup", "0".into(), "at least 1"));
        }
        if r.speedup != 1 && r.allocator != Allocator::Greedy {
            return Err(bad(
                "router.speedup",
                r.speedup.to_string(),
                "1 with allocation in rounds (router.allocator = \"greedy\" allows more)",
            ));
        }
        let cycle_ps = load::cycle_ps(&net, r.flit_bytes)?;
        if !(t.load.is_finite() && t.load >= 0.0) {
            return Err(bad("traffic.load", t.load.to_string(), "a number >= 0"));
        }
        if t.message_packets == 0 {
            return Err(bad("traffic.message_packets", "0".into(), "at least 1"));
        }
        if !(run.convergence.is_finite() && run.convergence >= 0.0) {
            return Err(bad(
                "run.convergence",
                run.convergence.to_string(),
                "a relative tolerance >= 0 (e.g. 0.05)",
            ));
        }
        if let Some(f) = run.stop_backlog {
            if !(f > 0.0 && f <= 1.0) {
                return Err(bad(
                    "run.stop_backlog",
                    f.to_string(),
                    "a fraction of the flits generated in a period, in (0, 1] (e.g. 0.1)",
                ));
            }
        }
        let gamma0_flits = match t.load_unit {
            LoadUnit::Bisection => Some(load::bps_to_flits(
                load::gamma0_bps(&net)?,
                r.flit_bytes,
                cycle_ps,
            )),
            _ => None,
        };
        let seed = run.seed;
        let (pattern, pairs) = match t.workload {
            Workload::Open => {
                if t.both_ways {
                    return Err(bad(
                        "traffic.both_ways",
                        "true".into(),
                        "false under open-loop traffic (pairs are closed-loop: ping-pong, exchange)",
                    ));
                }
                let name = t.pattern.as_deref().unwrap_or("uniform");
                (Some(Pattern::parse(name)?.bind(&net, seed)?), Vec::new())
            }
            _ => {
                check_closed_loop(t)?;
                let n = net.terminals().len();
                let pairs = match &t.pairs {
                    Some(p) => {
                        for &[a, b] in p {
                            if a as usize >= n || b as usize >= n || a == b {
                                return Err(bad(
                                    "traffic.pairs",
                                    format!("[{a}, {b}]"),
                                    &format!("two different terminal indices below {n}"),
                                ));
                            }
                        }
                        p.iter().map(|&[a, b]| (a, b)).collect()
                    }
                    None => {
                        let name = t.pattern.as_deref().unwrap_or("bisect");
                        let bound = Pattern::parse(name)?.bind(&net, seed)?;
                        disjoint_pairs(&bound.flows(), n)
                    }
                };
                let pairs = if t.both_ways { both_ways(pairs) } else { pairs };
                if pairs.is_empty() {
                    return Err(bad(
                        "traffic.pairs",
                        "no pair".into(),
                        "at least one (sender, receiver) pair of different terminals",
                    ));
                }
                (None, pairs)
            }
        };
        let params = Params {
            switching: r.switching,
            vcs: usize::from(vcs),
            vshift: u32::from(vcs).next_power_of_two().trailing_zeros(),
            buf: buf as u32,
            flit_bytes: r.flit_bytes,
            routing_delay_ps,
            speedup: u64::from(r.speedup),
            route_at_front: r.route_at_front,
            routing_unit_ps,
            allocator: r.allocator,
            lone_leaves: r.allocator == Allocator::Greedy && !stop_go,
            selection: r.selection,
            stop_go,
            stop_at,
            go_at,
            packet_flits: packet_flits as u16,
            message_packets: t.message_packets,
            mtu_bytes,
            cycle_ps,
            watchdog_ps: run.watchdog_cycles.max(1).saturating_mul(cycle_ps),
            message_rate: 0.0,
            periodic: matches!(
                t.arrivals,
                super::config::Arrivals::Periodic | super::config::Arrivals::Lockstep
            ),
            lockstep: t.arrivals == super::config::Arrivals::Lockstep,
            inject_ps_per_flit: 0.0,
            max_packets: run.max_packets,
            seed,
            transit_delay_ps,
            transit_buffer_flits,
            spill_delay_ps,
            receive_flit_ps,
            send_flit_ps,
        };
        if t.workload != Workload::Open && r.switching != Switching::Wormhole {
            let max_flits = mtu_bytes.div_ceil(flit_bytes);
            if buf < max_flits {
                return Err(bad(
                    "router.buffer_flits",
                    buf.to_string(),
                    &format!("at least one packet ({max_flits} flits of the MTU)"),
                ));
            }
        }
        if run.threads != 1 {
            if t.workload != Workload::Open {
                return Err(bad(
                    "run.threads",
                    run.threads.to_string(),
                    "1 for closed-loop workloads (parallel runs take open-loop traffic)",
                ));
            }
            if router.reads_remote_channels() {
                return Err(bad(
                    "run.threads",
                    run.threads.to_string(),
                    &format!(
                        "1 for router {}, whose decisions read channels anywhere in the network",
                        router.name()
                    ),
                ));
            }
        }
        // Refuses thread counts and links a split cannot honour.
        let partition = match run.threads {
            1 => None,
            n => Some(Arc::new(Partition::new(&net, n)?)),
        };
        let mut exp = Experiment {
            spec: spec.clone(),
            net,
            router,
            pattern,
            pairs,
            params,
            gamma0_flits,
            warnings,
            renumbered: None,
            partition,
        };
        if let Some(limit) = t.injection_limit {
            let flits = exp.load_in_flits(limit);
            if !(limit.is_finite() && flits > 0.0) {
                return Err(bad(
                    "traffic.injection_limit",
                    limit.to_string(),
                    "a rate > 0 in the unit of traffic.load",
                ));
            }
            exp.params.inject_ps_per_flit = exp.params.cycle_ps as f64 / flits;
        }
        Ok(exp)
    }

    pub fn network(&self) -> &Network {
        &self.net
    }

    pub fn router(&self) -> &dyn HopRouter {
        &self.router
    }

    pub fn spec(&self) -> &Spec {
        &self.spec
    }

    /// Virtual channels per link (those the routes need with `router.vcs = 0`).
    pub fn vcs(&self) -> u8 {
        self.params.vcs as u8
    }

    /// Settings that are valid but starve the network: buffers shorter
    /// than their channel's credit round trip. Every result carries them.
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }

    /// One cycle in picoseconds (a flit time on the injection channel).
    pub fn cycle_ps(&self) -> u64 {
        self.params.cycle_ps
    }

    /// `load` in the spec's unit, as flits per terminal per cycle.
    pub fn load_in_flits(&self, load: f64) -> f64 {
        let p = &self.params;
        match self.spec.traffic.load_unit {
            LoadUnit::Flits => load,
            LoadUnit::Gbps => load::bps_to_flits(load * 1e9, p.flit_bytes, p.cycle_ps),
            LoadUnit::Bisection => load * self.gamma0_flits.unwrap_or(0.0),
        }
    }

    /// The bytes a run will take for the simulator's state, every
    /// thread's copy counted, known before anything is allocated (the
    /// network and routes, already built, not included).
    pub fn memory_bytes(&self) -> u64 {
        let t = self.net.terminals().len();
        let part = Sim::bytes_needed(&self.net, &self.params, self.router.nic_words(t));
        part.saturating_mul(self.spec.run.threads.max(1) as u64)
    }

    /// The threads a split run's parts run on: `run.cores`, or every core
    /// the machine offers.
    pub(crate) fn cores(&self) -> usize {
        match self.spec.run.cores {
            0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
            n => n,
        }
    }

    /// Refuses a run whose state would exceed `run.memory_limit`, saying
    /// what would fit: fewer threads, or a smaller network.
    fn check_memory(&self) -> Result<(), SimError> {
        let run = &self.spec.run;
        let limit = run.memory_limit.bytes("run.memory_limit")?;
        let need = self.memory_bytes();
        if need <= limit {
            return Ok(());
        }
        let threads = run.threads.max(1);
        let part = need / threads as u64;
        let mut fits = Vec::new();
        let most = (limit / part.max(1)) as usize;
        if threads > 1 && most >= 1 {
            fits.push(format!("run.threads = {most}"));
        }
        // State grows with the network: the same family scaled down.
        let scale = limit as f64 / need as f64;
        let terminals = (self.net.terminals().len() as f64 * scale) as u64;
        fits.push(match self.net.structure() {
            Structure::Torus { dims, wrap, .. } => {
                let f = scale.powf(1.0 / dims.len() as f64);
                let dims: Vec<String> = dims
                    .iter()
                    .map(|&k| ((f64::from(k) * f) as u32).max(2).to_string())
                    .collect();
                let family = if *wrap { "torus" } else { "mesh" };
                format!(
                    "a network of about {terminals} terminals ({family}:{})",
                    dims.join("x")
                )
            }
            _ => format!("a network of about {terminals} terminals"),
        });
        fits.push("a higher run.memory_limit".into());
        Err(ConfigError::invalid(
            "run.memory_limit",
            bytes_text(limit),
            format!(
                "at least {} for the simulator's state of {} ({} terminals) on {threads} \
                 thread{} ({} a thread); what fits: {}",
                bytes_text(need),
                self.net.name(),
                self.net.terminals().len(),
                if threads == 1 { "" } else { "s" },
                bytes_text(part),
                fits.join(", or ")
            ),
        )
        .into())
    }

    /// Runs at the spec's load.
    pub fn run(&self) -> Result<SimResult, SimError> {
        self.run_at(self.spec.traffic.load)
    }

    /// Runs at `load` (in the spec's unit).
    pub fn run_at(&self, load: f64) -> Result<SimResult, SimError> {
        self.run_ending(load, self.early_end(true, None), self.cores())
    }

    /// Runs at `load` without `run.stop_backlog`: to the end of its
    /// measurement, whatever its backlog.
    pub fn run_at_unstopped(&self, load: f64) -> Result<SimResult, SimError> {
        self.run_ending(load, self.early_end(false, None), self.cores())
    }

    /// How a run at this spec may end early: stopped by `run.stop_backlog`
    /// when `stoppable`, and its drain skipped when its window's accepted
    /// flits fall short of offered by more than `shortfall`.
    pub(crate) fn early_end(&self, stoppable: bool, shortfall: Option<f64>) -> EarlyEnd {
        EarlyEnd {
            stop_backlog: self.spec.run.stop_backlog.filter(|_| stoppable),
            shortfall,
        }
    }

    /// Runs at `load`, ending early as `early` allows, a split run's parts
    /// on at most `cores` threads (which never changes the result).
    pub(crate) fn run_ending(
        &self,
        load: f64,
        early: EarlyEnd,
        cores: usize,
    ) -> Result<SimResult, SimError> {
        if !(load.is_finite() && load >= 0.0) {
            return Err(ConfigError::invalid("traffic.load", load, "a number >= 0").into());
        }
        let wall = Instant::now();
        let flits = self.load_in_flits(load);
        if flits > MAX_OFFERED_FLITS {
            let top = format!("{:.4}", load * MAX_OFFERED_FLITS / flits);
            let top = top.trim_end_matches('0').trim_end_matches('.');
            return Err(ConfigError::invalid(
                "traffic.load",
                load,
                format!(
                    "0..={top} in {} ({MAX_OFFERED_FLITS} flits per terminal per cycle, \
                     {MAX_OFFERED_FLITS} times what an injection channel carries; more \
                     would only fill the source queues)",
                    self.spec.traffic.load_unit.describe()
                ),
            )
            .into());
        }
        self.check_memory()?;
        let mut params = self.params.clone();
        params.message_rate =
            flits / (f64::from(params.packet_flits) * f64::from(params.message_packets));
        if let Some(plan) = &self.partition {
            let mut par = Parallel::new(
                &self.net,
                &self.router,
                &params,
                self.pattern.as_ref(),
                plan.clone(),
                cores,
            )?;
            if params.message_rate > 0.0 {
                par.start_generation();
            }
            let phases = self.open_loop(&mut par, params.message_rate, early)?;
            let result = self.result(&par.tally(), None, load, flits, &phases, wall);
            par.settle(self.settle_ps())?;
            par.check_conservation()?;
            return Ok(result);
        }
        let mut sim = Sim::new(&self.net, &self.router, &params, self.pattern.as_ref())?;
        let phases = if self.pattern.is_some() {
            if params.message_rate > 0.0 {
                for t in 0..self.net.terminals().len() {
                    if sim.nic[t].inj != super::packet::NONE {
                        let first = sim.first_generation(t);
                        sim.schedule(first, Kind::Generate, t as u32);
                    }
                }
            }
            self.open_loop(&mut sim, params.message_rate, early)?
        } else {
            let w = &self.spec.traffic;
            let message_bytes = w
                .message_bytes
                .as_ref()
                .map(|s| s.bytes("traffic.message_bytes"))
                .transpose()?
                .unwrap_or(8000);
            sim.closed = Some(Closed::new(
                w.workload,
                &self.pairs,
                message_bytes,
                params.mtu_bytes,
                u64::from(params.flit_bytes),
                w.rounds,
                w.messages,
            ));
            let max_time = &self.spec.run.max_time;
            let limit = Picos::parse(max_time)
                .map_err(|e| ConfigError::invalid("run.max_time", max_time, e.reason))?
                .0;
            sim.c.measuring = true;
            sim.closed_start();
            sim.run_until(limit)?;
            sim.c.measuring = false;
            let closed = sim.closed.as_ref().expect("closed workload");
            let (done, pairs) = (closed.finished, closed.src.len());
            if !closed.is_done() {
                // A deadlock, not slowness, if the network cannot empty.
                sim.settle(self.settle_ps())?;
                return Err(SimError::TimeLimit {
                    limit_ps: limit,
                    done,
                    pairs,
                });
            }
            // Rates are over the workload's own length: nothing happens
            // after the last pair completes.
            sim.now = closed.finished_ps().max(1);
            Phases {
                window_ps: sim.now,
                converged: true,
                drained: true,
                drain_skipped: false,
                warmup_periods: 0,
                stopped_backlog: false,
            }
        };
        let workload = sim.closed.as_ref().map(Closed::result);
        let result = self.result(&sim.tally(), workload, load, flits, &phases, wall);
        sim.settle(self.settle_ps())?;
        sim.check_conservation()?;
        Ok(result)
    }

    /// The warm-up period and the measurement, in cycles: the spec's, or
    /// with `run.whole_rounds` whole rounds of the pattern's phases at
    /// `message_rate` (messages per terminal per cycle): the warm-up period
    /// at least one round, the measurement an even number of rounds, at
    /// least two, so that both halves hold the same phases.
    fn windows(&self, message_rate: f64) -> (u64, u64) {
        let run = &self.spec.run;
        let (warm, measure) = (run.warmup_cycles, run.measure_cycles.max(2));
        let phases = self.pattern.as_ref().map_or(1, BoundPattern::phases).max(1);
        if !run.whole_rounds || message_rate <= 0.0 {
            return (warm, measure);
        }
        let round = phases as f64 / message_rate;
        let warm_rounds = (warm as f64 / round).ceil().max(1.0);
        let mut rounds = (measure as f64 / round).ceil().max(2.0) as u64;
        rounds += rounds % 2;
        let cycles = |r: f64| (r * round).ceil().min(u64::MAX as f64 / 2.0) as u64;
        (cycles(warm_rounds), cycles(rounds as f64))
    }

    /// Open loop: warm-up until it converges, the measurement in two
    /// halves, then the drain of the measured packets.
    fn open_loop(
        &self,
        sim: &mut impl Runner,
        message_rate: f64,
        early: EarlyEnd,
    ) -> Result<Phases, SimError> {
        let run = &self.spec.run;
        let cyc = self.params.cycle_ps;
        let (warm, measure) = self.windows(message_rate);
        // Warm-up.
        let period = warm.saturating_mul(cyc);
        let mut prev: Option<(f64, u64)> = None;
        let mut periods = 0;
        let mut backlog = Backlog::default();
        loop {
            periods += 1;
            sim.run_until(sim.now() + period)?;
            let cur = sim.end_period();
            if let Some(f) = early.stop_backlog {
                if backlog.piling_up(sim.flits_so_far(), periods, f) {
                    return Ok(Phases {
                        window_ps: 0,
                        converged: false,
                        drained: false,
                        drain_skipped: false,
                        warmup_periods: periods,
                        stopped_backlog: true,
                    });
                }
            }
            if periods >= run.warmup_periods.max(1) {
                break;
            }
            if let Some(p) = prev {
                if close(p.0, cur.0, run.convergence)
                    && close(p.1 as f64, cur.1 as f64, run.convergence)
                {
                    break;
                }
            }
            prev = Some(cur);
        }
        // Measurement, in two halves for the convergence test.
        let m = measure.saturating_mul(cyc);
        let m0 = sim.now();
        sim.set_measuring(true);
        sim.run_until(m0 + m / 2)?;
        let first = sim.end_period();
        sim.run_until(m0 + m)?;
        let second = sim.end_period();
        sim.set_measuring(false);
        let converged = close(first.0, second.0, run.convergence)
            && close(first.1 as f64, second.1 as f64, run.convergence);
        // No drain makes a window that accepted too little sustained: it
        // only completes the latencies of its packets.
        let short = early.shortfall.is_some_and(|f| {
            let (gen, del) = sim.window_flits();
            self.per_terminal_cycle(del, m) < (1.0 - f) * self.per_terminal_cycle(gen, m)
        });
        if short || (!converged && !run.drain_unconverged) {
            return Ok(Phases {
                window_ps: m,
                converged,
                drained: false,
                drain_skipped: true,
                warmup_periods: periods,
                stopped_backlog: false,
            });
        }
        // Drain.
        let drain = run
            .drain_cycles
            .unwrap_or(2 * run.measure_cycles)
            .saturating_mul(cyc);
        let limit = sim.now().saturating_add(drain);
        let chunk = (m / 8).max(100 * cyc);
        while sim.measured_outstanding() > 0 && sim.now() < limit {
            sim.run_until((sim.now() + chunk).min(limit))?;
        }
        Ok(Phases {
            window_ps: m,
            converged,
            drained: sim.measured_outstanding() == 0,
            drain_skipped: false,
            warmup_periods: periods,
            stopped_backlog: false,
        })
    }

    /// How long [`Sim::settle`] may take to empty the network after a
    /// run: a drain period or a watchdog period, whichever is longer.
    fn settle_ps(&self) -> u64 {
        let run = &self.spec.run;
        let drain = run.drain_cycles.unwrap_or(2 * run.measure_cycles);
        drain
            .saturating_mul(self.params.cycle_ps)
            .max(self.params.watchdog_ps)
    }

    /// `flits` in a window of `window_ps` per terminal and cycle; 0 for an
    /// empty window (a run stopped in its warm-up measured nothing).
    fn per_terminal_cycle(&self, flits: u64, window_ps: u64) -> f64 {
        let t = self.net.terminals().len().max(1) as f64;
        let cycles = window_ps as f64 / self.params.cycle_ps as f64;
        if cycles > 0.0 {
            flits as f64 / (t * cycles)
        } else {
            0.0
        }
    }

    fn result(
        &self,
        sim: &Tally,
        workload: Option<super::stats::WorkloadResult>,
        load: f64,
        offered_target: f64,
        phases: &Phases,
        wall: Instant,
    ) -> SimResult {
        let Phases {
            window_ps,
            converged,
            drained,
            drain_skipped,
            warmup_periods: periods,
            stopped_backlog,
        } = *phases;
        let p = &self.params;
        let t = self.net.terminals().len().max(1) as f64;
        let cycles = window_ps as f64 / p.cycle_ps as f64;
        let per_node = |flits: u64| self.per_terminal_cycle(flits, window_ps);
        let gbps = |f: f64| load::flits_to_gbps(f, p.flit_bytes, p.cycle_ps);
        let c = &sim.c;
        let offered = per_node(c.win_gen_flits);
        let accepted = per_node(c.win_delivered_flits);
        let (accepted_min, accepted_max) = c.accepted_range(cycles);
        let util: Vec<f64> = sim
            .util
            .iter()
            .map(|&u| u as f64 / window_ps.max(1) as f64)
            .collect();
        let util_mean = util.iter().sum::<f64>() / util.len().max(1) as f64;
        let util_max = util.iter().copied().fold(0.0, f64::max);
        let names = self.router.counters();
        let counters: BTreeMap<String, u64> = names
            .into_iter()
            .zip(sim.counters.iter().copied())
            .collect();
        let ns = |ps: f64| ps / 1000.0;
        SimResult {
            network: self.net.name().to_string(),
            router: self.router.name().to_string(),
            switching: match p.switching {
                Switching::StoreAndForward => "store-and-forward",
                Switching::CutThrough => "cut-through",
                Switching::Wormhole => "wormhole",
            }
            .into(),
            terminals: self.net.terminals().len(),
            sources: c.win_src_gen.iter().filter(|&&g| g > 0).count(),
            vcs: p.vcs as u8,
            load,
            load_unit: self.spec.traffic.load_unit,
            offered_target,
            offered,
            accepted,
            offered_gbps: gbps(offered),
            accepted_gbps: gbps(accepted),
            accepted_total: accepted * t,
            accepted_min,
            accepted_max,
            accepted_total_gbps: gbps(accepted * t),
            accepted_normalised: self.gamma0_flits.map(|g| accepted / g),
            latency_mean: ns(c.lat.mean()),
            latency_p50: ns(c.lat.quantile(0.5)),
            latency_p90: ns(c.lat.quantile(0.9)),
            latency_p99: ns(c.lat.quantile(0.99)),
            latency_max: ns(c.lat.max() as f64),
            network_latency_mean: ns(c.net_lat.mean()),
            network_latency_p99: ns(c.net_lat.quantile(0.99)),
            message_latency_mean: ns(c.msg_lat.mean()),
            message_latency_p99: ns(c.msg_lat.quantile(0.99)),
            messages_measured_delivered: c.msg_lat.count(),
            latency_histogram: c.lat.bins_ns(),
            avg_hops: if c.lat.count() == 0 {
                0.0
            } else {
                c.hops_sum as f64 / c.lat.count() as f64
            },
            max_hops: c.hops_max,
            packets_generated: c.gen_packets,
            packets_delivered: c.delivered_packets,
            packets_in_flight: sim.alive,
            packets_measured: c.measured,
            packets_measured_delivered: c.lat.count(),
            flits_generated: c.gen_flits,
            flits_delivered: c.delivered_flits,
            flit_hops: sim.flit_hops,
            transits: c.transits,
            transit_peak_bytes: sim.transit_peak * u64::from(p.flit_bytes),
            transit_spills: sim.transit_spills,
            channel_util_mean: util_mean,
            channel_util_max: util_max,
            channel_utilisation: self.spec.run.channel_stats.then(|| match &self.renumbered {
                Some(r) => {
                    let mut fabric = vec![0.0; util.len()];
                    for (c, &u) in util.iter().enumerate() {
                        fabric[r.channel[c].index()] = u;
                    }
                    fabric
                }
                None => util,
            }),
            counters,
            flow_control: if p.stop_go { "stop-go" } else { "credit" }.into(),
            stop_signals: p.stop_go.then_some(c.stops),
            buffer_occupancy_max: p.stop_go.then_some(c.occupancy_max),
            converged,
            drained,
            drain_skipped,
            stopped_backlog,
            warmup_periods: periods,
            cycle_ps: p.cycle_ps,
            simulated_ps: sim.now,
            wall_seconds: wall.elapsed().as_secs_f64(),
            events: sim.events,
            workload: workload.map(|mut w| {
                if let Some(r) = &self.renumbered {
                    for pair in &mut w.pairs {
                        pair.src = r.terminal[pair.src as usize];
                        pair.dst = r.terminal[pair.dst as usize];
                    }
                }
                w
            }),
            warnings: self.warnings.clone(),
            memory_bytes: self.memory_bytes(),
        }
    }
}

/// How a run's phases went: the measurement window, whether the
/// measurement converged and the measured packets drained (or the drain
/// was skipped), and the warm-up periods run.
#[derive(Debug, Clone, Copy)]
struct Phases {
    window_ps: u64,
    converged: bool,
    drained: bool,
    drain_skipped: bool,
    warmup_periods: u32,
    stopped_backlog: bool,
}

/// The warm-up's backlog test (`run.stop_backlog`): the growth of the
/// flits generated and not delivered, period by period.
#[derive(Debug, Default)]
struct Backlog {
    /// Flits generated and delivered at the end of the last period.
    last: (u64, u64),
    /// Whether the last period's backlog grew past the fraction.
    grew: bool,
}

impl Backlog {
    /// At the end of warm-up period `period` with `(generated, delivered)`
    /// flits so far: true when the backlog grew by more than `fraction` of
    /// what was generated in this period and in the one before, neither
    /// the first (which fills the network).
    fn piling_up(&mut self, (gen, del): (u64, u64), period: u32, fraction: f64) -> bool {
        let generated = gen - self.last.0;
        let growth = (gen - del) as f64 - (self.last.0 - self.last.1) as f64;
        let grew = period >= 2 && generated > 0 && growth > fraction * generated as f64;
        let stop = grew && self.grew;
        self.last = (gen, del);
        self.grew = grew;
        stop
    }
}

/// What [`Experiment::open_loop`] drives: one [`Sim`], or the parts of a
/// parallel run.
trait Runner {
    /// The last instant run.
    fn now(&self) -> u64;
    fn run_until(&mut self, t_end: u64) -> Result<(), SimError>;
    fn end_period(&mut self) -> (f64, u64);
    fn set_measuring(&mut self, on: bool);
    fn measured_outstanding(&self) -> u64;
    /// Flits generated and flits delivered since the start.
    fn flits_so_far(&self) -> (u64, u64);
    /// Flits generated and flits delivered in the measurement window.
    fn window_flits(&self) -> (u64, u64);
}

/// How a run may end before its drain is done: the saturation search's
/// shortcuts, neither of which can turn an unsustained load sustained.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct EarlyEnd {
    /// `run.stop_backlog`: stop in the warm-up once the backlog piles up.
    pub stop_backlog: Option<f64>,
    /// Skip the drain when the window accepted less than `1 - shortfall`
    /// of what it offered.
    pub shortfall: Option<f64>,
}

impl Runner for Sim<'_> {
    fn now(&self) -> u64 {
        self.now
    }
    fn run_until(&mut self, t_end: u64) -> Result<(), SimError> {
        Sim::run_until(self, t_end)
    }
    fn end_period(&mut self) -> (f64, u64) {
        self.c.end_period()
    }
    fn set_measuring(&mut self, on: bool) {
        self.c.measuring = on;
    }
    fn measured_outstanding(&self) -> u64 {
        self.c.measured_outstanding
    }
    fn flits_so_far(&self) -> (u64, u64) {
        (self.c.gen_flits, self.c.delivered_flits)
    }
    fn window_flits(&self) -> (u64, u64) {
        (self.c.win_gen_flits, self.c.win_delivered_flits)
    }
}

impl Runner for Parallel<'_> {
    fn now(&self) -> u64 {
        Parallel::now(self)
    }
    fn run_until(&mut self, t_end: u64) -> Result<(), SimError> {
        Parallel::run_until(self, t_end)
    }
    fn end_period(&mut self) -> (f64, u64) {
        Parallel::end_period(self)
    }
    fn set_measuring(&mut self, on: bool) {
        Parallel::set_measuring(self, on)
    }
    fn measured_outstanding(&self) -> u64 {
        Parallel::measured_outstanding(self)
    }
    fn flits_so_far(&self) -> (u64, u64) {
        Parallel::flits_so_far(self)
    }
    fn window_flits(&self) -> (u64, u64) {
        Parallel::window_flits(self)
    }
}
