//! Tuning the `heuristic` strategy by simulation: the cross-entropy method over
//! its parameter vector, maximising the share of rounds won against a field.
//!
//! Generation `g` plays games `g * games .. (g + 1) * games` of the master
//! seed, and every candidate of the generation plays exactly those games
//! (common random numbers: the same deals, the same seat rotation), so
//! candidates differ by their play, not by their luck. The first candidate of
//! each generation is the distribution's mean itself. The elite (the best
//! fifth) sets the next mean and spread. At the end the mean is evaluated on
//! games `HOLDOUT_BASE ..` of the same master seed, a range tuning never
//! touches, paired against the starting preset on the same games.
//!
//! Every count is an integer summed in a fixed order and candidates are
//! independent of the threads that play them, so a seed gives the same result
//! on any number of threads.

use super::{new_game, play_round, Entrant};
use crate::agents::{Heuristic, HeuristicParams, Seat, StrategySpec};
use crate::engine::game::{mix64, IllegalActionError, Rng};
use crate::engine::rules::Rules;
use crate::sim::handout::{self, cut_short, Folded, Unfinished};
use crate::sim::stats::{normal, paired_difference95, wilson95};
use rand::SeedableRng;
use rayon::prelude::*;
use std::ops::Range;
use std::sync::atomic::{AtomicBool, Ordering};

/// The first game index of the held-out evaluation: far above any game a
/// tuning run plays (its generations x games must stay below it).
pub const HOLDOUT_BASE: u64 = 1 << 62;

/// One tuned dimension of [`HeuristicParams`] and its search range.
#[derive(Clone, Copy, Debug)]
pub struct Dim {
    pub name: &'static str,
    pub lo: f64,
    pub hi: f64,
    /// Rounded to an integer in the parameters.
    pub integer: bool,
}

/// The dimensions tuned. `forget_uno` stays at the starting preset's value (0
/// is never worse), as do `challenge_below`, `jump_in` and `play_drawn`,
/// which matter only under some house rules.
pub const DIMS: [Dim; 9] = [
    Dim {
        name: "points_weight",
        lo: 0.0,
        hi: 2.0,
        integer: false,
    },
    Dim {
        name: "color_weight",
        lo: 0.0,
        hi: 20.0,
        integer: false,
    },
    Dim {
        name: "wild_penalty",
        lo: -50.0,
        hi: 150.0,
        integer: false,
    },
    Dim {
        name: "hold_wilds_above",
        lo: 0.0,
        hi: 10.0,
        integer: true,
    },
    Dim {
        name: "attack_below",
        lo: 0.0,
        hi: 7.0,
        integer: true,
    },
    Dim {
        name: "attack_weight",
        lo: -50.0,
        hi: 150.0,
        integer: false,
    },
    Dim {
        name: "save_draws",
        lo: -50.0,
        hi: 100.0,
        integer: false,
    },
    Dim {
        name: "discard_color_weight",
        lo: -5.0,
        hi: 5.0,
        integer: false,
    },
    Dim {
        name: "name_discard_weight",
        lo: -2.0,
        hi: 2.0,
        integer: false,
    },
];

fn get(p: &HeuristicParams, i: usize) -> f64 {
    match i {
        0 => p.points_weight,
        1 => p.color_weight,
        2 => p.wild_penalty,
        3 => p.hold_wilds_above as f64,
        4 => p.attack_below as f64,
        5 => p.attack_weight,
        6 => p.save_draws,
        7 => p.discard_color_weight,
        _ => p.name_discard_weight,
    }
}

fn set(p: &mut HeuristicParams, i: usize, v: f64) {
    match i {
        0 => p.points_weight = v,
        1 => p.color_weight = v,
        2 => p.wild_penalty = v,
        3 => p.hold_wilds_above = v as u32,
        4 => p.attack_below = v as u32,
        5 => p.attack_weight = v,
        6 => p.save_draws = v,
        7 => p.discard_color_weight = v,
        _ => p.name_discard_weight = v,
    }
}

