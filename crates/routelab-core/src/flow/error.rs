//! Errors of the flow layer. Each says what is wrong and how to fix it.

use crate::routing::RoutingError;
use crate::traffic::TrafficError;
use thiserror::Error;

#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum FlowError {
    #[error("option '{option}' = '{value}' is not valid: expected {expected}")]
    BadOption {
        option: String,
        value: String,
        expected: String,
    },

    /// A flow names a terminal index the network does not have.
    #[error(
        "flow {index} ({src} -> {dst}) is out of range: terminals are 0..={last}",
        last = terminals.saturating_sub(1)
    )]
    BadFlow {
        index: usize,
        src: usize,
        dst: usize,
        terminals: usize,
    },

    /// The routes give no usable path for a flow.
    #[error("flow {src} -> {dst} cannot be routed: {reason}")]
    Unroutable {
        src: String,
        dst: String,
        #[source]
        reason: Box<RoutingError>,
    },

    /// A pattern whose every terminal is idle on this network.
    #[error("pattern '{pattern}' has no flows on '{network}' (every terminal sends to itself)")]
    NoFlows { pattern: String, network: String },

    /// No path at all joins the two ends of a flow.
    #[error("flow {src} -> {dst} has no path: the network is not connected between them")]
    Disconnected { src: String, dst: String },

    #[error(transparent)]
    Routing(Box<RoutingError>),

    #[error(transparent)]
    Traffic(#[from] TrafficError),
}

impl From<RoutingError> for FlowError {
    fn from(e: RoutingError) -> Self {
        FlowError::Routing(Box::new(e))
    }
}

impl FlowError {
    pub(crate) fn bad_option(
        option: &str,
        value: impl ToString,
        expected: impl Into<String>,
    ) -> Self {
        FlowError::BadOption {
            option: option.to_string(),
            value: value.to_string(),
            expected: expected.into(),
        }
    }
}
