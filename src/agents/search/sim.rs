//! A search's simulations: the simulated table and what the searches keep
//! between simulations ([`Sim`]), the decision at the root ([`Root`]), how
//! the hidden cards are dealt ([`Deal`]) and what a played-out round is
//! worth to each seat.

use super::actions::Mode;
use super::belief;
use super::walk::SimTable;
use super::Objective;
use crate::engine::cards::CardSet;
use crate::engine::game::{
    Agents, Game, Knowledge, Observation, Playout, ResumeAt, Rng, MAX_PLAYERS,
};
use crate::engine::rules::Scoring;
use rand::{Rng as _, RngCore, SeedableRng};

/// The decision a root search is about.
#[derive(Clone, Copy, Debug)]
pub(super) struct Root {
    pub(super) at: ResumeAt,
    pub(super) decline_challenge: bool,
}

/// How a simulation deals the hidden cards.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Deal {
    Uniform,
    Informed,
    /// The true deal (`oracle`).
    Reveal,
    /// The hands of the players at the places set in the mask (bit `k`:
    /// `k` places on in the direction of play) as they are, the rest dealt
    /// uniformly (`oracle` with `sees_next` or `sees_previous`, fewer than
    /// the others).
    RevealPlaces(u16),
    /// Uniformly at random, the hands dealt first (`model_sampler = "hands"`).
    Hands,
    /// The hands of the model's Markov chain (`model_sampler = "chain"`).
    Chain,
}

/// The simulated table and what the searches keep between simulations.
pub(super) struct Sim {
    /// The agent's seat and the table size.
    pub(super) me: u8,
    pub(super) players: usize,
    pub(super) table: SimTable,
    pub(super) deal: Deal,
    /// What the agent knows at the decision at hand (`Deal::Informed`).
    pub(super) know: Option<Knowledge>,
    /// `ismcts`: the budget counts per legal action.
    pub(super) per_action: bool,
    /// `ismcts`: the root is paired (every action on the same determinizations).
    pub(super) paired: bool,
    /// `pimc`: the summed reward of each root action, and the actions still
    /// in the running (successive halving).
    pub(super) sums: Vec<f64>,
    pub(super) alive: Vec<usize>,
    /// Simulations played.
    pub(super) played: u64,
    /// `pimc` with a `model`: the opponent model that accepts deals.
    pub(super) model: Option<belief::OpponentModel>,
    /// The most candidates per determinization (`model_tries`; the chain's
    /// steps per determinization).
    pub(super) tries_per_deal: u32,
    /// `Deal::Chain`: the chain's state (`None` until the decision's first
    /// determinization).
    pub(super) chain: Option<belief::HandChain>,
    /// With a `model`: the other players' last turns at the decision at
    /// hand, read once for it.
    pub(super) turns: belief::TableTurns,
}

