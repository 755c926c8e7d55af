//! The event queue: small `Copy` events in integer picoseconds, delivered
//! in (time, insertion) order by a calendar queue.
//!
//! Events are 32-byte `Copy` values. Buckets of `2^shift` picoseconds form a ring; an event goes into the
//! bucket of its time, appended, so every bucket is in insertion order.
//! When the clock reaches a bucket, its events of the current lap move to
//! a batch that is put in (time, insertion) order (left as it is when
//! already ordered, else by sorting keys of time and position); an event scheduled
//! into the batch's own bucket is inserted after every batched event of
//! the same or an earlier time. Push and pop are O(1) amortised, nothing
//! is allocated once the buckets have grown, and the order is a pure
//! function of the pushes, so runs are repeatable bit for bit.

use super::packet::NONE;

/// What an event asks a component to do.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[repr(u8)]
pub(super) enum Kind {
    /// Flit (`pkt`, `idx`, `vc`) on channel `obj` becomes usable at the
    /// receiver.
    #[default]
    Arrive,
    /// The sender of channel `obj` may act: its port is free again or
    /// credits it waited for have arrived.
    Output,
    /// The input port where channel `obj` arrives may read again.
    Input,
    /// Terminal `obj` generates traffic.
    Generate,
    /// Packet `obj`, held at a terminal in transit, is re-injected.
    Reinject,
    /// Stop & go: a flit of VC `vc` on channel `obj` physically enters the
    /// receiver's buffer (before the routing pipeline).
    Enter,
    /// A flow-control message for VC `vc` of channel `obj` reaches the
    /// sender: a credit, stop or go (`idx`).
    Credit,
    /// The head at the front of input buffer `obj` has been through the
    /// routing pipeline (`route_at_front`).
    Route,
    /// Switch allocation in rounds at switch `obj`: a round (`idx` 1), or
    /// a call for one after the events already due now (`idx` 0).
    Allocate,
}

/// One event: 32 bytes. A flit in flight travels inside its `Arrive`
/// event, so links keep no per-flit state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Event {
    pub time: u64,
    pub obj: u32,
    /// `Arrive`: the packet of the flit.
    pub pkt: u32,
    /// `Arrive`: the flit's index in its packet; `Credit`: its tag.
    pub idx: u16,
    /// `Arrive`, `Enter`, `Credit`: the VC.
    pub vc: u8,
    pub kind: Kind,
    /// `Arrive` of a head at a switch: its next hop there, decided when
    /// it left the previous one (lookahead routing).
    pub next: Ahead,
}

/// The direct decision ([`crate::routing::adaptive::HopRouter::direct`])
/// of a head at the switch it travels to, made one hop early so that the
/// records it will read can be fetched before it arrives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Ahead {
    /// Output channel, or `NONE`: no decision (ask the router on arrival).
    pub out: u32,
    /// `hdr.state` once forwarded.
    pub state: u32,
    /// First VC offered; the others are `lanes` apart.
    pub lane: u8,
    pub lanes: u8,
}

impl Ahead {
    pub const NONE: Ahead = Ahead {
        out: NONE,
        state: 0,
        lane: 0,
        lanes: 1,
    };
}

impl Default for Event {
    fn default() -> Self {
        Event {
            time: 0,
            obj: 0,
            pkt: 0,
            idx: 0,
            vc: 0,
            kind: Kind::default(),
            next: Ahead::NONE,
        }
    }
}

impl Event {
    #[inline]
    pub fn new(time: u64, kind: Kind, obj: u32) -> Self {
        Event {
            time,
            obj,
            kind,
            ..Event::default()
        }
    }
}

/// Events per block of a bucket's list.
const BLOCK: usize = 64;
const NO_BLOCK: u32 = u32::MAX;

/// One ring slot: a list of blocks in the shared pool.
#[derive(Debug, Clone, Copy)]
struct Bucket {
    head: u32,
    tail: u32,
    /// Events in the tail block.
    tail_len: u32,
    /// It may hold events of a later lap.
    far: bool,
}

