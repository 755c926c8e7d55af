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
    /// The output a round is sending its match on (`NONE` otherwise):
    /// switch allocation serves it, and only it, at once.
    pub matched: u32,
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
    /// Scratch of a round: its requests and its matches, and per channel
    /// the request it picked as an input or granted as an output (`NONE`
    /// between rounds).
    reqs: Vec<Request>,
    won: Vec<Request>,
    by_input: Vec<u32>,
    by_output: Vec<u32>,
}

/// A request of a round: input channel and port, output channel and port,
/// the input buffer and its VC, the output VC it holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Request {
    input: u32,
    in_port: u32,
    output: u32,
    out_port: u32,
    buffer: u32,
    in_vc: u32,
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
            matched: NONE,
            tx_sw,
            tx_port,
            vc_ptr: vec![0; nch],
            out_ptr: vec![0; nch],
            in_ptr: vec![0; nch],
            pending: vec![u64::MAX; switches],
            last: vec![u64::MAX; switches],
            wake: vec![u64::MAX; switches],
            reqs: Vec::new(),
            won: Vec::new(),
            by_input: vec![NONE; nch],
            by_output: vec![NONE; nch],
        }
    }

    /// iSLIP's grant and accept over `reqs` at a switch of `ports` ports:
    /// leaves in `by_output` the request each output is matched by.
    fn grant_accept(&mut self, reqs: &[Request], ports: u32) {
        // Grant: per output, the input first from its pointer.
        for i in 0..reqs.len() {
            let o = reqs[i].output as usize;
            let ptr = u32::from(self.in_ptr[o]);
            keep_first(&mut self.by_output[o], i, reqs, |r| r.in_port, ptr, ports);
        }
        // Accept: per input, the granting output first from its pointer.
        for (i, r) in reqs.iter().enumerate() {
            if self.by_output[r.output as usize] == i as u32 {
                let ptr = u32::from(self.out_ptr[r.input as usize]);
                let best = &mut self.by_input[r.input as usize];
                keep_first(best, i, reqs, |r| r.out_port, ptr, ports);
            }
        }
        // A grant not accepted is no match.
        for (i, r) in reqs.iter().enumerate() {
            if self.by_output[r.output as usize] == i as u32
                && self.by_input[r.input as usize] != i as u32
            {
                self.by_output[r.output as usize] = NONE;
            }
        }
    }

    /// Separable input-first over `reqs`: leaves in `by_output` the
    /// request each output is matched by.
    fn input_first(&mut self, reqs: &[Request], ports: u32) {
        // Per input, the output first from its pointer.
        for i in 0..reqs.len() {
            let input = reqs[i].input as usize;
            let ptr = u32::from(self.out_ptr[input]);
            keep_first(
                &mut self.by_input[input],
                i,
                reqs,
                |r| r.out_port,
                ptr,
                ports,
            );
        }
        // Per output, among the inputs that picked it, the first from its
        // pointer.
        for (i, r) in reqs.iter().enumerate() {
            if self.by_input[r.input as usize] == i as u32 {
                let ptr = u32::from(self.in_ptr[r.output as usize]);
                let best = &mut self.by_output[r.output as usize];
                keep_first(best, i, reqs, |r| r.in_port, ptr, ports);
            }
        }
    }

    /// The matches of a round over `reqs` (`allocator` other than
    /// greedy), each pointer moved one past its match; the scratch is
    /// clean again afterwards.
    fn matches(
        &mut self,
        allocator: Allocator,
        reqs: &[Request],
        ports: u32,
        vcs: u32,
        out: &mut Vec<Request>,
    ) {
        match allocator {
            Allocator::Islip => self.grant_accept(reqs, ports),
            _ => self.input_first(reqs, ports),
        }
        for (i, r) in reqs.iter().enumerate() {
            self.by_input[r.input as usize] = NONE;
            if self.by_output[r.output as usize] != i as u32 {
                continue;
            }
            self.by_output[r.output as usize] = NONE;
            self.in_ptr[r.output as usize] = ((r.in_port + 1) % ports) as u16;
            self.out_ptr[r.input as usize] = ((r.out_port + 1) % ports) as u16;
            self.vc_ptr[r.input as usize] = ((r.in_vc + 1) % vcs) as u8;
            out.push(*r);
        }
    }
}

