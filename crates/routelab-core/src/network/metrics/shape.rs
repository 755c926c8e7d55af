//! Regular shapes the metrics can use closed forms for.
//!
//! A [`Structure`] is what a generator said it built; a network re-opened
//! with [`Network::to_builder`] and edited may no longer match it. So every
//! structural shape is checked against the cabling (in O(cables)) before a
//! formula trusts it, and two shapes are recognised from the cabling alone:
//! a single switch (crossbar) and a two-level leaf-spine (folded Clos),
//! whatever the network calls itself.

use crate::network::build::hyperx::hyperx_port;
use crate::network::build::torus::dim_port;
use crate::network::{Network, NodeId, PortId, Structure};

/// A verified regular shape.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Shape {
    /// One switch; every terminal has one cable, to it.
    Single,
    /// Torus (`wrap`) or mesh with exactly the generator's cabling and `c`
    /// single-homed terminals on every switch.
    Grid { dims: Vec<u32>, wrap: bool, c: u32 },
    /// Binary n-cube with `c` single-homed terminals per switch.
    Hypercube { n: u32, c: u32 },
    /// HyperX with exactly the generator's cabling (`t` cables between
    /// switches that differ in one coordinate, on the documented ports) and
    /// `c` single-homed terminals on every switch.
    HyperX { sides: Vec<u32>, t: u32, c: u32 },
    /// XGFT(h; m; w) with exactly the generator's cabling; `sizes[l]` nodes
    /// on level `l` (level 0: terminals, or leaf switches when `leaf_hosts`
    /// is set).
    Xgft {
        m: Vec<u32>,
        w: Vec<u32>,
        sizes: Vec<u64>,
        /// With leaf switches: the terminals on each leaf, in label order
        /// (each on one cable, as counted on the cabling).
        leaf_hosts: Option<Vec<u64>>,
    },
    /// Two levels: leaves (the switches holding terminals, each terminal on
    /// one cable) and spines (the others), every leaf cabled exactly `mult`
    /// times to every spine and to nothing else.
    LeafSpine {
        /// Terminals per switch; zero exactly for spines.
        hosts: Vec<u64>,
        leaves: u64,
        spines: u64,
        mult: u64,
    },
}

/// The shape of `net`, if it has one the metrics know.
pub(crate) fn recognise(net: &Network) -> Option<Shape> {
    let declared = match net.structure() {
        Structure::Torus {
            dims,
            wrap,
            concentration,
        } => grid(net, dims, *wrap, *concentration).then(|| Shape::Grid {
            dims: dims.clone(),
            wrap: *wrap,
            c: *concentration,
        }),
        Structure::Hypercube { n, concentration } => {
            hypercube(net, *n, *concentration).then_some(Shape::Hypercube {
                n: *n,
                c: *concentration,
            })
        }
        Structure::HyperX {
            sides,
            trunking,
            concentration,
        } => hyperx(net, sides, *trunking, *concentration).then(|| Shape::HyperX {
            sides: sides.clone(),
            t: *trunking,
            c: *concentration,
        }),
        // Trunked trees have no closed forms here: the metrics measure them.
        Structure::Xgft { trunks, .. } if !trunks.is_empty() => None,
        Structure::Xgft {
            m,
            w,
            leaf_terminals: None,
            ..
        } => xgft(net, m, w).map(|sizes| Shape::Xgft {
            m: m.clone(),
            w: w.clone(),
            sizes,
            leaf_hosts: None,
        }),
        Structure::Xgft {
            m,
            w,
            leaf_terminals: Some(t),
            ..
        } => xgft_leaves(net, m, w, *t).map(|(sizes, hosts)| Shape::Xgft {
            m: m.clone(),
            w: w.clone(),
            sizes,
            leaf_hosts: Some(hosts),
        }),
        _ => None,
    };
    declared.or_else(|| single(net)).or_else(|| leaf_spine(net))
}

/// Whether the cabling is exactly the layout `net`'s declared structure
/// promises (grids, hypercubes, XGFTs, a crossbar), terminal ports included.
pub(crate) fn declared_holds(net: &Network) -> bool {
    matches!(
        (net.structure(), recognise(net)),
        (Structure::Torus { .. }, Some(Shape::Grid { .. }))
            | (Structure::Hypercube { .. }, Some(Shape::Hypercube { .. }))
            | (Structure::HyperX { .. }, Some(Shape::HyperX { .. }))
            | (Structure::Xgft { .. }, Some(Shape::Xgft { .. }))
            | (Structure::Crossbar { .. }, Some(Shape::Single))
    ) || regenerates(net)
}

