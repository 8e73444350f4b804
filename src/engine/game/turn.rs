//! A turn: the victim of a pending draw (challenge, answer, draw it all), a
//! normal turn (play, or draw and maybe play the drawn card), and a play with
//! everything that follows it until the next turn: the colour named, UNO and
//! its catch, the card's effect, swap targets and jump-ins. Illegal actions
//! get the rule book's wrong-card sanction here.

use super::strategy::Table;
use super::{below, Agents, DrawReason, Event, Flow, Game, IllegalAction, Recorder, Tracking};
use crate::engine::cards::{CardId, Color};
use crate::engine::rules::{CustomEffect, DrawnCard, Effect, Stacking};
use rand::Rng as _;

impl<'r> Game<'r> {
    /// A turn. `H`: with the house-rule checks; `W`: with the matching
    /// restriction of `wild_when_matching = false` (only with `H`:
    /// [`Game::uses_house_rules`] counts that setting), so that rule sets
    /// without it keep the mask work they had before it existed.
    pub(super) fn turn<const H: bool, const W: bool, R: Recorder, T: Table + ?Sized>(
        &mut self,
        p: u8,
        agents: &mut Agents<T>,
        rec: &mut R,
    ) -> Flow {
        // Without house rules a pending draw is settled during the play.
        if H && self.pending > 0 {
            return self.pending_turn::<W, R, T>(p, agents, rec);
        }
        self.normal_turn::<H, W, R, T>(p, agents, rec)
    }

    /// The victim of a pending draw: challenge, answer, or draw it all.
    pub(super) fn pending_turn<const W: bool, R: Recorder, T: Table + ?Sized>(
        &mut self,
        p: u8,
        agents: &mut Agents<T>,
        rec: &mut R,
    ) -> Flow {
        let d = &self.rules.deck;
        if self.s.bluff_challenge
            && d.wd4.contains(self.top)
            && agents.seats.challenge(p, &self.obs(p), &mut agents.rng)
        {
            let target = self.wd4_player;
            let guilty = self.wd4_guilty;
            self.challenged(p, target, guilty);
            rec.on(
                self,
                Event::Challenge {
                    challenger: p,
                    target,
                    guilty,
                },
            );
            let total = self.pending;
            self.pending = 0;
            self.pending_cards = 0;
            if guilty {
                self.draw(target, total, DrawReason::Challenge, rec);
                return self.normal_turn::<true, W, R, T>(p, agents, rec);
            }
            self.draw(p, total + 2, DrawReason::Challenge, rec);
            rec.on(self, Event::Skip { player: p });
            return Flow::Next(self.step(p, 1));
        }
        let answers = self.answers(self.hands[p as usize & 15]);
        // A seat with no answer draws unasked, unless its table asks it
        // anyway (then being asked tells nothing of its hand).
        if !answers.is_empty()
            || (self.forced_ask & (1 << p) != 0 && self.s.stacking != Stacking::Off)
        {
            if let Some(c) = agents
                .seats
                .answer_stack(p, &self.obs(p), answers, &mut agents.rng)
            {
                if answers.contains(c) {
                    self.turn_unknown(p);
                    self.turns += 1;
                    return self.play::<true, R, T>(p, c, false, false, agents, rec);
                }
                if self.illegal(p, IllegalAction::Answer(c), rec) {
                    return Flow::Next(p);
                }
            }
        }
        self.settle_pending(p, rec);
        rec.on(self, Event::Skip { player: p });
        Flow::Next(self.step(p, 1))
    }

