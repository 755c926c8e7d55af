//! Switches: input-queued, one FIFO buffer per input port and VC.
//!
//! A flit enters an input buffer `routing_delay` after its last bit
//! arrives (the arrival event is scheduled that late; see
//! [`super::link`]). When a packet's head reaches the front of its
//! buffer (and, for store-and-forward, the whole packet is there) the
//! router gives candidates; *VC allocation* takes an available one (the
//! output VC not held by another packet and enough credits: one flit for
//! wormhole, the whole packet for cut-through and store-and-forward, or
//! what the router asks) chosen by the selection policy. A head that
//! finds none waits on every candidate port and is retried, oldest first,
//! when one of them releases a VC or receives credits (on the candidates
//! it was given, if the router's do not change while it waits:
//! [`HopRouter::fixed_candidates`]; such a head is retried on a port only
//! when one of its candidates there is free with the credits it needs,
//! and otherwise keeps its place in that port's list). The packet then
//! holds that output VC until its tail has been sent.
//!
//! *Switch allocation* (the greedy allocator) is per output port: when the
//! port is idle it serves, round robin over its VCs, the holders whose
//! front flit is present, has a credit, and whose input port is free.
//! The other allocators match inputs to outputs in rounds instead
//! ([`super::rounds`]). Sending a flit
//! occupies the output for one flit time on its channel and the input
//! port for that time divided by the crossbar speedup; the flit is usable
//! downstream after serialisation + latency + the next switch's routing
//! delay, and the freed slot is credited back upstream after the input
//! channel's latency. With one VC the packet behind a blocked head waits
//! however free its own output is: head-of-line blocking.
//!
//! Lookahead routing: when a router decides without candidates
//! ([`HopRouter::direct`]), a head's decision at the next switch is made
//! as it leaves this one (its header does not change on the way) and
//! travels in its `Arrive` event, so the output records it will read are
//! fetched before it arrives. A head reaching an empty buffer with such a
//! decision is allocated its VC at once, and (under the greedy allocator)
//! a lone one-flit packet whose output is idle with no VC held leaves at
//! once without entering the buffer: the same outcomes as the steps
//! above, in fewer of them.
//!
//! Under stop & go the receiver counts the flits that have physically
//! entered each buffer (routing pipeline included) and sends stop or go
//! upstream when that count crosses the thresholds.

use super::config::{Allocator, Selection, Switching};
use super::engine::{Ahead, Event, Kind};
use super::error::SimError;
use super::link::{
    wrap, FROM_TERM, NO_RETURN, SINK_CREDITS, TAG_CREDIT, TAG_GO, TAG_STOP, TO_TERM,
};
use super::packet::NONE;
use super::state::{View, Waiter, NO_TURN};
use crate::network::{ChannelId, NodeId, PortId};
use crate::routing::adaptive::{dispatch, select, AnyRouter, Here, HopRouter, RouterCtx};

impl<'a> super::state::Sim<'a> {
    /// Credits the switching mode requires to allocate a VC to a packet.
    #[inline]
    fn mode_need(&self, flits: u16) -> u32 {
        match self.p.switching {
            Switching::Wormhole => 1,
            _ => u32::from(flits),
        }
    }

    /// How long sending a flit of `fp` ps occupies the crossbar input.
    #[inline(always)]
    fn input_hold(&self, fp: u64) -> u64 {
        if self.p.speedup == 1 {
            fp
        } else {
            fp.div_ceil(self.p.speedup)
        }
    }

    /// `route_at_front`: the tail of a packet has left buffer `iv`; the
    /// next head there starts the routing pipeline now, and leaves no
    /// earlier than the returned time.
    #[inline]
    fn tail_left(&mut self, iv: u32) -> u64 {
        let at = self.now + self.p.routing_delay_ps;
        self.front_ready[iv as usize] = at;
        at
    }

    /// [`Self::tail_left`], and the next head's turn scheduled if one
    /// waits (out of line: the default pipeline never comes here).
    #[cold]
    #[inline(never)]
    fn tail_left_with_queue(&mut self, iv: u32) {
        let at = self.tail_left(iv);
        if self.vc[iv as usize].len > 0 {
            self.q.push(Event::new(at, Kind::Route, iv));
        }
    }

    /// `route_at_front`: a head reached buffer `iv` before its turn in the
    /// pipeline (`ready`); it waits there.
    #[cold]
    #[inline(never)]
    fn queue_behind_pipeline(&mut self, iv: u32, pkt: u32, ready: u64) {
        self.buf_push(iv, pkt);
        self.q.push(Event::new(ready, Kind::Route, iv));
    }

