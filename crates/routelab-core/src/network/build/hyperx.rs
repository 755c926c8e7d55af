//! HyperX networks (Ahn, Binkert, Davis, McLaren & Schreiber 2009): switches
//! at the points of an n-dimensional grid with sides `S_0 .. S_{n-1}`, every
//! two switches that differ in exactly one coordinate joined by `t` parallel
//! cables (a Hamming graph, trunked), `p` terminals per switch. The
//! flattened butterfly (Kim, Dally & Abts 2007), `flatfly:k=K,n=N`, is the
//! HyperX of `N - 1` dimensions of side `K` with `K` terminals per switch.
//!
//! Numbering: switches first, switch `s` at the mixed-radix coordinates of
//! `s` in `S` (dimension 0 fastest, as tori: [`coords`], [`switch_at`]),
//! then terminals, terminal `i` on switch `i / p`.
//!
//! Ports, fabric first as in the other families: for each dimension `d` in
//! order, for each other value `y` of coordinate `d` in increasing order,
//! each of the `t` trunks; then the `p` terminals. A switch with coordinate
//! `x` in dimension `d` reaches the switch with `y` there (all else equal)
//! on its `c`-th trunk through port
//! `1 + t * sum_{e<d} (S_e - 1) + t * j + c`, where `j = y` if `y < x`,
//! else `y - 1` ([`hyperx_port`]); terminals are on ports
//! `L + 1 ..= L + p`, `L = t * sum_d (S_d - 1)` ([`hyperx_link_ports`]).
//!
//! Every two switches are at most `n` hops apart (one per differing
//! coordinate). Halving an even dimension `d` cuts
//! `t (S_d / 2)^2 (N / S_d)` switch cables ([`hyperx_half_cut`]); the
//! smallest such dimension is the cheapest, and when it is also the
//! smallest dimension overall it is a minimum bisection of the switches
//! (the metrics prove it by a flow bound, see
//! [`crate::network::metrics`]).

use crate::network::spec::Family;
use crate::network::{Network, NetworkBuilder, NodeId, PortId, Structure, TopologyError};

use super::bad_param;
use super::torus::{add_grid_switches, attach_terminals};
pub use super::torus::{coords, switch_at};

/// The largest HyperX the generator builds, in switches.
const MAX_SWITCHES: u64 = 1 << 20;
/// The largest network, in switches plus terminals.
const MAX_NODES: u64 = 1 << 22;
/// The most ports a switch may have.
const MAX_PORTS: u64 = u16::MAX as u64;

pub const HYPERX: Family = Family {
    name: "hyperx",
    usage:
        "hyperx:S=4x4x4,t=1,p=2  (S: side of each dimension; t parallel cables between switches \
            that differ in one coordinate, default 1; p terminals per switch)",
    keys: &["S", "t", "p"],
    positional: Some("S"),
    generate: |args| {
        let max = u32::from(u16::MAX);
        let sides = args
            .positional_or("S")
            .ok_or_else(|| TopologyError::MissingKey {
                family: "hyperx".into(),
                key: "S".into(),
                hint: "the side of each dimension, e.g. hyperx:S=4x4x4,p=2".into(),
            })?
            .to_string();
        let sides = args.parse_list("S", &sides, 2, max)?;
        let t = args.u32("t", Some(1), 1, max)?;
        let p = args.u32("p", None, 0, max)?;
        hyperx(&sides, t, p)
    },
};

pub const FLATFLY: Family = Family {
    name: "flatfly",
    usage: "flatfly:k=4,n=3  (flattened butterfly: hyperx of n-1 dimensions of side k, k terminals per switch)",
    keys: &["k", "n"],
    positional: None,
    generate: |args| {
        let k = args.u32("k", None, 2, u32::from(u16::MAX))?;
        let n = args.u32("n", None, 2, MAX_SWITCHES.ilog2() + 1)?;
        flattened_butterfly(k, n)
    },
};

