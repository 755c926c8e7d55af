//! Dispersive source routing (geoffray2008 §4): the NIC picks one of a
//! pair's source routes for every packet, on any multipath fabric.
//!
//! The routes are a [`crate::routing::PathSet`] (by default the
//! `multipath` engine's: every minimal path, 16 per pair across the
//! leaves of a 512-host Clos of 32-port crossbars); switches follow the
//! route the header carries, as [`TableRouter`] does. The NIC keeps, per
//! destination, its current route, a count of packets that flow control
//! stopped ([`HopRouter::stopped`]), and an outstanding probe. The
//! `mode` option picks the scheme:
//! - `static`: one fixed route per pair, drawn by a hash of (seed, source,
//!   destination), never changed (a mapper's static assignment).
//! - `random`: a uniformly random route for every packet (§4.1).
//! - `adaptive`: the static route until contention is sensed; once more
//!   than `threshold` of the pair's packets were stopped by back-pressure,
//!   each further stop moves it to a random other route with
//!   `probability` (§4.2.1-4.2.2); the count restarts on every move.
//! - `probing`: past the same threshold, with `probability`, probe a
//!   random other route; the answer comes a round trip (`probe_ns`) later
//!   and the NIC moves only if no channel of that route carried a packet
//!   (the view's [`LocalView::channel_in_use`]: a VC held, or a flit sent
//!   within `window_ns`, default 100 ns). A busy answer probes another route; after
//!   `probe_limit` busy answers in a row the NIC moves anyway (a forced
//!   dispersion) and multiplies its threshold by `raise` for its next
//!   `raise_packets` packets (§4.3, §4.4.2).
//!
//! The paper gives the thresholds and probabilities (adaptive 4 and 50%,
//! probing 16 and 100%) and the probe cost (about 4 us); the probe limit
//! (twice the routes), the raise (x2 for 256 packets) and the probe
//! oracle are routelab's choices, as it does not say. Probes take no
//! bandwidth here (the paper: "very little").

use super::table::TableRouter;
use super::torus_geometry::mix64;
use super::{
    AnyRouter, BuildRouter, Candidate, Candidates, Direct, Header, Here, HopRouter, LocalView,
    PathChoice, RouterCtx, RouterOptions,
};
use crate::network::{ChannelId, Network};
use crate::routing::{Routes, RoutingError};
use rand::Rng as _;

/// The route choice of a [`DispersiveRouter`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Static,
    Random,
    Adaptive,
    Probing,
}

impl Mode {
    pub const NAMES: &'static str = "static, random, adaptive, probing";

    pub fn parse(s: &str) -> Option<Mode> {
        Some(match s.trim().trim_matches('"') {
            "static" => Mode::Static,
            "random" => Mode::Random,
            "adaptive" => Mode::Adaptive,
            "probing" => Mode::Probing,
            _ => return None,
        })
    }
}

/// State words per (NIC, destination).
const WORDS: usize = 7;
/// Word indices: current route + 1 (0: not chosen yet), probed route + 1
/// (0: none), packets stopped, busy probe answers in a row, packets left
/// with a raised threshold, and the time the probe's answer is due (ps,
/// low and high word).
const ROUTE: usize = 0;
const PROBE: usize = 1;
const BLOCKED: usize = 2;
const FAILS: usize = 3;
const RAISED: usize = 4;
const DUE: usize = 5;

fn due(rec: &[u32]) -> u64 {
    u64::from(rec[DUE]) | u64::from(rec[DUE + 1]) << 32
}

fn set_due(rec: &mut [u32], ps: u64) {
    rec[DUE] = ps as u32;
    rec[DUE + 1] = (ps >> 32) as u32;
}

/// Counter indices (see [`HopRouter::counters`]).
const DISPERSIONS: usize = 0;
const PROBES: usize = 1;
const BUSY_PROBES: usize = 2;
const FORCED: usize = 3;

