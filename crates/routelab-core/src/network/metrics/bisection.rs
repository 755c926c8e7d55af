//! Bisection width: the fewest cables cut by a partition of all nodes that
//! splits the terminals into `floor(T/2)` and `ceil(T/2)`.
//!
//! Switches may go to either side and terminals may leave their switch (at
//! one cable each), so a network whose terminals are cheaper to cut than
//! its core reports the terminal cut. Regular shapes get formula cuts with
//! proven lower bounds ([`super::bounds`]); everything else, and any shape
//! whose formula cut misses its bound, gets the multistart FM heuristic
//! ([`super::refine`]), an upper bound unless it meets a proven bound.

use super::bounds::{plan, Plan};
use super::components;
use super::partition::{cut_width, Units};
use super::refine::{default_starts, search, HEURISTIC};
use super::shape::recognise;
use crate::network::Network;
use serde::{Deserialize, Serialize};

/// A bisection found for a network.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Bisection {
    /// Cables crossing `side`.
    pub width: u64,
    /// Whether `width` is the minimum (it meets a proven lower bound).
    pub exact: bool,
    /// `trivial` (fewer than two terminals), `components` (a union of
    /// components holds half the terminals), `terminal-cut` (all switches
    /// on one side), `formula` (a regular shape's cut), or the heuristic,
    /// `multistart-fm`.
    pub method: String,
    /// The best proven lower bound, when the network has one.
    pub lower_bound: Option<u64>,
    /// Per node: `true` for the part holding `floor(T/2)` terminals.
    pub side: Vec<bool>,
}

/// How hard the heuristic tries. The same options give the same result on
/// any machine and thread count.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BisectionOptions {
    /// BFS-grown starts; 0 picks by size (32 on small networks, fewer on
    /// large ones).
    pub starts: usize,
    pub seed: u64,
    /// FM passes per start, at most.
    pub max_passes: usize,
    /// Try the formula cuts of regular shapes first and as starts; off, the
    /// heuristic runs from its own starts alone (BFS-grown ones and the
    /// all-terminal cut), to test it. Proven lower bounds still decide
    /// `exact`.
    pub formula_cuts: bool,
}

impl Default for BisectionOptions {
    fn default() -> Self {
        BisectionOptions {
            starts: 0,
            seed: 0,
            max_passes: 12,
            formula_cuts: true,
        }
    }
}

/// The bisection of `net` with default options.
pub fn bisection(net: &Network) -> Bisection {
    bisection_with(net, &BisectionOptions::default())
}

/// The bisection of `net`, the heuristic (if needed) run as `opts` say.
pub fn bisection_with(net: &Network, opts: &BisectionOptions) -> Bisection {
    let t = net.terminals().len() as u64;
    let done = |width, side, method: &str, lower_bound: Option<u64>| Bisection {
        width,
        exact: width == 0 || lower_bound == Some(width),
        method: method.into(),
        lower_bound,
        side,
    };
    if t < 2 {
        return done(0, vec![false; net.node_count()], "trivial", Some(0));
    }
    if let Some(side) = zero_cut(net) {
        return done(cut_width(net, &side), side, "components", Some(0));
    }
    let units = Units::new(net);
    let mut plan = plan(net, recognise(net).as_ref());
    if !opts.formula_cuts {
        // Keep only the all-terminal cut, which any network has.
        plan.cuts.drain(..plan.cuts.len() - 1);
    }
    let best_cut = plan
        .cuts
        .iter()
        .map(|nodes| units.realise(net, &units.unit_sides(nodes)))
        .enumerate()
        .min_by_key(|(i, (w, _))| (*w, *i));
    if let Some((i, (width, side))) = best_cut.clone() {
        if plan.lower.is_some_and(|lb| width <= lb) {
            return done(width, side, cut_name(i, &plan), plan.lower);
        }
    }
    let seeds: Vec<Vec<bool>> = plan.cuts.iter().map(|n| units.unit_sides(n)).collect();
    let starts = if opts.starts == 0 {
        default_starts(units.len())
    } else {
        opts.starts
    };
    let (width, side, seed) = search(net, &units, &seeds, starts, opts.seed, opts.max_passes);
    match (best_cut, seed) {
        (Some((i, (w, s))), _) if w < width => done(w, s, cut_name(i, &plan), plan.lower),
        (_, Some(i)) => done(width, side, cut_name(i, &plan), plan.lower),
        _ => done(width, side, HEURISTIC, plan.lower),
    }
}

