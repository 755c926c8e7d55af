//! Bindings of the simulator: specs in as TOML text, results out as JSON.

use crate::{
    ConfigError, DeadlockError, RoutingError, SimulationError, TopologyError, TrafficError,
};
use pyo3::prelude::*;
use routelab_core::sim::{self, SaturateOptions, SimError, Spec};
use std::collections::BTreeMap;

fn sim_err(e: SimError) -> PyErr {
    let text = e.to_string();
    match e {
        // A router that cannot run with these settings is a bad input.
        SimError::Config(_) | SimError::Router { .. } | SimError::Journal { .. } => {
            ConfigError::new_err(text)
        }
        SimError::Topology(_) => TopologyError::new_err(text),
        SimError::Routing(_) => RoutingError::new_err(text),
        SimError::Traffic(_) => TrafficError::new_err(text),
        SimError::Deadlock(_) => DeadlockError::new_err(text),
        _ => SimulationError::new_err(text),
    }
}

fn parse(text: &str, sets: &[(String, String)]) -> PyResult<Spec> {
    let sets: Vec<(&str, &str)> = sets.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    Spec::from_toml_with(text, &sets).map_err(|e| ConfigError::new_err(e.to_string()))
}

/// Validates a spec (with `--set` style overrides) and returns it normalised as TOML.
#[pyfunction]
#[pyo3(signature = (text, sets = Vec::new()))]
pub(crate) fn sim_spec(text: &str, sets: Vec<(String, String)>) -> PyResult<String> {
    Ok(parse(text, &sets)?.to_toml_string())
}

/// Runs one simulation; returns the result as JSON.
#[pyfunction]
#[pyo3(signature = (text, sets = Vec::new()))]
pub(crate) fn simulate(
    py: Python<'_>,
    text: &str,
    sets: Vec<(String, String)>,
) -> PyResult<String> {
    let spec = parse(text, &sets)?;
    let result = py
        .allow_threads(move || sim::simulate(&spec))
        .map_err(sim_err)?;
    serde_json::to_string(&result).map_err(|e| SimulationError::new_err(e.to_string()))
}

/// The bytes the simulator's state will take for the spec (every
/// thread's copy), known before the run allocates it.
#[pyfunction]
#[pyo3(signature = (text, sets = Vec::new()))]
pub(crate) fn sim_memory(py: Python<'_>, text: &str, sets: Vec<(String, String)>) -> PyResult<u64> {
    let spec = parse(text, &sets)?;
    py.allow_threads(move || sim::Experiment::new(&spec).map(|e| e.memory_bytes()))
        .map_err(sim_err)
}

/// Searches the highest sustained load; returns the result (with every
/// measured point) as JSON. `options`: low, high, tolerance, resolution,
/// steps, bisect, require_converged, require_drained, scan_misses,
/// drain_unsustained; `scan`: loads
/// run first, ascending. `journal`: a file that keeps each load as it is
/// measured, and from which a search started again takes those it finished;
/// `replay_only`: take every load from there and simulate none.
#[pyfunction]
#[pyo3(signature = (text, sets = Vec::new(), options = BTreeMap::new(), journal = None, scan = Vec::new(), replay_only = false))]
pub(crate) fn saturate(
    py: Python<'_>,
    text: &str,
    sets: Vec<(String, String)>,
    options: BTreeMap<String, f64>,
    journal: Option<std::path::PathBuf>,
    scan: Vec<f64>,
    replay_only: bool,
) -> PyResult<String> {
    let spec = parse(text, &sets)?;
    let mut o = SaturateOptions {
        scan,
        ..SaturateOptions::default()
    };
    for (k, v) in options {
        let bad = |range: &str| {
            ConfigError::new_err(format!("saturate option '{k}' = {v}: expected {range}"))
        };
        match k.as_str() {
            "low" if v >= 0.0 => o.low = v,
            "high" if v > 0.0 => o.high = Some(v),
            "tolerance" if (0.0..1.0).contains(&v) => o.tolerance = v,
            "resolution" if v > 0.0 && v.is_finite() => o.resolution = Some(v),
            "steps" if (1.0..=30.0).contains(&v) => o.steps = v as u32,
            "require_converged" if v == 0.0 || v == 1.0 => o.require_converged = v == 1.0,
            "require_drained" if v == 0.0 || v == 1.0 => o.require_drained = v == 1.0,
            "drain_unsustained" if v == 0.0 || v == 1.0 => o.drain_unsustained = v == 1.0,
            "bisect" if v == 0.0 || v == 1.0 => o.bisect = v == 1.0,
            "require_converged" | "require_drained" | "drain_unsustained" | "bisect" => {
                return Err(bad("0 or 1 (false or true)"))
            }
            "scan_misses" if (1.0..=1000.0).contains(&v) && v.fract() == 0.0 => {
                o.scan_misses = v as u32
            }
            "scan_misses" => return Err(bad("an integer in 1..=1000")),
            "low" | "high" | "resolution" => return Err(bad("a positive load")),
            "tolerance" => return Err(bad("a fraction in [0, 1)")),
            "steps" => return Err(bad("an integer in 1..=30")),
            _ => {
                return Err(ConfigError::new_err(format!(
                "unknown saturate option '{k}'; valid: low, high, tolerance, resolution, steps, \
                     bisect, require_converged, require_drained, scan_misses, drain_unsustained"
            )))
            }
        }
    }
    let result = py
        .allow_threads(move || match journal {
            Some(path) if replay_only => sim::saturate_replayed(&spec, &o, &path),
            Some(path) => sim::saturate_journaled(&spec, &o, &path),
            None => sim::saturate(&spec, &o),
        })
        .map_err(sim_err)?;
    serde_json::to_string(&result).map_err(|e| SimulationError::new_err(e.to_string()))
}
