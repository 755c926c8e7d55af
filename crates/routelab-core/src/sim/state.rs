//! The simulator's state and its event loop.
//!
//! Components are switches and terminals (NICs); they share nothing but
//! links ([`super::link`]). State is kept as flat vectors indexed by
//! channel, by `(channel, vc)` (an input buffer is named after the channel
//! that fills it: `channel * vcs + vc`) and by terminal. The behaviour of
//! switches is in [`super::switch`], of terminals in [`super::nic`].

use super::config::{Selection, Switching};
use super::engine::{Calendar, Event, Kind};
use super::error::{SimError, WaitingBuffer};
use super::link::{ChannelTiming, Links, SINK_CREDITS};
use super::packet::{Packets, Queue, NONE};
use super::router::{Candidates, HopRouter};
use super::stats::Counters;
use super::workload::Closed;
use crate::network::{Network, PortId};
use crate::rng::{self, Rng};
use crate::traffic::BoundPattern;

/// Settings of one run, resolved from the spec.
#[derive(Debug, Clone)]
pub(super) struct Params {
    pub switching: Switching,
    pub vcs: usize,
    /// Flits per input buffer (per port and VC).
    pub buf: u32,
    pub flit_bytes: u32,
    pub routing_delay_ps: u64,
    pub speedup: u64,
    pub selection: Selection,
    /// Open loop: flits per packet and packets per message.
    pub packet_flits: u16,
    pub message_packets: u32,
    /// Closed loop: bytes per packet at most.
    pub mtu_bytes: u64,
    pub cycle_ps: u64,
    pub watchdog_ps: u64,
    /// Open loop: messages per terminal per cycle.
    pub message_rate: f64,
    pub seed: u64,
}

impl Params {
    /// The channel of input buffer (or output VC) `iv`.
    #[inline]
    pub fn ch_of(&self, iv: u32) -> u32 {
        if self.vcs.is_power_of_two() {
            iv >> self.vcs.trailing_zeros()
        } else {
            iv / self.vcs as u32
        }
    }

    /// The VC of input buffer (or output VC) `iv`.
    #[inline]
    pub fn vc_of(&self, iv: u32) -> u8 {
        if self.vcs.is_power_of_two() {
            (iv & (self.vcs as u32 - 1)) as u8
        } else {
            (iv % self.vcs as u32) as u8
        }
    }
}

/// One terminal's NIC, structure of arrays.
#[derive(Debug, Default)]
pub(super) struct Nics {
    /// Injection channel, or `NONE`.
    pub inj: Vec<u32>,
    /// Node id of the switch it injects into.
    pub switch: Vec<u32>,
    pub source_q: Vec<Queue>,
    pub transit_q: Vec<Queue>,
    /// Packet being injected, flits of it sent, and its VC (`u8::MAX`
    /// until chosen).
    pub cur: Vec<u32>,
    pub cur_sent: Vec<u16>,
    pub cur_vc: Vec<u8>,
    pub rng: Vec<Rng>,
    /// Messages generated (the pattern's `seq`).
    pub seq: Vec<u64>,
}

/// One input buffer (port and VC of a switch): a FIFO of flits kept in
/// `Sim::buf`, and the output VC its front packet holds. Kept together so
/// that one cache line serves a visit.
#[derive(Debug, Clone, Copy)]
pub(super) struct Ivc {
    pub head: u32,
    pub len: u32,
    /// The output `(channel * vcs + vc)` the front packet holds, or `NONE`.
    pub alloc: u32,
    /// Bumped whenever the front head is allocated (stale waits).
    pub gen: u32,
    /// Flits of the front packet already sent on.
    pub front_sent: u16,
}

impl Default for Ivc {
    fn default() -> Self {
        Ivc {
            head: 0,
            len: 0,
            alloc: NONE,
            gen: 0,
            front_sent: 0,
        }
    }
}

pub(super) struct Sim<'a> {
    pub net: &'a Network,
    pub router: &'a dyn HopRouter,
    pub p: &'a Params,
    pub pattern: Option<&'a BoundPattern>,
    pub now: u64,
    pub q: Calendar,
    pub links: Links,
    /// Per node: first slot in `port_ch`; per slot: the channel leaving
    /// that port, or `NONE`.
    pub port_base: Vec<u32>,
    pub port_ch: Vec<u32>,
    // Input buffers, by `channel * vcs + vc` (channels ending at a switch).
    pub buf: Vec<u32>,
    /// Per input buffer: its FIFO state and the output it holds.
    pub ivc: Vec<Ivc>,
    /// Per channel: the input port it enters may read again at.
    pub in_busy: Vec<u64>,
    pub in_wake: Vec<u64>,
    /// Per channel: heads waiting for one of its VCs, `(buffer, gen)`.
    pub waiters: Vec<Vec<(u32, u32)>>,
    pub pool: Vec<Vec<(u32, u32)>>,
    pub cands: Candidates,
    pub sw_rng: Vec<Rng>,
    pub counters: Vec<u64>,
    pub nic: Nics,
    pub pk: Packets,
    pub c: Counters,
    pub util_ps: Vec<u64>,
    pub closed: Option<Closed>,
    pub fault: Option<SimError>,
    pub last_progress: u64,
    /// Packets injected and not yet delivered.
    pub in_net: u64,
    pub events: u64,
    pub flit_hops: u64,
}

