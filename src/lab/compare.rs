//! `compare`: a one-line A/B experiment of two configurations that differ in
//! rule set, settings, house rules or strategies, played paired.

use super::experiment::{ArmSpec, Experiment};
use super::ConfigError;
use crate::agents;
use crate::engine::rules::{RuleSetFile, Rules};
use crate::sim::lockstep::{Arm, LockstepConfig};
use crate::sim::runner::{Mode, RunConfig};
use crate::sim::seating::Seating;

/// The `origin` (a results manifest's `file`) of a compare set up on the
/// command line.
pub const COMMAND_LINE: &str = "command line";
/// The `origin` of a compare set up by a call of the Python package.
pub const PYTHON_CALL: &str = "Python call";

/// Whether an experiment's `origin` is that of a compare rather than a file.
pub fn is_compare_origin(origin: &str) -> bool {
    origin == COMMAND_LINE || origin == PYTHON_CALL
}

/// Resolves one arm (rules, settings, house rules, line-up); a
/// perfect-information reference in the line-up only if `allow_oracle`.
pub fn resolve_arm(
    spec: &ArmSpec,
    mode: Mode,
    fixed_seats: bool,
    allow_oracle: bool,
) -> Result<Arm, ConfigError> {
    resolve_arm_with(spec, mode, fixed_seats, allow_oracle, &[])
}

/// As [`resolve_arm`], strategy names looked up first among `custom`
/// ([`agents::parse_list_with`]).
pub fn resolve_arm_with(
    spec: &ArmSpec,
    mode: Mode,
    fixed_seats: bool,
    allow_oracle: bool,
    custom: &[agents::StrategySpec],
) -> Result<Arm, ConfigError> {
    let within = |e: ConfigError| e.within(&spec.label);
    let invalid = |e: String| within(ConfigError::Invalid(e));
    let file = RuleSetFile::resolve(&spec.rules, &spec.set, &spec.house)
        .map_err(|e| within(ConfigError::Rules(e)))?;
    let rules = Rules::build(file).map_err(|e| within(ConfigError::Rules(e)))?;
    let lineup = agents::parse_list_with(&spec.strategies, custom)
        .map_err(|e| within(ConfigError::Strategy(e)))?;
    agents::check_fair(&lineup, allow_oracle, agents::OracleAllowedBy::Flag).map_err(invalid)?;
    let cfg = RunConfig::builder(rules, spec.players, &lineup)
        .mode(mode)
        .seating(if fixed_seats {
            Seating::Fixed
        } else {
            Seating::Mixed
        })
        .build()
        .map_err(|e| invalid(e.to_string()))?;
    Ok(Arm {
        label: spec.label.clone(),
        cfg,
    })
}

/// The experiment "B against A" (A is the baseline); `allow_oracle` lets a
/// line-up seat the perfect-information reference.
pub fn ab(
    a: ArmSpec,
    b: ArmSpec,
    mode: Mode,
    games: u64,
    seed: u64,
    allow_oracle: bool,
) -> Result<Experiment, ConfigError> {
    ab_with(a, b, mode, games, seed, Seating::Mixed, allow_oracle, &[])
}

/// As [`ab`], strategy names looked up first among `custom`, both arms
/// seated by `seating`.
#[allow(clippy::too_many_arguments)]
pub fn ab_with(
    a: ArmSpec,
    b: ArmSpec,
    mode: Mode,
    games: u64,
    seed: u64,
    seating: Seating,
    allow_oracle: bool,
    custom: &[agents::StrategySpec],
) -> Result<Experiment, ConfigError> {
    if a == (ArmSpec {
        label: a.label.clone(),
        ..b.clone()
    }) {
        return Err(ConfigError::Invalid("the two configurations are the same: change the rules, a setting, a house rule or a strategy with the --b-* options".into()));
    }
    let mut arms = vec![
        resolve_arm_with(&a, mode, false, allow_oracle, custom)?,
        resolve_arm_with(&b, mode, false, allow_oracle, custom)?,
    ];
    for arm in &mut arms {
        arm.cfg.seating = seating;
    }
    // Options that differ as written may still leave B as A (a setting at
    // its value, an empty house rule list, a line-up cycled to the same).
    if same_games(&arms[0], &arms[1]) {
        return Err(ConfigError::Invalid("the two configurations are the same once resolved (B's options change nothing; under the default seating the order of a line-up does not matter, and in round mode target, rounds, max_rounds and quick, which end a match, do not either: --mode match): change the rules, a setting, a house rule or a strategy with the --b-* options".into()));
    }
    Ok(Experiment {
        name: "compare".into(),
        description: format!("What changes from {} to {}?", describe(&a), describe(&b)),
        origin: COMMAND_LINE.into(),
        specs: vec![a, b],
        run: LockstepConfig {
            baseline: Some(0),
            ..LockstepConfig::new(arms, seed, games)
        },
    })
}

/// Whether arms `a` and `b` play the same games: the same deck, points and
/// settings (their rule sets resolved), players, seating and seated line-up
/// (a rule set's name and description aside). Under the default seating
/// the line-up's order does not count: every game seats an arrangement of
/// it, enumerated from the line-up sorted by strategy name, so two typings
/// of one line-up play the same games (`points,color` and `color,points`).
fn same_games(a: &Arm, b: &Arm) -> bool {
    let (fa, fb) = (&a.cfg.rules.file, &b.cfg.rules.file);
    fn by_name(c: &RunConfig) -> Vec<&agents::StrategySpec> {
        let mut v: Vec<&agents::StrategySpec> = c.lineup.iter().collect();
        v.sort_by(|x, y| x.name().cmp(y.name()));
        v
    }
    let seated_alike = match (a.cfg.seating, b.cfg.seating) {
        (Seating::Mixed, Seating::Mixed) => by_name(&a.cfg) == by_name(&b.cfg),
        (sa, sb) => sa == sb && a.cfg.lineup == b.cfg.lineup,
    };
    // What only a match reads (its end, quick play) changes no round.
    let same_settings = if a.cfg.mode == Mode::Round && b.cfg.mode == Mode::Round {
        fa.settings.for_a_round() == fb.settings.for_a_round()
    } else {
        fa.settings == fb.settings
    };
    fa.deck == fb.deck
        && fa.points == fb.points
        && same_settings
        && a.cfg.players == b.cfg.players
        && seated_alike
}

fn describe(s: &ArmSpec) -> String {
    let mut v = vec![format!("rules {}", s.rules)];
    if !s.set.is_empty() {
        v.push(format!("settings {}", s.set.join(", ")));
    }
    if !s.house.is_empty() {
        v.push(format!("house rules {}", s.house.join(", ")));
    }
    v.push(format!("{} players", s.players));
    v.push(format!("strategies {}", s.strategies));
    format!("A ({})", v.join("; ")).replacen("A (", &format!("{} (", s.label), 1)
}
