//! k-ary n-trees and extended generalized fat trees (XGFT).
//!
//! XGFT(h; m_1..m_h; w_1..w_h) (Öhring et al.) has levels 0..=h. Level 0
//! holds the `m_1 * .. * m_h` terminals. A level-i node has the label
//! `(a_h .. a_{i+1}, b_i .. b_1)` with `a_j < m_j` and `b_j < w_j`; a level
//! i-1 node and a level-i node are joined when their labels agree except in
//! position i. So a level-i switch has `m_i` children and `w_{i+1}` parents.
//!
//! Numbering: switches first, level 1 upward, each level in label order
//! (position 1 fastest), then terminals in label order, so terminal `t` has
//! the a-digits of `t` in mixed radix `m` (a_1 fastest) and terminals on the
//! same level-1 switch are consecutive.
//!
//! Ports: a level-i switch has down ports `1..=m_i` (port `j + 1` leads to
//! the child with `a_i = j`) and up ports `m_i + 1 ..= m_i + w_{i+1}` (port
//! `m_i + 1 + j` leads to the parent with `b_{i+1} = j`); top switches have
//! no up ports. A terminal has `w_1` ports, port `j + 1` to the parent with
//! `b_1 = j`. D-mod-k routing relies on these conventions, which the
//! helpers below compute.
//!
//! A k-ary n-tree (Petrini & Vanneschi) is XGFT(n; k..k; 1, k..k).

use crate::network::spec::Family;
use crate::network::{Network, NetworkBuilder, NodeId, PortId, Structure, TopologyError};

use super::bad_param;

/// The largest network (switches plus terminals) the tree generators build.
const MAX_NODES: u64 = 1 << 22;

pub const KARY_NTREE: Family = Family {
    name: "kary-ntree",
    usage: "kary-ntree:k=4,n=3  (k^n terminals, n levels of k^(n-1) switches)",
    keys: &["k", "n"],
    positional: None,
    generate: |a| {
        let k = a.u32("k", None, 2, u32::from(u16::MAX) / 2)?;
        let n = a.u32("n", None, 1, 32)?;
        kary_ntree(k, n)
    },
};

pub const XGFT: Family = Family {
    name: "xgft",
    usage: "xgft:m=32x32,w=1x32  (XGFT(h; m_1..m_h; w_1..w_h), level 1 first)",
    keys: &["m", "w"],
    positional: None,
    generate: |a| {
        let m = a.list("m", 1, u32::from(u16::MAX))?;
        let w = a.list("w", 1, u32::from(u16::MAX))?;
        xgft(&m, &w)
    },
};

/// A k-ary n-tree: `k^n` terminals and `n` levels of `k^(n-1)` switches,
/// built as XGFT(n; k..k; 1, k..k) so D-mod-k sees one tree model.
pub fn kary_ntree(k: u32, n: u32) -> Result<Network, TopologyError> {
    const FAMILY: &str = "kary-ntree";
    if k < 2 || k > u32::from(u16::MAX) / 2 {
        return Err(bad_param(FAMILY, "k", k, "an integer in 2..=32767"));
    }
    if n == 0 || n > 32 {
        return Err(bad_param(FAMILY, "n", n, "an integer in 1..=32"));
    }
    let m = vec![k; n as usize];
    let mut w = vec![k; n as usize];
    w[0] = 1;
    generate(FAMILY, format!("kary-ntree:k={k},n={n}"), &m, &w, true)
}

/// An extended generalized fat tree XGFT(h; m; w) with `h = m.len()`.
pub fn xgft(m: &[u32], w: &[u32]) -> Result<Network, TopologyError> {
    let name = format!("xgft:m={},w={}", join(m, "x"), join(w, "x"));
    generate("xgft", name, m, w, false)
}

fn join(v: &[u32], sep: &str) -> String {
    v.iter().map(u32::to_string).collect::<Vec<_>>().join(sep)
}

