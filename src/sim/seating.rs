//! Seating: which strategy of the line-up sits at which seat in each game.
//!
//! Neighbours matter in UNO (a strategy's left-hand neighbour is the one its
//! Skips and Draw Twos hit), so a seating that keeps the line-up's order makes
//! a strategy's results depend on the order the line-up was typed in:
//! rotating `points,color,random,first` keeps `color` after `points` in every
//! game. The default seating, [`Seating::Mixed`], seats every game with an
//! *arrangement* of the line-up (a permutation of its multiset: `points,color,
//! points,color` has 4!/(2!·2!) = 6) chosen from the game's index alone:
//!
//! - when the line-up has at most [`CYCLE_LIMIT`] (5,040 = 7!) distinct
//!   arrangements, game `i` takes arrangement `i mod count` of a fixed
//!   enumeration, so every arrangement is played equally often in each
//!   complete cycle of `count` games. The enumeration steps through the
//!   lexicographic list of the arrangements with a stride near `count/φ`
//!   (coprime with `count`), so that a run shorter than one cycle still
//!   spreads its games over the arrangements (about as evenly as random
//!   draws would) instead of taking the first ones in lexicographic order,
//!   which all start with the same strategies;
//! - with more arrangements (8 or more players of several strategies), game
//!   `i` takes a uniformly random arrangement drawn from its own generator
//!   ([`seating_rng`], a stream of the game's seed apart from the table's and
//!   the strategies', so seating draws never shift a deal).
//!
//! The arrangements are enumerated from the line-up sorted by strategy name,
//! so two typings of the same line-up (the same strategies, each on the same
//! number of seats) play exactly the same games with the same strategy at
//! each seat, and give the same per-strategy results. With duplicate play the
//! *deal* `d` takes arrangement `d` and is played once per rotation of it.
//! Everything depends on the seed and the game (deal) index alone, so the
//! seating of a game is the same on any thread count and shard split.
//!
//! [`Seating::Rotate`] (game `i` seats the line-up rotated by `i mod players`:
//! every strategy at every seat, always the same neighbours) and
//! [`Seating::Fixed`] (the line-up as typed in every game) stay available.

use crate::engine::rng::{below, seating_rng};
use serde::{Deserialize, Serialize};

/// How the strategies of a line-up are seated game after game.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Seating {
    /// Every game an arrangement of the line-up: all of them in a cycle when
    /// there are at most [`CYCLE_LIMIT`], a random one per game otherwise.
    #[default]
    Mixed,
    /// Game `i` seats the line-up rotated by `i mod players`.
    Rotate,
    /// The line-up as typed, in every game.
    Fixed,
}

/// The names `--seating` and experiment files take.
pub const SEATING_NAMES: [&str; 3] = ["mixed", "rotate", "fixed"];

impl Seating {
    pub fn name(self) -> &'static str {
        match self {
            Seating::Mixed => "mixed",
            Seating::Rotate => "rotate",
            Seating::Fixed => "fixed",
        }
    }

    /// The seating of a name (`mixed`, `rotate` or `fixed`).
    pub fn parse(name: &str) -> Option<Seating> {
        match name {
            "mixed" => Some(Seating::Mixed),
            "rotate" => Some(Seating::Rotate),
            "fixed" => Some(Seating::Fixed),
            _ => None,
        }
    }

    /// What the seating does, in a few words, for headers and reports.
    pub fn describe(self) -> &'static str {
        match self {
            Seating::Mixed => "every arrangement of the line-up in turn",
            Seating::Rotate => "the line-up rotated one seat per game",
            Seating::Fixed => "the line-up as given in every game",
        }
    }
}

/// The most arrangements a line-up may have to be cycled; with more, each
/// game draws one at random. 5,040 = 7!: seven different strategies at seven
/// seats are still cycled, eight at eight (40,320) are drawn.
pub const CYCLE_LIMIT: u64 = 5040;

