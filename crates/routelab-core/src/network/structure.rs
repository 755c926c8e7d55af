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
    /// Extended generalized fat tree XGFT(h; m; w), `m[i - 1] = m_i`
    /// (k-ary n-trees included). Switches first, level 1 upward, each level
    /// in label order `(a_h .. a_{i+1}, b_i .. b_1)` with position 1 fastest;
    /// then terminals, terminal `t` having the a-digits of `t` (a_1 fastest).
    /// A level-i switch's port `j + 1` leads to its child with `a_i = j`, its
    /// port `m_i + 1 + j` to its parent with `b_{i+1} = j`; a terminal's port
    /// `j + 1` to the level-1 switch with `b_1 = j`. Helpers in
    /// [`super::build::tree`] compute levels, labels and ports.
    ///
    /// With `leaf_terminals: Some(T)` level 0 holds the `m_1 ⋯ m_h` leaf
    /// *switches* instead (numbered first, in label order, then levels
    /// `1..=h`), and the `T` terminals come after all switches, in blocks
    /// per leaf: leaf `x` holds `T / L` plus one if `x < T mod L` (`L`
    /// leaves), consecutive in leaf order, one cable each. A leaf's port
    /// `j + 1` (`j < w_1`) leads to its parent with `b_1 = j`, its ports
    /// from `w_1 + 1` to its terminals. A k-ary n-tree given `terminals=T`
    /// is stored this way as XGFT(n-1; k..k; k..k), `kary_ntree` set.
    ///
    /// `trunks[i - 1]` (empty: all 1) is the number of parallel cables
    /// between a level-i switch and each of its children, as real fat trees
    /// double their leaf-spine cables. A level-i switch's port
    /// `j + 1 + c m_i` is its `c`-th cable to the child with `a_i = j`, its
    /// port `m_i t_i + 1 + j + c w_{i+1}` its `c`-th cable to the parent
    /// with `b_{i+1} = j` (`t_i = trunks[i - 1]`; leaves have no down ports).
    Xgft {
        m: Vec<u32>,
        w: Vec<u32>,
        kary_ntree: bool,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        leaf_terminals: Option<u32>,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        trunks: Vec<u32>,
    },
    /// Folded 3-stage Clos: `leaves` leaf crossbars with up to
    /// `hosts_per_leaf` (= ports / 2) hosts each, and `spines` spine
    /// crossbars. Leaves, then spines, then hosts; host `h` is on leaf
    /// `h / hosts_per_leaf` (the last leaf may hold fewer). Leaf ports
    /// `1..=hosts_per_leaf` hold hosts, leaf port `hosts_per_leaf + 1 + s`
    /// leads to spine `s`, spine port `l + 1` to leaf `l`.
    Clos {
        ports: u32,
        leaves: u32,
        spines: u32,
        hosts_per_leaf: u32,
    },
    /// Kautz graph K(b, n): switch `s` is the `s`-th word `s_0 .. s_n` in
    /// lexicographic order; port `j + 1` (`j < b`) carries the arc to the
    /// successor appending the `j`-th symbol other than `s_n`, port
    /// `b + 1 + e` the arc from the predecessor prepending the `e`-th symbol
    /// other than `s_0`. `terminals` in all, consecutive per switch: switch
    /// `s` holds `terminals / S` plus one if `s < terminals mod S`, on ports
    /// from `2b + 1`; `hosts` is the most any switch holds.
    Kautz {
        b: u32,
        n: u32,
        hosts: u32,
        terminals: u32,
    },
    /// Dragonfly with `groups` = `a*h + 1` groups of `a` routers, `p`
    /// terminals and `h` global links per router. Router `r` of group `G` is
    /// switch `G*a + r`; its ports are `1..=a-1` local (to router `r'` on
    /// `r' + 1` if `r' < r`, else `r'`), `a..=a+h-1` global, then terminals.
    /// Global link `j = r*h + k` of group `G` (router `r`, port `a + k`)
    /// leads to the group its [`GlobalArrangement`] gives.
    Dragonfly {
        a: u32,
        p: u32,
        h: u32,
        groups: u32,
        #[serde(default, skip_serializing_if = "GlobalArrangement::is_absolute")]
        arrangement: GlobalArrangement,
    },
    /// HyperX (a Hamming graph) with `sides[d]` switches along dimension
    /// `d`, `trunking` cables between every two switches that differ in
    /// exactly one coordinate and `concentration` terminals per switch
    /// (flattened butterflies included). Switch `s` has coordinates in mixed
    /// radix of `sides`, dimension 0 fastest. Its ports: for each dimension
    /// `d`, for each other value `y` of coordinate `d` in increasing order,
    /// each trunk `c`: port `1 + t * sum_{e<d} (S_e - 1) + t * j + c` with
    /// `j = y` if `y` is below the switch's own coordinate, else `y - 1`;
    /// then terminals, from port `t * sum_d (S_d - 1) + 1`, terminal `i` on
    /// switch `i / concentration`. Helpers in [`super::build::hyperx`].
    #[serde(rename = "hyperx")]
    HyperX {
        sides: Vec<u32>,
        trunking: u32,
        concentration: u32,
    },
    /// Megafly (Dragonfly+): `groups` = `a*h + 1` groups of `a` leaves
    /// with `p` terminals each and `a` spines with `h` global links each,
    /// every leaf cabled to every spine of its group. Group `G`'s leaf `l`
    /// is switch `2aG + l`, its spine `s` switch `2aG + a + s`; a leaf
    /// reaches spine `s` on port `s + 1`, a spine leaf `l` on port `l + 1`
    /// and its `k`-th global link on port `a + 1 + k`; global link
    /// `j = s*h + k` of a group leads where its [`GlobalArrangement`] says.
    /// See [`super::build::megafly`].
    Megafly {
        a: u32,
        p: u32,
        h: u32,
        groups: u32,
        #[serde(default, skip_serializing_if = "GlobalArrangement::is_absolute")]
        arrangement: GlobalArrangement,
    },
    /// Slim Fly over the field of `q` elements: `2q²` routers of
    /// `(3q - δ) / 2` router links, `concentration` terminals each. Router
    /// `(0, x, y)` is switch `x q + y`, `(1, m, c)` switch `q² + m q + c`;
    /// a switch's neighbours in increasing order on ports `1..`, then its
    /// terminals. See [`super::build::slimfly`].
    #[serde(rename = "slimfly")]
    SlimFly { q: u32, concentration: u32 },
}

