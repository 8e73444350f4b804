//! Statistics read back from a file (a shard state, an experiment's saved
//! state) are checked before anything uses them: they must have the shape of
//! their configuration and add up as the statistics of played games do, so
//! that a damaged or hand-made file is refused with one clear line instead of
//! a panic or results that cannot be; and they are added to others with
//! checked arithmetic ([`RunStats::try_merge`]). The statistics of a run
//! always pass.

use crate::engine::rules::Scoring;
use crate::sim::clusters::ClusterSums;
use crate::sim::lockstep::{LockstepConfig, LockstepState};
use crate::sim::runner::{Mode, RunConfig, RunStats};
use crate::sim::stats::Histogram;

/// `a + b`, or `None` when it does not fit.
fn add(a: &mut u64, b: u64) -> Option<()> {
    *a = a.checked_add(b)?;
    Some(())
}

fn add128(a: &mut u128, b: u128) -> Option<()> {
    *a = a.checked_add(b)?;
    Some(())
}

/// Applies the checked merge `f` to a copy of `x` and keeps it only when it
/// succeeded: `x` is unchanged when a sum would not fit.
fn merged_or_unchanged<T: Clone>(x: &mut T, f: impl FnOnce(&mut T) -> Option<()>) -> bool {
    let mut t = x.clone();
    if f(&mut t).is_none() {
        return false;
    }
    *x = t;
    true
}

/// The sum of `it`, or `None` when it does not fit.
fn sum(mut it: impl Iterator<Item = u64>) -> Option<u64> {
    it.try_fold(0u64, |a, b| a.checked_add(b))
}

/// The number of observations of a histogram, and their sum, when its
/// moments fit.
fn count_sum(h: &Histogram) -> Option<(u64, u128)> {
    h.checked_moments().map(|(n, s, _)| (n, s))
}

impl RunStats {
    /// Whether `self` and `o` have the same shape: the players, the
    /// strategies (names and seats held), the per-seat lists and the
    /// histograms' unit bins.
    pub fn same_shape(&self, o: &RunStats) -> bool {
        let caps = |s: &RunStats| {
            let mut v = vec![
                s.turns.cap(),
                s.cards_drawn.cap(),
                s.uno_penalties_per_round.cap(),
                s.rounds_per_match.cap(),
            ];
            for st in &s.strategies {
                v.extend([st.round_points.cap(), st.match_points.cap()]);
            }
            v
        };
        self.players == o.players
            && self.seats.len() == o.seats.len()
            && self.position_wins.len() == o.position_wins.len()
            && self.strategies.len() == o.strategies.len()
            && self
                .strategies
                .iter()
                .zip(&o.strategies)
                .all(|(a, b)| a.name == b.name && a.seats == b.seats)
            && caps(self) == caps(o)
            && match (&self.clusters, &o.clusters) {
                // (Statistics without cluster sums, of an earlier version,
                // are read as unclustered.)
                (Some(a), Some(b)) => {
                    let lens = |c: &ClusterSums| {
                        [
                            c.seat_rounds.len(),
                            c.seat_matches.len(),
                            c.positions.len(),
                            c.strategy_rounds.len(),
                            c.strategy_matches.len(),
                            c.strategy_points
                                .as_ref()
                                .map_or(c.strategy_rounds.len(), Vec::len),
                            c.strategy_match_points
                                .as_ref()
                                .map_or(c.strategy_rounds.len(), Vec::len),
                        ]
                    };
                    lens(a) == lens(b)
                }
                _ => true,
            }
    }

    /// Checks statistics read from a file against the configuration `cfg`
    /// they claim to be of: their shape, and that they add up as the
    /// statistics of `games` finished games of it do (every round won,
    /// blocked or truncated; the wins by seat, by strategy and by position
    /// adding up to the rounds won; a count in every histogram for every
    /// round or match; sums that fit). `Err` says what is wrong.
    pub fn check(&self, cfg: &RunConfig) -> Result<(), String> {
        if !self.same_shape(&RunStats::new(cfg)) {
            return Err("its statistics do not have the shape of its configuration".into());
        }
        let bad = || Err("its statistics do not add up".to_string());
        let Some(()) = self.counts_add_up(cfg) else {
            return bad();
        };
        Ok(())
    }

