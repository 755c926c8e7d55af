//! OutFlank Routing (versaci2013 §3) on tori.
//!
//! At injection (the source hook, once per packet) the router decides
//! whether to deroute the packet through an intermediate destination node
//! (IDN) and which one:
//! 1. The candidate set `Q` holds the Wraparound IDNs of eq. (1),
//!    `q_i = floor((s_i + t_i + beta_i k_i) / 2) mod k_i` for every
//!    `beta` in `{0,1}^n` ([`widn`], [`widns`]), and the OutFlank IDNs of
//!    eqs. (2)-(3) with `Delta` (default 2) for the `lambda` vectors of
//!    [`oidn_lambdas`]: Example 2's sets in three dimensions, and in
//!    general the covering subset described there ([`oidn`], [`oidns`]).
//!    An IDN that would not deroute the packet (`d(s,q) + d(q,t) =
//!    d(s,t)`: the WIDN of the minimal orthant), or that is `s` or `t`, is
//!    dropped, and so are repeats. With `one_way_ties` (minimal routes go
//!    `+` at distance `k / 2`) an IDN of no extra hop that lies on the `-`
//!    half-ring of such a dimension is kept: it is the other half-ring at
//!    no cost (counter `zero_dilation`; option `zero_dilation = false`
//!    drops it).
//! 2. For each `q` it computes the profit of eq. (15),
//!    `pi_q = u_* / u_q + eta d(s,t) / (d(s,q) + d(q,t))`, where `u_q` is
//!    the mean number of used flit slots (over all VCs) in the next
//!    buffers of the local outgoing links that are minimal from `s` to
//!    `q`, `u_*` by default the least of the links minimal towards `t`,
//!    and the first fraction unbounded when `u_q = 0 < u_*` (1 when both
//!    are 0); and `pi_0 = u_* / u_0 + eta` for the minimal route (eq. 16),
//!    `u_0` over the minimal links towards `t`. Options `u_star` and
//!    `fraction` choose other readings of `u_*` and of a zero denominator,
//!    the literal "least used outgoing link" among them ([`ProfitRule`]
//!    says why it is not the default).
//! 3. If no `pi_q` exceeds `pi_0` the packet goes minimally; otherwise
//!    through `argmax pi_q` (eq. 17; the first on ties, OIDNs listed
//!    before WIDNs).
//!
//! The packet then travels in two minimal phases, `s -> q` and `q -> t`,
//! each routed as the Adaptive Bubble Router does (see [`super::abr`]):
//! adaptive VCs on every minimal port (priority 0), an escape VC in
//! dimension order under bubble flow control (priority 1). The escape
//! network is split in two virtual subnetworks (Theorem 1): VC 0 (VS1)
//! carries packets towards their IDN, VC 1 (VS2) packets towards their
//! destination (from the source if they were not derouted), VCs `2..` are
//! adaptive. Entering VS2 from VS1 at the IDN is an entry into a ring, so
//! it needs two free packet slots, as an injection does. With
//! `split = false` one escape VC (VC 0) serves both phases and VCs `1..`
//! are adaptive: a packet that reaches its IDN on an escape ring of a high
//! dimension may then need one of a lower dimension, against the
//! dimension order (the deadlock §3.3 warns about).
//!
//! Derouting happens only in the source hook, once per packet: the
//! decision is kept in the header and never revisited, and both phases are
//! minimal, so a packet crosses exactly `d(s,q) + d(q,t)` switch hops
//! (Theorem 2). Header use: `aux` is the IDN's switch ([`NO_IDN`] if
//! none), `phase` 0 on the way to the IDN and 1 after it (or without
//! one), `state` the decision ([`DECIDED_MINIMAL`], [`DECIDED_OIDN`],
//! [`DECIDED_WIDN`]; 0 before the source hook).
//!
//! Options: `eta` (2.0), `delta` (2), `split` (true), `adaptive_vcs`
//! (0: every VC above the escape ones), `u_star` ("minimal"), `fraction`
//! ("unbounded") (see [`ProfitRule`]), `one_way_ties` (false),
//! `zero_dilation` (true). Counters: `minimal`, `oidn`, `widn` (packets
//! by decision), `escape_hops`, `zero_dilation` (derouted packets whose IDN
//! adds no hop).
//! Needs cut-through or store-and-forward switching and buffers of at
//! least two packets per VC.

use super::bubble::count_escape_hop;
use super::profit::{mean_minimal, undecided, ProfitRule};
use super::torus_geometry::{adaptive_vcs, ring_offset, TorusGeometry};
use super::{
    AnyRouter, BuildRouter, Candidate, Candidates, Header, Here, HopRouter, LocalView, RouterCtx,
    RouterOptions,
};
use crate::network::{ChannelId, Network};
use crate::routing::RoutingError;

