//! What is hidden from a player, and checks over everything: determinizations
//! (the cards a player cannot see dealt at random, for search agents:
//! uniformly, or consistently with what the table revealed to it), the true
//! deal for the perfect-information reference agent, and the
//! card-conservation invariant (for tests).

use super::{below, Game, LastTurn, Observation, Rng, MAX_PLAYERS};
use crate::engine::cards::{CardId, CardSet};
use rand::{Rng as _, SeedableRng};

impl<'r> Game<'r> {
    /// A copy of the observed game to deal hidden cards into: a generator
    /// of its own, no scripted deck, no private knowledge (its hands are not
    /// the real ones).
    pub(super) fn hidden_copy(obs: &Observation<'r>, rng: &mut Rng) -> Game<'r> {
        let mut g = obs.g.clone();
        g.rng = Rng::seed_from_u64(rng.random());
        g.scripted = None;
        g.ledger.forget_private();
        g
    }

    /// Builds a full game state from an observation and a uniformly random
    /// assignment of the cards the observer cannot see (for search agents): the
    /// observer's hand, the discard pile, hand sizes, direction and totals are
    /// kept; the other hands and the draw-pile order are sampled.
    pub fn determinize(obs: &Observation<'r>, rng: &mut Rng) -> Game<'r> {
        let src = obs.g;
        let mut g = Game::hidden_copy(obs, rng);
        let me = obs.seat as usize;
        let unseen = src.rules.deck.all - src.discard - src.hands[me];
        let mut pool = [0 as CardId; 128];
        let len = shuffled(unseen, &mut pool, rng);
        let mut k = 0;
        for seat in 0..src.n as usize {
            if seat == me {
                continue;
            }
            let want = src.hands[seat].len() as usize;
            let mut h = CardSet::EMPTY;
            for &c in &pool[k..k + want] {
                h.insert(c);
            }
            k += want;
            g.hands[seat] = h;
        }
        let rest = &pool[k..len];
        g.pile.cards[..rest.len()].copy_from_slice(rest);
        g.pile.len = rest.len() as u8;
        // Whether a pending Wild Draw Four was a bluff depends on a hand the
        // observer never saw: a coin flip, not the real answer (unless the
        // observer played it).
        if g.wd4_pending() && src.wd4_player != obs.seat {
            g.wd4_guilty = rng.random::<bool>();
        }
        g
    }

    /// The other players' hands of a uniformly random determinization for
    /// `obs`, dealt first, card by card from the unseen cards in seat order
    /// (each a uniformly random one of those left: one draw per card), into
    /// `hands` (the observer's own entry is its hand); returns the unseen
    /// cards left (the draw pile's). [`Game::determinize_by_hands`] from the
    /// same generator state deals the same hands and then the draw pile, so
    /// a search can weigh many candidate hands and build the game only for
    /// the one it keeps.
    pub fn deal_hands(
        obs: &Observation<'r>,
        rng: &mut Rng,
        hands: &mut [CardSet; MAX_PLAYERS],
    ) -> CardSet {
        Game::deal_unseen(obs, rng, hands, 1 << obs.seat)
    }

    /// [`Game::deal_hands`] where the seats of `seen` (a bit per seat) hold
    /// their true hands: the others are dealt, in seat order, from the cards
    /// in none of those hands nor on the discard pile; returns the cards
    /// left.
    fn deal_unseen(
        obs: &Observation<'r>,
        rng: &mut Rng,
        hands: &mut [CardSet; MAX_PLAYERS],
        seen: u16,
    ) -> CardSet {
        let src = obs.g;
        let n = src.n as usize;
        let mut left = src.rules.deck.all - src.discard;
        for seat in (0..n).filter(|s| seen >> s & 1 == 1) {
            left -= src.hands[seat];
        }
        for seat in 0..n {
            if seen >> seat & 1 == 1 {
                hands[seat] = src.hands[seat];
                continue;
            }
            let mut h = CardSet::EMPTY;
            for _ in 0..src.hands[seat].len() {
                let k = below(rng, left.len());
                if let Some(c) = left.nth_small(k) {
                    left.remove(c);
                    h.insert(c);
                }
            }
            hands[seat] = h;
        }
        left
    }

    /// Puts `hands` in every seat (a determinization's view for weighing
    /// candidate hands from [`Game::deal_hands`]; the draw pile is left as
    /// it is, so the cards no longer add up until the next deal).
    pub(crate) fn set_hands(&mut self, hands: &[CardSet; MAX_PLAYERS]) {
        let n = self.n as usize;
        self.hands[..n].copy_from_slice(&hands[..n]);
    }

    /// A uniformly random determinization as [`Game::determinize`] makes
    /// (the same distribution), dealt hands first: the hands
    /// [`Game::deal_hands`] deals from the same generator state, then the
    /// rest of the unseen cards shuffled into the draw pile.
    pub fn determinize_by_hands(obs: &Observation<'r>, rng: &mut Rng) -> Game<'r> {
        let mut hands = [CardSet::EMPTY; MAX_PLAYERS];
        Game::deal_hands(obs, rng, &mut hands);
        Game::determinize_with_hands(obs, &hands, rng)
    }

    /// The determinization for `obs` whose hands are `hands` (the
    /// observer's own entry its hand, every other hand of its true size, no
    /// card seen by the observer in any), the rest of the unseen cards
    /// shuffled into the draw pile. From a generator state after
    /// [`Game::deal_hands`] it builds what [`Game::determinize_by_hands`]
    /// builds.
    pub fn determinize_with_hands(
        obs: &Observation<'r>,
        hands: &[CardSet; MAX_PLAYERS],
        rng: &mut Rng,
    ) -> Game<'r> {
        let src = obs.g;
        let n = src.n as usize;
        let mut left = src.rules.deck.all - src.discard;
        for (seat, h) in hands[..n].iter().enumerate() {
            debug_assert_eq!(h.len(), src.hands[seat].len());
            left -= *h;
        }
        let mut g = Game::hidden_copy(obs, rng);
        g.set_hands(hands);
        let mut pool = [0 as CardId; 128];
        let len = shuffled(left, &mut pool, rng);
        g.pile.cards[..len].copy_from_slice(&pool[..len]);
        g.pile.len = len as u8;
        if g.wd4_pending() && src.wd4_player != obs.seat {
            g.wd4_guilty = rng.random::<bool>();
        }
        g
    }

    /// The true deal, for the perfect-information reference agent (`oracle`)
    /// only: every hand as it is, the draw pile's cards in a random order
    /// (with the runner's unordered pile there is no order to see). No
    /// strategy that plays fair may call this, so it is not public: a
    /// strategy outside the crate (which any `Observation` would let call
    /// it) cannot see the hands through it; `oracle` is the crate's.
    pub(crate) fn reveal(obs: &Observation<'r>, rng: &mut Rng) -> Game<'r> {
        let src = obs.g;
        let mut g = Game::hidden_copy(obs, rng);
        let len = src.pile.len as usize;
        for i in (1..len).rev() {
            let j = below(rng, i as u32 + 1) as usize;
            g.pile.cards.swap(i, j);
        }
        g
    }

    /// A partial ceiling, for the perfect-information reference agent
    /// (`oracle` with `sees_next` or `sees_previous`) only, private for the
    /// reason [`Game::reveal`] is: the hands of the players `k` places from
    /// the observer in the direction of play, for every bit `k` set in
    /// `places` (1: the next player, `n - 1`: the previous one), as they
    /// are; the other players' hands and the draw pile dealt uniformly from
    /// the cards left. A Wild Draw Four pending from a seen hand keeps its
    /// true guilt.
    pub(crate) fn reveal_places(obs: &Observation<'r>, places: u16, rng: &mut Rng) -> Game<'r> {
        let src = obs.g;
        let mut seen = 1u16 << obs.seat;
        for k in 1..src.n {
            if places >> k & 1 == 1 {
                seen |= 1 << obs.seat_after(k);
            }
        }
        let mut hands = [CardSet::EMPTY; MAX_PLAYERS];
        Game::deal_unseen(obs, rng, &mut hands, seen);
        let mut g = Game::determinize_with_hands(obs, &hands, rng);
        if g.wd4_pending() && seen >> src.wd4_player & 1 == 1 {
            g.wd4_guilty = src.wd4_guilty;
        }
        g
    }

    /// Turns this game (a determinization, played no further) into the
    /// table as `seat` saw it at its turn `t` (an opponent model's view, for
    /// weighing the deal): `seat` holding `hand`, on `t`'s top card and
    /// colour, nothing pending. The rest (other hands, the discard pile) is
    /// as it is: a model that reads them sees the present.
    pub fn rewind_to(&mut self, seat: usize, hand: CardSet, t: &LastTurn) {
        self.hands[seat] = hand;
        self.top = t.top;
        self.pending = 0;
        match self.rules.deck.color(t.top) {
            Some(_) => self.set_colored_top(t.top, t.color),
            None => self.set_color(t.color),
        }
    }

    /// A Wild Draw Four is pending and may be challenged.
    pub(super) fn wd4_pending(&self) -> bool {
        self.pending > 0 && self.s.bluff_challenge && self.rules.deck.wd4.contains(self.top)
    }

    /// Checks the invariants of a round in progress or just ended: every card is
    /// in exactly one place (a hand, the draw pile or the discard pile).
    pub fn check_conservation(&self) -> Result<(), String> {
        let mut seen = CardSet::EMPTY;
        let mut total = 0u32;
        for (i, h) in self.hands().iter().enumerate() {
            if !(seen & *h).is_empty() {
                return Err(format!("hand {i} overlaps another place: {:?}", seen & *h));
            }
            seen |= *h;
            total += h.len();
        }
        for c in self.draw_pile() {
            if seen.contains(c) {
                return Err(format!("draw-pile card {c} is also elsewhere"));
            }
            seen.insert(c);
            total += 1;
        }
        if !(seen & self.discard).is_empty() {
            return Err("discard pile overlaps another place".into());
        }
        seen |= self.discard;
        total += self.discard.len();
        if !self.discard.contains(self.top) {
            return Err("the top card is not on the discard pile".into());
        }
        if seen != self.rules.deck.all || total as usize != self.rules.deck.size {
            return Err(format!(
                "cards not conserved: {} placed of {}",
                total, self.rules.deck.size
            ));
        }
        Ok(())
    }
}

/// Writes the cards of `set` into `out` in a uniformly random order; returns
/// how many.
pub(super) fn shuffled(set: CardSet, out: &mut [CardId; 128], rng: &mut Rng) -> usize {
    let mut len = 0;
    for c in set.iter() {
        out[len] = c;
        len += 1;
    }
    for i in (1..len).rev() {
        let j = below(rng, i as u32 + 1) as usize;
        out.swap(i, j);
    }
    len
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::game::testing::round_states;
    use crate::engine::rules::Rules;

    /// `reveal_places` at 4 players, at many states of random play, for
    /// every set of places it can be given: the observer and the players at
    /// those places (in the direction of play) hold their true hands in
    /// every deal, the others hold hands of their true sizes that differ
    /// from the truth in some deals, and every card is in exactly one place.
    #[test]
    fn reveal_places_deals_the_seen_hands_true_and_the_others_at_random() {
        let rules = Rules::builtin("classic");
        let d = &rules.deck;
        let mut checked = [0; 7];
        for seed in 0..12 {
            for (turn, g) in round_states(&rules, 4, seed).iter().enumerate().take(40) {
                if turn % 4 != 3 {
                    continue;
                }
                let obs = Observation::of(g, (turn / 4 % 4) as u8);
                let mut rng = Rng::seed_from_u64(seed * 100 + turn as u64);
                // Every set of places among 1, 2 and 3 (bits 1 to 3).
                for set in 1..8u16 {
                    let places = set << 1;
                    let seen: Vec<usize> = (0..4u8)
                        .filter(|&k| k == 0 || places >> k & 1 == 1)
                        .map(|k| obs.seat_after(k) as usize)
                        .collect();
                    let mut differed = false;
                    for _ in 0..30 {
                        let det = Game::reveal_places(&obs, places, &mut rng);
                        let mut all = det.discard;
                        for s in 0..4 {
                            assert_eq!(det.hands[s].len(), g.hands[s].len());
                            assert!((all & det.hands[s]).is_empty());
                            all |= det.hands[s];
                            if seen.contains(&s) {
                                assert_eq!(det.hands[s], g.hands[s], "seat {s} seen");
                            } else {
                                differed |= det.hands[s] != g.hands[s];
                            }
                        }
                        let pile = det.pile.cards[..det.pile.len as usize]
                            .iter()
                            .fold(CardSet::EMPTY, |p, &c| p | CardSet::single(c));
                        assert!((all & pile).is_empty());
                        assert_eq!(all | pile, d.all);
                    }
                    // Every hand seen: nothing is dealt at random. Else an
                    // unseen hand that holds a card differs in some deal.
                    let unseen_cards = (0..4).any(|s| !seen.contains(&s) && !g.hands[s].is_empty());
                    assert_eq!(differed, unseen_cards, "places {places:b}");
                    checked[set as usize - 1] += 1;
                }
            }
        }
        assert!(checked.iter().all(|&k| k >= 30), "{checked:?}");
    }

    /// `reveal_places` at 2 to 10 players under `bluff_challenge`, the seen
    /// seats worked out from the direction of play (not `seat_after`): the
    /// hands at the given places, counted in the direction of play at the
    /// state, are the true ones, and a pending Wild Draw Four keeps its true
    /// guilt exactly when its player's hand is seen (else it is a coin flip,
    /// as a fair determinization's).
    #[test]
    fn reveal_places_counts_places_in_the_direction_of_play() {
        let mut rules = Rules::builtin("classic");
        rules.settings.bluff_challenge = true;
        let (mut reversed, mut wd4_seen, mut wd4_unseen) = (0, 0, 0);
        for players in 2..=MAX_PLAYERS {
            for seed in 0..8u64 {
                for (turn, g) in round_states(&rules, players, seed).iter().enumerate() {
                    let n = players as i32;
                    let observer = (turn % players) as u8;
                    let obs = Observation::of(g, observer);
                    let mut rng = Rng::seed_from_u64(seed * 1000 + turn as u64);
                    let masks: Vec<u16> = (1..n as u16)
                        .map(|k| 1 << k)
                        .chain([2 | 1 << (n - 1), ((1u16 << n) - 2) & !2])
                        .collect();
                    for places in masks {
                        let mut seen = 1u16 << observer;
                        for k in 1..n {
                            if places >> k & 1 == 1 {
                                let s = (observer as i32 + g.dir as i32 * k).rem_euclid(n);
                                seen |= 1 << s;
                            }
                        }
                        let pending = g.wd4_pending();
                        let mut guilt = [false; 2];
                        for _ in 0..20 {
                            let det = Game::reveal_places(&obs, places, &mut rng);
                            for s in 0..players {
                                if seen >> s & 1 == 1 {
                                    assert_eq!(det.hands[s], g.hands[s]);
                                }
                            }
                            if pending {
                                guilt[det.wd4_guilty as usize] = true;
                                if seen >> g.wd4_player & 1 == 1 {
                                    assert_eq!(det.wd4_guilty, g.wd4_guilty);
                                }
                            }
                        }
                        if pending && seen >> g.wd4_player & 1 == 1 {
                            wd4_seen += 1;
                        } else if pending {
                            assert_eq!(guilt, [true, true], "an unseen bluff is a coin flip");
                            wd4_unseen += 1;
                        }
                        reversed += (g.dir < 0) as u32;
                    }
                }
            }
        }
        assert!(
            reversed > 100 && wd4_seen > 5 && wd4_unseen > 5,
            "{reversed} {wd4_seen} {wd4_unseen}"
        );
    }
}
