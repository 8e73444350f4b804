//! The programs behind external agents as processes: started in a process
//! group of their own, read by a thread, and ended with that whole group.
//!
//! A program may start helpers (a shell wrapper's command, a server it talks
//! to) that inherit its standard output. Nothing here waits for that output
//! to close: a program counts as exited when its process has, and ending it
//! signals its process group, so that its helpers end with it. Ending: its
//! input is closed, it gets [`GRACE_MS`] to exit, then the group gets SIGTERM
//! and, [`GRACE_MS`] later, SIGKILL if any of it is left; the program's
//! process is reaped. The reading thread is never joined: it ends when the
//! last holder of the output closes it, which a process that left the group
//! may never do.

use std::io::{BufRead, BufReader, Read};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::Receiver;
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// How long a program gets to exit once its input is closed, and then what
/// is left of its process group after SIGTERM before SIGKILL.
pub const GRACE_MS: u64 = 200;

/// Every program started whose process group has not been ended, by a serial
/// number, so that a forced exit can end them all ([`end_all`]). A program's
/// process is the leader of its group: the group's id is its pid.
static LIVE: Mutex<Vec<(u64, Child)>> = Mutex::new(Vec::new());
static SERIAL: AtomicU64 = AtomicU64::new(0);
/// Set by [`end_all`]: no program starts after it.
static ENDING: AtomicBool = AtomicBool::new(false);

fn live() -> MutexGuard<'static, Vec<(u64, Child)>> {
    LIVE.lock().unwrap_or_else(|p| p.into_inner())
}

/// Sends `sig` to the process group `group` (`None`: only checks that it has
/// a process). False when the group has no process left (zombies count).
#[cfg(unix)]
fn signal_group(group: u32, sig: Option<nix::sys::signal::Signal>) -> bool {
    let Ok(id) = i32::try_from(group) else {
        return false;
    };
    match nix::sys::signal::killpg(nix::unistd::Pid::from_raw(id), sig) {
        Err(nix::errno::Errno::ESRCH) => false,
        // Sent, or refused for a process that changed its user: still there.
        _ => true,
    }
}

#[cfg(unix)]
const TERM: Option<nix::sys::signal::Signal> = Some(nix::sys::signal::Signal::SIGTERM);
#[cfg(unix)]
const KILL: Option<nix::sys::signal::Signal> = Some(nix::sys::signal::Signal::SIGKILL);

/// Without process groups, only the program itself is ended.
#[cfg(not(unix))]
fn signal_group(_group: u32, _sig: Option<()>) -> bool {
    false
}
#[cfg(not(unix))]
const TERM: Option<()> = None;
#[cfg(not(unix))]
const KILL: Option<()> = None;

