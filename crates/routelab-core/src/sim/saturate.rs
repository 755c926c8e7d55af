//! Saturation search: the highest offered load the network sustains,
//! measured by one bracketing search.
//!
//! A load is sustained when its run drains (every packet generated during
//! the measurement is delivered within the drain limit), accepted
//! throughput is within `tolerance` of the offered one (both measured),
//! and (optionally) latency and throughput converged. A run that
//! deadlocks, or stops because its source queues outgrow
//! `run.max_packets`, is a point of the search too: it is not sustained,
//! and its status and message are kept.
//!
//! The search keeps a bracket `[lo, hi]` with nothing measured inside
//! it: `lo` a load measured sustained (0, which offers nothing, until one
//! is), `hi` a load measured not sustained above it (verdicts out of
//! order, a load below `lo` not sustained or one above `hi` sustained,
//! can stay outside the bracket). It first runs `high` (and `low`, when
//! above 0, beside it). When neither is sustained the bracket moves
//! below `low` by steps that double, starting from the first bracket's
//! width, down to 0, until a load is sustained. When `high` is sustained
//! (whatever became of `low`: a sustained load outranks a lower one that
//! was not, as when narrowing)
//! the bracket grows above it the same way, up to the
//! physical bound of the load unit ([`SaturateResult::bound`]: the load
//! that fills the injection channel), until a load is not sustained: a
//! load the network sustains is never reported as its saturation, and
//! when the bound itself is sustained the result says so (`saturated =
//! false`, no `saturation`). Growing by doubling steps rather than
//! jumping to the bound keeps the bracket near the knee, so that few
//! loads far beyond saturation are run (those cost most). It then narrows
//! the bracket by thirds, running the two inner loads of each step in
//! parallel (by halves, one load a step, with `bisect`), until it is at
//! most `resolution` wide or `steps` steps are done, and reports every
//! point it measured, the final bracket and its width.
//!
//! With `scan`, the search first runs those loads in ascending order
//! (a load-latency curve) until `scan_misses` in a row are not sustained;
//! the bracket is then the highest scan load sustained and the lowest one
//! not sustained above it (grown above the last load when every one was
//! sustained), and the search narrows it as above. `low` and `high` are
//! refused beside a scan.
//!
//! With `run.stop_backlog`, a load whose backlog piles up in its warm-up
//! stops there (status `backlog`, not sustained): loads past saturation
//! then cost a fraction of a whole run. The upper end of the final
//! bracket is never such a run: it is run again to its end, and if it is
//! sustained after all the bracket moves above it and the search goes on.
//!
//! [`saturate_journaled`] writes each load to a journal as it is measured
//! (see [`super::journal`]): a search killed half-way resumes there.

use super::config::{LoadUnit, Spec};
use super::error::{ConfigError, SimError};
use super::experiment::Experiment;
use super::journal::Journal;
use super::stats::SimResult;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::Path;
use std::time::Instant;

