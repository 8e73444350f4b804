//! Expert iteration (feature `train`): a first teacher labels self-play
//! positions and the network is fitted to them; then, at each iteration,
//! `pimc` with the latest network as its rollout policy labels new positions
//! and the network is fitted again (from its weights, on every search-labelled
//! position so far). Each stage's network is measured against a reference
//! strategy on evaluation seeds ([`super::EVAL_SALT`]).

use super::fit::{fit, Epoch, FitConfig};
use super::{head_to_head, label, label_seed, net_spec, search_with, Dataset, EVAL_SALT};
use crate::agents::net::NetWeights;
use crate::agents::StrategySpec;
use crate::engine::rules::Rules;
use std::sync::atomic::{AtomicBool, Ordering};

/// Games labelled or evaluated between two progress reports.
const CHUNK: u64 = 32;

/// What `unolab train` does.
#[derive(Debug, Clone)]
pub struct TrainConfig {
    pub rules: Rules,
    /// Player counts, cycled over the games.
    pub players: Vec<usize>,
    /// The first teacher (e.g. `tuned`, or a search preset).
    pub teacher: StrategySpec,
    /// Games labelled by the first teacher.
    pub games: u64,
    /// Who plays the seats while the first teacher labels (`None`: the
    /// teacher itself). A teacher that only labels can be one no fair
    /// player could be (the perfect-information `oracle`): the network
    /// still sees only the observation.
    pub behaviour: Option<StrategySpec>,
    /// Stage 0 starts from these weights instead of fresh ones.
    pub init: Option<NetWeights>,
    /// Expert iterations after the first fit.
    pub iterations: usize,
    /// `pimc` determinizations per action of the searching teacher.
    pub search_sims: u32,
    /// Games labelled by the searching teacher at each iteration.
    pub search_games: u64,
    pub fit: FitConfig,
    /// Rounds against `opponent` at each player count, after each stage.
    pub eval_games: u64,
    pub opponent: StrategySpec,
    pub seed: u64,
    /// The networks' name (stage `k` is `NAME-k`).
    pub name: String,
}

impl TrainConfig {
    pub fn validate(&self) -> Result<(), String> {
        if self.players.is_empty() || self.players.iter().any(|p| !(2..=10).contains(p)) {
            return Err("players must be counts from 2 to 10".into());
        }
        if self.games == 0 {
            return Err("games must be at least 1".into());
        }
        if self.iterations > 0 && (self.search_games == 0 || self.search_sims == 0) {
            return Err("expert iterations need search games and simulations above 0".into());
        }
        if self.fit.hidden.is_empty() || self.fit.hidden.iter().any(|&h| h == 0 || h > 4096) {
            return Err("hidden layer sizes must be from 1 to 4096".into());
        }
        if self.fit.epochs == 0 || self.fit.batch == 0 || self.fit.lr.is_nan() || self.fit.lr <= 0.0
        {
            return Err("epochs, batch and learning rate must be above 0".into());
        }
        Ok(())
    }
}

/// A stage's network and how it fared.
#[derive(Debug, Clone)]
pub struct Stage {
    /// 0: fitted to the first teacher; `k`: after expert iteration `k`.
    pub index: usize,
    pub teacher: String,
    /// Positions labelled at this stage, and fitted on.
    pub labelled: usize,
    pub fitted: usize,
    /// The share of the positions labelled at this stage on which the network
    /// of the stage before (stage 0: the fresh network) and this stage's
    /// network agree with the teacher.
    pub agreement_before: f64,
    pub agreement: f64,
    /// Per player count: (players, wins, rounds) against the opponent.
    pub eval: Vec<(usize, u64, u64)>,
    pub seconds: f64,
    pub weights: NetWeights,
}

/// What the training is doing, for a progress display.
#[derive(Debug)]
pub enum Progress<'a> {
    Labelling {
        stage: usize,
        done: u64,
        total: u64,
    },
    Fitting {
        stage: usize,
        epoch: Epoch,
        epochs: usize,
    },
    Evaluating {
        stage: usize,
        done: u64,
        total: u64,
    },
    Done(&'a Stage),
}

