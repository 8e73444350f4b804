//! The search presets: the `[search]` table of a preset file
//! ([`SearchParams`]), what a simulation is worth ([`Objective`]), which
//! search ([`SearchKind`]) and the validated [`SearchConfig`] with its rollout
//! policy loaded.

use crate::agents::whole::whole;
use crate::agents::StrategySpec;
use crate::engine::game::{MAX_PLAYERS, MAX_TURNS};
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

/// How a simulation deals the cards its searcher cannot see.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Determinize {
    /// Uniformly at random ([`crate::engine::game::Game::determinize`]).
    Uniform,
    /// Consistently with what the table revealed to the searcher: the cards
    /// it knows to be in a hand, the public constraints on hands
    /// ([`crate::engine::game::Game::determinize_informed`]).
    Informed,
}

/// How a search with an opponent model makes its candidate deals.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Sampler {
    /// Each candidate is a whole determinization (every unseen card
    /// shuffled, the game copied), as a simulation deals.
    Deal,
    /// Each candidate is only the other players' hands (dealt card by card,
    /// weighed in one game kept for the purpose); the whole determinization
    /// is built for the candidate kept. The same distribution, other deals than
    /// `deal` for the same seed. Needs `determinize = "uniform"`.
    Hands,
    /// A Markov chain over the other players' hands (Metropolis-Hastings):
    /// each of `model_tries` steps swaps a random card of a random other
    /// player with a random unseen card outside that hand (another hand's
    /// or the draw pile's), kept with the chance min(1, weight ratio); the
    /// chain starts from a uniform deal at each decision and runs on from
    /// one determinization to the next. Only the players whose hands
    /// changed are weighed again. With `determinize = "informed"` it starts
    /// from an informed deal, leaves the cards whose place the searcher
    /// knows where they are and keeps every hand's public hard constraints
    /// (`belief::HandChain`); `draw_evidence` shapes only that first deal.
    Chain,
}

/// Who decides the other seats' decisions inside an `ismcts` tree.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Opponents {
    /// The tree: every seat's decisions are nodes, each seat maximising its
    /// own reward (SO-ISMCTS as published).
    Tree,
    /// The rollout policy: only the searcher's own decisions are nodes; the
    /// others play as the rollout policy, in the tree and after it.
    Policy,
}

