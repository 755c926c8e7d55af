//! LASH: layered shortest path routing (Lysne, Skeie, Reinemo and Theiss
//! 2006), one of OpenSM's engines.
//!
//! 1. One minimal path per (source switch, destination switch): for every
//!    group of destination terminals hanging off the same switches, a
//!    breadth-first search from those switches gives every switch its
//!    distance; each switch forwards through the minimal next hop whose
//!    channel carries the fewest destinations so far (ties to the lowest
//!    port), so all terminals of the group share one shortest-path tree and
//!    the load spreads over parallel minimal channels.
//! 2. Layers: destination groups are taken in order, and for each the
//!    switches with terminals in switch order; the path from the switch to
//!    the group goes to the first virtual layer whose channel dependency
//!    graph stays acyclic with it ([`IncrementalCdg`]), a new layer when
//!    none does. Every terminal pair between the two switches is on that
//!    layer, for the whole path.
//!
//! Every path is minimal and every layer acyclic, so the routes are
//! deadlock-free on as many lanes as layers. More than `max_lanes` layers
//! is an error saying how many were needed.

use super::fabric::{Fabric, NONE};
use super::{Routes, RoutingEngine, RoutingError, RoutingOptions};
use crate::deadlock::layers::GIVE_UP_LAYERS;
use crate::deadlock::{IncrementalCdg, Turns};
use crate::network::{ChannelId, Network};
use std::collections::{HashMap, VecDeque};

pub struct Lash {
    max_lanes: u8,
}

pub fn engine(o: &RoutingOptions) -> Box<dyn RoutingEngine> {
    Box::new(Lash {
        max_lanes: o.max_lanes,
    })
}

impl RoutingEngine for Lash {
    fn name(&self) -> &'static str {
        "lash"
    }

    /// Tables and the pair lanes it assigns.
    fn memory_bytes(&self, net: &Network) -> u64 {
        Routes::table_bytes(net) + Routes::pair_lane_bytes(net)
    }

    fn route(&self, net: &Network) -> Result<Routes, RoutingError> {
        let f = Fabric::new(net, self.name())?;
        let mut routes = Routes::new(net, self.name());
        let (s, t) = (f.s, f.t);
        if t == 0 || f.main == NONE {
            return Ok(routes);
        }
        let (groups, group_of) = groups(&f);
        let sources = f.injecting_switches();
        let mut unit_of = vec![NONE; s];
        for (u, &x) in sources.iter().enumerate() {
            unit_of[x] = u as u32;
        }
        // layer[u * G + g]: the layer of the path from source u to group g.
        let mut layer = vec![0u8; sources.len() * groups.len()];
        let index = Turns::new(net);
        let mut cdgs: Vec<IncrementalCdg> = Vec::new();
        let mut gave_up = false;

        let mut used = vec![0u64; net.channel_count()];
        let mut dist = vec![u32::MAX; s];
        let mut next: Vec<Option<(ChannelId, u32)>> = vec![None; s];
        let mut order: Vec<usize> = Vec::with_capacity(s);
        let mut queue = VecDeque::new();
        let mut path: Vec<ChannelId> = Vec::new();
        for (g, members) in groups.iter().enumerate() {
            let sinks = f.sinks(members[0] as usize);
            dist.fill(u32::MAX);
            next.fill(None);
            order.clear();
            for k in sinks {
                dist[k.switch as usize] = 0;
                queue.push_back(k.switch as usize);
            }
            while let Some(u) = queue.pop_front() {
                order.push(u);
                for l in f.links(u) {
                    let v = l.to as usize;
                    if dist[v] == u32::MAX {
                        dist[v] = dist[u] + 1;
                        queue.push_back(v);
                    }
                }
            }
            // The shortest-path tree, balanced over parallel minimal hops.
            let weight = members.len() as u64;
            for &x in &order {
                if dist[x] == 0 {
                    continue;
                }
                let mut best: Option<(ChannelId, u32)> = None;
                for l in f.links(x) {
                    if dist[l.to as usize] + 1 == dist[x]
                        && best.is_none_or(|(c, _)| used[l.ch.index()] < used[c.index()])
                    {
                        best = Some((l.ch, l.to));
                    }
                }
                if let Some((c, _)) = best {
                    used[c.index()] += weight;
                }
                next[x] = best;
            }
            for &x in &order {
                let row = x * t;
                for &d in members {
                    let d = d as usize;
                    let port = match f.sink_port(x, d) {
                        Some(p) => p,
                        None => match next[x] {
                            Some((c, _)) => net.channel(c).src_port,
                            None => continue,
                        },
                    };
                    routes.table[row + d] = port.0;
                }
            }
            // Layers, source switch by source switch.
            for (u, &x) in sources.iter().enumerate() {
                path.clear();
                let mut y = x;
                while let Some((c, to)) = next[y] {
                    path.push(c);
                    y = to as usize;
                }
                if path.len() < 2 {
                    continue; // no dependency: layer 0
                }
                let mut l = 0;
                loop {
                    if l == cdgs.len() {
                        if l as u32 >= GIVE_UP_LAYERS {
                            gave_up = true;
                            break;
                        }
                        cdgs.push(IncrementalCdg::new(&index));
                    }
                    if cdgs[l].try_add(&index, &path) {
                        break;
                    }
                    l += 1;
                }
                if gave_up {
                    break;
                }
                layer[u * groups.len() + g] = l as u8;
            }
            if gave_up {
                break;
            }
        }
        let used_layers = if gave_up {
            GIVE_UP_LAYERS
        } else {
            cdgs.len().max(1) as u32
        };
        if gave_up || used_layers > u32::from(self.max_lanes) {
            return Err(RoutingError::LanesExceeded {
                engine: self.name(),
                needed: used_layers,
                at_least: gave_up,
                limit: self.max_lanes,
                note: "each switch pair takes the first layer it fits in, so the true minimum \
                       may be lower; raise max_lanes (at most 15) or try dfsssp"
                    .into(),
            });
        }
        for src in 0..t {
            let Some(&u) = unit_of.get(f.inject[src] as usize) else {
                continue;
            };
            let base = u as usize * groups.len();
            for d in (0..t).filter(|&d| d != src) {
                routes.set_lane(src, d, layer[base + group_of[d] as usize]);
            }
        }
        routes.set_lanes_needed(used_layers as u8);
        Ok(routes)
    }
}