/// Nodes per level `0..=h` (level 0: terminals), or `None` on overflow.
pub fn xgft_level_sizes(m: &[u32], w: &[u32]) -> Option<Vec<u64>> {
    (0..=m.len())
        .map(|level| radices(m, w, level).try_fold(1u64, |acc, r| acc.checked_mul(u64::from(r))))
        .collect()
}

/// Radix of each label position `1..=h` at `level`: `w_j` up to the level,
/// `m_j` above it.
fn radices<'a>(
    m: &'a [u32],
    w: &'a [u32],
    level: usize,
) -> impl DoubleEndedIterator<Item = u32> + ExactSizeIterator + 'a {
    m.iter()
        .zip(w)
        .enumerate()
        .map(move |(j, (&mj, &wj))| if j < level { wj } else { mj })
}

/// Digits of `index` in the label radices of `level`; `label[j - 1]` is the
/// digit in position `j`.
fn digits(m: &[u32], w: &[u32], level: usize, mut index: u64) -> Vec<u32> {
    radices(m, w, level)
        .map(|r| {
            let d = index % u64::from(r);
            index /= u64::from(r);
            d as u32
        })
        .collect()
}

/// The level (`1..=h`) and label of switch `switch_index` (its position in
/// the switch numbering, equal to its node id). `label[j - 1]` is the digit
/// in position `j`: `b_j` for `j <= level`, `a_j` above. `None` if out of
/// range.
pub fn xgft_level_and_label(m: &[u32], w: &[u32], switch_index: u32) -> Option<(u32, Vec<u32>)> {
    let sizes = xgft_level_sizes(m, w)?;
    let mut index = u64::from(switch_index);
    for (level, &size) in sizes.iter().enumerate().skip(1) {
        if index < size {
            return Some((level as u32, digits(m, w, level, index)));
        }
        index -= size;
    }
    None
}

/// The switch index (node id) of the level-`level` switch with `label`, the
/// inverse of [`xgft_level_and_label`]. `None` if out of range.
pub fn xgft_switch_index(m: &[u32], w: &[u32], level: u32, label: &[u32]) -> Option<u32> {
    let level = level as usize;
    if level == 0 || level > m.len() || label.len() != m.len() || w.len() != m.len() {
        return None;
    }
    let sizes = xgft_level_sizes(m, w)?;
    let base: u64 = sizes[1..level].iter().sum();
    let mut index = 0u64;
    for (&d, r) in label.iter().zip(radices(m, w, level)).rev() {
        if d >= r {
            return None;
        }
        index = index * u64::from(r) + u64::from(d);
    }
    u32::try_from(base + index).ok()
}

/// The a-digits of terminal `t` (`label[j - 1] = a_j`), `None` if out of
/// range.
pub fn xgft_terminal_label(m: &[u32], t: u32) -> Option<Vec<u32>> {
    let count = m
        .iter()
        .try_fold(1u64, |acc, &r| acc.checked_mul(u64::from(r)))?;
    (u64::from(t) < count).then(|| digits(m, m, 0, u64::from(t)))
}

/// The down port of a switch leading to its child with `a_i = a`.
pub fn xgft_down_port(a: u32) -> PortId {
    PortId(a as u16 + 1)
}

/// The up port of a level-`level` node (0: terminal) leading to its parent
/// with `b_{level+1} = b`.
pub fn xgft_up_port(m: &[u32], level: u32, b: u32) -> PortId {
    let down = match level {
        0 => 0,
        l => m.get(l as usize - 1).copied().unwrap_or(0),
    };
    PortId((down + 1 + b) as u16)
}

