//! The experiment spec: what to simulate, read from TOML.
//!
//! ```toml
//! [network]
//! topology = "torus:8x8x8"                               # any topology spec or fabric file
//! links = { bandwidth = "20Gb/s", latency = "200ns" }    # every channel class
//! classes.terminal = { bandwidth = "64Gb/s", latency = "80ns" }  # one class by name
//!
//! [router]
//! switching = "wormhole"       # store-and-forward | cut-through | wormhole
//! vcs = 4                      # virtual channels per port (0: what the routing needs)
//! buffer_flits = 33            # per input port and VC (or buffer_packets; default: covers the credit round trip)
//! flit_bytes = 16
//! routing_delay = "0ns"        # input pipeline of a switch, paid by every flit
//! speedup = 1                  # crossbar input speedup
//! allocator = "greedy"         # greedy | islip | separable-input-first
//! selection = "max-credits"    # first | random | max-credits
//! flow_control = "credit"      # credit | stop-go (Myrinet; wormhole only)
//! stop_threshold = 56          # stop-go: send stop above this many flits
//! go_threshold = 40            # stop-go: send go below this many flits
//!
//! [routing]
//! algorithm = "dor"            # a routing engine (tables) or an adaptive router
//! datelines = true             # engine options: max_lanes, datelines, root, heuristic, seed
//! options = { }                # options of a hop router by name (each router lists its own)
//!
//! [traffic]
//! workload = "open"            # open | ping-pong | exchange
//! pattern = "uniform"          # any traffic pattern spec
//! load = 0.3
//! load_unit = "flits"          # flits (per node per cycle) | gbps (per node) | bisection
//! packet_flits = 1             # or packet_bytes = "512B"
//! message_packets = 1          # open loop: messages of M packets to one destination
//! arrivals = "bernoulli"       # open loop: bernoulli (per cycle) | periodic (every 1/rate, phases in step) | lockstep (periodic on one clock)
//! injection_limit = 2.4        # NIC: packets offered to the switch at most at this rate (load_unit)
//!
//! [run]
//! warmup_cycles = 10000
//! measure_cycles = 20000
//! seed = 1
//! ```
//!
//! Every section and key is documented on its field below, and
//! `docs/sim-spec.md` is rendered from those docs ([`super::spec_doc`]).
//! Unknown keys are errors that name the key and list the valid ones.

use super::error::ConfigError;
pub use crate::routing::adaptive::{PathChoice, Selection};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// A whole experiment.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Spec {
    /// The topology and its channel classes.
    pub network: NetworkSpec,
    /// Switch micro-architecture.
    #[serde(default)]
    pub router: RouterSpec,
    /// The routing engine or adaptive router.
    pub routing: RoutingSpec,
    /// Who sends what, and how much.
    #[serde(default)]
    pub traffic: TrafficSpec,
    /// What a NIC does with packets it keeps in transit.
    #[serde(default)]
    pub nic: NicSpec,
    /// Length of the phases, seed and safety limits.
    #[serde(default)]
    pub run: RunSpec,
}

/// `[network]`: the topology and its channel classes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NetworkSpec {
    /// A topology spec (`torus:8x8x8`, `crossbar:32`) or a fabric file.
    pub topology: String,
    /// Bandwidth and latency for every channel class.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub links: Option<LinkSpec>,
    /// Bandwidth and latency per class name (generated networks have
    /// `switch` for switch-to-switch cables and `terminal` for NIC links);
    /// applied after `links`.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub classes: BTreeMap<String, LinkSpec>,
}

/// A channel class: bandwidth (`"20Gb/s"`, `"160MB/s"`) and latency
/// (`"200ns"`); either may be left as the network has it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LinkSpec {
    /// Bandwidth of the class (`"20Gb/s"`, `"160MB/s"`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bandwidth: Option<String>,
    /// Latency of the class (`"100ns"`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latency: Option<String>,
}

/// How a switch forwards packets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Switching {
    /// A packet is forwarded once it is wholly in the input buffer and
    /// the next buffer has room for all of it.
    StoreAndForward,
    /// Virtual cut-through: the head is forwarded as soon as it is routed
    /// if the next buffer has room for the whole packet.
    #[serde(alias = "virtual-cut-through", alias = "vct")]
    CutThrough,
    /// Flits advance whenever the next buffer has room for one flit.
    Wormhole,
}