/// The number of distinct arrangements of a multiset with these
/// multiplicities: `n! / Π m_i!` (at most 10! for 10 seats).
pub fn arrangement_count(multiplicities: &[usize]) -> u64 {
    let mut count: u64 = 1;
    let mut placed: u64 = 0;
    for &m in multiplicities {
        // Multiply by C(placed + m, m), one factor at a time: exact, since
        // each partial product is itself a binomial coefficient.
        for j in 1..=m as u64 {
            placed += 1;
            count = count * placed / j;
        }
    }
    count
}

/// The arrangements of one line-up, and the one each game (deal) takes.
#[derive(Clone, Debug)]
pub struct Arrangements {
    players: usize,
    /// The line-up sorted by strategy name, as strategy indices.
    canon: Vec<u8>,
    /// Arrangements in the cycle (0 when they are drawn at random).
    count: usize,
    /// The cycle: `count` arrangements of `players` strategy indices each,
    /// in cycle order.
    cycle: Vec<u8>,
}

impl Arrangements {
    /// The arrangements of `lineup`, a strategy index per seat, where
    /// `names[k]` is strategy `k`'s name.
    pub fn new(lineup: &[usize], names: &[String]) -> Arrangements {
        let players = lineup.len();
        let mut canon: Vec<u8> = lineup.iter().map(|&k| k as u8).collect();
        canon.sort_by(|a, b| names[*a as usize].cmp(&names[*b as usize]));
        let mut mult: Vec<usize> = Vec::new();
        for (i, k) in canon.iter().enumerate() {
            if i > 0 && canon[i - 1] == *k {
                *mult.last_mut().unwrap_or(&mut 0) += 1;
            } else {
                mult.push(1);
            }
        }
        let total = arrangement_count(&mult);
        let mut a = Arrangements {
            players,
            canon,
            count: 0,
            cycle: Vec::new(),
        };
        if total <= CYCLE_LIMIT {
            let count = total as usize;
            // Every distinct arrangement in lexicographic order (of the
            // canonical ranks, so the order of the names).
            let mut lex: Vec<Vec<u8>> = Vec::with_capacity(count);
            // Work on ranks: the place in the sorted line-up of the first
            // seat holding the same strategy, so equal strategies compare
            // equal; the sorted ranks are the first arrangement.
            let mut cur: Vec<u8> = (0..players)
                .map(|i| {
                    let k = a.canon[i];
                    a.canon.iter().position(|&c| c == k).unwrap_or(i) as u8
                })
                .collect();
            loop {
                lex.push(cur.clone());
                if !next_permutation(&mut cur) {
                    break;
                }
            }
            debug_assert_eq!(lex.len(), count);
            let stride = stride(count);
            a.cycle = Vec::with_capacity(count * players);
            for i in 0..count {
                let arr = &lex[(i * stride) % count];
                a.cycle.extend(arr.iter().map(|&r| a.canon[r as usize]));
            }
            a.count = count;
        }
        a
    }

    /// Distinct arrangements in the cycle, or `None` when each game draws
    /// one at random.
    pub fn cycle_len(&self) -> Option<usize> {
        (self.count > 0).then_some(self.count)
    }

    /// Writes into `out` (a strategy index per seat) the arrangement of game
    /// (deal) `index` of master seed `seed`. `pos` is where `index` falls in
    /// the cycle when the caller knows it (`index mod count`), else `None`.
    #[inline]
    pub fn get(&self, seed: u64, index: u64, pos: Option<usize>, out: &mut [u8]) {
        let n = self.players;
        if self.count > 0 {
            let k = pos.unwrap_or((index % self.count as u64) as usize);
            out[..n].copy_from_slice(&self.cycle[k * n..(k + 1) * n]);
        } else {
            // Fisher-Yates on the sorted line-up: each of the n! orders is
            // equally likely, so each distinct arrangement is too.
            out[..n].copy_from_slice(&self.canon);
            let mut rng = seating_rng(seed, index);
            for i in (1..n).rev() {
                let j = below(&mut rng, i as u32 + 1) as usize;
                out.swap(i, j);
            }
        }
    }
}

