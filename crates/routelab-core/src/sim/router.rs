//! The one routing interface of the simulator: [`HopRouter`].
//!
//! At every switch the engine asks the router for the candidate
//! (output port, virtual channel) pairs of the packet at the head of an
//! input buffer, given a read-only [`LocalView`] of the switch's output
//! ports (free credits and occupancy per port and VC). The engine keeps
//! the candidates that are available now (VC not held by another packet,
//! enough credits), keeps those of the best (lowest) `priority`, and lets
//! the selection policy of the spec pick one ([`crate::sim::Selection`]).
//! If none is available the packet waits and the router is asked again
//! when one of the candidate ports frees a VC or receives credits, so
//! `route` may run several times per packet and hop: side effects belong
//! in [`HopRouter::forwarded`], called once the choice is made.
//!
//! A source-side hook ([`HopRouter::source`]) runs once per packet when it
//! reaches the head of its terminal's queue (an intermediate node, a path
//! choice), and [`HopRouter::arrived`] lets a terminal keep a packet in
//! transit and re-inject it after a delay (in-transit buffers).
//!
//! Routers here: [`TableRouter`] wraps oblivious [`Routes`] (forwarding
//! tables or source routes, lanes mapped onto VCs, datelines honoured);
//! [`DuatoRouter`] is minimal adaptive routing on meshes and tori with a
//! dimension-order escape channel.

use super::config::RoutingSpec;
use super::error::SimError;
pub use super::packet::Header;
use crate::network::{ChannelId, Network, NodeId, PortId};
use crate::rng::Rng;
use crate::routing::{self, RoutingOptions};

pub use super::duato::DuatoRouter;
pub use super::tables::TableRouter;

const NONE: u32 = u32::MAX;

/// One choice a router offers: an output port and a VC on it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Candidate {
    pub port: PortId,
    pub vc: u8,
    /// Lower is preferred: the engine only considers the available
    /// candidates of the lowest priority present (0 adaptive, 1 escape).
    pub priority: u8,
    /// Credits (free flits downstream) needed to take this VC; the engine
    /// also requires what the switching mode needs (a whole packet for
    /// cut-through and store-and-forward). Bubble flow control asks for
    /// two packets here when entering a ring.
    pub need: u32,
}

/// The candidates of one routing decision (a reused buffer).
#[derive(Debug, Clone, Default)]
pub struct Candidates {
    pub(super) items: Vec<Candidate>,
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

    pub fn as_slice(&self) -> &[Candidate] {
        &self.items
    }

    pub fn len(&self) -> usize {
        self.items.len()
    }

    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    pub(super) fn clear(&mut self) {
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
    /// Simulated time in picoseconds.
    pub now_ps: u64,
}

/// A read-only view of one switch's output ports.
#[derive(Debug, Clone, Copy)]
pub struct LocalView<'a> {
    pub(super) now: u64,
    pub(super) vcs: usize,
    pub(super) capacity: u32,
    /// Channel leaving each port (index `port - 1`), or `NONE`.
    pub(super) port_ch: &'a [u32],
    pub(super) credits: &'a [u32],
    pub(super) held: &'a [u32],
    pub(super) busy: &'a [u64],
}

impl LocalView<'_> {
    /// Ports of the switch (cabled or not), numbered from 1.
    pub fn ports(&self) -> u16 {
        self.port_ch.len() as u16
    }

    pub fn vcs(&self) -> u8 {
        self.vcs as u8
    }

    /// Flits each input buffer (per port and VC) holds.
    pub fn capacity(&self) -> u32 {
        self.capacity
    }

    /// The channel leaving `port`, if it is cabled.
    #[inline]
    pub fn channel(&self, port: PortId) -> Option<ChannelId> {
        let c = *self.port_ch.get(usize::from(port.0).wrapping_sub(1))?;
        (c != NONE).then_some(ChannelId(c))
    }

    /// Free flit slots known (through credits) in the next buffer of
    /// `(port, vc)`; a terminal always has room, reported as `capacity`.
    #[inline]
    pub fn credits(&self, port: PortId, vc: u8) -> u32 {
        match self.channel(port) {
            Some(c) => self.credits[c.index() * self.vcs + usize::from(vc)].min(self.capacity),
            None => 0,
        }
    }

    /// Flits occupying (or on their way to) the next buffer of `(port, vc)`.
    #[inline]
    pub fn occupancy(&self, port: PortId, vc: u8) -> u32 {
        self.capacity - self.credits(port, vc)
    }

    /// Free credits of `port` over all its VCs.
    pub fn port_credits(&self, port: PortId) -> u32 {
        (0..self.vcs as u8).map(|v| self.credits(port, v)).sum()
    }

    /// Whether another packet holds `(port, vc)`.
    #[inline]
    pub fn is_held(&self, port: PortId, vc: u8) -> bool {
        match self.channel(port) {
            Some(c) => self.held[c.index() * self.vcs + usize::from(vc)] != NONE,
            None => true,
        }
    }

    /// Whether `port` is transmitting a flit now.
    pub fn is_busy(&self, port: PortId) -> bool {
        self.channel(port)
            .is_some_and(|c| self.busy[c.index()] > self.now)
    }
}