/// Link-level flow control.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum FlowControl {
    /// Credits per virtual channel, returned over the reverse channel.
    Credit,
    /// Myrinet's stop & go (flich2000 §4.3): per input buffer (the slack
    /// buffer, `buffer_flits`), the receiver sends a stop when it holds
    /// more than `stop_threshold` flits and a go when it drops below
    /// `go_threshold`; each takes the channel's latency back to the
    /// sender, which sends only between a go and a stop. Buffer
    /// occupancy counts every flit that has physically arrived (those
    /// still in the routing pipeline included). Wormhole switching only.
    StopGo,
}

/// How a switch matches the input VCs that have a flit to send to its
/// output ports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Allocator {
    /// Each output, as soon as it is idle, serves round robin one of its
    /// held VCs whose input port is free, and the first output to serve
    /// an input takes it: no output stays idle while an input that could
    /// feed it is free, a maximal matching (the throughput of BookSim2's
    /// `max_size` allocator).
    Greedy,
    /// BookSim2's default switch allocator: iSLIP, one iteration per
    /// cycle. Each input asks each output it has a flit for (one VC per
    /// output, round robin); each output grants one asking input and each
    /// input accepts one granting output, both round robin from pointers
    /// that move past a match only. An input that accepts one grant
    /// leaves the other outputs that granted it idle that cycle.
    /// `speedup = 1` only.
    Islip,
    /// BookSim2's `separable_input_first`, one iteration per cycle: each
    /// input picks one output it has a flit for, then each output grants
    /// one of the inputs that picked it, both round robin. An input whose
    /// pick loses sends nothing that cycle. `speedup = 1` only.
    SeparableInputFirst,
}

/// `[router]`: switch micro-architecture.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct RouterSpec {
    /// How a switch forwards packets.
    pub switching: Switching,
    /// Virtual channels per port; 0 means as many as the routing needs.
    pub vcs: u8,
    /// Capacity of each input buffer (per port and VC) in flits, at most
    /// 65,535.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub buffer_flits: Option<u32>,
    /// Capacity of each input buffer in packets (of `packet_flits`);
    /// exclusive with `buffer_flits`. Default: the credit round trip of
    /// the network's longest channel into a switch
    /// (33 flits on the default 100 ns, 20 Gb/s
    /// links), at least 8 flits and 2 packets; under stop & go, a slack
    /// buffer whose default thresholds absorb that round trip. A smaller
    /// buffer is allowed and reported in the result's `warnings`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub buffer_packets: Option<u32>,
    /// Bytes per flit: the unit of flow control and buffering.
    pub flit_bytes: u32,
    /// Time from a flit's arrival at an input until it may cross the
    /// switch (routing and allocation pipeline). Every flit pays it, so a
    /// packet pays it once per switch at zero load.
    pub routing_delay: String,
    /// Crossbar input speedup: an input may feed this many outputs at once.
    pub speedup: u32,
    /// A head queued behind another packet in its input VC starts the
    /// routing pipeline (`routing_delay`) only once it reaches the front,
    /// when that packet's tail has left: a VC then forwards one packet per
    /// `routing_delay` at most, as in an input-queued router such as
    /// BookSim2's `iq`. By default the queued head went through the
    /// pipeline while it waited and follows the tail at once.
    pub route_at_front: bool,
    /// Time the switch's one routing control unit spends on each header
    /// it tries to route, as in Myrinet switches (flich2000 §4.4): heads
    /// take turns in the order they ask, and a head that finds no output
    /// available waits for its next turn. A switch then routes one head
    /// per `routing_unit_time` at most, less while heads wait for busy
    /// outputs: a bound on its packet rate. Latency stays `routing_delay`.
    /// `"0ns"` (default): every input routes its own heads, in parallel.
    pub routing_unit_time: String,
    /// Switch allocation: how inputs are matched to outputs each cycle.
    pub allocator: Allocator,
    /// How a switch picks among the candidates the router offers.
    pub selection: Selection,
    /// Link-level flow control.
    pub flow_control: FlowControl,
    /// Stop & go: the receiver sends stop once its buffer holds more
    /// flits than this. Default: 70% of the buffer (56 of Myrinet's 80).
    /// The buffer must absorb what arrives during a round trip:
    /// `buffer_flits >= stop_threshold + 1 + ceil(2 latency / flit time)`
    /// on every channel into a switch.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stop_threshold: Option<u32>,
    /// Stop & go: the receiver sends go once its buffer holds fewer
    /// flits than this. Default: 50% of the buffer (40 of 80).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub go_threshold: Option<u32>,
}

