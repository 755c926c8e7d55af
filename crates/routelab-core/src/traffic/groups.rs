//! Patterns over a network's groups (a dragonfly's or Megafly's): the
//! adversarial traffic of dragonfly studies, where every terminal of a
//! group sends to one other group.

use super::TrafficError;
use crate::network::{Network, Structure};

/// Terminal indices by group, each ascending, groups in order: a
/// dragonfly's group `g` holds the terminals of its switches `g*a ..
/// (g+1)*a`, a Megafly's those of `2ag .. 2a(g+1)` (the generators'
/// numbering).
fn terminal_groups(net: &Network, pattern: &str) -> Result<Vec<Vec<u32>>, TrafficError> {
    // Switches per group, consecutive in the generators' numbering.
    let (per_group, groups) = match *net.structure() {
        Structure::Dragonfly { a, groups, .. } => (a, groups),
        Structure::Megafly { a, groups, .. } => (2 * a, groups),
        _ => {
            return Err(TrafficError::does_not_fit(
                pattern,
                format!(
                    "'{}' ({})",
                    net.name(),
                    net.structure().family_with_article()
                ),
                "a network of groups (a dragonfly or a Megafly)",
            ))
        }
    };
    let mut by_group = vec![Vec::new(); groups as usize];
    for (t, &node) in net.terminals().iter().enumerate() {
        if let Some(s) = net.attached_switch(node) {
            let g = net.kind_index(s) / per_group as usize;
            if let Some(members) = by_group.get_mut(g) {
                members.push(t as u32);
            }
        }
    }
    Ok(by_group)
}

/// Group `g`'s `j`-th terminal sends to the `j`-th terminal of group
/// `image[g]` (idle where that group has fewer).
fn by_image(net: &Network, groups: &[Vec<u32>], image: &[u32]) -> Vec<u32> {
    let mut table: Vec<u32> = (0..net.terminals().len() as u32).collect();
    for (g, members) in groups.iter().enumerate() {
        let to = &groups[image[g] as usize];
        for (&src, &dst) in members.iter().zip(to) {
            table[src as usize] = dst;
        }
    }
    table
}

/// The image of every group under a shift by `by` groups.
fn shifted(groups: usize, by: u32) -> Result<Vec<u32>, TrafficError> {
    let n = groups as u32;
    if by.is_multiple_of(n) {
        return Err(TrafficError::bad_param(
            "group-shift",
            "by",
            by,
            format!("not a multiple of the {n} groups (every group would send to itself)"),
        ));
    }
    Ok((0..n).map(|g| (g + by % n) % n).collect())
}

/// Every terminal to its slot in the group `by` further (mod the number of
/// groups): with `by = 1`, a dragonfly's worst case for minimal routing.
pub(crate) fn group_shift(net: &Network, by: u32) -> Result<Vec<u32>, TrafficError> {
    let groups = terminal_groups(net, "group-shift")?;
    let image = shifted(groups.len(), by)?;
    Ok(by_image(net, &groups, &image))
}

/// Destinations drawn per message among the terminals of the source
/// group's image (`group-shift:to=any`).
#[derive(Debug, Clone)]
pub(crate) struct GroupDraw {
    /// Each terminal's group (`u32::MAX`: on no group's switch, idle).
    group_of: Vec<u32>,
    /// The terminals of each group.
    members: Vec<Vec<u32>>,
    image: Vec<u32>,
}

impl GroupDraw {
    /// Every terminal to a random terminal of the group `by` further.
    pub(crate) fn shift(net: &Network, by: u32) -> Result<Self, TrafficError> {
        let members = terminal_groups(net, "group-shift")?;
        let image = shifted(members.len(), by)?;
        let mut group_of = vec![u32::MAX; net.terminals().len()];
        for (g, m) in members.iter().enumerate() {
            for &t in m {
                group_of[t as usize] = g as u32;
            }
        }
        Ok(GroupDraw {
            group_of,
            members,
            image,
        })
    }

    /// The destination of a message from `src` (`src` itself when idle).
    #[inline]
    pub(crate) fn draw<R: rand::Rng + ?Sized>(&self, src: usize, rng: &mut R) -> usize {
        let Some(&g) = self.group_of.get(src).filter(|&&g| g != u32::MAX) else {
            return src;
        };
        let to = &self.members[self.image[g as usize] as usize];
        if to.is_empty() {
            return src;
        }
        to[rng.gen_range(0..to.len())] as usize
    }
}

/// A random derangement of the groups, drawn from `rng`; every terminal to
/// its slot in its group's image.
pub(crate) fn group_permutation(
    net: &Network,
    rng: &mut crate::rng::Rng,
) -> Result<Vec<u32>, TrafficError> {
    let groups = terminal_groups(net, "group-permutation")?;
    let image = super::matching::derangement(groups.len(), rng);
    Ok(by_image(net, &groups, &image))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::network::spec::build;

    #[test]
    fn every_terminal_of_a_group_sends_to_one_other_group() {
        // a = 4, p = 2, h = 2: 9 groups of 8 terminals.
        let net = build("dragonfly:a=4,p=2,h=2").unwrap();
        let shift = group_shift(&net, 1).unwrap();
        for (t, &d) in shift.iter().enumerate() {
            assert_eq!(d as usize, (t + 8) % 72, "{t}");
        }
        let mut rng = crate::rng::stream(1, "test");
        let perm = group_permutation(&net, &mut rng).unwrap();
        let mut targets = std::collections::BTreeSet::new();
        for g in 0..9 {
            let to: std::collections::BTreeSet<u32> = (0..8).map(|j| perm[g * 8 + j] / 8).collect();
            assert_eq!(to.len(), 1, "group {g} sends to one group");
            let to = *to.first().unwrap();
            assert_ne!(to as usize, g);
            targets.insert(to);
        }
        assert_eq!(targets.len(), 9, "a permutation of the groups");
        // Any shift wraps round the groups without overflowing.
        let far = group_shift(&net, u32::MAX).unwrap();
        assert_eq!(far[0] as usize, (u32::MAX % 9) as usize * 8);
        // `to=any`: a terminal of the next group, every one of them drawn.
        let draw = GroupDraw::shift(&net, 1).unwrap();
        let mut rng = crate::rng::stream(2, "test");
        let mut seen = [false; 72];
        for _ in 0..2000 {
            for t in 0..72 {
                let d = draw.draw(t, &mut rng);
                assert_eq!(d / 8, (t / 8 + 1) % 9, "{t} -> {d}");
                seen[d] = true;
            }
        }
        assert!(seen.iter().all(|&s| s));
        let e = group_shift(&net, 9).unwrap_err().to_string();
        assert!(e.contains("by") && e.contains("9 groups"), "{e}");
        let e = group_shift(&build("torus:4x4").unwrap(), 1)
            .unwrap_err()
            .to_string();
        assert!(e.contains("dragonfly"), "{e}");
    }
}