/// `Header::aux` of a packet without an IDN.
pub const NO_IDN: u32 = u32::MAX;
/// `Header::state` of a packet routed minimally.
pub const DECIDED_MINIMAL: u32 = 1;
/// `Header::state` of a packet derouted through an OutFlank IDN.
pub const DECIDED_OIDN: u32 = 2;
/// `Header::state` of a packet derouted through a Wraparound IDN.
pub const DECIDED_WIDN: u32 = 3;

/// The two kinds of intermediate destination nodes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IdnKind {
    /// OutFlank IDN, eqs. (2)-(3).
    Oidn,
    /// Wraparound IDN, eq. (1).
    Widn,
}

/// An intermediate destination node of a source and destination.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Idn {
    pub kind: IdnKind,
    /// `lambda` of an OIDN in the paper's frame (for a dimension that
    /// needs travel, `+1` is the side of the minimal link, `-1` the other);
    /// `beta` of a WIDN.
    pub choice: Vec<i8>,
    pub coords: Vec<u32>,
}

/// The WIDN `q(beta)` of eq. (1): `q_i = floor((s_i + t_i + beta_i k_i) /
/// 2) mod k_i`.
pub fn widn(dims: &[u32], s: &[u32], t: &[u32], beta: &[u8]) -> Vec<u32> {
    (0..dims.len())
        .map(|i| widn_coord(dims[i], s[i], t[i], beta[i]))
        .collect()
}

/// One coordinate of [`widn`].
#[inline]
fn widn_coord(k: u32, s: u32, t: u32, beta: u8) -> u32 {
    (s + t + u32::from(beta) * k) / 2 % k
}

/// The OIDN `q(lambda)` of eqs. (2)-(3), `lambda` in real orientation
/// (`-1` the `-` side, `+1` the `+` side). Along a dimension that needs
/// travel (`s_i != t_i`), whose minimal link is the shorter way round
/// (`+` at a tie): `-1` gives `s_i - Delta` if `i-` is a non-minimal link
/// and `t_i - Delta` if it is minimal, `+1` gives `s_i + Delta` or
/// `t_i + Delta` alike, and `0` the midpoint `floor((s_i + t_i) / 2)` of
/// the minimal arc, taken in the frame where that arc runs `+` from `s_i`
/// (so `s_i + floor(d_i / 2)` along it; eq. (2)'s formula read with
/// versaci2013's convention that minimal links are positive). Along a
/// dimension with `s_i = t_i`: `s_i + lambda_i Delta`, all mod `k_i`.
pub fn oidn(dims: &[u32], s: &[u32], t: &[u32], lambda: &[i8], delta: u32) -> Vec<u32> {
    (0..dims.len())
        .map(|i| oidn_coord(dims[i], s[i], t[i], lambda[i], delta))
        .collect()
}

/// One coordinate of [`oidn`].
#[inline]
fn oidn_coord(k: u32, s: u32, t: u32, lambda: i8, delta: u32) -> u32 {
    let (si, ti, dl) = (i64::from(s), i64::from(t), i64::from(delta));
    let q = if s == t {
        si + i64::from(lambda) * dl
    } else {
        let (d, plus) = ring_offset(k, s, t);
        match (lambda, plus) {
            (-1, true) => si - dl,
            (-1, false) => ti - dl,
            (1, false) => si + dl,
            (1, true) => ti + dl,
            _ => {
                let half = i64::from(d / 2);
                if plus {
                    si + half
                } else {
                    si - half
                }
            }
        }
    };
    q.rem_euclid(i64::from(k)) as u32
}

/// `lambda_i` of the paper's frame (`+1` on the side of the minimal link)
/// in real orientation.
#[inline]
fn real_lambda(k: u32, s: u32, t: u32, lambda: i8) -> i8 {
    if s == t || ring_offset(k, s, t).1 {
        lambda
    } else {
        -lambda
    }
}

