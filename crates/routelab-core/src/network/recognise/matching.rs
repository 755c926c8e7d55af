//! Matching one switch graph onto another: a backtracking search for an
//! isomorphism that keeps cable multiplicities, in the spirit of VF2.
//!
//! The pattern's nodes are taken in an order where each next node has as
//! many already-matched neighbours as possible, so that after the first
//! few choices (the symmetries of a torus or a tree) each node has one or
//! two candidates and the search runs in about O(cables x degree^2). A
//! node may only match a node of the same colour (degree, level, ...)
//! whose cables to matched nodes are the pattern's, one for one, and which
//! shares as many neighbours with each matched node two hops away; a
//! budget of candidate checks bounds the search on graphs that are not
//! alike.

use std::collections::BinaryHeap;

/// A switch graph: per node its neighbours with the number of cables to
/// each, sorted by neighbour, and a colour that matching nodes share.
#[derive(Debug, Clone)]
pub(crate) struct Graph<'a> {
    pub adj: &'a [Vec<(u32, u16)>],
    pub colour: Vec<u64>,
}

/// Why no match was found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum NoMatch {
    /// The graphs are not alike (the whole search space was tried).
    Different,
    /// The search ran out of its budget of candidate checks.
    GaveUp,
}

const NONE: u32 = u32::MAX;

impl Graph<'_> {
    /// Cables between `a` and `b`.
    fn cables(&self, a: u32, b: u32) -> u16 {
        let row = &self.adj[a as usize];
        row.binary_search_by_key(&b, |&(x, _)| x)
            .map_or(0, |i| row[i].1)
    }

    fn len(&self) -> usize {
        self.adj.len()
    }
}

/// The order the pattern's nodes are matched in: from node 0, always the
/// node with the most neighbours already ordered (ties: fewest hops from
/// node 0, then lowest index), with the neighbour it hangs off; with
/// `dense_first`, nodes of more neighbours before any of fewer (a
/// Megafly's spines before its leaves, which are interchangeable within a
/// group and would otherwise be permuted in vain behind a wrong spine).
/// `None` if the pattern is not connected.
fn matching_order(p: &Graph, dense_first: bool) -> Option<Vec<(u32, u32)>> {
    let n = p.len();
    if n == 0 {
        return Some(Vec::new());
    }
    let mut hops = vec![u32::MAX; n];
    let mut queue = std::collections::VecDeque::from([0u32]);
    hops[0] = 0;
    while let Some(x) = queue.pop_front() {
        for &(y, _) in &p.adj[x as usize] {
            if hops[y as usize] == u32::MAX {
                hops[y as usize] = hops[x as usize] + 1;
                queue.push_back(y);
            }
        }
    }
    if hops.contains(&u32::MAX) {
        return None;
    }
    let mut ordered_nbrs = vec![0u32; n];
    let mut parent = vec![NONE; n];
    let mut done = vec![false; n];
    let density = |y: usize| {
        if dense_first {
            p.adj[y].len() as u32
        } else {
            0
        }
    };
    let mut heap = BinaryHeap::from([(density(0), 0u32, std::cmp::Reverse((0u32, 0u32)))]);
    let mut order = Vec::with_capacity(n);
    while let Some((_, count, std::cmp::Reverse((_, x)))) = heap.pop() {
        let xi = x as usize;
        if done[xi] || count != ordered_nbrs[xi] {
            continue;
        }
        done[xi] = true;
        order.push((x, parent[xi]));
        for &(y, _) in &p.adj[xi] {
            let yi = y as usize;
            if !done[yi] {
                ordered_nbrs[yi] += 1;
                if parent[yi] == NONE {
                    parent[yi] = x;
                }
                heap.push((
                    density(yi),
                    ordered_nbrs[yi],
                    std::cmp::Reverse((hops[yi], y)),
                ));
            }
        }
    }
    Some(order)
}

/// A map of every pattern node onto a target node (`map[p] = t`) that
/// keeps colours and cables, or why there is none. The pattern's node 0 is
/// matched with the first target node of its colour only: the callers'
/// families look alike from every such node (tori and hypercubes from
/// every switch, meshes from every corner, fat trees from every leaf).
pub(crate) fn find_map(p: &Graph, t: &Graph, budget: u64) -> Result<Vec<u32>, NoMatch> {
    find_map_from(p, t, budget, false)
}