/// How [`saturate`] searches.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SaturateOptions {
    /// The lower end of the first bracket (default 0). Measured when
    /// above 0; if it is not sustained (nor `high`) the bracket moves below
    /// it by doubling steps (the first one the first bracket's width).
    pub low: f64,
    /// The upper end of the first bracket, in the spec's unit; default the
    /// physical bound ([`SaturateResult::bound`]). When it is sustained the
    /// bracket grows above it by doubling steps (the first one the first
    /// bracket's width) before it narrows.
    pub high: Option<f64>,
    /// Relative shortfall of accepted against offered still sustained.
    pub tolerance: f64,
    /// The search stops once the bracket is at most this wide (in the
    /// spec's unit); default 1% of the bound.
    pub resolution: Option<f64>,
    /// At most this many narrowing steps (each runs two loads and keeps a
    /// third of the bracket, or with `bisect` one load and half of it).
    pub steps: u32,
    /// Narrow by halves, one load a step, instead of by thirds with two
    /// loads side by side: fewer loads in all (about a quarter fewer), for
    /// sweeps whose searches already keep every core busy; thirds take
    /// less wall time for a search alone on two cores or more.
    pub bisect: bool,
    /// Require the convergence test to pass as well.
    pub require_converged: bool,
    /// Require the drain: every packet of the window delivered. Without
    /// it a load is sustained when accepted is within `tolerance` of
    /// offered (a grid's rule for curves read to their plateau).
    pub require_drained: bool,
    /// Loads run first, ascending, until `scan_misses` in a row are not
    /// sustained; the bracket follows from them (see the module docs).
    pub scan: Vec<f64>,
    pub scan_misses: u32,
    /// Drain a load whose measurement already accepted less than
    /// `1 - tolerance` of what it offered. No drain can make it sustained,
    /// so `false` skips it: the verdict and the search are the same, at a
    /// fraction of the cost past saturation (the drain runs up to
    /// `run.drain_cycles`), and such a load's latency counts only the
    /// packets delivered by the end of the measurement (`drain_skipped`).
    pub drain_unsustained: bool,
}

impl Default for SaturateOptions {
    fn default() -> Self {
        SaturateOptions {
            low: 0.0,
            high: None,
            tolerance: 0.05,
            resolution: None,
            steps: 10,
            bisect: false,
            require_converged: true,
            require_drained: true,
            scan: Vec::new(),
            scan_misses: 2,
            drain_unsustained: true,
        }
    }
}

/// What became of one load of the search.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PointStatus {
    /// Drained, converged and accepted within the tolerance of offered.
    Sustained,
    /// Drained, but accepted fell short of offered by more than the tolerance.
    Unsustained,
    /// Packets generated while measuring were still undelivered after the
    /// drain: beyond saturation.
    Undrained,
    /// Latency or throughput did not settle between the two halves of the
    /// measurement.
    Unconverged,
    /// Stopped in its warm-up, its backlog piling up (`run.stop_backlog`):
    /// past saturation, nothing measured. Never the upper end of the
    /// final bracket: that one is run again to its end.
    Backlog,
    /// The run deadlocked ([`SimError::Deadlock`]); `error` has the cycle.
    Deadlock,
    /// The run stopped with another error (source queues beyond
    /// `run.max_packets`); `error` says which.
    Failed,
}

impl PointStatus {
    pub fn sustained(self) -> bool {
        self == PointStatus::Sustained
    }
}

/// One measured load. The measured fields are `None` for a run that
/// failed (`status` deadlock or failed).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SaturatePoint {
    /// The load asked for, in the spec's unit.
    pub load: f64,
    /// The same in flits per terminal per cycle.
    pub offered_target: f64,
    /// Measured: flits generated per terminal per cycle.
    pub offered: Option<f64>,
    pub accepted: Option<f64>,
    pub latency_mean: Option<f64>,
    pub latency_p99: Option<f64>,
    /// Terminals that generated traffic (see [`SimResult::sources`]).
    pub sources: Option<usize>,
    pub status: PointStatus,
    pub sustained: bool,
    pub drained: bool,
    pub converged: bool,
    /// The error of a failed run (the deadlock's waiting cycle).
    pub error: Option<String>,
    /// Accepted in the load unit `gamma0` (`traffic.load_unit =
    /// "bisection"`), as [`SimResult::accepted_normalised`].
    #[serde(default)]
    pub accepted_normalised: Option<f64>,
    #[serde(default)]
    pub network_latency_mean: Option<f64>,
    /// Switch-to-switch hops per measured packet, mean.
    #[serde(default)]
    pub avg_hops: Option<f64>,
    /// The router's counters over the run.
    #[serde(default)]
    pub counters: BTreeMap<String, u64>,
    /// Warm-up periods run, and whether the drain was skipped
    /// (`run.drain_unconverged = false`, or `drain_unsustained = false`).
    #[serde(default)]
    pub warmup_periods: u32,
    #[serde(default)]
    pub drain_skipped: bool,
    #[serde(default)]
    pub wall_seconds: f64,
    /// Packets delivered and flit-hops over the run, and the in-transit
    /// buffers' use (see [`SimResult::transits`]).
    #[serde(default)]
    pub packets_delivered: Option<u64>,
    #[serde(default)]
    pub flit_hops: Option<u64>,
    #[serde(default)]
    pub transits: Option<u64>,
    #[serde(default)]
    pub transit_peak_bytes: Option<u64>,
    #[serde(default)]
    pub transit_spills: Option<u64>,
}