impl Default for RouterSpec {
    fn default() -> Self {
        RouterSpec {
            switching: Switching::Wormhole,
            vcs: 0,
            buffer_flits: None,
            buffer_packets: None,
            flit_bytes: 16,
            routing_delay: "0ns".into(),
            speedup: 1,
            route_at_front: false,
            routing_unit_time: "0ns".into(),
            allocator: Allocator::Greedy,
            selection: Selection::MaxCredits,
            flow_control: FlowControl::Credit,
            stop_threshold: None,
            go_threshold: None,
        }
    }
}

/// `[routing]`: a routing engine (its tables and lanes wrapped as a hop
/// router) or an adaptive router, by name.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RoutingSpec {
    /// A hop router or a routing engine by name, or an alias
    /// (`routelab sim --list` lists them); a hop router wins on a shared
    /// name, as `dor`.
    pub algorithm: String,
    /// Engines: lanes the routes may use, 1..=15 (default 8).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_lanes: Option<u8>,
    /// `dor` on tori: dateline lanes to stay deadlock-free (default true).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub datelines: Option<bool>,
    /// `updown`: the root switch, by name, GUID (`0x...`) or index.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub root: Option<String>,
    /// `dfsssp`: how cycles are broken (`weakest`, `heaviest`, `first`,
    /// `online`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub heuristic: Option<String>,
    /// Seed of engines that make random choices (default: `run.seed`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
    /// Routes with several paths per pair: how a packet picks one.
    #[serde(default = "default_path_choice")]
    pub path_choice: PathChoice,
    /// Source routes read from this file (`docs/formats.md`, "Source
    /// routes": output ports per pair, a bar at in-transit hosts) instead
    /// of computed; `algorithm` then only names them. A relative path is
    /// taken from the working directory.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub routes_file: Option<String>,
    /// Options of a hop router by name (`{ eta = 2.0 }`); each router
    /// names the ones it knows when given another.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    #[schemars(with = "BTreeMap<String, serde_json::Value>")]
    pub options: BTreeMap<String, toml::Value>,
}

fn default_path_choice() -> PathChoice {
    PathChoice::Random
}

impl RoutingSpec {
    pub fn new(algorithm: &str) -> Self {
        RoutingSpec {
            algorithm: algorithm.to_string(),
            max_lanes: None,
            datelines: None,
            root: None,
            heuristic: None,
            seed: None,
            path_choice: PathChoice::Random,
            routes_file: None,
            options: BTreeMap::new(),
        }
    }
}

/// Open loop or a closed-loop workload.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Workload {
    /// Every terminal generates messages at the offered load (Bernoulli
    /// per cycle) to destinations drawn from the pattern.
    Open,
    /// Paired terminals: the first sends a message of `message_bytes`, the
    /// second answers with one of the same size, `rounds` times.
    PingPong,
    /// Paired terminals: the first sends `messages` messages of
    /// `message_bytes` back to back, the second acknowledges the last one
    /// with a one-flit packet.
    Exchange,
}

/// Open loop: the arrival process of each terminal's messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Arrivals {
    /// A Bernoulli trial per cycle (geometric gaps): terminals drift apart,
    /// so a pattern that changes with each message (butterfly) is seen at
    /// every phase at once.
    Bernoulli,
    /// One message every `1 / rate`, the first at a random time within the
    /// first period: all terminals generate their `i`-th message within
    /// one period of each other, so phased patterns run in step, as in a
    /// program whose nodes all do stage `i` of an FFT together.
    Periodic,
    /// Periodic on one clock: every terminal generates its `i`-th message
    /// at the same instant, `i / rate` cycles from the start (the global
    /// generation clock of versaci2013's simulator), so the stages of a
    /// phased pattern meet only through backlog, never by drift.
    Lockstep,
}