/// Whether the generator of a family without closed forms here
/// (dragonflies, Megaflies, Slim Flies) builds exactly `net`'s cabling again from the
/// spec its structure names: every port of every node leads to the same
/// node and port.
fn regenerates(net: &Network) -> bool {
    if !matches!(
        net.structure(),
        Structure::Dragonfly { .. } | Structure::Megafly { .. } | Structure::SlimFly { .. }
    ) {
        return false;
    }
    let Some(spec) = net.structure().spec(net.terminals().len()) else {
        return false;
    };
    let Ok(again) = crate::network::spec::build(&spec) else {
        return false;
    };
    let same_nodes = again.node_count() == net.node_count()
        && again.switches().len() == net.switches().len()
        && again.cable_count() == net.cable_count();
    same_nodes
        && (0..net.node_count() as u32).all(|i| {
            let (x, y) = (NodeId(i), NodeId(i));
            net.node(x).ports == again.node(y).ports
                && (1..=net.node(x).ports).all(|p| {
                    let end = |n: &Network, v: NodeId| {
                        n.channel_at(v, PortId(p)).map(|c| {
                            let ch = n.channel(c);
                            (ch.dst, ch.dst_port)
                        })
                    };
                    end(net, x) == end(&again, y)
                })
        })
}

/// Is `v` a terminal with one cable, leading to switch `s`?
fn leaf_terminal_of(net: &Network, v: NodeId, s: NodeId) -> bool {
    net.is_terminal(v) && net.degree(v) == 1 && net.neighbors(v).next() == Some(s)
}

/// Do ports `first ..= first + c - 1` of `s` each hold a one-cable terminal?
fn terminal_ports(net: &Network, s: NodeId, first: u32, c: u32) -> bool {
    (first..first.saturating_add(c)).all(|p| {
        u16::try_from(p)
            .ok()
            .and_then(|p| net.channel_at(s, PortId(p)))
            .is_some_and(|ch| leaf_terminal_of(net, net.channel(ch).dst, s))
    })
}

/// Does port `p` of `s` lead to `to`?
fn leads_to(net: &Network, s: NodeId, p: PortId, to: NodeId) -> bool {
    net.channel_at(s, p)
        .is_some_and(|ch| net.channel(ch).dst == to)
}

fn grid(net: &Network, dims: &[u32], wrap: bool, c: u32) -> bool {
    if dims.is_empty() || dims.iter().any(|&k| k < 2) || dims.len() > usize::from(u16::MAX) / 2 {
        return false;
    }
    let Some(s) = dims
        .iter()
        .try_fold(1u64, |a, &k| a.checked_mul(u64::from(k)))
    else {
        return false;
    };
    // Switch count first: then s is at most 2^32 and nothing below overflows.
    if net.switches().len() as u64 != s {
        return false;
    }
    let per_dim = |k: u64| if wrap { s } else { s / k * (k - 1) };
    let hosts = s * u64::from(c);
    let cables: u64 = dims.iter().map(|&k| per_dim(u64::from(k))).sum::<u64>() + hosts;
    if net.terminals().len() as u64 != hosts || net.cable_count() as u64 != cables {
        return false;
    }
    let sw = net.switches();
    let first_terminal_port = 2 * dims.len() as u32 + 1;
    sw.iter().enumerate().all(|(i, &node)| {
        let mut stride = 1usize;
        let wired = dims.iter().enumerate().all(|(d, &k)| {
            let k = k as usize;
            let x = (i / stride) % k;
            let ok = (!wrap && x == k - 1) || {
                let nb = i - x * stride + ((x + 1) % k) * stride;
                leads_to(net, node, dim_port(d, true), sw[nb])
            };
            stride *= k;
            ok
        });
        wired && terminal_ports(net, node, first_terminal_port, c)
    })
}

fn hypercube(net: &Network, n: u32, c: u32) -> bool {
    if n == 0 || n > 30 {
        return false;
    }
    let s = 1u64 << n;
    let cables = u64::from(n) * s / 2 + s * u64::from(c);
    if net.switches().len() as u64 != s
        || net.terminals().len() as u64 != s * u64::from(c)
        || net.cable_count() as u64 != cables
    {
        return false;
    }
    let sw = net.switches();
    sw.iter().enumerate().all(|(i, &node)| {
        (0..n).all(|d| i >> d & 1 == 1 || leads_to(net, node, PortId(d as u16 + 1), sw[i ^ 1 << d]))
            && terminal_ports(net, node, n + 1, c)
    })
}

