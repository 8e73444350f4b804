//! Python strategies in-process: a Python object with the decision methods of
//! the protocol (docs/protocol.md) seated through the core's
//! `StrategySpec::custom`, so it plays at any seat of `run`, `compare`,
//! `experiment` and `tournament` next to the built-ins. It sees the same
//! observation as every other strategy ([`Observation`], the fields of the
//! protocol's `obs`), and answers with the protocol's values: card tokens,
//! `"draw"`, colour names, seats, booleans.
//!
//! A method the object leaves out gets the engine's default (the
//! `Strategy` trait's); `play` is required. An exception raised by a method
//! is a fault of the seat, as a dying program is: the seat answers legal
//! defaults until the round ends, the run stops with an error, and the
//! binding raises the exception itself.

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyList, PyString, PyTuple, PyType};
use std::sync::{Arc, Mutex};
use unolab::engine::cards::{CardId, CardSet, Color, Kind};
use unolab::engine::encode::kind_table;
use unolab::engine::game::{Observation as CoreObs, RoundResult};
use unolab::engine::rng::Rng;
use unolab::engine::strategy::{fewest_cards_opponent, most_held_color, Strategy};
use unolab::StrategySpec;

pub use crate::observation::{Observation, Tokens};

/// The decision methods, in the order of [`Methods`].
pub const METHODS: [&str; 10] = [
    "play",
    "play_drawn",
    "color",
    "uno",
    "target",
    "stack",
    "challenge",
    "jump_in",
    "round_start",
    "round_end",
];

/// A Python thread state kept for the life of a worker thread.
///
/// `Python::attach` on a thread Python does not know creates a thread state
/// and destroys it again on release: about 15 microseconds a decision, most
/// of a simple policy's cost (`benches/python/bench_strategy.py`: 62,000
/// decisions per CPU second for a one-line `play`). A worker thread that
/// seats a Python strategy therefore registers once (one
/// `PyGILState_Ensure` kept open) and releases the lock at once; every
/// decision then only takes and gives back the lock. The thread state is
/// released when the thread ends.
struct KeptThreadState {
    gstate: pyo3::ffi::PyGILState_STATE,
    tstate: *mut pyo3::ffi::PyThreadState,
}

impl KeptThreadState {
    /// Registers the current thread with the interpreter if it is not yet,
    /// keeping the registration until the thread ends.
    fn ensure() {
        thread_local! {
            static KEPT: std::cell::RefCell<Option<KeptThreadState>> = const { std::cell::RefCell::new(None) };
        }
        KEPT.with(|k| {
            let mut k = k.borrow_mut();
            if k.is_some() {
                return;
            }
            // SAFETY: called on a thread that does not hold the interpreter's
            // lock (a worker of the core's pool, outside any `attach`), with
            // the interpreter initialized (a Python call started the run).
            // `PyGILState_GetThisThreadState` only reads; a thread Python
            // already knows (the main thread, in `trace`) is left alone.
            // `PyGILState_Ensure` takes the lock and registers the thread;
            // `PyEval_SaveThread` gives the lock back and keeps the state.
            unsafe {
                if !pyo3::ffi::PyGILState_GetThisThreadState().is_null() {
                    return;
                }
                let gstate = pyo3::ffi::PyGILState_Ensure();
                let tstate = pyo3::ffi::PyEval_SaveThread();
                *k = Some(KeptThreadState { gstate, tstate });
            }
        });
    }
}

impl Drop for KeptThreadState {
    fn drop(&mut self) {
        // SAFETY: runs once, on the thread that registered (a thread-local's
        // destructor at thread exit), which does not hold the lock: it takes
        // the lock back with its own thread state and releases the
        // registration `ensure` kept open. Skipped once the interpreter is
        // finalizing (the state is freed with it).
        unsafe {
            if pyo3::ffi::Py_IsInitialized() == 0 {
                return;
            }
            pyo3::ffi::PyEval_RestoreThread(self.tstate);
            pyo3::ffi::PyGILState_Release(self.gstate);
        }
    }
}

/// The first exception a Python strategy raised in a run, kept to raise it
/// again when the run stops.
pub type ErrorSlot = Arc<Mutex<Option<PyErr>>>;

