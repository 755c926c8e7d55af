//! routelab-core: the engine of routelab.
//!
//! Layers (each uses only the ones above it):
//! - [`units`]: time, size and bandwidth quantities, parsed in one place.
//! - [`network`]: the topology model, generators, file formats and metrics.
//! - [`traffic`]: communication patterns on terminal indices.

pub mod network;
pub mod rng;
pub mod traffic;
pub mod units;

pub use network::{
    Channel, ChannelClass, ChannelId, ClassId, Network, NetworkBuilder, NodeId, NodeKind, PortId,
    Structure, TopologyError,
};
