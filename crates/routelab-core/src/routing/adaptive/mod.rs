//! Hop-by-hop routers: the one routing interface of the simulator.
//!
//! At every switch the simulator asks a [`HopRouter`] for the candidate
//! (output port, virtual channel) pairs of the packet at the head of an
//! input buffer, given a read-only [`LocalView`] of the switch's output
//! ports (free credits and occupancy per port and VC). The simulator keeps
//! the candidates that are available now (VC not held by another packet,
//! at least [`Candidate::need`] credits and what the switching mode
//! needs), keeps those of the best (lowest) [`Candidate::priority`], and
//! lets a [`Selection`] policy pick one ([`select`]). If none is
//! available the packet waits and the router is asked again when one of
//! the candidate ports frees a VC or receives credits, so `route` may run
//! several times per packet and hop: side effects belong in
//! [`HopRouter::forwarded`], called once the choice is made.
//!
//! Hooks around the hops:
//! - [`HopRouter::source`] runs once per packet and leg when it reaches
//!   the head of its terminal's queue, with the view of the switch it is
//!   injected into: choose an intermediate node (`Header::aux`,
//!   `Header::phase`), a path, or a new leg target.
//! - [`HopRouter::inject`] gives the VCs (with priorities and needs) the
//!   packet may take on the injection channel.
//! - [`HopRouter::arrived`] lets a terminal keep a packet in transit and
//!   re-inject it after a delay (in-transit buffers).
//! - [`RouterCtx::count`] counts events the router defines (derouted
//!   packets by kind, escape hops), reported with the results.
//!
//! What the interface offers the torus routers of the literature:
//! bubble flow control through [`Candidate::need`] (entering an escape
//! ring asks for two free packet slots, `2 * hdr.flits` credits, moving
//! along it for one); adaptive and escape VCs through priorities (0 for
//! adaptive queues, 1 for escape ones: escape queues are used only when no
//! adaptive queue can take the packet); a source hook at injection that
//! may read the local output occupancy ([`LocalView::occupancy`]) to pick
//! an intermediate node; and counters by kind. An oblivious router may
//! also give its decision without candidates ([`HopRouter::direct`]),
//! which the simulator takes for packets that meet an idle output.
//!
//! Routers are registered by name, one line each, in the `routers!`
//! invocation below; the registry builds an [`AnyRouter`], an enum over
//! the known routers (static dispatch in the simulator's hot loop) with a
//! variant for routers of one's own ([`AnyRouter::Custom`]). Oblivious
//! [`Routes`] of any engine are wrapped by [`TableRouter`]. Adding a
//! router: a file here with a type implementing [`HopRouter`] and
//! [`BuildRouter`] (which reads its options from [`RouterOptions`]), a
//! `pub mod` line, and its line in `routers!`.
//!
//! | name | file | what it does |
//! |---|---|---|
//! | `dor` | `dor.rs` | dimension order on tori and meshes, dateline lanes (computed, no tables; identical to the `dor` engine's routes) |
//! | `duato` | `duato.rs` | minimal adaptive on tori and meshes with a dimension-order escape channel (Duato's protocol) |
//! | `abr` | `abr.rs` | Adaptive Bubble Router: fully adaptive minimal VCs (priority 0) over a dimension-order escape VC under bubble flow control (priority 1; two free packets to enter a ring, one to move along it), no datelines |
//! | `dor-bubble` | `dor_bubble.rs` | dimension order with bubble flow control instead of datelines (one VC suffices on a torus) |
//! | `por` | `por.rs` | Pick-Orthant Routing: at injection an orthant by versaci2013's profit (eq. 15, `eta` = 1.0), then minimal inside it, ABR-style |
//! | `ofr` | `ofr.rs` | OutFlank Routing (versaci2013 §3): at injection a Wraparound or OutFlank IDN by eqs. (15)-(17) (`eta` = 2.0, `delta` = 2), two minimal ABR phases, escape split into VS1/VS2 (`split`) |
//! | `df-min`, `df-val`, `df-ugal-l`, `df-ugal-g`, `df-par` | `dragonfly.rs` | dragonfly MIN, Valiant, UGAL-L, UGAL-G and progressive adaptive routing, VCs by hop class |
//! | `hx-dor`, `hx-val`, `hx-ugal` | `hyperx.rs` | HyperX dimension order, Valiant and UGAL, VCs by phase |
//! | `ft-adaptive` | `fat_tree.rs` | fat trees and Clos networks: any up port per packet, picked by the switch's credits (D-mod-k's first on ties), then down; one VC |
//! | `hx-dal` | `hyperx_dal.rs` | HyperX DAL: unaligned dimensions in any order, at most one deroute per dimension when no minimal hop is free, over a dimension-order escape VC (Duato) |
//! | `mf-min`, `mf-val`, `mf-ugal-l`, `mf-ugal-g`, `mf-par` | `megafly.rs` | Megafly (Dragonfly+) MIN, Valiant, UGAL-L, UGAL-G and progressive adaptive routing, VCs by global hops taken |
//! | `dist-min`, `dist-val`, `dist-ugal` | `distance.rs` | any network (Slim Fly, Megafly, irregular): minimal adaptive, Valiant and UGAL-L from switch distances, VCs by hop |
//! | `rdr` | `rdr.rs` | Randomized Dynamic Routing (parker §3): a random viable dimension per hop on the adaptive VCs, over an ABR bubble escape (deadlock-free; parker's single-VC rule is not) |
//! | (shared) | `torus_geometry.rs` | coordinates, minimal directions, bubble needs shared by the torus routers |
//! | any engine | `table.rs` | the engine's tables or source routes, lanes mapped onto VCs |
//!
//! This module sits in the routing layer: it knows networks and routes,
//! never the simulator. The simulator implements [`LocalView`] over its
//! own state.

use super::{Routes, RoutingError, RoutingOptions};
use crate::network::{ChannelId, Network, NodeId, PortId};
use crate::rng::Rng;
use rand::Rng as _;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

pub mod abr;
pub mod bubble;
pub mod dispersive;
pub mod distance;
pub mod dor;
pub mod dor_bubble;
pub mod dragonfly;
pub mod duato;
pub mod fat_tree;
pub mod hyperx;
pub mod hyperx_dal;
pub mod megafly;
pub mod ofr;
pub mod por;
pub mod profit;
pub mod rdr;
pub mod table;
pub mod torus_geometry;

