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
use super::router::{Here, RouterCtx};
use crate::network::ChannelId;

impl super::state::Sim<'_> {
    /// The waits of buffer `iv`, appended to `out`.
    fn waits(&mut self, iv: u32, out: &mut Vec<u32>) {
        let v = self.p.vcs as u32;
        let i = iv as usize;
        if self.ivc[i].len == 0 {
            return;
        }
        let downstream = |s: &Self, oi: u32| -> Option<u32> {
            let och = oi / v;
            (s.links.to_term[och as usize] == NONE).then_some(oi)
        };
        let a = self.ivc[i].alloc;
        if a != NONE {
            if self.links.credits[a as usize] == 0 {
                out.extend(downstream(self, a));
            }
            return;
        }
        if self.ivc[i].front_sent != 0 {
            return;
        }
        let pkt = self.buf[i * self.p.buf as usize + self.ivc[i].head as usize];
        let hdr = self.pk.hdr[pkt as usize];
        let c = self.net.channel(ChannelId(iv / v));
        let node = c.dst;
        let sw = self.net.kind_index(node);
        let here = Here {
            switch: node,
            switch_index: sw as u32,
            in_port: c.dst_port,
            in_vc: (iv % v) as u8,
            now_ps: self.now,
        };
        let mut rng = self.sw_rng[sw].clone();
        let mut counters = vec![0; self.counters.len()];
        self.cands.clear();
        {
            let router = self.router;
            let (a, b) = (
                self.port_base[node.index()] as usize,
                self.port_base[node.index() + 1] as usize,
            );
            let view = super::router::LocalView {
                now: self.now,
                vcs: self.p.vcs,
                capacity: self.p.buf,
                port_ch: &self.port_ch[a..b],
                credits: &self.links.credits,
                held: &self.links.held,
                busy: &self.links.busy,
            };
            let mut ctx = RouterCtx {
                rng: &mut rng,
                counters: &mut counters,
            };
            router.route(&hdr, &here, &view, &mut ctx, &mut self.cands);
        }
        let base = self.port_base[node.index()] as usize;
        for k in 0..self.cands.items.len() {
            let cand = self.cands.items[k];
            let end = self.port_base[node.index() + 1] as usize;
            let Some(och) = usize::from(cand.port.0)
                .checked_sub(1)
                .filter(|p| base + p < end)
                .map(|p| self.port_ch[base + p])
            else {
                continue;
            };
            if och == NONE || usize::from(cand.vc) >= self.p.vcs {
                continue;
            }
            let oi = och * v + u32::from(cand.vc);
            let h = self.links.held[oi as usize];
            if h != NONE {
                out.push(h);
            } else {
                out.extend(downstream(self, oi));
            }
        }
    }

    /// Stops the run: what the watchdog saw.
    pub(super) fn deadlock(&mut self) -> SimError {
        let n = self.ivc.len();
        // Wait graph (CSR) over non-empty buffers.
        let mut start = vec![0u32; n + 1];
        let mut edges = Vec::new();
        let mut tmp = Vec::new();
        for iv in 0..n as u32 {
            tmp.clear();
            self.waits(iv, &mut tmp);
            tmp.retain(|&w| self.ivc[w as usize].len > 0);
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
fn find_cycle(start: &[u32], edges: &[u32]) -> Vec<u32> {
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
