//! The search presets: the `[search]` table of a preset file
//! ([`SearchParams`]), what a simulation is worth ([`Objective`]), which
//! search ([`SearchKind`]) and the validated [`SearchConfig`] with its rollout
//! policy loaded.

use crate::agents::StrategySpec;
use serde::{Deserialize, Serialize};

/// What a simulation's result is worth to each seat.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Objective {
    /// 1 for the seat that wins the round, 0 for the others.
    Win,
    /// The round's points for the seat (won, or with penalty scoring lost),
    /// net of its own hand's points under winner scoring, divided by 100.
    Points,
}

/// The parameters of a search preset (the `[search]` table of a preset file).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SearchParams {
    /// `pimc`: determinizations per legal action; `ismcts`: iterations (one
    /// determinization and one simulation each) per decision.
    pub iterations: u32,
    /// `ismcts`: the UCB exploration constant.
    pub exploration: f64,
    /// The preset that plays every seat in rollouts (`heuristic`, `random`,
    /// `first` or a heuristic preset; not a search preset).
    pub rollout: String,
    /// What a simulation is worth: `win` or `points`.
    pub objective: Objective,
    /// `pimc`: spend the same budget (`iterations` x the legal actions) by
    /// successive halving: in rounds, every surviving action gets an equal
    /// share, and the better half survives.
    pub halving: bool,
}

impl Default for SearchParams {
    fn default() -> Self {
        SearchParams {
            iterations: 100,
            exploration: 0.7,
            rollout: "color".into(),
            objective: Objective::Win,
            halving: false,
        }
    }
}

/// Which search.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SearchKind {
    Pimc,
    Ismcts,
}

impl SearchKind {
    pub fn parse(base: &str) -> Option<SearchKind> {
        match base {
            "pimc" => Some(SearchKind::Pimc),
            "ismcts" => Some(SearchKind::Ismcts),
            _ => None,
        }
    }
}

/// A validated search preset.
#[derive(Debug, Clone, PartialEq)]
pub struct SearchConfig {
    pub name: String,
    pub kind: SearchKind,
    pub params: SearchParams,
    /// The rollout policy, loaded.
    pub rollout: Box<StrategySpec>,
}

impl SearchConfig {
    /// Checks the parameters and loads the rollout policy.
    pub fn new(name: &str, kind: SearchKind, params: SearchParams) -> Result<SearchConfig, String> {
        let max = 1_000_000;
        if params.iterations == 0 || params.iterations > max {
            return Err(format!(
                "iterations = {} must be between 1 and {max}",
                params.iterations
            ));
        }
        if !params.exploration.is_finite() || params.exploration < 0.0 {
            return Err(format!(
                "exploration = {} must be a finite number >= 0",
                params.exploration
            ));
        }
        if params.halving && kind != SearchKind::Pimc {
            return Err("halving applies to base = \"pimc\" only".into());
        }
        let rollout = StrategySpec::load_with(&params.rollout, false)
            .map_err(|e| format!("rollout policy: {e}"))?;
        if matches!(rollout, StrategySpec::External { .. }) {
            return Err(format!(
                "rollout = '{}' is an external program; the rollout policy must be a heuristic preset, random or first",
                params.rollout
            ));
        }
        Ok(SearchConfig {
            name: name.to_string(),
            kind,
            params,
            rollout: Box::new(rollout),
        })
    }
}