const EMPTY: Bucket = Bucket {
    head: NO_BLOCK,
    tail: NO_BLOCK,
    tail_len: 0,
    far: false,
};

/// The calendar queue. See the module docs.
///
/// A bucket is a list of fixed-size blocks taken from one pool, so memory
/// follows the events waiting (plus one partly filled block per bucket),
/// however they spread over the ring, and nothing is copied as buckets
/// grow; a bucket is copied once into the batch when the clock reaches it.
#[derive(Debug)]
pub(super) struct Calendar {
    shift: u32,
    mask: u64,
    buckets: Vec<Bucket>,
    blocks: Vec<[Event; BLOCK]>,
    /// Next block of each block's list.
    next: Vec<u32>,
    free: Vec<u32>,
    /// The bucket number (time >> shift) of `batch`.
    cur: u64,
    batch: Vec<Event>,
    pos: usize,
    /// Events in `buckets` (not counting the batch).
    len: usize,
    /// Scratch of [`Self::sort_batch`]: sort keys, their radix passes,
    /// and the sorted batch.
    keys: Vec<u64>,
    scratch: Vec<u64>,
    spare: Vec<Event>,
}

impl Calendar {
    /// A queue whose buckets are `2^shift` ps wide, `2^log_buckets` of them.
    pub fn new(shift: u32, log_buckets: u32) -> Self {
        let n = 1usize << log_buckets;
        Calendar {
            shift,
            mask: n as u64 - 1,
            buckets: vec![EMPTY; n],
            blocks: Vec::new(),
            next: Vec::new(),
            free: Vec::new(),
            cur: 0,
            batch: Vec::new(),
            pos: 0,
            len: 0,
            keys: Vec::new(),
            scratch: Vec::new(),
            spare: Vec::new(),
        }
    }

    /// Bucket sizes suited to delays between `min_delay` and `max_delay` ps.
    pub fn for_delays(min_delay: u64, max_delay: u64) -> Self {
        let min_delay = min_delay.max(1);
        // Widest power of two not above the smallest delay.
        let shift = 63 - min_delay.leading_zeros();
        let span = (max_delay.max(min_delay) >> shift) + 1;
        let log_buckets = (64 - (2 * span).leading_zeros()).clamp(6, 16);
        Calendar::new(shift, log_buckets)
    }

    /// Events waiting.
    pub fn len(&self) -> usize {
        self.len + self.batch.len() - self.pos
    }

    /// Schedules `ev`; its time must not be before the last popped event.
    #[inline(always)]
    pub fn push(&mut self, ev: Event) {
        // Written in place, field by field: a copy through the stack would
        // reload narrow stores as wide ones.
        *self.place(ev.time) = ev;
    }

    /// The place of a new event at `time`, to be filled with it.
    #[inline(always)]
    fn place(&mut self, time: u64) -> &mut Event {
        let b = time >> self.shift;
        debug_assert!(b >= self.cur, "event scheduled in the past");
        if b == self.cur {
            return self.place_current(time);
        }
        let idx = (b & self.mask) as usize;
        let far = b - self.cur > self.mask;
        self.len += 1;
        self.append(idx, far)
    }

    /// A new place at the end of the list of ring slot `idx`.
    #[inline(always)]
    fn append(&mut self, idx: usize, far: bool) -> &mut Event {
        let bk = &mut self.buckets[idx];
        if far {
            bk.far = true;
        }
        if bk.tail == NO_BLOCK || bk.tail_len as usize == BLOCK {
            new_block(&mut self.blocks, &mut self.next, &mut self.free, bk);
        }
        // Below `BLOCK` by the test above: the mask only tells the compiler.
        let at = bk.tail_len as usize & (BLOCK - 1);
        bk.tail_len += 1;
        &mut self.blocks[bk.tail as usize][at]
    }

