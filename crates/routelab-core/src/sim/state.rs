//! The simulator's state and its event loop.
//!
//! Components are switches and terminals (NICs); they share nothing but
//! links ([`super::link`]). State is kept in flat vectors of small
//! records grouped by what is read together: per channel its timing and
//! both ends ([`Chan`], one cache line); per `(channel, vc)` the input
//! buffer the channel fills and the sender's credits and holder ([`Vc`];
//! a buffer is named after the channel that fills it: `channel << vshift
//! | vc`); per terminal its NIC ([`Nic`]). The behaviour of switches is in
//! [`super::switch`], of terminals in [`super::nic`].

use super::config::{Allocator, Selection, Switching};
use super::engine::{Ahead, Calendar, Event, Kind};
use super::error::{ConfigError, SimError, WaitingBuffer};
use super::link::{
    Chan, ChannelTiming, Vc, FROM_TERM, NO_RETURN, SINK_CREDITS, SWITCHES, TAG_CREDIT, TO_TERM,
};
use super::packet::{Numbers, Packets, Queue, NONE};
use super::rounds::Rounds;
use super::stats::Counters;
use super::workload::Closed;
use crate::network::{Network, PortId};
use crate::rng::{self, Rng};
use crate::routing::adaptive::{AnyRouter, Candidates, HopRouter, LocalView};
use crate::traffic::BoundPattern;
use crate::ChannelId;

/// Settings of one run, resolved from the spec.
#[derive(Debug, Clone)]
pub(super) struct Params {
    pub switching: Switching,
    pub vcs: usize,
    /// VC records of a channel are `1 << vshift` apart (the VC count
    /// rounded up to a power of two: indices without divisions).
    pub vshift: u32,
    /// Flits per input buffer (per port and VC).
    pub buf: u32,
    pub flit_bytes: u32,
    pub routing_delay_ps: u64,
    pub speedup: u64,
    /// [`super::config::RouterSpec::route_at_front`].
    pub route_at_front: bool,
    /// [`super::config::RouterSpec::routing_unit_time`] (0: none).
    pub routing_unit_ps: u64,
    pub allocator: Allocator,
    /// A lone one-flit packet may leave a switch as it is routed when
    /// nothing contends, switch allocation in the same step (greedy
    /// allocation under credits).
    pub lone_leaves: bool,
    pub selection: Selection,
    /// Stop & go flow control, and its thresholds in flits.
    pub stop_go: bool,
    pub stop_at: u32,
    pub go_at: u32,
    /// Open loop: flits per packet and packets per message.
    pub packet_flits: u16,
    pub message_packets: u32,
    /// Closed loop: bytes per packet at most.
    pub mtu_bytes: u64,
    pub cycle_ps: u64,
    pub watchdog_ps: u64,
    /// Open loop: messages per terminal per cycle.
    pub message_rate: f64,
    /// Open loop: one message every `1 / message_rate` instead of
    /// Bernoulli trials.
    pub periodic: bool,
    /// Periodic arrivals on one clock: every terminal's phase is 0.
    pub lockstep: bool,
    /// NIC injection limit: picoseconds per flit between packet starts
    /// (0: none).
    pub inject_ps_per_flit: f64,
    /// Packets alive at once at most (source queues and network).
    pub max_packets: u64,
    pub seed: u64,
    /// In-transit packets: delay before re-injection, NIC buffer (flits,
    /// `u64::MAX`: unbounded) and the extra delay of one kept in host
    /// memory.
    pub transit_delay_ps: u64,
    pub transit_buffer_flits: u64,
    pub spill_delay_ps: u64,
    /// A host's receive rate as a flit time (`nic.receive_bandwidth`; 0:
    /// the link's): the ejection channels serialise no faster.
    pub receive_flit_ps: u64,
    /// A host's send rate as a flit time (`nic.send_bandwidth`; 0: the
    /// link's): the injection channels serialise no faster.
    pub send_flit_ps: u64,
}

impl Params {
    /// The channel of input buffer (or output VC) `iv`.
    #[inline]
    pub fn ch_of(&self, iv: u32) -> u32 {
        iv >> self.vshift
    }

    /// The VC of input buffer (or output VC) `iv`.
    #[inline]
    pub fn vc_of(&self, iv: u32) -> u8 {
        (iv & ((1 << self.vshift) - 1)) as u8
    }

    /// The input buffer (or output VC) of `(channel, vc)`.
    #[inline]
    pub fn iv(&self, ch: u32, vc: u32) -> u32 {
        ch << self.vshift | vc
    }
}