fn generate(
    family: &str,
    name: String,
    m: &[u32],
    w: &[u32],
    kary_ntree: bool,
) -> Result<Network, TopologyError> {
    let h = m.len();
    if h == 0 {
        return Err(bad_param(
            family,
            "m",
            "",
            "a list like 4x4 with one entry per level",
        ));
    }
    if w.len() != h {
        return Err(bad_param(
            family,
            "w",
            join(w, "x"),
            format!("a list of {h} entries, one per level like m"),
        ));
    }
    let max_port = u32::from(u16::MAX);
    if let Some(&x) = m.iter().find(|&&x| x == 0 || x > max_port) {
        return Err(bad_param(
            family,
            "m",
            x,
            format!("entries in 1..={max_port}"),
        ));
    }
    if let Some(&x) = w.iter().find(|&&x| x == 0 || x > max_port) {
        return Err(bad_param(
            family,
            "w",
            x,
            format!("entries in 1..={max_port}"),
        ));
    }
    for i in 1..h {
        // A level-i switch has m_i down and w_{i+1} up ports.
        if m[i - 1] + w[i] > max_port {
            return Err(TopologyError::impossible(format!(
                "{family}: level-{i} switches would need m_{i} + w_{} = {} ports; at most {max_port}",
                i + 1,
                m[i - 1] + w[i]
            )));
        }
    }
    let sizes = xgft_level_sizes(m, w)
        .filter(|s| s.iter().try_fold(0u64, |a, &x| a.checked_add(x)).is_some())
        .ok_or_else(|| too_large(family, u64::MAX))?;
    let total: u64 = sizes.iter().sum();
    if total > MAX_NODES {
        return Err(too_large(family, total));
    }
    let switch_count: u64 = sizes[1..].iter().sum();
    // Node id of the first node of each level; terminals come after switches.
    let mut first = vec![switch_count; h + 1];
    let mut acc = 0u64;
    for level in 1..=h {
        first[level] = acc;
        acc += sizes[level];
    }
    let node = |level: usize, index: u64| NodeId((first[level] + index) as u32);

    let (mut b, sw_class, t_class) = NetworkBuilder::with_default_classes(name);
    for level in 1..=h {
        let ports = m[level - 1] + if level < h { w[level] } else { 0 };
        for x in 0..sizes[level] {
            let mut label = digits(m, w, level, x);
            label.reverse();
            b.add_switch(format!("s{level}-{}", join(&label, ".")), ports as u16);
        }
    }
    for t in 0..sizes[0] {
        b.add_terminal(format!("h{t}"), w[0] as u16);
    }
    // Cable each node to its children. Position `level` holds b_level in the
    // parent's label and a_level in the child's; the others are shared, so
    // the child's index only differs in that digit and its radix.
    for level in 1..=h {
        let low: u64 = w[..level - 1].iter().map(|&x| u64::from(x)).product();
        let (wl, ml) = (u64::from(w[level - 1]), u64::from(m[level - 1]));
        let class = if level == 1 { t_class } else { sw_class };
        for x in 0..sizes[level] {
            let (lo, bi, hi) = (x % low, (x / low) % wl, x / (low * wl));
            for a in 0..ml {
                let child = hi * ml * low + a * low + lo;
                b.connect(
                    node(level, x),
                    xgft_down_port(a as u32),
                    node(level - 1, child),
                    xgft_up_port(m, level as u32 - 1, bi as u32),
                    class,
                )?;
            }
        }
    }
    b.set_structure(Structure::Xgft {
        m: m.to_vec(),
        w: w.to_vec(),
        kary_ntree,
    });
    b.build()
}