/// The unit of `traffic.load`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum LoadUnit {
    /// Flits per terminal per cycle; a cycle is one flit time on the
    /// first terminal's injection channel, so 1.0 fills it.
    Flits,
    /// Gb/s per terminal.
    Gbps,
    /// versaci2013's normalisation: 1.0 is the per-terminal rate at which
    /// uniform traffic saturates the bisection of the network.
    Bisection,
}

impl LoadUnit {
    /// The unit as a message names it.
    pub fn describe(self) -> &'static str {
        match self {
            LoadUnit::Flits => "flits per terminal per cycle",
            LoadUnit::Gbps => "Gb/s per terminal",
            LoadUnit::Bisection => "bisection units (load_unit = \"bisection\")",
        }
    }
}

/// A size: an integer number of bytes or a string such as `"8KB"`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum Size {
    Bytes(u64),
    Text(String),
}

impl Size {
    pub(crate) fn bytes(&self, key: &str) -> Result<u64, ConfigError> {
        match self {
            Size::Bytes(b) => Ok(*b),
            Size::Text(t) => {
                crate::units::parse_bytes(t).map_err(|e| ConfigError::invalid(key, t, e.reason))
            }
        }
    }
}

/// `[traffic]`: who sends what, and how much.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct TrafficSpec {
    /// Open loop or a closed-loop workload.
    pub workload: Workload,
    /// A traffic pattern spec (`uniform`, `bit-reverse`, `hotspot:f=0.1`).
    /// Closed-loop workloads pair each terminal with its destination
    /// (first come, each terminal in at most one pair) unless `pairs` is
    /// given; default `bisect` for them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pattern: Option<String>,
    /// Offered load per terminal, in `load_unit`.
    pub load: f64,
    /// The unit of `load` and `injection_limit`.
    pub load_unit: LoadUnit,
    /// Flits per packet (default 1), or give `packet_bytes`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub packet_flits: Option<u32>,
    /// Bytes per packet (the MTU for closed-loop messages).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub packet_bytes: Option<Size>,
    /// Open loop: packets per message, all to the same destination,
    /// generated together. Message latency runs from the generation to
    /// the delivery of its last packet.
    pub message_packets: u32,
    /// Open loop: when messages are generated.
    pub arrivals: Arrivals,
    /// The fastest rate at which a NIC offers packets to its switch, in
    /// `load_unit` (versaci2013 offers a message's packets at 2.4 in
    /// bisection units): a packet of `F` flits starts at least
    /// `F / injection_limit` cycles after the previous one did. Applies
    /// to every packet a NIC sends. Default: no limit beyond the
    /// injection channel.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub injection_limit: Option<f64>,
    /// Closed loop: bytes per message (default 8KB).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message_bytes: Option<Size>,
    /// Ping-pong rounds.
    pub rounds: u32,
    /// Messages per pair in an exchange.
    pub messages: u32,
    /// Closed loop: explicit (sender, receiver) terminal pairs, at least
    /// one. A terminal may be in several pairs: its NIC serves all of its
    /// conversations from one source queue over one injection channel,
    /// and each pair's completion and bandwidth are reported on their own.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pairs: Option<Vec<[u32; 2]>>,
    /// Closed loop: every pair also runs the other way, the receiver
    /// sending to the sender at the same time (MPI's pair-wise exchange:
    /// both partners send). A reverse pair already listed is not added
    /// twice. A NIC sends its messages and acknowledgements from one
    /// queue, so a pair's acknowledgement follows its partner's own
    /// messages: a pair completes when both directions have.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub both_ways: bool,
}

impl Default for TrafficSpec {
    fn default() -> Self {
        TrafficSpec {
            workload: Workload::Open,
            pattern: None,
            load: 0.1,
            load_unit: LoadUnit::Flits,
            packet_flits: None,
            packet_bytes: None,
            message_packets: 1,
            arrivals: Arrivals::Bernoulli,
            injection_limit: None,
            message_bytes: None,
            rounds: 10,
            messages: 10,
            pairs: None,
            both_ways: false,
        }
    }
}