/// The `lambda` vectors of the OIDNs used, in the paper's frame (`+1` on
/// the side of the minimal link), given which dimensions have
/// `s_i = t_i`.
///
/// Three dimensions: Example 2's sets (eqs. 9-14), with the paper's
/// dimensions 1, 2, 3 standing for the dimensions of the case (for
/// coplanar `s` and `t` the equal one first; for collinear ones the two
/// equal ones in order, then the other). Any other `n`: a covering subset
/// built the same way: for every pair `i < j` of dimensions that need
/// travel, `(lambda_i, lambda_j) = (-1, +1)` and `(+1, -1)`; for every
/// dimension with `s_i = t_i`, `lambda_i = +1` and `-1`; and when only one
/// dimension `m` needs travel, also `(lambda_m, lambda_c) = (-1, +1)` and
/// `(+1, -1)` with `c` the first equal dimension. In two dimensions that
/// is Example 1's pair for non-collinear `s`, `t` and Remark 1's covering
/// subset `q0, q1, q4, q5` of lower dilation for collinear ones. One
/// dimension: none (no OIDN uses a non-minimal link at both ends).
pub fn oidn_lambdas(same: &[bool]) -> Vec<Vec<i8>> {
    let n = same.len();
    let m: Vec<usize> = (0..n).filter(|&i| !same[i]).collect();
    let eq: Vec<usize> = (0..n).filter(|&i| same[i]).collect();
    let with = |pairs: &[(usize, i8)]| {
        let mut l = vec![0i8; n];
        for &(i, v) in pairs {
            l[i] = v;
        }
        l
    };
    let mut out = Vec::new();
    if m.is_empty() || n == 1 {
        return out;
    }
    if n == 3 && m.len() == 1 {
        // Eqs. (13)-(14): (1,0,1), (-1,0,0), (0,1,-1), (0,-1,0).
        let (a, b, c) = (eq[0], eq[1], m[0]);
        out.push(with(&[(a, 1), (c, 1)]));
        out.push(with(&[(a, -1)]));
        out.push(with(&[(b, 1), (c, -1)]));
        out.push(with(&[(b, -1)]));
        return out;
    }
    let mut pairs = Vec::new();
    for (x, &i) in m.iter().enumerate() {
        for &j in &m[x + 1..] {
            pairs.push((i, j));
        }
    }
    // Example 2 lists the pair of the two last dimensions first.
    for &(i, j) in pairs.iter().rev() {
        out.push(with(&[(i, -1), (j, 1)]));
        out.push(with(&[(i, 1), (j, -1)]));
    }
    for &c in &eq {
        out.push(with(&[(c, 1)]));
        out.push(with(&[(c, -1)]));
    }
    if m.len() == 1 {
        let (mm, c) = (m[0], eq[0]);
        out.push(with(&[(mm, -1), (c, 1)]));
        out.push(with(&[(mm, 1), (c, -1)]));
    }
    out
}

/// Whether an IDN `q` is worth keeping for `s -> t`: not `s` or `t`, not
/// already in `seen`, and it deroutes the packet: it adds hops, or, with
/// `zero_dilation` and one-way ties, it takes the other half-ring of a
/// dimension at a tie at no extra hop.
fn keep<'a>(
    geo: &TorusGeometry,
    s: &[u32],
    t: &[u32],
    q: &[u32],
    mut seen: impl Iterator<Item = &'a [u32]>,
    zero_dilation: bool,
) -> bool {
    if q == s || q == t || seen.any(|x| x == q) {
        return false;
    }
    let d = geo.distance_coords(s, t);
    let dq = geo.distance_coords(s, q) + geo.distance_coords(q, t);
    dq > d || (zero_dilation && geo.one_way_ties && other_half_ring(geo, s, t, q))
}

/// Whether `q` lies strictly inside the `-` half-ring from `s` to `t` in
/// some dimension where they are `k / 2` apart: routed through `q`, the
/// packet goes the way one-way ties never take.
pub fn other_half_ring(geo: &TorusGeometry, s: &[u32], t: &[u32], q: &[u32]) -> bool {
    (0..geo.n()).any(|i| {
        let k = geo.dims[i];
        let up = (t[i] + k - s[i]) % k;
        let qu = (q[i] + k - s[i]) % k;
        s[i] != t[i] && 2 * up == k && qu > up
    })
}

/// The OIDNs OFR considers for `s -> t` on a torus of `dims`.
pub fn oidns(dims: &[u32], s: &[u32], t: &[u32], delta: u32) -> Vec<Idn> {
    let geo = TorusGeometry::torus(dims);
    oidns_in(&geo, s, t, delta, false)
}

fn oidns_in(geo: &TorusGeometry, s: &[u32], t: &[u32], delta: u32, zero: bool) -> Vec<Idn> {
    let dims = &geo.dims;
    let same: Vec<bool> = (0..dims.len()).map(|i| s[i] == t[i]).collect();
    let mut out: Vec<Idn> = Vec::new();
    for lambda in oidn_lambdas(&same) {
        let real: Vec<i8> = (0..dims.len())
            .map(|i| real_lambda(dims[i], s[i], t[i], lambda[i]))
            .collect();
        let q = oidn(dims, s, t, &real, delta);
        if keep(geo, s, t, &q, out.iter().map(|x| &x.coords[..]), zero) {
            out.push(Idn {
                kind: IdnKind::Oidn,
                choice: lambda,
                coords: q,
            });
        }
    }
    out
}

