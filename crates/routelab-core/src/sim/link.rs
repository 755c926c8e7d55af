//! Links: the only way components talk. A channel carries flits forward
//! and flow-control messages (credits, or stop & go signals) back, each
//! delivered after the channel's latency: a flit travels inside its
//! `Arrive` event ([`super::engine::Event`]), a stop or go signal is a
//! `Credit` event, and a credit is either kept in the record of its VC
//! with the time it arrives (one per VC at a time: the sender counts it
//! from then on, and a sender that waits for it is woken then) or, while
//! that place is taken, a `Credit` event. A link holds no other
//! per-message state.
//!
//! Per channel, one cache line ([`Chan`]) holds what its sender reads at
//! every look and what its receiver reads on arrival: timing, busy-until
//! times of both ends, pending wake-ups, the VCs held, the round-robin
//! pointer. Per `(channel, VC)` one record ([`Vc`]) holds both the input
//! buffer the channel fills and the sender's credits for it, so the
//! sender that allocates a VC and the receiver that takes the flit a few
//! nanoseconds later touch the same memory.
//!
//! Under stop & go the sender's credit count for a VC is
//! [`SINK_CREDITS`] while the receiver says go and 0 once it said stop.

use super::packet::NONE;

/// `i mod cap` for `i < 2 cap`, without a division.
#[inline]
pub(super) fn wrap(i: u32, cap: u32) -> u32 {
    if i >= cap {
        i - cap
    } else {
        i
    }
}

/// Credits a sender may hold for a terminal's input (never exhausted),
/// and what a stop & go sender holds while allowed to send.
pub(super) const SINK_CREDITS: u32 = u32::MAX / 2;

/// Tags of a flow-control message: a credit, stop or go.
pub(super) const TAG_CREDIT: u16 = 0;
pub(super) const TAG_STOP: u16 = 1;
pub(super) const TAG_GO: u16 = 2;

/// What a channel connects.
pub(super) const SWITCHES: u8 = 0;
/// A NIC's injection channel: `term` is the sending terminal.
pub(super) const FROM_TERM: u8 = 1;
/// A switch's ejection channel: `term` is the receiving terminal.
pub(super) const TO_TERM: u8 = 2;

/// One channel: its timing, the sender's side and the receiver's side,
/// in one cache line.
#[derive(Debug, Clone, Copy)]
#[repr(C, align(64))]
pub(super) struct Chan {
    /// Sender: transmitting until.
    pub busy: u64,
    /// Sender: time of the earliest pending `Output` event, or `u64::MAX`.
    pub wake: u64,
    /// Receiver: the input port the channel enters may read again at.
    pub in_busy: u64,
    /// Receiver: time of the pending `Input` event, or `u64::MAX`.
    pub in_wake: u64,
    /// Sender: bit `v` set while VC `v` is held by a packet.
    pub held: u64,
    /// Serialisation of one flit.
    pub flit_ps: u32,
    /// Latency.
    pub lat_ps: u32,
    /// The terminal at one end ([`FROM_TERM`], [`TO_TERM`]).
    pub term: u32,
    /// The receiving switch's index (`NONE` for a terminal) and the
    /// input port the channel enters.
    pub rx_sw: u32,
    pub in_port: u16,
    /// [`SWITCHES`], [`FROM_TERM`] or [`TO_TERM`].
    pub kind: u8,
    /// Round-robin pointer over the VCs (switch allocation).
    pub rr: u8,
    /// Heads wait for one of its VCs ([`super::state::Sim::waiters`]).
    pub waiting: bool,
    /// Parallel runs: its ends lie in different parts, so what it carries
    /// either way is posted to the other part ([`super::parallel`]).
    pub cross: bool,
}

impl Chan {
    /// Terminal index of the receiver, or `NONE` for a switch.
    #[inline]
    pub fn receiver_term(&self) -> u32 {
        if self.kind == TO_TERM {
            self.term
        } else {
            NONE
        }
    }

