//! The actions a search agent weighs: every legal answer to a decision, packed
//! in a `u32` ([`Action`]), a joint choice where the rule book asks two things
//! at once (a wild with its colour, a swap card with its target).

use crate::engine::cards::{CardId, CardSet, Color};
use crate::engine::game::Observation;
use crate::engine::rules::Effect;

/// One legal action of a decision, packed: kind (4 bits), card (7), colour
/// (3, 7 = none), target seat (4, 15 = none).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Action(pub(super) u32);

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Kind {
    /// `choose_play`: play the card.
    Play = 0,
    /// `choose_play`: draw.
    Draw = 1,
    /// `play_drawn`: play it.
    PlayDrawn = 2,
    /// `play_drawn`: keep it.
    Keep = 3,
    Challenge = 4,
    NoChallenge = 5,
    /// `answer_stack`: answer with the card.
    Answer = 6,
    /// `answer_stack`: draw the pending total.
    TakeDraw = 7,
    JumpIn = 8,
    NoJump = 9,
    /// `choose_color` alone (a start wild, a drawn wild played by force).
    Color = 10,
    /// `choose_target` alone.
    Target = 11,
}

const NO_COLOR: u32 = 7;
const NO_TARGET: u32 = 15;

impl Action {
    pub(super) fn new(
        kind: Kind,
        card: CardId,
        color: Option<Color>,
        target: Option<u8>,
    ) -> Action {
        let col = color.map_or(NO_COLOR, |c| c.index() as u32);
        let t = target.map_or(NO_TARGET, |t| t as u32);
        Action(kind as u32 | (card as u32 & 127) << 4 | col << 11 | t << 14)
    }
    pub(super) fn simple(kind: Kind) -> Action {
        Action::new(kind, 0, None, None)
    }
    pub(super) fn kind(self) -> u32 {
        self.0 & 15
    }
    pub(super) fn card(self) -> CardId {
        ((self.0 >> 4) & 127) as CardId
    }
    pub(super) fn color(self) -> Option<Color> {
        let c = (self.0 >> 11) & 7;
        (c != NO_COLOR).then(|| Color::from_index(c as usize))
    }
    pub(super) fn target(self) -> Option<u8> {
        let t = (self.0 >> 14) & 15;
        (t != NO_TARGET).then_some(t as u8)
    }
    pub(super) fn is(self, k: Kind) -> bool {
        self.kind() == k as u32
    }
    /// A colour or a target asked on its own (a sub-decision of a play).
    pub(super) fn is_sub(self) -> bool {
        self.is(Kind::Color) || self.is(Kind::Target)
    }
    /// The same action with this colour and target.
    pub(super) fn with(self, color: Option<Color>, target: Option<u8>) -> Action {
        Action::new(self.kind_of(), self.card(), color, target)
    }
    pub(super) fn kind_of(self) -> Kind {
        KINDS[self.kind() as usize]
    }
    /// Whether playing this action's card asks a colour or a target that the
    /// action leaves open (`joint = false` lists).
    pub(super) fn asks_more(self, obs: &Observation) -> bool {
        let d = &obs.rules().deck;
        let c = self.card();
        matches!(
            self.kind_of(),
            Kind::Play | Kind::PlayDrawn | Kind::Answer | Kind::JumpIn
        ) && ((d.color(c).is_none() && self.color().is_none())
            || (self.target().is_none() && swaps(obs, c)))
    }
}

const KINDS: [Kind; 12] = [
    Kind::Play,
    Kind::Draw,
    Kind::PlayDrawn,
    Kind::Keep,
    Kind::Challenge,
    Kind::NoChallenge,
    Kind::Answer,
    Kind::TakeDraw,
    Kind::JumpIn,
    Kind::NoJump,
    Kind::Color,
    Kind::Target,
];

/// Whether playing `c` from the observer's hand swaps hands (a Wild Swap,
/// a seven-o 7, not as the last card).
fn swaps(obs: &Observation, c: CardId) -> bool {
    let d = &obs.rules().deck;
    let effect = d.effect_of[c as usize];
    (effect == Effect::Swap
        || (obs.settings().seven_o && d.face_of[c as usize] == 7 && effect == Effect::Number))
        && obs.hand().len() > 1
}

/// Pushes the actions of playing `card`, one card of each group of
/// identical cards: joint (one per colour for a wild, one per opponent for a
/// swap) when `joint`, else one action whose colour and target are asked
/// later (sub-decisions).
pub(super) fn push_plays(
    out: &mut Vec<Action>,
    obs: &Observation,
    cards: CardSet,
    kind: Kind,
    joint: bool,
) {
    let d = &obs.rules().deck;
    let mut seen = CardSet::EMPTY;
    for c in cards.iter() {
        if seen.contains(c) {
            continue;
        }
        seen |= d.identical(c);
        if !joint {
            out.push(Action::new(kind, c, None, None));
            continue;
        }
        let swap = swaps(obs, c);
        let colors: &[Option<Color>] = if d.color(c).is_none() {
            &[
                Some(Color::Red),
                Some(Color::Yellow),
                Some(Color::Green),
                Some(Color::Blue),
            ]
        } else {
            &[None]
        };
        for &col in colors {
            if swap {
                for k in 1..obs.players() as u8 {
                    out.push(Action::new(kind, c, col, Some(obs.seat_after(k))));
                }
            } else {
                out.push(Action::new(kind, c, col, None));
            }
        }
    }
}

/// The legal actions of `choose_play`.
pub(super) fn play_actions(
    out: &mut Vec<Action>,
    obs: &Observation,
    playable: CardSet,
    joint: bool,
) {
    out.clear();
    push_plays(out, obs, playable, Kind::Play, joint);
    let s = obs.settings();
    let must_play = s.force_play || !s.may_draw_when_playable;
    if playable.is_empty() || !must_play {
        out.push(Action::simple(Kind::Draw));
    }
}

pub(super) fn drawn_actions(out: &mut Vec<Action>, obs: &Observation, card: CardId, joint: bool) {
    out.clear();
    push_plays(out, obs, CardSet::single(card), Kind::PlayDrawn, joint);
    out.push(Action::simple(Kind::Keep));
}

pub(super) fn answer_actions(
    out: &mut Vec<Action>,
    obs: &Observation,
    answers: CardSet,
    joint: bool,
) {
    out.clear();
    push_plays(out, obs, answers, Kind::Answer, joint);
    out.push(Action::simple(Kind::TakeDraw));
}

pub(super) fn color_actions(out: &mut Vec<Action>) {
    out.clear();
    for c in Color::ALL {
        out.push(Action::new(Kind::Color, 0, Some(c), None));
    }
}

pub(super) fn target_actions(out: &mut Vec<Action>, obs: &Observation) {
    out.clear();
    for k in 1..obs.players() as u8 {
        out.push(Action::new(Kind::Target, 0, None, Some(obs.seat_after(k))));
    }
}

pub(super) fn jump_actions(out: &mut Vec<Action>, obs: &Observation, card: CardId, joint: bool) {
    out.clear();
    push_plays(out, obs, CardSet::single(card), Kind::JumpIn, joint);
    out.push(Action::simple(Kind::NoJump));
}

pub(super) fn pair(out: &mut Vec<Action>, a: Kind, b: Kind) {
    out.clear();
    out.push(Action::simple(a));
    out.push(Action::simple(b));
}

/// How a simulation's walk decides (for the searcher's seat).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Mode {
    /// The next decision (the root's) takes this action (`pimc`).
    Forced(Action),
    /// Decisions walk down the `ismcts` tree.
    Tree,
    /// Every decision is the rollout policy's.
    Rollout,
}
