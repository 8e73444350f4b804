//! `unolab._core`: the Python binding of unolab's stepped games. Thin by
//! design: the game, the encoding, the rendering and every check of the rules
//! live in the core crate (`unolab::engine::step`, `engine::encode`,
//! `engine::render`); this file turns Python arguments into the core's types,
//! the core's errors into Python exceptions, and fills numpy arrays.
//!
//! Every argument is checked here before the core is called with it, so no
//! input reaches code that can panic (a seat past the table, a player count
//! out of range).

mod errors;
mod lab;
mod observation;
mod strategy;
mod vec;

use numpy::{PyArray1, PyArray3, PyArrayMethods};
use pyo3::prelude::*;
use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};
use unolab::engine::encode::{
    self, DecisionKind, ACTIONS, ACT_CHALLENGE, ACT_COLOR, ACT_DRAW, ACT_JUMP, ACT_KEEP,
    ACT_NO_CHALLENGE, ACT_NO_JUMP, ACT_NO_UNO, ACT_PLAY, ACT_PLAY_DRAWN, ACT_TARGET, ACT_UNO,
    DECISION_KINDS, KINDS, KNOWN_LEN, OBS_LEN, OBS_LEN_KNOWN, SECTIONS,
};
use unolab::engine::game::{Outcome, MAX_PLAYERS};
use unolab::engine::rlcard;
use unolab::engine::step::{Reward, StepError, StepMode, Stepper};
use unolab::{RuleSetFile, Rules, Seat, StrategySpec};

pub(crate) use errors::{
    exists_error, read_error, rules_error, step_error, strategy_error, u64_arg, value_error, whole,
};

// ----- rules -----------------------------------------------------------------

/// Every distinct resolved rule set, built once and kept for the life of the
/// process: a stepped game borrows its `Rules` (`Stepper<'r, _>`), and a
/// Python object cannot hold a borrow, so each rule set is leaked once
/// (`Box::leak`) and shared by every game that uses it. The key is the
/// resolved TOML text (the rule file with every setting and house rule
/// written out), so the memory kept is bounded by the number of distinct rule
/// sets a process asks for, a few kilobytes each.
fn interned(file: RuleSetFile) -> PyResult<&'static Rules> {
    static CACHE: OnceLock<Mutex<HashMap<String, &'static Rules>>> = OnceLock::new();
    let key = file.to_toml();
    let cache = CACHE.get_or_init(|| Mutex::new(HashMap::new()));
    let mut cache = cache.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(r) = cache.get(&key) {
        return Ok(r);
    }
    let rules: &'static Rules = Box::leak(Box::new(Rules::build(file).map_err(rules_error)?));
    cache.insert(key, rules);
    Ok(rules)
}

/// Resolves a rule set (a name or a path), house rules (`"stacking=same,seven_o"`
/// items) and settings (`"key=value"` items).
fn resolve(rules: &str, house: &[String], settings: &[String]) -> PyResult<&'static Rules> {
    given_once(settings, house, "")?;
    let file = RuleSetFile::resolve(rules, settings, house).map_err(rules_error)?;
    interned(file)
}

/// Refuses a setting given twice among `settings` and the items of `house`
/// (`prefix`: `""`, or `"b_"` for a comparison's B): the later would win
/// silently, and a house rule wins over a setting of the same key whatever
/// the order (`unolab::engine::rules::given_twice`).
pub(crate) fn given_once(settings: &[String], house: &[String], prefix: &str) -> PyResult<()> {
    let Some((key, (f1, i1), (f2, i2))) = unolab::engine::rules::given_twice(settings, house)
    else {
        return Ok(());
    };
    let arg = |from: &str| {
        format!(
            "{prefix}{}",
            if from == "set" { "settings" } else { "house" }
        )
    };
    Err(value_error(if f1 == f2 {
        format!(
            "'{key}' is given twice in {}: {i1}, {i2}: give each setting once",
            arg(f1)
        )
    } else {
        format!(
            "'{key}' is given in {} ({i1}) and in {} ({i2}): give each setting once",
            arg(f1),
            arg(f2)
        )
    }))
}

// ----- the configuration of a table --------------------------------------------