/// [`find_map`], trying the pattern's node 0 on every target node of its
/// colour in turn when `every_anchor` (families whose nodes of one colour
/// do not all look alike: a dragonfly's groups in the absolute
/// arrangement, a Slim Fly's two kinds of routers).
pub(crate) fn find_map_from(
    p: &Graph,
    t: &Graph,
    budget: u64,
    every_anchor: bool,
) -> Result<Vec<u32>, NoMatch> {
    let n = p.len();
    if n != t.len() {
        return Err(NoMatch::Different);
    }
    if n == 0 {
        return Ok(Vec::new());
    }
    let mut pc = p.colour.clone();
    let mut tc = t.colour.clone();
    pc.sort_unstable();
    tc.sort_unstable();
    if pc != tc {
        return Err(NoMatch::Different);
    }
    let order = matching_order(p, every_anchor).ok_or(NoMatch::Different)?;
    let mut s = Search {
        map: vec![NONE; n],
        used: vec![false; n],
        pattern_hops: TwoHop::new(n),
        target_hops: TwoHop::new(n),
    };
    // Per depth: the candidates, the next one to try, the one taken.
    let anchors: Vec<u32> = (0..n as u32)
        .filter(|&x| t.colour[x as usize] == p.colour[0])
        .take(if every_anchor { n } else { 1 })
        .collect();
    if anchors.is_empty() {
        return Err(NoMatch::Different);
    }
    let mut cands: Vec<Vec<u32>> = vec![anchors];
    let mut next: Vec<usize> = vec![0];
    let mut checks = 0u64;
    loop {
        let depth = cands.len() - 1;
        let (x, _) = order[depth];
        let xi = x as usize;
        if s.map[xi] != NONE {
            s.used[s.map[xi] as usize] = false;
            s.map[xi] = NONE;
        }
        let mut found = None;
        while next[depth] < cands[depth].len() {
            let c = cands[depth][next[depth]];
            next[depth] += 1;
            checks += 1;
            if checks > budget {
                return Err(NoMatch::GaveUp);
            }
            if fits(p, t, &mut s, x, c) {
                found = Some(c);
                break;
            }
        }
        let Some(c) = found else {
            cands.pop();
            next.pop();
            if cands.is_empty() {
                return Err(NoMatch::Different);
            }
            continue;
        };
        s.map[xi] = c;
        s.used[c as usize] = true;
        if depth + 1 == n {
            return Ok(s.map);
        }
        let (y, parent) = order[depth + 1];
        let anchor = s.map[parent as usize];
        let colour = p.colour[y as usize];
        cands.push(
            t.adj[anchor as usize]
                .iter()
                .map(|&(z, _)| z)
                .filter(|&z| !s.used[z as usize] && t.colour[z as usize] == colour)
                .collect(),
        );
        next.push(0);
    }
}

/// Scratch counters for [`fits`]: per node, common neighbours with the
/// node being placed, valid while its stamp is the current one.
struct TwoHop {
    count: Vec<u32>,
    stamp: Vec<u32>,
    now: u32,
    seen: Vec<u32>,
}

impl TwoHop {
    fn new(n: usize) -> Self {
        TwoHop {
            count: vec![0; n],
            stamp: vec![0; n],
            now: 0,
            seen: Vec::new(),
        }
    }

    /// Counts, for every matched node two hops from `x` in `g`, the
    /// neighbours it shares with `x`; lists them in `seen`.
    fn around(&mut self, g: &Graph, x: u32, matched: impl Fn(u32) -> bool) {
        self.now += 1;
        self.seen.clear();
        for &(z, _) in &g.adj[x as usize] {
            for &(y, _) in &g.adj[z as usize] {
                if y == x || !matched(y) {
                    continue;
                }
                let yi = y as usize;
                if self.stamp[yi] != self.now {
                    self.stamp[yi] = self.now;
                    self.count[yi] = 0;
                    self.seen.push(y);
                }
                self.count[yi] += 1;
            }
        }
    }

    fn get(&self, y: u32) -> u32 {
        let yi = y as usize;
        if self.stamp[yi] == self.now {
            self.count[yi]
        } else {
            0
        }
    }
}