/// The parameters of a point of the search space: `base` with each dimension
/// clamped to its range, integers rounded, reals rounded to 3 decimals (so a
/// written preset is exactly what was evaluated).
pub fn params_at(base: &HeuristicParams, x: &[f64]) -> HeuristicParams {
    let mut p = base.clone();
    for (i, d) in DIMS.iter().enumerate() {
        let v = x[i].clamp(d.lo, d.hi);
        let v = if d.integer {
            v.round()
        } else {
            (v * 1000.0).round() / 1000.0 + 0.0
        };
        set(&mut p, i, v);
    }
    p
}

/// The most generations a tuning run takes (its count is a `u32`).
pub const MAX_GENERATIONS: u64 = u32::MAX as u64;
/// The fewest and the most candidates per generation.
pub const MIN_POPULATION: u64 = 4;
pub const MAX_POPULATION: u64 = 1 << 20;

/// The tuned preset's name: `name` when given, else the stem of the file
/// it is written to, else "tuned".
pub fn preset_name(name: Option<&str>, out: Option<&std::path::Path>) -> String {
    match (name, out) {
        (Some(n), _) => n.to_string(),
        (None, Some(p)) => p
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| "tuned".into()),
        (None, None) => "tuned".into(),
    }
}

/// Everything a tuning run needs; checked by [`TuneConfig::validate`].
#[derive(Clone, Debug)]
pub struct TuneConfig {
    pub rules: Rules,
    pub players: usize,
    /// The opponents, cycled to fill the other seats.
    pub field: Vec<StrategySpec>,
    /// The starting preset (a `heuristic`).
    pub start: StrategySpec,
    /// The name of the tuned strategy.
    pub name: String,
    pub generations: u32,
    /// Candidates per generation (the first is the mean).
    pub population: usize,
    /// Games per candidate per generation.
    pub games: u64,
    /// Games of the held-out evaluation.
    pub holdout_games: u64,
    pub seed: u64,
    pub threads: usize,
}

/// A tuning run's bad input.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum TuneError {
    #[error("{0}")]
    Invalid(String),
    #[error(transparent)]
    Illegal(#[from] IllegalActionError),
}

impl TuneConfig {
    pub fn validate(&self) -> Result<(), TuneError> {
        let bad = |m: String| Err(TuneError::Invalid(m));
        self.rules
            .check_players(self.players)
            .map_err(|e| TuneError::Invalid(e.to_string()))?;
        if !matches!(self.start, StrategySpec::Heuristic { .. }) {
            return bad(format!(
                "--start '{}' is not a heuristic preset (tuning needs its parameters)",
                self.start.name()
            ));
        }
        if self.field.is_empty() {
            return bad("--field is empty".into());
        }
        // The report names the tuned preset, the start and the field: one
        // name for two of them would make its figures ambiguous.
        if self.name == self.start.name() || self.field.iter().any(|f| f.name() == self.name) {
            return bad(format!(
                "the tuned preset would be named '{}' (by --name, or by --out's file name), as a strategy of --start or --field, and its figures could not be told from that one's: give another --name",
                self.name
            ));
        }
        if self.field.len() > self.players - 1 {
            return bad(format!(
                "{} field strategies for {} other seat{} (give at most players - 1; the field is cycled to fill the seats)",
                self.field.len(),
                self.players - 1,
                if self.players == 2 { "" } else { "s" }
            ));
        }
        if self.generations == 0 {
            return bad("--generations must be at least 1".into());
        }
        if self.population < 4 {
            return bad("--population must be at least 4".into());
        }
        if self.games == 0 || self.holdout_games == 0 {
            return bad("--games and --holdout-games must be at least 1".into());
        }
        if (self.generations as u64).saturating_mul(self.games) >= HOLDOUT_BASE {
            return bad(format!(
                "--generations x --games is {} games; at most 2^62 - 1 ({}): the held-out games are those from 2^62 on",
                (self.generations as u128) * (self.games as u128),
                HOLDOUT_BASE - 1
            ));
        }
        if self.holdout_games >= HOLDOUT_BASE {
            return bad(format!(
                "--holdout-games {} is too many; at most 2^62 - 1 ({})",
                self.holdout_games,
                HOLDOUT_BASE - 1
            ));
        }
        if self.threads == 0 {
            return bad("--threads must be at least 1".into());
        }
        Ok(())
    }