/// Ends the process groups of the programs `serials`: SIGTERM to each group,
/// up to `grace` for each program to be reaped and its group to empty, then
/// SIGKILL to the groups with a process left; the programs are reaped and
/// leave [`LIVE`].
fn end_groups(serials: &[u64], grace: Duration) {
    let groups: Vec<(u64, u32)> = live()
        .iter()
        .filter(|(s, _)| serials.contains(s))
        .map(|(s, c)| (*s, c.id()))
        .collect();
    // Signalled while the program is unreaped or its group has a process,
    // so the group id cannot belong to anything else.
    for &(_, g) in &groups {
        signal_group(g, TERM);
    }
    let until = Instant::now() + grace;
    let mut left = groups;
    loop {
        {
            let mut v = live();
            left.retain(|&(s, g)| {
                let reaped = v
                    .iter_mut()
                    .find(|(t, _)| *t == s)
                    .is_none_or(|(_, c)| matches!(c.try_wait(), Ok(Some(_))));
                !reaped || signal_group(g, None)
            });
        }
        if left.is_empty() || Instant::now() >= until {
            break;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    for &(_, g) in &left {
        signal_group(g, KILL);
    }
    let ended: Vec<Child> = {
        let mut v = live();
        let mut out = Vec::new();
        let mut i = 0;
        while i < v.len() {
            if serials.contains(&v[i].0) {
                out.push(v.swap_remove(i).1);
            } else {
                i += 1;
            }
        }
        out
    };
    for mut c in ended {
        // The program itself, in case it left its group; then reaped.
        if !matches!(c.try_wait(), Ok(Some(_))) {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

/// Ends every external program still running, with its process group, and
/// lets none start after (for a process about to exit without unwinding,
/// e.g. on a second Ctrl-C, and as a last safety net).
pub fn end_all() {
    ENDING.store(true, Ordering::SeqCst);
    let serials: Vec<u64> = live().iter().map(|(s, _)| *s).collect();
    end_groups(&serials, Duration::from_millis(GRACE_MS));
}

/// Checks that the program of `command` can be started (a path to an
/// executable file, or the name of one on `PATH`), so that a misspelt
/// command, a folder or a script without its executable bit is refused
/// before any work.
pub fn check_command(command: &[String]) -> Result<(), String> {
    let Some(prog) = command.first() else {
        return Err("the command is empty".into());
    };
    if prog.contains('/') {
        let p = std::path::Path::new(prog);
        if p.is_dir() {
            return Err(format!("program '{prog}' is a directory"));
        }
        if !p.is_file() {
            return Err(format!("program '{prog}' does not exist"));
        }
        if !executable(p) {
            return Err(format!(
                "program '{prog}' is not executable (chmod +x it, or name its interpreter first, as in ext:python3 {prog})"
            ));
        }
        return Ok(());
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    let found = |d: std::path::PathBuf| {
        let f = d.join(prog);
        f.is_file() && executable(&f)
    };
    if std::env::split_paths(&path).any(found) {
        return Ok(());
    }
    Err(format!("program '{prog}' is not on PATH"))
}

/// Whether a file may be executed (on Unix, an executable bit is set; the
/// system still decides for whom).
fn executable(p: &std::path::Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::metadata(p).is_ok_and(|m| m.permissions().mode() & 0o111 != 0)
    }
    #[cfg(not(unix))]
    {
        let _ = p;
        true
    }
}

/// The longest line a program may write, line end excluded (an answer is a
/// few dozen bytes): a longer one is a fault, read no further.
pub const MAX_LINE_BYTES: usize = 64 * 1024;

/// Lines a program may write ahead of unolab's reading (answers to notices,
/// say) before its writes wait: with [`MAX_LINE_BYTES`], what a program's
/// output can hold in memory is bounded.
const LINES_AHEAD: usize = 64;

/// Reads a program's output as unolab does, one line at a time: `each` gets
/// every line without its line end (`\n`, `\r\n`; the last one also without),
/// or, in place of a line longer than [`MAX_LINE_BYTES`] or not UTF-8, why it
/// is not one, and the reading stops there. It also stops at the end of the
/// output, a read error, or when `each` returns false. At most
/// [`MAX_LINE_BYTES`] + 1 bytes are held at a time.
pub fn read_lines(mut r: impl BufRead, mut each: impl FnMut(Result<String, String>) -> bool) {
    let mut buf = Vec::new();
    loop {
        buf.clear();
        let limit = MAX_LINE_BYTES as u64 + 1;
        match r.by_ref().take(limit).read_until(b'\n', &mut buf) {
            Ok(0) | Err(_) => return,
            Ok(_) => {}
        }
        if buf.last() != Some(&b'\n') && buf.len() > MAX_LINE_BYTES {
            each(Err(format!(
                "a line longer than {} KiB",
                MAX_LINE_BYTES / 1024
            )));
            return;
        }
        while matches!(buf.last(), Some(b'\n' | b'\r')) {
            buf.pop();
        }
        let line = match std::str::from_utf8(&buf) {
            Ok(l) => Ok(l.to_string()),
            Err(_) => Err("a line that is not UTF-8".to_string()),
        };
        let stop = line.is_err();
        if !each(line) || stop {
            return;
        }
    }
}

/// The bytes a program wrote since its last line end (at most 201 kept): a
/// line it began and did not end, for the message when it then answers no
/// more.
#[derive(Clone, Default)]
pub(super) struct Unended(std::sync::Arc<Mutex<Vec<u8>>>);

impl Unended {
    /// The line begun and not ended, if any, as text.
    pub(super) fn text(&self) -> Option<String> {
        let b = self.0.lock().unwrap_or_else(|p| p.into_inner());
        (!b.is_empty()).then(|| String::from_utf8_lossy(&b).into_owned())
    }
}

/// A program's output, noting in [`Unended`] what follows its last line end.
struct Tap<R> {
    inner: R,
    unended: Unended,
}

impl<R: Read> Read for Tap<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        let got = &buf[..n];
        let mut u = self.unended.0.lock().unwrap_or_else(|p| p.into_inner());
        let rest = match got.iter().rposition(|&b| b == b'\n') {
            Some(i) => {
                u.clear();
                &got[i + 1..]
            }
            None => got,
        };
        let room = 201usize.saturating_sub(u.len());
        u.extend_from_slice(&rest[..rest.len().min(room)]);
        Ok(n)
    }
}

/// A running program: its input, its output lines (read by a thread, so that
/// a silent program can be timed out; see [`read_lines`]) and its serial in
/// [`LIVE`].
pub(super) struct Proc {
    pub(super) serial: u64,
    /// Requests sent to it, and whether it is in a match (between
    /// `match_start` and `match_end`).
    pub(super) requests: u64,
    pub(super) in_match: bool,
    pub(super) stdin: Option<ChildStdin>,
    pub(super) lines: Receiver<Result<String, String>>,
    /// What it wrote after its last line end.
    pub(super) unended: Unended,
}

impl Proc {
    pub(super) fn start(command: &[String]) -> Result<Proc, String> {
        let mut cmd = Command::new(&command[0]);
        cmd.args(&command[1..])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit());
        #[cfg(unix)]
        {
            use std::os::unix::process::CommandExt;
            cmd.process_group(0);
        }
        // Started and listed under the lock, so that `end_all` either sees
        // it or has stopped it from starting.
        let mut v = live();
        if ENDING.load(Ordering::SeqCst) {
            return Err("unolab is exiting".into());
        }
        let mut child = cmd
            .spawn()
            .map_err(|e| format!("cannot start '{}': {e}", command.join(" ")))?;
        let stdin = child.stdin.take();
        // Non-blocking, so that a write to a program that does not read
        // can give up at the time limit (`write_by`).
        #[cfg(unix)]
        if let Some(w) = &stdin {
            use nix::fcntl::{fcntl, FcntlArg, OFlag};
            let flags = fcntl(w, FcntlArg::F_GETFL).map(OFlag::from_bits_truncate);
            if let Ok(f) = flags {
                let _ = fcntl(w, FcntlArg::F_SETFL(f | OFlag::O_NONBLOCK));
            }
        }
        let stdout = child.stdout.take();
        let serial = SERIAL.fetch_add(1, Ordering::Relaxed);
        v.push((serial, child));
        drop(v);
        let (tx, rx) = std::sync::mpsc::sync_channel(LINES_AHEAD);
        let unended = Unended::default();
        if let Some(out) = stdout {
            let tap = Tap {
                inner: out,
                unended: unended.clone(),
            };
            // Detached: see the module documentation.
            std::thread::spawn(move || read_lines(BufReader::new(tap), |l| tx.send(l).is_ok()));
        }
        Ok(Proc {
            serial,
            requests: 0,
            in_match: false,
            stdin,
            lines: rx,
            unended,
        })
    }

    /// The exit status if the program's process has ended (waiting up to
    /// `wait`); its helpers may still hold its output open.
    pub(super) fn status(&self, wait: Duration) -> Option<ExitStatus> {
        let until = Instant::now() + wait;
        loop {
            {
                let mut v = live();
                let c = v.iter_mut().find(|(s, _)| *s == self.serial)?;
                if let Ok(Some(st)) = c.1.try_wait() {
                    return Some(st);
                }
            }
            if Instant::now() >= until {
                return None;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    /// Whether the program has exited by a signal that stops work (SIGHUP,
    /// SIGINT or SIGTERM: what a terminal, `kill` or a batch scheduler
    /// sends), killed by it or exiting with the code a shell gives such a
    /// death (129, 130, 143: what a runtime that catches the signal, as the
    /// JVM does, exits with), rather than by its own doing.
    pub(super) fn stopped_by_signal(&self) -> bool {
        #[cfg(unix)]
        {
            use std::os::unix::process::ExitStatusExt;
            self.status(Duration::ZERO).is_some_and(|s| {
                s.signal().is_some_and(|sig| [1, 2, 15].contains(&sig))
                    || s.code().is_some_and(|c| [129, 130, 143].contains(&c))
            })
        }
        #[cfg(not(unix))]
        false
    }

    /// Closes the program's input, gives it `wait` to exit, then ends its
    /// process group (SIGTERM, then SIGKILL after [`GRACE_MS`]).
    pub(super) fn end(&mut self, wait: Duration) {
        self.stdin = None;
        let _ = self.status(wait);
        end_groups(&[self.serial], Duration::from_millis(GRACE_MS));
    }
}

impl Drop for Proc {
    fn drop(&mut self) {
        self.end(Duration::from_millis(GRACE_MS));
    }
}