/// One terminal's NIC: what it reads whenever it may send.
#[derive(Debug, Clone, Copy)]
pub(super) struct Nic {
    /// Injection channel, or `NONE`.
    pub inj: u32,
    /// Index (among switches) of the switch it injects into.
    pub switch: u32,
    /// Packet being injected, flits of it sent, and its VC (`u8::MAX`
    /// until chosen).
    pub cur: u32,
    pub cur_sent: u16,
    pub cur_vc: u8,
    pub source_q: Queue,
    pub transit_q: Queue,
    /// Messages generated (the pattern's `seq`).
    pub seq: u64,
    /// Injection limit: the next packet may not start before.
    pub next_start: u64,
    /// Periodic arrivals: the time of the first generation, and the
    /// generations so far.
    pub phase_ps: u64,
    pub gens: u64,
    /// Flow control has stopped the current packet (the router was told).
    pub cur_stopped: bool,
    /// The current packet is re-injected in transit, and whether it holds
    /// room in this NIC's in-transit buffer (not kept in host memory).
    pub cur_transit: bool,
    pub cur_buffered: bool,
    /// Flits of in-transit packets held in the NIC's buffer.
    pub transit_flits: u64,
}

/// Open-loop messages of several packets still being delivered: packets
/// left per message. The part that generated a message numbers it and
/// counts its deliveries ([`Numbers`]).
#[derive(Debug, Default)]
pub(super) struct Messages {
    /// Per message: packets not delivered yet.
    pub left: Vec<u32>,
    /// Per message: packets counted as generated whose records are not
    /// made yet (they are made one at a time as the source sends).
    pub unborn: Vec<u32>,
    pub numbers: Numbers,
}

impl Messages {
    pub fn alloc(&mut self, packets: u32) -> u32 {
        let i = self.numbers.take();
        let k = i as usize;
        if k >= self.left.len() {
            self.left.resize(k + 1, 0);
            self.unborn.resize(k + 1, 0);
        }
        self.left[k] = packets;
        self.unborn[k] = 0;
        i
    }

    /// A packet of message `m` was delivered: true when it was the last.
    pub fn delivered(&mut self, m: u32) -> bool {
        let left = &mut self.left[m as usize];
        *left -= 1;
        if *left == 0 {
            self.numbers.give_back(m);
            return true;
        }
        false
    }
}

pub(super) struct Sim<'a> {
    pub net: &'a Network,
    pub router: &'a AnyRouter,
    /// The settings, kept by value: read at every step.
    pub p: Params,
    pub pattern: Option<&'a BoundPattern>,
    pub now: u64,
    pub q: Calendar,
    /// Per channel.
    pub ch: Vec<Chan>,
    /// Per `(channel, vc)`: input buffer and sender state.
    pub vc: Vec<Vc>,
    /// The flits behind each buffer's front: `buf - 1` slots per buffer.
    pub slots: Vec<u32>,
    /// Stop & go: flits physically in each input buffer (routing
    /// pipeline included); empty under credits.
    pub sg_occ: Vec<u32>,
    /// Stop & go: the last signal each buffer sent upstream was stop.
    pub sg_stopped: Vec<bool>,
    /// Per buffer: the length of the packet whose head it allocated an
    /// output for (valid while `Vc::alloc` is set; written for packets of
    /// more than one flit only). Sending a body flit reads it here, not in
    /// the packet's header, which a saturated run has long evicted from
    /// the caches.
    pub front_flits: Vec<u16>,
    /// `route_at_front`: per buffer, when its front head may be routed;
    /// empty otherwise.
    pub front_ready: Vec<u64>,
    /// `routing_unit_time`: per switch, when its routing unit is free for
    /// the next head that asks.
    pub unit_free: Vec<u64>,
    /// `routing_unit_time`: per buffer, the turn its front head was given
    /// on the unit ([`NO_TURN`]: none).
    pub unit_turn: Vec<u64>,
    /// Allocation in rounds (`router.allocator` other than greedy): its
    /// state, empty otherwise.
    pub rounds: Rounds,
    /// Per switch (by index among switches): its node and port count.
    pub switches: Vec<SwitchAt>,
    /// Per channel: busy time during the measurement.
    pub util: Vec<u64>,
    /// Per switch, `port_stride` slots from `switch * port_stride`: the
    /// channel leaving each port (slot `port - 1`), or `NONE` (also past
    /// its last port). A fixed stride finds them from the switch index
    /// alone, which the channel record entering it holds.
    pub port_ch: Vec<u32>,
    pub port_stride: usize,
    /// Per channel: heads waiting for one of its VCs.
    pub waiters: Vec<Vec<Waiter>>,
    /// Entries added to `waiters` by heads that could not go.
    pub waits_registered: u64,
    pub pool: Vec<Vec<Waiter>>,
    pub cands: Candidates,
    /// Under a router with fixed candidates
    /// ([`HopRouter::fixed_candidates`]), per buffer: the candidates its
    /// front head was given when it could not go (empty otherwise).
    pub held: Held,
    pub sw_rng: Vec<Rng>,
    pub counters: Vec<u64>,
    pub nic: Vec<Nic>,
    pub nic_rng: Vec<Rng>,
    /// The router's state words of every NIC, `nic_words` each.
    pub nic_state: Vec<u32>,
    pub nic_words: usize,
    /// Per terminal: in-transit packets still arriving there, with the
    /// flits received so far (cut-through re-injection sends no further).
    pub transit_rx: Vec<Vec<(u32, u16)>>,
    /// The most flits any NIC's in-transit buffer held, and the packets
    /// that did not fit and were kept in host memory.
    pub transit_peak: u64,
    pub transit_spills: u64,
    pub pk: Packets,
    pub msgs: Messages,
    /// Packets of messages counted as generated whose records are not made
    /// yet (the sum of `msgs.unborn`).
    pub unborn: u64,
    pub c: Counters,
    pub closed: Option<Closed>,
    pub fault: Option<SimError>,
    pub last_progress: u64,
    /// Set by [`Sim::settle`]: terminals generate and inject nothing new,
    /// only packets already in the network move.
    pub injection_stopped: bool,
    /// Packets injected and not yet delivered.
    pub in_net: u64,
    /// Flits on channels.
    pub in_flight: u64,
    pub events: u64,
    pub flit_hops: u64,
    /// `(ln(1 - rate), rate)`: the logarithm geometric gaps divide by,
    /// kept for the rate it was computed for.
    pub log_idle: (f64, f64),
    /// In a parallel run, the part this is and its messages to the
    /// others ([`super::parallel`]).
    pub part: Option<Box<super::parallel::Part>>,
}

