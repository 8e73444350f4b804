//! `model`: belief-weighted determinizations. A determinization deals every
//! other player a hand; an opponent model (a preset: how the others are taken
//! to play) says how likely each player's last turn (the card it played and
//! the colour it named, or its draw: [`Observation::last_turn`]) was with the
//! hand the deal gives it at that turn. The deal's weight is the product of
//! those chances over the other players and their turns. `pimc` keeps a candidate deal with
//! the chance its weight gives (rejection sampling), so the deals it plays
//! follow the model's posterior and each counts once. Averaging every deal's
//! rewards with its weight instead (importance weighting) was measured too:
//! with fewer deals that count, it lost to plain `pimc` (docs/agents.md).
//!
//! A player is taken to play as the model with chance `1 - noise` and a
//! uniformly random legal action (a card, or a draw where drawing is allowed;
//! with a wild, any of the four colours) with chance `noise`, so no deal the
//! rules allow weighs nothing. The model's choice is one sample of it (a
//! randomised model's chance is estimated, without bias, by that sample).
//!
//! With `model_turns = K`, each player's last K turns count (the newest
//! first, at most [`MAX_TURNS`]). The hand at a turn is the hand after it
//! (the dealt hand, for the newest) less the cards drawn since (as many as
//! the hand grew by, picked at random among its cards: which ones were drawn
//! is as hidden as the rest) plus the card played. The model sees
//! that hand on the top card and colour of that turn; the rest of the table
//! (other hands' sizes, the discard pile) is as it is now.

use crate::agents::{Seat, StrategySpec};
use crate::engine::cards::CardSet;
use crate::engine::game::{
    below, Constraints, Game, Knowledge, LastTurn, Observation, Rng, Turns, MAX_PLAYERS, MAX_TURNS,
};
use crate::engine::strategy::Strategy;
use rand::Rng as _;

/// The least weight of a deal: one whose observed turn the rules did not
/// allow (a draw with a playable card under `force_play`) weighs this, so
/// that a decision whose every deal is impossible still compares actions.
const FLOOR: f64 = 1e-9;

/// Every other player's last turns ([`Observation::last_turns`]) at one
/// decision, read once for it: the model weighs many deals per decision
/// against the same turns.
#[derive(Clone, Debug)]
pub struct TableTurns {
    turns: [Turns; MAX_PLAYERS],
}

impl TableTurns {
    /// No turns (before a decision's are read).
    pub const EMPTY: TableTurns = TableTurns {
        turns: [Turns::EMPTY; MAX_PLAYERS],
    };

    /// The last turns of every player but `obs`'s seat (whose own entry is
    /// empty).
    pub fn read(obs: &Observation) -> TableTurns {
        let mut t = TableTurns::EMPTY;
        t.read_into(obs);
        t
    }

    /// [`TableTurns::read`] in place.
    pub fn read_into(&mut self, obs: &Observation) {
        let me = obs.seat() as usize;
        for h in 0..MAX_PLAYERS {
            self.turns[h] = if h != me && h < obs.players() {
                obs.last_turns(h)
            } else {
                Turns::EMPTY
            };
        }
    }

    /// Seat `h`'s last turns.
    pub fn of(&self, h: usize) -> &Turns {
        &self.turns[h]
    }
}

/// The opponent model of a search agent, one instance per seat.
pub struct OpponentModel {
    seats: Vec<Seat>,
    noise: f64,
    /// How many of each player's last turns count.
    turns: usize,
}

impl OpponentModel {
    /// The model `spec` for a table of `players`, with `noise`, counting
    /// each player's last `turns` turns (at most [`MAX_TURNS`]).
    pub fn new(spec: &StrategySpec, players: usize, noise: f64, turns: usize) -> OpponentModel {
        OpponentModel {
            seats: (0..players).map(|_| spec.instantiate()).collect(),
            noise,
            turns: turns.min(MAX_TURNS),
        }
    }