/// The parameters of a search preset (the `[search]` table of a preset file).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SearchParams {
    /// `pimc`: determinizations per legal action; `ismcts`: iterations (one
    /// determinization and one simulation each) per decision.
    #[serde(deserialize_with = "whole::<_, u32, 1, 1_000_000>")]
    pub iterations: u32,
    /// `ismcts`: the UCB exploration constant.
    pub exploration: f64,
    /// The preset that plays every seat in rollouts, or every other seat
    /// with `own_rollout` (`heuristic`, `random`,
    /// `first` or a heuristic preset; not a search preset).
    pub rollout: String,
    /// The preset that plays the searcher's own seat in rollouts, where the
    /// others play `rollout` (empty: `rollout` too). A stronger policy here
    /// (a network) makes an action's value that of playing it and then
    /// playing well, while the other seats keep the cheap policy that
    /// stands for how they play.
    pub own_rollout: String,
    /// What a simulation is worth: `win` or `points`.
    pub objective: Objective,
    /// `pimc`: spend the same budget (`iterations` x the legal actions) by
    /// successive halving: in rounds, every surviving action gets an equal
    /// share, and the better half survives.
    pub halving: bool,
    /// How simulations deal the hidden cards: `uniform` or `informed`.
    pub determinize: Determinize,
    /// `informed`: the chance that a player who drew where it could have
    /// played held no playable card (soft evidence, the opponent model: 1
    /// for players who draw only without a playable card, 0 to ignore such
    /// draws). Above 0 the agent asks the game to note those draws.
    pub draw_evidence: f64,
    /// `ismcts`: `iterations` counts per legal action of the decision (the
    /// budget is iterations x actions, as `pimc` spends it), not per decision.
    pub per_action: bool,
    /// `ismcts`: the root is played as `pimc` plays it: every legal action
    /// on the same `iterations` determinizations (common random numbers),
    /// the tree growing below each root action; the best mean wins. Implies
    /// `per_action`.
    pub paired: bool,
    /// `ismcts`: who decides the other seats' decisions in the tree: `tree`
    /// or `policy` (the rollout policy).
    pub opponents: Opponents,
    /// `ismcts`: progressive bias towards the rollout policy's own choice: a
    /// node of the action the policy would take gets `prior / (visits + 1)`
    /// added to its UCB value (0: none).
    pub prior: f64,
    /// `ismcts`: a play's colour (a wild) and target (a swap) are decisions
    /// of their own in the tree, under the play, instead of joint actions.
    pub decompose: bool,
    /// `ismcts`: the most decisions of the searcher (colours and targets not
    /// counted) an iteration walks in the tree before the rollout policy
    /// takes over (0: no limit).
    pub depth: u32,
    /// `ismcts`: progressive widening (0: off). A node tries the rollout
    /// policy's own choice first; any other action becomes a child only
    /// while the node has fewer than `1 + floor(sqrt(visits / widen))`
    /// children legal in the determinization at hand (UCB chooses among
    /// those otherwise), so a rarely visited node follows the policy.
    pub widen: f64,
    /// `ismcts`: the preset whose choice a tree node prefers (expanded first,
    /// followed while widening allows nothing else, and the one `prior`
    /// favours), where the rollout policy's is preferred by default (empty).
    /// A network here guides the tree while cheap rollouts finish the round.
    /// With `prune`, the network that ranks the root's actions (any search).
    pub guide: String,
    /// The network `guide` as a prior at the root (0: off): only the root
    /// actions whose encoding action (the card, draw, colour, ...; a wild's
    /// colours go with its card) is among the `prune` the network rates
    /// highest of the legal ones are searched. Fewer actions, so fewer
    /// simulations per decision for the same `iterations`.
    pub prune: u32,
    /// The opponent model (a preset: how the others are taken to
    /// play; empty: none). Each candidate determinization is kept with the
    /// chance the model gives to every other player's last turn (the card
    /// it played and the colour it named, or its draw) with the hand the
    /// determinization deals it (rejection sampling, at most `model_tries`
    /// candidates per determinization).
    pub model: String,
    /// `model`: the chance that a player's turn is not the model's but a
    /// uniformly random legal one (the floor of a weight; 1: the model
    /// says nothing).
    pub model_noise: f64,
    /// `model`: how many of each other player's last turns count (1 to 8;
    /// see `MAX_TURNS`).
    #[serde(deserialize_with = "whole::<_, u32, 1, { MAX_TURNS as u64 }>")]
    pub model_turns: u32,
    /// `model`: the most candidate deals looked at for one determinization
    /// (the heaviest is played when none is kept).
    #[serde(deserialize_with = "whole::<_, u32, 1, 4096>")]
    pub model_tries: u32,
    /// `model`: how candidate deals are made: `deal` (whole
    /// determinizations) or `hands` (the hands first, cheaper).
    pub model_sampler: Sampler,
    /// `oracle`: how many of the players after it (in the direction of
    /// play at each decision) it sees the hands of; the others' hands are
    /// dealt uniformly as a fair search deals them (0, with `sees_previous` 0 too: every hand). A
    /// partial ceiling: what knowing the next player's hand alone is
    /// worth, for example. Left out of a preset's description at 0, so
    /// that saved states of presets written before it still resume.
    #[serde(
        skip_serializing_if = "is_zero",
        deserialize_with = "whole::<_, u32, 0, { MAX_PLAYERS as u64 - 1 }>"
    )]
    pub sees_next: u32,
    /// `oracle`: how many of the players before it (the previous player
    /// first, in the direction of play at each decision) it sees the hands
    /// of, besides those `sees_next` names; the others' hands are dealt
    /// uniformly (0 with `sees_next = 0`: every hand). Left out of a
    /// preset's description at 0, as `sees_next` is.
    #[serde(
        skip_serializing_if = "is_zero",
        deserialize_with = "whole::<_, u32, 0, { MAX_PLAYERS as u64 - 1 }>"
    )]
    pub sees_previous: u32,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

impl Default for SearchParams {
    fn default() -> Self {
        SearchParams {
            iterations: 100,
            exploration: 0.7,
            rollout: "color".into(),
            own_rollout: String::new(),
            objective: Objective::Win,
            halving: false,
            determinize: Determinize::Uniform,
            draw_evidence: 0.0,
            per_action: false,
            paired: false,
            opponents: Opponents::Tree,
            prior: 0.0,
            decompose: false,
            depth: 0,
            widen: 0.0,
            guide: String::new(),
            prune: 0,
            model: String::new(),
            model_noise: 0.25,
            model_turns: 1,
            model_tries: 64,
            model_sampler: Sampler::Deal,
            sees_next: 0,
            sees_previous: 0,
        }
    }
}

/// Which search.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SearchKind {
    Pimc,
    Ismcts,
    /// The perfect-information reference: `pimc` on the true deal (it sees
    /// every hand). Not a fair player: refused in tournaments and
    /// experiments unless allowed by name (docs/agents.md).
    Oracle,
}

impl SearchKind {
    pub fn parse(base: &str) -> Option<SearchKind> {
        match base {
            "pimc" => Some(SearchKind::Pimc),
            "ismcts" => Some(SearchKind::Ismcts),
            "oracle" => Some(SearchKind::Oracle),
            _ => None,
        }
    }

