//! Python bindings of routelab-core. Thin by design: conversion and error
//! mapping only; every long call releases the GIL.

use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;
use routelab_core::network::{io, metrics, spec};
use routelab_core::{traffic, Network, NodeKind};
use std::path::PathBuf;
use std::sync::Arc;

mod routing;
mod sim;

create_exception!(
    _core,
    RoutelabError,
    PyException,
    "Base class of routelab's errors."
);
create_exception!(
    _core,
    TopologyError,
    RoutelabError,
    "A bad topology spec, fabric file or cabling."
);
create_exception!(
    _core,
    TrafficError,
    RoutelabError,
    "A bad traffic pattern or one that does not fit the network."
);
create_exception!(
    _core,
    ConfigError,
    RoutelabError,
    "A bad option or experiment spec."
);
create_exception!(
    _core,
    RoutingError,
    RoutelabError,
    "A routing engine that cannot serve the network, or bad routes."
);
create_exception!(
    _core,
    DeadlockError,
    RoutelabError,
    "Routes that cannot be made deadlock-free within the lanes allowed."
);
create_exception!(
    _core,
    SimulationError,
    RoutelabError,
    "A simulation that failed, e.g. deadlocked."
);

fn topo_err(e: routelab_core::TopologyError) -> PyErr {
    TopologyError::new_err(e.to_string())
}

fn traffic_err(e: traffic::TrafficError) -> PyErr {
    TrafficError::new_err(e.to_string())
}

/// An immutable network (switches, terminals, cables).
#[pyclass(frozen, module = "routelab._core", name = "Network")]
pub(crate) struct PyNetwork {
    pub(crate) net: Arc<Network>,
}

#[pymethods]
impl PyNetwork {
    #[getter]
    fn name(&self) -> String {
        self.net.name().to_string()
    }