/// Whether pattern node `x` may match target node `c`: same colour, the
/// same cables to every matched neighbour, no cable to a matched node the
/// pattern lacks, and as many common neighbours (matched or not) with
/// every matched node two hops away. The last check sees what one hop
/// cannot: two switches of one fat-tree pod share their leaves before
/// those leaves are matched.
fn fits(p: &Graph, t: &Graph, s: &mut Search, x: u32, c: u32) -> bool {
    let (map, used) = (&s.map, &s.used);
    if used[c as usize] || p.colour[x as usize] != t.colour[c as usize] {
        return false;
    }
    let mut matched = 0usize;
    for &(y, k) in &p.adj[x as usize] {
        let m = map[y as usize];
        if m != NONE {
            if t.cables(c, m) != k {
                return false;
            }
            matched += 1;
        }
    }
    let target_matched = t.adj[c as usize]
        .iter()
        .filter(|&&(z, _)| used[z as usize])
        .count();
    if matched != target_matched {
        return false;
    }
    s.pattern_hops.around(p, x, |y| map[y as usize] != NONE);
    s.target_hops.around(t, c, |y| used[y as usize]);
    s.pattern_hops.seen.len() == s.target_hops.seen.len()
        && s.pattern_hops
            .seen
            .iter()
            .all(|&y| s.target_hops.get(map[y as usize]) == s.pattern_hops.get(y))
}

/// The state of a search: the map so far and the two-hop counters.
struct Search {
    map: Vec<u32>,
    used: Vec<bool>,
    pattern_hops: TwoHop,
    target_hops: TwoHop,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A graph from an edge list (each edge one cable), coloured by degree.
    fn graph(n: usize, edges: &[(u32, u32)]) -> Graph<'static> {
        let mut adj: Vec<Vec<(u32, u16)>> = vec![Vec::new(); n];
        for &(a, b) in edges {
            for (x, y) in [(a, b), (b, a)] {
                let row = &mut adj[x as usize];
                match row.iter_mut().find(|(z, _)| *z == y) {
                    Some(e) => e.1 += 1,
                    None => row.push((y, 1)),
                }
            }
        }
        for row in &mut adj {
            row.sort_unstable();
        }
        let colour = adj
            .iter()
            .map(|r| r.iter().map(|&(_, k)| u64::from(k)).sum())
            .collect();
        // Leaked: a few bytes per test, so the graph may borrow them.
        Graph {
            adj: Box::leak(adj.into_boxed_slice()),
            colour,
        }
    }

    fn ring(n: u32) -> Vec<(u32, u32)> {
        (0..n).map(|i| (i, (i + 1) % n)).collect()
    }

    fn check(p: &Graph, t: &Graph, map: &[u32]) {
        for (a, row) in p.adj.iter().enumerate() {
            for &(b, k) in row {
                assert_eq!(t.cables(map[a], map[b as usize]), k);
            }
        }
        let mut seen = map.to_vec();
        seen.sort_unstable();
        seen.dedup();
        assert_eq!(seen.len(), map.len());
    }

    #[test]
    fn a_relabelled_ring_matches_and_a_path_does_not() {
        let p = graph(6, &ring(6));
        // The same ring, nodes renamed by x -> 5x mod 6.
        let edges: Vec<(u32, u32)> = ring(6)
            .iter()
            .map(|&(a, b)| (5 * a % 6, 5 * b % 6))
            .collect();
        let t = graph(6, &edges);
        let map = find_map(&p, &t, 1000).unwrap();
        check(&p, &t, &map);
        // Two triangles have the same degrees as a 6-ring but are not one.
        let two = graph(6, &[(0, 1), (1, 2), (2, 0), (3, 4), (4, 5), (5, 3)]);
        assert_eq!(find_map(&p, &two, 1000), Err(NoMatch::Different));
        assert_eq!(find_map(&two, &p, 1000), Err(NoMatch::Different));
    }

    #[test]
    fn multiplicities_must_agree() {
        let single = graph(3, &[(0, 1), (1, 2), (2, 0)]);
        let doubled = graph(3, &[(0, 1), (0, 1), (1, 2)]);
        assert!(find_map(&single, &doubled, 100).is_err());
        let again = graph(3, &[(2, 1), (1, 0), (2, 1)]);
        let map = find_map(&doubled, &again, 100).unwrap();
        check(&doubled, &again, &map);
    }

    #[test]
    fn the_budget_stops_the_search() {
        let p = graph(6, &ring(6));
        let t = graph(6, &[(0, 1), (1, 2), (2, 0), (3, 4), (4, 5), (5, 3)]);
        assert_eq!(find_map(&p, &t, 2), Err(NoMatch::GaveUp));
    }
}
