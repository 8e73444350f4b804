//! A custom strategy in Rust, seated in a tournament against the built-ins.
//!
//! `sniper` stays in the colour it holds most, saves its wilds, and fires its
//! Skips and draw cards when the next player is down to two cards or fewer. To
//! name a colour it looks at what the next player might hold: it deals the
//! cards it cannot see at random many times (`Game::determinize`, the hook a
//! search agent would use) and avoids the colours the next player is likely to
//! have.
//!
//! Run: `cargo run --release --example sniper [-- GAMES]`

use std::sync::atomic::AtomicBool;
use unolab::engine::rules::Effect;
use unolab::lab::tournament::{self, TournamentConfig};
use unolab::lab::Entrant;
use unolab::report::tournament::TournamentReport;
use unolab::StrategySpec;
use unolab::{CardId, CardSet, Color, Game, Observation, Rng, RuleSetFile, Rules, Seat, Strategy};

/// The strategy's state: only its parameters (a strategy must not carry
/// anything from one round to the next, so results do not depend on threads).
struct Sniper {
    /// Determinizations per colour choice.
    samples: u32,
}

impl Strategy for Sniper {
    fn name(&self) -> &str {
        "sniper"
    }

    // Nothing to decide when nothing is playable: the engine draws for us.
    fn ask_without_choice(&self) -> bool {
        false
    }

    fn choose_play(&mut self, obs: &Observation, playable: CardSet, _: &mut Rng) -> Option<CardId> {
        let deck = &obs.rules().deck;
        let hand = obs.hand();
        let next_low = obs.hand_size(obs.seat_after(1) as usize) <= 2;
        // The highest score wins; `max_by_key` keeps the last of equal scores,
        // which is deterministic (cards iterate in id order).
        playable.iter().max_by_key(|&c| {
            let attack = matches!(
                deck.effect_of[c as usize],
                Effect::Skip | Effect::Draw2 | Effect::WildDraw4
            );
            let mut score = deck.points_of[c as usize] as i64;
            match deck.color(c) {
                // Cards of the same colour kept after this play.
                Some(col) => score += 10 * (hand & deck.color_mask[col.index()]).len() as i64,
                // Save wilds until the hand is nearly empty.
                None if hand.len() > 2 => score -= 1000,
                None => {}
            }
            if next_low && attack {
                score += 10_000;
            }
            score
        })
    }

    fn choose_color(&mut self, obs: &Observation, rng: &mut Rng) -> Color {
        let deck = &obs.rules().deck;
        let next = obs.seat_after(1) as usize;
        // How often, over random deals of the unseen cards, the next player
        // holds a card of each colour.
        let mut holds = [0u32; 4];
        for _ in 0..self.samples {
            let g = Game::determinize(obs, rng);
            for c in Color::ALL {
                if !(g.hand(next) & deck.color_mask[c.index()]).is_empty() {
                    holds[c.index()] += 1;
                }
            }
        }
        // Prefer colours we hold, avoid colours the next player likely holds.
        let hand = obs.hand();
        let score = |c: Color| {
            4 * (hand & deck.color_mask[c.index()]).len() as i64 * self.samples as i64
                - 3 * holds[c.index()] as i64
        };
        Color::ALL
            .into_iter()
            .max_by_key(|&c| (score(c), -(c.index() as i64)))
            .unwrap_or(Color::Red)
    }
}

/// A bad argument or a failed tournament: one line on stderr, exit status 2.
fn main() -> std::process::ExitCode {
    match tournament_of_sniper() {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            std::process::ExitCode::from(2)
        }
    }
}

fn tournament_of_sniper() -> Result<(), Box<dyn std::error::Error>> {
    let games: u64 = match std::env::args().nth(1) {
        Some(s) => s
            .parse()
            .ok()
            .filter(|&g| g > 0)
            .ok_or_else(|| format!("'{s}' is not a game count (usage: sniper [GAMES], a positive integer; default 40000)"))?,
        None => 40_000,
    };
    let rules = Rules::build(RuleSetFile::resolve("classic", &[], &[])?)?;
    // The field: our strategy plus built-ins and presets by name.
    let mut entrants = vec![Entrant::new("sniper", || {
        Seat::custom(Sniper { samples: 16 })
    })];
    for name in ["points", "color", "cautious", "tuned"] {
        entrants.push(Entrant::from_spec(&StrategySpec::load(name)?));
    }
    let cfg = TournamentConfig {
        rules,
        players: 4,
        entrants,
        games,
        seed: 1,
        threads: 1,
        chunk: 1024,
        allow_oracle: false,
    };
    let start = std::time::Instant::now();
    let outcome = tournament::run(&cfg, &AtomicBool::new(false), &|_| {})?;
    let report = TournamentReport {
        cfg: &cfg,
        outcome: &outcome,
        elapsed_s: start.elapsed().as_secs_f64(),
        started_utc: String::new(),
    };
    print!("{}", report.to_text());
    Ok(())
}