/// The WIDNs OFR considers for `s -> t` on a torus of `dims`: eq. (1) for
/// every `beta` but those that would not deroute (the minimal orthant's).
pub fn widns(dims: &[u32], s: &[u32], t: &[u32]) -> Vec<Idn> {
    let geo = TorusGeometry::torus(dims);
    widns_in(&geo, s, t, false)
}

fn widns_in(geo: &TorusGeometry, s: &[u32], t: &[u32], zero: bool) -> Vec<Idn> {
    let n = geo.n();
    let mut out: Vec<Idn> = Vec::new();
    for bits in 0u32..1 << n {
        let beta: Vec<u8> = (0..n).map(|i| (bits >> i & 1) as u8).collect();
        let q = widn(&geo.dims, s, t, &beta);
        if keep(geo, s, t, &q, out.iter().map(|x| &x.coords[..]), zero) {
            out.push(Idn {
                kind: IdnKind::Widn,
                choice: beta.iter().map(|&b| b as i8).collect(),
                coords: q,
            });
        }
    }
    out
}

/// OutFlank Routing. See the module docs.
pub struct OfrRouter {
    geo: TorusGeometry,
    eta: f64,
    delta: u32,
    split: bool,
    adaptive: u8,
    rule: ProfitRule,
    zero_dilation: bool,
    /// Up to [`FAST_DIMS`] dimensions: the `lambda` vectors of
    /// [`oidn_lambdas`] by the mask of dimensions where source and
    /// destination agree (empty beyond).
    lambdas: Vec<Vec<Vec<i8>>>,
}

/// Dimensions the per-packet decision handles without allocating.
const FAST_DIMS: usize = 4;
/// IDNs of one kind at most within [`FAST_DIMS`]: `2^n` WIDNs; OIDNs two
/// per pair of dimensions, two per dimension and two more.
const MAX_IDNS: usize = 1 << FAST_DIMS;

impl BuildRouter for OfrRouter {
    fn build(net: &Network, opts: &RouterOptions) -> Result<AnyRouter, RoutingError> {
        opts.only(&[
            "eta",
            "delta",
            "split",
            "adaptive_vcs",
            "u_star",
            "fraction",
            "one_way_ties",
            "zero_dilation",
        ])?;
        let eta = opts.f64("eta", 2.0)?;
        if !eta.is_finite() || eta < 0.0 {
            return Err(RoutingError::BadOption {
                option: "eta".into(),
                value: eta.to_string(),
                expected: "a non-negative number".into(),
            });
        }
        let geo = TorusGeometry::new(net, "ofr", true)?.with_ties(opts)?;
        let n = geo.n();
        let lambdas = if n <= FAST_DIMS {
            (0..1u32 << n)
                .map(|mask| oidn_lambdas(&(0..n).map(|i| mask >> i & 1 == 1).collect::<Vec<_>>()))
                .collect()
        } else {
            Vec::new()
        };
        Ok(AnyRouter::Ofr(OfrRouter {
            geo,
            lambdas,
            eta,
            delta: opts.u32("delta", 2)?,
            split: opts.bool("split", true)?,
            adaptive: opts.u32("adaptive_vcs", 0)?.min(63) as u8,
            rule: ProfitRule::from_options(opts)?,
            zero_dilation: opts.bool("zero_dilation", true)?,
        }))
    }
}

impl OfrRouter {
    /// Escape VCs below the adaptive ones.
    fn escapes(&self) -> u8 {
        if self.split {
            2
        } else {
            1
        }
    }

