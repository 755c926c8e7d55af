//! Terminals (NICs): a generator, an unbounded source queue, the
//! injection link, the ejection link and a sink.
//!
//! A NIC injects one packet at a time, flit by flit at its injection
//! channel's rate, on a VC the router allows and that has credits (one
//! per flit; the whole packet first for cut-through and
//! store-and-forward), and, with `traffic.injection_limit`, starts a
//! packet of `F` flits no sooner than `F / limit` after the previous one.
//! The sink consumes flits as they arrive, so a terminal never holds a
//! channel while it waits: a packet is delivered when its tail arrives,
//! and an open-loop message when its last packet is.
//!
//! In-transit packets (flich2000 §3): when the head of a packet reaches
//! a terminal that is not its destination, the router decides
//! ([`HopRouter::arrived`]) to keep it in transit. The NIC stores it
//! whole (its in-transit buffer, `nic.transit_buffer`, or host memory
//! with `nic.spill_delay` more when that is full), and after the router's
//! delay plus `nic.transit_delay` it queues the packet ahead of its own
//! traffic. Re-injection may begin before the tail has arrived (virtual
//! cut-through at the NIC) but never sends a flit not yet received.

use super::config::Switching;
use super::engine::Kind;
use super::error::SimError;
use super::packet::{flag, Header, NONE};
use super::state::{prefetch, View};
use crate::routing::adaptive::{dispatch, select, AnyRouter, HopRouter, RouterCtx};
use rand::Rng;

impl<'a> super::state::Sim<'a> {
    /// A new packet queued at terminal `t`.
    pub(super) fn enqueue(&mut self, t: u32, dst: u32, flits: u16, msg: u32, flags: u8) {
        if self.packets_queued() >= self.p.max_packets {
            self.too_many_packets();
            return;
        }
        let p = self
            .pk
            .alloc(fresh_header(t, dst, flits), self.now, msg, flags);
        self.nic[t as usize].source_q.push(&mut self.pk.next, p);
        self.count_generated(t, flits, flags, 1);
    }

    /// A new message of `m` packets queued at terminal `t`: its first
    /// packet's records now, the others' when the one before leaves the
    /// source queue. A message waits in its source queue for as long as
    /// the backlog ahead of it takes, and records written that long before
    /// they are read are cache misses; the message table holds its count.
    fn enqueue_message(&mut self, t: u32, dst: u32, m: u32, flags: u8) {
        let room = self.p.max_packets.saturating_sub(self.packets_queued());
        if room < u64::from(m) {
            // The packets the run had room for, as when every packet was
            // recorded at once.
            if room > 0 {
                let msg = self.msgs.alloc(m);
                self.queue_first(t, dst, msg, room as u32, flags);
            }
            self.too_many_packets();
            return;
        }
        let msg = self.msgs.alloc(m);
        self.queue_first(t, dst, msg, m, flags);
    }

    /// The first of `n` packets of message `msg` queued at terminal `t`,
    /// the other `n - 1` counted as generated and left to create.
    fn queue_first(&mut self, t: u32, dst: u32, msg: u32, n: u32, flags: u8) {
        let flits = self.p.packet_flits;
        let p = self
            .pk
            .alloc(fresh_header(t, dst, flits), self.now, msg, flags);
        self.nic[t as usize].source_q.push(&mut self.pk.next, p);
        self.msgs.unborn[msg as usize] = n - 1;
        self.unborn += u64::from(n - 1);
        self.count_generated(t, flits, flags, n);
    }

    /// Packet `p`, just popped from terminal `t`'s source queue: the next
    /// packet of its message, if any is left to create, takes its place at
    /// the queue's head.
    #[inline]
    fn queue_sibling(&mut self, t: usize, p: u32) {
        let meta = self.pk.meta[p as usize];
        if meta.flags & flag::MESSAGE == 0 || !self.msgs.numbers.owns(meta.msg) {
            return;
        }
        let unborn = &mut self.msgs.unborn[meta.msg as usize];
        if *unborn == 0 {
            return;
        }
        *unborn -= 1;
        self.unborn -= 1;
        let h = self.pk.hdr[p as usize];
        let hdr = fresh_header(h.src, h.dst, h.flits);
        let flags = meta.flags & (flag::MEASURED | flag::MESSAGE);
        let q = self.pk.alloc(hdr, meta.gen_ps, meta.msg, flags);
        self.nic[t].source_q.push_front(&mut self.pk.next, q);
    }