/// `[nic]`: the network interfaces' handling of in-transit packets
/// (in-transit buffers, flich2000 §3): a packet whose route continues
/// after a terminal is ejected there completely and re-injected.
/// Re-injection may start before the tail has arrived (virtual
/// cut-through at the NIC) but never sends a flit it has not received.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct NicSpec {
    /// Time from the head of an in-transit packet reaching the NIC until
    /// it may be re-injected: recognising it and programming the DMA
    /// (flich2000 measured 275 ns + 200 ns on Myrinet).
    pub transit_delay: String,
    /// In-transit buffer memory per NIC; a packet that does not fit is
    /// kept in host memory instead and pays `spill_delay` more. Default:
    /// unbounded.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub transit_buffer: Option<Size>,
    /// Extra delay of a packet kept in host memory (a copy over the I/O
    /// bus and back). The paper gives no value; 10 us is an assumption.
    pub spill_delay: String,
    /// The rate at which a host takes in what its NIC receives (DMA into
    /// host memory over the I/O bus), when below the link's: flits then
    /// leave the switch for the host no faster, and the switch's output
    /// to it backs up as it would behind a slow receiver. Default: the
    /// link's rate (an ideal receiver).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub receive_bandwidth: Option<String>,
    /// The rate at which a host hands its NIC what it sends (DMA from host
    /// memory), when below the link's: flits then enter the network no
    /// faster. Everything the NIC injects is held to it, acknowledgements
    /// and in-transit packets too. Default: the link's rate.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub send_bandwidth: Option<String>,
}

impl Default for NicSpec {
    fn default() -> Self {
        NicSpec {
            transit_delay: "0ns".into(),
            transit_buffer: None,
            spill_delay: "10us".into(),
            receive_bandwidth: None,
            send_bandwidth: None,
        }
    }
}

/// `[run]`: length of the phases, seed and safety limits. Cycles are
/// flit times on the injection channel (the unit of `traffic.load_unit =
/// "flits"`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct RunSpec {
    /// Master seed: every random stream of the run derives from it.
    pub seed: u64,
    /// Length of one warm-up period.
    pub warmup_cycles: u64,
    /// Warm-up periods at most: warm-up ends early once the mean latency
    /// of two consecutive periods differs by less than `convergence`.
    pub warmup_periods: u32,
    /// Length of the measurement: packets generated in it are measured.
    pub measure_cycles: u64,
    /// Round the warm-up period up to whole rounds of the pattern (a
    /// message per terminal per phase: butterfly's stages, one phase for
    /// other patterns) at the run's load, at least one, and the measurement
    /// to an even number of rounds, at least two, so that the two halves of
    /// the window hold the same phases at any load (a saturation search
    /// included).
    pub whole_rounds: bool,
    /// After measuring, keep running (and injecting) until every packet
    /// generated during the measurement is delivered, for at most this
    /// long (default: twice `measure_cycles`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub drain_cycles: Option<u64>,
    /// Relative tolerance of the convergence tests.
    pub convergence: f64,
    /// Drain the measured packets even when the measurement did not
    /// converge. `false` ends such a run at the end of its measurement: it
    /// is not sustained whatever the drain would show (a saturation search
    /// that requires convergence reads it as unconverged), and it saves
    /// the drain, the longest phase of a run beyond saturation. The result
    /// then has `drained = false` and `drain_skipped = true`.
    pub drain_unconverged: bool,
    /// Stop a run past saturation early: when the flits generated and not
    /// yet delivered (source queues and network) grew, in each of two
    /// consecutive warm-up periods after the first, by more than this
    /// fraction of the flits generated in the period, what is offered is
    /// piling up and the run ends there, not sustained
    /// (`stopped_backlog = true`; no measurement ran, its rates read 0).
    /// Acts from the third warm-up period, so with `warmup_periods >= 3`.
    /// `saturate` runs the upper end of its final bracket again without
    /// the stop, so that its answer never rests on it. Default: off.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stop_backlog: Option<f64>,
    /// Stop with a deadlock error when nothing moved for this long while
    /// packets are in the network.
    pub watchdog_cycles: u64,
    /// Closed loop: give up after this much simulated time.
    pub max_time: String,
    /// Report the utilisation of every channel, not only mean and max.
    pub channel_stats: bool,
    /// Stop with an error when more packets than this exist at once in
    /// source queues and the network (about 64 bytes each): a load far
    /// beyond what the network accepts grows the source queues without
    /// bound. With `threads`, each part may hold its share of the packets
    /// it generated (`max_packets / threads`).
    pub max_packets: u64,
    /// Threads: the network is split into this many parts, run side by
    /// side in windows no longer than the smallest latency of a channel
    /// between them. A run is the same for a given seed and thread count;
    /// other counts, 1 included, give runs that differ as different seeds
    /// do. Open-loop traffic only.
    pub threads: usize,
    /// The most cores a split run (`threads` above 1) takes: its parts
    /// run on this many threads, a thread running several parts in turn
    /// when there are fewer cores than parts. 0, the default: every core
    /// the machine offers. The result does not depend on it.
    #[serde(skip_serializing_if = "is_zero")]
    pub cores: usize,
    /// Refuse a run whose simulator state would take more than this (an
    /// estimate made before anything is allocated, every thread's copy
    /// counted; `"16GiB"` or a number of bytes).
    pub memory_limit: Size,
}