impl<'a> Sim<'a> {
    pub fn new(
        net: &'a Network,
        router: &'a dyn HopRouter,
        p: &'a Params,
        pattern: Option<&'a BoundPattern>,
    ) -> Result<Self, SimError> {
        let v = p.vcs;
        let name = |n: crate::NodeId| net.node(n).name.clone();
        // Ports.
        let mut port_base = Vec::with_capacity(net.node_count() + 1);
        let mut port_ch = Vec::new();
        for id in net.node_ids() {
            port_base.push(port_ch.len() as u32);
            for port in 1..=net.node(id).ports {
                port_ch.push(net.channel_at(id, PortId(port)).map_or(NONE, |c| c.0));
            }
        }
        port_base.push(port_ch.len() as u32);
        // Channels.
        let mut timing = Vec::with_capacity(net.channel_count());
        let (mut min_delay, mut max_delay) = (u64::MAX, p.cycle_ps);
        for ch in net.channels() {
            let class = net.class(ch.class);
            let flit_ps = class
                .bandwidth
                .serialization_ps(u64::from(p.flit_bytes))
                .max(1);
            let to_switch = net.is_switch(ch.dst);
            if !to_switch && !net.is_switch(ch.src) {
                return Err(SimError::router(
                    router.name(),
                    format!(
                        "terminals {} and {} are cabled to each other; terminals must hang off switches",
                        name(ch.src),
                        name(ch.dst)
                    ),
                ));
            }
            let lat_ps = class.latency.0;
            let arrive_ps = flit_ps + lat_ps + if to_switch { p.routing_delay_ps } else { 0 };
            min_delay = min_delay.min(flit_ps);
            max_delay = max_delay.max(arrive_ps).max(lat_ps);
            let term = |n: crate::NodeId| {
                if net.is_terminal(n) {
                    net.kind_index(n) as u32
                } else {
                    NONE
                }
            };
            timing.push(ChannelTiming {
                flit_ps,
                lat_ps,
                arrive_ps,
                to_term: term(ch.dst),
                from_term: term(ch.src),
                credit_ring: if to_switch { v as u32 * p.buf } else { 0 },
                credits: if to_switch { p.buf } else { SINK_CREDITS },
            });
        }
        let links = Links::new(v, &timing);
        let nch = net.channel_count();
        // Terminals.
        let t = net.terminals().len();
        let mut nic = Nics::default();
        for (i, &node) in net.terminals().iter().enumerate() {
            let inj = net
                .out_channels(node)
                .iter()
                .copied()
                .find(|&c| net.is_switch(net.channel(c).dst));
            nic.inj.push(inj.map_or(NONE, |c| c.0));
            nic.switch.push(inj.map_or(NONE, |c| net.channel(c).dst.0));
            nic.rng.push(rng::stream(p.seed, &format!("sim/nic/{i}")));
        }
        nic.source_q = vec![Queue::default(); t];
        nic.transit_q = vec![Queue::default(); t];
        nic.cur = vec![NONE; t];
        nic.cur_sent = vec![0; t];
        nic.cur_vc = vec![u8::MAX; t];
        nic.seq = vec![0; t];
        let sw_rng = (0..net.switches().len())
            .map(|s| rng::stream(p.seed, &format!("sim/switch/{s}")))
            .collect();
        let nbuf = nch * v;
        Ok(Sim {
            net,
            router,
            p,
            pattern,
            now: 0,
            q: Calendar::for_delays(min_delay.min(p.cycle_ps), max_delay.saturating_mul(2)),
            links,
            port_base,
            port_ch,
            buf: vec![NONE; nbuf * p.buf as usize],
            ivc: vec![Ivc::default(); nbuf],
            in_busy: vec![0; nch],
            in_wake: vec![u64::MAX; nch],
            waiters: vec![Vec::new(); nch],
            pool: Vec::new(),
            cands: Candidates::default(),
            sw_rng,
            counters: vec![0; router.counters().len()],
            nic,
            pk: Packets::with_capacity(4 * t),
            c: Counters::default(),
            util_ps: vec![0; nch],
            closed: None,
            fault: None,
            last_progress: 0,
            in_net: 0,
            events: 0,
            flit_hops: 0,
        })
    }

    #[inline]
    pub fn schedule(&mut self, time: u64, kind: Kind, obj: u32) {
        self.q.push(Event { time, obj, kind });
    }