    /// Packets recorded or waiting in a message to be (the bound of
    /// `run.max_packets`).
    fn packets_queued(&self) -> u64 {
        self.pk.alive() + self.unborn
    }

    /// Generation counters for `n` packets of `flits` flits at terminal `t`.
    fn count_generated(&mut self, t: u32, flits: u16, flags: u8, n: u32) {
        let (n, all) = (u64::from(n), u64::from(n) * u64::from(flits));
        self.c.gen_packets += n;
        self.c.gen_flits += all;
        if self.c.measuring {
            self.c.win_gen_flits += all;
            self.c.win_src_gen[t as usize] += all;
        }
        if flags & flag::MEASURED != 0 {
            self.c.measured += n;
            self.c.measured_outstanding = self.c.measured_outstanding.wrapping_add(n);
        }
    }

    /// Fails the run: the packet records would outgrow `run.max_packets`.
    #[cold]
    fn too_many_packets(&mut self) {
        let packets = self.packets_queued();
        let per_packet = self.pk.bytes_per_packet() as u64;
        self.fail(SimError::TooManyPackets {
            packets,
            mb: packets * per_packet / 1_000_000,
            time_ns: self.now / 1000,
        });
    }

    /// Open loop: terminal `t` generates its messages for this cycle and
    /// schedules the next generation.
    pub(super) fn generate(&mut self, t: u32) {
        let Some(pattern) = self.pattern else {
            return;
        };
        if self.injection_stopped {
            return;
        }
        let rate = self.p.message_rate;
        let ti = t as usize;
        let mut n = 1;
        if self.p.periodic {
            // Messages due by the end of this generation's cycle.
            let k = self.nic[ti].gens;
            self.nic[ti].gens += 1;
            if rate > 1.0 {
                n = ((k + 1) as f64 * rate).floor() as u64 - (k as f64 * rate).floor() as u64;
            }
        } else if rate > 1.0 {
            let whole = rate.floor();
            n = whole as u64 + u64::from(self.nic_rng[ti].gen::<f64>() < rate - whole);
        }
        let flags = if self.c.measuring { flag::MEASURED } else { 0 };
        let m = self.p.message_packets;
        for _ in 0..n {
            let seq = self.nic[ti].seq;
            self.nic[ti].seq += 1;
            let dst = pattern.destination(ti, seq, &mut self.nic_rng[ti]) as u32;
            if dst == t {
                continue;
            }
            if m == 1 {
                self.enqueue(t, dst, self.p.packet_flits, NONE, flags);
            } else {
                self.enqueue_message(t, dst, m, flags | flag::MESSAGE);
            }
        }
        let next = if self.p.periodic {
            self.periodic_time(ti, self.nic[ti].gens)
        } else {
            self.now + self.next_gap(ti)
        };
        self.schedule(next, Kind::Generate, t);
        self.nic_send(t);
    }

    /// Open loop: the time of terminal `t`'s first generation.
    pub(super) fn first_generation(&mut self, t: usize) -> u64 {
        if !self.p.periodic {
            return self.next_gap(t);
        }
        let period = self.period_ps();
        self.nic[t].phase_ps = if self.p.lockstep {
            0
        } else {
            (self.nic_rng[t].gen::<f64>() * period) as u64
        };
        self.periodic_time(t, 0)
    }

    /// Periodic arrivals: picoseconds between generations (one cycle when
    /// several messages are due per cycle).
    fn period_ps(&self) -> f64 {
        self.p.cycle_ps as f64 / self.p.message_rate.min(1.0)
    }

    /// Periodic arrivals: the time of terminal `t`'s `k`-th generation,
    /// never before now.
    fn periodic_time(&self, t: usize, k: u64) -> u64 {
        let at = self.nic[t].phase_ps as f64 + k as f64 * self.period_ps();
        (at.min(u64::MAX as f64 / 2.0) as u64).max(self.now)
    }

    /// Time to the next generation: a whole number of cycles, geometric
    /// (Bernoulli trials per cycle) below one message per cycle.
    pub(super) fn next_gap(&mut self, ti: usize) -> u64 {
        let rate = self.p.message_rate;
        let cycles = if rate >= 1.0 {
            1
        } else {
            let u: f64 = 1.0 - self.nic_rng[ti].gen::<f64>();
            if self.log_idle.1 != rate {
                self.log_idle = ((1.0 - rate).ln(), rate);
            }
            // A non-negative ratio: the cast truncates as `floor` would.
            1 + (u.ln() / self.log_idle.0).min(1e15) as u64
        };
        cycles * self.p.cycle_ps
    }

