//! routelab-core: the engine of routelab.
//!
//! Layers (each uses only the ones above it):
//! - [`units`]: time, size and bandwidth quantities, parsed in one place.
//! - [`network`]: the topology model, generators, file formats and metrics.
//! - [`traffic`]: communication patterns on terminal indices.
//! - [`routing`]: oblivious engines computing forwarding tables and lanes.
//! - [`deadlock`]: channel dependency graphs, cycles, lane assignment.
//! - [`flow`]: flow-level congestion: channel loads, effective bisection
//!   bandwidth (ORCS), max-min fair rates.
//! - [`sim`]: the packet/flit-level discrete-event simulator.

pub mod deadlock;
pub mod flow;
pub mod network;
pub mod rng;
pub mod routing;
pub mod sim;
pub mod suggest;
pub mod text;
pub mod traffic;
pub mod units;

pub use network::{
    Channel, ChannelClass, ChannelId, ClassId, Network, NetworkBuilder, NodeId, NodeKind, PortId,
    Structure, TopologyError,
};
pub use traffic::{BoundPattern, Pattern, TrafficError};
