//! The scaffolding of a long command: the output folder made ready before
//! the first game, the interrupt flag, the progress bar, the clock, and the
//! removal of a folder made for a run that then failed ([`Session`]).

use super::term::Fail;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

/// What `run`, `tournament`, `tune`, `experiment run` (and `compare`) and the
/// shards of `run` and `experiment run` set up before their first game.
pub struct Session {
    /// Set by Ctrl-C, SIGTERM or SIGHUP ([`interrupt_flag`]).
    pub stop: &'static AtomicBool,
    /// When the session began (RFC 3339 UTC).
    pub started_utc: String,
    start: Instant,
    bar: Bar,
    /// The output folder, when this session created it.
    created: Option<PathBuf>,
}

impl Session {
    /// Makes the output folder `out` ready (created, writable) before the
    /// first game, installs the interrupt flag and starts the clock. No
    /// progress bar until [`Session::with_bar`].
    pub fn begin(out: Option<&Path>) -> Result<Session, Fail> {
        let created = match out {
            Some(dir) => prepare_out_dir(dir)?.then(|| dir.to_path_buf()),
            None => None,
        };
        Ok(Session {
            stop: interrupt_flag(),
            started_utc: now_utc(),
            start: Instant::now(),
            bar: Bar(None),
            created,
        })
    }

    /// The session with a progress bar of `total` units named `unit`, at
    /// `done` (see [`Bar::new`]).
    pub fn with_bar(self, total: u64, quiet: bool, unit: &str, done: u64) -> Session {
        Session {
            bar: Bar::new(total, quiet, unit, done),
            ..self
        }
    }

    /// Moves the bar to `done` units.
    pub fn progress(&self, done: u64) {
        self.bar.set(done);
    }

    /// Seconds since the session began.
    pub fn elapsed_s(&self) -> f64 {
        self.start.elapsed().as_secs_f64()
    }

    /// The work is over: the seconds it took, and the bar removed.
    pub fn finish(&self) -> f64 {
        let elapsed = self.elapsed_s();
        self.bar.finish();
        elapsed
    }

    /// The error of a run that failed, after removing the output folder if
    /// this session created it (and it is still empty): no empty folder is
    /// left behind for a run that wrote nothing.
    pub fn failed(&self, e: impl Into<Fail>) -> Fail {
        if let Some(dir) = &self.created {
            let _ = std::fs::remove_dir(dir);
        }
        e.into()
    }
}

/// A flag set by Ctrl-C, SIGTERM or SIGHUP (what batch schedulers send at a
/// time limit): long work stops after the unit in progress and keeps what it
/// finished. A second signal exits at once with code 130.
fn interrupt_flag() -> &'static AtomicBool {
    static STOP: AtomicBool = AtomicBool::new(false);
    static INSTALL: std::sync::Once = std::sync::Once::new();
    INSTALL.call_once(|| {
        let _ = ctrlc::set_handler(|| {
            if STOP.swap(true, Ordering::SeqCst) {
                unolab::agents::external::end_all();
                std::process::exit(130);
            }
        });
    });
    &STOP
}

/// A progress bar on stderr when it is a terminal and not `--quiet`;
/// otherwise nothing.
struct Bar(Option<indicatif::ProgressBar>);

impl Bar {
    /// A bar of `total` units named `unit` (shown as a rate), at `pos`.
    pub fn new(total: u64, quiet: bool, unit: &str, pos: u64) -> Bar {
        if quiet || !std::io::stderr().is_terminal() {
            return Bar(None);
        }
        let b = indicatif::ProgressBar::new(total);
        let unit = unit.to_string();
        b.set_style(
            indicatif::ProgressStyle::with_template(
                "{wide_bar} {human_pos}/{human_len} {rate} eta {eta}",
            )
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar())
            .with_key(
                "rate",
                move |s: &indicatif::ProgressState, w: &mut dyn std::fmt::Write| {
                    let _ = write!(w, "{:.0} {unit}/s", s.per_sec());
                },
            ),
        );
        b.set_position(pos);
        Bar(Some(b))
    }

    /// Moves the bar to `done` units.
    pub fn set(&self, done: u64) {
        if let Some(b) = &self.0 {
            b.set_position(done);
        }
    }

    /// Removes the bar.
    pub fn finish(&self) {
        if let Some(b) = &self.0 {
            b.finish_and_clear();
        }
    }
}

/// The current time as `YYYY-MM-DDTHH:MM:SSZ`.
fn now_utc() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    unolab::report::utc_timestamp(secs)
}

/// Creates `dir` if needed and checks that a file can be written in it.
/// Returns whether the folder was created here. The error names the path
/// and the reason.
pub fn prepare_out_dir(dir: &Path) -> Result<bool, Fail> {
    if dir.exists() && !dir.is_dir() {
        return Err(Fail(format!(
            "--out {} exists and is not a directory",
            dir.display()
        )));
    }
    let created = !dir.exists();
    std::fs::create_dir_all(dir).map_err(|e| {
        Fail(format!(
            "--out {}: cannot create the directory: {e}",
            dir.display()
        ))
    })?;
    let probe = dir.join(format!(".unolab-write-test-{}", std::process::id()));
    let written = std::fs::write(&probe, b"");
    let _ = std::fs::remove_file(&probe);
    if let Err(e) = written {
        if created {
            let _ = std::fs::remove_dir(dir);
        }
        return Err(Fail(format!(
            "--out {}: cannot write in the directory: {e}",
            dir.display()
        )));
    }
    Ok(created)
}
