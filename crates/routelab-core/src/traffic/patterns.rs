//! Traffic patterns by name: the spec strings the CLI takes (`bit-reverse`,
//! `local:l=2`, `hotspot:f=0.1,host=3`) and the tagged form experiment files
//! carry (`{ pattern = "hotspot", f = 0.1 }`).
//!
//! A spec is `name[:args]`; `args` are comma-separated `key=value` items,
//! optionally led by one positional value (`local:2`, `hotspot:0.1`), the
//! same grammar as topology specs. The exact definition of each pattern is on
//! its variant; [`Pattern::bind`] turns one into a [`super::BoundPattern`].

use super::TrafficError;
use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// A destination pattern on terminal indices `0..T` (`T` = the number of
/// terminals, numbered as in [`crate::Network::terminals`]).
///
/// Index patterns act on the bits of the terminal index. Coordinate patterns
/// act on the switch coordinates of a torus, mesh, hypercube or HyperX (a hypercube
/// is an n-dimensional grid of side 2) and keep the terminal's slot on its
/// switch: with `c` terminals per switch, terminal `s * c + j` maps to
/// `s' * c + j`, so each switch's terminals follow it together.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "pattern", rename_all = "kebab-case", deny_unknown_fields)]
pub enum Pattern {
    /// Every message to a terminal drawn uniformly among the `T - 1` others.
    Uniform,
    /// A uniformly random derangement drawn from the bound seed: a fixed
    /// permutation in which no terminal sends to itself.
    #[serde(alias = "randperm")]
    Permutation,
    /// Index pattern, `T = 2^n`: the destination's `n` bits are the source's
    /// in reverse order (`0100 -> 0010`).
    #[serde(alias = "bitrev")]
    BitReverse,
    /// Index pattern, `T = 2^n`: every bit flipped (`s -> T - 1 - s`).
    #[serde(alias = "bitcomp")]
    BitComplement,
    /// Index pattern, `T = 2^n`: the perfect shuffle, the `n` bits rotated
    /// left by one (`s -> 2s mod T`, plus one if the top bit was set).
    Shuffle,
    /// Matrix transposition `(i, j) -> (j, i)`. On a 2D torus or mesh
    /// (`k x k`) the switch coordinates `(x, y) -> (y, x)`. On another torus,
    /// mesh or hypercube the switch index read as a square matrix of side
    /// `sqrt(S)` (row-major), for a hypercube swapping the two halves of its
    /// bits. Elsewhere the terminal index as a square matrix of side
    /// `sqrt(T)`. With one terminal per switch the last two coincide with
    /// the terminal-index form, as in versaci2013's 16x8x8 runs.
    Transpose,
    /// Coordinate pattern on a `k x k x k` grid, versaci2013's "3D
    /// transposition": `(x, y, z) -> (y, z, x)`, i.e. the destination's
    /// coordinate along dimension 0 is the source's along dimension 1, and so on.
    #[serde(alias = "transpose3d")]
    Rotate3d,
    /// Index pattern, `T = 2^n`: message number `seq` of a source flips bit
    /// `seq mod n` of its index (Hamming distance one, the flipped bit
    /// advancing with each message; versaci2013's Butterfly/FFT).
    Butterfly,
    /// Coordinate pattern: every coordinate `x -> (x + ceil(k/2) - 1) mod k`
    /// (BookSim's tornado; the offset is 0 along dimensions with `k = 2`).
    Tornado,
    /// Coordinate pattern: every coordinate `x -> (x + 1) mod k` (BookSim's
    /// neighbor: the diagonal neighbour, `+1` in all dimensions at once,
    /// wrapping also on a mesh).
    Neighbor,
    /// Every message to a terminal drawn uniformly among those whose switch
    /// is at most `l` switch-to-switch hops from the source's switch (hop
    /// distance at most `l + 2` between the terminals), excluding the source
    /// (flich2000's local distribution). `along` says how hops are counted:
    /// on a shortest path, or on the shortest legal up*/down* route (a
    /// Myrinet route's length, from the most central switch's BFS tree).
    Local {
        l: u32,
        #[serde(default, skip_serializing_if = "LocalAlong::is_shortest")]
        along: LocalAlong,
    },
    /// With probability `f` a message goes to terminal `host`; otherwise to a
    /// terminal drawn uniformly among the `T - 1` others (the host included).
    /// The host itself sends uniformly. So a source other than the host sends
    /// a share `f + (1 - f) / (T - 1)` of its messages to the host.
    Hotspot {
        f: f64,
        #[serde(default)]
        host: usize,
    },
    /// Random bisection (geoffray2008 §5.2, ORCS): the terminals are split at
    /// random into two halves and a random perfect matching pairs each node
    /// of one half with one of the other. With `dir = both` (the default,
    /// geoffray2008's exchange) both partners send to each other; with
    /// `dir = one` (ORCS's `bisect`, as domke2011 used it) only the first
    /// half sends and the second is idle, so half as many flows share the
    /// links. The same seed draws the same pairs either way. With an odd `T`
    /// one random terminal is left idle. With `active = n` only `n`
    /// terminals drawn at random take part (the others idle), paired the same
    /// way: parker's senders and receivers among the active nodes.
    Bisect {
        #[serde(default)]
        dir: BisectDir,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        active: Option<u32>,
    },
    /// Bridge (geoffray2008 §5.4): terminals grouped by the switch they hang
    /// off (a Clos leaf, a line card), groups ordered by their lowest terminal
    /// index; group `2i` is paired with group `2i + 1`, the `j`-th terminal of
    /// one with the `j`-th of the other, both directions, so all contenders
    /// for routes between two leaves belong to the same two leaves. Terminals
    /// beyond the smaller group's size and an odd last group stay idle.
    Bridge,
    /// Every terminal sends to the group `by` further, modulo the number
    /// of groups: a dragonfly's groups, in the generator's order. With
    /// `by = 1` every group loads the one global link to the next: the
    /// worst case for minimal routing. The destination is the source's
    /// slot (same index within the group), or with `any` a terminal of
    /// that group drawn per message (BookSim2's `bad_dragon`).
    GroupShift {
        #[serde(default = "one")]
        by: u32,
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        any: bool,
    },
    /// A random derangement of the groups drawn from the bound seed, every
    /// terminal to its slot in its group's image (a dragonfly's "random
    /// group permutation").
    GroupPermutation,
}