/// A head waiting for a VC of a channel: the one at the front of buffer
/// `buf` while the buffer's `gen` is `gen` (stale after).
#[derive(Debug, Clone, Copy)]
pub struct Waiter {
    pub buf: u32,
    pub gen: u16,
    /// The fewest credits one of those VCs must have for it to go there
    /// (0 when it holds no candidates).
    pub need: u16,
    /// The channel's VCs it may take: those of the candidates it holds
    /// there (under a router with fixed candidates), else all. A retry
    /// skips it while none of them is free with `need` credits, without
    /// reading its candidates.
    pub vcs: u64,
}

impl Waiter {
    /// Whether both stand for the same head.
    #[inline]
    pub fn same(&self, other: &Waiter) -> bool {
        self.buf == other.buf && self.gen == other.gen
    }
}

/// The candidates a waiting head was given, valid while its buffer's
/// `gen` is `gen` (it changes when the head is allocated).
#[derive(Debug, Clone, Default)]
pub struct HeldCands {
    pub gen: u16,
    /// The head's packet length.
    pub flits: u16,
    pub cands: Candidates,
}

/// Per buffer, the candidates its front head holds ([`HeldCands`]), and a
/// bit that says which buffers hold any: a head that has not waited costs
/// a look at the dense bits, not at its slot and its box (two cache misses
/// per routing decision on a large network).
#[derive(Debug, Default)]
pub struct Held {
    bits: Vec<u64>,
    slots: Vec<Option<Box<HeldCands>>>,
}

impl Held {
    pub fn new(buffers: usize) -> Self {
        Held {
            bits: vec![0; buffers.div_ceil(64)],
            // `None` is all zeros: pages are committed only where heads wait.
            slots: vec![None; buffers],
        }
    }

    /// Whether candidates are kept (the router's are fixed).
    #[inline]
    pub fn is_on(&self) -> bool {
        !self.slots.is_empty()
    }

    /// What the front head of buffer `iv` holds, if it is the head of
    /// generation `gen`.
    #[inline]
    pub fn get(&self, iv: u32, gen: u16) -> Option<&HeldCands> {
        let i = iv as usize;
        if self.bits.get(i >> 6).is_none_or(|w| w >> (i & 63) & 1 == 0) {
            return None;
        }
        self.slots[i].as_deref().filter(|h| h.gen == gen)
    }

    /// Swaps buffer `iv`'s held candidates into `scratch` (the scratch
    /// list waits in their place); they are no longer held.
    #[inline]
    pub fn take_into(&mut self, iv: u32, scratch: &mut Candidates) {
        let i = iv as usize;
        if let Some(h) = self.slots[i].as_mut() {
            std::mem::swap(scratch, &mut h.cands);
        }
        self.bits[i >> 6] &= !(1 << (i & 63));
    }

    /// Holds `cands` (swapped with the slot's list) for the front head of
    /// buffer `iv`, of generation `gen` and `flits` flits.
    #[inline]
    pub fn hold(&mut self, iv: u32, gen: u16, flits: u16, cands: &mut Candidates) {
        let i = iv as usize;
        let Some(slot) = self.slots.get_mut(i) else {
            return;
        };
        let h = slot.get_or_insert_with(Box::default);
        std::mem::swap(cands, &mut h.cands);
        h.gen = gen;
        h.flits = flits;
        self.bits[i >> 6] |= 1 << (i & 63);
    }
}

/// How many events ahead [`Sim::run_until`] prefetches.
const PREFETCH_AHEAD: usize = 2;