    #[getter]
    fn family(&self) -> &'static str {
        self.net.structure().family()
    }

    /// The structure metadata as JSON.
    fn structure_json(&self) -> String {
        serde_json::to_string(self.net.structure()).unwrap_or_default()
    }

    /// The summary as JSON; `progress`, if given, is called with the name
    /// of each stage as it starts (the GIL is released in between).
    #[pyo3(signature = (progress = None))]
    fn summary_json(&self, py: Python<'_>, progress: Option<PyObject>) -> PyResult<String> {
        let net = Arc::clone(&self.net);
        let mut failed: Option<PyErr> = None;
        let summary = py.allow_threads(|| {
            metrics::summary_with(&net, &mut |stage| {
                if let (Some(cb), None) = (&progress, &failed) {
                    failed = Python::with_gil(|py| cb.call1(py, (stage,)).err());
                }
            })
        });
        match failed {
            Some(e) => Err(e),
            None => Ok(serde_json::to_string(&summary).unwrap_or_default()),
        }
    }

    /// (kind, name, guid, lid, ports) per node, in id order.
    fn nodes(&self) -> Vec<(&'static str, String, u64, u32, u16)> {
        self.net
            .nodes()
            .iter()
            .map(|n| {
                let kind = match n.kind {
                    NodeKind::Switch => "switch",
                    NodeKind::Terminal => "terminal",
                };
                (kind, n.name.clone(), n.guid, n.lid, n.ports)
            })
            .collect()
    }

    /// Per node, the LID routes and audits use for it (the subnet's when
    /// the fabric gives them, else assigned: switches, then adapter ports,
    /// from 1); an adapter's is its first port's. All 0 (no LID) on a
    /// network with more ports than one subnet has LIDs.
    fn lids(&self) -> PyResult<Vec<u16>> {
        let lids = match routelab_core::routing::formats::assign_lids(&self.net) {
            Ok(l) => l,
            Err(e) if routelab_core::routing::is_beyond_lid_space(&e) => {
                return Ok(vec![0; self.net.node_count()]);
            }
            Err(e) => return Err(RoutelabError::new_err(e.to_string())),
        };
        Ok(self.net.node_ids().map(|v| lids.lid(v)).collect())
    }

    /// Per node, its name as messages show it (the GUID beside a shared name).
    fn labels(&self) -> Vec<String> {
        self.net
            .node_ids()
            .map(|v| self.net.label(v).into_owned())
            .collect()
    }

    /// (node a, port a, node b, port b, class name) per cable.
    fn cables(&self) -> Vec<(u32, u16, u32, u16, String)> {
        self.net
            .channels()
            .chunks(2)
            .map(|c| {
                let ch = c[0];
                let class = self.net.class(ch.class).name.clone();
                (ch.src.0, ch.src_port.0, ch.dst.0, ch.dst_port.0, class)
            })
            .collect()
    }

    /// versaci2013's unit of load in bit/s per terminal: the rate at which
    /// uniform traffic saturates the bisection (None for a network without
    /// one).
    fn gamma0_bps(&self, py: Python<'_>) -> Option<f64> {
        let net = Arc::clone(&self.net);
        py.allow_threads(move || routelab_core::sim::load::gamma0_bps(&net).ok())
    }

    /// (name, bandwidth in bit/s, latency in ps) per channel class.
    fn classes(&self) -> Vec<(String, u64, u64)> {
        self.net
            .classes()
            .iter()
            .map(|c| (c.name.clone(), c.bandwidth.0, c.latency.0))
            .collect()
    }

    fn switches(&self) -> Vec<u32> {
        self.net.switches().iter().map(|n| n.0).collect()
    }

    fn terminals(&self) -> Vec<u32> {
        self.net.terminals().iter().map(|n| n.0).collect()
    }

    #[pyo3(signature = (path, format = None))]
    fn save(&self, py: Python<'_>, path: PathBuf, format: Option<String>) -> PyResult<()> {
        let net = Arc::clone(&self.net);
        py.allow_threads(move || io::save_as(&net, &path, format_of(format)?))
            .map_err(topo_err)
    }

    /// The network with the LIDs of an OpenSM `guid2lid` file, and how many
    /// of its lines name GUIDs the network does not have.
    fn with_guid2lid(&self, py: Python<'_>, path: PathBuf) -> PyResult<(PyNetwork, usize)> {
        let net = Arc::clone(&self.net);
        py.allow_threads(move || {
            let text = std::fs::read(&path).map_err(|e| routelab_core::TopologyError::Io {
                path: path.display().to_string(),
                reason: format!("cannot read: {e}"),
            })?;
            io::guid2lid::apply(
                &net,
                &String::from_utf8_lossy(&text),
                &path.display().to_string(),
            )
        })
        .map(|(n, skipped)| (wrap(n), skipped))
        .map_err(topo_err)
    }

    /// The network's LIDs as an OpenSM `guid2lid` file.
    fn to_guid2lid(&self) -> String {
        io::guid2lid::to_string(&self.net)
    }

    /// The text of the network in a named format.
    fn to_format(&self, format: String) -> PyResult<String> {
        let f = io::Format::parse(&format).map_err(topo_err)?;
        Ok(io::to_string(&self.net, f))
    }

    fn to_json(&self) -> String {
        io::json::to_string(&self.net)
    }

    fn to_ibnetdiscover(&self) -> String {
        io::ibnetdiscover::to_string(&self.net)
    }

    fn to_dot(&self) -> String {
        io::dot::to_string(&self.net)
    }

    fn __eq__(&self, other: &PyNetwork) -> bool {
        *self.net == *other.net
    }

    fn __repr__(&self) -> String {
        format!(
            "Network('{}', switches={}, terminals={}, cables={})",
            self.net.name(),
            self.net.switches().len(),
            self.net.terminals().len(),
            self.net.cable_count()
        )
    }
}

fn wrap(net: Network) -> PyNetwork {
    PyNetwork { net: Arc::new(net) }
}

/// Builds the network a spec names (`torus:8x8x8`, `fabric.ibnet`, ...).
#[pyfunction]
fn topology(py: Python<'_>, spec: String) -> PyResult<PyNetwork> {
    py.allow_threads(move || spec::build(&spec))
        .map(wrap)
        .map_err(topo_err)
}

/// A fabric format by name; `None` leaves the choice to the extension or
/// the content.
fn format_of(name: Option<String>) -> Result<Option<io::Format>, routelab_core::TopologyError> {
    name.map(|n| io::Format::parse(&n)).transpose()
}

/// Reads a fabric file (.json, .ibnet, .ports, .lst, or by content), in
/// `format` when named.
#[pyfunction]
#[pyo3(signature = (path, format = None))]
fn load(py: Python<'_>, path: PathBuf, format: Option<String>) -> PyResult<PyNetwork> {
    py.allow_threads(move || io::load_as(&path, format_of(format)?))
        .map(wrap)
        .map_err(topo_err)
}

/// Reads fabric text in `format`, or in the format its content shows.
#[pyfunction]
#[pyo3(signature = (text, format = None, origin = "<text>".to_string()))]
fn parse_fabric(
    py: Python<'_>,
    text: String,
    format: Option<String>,
    origin: String,
) -> PyResult<PyNetwork> {
    py.allow_threads(move || match format_of(format)? {
        Some(f) => io::parse(&text, f, &origin),
        None => io::parse_sniffed(&text, &origin),
    })
    .map(wrap)
    .map_err(topo_err)
}

