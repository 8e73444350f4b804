//! `unolab play`: a person takes a seat at the table in the terminal.
//!
//! The person is a [`Strategy`] that reads answers from standard input; a
//! [`Recorder`] turns the engine's events into the lines "since your last
//! turn" (others' drawn cards are shown as a count only) and prints the scores
//! at the end of each round. `--trace FILE` records the match in the trace
//! format; the file is written only when the match is over.

#[macro_use]
mod screen;
mod person;
mod watch;

use person::Human;
use screen::{on_interrupt, say, take, Log, Style, LOST};

use super::args::{load_rules, parse_players, parse_seed, RuleArgs};
use super::scaffold::{prepare_out_file, remove_created};
use super::term::Fail;
use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use unolab::agents::{self as strategy, Seat};
use unolab::engine::game::{game_rngs, Agents, DrawReason, Event, Game, Recorder};
use unolab::engine::trace::{match_end_line, match_line, TraceWriter};
use unolab::report::Cell;
use unolab::CardId;

#[derive(clap::Args)]
pub struct PlayArgs {
    #[command(flatten)]
    rules: RuleArgs,
    /// Number of players, 2 to 10 (you and the others)
    #[arg(short, long, default_value = "2", value_parser = parse_players, allow_hyphen_values = true)]
    players: usize,
    /// The others' strategies, comma separated (cycled to fill their seats)
    #[arg(short, long, default_value = "points")]
    strategies: String,
    /// Your seat (0 = the first seat)
    #[arg(long, default_value = "0", value_parser = parse_seat, allow_hyphen_values = true)]
    seat: usize,
    /// Seed of the shuffles and the others' choices (default: from the clock)
    #[arg(long, value_parser = parse_seed, allow_hyphen_values = true)]
    seed: Option<u64>,
    /// Write the match in the trace format (docs/trace.md) to FILE when it
    /// ends (missing folders are created)
    #[arg(long, value_name = "FILE")]
    trace: Option<PathBuf>,
    /// Replace an existing --trace file (refused without it)
    #[arg(long, requires = "trace")]
    force: bool,
}

/// The events as the person sees them, and the trace.
struct Table {
    style: Style,
    log: Log,
    /// The person left: print nothing more.
    gone: Arc<AtomicBool>,
    trace: Option<TraceWriter<Vec<u8>>>,
    drawn: Vec<CardId>,
    /// The last card drawn for a turn, and by whom: under `drawn_card =
    /// "rlcard"` a drawn wild is played at once with a colour at random.
    drawn_for_turn: Option<(u8, CardId)>,
}

