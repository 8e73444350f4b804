//! The scaffolding of a long command: the output folder made ready before
//! the first game, the interrupt flag, the progress bar, the clock, and the
//! removal of a folder made for a run that then failed ([`Session`]).

use super::term::Fail;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::Instant;
use unolab::report::outdir;

/// What `run`, `tournament`, `tune`, `experiment run` (and `compare`) and the
/// shards of `run` and `experiment run` set up before their first game.
pub struct Session {
    /// Set by Ctrl-C, SIGTERM or SIGHUP ([`interrupt_flag`]).
    pub stop: &'static AtomicBool,
    /// When the session began (RFC 3339 UTC).
    pub started_utc: String,
    start: Instant,
    bar: Bar,
    /// The folders this session created for the output (outermost first).
    created: Vec<PathBuf>,
}

impl Session {
    /// Makes the output folder `out` ready (created, writable) before the
    /// first game, installs the interrupt flag and starts the clock. No
    /// progress bar until [`Session::with_bar`].
    pub fn begin(out: Option<&Path>) -> Result<Session, Fail> {
        let created = match out {
            Some(dir) => prepare_out_dir(dir)?,
            None => Vec::new(),
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

    /// The session, answerable for the output folders `created` for it
    /// after it began (a shard makes its folder once its state file is
    /// checked): [`Session::failed`] removes them too when left empty.
    pub fn with_created(mut self, created: Vec<PathBuf>) -> Session {
        self.created.extend(created);
        self
    }

    /// Moves the bar to `done` units.
    pub fn progress(&self, done: u64) {
        self.bar.set(done);
    }

    /// Shows `msg` after the bar (what is being done when the bar stands
    /// still); "" clears it.
    pub fn note(&self, msg: &str) {
        if let Some(b) = &self.bar.0 {
            b.set_message(msg.to_string());
        }
    }

    /// `write` for the checkpoints of a long run: one that fails (a full
    /// disk) does not end the run, which threw away every game played since
    /// the last; it is said once above the bar (`warning: ERROR: goes_on`),
    /// and the next checkpoint tries again.
    pub fn checkpoints<'a, S>(
        &'a self,
        mut write: impl FnMut(&S) -> Result<(), String> + 'a,
        goes_on: &'a str,
    ) -> impl FnMut(&S) -> Result<(), String> + 'a {
        let mut said = false;
        move |s| {
            if let Err(e) = write(s) {
                if !said {
                    self.say(&format!("warning: {e}: {goes_on}"));
                    said = true;
                }
            }
            Ok(())
        }
    }

    /// Prints `line` on stderr above the bar, which is drawn again below.
    pub fn say(&self, line: &str) {
        match &self.bar.0 {
            Some(b) => b.suspend(|| eprintln!("{line}")),
            None => eprintln!("{line}"),
        }
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

    /// Interrupted before any unit of work finished: the bar removed, and
    /// the output folder too if this session created it (nothing is
    /// written: there is no result to keep).
    pub fn abandon(&self) {
        self.bar.finish();
        remove_created(&self.created);
    }

    /// Writes the results (`write`). When that fails (a full disk), they are
    /// shown anyway (`show`, on stdout) so that the finished games are not
    /// lost with the files, and the error comes back as from
    /// [`Session::failed`].
    pub fn write_or_show(
        &self,
        write: impl FnOnce() -> Result<(), String>,
        show: impl FnOnce() -> Result<(), Fail>,
    ) -> Result<(), Fail> {
        let hold = unolab::report::hold_writes();
        let written = write();
        drop(hold);
        written.map_err(|e| {
            let _ = show();
            self.failed(e)
        })
    }

    /// The error of a run that failed, after removing the output folder if
    /// this session created it (and it is still empty): no empty folder is
    /// left behind for a run that wrote nothing.
    pub fn failed(&self, e: impl Into<Fail>) -> Fail {
        remove_created(&self.created);
        e.into()
    }
}

/// A flag set by Ctrl-C, SIGTERM or SIGHUP (what batch schedulers send at a
/// time limit): long work stops after the unit in progress and keeps what it
/// finished. A second signal exits at once with code 130, keeping nothing,
/// but only one that comes a second or more after the first: `timeout -s INT` and a terminal's
/// Ctrl-C can deliver one interrupt twice (to the process and to its
/// group), and that pair must not throw the finished work away.
fn interrupt_flag() -> &'static AtomicBool {
    static STOP: AtomicBool = AtomicBool::new(false);
    static FIRST_MS: AtomicU64 = AtomicU64::new(0);
    static INSTALL: std::sync::Once = std::sync::Once::new();
    fn now_ms() -> u64 {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_millis() as u64)
    }
    INSTALL.call_once(|| {
        static DEFERRED: AtomicBool = AtomicBool::new(false);
        let _ = ctrlc::set_handler(|| {
            if STOP.swap(true, Ordering::SeqCst) {
                if now_ms().saturating_sub(FIRST_MS.load(Ordering::SeqCst)) < 1000 {
                    return;
                }
                // The results are being written: quitting now would leave
                // part of the new set and none of the old. Finished first,
                // unless asked once more.
                if unolab::report::writes_held() && !DEFERRED.swap(true, Ordering::SeqCst) {
                    FIRST_MS.store(now_ms(), Ordering::SeqCst);
                    eprintln!("writing the results: they are finished first (interrupt again to quit at once)");
                    return;
                }
                let made = MADE.lock().map(|m| m.clone()).unwrap_or_default();
                quit_now(&made, "quit at once: nothing more is written");
            }
            FIRST_MS.store(now_ms(), Ordering::SeqCst);
            // A program that hangs no longer holds the games in progress.
            unolab::agents::external::interrupted();
            // The first signal: the run ends after the games in progress.
            // On a terminal the line starts after the progress bar or the
            // echoed ^C; elsewhere no blank line comes first.
            let fresh_line = if std::io::stderr().is_terminal() { "\n" } else { "" };
            let what = STOPPING
                .lock()
                .ok()
                .and_then(|w| *w)
                .unwrap_or("the games in progress");
            eprintln!(
                "{fresh_line}stopping after {what}, keeping what is finished (interrupt again to quit at once, keeping nothing: a second or more from now)"
            );
        });
    });
    &STOP
}