    /// The equations of [`RunStats::check`]; `None` when one fails or a sum
    /// does not fit.
    fn counts_add_up(&self, cfg: &RunConfig) -> Option<()> {
        let n = self.players as u64;
        let (g, r) = (self.games, self.rounds);
        let ok = |c: bool| c.then_some(());
        let mut outcomes = self.won;
        add(&mut outcomes, self.blocked)?;
        add(&mut outcomes, self.truncated)?;
        ok(outcomes == r)?;
        for h in [
            &self.turns,
            &self.cards_drawn,
            &self.uno_penalties_per_round,
        ] {
            ok(count_sum(h)?.0 == r)?;
        }
        ok(count_sum(&self.uno_penalties_per_round)?.1 == self.uno_penalties as u128)?;
        ok(sum(self.seats.iter().map(|s| s.round_wins))? == self.won)?;
        ok(sum(self.strategies.iter().map(|s| s.round_wins))? == self.won)?;
        ok(sum(self.position_wins.iter().copied())? == self.won)?;
        ok(sum(self.strategies.iter().map(|s| s.illegal))? == self.illegal)?;
        let mut points = 0u64;
        let mut match_points = 0u64;
        for s in &self.strategies {
            add(&mut points, count_sum(&s.round_points)?.0)?;
            add(&mut match_points, count_sum(&s.match_points)?.0)?;
        }
        let per_round = match cfg.rules.settings.scoring {
            Scoring::Winner => 1,
            Scoring::Penalty => n,
        };
        ok(points == self.won.checked_mul(per_round)?)?;
        let seat_match_wins = sum(self.seats.iter().map(|s| s.match_wins))?;
        let strat_match_wins = sum(self.strategies.iter().map(|s| s.match_wins))?;
        ok(seat_match_wins == strat_match_wins)?;
        let (matches, match_rounds) = count_sum(&self.rounds_per_match)?;
        match cfg.mode {
            Mode::Round => {
                ok(r == g && matches == 0 && match_points == 0 && seat_match_wins == 0)?;
                ok(self.capped_matches == 0)?;
                ok(self.tied_matches == 0 && self.no_winner_matches == 0)?;
            }
            Mode::Match => {
                ok(matches == g && match_rounds == r as u128)?;
                ok(match_points == g.checked_mul(n)?)?;
                let mut ends = seat_match_wins;
                add(&mut ends, self.tied_matches)?;
                add(&mut ends, self.no_winner_matches)?;
                // A match stopped by max_rounds with a shared lead has no
                // winner and is counted apart from the ties.
                add(&mut ends, self.capped_without_winner)?;
                ok(ends == g && self.capped_without_winner <= self.capped_matches)?;
            }
        }
        Some(())
    }

    /// As [`RunStats::merge`] with checked arithmetic: `false`, and `self`
    /// unchanged, when the shapes differ or a sum would not fit.
    pub fn try_merge(&mut self, o: &RunStats) -> bool {
        self.same_shape(o) && merged_or_unchanged(self, |t| t.merge_checked(o))
    }

    /// Every count of `o` added to `self`, checked; `None` when a sum does
    /// not fit or a histogram's cap differs (`self` then partly merged:
    /// [`RunStats::try_merge`] works on a copy).
    pub(crate) fn merge_checked(&mut self, o: &RunStats) -> Option<()> {
        self.merge_with(o, Histogram::try_merge)
    }

    /// Adds a [`part`](RunStats::part) of the work, played in this process
    /// (its counts cannot overflow where the whole run's do not).
    ///
    /// # Panics
    /// If the shapes differ or a count would not fit.
    pub fn absorb(&mut self, part: &RunStats) {
        let merged = self.merge_with(part, |a, b| {
            a.merge(b);
            true
        });
        assert!(merged.is_some(), "RunStats::absorb: the shapes differ");
    }