/// How a dragonfly's groups lay out their global links (Hastings et al.,
/// "Comparing global link arrangements for Dragonfly networks", 2015):
/// which group global link `j = r*h + k` of group `G` (router `r`, its
/// `k`-th global port) leads to, `g` groups in all.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum GlobalArrangement {
    /// Consecutive: group `j` if `j < G`, else `j + 1`.
    #[default]
    Absolute,
    /// Group `(G + j + 1) mod g`.
    Relative,
    /// Offsets alternate in sign: group `G + (j/2 + 1)` for even `j`,
    /// `G - (j/2 + 1)` for odd `j` (mod `g`), so a router's links reach
    /// both sides of its group.
    Circulant,
    /// As a fabric read from a dump is cabled, when recognition found no
    /// numbering under which it follows one of the above: group by group,
    /// each switch's global links in the order of the groups they reach.
    /// No spec builds it again.
    Cabled,
}

impl GlobalArrangement {
    pub const NAMES: [&'static str; 3] = ["absolute", "relative", "circulant"];

    pub fn name(self) -> &'static str {
        match self {
            GlobalArrangement::Absolute => "absolute",
            GlobalArrangement::Relative => "relative",
            GlobalArrangement::Circulant => "circulant",
            GlobalArrangement::Cabled => "cabled",
        }
    }

    pub fn from_name(name: &str) -> Option<Self> {
        [Self::Absolute, Self::Relative, Self::Circulant]
            .into_iter()
            .find(|a| a.name() == name)
    }

    pub fn is_absolute(&self) -> bool {
        *self == GlobalArrangement::Absolute
    }
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
            Structure::HyperX { .. } => "hyperx",
            Structure::SlimFly { .. } => "slimfly",
            Structure::Megafly { .. } => "megafly",
        }
    }

    /// The spec that generates this structure for `terminals` terminals
    /// (`torus:4x4,c=2`, `kary-ntree:k=4,n=3,terminals=64`), where the
    /// family has one.
    pub fn spec(&self, terminals: usize) -> Option<String> {
        let join = |v: &[u32]| v.iter().map(u32::to_string).collect::<Vec<_>>().join("x");
        let c = |c: u32| {
            if c == 1 {
                String::new()
            } else {
                format!(",c={c}")
            }
        };
        Some(match self {
            Structure::Torus {
                dims,
                concentration,
                ..
            } => format!("{}:{}{}", self.family(), join(dims), c(*concentration)),
            Structure::Hypercube { n, concentration } => {
                format!("hypercube:{n}{}", c(*concentration))
            }
            Structure::Crossbar { terminals } => format!("crossbar:{terminals}"),
            Structure::Xgft {
                m,
                w,
                kary_ntree,
                leaf_terminals,
                trunks,
            } => {
                let t = leaf_terminals.map_or(String::new(), |_| format!(",terminals={terminals}"));
                if !trunks.is_empty() {
                    format!(
                        "xgft:m={},w={}{t},trunks={}",
                        join(m),
                        join(w),
                        join(trunks)
                    )
                } else if *kary_ntree {
                    let n = m.len() + usize::from(leaf_terminals.is_some());
                    format!("kary-ntree:k={},n={n}{t}", m[0])
                } else {
                    format!("xgft:m={},w={}{t}", join(m), join(w))
                }
            }
            Structure::Clos { ports, .. } => format!("clos:ports={ports},hosts={terminals}"),
            Structure::Kautz { b, n, .. } => format!("kautz:b={b},n={n},terminals={terminals}"),
            Structure::Dragonfly {
                a,
                p,
                h,
                arrangement,
                ..
            }
            | Structure::Megafly {
                a,
                p,
                h,
                arrangement,
                ..
            } => {
                if *arrangement == GlobalArrangement::Cabled {
                    return None;
                }
                let arr = if arrangement.is_absolute() {
                    String::new()
                } else {
                    format!(",arrangement={}", arrangement.name())
                };
                format!("{}:a={a},p={p},h={h}{arr}", self.family())
            }
            Structure::HyperX {
                sides,
                trunking,
                concentration,
            } => format!("hyperx:S={},t={trunking},p={concentration}", join(sides)),
            Structure::SlimFly { q, concentration } => format!("slimfly:q={q},p={concentration}"),
            Structure::Irregular => return None,
        })
    }

    /// The family with its indefinite article, for messages: "a torus",
    /// "an irregular", "an xgft".
    pub fn family_with_article(&self) -> String {
        with_article(self.family())
    }
}

/// `word` after its indefinite article: "a torus", "an irregular".
pub fn with_article(word: &str) -> String {
    // "xgft" is read letter by letter ("ex-"), so it takes "an" too.
    let article = if word.starts_with(['a', 'e', 'i', 'o', 'u', 'x']) {
        "an"
    } else {
        "a"
    };
    format!("{article} {word}")
}
