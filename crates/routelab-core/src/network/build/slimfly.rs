//! Slim Fly (Besta & Hoefler 2014): the McKay–Miller–Širáň graphs, of
//! diameter 2 and close to the Moore bound, built over the finite field
//! `F_q` of a prime power `q = 4w + δ` (`δ` in {-1, 0, 1}).
//!
//! With `ξ` a primitive element of `F_q`, the generator sets are
//! - `δ = 1`:  `X = {ξ^0, ξ^2, .., ξ^(q-3)}`;
//! - `δ = 0`:  `X = {ξ^0, ξ^2, .., ξ^(q-2)}`;
//! - `δ = -1`: `X = {ξ^0, ξ^2, .., ξ^(2w-2)} ∪ {ξ^(2w-1), ξ^(2w+1), .., ξ^(4w-3)}`;
//!
//! and `X' = ξ X`. Routers are `(0, x, y)` and `(1, m, c)` for `x, y, m, c`
//! in `F_q`, `2q²` in all:
//! - `(0, x, y) ~ (0, x, y')` when `y - y'` is in `X`;
//! - `(1, m, c) ~ (1, m, c')` when `c - c'` is in `X'`;
//! - `(0, x, y) ~ (1, m, c)` when `y = m x + c`.
//!
//! Each router has `k' = (3q - δ) / 2` router links. Balanced (full global
//! bandwidth, the paper's choice) with `p = ⌈k' / 2⌉` terminals per router,
//! the default.
//!
//! Numbering: router `(0, x, y)` is switch `x q + y`, router `(1, m, c)`
//! is switch `q² + m q + c` (field elements numbered by their base-`p`
//! digits, see [`Field`]); then terminals, terminal `i` on switch
//! `i / p`. Ports, fabric first as in the other families: a switch's
//! `k'` neighbours in increasing switch order on ports `1..=k'`, then its
//! terminals.

use crate::network::spec::Family;
use crate::network::{Network, NetworkBuilder, NodeId, PortId, Structure, TopologyError};

use super::{bad_param, torus::attach_terminals};

/// The largest `q` the generator takes: `2q²` routers of `(3q+1)/2` links.
pub const MAX_Q: u32 = 512;
/// The largest network, in routers plus terminals.
const MAX_NODES: u64 = 1 << 22;

pub const SLIMFLY: Family = Family {
    name: "slimfly",
    usage: "slimfly:q=5,p=4  (q a prime power other than 2: 2q² routers of (3q-δ)/2 links, \
            q = 4w+δ; p terminals per router, default ⌈(3q-δ)/4⌉)",
    keys: &["q", "p"],
    positional: Some("q"),
    generate: |args| {
        let q = match args.positional_or("q") {
            Some(v) => {
                let v = v.to_string();
                args.parse_u32("q", &v, 3, MAX_Q)?
            }
            None => args.u32("q", None, 3, MAX_Q)?,
        };
        let p = args.opt_u32("p", 0, u32::from(u16::MAX))?;
        slimfly(q, p)
    },
};

/// The finite field `F_q`, `q = p^m`: elements `0..q` are the polynomials
/// over `F_p` of degree below `m` by their base-`p` digits (constant term
/// least significant), arithmetic modulo a primitive polynomial, so that
/// `x` itself is a primitive element.
#[derive(Debug, Clone)]
pub struct Field {
    p: u32,
    q: u32,
    /// `pow[i]` = `ξ^i` for `i` in `0..q-1`.
    pow: Vec<u32>,
    /// `log[e]` = `i` with `ξ^i = e` (unused for 0).
    log: Vec<u32>,
}

impl Field {
    /// The field of `q` elements, or `None` when `q` is not a prime power.
    pub fn new(q: u32) -> Option<Field> {
        let p = (2..=q).find(|d| q.is_multiple_of(*d))?;
        let mut rest = q;
        while rest.is_multiple_of(p) {
            rest /= p;
        }
        if rest != 1 {
            return None;
        }
        // Monic x^m + c(x), c by its digits; primitive when x has order q-1.
        for c in 1..q {
            if c.is_multiple_of(p) {
                continue; // constant term 0: x divides it
            }
            let times_x = |e: u32| -> u32 {
                // Shift the digits up, then subtract the top digit times c.
                let top = e / (q / p);
                let shifted = (e % (q / p)) * p;
                sub_digits(shifted, mul_digits(c, top, p), p)
            };
            let mut pow = Vec::with_capacity(q as usize - 1);
            let mut e = 1;
            loop {
                pow.push(e);
                e = times_x(e);
                if e == 1 || pow.len() >= q as usize {
                    break;
                }
            }
            if pow.len() == q as usize - 1 && e == 1 {
                let mut log = vec![0; q as usize];
                for (i, &v) in pow.iter().enumerate() {
                    log[v as usize] = i as u32;
                }
                return Some(Field { p, q, pow, log });
            }
        }
        None
    }

    pub fn size(&self) -> u32 {
        self.q
    }

    /// `ξ^i`.
    pub fn power(&self, i: u32) -> u32 {
        self.pow[(i % (self.q - 1)) as usize]
    }

