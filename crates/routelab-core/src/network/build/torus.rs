//! Tori, meshes and hypercubes.
//!
//! Numbering: switches first, switch `s` at the mixed-radix coordinates of
//! `s` (dimension 0 fastest), then terminals; terminal `t` hangs off switch
//! `t / c`. See [`Structure::Torus`] and [`Structure::Hypercube`] for ports.

use crate::network::spec::{Family, SpecArgs};
use crate::network::{Network, NetworkBuilder, PortId, Structure, TopologyError};

/// The largest network the dimensional generators build.
const MAX_SWITCHES: u64 = 1 << 22;
const MAX_CONCENTRATION: u32 = 1024;

pub const TORUS: Family = Family {
    name: "torus",
    usage: "torus:8x8x8[,c=1]  (k per dimension, c terminals per router)",
    keys: &["dims", "c"],
    positional: Some("dims"),
    generate: |a| {
        let (dims, c) = dims_and_c(a)?;
        torus(&dims, c)
    },
};

pub const MESH: Family = Family {
    name: "mesh",
    usage: "mesh:8x8[,c=1]  (k per dimension, c terminals per router)",
    keys: &["dims", "c"],
    positional: Some("dims"),
    generate: |a| {
        let (dims, c) = dims_and_c(a)?;
        mesh(&dims, c)
    },
};

pub const HYPERCUBE: Family = Family {
    name: "hypercube",
    usage: "hypercube:6[,c=1]  (dimension n, 2^n routers)",
    keys: &["n", "c"],
    positional: Some("n"),
    generate: |a| {
        let n = a
            .positional_or("n")
            .ok_or_else(|| TopologyError::MissingKey {
                family: "hypercube".into(),
                key: "n".into(),
                hint: "the dimension, e.g. hypercube:6".into(),
            })?
            .to_string();
        let n = a.parse_u32("n", &n, 1, 22)?;
        let c = a.u32("c", Some(1), 0, MAX_CONCENTRATION)?;
        hypercube(n, c)
    },
};

fn dims_and_c(a: &mut SpecArgs) -> Result<(Vec<u32>, u32), TopologyError> {
    let family = a.family();
    let dims = a
        .positional_or("dims")
        .ok_or_else(|| TopologyError::MissingKey {
            family: family.into(),
            key: "dims".into(),
            hint: format!("k per dimension, e.g. {family}:8x8x8"),
        })?
        .to_string();
    let dims = a.parse_list("dims", &dims, 2, 1 << 16)?;
    let c = a.u32("c", Some(1), 0, MAX_CONCENTRATION)?;
    Ok((dims, c))
}

/// An n-dimensional torus with `k_i` routers along dimension `i` and `c`
/// terminals per router.
pub fn torus(dims: &[u32], c: u32) -> Result<Network, TopologyError> {
    dimensional(dims, c, true)
}

/// An n-dimensional mesh (a torus without wraparound links).
pub fn mesh(dims: &[u32], c: u32) -> Result<Network, TopologyError> {
    dimensional(dims, c, false)
}

/// Coordinates of switch `s` in a torus or mesh with `dims`.
pub fn coords(dims: &[u32], mut s: u32) -> Vec<u32> {
    dims.iter()
        .map(|&k| {
            let x = s % k;
            s /= k;
            x
        })
        .collect()
}

/// The switch index at `coords`.
pub fn switch_at(dims: &[u32], coords: &[u32]) -> u32 {
    dims.iter()
        .zip(coords)
        .rev()
        .fold(0, |acc, (&k, &x)| acc * k + x)
}

/// Port of a torus/mesh switch leading along `dim` in direction `+` or `-`.
pub fn dim_port(dim: usize, positive: bool) -> PortId {
    PortId(2 * dim as u16 + if positive { 1 } else { 2 })
}

fn check_size(switches: u64, c: u32, ports: u64) -> Result<(), TopologyError> {
    if switches > MAX_SWITCHES {
        return Err(TopologyError::impossible(format!(
            "{switches} routers is too many: at most {MAX_SWITCHES}"
        )));
    }
    if ports > u64::from(u16::MAX) {
        return Err(TopologyError::impossible(format!(
            "routers would need {ports} ports; at most {} (lower c)",
            u16::MAX
        )));
    }
    let _ = c;
    Ok(())
}