    /// Appends a flit of `pkt` to buffer `iv`.
    #[inline]
    fn buf_push(&mut self, iv: u32, pkt: u32) {
        let i = iv as usize;
        let cap = self.p.buf - 1;
        let b = &mut self.vc[i];
        debug_assert!(u32::from(b.len) <= cap, "input buffer overflow");
        if b.len == 0 {
            b.front = pkt;
        } else {
            let slot = wrap(u32::from(b.head) + u32::from(b.len) - 1, cap);
            self.slots[i * cap as usize + slot as usize] = pkt;
        }
        b.len += 1;
    }

    /// Removes the front flit of buffer `iv`; returns its packet.
    #[inline]
    fn buf_pop(&mut self, iv: u32) -> u32 {
        let i = iv as usize;
        let cap = self.p.buf - 1;
        let b = &mut self.vc[i];
        let p = b.front;
        b.len -= 1;
        if b.len > 0 {
            let front = self.slots[i * cap as usize + b.head as usize];
            b.front = front;
            b.head = wrap(u32::from(b.head) + 1, cap) as u16;
            // A new head is routed next, and its header has been cold
            // since it arrived behind the others.
            super::state::prefetch(&self.pk.hdr, front as usize);
        }
        p
    }

    /// A flit becomes usable at the receiver of channel `ev.obj`.
    #[inline(always)]
    pub(super) fn arrive(&mut self, ev: Event) {
        let router: &'a AnyRouter = self.router;
        dispatch!(router, r => self.arrive_with(r, ev));
    }

    /// [`Self::arrive`] compiled for one router type.
    fn arrive_with<R: HopRouter + ?Sized>(&mut self, router: &R, ev: Event) {
        let c = ev.obj;
        // Counted by the sender: in a parallel run, another part's.
        self.in_flight = self.in_flight.wrapping_sub(1);
        let iv = self.p.iv(c, u32::from(ev.vc));
        let k = &self.ch[c as usize];
        if k.kind == TO_TERM {
            // A terminal consumes flits at once: its credit is back.
            let t = k.term;
            // Across parts the sender counts it back itself (`post_flit`).
            if !self.p.stop_go && !k.cross {
                self.vc[iv as usize].credits += 1;
            }
            self.nic_receive(router, t, ev.pkt, ev.idx);
            return;
        }
        {
            let b = &self.vc[iv as usize];
            if b.len == 0 && b.alloc == NONE {
                // A head that followed the last packet through this VC
                // too closely waits for its turn in the pipeline.
                let ready = if self.p.route_at_front {
                    self.front_ready[iv as usize]
                } else {
                    0
                };
                if ready > self.now {
                    self.queue_behind_pipeline(iv, ev.pkt, ready);
                    return;
                }
                if self.head_direct(router, c, ev.vc, ev.pkt, iv, ev.next) {
                    return;
                }
            }
        }
        self.buf_push(iv, ev.pkt);
        let b = &self.vc[iv as usize];
        if b.alloc != NONE {
            if b.len == 1 {
                self.serve_output_with(router, self.p.ch_of(b.alloc));
            }
        } else if b.len == 1 {
            self.try_route_with(router, iv);
        } else if self.p.switching == Switching::StoreAndForward && b.front_sent == 0 {
            // The front packet may just have become whole.
            if b.len == self.pk.hdr[b.front as usize].flits {
                self.try_route_with(router, iv);
            }
        }
    }

    /// A head arriving at an empty buffer with its next hop decided
    /// ([`Ahead`]): VC allocation as [`Self::try_route`] would do it; a
    /// lone one-flit packet on an idle output with no VC held and a free
    /// input port also leaves at once (switch allocation could only grant
    /// it). Returns false, having changed nothing, when there is no
    /// decision or no VC is available (the general path then waits).
    #[inline(always)]
    fn head_direct<R: HopRouter + ?Sized>(
        &mut self,
        router: &R,
        c: u32,
        ivc: u8,
        pkt: u32,
        iv: u32,
        next: Ahead,
    ) -> bool {
        let och = next.out;
        if och == NONE {
            return false;
        }
        let now = self.now;
        let flits = self.pk.hdr[pkt as usize].flits;
        if flits > 1 && self.p.switching == Switching::StoreAndForward {
            // Not whole yet.
            return false;
        }
        let need = self.mode_need(flits);
        let Some(vc) = self.pick_vc(och, next.lane, next.lanes, need, now) else {
            return false;
        };
        let in_busy = self.ch[c as usize].in_busy;
        let (out_held, out_busy, fp) = {
            let out = &self.ch[och as usize];
            (out.held, out.busy, u64::from(out.flit_ps))
        };
        self.vc[iv as usize].gen = self.vc[iv as usize].gen.wrapping_add(1);
        let h = &mut self.pk.hdr[pkt as usize];
        h.state = next.state;
        if flits == 1 && out_held == 0 && out_busy <= now && in_busy <= now && self.p.lone_leaves {
            self.ch[och as usize].rr = vc;
            self.ch[c as usize].in_busy = now + self.input_hold(fp);
            if self.p.route_at_front {
                self.tail_left(iv);
            }
            self.return_credit(c, ivc);
            self.transmit_with(router, och, vc, pkt, 0);
            self.retry_waiters(och);
            return true;
        }
        // The head holds the VC and waits in the buffer for the output.
        self.buf_push(iv, pkt);
        let oi = self.p.iv(och, u32::from(vc));
        self.vc[oi as usize].held = iv;
        self.ch[och as usize].held |= 1 << vc;
        self.vc[iv as usize].alloc = oi;
        if flits > 1 {
            self.front_flits[iv as usize] = flits;
        }
        self.serve_output_with(router, och);
        true
    }

