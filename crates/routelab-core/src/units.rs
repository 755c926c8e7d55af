//! Quantities and their parsing, in one place.
//!
//! Time is integer picoseconds, sizes are bytes, bandwidth is bits per second.
//! Strings such as `"20Gb/s"`, `"160MB/s"`, `"49.2ns"` and `"8KiB"` are parsed
//! here and nowhere else.

use serde::{Deserialize, Serialize};
use std::fmt;
use thiserror::Error;

/// A quantity string that could not be understood.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("cannot read {what} '{text}': {reason}")]
pub struct UnitError {
    pub what: &'static str,
    pub text: String,
    pub reason: String,
}

/// Link bandwidth in bits per second.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Bandwidth(pub u64);

/// A time span in picoseconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Picos(pub u64);

/// Splits `"20Gb/s"` into `(20.0, "Gb/s")`; the number may have an
/// exponent (`"1.5e3ns"`). `None` when there is no number or it is negative.
fn split_number(text: &str) -> Option<(f64, &str)> {
    let t = text.trim();
    let b = t.as_bytes();
    let digits = |mut i: usize| {
        while i < b.len() && (b[i].is_ascii_digit() || b[i] == b'.') {
            i += 1;
        }
        i
    };
    let mut end = digits(0);
    if end > 0 && end < b.len() && (b[end] == b'e' || b[end] == b'E') {
        let sign = usize::from(matches!(b.get(end + 1), Some(b'+' | b'-')));
        if b.get(end + 1 + sign).is_some_and(u8::is_ascii_digit) {
            end = digits(end + 1 + sign);
        }
    }
    let value: f64 = t[..end].parse().ok()?;
    if value.is_nan() || value < 0.0 {
        return None;
    }
    Some((value, t[end..].trim()))
}

/// `value` (in the base unit, named `unit`) as an integer, or the reason
/// it is out of range, giving the value.
fn checked_u64(value: f64, unit: &str) -> Result<u64, String> {
    let rounded = value.round();
    if (0.0..1.8e19).contains(&rounded) {
        Ok(rounded as u64)
    } else {
        Err(format!(
            "the value {value:e} {unit} is out of range (at most {} {unit})",
            u64::MAX
        ))
    }
}

impl Bandwidth {
    /// Parses `"20Gb/s"`, `"160MB/s"`, `"2GB/s"`, `"100Mbps"`, `"40Gbit/s"`.
    /// Lower-case `b` is bits, upper-case `B` is bytes; prefixes are decimal.
    pub fn parse(text: &str) -> Result<Self, UnitError> {
        let err = |reason: &str| UnitError {
            what: "bandwidth",
            text: text.to_string(),
            reason: reason.to_string(),
        };
        let (value, unit) = split_number(text)
            .ok_or_else(|| err("expected a number and a unit such as 20Gb/s or 160MB/s"))?;
        let unit = unit.trim_end_matches("/s").trim_end_matches("ps");
        let (scale, rest) = match unit.chars().next() {
            Some('K') | Some('k') => (1e3, &unit[1..]),
            Some('M') => (1e6, &unit[1..]),
            Some('G') => (1e9, &unit[1..]),
            Some('T') => (1e12, &unit[1..]),
            _ => (1.0, unit),
        };
        let bits = match rest {
            "b" | "bit" | "bits" => 1.0,
            "B" | "byte" | "bytes" => 8.0,
            _ => {
                return Err(err(
                    "unit must be b/s or B/s with an optional k, M, G or T prefix",
                ))
            }
        };
        let bps = checked_u64(value * scale * bits, "bit/s").map_err(|r| err(&r))?;
        if bps == 0 {
            return Err(err("bandwidth must be positive"));
        }
        Ok(Bandwidth(bps))
    }

    /// Picoseconds to serialise `bytes` at this bandwidth, rounded up.
    pub fn serialization_ps(self, bytes: u64) -> u64 {
        let bits = u128::from(bytes) * 8 * 1_000_000_000_000;
        bits.div_ceil(u128::from(self.0)) as u64
    }

    pub fn gbps(self) -> f64 {
        self.0 as f64 / 1e9
    }
}

impl fmt::Display for Bandwidth {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let b = self.0;
        if b.is_multiple_of(1_000_000_000) {
            write!(f, "{}Gb/s", b / 1_000_000_000)
        } else if b.is_multiple_of(1_000_000) {
            write!(f, "{}Mb/s", b / 1_000_000)
        } else if b.is_multiple_of(1_000) {
            write!(f, "{}kb/s", b / 1_000)
        } else {
            write!(f, "{b}b/s")
        }
    }
}

