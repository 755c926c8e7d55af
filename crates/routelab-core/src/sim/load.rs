//! Load units: the cycle, and what 1.0 means in each unit.

use super::error::{ConfigError, SimError};
use crate::network::metrics::bisection;
use crate::network::Network;

/// The first terminal's injection channel, if it has one.
fn injection_class(net: &Network) -> Option<&crate::network::ChannelClass> {
    let t = *net.terminals().first()?;
    let c = net
        .out_channels(t)
        .iter()
        .find(|&&c| net.is_switch(net.channel(c).dst))?;
    Some(net.class(net.channel(*c).class))
}

/// One cycle: the serialisation of one flit on the first terminal's
/// injection channel, in picoseconds.
pub fn cycle_ps(net: &Network, flit_bytes: u32) -> Result<u64, SimError> {
    let class = injection_class(net).ok_or_else(|| {
        SimError::from(ConfigError::invalid(
            "network.topology",
            net.name(),
            "a network whose terminals hang off switches",
        ))
    })?;
    Ok(class
        .bandwidth
        .serialization_ps(u64::from(flit_bytes))
        .max(1))
}

/// versaci2013's unit of load, in bits per second per terminal: the rate
/// at which uniform traffic saturates the bisection. With `N` terminals
/// split in halves, a fraction `(N/2) / (N - 1)` of each one's uniform
/// traffic crosses, so the `W` cut cables of bandwidth `B` (the slowest
/// cut channel) each way saturate at `4 (N - 1) W B / N^2` per terminal.
pub fn gamma0_bps(net: &Network) -> Result<f64, SimError> {
    let n = net.terminals().len() as f64;
    let b = bisection(net);
    let slowest = net
        .channels()
        .iter()
        .filter(|c| b.side[c.src.index()] != b.side[c.dst.index()])
        .map(|c| net.class(c.class).bandwidth.0)
        .min();
    match slowest {
        Some(bw) if n >= 2.0 && b.width > 0 => {
            Ok(4.0 * (n - 1.0) * b.width as f64 * bw as f64 / (n * n))
        }
        _ => Err(ConfigError::invalid(
            "traffic.load_unit",
            "bisection",
            "a connected network with at least two terminals",
        )
        .into()),
    }
}

/// Bits per second per terminal to flits per cycle.
pub fn bps_to_flits(bps: f64, flit_bytes: u32, cycle_ps: u64) -> f64 {
    bps * cycle_ps as f64 * 1e-12 / (8.0 * f64::from(flit_bytes))
}

/// Flits per cycle to Gb/s (per terminal, or in total).
pub fn flits_to_gbps(flits: f64, flit_bytes: u32, cycle_ps: u64) -> f64 {
    flits * 8.0 * f64::from(flit_bytes) / cycle_ps as f64 * 1000.0
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::network::build::torus::torus;

    #[test]
    fn gamma0_of_a_torus() {
        // 8x8x8 torus: bisection 2 * 8 * 8 = 128 cables of 20 Gb/s.
        let net = torus(&[8, 8, 8], 1).unwrap();
        let g = gamma0_bps(&net).unwrap();
        let expect = 4.0 * 511.0 * 128.0 * 20e9 / (512.0 * 512.0);
        assert!((g - expect).abs() < 1.0, "{g} vs {expect}");
        let cyc = cycle_ps(&net, 16).unwrap();
        assert_eq!(cyc, 6400);
        assert!((flits_to_gbps(bps_to_flits(7e9, 16, cyc), 16, cyc) - 7.0).abs() < 1e-9);
    }
}