fn one() -> u32 {
    1
}

/// How the local pattern counts switch hops.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum LocalAlong {
    /// Along a shortest path.
    #[default]
    Shortest,
    /// Along the shortest legal up*/down* route.
    Updown,
}

impl LocalAlong {
    fn is_shortest(&self) -> bool {
        *self == LocalAlong::Shortest
    }
}

/// Which way the pairs of a random bisection send.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum BisectDir {
    /// Both partners send to each other (an exchange).
    #[default]
    Both,
    /// Only the partner in the first half sends (ORCS).
    One,
}

/// One registered pattern: its name, usage line and parameters.
pub struct PatternInfo {
    pub name: &'static str,
    pub usage: &'static str,
    pub keys: &'static [&'static str],
    /// The key a leading positional value gives, if any.
    pub positional: Option<&'static str>,
}

const fn info(name: &'static str, usage: &'static str) -> PatternInfo {
    PatternInfo {
        name,
        usage,
        keys: &[],
        positional: None,
    }
}

/// Every pattern a spec can name, in the order help texts list them.
pub const PATTERNS: &[PatternInfo] = &[
    info("uniform", "uniform  (uniformly random destinations)"),
    info("permutation", "permutation  (a random derangement)"),
    info("bit-reverse", "bit-reverse  (index bits reversed; T = 2^n)"),
    info(
        "bit-complement",
        "bit-complement  (index bits flipped; T = 2^n)",
    ),
    info("shuffle", "shuffle  (index bits rotated left; T = 2^n)"),
    info("transpose", "transpose  ((i,j) -> (j,i); square)"),
    info(
        "rotate3d",
        "rotate3d  ((x,y,z) -> (y,z,x) on a k x k x k grid; alias transpose3d)",
    ),
    info(
        "butterfly",
        "butterfly  (flip bit seq mod n of the index; T = 2^n)",
    ),
    info(
        "tornado",
        "tornado  (x -> x + ceil(k/2) - 1 mod k in every dimension)",
    ),
    info(
        "neighbor",
        "neighbor  (x -> x + 1 mod k in every dimension)",
    ),
    PatternInfo {
        name: "local",
        usage: "local:l=2[,along=shortest|updown]  (uniform within l switch hops of a shortest path or of an up*/down* route)",
        keys: &["l", "along"],
        positional: Some("l"),
    },
    PatternInfo {
        name: "hotspot",
        usage: "hotspot:f=0.1[,host=0]  (fraction f to one host, the rest uniform)",
        keys: &["f", "host"],
        positional: Some("f"),
    },
    PatternInfo {
        name: "bisect",
        usage: "bisect[:dir=both|one,active=N]  (random bisection, of N random terminals if given; pairs exchange, or one way as ORCS)",
        keys: &["dir", "active"],
        positional: Some("dir"),
    },
    info(
        "bridge",
        "bridge  (pairs of switches exchange; geoffray2008 5.4)",
    ),
    PatternInfo {
        name: "group-shift",
        usage: "group-shift[:by=1,to=slot|any]  (every terminal to the group `by` further: its slot there, or any terminal of it drawn per message; a dragonfly's worst case)",
        keys: &["by", "to"],
        positional: Some("by"),
    },
    info(
        "group-permutation",
        "group-permutation  (a random derangement of a dragonfly's groups)",
    ),
];