    /// Of the VCs `lane`, `lane + lanes`, ... of output `o`, the one the
    /// selection policy takes for a head that needs `need` credits, among
    /// those not held (`None` when none is available, or under random
    /// selection: left to `select`).
    #[inline(always)]
    pub(super) fn pick_vc(&self, o: u32, lane: u8, lanes: u8, need: u32, now: u64) -> Option<u8> {
        let vcs = self.p.vcs as u8;
        let recs = &self.vc[(o << self.p.vshift) as usize..][..self.p.vcs];
        let free = |v: u8| {
            let r = &recs[usize::from(v)];
            let credits = r.credits_at(now);
            (r.held == NONE && credits >= need).then_some(credits)
        };
        let mut v = lane;
        match self.p.selection {
            Selection::First => {
                while v < vcs {
                    if free(v).is_some() {
                        return Some(v);
                    }
                    v += lanes;
                }
                None
            }
            Selection::MaxCredits => {
                let mut best: Option<(u8, u32)> = None;
                while v < vcs {
                    if let Some(cr) = free(v) {
                        if best.is_none_or(|(_, b)| cr > b) {
                            best = Some((v, cr));
                            if cr >= self.p.buf {
                                break;
                            }
                        }
                    }
                    v += lanes;
                }
                best.map(|(v, _)| v)
            }
            Selection::Random => None,
        }
    }

    /// A flow-control message for `(c, vc)` reaches the sender.
    pub(super) fn credit(&mut self, c: u32, vc: u8, tag: u16) {
        let now = self.now;
        let r = &mut self.vc[self.p.iv(c, u32::from(vc)) as usize];
        let was = r.credits_at(now);
        match tag {
            TAG_CREDIT => r.credits += 1,
            TAG_STOP => {
                r.credits = 0;
                return;
            }
            _ => r.credits = SINK_CREDITS,
        }
        let k = &self.ch[c as usize];
        if k.kind == FROM_TERM {
            let t = k.term;
            let n = &self.nic[t as usize];
            let blocked = was == 0 || n.cur_vc == u8::MAX;
            if blocked && (n.cur != NONE || n.source_q.len > 0 || n.transit_q.len > 0) {
                self.nic_send(t);
            }
        } else if (was == 0 && k.held & 1 << vc != 0) || k.waiting {
            self.output_ready(c);
        }
    }

    /// Stop & go: a flit physically enters buffer `(c, vc)`.
    pub(super) fn enter(&mut self, c: u32, vc: u8) {
        let iv = self.p.iv(c, u32::from(vc)) as usize;
        self.sg_occ[iv] += 1;
        if self.sg_occ[iv] > self.p.buf {
            self.fail(SimError::router(
                self.router.name(),
                format!(
                    "internal: stop & go buffer overflow at {:?}",
                    self.describe_buffer(iv as u32)
                ),
            ));
            return;
        }
        if self.sg_occ[iv] > self.p.stop_at && !self.sg_stopped[iv] {
            self.sg_stopped[iv] = true;
            self.c.stops += 1;
            self.send_back(c, vc, TAG_STOP);
        }
        self.c.occupancy_max = self.c.occupancy_max.max(self.sg_occ[iv]);
    }

    /// Whether buffer `iv`'s front is a head waiting for an output.
    #[inline]
    pub(super) fn needs_route(&self, iv: u32) -> bool {
        let b = &self.vc[iv as usize];
        b.len > 0
            && b.alloc == NONE
            && b.front_sent == 0
            && (!self.p.route_at_front || self.front_ready[iv as usize] <= self.now)
    }