/// A checked table: rules, the learner's seats, the strategy at every other
/// seat, how a game is played and rewarded.
pub(crate) struct Table {
    pub(crate) rules: &'static Rules,
    players: usize,
    pub(crate) env: u16,
    /// The strategy of each seat (`None` at the learner's seats).
    seats: Vec<Option<StrategySpec>>,
    mode: StepMode,
    reward: Reward,
    sanction: bool,
    ask_forced: bool,
    /// The first exception a Python strategy at the table raised, to raise
    /// again from the call that played it.
    pub(crate) errors: strategy::ErrorSlot,
}

/// The error of a play that stopped: the exception a Python strategy at the
/// table raised (`errors`), if that is why (and whether it was), else the
/// core's.
pub(crate) fn stopped(errors: &strategy::ErrorSlot, e: StepError) -> (PyErr, bool) {
    let mut slot = errors.lock().unwrap_or_else(|p| p.into_inner());
    match slot.take() {
        Some(raised) => (raised, true),
        None => (step_error(e), false),
    }
}

#[allow(clippy::too_many_arguments)]
pub(crate) fn table(
    rules: &str,
    house: Vec<String>,
    settings: Vec<String>,
    players: usize,
    learners: Option<Vec<i64>>,
    strategies: Vec<Bound<'_, PyAny>>,
    mode: &str,
    reward: &str,
    illegal: &str,
    ask_forced: bool,
) -> PyResult<Table> {
    let mode = match mode {
        "round" => StepMode::Round,
        "match" => StepMode::Match,
        m => {
            return Err(value_error(format!(
                "unknown mode '{m}' (valid: round, match)"
            )))
        }
    };
    let reward = match reward {
        "win" => Reward::Win,
        "points" => Reward::Points,
        r => {
            return Err(value_error(format!(
                "unknown reward '{r}' (valid: win, points)"
            )))
        }
    };
    let sanction = match illegal {
        "raise" => false,
        "sanction" => true,
        i => {
            return Err(value_error(format!(
                "unknown illegal-action handling '{i}' (valid: raise, sanction)"
            )))
        }
    };
    let rules = resolve(rules, &house, &settings)?;
    rules.check_players(players).map_err(rules_error)?;
    if sanction && rules.settings.strict {
        // Under strict = true the engine stops with an error on an illegal
        // action instead of sanctioning it: the two cannot both hold.
        return Err(value_error(
            "illegal=\"sanction\" contradicts the rules' strict = true (an illegal action is an error there, not sanctioned): use illegal=\"raise\", or settings={\"strict\": False}",
        ));
    }
    let st = &rules.settings;
    if mode == StepMode::Match && st.target == 0 && st.rounds == 0 && !st.quick {
        return Err(value_error(
            "a match needs an end: set target > 0, rounds > 0 or quick = true",
        ));
    }
    let learners = learners.unwrap_or_else(|| (0..players as i64).collect());
    if learners.is_empty() {
        return Err(value_error(
            "no learner seat: give at least one seat to the learner",
        ));
    }
    let mut env = 0u16;
    for &s in &learners {
        seat_at_table(i128::from(s), players)?;
        if env >> s & 1 == 1 {
            return Err(value_error(format!(
                "seat {s} is given to the learner twice"
            )));
        }
        env |= 1 << s;
    }
    let others = players - learners.len();
    // A name (a built-in, a preset file, an `ext:` program) or a Python
    // strategy object (`unolab.Strategy`), checked before any game.
    let errors = strategy::ErrorSlot::default();
    let specs = strategies
        .iter()
        .map(|s| match s.extract::<String>() {
            Ok(name) => StrategySpec::load(name.trim()).map_err(strategy_error),
            Err(_) => strategy::spec(s, errors.clone(), None),
        })
        .collect::<PyResult<Vec<_>>>()?;
    if others == 0 && !specs.is_empty() {
        return Err(value_error(
            "strategies were given but the learner plays every seat (give learner seats, or no strategies)",
        ));
    }
    if others > 0 && specs.is_empty() {
        return Err(value_error(format!(
            "{others} seat(s) are not the learner's: give strategies for them (e.g. [\"random\"])"
        )));
    }
    if specs.len() > others {
        return Err(value_error(format!(
            "{} strategies for the {others} other seats (give at most one per seat; the list is cycled)",
            specs.len()
        )));
    }
    let mut k = 0;
    let seats = (0..players)
        .map(|s| {
            if env >> s & 1 == 1 {
                None
            } else {
                k += 1;
                Some(specs[(k - 1) % specs.len()].clone())
            }
        })
        .collect();
    Ok(Table {
        rules,
        players,
        env,
        seats,
        mode,
        reward,
        sanction,
        ask_forced,
        errors,
    })
}