/// The most NIC state a run may take (per NIC, a record per destination).
const MAX_STATE_BYTES: usize = 2 << 30;

/// Dispersive routing over a pair's source routes. See the module docs.
pub struct DispersiveRouter {
    table: Box<TableRouter>,
    mode: Mode,
    threshold: u32,
    probability: f64,
    probe_ps: u64,
    window_ps: u64,
    probe_limit: u32,
    raise: u32,
    raise_packets: u32,
    seed: u64,
}

/// The options, their defaults and meaning.
pub const OPTIONS: &[&str] = &[
    "mode",
    "engine",
    "threshold",
    "probability",
    "probe_ns",
    "window_ns",
    "probe_limit",
    "raise",
    "raise_packets",
];

impl BuildRouter for DispersiveRouter {
    fn build(net: &Network, opts: &RouterOptions) -> Result<AnyRouter, RoutingError> {
        opts.only(OPTIONS)?;
        let text = |k: &str| opts.params.get(k).map(|v| v.trim().trim_matches('"'));
        let mode = match text("mode") {
            None => Mode::Adaptive,
            Some(m) => Mode::parse(m).ok_or_else(|| RoutingError::BadOption {
                option: "mode".into(),
                value: m.into(),
                expected: format!("one of {}", Mode::NAMES),
            })?,
        };
        let engine = text("engine").unwrap_or("multipath");
        let routes: Routes = crate::routing::route(net, engine, &opts.routing)?;
        if routes.path_set().is_none_or(|ps| ps.passes_terminals(net)) {
            return Err(RoutingError::BadOption {
                option: "engine".into(),
                value: engine.into(),
                expected: "an engine whose routes are source routes without in-transit hosts \
                           (multipath, valiant, updown-source)"
                    .into(),
            });
        }
        let (threshold, probability) = match mode {
            Mode::Probing => (16, 1.0),
            _ => (4, 0.5),
        };
        let probability = opts.f64("probability", probability)?;
        if !(0.0..=1.0).contains(&probability) {
            return Err(RoutingError::BadOption {
                option: "probability".into(),
                value: probability.to_string(),
                expected: "a probability in [0, 1]".into(),
            });
        }
        let routes_per_pair = max_paths(&routes);
        let raise = opts.u32("raise", 2)?.max(1);
        let t = net.terminals().len();
        let bytes = t.saturating_mul(t).saturating_mul(WORDS * 4);
        if mode != Mode::Random && mode != Mode::Static && bytes > MAX_STATE_BYTES {
            return Err(RoutingError::BadOption {
                option: "mode".into(),
                value: format!("{mode:?}").to_lowercase(),
                expected: format!(
                    "static or random on {t} terminals: adaptive and probing NICs keep \
                     {} bytes per destination, {:.1} GiB in all, above the {} GiB allowed",
                    WORDS * 4,
                    bytes as f64 / f64::from(1u32 << 30),
                    MAX_STATE_BYTES >> 30
                ),
            });
        }
        Ok(AnyRouter::Dispersive(DispersiveRouter {
            table: Box::new(TableRouter::new(net, routes, PathChoice::First)?),
            mode,
            threshold: opts.u32("threshold", threshold)?,
            probability,
            probe_ps: u64::from(opts.u32("probe_ns", 4000)?) * 1000,
            window_ps: u64::from(opts.u32("window_ns", 100)?) * 1000,
            probe_limit: opts.u32("probe_limit", 2 * routes_per_pair as u32)?.max(1),
            raise,
            raise_packets: opts.u32("raise_packets", 256)?,
            seed: opts.routing.seed,
        }))
    }
}

/// The most paths any pair has.
fn max_paths(routes: &Routes) -> usize {
    let Some(ps) = routes.path_set() else {
        return 1;
    };
    let t = ps.terminals();
    (0..t)
        .flat_map(|s| [(s, (s + 1) % t), (s, (s + t / 2) % t)])
        .map(|(s, d)| ps.path_count(s, d))
        .max()
        .unwrap_or(1)
}

