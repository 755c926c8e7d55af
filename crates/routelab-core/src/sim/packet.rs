//! The packet arena: packets are referred to by index, their slots reused
//! through a free list, so steady-state traffic allocates nothing.
//!
//! The header (what routers read and write, [`Header`]) is kept apart
//! from the bookkeeping the engine alone uses ([`Meta`]).

/// "No packet", "no channel", "no buffer": the null index.
pub(super) const NONE: u32 = u32::MAX;

/// Flags of a packet.
pub(super) mod flag {
    /// Generated during the measurement window.
    pub const MEASURED: u8 = 1;
    /// The router's source hook has seen it.
    pub const SOURCED: u8 = 2;
    /// Closed loop: an acknowledgement or a reply.
    pub const REPLY: u8 = 4;
    /// Open loop: one of a message of several packets (`msg` indexes the
    /// message table).
    pub const MESSAGE: u8 = 8;
    /// In transit, kept in host memory: its NIC's in-transit buffer was full.
    pub const SPILLED: u8 = 16;
}

pub use crate::routing::adaptive::Header;

/// What the engine alone keeps about a packet: one 32-byte record.
#[derive(Debug, Clone, Copy)]
pub(super) struct Meta {
    /// Generation time.
    pub gen_ps: u64,
    /// When the head first left its source terminal (`u64::MAX` before).
    pub inject_ps: u64,
    /// Closed loop: the pair it belongs to; open loop with
    /// [`flag::MESSAGE`]: its message.
    pub msg: u32,
    pub flags: u8,
}

/// Numbers of records reused through a free list. A parallel run's part
/// numbers its own `k * parts + part`, so that numbers are unique over the
/// run and each names the part that reuses it; a run of one part numbers
/// 0, 1, 2, ...
#[derive(Debug)]
pub(super) struct Numbers {
    free: Vec<u32>,
    parts: u32,
    part: u32,
    /// Numbers this part has given out.
    numbered: u32,
}

impl Default for Numbers {
    fn default() -> Self {
        Numbers {
            free: Vec::new(),
            parts: 1,
            part: 0,
            numbered: 0,
        }
    }
}

impl Numbers {
    pub fn set_part(&mut self, part: usize, parts: usize) {
        self.part = part as u32;
        self.parts = parts as u32;
    }

    /// Whether this part gave out number `n` (and so reuses it).
    #[inline]
    pub fn owns(&self, n: u32) -> bool {
        n % self.parts == self.part
    }

    /// A free number: a reused one, or the next new one.
    #[inline]
    pub fn take(&mut self) -> u32 {
        self.free.pop().unwrap_or_else(|| {
            let n = self.numbered * self.parts + self.part;
            self.numbered += 1;
            n
        })
    }

    /// Number `n`, given out by this part, is free again.
    #[inline]
    pub fn give_back(&mut self, n: u32) {
        debug_assert!(self.owns(n));
        self.free.push(n);
    }
}

/// Every packet alive: headers, bookkeeping and queue links apart.
#[derive(Debug, Default)]
pub(super) struct Packets {
    pub hdr: Vec<Header>,
    pub meta: Vec<Meta>,
    /// Intrusive list link (source and transit queues).
    pub next: Vec<u32>,
    pub numbers: Numbers,
    alive: u64,
}

impl Packets {
    pub fn with_capacity(n: usize) -> Self {
        let mut p = Packets::default();
        p.hdr.reserve(n);
        p.meta.reserve(n);
        p.next.reserve(n);
        p
    }

    /// A copy of packet `p` from another part, whose head enters this one.
    pub fn receive(&mut self, p: u32, hdr: Header, meta: Meta) {
        let k = p as usize;
        if k >= self.hdr.len() {
            self.hdr.resize(k + 1, Header::default());
            self.meta.resize(k + 1, meta);
            self.next.resize(k + 1, NONE);
        }
        self.hdr[k] = hdr;
        self.meta[k] = meta;
        self.next[k] = NONE;
    }