impl Table {
    /// A fresh game of this table (fresh strategy instances).
    pub(crate) fn stepper(&self) -> Stepper<'static, Seat> {
        let seats = self
            .seats
            .iter()
            .map(|s| match s {
                Some(spec) => spec.instantiate(),
                // Never asked: the learner answers at these seats.
                None => StrategySpec::Random.instantiate(),
            })
            .collect();
        let mut st = Stepper::new(self.rules, seats, self.env, self.mode, self.reward);
        st.set_sanction(self.sanction);
        st.set_ask_forced(self.ask_forced);
        st
    }
}

/// The winner of a finished game (of its round, or of its match).
pub(crate) fn winner(st: &Stepper<'static, Seat>) -> Option<u8> {
    match st.match_result() {
        Some(m) => m.winner,
        None => st.rounds().last().and_then(|r| r.winner),
    }
}

/// Whether a finished game was cut by the turn limit: a round whose turns
/// ran out, or a match without a winner whose last round's did. A match the
/// rules (or `max_rounds`) gave a winner is over, not cut, whatever ended its
/// last round: its reward is the win's, so bootstrapping it from `final_obs`
/// would count the end twice.
pub(crate) fn truncated(st: &Stepper<'static, Seat>) -> bool {
    let cut = st
        .rounds()
        .last()
        .is_some_and(|r| r.outcome == Outcome::Truncated);
    match st.match_result() {
        Some(m) => cut && m.winner.is_none(),
        None => cut,
    }
}

/// `seat` as a seat of a `players`-player table, or the error naming the range.
fn seat_at_table(seat: i128, players: usize) -> PyResult<u8> {
    if seat < 0 || seat >= players as i128 {
        return Err(value_error(format!(
            "seat {seat} is not a seat of a {players}-player table (valid: 0 to {})",
            players - 1
        )));
    }
    Ok(seat as u8)
}

/// An action as the core's number, or the core's refusal.
fn action_index(st: &Stepper<'static, Seat>, action: i128) -> PyResult<usize> {
    if action < 0 || action >= ACTIONS as i128 {
        return Err(value_error(format!(
            "action {action} is not an action (valid: 0 to {})",
            ACTIONS - 1
        )));
    }
    let a = action as usize;
    st.check(a).map_err(step_error)?;
    Ok(a)
}

// ----- one game ----------------------------------------------------------------

/// One game played a decision at a time (the engine behind the PettingZoo and
/// Gymnasium environments). See `unolab/_core.pyi`.
#[pyclass(module = "unolab._core")]
struct Game {
    // A Mutex makes the class Sync, as pyo3 requires; methods taking
    // `&mut self` reach it without locking (`get_mut`).
    st: Mutex<Stepper<'static, Seat>>,
    players: usize,
    env: u16,
    rules: &'static Rules,
    errors: strategy::ErrorSlot,
    /// Whether the last call that played stopped on a Python strategy's
    /// exception (raised again as it was).
    strategy_raised: bool,
}

impl Game {
    fn st(&mut self) -> &mut Stepper<'static, Seat> {
        self.st.get_mut().unwrap_or_else(|p| p.into_inner())
    }

    /// The result of a call that played: a stop on a Python strategy's
    /// exception raises that exception.
    fn played<T>(&mut self, r: Result<T, StepError>) -> PyResult<T> {
        self.strategy_raised = false;
        r.map_err(|e| {
            let (e, raised) = stopped(&self.errors, e);
            self.strategy_raised = raised;
            e
        })
    }
}

