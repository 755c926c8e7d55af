//! A pattern bound to one network and seed: sizes checked once, tables and
//! neighbourhoods precomputed, so that a destination costs O(1) and no
//! allocation on the simulator's hot path.

use super::{grid, groups, index, local::Local, matching, BisectDir, Pattern, TrafficError};
use crate::network::Network;
use crate::rng;
use rand::Rng;

/// A [`Pattern`] ready to produce destinations on one network.
///
/// An idle source (a fixed point) is its own destination: see
/// [`BoundPattern::destination`].
#[derive(Debug, Clone)]
pub struct BoundPattern {
    pattern: Pattern,
    seed: u64,
    terminals: usize,
    kind: Kind,
}

#[derive(Debug, Clone)]
enum Kind {
    /// A fixed destination per source.
    Table(Vec<u32>),
    /// Flip bit `seq mod bits` of the source.
    Butterfly {
        bits: u32,
    },
    Uniform,
    Hotspot {
        f: f64,
        host: u32,
    },
    Local(Local),
    /// A terminal of group `image[group[src]]` drawn per message.
    ToGroup(groups::GroupDraw),
}

impl Pattern {
    /// Binds the pattern to `net`: checks that it fits and precomputes what
    /// it needs. `seed` fixes the random tables (permutation, bisect) and the
    /// draws of [`BoundPattern::flows`]; per-message draws use the caller's
    /// stream.
    pub fn bind(&self, net: &Network, seed: u64) -> Result<BoundPattern, TrafficError> {
        self.validate()?;
        let t = net.terminals().len();
        let name = self.name();
        if t < 2 {
            return Err(TrafficError::does_not_fit(
                name,
                format!("{t} terminals"),
                "at least 2 terminals",
            ));
        }
        if t > u32::MAX as usize {
            return Err(TrafficError::does_not_fit(
                name,
                format!("{t} terminals"),
                format!("at most {} terminals", u32::MAX),
            ));
        }
        let random = |purpose: &str| rng::stream(seed, &format!("traffic/{name}/{purpose}"));
        let kind = match *self {
            Pattern::Uniform => Kind::Uniform,
            Pattern::Permutation => Kind::Table(matching::derangement(t, &mut random("table"))),
            Pattern::BitReverse => Kind::Table(index::bit_reverse(index::log2_exact(name, t)?)),
            Pattern::BitComplement => {
                Kind::Table(index::bit_complement(index::log2_exact(name, t)?))
            }
            Pattern::Shuffle => Kind::Table(index::shuffle(index::log2_exact(name, t)?)),
            Pattern::Transpose => Kind::Table(match grid::Grid::try_of(net) {
                Some(g) => grid::transpose(&g, net)?,
                None => index::transpose(index::square_side(name, t, "terminals")?),
            }),
            Pattern::Rotate3d => Kind::Table(grid::rotate3d(&grid::Grid::of(net, name)?, net)?),
            Pattern::Butterfly => Kind::Butterfly {
                bits: index::log2_exact(name, t)?,
            },
            Pattern::Tornado => Kind::Table(grid::tornado(&grid::Grid::of(net, name)?, net)?),
            Pattern::Neighbor => Kind::Table(grid::neighbor(&grid::Grid::of(net, name)?)),
            Pattern::Local { l, along } => Kind::Local(Local::new(net, l, along)?),
            Pattern::Hotspot { f, host } => {
                if host >= t {
                    return Err(TrafficError::bad_param(
                        name,
                        "host",
                        host,
                        format!("a terminal index in 0..={}", t - 1),
                    ));
                }
                Kind::Hotspot {
                    f,
                    host: host as u32,
                }
            }
            Pattern::Bisect { dir, active } => {
                let n = match active {
                    Some(n) if n as usize > t => {
                        return Err(TrafficError::bad_param(
                            name,
                            "active",
                            n,
                            format!("at most the {t} terminals of the network"),
                        ))
                    }
                    Some(n) => n as usize,
                    None => t,
                };
                Kind::Table(matching::bisection(
                    t,
                    n,
                    dir == BisectDir::Both,
                    &mut random("table"),
                ))
            }
            Pattern::Bridge => Kind::Table(matching::bridge(net)?),
            Pattern::GroupShift { by, any: false } => Kind::Table(groups::group_shift(net, by)?),
            Pattern::GroupShift { by, any: true } => {
                Kind::ToGroup(groups::GroupDraw::shift(net, by)?)
            }
            Pattern::GroupPermutation => {
                Kind::Table(groups::group_permutation(net, &mut random("table"))?)
            }
        };
        Ok(BoundPattern {
            pattern: self.clone(),
            seed,
            terminals: t,
            kind,
        })
    }
}