pub use dor::DorRouter;
pub use duato::DuatoRouter;
pub use table::TableRouter;

/// What a router sees of a packet. Terminals are indices into
/// [`Network::terminals`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Header {
    /// The terminal that generated the packet.
    pub src: u32,
    /// Its final destination.
    pub dst: u32,
    /// Where the current leg started: `src`, or the terminal that
    /// re-injected it (in-transit buffers).
    pub origin: u32,
    /// Where the current leg ends: `dst`, or an intermediate terminal.
    pub target: u32,
    /// Length in flits.
    pub flits: u16,
    /// Channels the head has crossed since generation (injection and
    /// ejection channels included).
    pub hops: u16,
    /// Channels crossed in the current leg.
    pub leg_hops: u16,
    /// Router-defined (e.g. the phase of a two-phase route).
    pub phase: u8,
    /// Router-defined (e.g. a lane).
    pub lane: u8,
    /// Router-defined state (e.g. dateline crossings, a path index).
    pub state: u32,
    /// Router-defined (e.g. an intermediate switch).
    pub aux: u32,
}

/// One choice a router offers: an output port and a VC on it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Candidate {
    pub port: PortId,
    pub vc: u8,
    /// Lower is preferred: only the available candidates of the lowest
    /// priority present are considered (e.g. 0 adaptive, 1 escape).
    pub priority: u8,
    /// Credits (free flit slots downstream) needed to take this VC; the
    /// simulator also requires what the switching mode needs (a whole
    /// packet for cut-through and store-and-forward). Bubble flow control
    /// asks for two packets (`2 * hdr.flits`) when entering a ring.
    pub need: u32,
}

/// A decision of [`HopRouter::direct`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Direct {
    pub port: PortId,
    /// The first VC offered; the others are `lanes` apart.
    pub lane: u8,
    pub lanes: u8,
    /// `hdr.state` once forwarded.
    pub state: u32,
}

/// The candidates of one routing decision (a reused buffer).
#[derive(Debug, Clone, Default)]
pub struct Candidates {
    items: Vec<Candidate>,
}

impl Candidates {
    /// Adds `(port, vc)` with priority 0 and no extra credit need.
    #[inline]
    pub fn push(&mut self, port: PortId, vc: u8) {
        self.push_with(port, vc, 0, 0);
    }

    #[inline]
    pub fn push_with(&mut self, port: PortId, vc: u8, priority: u8, need: u32) {
        self.items.push(Candidate {
            port,
            vc,
            priority,
            need,
        });
    }

    #[inline]
    pub fn as_slice(&self) -> &[Candidate] {
        &self.items
    }

    #[inline]
    pub fn len(&self) -> usize {
        self.items.len()
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    #[inline]
    pub fn clear(&mut self) {
        self.items.clear();
    }
}

/// Where a routing decision is made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Here {
    pub switch: NodeId,
    /// Index of the switch in [`Network::switches`].
    pub switch_index: u32,
    pub in_port: PortId,
    pub in_vc: u8,
    /// Virtual channels per port.
    pub vcs: u8,
    /// Simulated time in picoseconds.
    pub now_ps: u64,
}

/// A read-only view of one switch's output ports, as the switch knows
/// them: credits are free flit slots of the next input buffer that the
/// switch has been told about.
pub trait LocalView {
    /// Simulated time in picoseconds.
    fn now_ps(&self) -> u64;

    /// Ports of the switch (cabled or not), numbered from 1.
    fn ports(&self) -> u16;

    fn vcs(&self) -> u8;

    /// Flits each input buffer (per port and VC) holds.
    fn capacity(&self) -> u32;

    /// The channel leaving `port`, if it is cabled.
    fn channel(&self, port: PortId) -> Option<ChannelId>;

    /// Free flit slots known in the next buffer of `(port, vc)`, at most
    /// [`LocalView::capacity`]; a terminal always has room (reported as the
    /// capacity); 0 for an uncabled port. Under stop & go flow control:
    /// the capacity while the receiver says go, 0 once it said stop.
    fn credits(&self, port: PortId, vc: u8) -> u32;

    /// Whether another packet holds `(port, vc)` (true for an uncabled port).
    fn is_held(&self, port: PortId, vc: u8) -> bool;

    /// Whether `port` is transmitting a flit now.
    fn is_busy(&self, port: PortId) -> bool;

    /// Whether any channel `c` of the network carries a packet now: one of
    /// its VCs is held, or it sent a flit within the last `recent_ps`. What
    /// a probe sent along `c` would find (geoffray2008 §4.3); a view that
    /// cannot see beyond its switch says no.
    fn channel_in_use(&self, _c: ChannelId, _recent_ps: u64) -> bool {
        false
    }

    /// Flits occupying (or on their way to) the buffers at the far end of
    /// any channel `c` of the network, over all its VCs: the global queue
    /// information of UGAL-G. `None` from a view that cannot see beyond
    /// its switch.
    fn channel_occupancy(&self, _c: ChannelId) -> Option<u32> {
        None
    }

    /// Packet heads waiting at the switch that sends on any channel `c`
    /// of the network for one of its VCs: the queue in front of it in an
    /// input-queued switch (UGAL-G's global queue). A head that asked for
    /// several ports counts at each until it leaves. `None` from a view
    /// that cannot see beyond its switch.
    fn channel_waiting(&self, _c: ChannelId) -> Option<u32> {
        None
    }

    /// Flits occupying (or on their way to) the next buffer of `(port, vc)`.
    fn occupancy(&self, port: PortId, vc: u8) -> u32 {
        self.capacity().saturating_sub(self.credits(port, vc))
    }

    /// Free credits of `port` over all its VCs.
    fn port_credits(&self, port: PortId) -> u32 {
        (0..self.vcs()).map(|v| self.credits(port, v)).sum()
    }

    /// Flits occupying the next buffers of `port` over all its VCs.
    fn port_occupancy(&self, port: PortId) -> u32 {
        (0..self.vcs()).map(|v| self.occupancy(port, v)).sum()
    }
}