#[pymethods]
impl Game {
    #[new]
    #[pyo3(signature = (rules, house, settings, players, learners, strategies, mode, reward, illegal, ask_forced))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        rules: &str,
        house: Vec<String>,
        settings: Vec<String>,
        players: usize,
        learners: Option<Vec<i64>>,
        strategies: Vec<Bound<'_, PyAny>>,
        mode: &str,
        reward: &str,
        illegal: &str,
        ask_forced: bool,
    ) -> PyResult<Self> {
        let t = table(
            rules, house, settings, players, learners, strategies, mode, reward, illegal,
            ask_forced,
        )?;
        Ok(Game {
            st: Mutex::new(t.stepper()),
            players: t.players,
            env: t.env,
            rules: t.rules,
            errors: t.errors,
            strategy_raised: false,
        })
    }

    #[pyo3(signature = (seed, index = None))]
    fn reset(&mut self, seed: &Bound<'_, PyAny>, index: Option<&Bound<'_, PyAny>>) -> PyResult<()> {
        let seed = u64_arg(seed, "seed")?;
        let index = index.map_or(Ok(0), |i| u64_arg(i, "index"))?;
        let r = self.st().reset_game(seed, index);
        self.played(r)
    }

    /// Starts game `index` of `seed`, or the next that reaches a learner's
    /// decision (RLCard's encoding: settled); returns the index started.
    fn start(
        &mut self,
        seed: &Bound<'_, PyAny>,
        index: &Bound<'_, PyAny>,
        rlcard: bool,
    ) -> PyResult<u64> {
        let (seed, index) = (u64_arg(seed, "seed")?, u64_arg(index, "index")?);
        let k = vec::start_with_decision(self.st(), seed, rlcard, |k| index.wrapping_add(k));
        Ok(index.wrapping_add(self.played(k)?))
    }

    fn step(&mut self, action: &Bound<'_, PyAny>) -> PyResult<()> {
        let action = whole(action, "action")?;
        let st = self.st();
        if st.is_over() {
            return Err(step_error(StepError::Over));
        }
        let a = action_index(st, action)?;
        let r = st.step(a);
        self.played(r)
    }

    #[getter]
    fn seat(&mut self) -> Option<u8> {
        self.st().decision().map(|d| d.seat)
    }

    #[getter]
    fn kind(&mut self) -> Option<&'static str> {
        self.st().decision().map(|d| d.kind.name())
    }

    /// Whether the last call that played (reset, start, step) stopped on
    /// an exception a Python strategy raised (raised again by that call).
    #[getter]
    fn strategy_raised(&self) -> bool {
        self.strategy_raised
    }

    #[getter]
    fn is_over(&mut self) -> bool {
        self.st().is_over()
    }

    #[getter]
    fn truncated(&mut self) -> bool {
        let st = self.st();
        st.is_over() && truncated(st)
    }

    #[getter]
    fn winner(&mut self) -> Option<u8> {
        let st = self.st();
        if st.is_over() {
            winner(st)
        } else {
            None
        }
    }

    #[getter]
    fn rounds(&mut self) -> usize {
        self.st().rounds().len()
    }

    #[getter]
    fn totals(&mut self) -> Vec<i64> {
        let n = self.players;
        self.st().game().totals()[..n].to_vec()
    }

    #[getter]
    fn players(&self) -> usize {
        self.players
    }

    #[getter]
    fn learners(&self) -> Vec<usize> {
        (0..self.players)
            .filter(|s| self.env >> s & 1 == 1)
            .collect()
    }

    #[getter]
    fn rules_name(&self) -> String {
        self.rules.name.clone()
    }

    #[getter]
    fn deck_size(&self) -> usize {
        self.rules.deck.size
    }

    /// The deciding seat's features; with `known`, the known-cards section
    /// after them (and kept with each decision from then on).
    #[pyo3(signature = (known = false))]
    fn observation<'py>(&mut self, py: Python<'py>, known: bool) -> Bound<'py, PyArray1<f32>> {
        let st = self.st();
        let mut out = [0f32; OBS_LEN_KNOWN];
        st.write_features(&mut out);
        if known {
            st.keep_known(true);
            st.write_known(&mut out[OBS_LEN..]);
        }
        PyArray1::from_slice(py, &out[..OBS_LEN + KNOWN_LEN * known as usize])
    }

    #[pyo3(signature = (seat, known = false))]
    fn seat_observation<'py>(
        &mut self,
        py: Python<'py>,
        seat: &Bound<'py, PyAny>,
        known: bool,
    ) -> PyResult<Bound<'py, PyArray1<f32>>> {
        let seat = seat_at_table(whole(seat, "seat")?, self.players)?;
        let st = self.st();
        let mut out = [0f32; OBS_LEN_KNOWN];
        st.seat_features(seat, &mut out);
        if known {
            st.keep_known(true);
            st.seat_known(seat, &mut out[OBS_LEN..]);
        }
        Ok(PyArray1::from_slice(
            py,
            &out[..OBS_LEN + KNOWN_LEN * known as usize],
        ))
    }

    fn mask<'py>(&mut self, py: Python<'py>) -> Bound<'py, PyArray1<i8>> {
        let mut m = [0i8; ACTIONS];
        self.st().legal().write_mask(&mut m);
        PyArray1::from_slice(py, &m)
    }

    fn legal(&mut self) -> Vec<usize> {
        self.st().legal().iter().collect()
    }

    /// The rewards due to every seat, as Python floats: each the shortest
    /// decimal of the engine's `f32` (points / 100 gives 2.44, not the
    /// 2.440000057220459 a widening would show); the batched environment
    /// keeps `f32`.
    fn take_rewards(&mut self) -> Vec<f64> {
        let n = self.players;
        self.st().take_rewards()[..n]
            .iter()
            .map(|&r| {
                if r == 0.0 {
                    0.0
                } else {
                    r.to_string().parse().unwrap_or(r as f64)
                }
            })
            .collect()
    }

    fn render(&mut self) -> String {
        self.st().render()
    }

    /// RLCard encoding: the table as text, with RLCard's legal actions.
    fn rlcard_render(&mut self) -> String {
        vec::rlcard_render(self.st())
    }

    /// RLCard encoding: answers what RLCard answers without asking, up to
    /// the next play decision (after `reset`).
    fn rlcard_settle(&mut self) -> PyResult<()> {
        let r = self.st().rlcard_settle();
        self.played(r)
    }

    /// RLCard encoding: plays RLCard's action and what follows it.
    fn step_rlcard(&mut self, action: &Bound<'_, PyAny>) -> PyResult<()> {
        let action = whole(action, "action")?;
        let st = self.st();
        if st.is_over() {
            return Err(step_error(StepError::Over));
        }
        if !(0..rlcard::ACTIONS as i128).contains(&action) {
            return Err(value_error(format!(
                "action {action} is not an RLCard action (valid: 0 to {})",
                rlcard::ACTIONS - 1
            )));
        }
        let r = st.step_rlcard(action as usize);
        self.played(r)
    }

    /// RLCard encoding: the planes (4, 4, 15) of `seat` (default: the seat to act).
    #[pyo3(signature = (seat = None))]
    fn rlcard_observation<'py>(
        &mut self,
        py: Python<'py>,
        seat: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyArray3<f32>>> {
        let seat = seat.map(|s| whole(&s, "seat")).transpose()?;
        let mut planes = [0f32; rlcard::OBS_LEN];
        let acting = self.st().decision().map(|d| d.seat as i128);
        match seat {
            Some(s) if Some(s) != acting => {
                let s = seat_at_table(s, self.players)?;
                let mut f = [0f32; OBS_LEN];
                self.st().seat_features(s, &mut f);
                rlcard::planes(&f, &mut planes);
            }
            _ => self.st().rlcard_planes(&mut planes),
        }
        PyArray1::from_slice(py, &planes).reshape(rlcard::SHAPE)
    }

    /// Refuses the RLCard encoding for a rule set that asks a decision
    /// RLCard has no action for (stacking, a challenge, a swap target,
    /// jump-in): `ValueError` naming them, before any game.
    fn rlcard_check(&self) -> PyResult<()> {
        rlcard::check_rules(self.rules).map_err(value_error)
    }

    /// RLCard encoding: the mask of RLCard's 61 actions.
    fn rlcard_mask<'py>(&mut self, py: Python<'py>) -> Bound<'py, PyArray1<i8>> {
        let mut m = [0i8; rlcard::ACTIONS];
        self.st().rlcard_mask(&mut m);
        PyArray1::from_slice(py, &m)
    }
}

