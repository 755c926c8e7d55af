//! Links: the only way components talk. A channel carries flits forward
//! and its credits back, each delivered after the channel's latency.
//!
//! Per channel (structure of arrays, indexed by [`crate::ChannelId`]):
//! the timing (flit serialisation, latency, and the delay until a flit
//! is usable at the receiver), the sender's side (busy until, credits and
//! the packet holding each VC) and two FIFO rings of timestamped messages
//! in flight: flits towards the receiver and credits towards the sender.
//! Sends on one channel are ordered in time and its latency is constant,
//! so each ring is ordered by arrival time; flits announce themselves
//! with an `Arrive` event, credits are read by the sender when it next
//! looks (or wake it if it waits for them).

use super::packet::NONE;

/// A flit in flight: its packet, its index in the packet and its VC.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) struct Flit {
    pub pkt: u32,
    pub idx: u16,
    pub vc: u8,
}

/// `i mod cap` for `i < 2 cap`, without a division.
#[inline]
pub(super) fn wrap(i: u32, cap: u32) -> u32 {
    if i >= cap {
        i - cap
    } else {
        i
    }
}

/// Credits a sender may hold for a terminal's input (never exhausted).
pub(super) const SINK_CREDITS: u32 = u32::MAX / 2;

#[derive(Debug)]
pub(super) struct Links {
    pub vcs: usize,
    /// Serialisation of one flit.
    pub flit_ps: Vec<u64>,
    pub lat_ps: Vec<u64>,
    /// From the start of a flit's transmission until the receiver can use
    /// it: serialisation + latency + the receiver's routing delay.
    pub arrive_ps: Vec<u64>,
    /// Terminal index of the receiver, or `NONE` for a switch.
    pub to_term: Vec<u32>,
    /// Terminal index of the sender, or `NONE` for a switch.
    pub from_term: Vec<u32>,
    /// Sender side.
    pub busy: Vec<u64>,
    pub credits: Vec<u32>,
    /// Input buffer (switch) holding each `(channel, vc)`, or `NONE`.
    pub held: Vec<u32>,
    /// The sender waits for credits that are not yet on their way.
    pub starved: Vec<bool>,
    /// Time of the earliest pending `Output` event, or `u64::MAX`.
    pub wake: Vec<u64>,
    /// Round-robin pointer over the VCs (switch allocation).
    pub rr: Vec<u8>,
    /// Flits in flight: a ring per channel in `fl`.
    fl_ring: Vec<Ring>,
    fl: Vec<Flit>,
    /// Credits in flight back to the sender: a ring per channel in
    /// `cr_time` and `cr_vc`.
    cr_ring: Vec<Ring>,
    cr_time: Vec<u64>,
    cr_vc: Vec<u8>,
}

/// A FIFO ring's place in a shared array: one cache line per visit.
#[derive(Debug, Clone, Copy, Default)]
struct Ring {
    base: u32,
    cap: u32,
    head: u32,
    len: u32,
}

impl Ring {
    /// Index of the slot after the last entry.
    #[inline]
    fn tail(&self) -> usize {
        (self.base + wrap(self.head + self.len, self.cap)) as usize
    }

    #[inline]
    fn front(&self) -> usize {
        (self.base + self.head) as usize
    }

    #[inline]
    fn advance(&mut self) {
        self.head = wrap(self.head + 1, self.cap);
        self.len -= 1;
    }
}

/// What the builder needs per channel.
pub(super) struct ChannelTiming {
    pub flit_ps: u64,
    pub lat_ps: u64,
    pub arrive_ps: u64,
    pub to_term: u32,
    pub from_term: u32,
    /// Most credits that can be in flight back at once (0 for a terminal).
    pub credit_ring: u32,
    /// Credits the sender starts with per VC.
    pub credits: u32,
}

