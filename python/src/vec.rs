//! `VecGames`: a batch of stepped games behind `unolab.VecEnv`, written into
//! numpy arrays it owns, in the engine's encoding (with the known-cards
//! section under `encoding="known"`) or RLCard's
//! (`encoding="rlcard"`: the planes and the 61 actions of
//! `unolab::engine::rlcard`, stepped with the core's `Stepper::step_rlcard`,
//! as the AEC environment's RLCard encoding is).

use crate::{table, truncated, value_error, winner};
use numpy::{
    ndarray::IxDyn, PyArray1, PyArray2, PyArrayDyn, PyArrayMethods, PyReadonlyArray1,
    PyUntypedArrayMethods,
};
use pyo3::exceptions::{PyMemoryError, PyRuntimeError};
use pyo3::prelude::*;
use std::sync::Mutex;
use unolab::engine::encode::{ActionSet, ACTIONS, OBS_LEN, OBS_LEN_KNOWN};
use unolab::engine::rlcard;
use unolab::engine::step::{StepError, Stepper};
use unolab::{Game, Seat};

/// The state of a batch, behind a Mutex (see [`Game`]).
struct Batch {
    games: Vec<Stepper<'static, Seat>>,
    /// The game every stepper's pass plays on (`Stepper::step_on`): one
    /// copy, warm in the cache, instead of a cold one per game.
    scratch: Game<'static>,
    /// Each game's legal actions (engine encoding), side by side, so that
    /// checking a batch's actions does not visit every stepper.
    legal: Vec<ActionSet>,
    /// Games started in each slot since the last reset.
    started: Vec<u64>,
    /// How many entries of each game's row of `legal` the last write used
    /// (kept here: the `legal_count` array is Python's to overwrite).
    listed: Vec<u16>,
    seed: u64,
    /// Games that ended before any learner decision (played through, skipped).
    skipped: u64,
    /// RLCard's encoding: its planes, mask and actions, and the decisions
    /// it does not ask answered as it does (`Stepper::rlcard_settle`).
    rl: bool,
    /// `encoding="known"`: the features, then the known-cards section
    /// (`Stepper::write_known`, kept with each decision).
    known: bool,
}

/// The arrays a batch writes into (owned by the VecGames, seen from Python
/// as numpy arrays; never reallocated).
struct Out<'a> {
    obs: &'a mut [f32],
    mask: &'a mut [i8],
    /// The legal actions of each game in increasing order, then -1.
    legal: &'a mut [i16],
    legal_count: &'a mut [i64],
    seat: &'a mut [i64],
    kind: &'a mut [i64],
    rewards: &'a mut [f32],
    done: &'a mut [bool],
    truncated: &'a mut [bool],
    winner: &'a mut [i64],
    /// With `final_obs=True`: `(n, players, obs)`, each seat's view of the
    /// last state of the game that ended in slot `i` in the last step.
    final_obs: Option<&'a mut [f32]>,
}

/// The table as text ([`Stepper::render`]) with RLCard's legal actions
/// (numbers and labels) in place of the engine's: the actions a step takes
/// under `encoding="rlcard"`. The end of a game is as the engine writes it.
pub(crate) fn rlcard_render(st: &mut Stepper<'static, Seat>) -> String {
    let text = st.render();
    if st.is_over() {
        return text;
    }
    // The engine's text ends with its one line of legal actions.
    let Some(at) = text.rfind("legal actions:") else {
        return text;
    };
    let mut m = [0i8; rlcard::ACTIONS];
    st.rlcard_mask(&mut m);
    let mut out = text[..at].to_string();
    out.push_str("legal actions:");
    for a in (0..rlcard::ACTIONS).filter(|&a| m[a] != 0) {
        out.push_str(&format!(" {a} ({})", rlcard::action_label(a)));
    }
    out.push('\n');
    out
}

/// The most games in a row [`start_with_decision`] lets end before a
/// learner's decision: past that the settings leave the learners nothing to
/// decide, and skipping on would never end.
const MAX_SKIPPED_IN_A_ROW: u64 = 1000;