    /// Every count of `o` added to `self` (checked), its histograms with
    /// `hist`: the one place that lists what a merge adds.
    fn merge_with(
        &mut self,
        o: &RunStats,
        hist: impl Fn(&mut Histogram, &Histogram) -> bool,
    ) -> Option<()> {
        add(&mut self.games, o.games)?;
        add(&mut self.rounds, o.rounds)?;
        add(&mut self.won, o.won)?;
        add(&mut self.blocked, o.blocked)?;
        add(&mut self.truncated, o.truncated)?;
        add(&mut self.tied_matches, o.tied_matches)?;
        add(&mut self.no_winner_matches, o.no_winner_matches)?;
        add(&mut self.capped_matches, o.capped_matches)?;
        add(&mut self.capped_without_winner, o.capped_without_winner)?;
        add(&mut self.uno_penalties, o.uno_penalties)?;
        add(&mut self.illegal, o.illegal)?;
        for (a, b) in self.strategies.iter_mut().zip(&o.strategies) {
            add(&mut a.round_wins, b.round_wins)?;
            add(&mut a.match_wins, b.match_wins)?;
            add(&mut a.illegal, b.illegal)?;
            match (a.penalty_round_sq.as_mut(), b.penalty_round_sq) {
                (Some(p), Some(q)) => add128(p, q)?,
                _ => a.penalty_round_sq = None,
            }
            (hist(&mut a.round_points, &b.round_points)
                && hist(&mut a.match_points, &b.match_points))
            .then_some(())?;
        }
        for (a, b) in self.seats.iter_mut().zip(&o.seats) {
            add(&mut a.round_wins, b.round_wins)?;
            add(&mut a.match_wins, b.match_wins)?;
        }
        for (a, b) in self.position_wins.iter_mut().zip(&o.position_wins) {
            add(a, *b)?;
        }
        (hist(&mut self.turns, &o.turns)
            && hist(&mut self.cards_drawn, &o.cards_drawn)
            && hist(
                &mut self.uno_penalties_per_round,
                &o.uno_penalties_per_round,
            )
            && hist(&mut self.rounds_per_match, &o.rounds_per_match))
        .then_some(())?;
        merge_clusters_checked(&mut self.clusters, &o.clusters)
    }
}

/// As [`ClusterSums::merge`] with checked arithmetic; `None` when a sum
/// would not fit or the shapes differ.
pub(crate) fn merge_clusters_checked(
    a: &mut Option<ClusterSums>,
    b: &Option<ClusterSums>,
) -> Option<()> {
    match (a.as_mut(), b) {
        (Some(x), Some(y)) => {
            add(&mut x.clusters, y.clusters)?;
            add128(&mut x.rounds_sq, y.rounds_sq)?;
            add128(&mut x.won_sq, y.won_sq)?;
            add128(&mut x.matches_sq, y.matches_sq)?;
            for (xs, ys) in [
                (&mut x.seat_rounds, &y.seat_rounds),
                (&mut x.seat_matches, &y.seat_matches),
                (&mut x.positions, &y.positions),
                (&mut x.strategy_rounds, &y.strategy_rounds),
                (&mut x.strategy_matches, &y.strategy_matches),
            ] {
                (xs.len() == ys.len()).then_some(())?;
                for (p, q) in xs.iter_mut().zip(ys) {
                    add128(&mut p.yy, q.yy)?;
                    add128(&mut p.xy, q.xy)?;
                }
            }
            // The per-round means' sums: absent from earlier versions'
            // states, and then absent from the merge.
            for (xs, ys) in [
                (&mut x.turns, &y.turns),
                (&mut x.cards_drawn, &y.cards_drawn),
                (&mut x.blocked, &y.blocked),
                (&mut x.truncated, &y.truncated),
                (&mut x.uno_penalties, &y.uno_penalties),
            ] {
                match (xs.as_mut(), ys) {
                    (Some(p), Some(q)) => {
                        add128(&mut p.yy, q.yy)?;
                        add128(&mut p.xy, q.xy)?;
                    }
                    _ => *xs = None,
                }
            }
            for (xs, ys) in [
                (&mut x.strategy_points, &y.strategy_points),
                (&mut x.strategy_match_points, &y.strategy_match_points),
            ] {
                match (xs.as_mut(), ys) {
                    (Some(ps), Some(qs)) => {
                        (ps.len() == qs.len()).then_some(())?;
                        for (p, q) in ps.iter_mut().zip(qs) {
                            add128(&mut p.yy, q.yy)?;
                            add128(&mut p.xy, q.xy)?;
                        }
                    }
                    _ => *xs = None,
                }
            }
        }
        // Statistics without cluster sums make the whole unclustered.
        (Some(_), None) => *a = None,
        (None, _) => {}
    }
    Some(())
}

impl LockstepState {
    /// Checks a state read from a file (an experiment's saved state, a
    /// shard's) against the configuration `cfg` it claims to be of: its shape
    /// ([`LockstepState::same_shape`]), and each arm's statistics as
    /// [`RunStats::check`] does, with the games of `clusters` clusters.
    pub fn check(&self, cfg: &LockstepConfig) -> Result<(), String> {
        if !self.same_shape(&LockstepState::new(cfg)) {
            return Err("its statistics do not have the shape of its experiment".into());
        }
        for (a, arm) in self.arms.iter().zip(&cfg.arms) {
            let games = match arm.cfg.players as u64 {
                p if self.duplicate => self.clusters.checked_mul(p),
                _ => Some(self.clusters),
            };
            if games != Some(a.stats.games) {
                return Err(format!(
                    "arm '{}': its game count does not match its clusters",
                    a.label
                ));
            }
            a.stats
                .check(&arm.cfg)
                .and_then(|()| a.check_sums(&arm.cfg, self.clusters))
                .map_err(|e| format!("arm '{}': {e}", a.label))?;
        }
        // Clusters that differ between two arms are clusters played.
        let differ = self.comparisons.iter().flat_map(|c| &c.pairs);
        if differ
            .filter_map(|p| p.sums.differ)
            .any(|d| d > self.clusters)
        {
            return Err("it counts more clusters where two arms differ than it played".into());
        }
        Ok(())
    }