impl Links {
    pub fn new(vcs: usize, timing: &[ChannelTiming]) -> Self {
        let n = timing.len();
        let mut l = Links {
            vcs,
            flit_ps: Vec::with_capacity(n),
            lat_ps: Vec::with_capacity(n),
            arrive_ps: Vec::with_capacity(n),
            to_term: Vec::with_capacity(n),
            from_term: Vec::with_capacity(n),
            busy: vec![0; n],
            credits: Vec::with_capacity(n * vcs),
            held: vec![NONE; n * vcs],
            starved: vec![false; n],
            wake: vec![u64::MAX; n],
            rr: vec![0; n],
            fl_ring: Vec::with_capacity(n),
            fl: Vec::new(),
            cr_ring: Vec::with_capacity(n),
            cr_time: Vec::new(),
            cr_vc: Vec::new(),
        };
        let (mut fb, mut cb) = (0u32, 0u32);
        for t in timing {
            l.flit_ps.push(t.flit_ps);
            l.lat_ps.push(t.lat_ps);
            l.arrive_ps.push(t.arrive_ps);
            l.to_term.push(t.to_term);
            l.from_term.push(t.from_term);
            l.credits.extend(std::iter::repeat_n(t.credits, vcs));
            // A sender transmits at most one flit per flit time.
            let cap = (t.arrive_ps / t.flit_ps.max(1) + 2) as u32;
            l.fl_ring.push(Ring {
                base: fb,
                cap,
                ..Ring::default()
            });
            fb += cap;
            l.cr_ring.push(Ring {
                base: cb,
                cap: t.credit_ring,
                ..Ring::default()
            });
            cb += t.credit_ring;
        }
        l.fl = vec![Flit::default(); fb as usize];
        l.cr_time = vec![0; cb as usize];
        l.cr_vc = vec![0; cb as usize];
        l
    }

    #[inline]
    pub fn push_flit(&mut self, c: u32, f: Flit) {
        let r = &mut self.fl_ring[c as usize];
        debug_assert!(r.len < r.cap, "flit ring overflow");
        self.fl[r.tail()] = f;
        r.len += 1;
    }

    #[inline]
    pub fn pop_flit(&mut self, c: u32) -> Flit {
        let r = &mut self.fl_ring[c as usize];
        debug_assert!(r.len > 0, "no flit in flight");
        let f = self.fl[r.front()];
        r.advance();
        f
    }

    /// Sends a credit for `vc` back to the sender of `c`, arriving at `at`.
    /// Returns true if the sender was starved and must be woken at `at`.
    #[inline]
    pub fn push_credit(&mut self, c: u32, vc: u8, at: u64) -> bool {
        let r = &mut self.cr_ring[c as usize];
        debug_assert!(r.len < r.cap, "credit ring overflow");
        let i = r.tail();
        r.len += 1;
        self.cr_time[i] = at;
        self.cr_vc[i] = vc;
        std::mem::take(&mut self.starved[c as usize])
    }

    /// Whether credits of `c` are on their way back.
    #[inline]
    pub fn credits_pending(&self, c: u32) -> bool {
        self.cr_ring[c as usize].len > 0
    }

    /// Applies the credits of `c` that have arrived by `now`; true if any.
    #[inline]
    pub fn drain(&mut self, c: u32, now: u64) -> bool {
        let r = &mut self.cr_ring[c as usize];
        let mut any = false;
        while r.len > 0 {
            let i = r.front();
            if self.cr_time[i] > now {
                break;
            }
            self.credits[c as usize * self.vcs + usize::from(self.cr_vc[i])] += 1;
            r.advance();
            any = true;
        }
        any
    }

    /// Arrival time of the next credit of `c`, if one is on its way.
    #[inline]
    pub fn next_credit(&self, c: u32) -> Option<u64> {
        let r = &self.cr_ring[c as usize];
        (r.len > 0).then(|| self.cr_time[r.front()])
    }

    /// Flits in flight on all channels (for accounting).
    pub fn flits_in_flight(&self) -> u64 {
        self.fl_ring.iter().map(|r| u64::from(r.len)).sum()
    }
}