    /// Routes and allocates the head at the front of buffer `iv`.
    #[inline]
    pub(super) fn try_route(&mut self, iv: u32) {
        if !self.needs_route(iv) {
            return;
        }
        let router: &'a AnyRouter = self.router;
        dispatch!(router, r => self.route_with(r, iv));
    }

    /// [`Self::try_route`] compiled for one router type.
    #[inline(always)]
    fn try_route_with<R: HopRouter + ?Sized>(&mut self, router: &R, iv: u32) {
        if self.needs_route(iv) {
            self.route_with(router, iv);
        }
    }

    /// [`Self::try_route`] compiled for one router type: its calls are
    /// static and inlined, and what it does not read is not built.
    fn route_with<R: HopRouter + ?Sized>(&mut self, router: &R, iv: u32) {
        let (pkt, len, gen) = {
            let b = &self.vc[iv as usize];
            (b.front, b.len, b.gen)
        };
        // A waiting head of a router with fixed candidates is retried on
        // those it was given, without its header (a cache miss) until it
        // goes; it was whole when it was given them.
        let held = self.held.get(iv, gen).map(|h| h.flits);
        let flits = match held {
            Some(flits) => flits,
            None => {
                let flits = self.pk.hdr[pkt as usize].flits;
                if self.p.switching == Switching::StoreAndForward && len < flits {
                    return;
                }
                flits
            }
        };
        if self.p.routing_unit_ps > 0 && !self.unit_turn_now(iv) {
            return;
        }
        let (v, vshift, cap) = (self.p.vcs as u32, self.p.vshift, self.p.buf);
        let ch = self.p.ch_of(iv);
        let (swi, in_port) = {
            let k = &self.ch[ch as usize];
            (k.rx_sw, k.in_port)
        };
        let node = self.switches[swi as usize].node;
        let ports = self.out_ports(swi);
        let sw = swi as usize;
        let here = Here {
            switch: NodeId(node),
            switch_index: swi,
            in_port: PortId(in_port),
            in_vc: self.p.vc_of(iv),
            vcs: v as u8,
            now_ps: self.now,
        };
        if held.is_some() {
            self.held.take_into(iv, &mut self.cands);
        } else {
            self.cands.clear();
            let view = View {
                now: self.now,
                vcs: self.p.vcs,
                vshift,
                capacity: cap,
                port_ch: &self.port_ch[ports.clone()],
                vc: &self.vc,
                ch: &self.ch,
                waiters: &self.waiters,
            };
            let mut ctx = RouterCtx::new(&mut self.sw_rng[sw], &mut self.counters);
            let hdr = self.pk.hdr[pkt as usize];
            router.route(&hdr, &here, &view, &mut ctx, &mut self.cands);
        }
        if self.cands.is_empty() {
            let hdr = self.pk.hdr[pkt as usize];
            self.fail(SimError::router(
                router.name(),
                format!(
                    "no route at switch {} for a packet from terminal {} to terminal {}",
                    self.net.node(NodeId(node)).name,
                    hdr.origin,
                    hdr.target
                ),
            ));
            return;
        }
        let need_mode = self.mode_need(flits);
        let now = self.now;
        let port_ch = &self.port_ch[ports.clone()];
        let mut bad = None;
        let chosen = {
            let vcs = &self.vc;
            select(
                self.p.selection,
                self.cands.as_slice(),
                cap,
                |cand| {
                    let och = match port_ch.get(usize::from(cand.port.0).wrapping_sub(1)) {
                        Some(&o) if o != NONE && u32::from(cand.vc) < v => o,
                        _ => {
                            bad.get_or_insert(*cand);
                            return None;
                        }
                    };
                    let o = &vcs[(och << vshift | u32::from(cand.vc)) as usize];
                    let credits = o.credits_at(now);
                    (o.held == NONE && credits >= cand.need.max(need_mode)).then_some(credits)
                },
                &mut self.sw_rng[sw],
            )
        };
        if let Some(cand) = bad {
            self.fail(SimError::router(
                router.name(),
                format!(
                    "offered port {} vc {} at switch {}, which has no such channel",
                    cand.port.0,
                    cand.vc,
                    self.net.node(NodeId(node)).name
                ),
            ));
            return;
        }
        let Some((k, _)) = chosen else {
            if self.p.routing_unit_ps > 0 {
                // A head the unit could not route waits for its next turn.
                self.book_turn(iv);
                self.hold_cands(iv, flits);
                return;
            }
            // Wait on every candidate port: held candidates are retried
            // only when one of their VCs there is free.
            let base = ports.start;
            let fixed = self.held.is_on();
            for k in 0..self.cands.len() {
                let cands = self.cands.as_slice();
                let port = cands[k].port;
                if cands[..k].iter().any(|c| c.port == port) {
                    continue;
                }
                let (vcs, need) = if fixed {
                    cands[k..]
                        .iter()
                        .filter(|c| c.port == port)
                        .fold((0u64, u32::MAX), |(m, n), c| {
                            (m | 1 << c.vc, n.min(c.need.max(need_mode)))
                        })
                } else {
                    (u64::MAX, 0)
                };
                let och = self.port_ch[base + usize::from(port.0) - 1];
                let need = need.min(u32::from(u16::MAX)) as u16;
                self.register_wait(och, iv, vcs, need);
            }
            self.hold_cands(iv, flits);
            return;
        };
        let cand = self.cands.as_slice()[k];
        let och = port_ch[usize::from(cand.port.0) - 1];
        let mut hdr = self.pk.hdr[pkt as usize];
        if flits == 1 && len == 1 && self.p.lone_leaves {
            let out = &self.ch[och as usize];
            if out.held == 0 && out.busy <= now && self.ch[ch as usize].in_busy <= now {
                // What allocation and switch allocation do at once for a
                // lone one-flit packet on an idle output with no other VC
                // held (selection saw its credit): it leaves now.
                let b = &mut self.vc[iv as usize];
                b.gen = b.gen.wrapping_add(1);
                b.len = 0;
                if self.p.route_at_front {
                    self.tail_left(iv);
                }
                let mut ctx = RouterCtx::new(&mut self.sw_rng[sw], &mut self.counters);
                router.forwarded(&mut hdr, &here, cand, ChannelId(och), &mut ctx);
                self.pk.hdr[pkt as usize] = hdr;
                let out = &mut self.ch[och as usize];
                out.rr = cand.vc;
                let fp = u64::from(out.flit_ps);
                let hold = self.input_hold(fp);
                self.ch[ch as usize].in_busy = now + hold;
                self.return_credit(ch, here.in_vc);
                self.transmit_with(router, och, cand.vc, pkt, 0);
                self.retry_waiters(och);
                return;
            }
        }
        let oi = self.p.iv(och, u32::from(cand.vc));
        self.vc[oi as usize].held = iv;
        self.ch[och as usize].held |= 1 << cand.vc;
        let b = &mut self.vc[iv as usize];
        b.alloc = oi;
        b.gen = b.gen.wrapping_add(1);
        if flits > 1 {
            self.front_flits[iv as usize] = flits;
        }
        let mut ctx = RouterCtx::new(&mut self.sw_rng[sw], &mut self.counters);
        router.forwarded(&mut hdr, &here, cand, ChannelId(och), &mut ctx);
        self.pk.hdr[pkt as usize] = hdr;
        self.serve_output_with(router, och);
    }