/// `routing_unit_time`: a buffer whose front head holds no turn.
pub(super) const NO_TURN: u64 = u64::MAX;

/// Hints that `v[i]` will be read soon. No bounds check: a prefetch
/// never faults, and one out of range is only wasted.
#[inline(always)]
pub(super) fn prefetch<T>(v: &[T], i: usize) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch reads nothing architecturally and cannot fault,
    // whatever the address; `wrapping_add` computes it without UB.
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(
            v.as_ptr().wrapping_add(i).cast(),
        )
    };
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (v, i);
}

/// Whether a wake-up recorded for time `wake` is still to come at `now` and
/// comes by `t` (it then covers a wake-up asked for at `t`).
#[inline(always)]
pub(super) fn pending_by(wake: u64, now: u64, t: u64) -> bool {
    wake >= now && wake <= t
}

/// A switch's node and its number of ports.
#[derive(Debug, Clone, Copy)]
pub(super) struct SwitchAt {
    pub node: u32,
    pub ports: u32,
}

/// What a router sees of one switch: its output ports' channels, the
/// senders' credits and holders, and whether each port transmits.
pub(super) struct View<'a> {
    pub now: u64,
    pub vcs: usize,
    pub vshift: u32,
    pub capacity: u32,
    /// Channel leaving each port (index `port - 1`), or `NONE`.
    pub port_ch: &'a [u32],
    pub vc: &'a [Vc],
    pub ch: &'a [Chan],
    /// Per channel: the heads waiting for one of its VCs.
    pub waiters: &'a [Vec<Waiter>],
}

impl View<'_> {
    #[inline]
    fn out(&self, port: PortId) -> Option<u32> {
        let c = *self.port_ch.get(usize::from(port.0).wrapping_sub(1))?;
        (c != NONE).then_some(c)
    }
}

impl LocalView for View<'_> {
    #[inline]
    fn now_ps(&self) -> u64 {
        self.now
    }

    #[inline]
    fn ports(&self) -> u16 {
        self.port_ch.len() as u16
    }

    #[inline]
    fn vcs(&self) -> u8 {
        self.vcs as u8
    }

    #[inline]
    fn capacity(&self) -> u32 {
        self.capacity
    }

    #[inline]
    fn channel(&self, port: PortId) -> Option<ChannelId> {
        self.out(port).map(ChannelId)
    }

    #[inline]
    fn credits(&self, port: PortId, vc: u8) -> u32 {
        match self.out(port) {
            Some(c) => self.vc[(c as usize) << self.vshift | usize::from(vc)]
                .credits_at(self.now)
                .min(self.capacity),
            None => 0,
        }
    }

    #[inline]
    fn is_held(&self, port: PortId, vc: u8) -> bool {
        match self.out(port) {
            Some(c) => self.vc[(c as usize) << self.vshift | usize::from(vc)].held != NONE,
            None => true,
        }
    }

    #[inline]
    fn is_busy(&self, port: PortId) -> bool {
        self.out(port)
            .is_some_and(|c| self.ch[c as usize].busy > self.now)
    }

    /// The default's sum over VCs with the port looked up once.
    #[inline]
    fn port_occupancy(&self, port: PortId) -> u32 {
        match self.out(port) {
            Some(c) => {
                let first = (c as usize) << self.vshift;
                self.vc[first..first + self.vcs]
                    .iter()
                    .map(|v| self.capacity - v.credits_at(self.now).min(self.capacity))
                    .sum()
            }
            None => self.capacity * self.vcs as u32,
        }
    }

    fn channel_in_use(&self, c: ChannelId, recent_ps: u64) -> bool {
        self.ch
            .get(c.index())
            .is_some_and(|ch| ch.held != 0 || ch.busy.saturating_add(recent_ps) > self.now)
    }

    fn channel_waiting(&self, c: ChannelId) -> Option<u32> {
        let w = self.waiters.get(c.index())?;
        // Entries of heads served since are stale (their buffer moved on).
        Some(
            w.iter()
                .filter(|w| self.vc.get(w.buf as usize).is_some_and(|v| v.gen == w.gen))
                .count() as u32,
        )
    }

    fn channel_occupancy(&self, c: ChannelId) -> Option<u32> {
        let first = c.index().checked_shl(self.vshift)?;
        let vcs = self.vc.get(first..first + self.vcs)?;
        Some(
            vcs.iter()
                .map(|v| self.capacity - v.credits_at(self.now).min(self.capacity))
                .sum(),
        )
    }
}