impl Recorder for Table {
    fn on(&mut self, g: &Game, e: Event<'_>) {
        if let Some(t) = &mut self.trace {
            t.on(g, e);
        }
        let r = g.rules();
        let s = &self.style;
        let line = match e {
            Event::Deal { round, dealer } => format!(
                "round {round}: {} dealt {} cards each",
                s.who(dealer),
                g.rules().settings.hand_size
            ),
            Event::Flip { card, returned } => {
                if returned {
                    format!("{} was turned and went back into the pile", s.card(r, card))
                } else {
                    format!("start card: {}", s.card(r, card))
                }
            }
            Event::Color { player, color } => {
                format!("{} named {}", s.who(player), s.colour(color))
            }
            Event::Play {
                player,
                card,
                color,
                uno,
                jump_in,
                target,
            } => {
                let mut l = format!("{} played {}", s.who(player), s.card(r, card));
                let auto = r.settings.drawn_card == unolab::engine::rules::DrawnCard::Rlcard
                    && self.drawn_for_turn == Some((player, card));
                if r.deck.color(card).is_none() && auto {
                    // Nobody named it (drawn_card = "rlcard").
                    l += &format!(
                        " at once, with a colour drawn at random: {} (drawn_card = rlcard)",
                        s.colour(color)
                    );
                } else if r.deck.color(card).is_none() && g.hand(player as usize).is_empty() {
                    // The round ends: no colour counts (the person is not asked).
                    l += ", the last card";
                } else if r.deck.color(card).is_none() {
                    l += &format!(" and named {}", s.colour(color));
                }
                if jump_in {
                    l += " (jump-in)";
                }
                if let Some(t) = target {
                    l += &format!(", swapping hands with {}", s.who(t));
                }
                if uno {
                    l += ": UNO!";
                }
                l
            }
            Event::Draw { card, .. } => {
                self.drawn.push(card);
                return;
            }
            Event::DrawEnd { player, reason } => {
                let cards = std::mem::take(&mut self.drawn);
                self.drawn_for_turn = match (reason, cards.last()) {
                    (DrawReason::Turn | DrawReason::Match, Some(&c)) => Some((player, c)),
                    _ => None,
                };
                if cards.is_empty() {
                    return;
                }
                let why = match reason {
                    DrawReason::Turn | DrawReason::Match => String::new(),
                    r => format!(" ({})", r.name().replace('_', " ")),
                };
                if player == s.me {
                    let list: Vec<String> = cards.iter().map(|&c| s.card(r, c)).collect();
                    format!("you drew {}{why}", list.join(", "))
                } else {
                    let n = cards.len();
                    let plural = if n == 1 { "" } else { "s" };
                    format!("{} drew {n} card{plural}{why}", s.who(player))
                }
            }
            Event::Pass { player } => format!("{} passed", s.who(player)),
            Event::Skip { player } => format!("{} lost a turn", s.who(player)),
            Event::UnoCaught { player } => {
                format!("{} did not call UNO and got caught", s.who(player))
            }
            Event::Challenge {
                challenger,
                target,
                guilty,
            } => format!(
                "{} challenged {}: {}",
                s.who(challenger),
                s.who(target),
                if guilty { "guilty" } else { "not guilty" }
            ),
            Event::Swap { a, b } => format!("{} and {} swapped hands", s.who(a), s.who(b)),
            Event::Rotate { .. } => "every hand passed to the next player".to_string(),
            Event::Reshuffle => "the discard pile was shuffled into a new draw pile".to_string(),
            Event::Illegal { player, .. } => format!("{} made an illegal move", s.who(player)),
            Event::RoundEnd { result, totals } => {
                if self.gone.load(Ordering::Relaxed) {
                    return;
                }
                let mut out = String::new();
                for l in take(&self.log) {
                    out += &format!("  {l}\n");
                }
                let winner = match result.winner {
                    Some(w) if w == s.me => "you won the round".to_string(),
                    Some(w) => format!("{} won the round", s.who(w)),
                    None => format!("the round ended {}", result.outcome.name()),
                };
                out += &format!("\n== Round {} over: {winner}\n", result.round);
                for (p, total) in totals.iter().enumerate() {
                    out += &format!(
                        "   {:<24} {:>4} points this round, total {total}\n",
                        Cell(&s.who(p as u8)),
                        result.points[p],
                    );
                }
                sayln!("{out}");
                return;
            }
        };
        self.log
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(line);
    }
}

/// `--seat`: a seat number from 0 (the table's size is checked with the
/// player count).
fn parse_seat(s: &str) -> Result<usize, String> {
    s.parse::<usize>()
        .map_err(|_| format!("'{s}' is not a valid seat (valid: 0 to 9, 0 = the first seat)"))
}