/// Round-robin arbitration: keeps in `best` (an index into `reqs`, or
/// `NONE`) whichever of it and request `i` has its `port` first from
/// `ptr`, over `ports`.
#[inline]
fn keep_first(
    best: &mut u32,
    i: usize,
    reqs: &[Request],
    port: impl Fn(&Request) -> u32,
    ptr: u32,
    ports: u32,
) {
    if *best == NONE
        || after(port(&reqs[i]), ptr, ports) < after(port(&reqs[*best as usize]), ptr, ports)
    {
        *best = i as u32;
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
        let mut won = std::mem::take(&mut self.rounds.won);
        reqs.clear();
        won.clear();
        let retry = self.collect_requests(sw, &mut reqs);
        let (ports, vcs) = (self.switches[s].ports, self.p.vcs as u32);
        self.rounds
            .matches(self.p.allocator, &reqs, ports, vcs, &mut won);
        for r in &won {
            self.serve_matched(r.output, r.vc);
        }
        let retry = if won.len() < reqs.len() {
            retry.min(now + self.p.cycle_ps)
        } else {
            retry
        };
        self.rounds.reqs = reqs;
        self.rounds.won = won;
        if retry != u64::MAX {
            self.call_round_at(sw, retry);
        }
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
                    in_port: u32::from(self.ch[input as usize].in_port) - 1,
                    output: o,
                    out_port: u32::from(self.rounds.tx_port[o as usize]),
                    buffer: h,
                    in_vc: u32::from(self.p.vc_of(h)),
                    vc,
                };
                // One request per input and output: the VC first from the
                // input's VC pointer.
                let ptr = u32::from(self.rounds.vc_ptr[input as usize]);
                match self.rounds.by_input[input as usize] {
                    NONE => {
                        self.rounds.by_input[input as usize] = reqs.len() as u32;
                        reqs.push(r);
                    }
                    j => {
                        let other = &mut reqs[j as usize];
                        if after(r.in_vc, ptr, vcs) < after(other.in_vc, ptr, vcs) {
                            *other = r;
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
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 2-port switch: inputs are channels 0 and 1 (ports 0 and 1),
    /// outputs channels 2 and 3 (ports 0 and 1).
    fn switch() -> Rounds {
        Rounds {
            matched: NONE,
            vc_ptr: vec![0; 4],
            out_ptr: vec![0; 4],
            in_ptr: vec![0; 4],
            by_input: vec![NONE; 4],
            by_output: vec![NONE; 4],
            ..Rounds::default()
        }
    }

    /// Input `i` asks output `o` from its VC `v`.
    fn ask(i: u32, o: u32, v: u32) -> Request {
        Request {
            input: i,
            in_port: i,
            output: 2 + o,
            out_port: o,
            buffer: 10 * i + v,
            in_vc: v,
            vc: v,
        }
    }

    fn round(r: &mut Rounds, allocator: Allocator, reqs: &[Request]) -> Vec<(u32, u32)> {
        let mut won = Vec::new();
        r.matches(allocator, reqs, 2, 4, &mut won);
        assert!(r.by_input.iter().chain(&r.by_output).all(|&x| x == NONE));
        won.iter().map(|m| (m.in_port, m.out_port)).collect()
    }

    #[test]
    fn islip_pointers_desynchronise_after_one_round() {
        // Both inputs ask both outputs. Round 1: both outputs grant input
        // 0, which accepts output 0: one match, output 1 idles. The
        // pointers move past it (output 0 to input 1, input 0 to output
        // 1), so round 2 matches both.
        let mut r = switch();
        let reqs = [ask(0, 0, 0), ask(0, 1, 1), ask(1, 0, 0), ask(1, 1, 1)];
        assert_eq!(round(&mut r, Allocator::Islip, &reqs), [(0, 0)]);
        assert_eq!((r.in_ptr[2], r.out_ptr[0], r.vc_ptr[0]), (1, 1, 1));
        // Output 1 granted but was not accepted: its pointer stays.
        assert_eq!(r.in_ptr[3], 0);
        let mut two = round(&mut r, Allocator::Islip, &reqs);
        two.sort_unstable();
        assert_eq!(two, [(0, 1), (1, 0)]);
    }

    #[test]
    fn separable_input_first_loses_the_inputs_whose_pick_loses() {
        // Both inputs pick output 0 (their pointers at 0); it grants
        // input 0. Input 1 sends nothing though output 1 idles.
        let mut r = switch();
        let reqs = [ask(0, 0, 0), ask(0, 1, 1), ask(1, 0, 2), ask(1, 1, 3)];
        assert_eq!(
            round(&mut r, Allocator::SeparableInputFirst, &reqs),
            [(0, 0)]
        );
        // Input 1's pick lost: its pointer stays at output 0.
        assert_eq!((r.out_ptr[0], r.out_ptr[1], r.in_ptr[2]), (1, 0, 1));
        let mut two = round(&mut r, Allocator::SeparableInputFirst, &reqs);
        two.sort_unstable();
        assert_eq!(two, [(0, 1), (1, 0)]);
    }

    #[test]
    fn a_lone_request_is_always_matched() {
        for allocator in [Allocator::Islip, Allocator::SeparableInputFirst] {
            let mut r = switch();
            r.in_ptr[3] = 1;
            r.out_ptr[1] = 1;
            assert_eq!(round(&mut r, allocator, &[ask(1, 0, 2)]), [(1, 0)]);
        }
    }

    #[test]
    fn round_robin_distance() {
        assert_eq!(after(3, 3, 8), 0);
        assert_eq!(after(2, 3, 8), 7);
        assert_eq!(after(0, 9, 8), 7);
    }
}
