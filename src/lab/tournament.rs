//! Tournaments: many rounds between line-ups drawn from a field of strategies,
//! and the ratings fitted from every round ([`super::ratings`]).
//!
//! Line-ups are balanced by blocks of `k` games (`k` strategies in the field):
//! block `b` draws a random order of the field from the master seed and `b`,
//! and game `b * k + o` seats, at seat `s`, the strategy `(o + s) mod k` of that
//! order. Within a block every strategy sits in every seat exactly once (so
//! when the number of games is a multiple of `k`, every strategy holds the same
//! number of seats, in each seat position), and the random order varies who
//! sits next to whom. With fewer strategies than seats a strategy fills
//! several seats. Game `i`'s cards and decisions draw from the master seed and
//! `i` alone, as in the runner, so a seed gives the same results on any number
//! of threads (strategies must not carry state from one round to the next).
//!
//! Memory: each worker keeps one [`Results`] (counts per table composition,
//! seat, win and pair), whose size depends on the field, not on the games.

use super::ratings::{fit_with_covariance, rank_intervals, Rating, Results};
use super::{new_game, play_round, Entrant};
use crate::agents::Seat;
use crate::engine::game::{below, mix64, IllegalActionError, Outcome, Rng};
use crate::engine::rules::Rules;
use crate::sim::handout::{self, cut_short, Folded, Unfinished};
use rand::SeedableRng;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// Everything a tournament needs; checked by [`TournamentConfig::validate`].
#[derive(Clone, Debug)]
pub struct TournamentConfig {
    pub rules: Rules,
    pub players: usize,
    pub entrants: Vec<Entrant>,
    pub games: u64,
    pub seed: u64,
    pub threads: usize,
    /// Games per unit of work (progress and interruption granularity).
    pub chunk: u64,
    /// Whether the perfect-information reference (`base = "oracle"`) may
    /// take part (refused otherwise: see `agents::check_fair`).
    pub allow_oracle: bool,
}

/// A tournament's errors.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum TournamentError {
    #[error("{0}")]
    Invalid(String),
    #[error("{error} (seed {seed}, game {game})")]
    Illegal {
        error: IllegalActionError,
        seed: u64,
        game: u64,
    },
    /// An agent that failed while a ladder timed it (self-play, every seat
    /// its own), after the tournaments' games.
    #[error("{error} (while timing {agent} at {players} players, self-play round {round})")]
    Timing {
        error: IllegalActionError,
        agent: String,
        players: usize,
        round: u64,
    },
}

impl TournamentConfig {
    pub fn validate(&self) -> Result<(), TournamentError> {
        let bad = |m: String| Err(TournamentError::Invalid(m));
        self.rules
            .check_players(self.players)
            .map_err(|e| TournamentError::Invalid(e.to_string()))?;
        if self.entrants.len() < 2 {
            return bad("a tournament needs at least 2 strategies".into());
        }
        for (i, a) in self.entrants.iter().enumerate() {
            let same = self.entrants[..i].iter().find(|b| b.name() == a.name());
            if let Some(b) = same {
                if let (Some(x), Some(y)) = (a.description(), b.description()) {
                    if x != y {
                        return bad(format!(
                            "two different strategies are named '{}'; rename one (each strategy once in a field)",
                            a.name()
                        ));
                    }
                }
                return bad(format!(
                    "strategy '{}' is given twice (each strategy once; it fills several seats when there are fewer strategies than seats)",
                    a.name()
                ));
            }
        }
        if let Some(e) = self.entrants.iter().find(|e| e.is_oracle()) {
            if !self.allow_oracle {
                return bad(format!(
                    "'{}' sees other players' hands (base = \"oracle\", a perfect-information reference for benchmarks): allow it explicitly with --allow-oracle",
                    e.name()
                ));
            }
        }
        if self.games == 0 {
            return bad("--games must be at least 1".into());
        }
        // Game o of the first block seats the strategies o .. o + players - 1
        // of its order: fewer games than k - players + 1 leave some unseated,
        // and a strategy that never played would still get a rating.
        let k = self.entrants.len() as u64;
        let least = k.saturating_sub(self.players as u64) + 1;
        if self.games < least {
            return bad(format!(
                "{} {} at {} players seat only some of the {k} strategies: give at least {least} games, so that each plays (a multiple of {k} gives each the same number of seats)",
                self.games,
                if self.games == 1 { "game" } else { "games" },
                self.players
            ));
        }
        if self.threads == 0 {
            return bad("--threads must be at least 1".into());
        }
        if self.chunk == 0 {
            return bad("chunk must be at least 1".into());
        }
        Ok(())
    }
}

/// The line-up of game `game`: `table[s]` is the field index at seat `s`.
/// `perm` is scratch space of the field's size.
pub fn lineup(seed: u64, strategies: usize, game: u64, perm: &mut [usize], table: &mut [usize]) {
    let k = strategies as u64;
    let block = game / k;
    let offset = (game % k) as usize;
    let mut rng = Rng::seed_from_u64(mix64(seed ^ mix64(block ^ 0x0070_A211_AE17)));
    for (i, p) in perm.iter_mut().enumerate() {
        *p = i;
    }
    for i in (1..perm.len()).rev() {
        let j = below(&mut rng, i as u32 + 1) as usize;
        perm.swap(i, j);
    }
    for (s, t) in table.iter_mut().enumerate() {
        *t = perm[(offset + s) % strategies];
    }
}