/// Why an answer is refused: of the wrong type (a `TypeError`: a number
/// where a token is asked, a string where a bool is) or a value of the right
/// type that is not an answer (a `ValueError`: a token of no card).
enum Refused {
    Type(String),
    Value(String),
}

impl From<String> for Refused {
    fn from(why: String) -> Self {
        Refused::Value(why)
    }
}

/// A Python object seated as a strategy (one per seat per worker).
struct PyStrategy {
    name: String,
    obj: Py<PyAny>,
    /// The bound method of each of [`METHODS`] the object has.
    methods: [Option<Py<PyAny>>; 10],
    tokens: Option<Arc<Tokens>>,
    fault: Option<String>,
    errors: ErrorSlot,
}

impl PyStrategy {
    fn tokens(&mut self, py: Python<'_>, obs: &CoreObs) -> Arc<Tokens> {
        if let Some(t) = &self.tokens {
            return t.clone();
        }
        let d = &obs.rules().deck;
        let text: Vec<String> = (0..d.size as CardId).map(|c| d.token(c)).collect();
        let t = Arc::new(Tokens {
            py: text
                .iter()
                .map(|s| PyString::intern(py, s).unbind())
                .collect(),
            text,
            kind: kind_table(d),
        });
        self.tokens = Some(t.clone());
        t
    }

    /// Calls method `m` with the observation and `extra` arguments; `None`
    /// when the object has no such method, after a fault, or when it raises
    /// (a fault) or answers something `read` refuses (a fault).
    fn ask<T>(
        &mut self,
        m: usize,
        obs: &CoreObs,
        extra: impl for<'py> FnOnce(Python<'py>, &Tokens) -> PyResult<Vec<Bound<'py, PyAny>>>,
        read: impl FnOnce(&Bound<'_, PyAny>, &Tokens) -> Result<T, Refused>,
    ) -> Option<T> {
        if self.fault.is_some() || self.methods[m].is_none() {
            return None;
        }
        KeptThreadState::ensure();
        Python::attach(|py| {
            let tokens = self.tokens(py, obs);
            let o = Bound::new(py, Observation::of(obs, tokens.clone()));
            let call = (|| -> PyResult<Bound<'_, PyAny>> {
                let mut args: Vec<Bound<'_, PyAny>> = vec![o?.into_any()];
                args.extend(extra(py, &tokens)?);
                let f = self.methods[m].as_ref().map(|f| f.bind(py).clone());
                let f = f.ok_or_else(|| PyTypeError::new_err("no method"))?;
                f.call1(PyTuple::new(py, args)?)
            })();
            match call {
                Ok(v) => match read(&v, &tokens) {
                    Ok(t) => Some(t),
                    Err(why) => {
                        let (is_type, why) = match why {
                            Refused::Type(w) => (true, w),
                            Refused::Value(w) => (false, w),
                        };
                        // What was answered, at most 200 characters of it
                        // (a 10 MB string was quoted whole, twice).
                        let clip = unolab::agents::external::clip;
                        let msg = format!(
                            "strategy '{}': {}() answered {}: {}",
                            self.name,
                            METHODS[m],
                            clip(&v.repr().map(|r| r.to_string()).unwrap_or_default()),
                            clip(&why)
                        );
                        self.failed(if is_type {
                            PyTypeError::new_err(msg)
                        } else {
                            PyValueError::new_err(msg)
                        });
                        None
                    }
                },
                Err(e) => {
                    self.failed(e);
                    None
                }
            }
        })
    }

    fn failed(&mut self, e: PyErr) {
        let what = Python::attach(|py| {
            let t = e
                .get_type(py)
                .name()
                .map(|n| n.to_string())
                .unwrap_or_default();
            format!("raised {t}: {}", e.value(py))
        });
        self.fault = Some(what);
        let mut slot = self.errors.lock().unwrap_or_else(|p| p.into_inner());
        if slot.is_none() {
            *slot = Some(e);
        }
    }

    fn card_answer(
        v: &Bound<'_, PyAny>,
        tokens: &Tokens,
        offered: CardSet,
        obs: &CoreObs,
    ) -> Result<Option<CardId>, Refused> {
        let t: String = v.extract().map_err(|_| {
            Refused::Type("the answer must be a card token or \"draw\" (a str)".to_string())
        })?;
        if t == "draw" {
            return Ok(None);
        }
        if let Some(c) = offered.iter().find(|&c| tokens.text[c as usize] == t) {
            return Ok(Some(c));
        }
        // Not offered: a card of that kind the player holds, else any; the
        // engine judges (and sanctions) the move, as for a program.
        let kind: Kind = t.parse()?;
        let all = obs.rules().deck.all_of(kind);
        if all.is_empty() {
            return Err(Refused::Value(format!("there is no {t} in this deck")));
        }
        Ok((all & obs.hand()).first().or_else(|| all.first()))
    }
}