impl SaturatePoint {
    /// A load not measured (yet): status `failed`, nothing measured.
    fn unmeasured(load: f64, offered_target: f64) -> Self {
        SaturatePoint {
            load,
            offered_target,
            offered: None,
            accepted: None,
            latency_mean: None,
            latency_p99: None,
            sources: None,
            status: PointStatus::Failed,
            sustained: false,
            drained: false,
            converged: false,
            error: None,
            accepted_normalised: None,
            network_latency_mean: None,
            avg_hops: None,
            counters: BTreeMap::new(),
            warmup_periods: 0,
            drain_skipped: false,
            wall_seconds: 0.0,
            packets_delivered: None,
            flit_hops: None,
            transits: None,
            transit_peak_bytes: None,
            transit_spills: None,
        }
    }
}

/// The saturation load, the bracket the search ended with, and the curve
/// measured on the way.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SaturateResult {
    pub load_unit: LoadUnit,
    /// A load the network does not sustain was found (`bracket_high`).
    /// False when the highest load tried, the bound or above, is sustained.
    pub saturated: bool,
    /// The highest load measured sustained below `bracket_high`, in
    /// `load_unit`; `None` when the network is not saturated or no load
    /// tried was sustained.
    pub saturation: Option<f64>,
    /// Offered and accepted throughput measured at `saturation`, flits per
    /// terminal per cycle.
    pub offered: Option<f64>,
    pub accepted: Option<f64>,
    /// The final bracket: the highest load measured sustained (0, which
    /// offers nothing, when none was) and the lowest measured not
    /// sustained (`None` when none was), and its width.
    pub bracket_low: f64,
    pub bracket_high: Option<f64>,
    pub bracket_width: Option<f64>,
    /// The width the search narrowed the bracket to (unless `steps` ran out).
    pub resolution: f64,
    /// The physical bound of the load unit: the load that fills each
    /// terminal's injection channel (1 flit per cycle).
    pub bound: f64,
    /// Points whose run deadlocked.
    pub deadlocks: usize,
    pub terminals: usize,
    /// Virtual channels per link (those the routes need with `router.vcs = 0`).
    pub vcs: u8,
    /// Every point measured, by load.
    pub points: Vec<SaturatePoint>,
    pub wall_seconds: f64,
    /// The experiment's warnings ([`Experiment::warnings`]), once.
    #[serde(default)]
    pub warnings: Vec<String>,
}