    fn start_params(&self) -> HeuristicParams {
        match &self.start {
            StrategySpec::Heuristic { params, .. } => params.clone(),
            _ => HeuristicParams::default(),
        }
    }

    fn heuristic(&self, name: &str, params: HeuristicParams) -> Entrant {
        let name = name.to_string();
        Entrant::new(name.clone(), move || {
            Seat::Heuristic(Heuristic {
                name: name.clone(),
                params: params.clone(),
            })
        })
    }

    /// Whether an external program is in the field.
    fn has_programs(&self) -> bool {
        self.field.iter().any(StrategySpec::is_external)
    }

    /// The line-up with `arm` at entry 0 and the field cycled behind it.
    fn lineup(&self, arm: Entrant) -> Vec<Entrant> {
        let mut v = vec![arm];
        for j in 1..self.players {
            v.push(Entrant::from_spec(&self.field[(j - 1) % self.field.len()]));
        }
        v
    }
}

/// One generation's summary, for progress reports.
#[derive(Clone, Debug, PartialEq)]
pub struct Generation {
    /// 1-based.
    pub index: u32,
    /// Share of rounds won by the mean (the first candidate).
    pub mean_rate: f64,
    /// Its 95% Wilson interval: the mean is not chosen on these games, so
    /// its share estimates its strength on them (the best's and the
    /// elite's, chosen on them, read high and have none).
    pub mean_ci95: (f64, f64),
    /// Best candidate's share.
    pub best_rate: f64,
    /// Mean share of the elite.
    pub elite_rate: f64,
    /// The mean's parameters (before this generation's update).
    pub mean: HeuristicParams,
    /// Mean spread relative to each range.
    pub spread: f64,
}

/// A win share with its 95% Wilson interval.
#[derive(Clone, Debug, PartialEq)]
pub struct Share {
    pub wins: u64,
    pub games: u64,
    pub rate: f64,
    pub ci95: (f64, f64),
}

impl Share {
    fn new(wins: u64, games: u64) -> Share {
        Share {
            wins,
            games,
            rate: wins as f64 / games as f64,
            ci95: wilson95(wins, games),
        }
    }
}

/// The held-out evaluation: games `HOLDOUT_BASE .. HOLDOUT_BASE + games`.
#[derive(Clone, Debug, PartialEq)]
pub struct Holdout {
    pub games: u64,
    pub fair_share: f64,
    /// The tuned strategy in one seat against the field.
    pub tuned: Share,
    /// The starting preset in the same seat against the field, same games.
    pub start: Share,
    /// Tuned minus start, paired by game: mean and 95% interval
    /// ([`paired_difference95`]: Newcombe's for paired proportions, which
    /// keeps its width when few games split; NaN with no game).
    pub diff: f64,
    pub diff_ci95: (f64, f64),
    /// The games that split: won by the tuned strategy alone, by the
    /// start alone.
    pub split: (u64, u64),
    /// The tuned strategy in one seat against the starting preset in all others.
    pub vs_start: Share,
}

/// What a tuning run produced.
#[derive(Clone, Debug)]
pub struct TuneOutcome {
    pub params: HeuristicParams,
    pub history: Vec<Generation>,
    pub holdout: Holdout,
    /// Stopped early (the parameters are the mean after the last full generation).
    pub interrupted: bool,
    /// Why games in progress at the interrupt could not finish (a program
    /// of the field ended by the same signal): their generation, or their
    /// chunk of the held-out evaluation and every later one, were left out.
    pub unfinished: Option<String>,
}