/// What the switches of a run offer a router, for [`HopRouter::check`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Resources {
    /// Virtual channels per port.
    pub vcs: u8,
    /// Flits per input buffer (per port and VC).
    pub buffer_flits: u32,
    /// Flits of the longest packet.
    pub packet_flits: u32,
    /// VCs are allocated to whole packets (cut-through and
    /// store-and-forward), not flit by flit (wormhole).
    pub whole_packets: bool,
}

impl Resources {
    /// Fails unless there are at least `needed` VCs per port.
    pub fn need_vcs(&self, needed: u8) -> Result<(), String> {
        if self.vcs < needed {
            Err(format!(
                "router.vcs = {}: needs at least {needed} virtual channels",
                self.vcs
            ))
        } else {
            Ok(())
        }
    }
}

/// Per-run mutable help for a router: its random stream, counters and, at
/// a NIC, that NIC's own state words ([`HopRouter::nic_words`]).
pub struct RouterCtx<'a> {
    pub rng: &'a mut Rng,
    counters: &'a mut [u64],
    /// The NIC's state (empty at a switch, or for a router that keeps none).
    pub nic: &'a mut [u32],
}

impl<'a> RouterCtx<'a> {
    /// A context over a random stream and the counters of
    /// [`HopRouter::counters`] (one slot each).
    pub fn new(rng: &'a mut Rng, counters: &'a mut [u64]) -> Self {
        RouterCtx {
            rng,
            counters,
            nic: &mut [],
        }
    }

    /// The same, at a NIC whose state words are `nic`.
    pub fn at_nic(mut self, nic: &'a mut [u32]) -> Self {
        self.nic = nic;
        self
    }

    /// Adds one to counter `i` (an index into [`HopRouter::counters`]).
    #[inline]
    pub fn count(&mut self, i: usize) {
        if let Some(c) = self.counters.get_mut(i) {
            *c += 1;
        }
    }
}

/// A hop-by-hop router. See the module docs.
pub trait HopRouter: Send + Sync {
    fn name(&self) -> &str;

    /// The fewest VCs per port it works with (`router.vcs = 0` uses this).
    fn vcs_needed(&self) -> u8;

    /// Names of the counters it keeps ([`RouterCtx::count`]), reported
    /// with the results (derouted packets by kind, ...).
    fn counters(&self) -> Vec<String> {
        Vec::new()
    }

    /// Whether `route` and `source` read credits or occupancy from the
    /// [`LocalView`]. If not, the simulator brings only the candidates'
    /// ports up to date, which is faster.
    fn reads_view(&self) -> bool {
        true
    }

    /// Whether `route` gives the same candidates whenever it is asked for
    /// the same header at the same switch, input port and VC: it reads
    /// neither the view, the clock nor the random stream, and counts
    /// nothing. A head that could not go is then retried on the
    /// candidates it was given, without asking again (saturated adaptive
    /// runs retry each waiting head many times). Default: no.
    fn fixed_candidates(&self) -> bool {
        false
    }

    /// Whether it reads channels beyond the switch it routes at
    /// ([`LocalView::channel_in_use`], a probe's oracle): such a router
    /// needs the whole network in one place, so a simulation split over
    /// threads refuses it. Default: no.
    fn reads_remote_channels(&self) -> bool {
        false
    }

    /// Called once per run with what the switches offer; say why it
    /// cannot work, naming the spec key to change. Default: enough VCs.
    fn check(&self, res: &Resources) -> Result<(), String> {
        res.need_vcs(self.vcs_needed())
    }

    /// Source hook, once per packet and leg when it reaches the head of
    /// its terminal's queue. `view` shows the switch it is injected into;
    /// `ctx.nic` holds the NIC's state words.
    fn source(&self, _hdr: &mut Header, _view: &dyn LocalView, _ctx: &mut RouterCtx) {}

    /// State words each NIC keeps for the router on a network of
    /// `terminals` terminals, handed to [`Self::source`] and
    /// [`Self::stopped`] as `ctx.nic` and zeroed at the start of a run.
    /// Default: none.
    fn nic_words(&self, _terminals: usize) -> usize {
        0
    }

    /// Back-pressure reached the NIC: flow control stopped the packet it
    /// is injecting (no credit, or a stop from the switch). Called once
    /// per packet, at `now_ps`, the first time it is stopped.
    fn stopped(&self, _hdr: &Header, _now_ps: u64, _ctx: &mut RouterCtx) {}

    /// The VCs the packet may take on the injection channel (the port of
    /// each candidate is ignored; priorities and needs count as at a
    /// switch). Default: every VC.
    fn inject(&self, _hdr: &Header, vcs: u8, out: &mut Candidates) {
        for v in 0..vcs {
            out.push(PortId(1), v);
        }
    }

    /// [`Self::inject`] without candidates, when it offers one lane: the
    /// VCs `lane`, `lane + lanes`, ... with priority 0 and no extra need,
    /// as `(lane, lanes)`. A NIC that finds one of them available takes
    /// it by the selection policy from this alone, and asks
    /// [`Self::inject`] otherwise; both must agree. Default: `None`.
    #[inline(always)]
    fn inject_lane(&self, _hdr: &Header) -> Option<(u8, u8)> {
        None
    }

    /// The candidates for a head at `here`.
    fn route(
        &self,
        hdr: &Header,
        here: &Here,
        view: &dyn LocalView,
        ctx: &mut RouterCtx,
        out: &mut Candidates,
    );

    /// Oblivious routers may answer the common case without candidates:
    /// the port of the next hop at switch `switch_index`, the lane whose
    /// VCs (`lane`, `lane + lanes`, ...) [`Self::route`] would offer there
    /// with priority 0 and no extra need, and `hdr.state` once forwarded
    /// (the only header change [`Self::forwarded`] would make). A switch
    /// that can send the packet on at once does so from this alone, and
    /// asks [`Self::route`] otherwise; both must agree. Default: `None`
    /// (always ask `route`).
    #[inline(always)]
    fn direct(&self, _hdr: &Header, _switch_index: u32) -> Option<Direct> {
        None
    }

    /// The head at `here` was granted `chosen`, leaving on `channel`.
    fn forwarded(
        &self,
        _hdr: &mut Header,
        _here: &Here,
        _chosen: Candidate,
        _channel: ChannelId,
        _ctx: &mut RouterCtx,
    ) {
    }

