//! The parametric `heuristic` strategy: each playable card gets a score from
//! the weights of [`HeuristicParams`] (its points, the colour it keeps, the
//! next player's hand, the discard pile), and the best is played. Its presets
//! (`points`, `color`, `cautious`, `tuned`, ...) are data files in
//! `strategies/`.

use crate::engine::cards::{CardId, CardSet, Color};
use crate::engine::game::{Observation, Rng};
use crate::engine::rules::Effect;
use crate::engine::strategy::{most_held_color, Strategy};
use rand::Rng as _;
use serde::{Deserialize, Serialize};

/// Parameters of the heuristic strategy. Each playable card gets a score; the
/// best is played (lowest card id on a tie).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct HeuristicParams {
    /// Weight of the card's points (dump high points first).
    pub points_weight: f64,
    /// Weight of how many cards of the card's colour the hand keeps after it
    /// (stay in the colour you hold most of).
    pub color_weight: f64,
    /// Subtracted from wild cards (keep wilds for when nothing else plays).
    pub wild_penalty: f64,
    /// Draw instead of playing when only wilds are playable and the hand holds
    /// more than this many cards (0: never hold back).
    pub hold_wilds_above: u32,
    /// Probability of forgetting to call UNO.
    pub forget_uno: f64,
    /// Challenge a Wild Draw Four when the challenger holds at most this many cards.
    pub challenge_below: u32,
    /// Jump in when possible.
    pub jump_in: bool,
    /// Play a playable drawn card.
    pub play_drawn: bool,
    /// The next player counts as "low" when holding at most this many cards
    /// (0: never).
    pub attack_below: u32,
    /// Added to cards that stop or punish the next player (Skip, Draw Two, Wild
    /// Draw Four, Downpour, and Reverse with two players) while the next player
    /// is low.
    pub attack_weight: f64,
    /// Subtracted from draw cards (Draw Two, Wild Draw Four, Downpour) while the
    /// next player is not low: hold them for when an opponent is about to go out.
    pub save_draws: f64,
    /// Weight of how many cards of the card's colour are on the discard pile (a
    /// colour mostly played out is one the others are less likely to hold);
    /// for a wild, the colour it names.
    pub discard_color_weight: f64,
    /// When naming a colour: weight of its cards on the discard pile, added to
    /// the cards of it held (0: name the colour held most).
    pub name_discard_weight: f64,
}

impl Default for HeuristicParams {
    fn default() -> Self {
        HeuristicParams {
            points_weight: 1.0,
            color_weight: 0.0,
            wild_penalty: 0.0,
            hold_wilds_above: 0,
            forget_uno: 0.0,
            challenge_below: 0,
            jump_in: true,
            play_drawn: true,
            attack_below: 0,
            attack_weight: 0.0,
            save_draws: 0.0,
            discard_color_weight: 0.0,
            name_discard_weight: 0.0,
        }
    }
}

impl HeuristicParams {
    /// The colour a wild names: the colour held most, or with
    /// `name_discard_weight`, held plus weighted discarded (first on a tie).
    #[inline]
    pub fn named_color(&self, obs: &Observation) -> Color {
        if self.name_discard_weight == 0.0 {
            return most_held_color(obs);
        }
        let d = &obs.rules().deck;
        let hand = obs.hand();
        let pile = obs.discard();
        let mut best = Color::Red;
        let mut best_score = f64::NEG_INFINITY;
        for c in Color::ALL {
            let m = d.color_mask[c.index()];
            let score =
                (hand & m).len() as f64 + self.name_discard_weight * (pile & m).len() as f64;
            if score > best_score {
                best = c;
                best_score = score;
            }
        }
        best
    }
}

/// A scored, parametric strategy (see [`HeuristicParams`]).
#[derive(Debug, Clone)]
pub struct Heuristic {
    pub name: String,
    pub params: HeuristicParams,
}

