//! What is hidden from a player, and checks over everything: determinizations
//! (the cards a player cannot see dealt at random, for search agents:
//! uniformly, or consistently with what the table revealed to it), the true
//! deal for the perfect-information reference agent, and the
//! card-conservation invariant (for tests).

use super::{below, Game, LastTurn, Notes, Observation, Rng, MAX_NOTES, MAX_PLAYERS};
use crate::engine::cards::{CardId, CardSet};
use rand::{Rng as _, SeedableRng};

/// What an observer knows of the hidden hands at a decision, for
/// [`Game::determinize_informed`]: computed once per decision from its
/// [`Observation`] ([`Knowledge::of`]), used for every determinization.
#[derive(Clone, Copy, Debug)]
pub struct Knowledge {
    seat: u8,
    /// Cards the observer knows to be in each other hand.
    known: [CardSet; MAX_PLAYERS],
    /// The public notes on each other hand.
    notes: [Notes; MAX_PLAYERS],
    /// The chance that a soft note is true (0: soft notes are ignored).
    soft: f64,
    /// Whether anything above constrains a deal.
    any: bool,
}

impl Knowledge {
    /// What `obs`'s seat knows of the other hands: the cards it knows to be
    /// there and the hard notes (facts).
    pub fn of(obs: &Observation) -> Knowledge {
        Knowledge::weighing_draws(obs, 0.0)
    }

    /// As [`Knowledge::of`], with each soft note (a draw where a play was
    /// allowed: see `Strategy::wants_draw_notes`) held true in a deal with
    /// probability `p` (an opponent model: 1 for a player who draws only
    /// without a playable card, as every shipped heuristic preset does but
    /// `cautious`, which holds wilds back).
    pub fn weighing_draws(obs: &Observation, p: f64) -> Knowledge {
        let p = p.clamp(0.0, 1.0);
        let mut k = Knowledge {
            seat: obs.seat,
            known: [CardSet::EMPTY; MAX_PLAYERS],
            notes: [Notes::default(); MAX_PLAYERS],
            soft: p,
            any: false,
        };
        for h in 0..obs.players() {
            if h == obs.seat as usize {
                continue;
            }
            let known = obs.known_in(h);
            let notes = obs.notes(h);
            k.known[h] = known;
            k.notes[h] = notes;
            let hard = (notes.soft as u32 | !0 << notes.len) != u32::MAX;
            k.any |= !known.is_empty() || hard || (p > 0.0 && notes.soft != 0);
        }
        k
    }

    /// The cards known to be in `holder`'s hand (empty for the observer).
    pub fn known(&self, holder: usize) -> CardSet {
        self.known[holder]
    }

    /// Whether the observer knows nothing beyond its observation (then an
    /// informed deal is a uniform one).
    pub fn is_empty(&self) -> bool {
        !self.any
    }
}