/// Plays games `range` with each line-up of `arms` (entry 0 is the arm; the
/// table rotates as in the runner: in game `i`, seat `s` holds entry
/// `(s + i) mod players`) and calls `on(i, won)` with whether each arm's entry
/// 0 won game `i`. At most 8 arms. A raised `stop` ends it after the game
/// in progress.
fn play_arms(
    rules: &Rules,
    players: usize,
    arms: &[Vec<Entrant>],
    seed: u64,
    (range, stop): (Range<u64>, &AtomicBool),
    mut on: impl FnMut(&[bool]),
) -> Result<(), IllegalActionError> {
    let mut game = new_game(rules, players);
    // seats[arm][rotation][seat]
    let mut seats: Vec<Vec<Vec<Seat>>> = arms
        .iter()
        .map(|lineup| {
            (0..players)
                .map(|r| {
                    (0..players)
                        .map(|s| lineup[(s + r) % players].make())
                        .collect()
                })
                .collect()
        })
        .collect();
    let mut won = [false; 8];
    for i in range {
        if stop.load(Ordering::Relaxed) {
            break;
        }
        let r = (i % players as u64) as usize;
        let arm_seat = (players - r) % players;
        for (a, rot) in seats.iter_mut().enumerate() {
            let res = play_round(&mut game, &mut rot[r], seed, i)?;
            won[a] = res.winner == Some(arm_seat as u8)
                && res.outcome == crate::engine::game::Outcome::Won;
        }
        on(&won[..arms.len()]);
    }
    Ok(())
}

/// Runs the cross-entropy method. `progress` is called after each generation;
/// setting `stop` ends the search after the games in progress, dropping the
/// generation under way (the held-out evaluation still runs, on the mean
/// the generations before it reached); set during the
/// held-out evaluation, it ends that after the games in progress (the
/// figures are those of the games played, a prefix of its range).
pub fn tune(
    cfg: &TuneConfig,
    stop: &AtomicBool,
    progress: &mut dyn FnMut(&Generation),
) -> Result<TuneOutcome, TuneError> {
    cfg.validate()?;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(cfg.threads)
        .build()
        .map_err(|e| TuneError::Invalid(format!("cannot start {} threads: {e}", cfg.threads)))?;
    let base = cfg.start_params();
    let n = DIMS.len();
    let mut mu: Vec<f64> = (0..n).map(|i| get(&base, i)).collect();
    let mut sigma: Vec<f64> = DIMS.iter().map(|d| 0.25 * (d.hi - d.lo)).collect();
    let n_elite = ((cfg.population as f64 * 0.2).round() as usize).clamp(2, cfg.population);
    let mut history = Vec::new();
    let mut interrupted = false;
    let mut unfinished = None;
    for g in 0..cfg.generations {
        if stop.load(Ordering::Relaxed) {
            interrupted = true;
            break;
        }
        let mut rng = Rng::seed_from_u64(mix64(cfg.seed ^ mix64(0x7E57_0000 + g as u64)));
        let xs: Vec<Vec<f64>> = (0..cfg.population)
            .map(|k| {
                (0..n)
                    .map(|i| {
                        if k == 0 {
                            mu[i]
                        } else {
                            (mu[i] + sigma[i] * normal(&mut rng)).clamp(DIMS[i].lo, DIMS[i].hi)
                        }
                    })
                    .collect()
            })
            .collect();
        let range = g as u64 * cfg.games..(g as u64 + 1) * cfg.games;
        let wins = pool.install(|| {
            xs.par_iter()
                .map(|x| {
                    let arm = cfg.heuristic(&cfg.name, params_at(&base, x));
                    let mut w = 0u64;
                    play_arms(
                        &cfg.rules,
                        cfg.players,
                        &[cfg.lineup(arm)],
                        cfg.seed,
                        (range.clone(), stop),
                        |won| w += won[0] as u64,
                    )
                    .map(|_| w)
                })
                .collect::<Result<Vec<u64>, IllegalActionError>>()
        });
        let wins = match wins {
            Ok(w) => w,
            // A program of the field ended by the signal that stopped the
            // work: the generation is dropped, as an interrupt drops it.
            Err(e) if cut_short(cfg.has_programs(), stop) => {
                interrupted = true;
                unfinished = Some(e.to_string());
                break;
            }
            Err(e) => return Err(e.into()),
        };
        // Interrupted within the generation: its games are dropped, and the
        // mean stays the one the generations before it reached.
        if stop.load(Ordering::Relaxed) {
            interrupted = true;
            break;
        }
        let mut order: Vec<usize> = (0..cfg.population).collect();
        order.sort_by(|&a, &b| wins[b].cmp(&wins[a]).then(a.cmp(&b)));
        let elite = &order[..n_elite];
        let rate = |w: u64| w as f64 / cfg.games as f64;
        let gen = Generation {
            index: g + 1,
            mean_rate: rate(wins[0]),
            mean_ci95: wilson95(wins[0], cfg.games),
            best_rate: rate(wins[order[0]]),
            elite_rate: elite.iter().map(|&k| rate(wins[k])).sum::<f64>() / n_elite as f64,
            mean: params_at(&base, &mu),
            spread: (0..n)
                .map(|i| sigma[i] / (DIMS[i].hi - DIMS[i].lo))
                .sum::<f64>()
                / n as f64,
        };
        for i in 0..n {
            let m = elite.iter().map(|&k| xs[k][i]).sum::<f64>() / n_elite as f64;
            let v = elite.iter().map(|&k| (xs[k][i] - m).powi(2)).sum::<f64>() / n_elite as f64;
            let floor = 0.01 * (DIMS[i].hi - DIMS[i].lo);
            mu[i] = 0.7 * m + 0.3 * mu[i];
            sigma[i] = (0.7 * v.sqrt() + 0.3 * sigma[i]).max(floor);
        }
        progress(&gen);
        history.push(gen);
    }
    // An interrupt after the last generation's games, before the
    // evaluation, is one of the search too: it did not reach the
    // evaluation, which would skip every game.
    interrupted |= stop.load(Ordering::Relaxed);
    let params = params_at(&base, &mu);
    // After an interrupt of the search the evaluation runs whole, as
    // documented; an interrupt that comes during it ends it.
    let whole = AtomicBool::new(false);
    let (holdout, cut) = holdout(cfg, &pool, &params, if interrupted { &whole } else { stop })?;
    interrupted |= holdout.games < cfg.holdout_games;
    Ok(TuneOutcome {
        params,
        history,
        holdout,
        interrupted,
        unfinished: unfinished.or(cut),
    })
}