    /// A new place in the bucket being served, after every batched event
    /// of the same or an earlier time.
    #[inline(never)]
    fn place_current(&mut self, time: u64) -> &mut Event {
        let rest = &self.batch[self.pos..];
        let at = self.pos + rest.partition_point(|e| e.time <= time);
        self.batch.insert(at, Event::default());
        &mut self.batch[at]
    }

    /// The event `d` places after the next one, if it is already in the
    /// batch being served (for prefetching what it will touch).
    #[inline(always)]
    pub fn peek_ahead(&self, d: usize) -> Option<&Event> {
        self.batch.get(self.pos + d)
    }

    /// The next event if its time is at most `t_end`. Never moves the
    /// clock past `t_end`, so events may still be pushed at `t_end`.
    #[cfg(test)]
    pub fn pop_until(&mut self, t_end: u64) -> Option<Event> {
        loop {
            if let Some(e) = self.pop_batched(t_end) {
                return Some(e);
            }
            if !self.refill(t_end) {
                return None;
            }
        }
    }

    /// The next event of the bucket being served if its time is at most
    /// `t_end`; `None` when the bucket is done (see [`Self::refill`]).
    #[inline(always)]
    pub fn pop_batched(&mut self, t_end: u64) -> Option<Event> {
        let &e = self.batch.get(self.pos)?;
        if e.time > t_end {
            return None;
        }
        self.pos += 1;
        Some(e)
    }

    /// Once the bucket being served is done: moves to the next bucket
    /// holding events, not beyond `t_end`; false if there is none (or
    /// the next event is after `t_end`).
    pub fn refill(&mut self, t_end: u64) -> bool {
        if self.pos < self.batch.len() {
            // Stopped at the horizon inside the bucket.
            return false;
        }
        self.batch.clear();
        self.pos = 0;
        self.len > 0 && self.advance(t_end >> self.shift)
    }

    /// Moves to the next bucket holding events, not beyond bucket `end`;
    /// false if there is none up to `end`.
    fn advance(&mut self, end: u64) -> bool {
        let lap = self.mask + 1;
        let mut scanned = 0u64;
        while self.cur < end {
            self.cur += 1;
            let idx = (self.cur & self.mask) as usize;
            if self.buckets[idx].head != NO_BLOCK && self.load(idx) {
                return true;
            }
            scanned += 1;
            if scanned > lap {
                // A whole lap without events: jump to the earliest one.
                let next = self.earliest().expect("events remain");
                self.cur = next.min(end) - 1;
                scanned = 0;
            }
        }
        false
    }

    /// Calls `f` on every waiting event, in no particular order.
    pub fn for_each(&self, mut f: impl FnMut(&Event)) {
        self.batch[self.pos..].iter().for_each(&mut f);
        for idx in 0..self.buckets.len() {
            self.each(idx, &mut f);
        }
    }

    /// The smallest bucket number of any waiting event.
    fn earliest(&self) -> Option<u64> {
        let mut best: Option<u64> = None;
        for idx in 0..self.buckets.len() {
            self.each(idx, |e| {
                let b = e.time >> self.shift;
                best = Some(best.map_or(b, |x| x.min(b)));
            });
        }
        best
    }

    /// Calls `f` on the events of slot `idx`, in insertion order.
    fn each(&self, idx: usize, mut f: impl FnMut(&Event)) {
        let bk = self.buckets[idx];
        let mut blk = bk.head;
        while blk != NO_BLOCK {
            let n = if blk == bk.tail {
                bk.tail_len as usize
            } else {
                BLOCK
            };
            self.blocks[blk as usize][..n].iter().for_each(&mut f);
            blk = self.next[blk as usize];
        }
    }