    /// A new packet; its slot may be a reused one. (Inlined: once per
    /// packet, and the header is copied by value.)
    #[inline]
    pub fn alloc(&mut self, hdr: Header, gen_ps: u64, msg: u32, flags: u8) -> u32 {
        self.alive += 1;
        let meta = Meta {
            gen_ps,
            inject_ps: u64::MAX,
            msg,
            flags,
        };
        let i = self.numbers.take();
        let k = i as usize;
        if k >= self.hdr.len() {
            // One part alone (the sequential run) pushes at the end.
            self.hdr.resize(k, Header::default());
            self.meta.resize(k, meta);
            self.next.resize(k, NONE);
            self.hdr.push(hdr);
            self.meta.push(meta);
            self.next.push(NONE);
        } else {
            self.hdr[k] = hdr;
            self.meta[k] = meta;
            self.next[k] = NONE;
        }
        i
    }

    /// Packet `p`, numbered by this part, is gone.
    pub fn release(&mut self, p: u32) {
        self.alive -= 1;
        self.numbers.give_back(p);
    }

    /// Packets allocated and not released.
    /// Memory of one packet's records (header, bookkeeping, queue link).
    pub fn bytes_per_packet(&self) -> usize {
        std::mem::size_of::<Header>() + std::mem::size_of::<Meta>() + 2 * std::mem::size_of::<u32>()
    }

    pub fn alive(&self) -> u64 {
        self.alive
    }
}

/// A FIFO of packets threaded through [`Packets::next`].
#[derive(Debug, Clone, Copy)]
pub(super) struct Queue {
    pub head: u32,
    pub tail: u32,
    pub len: u32,
}

impl Default for Queue {
    fn default() -> Self {
        Queue {
            head: NONE,
            tail: NONE,
            len: 0,
        }
    }
}

impl Queue {
    #[inline]
    pub fn push(&mut self, next: &mut [u32], p: u32) {
        next[p as usize] = NONE;
        if self.tail == NONE {
            self.head = p;
        } else {
            next[self.tail as usize] = p;
        }
        self.tail = p;
        self.len += 1;
    }

    /// Queues `p` ahead of the others.
    #[inline]
    pub fn push_front(&mut self, next: &mut [u32], p: u32) {
        next[p as usize] = self.head;
        if self.head == NONE {
            self.tail = p;
        }
        self.head = p;
        self.len += 1;
    }

    #[inline]
    pub fn pop(&mut self, next: &[u32]) -> Option<u32> {
        if self.head == NONE {
            return None;
        }
        let p = self.head;
        self.head = next[p as usize];
        if self.head == NONE {
            self.tail = NONE;
        }
        self.len -= 1;
        Some(p)
    }

    /// The packets in order (for accounting, not the hot path).
    pub fn iter<'a>(&self, next: &'a [u32]) -> impl Iterator<Item = u32> + 'a {
        let mut p = self.head;
        std::iter::from_fn(move || {
            if p == NONE {
                None
            } else {
                let q = p;
                p = next[q as usize];
                Some(q)
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slots_are_reused_and_queues_keep_order() {
        let mut a = Packets::with_capacity(4);
        let p = a.alloc(Header::default(), 5, 0, 0);
        let q = a.alloc(Header::default(), 6, 0, 0);
        a.release(p);
        let r = a.alloc(Header::default(), 7, 0, 0);
        assert_eq!(r, p);
        assert_eq!(a.meta[r as usize].gen_ps, 7);
        assert_eq!(a.alive(), 2);
        let mut qu = Queue::default();
        qu.push(&mut a.next, q);
        qu.push(&mut a.next, r);
        assert_eq!(qu.iter(&a.next).collect::<Vec<_>>(), vec![q, r]);
        assert_eq!(qu.pop(&a.next), Some(q));
        assert_eq!(qu.pop(&a.next), Some(r));
        assert_eq!(qu.pop(&a.next), None);
        assert_eq!(qu.len, 0);
        // Ahead of the others, and alone.
        qu.push(&mut a.next, q);
        qu.push_front(&mut a.next, r);
        assert_eq!(qu.iter(&a.next).collect::<Vec<_>>(), vec![r, q]);
        assert_eq!((qu.len, qu.tail), (2, q));
        let lone = a.alloc(Header::default(), 8, 0, 0);
        let mut one = Queue::default();
        one.push_front(&mut a.next, lone);
        assert_eq!((one.head, one.tail, one.len), (lone, lone, 1));
        assert_eq!(one.pop(&a.next), Some(lone));
        assert_eq!((one.head, one.tail), (NONE, NONE));
    }
}
