//! Bubble flow control, the escape rule of the bubble routers (`abr`,
//! `dor-bubble`, `por`, `ofr`, `rdr`).
//!
//! The escape VC of the ports of one dimension and direction forms a
//! unidirectional ring per line of the torus. A packet that keeps
//! travelling along the ring it arrived on (same escape VC, same dimension
//! and direction) needs one free packet slot downstream; any other packet
//! entering that ring (from the injection queue, from another dimension or
//! direction, from an adaptive VC or from another escape VC) needs two. So
//! a ring never fills up: it always keeps a free packet slot and its
//! packets keep moving. This needs whole-packet allocation (cut-through or
//! store-and-forward switching) and input buffers of at least two packets
//! per VC.
//!
//! A router with two escape VCs (`escape_vcs = 2`) offers both on the
//! dimension-order port: each is a ring of its own under the same rule,
//! so a packet keeps its escape VC for one free packet slot or moves to
//! the other one as an entry, for two. Dimension order still orders the
//! rings, and each ring still keeps a free packet slot.

use super::{Candidate, Candidates, Here, Resources, RouterCtx, RouterOptions};
use crate::network::PortId;
use crate::routing::RoutingError;

/// The escape VC of the bubble routers with one escape network.
pub const ESCAPE_VC: u8 = 0;

/// The priority of escape candidates (adaptive ones have priority 0).
pub const ESCAPE_PRIORITY: u8 = 1;

/// Whether a packet that arrived on `in_port` and leaves on `out_port`
/// keeps travelling along the same dimension and direction.
#[inline]
pub fn continues_ring(in_port: PortId, out_port: PortId) -> bool {
    let o = out_port.0;
    o >= 1 && in_port.0 == if o % 2 == 1 { o + 1 } else { o - 1 }
}

/// Credits a packet of `flits` needs to take escape VC `vc` on `port` under
/// bubble flow control: one packet when it keeps travelling along the ring
/// it arrived on in that VC, two when it enters the ring.
#[inline]
pub fn bubble_need(here: &Here, port: PortId, vc: u8, flits: u16) -> u32 {
    let f = u32::from(flits);
    if here.in_vc == vc && continues_ring(here.in_port, port) {
        f
    } else {
        2 * f
    }
}

/// Pushes escape VC `vc` of `port` with the escape priority and its bubble
/// need.
#[inline]
pub fn push_escape(here: &Here, port: PortId, vc: u8, flits: u16, out: &mut Candidates) {
    out.push_with(
        port,
        vc,
        ESCAPE_PRIORITY,
        bubble_need(here, port, vc, flits),
    );
}

/// Pushes the hop onto `port` when every VC is its own escape ring: the
/// VC the packet arrived on if it keeps travelling along that ring (one
/// packet), else any VC, entering a ring (two packets); all priority 0.
#[inline]
pub fn push_ring_hop(here: &Here, port: PortId, flits: u16, out: &mut Candidates) {
    let f = u32::from(flits);
    if continues_ring(here.in_port, port) && here.in_vc < here.vcs {
        out.push_with(port, here.in_vc, 0, f);
    } else {
        for v in 0..here.vcs {
            out.push_with(port, v, 0, 2 * f);
        }
    }
}

/// Option `escape_vcs` of the routers with one escape network (1 or 2,
/// default 1): the escape VCs each dimension-order hop may take.
pub fn escape_vcs(opts: &RouterOptions) -> Result<u8, RoutingError> {
    match opts.u32("escape_vcs", 1)? {
        n @ 1..=2 => Ok(n as u8),
        n => Err(RoutingError::BadOption {
            option: "escape_vcs".into(),
            value: n.to_string(),
            expected: "1 or 2".into(),
        }),
    }
}

/// Counts a hop taken on an escape candidate in counter `counter`.
#[inline]
pub fn count_escape_hop(chosen: Candidate, ctx: &mut RouterCtx, counter: usize) {
    if chosen.priority == ESCAPE_PRIORITY {
        ctx.count(counter);
    }
}

/// What bubble flow control needs of the switches: `vcs` VCs per port,
/// whole-packet allocation, and room for two packets per input buffer (a
/// packet entering a ring must find two free packet slots).
pub fn check(res: &Resources, vcs: u8) -> Result<(), String> {
    res.need_vcs(vcs)?;
    if !res.whole_packets {
        return Err(
            "router.switching = \"wormhole\": bubble flow control allocates whole \
                    packets; use \"cut-through\" or \"store-and-forward\""
                .into(),
        );
    }
    let two = 2 * res.packet_flits;
    if res.buffer_flits < two {
        return Err(format!(
            "router.buffer_flits = {}: bubble flow control needs buffers of at least two \
             packets ({two} flits, or buffer_packets = 2)",
            res.buffer_flits
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ring_continuation_and_bubble_needs() {
        // +d leaves on 2d + 1 and arrives on 2d + 2.
        assert!(continues_ring(PortId(2), PortId(1)));
        assert!(continues_ring(PortId(1), PortId(2)));
        assert!(continues_ring(PortId(4), PortId(3)));
        assert!(!continues_ring(PortId(1), PortId(1)));
        assert!(!continues_ring(PortId(2), PortId(3)));
        assert!(!continues_ring(PortId(7), PortId(1)));
        let here = Here {
            switch: crate::network::NodeId(0),
            switch_index: 0,
            in_port: PortId(2),
            in_vc: 0,
            vcs: 3,
            now_ps: 0,
        };
        assert_eq!(bubble_need(&here, PortId(1), 0, 8), 8);
        assert_eq!(bubble_need(&here, PortId(1), 1, 8), 16);
        assert_eq!(bubble_need(&here, PortId(3), 0, 8), 16);
    }
}
