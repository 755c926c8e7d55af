//! Oblivious routing engines: each computes destination-based forwarding
//! tables and lanes ([`Routes`]) for a [`Network`].
//!
//! Every engine implements [`RoutingEngine`], lives in one file with one
//! entry point and has one line in [`ENGINES`] (the OpenSM habit):
//!
//! | name | what it does | lanes |
//! |---|---|---|
//! | `minhop` | shortest paths; each switch spreads destinations over its minimal ports | 1 (may deadlock) |
//! | `sssp` | shortest paths balanced globally (Dijkstra with route-count weights) | 1 (may deadlock) |
//! | `dfsssp` | `sssp` plus virtual layers that make every layer acyclic | as needed, then spread |
//! | `updown` (up*/down* as OpenSM's `updn` ranks it, balanced its own way: not an alias) | up*/down* on a BFS spanning tree; shortest legal paths | 1, deadlock-free |
//! | `dnup` | up*/down* ranked by distance from the switches holding terminals (OpenSM's down*/up*) | 1, deadlock-free |
//! | `dor` | dimension order on tori, meshes and hypercubes | 2 on tori (datelines), else 1 |
//! | `ftree` | OpenSM's fat-tree routing on any network recognised as a fat tree (imported dumps too), roots given or found | 1, deadlock-free |
//! | `torus-2qos` (OpenSM's `torus-2QoS`) | `dor` with torus-2QoS's SLs (a bit per wrapped dimension) and SL-to-VL tables (VL = the SL bit of the hop's dimension) | 2 VLs, deadlock-free |
//! | `dmodk` | D-mod-k on k-ary n-trees, XGFTs and Clos networks: up ports by destination, unique way down | 1, deadlock-free |
//! | `nue` | routes on the channel dependency graph, never closing a cycle; destinations in `max_lanes` layers, escape paths as fallback (Domke 2016) | `max_lanes` (default 8), deadlock-free |
//! | `lash` | layered shortest path: one minimal path per switch pair, pairs on the first layer that stays acyclic | as needed, deadlock-free |
//! | `multipath` | all minimal paths per pair (or `paths=k` of them) in a [`PathSet`], traffic split evenly: the fluid view of dispersive routing | 1 (deadlock-free on trees) |
//! | `updown-source` | up*/down* source routes, one per pair among all legal paths, balanced by link weights (Myrinet's `simple_routes`) | 1, deadlock-free |
//! | `itb` | minimal source routes split at in-transit hosts into legal up*/down* sub-routes (Flich 2000) | 1, deadlock-free (hosts eject) |
//! | `itb-any` | `itb` drawing among all minimal paths, not only those with the fewest in-transit hosts | 1, deadlock-free (hosts eject) |
//! | `itb-legal-first` | `itb` taking a legal minimal path where one exists, else drawing among all minimal paths | 1, deadlock-free (hosts eject) |
//! | `valiant` | a random intermediate switch per pair, two shortest phases (up*/down* on fat trees), stored as a [`PathSet`]; not minimal | 2: phase 1 on lane 0, phase 2 on lane 1 (deadlock-free on trees) |
//!
//! Engines that need a family's structure (`dor`, `torus-2qos`, `dmodk`)
//! also route fabrics read from files: [`route`] recognises the family from
//! the cabling and maps the routes back (`recognised`).
//!
//! Engines use the `deadlock` layer below (cycle search, layer assignment);
//! nothing here is used by `deadlock`.
//!
//! [`adaptive`] holds the hop-by-hop routers the simulator drives (the
//! `HopRouter` interface, its registry, and `Routes` wrapped as a router).

mod canonical;
pub(crate) mod columns;
mod error;
mod fabric;
pub mod lid_routes;
mod recognised;
mod routes;
mod source_paths;

pub mod adaptive;
pub mod audit;
pub mod dfsssp;
pub mod dmodk;
pub mod dnup;
pub mod dor;
pub mod formats;
pub mod ftree;
pub mod hop_tables;
pub mod itb;
pub mod lash;
pub mod minhop;
pub mod multipath;
pub mod nue;
pub mod sssp;
pub mod torus_2qos;
pub mod updown;
pub mod updown_source;
pub mod valiant;

pub use crate::deadlock::Heuristic;
pub use error::RoutingError;
pub use lid_routes::{LidAudit, LidRoutes, LidTables};
pub use recognised::recognised_or;
pub use routes::{
    is_beyond_lid_space, transit_hosts, Datelines, HopStats, LaneRule, PathKey, PathSet, Routes,
    SlToVl, DROP_VL,
};