// ----- the encoding --------------------------------------------------------------

/// What an action does, in words.
#[pyfunction]
fn action_label(action: &Bound<'_, PyAny>) -> PyResult<String> {
    let action = whole(action, "action")?;
    if action < 0 || action >= ACTIONS as i128 {
        return Err(value_error(format!(
            "action {action} is not an action (valid: 0 to {})",
            ACTIONS - 1
        )));
    }
    Ok(encode::action_label(action as usize))
}

/// The sections of the observation: (name, offset, length, meaning).
#[pyfunction]
fn sections() -> Vec<(&'static str, usize, usize, &'static str)> {
    SECTIONS
        .iter()
        .map(|s| (s.name, s.offset, s.len, s.doc))
        .collect()
}

/// The decision kinds, by number.
#[pyfunction]
fn decision_kinds() -> Vec<&'static str> {
    DecisionKind::ALL.iter().map(|k| k.name()).collect()
}

/// The card kinds, by number (`red-0` ... `wild-custom`).
#[pyfunction]
fn card_kinds() -> Vec<String> {
    (0..KINDS)
        .map(|i| encode::kind_of_index(i).to_string())
        .collect()
}

/// The built-in rule sets.
#[pyfunction]
fn rule_sets() -> Vec<&'static str> {
    unolab::engine::rules::BUILTIN_NAMES.to_vec()
}

