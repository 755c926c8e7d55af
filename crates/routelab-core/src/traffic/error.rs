//! Errors of the traffic layer: bad pattern specs and patterns that do not
//! fit the network they are bound to. Each says what is wrong and how to fix it.

use thiserror::Error;

#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum TrafficError {
    #[error("unknown traffic pattern '{name}'{hint}; valid patterns: {valid}")]
    UnknownPattern {
        name: String,
        valid: String,
        /// ` (did you mean 'x'?)` or empty.
        hint: String,
    },

    #[error("unknown parameter '{key}' for {pattern}{hint}; valid parameters: {valid}")]
    UnknownParam {
        pattern: String,
        key: String,
        valid: String,
        hint: String,
    },

    #[error("{pattern} needs '{key}' ({expected})")]
    MissingParam {
        pattern: String,
        key: String,
        expected: String,
    },

    #[error("{pattern}: '{key}' = '{value}' is not valid: expected {expected}")]
    BadParam {
        pattern: String,
        key: String,
        value: String,
        expected: String,
    },

    #[error("{pattern} does not fit {what}: it needs {needs}")]
    DoesNotFit {
        pattern: String,
        what: String,
        needs: String,
    },

    #[error(
        "{pattern} needs switch coordinates (a torus, mesh, hypercube or HyperX), \
         but '{network}' is {} network",
        crate::network::with_article(.family)
    )]
    NeedsCoordinates {
        pattern: String,
        network: String,
        family: String,
    },
}

impl TrafficError {
    pub(crate) fn does_not_fit(
        pattern: &str,
        what: impl Into<String>,
        needs: impl Into<String>,
    ) -> Self {
        TrafficError::DoesNotFit {
            pattern: pattern.to_string(),
            what: what.into(),
            needs: needs.into(),
        }
    }

    pub(crate) fn bad_param(
        pattern: &str,
        key: &str,
        value: impl ToString,
        expected: impl Into<String>,
    ) -> Self {
        TrafficError::BadParam {
            pattern: pattern.to_string(),
            key: key.to_string(),
            value: value.to_string(),
            expected: expected.into(),
        }
    }
}
