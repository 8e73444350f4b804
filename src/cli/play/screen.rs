//! The screen of `unolab play`: every write to standard output (a closed
//! or full output ends the game with one line, never a panic) and the end
//! of a match by Ctrl-C.

use crate::cli::scaffold::quit_at_interrupt;
use std::io::Write;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use unolab::{CardId, CardSet, Color, Rules};

/// Why the screen was lost: a write to standard output failed (closed, as
/// by `| head`, or full). The player is then taken to have left.
pub static LOST: std::sync::OnceLock<String> = std::sync::OnceLock::new();

/// Writes `s` to standard output; a failure is kept in [`LOST`] (nothing is
/// written after it), never a panic.
pub fn say(s: &str) {
    if LOST.get().is_some() {
        return;
    }
    let mut o = std::io::stdout().lock();
    if let Err(e) = o.write_all(s.as_bytes()).and_then(|_| o.flush()) {
        let _ = LOST.set(format!("cannot write to stdout: {e}"));
    }
}

/// [`say`] with `format!`'s arguments.
macro_rules! say_ {
    ($($t:tt)*) => { say(&format!($($t)*)) };
}

/// [`say`] with `format!`'s arguments and a newline.
macro_rules! sayln {
    ($($t:tt)*) => { say(&format!("{}\n", format_args!($($t)*))) };
}

/// Ctrl-C, SIGTERM or SIGHUP during a match ([`quit_at_interrupt`]): the
/// folders made for `--trace` removed, and the match left with a line that
/// says so (exit status 130).
pub fn on_interrupt(created: Vec<PathBuf>, tracing: bool) {
    let trace = if tracing {
        "; no trace was written"
    } else {
        ""
    };
    quit_at_interrupt(created, format!("\ninterrupted: you left the table{trace}"));
}

/// How cards and names are printed.
#[derive(Clone)]
pub(super) struct Style {
    pub(super) color: bool,
    pub(super) names: Vec<String>,
    pub(super) me: u8,
}

impl Style {
    pub(super) fn card(&self, rules: &Rules, c: CardId) -> String {
        let t = rules.deck.token(c);
        if !self.color {
            return t;
        }
        let code = match rules.deck.color(c) {
            Some(Color::Red) => "31",
            Some(Color::Yellow) => "33",
            Some(Color::Green) => "32",
            Some(Color::Blue) => "34",
            None => "1;35",
        };
        format!("\x1b[{code}m{t}\x1b[0m")
    }

    pub(super) fn colour(&self, c: Color) -> String {
        if !self.color {
            return c.name().to_string();
        }
        let code = ["31", "33", "32", "34"][c.index()];
        format!("\x1b[{code}m{}\x1b[0m", c.name())
    }

    pub(super) fn who(&self, seat: u8) -> String {
        if seat == self.me {
            "you".to_string()
        } else {
            format!("seat {seat} ({})", self.names[seat as usize])
        }
    }
}

/// The hand sorted by colour (red, yellow, green, blue, wilds), then face.
pub(super) fn sorted(rules: &Rules, hand: CardSet) -> Vec<CardId> {
    let mut v: Vec<CardId> = hand.iter().collect();
    v.sort_by_key(|&c| {
        let k = rules.deck.kind(c);
        (k.color.map_or(4, |c| c.index()), k.face.index(), c)
    });
    v
}

/// Lines waiting to be shown at the person's next decision.
pub(super) type Log = Arc<Mutex<Vec<String>>>;

pub(super) fn take(log: &Log) -> Vec<String> {
    std::mem::take(&mut *log.lock().unwrap_or_else(|p| p.into_inner()))
}