impl Default for RunSpec {
    fn default() -> Self {
        RunSpec {
            seed: 1,
            warmup_cycles: 1000,
            warmup_periods: 1,
            measure_cycles: 5000,
            whole_rounds: false,
            drain_cycles: None,
            convergence: 0.05,
            drain_unconverged: true,
            stop_backlog: None,
            watchdog_cycles: 20_000,
            max_time: "10ms".into(),
            channel_stats: false,
            max_packets: 32_000_000,
            threads: 1,
            cores: 0,
            memory_limit: Size::Text("16GiB".into()),
        }
    }
}

impl Spec {
    /// A spec with defaults everywhere: `topology` routed by `algorithm`.
    pub fn new(topology: &str, algorithm: &str) -> Self {
        Spec {
            network: NetworkSpec {
                topology: topology.to_string(),
                links: None,
                classes: BTreeMap::new(),
            },
            router: RouterSpec::default(),
            routing: RoutingSpec::new(algorithm),
            traffic: TrafficSpec::default(),
            nic: NicSpec::default(),
            run: RunSpec::default(),
        }
    }

    /// Reads a spec from TOML text.
    pub fn from_toml_str(text: &str) -> Result<Spec, ConfigError> {
        Self::from_toml_with(text, &[])
    }

    /// Reads a spec from TOML text, then applies `key = value` overrides
    /// with dotted keys (`traffic.load`, `router.vcs`), as a command line's
    /// `--set` gives them. A value is read as TOML (`0.5`, `true`,
    /// `"wormhole"`) and, failing that, taken as a string.
    pub fn from_toml_with(text: &str, sets: &[(&str, &str)]) -> Result<Spec, ConfigError> {
        let mut table: toml::Table =
            toml::from_str(text).map_err(|e| ConfigError::Parse(one_line(&e.to_string())))?;
        for (key, value) in sets {
            set_dotted(&mut table, key, value)?;
        }
        let spec: Spec = Spec::deserialize(toml::Value::Table(table))
            .map_err(|e| ConfigError::Parse(readable(one_line(&e.to_string()))))?;
        Ok(spec)
    }