    /// Terminal `t` sends what it can on its injection channel.
    pub(super) fn nic_send(&mut self, t: u32) {
        let router: &'a AnyRouter = self.router;
        dispatch!(router, r => self.nic_send_with(r, t));
    }

    /// [`Self::nic_send`] compiled for one router type.
    fn nic_send_with<R: HopRouter + ?Sized>(&mut self, router: &R, t: u32) {
        let ti = t as usize;
        let n = self.nic[ti];
        let ch = n.inj;
        if ch == NONE {
            return;
        }
        let busy = self.ch[ch as usize].busy;
        if busy > self.now {
            if n.cur != NONE || n.transit_q.len > 0 || n.source_q.len > 0 {
                self.wake_output(ch, busy);
            }
            return;
        }
        if n.cur == NONE {
            if n.transit_q.len == 0 && n.source_q.len == 0 {
                return;
            }
            if n.next_start > self.now {
                self.wake_output(ch, n.next_start);
                return;
            }
            let (next, transit) = {
                let nic = &mut self.nic[ti];
                let (tq, sq) = (&mut nic.transit_q, &mut nic.source_q);
                let fresh = !self.injection_stopped;
                match tq.pop(&self.pk.next) {
                    Some(p) => (Some(p), true),
                    None => (fresh.then(|| sq.pop(&self.pk.next)).flatten(), false),
                }
            };
            let Some(p) = next else {
                return;
            };
            if !transit {
                self.queue_sibling(ti, p);
            }
            // The records of the packet queued behind it, written when it
            // was generated and read when it is popped in turn.
            let q = {
                let nic = &self.nic[ti];
                if transit {
                    nic.transit_q.head
                } else {
                    nic.source_q.head
                }
            };
            if q != NONE {
                let q = q as usize;
                prefetch(&self.pk.next, q);
                prefetch(&self.pk.hdr, q);
                prefetch(&self.pk.meta, q);
            }
            // Read now: the next in-transit host decides afresh for itself.
            let spilled = self.pk.meta[p as usize].flags & flag::SPILLED != 0;
            let nic = &mut self.nic[ti];
            nic.cur = p;
            nic.cur_transit = transit;
            nic.cur_buffered = transit && !spilled;
            nic.cur_sent = 0;
            nic.cur_vc = u8::MAX;
            nic.cur_stopped = false;
            let sw = nic.switch;
            let mut hdr = self.pk.hdr[p as usize];
            {
                let ports = self.out_ports(sw);
                let view = View {
                    now: self.now,
                    vcs: self.p.vcs,
                    vshift: self.p.vshift,
                    capacity: self.p.buf,
                    port_ch: &self.port_ch[ports],
                    vc: &self.vc,
                    ch: &self.ch,
                    waiters: &self.waiters,
                };
                let w = self.nic_words;
                let mut ctx = RouterCtx::new(&mut self.nic_rng[ti], &mut self.counters)
                    .at_nic(&mut self.nic_state[ti * w..(ti + 1) * w]);
                router.source(&mut hdr, &view, &mut ctx);
            }
            self.pk.meta[p as usize].flags |= flag::SOURCED;
            self.pk.hdr[p as usize] = hdr;
        }
        let p = self.nic[ti].cur;
        let hdr = self.pk.hdr[p as usize];
        if self.nic[ti].cur_vc == u8::MAX {
            let need_mode = match self.p.switching {
                Switching::Wormhole => 1,
                _ => u32::from(hdr.flits),
            };
            // Injection VCs are never held: the lane's VCs are picked as
            // at a switch.
            let now = self.now;
            if let Some(vc) = router
                .inject_lane(&hdr)
                .and_then(|(lane, lanes)| self.pick_vc(ch, lane, lanes.max(1), need_mode, now))
            {
                self.nic[ti].cur_vc = vc;
            } else {
                self.nic_pick_vc(router, t, &hdr, need_mode);
                if self.nic[ti].cur_vc == u8::MAX {
                    self.nic_stopped(router, ti, &hdr);
                    return;
                }
            }
            let meta = &mut self.pk.meta[p as usize];
            if meta.inject_ps == u64::MAX {
                meta.inject_ps = self.now;
                self.in_net = self.in_net.wrapping_add(1);
            }
        }
        let idx = self.nic[ti].cur_sent;
        if self.nic[ti].cur_transit && !self.received(ti, p, idx) {
            // The flit's arrival sends it on.
            return;
        }
        let vc = self.nic[ti].cur_vc;
        if self.vc[self.p.iv(ch, u32::from(vc)) as usize].credits_at(self.now) == 0 {
            // The next credit on the channel tries again.
            self.wake_on_return(ch, 1 << vc);
            self.nic_stopped(router, ti, &hdr);
            return;
        }
        if idx == 0 && self.p.inject_ps_per_flit > 0.0 {
            let gap = (f64::from(hdr.flits) * self.p.inject_ps_per_flit).ceil() as u64;
            self.nic[ti].next_start = self.now + gap;
        }
        self.transmit_with(router, ch, vc, p, idx);
        let nic = &mut self.nic[ti];
        nic.cur_sent = idx + 1;
        if idx + 1 == hdr.flits {
            nic.cur = NONE;
            if nic.cur_buffered {
                nic.transit_flits -= u64::from(hdr.flits);
            }
            if nic.transit_q.len == 0 && nic.source_q.len == 0 {
                return;
            }
        }
        let next = self.ch[ch as usize].busy;
        self.wake_output(ch, next);
    }

