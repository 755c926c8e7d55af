//! How a parallel run splits the network: each part (one thread) owns a
//! set of switches with the terminals cabled to them, and talks to the
//! others only through the channels that cross between parts.
//!
//! A message on a channel takes at least the channel's latency to reach
//! the other end (a credit takes exactly that, a flit its serialisation
//! on top), so no event in a part can affect another part sooner than
//! the smallest latency of a crossing channel. The parts therefore run
//! independently through windows that long and exchange their messages
//! between windows, in an order fixed by part numbers alone: a run is
//! the same for a given seed and number of parts, whatever the threads'
//! timing.

use super::error::ConfigError;
use crate::network::{Network, Structure};

/// Which part owns what, and the window the parts may run apart.
#[derive(Debug, Clone)]
pub(super) struct Partition {
    pub parts: usize,
    /// Per terminal: its part (that of the switch it injects into).
    pub term_part: Vec<u16>,
    /// Per channel: the parts of its sender and of its receiver.
    pub tx_part: Vec<u16>,
    pub rx_part: Vec<u16>,
    /// The smallest latency of a channel between parts, in ps (the
    /// window), or `u64::MAX` when no channel crosses.
    pub window_ps: u64,
}

/// The most parts a run may have.
pub(crate) const MAX_PARTS: usize = 1024;

impl Partition {
    /// `parts` parts of `net`. A torus or mesh is cut into blocks, its
    /// dimensions split where that leaves the least surface; any other
    /// network into runs of consecutive switches (builders number
    /// switches along their levels or coordinates, so a run is a compact
    /// region) carrying about equal numbers of terminals and switches.
    pub fn new(net: &Network, parts: usize) -> Result<Self, ConfigError> {
        let switches = net.switches();
        if parts == 0 || parts > MAX_PARTS.min(switches.len().max(1)) {
            return Err(ConfigError::invalid(
                "run.threads",
                parts,
                format!(
                    "1..={} (one part per thread, each with at least one of the {} switches)",
                    MAX_PARTS.min(switches.len().max(1)),
                    switches.len()
                ),
            ));
        }
        // Terminals cabled to each switch, by the channel they inject on.
        let mut terms_at = vec![0u64; switches.len()];
        let mut term_switch = vec![u32::MAX; net.terminals().len()];
        for (t, &node) in net.terminals().iter().enumerate() {
            if let Some(&c) = net
                .out_channels(node)
                .iter()
                .find(|&&c| net.is_switch(net.channel(c).dst))
            {
                let s = net.kind_index(net.channel(c).dst);
                terms_at[s] += 1;
                term_switch[t] = s as u32;
            }
        }
        let switch_part = match net.structure() {
            Structure::Torus { dims, .. } => torus_blocks(dims, switches.len(), parts),
            _ => None,
        }
        .unwrap_or_else(|| runs(&terms_at, parts));
        let term_part = term_switch
            .iter()
            .map(|&s| {
                if s == u32::MAX {
                    0
                } else {
                    switch_part[s as usize]
                }
            })
            .collect();
        let node_part = |n: crate::NodeId| -> u16 {
            if net.is_switch(n) {
                switch_part[net.kind_index(n)]
            } else {
                let t = net.kind_index(n);
                match term_switch[t] {
                    u32::MAX => 0,
                    s => switch_part[s as usize],
                }
            }
        };
        let mut tx_part = Vec::with_capacity(net.channel_count());
        let mut rx_part = Vec::with_capacity(net.channel_count());
        let mut window_ps = u64::MAX;
        for c in net.channels() {
            let (a, b) = (node_part(c.src), node_part(c.dst));
            if a != b {
                let lat = net.class(c.class).latency.0;
                if lat == 0 {
                    return Err(ConfigError::invalid(
                        "run.threads",
                        parts,
                        format!(
                            "1: channel {} -> {} crosses between parts with no latency, and \
                             parts may only run apart for the smallest latency of such a \
                             channel (give the links a latency above 0)",
                            net.label(c.src),
                            net.label(c.dst)
                        ),
                    ));
                }
                window_ps = window_ps.min(lat);
            }
            tx_part.push(a);
            rx_part.push(b);
        }
        Ok(Partition {
            parts,
            term_part,
            tx_part,
            rx_part,
            window_ps,
        })
    }

    /// Channels whose ends lie in different parts.
    #[cfg(test)]
    pub fn crossing(&self) -> usize {
        self.tx_part
            .iter()
            .zip(&self.rx_part)
            .filter(|(a, b)| a != b)
            .count()
    }
}

/// Runs of consecutive switches, each about an equal share of the
/// weight (a switch and its terminals), every part owning one at least
/// (`parts` is at most the number of switches).
fn runs(terms_at: &[u64], parts: usize) -> Vec<u16> {
    let total: u64 = terms_at.iter().map(|&n| n + 1).sum();
    let mut switch_part = vec![0u16; terms_at.len()];
    let mut acc = 0u64;
    for (s, part) in switch_part.iter_mut().enumerate() {
        // Part k takes the switches whose weight midpoint falls in the
        // k-th equal share of the total.
        let w = terms_at[s] + 1;
        let mid = 2 * acc + w;
        *part = ((mid * parts as u64) / (2 * total)).min(parts as u64 - 1) as u16;
        acc += w;
    }
    // Very uneven weights can leave a part without a switch: then equal
    // numbers of switches instead.
    let mut owns = vec![false; parts];
    for &k in &switch_part {
        owns[k as usize] = true;
    }
    if owns.contains(&false) {
        let n = switch_part.len();
        for (s, part) in switch_part.iter_mut().enumerate() {
            *part = (s * parts / n) as u16;
        }
    }
    switch_part
}