    /// The base name of a preset file.
    pub fn base(self) -> &'static str {
        match self {
            SearchKind::Pimc => "pimc",
            SearchKind::Ismcts => "ismcts",
            SearchKind::Oracle => "oracle",
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
    /// The searcher's own rollout policy, loaded (`None`: `rollout`).
    pub own_rollout: Option<Box<StrategySpec>>,
    /// `ismcts`: the tree's guide, loaded (`None`: the rollout policy).
    pub guide: Option<Box<StrategySpec>>,
    /// The opponent model, loaded (`None`: none).
    pub model: Option<Box<StrategySpec>>,
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
        if kind != SearchKind::Ismcts {
            let d = SearchParams::default();
            if params.per_action
                || params.paired
                || params.opponents != d.opponents
                || params.prior != d.prior
                || params.decompose
                || params.depth != 0
                || params.widen != 0.0
                || (!params.guide.is_empty() && params.prune == 0)
            {
                return Err(
                    "per_action, paired, opponents, prior, decompose, depth, widen and guide (without prune) apply to base = \"ismcts\" only"
                        .into(),
                );
            }
        }
        if params.prune > 0 && params.guide.is_empty() {
            return Err("prune needs a guide (a network preset) to rank the actions".into());
        }
        if !params.model.is_empty() && kind == SearchKind::Oracle {
            return Err(
                "model does not apply to base = \"oracle\" (it sees the hands it deals)".into(),
            );
        }
        if !(params.model_noise > 0.0 && params.model_noise <= 1.0) {
            return Err(format!(
                "model_noise = {} must be above 0 and at most 1",
                params.model_noise
            ));
        }
        let most = crate::engine::game::MAX_TURNS as u32;
        if !(1..=most).contains(&params.model_turns) {
            return Err(format!(
                "model_turns = {} must be between 1 and {most}",
                params.model_turns
            ));
        }
        if !(1..=4096).contains(&params.model_tries) {
            return Err(format!(
                "model_tries = {} must be between 1 and 4096",
                params.model_tries
            ));
        }
        if params.model_sampler == Sampler::Hands
            && (params.model.is_empty() || params.determinize != Determinize::Uniform)
        {
            return Err(
                "model_sampler = \"hands\" needs a model and determinize = \"uniform\"".into(),
            );
        }
        if params.model_sampler == Sampler::Chain && params.model.is_empty() {
            return Err("model_sampler = \"chain\" needs a model".into());
        }
        for (name, n) in [
            ("sees_next", params.sees_next),
            ("sees_previous", params.sees_previous),
        ] {
            if n > 0 && kind != SearchKind::Oracle {
                return Err(format!(
                    "{name} applies to base = \"oracle\" only (a fair search sees no hand but its own)"
                ));
            }
            if n > crate::engine::game::MAX_PLAYERS as u32 - 1 {
                return Err(format!(
                    "{name} = {n} must be between 0 and {}",
                    crate::engine::game::MAX_PLAYERS - 1
                ));
            }
        }
        if kind == SearchKind::Oracle && params.determinize != Determinize::Uniform {
            return Err(
                "determinize does not apply to base = \"oracle\" (it sees the hands it deals)"
                    .into(),
            );
        }
        if !(0.0..=1.0).contains(&params.draw_evidence) {
            return Err(format!(
                "draw_evidence = {} is not a probability (0.0 to 1.0)",
                params.draw_evidence
            ));
        }
        if params.draw_evidence > 0.0 && params.determinize != Determinize::Informed {
            return Err("draw_evidence needs determinize = \"informed\"".into());
        }
        if !params.prior.is_finite() || params.prior < 0.0 {
            return Err(format!(
                "prior = {} must be a finite number >= 0",
                params.prior
            ));
        }
        if !params.widen.is_finite() || params.widen < 0.0 {
            return Err(format!(
                "widen = {} must be a finite number >= 0",
                params.widen
            ));
        }
        let rollout = policy(
            "rollout",
            &params.rollout,
            "rollout policy",
            "a heuristic or network preset, random or first",
        )?;
        let own_rollout =
            optional_policy("own_rollout", &params.own_rollout, "own rollout policy")?;
        let guide = optional_policy("guide", &params.guide, "guide")?;
        if params.prune > 0 && guide.as_ref().and_then(|g| g.net()).is_none() {
            return Err(format!(
                "prune needs guide to be a network preset, and '{}' is not one",
                params.guide
            ));
        }
        let model = optional_policy("model", &params.model, "opponent model")?;
        Ok(SearchConfig {
            name: name.to_string(),
            kind,
            params,
            rollout: Box::new(rollout),
            own_rollout,
            guide,
            model,
        })
    }
}

/// As [`policy`] for a key that may be empty (`None`) and may name a
/// network preset too.
fn optional_policy(key: &str, name: &str, what: &str) -> Result<Option<Box<StrategySpec>>, String> {
    if name.is_empty() {
        return Ok(None);
    }
    let must_be = "a heuristic or network preset, random or first";
    policy(key, name, what, must_be).map(|p| Some(Box::new(p)))
}

/// Loads the policy a search plays in its simulations (`key = name` of the
/// `[search]` table, called `what` in errors): any strategy but a search
/// preset or an external program (`must_be` says what it may be).
fn policy(key: &str, name: &str, what: &str, must_be: &str) -> Result<StrategySpec, String> {
    let spec = StrategySpec::load_with(name, false).map_err(|e| format!("{what}: {e}"))?;
    if matches!(spec, StrategySpec::External { .. }) {
        return Err(format!(
            "{key} = '{name}' is an external program; the {what} must be {must_be}"
        ));
    }
    Ok(spec)
}
