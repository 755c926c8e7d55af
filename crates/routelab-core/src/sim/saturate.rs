//! Saturation search: the highest offered load the network sustains.
//!
//! A load is sustained when every packet generated during the
//! measurement is delivered within the drain limit, accepted throughput
//! is within `tolerance` of the offered one, and (optionally) latency and
//! throughput converged. The search first tries `high`; if that is not
//! sustained it narrows `[low, high]` by thirds, running the two inner
//! loads of each step in parallel, and reports every point it measured.

use super::config::{LoadUnit, Spec};
use super::error::SimError;
use super::experiment::Experiment;
use super::stats::SimResult;
use serde::{Deserialize, Serialize};
use std::time::Instant;

/// How [`saturate`] searches.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SaturateOptions {
    /// A load known to be sustained (default 0).
    pub low: f64,
    /// The highest load tried, in the spec's unit; default 1.0 flits per
    /// cycle, the injection bandwidth in Gb/s, or 2.0 bisection units.
    pub high: Option<f64>,
    /// Relative shortfall of accepted against offered still sustained.
    pub tolerance: f64,
    /// Narrowing steps (each divides the interval by three).
    pub steps: u32,
    /// Require the convergence test to pass as well.
    pub require_converged: bool,
}

impl Default for SaturateOptions {
    fn default() -> Self {
        SaturateOptions {
            low: 0.0,
            high: None,
            tolerance: 0.05,
            steps: 4,
            require_converged: true,
        }
    }
}

/// One measured load.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SaturatePoint {
    pub load: f64,
    pub offered: f64,
    pub accepted: f64,
    pub latency_mean: f64,
    pub latency_p99: f64,
    pub sustained: bool,
    pub drained: bool,
    pub converged: bool,
}

/// The saturation load and the curve measured on the way.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SaturateResult {
    pub load_unit: LoadUnit,
    /// The highest sustained load found, in `load_unit`.
    pub saturation: f64,
    /// Accepted throughput at that load, flits per terminal per cycle.
    pub accepted: f64,
    /// Every point measured, by load.
    pub points: Vec<SaturatePoint>,
    pub wall_seconds: f64,
    /// The experiment's warnings ([`Experiment::warnings`]), once.
    #[serde(default)]
    pub warnings: Vec<String>,
}

fn point(load: f64, r: &SimResult, o: &SaturateOptions) -> SaturatePoint {
    let sustained = r.drained
        && (!o.require_converged || r.converged)
        && r.accepted >= (1.0 - o.tolerance) * r.offered;
    SaturatePoint {
        load,
        offered: r.offered,
        accepted: r.accepted,
        latency_mean: r.latency_mean,
        latency_p99: r.latency_p99,
        sustained,
        drained: r.drained,
        converged: r.converged,
    }
}

/// Finds the saturation load of `spec`. See the module docs.
pub fn saturate(spec: &Spec, opts: &SaturateOptions) -> Result<SaturateResult, SimError> {
    let exp = Experiment::new(spec)?;
    saturate_experiment(&exp, opts)
}

/// [`saturate`] on an experiment already built.
pub fn saturate_experiment(
    exp: &Experiment,
    opts: &SaturateOptions,
) -> Result<SaturateResult, SimError> {
    let wall = Instant::now();
    let unit = exp.spec().traffic.load_unit;
    let high = opts.high.unwrap_or(match unit {
        LoadUnit::Flits => 1.0,
        LoadUnit::Gbps => {
            let cyc = exp.cycle_ps();
            super::load::flits_to_gbps(1.0, exp.spec().router.flit_bytes, cyc)
        }
        LoadUnit::Bisection => 2.0,
    });
    if !(opts.low >= 0.0 && high > opts.low && opts.tolerance >= 0.0) {
        return Err(super::error::ConfigError::invalid(
            "saturate",
            format!("low = {}, high = {high}", opts.low),
            "0 <= low < high and tolerance >= 0",
        )
        .into());
    }
    let mut points = Vec::new();
    let top = exp.run_at(high)?;
    let p = point(high, &top, opts);
    let mut best = (opts.low, 0.0);
    points.push(p.clone());
    if p.sustained {
        best = (high, p.accepted);
    } else {
        let (mut lo, mut hi) = (opts.low, high);
        for _ in 0..opts.steps {
            let a = lo + (hi - lo) / 3.0;
            let b = lo + 2.0 * (hi - lo) / 3.0;
            let (ra, rb) = rayon::join(|| exp.run_at(a), || exp.run_at(b));
            let (pa, pb) = (point(a, &ra?, opts), point(b, &rb?, opts));
            if pb.sustained {
                lo = b;
                best = (b, pb.accepted);
            } else if pa.sustained {
                lo = a;
                hi = b;
                best = (a, pa.accepted);
            } else {
                hi = a;
            }
            points.push(pa);
            points.push(pb);
        }
    }
    points.sort_by(|x, y| x.load.total_cmp(&y.load));
    Ok(SaturateResult {
        load_unit: unit,
        saturation: best.0,
        accepted: best.1,
        points,
        wall_seconds: wall.elapsed().as_secs_f64(),
        warnings: exp.warnings().to_vec(),
    })
}