    /// The packet's head reached terminal `hdr.target`. `None` delivers
    /// it (with its tail); `Some(delay_ps)` keeps it in transit: the NIC
    /// re-injects it after the delay (plus `nic.transit_delay`), cut-through,
    /// never sending a flit before it has arrived. The default delivers at
    /// the final destination and otherwise starts the leg to it at once.
    fn arrived(&self, hdr: &mut Header, _ctx: &mut RouterCtx) -> Option<u64> {
        if hdr.target == hdr.dst {
            None
        } else {
            hdr.origin = hdr.target;
            hdr.target = hdr.dst;
            hdr.leg_hops = 0;
            Some(0)
        }
    }
}

/// How a switch picks among the available candidates a router returns.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Selection {
    /// The first available candidate, in the router's order.
    First,
    /// A uniformly random available candidate.
    Random,
    /// The available candidate with the most free credits (first on ties).
    MaxCredits,
}

/// Picks one of `cands`: among those `avail` reports available (with its
/// free credits), the ones of the lowest priority, then by `policy`
/// (`Random` draws from `rng` once per tie). Returns the index and credits.
/// Under `First` and `MaxCredits` the search ends at the first available
/// candidate of priority 0 (the lowest there is) that has at least `full`
/// credits (a whole empty buffer: no candidate after it has more).
#[inline(always)]
pub fn select(
    policy: Selection,
    cands: &[Candidate],
    full: u32,
    mut avail: impl FnMut(&Candidate) -> Option<u32>,
    rng: &mut Rng,
) -> Option<(usize, u32)> {
    let mut best: Option<(usize, u8, u32)> = None;
    let mut ties = 0u32;
    let top = match policy {
        Selection::First => 0,
        Selection::MaxCredits => full,
        Selection::Random => u32::MAX,
    };
    for (k, c) in cands.iter().enumerate() {
        let Some(credits) = avail(c) else {
            continue;
        };
        match best {
            None => {
                best = Some((k, c.priority, credits));
                ties = 1;
                if c.priority == 0 && credits >= top && top != u32::MAX {
                    break;
                }
            }
            Some((_, bp, _)) if c.priority < bp => {
                best = Some((k, c.priority, credits));
                ties = 1;
            }
            Some((_, bp, bc)) if c.priority == bp => match policy {
                Selection::First => {}
                Selection::MaxCredits => {
                    if credits > bc {
                        best = Some((k, c.priority, credits));
                    }
                }
                Selection::Random => {
                    ties += 1;
                    if rng.gen_range(0..ties) == 0 {
                        best = Some((k, c.priority, credits));
                    }
                }
            },
            _ => {}
        }
    }
    best.map(|(k, _, c)| (k, c))
}

/// Routes with several paths per pair: how a packet picks one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum PathChoice {
    /// Uniformly at random per packet.
    Random,
    /// Always the first path.
    First,
    /// Round robin per source over its paths to each destination.
    RoundRobin,
}

/// What a router is built from: the engine options (datelines, seed,
/// lanes), how table routes with several paths pick one, and options of
/// the router itself by name (`eta`, `delta`, ...), which each router
/// reads with [`RouterOptions::f64`] and friends and checks with
/// [`RouterOptions::only`].
#[derive(Debug, Clone, PartialEq)]
pub struct RouterOptions {
    pub routing: RoutingOptions,
    pub path_choice: PathChoice,
    pub params: BTreeMap<String, String>,
}

impl Default for RouterOptions {
    fn default() -> Self {
        RouterOptions {
            routing: RoutingOptions::default(),
            path_choice: PathChoice::Random,
            params: BTreeMap::new(),
        }
    }
}

impl RouterOptions {
    /// Fails on a parameter not in `known`, naming it and the valid ones.
    pub fn only(&self, known: &[&str]) -> Result<(), RoutingError> {
        match self.params.keys().find(|k| !known.contains(&k.as_str())) {
            None => Ok(()),
            Some(k) => Err(RoutingError::BadOption {
                option: k.clone(),
                value: self.params[k].clone(),
                expected: if known.is_empty() {
                    "no options (this router has none)".into()
                } else {
                    format!("one of the router's options: {}", known.join(", "))
                },
            }),
        }
    }

    fn parsed<T: std::str::FromStr>(
        &self,
        key: &str,
        default: T,
        expected: &str,
    ) -> Result<T, RoutingError> {
        match self.params.get(key) {
            None => Ok(default),
            Some(v) => v.trim().parse().map_err(|_| RoutingError::BadOption {
                option: key.into(),
                value: v.clone(),
                expected: expected.into(),
            }),
        }
    }

    /// A parameter that takes one of `allowed` (the first is the default).
    pub fn choice(
        &self,
        key: &str,
        allowed: &[&'static str],
    ) -> Result<&'static str, RoutingError> {
        match self.params.get(key) {
            None => Ok(allowed[0]),
            Some(v) => allowed
                .iter()
                .find(|a| **a == v.trim())
                .copied()
                .ok_or_else(|| RoutingError::BadOption {
                    option: key.into(),
                    value: v.clone(),
                    expected: format!("one of {}", allowed.join(", ")),
                }),
        }
    }

    /// A real-valued parameter.
    pub fn f64(&self, key: &str, default: f64) -> Result<f64, RoutingError> {
        self.parsed(key, default, "a number")
    }

    /// A non-negative integer parameter.
    pub fn u32(&self, key: &str, default: u32) -> Result<u32, RoutingError> {
        self.parsed(key, default, "a non-negative integer")
    }

    /// A boolean parameter.
    pub fn bool(&self, key: &str, default: bool) -> Result<bool, RoutingError> {
        self.parsed(key, default, "true or false")
    }
}

/// A router built by name from the registry. It returns the
/// [`AnyRouter`] to run, usually itself (a router may hand over to
/// another where it does not fit, as `dor` to the engine's tables on a
/// hypercube).
pub trait BuildRouter: Sized {
    fn build(net: &Network, opts: &RouterOptions) -> Result<AnyRouter, RoutingError>;
}