use crate::network::Network;

/// The most lanes an engine may use: data VLs 0..=14 (InfiniBand reserves
/// VL 15 for management).
pub const MAX_LANES: u8 = 15;

/// The most paths per pair `multipath` keeps with `paths=k`.
pub const MAX_PATHS: u32 = 65_535;

/// An oblivious routing engine.
pub trait RoutingEngine: Send + Sync {
    /// The name it is registered under.
    fn name(&self) -> &'static str;
    /// Computes routes for `net`.
    fn route(&self, net: &Network) -> Result<Routes, RoutingError>;
    /// Whether it needs a family's structure (coordinates, tree labels):
    /// [`route`] then recognises the family of a fabric that declares none.
    fn needs_structure(&self) -> bool {
        false
    }
    /// The memory its routes for `net` take at least, in bytes, known
    /// before routing so that a network too large is refused rather than
    /// exhausting memory: by default the forwarding tables.
    fn memory_bytes(&self, net: &Network) -> u64 {
        Routes::table_bytes(net)
    }
}

/// Options shared by the engines; each engine reads the ones it needs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RoutingOptions {
    /// Lanes an engine may use, 1..=15 (default 8).
    pub max_lanes: u8,
    /// Master seed for engines that make random choices.
    pub seed: u64,
    /// Root switch (by name) of `updown`; by default the switch with the
    /// smallest eccentricity, ties by lowest id.
    pub root: Option<String>,
    /// Root switches (names or GUIDs) of `ftree` (OpenSM's
    /// `root_guid_file`); by default found from the leaves.
    pub roots: Vec<String>,
    /// How `dfsssp` breaks cycles.
    pub heuristic: Heuristic,
    /// `dor` on tori: use datelines (two lanes) to stay deadlock-free.
    pub datelines: bool,
    /// `multipath`: paths kept per pair, 0..=65535; 0 (the default) keeps
    /// every minimal path.
    pub paths: u32,
    /// Routes whose estimated memory exceeds this many bytes are refused
    /// before routing (default 8 GiB).
    pub memory_limit: u64,
    /// `dfsssp`, `sssp`, `nue`: leave throttled switch links out, as
    /// OpenSM's `avoid_throttled_links` does (default false).
    pub avoid_throttled_links: bool,
    /// `minhop`, `sssp`, `dfsssp`, `nue`: count a route on a link as many
    /// times as the link is slower than the fastest switch link, so slow
    /// links carry fewer routes (default false; OpenSM weighs no engine by
    /// capacity).
    pub weigh_capacity: bool,
}

/// The default [`RoutingOptions::memory_limit`]: 8 GiB.
pub const DEFAULT_MEMORY_LIMIT: u64 = 8 << 30;

impl Default for RoutingOptions {
    fn default() -> Self {
        RoutingOptions {
            max_lanes: 8,
            seed: 0,
            root: None,
            roots: Vec::new(),
            heuristic: Heuristic::Weakest,
            datelines: true,
            paths: 0,
            memory_limit: DEFAULT_MEMORY_LIMIT,
            avoid_throttled_links: false,
            weigh_capacity: false,
        }
    }
}