    /// As [`LockstepState::merge`] with checked arithmetic: `false`, and
    /// `self` unchanged, when the shapes differ or a sum would not fit.
    pub fn try_merge(&mut self, o: &LockstepState) -> bool {
        self.same_shape(o) && merged_or_unchanged(self, |t| t.merge_checked(o))
    }

    fn merge_checked(&mut self, o: &LockstepState) -> Option<()> {
        add(&mut self.clusters, o.clusters)?;
        let add_i = |a: &mut i128, b: i128| -> Option<()> {
            *a = a.checked_add(b)?;
            Some(())
        };
        for (a, b) in self.arms.iter_mut().zip(&o.arms) {
            a.stats.try_merge(&b.stats).then_some(())?;
            for (m, n) in a.metrics.iter_mut().zip(&b.metrics) {
                let (s, t) = (&mut m.sums, &n.sums);
                add_i(&mut s.y, t.y)?;
                add_i(&mut s.x, t.x)?;
                add_i(&mut s.yy, t.yy)?;
                add_i(&mut s.xx, t.xx)?;
                add_i(&mut s.xy, t.xy)?;
            }
        }
        for (a, b) in self.comparisons.iter_mut().zip(&o.comparisons) {
            for (p, q) in a.pairs.iter_mut().zip(&b.pairs) {
                let (s, t) = (&mut p.sums, &q.sums);
                add_i(&mut s.ya_yb, t.ya_yb)?;
                add_i(&mut s.ya_xb, t.ya_xb)?;
                add_i(&mut s.xa_yb, t.xa_yb)?;
                add_i(&mut s.xa_xb, t.xa_xb)?;
                s.differ = match (s.differ, t.differ) {
                    (Some(a), Some(b)) => Some(a.checked_add(b)?),
                    _ => None,
                };
            }
        }
        Some(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agents::StrategySpec;
    use crate::engine::rules::Rules;
    use std::sync::atomic::AtomicBool;

    fn played(mode: Mode, games: u64) -> (RunConfig, RunStats) {
        played_by(3, mode, games)
    }

    fn played_by(players: usize, mode: Mode, games: u64) -> (RunConfig, RunStats) {
        let lineup = [
            StrategySpec::load("points").unwrap(),
            StrategySpec::load("random").unwrap(),
        ];
        let cfg = RunConfig::builder(Rules::builtin("classic"), players, &lineup)
            .games(games)
            .mode(mode)
            .seed(9)
            .build()
            .unwrap();
        let out = crate::sim::runner::run(&cfg, &AtomicBool::new(false), &|_| {}).unwrap();
        (cfg, out.stats)
    }

    #[test]
    fn played_statistics_pass_and_edited_ones_do_not() {
        for mode in [Mode::Round, Mode::Match] {
            let (cfg, st) = played(mode, 30);
            assert_eq!(st.check(&cfg), Ok(()));
            let shape =
                Err("its statistics do not have the shape of its configuration".to_string());
            let sums = Err("its statistics do not add up".to_string());
            let mut e = st.clone();
            e.seats.pop();
            assert_eq!(e.check(&cfg), shape);
            let mut e = st.clone();
            e.turns = Histogram::new(7);
            assert_eq!(e.check(&cfg), shape);
            let mut e = st.clone();
            e.won += 1;
            e.rounds += 1;
            assert_eq!(e.check(&cfg), sums);
            let mut e = st.clone();
            e.position_wins[0] += 1;
            assert_eq!(e.check(&cfg), sums);
            let mut e = st.clone();
            e.uno_penalties_per_round.add_n(u64::MAX, u64::MAX);
            assert_eq!(e.check(&cfg), sums);
        }
    }

    #[test]
    fn a_merge_that_overflows_is_refused_and_changes_nothing() {
        let (cfg, st) = played(Mode::Round, 10);
        let mut a = st.clone();
        a.games = u64::MAX;
        let mut b = st.clone();
        assert!(!b.try_merge(&a));
        assert_eq!(b, st);
        // Without overflow, try_merge is merge.
        let mut m = st.clone();
        m.merge(&st);
        assert!(b.try_merge(&st));
        assert_eq!(b, m);
        assert_eq!(b.check(&cfg), Ok(()));
        // Other shapes are not merged.
        let (_, other) = played_by(4, Mode::Round, 10);
        let mut c = st.clone();
        assert!(!c.try_merge(&other));
        assert_eq!(c, st);
    }

    /// Every count a merge should add is added: statistics whose every
    /// number is made non-zero, merged with themselves, have every number
    /// doubled but the shape's (players, a strategy's seats, a histogram's
    /// values). A field left out of the merge fails here.
    #[test]
    fn a_merge_adds_every_count() {
        use serde_json::Value;
        fn bump(v: &mut Value, key: &str) {
            match v {
                Value::Object(m) => m.iter_mut().for_each(|(k, x)| bump(x, k)),
                Value::Array(a) => a.iter_mut().for_each(|x| bump(x, key)),
                Value::Number(n) if !matches!(key, "players" | "seats") => {
                    *v = Value::from(n.as_u64().unwrap() + 1)
                }
                _ => {}
            }
        }
        fn doubled(a: &Value, m: &Value, key: &str) {
            match (a, m) {
                (Value::Object(x), Value::Object(y)) => {
                    assert_eq!(x.len(), y.len(), "{key}: {x:?} vs {y:?}");
                    for (k, v) in x {
                        doubled(v, &y[k], k);
                    }
                }
                (Value::Array(x), Value::Array(y)) => {
                    assert_eq!(x.len(), y.len(), "{key}");
                    x.iter().zip(y).for_each(|(p, q)| doubled(p, q, key));
                }
                (Value::Number(p), Value::Number(q)) => {
                    let (p, q) = (p.as_u64().unwrap(), q.as_u64().unwrap());
                    let want = if matches!(key, "players" | "seats") {
                        p
                    } else {
                        2 * p
                    };
                    assert_eq!(q, want, "{key}");
                }
                _ => assert_eq!(a, m, "{key}"),
            }
        }
        let file = crate::engine::rules::RuleSetFile::resolve(
            "classic",
            &["scoring=penalty".to_string()],
            &[],
        )
        .unwrap();
        let penalty = Rules::build(file).unwrap();
        for (mode, duplicate, rules) in [
            (Mode::Match, false, Rules::builtin("classic")),
            (Mode::Round, true, penalty.clone()),
            (Mode::Round, false, penalty),
        ] {
            let lineup = [
                StrategySpec::load("points").unwrap(),
                StrategySpec::load("random").unwrap(),
            ];
            let cfg = RunConfig::builder(rules, 3, &lineup)
                .games(12)
                .mode(mode)
                .seed(7)
                .duplicate(duplicate)
                .build()
                .unwrap();
            let clustered = RunStats::new(&cfg).clusters.is_some();
            assert_eq!(clustered, duplicate || mode == Mode::Match);
            let st = crate::sim::runner::run(&cfg, &AtomicBool::new(false), &|_| {})
                .unwrap()
                .stats;
            // Histograms serialize their counts by value: every count and
            // sum made non-zero, the values kept.
            let mut v = serde_json::to_value(&st).unwrap();
            bump(&mut v, "");
            let x: RunStats = serde_json::from_value(v).unwrap();
            let mut m = x.clone();
            m.merge(&x);
            doubled(
                &serde_json::to_value(&x).unwrap(),
                &serde_json::to_value(&m).unwrap(),
                "",
            );
        }
    }

    #[test]
    fn histogram_moments_and_merges_are_checked() {
        let mut h = Histogram::new(4);
        h.add_n(2, 3);
        h.add_n(1 << 62, 2);
        let (n, sum, sum_sq) = h.checked_moments().unwrap();
        assert_eq!((n, sum, sum_sq), (5, 6 + (1 << 63), 12 + (1 << 125)));
        // Doubled twice it holds 8 x (2^62)^2 = 2^127; a third time, 2^128:
        // refused.
        let mut g = h.clone();
        for _ in 0..2 {
            assert!(g.try_merge(&g.clone()));
        }
        assert_eq!(g.checked_moments().unwrap().0, 20);
        let before = g.clone();
        assert!(!g.try_merge(&before));
        assert_eq!(g, before);
        assert!(!h.try_merge(&Histogram::new(5)), "another cap");
        // A count past u64 is refused.
        let mut a = Histogram::new(4);
        a.add_n(1, u64::MAX);
        let b = a.clone();
        assert!(!a.try_merge(&b));
        assert_eq!(a, b);
    }
}
