//! The profit of a route at injection (versaci2013 eqs. (15)-(16)), by
//! which `ofr` and `por` choose between the minimal route and a deroute:
//! the occupancy of the local outgoing links and the dilation of the route.

use super::torus_geometry::TorusGeometry;
use super::{Header, LocalView, RouterOptions};
use crate::network::build::torus::dim_port;
use crate::network::PortId;
use crate::routing::RoutingError;

/// Which outgoing links of the source `u_*` of eq. (15) is the least of.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UStar {
    /// All `2n` network links of the source ("a link going out from s").
    /// Then `u_* <= u_q` for every route, the first fraction is at most 1,
    /// and a route of dilation `dq` can only win when
    /// `eta (1 - d / dq) < 1`.
    All,
    /// The links minimal from `s` to `t` only (the links the minimal route
    /// would use); the fraction exceeds 1 for a route whose links are less
    /// used than the least used minimal one.
    Minimal,
    /// All links of the source, ignoring idle ones (the least used busy
    /// link; 0 if all are idle).
    Busy,
}

/// What the first fraction of eq. (15) is when its denominator is 0.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fraction {
    /// `u_* / u`, and 1 whenever `u = 0` (whatever `u_*`).
    One,
    /// `u_* / u`, 1 when `u = u_* = 0`, and unbounded when `u = 0 < u_*`:
    /// such a route beats every route with busy links, and among such
    /// routes the dilation term decides.
    Unbounded,
    /// `(u_* + 1) / (u + 1)`: the slots counted with the packet being
    /// routed, never 0.
    PlusOne,
}

/// How a router reads eqs. (15)-(16): router options `u_star`
/// (`"all"`, `"minimal"` or `"busy"`; default `"minimal"`) and `fraction`
/// (`"one"`, `"unbounded"` or `"plus1"`; default `"unbounded"`).
///
/// The default is the reading under which the routers deroute as the
/// paper's Table 3 reports. Read literally ("the minimum number of used
/// slots in a link going out from s"), `u_*` is at most every `u_q`, the
/// first fraction at most 1, and with `eta = 2` a route is derouted only
/// when `dq < 2 d` and all its links are as idle as the least used one:
/// OFR then never deroutes butterfly traffic on 8x8x8 (an OutFlank IDN adds
/// at least 4 hops to paths of 1, 2 or 4), where the paper deroutes 41% of
/// it on 16x16x16. Measured against the minimal route's own links, the
/// congestion term can favour a deroute whose links are less used than the
/// least used minimal one, and OFR deroutes 0.42-0.54 of butterfly and 0.18
/// of uniform packets on 8x8x8 (the paper: 0.41 and 0.18 on 16x16x16).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProfitRule {
    pub u_star: UStar,
    pub fraction: Fraction,
}

/// Stands for an unbounded first fraction: far above any finite one, and
/// still leaving the dilation term to order such routes.
const UNBOUNDED: f64 = 1e9;

impl Default for ProfitRule {
    fn default() -> Self {
        ProfitRule {
            u_star: UStar::Minimal,
            fraction: Fraction::Unbounded,
        }
    }
}

impl ProfitRule {
    /// Option names read by [`ProfitRule::from_options`].
    pub const OPTIONS: [&'static str; 2] = ["u_star", "fraction"];

    /// Reads `u_star` and `fraction` from router options.
    pub fn from_options(opts: &RouterOptions) -> Result<Self, RoutingError> {
        let text = |key: &str| {
            opts.params
                .get(key)
                .map(|v| v.trim().trim_matches('"').to_ascii_lowercase())
        };
        let bad = |key: &str, v: String, expected: &str| RoutingError::BadOption {
            option: key.into(),
            value: v,
            expected: expected.into(),
        };
        let u_star = match text("u_star").as_deref() {
            Some("all") => UStar::All,
            None | Some("minimal") => UStar::Minimal,
            Some("busy") => UStar::Busy,
            Some(v) => return Err(bad("u_star", v.into(), "all, minimal or busy")),
        };
        let fraction = match text("fraction").as_deref() {
            Some("one") => Fraction::One,
            None | Some("unbounded") => Fraction::Unbounded,
            Some("plus1") => Fraction::PlusOne,
            Some(v) => return Err(bad("fraction", v.into(), "one, unbounded or plus1")),
        };
        Ok(ProfitRule { u_star, fraction })
    }

    /// `u_*` of a packet from `s` to `t` (coordinates) given the used
    /// slots `occ[p - 1]` of every network port `p` of `s`.
    pub fn u_star(&self, geo: &TorusGeometry, s: &[u32], t: &[u32], occ: &[u32]) -> f64 {
        let least = match self.u_star {
            UStar::All => occ.iter().copied().min(),
            UStar::Busy => occ.iter().copied().filter(|&u| u > 0).min(),
            UStar::Minimal => (0..geo.n())
                .flat_map(|d| {
                    let (plus, minus) = geo.minimal(d, s[d], t[d]);
                    [(plus, true), (minus, false)]
                        .into_iter()
                        .filter(|&(yes, _)| yes)
                        .map(move |(_, positive)| occ[usize::from(dim_port(d, positive).0) - 1])
                })
                .min(),
        };
        f64::from(least.unwrap_or(0))
    }

    /// Eq. (15) (eq. (16) with `dq = d`) under this rule.
    #[inline]
    pub fn profit(&self, u_star: f64, u: f64, eta: f64, d: u32, dq: u32) -> f64 {
        let f = match self.fraction {
            Fraction::One => {
                if u <= 0.0 {
                    1.0
                } else {
                    u_star / u
                }
            }
            Fraction::Unbounded => {
                if u > 0.0 {
                    u_star / u
                } else if u_star > 0.0 {
                    UNBOUNDED
                } else {
                    1.0
                }
            }
            Fraction::PlusOne => (u_star + 1.0) / (u + 1.0),
        };
        f + eta * f64::from(d) / f64::from(dq.max(1))
    }
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