/// The fabric format names.
#[pyfunction]
fn fabric_formats() -> String {
    io::Format::names()
}

/// Reads a network from routelab's JSON text.
#[pyfunction]
fn from_json(py: Python<'_>, text: String) -> PyResult<PyNetwork> {
    py.allow_threads(move || io::json::from_str(&text, "<json>"))
        .map(wrap)
        .map_err(topo_err)
}

/// Reads a network from ibnetdiscover text.
#[pyfunction]
fn from_ibnetdiscover(py: Python<'_>, text: String) -> PyResult<PyNetwork> {
    py.allow_threads(move || io::ibnetdiscover::from_str(&text, "<ibnetdiscover>"))
        .map(wrap)
        .map_err(topo_err)
}

/// The (source, destination) terminal pairs of a pattern.
#[pyfunction]
#[pyo3(signature = (net, name, seed = 1))]
fn pattern_pairs(
    py: Python<'_>,
    net: &PyNetwork,
    name: String,
    seed: u64,
) -> PyResult<Vec<(usize, usize)>> {
    let net = Arc::clone(&net.net);
    py.allow_threads(move || traffic::pairs(&net, &name, seed))
        .map_err(traffic_err)
}

/// (name, usage) of every topology family.
#[pyfunction]
fn families() -> Vec<(&'static str, &'static str)> {
    spec::usage()
}

/// (name, usage) of every traffic pattern.
#[pyfunction]
fn patterns() -> Vec<(&'static str, &'static str)> {
    traffic::patterns::usage()
}

/// (name, text) rows of a listing.
type Listing = Vec<(&'static str, &'static str)>;

/// The usage of every pattern, and (alias, pattern it stands for).
#[pyfunction]
fn pattern_usage() -> (Listing, Listing) {
    (
        traffic::patterns::usage(),
        traffic::patterns::ALIASES.to_vec(),
    )
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("RoutelabError", py.get_type::<RoutelabError>())?;
    m.add("TopologyError", py.get_type::<TopologyError>())?;
    m.add("TrafficError", py.get_type::<TrafficError>())?;
    m.add("ConfigError", py.get_type::<ConfigError>())?;
    m.add("RoutingError", py.get_type::<RoutingError>())?;
    m.add("DeadlockError", py.get_type::<DeadlockError>())?;
    m.add("SimulationError", py.get_type::<SimulationError>())?;
    m.add_class::<routing::PyRoutes>()?;
    m.add_function(wrap_pyfunction!(routing::route, m)?)?;
    m.add_function(wrap_pyfunction!(routing::route_memory, m)?)?;
    m.add_function(wrap_pyfunction!(routing::table_memory, m)?)?;
    m.add_function(wrap_pyfunction!(routing::engines, m)?)?;
    m.add_function(wrap_pyfunction!(routing::engine_about, m)?)?;
    m.add_function(wrap_pyfunction!(routing::router_about, m)?)?;
    m.add_function(wrap_pyfunction!(routing::routing_aliases, m)?)?;
    m.add_function(wrap_pyfunction!(routing::read_lfts, m)?)?;
    m.add_function(wrap_pyfunction!(routing::read_source_routes, m)?)?;
    m.add_function(wrap_pyfunction!(routing::minimal_split_loads, m)?)?;
    m.add_function(wrap_pyfunction!(routing::max_concurrent_flow, m)?)?;
    m.add_function(wrap_pyfunction!(sim::sim_spec, m)?)?;
    m.add_function(wrap_pyfunction!(sim::simulate, m)?)?;
    m.add_function(wrap_pyfunction!(sim::sim_memory, m)?)?;
    m.add_function(wrap_pyfunction!(sim::saturate, m)?)?;
    m.add_class::<PyNetwork>()?;
    m.add_function(wrap_pyfunction!(topology, m)?)?;
    m.add_function(wrap_pyfunction!(load, m)?)?;
    m.add_function(wrap_pyfunction!(parse_fabric, m)?)?;
    m.add_function(wrap_pyfunction!(fabric_formats, m)?)?;
    m.add_function(wrap_pyfunction!(from_json, m)?)?;
    m.add_function(wrap_pyfunction!(from_ibnetdiscover, m)?)?;
    m.add_function(wrap_pyfunction!(pattern_pairs, m)?)?;
    m.add_function(wrap_pyfunction!(patterns, m)?)?;
    m.add_function(wrap_pyfunction!(pattern_usage, m)?)?;
    m.add_function(wrap_pyfunction!(families, m)?)?;
    Ok(())
}