    /// Moves the events of bucket `cur` out of ring slot `idx` into the
    /// batch, in (time, insertion) order; events of later laps stay.
    fn load(&mut self, idx: usize) -> bool {
        let (shift, cur) = (self.shift, self.cur);
        let bk = std::mem::replace(&mut self.buckets[idx], EMPTY);
        let mut blk = bk.head;
        while blk != NO_BLOCK {
            let n = if blk == bk.tail {
                bk.tail_len as usize
            } else {
                BLOCK
            };
            if !bk.far {
                self.batch
                    .extend_from_slice(&self.blocks[blk as usize][..n]);
            } else {
                let events = self.blocks[blk as usize];
                for &e in &events[..n] {
                    if e.time >> shift == cur {
                        self.batch.push(e);
                    } else {
                        *self.append(idx, true) = e;
                    }
                }
            }
            self.free.push(blk);
            blk = self.next[blk as usize];
        }
        self.len -= self.batch.len();
        if !self.batch.is_sorted_by_key(|e| e.time) {
            self.sort_batch();
        }
        !self.batch.is_empty()
    }

    /// Puts the batch in (time, insertion) order. A bucket's events are
    /// interleaved runs of many times (every packet keeps the phase of its
    /// generation in continuous time): sorting 8-byte keys of time and
    /// position and gathering the events once costs a fraction of a
    /// stable sort of the 32-byte events.
    fn sort_batch(&mut self) {
        let batch = &self.batch;
        let (lo, hi) = batch.iter().fold((u64::MAX, 0), |(lo, hi), e| {
            (lo.min(e.time), hi.max(e.time))
        });
        if hi - lo >= 1 << 32 || batch.len() >= 1 << 32 {
            self.batch.sort_by_key(|e| e.time);
            return;
        }
        self.keys.clear();
        self.keys.extend(
            batch
                .iter()
                .enumerate()
                .map(|(i, e)| (e.time - lo) << 32 | i as u64),
        );
        let bits = 64 - (hi - lo).leading_zeros();
        if self.keys.len() >= RADIX_MIN && bits <= 2 * RADIX_BITS {
            radix_sort_high(&mut self.keys, &mut self.scratch, bits);
        } else {
            // Keys are distinct (the position is in them): unstable is stable.
            self.keys.sort_unstable();
        }
        self.spare.clear();
        self.spare
            .extend(self.keys.iter().map(|&k| batch[k as u32 as usize]));
        std::mem::swap(&mut self.batch, &mut self.spare);
    }
}

/// Batches this long or longer are sorted by radix (a comparison sort
/// wins below).
const RADIX_MIN: usize = 64;
/// Bits of time a radix pass sorts on.
const RADIX_BITS: u32 = 8;

/// Sorts keys `time << 32 | position`, given in position order, by their
/// `bits` bits of time: stable passes of [`RADIX_BITS`] from the lowest
/// bits up, so equal times keep their positions and the result is that of
/// sorting the whole keys. A batch spans at most one bucket, `2^shift` ps,
/// so one or two passes do; each costs a few instructions a key where a
/// comparison sort of a bucket of hundreds of events costs ten times that.
fn radix_sort_high(keys: &mut Vec<u64>, scratch: &mut Vec<u64>, bits: u32) {
    let radix = 1usize << RADIX_BITS;
    let mut at = 32;
    while at < 32 + bits {
        let digit = |k: u64| (k >> at) as usize & (radix - 1);
        let mut start = [0usize; 1 << RADIX_BITS];
        for &k in keys.iter() {
            start[digit(k)] += 1;
        }
        let mut sum = 0;
        for c in start.iter_mut() {
            (*c, sum) = (sum, sum + *c);
        }
        scratch.clear();
        scratch.resize(keys.len(), 0);
        for &k in keys.iter() {
            let d = digit(k);
            scratch[start[d]] = k;
            start[d] += 1;
        }
        std::mem::swap(keys, scratch);
        at += RADIX_BITS;
    }
}