/// Accepted alternative names: BookSim's names for the same patterns
/// (its `randperm` may fix points; routelab's `permutation` never does).
pub const ALIASES: &[(&str, &str)] = &[
    ("transpose3d", "rotate3d"),
    ("bitrev", "bit-reverse"),
    ("bitcomp", "bit-complement"),
    ("randperm", "permutation"),
];

/// The largest `l` a local pattern takes.
const MAX_L: u32 = u16::MAX as u32;

/// The usage of every pattern, one line each (for help texts).
pub fn usage() -> Vec<(&'static str, &'static str)> {
    PATTERNS.iter().map(|p| (p.name, p.usage)).collect()
}

fn pattern_names() -> String {
    let mut names: Vec<&str> = PATTERNS.iter().map(|p| p.name).collect();
    names.extend(ALIASES.iter().map(|(a, _)| *a));
    names.join(", ")
}

impl Pattern {
    /// Parses a spec such as `tornado`, `local:l=3` or `hotspot:f=0.2,host=5`.
    pub fn parse(spec: &str) -> Result<Pattern, TrafficError> {
        let spec = spec.trim();
        let (name, args) = spec.split_once(':').unwrap_or((spec, ""));
        let name = name.trim().to_ascii_lowercase();
        let canonical = ALIASES
            .iter()
            .find(|(a, _)| *a == name)
            .map_or(name.as_str(), |(_, c)| c);
        let info = PATTERNS
            .iter()
            .find(|p| p.name == canonical)
            .ok_or_else(|| TrafficError::UnknownPattern {
                name: name.clone(),
                valid: pattern_names(),
                hint: crate::suggest::did_you_mean(
                    &name,
                    PATTERNS
                        .iter()
                        .map(|p| p.name)
                        .chain(ALIASES.iter().map(|(a, _)| *a)),
                ),
            })?;
        let args = Args::parse(info, args)?;
        let pattern = match info.name {
            "uniform" => Pattern::Uniform,
            "permutation" => Pattern::Permutation,
            "bit-reverse" => Pattern::BitReverse,
            "bit-complement" => Pattern::BitComplement,
            "shuffle" => Pattern::Shuffle,
            "transpose" => Pattern::Transpose,
            "rotate3d" => Pattern::Rotate3d,
            "butterfly" => Pattern::Butterfly,
            "tornado" => Pattern::Tornado,
            "neighbor" => Pattern::Neighbor,
            "local" => Pattern::Local {
                l: args.u32("l", 0, MAX_L, "the largest number of switch hops")?,
                along: match args.raw("along").unwrap_or("shortest") {
                    "shortest" => LocalAlong::Shortest,
                    "updown" => LocalAlong::Updown,
                    other => {
                        return Err(TrafficError::bad_param(
                            "local",
                            "along",
                            other,
                            "shortest or updown",
                        ))
                    }
                },
            },
            "hotspot" => Pattern::Hotspot {
                f: args.fraction("f")?,
                host: args.index("host")?.unwrap_or(0),
            },
            "bisect" => Pattern::Bisect {
                dir: match args.raw("dir").unwrap_or("both") {
                    "both" => BisectDir::Both,
                    "one" => BisectDir::One,
                    other => {
                        return Err(TrafficError::bad_param(
                            "bisect",
                            "dir",
                            other,
                            "both (pairs exchange) or one (first half sends, as ORCS)",
                        ))
                    }
                },
                active: match args.raw("active") {
                    None => None,
                    Some(_) => Some(args.u32("active", 2, u32::MAX, "terminals taking part")?),
                },
            },
            "bridge" => Pattern::Bridge,
            "group-shift" => {
                Pattern::GroupShift {
                    by: match args.raw("by") {
                        None => 1,
                        Some(_) => args.u32("by", 1, u32::MAX, "groups further")?,
                    },
                    any: match args.raw("to").unwrap_or("slot") {
                        "slot" => false,
                        "any" => true,
                        other => return Err(TrafficError::bad_param(
                            "group-shift",
                            "to",
                            other,
                            "slot (the same slot in the group) or any (a random terminal of it)",
                        )),
                    },
                }
            }
            "group-permutation" => Pattern::GroupPermutation,
            other => unreachable!("pattern '{other}' is registered but not parsed"),
        };
        Ok(pattern)
    }