/// Checks every switch port of every switch against the HyperX layout
/// documented on [`Structure::HyperX`], its terminal ports, and that there
/// are no other cables.
fn hyperx(net: &Network, sides: &[u32], t: u32, c: u32) -> bool {
    let max = u64::from(u16::MAX);
    if sides.is_empty() || sides.iter().any(|&k| k < 2) || t == 0 {
        return false;
    }
    let Some(s) = sides
        .iter()
        .try_fold(1u64, |a, &k| a.checked_mul(u64::from(k)))
    else {
        return false;
    };
    // Switch count first, then ports: nothing below overflows.
    let spread: u64 = sides.iter().map(|&k| u64::from(k) - 1).sum();
    if net.switches().len() as u64 != s || spread.saturating_mul(u64::from(t)) > max {
        return false;
    }
    let links = spread * u64::from(t);
    let hosts = s * u64::from(c);
    if net.terminals().len() as u64 != hosts || net.cable_count() as u64 != s * links / 2 + hosts {
        return false;
    }
    let sw = net.switches();
    sw.iter().enumerate().all(|(i, &node)| {
        let mut stride = 1usize;
        let wired = sides.iter().enumerate().all(|(d, &k)| {
            let x = (i / stride) % k as usize;
            let ok = (0..k as usize).filter(|&y| y != x).all(|y| {
                let other = sw[i - x * stride + y * stride];
                (0..t).all(|trunk| {
                    let port = hyperx_port(sides, t, d, x as u32, y as u32, trunk);
                    leads_to(net, node, port, other)
                })
            });
            stride *= k as usize;
            ok
        });
        wired && terminal_ports(net, node, links as u32 + 1, c)
    })
}

/// Nodes per level `0..=h` of XGFT(h; m; w), or `None` on overflow.
pub(crate) fn xgft_sizes(m: &[u32], w: &[u32]) -> Option<Vec<u64>> {
    (0..=m.len())
        .map(|level| {
            m.iter()
                .zip(w)
                .enumerate()
                .try_fold(1u64, |acc, (j, (&mj, &wj))| {
                    acc.checked_mul(u64::from(if j < level { wj } else { mj }))
                })
        })
        .collect()
}

/// Checks every down cable of every switch against the XGFT labels (the
/// numbering documented on [`Structure::Xgft`]) and that there are no others.
fn xgft(net: &Network, m: &[u32], w: &[u32]) -> Option<Vec<u64>> {
    let h = m.len();
    if h == 0
        || w.len() != h
        || m.iter()
            .chain(w)
            .any(|&x| x == 0 || x > u32::from(u16::MAX))
    {
        return None;
    }
    let sizes = xgft_sizes(m, w)?;
    let switches: u64 = sizes[1..].iter().try_fold(0u64, |a, &x| a.checked_add(x))?;
    let cables = (1..=h).try_fold(0u64, |a, l| {
        a.checked_add(sizes[l].checked_mul(u64::from(m[l - 1]))?)
    })?;
    if net.switches().len() as u64 != switches
        || net.terminals().len() as u64 != sizes[0]
        || net.cable_count() as u64 != cables
    {
        return None;
    }
    let (sw, terms) = (net.switches(), net.terminals());
    let mut first = 0usize;
    for level in 1..=h {
        let low: u64 = w[..level - 1].iter().map(|&x| u64::from(x)).product();
        let (wl, ml) = (u64::from(w[level - 1]), u64::from(m[level - 1]));
        let below = first.checked_sub(sizes[level - 1] as usize);
        for x in 0..sizes[level] {
            let (lo, hi) = (x % low, x / (low * wl));
            let node = sw[first + x as usize];
            for a in 0..ml {
                let child = (hi * ml * low + a * low + lo) as usize;
                let child = match below {
                    Some(b) if level > 1 => sw[b + child],
                    _ => terms[child],
                };
                if !leads_to(net, node, PortId(a as u16 + 1), child) {
                    return None;
                }
            }
        }
        first += sizes[level] as usize;
    }
    Some(sizes)
}

