//! The observation a Python strategy is handed ([`Observation`], the
//! protocol's `obs` as a Python object: card tokens, seats from 0, the
//! features and legal-action masks of the observation encoding on demand),
//! and the card tokens of a rule set made once as Python strings
//! ([`Tokens`]).

use numpy::{PyArray1, PyArray3, PyArrayMethods};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString};
use std::sync::Arc;
use unolab::engine::cards::{CardId, CardSet, Color, Kind};
use unolab::engine::encode::{kind_index, DecisionKind, ACT_COLOR, ACT_PLAY, OBS_LEN, SECTIONS};
use unolab::engine::game::{Observation as CoreObs, MAX_PLAYERS};
use unolab::engine::rlcard;

/// What a player at the table sees, as the protocol's `obs`: cards are
/// tokens (`"red-7"`, `"wild-draw4"`), seats are numbered from 0.
#[pyclass(frozen, module = "unolab._core", name = "Observation")]
pub struct Observation {
    seat: u8,
    round: u32,
    turn: u32,
    hand: CardSet,
    top: CardId,
    color: Option<Color>,
    /// The active colour as the engine holds it (also before a wild start
    /// card's colour is named), as the features encode it.
    active: Color,
    direction: i8,
    players: u8,
    hand_sizes: [u32; MAX_PLAYERS],
    draw_pile: u32,
    discard: CardSet,
    totals: [i64; MAX_PLAYERS],
    pending_draw: u32,
    /// What this seat knows of each other hand (its own entry empty).
    known: [CardSet; MAX_PLAYERS],
    tokens: Arc<Tokens>,
}

/// The token of each card id of a rule set, as Python strings made once,
/// and its card kind number (`unolab::engine::encode::kind_table`).
pub struct Tokens {
    pub(crate) py: Vec<Py<PyString>>,
    pub(crate) text: Vec<String>,
    pub(crate) kind: [u8; 128],
}

impl Observation {
    pub(crate) fn of(obs: &CoreObs, tokens: Arc<Tokens>) -> Observation {
        let n = obs.players();
        let mut hand_sizes = [0u32; MAX_PLAYERS];
        let mut totals = [0i64; MAX_PLAYERS];
        for (s, h) in hand_sizes.iter_mut().enumerate().take(n) {
            *h = obs.hand_size(s) as u32;
        }
        for (t, v) in totals.iter_mut().zip(obs.totals()) {
            *t = *v;
        }
        // Before the first turn a wild start card has no colour yet.
        let color = obs.named_color();
        Observation {
            seat: obs.seat(),
            round: obs.round(),
            turn: obs.turns(),
            hand: obs.hand(),
            top: obs.top(),
            color,
            active: obs.color(),
            direction: obs.direction(),
            players: n as u8,
            hand_sizes,
            draw_pile: obs.draw_pile_len() as u32,
            discard: obs.discard(),
            totals,
            pending_draw: obs.pending_draw(),
            known: obs.known_of_others(),
            tokens,
        }
    }

    fn cards<'py>(&self, py: Python<'py>, set: CardSet) -> PyResult<Bound<'py, PyList>> {
        PyList::new(py, set.iter().map(|c| self.tokens.py[c as usize].bind(py)))
    }

    /// The `hand`, `top` and `color` sections of the engine's features
    /// (`unolab::engine::encode`), the others zero: what RLCard's encoding
    /// reads.
    fn rl_features(&self) -> [f32; OBS_LEN] {
        // The first three sections, as `encode::write_features` reads them.
        let [hand, top, color, ..] = SECTIONS.map(|s| s.offset);
        let kind = &self.tokens.kind;
        let mut f = [0f32; OBS_LEN];
        for c in self.hand.iter() {
            f[hand + kind[c as usize] as usize] += 1.0;
        }
        f[top + kind[self.top as usize] as usize] = 1.0;
        f[color + self.active.index()] = 1.0;
        f
    }

    /// RLCard's label of card `c` (`r-7`; a wild naming `color`: `r-wild`),
    /// or its token for a card RLCard does not have.
    fn rl_label(&self, c: CardId, color: Color) -> String {
        let kind = self.tokens.kind[c as usize] as usize;
        match rlcard::of_action(ACT_PLAY + kind, color) {
            Some(a) => rlcard::action_label(a),
            None => self.tokens.text[c as usize].clone(),
        }
    }

    /// RLCard's labels of `set`, a wild given RLCard's colours in turn
    /// (r, g, b, y: its deck holds one wild of each kind per colour).
    fn rl_labels(&self, set: CardSet) -> Vec<String> {
        let mut wilds = [0usize; 128];
        set.iter()
            .map(|c| {
                let kind = self.tokens.kind[c as usize] as usize;
                let n = &mut wilds[kind];
                *n += 1;
                self.rl_label(c, rlcard::COLORS[(*n - 1) % 4])
            })
            .collect()
    }
}