    /// The pattern's name, as in specs.
    pub fn name(&self) -> &'static str {
        match self {
            Pattern::Uniform => "uniform",
            Pattern::Permutation => "permutation",
            Pattern::BitReverse => "bit-reverse",
            Pattern::BitComplement => "bit-complement",
            Pattern::Shuffle => "shuffle",
            Pattern::Transpose => "transpose",
            Pattern::Rotate3d => "rotate3d",
            Pattern::Butterfly => "butterfly",
            Pattern::Tornado => "tornado",
            Pattern::Neighbor => "neighbor",
            Pattern::Local { .. } => "local",
            Pattern::Hotspot { .. } => "hotspot",
            Pattern::Bisect { .. } => "bisect",
            Pattern::Bridge => "bridge",
            Pattern::GroupShift { .. } => "group-shift",
            Pattern::GroupPermutation => "group-permutation",
        }
    }

    /// Checks the parameters (a deserialized pattern skips [`Pattern::parse`]).
    pub fn validate(&self) -> Result<(), TrafficError> {
        match *self {
            Pattern::Local { l, .. } if l > MAX_L => Err(TrafficError::bad_param(
                "local",
                "l",
                l,
                format!("an integer in 0..={MAX_L}"),
            )),
            Pattern::Hotspot { f, .. } if !(0.0..=1.0).contains(&f) => Err(
                TrafficError::bad_param("hotspot", "f", f, "a fraction in 0..=1"),
            ),
            _ => Ok(()),
        }
    }
}

impl fmt::Display for Pattern {
    /// The spec string, which [`Pattern::parse`] reads back.
    fn fmt(&self, out: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Pattern::Local {
                l,
                along: LocalAlong::Shortest,
            } => write!(out, "local:l={l}"),
            Pattern::Local {
                l,
                along: LocalAlong::Updown,
            } => write!(out, "local:l={l},along=updown"),
            Pattern::Hotspot { f, host: 0 } => write!(out, "hotspot:f={f}"),
            Pattern::Hotspot { f, host } => write!(out, "hotspot:f={f},host={host}"),
            Pattern::Bisect { dir, active } if *dir == BisectDir::One || active.is_some() => {
                out.write_str("bisect:")?;
                match (*dir == BisectDir::One, active) {
                    (true, Some(n)) => write!(out, "dir=one,active={n}"),
                    (false, Some(n)) => write!(out, "active={n}"),
                    _ => out.write_str("dir=one"),
                }
            }
            Pattern::GroupShift { by, any } if *by != 1 || *any => {
                out.write_str("group-shift:")?;
                match (*by != 1, *any) {
                    (true, true) => write!(out, "by={by},to=any"),
                    (true, false) => write!(out, "by={by}"),
                    _ => out.write_str("to=any"),
                }
            }
            other => out.write_str(other.name()),
        }
    }
}

impl FromStr for Pattern {
    type Err = TrafficError;