fn point(
    exp: &Experiment,
    load: f64,
    run: Result<SimResult, SimError>,
    o: &SaturateOptions,
) -> Result<SaturatePoint, SimError> {
    let mut p = SaturatePoint::unmeasured(load, exp.load_in_flits(load));
    match run {
        Ok(r) if r.stopped_backlog => {
            p.status = PointStatus::Backlog;
            p.warmup_periods = r.warmup_periods;
            p.wall_seconds = r.wall_seconds;
            p.error = Some(format!(
                "stopped after {} warm-up periods: generated and undelivered flits grew by more \
                 than run.stop_backlog of those generated in each of the last two",
                r.warmup_periods
            ));
        }
        Ok(r) => {
            // A drain is skipped after a measurement that did not converge
            // (`run.drain_unconverged = false`) or, converged, fell short
            // of the tolerance (`drain_unsustained = false`).
            let short = r.accepted < (1.0 - o.tolerance) * r.offered;
            let read_as_unconverged = r.drain_skipped && o.require_converged;
            p.status = if r.drain_skipped && short && (r.converged || !o.require_converged) {
                PointStatus::Unsustained
            } else if o.require_drained && !(r.drained || read_as_unconverged) {
                PointStatus::Undrained
            } else if o.require_converged && !r.converged {
                PointStatus::Unconverged
            } else if short {
                PointStatus::Unsustained
            } else {
                PointStatus::Sustained
            };
            p.sustained = p.status.sustained();
            p.offered = Some(r.offered);
            p.accepted = Some(r.accepted);
            p.latency_mean = Some(r.latency_mean);
            p.latency_p99 = Some(r.latency_p99);
            p.sources = Some(r.sources);
            p.drained = r.drained;
            p.converged = r.converged;
            p.accepted_normalised = r.accepted_normalised;
            p.network_latency_mean = Some(r.network_latency_mean);
            p.avg_hops = Some(r.avg_hops);
            p.warmup_periods = r.warmup_periods;
            p.drain_skipped = r.drain_skipped;
            p.wall_seconds = r.wall_seconds;
            p.packets_delivered = Some(r.packets_delivered);
            p.flit_hops = Some(r.flit_hops);
            p.transits = Some(r.transits);
            p.transit_peak_bytes = Some(r.transit_peak_bytes);
            p.transit_spills = Some(r.transit_spills);
            p.counters = r.counters;
        }
        Err(e @ SimError::Deadlock(_)) => {
            p.status = PointStatus::Deadlock;
            p.error = Some(e.to_string());
        }
        Err(e @ SimError::TooManyPackets { .. }) => p.error = Some(e.to_string()),
        Err(e) => return Err(e),
    }
    Ok(p)
}

/// Runs loads above `from` by steps that double from `step`, up to `bound`,
/// until one is not sustained. Returns the index of the last one sustained
/// (if any was) and the load that was not (`None`: the bound was
/// sustained).
fn grow_up(
    points: &mut Vec<SaturatePoint>,
    from: f64,
    mut step: f64,
    bound: f64,
    run: Run<'_>,
) -> Result<(Option<usize>, Option<f64>), SimError> {
    let (mut top, mut lo) = (from, None);
    while top < bound {
        top = (top + step).min(bound);
        let p = run(top)?;
        let ok = p.sustained;
        points.push(p);
        if !ok {
            return Ok((lo, Some(top)));
        }
        lo = Some(points.len() - 1);
        step *= 2.0;
    }
    Ok((lo, None))
}

type Run<'a> = &'a dyn Fn(f64) -> Result<SaturatePoint, SimError>;
type Pair<'a> = &'a dyn Fn(f64, f64) -> Result<(SaturatePoint, SaturatePoint), SimError>;

/// The first bracket from `low` and `high`: each end on the wrong side of
/// the knee moves it by steps that double from `first_width`.
fn first_bracket(
    points: &mut Vec<SaturatePoint>,
    opts: &SaturateOptions,
    high: f64,
    first_width: f64,
    bound: f64,
    run: Run<'_>,
    pair: Pair<'_>,
) -> Result<(Option<usize>, Option<f64>), SimError> {
    let (low_ok, high_ok) = if opts.low > 0.0 {
        let (pl, ph) = pair(opts.low, high)?;
        let ok = (pl.sustained, ph.sustained);
        points.push(pl);
        points.push(ph);
        ok
    } else {
        let ph = run(high)?;
        let ok = ph.sustained;
        points.push(ph);
        (true, ok)
    };
    let last = |points: &[SaturatePoint]| Some(points.len() - 1);
    if high_ok {
        // Above `high`, up to the bound. A `low` not sustained below a
        // sustained `high` is out of order (a run too short to converge,
        // say): the network was measured sustaining `high`, so the knee
        // lies above it.
        let lo = last(points);
        let grown = grow_up(points, high, first_width, bound, run)?;
        Ok((grown.0.or(lo), grown.1))
    } else if !low_ok {
        // Below `low`, down to 0 (sustained: it offers nothing).
        let mut hi = Some(opts.low);
        let (mut bottom, mut step) = (opts.low, first_width);
        while bottom - step > 0.0 {
            bottom -= step;
            let p = run(bottom)?;
            let ok = p.sustained;
            points.push(p);
            if ok {
                return Ok((last(points), hi));
            }
            hi = Some(bottom);
            step *= 2.0;
        }
        Ok((None, hi))
    } else {
        Ok(((opts.low > 0.0).then_some(0), Some(high)))
    }
}