impl<'r> Game<'r> {
    /// A copy of the observed game to deal hidden cards into: a generator
    /// of its own, no scripted deck, no private knowledge (its hands are not
    /// the real ones).
    fn hidden_copy(obs: &Observation<'r>, rng: &mut Rng) -> Game<'r> {
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

    /// As [`Game::determinize`], but consistent with what the observer knows
    /// (`know`, from [`Knowledge::of`] on the same observation): the cards it
    /// knows to be in a hand are dealt there, and each public constraint on a
    /// hand is met by dealing that hand at least its minimum of cards from
    /// outside the excluded set (the rest of the hand, and the draw pile, at
    /// random from what is left). Without any knowledge it deals exactly as
    /// [`Game::determinize`]. A pending Wild Draw Four is guilty when the hand
    /// dealt to its player holds the colour active before it.
    pub fn determinize_informed(
        obs: &Observation<'r>,
        know: &Knowledge,
        rng: &mut Rng,
    ) -> Game<'r> {
        if know.is_empty() {
            return Game::determinize(obs, rng);
        }
        debug_assert_eq!(know.seat, obs.seat);
        let src = obs.g;
        let mut g = Game::hidden_copy(obs, rng);
        let me = obs.seat as usize;
        let n = src.n as usize;
        let mut placed = CardSet::EMPTY;
        for h in 0..n {
            placed |= know.known[h];
        }
        let unseen = src.rules.deck.all - src.discard - src.hands[me] - placed;
        let mut pool = [0 as CardId; 128];
        let len = shuffled(unseen, &mut pool, rng);
        // The constrained picks first, hand after hand, each note oldest
        // first. A card held since an older note was held at every later one,
        // so a note's exclusion joins those of the later notes in force (the
        // hard ones, and each soft one with its chance, drawn once per deal).
        // With several hands competing for few cards a pass can fall short:
        // then the pool is shuffled again (a few times), and the last pass
        // keeps what it got.
        let mut on = [0u16; MAX_PLAYERS];
        for h in 0..n {
            let notes = &know.notes[h];
            on[h] = !notes.soft & ((1u32 << notes.len) - 1) as u16;
            if know.soft > 0.0 {
                for i in 0..notes.len() {
                    if notes.soft >> i & 1 != 0
                        && (know.soft >= 1.0 || rng.random::<f64>() < know.soft)
                    {
                        on[h] |= 1 << i;
                    }
                }
            }
        }
        let mut taken = CardSet::EMPTY;
        for attempt in 0..4 {
            taken = CardSet::EMPTY;
            let mut short = false;
            for h in 0..n {
                if h == me {
                    continue;
                }
                if on[h] == 0 {
                    g.hands[h] = know.known[h];
                    continue;
                }
                let notes = &know.notes[h];
                let room = src.hands[h].len() - know.known[h].len();
                let mut later = [CardSet::EMPTY; MAX_NOTES + 1];
                for i in (0..notes.len()).rev() {
                    later[i] = later[i + 1];
                    if on[h] >> i & 1 != 0 {
                        later[i] |= notes.excl[i];
                    }
                }
                let mut got = CardSet::EMPTY;
                for i in 0..notes.len() {
                    if on[h] >> i & 1 == 0 {
                        continue;
                    }
                    let excl = later[i];
                    let have = (know.known[h] - excl).len() + (got - excl).len();
                    let mut need = (notes.min[i] as u32)
                        .saturating_sub(have)
                        .min(room - got.len());
                    for &c in &pool[..len] {
                        if need == 0 {
                            break;
                        }
                        if !taken.contains(c) && !excl.contains(c) {
                            taken.insert(c);
                            got.insert(c);
                            need -= 1;
                        }
                    }
                    short |= need > 0;
                }
                g.hands[h] = know.known[h] | got;
            }
            if !short || attempt == 3 {
                break;
            }
            let redo = shuffled(unseen, &mut pool, rng);
            debug_assert_eq!(redo, len);
        }
        // The rest of each hand, then the draw pile, in the pool's order.
        let mut k = 0;
        for h in 0..n {
            if h == me {
                continue;
            }
            let want = src.hands[h].len();
            while g.hands[h].len() < want && k < len {
                let c = pool[k];
                k += 1;
                if !taken.contains(c) {
                    g.hands[h].insert(c);
                    taken.insert(c);
                }
            }
        }
        let mut m = 0;
        for &c in &pool[k..len] {
            if !taken.contains(c) {
                g.pile.cards[m] = c;
                m += 1;
            }
        }
        g.pile.len = m as u8;
        g.settle_wd4_by_hand(obs);
        g
    }

    /// [`Game::determinize_with_hands`] for a search that deals from what the
    /// table revealed (`know`, as [`Game::determinize_informed`] takes it):
    /// with any knowledge, a pending Wild Draw Four is guilty when `hands`
    /// gives its player the colour active before it, as an informed deal
    /// decides; without, a coin flip as in [`Game::determinize_with_hands`].
    /// The generator is used as there (the coin is flipped either way), so
    /// the draw pile and everything dealt after are the same.
    pub fn determinize_with_hands_informed(
        obs: &Observation<'r>,
        hands: &[CardSet; MAX_PLAYERS],
        know: &Knowledge,
        rng: &mut Rng,
    ) -> Game<'r> {
        let mut g = Game::determinize_with_hands(obs, hands, rng);
        if !know.is_empty() {
            g.settle_wd4_by_hand(obs);
        }
        g
    }

