//! Terminals (NICs): a generator, an unbounded source queue, the
//! injection link, the ejection link and a sink.
//!
//! A NIC injects one packet at a time, flit by flit at its injection
//! channel's rate, on a VC the router allows and that has credits (one
//! per flit; the whole packet first for cut-through and
//! store-and-forward). Packets a router keeps in transit at this terminal
//! ([`super::router::HopRouter::arrived`]) wait `delay` and then go
//! ahead of the source queue. The sink consumes flits as they arrive;
//! a packet is delivered when its tail arrives.

use super::config::{Selection, Switching};
use super::engine::Kind;
use super::link::Flit;
use super::packet::{flag, Header, NONE};
use super::router::RouterCtx;
use rand::Rng;

impl super::state::Sim<'_> {
    /// A new packet queued at terminal `t`.
    pub(super) fn enqueue(&mut self, t: u32, dst: u32, flits: u16, msg: u32, flags: u8) {
        let hdr = Header {
            src: t,
            dst,
            origin: t,
            target: dst,
            flits,
            ..Header::default()
        };
        let p = self.pk.alloc(hdr, self.now, msg, flags);
        self.nic.source_q[t as usize].push(&mut self.pk.next, p);
        self.c.gen_packets += 1;
        self.c.gen_flits += u64::from(flits);
        if self.c.measuring {
            self.c.win_gen_flits += u64::from(flits);
        }
        if flags & flag::MEASURED != 0 {
            self.c.measured += 1;
            self.c.measured_outstanding += 1;
        }
    }

    /// Open loop: terminal `t` generates its messages for this cycle and
    /// schedules the next generation.
    pub(super) fn generate(&mut self, t: u32) {
        let Some(pattern) = self.pattern else {
            return;
        };
        let rate = self.p.message_rate;
        let ti = t as usize;
        let mut n = 1;
        if rate > 1.0 {
            let whole = rate.floor();
            n = whole as u64 + u64::from(self.nic.rng[ti].gen::<f64>() < rate - whole);
        }
        let flags = if self.c.measuring { flag::MEASURED } else { 0 };
        for _ in 0..n {
            let seq = self.nic.seq[ti];
            self.nic.seq[ti] += 1;
            let dst = pattern.destination(ti, seq, &mut self.nic.rng[ti]) as u32;
            if dst == t {
                continue;
            }
            for _ in 0..self.p.message_packets {
                self.enqueue(t, dst, self.p.packet_flits, NONE, flags);
            }
        }
        let gap = self.next_gap(ti);
        self.schedule(self.now + gap, Kind::Generate, t);
        self.nic_send(t);
    }

    /// Time to the next generation: a whole number of cycles, geometric
    /// (Bernoulli trials per cycle) below one message per cycle.
    pub(super) fn next_gap(&mut self, ti: usize) -> u64 {
        let rate = self.p.message_rate;
        let cycles = if rate >= 1.0 {
            1
        } else {
            let u: f64 = 1.0 - self.nic.rng[ti].gen::<f64>();
            1 + (u.ln() / (1.0 - rate).ln()).floor().min(1e15) as u64
        };
        cycles * self.p.cycle_ps
    }

    /// Terminal `t` sends what it can on its injection channel.
    pub(super) fn nic_send(&mut self, t: u32) {
        let ti = t as usize;
        let ch = self.nic.inj[ti];
        if ch == NONE {
            return;
        }
        let busy = self.links.busy[ch as usize];
        if busy > self.now {
            if self.nic.cur[ti] != NONE
                || self.nic.transit_q[ti].len > 0
                || self.nic.source_q[ti].len > 0
            {
                self.wake_output(ch, busy);
            }
            return;
        }
        self.links.drain(ch, self.now);
        if self.nic.cur[ti] == NONE {
            let next = {
                let (tq, sq) = (&mut self.nic.transit_q[ti], &mut self.nic.source_q[ti]);
                tq.pop(&self.pk.next).or_else(|| sq.pop(&self.pk.next))
            };
            let Some(p) = next else {
                return;
            };
            self.nic.cur[ti] = p;
            self.nic.cur_sent[ti] = 0;
            self.nic.cur_vc[ti] = u8::MAX;
            let sw = self.nic.switch[ti];
            if self.router.reads_view() {
                self.drain_switch(sw);
            }
            let router = self.router;
            let mut hdr = self.pk.hdr[p as usize];
            {
                let (a, b) = (
                    self.port_base[sw as usize] as usize,
                    self.port_base[sw as usize + 1] as usize,
                );
                let view = super::router::LocalView {
                    now: self.now,
                    vcs: self.p.vcs,
                    capacity: self.p.buf,
                    port_ch: &self.port_ch[a..b],
                    credits: &self.links.credits,
                    held: &self.links.held,
                    busy: &self.links.busy,
                };
                let mut ctx = RouterCtx {
                    rng: &mut self.nic.rng[ti],
                    counters: &mut self.counters,
                };
                router.source(&mut hdr, &view, &mut ctx);
            }
            self.pk.flags[p as usize] |= flag::SOURCED;
            self.pk.hdr[p as usize] = hdr;
        }
        let p = self.nic.cur[ti];
        let hdr = self.pk.hdr[p as usize];
        let v = self.p.vcs;
        if self.nic.cur_vc[ti] == u8::MAX {
            let need_mode = match self.p.switching {
                Switching::Wormhole => 1,
                _ => u32::from(hdr.flits),
            };
            self.cands.clear();
            self.router.inject(&hdr, v as u8, &mut self.cands);
            let mut best: Option<(u8, u8, u32)> = None; // (vc, priority, credits)
            let mut ties = 0u32;
            for k in 0..self.cands.items.len() {
                let c = self.cands.items[k];
                if usize::from(c.vc) >= v {
                    self.fault = Some(super::error::SimError::router(
                        self.router.name(),
                        format!("offered injection VC {} of {v}", c.vc),
                    ));
                    return;
                }
                let cr = self.links.credits[ch as usize * v + usize::from(c.vc)];
                if cr < c.need.max(need_mode) {
                    continue;
                }
                match best {
                    Some((_, bp, bc)) if c.priority == bp => match self.p.selection {
                        Selection::First => {}
                        Selection::MaxCredits => {
                            if cr > bc {
                                best = Some((c.vc, c.priority, cr));
                            }
                        }
                        Selection::Random => {
                            ties += 1;
                            if self.nic.rng[ti].gen_range(0..ties) == 0 {
                                best = Some((c.vc, c.priority, cr));
                            }
                        }
                    },
                    Some((_, bp, _)) if c.priority > bp => {}
                    _ => {
                        best = Some((c.vc, c.priority, cr));
                        ties = 1;
                    }
                }
            }
            let Some((vc, _, _)) = best else {
                if self.cands.is_empty() {
                    self.fault = Some(super::error::SimError::router(
                        self.router.name(),
                        format!("no injection VC for a packet of terminal {t}"),
                    ));
                    return;
                }
                self.need_credit(ch);
                return;
            };
            self.nic.cur_vc[ti] = vc;
            if self.pk.inject_ps[p as usize] == u64::MAX {
                self.pk.inject_ps[p as usize] = self.now;
                self.in_net += 1;
            }
        }
        let vc = self.nic.cur_vc[ti];
        if self.links.credits[ch as usize * v + usize::from(vc)] == 0 {
            self.need_credit(ch);
            return;
        }
        let idx = self.nic.cur_sent[ti];
        self.transmit(ch, vc, p, idx);
        self.nic.cur_sent[ti] = idx + 1;
        if idx + 1 == hdr.flits {
            self.nic.cur[ti] = NONE;
            if self.nic.transit_q[ti].len == 0 && self.nic.source_q[ti].len == 0 {
                return;
            }
        }
        self.wake_output(ch, self.links.busy[ch as usize]);
    }

    /// A flit reaches terminal `t`.
    pub(super) fn nic_receive(&mut self, t: u32, f: Flit) {
        self.c.sunk_flits += 1;
        self.last_progress = self.now;
        let p = f.pkt;
        let mut hdr = self.pk.hdr[p as usize];
        if f.idx + 1 < hdr.flits {
            return;
        }
        if hdr.target != t {
            self.fault = Some(super::error::SimError::router(
                self.router.name(),
                format!(
                    "a packet for terminal {} (from {}) was delivered to terminal {t}",
                    hdr.target, hdr.origin
                ),
            ));
            return;
        }
        let router = self.router;
        let mut ctx = RouterCtx {
            rng: &mut self.nic.rng[t as usize],
            counters: &mut self.counters,
        };
        if let Some(delay) = router.arrived(&mut hdr, &mut ctx) {
            hdr.origin = t;
            hdr.leg_hops = 0;
            self.pk.hdr[p as usize] = hdr;
            self.c.transits += 1;
            self.schedule(self.now + delay, Kind::Reinject, p);
            return;
        }
        self.pk.hdr[p as usize] = hdr;
        self.deliver(p);
    }

    /// Packet `p`, held in transit, joins its terminal's transit queue.
    pub(super) fn reinject(&mut self, p: u32) {
        let t = self.pk.hdr[p as usize].origin;
        self.c.reinjected_flits += u64::from(self.pk.hdr[p as usize].flits);
        self.nic.transit_q[t as usize].push(&mut self.pk.next, p);
        self.nic_send(t);
    }

    fn deliver(&mut self, p: u32) {
        let pi = p as usize;
        let hdr = self.pk.hdr[pi];
        let flits = u64::from(hdr.flits);
        self.in_net -= 1;
        self.c.delivered_packets += 1;
        self.c.delivered_flits += flits;
        let lat = self.now - self.pk.gen_ps[pi];
        if self.c.measuring {
            self.c.win_delivered_flits += flits;
        }
        self.c.period_flits += flits;
        self.c.period_lat_sum += u128::from(lat);
        self.c.period_n += 1;
        if self.pk.flags[pi] & flag::MEASURED != 0 {
            self.c.measured_outstanding -= 1;
            self.c.lat.record(lat);
            self.c.net_lat.record(self.now - self.pk.inject_ps[pi]);
            self.c.hops_sum += u64::from(hdr.hops);
            self.c.hops_max = self.c.hops_max.max(u32::from(hdr.hops));
        }
        let (msg, flags) = (self.pk.msg[pi], self.pk.flags[pi]);
        self.pk.release(p);
        if msg != NONE {
            self.closed_delivered(msg, flags, hdr.target);
        }
    }
}