/// The distinct tokens of `set`, then `"draw"` when `draw`.
fn card_legal<'py>(
    py: Python<'py>,
    tokens: &Tokens,
    set: CardSet,
    draw: bool,
) -> PyResult<Bound<'py, PyAny>> {
    let mut seen: Vec<&str> = Vec::with_capacity(16);
    let l = PyList::empty(py);
    for c in set.iter() {
        let t = tokens.text[c as usize].as_str();
        if !seen.contains(&t) {
            seen.push(t);
            l.append(tokens.py[c as usize].bind(py))?;
        }
    }
    if draw {
        l.append(pyo3::intern!(py, "draw"))?;
    }
    Ok(l.into_any())
}

fn read_bool(v: &Bound<'_, PyAny>, _: &Tokens) -> Result<bool, Refused> {
    v.extract::<bool>()
        .map_err(|_| Refused::Type("the answer must be True or False (a bool)".to_string()))
}

impl Strategy for PyStrategy {
    fn name(&self) -> &str {
        &self.name
    }

    /// A player with nothing playable draws without being asked.
    fn ask_without_choice(&self) -> bool {
        false
    }

    fn choose_play(&mut self, obs: &CoreObs, playable: CardSet, _: &mut Rng) -> Option<CardId> {
        let s = obs.settings();
        let may_draw = playable.is_empty() || (s.may_draw_when_playable && !s.force_play);
        let a = self.ask(
            0,
            obs,
            |py, t| Ok(vec![card_legal(py, t, playable, may_draw)?]),
            |v, t| PyStrategy::card_answer(v, t, playable, obs),
        );
        match a {
            Some(c) => c,
            None => playable.first(),
        }
    }

    fn play_drawn(&mut self, obs: &CoreObs, card: CardId, _: &mut Rng) -> bool {
        self.ask(
            1,
            obs,
            |py, t| Ok(vec![t.py[card as usize].bind(py).clone().into_any()]),
            read_bool,
        )
        .unwrap_or(true)
    }

    fn choose_color(&mut self, obs: &CoreObs, _: &mut Rng) -> Color {
        self.ask(
            2,
            obs,
            |_, _| Ok(vec![]),
            |v, _| {
                let name = v.extract::<String>().map_err(|_| {
                    Refused::Type("the answer must be a colour name (a str)".to_string())
                })?;
                Ok(name.parse::<Color>()?)
            },
        )
        .unwrap_or_else(|| most_held_color(obs))
    }

    fn call_uno(&mut self, obs: &CoreObs, _: &mut Rng) -> bool {
        self.ask(3, obs, |_, _| Ok(vec![]), read_bool)
            .unwrap_or(true)
    }