/// The registry: one line per router, `"name" => Variant(Type), "about";`
/// after the `$` that the generated dispatch macro needs; `Type`
/// implements [`HopRouter`] and [`BuildRouter`]. Generates [`AnyRouter`]
/// (with [`TableRouter`] and custom variants) and [`ADAPTIVE`].
macro_rules! routers {
    ($d:tt $($name:literal => $variant:ident($ty:ty), $about:literal;)*) => {
        /// A router of the registry, a [`TableRouter`], or one's own.
        /// Calls through it are static for the known routers.
        pub enum AnyRouter {
            /// Oblivious routes of an engine.
            Table(Box<TableRouter>),
            $($variant($ty),)*
            /// A router of one's own.
            Custom(Box<dyn HopRouter>),
        }

        /// The hop routers registered by name.
        pub const ADAPTIVE: &[&str] = &[$($name),*];

        /// `(name, one line)` of every registered hop router.
        pub const ROUTER_ABOUT: &[(&str, &str)] = &[$(($name, $about)),*];

        fn build_named(
            name: &str,
            net: &Network,
            opts: &RouterOptions,
        ) -> Option<Result<AnyRouter, RoutingError>> {
            match name {
                $($name => Some(<$ty as BuildRouter>::build(net, opts)),)*
                _ => None,
            }
        }

        /// Calls `$call` on the router inside an [`AnyRouter`], bound to `$r`
        /// (a reference to the concrete router, unboxed).
        macro_rules! dispatch {
            ($d x:expr, $d r:ident => $d call:expr) => {
                match $d x {
                    $crate::routing::adaptive::AnyRouter::Table(b) => {
                        let $d r: &$crate::routing::adaptive::TableRouter = b;
                        $d call
                    }
                    $($crate::routing::adaptive::AnyRouter::$variant($d r) => $d call,)*
                    $crate::routing::adaptive::AnyRouter::Custom(b) => {
                        let $d r: &dyn $crate::routing::adaptive::HopRouter = &**b;
                        $d call
                    }
                }
            };
        }
    };
}

routers! { $
    "dor" => Dor(DorRouter), "dimension order hop by hop, dateline VCs on tori";
    "duato" => Duato(DuatoRouter), "minimal adaptive over a dimension-order escape (Duato)";
    "abr" => Abr(abr::AbrRouter), "Adaptive Bubble Router: minimal adaptive, bubble escape";
    "dor-bubble" => DorBubble(dor_bubble::DorBubbleRouter), "dimension order, bubble flow control";
    "por" => Por(por::PorRouter), "Pick-Orthant Routing: an orthant chosen at injection";
    "ofr" => Ofr(ofr::OfrRouter), "OutFlank Routing: derouting via an IDN (versaci2013)";
    "rdr" => Rdr(rdr::RdrRouter), "randomized dynamic routing over a bubble escape (parker)";
    "dispersive" => Dispersive(dispersive::DispersiveRouter), "NIC picks a source route per packet: static, random, adaptive, probing";
    "df-min" => DfMin(dragonfly::DragonflyRouter<dragonfly::Min>), "dragonfly minimal: local, global, local hop";
    "df-val" => DfVal(dragonfly::DragonflyRouter<dragonfly::Val>), "dragonfly Valiant: minimal to a random intermediate group, then to the destination";
    "df-ugal-l" => DfUgalL(dragonfly::DragonflyRouter<dragonfly::UgalL>), "dragonfly UGAL-L: minimal or Valiant at the source, by local queues";
    "df-ugal-g" => DfUgalG(dragonfly::DragonflyRouter<dragonfly::UgalG>), "dragonfly UGAL-G: minimal or Valiant at the source, by the global channels' queues";
    "df-par" => DfPar(dragonfly::DragonflyRouter<dragonfly::Par>), "dragonfly PAR: UGAL-L at the source, decided again at the source group's gateway";
    "hx-dor" => HxDor(hyperx::HyperXRouter<hyperx::Dor>), "HyperX dimension order, one hop per differing coordinate";
    "hx-val" => HxVal(hyperx::HyperXRouter<hyperx::Val>), "HyperX Valiant: dimension order to a random switch, then to the destination";
    "hx-ugal" => HxUgal(hyperx::HyperXRouter<hyperx::Ugal>), "HyperX UGAL: dimension order or Valiant at the source, by local queues";
    "ft-adaptive" => FtAdaptive(fat_tree::FatTreeRouter), "fat trees and Clos: the up port per packet by local occupancy (adaptive routing), down as the tree leads";
    "hx-dal" => HxDal(hyperx_dal::DalRouter), "HyperX DAL: any unaligned dimension, at most one deroute in each, over a dimension-order escape VC";
    "mf-min" => MfMin(megafly::MegaflyRouter<megafly::Min>), "Megafly minimal: up, global, down";
    "mf-val" => MfVal(megafly::MegaflyRouter<megafly::Val>), "Megafly Valiant: minimal to a random intermediate group, then to the destination";
    "mf-ugal-l" => MfUgalL(megafly::MegaflyRouter<megafly::UgalL>), "Megafly UGAL-L: minimal or Valiant at the source leaf, by local queues";
    "mf-ugal-g" => MfUgalG(megafly::MegaflyRouter<megafly::UgalG>), "Megafly UGAL-G: minimal or Valiant at the source leaf, by the global channels' queues";
    "mf-par" => MfPar(megafly::MegaflyRouter<megafly::Par>), "Megafly PAR: UGAL-L at the source, decided again at the gateway spine over its other global links";
    "dist-min" => DistMin(distance::DistanceRouter<distance::Min>), "any network: minimal adaptive by switch distances, VCs by hop (Slim Fly MIN)";
    "dist-val" => DistVal(distance::DistanceRouter<distance::Val>), "any network: Valiant through a random switch, minimal adaptive phases, VCs by hop";
    "dist-ugal" => DistUgal(distance::DistanceRouter<distance::Ugal>), "any network: minimal or Valiant at the source by local queues (UGAL-L), VCs by hop";
}

/// `dispatch!(router, r => expr)`: `expr` with `r` bound to the concrete
/// router inside an [`AnyRouter`], so that hot loops can be compiled once
/// per router.
pub(crate) use dispatch;

impl AnyRouter {
    /// [`HopRouter::route`] with the view's type known, so that the calls
    /// of the known routers into it are static.
    #[inline]
    pub fn route_in<V: LocalView>(
        &self,
        hdr: &Header,
        here: &Here,
        view: &V,
        ctx: &mut RouterCtx,
        out: &mut Candidates,
    ) {
        dispatch!(self, r => r.route(hdr, here, view, ctx, out))
    }

