//! What the command line says: the error for the user ([`Fail`]: one line on
//! stderr, exit code 2), writes to stdout that a closed pipe does not fail,
//! and the colour of the error word.

use std::io::{IsTerminal, Write};
use std::process::ExitCode;

/// An error for the user: one line, exit code 2.
pub struct Fail(pub String);

impl<E: std::fmt::Display> From<E> for Fail {
    fn from(e: E) -> Fail {
        Fail(e.to_string())
    }
}

/// Writes `s` to stdout.
pub fn print_out(s: &str) -> Result<(), Fail> {
    print_bytes(s.as_bytes())
}

/// Prints a result on stdout: one line of JSON with `--json`, else as text.
pub fn print_result<T: serde::Serialize>(
    json: bool,
    as_json: impl FnOnce() -> T,
    as_text: impl FnOnce() -> String,
) -> Result<(), Fail> {
    if json {
        print_out(&(serde_json::to_string(&as_json())? + "\n"))
    } else {
        print_out(&as_text())
    }
}

/// Exit code 130 after `interrupted: {what}` on stderr: the work stopped
/// early and what it finished is kept.
pub fn interrupted(what: &str) -> ExitCode {
    eprintln!("interrupted: {what}");
    ExitCode::from(130)
}

/// The note of work whose units in progress at an interrupt could not
/// finish (a program they played with was ended by the same signal): they
/// are left out, with every later unit, and `why` says what stopped them.
pub fn unfinished_note(why: &str) -> String {
    format!("note: the games in progress at the interrupt could not finish and are left out, with every later game ({why})")
}

/// Writes `b` to stdout; a closed pipe is no error.
pub fn print_bytes(b: &[u8]) -> Result<(), Fail> {
    let mut out = std::io::stdout().lock();
    match out.write_all(b).and_then(|_| out.flush()) {
        Ok(()) => Ok(()),
        // A closed pipe (`| head`) is not an error worth a message.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        Err(e) => Err(Fail(format!("cannot write to stdout: {e}"))),
    }
}

/// Whether to colour stderr: a terminal, and neither `NO_COLOR` set nor
/// `TERM=dumb` (https://no-color.org).
fn color_stderr() -> bool {
    std::io::stderr().is_terminal()
        && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
        && std::env::var("TERM").map_or(true, |t| t != "dumb")
}

/// `word` in bold red when stderr takes colour.
pub fn paint_error(word: &str) -> String {
    if color_stderr() {
        format!("\x1b[1;31m{word}\x1b[0m")
    } else {
        word.to_string()
    }
}
