//! The credit round trip: how many flits an input buffer must hold for
//! one VC to keep its channel busy.
//!
//! A sender that starts a flit at `t` gets its slot back at
//! `t + s + r + 2 L` at the earliest (flit time `s`, latency `L` there and
//! back, the receiving switch's `routing_delay` `r`), so a VC of `B`
//! flits carries at most `B s / (s + r + 2 L)` of its channel and a
//! buffer covers the round trip when `B >= ceil((s + r + 2 L) / s)`.
//! Below that every VC is throttled whatever the load, which looks like
//! congestion but is not: the default buffer is sized to cover the
//! longest round trip, and a smaller one given by hand is reported.

use crate::network::Network;
use crate::units::{Bandwidth, Picos};

/// The round trip of a channel in flits: `ceil((s + r + 2 L) / s)`.
pub fn round_trip_flits(flit_ps: u64, latency_ps: u64, routing_delay_ps: u64) -> u64 {
    let s = flit_ps.max(1);
    (s + routing_delay_ps + 2 * latency_ps).div_ceil(s)
}

/// The longest round trip of a class of channels into switches.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RoundTrip {
    /// Flits a VC's buffer needs to keep the channel busy.
    pub flits: u64,
    /// The channel class with that round trip, and its timing.
    pub class: String,
    pub bandwidth: Bandwidth,
    pub latency: Picos,
    /// Channels into switches of that class.
    pub channels: usize,
}

/// Per channel class, the round trip of its channels into switches
/// (credit flow control applies to those only: terminals sink at once);
/// longest first.
pub fn round_trips(net: &Network, flit_bytes: u32, routing_delay_ps: u64) -> Vec<RoundTrip> {
    let mut per_class = vec![0usize; net.classes().len()];
    for c in net.channels() {
        if net.is_switch(c.dst) {
            per_class[c.class.0 as usize] += 1;
        }
    }
    let mut out: Vec<RoundTrip> = net
        .classes()
        .iter()
        .zip(per_class)
        .filter(|&(_, n)| n > 0)
        .map(|(class, channels)| {
            let s = class.bandwidth.serialization_ps(u64::from(flit_bytes));
            RoundTrip {
                flits: round_trip_flits(s, class.latency.0, routing_delay_ps),
                class: class.name.clone(),
                bandwidth: class.bandwidth,
                latency: class.latency,
                channels,
            }
        })
        .collect();
    out.sort_by(|a, b| b.flits.cmp(&a.flits).then(a.class.cmp(&b.class)));
    out
}

/// The flits that cover the longest round trip of the network (1 if no
/// channel enters a switch).
pub fn covering_buffer(net: &Network, flit_bytes: u32, routing_delay_ps: u64) -> u64 {
    round_trips(net, flit_bytes, routing_delay_ps)
        .first()
        .map_or(1, |r| r.flits)
}

/// The smallest stop & go slack buffer whose default thresholds (stop
/// at 70%) absorb the longest round trip: `stop + 1 + ceil(2 L / s)`
/// flits must fit, so `0.3 B >= 1 + ceil(2 L / s)`.
pub fn stop_go_buffer(net: &Network, flit_bytes: u32) -> u64 {
    round_trips(net, flit_bytes, 0)
        .iter()
        .map(|r| {
            let s = r.bandwidth.serialization_ps(u64::from(flit_bytes)).max(1);
            (10 * (1 + (2 * r.latency.0).div_ceil(s))).div_ceil(3)
        })
        .max()
        .unwrap_or(1)
}

/// One warning per channel class whose round trip `buffer_flits` does
/// not cover, saying how much of such a channel one VC can carry.
pub fn buffer_warnings(
    net: &Network,
    flit_bytes: u32,
    routing_delay_ps: u64,
    buffer_flits: u64,
) -> Vec<String> {
    round_trips(net, flit_bytes, routing_delay_ps)
        .into_iter()
        .filter(|r| buffer_flits < r.flits)
        .map(|r| {
            format!(
                "router.buffer_flits = {buffer_flits} does not cover the credit round trip of \
                 {} flits on the {} '{}' channels into switches ({} at {}): one VC carries at \
                 most {:.0}% of such a channel; set router.buffer_flits >= {} (or leave it \
                 unset) or shorten network.classes.{}.latency",
                r.flits,
                r.channels,
                r.class,
                r.latency,
                r.bandwidth,
                100.0 * buffer_flits as f64 / r.flits as f64,
                r.flits,
                r.class,
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::network::build::torus::torus;

    #[test]
    fn default_torus_links_need_33_flits() {
        // 16-byte flits at 20 Gb/s: 6.4 ns; 100 ns each way: 206.4 / 6.4.
        assert_eq!(round_trip_flits(6400, 100_000, 0), 33);
        assert_eq!(round_trip_flits(6400, 0, 0), 1);
        assert_eq!(round_trip_flits(6400, 3200, 0), 2);
        assert_eq!(round_trip_flits(6400, 3200, 1), 3);
        let net = torus(&[4, 4], 1).unwrap();
        assert_eq!(covering_buffer(&net, 16, 0), 33);
        let w = buffer_warnings(&net, 16, 0, 32);
        assert_eq!(w.len(), 2, "{w:?}");
        assert!(w[0].contains("33 flits") && w[0].contains("buffer_flits >= 33"));
        assert!(buffer_warnings(&net, 16, 0, 33).is_empty());
    }
}