/// Runs the stages; stops early (with the stages finished) when `stop` rises.
pub fn train(
    cfg: &TrainConfig,
    stop: &AtomicBool,
    progress: &mut dyn FnMut(Progress),
) -> Result<Vec<Stage>, String> {
    cfg.validate()?;
    let mut stages: Vec<Stage> = Vec::new();
    let mut searched = Dataset::default();
    for k in 0..=cfg.iterations {
        if stop.load(Ordering::Relaxed) {
            break;
        }
        let t0 = std::time::Instant::now();
        let prev = stages.last().map(|s| s.weights.clone());
        let (teacher, games, behaviour) = match &prev {
            None => (cfg.teacher.clone(), cfg.games, cfg.behaviour.as_ref()),
            Some(w) => {
                let net = net_spec(&format!("{}-{}", cfg.name, k - 1), "", w.clone());
                let name = format!("pimc-{}+{}", cfg.search_sims, net.name());
                (
                    search_with(&name, cfg.search_sims, &net),
                    cfg.search_games,
                    None,
                )
            }
        };
        let seed = label_seed(cfg.seed, k);
        let mut data = Dataset::default();
        let mut at = 0;
        while at < games && !stop.load(Ordering::Relaxed) {
            let to = (at + CHUNK).min(games);
            data.append(label(
                &cfg.rules,
                &cfg.players,
                &teacher,
                behaviour,
                at..to,
                seed,
                stop,
            ));
            at = to;
            progress(Progress::Labelling {
                stage: k,
                done: at,
                total: games,
            });
        }
        if stop.load(Ordering::Relaxed) {
            break;
        }
        let labelled = data.len();
        let start = prev.as_ref().or(cfg.init.as_ref());
        let before = match start {
            Some(w) => data.agreement(w),
            None => data.agreement(&super::fit::init(&cfg.fit.hidden, cfg.fit.seed)),
        };
        let train_on = if k == 0 {
            data
        } else {
            searched.append(data);
            searched.clone()
        };
        let fit_cfg = FitConfig {
            seed: cfg.fit.seed ^ k as u64,
            ..cfg.fit.clone()
        };
        let weights = fit(&train_on, start, &fit_cfg, stop, &mut |epoch| {
            progress(Progress::Fitting {
                stage: k,
                epoch,
                epochs: cfg.fit.epochs,
            })
        })?;
        if stop.load(Ordering::Relaxed) {
            break;
        }
        let agreement = if k == 0 {
            train_on.agreement(&weights)
        } else {
            // The positions this stage labelled: the tail of the set.
            let mut last = Dataset::default();
            let from = train_on.len() - labelled;
            last.x = train_on.x[from * crate::engine::encode::OBS_LEN..].to_vec();
            last.legal = train_on.legal[from..].to_vec();
            last.label = train_on.label[from..].to_vec();
            last.agreement(&weights)
        };
        let net = net_spec(&format!("{}-{k}", cfg.name), "", weights.clone());
        let mut eval = Vec::new();
        let total = cfg.eval_games * cfg.players.len() as u64;
        let mut done = 0;
        for &p in &cfg.players {
            let (mut wins, mut n, mut at) = (0, 0, 0);
            while at < cfg.eval_games && !stop.load(Ordering::Relaxed) {
                let to = (at + 4 * CHUNK).min(cfg.eval_games);
                let (w, m) = head_to_head(
                    &cfg.rules,
                    p,
                    &net,
                    &cfg.opponent,
                    at..to,
                    cfg.seed ^ EVAL_SALT,
                    stop,
                );
                wins += w;
                n += m;
                done += to - at;
                at = to;
                progress(Progress::Evaluating {
                    stage: k,
                    done,
                    total,
                });
            }
            eval.push((p, wins, n));
        }
        let stage = Stage {
            index: k,
            teacher: teacher.name().to_string(),
            labelled,
            fitted: train_on.len(),
            agreement_before: before,
            agreement,
            eval,
            seconds: t0.elapsed().as_secs_f64(),
            weights,
        };
        progress(Progress::Done(&stage));
        stages.push(stage);
    }
    Ok(stages)
}