/// The method of plan cut `i`: the last cuts terminals only.
fn cut_name(i: usize, plan: &Plan) -> &'static str {
    if i + 1 == plan.cuts.len() {
        "terminal-cut"
    } else {
        "formula"
    }
}

/// A partition cutting nothing: a union of components holding exactly
/// `floor(T/2)` terminals (subset sum over the components' terminals).
fn zero_cut(net: &Network) -> Option<Vec<bool>> {
    let comps = components(net);
    if comps.len() < 2 {
        return None;
    }
    let half = net.terminals().len() / 2;
    let sizes: Vec<usize> = comps
        .iter()
        .map(|c| c.iter().filter(|&&v| net.is_terminal(v)).count())
        .collect();
    if comps.len().saturating_mul(half) > 50_000_000 {
        return None;
    }
    // by[x]: the first component completing sum x (from sums of earlier ones).
    const NONE: u32 = u32::MAX;
    let mut by = vec![NONE; half + 1];
    by[0] = NONE - 1;
    for (i, &size) in sizes.iter().enumerate() {
        if size == 0 || size > half {
            continue;
        }
        for x in (size..=half).rev() {
            if by[x] == NONE && by[x - size] != NONE {
                by[x] = i as u32;
            }
        }
    }
    if by[half] == NONE {
        return None;
    }
    let mut side = vec![false; net.node_count()];
    let mut x = half;
    while x > 0 {
        let i = by[x] as usize;
        for &v in &comps[i] {
            side[v.index()] = true;
        }
        x -= sizes[i];
    }
    Some(side)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::network::build::{crossbar, torus};
    use crate::network::NetworkBuilder;

    fn terminals_on_true(net: &Network, side: &[bool]) -> usize {
        net.terminals().iter().filter(|t| side[t.index()]).count()
    }

    #[test]
    fn trivial_and_formula_cases() {
        let b = bisection(&crossbar(1).unwrap());
        assert_eq!((b.width, b.exact, b.method.as_str()), (0, true, "trivial"));
        let b = bisection(&crossbar(9).unwrap());
        assert_eq!(
            (b.width, b.exact, b.method.as_str()),
            (4, true, "terminal-cut")
        );
        let net = torus(&[4, 6], 1).unwrap();
        let b = bisection(&net);
        assert_eq!((b.width, b.exact, b.method.as_str()), (8, true, "formula"));
        assert_eq!(cut_width(&net, &b.side), 8);
        assert_eq!(terminals_on_true(&net, &b.side), 12);
    }

    #[test]
    fn components_give_a_free_cut() {
        // Two crossbars of 3 and 5 terminals and one of 2: 5 = 3 + 2.
        let (mut b, _, t) = NetworkBuilder::with_default_classes("three");
        for n in [3, 5, 2] {
            let s = b.add_switch(format!("s{n}"), n);
            for i in 0..n {
                let h = b.add_terminal(format!("h{n}.{i}"), 1);
                b.connect_next(s, h, t).unwrap();
            }
        }
        let net = b.build().unwrap();
        let r = bisection(&net);
        assert_eq!(
            (r.width, r.exact, r.method.as_str()),
            (0, true, "components")
        );
        assert_eq!(terminals_on_true(&net, &r.side), 5);
    }

    #[test]
    fn heuristic_is_repeatable() {
        let mut b = torus(&[5, 3], 2).unwrap().to_builder();
        b.set_structure(crate::Structure::Irregular);
        let net = b.build().unwrap();
        let a = bisection(&net);
        assert_eq!(a, bisection(&net));
        assert_eq!(a.method, HEURISTIC);
        assert!(!a.exact && a.lower_bound.is_none());
        assert_eq!(cut_width(&net, &a.side), a.width);
        assert_eq!(terminals_on_true(&net, &a.side), 15);
    }
}