    fn from_str(spec: &str) -> Result<Self, Self::Err> {
        Pattern::parse(spec)
    }
}

/// The `key=value` items of one spec, checked against the pattern's keys.
struct Args {
    pattern: &'static str,
    pairs: Vec<(String, String)>,
}

impl Args {
    fn parse(info: &PatternInfo, text: &str) -> Result<Args, TrafficError> {
        let mut pairs: Vec<(String, String)> = Vec::new();
        for (i, item) in text.split(',').map(str::trim).enumerate() {
            if item.is_empty() {
                continue;
            }
            let (key, value) = match (item.split_once('='), info.positional) {
                (Some((k, v)), _) => (k.trim().to_string(), v.trim().to_string()),
                (None, Some(key)) if i == 0 => (key.to_string(), item.to_string()),
                (None, _) => {
                    return Err(TrafficError::bad_param(
                        info.name,
                        "spec",
                        item,
                        format!("key=value items; usage: {}", info.usage),
                    ))
                }
            };
            if !info.keys.contains(&key.as_str()) {
                return Err(TrafficError::UnknownParam {
                    pattern: info.name.to_string(),
                    valid: if info.keys.is_empty() {
                        format!("none ({} takes no parameters)", info.name)
                    } else {
                        info.keys.join(", ")
                    },
                    hint: crate::suggest::did_you_mean(&key, info.keys.iter().copied()),
                    key,
                });
            }
            if pairs.iter().any(|(k, _)| *k == key) {
                return Err(TrafficError::bad_param(
                    info.name,
                    &key,
                    value,
                    "each key once",
                ));
            }
            pairs.push((key, value));
        }
        Ok(Args {
            pattern: info.name,
            pairs,
        })
    }