    /// [`HopRouter::forwarded`], inlined into the caller.
    #[inline(always)]
    pub fn forwarded_in(
        &self,
        hdr: &mut Header,
        here: &Here,
        chosen: Candidate,
        channel: ChannelId,
        ctx: &mut RouterCtx,
    ) {
        dispatch!(self, r => r.forwarded(hdr, here, chosen, channel, ctx))
    }

    /// [`HopRouter::source`] with the view's type known.
    #[inline]
    pub fn source_in<V: LocalView>(&self, hdr: &mut Header, view: &V, ctx: &mut RouterCtx) {
        dispatch!(self, r => r.source(hdr, view, ctx))
    }
}

impl HopRouter for AnyRouter {
    fn name(&self) -> &str {
        dispatch!(self, r => r.name())
    }
    fn vcs_needed(&self) -> u8 {
        dispatch!(self, r => r.vcs_needed())
    }
    fn counters(&self) -> Vec<String> {
        dispatch!(self, r => r.counters())
    }
    fn reads_view(&self) -> bool {
        dispatch!(self, r => r.reads_view())
    }
    fn fixed_candidates(&self) -> bool {
        dispatch!(self, r => r.fixed_candidates())
    }
    fn reads_remote_channels(&self) -> bool {
        dispatch!(self, r => r.reads_remote_channels())
    }
    fn check(&self, res: &Resources) -> Result<(), String> {
        dispatch!(self, r => r.check(res))
    }
    #[inline]
    fn source(&self, hdr: &mut Header, view: &dyn LocalView, ctx: &mut RouterCtx) {
        dispatch!(self, r => r.source(hdr, view, ctx))
    }
    #[inline]
    fn inject(&self, hdr: &Header, vcs: u8, out: &mut Candidates) {
        dispatch!(self, r => r.inject(hdr, vcs, out))
    }
    #[inline]
    fn route(
        &self,
        hdr: &Header,
        here: &Here,
        view: &dyn LocalView,
        ctx: &mut RouterCtx,
        out: &mut Candidates,
    ) {
        dispatch!(self, r => r.route(hdr, here, view, ctx, out))
    }
    #[inline]
    fn forwarded(
        &self,
        hdr: &mut Header,
        here: &Here,
        chosen: Candidate,
        channel: ChannelId,
        ctx: &mut RouterCtx,
    ) {
        dispatch!(self, r => r.forwarded(hdr, here, chosen, channel, ctx))
    }
    #[inline]
    fn direct(&self, hdr: &Header, switch_index: u32) -> Option<Direct> {
        dispatch!(self, r => r.direct(hdr, switch_index))
    }
    #[inline]
    fn inject_lane(&self, hdr: &Header) -> Option<(u8, u8)> {
        dispatch!(self, r => r.inject_lane(hdr))
    }
    #[inline]
    fn arrived(&self, hdr: &mut Header, ctx: &mut RouterCtx) -> Option<u64> {
        dispatch!(self, r => r.arrived(hdr, ctx))
    }
    fn nic_words(&self, terminals: usize) -> usize {
        dispatch!(self, r => r.nic_words(terminals))
    }
    #[inline]
    fn stopped(&self, hdr: &Header, now_ps: u64, ctx: &mut RouterCtx) {
        dispatch!(self, r => r.stopped(hdr, now_ps, ctx))
    }
}

impl std::fmt::Debug for AnyRouter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "AnyRouter({})", self.name())
    }
}

impl From<Box<dyn HopRouter>> for AnyRouter {
    fn from(r: Box<dyn HopRouter>) -> Self {
        AnyRouter::Custom(r)
    }
}

impl From<TableRouter> for AnyRouter {
    fn from(r: TableRouter) -> Self {
        AnyRouter::Table(Box::new(r))
    }
}

/// Every name a router can be built from: the registered hop routers,
/// then the routing engines (wrapped as tables).
pub fn router_names() -> String {
    router_about()
        .into_iter()
        .map(|(n, _)| n.to_string())
        .chain(super::ALIASES.iter().map(|(a, n)| format!("{a} (= {n})")))
        .collect::<Vec<_>>()
        .join(", ")
}

/// `(name, one line)` of every name `routing.algorithm` takes: the hop
/// routers, then the engines not shadowed by one (their tables followed
/// hop by hop), as `routelab sim --list` shows.
pub fn router_about() -> Vec<(&'static str, String)> {
    let mut v: Vec<(&str, String)> = ROUTER_ABOUT
        .iter()
        .map(|(n, a)| (*n, a.to_string()))
        .collect();
    v.extend(
        super::ENGINES
            .iter()
            .filter(|(n, ..)| !ADAPTIVE.contains(n))
            .map(|(n, _, a)| (*n, format!("tables: {a}"))),
    );
    v
}

/// The router `name` names: a registered hop router, or a routing engine
/// whose routes are wrapped in a [`TableRouter`]. A registered name wins
/// over an engine of the same name (`dor`).
pub fn build(net: &Network, name: &str, opts: &RouterOptions) -> Result<AnyRouter, RoutingError> {
    let name = super::canonical(name);
    if let Some(r) = build_named(name, net, opts) {
        return r;
    }
    if !super::ENGINES.iter().any(|(n, ..)| *n == name) {
        let about = router_about();
        let known = about
            .iter()
            .map(|(n, _)| *n)
            .chain(super::ALIASES.iter().map(|(a, _)| *a));
        return Err(RoutingError::UnknownEngine {
            name: name.to_string(),
            valid: router_names(),
            hint: crate::suggest::did_you_mean(name, known),
        });
    }
    opts.only(&[])?;
    table_router(net, name, opts)
}

/// The routes of engine `engine` wrapped as a [`TableRouter`].
pub fn table_router(
    net: &Network,
    engine: &str,
    opts: &RouterOptions,
) -> Result<AnyRouter, RoutingError> {
    let routes: Routes = super::route(net, engine, &opts.routing)?;
    Ok(AnyRouter::Table(Box::new(TableRouter::new(
        net,
        routes,
        opts.path_choice,
    )?)))
}

