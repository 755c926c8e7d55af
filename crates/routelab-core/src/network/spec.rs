//! Topology spec strings: `family:args`, shared by the CLI, the Python API
//! and experiment files.
//!
//! `args` is a comma-separated list of `key=value` items, optionally led by
//! one positional value (`torus:8x8x8,c=2`, `hypercube:6`, `crossbar:32`).
//! Lists use `x` (`m=32x32`). A spec without a family that names a file
//! (`fabric.json`, `fabric.ibnet`) imports that fabric.

use super::{build, io, Network, TopologyError};
use std::path::Path;

/// A generator: reads its arguments and builds the network.
pub type Generator = fn(&mut SpecArgs) -> Result<Network, TopologyError>;

/// One registered family: its name, a usage line, its keys and generator.
pub struct Family {
    pub name: &'static str,
    pub usage: &'static str,
    /// Key names; the positional value, when allowed, is documented in `usage`.
    pub keys: &'static [&'static str],
    pub positional: Option<&'static str>,
    pub generate: Generator,
}

/// Every family a spec can name. One line per generator.
pub const FAMILIES: &[Family] = &[
    build::torus::TORUS,
    build::torus::MESH,
    build::torus::HYPERCUBE,
    build::crossbar::CROSSBAR,
    build::tree::KARY_NTREE,
    build::tree::XGFT,
    build::clos::CLOS,
    build::kautz::KAUTZ,
    build::random::RANDOM,
    build::dragonfly::DRAGONFLY,
    build::megafly::MEGAFLY,
    build::hyperx::HYPERX,
    build::hyperx::FLATFLY,
    build::slimfly::SLIMFLY,
];

fn family_names() -> String {
    FAMILIES
        .iter()
        .map(|f| f.name)
        .collect::<Vec<_>>()
        .join(", ")
}

/// Builds the network a spec names: a generator spec or a fabric file.
pub fn build(spec: &str) -> Result<Network, TopologyError> {
    let spec = spec.trim();
    let (family, args) = match spec.split_once(':') {
        Some((f, a)) if !looks_like_path(spec) => (f.trim(), a),
        _ => {
            if looks_like_path(spec) || Path::new(spec).exists() {
                return io::load(Path::new(spec));
            }
            (spec, "")
        }
    };
    let fam = FAMILIES
        .iter()
        .find(|f| f.name == family)
        .or_else(|| {
            FAMILIES
                .iter()
                .find(|f| f.name.eq_ignore_ascii_case(family))
        })
        .ok_or_else(|| TopologyError::UnknownFamily {
            name: family.to_string(),
            valid: format!("{} (or a .json / .ibnet file)", family_names()),
            hint: crate::suggest::did_you_mean(family, FAMILIES.iter().map(|f| f.name)),
        })?;
    let mut args = SpecArgs::parse(fam, args)?;
    let net = (fam.generate)(&mut args)?;
    Ok(net)
}

fn looks_like_path(spec: &str) -> bool {
    io::Format::of_extension(Path::new(spec)).is_some() || spec.contains('/')
}

/// The usage of every family, one line each (for help texts).
pub fn usage() -> Vec<(&'static str, &'static str)> {
    FAMILIES.iter().map(|f| (f.name, f.usage)).collect()
}

/// Parsed arguments of one spec, checked against the family's keys.
#[derive(Debug)]
pub struct SpecArgs {
    family: &'static str,
    positional: Option<String>,
    pairs: Vec<(String, String)>,
}

impl SpecArgs {
    pub fn parse(fam: &Family, text: &str) -> Result<Self, TopologyError> {
        let mut positional = None;
        let mut pairs: Vec<(String, String)> = Vec::new();
        for (i, item) in text.split(',').map(str::trim).enumerate() {
            if item.is_empty() {
                continue;
            }
            match item.split_once('=') {
                Some((k, v)) => {
                    let k = k.trim().to_string();
                    if !fam.keys.contains(&k.as_str()) {
                        return Err(TopologyError::UnknownKey {
                            family: fam.name.to_string(),
                            hint: crate::suggest::did_you_mean(&k, fam.keys.iter().copied()),
                            key: k,
                            valid: fam.keys.join(", "),
                        });
                    }
                    if pairs.iter().any(|(pk, _)| *pk == k) {
                        return Err(TopologyError::BadValue {
                            family: fam.name.to_string(),
                            key: k,
                            value: v.trim().to_string(),
                            expected: "each key once".into(),
                        });
                    }
                    pairs.push((k, v.trim().to_string()));
                }
                None if i == 0 && fam.positional.is_some() => positional = Some(item.to_string()),
                None => {
                    return Err(TopologyError::BadValue {
                        family: fam.name.to_string(),
                        key: "spec".into(),
                        value: item.to_string(),
                        expected: format!("key=value items; usage: {}", fam.usage),
                    })
                }
            }
        }
        Ok(SpecArgs {
            family: fam.name,
            positional,
            pairs,
        })
    }