impl Strategy for Heuristic {
    fn name(&self) -> &str {
        &self.name
    }
    fn ask_without_choice(&self) -> bool {
        false
    }
    #[inline(never)]
    fn choose_play(&mut self, obs: &Observation, playable: CardSet, _: &mut Rng) -> Option<CardId> {
        let d = &obs.rules().deck;
        let p = &self.params;
        let hand = obs.hand();
        if playable.is_empty() {
            return None;
        }
        if p.hold_wilds_above > 0
            && (playable - d.wild).is_empty()
            && hand.len() > p.hold_wilds_above
            && obs.settings().may_draw_when_playable
            && !obs.settings().force_play
        {
            return None;
        }
        // A wild keeps the colour it names.
        let keeps = |named: Color| (hand & d.color_mask[named.index()]).len() as f64;
        if p.attack_weight != 0.0 || p.save_draws != 0.0 || p.discard_color_weight != 0.0 {
            let named = p.named_color(obs);
            return extended_choice(p, obs, playable, named, keeps(named));
        }
        // The colour a wild would name matters only when a wild is playable.
        let wild_keep = if (playable & d.wild).is_empty() {
            0.0
        } else {
            keeps(p.named_color(obs))
        };
        // The scoring of the hand-written presets: points and colour kept.
        let mut best = None;
        let mut best_score = f64::NEG_INFINITY;
        for c in playable.iter() {
            let mut score = p.points_weight * d.points_of[c as usize] as f64;
            match d.color(c) {
                Some(col) => {
                    let keep = (hand & d.color_mask[col.index()]).len() as f64 - 1.0;
                    score += p.color_weight * keep;
                }
                None => score += p.color_weight * wild_keep - p.wild_penalty,
            }
            if score > best_score {
                best_score = score;
                best = Some(c);
            }
        }
        best
    }
    fn play_drawn(&mut self, _: &Observation, _: CardId, _: &mut Rng) -> bool {
        self.params.play_drawn
    }
    fn choose_color(&mut self, obs: &Observation, _: &mut Rng) -> Color {
        self.params.named_color(obs)
    }
    fn call_uno(&mut self, _: &Observation, rng: &mut Rng) -> bool {
        self.params.forget_uno <= 0.0 || rng.random::<f64>() >= self.params.forget_uno
    }
    fn challenge(&mut self, obs: &Observation, _: &mut Rng) -> bool {
        obs.hand().len() <= self.params.challenge_below
    }
    fn jump_in(&mut self, _: &Observation, _: CardId, _: &mut Rng) -> bool {
        self.params.jump_in
    }
}

/// The heuristic's choice with the situational terms: the next player's hand
/// size (attack when low, hold draw cards otherwise) and the discard pile's
/// colour counts. Kept out of [`Heuristic::choose_play`] so that the presets
/// without these terms run the shorter loop.
#[inline(never)]
fn extended_choice(
    p: &HeuristicParams,
    obs: &Observation,
    playable: CardSet,
    named: Color,
    wild_keep: f64,
) -> Option<CardId> {
    let d = &obs.rules().deck;
    let hand = obs.hand();
    let situational = p.attack_weight != 0.0 || p.save_draws != 0.0;
    let low =
        p.attack_below > 0 && obs.hand_size(obs.seat_after(1) as usize) <= p.attack_below as usize;
    let two = obs.players() == 2;
    let pile = obs.discard();
    let mut best = None;
    let mut best_score = f64::NEG_INFINITY;
    for c in playable.iter() {
        let mut score = p.points_weight * d.points_of[c as usize] as f64;
        let col = d.color(c);
        match col {
            Some(col) => {
                let keep = (hand & d.color_mask[col.index()]).len() as f64 - 1.0;
                score += p.color_weight * keep;
            }
            None => score += p.color_weight * wild_keep - p.wild_penalty,
        }
        if situational {
            let (attack, draw) = match d.effect_of[c as usize] {
                Effect::Skip => (true, false),
                Effect::Reverse => (two, false),
                Effect::Draw2 | Effect::WildDraw4 | Effect::Downpour1 | Effect::Downpour2 => {
                    (true, true)
                }
                _ => (false, false),
            };
            if low {
                if attack {
                    score += p.attack_weight;
                }
            } else if draw {
                score -= p.save_draws;
            }
        }
        if p.discard_color_weight != 0.0 {
            let m = d.color_mask[col.unwrap_or(named).index()];
            score += p.discard_color_weight * (pile & m).len() as f64;
        }
        if score > best_score {
            best_score = score;
            best = Some(c);
        }
    }
    best
}