/// Starts game `index(0)` of `seed`, else `index(1)`, ... until one reaches a
/// learner's decision (with RLCard's encoding, settled: `rl`); returns how
/// many ended before one ([`StepError::NoDecision`] after
/// [`MAX_SKIPPED_IN_A_ROW`]).
pub(crate) fn start_with_decision(
    st: &mut Stepper<'static, Seat>,
    seed: u64,
    rl: bool,
    index: impl Fn(u64) -> u64,
) -> Result<u64, StepError> {
    for k in 0..MAX_SKIPPED_IN_A_ROW {
        st.reset_game(seed, index(k))?;
        if rl {
            st.rlcard_settle()?;
        }
        if !st.is_over() {
            return Ok(k);
        }
    }
    Err(StepError::NoDecision(MAX_SKIPPED_IN_A_ROW))
}

impl Batch {
    /// Starts the next game of slot `i` (game `i + started * n` of the seed),
    /// skipping games that end before any learner decision.
    fn start(&mut self, i: usize) -> Result<(), StepError> {
        let n = self.games.len() as u64;
        let first = self.started[i];
        let index = |k: u64| (i as u64).wrapping_add(first.wrapping_add(k).wrapping_mul(n));
        let k = start_with_decision(&mut self.games[i], self.seed, self.rl, index);
        // The games tried count as started, the one in play too; a game
        // that stopped on an error (a strategy that failed) counts as none
        // (the batch needs a reset), not as the limit of skipped games.
        let tried = match &k {
            Ok(t) => *t,
            Err(StepError::NoDecision(m)) => *m,
            Err(_) => 0,
        };
        self.started[i] += tried + u64::from(k.is_ok());
        self.skipped += tried;
        k.map(|_| ())
    }

    /// Writes slot `i`'s decision in hand into the arrays.
    fn write(&mut self, i: usize, out: &mut Out) {
        let st = &mut self.games[i];
        let before = self.listed[i] as usize;
        let count;
        if self.rl {
            let o = rlcard::OBS_LEN;
            st.rlcard_planes(&mut out.obs[i * o..(i + 1) * o]);
            let m = rlcard::ACTIONS;
            let mask = &mut out.mask[i * m..(i + 1) * m];
            st.rlcard_mask(mask);
            let list = &mut out.legal[i * m..(i + 1) * m];
            let mut k = 0;
            for (a, &on) in mask.iter().enumerate() {
                if on != 0 {
                    list[k] = a as i16;
                    k += 1;
                }
            }
            count = k;
        } else {
            let o = if self.known { OBS_LEN_KNOWN } else { OBS_LEN };
            let row = &mut out.obs[i * o..(i + 1) * o];
            st.write_features(row);
            if self.known {
                st.write_known(&mut row[OBS_LEN..]);
            }
            let legal = st.legal();
            legal.write_mask(&mut out.mask[i * ACTIONS..(i + 1) * ACTIONS]);
            let list = &mut out.legal[i * ACTIONS..(i + 1) * ACTIONS];
            let mut k = 0;
            for a in legal.iter() {
                list[k] = a as i16;
                k += 1;
            }
            count = k;
        }
        // Only the entries the last list used can hold a stale action.
        let m = out.mask.len() / out.legal_count.len();
        if before > count {
            out.legal[i * m + count..i * m + before].fill(-1);
        }
        out.legal_count[i] = count as i64;
        self.listed[i] = count as u16;
        self.legal[i] = st.legal();
        let d = st.decision();
        out.seat[i] = d.map_or(-1, |d| d.seat as i64);
        out.kind[i] = d.map_or(-1, |d| d.kind as i64);
    }

    /// The width of one observation (one row of `obs`).
    fn obs_len(&self) -> usize {
        if self.rl {
            rlcard::OBS_LEN
        } else if self.known {
            OBS_LEN_KNOWN
        } else {
            OBS_LEN
        }
    }

    /// Writes every seat's view of slot `i`'s game, which is over, into its
    /// rows of `final_obs` (`players` rows of [`Batch::obs_len`]): what the
    /// single-game environments observe after the end
    /// (`seat_observation`, or RLCard's planes of it).
    fn write_final(&mut self, i: usize, final_obs: &mut [f32], players: usize) {
        let o = self.obs_len();
        let st = &mut self.games[i];
        for p in 0..players {
            let row = &mut final_obs[(i * players + p) * o..(i * players + p + 1) * o];
            if self.rl {
                let mut f = [0f32; OBS_LEN];
                st.seat_features(p as u8, &mut f);
                rlcard::planes(&f, row);
            } else {
                st.seat_features(p as u8, &mut row[..OBS_LEN]);
                if self.known {
                    st.seat_known(p as u8, &mut row[OBS_LEN..]);
                }
            }
        }
    }