/// The held-out evaluation of `params` (see [`Holdout`]). Its units of
/// games are handed out in order and `stop` ends the handing out, so the
/// games played are always a prefix of the range: all of it unless `stop`
/// was set. With it, why a chunk in progress could not finish, if one
/// could not (see [`TuneOutcome::unfinished`]).
pub fn holdout(
    cfg: &TuneConfig,
    pool: &rayon::ThreadPool,
    params: &HeuristicParams,
    stop: &AtomicBool,
) -> Result<(Holdout, Option<String>), TuneError> {
    let tuned = cfg.heuristic(&cfg.name, params.clone());
    let start = Entrant::from_spec(&cfg.start);
    let mut vs_start = vec![tuned.clone()];
    for _ in 1..cfg.players {
        vs_start.push(start.clone());
    }
    let arms = [cfg.lineup(tuned), cfg.lineup(start), vs_start];
    const CHUNK: u64 = 2000;
    let chunks = cfg.holdout_games.div_ceil(CHUNK);
    // Per chunk: wins of each arm, games won by tuned but not start, the
    // reverse, and the games played (sums: the same on any threads),
    // folded in order: a chunk that a program's death after an interrupt
    // keeps from finishing leaves the chunks below it.
    let folded = Folded::new([0u64; 6]);
    let programs = cfg.has_programs();
    let r = handout::in_order(
        pool,
        chunks,
        &|| stop.load(Ordering::Relaxed),
        |_| (),
        |_, c| {
            let mut t = [0u64; 6];
            let lo = c * CHUNK;
            let hi = ((c + 1) * CHUNK).min(cfg.holdout_games);
            let range = HOLDOUT_BASE + lo..HOLDOUT_BASE + hi;
            // The chunks end at an interrupt; a chunk is played whole.
            let whole = AtomicBool::new(false);
            play_arms(
                &cfg.rules,
                cfg.players,
                &arms,
                cfg.seed,
                (range, &whole),
                |w| {
                    for a in 0..3 {
                        t[a] += w[a] as u64;
                    }
                    t[3] += (w[0] && !w[1]) as u64;
                    t[4] += (w[1] && !w[0]) as u64;
                },
            )
            .map_err(|e| Unfinished::keyed(cut_short(programs, stop), lo, lo, e))?;
            t[5] += hi - lo;
            folded.add(c, t, |total, p| {
                for k in 0..6 {
                    total[k] += p[k];
                }
            });
            Ok(())
        },
        |_| (),
    );
    let (_, cut) = handout::interrupted_or_failed(r)?;
    let (t, _) = folded.into_total();
    let games = t[5];
    let n = games.max(1) as f64;
    let diff = (t[3] as f64 - t[4] as f64) / n;
    // The games won by both, by one alone, by the other alone, by neither.
    let both = t[0] - t[3];
    let neither = games - both - t[3] - t[4];
    let diff_ci95 = paired_difference95(both, t[3], t[4], neither);
    let h = Holdout {
        games,
        fair_share: 1.0 / cfg.players as f64,
        tuned: Share::new(t[0], games),
        start: Share::new(t[1], games),
        diff,
        diff_ci95,
        split: (t[3], t[4]),
        vs_start: Share::new(t[2], games),
    };
    Ok((h, cut.map(|e| e.to_string())))
}