impl RoutingOptions {
    /// The option names and what each accepts.
    pub const KEYS: &'static [(&'static str, &'static str)] = &[
        ("max_lanes", "an integer in 1..=15"),
        ("seed", "a non-negative integer"),
        ("root", "a switch: its name, GUID (0x...) or index"),
        (
            "roots",
            "switches by name or GUID (0x...), separated by commas or spaces",
        ),
        ("heuristic", "one of weakest, heaviest, first, online"),
        ("datelines", "true or false"),
        ("paths", "an integer in 0..=65535 (0: every minimal path)"),
        (
            "memory_limit",
            "a size such as 8GB or 64GiB: the most memory routes may take",
        ),
        ("avoid_throttled_links", "true or false"),
        ("weigh_capacity", "true or false"),
    ];

    fn expected(key: &str) -> String {
        Self::KEYS
            .iter()
            .find(|(k, _)| *k == key)
            .map_or("", |(_, e)| e)
            .to_string()
    }

    fn bad(key: &str, value: &str) -> RoutingError {
        RoutingError::BadOption {
            option: key.to_string(),
            value: value.to_string(),
            expected: Self::expected(key),
        }
    }

    fn flag(key: &str, v: &str) -> Result<bool, RoutingError> {
        match v {
            "true" | "yes" | "1" => Ok(true),
            "false" | "no" | "0" => Ok(false),
            _ => Err(Self::bad(key, v)),
        }
    }

    /// Sets an option from text (`max_lanes=4` on a command line).
    pub fn set(&mut self, key: &str, value: &str) -> Result<(), RoutingError> {
        let v = value.trim();
        match key {
            "max_lanes" => {
                self.max_lanes = v
                    .parse()
                    .ok()
                    .filter(|n| (1..=MAX_LANES).contains(n))
                    .ok_or_else(|| Self::bad(key, v))?;
            }
            "seed" => self.seed = v.parse().map_err(|_| Self::bad(key, v))?,
            "root" if !v.is_empty() => self.root = Some(v.to_string()),
            "roots" => {
                self.roots = v
                    .split([',', ' ', '\n'])
                    .map(str::trim)
                    .filter(|r| !r.is_empty())
                    .map(String::from)
                    .collect();
                if self.roots.is_empty() {
                    return Err(Self::bad(key, v));
                }
            }
            "heuristic" => self.heuristic = Heuristic::parse(v).ok_or_else(|| Self::bad(key, v))?,
            "datelines" => self.datelines = Self::flag(key, v)?,
            "avoid_throttled_links" => self.avoid_throttled_links = Self::flag(key, v)?,
            "weigh_capacity" => self.weigh_capacity = Self::flag(key, v)?,
            "paths" => {
                self.paths = v
                    .parse()
                    .ok()
                    .filter(|n| *n <= MAX_PATHS)
                    .ok_or_else(|| Self::bad(key, v))?;
            }
            "memory_limit" => {
                self.memory_limit = crate::units::parse_bytes(v)
                    .ok()
                    .filter(|&b| b > 0)
                    .ok_or_else(|| Self::bad(key, v))?;
            }
            "root" => return Err(Self::bad(key, v)),
            _ => {
                return Err(RoutingError::BadOption {
                    option: key.to_string(),
                    value: v.to_string(),
                    expected: format!(
                        "a known option: {}",
                        Self::KEYS
                            .iter()
                            .map(|(k, _)| *k)
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                })
            }
        }
        Ok(())
    }

    /// Checks the ranges.
    pub fn validate(&self) -> Result<(), RoutingError> {
        if self.max_lanes == 0 || self.max_lanes > MAX_LANES {
            return Err(Self::bad("max_lanes", &self.max_lanes.to_string()));
        }
        if self.root.as_deref().is_some_and(|r| r.is_empty()) {
            return Err(Self::bad("root", ""));
        }
        if self.paths > MAX_PATHS {
            return Err(Self::bad("paths", &self.paths.to_string()));
        }
        Ok(())
    }
}

/// Makes an engine from options.
pub type EngineFactory = fn(&RoutingOptions) -> Box<dyn RoutingEngine>;

/// Every engine, by name, with the line `--list` shows. One line per engine.
pub const ENGINES: &[(&str, EngineFactory, &str)] = &[
    (
        "minhop",
        minhop::engine,
        "shortest paths, each switch's ports balanced (OpenSM minhop)",
    ),
    (
        "sssp",
        sssp::engine,
        "shortest paths balanced over the whole fabric (Domke 2011)",
    ),
    (
        "dfsssp",
        dfsssp::engine,
        "sssp made deadlock-free over virtual lanes (Domke 2011)",
    ),
    (
        "updown",
        updown::engine,
        "up*/down* on a BFS tree from a root switch; deadlock-free",
    ),
    (
        "dnup",
        dnup::engine,
        "up*/down* ranked from the edge switches (OpenSM dnup); deadlock-free",
    ),
    (
        "dor",
        dor::engine,
        "dimension order on tori, meshes, hypercubes; datelines on tori",
    ),
    (
        "torus-2qos",
        torus_2qos::engine,
        "dor with torus-2QoS's SLs and SL-to-VL tables (OpenSM torus-2QoS)",
    ),
    (
        "dmodk",
        dmodk::engine,
        "D-mod-k on fat trees, XGFTs and folded Clos networks",
    ),
    (
        "ftree",
        ftree::engine,
        "fat-tree routing on any recognised fat tree, dumps too (OpenSM ftree)",
    ),
    (
        "lash",
        lash::engine,
        "shortest paths, each pair on a lane kept acyclic (LASH)",
    ),
    (
        "nue",
        nue::engine,
        "deadlock-free within max_lanes lanes, routed on the CDG (Nue)",
    ),
    (
        "multipath",
        multipath::engine,
        "every minimal path per pair (or `paths`), split evenly",
    ),
    (
        "updown-source",
        updown_source::engine,
        "up*/down* source routes balanced over the links (Myrinet)",
    ),
    (
        "itb",
        itb::engine,
        "minimal source routes split at in-transit hosts (Flich 2000)",
    ),
    (
        "itb-any",
        itb::engine_any,
        "itb over any minimal path, not the fewest in-transit hosts",
    ),
    (
        "itb-legal-first",
        itb::engine_legal_first,
        "itb: up*/down*'s minimal path if any, else any minimal path",
    ),
    (
        "valiant",
        valiant::engine,
        "via a random intermediate switch, one lane per phase",
    ),
    (
        "df-min",
        hop_tables::df_min,
        "dragonfly minimal (local, global, local) with hop-class VLs by SL-to-VL tables",
    ),
    (
        "hx-dor",
        hop_tables::hx_dor,
        "HyperX dimension order, one VL",
    ),
    (
        "dist-min",
        hop_tables::dist_min,
        "shortest paths by switch distances, VL by hop (Slim Fly MIN)",
    ),
];

