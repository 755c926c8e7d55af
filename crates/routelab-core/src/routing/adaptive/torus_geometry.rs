//! Torus geometry shared by the torus routers (`abr`, `dor-bubble`, `por`,
//! `ofr`, `rdr`, `duato`): coordinates, minimal directions per dimension,
//! distances, ejection, and the two routing steps the bubble routers build
//! on.
//!
//! Conventions (those of [`crate::network::build::torus`]): switch `s` sits
//! at the mixed-radix coordinates of `s`, dimension 0 fastest; its port
//! `2d + 1` leads to `+d`, `2d + 2` to `-d`; terminal `t` hangs off switch
//! `t / c` on port `2n + 1 + t mod c`. A packet travelling `+d` leaves on
//! port `2d + 1` and arrives on the neighbour's port `2d + 2`.
//!
//! The escape candidates follow bubble flow control ([`super::bubble`]).

use super::bubble::push_escape;
use super::{check_torus_terminals, Candidates, Here};
use crate::network::build::torus::dim_port;
use crate::network::{Network, PortId, Structure};
use crate::routing::RoutingError;

/// The coordinates of a torus or mesh network, as the routers read them.
#[derive(Debug, Clone)]
pub struct TorusGeometry {
    /// `k` per dimension.
    pub dims: Vec<u32>,
    /// Whether the network has wraparound links (a torus) or not (a mesh).
    pub wrap: bool,
    /// Terminals per switch (at least 1).
    pub concentration: u32,
    /// `n` coordinates per switch.
    coord: Vec<u32>,
    /// At distance `k / 2` only `+` is minimal, as in dimension order
    /// (option `one_way_ties`); otherwise both ways are.
    pub one_way_ties: bool,
}

impl TorusGeometry {
    /// The geometry of `net`, a generated torus (or, unless `torus_only`,
    /// a mesh); `router` names the router in errors.
    pub fn new(
        net: &Network,
        router: &'static str,
        torus_only: bool,
    ) -> Result<Self, RoutingError> {
        let unfit = |found: String| RoutingError::Unfit {
            engine: router,
            needs: if torus_only {
                "a torus (coordinates and wraparound links)".into()
            } else {
                "a torus or mesh (coordinates)".into()
            },
            network: net.name().to_string(),
            found,
        };
        let Structure::Torus {
            dims,
            wrap,
            concentration,
        } = net.structure()
        else {
            return Err(unfit(net.structure().family_with_article()));
        };
        if torus_only && !*wrap {
            return Err(unfit("a mesh".into()));
        }
        check_torus_terminals(net, router, dims.len(), *concentration)?;
        Ok(TorusGeometry {
            dims: dims.clone(),
            wrap: *wrap,
            concentration: (*concentration).max(1),
            coord: all_coords(dims),
            one_way_ties: false,
        })
    }

    /// A torus geometry without a network (for computing IDN sets).
    pub fn torus(dims: &[u32]) -> Self {
        TorusGeometry {
            dims: dims.to_vec(),
            wrap: true,
            concentration: 1,
            coord: all_coords(dims),
            one_way_ties: false,
        }
    }

    /// Reads the option `one_way_ties` (default false) of the routers
    /// built on [`Self::minimal`].
    pub fn with_ties(mut self, opts: &super::RouterOptions) -> Result<Self, RoutingError> {
        self.one_way_ties = opts.bool("one_way_ties", false)?;
        Ok(self)
    }

    /// Number of dimensions.
    #[inline]
    pub fn n(&self) -> usize {
        self.dims.len()
    }

    /// Coordinates of switch `s`.
    #[inline]
    pub fn coords(&self, s: u32) -> &[u32] {
        let n = self.n();
        &self.coord[s as usize * n..][..n]
    }

    /// The switch at `c`.
    #[inline]
    pub fn switch_at(&self, c: &[u32]) -> u32 {
        self.dims
            .iter()
            .zip(c)
            .rev()
            .fold(0, |acc, (&k, &x)| acc * k + x)
    }

    /// The switch terminal `t` hangs off.
    #[inline]
    pub fn switch_of(&self, t: u32) -> u32 {
        t / self.concentration
    }

    /// The port of its switch that leads to terminal `t`.
    #[inline]
    pub fn eject_port(&self, t: u32) -> PortId {
        PortId(2 * self.n() as u16 + 1 + (t % self.concentration) as u16)
    }

    /// Minimal distance along dimension `d` from `x` to `y`, and whether
    /// the dimension-order direction is `+` (the shorter way, `+` on a tie
    /// at `k / 2`; towards `y` on a mesh).
    #[inline]
    pub fn offset(&self, d: usize, x: u32, y: u32) -> (u32, bool) {
        if self.wrap {
            ring_offset(self.dims[d], x, y)
        } else if y >= x {
            (y - x, true)
        } else {
            (x - y, false)
        }
    }