    /// `H` and `W` as for [`Game::turn`].
    pub(super) fn normal_turn<const H: bool, const W: bool, R: Recorder, T: Table + ?Sized>(
        &mut self,
        p: u8,
        agents: &mut Agents<T>,
        rec: &mut R,
    ) -> Flow {
        self.turns += 1;
        let hand = self.hands[p as usize & 15];
        debug_assert!(W || (self.plain_restricted.is_empty() && self.last_resort.is_empty()));
        let playable = self.playable_in::<W>(hand);
        // A player with nothing playable draws; the strategy is asked only if
        // it wants to be (see `Strategy::ask_without_choice`).
        let choice = if playable.is_empty() && self.skip_ask & (1 << p) != 0 {
            None
        } else {
            agents
                .seats
                .choose_play(p, &self.obs(p), playable, &mut agents.rng)
        };
        if H && self.tracking == Tracking::Plays {
            self.note_turn(p, hand, choice, playable);
        }
        match choice {
            Some(c) if playable.contains(c) => {
                return self.play::<H, R, T>(p, c, false, false, agents, rec)
            }
            Some(c) => {
                let before = self.drawn[p as usize & 15];
                self.illegal(p, IllegalAction::Play(c), rec);
                return self.illegal_turn_over(p, before, false);
            }
            None => {}
        }
        if H && self.must_play {
            if !playable.is_empty() {
                let before = self.drawn[p as usize & 15];
                self.illegal(p, IllegalAction::Draw, rec);
                return self.illegal_turn_over(p, before, false);
            }
            // Drawing was allowed only without a playable card: everyone
            // now knows this hand holds no card of `accept`.
            if self.tracking != Tracking::Off {
                self.note_forced_draw(p);
            }
        } else if H && self.tracking >= Tracking::Evidence {
            // Drawing was allowed with a playable card too: a soft note.
            self.note_soft_draw(p);
        }
        // Draw one (or, with draw_to_match, until a playable card comes).
        let mut last = None;
        let reason = if H && self.s.draw_to_match {
            // Bound: each draw moves a card of the piles into the hand, and a
            // reshuffle only returns discards, so at most the deck's size.
            while let Some(c) = self.draw_card(p, DrawReason::Match, rec) {
                last = Some(c);
                if self.can_play::<W>(self.hands[p as usize & 15], c) {
                    break;
                }
            }
            DrawReason::Match
        } else {
            last = self.draw_card(p, DrawReason::Turn, rec);
            DrawReason::Turn
        };
        rec.on(self, Event::DrawEnd { player: p, reason });
        match last {
            None => {
                // Nothing could be drawn: the player passes.
                self.idle += 1;
                self.halt |= self.idle >= self.n as u32;
            }
            Some(c) => {
                // The rare readings ride on the `W` variant of the turn
                // logic (see `Game::matching_variant`).
                if W && self.s.drawn_card == DrawnCard::Rlcard {
                    return self.rlcard_drawn::<R, T>(p, c, agents, rec);
                }
                let playable = self.can_play::<W>(self.hands[p as usize & 15], c);
                if playable
                    && ((H && self.s.force_play)
                        || agents.seats.play_drawn(p, &self.obs(p), c, &mut agents.rng))
                {
                    return self.play::<H, R, T>(p, c, true, false, agents, rec);
                }
                // Under `force_play` nobody is asked either way.
                if !playable && self.forced_ask & (1 << p) != 0 && !(H && self.s.force_play) {
                    agents
                        .seats
                        .drawn_unplayable(p, &self.obs(p), c, &mut agents.rng);
                }
            }
        }
        rec.on(self, Event::Pass { player: p });
        Flow::Next(self.step(p, 1))
    }

    /// Ends `p`'s turn after an illegal action on it, whose sanction was
    /// drawn from `p`'s draw count `before` (`drew`: the turn had drawn a
    /// card before it). A turn that played no card and, the sanction
    /// included, drew none (both piles empty) counts toward a blocked round
    /// as a pass does.
    #[cold]
    fn illegal_turn_over(&mut self, p: u8, before: u32, drew: bool) -> Flow {
        if !drew && self.drawn[p as usize & 15] == before {
            self.idle += 1;
            self.halt |= self.idle >= self.n as u32;
        }
        Flow::Next(self.step(p, 1))
    }

    /// Asks `p` for a swap target; `None` when the choice was illegal.
    pub(super) fn target<R: Recorder, T: Table + ?Sized>(
        &mut self,
        p: u8,
        agents: &mut Agents<T>,
        rec: &mut R,
    ) -> Option<u8> {
        let t = agents.seats.choose_target(p, &self.obs(p), &mut agents.rng);
        if (t as usize) < self.n as usize && t != p {
            Some(t)
        } else {
            self.illegal(p, IllegalAction::Target(t), rec);
            None
        }
    }