    /// The IDN (and its kind) eqs. (15)-(17) choose for a packet from
    /// switch `s` to switch `t`, given the used flit slots `occ[p - 1]` of
    /// every network port `p` of `s`; `None` to route minimally.
    pub fn decide(&self, s: u32, t: u32, occ: &[u32]) -> Option<(IdnKind, u32)> {
        if s == t {
            return None;
        }
        let geo = &self.geo;
        let (sc, tc) = (geo.coords(s), geo.coords(t));
        let d = geo.distance_coords(sc, tc);
        let u_star = self.rule.u_star(geo, sc, tc, occ);
        let u0 = mean_minimal(geo, sc, tc, occ);
        let mut best = self.rule.profit(u_star, u0, self.eta, d, d);
        let mut choice = None;
        let mut weigh = |kind: IdnKind, uq: f64, dq: u32, q: u32| {
            let p = self.rule.profit(u_star, uq, self.eta, d, dq);
            if p > best {
                best = p;
                choice = Some((kind, q));
            }
        };
        if self.lambdas.is_empty() {
            self.each_idn(sc, tc, &mut |kind, q| {
                let dq = geo.distance_coords(sc, q) + geo.distance_coords(q, tc);
                weigh(kind, mean_minimal(geo, sc, q, occ), dq, geo.switch_at(q))
            });
        } else {
            let n = sc.len();
            self.each_idn_fast(sc, tc, d, &mut |kind, q, dq, at| {
                weigh(kind, mean_minimal(geo, sc, &q[..n], occ), dq, at)
            });
        }
        choice
    }

    /// Calls `f` with each IDN for `s -> t` in the order of [`oidns`] then
    /// [`widns`].
    fn each_idn(&self, s: &[u32], t: &[u32], f: &mut impl FnMut(IdnKind, &[u32])) {
        let (geo, zero) = (&self.geo, self.zero_dilation);
        for q in oidns_in(geo, s, t, self.delta, zero)
            .into_iter()
            .chain(widns_in(geo, s, t, zero))
        {
            f(q.kind, &q.coords);
        }
    }

    /// Coordinates as a fixed array, zero beyond `n`.
    #[inline]
    fn fast_coords(&self, c: &[u32]) -> [u32; FAST_DIMS] {
        let mut a = [0u32; FAST_DIMS];
        let n = c.len().min(FAST_DIMS);
        a[..n].copy_from_slice(&c[..n]);
        a
    }

    /// [`Self::each_idn`] up to [`FAST_DIMS`] dimensions, without
    /// allocating: the same IDNs in the same order, each with its route's
    /// hops `d(s,q) + d(q,t)` and its switch, given `d = d(s,t)`. Once per
    /// packet, so it weighs on every adaptive run: coordinates are fixed
    /// arrays, hops are counted once per IDN, and IDNs are told apart by
    /// their switch.
    fn each_idn_fast(
        &self,
        s: &[u32],
        t: &[u32],
        d: u32,
        f: &mut impl FnMut(IdnKind, &[u32; FAST_DIMS], u32, u32),
    ) {
        let n = self.geo.n().min(FAST_DIMS);
        let (dims, delta) = (&self.geo.dims, self.delta);
        let (sa, ta) = (self.fast_coords(s), self.fast_coords(t));
        let ends = (self.geo.switch_at(s), self.geo.switch_at(t));
        let mut seen = [0u32; MAX_IDNS];
        let same = (0..n).fold(0, |m, i| m | usize::from(sa[i] == ta[i]) << i);
        let mut len = 0;
        for lambda in &self.lambdas[same] {
            let mut q = [0u32; FAST_DIMS];
            for i in 0..n {
                let real = real_lambda(dims[i], sa[i], ta[i], lambda[i]);
                q[i] = oidn_coord(dims[i], sa[i], ta[i], real, delta);
            }
            if let Some((dq, at)) = self.kept(&sa, &ta, d, ends, &q, &seen[..len]) {
                seen[len] = at;
                len += 1;
                f(IdnKind::Oidn, &q, dq, at);
            }
        }
        len = 0;
        for bits in 0u32..1 << n {
            let mut q = [0u32; FAST_DIMS];
            for i in 0..n {
                q[i] = widn_coord(dims[i], sa[i], ta[i], (bits >> i & 1) as u8);
            }
            if let Some((dq, at)) = self.kept(&sa, &ta, d, ends, &q, &seen[..len]) {
                seen[len] = at;
                len += 1;
                f(IdnKind::Widn, &q, dq, at);
            }
        }
    }

    /// [`keep`] on fixed arrays: `(d(s,q) + d(q,t), q's switch)` if `q` is
    /// kept for `s -> t` (`d = d(s,t)`, `ends` the switches of `s` and
    /// `t`, `seen` those of the IDNs of its kind kept before).
    #[inline]
    fn kept(
        &self,
        s: &[u32; FAST_DIMS],
        t: &[u32; FAST_DIMS],
        d: u32,
        ends: (u32, u32),
        q: &[u32; FAST_DIMS],
        seen: &[u32],
    ) -> Option<(u32, u32)> {
        let n = self.geo.n().min(FAST_DIMS);
        let at = self.geo.switch_at(&q[..n]);
        if at == ends.0 || at == ends.1 || seen.contains(&at) {
            return None;
        }
        let dims = &self.geo.dims;
        let dq = (0..n)
            .map(|i| ring_offset(dims[i], s[i], q[i]).0 + ring_offset(dims[i], q[i], t[i]).0)
            .sum::<u32>();
        let keep = dq > d
            || (self.zero_dilation
                && self.geo.one_way_ties
                && other_half_ring(&self.geo, &s[..n], &t[..n], &q[..n]));
        keep.then_some((dq, at))
    }