    fn raw(&self, key: &str) -> Option<&str> {
        self.pairs
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    fn u32(&self, key: &str, lo: u32, hi: u32, what: &str) -> Result<u32, TrafficError> {
        let expected = format!("an integer in {lo}..={hi}");
        let v = self.raw(key).ok_or_else(|| TrafficError::MissingParam {
            pattern: self.pattern.to_string(),
            key: key.to_string(),
            expected: format!("{what}, {expected}"),
        })?;
        match v.parse::<u32>() {
            Ok(n) if (lo..=hi).contains(&n) => Ok(n),
            _ => Err(TrafficError::bad_param(self.pattern, key, v, expected)),
        }
    }

    fn fraction(&self, key: &str) -> Result<f64, TrafficError> {
        let expected = "a fraction in 0..=1, e.g. 0.1";
        let v = self.raw(key).ok_or_else(|| TrafficError::MissingParam {
            pattern: self.pattern.to_string(),
            key: key.to_string(),
            expected: expected.to_string(),
        })?;
        match v.parse::<f64>() {
            Ok(f) if (0.0..=1.0).contains(&f) => Ok(f),
            _ => Err(TrafficError::bad_param(self.pattern, key, v, expected)),
        }
    }

    /// An optional terminal index (its upper bound is checked when bound).
    fn index(&self, key: &str) -> Result<Option<usize>, TrafficError> {
        self.raw(key)
            .map(|v| {
                v.parse::<usize>().map_err(|_| {
                    TrafficError::bad_param(self.pattern, key, v, "a terminal index 0..T-1")
                })
            })
            .transpose()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_round_trip() {
        for spec in [
            "uniform",
            "bit-reverse",
            "rotate3d",
            "local:l=3",
            "hotspot:f=0.25",
            "hotspot:f=0.1,host=7",
            "bridge",
            "group-shift",
            "group-shift:by=2",
            "group-shift:to=any",
            "group-shift:by=3,to=any",
            "bisect",
            "bisect:dir=one",
            "bisect:active=100",
            "bisect:dir=one,active=100",
        ] {
            let p = Pattern::parse(spec).unwrap();
            assert_eq!(p.to_string(), spec);
            assert_eq!(Pattern::parse(&p.to_string()).unwrap(), p);
        }
        let e = Pattern::parse("bisect:active=1").unwrap_err().to_string();
        assert!(e.contains("active") && e.contains("2.."), "{e}");
        let net = crate::network::spec::build("torus:4x4").unwrap();
        let e = Pattern::parse("bisect:active=17")
            .unwrap()
            .bind(&net, 1)
            .unwrap_err()
            .to_string();
        assert!(e.contains("active") && e.contains("16 terminals"), "{e}");
    }

    #[test]
    fn positional_values_and_aliases() {
        assert_eq!(
            Pattern::parse("local:2").unwrap(),
            Pattern::Local {
                l: 2,
                along: LocalAlong::Shortest
            }
        );
        assert_eq!(
            Pattern::parse("local:l=3,along=updown")
                .unwrap()
                .to_string(),
            "local:l=3,along=updown"
        );
        let e = Pattern::parse("local:l=3,along=up")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("along") && e.contains("shortest or updown"),
            "{e}"
        );
        assert_eq!(
            Pattern::parse("hotspot:0.5,host=3").unwrap(),
            Pattern::Hotspot { f: 0.5, host: 3 }
        );
        assert_eq!(Pattern::parse("transpose3d").unwrap(), Pattern::Rotate3d);
        assert_eq!(Pattern::parse("bitrev").unwrap(), Pattern::BitReverse);
        assert_eq!(Pattern::parse("bitcomp").unwrap(), Pattern::BitComplement);
        assert_eq!(Pattern::parse("randperm").unwrap(), Pattern::Permutation);
        assert_eq!(Pattern::parse(" Tornado ").unwrap(), Pattern::Tornado);
    }

    #[test]
    fn bad_specs_name_the_fix() {
        let e = Pattern::parse("zigzag").unwrap_err().to_string();
        assert!(e.contains("'zigzag'") && e.contains("bit-reverse, "), "{e}");
        let e = Pattern::parse("local:k=2").unwrap_err().to_string();
        assert!(
            e.contains("unknown parameter 'k'") && e.contains("valid parameters: l"),
            "{e}"
        );
        let e = Pattern::parse("tornado:x=1").unwrap_err().to_string();
        assert!(e.contains("takes no parameters"), "{e}");
        let e = Pattern::parse("local").unwrap_err().to_string();
        assert!(
            e.contains("local needs 'l'") && e.contains("0..=65535"),
            "{e}"
        );
        let e = Pattern::parse("hotspot:f=1.5").unwrap_err().to_string();
        assert!(e.contains("'f' = '1.5'") && e.contains("0..=1"), "{e}");
        let e = Pattern::parse("hotspot:f=0.1,host=-1")
            .unwrap_err()
            .to_string();
        assert!(e.contains("'host' = '-1'"), "{e}");
        let e = Pattern::parse("local:l=1,l=2").unwrap_err().to_string();
        assert!(e.contains("each key once"), "{e}");
    }

    #[test]
    fn serde_form_is_tagged() {
        let p = Pattern::Hotspot { f: 0.1, host: 4 };
        let json = serde_json::to_string(&p).unwrap();
        assert_eq!(json, r#"{"pattern":"hotspot","f":0.1,"host":4}"#);
        assert_eq!(serde_json::from_str::<Pattern>(&json).unwrap(), p);
        let p: Pattern = serde_json::from_str(r#"{"pattern":"bit-reverse"}"#).unwrap();
        assert_eq!(p, Pattern::BitReverse);
        let p: Pattern = serde_json::from_str(r#"{"pattern":"transpose3d"}"#).unwrap();
        assert_eq!(p, Pattern::Rotate3d);
        let p: Pattern = serde_json::from_str(r#"{"pattern":"hotspot","f":0.3}"#).unwrap();
        assert_eq!(p, Pattern::Hotspot { f: 0.3, host: 0 });
        assert!(serde_json::from_str::<Pattern>(r#"{"pattern":"local","l":1,"q":2}"#).is_err());
        let p: Pattern = serde_json::from_str(r#"{"pattern":"hotspot","f":3.0}"#).unwrap();
        assert!(p.validate().is_err());
    }

    #[test]
    fn every_registered_name_parses() {
        for info in PATTERNS {
            let spec = match info.name {
                "local" => "local:l=1".to_string(),
                "hotspot" => "hotspot:f=0.1".to_string(),
                n => n.to_string(),
            };
            assert_eq!(Pattern::parse(&spec).unwrap().name(), info.name);
        }
    }
}