/// What a first interrupt waits for, when it is not "the games in
/// progress" ([`stops_after`]).
static STOPPING: Mutex<Option<&'static str>> = Mutex::new(None);

/// Says what a first interrupt of this command waits for ("the generation
/// in progress"), in its line on stderr.
pub fn stops_after(what: &'static str) {
    if let Ok(mut w) = STOPPING.lock() {
        *w = Some(what);
    }
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
                "{wide_bar} {human_pos}/{human_len} {rate} eta {eta} {msg}",
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

/// [`outdir::create_dirs`] with the option's name in the error.
fn create_dirs(dir: &Path, flag: &str) -> Result<Vec<PathBuf>, Fail> {
    outdir::create_dirs(dir).map_err(|e| Fail(format!("{flag} {e}")))
}

pub use outdir::remove_created;

/// Work that cannot stop half-way (one match: `play`, `trace`): Ctrl-C,
/// SIGTERM or SIGHUP ends the command at once. The seats' programs are
/// ended (they run in their own process groups, which a terminal's Ctrl-C
/// does not reach), the folders `created` for the output removed, `line`
/// said on stderr, and the exit status is 130.
pub fn quit_at_interrupt(created: Vec<PathBuf>, line: String) {
    let _ = ctrlc::set_handler(move || quit_now(&created, &line));
}

/// Quits from a signal handler: ends the programs, removes the folders
/// `created` (those still empty), says `line` on stderr and exits with 130.
/// It says it is quitting ([`quitting`]) before it ends the programs, so
/// that the command, seeing a program it waited on end, leaves the exit to
/// this handler instead of blaming the program.
fn quit_now(created: &[PathBuf], line: &str) -> ! {
    QUITTING.store(true, std::sync::atomic::Ordering::SeqCst);
    unolab::agents::external::end_all();
    unolab::report::remove_unfinished_writes();
    settle_set_aside();
    remove_created(created);
    eprintln!("{line}");
    std::process::exit(130);
}

/// Set when a signal handler has begun to quit ([`quit_now`]).
static QUITTING: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Whether an interrupt is quitting the command ([`quit_now`]): a
/// failure seen now is the interrupt's doing (a program it ended), and the
/// handler exits with its own line and status 130.
pub fn quitting() -> bool {
    QUITTING.load(std::sync::atomic::Ordering::SeqCst)
}

/// The folders [`prepare_out_dir`] made for this command's output
/// (outermost first): a second interrupt, which quits at once, removes
/// those still empty, as a failed run does ([`Session::failed`]).
static MADE: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// Creates `dir` if needed (with its missing parents) and checks that a file
/// can be written in it. Returns the folders created here (outermost first).
/// The error names the path and the reason.
pub fn prepare_out_dir(dir: &Path) -> Result<Vec<PathBuf>, Fail> {
    // The handler first: a signal between the folder's creation and the
    // handler would end the process with the empty folder left behind.
    interrupt_flag();
    if dir.exists() && !dir.is_dir() {
        return Err(Fail(format!(
            "--out {} exists and is not a directory",
            dir.display()
        )));
    }
    let created = outdir::create_writable(dir).map_err(|e| Fail(format!("--out {e}")))?;
    if let Ok(mut made) = MADE.lock() {
        made.extend(created.iter().cloned());
    }
    Ok(created)
}

/// Makes the file output `path` of option `flag` (`--out FILE`, `--trace
/// FILE`) ready before any work: not a folder, not an existing file unless
/// `force` (an earlier result is never replaced silently), its folder
/// created with its missing parents (as `--out DIR` is) and writable.
/// Returns the folders created (see [`remove_created`]).
pub fn prepare_out_file(path: &Path, flag: &str, force: bool) -> Result<Vec<PathBuf>, Fail> {
    if path.is_dir() || path.file_name().is_none() {
        return Err(Fail(format!(
            "{flag} {} is a directory, not a file path",
            path.display()
        )));
    }
    if let Some(why) = unolab::report::unfit_target(path) {
        return Err(Fail(format!("{flag} {} {why}", path.display())));
    }
    if path.exists() && !force {
        return Err(Fail(format!(
            "{flag} {} already exists; use --force to replace it, or another {flag}",
            path.display()
        )));
    }
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let created = create_dirs(dir, flag)?;
    // A second interrupt of a long command (`tune`) removes them too.
    if let Ok(mut made) = MADE.lock() {
        made.extend(created.iter().cloned());
    }
    let probe = dir.join(format!(".unolab-write-test-{}", std::process::id()));
    let written = std::fs::write(&probe, b"");
    let _ = std::fs::remove_file(&probe);
    if let Err(e) = written {
        remove_created(&created);
        return Err(Fail(format!(
            "{flag} {}: cannot write in {}: {e}",
            path.display(),
            dir.display()
        )));
    }
    Ok(created)
}

/// [`outdir::check_out_dir`] for the command line.
pub fn check_out_dir(dir: &Path, force: bool) -> Result<(), Fail> {
    outdir::check_out_dir(dir, force).map_err(Fail)
}

/// [`outdir::set_aside_results`] for the command line: the earlier results
/// are kept aside until the command ends ([`settle_set_aside`]).
pub fn clear_results(dir: &Path) -> Result<(), Fail> {
    // The handler first: a signal would otherwise end the process with
    // the earlier results hidden away.
    interrupt_flag();
    keep_aside(|| outdir::set_aside_results(dir))?;
    Ok(())
}

/// [`outdir::claim_out_dir`] for the command line, the earlier results
/// kept aside as by [`clear_results`].
pub fn claim_out_dir(dir: &Path, force: bool) -> Result<(), Fail> {
    interrupt_flag();
    keep_aside(|| outdir::claim_out_dir(dir, force))?;
    Ok(())
}

/// [`outdir::set_aside_files`] for the command line (`train --force`), the
/// files kept aside as by [`clear_results`].
#[cfg_attr(not(feature = "train"), allow(dead_code))]
pub fn set_aside_files(
    dir: &Path,
    names: Vec<String>,
    written: impl Fn(&Path) -> bool + Send + 'static,
) -> Result<(), Fail> {
    interrupt_flag();
    keep_aside(|| outdir::set_aside_files(dir, names, written))?;
    Ok(())
}

/// The earlier results `--force` moved aside during this command.
static SET_ASIDE: Mutex<Vec<outdir::SetAside>> = Mutex::new(Vec::new());

/// Moves earlier results aside with `move_aside` and keeps them in
/// [`SET_ASIDE`], holding its lock throughout: a second interrupt during
/// the move, whose handler settles [`SET_ASIDE`] ([`settle_set_aside`]),
/// waits for the move to end and then puts back all it moved, instead of
/// finding nothing listed and leaving the moved files in the hidden folder.
fn keep_aside(
    move_aside: impl FnOnce() -> Result<Option<outdir::SetAside>, String>,
) -> Result<(), Fail> {
    let mut all = SET_ASIDE.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(s) = move_aside().map_err(Fail)? {
        all.push(s);
    }
    Ok(())
}

/// The command has ended (or quits at once): the earlier results `--force`
/// set aside are removed where it wrote results, and put back where it
/// wrote none (it failed, or was interrupted before a game finished).
///
/// The lock is held while they are settled: a second interrupt meanwhile
/// (whose handler settles too) waits for the files to be back, rather than
/// exiting with half of them still in the hidden folder.
pub fn settle_set_aside() {
    let mut all = SET_ASIDE.lock().unwrap_or_else(|p| p.into_inner());
    // Innermost first: a ladder's table sizes before its folder.
    while let Some(s) = all.pop() {
        s.settle();
    }
}

/// `--force` given where there is nothing it could replace (a run, or a
/// merge, without `--out`): refused, as `--checkpoint` without `--shard` is.
pub fn force_without_out() -> Fail {
    Fail("--force applies only with --out (it replaces the earlier results there)".into())
}

/// Names the arms whose own seating `--seating` replaced
/// (`Overrides::seating_replaced`), on stderr: `experiment run` and its
/// shards say it alike.
pub fn seating_note(replaced: &[(String, unolab::sim::Seating)], seating: Option<&str>) {
    if replaced.is_empty() {
        return;
    }
    let arms: Vec<String> = replaced
        .iter()
        .map(|(label, s)| format!("'{label}' ({})", s.name()))
        .collect();
    eprintln!(
        "note: --seating {} replaces the seating the file gives arm{} {}",
        seating.unwrap_or_default(),
        if arms.len() == 1 { "" } else { "s" },
        arms.join(", ")
    );
}
