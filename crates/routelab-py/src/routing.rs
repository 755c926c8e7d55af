//! Bindings of the routing and deadlock layers.

use crate::{ConfigError, DeadlockError, PyNetwork, RoutingError, TrafficError};
use pyo3::prelude::*;
use routelab_core::flow::{self, FlowError};
use routelab_core::routing::{
    self, formats, LidRoutes, Routes, RoutingError as CoreRoutingError, RoutingOptions,
};
use routelab_core::Network;
use serde_json::json;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};
use std::time::Instant;

/// Lane limits and deadlock findings raise `DeadlockError`; the rest `RoutingError`.
pub(crate) fn routing_err(e: CoreRoutingError) -> PyErr {
    match e {
        CoreRoutingError::LanesExceeded { .. } | CoreRoutingError::Deadlock(_) => {
            DeadlockError::new_err(e.to_string())
        }
        _ => RoutingError::new_err(e.to_string()),
    }
}

fn flow_err(e: FlowError) -> PyErr {
    match e {
        FlowError::BadOption { .. } => ConfigError::new_err(e.to_string()),
        FlowError::Traffic(_) => TrafficError::new_err(e.to_string()),
        _ => RoutingError::new_err(e.to_string()),
    }
}

/// Routes computed by an engine (or imported) for one network.
#[pyclass(frozen, module = "routelab._core", name = "Routes")]
pub(crate) struct PyRoutes {
    pub(crate) net: Arc<Network>,
    pub(crate) routes: Arc<Routes>,
    pub(crate) seconds: f64,
    /// The routes per LID, built once for the checks and the files.
    pub(crate) lid_view: Arc<OnceLock<Arc<LidRoutes>>>,
}

impl PyRoutes {
    pub(crate) fn new(net: Arc<Network>, routes: Arc<Routes>, seconds: f64) -> Self {
        PyRoutes {
            net,
            routes,
            seconds,
            lid_view: Arc::default(),
        }
    }
}

/// The routes per LID of `routes`, from `cell` or built into it.
fn lid_view(
    cell: &OnceLock<Arc<LidRoutes>>,
    net: &Network,
    routes: &Routes,
) -> Result<Arc<LidRoutes>, CoreRoutingError> {
    if let Some(v) = cell.get() {
        return Ok(Arc::clone(v));
    }
    let v = Arc::new(LidRoutes::of(net, routes)?);
    Ok(Arc::clone(cell.get_or_init(|| v)))
}

#[pymethods]
impl PyRoutes {
    #[getter]
    fn engine(&self) -> String {
        self.routes.engine().to_string()
    }

    /// Lanes used: the highest lane any pair or hop uses, plus one, after
    /// any spreading onto spare lanes (not a requirement: see lanes_needed).
    #[getter]
    fn lanes_used(&self) -> u8 {
        self.routes.lanes()
    }

    /// Lanes the routing needs to be deadlock-free (before balancing).
    #[getter]
    fn lanes_needed(&self) -> u8 {
        self.routes.lanes_needed()
    }

    /// Wall time the engine took, in seconds.
    #[getter]
    fn seconds(&self) -> f64 {
        self.seconds
    }

    /// The nodes a packet from terminal `src` to terminal `dst` visits.
    fn path(&self, py: Python<'_>, src: usize, dst: usize) -> PyResult<Vec<u32>> {
        let (net, routes) = (Arc::clone(&self.net), Arc::clone(&self.routes));
        py.allow_threads(move || {
            let channels = routes.path(&net, src, dst)?;
            let mut nodes = vec![net.terminal(src).0];
            nodes.extend(channels.iter().map(|&c| net.channel(c).dst.0));
            Ok(nodes)
        })
        .map_err(routing_err)
    }

    /// The deadlock report as JSON: deadlock_free, lanes_needed, cycle, ...
    fn deadlock_json(&self, py: Python<'_>) -> PyResult<String> {
        let (net, routes) = (Arc::clone(&self.net), Arc::clone(&self.routes));
        let cell = Arc::clone(&self.lid_view);
        py.allow_threads(move || report_json(&net, &routes, &cell).map(|v| v.to_string()))
            .map_err(routing_err)
    }