    /// The spec as TOML text.
    pub fn to_toml_string(&self) -> String {
        toml::to_string(self).expect("a spec always serialises")
    }
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// A type error in a user's words: serde's "invalid type: string "abc",
/// expected f64 in `traffic.load`" becomes "traffic.load must be a number,
/// got "abc"". Other messages are kept.
fn readable(msg: String) -> String {
    let Some((found, tail)) = msg
        .strip_prefix("invalid type: ")
        .and_then(|r| r.split_once(", expected "))
    else {
        return msg;
    };
    let (expected, key) = match tail.split_once(" in `") {
        Some((e, k)) => (e, Some(k.trim_end_matches('`'))),
        None => (tail, None),
    };
    let want = match expected {
        "f64" | "f32" => "a number",
        "u8" | "u16" | "u32" | "u64" | "usize" | "i32" | "i64" => "a whole number",
        "a boolean" => "true or false",
        other => other,
    };
    let got = found.strip_prefix("string ").unwrap_or(found);
    match key {
        Some(k) => format!("{k} must be {want}, got {got}"),
        None => format!("expected {want}, got {got}"),
    }
}

fn one_line(s: &str) -> String {
    s.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

fn set_dotted(table: &mut toml::Table, key: &str, value: &str) -> Result<(), ConfigError> {
    let parts: Vec<&str> = key.split('.').map(str::trim).collect();
    if parts.iter().any(|p| p.is_empty()) {
        return Err(ConfigError::invalid(
            key,
            value,
            "a dotted key such as traffic.load",
        ));
    }
    let parsed: toml::Value = toml::from_str::<toml::Table>(&format!("v = {value}"))
        .ok()
        .and_then(|mut t| t.remove("v"))
        .unwrap_or_else(|| toml::Value::String(value.to_string()));
    let mut cur = table;
    for p in &parts[..parts.len() - 1] {
        let entry = cur
            .entry(p.to_string())
            .or_insert_with(|| toml::Value::Table(toml::Table::new()));
        cur = match entry {
            toml::Value::Table(t) => t,
            _ => {
                return Err(ConfigError::invalid(
                    key,
                    value,
                    format!("'{p}' is not a section"),
                ))
            }
        };
    }
    cur.insert(parts[parts.len() - 1].to_string(), parsed);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const SPEC: &str = r#"
[network]
topology = "torus:4x4"
links = { bandwidth = "20Gb/s", latency = "200ns" }
classes.terminal = { bandwidth = "64Gb/s", latency = "80ns" }
[router]
switching = "cut-through"
vcs = 2
buffer_packets = 4
[routing]
algorithm = "dor"
[traffic]
pattern = "uniform"
load = 0.3
packet_bytes = "512B"
[run]
seed = 7
"#;

    #[test]
    fn a_value_of_the_wrong_type_is_named_in_words() {
        let e = Spec::from_toml_with(SPEC, &[("traffic.load", "abc")])
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("traffic.load must be a number, got \"abc\""),
            "{e}"
        );
        let e = Spec::from_toml_with(SPEC, &[("router.vcs", "2.5")])
            .unwrap_err()
            .to_string();
        assert!(e.contains("router.vcs must be a whole number, got"), "{e}");
    }

    #[test]
    fn reads_a_spec_and_round_trips() {
        let s = Spec::from_toml_str(SPEC).unwrap();
        assert_eq!(s.router.switching, Switching::CutThrough);
        assert_eq!(s.router.vcs, 2);
        assert_eq!(s.traffic.packet_bytes, Some(Size::Text("512B".into())));
        assert_eq!(
            s.network.classes["terminal"].latency.as_deref(),
            Some("80ns")
        );
        assert_eq!(s.run.seed, 7);
        let again = Spec::from_toml_str(&s.to_toml_string()).unwrap();
        assert_eq!(again, s);
    }

    #[test]
    fn unknown_keys_name_the_key_and_the_valid_ones() {
        let bad = SPEC.replace("vcs = 2", "vcz = 2");
        let e = Spec::from_toml_str(&bad).unwrap_err().to_string();
        assert!(e.contains("vcz"), "{e}");
        assert!(e.contains("buffer_flits"), "{e}");
        let bad = SPEC.replace("switching = \"cut-through\"", "switching = \"teleport\"");
        let e = Spec::from_toml_str(&bad).unwrap_err().to_string();
        assert!(e.contains("teleport") && e.contains("wormhole"), "{e}");
        let e = Spec::from_toml_str("[network]\ntopology = \"crossbar:4\"\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("routing"), "{e}");
    }

    #[test]
    fn overrides_use_dotted_keys() {
        let s = Spec::from_toml_with(
            SPEC,
            &[("traffic.load", "0.5"), ("router.switching", "wormhole")],
        )
        .unwrap();
        assert_eq!(s.traffic.load, 0.5);
        assert_eq!(s.router.switching, Switching::Wormhole);
        let e = Spec::from_toml_with(SPEC, &[("traffic.lod", "0.5")]).unwrap_err();
        assert!(e.to_string().contains("lod"));
    }
}