    /// Flow control stopped terminal `ti`'s current packet: the router
    /// hears of it once per packet.
    fn nic_stopped<R: HopRouter + ?Sized>(&mut self, router: &R, ti: usize, hdr: &Header) {
        if self.nic[ti].cur_stopped || self.fault.is_some() {
            return;
        }
        self.nic[ti].cur_stopped = true;
        let w = self.nic_words;
        let mut ctx = RouterCtx::new(&mut self.nic_rng[ti], &mut self.counters)
            .at_nic(&mut self.nic_state[ti * w..(ti + 1) * w]);
        router.stopped(hdr, self.now, &mut ctx);
    }

    /// VC allocation on terminal `t`'s injection channel through the
    /// router's candidates: sets `cur_vc`, or leaves it unset and waits
    /// for credits (or fails the run).
    fn nic_pick_vc<R: HopRouter + ?Sized>(
        &mut self,
        router: &R,
        t: u32,
        hdr: &Header,
        need_mode: u32,
    ) {
        let ti = t as usize;
        let ch = self.nic[ti].inj;
        let v = self.p.vcs;
        self.cands.clear();
        router.inject(hdr, v as u8, &mut self.cands);
        let mut bad = None;
        let now = self.now;
        let chosen = {
            let ovc = &self.vc[(ch as usize) << self.p.vshift..][..v];
            select(
                self.p.selection,
                self.cands.as_slice(),
                self.p.buf,
                |c| {
                    let Some(o) = ovc.get(usize::from(c.vc)) else {
                        bad.get_or_insert(c.vc);
                        return None;
                    };
                    let credits = o.credits_at(now);
                    (credits >= c.need.max(need_mode)).then_some(credits)
                },
                &mut self.nic_rng[ti],
            )
        };
        if let Some(vc) = bad {
            self.fail(SimError::router(
                self.router.name(),
                format!("offered injection VC {vc} of {v}"),
            ));
            return;
        }
        let Some((k, _)) = chosen else {
            if self.cands.is_empty() {
                self.fail(SimError::router(
                    router.name(),
                    format!("no injection VC for a packet of terminal {t}"),
                ));
                return;
            }
            // The next credit on the channel tries again.
            self.wake_on_return(ch, u64::MAX >> (64 - v));
            return;
        };
        self.nic[ti].cur_vc = self.cands.as_slice()[k].vc;
    }

    /// The flit `idx` of packet `p` reaches terminal `t`.
    pub(super) fn nic_receive<R: HopRouter + ?Sized>(
        &mut self,
        router: &R,
        t: u32,
        p: u32,
        idx: u16,
    ) {
        self.c.sunk_flits += 1;
        self.last_progress = self.now;
        let ti = t as usize;
        if idx == 0 {
            if self.head_arrived(router, t, p) {
                return;
            }
        } else if !self.transit_rx[ti].is_empty() {
            if let Some(k) = self.transit_rx[ti].iter().position(|e| e.0 == p) {
                self.transit_rx[ti][k].1 = idx + 1;
                if idx + 1 == self.pk.hdr[p as usize].flits {
                    self.transit_rx[ti].swap_remove(k);
                }
                if self.nic[ti].cur == p {
                    self.nic_send(t);
                }
                return;
            }
        }
        if idx + 1 == self.pk.hdr[p as usize].flits && self.fault.is_none() {
            self.deliver(p);
        }
    }

