//! What a run is: its configuration ([`RunConfig`], made by
//! [`RunConfig::builder`]), its mode and its errors.

use crate::agents::StrategySpec;
use crate::engine::rules::Rules;
use crate::sim::seating::Seating;

/// One round per game, or whole matches. In files (shard states,
/// experiment specs) it is its name, `round` or `match`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    Round,
    Match,
}

impl Mode {
    pub fn name(self) -> &'static str {
        match self {
            Mode::Round => "round",
            Mode::Match => "match",
        }
    }

    /// The mode of a name (`round` or `match`).
    pub fn parse(name: &str) -> Option<Mode> {
        match name {
            "round" => Some(Mode::Round),
            "match" => Some(Mode::Match),
            _ => None,
        }
    }
}

/// Everything a run needs, made and validated by [`RunConfig::builder`].
#[derive(Clone, Debug)]
pub struct RunConfig {
    pub rules: Rules,
    pub players: usize,
    /// The strategy at each seat of the line-up (already cycled to `players`).
    pub lineup: Vec<StrategySpec>,
    pub games: u64,
    pub mode: Mode,
    pub seed: u64,
    pub threads: usize,
    /// How the line-up is seated game after game ([`Seating`]; the default
    /// is [`Seating::Mixed`]).
    pub seating: Seating,
    /// Games per unit of work (progress and interruption granularity).
    pub chunk: u64,
    /// Duplicate play: games come in groups of `players` that share one deal
    /// (the seeds of game `i / players`), each at another rotation of the
    /// deal's seating (the line-up itself with [`Seating::Rotate`], deal
    /// `i / players`'s arrangement with [`Seating::Mixed`]).
    pub duplicate: bool,
}

/// Errors of a run.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum RunError {
    #[error("{0}")]
    Invalid(String),
    #[error("{error} (seed {seed}, game {game})")]
    Illegal {
        error: crate::engine::game::IllegalActionError,
        seed: u64,
        game: u64,
    },
    /// The failure of one arm of a lockstep run (`sim::lockstep`).
    #[error("arm '{arm}': {error}")]
    InArm { arm: String, error: Box<RunError> },
}

impl RunError {
    /// The game that failed, if a game did.
    pub fn game(&self) -> Option<u64> {
        match self {
            RunError::Invalid(_) => None,
            RunError::Illegal { game, .. } => Some(*game),
            RunError::InArm { error, .. } => error.game(),
        }
    }
}

impl RunConfig {
    /// A run of `strategies` at `players` seats under `rules`, to be given
    /// the rest by name and validated by [`RunBuilder::build`]:
    ///
    /// ```
    /// # use unolab::{Rules, StrategySpec, sim::{RunConfig, Seating}};
    /// let cfg = RunConfig::builder(Rules::builtin("classic"), 4, &[StrategySpec::Random])
    ///     .games(1000)
    ///     .seed(7)
    ///     .seating(Seating::Rotate)
    ///     .duplicate(true)
    ///     .build()
    ///     .unwrap();
    /// assert_eq!(cfg.lineup.len(), 4);
    /// ```
    pub fn builder(rules: Rules, players: usize, strategies: &[StrategySpec]) -> RunBuilder {
        RunBuilder {
            rules,
            players,
            strategies: strategies.to_vec(),
            games: 1,
            mode: Mode::Round,
            seed: 0,
            threads: 1,
            seating: Seating::Mixed,
            duplicate: false,
        }
    }