/// XGFT with leaf switches at level 0 (the `terminals=T` form): checks
/// every down cable of levels `1..=h` against the labels, that each of the
/// `terminals` terminals hangs off a leaf switch by one cable, and that
/// there are no other cables. Returns the level sizes and the terminals on
/// each leaf.
fn xgft_leaves(
    net: &Network,
    m: &[u32],
    w: &[u32],
    terminals: u32,
) -> Option<(Vec<u64>, Vec<u64>)> {
    let h = m.len();
    if h == 0
        || w.len() != h
        || m.iter()
            .chain(w)
            .any(|&x| x == 0 || x > u32::from(u16::MAX))
    {
        return None;
    }
    let sizes = xgft_sizes(m, w)?;
    let switches: u64 = sizes.iter().try_fold(0u64, |a, &x| a.checked_add(x))?;
    let cables = (1..=h).try_fold(u64::from(terminals), |a, l| {
        a.checked_add(sizes[l].checked_mul(u64::from(m[l - 1]))?)
    })?;
    if net.switches().len() as u64 != switches
        || net.terminals().len() as u64 != u64::from(terminals)
        || net.cable_count() as u64 != cables
    {
        return None;
    }
    let sw = net.switches();
    let (mut below, mut first) = (0usize, sizes[0] as usize);
    for level in 1..=h {
        let low: u64 = w[..level - 1].iter().map(|&x| u64::from(x)).product();
        let (wl, ml) = (u64::from(w[level - 1]), u64::from(m[level - 1]));
        for x in 0..sizes[level] {
            let (lo, hi) = (x % low, x / (low * wl));
            let node = sw[first + x as usize];
            for a in 0..ml {
                let child = sw[below + (hi * ml * low + a * low + lo) as usize];
                if !leads_to(net, node, PortId(a as u16 + 1), child) {
                    return None;
                }
            }
        }
        below = first;
        first += sizes[level] as usize;
    }
    let mut hosts = vec![0u64; sizes[0] as usize];
    for &t in net.terminals() {
        let s = net.neighbors(t).next()?;
        let leaf = net.kind_index(s);
        if net.degree(t) != 1 || !net.is_switch(s) || leaf >= hosts.len() {
            return None;
        }
        hosts[leaf] += 1;
    }
    Some((sizes, hosts))
}

fn single(net: &Network) -> Option<Shape> {
    let &[s] = net.switches() else {
        return None;
    };
    net.terminals()
        .iter()
        .all(|&t| leaf_terminal_of(net, t, s))
        .then_some(Shape::Single)
}