    fn reset(&mut self, seed: u64, out: &mut Out, players: usize) -> Result<(), StepError> {
        self.seed = seed;
        self.skipped = 0;
        self.started.fill(0);
        for i in 0..self.games.len() {
            self.start(i)?;
            self.write(i, out);
        }
        out.rewards[..self.games.len() * players].fill(0.0);
        out.done.fill(false);
        out.truncated.fill(false);
        out.winner.fill(-1);
        if let Some(f) = out.final_obs.as_deref_mut() {
            f.fill(0.0);
        }
        Ok(())
    }

    /// Steps every game with its action (all checked before; RLCard's with
    /// its encoding), restarting the games that end.
    fn step(&mut self, actions: &[usize], out: &mut Out, players: usize) -> Result<(), StepError> {
        // One action per game (the caller checked the length).
        for (i, &action) in actions.iter().enumerate().take(self.games.len()) {
            let st = &mut self.games[i];
            if self.rl {
                // `VecGames::step` ran `check_rlcard` on every action.
                st.step_rlcard_checked(action)?;
            } else {
                st.step_on(action, &mut self.scratch)?;
            }
            let r = st.take_rewards();
            out.rewards[i * players..(i + 1) * players].copy_from_slice(&r[..players]);
            let over = st.is_over();
            out.done[i] = over;
            if over {
                out.truncated[i] = truncated(st);
                out.winner[i] = winner(st).map_or(-1, |w| w as i64);
                if let Some(f) = out.final_obs.as_deref_mut() {
                    self.write_final(i, f, players);
                }
                self.start(i)?;
            } else {
                out.truncated[i] = false;
                out.winner[i] = -1;
            }
            self.write(i, out);
        }
        Ok(())
    }
}

/// `n` games stepped together, writing into numpy arrays it owns. See
/// `unolab/_core.pyi` and `unolab.VecEnv`.
#[pyclass(module = "unolab._core")]
pub(crate) struct VecGames {
    batch: Mutex<Batch>,
    players: usize,
    env: u16,
    /// The actions as the core's numbers (scratch, kept to avoid allocating).
    actions: Vec<usize>,
    /// `(n, OBS_LEN)`, `(n, OBS_LEN_KNOWN)` with the known cards, or
    /// `(n, 4, 4, 15)` with RLCard's encoding.
    obs: Py<PyArrayDyn<f32>>,
    mask: Py<PyArray2<i8>>,
    legal: Py<PyArray2<i16>>,
    legal_count: Py<PyArray1<i64>>,
    seat: Py<PyArray1<i64>>,
    kind: Py<PyArray1<i64>>,
    rewards: Py<PyArray2<f32>>,
    done: Py<PyArray1<bool>>,
    truncated: Py<PyArray1<bool>>,
    winner: Py<PyArray1<i64>>,
    /// `(n, players, ...obs)` with `final_obs=True`, else `None`.
    final_obs: Option<Py<PyArrayDyn<f32>>>,
    /// The error a step or reset stopped on (a strategy that failed): the
    /// batch is left part stepped, so every step is refused until a reset.
    failed: Option<String>,
    /// The first exception a Python strategy raised, raised again by the
    /// call that played it.
    errors: crate::strategy::ErrorSlot,
}

