//! Fair play: a line-up holding a perfect-information reference agent is
//! refused unless asked for by name.

use super::StrategySpec;

/// Where a line-up is allowed an oracle: by a flag (`compare`, `tune`)
/// or in an experiment file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OracleAllowedBy {
    /// `--allow-oracle` (from Python: `allow_oracle=True`).
    Flag,
    /// `allow_oracle = true` in the experiment file.
    File,
}

/// Refuses a line-up holding a perfect-information reference agent
/// (`base = "oracle"`) unless `allow` (a tournament's or comparison's
/// `--allow-oracle`, an experiment file's `allow_oracle = true`, as `by`
/// says, which the message names): its results are a ceiling to measure
/// against, not a fair player's.
pub fn check_fair<'a>(
    lineup: impl IntoIterator<Item = &'a StrategySpec>,
    allow: bool,
    by: OracleAllowedBy,
) -> Result<(), String> {
    match lineup.into_iter().find(|s| s.is_oracle()) {
        Some(s) if !allow => Err(format!(
            "'{}' sees other players' hands (base = \"oracle\", a perfect-information reference for benchmarks): allow it explicitly with {}",
            s.name(),
            match by {
                OracleAllowedBy::Flag => "--allow-oracle",
                OracleAllowedBy::File => "allow_oracle = true in the experiment file",
            }
        )),
        _ => Ok(()),
    }
}