    /// Terminal index of the sender, or `NONE` for a switch.
    #[inline]
    pub fn sender_term(&self) -> u32 {
        if self.kind == FROM_TERM {
            self.term
        } else {
            NONE
        }
    }
}

/// One `(channel, VC)`: the input buffer at the receiver (a switch) and
/// the sender's view of it. The buffer keeps its front flit here and the
/// flits behind it in `Sim::slots`, so a visit to a buffer holding at
/// most one flit, the common case below saturation, reads one record.
///
/// A credit travels back to the sender as a `Credit` event, except for
/// one at a time per VC, which the record keeps as the time it reaches
/// the sender (`returns_at`): the sender counts it from then on
/// ([`Vc::credits_at`]), and whoever may be waiting for it is woken then.
/// Below saturation this spares an event per flit and hop, and the
/// record the departing flit just left is the one written.
#[derive(Debug, Clone, Copy)]
#[repr(C, align(32))]
pub(super) struct Vc {
    /// Sender: when the credit on its way back arrives ([`NO_RETURN`]:
    /// none).
    pub returns_at: u64,
    /// Packet of the front flit (valid when `len > 0`).
    pub front: u32,
    /// The output `(channel, vc)` the front packet holds, or `NONE`.
    pub alloc: u32,
    /// Sender: free slots it has been told of, besides `returns_at`.
    pub credits: u32,
    /// Sender: the input buffer (switch) whose packet holds the VC, or
    /// `NONE`.
    pub held: u32,
    /// Flits in the buffer, front included.
    pub len: u16,
    /// First of the flits behind the front in the slot ring.
    pub head: u16,
    /// Flits of the front packet already sent on.
    pub front_sent: u16,
    /// Bumped whenever the front head is allocated (stale waits).
    pub gen: u16,
}

/// The largest input buffer, in flits (lengths are 16-bit).
pub(crate) const MAX_BUFFER_FLITS: u32 = u16::MAX as u32;

/// [`Vc::returns_at`] when no credit is on its way.
pub(super) const NO_RETURN: u64 = u64::MAX;

impl Vc {
    pub fn new(credits: u32) -> Self {
        Vc {
            returns_at: NO_RETURN,
            front: NONE,
            alloc: NONE,
            credits,
            held: NONE,
            len: 0,
            head: 0,
            front_sent: 0,
            gen: 0,
        }
    }

    /// Credits the sender knows of at `now`.
    #[inline(always)]
    pub fn credits_at(&self, now: u64) -> u32 {
        self.credits + u32::from(self.returns_at <= now)
    }

    /// Counts a credit that has arrived by `now` into `credits`.
    #[inline(always)]
    pub fn settle(&mut self, now: u64) {
        if self.returns_at <= now {
            self.credits += 1;
            self.returns_at = NO_RETURN;
        }
    }

    /// When the credit on its way arrives, if it has not by `now`.
    #[inline(always)]
    pub fn returning_after(&self, now: u64) -> Option<u64> {
        (self.returns_at > now && self.returns_at != NO_RETURN).then_some(self.returns_at)
    }
}

/// What the builder needs per channel.
pub(super) struct ChannelTiming {
    pub flit_ps: u32,
    pub lat_ps: u32,
    pub kind: u8,
    pub term: u32,
    pub rx_sw: u32,
    pub in_port: u16,
}

impl Chan {
    pub fn new(t: &ChannelTiming) -> Self {
        Chan {
            busy: 0,
            wake: u64::MAX,
            in_busy: 0,
            in_wake: u64::MAX,
            held: 0,
            flit_ps: t.flit_ps,
            lat_ps: t.lat_ps,
            term: t.term,
            rx_sw: t.rx_sw,
            in_port: t.in_port,
            kind: t.kind,
            rr: 0,
            waiting: false,
            cross: false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_fit_cache_lines() {
        assert_eq!(std::mem::size_of::<Chan>(), 64);
        assert_eq!(std::mem::size_of::<Vc>(), 32);
    }
}
