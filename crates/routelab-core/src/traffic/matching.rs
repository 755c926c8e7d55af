//! Pairings and random permutations: the random derangement, the random
//! bisection of geoffray2008 and ORCS, and geoffray2008's bridge pattern.
//! Each returns a table `dst[src]`; an idle terminal maps to itself.

use super::TrafficError;
use crate::network::{Network, NodeId};
use crate::rng::Rng;
use rand::seq::SliceRandom;

/// A uniformly random permutation of `0..t` without fixed points (`t >= 2`),
/// by rejection: a random permutation is a derangement with probability
/// about `1/e`, so this takes under three tries on average. With `t < 2`
/// there is none and the identity is returned.
pub(crate) fn derangement(t: usize, rng: &mut Rng) -> Vec<u32> {
    let mut table: Vec<u32> = (0..t as u32).collect();
    if t < 2 {
        return table;
    }
    loop {
        table.shuffle(rng);
        if table.iter().enumerate().all(|(s, &d)| s != d as usize) {
            return table;
        }
    }
}

/// A random bisection: a random order of the terminals, the first half of
/// its first `active` paired with their second half (`order[i] <-> order[h +
/// i]`, `h = active / 2`), which splits them into random halves joined by a
/// uniformly random perfect matching. The rest of the order, and with an odd
/// `active` its last one, stay idle. Without `both` only the first half sends
/// (`order[i] -> order[h + i]`) and the second is idle.
pub(crate) fn bisection(t: usize, active: usize, both: bool, rng: &mut Rng) -> Vec<u32> {
    let mut order: Vec<u32> = (0..t as u32).collect();
    order.shuffle(rng);
    let mut table: Vec<u32> = (0..t as u32).collect();
    let h = active.min(t) / 2;
    for i in 0..h {
        let (a, b) = (order[i], order[h + i]);
        table[a as usize] = b;
        if both {
            table[b as usize] = a;
        }
    }
    table
}

/// The bridge pattern: terminals grouped by the switch they hang off, groups
/// in order of their lowest terminal; group `2i` exchanges with group
/// `2i + 1`, `j`-th terminal with `j`-th terminal.
pub(crate) fn bridge(net: &Network) -> Result<Vec<u32>, TrafficError> {
    let groups = groups_by_switch(net);
    let mut table: Vec<u32> = (0..net.terminals().len() as u32).collect();
    let mut paired = false;
    for pair in groups.chunks_exact(2) {
        for (&a, &b) in pair[0].iter().zip(&pair[1]) {
            table[a as usize] = b;
            table[b as usize] = a;
            paired = true;
        }
    }
    if !paired {
        return Err(TrafficError::does_not_fit(
            "bridge",
            format!("'{}'", net.name()),
            "terminals on at least two switches (it pairs the hosts of one switch with another's)",
        ));
    }
    Ok(table)
}

/// Terminal indices grouped by attached switch, each group ascending, groups
/// ordered by their first terminal. A terminal without a switch is alone.
fn groups_by_switch(net: &Network) -> Vec<Vec<u32>> {
    const NONE: u32 = u32::MAX;
    let mut group_of_switch = vec![NONE; net.node_count()];
    let mut groups: Vec<Vec<u32>> = Vec::new();
    for (t, &node) in net.terminals().iter().enumerate() {
        let key: NodeId = net.attached_switch(node).unwrap_or(node);
        let g = &mut group_of_switch[key.index()];
        if *g == NONE {
            *g = groups.len() as u32;
            groups.push(Vec::new());
        }
        groups[*g as usize].push(t as u32);
    }
    groups
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::network::spec::build;
    use crate::rng::stream;

    #[test]
    fn derangement_has_no_fixed_point() {
        for seed in 0..20 {
            let d = derangement(2 + seed as usize % 5, &mut stream(seed, "t"));
            assert!(d.iter().enumerate().all(|(s, &x)| s != x as usize));
        }
    }

    #[test]
    fn odd_bisection_leaves_one_idle() {
        let b = bisection(7, 7, true, &mut stream(1, "t"));
        assert_eq!(
            b.iter()
                .enumerate()
                .filter(|&(s, &d)| s == d as usize)
                .count(),
            1
        );
    }

    #[test]
    fn a_bisection_of_some_active_terminals_pairs_them_and_idles_the_rest() {
        // 10 of 64 terminals: 5 senders, each to a distinct receiver, the
        // other 54 idle; both ways, 10 busy. All active: the full bisection
        // from the same seed, bit for bit.
        for both in [false, true] {
            let b = bisection(64, 10, both, &mut stream(3, "t"));
            let senders: Vec<usize> = (0..64).filter(|&s| b[s] as usize != s).collect();
            assert_eq!(senders.len(), if both { 10 } else { 5 });
            let mut receivers: Vec<u32> = senders.iter().map(|&s| b[s]).collect();
            receivers.sort_unstable();
            receivers.dedup();
            assert_eq!(receivers.len(), senders.len());
            assert!(senders
                .iter()
                .all(|&s| !both || b[b[s] as usize] as usize == s));
        }
        assert_eq!(
            bisection(64, 64, true, &mut stream(3, "t")),
            bisection(64, usize::MAX, true, &mut stream(3, "t"))
        );
    }

    #[test]
    fn bridge_pairs_neighbouring_switches() {
        // 4x2 torus with 3 terminals per switch: switch 0 (terminals 0..3)
        // exchanges with switch 1 (3..6), switch 2 with 3, and so on.
        let net = build("torus:4x2,c=3").unwrap();
        let b = bridge(&net).unwrap();
        assert_eq!(&b[..6], [3, 4, 5, 0, 1, 2]);
        assert_eq!(b[7], 10);
        let e = bridge(&build("crossbar:8").unwrap())
            .unwrap_err()
            .to_string();
        assert!(e.contains("at least two switches"), "{e}");
    }
}
