//! InfiniBand link speed strings (`4xQDR`, `4xEDR`, ...) and the data rate
//! each stands for.
//!
//! The rate is the *data* rate after line encoding (8b/10b up to QDR,
//! 64b/66b from FDR10), since that is what a flow can use: `4xQDR` is
//! 32Gb/s (40Gb/s signalling), `4xFDR` 54.5Gb/s (56Gb/s signalling).

use crate::units::Bandwidth;

/// Per-lane data rate of each speed as `numerator / denominator` bits/s.
const SPEEDS: &[(&str, u64, u64)] = &[
    ("SDR", 2_000_000_000, 1),        // 2.5Gb/s, 8b/10b
    ("DDR", 4_000_000_000, 1),        // 5Gb/s, 8b/10b
    ("QDR", 8_000_000_000, 1),        // 10Gb/s, 8b/10b
    ("FDR10", 10_000_000_000, 1),     // 10.3125Gb/s, 64b/66b
    ("FDR", 14_062_500_000 * 64, 66), // 14.0625Gb/s, 64b/66b
    ("EDR", 25_000_000_000, 1),       // 25.78125Gb/s, 64b/66b
    ("HDR", 50_000_000_000, 1),       // 53.125Gb/s PAM4
    ("NDR", 100_000_000_000, 1),      // 106.25Gb/s PAM4
    ("XDR", 200_000_000_000, 1),      // 212.5Gb/s PAM4
];

/// Link widths (lanes) InfiniBand defines.
const WIDTHS: &[u64] = &[1, 2, 4, 8, 12];

/// The data rate of a speed string such as `4xQDR` (case-insensitive), or
/// `None` when it is not one.
pub(crate) fn data_rate(token: &str) -> Option<Bandwidth> {
    let (width, speed) = token.split_once(['x', 'X'])?;
    if width.is_empty() || !width.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let width: u64 = width.parse().ok()?;
    if !WIDTHS.contains(&width) {
        return None;
    }
    let &(_, num, den) = SPEEDS
        .iter()
        .find(|(name, _, _)| name.eq_ignore_ascii_case(speed))?;
    Some(Bandwidth(width * num / den))
}

/// The width and speed (`4xDDR`) nearest to `bw` in data rate, among the
/// speeds ibsim brings links up at: 4x, or 1x below 4xSDR and 12x above
/// 4xHDR.
pub(crate) fn nearest_word(bw: Bandwidth) -> String {
    let width = if bw.0 < 8_000_000_000 {
        1
    } else if bw.0 > 200_000_000_000 {
        12
    } else {
        4
    };
    let mut best: Option<(f64, &str)> = None;
    for &(name, num, den) in SPEEDS {
        if matches!(name, "FDR10" | "NDR" | "XDR") {
            continue;
        }
        let rate = (width * num / den) as f64;
        let off = (rate / bw.0.max(1) as f64).ln().abs();
        if best.is_none_or(|(b, _)| off < b - 1e-9) {
            best = Some((off, name));
        }
    }
    format!("{width}x{}", best.map_or("SDR", |(_, n)| n))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn common_speeds() {
        let gb = |t: &str| data_rate(t).map(|b| b.0);
        assert_eq!(gb("4xSDR"), Some(8_000_000_000));
        assert_eq!(gb("4xDDR"), Some(16_000_000_000));
        assert_eq!(gb("4xQDR"), Some(32_000_000_000));
        assert_eq!(gb("4xFDR10"), Some(40_000_000_000));
        assert_eq!(gb("4xFDR"), Some(54_545_454_545));
        assert_eq!(gb("4xEDR"), Some(100_000_000_000));
        assert_eq!(gb("4xHDR"), Some(200_000_000_000));
        assert_eq!(gb("1xSDR"), Some(2_000_000_000));
        assert_eq!(gb("12xqdr"), Some(96_000_000_000));
    }

    #[test]
    fn not_speeds() {
        for t in [
            "4x???", "3xQDR", "QDR", "x", "4x", "xQDR", "switch", "+4xQDR",
        ] {
            assert_eq!(data_rate(t), None, "{t}");
        }
    }

    #[test]
    fn nearest_words() {
        assert_eq!(nearest_word(Bandwidth(20_000_000_000)), "4xDDR");
        assert_eq!(nearest_word(Bandwidth(100_000_000_000)), "4xEDR");
        assert_eq!(nearest_word(Bandwidth(32_000_000_000)), "4xQDR");
        assert_eq!(nearest_word(Bandwidth(2_000_000_000)), "1xSDR");
    }
}