/// The bracket from `opts.scan`: its loads in order until `scan_misses`
/// in a row are not sustained; then the highest sustained and the lowest
/// not sustained above it, grown above the last load by steps that double
/// from `step` if all were.
fn scan(
    points: &mut Vec<SaturatePoint>,
    opts: &SaturateOptions,
    step: f64,
    bound: f64,
    run: Run<'_>,
) -> Result<(Option<usize>, Option<f64>), SimError> {
    let mut misses = 0;
    for &load in &opts.scan {
        let p = run(load)?;
        misses = if p.sustained { 0 } else { misses + 1 };
        points.push(p);
        if misses >= opts.scan_misses {
            break;
        }
    }
    let lo = (0..points.len())
        .filter(|&i| points[i].sustained)
        .max_by(|&a, &b| points[a].load.total_cmp(&points[b].load));
    let floor = lo.map_or(0.0, |i| points[i].load);
    let hi = points
        .iter()
        .filter(|p| !p.sustained && p.load > floor)
        .map(|p| p.load)
        .min_by(f64::total_cmp);
    if hi.is_some() {
        return Ok((lo, hi));
    }
    let grown = grow_up(points, floor, step, bound, run)?;
    Ok((grown.0.or(lo), grown.1))
}

/// Finds the saturation load of `spec`. See the module docs.
pub fn saturate(spec: &Spec, opts: &SaturateOptions) -> Result<SaturateResult, SimError> {
    let exp = Experiment::new(spec)?;
    saturate_experiment(&exp, opts)
}

/// [`saturate`] keeping each load in the journal at `journal` as it is
/// measured, and taking the loads already there instead of running them:
/// a search killed half-way and started again loses nothing it finished.
pub fn saturate_journaled(
    spec: &Spec,
    opts: &SaturateOptions,
    journal: &Path,
) -> Result<SaturateResult, SimError> {
    let exp = Experiment::new(spec)?;
    search(&exp, opts, Some((journal, spec)), false)
}

/// [`saturate_journaled`] that simulates nothing: the answer of a search
/// whose journal holds every load it walks, or [`SimError::Unjournaled`]
/// naming the first load it lacks (the journal keeps what it held).
/// For reading the searches a sweep has finished while others still run.
/// A journal serves searches that narrow by halves and by thirds alike, so
/// one that narrowing by `opts` cannot replay is replayed narrowing the
/// other way (its points show the loads it walked).
pub fn saturate_replayed(
    spec: &Spec,
    opts: &SaturateOptions,
    journal: &Path,
) -> Result<SaturateResult, SimError> {
    let exp = Experiment::new(spec)?;
    let first = search(&exp, opts, Some((journal, spec)), true);
    if !matches!(first, Err(SimError::Unjournaled { .. })) {
        return first;
    }
    let other = SaturateOptions {
        bisect: !opts.bisect,
        ..opts.clone()
    };
    search(&exp, &other, Some((journal, spec)), true).or(first)
}

/// The load, in the spec's unit, that fills each terminal's injection
/// channel (1 flit per cycle).
pub fn injection_bound(exp: &Experiment) -> f64 {
    match exp.spec().traffic.load_unit {
        LoadUnit::Flits => 1.0,
        _ => 1.0 / exp.load_in_flits(1.0),
    }
}