    /// Keeps the candidates of the head at the front of `iv`, which could
    /// not go, for its retries (under a router with fixed candidates);
    /// the scratch list takes the place they leave.
    #[inline]
    fn hold_cands(&mut self, iv: u32, flits: u16) {
        let gen = self.vc[iv as usize].gen;
        self.held.hold(iv, gen, flits, &mut self.cands);
    }

    /// `routing_unit_time`: whether the head at the front of `iv` has the
    /// switch's routing unit now. A head without a turn takes the unit if
    /// it is free, and otherwise the next turn after those given already.
    #[cold]
    #[inline(never)]
    fn unit_turn_now(&mut self, iv: u32) -> bool {
        let now = self.now;
        let turn = self.unit_turn[iv as usize];
        if turn != NO_TURN {
            if turn > now {
                return false;
            }
            self.unit_turn[iv as usize] = NO_TURN;
            return true;
        }
        !self.book_turn(iv)
    }

    /// `routing_unit_time`: gives the head at the front of `iv` the next
    /// free turn on its switch's unit; returns whether that turn is later
    /// than now (its `Route` event then comes at that time).
    fn book_turn(&mut self, iv: u32) -> bool {
        let now = self.now;
        let sw = self.ch[self.p.ch_of(iv) as usize].rx_sw as usize;
        let free = self.unit_free[sw];
        self.unit_free[sw] = free.max(now) + self.p.routing_unit_ps;
        if free <= now {
            return false;
        }
        self.unit_turn[iv as usize] = free;
        self.q.push(Event::new(free, Kind::Route, iv));
        true
    }

