//! Minimal adaptive routing on meshes and tori with a dimension-order
//! escape channel (Duato's protocol).
//!
//! VCs `0..E` of every port form the escape network and the rest are
//! adaptive (`E` = 2 on a torus, 1 on a mesh; at least one adaptive VC).
//! A head may take any adaptive VC of any port that brings it closer to
//! its target (both ways round a ring at distance k/2), preferred;
//! otherwise the escape VC of the dimension-order port (the lowest
//! dimension still to correct, the shorter way, `+` on a tie). On a torus
//! the escape VC is 0 while the rest of the packet's way along that
//! dimension still crosses the wraparound link (the dateline) and 1 once
//! it does not, so each escape ring is acyclic; dimension order makes the
//! escape network acyclic across dimensions, and since every packet can
//! always request its escape VC, the escape network stays reachable from
//! any adaptive VC (Duato's condition) and routing is deadlock-free.
//!
//! Counter `escape_hops`: hops taken on an escape VC.

use super::{
    check_torus_terminals, AnyRouter, BuildRouter, Candidate, Candidates, Header, Here, HopRouter,
    LocalView, RouterCtx, RouterOptions,
};
use crate::network::build::torus::dim_port;
use crate::network::{ChannelId, Network, PortId, Structure};
use crate::routing::RoutingError;

/// Duato's minimal adaptive router. See the module docs.
pub struct DuatoRouter {
    dims: Vec<u32>,
    wrap: bool,
    concentration: u32,
    escape: u8,
}

impl BuildRouter for DuatoRouter {
    fn build(net: &Network, opts: &RouterOptions) -> Result<AnyRouter, RoutingError> {
        opts.only(&[])?;
        Ok(AnyRouter::Duato(DuatoRouter::new(net)?))
    }
}

impl DuatoRouter {
    pub fn new(net: &Network) -> Result<Self, RoutingError> {
        let Structure::Torus {
            dims,
            wrap,
            concentration,
        } = net.structure()
        else {
            return Err(RoutingError::Unfit {
                engine: "duato",
                needs: "a torus or mesh (coordinates)".into(),
                network: net.name().to_string(),
                found: format!("a {}", net.structure().family()),
            });
        };
        check_torus_terminals(net, "duato", dims.len(), *concentration)?;
        Ok(DuatoRouter {
            dims: dims.clone(),
            wrap: *wrap,
            concentration: (*concentration).max(1),
            escape: if *wrap { 2 } else { 1 },
        })
    }

    #[inline]
    fn adaptive(&self, port: PortId, vcs: u8, out: &mut Candidates) {
        for v in self.escape..vcs {
            out.push(port, v);
        }
    }
}

impl HopRouter for DuatoRouter {
    fn name(&self) -> &str {
        "duato"
    }

    fn reads_view(&self) -> bool {
        false
    }

    fn vcs_needed(&self) -> u8 {
        self.escape + 1
    }

    fn counters(&self) -> Vec<String> {
        vec!["escape_hops".into()]
    }

    fn route(
        &self,
        hdr: &Header,
        here: &Here,
        _view: &dyn LocalView,
        _ctx: &mut RouterCtx,
        out: &mut Candidates,
    ) {
        let vcs = here.vcs;
        let n = self.dims.len() as u16;
        let target_switch = hdr.target / self.concentration;
        if here.switch_index == target_switch {
            let port = PortId(2 * n + 1 + (hdr.target % self.concentration) as u16);
            for v in 0..vcs {
                out.push(port, v);
            }
            return;
        }
        let (mut a, mut b) = (here.switch_index, target_switch);
        let mut escaped = false;
        for (d, &k) in self.dims.iter().enumerate() {
            let (x, y) = (a % k, b % k);
            a /= k;
            b /= k;
            if x == y {
                continue;
            }
            let (plus, minus) = if self.wrap {
                let up = (y + k - x) % k;
                (2 * up <= k, 2 * up >= k)
            } else {
                (y > x, y < x)
            };
            if plus {
                self.adaptive(dim_port(d, true), vcs, out);
            }
            if minus {
                self.adaptive(dim_port(d, false), vcs, out);
            }
            if !escaped {
                escaped = true;
                let vc = if self.wrap {
                    let crosses = if plus { y < x } else { y > x };
                    u8::from(!crosses)
                } else {
                    0
                };
                out.push_with(dim_port(d, plus), vc, 1, 0);
            }
        }
    }

    fn forwarded(
        &self,
        _hdr: &mut Header,
        _here: &Here,
        chosen: Candidate,
        _channel: ChannelId,
        ctx: &mut RouterCtx,
    ) {
        if chosen.priority == 1 {
            ctx.count(0);
        }
    }
}