pub fn exec(a: PlayArgs) -> Result<ExitCode, Fail> {
    let rules = load_rules(&a.rules)?;
    rules.check_players(a.players)?;
    if a.seat >= a.players {
        return Err(Fail(format!(
            "--seat {} is not a seat of a {}-player table (valid: 0 to {})",
            a.seat,
            a.players,
            a.players - 1
        )));
    }
    if let Some(why) = rules.settings.match_end_fault() {
        return Err(Fail(why.into()));
    }
    let others = strategy::parse_list(&a.strategies)?;
    if others.len() > a.players - 1 {
        return Err(Fail(format!(
            "{} strategies for the {} other {} (give at most one per seat; the list is cycled)",
            others.len(),
            a.players - 1,
            if a.players == 2 { "seat" } else { "seats" }
        )));
    }
    // An earlier trace is not replaced without --force; its folder is made
    // (with its parents) and checked writable before the match.
    let created = match &a.trace {
        Some(path) => prepare_out_file(path, "--trace", a.force)?,
        None => Vec::new(),
    };
    on_interrupt(created.clone(), a.trace.is_some());
    let seed = a.seed.unwrap_or_else(|| {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos() as u64)
            .unwrap_or(1)
    });
    let me = a.seat as u8;
    let mut names = Vec::new();
    let mut k = 0;
    for s in 0..a.players {
        if s == a.seat {
            names.push("human".to_string());
        } else {
            names.push(others[k % others.len()].name().to_string());
            k += 1;
        }
    }
    let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
    let style = Style {
        color: std::io::stdout().is_terminal() && !no_color,
        names: names.clone(),
        me,
    };
    let log: Log = Arc::new(Mutex::new(Vec::new()));
    let gone = Arc::new(AtomicBool::new(false));
    let broken: watch::Broken = Arc::new(Mutex::new(None));
    let mut seats: Vec<Seat> = Vec::new();
    k = 0;
    for s in 0..a.players {
        if s == a.seat {
            seats.push(Seat::custom(Human {
                style: style.clone(),
                log: log.clone(),
                gone: gone.clone(),
                left: None,
                broken: broken.clone(),
                playing: None,
            }));
        } else {
            // Watched: a broken program ends the game at the person's next
            // prompt, not after a round played against its defaults.
            seats.push(watch::watched(
                others[k % others.len()].instantiate(),
                s as u8,
                broken.clone(),
                gone.clone(),
            ));
            k += 1;
        }
    }
    let mut table = Table {
        drawn_for_turn: None,
        style: style.clone(),
        log,
        gone,
        trace: a.trace.as_ref().map(|_| TraceWriter::new(Vec::new())),
        drawn: Vec::new(),
    };
    if let Some(t) = &mut table.trace {
        t.line(&match_line(&rules, a.players, &names, seed));
    }
    sayln!(
        "unolab play: rules {}, {} players, you are seat {}, seed {seed}",
        rules.name,
        a.players,
        a.seat
    );
    let (table_rng, agent_rng) = game_rngs(seed, 0);
    let mut game = Game::with_rng(&rules, a.players, table_rng);
    let mut agents = Agents {
        seats: &mut seats,
        rng: agent_rng,
    };
    let result = match game.play_match(&mut agents, &mut table, |_| {}) {
        Ok(r) => r,
        // The person left (the programs they left are ended, so their
        // seats fault too, and the lowest seat's fault is the one the
        // engine reports).
        Err(e) if e.fault && (e.seat == me || table.gone.load(Ordering::Relaxed)) => {
            remove_created(&created);
            if let Some(lost) = LOST.get() {
                return Err(Fail(lost.clone()));
            }
            let failed = broken.lock().map(|b| b.clone()).unwrap_or_default();
            if let Some(why) = failed {
                return Err(Fail(why));
            }
            sayln!(
                "\nYou left the table in round {}{}.",
                e.round,
                if a.trace.is_some() {
                    "; no trace was written"
                } else {
                    ""
                }
            );
            return Ok(ExitCode::SUCCESS);
        }
        Err(e) => {
            remove_created(&created);
            return Err(Fail(e.to_string()));
        }
    };
    let mut out = String::from("== Match over: ");
    out += &match result.winner {
        Some(w) if w == me => "you won the match".to_string(),
        Some(w) => format!("{} won the match", style.who(w)),
        None => "a tie".to_string(),
    };
    let plural = if result.rounds == 1 { "" } else { "s" };
    out += &format!(" after {} round{plural}\n", result.rounds);
    for p in 0..a.players {
        out += &format!(
            "   {:<24} {:>4} points\n",
            Cell(&style.who(p as u8)),
            result.totals[p]
        );
    }
    say_!("{out}");
    if let (Some(path), Some(mut t)) = (a.trace, table.trace.take()) {
        t.line(&match_end_line(&result, a.players));
        let buf = t
            .finish()
            .map_err(|e| Fail(format!("cannot write the trace: {e}")))?;
        let dir = path
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .map(|d| d.to_path_buf())
            .unwrap_or_else(|| PathBuf::from("."));
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        unolab::report::write_files_atomically(
            &dir,
            &[(name.as_str(), String::from_utf8_lossy(&buf).into_owned())],
        )?;
        sayln!("trace written to {}", path.display());
    }
    match LOST.get() {
        Some(lost) => Err(Fail(lost.clone())),
        None => Ok(ExitCode::SUCCESS),
    }
}
