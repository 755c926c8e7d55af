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
//!
//! **Leaf switches** (`terminals=T`). Domke et al. (2011, Table I) build
//! XGFTs and k-ary n-trees of 36-port switches with a given number of
//! endpoints, e.g. 64 on XGFT(1; 6; 3) or 4,096 on an 18-ary 3-tree. There
//! the lowest tree level is made of *switches* and the endpoints hang off
//! them. With `terminals=T`:
//! - `xgft:m=..,w=..,terminals=T`: the `M_h = m_1 ⋯ m_h` level-0 nodes are
//!   leaf switches (XGFT(1; 6; 3) is 6 leaves with 3 up links each under 3
//!   top switches), numbered first, level 0 upward, each level in label
//!   order as above, then the `T` terminals.
//! - `kary-ntree:k=..,n=..,terminals=T` (n >= 2): the level-1 switches of
//!   the k-ary n-tree are the leaves. Its switch graph is XGFT(n-1; k..k;
//!   k..k) with leaf switches, and that is how it is built and recorded
//!   ([`Structure::Xgft`] with `leaf_terminals`); switch names keep the
//!   k-ary n-tree levels (`s1-..` are the leaves).
//!
//! The terminals are spread over the leaves in blocks, as evenly as
//! possible: with `L` leaves, leaf `x` holds `T / L` terminals plus one if
//! `x < T mod L`, and terminal indices follow leaf order (the terminals of
//! leaf 0 first, consecutive per leaf), so D-mod-k's arithmetic on
//! destination indices keeps its meaning. A leaf's ports are its up ports
//! `1..=w_1` (port `j + 1` to the parent with `b_1 = j`, as for a level-0
//! node without leaves) and then its terminals on `w_1 + 1 ..`; its port
//! count is `w_1` plus its terminals, at most 65,535 (no other limit is
//! imposed: the summary's switch degrees show the ports each switch uses,
//! to compare with a real radix such as 36).

use crate::network::spec::Family;
use crate::network::{Network, NetworkBuilder, NodeId, PortId, Structure, TopologyError};

use super::bad_param;

/// The largest network (switches plus terminals) the tree generators build.
const MAX_NODES: u64 = 1 << 22;

pub const KARY_NTREE: Family = Family {
    name: "kary-ntree",
    usage: "kary-ntree:k=4,n=3[,terminals=T]  (k^n terminals, n levels of k^(n-1) switches; \
            T: T terminals spread over the level-1 leaf switches instead)",
    keys: &["k", "n", "terminals"],
    positional: None,
    generate: |a| {
        let k = a.u32("k", None, 2, u32::from(u16::MAX) / 2)?;
        let n = a.u32("n", None, 1, 32)?;
        match a.opt_u32("terminals", 0, MAX_NODES as u32)? {
            Some(t) => kary_ntree_with_terminals(k, n, t),
            None => kary_ntree(k, n),
        }
    },
};