    /// The weight of the deal `g` (a determinization for `obs`'s seat): the
    /// product over the other players' known last turns (`turns`, read
    /// from `obs`) of the chance the model, with its noise, gives to each.
    /// `g` is the view the model is shown: each player's hand is put back
    /// once its turns are weighed, the top card and colour are not (`g` is
    /// left for no other use).
    pub fn weight(
        &mut self,
        obs: &Observation,
        turns: &TableTurns,
        g: &mut Game,
        rng: &mut Rng,
    ) -> f64 {
        let me = obs.seat() as usize;
        let mut w = 1.0;
        for h in 0..obs.players() {
            if h != me {
                w *= self.likelihood(obs, g, h, turns.of(h), rng);
            }
        }
        w
    }

    /// The chance of `h`'s last turns `turns` (at most `self.turns` of
    /// them, the newest first) with the hand `g` deals it, traced back turn
    /// by turn; 1 for the turns that cannot be traced back.
    fn likelihood(
        &mut self,
        obs: &Observation,
        g: &mut Game,
        h: usize,
        turns: &Turns,
        rng: &mut Rng,
    ) -> f64 {
        let dealt = g.hand(h);
        let mut hand = dealt;
        let mut drawn = obs.cards_drawn_by(h);
        let mut p = 1.0;
        for t in turns.iter().rev().take(self.turns) {
            // The hand at `t`: less the cards drawn since (as many as it
            // grew by), plus the card played.
            let played = t.card.is_some() as u32;
            let since = drawn.wrapping_sub(t.at);
            let Some(extra) = (hand.len() + played).checked_sub(t.size as u32) else {
                break;
            };
            if extra > since || extra > hand.len() {
                break;
            }
            for _ in 0..extra {
                let k = below(rng, hand.len());
                if let Some(c) = hand.nth_small(k) {
                    hand.remove(c);
                }
            }
            if let Some(c) = t.card {
                hand.insert(c);
            }
            p *= self.chance(obs, g, h, hand, t, rng);
            drawn = t.at;
        }
        if let Some(t) = turns.last() {
            g.rewind_to(h, dealt, t);
        }
        p
    }

    /// The chance that `h`, holding `then`, made the turn `t`.
    fn chance(
        &mut self,
        obs: &Observation,
        g: &mut Game,
        h: usize,
        then: CardSet,
        t: &LastTurn,
        rng: &mut Rng,
    ) -> f64 {
        g.rewind_to(h, then, t);
        let playable = g.playable(then);
        let s = obs.settings();
        let may_draw = playable.is_empty() || (!s.force_play && s.may_draw_when_playable);
        if t.card.is_none() && !may_draw {
            return FLOOR;
        }
        let options = (playable.len() + may_draw as u32) as f64;
        let model = &mut self.seats[h];
        let choice = if playable.is_empty() {
            None
        } else {
            model.choose_play(&Observation::of(g, h as u8), playable, rng)
        };
        let mut agree = choice == t.card;
        let mut uniform = 1.0 / options;
        if let (Some(c), Some(named)) = (t.card, t.named) {
            uniform /= 4.0;
            if agree {
                g.rewind_to(h, then - CardSet::single(c), t);
                agree = model.choose_color(&Observation::of(g, h as u8), rng) == named;
            }
        }
        let p = (1.0 - self.noise) * agree as u8 as f64 + self.noise * uniform;
        p.max(FLOOR)
    }
}

