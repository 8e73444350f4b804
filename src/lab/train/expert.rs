//! Expert iteration (feature `train`): a first teacher labels self-play
//! positions and the network is fitted to them; then, at each iteration,
//! a search with the latest network as its rollout policy labels new
//! positions and the network is fitted again. By default the search is
//! `pimc` with the network in every simulated seat, playing its own games,
//! and the fit continues from the network's weights on every
//! search-labelled position so far. With a search preset
//! ([`TrainConfig::search`]) the network plays the searcher's own seat in
//! the simulations and every seat of the labelled games, and the search
//! only labels; with [`TrainConfig::refit`] each iteration fits fresh
//! weights on every position so far, the first teacher's included. Each
//! stage's network is measured against a reference strategy on evaluation
//! seeds ([`super::EVAL_SALT`]).

use super::fit::{fit, Epoch, FitConfig};
use super::{head_to_head, label, label_seed, net_spec, search_with, Dataset, EVAL_SALT};
use crate::agents::net::NetWeights;
use crate::agents::search::SearchKind;
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
    /// The searching teacher of the iterations, when not the default
    /// (`pimc` with `search_sims` and the network in every seat): a `pimc`
    /// or `oracle` preset whose own seat the latest network plays in the
    /// simulations (its `own_rollout`; the other seats keep its rollout
    /// policy). The latest network plays the labelled games and the search
    /// only labels them, so an `oracle` can teach.
    pub search: Option<StrategySpec>,
    /// Each iteration fits fresh weights on every position labelled so
    /// far, the first teacher's included (default: it continues from the
    /// latest weights on the search-labelled positions).
    pub refit: bool,
    pub fit: FitConfig,
    /// Rounds against `opponent` at each player count, after each stage.
    pub eval_games: u64,
    pub opponent: StrategySpec,
    pub seed: u64,
    /// The networks' name (stage `k` is `NAME-k`).
    pub name: String,
    /// The networks read the known-cards section too (`OBS_LEN_KNOWN`
    /// features): the positions are labelled with it, and `init`, if it
    /// does not read it, is widened with zero weights on it.
    pub known: bool,
}

