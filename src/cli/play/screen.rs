//! The screen of `unolab play`: every write to standard output (a closed
//! or full output ends the game with one line, never a panic) and the end
//! of a match by Ctrl-C.

use crate::cli::scaffold::remove_created;
use std::io::Write;
use std::path::PathBuf;

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

/// Ctrl-C, SIGTERM or SIGHUP during a match: the other seats' programs are
/// ended (they run in their own process groups, which a terminal's Ctrl-C
/// does not reach), the folders made for `--trace` removed, and the match
/// left with a line that says so (exit status 130).
pub fn on_interrupt(created: Vec<PathBuf>, tracing: bool) {
    let _ = ctrlc::set_handler(move || {
        unolab::agents::external::end_all();
        remove_created(&created);
        eprintln!(
            "\ninterrupted: you left the table{}",
            if tracing {
                "; no trace was written"
            } else {
                ""
            }
        );
        std::process::exit(130);
    });
}