/// What a tournament produced.
#[derive(Clone, Debug)]
pub struct TournamentOutcome {
    pub results: Results,
    /// One per entrant, in the field's order.
    pub ratings: Vec<Rating>,
    /// The covariance of the entrants' centred log-strengths (`k x k`, row
    /// major), when the fit's information matrix is invertible.
    pub covariance: Option<Vec<f64>>,
    /// Each entrant's 95% rank interval ([`rank_intervals`]), when there is
    /// a covariance: worked out once here, for every table and file.
    pub ranks: Option<Vec<(usize, usize)>>,
    /// True when interrupted before all games were played.
    pub partial: bool,
    /// Why the games in progress at an interrupt could not finish, when one
    /// could not (a program they played with was ended by the same signal):
    /// they are left out, with every later game.
    pub unfinished: Option<String>,
}

impl TournamentOutcome {
    /// Interrupted before any game finished: no rating to show or write.
    pub fn none_finished(&self) -> bool {
        self.partial && self.results.games == 0
    }
}

/// Plays games `range` into `res`.
fn play_range(
    cfg: &TournamentConfig,
    pool: &mut [Vec<Option<Seat>>],
    range: std::ops::Range<u64>,
    res: &mut Results,
) -> Result<(), TournamentError> {
    let k = cfg.entrants.len();
    let n = cfg.players;
    let mut game = new_game(&cfg.rules, n);
    let mut perm = vec![0; k];
    let mut table = vec![0; n];
    let mut seats: Vec<Seat> = Vec::with_capacity(n);
    for i in range {
        lineup(cfg.seed, k, i, &mut perm, &mut table);
        for (s, &e) in table.iter().enumerate() {
            // Each (strategy, seat) has its own instance, taken and put back.
            seats.push(pool[e][s].take().unwrap_or_else(|| cfg.entrants[e].make()));
        }
        let r = play_round(&mut game, &mut seats, cfg.seed, i);
        for (s, seat) in seats.drain(..).enumerate() {
            pool[table[s]][s] = Some(seat);
        }
        let r = r.map_err(|error| TournamentError::Illegal {
            error,
            seed: cfg.seed,
            game: i,
        })?;
        let winner = match r.outcome {
            Outcome::Won => r.winner.map(|w| w as usize),
            _ => None,
        };
        res.add(&table, winner);
    }
    Ok(())
}

/// Plays the tournament on `cfg.threads` threads. `progress` gets the games
/// finished after each unit of work; setting `stop` ends the run after the
/// units in progress, with `partial = true`.
pub fn run(
    cfg: &TournamentConfig,
    stop: &AtomicBool,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<TournamentOutcome, TournamentError> {
    run_from(cfg, None, stop, progress)
}

/// [`run`] continued from `saved`, the results of an interrupted run of the
/// same tournament: they always hold its first `saved.games` games (units
/// are handed out in order and every unit taken is finished), so it plays
/// the games from there and the outcome is the uninterrupted run's, bit for
/// bit.
pub fn run_from(
    cfg: &TournamentConfig,
    saved: Option<Results>,
    stop: &AtomicBool,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<TournamentOutcome, TournamentError> {
    cfg.validate()?;
    let first = saved.as_ref().map_or(0, |r| r.games);
    if let Some(r) = &saved {
        if r.strategies != cfg.entrants.len() || r.games > cfg.games {
            return Err(TournamentError::Invalid(format!(
                "the saved results ({} games of {} strategies) do not fit this tournament ({} games of {})",
                r.games,
                r.strategies,
                cfg.games,
                cfg.entrants.len()
            )));
        }
    }
    let threads = rayon::ThreadPoolBuilder::new()
        .num_threads(cfg.threads)
        .build()
        .map_err(|e| {
            TournamentError::Invalid(format!("cannot start {} threads: {e}", cfg.threads))
        })?;
    let k = cfg.entrants.len();
    let done = AtomicU64::new(0);
    // Chunks are folded in order, so that a chunk that a program's death
    // after an interrupt keeps from finishing leaves the chunks below it.
    let folded = Folded::new(saved.unwrap_or_else(|| Results::new(k)));
    let programs = cfg.entrants.iter().any(Entrant::is_program);
    let r = handout::in_order(
        &threads,
        (cfg.games - first).div_ceil(cfg.chunk),
        &|| stop.load(Ordering::Relaxed),
        |_| {
            (0..k)
                .map(|e| {
                    (0..cfg.players)
                        .map(|_| Some(cfg.entrants[e].make()))
                        .collect()
                })
                .collect::<Vec<Vec<Option<Seat>>>>()
        },
        |pool, c| {
            let start = first + c * cfg.chunk;
            let end = (start + cfg.chunk).min(cfg.games);
            // A chunk counts only when whole, so an interrupted run holds
            // whole chunks.
            let mut part = Results::new(k);
            if let Err(e) = play_range(cfg, pool, start..end, &mut part) {
                // The failure reported is the lowest game's, whatever the threads.
                let game = match &e {
                    TournamentError::Illegal { game, .. } => *game,
                    TournamentError::Invalid(_) | TournamentError::Timing { .. } => start,
                };
                return Err(Unfinished::keyed(cut_short(programs, stop), start, game, e));
            }
            folded.add(c, part, |t, p| t.merge(&p));
            progress(first + done.fetch_add(end - start, Ordering::Relaxed) + (end - start));
            Ok(())
        },
        drop,
    );
    let unfinished = handout::interrupted_or_failed(r)?.1.map(|e| e.to_string());
    let (results, _) = folded.into_total();
    let (ratings, covariance) = fit_with_covariance(&results, cfg.players);
    let ranks = threads.install(|| rank_intervals(&ratings, covariance.as_deref()));
    Ok(TournamentOutcome {
        partial: results.games < cfg.games,
        results,
        ratings,
        covariance,
        ranks,
        unfinished,
    })
}