    /// Wakes the sender of channel `c` at `t`, unless an earlier wake is
    /// pending (it re-examines everything and re-arms as needed).
    #[inline]
    pub fn wake_output(&mut self, c: u32, t: u64) {
        let w = self.links.wake[c as usize];
        if w >= self.now && w <= t {
            return;
        }
        self.links.wake[c as usize] = t;
        self.schedule(t, Kind::Output, c);
    }

    #[inline]
    pub fn wake_input(&mut self, c: u32, t: u64) {
        let w = self.in_wake[c as usize];
        if w >= self.now && w <= t {
            return;
        }
        self.in_wake[c as usize] = t;
        self.schedule(t, Kind::Input, c);
    }

    /// The sender of `c` needs credits: wake it when the next one lands,
    /// or have the receiver wake it when it sends one.
    #[inline]
    pub fn need_credit(&mut self, c: u32) {
        match self.links.next_credit(c) {
            Some(t) => self.wake_output(c, t.max(self.now)),
            None => self.links.starved[c as usize] = true,
        }
    }

    /// The view of switch `node`'s output ports (credits drained to now).
    pub fn drain_switch(&mut self, node: u32) {
        let (a, b) = (
            self.port_base[node as usize] as usize,
            self.port_base[node as usize + 1] as usize,
        );
        for i in a..b {
            let c = self.port_ch[i];
            if c != NONE && self.links.credits_pending(c) {
                self.links.drain(c, self.now);
            }
        }
    }

    /// Runs events up to and including time `t_end`.
    pub fn run_until(&mut self, t_end: u64) -> Result<(), SimError> {
        while let Some(ev) = self.q.pop_until(t_end) {
            self.now = ev.time;
            self.events += 1;
            match ev.kind {
                Kind::Arrive => self.arrive(ev.obj),
                Kind::Output => self.output_event(ev.obj),
                Kind::Input => self.input_event(ev.obj),
                Kind::Generate => self.generate(ev.obj),
                Kind::Reinject => self.reinject(ev.obj),
            }
            if let Some(f) = self.fault.take() {
                return Err(f);
            }
            if self.in_net > 0 && self.now - self.last_progress > self.p.watchdog_ps {
                return Err(self.deadlock());
            }
        }
        if self.q.len() == 0 && self.in_net > 0 {
            return Err(self.deadlock());
        }
        if t_end != u64::MAX {
            self.now = self.now.max(t_end);
        }
        Ok(())
    }

    fn output_event(&mut self, c: u32) {
        if self.links.wake[c as usize] == self.now {
            self.links.wake[c as usize] = u64::MAX;
        }
        let t = self.links.from_term[c as usize];
        if t != NONE {
            self.nic_send(t);
        } else {
            self.output_ready(c);
        }
    }

    fn input_event(&mut self, c: u32) {
        if self.in_wake[c as usize] == self.now {
            self.in_wake[c as usize] = u64::MAX;
        }
        let v = self.p.vcs as u32;
        for iv in c * v..(c + 1) * v {
            let a = self.ivc[iv as usize].alloc;
            if a != NONE && self.ivc[iv as usize].len > 0 {
                self.serve_output(self.p.ch_of(a));
            }
        }
    }

    /// Describes input buffer `iv` for error reports.
    pub fn describe_buffer(&self, iv: u32) -> WaitingBuffer {
        let v = self.p.vcs as u32;
        let ch = self.net.channel(crate::ChannelId(iv / v));
        WaitingBuffer {
            node: self.net.node(ch.dst).name.clone(),
            port: ch.dst_port.0,
            vc: (iv % v) as u8,
            flits: self.ivc[iv as usize].len,
        }
    }

    /// Flits generated (and re-injected) minus those consumed by
    /// terminals, against the flits found in queues, buffers and links.
    pub fn check_conservation(&self) -> Result<(), SimError> {
        let mut found = 0u64;
        for t in 0..self.nic.inj.len() {
            for q in [self.nic.source_q[t], self.nic.transit_q[t]] {
                found += q
                    .iter(&self.pk.next)
                    .map(|p| u64::from(self.pk.hdr[p as usize].flits))
                    .sum::<u64>();
            }
            let p = self.nic.cur[t];
            if p != NONE {
                found += u64::from(self.pk.hdr[p as usize].flits - self.nic.cur_sent[t]);
            }
        }
        found += self.ivc.iter().map(|b| u64::from(b.len)).sum::<u64>();
        found += self.links.flits_in_flight();
        let generated = self.c.gen_flits + self.c.reinjected_flits;
        let consumed = self.c.sunk_flits;
        let packets_ok = self.pk.alive() == self.c.gen_packets - self.c.delivered_packets;
        if generated != consumed + found || !packets_ok {
            return Err(SimError::Conservation {
                generated,
                delivered: consumed,
                in_flight: found,
            });
        }
        Ok(())
    }
}