/// Other names for registered engines: OpenSM's `routing_engine` names
/// (`torus-2QoS`), so an `opensm.conf` value works as is, and
/// BookSim's (`dim_order`). (`minhop`, `sssp`, `dfsssp`, `lash`, `dor`,
/// `dnup`, `ftree` and `nue` are registered under OpenSM's names.)
/// OpenSM's `updn` is not one: see [`NOT_OPENSM`].
pub const ALIASES: &[(&str, &str)] = &[("dim_order", "dor"), ("torus-2QoS", "torus-2qos")];

/// The engine `name` stands for: itself, or the engine it is an alias of.
pub fn canonical(name: &str) -> &str {
    // OpenSM's and BookSim's spellings in any letter case (`DFSSSP`,
    // `torus-2QoS`, `MinHop`) where only one name matches.
    let exact = ENGINES
        .iter()
        .map(|(n, ..)| (*n, *n))
        .chain(ALIASES.iter().copied());
    if let Some((_, n)) = exact.clone().find(|(a, _)| *a == name) {
        return n;
    }
    let mut targets = exact
        .filter(|(a, _)| a.eq_ignore_ascii_case(name))
        .map(|(_, n)| n);
    match targets.next() {
        Some(n) if targets.all(|m| m == n) => n,
        _ => name,
    }
}

/// `(name, one line)` of every engine, as `routelab route --list` shows.
pub fn engine_about() -> Vec<(&'static str, &'static str)> {
    ENGINES.iter().map(|(n, _, about)| (*n, *about)).collect()
}

/// The registered engine names, then the aliases, comma-separated.
pub fn engine_names() -> String {
    ENGINES
        .iter()
        .map(|(n, _, _)| n.to_string())
        .chain(ALIASES.iter().map(|(a, n)| format!("{a} (= {n})")))
        .collect::<Vec<_>>()
        .join(", ")
}

/// OpenSM engine names whose tables routelab does not reproduce, and why:
/// asked for by that name, routing fails with the reason rather than
/// handing out other tables under OpenSM's name.
pub const NOT_OPENSM: &[(&str, &str)] = &[(
    "updn",
    "routelab's up*/down* is 'updown'. It ranks switches by a BFS from the \
     most central switch (or --root) as updn does, but it chooses among \
     equal legal next hops by its own link-load count, where updn balances \
     with OpenSM's per-port LID counters, so 14-23% of entries differ even \
     from the same root. Use --engine updown for routelab's, or run OpenSM's \
     updn and read its opensm-lfts.dump",
)];

/// The registry entry of `name` or of the engine it is an alias of.
fn registered(name: &str) -> Result<EngineFactory, RoutingError> {
    if let Some((n, why)) = NOT_OPENSM.iter().find(|(n, _)| *n == name) {
        return Err(RoutingError::NotOpenSm {
            name: n.to_string(),
            why: why.to_string(),
        });
    }
    let real = canonical(name);
    ENGINES
        .iter()
        .find(|(n, _, _)| *n == real)
        .map(|(_, make, _)| *make)
        .ok_or_else(|| RoutingError::UnknownEngine {
            name: name.to_string(),
            valid: engine_names(),
            hint: crate::suggest::did_you_mean(
                name,
                ENGINES
                    .iter()
                    .map(|(n, ..)| *n)
                    .chain(ALIASES.iter().map(|(a, _)| *a)),
            ),
        })
}