/// Blocks of a torus or mesh whose switches are numbered in mixed radix
/// of `dims` (dimension 0 fastest): each prime factor of `parts`, the
/// largest first, splits the dimension whose blocks are then longest, so
/// blocks stay close to cubes and few channels cross; of equal ones the
/// slowest, so that a block's switches lie in long runs of memory (the
/// simulator's records follow switch numbers). `None` when the
/// dimensions are too short to give every block a switch.
fn torus_blocks(dims: &[u32], switches: usize, parts: usize) -> Option<Vec<u16>> {
    let mut factors = Vec::new();
    let mut n = parts;
    let mut f = 2;
    while n > 1 {
        while n.is_multiple_of(f) {
            factors.push(f);
            n /= f;
        }
        f += 1;
    }
    let mut cuts = vec![1usize; dims.len()];
    for &f in factors.iter().rev() {
        let d = (0..dims.len())
            .filter(|&d| dims[d] as usize >= cuts[d] * f)
            .max_by_key(|&d| (dims[d] as usize * 1000 / cuts[d], d))?;
        cuts[d] *= f;
    }
    let total: usize = dims.iter().map(|&k| k as usize).product();
    if total != switches {
        return None;
    }
    let mut switch_part = Vec::with_capacity(total);
    for s in 0..total {
        let (mut rest, mut part, mut scale) = (s, 0usize, 1usize);
        for (d, &k) in dims.iter().enumerate() {
            let coord = rest % k as usize;
            rest /= k as usize;
            part += coord * cuts[d] / k as usize * scale;
            scale *= cuts[d];
        }
        switch_part.push(part as u16);
    }
    Some(switch_part)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::network::spec;

    fn torus(text: &str) -> Network {
        spec::build(text).unwrap()
    }

    /// Each switch's part, read off the channels, checked against the
    /// terminals' and channels' parts; and the switches per part.
    fn parts_of_switches(net: &Network, p: &Partition) -> (Vec<u16>, Vec<usize>) {
        let mut switch_part = vec![u16::MAX; net.switches().len()];
        for (i, c) in net.channels().iter().enumerate() {
            if net.is_switch(c.src) {
                let s = &mut switch_part[net.kind_index(c.src)];
                assert!(*s == u16::MAX || *s == p.tx_part[i]);
                *s = p.tx_part[i];
            }
        }
        for (i, c) in net.channels().iter().enumerate() {
            if net.is_switch(c.dst) {
                assert_eq!(p.rx_part[i], switch_part[net.kind_index(c.dst)]);
            }
        }
        for (t, &node) in net.terminals().iter().enumerate() {
            let c = net.out_channels(node)[0];
            let s = net.kind_index(net.channel(c).dst);
            assert_eq!(
                p.term_part[t], switch_part[s],
                "terminals go with their switch"
            );
        }
        let mut sizes = vec![0usize; p.parts];
        for &k in &switch_part {
            sizes[k as usize] += 1;
        }
        (switch_part, sizes)
    }

    #[test]
    fn a_torus_is_cut_into_balanced_blocks() {
        let net = torus("torus:8x8x8");
        for parts in [1, 2, 3, 5, 8, 12, 16, 512] {
            let p = Partition::new(&net, parts).unwrap();
            let (_, sizes) = parts_of_switches(&net, &p);
            let (lo, hi) = (sizes.iter().min().unwrap(), sizes.iter().max().unwrap());
            assert!(*lo >= 1 && *hi <= 2 * *lo, "{parts} parts: sizes {sizes:?}");
            if parts == 1 {
                assert_eq!(p.crossing(), 0);
                assert_eq!(p.window_ps, u64::MAX);
            } else {
                assert!(p.crossing() > 0);
                assert_eq!(p.window_ps, 100_000, "the default links' 100 ns latency");
            }
        }
        // Two parts cut each of two rings of planes (64 channels each
        // way); eight are 4x4x4 blocks, cutting every dimension so.
        assert_eq!(Partition::new(&net, 2).unwrap().crossing(), 2 * 2 * 64);
        assert_eq!(Partition::new(&net, 8).unwrap().crossing(), 3 * 2 * 2 * 64);
    }

    #[test]
    fn other_networks_are_cut_into_balanced_runs() {
        let net = spec::build("random:switches=40,ports=8,hosts=3,seed=2").unwrap();
        for parts in [1, 2, 3, 7, 40] {
            let p = Partition::new(&net, parts).unwrap();
            let (switch_part, sizes) = parts_of_switches(&net, &p);
            for w in switch_part.windows(2) {
                assert!(w[0] <= w[1], "parts are runs of consecutive switches");
            }
            let (lo, hi) = (sizes.iter().min().unwrap(), sizes.iter().max().unwrap());
            assert!(*lo >= 1 && hi - lo <= 1, "{parts} parts: sizes {sizes:?}");
        }
    }

    #[test]
    fn uneven_weights_leave_no_part_empty() {
        // One heavy switch last: weight runs alone would leave parts 1
        // and 2 without a switch.
        let mut terms_at = vec![0u64; 4];
        terms_at[3] = 1000;
        for parts in 1..=4 {
            let p = runs(&terms_at, parts);
            for k in 0..parts as u16 {
                assert!(p.contains(&k), "{parts} parts: {p:?}");
            }
            assert!(p.windows(2).all(|w| w[0] <= w[1]));
        }
    }

    #[test]
    fn impossible_part_counts_name_the_parameter() {
        let net = torus("torus:4x4");
        for parts in [0, 17] {
            let e = Partition::new(&net, parts).unwrap_err().to_string();
            assert!(e.contains("run.threads") && e.contains("1..=16"), "{e}");
        }
    }
}