/// The built-in strategy names.
#[pyfunction]
fn strategy_names() -> Vec<&'static str> {
    unolab::agents::spec::builtin_names()
}

/// What RLCard's action `a` plays (`r-7`, `y-wild`, `draw`).
#[pyfunction]
fn rlcard_action_label(action: &Bound<'_, PyAny>) -> PyResult<String> {
    let action = whole(action, "action")?;
    if !(0..rlcard::ACTIONS as i128).contains(&action) {
        return Err(value_error(format!(
            "action {action} is not an RLCard action (valid: 0 to {})",
            rlcard::ACTIONS - 1
        )));
    }
    Ok(rlcard::action_label(action as usize))
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("OBS_LEN", OBS_LEN)?;
    m.add("KNOWN_LEN", KNOWN_LEN)?;
    m.add("OBS_LEN_KNOWN", OBS_LEN_KNOWN)?;
    m.add("ACTIONS", ACTIONS)?;
    m.add("KINDS", KINDS)?;
    m.add("DECISION_KINDS", DECISION_KINDS)?;
    m.add("MAX_PLAYERS", MAX_PLAYERS)?;
    for (name, value) in [
        ("ACT_PLAY", ACT_PLAY),
        ("ACT_DRAW", ACT_DRAW),
        ("ACT_PLAY_DRAWN", ACT_PLAY_DRAWN),
        ("ACT_KEEP", ACT_KEEP),
        ("ACT_COLOR", ACT_COLOR),
        ("ACT_UNO", ACT_UNO),
        ("ACT_NO_UNO", ACT_NO_UNO),
        ("ACT_CHALLENGE", ACT_CHALLENGE),
        ("ACT_NO_CHALLENGE", ACT_NO_CHALLENGE),
        ("ACT_TARGET", ACT_TARGET),
        ("ACT_JUMP", ACT_JUMP),
        ("ACT_NO_JUMP", ACT_NO_JUMP),
    ] {
        m.add(name, value)?;
    }
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_class::<Game>()?;
    m.add_class::<vec::VecGames>()?;
    m.add_function(wrap_pyfunction!(action_label, m)?)?;
    m.add_function(wrap_pyfunction!(sections, m)?)?;
    m.add_function(wrap_pyfunction!(decision_kinds, m)?)?;
    m.add_function(wrap_pyfunction!(card_kinds, m)?)?;
    m.add_function(wrap_pyfunction!(rule_sets, m)?)?;
    m.add_function(wrap_pyfunction!(strategy_names, m)?)?;
    m.add_function(wrap_pyfunction!(rlcard_action_label, m)?)?;
    m.add("RLCARD_ACTIONS", rlcard::ACTIONS)?;
    m.add_class::<strategy::Observation>()?;
    for f in [
        wrap_pyfunction!(lab::run, m)?,
        wrap_pyfunction!(lab::compare, m)?,
        wrap_pyfunction!(lab::experiment, m)?,
        wrap_pyfunction!(lab::tournament, m)?,
        wrap_pyfunction!(lab::ladder, m)?,
        wrap_pyfunction!(lab::redraw_ladder, m)?,
        wrap_pyfunction!(lab::tune, m)?,
        wrap_pyfunction!(lab::trace, m)?,
        wrap_pyfunction!(lab::rules_list, m)?,
        wrap_pyfunction!(lab::rules_show, m)?,
        wrap_pyfunction!(lab::toml_to_json, m)?,
        wrap_pyfunction!(lab::json_to_toml, m)?,
        wrap_pyfunction!(lab::catalog, m)?,
        wrap_pyfunction!(lab::check_strategy, m)?,
        wrap_pyfunction!(lab::thread_limit, m)?,
    ] {
        m.add_function(f)?;
    }
    Ok(())
}
