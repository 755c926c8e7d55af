//! Cycle search in a channel dependency graph, and cycle reports that name
//! switches and ports.
//!
//! The search is an iterative depth-first search (an explicit stack, no
//! recursion), so graphs with millions of nodes cannot overflow the stack.

use super::{Cdg, LaneChannel};
use crate::network::Network;

const WHITE: u8 = 0;
const GRAY: u8 = 1;
const BLACK: u8 = 2;

/// A cycle of `cdg`, if any: its nodes in dependency order (each depends on
/// the next; the last depends on the first).
pub fn find_cycle(cdg: &Cdg) -> Option<Vec<LaneChannel>> {
    let n = cdg.node_count();
    let mut color = vec![WHITE; n];
    // (node, index of the next successor to look at)
    let mut stack: Vec<(u32, u32)> = Vec::new();
    for root in 0..n as u32 {
        if color[root as usize] != WHITE || cdg.successors(root).is_empty() {
            continue;
        }
        color[root as usize] = GRAY;
        stack.push((root, 0));
        while let Some(top) = stack.last_mut() {
            let (u, k) = *top;
            let succ = cdg.successors(u);
            if (k as usize) < succ.len() {
                top.1 += 1;
                let v = succ[k as usize];
                match color[v as usize] {
                    WHITE => {
                        color[v as usize] = GRAY;
                        stack.push((v, 0));
                    }
                    GRAY => {
                        let from = stack.iter().rposition(|&(x, _)| x == v).unwrap_or(0);
                        return Some(
                            stack[from..]
                                .iter()
                                .map(|&(x, _)| cdg.lane_channel(x))
                                .collect(),
                        );
                    }
                    _ => {}
                }
            } else {
                color[u as usize] = BLACK;
                stack.pop();
            }
        }
    }
    None
}

/// A cycle in words: `"s3 port 2 -> s4 port 1 (lane 0); s4 port 3 -> ..."`,
/// one channel per item, each depending on the next and the last on the
/// first.
pub fn describe_cycle(net: &Network, cycle: &[LaneChannel]) -> String {
    let mut out = String::new();
    for (i, lc) in cycle.iter().enumerate() {
        if i > 0 {
            out.push_str("; ");
        }
        out.push_str(&describe_channel(net, *lc));
    }
    if !cycle.is_empty() {
        out.push_str("; back to the first");
    }
    out
}

/// One channel on a lane in words: `"s3 port 2 -> s4 port 1 (lane 0)"`.
pub fn describe_channel(net: &Network, lc: LaneChannel) -> String {
    let ch = net.channel(lc.channel);
    format!(
        "{} port {} -> {} port {} (lane {})",
        net.label(ch.src),
        ch.src_port.0,
        net.label(ch.dst),
        ch.dst_port.0,
        lc.lane
    )
}