impl Sim {
    /// The seed of the next determinization: the next of `rng`; with an
    /// opponent model, the first of up to `model_tries` candidates accepted
    /// with the chance its weight gives (rejection sampling: accepted deals
    /// follow the model's posterior, each counting once), else the one of
    /// highest weight (the first on a tie).
    ///
    /// `weigh` is the decision's game to weigh hands in (`None` before its
    /// first determinization; kept by the caller for the next): what it
    /// holds besides the hands the model does not see, and each turn
    /// weighed sets the top card and colour it answered, so one game serves
    /// every weighing of the decision.
    pub(super) fn next_deal<'r>(
        &mut self,
        obs: &Observation<'r>,
        weigh: &mut Option<Game<'r>>,
        rng: &mut Rng,
    ) -> u64 {
        if self.deal == Deal::Chain {
            return self.chain_step(obs, weigh_game(weigh, obs), rng);
        }
        let Some(model) = self.model.as_mut() else {
            return rng.next_u64();
        };
        let mut best = (0, -1.0);
        // `hands`: every candidate's hands weighed in the one game.
        let mut hands = [CardSet::EMPTY; MAX_PLAYERS];
        for _ in 0..self.tries_per_deal {
            let seed = rng.next_u64();
            let mut det = Rng::seed_from_u64(seed);
            let w = match self.deal {
                Deal::Hands => {
                    let g = weigh_game(weigh, obs);
                    Game::deal_hands(obs, &mut det, &mut hands);
                    g.set_hands(&hands);
                    model.weight(obs, &self.turns, g, &mut det)
                }
                _ => {
                    let mut g = deal(self.deal, self.know.as_ref(), obs, &mut det);
                    model.weight(obs, &self.turns, &mut g, &mut det)
                }
            };
            if w >= 1.0 || rng.random::<f64>() < w {
                return seed;
            }
            if w > best.1 {
                best = (seed, w);
            }
        }
        best.0
    }

    /// `Deal::Chain`: runs the model's chain `model_tries` steps on (from a
    /// uniform deal at the decision's first determinization) and returns
    /// the seed of the rest of the determinization (the draw pile, the
    /// rollouts).
    fn chain_step(&mut self, obs: &Observation, g: &mut Game, rng: &mut Rng) -> u64 {
        let model = self.model.as_mut().expect("the chain sampler has a model");
        let chain = self.chain.get_or_insert_with(|| {
            belief::HandChain::start(model, obs, &self.turns, g, self.know.as_ref(), rng)
        });
        chain.run(model, obs, &self.turns, g, self.tries_per_deal, rng);
        rng.next_u64()
    }

    /// One simulation: a determinization from `det_seed`, the walk in `mode`,
    /// the round played on; the rewards of every seat.
    pub(super) fn simulate(
        &mut self,
        obs: &Observation,
        root: Root,
        mode: Mode,
        det_seed: u64,
        objective: Objective,
    ) -> [f64; MAX_PLAYERS] {
        let (mut g, agents_seed) = self.dealt(obs, det_seed);
        self.play_out(obs, root, mode, &mut g, agents_seed, objective)
    }

    /// The determinization of `det_seed`, ready to be played on, and the
    /// seed of the simulated seats' generator: what [`Sim::simulate`] deals
    /// before it plays. Several actions tried on the same determinization
    /// can each play a copy of it ([`Sim::play_out`]) instead of dealing it
    /// again: the same game, for a copy of the struct instead of a shuffle.
    pub(super) fn dealt<'r>(&self, obs: &Observation<'r>, det_seed: u64) -> (Game<'r>, u64) {
        let mut det = Rng::seed_from_u64(det_seed);
        let mut g = match (self.deal, &self.chain) {
            // An informed chain settles a pending Wild Draw Four from the
            // hands it dealt, as an informed deal does.
            (Deal::Chain, Some(c)) => match &self.know {
                Some(k) => Game::determinize_with_hands_informed(obs, c.hands(), k, &mut det),
                None => Game::determinize_with_hands(obs, c.hands(), &mut det),
            },
            _ => deal(self.deal, self.know.as_ref(), obs, &mut det),
        };
        // An ordered draw pile (the determinization shuffled it): the same
        // cards come in the same order whatever the action tried, so actions
        // are compared on common random numbers.
        g.set_lazy_pile(false);
        (g, det.next_u64())
    }

    /// Plays the round on in `g` (from [`Sim::dealt`]) with the walk in
    /// `mode`; the rewards of every seat.
    pub(super) fn play_out(
        &mut self,
        obs: &Observation,
        root: Root,
        mode: Mode,
        g: &mut Game,
        agents_seed: u64,
        objective: Objective,
    ) -> [f64; MAX_PLAYERS] {
        self.played += 1;
        self.table.begin(mode, root.decline_challenge);
        let mut agents = Agents {
            seats: &mut self.table,
            rng: Rng::seed_from_u64(agents_seed),
        };
        let out = g.resume_round(obs.seat(), root.at, &mut agents);
        rewards(g, &out, objective)
    }
}

/// The decision's game to weigh hands in ([`Sim::next_deal`]), made at its
/// first use: a determinization from a fixed seed, whose hands every
/// weighing overwrites.
fn weigh_game<'a, 'r>(weigh: &'a mut Option<Game<'r>>, obs: &Observation<'r>) -> &'a mut Game<'r> {
    weigh.get_or_insert_with(|| Game::determinize(obs, &mut Rng::seed_from_u64(0)))
}

/// The hidden cards dealt as a search deals them (`know`: what it knows,
/// for `Deal::Informed`).
fn deal<'r>(how: Deal, know: Option<&Knowledge>, obs: &Observation<'r>, det: &mut Rng) -> Game<'r> {
    match (how, know) {
        (Deal::Informed, Some(k)) => Game::determinize_informed(obs, k, det),
        (Deal::Reveal, _) => Game::reveal(obs, det),
        (Deal::RevealPlaces(places), _) => Game::reveal_places(obs, places, det),
        (Deal::Hands, _) => Game::determinize_by_hands(obs, det),
        _ => Game::determinize(obs, det),
    }
}

/// The reward of every seat for a played-out round.
fn rewards(g: &Game, out: &Playout, objective: Objective) -> [f64; MAX_PLAYERS] {
    let mut r = [0.0; MAX_PLAYERS];
    if out.illegal {
        return r;
    }
    match objective {
        Objective::Win => {
            if let Some(w) = out.winner {
                r[w as usize] = 1.0;
            }
        }
        Objective::Points => {
            let penalty = g.rules().settings.scoring == Scoring::Penalty;
            for s in 0..g.players() {
                let net = if penalty {
                    -(out.points[s] as f64)
                } else if out.winner == Some(s as u8) {
                    out.points[s] as f64
                } else {
                    -(out.hand_points[s] as f64)
                };
                r[s] = net / 100.0;
            }
        }
    }
    r
}