/// Where each terminal enters the fabric: the switch (index in
/// [`Network::switches`]) its first cable leads to and that switch's port,
/// which sends to it. `Err` names the first terminal on no switch.
pub(crate) fn terminal_attachments(net: &Network) -> Result<Vec<(u32, PortId)>, String> {
    net.terminals()
        .iter()
        .map(|&t| {
            net.out_channels(t)
                .first()
                .map(|&c| net.channel(c))
                .filter(|ch| net.is_switch(ch.dst))
                .map(|ch| (net.kind_index(ch.dst) as u32, ch.dst_port))
                .ok_or_else(|| format!("terminal {} on no switch", net.label(t)))
        })
        .collect()
}

/// Checks that the terminals of a torus or mesh sit where its generator
/// puts them: terminal `t` on switch `t / c`, port `2n + 1 + t mod c`.
pub(crate) fn check_torus_terminals(
    net: &Network,
    router: &'static str,
    dims: usize,
    concentration: u32,
) -> Result<(), RoutingError> {
    let c = concentration.max(1);
    let n = dims as u16;
    for (t, &node) in net.terminals().iter().enumerate() {
        let ok = net.out_channels(node).first().is_some_and(|&ch| {
            let ch = net.channel(ch);
            net.is_switch(ch.dst)
                && net.kind_index(ch.dst) == t / c as usize
                && ch.dst_port.0 == 2 * n + 1 + (t as u32 % c) as u16
        });
        if !ok {
            return Err(RoutingError::Unfit {
                engine: router,
                needs: "terminals where the torus generator puts them".into(),
                network: net.name().to_string(),
                found: format!("a network with terminal {} elsewhere", net.label(node)),
            });
        }
    }
    Ok(())
}

/// What [`walk_routes`] found: the longest route in switch hops, whether
/// the (channel, VC) dependencies of all routes form a cycle, and how many
/// hops [`HopRouter::direct`] left to [`HopRouter::route`].
#[cfg(test)]
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Walked {
    pub longest: usize,
    pub cycle: bool,
    pub undecided: usize,
}

/// Walks the route of each header (its `state` and `aux` as `source` set
/// them) from its source terminal to its target through `route` and
/// `forwarded`, taking the first candidate, with the view `view(switch
/// index, header)` shows; checks that every candidate of a hop leads to
/// the same switch and that `direct`, where it answers, agrees with the
/// candidates and with the state `forwarded` leaves. The routers' tests
/// check their VC schemes with it.
#[cfg(test)]
pub(crate) fn walk_routes(
    net: &Network,
    r: &dyn HopRouter,
    vcs: u8,
    headers: impl IntoIterator<Item = Header>,
    view: &dyn Fn(u32, &Header) -> torus_geometry::test_view::FixedView,
) -> Walked {
    let mut edges: Vec<Vec<usize>> = vec![Vec::new(); net.channel_count() * usize::from(vcs)];
    let mut rng = crate::rng::stream(1, "walk");
    let mut counters = vec![0u64; r.counters().len()];
    let mut walked = Walked {
        longest: 0,
        cycle: false,
        undecided: 0,
    };
    for mut hdr in headers {
        let mut at = net
            .attached_switch(net.terminal(hdr.origin as usize))
            .unwrap();
        let mut prev: Option<usize> = None;
        for hop in 0.. {
            assert!(hop < 8, "{hdr:?}: a loop");
            let s = net.kind_index(at) as u32;
            let here = Here {
                switch: at,
                switch_index: s,
                in_port: PortId(1),
                in_vc: 0,
                vcs,
                now_ps: 0,
            };
            let mut out = Candidates::default();
            let mut ctx = RouterCtx::new(&mut rng, &mut counters);
            r.route(&hdr, &here, &view(s, &hdr), &mut ctx, &mut out);
            let c = out.as_slice()[0];
            assert!(c.vc < vcs);
            let ch = net.channel_at(at, c.port).unwrap();
            let next = net.channel(ch).dst;
            for x in out.as_slice() {
                assert_eq!(net.channel(net.channel_at(at, x.port).unwrap()).dst, next);
            }
            let node = ch.index() * usize::from(vcs) + usize::from(c.vc);
            if let Some(p) = prev {
                edges[p].push(node);
            }
            if net.is_terminal(next) {
                assert_eq!(next, net.terminal(hdr.target as usize));
                walked.longest = walked.longest.max(hop);
                break;
            }
            let direct = r.direct(&hdr, s);
            r.forwarded(&mut hdr, &here, c, ch, &mut ctx);
            match direct {
                Some(d) => {
                    let lanes: Vec<u8> = (d.lane..vcs).step_by(usize::from(d.lanes)).collect();
                    let offered: Vec<u8> = out.as_slice().iter().map(|x| x.vc).collect();
                    assert_eq!((d.port, lanes, d.state), (c.port, offered, hdr.state));
                }
                None => walked.undecided += 1,
            }
            prev = Some(node);
            at = next;
        }
    }
    walked.cycle = has_cycle(&edges);
    walked
}

/// One hop [`walk_every_branch`] takes: at switch index `switch`, the
/// header before the hop, the candidate taken and the node it leads
/// to, `hop` switch hops into the route.
#[cfg(test)]
pub(crate) struct Step<'a> {
    pub switch: u32,
    pub hdr: &'a Header,
    pub taken: Candidate,
    pub next: NodeId,
    pub hop: usize,
}