/// A HyperX with `sides[d]` switches along dimension `d`, `t` cables
/// between every two switches that differ in exactly one coordinate, and
/// `p` terminals per switch.
pub fn hyperx(sides: &[u32], t: u32, p: u32) -> Result<Network, TopologyError> {
    let shape = join(sides);
    let max = u32::from(u16::MAX);
    let bad_sides = |expected: String| bad_param("hyperx", "S", &shape, expected);
    if sides.is_empty() || sides.iter().any(|&k| !(2..=max).contains(&k)) {
        return Err(bad_sides(format!(
            "a list like 4x4x4 of sides in 2..={max}, one per dimension"
        )));
    }
    if t == 0 || t > max {
        return Err(bad_param(
            "hyperx",
            "t",
            t,
            format!("an integer in 1..={max}"),
        ));
    }
    let switches = sides
        .iter()
        .try_fold(1u64, |a, &k| a.checked_mul(u64::from(k)))
        .filter(|&s| s <= MAX_SWITCHES)
        .ok_or_else(|| {
            bad_sides(format!(
                "sides of at least 2 whose product, the switch count, is at most {MAX_SWITCHES}"
            ))
        })?;
    let spread: u64 = sides.iter().map(|&k| u64::from(k) - 1).sum();
    if spread > MAX_PORTS {
        return Err(bad_sides(format!(
            "sides whose (S_d - 1) add up to at most {MAX_PORTS} ports"
        )));
    }
    let links = spread * u64::from(t);
    if links > MAX_PORTS {
        return Err(bad_param(
            "hyperx",
            "t",
            t,
            format!(
                "an integer in 1..={} so that t * {spread} link ports fit in {MAX_PORTS}",
                MAX_PORTS / spread
            ),
        ));
    }
    let most_p = (MAX_PORTS - links).min(MAX_NODES / switches - 1);
    if u64::from(p) > most_p {
        return Err(bad_param(
            "hyperx",
            "p",
            p,
            format!(
                "an integer in 0..={most_p} ({links} link ports + p <= {MAX_PORTS}, \
                 {MAX_NODES} nodes in all)"
            ),
        ));
    }
    build(format!("hyperx:S={shape},t={t},p={p}"), sides, t, p)
}

/// The flattened butterfly `k`-ary `n`-flat: the HyperX of `n - 1`
/// dimensions of side `k` with `k` terminals per switch and single cables.
pub fn flattened_butterfly(k: u32, n: u32) -> Result<Network, TopologyError> {
    // k^(n-1) switches of (n-1)(k-1) + k ports, k^(n-1) (1 + k) nodes.
    let fits = |k: u32, n: u32| -> bool {
        let Some(s) = u64::from(k).checked_pow(n - 1) else {
            return false;
        };
        let ports = u64::from(n - 1) * u64::from(k - 1) + u64::from(k);
        s <= MAX_SWITCHES && ports <= MAX_PORTS && s * (1 + u64::from(k)) <= MAX_NODES
    };
    if k < 2 || !fits(k, 2) {
        let most_k = (2..=u32::from(u16::MAX))
            .take_while(|&x| fits(x, 2))
            .last()
            .unwrap_or(2);
        return Err(bad_param(
            "flatfly",
            "k",
            k,
            format!(
                "an integer in 2..={most_k} (even for n = 2, k switches of k terminals: \
                 k (k + 1) <= {MAX_NODES} nodes)"
            ),
        ));
    }
    if n < 2 || !fits(k, n) {
        let most_n = (2..=MAX_SWITCHES.ilog2() + 1)
            .take_while(|&m| fits(k, m))
            .last()
            .unwrap_or(2);
        return Err(bad_param(
            "flatfly",
            "n",
            n,
            format!(
                "an integer in 2..={most_n} for k = {k} (k^(n-1) <= {MAX_SWITCHES} switches, \
                 {MAX_NODES} nodes in all)"
            ),
        ));
    }
    let sides = vec![k; (n - 1) as usize];
    build(format!("flatfly:k={k},n={n}"), &sides, 1, k)
}

/// The port of a switch with coordinate `from` in dimension `dim` leading,
/// on trunk `trunk`, to the switch with `to` there and the same other
/// coordinates (`from != to`, both below `sides[dim]`, `trunk < t`).
pub fn hyperx_port(sides: &[u32], t: u32, dim: usize, from: u32, to: u32, trunk: u32) -> PortId {
    let before: u32 = sides[..dim].iter().map(|&k| k - 1).sum();
    let j = to - u32::from(to > from);
    PortId((1 + t * (before + j) + trunk) as u16)
}