/// [`saturate`] on an experiment already built.
pub fn saturate_experiment(
    exp: &Experiment,
    opts: &SaturateOptions,
) -> Result<SaturateResult, SimError> {
    search(exp, opts, None, false)
}

/// Whether a bracket `width` wide is at most `resolution`, allowing for the
/// rounding of its ends: a search whose steps were 0.16, 0.08, 0.04 and
/// 0.02 ended at 1.2299999999999995 and 1.2499999999999996, a bracket 0.02
/// wide that computes as 0.0200000000000001.
fn narrow_enough(width: f64, resolution: f64) -> bool {
    width <= resolution * (1.0 + 1e-9)
}

/// The search, keeping its loads in the journal at `journal.0` (a search
/// of `journal.1`), opened once the options are known to be valid; with
/// `replay_only`, taking them from there alone.
fn search(
    exp: &Experiment,
    opts: &SaturateOptions,
    journal: Option<(&Path, &Spec)>,
    replay_only: bool,
) -> Result<SaturateResult, SimError> {
    let wall = Instant::now();
    let unit = exp.spec().traffic.load_unit;
    let bound = injection_bound(exp);
    let high = opts.high.unwrap_or(bound);
    let resolution = opts.resolution.unwrap_or(0.01 * bound);
    if !(opts.low >= 0.0 && high > opts.low && high.is_finite() && bound.is_finite()) {
        return Err(ConfigError::invalid(
            "saturate",
            format!("low = {}, high = {high}", opts.low),
            "0 <= low < high",
        )
        .into());
    }
    if !(0.0..1.0).contains(&opts.tolerance) || resolution.is_nan() || resolution <= 0.0 {
        return Err(ConfigError::invalid(
            "saturate",
            format!("tolerance = {}, resolution = {resolution}", opts.tolerance),
            "a tolerance in [0, 1) and a resolution > 0",
        )
        .into());
    }
    let ascending = opts.scan.windows(2).all(|w| w[0] < w[1]);
    let alone = opts.scan.is_empty() || (opts.low == 0.0 && opts.high.is_none());
    if !(ascending
        && alone
        && opts.scan.iter().all(|&l| l > 0.0 && l <= bound)
        && opts.scan_misses >= 1)
    {
        return Err(ConfigError::invalid(
            "saturate.scan",
            format!("{:?} (scan_misses = {})", opts.scan, opts.scan_misses),
            format!(
                "loads in (0, {bound}] in ascending order, scan_misses >= 1, and no low or \
                 high beside them (the scan makes the first bracket)"
            ),
        )
        .into());
    }
    let unjournaled = |load: f64| SimError::Unjournaled {
        path: journal.map_or_else(String::new, |(p, _)| p.display().to_string()),
        load,
    };
    let journal = match journal {
        // Opening would create a missing journal: a replay goes without.
        Some((path, _)) if replay_only && !path.exists() => None,
        Some((path, spec)) => Some(Journal::open(path, spec, opts)?),
        None => None,
    };
    let journal = journal.as_ref();
    // Each load is taken from the journal when it holds it, else run and
    // written there.
    let measure = |load: f64, stoppable: bool, cores: usize| -> Result<SaturatePoint, SimError> {
        if let Some(p) = journal.and_then(|j| j.recall(load, stoppable)) {
            return Ok(p);
        }
        if replay_only {
            return Err(unjournaled(load));
        }
        let shortfall = (!opts.drain_unsustained).then_some(opts.tolerance);
        let r = exp.run_ending(load, exp.early_end(stoppable, shortfall), cores);
        let p = point(exp, load, r, opts)?;
        if let Some(j) = journal {
            j.record(&p)?;
        }
        Ok(p)
    };
    let cores = exp.cores();
    let run = |load: f64| measure(load, true, cores);
    // Two loads side by side on two threads of their own, sharing the cores
    // so that split runs do not spin twice as many threads as there are
    // cores; one after the other on one core. (Not rayon's pool: a search
    // waiting there for its pair runs other searches' loads meanwhile and
    // returns only once those end too.)
    let pair = |a: f64, b: f64| {
        if cores < 2 {
            return Ok::<_, SimError>((run(a)?, run(b)?));
        }
        let (pa, pb) = std::thread::scope(|s| {
            let high = s.spawn(|| measure(b, true, cores / 2));
            let low = measure(a, true, cores.div_ceil(2));
            (
                low,
                high.join().unwrap_or_else(|e| std::panic::resume_unwind(e)),
            )
        });
        Ok((pa?, pb?))
    };
    let mut points: Vec<SaturatePoint> = Vec::new();
    // The bracket: `lo` the highest load measured sustained (an index into
    // `points`; none: 0), `hi` the lowest measured not sustained.
    let load_of = |points: &[SaturatePoint], lo: Option<usize>| lo.map_or(0.0, |i| points[i].load);
    // A first end on the wrong side of the knee moves the bracket by steps
    // that double, starting from the first bracket's width (a scan's last
    // step when every scan load was sustained).
    let first_width = match opts.scan.as_slice() {
        [] => (high - opts.low).max(resolution),
        [only] => *only,
        [.., a, b] => b - a,
    };
    let (mut lo, mut hi) = if opts.scan.is_empty() {
        first_bracket(&mut points, opts, high, first_width, bound, &run, &pair)?
    } else {
        scan(&mut points, opts, first_width, bound, &run)?
    };
    let mut steps = 0;
    loop {
        while let Some(h) = hi {
            let l = load_of(&points, lo);
            if narrow_enough(h - l, resolution) || steps >= opts.steps {
                break;
            }
            steps += 1;
            if opts.bisect {
                let p = run(l + (h - l) / 2.0)?;
                if p.sustained {
                    lo = Some(points.len());
                } else {
                    hi = Some(p.load);
                }
                points.push(p);
                continue;
            }
            let (a, b) = (l + (h - l) / 3.0, l + 2.0 * (h - l) / 3.0);
            let (pa, pb) = pair(a, b)?;
            if pb.sustained {
                lo = Some(points.len() + 1);
            } else if pa.sustained {
                lo = Some(points.len());
                hi = Some(b);
            } else {
                hi = Some(a);
            }
            points.push(pa);
            points.push(pb);
        }
        // The answer never rests on a run stopped for its backlog: such an
        // upper end is run again to its end, and if it is sustained after
        // all the bracket moves above it and the search goes on.
        let Some(h) = hi else { break };
        let Some(i) = points
            .iter()
            .position(|p| p.load == h && p.status == PointStatus::Backlog)
        else {
            break;
        };
        points[i] = measure(h, false, cores)?;
        if !points[i].sustained {
            break;
        }
        lo = Some(i);
        hi = points
            .iter()
            .filter(|p| p.load > h && !p.sustained)
            .map(|p| p.load)
            .min_by(f64::total_cmp);
        if hi.is_none() {
            // It was the highest load run: the bracket grows above it.
            let grown = grow_up(&mut points, h, first_width, bound, &run)?;
            lo = grown.0.or(lo);
            hi = grown.1;
        }
    }
    let best = lo.map(|i| points[i].clone());
    let bracket_low = best.as_ref().map_or(0.0, |p| p.load);
    let saturated = hi.is_some();
    let deadlocks = points
        .iter()
        .filter(|p| p.status == PointStatus::Deadlock)
        .count();
    points.sort_by(|x, y| x.load.total_cmp(&y.load));
    let at_saturation = best.filter(|_| saturated);
    Ok(SaturateResult {
        load_unit: unit,
        saturated,
        saturation: at_saturation.as_ref().map(|p| p.load),
        offered: at_saturation.as_ref().and_then(|p| p.offered),
        accepted: at_saturation.as_ref().and_then(|p| p.accepted),
        bracket_low,
        bracket_high: hi,
        bracket_width: hi.map(|h| h - bracket_low),
        resolution,
        bound,
        deadlocks,
        terminals: exp.network().terminals().len(),
        vcs: exp.vcs(),
        points,
        wall_seconds: wall.elapsed().as_secs_f64(),
        warnings: exp.warnings().to_vec(),
    })
}