pub const XGFT: Family = Family {
    name: "xgft",
    usage: "xgft:m=32x32,w=1x32[,terminals=T][,trunks=1x2]  (XGFT(h; m_1..m_h; w_1..w_h), \
            level 1 first; T: level 0 is leaf switches holding T terminals in all; trunks: \
            parallel cables between each level-i switch and each child, per level)",
    keys: &["m", "w", "terminals", "trunks"],
    positional: None,
    generate: |a| {
        let m = a.list("m", 1, u32::from(u16::MAX))?;
        let w = a.list("w", 1, u32::from(u16::MAX))?;
        let terminals = a.opt_u32("terminals", 0, MAX_NODES as u32)?;
        if let Some(trunks) = a.opt_list("trunks", 1, u32::from(u16::MAX))? {
            return xgft_trunked(&m, &w, &trunks, terminals);
        }
        match terminals {
            Some(t) => xgft_with_terminals(&m, &w, t),
            None => xgft(&m, &w),
        }
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
    let name = format!("kary-ntree:k={k},n={n}");
    generate(FAMILY, name, &m, &w, true, None)
}

/// A k-ary n-tree whose `k^(n-1)` level-1 switches are leaves holding
/// `terminals` terminals in all, spread in blocks as evenly as possible
/// (see the module notes); built as XGFT(n-1; k..k; k..k) with leaf
/// switches. Needs `n >= 2` (a 1-tree is one switch: `crossbar:T`).
pub fn kary_ntree_with_terminals(k: u32, n: u32, terminals: u32) -> Result<Network, TopologyError> {
    const FAMILY: &str = "kary-ntree";
    if k < 2 || k > u32::from(u16::MAX) / 2 {
        return Err(bad_param(FAMILY, "k", k, "an integer in 2..=32767"));
    }
    if !(2..=32).contains(&n) {
        return Err(bad_param(
            FAMILY,
            "n",
            n,
            "an integer in 2..=32 with terminals (a 1-tree is one switch: use crossbar:T)",
        ));
    }
    let m = vec![k; n as usize - 1];
    let name = format!("kary-ntree:k={k},n={n},terminals={terminals}");
    generate(FAMILY, name, &m, &m, true, Some(terminals))
}

/// An extended generalized fat tree XGFT(h; m; w) with `h = m.len()`.
pub fn xgft(m: &[u32], w: &[u32]) -> Result<Network, TopologyError> {
    let name = format!("xgft:m={},w={}", join(m, "x"), join(w, "x"));
    generate("xgft", name, m, w, false, None)
}

/// XGFT(h; m; w) whose `m_1 ⋯ m_h` level-0 nodes are leaf switches holding
/// `terminals` terminals in all, spread in blocks as evenly as possible (see
/// the module notes).
pub fn xgft_with_terminals(m: &[u32], w: &[u32], terminals: u32) -> Result<Network, TopologyError> {
    let name = format!(
        "xgft:m={},w={},terminals={terminals}",
        join(m, "x"),
        join(w, "x")
    );
    generate("xgft", name, m, w, false, Some(terminals))
}

/// XGFT(h; m; w) whose level-i switches are cabled to each child by
/// `trunks[i - 1]` parallel cables (real fat trees double or treble the
/// cables between a leaf and a spine), with leaf switches holding
/// `terminals` when given. Ports: see [`xgft_down_port_copy`] and
/// [`xgft_up_port`]. Without leaf switches the terminals' level has one
/// cable per parent (`trunks[0] = 1`).
pub fn xgft_trunked(
    m: &[u32],
    w: &[u32],
    trunks: &[u32],
    terminals: Option<u32>,
) -> Result<Network, TopologyError> {
    let mut name = format!("xgft:m={},w={}", join(m, "x"), join(w, "x"));
    if let Some(t) = terminals {
        name.push_str(&format!(",terminals={t}"));
    }
    if !is_untrunked(trunks) {
        name.push_str(&format!(",trunks={}", join(trunks, "x")));
    }
    generate_trunked("xgft", name, m, w, trunks, false, terminals)
}

/// Whether `trunks` asks for single cables everywhere (empty: the default).
pub fn is_untrunked(trunks: &[u32]) -> bool {
    trunks.iter().all(|&t| t == 1)
}

/// Parallel cables between a level-`level` switch and each child
/// (`level >= 1`); 1 where `trunks` is empty.
pub fn xgft_trunk(trunks: &[u32], level: u32) -> u32 {
    (level as usize)
        .checked_sub(1)
        .and_then(|i| trunks.get(i))
        .copied()
        .unwrap_or(1)
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
    xgft_node_level_and_label(m, w, false, switch_index)
}

/// Like [`xgft_level_and_label`], for trees whose level 0 holds leaf
/// switches (`leaf_switches`, the `terminals=T` form: levels `0..=h`, leaves
/// first, a leaf's label being its a-digits) or terminals (levels `1..=h`).
pub fn xgft_node_level_and_label(
    m: &[u32],
    w: &[u32],
    leaf_switches: bool,
    switch_index: u32,
) -> Option<(u32, Vec<u32>)> {
    let sizes = xgft_level_sizes(m, w)?;
    let mut index = u64::from(switch_index);
    let first = usize::from(!leaf_switches);
    for (level, &size) in sizes.iter().enumerate().skip(first) {
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
    xgft_node_switch_index(m, w, false, level, label)
}

/// The inverse of [`xgft_node_level_and_label`].
pub fn xgft_node_switch_index(
    m: &[u32],
    w: &[u32],
    leaf_switches: bool,
    level: u32,
    label: &[u32],
) -> Option<u32> {
    let level = level as usize;
    let first = usize::from(!leaf_switches);
    if level < first || level > m.len() || label.len() != m.len() || w.len() != m.len() {
        return None;
    }
    let sizes = xgft_level_sizes(m, w)?;
    let base: u64 = sizes[first..level].iter().sum();
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

/// Terminals on leaf `x` when `leaves` leaf switches hold `terminals` in
/// all: `terminals / leaves`, plus one for the first `terminals mod leaves`.
pub fn xgft_leaf_terminal_count(leaves: u64, terminals: u64, x: u64) -> u64 {
    if leaves == 0 || x >= leaves {
        return 0;
    }
    terminals / leaves + u64::from(x < terminals % leaves)
}

/// The index of the first terminal on leaf `x` (terminals follow leaf
/// order); `terminals` for `x >= leaves`.
pub fn xgft_leaf_first_terminal(leaves: u64, terminals: u64, x: u64) -> u64 {
    if leaves == 0 || x >= leaves {
        return terminals;
    }
    let (base, extra) = (terminals / leaves, terminals % leaves);
    x * base + x.min(extra)
}

/// The leaf holding terminal `t` and its slot there (`0..` count), `None`
/// if out of range.
pub fn xgft_terminal_leaf(leaves: u64, terminals: u64, t: u64) -> Option<(u64, u64)> {
    if leaves == 0 || t >= terminals {
        return None;
    }
    let (base, extra) = (terminals / leaves, terminals % leaves);
    let big = extra * (base + 1);
    Some(if t < big {
        (t / (base + 1), t % (base + 1))
    } else {
        (extra + (t - big) / base, (t - big) % base)
    })
}

/// The port of a leaf switch holding its `slot`-th terminal: after its
/// `w_1 t_1` up ports (`t_1` cables to each parent, see [`xgft_trunk`]).
pub fn xgft_leaf_terminal_port(w: &[u32], trunks: &[u32], slot: u32) -> PortId {
    let up = w.first().copied().unwrap_or(0) * xgft_trunk(trunks, 1);
    PortId((up + 1 + slot) as u16)
}

/// The down port of a switch leading to its child with `a_i = a` (its
/// first cable there).
pub fn xgft_down_port(a: u32) -> PortId {
    PortId(a as u16 + 1)
}

/// The down port of a level-i switch (`m_i` children) carrying its
/// `copy`-th cable to the child with `a_i = a`: the first cables to each
/// child come first, then the second ones, and so on.
pub fn xgft_down_port_copy(m_i: u32, a: u32, copy: u32) -> PortId {
    PortId((a + copy * m_i + 1) as u16)
}

/// The up port of a level-`level` node (0: terminal or leaf switch) with
/// index `u` among its up ports: `u mod w_{level+1}` is the parent's
/// `b_{level+1}` and `u / w_{level+1}` the cable to it (as on the parent's
/// side, first cables first). Without trunks `u` is `b`.
pub fn xgft_up_port(m: &[u32], trunks: &[u32], level: u32, u: u32) -> PortId {
    let down = match level {
        0 => 0,
        l => m.get(l as usize - 1).copied().unwrap_or(0) * xgft_trunk(trunks, l),
    };
    PortId((down + 1 + u) as u16)
}

fn generate(
    family: &str,
    name: String,
    m: &[u32],
    w: &[u32],
    kary_ntree: bool,
    leaf_terminals: Option<u32>,
) -> Result<Network, TopologyError> {
    generate_trunked(family, name, m, w, &[], kary_ntree, leaf_terminals)
}

fn generate_trunked(
    family: &str,
    name: String,
    m: &[u32],
    w: &[u32],
    trunks: &[u32],
    kary_ntree: bool,
    leaf_terminals: Option<u32>,
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
    if !trunks.is_empty() && trunks.len() != h {
        return Err(bad_param(
            family,
            "trunks",
            join(trunks, "x"),
            format!("a list of {h} entries, one per level like m"),
        ));
    }
    if leaf_terminals.is_none() && xgft_trunk(trunks, 1) != 1 {
        return Err(bad_param(
            family,
            "trunks",
            join(trunks, "x"),
            "a first entry of 1: terminals take one cable to each parent (trunk the leaves' \
             up links with terminals=T)",
        ));
    }
    let t = |level: usize| u64::from(xgft_trunk(trunks, level as u32));
    for i in 0..h {
        // A level-i switch has m_i t_i down and w_{i+1} t_{i+1} up ports.
        let down = if i == 0 {
            0
        } else {
            u64::from(m[i - 1]) * t(i)
        };
        let up = u64::from(w[i]) * t(i + 1);
        if (i > 0 || leaf_terminals.is_some()) && down + up > u64::from(max_port) {
            return Err(TopologyError::impossible(format!(
                "{family}: level-{i} switches would need {} ports; at most {max_port}",
                down + up
            )));
        }
    }
    if u64::from(m[h - 1]) * t(h) > u64::from(max_port) {
        return Err(TopologyError::impossible(format!(
            "{family}: top switches would need {} ports; at most {max_port}",
            u64::from(m[h - 1]) * t(h)
        )));
    }
    let sizes = xgft_level_sizes(m, w)
        .filter(|s| s.iter().try_fold(0u64, |a, &x| a.checked_add(x)).is_some())
        .ok_or_else(|| too_large(family, u64::MAX))?;
    // With leaf switches, level 0 holds switches and the terminals come on
    // top of them.
    let leaves = leaf_terminals.is_some();
    let terminals = leaf_terminals.map_or(sizes[0], u64::from);
    let total: u64 = sizes.iter().sum::<u64>() + if leaves { terminals } else { 0 };
    if total > MAX_NODES {
        return Err(too_large(family, total));
    }
    let low_level = usize::from(!leaves);
    if leaves {
        // The fullest leaf: its up ports and its share of the terminals.
        let up = u64::from(w[0]) * t(1);
        let most = up + terminals.div_ceil(sizes[0]);
        if most > u64::from(max_port) {
            return Err(bad_param(
                family,
                "terminals",
                terminals,
                format!(
                    "at most {} ({} leaf switches of at most {max_port} ports, {} of them up \
                     links): leaves would need {most} ports",
                    sizes[0] * (u64::from(max_port) - up),
                    sizes[0],
                    up
                ),
            ));
        }
    }
    let switch_count: u64 = sizes[low_level..].iter().sum();
    // Node id of the first node of each level; terminals come after switches.
    let mut first = vec![switch_count; h + 1];
    let mut acc = 0u64;
    for level in low_level..=h {
        first[level] = acc;
        acc += sizes[level];
    }
    let node = |level: usize, index: u64| NodeId((first[level] + index) as u32);
    // k-ary n-trees with leaf switches keep their own level numbers in names.
    let shown = |level: usize| level + usize::from(kary_ntree && leaves);

    let (mut b, sw_class, t_class) = NetworkBuilder::with_default_classes(name);
    for level in low_level..=h {
        for x in 0..sizes[level] {
            let ports = if level == 0 {
                u64::from(w[0]) * t(1) + xgft_leaf_terminal_count(sizes[0], terminals, x)
            } else {
                let up = if level < h {
                    u64::from(w[level]) * t(level + 1)
                } else {
                    0
                };
                u64::from(m[level - 1]) * t(level) + up
            };
            let mut label = digits(m, w, level, x);
            label.reverse();
            b.add_switch(
                format!("s{}-{}", shown(level), join(&label, ".")),
                ports as u16,
            );
        }
    }
    let hosts: Vec<NodeId> = (0..terminals)
        .map(|t| b.add_terminal(format!("h{t}"), if leaves { 1 } else { w[0] as u16 }))
        .collect();
    // Cable each node to its children. Position `level` holds b_level in the
    // parent's label and a_level in the child's; the others are shared, so
    // the child's index only differs in that digit and its radix.
    for level in 1..=h {
        let low: u64 = w[..level - 1].iter().map(|&x| u64::from(x)).product();
        let (wl, ml) = (u64::from(w[level - 1]), u64::from(m[level - 1]));
        let to_terminals = level == 1 && !leaves;
        let class = if to_terminals { t_class } else { sw_class };
        for x in 0..sizes[level] {
            let (lo, bi, hi) = (x % low, (x / low) % wl, x / (low * wl));
            for a in 0..ml {
                let child = hi * ml * low + a * low + lo;
                let child = if to_terminals {
                    hosts[child as usize]
                } else {
                    node(level - 1, child)
                };
                for copy in 0..t(level) as u32 {
                    b.connect(
                        node(level, x),
                        xgft_down_port_copy(ml as u32, a as u32, copy),
                        child,
                        xgft_up_port(m, trunks, level as u32 - 1, bi as u32 + copy * wl as u32),
                        class,
                    )?;
                }
            }
        }
    }
    if leaves {
        for (t, &host) in hosts.iter().enumerate() {
            let (leaf, slot) = xgft_terminal_leaf(sizes[0], terminals, t as u64)
                .ok_or_else(|| too_large(family, total))?;
            b.connect(
                node(0, leaf),
                xgft_leaf_terminal_port(w, trunks, slot as u32),
                host,
                PortId(1),
                t_class,
            )?;
        }
    }
    b.set_structure(Structure::Xgft {
        m: m.to_vec(),
        w: w.to_vec(),
        kary_ntree,
        leaf_terminals,
        trunks: if is_untrunked(trunks) {
            Vec::new()
        } else {
            trunks.to_vec()
        },
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
    use crate::network::spec;

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

    /// Trunks multiply the cables between two levels and keep the labels:
    /// copy `c` of the cable to child `a` on port `a + c m_i + 1`, to parent
    /// `b` on up port `b + c w_{i+1}`.
    #[test]
    fn trunked_xgfts_cable_each_pair_as_often_as_asked() {
        let (m, w, tr) = ([4u32, 3], [2u32, 3], [2u32, 3]);
        let net = xgft_trunked(&m, &w, &tr, Some(30)).unwrap();
        assert_eq!(
            net.structure().spec(30).unwrap(),
            "xgft:m=4x3,w=2x3,terminals=30,trunks=2x3"
        );
        let plain = xgft_with_terminals(&m, &w, 30).unwrap();
        assert_eq!(net.switches().len(), plain.switches().len());
        // Leaf-level cables doubled, upper level trebled; terminals once.
        let sizes = xgft_level_sizes(&m, &w).unwrap();
        let cables = sizes[1] * 4 * 2 + sizes[2] * 3 * 3 + 30;
        assert_eq!(net.cable_count() as u64, cables);
        for c in net.channels() {
            if !(net.is_switch(c.src) && net.is_switch(c.dst)) || c.dst.0 > c.src.0 {
                continue;
            }
            // c goes down from a level-i switch to its child.
            let (level, plabel) = xgft_node_level_and_label(&m, &w, true, c.src.0).unwrap();
            let (_, clabel) = xgft_node_level_and_label(&m, &w, true, c.dst.0).unwrap();
            let i = level as usize;
            let (mi, t) = (m[i - 1], tr[i - 1]);
            let a = clabel[i - 1];
            let copy = (u32::from(c.src_port.0) - 1) / mi;
            assert!(copy < t);
            assert_eq!(c.src_port, xgft_down_port_copy(mi, a, copy));
            assert_eq!(
                c.dst_port,
                xgft_up_port(&m, &tr, level - 1, plabel[i - 1] + copy * w[i - 1])
            );
        }
        // Terminals come after the leaves' w_1 t_1 = 4 up ports.
        let host = net.terminal(0);
        let ch = net.channel(net.channel_at(host, PortId(1)).unwrap());
        assert_eq!(ch.dst_port, xgft_leaf_terminal_port(&w, &tr, 0));
        assert_eq!(ch.dst_port, PortId(5));
        // The spec builds the same network; a trunked terminal level is refused.
        let again = spec::build("xgft:m=4x3,w=2x3,terminals=30,trunks=2x3").unwrap();
        assert_eq!(again.structure(), net.structure());
        let e = spec::build("xgft:m=4x3,w=1x3,trunks=2x3")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("trunks") && e.contains("first entry of 1"),
            "{e}"
        );
        let e = spec::build("xgft:m=4x3,w=2x3,terminals=30,trunks=2")
            .unwrap_err()
            .to_string();
        assert!(e.contains("trunks") && e.contains("2 entries"), "{e}");
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
            assert_eq!(
                ch.src_port,
                xgft_up_port(&m, &[], child_level, plabel[i - 1])
            );
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

    /// Terminals per switch, in switch order.
    fn hosts_per_switch(net: &Network) -> Vec<usize> {
        net.switches()
            .iter()
            .map(|&s| net.neighbors(s).filter(|&v| net.is_terminal(v)).count())
            .collect()
    }

    #[test]
    fn leaf_terminals_in_blocks() {
        assert_eq!(
            (0..6)
                .map(|x| xgft_leaf_terminal_count(6, 64, x))
                .collect::<Vec<_>>(),
            vec![11, 11, 11, 11, 10, 10]
        );
        assert_eq!(xgft_leaf_first_terminal(6, 64, 4), 44);
        assert_eq!(xgft_leaf_first_terminal(6, 64, 6), 64);
        let mut expect = Vec::new();
        for x in 0..6 {
            for slot in 0..xgft_leaf_terminal_count(6, 64, x) {
                expect.push(Some((x, slot)));
            }
        }
        let got: Vec<_> = (0..64).map(|t| xgft_terminal_leaf(6, 64, t)).collect();
        assert_eq!(got, expect);
        assert_eq!(xgft_terminal_leaf(6, 64, 64), None);
        assert_eq!(xgft_terminal_leaf(4, 3, 2), Some((2, 0)));
    }

    /// XGFT(1; 6; 3) with 64 endpoints, as in Table I of Domke et al.:
    /// 6 leaf switches of 3 up links and 11 or 10 terminals, 3 top switches.
    #[test]
    fn xgft_with_leaf_switches_counts() {
        let net = spec::build("xgft:m=6,w=3,terminals=64").unwrap();
        assert_eq!(net.name(), "xgft:m=6,w=3,terminals=64");
        assert_eq!((net.switches().len(), net.terminals().len()), (9, 64));
        assert_eq!(net.cable_count(), 6 * 3 + 64);
        assert!(is_connected(&net));
        assert_eq!(
            hosts_per_switch(&net),
            vec![11, 11, 11, 11, 10, 10, 0, 0, 0]
        );
        for (x, &s) in net.switches().iter().enumerate() {
            let (level, label) = xgft_node_level_and_label(&[6], &[3], true, x as u32).unwrap();
            assert_eq!(
                xgft_node_switch_index(&[6], &[3], true, level, &label),
                Some(x as u32)
            );
            let expect = if level == 0 {
                3 + hosts_per_switch(&net)[x]
            } else {
                6
            };
            assert_eq!(net.degree(s), expect, "{}", net.node(s).name);
            assert_eq!(net.node(s).ports as usize, expect);
        }
        assert_eq!(net.node(net.switches()[0]).name, "s0-0");
        assert_eq!(net.node(net.switches()[6]).name, "s1-0");
        // Terminal order is leaf order, on ports after the up ports.
        for t in 0..64u32 {
            let host = net.terminal(t as usize);
            let (leaf, slot) = xgft_terminal_leaf(6, 64, u64::from(t)).unwrap();
            let ch = net.channel(net.channel_at(host, PortId(1)).unwrap());
            assert_eq!(ch.dst, NodeId(leaf as u32));
            assert_eq!(ch.dst_port, xgft_leaf_terminal_port(&[3], &[], slot as u32));
            assert_eq!(net.degree(host), 1);
        }
        assert_eq!(
            net.structure(),
            &Structure::Xgft {
                m: vec![6],
                w: vec![3],
                kary_ntree: false,
                leaf_terminals: Some(64),
                trunks: Vec::new(),
            }
        );
        // Leaves 0 and 5 differ in a_1: one switch hop up and one down.
        assert_eq!(
            count_shortest_paths(&net, net.terminal(0), net.terminal(63)),
            3
        );
    }

    /// Table I's larger trees: ports stay within 36, as in the paper.
    #[test]
    fn table_one_trees_fit_36_port_switches() {
        for (spec, switches) in [
            ("xgft:m=18x18,w=9x9,terminals=4096", 324 + 162 + 81),
            ("xgft:m=6x6,w=3x3,terminals=512", 36 + 18 + 9),
            ("kary-ntree:k=18,n=3,terminals=4096", 3 * 324),
            ("kary-ntree:k=6,n=2,terminals=64", 12),
            ("kary-ntree:k=16,n=2,terminals=256", 32),
        ] {
            let net = spec::build(spec).unwrap();
            assert_eq!(net.switches().len(), switches, "{spec}");
            assert!(is_connected(&net), "{spec}");
            let most = net.switches().iter().map(|&s| net.degree(s)).max();
            assert!(most.unwrap() <= 36, "{spec}: {most:?}");
            let hosts: usize = hosts_per_switch(&net).iter().sum();
            assert_eq!(hosts, net.terminals().len());
        }
    }

    /// A k-ary n-tree with leaf terminals has the k-ary n-tree's switch
    /// graph: XGFT(n-1; k..k; k..k) with leaf switches.
    #[test]
    fn kary_ntree_with_leaf_terminals() {
        let net = kary_ntree_with_terminals(4, 3, 70).unwrap();
        let plain = kary_ntree(4, 3).unwrap();
        assert_eq!(net.switches().len(), plain.switches().len());
        assert_eq!(net.terminals().len(), 70);
        assert_eq!(net.structure().family(), "kary-ntree");
        let Structure::Xgft {
            m,
            w,
            kary_ntree: true,
            leaf_terminals: Some(70),
            ..
        } = net.structure()
        else {
            panic!("{:?}", net.structure());
        };
        assert_eq!((m.as_slice(), w.as_slice()), (&[4, 4][..], &[4, 4][..]));
        // The same switch-to-switch cabling as the plain tree, switch by switch.
        let links = |n: &Network| -> Vec<Vec<u32>> {
            n.switches()
                .iter()
                .map(|&s| {
                    let mut v: Vec<u32> = n
                        .neighbors(s)
                        .filter(|&x| n.is_switch(x))
                        .map(|x| x.0)
                        .collect();
                    v.sort_unstable();
                    v
                })
                .collect()
        };
        assert_eq!(links(&net), links(&plain));
        assert_eq!(net.node(net.switches()[0]).name, "s1-0.0");
        assert_eq!(net.node(net.switches()[47]).name, "s3-3.3");
        let hosts = hosts_per_switch(&net);
        assert_eq!(
            &hosts[..16],
            &[5, 5, 5, 5, 5, 5, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4]
        );
        assert!(hosts[16..].iter().all(|&h| h == 0));
        // Hosts on leaves of different top subtrees: k^(n-1) = 16 routes.
        assert_eq!(
            count_shortest_paths(&net, net.terminal(0), net.terminal(69)),
            16
        );
    }

    #[test]
    fn leaf_terminal_errors() {
        let e = kary_ntree_with_terminals(4, 1, 8).unwrap_err().to_string();
        assert!(e.contains("'n'") && e.contains("crossbar"), "{e}");
        // 2 leaves of 1 up port: at most 2 * 65534 terminals.
        let e = xgft_with_terminals(&[2], &[1], 200_000)
            .unwrap_err()
            .to_string();
        assert!(e.contains("'terminals'") && e.contains("131068"), "{e}");
        assert!(xgft_with_terminals(&[2], &[1], 131_068).is_ok());
        let e = spec::build("xgft:m=4,w=2,terminals=-1")
            .unwrap_err()
            .to_string();
        assert!(e.contains("terminals"), "{e}");
        let e = spec::build("kary-ntree:k=4,n=3,hosts=2")
            .unwrap_err()
            .to_string();
        assert!(e.contains("terminals"), "{e}");
        // No terminals at all is a valid (empty) fabric.
        let net = xgft_with_terminals(&[2, 2], &[2, 2], 0).unwrap();
        assert_eq!((net.switches().len(), net.terminals().len()), (12, 0));
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