    fn register_wait(&mut self, o: u32, iv: u32, vcs: u64, need: u16) {
        let vc = &self.vc;
        let entry = Waiter {
            buf: iv,
            gen: vc[iv as usize].gen,
            need,
            vcs,
        };
        let w = &mut self.waiters[o as usize];
        if !w.iter().any(|x| x.same(&entry)) {
            // Entries of heads served since are stale (and skipped): swept
            // when a head joins, not each time one waits again.
            w.retain(|x| vc[x.buf as usize].gen == x.gen);
            w.push(entry);
            self.waits_registered += 1;
        }
        let k = &mut self.ch[o as usize];
        k.waiting = true;
        // Credits on their way to a free VC will retry it.
        let free = !k.held & self.all_vcs();
        self.wake_on_return(o, free);
    }

    /// Bits of every VC of a port.
    #[inline]
    fn all_vcs(&self) -> u64 {
        u64::MAX >> (64 - self.p.vcs)
    }

    /// Retries the heads waiting on output `o`, oldest first, while one of
    /// its VCs is free.
    #[inline(always)]
    pub(super) fn retry_waiters(&mut self, o: u32) {
        if self.ch[o as usize].waiting {
            self.retry_some(o);
        }
    }

    #[inline(never)]
    fn retry_some(&mut self, o: u32) {
        let mut list = self.pool.pop().unwrap_or_default();
        std::mem::swap(&mut list, &mut self.waiters[o as usize]);
        self.ch[o as usize].waiting = false;
        let all = self.all_vcs();
        let registered = self.waits_registered;
        let mut i = 0;
        while i < list.len() {
            if self.ch[o as usize].held == all {
                break;
            }
            let e = list[i];
            i += 1;
            if self.vc[e.buf as usize].gen == e.gen && self.needs_route(e.buf) {
                if !self.may_have_room(o, &e) || !self.port_may_take(o, e.buf) {
                    // It waits on, in its place: output `o` cannot take it.
                    self.waiters[o as usize].push(e);
                    continue;
                }
                self.try_route(e.buf);
            }
        }
        for e in &list[i..] {
            if self.vc[e.buf as usize].gen == e.gen {
                self.waiters[o as usize].push(*e);
            }
        }
        // A head that reached the front of a buffer served in this pass
        // registered while the list was out, ahead of the heads that were
        // already waiting: it queues behind them, or the buffer served
        // first would be served first again with its next packet, and
        // the rest never. With no registration since the pass began,
        // every entry is one of the list's, already in its order.
        let w = &mut self.waiters[o as usize];
        if w.len() > 1 && self.waits_registered != registered {
            w.sort_by_key(|e| !list.iter().any(|x| x.same(e)));
        }
        self.ch[o as usize].waiting = !w.is_empty();
        list.clear();
        self.pool.push(list);
    }

    /// Whether one of the VCs of output `o` that waiter `e` may take is
    /// free with the credits it needs: what `port_may_take` asks first,
    /// read off the output's own records.
    #[inline]
    fn may_have_room(&self, o: u32, e: &Waiter) -> bool {
        let mut free = !self.ch[o as usize].held & e.vcs & self.all_vcs();
        while free != 0 {
            let v = free.trailing_zeros();
            free &= free - 1;
            if self.vc[self.p.iv(o, v) as usize].credits_at(self.now) >= u32::from(e.need) {
                return true;
            }
        }
        false
    }

    /// Whether output `o` could take the head at the front of `iv` now: one
    /// of the candidates it holds on `o` is free with the credits it
    /// needs (true when it holds none).
    fn port_may_take(&self, o: u32, iv: u32) -> bool {
        let Some(h) = self.held.get(iv, self.vc[iv as usize].gen) else {
            return true;
        };
        let sw = self.ch[self.p.ch_of(iv) as usize].rx_sw;
        let base = self.out_ports(sw).start;
        let need_mode = self.mode_need(h.flits);
        h.cands.as_slice().iter().any(|c| {
            self.port_ch
                .get(base + usize::from(c.port.0).wrapping_sub(1))
                == Some(&o)
                && {
                    let x = &self.vc[self.p.iv(o, u32::from(c.vc)) as usize];
                    x.held == NONE && x.credits_at(self.now) >= c.need.max(need_mode)
                }
        })
    }

    /// After a send: if another flit may go on output `o` once it is free,
    /// wake it then. (Flits short of credits are woken by the credits.)
    #[inline]
    pub(super) fn arm(&mut self, o: u32) {
        let k = &self.ch[o as usize];
        if k.held == 0 || k.busy <= self.now {
            return;
        }
        // A wake pending by then covers it (`wake_output` would keep that
        // one): no need to read the held VCs' records.
        if super::state::pending_by(k.wake, self.now, k.busy) {
            return;
        }
        let (busy, mut b) = (k.busy, k.held);
        while b != 0 {
            let x = &self.vc[self.p.iv(o, b.trailing_zeros()) as usize];
            b &= b - 1;
            if x.credits_at(self.now) > 0 && self.vc[x.held as usize].len > 0 {
                self.wake_output(o, busy);
                return;
            }
        }
    }