    /// Black holes, loops and detours of every route, as JSON.
    fn audit_json(&self, py: Python<'_>, examples: usize) -> PyResult<String> {
        let (net, routes) = (Arc::clone(&self.net), Arc::clone(&self.routes));
        let cell = Arc::clone(&self.lid_view);
        py.allow_threads(move || {
            let a = routelab_core::routing::audit::audit_routes(&net, &routes, examples)?;
            // A network with more ports than one subnet has LIDs has none.
            let lids = match formats::assign_lids(&net) {
                Ok(l) => Some(l),
                Err(e) if routing::is_beyond_lid_space(&e) => None,
                Err(e) => return Err(e),
            };
            let name = |t: usize| net.node(net.terminals()[t]).name.clone();
            // Every LID (switches' and every adapter port's) from every switch.
            let lid_walk = if routes.path_set().is_none() && lids.is_some() {
                Some(lid_view(&cell, &net, &routes)?.audit(&net, examples))
            } else {
                None
            };
            let mut unreachable_lids: Vec<u16> = match &lids {
                Some(lids) => a
                    .unreachable
                    .iter()
                    .map(|&d| lids.lid(net.terminal(d)))
                    .collect(),
                None => Vec::new(),
            };
            if let Some(w) = &lid_walk {
                unreachable_lids.extend(&w.unreachable);
            }
            unreachable_lids.sort_unstable();
            unreachable_lids.dedup();
            let lid_names: Vec<String> = unreachable_lids
                .iter()
                .map(|&l| match lids.as_ref().and_then(|lids| lids.lookup(l)) {
                    Some(e) if net.out_channels(e.node).len() > 1 && net.is_terminal(e.node) => {
                        format!("{} port {}", net.label(e.node), e.port.map_or(0, |p| p.0))
                    }
                    Some(e) => net.label(e.node).into_owned(),
                    None => String::new(),
                })
                .collect();
            Ok::<_, CoreRoutingError>(
                json!({
                    "pairs": a.pairs,
                    "broken_pairs": a.broken,
                    "broken_examples": a.broken_examples.iter()
                        .map(|(s, d, why)| json!([name(*s), name(*d), why])).collect::<Vec<_>>(),
                    "unreachable": a.unreachable.iter().map(|&d| name(d)).collect::<Vec<_>>(),
                    "unreachable_lids": unreachable_lids,
                    "unreachable_names": lid_names,
                    "lid_walk": lid_walk.map(|w| json!({
                        "lids": w.lids,
                        "switches": w.switches,
                        "walks": w.lids * w.switches,
                        "loops": w.loops,
                        "black_holes": w.holes,
                        "wrong_destinations": w.wrong,
                        "unreachable_lids": w.unreachable,
                        "examples": w.examples.iter()
                            .map(|(x, l, why)| json!([x, l, why])).collect::<Vec<_>>(),
                    })),
                    "non_minimal_pairs": a.non_minimal,
                    "non_minimal_examples": a.non_minimal_examples.iter()
                        .map(|&(s, d, h, m)| json!([name(s), name(d), h, m])).collect::<Vec<_>>(),
                    "extra_hops": a.extra_hops,
                })
                .to_string(),
            )
        })
        .map_err(routing_err)
    }

    /// Writes `opensm-lfts.dump`, `lanes.txt`, the SL-to-VL tables and path
    /// records when some SL is not 0, source routes for source routing,
    /// and `paths.jsonl` when `paths`, into `dir`; returns the files.
    #[pyo3(signature = (dir, paths = false, lft_comments = None))]
    fn save(
        &self,
        py: Python<'_>,
        dir: PathBuf,
        paths: bool,
        lft_comments: Option<bool>,
    ) -> PyResult<Vec<String>> {
        let (net, routes) = (Arc::clone(&self.net), Arc::clone(&self.routes));
        let cell = Arc::clone(&self.lid_view);
        py.allow_threads(move || {
            let files = if routes.path_set().is_none() {
                let view = lid_view(&cell, &net, &routes)?;
                formats::save_all_of(&net, &routes, &view, &dir, paths, lft_comments)?
            } else {
                formats::save_all(&net, &routes, &dir, paths)?
            };
            Ok(files.iter().map(|p| p.display().to_string()).collect())
        })
        .map_err(routing_err)
    }