    /// The decision kept in a header: `None` before the source hook,
    /// `Some(None)` for a minimal route, `Some(Some((kind, idn switch)))`.
    pub fn decision(hdr: &Header) -> Option<Option<(IdnKind, u32)>> {
        match hdr.state {
            DECIDED_MINIMAL => Some(None),
            DECIDED_OIDN => Some(Some((IdnKind::Oidn, hdr.aux))),
            DECIDED_WIDN => Some(Some((IdnKind::Widn, hdr.aux))),
            _ => None,
        }
    }

    /// Whether the packet is past its IDN (or has none) at switch `at`.
    #[inline]
    fn second_phase(hdr: &Header, at: u32) -> bool {
        hdr.phase != 0 || hdr.aux == NO_IDN || hdr.aux == at || hdr.state == 0
    }
}

impl HopRouter for OfrRouter {
    fn name(&self) -> &str {
        "ofr"
    }

    fn fixed_candidates(&self) -> bool {
        true
    }

    fn vcs_needed(&self) -> u8 {
        self.escapes() + self.adaptive.max(1)
    }

    fn check(&self, res: &super::Resources) -> Result<(), String> {
        super::bubble::check(res, self.vcs_needed())
    }

    fn counters(&self) -> Vec<String> {
        ["minimal", "oidn", "widn", "escape_hops", "zero_dilation"]
            .map(String::from)
            .to_vec()
    }

    fn source(&self, hdr: &mut Header, view: &dyn LocalView, ctx: &mut RouterCtx) {
        // Decided once per packet, at its first injection.
        let Some((s, t, occ)) = undecided(&self.geo, hdr, view) else {
            return;
        };
        match self.decide(s, t, &occ) {
            None => {
                hdr.state = DECIDED_MINIMAL;
                hdr.aux = NO_IDN;
                hdr.phase = 1;
                ctx.count(0);
            }
            Some((kind, q)) => {
                let g = &self.geo;
                if g.distance(s, q) + g.distance(q, t) == g.distance(s, t) {
                    ctx.count(4);
                }
                hdr.aux = q;
                hdr.phase = 0;
                if kind == IdnKind::Oidn {
                    hdr.state = DECIDED_OIDN;
                    ctx.count(1);
                } else {
                    hdr.state = DECIDED_WIDN;
                    ctx.count(2);
                }
            }
        }
    }

    #[inline]
    fn route(
        &self,
        hdr: &Header,
        here: &Here,
        _view: &dyn LocalView,
        _ctx: &mut RouterCtx,
        out: &mut Candidates,
    ) {
        let at = here.switch_index;
        let second = Self::second_phase(hdr, at);
        let goal = if second {
            self.geo.switch_of(hdr.target)
        } else {
            hdr.aux
        };
        if second && at == goal {
            self.geo.eject(hdr.target, here.vcs, out);
            return;
        }
        let escape = if self.split { u8::from(second) } else { 0 };
        let adaptive = adaptive_vcs(here.vcs, self.escapes(), self.adaptive);
        self.geo
            .minimal_hop(here, goal, hdr.flits, (escape, escape + 1), adaptive, out);
    }

    #[inline]
    fn forwarded(
        &self,
        hdr: &mut Header,
        here: &Here,
        chosen: Candidate,
        _channel: ChannelId,
        ctx: &mut RouterCtx,
    ) {
        if hdr.phase == 0 && Self::second_phase(hdr, here.switch_index) {
            hdr.phase = 1;
        }
        count_escape_hop(chosen, ctx, 3);
    }
}

#[cfg(test)]
mod tests {
    use super::super::torus_geometry::test_view::FixedView;
    use super::*;
    use crate::network::{spec, NodeId, PortId};

    fn ofr(topology: &str, opts: &[(&str, &str)]) -> OfrRouter {
        let net = spec::build(topology).unwrap();
        let mut o = RouterOptions::default();
        for (k, v) in opts {
            o.params.insert(k.to_string(), v.to_string());
        }
        let AnyRouter::Ofr(r) = OfrRouter::build(&net, &o).unwrap() else {
            panic!()
        };
        r
    }

