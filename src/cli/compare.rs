//! `unolab compare`: what does this change do? Two configurations played
//! paired (the same seeds), printed as differences with intervals and p-values.

use super::args::{parse_players, CommonArgs, RuleArgs, CHECKPOINT_SECS};
use super::experiment::drive;
use super::term::Fail;
use std::process::ExitCode;
use unolab::lab::compare;
use unolab::lab::experiment::ArmSpec;
use unolab::sim::Mode;

#[derive(clap::Args)]
pub struct CompareArgs {
    #[command(flatten)]
    rules: RuleArgs,
    /// Number of players, 2 to 10
    #[arg(long, default_value = "4", value_parser = parse_players, allow_hyphen_values = true)]
    players: usize,
    /// Strategies of A, comma separated, one per seat (cycled to fill the seats)
    #[arg(long, default_value = "random")]
    strategies: String,
    /// round: one round per game; match: whole matches
    #[arg(long, default_value = "round", value_parser = ["round", "match"])]
    mode: String,
    /// B's rule set (default: A's)
    #[arg(long = "b-rules", value_name = "RULES")]
    b_rules: Option<String>,
    /// A setting B adds to A's: --b-set key=value (repeatable)
    #[arg(long = "b-set", value_name = "KEY=VALUE")]
    b_set: Vec<String>,
    /// House rules B adds to A's (repeatable)
    #[arg(long = "b-house", value_name = "RULES")]
    b_house: Vec<String>,
    /// B's strategies (default: A's)
    #[arg(long = "b-strategies", value_name = "LIST")]
    b_strategies: Option<String>,
    /// One seat of B's line-up changed: --b-seat K=STRATEGY (seat K from 0)
    #[arg(long = "b-seat", value_name = "K=STRATEGY")]
    b_seat: Option<String>,
    /// Print the result as one JSON object
    #[arg(long)]
    json: bool,
    /// Let a perfect-information reference agent (base = "oracle") play
    #[arg(long)]
    allow_oracle: bool,
    #[command(flatten)]
    common: CommonArgs,
}

pub fn exec(a: CompareArgs) -> Result<ExitCode, Fail> {
    // clap has checked the name (round or match).
    let mode = Mode::parse(&a.mode).unwrap_or(Mode::Round);
    let spec_a = ArmSpec {
        label: "A".into(),
        rules: a.rules.rules.clone(),
        set: a.rules.set.clone(),
        house: a.rules.house.clone(),
        players: a.players,
        strategies: a.strategies.clone(),
    };
    let mut strategies_b = a.b_strategies.clone().unwrap_or(a.strategies.clone());
    if let Some(seat) = &a.b_seat {
        let (k, name) = seat
            .split_once('=')
            .ok_or_else(|| Fail(format!("--b-seat expects K=STRATEGY, got '{seat}'")))?;
        let k: usize = k
            .trim()
            .parse()
            .ok()
            .filter(|k| *k < a.players)
            .ok_or_else(|| {
                Fail(format!(
                    "--b-seat: '{k}' is not a seat (valid: 0 to {})",
                    a.players - 1
                ))
            })?;
        let list: Vec<String> = strategies_b
            .split(',')
            .map(|s| s.trim().to_string())
            .collect();
        let mut full: Vec<String> = (0..a.players)
            .map(|i| list[i % list.len()].clone())
            .collect();
        full[k] = name.trim().to_string();
        strategies_b = full.join(",");
    }
    let mut set = a.rules.set.clone();
    set.extend(a.b_set.iter().cloned());
    let mut house = a.rules.house.clone();
    house.extend(a.b_house.iter().cloned());
    let spec_b = ArmSpec {
        label: "B".into(),
        rules: a.b_rules.clone().unwrap_or(a.rules.rules.clone()),
        set,
        house,
        players: a.players,
        strategies: strategies_b,
    };
    let exp = compare::ab(
        spec_a,
        spec_b,
        mode,
        a.common.games.unwrap_or(10_000),
        a.common.seed.unwrap_or(1),
        a.allow_oracle,
    )
    .map_err(Fail)?;
    drive(
        exp,
        &a.common,
        a.common.out.as_deref(),
        a.json,
        CHECKPOINT_SECS,
    )
}