    /// The routes as an OpenSM `opensm-lfts.dump` text.
    fn to_lfts(&self) -> PyResult<String> {
        formats::write_lfts(&self.net, &self.routes).map_err(routing_err)
    }

    /// The routes as Myrinet-style source routes (ports per switch, `|` at
    /// in-transit hosts).
    fn to_source_routes(&self) -> PyResult<String> {
        formats::write_source_routes(&self.net, &self.routes).map_err(routing_err)
    }

    /// The ORCS-style DOT file: the topology with the destinations routed over each edge.
    fn to_orcs_dot(&self) -> PyResult<String> {
        formats::write_orcs_dot(&self.net, &self.routes).map_err(routing_err)
    }

    /// Effective bandwidth (ORCS or max-min) over patterns, as JSON.
    #[pyo3(signature = (options = BTreeMap::new()))]
    fn ebb_json(&self, py: Python<'_>, options: BTreeMap<String, String>) -> PyResult<String> {
        let mut opts = flow::EbbOptions::default();
        for (k, v) in &options {
            opts.set(k, v).map_err(flow_err)?;
        }
        let (net, routes) = (Arc::clone(&self.net), Arc::clone(&self.routes));
        let result = py
            .allow_threads(move || flow::ebb(&net, &routes, &opts))
            .map_err(flow_err)?;
        Ok(serde_json::to_string(&result).unwrap_or_default())
    }

    /// Load on every channel (flows crossing it; split flows count fractionally)
    /// for the given (source, destination) terminal pairs.
    fn channel_loads(&self, py: Python<'_>, flows: Vec<(usize, usize)>) -> PyResult<Vec<f64>> {
        let (net, routes) = (Arc::clone(&self.net), Arc::clone(&self.routes));
        py.allow_threads(move || flow::channel_loads(&net, &routes, &flows).map(|l| l.to_f64()))
            .map_err(flow_err)
    }

    /// Load on every channel when every terminal sends to every other,
    /// without listing the pairs.
    fn all_to_all_loads(&self, py: Python<'_>) -> PyResult<Vec<f64>> {
        let (net, routes) = (Arc::clone(&self.net), Arc::clone(&self.routes));
        py.allow_threads(move || flow::all_to_all_loads(&net, &routes).map(|l| l.to_f64()))
            .map_err(flow_err)
    }

    /// Engine, lanes, deadlock freedom, minimality and hop counts as JSON.
    fn stats_json(&self, py: Python<'_>) -> PyResult<String> {
        let (net, routes, seconds) = (
            Arc::clone(&self.net),
            Arc::clone(&self.routes),
            self.seconds,
        );
        let cell = Arc::clone(&self.lid_view);
        py.allow_threads(move || -> Result<String, CoreRoutingError> {
            let report = report_json(&net, &routes, &cell)?;
            let hops = routes.hop_stats(&net)?;
            let stats = json!({
                "engine": routes.engine(),
                "network": net.name(),
                "lanes_used": routes.lanes(),
                "lanes_needed": routes.lanes_needed(),
                "deadlock_free": report["deadlock_free"],
                "minimal": hops.first_non_minimal.is_none(),
                "max_hops": hops.max_hops,
                "avg_hops": hops.avg_hops,
                "transit_hosts_mean": routes.transit_hosts_mean(&net)?,
                "escape_routed": routes.escape_routed(),
                "seconds": seconds,
                "cycle": report["cycle"],
                "checked": report["checked"],
                "lids_checked": report["lids_checked"],
                "ports_sending": report["ports_sending"],
                "sls_used": report["sls_used"],
            });
            Ok(stats.to_string())
        })
        .map_err(routing_err)
    }
}