    /// `p` plays `c` (already checked legal), then everything that follows until
    /// the next turn: UNO, the card's effect, jump-ins, skips and draws.
    /// `drawn`: `c` is the card `p` has just drawn for its turn (once it has
    /// left the hand, `p`'s notes count one card drawn fewer since; not
    /// before, as an illegal target keeps it in the hand).
    #[inline(always)]
    pub(super) fn play<const H: bool, R: Recorder, T: Table + ?Sized>(
        &mut self,
        mut p: u8,
        mut c: CardId,
        drawn: bool,
        mut jump_in: bool,
        agents: &mut Agents<T>,
        rec: &mut R,
    ) -> Flow {
        let d = &self.rules.deck;
        let mut skip_next = false;
        let mut extra_turn = false;
        // The player whose card a jump-in was played on.
        let mut jumped_on = p;
        loop {
            let before = self.hands[p as usize & 15];
            let effect = d.effect_of[c as usize & 127];
            // A swap target is chosen with the play (none for a last card). An
            // illegal target is a wrong card: the card stays, the player draws
            // the sanction and the turn ends.
            let wants_target = (effect == Effect::Swap
                || (H
                    && self.s.seven_o
                    && d.face_of[c as usize & 127] == 7
                    && effect == Effect::Number))
                && before.len() > 1;
            let target = if wants_target {
                let drawn_before = self.drawn[p as usize & 15];
                match self.target(p, agents, rec) {
                    Some(t) => Some(t),
                    None if jump_in && !self.halt => {
                        // An illegal jump-in is not a turn (docs/rules.md
                        // section 7): the jumper has drawn the sanction, and
                        // play goes on as if no jump-in had been offered,
                        // unless the jumper was the player to move: then the
                        // jump-in was its play, and its turn is over.
                        if p == self.to_move_after::<H>(jumped_on, skip_next, extra_turn) {
                            return self.illegal_turn_over(p, drawn_before, false);
                        }
                        p = jumped_on;
                        break;
                    }
                    // The card stays: the turn played none, and drew one
                    // only if `c` is the card it drew.
                    None => return self.illegal_turn_over(p, drawn_before, drawn && !jump_in),
                }
            } else {
                None
            };
            let prev_color = self.color;
            self.hands[p as usize & 15].remove(c);
            self.played_face_up(p, c);
            if H && drawn && !jump_in {
                self.drawn_card_played(p);
            }
            self.discard.insert(c);
            self.top = c;
            self.idle = 0;
            match d.color(c) {
                Some(col) => self.set_colored_top(c, col),
                None => {
                    let col = agents.seats.choose_color(p, &self.obs(p), &mut agents.rng);
                    self.set_color(col);
                    if H && self.tracking == Tracking::Plays {
                        self.note_named(p, c, col);
                    }
                }
            }
            if effect == Effect::WildDraw4 {
                self.wd4_player = p;
                self.wd4_guilty = !(before & d.color_mask[prev_color.index()]).is_empty();
                if H && self.tracking != Tracking::Off {
                    self.wd4_noted(p, prev_color);
                }
            }
            let left = self.hands[p as usize & 15].len();
            let uno = left == 1 && agents.seats.call_uno(p, &self.obs(p), &mut agents.rng);
            rec.on(
                self,
                Event::Play {
                    player: p,
                    card: c,
                    color: self.color,
                    uno,
                    jump_in,
                    target,
                },
            );
            if left == 1 && !uno {
                let chance = self.s.uno_catch_chance;
                if chance >= 1.0 || (chance > 0.0 && self.rng.random::<f64>() < chance) {
                    self.uno_penalties += 1;
                    rec.on(self, Event::UnoCaught { player: p });
                    self.draw(p, self.s.uno_penalty, DrawReason::UnoPenalty, rec);
                }
            }
            if left == 0 {
                self.last_card_draws(p, effect, rec);
                return Flow::Out(p);
            }
            // The card's effect.
            skip_next = false;
            extra_turn = false;
            match effect {
                Effect::Number => {
                    if H && self.s.seven_o {
                        match d.face_of[c as usize] {
                            7 => {
                                if let Some(t) = target {
                                    self.swap_hands(p, t);
                                    rec.on(self, Event::Swap { a: p, b: t });
                                }
                            }
                            0 => self.rotate(rec),
                            _ => {}
                        }
                    }
                }
                Effect::Skip => skip_next = true,
                Effect::Reverse => {
                    self.set_direction(-self.dir);
                    if self.n == 2 && self.s.two_player_reverse_skips {
                        skip_next = true;
                    }
                }
                Effect::Draw2 => self.add_pending(2),
                Effect::WildDraw4 => self.add_pending(4),
                Effect::Wild => {}
                Effect::Downpour1 | Effect::Downpour2 => {
                    let k = if effect == Effect::Downpour1 { 1 } else { 2 };
                    for i in 1..self.n {
                        let q = self.step(p, i);
                        self.draw(q, k, DrawReason::Downpour, rec);
                    }
                    skip_next = self.s.downpour_skips_next;
                }
                Effect::Ohana => self.ohana(p, true, rec),
                Effect::Swap => {
                    if let Some(t) = target {
                        self.swap_hands(p, t);
                        rec.on(self, Event::Swap { a: p, b: t });
                    }
                }
                Effect::Custom => extra_turn = self.s.custom_effect == CustomEffect::ExtraTurn,
            }
            // Jump-in: another player holding an identical card may play it now.
            // Bound: each jump-in takes a card out of a hand, and identical cards
            // come back only through penalty draws after a reshuffle, so chains
            // are short; as a hard bound a round allows at most `max_turns` +
            // the deck's size jump-ins, then ends as truncated (the round loop
            // sees `halt`).
            if H && self.s.jump_in && !d.wild.contains(c) {
                if self.jump_ins >= self.jump_in_limit() {
                    self.halt = true;
                } else if let Some((q, card)) = self.jump_in_offer(p, c, agents) {
                    self.jump_ins += 1;
                    jumped_on = p;
                    p = q;
                    c = card;
                    jump_in = true;
                    continue;
                }
            }
            break;
        }
        if extra_turn {
            return Flow::Next(p);
        }
        let next = self.step(p, 1);
        if self.pending > 0 {
            let challengeable = H && self.s.bluff_challenge && d.wd4.contains(self.top);
            if H && (self.s.stacking != Stacking::Off || challengeable) {
                return Flow::Next(next);
            }
            self.settle_pending(next, rec);
            rec.on(self, Event::Skip { player: next });
            return Flow::Next(self.step(next, 1));
        }
        if skip_next {
            rec.on(self, Event::Skip { player: next });
            return Flow::Next(self.step(next, 1));
        }
        Flow::Next(next)
    }

