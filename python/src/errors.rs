//! The core's errors as Python exceptions: a `ValueError` for bad input
//! (its message naming this package's keyword arguments where the core's
//! names command-line flags), an `OSError` of the right kind for a file that
//! could not be read, a `RuntimeError` for a strategy that failed.

use pyo3::exceptions::{
    PyFileExistsError, PyFileNotFoundError, PyIsADirectoryError, PyNotADirectoryError, PyOSError,
    PyOverflowError, PyPermissionError, PyRuntimeError, PyValueError,
};
use pyo3::prelude::*;
use unolab::agents::spec::StrategyError;
use unolab::engine::rules::RulesError;
use unolab::engine::step::StepError;

/// A whole-number argument of any size (`what` names it), as an `i128`:
/// pyo3's conversion to a fixed width raised `OverflowError` past it, where
/// every bad argument raises `ValueError`. Past `i128` it is out of range;
/// each caller checks its own range.
pub(crate) fn whole(v: &Bound<'_, PyAny>, what: &str) -> PyResult<i128> {
    v.extract::<i128>().map_err(|e| {
        if e.is_instance_of::<PyOverflowError>(v.py()) {
            value_error(format!("{what} {v} is out of range"))
        } else {
            e
        }
    })
}

/// An unsigned 64-bit argument (a seed, a game's index): `ValueError`
/// outside 0 to 2**64 - 1.
pub(crate) fn u64_arg(v: &Bound<'_, PyAny>, what: &str) -> PyResult<u64> {
    let n = whole(v, what)?;
    u64::try_from(n).map_err(|_| {
        value_error(format!(
            "{what} {n} is out of range (valid: 0 to {})",
            u64::MAX
        ))
    })
}

/// A `ValueError` with the core's message, its command-line flags named as
/// this package's keyword arguments ([`keyword_names`]).
pub(crate) fn value_error(msg: impl Into<String>) -> PyErr {
    PyValueError::new_err(keyword_names(&msg.into()))
}

/// An `OSError` with the core's message (a write that failed, earlier
/// results that could not be moved aside), its flags named as
/// [`value_error`] names them.
pub(crate) fn os_error(msg: impl Into<String>) -> PyErr {
    PyOSError::new_err(keyword_names(&msg.into()))
}

/// A `FileExistsError` with the core's message, its flags named as
/// [`value_error`] names them: an output that holds earlier results.
pub(crate) fn exists_error(msg: impl Into<String>) -> PyErr {
    PyFileExistsError::new_err(keyword_names(&msg.into()))
}