    #[test]
    fn the_allocation_free_idns_are_the_general_ones_in_order() {
        // Every destination from sources spread over the torus (a prime
        // stride), odd and even sides, two to four dimensions, ties both
        // ways and one way, with and without the zero-dilation IDNs, three
        // values of Delta.
        let cases: [(&str, &[(&str, &str)]); 6] = [
            ("torus:8x8x8", &[]),
            ("torus:8x8x8", &[("one_way_ties", "true")]),
            (
                "torus:8x8x8",
                &[("one_way_ties", "true"), ("zero_dilation", "false")],
            ),
            ("torus:5x6x7", &[("delta", "3"), ("one_way_ties", "true")]),
            ("torus:8x6", &[("one_way_ties", "true")]),
            ("torus:4x4x3x4", &[("delta", "1")]),
        ];
        for (topology, opts) in cases {
            let r = ofr(topology, opts);
            assert!(!r.lambdas.is_empty());
            let switches = r.geo.dims.iter().product::<u32>();
            let (mut pairs, mut idns) = (0, 0);
            for s in (0..switches).step_by(37) {
                for t in 0..switches {
                    let (sc, tc) = (r.geo.coords(s), r.geo.coords(t));
                    let (mut fast, mut general) = (Vec::new(), Vec::new());
                    let d = r.geo.distance_coords(sc, tc);
                    let n = sc.len();
                    r.each_idn_fast(sc, tc, d, &mut |k, q, dq, at| {
                        fast.push((k, q[..n].to_vec(), dq, at))
                    });
                    r.each_idn(sc, tc, &mut |k, q| {
                        let dq = r.geo.distance_coords(sc, q) + r.geo.distance_coords(q, tc);
                        general.push((k, q.to_vec(), dq, r.geo.switch_at(q)))
                    });
                    assert_eq!(fast, general, "{topology} {opts:?}: {sc:?} -> {tc:?}");
                    pairs += 1;
                    idns += fast.len();
                }
            }
            assert!(
                idns > 4 * pairs,
                "{topology}: {idns} IDNs for {pairs} pairs"
            );
        }
    }

    #[test]
    fn empty_queues_route_minimally_and_a_busy_minimal_link_deroutes() {
        let r = ofr("torus:16x16x16", &[]);
        let g = &r.geo;
        let s = g.switch_at(&[0, 0, 0]);
        let t = g.switch_at(&[2, 6, 6]);
        assert_eq!(r.decide(s, t, &[0; 6]), None);
        // +x full, the rest empty (u_* = 0, d = 14, pi_0 = 0 + 2): the
        // OIDN lambda = (-1, 0, 1) leaves on -x, +y, +-z, all empty, for
        // 4 Delta = 8 more hops: 1 + 2 * 14 / 22 = 2.27; the WIDN flipping
        // x costs 12 more (2.08); the others use +x (0 + 2 * 14 / dq).
        let mut occ = [0u32; 6];
        occ[0] = 16;
        let (kind, q) = r.decide(s, t, &occ).unwrap();
        assert_eq!(kind, IdnKind::Oidn);
        assert_eq!(g.coords(q), &[14, 3, 8]);
        let dq = g.distance(s, q) + g.distance(q, t);
        assert_eq!(dq, 14 + 8);
        // With eta so large that dilation always loses: minimal.
        let r = ofr("torus:16x16x16", &[("eta", "100")]);
        assert_eq!(r.decide(s, t, &occ), None);
    }

    #[test]
    fn u_star_over_the_minimal_links_lets_a_neighbour_deroute() {
        // s -> t one hop along +x, +x full, every other link idle.
        let mut occ = [0u32; 6];
        occ[0] = 16;
        let all = ofr("torus:8x8x8", &[("u_star", "all"), ("fraction", "one")]);
        let g = &all.geo;
        let s = g.switch_at(&[0, 0, 0]);
        let t = g.switch_at(&[1, 0, 0]);
        // u_* = 0 over all links: pi_0 = 0 / 16 + 2 beats any idle
        // detour, 1 + 2 * 1 / dq with dq >= 5.
        assert_eq!(all.decide(s, t, &occ), None);
        // u_* = 16 over the minimal link: pi_0 = 1 + 2, and an idle
        // detour's fraction 16 / 0 is unbounded: deroute, through the
        // idle route of least dilation. This is the default reading.
        let min = ofr("torus:8x8x8", &[]);
        let (_, q) = min.decide(s, t, &occ).unwrap();
        assert_eq!(g.distance(s, q) + g.distance(q, t), 5);
        // (16 + 1) / (0 + 1) + 2 / 5 against 1 + 2: deroute too.
        let p1 = ofr(
            "torus:8x8x8",
            &[("u_star", "minimal"), ("fraction", "plus1")],
        );
        assert!(p1.decide(s, t, &occ).is_some());
        let busy = ofr(
            "torus:8x8x8",
            &[("u_star", "busy"), ("fraction", "unbounded")],
        );
        assert!(busy.decide(s, t, &occ).is_some());
        // Unknown readings are refused.
        let net = spec::build("torus:8x8x8").unwrap();
        let mut o = RouterOptions::default();
        o.params.insert("u_star".into(), "max".into());
        assert!(OfrRouter::build(&net, &o).is_err());
    }