impl<'a> Sim<'a> {
    /// The bytes [`Sim::new`] and a run will take for `net` with `p`,
    /// known before anything is allocated: channel lines, VC records,
    /// every buffer slot, per-channel statistics and waiting lists, port
    /// tables, NICs, and packets and events for a network about full.
    pub fn bytes_needed(net: &Network, p: &Params, nic_words: usize) -> u64 {
        let nch = net.channel_count() as u64;
        let nbuf = nch << p.vshift;
        let (t, s) = (net.terminals().len() as u64, net.switches().len() as u64);
        let ports = net
            .switches()
            .iter()
            .map(|&id| u64::from(net.node(id).ports))
            .max()
            .unwrap_or(0);
        let size = |n: usize| n as u64;
        let per_buffer = size(std::mem::size_of::<Vc>())
            + 4 * u64::from(p.buf.saturating_sub(1))
            + if p.stop_go { 5 } else { 0 }
            + if p.route_at_front { 8 } else { 0 }
            + if p.routing_unit_ps > 0 { 8 } else { 0 };
        let per_channel = size(std::mem::size_of::<Chan>()) + 8 + 24 + 2 * 32;
        let per_terminal = size(std::mem::size_of::<Nic>())
            + size(std::mem::size_of::<Rng>())
            + 24
            + 16
            + 4 * nic_words as u64
            + 4 * 48;
        nbuf * per_buffer
            + nch * per_channel
            + t * per_terminal
            + s * (size(std::mem::size_of::<Rng>()) + 4 * ports + 8)
    }