fn too_large(family: &str, total: u64) -> TopologyError {
    TopologyError::impossible(format!(
        "{family}: {total} nodes is too many: at most {MAX_NODES} switches and terminals"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::network::metrics::{count_shortest_paths, is_connected};

    #[test]
    fn kary_ntree_counts() {
        let net = kary_ntree(4, 3).unwrap();
        assert_eq!(net.terminals().len(), 64);
        assert_eq!(net.switches().len(), 3 * 16);
        assert!(is_connected(&net));
        // Leaves: 4 hosts + 4 up; middle: 4 + 4; roots: 4 down.
        for &s in net.switches() {
            let (level, _) = xgft_level_and_label(&[4; 3], &[1, 4, 4], s.0).unwrap();
            assert_eq!(net.degree(s), if level == 3 { 4 } else { 8 });
        }
        // Hosts on different leaves of different subtrees: k^(n-1) = 16 routes.
        assert_eq!(
            count_shortest_paths(&net, net.terminal(0), net.terminal(63)),
            16
        );
        assert_eq!(
            count_shortest_paths(&net, net.terminal(0), net.terminal(1)),
            1
        );
        assert_eq!(net.structure().family(), "kary-ntree");
    }

    #[test]
    fn xgft_counts_per_level() {
        let (m, w) = ([3, 2, 4], [2, 3, 2]);
        let net = xgft(&m, &w).unwrap();
        assert_eq!(
            xgft_level_sizes(&m, &w).unwrap(),
            vec![24, 2 * 4 * 2, 4 * 2 * 3, 2 * 3 * 2]
        );
        assert_eq!(net.terminals().len(), 24);
        assert_eq!(net.switches().len(), 16 + 24 + 12);
        assert!(is_connected(&net));
        for &t in net.terminals() {
            assert_eq!(net.degree(t), 2);
        }
    }

    #[test]
    fn ports_follow_labels() {
        let (m, w) = ([3, 2, 4], [2, 3, 2]);
        let net = xgft(&m, &w).unwrap();
        let switches = net.switches().len() as u32;
        for c in net.channel_ids() {
            let ch = net.channel(c);
            // Look at each cable from its lower (child) end.
            let (child, parent) = (ch.src, ch.dst);
            let child_level = if net.is_terminal(child) {
                0
            } else {
                xgft_level_and_label(&m, &w, child.0).unwrap().0
            };
            if net.is_terminal(parent) {
                continue;
            }
            let (plevel, plabel) = xgft_level_and_label(&m, &w, parent.0).unwrap();
            if plevel != child_level + 1 {
                continue;
            }
            let clabel = if child_level == 0 {
                xgft_terminal_label(&m, child.0 - switches).unwrap()
            } else {
                xgft_level_and_label(&m, &w, child.0).unwrap().1
            };
            let i = plevel as usize;
            for j in 0..3 {
                if j != i - 1 {
                    assert_eq!(clabel[j], plabel[j]);
                }
            }
            assert_eq!(ch.dst_port, xgft_down_port(clabel[i - 1]));
            assert_eq!(ch.src_port, xgft_up_port(&m, child_level, plabel[i - 1]));
        }
    }

    #[test]
    fn labels_round_trip() {
        let (m, w) = ([3, 2, 4], [2, 3, 2]);
        for s in 0..52 {
            let (level, label) = xgft_level_and_label(&m, &w, s).unwrap();
            assert_eq!(xgft_switch_index(&m, &w, level, &label), Some(s));
        }
        assert_eq!(xgft_level_and_label(&m, &w, 52), None);
        assert_eq!(xgft_switch_index(&m, &w, 1, &[2, 0, 0]), None);
        assert_eq!(xgft_terminal_label(&m, 7), Some(vec![1, 0, 1]));
        assert_eq!(xgft_terminal_label(&m, 24), None);
    }

    #[test]
    fn terminals_on_a_leaf_are_consecutive() {
        let net = kary_ntree(4, 2).unwrap();
        for t in 0..16 {
            assert_eq!(
                net.attached_switch(net.terminal(t)),
                Some(NodeId(t as u32 / 4))
            );
        }
    }

    #[test]
    fn bad_parameters_name_the_key() {
        let e = kary_ntree(1, 3).unwrap_err().to_string();
        assert!(e.contains("'k'") && e.contains("2..="), "{e}");
        let e = xgft(&[4, 4], &[1]).unwrap_err().to_string();
        assert!(e.contains("'w'") && e.contains("2 entries"), "{e}");
        let e = xgft(&[4, 0], &[1, 4]).unwrap_err().to_string();
        assert!(e.contains("'m'"), "{e}");
        let e = kary_ntree(64, 6).unwrap_err().to_string();
        assert!(e.contains("too many"), "{e}");
        let e = xgft(&[40000, 40000], &[1, 40000]).unwrap_err().to_string();
        assert!(e.contains("ports"), "{e}");
    }
}