    #[test]
    fn one_way_ties_keep_the_idns_on_the_other_half_ring() {
        // (0,0,0) -> (4,0,0) on 8x8x8: a tie in x, minimal only along +x.
        let r = ofr("torus:8x8x8", &[("one_way_ties", "true")]);
        let g = &r.geo;
        let (s, t) = (g.switch_at(&[0, 0, 0]), g.switch_at(&[4, 0, 0]));
        assert_eq!(r.decide(s, t, &[0; 6]), None);
        // +x busy: the WIDN of the other half-ring, (6,0,0), 4 hops in all.
        let mut occ = [0u32; 6];
        occ[0] = 16;
        let (kind, q) = r.decide(s, t, &occ).unwrap();
        assert_eq!((kind, g.coords(q)), (IdnKind::Widn, &[6, 0, 0][..]));
        assert_eq!(g.distance(s, q) + g.distance(q, t), 4);
        assert!(other_half_ring(g, &[0, 0, 0], &[4, 0, 0], &[6, 0, 0]));
        assert!(!other_half_ring(g, &[0, 0, 0], &[4, 0, 0], &[2, 0, 0]));
        assert!(!other_half_ring(g, &[0, 0, 0], &[4, 0, 0], &[4, 2, 0]));
        // Without it the detour must add hops.
        let r = ofr(
            "torus:8x8x8",
            &[("one_way_ties", "true"), ("zero_dilation", "false")],
        );
        let (_, q) = r.decide(s, t, &occ).unwrap();
        assert!(g.distance(s, q) + g.distance(q, t) > 4);
    }

    #[test]
    fn two_phases_on_split_escape_subnetworks() {
        let r = ofr("torus:8x8", &[]);
        let view = FixedView::empty(5);
        let mut rng = crate::rng::stream(1, "t");
        let mut counters = [0u64; 4];
        let mut hdr = Header {
            src: 0,
            dst: 3,
            origin: 0,
            target: 3,
            flits: 2,
            ..Header::default()
        };
        {
            let mut ctx = RouterCtx::new(&mut rng, &mut counters);
            r.source(&mut hdr, &view, &mut ctx);
        }
        assert_eq!(OfrRouter::decision(&hdr), Some(None));
        assert_eq!(counters, [1, 0, 0, 0]);
        // A packet heading to IDN 2 + 8 * 6 from switch 0.
        hdr.state = DECIDED_WIDN;
        hdr.aux = 2 + 8 * 6;
        hdr.phase = 0;
        let at = |sw: u32, in_port: u16, in_vc: u8, hdr: &Header| {
            let here = Here {
                switch: NodeId(sw),
                switch_index: sw,
                in_port: PortId(in_port),
                in_vc,
                vcs: 3,
                now_ps: 0,
            };
            let mut rng = crate::rng::stream(1, "t");
            let mut c = [0u64; 4];
            let mut ctx = RouterCtx::new(&mut rng, &mut c);
            let mut out = Candidates::default();
            r.route(hdr, &here, &view, &mut ctx, &mut out);
            out.as_slice().to_vec()
        };
        let c = at(0, 5, 0, &hdr);
        let esc = c.iter().find(|c| c.priority == 1).unwrap();
        assert_eq!((esc.port, esc.vc, esc.need), (PortId(1), 0, 4));
        assert!(c.iter().filter(|c| c.priority == 0).all(|c| c.vc == 2));
        // At the IDN, arrived on VS1 travelling -y: to 3 = (3,0) the
        // escape is VS2 along +x, an entry (two packets).
        let c = at(hdr.aux, 4, 0, &hdr);
        let esc = c.iter().find(|c| c.priority == 1).unwrap();
        assert_eq!((esc.port, esc.vc, esc.need), (PortId(1), 1, 4));
        // Without the split: one escape VC for both phases.
        let r2 = ofr("torus:8x8", &[("split", "false")]);
        assert_eq!(r2.vcs_needed(), 2);
        assert_eq!(r.vcs_needed(), 3);
    }
}