fn report_json(
    net: &Network,
    routes: &Routes,
    cell: &OnceLock<Arc<LidRoutes>>,
) -> Result<serde_json::Value, CoreRoutingError> {
    let view = match routes.path_set() {
        Some(_) => None,
        None => match lid_view(cell, net, routes) {
            Ok(v) => Some(v),
            // Too many ports for one subnet: checked per terminal pair.
            Err(e) if routing::is_beyond_lid_space(&e) => None,
            Err(e) => return Err(e),
        },
    };
    let (r, coverage) = if let Some(view) = view {
        let r = view.deadlock_report(net)?;
        let senders = view.senders.len();
        let switches = net.switches().len();
        (
            r,
            Some(json!({
                "lids_checked": view.lid_count(),
                "ports_sending": senders,
                "switches_sending": switches.min(senders),
                "sls_used": view.max_sl() + 1,
                "pairs_moved_lane": view.moved,
            })),
        )
    } else {
        (routes.terminal_deadlock_report(net)?, None)
    };
    let dropped = routes.dropped_pairs(net)?;
    let name = |t: usize| net.node(net.terminals()[t]).name.clone();
    Ok(json!({
        "dropped_pairs": dropped.len(),
        "dropped_example": dropped.first().map(|&(s, d, hop)| format!(
            "{} -> {}: SL {} maps to VL 15 (drop) at hop {hop}",
            name(s), name(d), routes.lane(s, d)
        )),
        "deadlock_free": r.deadlock_free,
        "lanes_used": r.lanes_used,
        "lanes_needed": routes.lanes_needed(),
        "paths": r.paths,
        "dependencies": r.dependencies,
        "cycle": r.cycle.as_ref().map(|c| c.text.clone()),
        "cycle_length": r.cycle.as_ref().map(|c| c.hops.len()),
        "checked": if coverage.is_some() {
            "every LID from every sending port"
        } else if routes.path_set().is_some() {
            "every path of every terminal pair"
        } else {
            "every terminal pair (more ports than the 49,151 LIDs of one subnet)"
        },
        "lids_checked": coverage.as_ref().map(|c| c["lids_checked"].clone()),
        "ports_sending": coverage.as_ref().map(|c| c["ports_sending"].clone()),
        "sls_used": coverage.as_ref().map(|c| c["sls_used"].clone()),
        "pairs_moved_lane": coverage.as_ref().map(|c| c["pairs_moved_lane"].clone()),
    }))
}

/// Computes routes with a named engine; `options` maps option names to values.
#[pyfunction]
#[pyo3(signature = (net, engine, options = BTreeMap::new()))]
pub(crate) fn route(
    py: Python<'_>,
    net: &PyNetwork,
    engine: String,
    options: BTreeMap<String, String>,
) -> PyResult<PyRoutes> {
    let mut opts = RoutingOptions::default();
    for (k, v) in &options {
        opts.set(k, v).map_err(routing_err)?;
    }
    let net = Arc::clone(&net.net);
    let n = Arc::clone(&net);
    let (routes, seconds) = py
        .allow_threads(move || {
            let start = Instant::now();
            routing::route(&n, &engine, &opts).map(|r| (r, start.elapsed().as_secs_f64()))
        })
        .map_err(routing_err)?;
    Ok(PyRoutes::new(net, Arc::new(routes), seconds))
}

/// The bytes an engine's routes of `net` will take, known before routing.
#[pyfunction]
#[pyo3(signature = (net, engine, options = BTreeMap::new()))]
pub(crate) fn route_memory(
    net: &PyNetwork,
    engine: String,
    options: BTreeMap<String, String>,
) -> PyResult<u64> {
    let mut opts = RoutingOptions::default();
    for (k, v) in &options {
        opts.set(k, v).map_err(routing_err)?;
    }
    routing::memory_bytes(&net.net, &engine, &opts).map_err(routing_err)
}

/// The bytes forwarding tables of `net` take (an engine's, or a dump's
/// read in).
#[pyfunction]
pub(crate) fn table_memory(net: &PyNetwork) -> u64 {
    routelab_core::routing::Routes::table_bytes(&net.net)
}

/// The name of every routing engine.
#[pyfunction]
pub(crate) fn engines() -> Vec<&'static str> {
    routing::ENGINES.iter().map(|(name, ..)| *name).collect()
}

/// (name, one line) of every routing engine.
#[pyfunction]
pub(crate) fn engine_about() -> Vec<(&'static str, &'static str)> {
    routing::engine_about()
}

