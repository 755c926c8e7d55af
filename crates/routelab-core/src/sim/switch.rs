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
//! when one of them releases a VC or receives credits. The packet then
//! holds that output VC until its tail has been sent.
//!
//! *Switch allocation* is per output port: when the port is idle it
//! serves, round robin over its VCs, the holders whose front flit is
//! present, has a credit, and whose input port is free. Sending a flit
//! occupies the output for one flit time on its channel and the input
//! port for that time divided by the crossbar speedup; the flit is usable
//! downstream after serialisation + latency + the next switch's routing
//! delay, and the freed slot is credited back upstream after the input
//! channel's latency. With one VC the packet behind a blocked head waits
//! however free its own output is: head-of-line blocking.

use super::config::{Selection, Switching};
use super::engine::Kind;
use super::link::{wrap, Flit};
use super::packet::NONE;
use super::router::{Candidate, Here, RouterCtx};
use crate::network::ChannelId;
use rand::Rng;

impl super::state::Sim<'_> {
    /// Credits the switching mode requires to allocate a VC to a packet.
    #[inline]
    fn mode_need(&self, flits: u16) -> u32 {
        match self.p.switching {
            Switching::Wormhole => 1,
            _ => u32::from(flits),
        }
    }

    /// A flit arrives on channel `c`.
    pub(super) fn arrive(&mut self, c: u32) {
        let f = self.links.pop_flit(c);
        let t = self.links.to_term[c as usize];
        if t != NONE {
            // A terminal consumes flits at once: its credit is back.
            self.links.credits[c as usize * self.p.vcs + usize::from(f.vc)] += 1;
            self.nic_receive(t, f);
            return;
        }
        let v = self.p.vcs as u32;
        let iv = c * v + u32::from(f.vc);
        let i = iv as usize;
        let b = self.p.buf;
        debug_assert!(self.ivc[i].len < b, "input buffer overflow");
        let slot = wrap(self.ivc[i].head + self.ivc[i].len, b);
        self.buf[i * b as usize + slot as usize] = f.pkt;
        self.ivc[i].len += 1;
        let a = self.ivc[i].alloc;
        if a != NONE {
            if self.ivc[i].len == 1 {
                self.serve_output(self.p.ch_of(a));
            }
        } else if self.ivc[i].len == 1 {
            self.try_route(iv);
        } else if self.p.switching == Switching::StoreAndForward && self.ivc[i].front_sent == 0 {
            // The front packet may just have become whole.
            let flits = self.pk.hdr[self.front(iv) as usize].flits;
            if self.ivc[i].len == u32::from(flits) {
                self.try_route(iv);
            }
        }
    }

    /// Whether buffer `iv`'s front is a head waiting for an output.
    #[inline]
    pub(super) fn needs_route(&self, iv: u32) -> bool {
        let i = iv as usize;
        self.ivc[i].len > 0 && self.ivc[i].alloc == NONE && self.ivc[i].front_sent == 0
    }

    #[inline]
    fn front(&self, iv: u32) -> u32 {
        let i = iv as usize;
        self.buf[i * self.p.buf as usize + self.ivc[i].head as usize]
    }

    /// Routes and allocates the head at the front of buffer `iv`.
    pub(super) fn try_route(&mut self, iv: u32) {
        if !self.needs_route(iv) {
            return;
        }
        let pkt = self.front(iv);
        let mut hdr = self.pk.hdr[pkt as usize];
        if self.p.switching == Switching::StoreAndForward
            && self.ivc[iv as usize].len < u32::from(hdr.flits)
        {
            return;
        }
        let v = self.p.vcs as u32;
        let ch = self.p.ch_of(iv);
        let (node, in_port) = {
            let c = self.net.channel(ChannelId(ch));
            (c.dst, c.dst_port)
        };
        let sw = self.net.kind_index(node);
        let here = Here {
            switch: node,
            switch_index: sw as u32,
            in_port,
            in_vc: self.p.vc_of(iv),
            now_ps: self.now,
        };
        if self.router.reads_view() {
            self.drain_switch(node.0);
        }
        self.cands.clear();
        {
            let router = self.router;
            let (a, b) = (
                self.port_base[node.index()] as usize,
                self.port_base[node.index() + 1] as usize,
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
                rng: &mut self.sw_rng[sw],
                counters: &mut self.counters,
            };
            router.route(&hdr, &here, &view, &mut ctx, &mut self.cands);
        }
        if self.cands.is_empty() {
            self.fault = Some(super::error::SimError::router(
                self.router.name(),
                format!(
                    "no route at switch {} for a packet from terminal {} to terminal {}",
                    self.net.node(node).name,
                    hdr.origin,
                    hdr.target
                ),
            ));
            return;
        }
        let base = self.port_base[node.index()] as usize;
        let need_mode = self.mode_need(hdr.flits);
        let mut best: Option<(Candidate, u32)> = None;
        let mut ties = 0u32;
        for k in 0..self.cands.items.len() {
            let cand = self.cands.items[k];
            let end = self.port_base[node.index() + 1] as usize;
            let och = usize::from(cand.port.0)
                .checked_sub(1)
                .filter(|p| base + p < end)
                .map_or(NONE, |p| self.port_ch[base + p]);
            if och == NONE || usize::from(cand.vc) >= self.p.vcs {
                self.fault = Some(super::error::SimError::router(
                    self.router.name(),
                    format!(
                        "offered port {} vc {} at switch {}, which has no such channel",
                        cand.port.0,
                        cand.vc,
                        self.net.node(node).name
                    ),
                ));
                return;
            }
            if self.links.credits_pending(och) {
                self.links.drain(och, self.now);
            }
            let oi = (och * v + u32::from(cand.vc)) as usize;
            let credits = self.links.credits[oi];
            if self.links.held[oi] != NONE || credits < cand.need.max(need_mode) {
                continue;
            }
            match best {
                None => {
                    best = Some((cand, credits));
                    ties = 1;
                }
                Some((b, _)) if cand.priority < b.priority => {
                    best = Some((cand, credits));
                    ties = 1;
                }
                Some((b, bc)) if cand.priority == b.priority => match self.p.selection {
                    Selection::First => {}
                    Selection::MaxCredits => {
                        if credits > bc {
                            best = Some((cand, credits));
                        }
                    }
                    Selection::Random => {
                        ties += 1;
                        if self.sw_rng[sw].gen_range(0..ties) == 0 {
                            best = Some((cand, credits));
                        }
                    }
                },
                _ => {}
            }
        }
        match best {
            Some((cand, _)) => {
                let och = self.port_ch[base + usize::from(cand.port.0) - 1];
                let oi = och * v + u32::from(cand.vc);
                self.links.held[oi as usize] = iv;
                self.ivc[iv as usize].alloc = oi;
                self.ivc[iv as usize].gen = self.ivc[iv as usize].gen.wrapping_add(1);
                let router = self.router;
                let mut ctx = RouterCtx {
                    rng: &mut self.sw_rng[sw],
                    counters: &mut self.counters,
                };
                router.forwarded(&mut hdr, &here, cand, ChannelId(och), &mut ctx);
                self.pk.hdr[pkt as usize] = hdr;
                self.serve_output(och);
            }
            None => {
                // Wait on every candidate port.
                for k in 0..self.cands.items.len() {
                    let port = self.cands.items[k].port;
                    let och = self.port_ch[base + usize::from(port.0) - 1];
                    if k > 0 && self.cands.items[..k].iter().any(|c| c.port == port) {
                        continue;
                    }
                    self.register_wait(och, iv);
                    self.arm(och);
                }
            }
        }
    }

    fn register_wait(&mut self, o: u32, iv: u32) {
        let ivc = &self.ivc;
        let w = &mut self.waiters[o as usize];
        w.retain(|&(x, g)| ivc[x as usize].gen == g);
        if !w.iter().any(|&(x, _)| x == iv) {
            w.push((iv, ivc[iv as usize].gen));
        }
    }

    /// Retries the heads waiting on output `o`, oldest first, while one of
    /// its VCs is free.
    pub(super) fn retry_waiters(&mut self, o: u32) {
        if self.waiters[o as usize].is_empty() {
            return;
        }
        let mut list = self.pool.pop().unwrap_or_default();
        std::mem::swap(&mut list, &mut self.waiters[o as usize]);
        let v = self.p.vcs as u32;
        let mut i = 0;
        while i < list.len() {
            let free = (o * v..(o + 1) * v).any(|oi| self.links.held[oi as usize] == NONE);
            if !free {
                break;
            }
            let (iv, g) = list[i];
            i += 1;
            if self.ivc[iv as usize].gen == g && self.needs_route(iv) {
                self.try_route(iv);
            }
        }
        for &(iv, g) in &list[i..] {
            if self.ivc[iv as usize].gen == g {
                self.waiters[o as usize].push((iv, g));
            }
        }
        list.clear();
        self.pool.push(list);
    }

    /// Makes sure output `o` will be looked at again if anything waits
    /// for it: when it stops transmitting, when credits arrive.
    pub(super) fn arm(&mut self, o: u32) {
        let v = self.p.vcs as u32;
        let waiting = !self.waiters[o as usize].is_empty();
        let (mut flits, mut credit) = (false, false);
        for oi in o * v..(o + 1) * v {
            let h = self.links.held[oi as usize];
            let cr = self.links.credits[oi as usize];
            if h != NONE {
                if self.ivc[h as usize].len > 0 {
                    flits = true;
                    credit |= cr == 0;
                }
            } else if waiting && cr < self.p.buf {
                credit = true;
            }
        }
        let busy = self.links.busy[o as usize];
        if flits && busy > self.now {
            self.wake_output(o, busy);
        }
        if credit {
            self.need_credit(o);
        }
    }

    /// An `Output` event at a switch's port: credits may have arrived or
    /// the port finished a flit.
    pub(super) fn output_ready(&mut self, o: u32) {
        self.links.drain(o, self.now);
        self.serve_output(o);
        let v = self.p.vcs as u32;
        if !self.waiters[o as usize].is_empty()
            && (o * v..(o + 1) * v).any(|oi| {
                self.links.held[oi as usize] == NONE && self.links.credits[oi as usize] > 0
            })
        {
            self.retry_waiters(o);
        }
        self.arm(o);
    }

    /// Switch allocation at output `o`.
    pub(super) fn serve_output(&mut self, o: u32) {
        let now = self.now;
        if self.links.busy[o as usize] > now {
            self.arm(o);
            return;
        }
        self.links.drain(o, now);
        let v = self.p.vcs as u32;
        let mut vc = u32::from(self.links.rr[o as usize]);
        for _ in 0..v {
            vc = wrap(vc + 1, v);
            let oi = o * v + vc;
            let h = self.links.held[oi as usize];
            if h == NONE || self.ivc[h as usize].len == 0 || self.links.credits[oi as usize] == 0 {
                continue;
            }
            let ich = self.p.ch_of(h);
            let ib = self.in_busy[ich as usize];
            if ib > now {
                self.wake_input(ich, ib);
                continue;
            }
            self.links.rr[o as usize] = vc as u8;
            self.send_from_buffer(h, o, vc);
            break;
        }
        self.arm(o);
    }

    /// Sends the front flit of buffer `h` on output `o`, VC `vc`.
    fn send_from_buffer(&mut self, h: u32, o: u32, vc: u32) {
        let v = self.p.vcs as u32;
        let hi = h as usize;
        let pkt = self.front(h);
        let idx = self.ivc[hi].front_sent;
        self.ivc[hi].head = wrap(self.ivc[hi].head + 1, self.p.buf);
        self.ivc[hi].len -= 1;
        // The slot is credited back to the sender of the input channel.
        let ich = self.p.ch_of(h);
        let at = self.now + self.links.lat_ps[ich as usize];
        if self.links.push_credit(ich, self.p.vc_of(h), at) {
            self.wake_output(ich, at);
        }
        let fp = self.links.flit_ps[o as usize];
        self.in_busy[ich as usize] = self.now + fp.div_ceil(self.p.speedup);
        self.transmit(o, vc as u8, pkt, idx);
        if idx + 1 == self.pk.hdr[pkt as usize].flits {
            self.ivc[hi].front_sent = 0;
            self.ivc[hi].alloc = NONE;
            self.links.held[(o * v + vc) as usize] = NONE;
            self.retry_waiters(o);
            self.try_route(h);
        } else {
            self.ivc[hi].front_sent = idx + 1;
        }
    }

    /// Puts flit `idx` of `pkt` on channel `o`, VC `vc` (switch or NIC).
    #[inline]
    pub(super) fn transmit(&mut self, o: u32, vc: u8, pkt: u32, idx: u16) {
        let oi = o as usize;
        self.links.credits[oi * self.p.vcs + usize::from(vc)] -= 1;
        let fp = self.links.flit_ps[oi];
        self.links.busy[oi] = self.now + fp;
        self.links.push_flit(o, Flit { pkt, idx, vc });
        let at = self.now + self.links.arrive_ps[oi];
        self.schedule(at, Kind::Arrive, o);
        if idx == 0 {
            let h = &mut self.pk.hdr[pkt as usize];
            h.hops += 1;
            h.leg_hops += 1;
        }
        self.flit_hops += 1;
        if self.c.measuring {
            self.util_ps[oi] += fp;
        }
        self.last_progress = self.now;
    }
}