/// A Markov chain over the other players' hands whose stationary
/// distribution is the model's posterior (`model_sampler = "chain"`,
/// Metropolis-Hastings). A step picks another player `p` and a card of its
/// hand at random, and an unseen card outside that hand at random (in
/// another hand or the draw pile), and swaps them: a symmetric proposal,
/// since every hand keeps its size (the reverse swap has the same chance).
/// The swap is kept with the chance min(1, w' / w), where only the changed
/// hands are weighed again (the other players' factors cancel). The
/// likelihood of the current state is kept, not weighed again: where the
/// weighing draws at random (the cards drawn since a turn, a randomised
/// model) it is an unbiased estimate, and the chain is pseudo-marginal,
/// with the same stationary distribution.
///
/// With what the table revealed (`determinize = "informed"`: a
/// [`Knowledge`]), the chain starts at an informed deal, never moves a card
/// the observer knows the place of (the proposal picks among the other
/// cards alone, so it stays symmetric), and refuses a swap that breaks a
/// hand's public hard constraints (a draw where a play was required, a Wild
/// Draw Four under the colour restriction, a reshuffle:
/// [`Observation::constraints`]) or puts in the draw pile a card that,
/// after a reshuffle, must be in a hand ([`Observation::pile_may_hold`]),
/// so its states are the deals consistent with that knowledge, weighed by
/// the model. Without knowledge its draws are exactly the uniform chain's.
///
/// The chain lives for one decision; the other players' last turns it
/// weighs are read once for that decision ([`TableTurns`]).
#[derive(Clone, Debug)]
pub struct HandChain {
    hands: [CardSet; MAX_PLAYERS],
    likelihood: [f64; MAX_PLAYERS],
    /// The cards whose hand the observer knows: never moved.
    pinned: CardSet,
    /// Each hand's public hard constraints (empty without knowledge).
    constraints: [Constraints; MAX_PLAYERS],
    /// The cards the draw pile may hold (every card without knowledge; after
    /// a reshuffle, its cards): a swap that would put another in the pile
    /// is refused.
    pile: CardSet,
}

impl HandChain {
    /// A chain at a uniformly random deal for `obs` ([`Game::deal_hands`]),
    /// or with `know` (when it holds anything) at an informed one
    /// ([`Game::determinize_informed`]), weighed against `turns` (read from
    /// `obs`) in `g` (a determinization for `obs`; its hands are
    /// overwritten).
    pub fn start(
        model: &mut OpponentModel,
        obs: &Observation,
        turns: &TableTurns,
        g: &mut Game,
        know: Option<&Knowledge>,
        rng: &mut Rng,
    ) -> HandChain {
        let mut hands = [CardSet::EMPTY; MAX_PLAYERS];
        let mut pinned = CardSet::EMPTY;
        let mut constraints = [Constraints::default(); MAX_PLAYERS];
        let mut pile = obs.rules().deck.all;
        match know.filter(|k| !k.is_empty()) {
            Some(k) => {
                pile = k.pile();
                let dealt = Game::determinize_informed(obs, k, rng);
                for (h, hand) in hands.iter_mut().enumerate().take(obs.players()) {
                    *hand = dealt.hand(h);
                    if h != obs.seat() as usize {
                        pinned |= k.known(h);
                        constraints[h] = obs.constraints(h);
                    }
                }
            }
            None => {
                Game::deal_hands(obs, rng, &mut hands);
            }
        }
        g.set_hands(&hands);
        let me = obs.seat() as usize;
        let mut likelihood = [1.0; MAX_PLAYERS];
        for h in 0..obs.players() {
            if h != me {
                likelihood[h] = model.likelihood(obs, g, h, turns.of(h), rng);
            }
        }
        HandChain {
            hands,
            likelihood,
            pinned,
            constraints,
            pile,
        }
    }

    /// Whether `hand` keeps the hard constraints of seat `h`.
    fn allowed(&self, h: usize, hand: CardSet) -> bool {
        self.constraints[h]
            .iter()
            .all(|(excl, min)| (hand - excl).len() >= min)
    }

    /// Every seat's hand in the current state (the observer's own entry is
    /// its hand).
    pub fn hands(&self) -> &[CardSet; MAX_PLAYERS] {
        &self.hands
    }

