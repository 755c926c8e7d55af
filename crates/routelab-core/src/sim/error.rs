//! Errors of the simulator: a bad experiment spec, a network, routing or
//! traffic that does not fit, a deadlock caught by the watchdog, or an
//! internal accounting failure.

use crate::network::TopologyError;
use crate::routing::RoutingError;
use crate::traffic::TrafficError;
use serde::{Deserialize, Serialize};
use std::fmt;
use thiserror::Error;

/// An experiment spec that cannot be used. The message names the key.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ConfigError {
    /// The TOML text does not parse or does not have the expected shape
    /// (unknown keys are reported here with the valid ones).
    #[error("experiment spec: {0}")]
    Parse(String),
    /// A key has a value outside what it accepts.
    #[error("experiment spec: {key} = {value}: {expected}")]
    Invalid {
        key: String,
        value: String,
        expected: String,
    },
}

impl ConfigError {
    pub(crate) fn invalid(
        key: &str,
        value: impl fmt::Display,
        expected: impl Into<String>,
    ) -> Self {
        ConfigError::Invalid {
            key: key.to_string(),
            value: value.to_string(),
            expected: expected.into(),
        }
    }
}

/// One input buffer of a waiting cycle: the switch, the input port and
/// the virtual channel.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WaitingBuffer {
    pub node: String,
    pub port: u16,
    pub vc: u8,
    /// Flits held in the buffer.
    pub flits: u32,
}

/// What the watchdog saw when it stopped a run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DeadlockInfo {
    /// Simulated time of detection, in picoseconds.
    pub time_ps: u64,
    /// How long nothing had moved, in picoseconds.
    pub idle_ps: u64,
    /// Packets injected into the network and not yet delivered.
    pub packets_in_network: u64,
    /// A cycle of buffers each waiting for the next (the last waits for
    /// the first); empty if the waits form no cycle (starvation).
    pub cycle: Vec<WaitingBuffer>,
}

impl fmt::Display for DeadlockInfo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "deadlock: nothing moved for {} ns at t = {} ns with {} packets in the network",
            self.idle_ps / 1000,
            self.time_ps / 1000,
            self.packets_in_network
        )?;
        if self.cycle.is_empty() {
            write!(f, "; no cycle of waiting buffers was found (starvation)")
        } else {
            write!(f, "; waiting cycle:")?;
            for b in &self.cycle {
                write!(f, " {} port {} vc {} ->", b.node, b.port, b.vc)?;
            }
            let first = &self.cycle[0];
            write!(f, " {} port {} vc {}", first.node, first.port, first.vc)
        }
    }
}

/// Why a simulation failed.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum SimError {
    #[error(transparent)]
    Config(#[from] ConfigError),
    #[error(transparent)]
    Topology(#[from] TopologyError),
    #[error(transparent)]
    Routing(#[from] RoutingError),
    #[error(transparent)]
    Traffic(#[from] TrafficError),
    /// The router cannot run on this network or with these settings.
    #[error("router {router}: {reason}")]
    Router { router: String, reason: String },
    /// The watchdog saw no movement while packets were in the network.
    #[error("{0}")]
    Deadlock(Box<DeadlockInfo>),
    /// More packets at once than `run.max_packets` allows.
    #[error("{packets} packets (about {mb} MB) wait in source queues and the network at t = {time_ns} ns, the limit of run.max_packets: the offered load is far beyond what the network accepts; lower traffic.load, shorten the run or raise run.max_packets")]
    TooManyPackets { packets: u64, mb: u64, time_ns: u64 },
    /// A closed-loop workload did not finish within `run.max_time`.
    #[error("the workload did not finish within {limit_ps} ps: {done} of {pairs} pairs completed (raise run.max_time)")]
    TimeLimit {
        limit_ps: u64,
        done: usize,
        pairs: usize,
    },
    /// A saturation search's journal could not be read or written, or
    /// belongs to another search.
    #[error("journal {path}{}: {reason}", line.map(|l| format!(", line {l}")).unwrap_or_default())]
    Journal {
        path: String,
        line: Option<usize>,
        reason: String,
    },
    /// A search replayed from its journal alone (`saturate_replayed`)
    /// needs a load the journal does not hold: it is not finished.
    #[error("journal {path} does not hold load {load}: the search has loads left to simulate")]
    Unjournaled { path: String, load: f64 },
    /// Flits were lost or created: an internal error, never expected.
    #[error("conservation violated: {generated} flits generated, {delivered} delivered, {in_flight} found in flight")]
    Conservation {
        generated: u64,
        delivered: u64,
        in_flight: u64,
    },
    /// With the network empty, a sender holds more or fewer credits than
    /// the buffer it feeds has slots: an internal error, never expected.
    #[error("credit conservation violated: with the network empty, the sender into {} port {} vc {} counts {credits} credits for {slots} slots", buffer.node, buffer.port, buffer.vc)]
    Credits {
        buffer: WaitingBuffer,
        credits: u64,
        slots: u32,
    },
}

impl SimError {
    pub(crate) fn router(router: &str, reason: impl Into<String>) -> Self {
        SimError::Router {
            router: router.to_string(),
            reason: reason.into(),
        }
    }
}