    /// An `Output` event at a switch's port, or credits it may have
    /// waited for: serve it, then the heads waiting for a VC if one is
    /// free and has credits.
    pub(super) fn output_ready(&mut self, o: u32) {
        self.serve_output(o);
        let oi = o as usize;
        if self.ch[oi].waiting {
            let mut b = !self.ch[oi].held & self.all_vcs();
            let mut free = false;
            while b != 0 {
                free |= self.vc[self.p.iv(o, b.trailing_zeros()) as usize].credits_at(self.now) > 0;
                b &= b - 1;
            }
            if free {
                self.retry_waiters(o);
            }
        }
    }

    /// Switch allocation at output `o`: round robin over its held VCs
    /// from the one after the last served.
    pub(super) fn serve_output(&mut self, o: u32) {
        let router: &'a AnyRouter = self.router;
        dispatch!(router, r => self.serve_output_with(r, o));
    }

    /// [`Self::serve_output`] compiled for one router type.
    fn serve_output_with<R: HopRouter + ?Sized>(&mut self, router: &R, o: u32) {
        let now = self.now;
        let k = &self.ch[o as usize];
        if k.busy > now {
            self.arm(o);
            return;
        }
        let held = k.held;
        if held == 0 {
            return;
        }
        if self.p.allocator != Allocator::Greedy {
            if self.rounds.matched != o {
                self.request_round(self.rounds.tx_sw[o as usize]);
                return;
            }
            // The match of a round: sent below, and nothing else (what
            // the send sets off at other outputs waits for a round).
            self.rounds.matched = NONE;
        }
        let start = wrap(u32::from(k.rr) + 1, self.p.vcs as u32);
        let above = held & (u64::MAX << start);
        for mut b in [above, held & !(u64::MAX << start)] {
            while b != 0 {
                let vc = b.trailing_zeros();
                b &= b - 1;
                let x = &self.vc[self.p.iv(o, vc) as usize];
                let h = x.held;
                if x.credits_at(now) == 0 || self.vc[h as usize].len == 0 {
                    continue;
                }
                let ich = self.p.ch_of(h);
                let ib = self.ch[ich as usize].in_busy;
                if ib > now {
                    self.wake_input(ich, ib);
                    continue;
                }
                self.ch[o as usize].rr = vc as u8;
                self.send_from_buffer(router, h, o, vc);
                self.arm(o);
                return;
            }
        }
    }

    /// Sends on output `o` the flit of its VC `vc` that a round matched
    /// ([`super::rounds`]): switch allocation served from that VC on.
    pub(super) fn serve_matched(&mut self, o: u32, vc: u32) {
        let vcs = self.p.vcs as u32;
        self.ch[o as usize].rr = ((vc + vcs - 1) % vcs) as u8;
        self.rounds.matched = o;
        self.serve_output(o);
        debug_assert!(
            self.rounds.matched == NONE && self.ch[o as usize].rr == vc as u8,
            "a round's match at output {o} VC {vc} was not sent"
        );
    }

    /// Sends the front flit of buffer `h` on output `o`, VC `vc`.
    #[inline(always)]
    fn send_from_buffer<R: HopRouter + ?Sized>(&mut self, router: &R, h: u32, o: u32, vc: u32) {
        let idx = self.vc[h as usize].front_sent;
        let pkt = self.buf_pop(h);
        // The slot is credited back to the sender of the input channel.
        let ich = self.p.ch_of(h);
        let ivc = self.p.vc_of(h);
        if !self.p.stop_go {
            self.return_credit(ich, ivc);
        } else {
            let occ = &mut self.sg_occ[h as usize];
            *occ -= 1;
            if *occ < self.p.go_at && self.sg_stopped[h as usize] {
                self.sg_stopped[h as usize] = false;
                self.send_back(ich, ivc, TAG_GO);
            }
        }
        let fp = u64::from(self.ch[o as usize].flit_ps);
        self.ch[ich as usize].in_busy = self.now + self.input_hold(fp);
        self.transmit_with(router, o, vc as u8, pkt, idx);
        // The head's header is in the caches (`transmit_with` counted its
        // hop); a body flit's length is the buffer's.
        let tail = if idx == 0 {
            self.pk.hdr[pkt as usize].flits == 1
        } else {
            idx + 1 == self.front_flits[h as usize]
        };
        debug_assert_eq!(tail, idx + 1 == self.pk.hdr[pkt as usize].flits);
        if tail {
            let b = &mut self.vc[h as usize];
            b.front_sent = 0;
            b.alloc = NONE;
            self.vc[self.p.iv(o, vc) as usize].held = NONE;
            self.ch[o as usize].held &= !(1 << vc);
            self.retry_waiters(o);
            if self.p.route_at_front {
                self.tail_left_with_queue(h);
            } else if self.vc[h as usize].len > 0 {
                self.try_route_with(router, h);
            }
        } else {
            self.vc[h as usize].front_sent = idx + 1;
        }
    }