    fn choose_target(&mut self, obs: &CoreObs, _: &mut Rng) -> u8 {
        let players = obs.players();
        let legal: Vec<u8> = (1..players as u8).map(|k| obs.seat_after(k)).collect();
        self.ask(
            4,
            obs,
            |py, _| Ok(vec![PyList::new(py, &legal)?.into_any()]),
            |v, _| {
                // `True` is an int to Python, not a seat: nothing is coerced.
                if v.is_instance_of::<pyo3::types::PyBool>() {
                    return Err(Refused::Type(
                        "the answer must be a seat number, not True or False".to_string(),
                    ));
                }
                match v.extract::<u8>() {
                    // A seat at the table (a seat not offered is the game's
                    // to sanction, as a card not playable is).
                    Ok(seat) if (seat as usize) < players => Ok(seat),
                    Ok(_) => Err(Refused::Value(format!(
                        "the answer must be a seat number from 0 to {}",
                        players - 1
                    ))),
                    // An integer (`__index__`: numpy's too) that is no seat.
                    Err(_) if v.hasattr("__index__").unwrap_or(false) => Err(Refused::Value(
                        "the answer must be a seat number".to_string(),
                    )),
                    Err(_) => Err(Refused::Type(
                        "the answer must be a seat number (an int)".to_string(),
                    )),
                }
            },
        )
        .unwrap_or_else(|| fewest_cards_opponent(obs))
    }

    fn answer_stack(&mut self, obs: &CoreObs, answers: CardSet, _: &mut Rng) -> Option<CardId> {
        let a = self.ask(
            5,
            obs,
            |py, t| Ok(vec![card_legal(py, t, answers, true)?]),
            |v, t| PyStrategy::card_answer(v, t, answers, obs),
        );
        match a {
            Some(c) => c,
            None => answers.first(),
        }
    }

    fn challenge(&mut self, obs: &CoreObs, _: &mut Rng) -> bool {
        self.ask(6, obs, |_, _| Ok(vec![]), read_bool)
            .unwrap_or(false)
    }

    fn jump_in(&mut self, obs: &CoreObs, card: CardId, _: &mut Rng) -> bool {
        self.ask(
            7,
            obs,
            |py, t| Ok(vec![t.py[card as usize].bind(py).clone().into_any()]),
            read_bool,
        )
        .unwrap_or(true)
    }

    fn round_start(&mut self, obs: &CoreObs) {
        let _ = self.ask(8, obs, |_, _| Ok(vec![]), |_, _| Ok(()));
    }

    fn round_end(&mut self, obs: &CoreObs, r: &RoundResult) {
        let n = obs.players();
        let _ = self.ask(
            9,
            obs,
            |py, _| {
                let d = pyo3::types::PyDict::new(py);
                d.set_item("round", r.round)?;
                d.set_item("outcome", r.outcome.name())?;
                d.set_item("winner", r.winner)?;
                d.set_item("points", r.points[..n].to_vec())?;
                d.set_item("turns", r.turns)?;
                Ok(vec![d.into_any()])
            },
            |_, _| Ok(()),
        );
    }

    fn fault(&mut self) -> Option<String> {
        self.fault.clone()
    }

    fn recover(&mut self) {
        self.fault = None;
    }

    fn hears_notices(&self) -> bool {
        true
    }
}

impl Drop for PyStrategy {
    fn drop(&mut self) {
        // The Python references are released under the interpreter's lock.
        Python::attach(|_| {
            self.methods = Default::default();
            self.tokens = None;
            let _ = &self.obj;
        });
    }
}

/// The strategy's name: its `name` attribute, else (none, or `None`) its
/// class's name; a `name` of another type is a `TypeError`.
fn name_of(obj: &Bound<'_, PyAny>) -> PyResult<String> {
    if let Some(n) = obj.getattr_opt("name")?.filter(|n| !n.is_none()) {
        return n.extract::<String>().map_err(|_| {
            let got = n.repr().map(|r| r.to_string()).unwrap_or_default();
            PyTypeError::new_err(format!(
                "a strategy's name is a string (or None for its class's name), got {got}"
            ))
        });
    }
    let ty = if obj.is_instance_of::<PyType>() {
        obj.cast::<PyType>()?.clone()
    } else {
        obj.get_type()
    };
    Ok(ty.name()?.to_string())
}

