//! The deadlock watchdog's report: a cycle of input buffers each waiting
//! for the next.
//!
//! When nothing has moved for `run.watchdog_cycles` while packets are in
//! the network (or no event is left at all), the run stops. Every
//! non-empty input buffer then waits for others: a packet holding an
//! output VC without credits waits for the buffer downstream; a head
//! without an output waits, for each of its candidates, for the buffer
//! holding that VC or, if the VC is free but short of credits, for the
//! buffer downstream. A depth-first search over these waits finds a cycle.

use super::error::{DeadlockInfo, SimError};
use super::packet::NONE;
use super::state::View;
use crate::network::{NodeId, PortId};
use crate::routing::adaptive::{Here, RouterCtx};

impl super::state::Sim<'_> {
    /// The waits of buffer `iv`, appended to `out`.
    pub(super) fn waits(&mut self, iv: u32, out: &mut Vec<u32>) {
        let b = self.vc[iv as usize];
        if b.len == 0 {
            return;
        }
        let downstream = |s: &Self, oi: u32| -> Option<u32> {
            let och = s.p.ch_of(oi);
            (s.ch[och as usize].receiver_term() == NONE).then_some(oi)
        };
        if b.alloc != NONE {
            if self.vc[b.alloc as usize].credits_at(self.now) == 0 {
                out.extend(downstream(self, b.alloc));
            }
            return;
        }
        if b.front_sent != 0 {
            return;
        }
        let hdr = self.pk.hdr[b.front as usize];
        let k = self.ch[self.p.ch_of(iv) as usize];
        let sw = k.rx_sw;
        let ports = self.out_ports(sw);
        let here = Here {
            switch: NodeId(self.switches[sw as usize].node),
            switch_index: sw,
            in_port: PortId(k.in_port),
            in_vc: self.p.vc_of(iv),
            vcs: self.p.vcs as u8,
            now_ps: self.now,
        };
        let mut rng = self.sw_rng[sw as usize].clone();
        let mut counters = vec![0; self.counters.len()];
        let (base, nports) = (ports.start, ports.len());
        self.cands.clear();
        {
            let view = View {
                now: self.now,
                vcs: self.p.vcs,
                vshift: self.p.vshift,
                capacity: self.p.buf,
                port_ch: &self.port_ch[base..base + nports],
                vc: &self.vc,
                ch: &self.ch,
                waiters: &self.waiters,
            };
            let mut ctx = RouterCtx::new(&mut rng, &mut counters);
            self.router
                .route_in(&hdr, &here, &view, &mut ctx, &mut self.cands);
        }
        for k in 0..self.cands.len() {
            let cand = self.cands.as_slice()[k];
            let p = usize::from(cand.port.0).wrapping_sub(1);
            if p >= nports {
                continue;
            }
            let och = self.port_ch[base + p];
            if och == NONE || usize::from(cand.vc) >= self.p.vcs {
                continue;
            }
            let oi = self.p.iv(och, u32::from(cand.vc));
            let h = self.vc[oi as usize].held;
            if h != NONE {
                out.push(h);
            } else {
                out.extend(downstream(self, oi));
            }
        }
    }

    /// Stops the run: what the watchdog saw.
    pub(super) fn deadlock(&mut self) -> SimError {
        let n = self.vc.len();
        // Wait graph (CSR) over non-empty buffers.
        let mut start = vec![0u32; n + 1];
        let mut edges = Vec::new();
        let mut tmp = Vec::new();
        for iv in 0..n as u32 {
            tmp.clear();
            self.waits(iv, &mut tmp);
            tmp.retain(|&w| self.vc[w as usize].len > 0);
            edges.extend_from_slice(&tmp);
            start[iv as usize + 1] = edges.len() as u32;
        }
        let cycle = find_cycle(&start, &edges);
        SimError::Deadlock(Box::new(DeadlockInfo {
            time_ps: self.now,
            idle_ps: self.now - self.last_progress,
            packets_in_network: self.in_net,
            cycle: cycle.into_iter().map(|b| self.describe_buffer(b)).collect(),
        }))
    }
}

/// A cycle in a graph given as CSR (`start` has one entry per node plus
/// one), by iterative depth-first search; empty if acyclic.
pub(super) fn find_cycle(start: &[u32], edges: &[u32]) -> Vec<u32> {
    let n = start.len() - 1;
    // 0 unseen, 1 on the stack, 2 done.
    let mut color = vec![0u8; n];
    let mut stack: Vec<(u32, u32)> = Vec::new();
    for root in 0..n as u32 {
        if color[root as usize] != 0 || start[root as usize] == start[root as usize + 1] {
            continue;
        }
        stack.push((root, start[root as usize]));
        color[root as usize] = 1;
        while let Some(top) = stack.last_mut() {
            let u = top.0;
            if top.1 < start[u as usize + 1] {
                let w = edges[top.1 as usize];
                top.1 += 1;
                match color[w as usize] {
                    0 => {
                        color[w as usize] = 1;
                        stack.push((w, start[w as usize]));
                    }
                    1 => {
                        let pos = stack.iter().position(|&(x, _)| x == w).expect("on stack");
                        return stack[pos..].iter().map(|&(x, _)| x).collect();
                    }
                    _ => {}
                }
            } else {
                color[u as usize] = 2;
                stack.pop();
            }
        }
    }
    Vec::new()
}

#[cfg(test)]
mod tests {
    use super::find_cycle;

    #[test]
    fn finds_a_cycle_or_none() {
        // 0 -> 1 -> 2 -> 1, 3 isolated.
        let start = [0, 1, 2, 3, 3];
        let edges = [1, 2, 1];
        assert_eq!(find_cycle(&start, &edges), vec![1, 2]);
        // 0 -> 1 -> 2.
        let start = [0, 1, 2, 2];
        let edges = [1, 2];
        assert!(find_cycle(&start, &edges).is_empty());
    }
}