/// Borrows every output array for writing (numpy's borrow checking refuses
/// if Python holds a conflicting borrow, or made an array read-only) and
/// runs `f` on them.
macro_rules! with_out {
    ($self:ident, $py:ident, |$out:ident| $body:expr) => {{
        let mut obs = writable($self.obs.bind($py), "obs")?;
        let mut mask = writable($self.mask.bind($py), "mask")?;
        let mut legal = writable($self.legal.bind($py), "legal")?;
        let mut legal_count = writable($self.legal_count.bind($py), "legal_count")?;
        let mut seat = writable($self.seat.bind($py), "seat")?;
        let mut kind = writable($self.kind.bind($py), "kind")?;
        let mut rewards = writable($self.rewards.bind($py), "rewards")?;
        let mut done = writable($self.done.bind($py), "done")?;
        let mut truncated = writable($self.truncated.bind($py), "truncated")?;
        let mut winner = writable($self.winner.bind($py), "winner")?;
        let mut final_obs = match &$self.final_obs {
            Some(a) => Some(writable(a.bind($py), "final_obs")?),
            None => None,
        };
        let slice_err = |e: numpy::AsSliceError| PyRuntimeError::new_err(e.to_string());
        let mut $out = Out {
            obs: obs.as_slice_mut().map_err(slice_err)?,
            mask: mask.as_slice_mut().map_err(slice_err)?,
            legal: legal.as_slice_mut().map_err(slice_err)?,
            legal_count: legal_count.as_slice_mut().map_err(slice_err)?,
            seat: seat.as_slice_mut().map_err(slice_err)?,
            kind: kind.as_slice_mut().map_err(slice_err)?,
            rewards: rewards.as_slice_mut().map_err(slice_err)?,
            done: done.as_slice_mut().map_err(slice_err)?,
            truncated: truncated.as_slice_mut().map_err(slice_err)?,
            winner: winner.as_slice_mut().map_err(slice_err)?,
            final_obs: match final_obs.as_mut() {
                Some(a) => Some(a.as_slice_mut().map_err(slice_err)?),
                None => None,
            },
        };
        $body
    }};
}

/// The batch's array `name` borrowed for writing, or the error that says
/// why it cannot be: made read-only from Python, or borrowed elsewhere.
fn writable<'py, T: numpy::Element, D: numpy::ndarray::Dimension>(
    a: &Bound<'py, numpy::PyArray<T, D>>,
    name: &str,
) -> PyResult<numpy::PyReadwriteArray<'py, T, D>> {
    a.try_readwrite().map_err(|e| match e {
        numpy::BorrowError::NotWriteable => value_error(format!(
            "VecEnv.{name} was made read-only (flags.writeable = False): the batch writes every step into its arrays; keep a read-only view of a copy instead ({name}.copy())"
        )),
        e => PyRuntimeError::new_err(format!("VecEnv.{name}: {e}")),
    })
}

impl VecGames {
    /// The result of a step or reset, kept: an error (the batch left part
    /// stepped) refuses every step until a reset goes through.
    fn note(&mut self, done: Result<(), StepError>) -> PyResult<()> {
        self.failed = done.as_ref().err().map(|e| e.to_string());
        done.map_err(|e| crate::stopped(&self.errors, e).0)
    }
}