/// Checks that `obj` (a strategy object or class) has a callable `play` and
/// that every other decision method it has is callable: a `TypeError`
/// naming the attribute otherwise (a method left out gets the default; an
/// attribute of that name that cannot be called is a mistake, not a default).
fn check_methods(obj: &Bound<'_, PyAny>, name: &str) -> PyResult<()> {
    for m in METHODS {
        match obj.getattr_opt(m)? {
            // `unolab.Strategy`'s own play, which only raises: a subclass
            // that does not define play has none.
            Some(f) if m == "play" && is_placeholder(&f)? => {
                return Err(PyTypeError::new_err(format!(
                    "strategy '{name}': a Python strategy needs a play(obs, legal) method: \
                     unolab.Strategy's own is a placeholder (see docs/python.md)"
                )));
            }
            Some(f) if f.is_callable() => {}
            Some(f) => {
                let got = f.repr().map(|r| r.to_string()).unwrap_or_default();
                let what = if m == "play" {
                    "a Python strategy needs a play(obs, legal) method".to_string()
                } else {
                    "define it as a method, or leave it out for the default".to_string()
                };
                return Err(PyTypeError::new_err(format!(
                    "strategy '{name}': its '{m}' attribute is not callable (got {got}): {what} (see docs/python.md)"
                )));
            }
            None if m == "play" => {
                return Err(PyTypeError::new_err(format!(
                    "strategy '{name}': a Python strategy needs a play(obs, legal) method (see docs/python.md)"
                )));
            }
            None => {}
        }
    }
    Ok(())
}

/// Whether `f` is `unolab.Strategy.play` (marked `__unolab_placeholder__`;
/// a bound method reads its function's attributes).
fn is_placeholder(f: &Bound<'_, PyAny>) -> PyResult<bool> {
    match f.getattr_opt("__unolab_placeholder__")? {
        Some(v) => v.is_truthy(),
        None => Ok(false),
    }
}

/// A strategy spec for a Python object (an instance, shared by every seat it
/// takes, or a class, instantiated once per seat and worker). Exceptions its
/// methods raise go to `errors`.
pub fn spec(
    obj: &Bound<'_, PyAny>,
    errors: ErrorSlot,
    name: Option<&str>,
) -> PyResult<StrategySpec> {
    let name = match name {
        Some(n) => n.to_string(),
        None => name_of(obj)?,
    };
    // A class whose `play` is `unolab.Strategy`'s placeholder may set its
    // own in `__init__`: an instance of it says (its seats' instances are
    // made, and checked, the same way).
    let placeholder_class = obj.is_instance_of::<PyType>()
        && match obj.getattr_opt("play")? {
            Some(f) => is_placeholder(&f)?,
            None => false,
        };
    if placeholder_class {
        check_methods(&obj.call0()?, &name)?;
    } else {
        check_methods(obj, &name)?;
    }
    let obj: Py<PyAny> = obj.clone().unbind();
    let make_name = name.clone();
    unolab::StrategySpec::custom(&name, "python", move || {
        Python::attach(|py| {
            let o = obj.bind(py);
            let mut fault = None;
            let inst = if o.is_instance_of::<PyType>() {
                match o.call0() {
                    Ok(i) => Some(i),
                    Err(e) => {
                        fault = Some(format!("could not be created: {}", e.value(py)));
                        let mut slot = errors.lock().unwrap_or_else(|p| p.into_inner());
                        if slot.is_none() {
                            *slot = Some(e);
                        }
                        None
                    }
                }
            } else {
                Some(o.clone())
            };
            let mut methods: [Option<Py<PyAny>>; 10] = Default::default();
            if let Some(inst) = &inst {
                // The instance again: `__init__` may have set what the
                // class did not have (a `play` that is not callable is a
                // fault of the seat, never a seat played by the default).
                match check_methods(inst, &make_name) {
                    Ok(()) => {
                        for (i, m) in METHODS.iter().enumerate() {
                            methods[i] = inst.getattr_opt(*m).ok().flatten().map(|f| f.unbind());
                        }
                    }
                    Err(e) => {
                        fault = Some(format!("is not a strategy: {}", e.value(py)));
                        let mut slot = errors.lock().unwrap_or_else(|p| p.into_inner());
                        if slot.is_none() {
                            *slot = Some(e);
                        }
                    }
                }
            }
            Box::new(PyStrategy {
                name: make_name.clone(),
                obj: inst.unwrap_or_else(|| o.clone()).unbind(),
                methods,
                tokens: None,
                fault,
                errors: errors.clone(),
            }) as Box<dyn Strategy>
        })
    })
    .map_err(|e| PyValueError::new_err(e.to_string()))
}