/// The stride of the cycle through `count` arrangements: the integer nearest
/// `count/φ` that is coprime with `count` (searched outward), so that the
/// cycle visits every arrangement once and any stretch of it is spread over
/// the lexicographic list.
fn stride(count: usize) -> usize {
    if count <= 2 {
        return 1;
    }
    let target = (count as f64 * 0.618_033_988_749_895).round() as usize;
    for d in 0..count {
        for s in [target + d, target.wrapping_sub(d)] {
            if s > 0 && s < count && gcd(s, count) == 1 {
                return s;
            }
        }
    }
    1
}

fn gcd(mut a: usize, mut b: usize) -> usize {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// The next permutation in lexicographic order (equal values allowed);
/// false (and `v` unchanged) when `v` is the last.
fn next_permutation(v: &mut [u8]) -> bool {
    let n = v.len();
    if n < 2 {
        return false;
    }
    let mut i = n - 1;
    while i > 0 && v[i - 1] >= v[i] {
        i -= 1;
    }
    if i == 0 {
        return false;
    }
    let mut j = n - 1;
    while v[j] <= v[i - 1] {
        j -= 1;
    }
    v.swap(i - 1, j);
    v[i..].reverse();
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    fn names(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn counts_of_multisets() {
        assert_eq!(arrangement_count(&[1, 1, 1, 1]), 24);
        assert_eq!(arrangement_count(&[2, 2]), 6);
        assert_eq!(arrangement_count(&[4]), 1);
        assert_eq!(arrangement_count(&[1; 7]), 5040);
        assert_eq!(arrangement_count(&[1; 10]), 3_628_800);
        // 10 seats of a, b, c, d cycled: a b c d a b c d a b.
        assert_eq!(arrangement_count(&[3, 3, 2, 2]), 25_200);
    }

    #[test]
    fn the_cycle_holds_every_arrangement_once() {
        for lineup in [
            vec![0usize, 1, 0, 1],
            vec![0, 1, 2, 3],
            vec![0, 1, 2],
            vec![0, 0, 0],
            vec![2, 1, 0, 2, 1, 0],
            vec![0, 1, 2, 3, 4, 5, 6],
        ] {
            let k = lineup.iter().max().unwrap() + 1;
            let nm: Vec<String> = (0..k).map(|i| format!("s{i}")).collect();
            let a = Arrangements::new(&lineup, &nm);
            let count = a.cycle_len().unwrap();
            let mut seen = HashSet::new();
            let mut out = vec![0u8; lineup.len()];
            for i in 0..count as u64 {
                a.get(1, i, None, &mut out);
                let mut sorted = out.clone();
                sorted.sort_unstable();
                let mut want: Vec<u8> = lineup.iter().map(|&x| x as u8).collect();
                want.sort_unstable();
                assert_eq!(sorted, want, "an arrangement of the line-up");
                assert!(seen.insert(out.clone()), "{lineup:?}: {out:?} twice");
                // The cycle repeats.
                let mut again = vec![0u8; lineup.len()];
                a.get(1, i + count as u64, None, &mut again);
                assert_eq!(again, out);
            }
            let mult: Vec<usize> = (0..k)
                .map(|s| lineup.iter().filter(|&&x| x == s).count())
                .collect();
            assert_eq!(count as u64, arrangement_count(&mult));
        }
    }

    #[test]
    fn the_arrangements_do_not_depend_on_the_typing_order() {
        // points, color, random, first typed in two orders: strategy k of a
        // typing is the k-th distinct name of that typing.
        let a = names(&["points", "color", "random", "first"]);
        let b = names(&["first", "random", "points", "color"]);
        let (aa, ab) = (
            Arrangements::new(&[0, 1, 2, 3], &a),
            Arrangements::new(&[0, 1, 2, 3], &b),
        );
        // Eight distinct strategies: random arrangements, the same by name too.
        let c8 = names(&["a", "b", "c", "d", "e", "f", "g", "h"]);
        let mut r8 = c8.clone();
        r8.reverse();
        let idx: Vec<usize> = (0..8).collect();
        let (ra, rb) = (Arrangements::new(&idx, &c8), Arrangements::new(&idx, &r8));
        assert_eq!(ra.cycle_len(), None);
        let mut x = [0u8; 8];
        let mut y = [0u8; 8];
        for i in 0..200 {
            aa.get(9, i, None, &mut x[..4]);
            ab.get(9, i, None, &mut y[..4]);
            let by_name = |o: &[u8], nm: &[String]| -> Vec<String> {
                o.iter().map(|&k| nm[k as usize].clone()).collect()
            };
            assert_eq!(by_name(&x[..4], &a), by_name(&y[..4], &b));
            ra.get(9, i, None, &mut x);
            rb.get(9, i, None, &mut y);
            assert_eq!(by_name(&x, &c8), by_name(&y, &r8));
        }
    }

    #[test]
    fn random_arrangements_are_uniform_and_seeded_by_the_game() {
        // 8 distinct strategies: 40,320 arrangements, drawn. Each strategy
        // sits at seat 0 in about 1/8 of the games, and a game's arrangement
        // depends on the seed and its index alone.
        let nm: Vec<String> = (0..8).map(|i| format!("s{i}")).collect();
        let idx: Vec<usize> = (0..8).collect();
        let a = Arrangements::new(&idx, &nm);
        let mut at0 = [0u32; 8];
        let mut out = [0u8; 8];
        let games = 16_000;
        for i in 0..games {
            a.get(5, i, None, &mut out);
            at0[out[0] as usize] += 1;
        }
        // Binomial(16000, 1/8): mean 2000, sd 41.8; 5 sd either side.
        for c in at0 {
            assert!((1790..=2210).contains(&c), "{at0:?}");
        }
        let mut again = [0u8; 8];
        a.get(5, 123, None, &mut out);
        a.get(5, 123, None, &mut again);
        assert_eq!(out, again);
        a.get(6, 123, None, &mut again);
        assert_ne!(
            out, again,
            "another seed, another arrangement (almost surely)"
        );
    }

    #[test]
    fn a_short_run_spreads_over_the_cycle() {
        // Six different strategies: 720 arrangements. The first 120 games
        // (a sixth of the cycle) seat each strategy at seat 0 in about 20
        // of them, within 3.29 standard deviations of what independent
        // uniform draws would give (binomial: 20 ± 13), and every ordered
        // pair of neighbours (seat s, seat s + 1) occurs. The lexicographic
        // order would seat the same strategy at seat 0 in all 120.
        let nm: Vec<String> = (0..6).map(|i| format!("s{i}")).collect();
        let idx: Vec<usize> = (0..6).collect();
        let a = Arrangements::new(&idx, &nm);
        let mut at0 = [0u32; 6];
        let mut pairs = [[0u32; 6]; 6];
        let mut out = [0u8; 6];
        for i in 0..120 {
            a.get(0, i, None, &mut out);
            at0[out[0] as usize] += 1;
            for s in 0..6 {
                pairs[out[s] as usize][out[(s + 1) % 6] as usize] += 1;
            }
        }
        for c in at0 {
            assert!((7..=33).contains(&c), "{at0:?}");
        }
        for (x, row) in pairs.iter().enumerate() {
            for (y, &c) in row.iter().enumerate() {
                if x != y {
                    assert!(c > 0, "{pairs:?}");
                }
            }
        }
    }

    #[test]
    fn permutations_in_order() {
        let mut v = vec![0u8, 0, 1];
        let mut all = vec![v.clone()];
        while next_permutation(&mut v) {
            all.push(v.clone());
        }
        assert_eq!(all, vec![vec![0, 0, 1], vec![0, 1, 0], vec![1, 0, 0]]);
        assert_eq!(stride(24), 17);
        assert_eq!(gcd(stride(720), 720), 1);
        assert_eq!(gcd(stride(5040), 5040), 1);
    }
}