    /// Whether `+d` and `-d` lie on minimal paths from `x` to `y` (both at
    /// a tie unless `one_way_ties`, neither if `x == y`).
    #[inline]
    pub fn minimal(&self, d: usize, x: u32, y: u32) -> (bool, bool) {
        if x == y {
            return (false, false);
        }
        if self.wrap {
            let k = self.dims[d];
            let up = if y >= x { y - x } else { y + k - x };
            (
                2 * up <= k,
                2 * up > k || (2 * up == k && !self.one_way_ties),
            )
        } else {
            (y > x, y < x)
        }
    }

    /// The dimension-order port from switch `at` towards switch `goal`:
    /// the lowest dimension in which they differ, the direction of
    /// [`Self::offset`]; `None` if `at == goal`.
    #[inline]
    pub fn dor_port(&self, at: u32, goal: u32) -> Option<PortId> {
        let a = self.coords(at);
        let b = self.coords(goal);
        let d = (0..self.n()).find(|&d| a[d] != b[d])?;
        Some(dim_port(d, self.offset(d, a[d], b[d]).1))
    }

    /// Hops between coordinates `a` and `b`.
    pub fn distance_coords(&self, a: &[u32], b: &[u32]) -> u32 {
        (0..self.n()).map(|d| self.offset(d, a[d], b[d]).0).sum()
    }

    /// Hops between switches `a` and `b`.
    pub fn distance(&self, a: u32, b: u32) -> u32 {
        self.distance_coords(self.coords(a), self.coords(b))
    }

    /// Pushes the candidates of a minimal adaptive hop from `here` towards
    /// switch `goal` (not `here`): every VC of `adaptive` on every minimal
    /// port (priority 0), then the escape VCs `escape.0 .. escape.1` of the
    /// dimension-order port under bubble flow control (priority 1).
    #[inline]
    pub fn minimal_hop(
        &self,
        here: &Here,
        goal: u32,
        flits: u16,
        escape: (u8, u8),
        adaptive: (u8, u8),
        out: &mut Candidates,
    ) {
        let a = self.coords(here.switch_index);
        let b = self.coords(goal);
        let mut esc: Option<PortId> = None;
        for d in 0..self.n() {
            let (plus, minus) = self.minimal(d, a[d], b[d]);
            if plus {
                push_vcs(dim_port(d, true), adaptive, out);
            }
            if minus {
                push_vcs(dim_port(d, false), adaptive, out);
            }
            if esc.is_none() && (plus || minus) {
                esc = Some(dim_port(d, plus));
            }
        }
        if let Some(p) = esc {
            for vc in escape.0..escape.1 {
                push_escape(here, p, vc, flits, out);
            }
        }
    }

    /// As [`Self::minimal_hop`] inside a fixed orthant: along dimension `d`
    /// the packet moves only `-` if bit `d` of `negative` is set, else `+`,
    /// until it reaches `goal`'s coordinate.
    #[inline]
    #[allow(clippy::too_many_arguments)]
    pub fn orthant_hop(
        &self,
        here: &Here,
        goal: u32,
        negative: u32,
        flits: u16,
        escape: (u8, u8),
        adaptive: (u8, u8),
        out: &mut Candidates,
    ) {
        let a = self.coords(here.switch_index);
        let b = self.coords(goal);
        let mut esc: Option<PortId> = None;
        for d in 0..self.n() {
            if a[d] == b[d] {
                continue;
            }
            let p = dim_port(d, negative >> d & 1 == 0);
            push_vcs(p, adaptive, out);
            esc.get_or_insert(p);
        }
        if let Some(p) = esc {
            for vc in escape.0..escape.1 {
                push_escape(here, p, vc, flits, out);
            }
        }
    }

    /// The switch of terminal `t`, or, if the packet is there already,
    /// `None` after pushing every VC of the ejection port towards `t`.
    #[inline]
    pub fn goal_or_eject(&self, t: u32, here: &Here, out: &mut Candidates) -> Option<u32> {
        let goal = self.switch_of(t);
        if here.switch_index == goal {
            self.eject(t, here.vcs, out);
            return None;
        }
        Some(goal)
    }

    /// Pushes every VC of the ejection port towards terminal `t`.
    #[inline]
    pub fn eject(&self, t: u32, vcs: u8, out: &mut Candidates) {
        let p = self.eject_port(t);
        for v in 0..vcs {
            out.push(p, v);
        }
    }
}

