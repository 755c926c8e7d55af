//! Kautz graphs of switches with terminals attached (as Domke et al. 2011
//! evaluate them: low diameter, so short paths).
//!
//! K(b, n) has a switch per word `s_0 .. s_n` over the symbols `0..=b` with
//! no two consecutive symbols equal, `(b + 1) * b^n` switches, and an arc
//! `s_0 .. s_n -> s_1 .. s_n x` for each of the `b` symbols `x != s_n`. Each
//! arc is one full-duplex cable, so every switch has `2b` switch ports, and
//! the diameter is `n + 1`. Two alternating words (`0101`, `1010`) have arcs
//! both ways and so two parallel cables.
//!
//! Numbering: switches in lexicographic order of their words, then
//! terminals, consecutive per switch. Switch port `j + 1` (`j < b`) carries
//! the arc to the successor appending the `j`-th symbol other than `s_n`;
//! port `b + 1 + e` the arc from the predecessor prepending the `e`-th
//! symbol other than `s_0`; terminals use ports `2b + 1` onward.
//!
//! Terminals are either `hosts` per switch or a total `terminals` spread as
//! evenly as possible (the first `terminals mod S` switches get one more),
//! since the endpoint counts of Domke et al. (e.g. 64 on K(2, 2)) are not
//! multiples of the switch count.

use crate::network::spec::Family;
use crate::network::{Network, NetworkBuilder, NodeId, PortId, Structure, TopologyError};

use super::bad_param;

/// The largest Kautz graph the generator builds, in switches.
const MAX_SWITCHES: u64 = 1 << 20;
/// The largest network, in switches plus terminals.
const MAX_NODES: u64 = 1 << 22;

pub const KAUTZ: Family = Family {
    name: "kautz",
    usage: "kautz:b=2,n=3[,hosts=1 | terminals=T]  ((b+1)*b^n switches, hosts per switch or T in total)",
    keys: &["b", "n", "hosts", "terminals"],
    positional: None,
    generate: |a| {
        let b = a.u32("b", None, 1, u32::from(u16::MAX) / 2)?;
        let n = a.u32("n", None, 1, 64)?;
        let hosts = a.opt_u32("hosts", 0, u32::from(u16::MAX))?;
        match a.opt_u32("terminals", 0, u32::MAX)? {
            Some(t) if hosts.is_some() => Err(bad_param(
                "kautz",
                "terminals",
                t,
                "either hosts (per switch) or terminals (in total), not both",
            )),
            Some(t) => kautz_with_terminals(b, n, t),
            None => kautz(b, n, hosts.unwrap_or(1)),
        }
    },
};

/// The Kautz graph K(b, n) of switches with `hosts` terminals on each.
pub fn kautz(b: u32, n: u32, hosts: u32) -> Result<Network, TopologyError> {
    let switches = switch_count(b, n)?;
    let terminals = u64::from(hosts) * switches;
    if terminals > MAX_NODES {
        return Err(bad_param(
            "kautz",
            "hosts",
            hosts,
            format!(
                "at most {} per switch ({MAX_NODES} terminals in all)",
                MAX_NODES / switches
            ),
        ));
    }
    let name = format!("kautz:b={b},n={n},hosts={hosts}");
    generate(b, n, terminals as u32, ("hosts", hosts), name)
}

/// The Kautz graph K(b, n) of switches with `terminals` terminals in all,
/// spread as evenly as possible, earlier switches first.
pub fn kautz_with_terminals(b: u32, n: u32, terminals: u32) -> Result<Network, TopologyError> {
    switch_count(b, n)?;
    if u64::from(terminals) > MAX_NODES {
        return Err(bad_param(
            "kautz",
            "terminals",
            terminals,
            format!("an integer in 0..={MAX_NODES}"),
        ));
    }
    let name = format!("kautz:b={b},n={n},terminals={terminals}");
    generate(b, n, terminals, ("terminals", terminals), name)
}

fn switch_count(b: u32, n: u32) -> Result<u64, TopologyError> {
    if b == 0 || b > u32::from(u16::MAX) / 2 {
        return Err(bad_param("kautz", "b", b, "an integer in 1..=32767"));
    }
    if n == 0 || n > 64 {
        return Err(bad_param("kautz", "n", n, "an integer in 1..=64"));
    }
    let count = (0..n).try_fold(u64::from(b) + 1, |acc, _| acc.checked_mul(u64::from(b)));
    match count {
        Some(c) if c <= MAX_SWITCHES => Ok(c),
        _ => Err(TopologyError::impossible(format!(
            "kautz: K({b}, {n}) has (b+1)*b^n switches, more than {MAX_SWITCHES}; lower b or n"
        ))),
    }
}

