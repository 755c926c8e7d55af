//! The nearest known name to a mistyped one, for error messages
//! ("unknown routing engine 'dfssp' (did you mean 'dfsssp'?)").

/// ` (did you mean 'x'?)` when one of `known` is close to `name`: the same
/// but for letter case, `-` and `_`, or within a few edits (a third of the
/// name's length: one for three letters or fewer, else at least two);
/// empty otherwise.
pub fn did_you_mean<'a>(name: &str, known: impl IntoIterator<Item = &'a str>) -> String {
    let fold = |s: &str| -> String {
        s.chars()
            .filter(|c| *c != '-' && *c != '_')
            .flat_map(char::to_lowercase)
            .collect()
    };
    let want = fold(name);
    if want.is_empty() {
        return String::new();
    }
    let len = want.chars().count();
    let limit = if len <= 3 { 1 } else { (len / 3).max(2) };
    let best = known
        .into_iter()
        .filter(|k| *k != name)
        .map(|k| (edits(&want, &fold(k)), k))
        .filter(|&(d, _)| d <= limit)
        .min_by_key(|&(d, k)| (d, k.len()));
    match best {
        Some((_, k)) => format!(" (did you mean '{k}'?)"),
        None => String::new(),
    }
}

/// Edit distance with adjacent transpositions (optimal string alignment).
fn edits(a: &str, b: &str) -> usize {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    let mut d = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in d[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut v = (d[i - 1][j] + 1)
                .min(d[i][j - 1] + 1)
                .min(d[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                v = v.min(d[i - 2][j - 2] + 1);
            }
            d[i][j] = v;
        }
    }
    d[a.len()][b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn near_names_are_suggested_far_ones_not() {
        let engines = ["dfsssp", "sssp", "minhop", "torus-2qos", "updown"];
        assert_eq!(did_you_mean("dfssp", engines), " (did you mean 'dfsssp'?)");
        assert_eq!(did_you_mean("DFSSSP", engines), " (did you mean 'dfsssp'?)");
        assert_eq!(
            did_you_mean("torus_2QoS", engines),
            " (did you mean 'torus-2qos'?)"
        );
        assert_eq!(did_you_mean("minhpo", engines), " (did you mean 'minhop'?)");
        assert_eq!(did_you_mean("teleport", engines), "");
        assert_eq!(did_you_mean("", engines), "");
        // The nearest wins: 'ssp' is one edit from sssp, two from dfsssp.
        assert_eq!(did_you_mean("ssp", engines), " (did you mean 'sssp'?)");
    }

    /// Every registry's error names the nearest name; OpenSM's and BookSim's
    /// spellings in another letter case are accepted where unambiguous.
    #[test]
    fn registries_suggest_and_accept_case_variants() {
        use crate::network::spec;
        use crate::routing::{self, RoutingOptions};
        let net = spec::build("torus:4x4").unwrap();
        let o = RoutingOptions::default();
        let e = routing::route(&net, "dfssp", &o).unwrap_err().to_string();
        assert!(e.contains("'dfssp' (did you mean 'dfsssp'?)"), "{e}");
        for name in ["DFSSSP", "MinHop", "torus-2QoS", "Torus-2QoS"] {
            assert!(routing::route(&net, name, &o).is_ok(), "{name}");
        }
        let e = spec::build("torsu:4x4").unwrap_err().to_string();
        assert!(e.contains("(did you mean 'torus'?)"), "{e}");
        assert!(spec::build("Torus:4x4").is_ok());
        let e = spec::build("kary-ntree:k=4,n=3,terminal=64")
            .unwrap_err()
            .to_string();
        assert!(e.contains("(did you mean 'terminals'?)"), "{e}");
        let e = crate::traffic::Pattern::parse("tornada")
            .unwrap_err()
            .to_string();
        assert!(e.contains("(did you mean 'tornado'?)"), "{e}");
        let opts = crate::routing::adaptive::RouterOptions::default();
        let e = crate::routing::adaptive::build(&net, "duatto", &opts)
            .err()
            .unwrap()
            .to_string();
        assert!(e.contains("(did you mean 'duato'?)"), "{e}");
    }
}
