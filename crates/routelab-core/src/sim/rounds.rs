//! Switch allocation in rounds: BookSim2's one-iteration iSLIP and
//! separable input-first allocators (`router.allocator`).
//!
//! A switch that has a flit which may cross runs a round: at that
//! instant, after the events already due then (so that flits arriving at
//! the same instant take part), and at most one round per cycle
//! (`cycle_ps`); a request made less than a cycle after the last round
//! waits for the next. Requests are the input buffers holding a VC of an
//! idle output that has a credit, on an input port that is free. As in
//! BookSim2's input-queued router, an input asks each output once: of its
//! VCs bound for the same output, the first from its VC pointer.
//!
//! - iSLIP: each output grants the requesting input first from its grant
//!   pointer; each input accepts the granting output first from its accept
//!   pointer.
//! - Separable input-first: each input picks one of its requests, first
//!   from its output pointer; each output grants the picking input first
//!   from its input pointer.
//!
//! Pointers move one past a match and only then. A request left over asks
//! for the next round. Under the greedy allocator none of this runs: an
//! output serves as soon as it and an input are free ([`super::switch`]).

use super::config::Allocator;
use super::engine::{Event, Kind};
use super::packet::NONE;
use super::state::Sim;
use crate::network::Network;

/// The state of allocation in rounds.
#[derive(Debug, Default)]
pub(super) struct Rounds {
    /// A round is sending what it matched.
    pub matched: bool,
    /// Per channel: the switch it leaves (`NONE` from a terminal) and the
    /// port there, from 0.
    pub tx_sw: Vec<u32>,
    tx_port: Vec<u16>,
    /// Per channel as an input: the VC pointer, and the pointer over
    /// outputs (iSLIP's accept, separable's input arbiter).
    vc_ptr: Vec<u8>,
    out_ptr: Vec<u16>,
    /// Per channel as an output: the pointer over inputs.
    in_ptr: Vec<u16>,
    /// Per switch: the time of its pending round, of its last round, and
    /// of its pending call for a round (`u64::MAX`: none).
    pending: Vec<u64>,
    last: Vec<u64>,
    wake: Vec<u64>,
    /// Scratch of a round: the requests (input channel, output channel,
    /// buffer, output VC), and per channel the request it picked as an
    /// input or granted as an output (`NONE` between rounds).
    reqs: Vec<Request>,
    by_input: Vec<u32>,
    by_output: Vec<u32>,
}

#[derive(Debug, Clone, Copy)]
struct Request {
    input: u32,
    output: u32,
    buffer: u32,
    vc: u32,
}

impl Rounds {
    pub fn new(net: &Network, switches: usize) -> Self {
        let nch = net.channel_count();
        let (mut tx_sw, mut tx_port) = (Vec::with_capacity(nch), Vec::with_capacity(nch));
        for c in net.channels() {
            let at_switch = net.is_switch(c.src);
            tx_sw.push(if at_switch {
                net.kind_index(c.src) as u32
            } else {
                NONE
            });
            tx_port.push(c.src_port.0.saturating_sub(1));
        }
        Rounds {
            matched: false,
            tx_sw,
            tx_port,
            vc_ptr: vec![0; nch],
            out_ptr: vec![0; nch],
            in_ptr: vec![0; nch],
            pending: vec![u64::MAX; switches],
            last: vec![u64::MAX; switches],
            wake: vec![u64::MAX; switches],
            reqs: Vec::new(),
            by_input: vec![NONE; nch],
            by_output: vec![NONE; nch],
        }
    }
}

/// How far `x` comes after `ptr`, round robin over `n`.
#[inline]
fn after(x: u32, ptr: u32, n: u32) -> u32 {
    (x + n - ptr % n) % n
}