fn dimensional(dims: &[u32], c: u32, wrap: bool) -> Result<Network, TopologyError> {
    if dims.is_empty() || dims.iter().any(|&k| k < 2) {
        return Err(TopologyError::impossible(format!(
            "every dimension needs k >= 2 routers, got {dims:?}"
        )));
    }
    let n = dims.len();
    let switches: u64 = dims.iter().map(|&k| u64::from(k)).product();
    let ports = 2 * n as u64 + u64::from(c);
    check_size(switches, c, ports)?;
    let switches = switches as u32;
    let family = if wrap { "torus" } else { "mesh" };
    let shape = dims
        .iter()
        .map(u32::to_string)
        .collect::<Vec<_>>()
        .join("x");
    let name = if c == 1 {
        format!("{family}:{shape}")
    } else {
        format!("{family}:{shape},c={c}")
    };
    let (mut b, sw_class, t_class) = NetworkBuilder::with_default_classes(name);
    add_grid_switches(&mut b, dims, switches, ports as u16);
    for s in 0..switches {
        let x = coords(dims, s);
        for (d, &k) in dims.iter().enumerate() {
            if !wrap && x[d] == k - 1 {
                continue;
            }
            let mut y = x.clone();
            y[d] = (x[d] + 1) % k;
            let t = switch_at(dims, &y);
            b.connect(
                crate::NodeId(s),
                dim_port(d, true),
                crate::NodeId(t),
                dim_port(d, false),
                sw_class,
            )?;
        }
    }
    attach_terminals(&mut b, switches, c, 2 * n as u16, t_class)?;
    b.set_structure(Structure::Torus {
        dims: dims.to_vec(),
        wrap,
        concentration: c,
    });
    b.build()
}

/// Adds `c` terminals to each of the first `switches` nodes, on the ports
/// after `first_port - 1`.
pub(crate) fn attach_terminals(
    b: &mut NetworkBuilder,
    switches: u32,
    c: u32,
    ports_before: u16,
    class: crate::ClassId,
) -> Result<(), TopologyError> {
    for s in 0..switches {
        for j in 0..c {
            let t = b.add_terminal(format!("h{}", s * c + j), 1);
            b.connect(
                crate::NodeId(s),
                PortId(ports_before + 1 + j as u16),
                t,
                PortId(1),
                class,
            )?;
        }
    }
    Ok(())
}

/// A binary n-cube with `c` terminals per router.
pub fn hypercube(n: u32, c: u32) -> Result<Network, TopologyError> {
    if n == 0 || n > 22 {
        return Err(TopologyError::impossible(format!(
            "hypercube dimension n = {n}: valid 1..=22"
        )));
    }
    let switches = 1u32 << n;
    let ports = u64::from(n) + u64::from(c);
    check_size(u64::from(switches), c, ports)?;
    let name = if c == 1 {
        format!("hypercube:{n}")
    } else {
        format!("hypercube:{n},c={c}")
    };
    let (mut b, sw_class, t_class) = NetworkBuilder::with_default_classes(name);
    for s in 0..switches {
        b.add_switch(format!("s{s}"), ports as u16);
    }
    for s in 0..switches {
        for d in 0..n {
            let t = s ^ (1 << d);
            if s < t {
                let p = PortId(d as u16 + 1);
                b.connect(crate::NodeId(s), p, crate::NodeId(t), p, sw_class)?;
            }
        }
    }
    attach_terminals(&mut b, switches, c, n as u16, t_class)?;
    b.set_structure(Structure::Hypercube {
        n,
        concentration: c,
    });
    b.build()
}

/// Adds `switches` switches of `ports` ports named by their coordinates in
/// `dims` (`s1.0.3`), dimension 0 first.
pub(super) fn add_grid_switches(b: &mut NetworkBuilder, dims: &[u32], switches: u32, ports: u16) {
    for s in 0..switches {
        let label = coords(dims, s)
            .iter()
            .map(u32::to_string)
            .collect::<Vec<_>>()
            .join(".");
        b.add_switch(format!("s{label}"), ports);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn torus_counts_and_ports() {
        let net = torus(&[4, 3], 2).unwrap();
        assert_eq!(net.switches().len(), 12);
        assert_eq!(net.terminals().len(), 24);
        assert_eq!(net.cable_count(), 12 * 2 + 24);
        // Switch 0 at (0,0): +x leads to (1,0) = 1, -x to (3,0) = 3, -y to (0,2) = 8.
        let dst = |p: PortId| {
            net.channel(net.channel_at(crate::NodeId(0), p).unwrap())
                .dst
                .0
        };
        assert_eq!(dst(dim_port(0, true)), 1);
        assert_eq!(dst(dim_port(0, false)), 3);
        assert_eq!(dst(dim_port(1, false)), 8);
        assert_eq!(net.attached_switch(net.terminal(5)), Some(crate::NodeId(2)));
    }

    #[test]
    fn mesh_has_no_wraparound() {
        let net = mesh(&[4, 4], 1).unwrap();
        assert_eq!(net.cable_count(), 2 * 4 * 3 + 16);
        assert_eq!(net.channel_at(crate::NodeId(3), dim_port(0, true)), None);
    }

    #[test]
    fn coords_round_trip() {
        let dims = [3, 5, 2];
        for s in 0..30 {
            assert_eq!(switch_at(&dims, &coords(&dims, s)), s);
        }
    }

    #[test]
    fn hypercube_neighbours_differ_in_one_bit() {
        let net = hypercube(4, 1).unwrap();
        for &s in net.switches() {
            for n in net.neighbors(s).filter(|&n| net.is_switch(n)) {
                assert_eq!((s.0 ^ n.0).count_ones(), 1);
            }
            assert_eq!(net.degree(s), 5);
        }
    }
}