fn leaf_spine(net: &Network) -> Option<Shape> {
    let sw = net.switches();
    if sw.len() < 2 {
        return None;
    }
    let mut hosts = vec![0u64; sw.len()];
    for &t in net.terminals() {
        let s = net.neighbors(t).next()?;
        if net.degree(t) != 1 || !net.is_switch(s) {
            return None;
        }
        hosts[net.kind_index(s)] += 1;
    }
    let leaves = hosts.iter().filter(|&&h| h > 0).count() as u64;
    let spines = sw.len() as u64 - leaves;
    if leaves == 0 || spines == 0 {
        return None;
    }
    // Cables from each leaf to each spine, counted in a reusable tally.
    let mut tally = vec![0u64; sw.len()];
    let mut mult = 0u64;
    for (&s, _) in sw.iter().zip(&hosts).filter(|&(_, &h)| h > 0) {
        let mut n = 0u64;
        for v in net.neighbors(s).filter(|&v| net.is_switch(v)) {
            let j = net.kind_index(v);
            if hosts[j] > 0 {
                return None;
            }
            tally[j] += 1;
            n += 1;
        }
        if mult == 0 {
            mult = n / spines;
        }
        // `mult` cables to each spine touched and `mult * spines` in all:
        // every spine is touched.
        let spine_ids = || {
            net.neighbors(s)
                .filter(|&v| net.is_switch(v))
                .map(|v| net.kind_index(v))
        };
        let uniform = mult > 0 && n == mult * spines && spine_ids().all(|j| tally[j] == mult);
        if !uniform {
            return None;
        }
        spine_ids().for_each(|j| tally[j] = 0);
    }
    // Leaves account for `mult * leaves` cables at each spine: no others.
    sw.iter()
        .enumerate()
        .all(|(i, &s)| hosts[i] > 0 || net.degree(s) as u64 == mult * leaves)
        .then_some(Shape::LeafSpine {
            hosts,
            leaves,
            spines,
            mult,
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::network::build::{clos, crossbar, hypercube as cube, kary_ntree, mesh, torus};
    use crate::network::spec;

    #[test]
    fn generated_shapes_are_recognised() {
        assert!(matches!(
            recognise(&torus(&[4, 3], 2).unwrap()),
            Some(Shape::Grid {
                wrap: true,
                c: 2,
                ..
            })
        ));
        assert!(matches!(
            recognise(&torus(&[2, 2], 1).unwrap()),
            Some(Shape::Grid { .. })
        ));
        assert!(matches!(
            recognise(&mesh(&[3, 2, 2], 0).unwrap()),
            Some(Shape::Grid { wrap: false, .. })
        ));
        assert!(matches!(
            recognise(&cube(3, 2).unwrap()),
            Some(Shape::Hypercube { n: 3, c: 2 })
        ));
        assert_eq!(recognise(&crossbar(5).unwrap()), Some(Shape::Single));
        assert_eq!(
            recognise(&spec::build("hyperx:S=3x4,t=2,p=1").unwrap()),
            Some(Shape::HyperX {
                sides: vec![3, 4],
                t: 2,
                c: 1
            })
        );
        assert!(matches!(
            recognise(&spec::build("flatfly:k=3,n=3").unwrap()),
            Some(Shape::HyperX { t: 1, c: 3, .. })
        ));
        assert!(matches!(
            recognise(&kary_ntree(2, 3).unwrap()),
            Some(Shape::Xgft { .. })
        ));
        assert!(matches!(
            recognise(&spec::build("xgft:m=3x2x4,w=2x3x2").unwrap()),
            Some(Shape::Xgft {
                leaf_hosts: None,
                ..
            })
        ));
        match recognise(&spec::build("xgft:m=3x2,w=2x2,terminals=13").unwrap()) {
            Some(Shape::Xgft {
                sizes,
                leaf_hosts: Some(hosts),
                ..
            }) => {
                assert_eq!(sizes, vec![6, 4, 4]);
                assert_eq!(hosts, vec![3, 2, 2, 2, 2, 2]);
            }
            other => panic!("{other:?}"),
        }
        assert!(matches!(
            recognise(&spec::build("kary-ntree:k=3,n=3,terminals=30").unwrap()),
            Some(Shape::Xgft {
                leaf_hosts: Some(_),
                ..
            })
        ));
        match recognise(&clos(8, 14).unwrap()) {
            Some(Shape::LeafSpine {
                leaves,
                spines,
                mult,
                hosts,
            }) => {
                assert_eq!((leaves, spines, mult), (4, 4, 1));
                assert_eq!(hosts.iter().sum::<u64>(), 14);
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn edited_networks_lose_their_shape() {
        let net = torus(&[4, 4], 1).unwrap();
        let mut b = net.to_builder();
        let x = b.add_switch("x", 1);
        let t = b.add_terminal("extra", 1);
        b.connect_next(x, t, crate::ClassId(1)).unwrap();
        assert_eq!(recognise(&b.build().unwrap()), None);
        // The same cable count but one cable moved.
        let (mut b, s, tc) = crate::NetworkBuilder::with_default_classes("t");
        let sw: Vec<_> = (0..4).map(|i| b.add_switch(format!("s{i}"), 5)).collect();
        for i in 0..4 {
            b.connect(
                sw[i],
                dim_port(0, true),
                sw[(i + 2) % 4],
                dim_port(0, false),
                s,
            )
            .unwrap();
            let h = b.add_terminal(format!("h{i}"), 1);
            b.connect(sw[i], PortId(3), h, PortId(1), tc).unwrap();
        }
        b.set_structure(Structure::Torus {
            dims: vec![4],
            wrap: true,
            concentration: 1,
        });
        assert_eq!(recognise(&b.build().unwrap()), None);
    }

    /// A leaf-switch tree whose terminal moved to another switch, or whose
    /// structure claims another terminal count, is no XGFT for the metrics.
    #[test]
    fn edited_leaf_trees_lose_their_shape() {
        let net = spec::build("xgft:m=3x2,w=2x2,terminals=13").unwrap();
        let moved = {
            let (mut b, sc, tc) = crate::NetworkBuilder::with_default_classes("moved");
            for &s in net.switches() {
                let n = net.node(s);
                b.add_switch(n.name.clone(), n.ports + 1);
            }
            for &t in net.terminals() {
                b.add_terminal(net.node(t).name.clone(), 1);
            }
            for c in net.channels().chunks(2) {
                let c = &c[0];
                // The last terminal hangs off a level-1 switch instead.
                let moved = net.is_terminal(c.dst) && c.dst == net.terminal(12);
                let (src, port) = if moved {
                    (
                        net.switches()[6],
                        PortId(net.node(net.switches()[6]).ports + 1),
                    )
                } else {
                    (c.src, c.src_port)
                };
                let class = if net.is_terminal(c.dst) { tc } else { sc };
                b.connect(src, port, c.dst, c.dst_port, class).unwrap();
            }
            b.set_structure(net.structure().clone());
            b.build().unwrap()
        };
        assert_eq!(moved.cable_count(), net.cable_count());
        assert!(!matches!(recognise(&moved), Some(Shape::Xgft { .. })));
        let mut b = net.to_builder();
        b.set_structure(Structure::Xgft {
            m: vec![3, 2],
            w: vec![2, 2],
            kary_ntree: false,
            leaf_terminals: Some(12),
            trunks: Vec::new(),
        });
        assert_eq!(recognise(&b.build().unwrap()), None);
        // The plain XGFT structure on a leaf-switch tree does not fit either.
        let mut b = net.to_builder();
        b.set_structure(Structure::Xgft {
            m: vec![3, 2],
            w: vec![2, 2],
            kary_ntree: false,
            leaf_terminals: None,
            trunks: Vec::new(),
        });
        assert_eq!(recognise(&b.build().unwrap()), None);
    }

    #[test]
    fn false_structures_are_rejected_without_panics() {
        let net = torus(&[4, 2], 1).unwrap();
        let lies = [
            Structure::Torus {
                dims: vec![],
                wrap: true,
                concentration: 1,
            },
            Structure::Torus {
                dims: vec![0, 4],
                wrap: true,
                concentration: 1,
            },
            Structure::Torus {
                dims: vec![1 << 31, 1 << 31, 4],
                wrap: false,
                concentration: u32::MAX,
            },
            Structure::Torus {
                dims: vec![8],
                wrap: true,
                concentration: 1,
            },
            Structure::Hypercube {
                n: 3,
                concentration: 1,
            },
            Structure::Hypercube {
                n: 64,
                concentration: 1,
            },
            Structure::Xgft {
                m: vec![4, 2],
                w: vec![1, 2],
                kary_ntree: false,
                leaf_terminals: None,
                trunks: Vec::new(),
            },
            Structure::Xgft {
                m: vec![u32::MAX; 3],
                w: vec![1, 0, 2],
                kary_ntree: false,
                leaf_terminals: None,
                trunks: Vec::new(),
            },
            Structure::Xgft {
                m: vec![2],
                w: vec![],
                kary_ntree: false,
                leaf_terminals: None,
                trunks: Vec::new(),
            },
            Structure::Xgft {
                m: vec![4, 2],
                w: vec![1, 2],
                kary_ntree: false,
                leaf_terminals: Some(8),
                trunks: Vec::new(),
            },
            Structure::Xgft {
                m: vec![u32::MAX; 3],
                w: vec![1, 0, 2],
                kary_ntree: false,
                leaf_terminals: Some(u32::MAX),
                trunks: Vec::new(),
            },
            Structure::HyperX {
                sides: vec![],
                trunking: 1,
                concentration: 1,
            },
            Structure::HyperX {
                sides: vec![4, 2],
                trunking: 0,
                concentration: 1,
            },
            Structure::HyperX {
                sides: vec![4, 2],
                trunking: 1,
                concentration: 1,
            },
            Structure::HyperX {
                sides: vec![8],
                trunking: 1,
                concentration: 1,
            },
            Structure::HyperX {
                sides: vec![2, 2, 2],
                trunking: u32::MAX,
                concentration: u32::MAX,
            },
            Structure::HyperX {
                sides: vec![1 << 31, 1 << 31, 4, 0],
                trunking: 1,
                concentration: u32::MAX,
            },
        ];
        for lie in lies {
            let mut b = net.to_builder();
            b.set_structure(lie.clone());
            let net = b.build().unwrap();
            assert_eq!(recognise(&net), None, "{lie:?}");
            let s = crate::network::metrics::summary(&net);
            assert_eq!((s.diameter, s.bisection_width), (3, 4), "{lie:?}");
        }
    }
}