    pub fn new(
        net: &'a Network,
        router: &'a AnyRouter,
        p: &Params,
        pattern: Option<&'a BoundPattern>,
    ) -> Result<Self, SimError> {
        let name = |n: crate::NodeId| net.node(n).name.clone();
        // Switch ports.
        let switches: Vec<SwitchAt> = net
            .switches()
            .iter()
            .map(|&id| SwitchAt {
                node: id.0,
                ports: u32::from(net.node(id).ports),
            })
            .collect();
        let port_stride = switches.iter().map(|s| s.ports as usize).max().unwrap_or(0);
        let mut port_ch = vec![NONE; switches.len() * port_stride];
        for (s, at) in switches.iter().enumerate() {
            for port in 1..=at.ports as u16 {
                let c = net.channel_at(crate::NodeId(at.node), PortId(port));
                port_ch[s * port_stride + usize::from(port) - 1] = c.map_or(NONE, |c| c.0);
            }
        }
        // Channels.
        let stride = 1usize << p.vshift;
        let nch = net.channel_count();
        let mut ch = Vec::with_capacity(nch);
        let mut vc = Vec::with_capacity(nch * stride);
        let (mut min_delay, mut max_delay) = (u64::MAX, p.cycle_ps);
        for c in net.channels() {
            let class = net.class(c.class);
            let flit_ps = class
                .bandwidth
                .serialization_ps(u64::from(p.flit_bytes))
                .max(1);
            let to_switch = net.is_switch(c.dst);
            let flit_ps = if !to_switch {
                flit_ps.max(p.receive_flit_ps)
            } else if !net.is_switch(c.src) {
                flit_ps.max(p.send_flit_ps)
            } else {
                flit_ps
            };
            if !to_switch && !net.is_switch(c.src) {
                return Err(SimError::router(
                    router.name(),
                    format!(
                        "terminals {} and {} are cabled to each other; terminals must hang off switches",
                        name(c.src),
                        name(c.dst)
                    ),
                ));
            }
            let lat_ps = class.latency.0;
            let arrive_ps = flit_ps + lat_ps + if to_switch { p.routing_delay_ps } else { 0 };
            if arrive_ps > u64::from(u32::MAX) {
                return Err(ConfigError::invalid(
                    "network.links",
                    format!("a flit time plus latency of {arrive_ps} ps"),
                    "flit times and latencies up to 4.29 ms",
                )
                .into());
            }
            min_delay = min_delay.min(flit_ps);
            max_delay = max_delay.max(arrive_ps);
            if p.stop_go && to_switch {
                // What arrives after the stop threshold is crossed: the
                // flits started during the stop's way back and before.
                let round = (2 * lat_ps).div_ceil(flit_ps);
                let need = u64::from(p.stop_at) + 1 + round;
                if need > u64::from(p.buf) {
                    return Err(ConfigError::invalid(
                        "router.stop_threshold",
                        p.stop_at,
                        format!(
                            "a slack buffer (buffer_flits = {}) that absorbs a round trip of \
                             {round} flits on channel {} -> {}: stop_threshold <= {}, or \
                             buffer_flits >= {need}",
                            p.buf,
                            name(c.src),
                            name(c.dst),
                            i64::from(p.buf) - 1 - round as i64
                        ),
                    )
                    .into());
                }
            }
            let term = |n: crate::NodeId| net.kind_index(n) as u32;
            let (kind, term) = if !to_switch {
                (TO_TERM, term(c.dst))
            } else if net.is_terminal(c.src) {
                (FROM_TERM, term(c.src))
            } else {
                (SWITCHES, NONE)
            };
            ch.push(Chan::new(&ChannelTiming {
                flit_ps: flit_ps as u32,
                lat_ps: lat_ps as u32,
                kind,
                term,
                rx_sw: if to_switch {
                    net.kind_index(c.dst) as u32
                } else {
                    NONE
                },
                in_port: c.dst_port.0,
            }));
            let credits = if !to_switch || p.stop_go {
                SINK_CREDITS
            } else {
                p.buf
            };
            vc.extend(std::iter::repeat_n(Vc::new(credits), stride));
        }
        // Terminals.
        let t = net.terminals().len();
        let mut nic = Vec::with_capacity(t);
        let mut nic_rng = Vec::with_capacity(t);
        for (i, &node) in net.terminals().iter().enumerate() {
            let inj = net
                .out_channels(node)
                .iter()
                .copied()
                .find(|&c| net.is_switch(net.channel(c).dst));
            nic.push(Nic {
                inj: inj.map_or(NONE, |c| c.0),
                switch: inj.map_or(NONE, |c| net.kind_index(net.channel(c).dst) as u32),
                cur: NONE,
                cur_sent: 0,
                cur_vc: u8::MAX,
                source_q: Queue::default(),
                transit_q: Queue::default(),
                seq: 0,
                next_start: 0,
                phase_ps: 0,
                gens: 0,
                cur_stopped: false,
                cur_transit: false,
                cur_buffered: false,
                transit_flits: 0,
            });
            nic_rng.push(rng::stream(p.seed, &format!("sim/nic/{i}")));
        }
        let sw_rng = (0..net.switches().len())
            .map(|s| rng::stream(p.seed, &format!("sim/switch/{s}")))
            .collect();
        let nbuf = nch << p.vshift;
        Ok(Sim {
            net,
            router,
            p: p.clone(),
            pattern,
            now: 0,
            q: Calendar::for_delays(min_delay.min(p.cycle_ps), max_delay.saturating_mul(2)),
            ch,
            vc,
            // Written before read (a slot is read only behind a flit pushed
            // into it): zeros let the system commit pages only where
            // buffers fill, which saves most of it in a part of a parallel
            // run and below saturation.
            slots: vec![0; nbuf * (p.buf as usize - 1)],
            sg_occ: if p.stop_go { vec![0; nbuf] } else { Vec::new() },
            sg_stopped: if p.stop_go {
                vec![false; nbuf]
            } else {
                Vec::new()
            },
            front_flits: vec![0; nbuf],
            front_ready: if p.route_at_front {
                vec![0; nbuf]
            } else {
                Vec::new()
            },
            unit_free: if p.routing_unit_ps > 0 {
                vec![0; switches.len()]
            } else {
                Vec::new()
            },
            unit_turn: if p.routing_unit_ps > 0 {
                vec![NO_TURN; nbuf]
            } else {
                Vec::new()
            },
            rounds: if p.allocator == Allocator::Greedy {
                Rounds::default()
            } else {
                Rounds::new(net, switches.len())
            },
            switches,
            util: vec![0; nch],
            port_ch,
            port_stride,
            waiters: vec![Vec::new(); nch],
            waits_registered: 0,
            pool: Vec::new(),
            cands: Candidates::default(),
            held: if router.fixed_candidates() {
                Held::new(nbuf)
            } else {
                Held::default()
            },
            sw_rng,
            counters: vec![0; router.counters().len()],
            nic,
            nic_rng,
            nic_state: vec![0; t * router.nic_words(t)],
            nic_words: router.nic_words(t),
            transit_rx: vec![Vec::new(); t],
            transit_peak: 0,
            transit_spills: 0,
            pk: Packets::with_capacity(4 * t),
            msgs: Messages::default(),
            unborn: 0,
            c: Counters {
                win_src_gen: vec![0; t],
                win_src_delivered: vec![0; t],
                ..Counters::default()
            },
            closed: None,
            fault: None,
            last_progress: 0,
            injection_stopped: false,
            in_net: 0,
            in_flight: 0,
            events: 0,
            flit_hops: 0,
            log_idle: (0.0, f64::NAN),
            part: None,
        })
    }

    /// The slots of switch `sw`'s ports in `port_ch`.
    #[inline]
    pub fn out_ports(&self, sw: u32) -> std::ops::Range<usize> {
        let at = sw as usize * self.port_stride;
        at..at + self.switches[sw as usize].ports as usize
    }

    #[inline]
    pub fn schedule(&mut self, time: u64, kind: Kind, obj: u32) {
        self.q.push(Event::new(time, kind, obj));
    }

    /// Wakes the sender of channel `c` at `t`, unless an earlier wake is
    /// pending (it re-examines everything and re-arms as needed).
    #[inline]
    pub fn wake_output(&mut self, c: u32, t: u64) {
        let k = &mut self.ch[c as usize];
        if pending_by(k.wake, self.now, t) {
            return;
        }
        k.wake = t;
        self.schedule(t, Kind::Output, c);
    }