/// (name, one line) of every name a simulation's `routing.algorithm` takes.
#[pyfunction]
pub(crate) fn router_about() -> Vec<(&'static str, String)> {
    routing::adaptive::router_about()
}

/// (alias, engine or router it stands for).
#[pyfunction]
pub(crate) fn routing_aliases() -> Vec<(&'static str, &'static str)> {
    routing::ALIASES.to_vec()
}

/// Load on every channel when each (source, destination) terminal pair is
/// split evenly over all its minimal paths.
#[pyfunction]
pub(crate) fn minimal_split_loads(
    py: Python<'_>,
    net: &PyNetwork,
    flows: Vec<(usize, usize)>,
) -> PyResult<Vec<f64>> {
    let net = Arc::clone(&net.net);
    py.allow_threads(move || flow::minimal_split_loads(&net, &flows))
        .map_err(flow_err)
}

/// The maximum concurrent flow of the (source, destination) terminal pairs
/// over minimal or all paths, as JSON: `upper` (a certified bound) and
/// `lower` (reached by a routing found) in bit/s per flow, `gap`, `phases`,
/// `loads` (flows per channel of that routing), `seconds`.
#[pyfunction]
pub(crate) fn max_concurrent_flow(
    py: Python<'_>,
    net: &PyNetwork,
    flows: Vec<(usize, usize)>,
    paths: &str,
    tolerance: f64,
    max_phases: usize,
    terminal_links: bool,
) -> PyResult<String> {
    let net = Arc::clone(&net.net);
    let opts = flow::BoundOptions {
        paths: flow::PathRule::parse(paths).map_err(flow_err)?,
        tolerance,
        max_phases,
        terminal_links,
        ..flow::BoundOptions::default()
    };
    let result = py
        .allow_threads(move || flow::max_concurrent_flow(&net, &flows, &opts))
        .map_err(flow_err)?;
    serde_json::to_string(&result).map_err(|e| RoutingError::new_err(e.to_string()))
}

fn read_text(path: &Path) -> Result<String, CoreRoutingError> {
    routelab_core::text::read(path).map_err(|reason| CoreRoutingError::Io {
        path: path.display().to_string(),
        reason,
    })
}

/// Imports an OpenSM `opensm-lfts.dump` (and optionally a lane table or
/// OpenSM's path records, and the SL-to-VL tables that map its lanes, as
/// SLs, to VLs) for `net`.
#[pyfunction]
#[pyo3(signature = (net, lfts, lanes = None, sl2vl = None))]
pub(crate) fn read_lfts(
    py: Python<'_>,
    net: &PyNetwork,
    lfts: PathBuf,
    lanes: Option<PathBuf>,
    sl2vl: Option<PathBuf>,
) -> PyResult<PyRoutes> {
    let net = Arc::clone(&net.net);
    let n = Arc::clone(&net);
    let routes = py
        .allow_threads(move || {
            let text = read_text(&lfts)?;
            let mut routes = formats::read_lfts(&n, &text, &lfts.display().to_string())?;
            if let Some(lanes) = lanes {
                let text = read_text(&lanes)?;
                formats::read_pair_lanes(&n, &mut routes, &text, &lanes.display().to_string())?;
            }
            if let Some(sl2vl) = sl2vl {
                let text = read_text(&sl2vl)?;
                let table = formats::read_sl2vl(&n, &text, &sl2vl.display().to_string())?;
                routes.set_lane_rule(routelab_core::routing::LaneRule::SlToVl(table));
            }
            Ok(routes)
        })
        .map_err(routing_err)?;
    Ok(PyRoutes::new(net, Arc::new(routes), 0.0))
}

/// Reads source routes (`source-routes.txt`) for `net`.
#[pyfunction]
pub(crate) fn read_source_routes(
    py: Python<'_>,
    net: &PyNetwork,
    path: PathBuf,
) -> PyResult<PyRoutes> {
    let net = Arc::clone(&net.net);
    let n = Arc::clone(&net);
    let routes = py
        .allow_threads(move || {
            let text = read_text(&path)?;
            formats::read_source_routes(&n, &text, &path.display().to_string())
        })
        .map_err(routing_err)?;
    Ok(PyRoutes::new(net, Arc::new(routes), 0.0))
}