    /// The head of `p` reached terminal `t`: checks that it is the leg's
    /// target and asks the router whether it stays in transit. Returns
    /// true when it does (the NIC now holds it).
    fn head_arrived<R: HopRouter + ?Sized>(&mut self, router: &R, t: u32, p: u32) -> bool {
        let ti = t as usize;
        let mut hdr = self.pk.hdr[p as usize];
        if hdr.target != t {
            self.fail(SimError::router(
                self.router.name(),
                format!(
                    "a packet for terminal {} (from {}) was delivered to terminal {t}",
                    hdr.target, hdr.origin
                ),
            ));
            return true;
        }
        let w = self.nic_words;
        let mut ctx = RouterCtx::new(&mut self.nic_rng[ti], &mut self.counters)
            .at_nic(&mut self.nic_state[ti * w..(ti + 1) * w]);
        let Some(delay) = router.arrived(&mut hdr, &mut ctx) else {
            return false;
        };
        hdr.origin = t;
        hdr.leg_hops = 0;
        let flits = u64::from(hdr.flits);
        self.pk.hdr[p as usize] = hdr;
        self.c.transits += 1;
        let nic = &mut self.nic[ti];
        let mut at = self.now + delay + self.p.transit_delay_ps;
        if nic.transit_flits + flits > self.p.transit_buffer_flits {
            self.pk.meta[p as usize].flags |= flag::SPILLED;
            self.transit_spills += 1;
            at += self.p.spill_delay_ps;
        } else {
            self.pk.meta[p as usize].flags &= !flag::SPILLED;
            nic.transit_flits += flits;
            self.transit_peak = self.transit_peak.max(nic.transit_flits);
        }
        if flits > 1 {
            self.transit_rx[ti].push((p, 1));
        }
        self.schedule(at, Kind::Reinject, p);
        true
    }

    /// Whether flit `idx` of in-transit packet `p` has reached terminal `ti`.
    #[inline]
    fn received(&self, ti: usize, p: u32, idx: u16) -> bool {
        match self.transit_rx[ti].iter().find(|e| e.0 == p) {
            Some(&(_, got)) => idx < got,
            None => true,
        }
    }

    /// Packet `p`, held in transit, joins its terminal's transit queue.
    pub(super) fn reinject(&mut self, p: u32) {
        let t = self.pk.hdr[p as usize].origin;
        self.c.reinjected_flits += u64::from(self.pk.hdr[p as usize].flits);
        self.nic[t as usize].transit_q.push(&mut self.pk.next, p);
        self.nic_send(t);
    }

    fn deliver(&mut self, p: u32) {
        let pi = p as usize;
        let hdr = self.pk.hdr[pi];
        let meta = self.pk.meta[pi];
        let flits = u64::from(hdr.flits);
        // A parallel run's parts count packets in where they enter and
        // out where they leave: each part's count wraps, their sum does not.
        self.in_net = self.in_net.wrapping_sub(1);
        self.c.delivered_packets += 1;
        self.c.delivered_flits += flits;
        let lat = self.now - meta.gen_ps;
        if self.c.measuring {
            self.c.win_delivered_flits += flits;
            self.c.win_src_delivered[hdr.src as usize] += flits;
        }
        self.c.period_flits += flits;
        self.c.period_lat_sum += u128::from(lat);
        self.c.period_n += 1;
        let measured = meta.flags & flag::MEASURED != 0;
        if measured {
            self.c.measured_outstanding = self.c.measured_outstanding.wrapping_sub(1);
            self.c.lat.record(lat);
            self.c.net_lat.record(self.now - meta.inject_ps);
            self.c.hops_sum += u64::from(hdr.hops);
            self.c.hops_max = self.c.hops_max.max(u32::from(hdr.hops));
        }
        if self.pk.numbers.owns(p) {
            self.pk.release(p);
        } else {
            self.post_release(p);
        }
        if meta.flags & flag::MESSAGE != 0 {
            if !self.msgs.numbers.owns(meta.msg) {
                self.post_message_delivery(meta.msg, lat, measured);
            } else if self.msgs.delivered(meta.msg) && measured {
                self.c.msg_lat.record(lat);
            }
        } else if meta.msg != NONE {
            self.closed_delivered(meta.msg, meta.flags, hdr.target);
        } else if measured {
            self.c.msg_lat.record(lat);
        }
    }
}

/// A packet's header as its source queues it.
#[inline]
fn fresh_header(src: u32, dst: u32, flits: u16) -> Header {
    Header {
        src,
        dst,
        origin: src,
        target: dst,
        flits,
        ..Header::default()
    }
}