#[pymethods]
impl Observation {
    /// The observing seat (from 0).
    #[getter]
    fn seat(&self) -> u8 {
        self.seat
    }
    /// The round of the match (from 1).
    #[getter]
    fn round(&self) -> u32 {
        self.round
    }
    /// The turn under way in the round (1 at its first decision).
    #[getter]
    fn turn(&self) -> u32 {
        self.turn
    }
    /// Your cards as tokens, in deck order.
    #[getter]
    fn hand<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        self.cards(py, self.hand)
    }
    /// The top card of the discard pile.
    #[getter]
    fn top<'py>(&self, py: Python<'py>) -> Bound<'py, PyString> {
        self.tokens.py[self.top as usize].bind(py).clone()
    }
    /// The active colour (`None` while a wild start card's colour is not yet named).
    #[getter]
    fn color(&self) -> Option<&'static str> {
        self.color.map(|c| c.name())
    }
    /// 1 when play goes to higher seats, -1 when it goes to lower seats.
    #[getter]
    fn direction(&self) -> i8 {
        self.direction
    }
    /// The number of players.
    #[getter]
    fn players(&self) -> u8 {
        self.players
    }
    /// The number of cards of every seat: a list of ints (a `Vec<u8>`
    /// would reach Python as `bytes`).
    #[getter]
    fn hand_sizes(&self) -> Vec<u32> {
        self.hand_sizes[..self.players as usize].to_vec()
    }
    /// The number of cards in the draw pile.
    #[getter]
    fn draw_pile(&self) -> u32 {
        self.draw_pile
    }
    /// Every card of the discard pile (the top card included), in deck order.
    #[getter]
    fn discard<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        self.cards(py, self.discard)
    }
    /// Every seat's match total so far.
    #[getter]
    fn totals(&self) -> Vec<i64> {
        self.totals[..self.players as usize].to_vec()
    }
    /// The draw total pending at the table (stacking, challenge), else 0:
    /// aimed at you at a `stack` or `challenge` decision; at another (a
    /// `jump_in`, a colour) the one still pending, which need not be yours.
    #[getter]
    fn pending_draw(&self) -> u32 {
        self.pending_draw
    }
    /// What you know of every other hand, by seat: the cards you gave there
    /// in a seven-o 7 or 0 or a Wild Swap, or saw there in a challenge, that
    /// have not been played since (a reshuffle forgets them). Your own entry
    /// is empty (your hand is `hand`).
    #[getter]
    fn known<'py>(&self, py: Python<'py>) -> PyResult<Vec<Bound<'py, PyList>>> {
        self.known[..self.players as usize]
            .iter()
            .map(|&k| self.cards(py, k))
            .collect()
    }
    /// RLCard's observation planes, float32 `(4, 4, 15)`, of this seat:
    /// the planes `encoding="rlcard"` gives at the same decision (the same
    /// core function, `unolab::engine::rlcard::planes`).
    fn rlcard_planes<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray3<f32>>> {
        let mut planes = [0f32; rlcard::OBS_LEN];
        rlcard::planes(&self.rl_features(), &mut planes);
        PyArray1::from_slice(py, &planes).reshape(rlcard::SHAPE)
    }
    /// The colour RLCard's encoding names for a wild whose colour no action
    /// chose (a drawn wild played): the colour held most.
    fn rlcard_color(&self) -> &'static str {
        let f = self.rl_features();
        match rlcard::follow_up(DecisionKind::Color, None, &f) {
            Some(a) => Color::from_index(a - ACT_COLOR).name(),
            None => Color::Red.name(),
        }
    }
    /// RLCard's actions of the legal tokens `legal` (a `play` decision's
    /// `legal`), by action number: `(action, token, colour)`, the colour a
    /// wild's action names (else `None`); a wild once per colour, `"draw"`
    /// as action 60; cards RLCard does not have are left out.
    fn rlcard_legal(
        &self,
        legal: Vec<String>,
    ) -> PyResult<Vec<(usize, String, Option<&'static str>)>> {
        let mut out = Vec::with_capacity(legal.len() + 3);
        for t in legal {
            if t == "draw" {
                out.push((rlcard::DRAW, t));
                continue;
            }
            let k: Kind = t
                .parse()
                .map_err(|e: String| PyValueError::new_err(format!("'{t}': {e}")))?;
            let a = ACT_PLAY + kind_index(k);
            for c in rlcard::COLORS {
                if let Some(id) = rlcard::of_action(a, c) {
                    out.push((id, t.clone()));
                }
                if k.color.is_some() {
                    break;
                }
            }
        }
        out.sort();
        out.dedup();
        Ok(out
            .into_iter()
            .map(|(id, t)| {
                let named =
                    (id < rlcard::DRAW && id % 15 >= 13).then(|| rlcard::COLORS[id / 15].name());
                (id, t, named)
            })
            .collect())
    }
    /// RLCard's `raw_obs` of this seat, without `legal_actions`: `hand`,
    /// `target`, `played_cards` (RLCard's labels; a wild in a hand or the
    /// discard pile gets RLCard's colours in turn, r, g, b, y, as its deck
    /// has one wild of a kind per colour; the target wild, the colour
    /// named), `num_cards`, `num_players`, `current_player`.
    fn rlcard_raw<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        d.set_item("hand", self.rl_labels(self.hand))?;
        d.set_item("target", self.rl_label(self.top, self.active))?;
        d.set_item("played_cards", self.rl_labels(self.discard))?;
        d.set_item("num_cards", self.hand_sizes())?;
        d.set_item("num_players", self.players)?;
        d.set_item("current_player", self.seat)?;
        Ok(d)
    }
    /// The observation as the protocol's `obs` dict.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, pyo3::types::PyDict>> {
        let d = pyo3::types::PyDict::new(py);
        d.set_item("seat", self.seat)?;
        d.set_item("round", self.round)?;
        d.set_item("turn", self.turn)?;
        d.set_item("hand", self.hand(py)?)?;
        d.set_item("top", self.top(py))?;
        d.set_item("color", self.color())?;
        d.set_item("direction", self.direction)?;
        d.set_item("hand_sizes", self.hand_sizes())?;
        d.set_item("draw_pile", self.draw_pile)?;
        d.set_item("discard", self.discard(py)?)?;
        d.set_item("totals", self.totals())?;
        d.set_item("pending_draw", self.pending_draw)?;
        d.set_item("known", self.known(py)?)?;
        Ok(d)
    }
    fn __repr__(&self) -> String {
        let hand: Vec<&str> = self
            .hand
            .iter()
            .map(|c| self.tokens.text[c as usize].as_str())
            .collect();
        format!(
            "Observation(seat={}, turn={}, top={}, color={}, hand={:?}, hand_sizes={:?})",
            self.seat,
            self.turn,
            self.tokens.text[self.top as usize],
            // As Python writes it: 'red', or None.
            self.color()
                .map_or("None".to_string(), |c| format!("'{c}'")),
            hand,
            self.hand_sizes()
        )
    }
}