    pub fn add(&self, a: u32, b: u32) -> u32 {
        add_digits(a, b, self.p)
    }

    pub fn sub(&self, a: u32, b: u32) -> u32 {
        sub_digits(a, b, self.p)
    }

    pub fn mul(&self, a: u32, b: u32) -> u32 {
        if a == 0 || b == 0 {
            return 0;
        }
        let i = self.log[a as usize] + self.log[b as usize];
        self.pow[(i % (self.q - 1)) as usize]
    }
}

fn add_digits(mut a: u32, mut b: u32, p: u32) -> u32 {
    let (mut out, mut place) = (0, 1);
    while a > 0 || b > 0 {
        out += (a % p + b % p) % p * place;
        a /= p;
        b /= p;
        place *= p;
    }
    out
}

fn sub_digits(mut a: u32, mut b: u32, p: u32) -> u32 {
    let (mut out, mut place) = (0, 1);
    while a > 0 || b > 0 {
        out += (a % p + p - b % p) % p * place;
        a /= p;
        b /= p;
        place *= p;
    }
    out
}

/// Every digit of `a` times the scalar `k` (in `F_p`).
fn mul_digits(mut a: u32, k: u32, p: u32) -> u32 {
    let (mut out, mut place) = (0, 1);
    while a > 0 {
        out += a % p * k % p * place;
        a /= p;
        place *= p;
    }
    out
}

/// `δ` of `q = 4w + δ`, or `None` for `q ≡ 2 (mod 4)`.
pub fn slimfly_delta(q: u32) -> Option<i32> {
    match q % 4 {
        1 => Some(1),
        0 => Some(0),
        3 => Some(-1),
        _ => None,
    }
}

/// Router links per router, `(3q - δ) / 2`.
pub fn slimfly_links(q: u32) -> Option<u32> {
    let d = slimfly_delta(q)?;
    Some(((3 * q as i64 - i64::from(d)) / 2) as u32)
}

/// The generator sets `X` and `X'` of the MMS construction (membership
/// per field element).
fn generator_sets(f: &Field, delta: i32) -> (Vec<bool>, Vec<bool>) {
    let q = f.size();
    let w = (q as i64 - i64::from(delta)) / 4;
    let exponents: Vec<u32> = match delta {
        1 => (0..=q - 3).step_by(2).collect(),
        0 => (0..=q - 2).step_by(2).collect(),
        _ => {
            let w = w as u32;
            let mut e: Vec<u32> = (0..=2 * w - 2).step_by(2).collect();
            e.extend((2 * w - 1..=4 * w - 3).step_by(2));
            e
        }
    };
    let mut x = vec![false; q as usize];
    let mut x2 = vec![false; q as usize];
    for e in exponents {
        x[f.power(e) as usize] = true;
        x2[f.power(e + 1) as usize] = true;
    }
    (x, x2)
}

