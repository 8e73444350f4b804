//! The runner against a bare-bones reference, measured alternately in one process.
//!
//! `cargo bench --bench reference` plays 4-player classic rounds with a random
//! player in every seat two ways, in alternating samples of 2,000 rounds:
//!
//! - the real runner (`sim::play_games`: pluggable strategies behind
//!   `dyn Strategy`, observations, every rule check, statistics on);
//! - a bare-bones `u128` loop written for speed alone: one function, no
//!   strategies, no statistics, no UNO calls, no turn limits; it plays the same
//!   deck with the same draw, play and effect rules and the same generators.
//!
//! The issue that set the speed target measured such a prototype at about
//! 1,000,000 rounds per second here and asked for 600,000 from the real
//! runner, 60% of it. On a shared host whose speed swings by a third, the ratio
//! of neighbouring samples is the steady figure.

use std::hint::black_box;
use std::time::Instant;
use unolab::agents::StrategySpec;
use unolab::engine::game::below;
use unolab::engine::rules::Rules;
use unolab::sim::{play_games, RunConfig, RunStats};
use unolab::Rng;

#[path = "compare/paired.rs"]
mod paired;

const GAMES: u64 = 2000;

#[inline(always)]
fn nth(mut x: u128, k: u32) -> u32 {
    for _ in 0..k {
        x &= x - 1;
    }
    x.trailing_zeros()
}

const NUMBER: u8 = 0;
const SKIP: u8 = 1;
const REVERSE: u8 = 2;
const DRAW2: u8 = 3;
const WD4: u8 = 5;

/// The classic deck as flat tables.
struct Deck {
    effect: [u8; 128],
    color: [u8; 128],
    points: [u8; 128],
    /// The cards playable on each coloured card.
    accept_on: [u128; 128],
    /// The cards of each coloured card's colour.
    same: [u128; 128],
    color_mask: [u128; 4],
    wild: u128,
    wd4: u128,
}

fn deck() -> Deck {
    let mut d = Deck {
        effect: [NUMBER; 128],
        color: [4; 128],
        points: [0; 128],
        accept_on: [0; 128],
        same: [0; 128],
        color_mask: [0; 4],
        wild: 0,
        wd4: 0,
    };
    let mut face = [0u8; 128];
    let mut id = 0;
    for c in 0..4u8 {
        for f in 0..13u8 {
            for _ in 0..if f == 0 { 1 } else { 2 } {
                d.color[id] = c;
                face[id] = f;
                d.effect[id] = match f {
                    10 => SKIP,
                    11 => REVERSE,
                    12 => DRAW2,
                    _ => NUMBER,
                };
                d.points[id] = if f < 10 { f } else { 20 };
                d.color_mask[c as usize] |= 1 << id;
                id += 1;
            }
        }
    }
    for w in 0..8 {
        d.effect[id] = if w < 4 { 4 } else { WD4 };
        face[id] = if w < 4 { 13 } else { 14 };
        d.points[id] = 50;
        d.wild |= 1 << id;
        if w >= 4 {
            d.wd4 |= 1 << id;
        }
        id += 1;
    }
    assert_eq!(id, 108);
    for i in 0..108 {
        if d.color[i] < 4 {
            let same_face: u128 = (0..108)
                .filter(|&j| face[j] == face[i])
                .fold(0, |m, j| m | 1 << j);
            d.same[i] = d.color_mask[d.color[i] as usize];
            d.accept_on[i] = d.same[i] | same_face | d.wild;
        }
    }
    d
}

/// Draws a uniformly random card of the unordered pile, reshuffling the
/// discard pile (all but the top) into it when it is empty.
#[inline(always)]
fn take(
    rng: &mut Rng,
    pile: &mut [u8; 128],
    len: &mut usize,
    discard: &mut u128,
    top: u8,
) -> Option<u8> {
    if *len == 0 {
        let mut rest = *discard & !(1u128 << top);
        while rest != 0 {
            pile[*len] = rest.trailing_zeros() as u8;
            *len += 1;
            rest &= rest - 1;
        }
        *discard = 1 << top;
        if *len == 0 {
            return None;
        }
    }
    let j = below(rng, *len as u32) as usize & 127;
    let c = pile[j];
    *len -= 1;
    pile[j] = pile[*len & 127];
    Some(c)
}