    #[inline]
    pub fn wake_input(&mut self, c: u32, t: u64) {
        let k = &mut self.ch[c as usize];
        if pending_by(k.in_wake, self.now, t) {
            return;
        }
        k.in_wake = t;
        self.schedule(t, Kind::Input, c);
    }

    /// Sends a flow-control message (`tag`) for VC `vc` back to the
    /// sender of `c`: it arrives after the channel's latency.
    #[inline]
    pub fn send_back(&mut self, c: u32, vc: u8, tag: u16) {
        let k = &self.ch[c as usize];
        let ev = Event {
            time: self.now + u64::from(k.lat_ps),
            obj: c,
            pkt: 0,
            idx: tag,
            vc,
            kind: Kind::Credit,
            next: Ahead::NONE,
        };
        if k.cross {
            self.post_back(ev);
        } else {
            self.q.push(ev);
        }
    }

    /// A flit left input buffer `(c, vc)` (not under stop & go): its slot
    /// is credited back to the sender of `c`, which counts it after the
    /// channel's latency. The record holds one such credit on its way;
    /// another goes as a `Credit` event.
    #[inline(always)]
    pub fn return_credit(&mut self, c: u32, vc: u8) {
        let k = &self.ch[c as usize];
        let at = self.now + u64::from(k.lat_ps);
        if k.cross {
            // The sender's half of the record belongs to another part.
            self.post_credit(c, vc, at);
            return;
        }
        self.credit_on_its_way(c, vc, at);
    }

    /// The sender's side of a credit for `(c, vc)` that reaches it at
    /// `at`: kept in the record if its place is free (the sender counts it
    /// from `at` and is woken then if it may be waiting for it, as the
    /// arrival of a credit event would), else sent as a `Credit` event.
    pub fn credit_on_its_way(&mut self, c: u32, vc: u8, at: u64) {
        let iv = self.p.iv(c, u32::from(vc)) as usize;
        let r = &mut self.vc[iv];
        r.settle(self.now);
        if r.returns_at != NO_RETURN {
            self.q.push(Event {
                time: at,
                obj: c,
                pkt: 0,
                idx: TAG_CREDIT,
                vc,
                kind: Kind::Credit,
                next: Ahead::NONE,
            });
            return;
        }
        r.returns_at = at;
        let k = &self.ch[c as usize];
        let blocked = r.credits == 0;
        let wake = if k.kind == FROM_TERM {
            let n = &self.nic[k.term as usize];
            (blocked || n.cur_vc == u8::MAX)
                && (n.cur != NONE || n.source_q.len > 0 || n.transit_q.len > 0)
        } else {
            (blocked && k.held & 1 << vc != 0) || k.waiting
        };
        if wake {
            self.wake_output(c, at);
        }
    }

    /// Wakes the sender of `c` when the first credit on its way back to
    /// one of the VCs in `mask` arrives, if any.
    pub fn wake_on_return(&mut self, c: u32, mut mask: u64) {
        let mut next = NO_RETURN;
        while mask != 0 {
            let v = mask.trailing_zeros();
            mask &= mask - 1;
            if let Some(at) = self.vc[self.p.iv(c, v) as usize].returning_after(self.now) {
                next = next.min(at);
            }
        }
        if next != NO_RETURN {
            self.wake_output(c, next);
        }
    }

    /// Runs events up to and including time `t_end`. Faults and the
    /// watchdog are looked at once per calendar bucket (a fraction of the
    /// smallest delay), not per event.
    pub fn run_until(&mut self, t_end: u64) -> Result<(), SimError> {
        loop {
            while let Some(ev) = self.q.pop_batched(t_end) {
                self.now = ev.time;
                self.events += 1;
                self.prefetch_for(PREFETCH_AHEAD);
                // The two kinds of nearly every event first, as conditional
                // branches (cheaper to mispredict than a jump table).
                if ev.kind == Kind::Arrive {
                    self.arrive(ev);
                } else if ev.kind == Kind::Credit {
                    self.credit(ev.obj, ev.vc, ev.idx);
                } else {
                    self.rare_event(ev);
                }
            }
            if let Some(fault) = self.fault.take() {
                return Err(fault);
            }
            // A part of a parallel run sees only its share of the packets:
            // the run as a whole watches for deadlocks.
            let whole = self.part.is_none();
            if whole && self.in_net > 0 && self.now - self.last_progress > self.p.watchdog_ps {
                return Err(self.deadlock());
            }
            if !self.q.refill(t_end) {
                break;
            }
        }
        if self.part.is_none() && self.q.len() == 0 && self.in_net > 0 {
            return Err(self.deadlock());
        }
        if t_end != u64::MAX {
            self.now = self.now.max(t_end);
        }
        Ok(())
    }