/// The coordinates of every switch, `n` per switch.
fn all_coords(dims: &[u32]) -> Vec<u32> {
    let switches: u64 = dims.iter().map(|&k| u64::from(k)).product();
    let mut coord = Vec::with_capacity(switches as usize * dims.len());
    for s in 0..switches as u32 {
        let mut x = s;
        for &k in dims {
            coord.push(x % k);
            x /= k;
        }
    }
    coord
}

/// Minimal distance from `x` to `y` on a ring of `k`, and whether `+` is
/// the dimension-order direction (`+` on a tie at `k / 2`).
#[inline]
pub fn ring_offset(k: u32, x: u32, y: u32) -> (u32, bool) {
    let up = if y >= x { y - x } else { y + k - x };
    if 2 * up <= k {
        (up, true)
    } else {
        (k - up, false)
    }
}

/// Pushes VCs `range.0 .. range.1` of `port` with priority 0.
#[inline]
pub fn push_vcs(port: PortId, range: (u8, u8), out: &mut Candidates) {
    for v in range.0..range.1 {
        out.push(port, v);
    }
}

/// Pushes VCs `range.0 .. range.1` of `port` with priority 0, each
/// needing `need` credits.
#[inline]
pub fn push_vcs_needing(port: PortId, range: (u8, u8), need: u32, out: &mut Candidates) {
    for v in range.0..range.1 {
        out.push_with(port, v, 0, need);
    }
}

/// The adaptive VCs `(first, end)` given the VC count, the escape VCs
/// below `first`, and how many adaptive VCs to use (0: all the rest).
#[inline]
pub fn adaptive_vcs(vcs: u8, first: u8, count: u8) -> (u8, u8) {
    let end = if count == 0 {
        vcs
    } else {
        vcs.min(first.saturating_add(count))
    };
    (first, end.max(first))
}

/// A 64-bit mix (splitmix64's finaliser), for per-hop choices that must
/// not change when a router is asked again for the same hop.
#[inline]
pub fn mix64(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// A view with fixed occupancies, for the routers' unit tests.
#[cfg(test)]
pub(crate) mod test_view {
    use crate::network::{ChannelId, PortId};
    use crate::routing::adaptive::LocalView;

    /// Every port cabled, `occ[p - 1]` flits used on VC 0 of port `p`.
    pub struct FixedView {
        pub vcs: u8,
        pub capacity: u32,
        pub occ: Vec<u32>,
    }

    impl FixedView {
        pub fn empty(ports: u16) -> Self {
            FixedView {
                vcs: 3,
                capacity: 16,
                occ: vec![0; usize::from(ports)],
            }
        }
    }

    impl LocalView for FixedView {
        fn now_ps(&self) -> u64 {
            0
        }
        fn ports(&self) -> u16 {
            self.occ.len() as u16
        }
        fn vcs(&self) -> u8 {
            self.vcs
        }
        fn capacity(&self) -> u32 {
            self.capacity
        }
        fn channel(&self, p: PortId) -> Option<ChannelId> {
            Some(ChannelId(u32::from(p.0)))
        }
        fn credits(&self, p: PortId, vc: u8) -> u32 {
            let used = if vc == 0 {
                self.occ[usize::from(p.0) - 1]
            } else {
                0
            };
            self.capacity - used
        }
        fn is_held(&self, _: PortId, _: u8) -> bool {
            false
        }
        fn is_busy(&self, _: PortId) -> bool {
            false
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_and_minimal_directions() {
        assert_eq!(ring_offset(8, 1, 3), (2, true));
        assert_eq!(ring_offset(8, 1, 6), (3, false));
        assert_eq!(ring_offset(8, 6, 1), (3, true));
        assert_eq!(ring_offset(8, 0, 4), (4, true));
        let g = TorusGeometry::torus(&[8, 5]);
        assert_eq!(g.minimal(0, 0, 4), (true, true));
        assert_eq!(g.minimal(0, 0, 5), (false, true));
        assert_eq!(g.minimal(1, 0, 2), (true, false));
        assert_eq!(g.minimal(1, 0, 3), (false, true));
        assert_eq!(g.minimal(1, 2, 2), (false, false));
        let s = g.switch_at(&[7, 4]);
        assert_eq!(g.coords(s), &[7, 4]);
        assert_eq!(g.distance_coords(&[7, 4], &[1, 0]), 2 + 1);
    }

    #[test]
    fn adaptive_vc_ranges() {
        assert_eq!(adaptive_vcs(3, 1, 0), (1, 3));
        assert_eq!(adaptive_vcs(3, 1, 1), (1, 2));
        assert_eq!(adaptive_vcs(3, 2, 5), (2, 3));
    }
}