impl DispersiveRouter {
    pub fn mode(&self) -> Mode {
        self.mode
    }

    /// The route a pair starts on (and keeps, under `static`).
    pub fn static_route(&self, src: u32, dst: u32, paths: usize) -> usize {
        let key = self.seed ^ (u64::from(src) << 32 | u64::from(dst));
        (mix64(key) % paths as u64) as usize
    }

    fn paths(&self, hdr: &Header) -> usize {
        self.table.routes().path_set().map_or(0, |ps| {
            ps.path_count(hdr.origin as usize, hdr.target as usize)
        })
    }

    /// The state record of the packet's destination at its NIC, with its
    /// route chosen.
    fn record<'c>(&self, hdr: &Header, ctx: &'c mut RouterCtx, paths: usize) -> &'c mut [u32] {
        let at = hdr.target as usize * WORDS;
        let rec = &mut ctx.nic[at..at + WORDS];
        if rec[ROUTE] == 0 {
            rec[ROUTE] = self.static_route(hdr.origin, hdr.target, paths) as u32 + 1;
        }
        rec
    }

    /// A route drawn uniformly among the `paths - 1` other than `current`.
    fn other(ctx: &mut RouterCtx, current: usize, paths: usize) -> usize {
        let k = ctx.rng.gen_range(0..paths - 1);
        if k >= current {
            k + 1
        } else {
            k
        }
    }

    /// Whether route `r` of the packet's pair carries a packet now, on any
    /// channel between switches (the last hop, to the destination, is the
    /// same on every route).
    fn route_busy(&self, hdr: &Header, r: usize, view: &dyn LocalView, recent_ps: u64) -> bool {
        let Some(ps) = self.table.routes().path_set() else {
            return false;
        };
        let Some(path) = ps.paths(hdr.origin as usize, hdr.target as usize).nth(r) else {
            return false;
        };
        let hops = path.channels.len().saturating_sub(1);
        path.channels[..hops]
            .iter()
            .any(|&c| view.channel_in_use(c, recent_ps))
    }

    /// The probe of the packet's pair, if its answer is in: move or probe
    /// again.
    fn answer_probe(&self, hdr: &Header, view: &dyn LocalView, ctx: &mut RouterCtx, paths: usize) {
        let now = view.now_ps();
        let at = hdr.target as usize * WORDS;
        let rec = &ctx.nic[at..at + WORDS];
        if rec[PROBE] == 0 || now < due(rec) {
            return;
        }
        let probed = rec[PROBE] as usize - 1;
        let busy = self.route_busy(hdr, probed, view, self.window_ps);
        let current = ctx.nic[at + ROUTE] as usize - 1;
        if !busy {
            let rec = &mut ctx.nic[at..at + WORDS];
            rec[ROUTE] = probed as u32 + 1;
            rec[PROBE] = 0;
            rec[BLOCKED] = 0;
            rec[FAILS] = 0;
            ctx.count(DISPERSIONS);
            return;
        }
        ctx.count(BUSY_PROBES);
        let fails = ctx.nic[at + FAILS] + 1;
        if fails >= self.probe_limit {
            let r = Self::other(ctx, current, paths);
            let rec = &mut ctx.nic[at..at + WORDS];
            rec[ROUTE] = r as u32 + 1;
            rec[PROBE] = 0;
            rec[BLOCKED] = 0;
            rec[FAILS] = 0;
            rec[RAISED] = self.raise_packets;
            ctx.count(FORCED);
            return;
        }
        let r = Self::other(ctx, current, paths);
        let rec = &mut ctx.nic[at..at + WORDS];
        rec[FAILS] = fails;
        rec[PROBE] = r as u32 + 1;
        set_due(rec, now.saturating_add(self.probe_ps));
        ctx.count(PROBES);
    }
}

impl HopRouter for DispersiveRouter {
    fn name(&self) -> &str {
        "dispersive"
    }

    fn vcs_needed(&self) -> u8 {
        self.table.vcs_needed()
    }