/// Ports per switch cabled to other switches, `t * sum_d (S_d - 1)`; the
/// terminals follow them.
pub fn hyperx_link_ports(sides: &[u32], t: u32) -> u32 {
    t * sides.iter().map(|&k| k - 1).sum::<u32>()
}

/// Switch cables crossing the cut that halves dimension `dim` (the switches
/// with coordinate below `S_dim / 2` on one side), `t (S_dim/2)^2 N / S_dim`,
/// or `None` when that side is odd.
pub fn hyperx_half_cut(sides: &[u32], t: u32, dim: usize) -> Option<u64> {
    let k = u64::from(*sides.get(dim)?);
    let n: u64 = sides.iter().map(|&x| u64::from(x)).product();
    k.is_multiple_of(2)
        .then(|| u64::from(t) * (k / 2) * (k / 2) * (n / k))
}

fn join(sides: &[u32]) -> String {
    sides
        .iter()
        .map(u32::to_string)
        .collect::<Vec<_>>()
        .join("x")
}

/// Builds a HyperX whose parameters were checked.
fn build(name: String, sides: &[u32], t: u32, p: u32) -> Result<Network, TopologyError> {
    let switches: u32 = sides.iter().product();
    let links = hyperx_link_ports(sides, t);
    let ports = links + p;
    let nodes = u64::from(switches) * (1 + u64::from(p));
    crate::network::builder::check_ports(
        &name,
        nodes,
        u64::from(switches) * (u64::from(ports) + u64::from(p)),
    )?;
    let (mut b, sw_class, t_class) = NetworkBuilder::with_default_classes(name);
    add_grid_switches(&mut b, sides, switches, ports as u16);
    for s in 0..switches {
        let x = coords(sides, s);
        let mut stride = 1u32;
        for (d, &k) in sides.iter().enumerate() {
            for y in x[d] + 1..k {
                let to = NodeId(s + (y - x[d]) * stride);
                for c in 0..t {
                    b.connect(
                        NodeId(s),
                        hyperx_port(sides, t, d, x[d], y, c),
                        to,
                        hyperx_port(sides, t, d, y, x[d], c),
                        sw_class,
                    )?;
                }
            }
            stride *= k;
        }
    }
    attach_terminals(&mut b, switches, p, links as u16, t_class)?;
    b.set_structure(Structure::HyperX {
        sides: sides.to_vec(),
        trunking: t,
        concentration: p,
    });
    b.build()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::network::metrics::is_connected;

    #[test]
    fn counts_and_ports_follow_the_layout() {
        let (sides, t, p) = ([3u32, 4], 2u32, 2u32);
        let net = hyperx(&sides, t, p).unwrap();
        assert_eq!(net.name(), "hyperx:S=3x4,t=2,p=2");
        assert_eq!(net.switches().len(), 12);
        assert_eq!(net.terminals().len(), 24);
        // 12 switches of t * (2 + 3) link ports, each cable two ends.
        assert_eq!(net.cable_count(), 12 * 10 / 2 + 24);
        assert!(is_connected(&net));
        for s in 0..12u32 {
            let x = coords(&sides, s);
            assert_eq!(net.degree(NodeId(s)), 12);
            for (d, &k) in sides.iter().enumerate() {
                for y in (0..k).filter(|&y| y != x[d]) {
                    let mut z = x.clone();
                    z[d] = y;
                    for c in 0..t {
                        let port = hyperx_port(&sides, t, d, x[d], y, c);
                        let ch = net.channel(net.channel_at(NodeId(s), port).unwrap());
                        assert_eq!(ch.dst, NodeId(switch_at(&sides, &z)));
                        assert_eq!(ch.dst_port, hyperx_port(&sides, t, d, y, x[d], c));
                    }
                }
            }
            for j in 0..p {
                let port = PortId((hyperx_link_ports(&sides, t) + 1 + j) as u16);
                let ch = net.channel(net.channel_at(NodeId(s), port).unwrap());
                assert_eq!(ch.dst, net.terminal((s * p + j) as usize));
            }
        }
        // Switch (1, 2) = 7: dimension 0 to x = 0 on ports 1-2, to x = 2 on
        // 3-4; dimension 1 to y = 0, 1, 3 on 5-6, 7-8, 9-10; terminals 11-12.
        assert_eq!(hyperx_port(&sides, t, 0, 1, 0, 1), PortId(2));
        assert_eq!(hyperx_port(&sides, t, 0, 1, 2, 0), PortId(3));
        assert_eq!(hyperx_port(&sides, t, 1, 2, 3, 1), PortId(10));
        assert_eq!(hyperx_link_ports(&sides, t), 10);
        assert_eq!(
            net.structure(),
            &Structure::HyperX {
                sides: vec![3, 4],
                trunking: 2,
                concentration: 2
            }
        );
    }

    #[test]
    fn flattened_butterfly_is_a_hyperx() {
        let f = flattened_butterfly(4, 3).unwrap();
        assert_eq!(f.name(), "flatfly:k=4,n=3");
        let h = hyperx(&[4, 4], 1, 4).unwrap();
        let mut b = f.to_builder();
        b.set_name(h.name());
        assert_eq!(b.build().unwrap(), h);
        assert_eq!(f.structure().spec(64).unwrap(), "hyperx:S=4x4,t=1,p=4");
    }

    #[test]
    fn structure_reads_back_from_json() {
        let net = hyperx(&[3, 2], 2, 1).unwrap();
        let text = crate::network::io::json::to_string(&net);
        assert!(text.contains("\"hyperx\""), "{text}");
        assert_eq!(crate::network::io::json::from_str(&text, "x").unwrap(), net);
    }

    #[test]
    fn half_cuts() {
        assert_eq!(hyperx_half_cut(&[4, 4, 4], 1, 0), Some(64));
        assert_eq!(hyperx_half_cut(&[8, 2], 1, 0), Some(32));
        assert_eq!(hyperx_half_cut(&[8, 2], 1, 1), Some(8));
        assert_eq!(hyperx_half_cut(&[3, 4], 2, 0), None);
        assert_eq!(hyperx_half_cut(&[3, 4], 2, 1), Some(24));
        assert_eq!(hyperx_half_cut(&[3, 4], 2, 2), None);
    }

    #[test]
    fn bad_parameters_name_the_key() {
        let e = |r: Result<Network, TopologyError>| r.unwrap_err().to_string();
        let s = e(hyperx(&[], 1, 1));
        assert!(s.contains("'S'") && s.contains("2..=65535"), "{s}");
        let s = e(hyperx(&[4, 1], 1, 1));
        assert!(s.contains("'S'") && s.contains("'4x1'"), "{s}");
        let s = e(hyperx(&[4, 4], 0, 1));
        assert!(s.contains("'t'") && s.contains("1..=65535"), "{s}");
        let s = e(hyperx(&[1024, 1024, 2], 1, 1));
        assert!(s.contains("'S'") && s.contains("1048576"), "{s}");
        let s = e(hyperx(&[64, 64], 600, 1));
        assert!(s.contains("'t'") && s.contains("1..=520"), "{s}");
        let s = e(hyperx(&[64, 64], 1, 65535));
        assert!(s.contains("'p'") && s.contains("0..=1023"), "{s}");
        let s = e(flattened_butterfly(1, 3));
        assert!(s.contains("'k'") && s.contains("2..="), "{s}");
        let s = e(flattened_butterfly(4, 1));
        assert!(s.contains("'n'") && s.contains("2..=10"), "{s}");
        let s = e(flattened_butterfly(2, 30));
        assert!(s.contains("'n'") && s.contains("2..=21"), "{s}");
        let s = e(flattened_butterfly(64, 5));
        assert!(s.contains("'n'") && s.contains("2..=3 for k = 64"), "{s}");
        let s = e(flattened_butterfly(40000, 2));
        assert!(s.contains("'k'") && s.contains("2..=2047"), "{s}");
        let s = e(flattened_butterfly(0, 0));
        assert!(s.contains("'k'"), "{s}");
        let s = e(crate::network::spec::build("hyperx:S=4x4"));
        assert!(s.contains("'p'"), "{s}");
        let s = e(crate::network::spec::build("hyperx:p=1"));
        assert!(s.contains("'S'"), "{s}");
    }
}