#[pymethods]
impl VecGames {
    #[new]
    #[pyo3(signature = (n, rules, house, settings, players, learners, strategies, mode, reward, illegal, ask_forced, encoding = "unolab", final_obs = false))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        n: usize,
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
        encoding: &str,
        final_obs: bool,
    ) -> PyResult<Self> {
        let (rl, known) = match encoding {
            "unolab" => (false, false),
            "known" => (false, true),
            "rlcard" => (true, false),
            e => {
                return Err(value_error(format!(
                    "unknown encoding '{e}' (valid: unolab, known, rlcard)"
                )))
            }
        };
        if n == 0 || n > 1 << 24 {
            return Err(value_error(format!(
                "{n} games is not a batch size (valid: 1 to {})",
                1 << 24
            )));
        }
        let t = table(
            rules, house, settings, players, learners, strategies, mode, reward, illegal,
            ask_forced,
        )?;
        if rl {
            rlcard::check_rules(t.rules).map_err(value_error)?;
        }
        // The steppers are most of a batch's memory: reserved first, so
        // that a batch too large for the machine is a MemoryError, not an
        // abort of the interpreter. The figure is the whole batch's, what
        // VecEnv's docstring gives (measured: 8.5 KB a game at two players
        // to 10 KB at ten, the stepper's own 3.8 KB with what it allocates
        // and the arrays).
        // The whole figure is reserved once and given back before the
        // steppers are made: under an address-space limit (ulimit -v) the
        // steppers' own allocations would otherwise abort half-way.
        // With final_obs, each game also holds every seat's observation.
        const GAME_BYTES: u64 = 9 << 10;
        let obs_len = if rl {
            rlcard::OBS_LEN
        } else if known {
            OBS_LEN_KNOWN
        } else {
            OBS_LEN
        };
        let final_bytes = if final_obs { players * obs_len * 4 } else { 0 } as u64;
        let game_bytes = GAME_BYTES + final_bytes;
        let too_big = |_| {
            PyMemoryError::new_err(format!(
                "{n} games do not fit in memory (about {} MB, some {} KB a game): use a smaller batch",
                (n as u64 * game_bytes) >> 20,
                game_bytes.div_ceil(1024)
            ))
        };
        Vec::<u8>::new()
            .try_reserve_exact(n * game_bytes as usize)
            .map_err(too_big)?;
        let mut games = Vec::new();
        games.try_reserve_exact(n).map_err(too_big)?;
        games.extend((0..n).map(|_| {
            let mut st = t.stepper();
            st.keep_known(known);
            st
        }));
        let (obs_shape, actions): (Vec<usize>, usize) = if rl {
            let [p, c, k] = rlcard::SHAPE;
            (vec![n, p, c, k], rlcard::ACTIONS)
        } else if known {
            (vec![n, OBS_LEN_KNOWN], ACTIONS)
        } else {
            (vec![n, OBS_LEN], ACTIONS)
        };
        Ok(VecGames {
            batch: Mutex::new(Batch {
                games,
                scratch: Game::new(t.rules, players, 0),
                legal: vec![ActionSet::default(); n],
                started: vec![0; n],
                listed: vec![0; n],
                seed: 0,
                skipped: 0,
                rl,
                known,
            }),
            players,
            env: t.env,
            actions: vec![0; n],
            obs: PyArrayDyn::zeros(py, IxDyn(&obs_shape), false).unbind(),
            mask: PyArray2::zeros(py, [n, actions], false).unbind(),
            legal: {
                let a = PyArray2::<i16>::zeros(py, [n, actions], false);
                a.readwrite()
                    .as_slice_mut()
                    .map_err(|e| PyRuntimeError::new_err(e.to_string()))?
                    .fill(-1);
                a.unbind()
            },
            legal_count: PyArray1::zeros(py, [n], false).unbind(),
            seat: PyArray1::from_vec(py, vec![-1i64; n]).unbind(),
            kind: PyArray1::from_vec(py, vec![-1i64; n]).unbind(),
            rewards: PyArray2::zeros(py, [n, players], false).unbind(),
            done: PyArray1::from_vec(py, vec![false; n]).unbind(),
            truncated: PyArray1::from_vec(py, vec![false; n]).unbind(),
            winner: PyArray1::from_vec(py, vec![-1i64; n]).unbind(),
            final_obs: final_obs.then(|| {
                let shape: Vec<usize> = [n, players]
                    .into_iter()
                    .chain(obs_shape[1..].iter().copied())
                    .collect();
                PyArrayDyn::zeros(py, IxDyn(&shape), false).unbind()
            }),
            failed: None,
            errors: t.errors.clone(),
        })
    }

    fn reset(&mut self, py: Python<'_>, seed: &Bound<'_, PyAny>) -> PyResult<()> {
        let seed = crate::errors::u64_arg(seed, "seed")?;
        let players = self.players;
        let batch = self.batch.get_mut().unwrap_or_else(|p| p.into_inner());
        let done = with_out!(self, py, |out| {
            py.detach(|| batch.reset(seed, &mut out, players))
        });
        self.note(done)
    }

    fn step(&mut self, py: Python<'_>, actions: PyReadonlyArray1<'_, i64>) -> PyResult<()> {
        if let Some(e) = &self.failed {
            return Err(PyRuntimeError::new_err(format!(
                "the batch stopped on an error ({e}): reset() needs to be called before step()"
            )));
        }
        let players = self.players;
        let batch = self.batch.get_mut().unwrap_or_else(|p| p.into_inner());
        let n = batch.games.len();
        if actions.len() != n {
            return Err(value_error(format!(
                "{} actions for {n} games (give one per game)",
                actions.len()
            )));
        }
        let acts = actions
            .as_slice()
            .map_err(|e| value_error(format!("actions: {e}")))?;
        // Every action is checked before any game moves, so a refusal leaves
        // the whole batch as it was.
        for (i, (&a, st)) in acts.iter().zip(&batch.games).enumerate() {
            if batch.rl {
                if a < 0 || a as usize >= rlcard::ACTIONS {
                    return Err(value_error(format!(
                        "game {i}: action {a} is not an RLCard action (valid: 0 to {})",
                        rlcard::ACTIONS - 1
                    )));
                }
                st.check_rlcard(a as usize)
                    .map_err(|e| value_error(format!("game {i}: {e}")))?;
                self.actions[i] = a as usize;
                continue;
            }
            if a < 0 || a as usize >= ACTIONS {
                return Err(value_error(format!(
                    "game {i}: action {a} is not an action (valid: 0 to {})",
                    ACTIONS - 1
                )));
            }
            let a = a as usize;
            if !batch.legal[i].contains(a) {
                st.check(a)
                    .map_err(|e| value_error(format!("game {i}: {e}")))?;
            }
            self.actions[i] = a;
        }
        let acts = &self.actions;
        let done = with_out!(self, py, |out| {
            py.detach(|| batch.step(acts, &mut out, players))
        });
        self.note(done)
    }

    #[getter]
    fn obs<'py>(&self, py: Python<'py>) -> Bound<'py, PyArrayDyn<f32>> {
        self.obs.bind(py).clone()
    }
    #[getter]
    fn mask<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray2<i8>> {
        self.mask.bind(py).clone()
    }
    #[getter]
    fn legal<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray2<i16>> {
        self.legal.bind(py).clone()
    }
    #[getter]
    fn legal_count<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<i64>> {
        self.legal_count.bind(py).clone()
    }
    #[getter]
    fn seat<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<i64>> {
        self.seat.bind(py).clone()
    }
    #[getter]
    fn kind<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<i64>> {
        self.kind.bind(py).clone()
    }
    #[getter]
    fn rewards<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray2<f32>> {
        self.rewards.bind(py).clone()
    }
    #[getter]
    fn done<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<bool>> {
        self.done.bind(py).clone()
    }
    #[getter]
    fn truncated<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<bool>> {
        self.truncated.bind(py).clone()
    }
    #[getter]
    fn winner<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<i64>> {
        self.winner.bind(py).clone()
    }
    #[getter]
    fn final_obs<'py>(&self, py: Python<'py>) -> Option<Bound<'py, PyArrayDyn<f32>>> {
        self.final_obs.as_ref().map(|a| a.bind(py).clone())
    }
    #[getter]
    fn n(&mut self) -> usize {
        self.batch
            .get_mut()
            .unwrap_or_else(|p| p.into_inner())
            .games
            .len()
    }
    #[getter]
    fn encoding(&mut self) -> &'static str {
        let b = self.batch.get_mut().unwrap_or_else(|p| p.into_inner());
        if b.rl {
            "rlcard"
        } else if b.known {
            "known"
        } else {
            "unolab"
        }
    }
    #[getter]
    fn players(&self) -> usize {
        self.players
    }
    /// The cards in the deck of the rule set (the bound of the card counts
    /// in the observations).
    #[getter]
    fn deck_size(&mut self) -> usize {
        let b = self.batch.get_mut().unwrap_or_else(|p| p.into_inner());
        b.scratch.rules().deck.size
    }
    #[getter]
    fn learners(&self) -> Vec<usize> {
        (0..self.players)
            .filter(|s| self.env >> s & 1 == 1)
            .collect()
    }
    #[getter]
    fn skipped(&mut self) -> u64 {
        self.batch
            .get_mut()
            .unwrap_or_else(|p| p.into_inner())
            .skipped
    }
    #[getter]
    fn games_started(&mut self) -> Vec<u64> {
        self.batch
            .get_mut()
            .unwrap_or_else(|p| p.into_inner())
            .started
            .clone()
    }

    fn render(&mut self, i: &Bound<'_, PyAny>) -> PyResult<String> {
        let given = crate::errors::whole(i, "game")?;
        let batch = self.batch.get_mut().unwrap_or_else(|p| p.into_inner());
        let n = batch.games.len();
        let rl = batch.rl;
        let i = usize::try_from(given).unwrap_or(usize::MAX);
        match batch.games.get_mut(i) {
            Some(st) if rl => Ok(rlcard_render(st)),
            Some(st) => Ok(st.render()),
            None => Err(value_error(format!(
                "game {given} is not in the batch (valid: 0 to {})",
                n - 1
            ))),
        }
    }
}