    /// The positional form of [`RunConfig::builder`]: the seats are
    /// [`Seating::Fixed`] with `fixed_seats`, else [`Seating::Mixed`]. Kept
    /// because `benches/compare.sh` builds earlier revisions, which have
    /// only this form, into one harness; new code names its settings with
    /// the builder.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        rules: Rules,
        players: usize,
        strategies: &[StrategySpec],
        games: u64,
        mode: Mode,
        seed: u64,
        threads: usize,
        fixed_seats: bool,
    ) -> Result<RunConfig, RunError> {
        let seating = if fixed_seats {
            Seating::Fixed
        } else {
            Seating::Mixed
        };
        RunConfig::builder(rules, players, strategies)
            .games(games)
            .mode(mode)
            .seed(seed)
            .threads(threads)
            .seating(seating)
            .build()
    }

    /// The distinct strategies of the line-up, in order of first appearance.
    pub fn strategy_names(&self) -> Vec<String> {
        let mut v: Vec<String> = Vec::new();
        for s in &self.lineup {
            if !v.iter().any(|n| n == s.name()) {
                v.push(s.name().to_string());
            }
        }
        v
    }

    /// The names that put this line-up's strategies (in
    /// [`strategy_names`](Self::strategy_names) order) in order for mixed
    /// seating, when it is compared with `base` on the same deals: where
    /// the same typed seats hold equal strategies in both line-ups (the
    /// comparison swaps which strategies hold them, say one seat's
    /// strategy for another), each strategy takes the name of `base`'s at
    /// its seats, so every game seats this line-up as it seats `base`,
    /// each strategy where the one it replaces sits. Otherwise (another
    /// table size, or seats grouped otherwise) its own names.
    pub fn seating_names_beside(&self, base: &RunConfig) -> Vec<String> {
        let own = self.strategy_names();
        let (a, b) = (&self.lineup, &base.lineup);
        let grouped_alike = a.len() == b.len()
            && (0..a.len()).all(|s| {
                (0..s).all(|t| (a[s].name() == a[t].name()) == (b[s].name() == b[t].name()))
            });
        if !grouped_alike {
            return own;
        }
        own.iter()
            .map(|n| {
                let seat = a.iter().position(|x| x.name() == n).unwrap_or(0);
                b[seat].name().to_string()
            })
            .collect()
    }

    /// The seats strategy `name` holds in the line-up.
    pub fn seats_of(&self, name: &str) -> usize {
        self.lineup.iter().filter(|s| s.name() == name).count()
    }

    /// The number of distinct arrangements of the line-up (see
    /// [`crate::sim::seating`]).
    pub fn arrangement_count(&self) -> u64 {
        let names = self.strategy_names();
        let mult: Vec<usize> = names.iter().map(|n| self.seats_of(n)).collect();
        crate::sim::seating::arrangement_count(&mult)
    }

    /// Whether a program plays in the line-up ([`StrategySpec::is_external`]):
    /// a unit of work may then be left unfinished by an interrupt (the same
    /// signal can end the program), and is played apart, to be dropped
    /// whole ([`crate::sim::handout::Unfinished`]).
    pub fn has_programs(&self) -> bool {
        self.lineup.iter().any(StrategySpec::is_external)
    }

    /// Games per cluster: the games that share a deal with duplicate play
    /// (`players`), else 1.
    pub fn games_per_cluster(&self) -> u64 {
        if self.duplicate {
            self.players as u64
        } else {
            1
        }
    }

    /// Games per unit of work: [`RunConfig::chunk`] rounded up to whole
    /// clusters, so that no deal is split between two units.
    pub fn chunk_games(&self) -> u64 {
        let per = self.games_per_cluster();
        self.chunk.max(1).div_ceil(per) * per
    }

    /// The period of the rotation index the runner steps from game to game:
    /// `players` when games rotate (rotation, or a deal's rotations with
    /// duplicate play), else 1.
    pub(crate) fn rotation_period(&self) -> usize {
        match (self.seating, self.duplicate) {
            (Seating::Rotate, _) | (Seating::Mixed, true) => self.players,
            _ => 1,
        }
    }
}

/// A [`RunConfig`] being made ([`RunConfig::builder`]). What is not set
/// keeps its default: 1 game, [`Mode::Round`], seed 0, 1 thread,
/// [`Seating::Mixed`], no duplicate play.
#[derive(Clone, Debug)]
#[must_use = "a builder makes nothing until build() is called"]
pub struct RunBuilder {
    rules: Rules,
    players: usize,
    strategies: Vec<StrategySpec>,
    games: u64,
    mode: Mode,
    seed: u64,
    threads: usize,
    seating: Seating,
    duplicate: bool,
}

impl RunBuilder {
    pub fn games(mut self, games: u64) -> Self {
        self.games = games;
        self
    }

    pub fn mode(mut self, mode: Mode) -> Self {
        self.mode = mode;
        self
    }

    pub fn seed(mut self, seed: u64) -> Self {
        self.seed = seed;
        self
    }

    pub fn threads(mut self, threads: usize) -> Self {
        self.threads = threads;
        self
    }

    pub fn seating(mut self, seating: Seating) -> Self {
        self.seating = seating;
        self
    }

    /// Duplicate play ([`RunConfig::duplicate`]).
    pub fn duplicate(mut self, duplicate: bool) -> Self {
        self.duplicate = duplicate;
        self
    }

    /// Validates and cycles the line-up to the number of players.
    pub fn build(self) -> Result<RunConfig, RunError> {
        let RunBuilder {
            rules,
            players,
            strategies,
            games,
            mode,
            seed,
            threads,
            seating,
            duplicate,
        } = self;
        rules
            .check_players(players)
            .map_err(|e| RunError::Invalid(e.to_string()))?;
        if strategies.is_empty() {
            return Err(RunError::Invalid("no strategies given".into()));
        }
        if strategies.len() > players {
            return Err(RunError::Invalid(format!(
                "{} strategies for {players} players (give at most one per seat; the list is cycled to fill the seats)",
                strategies.len()
            )));
        }
        if games == 0 {
            return Err(RunError::Invalid("--games must be at least 1".into()));
        }
        if threads == 0 {
            return Err(RunError::Invalid("--threads must be at least 1".into()));
        }
        if duplicate && seating == Seating::Fixed {
            return Err(RunError::Invalid(
                "duplicate play rotates the seats; the seating cannot be fixed".into(),
            ));
        }
        if let (Mode::Match, Some(why)) = (mode, rules.settings.match_end_fault()) {
            return Err(RunError::Invalid(why.into()));
        }
        let lineup: Vec<StrategySpec> = (0..players)
            .map(|i| strategies[i % strategies.len()].clone())
            .collect();
        for a in &lineup {
            for b in &lineup {
                if a.name() == b.name() && a != b {
                    return Err(RunError::Invalid(format!(
                        "two different strategies are named '{}'; rename one",
                        a.name()
                    )));
                }
            }
        }
        Ok(RunConfig {
            rules,
            players,
            lineup,
            games,
            mode,
            seed,
            threads,
            seating,
            chunk: 1024,
            duplicate,
        })
    }
}
