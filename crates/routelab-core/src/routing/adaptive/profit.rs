//! The profit of a route at injection (versaci2013 eqs. (15)-(16)), by
//! which `ofr` and `por` choose between the minimal route and a deroute:
//! the occupancy of the local outgoing links and the dilation of the route.

use super::torus_geometry::TorusGeometry;
use super::{Header, LocalView};
use crate::network::build::torus::dim_port;
use crate::network::PortId;

/// Eq. (15): `u_* / u + eta d / dq`, the fraction 1 when `u = 0`. With
/// `dq = d` it is eq. (16).
#[inline]
pub fn profit(u_star: f64, u: f64, eta: f64, d: u32, dq: u32) -> f64 {
    let f = if u <= 0.0 { 1.0 } else { u_star / u };
    f + eta * f64::from(d) / f64::from(dq.max(1))
}

/// Mean of `occ[p - 1]` over the ports minimal from `a` to `b`.
pub fn mean_minimal(geo: &TorusGeometry, a: &[u32], b: &[u32], occ: &[u32]) -> f64 {
    let (mut sum, mut n) = (0u64, 0u32);
    for d in 0..geo.n() {
        let (plus, minus) = geo.minimal(d, a[d], b[d]);
        for (yes, positive) in [(plus, true), (minus, false)] {
            if yes {
                sum += u64::from(occ[usize::from(dim_port(d, positive).0) - 1]);
                n += 1;
            }
        }
    }
    if n == 0 {
        0.0
    } else {
        sum as f64 / f64::from(n)
    }
}

/// Used flit slots (all VCs) in the next buffer of each network port.
pub fn port_occupancy(n: usize, view: &dyn LocalView) -> Vec<u32> {
    (1..=2 * n as u16)
        .map(|p| view.port_occupancy(PortId(p)))
        .collect()
}

/// For a packet not yet decided (`hdr.state == 0`) at its source hook:
/// its source and target switches and the [`port_occupancy`] of the
/// switch it is injected into; `None` once decided.
pub fn undecided(
    geo: &TorusGeometry,
    hdr: &Header,
    view: &dyn LocalView,
) -> Option<(u32, u32, Vec<u32>)> {
    if hdr.state != 0 {
        return None;
    }
    let s = geo.switch_of(hdr.origin);
    let t = geo.switch_of(hdr.target);
    Some((s, t, port_occupancy(geo.n(), view)))
}