    /// Puts flit `idx` of `pkt` on channel `o`, VC `vc` (switch or NIC),
    /// counting the hop of a head in its header and deciding its next hop
    /// when the router can ([`Self::lookahead`]).
    #[inline(always)]
    pub(super) fn transmit_with<R: HopRouter + ?Sized>(
        &mut self,
        router: &R,
        o: u32,
        vc: u8,
        pkt: u32,
        idx: u16,
    ) {
        let mut next = Ahead::NONE;
        if idx == 0 {
            let h = &mut self.pk.hdr[pkt as usize];
            h.hops += 1;
            h.leg_hops += 1;
            next = self.lookahead(router, o, pkt);
        }
        self.send_flit(o, vc, pkt, idx, next);
    }

    /// The direct decision of the head of `pkt`, leaving on `o`, at the
    /// switch `o` leads to (lookahead routing: the header will not change
    /// on the way).
    #[inline(always)]
    fn lookahead<R: HopRouter + ?Sized>(&self, router: &R, o: u32, pkt: u32) -> Ahead {
        let k = &self.ch[o as usize];
        // Under stop & go or a shared routing unit the head's decision
        // waits for flow control or for its turn.
        if k.kind == TO_TERM || self.p.stop_go || self.p.routing_unit_ps > 0 {
            return Ahead::NONE;
        }
        let sw = k.rx_sw;
        let Some(d) = router.direct(&self.pk.hdr[pkt as usize], sw) else {
            return Ahead::NONE;
        };
        // A port the switch lacks finds `NONE`: no decision, and the
        // general path reports the router's mistake.
        let slot = usize::from(d.port.0).wrapping_sub(1);
        if slot >= self.port_stride {
            return Ahead::NONE;
        }
        Ahead {
            out: self.port_ch[sw as usize * self.port_stride + slot],
            state: d.state,
            lane: d.lane,
            lanes: d.lanes.max(1),
        }
    }

    /// [`Self::transmit_with`] without the header, `next` decided.
    #[inline(always)]
    fn send_flit(&mut self, o: u32, vc: u8, pkt: u32, idx: u16, next: Ahead) {
        let now = self.now;
        if !self.p.stop_go {
            let r = &mut self.vc[self.p.iv(o, u32::from(vc)) as usize];
            r.settle(now);
            r.credits -= 1;
            if r.credits == 0 && r.returns_at != NO_RETURN {
                // Whatever waits for the next credit is woken by it.
                let at = r.returns_at;
                self.wake_output(o, at);
            }
        }
        let k = &mut self.ch[o as usize];
        let fp = u64::from(k.flit_ps);
        k.busy = now + fp;
        let reach = now + fp + u64::from(k.lat_ps);
        let to_switch = k.kind != TO_TERM;
        let cross = k.cross;
        if !to_switch {
            // Delivery reads the packet's bookkeeping, untouched since it
            // was injected: fetched while the flit crosses the link.
            super::state::prefetch(&self.pk.meta, pkt as usize);
        }
        if self.c.measuring {
            self.util[o as usize] += fp;
        }
        // Built once and whole: the queue copies it in wide moves.
        let delay = if to_switch {
            self.p.routing_delay_ps
        } else {
            0
        };
        let arrive = Event {
            time: reach + delay,
            obj: o,
            pkt,
            idx,
            vc,
            kind: Kind::Arrive,
            next,
        };
        // Stop & go: the flit enters the receiver's buffer on arrival,
        // before the routing pipeline.
        let enter = |arrive: Event| Event {
            time: reach,
            kind: Kind::Enter,
            next: Ahead::NONE,
            ..arrive
        };
        let stop_go = to_switch && self.p.stop_go;
        if cross {
            // Delivered to the part of the receiver.
            self.post_flit(stop_go.then(|| enter(arrive)), arrive, to_switch);
        } else {
            if stop_go {
                self.q.push(enter(arrive));
            }
            self.q.push(arrive);
        }
        self.in_flight = self.in_flight.wrapping_add(1);
        self.flit_hops += 1;
        self.last_progress = now;
    }
}
