//! "Did you mean ...?": the known name nearest to a mistyped one.

/// The candidate nearest to `given` (case and `-`/`_` ignored, and a
/// thousand written `000` or `k` alike, then by Damerau-Levenshtein
/// distance: a letter wrong, missing, extra or two swapped count one each),
/// if it is near enough to be a slip: at most 2 edits, and fewer than half
/// the candidate's letters. Else the shortest candidate that begins with
/// what was given (3 letters or more: `lilo` for `lilo-stitch`, `ismcts`
/// for `ismcts-1k`).
pub fn nearest<'a>(given: &str, candidates: &[&'a str]) -> Option<&'a str> {
    let norm = |s: &str| s.to_lowercase().replace('-', "_").replace("000", "k");
    let g = norm(given);
    if g.is_empty() {
        return None;
    }
    let near = candidates
        .iter()
        .map(|&c| (strsim::damerau_levenshtein(&g, &norm(c)), c))
        .filter(|&(d, c)| d <= 2 && 2 * d < c.chars().count())
        .min_by_key(|&(d, _)| d)
        .map(|(_, c)| c);
    near.or_else(|| {
        (g.chars().count() >= 3)
            .then(|| {
                candidates
                    .iter()
                    .filter(|c| norm(c).starts_with(&g))
                    .min_by_key(|c| c.len())
                    .copied()
            })
            .flatten()
    })
}

/// `"; did you mean 'NAME'?"` for [`nearest`], else nothing: to follow the
/// name in an "unknown ..." message.
pub fn hint(given: &str, candidates: &[&str]) -> String {
    match nearest(given, candidates) {
        Some(c) if c != given => format!("; did you mean '{c}'?"),
        _ => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slips_find_their_name_and_other_words_none() {
        let names = [
            "points",
            "color",
            "cautious",
            "classic",
            "h2o",
            "seven_o",
            "pimc-400",
            "pimc-100",
            "pimc-1k",
            "lilo-stitch",
            "bluff_challenge",
        ];
        for (given, want) in [
            ("pionts", "points"),
            ("Points", "points"),
            ("colour", "color"),
            ("cautous", "cautious"),
            ("clasic", "classic"),
            ("h20", "h2o"),
            ("seveno", "seven_o"),
            ("seven-o", "seven_o"),
            ("pimc400", "pimc-400"),
            // A thousand as 000, and the start of a name.
            ("pimc-1000", "pimc-1k"),
            ("lilo", "lilo-stitch"),
            ("bluff", "bluff_challenge"),
        ] {
            assert_eq!(nearest(given, &names), Some(want), "{given}");
        }
        for given in ["", "x", "random", "tuned", "seven_o_and_more"] {
            assert_eq!(nearest(given, &names), None, "{given}");
        }
        assert_eq!(hint("pionts", &names), "; did you mean 'points'?");
        assert_eq!(hint("nothing-like-it", &names), "");
    }
}