/// One round; returns the winner's points.
fn bare_round(d: &Deck, rng: &mut Rng, arng: &mut Rng) -> u32 {
    let mut pile = [0u8; 128];
    for (i, c) in pile.iter_mut().enumerate().take(108) {
        *c = i as u8;
    }
    let mut len = 108usize;
    let mut discard = 0u128;
    let mut hands = [0u128; 4];
    for i in 0..28 {
        let c = take(rng, &mut pile, &mut len, &mut discard, 0).unwrap();
        hands[i % 4] |= 1 << c;
    }
    let mut top;
    loop {
        let c = take(rng, &mut pile, &mut len, &mut discard, 0).unwrap();
        if d.wd4 >> c & 1 == 1 {
            pile[len] = c;
            len += 1;
            continue;
        }
        top = c;
        break;
    }
    discard |= 1 << top;
    let (mut accept, mut same) = if d.color[top as usize] < 4 {
        (d.accept_on[top as usize], d.same[top as usize])
    } else {
        let col = below(arng, 4) as usize;
        (d.color_mask[col] | d.wild, d.color_mask[col])
    };
    let mut p = 1usize;
    let mut dir = 1usize;
    let next = |p: usize, dir: usize| (p + dir) & 3;
    loop {
        let hand = hands[p];
        let forbidden = if hand & same != 0 { d.wd4 } else { 0 };
        let playable = hand & accept & !forbidden;
        let k = playable.count_ones();
        let c = if k > 0 {
            nth(playable, below(arng, k)) as u8
        } else {
            match take(rng, &mut pile, &mut len, &mut discard, top) {
                Some(x) => {
                    hands[p] |= 1 << x;
                    if (accept & !forbidden) >> x & 1 == 0 {
                        p = next(p, dir);
                        continue;
                    }
                    x
                }
                None => {
                    p = next(p, dir);
                    continue;
                }
            }
        };
        hands[p] &= !(1u128 << c);
        discard |= 1 << c;
        top = c;
        let ci = c as usize & 127;
        if d.color[ci] < 4 {
            accept = d.accept_on[ci];
            same = d.same[ci];
        } else {
            let col = below(arng, 4) as usize;
            accept = d.color_mask[col] | d.wild;
            same = d.color_mask[col];
        }
        if hands[p] == 0 {
            return hands
                .iter()
                .map(|&h| {
                    let (mut r, mut pts) = (h, 0);
                    while r != 0 {
                        pts += d.points[r.trailing_zeros() as usize] as u32;
                        r &= r - 1;
                    }
                    pts
                })
                .sum();
        }
        let q = next(p, dir);
        p = match d.effect[ci] {
            SKIP => next(q, dir),
            REVERSE => {
                dir = 4 - dir;
                next(p, dir)
            }
            DRAW2 | WD4 => {
                let k = if d.effect[ci] == DRAW2 { 2 } else { 4 };
                for _ in 0..k {
                    if let Some(x) = take(rng, &mut pile, &mut len, &mut discard, top) {
                        hands[q] |= 1 << x;
                    }
                }
                next(q, dir)
            }
            _ => q,
        };
    }
}

fn main() {
    // `cargo bench` passes --bench; a number sets the sample count.
    let samples: usize = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(300);
    let d = deck();
    let cfg = RunConfig::builder(Rules::builtin("classic"), 4, &[StrategySpec::Random])
        .games(GAMES)
        .seed(7)
        .build()
        .unwrap();
    let mut round = 0u64;
    paired::run(
        samples,
        GAMES,
        ["bare-bones loop", "real runner"],
        "runner / bare-bones",
        || {
            let start = Instant::now();
            for _ in 0..GAMES {
                let (mut t, mut a) = unolab::engine::game::game_rngs(7, round);
                round += 1;
                black_box(bare_round(&d, &mut t, &mut a));
            }
            start.elapsed().as_secs_f64()
        },
        || {
            let mut stats = RunStats::new(&cfg);
            let start = Instant::now();
            play_games(&cfg, 0..GAMES, &mut stats).unwrap();
            let t = start.elapsed().as_secs_f64();
            assert_eq!(stats.rounds, GAMES);
            t
        },
    );
}