/// The engine registered as `name`, configured with `options`.
pub fn engine(
    name: &str,
    options: &RoutingOptions,
) -> Result<Box<dyn RoutingEngine>, RoutingError> {
    options.validate()?;
    let make = registered(name)?;
    Ok(make(options))
}

/// The bytes `name`'s routes of `net` will take (forwarding tables, and
/// lanes or paths for the engines that keep them), known before routing.
pub fn memory_bytes(
    net: &Network,
    name: &str,
    options: &RoutingOptions,
) -> Result<u64, RoutingError> {
    Ok(engine(name, options)?.memory_bytes(net))
}

/// Routes `net` with the engine registered as `name`. Routes that use more
/// lanes than `options.max_lanes` are refused, whatever the engine: a
/// lane scheme the fabric cannot carry is no routing for it.
pub fn route(net: &Network, name: &str, options: &RoutingOptions) -> Result<Routes, RoutingError> {
    let engine = engine(name, options)?;
    let bytes = engine.memory_bytes(net);
    if bytes > options.memory_limit {
        let t = net.terminals().len();
        // Tables are switches x terminals: quadratic in the size.
        let fits = (t as f64 * (options.memory_limit as f64 / bytes as f64).sqrt()) as usize;
        return Err(RoutingError::TooLarge {
            engine: engine.name(),
            switches: net.switches().len(),
            terminals: t,
            bytes,
            limit: options.memory_limit,
            fits,
        });
    }
    let routes = match engine.route(net) {
        // A fabric that does not declare the structure the engine needs
        // may still have it: recognise it from the cabling.
        Err(e @ RoutingError::Unfit { .. })
            if engine.needs_structure()
                && matches!(net.structure(), crate::network::Structure::Irregular) =>
        {
            recognised::route(engine.as_ref(), net, e)?
        }
        r => r?,
    };
    let mut routes = routes;
    routes.set_lane_limit(options.max_lanes);
    let used = routes.lanes();
    if used > options.max_lanes {
        return Err(RoutingError::LanesExceeded {
            engine: engine.name(),
            needed: u32::from(used),
            at_least: false,
            limit: options.max_lanes,
            note: "the lanes its routes use on this network; raise max_lanes".into(),
        });
    }
    Ok(routes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn opensm_names_route_as_the_engine_they_name() {
        for net in [
            "kary-ntree:k=4,n=2",
            "random:switches=12,ports=6,hosts=2,seed=3",
            "torus:4x4",
        ] {
            let net = crate::network::spec::build(net).unwrap();
            let o = RoutingOptions::default();
            for (alias, real) in ALIASES {
                let (a, r) = match (route(&net, alias, &o), route(&net, real, &o)) {
                    (Ok(a), Ok(r)) => (a, r),
                    (Err(a), Err(r)) => {
                        assert_eq!(a.to_string(), r.to_string());
                        continue;
                    }
                    _ => panic!("{alias} and {real} disagree on {}", net.name()),
                };
                assert_eq!(a.engine(), *real);
                for x in 0..net.switches().len() {
                    assert_eq!(a.table(x), r.table(x), "{alias} on {}", net.name());
                }
                assert!(engine_names().contains(&format!("{alias} (= {real})")));
            }
        }
        let e = route(
            &crate::network::spec::build("torus:4").unwrap(),
            "ftree",
            &RoutingOptions::default(),
        );
        assert!(matches!(e, Err(RoutingError::Unfit { .. })));
        let e = route(
            &crate::network::spec::build("torus:4").unwrap(),
            "opensm",
            &RoutingOptions::default(),
        );
        assert!(matches!(e, Err(RoutingError::UnknownEngine { .. })));
    }

    #[test]
    fn options_parse_and_reject() {
        let mut o = RoutingOptions::default();
        o.set("max_lanes", "15").unwrap();
        o.set("root", "s3").unwrap();
        o.set("seed", "42").unwrap();
        assert_eq!(
            (o.max_lanes, o.seed, o.root.as_deref()),
            (15, 42, Some("s3"))
        );
        for (k, v) in [
            ("max_lanes", "0"),
            ("max_lanes", "x"),
            ("seed", "-1"),
            ("root", ""),
        ] {
            let e = o.set(k, v).unwrap_err().to_string();
            assert!(e.contains(k), "{e}");
        }
        assert_eq!(o.max_lanes, 15);
    }

    #[test]
    fn every_engine_is_registered_under_its_name() {
        let o = RoutingOptions::default();
        for (name, make, _) in ENGINES {
            assert_eq!(make(&o).name(), *name);
        }
        assert!(engine("nope", &o).is_err());
    }
}