/// The word `s_0 .. s_n` of switch `index` in K(b, n), `None` if out of range.
pub fn kautz_word(b: u32, n: u32, index: u32) -> Option<Vec<u32>> {
    let (b64, len) = (u64::from(b), n as usize + 1);
    let tail = (0..n).try_fold(1u64, |acc, _| acc.checked_mul(b64))?;
    if b == 0 || u64::from(index) >= tail.checked_mul(b64 + 1)? {
        return None;
    }
    // Symbol i > 0 is the offset-th symbol other than symbol i - 1, which
    // keeps the order lexicographic.
    let mut offsets = vec![0u32; len];
    let mut rest = u64::from(index);
    for o in offsets[1..].iter_mut().rev() {
        *o = (rest % b64) as u32;
        rest /= b64;
    }
    let mut word = Vec::with_capacity(len);
    word.push(rest as u32);
    for &o in &offsets[1..] {
        let prev = word[word.len() - 1];
        word.push(o + u32::from(o >= prev));
    }
    Some(word)
}

/// The switch index of a Kautz word, the inverse of [`kautz_word`]; `None`
/// if the word is not one of K(b, n).
pub fn kautz_index(b: u32, n: u32, word: &[u32]) -> Option<u32> {
    if word.len() != n as usize + 1 || word[0] > b {
        return None;
    }
    let mut index = u64::from(word[0]);
    for pair in word.windows(2) {
        let (prev, s) = (pair[0], pair[1]);
        if s == prev || s > b {
            return None;
        }
        index = index * u64::from(b) + u64::from(s - u32::from(s > prev));
    }
    u32::try_from(index).ok()
}

/// The port of a Kautz switch carrying the arc to the successor that appends
/// the `j`-th symbol other than its last (`j < b`).
pub fn kautz_out_port(j: u32) -> PortId {
    PortId(j as u16 + 1)
}

/// The port of a Kautz switch carrying the arc from the predecessor that
/// prepends the `e`-th symbol other than its first (`e < b`).
pub fn kautz_in_port(b: u32, e: u32) -> PortId {
    PortId((b + 1 + e) as u16)
}

/// Builds K(b, n) with `terminals` spread over the switches; `given` is the
/// parameter they came from, for errors.
fn generate(
    b: u32,
    n: u32,
    terminals: u32,
    given: (&str, u32),
    name: String,
) -> Result<Network, TopologyError> {
    let switches = switch_count(b, n)? as u32;
    let (per, extra) = (terminals / switches, terminals % switches);
    let hosts = per + u32::from(extra > 0);
    let ports = 2 * b + hosts;
    if ports > u32::from(u16::MAX) {
        let room = u32::from(u16::MAX) - 2 * b;
        return Err(bad_param(
            "kautz",
            given.0,
            given.1,
            format!(
                "at most {room} terminals per switch (2b switch ports plus terminals <= 65535)"
            ),
        ));
    }
    let (mut builder, sw_class, t_class) = NetworkBuilder::with_default_classes(name);
    let words = (0..switches)
        .map(|s| kautz_word(b, n, s).ok_or_else(|| internal(s)))
        .collect::<Result<Vec<_>, _>>()?;
    for word in &words {
        builder.add_switch(format!("s{}", join(word)), ports as u16);
    }
    for (u, word) in words.iter().enumerate() {
        let last = word[n as usize];
        for j in 0..b {
            let x = j + u32::from(j >= last);
            let mut next = word[1..].to_vec();
            next.push(x);
            let v = kautz_index(b, n, &next).ok_or_else(|| internal(u as u32))?;
            let e = word[0] - u32::from(word[0] > word[1]);
            builder.connect(
                NodeId(u as u32),
                kautz_out_port(j),
                NodeId(v),
                kautz_in_port(b, e),
                sw_class,
            )?;
        }
    }
    let mut t = 0u32;
    for s in 0..switches {
        for k in 0..per + u32::from(s < extra) {
            let h = builder.add_terminal(format!("h{t}"), 1);
            builder.connect(
                NodeId(s),
                PortId((2 * b + 1 + k) as u16),
                h,
                PortId(1),
                t_class,
            )?;
            t += 1;
        }
    }
    builder.set_structure(Structure::Kautz {
        b,
        n,
        hosts,
        terminals,
    });
    builder.build()
}

fn internal(s: u32) -> TopologyError {
    TopologyError::impossible(format!("kautz: switch {s} has no valid word"))
}