impl Picos {
    /// Parses `"200ns"`, `"49.2ns"`, `"1us"`, `"5ms"`, `"1s"`, `"80ps"`.
    pub fn parse(text: &str) -> Result<Self, UnitError> {
        let err = |reason: &str| UnitError {
            what: "time",
            text: text.to_string(),
            reason: reason.to_string(),
        };
        let (value, unit) =
            split_number(text).ok_or_else(|| err("expected a number and a unit such as 200ns"))?;
        let scale = match unit {
            "ps" => 1.0,
            "ns" => 1e3,
            "us" | "µs" => 1e6,
            "ms" => 1e9,
            "s" => 1e12,
            _ => return Err(err("unit must be ps, ns, us, ms or s")),
        };
        checked_u64(value * scale, "ps")
            .map(Picos)
            .map_err(|r| err(&r))
    }
}

impl fmt::Display for Picos {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let p = self.0;
        if p == 0 {
            write!(f, "0ns")
        } else if p.is_multiple_of(1_000_000) {
            write!(f, "{}us", p / 1_000_000)
        } else if p.is_multiple_of(1_000) {
            write!(f, "{}ns", p / 1_000)
        } else {
            write!(f, "{p}ps")
        }
    }
}

/// Parses a size: `"512"`, `"512B"`, `"8KB"` (1000), `"8KiB"` (1024), `"2MB"`.
pub fn parse_bytes(text: &str) -> Result<u64, UnitError> {
    let err = |reason: &str| UnitError {
        what: "size",
        text: text.to_string(),
        reason: reason.to_string(),
    };
    let (value, unit) = split_number(text)
        .ok_or_else(|| err("expected a number and a unit such as 512B or 8KB"))?;
    let scale = match unit {
        "" | "B" => 1.0,
        "KB" | "kB" => 1e3,
        "KiB" => 1024.0,
        "MB" => 1e6,
        "MiB" => 1024.0 * 1024.0,
        "GB" => 1e9,
        "GiB" => 1024.0 * 1024.0 * 1024.0,
        _ => return Err(err("unit must be B, KB, KiB, MB, MiB, GB or GiB")),
    };
    checked_u64(value * scale, "bytes").map_err(|r| err(&r))
}

/// Bytes for people: GiB, MiB or KiB with one decimal, or bytes.
pub fn bytes_text(bytes: u64) -> String {
    if bytes >= 1 << 30 {
        format!("{:.1} GiB", bytes as f64 / f64::from(1u32 << 30))
    } else if bytes >= 1 << 20 {
        format!("{:.1} MiB", bytes as f64 / f64::from(1u32 << 20))
    } else if bytes >= 1 << 10 {
        format!("{:.1} KiB", bytes as f64 / f64::from(1u32 << 10))
    } else {
        format!("{bytes} B")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bandwidths() {
        assert_eq!(
            Bandwidth::parse("20Gb/s").unwrap(),
            Bandwidth(20_000_000_000)
        );
        assert_eq!(
            Bandwidth::parse("160MB/s").unwrap(),
            Bandwidth(1_280_000_000)
        );
        assert_eq!(
            Bandwidth::parse("2 GB/s").unwrap(),
            Bandwidth(16_000_000_000)
        );
        assert_eq!(Bandwidth::parse("100Mbps").unwrap(), Bandwidth(100_000_000));
        assert!(Bandwidth::parse("20 furlongs").is_err());
        assert!(Bandwidth::parse("0Gb/s").is_err());
        assert!(Bandwidth::parse("-1Gb/s").is_err());
        assert_eq!(Bandwidth(20_000_000_000).to_string(), "20Gb/s");
    }

    #[test]
    fn times_and_sizes() {
        assert_eq!(Picos::parse("200ns").unwrap(), Picos(200_000));
        assert_eq!(Picos::parse("49.2ns").unwrap(), Picos(49_200));
        assert_eq!(Picos::parse("1us").unwrap(), Picos(1_000_000));
        assert!(Picos::parse("3 fortnights").is_err());
        assert_eq!(parse_bytes("8KB").unwrap(), 8000);
        assert_eq!(parse_bytes("8KiB").unwrap(), 8192);
        assert_eq!(parse_bytes("512").unwrap(), 512);
    }

    #[test]
    fn serialization_time() {
        // 512 bytes at 20 Gb/s is 204.8 ns.
        assert_eq!(Bandwidth(20_000_000_000).serialization_ps(512), 204_800);
    }
}