/// The preset file of a tuning run: comments recording `command`, the seed,
/// the search and the held-out result, then the parameters.
pub fn preset_file(cfg: &TuneConfig, out: &TuneOutcome, command: &str) -> String {
    let h = &out.holdout;
    let pct = |x: f64| format!("{:.2}%", 100.0 * x);
    let share = |s: &Share| {
        format!(
            "{} [{}, {}] ({} of {})",
            pct(s.rate),
            pct(s.ci95.0),
            pct(s.ci95.1),
            s.wins,
            s.games
        )
    };
    let field: Vec<&str> = cfg.field.iter().map(|s| s.name()).collect();
    let mut t = String::new();
    t += &format!("# Tuned by: {command}\n");
    t += &format!(
        "# Cross-entropy method from '{}', seed {}, {} players, rules {}, field {}: {} of {} generations x {} candidates x {} games (games 0..{} of the seed){}.\n",
        cfg.start.name(),
        cfg.seed,
        cfg.players,
        cfg.rules.name,
        field.join(","),
        out.history.len(),
        cfg.generations,
        cfg.population,
        cfg.games,
        out.history.len() as u64 * cfg.games,
        if out.history.len() < cfg.generations as usize {
            ", interrupted"
        } else {
            ""
        }
    );
    if h.games == 0 {
        t += &format!(
            "# Held-out: not played (interrupted before its first games; it would play games 2^62 .. 2^62+{} of seed {}).\n",
            cfg.holdout_games, cfg.seed
        );
        return t + &params_part(cfg, out, &field);
    }
    t += &format!(
        "# Held-out: games 2^62 .. 2^62+{} of seed {} (never used in tuning){}, share of rounds won, 95% intervals; fair share {}:\n",
        h.games,
        cfg.seed,
        if h.games < cfg.holdout_games {
            format!(", interrupted: {} of {} games", h.games, cfg.holdout_games)
        } else {
            String::new()
        },
        pct(h.fair_share)
    );
    t += &format!("#   {} against the field: {}\n", cfg.name, share(&h.tuned));
    t += &format!(
        "#   {} against the field: {}\n",
        cfg.start.name(),
        share(&h.start)
    );
    t += &format!(
        "#   paired difference (same games): {:+.2} pp [{:+.2}, {:+.2}] ({} won by {} alone, {} by {} alone)\n",
        100.0 * h.diff,
        100.0 * h.diff_ci95.0,
        100.0 * h.diff_ci95.1,
        h.split.0,
        cfg.name,
        h.split.1,
        cfg.start.name()
    );
    t += &format!(
        "#   {} against {} x{}: {}\n",
        cfg.name,
        cfg.start.name(),
        cfg.players - 1,
        share(&h.vs_start)
    );
    t + &params_part(cfg, out, &field)
}

/// The preset itself, after the comments.
fn params_part(cfg: &TuneConfig, out: &TuneOutcome, field: &[&str]) -> String {
    let mut t = format!("name = \"{}\"\n", cfg.name);
    t += &format!(
        "description = \"Tuned by simulation against {}\"\n",
        field.join(",")
    );
    t += "base = \"heuristic\"\n\n[params]\n";
    t += &toml::to_string(&out.params).unwrap_or_default();
    t
}