    /// A pending Wild Draw Four not played by `obs`'s seat is guilty when
    /// the hand this determinization deals its player holds the colour
    /// active before it.
    fn settle_wd4_by_hand(&mut self, obs: &Observation<'r>) {
        let src = obs.g;
        if self.wd4_pending() && src.wd4_player != obs.seat {
            let mask = src.rules.deck.color_mask[src.wd4_color.index()];
            self.wd4_guilty = !(self.hands[src.wd4_player as usize] & mask).is_empty();
        }
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
    fn wd4_pending(&self) -> bool {
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
fn shuffled(set: CardSet, out: &mut [CardId; 128], rng: &mut Rng) -> usize {
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
    use crate::engine::game::testing::{round_states, round_states_noting};
    use crate::engine::rules::Rules;
    use crate::engine::strategy::Tracking;

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

    /// `determinize_with_hands_informed` under `bluff_challenge`, at every
    /// state of random play at 3 players where a Wild Draw Four by another
    /// seat than the observer's is pending: with knowledge, the deal of
    /// `determinize_with_hands` from the same generator (hands, draw pile,
    /// the generator after), guilty exactly when the dealt hand of its
    /// player holds the colour active before it (on the true hands, the
    /// true verdict), where the coin flip disagrees in some deals; without
    /// knowledge, the coin flip.
    #[test]
    fn an_informed_deal_on_given_hands_settles_a_pending_wild_draw_four_by_the_hand() {
        let mut rules = Rules::builtin("classic");
        rules.settings.bluff_challenge = true;
        let (mut pending, mut verdicts, mut overruled) = (0, [0; 2], 0);
        for seed in 0..60u64 {
            // Seats that take the public notes, so a game keeps the colour a
            // Wild Draw Four was played on.
            for (turn, g) in round_states_noting(&rules, 3, seed, Tracking::Facts)
                .iter()
                .enumerate()
            {
                let turn = turn as u64;
                if !g.wd4_pending() {
                    continue;
                }
                pending += 1;
                let observer = (g.wd4_player + 1 + (turn % 2) as u8) % 3;
                let obs = Observation::of(g, observer);
                let mut know = Knowledge::of(&obs);
                assert!(know.is_empty());
                let mut true_hands = [CardSet::EMPTY; MAX_PLAYERS];
                true_hands[..3].copy_from_slice(&g.hands[..3]);
                let truth = Game::determinize_with_hands_informed(
                    &obs,
                    &true_hands,
                    &Knowledge { any: true, ..know },
                    &mut Rng::seed_from_u64(0),
                );
                assert_eq!(truth.wd4_guilty, g.wd4_guilty, "the true hands");
                let mask = rules.deck.color_mask[g.wd4_color.index()];
                let mut rng = Rng::seed_from_u64(seed * 1000 + turn);
                for _ in 0..10 {
                    let mut hands = [CardSet::EMPTY; MAX_PLAYERS];
                    Game::deal_hands(&obs, &mut rng, &mut hands);
                    let (mut a, mut b) = (rng.clone(), rng.clone());
                    let coin = Game::determinize_with_hands(&obs, &hands, &mut a);
                    let same = Game::determinize_with_hands_informed(&obs, &hands, &know, &mut b);
                    assert_eq!(same.wd4_guilty, coin.wd4_guilty, "no knowledge: the coin");
                    know.any = true;
                    let mut c = rng.clone();
                    let dealt = Game::determinize_with_hands_informed(&obs, &hands, &know, &mut c);
                    know.any = false;
                    assert_eq!(dealt.hands, coin.hands);
                    assert!(dealt.draw_pile().eq(coin.draw_pile()));
                    assert_eq!(c.random::<u64>(), a.random::<u64>());
                    let holds = !(hands[g.wd4_player as usize] & mask).is_empty();
                    assert_eq!(dealt.wd4_guilty, holds);
                    verdicts[holds as usize] += 1;
                    overruled += (coin.wd4_guilty != holds) as u32;
                    rng = a;
                }
            }
        }
        assert!(
            pending >= 10 && verdicts[0] > 0 && verdicts[1] > 0 && overruled > 0,
            "{pending} {verdicts:?} {overruled}"
        );
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