/// Per-run mutable help for a router: its random stream and counters.
pub struct RouterCtx<'a> {
    pub rng: &'a mut Rng,
    pub(super) counters: &'a mut [u64],
}

impl RouterCtx<'_> {
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
    /// [`LocalView`]. If not, the engine brings only the candidates'
    /// ports up to date, which is faster.
    fn reads_view(&self) -> bool {
        true
    }

    /// Called once per run with the VC count; say why it cannot work.
    fn check(&self, vcs: u8) -> Result<(), String> {
        if vcs < self.vcs_needed() {
            Err(format!(
                "needs at least {} virtual channels, the spec gives {vcs}",
                self.vcs_needed()
            ))
        } else {
            Ok(())
        }
    }

    /// Source hook, once per packet when it reaches the head of its
    /// terminal's queue. `view` shows the switch it is injected into.
    fn source(&self, _hdr: &mut Header, _view: &LocalView, _ctx: &mut RouterCtx) {}

    /// The VCs the packet may take on the injection channel (the port of
    /// each candidate is ignored). Default: every VC.
    fn inject(&self, _hdr: &Header, vcs: u8, out: &mut Candidates) {
        for v in 0..vcs {
            out.push(PortId(1), v);
        }
    }

    /// The candidates for a head at `here`.
    fn route(
        &self,
        hdr: &Header,
        here: &Here,
        view: &LocalView,
        ctx: &mut RouterCtx,
        out: &mut Candidates,
    );

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

    /// The packet's tail reached terminal `hdr.target`. `None` delivers
    /// it; `Some(delay_ps)` keeps it in transit and re-injects it after
    /// the delay. The default delivers at the final destination and
    /// otherwise starts the leg to it at once.
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

/// Makes an adaptive router for a network.
pub type RouterFactory = fn(&Network, &RoutingSpec) -> Result<Box<dyn HopRouter>, SimError>;

/// Adaptive routers by name. One line per router.
pub const ADAPTIVE: &[(&str, RouterFactory)] = &[("duato", super::duato::factory)];

/// Every name `routing.algorithm` accepts.
pub fn router_names() -> String {
    let mut v: Vec<&str> = ADAPTIVE.iter().map(|(n, _)| *n).collect();
    v.extend(routing::ENGINES.iter().map(|(n, _)| *n));
    v.join(", ")
}

/// The routing options a spec gives to an engine.
pub fn routing_options(spec: &RoutingSpec, run_seed: u64) -> Result<RoutingOptions, SimError> {
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
    Ok(o)
}

/// The router `spec.algorithm` names: an adaptive router, or a routing
/// engine whose routes are wrapped in a [`TableRouter`].
pub fn build(
    net: &Network,
    spec: &RoutingSpec,
    run_seed: u64,
) -> Result<Box<dyn HopRouter>, SimError> {
    if let Some((_, make)) = ADAPTIVE.iter().find(|(n, _)| *n == spec.algorithm) {
        return make(net, spec);
    }
    if !routing::ENGINES.iter().any(|(n, _)| *n == spec.algorithm) {
        return Err(super::error::ConfigError::invalid(
            "routing.algorithm",
            &spec.algorithm,
            format!("one of {}", router_names()),
        )
        .into());
    }
    let opts = routing_options(spec, run_seed)?;
    let routes = routing::route(net, &spec.algorithm, &opts)?;
    Ok(Box::new(TableRouter::new(net, routes, spec.path_choice)?))
}