/// The core's messages are shared with the command line and name its flags
/// (`--b-seat`, `--duplicate`, `--allow-oracle`); from Python they name the
/// keyword arguments that set the same thing (`b_seat`, `duplicate=True`,
/// `allow_oracle=True`). A flag followed by a number takes it as its value
/// (`--games 5` reads `games=5`).
///
/// Only the flags the core's messages name are translated
/// ([`unolab::flags::MESSAGE_FLAGS`], which a test of the core keeps
/// complete), and only where one starts a word outside a quoted value: the
/// user's own text that a message quotes (`unknown strategy 'foo --bar'`) or
/// a file name (`my--rules.toml`) is left as it is.
fn keyword_names(msg: &str) -> String {
    // Whole phrases of the command line, said as the package says them.
    const COMMANDS: &[(&str, &str)] = &[
        ("`unolab ladder FILE`", "`unolab.ladder(file)`"),
        ("`unolab experiment run FILE`", "`unolab.experiment(file)`"),
        (
            "give the interrupted command's options",
            "pass the interrupted call's arguments again",
        ),
        ("the results of an earlier command", "earlier results"),
    ];
    let mut msg = msg.to_string();
    for (cli, py) in COMMANDS {
        msg = msg.replace(cli, py);
    }
    let msg = msg.as_str();
    // A message about `compare`'s B ("B: ...") names B's arguments.
    let settings = if msg.starts_with("B: ") {
        "b_settings"
    } else {
        "settings"
    };
    // Phrases whose keyword is not the flag's name, or which need a value.
    const PHRASES: &[(&str, &str)] = &[
        ("--seating fixed", "seating=\"fixed\" (fixed_seats=True)"),
        ("--seating rotate", "seating=\"rotate\""),
        ("--seating mixed", "seating=\"mixed\""),
        ("--mode match", "mode=\"match\""),
        ("--allow-oracle", "allow_oracle=True"),
        ("--duplicate", "duplicate=True"),
        ("--b-* options", "b_* arguments"),
        ("--precision X", "precision=X"),
        ("--set", "settings"),
        ("--resume", "resume=True"),
        ("--force", "force=True"),
    ];
    let word = |c: char| c.is_alphanumeric() || "-_./\\".contains(c);
    let mut out = String::with_capacity(msg.len());
    let mut i = 0;
    while let Some(c) = msg[i..].chars().next() {
        let at = &msg[i..];
        let prev = msg[..i].chars().last();
        // A quoted value ('...', the quote opening a word and closing one) is
        // the user's text: copied as it is.
        if c == '\'' && prev.is_none_or(|p| !p.is_alphanumeric()) {
            let close = at[1..]
                .match_indices('\'')
                .map(|(k, _)| k + 1)
                .find(|&k| !at[k + 1..].starts_with(|n: char| n.is_alphanumeric()));
            if let Some(k) = close {
                out.push_str(&at[..=k]);
                i += k + 1;
                continue;
            }
        }
        if at.starts_with("--") && prev.is_none_or(|p| !word(p)) {
            let ends = |flag: &str| {
                at.starts_with(flag)
                    && !at[flag.len()..].starts_with(|n: char| n.is_ascii_lowercase() || n == '-')
            };
            // `--set key=VALUE`: the dict item that sets it.
            if let Some(item) = at.strip_prefix("--set ") {
                let end = item.find(char::is_whitespace).unwrap_or(item.len());
                if let Some((key, value)) = item[..end].split_once('=') {
                    let plain = |t: &str| {
                        !t.is_empty() && t.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                    };
                    if plain(key) && plain(value) {
                        out.push_str(&format!("{settings}={{\"{key}\": {value}}}"));
                        i += "--set ".len() + end;
                        continue;
                    }
                }
            }
            if let Some((flag, keyword)) = PHRASES.iter().find(|(flag, _)| ends(flag)) {
                out.push_str(if *flag == "--set" { settings } else { keyword });
                i += flag.len();
                continue;
            }
            if let Some(flag) = unolab::flags::message_flag(at) {
                out.push_str(&flag[2..].replace('-', "_"));
                i += flag.len();
                let rest = &msg[i..];
                let digits = rest
                    .strip_prefix(' ')
                    .map(|r| r.find(|d: char| !d.is_ascii_digit()).unwrap_or(r.len()))
                    .unwrap_or(0);
                if digits > 0 {
                    out.push('=');
                    out.push_str(&rest[1..1 + digits]);
                    i += 1 + digits;
                }
                continue;
            }
        }
        out.push(c);
        i += c.len_utf8();
    }
    out
}

/// The exception of a file that could not be read (`kind`: why, as the
/// system said when it was read; `msg`, the message): `FileNotFoundError`
/// for a missing file, `IsADirectoryError` for a folder,
/// `NotADirectoryError` for a path through a file, `PermissionError` for
/// one without permission, an `OSError` otherwise. (A file that is read but
/// is not UTF-8 text is malformed: the core's `Malformed`, a `ValueError`.)
pub(crate) fn read_error(kind: std::io::ErrorKind, msg: String) -> PyErr {
    use std::io::ErrorKind as K;
    match kind {
        K::NotFound => PyFileNotFoundError::new_err(msg),
        K::IsADirectory => PyIsADirectoryError::new_err(msg),
        K::NotADirectory => PyNotADirectoryError::new_err(msg),
        K::PermissionDenied => PyPermissionError::new_err(msg),
        _ => PyOSError::new_err(msg),
    }
}

/// A file that cannot be read is an `OSError` ([`read_error`]); every other
/// problem with the rules a `ValueError`.
pub(crate) fn rules_error(e: RulesError) -> PyErr {
    match &e {
        RulesError::Io(_, why) => read_error(why.kind, e.to_string()),
        _ => value_error(e.to_string()),
    }
}

/// A preset file that cannot be read is an `OSError` ([`read_error`]);
/// every other problem with a strategy a `ValueError`.
pub(crate) fn strategy_error(e: StrategyError) -> PyErr {
    match e.unread() {
        Some(kind) => read_error(kind, e.to_string()),
        None => value_error(e.to_string()),
    }
}

/// An action refused is a `ValueError` (the core's message); a strategy that
/// failed (an external program that died), or a step after the end, a
/// `RuntimeError`.
pub(crate) fn step_error(e: StepError) -> PyErr {
    match e {
        StepError::Illegal { .. } | StepError::Unsupported(_) | StepError::NoDecision(_) => {
            value_error(e.to_string())
        }
        _ => PyRuntimeError::new_err(e.to_string()),
    }
}
