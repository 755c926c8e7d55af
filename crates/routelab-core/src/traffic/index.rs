//! Permutations on the terminal index: the bit patterns (`T = 2^n`) and the
//! square-matrix transpose. Each returns a table `dst[src]`.

use super::TrafficError;

/// `n` with `t = 2^n`, or an error naming the nearest sizes that fit.
pub(crate) fn log2_exact(pattern: &str, t: usize) -> Result<u32, TrafficError> {
    if t.is_power_of_two() {
        return Ok(t.trailing_zeros());
    }
    let below = 1usize << (usize::BITS - 1 - t.max(1).leading_zeros());
    Err(TrafficError::does_not_fit(
        pattern,
        format!("{t} terminals"),
        format!(
            "a power of two (e.g. {below} or {}) because it acts on the index bits",
            below * 2
        ),
    ))
}

/// The side `m` of a square `n = m * m`, or an error naming `what` and the
/// nearest squares.
pub(crate) fn square_side(pattern: &str, n: usize, what: &str) -> Result<u32, TrafficError> {
    let mut m = (n as f64).sqrt() as usize;
    while m * m > n {
        m -= 1;
    }
    while (m + 1) * (m + 1) <= n {
        m += 1;
    }
    if m * m == n {
        return Ok(m as u32);
    }
    Err(TrafficError::does_not_fit(
        pattern,
        format!("{n} {what}"),
        format!(
            "a square number of {what} (e.g. {} or {}) to read as a matrix",
            m * m,
            (m + 1) * (m + 1)
        ),
    ))
}

fn table(bits: u32, f: impl Fn(u32) -> u32) -> Vec<u32> {
    (0..1u32 << bits).map(f).collect()
}

/// `s` with its `bits` low bits in reverse order.
pub(crate) fn bit_reverse(bits: u32) -> Vec<u32> {
    table(bits, |s| {
        if bits == 0 {
            s
        } else {
            s.reverse_bits() >> (32 - bits)
        }
    })
}

/// `s` with its `bits` low bits flipped.
pub(crate) fn bit_complement(bits: u32) -> Vec<u32> {
    let mask = (1u32 << bits) - 1;
    table(bits, |s| s ^ mask)
}

/// The perfect shuffle: `bits` low bits rotated left by one.
pub(crate) fn shuffle(bits: u32) -> Vec<u32> {
    let mask = (1u32 << bits) - 1;
    table(bits, |s| {
        if bits == 0 {
            s
        } else {
            ((s << 1) | (s >> (bits - 1))) & mask
        }
    })
}

/// Row-major transpose of an `m x m` matrix: `i * m + j -> j * m + i`.
pub(crate) fn transpose(m: u32) -> Vec<u32> {
    (0..m * m).map(|s| (s % m) * m + s / m).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bit_patterns_by_hand() {
        // 3 bits: 001 -> 100, 011 -> 110, 110 -> 011.
        assert_eq!(bit_reverse(3), [0, 4, 2, 6, 1, 5, 3, 7]);
        assert_eq!(bit_complement(3), [7, 6, 5, 4, 3, 2, 1, 0]);
        // 001 -> 010, 100 -> 001, 101 -> 011.
        assert_eq!(shuffle(3), [0, 2, 4, 6, 1, 3, 5, 7]);
        // 4 bits: 0100 -> 0010 (versaci2013's example).
        assert_eq!(bit_reverse(4)[0b0100], 0b0010);
        assert_eq!(bit_reverse(1), [0, 1]);
        assert_eq!(shuffle(1), [0, 1]);
    }

    #[test]
    fn transpose_by_hand() {
        // 3x3: (0,1) = 1 -> (1,0) = 3; (1,2) = 5 -> (2,1) = 7.
        assert_eq!(transpose(3), [0, 3, 6, 1, 4, 7, 2, 5, 8]);
    }

    #[test]
    fn sizes_that_do_not_fit_say_what_fits() {
        let e = log2_exact("bit-reverse", 12).unwrap_err().to_string();
        assert!(e.contains("12 terminals") && e.contains("8 or 16"), "{e}");
        assert_eq!(log2_exact("x", 16).unwrap(), 4);
        let e = square_side("transpose", 8, "terminals")
            .unwrap_err()
            .to_string();
        assert!(e.contains("8 terminals") && e.contains("4 or 9"), "{e}");
        assert_eq!(square_side("x", 49, "terminals").unwrap(), 7);
    }
}