fn join(word: &[u32]) -> String {
    word.iter()
        .map(u32::to_string)
        .collect::<Vec<_>>()
        .join(".")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::network::metrics::{bfs_distances, is_connected};

    #[test]
    fn counts_and_degrees() {
        let net = kautz(2, 3, 4).unwrap();
        assert_eq!(net.switches().len(), 3 * 8);
        assert_eq!(net.terminals().len(), 24 * 4);
        assert!(is_connected(&net));
        for &s in net.switches() {
            assert_eq!(net.degree(s), 4 + 4);
        }
        // Undirected diameter among switches is at most n + 1.
        for &s in net.switches() {
            let d = bfs_distances(&net, s);
            assert!(net.switches().iter().all(|v| d[v.index()] <= 4));
        }
    }

    #[test]
    fn arcs_shift_words() {
        let (b, n) = (3, 2);
        let net = kautz(b, n, 0).unwrap();
        for c in net.channel_ids().step_by(2) {
            let ch = net.channel(c);
            let u = kautz_word(b, n, ch.src.0).unwrap();
            let v = kautz_word(b, n, ch.dst.0).unwrap();
            assert_eq!(u[1..], v[..n as usize]);
            assert!(ch.src_port.0 <= b as u16 && ch.dst_port.0 > b as u16);
        }
        assert_eq!(net.cable_count(), (4 * 9 * 3) as usize);
    }

    #[test]
    fn reciprocal_arcs_are_parallel_cables() {
        let net = kautz(2, 3, 1).unwrap();
        let u = NodeId(kautz_index(2, 3, &[0, 1, 0, 1]).unwrap());
        let v = NodeId(kautz_index(2, 3, &[1, 0, 1, 0]).unwrap());
        assert_eq!(net.neighbors(u).filter(|&x| x == v).count(), 2);
        // (b+1)*b alternating words, pairwise joined by two cables.
        let parallel: usize = net
            .switches()
            .iter()
            .map(|&s| {
                let mut ns: Vec<_> = net.neighbors(s).filter(|&x| net.is_switch(x)).collect();
                ns.sort();
                ns.windows(2).filter(|w| w[0] == w[1]).count()
            })
            .sum();
        assert_eq!(parallel, 6);
    }

    #[test]
    fn words_round_trip_in_lexicographic_order() {
        let (b, n) = (3, 3);
        let mut prev: Option<Vec<u32>> = None;
        for s in 0..4 * 27 {
            let w = kautz_word(b, n, s).unwrap();
            assert!(w.windows(2).all(|p| p[0] != p[1] && p[1] <= b));
            assert_eq!(kautz_index(b, n, &w), Some(s));
            if let Some(p) = prev {
                assert!(p < w);
            }
            prev = Some(w);
        }
        assert_eq!(kautz_word(b, n, 4 * 27), None);
        assert_eq!(kautz_index(b, n, &[0, 0, 1, 2]), None);
    }

    #[test]
    fn total_terminals_spread_evenly() {
        let net = kautz_with_terminals(2, 2, 64).unwrap();
        assert_eq!(net.switches().len(), 12);
        assert_eq!(net.terminals().len(), 64);
        // 64 = 12 * 5 + 4: switches 0..4 hold 6 terminals, the rest 5.
        for (i, &s) in net.switches().iter().enumerate() {
            assert_eq!(net.degree(s), 4 + if i < 4 { 6 } else { 5 });
        }
        assert_eq!(net.attached_switch(net.terminal(24)), Some(NodeId(4)));
    }

    #[test]
    fn single_symbol_pair() {
        let net = kautz(1, 3, 1).unwrap();
        assert_eq!(net.switches().len(), 2);
        assert_eq!(net.cable_count(), 2 + 2);
        assert!(is_connected(&net));
    }

    #[test]
    fn bad_parameters_name_the_key() {
        let e = kautz(0, 3, 1).unwrap_err().to_string();
        assert!(e.contains("'b'") && e.contains("1..="), "{e}");
        let e = kautz(2, 0, 1).unwrap_err().to_string();
        assert!(e.contains("'n'"), "{e}");
        let e = kautz(8, 8, 1).unwrap_err().to_string();
        assert!(e.contains("lower b or n"), "{e}");
        let e = kautz_with_terminals(1, 1, 2 * 65534)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("'terminals'") && e.contains("at most 65533"),
            "{e}"
        );
        let e = crate::network::spec::build("kautz:b=2,n=2,hosts=2,terminals=8")
            .unwrap_err()
            .to_string();
        assert!(e.contains("not both"), "{e}");
    }
}
