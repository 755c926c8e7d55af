//! The event queue: small `Copy` events in integer picoseconds, delivered
//! in (time, insertion) order by a calendar queue.
//!
//! Buckets of `2^shift` picoseconds form a ring; an event goes into the
//! bucket of its time, appended, so every bucket is in insertion order.
//! When the clock reaches a bucket, its events of the current lap move to
//! a batch that a stable sort on time (linear on the already-ordered runs
//! it usually holds) puts in (time, insertion) order; an event scheduled
//! into the batch's own bucket is inserted after every batched event of
//! the same or an earlier time. Push and pop are O(1) amortised, nothing
//! is allocated once the buckets have grown, and the order is a pure
//! function of the pushes, so runs are repeatable bit for bit.

/// What an event asks a component to do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub(super) enum Kind {
    /// The oldest flit in flight on channel `obj` reaches the receiver.
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
}

/// One event: 16 bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Event {
    pub time: u64,
    pub obj: u32,
    pub kind: Kind,
}

/// The calendar queue. See the module docs.
#[derive(Debug)]
pub(super) struct Calendar {
    shift: u32,
    mask: u64,
    buckets: Vec<Vec<Event>>,
    /// The bucket number (time >> shift) of `batch`.
    cur: u64,
    batch: Vec<Event>,
    pos: usize,
    /// Events in `buckets` (not counting the batch).
    len: usize,
}

impl Calendar {
    /// A queue whose buckets are `2^shift` ps wide, `2^log_buckets` of them.
    pub fn new(shift: u32, log_buckets: u32) -> Self {
        let n = 1usize << log_buckets;
        Calendar {
            shift,
            mask: n as u64 - 1,
            buckets: (0..n).map(|_| Vec::new()).collect(),
            cur: 0,
            batch: Vec::new(),
            pos: 0,
            len: 0,
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
    #[inline]
    pub fn push(&mut self, ev: Event) {
        let b = ev.time >> self.shift;
        debug_assert!(b >= self.cur, "event scheduled in the past");
        if b == self.cur {
            let rest = &self.batch[self.pos..];
            let at = self.pos + rest.partition_point(|e| e.time <= ev.time);
            if at == self.batch.len() {
                self.batch.push(ev);
            } else {
                self.batch.insert(at, ev);
            }
        } else {
            self.buckets[(b & self.mask) as usize].push(ev);
            self.len += 1;
        }
    }

    /// The next event if its time is at most `t_end`. Never moves the
    /// clock past `t_end`, so events may still be pushed at `t_end`.
    #[inline]
    pub fn pop_until(&mut self, t_end: u64) -> Option<Event> {
        loop {
            if let Some(&e) = self.batch.get(self.pos) {
                if e.time > t_end {
                    return None;
                }
                self.pos += 1;
                return Some(e);
            }
            self.batch.clear();
            self.pos = 0;
            if self.len == 0 || !self.advance(t_end >> self.shift) {
                return None;
            }
        }
    }

    /// Moves to the next bucket holding events, not beyond bucket `end`;
    /// false if there is none up to `end`.
    fn advance(&mut self, end: u64) -> bool {
        let lap = self.mask + 1;
        let mut scanned = 0u64;
        while self.cur < end {
            self.cur += 1;
            let idx = (self.cur & self.mask) as usize;
            if !self.buckets[idx].is_empty() && self.load(idx) {
                return true;
            }
            scanned += 1;
            if scanned > lap {
                // A whole lap without events: jump to the earliest one.
                let next = self
                    .buckets
                    .iter()
                    .flatten()
                    .map(|e| e.time >> self.shift)
                    .min()
                    .expect("events remain");
                self.cur = next.min(end) - 1;
                scanned = 0;
            }
        }
        false
    }

    /// Moves the events of bucket `cur` out of ring slot `idx` into the
    /// batch, in (time, insertion) order.
    fn load(&mut self, idx: usize) -> bool {
        let (shift, cur) = (self.shift, self.cur);
        let bucket = &mut self.buckets[idx];
        if bucket.iter().all(|e| e.time >> shift == cur) {
            std::mem::swap(&mut self.batch, bucket);
        } else {
            let batch = &mut self.batch;
            bucket.retain(|e| {
                if e.time >> shift == cur {
                    batch.push(*e);
                    false
                } else {
                    true
                }
            });
        }
        self.len -= self.batch.len();
        if !self.batch.is_sorted_by_key(|e| e.time) {
            self.batch.sort_by_key(|e| e.time);
        }
        !self.batch.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::Rng;

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
                    let ev = Event {
                        time: now + dt,
                        obj: id,
                        kind: Kind::Output,
                    };
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
                q.push(Event {
                    time: t,
                    obj: i,
                    kind: Kind::Arrive,
                });
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
        q.push(Event {
            time: 10_000,
            obj: 1,
            kind: Kind::Generate,
        });
        assert_eq!(q.pop_until(500), None);
        q.push(Event {
            time: 500,
            obj: 2,
            kind: Kind::Generate,
        });
        q.push(Event {
            time: 500,
            obj: 3,
            kind: Kind::Generate,
        });
        assert_eq!(q.pop_until(500).map(|e| e.obj), Some(2));
        // Same time, pushed while its bucket is being served: after 3.
        q.push(Event {
            time: 500,
            obj: 4,
            kind: Kind::Generate,
        });
        assert_eq!(q.pop_until(500).map(|e| e.obj), Some(3));
        assert_eq!(q.pop_until(500).map(|e| e.obj), Some(4));
        assert_eq!(q.pop_until(u64::MAX).map(|e| e.obj), Some(1));
        assert_eq!(q.len(), 0);
    }
}