    pub fn family(&self) -> &'static str {
        self.family
    }

    fn raw(&self, key: &str) -> Option<&str> {
        self.pairs
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    fn bad(&self, key: &str, value: &str, expected: &str) -> TopologyError {
        TopologyError::BadValue {
            family: self.family.to_string(),
            key: key.to_string(),
            value: value.to_string(),
            expected: expected.to_string(),
        }
    }

    fn missing(&self, key: &str, hint: &str) -> TopologyError {
        TopologyError::MissingKey {
            family: self.family.to_string(),
            key: key.to_string(),
            hint: hint.to_string(),
        }
    }

    /// The positional value, or the value of `key` (either may give it).
    pub fn positional_or(&self, key: &str) -> Option<&str> {
        self.positional.as_deref().or_else(|| self.raw(key))
    }

    /// An integer in `lo..=hi`, or `default` when absent (`None`: required).
    pub fn u32(
        &self,
        key: &str,
        default: Option<u32>,
        lo: u32,
        hi: u32,
    ) -> Result<u32, TopologyError> {
        match self.raw(key) {
            None => default.ok_or_else(|| self.missing(key, &format!("an integer in {lo}..={hi}"))),
            Some(v) => self.parse_u32(key, v, lo, hi),
        }
    }

    pub fn u64(&self, key: &str, default: u64) -> Result<u64, TopologyError> {
        match self.raw(key) {
            None => Ok(default),
            Some(v) => v
                .parse()
                .map_err(|_| self.bad(key, v, "a non-negative integer")),
        }
    }

    /// Optional integer in `lo..=hi`.
    pub fn opt_u32(&self, key: &str, lo: u32, hi: u32) -> Result<Option<u32>, TopologyError> {
        self.raw(key)
            .map(|v| self.parse_u32(key, v, lo, hi))
            .transpose()
    }

    pub fn parse_u32(&self, key: &str, v: &str, lo: u32, hi: u32) -> Result<u32, TopologyError> {
        let n: u32 = v
            .parse()
            .map_err(|_| self.bad(key, v, &format!("an integer in {lo}..={hi}")))?;
        if n < lo || n > hi {
            return Err(self.bad(key, v, &format!("an integer in {lo}..={hi}")));
        }
        Ok(n)
    }

    /// A list like `8x8x4`, each element in `lo..=hi`.
    pub fn parse_list(
        &self,
        key: &str,
        v: &str,
        lo: u32,
        hi: u32,
    ) -> Result<Vec<u32>, TopologyError> {
        let expected = format!("a list like 8x8x8 of integers in {lo}..={hi}");
        let items: Result<Vec<u32>, _> = v
            .split(['x', 'X'])
            .map(|s| s.trim().parse::<u32>())
            .collect();
        let items = items.map_err(|_| self.bad(key, v, &expected))?;
        if items.is_empty() || items.iter().any(|&n| n < lo || n > hi) {
            return Err(self.bad(key, v, &expected));
        }
        Ok(items)
    }

    /// One of `options` given by `key` (the first when absent).
    pub fn choice(
        &self,
        key: &str,
        options: &[&'static str],
    ) -> Result<&'static str, TopologyError> {
        match self.raw(key) {
            None => Ok(options[0]),
            Some(v) => options
                .iter()
                .find(|o| o.eq_ignore_ascii_case(v))
                .copied()
                .ok_or_else(|| self.bad(key, v, &format!("one of {}", options.join(", ")))),
        }
    }

    /// A required list given by `key`.
    pub fn list(&self, key: &str, lo: u32, hi: u32) -> Result<Vec<u32>, TopologyError> {
        let v = self
            .raw(key)
            .ok_or_else(|| self.missing(key, "a list like 4x4"))?;
        self.parse_list(key, v, lo, hi)
    }

    /// A list like [`SpecArgs::list`], or `None` when the key is absent.
    pub fn opt_list(&self, key: &str, lo: u32, hi: u32) -> Result<Option<Vec<u32>>, TopologyError> {
        self.raw(key)
            .map(|v| self.parse_list(key, v, lo, hi))
            .transpose()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_family_lists_valid_ones() {
        let e = build("donut:3").unwrap_err().to_string();
        assert!(e.contains("unknown topology family 'donut'"), "{e}");
        assert!(e.contains("torus") && e.contains("dragonfly"), "{e}");
    }

    #[test]
    fn unknown_key_lists_valid_ones() {
        let e = build("torus:4x4,q=2").unwrap_err().to_string();
        assert!(
            e.contains("unknown key 'q'") && e.contains("valid keys: dims, c"),
            "{e}"
        );
    }

    #[test]
    fn out_of_range_names_range() {
        let e = build("torus:1x4").unwrap_err().to_string();
        assert!(e.contains("2..="), "{e}");
    }
}