/// A Slim Fly over `F_q` with `p` terminals per router (default
/// `⌈(3q - δ) / 4⌉`).
pub fn slimfly(q: u32, p: Option<u32>) -> Result<Network, TopologyError> {
    let valid =
        || format!("a prime power in 3..={MAX_Q} other than 2 (3, 4, 5, 7, 8, 9, 11, 13, ...)");
    if !(3..=MAX_Q).contains(&q) {
        return Err(bad_param("slimfly", "q", q, valid()));
    }
    let (Some(field), Some(delta)) = (Field::new(q), slimfly_delta(q)) else {
        return Err(bad_param("slimfly", "q", q, valid()));
    };
    let links = slimfly_links(q).unwrap_or(0);
    let routers = 2 * q * q;
    let most_p = (MAX_NODES / u64::from(routers) - 1).min(u64::from(u16::MAX) - u64::from(links));
    let p = p.unwrap_or(links.div_ceil(2));
    if u64::from(p) > most_p {
        return Err(bad_param(
            "slimfly",
            "p",
            p,
            format!("an integer in 0..={most_p} ({MAX_NODES} nodes in all)"),
        ));
    }
    let (x, x2) = generator_sets(&field, delta);
    let qq = q * q;
    // Neighbours of every router, in increasing switch order.
    let mut adj: Vec<Vec<u32>> = vec![Vec::with_capacity(links as usize); routers as usize];
    for a in 0..q {
        for y in 0..q {
            let s = a * q + y;
            let t = qq + a * q + y;
            for y2 in 0..q {
                if x[field.sub(y, y2) as usize] {
                    adj[s as usize].push(a * q + y2);
                }
                if x2[field.sub(y, y2) as usize] {
                    adj[t as usize].push(qq + a * q + y2);
                }
            }
        }
    }
    // (0, x, y) ~ (1, m, c) with c = y - m x: one per m.
    for xx in 0..q {
        for y in 0..q {
            for m in 0..q {
                let c = field.sub(y, field.mul(m, xx));
                let (s, t) = (xx * q + y, qq + m * q + c);
                adj[s as usize].push(t);
                adj[t as usize].push(s);
            }
        }
    }
    for (s, row) in adj.iter_mut().enumerate() {
        row.sort_unstable();
        if row.len() != links as usize || row.windows(2).any(|w| w[0] == w[1]) {
            return Err(TopologyError::impossible(format!(
                "slimfly: q = {q} gave router {s} {} links, not {links}",
                row.len()
            )));
        }
    }
    let name = format!("slimfly:q={q},p={p}");
    let ports = links + p;
    crate::network::builder::check_ports(
        &name,
        u64::from(routers) * (1 + u64::from(p)),
        u64::from(routers) * u64::from(ports + p),
    )?;
    let (mut b, sw_class, t_class) = NetworkBuilder::with_default_classes(name);
    for s in 0..routers {
        let (side, rest) = (s / qq, s % qq);
        b.add_switch(format!("r{side}.{}.{}", rest / q, rest % q), ports as u16);
    }
    let port_of = |s: u32, to: u32| -> PortId {
        let i = adj[s as usize].partition_point(|&n| n < to);
        PortId(i as u16 + 1)
    };
    for s in 0..routers {
        for &t in adj[s as usize].iter().filter(|&&t| t > s) {
            b.connect(NodeId(s), port_of(s, t), NodeId(t), port_of(t, s), sw_class)?;
        }
    }
    attach_terminals(&mut b, routers, p, links as u16, t_class)?;
    b.set_structure(Structure::SlimFly {
        q,
        concentration: p,
    });
    b.build()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::network::metrics::{bfs_distances, is_connected};

    #[test]
    fn fields_of_prime_powers_are_fields() {
        for q in [3, 4, 5, 7, 8, 9, 16, 25, 27] {
            let f = Field::new(q).unwrap();
            for a in 0..q {
                assert_eq!(f.sub(f.add(a, 3 % q), 3 % q), a);
                for b in 0..q {
                    assert_eq!(f.mul(a, b), f.mul(b, a));
                    // Distributive over addition.
                    let c = (a + b) % q;
                    assert_eq!(
                        f.mul(a, f.add(b, c)),
                        f.add(f.mul(a, b), f.mul(a, c)),
                        "q = {q}"
                    );
                }
            }
            // Every non-zero element is a power of the primitive element.
            let mut seen: Vec<u32> = (0..q - 1).map(|i| f.power(i)).collect();
            seen.sort_unstable();
            assert_eq!(seen, (1..q).collect::<Vec<_>>(), "q = {q}");
        }
        for q in [6, 10, 12, 15, 18] {
            assert!(Field::new(q).is_none(), "{q}");
        }
    }

    #[test]
    fn generator_sets_are_symmetric_and_of_half_size() {
        for q in [3, 4, 5, 7, 8, 9, 11, 13, 16, 17, 19, 23, 25, 27] {
            let f = Field::new(q).unwrap();
            let delta = slimfly_delta(q).unwrap();
            let (x, x2) = generator_sets(&f, delta);
            let size = ((q as i32 - delta) / 2) as usize;
            for set in [&x, &x2] {
                assert_eq!(set.iter().filter(|&&b| b).count(), size, "q = {q}");
                for e in 0..q {
                    assert_eq!(set[e as usize], set[f.sub(0, e) as usize], "q = {q}");
                }
            }
        }
    }

    #[test]
    fn slim_flies_have_diameter_two_and_the_mms_degree() {
        for q in [3, 4, 5, 7, 8, 9, 11, 13] {
            let net = slimfly(q, Some(1)).unwrap();
            let k = slimfly_links(q).unwrap();
            assert_eq!(net.switches().len() as u32, 2 * q * q);
            assert!(is_connected(&net));
            for &s in net.switches() {
                assert_eq!(net.degree(s) as u32, k + 1, "q = {q}");
                let d = bfs_distances(&net, s);
                let far = net.switches().iter().map(|v| d[v.index()]).max().unwrap();
                assert_eq!(far, 2, "q = {q}");
            }
        }
    }

    #[test]
    fn the_default_concentration_is_half_the_links() {
        // q = 5: 50 routers of 7 links, 4 terminals each (the paper's 200).
        let net = slimfly(5, None).unwrap();
        assert_eq!(net.terminals().len(), 200);
        assert_eq!(net.name(), "slimfly:q=5,p=4");
        // Ports: links in switch order, then terminals.
        for &s in net.switches() {
            let to: Vec<_> = (1..=8u16)
                .map(|port| net.channel(net.channel_at(s, PortId(port)).unwrap()).dst)
                .collect();
            assert!(to[..7].iter().all(|&n| net.is_switch(n)));
            assert!(to[..7].windows(2).all(|w| w[0] < w[1]));
            assert!(net.is_terminal(to[7]));
        }
    }

    #[test]
    fn bad_parameters_name_the_key() {
        for q in [2, 6, 10, 1, 600] {
            let e = slimfly(q, None).unwrap_err().to_string();
            assert!(e.contains("'q'") && e.contains("prime power"), "{e}");
        }
        let e = slimfly(5, Some(70_000)).unwrap_err().to_string();
        assert!(e.contains("'p'"), "{e}");
    }
}