/// Links a fresh block (from `free`, or a new one) at the end of `bk`'s
/// list.
#[inline(never)]
fn new_block(
    blocks: &mut Vec<[Event; BLOCK]>,
    next: &mut Vec<u32>,
    free: &mut Vec<u32>,
    bk: &mut Bucket,
) {
    let nb = match free.pop() {
        Some(b) => b,
        None => {
            blocks.push([Event::default(); BLOCK]);
            next.push(NO_BLOCK);
            (blocks.len() - 1) as u32
        }
    };
    next[nb as usize] = NO_BLOCK;
    if bk.tail == NO_BLOCK {
        bk.head = nb;
    } else {
        next[bk.tail as usize] = nb;
    }
    bk.tail = nb;
    bk.tail_len = 0;
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::Rng;

    #[test]
    fn a_batch_is_sorted_by_time_then_insertion_for_any_span() {
        // Spans and lengths that take the radix passes (one or two), the
        // key sort (short batches, times beyond two passes) and the stable
        // sort of the events.
        let mut rng = crate::rng::stream(5, "batch");
        for span in [200u64, 60_000, 1 << 16, 1 << 24, 1 << 40] {
            for n in [1usize, 7, 63, 64, 300, 5000] {
                let mut q = Calendar::new(0, 6);
                q.batch = (0..n)
                    .map(|i| Event::new(1000 + rng.gen_range(0..span), Kind::Output, i as u32))
                    .collect();
                let mut want = q.batch.clone();
                want.sort_by_key(|e| e.time);
                q.sort_batch();
                assert_eq!(q.batch, want, "span {span}, {n} events");
            }
        }
    }

    #[test]
    fn delivers_in_time_then_insertion_order() {
        let mut rng = crate::rng::stream(3, "calendar");
        for (shift, logb) in [(0, 6), (4, 6), (10, 8), (3, 16)] {
            let mut q = Calendar::new(shift, logb);
            // Reference: (time, insertion number).
            let mut reference: Vec<(u64, u32)> = Vec::new();
            let mut present = std::collections::BTreeSet::new();
            let mut now = 0u64;
            let mut id = 0u32;
            for step in 0..4000 {
                if step % 3 != 2 {
                    let far = rng.gen_bool(0.05);
                    let dt = if far {
                        rng.gen_range(0..200_000)
                    } else {
                        rng.gen_range(0..300)
                    };
                    let ev = Event::new(now + dt, Kind::Output, id);
                    q.push(ev);
                    reference.push((ev.time, id));
                    present.insert((ev.time, id));
                    id += 1;
                } else if let Some(e) = q.pop_until(u64::MAX) {
                    now = e.time;
                    assert_eq!(Some((e.time, e.obj)), present.pop_first());
                }
            }
            while let Some(e) = q.pop_until(u64::MAX) {
                assert_eq!(Some((e.time, e.obj)), present.pop_first());
            }
            assert!(present.is_empty());
            let mut q = Calendar::new(shift, logb);
            for &(t, i) in &reference {
                q.push(Event::new(t, Kind::Arrive, i));
            }
            let mut all = Vec::new();
            while let Some(e) = q.pop_until(u64::MAX) {
                all.push((e.time, e.obj));
            }
            let mut sorted = reference.clone();
            sorted.sort();
            assert_eq!(all, sorted);
            assert_eq!(q.len(), 0);
        }
    }

    #[test]
    fn stops_at_the_horizon_and_accepts_pushes_there() {
        let mut q = Calendar::new(4, 6);
        q.push(Event::new(10_000, Kind::Generate, 1));
        assert_eq!(q.pop_until(500), None);
        q.push(Event::new(500, Kind::Generate, 2));
        q.push(Event::new(500, Kind::Generate, 3));
        assert_eq!(q.pop_until(500).map(|e| e.obj), Some(2));
        // Same time, pushed while its bucket is being served: after 3.
        q.push(Event::new(500, Kind::Generate, 4));
        assert_eq!(q.pop_until(500).map(|e| e.obj), Some(3));
        assert_eq!(q.pop_until(500).map(|e| e.obj), Some(4));
        assert_eq!(q.pop_until(u64::MAX).map(|e| e.obj), Some(1));
        assert_eq!(q.len(), 0);
    }
}