impl BoundPattern {
    pub fn pattern(&self) -> &Pattern {
        &self.pattern
    }

    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// The number of terminals `T`; sources and destinations are `0..T`.
    pub fn terminals(&self) -> usize {
        self.terminals
    }

    /// The destination of message number `seq` of source `src` (`src < T`).
    ///
    /// `seq` counts the source's messages from 0 and only matters for
    /// butterfly; `rng` is drawn from only by the random patterns (uniform,
    /// hotspot, local), one or two draws per call. A result equal to `src`
    /// means the source is idle for this message (a fixed point of a
    /// permutation, such as a bit-reverse palindrome): self traffic never
    /// loads the network, so callers neither inject nor count it. Random
    /// patterns never return `src`.
    #[inline]
    pub fn destination<R: Rng + ?Sized>(&self, src: usize, seq: u64, rng: &mut R) -> usize {
        match &self.kind {
            Kind::Table(table) => table[src] as usize,
            Kind::Butterfly { bits } => src ^ (1usize << (seq % u64::from(*bits))),
            Kind::Uniform => uniform_other(src, self.terminals, rng),
            Kind::Hotspot { f, host } => {
                let hot = rng.gen::<f64>() < *f;
                if hot && src != *host as usize {
                    *host as usize
                } else {
                    uniform_other(src, self.terminals, rng)
                }
            }
            Kind::Local(local) => local.draw(src, rng),
            Kind::ToGroup(draw) => draw.draw(src, rng),
        }
    }

    /// True when every message's destinations, over all sources, form a
    /// permutation of the terminals (each receives what it sends): the fixed
    /// patterns, and butterfly phase by phase. False for uniform, hotspot,
    /// local and `group-shift:to=any`.
    pub fn is_permutation(&self) -> bool {
        matches!(self.kind, Kind::Table(_) | Kind::Butterfly { .. })
    }

    /// True when destinations are drawn per message from the caller's stream.
    pub fn is_random(&self) -> bool {
        matches!(
            self.kind,
            Kind::Uniform | Kind::Hotspot { .. } | Kind::Local(_) | Kind::ToGroup(_)
        )
    }

    /// How many distinct message phases a deterministic pattern cycles
    /// through: `n` for butterfly on `2^n` terminals, 1 otherwise.
    pub fn phases(&self) -> u64 {
        match self.kind {
            Kind::Butterfly { bits } => u64::from(bits),
            _ => 1,
        }
    }

    /// The (source, destination) flows for flow-level evaluation: message 0
    /// of every source, as [`BoundPattern::flows_at`] with `seq = 0`.
    pub fn flows(&self) -> Vec<(usize, usize)> {
        self.flows_at(0)
    }

    /// The flows of message number `seq` of every source, in source order,
    /// without self pairs (idle sources send nothing). Fixed patterns give
    /// the same flows for every `seq`; butterfly gives phase `seq mod n`;
    /// random patterns draw one destination per source from a stream of the
    /// bound seed and `seq`, so the same seed gives the same flows.
    pub fn flows_at(&self, seq: u64) -> Vec<(usize, usize)> {
        let purpose = format!("traffic/{}/flows/{seq}", self.pattern.name());
        let mut rng = rng::stream(self.seed, &purpose);
        (0..self.terminals)
            .map(|s| (s, self.destination(s, seq, &mut rng)))
            .filter(|&(s, d)| s != d)
            .collect()
    }
}

/// A terminal drawn uniformly among the `t - 1` other than `src`.
#[inline]
fn uniform_other<R: Rng + ?Sized>(src: usize, t: usize, rng: &mut R) -> usize {
    let r = rng.gen_range(0..t as u32 - 1) as usize;
    if r >= src {
        r + 1
    } else {
        r
    }
}