impl Sim<'_> {
    /// Switch `sw` has a flit that may cross: a round now, after the
    /// events already due, or a cycle after the last one.
    #[cold]
    #[inline(never)]
    pub(super) fn request_round(&mut self, sw: u32) {
        let (now, s) = (self.now, sw as usize);
        if self.rounds.pending[s] == now {
            return;
        }
        let last = self.rounds.last[s];
        if last != u64::MAX && now < last + self.p.cycle_ps {
            self.call_round_at(sw, last + self.p.cycle_ps);
            return;
        }
        self.rounds.pending[s] = now;
        self.q.push(Event {
            idx: 1,
            ..Event::new(now, Kind::Allocate, sw)
        });
    }

    /// Asks switch `sw` for a round at `t`, unless an earlier call is
    /// pending (a round looks at every output, so it serves this one too).
    fn call_round_at(&mut self, sw: u32, t: u64) {
        let w = &mut self.rounds.wake[sw as usize];
        if *w >= self.now && *w <= t {
            return;
        }
        *w = t;
        self.q.push(Event::new(t, Kind::Allocate, sw));
    }

    /// An `Allocate` event: a round at switch `sw` (`idx` 1), or a call
    /// for one (`idx` 0), which queues the round behind the events due.
    #[cold]
    #[inline(never)]
    pub(super) fn allocate_event(&mut self, sw: u32, idx: u16) {
        if idx == 0 {
            let w = &mut self.rounds.wake[sw as usize];
            if *w == self.now {
                *w = u64::MAX;
            }
            self.request_round(sw);
        } else {
            self.allocation_round(sw);
        }
    }

    /// One round at switch `sw` (module docs).
    fn allocation_round(&mut self, sw: u32) {
        let (now, s) = (self.now, sw as usize);
        self.rounds.pending[s] = u64::MAX;
        self.rounds.last[s] = now;
        let mut reqs = std::mem::take(&mut self.rounds.reqs);
        reqs.clear();
        let retry = self.collect_requests(sw, &mut reqs);
        let ports = self.switches[s].ports;
        match self.p.allocator {
            Allocator::Islip => self.grant_accept(&reqs, ports),
            _ => self.input_first(&reqs, ports),
        }
        let vcs = self.p.vcs as u32;
        let mut matched = 0;
        for (i, r) in reqs.iter().enumerate() {
            self.rounds.by_input[r.input as usize] = NONE;
            if self.rounds.by_output[r.output as usize] != i as u32 {
                continue;
            }
            self.rounds.by_output[r.output as usize] = NONE;
            matched += 1;
            let (ip, op) = self.ports_of(r);
            self.rounds.in_ptr[r.output as usize] = ((ip + 1) % ports) as u16;
            self.rounds.out_ptr[r.input as usize] = ((op + 1) % ports) as u16;
            let v = u32::from(self.p.vc_of(r.buffer));
            self.rounds.vc_ptr[r.input as usize] = ((v + 1) % vcs) as u8;
            self.serve_matched(r.output, r.vc);
        }
        let retry = if matched < reqs.len() {
            retry.min(now + self.p.cycle_ps)
        } else {
            retry
        };
        self.rounds.reqs = reqs;
        if retry != u64::MAX {
            self.call_round_at(sw, retry);
        }
    }

    /// The input and output port (from 0) of a request.
    #[inline]
    fn ports_of(&self, r: &Request) -> (u32, u32) {
        let ip = u32::from(self.ch[r.input as usize].in_port) - 1;
        (ip, u32::from(self.rounds.tx_port[r.output as usize]))
    }

    /// The requests at switch `sw`, one per input and output (the input's
    /// VC first from its VC pointer); returns when an input port that is
    /// busy now frees, if one kept a request out.
    fn collect_requests(&mut self, sw: u32, reqs: &mut Vec<Request>) -> u64 {
        let now = self.now;
        let vcs = self.p.vcs as u32;
        let mut retry = u64::MAX;
        for slot in self.out_ports(sw) {
            let o = self.port_ch[slot];
            if o == NONE || self.ch[o as usize].busy > now {
                // A busy output calls for a round when it frees (`arm`).
                continue;
            }
            let first = reqs.len();
            let mut held = self.ch[o as usize].held;
            while held != 0 {
                let vc = held.trailing_zeros();
                held &= held - 1;
                let x = &self.vc[self.p.iv(o, vc) as usize];
                let h = x.held;
                if x.credits_at(now) == 0 || self.vc[h as usize].len == 0 {
                    continue;
                }
                let input = self.p.ch_of(h);
                let ib = self.ch[input as usize].in_busy;
                if ib > now {
                    retry = retry.min(ib);
                    continue;
                }
                let r = Request {
                    input,
                    output: o,
                    buffer: h,
                    vc,
                };
                let key = |p: &Self, b: u32| {
                    let ptr = u32::from(p.rounds.vc_ptr[input as usize]);
                    after(u32::from(p.p.vc_of(b)), ptr, vcs)
                };
                match self.rounds.by_input[input as usize] {
                    NONE => {
                        self.rounds.by_input[input as usize] = reqs.len() as u32;
                        reqs.push(r);
                    }
                    j => {
                        if key(self, h) < key(self, reqs[j as usize].buffer) {
                            reqs[j as usize] = r;
                        }
                    }
                }
            }
            for r in &reqs[first..] {
                self.rounds.by_input[r.input as usize] = NONE;
            }
        }
        retry
    }

    /// iSLIP's grant and accept: leaves in `by_output` the request each
    /// output was matched by.
    fn grant_accept(&mut self, reqs: &[Request], ports: u32) {
        // Grant: per output, the input first from its pointer.
        for (i, r) in reqs.iter().enumerate() {
            let ptr = u32::from(self.rounds.in_ptr[r.output as usize]);
            let key = |p: &Self, r: &Request| after(p.ports_of(r).0, ptr, ports);
            let cur = self.rounds.by_output[r.output as usize];
            if cur == NONE || key(self, r) < key(self, &reqs[cur as usize]) {
                self.rounds.by_output[r.output as usize] = i as u32;
            }
        }
        // Accept: per input, the granting output first from its pointer.
        for (i, r) in reqs.iter().enumerate() {
            if self.rounds.by_output[r.output as usize] != i as u32 {
                continue;
            }
            let ptr = u32::from(self.rounds.out_ptr[r.input as usize]);
            let key = |p: &Self, r: &Request| after(p.ports_of(r).1, ptr, ports);
            let cur = self.rounds.by_input[r.input as usize];
            if cur == NONE || key(self, r) < key(self, &reqs[cur as usize]) {
                self.rounds.by_input[r.input as usize] = i as u32;
            }
        }
        // A grant not accepted is no match.
        for (i, r) in reqs.iter().enumerate() {
            if self.rounds.by_output[r.output as usize] == i as u32
                && self.rounds.by_input[r.input as usize] != i as u32
            {
                self.rounds.by_output[r.output as usize] = NONE;
            }
        }
    }

    /// Separable input-first: leaves in `by_output` the request each
    /// output was matched by.
    fn input_first(&mut self, reqs: &[Request], ports: u32) {
        // Per input, the output first from its pointer.
        for (i, r) in reqs.iter().enumerate() {
            let ptr = u32::from(self.rounds.out_ptr[r.input as usize]);
            let key = |p: &Self, r: &Request| after(p.ports_of(r).1, ptr, ports);
            let cur = self.rounds.by_input[r.input as usize];
            if cur == NONE || key(self, r) < key(self, &reqs[cur as usize]) {
                self.rounds.by_input[r.input as usize] = i as u32;
            }
        }
        // Per output, among the inputs that picked it, the first from its
        // pointer.
        for (i, r) in reqs.iter().enumerate() {
            if self.rounds.by_input[r.input as usize] != i as u32 {
                continue;
            }
            let ptr = u32::from(self.rounds.in_ptr[r.output as usize]);
            let key = |p: &Self, r: &Request| after(p.ports_of(r).0, ptr, ports);
            let cur = self.rounds.by_output[r.output as usize];
            if cur == NONE || key(self, r) < key(self, &reqs[cur as usize]) {
                self.rounds.by_output[r.output as usize] = i as u32;
            }
        }
    }
}