    /// Runs `steps` steps on, weighing in `g` (a determinization for `obs`,
    /// the one the chain started for; its hands are overwritten) with the
    /// turns the chain started with.
    pub fn run(
        &mut self,
        model: &mut OpponentModel,
        obs: &Observation,
        turns: &TableTurns,
        g: &mut Game,
        steps: u32,
        rng: &mut Rng,
    ) {
        let me = obs.seat() as usize;
        let n = obs.players();
        let movable = obs.rules().deck.all - obs.discard() - obs.hand() - self.pinned;
        for _ in 0..steps {
            let k = rng.random_range(0..n - 1);
            let p = if k >= me { k + 1 } else { k };
            let hand = self.hands[p];
            let mine = hand & movable;
            let outside = movable - hand;
            if mine.is_empty() || outside.is_empty() {
                continue;
            }
            let (Some(c), Some(d)) = (
                mine.nth_small(below(rng, mine.len())),
                outside.nth_small(below(rng, outside.len())),
            ) else {
                continue;
            };
            let q = (0..n).find(|&q| q != me && q != p && self.hands[q].contains(d));
            // A swap that breaks a hard constraint leaves the state as it is
            // (the posterior is nought there).
            let (c_set, d_set) = (CardSet::single(c), CardSet::single(d));
            let new_p = (hand - c_set) | d_set;
            let other = q.map(|q| (q, self.hands[q], (self.hands[q] - d_set) | c_set));
            let keeps = match other {
                Some((q, _, new_q)) => self.allowed(q, new_q),
                None => self.pile.contains(c),
            };
            if !keeps || !self.allowed(p, new_p) {
                continue;
            }
            // The proposal in place; undone if it is not kept.
            self.hands[p] = new_p;
            if let Some((q, _, new_q)) = other {
                self.hands[q] = new_q;
            }
            g.set_hands(&self.hands);
            let next_p = model.likelihood(obs, g, p, turns.of(p), rng);
            let mut ratio = next_p / self.likelihood[p];
            let next_q = q.map(|q| model.likelihood(obs, g, q, turns.of(q), rng));
            if let (Some(q), Some(l)) = (q, next_q) {
                ratio *= l / self.likelihood[q];
            }
            if ratio >= 1.0 || rng.random::<f64>() < ratio {
                self.likelihood[p] = next_p;
                if let (Some(q), Some(l)) = (q, next_q) {
                    self.likelihood[q] = l;
                }
            } else {
                self.hands[p] = hand;
                if let Some((q, h, _)) = other {
                    self.hands[q] = h;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::game::testing::round_states_noting;
    use crate::engine::rules::Rules;
    use crate::engine::strategy::Tracking;
    use rand::SeedableRng;

    /// After a reshuffle, at states of random play under `draw_to_match` at
    /// 3 and 4 players: every state of the informed chain leaves in the
    /// draw pile only cards it may hold, though a hand that drew since may
    /// give it a card its notes do not need; without the pile's check
    /// (`pile` set to every card) some state does not.
    #[test]
    fn after_a_reshuffle_the_informed_chain_keeps_the_pile_to_its_cards() {
        let mut rules = Rules::builtin("classic");
        rules.settings.draw_to_match = true;
        let d = &rules.deck;
        let spec = StrategySpec::load("color").unwrap();
        let (mut states, mut loose_broke) = (0, 0);
        for players in 3..=4 {
            for seed in 0..6u64 {
                let all = round_states_noting(&rules, players, seed, Tracking::Plays);
                for (turn, g) in all.iter().enumerate().step_by(3) {
                    let obs = Observation::of(g, (turn % players) as u8);
                    let may = obs.pile_may_hold();
                    if may == d.all {
                        continue;
                    }
                    let know = Knowledge::of(&obs);
                    let turns = TableTurns::read(&obs);
                    let mut model = OpponentModel::new(&spec, players, 0.25, 6);
                    for loose in [false, true] {
                        let mut rng = Rng::seed_from_u64(seed * 1000 + turn as u64);
                        let mut sim = Game::determinize(&obs, &mut rng);
                        let mut chain = HandChain::start(
                            &mut model,
                            &obs,
                            &turns,
                            &mut sim,
                            Some(&know),
                            &mut rng,
                        );
                        if loose {
                            chain.pile = d.all;
                        }
                        for _ in 0..40 {
                            chain.run(&mut model, &obs, &turns, &mut sim, 1, &mut rng);
                            let held = chain.hands()[..players]
                                .iter()
                                .fold(CardSet::EMPTY, |u, &h| u | h);
                            let pile = d.all - obs.discard() - held;
                            let kept = (pile - may).is_empty();
                            if loose {
                                loose_broke += !kept as usize;
                            } else {
                                assert!(kept, "a card outside the reshuffle's in the pile");
                            }
                        }
                    }
                    states += 1;
                }
            }
        }
        assert!(states >= 50 && loose_broke > 0, "{states} {loose_broke}");
    }
}