    fn counters(&self) -> Vec<String> {
        ["dispersions", "probes", "busy_probes", "forced_dispersions"]
            .map(String::from)
            .to_vec()
    }

    fn reads_view(&self) -> bool {
        self.mode == Mode::Probing
    }

    fn reads_remote_channels(&self) -> bool {
        self.mode == Mode::Probing
    }

    fn nic_words(&self, terminals: usize) -> usize {
        match self.mode {
            // Static routes are a hash of the pair: nothing to keep (and
            // `build` lets static runs past the state limit).
            Mode::Static | Mode::Random => 0,
            Mode::Adaptive | Mode::Probing => terminals * WORDS,
        }
    }

    fn source(&self, hdr: &mut Header, view: &dyn LocalView, ctx: &mut RouterCtx) {
        self.table.source(hdr, view, ctx);
        let paths = self.paths(hdr);
        if paths <= 1 {
            hdr.state = 0;
            return;
        }
        let route = match self.mode {
            Mode::Random => ctx.rng.gen_range(0..paths),
            Mode::Static => self.static_route(hdr.origin, hdr.target, paths),
            Mode::Adaptive | Mode::Probing => {
                self.record(hdr, ctx, paths);
                if self.mode == Mode::Probing {
                    self.answer_probe(hdr, view, ctx, paths);
                }
                let rec = self.record(hdr, ctx, paths);
                rec[RAISED] = rec[RAISED].saturating_sub(1);
                rec[ROUTE] as usize - 1
            }
        };
        hdr.state = route as u32;
    }

    fn stopped(&self, hdr: &Header, now_ps: u64, ctx: &mut RouterCtx) {
        if !matches!(self.mode, Mode::Adaptive | Mode::Probing) {
            return;
        }
        let paths = self.paths(hdr);
        if paths <= 1 {
            return;
        }
        let rec = self.record(hdr, ctx, paths);
        rec[BLOCKED] += 1;
        let threshold = if rec[RAISED] > 0 {
            self.threshold.saturating_mul(self.raise)
        } else {
            self.threshold
        };
        if rec[BLOCKED] <= threshold || (self.mode == Mode::Probing && rec[PROBE] != 0) {
            return;
        }
        let current = rec[ROUTE] as usize - 1;
        if self.probability < 1.0 && !ctx.rng.gen_bool(self.probability) {
            return;
        }
        let r = Self::other(ctx, current, paths);
        let at = hdr.target as usize * WORDS;
        let rec = &mut ctx.nic[at..at + WORDS];
        match self.mode {
            Mode::Adaptive => {
                rec[ROUTE] = r as u32 + 1;
                rec[BLOCKED] = 0;
                ctx.count(DISPERSIONS);
            }
            _ => {
                rec[PROBE] = r as u32 + 1;
                set_due(rec, now_ps.saturating_add(self.probe_ps));
                ctx.count(PROBES);
            }
        }
    }

    #[inline]
    fn inject(&self, hdr: &Header, vcs: u8, out: &mut Candidates) {
        self.table.inject(hdr, vcs, out)
    }

    #[inline]
    fn inject_lane(&self, hdr: &Header) -> Option<(u8, u8)> {
        self.table.inject_lane(hdr)
    }

    #[inline]
    fn route(
        &self,
        hdr: &Header,
        here: &Here,
        view: &dyn LocalView,
        ctx: &mut RouterCtx,
        out: &mut Candidates,
    ) {
        self.table.route(hdr, here, view, ctx, out)
    }

    #[inline]
    fn direct(&self, _hdr: &Header, _switch_index: u32) -> Option<Direct> {
        None
    }

    #[inline]
    fn forwarded(
        &self,
        hdr: &mut Header,
        here: &Here,
        chosen: Candidate,
        channel: ChannelId,
        ctx: &mut RouterCtx,
    ) {
        self.table.forwarded(hdr, here, chosen, channel, ctx)
    }
}
