//! Switch coordinates of tori, meshes, hypercubes and HyperX networks, and the patterns that
//! move them. A pattern maps switches; a terminal keeps its slot on its switch
//! (terminal `s * c + j -> s' * c + j`), so the switch-level traffic is the
//! same for any concentration `c`.

use super::{index, TrafficError};
use crate::network::build::torus::{coords, switch_at};
use crate::network::{Network, Structure};

/// A mixed-radix grid of switches (dimension 0 fastest) with `c` terminals on
/// each; a hypercube is the grid `2 x 2 x ... x 2`.
pub(crate) struct Grid {
    dims: Vec<u32>,
    c: u32,
}

impl Grid {
    /// The grid of `net`, if it has one whose terminal count matches.
    pub(crate) fn try_of(net: &Network) -> Option<Grid> {
        let grid = match net.structure() {
            Structure::Torus {
                dims,
                concentration,
                ..
            } => Grid {
                dims: dims.clone(),
                c: *concentration,
            },
            Structure::Hypercube { n, concentration } => Grid {
                dims: vec![2; *n as usize],
                c: *concentration,
            },
            // Numbered as tori are: mixed radix, terminal i on switch i / c.
            Structure::HyperX {
                sides,
                concentration,
                ..
            } => Grid {
                dims: sides.clone(),
                c: *concentration,
            },
            _ => return None,
        };
        let terminals = u64::from(grid.switches()) * u64::from(grid.c);
        (terminals == net.terminals().len() as u64).then_some(grid)
    }

    /// The grid of `net`, or an error saying `pattern` needs one.
    pub(crate) fn of(net: &Network, pattern: &str) -> Result<Grid, TrafficError> {
        Grid::try_of(net).ok_or_else(|| TrafficError::NeedsCoordinates {
            pattern: pattern.to_string(),
            network: net.name().to_string(),
            family: net.structure().family().to_string(),
        })
    }

    fn switches(&self) -> u32 {
        self.dims.iter().product()
    }

    /// The terminal table of a map on switch indices.
    fn lift(&self, f: impl Fn(u32) -> u32) -> Vec<u32> {
        let c = self.c;
        (0..self.switches())
            .flat_map(|s| {
                let d = f(s);
                (0..c).map(move |j| d * c + j)
            })
            .collect()
    }

    /// The terminal table of a map on switch coordinates; `f` rewrites them
    /// in place and must keep each one below its `k`.
    fn map_coords(&self, f: impl Fn(&mut [u32])) -> Vec<u32> {
        self.lift(|s| {
            let mut x = coords(&self.dims, s);
            f(&mut x);
            switch_at(&self.dims, &x)
        })
    }
}

/// Every coordinate `x -> (x + ceil(k/2) - 1) mod k`.
pub(crate) fn tornado(grid: &Grid, net: &Network) -> Result<Vec<u32>, TrafficError> {
    let shift: Vec<u32> = grid.dims.iter().map(|&k| k.div_ceil(2) - 1).collect();
    if shift.iter().all(|&s| s == 0) {
        return Err(TrafficError::does_not_fit(
            "tornado",
            format!("'{}'", net.name()),
            "some dimension with k >= 3 (its offset ceil(k/2) - 1 is 0 when k = 2)",
        ));
    }
    Ok(grid.map_coords(|x| {
        for ((x, &s), &k) in x.iter_mut().zip(&shift).zip(&grid.dims) {
            *x = (*x + s) % k;
        }
    }))
}

/// Every coordinate `x -> (x + 1) mod k`.
pub(crate) fn neighbor(grid: &Grid) -> Vec<u32> {
    grid.map_coords(|x| {
        for (x, &k) in x.iter_mut().zip(&grid.dims) {
            *x = (*x + 1) % k;
        }
    })
}

/// `(x, y, z) -> (y, z, x)` on a `k x k x k` grid.
pub(crate) fn rotate3d(grid: &Grid, net: &Network) -> Result<Vec<u32>, TrafficError> {
    let d = &grid.dims;
    if d.len() != 3 || d[0] != d[1] || d[1] != d[2] {
        return Err(TrafficError::does_not_fit(
            "rotate3d",
            format!("'{}' (dimensions {d:?})", net.name()),
            "three dimensions of equal size k x k x k",
        ));
    }
    Ok(grid.map_coords(|x| x.rotate_left(1)))
}

/// `(x, y) -> (y, x)` on a `k x k` grid; on other grids the switch index as
/// a square matrix.
pub(crate) fn transpose(grid: &Grid, net: &Network) -> Result<Vec<u32>, TrafficError> {
    let d = &grid.dims;
    if d.len() == 2 && d[0] != d[1] {
        return Err(TrafficError::does_not_fit(
            "transpose",
            format!("'{}' ({}x{})", net.name(), d[0], d[1]),
            "a square k x k shape",
        ));
    }
    // On a k x k grid, switch y * k + x is row y, column x of a k x k matrix.
    let m = index::square_side("transpose", grid.switches() as usize, "switches")?;
    let table = index::transpose(m);
    Ok(grid.lift(|s| table[s as usize]))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::network::spec::build;

    fn grid(spec: &str) -> (Grid, Network) {
        let net = build(spec).unwrap();
        (Grid::try_of(&net).unwrap(), net)
    }

    #[test]
    fn coordinate_maps_by_hand() {
        // 4x4: switch s = x + 4y. Tornado offset 1: (3,0) = 3 -> (0,1) = 4.
        let (g, net) = grid("torus:4x4");
        assert_eq!(tornado(&g, &net).unwrap()[3], 4);
        // Neighbor: (3,3) = 15 -> (0,0).
        assert_eq!(neighbor(&g)[15], 0);
        // Transpose: (1,2) = 9 -> (2,1) = 6.
        assert_eq!(transpose(&g, &net).unwrap()[9], 6);
    }

    #[test]
    fn concentration_keeps_the_slot() {
        // 4x4, c = 2: terminal 2 * 9 + 1 (switch (1,2), slot 1) -> 2 * 6 + 1.
        let (g, net) = grid("torus:4x4,c=2");
        assert_eq!(transpose(&g, &net).unwrap()[19], 13);
    }

    #[test]
    fn rotate3d_moves_coordinates() {
        // 3x3x3: (x,y,z) = (1,2,0) = 1 + 3*2 = 7 -> (2,0,1) = 2 + 9 = 11.
        let (g, net) = grid("torus:3x3x3");
        assert_eq!(rotate3d(&g, &net).unwrap()[7], 11);
        let (g, net) = grid("torus:4x4x2");
        let e = rotate3d(&g, &net).unwrap_err().to_string();
        assert!(e.contains("k x k x k") && e.contains("[4, 4, 2]"), "{e}");
    }

    #[test]
    fn tornado_needs_some_k_above_two() {
        let (g, net) = grid("hypercube:3");
        let e = tornado(&g, &net).unwrap_err().to_string();
        assert!(e.contains("k >= 3"), "{e}");
    }

    #[test]
    fn hypercube_transpose_swaps_bit_halves() {
        let (g, net) = grid("hypercube:4");
        assert_eq!(transpose(&g, &net).unwrap()[0b0001], 0b0100);
        let (g, net) = grid("hypercube:3");
        assert!(transpose(&g, &net).is_err());
    }
}
