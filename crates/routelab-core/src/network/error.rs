//! Errors of the network layer: bad specs, impossible parameters, malformed
//! files and inconsistent cabling. Each says what is wrong and how to fix it.

use thiserror::Error;

#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum TopologyError {
    #[error("unknown topology family '{name}'{hint}; valid families: {valid}")]
    UnknownFamily {
        name: String,
        valid: String,
        /// ` (did you mean 'x'?)` or empty.
        hint: String,
    },

    #[error("unknown key '{key}' for {family}{hint}; valid keys: {valid}")]
    UnknownKey {
        family: String,
        key: String,
        valid: String,
        hint: String,
    },

    #[error("{family} needs '{key}' ({hint})")]
    MissingKey {
        family: String,
        key: String,
        hint: String,
    },

    #[error("{family}: '{key}' = '{value}' is not valid: expected {expected}")]
    BadValue {
        family: String,
        key: String,
        value: String,
        expected: String,
    },

    #[error("{what}")]
    Impossible { what: String },

    #[error("{node} port {port} is cabled twice")]
    PortInUse { node: String, port: u16 },

    #[error("{node} has ports 1..={ports}; port {port} does not exist")]
    PortOutOfRange { node: String, port: u16, ports: u16 },

    #[error("{file}:{line}: {reason}")]
    Parse {
        file: String,
        line: usize,
        reason: String,
    },

    #[error("{path}: {reason}")]
    Io { path: String, reason: String },

    #[error("{what} needs a network with {needs}, but '{network}' has none")]
    MissingStructure {
        what: String,
        needs: String,
        network: String,
    },
}

impl TopologyError {
    pub fn impossible(what: impl Into<String>) -> Self {
        TopologyError::Impossible { what: what.into() }
    }

    pub fn parse(file: &str, line: usize, reason: impl Into<String>) -> Self {
        TopologyError::Parse {
            file: file.to_string(),
            line,
            reason: reason.into(),
        }
    }
}
