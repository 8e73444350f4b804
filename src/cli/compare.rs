//! `unolab compare`: what does this change do? Two configurations played
//! paired (the same seeds), printed as differences with intervals and p-values.

use super::args::{parse_players, CommonArgs, RuleArgs, CHECKPOINT_SECS};
use super::experiment::drive;
use super::term::Fail;
use std::process::ExitCode;
use unolab::lab::options::CompareOptions;
use unolab::sim::{Mode, Seating};

#[derive(clap::Args)]
pub struct CompareArgs {
    #[command(flatten)]
    rules: RuleArgs,
    /// Number of players, 2 to 10
    #[arg(short, long, default_value = "4", value_parser = parse_players, allow_hyphen_values = true)]
    players: usize,
    /// Strategies of A, comma separated, one per seat (cycled to fill the seats)
    #[arg(short, long, default_value = "random")]
    strategies: String,
    /// round: one round per game; match: whole matches
    #[arg(short, long, default_value = "round", value_parser = ["round", "match"])]
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
    // (An experiment file's run writes results/<name> without --out; a
    // compare writes nothing without it.)
    if a.common.force && a.common.out.is_none() {
        return Err(super::scaffold::force_without_out());
    }
    // B's options are added to A's (and win over them): each list alone
    // gives a setting once.
    super::args::given_once(&a.rules.set, &a.rules.house, "")?;
    super::args::given_once(&a.b_set, &a.b_house, "b-")?;
    let exp = CompareOptions {
        rules: a.rules.rules.clone(),
        set: a.rules.set.clone(),
        house: a.rules.house.clone(),
        players: a.players,
        strategies: a.strategies.clone(),
        // clap has checked the name (round or match).
        mode: Mode::parse(&a.mode).unwrap_or(Mode::Round),
        b_rules: a.b_rules.clone(),
        b_set: a.b_set.clone(),
        b_house: a.b_house.clone(),
        b_strategies: a.b_strategies.clone(),
        b_seat: a.b_seat.clone(),
        games: a.common.games.unwrap_or(10_000),
        seed: a.common.seed.unwrap_or(1),
        // clap has checked the name.
        seating: (a.common.seating.as_deref())
            .and_then(Seating::parse)
            .unwrap_or_default(),
        allow_oracle: a.allow_oracle,
    }
    .experiment(&[])
    .map_err(|e| {
        // `--resume` alone: the interrupted run's options are not read
        // back from its folder.
        let again = match (a.common.resume, &a.common.out) {
            (true, Some(out)) if e.to_string().starts_with("the two configurations are the same") => format!(
                " (--resume continues with the same command as the interrupted run, its --b-* options too: it is in {})",
                out.join("manifest.json").display()
            ),
            _ => String::new(),
        };
        Fail(format!("{e}{again}"))
    })?;
    drive(
        exp,
        &a.common,
        a.common.out.as_deref(),
        a.json,
        CHECKPOINT_SECS,
    )
}