    /// Stops injection and runs until the network is empty, for at most
    /// `limit_ps`. With nothing entering, a network that is not deadlocked
    /// empties; one that is runs out of events (or idles past the
    /// watchdog) and the wait graph's cycle is reported as a
    /// [`SimError::Deadlock`], however long the run was and whenever the
    /// deadlock formed. `Ok(false)`: packets still moving at the limit.
    pub fn settle(&mut self, limit_ps: u64) -> Result<bool, SimError> {
        self.injection_stopped = true;
        let end = self.now.saturating_add(limit_ps);
        let chunk = (limit_ps / 16).max(self.p.cycle_ps);
        while self.in_net > 0 && self.now < end {
            self.run_until(self.now.saturating_add(chunk).min(end))?;
        }
        Ok(self.in_net == 0)
    }

    /// Records the first fault of a run (reported when the bucket being
    /// served is done; later ones are consequences).
    #[cold]
    pub fn fail(&mut self, err: SimError) {
        if self.fault.is_none() {
            self.fault = Some(err);
        }
    }

    /// Asks the memory system for the records the event `d` places ahead
    /// will touch: a flit or credit reaches a buffer record and a channel
    /// record chosen by the traffic, at random places in arrays larger
    /// than the first cache levels, so that waiting for them would
    /// dominate the cost of an event.
    #[inline(always)]
    fn prefetch_for(&self, d: usize) {
        let Some(e) = self.q.peek_ahead(d) else {
            return;
        };
        match e.kind {
            Kind::Arrive | Kind::Credit => {
                prefetch(&self.vc, self.p.iv(e.obj, u32::from(e.vc)) as usize);
                prefetch(&self.ch, e.obj as usize);
                if e.kind == Kind::Arrive {
                    prefetch(&self.pk.hdr, e.pkt as usize);
                    let n = e.next;
                    if n.out != NONE {
                        // And the output its next hop will read.
                        prefetch(&self.vc, self.p.iv(n.out, u32::from(n.lane)) as usize);
                        prefetch(&self.ch, n.out as usize);
                    }
                }
            }
            Kind::Output | Kind::Input => {
                prefetch(&self.ch, e.obj as usize);
                // The port's VC records (two to a cache line), which
                // switch allocation reads.
                let first = self.p.iv(e.obj, 0) as usize;
                let mut v = 0;
                while v < self.p.vcs {
                    prefetch(&self.vc, first + v);
                    v += 2;
                }
            }
            _ => {}
        }
    }

    fn rare_event(&mut self, ev: Event) {
        match ev.kind {
            Kind::Output => self.output_event(ev.obj),
            Kind::Input => self.input_event(ev.obj),
            Kind::Generate => self.generate(ev.obj),
            Kind::Reinject => self.reinject(ev.obj),
            Kind::Enter => self.enter(ev.obj, ev.vc),
            Kind::Arrive => self.arrive(ev),
            Kind::Credit => self.credit(ev.obj, ev.vc, ev.idx),
            Kind::Route => self.try_route(ev.obj),
            Kind::Allocate => self.allocate_event(ev.obj, ev.idx),
        }
    }

    fn output_event(&mut self, c: u32) {
        let k = &mut self.ch[c as usize];
        if k.wake == self.now {
            k.wake = u64::MAX;
        }
        let t = k.sender_term();
        if t != NONE {
            self.nic_send(t);
        } else {
            self.output_ready(c);
            // Heads and held VCs still short of credits wait for those on
            // their way (their wake may have been merged into this one).
            let k = &self.ch[c as usize];
            let mut short = if k.waiting { !k.held } else { 0 };
            let mut held = k.held;
            while held != 0 {
                let v = held.trailing_zeros();
                held &= held - 1;
                if self.vc[self.p.iv(c, v) as usize].credits_at(self.now) == 0 {
                    short |= 1 << v;
                }
            }
            self.wake_on_return(c, short & (u64::MAX >> (64 - self.p.vcs)));
        }
    }

    fn input_event(&mut self, c: u32) {
        let k = &mut self.ch[c as usize];
        if k.in_wake == self.now {
            k.in_wake = u64::MAX;
        }
        let first = self.p.iv(c, 0);
        for iv in first..first + self.p.vcs as u32 {
            let b = self.vc[iv as usize];
            if b.alloc != NONE && b.len > 0 {
                self.serve_output(self.p.ch_of(b.alloc));
            }
        }
    }

    /// Describes input buffer `iv` for error reports.
    pub fn describe_buffer(&self, iv: u32) -> WaitingBuffer {
        let ch = self.net.channel(ChannelId(self.p.ch_of(iv)));
        WaitingBuffer {
            node: self.net.label(ch.dst).into_owned(),
            port: ch.dst_port.0,
            vc: self.p.vc_of(iv),
            flits: u32::from(self.vc[iv as usize].len),
        }
    }

    /// Flits generated (and re-injected) minus those consumed by
    /// terminals, against the flits found in queues, buffers and links.
    pub fn check_conservation(&self) -> Result<(), SimError> {
        self.census().check()?;
        if self.in_net == 0 {
            self.check_credits()?;
        }
        Ok(())
    }
}