/// Walks every route of each header (its `state` and `aux` as `source`
/// set them), branching at every hop over every candidate `route` offers
/// (adaptive routers offer several next switches), with the view
/// `view(switch index, header)` shows; `check` sees each hop. Returns the
/// longest route in switch hops and whether the (channel, VC)
/// dependencies of all routes form a cycle.
#[cfg(test)]
pub(crate) fn walk_every_branch(
    net: &Network,
    r: &dyn HopRouter,
    vcs: u8,
    headers: impl IntoIterator<Item = Header>,
    view: &dyn Fn(u32, &Header) -> torus_geometry::test_view::FixedView,
    check: &mut dyn FnMut(&Step),
) -> (usize, bool) {
    let mut edges: Vec<Vec<usize>> = vec![Vec::new(); net.channel_count() * usize::from(vcs)];
    let mut rng = crate::rng::stream(1, "walk");
    let mut counters = vec![0u64; r.counters().len()];
    let mut longest = 0;
    for hdr in headers {
        let at = net
            .attached_switch(net.terminal(hdr.origin as usize))
            .unwrap();
        let mut stack = vec![(at, hdr, None::<usize>, 0usize)];
        while let Some((at, hdr, prev, hop)) = stack.pop() {
            assert!(hop < 16, "{hdr:?}: a loop");
            let s = net.kind_index(at) as u32;
            let here = Here {
                switch: at,
                switch_index: s,
                in_port: PortId(1),
                in_vc: 0,
                vcs,
                now_ps: 0,
            };
            let mut out = Candidates::default();
            let mut ctx = RouterCtx::new(&mut rng, &mut counters);
            r.route(&hdr, &here, &view(s, &hdr), &mut ctx, &mut out);
            assert!(!out.is_empty(), "{hdr:?} at switch {s}: no candidate");
            for &c in out.as_slice() {
                assert!(c.vc < vcs);
                let ch = net.channel_at(at, c.port).unwrap();
                let next = net.channel(ch).dst;
                check(&Step {
                    switch: s,
                    hdr: &hdr,
                    taken: c,
                    next,
                    hop,
                });
                let node = ch.index() * usize::from(vcs) + usize::from(c.vc);
                if let Some(p) = prev {
                    edges[p].push(node);
                }
                if net.is_terminal(next) {
                    assert_eq!(next, net.terminal(hdr.target as usize));
                    longest = longest.max(hop);
                    continue;
                }
                let mut h = hdr;
                r.forwarded(&mut h, &here, c, ch, &mut ctx);
                stack.push((next, h, Some(node), hop + 1));
            }
        }
    }
    (longest, has_cycle(&edges))
}

/// Whether a dependency graph (each node's successors) has a cycle, by
/// Kahn's algorithm: what the routers' tests check their VC schemes with.
#[cfg(test)]
pub(crate) fn has_cycle(edges: &[Vec<usize>]) -> bool {
    let mut indegree = vec![0usize; edges.len()];
    for e in edges.iter().flatten() {
        indegree[*e] += 1;
    }
    let mut ready: Vec<usize> = (0..edges.len()).filter(|&n| indegree[n] == 0).collect();
    let mut seen = 0;
    while let Some(n) = ready.pop() {
        seen += 1;
        for &m in &edges[n] {
            indegree[m] -= 1;
            if indegree[m] == 0 {
                ready.push(m);
            }
        }
    }
    seen < edges.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn selection_prefers_low_priority_then_policy() {
        let c = |port: u16, vc: u8, priority: u8| Candidate {
            port: PortId(port),
            vc,
            priority,
            need: 0,
        };
        let cands = [c(1, 0, 1), c(2, 0, 0), c(3, 0, 0), c(4, 0, 0)];
        let credits = [9, 2, 5, 5];
        let mut rng = crate::rng::stream(1, "select");
        let avail = |x: &Candidate| Some(credits[usize::from(x.port.0) - 1]);
        assert_eq!(
            select(Selection::First, &cands, 9, avail, &mut rng),
            Some((1, 2))
        );
        assert_eq!(
            select(Selection::MaxCredits, &cands, 9, avail, &mut rng),
            Some((2, 5))
        );
        let mut seen = [false; 4];
        for _ in 0..200 {
            let (k, _) = select(Selection::Random, &cands, 9, avail, &mut rng).unwrap();
            seen[k] = true;
        }
        assert_eq!(seen, [false, true, true, true]);
        // Only the escape candidate available.
        let only_escape = |x: &Candidate| (x.priority == 1).then_some(1);
        assert_eq!(
            select(Selection::MaxCredits, &cands, 9, only_escape, &mut rng),
            Some((0, 1))
        );
        assert_eq!(
            select(Selection::First, &cands, 9, |_| None, &mut rng),
            None
        );
        // A candidate with a full buffer's credits ends the search.
        let full = [c(2, 0, 0), c(3, 0, 0)];
        let calls = std::cell::Cell::new(0);
        let counted = |_: &Candidate| {
            calls.set(calls.get() + 1);
            Some(9)
        };
        assert_eq!(
            select(Selection::MaxCredits, &full, 9, counted, &mut rng),
            Some((0, 9))
        );
        assert_eq!(calls.get(), 1);
    }

    #[test]
    fn registry_builds_by_name_and_names_the_valid_ones() {
        let net = crate::network::spec::build("torus:4x4").unwrap();
        let dragonfly = crate::network::spec::build("dragonfly:a=2,p=1,h=1").unwrap();
        let hyperx = crate::network::spec::build("hyperx:S=3x3,t=1,p=1").unwrap();
        let megafly = crate::network::spec::build("megafly:a=2,p=1,h=1").unwrap();
        let tree = crate::network::spec::build("kary-ntree:k=2,n=2").unwrap();
        let o = RouterOptions::default();
        for name in ADAPTIVE {
            let on = if name.starts_with("df-") {
                &dragonfly
            } else if name.starts_with("hx-") {
                &hyperx
            } else if name.starts_with("mf-") {
                &megafly
            } else if name.starts_with("ft-") {
                &tree
            } else {
                &net
            };
            assert_eq!(build(on, name, &o).unwrap().name(), *name);
        }
        assert!(matches!(
            build(&net, "updown", &o).unwrap(),
            AnyRouter::Table(_)
        ));
        // BookSim's and OpenSM's names build what they stand for.
        assert_eq!(build(&net, "dim_order", &o).unwrap().name(), "dor");
        // OpenSM's updn is not reproduced, so its name routes nothing.
        assert!(build(&net, "updn", &o).is_err());
        let e = build(&net, "teleport", &o).unwrap_err().to_string();
        assert!(e.contains("teleport") && e.contains("duato") && e.contains("minhop"));
        assert!(e.contains("dim_order (= dor)"), "{e}");
        // `--list` shows every name once, the hop router where one shadows an engine.
        let about = router_about();
        let names: Vec<&str> = about.iter().map(|(n, _)| *n).collect();
        let mut unique = names.clone();
        unique.sort_unstable();
        unique.dedup();
        assert_eq!(unique.len(), names.len());
        for (engine, ..) in crate::routing::ENGINES {
            assert!(names.contains(engine), "{engine}");
        }
        let dor = &about.iter().find(|(n, _)| *n == "dor").unwrap().1;
        assert!(!dor.starts_with("tables:"), "{dor}");
        let mut bad = o.clone();
        bad.params.insert("eta".into(), "2".into());
        let e = build(&net, "duato", &bad).unwrap_err().to_string();
        assert!(e.contains("eta"), "{e}");
    }
}
