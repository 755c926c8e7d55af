//! Structural metadata of the regular families, kept so that routings which
//! need it (dimension order, D-mod-k, the torus adaptive routers) can use it.

use serde::{Deserialize, Serialize};

/// How a generated network is laid out. Node numbering conventions for each
/// family are documented on its generator in [`super::build`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "family", rename_all = "kebab-case")]
pub enum Structure {
    /// No known regular structure (imported or random fabrics).
    Irregular,
    /// n-dimensional torus (`wrap`) or mesh. Switch `s` has coordinates in
    /// mixed radix of `dims`, dimension 0 fastest; its port `2d + 1` leads to
    /// `+d` and `2d + 2` to `-d`; ports `2n + 1 ..= 2n + c` hold terminals.
    Torus {
        dims: Vec<u32>,
        wrap: bool,
        concentration: u32,
    },
    /// Binary hypercube: switch `s` port `d + 1` leads to `s ^ (1 << d)`;
    /// ports `n + 1 ..= n + c` hold terminals.
    Hypercube { n: u32, concentration: u32 },
    /// One switch with every terminal on it.
    Crossbar { terminals: u32 },
    /// Extended generalized fat tree XGFT(h; m; w) (k-ary n-trees included).
    Xgft {
        m: Vec<u32>,
        w: Vec<u32>,
        kary_ntree: bool,
    },
    /// Folded 3-stage Clos: `leaves` leaf crossbars with up to
    /// `hosts_per_leaf` hosts each, and `spines` spine crossbars.
    Clos {
        ports: u32,
        leaves: u32,
        spines: u32,
        hosts_per_leaf: u32,
    },
    /// Kautz graph K(b, n) of switches with `hosts` terminals each.
    Kautz { b: u32, n: u32, hosts: u32 },
    /// Balanced dragonfly with `groups` groups of `a` routers, `p` terminals
    /// and `h` global links per router.
    Dragonfly { a: u32, p: u32, h: u32, groups: u32 },
}

impl Structure {
    /// The family name, as used in specs.
    pub fn family(&self) -> &'static str {
        match self {
            Structure::Irregular => "irregular",
            Structure::Torus { wrap: true, .. } => "torus",
            Structure::Torus { wrap: false, .. } => "mesh",
            Structure::Hypercube { .. } => "hypercube",
            Structure::Crossbar { .. } => "crossbar",
            Structure::Xgft {
                kary_ntree: true, ..
            } => "kary-ntree",
            Structure::Xgft { .. } => "xgft",
            Structure::Clos { .. } => "clos",
            Structure::Kautz { .. } => "kautz",
            Structure::Dragonfly { .. } => "dragonfly",
        }
    }
}