impl TrainConfig {
    pub fn validate(&self) -> Result<(), String> {
        let (outside, twice) = super::player_count_faults(&self.players);
        if self.players.is_empty() || outside.is_some() {
            return Err("players must be counts from 2 to 10".into());
        }
        if let Some(p) = twice {
            return Err(format!(
                "players gives {p} twice (each count is labelled and measured once)"
            ));
        }
        for p in &self.players {
            // A table the rules cannot deal (a hand size too large for
            // the deck, a dealer seat past the table).
            self.rules.check_players(*p).map_err(|e| e.to_string())?;
        }
        if self.games == 0 {
            return Err("games must be at least 1".into());
        }
        if self.iterations > 0 && (self.search_games == 0 || self.search_sims == 0) {
            return Err("expert iterations need search games and simulations above 0".into());
        }
        if let Some(s) = &self.search {
            match s {
                StrategySpec::Search(c) if c.kind != SearchKind::Ismcts => {}
                _ => {
                    return Err(format!(
                        "the searching teacher '{}' must be a pimc or oracle preset",
                        s.name()
                    ))
                }
            }
        }
        if let Some(w) = &self.init {
            if w.reads_known() && !self.known {
                return Err(
                    "the starting network (init) reads the known-cards section: turn known cards on to train it"
                        .into(),
                );
            }
        }
        if self.fit.hidden.is_empty() || self.fit.hidden.iter().any(|&h| h == 0 || h > 4096) {
            return Err("hidden layer sizes must be from 1 to 4096".into());
        }
        if self.fit.hidden.len() > 16 {
            return Err(format!(
                "{} hidden layers; at most 16",
                self.fit.hidden.len()
            ));
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
    // An opponent that is a program plays only after a stage's work: one
    // round of it in every seat first (on seeds of their own, which no
    // stage plays), so that one that fails is found before that work.
    if cfg.opponent.is_external() {
        const PROBE_SALT: u64 = 0x9E0B_E5EE_D000_0001;
        let o = &cfg.opponent;
        head_to_head(
            &cfg.rules,
            cfg.players[0],
            o,
            o,
            0..1,
            cfg.seed ^ PROBE_SALT,
            stop,
        )?;
    }
    let mut stages: Vec<Stage> = Vec::new();
    // The positions fitted on: every one so far with `refit`, else the
    // stage's own at stage 0 and the search-labelled ones after it.
    let mut pool = Dataset::default();
    // With known cards, an `init` without the section starts with zero
    // weights on it.
    let init = match &cfg.init {
        Some(w) if cfg.known => Some(w.with_known()),
        other => other.clone(),
    };
    for k in 0..=cfg.iterations {
        if stop.load(Ordering::Relaxed) {
            break;
        }
        let t0 = std::time::Instant::now();
        let prev = stages.last().map(|s| s.weights.clone());
        let games = if k == 0 { cfg.games } else { cfg.search_games };
        let (teacher, behaviour) = match &prev {
            None => (cfg.teacher.clone(), cfg.behaviour.clone()),
            Some(w) => {
                let net = net_spec(&format!("{}-{}", cfg.name, k - 1), "", w.clone());
                match &cfg.search {
                    None => {
                        let name = format!("pimc-{}+{}", cfg.search_sims, net.name());
                        (search_with(&name, cfg.search_sims, &net), None)
                    }
                    Some(s) => (own_rollout(s, &net), Some(net)),
                }
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
                behaviour.as_ref(),
                at..to,
                seed,
                cfg.known,
                stop,
            )?);
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
        let start = prev.as_ref().or(init.as_ref());
        let before = match start {
            Some(w) => data.agreement(w),
            None => data.agreement(&super::fit::init(
                data.width(),
                &cfg.fit.hidden,
                cfg.fit.seed,
            )),
        };
        if k == 1 && !cfg.refit {
            pool = Dataset::default();
        }
        pool.append(data);
        let train_on = &pool;
        let start = if cfg.refit && k > 0 { None } else { start };
        let fit_cfg = FitConfig {
            seed: cfg.fit.seed ^ k as u64,
            // `init`'s layer sizes win over `hidden`, for a fresh fit too
            // (`refit`): the stages keep one shape.
            hidden: match &cfg.init {
                Some(w) => hidden_sizes(w),
                None => cfg.fit.hidden.clone(),
            },
            ..cfg.fit.clone()
        };
        let weights = fit(train_on, start, &fit_cfg, stop, &mut |epoch| {
            progress(Progress::Fitting {
                stage: k,
                epoch,
                epochs: cfg.fit.epochs,
            })
        })
        .map_err(|e| format!("stage {k}: {e}"))?;
        if stop.load(Ordering::Relaxed) {
            break;
        }
        let agreement = if labelled == train_on.len() {
            train_on.agreement(&weights)
        } else {
            // The positions this stage labelled: the tail of the set.
            let mut last = Dataset::default();
            let from = train_on.len() - labelled;
            last.x = train_on.x[from * train_on.width()..].to_vec();
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
                )?;
                wins += w;
                n += m;
                done += m;
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

/// The search preset `search` with `net` in its own seat's simulations.
fn own_rollout(search: &StrategySpec, net: &StrategySpec) -> StrategySpec {
    let StrategySpec::Search(c) = search else {
        return search.clone(); // not reached: `validate` wants a search
    };
    let mut c = (**c).clone();
    c.name = format!("{}+{}", c.name, net.name());
    c.params.own_rollout = net.name().to_string();
    c.own_rollout = Some(Box::new(net.clone()));
    StrategySpec::Search(Box::new(c))
}

/// The hidden layer sizes of `w` (every layer's outputs but the last's).
fn hidden_sizes(w: &NetWeights) -> Vec<usize> {
    let layers = w.layers();
    layers[..layers.len().saturating_sub(1)]
        .iter()
        .map(|l| l.outputs)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn oracle(iterations: u32) -> StrategySpec {
        let StrategySpec::Search(mut c) = search_with(
            &format!("oracle-{iterations}"),
            iterations,
            &StrategySpec::load("tuned").unwrap(),
        ) else {
            unreachable!()
        };
        c.kind = SearchKind::Oracle;
        StrategySpec::Search(c)
    }

    fn config(search: Option<StrategySpec>, refit: bool) -> TrainConfig {
        TrainConfig {
            rules: Rules::builtin("classic"),
            players: vec![2],
            teacher: StrategySpec::load("tuned").unwrap(),
            games: 6,
            behaviour: None,
            init: None,
            iterations: 1,
            search_sims: 1,
            search_games: 2,
            search,
            refit,
            fit: FitConfig {
                hidden: vec![8],
                // Enough to play a normal game: a network fitted for one
                // epoch plays rounds of thousands of turns.
                epochs: 30,
                batch: 64,
                seed: 5,
                ..FitConfig::default()
            },
            eval_games: 1,
            opponent: StrategySpec::load("first").unwrap(),
            seed: 5,
            name: "t".into(),
            known: false,
        }
    }

    #[test]
    fn known_cards_widen_init_and_a_network_reading_them_needs_them() {
        // From a network without the section: stage 0 starts where it was
        // (the same agreement before fitting) and ends reading the section.
        let stop = AtomicBool::new(false);
        let narrow = super::super::fit::init(crate::engine::encode::OBS_LEN, &[8], 3);
        let mut cfg = config(None, false);
        cfg.iterations = 0;
        cfg.init = Some(narrow.clone());
        let plain = train(&cfg, &stop, &mut |_| {}).unwrap();
        cfg.known = true;
        let known = train(&cfg, &stop, &mut |_| {}).unwrap();
        assert_eq!(known[0].agreement_before, plain[0].agreement_before);
        assert!(known[0].weights.reads_known() && !plain[0].weights.reads_known());
        // A network that reads it cannot be trained without it.
        cfg.known = false;
        cfg.init = Some(narrow.with_known());
        let e = cfg.validate().unwrap_err();
        assert!(e.contains("known-cards section"), "{e}");
    }

    #[test]
    fn a_refit_keeps_the_layer_sizes_of_init() {
        // --init's sizes win over --hidden: a refit at the iteration used
        // --hidden's, so the stages changed shape.
        let stop = AtomicBool::new(false);
        let mut cfg = config(None, true);
        cfg.init = Some(super::super::fit::init(
            crate::engine::encode::OBS_LEN,
            &[12],
            3,
        ));
        let stages = train(&cfg, &stop, &mut |_| {}).unwrap();
        for s in &stages {
            assert_eq!(hidden_sizes(&s.weights), [12], "stage {}", s.index);
        }
    }

    #[test]
    fn what_cannot_be_played_or_fitted_is_an_error_not_a_panic_or_a_silent_network() {
        let stop = AtomicBool::new(false);
        // A table the deck cannot deal: refused before any game (it
        // panicked in the deal).
        let mut cfg = config(None, false);
        cfg.rules.settings.hand_size = 11;
        cfg.players = vec![2, 10];
        let e = cfg.validate().unwrap_err();
        assert!(e.contains("but the 'classic' deck has 108"), "{e}");
        let e = train(&cfg, &stop, &mut |_| {}).unwrap_err();
        assert!(e.contains("deck has 108"), "{e}");
        cfg.players = vec![2, 2];
        assert!(cfg.validate().unwrap_err().contains("2 twice"));
        let mut cfg = config(None, false);
        cfg.fit.hidden = vec![8; 17];
        assert_eq!(cfg.validate().unwrap_err(), "17 hidden layers; at most 16");
        // A preset whose description quotes a teacher named with a
        // backslash and a quote reads back (it was written unescaped).
        let desc = "network of `unolab train`, stage 0 (teacher a\\q\"b, 5 positions)";
        let text = super::super::preset_text("n-0", "n-0.safetensors", desc);
        let v: toml::Table = toml::from_str(&text).unwrap();
        assert_eq!(v["description"].as_str(), Some(desc), "{text}");
        assert_eq!(v["name"].as_str(), Some("n-0"), "{text}");
        // A teacher, a behaviour or an opponent that fails (a program that
        // never answers) is the error: it was a network taught by nothing,
        // or an evaluation "not measured (interrupted)".
        let broken = StrategySpec::load("ext:/bin/false").unwrap();
        for k in 0..3 {
            let mut cfg = config(None, false);
            cfg.iterations = 0;
            match k {
                0 => cfg.teacher = broken.clone(),
                1 => cfg.behaviour = Some(broken.clone()),
                _ => cfg.opponent = broken.clone(),
            }
            let mut fitted = false;
            let e = train(&cfg, &stop, &mut |p| {
                fitted |= matches!(p, Progress::Fitting { .. })
            })
            .unwrap_err();
            // Each is found before a fit: a broken opponent too, which
            // plays only after it.
            assert!(!fitted, "{k}");
            let failed = match k {
                1 => "failed in round 1: its behaviour 'false': the program exited",
                _ => "strategy 'false' at seat",
            };
            assert!(e.contains(failed), "{k}: {e}");
        }
        // A fit that diverges says so and at which stage.
        let mut cfg = config(None, false);
        cfg.iterations = 0;
        cfg.fit.lr = 1e30;
        let e = train(&cfg, &stop, &mut |_| {}).unwrap_err();
        assert!(
            e.starts_with("stage 0: the fit diverged (")
                && e.ends_with("try a smaller learning rate than 1e30"),
            "{e}"
        );
    }

    #[test]
    fn the_searching_teacher_must_be_pimc_or_oracle() {
        assert!(config(Some(oracle(2)), false).validate().is_ok());
        let tuned = StrategySpec::load("tuned").unwrap();
        let err = config(Some(tuned), false).validate().unwrap_err();
        assert!(err.contains("'tuned' must be a pimc or oracle"), "{err}");
        let mut ismcts = oracle(2);
        if let StrategySpec::Search(c) = &mut ismcts {
            c.kind = SearchKind::Ismcts;
        }
        assert!(config(Some(ismcts), false).validate().is_err());
    }

    #[test]
    fn a_search_preset_teaches_with_the_network_in_its_own_seat_and_refit_takes_every_position() {
        let stop = AtomicBool::new(false);
        let run = |search, refit| train(&config(search, refit), &stop, &mut |_| {}).unwrap();
        let plain = run(None, false);
        assert_eq!(plain[1].teacher, "pimc-1+t-0");
        // Continued on the search-labelled positions only.
        assert_eq!(plain[1].fitted, plain[1].labelled);
        let own = run(Some(oracle(1)), true);
        assert_eq!(own[1].teacher, "oracle-1+t-0");
        // The same first stage; the iteration fits both stages' positions.
        assert_eq!(own[0].weights, plain[0].weights);
        assert_eq!(own[1].fitted, own[0].labelled + own[1].labelled);
        // The network plays the labelled games, not the oracle: the
        // positions differ from those of the oracle's own games.
        let net = net_spec("t-0", "", own[0].weights.clone());
        let games = |network_plays: bool| {
            label(
                &Rules::builtin("classic"),
                &[2],
                &own_rollout(&oracle(1), &net),
                network_plays.then_some(&net),
                0..2,
                label_seed(5, 1),
                false,
                &stop,
            )
            .unwrap()
        };
        assert_eq!(games(true).len(), own[1].labelled);
        assert_ne!(games(false).x, games(true).x);
    }
}