    /// `drawn_card = "rlcard"`: the card `p` just drew for its turn is
    /// played at once if it is a wild (a random colour, no other effect, not
    /// even a Wild Draw Four's) or of the active colour (with its effect);
    /// any other card is kept and the turn ends.
    #[cold]
    fn rlcard_drawn<R: Recorder, T: Table + ?Sized>(
        &mut self,
        p: u8,
        c: CardId,
        agents: &mut Agents<T>,
        rec: &mut R,
    ) -> Flow {
        let d = &self.rules.deck;
        match d.color(c) {
            Some(col) if col == self.color => {
                return self.play::<true, R, T>(p, c, true, false, agents, rec);
            }
            Some(_) => {}
            None => {
                // The drawn card joined a hand of at least one card, so it
                // is never the last one.
                self.hands[p as usize & 15].remove(c);
                self.played_face_up(p, c);
                self.drawn_card_played(p);
                self.discard.insert(c);
                self.top = c;
                self.idle = 0;
                let col = Color::from_index(below(&mut self.rng, 4) as usize);
                self.set_color(col);
                let uno = self.hands[p as usize & 15].len() == 1
                    && agents.seats.call_uno(p, &self.obs(p), &mut agents.rng);
                rec.on(
                    self,
                    Event::Play {
                        player: p,
                        card: c,
                        color: col,
                        uno,
                        jump_in: false,
                        target: None,
                    },
                );
                return Flow::Next(self.step(p, 1));
            }
        }
        rec.on(self, Event::Pass { player: p });
        Flow::Next(self.step(p, 1))
    }

    /// The player who moves after `q`'s play, its effect carried out
    /// (`skip`, `extra` as [`Game::play`] found them): the flow at the end of
    /// a play, without its draws and events.
    #[cold]
    /// `p` played `c` face up (it has left the hand): a seat that did not
    /// know `c` was there but knew a copy identical to it (the same face and
    /// colour) in that hand cannot tell which of the two was
    /// played, so it knows one such copy fewer. Without this a seat that had
    /// seen a Wild in a hand would go on "knowing" it after the player
    /// played another Wild it had drawn unseen: that it still held one,
    /// which the table did not show (the ext audit, 2026-12-07). Nothing to
    /// do at a table where no one knows a card (a branch per play).
    #[inline]
    pub(super) fn played_face_up(&mut self, p: u8, c: CardId) {
        if self.ledger.dirty {
            self.forget_twins_of(p, c);
        }
    }

    #[cold]
    #[inline(never)]
    fn forget_twins_of(&mut self, p: u8, c: CardId) {
        // (A deck gives a colour and face one effect: `Deck::build`.)
        let twins = self.rules.deck.identical(c) & self.hands[p as usize & 15];
        self.ledger.forget_a_twin(p, c, twins);
    }

    fn to_move_after<const H: bool>(&self, q: u8, skip: bool, extra: bool) -> u8 {
        if extra {
            return q;
        }
        let next = self.step(q, 1);
        if self.pending > 0 {
            let challengeable =
                H && self.s.bluff_challenge && self.rules.deck.wd4.contains(self.top);
            if H && (self.s.stacking != Stacking::Off || challengeable) {
                return next;
            }
            return self.step(next, 1);
        }
        if skip {
            return self.step(next, 1);
        }
        next
    }

    /// Records an illegal action; in strict mode stops the round.
    #[cold]
    pub(super) fn illegal<R: Recorder>(
        &mut self,
        p: u8,
        action: IllegalAction,
        rec: &mut R,
    ) -> bool {
        self.illegal[p as usize] += 1;
        rec.on(self, Event::Illegal { player: p, action });
        if self.s.strict {
            self.error = Some((p, action));
            self.halt = true;
            return true;
        }
        self.draw(p, self.s.wrong_card_penalty, DrawReason::WrongCard, rec);
        false
    }
}