#[cfg(test)]
mod tests {
    use super::{first_bracket, narrow_enough, PointStatus, SaturateOptions, SaturatePoint};
    use std::cell::RefCell;

    /// A measured point of `load`, sustained or not, nothing else read.
    fn fake(load: f64, sustained: bool) -> SaturatePoint {
        SaturatePoint {
            status: if sustained {
                PointStatus::Sustained
            } else {
                PointStatus::Unconverged
            },
            sustained,
            ..SaturatePoint::unmeasured(load, load)
        }
    }

    /// The first bracket from `low`..`high` on a network whose verdict at
    /// each load is `verdict`, and the loads it ran in order.
    fn bracket(low: f64, high: f64, verdict: fn(f64) -> bool) -> ((f64, Option<f64>), Vec<f64>) {
        let ran = RefCell::new(Vec::new());
        let run = |x: f64| {
            ran.borrow_mut().push(x);
            Ok(fake(x, verdict(x)))
        };
        let pair = |a: f64, b: f64| Ok((run(a)?, run(b)?));
        let opts = SaturateOptions {
            low,
            high: Some(high),
            ..SaturateOptions::default()
        };
        let mut points = Vec::new();
        let (lo, hi) =
            first_bracket(&mut points, &opts, high, high - low, 1.0, &run, &pair).unwrap();
        ((lo.map_or(0.0, |i| points[i].load), hi), ran.into_inner())
    }