/// Destination terminals grouped by the switches they hang off (in order
/// of first appearance), and each terminal's group.
fn groups(f: &Fabric) -> (Vec<Vec<u32>>, Vec<u32>) {
    let mut by_key: HashMap<Vec<u32>, u32> = HashMap::new();
    let mut groups: Vec<Vec<u32>> = Vec::new();
    let mut group_of = Vec::with_capacity(f.t);
    for d in 0..f.t {
        let key: Vec<u32> = f.sinks(d).iter().map(|k| k.switch).collect();
        let g = *by_key.entry(key).or_insert_with(|| {
            groups.push(Vec::new());
            (groups.len() - 1) as u32
        });
        groups[g as usize].push(d as u32);
        group_of.push(g);
    }
    (groups, group_of)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::network::spec;

    #[test]
    fn a_ring_of_five_takes_two_layers() {
        let net = spec::build("torus:5").unwrap();
        let r = Lash { max_lanes: 8 }.route(&net).unwrap();
        assert_eq!(r.lanes(), 2);
        assert_eq!(r.lanes_needed(), 2);
        assert!(r.is_minimal(&net).unwrap());
        let rep = r.deadlock_report(&net).unwrap();
        assert!(rep.deadlock_free, "{rep}");
        let e = Lash { max_lanes: 1 }.route(&net).unwrap_err();
        assert!(
            e.to_string()
                .contains("lash needs 2 lanes, but max_lanes is 1"),
            "{e}"
        );
    }

    #[test]
    fn terminals_on_one_switch_share_a_group() {
        let net = spec::build("torus:3,c=2").unwrap();
        let f = Fabric::new(&net, "lash").unwrap();
        let (groups, group_of) = groups(&f);
        assert_eq!(groups.len(), 3);
        assert_eq!(group_of, vec![0, 0, 1, 1, 2, 2]);
    }
}