    #[test]
    fn a_low_end_not_sustained_below_a_sustained_high_end_does_not_pull_the_bracket_down() {
        // Out of order: 0.02 too short to converge, 0.07 sustained; the
        // knee lies at 0.15. The bracket grows above 0.07 (by 0.05, then
        // 0.1), never below 0.02.
        let ((lo, hi), ran) = bracket(0.02, 0.07, |x| x > 0.03 && x <= 0.15);
        assert_eq!(ran.len(), 4, "{ran:?}");
        assert!(ran.iter().all(|&x| x >= 0.02), "{ran:?}");
        assert!(
            (lo - 0.12).abs() < 1e-9 && (hi.unwrap() - 0.22).abs() < 1e-9,
            "{lo} {hi:?}"
        );
    }

    #[test]
    fn both_ends_not_sustained_move_the_bracket_below_the_low_end() {
        let ((lo, hi), ran) = bracket(0.5, 0.6, |x| x <= 0.35);
        // 0.5 and 0.6 fail; 0.4 fails; 0.2 holds.
        assert!(
            (lo - 0.2).abs() < 1e-9 && (hi.unwrap() - 0.4).abs() < 1e-9,
            "{ran:?}"
        );
    }

    #[test]
    fn a_sustained_low_end_and_an_unsustained_high_end_are_the_bracket() {
        let ((lo, hi), ran) = bracket(0.5, 0.6, |x| x <= 0.55);
        assert_eq!(ran.len(), 2);
        assert!((lo - 0.5).abs() < 1e-9 && (hi.unwrap() - 0.6).abs() < 1e-9);
    }

    #[test]
    fn a_bracket_as_wide_as_the_resolution_is_narrow_enough_despite_rounding() {
        // The ends of a bisection by 0.16, 0.08, 0.04 and 0.02.
        assert!(narrow_enough(1.2499999999999996 - 1.2299999999999995, 0.02));
        assert!(narrow_enough(0.01, 0.02));
        assert!(!narrow_enough(0.0201, 0.02));
        assert!(!narrow_enough(0.04, 0.02));
    }
}
